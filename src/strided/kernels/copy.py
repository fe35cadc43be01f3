"""``copy_``: broadcasting, dtype conversion, overlap checks and a blocked copy.

Note [Blocked copy]
~~~~~~~~~~~~~~~~~~~
Copying a transposed matrix into a contiguous one with a single NumPy call walks one
side with a large stride and misses the cache on nearly every element (6x slower than
the blocked copy for 4096x4096 float32). When the fastest dimension of the source is not
the fastest of the destination, we copy in strips one cache line (64 bytes) wide along
the destination's fastest dim and as long as the whole source-fast dim, with the two
dims permuted to the end of both views (the source's fastest, then the destination's).
NumPy's iterator cannot tell which of two operands with conflicting strides to follow
and then keeps C order, so its inner loop runs along the destination's fastest dim:
every step writes one whole destination line while reading one element from each of
the strip's 16 source lines, and those 16 lines (and their 16 pages) are reused for the
next 15 steps. The working set is 17 cache lines and 17 TLB entries whatever the
matrix size, so the copy needs no tuning to a cache size (the L1 of any x86 core holds
it). Shapes measured on 4096x4096 float32 (this 2-core EPYC, 2 MiB L2, CPU time):

    one np.copyto          125 ms
    strips 16 x 1024        20 ms   (the previous blocking: 1024 source elements long)
    strips 16 x 4096        19 ms   (whole source dim; the one kept)
    strips 32 x 4096        40 ms   (two lines wide: 32 pages per step thrash the TLB)
    strips 64 x 4096        50 ms
    square tiles 64 x 64    55 ms,  128 x 128: 52 ms,  32 x 32: 56 ms

The 16 x 1024 strips were as fast here, but only because the order NumPy then picked
for a transposed destination kept 1024 destination lines (64 KiB) live between reuses:
that fits a 2 MiB L2 and not a small L1/L2, which is why their speed depended on the
machine. The block loop runs in Python (one call per strip: 256 for 4096x4096), so it
is used only when the matrix is large enough for the per-call overhead not to matter.
"""

from __future__ import annotations

import warnings

import numpy as np

from ..core.dispatch_keys import DispatchKey
from ..core.dtypes import BOOL, COMPLEX32_NP
from ..core.tensor_impl import check_storage_bounds
from . import complex32 as c32
from .broadcast import broadcast_pair, expanded_strides
from .memory_overlap import assert_no_internal_overlap, assert_no_partial_overlap

CACHE_LINE = 64
_MIN_TILED_ELEMENTS = 1 << 16


_CONJ_BIT = DispatchKey.Conjugate.bit
_NEG_BIT = DispatchKey.Negative.bit
_MATH_BITS = _CONJ_BIT | _NEG_BIT


def copy_(self, src, non_blocking=False):
    """``self``'s values become ``src``'s. Where their conjugate / negative bits differ, the
    bytes written are conjugated / negated afterwards (Note [Conjugate and negative bits]
    in view_ops.py)."""
    sizes = self._sizes
    flip = (self._keyset ^ src._keyset) & _MATH_BITS
    if self is src or (self._storage is src._storage and self._offset == src._offset
                       and self._strides == src._strides and sizes == src._sizes
                       and self._dtype is src._dtype and not flip):
        # the same data: nothing to move (torch returns before its overlap checks)
        self._vc[0] += 1
        return self
    assert_no_internal_overlap(self)
    assert_no_partial_overlap(self, src)
    if src._sizes != sizes:
        shape = broadcast_pair(sizes, src._sizes)
        if shape != sizes:
            raise RuntimeError(f"output with shape {list(sizes)} doesn't match the broadcast "
                               f"shape {list(shape)}")
        src_strides = expanded_strides(src._sizes, src._strides, sizes)
    else:
        src_strides = src._strides
    if src._device.type == "meta" and self._device.type != "meta":
        raise NotImplementedError("Cannot copy out of meta tensor; no data!")
    if self._device.type == "meta":
        self._vc[0] += 1
        return self
    dst_arr = self._array()
    if src_strides is src._strides:
        src_arr = src._array()
    else:
        src_arr = _strided_array(src, sizes, src_strides)
    if src_arr.dtype == COMPLEX32_NP and self._dtype is not src._dtype:
        # Note [complex32]; (to float16 torch copies the real half as it is)
        src_arr = src_arr["real"] if self._dtype.np == np.float16 else c32.widen(src_arr)
    if src._dtype.is_complex and not self._dtype.is_complex:
        warnings.warn("Casting complex values to real discards the imaginary part",
                      UserWarning, stacklevel=3)
        if self._dtype.category != BOOL:   # bool keeps "either part is nonzero"
            src_arr = src_arr.real
    copy_array(dst_arr, src_arr)
    if flip:
        from .view_ops import _conj_bytes_, _neg_bytes_
        if flip & _CONJ_BIT:
            _conj_bytes_(dst_arr)
        if flip & _NEG_BIT:
            _neg_bytes_(dst_arr)
    self._vc[0] += 1
    return self


def _strided_array(t, sizes, strides):
    itemsize = t._dtype.itemsize
    if 0 in sizes:
        return np.empty(sizes, t._dtype.np)
    check_storage_bounds(t)   # NumPy does not check a zero-length buffer given strides
    try:
        return np.ndarray(sizes, t._dtype.np, buffer=t._storage._buf,
                          offset=t._offset * itemsize, strides=[s * itemsize for s in strides])
    except (TypeError, ValueError):
        check_storage_bounds(t)   # a storage shrunk under t (Note [Shrunk storages])
        raise


def copy_array(dst: np.ndarray, src: np.ndarray) -> None:
    """``dst[...] = src`` with unsafe casting, tiled when layouts disagree (Note [Blocked copy])."""
    if dst.dtype != src.dtype and (dst.dtype == COMPLEX32_NP or src.dtype == COMPLEX32_NP):
        if dst.dtype == COMPLEX32_NP:
            c32.store(dst, src)       # Note [complex32]
        else:
            copy_array(dst, c32.widen(src))
        return
    if dst.dtype != src.dtype:
        # casts saturate or wrap like C++ casts; NumPy's warnings about it are not torch's
        with np.errstate(all="ignore"):
            _copy(dst, src)
    else:
        _copy(dst, src)


def _copy(dst, src):
    if dst.ndim >= 2 and dst.size >= _MIN_TILED_ELEMENTS:
        fast_dst = _fastest_dim(dst)
        fast_src = _fastest_dim(src)
        if fast_dst != fast_src and fast_src is not None and fast_dst is not None:
            _tiled_copy(dst, src, fast_dst, fast_src)
            return
    np.copyto(dst, src, casting="unsafe")


def _fastest_dim(a: np.ndarray):
    best, best_stride = None, None
    for d in range(a.ndim):
        if a.shape[d] > 1:
            s = abs(a.strides[d])
            if s and (best_stride is None or s < best_stride):
                best, best_stride = d, s
    return best


def _tiled_copy(dst, src, fast_dst, fast_src):
    """Note [Blocked copy]: strips one cache line wide along ``fast_dst``, as long as the
    whole ``fast_src`` dim, iterated with ``fast_dst`` innermost."""
    order = [d for d in range(dst.ndim) if d != fast_dst and d != fast_src]
    order += [fast_src, fast_dst]
    dst = dst.transpose(order)
    src = src.transpose(order)
    width = max(1, CACHE_LINE // dst.itemsize)
    for j in range(0, dst.shape[-1], width):
        np.copyto(dst[..., j:j + width], src[..., j:j + width], casting="unsafe")
