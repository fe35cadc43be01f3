"""F.linear / F.bilinear / _trilinear and the Identity, Linear, Bilinear, LazyLinear,
Flatten, Unflatten modules against torch: values, gradients, grad_fn graphs, bit-exact
initialisation after manual_seed, reprs and errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import strided
from tests.autograd.grad_harness import check_grads, grad_fn_names, gradcheck_strided
from tests.conftest import assert_same, check, hyp

# -- F.linear: graph shapes (Note [How linear decomposes]) ------------------------------------

LINEAR_INPUTS = {
    "1d": lambda m: m.arange(4.0, dtype=m.float64),
    "2d": lambda m: m.arange(12.0, dtype=m.float64).reshape(3, 4),
    "3d": lambda m: m.arange(24.0, dtype=m.float64).reshape(2, 3, 4) / 7,
    "3d_noncontig": lambda m: (m.arange(24.0, dtype=m.float64).reshape(2, 4, 3) / 5)
    .transpose(1, 2),
    "4d": lambda m: m.arange(48.0, dtype=m.float64).reshape(2, 2, 3, 4) / 11,
    "4d_noncontig": lambda m: m.arange(48.0, dtype=m.float64).reshape(2, 2, 4, 3)
    .transpose(-1, -2),
    "empty_rows": lambda m: m.ones(0, 4, dtype=m.float64),
    "empty_batch": lambda m: m.ones(2, 0, 4, dtype=m.float64),
}


def _params(m, out=5, inp=4, bias_shape=None):
    w = (m.arange(float(out * inp), dtype=m.float64).reshape(out, inp) / 10 - 0.7)
    b = m.linspace(-1, 1, out, dtype=m.float64) if bias_shape is None else \
        m.ones(bias_shape, dtype=m.float64) / 3
    return w.requires_grad_(), b.requires_grad_()


@pytest.mark.parametrize("name", sorted(LINEAR_INPUTS))
@pytest.mark.parametrize("with_bias", [True, False])
def test_linear_graph_values_and_grads(name, with_bias):
    def recipe(m):
        x = LINEAR_INPUTS[name](m).requires_grad_()
        w, b = _params(m)
        y = m.nn.functional.linear(x, w, b if with_bias else None)
        y.sum().backward()
        return (y.detach(), grad_fn_names(y), x.grad, w.grad,
                b.grad if with_bias else None)
    check(recipe, exact=False)


def test_linear_graph_with_2d_bias_and_1d_weight():
    def recipe(m):
        x = m.ones(2, 3, 4, dtype=m.float64, requires_grad=True)
        w, b = _params(m, bias_shape=(3, 5))
        y = m.nn.functional.linear(x, w, b)
        v = m.nn.functional.linear(m.ones(4, dtype=m.float64), w[0], m.tensor(0.5,
                                                                             dtype=m.float64))
        return y, grad_fn_names(y), v.detach(), v.grad_fn.name()
    check(recipe, exact=False)


def test_linear_values_float32():
    def recipe(m):
        m.manual_seed(3)
        x = m.randn(7, 5)
        w = m.randn(3, 5)
        b = m.randn(3)
        return m.nn.functional.linear(x, w, b), m.nn.functional.linear(x[None], w)
    check(lambda m: recipe(m)[0].shape)
    s, t = recipe(strided), recipe(torch)
    for a, b in zip(s, t):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("case", range(6))
def test_linear_errors(case):
    def recipe(m):
        w = m.ones(5, 4)
        return [
            lambda: m.nn.functional.linear(m.ones(()), w),
            lambda: m.nn.functional.linear(m.ones(4), m.ones(())),
            lambda: m.nn.functional.linear(m.ones(3, 5), w),
            lambda: m.nn.functional.linear(m.ones(3, 4), w, m.ones(4)),
            lambda: m.nn.functional.linear(m.ones(3, 4), w.double()),
            lambda: m.nn.functional.linear(m.ones(2, 3, 4).transpose(0, 1), w, m.ones(2, 5)),
        ][case]()
    check(recipe)


@pytest.mark.parametrize("case", range(4))
def test_linear_binding_type_errors(case):
    def recipe(m):
        F = m.nn.functional
        return [
            lambda: F.linear(m.ones(2)),
            lambda: F.linear(m.ones(2), 3),
            lambda: F.bilinear(m.ones(2), m.ones(2)),
            lambda: F.linear(input=m.ones(1, 2), weight=m.ones(3, 2), bias=m.ones(3)),
        ][case]()
    check(recipe)


def test_linear_meta():
    def recipe(m):
        x = m.ones(2, 3, 4, device="meta")
        w = m.ones(5, 4, device="meta")
        y = m.nn.functional.linear(x, w, m.ones(5, device="meta"))
        z = m.nn.functional.linear(x.transpose(0, 1), w)
        return y, z
    check(recipe)


def test_linear_out():
    def recipe(m):
        x = m.arange(12.0).reshape(3, 4)
        w = m.ones(2, 4)
        out = m.empty(3, 2)
        r = m._C._nn.linear(x, w, m.ones(2), out=out) if m is torch else \
            m.nn.functional.linear(x, w, m.ones(2), out=out)
        out2 = m.empty(0)
        x3 = m.ones(2, 3, 4)
        r2 = m._C._nn.linear(x3, w, m.ones(2), out=out2) if m is torch else \
            m.nn.functional.linear(x3, w, m.ones(2), out=out2)
        return r is out, out, r2 is out2, out2
    check(recipe)


@hyp(25)
@given(batch=st.lists(st.integers(0, 3), max_size=3), inp=st.integers(1, 4),
       out=st.integers(1, 4), bias=st.booleans(), transpose=st.booleans())
def test_linear_shapes_property(batch, inp, out, bias, transpose):
    def recipe(m):
        n = int(np.prod(batch)) * inp
        x = (m.arange(float(n), dtype=m.float64) / 3).reshape(*batch, inp)
        if transpose and x.dim() >= 2:
            x = x.transpose(0, -1).contiguous().transpose(0, -1)   # same shape, other strides
        w = m.linspace(-1, 1, out * inp, dtype=m.float64).reshape(out, inp)
        b = m.linspace(0, 1, out, dtype=m.float64) if bias else None
        return m.nn.functional.linear(x, w, b)
    check(recipe, exact=False)


def test_linear_gradcheck_and_double_backward():
    gradcheck_strided(lambda m, x, w, b: m.nn.functional.linear(x, w, b),
                      [(2, 3, 4), (5, 4), (5,)], second=True)
    check_grads(lambda m, x, w, b: m.autograd.grad(
        m.nn.functional.linear(x, w, b).pow(2).sum(), (w,), create_graph=True)[0].sum(),
        [(3, 4), (5, 4), (5,)])


# -- F.bilinear and _trilinear ---------------------------------------------------------------


@pytest.mark.parametrize("shape1,shape2", [((2, 3), (2, 4)), ((6, 2, 3), (6, 2, 4)),
                                           ((3,), (4,)), ((0, 3), (0, 4))])
@pytest.mark.parametrize("with_bias", [True, False])
def test_bilinear_values_graph_grads(shape1, shape2, with_bias):
    def recipe(m):
        x1 = m.linspace(-1, 2, int(np.prod(shape1)), dtype=m.float64).reshape(shape1)
        x2 = m.linspace(1, -2, int(np.prod(shape2)), dtype=m.float64).reshape(shape2)
        x1.requires_grad_()
        x2.requires_grad_()
        w = (m.arange(60.0, dtype=m.float64).reshape(5, 3, 4) / 30 - 1).requires_grad_()
        b = m.linspace(0, 1, 5, dtype=m.float64).requires_grad_()
        y = m.nn.functional.bilinear(x1, x2, w, b if with_bias else None)
        y.sum().backward()
        return y.detach(), grad_fn_names(y), x1.grad, x2.grad, w.grad
    check(recipe, exact=False)


def test_bilinear_gradcheck_second_order():
    gradcheck_strided(lambda m, a, b, w, c: m.nn.functional.bilinear(a, b, w, c),
                      [(2, 3), (2, 2), (4, 3, 2), (4,)], second=True)


@pytest.mark.parametrize("case", range(8))
def test_bilinear_errors(case):
    def recipe(m):
        w = m.ones(5, 3, 4)
        x1, x2 = m.ones(2, 3), m.ones(2, 4)
        return [
            lambda: m.bilinear(m.ones(2, 3), m.ones(2, 2, 4), w),
            lambda: m.bilinear(m.ones(2, 3), m.ones(3, 4), w),
            lambda: m.bilinear(m.ones(2, 2), x2, w),
            lambda: m.bilinear(x1, m.ones(2, 5), w),
            lambda: m.bilinear(x1, x2, w, m.ones(4)),
            lambda: m.bilinear(x1.double(), x2, w),
            lambda: m.bilinear(x1, x2, w, m.ones(5, dtype=m.float64)),
            lambda: m.bilinear(m.ones(()), m.ones(()), w),
        ][case]()
    check(recipe)


TRILINEAR_CASES = [
    # (shapes, expand1, expand2, expand3, sumdim)
    ([(2, 3), (5, 3, 4), (2, 4)], [1, 3], [0], [1, 2], [2, 3]),      # bilinear's
    ([(2, 3), (2, 3), (2, 3)], [], [], [], [1]),                     # a triple dot per row
    ([(3,), (4,), (5,)], [1, 2], [0, 2], [0, 1], []),                 # outer product
    ([(2, 3), (3, 4), (2, 4)], [2], [0], [1], [1, 2]),
]


@pytest.mark.parametrize("case", range(len(TRILINEAR_CASES)))
def test_trilinear(case):
    shapes, e1, e2, e3, sumdim = TRILINEAR_CASES[case]

    def program(m, a, b, c):
        return m.ops.aten._trilinear(a, b, c, e1, e2, e3, sumdim)
    check_grads(program, shapes)

    def graph(m):
        xs = [m.ones(s, dtype=m.float64, requires_grad=True) for s in shapes]
        y = m.ops.aten._trilinear(*xs, e1, e2, e3, sumdim)
        meta = m.ops.aten._trilinear(*[m.ones(s, device="meta") for s in shapes], e1, e2, e3,
                                     sumdim)
        return y.shape, y.stride(), y.grad_fn.name(), meta
    check(graph)


def test_trilinear_unroll_dim_error():
    check(lambda m: m.ops.aten._trilinear(m.ones(2, 3), m.ones(5, 3, 4), m.ones(2, 4),
                                          [1, 3], [0], [1, 2], [2, 3], 4))


# -- modules ----------------------------------------------------------------------------------


@pytest.mark.parametrize("args", [(4, 3), (1, 1), (7, 2, False), (0, 3), (3, 0)])
def test_linear_init_bit_exact(args):
    def recipe(m):
        m.manual_seed(42)
        lin = m.nn.Linear(*args)
        lin64 = m.nn.Linear(*args, dtype=m.float64)
        return (lin.weight, lin.bias, lin64.weight, repr(lin), type(lin.weight).__name__,
                m.rand(2))
    check(recipe)


def test_linear_module_forward_backward():
    def recipe(m):
        m.manual_seed(0)
        lin = m.nn.Linear(4, 3).double()
        x = m.randn(5, 4, dtype=m.float64)
        y = lin(x)
        y.pow(2).sum().backward()
        return y.detach(), y.grad_fn.name(), lin.weight.grad, lin.bias.grad, lin(x[0]).detach()
    check(recipe, exact=False)


def test_linear_module_meta_and_state():
    def recipe(m):
        lin = m.nn.Linear(3, 2, bias=False, device="meta")
        out = lin(m.ones(4, 3, device="meta"))
        return (lin.weight, lin.bias, out, list(lin.state_dict()), repr(lin),
                [n for n, _ in lin.named_parameters()])
    check(recipe)


def test_bilinear_module():
    def recipe(m):
        m.manual_seed(5)
        bl = m.nn.Bilinear(3, 2, 4)
        nb = m.nn.Bilinear(1, 1, 1, bias=False)
        y = bl(m.ones(2, 3), m.ones(2, 2))
        return bl.weight, bl.bias, repr(bl), repr(nb), nb.bias, y.shape, y.grad_fn.name()
    check(recipe)
    strided.manual_seed(5)
    torch.manual_seed(5)
    s, t = strided.nn.Bilinear(3, 2, 4), torch.nn.Bilinear(3, 2, 4)
    x1s, x2s = strided.linspace(-1, 1, 6).reshape(2, 3), strided.linspace(0, 2, 4).reshape(2, 2)
    x1t, x2t = torch.linspace(-1, 1, 6).reshape(2, 3), torch.linspace(0, 2, 4).reshape(2, 2)
    np.testing.assert_allclose(s(x1s, x2s).detach().numpy(), t(x1t, x2t).detach().numpy(),
                               rtol=1e-5, atol=1e-6)


def test_lazy_linear():
    def recipe(m):
        m.manual_seed(7)
        lazy = m.nn.LazyLinear(3)
        before = (repr(lazy), repr(lazy.weight), repr(lazy.bias), type(lazy).__name__,
                  lazy.has_uninitialized_params(), list(lazy.state_dict()))
        y = lazy(m.ones(2, 5))
        after = (repr(lazy), type(lazy).__name__, lazy.weight, lazy.bias, y.shape,
                 type(lazy.weight).__name__, lazy.in_features,
                 hasattr(lazy, "_initialize_hook"), len(lazy._forward_pre_hooks),
                 len(lazy._load_state_dict_pre_hooks))
        nobias = m.nn.LazyLinear(2, bias=False)
        nobias(m.ones(1, 3))
        return before, after, repr(nobias), nobias.bias
    check(recipe)


def test_lazy_linear_loads_state_dict():
    def recipe(m):
        m.manual_seed(1)
        src = m.nn.Linear(4, 2)
        lazy = m.nn.LazyLinear(2)
        res = lazy.load_state_dict(src.state_dict())
        return (repr(res), type(lazy).__name__, lazy.weight, lazy.has_uninitialized_params(),
                lazy.in_features)
    check(recipe)


def test_lazy_linear_needs_initialize():
    def recipe(m):
        class Half(m.nn.modules.lazy.LazyModuleMixin, m.nn.Linear):
            cls_to_become = m.nn.Linear

            def __init__(self):
                super().__init__(0, 0, False)
                self.weight = m.nn.UninitializedParameter()

            def initialize_parameters(self, x):
                pass
        return Half()(m.ones(1))
    check(recipe)

    def missing(m):
        class NoInit(m.nn.modules.lazy.LazyModuleMixin, m.nn.Module):
            def forward(self, x):
                return x
        return NoInit()(m.ones(1))
    check(missing)


def test_identity_flatten_unflatten():
    def recipe(m):
        x = m.arange(24.0).reshape(2, 3, 4)
        return (m.nn.Identity(54, unused="x")(x) is x, repr(m.nn.Identity()),
                m.nn.Flatten()(x), m.nn.Flatten(0, 1)(x), repr(m.nn.Flatten(0, -2)),
                m.nn.Unflatten(2, (2, 2))(x), m.nn.Unflatten(-1, [2, -1])(x),
                repr(m.nn.Unflatten(1, (3, 1))), repr(m.nn.Unflatten(1, [3, 1])))
    check(recipe)
    check(lambda m: m.nn.Unflatten(1, (2, 2.0)))
    check(lambda m: m.nn.Unflatten(1, 4))
    check(lambda m: m.nn.Flatten(1, 5)(m.ones(2, 3)))


def test_flatten_is_a_view_with_grad():
    def recipe(m):
        x = m.ones(2, 3, 4, requires_grad=True)
        y = m.nn.Flatten()(x)
        return y._base is x, y.grad_fn.name(), y.shape
    check(recipe)


def test_modules_repr_in_sequential():
    def recipe(m):
        m.manual_seed(0)
        return repr(m.nn.Sequential(m.nn.Linear(2, 3), m.nn.Flatten(), m.nn.Bilinear(1, 2, 3),
                                    m.nn.Unflatten(1, (1, 3)), m.nn.Identity(),
                                    m.nn.LazyLinear(4)))
    check(recipe)


def test_linear_parameters_match_torch_for_many_seeds():
    for seed in range(3):
        strided.manual_seed(seed)
        torch.manual_seed(seed)
        s, t = strided.nn.Linear(6, 5), torch.nn.Linear(6, 5)
        assert_same(s.weight, t.weight)
        assert_same(s.bias, t.bias)
