"""The fast paths of issue 17 (performance) agree with torch: same dtype, shape, strides
and values (within torch's own float tolerances where the summation order changed, Note
[Summing through BLAS]), the same NaN/inf propagation, and the general path is still taken
where a fast path does not apply."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from conftest import assert_same

import strided


def _pair(shape, dtype=np.float32, seed=0, positive=False):
    rng = np.random.default_rng(seed)
    a = rng.random(shape) if positive else rng.standard_normal(shape)
    a = a.astype(dtype)
    return strided.from_numpy(a.copy()), torch.from_numpy(a.copy())


def _close(s, t, **tol):
    assert_same(s, t, values=False)
    torch.testing.assert_close(torch.from_numpy(s.numpy().copy()), t, **tol)


# -- sum / mean through BLAS (Note [Summing through BLAS]) -----------------------------------

_SHAPES = [(4096,), (64, 256), (256, 256), (3, 5000), (7, 10007), (2, 3, 4096), (5, 12288),
           (1 << 17,), (10007 * 3,), (4100, 2)]
_CALLS = {
    "sum": lambda x: x.sum(),
    "sum(-1)": lambda x: x.sum(-1),
    "sum(-1, keepdim)": lambda x: x.sum(-1, keepdim=True),
    "sum(0)": lambda x: x.sum(0),
    "sum((0, 1))": lambda x: x.sum((0, 1)) if x.dim() > 1 else x.sum(0),
    "sum((-2, -1))": lambda x: x.sum((-2, -1)) if x.dim() > 1 else x.sum(-1),
    "mean": lambda x: x.mean(),
    "mean(-1, keepdim)": lambda x: x.mean(-1, keepdim=True),
    "mean(0)": lambda x: x.mean(0),
}


@pytest.mark.parametrize("shape", _SHAPES, ids=str)
@pytest.mark.parametrize("call", list(_CALLS), ids=str)
def test_blas_sum_matches_torch(shape, call):
    fn = _CALLS[call]
    s, t = _pair(shape, positive=True)
    _close(fn(s), fn(t))                       # no cancellation: torch's float32 tolerance
    s, t = _pair(shape, seed=1)
    _close(fn(s), fn(t), rtol=1.3e-6, atol=1e-3)


@pytest.mark.parametrize("call", ["sum", "sum(-1)", "sum(0)", "mean(-1, keepdim)"])
def test_blas_sum_float64_and_other_layouts(call):
    fn = _CALLS[call]
    s, t = _pair((96, 80), np.float64, positive=True)
    _close(fn(s), fn(t))
    # strided inputs take NumPy's reduction: same results
    _close(fn(s.t()), fn(t.t()))
    _close(fn(s[:, ::2]), fn(t[:, ::2]))
    # integer and half inputs keep their accumulation types
    for dtype in ((np.float16,) if call.startswith("mean") else (np.int32, np.float16)):
        a = (np.arange(96 * 80) % 7).reshape(96, 80).astype(dtype)
        assert_same(fn(strided.from_numpy(a.copy())), fn(torch.from_numpy(a.copy())))


def test_blas_sum_special_values():
    a = np.random.default_rng(2).random(8192).astype(np.float32)
    for value in (np.nan, np.inf, -np.inf):
        b = a.copy()
        b[5000] = value
        s, t = strided.from_numpy(b.copy()), torch.from_numpy(b.copy())
        _close(s.sum(), t.sum(), equal_nan=True)
        _close(s.view(2, 4096).mean(-1), t.view(2, 4096).mean(-1), equal_nan=True)
    zeros = strided.zeros(64, 64) * -1
    assert_same(zeros.sum(), torch.zeros(64, 64).mul(-1).sum())
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # torch does not warn on overflow
        big = strided.full((4096,), 3e38)
        assert_same(big.sum(), torch.full((4096,), 3e38).sum())


def test_blas_sum_out_dtype_and_errors():
    s, t = _pair((64, 64))
    so, to = strided.empty(64), torch.empty(64)
    _close(strided.sum(s, 1, out=so), torch.sum(t, 1, out=to))
    _close(s.sum(dtype=strided.float64), t.sum(dtype=torch.float64))
    _close(s.mean(1, dtype=strided.float64), t.mean(1, dtype=torch.float64))
    m = strided.empty(64, 64, device="meta").sum(-1)
    assert m.shape == (64,) and m.device.type == "meta"


# -- where as bit selection, relu against zeros, x + bias (elementwise fast paths) -----------

_SPECIALS = np.array([-0.0, 0.0, np.nan, -np.nan, np.inf, -np.inf, 1e-45, -3.5], np.float32)


@pytest.mark.parametrize("n", [7, 4096, 70000])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int64", "int8", "bool",
                                   "complex64", "bfloat16"])
def test_where_fast_path_is_bit_exact(n, dtype):
    rng = np.random.default_rng(n)
    cond = rng.random(n) > 0.5
    a = np.resize(_SPECIALS, n).astype(np.float64) * rng.integers(1, 5, n)
    b = rng.standard_normal(n) * 100
    tdtype = getattr(torch, dtype)
    ta, tb = torch.tensor(a).to(tdtype), torch.tensor(b).to(tdtype)
    # the same bits in both libraries (the conversions are not under test here)
    sa = strided.from_numpy(ta.view(torch.uint8).numpy().copy()).view(getattr(strided, dtype))
    sb = strided.from_numpy(tb.view(torch.uint8).numpy().copy()).view(getattr(strided, dtype))
    tc, sc = torch.from_numpy(cond.copy()), strided.from_numpy(cond.copy())
    s, t = strided.where(sc, sa, sb), torch.where(tc, ta, tb)
    assert_same(s, t, values=False)
    assert s.view(strided.uint8).numpy().tobytes() == t.view(torch.uint8).numpy().tobytes()
    # broadcast / strided / mixed-dtype inputs keep the general path and agree
    assert_same(strided.where(sc.view(1, n), sa, sb[:1]), torch.where(tc.view(1, n), ta, tb[:1]))
    assert_same(strided.where(sc[::2], sa[::2], sb.flip(0)[::2]),
                torch.where(tc[::2], ta[::2], tb.flip(0)[::2]))


def test_where_fast_path_errors_and_promotion():
    a, b = strided.ones(8, 8), strided.zeros(8, 8, dtype=strided.float64)
    ta, tb = torch.ones(8, 8), torch.zeros(8, 8, dtype=torch.float64)
    m, tm = strided.ones(8, 8, dtype=strided.bool), torch.ones(8, 8, dtype=torch.bool)
    assert_same(strided.where(m, a, b), torch.where(tm, ta, tb))
    with pytest.raises(RuntimeError) as es:
        strided.where(a, a, a)
    with pytest.raises(RuntimeError) as et:
        torch.where(ta, ta, ta)
    assert str(es.value) == str(et.value)
    out, tout = strided.empty(8, 8), torch.empty(8, 8)
    assert_same(strided.where(m, a, a, out=out), torch.where(tm, ta, ta, out=tout))


@pytest.mark.parametrize("n", [6, 70000, (1 << 16) * 3 + 5])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int32"])
def test_relu_matches_torch_bitwise(n, dtype):
    x = (np.arange(n) % 7 - 3.0) * 0.75
    k = min(n, len(_SPECIALS))
    x[:k] = _SPECIALS[:k]
    if dtype == "int32":
        x = np.nan_to_num(x, posinf=5, neginf=-5)
    t = torch.tensor(x).to(getattr(torch, dtype))
    s = strided.tensor(x).to(getattr(strided, dtype))
    for fs, ft in ((lambda v: v.relu(), lambda v: v.relu()),
                   (lambda v: v[::2].relu(), lambda v: v[::2].relu()),
                   (lambda v: v.clone().relu_(), lambda v: v.clone().relu_())):
        rs, rt = fs(s), ft(t)
        assert_same(rs, rt, values=False)
        assert rs.view(-1).numpy().tobytes() == rt.reshape(-1).numpy().tobytes()


@pytest.mark.parametrize("expr", ["x + b", "b + x", "x * b", "b - x", "x / b", "x < b",
                                  "x.add(b, alpha=2)", "x + s", "s * x", "x.atan2(b)",
                                  "x.pow(b)", "x.maximum(b)"])
def test_suffix_broadcast_fast_path(expr):
    rng = np.random.default_rng(3)
    xs, bs, ss = rng.standard_normal((5, 64, 32)), rng.standard_normal(32), np.array(1.5)
    for dtype in ("float32", "int64", "float16"):
        env = {}
        for lib, key in ((strided, "s"), (torch, "t")):
            d = getattr(lib, dtype)
            env[key] = {"x": lib.tensor(xs * 4).to(d), "b": lib.tensor(bs * 4).to(d),
                        "s": lib.tensor(ss).to(d)}
        try:
            rt = eval(expr, {}, env["t"])
        except RuntimeError as e:
            with pytest.raises(RuntimeError, match=str(e)[:30]):
                eval(expr, {}, env["s"])
            continue
        # atan2 / pow: NumPy's float32 transcendentals differ from torch's in the last ulp
        # (on the general path as well)
        exact = dtype != "float16" and "atan2" not in expr and "pow" not in expr
        assert_same(eval(expr, {}, env["s"]), rt, exact=exact)
    # a stretched size-1 dim and a non-suffix shape keep the iterator
    x, b = strided.ones(4, 3), strided.ones(4, 1)
    assert_same(x + b, torch.ones(4, 3) + torch.ones(4, 1))
    assert_same(x.t() + strided.ones(4), torch.ones(4, 3).t() + torch.ones(4))
