"""torch.nn.utils.memory_format: convolution weights to another memory format."""

from __future__ import annotations

__all__ = ["convert_conv2d_weight_memory_format", "convert_conv3d_weight_memory_format"]


def _convert(module, memory_format, names):
    from .. import modules as _m
    classes = tuple(getattr(_m, n) for n in names if hasattr(_m, n))
    if classes and isinstance(module, classes):
        data = module.weight.detach().clone(memory_format=memory_format)
        module.weight.data = data.resize_(data.size(), memory_format=memory_format)
    for child in module.children():
        _convert(child, memory_format, names)
    return module


def convert_conv2d_weight_memory_format(module, memory_format):
    """Give every Conv2d / ConvTranspose2d weight under ``module`` ``memory_format``
    (e.g. ``channels_last``), in place; returns ``module``."""
    return _convert(module, memory_format, ("Conv2d", "ConvTranspose2d"))


def convert_conv3d_weight_memory_format(module, memory_format):
    """The same for Conv3d / ConvTranspose3d weights."""
    return _convert(module, memory_format, ("Conv3d", "ConvTranspose3d"))
