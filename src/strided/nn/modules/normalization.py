"""torch.nn.modules.normalization:
LayerNorm, GroupNorm, LocalResponseNorm, RMSNorm, CrossMapLRN2d.

The affine parameters start as ones (weight) and zeros (bias): ``reset_parameters`` draws
nothing from the generator. ``CrossMapLRN2d`` is torch's legacy Lua-Torch layer: an
``autograd.Function`` with its own forward and backward (kept with their quirks: the
forward's running window never drops channel 0, and the backward is not the exact
derivative of the forward), written here with whole-tensor cumulative sums over the
channels.
"""

from __future__ import annotations

import numbers

from ...autograd.function import Function
from ...ops._generated import torch_functions as _fns
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["CrossMapLRN2d", "GroupNorm", "LayerNorm", "LocalResponseNorm", "RMSNorm"]


def _register_affine(module, affine: bool, bias: bool, shape, factory_kwargs) -> None:
    """The ``weight`` and ``bias`` of a normalization layer (BatchNorm*, InstanceNorm*,
    LayerNorm, GroupNorm): Parameters of ``shape`` when ``affine`` (no bias when ``bias``
    is False), else registered as None, as torch registers them."""
    module.register_parameter(
        "weight", Parameter(_fns.empty(shape, **factory_kwargs)) if affine else None)
    module.register_parameter(
        "bias", Parameter(_fns.empty(shape, **factory_kwargs)) if affine and bias else None)


def _reset_affine(module, affine: bool) -> None:
    """``reset_parameters`` of those affine parameters: weight ones, bias zeros."""
    if affine:
        init.ones_(module.weight)
        if module.bias is not None:
            init.zeros_(module.bias)


class LocalResponseNorm(Module):
    """``LocalResponseNorm(size, alpha=1e-4, beta=0.75, k=1.0)``: each element divided by
    ``(k + alpha * mean of the squares over ``size`` neighbouring channels) ** beta``."""

    __constants__ = ["size", "alpha", "beta", "k"]

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75,
                 k: float = 1.0) -> None:
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input):
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return "{size}, alpha={alpha}, beta={beta}, k={k}".format(**self.__dict__)


class _functions:
    """Namespace of the Function, so that its node is named ``CrossMapLRN2dBackward`` as
    torch's (``torch.nn.modules._functions.CrossMapLRN2d``)."""

    class CrossMapLRN2d(Function):
        @staticmethod
        def forward(ctx, input, size, alpha=1e-4, beta=0.75, k=1):
            ctx.size = size
            ctx.alpha = alpha
            ctx.beta = beta
            ctx.k = k
            if input.dim() != 4:
                raise ValueError(
                    f"CrossMapLRN2d: Expected input to be 4D, got {input.dim()}D instead.")
            import strided
            channels = input.size(1)
            pre_pad = int((size - 1) / 2 + 1)
            csum = input.pow(2).cumsum(1)
            # torch's running window: channels 0..min(c + pre_pad - 1, C - 1), minus
            # 1..c - pre_pad once c > pre_pad (channel 0 is never taken out again)
            upper = strided.tensor([min(c + pre_pad - 1, channels - 1)
                                    for c in range(channels)])
            scale = csum.index_select(1, upper)
            if channels > pre_pad + 1:
                lower = strided.arange(1, channels - pre_pad)
                drop = csum.index_select(1, lower) - csum.narrow(1, 0, 1)
                scale = strided.cat([scale.narrow(1, 0, pre_pad + 1),
                                     scale.narrow(1, pre_pad + 1, channels - pre_pad - 1) -
                                     drop], 1)
            scale = scale.mul(alpha / size).add(k)
            ctx.scale = scale
            output = scale.pow(-beta).mul(input)
            ctx.save_for_backward(input, output)
            return output

        @staticmethod
        def backward(ctx, grad_output):
            import strided
            input, output = ctx.saved_tensors
            size, scale = ctx.size, ctx.scale
            n, channels, h, w = input.shape
            cache_ratio_value = 2 * ctx.alpha * ctx.beta / size
            inverse_pre_pad = int(size - (size - 1) / 2)
            grad_input = scale.pow(-ctx.beta).mul(grad_output)
            ratio = grad_output.mul(output).div(scale)
            # padded[:, inverse_pre_pad + c] = ratio[:, c] over channels + size - 1 slots;
            # accum[c] = padded[:, c:c + size].sum(1), from one cumulative sum
            after = channels + size - 1 - inverse_pre_pad - channels
            parts = [input.new_zeros((n, inverse_pre_pad + 1, h, w)), ratio]
            if after > 0:
                parts.append(input.new_zeros((n, after, h, w)))
            csum = strided.cat(parts, 1).cumsum(1)
            accum = csum.narrow(1, size, channels) - csum.narrow(1, 0, channels)
            grad_input = grad_input - input.mul(accum).mul(cache_ratio_value)
            return grad_input, None, None, None, None


class CrossMapLRN2d(Module):
    """``CrossMapLRN2d(size, alpha=1e-4, beta=0.75, k=1)``: torch's legacy cross-channel
    LRN over a 4D input (see the module docstring)."""

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75,
                 k: float = 1) -> None:
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input):
        return _functions.CrossMapLRN2d.apply(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return "{size}, alpha={alpha}, beta={beta}, k={k}".format(**self.__dict__)


def _shape_tuple(normalized_shape):
    if isinstance(normalized_shape, numbers.Integral):
        normalized_shape = (normalized_shape,)
    return tuple(normalized_shape)


class LayerNorm(Module):
    """``LayerNorm(normalized_shape, eps=1e-5, elementwise_affine=True, bias=True)``:
    normalization over the last ``len(normalized_shape)`` dims."""

    __constants__ = ["normalized_shape", "eps", "elementwise_affine"]

    def __init__(self, normalized_shape, eps: float = 1e-5, elementwise_affine: bool = True,
                 bias: bool = True, device=None, dtype=None) -> None:
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.normalized_shape = _shape_tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        _register_affine(self, elementwise_affine, bias, self.normalized_shape, factory_kwargs)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        _reset_affine(self, self.elementwise_affine)

    def forward(self, input):
        d = self.__dict__["_parameters"]
        if "weight" in d and "bias" in d:
            return F.layer_norm(input, self.normalized_shape, d["weight"], d["bias"], self.eps)
        # a parametrized weight or bias is a property (nn.utils.parametrize)
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return ("{normalized_shape}, eps={eps}, elementwise_affine={elementwise_affine}, "
                "bias={use_bias}".format(**self.__dict__, use_bias=self.bias is not None))


class GroupNorm(Module):
    """``GroupNorm(num_groups, num_channels, eps=1e-5, affine=True, bias=True)``:
    normalization over groups of channels (and the spatial dims) of each sample."""

    __constants__ = ["num_groups", "num_channels", "eps", "affine"]

    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-5,
                 affine: bool = True, device=None, dtype=None, *, bias: bool = True) -> None:
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError(f"num_channels ({num_channels}) must be divisible by num_groups "
                             f"({num_groups})")
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        _register_affine(self, affine, bias, num_channels, factory_kwargs)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        _reset_affine(self, self.affine)

    def forward(self, input):
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return ("{num_groups}, {num_channels}, eps={eps}, affine={affine}, "
                "bias={use_bias}".format(**self.__dict__, use_bias=self.bias is not None))


class RMSNorm(Module):
    """``RMSNorm(normalized_shape, eps=None, elementwise_affine=True)``:
    ``x / sqrt(mean(x^2) + eps) * weight`` over the last dims; ``eps=None`` is the machine
    epsilon of the computation's dtype."""

    __constants__ = ["normalized_shape", "eps", "elementwise_affine"]

    def __init__(self, normalized_shape, eps: float | None = None,
                 elementwise_affine: bool = True, device=None, dtype=None) -> None:
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.normalized_shape = _shape_tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if self.elementwise_affine:
            self.weight = Parameter(_fns.empty(self.normalized_shape, **factory_kwargs))
        else:
            self.register_parameter("weight", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        if self.elementwise_affine:
            init.ones_(self.weight)

    def forward(self, x):
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self) -> str:
        return ("{normalized_shape}, eps={eps}, "
                "elementwise_affine={elementwise_affine}".format(**self.__dict__))
