"""Factory kernels: allocate a storage, wrap it in a tensor, fill it.

Each backend kernel takes the schema's arguments in order. ``dtype=None`` and
``device=None`` mean torch's defaults (the default float dtype, the CPU).
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from ..core import dtypes as dt
from ..core import layouts
from ..core.allocator import get_allocator
from ..core.checks import check
from ..core.devices import CPU as _CPU_DEV
from ..core.devices import DEFAULT_DEVICE
from ..core.storage import UntypedStorage
from ..core.tensor_impl import (
    check_storage_bounds,
    compute_is_contiguous,
    contiguous_strides,
    make_tensor,
    new_cpu_tensor,
    numel_of,
    numel_overflows,
    storage_nbytes_needed,
)
from . import complex32 as _c32
from .copy import _MATH_BITS, copy_
from .memory_overlap import is_non_overlapping_and_dense
from .resize import resize_impl as resize_
from .scalars import check_scalar_fits, scalar_dtype, scalar_to_store

_alloc_of = {}
_INT64_MAX = (1 << 63) - 1


def _allocator(device):
    a = _alloc_of.get(device)
    if a is None:
        a = _alloc_of[device] = get_allocator(device.type)
    return a


def _fresh(t):
    """A tensor a functional factory made: its in-place fills are not user mutations,
    so its version counter starts at 0 (as torch's do)."""
    t._vc[0] = 0
    return t


def _check_sizes(size):
    for s in size:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: "
                               f"{list(size)}")


def _check_layout(layout):
    check(layout is None or layout is layouts.strided,
          lambda: f"strided supports only the strided layout, got {layout}")


def _sparse_factory(size, dtype, layout, device, name="empty"):
    """``empty``/``zeros`` with a sparse layout: an empty sparse tensor (issue 16)."""
    from .sparse_coo import sparse_factory
    return sparse_factory(size, dtype, layout, device, name)


# torch.use_deterministic_algorithms(True) with torch.utils.deterministic.
# fill_uninitialized_memory (its default): set by utils/env.py
FILL_UNINITIALIZED = [False]


DETERMINISTIC = [False, False]     # use_deterministic_algorithms(mode, warn_only=): utils/env.py


def alert_not_deterministic(name: str) -> None:
    """torch's alertNotDeterministic: an op with no deterministic CPU implementation raises
    (or, with ``warn_only``, warns) while deterministic algorithms are on."""
    if not DETERMINISTIC[0]:
        return
    if DETERMINISTIC[1]:
        warnings.warn(
            f"{name} does not have a deterministic implementation, but you set "
            f"'torch.use_deterministic_algorithms(True, warn_only=True)'. You can file an "
            f"issue at https://github.com/pytorch/pytorch/issues to help us prioritize adding "
            f"deterministic support for this operation.", UserWarning, stacklevel=3)
        return
    raise RuntimeError(
        f"{name} does not have a deterministic implementation, but you set "
        f"'torch.use_deterministic_algorithms(True)'. You can turn off determinism just for "
        f"this operation, or you can use the 'warn_only=True' option, if that's acceptable "
        f"for your application. You can also file an issue at "
        f"https://github.com/pytorch/pytorch/issues to help us prioritize adding "
        f"deterministic support for this operation.")


def fill_uninitialized(storage, dtype, start: int = 0) -> None:
    """torch's fill_empty_deterministic_ of a storage's elements from ``start`` (in elements,
    of ``dtype``) on: NaN (complex: NaN + 0j) for floating types, the largest value for
    integers (True for bool)."""
    buf = storage._buf
    item = dtype.itemsize
    n = 0 if buf is None else len(buf) // item
    if n <= start:
        return
    raw = buf[start * item:n * item]
    if dtype.is_complex:
        parts = raw.view({4: np.float16, 8: np.float32, 16: np.float64}[item])
        parts[0::2] = np.nan
        parts[1::2] = 0
    elif dtype.is_floating_point:
        raw.view(dtype.np).fill(np.nan)
    elif dtype is dt.bool_:
        raw.fill(1)
    else:
        raw.view(dtype.np).fill(np.iinfo(dtype.np).max)


def new_strided(size, stride, dtype, device):
    """Allocate a tensor with the given (sizes, strides); nothing is initialised (unless
    deterministic algorithms ask for it)."""
    dtype = dtype or dt._default_dtype[0]
    device = device or DEFAULT_DEVICE[0]
    nbytes = storage_nbytes_needed(size, stride, 0, dtype.itemsize)
    if nbytes > _INT64_MAX:
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(size)} and "
                           f"strides={list(stride)}")
    if dtype is dt.complex32:
        _c32.warn_experimental()
    storage = UntypedStorage._new(nbytes, device, _allocator(device))
    if FILL_UNINITIALIZED[0]:
        fill_uninitialized(storage, dtype)
    return make_tensor(storage, size, stride, 0, dtype)


def _row_major_cpu(size: tuple, dtype, device):
    """Note [Factories' fast path]: the everyday factory call, a row-major CPU tensor with
    elements, of a dtype other than complex32, made in a few lines: ``(tensor, NumPy view)``
    of uninitialised memory, or None for any other call (errors included), which takes the
    general path, checking in torch's order."""
    if device is not _CPU_DEV and (device is not None or DEFAULT_DEVICE[0] is not _CPU_DEV):
        return None
    dtype = dtype or _DEFAULT_DTYPE[0]
    nbytes = dtype.itemsize
    for s in size:
        if s <= 0:
            return None
        nbytes *= s
    if nbytes > _INT64_MAX or len(size) > 64 or dtype is _COMPLEX32:
        return None
    return new_cpu_tensor(size, dtype, nbytes)


_DEFAULT_DTYPE = dt._default_dtype     # (the default dtype's one-element list)
_COMPLEX32 = dt.complex32


def empty(size, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None):
    if type(size) is not tuple:
        size = tuple(size)
    if layout is None and memory_format is None:
        fast = _row_major_cpu(size, dtype, device)
        if fast is not None:
            if FILL_UNINITIALIZED[0]:
                fill_uninitialized(fast[0]._storage, fast[0]._dtype)
            return fast[0]
    if layout is not None and layout is not layouts.strided:
        return _sparse_factory(size, dtype, layout, device)
    numel = 1
    for s in size:
        if s < 0:
            _check_sizes(size)
        numel *= s
    if layout is not None:
        _check_layout(layout)
    dtype = dtype or dt._default_dtype[0]
    device = device or DEFAULT_DEVICE[0]
    nbytes = numel * dtype.itemsize
    if nbytes > _INT64_MAX or (not numel and len(size) > 2 and numel_overflows(size)):
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(size)}")
    if dtype is dt.complex32:
        _c32.warn_experimental()
    if memory_format is None or memory_format is layouts.contiguous_format:
        strides = contiguous_strides(size)
        row_major = True
    else:
        strides = _format_strides(size, memory_format)
        row_major = strides == contiguous_strides(size)
    if numel and row_major and device is _CPU_DEV and len(size) <= 64:
        # a row-major CPU block: its NumPy view comes with it (Note [Reusing the NumPy view])
        t = new_cpu_tensor(size, dtype, nbytes)[0]
        if FILL_UNINITIALIZED[0]:
            fill_uninitialized(t._storage, dtype)
        return t
    storage = UntypedStorage._new(nbytes, device, _allocator(device))
    if FILL_UNINITIALIZED[0]:
        fill_uninitialized(storage, dtype)
    return make_tensor(storage, size, strides, 0, dtype)


def _format_strides(size, memory_format):
    """The dense strides of a memory format: row-major, or channels last (N, H, W, C) for
    ``channels_last`` (rank 4) and ``channels_last_3d`` (rank 5), as torch lays them out
    (the channel stride 1, then W, H, (D), N in turn, no size clamped to 1)."""
    if memory_format is layouts.channels_last or memory_format is layouts.channels_last_3d:
        rank = 4 if memory_format is layouts.channels_last else 5
        check(len(size) == rank, lambda: (
            f"required rank {rank} tensor to use {str(memory_format)[6:]} format"))
        strides = [0] * rank
        strides[1] = 1
        acc = size[1]
        for d in range(rank - 1, 1, -1):
            strides[d] = acc
            acc *= size[d]
        strides[0] = acc
        return tuple(strides)
    check(memory_format is not layouts.preserve_format,
          "unsupported memory format Preserve")
    return contiguous_strides(size)


def empty_out(size, memory_format, out):
    # torch's Python binding refuses the pair before anything else
    check(memory_format is None,
          "'memory_format' argument is incompatible with 'out' tensor argument")
    resize_(out, tuple(size))
    return out


def empty_strided(size, stride, dtype=None, layout=None, device=None, pin_memory=None):
    check(len(size) == len(stride), lambda: (
        f"dimensionality of sizes ({len(size)}) must match dimensionality of strides "
        f"({len(stride)})"))
    _check_sizes(size)
    if any(st < 0 for st in stride):
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(size)} and "
                           f"strides={list(stride)}")
    _check_layout(layout)
    return new_strided(tuple(size), tuple(stride), dtype, device)


def zeros(size, dtype=None, layout=None, device=None, pin_memory=None):
    if layout is not None and layout is not layouts.strided:
        return _sparse_factory(tuple(size), dtype, layout, device, "zeros")
    if type(size) is not tuple:
        size = tuple(size)
    if layout is None:
        fast = _row_major_cpu(size, dtype, device)
        if fast is not None:
            t, view = fast
            view.fill(0)
            return t
    for s in size:
        if s < 0:
            raise RuntimeError("zeros: Dimension size must be non-negative.")
    t = empty(size, dtype, layout, device, pin_memory)
    buf = t._storage._buf
    if buf is not None:
        buf.fill(0)
    return t


def _filled(t, value):
    """Fill a tensor this kernel has just allocated (contiguous, offset 0): the typed view of
    its whole block is filled directly, skipping the strided NumPy view and the version bump
    of ``fill_`` (a new tensor starts at version 0)."""
    buf = t._storage._buf
    if buf is not None:
        dtype = t._dtype
        numel = numel_of(t._sizes)
        check_scalar_fits(value, dtype, numel)
        if numel:
            if dtype.itemsize == 2 and dtype.category == dt.FLOAT:
                with np.errstate(over="ignore"):
                    buf.view(dtype.np).fill(scalar_to_store(value, dtype))
            else:
                buf.view(dtype.np).fill(scalar_to_store(value, dtype))
    return t


def ones(size, dtype=None, layout=None, device=None, pin_memory=None):
    return _filled(empty(size, dtype, layout, device, pin_memory), 1)


def full(size, fill_value, dtype=None, layout=None, device=None, pin_memory=None):
    if dtype is None:
        dtype = scalar_dtype(fill_value)
    return _filled(empty(size, dtype, layout, device, pin_memory), fill_value)


def _filled_out(out, size, value):
    # torch's zeros/ones/full.out resize their output without the out= warning
    resize_(out, tuple(size))
    return fill_(out, value)


def zeros_out(size, out):
    return _filled_out(out, size, 0)


def ones_out(size, out):
    return _filled_out(out, size, 1)


def full_out(size, fill_value, out):
    return _filled_out(out, size, fill_value)


def scalar_tensor(s, dtype=None, layout=None, device=None, pin_memory=None):
    return _fresh(fill_(empty((), dtype, layout, device, pin_memory), s))


# -- *_like and new_* -------------------------------------------------------------------------

def preserved_strides(sizes, strides) -> tuple:
    """torch's preserve_format: keep the strides of a non-overlapping and dense tensor,
    otherwise lay the dims out densely in the order of the input's strides.

    The order comes from an insertion sort, innermost dim first, starting from
    row-major order. A dim moves outwards past another only when its stride is larger
    (or equal, with a larger size); a zero stride (a broadcast dim) compares with
    nothing, so such dims keep their row-major place and the scan goes on past them."""
    if is_non_overlapping_and_dense(sizes, strides):
        return tuple(strides)
    ndim = len(sizes)
    perm = list(range(ndim - 1, -1, -1))   # perm[0] is the innermost dim

    def outer_first(d0, d1):   # 1: d0 belongs outside d1; -1: inside; 0: undecided
        s0, s1 = strides[d0], strides[d1]
        if s0 == 0 or s1 == 0:
            return 0
        if s0 != s1:
            return 1 if s0 > s1 else -1
        return 1 if sizes[d0] > sizes[d1] else 0

    for i in range(1, ndim):
        j = i
        for k in range(i - 1, -1, -1):
            order = outer_first(perm[k], perm[j])
            if order > 0:
                perm[k], perm[j] = perm[j], perm[k]
                j = k
            elif order < 0:
                break
    out = [0] * ndim
    acc = 1
    for d in perm:
        out[d] = acc
        if sizes[d] > 1:
            acc *= sizes[d]
    return tuple(out)


def empty_like(self, dtype=None, layout=None, device=None, pin_memory=None,
               memory_format=None):
    _check_layout(layout)
    dtype = dtype or self._dtype
    device = device or self._device
    sizes = self._sizes
    if memory_format is None or memory_format is layouts.preserve_format:
        strides = preserved_strides(sizes, self._strides)
        if strides == contiguous_strides(sizes):
            return empty(sizes, dtype, None, device)
        return new_strided(sizes, strides, dtype, device)
    return empty(sizes, dtype, None, device, None, memory_format)


def zeros_like(self, dtype=None, layout=None, device=None, pin_memory=None,
               memory_format=None):
    return _fresh(fill_(empty_like(self, dtype, layout, device, pin_memory, memory_format), 0))


def ones_like(self, dtype=None, layout=None, device=None, pin_memory=None,
              memory_format=None):
    return _fresh(fill_(empty_like(self, dtype, layout, device, pin_memory, memory_format), 1))


def full_like(self, fill_value, dtype=None, layout=None, device=None, pin_memory=None,
              memory_format=None):
    return _fresh(fill_(empty_like(self, dtype, layout, device, pin_memory, memory_format),
                        fill_value))


def new_empty(self, size, dtype=None, layout=None, device=None, pin_memory=None):
    return empty(size, dtype or self._dtype, layout, device or self._device)


def new_empty_strided(self, size, stride, dtype=None, layout=None, device=None,
                      pin_memory=None):
    return empty_strided(size, stride, dtype or self._dtype, layout, device or self._device)


def new_zeros(self, size, dtype=None, layout=None, device=None, pin_memory=None):
    _check_sizes(size)   # torch's new_zeros is empty + zero_: empty's message for a bad size
    return zeros(size, dtype or self._dtype, layout, device or self._device)


def new_ones(self, size, dtype=None, layout=None, device=None, pin_memory=None):
    return ones(size, dtype or self._dtype, layout, device or self._device)


def new_full(self, size, fill_value, dtype=None, layout=None, device=None, pin_memory=None):
    return full(size, fill_value, dtype or self._dtype, layout, device or self._device)


# -- fills and copies -------------------------------------------------------------------------

def fill_(self, value):
    buf = self._storage._buf
    if buf is None:   # meta: torch checks nothing
        self._vc[0] += 1
        return self
    numel = numel_of(self._sizes)
    dtype = self._dtype
    check_scalar_fits(value, dtype, numel)
    if numel:
        if dtype.itemsize == 2 and dtype.category == dt.FLOAT:
            with np.errstate(over="ignore"):   # a one-element fill may round to inf
                self._array().fill(scalar_to_store(value, dtype))
        else:
            self._array().fill(scalar_to_store(value, dtype))
    self._vc[0] += 1
    return self


def fill_tensor_(self, value):
    """``fill_`` with a 0-dim tensor: a casting copy (300 into uint8 wraps to 44)."""
    check(value.dim() == 0, lambda: (
        f"fill_ only supports 0-dimension value tensor but got tensor with "
        f"{value.dim()} dimensions."))
    return copy_(self, value)


def zero_(self):
    return fill_(self, 0)


def clone(self, memory_format=None):
    sizes = self._sizes
    buf = self._storage._buf
    row_major = self._strides == contiguous_strides(sizes)
    if (buf is not None and (row_major or memory_format is layouts.contiguous_format)
            and memory_format is not layouts.channels_last
            and memory_format is not layouts.channels_last_3d
            and not self._keyset & _MATH_BITS):   # bits: copy_ resolves them
        # a row-major result (Note [Factories' fast path])
        fast = _row_major_cpu(sizes, self._dtype, self._device)
        if fast is not None:
            out, view = fast
            if not row_major:      # (copy_ picks its way through the source's strides)
                return _fresh(copy_(out, self))
            view[...] = self._array()          # (_array() checks the bounds)
            return out
    if buf is not None and row_major and memory_format is not layouts.channels_last \
            and memory_format is not layouts.channels_last_3d \
            and not self._keyset & _MATH_BITS:
        # A row-major source: the copy is one run of bytes with the same strides.
        out = empty(sizes, self._dtype, None, self._device)
        nbytes = numel_of(sizes) * self._dtype.itemsize
        start = self._offset * self._dtype.itemsize
        if start + nbytes > self._storage._nbytes:
            check_storage_bounds(self)   # Note [Shrunk storages]
        out._storage._buf[:nbytes] = buf[start:start + nbytes]
        return out
    out = empty_like(self, None, None, None, None, memory_format)
    return _fresh(copy_(out, self))


def contiguous(self, memory_format=layouts.contiguous_format):
    if is_contiguous_in(self._sizes, self._strides, memory_format):
        return self
    check(memory_format is not layouts.preserve_format,
          "preserve memory format is unsupported by the contiguous operator")
    return clone(self, memory_format)


def is_contiguous_in(sizes, strides, memory_format) -> bool:
    """``is_contiguous(memory_format=...)``: row-major dense, or (``channels_last`` for rank
    4, ``channels_last_3d`` for rank 5) dense with C innermost, then W, H, (D), N; size-1
    dims ignored. Any other rank is not channels-last contiguous."""
    if memory_format is layouts.channels_last or memory_format is layouts.channels_last_3d:
        rank = 4 if memory_format is layouts.channels_last else 5
        if len(sizes) != rank:
            return False
        expected = 1
        for d in layouts._CHANNELS_LAST_ORDERS[rank]:
            if sizes[d] != 1:
                if strides[d] != expected:
                    return False
                expected *= sizes[d]
        return True
    return compute_is_contiguous(sizes, strides)


def to_copy(self, dtype=None, layout=None, device=None, pin_memory=None, non_blocking=False,
            memory_format=None):
    if self._device.type == "meta" and device is not None and device.type != "meta":
        raise NotImplementedError("Cannot copy out of meta tensor; no data!")
    out = empty_like(self, dtype, layout, device, pin_memory, memory_format)
    return _fresh(copy_(out, self))


def type_as(self, other):
    """torch's ``self.to(other.options())``: ``self`` itself when the dtype and device
    already agree, else a converted copy (ToCopyBackward0 under autograd)."""
    return to_dtype_layout(self, other._dtype, None, other._device)


def to_dtype_layout(self, dtype=None, layout=None, device=None, pin_memory=None,
                    non_blocking=False, copy=False, memory_format=None):
    same = ((dtype is None or dtype is self._dtype) and (device is None or device ==
            self._device) and (memory_format is None or memory_format is
                               layouts.preserve_format))
    if same and not copy:
        return self
    # a CompositeImplicitAutograd kernel: _to_copy through the dispatcher, so that autograd
    # records its ToCopyBackward0 as torch's does (kernels/aliases.py)
    from ..ops.dispatcher import get_op
    return get_op("aten::_to_copy").call(self._keyset, self, dtype, layout, device, pin_memory,
                                         non_blocking, memory_format)


def local_scalar_dense(self):
    arr = self._np
    if arr is not None and arr.size == 1 and self._np_buf is self._storage._buf:
        # the cached NumPy view of one element (Note [The NumPy view cache]): NumPy's own
        # Python scalar, but for the dtypes NumPy's item() does not give as torch does
        dtype = self._dtype
        if dtype is not dt.bfloat16 and dtype is not dt.complex32:
            return arr.item()
    n = numel_of(self._sizes)
    check(n == 1, lambda: f"a Tensor with {n} elements cannot be converted to Scalar")
    check(self._device.type != "meta", "Tensor.item() cannot be called on meta tensors")
    dtype = self._dtype
    if dtype is not dt.bfloat16 and dtype is not dt.complex32:
        return self._array().item()     # NumPy's own Python scalar (float16 -> float too)
    value = self._array().reshape(-1)[0]
    if self._dtype is dt.bfloat16 or self._dtype is dt.float16:
        return float(value)
    if self._dtype is dt.complex32:
        return complex(float(value["real"]), float(value["imag"]))
    return value.item()


# -- ranges -----------------------------------------------------------------------------------
#
# Note [Vectorized range kernels]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# torch's CPU arange runs a vectorized loop (256-bit vectors, two per iteration, the
# remainder element by element) whose vector path computes values differently from
# its element path: each vector of V = 32 / itemsize elements starts from a base
# computed like a single element and rounded to the output type, and its elements are
# ``base + j * step``. In float32 that is visible (arange(-1, 1, 0.1) holds -2.98e-09
# where a direct formula gives 0), so ``_arange_values`` follows the same scheme,
# vectorised with NumPy. The kernels are compiled with fused multiply-adds, so
# ``a + b * i`` is rounded once (``_fma``). Outputs longer than torch's parallel grain
# (32768 elements) are split across threads in torch, which moves the vector
# boundaries; that split is not reproduced.

_VECTOR_BYTES = 32
_SPLIT = 134217729.0   # 2**27 + 1, Dekker's splitting constant for doubles


def _fma(a: float, k, c):
    """``a * k + c`` rounded once, for a double ``a``, integer indices ``k`` (|k| < 2**26)
    and double(s) ``c``. Dekker's split ``a = ah + al`` makes ``ah * k`` and ``al * k``
    exact, so the result is the correctly rounded sum of three doubles: ``math.fsum`` for
    short ranges, and for long ones Knuth's two-sums, whose final rounding can only be
    wrong when it lands exactly half-way between two doubles; those rare elements are
    redone with ``fsum``. Long inputs go in cache-sized blocks (fresh large temporaries
    cost more in page faults than in arithmetic)."""
    a = float(a)
    t = _SPLIT * a
    ah = t - (t - a)
    al = a - ah
    kf = np.asarray(k, np.float64)
    shape = np.broadcast_shapes(kf.shape, np.shape(c))
    n = math.prod(shape)
    kb = np.broadcast_to(kf, shape)
    cb = np.broadcast_to(np.asarray(c, np.float64), shape)
    if n <= 256:
        fsum = math.fsum
        out = [fsum((ah * x, al * x, y)) if math.isfinite(y) and math.isfinite(a)
               else a * x + y for x, y in zip(kb.ravel().tolist(), cb.ravel().tolist())]
        return np.array(out, dtype=np.float64).reshape(shape)
    out = np.empty(shape, np.float64)
    if not shape:
        return _fma(a, kf.reshape(1), np.reshape(c, 1)).reshape(())
    rows = max(1, _FMA_BLOCK * shape[0] // n)   # leading-axis slices of about a block
    for lo in range(0, shape[0], rows):
        hi = min(shape[0], lo + rows)
        out[lo:hi] = _fma_block(a, ah, al, kb[lo:hi].ravel(), cb[lo:hi].ravel()).reshape(
            out[lo:hi].shape)
    return out


_FMA_BLOCK = 8192


def _fma_block(a, ah, al, kf, c):
    with np.errstate(over="ignore", invalid="ignore"):
        x = kf * ah
        y = kf * al
        s1 = x + y
        e1 = y - (s1 - x)            # exact: |x| >= |y| (Fast2Sum)
        s2 = s1 + c
        z = s2 - s1
        e2 = (s1 - (s2 - z)) + (c - z)
        corr = e1 + e2
        r = s2 + corr
        rest = corr - (r - s2)       # exactly what the final rounding dropped
        # the rounded ``corr`` can only mislead the final rounding at an exact tie
        ulp = np.abs(np.spacing(r))
        arest = np.abs(rest)
        suspect = ((arest * 2 == ulp) | (arest * 4 == ulp)) & (rest != 0)
        if suspect.any():
            for i in np.nonzero(suspect)[0].tolist():
                x_ = float(kf[i])
                r[i] = math.fsum((ah * x_, al * x_, float(c[i])))
        if not np.isfinite(r).all():
            r = np.where(np.isfinite(r), r, kf * a + c)
    return r


def _fma_float32(a, k, c) -> np.ndarray:
    """``a * k + c`` rounded once to float32 (a float32 fused multiply-add), for a float32
    ``a``, integer ``k`` and float32 ``c``: the product is exact in double, and the sum is
    rounded to double *to odd*, which makes the final rounding to float32 correct."""
    kf = np.asarray(k, np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        p = kf * float(a)
        s = p + c
        z = s - p
        err = (p - (s - z)) + (c - z)
        fix = (err != 0) & ((s.view(np.int64) & 1) == 0) & np.isfinite(s)
        if fix.any():
            s = np.where(fix, np.nextafter(s, np.where(err > 0, np.inf, -np.inf)), s)
        return s.astype(np.float32)


def _to_double(value) -> float:
    """``Scalar.to<double>()``: a complex value with an imaginary part overflows."""
    if isinstance(value, complex):
        check(value.imag == 0, "value cannot be converted to type double without overflow")
        value = value.real
    return float(value)


def _fmt_range_value(value) -> str:
    return str(value) if isinstance(value, int) else f"{value:g}"


def _trunc_int(value) -> int:
    return int(value.real) if isinstance(value, complex) else int(value)


def arange_size(start, end, step, dtype) -> int:
    """torch's checks and length rule for ``arange``; the checks use the values as
    doubles, the length of an int64 range the values truncated to integers."""
    ds, de, dst = _to_double(start), _to_double(end), _to_double(step)
    check(dst > 0 or dst < 0, "step must be nonzero")
    check(math.isfinite(ds) and math.isfinite(de), lambda: (
        f"unsupported range: {_fmt_range_value(start)} -> {_fmt_range_value(end)}"))
    check((dst > 0 and de >= ds) or (dst < 0 and de <= ds),
          "upper bound and lower bound inconsistent with step sign")
    if dtype is dt.int64:
        xs, xe, xst = _trunc_int(start), _trunc_int(end), _trunc_int(step)
        check(xst != 0, "step must be nonzero", ValueError)
        sign = 1 if xst > 0 else -1
        num = xe - xs + xst - sign
        size = abs(num) // abs(xst) * (1 if (num >= 0) == (xst > 0) else -1)  # C division
    else:
        size = math.ceil((de - ds) / dst)
    check(0 <= size <= 2**63 - 1, "invalid size, possible overflow?")
    return size


_ARANGE_DTYPES = (dt.uint8, dt.int8, dt.int16, dt.int32, dt.int64, dt.float16, dt.bfloat16,
                  dt.float32, dt.float64)


def _check_kernel_dtype(name, dtype, supported):
    if dtype not in supported:
        raise NotImplementedError(f'"{name}" not implemented for \'{dtype._scalar_name}\'')


def _arange_values(start, step, n, dtype) -> np.ndarray:
    """Note [Vectorized range kernels]. The accumulation type is int64 for integers,
    double for float32/float64 and float for float16/bfloat16."""
    if dtype.category == dt.INT:
        if type(start) is int and type(step) is int:
            return np.arange(start, start + n * step, step, dtype=np.int64)[:n]
        return np.arange(n, dtype=np.int64) * _trunc_int(step) + _trunc_int(start)
    if dtype.itemsize == 2:   # float accumulation
        a_start = float(np.float32(_to_double(start)))
        a_step = float(np.float32(_to_double(step)))
        fma = _fma_float32
    else:
        a_start, a_step = _to_double(start), _to_double(step)
        fma = _fma
    width = _VECTOR_BYTES // dtype.itemsize
    vector_end = n - n % (2 * width)
    out = np.empty(n, dtype.np)
    with np.errstate(over="ignore", invalid="ignore"):
        if vector_end:
            base_idx = np.arange(0, vector_end, width, dtype=np.int64)
            base = np.asarray(fma(a_step, base_idx, a_start)).astype(dtype.np)
            offsets = np.arange(width, dtype=np.int64)[None, :]
            vector = fma(a_step, offsets, base.astype(np.float64)[:, None])
            out[:vector_end] = np.asarray(vector).reshape(-1)
        if vector_end < n:
            out[vector_end:] = fma(a_step, np.arange(vector_end, n, dtype=np.int64), a_start)
    return out


def _write_range(out, values):
    if out._storage._buf is not None and values.size:
        with np.errstate(over="ignore", invalid="ignore"):
            np.copyto(out._array(), values.reshape(out._sizes), casting="unsafe")


def arange_start_out(start, end, step, out):
    dtype = out._dtype
    meta = out._device.type == "meta"
    if not meta:
        _check_kernel_dtype("arange_cpu", dtype, _ARANGE_DTYPES)
    size = arange_size(start, end, step, dtype if dtype in _ARANGE_DTYPES else dt.float64)
    if numel_of(out._sizes) != size:
        if numel_of(out._sizes):
            warnings.warn(
                f"The number of elements in the out tensor of shape {list(out._sizes)} is "
                f"{numel_of(out._sizes)} which does not match the computed number of elements "
                f"{size}. Note that this may occur as a result of rounding error. The out tensor "
                f"will be resized to a tensor of shape ({size},).", UserWarning, stacklevel=4)
        resize_(out, (size,))
    if not meta:
        _write_range(out, _arange_values(start, step, size, dtype))
    out._vc[0] += 1
    return out


def arange_start_step(start, end, step=1, dtype=None, layout=None, device=None,
                      pin_memory=None):
    if dtype is None:
        dtype = dt._default_dtype[0] if _is_float(start, end, step) else dt.int64
    if (dtype is dt.int64 and type(start) is int and type(end) is int and type(step) is int
            and step and (end >= start if step > 0 else end <= start)):
        # The common integer range: numpy's arange computes exactly torch's values.
        size = (end - start + step - (1 if step > 0 else -1)) // step
        out = empty((size,), dtype, layout, device)
        buf = out._storage._buf
        if buf is not None and size:
            buf.view(np.int64)[:size] = np.arange(start, end, step, dtype=np.int64)
        return out
    meta = device is not None and device.type == "meta"
    if not meta:
        _check_kernel_dtype("arange_cpu", dtype, _ARANGE_DTYPES)
    size = arange_size(start, end, step, dtype if dtype in _ARANGE_DTYPES else dt.float64)
    out = empty((size,), dtype, layout, device)
    buf = out._storage._buf
    if buf is not None and size:
        buf.view(dtype.np)[:size] = _arange_values(start, step, size, dtype)
    return out


def _is_float(*scalars) -> bool:
    return any(isinstance(s, (float, complex)) for s in scalars)


def arange(end, dtype=None, layout=None, device=None, pin_memory=None):
    return arange_start_step(0, end, 1, dtype, layout, device, pin_memory)


def arange_start(start, end, dtype=None, layout=None, device=None, pin_memory=None):
    return arange_start_step(start, end, 1, dtype, layout, device, pin_memory)


def arange_out(end, out):
    return arange_start_out(0, end, 1, out)


_LINSPACE_DTYPES = _ARANGE_DTYPES + (dt.complex64, dt.complex128)


def _scalar_as(value, dtype):
    """``Scalar.to<T>()``: checked (torch's overflow errors), then converted."""
    check_scalar_fits(value, dtype)
    return scalar_to_store(value, dtype)


def _linspace_real(start, end, steps, np_dtype) -> np.ndarray:
    """float32/float64 linspace: the step in the output type, each value one fused
    multiply-add: the first half counts up from ``start``, the second half down from
    ``end``."""
    t = np_dtype.type
    s, e = t(start), t(end)
    step = (e - s) / t(steps - 1)
    idx = np.arange(steps, dtype=np.int64)
    fma = _fma_float32 if np_dtype == np.float32 else _fma
    half = steps // 2
    out = np.empty(steps, np_dtype)
    with np.errstate(over="ignore", invalid="ignore"):
        out[:half] = fma(step, idx[:half], float(s))
        out[half:] = fma(-float(step), steps - idx[half:] - 1, float(e))
    return out


def _linspace_half(start, end, steps, dtype) -> np.ndarray:
    """float16/bfloat16 linspace: every operation rounds to the 16-bit type, as c10::Half
    arithmetic does (computed in float32)."""
    h = dtype.np

    def r(x):  # round float32 values to the 16-bit type and back
        return np.asarray(x, dtype=np.float32).astype(h).astype(np.float32)

    f32 = np.float32
    s, e = r(f32(start)), r(f32(end))
    step = r(r(e - s) / r(f32(steps - 1)))
    idx = np.arange(steps, dtype=np.int64)
    with np.errstate(over="ignore", invalid="ignore"):
        up = r(s + r(step * r(idx.astype(f32))))
        down = r(e - r(step * r((steps - idx - 1).astype(f32))))
    return np.where(idx < steps // 2, up, down).astype(h)


def _linspace_int(start, end, steps, dtype) -> np.ndarray:
    """Integer linspace: ``start``/``end`` are converted to the type, the step is a
    double, each value a fused multiply-add truncated to the type."""
    s, e = _scalar_as(start, dtype), _scalar_as(end, dtype)
    step = (float(e) - float(s)) / (steps - 1)
    idx = np.arange(steps, dtype=np.int64)
    half = steps // 2
    values = np.empty(steps, np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        values[:half] = _fma(step, idx[:half], float(s))
        values[half:] = _fma(-step, steps - idx[half:] - 1, float(e))
        return np.trunc(values).astype(np.int64).astype(dtype.np)


def _linspace_values(start, end, steps, dtype) -> np.ndarray:
    if steps == 1:
        return np.array([_scalar_as(start, dtype)], dtype=dtype.np)
    cat = dtype.category
    if cat == dt.INT:
        return _linspace_int(start, end, steps, dtype)
    if dtype is dt.float16 or dtype is dt.bfloat16:
        check_scalar_fits(start, dtype)
        check_scalar_fits(end, dtype)
        return _linspace_half(_to_double(start), _to_double(end), steps, dtype)
    s, e = _scalar_as(start, dtype), _scalar_as(end, dtype)
    if cat == dt.COMPLEX:
        real_np = dtype.to_real().np
        s, e = complex(s), complex(e)
        re = _linspace_real(s.real, e.real, steps, real_np)
        im = _linspace_real(s.imag, e.imag, steps, real_np)
        out = np.empty(steps, dtype.np)
        out.real, out.imag = re, im
        return out
    return _linspace_real(s, e, steps, dtype.np)


def _resize_range_out(out, steps):
    if numel_of(out._sizes) != steps:
        resize_(out, (steps,))


def linspace_out(start, end, steps, out):
    check(steps >= 0, "number of steps must be non-negative")
    meta = out._device.type == "meta"
    if not meta and steps > 1:   # 0 or 1 steps never reach torch's dtype dispatch
        _check_kernel_dtype("linspace_cpu", out._dtype, _LINSPACE_DTYPES)
    _resize_range_out(out, steps)
    if not meta and steps:
        _write_range(out, _linspace_values(start, end, steps, out._dtype))
    out._vc[0] += 1
    return out


def linspace(start, end, steps, dtype=None, layout=None, device=None, pin_memory=None):
    if dtype is None:
        dtype = dt._default_dtype[0].to_complex() if isinstance(start, complex) or isinstance(
            end, complex) else dt._default_dtype[0]
    return _fresh(linspace_out(start, end, steps, empty((0,), dtype, layout, device)))


def _pow(base: float, x: float) -> float:
    try:
        return math.pow(base, x)
    except OverflowError:
        return math.inf
    except ValueError:
        return math.nan


def _logspace_values(start, end, steps, base, dtype) -> np.ndarray:
    """``pow(base, exponent)`` in double, one element at a time as torch's loop does: the
    exponents are ``start + step * i`` (or counted down from ``end`` in the second half)
    in double, from ``start``/``end`` converted to the output type and a step that is
    ``end - start`` computed in that type, divided in double."""
    if steps == 1:
        value = np.array([float(base) ** _to_double(start)], dtype=np.float64)
        return value.astype(np.float32).astype(dtype.np) if dtype.itemsize == 2 else \
            value.astype(dtype.np)
    cat = dtype.category
    if cat == dt.INT:
        s, e = _scalar_as(start, dtype), _scalar_as(end, dtype)
        diff = float(e - s)
    else:
        s, e = _scalar_as(start, dtype), _scalar_as(end, dtype)
        real = dtype.to_real().np
        with np.errstate(over="ignore", invalid="ignore"):
            diff = real.type(real.type(e.real if isinstance(e, complex) else e)
                             - real.type(s.real if isinstance(s, complex) else s))
        s = float(real.type(s.real if isinstance(s, complex) else s))
        e = float(real.type(e.real if isinstance(e, complex) else e))
        diff = float(diff)
    step = diff / (steps - 1)
    idx = np.arange(steps, dtype=np.int64)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        up = s + step * idx.astype(np.float64)
        down = e - step * (steps - idx - 1).astype(np.float64)
        exps = np.where(idx < steps // 2, up, down).tolist()
    # libm's pow, as torch calls it (NumPy's vectorised power may differ in the last bit)
    b = float(base)
    values = np.array([_pow(b, x) for x in exps], dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        if cat == dt.INT:
            return np.trunc(values).astype(np.int64).astype(dtype.np)
        if dtype.itemsize == 2:
            values = values.astype(np.float32)
        return values.astype(dtype.np)


def logspace_out(start, end, steps, base, out):
    check(steps >= 0, "number of steps must be non-negative")
    meta = out._device.type == "meta"
    if not meta and steps > 1:   # 0 or 1 steps never reach torch's dtype dispatch
        _check_kernel_dtype("logspace_cpu", out._dtype, _LINSPACE_DTYPES)
    _resize_range_out(out, steps)
    if not meta and steps:
        _write_range(out, _logspace_values(start, end, steps, base, out._dtype))
    out._vc[0] += 1
    return out


def logspace(start, end, steps, base=10.0, dtype=None, layout=None, device=None,
             pin_memory=None):
    dtype = dtype or dt._default_dtype[0]
    return _fresh(logspace_out(start, end, steps, base, empty((0,), dtype, layout, device)))


# linspace/logspace with tensor ends: torch takes the values of 0-dim tensors and runs the
# Scalar overload (so the default dtype does not follow the tensors' dtypes).

def _ends(name, start=None, end=None):
    """The Python values of the tensor ends given (the others are already scalars)."""
    given = [(what, t.dim()) for what, t in (("start", start), ("end", end)) if t is not None]
    check(all(d == 0 for _, d in given), lambda: (
        f"{name} only supports 0-dimensional start and end tensors, but got "
        + " and ".join(f"{what} with {d} dimension(s)" for what, d in given) + "."))
    return tuple(None if t is None else local_scalar_dense(t) for t in (start, end))


def linspace_tensor_tensor(start, end, steps, dtype=None, layout=None, device=None,
                           pin_memory=None):
    s, e = _ends("linspace", start, end)
    return linspace(s, e, steps, dtype, layout, device, pin_memory)


def linspace_tensor_scalar(start, end, steps, dtype=None, layout=None, device=None,
                           pin_memory=None):
    s, _ = _ends("linspace", start=start)
    return linspace(s, end, steps, dtype, layout, device, pin_memory)


def linspace_scalar_tensor(start, end, steps, dtype=None, layout=None, device=None,
                           pin_memory=None):
    _, e = _ends("linspace", end=end)
    return linspace(start, e, steps, dtype, layout, device, pin_memory)


def linspace_tensor_tensor_out(start, end, steps, out):
    s, e = _ends("linspace", start, end)
    return linspace_out(s, e, steps, out)


def linspace_tensor_scalar_out(start, end, steps, out):
    s, _ = _ends("linspace", start=start)
    return linspace_out(s, end, steps, out)


def linspace_scalar_tensor_out(start, end, steps, out):
    _, e = _ends("linspace", end=end)
    return linspace_out(start, e, steps, out)


def logspace_tensor_tensor(start, end, steps, base=10.0, dtype=None, layout=None, device=None,
                           pin_memory=None):
    s, e = _ends("logspace", start, end)
    return logspace(s, e, steps, base, dtype, layout, device, pin_memory)


def logspace_tensor_scalar(start, end, steps, base=10.0, dtype=None, layout=None, device=None,
                           pin_memory=None):
    s, _ = _ends("logspace", start=start)
    return logspace(s, end, steps, base, dtype, layout, device, pin_memory)


def logspace_scalar_tensor(start, end, steps, base=10.0, dtype=None, layout=None, device=None,
                           pin_memory=None):
    _, e = _ends("logspace", end=end)
    return logspace(start, e, steps, base, dtype, layout, device, pin_memory)


def logspace_tensor_tensor_out(start, end, steps, base, out):
    s, e = _ends("logspace", start, end)
    return logspace_out(s, e, steps, base, out)


def logspace_tensor_scalar_out(start, end, steps, base, out):
    s, _ = _ends("logspace", start=start)
    return logspace_out(s, end, steps, base, out)


def logspace_scalar_tensor_out(start, end, steps, base, out):
    _, e = _ends("logspace", end=end)
    return logspace_out(start, e, steps, base, out)


def eye_m_out(n, m, out):
    check(n >= 0, lambda: f"n must be greater or equal to 0, got {n}")
    check(m >= 0, lambda: f"m must be greater or equal to 0, got {m}")
    resize_(out, (n, m))
    fill_(out, 0)
    if out._storage._buf is not None and n and m:
        k = min(n, m)
        out._array()[np.arange(k), np.arange(k)] = 1
    return out


def eye_out(n, out):
    return eye_m_out(n, n, out)


def eye_m(n, m, dtype=None, layout=None, device=None, pin_memory=None):
    check(n >= 0, lambda: f"n must be greater or equal to 0, got {n}")
    check(m >= 0, lambda: f"m must be greater or equal to 0, got {m}")
    out = zeros((n, m), dtype, layout, device)
    buf = out._storage._buf
    if buf is not None and n and m:
        # the diagonal of a contiguous (n, m) matrix is every (m + 1)-th element
        k = min(n, m)
        buf.view(out._dtype.np)[:k * (m + 1):m + 1] = 1
    return out


def eye(n, dtype=None, layout=None, device=None, pin_memory=None):
    return eye_m(n, n, dtype, layout, device, pin_memory)
