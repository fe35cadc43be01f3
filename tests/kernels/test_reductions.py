"""Reductions against torch: sum, nansum, mean, nanmean, prod, amax, amin, max / min (all
forms), argmax, argmin, any, all, count_nonzero, var / std (+ _mean, correction), logsumexp,
softmax / log_softmax, cumsum / cumprod, norm.

Each recipe runs with ``m = strided`` and ``m = torch``. Shapes, strides, dtypes and errors
must agree exactly; integer and bool values exactly; float values within a dtype-dependent
tolerance, because NumPy and torch add in different orders (Note [Accumulation types] in
kernels/reduction.py), so float sums can differ in the last bits.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from conftest import _strided_values, _torch_values, assert_same, check

import strided

RNG = np.random.default_rng(0)

_RTOL = {"float16": 2e-3, "bfloat16": 2e-2, "float32": 2e-5, "float64": 1e-12,
         "complex64": 2e-5, "complex128": 1e-12}


def T(m, arr, dtype=None):
    t = m.from_numpy(np.array(arr, copy=True))
    return t if dtype is None else t.to(getattr(m, dtype))


def _data(shape, dtype):
    if dtype == "bool":
        return RNG.random(shape) > 0.5
    if dtype in ("uint8", "int8", "int16", "int32", "int64"):
        return RNG.integers(0, 5, shape).astype(dtype)
    arr = RNG.standard_normal(shape)
    if dtype.startswith("complex"):
        arr = arr + 1j * RNG.standard_normal(shape)
    return arr


def compare(recipe):
    """Run both; compare results (tolerance for floats) or errors (exactly)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            rt = recipe(torch)
        except Exception:  # noqa: BLE001 - errors are compared by check()
            check(recipe, warns=False)
            return
        rs = recipe(strided)
    _compare_result(rs, rt)


def _compare_result(rs, rt):
    if isinstance(rt, tuple):
        assert type(rs).__name__ == type(rt).__name__, (type(rs), type(rt))
        assert len(rs) == len(rt)
        for a, b in zip(rs, rt):
            _compare_result(a, b)
        return
    assert_same(rs, rt, values=False)
    if rt.device.type == "meta":
        return
    name = str(rt.dtype).removeprefix("torch.")
    actual, expected = _strided_values(rs), _torch_values(rt)
    if name in _RTOL:
        np.testing.assert_allclose(actual, expected, rtol=_RTOL[name], atol=_RTOL[name],
                                   equal_nan=True)
    else:
        np.testing.assert_array_equal(actual, expected, strict=True)


# ------------------------------------------------------------------ table of recipes

DIM_CASES = [None, 0, 1, -1, (0, 1), (), (1, 0)]
SUM_LIKE = ["sum", "nansum", "prod", "mean", "nanmean"]
DTYPES = ["bool", "uint8", "int32", "int64", "float16", "bfloat16", "float32", "float64",
          "complex64"]


@pytest.mark.parametrize("op", SUM_LIKE)
@pytest.mark.parametrize("dtype", DTYPES)
def test_sum_like_full(op, dtype):
    arr = _data((3, 4), dtype)
    compare(lambda m: getattr(T(m, arr), op)())
    compare(lambda m: getattr(m, op)(T(m, arr)))


@pytest.mark.parametrize("op", SUM_LIKE)
@pytest.mark.parametrize("dim", DIM_CASES[1:])
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("dtype", ["int32", "float32", "float16"])
def test_sum_like_dims(op, dim, keepdim, dtype):
    arr = _data((3, 4, 2), dtype)
    if op == "prod" and not isinstance(dim, int):
        return   # prod takes one int dim
    compare(lambda m: getattr(T(m, arr), op)(dim, keepdim=keepdim))


@pytest.mark.parametrize("op", ["sum", "prod", "mean", "nansum", "cumsum", "cumprod"])
@pytest.mark.parametrize("dtype", ["float64", "int16", "float32", "complex64", "int32"])
def test_dtype_argument(op, dtype):
    arr = _data((3, 4), "int32")
    if op in ("cumsum", "cumprod"):
        compare(lambda m: getattr(T(m, arr), op)(1, dtype=getattr(m, dtype)))
    else:
        compare(lambda m: getattr(T(m, arr), op)(dtype=getattr(m, dtype)))


def test_nan_handling():
    arr = np.array([[1.0, np.nan, 3.0], [np.nan, np.nan, 2.0]])
    for op in ["sum", "nansum", "mean", "nanmean", "amax", "amin", "argmax", "argmin", "max",
               "min", "std", "var", "logsumexp"]:
        if op == "logsumexp":
            compare(lambda m, op=op: getattr(T(m, arr), op)(1))
            continue
        compare(lambda m, op=op: getattr(T(m, arr), op)())
        if op not in ("max", "min", "argmax", "argmin"):
            compare(lambda m, op=op: getattr(T(m, arr), op)(1))
    compare(lambda m: T(m, arr).max(1))
    compare(lambda m: T(m, arr).argmin(0))


@pytest.mark.parametrize("op", ["amax", "amin"])
@pytest.mark.parametrize("dtype", ["bool", "uint8", "int64", "float16", "bfloat16", "float64",
                                   "complex64"])
def test_amax_amin(op, dtype):
    arr = _data((3, 4, 2), dtype)
    for dim in [(), 0, -1, (0, 2)]:
        for keepdim in (False, True):
            compare(lambda m, d=dim, k=keepdim: getattr(T(m, arr), op)(d, k))


@pytest.mark.parametrize("op", ["max", "min", "argmax", "argmin"])
@pytest.mark.parametrize("dtype", ["bool", "int32", "float32", "bfloat16", "complex64"])
def test_max_min_arg(op, dtype):
    arr = _data((4, 5), dtype)
    compare(lambda m: getattr(T(m, arr), op)())
    for dim in (0, 1, -1):
        for keepdim in (False, True):
            compare(lambda m, d=dim, k=keepdim: getattr(T(m, arr), op)(d, k))
            compare(lambda m, d=dim, k=keepdim: getattr(m, op)(T(m, arr), dim=d, keepdim=k))


def test_max_ties_pick_first_and_named_tuple():
    arr = np.array([[1, 3, 3], [2, 2, 0]])
    compare(lambda m: T(m, arr).max(1))
    compare(lambda m: T(m, arr).min(dim=0, keepdim=True))
    r = strided.tensor([[1.0, 5.0], [7.0, 2.0]]).max(1)
    assert type(r).__name__ == "max" and r.values.tolist() == [5.0, 7.0]
    assert r.indices.tolist() == [1, 0]
    v, i = strided.tensor([[1.0, 5.0]]).min(dim=1)
    assert v.tolist() == [1.0] and i.tolist() == [0]
    compare(lambda m: T(m, arr).argmax(keepdim=True))


def test_max_other():
    a, b = _data((3, 1), "float32"), _data((1, 4), "int64")
    compare(lambda m: m.max(T(m, a), T(m, b)))
    compare(lambda m: T(m, a).min(T(m, b)))


@pytest.mark.parametrize("op", ["any", "all"])
@pytest.mark.parametrize("dtype", ["bool", "uint8", "int32", "float32"])
def test_any_all(op, dtype):
    arr = _data((3, 4), dtype)
    compare(lambda m: getattr(T(m, arr), op)())
    for dim in (0, -1, (0, 1), ()):
        compare(lambda m, d=dim: getattr(T(m, arr), op)(d))
        compare(lambda m, d=dim: getattr(T(m, arr), op)(d, keepdim=True))


def test_count_nonzero():
    arr = _data((3, 4), "int32")
    compare(lambda m: m.count_nonzero(T(m, arr)))
    compare(lambda m: T(m, arr).count_nonzero(1))
    compare(lambda m: T(m, arr).count_nonzero((0, 1)))


@pytest.mark.parametrize("op", ["var", "std", "var_mean", "std_mean"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "complex64", "int64"])
def test_var_std(op, dtype):
    arr = _data((4, 5), dtype)
    f = getattr(strided, op)
    g = getattr(torch, op)

    def fn(m):
        return f if m is strided else g
    compare(lambda m: fn(m)(T(m, arr)))
    compare(lambda m: fn(m)(T(m, arr), False))
    compare(lambda m: fn(m)(T(m, arr), 1))
    compare(lambda m: fn(m)(T(m, arr), (0, 1), keepdim=True))
    compare(lambda m: fn(m)(T(m, arr), 0, unbiased=False))
    for corr in (0, 2, 1.5):
        compare(lambda m, c=corr: fn(m)(T(m, arr), dim=1, correction=c))


def test_var_degrees_of_freedom():
    with pytest.warns(UserWarning, match="degrees of freedom is <= 0"):
        r = strided.tensor([1.0]).var()
    assert np.isnan(r.item())
    compare(lambda m: m.tensor([[1.0, 2.0]]).std(0))


def test_logsumexp():
    arr = _data((3, 4), "float32")
    for dim in (0, 1, (0, 1)):
        compare(lambda m, d=dim: T(m, arr).logsumexp(d))
        compare(lambda m, d=dim: m.logsumexp(T(m, arr), d, keepdim=True))
    compare(lambda m: T(m, np.array([[-np.inf, -np.inf], [np.inf, 1.0]])).logsumexp(1))
    compare(lambda m: T(m, np.arange(6).reshape(2, 3)).logsumexp(1))
    compare(lambda m: m.empty(0, 3).logsumexp(0))


@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16", "int64"])
def test_softmax(op, dtype):
    arr = _data((3, 4), dtype)
    for dim in (0, 1, -1):
        compare(lambda m, d=dim: getattr(T(m, arr), op)(d))
        compare(lambda m, d=dim: getattr(m, op)(T(m, arr).t(), d))
    compare(lambda m: getattr(T(m, arr), op)(1, dtype=m.float64))
    compare(lambda m: getattr(m.tensor(2.0), op)(0))
    compare(lambda m: getattr(T(m, [[1.0, np.inf]]), op)(0))


@pytest.mark.parametrize("op", ["cumsum", "cumprod"])
@pytest.mark.parametrize("dtype", ["bool", "int8", "int64", "float16", "float32"])
def test_cumulative(op, dtype):
    arr = _data((3, 4), dtype)
    for dim in (0, 1, -1):
        compare(lambda m, d=dim: getattr(T(m, arr), op)(d))
        compare(lambda m, d=dim: getattr(T(m, arr).t(), op)(d))
    compare(lambda m: getattr(m.tensor(3), op)(0))


def test_cumsum_inplace():
    arr = _data((3, 4), "float32")
    compare(lambda m: T(m, arr).cumsum_(1))
    compare(lambda m: T(m, arr).cumprod_(0))


@pytest.mark.parametrize("p", [2, 1, 3, 0, float("inf"), float("-inf"), 0.5])
def test_norm(p):
    arr = _data((3, 4), "float32")
    compare(lambda m: T(m, arr).norm(p))
    compare(lambda m: T(m, arr).norm(p, 1))
    compare(lambda m: T(m, arr).norm(p, (0, 1), keepdim=True))
    compare(lambda m: T(m, arr, "complex64").norm(p))


# ------------------------------------------------------------------ layouts, empties, 0-dim

@pytest.mark.parametrize("op", ["sum", "mean", "prod", "amax", "amin", "std", "any", "argmax",
                                "logsumexp", "softmax", "cumsum", "max"])
def test_non_contiguous(op):
    arr = _data((4, 6, 5), "float64")

    def view(m):
        return T(m, arr).permute(2, 0, 1)[:, ::2, 1:]
    for dim in (0, 1, 2):
        compare(lambda m, d=dim: getattr(view(m), op)(d))


@pytest.mark.parametrize("op", ["sum", "prod", "mean", "amax", "amin", "max", "min", "argmax",
                                "argmin", "any", "all", "std", "var", "nansum", "nanmean",
                                "count_nonzero"])
def test_empty(op):
    for shape in [(0,), (0, 3), (2, 0)]:
        compare(lambda m, s=shape: getattr(m.empty(s), op)())
        for dim in range(len(shape)):
            compare(lambda m, s=shape, d=dim: getattr(m.empty(s), op)(d))


@pytest.mark.parametrize("op", ["sum", "prod", "mean", "amax", "amin", "max", "min", "argmax",
                                "argmin", "any", "all", "std", "var", "logsumexp", "cumsum",
                                "softmax", "count_nonzero"])
def test_zero_dim(op):
    def make(m):
        return m.tensor(2.5)
    if op not in ("logsumexp", "cumsum", "softmax"):
        compare(lambda m: getattr(make(m), op)())
    for dim in (0, -1, 1):
        compare(lambda m, d=dim: getattr(make(m), op)(d))
        if op not in ("cumsum", "softmax", "count_nonzero"):
            compare(lambda m, d=dim: getattr(make(m), op)(d, keepdim=True))


@pytest.mark.parametrize("op", ["sum", "mean", "prod", "amax", "std", "any", "argmax", "max",
                                "logsumexp", "softmax", "cumsum", "var_mean"])
def test_meta(op):
    def make(m):
        return m.empty(3, 4, 5, device="meta")
    if op == "var_mean":
        compare(lambda m: m.var_mean(make(m), 1))
        return
    compare(lambda m: getattr(make(m), op)(1))
    if op not in ("logsumexp", "softmax", "cumsum"):
        compare(lambda m: getattr(make(m), op)())


# ------------------------------------------------------------------ errors and out=

def test_errors():
    a = np.arange(6.0).reshape(2, 3)
    check(lambda m: T(m, a).sum(5))
    check(lambda m: T(m, a).sum((0, 0)))
    check(lambda m: T(m, a).amax((1, -1)))
    check(lambda m: T(m, np.arange(3)).mean())
    check(lambda m: T(m, np.arange(3.0)).mean(dtype=m.int32))
    check(lambda m: T(m, np.arange(3)).std())
    check(lambda m: T(m, np.arange(3)).softmax(0))
    check(lambda m: T(m, np.arange(3.0), "complex64").nansum())
    check(lambda m: T(m, np.arange(3.0), "complex64").argmax())
    check(lambda m: T(m, np.arange(3)).nanmean())


def test_out():
    a = _data((3, 4), "float32")
    compare(lambda m: m.sum(T(m, a), 1, out=m.empty(0)))
    compare(lambda m: m.sum(T(m, a), 1, out=m.empty(0, dtype=m.float64)))
    check(lambda m: m.sum(T(m, a), 1, dtype=m.float64, out=m.empty(0)))
    check(lambda m: m.amax(T(m, a), 1, out=m.empty(0, dtype=m.int64)))
    check(lambda m: m.mean(T(m, a), 1, out=m.empty(0, dtype=m.int64)))
    compare(lambda m: m.max(T(m, a), 1, out=(m.empty(0), m.empty(0, dtype=m.int64))))
    check(lambda m: m.max(T(m, a), 1, out=(m.empty(0), m.empty(0))))
    compare(lambda m: m.argmax(T(m, a), 0, out=m.empty(0, dtype=m.int64)))
    compare(lambda m: m.cumsum(T(m, a), 0, out=m.empty(0)))
    compare(lambda m: m.std(T(m, a), 0, out=m.empty(0)))
    compare(lambda m: m.softmax(T(m, a), 0, out=m.empty(0)))
    compare(lambda m: m.any(T(m, a), 0, out=m.empty(0, dtype=m.bool)))
    compare(lambda m: m.logsumexp(T(m, a), 0, out=m.empty(0)))
    compare(lambda m: m.prod(T(m, a), 0, out=m.empty(0)))
    compare(lambda m: m.max(T(m, a), out=m.empty(0)))
