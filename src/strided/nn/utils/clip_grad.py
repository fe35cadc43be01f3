"""torch.nn.utils.clip_grad: total gradient norms and gradient clipping.

Note [clip_grad grouping]
torch groups the tensors by (device, dtype), in order of first appearance, and
computes one norm per tensor group by group (``_foreach_norm`` or
``linalg.vector_norm``: the same per-tensor values on CPU); the total is the
``vector_norm`` of the stacked per-tensor norms, so the order of that stack
(group by group) is what decides the last bits of the total. The same grouping
is kept here; the foreach and per-tensor paths compute the same values, so
``foreach`` only decides which devices are accepted.
"""

from __future__ import annotations

import functools
import types
import warnings

import strided as _st

from ...frontend.tensor import Tensor

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_"]

# devices with a foreach implementation in torch (CPU takes the slow fallback there)
_FOREACH_DEVICES = ("cpu", "cuda")


def _no_grad(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        with _st.no_grad():
            return fn(*args, **kwargs)
    return wrapper


def _group_by_device_and_dtype(tensors):
    groups: dict = {}
    for t in tensors:
        groups.setdefault((t.device, t.dtype), []).append(t)
    return groups


def _use_foreach(foreach, device) -> bool:
    """torch's choice between the foreach and per-tensor paths (the same numbers here),
    with its error for ``foreach=True`` on a device without foreach kernels."""
    supported = device.type in _FOREACH_DEVICES
    if foreach and not supported:
        raise RuntimeError(
            f"foreach=True was passed, but can't use the foreach API on {device.type} tensors")
    return bool(supported and foreach is not False)


@_no_grad
def _get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The norm of all ``tensors`` as if they were one concatenated vector."""
    tensors = [tensors] if isinstance(tensors, Tensor) else list(tensors)
    norm_type = float(norm_type)
    if len(tensors) == 0:
        return _st.tensor(0.0)
    first_device = tensors[0].device
    norms = []
    for (device, _), group in _group_by_device_and_dtype(tensors).items():
        if _use_foreach(foreach, device) and norm_type == float("inf") and any(
                g.numel() == 0 for g in group):
            raise RuntimeError(
                "_foreach_norm cannot compute the infinity norm on an empty tensor because "
                "the operation does not have an identity")
        norms.extend(_st.linalg.vector_norm(g, norm_type) for g in group)
    total_norm = _st.linalg.vector_norm(
        _st.stack([n.to(first_device) for n in norms]), norm_type)
    if error_if_nonfinite and _st.logical_or(total_norm.isnan(), total_norm.isinf()):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from "
            "`parameters` is non-finite, so it cannot be clipped. To disable "
            "this error and scale the gradients by the non-finite norm anyway, "
            "set `error_if_nonfinite=False`"
        )
    return total_norm


@_no_grad
def _clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    """Scale every ``.grad`` in place by ``min(max_norm / (total_norm + 1e-6), 1)``."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    grads = [p.grad for p in parameters if p.grad is not None]
    max_norm = float(max_norm)
    if len(grads) == 0:
        return
    # multiplied even when the coefficient is 1, as torch does (no host sync there)
    coef = _st.clamp(max_norm / (total_norm + 1e-6), max=1.0)
    for (device, _), group in _group_by_device_and_dtype(grads).items():
        _use_foreach(foreach, device)
        coef_here = coef.to(device)
        for g in group:
            g.mul_(coef_here)


@_no_grad
def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False,
                    foreach=None):
    """Clip the gradients of ``parameters`` to a total ``norm_type``-norm of ``max_norm``
    (in place) and return the total norm before clipping.

    >>> import strided as torch
    >>> w = torch.ones(4, requires_grad=True)
    >>> (3 * w).sum().backward()
    >>> torch.nn.utils.clip_grad_norm_([w], 1.0)
    tensor(6.)
    """
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    else:
        from_generator = isinstance(parameters, types.GeneratorType)
        parameters = list(parameters)
        if from_generator and len(parameters) == 0:
            warnings.warn(
                "`parameters` is an empty generator, no gradient clipping will occur.",
                stacklevel=3,
            )
    grads = [p.grad for p in parameters if p.grad is not None]
    total_norm = _get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    _clip_grads_with_norm_(parameters, max_norm, total_norm, foreach)
    return total_norm


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False,
                   foreach=None):
    """Deprecated: use ``clip_grad_norm_``."""
    warnings.warn(
        "`torch.nn.utils.clip_grad_norm` is now deprecated "
        "in favor of `torch.nn.utils.clip_grad_norm_`.",
        FutureWarning,
        stacklevel=2,
    )
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


@_no_grad
def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamp every ``.grad`` of ``parameters`` to ``[-clip_value, clip_value]`` in place."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    clip_value = float(clip_value)
    grads = [p.grad for p in parameters if p.grad is not None]
    for (device, _), group in _group_by_device_and_dtype(grads).items():
        if _use_foreach(foreach, device):
            # the foreach path clamps in two passes (min, then max)
            for g in group:
                g.clamp_min_(-clip_value)
            for g in group:
                g.clamp_max_(clip_value)
        else:
            for g in group:
                g.clamp_(min=-clip_value, max=clip_value)
