"""The reductions' fast paths (issue 17) agree with torch: Note [The reduction fast path]
(sum / mean of float32 / float64 over every dim or one dim, max() / min() of all
elements) and the complex32 refusals the reduction kernels make themselves (Note
[complex32 refusals]): values within torch's float tolerances where the summation order
differs, dtypes, shapes, strides, NaN / inf propagation, warnings, errors, autograd nodes,
out=, inference mode and the cases that must take the general kernel."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from conftest import assert_same, check

import strided
from strided.core.dispatch_keys import DispatchKey
from strided.ops import dispatcher


def _arr(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(shape).astype(dtype)


def _both(a):
    return strided.from_numpy(a.copy()), torch.from_numpy(a.copy())


def _close(s, t):
    """Same dtype, shape, strides and storage size; values within torch's float tolerance
    (the summation order differs from torch's cascade)."""
    assert_same(s, t, values=False)
    assert s.untyped_storage().nbytes() == t.untyped_storage().nbytes()
    torch.testing.assert_close(torch.from_numpy(np.array(s.numpy())), t, equal_nan=True)


# -- sum / mean over every dim or one dim ----------------------------------------------------

_SHAPES = [(4, 4), (3,), (1,), (2, 3, 4), (256, 256), (64, 33), (5, 1, 7), (1100,)]
_REDUCE = {
    "sum()": lambda x: x.sum(),
    "sum(0)": lambda x: x.sum(0),
    "sum(-1)": lambda x: x.sum(-1),
    "sum(-1, keepdim)": lambda x: x.sum(-1, keepdim=True),
    "sum(dim=None, keepdim)": lambda x: x.sum(None, keepdim=True),
    "sum(())": lambda x: x.sum(()),
    "sum((1,))": lambda x: x.sum((1,)) if x.dim() > 1 else x.sum((0,)),
    "mean()": lambda x: x.mean(),
    "mean(-1, keepdim)": lambda x: x.mean(-1, keepdim=True),
    "mean(0)": lambda x: x.mean(0),
    "mean(None, keepdim)": lambda x: x.mean(None, keepdim=True),
    "torch.sum(x, 0)": lambda x: (strided if isinstance(x, strided.Tensor) else torch).sum(x, 0),
    "sum((0, -1))": lambda x: x.sum((0, -1) if x.dim() > 1 else (0,)),
    "sum((-1, 0), keepdim)": lambda x: x.sum((-1, 0) if x.dim() > 1 else (0,), keepdim=True),
    "mean((0, -1))": lambda x: x.mean((0, -1) if x.dim() > 1 else (-1,)),
    "mean(all dims listed)": lambda x: x.mean(tuple(range(x.dim()))),
    "sum([-1])": lambda x: x.sum([-1]),
}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", _SHAPES, ids=str)
def test_sum_mean_fast_path(shape, dtype):
    s, t = _both(_arr(shape, dtype))
    for fn in _REDUCE.values():
        _close(fn(s), fn(t))


@pytest.mark.parametrize("view", ["t", "step", "offset", "expand"])
def test_sum_mean_of_views(view):
    s, t = _both(_arr((40, 36), np.float32, 1))
    make = {"t": lambda x: x.t(), "step": lambda x: x[::3, 1::2],
            "offset": lambda x: x[5:, 3:], "expand": lambda x: x[:1].expand(40, 36)}[view]
    vs, vt = make(s), make(t)
    for fn in _REDUCE.values():
        _close(fn(vs), fn(vt))


def test_tiny_results_and_strides():
    # small inputs: the strides of keepdim results and the values bit for bit where the
    # order cannot differ (a row of < 8 elements is added left to right by both; a longer
    # one in NumPy's unrolled pairwise order, within 1e-6)
    a = np.arange(12, dtype=np.float32).reshape(3, 4) / 7
    for fn in (lambda x: x.sum(-1, keepdim=True), lambda x: x.sum(0, keepdim=True),
               lambda x: x.mean(1), lambda x: x.mean(0, keepdim=True), lambda x: x.sum(-2)):
        check(lambda lib, fn=fn: fn(lib.from_numpy(a.copy()) if lib is strided
                                    else torch.from_numpy(a.copy())))
    check(lambda lib: (lib.from_numpy(a.copy()) if lib is strided
                       else torch.from_numpy(a.copy())).sum(), exact=False)


def test_special_values_and_no_warning():
    nan, inf = float("nan"), float("inf")
    rows = [[1.0, nan, 2.0], [inf, 1.0, 2.0], [inf, -inf, 0.0], [3e38, 3e38, 0.0],
            [-3e38, -3e38, 1.0], [-0.0, -0.0, -0.0]]
    for dtype in ("float32", "float64"):
        for fn in (lambda x: x.sum(), lambda x: x.sum(1), lambda x: x.mean(-1, keepdim=True),
                   lambda x: x.mean(), lambda x: x.sum(0)):
            check(lambda lib, fn=fn, d=dtype: fn(lib.tensor(rows, dtype=getattr(lib, d))))
    big = [3e38] * 2000                            # through BLAS: overflow to inf, quietly
    check(lambda lib: lib.tensor(big).sum())
    check(lambda lib: lib.tensor([big, big]).mean(-1))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [2, 3, 7, 16, 1000, 1024, 4096, 4097, 8192, 12288, 65536, 4099,
                               (256, 256), (64, 33), (4, 4), (1, 1), (1,)])
def test_full_sums_through_dot(n, dtype):
    # Note [The reduction fast path]: sum() / mean() of a contiguous block through BLAS
    # dots (one, or the runs' product then a dot of its sums), within torch's tolerance
    # (normal data: sums of cancelling terms, compared with atol 1e-3 as the Note says)
    shape = n if isinstance(n, tuple) else (n,)
    s, t = _both(_arr(shape, dtype, 7))
    for fn in (lambda x: x.sum(), lambda x: x.mean(), lambda x: x.sum(None, keepdim=True),
               lambda x: x.mean(()), lambda x: x.t().sum() if x.dim() == 2 else x[::2].sum()):
        rs, rt = fn(s), fn(t)
        assert_same(rs, rt, values=False)
        torch.testing.assert_close(torch.from_numpy(np.array(rs.numpy())), rt, atol=1e-3,
                                   rtol=1.3e-6)
    u = np.random.default_rng(3).random(shape).astype(dtype)      # positive: torch's tolerance
    for fn in (lambda x: x.sum(), lambda x: x.mean()):
        _close(fn(strided.from_numpy(u.copy())), fn(torch.from_numpy(u.copy())))


def test_full_sums_through_dot_special():
    nan, inf = float("nan"), float("inf")
    for row in ([-0.0], [-0.0, -0.0], [-0.0] * 16, [nan, 1.0], [inf, -inf, 1.0], [inf, 1.0],
                [3e38, 3e38], [-3e38, -3e38, 1.0], [1.0, nan, inf] * 3000):
        for dtype in ("float32", "float64"):
            for fn in (lambda x: x.sum(), lambda x: x.mean()):
                with warnings.catch_warnings():
                    warnings.simplefilter("error")
                    s = fn(strided.tensor(row, dtype=getattr(strided, dtype)))
                t = fn(torch.tensor(row, dtype=getattr(torch, dtype)))
                assert_same(s, t)
                assert np.signbit(s.item()) == np.signbit(t.item())      # +0.0, as torch
    # ints, float16 and 0-dim inputs keep the general kernel
    check(lambda lib: lib.arange(10).sum())
    check(lambda lib: lib.ones(5, dtype=lib.float16).sum())
    check(lambda lib: lib.tensor(2.5).mean())
    check(lambda lib: lib.zeros(0).sum())
    check(lambda lib: lib.zeros(0).mean())


def test_large_sums_within_tolerance():
    for shape, fn in (((1 << 16,), lambda x: x.sum()), ((300, 1024), lambda x: x.sum(-1)),
                      ((300, 1024), lambda x: x.mean(-1, keepdim=True)),
                      ((50, 9000), lambda x: x.sum(1))):
        s, t = _both(np.abs(_arr(shape, np.float32, 3)))
        _close(fn(s), fn(t))


def test_general_path_cases():
    """What the fast path leaves to the general kernel still agrees with torch: other dtypes
    (int -> int64, bool, float16, complex), dtype=, several dims, 0-dim, empty inputs,
    out=, bad dims."""
    i = np.arange(-6, 6, dtype=np.int32).reshape(3, 4)
    check(lambda lib: lib.from_numpy(i.copy()).sum())
    check(lambda lib: lib.from_numpy(i.copy()).sum(-1, keepdim=True))
    check(lambda lib: lib.from_numpy(i.copy() > 0).sum(0))
    check(lambda lib: lib.from_numpy(i.copy()).mean())
    check(lambda lib: lib.from_numpy(i.copy()).float().sum(0, dtype=lib.float64))
    check(lambda lib: lib.from_numpy(i.copy()).half().sum(1), exact=False)
    check(lambda lib: lib.from_numpy(i.copy()).float().sum((0, 1), keepdim=True))
    check(lambda lib: (lib.from_numpy(i.copy()) * (1 + 2j)).sum(1))
    check(lambda lib: lib.tensor(2.5).sum())
    check(lambda lib: lib.tensor(2.5).mean(0))
    check(lambda lib: lib.tensor(2.5).sum(-1, keepdim=True))
    check(lambda lib: lib.zeros(0, 3).sum(0))
    check(lambda lib: lib.zeros(0, 3).sum())
    check(lambda lib: lib.zeros(0, 3).mean(0))
    check(lambda lib: lib.zeros(3, 0).mean(1, keepdim=True))
    check(lambda lib: lib.ones(2, 3).sum(2))
    check(lambda lib: lib.ones(2, 3).mean(-3))
    check(lambda lib: lib.ones(2, 3).sum((0, 0)))
    check(lambda lib: lib.ones(2, 3).sum((1, -1)))
    check(lambda lib: lib.ones(2, 3).mean((0, 2)))
    check(lambda lib: lib.ones(2, 3).sum((0, -3)))
    check(lambda lib: lib.ones(2, 3).mean(1.5))
    check(lambda lib: lib.sum(lib.ones(2, 3), 1, out=lib.empty(7)))
    check(lambda lib: lib.mean(lib.ones(2, 3), 1, out=lib.empty(2, dtype=lib.float64)))
    check(lambda lib: lib.sum(lib.ones(2, 3), 1, out=lib.empty(2, dtype=lib.int64)))
    m = strided.empty(5, 7, device="meta").mean(-1, keepdim=True)
    assert m.device.type == "meta" and tuple(m.shape) == (5, 1)


def test_fresh_result_autograd_and_modes():
    a = _arr((6, 5), np.float32, 4)
    for fn, node in ((lambda x: x.sum(), "SumBackward0"), (lambda x: x.sum(1), "SumBackward1"),
                     (lambda x: x.mean(), "MeanBackward0"),
                     (lambda x: x.mean(-1, keepdim=True), "MeanBackward1"),
                     (lambda x: x.max(), "MaxBackward1")):
        s = strided.from_numpy(a.copy()).requires_grad_()
        t = torch.from_numpy(a.copy()).requires_grad_()
        rs, rt = fn(s), fn(t)
        assert type(rs.grad_fn).__name__ == type(rt.grad_fn).__name__ == node
        _close(rs.detach(), rt.detach())
        rs.sum().backward()
        rt.sum().backward()
        _close(s.grad, t.grad)
    # a fresh tensor: its own storage, version 0; inference mode marks it
    x = strided.from_numpy(a.copy())
    for fn in (lambda x: x.sum(), lambda x: x.mean(0, keepdim=True), lambda x: x.max()):
        assert fn(x).untyped_storage().nbytes() == fn(torch.from_numpy(a)).untyped_storage(
        ).nbytes()
    r = x.sum(0)
    assert r.untyped_storage().data_ptr() != x.untyped_storage().data_ptr()
    assert r._version == 0 and not r.requires_grad
    with strided.inference_mode():
        assert x.mean(-1).is_inference() and x.max().is_inference()
    assert not x.sum().is_inference()


# -- max() / min() of all elements ----------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16", "int64",
                                   "int8", "uint8", "bool"])
def test_max_min_all(dtype):
    vals = [[3, -1, 7, 2], [0, 5, -4, 1]]
    for fn in (lambda x: x.max(), lambda x: x.min(), lambda x: x.t().max(),
               lambda x: x[:, ::2].min(), lambda x: x[1, 2].max()):
        check(lambda lib, fn=fn: fn(lib.tensor(vals).to(getattr(lib, dtype))))


def test_max_min_all_nan_and_errors():
    nan, inf = float("nan"), float("inf")
    for vals in ([1.0, nan, 3.0], [nan, -inf, inf], [-inf, -inf], [2.0, inf]):
        check(lambda lib, v=vals: lib.tensor(v).max())
        check(lambda lib, v=vals: lib.tensor(v).min())
    check(lambda lib: lib.zeros(0).max())
    check(lambda lib: lib.zeros(2, 0).min())
    check(lambda lib: lib.zeros(2, dtype=lib.complex64).max())
    check(lambda lib: lib.zeros(0, dtype=lib.complex64).max())
    check(lambda lib: lib.max(lib.tensor([1.0, 5.0]), out=lib.empty(3)))
    m = strided.empty(3, 4, device="meta").max()
    assert m.device.type == "meta" and tuple(m.shape) == ()


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32", "int16", "uint8",
                                   "int8", "bool"])
@pytest.mark.parametrize("n", [1, 2, 16, 255, 256, 257, 4096, 4097, 70000])
def test_max_min_all_through_argmax(dtype, n):
    # Note [max() through argmax]: small blocks (any layout up to 256, contiguous up to
    # 4096) through argmax / argmin, the rest through the reduce: same values and dtypes
    rng = np.random.default_rng(n)
    vals = rng.integers(1, 100, n)
    vals[n // 3] = 120                 # a unique extreme somewhere inside
    vals[(2 * n) // 3] = 1 if n > 2 else vals[(2 * n) // 3]
    np_dtype = {"bool": np.bool_}.get(dtype, getattr(np, dtype, None))
    base = vals.astype(np_dtype)
    for view in (lambda x: x, lambda x: x[::2], lambda x: x.flip(0) if x.dim() else x):
        for fn in (lambda x: x.max(), lambda x: x.min()):
            check(lambda lib, v=view, f=fn: f(v(lib.from_numpy(base.copy()))))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_max_min_all_through_argmax_special(dtype):
    nan, inf = float("nan"), float("inf")
    rows = [[0.0, -0.0, -1.0], [-0.0, 0.0, -2.0], [-0.0, -0.0], [0.0], [-0.0], [nan],
            [-inf, nan, inf, nan], [1.0, 2.0, nan], [-inf, -inf], [inf, 3.0], [2.0, 2.0, 1.0],
            [-5.0, -0.0, -3.0], [5.0, 0.0, 3.0], [1e-45, -1e-45], [3.4e38, -3.4e38]]
    for row in rows:
        for fn in (lambda x: x.max(), lambda x: x.min()):
            s = fn(strided.from_numpy(np.array(row, dtype)))
            t = fn(torch.from_numpy(np.array(row, dtype)))
            assert_same(s, t)
            if t.item() == 0.0 and row.count(0.0) == 1:      # (a NaN's sign is no value)
                assert np.signbit(s.item()) == np.signbit(t.item())
    # a 2-D block, non-contiguous and 0-dim inputs; ints at their type's limits
    x = np.array([[1.0, nan], [nan, 2.0]], dtype)
    check(lambda lib: (lib.from_numpy(x.copy()).t().max(), lib.from_numpy(x.copy()).min()))
    check(lambda lib: lib.tensor(-0.0, dtype=lib.float64).max())
    check(lambda lib: lib.tensor([2**63 - 1, -2**63, 0]).max())
    check(lambda lib: lib.tensor([2**63 - 1, -2**63, 0]).min())
    check(lambda lib: lib.tensor([0, 0, 0], dtype=lib.uint8).max())
    check(lambda lib: lib.tensor([False, False]).max())
    check(lambda lib: lib.tensor([True, False]).min())
    for name in ("uint16", "uint32", "uint64"):    # torch's kernels refuse them
        for fn in (lambda x: x.max(), lambda x: x.min(), lambda x: x.amax(),
                   lambda x: x.amin(0), lambda x: x[:0].max(), lambda x: x.argmax(),
                   lambda x: x.argmin(0), lambda x: tuple(x.max(0)),
                   lambda x: tuple(x.min(-1)), lambda x: tuple(x[0].max(0)),
                   lambda x: x[0].argmax(), lambda x: tuple(x[:0].max(0)),
                   lambda x: x[:0].argmax(0)):
            check(lambda lib, f=fn, d=name: f(lib.tensor([1, 2, 3], dtype=getattr(lib, d))))


# -- amax / amin ----------------------------------------------------------------------------

_EXTREMES = [lambda x: x.amax(), lambda x: x.amin(-1), lambda x: x.amax(-1, keepdim=True),
             lambda x: x.amin(0), lambda x: x.amax((0, -1)), lambda x: x.amin(dim=()),
             lambda x: x.amax(1, True), lambda x: x.t().amax(-1), lambda x: x[:, ::2].amin(-1)]


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32", "uint8", "bool",
                                   "float16"])
@pytest.mark.parametrize("shape", [(4, 4), (40, 9), (17, 64), (3, 2, 20)], ids=str)
def test_amax_amin(shape, dtype):
    a = np.random.default_rng(7).standard_normal(shape) * 50
    for fn in _EXTREMES:
        check(lambda lib, fn=fn: fn(lib.from_numpy(a.copy()).to(getattr(lib, dtype))))


def test_amax_amin_nan_inf_and_errors():
    nan, inf = float("nan"), float("inf")
    rows = [[1.0, nan, 3.0, 0.0] * 5, [-inf, -inf, -inf, -inf] * 5, [inf, 2.0, nan, -inf] * 5,
            [0.0, -0.0, 0.0, -0.0] * 5] * 5
    for fn in _EXTREMES:
        check(lambda lib, fn=fn: fn(lib.tensor(rows)))
    check(lambda lib: lib.ones(2, 3).amax(2))
    check(lambda lib: lib.ones(2, 3).amin((1, 1)))
    check(lambda lib: lib.zeros(0, 3).amax(0))
    check(lambda lib: lib.zeros(0, 3).amax(1))
    check(lambda lib: lib.zeros(2, 3, dtype=lib.complex64).amax(1))
    check(lambda lib: lib.tensor(3.0).amax(0))
    check(lambda lib: lib.amax(lib.ones(2, 3), 1, out=lib.empty(5)))
    s = strided.ones(3, 4, requires_grad=True)
    t = torch.ones(3, 4, requires_grad=True)
    assert type(s.amax(-1).grad_fn).__name__ == type(t.amax(-1).grad_fn).__name__


# -- argmax / argmin, max / min over a dim (values and indices) -------------------------------

# (torch.return_types are compared as plain tuples)
_ARGS = [lambda x: x.argmax(), lambda x: x.argmin(-1), lambda x: x.argmax(0, keepdim=True),
         lambda x: x.argmin(keepdim=True), lambda x: tuple(x.max(-1)),
         lambda x: tuple(x.min(0)), lambda x: tuple(x.max(1, keepdim=True)),
         lambda x: tuple(x.min(-1, True)), lambda x: tuple(x.t().max(-1)),
         lambda x: x[:, ::2].argmax(-1), lambda x: tuple(x.max(dim=0, keepdim=True))]


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int16", "uint8", "bool",
                                   "float16"])
@pytest.mark.parametrize("shape", [(4, 4), (7, 9), (3, 2, 5)], ids=str)
def test_arg_and_max_dim(shape, dtype):
    a = np.round(np.random.default_rng(8).standard_normal(shape) * 2)     # with ties
    for fn in _ARGS:
        check(lambda lib, fn=fn: fn(lib.from_numpy(a.copy()).to(getattr(lib, dtype))))


def test_arg_and_max_dim_nan_ties_errors_autograd():
    nan, inf = float("nan"), float("inf")
    rows = [[1.0, nan, 3.0, nan], [2.0, 2.0, -inf, 2.0], [inf, inf, 0.0, -0.0],
            [-0.0, 0.0, -0.0, 0.0]]
    for fn in _ARGS:
        check(lambda lib, fn=fn: fn(lib.tensor(rows)))
    check(lambda lib: lib.ones(2, 3).argmax(2))
    check(lambda lib: lib.ones(2, 3).max(-3))
    check(lambda lib: lib.zeros(0, 3).argmax())
    check(lambda lib: tuple(lib.zeros(0, 3).max(0)))
    check(lambda lib: tuple(lib.zeros(0, 3).max(1)))
    check(lambda lib: lib.zeros(0, 3).argmax(1))
    check(lambda lib: lib.zeros(2, 3, dtype=lib.complex64).max(1))
    check(lambda lib: lib.zeros(2, 3, dtype=lib.bool).argmax(1))
    check(lambda lib: tuple(lib.tensor(3.0).max(0)))
    check(lambda lib: lib.tensor(3.0).argmax(-1, keepdim=True))
    check(lambda lib: tuple(lib.max(lib.ones(2, 3), 1, out=(lib.empty(2), lib.empty(2).long()))))
    a = _arr((5, 6), np.float32, 9)
    s = strided.from_numpy(a.copy()).requires_grad_()
    t = torch.from_numpy(a.copy()).requires_grad_()
    (vs, is_), (vt, it) = s.max(-1), t.max(-1)
    assert type(vs.grad_fn).__name__ == type(vt.grad_fn).__name__ == "MaxBackward0"
    assert not is_.requires_grad and not it.requires_grad
    vs.sum().backward()
    vt.sum().backward()
    _close(s.grad, t.grad)


# -- var / std ------------------------------------------------------------------------------

_VARS = [lambda x: x.var(), lambda x: x.std(-1), lambda x: x.var(0, keepdim=True),
         lambda x: x.std(unbiased=False), lambda x: x.var(-1, correction=0),
         lambda x: x.std((0, -1), correction=2, keepdim=True), lambda x: x.var(1, correction=0.5),
         lambda x: x.t().std(-1), lambda x: x[:, ::2].var(0)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(4, 4), (9, 30), (64, 33)], ids=str)
def test_var_std(shape, dtype):
    s, t = _both(_arr(shape, dtype, 10) * 3 + 1)
    for fn in _VARS:
        _close(fn(s), fn(t))


def test_var_std_special_and_general_cases():
    nan, inf = float("nan"), float("inf")
    rows = [[1.0, nan, 3.0], [inf, 1.0, 2.0], [inf, -inf, 0.0], [2.0, 2.0, 2.0]]
    for fn in (lambda x: x.var(-1), lambda x: x.std(0), lambda x: x.var()):
        check(lambda lib, fn=fn: fn(lib.tensor(rows)), exact=False)
    # the warning (no degrees of freedom left), other dtypes, out=, 0-dim, empty: general
    check(lambda lib: lib.ones(2, 3).var(0, correction=2))
    check(lambda lib: lib.ones(1, 3).std(0))
    check(lambda lib: lib.ones(2, 3).half().var(1), exact=False)
    check(lambda lib: (lib.ones(2, 3) * (1 + 1j)).var(1), exact=False)
    check(lambda lib: lib.ones(2, 3, dtype=lib.int64).var(1))
    check(lambda lib: lib.tensor(2.0).var())
    for fn in (lambda x: x.std(1), lambda x: x.std(0), lambda x: x.var(),
               lambda x: x.t().var(1, correction=0)):     # an empty input warns too
        check(lambda lib, fn=fn: fn(lib.zeros(0, 3)))
    check(lambda lib: lib.var(lib.ones(2, 3), 1, out=lib.empty(4)))
    check(lambda lib: lib.ones(2, 3).std(3))
    for fn, node in ((lambda x: x.var(-1), "VarBackward0"), (lambda x: x.std(), "StdBackward0")):
        s = strided.from_numpy(_arr((3, 4), np.float64, 11)).requires_grad_()
        t = torch.from_numpy(_arr((3, 4), np.float64, 11)).requires_grad_()
        rs, rt = fn(s), fn(t)
        assert type(rs.grad_fn).__name__ == type(rt.grad_fn).__name__ == node
        rs.sum().backward()
        rt.sum().backward()
        _close(s.grad, t.grad)


# -- any / all ------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["bool", "float32", "float64", "int64", "int8", "uint8",
                                   "float16", "complex64"])
def test_any_all(dtype):
    a = np.random.default_rng(14).integers(-1, 2, (6, 5)) * (np.arange(6)[:, None] > 1)
    for fn in (lambda x: x.any(), lambda x: x.all(), lambda x: x.any(-1),
               lambda x: x.all(0, keepdim=True), lambda x: x.any((0, 1)), lambda x: x.all(()),
               lambda x: x.t().any(1), lambda x: x[:, ::2].all(-1), lambda x: x.any(dim=None),
               lambda x: x[2:].all(1)):
        check(lambda lib, fn=fn: fn(lib.from_numpy(a.copy()).to(getattr(lib, dtype))))


def test_any_all_special_and_general_cases():
    nan = float("nan")
    check(lambda lib: lib.tensor([0.0, nan]).all())
    check(lambda lib: lib.tensor([[0.0, nan], [0.0, -0.0]]).any(1))
    check(lambda lib: lib.zeros(0, 3).any(1))
    check(lambda lib: lib.zeros(0, 3).all())
    check(lambda lib: lib.tensor(0.5).any())
    check(lambda lib: lib.ones(2, 3).all(2))
    check(lambda lib: lib.any(lib.ones(2, 3), 1, out=lib.empty(4, dtype=lib.bool)))


# -- the 2-norm ---------------------------------------------------------------------------------

def _norms(lib):
    return [lambda x: x.norm(), lambda x: lib.linalg.vector_norm(x, dim=-1),
            lambda x: x.norm(dim=0, keepdim=True), lambda x: lib.norm(x, p=2, dim=(0, 1)),
            lambda x: lib.linalg.vector_norm(x.t(), 2, -1, True),
            lambda x: lib.linalg.norm(x[:, ::2], dim=1)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(4, 4), (9, 30), (256, 256), (40, 1100)], ids=str)
def test_two_norm(shape, dtype):
    s, t = _both(_arr(shape, dtype, 12))
    for fs, ft in zip(_norms(strided), _norms(torch)):
        _close(fs(s), ft(t))


def test_two_norm_special_and_general_cases():
    nan, inf = float("nan"), float("inf")
    for rows in ([[1.0, nan], [3.0, 4.0]], [[-inf, 1.0], [2e30, 2e30]], [[0.0, -0.0], [0, 0]]):
        for fn in (lambda x: x.norm(), lambda x: x.norm(dim=1), lambda x: x.norm(dim=0)):
            check(lambda lib, fn=fn, r=rows: fn(lib.tensor(r)), exact=False)
    check(lambda lib: lib.zeros(0, 3).norm(dim=1))
    check(lambda lib: lib.tensor(-3.0).norm())
    check(lambda lib: lib.ones(2, 3).norm(dim=2))
    check(lambda lib: lib.ones(2, 3).half().norm(dim=1), exact=False)
    check(lambda lib: lib.ones(2, 3, dtype=lib.int64).norm())
    check(lambda lib: lib.linalg.vector_norm(lib.ones(2, 3), dtype=lib.float64))
    check(lambda lib: lib.linalg.vector_norm(lib.ones(2, 3), 2, 1, out=lib.empty(5)))
    s = strided.from_numpy(_arr((3, 4), np.float64, 13)).requires_grad_()
    t = torch.from_numpy(_arr((3, 4), np.float64, 13)).requires_grad_()
    rs, rt = s.norm(dim=-1), t.norm(dim=-1)
    assert type(rs.grad_fn).__name__ == type(rt.grad_fn).__name__
    rs.sum().backward()
    rt.sum().backward()
    _close(s.grad, t.grad)


# -- complex32: the kernels' own refusals (without the registration-time guard) -------------

_OPS = ("sum", "mean", "prod", "amax", "amin", "max", "min", "logsumexp", "cumsum",
        "cumsum_", "cumprod", "cumprod_")


@pytest.fixture
def unguarded():
    """The reduction kernels registered without the complex32 guard's wrapper, as they
    serve once the guard is gone (restored afterwards)."""
    saved = []
    for handle in [dispatcher.find_op(q) for q in dispatcher._ops]:
        name = handle.qualname.split("::", 1)[-1].split(".", 1)[0]
        stack = handle.kernels.get(DispatchKey.CPU)
        if name not in _OPS or not stack:
            continue
        saved.append((handle, DispatchKey.CPU, list(stack)))
        stack[:] = [getattr(fn, "__wrapped__", fn) for fn in stack]
        assert all(fn.__module__ == "strided.kernels.reduction" for fn in stack), stack
        handle._rebuild()
    assert len(saved) >= 20
    yield
    for handle, key, stack in saved:
        handle.kernels[key] = stack
        handle._rebuild()


def _c32(lib, *shape):
    x = lib.arange(1.0, 1.0 + 2 * int(np.prod(shape))).reshape(*shape, 2) / 4
    return lib.view_as_complex(x).to(lib.complex32)


_C32_CALLS = {
    "sum": lambda lib, c, e, f: c.sum(),
    "sum dim": lambda lib, c, e, f: c.sum(0),
    "sum 0-dim": lambda lib, c, e, f: c[0, 0].sum(),
    "sum empty": lambda lib, c, e, f: e.sum(),
    "sum empty dim keepdim": lambda lib, c, e, f: e.sum(0, keepdim=True),
    "sum dtype c32": lambda lib, c, e, f: f.sum(dtype=lib.complex32),
    "sum empty dtype c32": lambda lib, c, e, f: f[:0].sum(dtype=lib.complex32),
    "sum dtype c64": lambda lib, c, e, f: c.sum(0, dtype=lib.complex64),
    "sum out c64": lambda lib, c, e, f: lib.sum(c, 0, out=lib.empty(3, dtype=lib.complex64)),
    "sum out c32": lambda lib, c, e, f: lib.sum(f, 0, out=lib.empty(3, dtype=lib.complex32)),
    "sum empty out c32": lambda lib, c, e, f: lib.sum(e, 0,
                                                      out=lib.empty(3, dtype=lib.complex32)),
    "nansum": lambda lib, c, e, f: c.nansum(),
    "mean": lambda lib, c, e, f: c.mean(),
    "mean dim": lambda lib, c, e, f: c.mean(-1, keepdim=True),
    "mean empty": lambda lib, c, e, f: e.mean(0),
    "mean dtype c64": lambda lib, c, e, f: c.mean(dtype=lib.complex64),
    "mean out c64": lambda lib, c, e, f: lib.mean(c, 0, out=lib.empty(3, dtype=lib.complex64)),
    "mean f dtype c32": lambda lib, c, e, f: f.mean(dtype=lib.complex32),
    "prod": lambda lib, c, e, f: c.prod(),
    "prod dim": lambda lib, c, e, f: c.prod(1),
    "prod empty": lambda lib, c, e, f: e.prod(),
    "prod empty dim": lambda lib, c, e, f: e.prod(0),
    "prod dtype c64": lambda lib, c, e, f: c.prod(0, dtype=lib.complex64),
    "amax": lambda lib, c, e, f: c.amax(),
    "amin dim": lambda lib, c, e, f: c.amin(1),
    "amax empty": lambda lib, c, e, f: e.amax(1),
    "max": lambda lib, c, e, f: c.max(),
    "min": lambda lib, c, e, f: c.min(),
    "max empty": lambda lib, c, e, f: e.max(),
    "logsumexp": lambda lib, c, e, f: c.logsumexp(0),
    "logsumexp empty": lambda lib, c, e, f: e.logsumexp(1),
    "logsumexp out c32": lambda lib, c, e, f: lib.logsumexp(
        f, 0, out=lib.empty(3, dtype=lib.complex32)),
    "cumsum": lambda lib, c, e, f: c.cumsum(0),
    "cumsum empty": lambda lib, c, e, f: e.cumsum(1),
    "cumsum 0-dim": lambda lib, c, e, f: c[1, 1].cumsum(0),
    "cumsum dtype c32": lambda lib, c, e, f: f.cumsum(0, dtype=lib.complex32),
    "cumsum dtype c64": lambda lib, c, e, f: c.cumsum(1, dtype=lib.complex64),
    "cumsum_": lambda lib, c, e, f: c.clone().cumsum_(0),
    "cumprod": lambda lib, c, e, f: c.cumprod(1),
    "cumprod empty": lambda lib, c, e, f: e.cumprod(0),
    "cumprod dtype c64": lambda lib, c, e, f: c.cumprod(0, dtype=lib.complex64),
    "cumprod_": lambda lib, c, e, f: c.clone().cumprod_(1),
}


@pytest.mark.parametrize("call", list(_C32_CALLS), ids=str)
def test_complex32_refusals_in_kernel(unguarded, call):
    fn = _C32_CALLS[call]

    def recipe(lib):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)     # ComplexHalf is experimental
            c, e = _c32(lib, 2, 3), _c32(lib, 0, 3)
            f = lib.arange(6.0).reshape(2, 3) / 3
        return fn(lib, c, e, f)
    check(recipe, exact=False)


def test_complex32_on_meta_is_not_refused(unguarded):
    for fn in (lambda x: x.sum(0), lambda x: x.mean(), lambda x: x.prod(1),
               lambda x: x.logsumexp(0), lambda x: x.cumsum(0)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            rs = fn(strided.empty(2, 3, dtype=strided.complex32, device="meta"))
            rt = fn(torch.empty(2, 3, dtype=torch.complex32, device="meta"))
        assert_same(rs, rt)
