"""torch.nn.functional: max/avg/adaptive/lp/fractional pooling and max_unpool.

The Python layer of torch's pooling functions: argument normalisation (``stride=None``
means the kernel size, ``output_size`` entries of None keep the input's size, unpool output
sizes), the ``return_indices`` switch (torch's ``boolean_dispatch``: the flag is read by
keyword or from its fixed position), the random samples of fractional max pooling (drawn
with ``rand`` from the default generator exactly as torch draws them), and LP pooling as
torch composes it from avg_pool / max_pool. The work is done by the aten ops of
``ops/native_functions/nn_pooling.yaml``.
"""

from __future__ import annotations

import strided as _s

from ...frontend.functional import _boolean_dispatch
from ...ops._generated import nn_functions as _nn
from ..modules.utils import _list_with_default, _pair, _single, _triple

__all__ = [
    "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d",
    "adaptive_max_pool1d", "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d",
    "adaptive_max_pool2d_with_indices", "adaptive_max_pool3d",
    "adaptive_max_pool3d_with_indices", "avg_pool1d", "avg_pool2d", "avg_pool3d",
    "fractional_max_pool2d", "fractional_max_pool2d_with_indices", "fractional_max_pool3d",
    "fractional_max_pool3d_with_indices", "lp_pool1d", "lp_pool2d", "lp_pool3d",
    "max_pool1d", "max_pool1d_with_indices", "max_pool2d", "max_pool2d_with_indices",
    "max_pool3d", "max_pool3d_with_indices", "max_unpool1d", "max_unpool2d", "max_unpool3d",
]

avg_pool1d = _s.avg_pool1d
avg_pool2d = _nn.avg_pool2d
avg_pool3d = _nn.avg_pool3d
adaptive_avg_pool1d = _s.adaptive_avg_pool1d




# -- max pooling ---------------------------------------------------------------------------------

def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
    return_indices=False)

    1-d max pooling over the last dim of a (N, C, L) or (C, L) input; with
    ``return_indices`` also the position of each maximum in its row."""
    if stride is None:
        stride = []
    return _s.max_pool1d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)


def _max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                return_indices=False):
    if stride is None:
        stride = []
    return _s.max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode)


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
    return_indices=False)

    2-d max pooling over (N, C, H, W) or (C, H, W); indices are flat within each plane."""
    if stride is None:
        stride = []
    return _nn.max_pool2d_with_indices(input, kernel_size, stride, padding, dilation,
                                       ceil_mode)


def _max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                return_indices=False):
    if stride is None:
        stride = []
    return _s.max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode)


def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
    return_indices=False)

    3-d max pooling over (N, C, D, H, W) or (C, D, H, W)."""
    if stride is None:
        stride = []
    return _nn.max_pool3d_with_indices(input, kernel_size, stride, padding, dilation,
                                       ceil_mode)


def _max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                return_indices=False):
    if stride is None:
        stride = []
    return _s.max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode)


max_pool1d = _boolean_dispatch("return_indices", 6, False, max_pool1d_with_indices,
                               _max_pool1d, "max_pool1d")
max_pool2d = _boolean_dispatch("return_indices", 6, False, max_pool2d_with_indices,
                               _max_pool2d, "max_pool2d")
max_pool3d = _boolean_dispatch("return_indices", 6, False, max_pool3d_with_indices,
                               _max_pool3d, "max_pool3d")


# -- max_unpool ----------------------------------------------------------------------------------

def _unpool_output_size(input, kernel_size, stride, padding, output_size):
    input_size = input.size()
    n = len(kernel_size)
    default = [(input_size[-n + d] - 1) * stride[d] + kernel_size[d] - 2 * padding[d]
               for d in range(n)]
    if output_size is None:
        ret = default
    else:
        if len(output_size) == n + 2:
            output_size = output_size[2:]
        if len(output_size) != n:
            raise ValueError(
                f"output_size should be a sequence containing {n} or {n + 2} elements, but "
                f"it has a length of '{len(output_size)}'")
        for d in range(n):
            lo, hi = default[d] - stride[d], default[d] + stride[d]
            if not (lo < output_size[d] < hi):
                raise ValueError(
                    f'invalid output_size "{output_size}" (dim {d} must be between {lo} and '
                    f'{hi})')
        ret = output_size
    for d in range(n):
        if ret[d] < 0:
            raise ValueError(
                "max_unpooling: output_size must contain non-negative spatial dimensions, "
                f"but got output_size[{d}]={ret[d]}")
    return ret


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The partial inverse of max_pool1d: each value goes back to its recorded index, the
    rest is zero."""
    kernel_size = _single(kernel_size)
    stride = _single(stride) if stride is not None else kernel_size
    padding = _single(padding)
    output_size = _unpool_output_size(input, kernel_size, stride, padding, output_size)
    output_size = (list(output_size) + [1] if isinstance(output_size, list)
                   else tuple(output_size) + (1,))
    return _nn.max_unpool2d(input.unsqueeze(-1), indices.unsqueeze(-1),
                            output_size).squeeze(-1)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The partial inverse of max_pool2d."""
    kernel_size = _pair(kernel_size)
    stride = _pair(stride) if stride is not None else kernel_size
    padding = _pair(padding)
    output_size = _unpool_output_size(input, kernel_size, stride, padding, output_size)
    return _nn.max_unpool2d(input, indices, output_size)


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The partial inverse of max_pool3d."""
    kernel_size = _triple(kernel_size)
    stride = _triple(stride) if stride is not None else kernel_size
    padding = _triple(padding)
    output_size = _unpool_output_size(input, kernel_size, stride, padding, output_size)
    return _nn.max_unpool3d(input, indices, output_size, stride, padding)


# -- LP pooling ----------------------------------------------------------------------------------

def _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, avg, maxp, count):
    if isinstance(norm_type, (int, float)):
        if norm_type == float("inf"):
            return maxp(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
        if norm_type == -float("inf"):
            return -maxp(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    if stride is not None:
        out = avg(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = avg(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    return (_s.sign(out) * _s.relu(_s.abs(out))).mul(count).pow(1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """Power-average pooling: (sum over the window of x**p) ** (1/p)."""
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, avg_pool1d, max_pool1d,
                    kernel_size)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """Power-average pooling over 2 dims."""
    kw, kh = _pair(kernel_size)
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, avg_pool2d, max_pool2d,
                    kw * kh)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """Power-average pooling over 3 dims."""
    kd, kw, kh = _triple(kernel_size)
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, avg_pool3d, max_pool3d,
                    kd * kw * kh)


# -- adaptive pooling ----------------------------------------------------------------------------

def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    """adaptive_max_pool1d(input, output_size, return_indices=False)"""
    return _s.adaptive_max_pool1d(input, output_size)


def _adaptive_max_pool1d(input, output_size, return_indices=False):
    return adaptive_max_pool1d_with_indices(input, output_size)[0]


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    """adaptive_max_pool2d(input, output_size, return_indices=False)"""
    output_size = _list_with_default(output_size, input.size())
    return _nn.adaptive_max_pool2d(input, output_size)


def _adaptive_max_pool2d(input, output_size, return_indices=False):
    return adaptive_max_pool2d_with_indices(input, output_size)[0]


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):
    """adaptive_max_pool3d(input, output_size, return_indices=False)"""
    output_size = _list_with_default(output_size, input.size())
    return _nn.adaptive_max_pool3d(input, output_size)


def _adaptive_max_pool3d(input, output_size, return_indices=False):
    return adaptive_max_pool3d_with_indices(input, output_size)[0]


adaptive_max_pool1d = _boolean_dispatch("return_indices", 2, False,
                                        adaptive_max_pool1d_with_indices,
                                        _adaptive_max_pool1d, "adaptive_max_pool1d")
adaptive_max_pool2d = _boolean_dispatch("return_indices", 2, False,
                                        adaptive_max_pool2d_with_indices,
                                        _adaptive_max_pool2d, "adaptive_max_pool2d")
adaptive_max_pool3d = _boolean_dispatch("return_indices", 2, False,
                                        adaptive_max_pool3d_with_indices,
                                        _adaptive_max_pool3d, "adaptive_max_pool3d")


def adaptive_avg_pool2d(input, output_size):
    """Average pooling to a fixed (oH, oW) output; None keeps that input size."""
    return _nn.adaptive_avg_pool2d(input, _list_with_default(output_size, input.size()))


def adaptive_avg_pool3d(input, output_size):
    """Average pooling to a fixed (oD, oH, oW) output; None keeps that input size."""
    return _nn.adaptive_avg_pool3d(input, _list_with_default(output_size, input.size()))


# -- fractional max pooling ----------------------------------------------------------------------

def _fractional(input, kernel_size, output_size, output_ratio, _random_samples, nd):
    name = f"fractional_max_pool{nd}d"
    if output_size is None and output_ratio is None:
        raise ValueError(f"{name} requires specifying either an output_size or an output_ratio")
    if output_size is None:
        if nd == 2 and len(output_ratio) > 2:
            raise ValueError(f"{name} requires output_ratio to either be a single Int or tuple "
                             "of Ints.")
        ratio = _pair(output_ratio) if nd == 2 else _triple(output_ratio)
        output_size = [int(input.size(-nd + i) * ratio[i]) for i in range(nd)]
    if _random_samples is None:
        n_batch = 1 if input.dim() == nd + 1 else input.size(0)
        _random_samples = _s.rand(n_batch, input.size(-nd - 1), nd, dtype=input.dtype,
                                  device=input.device)
    fn = _nn.fractional_max_pool2d if nd == 2 else _nn.fractional_max_pool3d
    return fn(input, kernel_size, output_size, _random_samples)


def fractional_max_pool2d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    """fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None,
    return_indices=False, _random_samples=None)

    Max pooling over windows whose starts are drawn at random (Graham's fractional max
    pooling); the samples come from the default generator as torch draws them."""
    return _fractional(input, kernel_size, output_size, output_ratio, _random_samples, 2)


def _fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None,
                           return_indices=False, _random_samples=None):
    return fractional_max_pool2d_with_indices(input, kernel_size, output_size, output_ratio,
                                              return_indices, _random_samples)[0]


def fractional_max_pool3d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    """fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None,
    return_indices=False, _random_samples=None)"""
    return _fractional(input, kernel_size, output_size, output_ratio, _random_samples, 3)


def _fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None,
                           return_indices=False, _random_samples=None):
    return fractional_max_pool3d_with_indices(input, kernel_size, output_size, output_ratio,
                                              return_indices, _random_samples)[0]


fractional_max_pool2d = _boolean_dispatch("return_indices", 4, False,
                                          fractional_max_pool2d_with_indices,
                                          _fractional_max_pool2d, "fractional_max_pool2d")
fractional_max_pool3d = _boolean_dispatch("return_indices", 4, False,
                                          fractional_max_pool3d_with_indices,
                                          _fractional_max_pool3d, "fractional_max_pool3d")
