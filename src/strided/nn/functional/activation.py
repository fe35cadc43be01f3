"""torch.nn.functional's activations: generated bindings (``python_module: nn`` in the
operator YAML) or small wrappers over them that take ``inplace=`` (as torch's Python
layer has them)."""

from __future__ import annotations

import warnings

from ...ops._generated import nn_functions as _generated
from ...ops._generated import torch_functions as _torch_functions

__all__ = ["celu", "celu_", "elu", "elu_", "gelu", "glu", "hardshrink", "hardsigmoid",
           "hardswish", "hardtanh", "hardtanh_", "leaky_relu", "leaky_relu_", "log_softmax",
           "logsigmoid", "mish", "prelu", "relu", "relu6", "relu_", "rrelu", "rrelu_", "selu",
           "selu_", "sigmoid", "silu", "softmax", "softmin", "softplus", "softshrink",
           "softsign", "tanh", "tanhshrink", "threshold", "threshold_"]


# -- activations (issue 4, elementwise ops) -----------------------------------------------------
# torch.nn.functional binds gelu and softplus straight to torch._C._nn; the others are Python
# wrappers taking ``inplace=``, as here.

from ...ops._generated.nn_functions import (  # noqa: E402, F401
    elu_,
    gelu,
    hardtanh_,
    leaky_relu_,
    softplus,
)

relu_ = _torch_functions.relu_


def relu(input, inplace: bool = False):
    """max(input, 0); ``inplace=True`` writes into ``input``."""
    return _torch_functions.relu_(input) if inplace else _torch_functions.relu(input)


def silu(input, inplace: bool = False):
    """input * sigmoid(input)."""
    return _generated.silu_(input) if inplace else _generated.silu(input)


def mish(input, inplace: bool = False):
    """input * tanh(softplus(input))."""
    return _generated.mish_(input) if inplace else _generated.mish(input)


def elu(input, alpha: float = 1.0, inplace: bool = False):
    """input if input > 0 else alpha * (exp(input) - 1)."""
    return _generated.elu_(input, alpha) if inplace else _generated.elu(input, alpha)


def leaky_relu(input, negative_slope: float = 0.01, inplace: bool = False):
    """input if input > 0 else negative_slope * input."""
    if inplace:
        return _generated.leaky_relu_(input, negative_slope)
    return _generated.leaky_relu(input, negative_slope)


def hardtanh(input, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False):
    """input clamped to [min_val, max_val]."""
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    if inplace:
        return _generated.hardtanh_(input, min_val, max_val)
    return _generated.hardtanh(input, min_val, max_val)


def sigmoid(input):
    """1 / (1 + exp(-input))."""
    return input.sigmoid()


def tanh(input):
    return input.tanh()


# -- the rest of torch.nn's activations (kernels/nn/activation.py) -------------------------------

threshold_ = _torch_functions.threshold_
selu_ = _torch_functions.selu_
celu_ = _torch_functions.celu_
rrelu_ = _torch_functions.rrelu_
hardshrink = _torch_functions.hardshrink
logsigmoid = _generated.log_sigmoid
softshrink = _generated.softshrink


def threshold(input, threshold: float, value: float, inplace: bool = False):
    """``value`` where ``input <= threshold``, else ``input``."""
    if inplace:
        return _torch_functions.threshold_(input, threshold, value)
    return _torch_functions.threshold(input, threshold, value)


def relu6(input, inplace: bool = False):
    """min(max(input, 0), 6) (aten ``relu6``, a ``hardtanh(0, 6)``)."""
    return _generated.relu6_(input) if inplace else _generated.relu6(input)


def selu(input, inplace: bool = False):
    """scale * elu(input, alpha) with the self-normalising constants."""
    return _torch_functions.selu_(input) if inplace else _torch_functions.selu(input)


def celu(input, alpha: float = 1.0, inplace: bool = False):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1))."""
    if inplace:
        return _torch_functions.celu_(input, alpha)
    return _torch_functions.celu(input, alpha)


def prelu(input, weight):
    """input if input > 0 else weight * input, ``weight`` along dim 1."""
    return _torch_functions.prelu(input, weight)


def rrelu(input, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
          inplace: bool = False):
    """Leaky ReLU with a random slope in [lower, upper] per element while training (drawn
    from the default generator as torch draws it), the mean slope otherwise."""
    if inplace:
        return _torch_functions.rrelu_(input, lower, upper, training)
    return _torch_functions.rrelu(input, lower, upper, training)


def glu(input, dim: int = -1):
    """a * sigmoid(b), where a and b are the two halves of ``input`` along ``dim``."""
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    return _generated.glu(input, dim)


def hardswish(input, inplace: bool = False):
    """x * relu6(x + 3) / 6."""
    return _generated.hardswish_(input) if inplace else _generated.hardswish(input)


def hardsigmoid(input, inplace: bool = False):
    """relu6(x + 3) / 6."""
    return _generated.hardsigmoid_(input) if inplace else _generated.hardsigmoid(input)


def tanhshrink(input):
    """input - tanh(input)."""
    return input - input.tanh()


def softsign(input):
    """input / (1 + |input|)."""
    return input / (input.abs() + 1)


# -- softmax family: Tensor.softmax / log_softmax underneath ------------------------------------

def _get_softmax_dim(name: str, ndim: int, stacklevel: int) -> int:
    """The dim torch picks when none is given (0 for 0-, 1- and 3-d inputs, else 1), with
    its deprecation warning."""
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call "
                  "to include dim=X as an argument.", stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel: int = 3, dtype=None):
    """exp(x) / sum(exp(x)) along ``dim``; ``dtype`` converts the input first."""
    if dim is None:
        dim = _get_softmax_dim("softmax", input.dim(), _stacklevel)
    return input.softmax(dim) if dtype is None else input.softmax(dim, dtype=dtype)


def softmin(input, dim=None, _stacklevel: int = 3, dtype=None):
    """softmax(-input)."""
    if dim is None:
        dim = _get_softmax_dim("softmin", input.dim(), _stacklevel)
    return (-input).softmax(dim) if dtype is None else (-input).softmax(dim, dtype=dtype)


def log_softmax(input, dim=None, _stacklevel: int = 3, dtype=None):
    """log(softmax(x)) along ``dim``, computed stably."""
    if dim is None:
        dim = _get_softmax_dim("log_softmax", input.dim(), _stacklevel)
    return input.log_softmax(dim) if dtype is None else input.log_softmax(dim, dtype=dtype)
