"""Building tensors from Python data: ``tensor``, ``as_tensor``, ``from_numpy``.

Like torch's ``tensor_new.cpp`` these are written by hand rather than
generated. ``tensor(data)`` works in three passes, each with torch's errors:

1. sizes: follow the *first* element down while it is a sequence (lists, tuples,
   ranges, ndarrays; tensors and NumPy scalars are leaves): ``[[1, 2], [3]]`` has
   sizes ``(2, 2)``.
2. dtype (unless ``dtype=`` is given): scan *every* leaf. Python bools, ints,
   floats and complex numbers stand for bool, int64, the default float dtype and
   the default complex dtype; NumPy scalars, arrays and tensors bring their own
   dtype; an empty sequence counts as the default float dtype; the leaf dtypes
   are combined with ``promote_types``. ``[True, 1]`` is int64.
3. store: walk the data again, checking each sequence's length against the sizes,
   and convert every leaf to the target dtype the way torch unpacks a Python
   object (Note [Unpacking leaves]).

Note [Unpacking leaves]
~~~~~~~~~~~~~~~~~~~~~~~
torch converts each leaf by the *target* dtype, not by the leaf's type:
integer targets take a Python float through a range-checked truncation and
anything else through ``__index__`` (so ``[np.float32(1.5)]`` into int64 is a
TypeError, ``[-1]`` into uint8 wraps to 255, ``[300]`` overflows); uint64 takes
only Python ints; floating targets take anything with ``__float__`` or
``__index__`` ("must be real number, not list"), rounding through float32 for
the half types as c10::Half does; bool takes truthiness of numbers. Lists of
plain Python numbers, by far the common case, are converted by NumPy in one
call with the same checks done on the whole array.
"""

from __future__ import annotations

import operator
import os
import warnings

import numpy as np

from ..core import dtypes as dt
from ..core.devices import CPU
from ..core.devices import DEFAULT_DEVICE as _DEFAULT_DEVICE
from ..core.devices import device as _device_cls
from ..core.storage import UntypedStorage
from ..core.tensor_impl import make_tensor
from ..kernels import complex32 as _c32
from ..ops._generated import torch_functions as F
from ..ops.dispatcher import get_op
from . import indexing as _indexing
from .arg_parser import keyset_of_device
from .tensor import Tensor

_op_empty = get_op("aten::empty.memory_format")
_CPU_KEYSET = keyset_of_device(None)

__all__ = ["as_tensor", "asarray", "from_file", "from_numpy", "frombuffer", "tensor"]

_MISSING = object()
_MAX_DIMS = 64
_PY_TYPE_DTYPES = {float: dt.float64, int: dt.int64, bool: dt.bool_, complex: dt.complex128}


# -- argument parsing (torch's texts) -----------------------------------------------------

def _typename(x) -> str:
    return "Tensor" if isinstance(x, Tensor) else type(x).__name__


def _check_dtype_arg(name, dtype):
    if dtype is None or dtype.__class__ is dt.dtype:
        return dtype
    d = _PY_TYPE_DTYPES.get(dtype) if isinstance(dtype, type) else None
    if d is None:
        raise TypeError(f"{name}(): argument 'dtype' must be torch.dtype, not {_typename(dtype)}")
    return d


def _check_device_arg(name, device):
    if device is None:   # the default device (strided.set_default_device), None for the CPU
        return None if _DEFAULT_DEVICE[0] is CPU else _DEFAULT_DEVICE[0]
    if device.__class__ is _device_cls:
        return device
    if isinstance(device, (str, int)) and not isinstance(device, bool):
        return _device_cls(device)
    raise TypeError(f"{name}(): argument 'device' must be torch.device, not {_typename(device)}")


def _check_bool_arg(name, param, value):
    if value is not True and value is not False:
        raise TypeError(f"{name}(): argument '{param}' must be bool, not {_typename(value)}")


def _bad_call(name, data, args, kwargs, allowed):
    """The TypeError for a call with extra positionals, a missing ``data`` or unknown
    keywords (torch's parser checks them in this order)."""
    if args:
        raise TypeError(f"{name}() takes 1 positional argument but {len(args) + 1} were given")
    if data is _MISSING:
        raise TypeError(f'{name}() missing 1 required positional arguments: "data"')
    for key in kwargs:
        if key not in allowed:
            raise TypeError(f"{name}() got an unexpected keyword argument '{key}'")
    raise TypeError(f"{name}(): invalid arguments")


# -- pass 1: sizes ---------------------------------------------------------------------------

def _is_sequence(x) -> bool:
    """Python's sequence protocol, as torch's PySequence_Check sees it; tensors and NumPy
    scalars are leaves."""
    t = type(x)
    if t is list or t is tuple:
        return True
    if isinstance(x, (Tensor, np.generic, dict)):
        return False
    return hasattr(t, "__getitem__") and hasattr(t, "__len__")


def _compute_sizes(data) -> tuple:
    sizes = []
    seq = data
    while _is_sequence(seq):
        n = len(seq)
        sizes.append(n)
        if len(sizes) > _MAX_DIMS:
            raise ValueError(f"too many dimensions '{_typename(seq)}'")
        if n == 0:
            break
        seq = seq[0]
    return tuple(sizes)


# -- pass 2: dtype ---------------------------------------------------------------------------

def _python_scalar_dtype(t):
    if t is float:
        return dt._default_dtype[0]
    if t is int:
        return dt.int64
    if t is bool:
        return dt.bool_
    if t is complex:
        return _default_complex()
    return None


def _default_complex():
    if dt._default_dtype[0] is dt.bfloat16:
        raise RuntimeError("invalid default scalar type for complex")
    return dt._default_dtype[0].to_complex()     # (float16: complex32)


def _infer_dtype(obj) -> dt.dtype:
    if isinstance(obj, np.generic):
        return dt.from_numpy_dtype(obj.dtype)
    d = _python_scalar_dtype(type(obj))
    if d is not None:
        return d
    if isinstance(obj, bool):
        return dt.bool_
    if isinstance(obj, float):
        return dt._default_dtype[0]
    if isinstance(obj, int):
        return dt.int64
    if isinstance(obj, complex):
        return _default_complex()
    if isinstance(obj, Tensor):
        return obj._dtype
    if isinstance(obj, np.ndarray):
        return dt.from_numpy_dtype(obj.dtype)
    if isinstance(obj, (str, bytes)):
        raise TypeError(f"new(): invalid data type '{_typename(obj)}'")
    if _is_sequence(obj):
        if not len(obj):
            return dt._default_dtype[0]
        if type(obj) is list or type(obj) is tuple:
            types = set(map(type, obj))
            if types <= _PY_NUMBERS:
                result = None
                for t in types:
                    d = _python_scalar_dtype(t)
                    result = d if result is None else dt.promote(result, d)
                return result
        result = None
        for item in obj:
            d = _infer_dtype(item)
            result = d if result is None else dt.promote(result, d)
        return result
    raise RuntimeError(f"Could not infer dtype of {_typename(obj)}")


_PY_NUMBERS = frozenset((bool, int, float, complex))
_PY_REALS = frozenset((bool, int, float))
_PY_INTS = frozenset((bool, int))


# -- pass 3: store (Note [Unpacking leaves]) ----------------------------------------------------

def _overflow(target):
    raise RuntimeError(f"value cannot be converted to type {target.name} without overflow")


def _int_range(target):
    info = np.iinfo(target.np)
    return int(info.min), int(info.max)


def _unpack_long(x) -> int:
    v = operator.index(x)
    if not -(1 << 63) <= v < (1 << 63):
        raise ValueError("Overflow when unpacking long long")
    return v


def _unpack_double(x) -> float:
    if type(x) is float:
        return x
    t = type(x)
    if isinstance(x, (str, bytes, bytearray)) or not (hasattr(t, "__float__")
                                                      or hasattr(t, "__index__")):
        raise TypeError(f"must be real number, not {_typename(x)}")
    return float(x)


def _leaf_converter(target):
    """A function turning one leaf into a Python value NumPy can store in ``target``."""
    cat = target.category
    if cat == dt.FLOAT:
        return _unpack_double
    if cat == dt.COMPLEX:
        def to_complex(x):
            if isinstance(x, complex):
                return x
            if hasattr(type(x), "__complex__"):
                return complex(x)
            return complex(_unpack_double(x))
        return to_complex
    if cat == dt.BOOL:
        def to_bool(x):
            if isinstance(x, (bool, np.bool_, float, complex)):
                return bool(x)
            return operator.index(x) != 0
        return to_bool
    if target is dt.uint64:
        def to_uint64(x):
            if not isinstance(x, int):
                raise TypeError("an integer is required")
            if x < 0:
                raise OverflowError("can't convert negative int to unsigned")
            if x >= 1 << 64:
                raise OverflowError("int too big to convert")
            return int(x)
        return to_uint64
    lo, hi = _int_range(target)
    unsigned = lo == 0
    modulus = hi + 1

    def to_int(x):
        if isinstance(x, float):
            if not lo <= x <= hi:
                _overflow(target)
            return int(x)
        v = _unpack_long(x)
        if unsigned:
            if v > hi or (v < 0 and -v > hi):
                _overflow(target)
            return v % modulus
        if not lo <= v <= hi:
            _overflow(target)
        return v
    return to_int


def _storage_np_dtype(target):
    """The NumPy dtype the converted leaves are first collected in."""
    cat = target.category
    if cat == dt.FLOAT:
        return np.dtype(np.float64)
    if cat == dt.COMPLEX:
        return np.dtype(np.complex128)
    return target.np


def _finish(values: np.ndarray, target) -> np.ndarray:
    """float64/complex128 values to the target, rounding through float32 for the half
    types (c10::Half and c10::BFloat16 are built from a float)."""
    if values.dtype == target.np:
        return values
    if target is dt.complex32:     # Note [complex32]: through complex64, part by part
        out = np.empty(values.shape, target.np)
        _c32.store(out, values)
        return out
    with np.errstate(over="ignore", invalid="ignore"):
        if target is dt.float16 or target is dt.bfloat16:
            values = values.astype(np.float32)
        return values.astype(target.np)


def _convert_fast(leaves, target):
    """NumPy bulk conversion for leaves that are all plain Python numbers, or None when
    the slow path must decide."""
    types = set(map(type, leaves))
    cat = target.category
    if cat == dt.FLOAT:
        if types <= _PY_REALS:
            return _finish(np.array(leaves, dtype=np.float64), target)
        return None
    if cat == dt.COMPLEX:
        if types <= _PY_NUMBERS:
            return _finish(np.array(leaves, dtype=np.complex128), target)
        return None
    if cat == dt.BOOL:
        if types <= _PY_NUMBERS:
            return np.array(list(map(bool, leaves)), dtype=np.bool_)
        return None
    if target is dt.uint64:
        return None
    if types <= _PY_INTS:
        try:
            values = np.array(leaves, dtype=np.int64)
        except OverflowError:
            raise ValueError("Overflow when unpacking long long") from None
        if target is dt.int64:
            return values
    lo, hi = _int_range(target)
    if types <= _PY_INTS:
        if lo == 0:
            bad = (values > hi) | (values < -hi)
        else:
            bad = (values < lo) | (values > hi)
        if bad.any():
            _overflow(target)
        return values.astype(target.np)
    if types == {float}:
        values = np.array(leaves, dtype=np.float64)
        if not ((values >= lo) & (values <= hi)).all():
            _overflow(target)
        return values.astype(target.np)
    return None


def _convert(leaves, target) -> np.ndarray:
    out = _convert_fast(leaves, target)
    if out is None:
        conv = _leaf_converter(target)
        values = [conv(x) for x in leaves]
        out = _finish(np.array(values, dtype=_storage_np_dtype(target)), target)
    return out


def _collect_leaves(data, sizes, target) -> list:
    """The leaves in row-major order, checking every sequence against ``sizes``. On a
    length error, the leaves already walked are converted first, so that an earlier bad
    leaf is reported first, as torch's element-by-element store does."""
    leaves: list = []
    last = len(sizes) - 1

    def walk(seq, dim):
        if not _is_sequence(seq):
            _convert(leaves, target)
            raise TypeError("not a sequence")
        n = len(seq)
        if n != sizes[dim]:
            _convert(leaves, target)
            raise ValueError(f"expected sequence of length {sizes[dim]} at dim {dim} "
                             f"(got {n})")
        if dim == last:
            leaves.extend(seq)
        else:
            for item in seq:
                walk(item, dim + 1)

    walk(data, 0)
    return leaves


def _values_from_python(data, sizes, target) -> np.ndarray | None:
    if not sizes:
        return _convert([data], target).reshape(())
    if 0 in sizes:
        return None
    return _convert(_collect_leaves(data, sizes, target), target).reshape(sizes)


# -- the factories ----------------------------------------------------------------------------

_LIST_OF_ARRAYS_WARNING = (
    "Creating a tensor from a list of numpy.ndarrays is extremely slow. Please consider "
    "converting the list to a single numpy.ndarray with numpy.array() before converting to "
    "a tensor.")


def _new_from_data(data, dtype, device, *, copy_tensor, name):
    """The tensor for ``data`` (torch's internal_new_from_data)."""
    if isinstance(data, Tensor):
        if not copy_tensor and (dtype is None or dtype is data._dtype) and (
                device is None or device == data._device):
            return data
        return data.to(device=device if device is not None else data._device,
                       dtype=dtype or data._dtype, copy=copy_tensor)
    if isinstance(data, np.ndarray):
        t = _from_numpy(data, warn_readonly=not copy_tensor)
        if device is None and (dtype is None or dtype is t._dtype) and not copy_tensor:
            return t
        return t.to(device=device or CPU, dtype=dtype or t._dtype, copy=copy_tensor)
    if isinstance(data, (str, bytes)):
        raise TypeError(f"new(): invalid data type '{_typename(data)}'")
    if type(data) is list and device is None and data:
        fast = _flat_float_list(data, dtype)
        if fast is None:
            fast = _number_lists(data, dtype)
        if fast is not None:
            return fast
    if isinstance(data, (list, tuple)) and data and isinstance(data[0], np.ndarray):
        warnings.warn(_LIST_OF_ARRAYS_WARNING, UserWarning, stacklevel=3)
    sizes = _compute_sizes(data)
    target = dtype if dtype is not None else _infer_dtype(data)
    values = _values_from_python(data, sizes, target)
    out = F.empty(sizes, dtype=target, device=device)
    if values is not None and out._storage._buf is not None:
        np.copyto(out._array(), values)
    return out


def _flat_float_list(data, dtype):
    """The common ``tensor([1.5, 2.0, ...])``: a flat list of Python floats into a float
    dtype, converted by NumPy in one call; None when the general path must decide."""
    target = dt._default_dtype[0] if dtype is None else dtype
    if target.category != dt.FLOAT:
        return None
    for x in data:
        if type(x) is not float:
            return None
    n = len(data)
    out = _op_empty.call(_CPU_KEYSET, (n,), target, None, None, None, None)
    values = np.array(data, dtype=np.float64)
    out._storage._buf.view(target.np)[:n] = _finish(values, target)
    return out


def _number_lists(data, dtype):
    """The common ``tensor([1, 2, 3])`` and ``tensor([[1, 2], [3, 4]])``: a list of Python
    bools/ints/floats, or a list of equally long such lists, gathered in one pass; the
    dtype is inferred as the general path would (any float: the default dtype, else any
    int: int64, else bool) and the values go through the same conversion (``_convert``,
    with its overflow errors). None when the general path must decide."""
    first = data[0]
    if type(first) is list:
        n = len(first)
        if not n:
            return None
        leaves = []
        for row in data:
            if type(row) is not list or len(row) != n:
                return None
            leaves += row
        sizes = (len(data), n)
    else:
        leaves = data
        sizes = (len(data),)
    types = set(map(type, leaves))
    if not types <= _PY_REALS:
        return None
    if dtype is None:
        dtype = dt._default_dtype[0] if float in types else dt.int64 if int in types \
            else dt.bool_
    if dtype is dt.complex32 or dtype.category == dt.COMPLEX:
        return None
    values = _convert(leaves, dtype)
    out = _op_empty.call(_CPU_KEYSET, sizes, dtype, None, None, None, None)
    out._array()[...] = values.reshape(sizes)
    return out


def _require_grad(t):
    if not (t._dtype.is_floating_point or t._dtype.is_complex):
        raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                           "gradients")
    t.requires_grad_(True)
    return t


def tensor(data=_MISSING, *args, dtype=None, device=None, requires_grad=False,
           pin_memory=False, **kwargs) -> Tensor:
    """A new tensor holding a copy of ``data`` (nested sequences, scalars, arrays, tensors).

        tensor([[1, 2], [3, 4.5]])      # float32 (the default dtype), sizes (2, 2)
    """
    if args or kwargs or data is _MISSING:
        _bad_call("tensor", data, args, kwargs, ())
    dtype = _check_dtype_arg("tensor", dtype)
    device = _check_device_arg("tensor", device)
    _check_bool_arg("tensor", "pin_memory", pin_memory)
    _check_bool_arg("tensor", "requires_grad", requires_grad)
    if pin_memory:
        raise RuntimeError(
            "pin_memory=True requires a CUDA or other accelerator backend; no pinned memory "
            "allocator is available on this system.")
    if isinstance(data, Tensor):
        warnings.warn(
            "To copy construct from a tensor, it is recommended to use "
            "sourceTensor.detach().clone() or sourceTensor.detach().clone().requires_grad_(True), "
            "rather than torch.tensor(sourceTensor).", UserWarning, stacklevel=2)
    out = _new_from_data(data, dtype, device, copy_tensor=True, name="tensor")
    if requires_grad:
        _require_grad(out)
    return out


def _from_numpy(ndarray, warn_readonly=True) -> Tensor:
    if not isinstance(ndarray, np.ndarray):
        t = type(ndarray)
        tp_name = t.__name__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__name__}"
        raise TypeError(f"expected np.ndarray (got {tp_name})")
    if not ndarray.dtype.isnative:
        raise ValueError(
            "given numpy array has byte order different from the native byte order. "
            "Conversion between byte orders is currently not supported.")
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
    d = dt.from_numpy_dtype(ndarray.dtype)
    if warn_readonly and not ndarray.flags.writeable:
        warnings.warn(
            "The given NumPy array is not writable, and PyTorch does not support non-writable "
            "tensors. This means writing to this tensor will result in undefined behavior. You "
            "may want to copy the array to protect its data or make it writable before "
            "converting it to a tensor. This type of warning will be suppressed for the rest of "
            "this program.", UserWarning, stacklevel=3)
    storage = UntypedStorage._wrap(ndarray, CPU)
    strides = tuple(s // itemsize for s in ndarray.strides)
    return make_tensor(storage, tuple(ndarray.shape), strides, 0, d)


def from_numpy(*args, **kwargs) -> Tensor:
    """A tensor sharing the array's memory (torch's rules on strides and dtypes).

        a = np.arange(3.0); t = from_numpy(a); t.fill_(1)    # a is now [1., 1., 1.]
    """
    if kwargs:
        raise TypeError("torch._VariableFunctionsClass.from_numpy() takes no keyword arguments")
    if len(args) != 1:
        raise TypeError("torch._VariableFunctionsClass.from_numpy() takes exactly one argument "
                        f"({len(args)} given)")
    return _from_numpy(args[0])


def as_tensor(data=_MISSING, *args, dtype=None, device=None, **kwargs) -> Tensor:
    """``data`` itself when it is a tensor or NumPy array of the wanted dtype and device
    (sharing memory), otherwise a converted copy."""
    if args or kwargs or data is _MISSING:
        _bad_call("as_tensor", data, args, kwargs, ())
    dtype = _check_dtype_arg("as_tensor", dtype)
    device = _check_device_arg("as_tensor", device)
    return _new_from_data(data, dtype, device, copy_tensor=False, name="as_tensor")


_ASARRAY_GRAD_WARNING = (
    "torch.asarray: unspecified requires_grad now defaults to obj.requires_grad instead of "
    "False. Pass requires_grad=False explicitly to get the old behavior and silence this "
    "warning.")
_warned_asarray_grad = [False]


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=None):
    """``obj`` as a tensor, aliasing it when it can (tensors, NumPy arrays, buffers) unless
    ``copy`` is True; ``copy=None`` copies only for another dtype or device. An unspecified
    ``requires_grad`` follows ``obj``'s; ``requires_grad=False`` of a non-leaf detaches it,
    of a leaf switches the leaf's own flag off (torch's set_requires_grad on the alias)."""
    dtype = _check_dtype_arg("asarray", dtype)
    device = _check_device_arg("asarray", device)
    src = obj if isinstance(obj, Tensor) else None
    want_grad = requires_grad if requires_grad is not None else (
        src is not None and src.requires_grad)
    if want_grad and requires_grad is None and not _warned_asarray_grad[0]:
        _warned_asarray_grad[0] = True          # torch's TORCH_WARN_ONCE
        warnings.warn(_ASARRAY_GRAD_WARNING, UserWarning, stacklevel=2)
    force_copy = bool(copy)
    if src is None and isinstance(obj, (np.ndarray, np.generic)):
        if not isinstance(obj, np.ndarray):
            if copy is False:
                raise RuntimeError("can't alias NumPy scalars. Either remove copy=False or "
                                   "transform it in a ndarray. ")
            src = _from_numpy(np.asarray(obj), warn_readonly=False).clone()
            force_copy = False
        else:
            src = _from_numpy(obj, warn_readonly=copy is False)
    if src is None:
        if copy is False:
            raise ValueError("can't alias arbitrary sequence into a tensor.")
        t = _new_from_data(obj, dtype, device, copy_tensor=True, name="asarray")
        if want_grad:
            _require_grad(t)
        return t
    wrong_device = device is not None and device != src._device
    wrong_dtype = dtype is not None and dtype is not src._dtype
    if force_copy or (copy is None and (wrong_device or wrong_dtype)):
        if wrong_device or wrong_dtype:
            t = src.to(device=device if device is not None else src._device,
                       dtype=dtype if dtype is not None else src._dtype, copy=force_copy)
        else:
            t = src.clone()
    else:
        if wrong_device:
            raise ValueError(f"can't alias tensor from device '{src._device}' to '{device}'.")
        if wrong_dtype:
            raise ValueError(f"can't alias tensor with dtype '{src._dtype._scalar_name}' into "
                             f"dtype '{dtype._scalar_name}'.")
        t = src
    if not t.is_leaf and not want_grad:
        return t.detach()
    if want_grad:
        if not t.requires_grad:
            _require_grad(t)
    elif t.requires_grad:
        t.requires_grad_(False)
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
    if len(args) == 1 and type(args[0]).__name__ == "Size":   # Tensor(torch.Size([2, 3]))
        return F.empty(tuple(args[0]))
    if len(args) == 1 and not isinstance(args[0], (int, float, bool, complex)):
        if isinstance(args[0], Tensor):
            return args[0]
        return tensor(args[0], dtype=dt._default_dtype[0])
    raise TypeError(f"new(): data must be a sequence (got {type(args[0]).__name__})")


_indexing.bind(Tensor, tensor)


_warned_readonly_buffer = False


def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False) -> Tensor:
    """A 1-d tensor over the bytes of an object that implements the buffer protocol,
    sharing its memory (``count`` elements of ``dtype`` from byte ``offset``; all that fit
    when ``count`` is -1). A read-only buffer (``bytes``) is copied, since strided never
    writes through memory its owner declared immutable."""
    global _warned_readonly_buffer
    _check_dtype_arg("frombuffer", dtype)
    try:
        view = memoryview(buffer)
    except TypeError:
        raise ValueError("object does not implement Python buffer protocol.") from None
    length, itemsize = view.nbytes, dtype.itemsize
    if length <= 0 or count == 0:
        raise ValueError(f"both buffer length ({length}) and count ({count}) must not be 0")
    if not 0 <= offset < length:
        raise ValueError(f"offset ({offset} bytes) must be non-negative and no greater than "
                         f"buffer length ({length} bytes) minus 1")
    if count < 0:
        if (length - offset) % itemsize:
            raise ValueError(f"buffer length ({length - offset} bytes) after offset ({offset} "
                             f"bytes) must be a multiple of element size ({itemsize})")
        count = (length - offset) // itemsize
    elif offset + count * itemsize > length:
        raise ValueError(f"requested buffer length ({count} * {itemsize} bytes) after offset "
                         f"({offset} bytes) must not be greater than actual buffer length "
                         f"({length} bytes)")
    raw = np.frombuffer(view.cast("B"), dtype=np.uint8, count=count * itemsize, offset=offset)
    if view.readonly:
        if not _warned_readonly_buffer:
            _warned_readonly_buffer = True
            warnings.warn(
                "The given buffer is not writable, and PyTorch does not support non-writable "
                "tensors. This means you can write to the underlying (supposedly non-writable) "
                "buffer using the tensor. You may want to copy the buffer to protect its data "
                "or make it writable before converting it to a tensor. This type of warning "
                "will be suppressed for the rest of this program.", UserWarning, stacklevel=2)
        raw = raw.copy()
    t = _from_numpy(raw.view(dtype.np), warn_readonly=False)
    return t.requires_grad_() if requires_grad else t


def from_file(filename, shared=None, size=0, *, dtype=None, layout=None, device=None,
              pin_memory=False, requires_grad=False) -> Tensor:
    """``size`` elements of ``dtype`` read from a file: mapped (writes reach the file) when
    ``shared`` is True, else a private copy."""
    dtype = dtype if dtype is not None else dt.get_default_dtype()
    nbytes = int(size) * dtype.itemsize
    try:
        file_size = os.path.getsize(filename)
    except OSError as e:
        mode = "read-write" if shared else "read-only"
        raise RuntimeError(f"unable to open file <{filename}> in {mode} mode: {e.strerror} "
                           f"({e.errno})") from None
    if file_size < nbytes:
        raise RuntimeError(f"file <{filename}> size <{file_size}> is smaller than the "
                           f"required mapping size <{nbytes}>")
    if nbytes == 0:
        raw = np.empty(0, dtype=np.uint8)
    elif shared:
        raw = np.memmap(filename, dtype=np.uint8, mode="r+", shape=(nbytes,))
    else:
        raw = np.fromfile(filename, dtype=np.uint8, count=nbytes)
    t = _from_numpy(np.asarray(raw).view(dtype.np) if not shared else raw.view(dtype.np),
                    warn_readonly=False)
    return t.requires_grad_() if requires_grad else t
