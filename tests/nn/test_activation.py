"""torch.nn's activations against torch: values, gradients, grad_fn names, in-place forms,
errors, meta shapes, bit-exact rrelu noise after the same seed, module reprs and init."""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import pytest
import torch
from conftest import assert_same, check

import strided

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "autograd"))


def _x(m, shape=(5, 4), dtype="float64", scale=3.0, seed=0):
    g = torch.Generator().manual_seed(seed)
    data = (torch.randn(*shape, generator=g, dtype=torch.float64) * scale).tolist()
    return m.tensor(data, dtype=getattr(m, dtype), requires_grad=True)


# name -> (function of (module, x), exact values)
CASES = {
    "hardswish": (lambda m, x: m.nn.functional.hardswish(x), True),
    "hardsigmoid": (lambda m, x: m.nn.functional.hardsigmoid(x), True),
    "hardshrink": (lambda m, x: m.nn.functional.hardshrink(x, 0.7), True),
    "softshrink": (lambda m, x: m.nn.functional.softshrink(x, 0.7), True),
    "threshold": (lambda m, x: m.nn.functional.threshold(x, 0.2, -2.0), True),
    "relu6": (lambda m, x: m.nn.functional.relu6(x), True),
    "relu": (lambda m, x: m.nn.functional.relu(x), True),
    "hardtanh": (lambda m, x: m.nn.functional.hardtanh(x, -0.5, 2.0), True),
    "leaky_relu": (lambda m, x: m.nn.functional.leaky_relu(x, 0.2), True),
    "prelu": (lambda m, x: m.nn.functional.prelu(x, m.tensor([0.1, -0.2, 0.3, 0.4],
                                                             dtype=m.float64)), True),
    "rrelu_eval": (lambda m, x: m.nn.functional.rrelu(x, 0.1, 0.3), True),
    "selu": (lambda m, x: m.nn.functional.selu(x), False),
    "celu": (lambda m, x: m.nn.functional.celu(x, 0.7), False),
    "elu": (lambda m, x: m.nn.functional.elu(x, 0.7), False),
    "gelu": (lambda m, x: m.nn.functional.gelu(x), False),
    "silu": (lambda m, x: m.nn.functional.silu(x), False),
    "mish": (lambda m, x: m.nn.functional.mish(x), False),
    "softplus": (lambda m, x: m.nn.functional.softplus(x, 2.0, 3.0), False),
    "logsigmoid": (lambda m, x: m.nn.functional.logsigmoid(x), False),
    "glu": (lambda m, x: m.nn.functional.glu(x, 0 if x.dim() == 2 else -1), False),
    "tanhshrink": (lambda m, x: m.nn.functional.tanhshrink(x), False),
    "softsign": (lambda m, x: m.nn.functional.softsign(x), True),
    "sigmoid": (lambda m, x: m.nn.functional.sigmoid(x), False),
    "tanh": (lambda m, x: m.nn.functional.tanh(x), False),
    "softmax": (lambda m, x: m.nn.functional.softmax(x, 1), False),
    "softmin": (lambda m, x: m.nn.functional.softmin(x, 0), False),
    "log_softmax": (lambda m, x: m.nn.functional.log_softmax(x, 1), False),
    "softmax_dtype": (lambda m, x: m.nn.functional.softmax(x.float(), 1, dtype=m.float64),
                      False),
}


def _forward_backward(m, fn, transpose=False):
    x = _x(m)
    inp = x.t() if transpose else x          # non-contiguous input
    y = fn(m, inp)
    (gx,) = m.autograd.grad((y * y).sum(), x)
    return y, gx, y.grad_fn.name()


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("transpose", [False, True])
def test_values_grads_and_nodes(name, transpose):
    fn, exact = CASES[name]
    if transpose and name == "prelu":
        # (values only: the layouts of a transposed input broadcast against the weight
        # are TensorIterator's, not this area's)
        def recipe(m):
            y, gx, name = _forward_backward(m, lambda m, x: m.nn.functional.prelu(
                x, m.tensor([0.1, -0.2, 0.3, 0.4, 0.5], dtype=m.float64)), True)
            return y.contiguous(), gx.contiguous(), name
        check(recipe)
    else:
        check(lambda m: _forward_backward(m, fn, transpose), exact=exact)


INPLACE = {
    "threshold": lambda m, x: m.nn.functional.threshold(x, 0.2, -2.0, inplace=True),
    "relu6": lambda m, x: m.nn.functional.relu6(x, inplace=True),
    "hardswish": lambda m, x: m.nn.functional.hardswish(x, inplace=True),
    "hardsigmoid": lambda m, x: m.nn.functional.hardsigmoid(x, inplace=True),
    "selu": lambda m, x: m.nn.functional.selu(x, inplace=True),
    "celu": lambda m, x: m.nn.functional.celu(x, 0.5, inplace=True),
    "rrelu_eval": lambda m, x: m.nn.functional.rrelu(x, inplace=True),
    "rrelu_": lambda m, x: m.nn.functional.rrelu_(x),
    "threshold_": lambda m, x: m.nn.functional.threshold_(x, 0.1, 5.0),
    "celu_": lambda m, x: m.nn.functional.celu_(x),
    "selu_": lambda m, x: m.nn.functional.selu_(x),
}


@pytest.mark.parametrize("name", sorted(INPLACE))
def test_inplace_forms(name):
    def recipe(m):
        x = _x(m)
        y = x * 1
        out = INPLACE[name](m, y)
        assert out is y
        (gx,) = m.autograd.grad(out.sum(), x)
        return out, gx, out.grad_fn.name()
    check(recipe, exact=name not in ("selu", "celu", "celu_", "selu_"))


@pytest.mark.parametrize("dtype", ["float64", "float32", "bfloat16"])
@pytest.mark.parametrize("inplace", [False, True])
def test_rrelu_training_noise_is_torchs(dtype, inplace):
    def recipe(m):
        m.manual_seed(7)
        x = _x(m, (6, 7), dtype)
        y = x * 1
        out = m.nn.functional.rrelu(y, 0.05, 0.4, training=True, inplace=inplace)
        (gx,) = m.autograd.grad(out.sum(), x)
        return out, gx, out.grad_fn.name(), m.rand(3)   # the generator moved as torch's
    check(recipe)


def test_rrelu_with_noise_writes_noise():
    def recipe(m):
        m.manual_seed(3)
        x = _x(m).detach()
        noise = m.empty_like(x)
        out = m.rrelu(x, training=True) if m is torch else m.rrelu(x, training=True)
        m.manual_seed(3)
        out2 = m._C._nn.rrelu_with_noise(x, noise, 0.125, 1 / 3, True) if m is torch else \
            m.nn.functional.rrelu_with_noise(x, noise, 0.125, 1 / 3, True)
        return out, out2, noise
    check(recipe)


def test_prelu_module_and_grads():
    def recipe(m):
        m.manual_seed(0)
        layer = m.nn.PReLU(3, init=0.1)
        x = _x(m, (2, 3, 4), "float32")
        y = layer(x)
        y.pow(2).sum().backward()
        return y, x.grad, layer.weight.grad, layer.weight, y.grad_fn.name(), repr(layer)
    check(recipe, exact=False)


def test_prelu_double_backward():
    from grad_harness import check_grads
    check_grads(lambda m, x, w: m.nn.functional.prelu(x, w), [(2, 3, 4), (3,)])


def test_log_sigmoid_forward_buffer():
    def recipe(m):
        x = _x(m).detach()
        return m.ops.aten.log_sigmoid_forward(x)
    check(recipe, exact=False)


def test_double_backward_of_activations():
    from grad_harness import check_grads
    for fn in (lambda m, x: m.nn.functional.logsigmoid(x),
               lambda m, x: m.nn.functional.glu(x, 1),
               lambda m, x: m.nn.functional.hardswish(x * 2),
               lambda m, x: m.nn.functional.celu(x, 0.7)):
        check_grads(fn, [(3, 4)])


ERRORS = [
    lambda m: m.nn.functional.softshrink(m.ones(3), -1.0),
    lambda m: m.nn.functional.softshrink(m.ones(3, dtype=m.float64), -0.5),
    lambda m: m.nn.functional.hardswish(m.ones(3, dtype=m.long)),
    lambda m: m.nn.functional.hardsigmoid(m.ones(3, dtype=m.long)),
    lambda m: m.nn.functional.hardshrink(m.ones(3, dtype=m.long)),
    lambda m: m.nn.functional.logsigmoid(m.ones(3, dtype=m.long)),
    lambda m: m.nn.functional.glu(m.ones(3, 5), 1),
    lambda m: m.nn.functional.glu(m.tensor(1.0)),
    lambda m: m.nn.functional.glu(m.ones(3, dtype=m.long).reshape(1, 3).expand(2, 3)),
    lambda m: m.nn.functional.celu(m.ones(3), 0.0),
    lambda m: m.nn.functional.selu(m.ones(3, dtype=m.long)),
    lambda m: m.nn.functional.rrelu(m.ones(3), 0.5, 0.1),
    lambda m: m.nn.functional.threshold(m.tensor([True]), 0, 1),
    lambda m: m.nn.functional.prelu(m.ones(2, 3), m.ones(4)),
    lambda m: m.nn.functional.prelu(m.ones(2, 3), m.ones(3, dtype=m.float64)),
    lambda m: m.nn.functional.prelu(m.ones(2, 3), m.ones(1, 3)),
    lambda m: m.nn.functional.prelu(m.tensor(1.0), m.ones(3)),
    lambda m: m.nn.functional.hardtanh(m.ones(3), 2.0, 1.0),
    lambda m: m.nn.Hardtanh(1.0, 1.0),
    lambda m: m.nn.Softmax2d()(m.ones(3, 4)),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors(i):
    check(ERRORS[i])


def test_integer_threshold_and_meta():
    check(lambda m: m.threshold(m.tensor([1, 2, 3]), 1, 0))
    check(lambda m: m.nn.functional.hardswish(m.empty(2, 3, device="meta")))
    check(lambda m: m.nn.functional.glu(m.empty(2, 6, device="meta")))
    check(lambda m: m._prelu_kernel(m.empty(2, 3, device="meta"), m.empty(1, 3, device="meta")))
    check(lambda m: m.nn.functional.hardshrink(m.ones(3, dtype=m.float16) * 0.6))


def test_softmax_implicit_dim_warning():
    def recipe(m):
        return m.nn.functional.softmax(m.ones(2, 3)), m.nn.functional.log_softmax(m.ones(3)), \
            m.nn.functional.softmin(m.ones(2, 3, 4))
    check(recipe, exact=False)
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmax"):
        strided.nn.functional.softmax(strided.ones(2, 3))


MODULES = [
    lambda m: m.nn.Threshold(0.1, 20.0, True), lambda m: m.nn.ReLU(True),
    lambda m: m.nn.RReLU(0.1, 0.3), lambda m: m.nn.Hardtanh(-2, 2, True),
    lambda m: m.nn.ReLU6(), lambda m: m.nn.Sigmoid(), lambda m: m.nn.Hardsigmoid(True),
    lambda m: m.nn.Tanh(), lambda m: m.nn.SiLU(True), lambda m: m.nn.Mish(),
    lambda m: m.nn.Hardswish(True), lambda m: m.nn.ELU(0.5, True), lambda m: m.nn.CELU(2.0),
    lambda m: m.nn.SELU(True), lambda m: m.nn.GLU(1), lambda m: m.nn.GELU("tanh"),
    lambda m: m.nn.Hardshrink(0.3), lambda m: m.nn.LeakyReLU(0.2, True),
    lambda m: m.nn.LogSigmoid(), lambda m: m.nn.Softplus(2, 10), lambda m: m.nn.Softshrink(),
    lambda m: m.nn.PReLU(4, dtype=m.float64), lambda m: m.nn.Softsign(),
    lambda m: m.nn.Tanhshrink(),
    lambda m: m.nn.Softmin(1), lambda m: m.nn.Softmax(dim=-1), lambda m: m.nn.Softmax2d(),
    lambda m: m.nn.LogSoftmax(1),
]


@pytest.mark.parametrize("i", range(len(MODULES)))
def test_modules(i):
    def recipe(m):
        m.manual_seed(1)
        layer = MODULES[i](m)
        layer.eval()
        x = _x(m, (2, 4, 2, 2), "float64", seed=i)
        y = layer(x * 1)
        (gx,) = m.autograd.grad((y * y).sum(), x)
        return repr(layer), y, gx, [p.detach() for p in layer.parameters()]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(recipe, exact=False)


def test_rrelu_module_train_bit_exact():
    def recipe(m):
        m.manual_seed(11)
        layer = m.nn.RReLU()
        return layer(_x(m, (4, 5), "float32"))
    rs, rt = check(recipe)
    assert_same(rs, rt)
