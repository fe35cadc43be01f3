"""The elementwise fast paths of issue 17 agree with torch: values (bit for bit, signed zeros
and NaNs included), dtypes, shapes, strides, version counters and errors, for the cases the
fast paths take (row-major operands of one shape, a Python number, a suffix broadcast, an
in-place update, relu against zeros, where) and the odd cases next to them that must fall
back to TensorIterator (non-contiguous, 0-dim, size-0, mixed dtypes, aliasing)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from conftest import assert_same, assert_same_result, check

import strided

_SPECIAL = np.array([0.0, -0.0, np.nan, -np.nan, np.inf, -np.inf, 1.5, -2.5, 3e38, -3e38,
                     1e-45, -1e-45], np.float64)


def _data(shape, dtype, seed=0):
    """Values of ``dtype`` (NumPy name or 'bfloat16'), with float specials mixed in."""
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    if dtype == "bool":
        return rng.random(n).reshape(shape) > 0.5
    if dtype.startswith(("int", "uint")):
        info = np.iinfo(dtype)
        return rng.integers(max(info.min, -100), min(info.max, 100), n).astype(dtype).reshape(
            shape)
    vals = rng.standard_normal(n) * 4
    # (no float32-range extremes in half types: torch's half ``add(alpha=)`` rounds
    # ``alpha * b`` in its scalar tail but not in its vector loop, so overflow there
    # depends on the length)
    special = _SPECIAL if dtype not in ("float16", "bfloat16") else _SPECIAL[:8]
    if n:
        k = min(n, len(special))
        vals[rng.permutation(n)[:k]] = special[:k]
    if dtype.startswith("complex"):   # (finite: NumPy's complex inf arithmetic is not C's)
        vals = np.nan_to_num(vals, nan=0.5, posinf=2.0, neginf=-2.0)
        vals = vals + 1j * rng.standard_normal(n)
    return vals.reshape(shape).astype("float32" if dtype == "bfloat16" else dtype)


def _both(arr, dtype):
    arr = np.asarray(arr)
    s, t = strided.from_numpy(arr.copy()), torch.from_numpy(arr.copy())
    if dtype == "bfloat16":
        s, t = s.to(strided.bfloat16), t.to(torch.bfloat16)
    return s, t


def _same(fn, s_args, t_args, lib=False):
    """``check`` of ``fn`` on each library's operands (``lib``: ``fn`` takes the library
    first)."""
    if lib:
        return check(lambda L: fn(L, *(s_args if L is strided else t_args)))
    return check(lambda L: fn(*(s_args if L is strided else t_args)))


_DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int8", "uint8", "bool",
           "complex64"]
_BINARY = {
    "add": lambda L, a, b: L.add(a, b),
    "add alpha 2": lambda L, a, b: L.add(a, b, alpha=2),
    "add alpha True": lambda L, a, b: L.add(a, b, alpha=True),
    "add alpha 1.0": lambda L, a, b: L.add(a, b, alpha=1.0),
    "sub": lambda L, a, b: a - b,
    "mul": lambda L, a, b: a * b,
    "div": lambda L, a, b: a / b,
    "lt": lambda L, a, b: a < b,
    "eq": lambda L, a, b: a == b,
    "maximum": lambda L, a, b: L.maximum(a, b),
}


@pytest.mark.parametrize("shape", [(4, 4), (), (0, 3), (7,), (256, 256)], ids=str)
@pytest.mark.parametrize("dtype", _DTYPES)
def test_same_shape_binary(shape, dtype):
    a, b = _data(shape, dtype), _data(shape, dtype, seed=1)
    sa, ta = _both(a, dtype)
    sb, tb = _both(b, dtype)
    for name, fn in _BINARY.items():
        if name in ("div", "mul") and dtype == "complex64":
            continue   # (NumPy's complex products round differently from torch's loops)
        rs = _same(fn, (sa, sb), (ta, tb), lib=True)[0]
        if rs is not None:
            assert rs._version == 0


_SCALARS = [2.0, 0.1, -0.0, 1e39, -1e39, float("nan"), float("inf"), 3, -1, 300, 0, True,
            1 << 62]


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int64", "int8", "uint8",
                                   "bool"])
def test_python_number_operand(dtype):
    """Note [Python floats to the ufunc]: the number converts as torch's wrapped number."""
    sa, ta = _both(_data((4, 4), dtype), dtype)
    for value in _SCALARS:
        calls = [lambda a, v: a + v, lambda a, v: a - v,
                 lambda a, v: a < v, lambda a, v: a == v, lambda a, v: a.add(v, alpha=2),
                 lambda a, v: a.maximum(a * 0 + v)]
        calls += [lambda a, v: a / v, lambda a, v: a * v, lambda a, v: v * a]
        for fn in calls:
            _same(fn, (sa, value), (ta, value))


def test_python_number_range_errors():
    sa, ta = _both(_data((3,), "int64"), "int64")
    for value in (1 << 64, -(1 << 64)):
        _same(lambda a, v: a + v, (sa, value), (ta, value))
    sf, tf = _both(_data((3,), "float32"), "float32")
    check(lambda L: (sf if L is strided else tf) * (1 << 70))


def test_non_contiguous_and_expanded_operands():
    x = _data((6, 8), "float32")
    sx, tx = _both(x, "float32")
    for fn in (lambda a: a.t() + a.t(), lambda a: a.t() * 2.0, lambda a: a[:, ::2] + 1,
               lambda a: a[0, 0].expand(3, 4) * 3, lambda a: a.t().relu(),
               lambda a: a.t().neg(), lambda a: a[::2] < a[1::2], lambda a: a + a.t().t()):
        _same(fn, (sx,), (tx,))


# -- suffix broadcasts, tiled (Note [Tiling the broadcast operand]) ---------------------------

@pytest.mark.parametrize("big,small", [((256, 256), (256,)), ((1000, 300), (300,)),
                                       ((300, 7, 20), (7, 20)), ((20000, 2), (2,)),
                                       ((9, 4096), (4096,)), ((16, 16), (16,)),
                                       ((40000,), ())], ids=str)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "uint8"])
def test_suffix_broadcast(big, small, dtype):
    sa, ta = _both(_data(big, dtype), dtype)
    sb, tb = _both(_data(small, dtype, seed=3), dtype)
    calls = [lambda x, y: x * y, lambda x, y: y * x, lambda x, y: x - y, lambda x, y: y - x,
             lambda x, y: x < y, lambda x, y: torch_max(x, y)]
    if dtype.startswith("int"):   # (floats: torch fuses a + alpha * b in some loops only)
        calls.append(lambda x, y: x.add(y, alpha=3))
    for fn in calls:
        _same(fn, (sa, sb), (ta, tb))


def torch_max(x, y):
    return (strided if isinstance(x, strided.Tensor) else torch).maximum(x, y)


def test_suffix_broadcast_nan_and_signed_zero():
    a = _data((300, 300), "float32")
    bias = np.resize(_SPECIAL.astype(np.float32), 300)
    sa, ta = _both(a, "float32")
    sb, tb = _both(bias, "float32")
    for fn in (lambda x, y: x * y, lambda x, y: x + y, lambda x, y: torch_max(y, x)):
        _same(fn, (sa, sb), (ta, tb))


# -- relu (Note [relu against an array of zeros]) -------------------------------------------

@pytest.mark.parametrize("shape", [(), (0,), (1,), (3,), (4, 4), (17,), (64, 64), (65, 65),
                                   (256, 256), (65537,), (2, 70000), (1 << 18,),
                                   (2, 300000)], ids=str)
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16", "int32",
                                   "int8", "uint8"])
def test_relu(shape, dtype):
    x = _data(shape, dtype)
    sx, tx = _both(x, dtype)
    rs, _ = check(lambda L: (sx if L is strided else tx).relu())
    if shape and dtype.startswith("float"):
        # signed zeros and NaN signs survive, as in torch
        got = np.signbit(rs._array().astype(np.float32))
        assert (got == torch.signbit(tx.relu().float()).numpy()).all()
    check(lambda L: L.nn.functional.relu(sx if L is strided else tx))
    sy, ty = sx.clone(), tx.clone()
    check(lambda L: (sy if L is strided else ty).relu_())
    assert sy._version == ty._version


def test_relu_errors_and_autograd():
    sb, tb = _both(_data((4,), "bool"), "bool")
    check(lambda L: (sb if L is strided else tb).relu())
    sc, tc = _both(_data((4,), "complex64"), "complex64")
    check(lambda L: (sc if L is strided else tc).relu())
    sx, tx = _both(_data((4, 4), "float32"), "float32")
    sx.requires_grad_(), tx.requires_grad_()
    rs, rt = check(lambda L: (sx if L is strided else tx).relu())
    assert type(rs.grad_fn).__name__ == type(rt.grad_fn).__name__ == "ReluBackward0"


# -- in place -----------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int8", "bool", "float16"])
def test_inplace(dtype):
    a, b = _data((4, 4), dtype), _data((4, 4), dtype, seed=1)
    calls = [lambda x, y: x.add_(y), lambda x, y: x.add_(y, alpha=2), lambda x, y: x.mul_(y),
             lambda x, y: x.sub_(y), lambda x, y: x.add_(3), lambda x, y: x.mul_(0.5),
             lambda x, y: x.add_(x), lambda x, y: x.add_(y.t()), lambda x, y: x.abs_(),
             lambda x, y: x.lt_(y), lambda x, y: x.add_(y[0]), lambda x, y: x.add_(1 << 64),
             lambda x, y: x.add_(y, alpha=True), lambda x, y: x.neg_()]
    if dtype != "float16":   # (torch's half alpha * b rounds in its scalar tail only)
        calls.append(lambda x, y: x.add_(y, alpha=2.5))
    for fn in calls:
        sa, ta = _both(a, dtype)
        sb, tb = _both(b, dtype)
        rs, rt = _same(fn, (sa, sb), (ta, tb))
        assert_same_result(sa, ta)
        assert sa._version == ta._version
        if rs is not None:
            assert rs is sa


def test_inplace_aliasing_and_views():
    for fn in (lambda x: x[1:].add_(x[:-1]), lambda x: x[:2].mul_(x[2:4]),
               lambda x: x.view(2, 8).add_(x.view(2, 8)), lambda x: x.t().add_(1.0)):
        sx, tx = _both(_data((4, 4), "float32"), "float32")
        _same(fn, (sx,), (tx,))
        assert_same(sx, tx)
        assert sx._version == tx._version


def test_inplace_inference_and_grad_errors():
    sx, tx = _both(_data((4, 4), "float32"), "float32")
    with strided.inference_mode():
        si = strided.ones(4, 4)
    with torch.inference_mode():
        ti = torch.ones(4, 4)
    check(lambda L: (si if L is strided else ti).add_(sx if L is strided else tx))
    with strided.inference_mode(), torch.inference_mode():
        check(lambda L: (si if L is strided else ti).add_(sx if L is strided else tx))
        check(lambda L: (si if L is strided else ti).mul_(2.0))
    leaf_s, leaf_t = sx.clone().requires_grad_(), tx.clone().requires_grad_()
    check(lambda L: (leaf_s if L is strided else leaf_t).add_(1.0))


# -- where (Note [where as bit selection]) ------------------------------------------------

@pytest.mark.parametrize("shape", [(4, 4), (), (0,), (100,), (64, 128)], ids=str)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int16", "bool", "complex64",
                                   "bfloat16"])
def test_where(shape, dtype):
    m = _data(shape, "bool", seed=5)
    sm, tm = _both(m, "bool")
    sa, ta = _both(_data(shape, dtype), dtype)
    sb, tb = _both(_data(shape, dtype, seed=1), dtype)
    s0, t0 = _both(_data((), dtype, seed=2), dtype)
    for fn in (lambda L, c, a, b, z: L.where(c, a, b), lambda L, c, a, b, z: L.where(c, z, b),
               lambda L, c, a, b, z: L.where(c, a, z), lambda L, c, a, b, z: L.where(c, a.t() if
                                                                          a.dim() == 2 else a, b)):
        _same(fn, (sm, sa, sb, s0), (tm, ta, tb, t0), lib=True)


# -- explain still shows the iterator for broadcasts ----------------------------------------

def test_explain_sees_the_broadcast():
    ex = strided.explain("a = torch.ones(256, 256); b = torch.ones(256); c = a * b")
    text = str(ex)
    assert "TensorIterator" in text and "broadcast shape (256, 256)" in text


# -- Note [Ufuncs without floating-point flags] -------------------------------------------

_COMPARISONS = [lambda a, b: a < b, lambda a, b: a <= b, lambda a, b: a > b,
                lambda a, b: a >= b, lambda a, b: a == b, lambda a, b: a != b]


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int8", "uint8", "bool",
                                   "float16", "complex64"])
@pytest.mark.parametrize("shape", [(), (0,), (4, 4), (17,), (300,)], ids=str)
def test_flagless_under_raising_errstate(dtype, shape):
    """The comparisons and relu run their ufunc without the quiet error state: on NaNs and
    infinities under NumPy's raising error state they still agree with torch, silently."""
    a, b = _data(shape, dtype), _data(shape, dtype, seed=1)
    if shape and dtype.startswith("float"):
        b.reshape(-1)[: min(b.size, 4)] = np.nan      # (NaN against NaN and numbers)
    sa, ta = _both(a, dtype)
    sb, tb = _both(b, dtype)
    with np.errstate(all="raise"):
        for fn in _COMPARISONS:
            if dtype == "complex64" and fn not in _COMPARISONS[4:]:
                continue
            rs, _ = _same(fn, (sa, sb), (ta, tb))
            assert rs.dtype is strided.bool
            if dtype != "bool" and dtype != "complex64":
                _same(lambda x, fn=fn: fn(x, 1), (sa,), (ta,))
            if dtype.startswith("float"):
                _same(lambda x, fn=fn: fn(x, float("nan")), (sa,), (ta,))
                _same(lambda x, fn=fn: fn(x, 0.5), (sa,), (ta,))
        if dtype not in ("bool", "complex64"):
            rs, _ = _same(lambda x: x.relu(), (sa,), (ta,))
            if shape and dtype.startswith("float"):
                assert (np.signbit(rs._array()) == torch.signbit(ta.relu()).numpy()).all()
            sy, ty = sa.clone(), ta.clone()
            _same(lambda x: x.relu_(), (sy,), (ty,))
            assert sy._version == ty._version


def test_flagless_keeps_other_rows_quiet():
    """Rows that can raise a flag (exp overflow, add overflow, 0/0) keep the quiet error
    state on the fast path: no warning, no exception, torch's values."""
    x = np.array([100.0, -100.0, np.inf, np.nan, 3e38, 0.0], np.float32)
    sa, ta = _both(x, "float32")
    with np.errstate(all="raise"):
        _same(lambda a: a.exp(), (sa,), (ta,))
        _same(lambda a: a + a, (sa,), (ta,))
        _same(lambda a: a / a, (sa,), (ta,))
        _same(lambda a: a * 3e38, (sa,), (ta,))
        sy, ty = sa.clone(), ta.clone()
        _same(lambda a: a.exp_(), (sy,), (ty,))


def test_comparison_fast_path_layouts():
    """The comparisons' fast path against the iterator's cases next to it: strides,
    broadcasting, mixed dtypes, requires_grad, out=."""
    a, b = _data((4, 5), "float32"), _data((4, 5), "float32", seed=1)
    sa, ta = _both(a, "float32")
    sb, tb = _both(b, "float32")
    for fn in _COMPARISONS:
        _same(lambda x, y, fn=fn: fn(x.t(), y.t()), (sa, sb), (ta, tb))
        _same(lambda x, y, fn=fn: fn(x, y[0]), (sa, sb), (ta, tb))
        _same(lambda x, y, fn=fn: fn(x, y.double()), (sa, sb), (ta, tb))
        _same(lambda x, y, fn=fn: fn(x.requires_grad_(False), y), (sa, sb), (ta, tb))
    _same(lambda L, x, y: L.lt(x, y, out=L.empty(4, 5, dtype=L.float32)), (sa, sb), (ta, tb),
          lib=True)
    sg, tg = sa.clone().requires_grad_(), ta.clone().requires_grad_()
    rs, rt = _same(lambda x, y: x < y, (sg, sb), (tg, tb))
    assert not rs.requires_grad and rs.grad_fn is None
