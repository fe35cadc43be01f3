"""Helpers for the differential tests that compare with a tolerance (products, solvers)
and build the same input in both libraries (``Arr``)."""

from __future__ import annotations

import numpy as np
import torch
from conftest import (
    _run,
    _strided_values,
    _torch_values,
    assert_same,
    assert_same_warnings,
    dtype_name,
)

import strided

RNG = np.random.default_rng(1234)

# (rtol, atol) per dtype: float32 products differ in the last bits between BLAS kernels;
# half types accumulate in float32 in both libraries and round once.
TOL = {"float16": (2e-3, 2e-3), "bfloat16": (1.6e-2, 1e-2), "float32": (2e-5, 2e-5),
       "float64": (1e-12, 1e-12), "complex64": (2e-5, 2e-5), "complex128": (1e-12, 1e-12)}


def values_of(t):
    """conftest's value readers (bfloat16 read as float32), torch's conjugate bit resolved."""
    if isinstance(t, torch.Tensor):
        return _torch_values(t.resolve_conj())
    return _strided_values(t)


def assert_close_result(rs, rt, tol=None, strides=True):
    """Like conftest's ``assert_same_result``, with dtype tolerances for tensors and named
    tuples compared by type name and fields (``strides=False``: all but the strides)."""
    if isinstance(rt, torch.Tensor):
        if strides:
            assert_same(rs, rt, values=False)
        else:
            assert isinstance(rs, strided.Tensor)
            assert tuple(rs.shape) == tuple(rt.shape), (rs.shape, rt.shape)
            assert dtype_name(rs.dtype) == dtype_name(rt.dtype), (rs.dtype, rt.dtype)
        if rt.device.type == "meta":
            return
        name = dtype_name(rt.dtype)
        rtol, atol = tol if tol is not None else TOL.get(name, (0, 0))
        a, e = values_of(rs), values_of(rt)
        if rtol == 0 and atol == 0:
            np.testing.assert_array_equal(a, e, strict=True)
        else:
            np.testing.assert_allclose(a, e, rtol=rtol, atol=atol, equal_nan=True)
    elif isinstance(rt, tuple) and type(rt).__module__ == "torch.return_types":
        assert type(rs).__name__ == type(rt).__name__, (type(rs), type(rt))
        assert type(rs).__module__ == "strided.return_types"
        assert isinstance(rs, tuple) and len(rs) == len(rt)
        for a, b in zip(rs, rt):
            assert_close_result(a, b, tol, strides)
    elif isinstance(rt, (list, tuple)):
        assert type(rs) is type(rt) and len(rs) == len(rt), (rs, rt)
        for a, b in zip(rs, rt):
            assert_close_result(a, b, tol, strides)
    else:
        assert rs == rt, (rs, rt)


def check(recipe, tol=None, warns=True, strides=True):
    """``recipe(strided)`` against ``recipe(torch)``: results within tolerance, or the same
    exception type and message."""
    rt, et, wt = _run(lambda: recipe(torch))
    rs, es, ws = _run(lambda: recipe(strided))
    if et is not None:
        assert es is not None, f"strided did not raise; torch raised {type(et).__name__}: {et}"
        # torch.linalg.LinAlgError and strided.linalg.LinAlgError: the same name and base
        assert type(es) is type(et) or (
            type(es).__name__ == type(et).__name__ and isinstance(es, RuntimeError)
            and isinstance(et, RuntimeError)), (type(es), es, type(et), et)
        assert str(es) == str(et), f"message differs:\nstrided: {es}\ntorch:   {et}"
        return None, None
    if es is not None:
        raise AssertionError(f"strided raised {type(es).__name__}: {es}") from es
    assert_close_result(rs, rt, tol, strides)
    if warns:
        assert_same_warnings(ws, wt)
    return rs, rt


def data(shape, dtype="float32"):
    """Deterministic values as a NumPy array of the dtype's family."""
    if dtype in ("complex64", "complex128"):
        return RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)
    if dtype == "bool":
        return RNG.integers(0, 2, shape).astype(bool)
    if dtype in ("uint8", "uint16", "uint32", "uint64"):
        return RNG.integers(0, 5, shape)
    if dtype.startswith("int"):
        return RNG.integers(-5, 6, shape)
    return RNG.standard_normal(shape)


class Arr:
    """A NumPy array that becomes the same tensor in either library (``arr.t(m)``)."""

    def __init__(self, shape, dtype="float32", layout="contiguous", device="cpu"):
        self.values = data(shape, dtype)
        self.dtype = dtype
        self.layout = layout
        self.device = device

    def t(self, m):
        t = m.from_numpy(np.array(self.values, copy=True)).to(getattr(m, self.dtype))
        if self.layout == "transposed" and t.dim() >= 2:
            t = t.mT.contiguous().mT
        elif self.layout == "strided" and t.dim() >= 1:
            big = m.zeros(tuple(2 * s for s in t.shape), dtype=t.dtype)
            view = big[tuple(slice(None, None, 2) for _ in t.shape)]
            view.copy_(t)
            t = view
        if self.device == "meta":
            t = t.to("meta")
        return t


def check_meta(recipe):
    """Meta tensors: shapes, strides and dtypes of what torch computes. (torch's meta
    functions word many errors differently from its CPU kernels; those are not compared.)"""
    rt, et, _ = _run(lambda: recipe(torch))
    if et is None:
        check(recipe)
