"""Differential tests of the training-step fast paths (issue 17): ``threshold_backward``
(ReLU's backward, Note [threshold_backward as bit selection]), the linear layer's product,
the engine's gradient handling and SGD's update, against torch."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import strided
from tests.conftest import assert_same, check

_RNG = np.random.default_rng(1717)


def _f(*shape, dtype=np.float32):
    return _RNG.standard_normal(shape).astype(dtype)


def _tb(m):
    return m.ops.aten.threshold_backward


# -- threshold_backward ------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(), (0,), (5,), (32, 128), (3, 0, 2), (70, 70)])
def test_threshold_backward_values(dtype, shape):
    g, x = _f(*shape, dtype=dtype), _f(*shape, dtype=dtype)
    if x.size:
        x.reshape(-1)[::7] = 0.0
        x.reshape(-1)[3::11] = np.nan
        g.reshape(-1)[5::13] = np.inf
        g.reshape(-1)[2::17] = np.nan
        g.reshape(-1)[1::19] = -0.0
    for th in (0, 0.25, -1):
        check(lambda m, th=th: _tb(m)(m.from_numpy(g.copy()), m.from_numpy(x.copy()), th))


@pytest.mark.parametrize("case", [
    "transposed", "broadcast", "int_self", "int_both", "mixed_float", "half", "bfloat16",
    "scalar_self", "sliced"])
def test_threshold_backward_iterator_cases(case):
    g, x = _f(4, 6), _f(4, 6)

    def recipe(m):
        tg, tx = m.from_numpy(g.copy()), m.from_numpy(x.copy())
        if case == "transposed":
            return _tb(m)(tg.t(), tx.t(), 0.1)
        if case == "broadcast":
            return _tb(m)(tg, tx[0], 0)
        if case == "int_self":
            return _tb(m)(tg, (tx * 3).to(m.int64), 1)
        if case == "int_both":
            return _tb(m)((tg * 5).to(m.int32), (tx * 3).to(m.int32), 0.5)
        if case == "mixed_float":
            return _tb(m)(tg.double(), tx, 0)
        if case == "half":
            return _tb(m)(tg.half(), tx.half(), 0.3)
        if case == "bfloat16":
            return _tb(m)(tg.bfloat16(), tx, 0)
        if case == "scalar_self":
            return _tb(m)(tg, m.tensor(0.5), 0.2)
        return _tb(m)(tg[:, ::2], tx[:, 1::2], 0)
    check(recipe)


@pytest.mark.parametrize("dtype", ["bool", "complex64"])
def test_threshold_backward_refused_dtypes(dtype):
    check(lambda m: _tb(m)(m.ones(3, dtype=getattr(m, dtype)), m.ones(3, dtype=getattr(m, dtype)),
                           0))


def test_threshold_backward_shape_mismatch_and_out():
    check(lambda m: _tb(m)(m.ones(3), m.ones(2), 0))

    def with_out(m):
        out = m.empty(2, 3, dtype=m.float64)
        r = m.ops.aten.threshold_backward.grad_input(m.ones(2, 3), m.tensor([[-1., 2, 0]]), 0,
                                                     grad_input=out)
        return r, out, out._version
    check(with_out)
    check(lambda m: m.ops.aten.threshold_backward.grad_input(
        m.ones(2, 3), m.ones(2, 3), 0, grad_input=m.empty(2, 3, dtype=m.int64)))


def test_threshold_backward_meta():
    check(lambda m: _tb(m)(m.empty(4, 5, device="meta"), m.empty(5, device="meta"), 0))


@pytest.mark.parametrize("create_graph", [False, True])
def test_relu_backward_graph(create_graph):
    x_np = _f(8, 9)
    x_np[0, :3] = (0.0, np.nan, -0.0)
    w_np = _f(8, 9)

    def recipe(m):
        x = m.from_numpy(x_np.copy()).requires_grad_()
        y = m.relu(x) * m.from_numpy(w_np.copy())
        g, = m.autograd.grad(y.sum(), x, create_graph=create_graph)
        names = (g.grad_fn.name() if g.grad_fn is not None else None,)
        if create_graph:
            names += tuple(n.name() if n is not None else None
                           for n, _ in g.grad_fn.next_functions)
            gg, = m.autograd.grad((g * g).sum(), x, allow_unused=True, materialize_grads=True)
            return g.detach(), names, gg
        return g, names
    check(recipe)


def test_threshold_module_backward():
    x_np = _f(5, 7)

    def recipe(m):
        x = m.from_numpy(x_np.copy()).requires_grad_()
        m.nn.functional.threshold(x, 0.3, -2.0).pow(2).sum().backward()
        return x.grad
    check(recipe)


# -- the training step -------------------------------------------------------------------------

def _mlp_run(m, steps, *, width=16, batch=6, hooks=False):
    m.manual_seed(3)
    model = m.nn.Sequential(m.nn.Linear(width, width), m.nn.ReLU(), m.nn.Linear(width, 4))
    opt = m.optim.SGD(model.parameters(), lr=0.05)
    x = m.from_numpy(_XS[:batch, :width].copy())
    y = m.from_numpy(_YS[:batch, :4].copy())
    seen = []
    if hooks:
        model[0].weight.register_hook(lambda g: seen.append(g.sum().item()))
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = m.nn.functional.mse_loss(model(x), y)
        loss.backward()
        losses.append(loss.item())
        opt.step()
    grads = [p.grad for p in model.parameters()]
    return losses, list(model.parameters()), grads, seen


_XS, _YS = _f(32, 32), _f(32, 32)


def _close(s, t):
    """Same shape, strides, dtype; values to BLAS tolerance (MKL and OpenBLAS sum products
    in different orders)."""
    assert_same(s, t, values=False)
    np.testing.assert_allclose(s.detach().numpy(), t.detach().numpy(), rtol=1e-4, atol=1e-6)


def test_mlp_step_matches_torch():
    ls, ps, gs, _ = _mlp_run(strided, 5)
    lt, pt, gt, _ = _mlp_run(torch, 5)
    np.testing.assert_allclose(ls, lt, rtol=1e-5)
    for a, b in zip(ps + gs, pt + gt):
        _close(a, b)


def test_mlp_step_hooks_see_gradients():
    _, _, _, seen_s = _mlp_run(strided, 2, hooks=True)
    _, _, _, seen_t = _mlp_run(torch, 2, hooks=True)
    np.testing.assert_allclose(seen_s, seen_t, rtol=1e-4)


# -- mse_loss (Note [The short path of mse_loss]) ----------------------------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("shape", [(), (7,), (32, 128), (0, 3)])
def test_mse_loss_forward_backward(dtype, reduction, shape):
    a_np, b_np = _f(*shape, dtype=dtype), _f(*shape, dtype=dtype)

    def recipe(m):
        a = m.from_numpy(a_np.copy()).requires_grad_()
        b = m.from_numpy(b_np.copy())
        loss = m.nn.functional.mse_loss(a, b, reduction=reduction)
        g, = m.autograd.grad(loss.sum(), a)
        return loss.detach(), g, loss.grad_fn.name()
    check(recipe, exact=False)      # the sum of squares is one BLAS dot: rounding differs


@pytest.mark.parametrize("case", ["transposed", "broadcast", "mixed", "target_grad", "out",
                                  "grad_scaled", "double_backward"])
def test_mse_loss_other_cases(case):
    a_np, b_np = _f(6, 5), _f(6, 5)

    def recipe(m):
        a = m.from_numpy(a_np.copy()).requires_grad_()
        b = m.from_numpy(b_np.copy())
        F = m.nn.functional
        if case == "transposed":
            loss = F.mse_loss(a.t(), b.t().contiguous())
        elif case == "broadcast":
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")       # (the size mismatch warning)
                loss = F.mse_loss(a, b[0])
        elif case == "mixed":
            loss = F.mse_loss(a, b.double())
        elif case == "target_grad":
            b.requires_grad_()
            loss = F.mse_loss(a, b)
            return loss, m.autograd.grad(loss, (a, b))
        elif case == "out":
            out = m.empty(())
            r = m.ops.aten.mse_loss.out(a.detach(), b, 1, out=out)
            return r, out
        elif case == "grad_scaled":
            loss = F.mse_loss(a, b, reduction="sum")
            return m.autograd.grad(loss, a, m.tensor(3.5))
        else:
            loss = F.mse_loss(a, b)
            g, = m.autograd.grad(loss, a, create_graph=True)
            return g.detach(), m.autograd.grad(g.pow(2).sum(), a)
        return loss, m.autograd.grad(loss, a)
    check(recipe, exact=False)


def test_mse_loss_refuses_ints():
    check(lambda m: m.nn.functional.mse_loss(m.ones(3, dtype=m.int64), m.ones(3, dtype=m.int64)))


# -- SGD's plain float32 update (kernels/_sgd_update.py) -------------------------------------

@pytest.mark.parametrize("shape", [(1,), (128,), (64, 300), (3, 0)])
@pytest.mark.parametrize("lr", [0.01, 0.37, 1e-4])
def test_sgd_float32_update_is_torchs_fused_multiply_add(shape, lr):
    p_np = _f(*shape)
    g_np = _f(*shape) * np.float32(3.7)

    def recipe(m):
        p = m.nn.Parameter(m.from_numpy(p_np.copy()))
        p.grad = m.from_numpy(g_np.copy())
        opt = m.optim.SGD([p], lr=lr)
        opt.step()
        opt.step()
        return p.detach(), p._version
    check(recipe)       # bit for bit
