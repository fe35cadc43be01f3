"""strided.nn.utils against torch.nn.utils: gradient clipping, parameter vectors, the
weight-norm operators, parametrize / parametrizations, functional_call."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import strided
from tests.conftest import _strided_values, _torch_values, assert_same, check, hyp

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "autograd"))
from grad_harness import check_grads  # noqa: E402


def _grads(m, shapes, seed=0, dtype="float64", scale=1.0):
    """Leaves with .grad set (same values in both libraries); one without a grad."""
    rng = np.random.default_rng(seed)
    ps = []
    for shape in shapes:
        p = m.from_numpy(rng.standard_normal(shape).astype(dtype)).requires_grad_()
        p.grad = m.from_numpy((scale * rng.standard_normal(shape)).astype(dtype))
        ps.append(p)
    ps.append(m.zeros(2, dtype=getattr(m, dtype), requires_grad=True))   # .grad is None
    return ps


# -- clip_grad ----------------------------------------------------------------------------------

NORM_TYPES = [2.0, 1, 3.5, float("inf"), "inf", 0.5, 0]


@pytest.mark.parametrize("norm_type", NORM_TYPES)
@pytest.mark.parametrize("foreach", [None, True, False])
def test_clip_grad_norm(norm_type, foreach):
    for max_norm, scale in [(1.0, 1.0), (100.0, 1.0), (0.5, 10.0)]:
        def rec(m, max_norm=max_norm, scale=scale):
            ps = _grads(m, [(3, 4), (5,), (2, 2, 2)], scale=scale)
            total = m.nn.utils.clip_grad_norm_(ps, max_norm, norm_type, foreach=foreach)
            return total, [p.grad for p in ps[:-1]], ps[-1].grad is None
        check(rec, exact=False)


def test_clip_grad_norm_float32_and_mixed_dtypes():
    def rec(m):
        ps = _grads(m, [(30, 40), (7,)], dtype="float32", scale=3.0)
        qs = _grads(m, [(4, 4)], seed=1, dtype="float64")
        total = m.nn.utils.clip_grad_norm_(ps + qs, 2.0)
        return total, [p.grad for p in ps[:-1] + qs[:-1]]
    check(rec, exact=False)


def test_clip_grad_norm_forms():
    def single(m):
        p = _grads(m, [(3, 4)])[0]
        return m.nn.utils.clip_grad_norm_(p, 0.1), p.grad

    def generator(m):
        ps = _grads(m, [(3, 4), (4,)])
        return m.nn.utils.clip_grad_norm_((p for p in ps), 0.1), [p.grad for p in ps[:-1]]

    def empty(m):
        return (m.nn.utils.clip_grad_norm_([], 1.0),
                m.nn.utils.clip_grad_norm_([m.zeros(2, requires_grad=True)], 1.0))

    def empty_generator(m):
        return m.nn.utils.clip_grad_norm_((p for p in []), 1.0)

    def deprecated(m):
        ps = _grads(m, [(3, 4)])
        return m.nn.utils.clip_grad_norm(ps, 0.5, 1), ps[0].grad

    for rec in (single, generator, empty, empty_generator, deprecated):
        check(rec, exact=False)


def test_clip_grad_norm_nonfinite():
    for bad in (float("nan"), float("inf"), -float("inf")):
        def rec(m, error, bad=bad):
            ps = _grads(m, [(3,), (2,)])
            ps[1].grad[0] = bad
            return m.nn.utils.clip_grad_norm_(ps, 1.0, error_if_nonfinite=error), ps[0].grad
        check(lambda m, rec=rec: rec(m, True), exact=False)
        check(lambda m, rec=rec: rec(m, False), exact=False)
    # (norms agree to rounding: torch's vector_norm sums in another order)
    # the message names the norm type as a float
    check(lambda m: m.nn.utils.clip_grad_norm_(
        [m.tensor([1.0, float("inf")])], 1.0, norm_type=1, error_if_nonfinite=True))


def test_clip_grad_norm_meta_foreach_error():
    def rec(m, foreach):
        p = m.empty(3, device="meta", requires_grad=True)
        p.grad = m.empty(3, device="meta")
        return m.nn.utils.clip_grad_norm_([p], 1.0, foreach=foreach)
    check(lambda m: rec(m, True))
    check(lambda m: rec(m, None))


def test_get_total_norm_and_clip_grads_with_norm():
    def rec(m):
        ps = _grads(m, [(3, 4), (6,)], scale=4.0)
        grads = [p.grad for p in ps if p.grad is not None]
        total = m.nn.utils.get_total_norm(grads, 3.0)
        m.nn.utils.clip_grads_with_norm_(ps, 1.5, total)
        single = m.nn.utils.get_total_norm(grads[0], float("inf"))
        nothing = m.nn.utils.clip_grads_with_norm_([m.zeros(2)], 1.0, total)
        return total, single, nothing, [p.grad for p in ps[:-1]]
    check(rec, exact=False)


@pytest.mark.parametrize("foreach", [None, True, False])
def test_clip_grad_value(foreach):
    def rec(m):
        ps = _grads(m, [(3, 4), (5,)], scale=2.0)
        ps[0].grad[0, 0] = float("nan")
        r = m.nn.utils.clip_grad_value_(ps, 0.7, foreach=foreach)
        p = _grads(m, [(4,)])[0]
        m.nn.utils.clip_grad_value_(p, 0)
        return r, [q.grad for q in ps[:-1]], p.grad
    check(rec, exact=False)


@given(shapes=st.lists(st.lists(st.integers(0, 4), min_size=0, max_size=3).map(tuple),
                       min_size=1, max_size=4),
       max_norm=st.floats(0.01, 10), norm_type=st.sampled_from([1.0, 2.0, 2.5, float("inf")]),
       seed=st.integers(0, 100))
@hyp(25)
def test_clip_grad_norm_hypothesis(shapes, max_norm, norm_type, seed):
    def rec(m):
        ps = _grads(m, shapes, seed=seed)
        # a non-contiguous gradient too
        q = m.zeros(3, 4, dtype=m.float64, requires_grad=True)
        q.grad = m.arange(12.0, dtype=m.float64).reshape(4, 3).t()
        total = m.nn.utils.clip_grad_norm_(ps + [q], max_norm, norm_type)
        return total, [p.grad for p in ps[:-1]], q.grad
    check(rec, exact=False)


# -- parameters_to_vector / vector_to_parameters ------------------------------------------------

def test_parameters_to_vector_roundtrip():
    def rec(m):
        ps = [m.nn.Parameter(m.arange(6.0).reshape(2, 3)), m.nn.Parameter(m.ones(4)),
              m.nn.Parameter(m.zeros(()))]
        vec = m.nn.utils.parameters_to_vector(ps)
        new = m.arange(100.0, 111.0)
        ids = [id(p) for p in ps]
        m.nn.utils.vector_to_parameters(new, ps)
        new[0] = -1          # the parameters alias the vector
        return vec, vec.grad_fn.name(), ps, [id(p) for p in ps] == ids
    check(rec)


def test_parameters_to_vector_errors():
    check(lambda m: m.nn.utils.vector_to_parameters([1.0, 2.0], [m.ones(2)]))
    check(lambda m: m.nn.utils.vector_to_parameters(3, [m.ones(2)]))
    check(lambda m: m.nn.utils.vector_to_parameters(np.ones(2), [m.ones(2)]))
    check(lambda m: m.nn.utils.parameters_to_vector([]))
    check(lambda m: m.nn.utils.parameters_to_vector([m.ones(2, 3).t()]))
    check(lambda m: m.nn.utils.vector_to_parameters(m.ones(3), [m.ones(2), m.ones(2)]))


# -- weight norm operators ----------------------------------------------------------------------

WN_CASES = [((3, 4, 5), (3, 1, 1), 0), ((3, 4, 5), (1, 1, 5), 2), ((3, 4, 5), (1, 4, 1), 1),
            ((6, 7), (6, 1), 0), ((6, 7), (1, 7), 1), ((6, 7), (), -1), ((4,), (4,), 0),
            ((2, 3, 4, 5), (1, 3, 1, 1), 1), ((2, 3, 4), (2, 3, 1), -2)]


@pytest.mark.parametrize("vshape,gshape,dim", WN_CASES)
def test_weight_norm_op_values_and_grads(vshape, gshape, dim):
    check_grads(lambda m, v, g: m._weight_norm(v, g, dim), [vshape, gshape], rtol=1e-10)

    def names(m):
        v = m.ones(vshape, requires_grad=True)
        return m._weight_norm(v, m.ones(gshape), dim).grad_fn.name()
    check(names)


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_weight_norm_interface_dtypes(dtype):
    rng = np.random.default_rng(0)
    vs, gs = rng.standard_normal((8, 20)), rng.standard_normal((8, 1))
    for dim, g in ((0, gs), (1, gs.reshape(1, 8).repeat(1, 0)[:, :8])):
        v = vs if dim == 0 else vs.T
        outs = []
        for m in (strided, torch):
            dt = getattr(m, dtype)
            vv = m.from_numpy(v.copy()).to(dt)
            gg = m.from_numpy(np.ascontiguousarray(g)).to(dt)
            outs.append(m._weight_norm_interface(vv, gg, dim))
        for s, t in zip(*outs):
            assert_same(s, t, values=False)
            np.testing.assert_allclose(_strided_values(s).astype(np.float64),
                                       _torch_values(t).astype(np.float64), rtol=1e-2)
    check(lambda m: m._weight_norm_interface(m.ones(3, 2, dtype=m.int64),
                                             m.ones(3, 1, dtype=m.int64), 0))


def test_weight_norm_interface_meta_empty_and_flags():
    def rec(m):
        v = m.empty(3, 4, device="meta", requires_grad=True)
        w, n = m._weight_norm_interface(v, m.empty(3, 1, device="meta"), 0)
        vv = m.ones(2, 3, requires_grad=True)
        w2, n2 = m._weight_norm_interface(vv, m.full((2, 1), 2.0), 0)
        return w, n, w2, n2, n2.requires_grad, w2.grad_fn.name()
    check(rec)
    # (torch's CPU kernel dies of a division by zero on an empty v: zero norms here)
    w, n = strided._weight_norm_interface(strided.empty(0, 4), strided.empty(0, 1), 0)
    assert w.shape == (0, 4) and n.shape == (0, 1)


def test_weight_norm_double_backward():
    # torch's double backward treats the saved norms as constants (they have no grad_fn),
    # so it is not the true second derivative: compare with torch's, not with gradgradcheck
    def program(m, v, g, dim):
        w = m._weight_norm(v, g, dim)
        gv, gg = m.autograd.grad((w * w.detach().cos()).sum(), (v, g), create_graph=True)
        return (gv * gv).sum() + (gg * v.sum()).sum(), gv.grad_fn.name()
    for dim, gshape in ((0, (3, 1)), (1, (1, 4))):
        check_grads(lambda m, v, g, dim=dim: program(m, v, g, dim)[0], [(3, 4), gshape])
        check(lambda m, dim=dim, gshape=gshape: program(
            m, m.ones(3, 4, requires_grad=True), m.ones(gshape, requires_grad=True), dim)[1])


def test_norm_except_dim():
    for shape, p, dim in [((3, 4, 5), 2, 0), ((3, 4, 5), 2, 2), ((3, 4, 5), 3, 1),
                          ((3, 4, 5), 2, -1), ((2, 3), 1, 1)]:
        check_grads(lambda m, v, p=p, dim=dim: m.norm_except_dim(v, p, dim), [shape])
