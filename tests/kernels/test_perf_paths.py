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
