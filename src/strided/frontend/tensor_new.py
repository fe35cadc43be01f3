"""Building tensors from Python data: ``tensor``, ``as_tensor``, ``from_numpy``.

Like torch's ``tensor_new.cpp`` these are written by hand rather than
generated: they walk nested sequences to find the shape and the dtype, then
allocate through the dispatcher (``empty``) and copy the values in.

Dtype inference: Python bools, ints, floats and complex numbers stand for bool,
int64, the default float dtype and the default complex dtype; NumPy scalars and
tensors bring their own dtype; the element dtypes are combined with
``promote_types``. ``[True, 1]`` is int64, ``[1, 2.5]`` is float32.
"""

from __future__ import annotations

import numbers
import warnings

import numpy as np

from ..core import dtypes as dt
from ..core.devices import CPU
from ..core.devices import device as _device_cls
from ..core.storage import UntypedStorage
from ..core.tensor_impl import make_tensor
from ..kernels.copy import copy_array
from ..kernels.scalars import scalar_dtype
from ..ops._generated import torch_functions as F
from .tensor import Tensor

__all__ = ["as_tensor", "asarray", "from_numpy", "tensor"]

_PY_SCALARS = (bool, int, float, complex)


def _scalar_dtype(x):
    tx = type(x)
    if tx is float:
        return dt._default_dtype[0]
    if tx is int:
        return dt.int64
    if tx is bool:
        return dt.bool_
    if tx is complex:
        return dt.default_complex_dtype()
    if isinstance(x, np.generic):
        return dt.from_numpy_dtype(x.dtype)
    if isinstance(x, Tensor):
        return x._dtype
    if isinstance(x, numbers.Number):
        return scalar_dtype(x)
    return None


def _infer(data):
    """(shape, dtype) of nested data; raises torch's errors for ragged or invalid data."""
    if isinstance(data, np.ndarray):
        return data.shape, dt.from_numpy_dtype(data.dtype)
    if isinstance(data, Tensor):
        return data._sizes, data._dtype
    d = _scalar_dtype(data)
    if d is not None:
        return (), d
    if isinstance(data, str):
        raise TypeError("new(): invalid data type 'str'")
    if not isinstance(data, (list, tuple)) and not hasattr(data, "__len__"):
        raise RuntimeError(f"Could not infer dtype of {type(data).__name__}")
    items = list(data)
    if not items:
        return (0,), None
    first_shape, result = _infer(items[0])
    for i in range(1, len(items)):
        item = items[i]
        d = _scalar_dtype(item) if not isinstance(item, (list, tuple, np.ndarray)) else None
        if d is not None and isinstance(item, Tensor) and item._sizes:
            d = None
        if d is not None and not first_shape:
            result = d if result is None else dt.promote_types(result, d)
            continue
        if d is not None and first_shape:
            raise TypeError("not a sequence")
        if isinstance(item, str):
            raise TypeError("new(): invalid data type 'str'")
        if not isinstance(item, (list, tuple, np.ndarray, Tensor)):
            raise RuntimeError(f"Could not infer dtype of {type(item).__name__}")
        shape, d = _infer(item)
        if len(shape) != len(first_shape) or shape[:1] != first_shape[:1]:
            if not first_shape:
                raise TypeError("not a sequence")
            raise ValueError(f"expected sequence of length {first_shape[0]} at dim 1 "
                             f"(got {shape[0] if shape else 0})")
        if shape != first_shape:
            for k, (a, b) in enumerate(zip(shape, first_shape)):
                if a != b:
                    raise ValueError(f"expected sequence of length {b} at dim {k + 1} (got {a})")
        if d is not None:
            result = d if result is None else dt.promote_types(result, d)
    return (len(items),) + tuple(first_shape), result


def _to_numpy_values(data, np_dtype):
    if isinstance(data, Tensor):
        return data._array() if data._device.type != "meta" else None
    try:
        if isinstance(data, (list, tuple)) and any(isinstance(x, Tensor) for x in _flat(data)):
            data = _replace_tensors(data)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return np.array(data, dtype=np_dtype)
    except OverflowError:
        raise RuntimeError(f"value cannot be converted to type {np.dtype(np_dtype).name} "
                           f"without overflow") from None


def _flat(data):
    for x in data:
        if isinstance(x, (list, tuple)):
            yield from _flat(x)
        else:
            yield x


def _replace_tensors(data):
    if isinstance(data, (list, tuple)):
        return [_replace_tensors(x) for x in data]
    if isinstance(data, Tensor):
        return data._array() if data._dtype is not dt.bfloat16 else data._array().astype(
            np.float32)
    return data


def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """A new tensor holding a copy of ``data`` (nested sequences, scalars, arrays, tensors)."""
    if isinstance(data, Tensor):
        warnings.warn(
            "To copy construct from a tensor, it is recommended to use "
            "sourceTensor.clone().detach() or sourceTensor.clone().detach().requires_grad_(True), "
            "rather than torch.tensor(sourceTensor).", UserWarning, stacklevel=2)
    if dtype is not None and not isinstance(dtype, dt.dtype):
        from .arg_parser import to_dtype
        dtype = to_dtype(dtype)
    device = CPU if device is None else _device_cls(device)
    shape, inferred = _infer(data)
    target = dtype or inferred or dt._default_dtype[0]
    out = F.empty(shape, dtype=target, device=device)
    if device.type != "meta" and 0 not in shape:
        values = _to_numpy_values(data, target.np if target is not dt.bfloat16 else None)
        if values is not None:
            copy_array(out._array(), values)
    if requires_grad:
        out.requires_grad_(True)
    return out


def from_numpy(ndarray) -> Tensor:
    """A tensor sharing ``ndarray``'s memory (torch's rules on strides and dtypes)."""
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    d = dt.from_numpy_dtype(ndarray.dtype)
    itemsize = ndarray.itemsize
    for s in ndarray.strides:
        if s < 0:
            raise ValueError(
                "At least one stride in the given numpy array is negative, and tensors with "
                "negative strides are not currently supported. (You can probably work around "
                "this by making a copy of your array  with array.copy().) ")
        if s % itemsize:
            raise ValueError(
                "given numpy array strides not a multiple of the element byte size. Copy the "
                "numpy array to reallocate the memory.")
    if not ndarray.flags.writeable:
        warnings.warn(
            "The given NumPy array is not writable, and PyTorch does not support non-writable "
            "tensors. This means writing to this tensor will result in undefined behavior. You "
            "may want to copy the array to protect its data or make it writable before "
            "converting it to a tensor. This type of warning will be suppressed for the rest of "
            "this program.", UserWarning, stacklevel=2)
    storage = UntypedStorage._wrap(ndarray, CPU)
    strides = tuple(s // itemsize for s in ndarray.strides)
    return make_tensor(storage, tuple(ndarray.shape), strides, 0, d)


def as_tensor(data, dtype=None, device=None) -> Tensor:
    """Share memory with ``data`` when it is already a tensor or array of the right kind."""
    if dtype is not None and not isinstance(dtype, dt.dtype):
        from .arg_parser import to_dtype
        dtype = to_dtype(dtype)
    if isinstance(data, Tensor):
        return data.to(device=device, dtype=dtype) if (dtype or device) else data
    if isinstance(data, np.ndarray) and (device is None or _device_cls(device).type == "cpu"):
        try:
            t = from_numpy(data)
        except (ValueError, TypeError):
            return tensor(data, dtype=dtype, device=device)
        return t if dtype is None or dtype is t._dtype else t.to(dtype)
    return tensor(data, dtype=dtype, device=device)


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
    if copy:
        t = tensor(obj, dtype=dtype, device=device)
    else:
        t = as_tensor(obj, dtype=dtype, device=device)
    if requires_grad:
        t.requires_grad_(True)
    return t


def legacy_new(cls, args, kwargs):
    """``Tensor(*sizes)`` / ``Tensor(sequence)`` / ``Tensor()``: default-dtype tensors."""
    if kwargs:
        raise TypeError(f"new() received an invalid combination of arguments - got "
                        f"({', '.join(f'{k}={type(v).__name__}' for k, v in kwargs.items())})")
    if not args:
        return F.empty(0)
    if all(isinstance(a, int) and not isinstance(a, bool) for a in args):
        return F.empty(args)
    if len(args) == 1 and not isinstance(args[0], (int, float, bool, complex)):
        if isinstance(args[0], Tensor):
            return args[0]
        return tensor(args[0], dtype=dt._default_dtype[0])
    raise TypeError(f"new(): data must be a sequence (got {type(args[0]).__name__})")
