"""The tensor's data model: (sizes, strides, storage_offset) over one storage.

``TensorImpl`` holds only metadata and the few derived facts everything needs
(contiguity, numel, the NumPy view of the data). Operators live above it: the
frontend's ``Tensor`` subclasses it and adds the generated methods.

Note [The NumPy view cache]
~~~~~~~~~~~~~~~~~~~~~~~~~~~
Kernels work on a NumPy ndarray that aliases the tensor's bytes with the
tensor's sizes and (byte) strides. Building one costs about a microsecond, so
each tensor caches its view in ``_np``. The cache is keyed on the storage's
buffer object: ``storage.resize_`` swaps the buffer, which invalidates every
alias's cache at once, and ops that change a tensor's own metadata in place
(``set_``, ``as_strided_``, ``resize_``, ``t_``...) reset ``_np`` themselves.
"""

from __future__ import annotations

import numpy as np

from .allocator import get_allocator as _get_allocator
from .devices import CPU
from .dispatch_keys import backend_keyset
from .storage import SHRUNK, UntypedStorage
from .storage import new_cpu_storage as _new_cpu_storage

__all__ = ["InferenceVersion", "TensorImpl", "check_storage_bounds", "compute_is_contiguous",
           "contiguous_strides", "make_tensor", "new_cpu_tensor", "new_version_counter",
           "storage_nbytes_needed"]


_strides_cache: dict = {}


def contiguous_strides(sizes) -> tuple:
    """Row-major strides for ``sizes``, e.g. ``(2, 3, 4) -> (12, 4, 1)`` (size-0/1 dims too)."""
    cached = _strides_cache.get(sizes)
    if cached is not None:
        return cached
    strides = []
    acc = 1
    for s in reversed(sizes):
        strides.append(acc)
        acc *= max(1, s)
    result = tuple(reversed(strides))
    if len(_strides_cache) < 4096:
        _strides_cache[tuple(sizes)] = result
    return result


def compute_is_contiguous(sizes, strides) -> bool:
    """torch's rule: dims of size 1 may have any stride; an empty tensor is contiguous."""
    if 0 in sizes:
        return True
    expected = 1
    for size, stride in zip(reversed(sizes), reversed(strides)):
        if size != 1:
            if stride != expected:
                return False
            expected *= size
    return True


_INT64_MAX = (1 << 63) - 1
_U64 = 1 << 64


def numel_overflows(sizes) -> bool:
    """Whether torch's numel of ``sizes`` overflows: the product taken in uint64 overflows at
    some step (even if a later 0 makes it 0) or ends above the int64 maximum; a negative
    size counts as overflowing, as its uint64 reading does."""
    n = 1
    for s in sizes:
        n *= s
    if 0 <= n <= _INT64_MAX and (n or len(sizes) < 3):
        return False
    n = 1
    for s in sizes:
        if s < 0:
            return True
        n *= s
        if n >= _U64:
            return True
    return n > _INT64_MAX


def check_numel(sizes) -> None:
    if numel_overflows(sizes):
        raise RuntimeError("numel: integer multiplication overflow")


def numel_of(sizes) -> int:
    n = 1
    for s in sizes:
        n *= s
    return n


class AutogradMeta:
    """Autograd state; ``None`` on tensors that never took part in autograd (the common
    case), so that creating a plain tensor sets one slot instead of five."""

    __slots__ = ("requires_grad", "grad", "grad_fn", "output_nr", "retains_grad", "hooks",
                 "grad_accumulator", "view_version", "post_accumulate_hooks", "creation_meta",
                 "__weakref__")

    def __init__(self, requires_grad=False):
        self.requires_grad = requires_grad
        self.grad = None
        self.grad_fn = None
        self.output_nr = 0
        self.retains_grad = False
        self.hooks = None                    # Tensor.register_hook on a leaf
        self.grad_accumulator = None         # weakref to the leaf's AccumulateGrad
        self.view_version = None             # a view's base version its grad_fn was made at
        self.post_accumulate_hooks = None
        self.creation_meta = None            # how a view was made, when in-place is refused


class TensorImpl:
    """Metadata of a strided tensor. See the module docstring."""

    __slots__ = (
        "_storage", "_sizes", "_strides", "_offset", "_dtype", "_device", "_vc", "_base",
        "_autograd_meta", "_np", "_np_buf", "_keyset", "__dict__", "__weakref__",
    )

    # -- the NumPy view (Note [The NumPy view cache]) --------------------------

    def _array(self) -> np.ndarray:
        storage = self._storage
        arr = self._np
        if arr is not None and self._np_buf is storage._buf:
            return arr
        buf = storage._buf
        if buf is None:
            raise RuntimeError(
                f"Cannot access data pointer of Tensor that doesn't have storage "
                f"(device={self._device})")
        itemsize = self._dtype.itemsize
        sizes = self._sizes
        strides = self._strides
        # ``buf`` is exactly the storage's size (Note [Shrunk storages]): NumPy refuses a
        # view that reaches past it, and that refusal becomes torch's bounds error. NumPy
        # skips its check for a zero-length buffer given strides, hence the explicit check
        # once a storage has shrunk.
        if SHRUNK[0]:
            check_storage_bounds(self)
        try:
            if 0 in sizes:
                arr = np.empty(sizes, self._dtype.np)
            elif not self._offset and strides == contiguous_strides(sizes):
                arr = np.ndarray(sizes, self._dtype.np, buffer=buf)   # the common case
            else:
                arr = np.ndarray(sizes, self._dtype.np, buffer=buf,
                                 offset=self._offset * itemsize,
                                 strides=[s * itemsize for s in strides])
        except (TypeError, ValueError):
            check_storage_bounds(self)
            if len(sizes) > 64:        # NumPy's limit; torch's dim bitsets have the same one
                raise RuntimeError("only tensors with up to 64 dims are supported") from None
            raise
        self._np = arr
        self._np_buf = buf
        return arr

    def _invalidate(self):
        self._np = None


def storage_nbytes_needed(sizes, strides, offset: int, itemsize: int) -> int:
    """Bytes a storage must hold for (sizes, strides, offset): 0 when there are no elements,
    else ``(offset + 1 + sum((size - 1) * stride)) * itemsize`` (torch's computeStorageNbytes
    plus the offset)."""
    extent = 1
    for n, st in zip(sizes, strides):
        if n == 0:
            return 0
        extent += (n - 1) * st
    return (offset + extent) * itemsize


def bounds_message(sizes, strides, offset, itemsize, needed, nbytes) -> str:
    return (f"setStorage: sizes {list(sizes)}, strides {list(strides)}, storage offset "
            f"{offset}, and itemsize {itemsize} requiring a storage size of {needed} are out "
            f"of bounds for storage of size {nbytes}")


def check_storage_bounds(t) -> None:
    """torch's bounds error when some element of ``t`` lies past its storage's end (a storage
    shrunk under it, Note [Shrunk storages]); meta tensors are checked the same way. Free
    until some storage has shrunk: before that every tensor is in bounds."""
    if not SHRUNK[0]:
        return
    itemsize = t._dtype.itemsize
    needed = storage_nbytes_needed(t._sizes, t._strides, t._offset, itemsize)
    nbytes = t._storage._nbytes
    if needed > nbytes:
        raise RuntimeError(bounds_message(t._sizes, t._strides, t._offset, itemsize, needed,
                                          nbytes))


class ArrayExport:
    """Shows a tensor's memory to NumPy (``np.asarray(ArrayExport(t))``) zero-copy, keeping the
    tensor and its memory block alive for as long as any array made from it lives. Holding the
    block (``pin``) also stops the allocator from recycling it (Note [Caching small blocks])."""

    __slots__ = ("__array_interface__", "__weakref__", "tensor", "pin")

    def __init__(self, tensor, readonly: bool = False, np_dtype=None):
        check_storage_bounds(tensor)    # an export by address: NumPy cannot check it
        itemsize = tensor._dtype.itemsize
        storage = tensor._storage
        buf = storage._buf
        self.tensor = tensor
        self.pin = buf.base if buf is not None and buf.base is not None else buf
        np_dtype = tensor._dtype.np if np_dtype is None else np_dtype
        self.__array_interface__ = {
            "data": (storage._ptr + tensor._offset * itemsize if storage._ptr else 0, readonly),
            "shape": tuple(tensor._sizes),
            "strides": tuple(s * itemsize for s in tensor._strides),
            "typestr": np_dtype.str, "descr": np_dtype.descr, "version": 3,
        }


_tensor_cls = [TensorImpl]
_object_new = object.__new__


def set_tensor_class(cls) -> None:
    """The frontend installs its ``Tensor`` here so kernels can make tensors of it."""
    _tensor_cls[0] = cls


# Note [Inference tensors]
# ~~~~~~~~~~~~~~~~~~~~~~~~
# A tensor allocated while its thread is in inference mode is an inference tensor, and so
# is every view or detached alias of it: they share its version counter, which is an
# ``InferenceVersion`` instead of a plain ``[0]``. Such a counter does not count: reading it
# (``_version``) raises, bumping it (every in-place or out= write bumps, after the write, as
# torch's VariableVersion::bump does) raises outside inference mode, and a node refuses to
# save a tensor that has one. ``INFERENCE_ACTIVE`` counts the inference_mode blocks open in
# any thread, so that allocation reads the thread's state only while one is open.
INFERENCE_ACTIVE = [0]
INFERENCE_STATE = [None]          # grad_mode.STATE (the per-thread modes), set by grad_mode
_INPLACE_INFERENCE = (
    "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a "
    "clone to get a normal tensor before doing inplace update.See "
    "https://github.com/pytorch/rfcs/pull/17 for more details.")


class InferenceVersion(list):
    """The version counter of an inference tensor (Note [Inference tensors])."""

    __slots__ = ()

    def __setitem__(self, i, value):
        if not INFERENCE_STATE[0].inference:
            raise RuntimeError(_INPLACE_INFERENCE)


def new_version_counter() -> list:
    """A fresh tensor's version counter: ``[0]``, or an ``InferenceVersion`` when the calling
    thread is in inference mode."""
    if INFERENCE_ACTIVE[0] and INFERENCE_STATE[0].inference:
        return InferenceVersion((0,))
    return [0]


def make_tensor(storage: UntypedStorage, sizes: tuple, strides: tuple, offset: int, dtype,
                vc=None, base=None):
    """A new tensor over ``storage``. Views pass their base's ``vc`` and ``base``."""
    cls = _tensor_cls[0]
    t = _object_new(cls)
    t._storage = storage
    t._sizes = sizes
    t._strides = strides
    t._offset = offset
    t._dtype = dtype
    dev = storage.device
    t._device = dev
    t._vc = vc if vc is not None else [0] if not INFERENCE_ACTIVE[0] else new_version_counter()
    t._base = base
    t._autograd_meta = None
    t._np = None
    t._keyset = _CPU_KEYSET if dev is _CPU else backend_keyset(dev)
    return t


# Note [A result's life]
# ~~~~~~~~~~~~~~~~~~~~~~
# Every tiny kernel result is made here and dies in ``UntypedStorage.__del__`` (Note
# [Freeing without a call]); a create + drop of a 4x4 float32 took 1.16 us, np.empty 0.2 us.
# What a cycle pays is kept to the statistics' two counters (Note [Counting a cache round
# trip]), the two objects' slots and two reference counts, in two Python frames: the cache
# hit is written out here (no new_cpu_storage / allocate_view frames), the cached view is
# matched on the sizes its entry carries (``view.shape`` builds a tuple), the strides come
# from the cache dict without contiguous_strides' frame, and the storage's ``_owner`` slot
# stays unset (it only keeps a ``_wrap`` storage's memory alive; nothing reads it). With
# allocator hooks registered every allocation goes through ``new_cpu_storage`` and the
# allocator's methods, which call them.


def new_cpu_tensor(sizes: tuple, dtype, nbytes: int):
    """A fresh row-major CPU tensor of ``sizes`` (a tuple of ints with ``nbytes`` =
    numel * itemsize > 0): ``(tensor, view)``, ``view`` the NumPy view of its elements, also
    cached on the tensor (Note [Reusing the NumPy view]). Its memory is uninitialised: the
    caller writes every element (or fills it, as ``empty`` does in deterministic mode).
    This is ``empty`` + ``make_tensor`` for the kernels' fast paths, in one call."""
    np_dtype = dtype.np
    free_list = _CPU_CACHE.get(nbytes)
    if free_list and not _CPU_HOOKS:
        # Note [A result's life]: the allocator's cache hit and ``new_cpu_storage`` written
        # out (the statistics as Note [Counting a cache round trip] keeps them)
        buf, ptr, view, vsizes = free_list.pop()
        alloc = _CPU_ALLOC
        cached = alloc._cached_bytes = alloc._cached_bytes - ((nbytes + 63) & -64)
        alloc._hits += 1
        if alloc._reserved - cached > alloc.peak_bytes:
            alloc.peak_bytes = alloc._reserved - cached
        if vsizes != sizes or view.dtype is not np_dtype:
            view = _ndarray(sizes, np_dtype, buffer=buf)
        storage = _object_new(UntypedStorage)
        storage._allocator = alloc       # (``_owner`` stays unset)
        storage.device = _CPU
        storage._nbytes = nbytes
        storage._buf = buf
        storage._ptr = ptr
        storage._view = view
        storage._vsizes = sizes
    else:
        storage, buf, view = _new_cpu_storage(sizes, np_dtype, nbytes)
    t = _object_new(_tensor_cls[0])
    t._storage = storage
    t._sizes = sizes
    strides = _strides_cache.get(sizes)
    t._strides = strides if strides is not None else contiguous_strides(sizes)
    t._offset = 0
    t._dtype = dtype
    t._device = _CPU
    t._vc = [0] if not INFERENCE_ACTIVE[0] else new_version_counter()
    t._base = None
    t._autograd_meta = None
    t._keyset = _CPU_KEYSET
    t._np = view
    t._np_buf = buf
    return t, view


_CPU = CPU
_CPU_KEYSET = backend_keyset(CPU)
_CPU_ALLOC = _get_allocator("cpu")
# (the CPU allocator's hook list and free lists: the same objects for its whole life)
_CPU_HOOKS = _CPU_ALLOC.hooks
_CPU_CACHE = _CPU_ALLOC._cache
_ndarray = np.ndarray
