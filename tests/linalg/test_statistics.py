# ruff: noqa: B023
"""Statistics and calculus ops (issue 14) against torch: cov, corrcoef, diff, gradient, the
trapezoid family, histogram and histogramdd: values, dtypes, shapes, float64 gradients,
grad_fn names, out= forms, meta shapes and torch's errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided
from tests.autograd.grad_harness import check_grads
from tests.conftest import check

RNG = np.random.default_rng(7)

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def _arr(shape, dtype="float64"):
    a = RNG.standard_normal(shape)
    if dtype.startswith("complex"):
        a = a + 1j * RNG.standard_normal(shape)
    return a.astype(dtype)


def close(recipe, *arrs, rtol=1e-12, atol=1e-12):
    """``recipe(m, *tensors)`` in both libraries: same structure, dtypes, shapes, strides,
    values within tolerance."""
    rt = recipe(torch, *[torch.from_numpy(a.copy()) for a in arrs])
    rs = recipe(strided, *[strided.from_numpy(a.copy()) for a in arrs])

    def cmp(a, b):
        if isinstance(b, torch.Tensor):
            assert isinstance(a, strided.Tensor)
            assert tuple(a.shape) == tuple(b.shape) and str(a.dtype) == str(b.dtype), (a, b)
            if b.numel() > 1:
                assert a.stride() == b.stride(), (a.stride(), b.stride())
            np.testing.assert_allclose(a.numpy(), b.resolve_conj().numpy(), rtol=rtol,
                                       atol=atol)
        else:
            assert type(a).__name__ == type(b).__name__ and len(a) == len(b), (a, b)
            for x, y in zip(a, b):
                cmp(x, y)
    cmp(rs, rt)


def grads(program, *arrs):
    check_grads(program, None, values=list(arrs))


def grad_fn(recipe, *arrs):
    rt = recipe(torch, *[torch.from_numpy(a.copy()).requires_grad_() for a in arrs])
    rs = recipe(strided, *[strided.from_numpy(a.copy()).requires_grad_() for a in arrs])
    rt = rt if isinstance(rt, (tuple, list)) else [rt]
    rs = rs if isinstance(rs, (tuple, list)) else [rs]
    assert [r.grad_fn.name() for r in rs] == [r.grad_fn.name() for r in rt]


# -- cov, corrcoef ---------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128"])
def test_cov_corrcoef(dtype):
    x = _arr((3, 5), dtype)
    tol = 1e-5 if dtype == "float32" else 1e-12
    close(lambda m, a: m.cov(a), x, rtol=tol, atol=tol)
    close(lambda m, a: a.cov(correction=0), x, rtol=tol, atol=tol)
    close(lambda m, a: m.cov(a[0]), x, rtol=tol, atol=tol)
    close(lambda m, a: m.corrcoef(a), x, rtol=tol, atol=tol)
    close(lambda m, a: a[0].corrcoef(), x, rtol=tol, atol=tol)
    fw = np.array([1, 2, 0, 3, 1])
    aw = np.abs(_arr(5, "float32" if dtype == "float32" else "float64"))
    close(lambda m, a, f, w: m.cov(a, fweights=f, aweights=w), x, fw, aw, rtol=tol, atol=tol)
    close(lambda m, a, f, w: m.cov(a, correction=2, fweights=f), x, fw, aw, rtol=tol, atol=tol)
    close(lambda m, a, f, w: m.cov(a, correction=0, aweights=w), x, fw, aw, rtol=tol, atol=tol)


def test_cov_ints_and_errors():
    check(lambda m: m.cov(m.arange(6).view(2, 3)))
    check(lambda m: m.corrcoef(m.arange(6).view(2, 3)))
    check(lambda m: m.cov(m.ones(2, 2, 2)))
    check(lambda m: m.corrcoef(m.ones(2, 2, 2)))
    check(lambda m: m.cov(m.ones(2, 3, dtype=m.bool)))
    check(lambda m: m.cov(m.ones(2, 3), fweights=m.ones(3)))
    check(lambda m: m.cov(m.ones(2, 3), fweights=m.ones(2, dtype=m.int64)))
    check(lambda m: m.cov(m.ones(2, 3), fweights=m.tensor([1, -1, 1])))
    check(lambda m: m.cov(m.ones(2, 3), aweights=m.ones(3, dtype=m.int64)))
    check(lambda m: m.cov(m.ones(2, 3), aweights=m.tensor([1.0, -1.0, 1.0])))
    check(lambda m: m.cov(m.ones(2, 3), aweights=m.zeros(3)))
    check(lambda m: m.cov(m.ones(2, 1)))             # degrees of freedom <= 0: warns, inf/nan
    check(lambda m: m.corrcoef(m.tensor([1.0, 2.0, 4.0])))


def test_cov_grads():
    x = _arr((3, 5))
    grads(lambda m, a: m.cov(a), x)
    grads(lambda m, a: m.corrcoef(a), x)
    grads(lambda m, a, w: m.cov(a, aweights=w.abs()), x, _arr(5))
    grad_fn(lambda m, a: m.cov(a), x)
    grad_fn(lambda m, a: m.corrcoef(a), x)
    grad_fn(lambda m, a: m.corrcoef(a[0]), x)


# -- diff ----------------------------------------------------------------------------------------

def test_diff():
    x = _arr((3, 5))
    for n in (0, 1, 2, 7):
        close(lambda m, a: m.diff(a, n), x)
        close(lambda m, a: a.diff(n, dim=0), x)
        close(lambda m, a: m.diff(a, n, 1, prepend=a[:, :2], append=a[:, 1:]), x)
    close(lambda m, a: m.diff(a > 0), x)
    close(lambda m, a: m.diff((a * 10).int(), 2), x)
    close(lambda m, a: m.diff(a, 2, out=m.empty(0, dtype=a.dtype)), x)
    close(lambda m, a: m.diff(a, 0, out=m.empty(0, dtype=a.dtype)), x)
    grads(lambda m, a, p: m.diff(a, 2, 0, prepend=p), x, _arr((1, 5)))
    grad_fn(lambda m, a: m.diff(a), x)
    grad_fn(lambda m, a: m.diff(a, 0), x)
    check(lambda m: m.diff(m.tensor(1.0)))
    check(lambda m: m.diff(m.ones(3), -1))
    check(lambda m: m.diff(m.ones(3, 2), prepend=m.ones(3)))
    check(lambda m: m.diff(m.ones(3, 2), dim=0, append=m.ones(3, 3)))


# -- gradient ------------------------------------------------------------------------------------

def test_gradient():
    x = _arr((4, 5))
    c0, c1 = np.cumsum(np.abs(_arr(4))) , np.cumsum(np.abs(_arr(5)))
    for eo in (1, 2):
        close(lambda m, a: m.gradient(a, edge_order=eo), x)
        close(lambda m, a: m.gradient(a, spacing=2.5, edge_order=eo), x)
        close(lambda m, a: m.gradient(a, spacing=[2.0, 0.5], edge_order=eo), x)
        close(lambda m, a: m.gradient(a, dim=1, edge_order=eo), x)
        close(lambda m, a: m.gradient(a, dim=[1, 0], edge_order=eo), x)
        close(lambda m, a: m.gradient(a, spacing=3.0, dim=[0], edge_order=eo), x)
        close(lambda m, a, p, q: m.gradient(a, spacing=(p, q), edge_order=eo), x, c0, c1)
        close(lambda m, a, p, q: m.gradient(a, spacing=[q], dim=1, edge_order=eo), x, c0, c1)
        close(lambda m, a, p, q: m.gradient(a, spacing=[q, p], dim=[1, 0], edge_order=eo), x,
              c0, c1)
    close(lambda m, a: m.gradient((a * 10).long()), x)
    grads(lambda m, a: m.gradient(a, edge_order=2), x)
    grads(lambda m, a, p: m.gradient(a, spacing=(p.detach().abs().cumsum(0),), dim=1), x,
          _arr(5))
    grad_fn(lambda m, a: m.gradient(a), x)


def test_gradient_errors():
    check(lambda m: m.gradient(m.ones(3, dtype=m.uint8)))
    check(lambda m: m.gradient(m.ones(3, 4), spacing=[1.0]))
    check(lambda m: m.gradient(m.ones(3, 4), spacing=[1.0, 2.0], dim=[0]))
    check(lambda m: m.gradient(m.ones(3, 4), edge_order=3))
    check(lambda m: m.gradient(m.ones(2, 4), edge_order=2))
    check(lambda m: m.gradient(m.ones(3, 4), dim=[0, 0]))
    check(lambda m: m.gradient(m.ones(3, 4), spacing=(m.ones(3, 1),), dim=0))


# -- trapezoid family ----------------------------------------------------------------------------

def test_trapezoid_family():
    y, x = _arr((3, 5)), np.cumsum(np.abs(_arr(5)))
    x2 = np.cumsum(np.abs(_arr((3, 5))), 1)
    for fn in ("trapezoid", "trapz", "cumulative_trapezoid"):
        close(lambda m, a: getattr(m, fn)(a), y)
        close(lambda m, a: getattr(m, fn)(a, dx=0.5), y)
        close(lambda m, a: getattr(m, fn)(a, dim=0), y)
        close(lambda m, a, b: getattr(m, fn)(a, b), y, x)
        close(lambda m, a, b: getattr(m, fn)(a, b), y, x2)
        close(lambda m, a, b: getattr(m, fn)(a.T, b, dim=0), y, x)
        close(lambda m, a: getattr(m, fn)((a * 10).int()), y)
        grads(lambda m, a, b: getattr(m, fn)(a, b), y, x)
        grads(lambda m, a: getattr(m, fn)(a, dx=2.0), y)
        grad_fn(lambda m, a: getattr(m, fn)(a), y)
        grad_fn(lambda m, a, b: getattr(m, fn)(a, b), y, x)
        check(lambda m: getattr(m, fn)(m.ones(3, dtype=m.bool)))
        check(lambda m: getattr(m, fn)(m.ones(3), m.ones(4)))
    close(lambda m, a: m.trapezoid(a[:, :0]), y)
    check(lambda m: m.trapezoid(m.ones(3), dx=1j))
    check(lambda m: m.cumulative_trapezoid(m.ones(3), dx=True))


# -- histogram, histogramdd ----------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_histogram(dtype):
    x = _arr((4, 6), dtype)
    w = np.abs(_arr((4, 6), dtype))
    edges = np.sort(_arr(5, dtype))
    tol = 1e-6 if dtype == "float32" else 1e-12

    def close(*args):
        return globals()["close"](*args, rtol=tol, atol=tol)
    close(lambda m, a: m.histogram(a, 7), x)
    close(lambda m, a: a.histogram(4, range=(-1.0, 1.0)), x)
    close(lambda m, a, b: m.histogram(a, 5, weight=b, density=True), x, w)
    close(lambda m, a, e: m.histogram(a, e), x, edges)
    close(lambda m, a, e, b: m.histogram(a, e, weight=b, density=True), x, edges, w)
    close(lambda m, a: m.histogram(a[:0], 3), x)
    close(lambda m, a: m.histogram(a[:1, :1].expand(2, 2), 3), x)
    close(lambda m, a: m.histogram(a, 3, out=(m.empty(0, dtype=a.dtype),
                                              m.empty(0, dtype=a.dtype))), x)


def test_histogramdd():
    x = _arr((10, 2))
    w = np.abs(_arr(10))
    close(lambda m, a: m.histogramdd(a, bins=[3, 4]), x)
    close(lambda m, a: m.histogramdd(a, bins=3), x)
    close(lambda m, a, b: m.histogramdd(a, bins=[2, 3], range=[-1.0, 1.0, 0.0, 2.0], weight=b,
                                        density=True), x, w)
    close(lambda m, a: m.histogramdd(a, bins=[m.tensor([-1.0, 0.0, 2.0], dtype=a.dtype),
                                              m.tensor([-3.0, 3.0], dtype=a.dtype)]), x)


def test_histogram_errors():
    check(lambda m: m.histogram(m.ones(4, dtype=m.int32), 3))
    check(lambda m: m.histogram(m.ones(4), m.tensor([0.0, 1.0], dtype=m.float64)))
    check(lambda m: m.histogram(m.ones(4), 0))
    check(lambda m: m.histogram(m.ones(4), 3, range=(4.0, 0.0)))
    check(lambda m: m.histogram(m.ones(4), 3, range=(0.0, float("inf"))))
    check(lambda m: m.histogram(m.tensor([1.0, float("nan")]), 3))
    check(lambda m: m.histogram(m.ones(4), 3, weight=m.ones(2)))
    check(lambda m: m.histogram(m.ones(4), 3, weight=m.ones(4, dtype=m.float64)))
    check(lambda m: m.histogram(m.ones(4), m.ones(1, 3)))
    check(lambda m: m.histogramdd(m.ones(4, 2), bins=[3]))
    check(lambda m: m.histogramdd(m.ones(4), bins=[3]))
    check(lambda m: m.histogramdd(m.ones(4, 2), bins=[3, 3], range=[0.0, 1.0]))
    h = strided.histogram(strided.ones(4, device="meta"), 3)
    assert h.hist.device.type == "meta" and tuple(h.hist.shape) == (3,)
    assert tuple(h.bin_edges.shape) == (4,)
