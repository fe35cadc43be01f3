"""Indexing kernels: advanced indexing (``index`` / ``index_put_``), the ``index_*`` family,
``gather`` / ``scatter*``, ``take`` / ``put_``, the ``masked_*`` ops and ``nonzero``.

Every kernel checks its arguments the way torch does (same exception types, same
messages, in the same order), then works on NumPy views of the tensors' memory. On the
``meta`` device only the checks and the output's shape, dtype and strides are computed.

Note [Advanced indexing is NumPy's fancy indexing]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
``index(self, indices)`` takes one optional index tensor per leading dimension. Boolean
(and deprecated uint8) masks stand for the index tensors of their ``nonzero()``; all index
tensors broadcast together to one shape B. When the indexed dimensions are adjacent, B
replaces them in place; when they are separated by an untouched dimension, B goes to the
front. NumPy's fancy indexing has exactly these rules (a k-dimensional bool array counts
as k adjacent index arrays), so after torch's checks a kernel builds the NumPy key
``(slice(None), idx0, mask, ...)`` and lets NumPy gather or scatter. The checks cannot be
left to NumPy: torch refuses negative-out-of-range values with its own messages, refuses
float indices, and refuses values that NumPy would broadcast (extra leading 1s).

Note [Output strides of index]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
torch allocates ``index``'s output through TensorIterator, whose inputs are ``self``
"restrided" to the result shape (stride 0 along the replaced dimensions) and the index
tensors (stride 0 along the kept ones). The output's memory order is the order
TensorIterator sorts the dimensions in (``_iterator_strides``), so ``a.t()[idx]`` is not
always contiguous. Details that show: each index tensor is first expanded to B and then
reshaped with size-1 dims for the kept ones (those dims' strides come from the view rule,
and count where the output has size 1); int32 indices are converted to int64 first; when
all inputs have the output's shape and are contiguous (always true when empty),
TensorIterator's fast setup makes the output contiguous; and a size-0 dim zeroes the
strides outside it. torch's meta function is simpler (it looks at the restrided ``self``
only) and ``_meta_index_output_strides`` follows it. Everything else here allocates
contiguous outputs, except the ops that torch writes as ``self.clone(preserve_format)
.op_(...)`` (index_put, index_fill, put).

Note [Fast paths]
~~~~~~~~~~~~~~~~~
Three cases carry most of the traffic and get their own NumPy call:
- one integer index tensor (``a[idx]``, ``a[:, idx]``): ``np.take(..., out=...)`` straight
  into the output, with ``mode="clip"`` once bounds are checked (``mode="raise"`` would
  make NumPy buffer the output);
- a bool mask with the shape of ``self`` (``a[mask]``): ``np.compress`` on the flattened
  arrays, 5-10x faster than NumPy's own boolean indexing; ``masked_fill_`` selects on bit
  patterns without branches (Note [Branch-free masked fill] in ``_fill_where``);
- accumulation (``index_put_(..., accumulate=True)``, ``index_add_``, ``put_``, the scatter
  reductions): ``ufunc.at``, which adds duplicates one after the other in index order, as
  torch's serial CPU loop does (so float results match bit for bit). ``ufunc.at`` is fast
  only with a single 1-D index array, so multi-dimensional targets are turned into flat
  element offsets first (``_flat_offsets``).
"""

from __future__ import annotations

import functools
import warnings

import numpy as np

from ..core import dtypes as dt
from ..core.checks import check, check_index, maybe_wrap_dim
from ..core.tensor_impl import (
    check_storage_bounds,
    compute_is_contiguous,
    contiguous_strides,
    make_tensor,
    numel_of,
)
from . import complex32 as _c32
from .factory import alert_not_deterministic, new_strided, preserved_strides
from .factory import empty as _factory_empty
from .memory_overlap import (
    FULL,
    PARTIAL,
    YES,
    assert_no_internal_overlap,
    assert_no_partial_overlap,
    get_overlap_status,
    has_internal_overlap,
)
from .resize import resize_output
from .scalars import check_scalar_fits, scalar_to_store
from .tensor_iterator import sort_dims
from .views import compute_view_strides

_INDEX_DTYPES = (dt.int64, dt.int32)
_ADV_INDEX_DTYPES = (dt.int64, dt.int32, dt.uint8, dt.bool_)

# c10's TypeMeta names, which some of torch's messages print (e.g. masked_fill_'s).
_TYPEMETA_NAMES = {
    "bool": "bool", "uint8": "unsigned char", "int8": "signed char", "int16": "short int",
    "int32": "int", "int64": "long int", "uint16": "unsigned short",
    "uint32": "unsigned int", "uint64": "unsigned long", "float16": "c10::Half",
    "bfloat16": "c10::BFloat16", "float32": "float", "float64": "double",
    "complex64": "c10::complex<float>", "complex128": "c10::complex<double>",
}

_OVERLAP_MSG = ("unsupported operation: some elements of the input tensor and the written-to "
                "tensor refer to a single memory location. Please clone() the tensor before "
                "performing the operation.")
_NONZERO_META_MSG = (
    "The register_meta function for torch.nonzero() raises unimplemented by default, as a "
    "correct data-independent implementation does not exist. This implementation returns a "
    "fake value, assuming all elements of the tensor are non-zero. To enable this "
    "registration, please set "
    "'torch.fx.experimental._config.meta_nonzero_assume_all_nonzero' to True.")
# torch hits an internal assert when advanced indexing is left with no index tensor (all
# None, or only 0-dim masks); we raise the same error rather than invent a result.
_NO_INDEX_MSG = ('ntensor >= 3 INTERNAL ASSERT FAILED at "/__w/pytorch/pytorch/aten/src/ATen/'
                 'native/cpu/IndexKernelUtils.h":8, please report a bug to PyTorch. ')


# ----------------------------------------------------------------------------- helpers

def _is_meta(*tensors) -> bool:
    for t in tensors:
        if t is not None and t._device.type == "meta":
            return True
    return False


def _empty(sizes, dtype, device):
    return _factory_empty(tuple(sizes), dtype, None, device)


def _empty_like_preserve(self):
    """``empty_like(self)`` with torch's preserve_format rule (what ``clone()`` allocates)."""
    from .factory import empty_like
    return empty_like(self)


def _clone_preserve(self):
    out = _empty_like_preserve(self)
    if not _is_meta(self) and out.numel():
        np.copyto(out._array(), self._array())
    return out


def _clone_contiguous(self, sizes=None):
    """A contiguous copy of ``self`` (expanded to ``sizes`` when given)."""
    sizes = self._sizes if sizes is None else tuple(sizes)
    out = _empty(sizes, self._dtype, self._device)
    if not _is_meta(self) and numel_of(sizes):
        np.copyto(out._array(), np.broadcast_to(self._array(), sizes))
    return out


def _view(t, sizes, strides, offset):
    base = t._base if t._base is not None else t
    return make_tensor(t._storage, tuple(sizes), tuple(strides), offset, t._dtype, t._vc, base)


def _shape_str(sizes) -> str:
    return "[" + ", ".join(str(s) for s in sizes) + "]"


def _expandable(shape, desired) -> bool:
    """``is_expandable_to``: ``shape`` broadcasts to ``desired`` without adding dims in front
    of ``desired`` (leading 1s of ``shape`` beyond ``desired``'s rank are refused)."""
    if len(shape) > len(desired):
        return False
    for s, d in zip(reversed(shape), reversed(desired)):
        if s != d and s != 1:
            return False
    return True


def _broadcast(shapes):
    """The common shape of ``shapes`` or None when they do not broadcast."""
    ndim = max((len(s) for s in shapes), default=0)
    out = [1] * ndim
    for shape in shapes:
        off = ndim - len(shape)
        for i, size in enumerate(shape):
            cur = out[off + i]
            if cur == size or size == 1:
                continue
            if cur != 1:
                return None
            out[off + i] = size
    return tuple(out)


def _bump(t):
    t._vc[0] += 1


def _np_quiet(fn):
    """Run ``fn`` with NumPy's floating-point warnings off: torch computes NaN and inf
    without a word (e.g. ``amax`` over a NaN)."""
    @functools.wraps(fn)
    def quiet(*args):
        with np.errstate(all="ignore"):
            return fn(*args)
    return quiet


# Messages torch raises with TORCH_WARN_ONCE: shown the first time in a process only.
_WARNED_ONCE: set = set()


def _warn_once(message: str) -> None:
    if message not in _WARNED_ONCE:
        _WARNED_ONCE.add(message)
        warnings.warn(message, UserWarning, stacklevel=4)


def _is_expanded(t) -> bool:
    """Whether two elements of ``t`` share memory (a row-major tensor never does)."""
    return t._strides != contiguous_strides(t._sizes) and has_internal_overlap(t) == YES


def _assert_no_overlap(a, b) -> None:
    """torch's ``assert_no_overlap``: full or partial sharing of memory is refused."""
    if b is None:
        return
    status = get_overlap_status(a, b)
    check(status != PARTIAL and status != FULL, _OVERLAP_MSG)


def _minmax(arr):
    """(min, max) of a non-empty integer array as Python ints; small arrays go through a
    list, which costs less than two NumPy reductions."""
    if arr.size <= 64:
        values = arr.ravel().tolist()
        return min(values), max(values)
    return int(arr.min()), int(arr.max())


def _index_np(index):
    """The index values as an int64 NumPy array (shape of the tensor)."""
    arr = index._array()
    return arr if arr.dtype == np.int64 else arr.astype(np.int64)


def _scalar_for(value, dtype, numel=2):
    """A Python scalar ready to store in ``dtype`` (torch's overflow check first)."""
    check_scalar_fits(value, dtype, numel)
    return scalar_to_store(value, dtype)


def _item(t):
    """``t.item()`` as a Python scalar."""
    v = _c32.numeric(t._array().reshape(-1)[:1])[0]
    if t._dtype.is_complex:
        return complex(v)
    if t._dtype.is_floating_point:
        return float(v)
    if t._dtype is dt.bool_:
        return bool(v)
    return int(v)




def _moved(arr, dim):
    return np.moveaxis(arr, dim, 0) if dim else arr


def _iterator_strides(shape, operands, zero_sizes_count=True) -> tuple:
    """Strides of a new TensorIterator output of ``shape`` (Note [Output strides of index]).

    ``operands`` are (sizes, strides) pairs already aligned to ``shape``. Dimensions are
    sorted by the strides of the first operand that orders them (a broadcast dimension,
    stride 0, leaves the decision to the next operand; equal strides put the smaller
    dimension inside); the output is then dense in that order. TensorIterator multiplies
    the sizes as they are (a size-0 dim zeroes the strides outside it); torch's meta
    functions count a size 0 as 1 (``zero_sizes_count=False``)."""
    ndim = len(shape)
    if ndim <= 1:
        return contiguous_strides(shape)
    ops = []
    for sizes, strides in operands:
        ops.append([0 if (sizes[d] == 1 and shape[d] != 1) else strides[d]
                    for d in range(ndim)])

    perm = sort_dims(shape, ops)
    if perm == list(range(ndim - 1, -1, -1)):
        return contiguous_strides(shape)
    strides = [0] * ndim
    acc = 1
    for d in perm:
        strides[d] = acc
        acc *= shape[d] if zero_sizes_count else max(shape[d], 1)
    return tuple(strides)


def _element_offsets(t) -> np.ndarray:
    """The storage offset of every element of ``t`` (an int64 array of its shape)."""
    offs = np.full(t._sizes, t._offset, np.int64)
    for d, (n, st) in enumerate(zip(t._sizes, t._strides)):
        shape = [1] * len(t._sizes)
        shape[d] = n
        offs += np.arange(n, dtype=np.int64).reshape(shape) * st
    return offs


def _flat_strided(t):
    """A 1-D NumPy array over ``t``'s whole storage in elements of its dtype, for scattering
    at element offsets."""
    check_storage_bounds(t)   # every element index must lie in the storage (a shrunk one too)
    buf = t._storage._buf
    n = t._storage._nbytes // t._dtype.itemsize
    return np.ndarray((n,), t._dtype.np, buffer=buf)


_GRID_MAX = 1 << 20


def _dim_offsets(t, dim, idx):
    """Storage offsets of the slices ``t.select(dim, i)`` for ``i`` in ``idx``: an array of
    shape ``(len(idx),) + t.shape without dim``, in row-major order of that shape."""
    sizes, strides = t._sizes, t._strides
    rest = [d for d in range(len(sizes)) if d != dim]
    base = np.full([sizes[d] for d in rest], t._offset, np.int64)
    for i, d in enumerate(rest):
        if sizes[d] > 1 and strides[d]:
            shape = [1] * len(rest)
            shape[i] = sizes[d]
            base += (np.arange(sizes[d], dtype=np.int64) * strides[d]).reshape(shape)
    lead = (idx * np.int64(strides[dim])).reshape((-1,) + (1,) * len(rest))
    return lead + base


def _flat_offsets(t, key):
    """Element offsets into ``t``'s storage of ``t._array()[key]`` (same shape).

    Each dimension's coordinate grid is a zero-stride broadcast view, indexed by ``key``
    exactly like the data (so NumPy's rules give the offsets the result's shape and order);
    nothing of ``t``'s own size is materialised."""
    sizes = t._sizes
    if numel_of(sizes) <= _GRID_MAX:
        # small enough to lay out every offset of t once and index that like the data
        grid = np.full(sizes, t._offset, np.int64)
        for d in range(len(sizes)):
            if sizes[d] > 1 and t._strides[d]:
                shape = [1] * len(sizes)
                shape[d] = sizes[d]
                grid += (np.arange(sizes[d], dtype=np.int64) * t._strides[d]).reshape(shape)
        return np.asarray(grid[key])
    total = None
    for d in range(len(sizes)):
        if sizes[d] == 1 or t._strides[d] == 0:
            continue
        shape = [1] * len(sizes)
        shape[d] = sizes[d]
        grid = (np.arange(sizes[d], dtype=np.int64) * t._strides[d]).reshape(shape)
        piece = np.broadcast_to(grid, sizes)[key]
        if total is None:
            total = np.array(piece, dtype=np.int64)
        else:
            total += piece
    if total is None:
        total = np.array(np.broadcast_to(np.int64(0), sizes)[key], dtype=np.int64)
    total += t._offset
    return total


@_np_quiet
def _ufunc_at(t, ufunc, key, values):
    """``ufunc.at(t[key], values)`` in index order (Note [Fast paths])."""
    arr = t._array()
    if arr.dtype == dt.COMPLEX32_NP:
        _c32.ufunc_at(ufunc, _flat_strided(t), _element_offsets(t)[key], values)
        return
    if arr.ndim == 1 and len(key) == 1:
        ufunc.at(arr, key[0], values)
        return
    if len(key) == arr.ndim and arr.ndim > 1:
        offsets = _flat_offsets(t, key)
        vals = np.broadcast_to(values, offsets.shape)
        ufunc.at(_flat_strided(t), offsets.reshape(-1), vals.reshape(-1))
        return
    ufunc.at(arr, key, values)


# --------------------------------------------------------------- advanced indexing

class _Adv:
    """One entry of the expanded index list: an integer index tensor, or one dimension of a
    boolean mask (the first such entry of a mask carries the mask itself)."""

    __slots__ = ("kind", "tensor", "shape", "n", "first")

    def __init__(self, kind, tensor, shape, n=0, first=True):
        self.kind = kind          # "int" or "mask"
        self.tensor = tensor
        self.shape = shape        # the shape it contributes to the broadcast
        self.n = n                # mask: number of True elements
        self.first = first        # mask: the entry that carries the mask


def _check_index_types(indices):
    for idx in indices:
        if idx is not None and idx._dtype not in _ADV_INDEX_DTYPES:
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")


def _mask_size_check(self, index, j, src_idx):
    ndim = len(self._sizes)
    d = maybe_wrap_dim(src_idx, ndim)
    check_index(index._sizes[j] == self._sizes[d], lambda: (
        f"The shape of the mask {_shape_str(index._sizes)} at index {j} does not match the "
        f"shape of the indexed tensor {_shape_str(self._sizes)} at index {src_idx}"))


def _mask_array(index):
    arr = index._array()
    return arr if arr.dtype == np.bool_ else arr != 0


def _expand_indices(self, indices):
    """torch's ``expandTensors``: a mask of k dims becomes k entries (its nonzero columns)."""
    result = []
    for index in indices:
        if index is None:
            result.append(None)
            continue
        if index._dtype is dt.uint8 or index._dtype is dt.bool_:
            if index._dtype is dt.uint8:
                warnings.warn("indexing with dtype torch.uint8 is now deprecated, please use a "
                              "dtype torch.bool instead.", UserWarning, stacklevel=3)
            if _is_meta(index):
                raise NotImplementedError(_NONZERO_META_MSG)
            k = len(result)
            for j in range(len(index._sizes)):
                _mask_size_check(self, index, j, k + j)
            if not index._sizes:
                continue      # a 0-dim mask adds no index tensor
            n = int(np.count_nonzero(index._array()))
            for j in range(len(index._sizes)):
                result.append(_Adv("mask", index, (n,), n, j == 0))
        else:
            result.append(_Adv("int", index, index._sizes))
    return result


class _Plan:
    """The outcome of torch's ``make_info``: which dims are indexed, the broadcast index
    shape, and the result shape."""

    __slots__ = ("entries", "bshape", "front", "result_shape", "self_perm")

    def __init__(self, entries, bshape, front, result_shape, self_perm):
        self.entries = entries          # one per dim of self: None or _Adv
        self.bshape = bshape
        self.front = front              # advanced dims are not adjacent: B goes first
        self.result_shape = result_shape
        self.self_perm = self_perm      # front: dims of self in the order of the result


def _make_plan(self, indices):
    _check_index_types(indices)
    entries = _expand_indices(self, indices)
    ndim = len(self._sizes)
    defined = [e for e in entries if e is not None]
    shapes = [e.shape for e in defined]
    if len(shapes) == 1 or (shapes and shapes.count(shapes[0]) == len(shapes)):
        bshape = tuple(shapes[0])
    else:
        bshape = _broadcast(shapes)
    if bshape is None:
        raise IndexError("shape mismatch: indexing tensors could not be broadcast together "
                         "with shapes " + ", ".join(_shape_str(e.shape) for e in defined))
    if len(entries) > ndim:
        # masks expanded past the last dim: torch fails when it asks self for that size
        maybe_wrap_dim(ndim, ndim)
    if len(entries) < ndim:
        entries += [None] * (ndim - len(entries))
    adv_dims = [d for d, e in enumerate(entries) if e is not None]
    sizes = self._sizes
    # no value indexes a dim of size 0, unless there are no values at all
    if any(sizes[d] == 0 for d in adv_dims) and 0 not in bshape and not _is_meta(self):
        raise IndexError("index is out of bounds for dimension with size 0")
    if not adv_dims:
        return _Plan(entries, bshape, False, sizes, None)
    first, last = adv_dims[0], adv_dims[-1]
    if last - first + 1 == len(adv_dims):
        return _Plan(entries, bshape, False, sizes[:first] + bshape + sizes[last + 1:], None)
    rest = [d for d in range(ndim) if entries[d] is None]
    return _Plan(entries, bshape, True, bshape + tuple(sizes[d] for d in rest),
                 adv_dims + rest)


def _np_key(plan):
    """The NumPy key for ``self._array()`` (Note [Advanced indexing is NumPy's fancy
    indexing])."""
    key = []
    for e in plan.entries:
        if e is None:
            key.append(slice(None))
        elif e.kind == "int":
            key.append(e.tensor._array())
        elif e.first:
            key.append(_mask_array(e.tensor))
    return tuple(key)


def _check_index_bounds(self, plan) -> None:
    """Every index value v of dim d must satisfy -size <= v < size (torch's messages; the
    first offending element in C order wins, the lowest dim within it). The message numbers
    the dimension among the indexed ones, as torch's kernel does: ``a[:, [5]]`` on a (2, 3)
    tensor reports "dimension 0 with size 3"."""
    bad = []
    k = -1
    for d, e in enumerate(plan.entries):
        if e is None:
            continue
        k += 1
        if e.kind != "int" or not numel_of(e.tensor._sizes):
            continue
        arr = e.tensor._array()
        size = self._sizes[d]
        lo, hi = _minmax(arr)
        if lo < -size or hi >= size:
            bad.append((k, arr, size))
    if not bad:
        return
    bshape = plan.bshape
    first = None
    for d, arr, size in bad:
        flags = np.broadcast_to((arr < -size) | (arr >= size), bshape).reshape(-1)
        pos = int(np.argmax(flags))
        if flags[pos] and (first is None or pos < first[0]):
            first = (pos, d, arr, size)
    pos, d, arr, size = first
    for d2, arr2, size2 in bad:   # lower dims win at the same position
        if d2 < d:
            v = int(np.broadcast_to(arr2, bshape).reshape(-1)[pos])
            if v < -size2 or v >= size2:
                d, arr, size = d2, arr2, size2
                break
    value = int(np.broadcast_to(arr, bshape).reshape(-1)[pos])
    if size == 0:
        raise IndexError("index is out of bounds for dimension with size 0")
    raise IndexError(f"index {value} is out of bounds for dimension {d} with size {size}")


def _plain_layout(self, plan) -> bool:
    """Whether the output is surely contiguous: ``self`` and the index tensors have exactly
    row-major strides and the indices are adjacent and need no broadcasting (every stride
    comparison TensorIterator makes then keeps the dims in order)."""
    if plan.front or self._strides != contiguous_strides(self._sizes):
        return False
    bshape = plan.bshape
    for e in plan.entries:
        if e is not None:
            t = e.tensor
            if e.kind != "int" or t._sizes != bshape or \
                    t._strides != contiguous_strides(t._sizes):
                return False
    return True


def _restrided_self(self, plan):
    """``self`` as TensorIterator sees it: (strides of the result-shaped view with stride 0
    along the index dims, number of dims before them, number after them)."""
    perm = plan.self_perm or range(len(self._sizes))
    entries = [plan.entries[d] for d in perm]
    strides = [self._strides[d] for d in perm]
    adv = [i for i, e in enumerate(entries) if e is not None]
    if not adv:
        return tuple(strides), len(strides), 0, entries
    before = adv[0]
    after = len(entries) - adv[-1] - 1
    src_strides = tuple(strides[:before]) + (0,) * len(plan.bshape) + \
        tuple(strides[adv[-1] + 1:])
    return src_strides, before, after, entries


def _meta_index_output_strides(self, plan) -> tuple:
    """torch's meta function orders the dims by the restrided ``self`` alone (not the
    index tensors), counts size-0 dims as 1, and is contiguous for an empty ``self``."""
    result_shape = plan.result_shape
    if not numel_of(self._sizes):
        return contiguous_strides(result_shape)
    src_strides = _restrided_self(self, plan)[0]
    if compute_is_contiguous(result_shape, src_strides):
        return contiguous_strides(result_shape)
    return _iterator_strides(result_shape, [(result_shape, src_strides)], False)


def _index_output_strides(self, plan) -> tuple:
    """Note [Output strides of index]."""
    result_shape = plan.result_shape
    if _plain_layout(self, plan) or not _has_defined(plan):
        return contiguous_strides(result_shape)
    src_strides, before, after, entries = _restrided_self(self, plan)
    bshape = plan.bshape
    nb = len(bshape)
    operands = [(result_shape, src_strides)]
    # each index tensor: expanded to bshape, then reshaped with 1s for the kept dims
    isz = (1,) * before + bshape + (1,) * after
    for e in entries:
        if e is None:
            continue
        # a mask's entries are columns of nonzero()'s (n, k) result, whose strides are (1, n)
        sizes, st = ((e.tensor._sizes, e.tensor._strides) if e.kind == "int"
                     else (e.shape, (1,)))
        off = nb - len(sizes)
        expanded = tuple(0 if i < off or sizes[i - off] != bshape[i] else st[i - off]
                         for i in range(nb))
        if e.kind == "int" and e.tensor._dtype is dt.int32:
            expanded = preserved_strides(bshape, expanded)   # torch converts it to int64
        ist = compute_view_strides(bshape, expanded, isz)
        operands.append((isz, ist if ist is not None else contiguous_strides(isz)))
    if isz == result_shape:
        # TensorIterator's fast setup: inputs of the output's shape that are all contiguous
        # (an empty tensor always is) give a contiguous output
        if all(compute_is_contiguous(sz, st) for sz, st in operands):
            return contiguous_strides(result_shape)
    return _iterator_strides(result_shape, operands)


def _alloc_index_result(self, plan):
    shape = plan.result_shape
    if len(shape) <= 1:
        strides = contiguous_strides(shape)
    elif self._device.type == "meta":
        strides = _meta_index_output_strides(self, plan)
    else:
        strides = _index_output_strides(self, plan)
    if strides == contiguous_strides(shape):
        return _empty(shape, self._dtype, self._device)
    return new_strided(shape, strides, self._dtype, self._device)


def _single_int_index(plan):
    """(dim, entry) when the plan indexes exactly one dimension with an integer tensor."""
    found = None
    for d, e in enumerate(plan.entries):
        if e is not None:
            if found is not None or e.kind != "int":
                return None
            found = (d, e)
    return found


def _full_mask(self, plan):
    """The mask when the plan is a single bool mask covering every dim of ``self``."""
    e = plan.entries[0] if plan.entries else None
    if e is None or e.kind != "mask" or e.tensor._sizes != self._sizes:
        return None
    return e.tensor


def _index_gather_into(out_arr, self, plan):
    """Fill ``out_arr`` (the result's NumPy view) with ``self[indices]``."""
    arr = self._array()
    single = _single_int_index(plan)
    if single is not None:
        d, e = single
        idx = e.tensor._array()
        mode = "clip" if not idx.size or _minmax(idx)[0] >= 0 else "wrap"
        if out_arr.flags.c_contiguous:
            np.take(arr, idx, axis=d, out=out_arr, mode=mode)
        else:
            np.copyto(out_arr, np.take(arr, idx, axis=d, mode=mode))
        return
    mask = _full_mask(self, plan)
    if mask is not None:
        m = _mask_array(mask).reshape(-1)
        np.compress(m, arr.reshape(-1), out=out_arr)
        return
    np.copyto(out_arr, arr[_np_key(plan)])


def _has_defined(plan) -> bool:
    return any(e is not None for e in plan.entries)


def index_Tensor(self, indices):
    check_index(len(indices) > 0, "at least one index must be provided")
    ndim = len(self._sizes)
    check_index(len(indices) <= ndim, lambda: (
        f"too many indices for tensor of dimension {ndim} (got {len(indices)})"))
    out = _index_small(self, indices)
    if out is not None:
        return out
    out = _index_by_mask(self, indices)
    if out is not None:
        return out
    plan = _make_plan(self, indices)
    return _index_compute(self, plan, None)


def _index_small(self, indices):
    """The common case in a few steps: ``a[i]``, ``a[i, j]``, ``a[:, i]`` with int64 index
    tensors of one shape, adjacent, on a row-major CPU tensor (the output is then row-major
    too, Note [Output strides of index]). None when the case does not apply, or when an
    index is out of bounds (the general path then reports it)."""
    if self._device.type != "cpu" or self._strides != contiguous_strides(self._sizes):
        return None
    shape = None
    first = last = -1
    sizes = self._sizes
    key = []
    negative = False
    for d, idx in enumerate(indices):
        if idx is None:
            key.append(_ALL)
            continue
        if idx._dtype is not dt.int64 or idx._device.type != "cpu" or (
                shape is not None and (idx._sizes != shape or last != d - 1)):
            return None
        if shape is None:
            shape = idx._sizes
            if idx._strides != contiguous_strides(shape):
                return None
            first = d
        elif idx._strides != contiguous_strides(shape):
            return None
        last = d
        arr = idx._array()
        if arr.size:
            lo, hi = _minmax(arr)
            if lo < -sizes[d] or hi >= sizes[d]:
                return None
            negative = negative or lo < 0
        key.append(arr)
    if shape is None:
        return None
    result_shape = sizes[:first] + shape + sizes[last + 1:]
    out = _empty(result_shape, self._dtype, self._device)
    if numel_of(result_shape):
        if first == last:
            np.take(self._array(), key[first], axis=first, out=out._array(),
                    mode="wrap" if negative else "clip")
        else:
            np.copyto(out._array(), self._array()[tuple(key)])
    return out


_ALL = slice(None)


def _index_by_mask(self, indices):
    """``a[mask]`` with one bool mask over the leading dims of a row-major CPU tensor: the
    selected rows, in order, by ``np.compress``. None when the case does not apply (the
    general path then also produces the shape errors)."""
    if len(indices) != 1 or self._device.type != "cpu":
        return None
    mask = indices[0]
    if mask is None or mask._dtype is not dt.bool_ or mask._device.type != "cpu":
        return None
    k = len(mask._sizes)
    sizes = self._sizes
    if k == 0 or mask._sizes != sizes[:k] or self._strides != contiguous_strides(sizes):
        return None
    flat_mask = mask._array().reshape(-1)
    n = int(np.count_nonzero(flat_mask))
    rest = sizes[k:]
    out = _empty((n,) + rest, self._dtype, self._device)
    if n:
        rows = numel_of(sizes[:k])
        np.compress(flat_mask, self._array().reshape(rows, -1), axis=0,
                    out=out._array().reshape(n, -1))
    return out


def index_Tensor_out(self, indices, out):
    ndim = len(self._sizes)
    check_index(len(indices) <= ndim, lambda: (
        f"too many indices for tensor of dimension {ndim} (got {len(indices)})"))
    check(self._dtype is out._dtype, lambda: (
        f"index_out: self ({self._dtype._scalar_name}) and result "
        f"({out._dtype._scalar_name}) must have the same scalar type"))
    assert_no_internal_overlap(out)
    _assert_no_overlap(out, self)
    for idx in indices:
        _assert_no_overlap(out, idx)
    plan = _make_plan(self, indices)
    return _index_compute(self, plan, out)


def _index_compute(self, plan, out):
    if out is None:
        out = _alloc_index_result(self, plan)
    else:
        resize_output(out, plan.result_shape)
    if _is_meta(self, out) or not numel_of(plan.result_shape):
        return out
    if not _has_defined(plan):
        raise RuntimeError(_NO_INDEX_MSG)
    _check_index_bounds(self, plan)
    _index_gather_into(out._array(), self, plan)
    return out


# ------------------------------------------------------------------------- index_put_

def _masked_fill_dispatch(self, indices, values):
    """torch's ``canDispatchToMaskedFill``: one mask (and Nones) with a one-element value
    becomes ``masked_fill_``. Returns (taken, mask_or_None, trailing_dims_to_add)."""
    if numel_of(values._sizes) != 1 or values._device.type != "cpu":
        return False, None, 0
    num_ind = 0
    mask = None
    for index in indices:
        if index is None:
            num_ind += 1
            continue
        if index._dtype not in (dt.bool_, dt.uint8) or index._device != self._device or \
                mask is not None:
            return False, None, 0
        mask = index
        for j in range(len(index._sizes)):
            _mask_size_check(self, index, j, num_ind + j)
        num_ind += len(index._sizes)
    return True, mask, len(self._sizes) - num_ind


def index_put_(self, indices, values, accumulate=False):
    ndim = len(self._sizes)
    check_index(len(indices) <= ndim, lambda: (
        f"too many indices for tensor of dimension {ndim} (got {len(indices)})"))
    if not _is_meta(self):   # torch's meta kernel for index_put_ checks nothing more
        _index_put_impl(self, indices, values, accumulate)
    _bump(self)
    return self


def _index_put_impl(self, indices, values, accumulate):
    if _is_expanded(self):
        warnings.warn(
            "Use of index_put_ on expanded tensors is deprecated. Please clone() the tensor "
            "before performing this operation. This also applies to advanced indexing e.g. "
            "tensor[indices] = tensor", UserWarning, stacklevel=3)
    if not accumulate:
        taken, mask, extra = _masked_fill_dispatch(self, indices, values)
        if taken:
            if mask is None:
                if extra > 0:
                    raise RuntimeError("sym_strides() called on an undefined Tensor")
                raise RuntimeError("masked_fill_ only supports boolean masks, but got mask "
                                   "with dtype nullptr (uninitialized)")
            if extra:
                mask = _view(mask, mask._sizes + (1,) * extra,
                             mask._strides + (1,) * extra, mask._offset)
            _masked_fill_inplace(self, mask, _item(values))
            return
    _assert_no_overlap(self, values)
    for idx in indices:
        _assert_no_overlap(self, idx)
    plan = _make_plan(self, indices)
    vshape = values._sizes
    check(_expandable(vshape, plan.result_shape), lambda: (
        f"shape mismatch: value tensor of shape {_shape_str(vshape)} cannot be broadcast to "
        f"indexing result of shape {_shape_str(plan.result_shape)}"))
    check(values._dtype is self._dtype, lambda: (
        f"Index put requires the source and destination dtypes match, got "
        f"{self._dtype._scalar_name} for the destination and {values._dtype._scalar_name} "
        f"for the source."))
    if not numel_of(plan.result_shape):
        return
    if not _has_defined(plan):
        raise RuntimeError(_NO_INDEX_MSG)
    _check_index_bounds(self, plan)
    vals = values._array()
    if accumulate:
        _ufunc_at(self, np.add, _np_key(plan), vals)
    else:
        self._array()[_np_key(plan)] = vals     # duplicates: the last write wins


def index_put(self, indices, values, accumulate=False):
    return index_put_(_clone_preserve(self), indices, values, accumulate)


# ------------------------------------------------------------------- index_select

def _check_index_select(self, dim, index):
    dim = maybe_wrap_dim(dim, len(self._sizes))   # torch wraps the dim first
    check_index(len(index._sizes) <= 1, "index_select(): Index is supposed to be a vector")
    check(index._dtype in _INDEX_DTYPES,
          "index_select(): Expected dtype int32 or int64 for index")
    if not self._sizes:
        check(numel_of(index._sizes) == 1, lambda: (
            f"index_select(): Index to scalar can have only 1 value, got "
            f"{numel_of(index._sizes)} value(s)"))
    return dim


def _index_select_shape(self, dim, index):
    if not self._sizes:
        return ()
    n = numel_of(index._sizes)
    return self._sizes[:dim] + (n,) + self._sizes[dim + 1:]


def _index_select_bounds(self, dim, idx):
    if not idx.size:
        return
    sizes = self._sizes
    size = sizes[dim] if sizes else 1
    lo, hi = int(idx.min()), int(idx.max())
    if 0 <= lo and hi < size:
        return
    if len(sizes) > 1:
        if numel_of(sizes) == 0:
            check(size > 0, "index_select(): self indexing axis dim should be positive")
        elif dim == 0:
            raise IndexError("index out of range in self")
        bad = idx[(idx < 0) | (idx >= size)][0]
        raise RuntimeError(f"INDICES element is out of DATA bounds, id={int(bad)} "
                           f"axis_dim={size}")
    raise IndexError("index out of range in self")


def _index_select_into(out, self, dim, index):
    if _is_meta(self, out, index):
        return out
    idx = index._array().reshape(-1)
    if len(self._sizes) > 1 and not idx.size:
        return out
    _index_select_bounds(self, dim, idx)
    if not numel_of(out._sizes):
        return out
    arr = self._array()
    if not self._sizes:
        np.copyto(out._array(), arr)
        return out
    out_arr = out._array()
    if out_arr.flags.c_contiguous:
        np.take(arr, idx, axis=dim, out=out_arr, mode="clip")
    else:
        np.copyto(out_arr, np.take(arr, idx, axis=dim, mode="clip"))
    return out


def index_select(self, dim, index):
    dim = _check_index_select(self, dim, index)
    out = _empty(_index_select_shape(self, dim, index), self._dtype, self._device)
    return _index_select_into(out, self, dim, index)


def index_select_out(self, dim, index, out):
    dim = _check_index_select(self, dim, index)
    check(out._dtype is self._dtype,
          "index_select(): self and result must have the same scalar type")
    _prepare_out(out, _index_select_shape(self, dim, index), self, index)
    return _index_select_into(out, self, dim, index)


# ---------------------------------------------------- index_add / index_copy / index_reduce

def _index_func_checks(name, self, dim, index, source):
    """The checks torch's index_add / index_reduce share (``index_func_meta_impl``)."""
    ndim = len(self._sizes)
    dim = maybe_wrap_dim(dim, ndim)
    numel = numel_of(index._sizes)
    check_index(len(index._sizes) <= 1, lambda: (
        f"{name}(): Index is supposed to be a vector, but got dim: {len(index._sizes)} with "
        f"type: {index._dtype._scalar_name} and size: {_shape_str(index._sizes)}"))
    check(index._dtype in _INDEX_DTYPES, lambda: (
        f"{name}(): Expected dtype int32/int64 for index but got: "
        f"{index._dtype._scalar_name}"))
    check(self._dtype is source._dtype, lambda: (
        f"{name}(): self ({self._dtype._scalar_name}) and source "
        f"({source._dtype._scalar_name}) must have the same scalar type"))
    src_dim_size = _nonempty_size(source, dim)
    check(numel == src_dim_size, lambda: (
        f"{name}(): Number of indices ({numel}) should be equal to source.size(dim): "
        f"({src_dim_size}), for dim: {dim}"))
    ok = len(source._sizes) == ndim and all(
        self._sizes[d] == source._sizes[d] for d in range(ndim) if d != dim)
    check(ok, lambda: (
        f"source tensor shape must match self tensor shape, excluding the specified "
        f"dimension. Got self.shape = {_shape_str(self._sizes)} source.shape = "
        f"{_shape_str(source._sizes)}"))
    return dim


def _index_func_bounds(self, dim, idx, fast=True):
    """``fast``: torch's index_add takes its index_put_ path (whose message names the bad
    index) only along the first or last dim, with an int64 index and alpha 1; otherwise its
    loop raises "index out of range in self"."""
    if not idx.size:
        return
    size = self._sizes[dim] if self._sizes else 1
    bad = (idx < 0) | (idx >= size)
    if bad.any():
        check_index(len(self._sizes) > 1 and fast, "index out of range in self")
        v = int(idx[np.argmax(bad)])
        raise RuntimeError(f"index {v} is out of bounds for dimension {dim} with size {size}")


def _slices_view(arr, dim):
    """``arr`` with ``dim`` moved to the front (a 0-dim tensor counts as one slice)."""
    if arr.ndim == 0:
        return arr.reshape(1)
    return _moved(arr, dim)


@_np_quiet
def _index_add_into(out, dim, index, source, alpha):
    if _is_meta(out, index, source):
        return out
    idx = _index_np(index).reshape(-1)
    _index_func_bounds(out, dim, idx, fast=dim in (0, len(out._sizes) - 1) and
                       index._dtype is dt.int64 and alpha == 1 and alpha is not True)
    if not idx.size or not numel_of(out._sizes):
        return out
    src = source._array()
    if out._dtype is dt.complex32:    # Note [complex32]: round(alpha * src), then the adds
        if alpha != 1:
            src = _c32.narrow(_c32.widen(src) * _c32.scalar(alpha))
        offs = _element_offsets(out).reshape(out._sizes or (1,))
        sel = [slice(None)] * offs.ndim
        sel[dim] = idx
        offs = offs[tuple(sel)]
        _c32.ufunc_at(np.add, _flat_strided(out), offs,
                      np.reshape(_c32.numeric(src), offs.shape))
        return out
    if alpha != 1:
        a = _scalar_for(alpha, out._dtype) if out._dtype is not dt.bool_ else bool(alpha)
        src = (src * np.asarray(a, out._dtype.np)).astype(out._dtype.np, copy=False)
    dst = out._array()
    if dst.ndim <= 1:
        np.add.at(dst.reshape(-1) if dst.ndim == 0 else dst, idx, src.reshape(-1))
        return out
    offsets = _dim_offsets(out, dim, idx)
    vals = _moved(src, dim)
    np.add.at(_flat_strided(out), offsets.reshape(-1), np.ascontiguousarray(vals).reshape(-1))
    return out




def index_add_(self, dim, index, source, alpha=1):
    dim = _index_func_checks("index_add_", self, dim, index, source)
    assert_no_internal_overlap(self)
    _assert_no_overlap(self, index)
    _index_add_into(self, dim, index, source, alpha)
    _bump(self)
    return self


def index_add(self, dim, index, source, alpha=1):
    dim = _index_func_checks("index_add_", self, dim, index, source)
    out = _clone_contiguous(self)
    return _index_add_into(out, dim, index, source, alpha)


def index_add_out(self, dim, index, source, alpha, out):
    dim = _index_func_checks("index_add_", self, dim, index, source)
    _check_out_dtype(out, self._dtype)
    _prepare_out(out, self._sizes, index, source)
    _copy_into(out, self)
    return _index_add_into(out, dim, index, source, alpha)


def _check_out_dtype(out, dtype):
    check(out._dtype is dtype, lambda: (
        f"Expected out tensor to have dtype {_c_name(dtype)}, but got {_c_name(out._dtype)} "
        f"instead"))


def _c_name(dtype) -> str:
    return _TYPEMETA_NAMES[dtype.name]


def _prepare_out(out, shape, *inputs):
    """An ``out=`` tensor's checks, in torch's order: no internal overlap, no overlap with
    each input, then resized to ``shape``."""
    assert_no_internal_overlap(out)
    for t in inputs:
        _assert_no_overlap(out, t)
    resize_output(out, shape)


def _copy_into(out, src):
    if out is src or _is_meta(out, src) or not numel_of(out._sizes):
        return
    np.copyto(out._array(), src._array(), casting="unsafe")


# -- index_copy

def _index_copy_checks(self, dim, index, source):
    ndim = len(self._sizes)
    dim = maybe_wrap_dim(dim, ndim)
    check_index(len(index._sizes) < 2, lambda: (
        f"index_copy_(): Index should have dimension 1 or 0 (got {len(index._sizes)})"))
    numel = numel_of(index._sizes)
    sdim = len(source._sizes)
    if sdim == 0:
        check_index(numel == 1, lambda: (
            f"index_copy_(): When source is scalar, index should have one element (got "
            f"{numel})"))
    elif sdim != ndim and ndim != 0:
        raise IndexError(
            f"index_copy_(): When source and destination are not scalars, their "
            f"dimensionality must match. Source dimensionality ({sdim}), "
            f"destination dimensionality ({ndim})")
    check(index._dtype is dt.int64, lambda: (
        f"index_copy_(): Expected a long tensor for index, but got "
        f"{index._dtype._scalar_name}"))
    check(self._dtype is source._dtype, lambda: (
        f"index_copy_(): self and source expected to have the same dtype, but got (self) "
        f"{self._dtype._scalar_name} and (source) {source._dtype._scalar_name}"))
    self_slice = _sliced(self._sizes, dim)
    src_slice = _sliced(source._sizes, dim)
    check(self_slice == src_slice, lambda: (
        f"index_copy_(): Source/destination tensor must have same slice shapes. "
        f"Destination slice shape: {' '.join(map(str, self_slice))} at dimension {dim} and "
        f"source slice shape: {' '.join(map(str, src_slice))} at dimension 0."))
    if sdim:
        check_index(numel == source._sizes[dim], lambda: (
            f"index_copy_(): Number of indices ({numel}) should be equal to "
            f"source.size(dim) ({source._sizes[dim]})"))
    return dim


def _sliced(sizes, dim):
    return tuple(s for i, s in enumerate(sizes) if i != dim)


def _index_copy_into(out, dim, index, source):
    if _is_meta(out, index, source):
        return out
    idx = _index_np(index).reshape(-1)
    size = out._sizes[dim] if out._sizes else 1
    bad = (idx < 0) | (idx >= size)
    if idx.size and bad.any():
        v = int(idx[np.argmax(bad)])
        raise IndexError(f"index_copy_(): index {v} is out of bounds for dimension {dim} "
                         f"with size {size}")
    if not idx.size or not numel_of(out._sizes):
        return out
    dst = _slices_view(out._array(), dim)
    src = _slices_view(source._array(), dim)
    dst[idx] = src
    return out


def index_copy_(self, dim, index, source):
    dim = _index_copy_checks(self, dim, index, source)
    assert_no_internal_overlap(self)
    _assert_no_overlap(self, index)
    _assert_no_overlap(self, source)
    _index_copy_into(self, dim, index, source)
    _bump(self)
    return self


def index_copy(self, dim, index, source):
    dim = _index_copy_checks(self, dim, index, source)
    out = _clone_contiguous(self)
    return _index_copy_into(out, dim, index, source)


def index_copy_out(self, dim, index, source, out):
    dim = _index_copy_checks(self, dim, index, source)
    _check_out_dtype(out, self._dtype)
    _prepare_out(out, self._sizes, index, source)
    _copy_into(out, self)
    return _index_copy_into(out, dim, index, source)


# -- index_fill

def _index_fill_checks(self, dim, index):
    ndim = len(self._sizes)
    dim = maybe_wrap_dim(dim, ndim)
    check_index(index._dtype is dt.int64, "index_fill_(): Expected dtype int64 for index.")
    check(len(index._sizes) <= 1, "Index has to be a vector/scalar")
    return dim


def _index_fill_into(self, dim, index, value):
    """``value`` is an already-converted Python scalar."""
    if _is_meta(self, index):
        return self
    idx = _index_np(index).reshape(-1)
    size = self._sizes[dim] if self._sizes else 1
    if idx.size:
        bad = (idx < -size) | (idx >= size)
        if bad.any():
            v = int(idx[np.argmax(bad)])
            raise IndexError(f"index {v} is out of bounds for dimension {dim} with size "
                             f"{size}")
    if not idx.size or not numel_of(self._sizes):
        return self
    dst = _slices_view(self._array(), dim)
    dst[idx] = value
    return self


def _index_fill_value_tensor(value):
    check(not value._sizes, lambda: (
        f"index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
        f"{len(value._sizes)} dimension(s)."))
    return _item(value) if not _is_meta(value) else 0


def index_fill__int_Scalar(self, dim, index, value):
    dim = _index_fill_checks(self, dim, index)
    check(not isinstance(value, complex) or self._dtype.is_complex,
          "index_fill_(): Converting complex Scalar to non-complex type is not supported")
    if _is_expanded(self):
        warnings.warn(
            "Use of index_fill_ on expanded tensors is deprecated. Please clone() the tensor "
            "before performing this operation. This also applies to advanced indexing e.g. "
            "tensor[mask] = scalar", UserWarning, stacklevel=3)
    _assert_no_overlap(self, index)
    v = _scalar_for(value, self._dtype)
    _index_fill_into(self, dim, index, v)
    _bump(self)
    return self


def index_fill__int_Tensor(self, dim, index, value):
    v = _index_fill_value_tensor(value)
    return index_fill__int_Scalar(self, dim, index, v)


def index_fill_int_Scalar(self, dim, index, value):
    out = _clone_preserve(self)
    return index_fill__int_Scalar(out, dim, index, value)


def index_fill_int_Tensor(self, dim, index, value):
    out = _clone_preserve(self)
    return index_fill__int_Tensor(out, dim, index, value)


# -- index_reduce

_INDEX_REDUCE_MODES = ("prod", "mean", "amax", "amin")


def _index_reduce_checks(self, dim, index, source, reduce):
    dim = _index_func_checks("index_reduce_", self, dim, index, source)
    check(reduce in _INDEX_REDUCE_MODES, lambda: (
        f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got "
        f"{reduce}."))
    return dim


def _index_reduce_warn():
    _warn_once("index_reduce() is in beta and the API may change at any time.")


def _index_reduce_into(out, dim, index, source, reduce, include_self):
    if _is_meta(out, index, source):
        return out
    idx = _index_np(index).reshape(-1)
    size = out._sizes[dim] if out._sizes else 1
    check_index(not idx.size or (idx.min() >= 0 and idx.max() < size),
                "index out of range in self")
    if not idx.size or not numel_of(out._sizes):
        return out
    dst = _slices_view(out._array(), dim)
    src = _slices_view(source._array(), dim)
    _reduce_rows(dst, idx, src, reduce, include_self)
    return out


def _identity(reduce, np_dtype):
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    if np_dtype.kind == "f" or np_dtype.kind == "V" or str(np_dtype) == "bfloat16":
        return -np.inf if reduce == "amax" else np.inf
    if np_dtype.kind == "b":
        return reduce == "amin"
    info = np.iinfo(np_dtype)
    return info.min if reduce == "amax" else info.max


_UFUNCS = {"sum": np.add, "mean": np.add, "prod": np.multiply, "amax": np.maximum,
           "amin": np.minimum}


@_np_quiet
def _reduce_rows(dst, idx, src, reduce, include_self):
    """Reduce the rows ``src[i]`` into ``dst[idx[i]]`` (dst/src have the reduced dim first)."""
    ufunc = _UFUNCS[reduce]
    if not include_self:
        dst[idx] = _identity(reduce, dst.dtype)
    if dst.ndim == 1:
        ufunc.at(dst, idx, src)
    else:
        key = (idx,) + (slice(None),) * (dst.ndim - 1)
        ufunc.at(dst, key, src)
    if reduce == "mean":
        counts = np.bincount(idx, minlength=dst.shape[0])
        if include_self:
            counts = counts + 1
        counts = np.maximum(counts, 1).reshape((-1,) + (1,) * (dst.ndim - 1))
        _divide_counts(dst, counts)


def _divide_counts(dst, counts):
    if dst.dtype.kind in "iub":
        np.floor_divide(dst, counts.astype(dst.dtype), out=dst, casting="unsafe")
    else:
        res = dst / counts.astype(dst.dtype)
        np.copyto(dst, res, casting="unsafe")


def index_reduce_(self, dim, index, source, reduce, include_self=True):
    dim = _index_reduce_checks(self, dim, index, source, reduce)
    _index_reduce_warn()
    assert_no_internal_overlap(self)
    _index_reduce_into(self, dim, index, source, reduce, include_self)
    _bump(self)
    return self


def index_reduce(self, dim, index, source, reduce, include_self=True):
    dim = _index_reduce_checks(self, dim, index, source, reduce)
    _index_reduce_warn()
    out = _clone_contiguous(self)
    return _index_reduce_into(out, dim, index, source, reduce, include_self)


def index_reduce_out(self, dim, index, source, reduce, include_self, out):
    dim = _index_reduce_checks(self, dim, index, source, reduce)
    _index_reduce_warn()
    _check_out_dtype(out, self._dtype)
    resize_output(out, self._sizes)
    _copy_into(out, self)
    return _index_reduce_into(out, dim, index, source, reduce, include_self)


# ------------------------------------------------------------------ gather / scatter

def _nonempty_size(t, d) -> int:
    """``ensure_nonempty_size``: a 0-dim tensor has size 1 along dim 0; otherwise the size
    of dim ``d`` (torch's IndexError when ``d`` is past the last dim)."""
    if not t._sizes:
        return 1
    return t._sizes[maybe_wrap_dim(d, len(t._sizes))]


def _check_gather_index_dtype(name, index):
    if numel_of(index._sizes):
        check(index._dtype in _INDEX_DTYPES, f"{name}(): Expected dtype int32/int64 for index")


def _gather_shape_check(self, dim, index):
    ndim = max(len(self._sizes), 1)
    check(ndim == max(len(index._sizes), 1),
          "Index tensor must have the same number of dimensions as input tensor")
    for d in range(ndim):
        if d != dim and _nonempty_size(index, d) > _nonempty_size(self, d):
            raise RuntimeError(
                f"Size does not match at dimension {d} expected index "
                f"{_shape_str(index._sizes)} to be no larger than self "
                f"{_shape_str(self._sizes)} apart from dimension {dim}")


def _scatter_shape_check(self, dim, index, src=None):
    if not numel_of(index._sizes):
        return
    ndim = max(len(self._sizes), 1)
    check(ndim == max(len(index._sizes), 1),
          "Index tensor must have the same number of dimensions as self tensor")
    wrong = any(d != dim and _nonempty_size(index, d) > _nonempty_size(self, d)
                for d in range(ndim))
    if not wrong and src is not None:
        for d in range(ndim):
            if _nonempty_size(index, d) > _nonempty_size(src, d):
                wrong = True
                break
    if src is not None:
        check(max(len(src._sizes), 1) == max(len(index._sizes), 1),
              "Index tensor must have the same number of dimensions as src tensor")
    check(not wrong, lambda: (
        f"Expected index {_shape_str(index._sizes)} to be no larger than self "
        f"{_shape_str(self._sizes)} apart from dimension {dim}"
        + (f" and to be no larger size than src {_shape_str(src._sizes)}"
           if src is not None else "")))


def _gather_checks(self, dim, index):
    dim = maybe_wrap_dim(dim, len(self._sizes))
    _check_gather_index_dtype("gather", index)
    if numel_of(index._sizes):
        _gather_shape_check(self, dim, index)
    return dim




def _along_offsets(t, idx, dim):
    """Storage offsets (in elements) of ``t[i][j][idx[i][j][k]]`` (dim 2) for every position of
    ``idx``, which has ``t``'s rank (Note [Fast paths])."""
    sizes = t._sizes or (1,)
    strides = t._strides or (1,)
    ndim = len(sizes)
    base = np.int64(t._offset)
    for d in range(ndim):
        if d != dim and idx.shape[d] > 1 and strides[d]:
            shape = [1] * ndim
            shape[d] = idx.shape[d]
            base = base + (np.arange(idx.shape[d], dtype=np.int64) * strides[d]).reshape(shape)
    step = strides[dim]
    scaled = idx if step == 1 else idx * np.int64(step)
    return np.add(scaled, base, dtype=np.int64)


def _along_bounds(idx, size, dim, name):
    if not idx.size:
        return
    lo, hi = _minmax(idx)
    if lo < 0 or hi >= size:
        bad = (idx < 0) | (idx >= size)
        if bad.any():
            v = int(idx.reshape(-1)[np.argmax(bad.reshape(-1))])
            raise RuntimeError(f"index {v} is out of bounds for dimension {dim} with size "
                               f"{size}")


def _gather_into(out, self, dim, index):
    if _is_meta(out, self, index) or not numel_of(index._sizes):
        return out
    arr, idx = _along_arrays(self, index)
    _along_bounds(idx, arr.shape[dim], dim, "gather")
    offsets = _along_offsets(self, idx, dim)
    out_arr = out._array()
    flat = _flat_strided(self)
    if out_arr.flags.c_contiguous:
        np.take(flat, offsets.reshape(out_arr.shape), out=out_arr, mode="clip")
    else:
        np.copyto(out_arr, np.take(flat, offsets).reshape(out_arr.shape))
    return out


def gather(self, dim, index, sparse_grad=False):
    dim = _gather_checks(self, dim, index)
    out = _empty(index._sizes, self._dtype, self._device)
    return _gather_into(out, self, dim, index)


def gather_out(self, dim, index, sparse_grad, out):
    dim = _gather_checks(self, dim, index)
    _check_out_dtype(out, self._dtype)
    _prepare_out(out, index._sizes, self, index)
    assert_no_internal_overlap(out)          # torch's gather impl, after the resize
    _assert_no_overlap(out, self)
    assert_no_partial_overlap(out, index)
    return _gather_into(out, self, dim, index)


_SCATTER_REDUCES = {"add": "sum", "multiply": "prod"}


def _scatter_checks(self, dim, index, src, reduce=None):
    dim = maybe_wrap_dim(dim, len(self._sizes))
    _check_gather_index_dtype("scatter", index)
    if src is not None:
        check(self._dtype is src._dtype, "scatter(): Expected self.dtype to be equal to "
                                         "src.dtype")
    _scatter_shape_check(self, dim, index, src)
    if reduce is not None:
        check(reduce in _SCATTER_REDUCES, "reduce argument must be either add or multiply.")
    return dim


def _along_arrays(t, index):
    """``t``'s array and the index values with 0-dim ones made 1-D (torch treats a 0-dim
    tensor as one element along dim 0 in gather/scatter)."""
    arr = t._array()
    if arr.ndim == 0:
        arr = arr.reshape(1)
    idx = _index_np(index)
    if idx.ndim == 0:
        idx = idx.reshape((1,) * arr.ndim)
    return arr, idx


def _src_along(src, idx):
    """The part of ``src`` that scatter consumes: the leading ``idx.shape`` block."""
    s = src._array()
    if s.ndim == 0:
        s = s.reshape((1,) * idx.ndim)
    return s[tuple(slice(0, n) for n in idx.shape)]


def _scatter_key(idx, dim):
    """The NumPy key that sends ``src[i][j][k]`` to ``self[idx[i][j][k]][j][k]`` (dim 0)."""
    key = []
    for d in range(idx.ndim):
        if d == dim:
            key.append(idx)
        else:
            shape = [1] * idx.ndim
            shape[d] = idx.shape[d]
            key.append(np.arange(idx.shape[d]).reshape(shape))
    return tuple(key)


@_np_quiet
def _scatter_into(out, dim, index, src, value, reduce):
    """``src`` is a tensor or None (then ``value``, an already-converted scalar, is used).
    ``reduce`` is None (assignment) or a scatter_reduce mode name."""
    if _is_meta(out, index, src) or not numel_of(index._sizes):
        return out
    arr, idx = _along_arrays(out, index)
    _along_bounds(idx, arr.shape[dim], dim, "scatter")
    if src is not None:
        vals = _src_along(src, idx)
    else:
        vals = np.asarray(value, out._dtype.np)
    offsets = _along_offsets(out, idx, dim).reshape(-1)
    vals = np.broadcast_to(vals, idx.shape).reshape(-1)
    flat = _flat_strided(out)
    if reduce is None:
        flat[offsets] = vals          # duplicates: the last one wins, as in torch's loop
    else:
        _UFUNCS[reduce].at(flat, offsets, vals)
    return out


def _reduce_warning():
    _warn_once(
        "The reduce argument of torch.scatter with Tensor src is deprecated and will be removed "
        "in a future PyTorch release. Use torch.scatter_reduce instead for more reduction "
        "options.")


def _scatter_inplace(self, dim, index, src, value, reduce):
    assert_no_internal_overlap(self)
    _assert_no_overlap(self, index)
    if src is not None:
        _assert_no_overlap(self, src)
    _scatter_into(self, dim, index, src, value, reduce)
    _bump(self)
    return self


def _scatter_new(self, dim, index, src, value, reduce, out=None):
    if out is None:
        out = _clone_contiguous(self)
    else:
        _check_out_dtype(out, self._dtype)
        resize_output(out, self._sizes)
        _copy_into(out, self)
    return _scatter_into(out, dim, index, src, value, reduce)


def _scatter_kernel(name: str, takes_value: bool, takes_reduce: bool, write: str):
    """One ``scatter`` overload: the source is a tensor or a scalar ``value``, with or
    without the deprecated ``reduce=`` string, written in place, to a new tensor or to
    ``out``. The dispatcher passes the schema's arguments positionally."""
    def kernel(self, dim, index, source, *rest):
        reduce = rest[0] if takes_reduce else None
        out = rest[-1] if write == "out" else None
        src = None if takes_value else source
        dim = _scatter_checks(self, dim, index, src, reduce)
        if takes_reduce and not takes_value:
            _reduce_warning()
        value = _scalar_for(source, self._dtype) if takes_value else None
        mode = _SCATTER_REDUCES[reduce] if takes_reduce else None
        if write == "inplace":
            return _scatter_inplace(self, dim, index, src, value, mode)
        return _scatter_new(self, dim, index, src, value, mode, out)
    kernel.__name__ = kernel.__qualname__ = name
    return kernel


# (kernel name, source is a scalar value, takes reduce=, where the result goes)
for _name, _value, _reduce, _write in [
    ("scatter__src", False, False, "inplace"), ("scatter__value", True, False, "inplace"),
    ("scatter__reduce", False, True, "inplace"),
    ("scatter__value_reduce", True, True, "inplace"),
    ("scatter_src", False, False, "new"), ("scatter_value", True, False, "new"),
    ("scatter_reduce", False, True, "new"), ("scatter_value_reduce", True, True, "new"),
    ("scatter_src_out", False, False, "out"), ("scatter_value_out", True, False, "out"),
    ("scatter_reduce_out", False, True, "out"), ("scatter_value_reduce_out", True, True, "out"),
]:
    globals()[_name] = _scatter_kernel(_name, _value, _reduce, _write)
del _name, _value, _reduce, _write


# -- scatter_add

def scatter_add_(self, dim, index, src):
    dim = _scatter_checks(self, dim, index, src)
    return _scatter_inplace(self, dim, index, src, None, "sum")


def scatter_add(self, dim, index, src):
    dim = _scatter_checks(self, dim, index, src)
    return _scatter_new(self, dim, index, src, None, "sum")


def scatter_add_out(self, dim, index, src, out):
    dim = _scatter_checks(self, dim, index, src)
    return _scatter_new(self, dim, index, src, None, "sum", out)


# -- scatter_reduce.two

# torch also takes the legacy names "max" and "min" here
_SCATTER_REDUCE_MODES = {"sum": "sum", "prod": "prod", "mean": "mean", "amax": "amax",
                         "amin": "amin", "max": "amax", "min": "amin"}


def _scatter_reduce_two_checks(self, dim, index, src, reduce):
    check(reduce in _SCATTER_REDUCE_MODES, lambda: (
        f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}"))
    return _scatter_checks(self, dim, index, src)


@_np_quiet
def _scatter_reduce_two_into(out, dim, index, src, reduce, include_self):
    reduce = _SCATTER_REDUCE_MODES[reduce]
    if _is_meta(out, index, src) or not numel_of(index._sizes):
        return out
    arr, idx = _along_arrays(out, index)
    _along_bounds(idx, arr.shape[dim], dim, "scatter_reduce")
    vals = _src_along(src, idx).reshape(-1)
    offsets = _along_offsets(out, idx, dim).reshape(-1)
    flat = _flat_strided(out)
    if not include_self:
        flat[offsets] = _identity(reduce, arr.dtype)
    _UFUNCS[reduce].at(flat, offsets, vals)
    if reduce == "mean":
        key = _scatter_key(idx, dim)
        counts = np.zeros(arr.shape, np.int64)
        np.add.at(counts, key, 1)
        if include_self:
            counts += 1
        touched = counts > 0
        counts = np.maximum(counts, 1)
        if arr.dtype.kind in "iub":
            res = np.floor_divide(arr, counts.astype(arr.dtype))
        else:
            res = arr / counts.astype(arr.dtype)
        np.copyto(arr, res, where=touched, casting="unsafe")
    return out


def scatter_reduce__two(self, dim, index, src, reduce, include_self=True):
    dim = _scatter_reduce_two_checks(self, dim, index, src, reduce)
    assert_no_internal_overlap(self)
    _assert_no_overlap(self, index)
    _assert_no_overlap(self, src)
    _scatter_reduce_two_into(self, dim, index, src, reduce, include_self)
    _bump(self)
    return self


def scatter_reduce_two(self, dim, index, src, reduce, include_self=True):
    dim = _scatter_reduce_two_checks(self, dim, index, src, reduce)
    out = _clone_contiguous(self)
    return _scatter_reduce_two_into(out, dim, index, src, reduce, include_self)


def scatter_reduce_two_out(self, dim, index, src, reduce, include_self, out):
    dim = _scatter_reduce_two_checks(self, dim, index, src, reduce)
    _check_out_dtype(out, self._dtype)
    resize_output(out, self._sizes)
    _copy_into(out, self)
    return _scatter_reduce_two_into(out, dim, index, src, reduce, include_self)


# ------------------------------------------------------------------------ take / put

def _take_checks(self, index):
    check(index._dtype is dt.int64, lambda: (
        f"take(): Expected a long tensor for index, but got {index._dtype._scalar_name}"))


def _flat_bounds(idx, numel, exc=IndexError):
    if not idx.size:
        return
    bad = (idx < -numel) | (idx >= numel)
    if bad.any():
        v = int(idx.reshape(-1)[np.argmax(bad.reshape(-1))])
        raise exc(f"out of range: tried to access index {v} on a tensor of {numel} "
                  f"elements.")


def _take_into(out, self, index):
    if _is_meta(out, self, index) or not numel_of(index._sizes):
        return out
    numel = numel_of(self._sizes)
    check_index(numel != 0, "take(): tried to take from an empty tensor")
    idx = _index_np(index)
    _flat_bounds(idx, numel)
    arr = self._array().reshape(-1)
    mode = "clip" if idx.min() >= 0 else "wrap"
    out_arr = out._array()
    if out_arr.flags.c_contiguous:
        np.take(arr, idx, out=out_arr, mode=mode)
    else:
        np.copyto(out_arr, np.take(arr, idx, mode=mode))
    return out


def take(self, index):
    _take_checks(self, index)
    out = _empty(index._sizes, self._dtype, self._device)
    return _take_into(out, self, index)


def take_out(self, index, out):
    _take_checks(self, index)
    check(out._dtype is self._dtype, lambda: (
        f"take(): self and out expected to have the same dtype, but got self.dtype = "
        f"{self._dtype._scalar_name} and out.dtype = {out._dtype._scalar_name}"))
    _prepare_out(out, index._sizes, index, self)
    return _take_into(out, self, index)


def _flat_view_stride(t):
    """The stride of ``t.view(-1)``, or None when no such view exists (torch's
    computeStride for a 1-D target)."""
    dims = [(s, st) for s, st in zip(t._sizes, t._strides) if s != 1]
    if not dims:
        return 1
    if 0 in t._sizes:
        return 1
    for (_, st0), (s1, st1) in zip(dims, dims[1:]):
        if st0 != st1 * s1:
            return None
    return dims[-1][1]


_VIEW_ERROR = ("view size is not compatible with input tensor's size and stride (at least one "
               "dimension spans across two contiguous subspaces). Use .reshape(...) instead.")


def _flat_view(t):
    st = _flat_view_stride(t)
    check(st is not None, _VIEW_ERROR)
    n = numel_of(t._sizes)
    return _view(t, (n,), (st,), t._offset)


def _take_along_dim_prepare(self, indices, dim):
    check(indices._dtype is dt.int64, lambda: (
        f"torch.take_along_dim(): dtype of indices should be Long but got "
        f"{indices._dtype._scalar_name}"))
    if dim is None:
        return _flat_view(self), 0, _flat_view(indices)
    ndim = len(self._sizes)
    check(ndim == len(indices._sizes), lambda: (    # torch compares the ranks first
        f"torch.take_along_dim(): input and indices should have the same number of "
        f"dimensions, but got {ndim} dimensions for input, and {len(indices._sizes)} "
        f"dimensions for indices"))
    dim = maybe_wrap_dim(dim, ndim)
    check_index(ndim > 0, lambda: f"Dimension specified as {dim} but tensor has no dimensions")
    self_sizes = list(self._sizes)
    self_sizes[dim] = indices._sizes[dim]
    bshape = _broadcast([tuple(self_sizes), indices._sizes])
    if bshape is None:
        from .broadcast import broadcast_shapes
        broadcast_shapes(tuple(self_sizes), indices._sizes)
    idx_sizes = list(bshape)
    idx_sizes[dim] = indices._sizes[dim]
    self_target = list(bshape)
    self_target[dim] = self._sizes[dim]
    indices = _take_along_dim_wrap(indices, self._sizes[dim])
    return _expand(self, tuple(self_target)), dim, _expand(indices, tuple(idx_sizes))


def _take_along_dim_wrap(indices, size):
    """torch 2.13 takes the indices along ``dim`` modulo the dim's size (Python's
    remainder: -1 is the last, size + 1 the second; a size of 0 with indices raises its
    integer ZeroDivisionError); the flattened form (``dim=None``) does not."""
    if not numel_of(indices._sizes):
        return indices
    from .views import _call_op
    return _call_op("aten::remainder.Scalar", indices, size)


def _expand(t, sizes):
    if t._sizes == sizes:
        return t
    from .broadcast import expanded_strides
    return _view(t, sizes, expanded_strides(t._sizes, t._strides, sizes), t._offset)


def take_along_dim(self, indices, dim=None):
    src, d, idx = _take_along_dim_prepare(self, indices, dim)
    return gather(src, d, idx)


def take_along_dim_out(self, indices, dim, out):
    src, d, idx = _take_along_dim_prepare(self, indices, dim)
    return gather_out(src, d, idx, False, out)


# torch's take_along_dim is CompositeImplicitAutograd: it broadcasts with expand (or
# flattens with view) and calls gather, so its graph is GatherBackward0 over
# ExpandBackward0 / ViewBackward0. The CPU kernels above serve calls without autograd;
# these, registered as CompositeImplicitAutograd, serve the Autograd key and make the
# same calls through the dispatched ops, so they record torch's nodes.

def _take_along_dim_targets(self, indices, dim):
    """The wrapped dim and the sizes ``self`` and ``indices`` are expanded to (after the
    checks of ``_take_along_dim_prepare``)."""
    src, d, idx = _take_along_dim_prepare(self, indices, dim)
    return d, src._sizes, idx._sizes


def take_along_dim_autograd(self, indices, dim=None):
    from .. import ops
    aten = ops.aten
    if dim is None:
        _take_along_dim_prepare(self, indices, None)
        return aten.gather(aten.view(self, [-1]), 0, aten.view(indices, [-1]))
    d, self_sizes, idx_sizes = _take_along_dim_targets(self, indices, dim)
    indices = _take_along_dim_wrap(indices, self._sizes[d])
    return aten.gather(aten.expand(self, list(self_sizes)), d,
                       aten.expand(indices, list(idx_sizes)))


def take_along_dim_out_autograd(self, indices, dim, out):
    from .. import ops
    aten = ops.aten
    if dim is None:
        _take_along_dim_prepare(self, indices, None)
        return aten.gather.out(aten.view(self, [-1]), 0, aten.view(indices, [-1]), out=out)
    d, self_sizes, idx_sizes = _take_along_dim_targets(self, indices, dim)
    indices = _take_along_dim_wrap(indices, self._sizes[d])
    return aten.gather.out(aten.expand(self, list(self_sizes)), d,
                           aten.expand(indices, list(idx_sizes)), out=out)


def _put_checks(self, index, source):
    check(index._dtype is dt.int64, lambda: (
        f"put_(): Expected a long tensor for index, but got {index._dtype._scalar_name}"))
    check(self._dtype is source._dtype, lambda: (
        f"put_(): self and source expected to have the same dtype, but got "
        f"self.dtype = {self._dtype._scalar_name} and source.dtype = "
        f"{source._dtype._scalar_name}"))
    check_index(numel_of(source._sizes) == numel_of(index._sizes), lambda: (
        f"put_(): Expected source and index to have the same number of elements, but got "
        f"source.numel() = {numel_of(source._sizes)}, index.numel() = "
        f"{numel_of(index._sizes)}"))


@_np_quiet
def _put_into(self, index, source, accumulate):
    if _is_meta(self, index, source) or not numel_of(index._sizes):
        return self
    numel = numel_of(self._sizes)
    check_index(numel != 0, "put_(): Tried to put elements into an empty tensor")
    idx = _index_np(index).reshape(-1)
    _flat_bounds(idx, numel)
    if _minmax(idx)[0] < 0:
        idx = np.where(idx < 0, idx + numel, idx)
    vals = source._array().reshape(-1)
    # the flat (row-major) positions as offsets into the storage
    if self._strides == contiguous_strides(self._sizes):
        offsets = idx + self._offset
    else:
        coords = np.unravel_index(idx, self._sizes)
        offsets = np.full(idx.shape, self._offset, np.int64)
        for c, stride in zip(coords, self._strides):
            offsets += c * stride
    flat = _flat_strided(self)
    if accumulate:
        np.add.at(flat, offsets, vals)
    else:
        flat[offsets] = vals        # duplicates: the last write wins
    return self


def put_(self, index, source, accumulate=False):
    if not accumulate:        # duplicate indices: which write wins is unspecified in torch
        alert_not_deterministic("put_")
    _put_checks(self, index, source)
    assert_no_internal_overlap(self)
    _assert_no_overlap(self, index)
    _assert_no_overlap(self, source)
    _put_into(self, index, source, accumulate)
    _bump(self)
    return self


def put(self, index, source, accumulate=False):
    if not accumulate:
        alert_not_deterministic("put_")
    _put_checks(self, index, source)
    out = _clone_preserve(self)
    return _put_into(out, index, source, accumulate)


# ------------------------------------------------------------------------- masked ops

def _check_bool_mask(name, mask):
    check(mask._dtype is dt.bool_, lambda: (
        f"{name} only supports boolean masks, but got mask with dtype "
        f"{_TYPEMETA_NAMES[mask._dtype.name]}"))


def _mask_expanded_to(self, mask, name="masked_fill_"):
    """The mask expanded in place to ``self``'s shape (torch's ``expand_inplace``)."""
    if mask._sizes == self._sizes:
        return mask._array()
    check(_expandable(mask._sizes, self._sizes), lambda: (
        _expand_error(self._sizes, mask._sizes)))
    return np.broadcast_to(mask._array(), self._sizes)


def _expand_error(target, sizes):
    """``expand``'s message for ``sizes`` -> ``target``."""
    if len(sizes) > len(target):
        return (f"expand({_shape_str(sizes)}, size={_shape_str(target)}): the number of sizes "
                f"provided ({len(target)}) must be greater or equal to the number of "
                f"dimensions in the tensor ({len(sizes)})")
    off = len(target) - len(sizes)
    for i in reversed(range(len(sizes))):      # torch walks the dims from the last
        s = sizes[i]
        if s != 1 and s != target[off + i]:
            return (f"The expanded size of the tensor ({target[off + i]}) must match the "
                    f"existing size ({s}) at non-singleton dimension {off + i}.  Target sizes: "
                    f"{_shape_str(target)}.  Tensor sizes: {_shape_str(sizes)}")
    return "expand failed"


def _masked_fill_inplace(self, mask, value):
    _check_bool_mask("masked_fill_", mask)
    if _is_expanded(self):
        warnings.warn(
            "Use of masked_fill_ on expanded tensors is deprecated. Please clone() the tensor "
            "before performing this operation. This also applies to advanced indexing e.g. "
            "tensor[mask] = scalar", UserWarning, stacklevel=4)
    check(get_overlap_status(self, mask) != PARTIAL, _OVERLAP_MSG)
    _check_inplace_broadcast(self, mask)
    if _is_meta(self, mask):
        _bump(self)
        return self
    v = _scalar_for(value, self._dtype)
    if numel_of(self._sizes):
        m = mask._array()
        if mask._sizes != self._sizes:
            m = np.broadcast_to(m, self._sizes)
        _fill_where(self._array(), m, v)
    _bump(self)
    return self


_BLEND_MIN = 1 << 15
_UINT_OF_SIZE = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def _fill_where(arr, m, value):
    """``arr[m] = value``. Note [Branch-free masked fill]: with a random mask NumPy's masked
    loops mispredict a branch per element (17 ms for 4M floats); on the bit patterns,
    ``bits += (value_bits - bits) * m`` in wrap-around unsigned arithmetic selects without
    branches (2 ms) and is exact for every value, NaN included."""
    utype = _UINT_OF_SIZE.get(arr.dtype.itemsize)
    if arr.size < _BLEND_MIN or utype is None:
        np.copyto(arr, value, where=m, casting="unsafe")
        return
    bits = arr.view(utype)
    vbits = np.asarray(value, arr.dtype).view(utype)
    with np.errstate(all="ignore"):
        delta = np.subtract(vbits, bits)
        np.multiply(delta, m.view(np.uint8), out=delta, casting="unsafe")
        np.add(bits, delta, out=bits)


def _check_inplace_broadcast(self, other):
    """TensorIterator's rule for an in-place op: ``other`` broadcasts to ``self``'s shape."""
    if other._sizes == self._sizes:
        return
    from .broadcast import broadcast_shapes
    shape = broadcast_shapes(self._sizes, other._sizes)
    check(shape == self._sizes, lambda: (
        f"output with shape {_shape_str(self._sizes)} doesn't match the broadcast shape "
        f"{_shape_str(shape)}"))


def _masked_fill_value_tensor(value):
    check(not value._sizes, lambda: (
        f"masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
        f"{len(value._sizes)} dimension(s)."))
    return _item(value) if not _is_meta(value) else 0


def masked_fill__Scalar(self, mask, value):
    return _masked_fill_inplace(self, mask, value)


def masked_fill__Tensor(self, mask, value):
    v = _masked_fill_value_tensor(value)
    return _masked_fill_inplace(self, mask, v)


def _masked_out_of_place(self, mask):
    """torch's ``expand_outplace(self, mask)`` then a contiguous clone of self."""
    from .broadcast import broadcast_shapes
    shape = broadcast_shapes(mask._sizes, self._sizes)
    return _clone_contiguous(self, shape)


def masked_fill_Scalar(self, mask, value):
    out = _masked_out_of_place(self, mask)     # torch broadcasts before checking the mask
    _check_bool_mask("masked_fill_", mask)
    return _masked_fill_inplace(out, mask, value)


def masked_fill_Tensor(self, mask, value):
    v = _masked_fill_value_tensor(value)
    out = _masked_out_of_place(self, mask)
    _check_bool_mask("masked_fill_", mask)
    return _masked_fill_inplace(out, mask, v)


_MASKED_SELECT_META = (
    "aten::masked_select: attempted to run this operator with Meta tensors, but there was no "
    "fake impl or Meta kernel registered. You may have run into this message while using an "
    "operator with PT2 compilation APIs (torch.compile/torch.export); in order to use this "
    "operator with those APIs you'll need to add a fake impl. Please see the following for "
    "next steps:  https://pytorch.org/tutorials/advanced/custom_ops_landing_page.html")


def _masked_select_values(self, mask):
    check(mask._dtype is dt.bool_, "masked_select: expected BoolTensor for mask")
    from .broadcast import broadcast_shapes
    shape = broadcast_shapes(mask._sizes, self._sizes)
    if _is_meta(self, mask):
        raise NotImplementedError(_MASKED_SELECT_META)
    m = mask._array()
    a = self._array()
    if m.shape != shape:
        m = np.broadcast_to(m, shape)
    if a.shape != shape:
        a = np.broadcast_to(a, shape)
    m = m.reshape(-1)
    return a, m


def masked_select(self, mask):
    a, m = _masked_select_values(self, mask)
    n = int(np.count_nonzero(m))
    out = _empty((n,), self._dtype, self._device)
    if n:
        np.compress(m, a.reshape(-1), out=out._array())
    return out


def masked_select_out(self, mask, out):
    check(out._dtype is self._dtype, "masked_select(): self and result must have the same "
                                     "scalar type")
    assert_no_internal_overlap(out)
    _assert_no_overlap(out, self)
    _assert_no_overlap(out, mask)
    a, m = _masked_select_values(self, mask)
    n = int(np.count_nonzero(m))
    resize_output(out, (n,))
    if n:
        np.copyto(out._array(), np.compress(m, a.reshape(-1)))
    return out


def _masked_scatter_checks(self, mask, source):
    check(self._dtype is source._dtype, lambda: (
        f"masked_scatter: expected self and source to have same dtypes but got"
        f"{self._dtype._scalar_name} and {source._dtype._scalar_name}"))
    check(mask._dtype is dt.bool_, lambda: (
        f"masked_scatter_ only supports boolean masks, but got mask with dtype "
        f"{mask._dtype._scalar_name}"))


def masked_scatter_(self, mask, source):
    # torch's order: self's overlap, the dtypes, the mask's dtype, then the mask's shape
    assert_no_internal_overlap(self)
    _masked_scatter_checks(self, mask, source)
    if _is_meta(self, mask, source):
        if mask._sizes != self._sizes:
            check(_expandable(mask._sizes, self._sizes), lambda: (
                _expand_error(self._sizes, mask._sizes)))
        _bump(self)
        return self
    m = _mask_expanded_to(self, mask, "masked_scatter_")
    n = int(np.count_nonzero(m))
    src = source._array().reshape(-1)
    check(src.size >= n, "Number of elements of source < number of ones in mask")
    if n:
        arr = self._array()
        arr[m] = src[:n]
    _bump(self)
    return self


def masked_scatter(self, mask, source):
    out = _masked_out_of_place(self, mask)     # torch broadcasts before any check
    return masked_scatter_(out, mask, source)


# ---------------------------------------------------------------------------- nonzero

def _nonzero_coords(self):
    """(n, coordinate arrays) of the nonzero elements of ``self`` in C order."""
    arr = _c32.truth(self._array())
    if arr.ndim == 0:
        return (1 if arr.item() else 0), ()
    if arr.ndim == 1:
        flat = np.flatnonzero(arr)
        return flat.size, (flat,)
    flat = np.flatnonzero(arr)
    return flat.size, np.unravel_index(flat, arr.shape)


def _nonzero_write(out, n, coords):
    if n and coords:
        o = out._array()
        for j, c in enumerate(coords):
            o[:, j] = c


def nonzero(self):
    if _is_meta(self):
        raise NotImplementedError(_NONZERO_META_MSG)
    n, coords = _nonzero_coords(self)
    ndim = len(self._sizes)
    out = new_strided((n, ndim), (1, n), dt.int64, self._device)
    _nonzero_write(out, n, coords)
    return out


def nonzero_out(self, out):
    check(out._dtype is dt.int64, lambda: (
        f"nonzero: Expected out tensor to have scalar type Long but got scalar type"
        f"{out._dtype._scalar_name}"))
    if _is_meta(self):
        raise NotImplementedError(_NONZERO_META_MSG)
    n, coords = _nonzero_coords(self)
    ndim = len(self._sizes)
    if resize_output(out, (n, ndim)):
        # a resized out gets the layout torch's own result has: column-major
        out._strides = (1, n)
        out._invalidate()
    _nonzero_write(out, n, coords)
    return out


def nonzero_numpy(self):
    """``nonzero(as_tuple=True)``: one 1-D index tensor per dim (a 0-dim input counts as
    1-D); the tensors are columns of one ``nonzero()`` result."""
    src = self
    if not self._sizes:
        src = _view(self, (1,), (1,), self._offset)
    res = nonzero(src)
    n = res._sizes[0]
    return tuple(_view(res, (n,), (1,), j * n) for j in range(res._sizes[1]))


def argwhere(self):
    return nonzero(self)


def where_condition(condition):
    return nonzero_numpy(condition)
