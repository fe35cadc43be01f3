"""torch.nn.init: the initialisation functions, drawing exactly what torch draws.

Note [init draws what torch draws]
Every function here fills its tensor under ``no_grad`` with the same in-place
random ops torch's ``nn.init`` calls, with the same arguments and in the same
order (``uniform_`` / ``normal_`` on the tensor itself, ``new_empty(...).normal_``
for ``orthogonal_``, the rejection loop of ``trunc_normal_``, one ``randperm``
per column in ``sparse_``). The generator stream is therefore consumed exactly
as torch consumes it, and after ``strided.manual_seed(s)`` the values are
bit-identical to torch's.

>>> import strided as torch
>>> _ = torch.manual_seed(0)
>>> torch.nn.init.kaiming_uniform_(torch.empty(2, 3), a=5 ** 0.5)
tensor([[-0.0043,  0.3097, -0.4752],
        [-0.4249, -0.2224,  0.1548]])
"""

from __future__ import annotations

import math
import warnings
from typing import Literal

import strided as _st

from ..frontend.tensor import Tensor

__all__ = [
    "calculate_gain",
    "uniform_",
    "normal_",
    "trunc_normal_",
    "constant_",
    "ones_",
    "zeros_",
    "eye_",
    "dirac_",
    "xavier_uniform_",
    "xavier_normal_",
    "kaiming_uniform_",
    "kaiming_normal_",
    "orthogonal_",
    "sparse_",
    # the old names without the trailing underscore, deprecated in torch
    "uniform",
    "normal",
    "constant",
    "eye",
    "dirac",
    "xavier_uniform",
    "xavier_normal",
    "kaiming_uniform",
    "kaiming_normal",
    "orthogonal",
    "sparse",
]

_FanMode = Literal["fan_in", "fan_out"]

# nonlinearities whose recommended gain is 1 because they are linear maps
_LINEAR_FNS = (
    "linear",
    "conv1d",
    "conv2d",
    "conv3d",
    "conv_transpose1d",
    "conv_transpose2d",
    "conv_transpose3d",
)


def _no_grad_uniform_(tensor: Tensor, a: float, b: float, generator=None) -> Tensor:
    with _st.no_grad():
        return tensor.uniform_(a, b, generator=generator)


def _no_grad_normal_(tensor: Tensor, mean: float, std: float, generator=None) -> Tensor:
    with _st.no_grad():
        return tensor.normal_(mean, std, generator=generator)


def _no_grad_fill_(tensor: Tensor, val: float) -> Tensor:
    with _st.no_grad():
        return tensor.fill_(val)


def _no_grad_zero_(tensor: Tensor) -> Tensor:
    with _st.no_grad():
        return tensor.zero_()


def _std_normal_cdf(x: float) -> float:
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def _log_pdf_shifted_(candidates: Tensor, mean: float, std: float, log_peak: float) -> Tensor:
    # in place: -0.5 * ((x - mean) / std) ** 2 - log_peak, op by op as torch does
    return candidates.sub_(mean).div_(std).pow_(2).mul_(-0.5).sub_(log_peak)


def _no_grad_trunc_normal_(tensor, mean, std, a, b, generator=None):
    # A meta tensor has nothing to sample into.
    if tensor.is_meta:
        return tensor
    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn(
            "mean is more than 2 std from [a, b] in nn.init.trunc_normal_. "
            "The distribution of values may be incorrect.",
            stacklevel=3,
        )
    with _st.no_grad():
        mass = _std_normal_cdf((b - mean) / std) - _std_normal_cdf((a - mean) / std)
        if mass > 0.3:
            # Most normal draws land inside [a, b]: redraw the ones that do not.
            # The bounds are compared as the tensor's dtype represents them.
            lo = tensor.new_tensor(a, device="cpu").item()
            hi = tensor.new_tensor(b, device="cpu").item()
            result = tensor.normal_(mean, std, generator=generator)
            while True:
                outside = (result < lo) | (result > hi)
                if not outside.any():
                    break
                redraw = _st.empty_like(result).normal_(mean, std, generator=generator)
                result = _st.where(outside, redraw, result)
            if result is not tensor:
                tensor.copy_(result)
            return tensor
        # Narrow window: rejection sampling from a uniform proposal on [a, b],
        # accepting x when log(u) <= log_pdf(x) - log_pdf(mode).
        mode = max(a, min(mean, b))
        log_peak = -0.5 * ((mode - mean) / std) ** 2
        candidates = _st.empty_like(tensor)
        accept_buf = _st.empty_like(tensor)
        tensor.uniform_(a, b, generator=generator)
        candidates.copy_(tensor)
        _log_pdf_shifted_(candidates, mean, std, log_peak)
        pending = accept_buf.uniform_(generator=generator).log_().gt(candidates)
        if pending.any():
            result = tensor
            while True:
                candidates.uniform_(a, b, generator=generator)
                result = _st.where(pending, candidates, result)
                _log_pdf_shifted_(candidates, mean, std, log_peak)
                rejected = accept_buf.uniform_(generator=generator).log_().gt(candidates)
                pending = _st.where(pending, rejected, pending)
                if not pending.any():
                    break
            tensor.copy_(result)
        return tensor


def calculate_gain(nonlinearity, param=None):
    """The recommended gain for a nonlinearity (its ``nn.functional`` name).

    linear / conv* / sigmoid: 1, tanh: 5/3, relu: sqrt(2),
    leaky_relu: sqrt(2 / (1 + negative_slope**2)) (slope ``param``, default 0.01),
    selu: 3/4.

    >>> calculate_gain("leaky_relu", 0.2)
    1.3867504905630728
    """
    if nonlinearity in _LINEAR_FNS or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif (isinstance(param, int) and not isinstance(param, bool)) or isinstance(
            param, float
        ):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0, generator=None) -> Tensor:
    """Fill ``tensor`` with draws from U(a, b)."""
    return _no_grad_uniform_(tensor, a, b, generator)


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, generator=None) -> Tensor:
    """Fill ``tensor`` with draws from N(mean, std**2)."""
    return _no_grad_normal_(tensor, mean, std, generator)


def trunc_normal_(
    tensor: Tensor,
    mean: float = 0.0,
    std: float = 1.0,
    a: float = -2.0,
    b: float = 2.0,
    generator=None,
) -> Tensor:
    """Fill ``tensor`` with N(mean, std**2) draws restricted to [a, b] (by rejection)."""
    return _no_grad_trunc_normal_(tensor, mean, std, a, b, generator=generator)


def constant_(tensor: Tensor, val: float) -> Tensor:
    """Fill ``tensor`` with ``val``."""
    return _no_grad_fill_(tensor, val)


def ones_(tensor: Tensor) -> Tensor:
    """Fill ``tensor`` with 1."""
    return _no_grad_fill_(tensor, 1.0)


def zeros_(tensor: Tensor) -> Tensor:
    """Fill ``tensor`` with 0."""
    return _no_grad_zero_(tensor)


def eye_(tensor: Tensor) -> Tensor:
    """Fill a 2-D ``tensor`` with the identity matrix (ones on the main diagonal)."""
    if tensor.ndimension() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    with _st.no_grad():
        _st.eye(*tensor.shape, out=tensor, requires_grad=tensor.requires_grad)
    return tensor


def dirac_(tensor: Tensor, groups: int = 1) -> Tensor:
    """Fill a 3/4/5-D conv weight with a Dirac delta: each group passes its
    first ``min(out_per_group, in)`` channels through unchanged."""
    ndim = tensor.ndimension()
    if ndim not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tensor.size()
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    if tensor.is_meta:
        return tensor
    out_per_group = sizes[0] // groups
    n = min(out_per_group, sizes[1])
    centre = tuple(s // 2 for s in sizes[2:])
    with _st.no_grad():
        tensor.zero_()
        # one scalar write per (group, channel), as torch's Python loop does: the same
        # version-counter bumps (groups * n writes, a loop over channels, not data)
        for g in range(groups):
            for d in range(n):
                tensor[(g * out_per_group + d, d) + centre] = 1
    return tensor


def _calculate_fan_in_and_fan_out(tensor: Tensor) -> tuple[int, int]:
    if tensor.dim() < 2:
        raise ValueError(
            "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions"
        )
    receptive = 1
    for s in tensor.shape[2:]:
        receptive *= s
    return tensor.size(1) * receptive, tensor.size(0) * receptive


def _calculate_correct_fan(tensor: Tensor, mode: _FanMode) -> int:
    mode = mode.lower()
    valid_modes = ["fan_in", "fan_out"]
    if mode not in valid_modes:
        raise ValueError(f"Mode {mode} not supported, please use one of {valid_modes}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def xavier_uniform_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    """Glorot uniform: U(-a, a) with a = gain * sqrt(6 / (fan_in + fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    bound = math.sqrt(3.0) * std
    return _no_grad_uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    """Glorot normal: N(0, std**2) with std = gain * sqrt(2 / (fan_in + fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return _no_grad_normal_(tensor, 0.0, std, generator)


def _kaiming_std(tensor, a, mode, nonlinearity):
    fan = _calculate_correct_fan(tensor, mode)
    return calculate_gain(nonlinearity, a) / math.sqrt(fan)


def kaiming_uniform_(
    tensor: Tensor,
    a: float = 0,
    mode: _FanMode = "fan_in",
    nonlinearity: str = "leaky_relu",
    generator=None,
) -> Tensor:
    """He uniform: U(-bound, bound) with bound = gain * sqrt(3 / fan)."""
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    bound = math.sqrt(3.0) * _kaiming_std(tensor, a, mode, nonlinearity)
    with _st.no_grad():
        return tensor.uniform_(-bound, bound, generator=generator)


def kaiming_normal_(
    tensor: Tensor,
    a: float = 0,
    mode: _FanMode = "fan_in",
    nonlinearity: str = "leaky_relu",
    generator=None,
) -> Tensor:
    """He normal: N(0, std**2) with std = gain / sqrt(fan)."""
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    std = _kaiming_std(tensor, a, mode, nonlinearity)
    with _st.no_grad():
        return tensor.normal_(0, std, generator=generator)


def orthogonal_(tensor: Tensor, gain: float = 1, generator=None) -> Tensor:
    """Fill ``tensor`` (trailing dims flattened) with a (semi-)orthogonal matrix:
    the Q of a QR factorisation of a standard normal draw, with R's diagonal
    signs folded into Q so that the result is uniformly distributed."""
    if tensor.ndimension() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0 or tensor.is_meta:
        return tensor
    rows = tensor.size(0)
    cols = tensor.numel() // rows
    flat = tensor.new_empty((rows, cols)).normal_(0, 1, generator=generator)
    wide = rows < cols
    if wide:
        flat.t_()
    q, r = _st.linalg.qr(flat)
    q *= _st.diag(r, 0).sign()
    if wide:
        q.t_()
    with _st.no_grad():
        tensor.view_as(q).copy_(q)
        tensor.mul_(gain)
    return tensor


def sparse_(tensor: Tensor, sparsity: float, std: float = 0.01, generator=None) -> Tensor:
    """Fill a 2-D ``tensor`` from N(0, std**2), then zero ``ceil(sparsity * rows)``
    random entries of every column.

    As in torch, the zeroed rows come from ``randperm`` on the default generator
    (``generator`` only feeds the normal draw)."""
    if tensor.ndimension() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    if tensor.is_meta:
        return tensor
    rows, cols = tensor.shape
    num_zeros = math.ceil(sparsity * rows)
    with _st.no_grad():
        tensor.normal_(0, std, generator=generator)
        # one randperm and one write per column, like torch (same draws, same versions)
        for col in range(cols):
            tensor[_st.randperm(rows)[:num_zeros], col] = 0
    return tensor


def _deprecated(fn):
    new_name = fn.__name__
    old_name = new_name[:-1]

    def deprecated_init(*args, **kwargs):
        warnings.warn(
            f"`nn.init.{old_name}` is now deprecated in favor of `nn.init.{new_name}`.",
            FutureWarning,
            stacklevel=2,
        )
        return fn(*args, **kwargs)

    deprecated_init.__name__ = old_name
    deprecated_init.__qualname__ = old_name
    deprecated_init.__doc__ = f"{old_name}(...): deprecated, use nn.init.{new_name}."
    return deprecated_init


uniform = _deprecated(uniform_)
normal = _deprecated(normal_)
constant = _deprecated(constant_)
eye = _deprecated(eye_)
dirac = _deprecated(dirac_)
xavier_uniform = _deprecated(xavier_uniform_)
xavier_normal = _deprecated(xavier_normal_)
kaiming_uniform = _deprecated(kaiming_uniform_)
kaiming_normal = _deprecated(kaiming_normal_)
orthogonal = _deprecated(orthogonal_)
sparse = _deprecated(sparse_)
