"""``copy_``: broadcasting, dtype conversion, overlap checks and a blocked copy.

Note [Blocked copy]
~~~~~~~~~~~~~~~~~~~
Copying a transposed matrix into a contiguous one with a single NumPy call
walks one side with a large stride and misses the cache on nearly every
element (3x slower than torch for 4096x4096 float32). When the fastest
dimension of the source is not the fastest of the destination, we copy in
blocks that are one cache line (64 bytes) wide along the destination's fastest
dim and ``SRC_RUN`` elements long along the source's fastest dim: every
destination line is written whole, and the source is read in long contiguous
runs that stay in cache while the block's lines are filled. (Measured on
4096x4096 float32: square 64x64 tiles take 0.85x torch's time, these strips
0.45x.) The block loop runs in Python, so it is used only when the matrix is
large enough for the per-block overhead not to matter.
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
SRC_RUN = 1024
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
        src_arr = c32.widen(src_arr)     # Note [complex32]
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
    """Note [Blocked copy]: strips one cache line wide along ``fast_dst``."""
    width = max(1, CACHE_LINE // dst.itemsize)
    n_dst, n_src = dst.shape[fast_dst], dst.shape[fast_src]
    index = [slice(None)] * dst.ndim
    for i in range(0, n_src, SRC_RUN):
        index[fast_src] = slice(i, i + SRC_RUN)
        for j in range(0, n_dst, width):
            index[fast_dst] = slice(j, j + width)
            key = tuple(index)
            np.copyto(dst[key], src[key], casting="unsafe")
