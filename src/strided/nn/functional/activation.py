"""torch.nn.functional's activations: generated bindings (``python_module: nn`` in the
operator YAML) or small wrappers over them that take ``inplace=``."""

from __future__ import annotations

from ...ops._generated import nn_functions as _generated

__all__ = ["elu", "elu_", "gelu", "hardtanh", "hardtanh_", "leaky_relu", "leaky_relu_", "mish",
           "relu", "relu_", "sigmoid", "silu", "softplus", "tanh"]


# -- activations (issue 4, elementwise ops) -----------------------------------------------------
# torch.nn.functional binds gelu and softplus straight to torch._C._nn; the others are Python
# wrappers taking ``inplace=``, as here.

from ...ops._generated import torch_functions as _torch_functions  # noqa: E402
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
