"""``strided.storage``: the typed storage classes, as ``torch.storage`` has them.

A ``TypedStorage`` is an ``UntypedStorage`` (bytes) read as elements of one dtype. It is
the legacy view of memory (``Tensor.storage()``, ``torch.FloatStorage(3)``): torch keeps it
for old programs and warns that it is deprecated, and so does strided. Element access goes
through a one-dimensional tensor over the same bytes, so reads and writes use the ordinary
kernels and checks.

The legacy classes (``FloatStorage``, ``LongStorage``, ...) are ``TypedStorage`` with their
dtype fixed; ``isinstance(s, FloatStorage)`` is true for any float32 CPU ``TypedStorage``,
as in torch.
"""

from __future__ import annotations

import warnings

from .core import dtypes as _dtypes
from .core.storage import UntypedStorage

__all__ = ["TypedStorage", "UntypedStorage"]

_DEPRECATION = (
    "TypedStorage is deprecated. It will be removed in the future and UntypedStorage will "
    "be the only storage class. This should only matter to you if you are using storages "
    "directly.  To access UntypedStorage directly, use tensor.untyped_storage() instead "
    "of tensor.storage()")


_warned = False


def _warn_typed_storage_removal(stacklevel: int = 3) -> None:
    """Once per process, as torch does."""
    global _warned
    if not _warned:
        _warned = True
        warnings.warn(_DEPRECATION, UserWarning, stacklevel=stacklevel)


def _as_dtype(dtype):
    if dtype is None:
        return _dtypes.get_default_dtype()
    if not isinstance(dtype, _dtypes.dtype):
        raise TypeError(f"Argument 'dtype' must be torch.dtype, not {type(dtype).__name__}")
    return dtype


class _LegacyStorageMeta(type):
    """``isinstance(s, FloatStorage)``: a TypedStorage of the class's dtype on the CPU."""

    def __instancecheck__(cls, instance):
        if cls is TypedStorage or cls.__dict__.get("_fixed_dtype") is None:
            return type.__instancecheck__(cls, instance)
        return (isinstance(instance, TypedStorage) and instance.dtype is cls._fixed_dtype
                and instance.device.type == "cpu")


class TypedStorage(metaclass=_LegacyStorageMeta):
    """Bytes read as ``dtype`` elements: ``TypedStorage(size)``,
    ``TypedStorage(sequence)``, ``TypedStorage(wrap_storage=untyped, dtype=...)``."""

    _fixed_dtype = None
    is_sparse = False

    def __init__(self, *args, device=None, dtype=None, wrap_storage=None,
                 _internal=False):
        if not _internal:
            _warn_typed_storage_removal()
        fixed = type(self)._fixed_dtype
        if fixed is not None:
            if dtype is not None:
                raise RuntimeError(
                    f"<class 'torch.{type(self).__name__}'>.__new__ received an invalid "
                    "combination of arguments. Expected one of:\n * no arguments\n * (int "
                    "size)\n * (Sequence data)\n * (*, UntypedStorage wrap_storage)\n"
                    "Keyword argument 'dtype' cannot be specified")
            dtype = fixed
        dtype = _as_dtype(dtype)
        if wrap_storage is not None:
            if args:
                raise RuntimeError("TypedStorage.__init__ received an invalid combination "
                                   "of arguments. No positional arguments should be given "
                                   "when using 'wrap_storage'")
            if not isinstance(wrap_storage, UntypedStorage):
                raise TypeError("expected 'wrap_storage' to be an UntypedStorage, but got "
                                f"{type(wrap_storage).__name__}")
            self._untyped_storage, self.dtype = wrap_storage, dtype
            return
        if len(args) > 1:
            raise RuntimeError("TypedStorage.__init__ received an invalid combination of "
                               "arguments. Too many positional arguments")
        import strided
        device = "cpu" if device is None else device
        if not args:
            data = strided.empty(0, dtype=dtype, device=device)
        elif _is_size(args[0]):
            data = strided.empty(int(args[0]), dtype=dtype, device=device)
        else:
            data = strided.tensor(list(args[0]), dtype=dtype, device=device)
        self._untyped_storage, self.dtype = data.untyped_storage(), dtype

    # -- views of the bytes ----------------------------------------------------------------

    def _as_tensor(self):
        import strided
        return strided.empty(0, dtype=self.dtype, device=self.device).set_(
            self._untyped_storage, 0, (self._size(),), (1,))

    def _size(self) -> int:
        return self._untyped_storage.nbytes() // self.element_size()

    def untyped(self) -> UntypedStorage:
        return self._untyped_storage

    @property
    def device(self):
        return self._untyped_storage.device

    @property
    def is_cuda(self) -> bool:
        return self.device.type == "cuda"

    def size(self) -> int:
        return self._size()

    def __len__(self) -> int:
        return self._size()

    def element_size(self) -> int:
        return self.dtype.itemsize

    def nbytes(self) -> int:
        return self._untyped_storage.nbytes()

    def data_ptr(self) -> int:
        return self._untyped_storage.data_ptr()

    def type(self, dtype=None, non_blocking=False):
        if dtype is None:
            return f"torch.{_LEGACY_NAMES[self.dtype]}"
        return self._to(_storage_dtype(dtype))

    def is_shared(self) -> bool:
        return False

    def is_pinned(self, device="cuda") -> bool:
        return False

    # -- elements ---------------------------------------------------------------------------

    def _index(self, idx) -> int:
        if isinstance(idx, slice):
            raise RuntimeError("slices are only supported in UntypedStorage.__getitem__")
        if not isinstance(idx, int) or isinstance(idx, bool):
            raise RuntimeError(f"can't index a {type(self)} with {type(idx)}")
        size = self._size()
        if not -size <= idx < size:
            raise IndexError(f"index {idx} out of range for storage of size {size}")
        return idx % size if size else idx

    def __getitem__(self, idx):
        return self._as_tensor()[self._index(idx)].item()

    def __setitem__(self, idx, value):
        if isinstance(idx, slice):
            self._as_tensor()[idx] = value
            return
        self._as_tensor()[self._index(idx)] = value

    def __iter__(self):
        return iter(self.tolist())

    def tolist(self) -> list:
        return self._as_tensor().tolist()

    def fill_(self, value):
        self._as_tensor().fill_(value)
        return self

    def copy_(self, source, non_blocking=None):
        src = source._as_tensor() if isinstance(source, TypedStorage) else source
        self._as_tensor().copy_(src)
        return self

    def resize_(self, size: int):
        self._untyped_storage.resize_(int(size) * self.element_size())
        return self

    def clone(self):
        return TypedStorage(wrap_storage=self._untyped_storage.clone(), dtype=self.dtype,
                            _internal=True)

    def cpu(self):
        return self

    def _to(self, dtype):
        data = self._as_tensor().to(dtype)
        return TypedStorage(wrap_storage=data.untyped_storage(), dtype=dtype, _internal=True)

    def __repr__(self) -> str:
        body = " " + "\n ".join(str(v) for v in self._as_tensor().tolist())
        head = (f"[torch.storage.TypedStorage(dtype={self.dtype}, device={self.device}) "
                f"of size {self._size()}]")
        return f"{body}\n{head}"

    def __reduce__(self):
        return (_rebuild_typed_storage, (self._untyped_storage, self.dtype))

    def __eq__(self, other):
        return self is other

    __hash__ = object.__hash__


def _rebuild_typed_storage(untyped, dtype):
    return TypedStorage(wrap_storage=untyped, dtype=dtype, _internal=True)


def _is_size(x) -> bool:
    import numbers
    return isinstance(x, numbers.Integral) and not isinstance(x, bool)


def typed_storage_of(tensor) -> TypedStorage:
    """``Tensor.storage()``: the tensor's bytes as a TypedStorage of its dtype (warns)."""
    _warn_typed_storage_removal(stacklevel=4)
    return TypedStorage(wrap_storage=tensor.untyped_storage(), dtype=tensor.dtype,
                        _internal=True)


# -- the legacy classes: one per dtype, as torch names them -------------------------------

_LEGACY_NAMES = {
    _dtypes.float64: "DoubleStorage", _dtypes.float32: "FloatStorage",
    _dtypes.float16: "HalfStorage", _dtypes.bfloat16: "BFloat16Storage",
    _dtypes.int64: "LongStorage", _dtypes.int32: "IntStorage", _dtypes.int16: "ShortStorage",
    _dtypes.int8: "CharStorage", _dtypes.uint8: "ByteStorage", _dtypes.bool_: "BoolStorage",
    _dtypes.complex128: "ComplexDoubleStorage", _dtypes.complex64: "ComplexFloatStorage",
}


LEGACY_STORAGE_CLASSES = {
    name: _LegacyStorageMeta(name, (TypedStorage,), {"_fixed_dtype": dt, "__module__": __name__})
    for dt, name in _LEGACY_NAMES.items()}
globals().update(LEGACY_STORAGE_CLASSES)


def _storage_dtype(spec):
    """A dtype from ``'torch.FloatStorage'``, a legacy storage class or a dtype."""
    if isinstance(spec, _dtypes.dtype):
        return spec
    name = spec if isinstance(spec, str) else getattr(spec, "__name__", "")
    name = name.removeprefix("torch.")
    for dt, legacy in _LEGACY_NAMES.items():
        if legacy == name:
            return dt
    raise RuntimeError(f"invalid storage type: {spec!r}")
