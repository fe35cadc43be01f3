"""Shape ops that copy: concatenation and stacking, flips and rolls, repeats, triangles and
diagonals, grids and combinations, padding.

Each kernel checks its arguments with torch's messages, decides the result's shape, dtype
and layout (all that a meta tensor gets), then fills it with one NumPy call on the
tensors' strided views.

Note [The layout of cat's result]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
``cat`` gives a row-major result unless every input suggests the same other memory format
(all channels-last 4-d tensors, say), which the result then keeps. Inputs that are 1-d and
empty take no part in the shape checks (torch's legacy rule: ``cat([empty(0), x])`` is
``x``'s copy), but still in the dtype promotion.
"""

from __future__ import annotations

import itertools

import numpy as np

from ..core import dtypes as dt
from ..core import layouts
from ..core.checks import check, check_index, check_value, maybe_wrap_dim
from ..core.devices import CPU as _CPU
from ..core.storage import UntypedStorage
from ..core.tensor_impl import (
    check_storage_bounds,
    contiguous_strides,
    make_tensor,
    new_cpu_tensor,
    numel_of,
)
from . import complex32 as _c32
from . import views
from .copy import copy_array
from .factory import _allocator, empty, empty_like, new_strided
from .memory_overlap import FULL, PARTIAL, get_overlap_status
from .resize import resize_output


def _is_meta(t) -> bool:
    return t._device.type == "meta"


def _written(out):
    out._vc[0] += 1
    return out


def _cpp_name(dtype) -> str:
    from .linalg import cpp_name
    return cpp_name(dtype)


def _check_out_dtype(out, dtype) -> None:
    check(out._dtype is dtype, lambda: (
        f"Expected out tensor to have dtype {_cpp_name(dtype)}, but got "
        f"{_cpp_name(out._dtype)} instead"))


def _fill_from(result, values: np.ndarray):
    """Copy ``values`` into ``result`` (casting like a C++ assignment)."""
    if numel_of(result._sizes):
        with np.errstate(all="ignore"):
            copy_array(result._array(), np.asarray(values))
    return result


def _promote_all(tensors):
    dtype = tensors[0]._dtype
    for t in tensors[1:]:
        if t._dtype is not dtype:
            dtype = dt.promote(dtype, t._dtype)
    return dtype


# -- memory formats ------------------------------------------------------------------------

def _strides_in_order(sizes, order) -> tuple:
    strides = [0] * len(sizes)
    acc = 1
    for d in order:
        strides[d] = acc
        acc *= max(sizes[d], 1)
    return tuple(strides)


# -- cat and friends (Note [The layout of cat's result]) -------------------------------------------

def _legacy_empty(t) -> bool:
    return t._sizes == (0,)


def _check_same_device(tensors) -> None:
    device = tensors[0]._device
    for t in tensors[1:]:
        check(t._device == device, lambda t=t: (
            f"Tensor on device {t._device} is not on the expected device {device}!"))


def _cat(tensors, dim, out):
    check_value(len(tensors) > 0, "torch.cat(): expected a non-empty list of Tensors")
    for i, t in enumerate(tensors):
        check(len(t._sizes) > 0, lambda i=i: (
            f"zero-dimensional tensor (at position {i}) cannot be concatenated"))
    parts = [t for t in tensors if not _legacy_empty(t)]
    ref = parts[0] if parts else tensors[0]
    ndim = len(ref._sizes)
    dim = maybe_wrap_dim(dim, ndim)
    _check_same_device(tensors)
    total = 0
    for i, t in enumerate(tensors):
        if _legacy_empty(t) and t is not ref:
            continue
        check(len(t._sizes) == ndim, lambda t=t: (
            f"Tensors must have same number of dimensions: got {ndim} and {len(t._sizes)}"))
        for d in range(ndim):
            if d != dim and t._sizes[d] != ref._sizes[d]:
                raise RuntimeError(
                    f"Sizes of tensors must match except in dimension {dim}. Expected size "
                    f"{ref._sizes[d]} but got size {t._sizes[d]} for tensor number {i} in the "
                    f"list.")
        total += t._sizes[dim]
    size = ref._sizes[:dim] + (total,) + ref._sizes[dim + 1:]
    dtype = _promote_all(tensors)
    device = ref._device
    if out is None:
        order = _cat_order(tensors)
        if order is None:
            result = empty(size, dtype, None, device)
        else:
            result = new_strided(size, _strides_in_order(size, order), dtype, device)
    else:
        check(dt.can_cast(dtype, out._dtype), lambda: (
            f"torch.cat(): input types can't be cast to the desired output type "
            f"{out._dtype._scalar_name}"), TypeError)
        for t in tensors:   # (a storage shared with an input stays shared when resized)
            check(get_overlap_status(out, t) not in (FULL, PARTIAL), (
                "unsupported operation: some elements of the input tensor and the written-to "
                "tensor refer to a single memory location. Please clone() the tensor before "
                "performing the operation."))
        if resize_output(out, size):   # a resized out= takes the result's memory format
            order = _cat_order(tensors)
            if order is not None:
                out._strides = _strides_in_order(size, order)
                out._np = None
        from .memory_overlap import assert_no_internal_overlap
        assert_no_internal_overlap(out)
        result = out
    if _is_meta(result) or not numel_of(size):
        return result if out is None else _written(result)
    arrays = [t._array() for t in parts if numel_of(t._sizes)]
    dst = result._array()
    if result._dtype is dt.complex32 or any(a.dtype == dt.COMPLEX32_NP for a in arrays):
        arrays = [_c32.castable(a, dst.dtype) for a in arrays]    # Note [complex32]
    if len(arrays) == 1:
        np.copyto(dst, arrays[0], casting="unsafe")
    elif all(a.dtype == dst.dtype for a in arrays):
        np.concatenate(arrays, dim, out=dst)     # no cast: no floating-point warning to hide
    else:
        with np.errstate(all="ignore"):
            np.concatenate(arrays, dim, out=dst, casting="unsafe")
    return result if out is None else _written(result)


def cat(tensors, dim=0):
    # Note [The short path of cat]: row-major CPU inputs of one dtype joined along dim 0
    # are runs of bytes; the result is their concatenation, with the inputs' strides.
    # Two inputs (the common case) are checked without a loop. Anything else, and every
    # error, takes the general path.
    if dim == 0 and len(tensors) == 2:
        a, b = tensors
        sa = a._sizes
        strides = a._strides
        dtype = a._dtype
        if (sa and a._device is _CPU and b._device is _CPU and b._dtype is dtype
                and b._strides == strides and b._sizes[1:] == sa[1:] and 0 not in sa
                and strides == contiguous_strides(sa)):
            itemsize = dtype.itemsize
            row_bytes = strides[0] * itemsize
            ra = sa[0]
            na = ra * row_bytes
            nb = b._sizes[0] * row_bytes
            start_a, start_b = a._offset * itemsize, b._offset * itemsize
            sta, stb = a._storage, b._storage
            if start_a + na > sta._nbytes or start_b + nb > stb._nbytes:
                check_storage_bounds(a)   # a storage shrunk under an input
                check_storage_bounds(b)   # (Note [Shrunk storages])
            # the fresh row-major result as the factories' fast path makes it (its strides
            # are the inputs'); an input that is its whole storage is copied unsliced
            res = new_cpu_tensor((ra + b._sizes[0],) + sa[1:], dtype, na + nb)[0]
            dst = res._storage._buf
            src_a, src_b = sta._buf, stb._buf
            dst[:na] = src_a if src_a.size == na else src_a[start_a:start_a + na]
            dst[na:na + nb] = src_b if src_b.size == nb else src_b[start_b:start_b + nb]
            return res
    elif dim == 0 and len(tensors) > 2:
        first = tensors[0]
        sizes = first._sizes
        strides = first._strides
        if (sizes and first._device is _CPU and 0 not in sizes
                and strides == contiguous_strides(sizes)):
            dtype = first._dtype
            rest = sizes[1:]
            rows = 0
            for t in tensors:
                s = t._sizes
                if (t._dtype is not dtype or t._device is not _CPU or t._strides != strides
                        or s[1:] != rest or not s):
                    break
                rows += s[0]
            else:
                itemsize = dtype.itemsize
                row_bytes = strides[0] * itemsize
                storage = UntypedStorage._new(rows * row_bytes, _CPU, _allocator(_CPU))
                dst = storage._buf
                pos = 0
                for t in tensors:
                    n = t._sizes[0] * row_bytes
                    if n:
                        start = t._offset * itemsize
                        if start + n > t._storage._nbytes:
                            check_storage_bounds(t)   # Note [Shrunk storages]
                        dst[pos:pos + n] = t._storage._buf[start:start + n]
                        pos += n
                return make_tensor(storage, (rows,) + rest, strides, 0, dtype)
    return _cat(tensors, dim, None)


def cat_out(tensors, dim=0, out=None):
    return _cat(tensors, dim, out)


def concat(tensors, dim=0):
    return cat(tensors, dim)


def concat_out(tensors, dim=0, out=None):
    return _cat(tensors, dim, out)


def concatenate(tensors, dim=0):
    return cat(tensors, dim)


def concatenate_out(tensors, dim=0, out=None):
    return _cat(tensors, dim, out)


def _cat_order(tensors):
    """The channels-last dim order of cat's result, or None (row-major): torch's
    ``compute_output_memory_format`` takes the format every input suggests (a skipped
    legacy-empty input suggests row-major too) and row-major when they differ."""
    order = None
    for i, t in enumerate(tensors):
        o = layouts.channels_last_order(t._sizes, t._strides)
        if o is None or (i and o != order):
            return None
        order = o
    return order


def _stack(tensors, dim, out):
    check(len(tensors) > 0, "stack expects a non-empty TensorList")
    ref = tensors[0]._sizes
    dim = maybe_wrap_dim(dim, len(ref) + 1)
    for i, t in enumerate(tensors):
        check(t._sizes == ref, lambda i=i, t=t: (
            f"stack expects each tensor to be equal size, but got {list(ref)} at entry 0 and "
            f"{list(t._sizes)} at entry {i}"))
    if out is None and _stack_directly(tensors):
        # Note [Stacking without views]: contiguous tensors of one dtype on the CPU stack
        # into a contiguous result (what cat of their unsqueezed views gives) in one
        # np.stack, without making a view per tensor.
        first = tensors[0]
        result = empty(ref[:dim] + (len(tensors),) + ref[dim:], first._dtype, None, _CPU)
        np.stack([t._array() for t in tensors], dim, out=result._array())
        return result
    if out is None and dim < len(ref) and _cat_order(tensors) is not None:
        # torch concatenates along ``dim`` (a channels-last result for channels-last inputs)
        # and views that as the stack: the new dim splits ``dim`` of the concatenation
        cat = _cat(tensors, dim, None)
        st = cat._strides
        return make_tensor(cat._storage, ref[:dim] + (len(tensors),) + ref[dim:],
                           st[:dim] + (ref[dim] * st[dim],) + st[dim:], cat._offset,
                           cat._dtype)
    return _cat([views.unsqueeze(t, dim) for t in tensors], dim, out)


def _stack_directly(tensors) -> bool:
    first = tensors[0]
    sizes, dtype = first._sizes, first._dtype
    if first._device is not _CPU or not numel_of(sizes):
        return False
    strides = contiguous_strides(sizes)
    for t in tensors:
        if t._dtype is not dtype or t._strides != strides or t._device is not _CPU:
            return False
    return True


def stack(tensors, dim=0):
    return _stack(tensors, dim, None)


def stack_out(tensors, dim=0, out=None):
    return _stack(tensors, dim, out)


def _atleast(t, ndim: int):
    """torch's atleast_1d/2d/3d: (n,) becomes (1, n) and (1, n, 1); (a, b) becomes
    (a, b, 1)."""
    n = len(t._sizes)
    if n >= ndim:
        return t
    if n == 0:
        return views.reshape(t, (1,) * ndim)
    if ndim == 2 or n == 1:
        t = views.unsqueeze(t, 0)
    return views.unsqueeze(t, 2) if ndim == 3 else t


def _nonempty(tensors, name: str) -> None:
    check(len(tensors) > 0, f"{name} expects a non-empty TensorList")


def _hstack(tensors, out):
    _nonempty(tensors, "hstack")
    parts = [_atleast(t, 1) for t in tensors]
    return _cat(parts, 0 if len(parts[0]._sizes) == 1 else 1, out)


def hstack(tensors):
    return _hstack(tensors, None)


def hstack_out(tensors, out):
    return _hstack(tensors, out)


def _vstack(tensors, out, name="vstack"):
    _nonempty(tensors, name)
    return _cat([_atleast(t, 2) for t in tensors], 0, out)


def vstack(tensors):
    return _vstack(tensors, None)


def vstack_out(tensors, out):
    return _vstack(tensors, out)


def row_stack(tensors):
    return _vstack(tensors, None)


def row_stack_out(tensors, out):
    return _vstack(tensors, out)


def _dstack(tensors, out):
    _nonempty(tensors, "dstack")
    return _cat([_atleast(t, 3) for t in tensors], 2, out)


def dstack(tensors):
    return _dstack(tensors, None)


def dstack_out(tensors, out):
    return _dstack(tensors, out)


def _column_stack(tensors, out):
    _nonempty(tensors, "column_stack")
    parts = [views.reshape(t, (numel_of(t._sizes), 1)) if len(t._sizes) <= 1 else t
             for t in tensors]
    return _cat(parts, 1, out)


def column_stack(tensors):
    return _column_stack(tensors, None)


def column_stack_out(tensors, out):
    return _column_stack(tensors, out)


# -- flip, roll, rot90 ---------------------------------------------------------------------------

def _wrap_unique(dims, ndim) -> tuple:
    seen = []
    for d in dims:
        w = maybe_wrap_dim(d, ndim)
        check(w not in seen, lambda w=w: f"dim {w} appears multiple times in the list of dims")
        seen.append(w)
    return tuple(seen)


def flip(self, dims):
    axes = _wrap_unique(dims, len(self._sizes))
    result = empty_like(self)   # torch keeps the input's layout (preserve_format)
    if _is_meta(self) or not numel_of(self._sizes):
        return result
    if not self._sizes:
        axes = ()
    src = self._array()
    return _fill_from(result, np.flip(src, axes) if axes else src)


def fliplr(self):
    check(len(self._sizes) >= 2, "Input must be >= 2-d.")
    return flip(self, (1,))


def flipud(self):
    check(len(self._sizes) >= 1, "Input must be >= 1-d.")
    return flip(self, (0,))


def roll(self, shifts, dims=()):
    shifts, dims = tuple(shifts), tuple(dims)
    if not dims:
        check(len(shifts) > 0, "`shifts` required")
        check(len(shifts) == 1, lambda: (
            f"shifts and dimensions must align. shifts: {len(shifts)}, dims:0"))
    else:
        check(len(shifts) == len(dims), lambda: (
            f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}"))
    ndim = len(self._sizes)
    axes = tuple(maybe_wrap_dim(d, ndim) for d in dims)
    check_index(ndim > 0 or not axes, lambda: (
        f"Dimension specified as {dims[0]} but tensor has no dimensions"))
    if not numel_of(self._sizes):
        from .factory import clone
        return clone(self)   # torch: an empty input is cloned, its strides kept
    result = empty(self._sizes, self._dtype, None, self._device)
    if _is_meta(self) or not numel_of(self._sizes):
        return result
    src = self._array()
    rolled = np.roll(src.reshape(-1), shifts[0]).reshape(src.shape) if not axes else \
        np.roll(src, shifts, axes)
    return _fill_from(result, rolled)


def rot90(self, k=1, dims=(0, 1)):
    dims = tuple(dims)
    check(len(dims) == 2, lambda: f"expected total rotation dims == 2, but got dims = {len(dims)}")
    ndim = len(self._sizes)
    check(ndim >= 2, lambda: f"expected total dims >= 2, but got total dims = {ndim}")
    # torch wraps both dims (their range errors first), then names them as given
    d0, d1 = maybe_wrap_dim(dims[0], ndim), maybe_wrap_dim(dims[1], ndim)
    check(d0 != d1, lambda: (
        f"expected rotation dims to be different, but got dim0 = {dims[0]} and dim1 = "
        f"{dims[1]}"))
    k %= 4
    if k == 1:
        return views.transpose(flip(self, (d1,)), d0, d1)
    if k == 2:
        return flip(self, (d0, d1))
    if k == 3:
        return views.transpose(flip(self, (d0,)), d0, d1)
    from ..core.layouts import contiguous_format
    from .factory import clone
    return clone(self, contiguous_format)


# -- repeat, tile, repeat_interleave ---------------------------------------------------------------

def repeat(self, repeats):
    repeats = tuple(repeats)
    ndim = len(self._sizes)
    check(len(repeats) >= ndim, (
        "Number of dimensions of repeat dims can not be smaller than number of dimensions of "
        "tensor"))
    padded = (1,) * (len(repeats) - ndim) + self._sizes
    size = tuple(s * r for s, r in zip(padded, repeats))
    result = empty(size, self._dtype, None, self._device)
    if _is_meta(self) or not numel_of(size):
        return result
    return _fill_from(result, np.tile(self._array().reshape(padded), repeats))


def tile(self, dims):
    dims = tuple(dims)
    ndim = len(self._sizes)
    if len(dims) < ndim:
        dims = (1,) * (ndim - len(dims)) + dims
    return repeat(self, dims)


def _check_repeats(repeats) -> None:
    check(repeats.dim() == 1, "repeat_interleave only accept 1D vector as repeat")
    if repeats._dtype not in (dt.int32, dt.int64) and not _is_meta(repeats):
        raise NotImplementedError(
            f'"repeat_interleave_cpu" not implemented for \'{repeats._dtype._scalar_name}\'')


def _repeat_counts(repeats) -> np.ndarray:
    counts = repeats._array().astype(np.int64)
    check(not (counts < 0).any(), "repeats can not be negative")
    return counts


def repeat_interleave_Tensor(repeats, output_size=None):
    _check_repeats(repeats)
    if _is_meta(repeats):
        check(output_size is not None, "repeat_interleave: output_size must be given for meta")
        return empty((output_size,), repeats._dtype, None, repeats._device)
    counts = _repeat_counts(repeats)
    total = int(counts.sum())
    check(output_size is None or output_size == total,
          "allocated size does not match required size")
    result = empty((total,), repeats._dtype, None, repeats._device)
    return _fill_from(result, np.repeat(np.arange(len(counts)), counts))


def _interleave(self, counts_or_int, dim, output_size, repeats_len=None):
    if dim is None:
        self = views.reshape(self, (numel_of(self._sizes),))
        dim = 0
    else:
        dim = maybe_wrap_dim(dim, len(self._sizes))
    if isinstance(counts_or_int, int):
        check(counts_or_int >= 0, "Repeats must be non-negative")
        n = self._sizes[dim] * counts_or_int if self._sizes else counts_or_int
    else:
        if len(counts_or_int) == 1:
            counts_or_int = np.repeat(counts_or_int, self._sizes[dim] if self._sizes else 1)
        size_dim = self._sizes[dim] if self._sizes else 1
        check(len(counts_or_int) == size_dim, lambda: (
            f"repeats must have the same size as input along dim, but got repeats.size(0) = "
            f"{repeats_len} and input.size({dim}) = {size_dim}"))
        n = int(counts_or_int.sum())
    check(output_size is None or output_size == n,
          "allocated size does not match required size")
    if not self._sizes:
        self = views.reshape(self, (1,))
    size = self._sizes[:dim] + (n,) + self._sizes[dim + 1:]
    result = empty(size, self._dtype, None, self._device)
    if _is_meta(self) or not numel_of(size):
        return result
    return _fill_from(result, np.repeat(self._array(), counts_or_int, axis=dim))


def repeat_interleave_self_Tensor(self, repeats, dim=None, output_size=None):
    check(repeats.dim() <= 1, "repeat_interleave only accept 1D vector as repeat")
    if repeats.dim() == 0 or numel_of(repeats._sizes) == 1:
        if repeats._dtype not in (dt.int32, dt.int64):
            raise NotImplementedError(
                f'"repeat_interleave_cpu" not implemented for \'{repeats._dtype._scalar_name}\'')
        count = int(repeats._array().reshape(-1)[0])
        return _interleave(self, count, dim, output_size)
    _check_repeats(repeats)
    return _interleave(self, _repeat_counts(repeats), dim, output_size, repeats._sizes[0])


def repeat_interleave_self_int(self, repeats, dim=None, output_size=None):
    return _interleave(self, repeats, dim, output_size)


# -- triangles and diagonals -------------------------------------------------------------------

def _tri_mask(self, diagonal: int, lower: bool) -> np.ndarray:
    n, m = self._sizes[-2], self._sizes[-1]
    mask = np.tri(n, m, diagonal, dtype=bool)
    return mask if lower else ~np.tri(n, m, diagonal - 1, dtype=bool)


def _tri(self, diagonal, out, lower: bool):
    name = "tril" if lower else "triu"
    check(len(self._sizes) >= 2, lambda: (
        f"{name}: input tensor must have at least 2 dimensions"))
    if out is None:
        result = empty(self._sizes, self._dtype, None, self._device)
    else:
        _check_out_dtype(out, self._dtype)
        resize_output(out, self._sizes)
        result = out
    if not _is_meta(self) and numel_of(self._sizes):
        src = self._array()
        if result is self:
            src[..., ~_tri_mask(self, diagonal, lower)] = 0
        else:
            _fill_from(result, np.where(_tri_mask(self, diagonal, lower), src,
                                        np.zeros((), src.dtype)))
    return result if out is None else _written(result)


def tril(self, diagonal=0):
    return _tri(self, diagonal, None, True)


def tril_out(self, diagonal=0, out=None):
    return _tri(self, diagonal, out, True)


def tril_(self, diagonal=0):
    return _tri(self, diagonal, self, True)


def triu(self, diagonal=0):
    return _tri(self, diagonal, None, False)


def triu_out(self, diagonal=0, out=None):
    return _tri(self, diagonal, out, False)


def triu_(self, diagonal=0):
    return _tri(self, diagonal, self, False)


def _diag(self, diagonal, out):
    ndim = len(self._sizes)
    # diag_out's message has no "diag(): " prefix
    check(ndim in (1, 2), lambda: f"{'diag(): ' if out is None else ''}Supports 1D or 2D "
                                  f"tensors. Got {ndim}D")
    if ndim == 1:
        n = self._sizes[0] + abs(diagonal)
        if out is None:
            result = empty((n, n), self._dtype, None, self._device)
        else:
            check(dt.can_cast(self._dtype, out._dtype), lambda: (
                f"diag: result type {self._dtype._scalar_name} can't be cast to the desired "
                f"out= type {out._dtype._scalar_name}"))
            resize_output(out, (n, n))
            _check_out_dtype(out, self._dtype)
            result = out
        if not _is_meta(self) and n:
            dst = result._array()
            with np.errstate(all="ignore"):
                dst[...] = 0
                k = self._sizes[0]
                if k:
                    rows = np.arange(k) + max(-diagonal, 0)
                    dst[rows, rows + diagonal] = self._array()
        return result if out is None else _written(result)
    values = views.diagonal(self, diagonal, 0, 1)
    if out is None:
        result = empty(values._sizes, self._dtype, None, self._device)
    else:
        _check_out_dtype(out, self._dtype)
        resize_output(out, values._sizes)
        result = out
    if not _is_meta(self):
        _fill_from(result, values._array())
    return result if out is None else _written(result)


def diag(self, diagonal=0):
    return _diag(self, diagonal, None)


def diag_out(self, diagonal=0, out=None):
    return _diag(self, diagonal, out)


def diag_embed(self, offset=0, dim1=-2, dim2=-1):
    ndim = len(self._sizes) + 1
    d1, d2 = maybe_wrap_dim(dim1, ndim), maybe_wrap_dim(dim2, ndim)
    check(d1 != d2, lambda: f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    n = self._sizes[-1] + abs(offset)
    sizes = list(self._sizes[:-1])
    for d in sorted((d1, d2)):
        sizes.insert(d, n)
    result = empty(tuple(sizes), self._dtype, None, self._device)
    if _is_meta(self):
        return result
    if numel_of(result._sizes):
        result._array()[...] = 0
        target = views.diagonal(result, offset, d1, d2)
        with np.errstate(all="ignore"):
            copy_array(target._array(), self._array())
    return result


def diagflat(self, offset=0):
    return _diag(views.reshape(self, (numel_of(self._sizes),)), offset, None)


def block_diag(tensors):
    mats = []
    for i, t in enumerate(tensors):
        nd = len(t._sizes)
        check(nd <= 2, lambda i=i, nd=nd: (
            f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has "
            f"{nd} dimensions"))
        mats.append(views.reshape(t, (1, 1)) if nd == 0 else
                    views.unsqueeze(t, 0) if nd == 1 else t)
    if not mats:
        return empty((1, 0), None, None, None)
    dtype = _promote_all(mats)
    rows = sum(m._sizes[0] for m in mats)
    cols = sum(m._sizes[1] for m in mats)
    result = empty((rows, cols), dtype, None, mats[0]._device)
    if _is_meta(result) or not rows * cols:
        return result
    dst = result._array()
    dst[...] = 0
    r = c = 0
    with np.errstate(all="ignore"):
        for m in mats:
            h, w = m._sizes
            if h and w:
                copy_array(dst[r:r + h, c:c + w], m._array())
            r += h
            c += w
    return result


# -- meshgrid, cartesian_prod, combinations ------------------------------------------------------

def _meshgrid(tensors, indexing, view=views.view, expand=views.expand):
    check(len(tensors) > 0, "meshgrid expects a non-empty TensorList")
    for t in tensors[1:]:
        check(t._dtype is tensors[0]._dtype, "meshgrid expects all tensors to have the same dtype")
        check(t._device == tensors[0]._device,
              "meshgrid expects all tensors to have the same device")
    check(indexing in ("xy", "ij"), lambda: (
        f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}'))
    for t in tensors:
        check(len(t._sizes) <= 1, lambda t=t: (
            "torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: "
            + _legacy_print(t)))
    swap = indexing == "xy" and len(tensors) >= 2
    ordered = list(tensors)
    if swap:
        ordered[0], ordered[1] = ordered[1], ordered[0]
    shape = tuple(numel_of(t._sizes) for t in ordered)
    n = len(ordered)
    grids = []
    for i, t in enumerate(ordered):
        view_shape = (1,) * i + (-1,) + (1,) * (n - i - 1)
        grids.append(expand(view(t, view_shape), shape))
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return grids


def _legacy_print(t) -> str:
    """The tail of torch's C++ tensor printing, which its meshgrid error shows (the values
    that torch prints before it are left out)."""
    name = {"float32": "Float", "float64": "Double", "int64": "Long", "int32": "Int"}.get(
        t._dtype.name, t._dtype._scalar_name)
    return f"\n[ torch.{name}Tensor{{{','.join(map(str, t._sizes))}}} ]"


def _warn_no_indexing():
    views.warn_once("meshgrid", "torch.meshgrid: in an upcoming release, it will be required "
                    "to pass the indexing argument.")


def _check_vectors(tensors):
    for t in tensors:
        check(len(t._sizes) == 1, lambda t=t: (
            f"Expect a 1D vector, but got shape {list(t._sizes)}"))


def meshgrid(tensors):
    _warn_no_indexing()
    return _meshgrid(tensors, "ij")


def meshgrid_indexing(tensors, indexing):
    return _meshgrid(tensors, indexing)


def cartesian_prod(tensors):
    _check_vectors(tensors)
    if len(tensors) == 1:
        return tensors[0]
    grids = _meshgrid(tensors, "ij")
    return _stack([views.reshape(g, (numel_of(g._sizes),)) for g in grids], 1, None)


def combinations(self, r=2, with_replacement=False):
    check(len(self._sizes) == 1, lambda: (
        f"Expect a 1D vector, but got shape {list(self._sizes)}"))
    check(r >= 0, lambda: f"Expect a non-negative number, but got {r}")
    if r == 0:
        return empty((0,), self._dtype, None, self._device)
    n = self._sizes[0]
    pick = itertools.combinations_with_replacement if with_replacement else \
        itertools.combinations
    index = np.array(list(pick(range(n), r)), dtype=np.int64).reshape(-1, r)
    result = empty((index.shape[0], r), self._dtype, None, self._device)
    if _is_meta(self) or not index.size:
        return result
    return _fill_from(result, self._array()[index])


# -- padding -----------------------------------------------------------------------------------

def _check_pad_length(self, pad) -> None:
    check(len(pad) % 2 == 0, "Padding length must be divisible by 2")
    check(len(pad) // 2 <= len(self._sizes), lambda: (
        f"Padding length should be less than or equal to two times the input dimension but "
        f"got padding length {len(pad)} and input of dimension {len(self._sizes)}"))


def constant_pad_nd(self, pad, value=0):
    pad = tuple(pad)
    _check_pad_length(self, pad)
    ndim = len(self._sizes)
    sizes = list(self._sizes)
    src = self
    for i in range(len(pad) // 2):
        d = ndim - 1 - i
        lo, hi = pad[2 * i], pad[2 * i + 1]
        # negative pads crop: torch narrows first
        if lo < 0 or hi < 0:
            start = -lo if lo < 0 else 0
            length = sizes[d] - start - (-hi if hi < 0 else 0)
            check(length >= 0, "narrow(): length must be non-negative.")
            src = views.narrow(src, d, start, length)
        sizes[d] = self._sizes[d] + lo + hi
    if all(p <= 0 for p in pad):   # torch returns a clone of the cropped input (layout kept)
        from .factory import clone
        return clone(src)
    for d, s in enumerate(sizes):
        check(s >= 0, lambda d=d, s=s: (
            f"The input size {self._sizes[d]}, plus negative padding {pad[2 * (ndim - 1 - d)]} "
            f"and {pad[2 * (ndim - 1 - d) + 1]} resulted in a negative output size, which is "
            f"invalid. Check dimension {d} of your input."))
    from .factory import _filled
    # the result has the input's suggested memory format, as torch's (a dense block either way)
    result = _filled(empty(tuple(sizes), self._dtype, None, self._device, None,
                           layouts.suggest_memory_format(self._sizes, self._strides)), value)
    if _is_meta(self) or not numel_of(src._sizes):
        return result
    index = [slice(None)] * ndim
    for i in range(len(pad) // 2):
        d = ndim - 1 - i
        lo = max(pad[2 * i], 0)
        index[d] = slice(lo, lo + src._sizes[d])
    with np.errstate(all="ignore"):
        copy_array(result._array()[tuple(index)], src._array())
    return result


_PAD_KERNEL = {"reflect": "reflection_pad", "replicate": "replication_pad",
               "circular": "circular_pad"}


def _check_nonconstant_pad(self, pad, mode) -> int:
    ndim = len(self._sizes)
    k = len(pad) // 2
    if not ((k == 1 and ndim in (2, 3)) or (k == 2 and ndim in (3, 4))
            or (k == 3 and ndim in (4, 5))):
        raise NotImplementedError(
            f"Padding size {len(pad)} is not supported for {ndim}D input tensor.\n"
            "Supported combinations for non-constant padding:\n"
            "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
            "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
            "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")
    return k


def _check_nonempty_spatial(self, k: int) -> None:
    sizes = self._sizes
    batch_mode = len(sizes) == k + 2   # only a batch dim may be empty
    ok = all(s != 0 for s in sizes[1 if batch_mode else 0:])
    if not ok:
        lo, hi = {1: ("2D", "3D"), 2: ("3D", "4D"), 3: ("4D", "5D")}[k]
        raise RuntimeError(
            f"Expected {lo} or {hi} (batch mode) tensor with possibly 0 batch size and other "
            f"non-zero dimensions for input, but got: {list(sizes)}")


def _nonconstant_widths(self, pad, mode):
    """The checks of a reflect/replicate/circular pad; the result's sizes and, per padded
    dim from the last one, ``(dim, lo, hi)``."""
    k = _check_nonconstant_pad(self, pad, mode)
    ndim = len(self._sizes)
    if mode != "circular":
        _check_nonempty_spatial(self, k)
        if self._dtype.category == dt.BOOL and not _is_meta(self):
            raise NotImplementedError(
                f'"{_PAD_KERNEL[mode]}{k}d" not implemented for \'Bool\'')
    sizes = list(self._sizes)
    widths = []
    for i in range(k):
        d = ndim - 1 - i
        lo, hi = pad[2 * i], pad[2 * i + 1]
        size = self._sizes[d]
        if mode == "reflect":
            check(lo < size and hi < size, lambda lo=lo, hi=hi, d=d: (
                f"Argument #4: Padding size should be less than the corresponding input "
                f"dimension, but got: padding ({lo}, {hi}) at dimension {d} of input "
                f"{list(self._sizes)}"))
        elif mode == "circular":
            check(lo <= size and hi <= size,
                  "Padding value causes wrapping around more than once.")
            check(size + lo + hi >= 0,
                  "Negative padding value is resulting in an empty dimension")
        sizes[d] = size + lo + hi
        widths.append((d, lo, hi))
    return sizes, widths


def _pad_nonconstant(self, pad, mode):
    sizes, widths = _nonconstant_widths(self, pad, mode)
    ndim = len(self._sizes)
    result = empty(tuple(sizes), self._dtype, None, self._device)
    if _is_meta(self) or not numel_of(sizes):
        return result
    arr = self._array()
    np_mode = {"reflect": "reflect", "replicate": "edge", "circular": "wrap"}[mode]
    for d, lo, hi in widths:
        # negative pads crop, positive ones extend (one dim at a time)
        start = -lo if lo < 0 else 0
        stop = arr.shape[d] + hi if hi < 0 else arr.shape[d]
        index = [slice(None)] * ndim
        index[d] = slice(start, stop)
        arr = arr[tuple(index)]
        width = [(0, 0)] * ndim
        width[d] = (max(lo, 0), max(hi, 0))
        if lo > 0 or hi > 0:
            arr = np.pad(arr, width, mode=np_mode)
    return _fill_from(result, arr)


def pad(self, pad, mode="constant", value=None):
    pad = tuple(pad)
    check(len(pad) % 2 == 0, "Padding length must be divisible by 2")
    if mode == "constant":
        return constant_pad_nd(self, pad, 0 if value is None else value)
    check(value is None or value == 0, lambda: (
        f'Padding mode "{mode}" doesn\'t take in value argument'))
    if mode not in _PAD_KERNEL:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    _check_pad_length(self, pad)
    if mode != "circular":
        # torch's reflection_pad{k}d / replication_pad{k}d ops (kernels/nn/vision.py)
        k = _check_nonconstant_pad(self, pad, mode)
        return _call(f"aten::{_PAD_KERNEL[mode]}{k}d", self, list(pad))
    return _pad_nonconstant(self, pad, mode)


# -- decompositions for the Autograd key (Note [Composite views under autograd] in views.py) ---
#
# torch implements these as CompositeImplicitAutograd: under autograd they are the ops they
# call (``torch.hstack(...).grad_fn`` is a CatBackward0). Each checks its arguments as the
# direct kernel above does, then calls the public ops.

_call = views._call_op


def concat_autograd(tensors, dim=0):
    return _call("aten::cat", tensors, dim)


def concatenate_autograd(tensors, dim=0):
    return _call("aten::cat", tensors, dim)


def _atleast_autograd(t, ndim: int):
    """torch's atleast_1d/2d/3d through the public ops (reshape for 0-d, unsqueeze)."""
    n = len(t._sizes)
    if n >= ndim:
        return t
    if n == 0:
        return views.reshape_autograd(t, (1,) * ndim)
    if ndim == 2 or n == 1:
        t = _call("aten::unsqueeze", t, 0)
    return _call("aten::unsqueeze", t, 2) if ndim == 3 else t


def hstack_autograd(tensors):
    _nonempty(tensors, "hstack")
    parts = [_atleast_autograd(t, 1) for t in tensors]
    return _call("aten::cat", parts, 0 if len(parts[0]._sizes) == 1 else 1)


def vstack_autograd(tensors):
    _nonempty(tensors, "vstack")
    return _call("aten::cat", [_atleast_autograd(t, 2) for t in tensors], 0)


def row_stack_autograd(tensors):
    _nonempty(tensors, "vstack")
    return _call("aten::cat", [_atleast_autograd(t, 2) for t in tensors], 0)


def dstack_autograd(tensors):
    _nonempty(tensors, "dstack")
    return _call("aten::cat", [_atleast_autograd(t, 3) for t in tensors], 2)


def column_stack_autograd(tensors):
    _nonempty(tensors, "column_stack")
    parts = [views.reshape_autograd(t, (numel_of(t._sizes), 1)) if len(t._sizes) <= 1 else t
             for t in tensors]
    return _call("aten::cat", parts, 1)


def fliplr_autograd(self):
    check(len(self._sizes) >= 2, "Input must be >= 2-d.")
    return _call("aten::flip", self, [1])


def flipud_autograd(self):
    check(len(self._sizes) >= 1, "Input must be >= 1-d.")
    return _call("aten::flip", self, [0])


def tile_autograd(self, dims):
    dims = tuple(dims)
    ndim = len(self._sizes)
    if len(dims) < ndim:
        dims = (1,) * (ndim - len(dims)) + dims
    return _call("aten::repeat", self, list(dims))


def _interleave_input(self, dim):
    if dim is None:
        return views.flatten_using_ints_autograd(self), 0
    return self, maybe_wrap_dim(dim, len(self._sizes))


def repeat_interleave_self_int_autograd(self, repeats, dim=None, output_size=None):
    """torch's decomposition: each slice along ``dim`` repeated through unsqueeze, expand,
    a contiguous clone and a flatten of the two dims."""
    from ..core.layouts import contiguous_format
    check(repeats >= 0, "Repeats must be non-negative")
    x, d = _interleave_input(self, dim)
    if not x._sizes:
        x = views.reshape_autograd(x, (1,))
    n = x._sizes[d] * repeats
    check(output_size is None or output_size == n,
          "allocated size does not match required size")
    y = _call("aten::unsqueeze", x, d + 1)
    sizes = list(y._sizes)
    sizes[d + 1] = repeats
    y = _call("aten::clone", _call("aten::expand", y, sizes, False), contiguous_format)
    return views.flatten_using_ints_autograd(y, d, d + 1)


def repeat_interleave_self_Tensor_autograd(self, repeats, dim=None, output_size=None):
    """torch's decomposition: ``index_select`` with the indices that
    ``repeat_interleave(repeats)`` gives."""
    check(repeats.dim() <= 1, "repeat_interleave only accept 1D vector as repeat")
    x, d = _interleave_input(self, dim)
    size_dim = x._sizes[d] if x._sizes else 1
    if repeats.dim() == 0 or numel_of(repeats._sizes) == 1:
        if repeats._dtype not in (dt.int32, dt.int64):
            raise NotImplementedError(
                f'"repeat_interleave_cpu" not implemented for \'{repeats._dtype._scalar_name}\'')
        repeats = views.expand(views.reshape(repeats, (1,)), (size_dim,))
    else:
        _check_repeats(repeats)
        check(repeats._sizes[0] == size_dim, lambda: (
            f"repeats must have the same size as input along dim, but got repeats.size(0) = "
            f"{repeats._sizes[0]} and input.size({d}) = {size_dim}"))
    index = repeat_interleave_Tensor(repeats, output_size)
    return _call("aten::index_select", x, d, index)


def diag_autograd(self, diagonal=0):
    ndim = len(self._sizes)
    check(ndim in (1, 2), lambda: f"diag(): Supports 1D or 2D tensors. Got {ndim}D")
    if ndim == 1:
        return _call("aten::diag_embed", self, diagonal, 0, 1)
    return _call("aten::diagonal_copy", self, diagonal, 0, 1)   # torch: DiagonalBackward0_copy


def diagflat_autograd(self, offset=0):
    from ..core.layouts import contiguous_format
    flat = _call("aten::view", _call("aten::contiguous", self, contiguous_format),
                 (numel_of(self._sizes),))
    return _call("aten::diag_embed", flat, offset, 0, 1)


def _meshgrid_autograd(tensors, indexing):
    return _meshgrid(tensors, indexing, lambda t, shape: _call("aten::view", t, shape),
                     lambda t, shape: _call("aten::expand", t, shape, False))


def meshgrid_autograd(tensors):
    _warn_no_indexing()
    return _meshgrid_autograd(tensors, "ij")


def meshgrid_indexing_autograd(tensors, indexing):
    return _meshgrid_autograd(tensors, indexing)


def cartesian_prod_autograd(tensors):
    _check_vectors(tensors)
    if len(tensors) == 1:
        return tensors[0]
    grids = _meshgrid_autograd(tensors, "ij")
    return _call("aten::stack", [views.flatten_using_ints_autograd(g) for g in grids], 1)


def combinations_autograd(self, r=2, with_replacement=False):
    """torch's decomposition: ``r`` meshgrid copies of ``self``, each masked to the index
    tuples that are increasing (non-decreasing with replacement), stacked as columns."""
    check(len(self._sizes) == 1, lambda: (
        f"Expect a 1D vector, but got shape {list(self._sizes)}"))
    check(r >= 0, lambda: f"Expect a non-negative number, but got {r}")
    if r == 0:
        return empty((0,), self._dtype, None, self._device)
    n = self._sizes[0]
    grids = _meshgrid_autograd([self] * r, "ij")
    index = np.indices((n,) * r)
    keep = np.ones((n,) * r, dtype=bool)
    for k in range(r - 1):
        keep &= index[k] <= index[k + 1] if with_replacement else index[k] < index[k + 1]
    mask = _fill_from(empty(keep.shape, dt.bool_, None, self._device), keep)
    return _call("aten::stack", [_call("aten::masked_select", g, mask) for g in grids], 1)


def _slice(t, d, start, end):
    return _call("aten::slice.Tensor", t, d, start, end, 1)


def pad_autograd(self, pad, mode="constant", value=None):
    """``constant`` is ``constant_pad_nd``; ``reflect`` and ``replicate`` are torch's
    reflection_pad{k}d / replication_pad{k}d ops (kernels/nn/vision.py); ``circular`` is
    torch's decomposition (the input copied into the middle of a new tensor, then each
    padded dim's edges copied from the opposite side, CopySlices in the graph)."""
    pad = tuple(pad)
    check(len(pad) % 2 == 0, "Padding length must be divisible by 2")
    if mode == "constant":
        return _call("aten::constant_pad_nd", self, list(pad), 0 if value is None else value)
    check(value is None or value == 0, lambda: (
        f'Padding mode "{mode}" doesn\'t take in value argument'))
    if mode not in _PAD_KERNEL:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    _check_pad_length(self, pad)
    if mode != "circular":
        k = _check_nonconstant_pad(self, pad, mode)
        return _call(f"aten::{_PAD_KERNEL[mode]}{k}d", self, list(pad))
    sizes, widths = _nonconstant_widths(self, pad, mode)
    return _pad_circular_autograd(self, sizes, widths)


def _pad_circular_autograd(self, sizes, widths):
    out = empty(tuple(sizes), self._dtype, None, self._device)
    out_part, in_part = out, self
    for d, lo, hi in widths:
        out_part = _slice(out_part, d, max(lo, 0), sizes[d] - max(hi, 0))
        in_part = _slice(in_part, d, max(-lo, 0), self._sizes[d] - max(-hi, 0))
    _call("aten::copy_", out_part, in_part, False)
    for d, lo, hi in widths:
        size = sizes[d]
        if lo > 0:
            src = _slice(out, d, size - lo - max(hi, 0), size - max(hi, 0))
            _call("aten::copy_", _slice(out, d, 0, lo), src, False)
        if hi > 0:
            src = _slice(out, d, max(lo, 0), max(lo, 0) + hi)
            _call("aten::copy_", _slice(out, d, size - hi, size), src, False)
    return out


# the out= variants: torch's are cat.out under autograd, which refuses inputs that require
# grad ("cat(): functions with out=... arguments don't support automatic differentiation")

def concat_out_autograd(tensors, dim=0, out=None):
    return _call("aten::cat.out", tensors, dim, out)


def concatenate_out_autograd(tensors, dim=0, out=None):
    return _call("aten::cat.out", tensors, dim, out)


def hstack_out_autograd(tensors, out):
    _nonempty(tensors, "hstack")
    parts = [_atleast_autograd(t, 1) for t in tensors]
    return _call("aten::cat.out", parts, 0 if len(parts[0]._sizes) == 1 else 1, out)


def vstack_out_autograd(tensors, out):
    _nonempty(tensors, "vstack")
    return _call("aten::cat.out", [_atleast_autograd(t, 2) for t in tensors], 0, out)


def row_stack_out_autograd(tensors, out):
    _nonempty(tensors, "vstack")
    return _call("aten::cat.out", [_atleast_autograd(t, 2) for t in tensors], 0, out)


def dstack_out_autograd(tensors, out):
    _nonempty(tensors, "dstack")
    return _call("aten::cat.out", [_atleast_autograd(t, 3) for t in tensors], 2, out)


def column_stack_out_autograd(tensors, out):
    _nonempty(tensors, "column_stack")
    parts = [views.reshape_autograd(t, (numel_of(t._sizes), 1)) if len(t._sizes) <= 1 else t
             for t in tensors]
    return _call("aten::cat.out", parts, 1, out)
