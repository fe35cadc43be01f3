"""Counting kernels: unique (``_unique2``, ``unique_dim``, ``unique_consecutive``,
``unique_dim_consecutive``), ``bincount``, ``histc``, ``searchsorted`` and ``bucketize``.

Each kernel runs torch's checks in torch's order (so that the first failing check names the
same problem), allocates its results, then does the work with a few whole-array NumPy calls:
a stable sort and a "differs from its neighbour" mask for unique, ``np.bincount`` /
``np.add.at`` for the counts, ``np.searchsorted`` (or a vectorised replay of torch's binary
search) for bucketing. No kernel loops over elements in Python.

    >>> t = strided.tensor([3, 1, 3, 2])
    >>> strided._unique2(t, return_inverse=True, return_counts=True)
    (tensor([1, 2, 3]), tensor([2, 0, 2, 1]), tensor([1, 1, 2]))

Note [Unique by sorting]
~~~~~~~~~~~~~~~~~~~~~~~~
torch's CPU ``unique`` always sorts (``sorted=False`` changes nothing) and compares with
``!=``, so every NaN is its own value (NaNs sort last) and ``-0.0`` equals ``0.0``. The
kernel sorts stably (``argsort`` only when the inverse is wanted), marks each element that
differs from its predecessor, and reads everything off that mask: the unique values are the
marked elements, the inverse is the running count of marks scattered back through the sort
order, the counts are the gaps between marks. With ``dim`` the same is done to whole slices
(``np.lexsort`` over the slices flattened to rows; a slice is new unless it equals its
predecessor element-wise, so slices holding NaN never merge). The output of ``unique_dim``
has torch's strides: torch stacks the unique slices along dim 0 and moves that dim back
into place, a permuted view of a contiguous buffer. ``unique_dim`` and the ``dim`` form of
``unique_consecutive`` always compute the inverse and the counts, as torch's do. Bool and
integer inputs whose values span a range not much wider than their count skip the sort: one
``np.bincount`` of the offsets from the minimum gives the same three results directly.

torch's sort is not stable beyond 16 elements (std::sort), so for larger float inputs the
inverse indices of NaN elements (each its own unique value) and which of -0.0 / 0.0
represents a run can differ from torch's; strided keeps input order for both.

Note [Ops without a Meta kernel]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
The unique ops and ``bincount`` have data-dependent output shapes and torch registers no
Meta kernel for them: on meta tensors torch raises its "no fake impl or Meta kernel"
NotImplementedError. Their Meta entries here raise the same text. ``histc``,
``searchsorted`` and ``bucketize`` do have torch Meta kernels (Python functions in
``torch/_meta_registrations.py``, wrapped in ``out_wrapper``); ``_meta_result`` plays that
wrapper and the meta kernels make only the checks torch's make.

Note [Exact binary search]
~~~~~~~~~~~~~~~~~~~~~~~~~~
torch's searchsorted bisects with ``!(mid >= value)`` (left) or ``!(mid > value)`` (right)
as "go right". On ascending 1-d boundaries (checked: O(n), and NaN-free since NaN compares
false) this is ``np.searchsorted`` exactly, a NaN value landing after everything in both.
Boundaries that are not ascending (unsorted, or holding NaN) make the answer depend on the
path the bisection takes, so that case, and batched N-d boundaries (each row its own
search), replay torch's bisection instead: all values step together, each reading
``boundaries[row * n + mid]`` from the flattened rows (no loop over rows), for
``n.bit_length()`` rounds of a few whole-array operations.

Note [histc bins]
~~~~~~~~~~~~~~~~~
torch's CPU histc maps a value to ``int((x - lo) * bins / (hi - lo))`` computed in the
input's dtype (float16 and bfloat16 round after every operation), with ``lo`` and ``hi``
the edges converted to that dtype; values outside ``[lo, hi]`` and NaN are dropped and ``x
== hi`` falls in the last bin. The same expression is evaluated here with NumPy in the
same dtype, so edge cases land in the same bin as in torch.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from ..core import dtypes as dt
from ..core.checks import check, maybe_wrap_dim
from ..core.promotion import result_type_of
from ..core.tensor_impl import compute_is_contiguous, contiguous_strides, numel_of
from .factory import _to_double, empty, new_strided
from .reduction import _CPP_NAMES, _alloc, _is_meta, _store
from .resize import resize_impl
from .scalars import check_scalar_fits

_INTS = (dt.uint8, dt.int8, dt.int16, dt.int32, dt.int64)
_FLOATS = (dt.float16, dt.bfloat16, dt.float32, dt.float64)
_UNSIGNED_BIG = (dt.uint16, dt.uint32, dt.uint64)
# the dtypes each of torch's CPU kernels is compiled for
_UNIQUE_DTYPES = (dt.bool_,) + _INTS + _UNSIGNED_BIG + _FLOATS
_SEARCH_DTYPES = _INTS + _FLOATS
_LINSPACE_DTYPES = _INTS + _FLOATS + (dt.complex64, dt.complex128)
_AMINMAX_DTYPES = (dt.bool_,) + _INTS + _FLOATS

_NO_META = (
    "aten::{}: attempted to run this operator with Meta tensors, but there was no fake impl "
    "or Meta kernel registered. You may have run into this message while using an operator "
    "with PT2 compilation APIs (torch.compile/torch.export); in order to use this operator "
    "with those APIs you'll need to add a fake impl. Please see the following for next "
    "steps:  https://pytorch.org/tutorials/advanced/custom_ops_landing_page.html")


def _no_meta_kernel(name):
    """Note [Ops without a Meta kernel]."""
    raise NotImplementedError(_NO_META.format(name))


def _supported(kernel, dtype, supported) -> None:
    check(dtype in supported,
          lambda: f'"{kernel}" not implemented for \'{dtype._scalar_name}\'', NotImplementedError)


def _sort_key(arr):
    """An array NumPy sorts and compares exactly like ``arr`` (bfloat16 widened)."""
    return arr.astype(np.float32) if arr.dtype.name == "bfloat16" else arr


def _long(shape, value=None, device=None):
    res = empty(shape, dt.int64, device=device)
    if value is not None:
        _store(res, value)
    return res


def _safe_cast(src, dst) -> bool:
    """torch._prims_common.can_safe_cast_to: only the category may not go down."""
    return dst.category >= src.category


def _meta_result(shape, dtype, device, out):
    """The result of a torch meta kernel under ``out_wrapper`` (Note [Ops without a Meta
    kernel]): a new tensor, or ``out`` resized (with the wrapper's own warning text) after a
    device check and a category-safe cast check."""
    if out is None:
        return empty(shape, dtype, device=device)
    if out._sizes != shape:
        if numel_of(out._sizes):
            # torch's text, verbatim: its second placeholder lacks the f-prefix
            warnings.warn(
                f"An output with one or more elements was resized since it had shape "
                f"torch.Size({list(out._sizes)}) which does not match the required output "
                "shape {str(shape)}. This behavior is deprecated, and in a future PyTorch "
                "release outputs will not be resized unless they have zero elements. You can "
                "explicitly reuse an out tensor t by resizing it, inplace, to zero elements "
                "with t.resize_(0).", UserWarning, stacklevel=4)
        resize_impl(out, shape)
    check(out._device == device, lambda: (
        f"Attempting to copy from device {device} to device {out._device}, but cross-device "
        f"copies are not allowed!"))
    check(_safe_cast(dtype, out._dtype), lambda: (
        f"Attempting to cast from {dtype} to out tensor with dtype {out._dtype}, but this "
        f"can't be cast because it is not safe!"))
    return out


# -- unique ----------------------------------------------------------------------------------

def _first_of_runs(key):
    """True where ``key`` (1-d, or rows of a 2-d array) differs from the previous entry."""
    n = key.shape[0]
    flag = np.empty(n, np.bool_)
    flag[0] = True
    if key.ndim == 1:
        np.not_equal(key[1:], key[:-1], out=flag[1:])
    elif n > 1:
        np.any(key[1:] != key[:-1], axis=1, out=flag[1:])
    return flag


def _unique_flat(self, return_inverse, return_counts, consecutive):
    """unique of the flattened input (Note [Unique by sorting])."""
    dev = self._device
    arr = self._array().reshape(-1)
    n = arr.size
    if n == 0:
        return (empty((0,), self._dtype, device=dev),
                _long(self._sizes if return_inverse else (0,), device=dev),
                _long((0,), device=dev))
    if not consecutive and arr.dtype.kind in "biu":
        counted = _unique_by_counting(arr, return_inverse, return_counts, self, dev)
        if counted is not None:
            return counted
    key = _sort_key(arr)
    # equal integers are indistinguishable: only floats need the stable sort, for which of
    # -0.0 / 0.0 represents a run and for the order of the NaNs
    kind = "stable" if key.dtype.kind == "f" else None
    order = None
    if consecutive:
        values = arr
    elif return_inverse:
        order = np.argsort(key, kind=kind)
        values = arr[order]
        key = values if key is arr else key[order]
    else:
        key = np.sort(key, kind=kind)
        values = key if key.dtype == arr.dtype else key.astype(arr.dtype)
    flag = _first_of_runs(key)
    starts = np.flatnonzero(flag)
    output = empty((starts.size,), self._dtype, device=dev)
    _store(output, values[starts])
    inverse = _long((0,), device=dev)
    if return_inverse:
        group = np.cumsum(flag, dtype=np.int64)
        group -= 1
        if order is not None:
            scattered = np.empty(n, np.int64)
            scattered[order] = group
            group = scattered
        inverse = _long(self._sizes, group, device=dev)
    counts = _long((0,), device=dev)
    if return_counts:
        counts = _long((starts.size,), np.diff(starts, append=n), device=dev)
    return output, inverse, counts


def _unique_by_counting(arr, return_inverse, return_counts, self, dev):
    """unique of bool / integer values spanning a range not much wider than their count:
    one ``np.bincount`` over the offsets from the minimum replaces the sort (same results:
    the values come out sorted, equal integers are indistinguishable). None otherwise."""
    n = arr.size
    if arr.dtype.kind == "b":
        arr = arr.view(np.uint8)
    lo, hi = arr.min(), arr.max()
    span = int(hi) - int(lo) + 1
    if span > 2 * n + 1024:
        return None
    # offsets in a type that cannot overflow: unsigned differences stay in range
    offsets = (arr - lo if arr.dtype.kind == "u" else arr.astype(np.int64) - np.int64(lo))
    offsets = offsets.astype(np.intp, copy=False)
    tally = np.bincount(offsets, minlength=span)
    present = tally > 0
    found = np.flatnonzero(present)
    output = empty((found.size,), self._dtype, device=dev)
    _store(output, found.astype(arr.dtype) + lo if arr.dtype.kind == "u" else
           found.astype(np.int64) + np.int64(lo))
    inverse = _long((0,), device=dev)
    if return_inverse:
        rank = np.cumsum(present, dtype=np.int64)
        rank -= 1
        inverse = _long(self._sizes, rank[offsets], device=dev)
    counts = _long((found.size,), tally[found], device=dev) if return_counts else \
        _long((0,), device=dev)
    return output, inverse, counts


def _unique_slices(self, dim, consecutive):
    """unique of the slices along ``dim`` (Note [Unique by sorting])."""
    dev = self._device
    sizes = self._sizes
    d = maybe_wrap_dim(dim, len(sizes), wrap_scalar=False)
    k = sizes[d]
    if k == 0:
        check(sizes.count(0) == 1, "Number of zero sized dimensions is more than one, so unique "
                                   "cannot be applied ")
        return (empty(sizes, self._dtype, device=dev), _long((0,), device=dev),
                _long((0,), device=dev))
    check(0 not in sizes,
          "There are 0 sized dimensions, and they aren't selected, so unique cannot be applied")
    moved = np.moveaxis(self._array(), d, 0)
    rest = moved.shape[1:]
    rows = moved.reshape(k, -1)
    key = _sort_key(rows)
    order = None
    if not consecutive:
        # lexsort's last key is the primary one: the rows' first column
        order = np.lexsort(key.T[::-1]) if key.shape[1] > 1 else \
            np.argsort(key[:, 0], kind="stable")
        key = key[order]
    flag = _first_of_runs(key)
    starts = np.flatnonzero(flag)
    u = starts.size
    picked = rows[starts] if order is None else rows[order[starts]]
    # torch stacks the unique slices along a new dim 0, then moves it back to ``d``
    stacked = contiguous_strides((u,) + rest)
    output = new_strided(sizes[:d] + (u,) + sizes[d + 1:],
                         stacked[1:d + 1] + (stacked[0],) + stacked[d + 1:], self._dtype, dev)
    _store(output, np.moveaxis(picked.reshape((u,) + rest), 0, d))
    group = np.cumsum(flag, dtype=np.int64)
    group -= 1
    if order is not None:
        scattered = np.empty(k, np.int64)
        scattered[order] = group
        group = scattered
    return (output, _long((k,), group, device=dev),
            _long((u,), np.diff(starts, append=k), device=dev))


def unique2(self, sorted=True, return_inverse=False, return_counts=False):
    """``aten::_unique2``: the sorted unique values (``sorted`` is ignored on CPU, as in
    torch), and when asked the inverse (input's shape) and the counts; the tensors not asked
    for come back empty."""
    if _is_meta(self):
        _no_meta_kernel("_unique2")
    _supported("unique", self._dtype, _UNIQUE_DTYPES)
    return _unique_flat(self, return_inverse, return_counts, False)


def unique_dim(self, dim, sorted=True, return_inverse=False, return_counts=False):
    if _is_meta(self):
        _no_meta_kernel("unique_dim")
    _supported("unique_dim", self._dtype, _UNIQUE_DTYPES)
    return _unique_slices(self, dim, False)


def unique_consecutive(self, return_inverse=False, return_counts=False, dim=None):
    if _is_meta(self):
        _no_meta_kernel("unique_consecutive")
    # torch takes the flat path for dim=0 of a 1-d input (but not for dim=-1)
    if dim is None or (dim == 0 and len(self._sizes) == 1):
        _supported("unique", self._dtype, _UNIQUE_DTYPES)
        return _unique_flat(self, return_inverse, return_counts, True)
    _supported("unique_dim", self._dtype, _UNIQUE_DTYPES)
    return _unique_slices(self, dim, True)


def unique_dim_consecutive(self, dim, return_inverse=False, return_counts=False):
    if _is_meta(self):
        _no_meta_kernel("unique_dim_consecutive")
    _supported("unique_dim", self._dtype, _UNIQUE_DTYPES)
    return _unique_slices(self, dim, True)


# -- bincount --------------------------------------------------------------------------------

def bincount(self, weights=None, minlength=0):
    """Counts of each non-negative integer in a 1-d input (int64), or sums of ``weights``.

    torch adds float32 weights into a float32 result and converts every other weight dtype
    to float64 first; both add in input order, one element at a time. ``np.add.at`` (float32)
    and ``np.bincount`` (float64) add in that same order, so the sums are bit-identical."""
    if _is_meta(self) or (weights is not None and _is_meta(weights)):
        _no_meta_kernel("bincount")
    _supported("bincount_cpu", self._dtype, _INTS)
    w_dtype = None
    if weights is not None:
        w_dtype = dt.float32 if weights._dtype is dt.float32 else dt.float64
        if weights._dtype.is_complex:
            warnings.warn("Casting complex values to real discards the imaginary part",
                          UserWarning, stacklevel=3)
    check(minlength >= 0, "minlength should be >= 0")
    dev = self._device
    if len(self._sizes) == 1 and self._sizes[0] == 0:
        return _long((minlength,), np.zeros(minlength, np.int64), device=dev)
    arr = self._array()
    check(len(self._sizes) == 1 and arr.min() >= 0,
          "bincount only supports 1-d non-negative integral inputs.")
    check(weights is None or (len(weights._sizes) == 1 and weights._sizes[0] == arr.size),
          "weights should be 1-d and have the same length as input")
    nbins = max(int(arr.max()) + 1, minlength)
    if weights is None:
        return _long((nbins,), np.bincount(arr, minlength=nbins), device=dev)
    w = weights._array()
    if w.dtype.kind == "c":
        w = w.real
    res = empty((nbins,), w_dtype, device=dev)
    if w_dtype is dt.float32:
        sums = np.zeros(nbins, np.float32)
        np.add.at(sums, arr, w)
    else:
        sums = np.bincount(arr, weights=w.astype(np.float64), minlength=nbins)
    _store(res, sums)
    return res


# -- histc -----------------------------------------------------------------------------------

def _fmt_edge(v: float) -> str:
    """A double as C++'s ``operator<<`` prints it (NaN keeps its sign: ``-nan``)."""
    if math.isnan(v):
        return "-nan" if math.copysign(1.0, v) < 0 else "nan"
    return f"{v:g}"


def _data_range(self):
    """``aminmax(input)`` as doubles. A NaN found by torch's vectorised aminmax is the
    all-ones pattern (printed ``-nan``); a one-element input or bfloat16 keeps a plain NaN."""
    _supported("aminmax_cpu", self._dtype, _AMINMAX_DTYPES)
    arr = self._array()
    lo, hi = float(arr.min()), float(arr.max())
    if math.isnan(lo) or math.isnan(hi):
        if self._dtype is dt.bfloat16:
            nan = math.nan
        elif arr.size == 1:
            nan = float(arr.reshape(-1)[0])
        else:
            nan = -math.nan
        lo = hi = nan
    return lo, hi


def _histc_meta(self, bins, min, max, out):
    check(bins > 0, lambda: f"histc(): bins must be > 0, but got {bins}")
    check(max >= min, "histc(): max must be larger than min")
    return _meta_result((bins,), self._dtype, self._device, out)


def _histc_impl(self, bins, min, max, out):
    if _is_meta(self) or (out is not None and _is_meta(out)):
        return _histc_meta(self, bins, min, max, out)
    check(bins > 0, lambda: f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
    if out is not None:
        check(out._dtype is self._dtype, lambda: (
            f"torch.histogram: input tensor and hist tensor should have the same dtype, but got "
            f"input {_CPP_NAMES[self._dtype.name]} and hist {_CPP_NAMES[out._dtype.name]}"))
    res = _alloc(self, (bins,), self._dtype, out)
    lo, hi = _to_double(min), _to_double(max)
    n = numel_of(self._sizes)
    if lo == hi and n:
        lo, hi = _data_range(self)
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    check(math.isfinite(lo) and math.isfinite(hi), lambda: (
        f"torch.histc: range of [{_fmt_edge(lo)}, {_fmt_edge(hi)}] is not finite"))
    check(lo < hi, "torch.histc: max must be larger than min")
    # torch builds the edges with linspace in the input's dtype, then runs the histogram
    _supported("linspace_cpu", self._dtype, _LINSPACE_DTYPES)
    check_scalar_fits(lo, self._dtype)
    check_scalar_fits(hi, self._dtype)
    _supported("histogram_cpu", self._dtype, _FLOATS)
    arr = self._array().reshape(-1)
    typ = arr.dtype
    # the edges as linspace makes them: c10 builds half/bfloat16 from a float
    lo_e, hi_e = (np.asarray(np.float32(v) if typ.itemsize == 2 else v).astype(typ)
                  for v in (lo, hi))
    with np.errstate(all="ignore"):
        inside = arr[(arr >= lo_e) & (arr <= hi_e)]
        # Note [histc bins]: the same expression, in the same dtype, as torch's kernel
        scaled = (inside - lo_e) * np.asarray(np.float32(bins)).astype(typ) / (hi_e - lo_e)
        pos = scaled.astype(np.int64)
    np.clip(pos, 0, bins - 1, out=pos)
    _store(res, np.bincount(pos, minlength=bins))
    return res


def histc(self, bins=100, min=0, max=0):
    """Histogram of a float tensor in ``bins`` equal bins over ``[min, max]`` (the data's
    own range when ``min == max``), in the input's dtype."""
    return _histc_impl(self, bins, min, max, None)


def histc_out(self, bins=100, min=0, max=0, out=None):
    return _histc_impl(self, bins, min, max, out)


# -- searchsorted / bucketize ----------------------------------------------------------------

def _bisect(bd, values, right):
    """torch's bisection replayed for all values at once (Note [Exact binary search]).

    ``bd`` is (rows, n), ``values`` is (rows, m); returns (rows, m) int64 positions."""
    rows, n = bd.shape
    m = values.shape[1]
    flat_bd = bd.reshape(-1)
    flat_v = values.reshape(-1)
    base = np.repeat(np.arange(rows, dtype=np.int64) * n, m)
    lo = np.zeros(rows * m, np.int64)
    hi = np.full(rows * m, n, np.int64)
    with np.errstate(invalid="ignore"):
        for _ in range(n.bit_length()):
            active = lo < hi
            mid = lo + ((hi - lo) >> 1)
            mid_val = flat_bd[base + np.minimum(mid, n - 1)]
            stop = mid_val > flat_v if right else mid_val >= flat_v
            lo = np.where(active & ~stop, mid + 1, lo)
            hi = np.where(active & stop, mid, hi)
    return lo.reshape(rows, m)


def _search(bd, values, right, sorter):
    """Positions of ``values`` in the last dim of ``bd`` (1-d, or matching ``values``
    in every dim but the last), as torch's bisection finds them."""
    n = bd.shape[-1]
    if n == 0:
        return np.zeros(values.shape, np.int64)
    if sorter is not None:
        bd = np.take_along_axis(bd, sorter, axis=-1)
    if bd.ndim == 1:
        # ascending (which also rules NaN out, bd[0] for n == 1): NumPy's answer is torch's
        if bd[0] == bd[0] and np.all(bd[1:] >= bd[:-1]):
            return np.searchsorted(bd, values, "right" if right else "left")
        return _bisect(bd.reshape(1, n), values.reshape(1, -1), right).reshape(values.shape)
    m = values.shape[-1]
    return _bisect(bd.reshape(-1, n), values.reshape(-1, m), right).reshape(values.shape)


def _searchsorted_meta(boundaries, value, is_scalar, out_int32, right, side, sorter, out):
    bsizes = boundaries._sizes
    if is_scalar and len(bsizes) > 1:
        # torch's meta kernel reads ``self.shape`` of the Python number
        raise AttributeError(f"'{type(value).__name__}' object has no attribute 'shape'")
    vsizes = () if is_scalar else value._sizes
    check(len(bsizes) <= 1 or bsizes[:-1] == vsizes[:-1], lambda: (
        f"torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
        f"dimensions of boundaries tensor and input value tensor must match, but we got "
        f"boundaries tensor {list(bsizes)} and input value tensor {list(vsizes)}"))
    check(sorter is None or sorter._sizes == bsizes, lambda: (
        f"torch.searchsorted(): boundary and sorter must have the same size, but got "
        f"boundary tensor {list(bsizes)} and got sorter tensor {list(sorter._sizes)}"))
    check(side != "left" or not right, "torch.searchsorted(): side and right can't be set to "
                                       "opposites, got side of left while right was True")
    device = boundaries._device if is_scalar else value._device
    return _meta_result(vsizes, dt.int32 if out_int32 else dt.int64, device, out)


def _searchsorted(boundaries, value, is_scalar, out_int32, right, side, sorter, out):
    """torch's searchsorted_out_cpu: its pre-checks, in order, then the search."""
    if (_is_meta(boundaries) or (not is_scalar and _is_meta(value))
            or (sorter is not None and _is_meta(sorter)) or (out is not None and _is_meta(out))):
        return _searchsorted_meta(boundaries, value, is_scalar, out_int32, right, side, sorter,
                                  out)
    if side is not None:
        check(side in ("left", "right"), lambda: (
            f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}"))
        check(not right or side == "right", lambda: (
            f"torch.searchsorted(): side and right can't be set to opposites, got side of "
            f"{side} while right was True"))
    bsizes = boundaries._sizes
    sorter_arr = None
    if sorter is not None:
        check(sorter._sizes == bsizes, lambda: (
            f"torch.searchsorted(): boundary and sorter must have the same size, but got "
            f"boundary tensor {list(bsizes)}and got sorter tensor {list(sorter._sizes)}"))
        check(sorter._dtype is dt.int64, lambda: (
            f"torch.searchsorted(): sorter must be a tensor of long dtype but got dtype "
            f"{sorter._dtype._scalar_name}"))
        sorter_arr = sorter._array()
        if sorter_arr.size:
            check(sorter_arr.min() >= 0 and sorter_arr.max() < bsizes[-1],
                  "torch.searchsorted(): sorter index out of range")
    vsizes = () if is_scalar else value._sizes
    vnumel = numel_of(vsizes)
    bdim = len(bsizes)
    check(len(vsizes) > 0 or (vnumel == 1 and bdim == 1), lambda: (
        f"torch.searchsorted(): input value can be a scalar only when boundaries tensor "
        f"dimension is 1, but we got boundaries tensor dim({bdim}) and input value's "
        f"dim({len(vsizes)}) numel({vnumel})"))
    check(bdim != 0, "torch.searchsorted(): boundaries tensor should have positive dimension, "
                     "but got 0 dimension")
    check(bdim == 1 or (len(vsizes) == bdim and vsizes[:-1] == bsizes[:-1]), lambda: (
        f"torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
        f"dimensions of boundaries tensor and input value tensor must match, but we got "
        f"boundaries tensor {list(bsizes)} and input value tensor {list(vsizes)}"))
    if out is not None:
        check(out._dtype is (dt.int32 if out_int32 else dt.int64), lambda: (
            f"torch.searchsorted(): output tensor's dtype is wrong, it can only be Int(int32) "
            f"or Long(int64) depending on whether out_int32 flag is True, but we got output "
            f"tensor's dtype {out._dtype._scalar_name} and out_int32 flag is {out_int32}"))
    res = _alloc(boundaries, vsizes, dt.int32 if out_int32 else dt.int64, out)
    if not vnumel:
        return res
    # torch warns (once per process) when it has to copy an input to make it contiguous
    for name, t in (("input value", None if is_scalar else value), ("boundary", boundaries),
                    ("sorter", sorter)):
        if t is not None and not compute_is_contiguous(t._sizes, t._strides):
            warnings.warn(
                f"torch.searchsorted(): {name} tensor is non-contiguous, this will lower the "
                f"performance due to extra data copy when converting non-contiguous tensor to "
                f"contiguous, please use contiguous {name} tensor if possible. This message "
                f"will only appear once per program.", UserWarning, stacklevel=4)
    # mixed dtypes meet in torch's result type (a Python number counts as a wrapped number)
    common = result_type_of((boundaries, value))
    _supported("searchsorted_out_cpu", common, _SEARCH_DTYPES)
    bd = _sort_key(boundaries._array().astype(common.np, copy=False))
    values = np.asarray(value if is_scalar else value._array()).astype(common.np, copy=False)
    _store(res, _search(bd, _sort_key(values), right or side == "right", sorter_arr))
    return res


def searchsorted_Tensor(sorted_sequence, self, out_int32=False, right=False, side=None,
                        sorter=None):
    """Where each value of ``self`` would go in the sorted last dim of ``sorted_sequence``
    (int64, or int32 with ``out_int32``); ``right``/``side="right"`` puts it after equals."""
    return _searchsorted(sorted_sequence, self, False, out_int32, right, side, sorter, None)


def searchsorted_Tensor_out(sorted_sequence, self, out_int32=False, right=False, side=None,
                            sorter=None, out=None):
    return _searchsorted(sorted_sequence, self, False, out_int32, right, side, sorter, out)


def searchsorted_Scalar(sorted_sequence, self, out_int32=False, right=False, side=None,
                        sorter=None):
    return _searchsorted(sorted_sequence, self, True, out_int32, right, side, sorter, None)


def searchsorted_Scalar_out(sorted_sequence, self, out_int32=False, right=False, side=None,
                            sorter=None, out=None):
    return _searchsorted(sorted_sequence, self, True, out_int32, right, side, sorter, out)


def _bucketize(self, boundaries, is_scalar, out_int32, right, out):
    if (_is_meta(boundaries) or (not is_scalar and _is_meta(self))
            or (out is not None and _is_meta(out))):
        # torch's meta kernel checks nothing: the result has the values' shape
        shape, device = ((), boundaries._device) if is_scalar else (self._sizes, self._device)
        return _meta_result(shape, dt.int32 if out_int32 else dt.int64, device, out)
    check(len(boundaries._sizes) == 1, lambda: (
        f"boundaries tensor must be 1 dimension, but got dim({len(boundaries._sizes)})"))
    return _searchsorted(boundaries, self, is_scalar, out_int32, right, None, None, out)


def bucketize_Tensor(self, boundaries, out_int32=False, right=False):
    """``searchsorted(boundaries, self)`` for 1-d ``boundaries``."""
    return _bucketize(self, boundaries, False, out_int32, right, None)


def bucketize_Tensor_out(self, boundaries, out_int32=False, right=False, out=None):
    return _bucketize(self, boundaries, False, out_int32, right, out)


def bucketize_Scalar(self, boundaries, out_int32=False, right=False):
    return _bucketize(self, boundaries, True, out_int32, right, None)
