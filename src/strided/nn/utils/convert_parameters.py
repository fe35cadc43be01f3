"""torch.nn.utils.convert_parameters: parameters to one flat vector and back."""

from __future__ import annotations

import strided as _st

from ...frontend.tensor import Tensor

__all__ = ["parameters_to_vector", "vector_to_parameters"]

# device types whose tensors carry an index that must agree (CPU tensors are all -1)
_INDEXED_DEVICES = ("cuda", "privateuseone")


def _typename(obj) -> str:
    """torch.typename: a tensor's type() string, else the qualified class name."""
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    qualname = ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module = obj.__class__.__module__ or ""
        qualname = obj.__class__.__qualname__
    if module in ("", "builtins"):
        return qualname
    return f"{module}.{qualname}"


def _check_param_device(param, old_param_device):
    if old_param_device is None:
        return param.get_device() if param.device.type in _INDEXED_DEVICES else -1
    if param.device.type in _INDEXED_DEVICES:
        mismatch = param.get_device() != old_param_device
    else:
        mismatch = old_param_device != -1
    if mismatch:
        raise TypeError("Found two parameters on different devices, "
                        "this is currently not supported.")
    return old_param_device


def parameters_to_vector(parameters) -> Tensor:
    """Flatten ``parameters`` into one vector (``cat`` of their ``view(-1)``s)."""
    device = None
    flat = []
    for param in parameters:
        device = _check_param_device(param, device)
        flat.append(param.view(-1))
    return _st.cat(flat)


def vector_to_parameters(vec: Tensor, parameters) -> None:
    """Point each parameter's ``.data`` at its slice of ``vec`` (no copy)."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {_typename(vec)}")
    device = None
    pointer = 0
    for param in parameters:
        device = _check_param_device(param, device)
        n = param.numel()
        param.data = vec[pointer:pointer + n].view_as(param).data
        pointer += n
