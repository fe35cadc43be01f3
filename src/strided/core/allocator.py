"""Allocators: one per device type, found through a registry.

The CPU allocator hands out 64-byte aligned blocks (NumPy arrays of uint8 cut
from a slightly larger raw allocation) and keeps statistics: bytes in use, peak,
number of allocations and frees. Observers registered with ``add_hook`` see
every allocation and free as ``hook(event, nbytes, ptr, device)``.

Note [Caching small blocks]
~~~~~~~~~~~~~~~~~~~~~~~~~~~
Finding the address of a fresh NumPy allocation costs more than allocating it
(it goes through ``__array_interface__``), and small tensors are created and
dropped at a high rate. So freed blocks of up to ``CACHE_LIMIT_BLOCK`` bytes go
to a free list per rounded size (like PyTorch's caching allocators) and are
handed out again with their address already known. The statistics count a
cached block as freed (``allocated_bytes`` drops) and report the cache
separately as ``cached_bytes``; ``empty_cache()`` returns it to the system.

Note [Reusing the NumPy view]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Making the typed NumPy view of a fresh result costs about as much as the block
itself. A storage made by the row-major fast path (``new_cpu_storage``) keeps
that view in its ``_view`` slot; when the block goes back to the cache, the
view goes with it if nothing else holds it (its refcount proves the tensors
that used it are gone), and ``allocate_view`` hands it out again for a result
of the same sizes and dtype. A view still held elsewhere keeps the raw block
alive, so the block is not cached, exactly as for any other NumPy alias. A free
list entry is ``(buf, ptr, view, the view's sizes)`` (``view`` and its sizes None
for a block cached without one).

Note [Counting a cache round trip]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A tiny result's life is one cache hit and one return to the cache, so the CPU
allocator keeps its statistics in the form that changes least over that round
trip: ``_reserved`` (bytes handed out or cached), ``_cached_bytes``, ``_hits``
(blocks handed out from the cache), ``_fresh`` (blocks from the system),
``_released`` (frees that did not go to the cache) and ``_flushed`` (blocks that
``empty_cache`` dropped). A hit changes ``_cached_bytes`` and ``_hits``; a return
to the cache changes ``_cached_bytes`` only. The public figures follow exactly:
bytes in use are ``_reserved - _cached_bytes``; allocations ``_fresh + _hits``;
frees ``_released`` plus every block that went into the cache, which has since
been handed out (``_hits``), dropped (``_flushed``) or is still there (the free
lists' lengths).
"""

from __future__ import annotations

import operator
import sys

import numpy as np

from .devices import CPU, META, device

__all__ = ["Allocator", "CPUAllocator", "MetaAllocator", "get_allocator", "register_allocator"]

ALIGNMENT = 64
_getrefcount = sys.getrefcount
# The references a cached block's objects have when nothing else reads its memory, counted
# inside ``free`` or the storage's ``__del__`` (tests/core/test_alloc_view_reuse.py holds
# each kind of alias): the raw allocation (``buf.base``) is held by ``buf`` and by
# getrefcount's argument (every NumPy array made over the block holds it too, as its
# ``base``); the storage's own view by its ``_view`` slot, the local name and getrefcount's
# argument.
_UNSHARED_REFS = 2
_VIEW_REFS = 3
# blocks above this size are never cached: 2 MiB keeps a small model's activations and
# gradients (256 KiB for 256x256 float32) off the system allocator, whose fresh blocks
# cost page faults: empty(256, 256) takes 4.5 us uncached and 2.3 us cached
CACHE_LIMIT_BLOCK = 1 << 21
CACHE_LIMIT_TOTAL = 64 << 20     # the cache never holds more than this


class Allocator:
    """Base class: ``allocate(nbytes) -> (buffer, ptr)`` and ``free(buffer, nbytes, ptr)``."""

    device: device

    def __init__(self):
        self.hooks: list = []
        self.reset_stats()

    def reset_stats(self):
        self.allocated_bytes = 0
        self.peak_bytes = 0
        self.num_allocs = 0
        self.num_frees = 0

    def reset_peak(self):
        self.peak_bytes = self.allocated_bytes

    def stats(self) -> dict:
        return {
            "allocated_bytes.current": self.allocated_bytes,
            "allocated_bytes.peak": self.peak_bytes,
            "allocation.allocated": self.num_allocs,
            "allocation.freed": self.num_frees,
            "allocation.current": self.num_allocs - self.num_frees,
            "cached_bytes": 0,
        }

    def _notify(self, event, nbytes, ptr):
        for hook in tuple(self.hooks):
            hook(event, nbytes, ptr, self.device)


class CPUAllocator(Allocator):
    """64-byte aligned host memory with a small-block cache (Note [Caching small blocks]);
    statistics as in Note [Counting a cache round trip]."""

    device = CPU

    def __init__(self):
        self._cache: dict[int, list] = {}
        super().__init__()

    def reset_stats(self):
        # the cached blocks stay cached and will count as freed: nothing is in use after this
        self._cached_bytes = self._reserved = sum(
            len(free_list) * ((nbytes + 63) & -64) for nbytes, free_list in self._cache.items())
        self.peak_bytes = 0
        self._fresh = self._hits = self._flushed = 0
        self._released = -self._num_cached()

    def _num_cached(self) -> int:
        return sum(len(free_list) for free_list in self._cache.values())

    @property
    def allocated_bytes(self) -> int:
        return self._reserved - self._cached_bytes

    @property
    def num_allocs(self) -> int:
        return self._fresh + self._hits

    @property
    def num_frees(self) -> int:
        return self._released + self._hits + self._flushed + self._num_cached()

    def allocate(self, nbytes: int):
        # Note [Exact-length buffers]: the block is rounded up to 64 bytes, but the buffer
        # handed out is exactly ``nbytes`` long, so every NumPy view made over it is bounds
        # checked by NumPy against the storage's real size. Free lists are keyed by the exact
        # size for the same reason (a cached buffer is reused as it is).
        free_list = self._cache.get(nbytes)
        if free_list:
            buf, ptr, _, _ = self._pop_cached(free_list, nbytes)
            return buf, ptr
        if nbytes.__class__ is not int:
            nbytes = _as_nbytes(nbytes)
        if nbytes < 0:
            raise RuntimeError(
                f"[enforce fail at alloc_cpu.cpp:98] ((ptrdiff_t)nbytes) >= 0. alloc_cpu() seems "
                f"to have been called with negative number: {nbytes % (1 << 64)}")
        size = (nbytes + 63) & -64
        try:
            raw = np.empty(size + ALIGNMENT, np.uint8)
        except (MemoryError, ValueError):
            raise RuntimeError(
                f"[enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator: can't "
                f"allocate memory: you tried to allocate {nbytes} bytes. Error code 12 (Cannot "
                f"allocate memory)") from None
        addr = raw.__array_interface__["data"][0]
        start = -addr % ALIGNMENT
        buf = raw[start:start + nbytes]
        ptr = addr + start
        # statistics change only once the block exists (a failed allocation leaves them be)
        self._fresh += 1
        reserved = self._reserved = self._reserved + size
        if reserved - self._cached_bytes > self.peak_bytes:
            self.peak_bytes = reserved - self._cached_bytes
        if self.hooks:
            self._notify("alloc", size, ptr)
        return buf, ptr

    def allocate_view(self, nbytes: int, sizes: tuple, np_dtype):
        """``allocate`` for a fresh row-major tensor of ``sizes`` and ``np_dtype`` filling the
        whole block: ``(buf, ptr, view)``, ``view`` being the block's cached NumPy view when
        it has those sizes and dtype, else None (Note [Reusing the NumPy view])."""
        free_list = self._cache.get(nbytes)
        if not free_list:
            buf, ptr = self.allocate(nbytes)
            return buf, ptr, None
        buf, ptr, view, view_sizes = self._pop_cached(free_list, nbytes)
        if view_sizes != sizes or view.dtype is not np_dtype:
            view = None
        return buf, ptr, view

    def _pop_cached(self, free_list, nbytes: int):
        """Hand out the last cached block of ``free_list`` (of ``nbytes``), counting it as an
        allocation: ``(buf, ptr, view, view's sizes)``."""
        entry = free_list.pop()
        size = (nbytes + 63) & -64
        cached = self._cached_bytes = self._cached_bytes - size
        self._hits += 1
        if self._reserved - cached > self.peak_bytes:
            self.peak_bytes = self._reserved - cached
        if self.hooks:
            self._notify("alloc", size, entry[1])
        return entry

    def free(self, buf, nbytes: int, ptr: int, view=None):
        """Return a block. ``view`` is a typed NumPy view over it that its storage kept
        (Note [Reusing the NumPy view]); it is cached with the block when nothing else holds
        it."""
        size = (nbytes + 63) & -64
        # Note [Caching small blocks]: a block may be reused only when nothing but ``buf``
        # (and the storage's own ``view``) refers to its memory; a NumPy array or DLPack
        # export still reading it holds the raw allocation (``buf.base``), which then simply
        # stays alive with it.
        cached = False
        if size <= CACHE_LIMIT_BLOCK and self._cached_bytes + size <= CACHE_LIMIT_TOTAL:
            if view is None:
                cached = _getrefcount(buf.base) <= _UNSHARED_REFS
            else:
                # the view counts once on the raw block; itself held by the storage's slot,
                # the argument and getrefcount's own argument
                cached = (_getrefcount(buf.base) <= _UNSHARED_REFS + 1
                          and _getrefcount(view) <= _VIEW_REFS)
        if cached:
            free_list = self._cache.get(nbytes)
            if free_list is None:
                free_list = self._cache[nbytes] = []
            free_list.append((buf, ptr, view, None if view is None else view.shape))
            self._cached_bytes += size
        else:
            self._released += 1
            self._reserved -= size
        if self.hooks:
            self._notify("free", size, ptr)

    def empty_cache(self):
        self._flushed += self._num_cached()
        self._reserved -= self._cached_bytes
        self._cache.clear()
        self._cached_bytes = 0

    def stats(self) -> dict:
        out = super().stats()
        out["cached_bytes"] = self._cached_bytes
        return out


def _as_nbytes(nbytes) -> int:
    """A byte count given as something other than an int: an exact integer (``__index__``),
    never a float or a tensor, so that the statistics only ever add ints."""
    if isinstance(nbytes, bool) or not hasattr(type(nbytes), "__index__") \
            or hasattr(nbytes, "_storage"):
        raise TypeError(f"allocate(): nbytes must be an int, not {type(nbytes).__name__}")
    return operator.index(nbytes)


class MetaAllocator(Allocator):
    """Meta tensors have sizes and strides but no data: nothing is allocated."""

    device = META

    def allocate(self, nbytes: int):
        self.num_allocs += 1
        return None, 0

    def free(self, buf, nbytes: int, ptr: int, view=None):
        self.num_frees += 1


_REGISTRY: dict[str, Allocator] = {}


def register_allocator(device_type: str, allocator: Allocator) -> None:
    """Install ``allocator`` for every storage made on ``device_type`` from now on."""
    _REGISTRY[device_type] = allocator


def get_allocator(device_type: str) -> Allocator:
    try:
        return _REGISTRY[device_type]
    except KeyError:
        raise RuntimeError(f"no allocator is registered for device type '{device_type}'") from None


register_allocator("cpu", CPUAllocator())
register_allocator("meta", MetaAllocator())


def memory_stats(device="cpu") -> dict:
    """Allocator statistics for a device type: bytes in use, peak, allocation counts."""
    return get_allocator(_device_type(device)).stats()


def memory_allocated(device="cpu") -> int:
    return get_allocator(_device_type(device)).allocated_bytes


def max_memory_allocated(device="cpu") -> int:
    return get_allocator(_device_type(device)).peak_bytes


def reset_peak_memory_stats(device="cpu") -> None:
    get_allocator(_device_type(device)).reset_peak()


def empty_cache(device="cpu") -> None:
    alloc = get_allocator(_device_type(device))
    if hasattr(alloc, "empty_cache"):
        alloc.empty_cache()


def add_hook(hook, device="cpu"):
    """Call ``hook(event, nbytes, ptr, device)`` on every alloc/free; returns a remover."""
    hooks = get_allocator(_device_type(device)).hooks
    hooks.append(hook)
    return lambda: hooks.remove(hook) if hook in hooks else None


def _device_type(dev) -> str:
    return dev if isinstance(dev, str) and ":" not in dev else device(dev).type
