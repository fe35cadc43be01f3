"""torch.nn.functional:
batch_norm, layer_norm, group_norm, instance_norm, local_response_norm, rms_norm, normalize.

The Python layer of torch's normalization functions: the argument checks torch makes in
Python (more than one value per channel when training, eps ranges, the input rank of
local_response_norm), then the composite aten ops of
``ops/native_functions/nn_normalization.yaml`` (``batch_norm``, ``instance_norm``,
``layer_norm``, ``group_norm``, ``rms_norm``). ``local_response_norm`` and ``normalize``
are compositions of other functions, as in torch.
"""

from __future__ import annotations

import strided as _s

__all__ = [
    "batch_norm", "group_norm", "instance_norm", "layer_norm", "local_response_norm",
    "normalize", "rms_norm",
]


def _verify_batch_size(size) -> None:
    prod = size[0]
    for s in size[2:]:
        prod *= s
    if prod == 1:
        raise ValueError(
            f"Expected more than 1 value per channel when training, got input size {size}")


def _verify_spatial_size(size) -> None:
    prod = 1
    for s in size[2:]:
        prod *= s
    if prod == 1:
        raise ValueError(
            f"Expected more than 1 spatial element when training, got input size {size}")


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    """Batch normalization over dim 1 (see BatchNorm1d/2d/3d)."""
    if training:
        _verify_batch_size(input.size())
    if training and eps <= 0.0:
        raise ValueError(f"batch_norm eps must be positive during training, but got {eps}")
    elif eps < 0.0:
        raise ValueError(f"batch_norm eps must be non-negative, but got {eps}")
    return _s.batch_norm(input, weight, bias, running_mean, running_var, training, momentum,
                         eps, False)


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.1, eps=1e-5):
    """Normalization of each channel of each sample (see InstanceNorm1d/2d/3d)."""
    if use_input_stats:
        _verify_spatial_size(input.size())
    return _s.instance_norm(input, weight, bias, running_mean, running_var, use_input_stats,
                            momentum, eps, False)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Normalization over the last ``len(normalized_shape)`` dims (see LayerNorm)."""
    return _s.layer_norm(input, normalized_shape, weight, bias, eps, False)


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """Root-mean-square normalization over the last dims (see RMSNorm)."""
    return _s.rms_norm(input, normalized_shape, weight, eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """Normalization over groups of channels (see GroupNorm)."""
    if input.dim() < 2:
        raise RuntimeError(
            f"Expected at least 2 dimensions for input tensor but received {input.dim()}")
    _verify_batch_size([input.size(0) * input.size(1) // num_groups, num_groups] +
                       list(input.size()[2:]))
    return _s.group_norm(input, num_groups, weight, bias, eps, False)


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """Normalization across nearby channels: ``x / (k + alpha * avg(x^2 over size
    channels)) ** beta``, the window average taken by an average pool over a zero-padded
    channel axis (see LocalResponseNorm)."""
    from . import avg_pool2d, avg_pool3d, pad
    dim = input.dim()
    if dim < 3:
        raise ValueError(
            f"Expected 3D or higher dimensionality                          input (got {dim} "
            f"dimensions)")
    if input.numel() == 0:
        return input
    div = input.mul(input)
    if dim == 3:
        div = div.unsqueeze(1)
        div = pad(div, (0, 0, size // 2, (size - 1) // 2))
        div = avg_pool2d(div, (size, 1), stride=1).squeeze(1)
    else:
        sizes = input.size()
        div = div.view(sizes[0], 1, sizes[1], sizes[2], -1)
        div = pad(div, (0, 0, 0, 0, size // 2, (size - 1) // 2))
        div = avg_pool3d(div, (size, 1, 1), stride=1).squeeze(1)
        div = div.view(sizes)
    div = div.mul(alpha).add(k).pow(beta)
    return input / div


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """``input / max(||input||_p over dim, eps)``."""
    if out is None:
        denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
        return input / denom
    denom = input.norm(p, dim, keepdim=True).clamp_min_(eps).expand_as(input)
    return _s.div(input, denom, out=out)
