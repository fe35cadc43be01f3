"""The core formulas (arithmetic, views, copies) against torch and gradcheck; the
harness in grad_harness.py explains the comparison."""

from __future__ import annotations

import pytest
from grad_harness import check_grads, grad_fn_names, gradcheck_strided

CASES = [
    ("add", lambda m, x, y: x + y, [(2, 3), (3,)]),
    ("add_alpha", lambda m, x, y: m.add(x, y, alpha=2.5), [(2, 3), (2, 1)]),
    ("add_scalar", lambda m, x: x + 2, [(3,)]),
    ("radd", lambda m, x: 2 + x, [(3,)]),
    ("sub", lambda m, x, y: x - y, [(4,), (1,)]),
    ("rsub", lambda m, x: 1 - x, [(4,)]),
    ("mul", lambda m, x, y: x * y, [(2, 3), (2, 3)]),
    ("mul_scalar", lambda m, x: x * 3, [(2, 3)]),
    ("div", lambda m, x, y: x / y, [(2, 3), (3,)]),
    ("neg", lambda m, x: -x, [(5,)]),
    ("exp", lambda m, x: x.exp(), [(2, 2)]),
    ("sum", lambda m, x: x.sum(), [(2, 3)]),
    ("sum_dim", lambda m, x: x.sum(1), [(2, 3)]),
    ("sum_dims_keep", lambda m, x: x.sum((0, 2), keepdim=True), [(2, 3, 4)]),
    ("mean", lambda m, x: x.mean(), [(2, 3)]),
    ("mean_dim", lambda m, x: x.mean(-1), [(2, 3)]),
    ("matmul_mm", lambda m, x, y: x @ y, [(2, 3), (3, 4)]),
    ("matmul_mv", lambda m, x, y: x @ y, [(2, 3), (3,)]),
    ("matmul_vm", lambda m, x, y: x @ y, [(3,), (3, 4)]),
    ("matmul_dot", lambda m, x, y: x @ y, [(3,), (3,)]),
    ("matmul_batched", lambda m, x, y: x @ y, [(2, 2, 3), (3, 4)]),
    ("matmul_broadcast", lambda m, x, y: x @ y, [(2, 1, 2, 3), (3, 3, 2)]),
    ("matmul_vec_batch", lambda m, x, y: x @ y, [(3,), (2, 3, 4)]),
    ("matmul_batch_vec", lambda m, x, y: x @ y, [(2, 4, 3), (3,)]),
    ("mm", lambda m, x, y: x.mm(y), [(2, 3), (3, 2)]),
    ("relu", lambda m, x: x.relu(), [(6,)]),
    ("view", lambda m, x: x.view(6) * 2, [(2, 3)]),
    ("t", lambda m, x: x.t() @ x, [(2, 3)]),
    ("transpose", lambda m, x: x.transpose(0, 2).exp(), [(2, 3, 4)]),
    ("select", lambda m, x: x[1] * 2, [(3, 4)]),
    ("slice", lambda m, x: x[1:, ::2].exp(), [(3, 4)]),
    ("expand", lambda m, x: x.expand(3, 4) * 2, [(1, 4)]),
    ("as_strided", lambda m, x: x.as_strided((2, 2), (1, 2), 1).exp(), [(6,)]),
    ("as_strided_overlap", lambda m, x: x.as_strided((3, 3), (1, 1)).exp(), [(6,)]),
    ("clone", lambda m, x: x.clone() * x, [(3,)]),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_against_torch(case):
    _, program, shapes = case
    check_grads(program, shapes)


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_gradcheck(case):
    _, program, shapes = case
    gradcheck_strided(program, shapes, second=True)


INPLACE = [
    ("setitem_scalar", lambda m, x: _setitem(m, x, 0, 0.0), [(3, 4)]),
    ("setitem_tensor", lambda m, x, v: _setitem(m, x, 1, v), [(3, 4), (4,)]),
    ("t_add_", lambda m, x, b: _t_add(x, b), [(3, 4), (4, 3)]),
    ("mul_", lambda m, x, y: _mul_(x, y), [(3,), (3,)]),
    ("copy_into_slice", lambda m, x, v: _copy_slice(m, x, v), [(4, 4), (2, 4)]),
    ("chained_views", lambda m, x, v: _chained(m, x, v), [(3, 4), (2,)]),
    ("view_then_base", lambda m, x: _view_then_base(x), [(3, 4)]),
]


def _setitem(m, x, i, v):
    y = x * 1
    y[i] = v
    return y * y


def _t_add(x, b):
    y = x.clone()
    y.t().add_(b)
    return y * y


def _mul_(x, y):
    a = x.clone()
    a.mul_(y)
    return a


def _copy_slice(m, x, v):
    y = x.exp()
    y[1:3].copy_(v)
    return y * y


def _chained(m, x, v):
    y = x * 2
    y[1][1:3] = v
    return y * y


def _view_then_base(x):
    y = x * 1
    v = y[0]
    y.mul_(2)
    return v * 3


@pytest.mark.parametrize("case", INPLACE, ids=[c[0] for c in INPLACE])
def test_inplace_on_views_against_torch(case):
    _, program, shapes = case
    check_grads(program, shapes)


def test_graph_names_match_torch():
    import torch

    import strided

    def program(m):
        x = m.ones(2, 3, dtype=m.float64, requires_grad=True)
        y = x * 2
        y[0] = 1.5
        return (y.t() @ x).sum()
    assert grad_fn_names(program(strided)) == grad_fn_names(program(torch))
