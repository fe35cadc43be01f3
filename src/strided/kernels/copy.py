"""``copy_``: broadcasting, dtype conversion, overlap checks and a blocked copy.

Note [Blocked copy]
~~~~~~~~~~~~~~~~~~~
Copying a transposed matrix into a contiguous one with a single NumPy call walks the
destination row by row and reads one element from each of N source lines per row: the
N lines (N x 64 bytes) are reused for the next 15 rows only if they all stay in cache.
When the fastest dimension of the source is not the fastest of the destination, we copy
in strips instead: ``w`` destination elements wide (so ``w`` source lines) and as long
as the whole source-fast dim, with the two dims permuted to the end of both views (the
source's fastest, then the destination's). NumPy's iterator cannot tell which of two
operands with conflicting strides to follow and keeps C order, so its inner loop writes
``w`` consecutive destination elements while reading one element from each of the
strip's ``w`` source lines, which are reused for the next 15 steps. The working set is
``w + 1`` lines whatever the matrix size; but a narrow strip makes NumPy's inner loop
short (16 float32 per call for one cache line), and what that costs against the cache
misses of a wider strip differs between machines. Measured (float32, CPU time, best of
3; strips named by their width in elements, torch's ``copy_`` into an allocated
destination for reference), on this 2-core EPYC (32 KiB 8-way L1d, 1 MiB L2):

    N x N    one copyto  strips 16  strips 32  strips 128  tiles 64x64  taken    torch
    256          67 us      43 us      35 us      68 us       74 us      34 us    35 us
    1000        837 us     884 us     1.5 ms     801 us      1.1 ms     888 us   1.1 ms
    1024        4.0 ms     1.3 ms     2.4 ms     3.1 ms      3.4 ms     1.3 ms   1.2 ms
    2048       23.7 ms     7.3 ms     9.8 ms    12.6 ms     13.9 ms     7.3 ms   5.6 ms
    4000       47.3 ms    26.2 ms    32.7 ms    19.1 ms     27.2 ms    19.1 ms  20.8 ms
    4096      125.2 ms    19.8 ms    41.5 ms    50.2 ms     54.7 ms    21.3 ms  22.1 ms

and on a 16-core Xeon (Sapphire Rapids class: 48 KiB 12-way L1d, 2 MiB L2):

    256          73 us      42 us      31 us      77 us       48 us      32 us    45 us
    1000        651 us     891 us     666 us     497 us      743 us     511 us   887 us
    1024        4.4 ms     1.4 ms     1.1 ms     1.3 ms      1.5 ms     1.4 ms   979 us
    2048       15.7 ms     6.0 ms     4.2 ms     4.7 ms      5.8 ms     6.0 ms   7.8 ms
    4000       19.0 ms    50.2 ms    34.9 ms    28.1 ms     33.8 ms    28.1 ms  39.0 ms
    4096      100.9 ms    62.6 ms    45.2 ms    22.8 ms     35.0 ms    24.7 ms  39.2 ms

No fixed shape wins on both: at N = 4096 one-line strips are the best on the EPYC and
2.7x the best on the Xeon, 128-wide strips the reverse (2.5x); square tiles (a Python
loop over both dims) are never the best; a plain copy is 2-6x slower from N = 1024 on
at power-of-two strides (all the source lines fall in a few cache sets). So the width is
chosen in two ways:

- Up to 16 KiB destination rows (or 2**20 elements), by the L1's geometry, which all
  current x86 cores share: 64 sets of 64-byte lines (32 KiB 8-way or 48 KiB 12-way).
  ``_lines_in_l1`` counts the source lines L1 holds together: those within 32 KiB, or 8
  in each set they fall into (lines 4 KiB apart share a set, so a stride of 4 KiB or a
  multiple puts every line in one set). A plain copy when the whole dim fits (e.g. 181
  or 300 float32 columns), else that many lines, at least one destination line and at
  most 512 bytes, in whole lines: 32 at N = 256, 128 at N = 1000 and 4000, 16 at N =
  1024 and 2048 (the "taken" column; the Xeon prefers 32 at those two, by 1.3-1.4x).
- From 16 KiB rows on (4096 float32, 2048 float64), by measuring: ``_calibrate`` copies
  one strip of each width in _CANDIDATES (64, 128 and 512 bytes) on this thread's CPU
  clock after an untimed one that takes the destination's first-touch page faults, and
  copies the rest with the width that was fastest per column. The timed strips are 3/64
  of a row at most, so the poor candidates cost a few percent (6% on the EPYC at 4096),
  and the result is the same bytes whichever width wins: it picked 16 on the EPYC and
  128 (in one run of four, 32) on the Xeon at N = 4096 (float64: 8 and 64: 41 and 40 ms
  against torch's 44 and 47 ms).

The strips loop runs in Python (one call per strip: 256 for 4096 x 4096 at 16 wide), so
blocking is tried only from 2**14 elements on.

Note [Copying between storages]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
``clone``/``contiguous`` copy into a fresh row-major tensor, and most user copies go
between two tensors of one dtype that live in different storages. Then the overlap
checks have nothing to find: two storages never share bytes (no partial overlap), and a
row-major or column-major destination (a clone of a transposed matrix) has no two
elements at one address (NumPy's ``c_contiguous``/``f_contiguous`` flags say exactly
that, size-1 dims included). With the same sizes (no broadcast), the same
dtype (no cast, no complex-to-real warning) and the same conjugate/negative bits, the
copy is the NumPy copy alone; everything else takes the general path below.
"""

from __future__ import annotations

import math
import warnings
from time import thread_time as _thread_time

import numpy as np

from ..core.dispatch_keys import DispatchKey
from ..core.dtypes import BOOL, COMPLEX32_NP
from ..core.tensor_impl import check_storage_bounds
from . import complex32 as c32
from .broadcast import broadcast_pair, expanded_strides
from .memory_overlap import assert_no_internal_overlap, assert_no_partial_overlap

# NumPy's C copyto itself: ``np.copyto`` first runs the ``__array_function__`` protocol's
# Python dispatcher (0.2 of its 0.4 us on 16 elements); the kernels pass plain arrays
try:
    from numpy._core._multiarray_umath import copyto as _copyto
except ImportError:   # NumPy 1.x
    _copyto = np.copyto

CACHE_LINE = 64
# Note [Blocked copy]: what every current x86 L1d shares (32 KiB 8-way or 48 KiB 12-way)
L1_SPAN = 32 << 10         # the smallest size
L1_WAYS = 8                # the smallest associativity
L1_SETS = 64               # sets of 64-byte lines: addresses 4 KiB apart share a set
L1_WAY = L1_SETS * CACHE_LINE
_MAX_STRIP = 512           # bytes of a destination run (128 float32)
_MIN_TILED_ELEMENTS = 1 << 14
_CALIBRATED_ELEMENTS = 1 << 20
_CALIBRATED_ROW = 16 << 10          # destination row bytes: the timed strips are 3/64 of it
_CANDIDATES = (64, 128, 512)        # strip widths timed, in destination bytes


_CONJ_BIT = DispatchKey.Conjugate.bit
_NEG_BIT = DispatchKey.Negative.bit
_MATH_BITS = _CONJ_BIT | _NEG_BIT


def copy_(self, src, non_blocking=False):
    """``self``'s values become ``src``'s. Where their conjugate / negative bits differ, the
    bytes written are conjugated / negated afterwards (Note [Conjugate and negative bits]
    in view_ops.py)."""
    sizes = self._sizes
    flip = (self._keyset ^ src._keyset) & _MATH_BITS
    if (self._storage is not src._storage and self._dtype is src._dtype and not flip
            and src._sizes == sizes and self._storage._buf is not None
            and src._storage._buf is not None):
        # Note [Copying between storages]
        dst_arr = self._array()
        flags = dst_arr.flags
        if flags.c_contiguous or flags.f_contiguous:
            _copy(dst_arr, src._array())
            self._vc[0] += 1
            return self
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
    _copyto(dst, src, casting="unsafe")


def _fastest_dim(a: np.ndarray):
    best, best_stride = None, None
    for d in range(a.ndim):
        if a.shape[d] > 1:
            s = abs(a.strides[d])
            if s and (best_stride is None or s < best_stride):
                best, best_stride = d, s
    return best


def _lines_in_l1(stride: int) -> int:
    """How many source lines ``stride`` bytes apart an L1d holds together (Note [Blocked
    copy]): those within L1_SPAN bytes, or L1_WAYS in each set they fall into, whichever
    is more."""
    stride = max(1, stride)
    sets = min(L1_SETS, L1_WAY // math.gcd(stride, L1_WAY))
    return max(L1_SPAN // stride, L1_WAYS * sets)


def _calibrate(dst, src, line):
    """The first strips of a large blocked copy (Note [Blocked copy]): one untimed (it
    takes the destination's first-touch page faults), then one of each width in
    _CANDIDATES timed on this thread's clock. Returns the next column and the width that
    copied fastest per element."""
    itemsize = dst.itemsize
    np.copyto(dst[..., :line], src[..., :line], casting="unsafe")
    j, best, best_time = line, line, math.inf
    for nbytes in _CANDIDATES:
        w = max(1, nbytes // itemsize)
        t0 = _thread_time()
        np.copyto(dst[..., j:j + w], src[..., j:j + w], casting="unsafe")
        per_column = (_thread_time() - t0) / w
        j += w
        if per_column < best_time:
            best, best_time = w, per_column
    return j, best


def _tiled_copy(dst, src, fast_dst, fast_src):
    """Note [Blocked copy]: strips along ``fast_dst``, as long as the whole ``fast_src``
    dim, iterated with ``fast_dst`` innermost; one strip (a plain copy) when the source
    lines of the whole ``fast_dst`` dim fit L1 together."""
    order = [d for d in range(dst.ndim) if d != fast_dst and d != fast_src]
    order += [fast_src, fast_dst]
    dst = dst.transpose(order)
    src = src.transpose(order)
    n = dst.shape[-1]
    fit = _lines_in_l1(abs(src.strides[-1]))
    if n <= fit:
        np.copyto(dst, src, casting="unsafe")
        return
    itemsize = dst.itemsize
    line = max(1, CACHE_LINE // itemsize)
    width = max(line, min(fit, _MAX_STRIP // itemsize) // line * line)
    start = 0
    if dst.size >= _CALIBRATED_ELEMENTS and n * itemsize >= _CALIBRATED_ROW:
        start, width = _calibrate(dst, src, line)
    for j in range(start, n, width):
        np.copyto(dst[..., j:j + width], src[..., j:j + width], casting="unsafe")
