"""``UntypedStorage``: a flat byte buffer on one device, shared by all views.

A storage owns its block through the allocator that made it. Python's reference
count plays the role of ``intrusive_ptr``: when the last tensor (or user
reference) to a storage goes, ``__del__`` hands the block back to the allocator,
and its statistics show it.

Storages that wrap memory owned elsewhere (``from_numpy``, DLPack imports) have
no allocator; they keep the owner alive through ``_owner`` instead.
"""

from __future__ import annotations

import numpy as np

from .allocator import (
    _UNSHARED_REFS,
    _VIEW_REFS,
    _getrefcount,
    get_allocator,
)
from .allocator import (
    CACHE_LIMIT_BLOCK as _CACHE_LIMIT_BLOCK,
)
from .allocator import (
    CACHE_LIMIT_TOTAL as _CACHE_LIMIT_TOTAL,
)
from .devices import device as _device_cls
from .dtypes import INT

__all__ = ["UntypedStorage"]


class _BytesView:
    """Presents ``nbytes`` at ``ptr`` to NumPy as a uint8 array, holding ``owner`` alive."""

    __slots__ = ("__array_interface__", "owner")

    def __init__(self, ptr: int, nbytes: int, owner):
        self.owner = owner
        self.__array_interface__ = {"data": (ptr, False), "shape": (nbytes,), "typestr": "|u1",
                                    "version": 3}


# Note [Shrunk storages]
# ~~~~~~~~~~~~~~~~~~~~~~
# ``storage.resize_(n)`` may shrink a storage under live tensors, whose (sizes, strides,
# offset) then reach past its end. Nothing may read or write there:
#  * a storage's ``_buf`` is exactly ``nbytes`` long (Note [Exact-length buffers]), so NumPy
#    itself refuses any view that does not fit; the places that make views translate that
#    refusal into torch's bounds error (``TensorImpl._array``, TensorIterator, copies);
#  * views that torch makes through ``as_strided`` (select, slice, transpose, expand, ...)
#    check their geometry against the storage when they are made, as torch's setStorage
#    check does; ``view``/``reshape``/``detach`` do not check, as in torch, and the tensor
#    they give is refused when its data is used;
#  * exports by address (``numpy()``, DLPack) check explicitly.
# A view of an in-bounds tensor is in bounds, so the view-time check only runs once some
# storage in the process has shrunk (``SHRUNK``).
SHRUNK = [False]
_INT64_MAX = (1 << 63) - 1


def _storage_device(dev):
    """A CPU or meta storage has no device index: ``device='cpu:1'`` makes it on ``cpu``."""
    if dev.index is not None and dev.type in ("cpu", "meta"):
        return _device_cls(dev.type)
    return dev


def _type_name(obj) -> str:
    cls = type(obj)
    if hasattr(obj, "_storage") and hasattr(obj, "_sizes"):
        return "Tensor"
    if cls.__module__ == "numpy":
        return f"numpy.{cls.__name__}"
    return cls.__name__


def _is_long(obj) -> bool:
    """torch's ``THPUtils_checkLong``: an int (not a bool) or a NumPy integer."""
    return (isinstance(obj, int) and not isinstance(obj, bool)) or isinstance(obj, np.integer)


def _check_nbytes(nbytes: int) -> int:
    if not -_INT64_MAX - 1 <= nbytes <= _INT64_MAX:
        raise ValueError("Overflow when unpacking long long")
    return nbytes


def _parse_size_or_sequence(arg):
    """``UntypedStorage(n)`` (an int, NumPy integer or 0-dim integer tensor) or
    ``UntypedStorage(sequence of ints)`` (each taken modulo 256, as torch stores bytes)."""
    if _is_long(arg):
        return int(arg), None
    if hasattr(arg, "_storage") and hasattr(arg, "_sizes"):   # a Tensor
        if not arg._sizes and arg._dtype.category == INT:
            return int(arg.item()), None
        raise RuntimeError("torch.UntypedStorage(): Expected a sequence type, but got Tensor")
    if isinstance(arg, (bytes, bytearray)):
        return len(arg), np.frombuffer(bytes(arg), np.uint8)
    if isinstance(arg, (str, list, tuple, np.ndarray)) or (
            hasattr(type(arg), "__len__") and hasattr(type(arg), "__getitem__")
            and not isinstance(arg, (float, complex, bool))):
        items = list(arg)
        for v in items:
            if not isinstance(v, int):
                raise RuntimeError(
                    f"torch.UntypedStorage(): tried to construct a storage from a sequence "
                    f"({_type_name(arg)}), but one of the items was of type {_type_name(v)} "
                    f"instead of int")
        return len(items), np.array([v & 0xFF for v in items], np.uint8)
    raise RuntimeError(f"torch.UntypedStorage(): Expected a sequence type, but got "
                       f"{_type_name(arg)}")


class UntypedStorage:
    """An untyped, resizable buffer. ``buf`` is a uint8 NumPy array (None on meta)."""

    __slots__ = ("__weakref__", "_allocator", "_buf", "_nbytes", "_owner", "_ptr", "_view",
                 "_vsizes", "device")

    def __init__(self, *args, device="cpu"):
        # slots the destructor reads are set first: a failed allocation leaves a storage that
        # ``__del__`` recognises as owning nothing
        self._allocator = None
        self._owner = None
        self._view = None
        dev = _storage_device(_device_cls(device))
        self.device = dev
        allocator = get_allocator(dev.type)
        data = None
        if len(args) > 1:
            raise TypeError(f"UntypedStorage() takes at most 1 positional argument "
                            f"({len(args)} given)")
        if not args:
            nbytes = 0
        else:
            nbytes, data = _parse_size_or_sequence(args[0])
        if dev.type != "meta":
            nbytes = _check_nbytes(nbytes)
        self._buf, self._ptr = allocator.allocate(nbytes)
        self._nbytes = nbytes
        self._allocator = allocator
        if data is not None and nbytes:
            self._buf[:] = data

    @classmethod
    def _new(cls, nbytes, dev, allocator):
        """Hot-path constructor for kernels: no argument parsing (``nbytes`` is an int)."""
        self = object.__new__(cls)
        self._allocator = allocator      # __del__ tolerates a failed allocate() below
        self._owner = None
        self._view = None
        if dev.index is not None:
            dev = _storage_device(dev)
        self.device = dev
        self._nbytes = nbytes
        self._buf, self._ptr = allocator.allocate(nbytes)
        return self

    @classmethod
    def _wrap(cls, array: np.ndarray, dev, owner=None):
        """A storage over the bytes that ``array`` spans, kept alive through ``owner``
        (default: the array itself). Used by ``from_numpy`` and DLPack imports."""
        self = object.__new__(cls)
        self._allocator = None
        self._view = None
        self.device = dev
        self._owner = owner if owner is not None else array
        nbytes = 0
        if array.size:
            nbytes = array.itemsize + sum((n - 1) * s for n, s in zip(array.shape, array.strides))
        ptr = array.__array_interface__["data"][0] if nbytes else 0
        self._buf = np.asarray(_BytesView(ptr, nbytes, self._owner)) if nbytes else \
            np.empty(0, np.uint8)
        self._nbytes = nbytes
        self._ptr = ptr
        return self

    def __reduce__(self):
        # copy.deepcopy and pickle: a fresh block from the allocator with the same bytes
        # (copying the slots would keep the old block's address in ``_ptr``)
        data = None if self._buf is None else self._buf.tobytes()
        return _rebuild_storage, (data, self._nbytes, str(self.device))

    def __del__(self):
        # never raises: a storage whose construction failed half way owns nothing
        try:
            allocator = self._allocator
            if allocator is not _CPU_ALLOC or _CPU_HOOKS:
                if allocator is None:
                    return
                # (the view straight from its slot: free() counts its references)
                if self._view is None:      # any allocator's free(buf, nbytes, ptr)
                    allocator.free(self._buf, self._nbytes, self._ptr)
                else:
                    allocator.free(self._buf, self._nbytes, self._ptr, self._view)
                return
            # Note [Freeing without a call]: the CPU allocator's ``free`` written out, as
            # every result tensor's storage ends here (same statistics, same cache rule; the
            # statistics as Note [Counting a cache round trip] keeps them)
            nbytes = self._nbytes
            size = (nbytes + 63) & -64
            cached = allocator._cached_bytes + size
            if size <= _CACHE_LIMIT_BLOCK and cached <= _CACHE_LIMIT_TOTAL:
                buf = self._buf
                view = self._view
                # the raw block and the view each have at least their bound of references
                # (the view holds the raw block once), so the sum passes the bounds' sum
                # exactly when some other array or view still reads the block
                if (_getrefcount(buf.base) + _getrefcount(view)
                        <= _UNSHARED_REFS + 1 + _VIEW_REFS if view is not None else
                        _getrefcount(buf.base) <= _UNSHARED_REFS):
                    free_list = _CPU_CACHE.get(nbytes)
                    if free_list is None:
                        free_list = _CPU_CACHE[nbytes] = []
                    # (the view's sizes ride along: new_cpu_tensor compares them, not
                    # view.shape, which builds a tuple)
                    free_list.append((buf, self._ptr, view,
                                      None if view is None else self._vsizes))
                    allocator._cached_bytes = cached
                    return
            allocator._released += 1
            allocator._reserved -= size
        except AttributeError:
            pass

    # -- the public surface ---------------------------------------------------

    def nbytes(self) -> int:
        return self._nbytes

    def size(self) -> int:
        return self._nbytes

    __len__ = size

    def data_ptr(self) -> int:
        return self._ptr

    @property
    def is_cuda(self):
        return self.device.type == "cuda"

    def element_size(self) -> int:
        return 1

    def resize_(self, nbytes: int) -> UntypedStorage:
        """Reallocate to ``nbytes``, keeping the common prefix (torch's semantics: the bytes
        past the old end are uninitialised). Shrinking under live tensors is allowed; their
        data is then refused with torch's bounds error (Note [Shrunk storages])."""
        if not _is_long(nbytes):
            raise RuntimeError(f"resize_ expects an int, but got {_type_name(nbytes)}")
        nbytes = _check_nbytes(int(nbytes))
        if self._allocator is None:
            raise RuntimeError(
                "Trying to resize storage that is not resizable")
        old_buf, old_nbytes, old_ptr = self._buf, self._nbytes, self._ptr
        new_buf, new_ptr = self._allocator.allocate(nbytes)
        if new_buf is not None:
            keep = min(old_nbytes, nbytes)
            if keep > 0:
                new_buf[:keep] = old_buf[:keep]
            # a fresh buffer object, so every tensor's cached NumPy view of the old one is
            # rebuilt (and bounds checked) on its next use (Note [The NumPy view cache])
            new_buf = new_buf[:]
        if nbytes < old_nbytes:
            SHRUNK[0] = True
        self._buf, self._ptr, self._nbytes = new_buf, new_ptr, nbytes
        self._view = None
        self._allocator.free(old_buf, old_nbytes, old_ptr)
        return self

    def clone(self) -> UntypedStorage:
        """A new storage on the same device with a copy of the bytes."""
        new = UntypedStorage(self._nbytes, device=self.device)
        if new._buf is not None and self._nbytes:
            new._buf[:self._nbytes] = self._buf
        return new

    def cpu(self) -> UntypedStorage:
        """This storage on the CPU: itself when it is there already (as torch's)."""
        return self.to(device="cpu")

    def to(self, *, device="cpu", non_blocking: bool = False) -> UntypedStorage:
        """This storage on ``device``; itself when it is there already (``map_location``
        callables call ``storage.cpu()`` / ``.to(device=...)``)."""
        dev = _device_cls(device)
        if dev == self.device:
            return self
        if self.device.type == "meta":
            raise NotImplementedError("Cannot copy out of meta tensor; no data!")
        new = UntypedStorage(self._nbytes, device=dev)
        if new._buf is not None and self._nbytes:
            new._buf[:self._nbytes] = self._buf
        return new

    def tolist(self):
        return [] if self._buf is None else self._buf.tolist()

    def __getitem__(self, i):
        return int(self._buf[i])

    def __setitem__(self, i, value):
        self._buf[i] = value

    def fill_(self, value):
        self._buf[:] = value
        return self

    def __repr__(self):
        head = " " + "\n ".join(str(b) for b in self.tolist()) if self._nbytes else ""
        return (f"{head}\n[strided.storage.UntypedStorage(device={self.device}) of size "
                f"{self._nbytes}]")


def new_cpu_storage(sizes: tuple, np_dtype, nbytes: int):
    """A CPU storage of ``nbytes`` for a fresh row-major tensor of ``sizes`` and ``np_dtype``
    (``nbytes`` > 0, the whole block), with its typed NumPy view: ``(storage, buf, view)``.
    The view is reused from the allocator's cache when it can be, and is kept on the storage
    so that it returns to the cache with the block (Note [Reusing the NumPy view]).
    ``tensor_impl.new_cpu_tensor`` writes the cache hit out for the kernels' results."""
    alloc = _CPU_ALLOC
    buf, ptr, view = alloc.allocate_view(nbytes, sizes, np_dtype)
    if view is None:
        view = _ndarray(sizes, np_dtype, buffer=buf)
    self = _object_new(UntypedStorage)
    self._allocator = alloc
    self._owner = None
    self.device = _CPU
    self._nbytes = nbytes
    self._buf = buf
    self._ptr = ptr
    self._view = view
    self._vsizes = sizes
    return self, buf, view


_CPU_ALLOC = get_allocator("cpu")
# (the CPU allocator's hook list and free lists: the same objects for its whole life)
_CPU_HOOKS = _CPU_ALLOC.hooks
_CPU_CACHE = _CPU_ALLOC._cache
_CPU = _CPU_ALLOC.device
_object_new = object.__new__
_ndarray = np.ndarray


def _rebuild_storage(data, nbytes: int, device: str) -> UntypedStorage:
    """Unpickles an ``UntypedStorage`` (see ``UntypedStorage.__reduce__``)."""
    storage = UntypedStorage(nbytes, device=device)
    if data is not None and nbytes:
        storage._buf[:nbytes] = np.frombuffer(data, np.uint8)
    return storage
