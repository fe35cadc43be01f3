"""Sorting and order statistics: sort / argsort / msort, topk, kthvalue, median / nanmedian,
mode, quantile / nanquantile, cummax / cummin, aminmax.

Every kernel has the same three steps as the reductions in ``reduction.py`` (whose helpers
it imports): check the arguments in the order torch checks them, so that the first failing
check gives torch's exception and message; allocate the outputs (or check and resize the
``out=`` tensors); and, unless the input is on the ``meta`` device, run a few vectorised
NumPy calls along the reduced dim and store the results. Meta tensors get shapes, strides
and dtypes only; the checks that need data or a real dtype kernel (dtype support, ``q``
in range) are skipped there, as torch's meta kernels skip them.

    >>> import strided as torch
    >>> torch.tensor([3., float("nan"), 1., 3.]).sort(descending=True, stable=True)
    torch.return_types.sort(
    values=tensor([nan, 3., 3., 1.]),
    indices=tensor([1, 0, 3, 2]))

Note [Stable order]
~~~~~~~~~~~~~~~~~~~
torch orders NaN above every number (ascending: NaNs last; descending: NaNs first) and a
stable sort keeps equal elements, NaNs included, in their input order in *both* directions.
``np.argsort(kind="stable")`` gives the ascending order with NaNs last. The descending
stable order is that of the reversed row, reversed back: sorting ``a[::-1]`` ascending puts
ties in decreasing original index, so reading the result backwards gives decreasing values
with ties in increasing index, and index ``j`` of the reversed row is ``n - 1 - j`` of the
original. (Negating the keys would not do: it breaks unsigned ints and bools and moves NaN.)
float16 and bfloat16 are sorted on float32 keys, which order them exactly.

Note [Which index for ties]
~~~~~~~~~~~~~~~~~~~~~~~~~~~
Where torch's choice is defined, it is reproduced: ``sort(stable=True)`` and ``argsort``;
``median(dim)`` (torch breaks ties by index: the ``(n - 1) // 2``-th element of the stable
order; with a NaN in the row, the first NaN); ``nanmedian(dim)`` (the same over the non-NaN
values); ``cummax``/``cummin`` (the last index reaching the running extreme; after a NaN,
the last NaN); ``mode`` (the smallest of the most frequent values, and the last of its
positions, which is what torch's sort gives for rows of up to 16 elements; longer rows, and
rows holding NaN, are sorted as libstdc++'s ``std::sort`` does, Note [mode with NaN], up to
``_MODE_EXACT_LIMIT`` elements).

``sort(stable=False)`` (Note [sort's ties]), ``topk`` (Note [topk's ties]) and
``kthvalue`` (Note [kthvalue's ties]) replay torch's std::sort / partial_sort /
nth_element / quickselect steps on inputs up to a size limit. Past those limits, for
``mode``, and for ``nanmedian`` of an all-NaN row, strided takes the stable choice (the
element of the stable order: the first of equal values for ascending order and for
``topk``'s largest values); the values always match torch, the indices whenever the row has
no ties.

Note [Outputs of kthvalue and mode]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
For ``keepdim=False`` torch resizes an ``out=`` tensor to the *keepdim* shape and squeezes
the dim afterwards, and first unsqueezes the tensor it was given at the reduced dim:
kthvalue when the tensor has one dim less than the input (so a correctly shaped,
non-contiguous ``out`` keeps its strides), mode whenever it has at least ``dim`` dims. The
resize warning therefore names the unsqueezed shape (``[7, 1]`` for a ``[7]`` out), and
strided does the same unsqueeze / resize / squeeze.

Note [Quantile arithmetic]
~~~~~~~~~~~~~~~~~~~~~~~~~~
torch computes quantiles in the input's dtype: ``rank = q * (n - 1)`` in float32 for
float32 input (NaN rows get the last rank, or for nanquantile ``q * (count - 1)``), adjusts
it by the interpolation mode (floor / ceil / round-half-even), gathers the sorted values
below and above, and interpolates with its CPU ``lerp`` kernel, which is one fused
multiply-add: ``fma(w, hi - lo, lo)`` for ``|w| < 0.5``, else ``fma(w - 1, hi - lo, hi)``.
NumPy has no fma; ``_fma`` computes it exactly for float32 (in float64: the product of two
float32 is exact there) and for float64 with Dekker's error-free product and sum, which
rounds like the hardware fma except in rare double-rounding ties.
"""

from __future__ import annotations

import warnings

import numpy as np

from ..core import dtypes as dt
from ..core.checks import check, maybe_wrap_dim
from ..core.tensor_impl import contiguous_strides, numel_of
from .factory import empty, new_strided, preserved_strides
from .reduction import _alloc, _check_out_dtype, _is_meta, _shape, _store
from .resize import resize_impl, resize_output
from .views import _set_geometry, squeeze__dim, unsqueeze_

# The dtypes of torch's AT_DISPATCH_ALL_TYPES_AND(Half, BFloat16[, Bool]) kernels.
_NO_COMPLEX_NO_BAREBONES = frozenset(
    d for d in (dt.bool_, dt.uint8, dt.int8, dt.int16, dt.int32, dt.int64, dt.float16,
                dt.bfloat16, dt.float32, dt.float64))
_NUMERIC = _NO_COMPLEX_NO_BAREBONES - {dt.bool_}
# c10's legacy type names, which the checkScalarType / checkSameType messages print.
_LEGACY = {"uint8": "torch.ByteTensor", "int8": "torch.CharTensor",
           "int16": "torch.ShortTensor", "int32": "torch.IntTensor",
           "int64": "torch.LongTensor", "float16": "torch.HalfTensor",
           "float32": "torch.FloatTensor", "float64": "torch.DoubleTensor"}


# -- shared helpers --------------------------------------------------------------------------

def _legacy_name(dtype) -> str:
    return _LEGACY.get(dtype.name) or f"CPU{dtype._scalar_name}Type"


def _require(self, supported, kernel: str) -> None:
    """torch's AT_DISPATCH failure for a dtype the CPU kernel was not compiled for."""
    check(self._dtype in supported, lambda: (
        f"\"{kernel}\" not implemented for '{self._dtype._scalar_name}'"), NotImplementedError)


def _zero_numel_check(self, d: int, name: str) -> None:
    if self._sizes:
        check(self._sizes[d] != 0, lambda: (
            f"{name}: Expected reduction dim {d} to have non-zero size."), IndexError)


def _new(self, shape, dtype, strides=None):
    if strides is None or strides == contiguous_strides(shape):
        return empty(shape, dtype, device=self._device)
    return new_strided(shape, strides, dtype, self._device)


def _key(arr: np.ndarray) -> np.ndarray:
    """The array to compare on: float16/bfloat16 widened to float32 (exact)."""
    if arr.dtype == np.float16 or arr.dtype.name == "bfloat16":
        return arr.astype(np.float32)
    return arr


def _stable_order(key: np.ndarray, axis: int, descending: bool) -> np.ndarray:
    """Indices of the stable order along ``axis`` (Note [Stable order])."""
    if not descending:
        return np.argsort(key, axis=axis, kind="stable")
    n = key.shape[axis]
    order = np.argsort(np.flip(key, axis), axis=axis, kind="stable")
    return (n - 1) - np.flip(order, axis)


def _isnan(key: np.ndarray):
    return np.isnan(key) if key.dtype.kind == "f" else None


def _nth_stable(key: np.ndarray, kth) -> np.ndarray:
    """Along the last axis: the index of the ``kth`` (0-based, scalar) element of the stable
    ascending order, NaNs last. O(n): ``np.partition`` finds the value, and the index is that
    of its ``r``-th occurrence, ``r`` = kth minus the number of smaller elements."""
    thr = np.partition(key, kth, axis=-1)[..., kth:kth + 1]
    nan, nan_thr = _isnan(key), _isnan(thr)
    if nan is None:
        less, eq = key < thr, key == thr
    else:
        less = (key < thr) | (~nan & nan_thr)
        eq = (key == thr) | (nan & nan_thr)
    need = kth + 1 - np.count_nonzero(less, axis=-1, keepdims=True)
    return np.argmax(eq & (np.cumsum(eq, axis=-1) == need), axis=-1)


def _keepdim_shape(self, d):
    sizes = list(self._sizes)
    if sizes:
        sizes[d] = 1
    return tuple(sizes)


# -- sort / argsort / msort ------------------------------------------------------------------

def _sort_impl(self, stable, dim, descending, values=None, indices=None, want_values=True):
    # Note [sort's ties]: the stable order, which is torch's for rows of up to 16 elements
    # whatever ``stable`` says; unstable sorts of longer rows with ties replay std::sort
    ndim = len(self._sizes)
    d = maybe_wrap_dim(dim, ndim)
    if not _is_meta(self):
        check(not self._dtype.is_complex, " Sort does not support complex dtypes on CPU")
    # torch's sort gives its outputs the input's strides when they are dense (else dense
    # strides in the input's dim order), fresh or resized out= tensors alike
    shape = self._sizes
    strides = preserved_strides(shape, self._strides)
    outs = []
    for out, dtype in ((values, self._dtype), (indices, dt.int64)):
        if out is None:
            outs.append(_new(self, shape, dtype, strides) if want_values or
                        dtype is dt.int64 else None)
            continue
        _check_out_dtype(out, dtype)
        if resize_output(out, shape):
            _set_geometry(out, shape, strides, out._offset)
        outs.append(out)
    v, i = outs
    if _is_meta(self) or not numel_of(shape):
        return v, i
    arr = self._array()
    if not ndim:
        if v is not None:
            _store(v, arr)
        _store(i, np.zeros((), np.int64))
        return v, i
    key = _key(arr)
    order = _stable_order(key, d, descending)
    if not stable and arr.shape[d] > 16 and arr.size <= _SORT_EXACT_LIMIT:
        order = _unstable_order(key, order, d, descending)
    if v is not None:
        _store(v, np.take_along_axis(arr, order, d))
    _store(i, order)
    return v, i


# Note [sort's ties]
# ~~~~~~~~~~~~~~~~~~
# torch's CPU sort (without x86-simd-sort, as the CPU builds are) runs libstdc++'s
# ``std::sort`` of each row's (value, index) pairs for ``stable=False`` (the default), and
# ``std::stable_sort`` for ``stable=True``. std::sort is an introsort whose final pass is an
# insertion sort, so rows of up to 16 elements come out in the stable order; a longer row
# with tied values (NaNs tie with each other) comes out in the order of the introsort's
# partitions. strided replays those partitions (``_stl_sort``, with torch's comparators: NaN
# above every number) for such rows while the input is small, and keeps the stable order
# (one of the orders an unstable sort may give) past ``_SORT_EXACT_LIMIT`` elements, where a
# Python replay would cost too much. (1-D integer inputs of 32768 elements or more go
# through fbgemm's stable radix sort in torch.)
_SORT_EXACT_LIMIT = 1 << 14


def _unstable_order(key: np.ndarray, order: np.ndarray, d: int, descending: bool):
    """``order`` (the stable order along ``d``) with each row that holds ties replaced by
    the order std::sort gives it (Note [sort's ties])."""
    k = np.moveaxis(key, d, -1)
    o = np.moveaxis(order, d, -1)
    ranked = np.take_along_axis(k, o, -1)
    tie = ranked[..., 1:] == ranked[..., :-1]
    nan = _isnan(ranked)
    if nan is not None:
        tie |= nan[..., 1:] & nan[..., :-1]
    rows = np.nonzero(tie.any(-1).reshape(-1))[0]
    if not len(rows):
        return order
    flat_k = k.reshape(-1, k.shape[-1])
    out = o.reshape(-1, o.shape[-1]).copy()
    for r in rows.tolist():
        vals = flat_k[r].tolist()
        if nan is not None and nan.reshape(-1, k.shape[-1])[r].any():
            # std::sort's comparator as a key: NaNs after (ascending) or before
            # (descending) every number, equal to each other
            items = [((1, 0) if x != x else (0, x), j) if not descending else
                     ((0, 0) if x != x else (1, -x), j) for j, x in enumerate(vals)]
        else:
            items = [(-x if descending else x, j) for j, x in enumerate(vals)]
        _stl_sort(items)
        out[r] = [j for _, j in items]
    return np.moveaxis(out.reshape(o.shape), -1, d)


def sort_stable(self, stable=None, dim=-1, descending=False):
    return _sort_impl(self, stable, dim, descending)


def sort_values_stable(self, stable=None, dim=-1, descending=False, values=None, indices=None):
    return _sort_impl(self, stable, dim, descending, values, indices)


def sort(self, dim=-1, descending=False):
    return _sort_impl(self, False, dim, descending)


def sort_values(self, dim=-1, descending=False, values=None, indices=None):
    return _sort_impl(self, False, dim, descending, values, indices)


def argsort_stable(self, stable, dim=-1, descending=False):
    return _sort_impl(self, stable, dim, descending, want_values=False)[1]


def argsort_stable_out(self, stable, dim=-1, descending=False, out=None):
    return _sort_impl(self, stable, dim, descending, None, out, want_values=False)[1]


def argsort(self, dim=-1, descending=False):
    return _sort_impl(self, False, dim, descending, want_values=False)[1]


def msort(self):
    return _sort_impl(self, False, 0, False)[0]


def msort_out(self, out):
    return _sort_impl(self, False, 0, False, out, None)[0]


# -- topk ------------------------------------------------------------------------------------

def _topk_np(arr: np.ndarray, k: int, largest: bool):
    """(values, indices) of the ``k`` first elements of the stable order along the last axis
    (descending for ``largest``; Note [Which index for ties]). The k-th value is found with
    ``np.partition``; the elements that beat it, plus its first occurrences up to k, are then
    picked in index order (so exactly k per row) and only those k are sorted."""
    key = _key(arr)
    n = key.shape[-1]
    if k * 8 >= n:     # most of the row is kept: a full sort is as cheap
        order = _stable_order(key, -1, largest)[..., :k]
        return np.take_along_axis(arr, order, -1), order
    pos = n - k if largest else k - 1
    thr = np.partition(key, pos, axis=-1)[..., pos:pos + 1]
    nan, nan_thr = _isnan(key), _isnan(thr)
    if nan is None:
        better = key > thr if largest else key < thr
        eq = key == thr
    elif largest:
        better = (key > thr) | (nan & ~nan_thr)
        eq = (key == thr) | (nan & nan_thr)
    else:
        better = (key < thr) | (~nan & nan_thr)
        eq = (key == thr) | (nan & nan_thr)
    need = k - np.count_nonzero(better, axis=-1, keepdims=True)
    pick = better | (eq & (np.cumsum(eq, axis=-1) <= need))
    cols = np.nonzero(pick)[-1].reshape(key.shape[:-1] + (k,))
    order = np.take_along_axis(cols, _stable_order(np.take_along_axis(key, cols, -1), -1,
                                                   largest), -1)
    return np.take_along_axis(arr, order, -1), order


def _topk_impl(self, k, dim, largest, sorted, values, indices):
    ndim = len(self._sizes)
    d = maybe_wrap_dim(dim, ndim)
    size = self._sizes[d] if ndim else 1
    check(0 <= k <= size, "selected index k out of range")
    if not _is_meta(self):
        check(self._dtype is not dt.bool_, "topk does not support bool dtypes on CPU")
        check(not self._dtype.is_complex, " topk does not support complex dtypes on CPU")
    shape = self._sizes[:d] + (k,) + self._sizes[d + 1:] if ndim else ()
    _check_out_dtype(values, self._dtype)
    v = _alloc(self, shape, self._dtype, values)
    _check_out_dtype(indices, dt.int64)
    i = _alloc(self, shape, dt.int64, indices)
    if _is_meta(self):
        return v, i
    if not ndim:
        _store(v, self._array())
        _store(i, np.zeros((), np.int64))
        return v, i
    _require(self, _NUMERIC, "topk_cpu")
    if not numel_of(shape):
        return v, i
    arr = np.moveaxis(self._array(), d, -1)
    if arr.size <= _KTH_EXACT_LIMIT:                          # Note [topk's ties]
        idx = _topk_torch_order(_key(arr), k, largest, sorted)
        vals = np.take_along_axis(arr, idx, -1)
    else:
        vals, idx = _topk_np(arr, k, largest)
    _store(v, np.moveaxis(vals, -1, d))
    _store(i, np.moveaxis(idx, -1, d))
    return v, i


# Note [topk's ties]
# ~~~~~~~~~~~~~~~~~~
# torch's CPU topk puts each row's (value, index) pairs through libstdc++'s
# ``std::partial_sort`` of the first k when k is small next to the row (k * 64 <= n), else
# through ``std::nth_element`` at k - 1 and, when ``sorted``, ``std::sort`` of the k - 1
# before it; it reports the first k. Its comparators put NaN above every number. strided
# replays those steps on small inputs (keys negated for ``largest``; a row holding NaN on
# (rank, value) keys that order NaN as torch's comparator does).

def _topk_torch_order(key: np.ndarray, k: int, largest: bool, sorted: bool) -> np.ndarray:
    rows = key.reshape(-1, key.shape[-1])
    n = rows.shape[-1]
    nan = _isnan(rows)
    nan_rows = nan.any(-1).tolist() if nan is not None else [False] * rows.shape[0]
    out = np.empty((rows.shape[0], k), np.int64)
    for r, row in enumerate(rows.tolist()):
        if nan_rows[r]:
            items = [(((0, 0) if x != x else (1, -x)) if largest else
                      ((1, 0) if x != x else (0, x)), j) for j, x in enumerate(row)]
        else:
            items = [(-x if largest else x, j) for j, x in enumerate(row)]
        if k * 64 <= n:
            _stl_partial_sort(items, k)
        else:
            _stl_nth_element(items, k - 1)
            if sorted and k > 2:
                head = items[:k - 1]
                _stl_sort(head)
                items[:k - 1] = head
        out[r] = [j for _, j in items[:k]]
    return out.reshape(key.shape[:-1] + (k,))


def _stl_partial_sort(a: list, middle: int) -> None:
    """libstdc++'s ``std::partial_sort(first, first + middle, last)`` of ``(key, index)``
    pairs by ``key <``: a heap of the first ``middle``, each later pair that beats its top
    swapped in, then the heap sorted."""
    if middle >= 2:
        parent = (middle - 2) // 2
        while True:
            _adjust_heap(a, 0, parent, middle, a[parent])
            if parent == 0:
                break
            parent -= 1
    for i in range(middle, len(a)):
        if a[i][0] < a[0][0]:
            value = a[i]
            a[i] = a[0]
            _adjust_heap(a, 0, 0, middle, value)
    last = middle
    while last > 1:
        last -= 1
        value = a[last]
        a[last] = a[0]
        _adjust_heap(a, 0, 0, last, value)


def _stl_nth_element(a: list, nth: int) -> None:
    """libstdc++'s introselect of ``(key, index)`` pairs by ``key <`` (in place)."""
    first, last = 0, len(a)
    if nth >= last:
        return
    depth = 2 * (last.bit_length() - 1)
    while last - first > 3:
        if depth == 0:         # (its heap select: any valid selection of this tail)
            tail = a[first:last]
            _stl_sort(tail)
            a[first:last] = tail
            return
        depth -= 1
        _move_median_to_first(a, first, first + 1, first + (last - first) // 2, last - 1)
        cut = _unguarded_partition(a, first + 1, last, first)
        if cut <= nth:
            first = cut
        else:
            last = cut
    _insertion_sort(a, first, last)


def topk(self, k, dim=-1, largest=True, sorted=True):
    return _topk_impl(self, k, dim, largest, sorted, None, None)


def topk_values(self, k, dim=-1, largest=True, sorted=True, values=None, indices=None):
    return _topk_impl(self, k, dim, largest, sorted, values, indices)


# -- kthvalue / median / nanmedian / mode: one value and its index per row -------------------

def _with_indices_out(self, d, keepdim, values, indices, always_unsqueeze=False):
    """Allocate, or check and resize, the (values, indices) pair at the keepdim shape
    (Note [Outputs of kthvalue and mode]). Returns the pair to write through (keepdim
    shape) and a function giving the pair to return."""
    ndim = len(self._sizes)
    shape = _keepdim_shape(self, d)
    pair = []
    for out, dtype, what in ((values, self._dtype, "values"), (indices, dt.int64, "indices")):
        if out is None:
            pair.append(empty(shape, dtype, device=self._device))
            continue
        if not always_unsqueeze:
            check(out._dtype is dtype, "output values must be of same type as input"
                  if what == "values" else "output indices must be of scalar type Long")
        if not keepdim and ndim and (len(out._sizes) >= d if always_unsqueeze else
                                     len(out._sizes) == ndim - 1):
            unsqueeze_(out, d)
        resize_output(out, shape)
        pair.append(out)

    def result():
        if not keepdim and ndim:
            for t in pair:
                squeeze__dim(t, d)
        return tuple(pair)
    return pair, result


def _kthvalue_impl(self, k, dim, keepdim, values, indices):
    ndim = len(self._sizes)
    d = maybe_wrap_dim(dim, ndim)
    _zero_numel_check(self, d, "kthvalue()")
    size = self._sizes[d] if ndim else 1
    check(0 < k <= size, lambda: f"kthvalue(): selected number k out of range for dimension {d}")
    if values is not None:      # torch's assert_no_overlap(self, values), before any resize
        from .indexing import _assert_no_overlap
        _assert_no_overlap(self, values)
    (v, i), result = _with_indices_out(self, d, keepdim, values, indices)
    if _is_meta(self):
        return result()
    if not ndim:
        _store(v, self._array())
        _store(i, np.zeros((), np.int64))
        return result()
    _require(self, _NUMERIC, "kthvalue_cpu")
    if numel_of(v._sizes):
        arr = np.moveaxis(self._array(), d, -1)
        if arr.size <= _KTH_EXACT_LIMIT:
            idx = _kth_torch_order(_key(arr), k - 1)[..., None]   # Note [kthvalue's ties]
        else:
            idx = _nth_stable(_key(arr), k - 1)[..., None]
        _store(v, np.take_along_axis(arr, idx, -1))
        _store(i, idx)
    return result()


# Note [kthvalue's ties]
# ~~~~~~~~~~~~~~~~~~~~~~
# torch's CPU kthvalue runs a Sedgewick-style quickselect on each row's (value, index)
# pairs (median of three moved next to the left end, a Hoare partition around it, then the
# side holding k kept), and reports the index that lands at position k. With tied values
# that index depends on the partition steps, so strided replays those steps on Python
# numbers while the input is small (a row holding NaN on (rank, value) keys that order NaN
# above every number, as torch's gt_or_nan comparator does); large inputs keep the
# vectorized stable choice.
_KTH_EXACT_LIMIT = 1 << 16


def _kth_torch_order(arr: np.ndarray, k: int) -> np.ndarray:
    rows = arr.reshape(-1, arr.shape[-1])
    nan = _isnan(rows)
    nan_rows = nan.any(-1).tolist() if nan is not None else [False] * rows.shape[0]
    out = np.empty(rows.shape[0], np.int64)
    for r, row in enumerate(rows.tolist()):
        if nan_rows[r]:           # torch's gt_or_nan: NaN above every number
            row = [(1, 0) if x != x else (0, x) for x in row]
        out[r] = _quickselect_index(row, k)
    return out.reshape(arr.shape[:-1])


def _quickselect_index(vals: list, k: int) -> int:
    idx = list(range(len(vals)))

    def swap(a, b):
        vals[a], vals[b] = vals[b], vals[a]
        idx[a], idx[b] = idx[b], idx[a]

    lo, hi = 0, len(vals) - 1
    while hi > lo:
        if hi == lo + 1:
            if vals[lo] > vals[hi]:
                swap(lo, hi)
            break
        swap((lo + hi) >> 1, lo + 1)
        if vals[lo + 1] > vals[hi]:
            swap(lo + 1, hi)
        if vals[lo] > vals[hi]:
            swap(lo, hi)
        if vals[lo + 1] > vals[lo]:
            swap(lo + 1, lo)
        i, j, pivot = lo + 1, hi, vals[lo]
        while True:
            i += 1
            while pivot > vals[i]:
                i += 1
            j -= 1
            while vals[j] > pivot:
                j -= 1
            if j < i:
                break
            swap(i, j)
        swap(lo, j)
        if j <= k:
            lo = i
        if j >= k:
            hi = j - 1
    return idx[k]


def kthvalue(self, k, dim=-1, keepdim=False):
    return _kthvalue_impl(self, k, dim, keepdim, None, None)


def kthvalue_values(self, k, dim=-1, keepdim=False, values=None, indices=None):
    return _kthvalue_impl(self, k, dim, keepdim, values, indices)


def _median_dim_impl(self, dim, keepdim, values, indices, ignore_nan):
    ndim = len(self._sizes)
    d = maybe_wrap_dim(dim, ndim)
    _zero_numel_check(self, d, "median()")
    if indices is not None:
        check(indices._dtype is dt.int64, lambda: (
            f"Expected tensor for argument #1 'indices' to have scalar type Long; but got "
            f"{_legacy_name(indices._dtype)} instead (while checking arguments for median)"))
    if values is not None:
        check(values._dtype is self._dtype, lambda: (
            f"Expected tensor for 'values' to have the same type as tensor for argument #2 "
            f"'self'; but type {_legacy_name(values._dtype)} does not equal "
            f"{_legacy_name(self._dtype)} (while checking arguments for median)"))
    shape = _shape(self._sizes, (d,) if ndim else (), keepdim)
    v = _alloc(self, shape, self._dtype, values)
    i = _alloc(self, shape, dt.int64, indices)
    if _is_meta(self):
        return v, i
    _require(self, _NUMERIC, "median_out")
    if not numel_of(shape):
        return v, i
    arr = np.moveaxis(self._array().reshape(self._sizes or (1,)), d, -1)
    key = _key(arr)
    n = key.shape[-1]
    nan = _isnan(key)
    if ignore_nan and nan is not None and nan.any():
        # the ((count - 1) // 2)-th non-NaN element of the stable order (NaNs sort last);
        # C++'s division truncates, so an all-NaN row takes position 0
        count = n - np.count_nonzero(nan, axis=-1, keepdims=True)
        pos = np.maximum(count - 1, 0) // 2
        idx = np.take_along_axis(_stable_order(key, -1, False), pos, -1)
    else:
        idx = _nth_stable(key, (n - 1) // 2)[..., None]
        if not ignore_nan and nan is not None:
            # torch.median returns the first NaN of a row that has one
            has_nan = nan.any(axis=-1, keepdims=True)
            idx = np.where(has_nan, np.argmax(nan, axis=-1)[..., None], idx)
    _store(v, np.take_along_axis(arr, idx, -1))
    _store(i, idx)
    return v, i


def _median_all(self, ignore_nan):
    res = empty((), self._dtype, device=self._device)
    if _is_meta(self):
        return res
    if not numel_of(self._sizes):
        # torch fills NaN converted to the dtype, whatever the dtype (int64: INT64_MIN)
        with np.errstate(invalid="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            _store(res, np.array(np.nan).astype(self._dtype.np))
        return res
    _require(self, _NUMERIC, "median_cpu")
    flat = self._array().reshape(-1)
    key = _key(flat)
    nan = _isnan(key)
    if nan is not None and nan.any():
        if not ignore_nan:
            _store(res, flat[np.argmax(nan)])
            return res
        flat, key = flat[~nan], key[~nan]
        if not key.size:
            _store(res, np.array(np.nan))
            return res
    pos = (key.size - 1) // 2
    _store(res, np.partition(key, pos)[pos])
    return res


def median(self):
    return _median_all(self, False)


def median_out(self, out):
    res = _median_all(self, False)
    _check_out_dtype(out, self._dtype)
    resize_output(out, ())
    if not _is_meta(self):
        _store(out, res._array())
    return out


def median_dim(self, dim, keepdim=False):
    return _median_dim_impl(self, dim, keepdim, None, None, False)


def median_dim_values(self, dim, keepdim=False, values=None, indices=None):
    return _median_dim_impl(self, dim, keepdim, values, indices, False)


def nanmedian(self):
    return _median_all(self, True)


def nanmedian_out(self, out):
    res = _median_all(self, True)
    _check_out_dtype(out, self._dtype)
    resize_output(out, ())
    if not _is_meta(self):
        _store(out, res._array())
    return out


def nanmedian_dim(self, dim, keepdim=False):
    return _median_dim_impl(self, dim, keepdim, None, None, True)


def nanmedian_dim_values(self, dim, keepdim=False, values=None, indices=None):
    return _median_dim_impl(self, dim, keepdim, values, indices, True)


def _mode_np(arr: np.ndarray):
    """(value, index) along the last axis: the smallest of the most frequent values and its
    last position (Note [Which index for ties]). Runs of equal values in the stable order are
    measured with one cumsum and one bincount over all rows at once."""
    key = _key(arr)
    rows = key.reshape(-1, key.shape[-1])
    m, n = rows.shape
    order = np.argsort(rows, axis=-1, kind="stable")
    s = np.take_along_axis(rows, order, -1)
    start = np.ones((m, n), bool)
    start[:, 1:] = s[:, 1:] != s[:, :-1]        # NaN != NaN: every NaN is a run of its own
    run = np.cumsum(start.reshape(-1)) - 1       # run ids, global over the rows
    length = np.bincount(run)[run].reshape(m, n)
    first = np.argmax(length == length.max(axis=-1, keepdims=True), axis=-1)
    last = first + np.take_along_axis(length, first[:, None], -1)[:, 0] - 1
    idx = np.take_along_axis(order, last[:, None], -1)
    flat = arr.reshape(-1, arr.shape[-1])
    return (np.take_along_axis(flat, idx, -1).reshape(arr.shape[:-1]),
            idx.reshape(arr.shape[:-1]))


# Note [mode with NaN]
# ~~~~~~~~~~~~~~~~~~~
# torch's CPU mode sorts each row's (value, index) pairs with ``std::sort`` comparing values
# with ``<`` and then scans the runs of ``==`` values. NaN breaks the ordering ``std::sort``
# assumes, so where the NaNs end up, and hence the answer, is whatever libstdc++'s introsort
# does with them. Rows that hold a NaN are therefore sorted by ``_stl_sort`` below, which
# takes libstdc++'s steps (median-of-three quicksort down to runs of 16, heapsort past the
# depth limit, then insertion sort) on Python floats, whose ``<`` is C's.

# Rows longer than 16 take ``_stl_sort`` too (torch's unstable order decides which index of
# the most frequent value comes back) while the input has at most this many elements; past
# it, the vectorized path's stable choice (Note [Which index for ties]) keeps mode fast.
_MODE_EXACT_LIMIT = 1 << 17


def _stl_sort(items: list) -> None:
    """libstdc++'s ``std::sort`` of ``(value, index)`` pairs by ``value <`` (in place)."""
    n = len(items)
    if n > 1:
        _introsort_loop(items, 0, n, 2 * (n.bit_length() - 1))
        if n > 16:
            _insertion_sort(items, 0, 16)
            for i in range(16, n):
                _unguarded_linear_insert(items, i)
        else:
            _insertion_sort(items, 0, n)


def _insertion_sort(a, first, last):
    for i in range(first + 1, last):
        if a[i][0] < a[first][0]:
            v = a[i]
            a[first + 1:i + 1] = a[first:i]
            a[first] = v
        else:
            _unguarded_linear_insert(a, i)


def _unguarded_linear_insert(a, last):
    v = a[last]
    nxt = last - 1
    while nxt >= 0 and v[0] < a[nxt][0]:
        a[last] = a[nxt]
        last = nxt
        nxt -= 1
    a[last] = v


def _introsort_loop(a, first, last, depth):
    while last - first > 16:
        if depth == 0:
            _heap_sort(a, first, last)
            return
        depth -= 1
        mid = first + (last - first) // 2
        _move_median_to_first(a, first, first + 1, mid, last - 1)
        cut = _unguarded_partition(a, first + 1, last, first)
        _introsort_loop(a, cut, last, depth)
        last = cut


def _move_median_to_first(a, result, i, j, k):
    x, y, z = a[i][0], a[j][0], a[k][0]
    if x < y:
        pick = j if y < z else (k if x < z else i)
    elif x < z:
        pick = i
    elif y < z:
        pick = k
    else:
        pick = j
    a[result], a[pick] = a[pick], a[result]


def _unguarded_partition(a, first, last, pivot):
    p = a[pivot][0]
    end = len(a)
    while True:
        while first < end - 1 and a[first][0] < p:
            first += 1
        last -= 1
        while last > 0 and p < a[last][0]:
            last -= 1
        if not first < last:
            return first
        a[first], a[last] = a[last], a[first]
        first += 1


def _heap_sort(a, first, last):
    n = last - first
    if n >= 2:
        parent = (n - 2) // 2
        while True:
            _adjust_heap(a, first, parent, n, a[first + parent])
            if parent == 0:
                break
            parent -= 1
    while last - first > 1:
        last -= 1
        v = a[last]
        a[last] = a[first]
        _adjust_heap(a, first, 0, last - first, v)


def _adjust_heap(a, first, hole, n, value):
    top = hole
    child = hole
    while child < (n - 1) // 2:
        child = 2 * (child + 1)
        if a[first + child][0] < a[first + child - 1][0]:
            child -= 1
        a[first + hole] = a[first + child]
        hole = child
    if n % 2 == 0 and child == (n - 2) // 2:
        child = 2 * (child + 1)
        a[first + hole] = a[first + child - 1]
        hole = child - 1
    parent = (hole - 1) // 2
    while hole > top and a[first + parent][0] < value[0]:
        a[first + hole] = a[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    a[first + hole] = value


def _mode_row_stl(row) -> tuple:
    """torch's mode of one row, sorted as ``std::sort`` does (Note [mode with NaN]); integer
    rows compare as Python ints (exact past 2**53)."""
    items = [(v, i) for i, v in enumerate(row.tolist())]
    _stl_sort(items)
    best, best_i, best_freq, freq = 0, 0, 0, 0
    n = len(items)
    for k in range(n):
        freq += 1
        if k == n - 1 or items[k][0] != items[k + 1][0]:
            if freq > best_freq:
                best, best_i, best_freq = items[k][0], items[k][1], freq
            freq = 0
    return best, best_i


def _mode_impl(self, dim, keepdim, values, indices):
    for out, dtype, what in ((values, self._dtype, "values"), (indices, dt.int64, "indices")):
        if out is not None:
            check(out._dtype is dtype, lambda out=out, dtype=dtype, what=what: (
                f"expected scalar type '{dtype._scalar_name}' but got "
                f"'{out._dtype._scalar_name}' for {what} output"))
    ndim = len(self._sizes)
    d = maybe_wrap_dim(dim, ndim)
    if not numel_of(self._sizes):
        _zero_numel_check(self, d, "mode()")
        shape = _shape(self._sizes, (d,), keepdim)
        return _alloc(self, shape, self._dtype, values), _alloc(self, shape, dt.int64, indices)
    if not ndim:
        # torch resizes (silently) and fills the outputs of a one-element 0-dim input
        v = empty((), self._dtype, device=self._device) if values is None else \
            resize_impl(values, ())
        i = empty((), dt.int64, device=self._device) if indices is None else \
            resize_impl(indices, ())
        if not _is_meta(self):
            _store(v, self._array())
            _store(i, np.zeros((), np.int64))
        return v, i
    if not _is_meta(self):
        _require(self, _NO_COMPLEX_NO_BAREBONES, "mode_cpu")
    (v, i), result = _with_indices_out(self, d, keepdim, values, indices,
                                       always_unsqueeze=True)
    if not _is_meta(self):
        arr = np.moveaxis(self._array(), d, -1)
        value, index = _mode_np(arr)
        key = _key(arr).reshape(-1, arr.shape[-1])
        n = key.shape[-1]
        if n > 16 and key.size <= _MODE_EXACT_LIMIT:
            rows = range(key.shape[0])      # torch's unstable sort picks among ties
        elif arr.dtype.kind in "fV" or arr.dtype.name == "bfloat16":
            rows = np.flatnonzero(np.isnan(key).any(axis=-1)).tolist()
        else:
            rows = ()
        if rows:
            value = value.reshape(-1).copy()
            index = index.reshape(-1).copy()
            for r in rows:
                value[r], index[r] = _mode_row_stl(key[r])
            value = value.reshape(arr.shape[:-1])
            index = index.reshape(arr.shape[:-1])
        _store(v, np.expand_dims(value, d))
        _store(i, np.expand_dims(index, d))
    return result()


def mode(self, dim=-1, keepdim=False):
    return _mode_impl(self, dim, keepdim, None, None)


def mode_values(self, dim=-1, keepdim=False, values=None, indices=None):
    return _mode_impl(self, dim, keepdim, values, indices)


# -- quantile / nanquantile ------------------------------------------------------------------

_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _two_sum(a, b):
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _split(a):
    c = a * 134217729.0        # 2**27 + 1
    hi = c - (c - a)
    return hi, a - hi


def _fma(a, b, c):
    """``a * b + c`` rounded once (Note [Quantile arithmetic])."""
    if a.dtype == np.float32:
        return (a.astype(np.float64) * b.astype(np.float64) + c).astype(np.float32)
    with np.errstate(all="ignore"):
        p = a * b
        ah, al = _split(a)
        bh, bl = _split(b)
        e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
        s, t = _two_sum(p, c)
        r = s + (t + e)
    # inf/nan inputs: the plain expression gives IEEE's answer
    return np.where(np.isfinite(r), r, p + c)


def _lerp(lo, hi, w):
    """torch's CPU lerp kernel (one fma per element)."""
    with np.errstate(all="ignore"):
        small = np.abs(w) < 0.5
        diff = hi - lo
        coeff = np.where(small, w, w - np.ones((), w.dtype))
        base = np.where(small, lo, hi)
        return _fma(coeff.astype(diff.dtype), diff, base)


def _quantile_impl(self, q, dim, keepdim, interpolation, out, ignore_nan):
    scalar_q = not hasattr(q, "_sizes")
    if scalar_q:
        check(0 <= q <= 1, lambda: f"quantile() q must be in the range [0, 1] but got {q:g}")
    check(interpolation in _INTERPOLATIONS, lambda: (
        f"quantile() interpolation must be one of linear, lower, higher, midpoint or nearest, "
        f"but got {interpolation}"))
    check(numel_of(self._sizes) > 0, "quantile() input tensor must be non-empty")
    q_ndim = 0 if scalar_q else len(q._sizes)
    check(q_ndim <= 1, "quantile() q must be a scalar or 1D tensor")
    check(self._dtype in (dt.float32, dt.float64),
          "quantile() input tensor must be either float or double dtype")
    check(scalar_q or q._dtype is self._dtype,
          "quantile() q tensor must be same dtype as the input tensor")
    check(out is None or out._dtype is self._dtype,
          "quantile() out tensor must be same dtype as the input tensor")
    check(scalar_q or q._device == self._device,
          "quantile() q tensor must be on the same device as the input tensor")
    check(out is None or out._device == self._device,
          "quantile() out tensor must be on the same device as the input tensor")
    ndim = len(self._sizes)
    d = maybe_wrap_dim(0 if dim is None else dim, ndim)
    if dim is not None and ndim:
        rest = _shape(self._sizes, (d,), keepdim)
    else:
        rest = (1,) * ndim if keepdim else ()
    nq = 1 if scalar_q else numel_of(q._sizes)
    shape = ((nq,) if q_ndim else ()) + rest
    if out is not None:
        resize_output(out, shape)
        res = out
    elif q_ndim:
        # torch computes (*rest, nq) contiguously and moves the q dim to the front
        inner = contiguous_strides(rest + (nq,))
        res = _new(self, shape, self._dtype, (inner[-1],) + inner[:-1])
    else:
        res = empty(shape, self._dtype, device=self._device)
    if _is_meta(self):
        return res
    qv = np.array([q], self._dtype.np) if scalar_q else \
        q._array().reshape(nq).astype(self._dtype.np)
    if not scalar_q:
        check(bool(np.all((qv >= 0) & (qv <= 1))),
              "quantile() q values must be in the range [0, 1]")
    if not nq:
        return res
    arr = self._array()
    rows = arr.reshape(-1) if dim is None or not ndim else np.moveaxis(arr, d, -1)
    srt = np.sort(rows, axis=-1, kind="stable")      # (..., n), NaNs last
    n = srt.shape[-1]
    nan = np.isnan(srt)
    ftype = self._dtype.np
    if ignore_nan:
        count = (n - np.count_nonzero(nan, axis=-1, keepdims=True)).astype(ftype)
        ranks = qv * (count - ftype.type(1))
        ranks = np.where(ranks < 0, ftype.type(0), ranks)
    else:
        ranks = qv * ftype.type(n - 1)
        ranks = np.where(nan.any(axis=-1, keepdims=True), ftype.type(n - 1), ranks)
    ranks = ranks.astype(ftype, copy=False)
    if interpolation == "lower":
        ranks = np.floor(ranks)
    elif interpolation == "higher":
        ranks = np.ceil(ranks)
    elif interpolation == "nearest":
        ranks = np.round(ranks)
    below = ranks.astype(np.int64)
    val = np.take_along_axis(srt, below, -1)          # (..., nq)
    if interpolation in ("linear", "midpoint"):
        weights = np.full_like(ranks, 0.5) if interpolation == "midpoint" else \
            ranks - below.astype(ftype)
        above = np.take_along_axis(srt, np.ceil(ranks).astype(np.int64), -1)
        val = _lerp(val, above, weights)
    val = np.moveaxis(val, -1, 0).reshape(shape)
    _store(res, val)
    return res


def quantile(self, q, dim=None, keepdim=False, interpolation="linear"):
    return _quantile_impl(self, q, dim, keepdim, interpolation, None, False)


def quantile_out(self, q, dim=None, keepdim=False, interpolation="linear", out=None):
    return _quantile_impl(self, q, dim, keepdim, interpolation, out, False)


def quantile_scalar(self, q, dim=None, keepdim=False, interpolation="linear"):
    return _quantile_impl(self, q, dim, keepdim, interpolation, None, False)


def quantile_scalar_out(self, q, dim=None, keepdim=False, interpolation="linear", out=None):
    return _quantile_impl(self, q, dim, keepdim, interpolation, out, False)


def nanquantile(self, q, dim=None, keepdim=False, interpolation="linear"):
    return _quantile_impl(self, q, dim, keepdim, interpolation, None, True)


def nanquantile_out(self, q, dim=None, keepdim=False, interpolation="linear", out=None):
    return _quantile_impl(self, q, dim, keepdim, interpolation, out, True)


def nanquantile_scalar(self, q, dim=None, keepdim=False, interpolation="linear"):
    return _quantile_impl(self, q, dim, keepdim, interpolation, None, True)


def nanquantile_scalar_out(self, q, dim=None, keepdim=False, interpolation="linear",
                           out=None):
    return _quantile_impl(self, q, dim, keepdim, interpolation, out, True)


# -- cummax / cummin -------------------------------------------------------------------------

def _cum_extreme_np(arr: np.ndarray, axis: int, largest: bool):
    """torch's scan: an element replaces the running extreme when it is NaN or when it is
    >= (cummax) / <= (cummin) it and the extreme is not NaN. The index is therefore the last
    position j <= i where the element equals the running extreme (or is NaN); the values are
    read back at those indices, so a 0.0 after a -0.0 shows as 0.0, as in torch."""
    key = _key(arr)
    ufunc = np.maximum if largest else np.minimum
    run = ufunc.accumulate(key, axis=axis)     # NaN propagates, as torch's does
    hit = key == run
    nan = _isnan(key)
    if nan is not None:
        hit |= nan
    shape = [1] * key.ndim
    shape[axis] = key.shape[axis]
    pos = np.arange(key.shape[axis], dtype=np.int64).reshape(shape)
    idx = np.maximum.accumulate(np.where(hit, pos, 0), axis=axis)
    if nan is None:
        return run, idx        # exact ints: the running extreme is the element itself
    if not nan.any() and not (run == 0).any():
        return run, idx        # no NaN and no zero whose sign the scan could pick: same
    return np.take_along_axis(arr, idx, axis), idx


def _cum_impl(self, dim, values, indices, largest):
    name = "cummax" if largest else "cummin"
    for out, dtype in ((values, self._dtype), (indices, dt.int64)):
        if out is not None:
            check(out._dtype is dtype, lambda out=out, dtype=dtype: (
                f"expected scalar_type {dtype._scalar_name} but found "
                f"{out._dtype._scalar_name}"))
    v = _alloc(self, self._sizes, self._dtype, values)
    i = _alloc(self, self._sizes, dt.int64, indices)
    ndim = len(self._sizes)
    if not ndim:
        check(dim in (0, -1), lambda: (
            f"{name}(): Expected reduction dim -1 or 0 for scalar but got {dim}"), IndexError)
        if not _is_meta(self):
            _store(v, self._array())
            _store(i, np.zeros((), np.int64))
        return v, i
    if not numel_of(self._sizes):
        return v, i        # torch does not even look at dim here
    d = maybe_wrap_dim(dim, ndim)
    if _is_meta(self):
        return v, i
    _require(self, _NO_COMPLEX_NO_BAREBONES, f"{name}_cpu")
    vals, idx = _cum_extreme_np(self._array(), d, largest)
    _store(v, vals)
    _store(i, idx)
    return v, i


def cummax(self, dim):
    return _cum_impl(self, dim, None, None, True)


def cummax_out(self, dim, values=None, indices=None):
    return _cum_impl(self, dim, values, indices, True)


def cummin(self, dim):
    return _cum_impl(self, dim, None, None, False)


def cummin_out(self, dim, values=None, indices=None):
    return _cum_impl(self, dim, values, indices, False)


# -- aminmax ---------------------------------------------------------------------------------

def _aminmax_impl(self, dim, keepdim, mn, mx):
    ndim = len(self._sizes)
    if dim is not None:
        d = maybe_wrap_dim(dim, ndim)
        _zero_numel_check(self, d, "aminmax")
        check(ndim <= 64, "only tensors with up to 64 dims are supported")   # the dim bitset
        axes = (d,) if ndim else ()
        shape = _shape(self._sizes, axes, keepdim)
    else:
        check(numel_of(self._sizes) > 0, "aminmax(): cannot compute aminmax over an empty "
              "dimension as the operation has no identity.")
        axes = tuple(range(ndim))
        shape = (1,) * ndim if keepdim else ()
    _check_out_dtype(mn, self._dtype)
    lo = _alloc(self, shape, self._dtype, mn)
    _check_out_dtype(mx, self._dtype)
    hi = _alloc(self, shape, self._dtype, mx)
    if _is_meta(self):
        return lo, hi
    _require(self, _NO_COMPLEX_NO_BAREBONES, "aminmax_cpu")
    if not numel_of(shape):
        return lo, hi
    key = _key(self._array())
    if not ndim:
        _store(lo, key)
        _store(hi, key)
        return lo, hi
    _store(lo, np.minimum.reduce(key, axis=axes, keepdims=keepdim))
    _store(hi, np.maximum.reduce(key, axis=axes, keepdims=keepdim))
    return lo, hi


def aminmax(self, dim=None, keepdim=False):
    return _aminmax_impl(self, dim, keepdim, None, None)


def aminmax_out(self, dim=None, keepdim=False, min=None, max=None):
    return _aminmax_impl(self, dim, keepdim, min, max)
