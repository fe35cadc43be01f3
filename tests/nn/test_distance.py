"""Distances (issue 10): F.pdist (aten _pdist_forward / _pdist_backward), F.cosine_similarity,
F.pairwise_distance (torch's decompositions) and the CosineSimilarity / PairwiseDistance
modules, against torch: values, gradients, grad_fn names, meta shapes, repr, errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import strided
from tests.autograd.grad_harness import gradcheck_strided
from tests.conftest import check, hyp
from tests.nn.helpers import both_from_numpy

RNG = np.random.default_rng(3)


def _run(fn, *arrs, rtol=1e-12, atol=1e-13):
    pairs = [both_from_numpy(a, requires_grad=True) for a in arrs]
    rs = fn(strided, *[p[0] for p in pairs])
    rt = fn(torch, *[p[1] for p in pairs])
    assert tuple(rs.shape) == tuple(rt.shape) and rs.stride() == rt.stride()
    assert str(rs.dtype) == str(rt.dtype)
    np.testing.assert_allclose(rs.detach().numpy(), rt.detach().numpy(), rtol=rtol, atol=atol)
    assert rs.grad_fn.name() == type(rt.grad_fn).__name__
    w = RNG.standard_normal(tuple(rt.shape)).astype(arrs[0].dtype)
    (rs * strided.from_numpy(w.copy())).sum().backward()
    (rt * torch.from_numpy(w.copy())).sum().backward()
    for s, t in pairs:
        np.testing.assert_allclose(s.grad.numpy(), t.grad.numpy(), rtol=rtol * 100, atol=atol * 100)


@pytest.mark.parametrize("p", [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, float("inf")])
def test_pdist(p):
    x = RNG.standard_normal((6, 4))
    x[1] = x[0]                     # a zero distance
    x[3, 2] = x[2, 2]               # a zero difference in one column
    _run(lambda m, t: m.nn.functional.pdist(t, p), x)
    _run(lambda m, t: m.pdist(t.t(), p), x)       # non-contiguous


def test_pdist_edges_and_float32():
    _run(lambda m, t: m.nn.functional.pdist(t), RNG.standard_normal((1, 3)))
    _run(lambda m, t: m.nn.functional.pdist(t), RNG.standard_normal((5, 3)).astype(np.float32),
         rtol=1e-5, atol=1e-6)
    check(lambda m: m.nn.functional.pdist(m.zeros(0, 3)))
    check(lambda m: m.nn.functional.pdist(m.zeros(4, 0)))
    ms = strided.nn.functional.pdist(strided.empty(5, 3, device="meta"))
    assert tuple(ms.shape) == (10,) and ms.device.type == "meta"


def test_pdist_gradcheck():
    gradcheck_strided(lambda m, x: m.pdist(x, 2.5), [(4, 3)])


PDIST_ERRORS = [
    lambda m: m.nn.functional.pdist(m.zeros(3)),
    lambda m: m.nn.functional.pdist(m.zeros(3, 4, dtype=m.int64)),
    lambda m: m.nn.functional.pdist(m.zeros(3, 4), -1),
    lambda m: m.nn.functional.pdist(m.zeros(3, 4), p="a"),
    lambda m: m.nn.functional.cosine_similarity(m.zeros(3, 4), m.zeros(3, 4), dim=1.5),
]


@pytest.mark.parametrize("i", range(len(PDIST_ERRORS)))
def test_pdist_errors(i):
    check(PDIST_ERRORS[i])


@pytest.mark.parametrize("shapes,dim", [(((4, 5), (4, 5)), 1), (((4, 5), (1, 5)), 1),
                                        (((3, 4, 5), (4, 5)), -1), (((4, 5), (4, 5)), 0),
                                        (((2, 3, 4), (2, 1, 4)), 2)])
def test_cosine_similarity(shapes, dim):
    arrs = [RNG.standard_normal(s) for s in shapes]
    arrs[0][0] = 0                  # a zero vector: the eps clamp
    _run(lambda m, a, b: m.nn.functional.cosine_similarity(a, b, dim=dim), *arrs)
    _run(lambda m, a, b: m.nn.functional.cosine_similarity(a, b, dim, 1e-3), *arrs)


def test_cosine_similarity_dtypes_and_errors():
    check(lambda m: m.nn.functional.cosine_similarity(m.tensor([[1, 2]]), m.tensor([[1.0, 3]])))
    check(lambda m: m.nn.functional.cosine_similarity(m.tensor([[1, 2]]), m.tensor([[1, 3]])))
    check(lambda m: m.nn.functional.cosine_similarity(m.zeros(3, 4), m.zeros(3, 5)))
    check(lambda m: m.nn.functional.cosine_similarity(m.zeros(3, 4), m.zeros(3, 4), 2))


@pytest.mark.parametrize("p", [1.0, 2.0, 3.0, float("inf")])
@pytest.mark.parametrize("keepdim", [False, True])
def test_pairwise_distance(p, keepdim):
    a, b = RNG.standard_normal((4, 5)), RNG.standard_normal((4, 5))
    _run(lambda m, x, y: m.nn.functional.pairwise_distance(x, y, p, 1e-6, keepdim), a, b)
    _run(lambda m, x, y: m.nn.functional.pairwise_distance(x, y[:1], p, keepdim=keepdim), a, b)
    _run(lambda m, x, y: m.nn.functional.pairwise_distance(x[0], y, p, keepdim=keepdim), a, b)


def test_pairwise_distance_dtypes_and_errors():
    check(lambda m: m.nn.functional.pairwise_distance(m.tensor([[1, 2]]), m.tensor([[1, 3]])))
    check(lambda m: m.nn.functional.pairwise_distance(m.zeros(3, 4), m.zeros(3, 5)))


@hyp(20)
@given(st.integers(1, 5), st.integers(1, 5), st.booleans())
def test_distances_hypothesis(n, d, transposed):
    a = RNG.standard_normal((d, n) if transposed else (n, d))
    b = RNG.standard_normal((d, n) if transposed else (n, d))

    def prep(t):
        return t.t() if transposed else t
    _run(lambda m, x: m.nn.functional.pdist(prep(x)), a) if n > 1 else None
    _run(lambda m, x, y: m.nn.functional.cosine_similarity(prep(x), prep(y)), a, b)
    _run(lambda m, x, y: m.nn.functional.pairwise_distance(prep(x), prep(y)), a, b)


def test_modules():
    a, b = RNG.standard_normal((3, 4)), RNG.standard_normal((3, 4))
    for args, kw in (((), {}), ((0,), {"eps": 1e-4})):
        ms, mt = strided.nn.CosineSimilarity(*args, **kw), torch.nn.CosineSimilarity(*args, **kw)
        assert repr(ms) == repr(mt) and ms.dim == mt.dim and ms.eps == mt.eps
        _run(lambda m, x, y, ms=ms, mt=mt: (ms if m is strided else mt)(x, y), a, b)
    for args, kw in (((), {}), ((1.0,), {"keepdim": True}), ((3,), {"eps": 0.1})):
        ms, mt = strided.nn.PairwiseDistance(*args, **kw), torch.nn.PairwiseDistance(*args, **kw)
        assert repr(ms) == repr(mt) and ms.norm == mt.norm and ms.keepdim == mt.keepdim
        _run(lambda m, x, y, ms=ms, mt=mt: (ms if m is strided else mt)(x, y), a, b)
