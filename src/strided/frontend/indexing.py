"""``t[idx]`` and ``t[idx] = v``: the indexing front end (seed 000).

The walk mirrors torch's ``applySlicing``:

1. The Python index becomes a tuple of index items (``as_index_items``): a tuple
   stays a tuple, a short list holding slices, ``None``, ``...`` or sequences is
   read as a tuple (torch's deprecated NumPy-compatible rule), anything else is
   a single item.
2. ``apply_slicing`` walks the items over the tensor's dims (Note [Walking the
   dims]): an int or a 0-dim integer tensor selects, a slice slices, ``None``
   inserts a dim, ``...`` skips the unspecified dims, a bool inserts a dim and
   indexes it with ``[0]`` or ``[]``; a tensor or a list is recorded as an
   advanced index for its dim. Each of these is a dispatched view op, so the
   result is a view of the original.
3. If any advanced index was recorded, ``index`` (getitem) or ``index_put_``
   (setitem) runs with the recorded list; otherwise the view is the answer
   (getitem), or receives the value by ``copy_to`` (setitem): ``copy_`` for the
   same shape, ``fill_`` for a 0-dim value, else the value without its leading
   size-1 dims, expanded.

With autograd (``self`` requires grad, or is a view of a tensor that does), a scalar
value is first made a 0-dim tensor and the shortcuts for scalars are skipped, as torch
does: the graph then has torch's nodes (``IndexPutBackward0`` for ``t[mask] = 0``,
``FillBackward3`` for ``t[:] = 0``, ``CopySlices`` for ``t[0] = v``).

Note [Walking the dims]
~~~~~~~~~~~~~~~~~~~~~~~
``dim`` is the dim of the *partial result* the next item applies to. A select
removes a dim (``dim`` stays), a slice or ``None`` keeps one (``dim += 1``), an
advanced index leaves the dim for ``index`` to consume (``dim += 1``; a mask of k
dims, ``dim += k``), ``...`` jumps over ``ndim - specified`` dims. The recorded
advanced indices are aligned to the partial result's dims, with ``None`` for
dims they don't touch, which is exactly the argument ``index`` takes; a mask
fills one slot of that list but covers k dims, so a slot's position is its dim
minus the extra dims of the masks before it.
"""

from __future__ import annotations

import operator

import numpy as np

from ..core import dtypes as dt
from ..core.dispatch_keys import DispatchKey
from ..ops.dispatcher import get_op

__all__ = ["getitem", "setitem", "as_index_items", "apply_slicing"]

_op_select = get_op("aten::select.int")
_op_slice = get_op("aten::slice.Tensor")
_op_unsqueeze = get_op("aten::unsqueeze")
_op_alias = get_op("aten::alias")
_op_index = get_op("aten::index.Tensor")
_op_index_put_ = get_op("aten::index_put_")
_op_copy_ = get_op("aten::copy_")
_op_fill_ = get_op("aten::fill_.Scalar")
_op_fill_tensor_ = get_op("aten::fill_.Tensor")
_op_view = get_op("aten::view")
_op_expand = get_op("aten::expand")
_op_empty = get_op("aten::empty.memory_format")
_op_scalar_tensor = get_op("aten::scalar_tensor")
_op_masked_fill_ = get_op("aten::masked_fill_.Scalar")

_Tensor = None   # set by bind_tensor_class
_tensor_factory = None

_PY_SCALARS = (int, float, bool, complex)
_INTEGRAL = dt.INT
_AUTOGRAD_BIT = DispatchKey.Autograd.bit
# a factory called "like" a tensor gets the tensor's keys without the autograd ones: it has
# no tensor argument to record, and the autograd fallback could not find its backend
_NO_AUTOGRAD = ~(DispatchKey.Autograd.bit | DispatchKey.ADInplaceOrView.bit)


def bind(tensor_cls, tensor_factory) -> None:
    global _Tensor, _tensor_factory
    _Tensor = tensor_cls
    _tensor_factory = tensor_factory


def _from_numpy(array):
    from .tensor_new import _from_numpy as from_numpy
    return from_numpy(array)


# -- step 1: Python index -> items ---------------------------------------------------------

def _is_sequence(obj) -> bool:
    return isinstance(obj, (list, tuple, np.ndarray)) or (
        hasattr(obj, "__len__") and hasattr(obj, "__getitem__")
        and not isinstance(obj, (str, bytes, dict)) and not isinstance(obj, _Tensor))


def _sequence_is_tuple(index) -> bool:
    """torch's rule for a non-tuple sequence index (deprecated in torch, still honoured);
    an ndarray is never read as a tuple."""
    if isinstance(index, (_Tensor, np.ndarray)) or not _is_sequence(index) \
            or isinstance(index, str):
        return False
    try:
        if len(index) >= 32:
            return False
    except TypeError:
        return False
    for item in index:
        if (item is None or item is Ellipsis or isinstance(item, (slice, _Tensor))
                or _is_sequence(item)):
            return True
    return False


def as_index_items(index) -> tuple:
    if type(index) is tuple:
        return index
    if _sequence_is_tuple(index):
        import warnings
        warnings.warn(
            "Using a non-tuple sequence for multidimensional indexing is deprecated and will be "
            "changed in pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this "
            "will be interpreted as tensor index, x[torch.tensor(seq)], which will result either "
            "in an error or a different result", UserWarning, stacklevel=3)
        return tuple(index)
    return (index,)


# -- step 2: walk the dims (Note [Walking the dims]) ----------------------------------------

def _count_specified_dims(items) -> int:
    count = 0
    for item in items:
        if isinstance(item, _Tensor):
            count += item.dim() if item._dtype in (dt.bool_, dt.uint8) else 1
        elif item is None or item is Ellipsis or item is True or item is False:
            continue
        else:
            count += 1
    return count


def tp_name(obj) -> str:
    """The type name CPython's ``tp_name`` gives, which torch's messages print: a NumPy
    type carries its module (``numpy.float32``), a builtin or Python class does not."""
    t = type(obj)
    module = getattr(t, "__module__", "") or ""
    if module == "numpy" or module.startswith("numpy."):
        return f"numpy.{t.__name__}"
    return t.__name__


def _invalid_index(item):
    name = tp_name(item)
    raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or byte "
                     f"Variables are valid indices (got {name})")


def _select(result, dim, index, real_dim):
    sizes = result._sizes
    if not sizes:
        raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                         "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
    size = sizes[dim]
    if index < -size or index >= size:
        _check_int64(index)
        raise IndexError(f"index {index} is out of bounds for dimension {real_dim} with size "
                         f"{size}")
    return _op_select.call(result._keyset, result, dim, index)


def _slice(result, dim, item):
    """``result`` sliced along ``dim`` by the Python slice ``item``; ``result`` itself when
    the slice covers the whole dim with step 1 (torch skips that view too)."""
    start, stop, step = _slice_bounds(item)
    if not result._sizes:
        raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                         "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
    length = result._sizes[dim]
    if (start is None or start == 0) and (stop is None or stop >= length) and step == 1:
        return result
    return _op_slice.call(result._keyset, result, dim, start, stop, step)


def _slice_bounds(item):
    """(start, stop, step) of a Python slice as int64s, read as CPython reads slice bounds
    (Note [Index conversion]); the step is validated as torch does."""
    step = item.step
    step = 1 if step is None else _slice_index(step)
    start = item.start
    if start is not None:
        start = _slice_index(start)
    stop = item.stop
    if stop is not None:
        stop = _slice_index(stop)
    if step == 0:     # torch reads the bounds before it reports a zero step
        raise ValueError("slice step cannot be zero")
    if (start is not None and start < _SYMINT_MIN or stop is not None and stop < _SYMINT_MIN
            or step < _SYMINT_MIN):
        # torch keeps slice bounds as SymInts, whose range stops at -2**62
        import warnings
        warnings.warn("Truncating the start/stop/step of slice. This is likely because of "
                      "saved old models when the start/stop/step were larger.", UserWarning,
                      stacklevel=4)
        start = None if start is None else max(start, _SYMINT_MIN)
        stop = None if stop is None else max(stop, _SYMINT_MIN)
        step = max(step, _SYMINT_MIN)
    if step < 0:
        raise ValueError("step must be greater than zero")
    return start, stop, step


# Note [Index conversion]
# ~~~~~~~~~~~~~~~~~~~~~~~
# torch reads an integer index as CPython does: a slice bound goes through ``__index__``
# (``operator.index``: ints, NumPy integers, 0-dim integer tensors and ndarrays, anything
# with ``__index__``; a float or a float tensor raises the TypeError its type gives) and is
# clamped into int64 like ``PyNumber_AsSsize_t``; a selecting index (``t[i]``) must fit
# int64 ("Overflow when unpacking long long"). So a size never holds a Tensor or a NumPy
# scalar, only a Python int.

_INT64_MAX = (1 << 63) - 1
_INT64_MIN = -(1 << 63)
_SYMINT_MIN = -(1 << 62)


def _slice_index(value) -> int:
    if type(value) is not int:
        if not hasattr(type(value), "__index__"):
            raise TypeError("slice indices must be integers or None or have an __index__ "
                            "method")
        value = operator.index(value)
    if value > _INT64_MAX:
        return _INT64_MAX
    if value < _INT64_MIN:
        return _INT64_MIN
    return value


def _as_int(value) -> int:
    return _slice_index(value)


def _check_int64(value) -> None:
    if not _INT64_MIN <= value <= _INT64_MAX:
        raise ValueError("Overflow when unpacking long long")


def _unpack_long(value) -> int:
    """An int or NumPy integer as a Python int that fits int64 (torch's unpackLong)."""
    value = int(value)
    _check_int64(value)
    return value


def _indexing_tensor(data):
    """A sequence or ndarray used as an index: torch's indexing tensor, int64 unless the
    data is bool or uint8 (a mask), so ``t[[1.7]]`` and ``t[np.array([1., 2.])]`` index
    with longs."""
    if isinstance(data, np.ndarray):
        tensor = _from_numpy(data)
    else:
        tensor = _tensor_factory(data)
    if tensor._dtype is not dt.bool_ and tensor._dtype is not dt.uint8 \
            and tensor._dtype is not dt.int64:
        tensor = tensor.to(dt.int64)
    return tensor


def _bool_index(value: bool, like):
    """``True`` indexes the inserted dim with ``[0]``, ``False`` with ``[]``."""
    out = _op_empty.call(like._keyset & _NO_AUTOGRAD, (1 if value else 0,), dt.int64, None,
                         like._device, None, None)
    if value:
        _op_fill_.call(out._keyset, out, 0)
    return out


def apply_slicing(self, items):
    """Returns (the view the basic items select, the advanced indices or None)."""
    ndim = len(self._sizes)
    specified = _count_specified_dims(items)
    if specified > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    result = self
    dim = 0
    mask_extra = 0     # dims covered by masks beyond their one slot in ``advanced``
    advanced = None
    for real_dim, item in enumerate(items):
        ti = type(item)
        if ti is int:
            result = _select(result, dim, item, real_dim)
        elif ti is slice:
            result = _slice(result, dim, item)
            dim += 1
        elif item is None:
            result = _op_unsqueeze.call(result._keyset, result, dim)
            dim += 1
        elif item is Ellipsis:
            dim += ndim - specified
        elif ti is bool:
            result = _op_unsqueeze.call(result._keyset, result, dim)
            advanced = _record(advanced, dim - mask_extra, _bool_index(item, self))
            dim += 1
        elif isinstance(item, np.integer) or isinstance(item, int):
            # torch's checkLong: NumPy integers and int subclasses select like ints
            result = _select(result, dim, _unpack_long(item), real_dim)
        else:
            if isinstance(item, _Tensor):
                tensor = item
            elif _is_sequence(item) or isinstance(item, str):
                tensor = _indexing_tensor(item)
            else:
                try:
                    index = operator.index(item)
                except Exception:     # torch clears whatever __index__ raised
                    _invalid_index(item)
                result = _select(result, dim, _unpack_long(index), real_dim)
                continue
            d = tensor._dtype
            if not tensor._sizes and (d is dt.bool_ or d is dt.uint8):
                # a 0-dim mask: a new dim indexed with [0] or [] (no uint8 warning)
                result = _op_unsqueeze.call(result._keyset, result, dim)
                advanced = _record(advanced, dim - mask_extra,
                                   _bool_index(tensor.item() != 0, self))
                dim += 1
            elif not tensor._sizes and d.category == _INTEGRAL:
                result = _select(result, dim, tensor.item(), real_dim)
            else:
                advanced = _record(advanced, dim - mask_extra, tensor)
                if d is dt.bool_ or d is dt.uint8:
                    dim += tensor.dim()
                    mask_extra += tensor.dim() - 1
                else:
                    dim += 1
    return result, advanced


def _record(advanced, slot, tensor):
    if advanced is None:
        advanced = []
    while len(advanced) < slot:
        advanced.append(None)
    advanced.append(tensor)
    return advanced


# -- step 3: getitem / setitem --------------------------------------------------------------

def getitem(self, index):
    ti = type(index)
    if ti is int:     # the common case, without building a tuple
        return _select(self, 0, index, 0)
    if ti is slice:     # a lone slice is always sliced, whole or not (torch's SliceBackward0)
        start, stop, step = _slice_bounds(index)
        return _op_slice.call(self._keyset, self, 0, start, stop, step)
    if index is None:
        return _op_unsqueeze.call(self._keyset, self, 0)
    if index is Ellipsis:
        return _op_alias.call(self._keyset, self)
    if _only_index_tensors(self, index):     # a[i], a[i, j]: straight to ``index``
        items = list(index) if ti is tuple else [index]
        return _op_index.call(self._keyset, self, items)
    result, advanced = apply_slicing(self, as_index_items(index))
    if advanced is not None:
        return _op_index.call(result._keyset, result, advanced)
    if result is self:
        return _op_alias.call(self._keyset, self)
    return result


def _only_index_tensors(self, index) -> bool:
    """Whether ``index`` is one integer index tensor, or a tuple of them, none 0-dim and no
    more than the dims of ``self``: then slicing has nothing to do."""
    items = index if type(index) is tuple else (index,)
    if not items or len(items) > len(self._sizes):
        return False
    for item in items:
        if not isinstance(item, _Tensor) or not item._sizes or (
                item._dtype is not dt.int64 and item._dtype is not dt.int32):
            return False
    return True


def _mask_fill_shape(self, mask):
    """For ``t[mask] = scalar``: the shape ``mask`` takes to broadcast over ``self`` when it
    covers a prefix of ``self``'s dims, else None (the general path reports errors)."""
    if mask._dtype is not dt.bool_:
        return None
    k = len(mask._sizes)
    if not 0 < k <= len(self._sizes) or mask._sizes != self._sizes[:k]:
        return None
    return mask._sizes + (1,) * (len(self._sizes) - k)


def _value_tensor(self, value):
    """torch's valueToTensor: a scalar becomes a 0-dim tensor of ``self``'s dtype."""
    if isinstance(value, _Tensor):
        return value
    value = _scalar_value(self, value)
    return _op_scalar_tensor.call(self._keyset & _NO_AUTOGRAD, value, self._dtype, None,
                                  self._device, None)


def _scalar_value(self, value):
    """A value torch's setitem takes as a scalar, as a Python number: an int, a bool or a
    NumPy integer (fitting int64), a float or a complex (their NumPy subclasses
    ``float64``/``complex128`` too); anything else (``numpy.float32``, an ndarray, a list)
    is refused with torch's TypeError."""
    tv = type(value)
    if tv is float or tv is complex:
        return value
    if tv is int or tv is bool:
        if tv is int:
            _check_int64(value)
        return value
    if isinstance(value, (int, np.integer)):
        return bool(value) if isinstance(value, bool) else _unpack_long(value)
    if isinstance(value, float):
        return float(value)
    if isinstance(value, complex):
        return complex(value)
    raise TypeError(f"can't assign a {tp_name(value)} to a {_legacy_type_name(self)}")


def _legacy_type_name(t) -> str:
    return t.type() if hasattr(t, "type") else "Tensor"


def _strip_leading_ones(sizes) -> tuple:
    i = 0
    while i < len(sizes) and sizes[i] == 1:
        i += 1
    return tuple(sizes[i:])


def copy_to(dst, src) -> None:
    """Assign ``src`` to the view ``dst``: copy, fill, or expand then copy (seed 000)."""
    if dst._sizes == src._sizes:
        _op_copy_.call(dst._keyset | src._keyset, dst, src, False)
        return
    if not src._sizes:
        _op_fill_tensor_.call(dst._keyset | src._keyset, dst, src)
        return
    stripped = _strip_leading_ones(src._sizes)
    if stripped != src._sizes or src._keyset & _AUTOGRAD_BIT:
        # torch always views; the view only shows in a recorded graph (ViewBackward0)
        src = _op_view.call(src._keyset, src, stripped)
    expanded = _op_expand.call(src._keyset, src, dst._sizes, False)
    _op_copy_.call(dst._keyset | expanded._keyset, dst, expanded, False)


def setitem(self, index, value):
    ti = type(index)
    tv = type(value)
    scalar = tv is int or tv is float or tv is bool or tv is complex
    if not scalar and not isinstance(value, _Tensor):
        value = _scalar_value(self, value)     # torch reads the value before the index
        scalar = True
    elif tv is int:
        _check_int64(value)
    if scalar and (self._keyset & _AUTOGRAD_BIT
                   or self._dtype is dt.float16 and tv is not bool):
        # torch makes a 0-dim tensor of a scalar value before it assigns, so what records
        # is fill_.Tensor, or index_put_ for a mask (IndexPutBackward0, not masked_fill_);
        # a float16 value out of range becomes inf there, as fill_ would refuse it; the
        # shortcuts below, with the scalar as it is, serve the other tensors
        value = _value_tensor(self, value)
        scalar = False
    if ti is int and scalar:     # t[i] = 3: select, fill
        view = _select(self, 0, index, 0)
        _op_fill_.call(view._keyset, view, value)
        return
    if ti is tuple and scalar and all(type(i) is int for i in index) and \
            len(index) <= len(self._sizes):
        view = self
        for real_dim, i in enumerate(index):
            view = _select(view, 0, i, real_dim)
        _op_fill_.call(view._keyset, view, value)
        return
    if scalar and isinstance(index, _Tensor):
        shape = _mask_fill_shape(self, index)
        if shape is not None:     # t[mask] = 3 is a masked fill, as in torch
            mask = index if shape == index._sizes else _op_view.call(index._keyset, index,
                                                                     shape)
            _op_masked_fill_.call(self._keyset | mask._keyset, self, mask, value)
            return
    if index is False:     # torch assigns nothing (it checks the value's type, not its shape)
        if not scalar:
            _value_tensor(self, value)
        return
    if index is True:      # torch: the value goes to self.unsqueeze(0), no index_put_
        view = _op_unsqueeze.call(self._keyset, self, 0)
        if scalar:
            _op_fill_.call(view._keyset, view, value)
        else:
            copy_to(view, _value_tensor(self, value))
        return
    if index is Ellipsis or index is None or ti is int or ti is slice:
        items = (index,)
    else:
        items = as_index_items(index)
    sliced, advanced = apply_slicing(self, items)
    if advanced is None:
        if scalar:
            _op_fill_.call(sliced._keyset, sliced, value)
        else:
            copy_to(sliced, _value_tensor(self, value))
        return
    values = _value_tensor(self, value)
    stripped = _strip_leading_ones(values._sizes)
    if stripped != values._sizes:
        values = _op_view.call(values._keyset, values, stripped)
    _op_index_put_.call(sliced._keyset | values._keyset, sliced, advanced, values, False)
