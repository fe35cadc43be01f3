"""Kernels of the sparse COO layout (issue 16; Note [Sparse tensors] in core/sparse_tensor.py).

A COO tensor is ``indices`` ([sparse_dim, nnz] int64) and ``values`` ([nnz, *dense]).
Kernels read the member arrays with NumPy and build new members; the value arithmetic
that must follow torch's dtype rules (``sin`` of an int, ``add`` promotion) goes through
the dense operators on ``values``.

Note [Coalescing by linear index]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
``coalesce`` sorts entries by their row-major linear index over the sparse dims (one
int64 per entry, ``sum(index[d] * stride[d])``), then sums runs of equal keys with one
``np.add.reduceat``. Sorting one key is much cheaper than a lexsort over sparse_dim
rows, and an already sorted key (the common case: entries made in order) skips the sort.

Note [Adding COO tensors]
~~~~~~~~~~~~~~~~~~~~~~~~~
torch adds two COO tensors by merging their entry lists as if both were sorted: it walks
them together, takes the smaller index, and combines two equal indices into one entry. On
sorted inputs this pairs the k-th entry of an index in one operand with the k-th in the
other (duplicates beyond that stay separate entries); on unsorted inputs the walk's result
depends on the order, so strided replays the walk itself. The result is coalesced only when
both operands were, and its indices are the first columns of an nnz_a + nnz_b buffer.

``DISPATCH`` lists kernels for operators declared elsewhere (``aten::add.Tensor``...) per
sparse key; ops/registry.py registers them after the YAML-declared kernels.
"""

from __future__ import annotations

import numpy as np

from ..core import dtypes as dt
from ..core import layouts
from ..core.checks import check, maybe_wrap_dim
from ..core.sparse_tensor import (
    SPARSE_BITS,
    SPARSE_COO_BITS,
    make_coo,
)
from .factory import empty as _empty

_INT64 = dt.int64


def _S():
    import strided
    return strided


def _wrap(arr, dtype, device=None):
    """A dense tensor holding a copy of ``arr``."""
    t = _empty(tuple(arr.shape), dtype, None, device)
    if t._device.type != "meta" and arr.size:
        t._array()[...] = arr
    return t


def _parts(t):
    return t._sparse


def _is_coo(t) -> bool:
    return bool(getattr(t, "_keyset", 0) & SPARSE_COO_BITS)


def _is_sparse(t) -> bool:
    return bool(getattr(t, "_keyset", 0) & SPARSE_BITS)


def _layout_name(t) -> str:
    if not _is_sparse(t):
        return "Strided"
    from ..core.sparse_tensor import LAYOUT_TITLE
    return LAYOUT_TITLE[t._sparse.layout]


def _idx_np(t) -> np.ndarray:
    return t._sparse.indices._array()


def _val_np(t) -> np.ndarray:
    return t._sparse.values._array()


def _detached(v):
    """An alias of ``v`` without autograd history (what a sparse tensor stores)."""
    if v._autograd_meta is None:
        return v
    return v.detach()


def _sparse_shape(t):
    return t._sizes[:t._sparse.sparse_dim]


def _linear(idx: np.ndarray, shape) -> np.ndarray:
    """Row-major linear index of each column of ``idx`` over ``shape`` (Note [Coalescing by
    linear index])."""
    nnz = idx.shape[1]
    if idx.shape[0] == 0:
        return np.zeros(nnz, np.int64)
    if idx.shape[0] == 1:
        return np.ascontiguousarray(idx[0], dtype=np.int64)
    lin = idx[0].astype(np.int64, copy=True)
    for d in range(1, idx.shape[0]):
        lin *= shape[d]
        lin += idx[d]
    return lin


def _new_coo(idx: np.ndarray, values, sizes, coalesced, device=None):
    """A COO tensor over NumPy indices and a dense ``values`` tensor."""
    indices = _wrap(np.asarray(idx, np.int64).reshape(idx.shape), _INT64,
                    device or values._device)
    return make_coo(indices, values, tuple(sizes), coalesced)


def _coo_np(idx, vals, dtype, sizes, coalesced, device=None):
    return _new_coo(idx, _wrap(vals, dtype, device), sizes, coalesced, device)


# ---------------------------------------------------------------------------- construction

def _expand_values(values):
    # a 0-dim values tensor stands for one value (torch's expand_values_if_needed)
    if len(values._sizes) == 0:
        return values.expand(1)
    return values


def _check_layout_arg(layout):
    check(layout is None or layout is layouts.sparse_coo,
          lambda: f"expected sparse layout, but got layout {layout!r}".replace("torch.", "")
          .replace("sparse_coo", "Sparse").replace("strided", "Strided"))


def sparse_coo_tensor_with_dims_and_tensors(sparse_dim, dense_dim, size, indices, values,
                                             dtype=None, layout=None, device=None,
                                             pin_memory=None, is_coalesced=None):
    size = tuple(size)
    check(len(size) == sparse_dim + dense_dim, lambda: (
        f"'len(size) == sparse_dim + dense_dim' is not satisfied: len(size) = {len(size)}, "
        f"sparse_dim = {sparse_dim}, dense_dim = {dense_dim}"))
    for s in size:
        check(s >= 0, lambda: "numel: integer multiplication overflow")
    check(indices._dtype is _INT64, lambda: "indices must be an int64 tensor")
    check(len(indices._sizes) == 2, lambda: (
        f"indices must be sparse_dim x nnz, but got: {list(indices._sizes)}"))
    check(indices._sizes[0] == sparse_dim, lambda: (
        f"dimensionality of indices must match sparse_dim, but got: {indices._sizes[0]} != "
        f"{sparse_dim}"))
    check(len(values._sizes) == dense_dim + 1, lambda: (
        f"values has incorrect number of dimensions, expected {dense_dim + 1}, got "
        f"{len(values._sizes)}"))
    nnz_i, nnz_v = indices._sizes[1], values._sizes[0]
    check(nnz_i == nnz_v, lambda: (
        f"indices and values must have same nnz, but got nnz from indices: {nnz_i}, nnz from "
        f"values: {nnz_v}"))
    expected = (nnz_v,) + size[sparse_dim:]
    check(tuple(values._sizes) == expected, lambda: (
        f"values has incorrect size, expected {list(expected)}, got {list(values._sizes)}"))
    if dtype is not None and dtype is not values._dtype:
        values = values.to(dtype)
    coalesced = bool(is_coalesced) if is_coalesced is not None else nnz_v < 2
    return make_coo(_detached(indices), _detached(values), size, coalesced)


def sparse_coo_tensor_with_dims(sparse_dim, dense_dim, size, dtype=None, layout=None,
                                device=None, pin_memory=None):
    size = tuple(size)
    check(len(size) == sparse_dim + dense_dim, lambda: (
        f"'len(size) == sparse_dim + dense_dim' is not satisfied: len(size) = {len(size)}, "
        f"sparse_dim = {sparse_dim}, dense_dim = {dense_dim}"))
    values = _empty((0,) + size[sparse_dim:], dtype, None, device)
    indices = _empty((sparse_dim, 0), _INT64, None, device)
    return make_coo(indices, values, size, True)


def sparse_coo_tensor_size(size, dtype=None, layout=None, device=None, pin_memory=None):
    _check_layout_arg(layout)
    return sparse_coo_tensor_with_dims(len(size), 0, size, dtype, None, device)


def _flatten_check_coalesced(indices, size):
    lin = _linear(indices._array(), size)
    check(bool(np.all(lin[1:] > lin[:-1])), lambda: (
        "cannot set is_coalesced to true if indices correspond to uncoalesced COO tensor"))


def validate_sparse_coo_tensor_args(indices, values, size, is_coalesced=None,
                                    check_pinning=None):
    values = _expand_values(values)
    check(len(indices._sizes) == 2, lambda: (
        f"indices must be sparse_dim x nnz, but got: {list(indices._sizes)}"))
    check(not _is_sparse(indices), lambda: (
        f"expected indices to be a dense tensor, but got indices of layout "
        f"{_layout_name(indices)}"))
    sparse_dim = indices._sizes[0]
    dense_dim = len(values._sizes) - 1
    check(len(size) == sparse_dim + dense_dim, lambda: (
        f"number of dimensions must be sparse_dim ({sparse_dim}) + dense_dim ({dense_dim}), "
        f"but got {len(size)}"))
    if indices._device.type == "meta" or 0 in indices._sizes:
        return None
    idx = indices._array()
    mins, maxs = idx.min(1), idx.max(1)
    for d in range(sparse_dim):
        if mins[d] < 0:
            raise RuntimeError(f"found negative index {mins[d]} for dim {d}")
        if maxs[d] >= size[d]:
            raise RuntimeError(f"size is inconsistent with indices: for dim {d}, size is "
                               f"{size[d]} but found index {maxs[d]}")
    if is_coalesced and values._sizes[0] > 1:
        _flatten_check_coalesced(indices, size)
    return None


def _coo_factory(indices, values, size, dtype, device, is_coalesced):
    values = _expand_values(values)
    if dtype is not None or device is not None:
        values = values.to(dtype=dtype or values._dtype, device=device or values._device)
    sparse_dim = indices._sizes[0] if len(indices._sizes) else 0
    dense_dim = len(values._sizes) - 1
    return _S().ops.aten._sparse_coo_tensor_with_dims_and_tensors(
        sparse_dim, dense_dim, size, indices, values, dtype=values.dtype, layout=layouts.sparse_coo,
        device=values.device, is_coalesced=is_coalesced)


def sparse_coo_tensor_indices_size(indices, values, size, dtype=None, layout=None, device=None,
                                   pin_memory=None, is_coalesced=None):
    _check_layout_arg(layout)
    return _coo_factory(indices, values, tuple(size), dtype, device, is_coalesced)


def sparse_coo_tensor_unsafe(indices, values, size, dtype=None, layout=None, device=None,
                             pin_memory=None, is_coalesced=None):
    return _coo_factory(indices, values, tuple(size), dtype, device, is_coalesced)


def sparse_coo_tensor_indices(indices, values, dtype=None, layout=None, device=None,
                              pin_memory=None, is_coalesced=None):
    _check_layout_arg(layout)
    values_e = _expand_values(values)
    check(len(indices._sizes) == 2, lambda: (
        f"indices must be sparse_dim x nnz, but got: {list(indices._sizes)}"))
    check(not _is_sparse(indices), lambda: (
        f"expected indices to be a dense tensor, but got indices of layout "
        f"{_layout_name(indices)}"))
    sparse_dim = indices._sizes[0]
    if indices._device.type == "meta":
        raise NotImplementedError("sparse_coo_tensor: cannot infer the size of a meta tensor")
    idx = indices._array()
    if idx.size:
        mins, maxs = idx.min(1), idx.max(1)
        for d in range(sparse_dim):
            if mins[d] < 0:
                raise RuntimeError(f"found negative index {mins[d]} for dim {d}")
        sizes = [int(m) + 1 for m in maxs]
    else:
        sizes = [0] * sparse_dim
    sizes += list(values_e._sizes[1:])
    return _coo_factory(indices, values, tuple(sizes), dtype, device, is_coalesced)


# ------------------------------------------------------------------------------- accessors

def _require_coo(t, name):
    check(_is_coo(t), lambda: (
        f"{name} expected sparse coordinate tensor layout but got {_layout_name(t)}"))


def _indices_sparse(self):
    return self._sparse.indices.detach()


def indices_sparse_raw(self):
    """``_indices()``: an alias of the stored indices."""
    return _alias(self._sparse.indices)


def values_sparse_raw(self):
    return _alias(self._sparse.values)


def _alias(t):
    out = t.detach() if t._autograd_meta is not None else t.detach()
    return out


def indices_sparse(self):
    _require_coo(self, "indices")
    check(self._sparse.coalesced, lambda: (
        "Cannot get indices on an uncoalesced tensor, please call .coalesce() first"))
    return _alias(self._sparse.indices)


def values_sparse(self):
    if not _is_sparse(self):
        raise RuntimeError(f"values expected sparse tensor layout but got "
                           f"{_layout_name(self)}")
    if _is_coo(self):
        check(self._sparse.coalesced, lambda: (
            "Cannot get values on an uncoalesced tensor, please call .coalesce() first"))
    return _alias(self._sparse.values)


def nnz_sparse(self):
    sp = self._sparse
    if sp.indices is not None:
        return sp.indices._sizes[1]
    return sp.plain_indices._sizes[-1]


def sparse_dim_sparse(self):
    if not _is_sparse(self):
        return 0
    return self._sparse.sparse_dim


def dense_dim_sparse(self):
    if not _is_sparse(self):
        return len(self._sizes)
    return self._sparse.dense_dim


def is_coalesced_sparse(self):
    _require_coo(self, "is_coalesced")
    return self._sparse.coalesced


def coalesced_sparse_(self, coalesced):
    self._sparse.coalesced = bool(coalesced)
    return self


indices_default = indices_sparse
values_default = values_sparse
sparse_dim_default = sparse_dim_sparse
dense_dim_default = dense_dim_sparse
is_coalesced_default = is_coalesced_sparse


# ------------------------------------------------------------------------------- coalesce

def _stable_order(lin, sparse_shape):
    """``argsort(lin, stable)`` and ``lin`` sorted. When the linear index leaves room for the
    entry's position in the low bits of an int64, one plain ``np.sort`` of the packed keys
    does both (about twice as fast as an argsort)."""
    n = lin.shape[0]
    span = 1
    for s in sparse_shape:
        span *= max(int(s), 1)
    bits = max(int(n - 1).bit_length(), 1)
    if span.bit_length() + bits <= 62:
        packed = np.sort((lin << bits) | np.arange(n, dtype=np.int64))
        return packed & ((1 << bits) - 1), packed >> bits
    order = np.argsort(lin, kind="stable")
    return order, lin[order]


def _coalesce_arrays(idx: np.ndarray, vals: np.ndarray, sparse_shape):
    """Sorted unique indices and summed values (Note [Coalescing by linear index])."""
    nnz = idx.shape[1]
    if nnz < 2:
        return idx.copy(), vals.copy()
    lin = _linear(idx, sparse_shape)
    if np.all(lin[1:] > lin[:-1]):
        return idx.copy(), vals.copy()
    if np.all(lin[1:] >= lin[:-1]):
        order = None
        slin = lin
    else:
        order, slin = _stable_order(lin, sparse_shape)
    starts = np.flatnonzero(np.concatenate(([True], slin[1:] != slin[:-1])))
    svals = vals if order is None else vals[order]
    # (torch adds duplicates in the order of its unstable sort: with three or more
    # duplicates of one index, the rounding of their sum can differ from torch's)
    if starts.shape[0] == nnz:
        new_vals = svals
    elif vals.dtype == np.bool_:
        new_vals = np.logical_or.reduceat(svals, starts, axis=0)
    else:
        new_vals = np.add.reduceat(svals, starts, axis=0)
    first = starts if order is None else order[starts]
    return idx[:, first], new_vals


def coalesce_sparse(self):
    """``_coalesce``: always a new tensor, sorted and without duplicates."""
    sp = self._sparse
    if self._device.type == "meta":
        return make_coo(sp.indices, sp.values, self._sizes, True)
    src_idx = _idx_np(self)
    idx, vals = _coalesce_arrays(src_idx, _val_np(self), _sparse_shape(self))
    nnz, k = src_idx.shape[1], idx.shape[1]
    if k == nnz:
        return _coo_np(idx, vals, self._dtype, self._sizes, True)
    # torch keeps the indices' row stride at the old nnz (a narrowed buffer)
    indices = _narrowed_indices(idx, nnz, self._device)
    return make_coo(indices, _wrap(vals, self._dtype), self._sizes, True)


def _narrowed_indices(idx, capacity, device):
    """Indices as torch leaves them after merging entries in place: the first columns of a
    buffer of the old nnz (its row stride is the old nnz)."""
    k = idx.shape[1]
    if k == capacity:
        return _wrap(idx, _INT64, device)
    full = np.zeros((idx.shape[0], capacity), np.int64)
    full[:, :k] = idx
    return _wrap(full, _INT64, device).narrow(1, 0, k)


def coalesce_composite(self):
    """``coalesce``: ``self`` when already coalesced, else ``_coalesce``."""
    _require_coo(self, "coalesce")
    if self._sparse.coalesced:
        return self
    return _S()._coalesce(self)


# ------------------------------------------------------------------------------ to_dense

def sparse_to_dense(self, dtype=None, masked_grad=None):
    check(dtype is None, "dtype argument is not supported by sparse_to_dense")
    out_dtype = dtype or self._dtype
    sp = self._sparse
    out = _empty(self._sizes, out_dtype, None, self._device)
    if self._device.type == "meta":
        return out
    arr = out._array()
    arr[...] = 0
    nnz = sp.indices._sizes[1]
    if nnz == 0 or 0 in self._sizes:
        return out
    sshape = _sparse_shape(self)
    nsp = int(np.prod(sshape, dtype=np.int64)) if sshape else 1
    flat = arr.reshape((nsp,) + tuple(self._sizes[sp.sparse_dim:]))
    lin = _linear(_idx_np(self), sshape)
    vals = _val_np(self).astype(arr.dtype, copy=False)
    if sp.coalesced:
        flat[lin] = vals
    elif arr.dtype == np.bool_:
        np.logical_or.at(flat, lin, vals)
    else:
        np.add.at(flat, lin, vals)
    return out


def to_dense_composite(self, dtype=None, masked_grad=None):
    if _is_sparse(self):
        return self._to_dense(dtype, masked_grad)
    if dtype is not None:
        return self.to(dtype)
    return self


# ------------------------------------------------------------------------------- to_sparse

def _dense_to_coo_arrays(arr: np.ndarray, sparse_dim: int):
    sshape = arr.shape[:sparse_dim]
    if sparse_dim == 0:
        return np.zeros((0, 1), np.int64), arr[None]
    flat = arr.reshape((-1,) + arr.shape[sparse_dim:]) if arr.size or sparse_dim else arr
    if arr.ndim > sparse_dim:
        nz = flat.reshape(flat.shape[0], -1) != 0
        mask = nz.any(1) if nz.shape[1] else np.zeros(flat.shape[0], bool)
    else:
        mask = flat != 0
    lin = np.flatnonzero(mask)
    idx = np.array(np.unravel_index(lin, sshape), dtype=np.int64).reshape(sparse_dim, -1)
    return idx, flat[lin]


def dense_to_sparse_dim(self, sparse_dim):
    ndim = len(self._sizes)
    check(0 <= sparse_dim <= ndim, lambda: (
        f"dense_to_sparse: sparse_dim argument must be in [0,{ndim}] range, but {sparse_dim} "
        f"is given"))
    check(sparse_dim > 0 or ndim == 0, lambda: (
        "dense_to_sparse: sparse_dim argument must be in >0 when self.dim()>0"))
    if self._device.type == "meta":
        return make_coo(_empty((sparse_dim, 0), _INT64, None, self._device),
                        _empty((0,) + self._sizes[sparse_dim:], self._dtype, None,
                               self._device), self._sizes, True)
    idx, vals = _dense_to_coo_arrays(self._array(), sparse_dim)
    if sparse_dim == 1 and ndim > 1:
        # torch's indices are then a transposed column (strides (1, 1))
        indices = _wrap(idx.reshape(-1, 1), _INT64).t()
        return make_coo(indices, _wrap(vals, self._dtype), self._sizes, True)
    return _coo_np(idx, vals, self._dtype, self._sizes, True)


def dense_to_sparse(self, layout=None, blocksize=None, dense_dim=None):
    layout = layout or layouts.sparse_coo
    # torch's argument checks of the conversions (kernels/sparse_compressed.py)
    from .sparse_compressed import _check_to_sparse
    _check_to_sparse("dense_to_sparse", self, layout, blocksize, dense_dim)
    if layout is layouts.sparse_coo:
        ndim = len(self._sizes)
        return self._to_sparse(ndim - (dense_dim or 0)) if dense_dim else \
            dense_to_sparse_dim(self, ndim)
    return _to_compressed(self, layout, blocksize, dense_dim)


def _to_compressed(self, layout, blocksize, dense_dim):
    name = {layouts.sparse_csr: "to_sparse_csr", layouts.sparse_csc: "to_sparse_csc",
            layouts.sparse_bsr: "to_sparse_bsr", layouts.sparse_bsc: "to_sparse_bsc"}.get(layout)
    check(name is not None, lambda: f"to_sparse: unexpected layout {layout!r}")
    method = getattr(self, name)
    if layout in (layouts.sparse_bsr, layouts.sparse_bsc):
        check(blocksize is not None, lambda: (
            f"to_sparse for Strided to {str(layout)[13:].capitalize()} conversion requires "
            f"blocksize"))
        return method(blocksize, dense_dim)
    return method(dense_dim)


def coo_to_sparse_dim(self, sparse_dim):
    check(sparse_dim == self._sparse.sparse_dim, lambda: (
        "sparse_coo_to_sparse: conversion from Sparse to Sparse with sparse_dim argument "
        "!=self.sparse_dim() is not supported"))
    return self


def coo_to_sparse(self, layout=None, blocksize=None, dense_dim=None):
    if layout is None or layout is layouts.sparse_coo:
        return self
    return _to_compressed(self, layout, blocksize, dense_dim)


def to_sparse_composite(self, layout=None, blocksize=None, dense_dim=None):
    if self.layout is (layout or layouts.sparse_coo):
        from .sparse_compressed import _check_to_sparse
        _check_to_sparse("to_sparse", self, layout, blocksize, dense_dim)
        return self
    return self._to_sparse(layout=layout, blocksize=blocksize, dense_dim=dense_dim)


def to_sparse_dim_composite(self, sparse_dim):
    if self.layout is layouts.sparse_coo:
        check(sparse_dim == self._sparse.sparse_dim, lambda: (
            "to_sparse: conversion from Sparse to Sparse with sparse_dim argument "
            "!=self.sparse_dim() is not supported"))
        return self
    return self._to_sparse(sparse_dim)


# --------------------------------------------------------------------- metadata-only copies

def clone_sparse(self, memory_format=None):
    check(memory_format is None or memory_format is layouts.preserve_format, lambda: (
        f"unsupported memory format option {memory_format!r}"))
    sp = self._sparse
    return make_coo(sp.indices.clone(), sp.values.clone(), self._sizes, sp.coalesced)


def detach_sparse(self):
    sp = self._sparse
    return make_coo(sp.indices, sp.values, self._sizes, sp.coalesced)


def to_copy_sparse(self, dtype=None, layout=None, device=None, pin_memory=None,
                   non_blocking=False, memory_format=None):
    sp = self._sparse
    if layout is not None and layout is not layouts.sparse_coo:
        raise RuntimeError(f"to(options) doesn't support converting to a different layout, "
                           f"but got self.layout being Sparse and options.layout set as "
                           f"{str(layout)[6:].capitalize()}")
    values = sp.values.to(dtype=dtype or self._dtype, device=device or self._device, copy=True)
    indices = sp.indices.to(device=device or self._device, copy=True)
    return make_coo(indices, values, self._sizes, sp.coalesced)


def empty_like_sparse(self, dtype=None, layout=None, device=None, pin_memory=None,
                      memory_format=None):
    layout = layout or layouts.sparse_coo
    if layout is layouts.strided:
        from .factory import empty as dense_empty
        return dense_empty(self._sizes, dtype or self._dtype, None, device or self._device)
    sp = self._sparse
    return sparse_coo_tensor_with_dims(sp.sparse_dim, sp.dense_dim, self._sizes,
                                       dtype or self._dtype, None, device or self._device)


def zeros_like_sparse(self, dtype=None, layout=None, device=None, pin_memory=None,
                      memory_format=None):
    out = empty_like_sparse(self, dtype, layout, device, pin_memory, memory_format)
    if out.layout is layouts.strided:
        out._array()[...] = 0
    return out


def zero_sparse_(self):
    sp = self._sparse
    sp.indices = _empty((sp.sparse_dim, 0), _INT64, None, self._device)
    sp.values = _empty((0,) + self._sizes[sp.sparse_dim:], self._dtype, None, self._device)
    sp.coalesced = True
    return self


def empty_sparse(size, dtype=None, layout=None, device=None, pin_memory=None,
                 memory_format=None):
    return sparse_coo_tensor_with_dims(len(size), 0, tuple(size), dtype, None, device)


# --------------------------------------------------------------------- unary ops on values

def _coalesced_if(self, needed):
    if needed and not self._sparse.coalesced:
        return coalesce_sparse(self)
    return self


def _unary(name, coalesce_first=True):
    def kernel(self, *args):
        src = _coalesced_if(self, coalesce_first)
        sp = src._sparse
        values = getattr(_S(), name)(sp.values, *args)
        return make_coo(sp.indices.clone(), values, self._sizes, sp.coalesced)

    def inplace(self, *args):
        check(not coalesce_first or self._sparse.coalesced, lambda: (
            f"{name}_ requires coalesced input"))
        src = self
        sp = self._sparse
        ssp = src._sparse
        values = ssp.values if src is self else ssp.values
        getattr(values, name + "_")(*args)
        sp.indices, sp.values, sp.coalesced = ssp.indices, values, ssp.coalesced
        return self
    kernel.__name__ = f"{name}_sparse"
    inplace.__name__ = f"{name}_sparse_"
    return kernel, inplace


# torch's unary operators with a SparseCPU kernel (they map 0 to 0); the linear ones need no
# coalescing, the others are applied to coalesced values, as torch's
_UNARY_LINEAR = ("neg",)
_UNARY = ("abs", "sgn", "sign", "signbit", "sqrt", "sin", "sinh", "tan", "tanh", "asin", "asinh",
          "atan", "atanh", "ceil", "floor", "round", "trunc", "frac", "expm1", "log1p", "erf",
          "erfinv", "relu", "rad2deg", "deg2rad", "isnan", "isinf", "isposinf", "isneginf",
          "nan_to_num", "conj_physical")
_NO_INPLACE = ("signbit", "isnan", "isinf", "isposinf", "isneginf", "conj_physical")

_unary_kernels: dict = {}
for _name in _UNARY_LINEAR + _UNARY:
    _unary_kernels[_name] = _unary(_name, _name not in _UNARY_LINEAR)


def _scalar_mul_values(values, scalar):
    return _S().mul(values, scalar)


# ----------------------------------------------------------------- binary ops (add, sub, mul)

def _same_indices(a, b) -> bool:
    """Whether two COO tensors list the same indices in the same order (torch then adds the
    values entry by entry and keeps the indices)."""
    ia, ib = a._sparse.indices, b._sparse.indices
    if ia is ib:
        return True
    return ia._sizes == ib._sizes and bool(np.array_equal(ia._array(), ib._array()))


def _result_dtype(a, b):
    from .tensor_iterator import wrapped_dtype  # noqa: F401
    return dt.promote_types(a._dtype, b._dtype)


_NO_MERGE_DTYPES = ("bool", "float16", "bfloat16", "complex32")


def _not_implemented_for(kernel, dtype):
    return NotImplementedError(f'"{kernel}" not implemented for \'{dtype._scalar_name}\'')


def _merge_positions(la, lb):
    """torch's merge of two index sequences (Note [Adding COO tensors]): for each output
    entry, the position in ``a`` and in ``b`` it takes (-1: none)."""
    na, nb = la.shape[0], lb.shape[0]
    if (na < 2 or bool(np.all(la[1:] >= la[:-1]))) and \
            (nb < 2 or bool(np.all(lb[1:] >= lb[:-1]))):
        # sorted runs: the k-th entry of key K in a pairs with the k-th one in b
        def ranks(keys):
            starts = np.flatnonzero(np.concatenate(([True], keys[1:] != keys[:-1])))
            run = np.repeat(starts, np.diff(np.append(starts, keys.shape[0])))
            return np.arange(keys.shape[0]) - run
        ra, rb = ranks(la) if na else la, ranks(lb) if nb else lb
        keys = np.concatenate([la, lb])
        rank = np.concatenate([ra, rb])
        order = np.lexsort((rank, keys))
        k, r = keys[order], rank[order]
        first = np.concatenate(([True], (k[1:] != k[:-1]) | (r[1:] != r[:-1])))
        group = np.cumsum(first) - 1
        n = int(group[-1]) + 1 if group.size else 0
        pa = np.full(n, -1, np.int64)
        pb = np.full(n, -1, np.int64)
        from_a = order < na
        pa[group[from_a]] = order[from_a]
        pb[group[~from_a]] = order[~from_a] - na
        return pa, pb
    # unsorted input: torch's sequential merge, step by step
    la_l, lb_l = la.tolist(), lb.tolist()
    i = j = 0
    pa, pb = [], []
    while i < na or j < nb:
        if i >= na:
            cmp = -1
        elif j >= nb:
            cmp = 1
        else:
            cmp = 1 if la_l[i] < lb_l[j] else (-1 if la_l[i] > lb_l[j] else 0)
        if cmp >= 0:
            pa.append(i)
            i += 1
        else:
            pa.append(-1)
        if cmp <= 0:
            pb.append(j)
            j += 1
        else:
            pb.append(-1)
    return np.asarray(pa, np.int64), np.asarray(pb, np.int64)


def _add_sparse_sparse(self, other, alpha):
    """sparse + alpha * sparse (Note [Adding COO tensors])."""
    check(self._sizes == other._sizes, lambda: (
        f"add: expected sizes of 'self' and 'other' to match, but {list(self._sizes)} != "
        f"{list(other._sizes)}"))
    sa, sb = self._sparse, other._sparse
    S = _S()
    out_dtype = dt.promote_types(self._dtype, other._dtype)
    nb = sb.indices._sizes[1]
    na = sa.indices._sizes[1]
    if nb == 0:
        return make_coo(_fresh_indices(sa.indices), sa.values.to(out_dtype, copy=True),
                        self._sizes, sa.coalesced)
    if na == 0:
        vb = S.mul(sb.values, alpha).to(out_dtype)
        return make_coo(_fresh_indices(sb.indices), vb, self._sizes, sb.coalesced)
    check(sa.sparse_dim == sb.sparse_dim, lambda: (
        f"add: expected 'self' and 'other' to have same density, but 'self' has "
        f"{sa.sparse_dim} sparse dimensions while 'other' has {sb.sparse_dim} sparse "
        f"dimensions"))
    va = sa.values.to(out_dtype)._array()
    vb = sb.values.to(out_dtype)._array()
    if sa.values.is_contiguous() and sb.values.is_contiguous():
        if out_dtype.name in _NO_MERGE_DTYPES:
            raise _not_implemented_for("cadd_sparse", out_dtype)
        sshape = _sparse_shape(self)
        pa, pb = _merge_positions(_linear(_idx_np(self), sshape), _linear(_idx_np(other), sshape))
        n = pa.shape[0]
        idx = np.where(pb >= 0, _idx_np(other)[:, np.maximum(pb, 0)],
                       _idx_np(self)[:, np.maximum(pa, 0)])
        vals = np.zeros((n,) + va.shape[1:], out_dtype.np)
        has_a = pa >= 0
        vals[has_a] += va[pa[has_a]]
        has_b = pb >= 0
        scale = np.asarray(alpha, out_dtype.np)
        vals[has_b] += vb[pb[has_b]] * scale if alpha != 1 else vb[pb[has_b]]
        return make_coo(_narrowed_indices(idx, na + nb, self._device), _wrap(vals, out_dtype),
                        self._sizes, sa.coalesced and sb.coalesced)
    # values that are not contiguous: the entries are concatenated
    vb_t = S.mul(sb.values.to(out_dtype), alpha) if alpha != 1 else sb.values.to(out_dtype)
    idx = np.concatenate([_idx_np(self), _idx_np(other)], axis=1)
    vals = np.concatenate([va, vb_t._array()], 0)
    out = _coo_np(idx, vals, out_dtype, self._sizes, False)
    numel = 1
    for d in self._sizes:
        numel *= d
    return coalesce_sparse(out) if idx.shape[1] > numel else out


def _fresh_indices(indices):
    """A contiguous copy of an index tensor (torch's copies are laid out afresh)."""
    return _wrap(np.ascontiguousarray(indices._array()), _INT64, indices._device)


def add_sparse(self, other, alpha=1):
    S = _S()
    if not isinstance(other, S.Tensor):
        raise RuntimeError("add(sparse, dense) is not supported. Use add(dense, sparse) instead.")
    if _is_coo(self) and _is_coo(other):
        return _add_sparse_sparse(self, other, alpha)
    if _is_coo(self):
        raise RuntimeError("add(sparse, dense) is not supported. Use add(dense, sparse) instead.")
    # dense + sparse: a dense result
    check(self._sizes == other._sizes, lambda: (
        f"add: expected 'self' and 'other' to have same size, but self has size "
        f"{list(self._sizes)} while other has size {list(other._sizes)} (FYI: dense-sparse "
        f"addition does not currently support broadcasting)"))
    out_dtype = dt.promote_types(self._dtype, other._dtype)
    out = self.to(out_dtype, copy=True)
    _scatter_add_into(out, other, alpha)
    return out


def _scatter_add_into(out, sparse, alpha):
    """``out[index] += alpha * value`` entry by entry, in entry order, each a fused
    multiply-add rounded once (torch's dense += sparse: duplicates are not summed first)."""
    sp = sparse._sparse
    if out._device.type == "meta" or sp.indices._sizes[1] == 0:
        return
    arr = out._array()
    sshape = _sparse_shape(sparse)
    nsp = int(np.prod(sshape, dtype=np.int64)) if sshape else 1
    flat = arr.reshape((nsp,) + tuple(sparse._sizes[sp.sparse_dim:]))
    lin = _linear(_idx_np(sparse), sshape)
    vals = _val_np(sparse).astype(arr.dtype, copy=False)
    # the k-th occurrence of each index is added in round k (one rounding per addition)
    order = np.argsort(lin, kind="stable")
    slin = lin[order]
    starts = np.flatnonzero(np.concatenate(([True], slin[1:] != slin[:-1])))
    rank = np.empty_like(order)
    rank[order] = np.arange(lin.shape[0]) - np.repeat(starts, np.diff(np.append(starts,
                                                                                lin.shape[0])))
    wide = np.float64 if arr.dtype in (np.float32, np.float16) or \
        arr.dtype.name == "bfloat16" else None
    scale = np.asarray(alpha, arr.dtype)
    for k in range(int(rank.max()) + 1):
        sel = np.flatnonzero(rank == k)
        li = lin[sel]
        if arr.dtype == np.bool_:
            flat[li] |= vals[sel]
        elif wide is not None:
            flat[li] = _fused_add(flat[li], scale, vals[sel], arr.dtype)
        else:
            flat[li] = flat[li] + (vals[sel] * scale if alpha != 1 else vals[sel])


def sub_sparse(self, other, alpha=1):
    S = _S()
    if isinstance(other, S.Tensor) and other._dtype is dt.bool_ or self._dtype is dt.bool_:
        raise RuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` "
            "or `logical_xor()` operator instead." if self._dtype is dt.bool_ and
            other._dtype is dt.bool_ else
            "Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
            "trying to invert a mask, use the `~` or `logical_not()` operator instead.")
    return add_sparse(self, other, -alpha)


def add_sparse_(self, other, alpha=1):
    if not _is_sparse(self) and _is_coo(other) and self._sizes == other._sizes and \
            dt.promote_types(self._dtype, other._dtype) is self._dtype and \
            self.is_contiguous():
        _scatter_add_into(self, other, alpha)
        self._vc[0] += 1
        return self
    out = add_sparse(self, other, alpha)
    if _is_coo(self):
        check(out._dtype is self._dtype or dt.can_cast(out._dtype, self._dtype), lambda: (
            f"result type {out._dtype.name.capitalize()} can't be cast to the desired output "
            f"type {self._dtype.name.capitalize()}"))
        sp, so = self._sparse, out._sparse
        sp.indices, sp.values, sp.coalesced = so.indices, so.values.to(self._dtype), so.coalesced
        self._vc[0] += 1
        return self
    self.copy_(out)
    return self


def sub_sparse_(self, other, alpha=1):
    return add_sparse_(self, other, -alpha)


def _intersect(a, b):
    """Positions of the matching entries of two coalesced COO tensors."""
    la = _linear(_idx_np(a), _sparse_shape(a))
    lb = _linear(_idx_np(b), _sparse_shape(b))
    common, ia, ib = np.intersect1d(la, lb, assume_unique=True, return_indices=True)
    return ia, ib


def mul_sparse(self, other):
    S = _S()
    if not isinstance(other, S.Tensor) or len(other._sizes) == 0 and not _is_sparse(other):
        # a scalar (or a 0-dim dense tensor) scales the values
        sp = self._sparse
        if not _is_sparse(self):
            return S.mul(self, other._to_dense())
        values = S.mul(sp.values, other)
        return make_coo(sp.indices, values, self._sizes, sp.coalesced)
    if _is_coo(self) and _is_coo(other):
        check(self._sizes == other._sizes, lambda: (
            f"mul(sparse, sparse): expected 'self' and 'other' to have same size, but "
            f"{list(self._sizes)} != {list(other._sizes)}"))
        out_dtype = dt.promote_types(self._dtype, other._dtype)
        if out_dtype.name in _NO_MERGE_DTYPES and self._sparse.indices._sizes[1] and \
                other._sparse.indices._sizes[1]:
            raise _not_implemented_for("addcmul_cpu_out" if self._sparse.dense_dim else
                                       "mul_out_sparse", out_dtype)
        a = _coalesced_if(self, True)
        b = _coalesced_if(other, True)
        ia, ib = _intersect(a, b)
        va = _wrap(_val_np(a)[ia], a._dtype)
        vb = _wrap(_val_np(b)[ib], b._dtype)
        vals = S.mul(va, vb).to(out_dtype)
        return _new_coo(_idx_np(a)[:, ia], vals, self._sizes, True)
    if _is_coo(self):
        sparse, dense = self, other
    else:
        sparse, dense = other, self
    if len(dense._sizes) == 0:
        sp = sparse._sparse
        return make_coo(sp.indices, S.mul(sp.values, dense), sparse._sizes, sp.coalesced)
    check(dense._sizes == sparse._sizes, lambda: (
        f"mul(sparse, dense): expected the operands to have the same size, but "
        f"{list(sparse._sizes)} != {list(dense._sizes)}"))
    sp = sparse._sparse
    idx = _idx_np(sparse)
    picked = dense._array()[tuple(idx)]
    vals = S.mul(sp.values, _wrap(np.ascontiguousarray(picked), dense._dtype))
    return make_coo(sp.indices, vals, sparse._sizes, sp.coalesced)


def mul_sparse_(self, other):
    out = mul_sparse(self, other)
    sp, so = self._sparse, out._sparse
    sp.indices, sp.values, sp.coalesced = so.indices, so.values.to(self._dtype), so.coalesced
    self._vc[0] += 1
    return self


def div_sparse(self, other, rounding_mode=None):
    S = _S()
    check(not _is_sparse(other) and (not isinstance(other, S.Tensor) or len(other._sizes) == 0),
          lambda: "Sparse division requires a scalar or zero-dim dense tensor divisor (got shape "
          f"{list(other._sizes)} for divisor)")
    sp = self._sparse
    src = _coalesced_if(self, rounding_mode is not None)
    sp = src._sparse
    vals = S.div(sp.values, other, rounding_mode=rounding_mode)
    return make_coo(sp.indices, vals, self._sizes, sp.coalesced)


# -------------------------------------------------------------------------------- reductions

def sum_coo(self, dtype=None):
    S = _S()
    return S.sum(self._sparse.values, dtype=dtype)


def _sparse_sum_impl(self, dims, dtype=None):
    S = _S()
    sp = self._sparse
    ndim = len(self._sizes)
    dims = sorted({maybe_wrap_dim(d, ndim) for d in dims})
    check(len(dims) == len(set(dims)), "")
    sdims = [d for d in dims if d < sp.sparse_dim]
    ddims = [d - sp.sparse_dim + 1 for d in dims if d >= sp.sparse_dim]
    values = sp.values
    if dtype is not None:
        values = values.to(dtype)
    src = self
    if len(sdims) == sp.sparse_dim:
        # every sparse dim summed: a dense result
        out = S.sum(values, [0] + ddims) if values._sizes[0] or True else values
        return out
    if ddims:
        summed = S.sum(values, ddims)
        check(summed._dtype is values._dtype, lambda: (
            f"dtype of values ({summed._dtype._scalar_name}) must match dtype of sparse tensor "
            f"({values._dtype._scalar_name})"))
        values = summed
    keep = [d for d in range(sp.sparse_dim) if d not in sdims]
    idx = _idx_np(src)[keep]
    sizes = tuple(s for d, s in enumerate(self._sizes) if d not in dims)
    if sdims:
        new_idx, new_vals = _coalesce_arrays(idx, values._array(), [self._sizes[d] for d in keep])
        return make_coo(_narrowed_indices(new_idx, idx.shape[1], self._device),
                        _wrap(new_vals, values._dtype), sizes, True)
    c = make_coo(_wrap(idx, _INT64), values, sizes, sp.coalesced)
    return coalesce_sparse(c) if not sp.coalesced else c


def sparse_sum(self, dtype=None):
    """``torch._sparse_sum(self)``: the coalesced values summed (torch's graph goes through
    ``coalesce().values()``)."""
    vals = self.coalesce().values()
    return vals.sum() if dtype is None else vals.sum(dtype=dtype)


def sparse_sum_dim(self, dim):
    return _sparse_sum_impl(self, dim)


def sparse_sum_dim_dtype(self, dim, dtype):
    return _S()._sparse_sum(self.to(dtype), dim)


def sparse_sum_dtype(self, dtype):
    vals = self.coalesce().values()
    return vals.sum(dtype=dtype)


def sum_sparse_coo_dim(self, dim, keepdim=False, dtype=None):
    if dim is None or len(dim) == 0:
        return _S().sum(self._sparse.values, dtype=dtype)
    src = self if dtype is None else self.to(dtype)
    result = _S()._sparse_sum(src, dim)
    if keepdim:
        ndim = len(self._sizes)
        for d in sorted(maybe_wrap_dim(x, ndim) for x in dim):
            result = result.unsqueeze(d)
    return result


def sparse_sum_backward(grad, self, dim):
    """The gradient of ``_sparse_sum(self, dim)``: ``grad`` gathered at the entries of the
    coalesced ``self``, a COO tensor with its indices."""
    self = _coalesced_if(self, True)
    sp = self._sparse
    ndim = len(self._sizes)
    dims = sorted({maybe_wrap_dim(d, ndim) for d in dim})
    sdims = [d for d in dims if d < sp.sparse_dim]
    ddims = [d for d in dims if d >= sp.sparse_dim]
    idx = _idx_np(self)
    nnz = idx.shape[1]
    if _is_sparse(grad):
        g = grad._to_dense()
    else:
        g = grad
    garr = g._array()
    # gather: grad has the unsummed sparse dims first (or is dense over the dense dims only)
    keep = [d for d in range(sp.sparse_dim) if d not in sdims]
    if keep:
        picked = garr[tuple(idx[keep])]
    else:
        picked = np.broadcast_to(garr, (nnz,) + garr.shape)
    # put the summed dense dims back as broadcast dims
    dense_shape = self._sizes[sp.sparse_dim:]
    for d in ddims:
        picked = np.expand_dims(picked, d - sp.sparse_dim + 1)
    picked = np.broadcast_to(picked, (nnz,) + tuple(dense_shape))
    vals = _wrap(np.ascontiguousarray(picked), grad._dtype)
    return make_coo(sp.indices, vals, self._sizes, nnz < 2)


# -------------------------------------------------------------------------------- shape ops

def transpose_sparse(self, dim0, dim1):
    sp = self._sparse
    ndim = len(self._sizes)
    d0 = maybe_wrap_dim(dim0, ndim)
    d1 = maybe_wrap_dim(dim1, ndim)
    if d0 == d1:
        return make_coo(sp.indices, sp.values, self._sizes, sp.coalesced)
    check(d0 < sp.sparse_dim and d1 < sp.sparse_dim, lambda: (
        f"sparse transpose: transposed dimensions must be sparse Got sparse_dim: "
        f"{sp.sparse_dim}, d0: {d0}, d1: {d1}"))
    idx = _idx_np(self).copy()
    idx[[d0, d1]] = idx[[d1, d0]]
    sizes = list(self._sizes)
    sizes[d0], sizes[d1] = sizes[d1], sizes[d0]
    return _new_coo(idx, sp.values, sizes, idx.shape[1] < 2)


def t_sparse(self):
    ndim = len(self._sizes)
    check(ndim <= 2 and self._sparse.sparse_dim == ndim, lambda: (
        f"t() expects a tensor with <= 2 sparse and 0 dense dimensions, but got "
        f"{self._sparse.sparse_dim} sparse and {self._sparse.dense_dim} dense dimensions"))
    if ndim < 2:
        return detach_sparse(self)
    return transpose_sparse(self, 0, 1)


def narrow_copy_sparse(self, dim, start, length):
    sp = self._sparse
    ndim = len(self._sizes)
    dim = maybe_wrap_dim(dim, ndim)
    size = self._sizes[dim]
    if start < 0:
        start += size
    check(0 <= start and length >= 0 and start + length <= size, lambda: (
        f"Invalid range to narrow. range(start, start+length) must be a subset of range(0, "
        f"{size})."))
    sizes = list(self._sizes)
    sizes[dim] = length
    if dim < sp.sparse_dim:
        idx = _idx_np(self)
        keep = (idx[dim] >= start) & (idx[dim] < start + length)
        new_idx = idx[:, keep].copy()
        new_idx[dim] -= start
        vals = _val_np(self)[keep]
        return _coo_np(new_idx, vals, self._dtype, sizes, sp.coalesced)
    vals = sp.values.narrow(dim - sp.sparse_dim + 1, start, length).clone()
    return make_coo(sp.indices.clone(), vals, sizes, sp.coalesced)


def index_select_sparse(self, dim, index):
    sp = self._sparse
    ndim = len(self._sizes)
    dim = maybe_wrap_dim(dim, ndim)
    check(len(index._sizes) <= 1, "index_select(): Index is supposed to be a vector")
    check(index._dtype in (dt.int64, dt.int32), lambda: (
        "index_select(): Expected dtype int32 or int64 for index"))
    size = self._sizes[dim]
    ind = index._array().reshape(-1).astype(np.int64)
    if ind.size:
        bad = (ind < -size) | (ind >= size)
        check(not bad.any(), lambda: (
            f"index_select(): index contains {int(ind[bad][0])} that is out of range for "
            f"tensor of size {list(self._sizes)} at dimension {dim}"), IndexError)
    ind = np.where(ind < 0, ind + size, ind)
    sizes = list(self._sizes)
    sizes[dim] = ind.size
    if dim >= sp.sparse_dim:
        vals = sp.values.index_select(dim - sp.sparse_dim + 1, _wrap(ind, _INT64))
        return make_coo(sp.indices.clone(), vals, sizes, sp.coalesced)
    idx = _idx_np(self)
    # for each entry, every position of the index that selects its coordinate
    order = np.argsort(ind, kind="stable")
    sorted_ind = ind[order]
    lo = np.searchsorted(sorted_ind, idx[dim], "left")
    hi = np.searchsorted(sorted_ind, idx[dim], "right")
    counts = hi - lo
    entry = np.repeat(np.arange(idx.shape[1]), counts)
    starts = np.repeat(lo - np.concatenate(([0], np.cumsum(counts)[:-1])), counts)
    pos = order[np.arange(entry.size) + starts]
    # torch lists the result grouped by index position
    perm = np.lexsort((entry, pos))
    entry, pos = entry[perm], pos[perm]
    new_idx = idx[:, entry].copy()
    new_idx[dim] = pos
    vals = _val_np(self)[entry]
    return _coo_np(new_idx, vals, self._dtype, sizes, entry.size < 2)


# --------------------------------------------------------------------------------- products

def _check_mm_shapes(a_sizes, b_sizes, name):
    check(len(a_sizes) == 2, lambda: f"{name}: expected 2D matrix, got {len(a_sizes)}D tensor")
    check(len(b_sizes) == 2, lambda: f"{name}: expected 2D matrix, got {len(b_sizes)}D tensor")


def _fused_add(acc, coef, x, dtype):
    """``acc + coef * x`` rounded once to ``dtype`` (a float type narrower than float64), as
    a fused multiply-add: the product is exact in float64, the sum is rounded to odd there
    (TwoSum's error term says which way), and rounding that to ``dtype`` is then correct."""
    a = acc.astype(np.float64)
    p = coef.astype(np.float64) * x.astype(np.float64)
    s = a + p
    bb = s - a
    err = (a - (s - bb)) + (p - bb)
    inexact = (err != 0) & ((s.view(np.int64) & 1) == 0)
    if inexact.any():
        s = np.where(inexact, np.nextafter(s, np.where(err > 0, np.inf, -np.inf)), s)
    return s.astype(dtype)


def _axpy_rows(out, rows, coef, src_rows):
    """``out[rows[i]] += coef[i] * src_rows[i]`` for every entry i in order, each a fused
    multiply-add rounded once (torch's COO @ dense: one BLAS axpy per entry). Entries that
    hit the same output row are applied in rounds, the k-th one of each row in round k."""
    nnz = rows.shape[0]
    if nnz == 0:
        return out
    order = np.argsort(rows, kind="stable")
    srows = rows[order]
    starts = np.flatnonzero(np.concatenate(([True], srows[1:] != srows[:-1])))
    rank = np.empty_like(order)
    rank[order] = np.arange(nnz) - np.repeat(starts, np.diff(np.append(starts, nnz)))
    wide = np.float64 if out.dtype in (np.float32, np.float16) or \
        out.dtype.name == "bfloat16" else None
    if rank.max() == 0:
        rounds = [np.arange(nnz)]
    else:
        by_rank = np.argsort(rank, kind="stable")
        cuts = np.flatnonzero(np.diff(rank[by_rank])) + 1
        rounds = np.split(by_rank, cuts)
    for sel in rounds:
        r = rows[sel]
        if wide is not None:
            out[r] = _fused_add(out[r], coef[sel][:, None], src_rows[sel], out.dtype)
        else:
            out[r] = out[r] + coef[sel][:, None] * src_rows[sel]
    return out


def _coo_matmul_dense(sparse, dense_arr, out_dtype, alpha=1, init=None):
    """``init + alpha * (sparse @ dense)`` for a 2-d COO matrix, entry by entry as torch's
    kernel (``_axpy_rows``)."""
    rows, cols = _idx_np(sparse)
    vals = _val_np(sparse).astype(out_dtype.np, copy=False)
    m = sparse._sizes[0]
    n = dense_arr.shape[1]
    out = np.zeros((m, n), out_dtype.np) if init is None else init
    if rows.size == 0 or n == 0:
        return out
    coef = vals * np.asarray(alpha, out_dtype.np) if alpha != 1 else vals
    return _axpy_rows(out, rows, coef, dense_arr[cols].astype(out_dtype.np, copy=False))


def _dense_matmul_coo(dense_arr, sparse, out_dtype):
    """``dense @ sparse`` as torch computes it, ``(sparse^T @ dense^T)^T``: returned
    transposed (n, m), so the result is column-major."""
    rows, cols = _idx_np(sparse)
    vals = _val_np(sparse).astype(out_dtype.np, copy=False)
    n = sparse._sizes[1]
    out = np.zeros((n, dense_arr.shape[0]), out_dtype.np)
    if rows.size:
        _axpy_rows(out, cols, vals, dense_arr.T[rows].astype(out_dtype.np, copy=False))
    return out


def sparse_sparse_matmul(self, other):
    """COO @ COO: a COO result holding every (i, k) that some entries (i, j) and (j, k) of
    the coalesced operands meet at, explicit zeros included, coalesced."""
    check(self._sparse.sparse_dim == 2 and other._sparse.sparse_dim == 2 and
          self._sparse.dense_dim == 0 and other._sparse.dense_dim == 0, lambda: (
              "sparse_sparse_matmul_cpu: expected 2-D sparse tensors with scalar values"))
    check(self._sizes[1] == other._sizes[0], lambda: (
        f"mat1 and mat2 shapes cannot be multiplied ({self._sizes[0]}x{self._sizes[1]} and "
        f"{other._sizes[0]}x{other._sizes[1]})"))
    dtype = _mm_dtype(self, other)
    a = _coalesced_if(self, True)
    b = _coalesced_if(other, True)
    ai, aj = _idx_np(a)
    bj, bk = _idx_np(b)
    av, bv = _val_np(a), _val_np(b)
    lo = np.searchsorted(bj, aj, "left")
    counts = np.searchsorted(bj, aj, "right") - lo
    a_pos = np.repeat(np.arange(ai.shape[0]), counts)
    first = np.repeat(lo - np.concatenate(([0], np.cumsum(counts)[:-1])), counts)
    b_pos = np.arange(a_pos.shape[0]) + first
    n_out = other._sizes[1]
    prods = av[a_pos] * bv[b_pos]
    idx = np.stack([ai[a_pos], bk[b_pos]]) if a_pos.size else np.zeros((2, 0), np.int64)
    idx, vals = _coalesce_arrays(idx, prods.astype(dtype.np, copy=False),
                                 (self._sizes[0], n_out))
    if vals.dtype.kind in "fc":
        vals = vals + vals.dtype.type(0)        # torch's sums start from +0 (no -0 entries)
    return _coo_np(idx, vals, dtype, (self._sizes[0], n_out), True)


def _mm_dtype(a, b):
    check(a._dtype is b._dtype, lambda: (
        f"expected scalar type {_cpp(a._dtype)} but found {_cpp(b._dtype)}"))
    return a._dtype


def _cpp(dtype) -> str:
    return dtype._scalar_name


def mm_sparse(self, mat2):
    """``mm`` with a COO operand: sparse @ dense and dense @ sparse are dense; sparse @ sparse
    is sparse."""
    if _is_coo(self) and _is_coo(mat2):
        _check_mm_shapes(self._sizes, mat2._sizes, "mm")
        check(self._sizes[1] == mat2._sizes[0], lambda: (
            f"addmm: Argument #3 (dense): Expected dim 0 size {self._sizes[1]}, got "
            f"{mat2._sizes[0]}"))
        return sparse_sparse_matmul(self, mat2)
    if _is_coo(self):
        check(self._sparse.sparse_dim == 2, lambda: (
            f"addmm: matrices expected, got {self._sparse.sparse_dim}D tensor"))
        check(self._sparse.dense_dim == 0, lambda: (
            f"addmm: scalar values expected, got {self._sparse.dense_dim}D values"))
        if len(mat2._sizes) < 2:      # torch reads mat2.size(1) first
            raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but "
                             "got 1)")
        check(len(mat2._sizes) == 2, lambda: (
            f"addmm: matrices expected, got {len(mat2._sizes)}D tensor"))
        check(self._sizes[1] == mat2._sizes[0], lambda: (
            f"addmm: Argument #3 (dense): Expected dim 0 size {self._sizes[1]}, got "
            f"{mat2._sizes[0]}"))
        dtype = _mm_dtype(self, mat2)
        if dtype.name in _NO_MERGE_DTYPES and self._sparse.indices._sizes[1]:
            raise _not_implemented_for("addmm_sparse_dense", dtype)
        return _wrap(_coo_matmul_dense(self, mat2._array(), dtype), dtype)
    # dense @ sparse is (sparse^T @ dense^T)^T in torch: the sparse transpose comes first
    msp = mat2._sparse
    nd = len(mat2._sizes)
    check(nd - 1 < msp.sparse_dim, lambda: (
        f"sparse transpose: transposed dimensions must be sparse Got sparse_dim: "
        f"{msp.sparse_dim}, d0: {nd - 2}, d1: {nd - 1}"))
    _check_mm_shapes(self._sizes, mat2._sizes, "mm")
    check(self._sizes[1] == mat2._sizes[0], lambda: (
        f"mat1 and mat2 shapes cannot be multiplied ({self._sizes[0]}x{self._sizes[1]} and "
        f"{mat2._sizes[0]}x{mat2._sizes[1]})"))
    dtype = _mm_dtype(self, mat2)
    if dtype.name in _NO_MERGE_DTYPES and msp.indices._sizes[1]:
        raise _not_implemented_for("addmm_sparse_dense", dtype)
    return _wrap(_dense_matmul_coo(self._array(), mat2, dtype), dtype).t()


def addmm_sparse(self, mat1, mat2, beta=1, alpha=1):
    """``addmm(input, sparse, dense)``: ``beta * input + alpha * (sparse @ dense)``."""
    S = _S()
    check(_is_coo(mat1) and not _is_sparse(mat2), lambda: (
        "addmm: computation on CPU is not implemented for "
        f"{_layout_name(self)} + {_layout_name(mat1)} @ {_layout_name(mat2)}"))
    _check_mm_shapes(mat1._sizes, mat2._sizes, "addmm")
    m, k = mat1._sizes
    check(mat2._sizes[0] == k, lambda: (
        f"addmm: Argument #3 (dense): Expected dim 0 size {k}, got {mat2._sizes[0]}"))
    n = mat2._sizes[1]
    dense_self = self._to_dense() if _is_sparse(self) else self
    dense_self = dense_self.expand(m, n)
    dtype = _mm_dtype(mat1, mat2)
    nnz = mat1._sparse.indices._sizes[1]
    if nnz == 0:
        return S.mul(dense_self, S.scalar_tensor(beta, dtype=dtype))
    if dtype.name in _NO_MERGE_DTYPES:
        raise _not_implemented_for("addmm_sparse_dense", dtype)
    # torch's worker: r = beta * t (zeros for beta == 0), then one axpy per entry
    if beta == 0:
        init = np.zeros((m, n), dtype.np)
    elif beta == 1:
        init = np.array(dense_self._array(), dtype.np)
    else:
        init = np.array(S.mul(dense_self, S.scalar_tensor(beta, dtype=dtype))._array(),
                        dtype.np)
    return _wrap(_coo_matmul_dense(mat1, mat2._array(), dtype, alpha, init), dtype)


def sparse_addmm(self, mat1, mat2, beta=1, alpha=1):
    return addmm_sparse(self, mat1, mat2, beta, alpha)


def sparse_mm_composite(sparse, dense):
    """``torch._sparse_mm``: ``_sparse_addmm`` over zeros, so that the gradient of the sparse
    operand is sparse (torch's SparseAddmmBackward0); dense @ sparse goes through the
    transposes."""
    S = _S()
    if _is_sparse(sparse) and _is_sparse(dense):
        return S._sparse_sparse_matmul(sparse, dense)
    if _is_sparse(sparse):
        t = S.zeros(sparse.shape[-2], dense.shape[-1], dtype=dense.dtype)
        return _S().ops.aten._sparse_addmm(t, sparse, dense, beta=0, alpha=1)
    t = S.zeros(sparse.shape[-2], dense.shape[-1], dtype=sparse.dtype)
    return _S().ops.aten._sparse_addmm(t.transpose(-2, -1), dense.transpose(-2, -1),
                           sparse.transpose(-2, -1), beta=0, alpha=1).transpose(-2, -1)


def matmul_sparse(self, other):
    S = _S()
    if len(self._sizes) == 2 and len(other._sizes) == 2:
        return S.mm(self, other)
    if len(self._sizes) == 2 and len(other._sizes) == 1:
        return S.mm(self, other.unsqueeze(1)).squeeze(1)
    if len(self._sizes) == 1 and len(other._sizes) == 2:
        return S.mm(self.unsqueeze(0), other).squeeze(0)
    raise NotImplementedError(
        f"Could not run 'aten::matmul' with arguments from the '{'SparseCPU'}' backend.")


def mv_sparse(self, vec):
    check(len(self._sizes) == 2 and len(vec._sizes) == 1, lambda: (
        f"mv: two tensor dim should be 2 and 1, but got SparseTensor Dim: {len(self._sizes)} "
        f"and Tensor Dim: {len(vec._sizes)}"))
    return _S().mm(self, vec.unsqueeze(1)).squeeze(1)


# ---------------------------------------------------------------------- masks and softmax

def sparse_mask(self, mask):
    """Values of ``self`` (dense or sparse) at ``mask``'s entries, as a COO tensor."""
    check(_is_coo(mask), lambda: (
        f"sparse_mask expects mask to be sparse COO, but got {_layout_name(mask)}"))
    check(self._sizes == mask._sizes, lambda: (
        f"sparse_mask(): operands have incompatible sizes; self has size {list(self._sizes)} but "
        f"mask has size {list(mask._sizes)}"))
    msp = mask._sparse
    src = self._to_dense() if _is_sparse(self) else self
    idx = _idx_np(mask)
    arr = src._array()
    if msp.sparse_dim:
        picked = arr[tuple(idx)]
    else:
        picked = arr[None]
    vals = _wrap(np.ascontiguousarray(picked), self._dtype)
    # torch's result shares the mask's indices only when self has the very same ones
    same = _is_coo(self) and _same_indices(self, mask)
    return make_coo(msp.indices if same else msp.indices.clone(), vals, mask._sizes,
                    msp.coalesced)


def _softmax_impl(self, dim, log):
    S = _S()
    if self._dtype not in (dt.float32, dt.float64):
        raise _not_implemented_for("log_softmax" if log else "softmax", self._dtype)
    sp = self._sparse
    ndim = len(self._sizes)
    dim = maybe_wrap_dim(dim, ndim)
    src = _coalesced_if(self, True)
    vals = src._sparse.values
    if dim >= sp.sparse_dim:
        f = S.log_softmax if log else S.softmax
        out_vals = f(vals, dim - sp.sparse_dim + 1)
        return make_coo(_fresh_indices(src._sparse.indices), out_vals, self._sizes, True)
    idx = _idx_np(src)
    varr = vals._array()
    nnz = idx.shape[1]
    out = np.empty_like(varr)
    if nnz:
        # group the entries that differ only along ``dim``
        other = [d for d in range(sp.sparse_dim) if d != dim]
        key = _linear(idx[other], [self._sizes[d] for d in other])
        order = np.argsort(key, kind="stable")
        skey = key[order]
        starts = np.flatnonzero(np.concatenate(([True], skey[1:] != skey[:-1])))
        sv = varr[order]
        mx = np.maximum.reduceat(sv, starts, axis=0)
        group = np.repeat(np.arange(starts.size), np.diff(np.append(starts, nnz)))
        shifted = sv - mx[group]
        ex = np.exp(shifted)
        tot = np.add.reduceat(ex, starts, axis=0)
        res = shifted - np.log(tot[group]) if log else ex / tot[group]
        out[order] = res
    return make_coo(_fresh_indices(src._sparse.indices), _wrap(out, vals._dtype), self._sizes,
                    True)


def softmax_sparse(self, dim, half_to_float=False):
    return _softmax_impl(self, dim, False)


def log_softmax_sparse(self, dim, half_to_float=False):
    return _softmax_impl(self, dim, True)


def sparse_softmax_int(self, dim, dtype=None):
    src = self if dtype is None else self.to(dtype)
    return _S().ops.aten._sparse_softmax.default(src, dim, False)


def sparse_log_softmax_int(self, dim, dtype=None):
    src = self if dtype is None else self.to(dtype)
    return _S().ops.aten._sparse_log_softmax.default(src, dim, False)


def softmax_backward_sparse(grad_output, output, dim, self):
    """d softmax: ``out * (g - sum(g * out))`` over each group of ``dim``."""
    S = _S()
    g = grad_output if _is_coo(grad_output) else grad_output.sparse_mask(output)
    prod = S.mul(g, output)
    return _softmax_grad_combine(g, output, dim, prod, log=False)


def log_softmax_backward_sparse(grad_output, output, dim, self):
    g = grad_output if _is_coo(grad_output) else grad_output.sparse_mask(output)
    return _softmax_grad_combine(g, output, dim, g, log=True)


def _softmax_grad_combine(g, output, dim, summand, log):
    S = _S()
    gd = g._to_dense()
    od = output._to_dense()
    sd = summand._to_dense()
    mask = S.ones_like(od).sparse_mask(output)._to_dense()
    tot = sd.sum(dim, keepdim=True)
    if log:
        res = gd - S.exp(od) * tot
    else:
        res = od * (gd - tot)
    return res * mask.sparse_mask(output)


# ---------------------------------------------------------------------------- autograd aids

def values_backward_sparse(grad, self):
    """The gradient of ``values()``: ``grad`` as the values of a COO tensor with self's
    indices (what torch's ValuesBackward0 gives)."""
    sp = self._sparse
    return make_coo(sp.indices, grad, self._sizes, sp.coalesced)


def to_dense_backward_coo(grad, self, masked_grad=None):
    if masked_grad is False:
        return grad.to_sparse(self._sparse.sparse_dim)
    return sparse_mask(grad, self)


def copy_sparse_(self, src, non_blocking=False):
    check(_is_coo(src) and _is_coo(self), lambda: (
        f"copy_() between dense and sparse Tensors is not implemented! Found self type = "
        f"{self.type()} and src type = {src.type()}"))
    sp, ss = self._sparse, src._sparse
    self._sizes = src._sizes
    self._strides = (0,) * len(src._sizes)
    sp.indices = ss.indices.clone()
    sp.values = ss.values.to(self._dtype, copy=True)
    sp.sparse_dim, sp.dense_dim, sp.coalesced = ss.sparse_dim, ss.dense_dim, ss.coalesced
    self._vc[0] += 1
    return self


def any_sparse(self):
    return _S().any(self._sparse.values)


def unsqueeze_sparse(self, dim):
    sp = self._sparse
    ndim = len(self._sizes)
    dim = maybe_wrap_dim(dim, ndim + 1)
    sizes = self._sizes[:dim] + (1,) + self._sizes[dim:]
    if dim <= sp.sparse_dim:
        idx = _idx_np(self)
        new_idx = np.concatenate([idx[:dim], np.zeros((1, idx.shape[1]), np.int64), idx[dim:]])
        return _new_coo(new_idx, sp.values, sizes, idx.shape[1] < 2)
    vals = sp.values.unsqueeze(dim - sp.sparse_dim + 1)
    return make_coo(sp.indices, vals, sizes, sp.indices._sizes[1] < 2)


def pow_sparse_scalar(self, exponent):
    check(exponent != 0, lambda: (
        "pow: cannot raise to zeroth power on sparse tensor; it would make the result tensor "
        "dense"))
    src = _coalesced_if(self, True)
    sp = src._sparse
    vals = _S().pow(sp.values, exponent)
    if vals._dtype is not self._dtype:
        check(dt.can_cast(vals._dtype, self._dtype), lambda: (
            f"result type {vals._dtype._scalar_name} can't be cast to the desired output type "
            f"{self._dtype._scalar_name}"))
        vals = vals.to(self._dtype)
    return make_coo(_fresh_indices(sp.indices), vals, self._sizes, True)


def _local_scalar_sparse(self):
    n = 1
    for s in self._sizes:
        n *= s
    check(n == 1, lambda: f"a Tensor with {n} elements cannot be converted to Scalar")
    return _S().sum(self._sparse.values).item() if self._sparse.indices._sizes[1] else \
        self._dtype.np.type(0).item()


# ------------------------------------------------------------------- meta (SparseMeta)
# torch's meta kernels of the sparse ops know shapes, not entries: their results have no
# entries (nnz 0) with the right size, dims and dtype

def _meta_result(self, sizes=None, dtype=None):
    sp = self._sparse
    sizes = self._sizes if sizes is None else tuple(sizes)
    return sparse_coo_tensor_with_dims(sp.sparse_dim, sp.dense_dim, sizes,
                                       dtype or self._dtype, None, self._device)


def add_sparse_meta(self, other, alpha=1):
    S = _S()
    if not isinstance(other, S.Tensor) or not _is_coo(other) or not _is_coo(self):
        return add_sparse(self, other, alpha)
    check(self._sizes == other._sizes, lambda: (
        f"add: expected 'self' and 'other' to have same size, but self has size "
        f"{list(self._sizes)} while other has size {list(other._sizes)} (FYI: dense-sparse "
        f"addition does not currently support broadcasting)"))
    return _meta_result(self, dtype=dt.promote_types(self._dtype, other._dtype))


def transpose_sparse_meta(self, dim0, dim1):
    ndim = len(self._sizes)
    d0, d1 = maybe_wrap_dim(dim0, ndim), maybe_wrap_dim(dim1, ndim)
    sizes = list(self._sizes)
    sizes[d0], sizes[d1] = sizes[d1], sizes[d0]
    return _meta_result(self, sizes)


def t_sparse_meta(self):
    return transpose_sparse_meta(self, 0, 1) if len(self._sizes) == 2 else _meta_result(self)


def clone_sparse_meta(self, memory_format=None):
    return _meta_result(self)


def to_copy_sparse_meta(self, dtype=None, layout=None, device=None, pin_memory=None,
                        non_blocking=False, memory_format=None):
    return _meta_result(self, dtype=dtype)


# -------------------------------------------------------------------------- registrations

DISPATCH = []


def _row(qualname, fn, keys=("SparseCPU",)):
    for key in keys:
        DISPATCH.append((qualname, key, fn))


for _name, (_k, _k_) in _unary_kernels.items():
    _row(f"aten::{_name}", _k)
    if _name not in _NO_INPLACE:
        _row(f"aten::{_name}_", _k_)

_BOTH = ("SparseCPU", "SparseMeta")
_row("aten::add.Tensor", add_sparse)
_row("aten::add.Tensor", add_sparse_meta, ("SparseMeta",))
_row("aten::add_.Tensor", add_sparse_)
_row("aten::sub.Tensor", sub_sparse)
_row("aten::sub_.Tensor", sub_sparse_)
_row("aten::mul.Tensor", mul_sparse)
_row("aten::mul_.Tensor", mul_sparse_)
_row("aten::div.Tensor", div_sparse)
_row("aten::div.Tensor_mode", div_sparse)
_row("aten::sum", sum_coo, _BOTH)
_row("aten::sum.dim_IntList", sum_sparse_coo_dim)
_row("aten::transpose.int", transpose_sparse)
_row("aten::transpose.int", transpose_sparse_meta, ("SparseMeta",))
_row("aten::t", t_sparse)
_row("aten::t", t_sparse_meta, ("SparseMeta",))
_row("aten::narrow_copy", narrow_copy_sparse)
_row("aten::index_select", index_select_sparse)
_row("aten::mm", mm_sparse)
_row("aten::addmm", addmm_sparse)
_row("aten::matmul", matmul_sparse)
_row("aten::mv", mv_sparse)
_row("aten::clone", clone_sparse)
_row("aten::clone", clone_sparse_meta, ("SparseMeta",))
_row("aten::detach", detach_sparse, _BOTH)
_row("aten::_to_copy", to_copy_sparse)
_row("aten::_to_copy", to_copy_sparse_meta, ("SparseMeta",))
_row("aten::empty_like", empty_like_sparse, _BOTH)
_row("aten::zeros_like", zeros_like_sparse, _BOTH)
_row("aten::zero_", zero_sparse_, _BOTH)
_row("aten::empty.memory_format", empty_sparse, _BOTH)
_row("aten::copy_", copy_sparse_, _BOTH)
_row("aten::any", any_sparse)
_row("aten::unsqueeze", unsqueeze_sparse, _BOTH)
_row("aten::pow.Tensor_Scalar", pow_sparse_scalar)
_row("aten::_local_scalar_dense", _local_scalar_sparse)

del _name, _k, _k_


# factories with a sparse layout: kernels/factory.py's empty/zeros call this. The compressed
# layouts' module adds its layouts to COMPRESSED_FACTORY (layout -> fn(size, dtype, device)).
COMPRESSED_FACTORY: dict = {}


def sparse_factory(size, dtype, layout, device, name="empty"):
    if layout is layouts.sparse_coo:
        for n in size:
            if n < 0:
                raise RuntimeError("numel: integer multiplication overflow" if name == "empty"
                                   else f"{name}: Dimension size must be non-negative.")
        return sparse_coo_tensor_with_dims(len(size), 0, tuple(size), dtype, None, device)
    fn = COMPRESSED_FACTORY.get(layout)
    check(fn is not None, lambda: f"strided supports only the strided layout, got {layout}")
    return fn(tuple(size), dtype, device, name)


def embedding_sparse_grad(grad, indices, num_weights, padding_idx, scale_grad_by_freq):
    """``embedding_backward(..., sparse=True)``: one COO row per looked-up index (duplicates
    kept, uncoalesced), as torch's embedding_sparse_backward."""
    S = _S()
    check(not scale_grad_by_freq,
          "embedding_backward: scale_grad_by_freq not supported with sparse gradients")
    if padding_idx != -1:
        keep = indices != padding_idx
        indices = indices[keep]
        grad = grad[keep]
    num_features = grad.shape[-1]
    size = [num_weights, num_features]
    unsafe = S.ops.aten._sparse_coo_tensor_unsafe
    if grad.numel() == 0:
        return unsafe(S.empty(1, 0, dtype=S.int64), S.empty(0, num_features, dtype=grad.dtype),
                      size)
    return unsafe(indices.reshape(1, -1).to(S.int64), grad.reshape(-1, num_features), size)
