"""DLPack: zero-copy exchange of CPU tensors with torch, NumPy and any other DLPack library.

The DLPack C structs are declared with ``ctypes``; capsules are read and consumed
through the CPython C API (``ctypes.pythonapi``), so a strided tensor and a torch
tensor (or a NumPy array) look at the same bytes.

Note [DLPack lifetimes]
~~~~~~~~~~~~~~~~~~~~~~~
Exporting (``Tensor.__dlpack__``): a consumer releases the memory by calling the
struct's ``deleter``, and an unconsumed capsule must do the same from its
destructor. Both run from C at moments the producer does not choose: from a
thread without the GIL, during interpreter shutdown, or while the consumer has
an exception in flight (NumPy sets its error, then drops a capsule it refuses).
A ``ctypes`` callback cannot be correct there: returning from Python code with
an exception pending turns it into a SystemError, so the consumer's own error
is lost (and a cleanup that calls the C API from the callback is skipped). So
the C side is NumPy's: the tensor is presented to NumPy as an array whose base
is an ``ArrayExport`` (via ``_export_keeper``) holding the tensor, NumPy's ``__dlpack__`` makes the
struct, the capsule and their C deleters (which only drop a reference, with the
GIL, and only while Python is alive), and we rewrite what NumPy cannot know
(the dtype code, which NumPy lacks for bfloat16, and the copied flag). When the
consumer calls the deleter, the array and then the keeper go, and with the last
reference the tensor's storage returns to its allocator, from a plain reference
drop, where CPython protects any pending exception. ``_exports`` maps each live
struct's address to its keeper (weakly), to observe this.

Importing (``from_dlpack``): the consumed struct's deleter belongs to the
producer. An ``_ImportOwner`` remembers it and calls it from ``__del__`` (again
a plain reference drop, so it is exception-safe); the storage made over the
memory keeps the owner alive (``UntypedStorage._wrap``), and so does every
NumPy view of that storage's bytes, so the producer is told to release the
memory exactly once, when the last strided tensor or view is gone.
"""

from __future__ import annotations

import ctypes
import enum
import weakref

import numpy as np

from ..core import dtypes as dt
from ..core.devices import CPU
from ..core.devices import device as _device_cls
from ..core.storage import UntypedStorage
from ..core.tensor_impl import ArrayExport, contiguous_strides, make_tensor

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

# The DLPack version strided asks producers for; it reads any 1.x struct (the layout
# is only stable within a major version).
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


# ``deleter`` is ``void (*)(DLManagedTensor*)``, declared as a plain address: we only read
# it, to call it (see ``_ImportOwner``).
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
# Capsules go in as ``id(capsule)`` (``c_void_p``) while the caller holds a reference.

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


def _export_keeper(t, readonly: bool):
    """What an exported capsule keeps alive: the tensor and its memory block.

    NumPy sees it as an array; the capsule is that array's. bfloat16 travels as uint16
    through NumPy (which has no DLPack code for it); the struct's dtype is rewritten
    afterwards. See Note [DLPack lifetimes].
    """
    np_dtype = np.dtype(np.uint16) if t._dtype is dt.bfloat16 else \
        np.dtype(np.uint32) if t._dtype is dt.complex32 else None   # (complex32 likewise)
    return ArrayExport(t, readonly, np_dtype)


# struct address -> the keeper it holds, while a consumer (or an unconsumed capsule) has it.
_exports: weakref.WeakValueDictionary = weakref.WeakValueDictionary()

_DL_CODE = {
    dt.bool_: kDLBool,
    dt.uint8: kDLUInt, dt.uint16: kDLUInt, dt.uint32: kDLUInt, dt.uint64: kDLUInt,
    dt.int8: kDLInt, dt.int16: kDLInt, dt.int32: kDLInt, dt.int64: kDLInt,
    dt.float16: kDLFloat, dt.float32: kDLFloat, dt.float64: kDLFloat,
    dt.bfloat16: kDLBfloat,
    dt.complex64: kDLComplex, dt.complex128: kDLComplex, dt.complex32: kDLComplex,
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
    if t.requires_grad:
        raise BufferError("Can't export tensors that require gradient, use tensor.detach()")
    if t.is_conj():
        raise BufferError("Can't export tensors with the conjugate bit set")
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
    readonly = t._storage._buf is not None and not t._storage._buf.flags.writeable
    keeper = _export_keeper(t, readonly)
    array = np.asarray(keeper)
    # NumPy makes the struct, the capsule, its destructor and the deleter (all C, see
    # Note [DLPack lifetimes]); we only correct what it cannot know.
    if versioned:
        capsule = array.__dlpack__(max_version=DLPACK_VERSION)
        addr = _PyCapsule_GetPointer(id(capsule), _NAME_VERSIONED)
        managed = DLManagedTensorVersioned.from_address(addr)
        if copied:
            managed.flags |= DLPACK_FLAG_BITMASK_IS_COPIED
    else:
        capsule = array.__dlpack__()
        addr = _PyCapsule_GetPointer(id(capsule), _NAME)
        managed = DLManagedTensor.from_address(addr)
    managed.dl_tensor.dtype = DLDataType(_DL_CODE[dtype], dtype.itemsize * 8, 1)
    _exports[addr] = keeper
    return capsule


def to_dlpack(t):
    """``torch.utils.dlpack.to_dlpack``: a legacy ``dltensor`` capsule of ``t``. Like torch's,
    it does not refuse a conjugate or negative view: it exports the bytes as they are."""
    if t.is_conj() or t.is_neg():
        t = make_tensor(t._storage, t._sizes, t._strides, t._offset, t._dtype, t._vc)
    return to_dlpack_capsule(t)


# -- import ----------------------------------------------------------------------------------


# Calls a producer's deleter with the GIL held (deleters may or may not take it themselves).
_CALL_DELETER_T = ctypes.PYFUNCTYPE(None, ctypes.c_void_p)


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
    """The strided dtype of a DLDataType; BufferError (as torch raises) if there is none."""
    if lanes != 1:
        raise BufferError(
            f"strided does not support lanes != 1 (got {lanes} for dtype code {code})")
    d = _FROM_DL.get((code, bits))
    if d is None:
        name = _CODE_NAMES.get(code)
        if name is None or code == kDLOpaqueHandle:
            raise BufferError(f"Unsupported DLPack dtype code {code}")
        raise BufferError(f"Unsupported {name} bits {bits}")
    return d


def _check_cpu(kind, index) -> None:
    kind = int(kind)
    if kind != DLDeviceType.kDLCPU:
        label = DLDeviceType(kind).name if kind in DLDeviceType._value2member_map_ else kind
        raise BufferError(
            f"Unsupported device_type: {label} (device {index}); strided can only import "
            "DLPack tensors in CPU memory (kDLCPU): copy the tensor to the CPU first")


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
            raise RuntimeError(
                f"DLPack version {major}.{minor} is not supported (strided reads "
                f"{DLPACK_VERSION[0]}.x)")
        readonly = bool(managed.flags & DLPACK_FLAG_BITMASK_READ_ONLY)
    else:
        managed = DLManagedTensor.from_address(addr)
    dl = managed.dl_tensor

    # Validate everything before consuming; a refused capsule is left to its destructor.
    _check_cpu(dl.device.device_type, dl.device.device_id)
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
        _check_cpu(*ext_tensor.__dlpack_device__())  # before the producer exports anything

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
