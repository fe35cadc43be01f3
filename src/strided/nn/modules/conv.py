"""torch.nn.modules.conv: Conv1d/2d/3d, ConvTranspose1d/2d/3d and their Lazy forms.

The layers hold the parameters and the argument bookkeeping; the work is
``F.conv*d`` / ``F.conv_transpose*d`` (aten ``convolution``, kernels/nn/conv.py).
``reset_parameters`` draws what torch draws, in its order: the weight from
``kaiming_uniform_(a=sqrt(5))``, then the bias from U(-1/sqrt(fan_in), 1/sqrt(fan_in)).
"""

from __future__ import annotations

import math

from ...autograd.grad_mode import no_grad
from ...core.layouts import contiguous_format
from ...ops._generated import torch_functions as _tf
from .. import functional as F
from .. import init
from ..parameter import Parameter, UninitializedParameter
from .lazy import LazyModuleMixin
from .module import Module
from .utils import _pair, _reverse_repeat_tuple, _single, _triple

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d",
           "ConvTranspose3d", "LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d",
           "LazyConvTranspose2d", "LazyConvTranspose3d"]


_TUPLES = {1: _single, 2: _pair, 3: _triple}
_PADDING_MODES = {"zeros", "reflect", "replicate", "circular"}


class _ConvNd(Module):
    __constants__ = ["stride", "padding", "dilation", "groups", "padding_mode",
                     "output_padding", "in_channels", "out_channels", "kernel_size"]

    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation,
                 transposed, output_padding, groups, bias, padding_mode, device=None,
                 dtype=None) -> None:
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if isinstance(padding, str):
            if padding not in ("same", "valid"):
                raise ValueError(f"Invalid padding string {padding!r}, should be one of "
                                 f"{ {'same', 'valid'} }")
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        if padding_mode not in _PADDING_MODES:
            raise ValueError(f"padding_mode must be one of {_PADDING_MODES}, but got "
                             f"padding_mode='{padding_mode}'")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.dilation = dilation
        self.transposed = transposed
        self.output_padding = output_padding
        self.groups = groups
        self.padding_mode = padding_mode
        if isinstance(padding, str):
            # F.pad amounts for padding='same' with a non-zeros padding_mode
            pads = [0, 0] * len(kernel_size)
            if padding == "same":
                for i, (d, k) in enumerate(zip(dilation, kernel_size)):
                    total = d * (k - 1)
                    at = 2 * (len(kernel_size) - 1 - i)
                    pads[at] = total // 2
                    pads[at + 1] = total - total // 2
            self._reversed_padding_repeated_twice = pads
        else:
            self._reversed_padding_repeated_twice = _reverse_repeat_tuple(padding, 2)
        if transposed:
            shape = (in_channels, out_channels // groups, *kernel_size)
        else:
            shape = (out_channels, in_channels // groups, *kernel_size)
        self.weight = Parameter(_tf.empty(shape, **factory_kwargs))
        if bias:
            self.bias = Parameter(_tf.empty(out_channels, **factory_kwargs))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        with no_grad():
            if not self.weight.is_contiguous():
                # torch draws into a contiguous scratch tensor then copies, so that a
                # channels-last weight gets the same values per logical index
                scratch = _tf.empty_like(self.weight, memory_format=contiguous_format)
                init.kaiming_uniform_(scratch, a=math.sqrt(5))
                self.weight.copy_(scratch)
            else:
                init.kaiming_uniform_(self.weight, a=math.sqrt(5))
            if self.bias is not None:
                fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
                bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
                init.uniform_(self.bias, -bound, bound)

    def extra_repr(self) -> str:
        s = "{in_channels}, {out_channels}, kernel_size={kernel_size}, stride={stride}"
        if self.padding != (0,) * len(self.padding):
            s += ", padding={padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += ", dilation={dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += ", output_padding={output_padding}"
        if self.groups != 1:
            s += ", groups={groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += ", padding_mode={padding_mode}"
        return s.format(**self.__dict__)

    def __setstate__(self, state):
        super().__setstate__(state)
        if not hasattr(self, "padding_mode"):
            self.padding_mode = "zeros"


class _ConvForward(_ConvNd):
    """Conv1d/2d/3d: ``_conv_forward`` pads with ``F.pad`` for the non-zeros modes."""

    _spatial = 0
    _functional = None

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, bias=True, padding_mode="zeros", device=None,
                 dtype=None) -> None:
        tup = _TUPLES[self._spatial]
        super().__init__(in_channels, out_channels, tup(kernel_size), tup(stride),
                         padding if isinstance(padding, str) else tup(padding), tup(dilation),
                         False, tup(0), groups, bias, padding_mode, device=device, dtype=dtype)

    def _conv_forward(self, input, weight, bias):
        conv = type(self)._functional
        if self.padding_mode != "zeros":
            padded = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            return conv(padded, weight, bias, self.stride, _TUPLES[self._spatial](0),
                        self.dilation, self.groups)
        return conv(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input):
        return self._conv_forward(input, self.weight, self.bias)


# The functionals are the aten bindings themselves (``F.conv2d is torch.conv2d``), taken from
# ``_tf`` because ``nn.functional`` is still loading when ``nn.modules.utils`` (which it
# imports) pulls in this package.
class Conv1d(_ConvForward):
    """1-d convolution over (N, C, L) or (C, L) inputs."""

    _spatial = 1
    _functional = staticmethod(_tf.conv1d)


class Conv2d(_ConvForward):
    """2-d convolution over (N, C, H, W) or (C, H, W) inputs."""

    _spatial = 2
    _functional = staticmethod(_tf.conv2d)


class Conv3d(_ConvForward):
    """3-d convolution over (N, C, D, H, W) or (C, D, H, W) inputs."""

    _spatial = 3
    _functional = staticmethod(_tf.conv3d)


class _ConvTransposeNd(_ConvNd):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation,
                 transposed, output_padding, groups, bias, padding_mode, device=None,
                 dtype=None) -> None:
        if padding_mode != "zeros":
            raise ValueError(
                f'Only "zeros" padding mode is supported for {self.__class__.__name__}')
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         transposed, output_padding, groups, bias, padding_mode, device=device,
                         dtype=dtype)

    def _output_padding(self, input, output_size, stride, padding, kernel_size,
                        num_spatial_dims, dilation=None):
        """The output_padding that makes the result ``output_size`` (given), else the
        layer's own."""
        if output_size is None:
            return _single(self.output_padding)
        batched = input.dim() == num_spatial_dims + 2
        lead = 2 if batched else 1
        output_size = list(output_size)
        if len(output_size) == lead + num_spatial_dims:
            output_size = output_size[lead:]
        if len(output_size) != num_spatial_dims:
            raise ValueError(
                f"ConvTranspose{num_spatial_dims}D: for {input.dim()}D input, output_size "
                f"must have {num_spatial_dims} or {lead + num_spatial_dims} elements (got "
                f"{len(output_size)})")
        smallest, largest = [], []
        for d in range(num_spatial_dims):
            dil = dilation[d] if dilation is not None else 1
            low = ((input.size(d + lead) - 1) * stride[d] - 2 * padding[d] +
                   dil * (kernel_size[d] - 1) + 1)
            smallest.append(low)
            largest.append(low + stride[d] - 1)
        for size, low, high in zip(output_size, smallest, largest):
            if size < low or size > high:
                raise ValueError(
                    f"requested an output size of {output_size}, but valid sizes range from "
                    f"{smallest} to {largest} (for an input of {input.size()[2:]})")
        return [s - low for s, low in zip(output_size, smallest)]


class _ConvTransposeForward(_ConvTransposeNd):
    _spatial = 0
    _functional = None

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, bias=True, dilation=1, padding_mode="zeros",
                 device=None, dtype=None) -> None:
        tup = _TUPLES[self._spatial]
        super().__init__(in_channels, out_channels, tup(kernel_size), tup(stride), tup(padding),
                         tup(dilation), True, tup(output_padding), groups, bias, padding_mode,
                         device=device, dtype=dtype)

    def forward(self, input, output_size=None):
        if self.padding_mode != "zeros":
            raise ValueError(f"Only `zeros` padding mode is supported for "
                             f"{type(self)._torch_name}")
        output_padding = self._output_padding(input, output_size, self.stride, self.padding,
                                              self.kernel_size, self._spatial, self.dilation)
        return type(self)._functional(input, self.weight, self.bias, self.stride, self.padding,
                                      output_padding, self.groups, self.dilation)


class ConvTranspose1d(_ConvTransposeForward):
    """1-d transposed convolution (the gradient of Conv1d with respect to its input)."""

    _spatial = 1
    _torch_name = "ConvTranspose1d"
    _functional = staticmethod(_tf.conv_transpose1d)


class ConvTranspose2d(_ConvTransposeForward):
    """2-d transposed convolution (the gradient of Conv2d with respect to its input)."""

    _spatial = 2
    _torch_name = "ConvTranspose2d"
    _functional = staticmethod(_tf.conv_transpose2d)


class ConvTranspose3d(_ConvTransposeForward):
    """3-d transposed convolution (the gradient of Conv3d with respect to its input)."""

    _spatial = 3
    _torch_name = "ConvTranspose3d"
    _functional = staticmethod(_tf.conv_transpose3d)


# -- the Lazy forms (in_channels read from the first input) ------------------------------------

class _LazyConvXdMixin(LazyModuleMixin):
    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input, *args, **kwargs) -> None:
        if self.has_uninitialized_params():
            self.in_channels = self._get_in_channels(input)
            if self.in_channels % self.groups != 0:
                raise ValueError("in_channels must be divisible by groups")
            if self.transposed:
                shape = (self.in_channels, self.out_channels // self.groups,
                         *self.kernel_size)
            else:
                shape = (self.out_channels, self.in_channels // self.groups,
                         *self.kernel_size)
            self.weight.materialize(shape)
            if self.bias is not None:
                self.bias.materialize((self.out_channels,))
            self.reset_parameters()

    def _get_in_channels(self, input) -> int:
        spatial = self._spatial
        if input.dim() not in (spatial + 1, spatial + 2):
            raise RuntimeError(
                f"Expected {spatial + 1}D (unbatched) or {spatial + 2}D (batched) input "
                f"to {self.__class__.__name__}, but got input of size: {input.shape}")
        return input.shape[1] if input.dim() == spatial + 2 else input.shape[0]

    def _get_num_spatial_dims(self) -> int:
        return self._spatial

def _lazy_conv(base):
    class LazyConv(_LazyConvXdMixin, base):
        cls_to_become = base

        def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                     groups=1, bias=True, padding_mode="zeros", device=None,
                     dtype=None) -> None:
            factory_kwargs = {"device": device, "dtype": dtype}
            # in/out channels 0 and no bias: nothing is drawn until the first input
            super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False,
                             padding_mode, **factory_kwargs)
            self.weight = UninitializedParameter(**factory_kwargs)
            self.out_channels = out_channels
            if bias:
                self.bias = UninitializedParameter(**factory_kwargs)

    LazyConv.__name__ = LazyConv.__qualname__ = "Lazy" + base.__name__
    LazyConv.__doc__ = f"{base.__name__} whose in_channels come from the first input."
    return LazyConv

def _lazy_conv_transpose(base):
    class LazyConvTranspose(_LazyConvXdMixin, base):
        cls_to_become = base

        def __init__(self, out_channels, kernel_size, stride=1, padding=0,
                     output_padding=0, groups=1, bias=True, dilation=1,
                     padding_mode="zeros", device=None, dtype=None) -> None:
            factory_kwargs = {"device": device, "dtype": dtype}
            super().__init__(0, 0, kernel_size, stride, padding, output_padding, groups,
                             False, dilation, padding_mode, **factory_kwargs)
            self.weight = UninitializedParameter(**factory_kwargs)
            self.out_channels = out_channels
            if bias:
                self.bias = UninitializedParameter(**factory_kwargs)

    LazyConvTranspose.__name__ = LazyConvTranspose.__qualname__ = "Lazy" + base.__name__
    LazyConvTranspose.__doc__ = (f"{base.__name__} whose in_channels come from the first "
                                 f"input.")
    return LazyConvTranspose

LazyConv1d = _lazy_conv(Conv1d)
LazyConv2d = _lazy_conv(Conv2d)
LazyConv3d = _lazy_conv(Conv3d)
LazyConvTranspose1d = _lazy_conv_transpose(ConvTranspose1d)
LazyConvTranspose2d = _lazy_conv_transpose(ConvTranspose2d)
LazyConvTranspose3d = _lazy_conv_transpose(ConvTranspose3d)
for _cls in (LazyConv1d, LazyConv2d, LazyConv3d, LazyConvTranspose1d, LazyConvTranspose2d,
             LazyConvTranspose3d):
    _cls.__module__ = __name__
