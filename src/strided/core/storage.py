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

from .allocator import get_allocator
from .devices import device as _device_cls

__all__ = ["UntypedStorage"]


class _BytesView:
    """Presents ``nbytes`` at ``ptr`` to NumPy as a uint8 array, holding ``owner`` alive."""

    __slots__ = ("__array_interface__", "owner")

    def __init__(self, ptr: int, nbytes: int, owner):
        self.owner = owner
        self.__array_interface__ = {"data": (ptr, False), "shape": (nbytes,), "typestr": "|u1",
                                    "version": 3}


class UntypedStorage:
    """An untyped, resizable buffer. ``buf`` is a uint8 NumPy array (None on meta)."""

    __slots__ = ("__weakref__", "_allocator", "_buf", "_nbytes", "_owner", "_ptr", "device")

    def __init__(self, nbytes: int = 0, *, device="cpu"):
        dev = _device_cls(device)
        allocator = get_allocator(dev.type)
        self._allocator = allocator
        self.device = dev
        self._owner = None
        self._nbytes = nbytes
        self._buf, self._ptr = allocator.allocate(nbytes)

    @classmethod
    def _new(cls, nbytes, dev, allocator):
        """Hot-path constructor for kernels: no argument parsing."""
        self = object.__new__(cls)
        self._allocator = allocator
        self.device = dev
        self._owner = None
        self._nbytes = nbytes
        self._buf, self._ptr = allocator.allocate(nbytes)
        return self

    @classmethod
    def _wrap(cls, array: np.ndarray, dev, owner=None):
        """A storage over the bytes that ``array`` spans, kept alive through ``owner``
        (default: the array itself). Used by ``from_numpy`` and DLPack imports."""
        self = object.__new__(cls)
        self._allocator = None
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
        data = None if self._buf is None else self._buf[:self._nbytes].tobytes()
        return _rebuild_storage, (data, self._nbytes, str(self.device))

    def __del__(self):
        allocator = self._allocator
        if allocator is not None:
            allocator.free(self._buf, self._nbytes, self._ptr)

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
        """Reallocate to ``nbytes``, keeping the common prefix (torch's semantics)."""
        if nbytes < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {nbytes}")
        if self._allocator is None:
            raise RuntimeError(
                "Trying to resize storage that is not resizable")
        old_buf, old_nbytes, old_ptr = self._buf, self._nbytes, self._ptr
        new_buf, new_ptr = self._allocator.allocate(nbytes)
        if new_buf is not None:
            keep = min(old_nbytes, nbytes)
            new_buf[:keep] = old_buf[:keep]
        self._buf, self._ptr, self._nbytes = new_buf, new_ptr, nbytes
        self._allocator.free(old_buf, old_nbytes, old_ptr)
        return self

    def clone(self) -> UntypedStorage:
        """A new storage on the same device with a copy of the bytes."""
        new = UntypedStorage(self._nbytes, device=self.device)
        if new._buf is not None and self._nbytes:
            new._buf[:self._nbytes] = self._buf[:self._nbytes]
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
            new._buf[:self._nbytes] = self._buf[:self._nbytes]
        return new

    def tolist(self):
        return [] if self._buf is None else self._buf[:self._nbytes].tolist()

    def __getitem__(self, i):
        return int(self._buf[:self._nbytes][i])

    def __setitem__(self, i, value):
        self._buf[:self._nbytes][i] = value

    def fill_(self, value):
        self._buf[:self._nbytes] = value
        return self

    def __repr__(self):
        head = " " + "\n ".join(str(b) for b in self.tolist()) if self._nbytes else ""
        return (f"{head}\n[strided.storage.UntypedStorage(device={self.device}) of size "
                f"{self._nbytes}]")


def _rebuild_storage(data, nbytes: int, device: str) -> UntypedStorage:
    """Unpickles an ``UntypedStorage`` (see ``UntypedStorage.__reduce__``)."""
    storage = UntypedStorage(nbytes, device=device)
    if data is not None and nbytes:
        storage._buf[:nbytes] = np.frombuffer(data, np.uint8)
    return storage
