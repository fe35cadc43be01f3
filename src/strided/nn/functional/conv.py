"""torch.nn.functional: conv1d/2d/3d, conv_transpose1d/2d/3d, fold, unfold.

The convolutions are torch's aten bindings themselves (``F.conv2d is torch.conv2d``);
fold/unfold are small Python wrappers over ``im2col``/``col2im``, as torch's are.
"""

from __future__ import annotations

from ...ops._generated import nn_functions as _generated
from ...ops._generated.torch_functions import (
    conv1d,
    conv2d,
    conv3d,
    conv_transpose1d,
    conv_transpose2d,
    conv_transpose3d,
)
from ..modules.utils import _pair

__all__ = ["conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
           "conv_transpose3d", "fold", "unfold"]


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """Sliding local blocks of a batched image as columns (im2col):
    ``(N, C, H, W) -> (N, C * prod(kernel_size), L)``."""
    return _generated.im2col(input, _pair(kernel_size), _pair(dilation), _pair(padding),
                             _pair(stride))


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """The adjoint of ``unfold`` (col2im): columns summed back into an image of
    ``output_size``; overlapping blocks add up."""
    return _generated.col2im(input, _pair(output_size), _pair(kernel_size), _pair(dilation),
                             _pair(padding), _pair(stride))
