"""Helpers of the pooling backward formulas (autograd/derivatives/nn_pooling.yaml).

The forward ops of pooling live in ``strided.nn.functional`` (python_module: nn) and the
backward ops have no Python binding at all (torch binds no ``*_backward``), so the
formulas do not see them by name; these thin wrappers call them through the generated
bindings or ``strided.ops.aten``, so the backward runs as dispatched ops (and records
its own graph under ``create_graph=True``). ``max_pool_double_backward`` is torch's: the
gradient of a scatter through pooling indices is a gather through the same indices.
"""

from __future__ import annotations

__all__ = [
    "max_pool_double_backward", "pool_adaptive_avg_pool", "pool_adaptive_avg_pool2d_backward",
    "pool_adaptive_avg_pool3d_backward", "pool_adaptive_max_pool2d_backward",
    "pool_adaptive_max_pool3d_backward", "pool_avg_pool2d", "pool_avg_pool2d_backward",
    "pool_avg_pool3d", "pool_avg_pool3d_backward", "pool_fractional_max_pool2d_backward",
    "pool_fractional_max_pool3d_backward", "pool_max_pool2d_with_indices_backward",
    "pool_max_pool3d_with_indices_backward",
]


def _nn():
    from ..ops._generated import nn_functions
    return nn_functions


class _Aten:
    """The backward ops, which have no Python binding (torch binds no ``*_backward``):
    called through ``strided.ops.aten``."""

    def __getattr__(self, name):
        import strided
        return getattr(strided.ops.aten, name)


_aten = _Aten()


def max_pool_double_backward(grad, indices, dim):
    """``grad`` (input-shaped) read at the flat per-plane ``indices``: the gradient of the
    scatter done by a max pool's backward (and of max_unpool)."""
    if indices.numel() == 0:
        return grad.new_empty(indices.shape)
    lead = tuple(indices.shape[:indices.dim() - dim])
    flat = grad.contiguous().reshape(lead + (-1,))
    return flat.gather(-1, indices.reshape(lead + (-1,))).view(indices.shape)


def pool_max_pool2d_with_indices_backward(grad, self, kernel_size, stride, padding, dilation,
                                          ceil_mode, indices):
    return _aten.max_pool2d_with_indices_backward(grad, self, kernel_size, stride, padding,
                                                  dilation, ceil_mode, indices)


def pool_max_pool3d_with_indices_backward(grad, self, kernel_size, stride, padding, dilation,
                                          ceil_mode, indices):
    return _aten.max_pool3d_with_indices_backward(grad, self, kernel_size, stride, padding,
                                                  dilation, ceil_mode, indices)


def pool_avg_pool2d(grad, kernel_size, stride, padding, ceil_mode, count_include_pad,
                    divisor_override):
    return _nn().avg_pool2d(grad, kernel_size, stride, padding, ceil_mode, count_include_pad,
                            divisor_override)


def pool_avg_pool3d(grad, kernel_size, stride, padding, ceil_mode, count_include_pad,
                    divisor_override):
    return _nn().avg_pool3d(grad, kernel_size, stride, padding, ceil_mode, count_include_pad,
                            divisor_override)


def pool_avg_pool2d_backward(grad, self, kernel_size, stride, padding, ceil_mode,
                             count_include_pad, divisor_override):
    return _aten.avg_pool2d_backward(grad, self, kernel_size, stride, padding, ceil_mode,
                                     count_include_pad, divisor_override)


def pool_avg_pool3d_backward(grad, self, kernel_size, stride, padding, ceil_mode,
                             count_include_pad, divisor_override):
    return _aten.avg_pool3d_backward(grad, self, kernel_size, stride, padding, ceil_mode,
                                     count_include_pad, divisor_override)


def pool_adaptive_avg_pool(grad, output_size):
    """``_adaptive_avg_pool2d`` / ``_adaptive_avg_pool3d`` by the length of output_size."""
    import strided
    fn = strided._adaptive_avg_pool2d if len(output_size) == 2 else strided._adaptive_avg_pool3d
    return fn(grad, tuple(output_size))


def pool_adaptive_avg_pool2d_backward(grad, self):
    return _aten._adaptive_avg_pool2d_backward(grad, self)


def pool_adaptive_avg_pool3d_backward(grad, self):
    return _aten._adaptive_avg_pool3d_backward(grad, self)


def pool_adaptive_max_pool2d_backward(grad, self, indices):
    return _aten.adaptive_max_pool2d_backward(grad, self, indices)


def pool_adaptive_max_pool3d_backward(grad, self, indices):
    return _aten.adaptive_max_pool3d_backward(grad, self, indices)


def pool_fractional_max_pool2d_backward(grad, self, kernel_size, output_size, indices):
    return _aten.fractional_max_pool2d_backward(grad, self, kernel_size, output_size, indices)


def pool_fractional_max_pool3d_backward(grad, self, kernel_size, output_size, indices):
    return _aten.fractional_max_pool3d_backward(grad, self, kernel_size, output_size, indices)
