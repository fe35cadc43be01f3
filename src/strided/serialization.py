"""``strided.save`` / ``strided.load``: torch's checkpoint format, read and written both ways.

A checkpoint is a zip archive (stored, not compressed) with one folder, named after the
file (``model.pt`` -> ``model/``; ``archive/`` for buffers)::

    model/data.pkl                 the object, pickled (protocol 2 by default)
    model/.format_version          "1"
    model/.storage_alignment       "64": every record's bytes start at a multiple of 64
    model/byteorder                "little"
    model/data/0, data/1, ...      one record per storage: its raw bytes
    model/version                  "3"
    model/.data/serialization_id   a random id

Note [Tensors in the pickle]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A tensor pickles as a call ``torch._utils._rebuild_tensor_v2(storage, offset, size, stride,
requires_grad, OrderedDict())`` whose storage is a *persistent id*
``('storage', torch.FloatStorage, key, 'cpu', numel)``: the pickler writes the id, and the
bytes go to ``data/<key>`` once per storage, however many views refer to it. Loading builds
each storage once and every view over it again (``set_``), so sharing, offsets and strides
survive. uint16/32/64 use ``_rebuild_tensor_v3`` with an untyped storage and the dtype.

Note [Torch's names in the pickle]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Pickles name classes and functions by import path. strided writes torch's names
(``torch._utils._rebuild_tensor_v2``, ``torch.FloatStorage``, ``torch.float32``,
``torch.nn.modules.linear.Linear`` for ``strided.nn.modules.linear.Linear``) so that torch
can load strided's files, and reads them back into strided's objects (a fixed table for
torch's internals, ``torch.<path>`` -> ``strided.<path>`` for everything else, e.g. whole
modules), so strided loads torch's files. The C pickler insists that a global it writes can
be imported under that name: saving uses it with a prelude of torch's names (Note [The
fast pickler]), and falls back to ``pickle._Pickler`` (the pure-Python pickler, whose
``save_global`` we override) when an object needs another renamed global (whole modules).

What strided does not have, it refuses plainly: sparse, quantized and nested tensors
(their ``_rebuild_*`` raise a RuntimeError naming the kind), devices other than 'cpu' and
'meta' (a checkpoint tagged 'cuda:0' needs ``map_location``, as torch without a GPU says),
and ``TypedStorage``: a storage saved on its own loads as an ``UntypedStorage``.

Note [mmap]
~~~~~~~~~~~
Records are stored uncompressed and aligned to 64 bytes, so ``load(path, mmap=True)``
maps the file once (privately: writes to the tensors never reach the file) and each storage
is a window of that map; nothing is read until it is touched.
"""

from __future__ import annotations

import io
import mmap as _mmap
import os
import pickle
import struct
import sys
import threading
import warnings
import zipfile
import zlib
from collections import OrderedDict
from enum import Enum
from typing import Any

import numpy as np

from . import _weights_only_unpickler
from .core import dtypes as _dt
from .core.devices import device as _device
from .core.dispatch_keys import DispatchKey
from .core.layouts import layout as _layout
from .core.layouts import memory_format as _memory_format
from .core.storage import UntypedStorage
from .frontend.tensor import Size, Tensor

__all__ = [
    "DEFAULT_PROTOCOL",
    "LoadEndianness",
    "SourceChangeWarning",
    "StorageType",
    "add_safe_globals",
    "clear_safe_globals",
    "default_restore_location",
    "get_default_load_endianness",
    "get_default_mmap_options",
    "get_safe_globals",
    "get_unsafe_globals_in_checkpoint",
    "load",
    "location_tag",
    "safe_globals",
    "save",
    "set_default_load_endianness",
    "set_default_mmap_options",
    "skip_data",
]

DEFAULT_PROTOCOL = 2
MAGIC_NUMBER = 0x1950A86A20F9469CFC6C
PROTOCOL_VERSION = 1001
STORAGE_ALIGNMENT = 64
_FILE_FORMAT_VERSION = b"3\n"

UNSAFE_MESSAGE = (
    "In PyTorch 2.6, we changed the default value of the `weights_only` argument in "
    "`torch.load` from `False` to `True`. Re-running `torch.load` with `weights_only` set to "
    "`False` will likely succeed, but it can result in arbitrary code execution. Do it only "
    "if you got the file from a trusted source."
)
_DOCS_MESSAGE = (
    "\n\nCheck the documentation of torch.load to learn more about types accepted by default "
    "with weights_only https://pytorch.org/docs/stable/generated/torch.load.html."
)


class SourceChangeWarning(Warning):
    pass


class LoadEndianness(Enum):
    NATIVE = 1
    LITTLE = 2
    BIG = 3


_default_load_endianness: LoadEndianness | None = None


def get_default_load_endianness() -> LoadEndianness | None:
    return _default_load_endianness


def set_default_load_endianness(endianness) -> None:
    global _default_load_endianness
    if endianness is not None and not isinstance(endianness, LoadEndianness):
        raise TypeError("Invalid argument type in function set_default_load_endianness")
    _default_load_endianness = endianness


# -- safe globals (the weights_only allow-list's user part) ------------------------------------

def add_safe_globals(safe_globals: list) -> None:
    """Marks the given functions/classes (or ``(obj, "full.path")`` pairs) as safe for
    ``load(weights_only=True)``."""
    _weights_only_unpickler._add_safe_globals(safe_globals)


def get_safe_globals() -> list:
    """The user-added globals that ``weights_only`` loads accept."""
    return _weights_only_unpickler._get_safe_globals()


def clear_safe_globals() -> None:
    """Forgets every user-added safe global."""
    _weights_only_unpickler._clear_safe_globals()


class safe_globals(_weights_only_unpickler._safe_globals):
    """``with safe_globals([MyClass]): load(f)``: the globals are safe inside the block."""


# -- storages in the pickle ----------------------------------------------------------------------

class StorageType:
    """What ``torch.FloatStorage`` & co. unpickle to: a marker carrying the dtype."""

    __slots__ = ("_dtype", "_name")

    def __init__(self, name: str):
        if name not in _STORAGE_NAME_TO_DTYPE:
            raise KeyError(f'pickle storage type "{name}" is not recognized')
        self._name = name
        self._dtype = _STORAGE_NAME_TO_DTYPE[name]

    @property
    def dtype(self):
        return self._dtype

    def __str__(self):
        return f"StorageType(dtype={self._dtype})"

    __repr__ = __str__


# torch's legacy storage class of each dtype it had before 2.0 (newer dtypes pickle an
# untyped storage plus the dtype: ``_rebuild_tensor_v3``)
_DTYPE_TO_STORAGE_NAME = {
    _dt.float64: "DoubleStorage", _dt.float32: "FloatStorage", _dt.float16: "HalfStorage",
    _dt.int64: "LongStorage", _dt.int32: "IntStorage", _dt.int16: "ShortStorage",
    _dt.int8: "CharStorage", _dt.uint8: "ByteStorage", _dt.bool_: "BoolStorage",
    _dt.bfloat16: "BFloat16Storage", _dt.complex128: "ComplexDoubleStorage",
    _dt.complex64: "ComplexFloatStorage",
}
_STORAGE_NAME_TO_DTYPE = {v: k for k, v in _DTYPE_TO_STORAGE_NAME.items()}
_STORAGE_TYPES = {name: StorageType(name) for name in _STORAGE_NAME_TO_DTYPE}
_V3_DTYPES = (_dt.uint16, _dt.uint32, _dt.uint64, _dt.complex32)


class _StorageRef:
    """A (storage, dtype) pair the pickler turns into a persistent id (save side)."""

    __slots__ = ("dtype", "storage")

    def __init__(self, storage, dtype):
        self.storage = storage
        self.dtype = dtype        # None: an untyped storage (numel counts bytes)


class _LoadedStorage:
    """A storage read back from a checkpoint, with the dtype its persistent id named
    (torch's ``TypedStorage``): what the ``_rebuild_*`` functions receive."""

    __slots__ = ("_untyped_storage", "dtype")

    def __init__(self, storage, dtype):
        self._untyped_storage = storage
        self.dtype = dtype


# -- rebuilding (the functions the pickle calls, under torch's names) ----------------------------

def _tensor_on(storage: UntypedStorage, dtype, offset, size, stride):
    from . import empty
    return empty((0,), dtype=dtype, device=storage.device).set_(storage, offset, size, stride)


def tensor_metadata(t):
    """torch's ``_utils.get_tensor_metadata``: the conjugate / negative bits a pickled tensor
    carries (Note [Conjugate and negative bits] in kernels/view_ops.py)."""
    metadata = {}
    if t._keyset & _NEG_BIT:
        metadata["neg"] = True
    if t._keyset & _CONJ_BIT:
        metadata["conj"] = True
    return metadata


def _apply_metadata(tensor, metadata):
    """torch's ``set_tensor_metadata``: the bits set on the rebuilt tensor."""
    if metadata:
        if metadata.get("conj"):
            tensor._keyset |= _CONJ_BIT
        if metadata.get("neg"):
            tensor._keyset |= _NEG_BIT
    return tensor


_CONJ_BIT = DispatchKey.Conjugate.bit
_NEG_BIT = DispatchKey.Negative.bit


def _rebuild_tensor(storage, storage_offset, size, stride):
    return _tensor_on(storage._untyped_storage, storage.dtype, storage_offset, size, stride)


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks,
                       metadata=None):
    tensor = _rebuild_tensor(storage, storage_offset, size, stride)
    tensor = _apply_metadata(tensor, metadata)
    if requires_grad:
        tensor.requires_grad = True
    return tensor


def _rebuild_tensor_v3(storage, storage_offset, size, stride, requires_grad, backward_hooks,
                       dtype, metadata=None):
    untyped = storage._untyped_storage if isinstance(storage, _LoadedStorage) else storage
    tensor = _tensor_on(untyped, dtype, storage_offset, size, stride)
    tensor = _apply_metadata(tensor, metadata)
    if requires_grad:
        tensor.requires_grad = True
    return tensor


def _rebuild_parameter(data, requires_grad, backward_hooks):
    from .nn.parameter import Parameter
    return Parameter(data, requires_grad)


def _rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    param = _rebuild_parameter(data, requires_grad, backward_hooks)
    return _set_obj_state(param, state)


def _set_obj_state(obj, state):
    if isinstance(state, tuple):
        if len(state) != 2:
            raise RuntimeError(f"Invalid serialized state: {state}")
        dict_state, slots_state = state
    else:
        dict_state, slots_state = state, None
    for k, v in (dict_state or {}).items():
        setattr(obj, k, v)
    for k, v in (slots_state or {}).items():
        setattr(obj, k, v)
    return obj


def _rebuild_from_type_v2(func, new_type, args, state):
    ret = func(*args)
    if type(ret) is not new_type:
        ret = Tensor._make_subclass(new_type, ret, ret.requires_grad)
    setstate = getattr(type(ret), "__setstate__", None)
    if setstate is not None:
        ret.__setstate__(state)
    else:
        ret = _set_obj_state(ret, state)
    return ret


def _rebuild_meta_tensor_no_storage(dtype, size, stride, requires_grad):
    from . import empty_strided
    return empty_strided(size, stride, dtype=dtype, device="meta", requires_grad=requires_grad)


def _rebuild_device_tensor_from_cpu_tensor(data, dtype, device, requires_grad):
    tensor = data.to(dtype=dtype, device=_restore_device(device))
    tensor.requires_grad = requires_grad
    return tensor


def _rebuild_device_tensor_from_numpy(data, dtype, device, requires_grad):
    from . import from_numpy
    tensor = from_numpy(data).to(dtype=dtype, device=_restore_device(device))
    tensor.requires_grad = requires_grad
    return tensor


def _restore_device(device):
    map_location = _tls.map_location
    if map_location is None or callable(map_location) and not isinstance(map_location, str):
        return device
    if isinstance(map_location, dict):
        return map_location.get(str(device), device)
    return str(map_location)


# torch's rebuild functions for tensors strided does not have: loading one says so
_UNSUPPORTED_REBUILDS = {
    "_rebuild_qtensor": "quantized",
    "_rebuild_nested_tensor": "nested", "_rebuild_wrapper_subclass": "wrapper subclass",
}


def _rebuild_sparse_tensor(layout, data):
    """A sparse tensor from its members (torch's ``_rebuild_sparse_tensor``): COO
    ``(indices, values, size[, is_coalesced])``, compressed ``(compressed_indices,
    plain_indices, values, size)``."""
    import strided
    if layout is strided.sparse_coo:
        if len(data) == 3:
            indices, values, size = data
            is_coalesced = None
        else:
            indices, values, size, is_coalesced = data
        return strided.sparse_coo_tensor(indices, values, size, check_invariants=False,
                                         is_coalesced=is_coalesced)
    if layout in (strided.sparse_csr, strided.sparse_csc, strided.sparse_bsr,
                  strided.sparse_bsc):
        compressed_indices, plain_indices, values, size = data
        return strided.sparse_compressed_tensor(compressed_indices, plain_indices, values, size,
                                                layout=layout, check_invariants=False)
    raise NotImplementedError(f"rebuilding sparse tensor for layout {layout}")


def sparse_reduce_args(t):
    """``(layout, data)`` of a sparse tensor for ``_rebuild_sparse_tensor``."""
    import strided
    layout = t.layout
    if layout is strided.sparse_coo:
        return layout, (t._indices(), t._values(), t.size(), t.is_coalesced())
    if layout in (strided.sparse_csr, strided.sparse_bsr):
        return layout, (t.crow_indices(), t.col_indices(), t.values(), t.size())
    return layout, (t.ccol_indices(), t.row_indices(), t.values(), t.size())


def _refuse(name: str, kind: str):
    def rebuild(*args, **kwargs):
        raise RuntimeError(f"strided has no {kind} tensors: cannot load the checkpoint's "
                           f"torch._utils.{name}(...)")
    rebuild.__name__ = name
    return rebuild


_LAYOUTS_BY_NAME: dict[str, Any] = {}


def _get_layout(name: str):
    """Unpickles a layout (torch writes ``torch.serialization._get_layout('torch.strided')``)."""
    if not _LAYOUTS_BY_NAME:
        import strided
        for value in vars(strided).values():
            if isinstance(value, _layout):
                _LAYOUTS_BY_NAME[f"torch.{value.name}"] = value
    return _LAYOUTS_BY_NAME[name]


# -- the name tables (Note [Torch's names in the pickle]) --------------------------------------

def _build_name_tables():
    from .nn.parameter import Parameter
    load_names: dict[str, Any] = {
        "torch._utils._rebuild_tensor": _rebuild_tensor,
        "torch._utils._rebuild_tensor_v2": _rebuild_tensor_v2,
        "torch._utils._rebuild_tensor_v3": _rebuild_tensor_v3,
        "torch._utils._rebuild_parameter": _rebuild_parameter,
        "torch._utils._rebuild_parameter_with_state": _rebuild_parameter_with_state,
        "torch._utils._rebuild_meta_tensor_no_storage": _rebuild_meta_tensor_no_storage,
        "torch._utils._rebuild_device_tensor_from_cpu_tensor":
            _rebuild_device_tensor_from_cpu_tensor,
        "torch._utils._rebuild_device_tensor_from_numpy": _rebuild_device_tensor_from_numpy,
        "torch._tensor._rebuild_from_type_v2": _rebuild_from_type_v2,
        "torch._utils._rebuild_sparse_tensor": _rebuild_sparse_tensor,
        "torch.serialization._get_layout": _get_layout,
        "torch.storage.UntypedStorage": UntypedStorage,
        "torch.Size": Size,
        "torch.Tensor": Tensor,
        "torch.device": _device,
        "torch.nn.parameter.Parameter": Parameter,
    }
    for name, kind in _UNSUPPORTED_REBUILDS.items():
        load_names[f"torch._utils.{name}"] = _refuse(name, kind)
    for d in _dt.ALL_DTYPES:
        load_names[f"torch.{d.name}"] = d
    for name, marker in _STORAGE_TYPES.items():
        load_names[f"torch.{name}"] = marker
    # save side: object identity -> (module, name) torch would write
    save_names: dict[int, tuple[str, str]] = {}
    keep = []
    for full, obj in load_names.items():
        if isinstance(obj, _dt.dtype) and full != f"torch.{obj.name}":
            continue
        if full.rpartition(".")[2] in _UNSUPPORTED_REBUILDS:
            continue
        module, _, name = full.rpartition(".")
        save_names[id(obj)] = (module, name)
        keep.append(obj)
    return load_names, save_names, keep


_tables: list = []


def _name_tables():
    if not _tables:
        _tables.extend(_build_name_tables())
    return _tables[0], _tables[1]


def _torch_name_of(obj) -> tuple[str, str] | None:
    """The (module, qualname) torch would pickle ``obj`` under, or None when ``obj`` is not
    strided's (it then pickles under its own name)."""
    _, save_names = _name_tables()
    hit = save_names.get(id(obj))
    if hit is not None:
        return hit
    module = getattr(obj, "__module__", None)
    qualname = getattr(obj, "__qualname__", None)
    if isinstance(module, str) and isinstance(qualname, str) and (
            module == "strided" or module.startswith("strided.")):
        return "torch" + module[len("strided"):], qualname
    return None


def _strided_global(module: str, name: str):
    """What a global named by a checkpoint is in strided: torch's internals from the table,
    ``torch.<path>`` as ``strided.<path>``; None for names outside torch."""
    if module == "torch.tensor":          # renamed in torch long ago
        module = "torch._tensor"
    load_names, _ = _name_tables()
    full = f"{module}.{name}"
    hit = load_names.get(full)
    if hit is not None:
        return hit
    if (module == "torch" or module.startswith("torch.")) and "Storage" in name \
            and name in _STORAGE_TYPES:
        return _STORAGE_TYPES[name]       # torch.cuda.FloatStorage: a storage type too
    if module != "torch" and not module.startswith("torch."):
        return None
    import importlib
    target = "strided" + module[len("torch"):]
    try:
        obj = importlib.import_module(target)
    except ImportError as e:
        raise ModuleNotFoundError(
            f"strided has no module {target!r} (the checkpoint names {full})") from e
    for part in name.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError as e:
            raise AttributeError(
                f"strided has no {target}.{name} (the checkpoint names {full})") from e
    return obj


_WO_CACHE: dict[str, Any] = {}


def _weights_only_globals() -> dict[str, Any]:
    """torch's weights_only allow-list, as strided objects."""
    if _WO_CACHE:
        return _WO_CACHE
    from _codecs import encode
    from collections import Counter
    load_names, _ = _name_tables()
    out = {
        "collections.OrderedDict": OrderedDict,
        "collections.Counter": Counter,
        "_codecs.encode": encode,
        "builtins.bytearray": bytearray,
        "builtins.set": set,
        "builtins.complex": complex,
    }
    out.update(load_names)
    for name, marker in _STORAGE_TYPES.items():
        out[f"torch.cuda.{name}"] = marker
    _WO_CACHE.update(out)
    return _WO_CACHE


# -- pickling ------------------------------------------------------------------------------------

def _obj_state(t):
    try:
        state = object.__getattribute__(t, "__dict__")
    except AttributeError:
        return None
    return dict(state) if state else None


def _reduce_tensor(t):
    """(callable, args) torch's ``Tensor.__reduce_ex__`` would give (Note [Tensors in the
    pickle])."""
    from .nn.parameter import Parameter
    cls = type(t)
    state = _obj_state(t)
    if "_sparse" in t.__dict__:          # Note [Sparse tensors] in core/sparse_tensor.py
        state = {k: v for k, v in state.items() if k != "_sparse"} or None
        if cls is Tensor and not state:
            return _rebuild_sparse_tensor, sparse_reduce_args(t)
    if cls is Parameter:
        data = t.detach()
        if state:
            return _rebuild_parameter_with_state, (data, t.requires_grad, OrderedDict(), state)
        return _rebuild_parameter, (data, t.requires_grad, OrderedDict())
    dtype = t.dtype
    if t.device.type == "meta":
        func, args = _rebuild_meta_tensor_no_storage, (
            dtype, tuple(t.size()), tuple(t.stride()), t.requires_grad)
    else:
        base = (t.storage_offset(), tuple(t.size()), tuple(t.stride()), t.requires_grad,
                OrderedDict())
        if dtype in _V3_DTYPES:
            func = _rebuild_tensor_v3
            args = (_StorageRef(t.untyped_storage(), None),) + base + (dtype,)
        else:
            func = _rebuild_tensor_v2
            args = (_StorageRef(t.untyped_storage(), dtype),) + base
        metadata = tensor_metadata(t)
        if metadata:
            args += (metadata,)
    if cls is not Tensor or state:
        return _rebuild_from_type_v2, (func, cls, args, state or {})
    return func, args


class _StorageRecorder:
    """Gives each storage met while pickling a key, and checks that views of one storage
    agree on the dtype (torch refuses otherwise)."""

    def __init__(self, legacy: bool = False):
        self.keys: dict[int, str] = {}
        self.storages: dict[str, UntypedStorage] = {}
        self.dtypes: dict[int, Any] = {}
        self.legacy = legacy

    def persistent_id(self, obj):
        if type(obj) is _StorageRef:
            storage, dtype = obj.storage, obj.dtype
        elif type(obj) is UntypedStorage:
            storage, dtype = obj, None
        else:
            return None
        check_dtype = dtype if dtype is not None else _dt.uint8
        if storage.device.type != "meta" and storage.data_ptr() != 0:
            seen = self.dtypes.setdefault(storage.data_ptr(), check_dtype)
            if seen is not check_dtype:
                raise RuntimeError("Cannot save multiple tensors or storages that view the "
                                   "same data as different types")
        key = self.keys.get(id(storage))
        if key is None:
            key = self.keys[id(storage)] = str(len(self.keys))
            self.storages[key] = storage
        if dtype is None:
            storage_type, numel = UntypedStorage, storage.nbytes()
        else:
            storage_type = _STORAGE_TYPES[_DTYPE_TO_STORAGE_NAME[dtype]]
            numel = storage.nbytes() // dtype.itemsize
        location = _location_tag(storage)
        if self.legacy:
            return ("storage", storage_type, key, location, numel, None)
        return ("storage", storage_type, key, location, numel)


def _location_tag(storage) -> str:
    dev = storage.device
    return dev.type if dev.index is None else f"{dev.type}:{dev.index}"


location_tag = _location_tag


def _make_pickler_class(pickle_module):
    """A Pickler of ``pickle_module`` that writes torch's names and storage ids."""
    base = pickle_module.Pickler
    if pickle_module is pickle:
        base = pickle._Pickler          # the pure-Python one: its save_global can be replaced
    can_rename = hasattr(base, "save_global")

    class TorchPickler(base):
        def __init__(self, file, protocol, recorder):
            super().__init__(file, protocol)
            self._recorder = recorder

        def persistent_id(self, obj):
            return self._recorder.persistent_id(obj)

        def reducer_override(self, obj):
            cls = type(obj)
            if isinstance(obj, Tensor):
                return _reduce_tensor(obj)
            if cls is _dt.dtype or cls is StorageType:
                return obj.name if cls is _dt.dtype else obj._name
            if cls is _device:
                return (_device, (obj.type,) if obj.index is None else (obj.type, obj.index))
            if cls is _layout:
                return (_get_layout, (f"torch.{obj.name}",))
            if cls is Size:
                return (Size, (tuple(obj),))
            return NotImplemented

        if can_rename:
            def save_global(self, obj, name=None):
                target = _torch_name_of(obj)
                if target is None or (type(obj) is _memory_format):
                    if type(obj) is _memory_format:
                        target = ("torch", obj.name)
                    else:
                        return super().save_global(obj, name)
                module, qualname = target
                if self.proto >= 4:
                    self.save(module)
                    self.save(qualname)
                    self.write(pickle.STACK_GLOBAL)
                else:
                    self.write(pickle.GLOBAL + module.encode("utf-8") + b"\n"
                               + qualname.encode("utf-8") + b"\n")
                self.memoize(obj)

            if hasattr(base, "dispatch"):
                # the pure pickler's table binds functions to the base class's save_global
                import types
                dispatch = dict(base.dispatch)
                dispatch[types.FunctionType] = save_global

    return TorchPickler


_PICKLER_CLASSES: dict[int, type] = {}


class _SlowPath(Exception):
    """Raised inside the fast pickler: the object needs a renamed global it cannot write."""


class _FastPickler(pickle.Pickler):
    """The C pickler, for the common case (Note [The fast pickler])."""

    def __init__(self, file, protocol, recorder):
        super().__init__(file, protocol)
        self._recorder = recorder

    def persistent_id(self, obj):
        return self._recorder.persistent_id(obj)

    def reducer_override(self, obj):
        cls = type(obj)
        if isinstance(obj, Tensor):
            return _reduce_tensor(obj)
        if cls is _device:
            return (_device, (obj.type,) if obj.index is None else (obj.type, obj.index))
        if cls is _layout:
            return (_get_layout, (f"torch.{obj.name}",))
        if cls is Size:
            return (Size, (tuple(obj),))
        if cls is _memory_format or cls is _dt.dtype or cls is StorageType \
                or _torch_name_of(obj) is not None:
            raise _SlowPath        # a strided global outside the prelude (a module class...)
        return NotImplemented


# Note [The fast pickler]
# ~~~~~~~~~~~~~~~~~~~~~~~
# The C pickler is several times faster than ``pickle._Pickler`` but only writes globals
# it can import back under the same name. So the pickle starts with a prelude that pushes
# torch's names of strided's rebuild functions, dtypes, storage types, Size, device... onto
# the unpickler's memo (``GLOBAL 'torch _utils...'`` + ``BINPUT i``), and the C pickler
# starts with its memo holding those objects at the same indices: it refers to them with
# ``BINGET i``. The prelude's values stay at the bottom of the unpickler's stack, which
# ``STOP`` ignores (torch's weights_only reader included; every name is on its allow-list).
# Anything else strided must rename (a whole module's class) raises ``_SlowPath`` and the
# object is pickled again by the pure-Python pickler, which writes torch's names inline.

_PRELUDE: list = []


def _prelude():
    if not _PRELUDE:
        load_names, save_names = _name_tables()
        out = bytearray()
        memo = {}
        index = 0
        for obj in load_names.values():
            if id(obj) in memo or save_names.get(id(obj)) is None:
                continue
            module, name = save_names[id(obj)]
            out += pickle.GLOBAL + f"{module}\n{name}\n".encode()
            out += pickle.BINPUT + bytes([index]) if index < 256 else \
                pickle.LONG_BINPUT + struct.pack("<I", index)
            memo[id(obj)] = (index, obj)
            index += 1
        _PRELUDE.extend((bytes(out), memo))
    return _PRELUDE[0], _PRELUDE[1]


def _pickle_bytes(obj, pickle_module, protocol, legacy=False):
    """``obj`` pickled with torch's names; returns (bytes, the storages met)."""
    if pickle_module is pickle:
        recorder = _StorageRecorder(legacy)
        prelude, memo = _prelude()
        buf = io.BytesIO()
        if protocol >= 2:
            buf.write(pickle.PROTO + bytes([protocol]))
        buf.write(prelude)
        pickler = _FastPickler(buf, protocol, recorder)
        pickler.memo = memo
        try:
            pickler.dump(obj)
            return buf.getvalue(), recorder
        except _SlowPath:
            pass
    recorder = _StorageRecorder(legacy)
    cls = _PICKLER_CLASSES.get(id(pickle_module))
    if cls is None:
        cls = _PICKLER_CLASSES[id(pickle_module)] = _make_pickler_class(pickle_module)
    buf = io.BytesIO()
    cls(buf, protocol, recorder).dump(obj)
    return buf.getvalue(), recorder


# -- the zip container ---------------------------------------------------------------------------

def _storage_bytes(storage: UntypedStorage):
    """The storage's bytes as a writable uint8 NumPy array (zero-copy)."""
    from . import empty, uint8
    n = storage.nbytes()
    if n == 0:
        return np.empty(0, np.uint8)
    return empty((0,), dtype=uint8).set_(storage, 0, (n,), (1,)).numpy()


class _ZipWriter:
    """Writes torch's zip layout: stored records, data aligned to 64 bytes through a padding
    extra field ("FB"), CRC-32 and sizes in a data descriptor after each record, and the
    zip64 end records (as the miniz writer torch uses does)."""

    def __init__(self, file, archive_name: str):
        self.file = file
        self.prefix = archive_name + "/"
        self.offset = 0
        self.entries: list[tuple[bytes, int, int, int]] = []   # name, crc, size, header offset

    def _write(self, data) -> None:
        self.file.write(data)
        self.offset += len(data) if not isinstance(data, np.ndarray) else data.nbytes

    def write_record(self, name: str, data) -> None:
        bname = (self.prefix + name).encode("utf-8")
        size = data.nbytes if isinstance(data, np.ndarray) else len(data)
        header_offset = self.offset
        pad = (-(header_offset + 30 + len(bname) + 4)) % STORAGE_ALIGNMENT
        flags = 0x0808 if size else 0x0800
        self._write(struct.pack("<IHHHHHIIIHH", 0x04034B50, 0, flags, 0, 0, 0, 0, 0, 0,
                                len(bname), 4 + pad))
        self._write(bname + b"FB" + struct.pack("<H", pad) + b"Z" * pad)
        crc = 0
        if size:
            view = memoryview(data).cast("B") if not isinstance(data, np.ndarray) else data
            chunk = 1 << 26
            for start in range(0, size, chunk):
                part = view[start:start + chunk]
                crc = zlib.crc32(part, crc)
                self.file.write(part)
            self.offset += size
            if size >= 0xFFFFFFFF or header_offset >= 0xFFFFFFFF:
                self._write(struct.pack("<IIQQ", 0x08074B50, crc, size, size))
            else:
                self._write(struct.pack("<IIII", 0x08074B50, crc, size, size))
        self.entries.append((bname, crc, size, header_offset))

    def finish(self) -> None:
        cd_start = self.offset
        for bname, crc, size, header_offset in self.entries:
            flags = 0x0808 if size else 0x0800
            extra = b""
            csize = usize = size
            hoff = header_offset
            if size >= 0xFFFFFFFF or header_offset >= 0xFFFFFFFF:
                fields = b""
                if size >= 0xFFFFFFFF:
                    fields += struct.pack("<QQ", size, size)
                    csize = usize = 0xFFFFFFFF
                if header_offset >= 0xFFFFFFFF:
                    fields += struct.pack("<Q", header_offset)
                    hoff = 0xFFFFFFFF
                extra = struct.pack("<HH", 1, len(fields)) + fields
            self._write(struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 0x031E, 45, flags, 0,
                                    0, 0, crc, csize, usize, len(bname), len(extra), 0, 0, 0,
                                    0, hoff) + bname + extra)
        cd_size = self.offset - cd_start
        n = len(self.entries)
        eocd64 = self.offset
        self._write(struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 0x031E, 45, 0, 0, n, n,
                                cd_size, cd_start))
        self._write(struct.pack("<IIQI", 0x07064B50, 0, eocd64, 1))
        self._write(struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, min(n, 0xFFFF),
                                min(n, 0xFFFF), min(cd_size, 0xFFFFFFFF),
                                min(cd_start, 0xFFFFFFFF), 0))


def _archive_name(f) -> str:
    if isinstance(f, str):
        base = os.path.basename(f)
        dot = base.rfind(".")
        return base[:dot] if dot > 0 else base
    return "archive"


def _serialization_id() -> str:
    return str(int.from_bytes(os.urandom(16), "little")).rjust(40, "0")[:40]


# -- save ----------------------------------------------------------------------------------------

def save(obj: object, f, pickle_module: Any = pickle, pickle_protocol: int = DEFAULT_PROTOCOL,
         _use_new_zipfile_serialization: bool = True,
         _disable_byteorder_record: bool = False) -> None:
    """save(obj, f, pickle_module=pickle, pickle_protocol=2, _use_new_zipfile_serialization=True)

    Saves ``obj`` (tensors, containers, state dicts, whole modules) to ``f`` (a path or a
    binary file object) in torch's checkpoint format: ``torch.load`` reads it.

        strided.save({"w": strided.ones(2, 3)}, "ckpt.pt")
        strided.load("ckpt.pt")["w"].shape     # torch.Size([2, 3])
    """
    if not isinstance(f, (str, os.PathLike)) and not hasattr(f, "write"):
        raise AttributeError("expected 'f' to be string, path, or a file-like object with "
                             "a 'write' attribute")
    if isinstance(f, os.PathLike):
        f = os.fspath(f)
    if isinstance(f, str):
        with open(f, "wb") as opened:
            _save_to(obj, opened, _archive_name(f), pickle_module, pickle_protocol,
                     _use_new_zipfile_serialization, _disable_byteorder_record)
    else:
        _save_to(obj, f, "archive", pickle_module, pickle_protocol,
                 _use_new_zipfile_serialization, _disable_byteorder_record)
        if hasattr(f, "flush"):
            f.flush()


def _save_to(obj, f, archive_name, pickle_module, protocol, new_format, no_byteorder):
    if not new_format:
        if _tls.skip_data:
            raise RuntimeError(
                "Cannot use skip_data=True with _use_new_zipfile_serialization=False")
        _legacy_save(obj, f, pickle_module, protocol)
        return
    data, recorder = _pickle_bytes(obj, pickle_module, protocol)
    writer = _ZipWriter(f, archive_name)
    writer.write_record("data.pkl", data)
    writer.write_record(".format_version", b"1")
    writer.write_record(".storage_alignment", str(STORAGE_ALIGNMENT).encode())
    if not no_byteorder:
        writer.write_record("byteorder", sys.byteorder.encode())
    for key, storage in recorder.storages.items():
        if storage.device.type == "meta" or _tls.skip_data:
            data = np.zeros(storage.nbytes(), np.uint8)
        else:
            data = _storage_bytes(storage)
        writer.write_record(f"data/{key}", data)
    writer.write_record("version", _FILE_FORMAT_VERSION)
    writer.write_record(".data/serialization_id", _serialization_id().encode())
    writer.finish()


def _legacy_save(obj, f, pickle_module, protocol):
    """The pre-1.6 format: three small pickles (magic, version, sys info), the object's
    pickle, the sorted storage keys, then each storage as <int64 numel><bytes>."""
    sys_info = {"protocol_version": PROTOCOL_VERSION, "little_endian": sys.byteorder == "little",
                "type_sizes": {"short": struct.calcsize("=h"), "int": struct.calcsize("=i"),
                               "long": struct.calcsize("=l")}}
    pickle_module.dump(MAGIC_NUMBER, f, protocol=protocol)
    pickle_module.dump(PROTOCOL_VERSION, f, protocol=protocol)
    pickle_module.dump(sys_info, f, protocol=protocol)
    data, recorder = _pickle_bytes(obj, pickle_module, protocol, legacy=True)
    f.write(data)
    keys = sorted(recorder.storages)
    pickle_module.dump(keys, f, protocol=protocol)
    if hasattr(f, "flush"):
        f.flush()
    for key in keys:
        storage = recorder.storages[key]
        dtype = recorder.dtypes.get(storage.data_ptr(), _dt.uint8)
        data = _storage_bytes(storage)
        f.write(struct.pack("<q", data.nbytes // dtype.itemsize))
        f.write(data)


# -- load ----------------------------------------------------------------------------------------

class _SerializationLocal(threading.local):
    def __init__(self):
        self.map_location = None
        self.skip_data = False
        self.materialize_fake_tensors = False


_tls = _SerializationLocal()


class skip_data:
    """``with skip_data(): save(...)`` writes every storage's record as zeros (the layout is
    kept, the bytes can be filled in later); ``load`` inside it leaves the storages
    uninitialised."""

    def __init__(self, materialize_fake_tensors: bool = False):
        self.materialize_fake_tensors = materialize_fake_tensors

    def __enter__(self):
        self._old = (_tls.skip_data, _tls.materialize_fake_tensors)
        _tls.skip_data = True
        _tls.materialize_fake_tensors = self.materialize_fake_tensors

    def __exit__(self, *exc):
        _tls.skip_data, _tls.materialize_fake_tensors = self._old


_mmap_flags = [_mmap.MAP_PRIVATE]


def get_default_mmap_options() -> int:
    """The ``mmap`` flags ``load(..., mmap=True)`` maps files with (``mmap.MAP_PRIVATE``:
    writes to the tensors stay in memory; ``mmap.MAP_SHARED``: they reach the file)."""
    return _mmap_flags[0]


class set_default_mmap_options:
    """``set_default_mmap_options(mmap.MAP_SHARED)``, as a call or a context manager."""

    def __init__(self, flags: int) -> None:
        if flags != _mmap.MAP_PRIVATE and flags != _mmap.MAP_SHARED:
            raise ValueError("Invalid argument in function set_default_mmap_options, "
                             f"expected mmap.MAP_PRIVATE or mmap.MAP_SHARED, but got {flags}")
        self.prev = _mmap_flags[0]
        _mmap_flags[0] = flags

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc) -> None:
        _mmap_flags[0] = self.prev


def _cuda_unavailable(location: str):
    return RuntimeError(
        "Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is "
        "False. If you are running on a CPU-only machine, please use torch.load with "
        "map_location=torch.device('cpu') to map your storages to the CPU.")


def default_restore_location(storage, location: str):
    """The storage moved to ``location`` ('cpu' and 'meta'; strided has no accelerator)."""
    if location == "cpu":
        return storage
    if location == "meta":
        return storage if storage.device.type == "meta" else \
            UntypedStorage(storage.nbytes(), device="meta")
    if location.startswith("cuda"):
        raise _cuda_unavailable(location)
    raise RuntimeError("don't know how to restore data location of torch.storage.UntypedStorage"
                       f" (tagged with {location})")


def _restore_location_fn(map_location):
    if map_location is None:
        return default_restore_location
    if isinstance(map_location, dict):
        def restore(storage, location):
            return default_restore_location(storage, str(map_location.get(location, location)))
        return restore
    if isinstance(map_location, (str, bytes)):
        target = map_location.decode() if isinstance(map_location, bytes) else map_location
        return lambda storage, location: default_restore_location(storage, target)
    if hasattr(map_location, "type") and not callable(map_location):
        target = str(map_location)
        return lambda storage, location: default_restore_location(storage, target)

    def restore(storage, location):
        result = map_location(storage, location)
        if result is None:
            result = default_restore_location(storage, location)
        return result
    return restore


def _is_meta_location(map_location) -> bool:
    if isinstance(map_location, str):
        return map_location == "meta"
    if map_location is not None and hasattr(map_location, "type") \
            and not callable(map_location) and not isinstance(map_location, dict):
        return map_location.type == "meta"
    return False


def _decode(value):
    return value.decode("ascii") if isinstance(value, bytes) else value


class _ZipReader:
    """Reads a checkpoint's records: names under the archive folder, data offsets of the
    stored records (for reads straight into a storage, or windows of an mmap)."""

    def __init__(self, f):
        self.file = f
        self.zip = zipfile.ZipFile(f)
        infos = self.zip.infolist()
        if not infos:
            raise RuntimeError("PytorchStreamReader failed reading zip archive: "
                               "failed finding central directory")
        self.prefix = infos[0].filename.split("/", 1)[0] + "/"
        self.records = {}
        for info in infos:
            name = info.filename
            if name.startswith(self.prefix):
                self.records[name[len(self.prefix):]] = info

    def has_record(self, name: str) -> bool:
        return name in self.records

    def get_record(self, name: str) -> bytes:
        return self.zip.read(self.records[name])

    def data_offset(self, info) -> int:
        f = self.file
        f.seek(info.header_offset)
        header = f.read(30)
        if len(header) != 30 or header[:4] != b"PK\x03\x04":
            raise RuntimeError(f"PytorchStreamReader failed reading file {info.filename}: "
                               "invalid header or archive is corrupted")
        name_len, extra_len = struct.unpack("<HH", header[26:30])
        return info.header_offset + 30 + name_len + extra_len

    def read_into(self, name: str, out: np.ndarray) -> None:
        info = self.records[name]
        if info.compress_type != zipfile.ZIP_STORED:
            out[:] = np.frombuffer(self.zip.read(info), np.uint8)
            return
        f = self.file
        f.seek(self.data_offset(info))
        view = memoryview(out)
        readinto = getattr(f, "readinto", None)
        done = 0
        while done < len(view):
            if readinto is not None:
                n = readinto(view[done:])
            else:
                chunk = f.read(len(view) - done)
                n = len(chunk)
                view[done:done + n] = chunk
            if not n:
                raise RuntimeError(f"PytorchStreamReader failed reading file {name}: "
                                   "file read failed")
            done += n


def _byteswap(storage, dtype) -> None:
    unit = dtype.itemsize // 2 if dtype.is_complex else dtype.itemsize
    if unit <= 1:
        return
    data = _storage_bytes(storage)
    data.view({2: np.uint16, 4: np.uint32, 8: np.uint64}[unit]).byteswap(inplace=True)


def _new_cpu_storage(nbytes: int) -> UntypedStorage:
    from . import empty, uint8
    return empty(nbytes, dtype=uint8).untyped_storage()


def _load_zip(reader: _ZipReader, map_location, unpickler_factory, mapped=None):
    restore = _restore_location_fn(map_location)
    meta = _is_meta_location(map_location)
    byteorder = None
    if reader.has_record("byteorder"):
        byteorder = reader.get_record("byteorder")
        if byteorder not in (b"little", b"big"):
            raise ValueError("Unknown endianness type: " + byteorder.decode())
    elif _default_load_endianness in (None, LoadEndianness.LITTLE):
        byteorder = b"little"
    elif _default_load_endianness is LoadEndianness.BIG:
        byteorder = b"big"
    loaded: dict[str, _LoadedStorage] = {}

    def load_storage(dtype, nbytes, key, location):
        name = f"data/{key}"
        if meta:
            return _LoadedStorage(UntypedStorage(nbytes, device="meta"), dtype)
        if _tls.skip_data:
            return _LoadedStorage(restore(_new_cpu_storage(nbytes), location), dtype)
        if mapped is not None:
            info = reader.records[name]
            if info.compress_type != zipfile.ZIP_STORED:
                raise RuntimeError(f"mmap needs stored (uncompressed) records; {name} is "
                                   "compressed")
            offset = reader.data_offset(info)
            window = np.frombuffer(mapped, np.uint8, count=nbytes, offset=offset) \
                if nbytes else np.empty(0, np.uint8)
            storage = UntypedStorage._wrap(window, _device("cpu"), owner=mapped)
        else:
            from . import empty, uint8
            raw = empty(nbytes, dtype=uint8)
            if nbytes:
                reader.read_into(name, raw.numpy())
            storage = raw.untyped_storage()
        if byteorder is not None and byteorder.decode() != sys.byteorder:
            _byteswap(storage, dtype)
        return _LoadedStorage(restore(storage, location), dtype)

    def persistent_load(saved_id):
        if not isinstance(saved_id, tuple):
            raise AssertionError(f"saved_id must be a tuple, got {type(saved_id).__name__}")
        typename = _decode(saved_id[0])
        if typename != "storage":
            raise AssertionError("Unknown typename for persistent_load, expected 'storage' but "
                                 f"got '{typename}'")
        storage_type, key, location, numel = saved_id[1:]
        dtype = _dt.uint8 if storage_type is UntypedStorage else storage_type.dtype
        found = loaded.get(key)
        if found is None:
            found = loaded[key] = load_storage(dtype, numel * dtype.itemsize, key,
                                               _decode(location))
        elif found.dtype is not dtype:
            found = _LoadedStorage(found._untyped_storage, dtype)
        return found

    data = io.BytesIO(reader.get_record("data.pkl"))
    unpickler = unpickler_factory(data)
    unpickler.persistent_load = persistent_load
    _tls.map_location = map_location
    try:
        result = unpickler.load()
    finally:
        _tls.map_location = None
    return _unwrap_storages(result)


def _unwrap_storages(result):
    """A storage saved on its own (or as a container's direct item) loads as the
    ``UntypedStorage`` (strided has no ``TypedStorage``)."""
    if type(result) is _LoadedStorage:
        return result._untyped_storage
    if type(result) in (dict, OrderedDict):
        for k, v in result.items():
            if type(v) is _LoadedStorage:
                result[k] = v._untyped_storage
    elif type(result) is list:
        result[:] = [v._untyped_storage if type(v) is _LoadedStorage else v for v in result]
    return result


def _legacy_load(f, map_location, unpickler_factory, pickle_load):
    restore = _restore_location_fn(map_location)
    objects: dict[str, Any] = {}

    def persistent_load(saved_id):
        if not isinstance(saved_id, tuple):
            raise AssertionError(f"saved_id must be a tuple, got {type(saved_id).__name__}")
        typename = _decode(saved_id[0])
        data = saved_id[1:]
        if typename == "module":
            return data[0]                # a module class saved with its source: the class
        if typename != "storage":
            raise RuntimeError(f"Unknown saved id type: {saved_id[0]}")
        storage_type, root_key, location, numel, view_metadata = data
        dtype = _dt.uint8 if storage_type is UntypedStorage else storage_type.dtype
        if root_key not in objects:
            storage = _new_cpu_storage(numel * dtype.itemsize)
            objects[root_key] = _LoadedStorage(storage, dtype)
        root = objects[root_key]
        _locations[root_key] = _decode(location)
        if view_metadata is not None:
            raise RuntimeError("strided cannot load storage views from legacy checkpoints")
        return root

    _locations: dict[str, str] = {}
    if _reads_directly(f) and f.tell() == 0:
        import tarfile
        try:
            return _tar_load(f, restore, unpickler_factory, pickle_load)
        except tarfile.TarError:
            f.seek(0)
    magic = pickle_load(f)
    if magic != MAGIC_NUMBER:
        raise RuntimeError("Invalid magic number; corrupt file?")
    version = pickle_load(f)
    if version != PROTOCOL_VERSION:
        raise RuntimeError(f"Invalid protocol version: {version}")
    pickle_load(f)                          # sys_info
    unpickler = unpickler_factory(f)
    unpickler.persistent_load = persistent_load
    result = unpickler.load()
    keys = pickle_load(f)
    for key in keys:
        root = objects[key]
        (numel,) = struct.unpack("<q", f.read(8))
        out = _storage_bytes(root._untyped_storage)
        want = numel * root.dtype.itemsize
        if want != out.nbytes:
            raise RuntimeError(f"storage {key} has {out.nbytes} bytes, the file {want}")
        got = f.readinto(memoryview(out)) if hasattr(f, "readinto") else None
        if got is None:
            out[:] = np.frombuffer(f.read(want), np.uint8)
        elif got != want:
            raise RuntimeError("unexpected EOF while reading a storage")
    # locations apply after the bytes are in (the storages were built before the data)
    for key, root in objects.items():
        moved = restore(root._untyped_storage, _locations.get(key, "cpu"))
        if moved is not root._untyped_storage:
            raise RuntimeError("strided can only map legacy checkpoints to the CPU")
    return _unwrap_storages(result)


def _reads_directly(f) -> bool:
    try:
        f.fileno()
    except (AttributeError, OSError, io.UnsupportedOperation):
        return False
    return True


def _tar_load(f, restore, unpickler_factory, pickle_load):
    """The tar format of torch <= 0.3: members ``storages`` (count, then per storage its
    (key, location, storage type) and <int64 numel><bytes>, then the storage views),
    ``tensors`` (count, then per tensor (key, storage key, type) and its geometry as int32
    ndim + 4 bytes, int64 sizes, strides and offset) and ``pickle`` (the object, whose
    persistent ids are those keys)."""
    import tarfile

    from . import empty

    def pickle_load(member):        # storage types are torch's classes: mapped unpickler
        return unpickler_factory(member).load()

    with tarfile.open(fileobj=f, mode="r:", format=tarfile.PAX_FORMAT) as tar:
        if getattr(unpickler_factory, "weights_only", False):
            raise RuntimeError("Cannot use ``weights_only=True`` with files saved in the "
                               "legacy .tar format. " + UNSAFE_MESSAGE)
        objects: dict[Any, Any] = {}
        member = tar.extractfile("storages")
        for _ in range(pickle_load(member)):
            key, location, storage_type = pickle_load(member)
            dtype = storage_type.dtype
            (numel,) = struct.unpack("<q", member.read(8))
            storage = _new_cpu_storage(numel * dtype.itemsize)
            _storage_bytes(storage)[:] = np.frombuffer(member.read(numel * dtype.itemsize),
                                                       np.uint8)
            objects[key] = _LoadedStorage(restore(storage, _decode(location)), dtype)
        for target, root_key, offset, numel in pickle_load(member):
            root = objects[root_key]
            size = root.dtype.itemsize
            window = _storage_bytes(root._untyped_storage)[offset * size:(offset + numel) * size]
            objects[target] = _LoadedStorage(
                UntypedStorage._wrap(window, _device("cpu"), owner=root._untyped_storage),
                root.dtype)
        member = tar.extractfile("tensors")
        for _ in range(pickle_load(member)):
            key, storage_id, _type = pickle_load(member)
            storage = objects[storage_id]
            (ndim,) = struct.unpack("<i", member.read(4))
            member.read(4)
            sizes = struct.unpack(f"<{ndim}q", member.read(8 * ndim))
            strides = struct.unpack(f"<{ndim}q", member.read(8 * ndim))
            (offset,) = struct.unpack("<q", member.read(8))
            objects[key] = empty((0,), dtype=storage.dtype).set_(
                storage._untyped_storage, offset, sizes, strides)

        def persistent_load(saved_id):
            if isinstance(saved_id, tuple):
                return saved_id[0]            # a module class saved with its source
            return objects[int(saved_id)]

        unpickler = unpickler_factory(tar.extractfile("pickle"))
        unpickler.persistent_load = persistent_load
        return _unwrap_storages(unpickler.load())


def _wo_message(message: str) -> str:
    import re
    if re.search(r"GLOBAL (\S+) was not an allowed global by default.", message):
        return ("Weights only load failed. This file can still be loaded, to do so you have two "
                "options, \033[1mdo those steps only if you trust the source of the "
                f"checkpoint\033[0m. \n\t(1) {UNSAFE_MESSAGE}\n\t(2) Alternatively, to load "
                "with `weights_only=True` please check the recommended steps in the following "
                "error message.\n\tWeightsUnpickler error: " + message + _DOCS_MESSAGE)
    if re.search(r"(\S+) must be (\S+) to load", message):
        return f"Weights only load failed. {message}\n {UNSAFE_MESSAGE}\n"
    text = f"Weights only load failed. {UNSAFE_MESSAGE}\n"
    if not re.search(r"whose module (\S+) is blocked", message):
        text += ("Please file an issue with the following so that we can make "
                 "`weights_only=True` compatible with your use case: WeightsUnpickler error: ")
    return text + "\n\n" + message + _DOCS_MESSAGE


def _full_unpickler_factory(pickle_module, load_args):
    class UnpicklerWrapper(pickle_module.Unpickler):
        def find_class(self, mod_name, name):
            if type(name) is str and "Storage" in name and name in _STORAGE_TYPES:
                return _STORAGE_TYPES[name]
            obj = _strided_global(mod_name, name)
            if obj is not None:
                return obj
            return super().find_class(mod_name, name)

    return lambda file: UnpicklerWrapper(file, **load_args)


def load(f, map_location=None, pickle_module: Any = None, *, weights_only: bool | None = None,
         mmap: bool | None = None, **pickle_load_args: Any) -> Any:
    """load(f, map_location=None, pickle_module=pickle, *, weights_only=True, mmap=None,
    **pickle_load_args)

    Loads an object saved by ``strided.save`` or ``torch.save`` (zip or legacy format), as
    strided tensors and modules. ``weights_only=True`` (the default) reads the pickle with an
    allow-list unpickler that runs nothing a checkpoint names unless it is safe;
    ``map_location`` ('cpu', 'meta', a device, a dict of location tags or a callable
    ``(storage, location)``) places the storages; ``mmap=True`` maps the file instead of
    reading it (a path is needed).
    """
    weights_only_not_set = weights_only is None
    if weights_only_not_set:
        weights_only = pickle_module is None
    true_values = ("1", "y", "yes", "true")
    force_wo = os.getenv("TORCH_FORCE_WEIGHTS_ONLY_LOAD", "0").lower() in true_values
    force_no_wo = os.getenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "0").lower() in true_values
    if force_wo and force_no_wo:
        raise RuntimeError("Only one of `TORCH_FORCE_WEIGHTS_ONLY_LOAD` or "
                           "`TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD` should be set, but both were set.")
    if force_wo:
        weights_only = True
    elif force_no_wo and weights_only_not_set:
        warnings.warn("Environment variable TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD detected, since "
                      "the`weights_only` argument was not explicitly passed to `torch.load`, "
                      "forcing weights_only=False.", UserWarning, stacklevel=2)
        weights_only = False
    if weights_only:
        if pickle_module is not None:
            raise RuntimeError("Can not safely load weights when explicit pickle_module is "
                               "specified")
    elif pickle_module is None:
        pickle_module = pickle
    if pickle_load_args and weights_only:
        warnings.warn("pickle_load_args only works if `weights_only=False`.", stacklevel=2)
    if "encoding" not in pickle_load_args:
        pickle_load_args["encoding"] = "utf-8"

    if isinstance(f, os.PathLike):
        f = os.fspath(f)
    if isinstance(f, str) and f.endswith(".safetensors"):
        if isinstance(map_location, dict) or callable(map_location):
            kind = "dict" if isinstance(map_location, dict) else "callable"
            raise RuntimeError(f"Loading safetensors file with {kind} map_location is not "
                               "supported. Use a device string or torch.device instead.")
        from .utils.safetensors import load_file
        return load_file(f, device="cpu" if map_location is None else str(map_location))

    if weights_only:
        encoding = pickle_load_args["encoding"]

        def factory(file):
            return _weights_only_unpickler.Unpickler(file, encoding=encoding)
        factory.weights_only = True

        def pickle_load(file):
            return _weights_only_unpickler.Unpickler(file, encoding=encoding).load()
    else:
        factory = _full_unpickler_factory(pickle_module, pickle_load_args)

        def pickle_load(file):
            return pickle_module.load(file, **pickle_load_args)

    def run(fn, *args):
        if not weights_only:
            return fn(*args)
        try:
            return fn(*args)
        except pickle.UnpicklingError as e:
            raise pickle.UnpicklingError(_wo_message(str(e))) from None

    opened = open(f, "rb") if isinstance(f, str) else f
    try:
        start = opened.tell()
        is_zip = opened.read(4) == b"PK\x03\x04"
        opened.seek(start)
        if is_zip:
            reader = _ZipReader(opened)
            if reader.has_record("constants.pkl"):
                raise RuntimeError("strided cannot load TorchScript archives")
            mapped = None
            if mmap:
                if not isinstance(f, str):
                    raise ValueError("f must be a file path in order to use the mmap argument")
                if os.path.getsize(f):
                    if _mmap_flags[0] == _mmap.MAP_SHARED:
                        with open(f, "r+b") as writable:
                            mapped = _mmap.mmap(writable.fileno(), 0, access=_mmap.ACCESS_WRITE)
                    else:
                        mapped = _mmap.mmap(opened.fileno(), 0, access=_mmap.ACCESS_COPY)
            return run(_load_zip, reader, map_location, factory, mapped)
        if mmap:
            f_name = f"{f}, " if isinstance(f, str) else ""
            raise RuntimeError(
                "mmap can only be used with files saved with "
                f"`torch.save({f_name}_use_new_zipfile_serialization=True), "
                "please torch.save your checkpoint with this option in order to use mmap.")
        return run(_legacy_load, opened, map_location, factory, pickle_load)
    finally:
        if opened is not f:
            opened.close()


def get_unsafe_globals_in_checkpoint(f) -> list[str]:
    """The globals a checkpoint names that a ``weights_only`` load would refuse."""
    import pickletools
    opened = open(f, "rb") if isinstance(f, (str, os.PathLike)) else f
    try:
        if opened.read(4) != b"PK\x03\x04":
            raise ValueError("Expected input to be a checkpoint returned by torch.save")
        opened.seek(0)
        data = _ZipReader(opened).get_record("data.pkl")
    finally:
        if opened is not f:
            opened.close()
    safe = set(_weights_only_globals()) | set(_weights_only_unpickler.user_allowed_globals())
    found = set()
    for op, arg, _ in pickletools.genops(data):
        if op.name == "GLOBAL":
            found.add(".".join(_weights_only_unpickler.map_global(*arg.split(" ", 1))))
    return list(found - safe)
