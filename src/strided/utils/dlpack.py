"""DLPack: zero-copy exchange of CPU tensors with torch, NumPy and any other DLPack library.

The DLPack C structs are declared with ``ctypes`` and the capsules are made and
consumed through the CPython C API (``ctypes.pythonapi``), so a strided tensor
and a torch tensor (or a NumPy array) can look at the same bytes.

Note [DLPack lifetimes]
~~~~~~~~~~~~~~~~~~~~~~~
Exporting (``Tensor.__dlpack__``): the ``DLManagedTensor[Versioned]`` struct and
its shape/strides arrays are ctypes objects owned by Python. They, the exported
tensor and its storage's buffer go into ``_exports``, keyed by the struct's
address; that entry is the reference that keeps the memory alive for the
consumer. The struct's ``deleter`` is a ctypes callback that pops the entry, so
the consumer releases the memory by calling it, exactly once (popping is
idempotent, so a second call could not free anything twice). A capsule nobody
consumed still carries its original name when it dies; its destructor then
pops the entry itself. A consumer renames the capsule ("used_dltensor"), after
which the destructor leaves the entry to the consumer's deleter call.

Importing (``from_dlpack``): the consumed struct's deleter belongs to the
producer. An ``_ImportOwner`` remembers it and calls it from ``__del__``; the
storage made over the memory keeps the owner alive (``UntypedStorage._wrap``),
and every NumPy view of that storage's bytes does too, so the producer is told
to release the memory only when the last strided tensor or view is gone.
"""

from __future__ import annotations

import ctypes
import enum

import numpy as np

from ..core import dtypes as dt
from ..core.devices import CPU
from ..core.devices import device as _device_cls
from ..core.storage import UntypedStorage
from ..core.tensor_impl import contiguous_strides, make_tensor

__all__ = [
    "DLDeviceType",
    "dlpack_device",
    "from_dlpack",
    "to_dlpack",
    "to_dlpack_capsule",
]


class DLDeviceType(enum.IntEnum):
    """DLPack's device codes (``DLDeviceType`` in dlpack.h)."""

    kDLCPU = 1
    kDLCUDA = 2
    kDLCUDAHost = 3
    kDLOpenCL = 4
    kDLVulkan = 7
    kDLMetal = 8
    kDLVPI = 9
    kDLROCM = 10
    kDLROCMHost = 11
    kDLExtDev = 12
    kDLCUDAManaged = 13
    kDLOneAPI = 14
    kDLWebGPU = 15
    kDLHexagon = 16
    kDLMAIA = 17


# DLDataTypeCode
kDLInt, kDLUInt, kDLFloat, kDLOpaqueHandle, kDLBfloat, kDLComplex, kDLBool = range(7)

# Flags of DLManagedTensorVersioned (DLPack >= 1.0).
DLPACK_FLAG_BITMASK_READ_ONLY = 1 << 0
DLPACK_FLAG_BITMASK_IS_COPIED = 1 << 1

# The version this module writes into the structs it exports, and the highest
# major version it can read (the layout is only stable within a major version).
DLPACK_VERSION = (1, 0)


# -- the C structs (dlpack.h) ----------------------------------------------------------------


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


# ``deleter`` is ``void (*)(DLManagedTensor*)``; declared as a plain address so that
# foreign deleters can be read and our own callback stored without ctypes conversions.
class DLManagedTensor(ctypes.Structure):
    _fields_ = [
        ("dl_tensor", DLTensor),
        ("manager_ctx", ctypes.c_void_p),
        ("deleter", ctypes.c_void_p),
    ]


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [
        ("version", DLPackVersion),
        ("manager_ctx", ctypes.c_void_p),
        ("deleter", ctypes.c_void_p),
        ("flags", ctypes.c_uint64),
        ("dl_tensor", DLTensor),
    ]


# -- the capsule C API -----------------------------------------------------------------------
# Private prototypes (not ``ctypes.pythonapi.X.restype = ...``, which other libraries share).
# Capsules are passed as ``c_void_p`` where they may be dying (in their destructor) so that
# ctypes never touches their reference count.

_api = ctypes.pythonapi
_PyCapsule_New = ctypes.PYFUNCTYPE(
    ctypes.py_object, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p)(
    ("PyCapsule_New", _api))
_PyCapsule_IsValid = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p)(
    ("PyCapsule_IsValid", _api))
_PyCapsule_GetPointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p)(
    ("PyCapsule_GetPointer", _api))
_PyCapsule_SetName = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p)(
    ("PyCapsule_SetName", _api))

# Capsule names: module constants, so the C strings outlive every capsule that uses them.
_NAME = b"dltensor"
_NAME_VERSIONED = b"dltensor_versioned"
_USED_NAME = b"used_dltensor"
_USED_NAME_VERSIONED = b"used_dltensor_versioned"

_CapsuleType = type(_PyCapsule_New(1, b"strided.capsule_probe", None))

# -- export ----------------------------------------------------------------------------------

# struct address -> (struct, shape array, strides array, tensor, storage buffer); the buffer
# too, so that even a ``resize_`` of the storage cannot free memory a consumer still reads.
# See Note [DLPack lifetimes].
_exports: dict[int, tuple] = {}

_DELETER_T = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
_CALL_DELETER_T = ctypes.PYFUNCTYPE(None, ctypes.c_void_p)


@_DELETER_T
def _export_deleter(managed):
    """``DLManagedTensor.deleter`` of everything we export: drop the keep-alive entry."""
    try:
        _exports.pop(managed, None)
    except Exception:  # noqa: S110 - an exception must not escape into C
        pass


@_DELETER_T
def _capsule_destructor(capsule):
    """Runs when an exported capsule dies: if nobody consumed it, release it here."""
    try:
        for name in (_NAME, _NAME_VERSIONED):
            if _PyCapsule_IsValid(capsule, name):  # still unconsumed: the struct is ours
                _exports.pop(_PyCapsule_GetPointer(capsule, name), None)
                return
    except Exception:  # noqa: S110 - an exception must not escape into C
        pass


_DELETER_ADDR = ctypes.cast(_export_deleter, ctypes.c_void_p).value
_CAPSULE_DTOR_ADDR = ctypes.cast(_capsule_destructor, ctypes.c_void_p).value

_DL_CODE = {
    dt.bool_: kDLBool,
    dt.uint8: kDLUInt, dt.uint16: kDLUInt, dt.uint32: kDLUInt, dt.uint64: kDLUInt,
    dt.int8: kDLInt, dt.int16: kDLInt, dt.int32: kDLInt, dt.int64: kDLInt,
    dt.float16: kDLFloat, dt.float32: kDLFloat, dt.float64: kDLFloat,
    dt.bfloat16: kDLBfloat,
    dt.complex64: kDLComplex, dt.complex128: kDLComplex,
}
_FROM_DL = {(code, d.itemsize * 8): d for d, code in _DL_CODE.items()}
_CODE_NAMES = {kDLInt: "kDLInt", kDLUInt: "kDLUInt", kDLFloat: "kDLFloat",
               kDLOpaqueHandle: "kDLOpaqueHandle", kDLBfloat: "kDLBfloat",
               kDLComplex: "kDLComplex", kDLBool: "kDLBool"}


def dlpack_device(t) -> tuple:
    """``Tensor.__dlpack_device__``: ``(DLDeviceType, index)``, e.g. ``(kDLCPU, 0)``."""
    dev = t._device
    if dev.type == "cpu":
        return (DLDeviceType.kDLCPU, 0)
    if dev.type == "cuda":
        return (DLDeviceType.kDLCUDA, dev.index or 0)
    raise ValueError(f"Unknown device type {dev.type} for Dlpack")


def _parse_dl_device(dl_device) -> tuple:
    try:
        kind, index = dl_device
        return int(kind), int(index)
    except (TypeError, ValueError):
        raise TypeError(
            f"dl_device must be a (device_type, device_id) pair, got {dl_device!r}") from None


def to_dlpack_capsule(t, *, stream=None, max_version=None, dl_device=None, copy=None):
    """``Tensor.__dlpack__``: a capsule describing ``t``'s memory, shared, not copied.

    ``max_version`` is the consumer's highest DLPack version: with ``(1, x)`` or more the
    capsule is a ``dltensor_versioned`` one, else a legacy ``dltensor``. ``copy=True``
    exports a fresh copy; ``dl_device`` may only name the CPU.
    """
    if t._requires_grad:
        raise BufferError("Can't export tensors that require gradient, use tensor.detach()")
    if stream is not None and type(stream) is not int:
        raise TypeError("stream must be ``int`` or ``none``")
    dev = t._device
    if dev.type != "cpu":
        raise BufferError(f"Cannot pack tensors on {dev}")
    if stream is not None and stream != -1:
        raise AssertionError("stream should be None on cpu.")
    if dl_device is not None and _parse_dl_device(dl_device) != (DLDeviceType.kDLCPU, 0):
        kind, index = _parse_dl_device(dl_device)
        if copy is False:
            raise BufferError(
                f"cannot move tensor from cpu to DLPack device ({kind}, {index}) without "
                "copying, and strided can only export CPU memory")
        raise BufferError(
            f"unsupported device requested: DLPack device ({kind}, {index}); strided can only "
            "export CPU memory (kDLCPU, 0)")
    copied = bool(copy) if copy is not None else False
    if copied:
        t = t.detach().clone()
    versioned = max_version is not None and int(max_version[0]) >= 1

    dtype = t._dtype
    itemsize = dtype.itemsize
    sizes = t._sizes
    ndim = len(sizes)
    # Strides of dims of size < 2 never matter; write 1 there (as torch does), since some
    # consumers judge contiguity by them.
    strides = tuple(1 if n < 2 else s for n, s in zip(sizes, t._strides))
    shape_arr = (ctypes.c_int64 * max(ndim, 1))(*sizes)
    strides_arr = (ctypes.c_int64 * max(ndim, 1))(*strides)

    managed = DLManagedTensorVersioned() if versioned else DLManagedTensor()
    if versioned:
        managed.version.major, managed.version.minor = DLPACK_VERSION
        managed.flags = DLPACK_FLAG_BITMASK_IS_COPIED if copied else 0
    dl = managed.dl_tensor
    storage = t._storage
    # The storage offset is folded into ``data`` (byte_offset stays 0), as torch does:
    # not every consumer honours ``byte_offset``.
    dl.data = (storage._ptr + t._offset * itemsize) if storage._ptr else None
    dl.device = DLDevice(DLDeviceType.kDLCPU, 0)
    dl.ndim = ndim
    dl.dtype = DLDataType(_DL_CODE[dtype], itemsize * 8, 1)
    dl.shape = ctypes.cast(shape_arr, ctypes.POINTER(ctypes.c_int64))
    dl.strides = ctypes.cast(strides_arr, ctypes.POINTER(ctypes.c_int64))
    dl.byte_offset = 0
    managed.manager_ctx = None
    managed.deleter = _DELETER_ADDR

    addr = ctypes.addressof(managed)
    name = _NAME_VERSIONED if versioned else _NAME
    _exports[addr] = (managed, shape_arr, strides_arr, t, storage._buf)
    try:
        return _PyCapsule_New(addr, name, _CAPSULE_DTOR_ADDR)
    except BaseException:
        _exports.pop(addr, None)
        raise


def to_dlpack(t):
    """``torch.utils.dlpack.to_dlpack``: a legacy ``dltensor`` capsule of ``t``."""
    return to_dlpack_capsule(t)


# -- import ----------------------------------------------------------------------------------


class _ImportOwner:
    """Holds a consumed DLPack struct; calls the producer's deleter when the last user goes."""

    __slots__ = ("__weakref__", "_deleter", "_managed")

    def __init__(self, managed: int, deleter: int | None):
        self._managed = managed
        self._deleter = deleter

    def release(self):
        managed, deleter = self._managed, self._deleter
        self._managed = self._deleter = None
        if not deleter:
            return
        if deleter == _DELETER_ADDR:
            _exports.pop(managed, None)  # our own export: skip the trip through C
        else:
            _CALL_DELETER_T(deleter)(managed)

    def __del__(self):
        self.release()


class _RawBytes:
    """Presents ``nbytes`` at ``ptr`` to NumPy as a uint8 array, holding ``owner`` alive."""

    __slots__ = ("__array_interface__", "owner")

    def __init__(self, ptr: int, nbytes: int, readonly: bool, owner):
        self.owner = owner
        self.__array_interface__ = {"data": (ptr, readonly), "shape": (nbytes,),
                                    "typestr": "|u1", "version": 3}


def _to_dtype(code: int, bits: int, lanes: int):
    if lanes != 1:
        raise RuntimeError(f"strided does not support lanes != 1 (got lanes={lanes})")
    d = _FROM_DL.get((code, bits))
    if d is None:
        name = _CODE_NAMES.get(code)
        if name is None:
            raise RuntimeError(f"Unsupported DLPack dtype code {code}")
        raise RuntimeError(f"Unsupported {name} bits {bits}")
    return d


def _consume(capsule):
    """A strided tensor over the memory a DLPack capsule describes (see the module Note)."""
    if type(capsule) is not _CapsuleType:
        raise TypeError(
            f"from_dlpack expects an object with __dlpack__ or a DLPack capsule, got "
            f"{type(capsule).__name__}")
    if _PyCapsule_IsValid(id(capsule), _NAME_VERSIONED):
        versioned, name, used = True, _NAME_VERSIONED, _USED_NAME_VERSIONED
    elif _PyCapsule_IsValid(id(capsule), _NAME):
        versioned, name, used = False, _NAME, _USED_NAME
    else:
        raise RuntimeError(
            "from_dlpack received an invalid capsule. Note that DLTensor capsules can be "
            "consumed only once, so you might have already constructed a tensor from it once.")
    addr = _PyCapsule_GetPointer(id(capsule), name)
    readonly = False
    if versioned:
        managed = DLManagedTensorVersioned.from_address(addr)
        major, minor = managed.version.major, managed.version.minor
        if major > DLPACK_VERSION[0]:
            # Only the version field is readable in a struct of an unknown major version.
            # The capsule stays unconsumed: its destructor gives it back to the producer.
            raise BufferError(
                f"DLPack version {major}.{minor} is not supported (strided reads "
                f"{DLPACK_VERSION[0]}.x)")
        readonly = bool(managed.flags & DLPACK_FLAG_BITMASK_READ_ONLY)
    else:
        managed = DLManagedTensor.from_address(addr)
    dl = managed.dl_tensor

    # Validate everything before consuming; a refused capsule is left to its destructor.
    kind, index = dl.device.device_type, dl.device.device_id
    if kind != DLDeviceType.kDLCPU:
        try:
            label = DLDeviceType(kind).name
        except ValueError:
            label = str(kind)
        raise BufferError(
            f"strided can only import DLPack tensors in CPU memory (kDLCPU), got device "
            f"{label}:{index}; copy the tensor to the CPU first")
    dtype = _to_dtype(dl.dtype.code, dl.dtype.bits, dl.dtype.lanes)
    ndim = dl.ndim
    if ndim < 0:
        raise BufferError(f"DLPack tensor has a negative ndim ({ndim})")
    sizes = tuple(dl.shape[:ndim]) if ndim else ()
    if any(n < 0 for n in sizes):
        raise BufferError(f"DLPack tensor has a negative size: {sizes}")
    numel = 1
    for n in sizes:
        numel *= n
    if dl.strides and ndim:
        strides = tuple(dl.strides[:ndim])
        # Strides of dims of size < 2 are never used to address anything.
        strides = tuple(1 if n < 2 and s < 0 else s for n, s in zip(sizes, strides))
        if numel and any(s < 0 for s in strides):
            raise BufferError(
                f"strided tensors cannot have negative strides (got strides {strides}); "
                "copy the array first")
        if not numel:
            strides = tuple(max(s, 0) for s in strides)
    else:
        strides = contiguous_strides(sizes)  # legacy DLPack: NULL strides means row-major
    itemsize = dtype.itemsize
    data = dl.data or 0
    byte_offset = dl.byte_offset
    offset = 0
    if numel:
        if not data:
            raise BufferError("DLPack tensor with elements has a NULL data pointer")
        extent = (sum((n - 1) * s for n, s in zip(sizes, strides)) + 1) * itemsize
        if byte_offset % itemsize == 0:
            # Keep the producer's offset as the storage offset; ``data`` is the start of
            # the producer's allocation, so the bytes before the offset are its memory too.
            base, offset, nbytes = data, byte_offset // itemsize, byte_offset + extent
        else:
            base, nbytes = data + byte_offset, extent

    if _PyCapsule_SetName(id(capsule), used) != 0:  # from here on, the deleter is ours to call
        raise RuntimeError("from_dlpack could not mark the capsule as consumed")
    owner = _ImportOwner(addr, managed.deleter)
    if numel:
        buf = np.asarray(_RawBytes(base, nbytes, readonly, owner))
    else:
        buf = np.empty(0, np.uint8)
    storage = UntypedStorage._wrap(buf, CPU, owner=owner)
    if readonly and storage._buf.size:
        storage._buf.flags.writeable = False  # writes raise instead of corrupting
    return make_tensor(storage, sizes, strides, offset, dtype)


def from_dlpack(ext_tensor, *, device=None, copy=None):
    """A strided tensor sharing memory with ``ext_tensor`` (anything with ``__dlpack__``,
    e.g. a torch tensor or a NumPy array, or a DLPack capsule). Only CPU memory can be
    imported; ``copy=True`` asks for a private copy."""
    if not hasattr(ext_tensor, "__dlpack__"):
        if device is not None or copy is not None:
            raise AssertionError(
                "device and copy kwargs not supported when ext_tensor is already a DLPack "
                "capsule.")
        return _consume(ext_tensor)

    if device is not None and _device_cls(device).type != "cpu":
        raise BufferError(f"strided can only import DLPack tensors to the CPU, not {device}")
    if hasattr(ext_tensor, "__dlpack_device__"):
        kind, index = ext_tensor.__dlpack_device__()
        if int(kind) != DLDeviceType.kDLCPU:
            try:
                label = DLDeviceType(int(kind)).name
            except ValueError:
                label = str(int(kind))
            raise BufferError(
                f"strided can only import DLPack tensors in CPU memory (kDLCPU), got device "
                f"{label}:{index}; copy the tensor to the CPU first")

    kwargs = {"max_version": (1, 0)}
    if copy is not None:
        kwargs["copy"] = copy
    if device is not None:
        kwargs["dl_device"] = (DLDeviceType.kDLCPU, 0)
    producer_copied = copy is not None
    # Older producers know fewer keywords: drop them one at a time, as torch does.
    while True:
        try:
            capsule = ext_tensor.__dlpack__(**kwargs)
            break
        except TypeError:
            left = [k for k in ("max_version", "copy", "dl_device") if k in kwargs]
            if not left:
                raise
            kwargs.pop(left[0])
            producer_copied = producer_copied and left[0] != "copy"
    t = _consume(capsule)
    if copy and not producer_copied:
        t = t.clone()
    return t
