"""Indexing and shape kernels of issue 14: the ``*_copy`` ops, the ``*_scatter`` ops,
``fill``, ``isin``, ``renorm``, the index factories (``tril_indices``, ``triu_indices``,
``empty_permuted``, ``nonzero_static``), ``unsafe_split`` and the composites that torch
writes over other ops (``atleast_*d``, ``unsafe_chunk``, ``sum_to_size``, ``vander``,
``fill_diagonal_``, ``_chunk_cat``, ``_unsafe_masked_index``).

Note [The *_copy ops]
~~~~~~~~~~~~~~~~~~~~~
``permute_copy(x, dims)`` is ``permute(x, dims)`` cloned into a fresh row-major tensor:
the view kernel computes the geometry (and raises the view's errors), the clone copies.
The result never aliases ``x``. Their ``out=`` forms allocate nothing: the ``out`` tensor
must have the result's dtype and is resized by the usual ``out=`` rule, then written.

Note [The *_scatter ops]
~~~~~~~~~~~~~~~~~~~~~~~~
``slice_scatter(x, src, ...)`` is the functional form of ``x[slice] = src``: a clone of
``x`` (same layout) whose slice is overwritten by ``src``, which must have exactly the
slice's shape (no broadcasting), and may have another dtype (a casting copy).
"""

from __future__ import annotations

import numpy as np

from ..core import dtypes as dt
from ..core import layouts
from ..core.checks import check, maybe_wrap_dim
from ..core.promotion import result_type_of
from ..core.tensor_impl import contiguous_strides, make_tensor, numel_of
from . import view_ops, views
from .copy import copy_
from .factory import clone, empty, empty_like
from .indexing import _expandable
from .resize import resize_output
from .shape_ops import _check_out_dtype

_call = views._call_op


def _is_meta(t) -> bool:
    return t._device.type == "meta"




def _into(result, out):
    """The ``out=`` form of a functional kernel: ``out`` gets ``result``'s dtype check,
    is resized by the ``out=`` rule, then written (one version bump)."""
    _check_out_dtype(out, result._dtype)
    resize_output(out, result._sizes)
    return copy_(out, result)


def _fresh_copy(t):
    return clone(t, layouts.contiguous_format)


# -- the *_copy ops (Note [The *_copy ops]) ------------------------------------------------------

def _copy_op(view_fn, name):
    def kernel(self, *args):
        return _fresh_copy(view_fn(self, *args))

    def kernel_out(self, *args):
        *args, out = args
        return _into(kernel(self, *args), out)

    kernel.__name__ = kernel.__qualname__ = name
    kernel_out.__name__ = kernel_out.__qualname__ = name + "_out"
    kernel.__doc__ = f"``{view_fn.__name__}``'s result, copied into a fresh row-major tensor."
    return kernel, kernel_out


def _list_copy_op(view_fn, name):
    def kernel(self, *args):
        return tuple(_fresh_copy(v) for v in view_fn(self, *args))

    kernel.__name__ = kernel.__qualname__ = name
    return kernel


def _view_for_copy(self, size):
    """``view_copy`` reshapes when the strides admit no view (torch's composite does)."""
    sizes = views.infer_size(size, numel_of(self._sizes))
    if views._view_strides(self, sizes) is None:
        return views.reshape(self, size)
    return views.view(self, size)


def _narrow_for_copy(self, dim, start, length):
    """narrow_copy's own checks (no length sign check; a positive dim past the end is a
    RuntimeError), then the narrow view."""
    sizes = self._sizes
    ndim = len(sizes)
    check(ndim > 0, "narrow() cannot be applied to a 0-dim tensor.")
    check(dim < ndim, (
        "Expected dim < static_cast<int64_t>(self_sizes.size()) to be true, but got false.  "
        "(Could this error message be improved?  If so, please report an enhancement request "
        "to PyTorch.)"))
    dim = maybe_wrap_dim(dim, ndim)
    cur = sizes[dim]
    check(-cur <= start <= cur, lambda: (
        f"start out of range (expected to be in range of [{-cur}, {cur}], but got {start})"),
        IndexError)
    if start < 0:
        start += cur
    check(length >= 0 and start <= cur - length, lambda: (
        f"start ({start}) + length ({length}) exceeds dimension size ({cur})."))
    return views.slice_Tensor(self, dim, start, start + length, 1)


alias_copy, alias_copy_out = _copy_op(views.alias, "alias_copy")
as_strided_copy, as_strided_copy_out = _copy_op(views.as_strided, "as_strided_copy")
diagonal_copy, diagonal_copy_out = _copy_op(views.diagonal, "diagonal_copy")
expand_copy, expand_copy_out = _copy_op(views.expand, "expand_copy")
narrow_copy, _ = _copy_op(_narrow_for_copy, "narrow_copy")
permute_copy, permute_copy_out = _copy_op(views.permute, "permute_copy")
select_copy, select_copy_out = _copy_op(views.select, "select_copy")
detach_copy, detach_copy_out = _copy_op(views.detach, "detach_copy")
slice_copy, slice_copy_out = _copy_op(views.slice_Tensor, "slice_copy")
squeeze_copy, squeeze_copy_out = _copy_op(views.squeeze, "squeeze_copy")
squeeze_copy_dim, squeeze_copy_dim_out = _copy_op(views.squeeze_dim, "squeeze_copy_dim")
squeeze_copy_dims, squeeze_copy_dims_out = _copy_op(views.squeeze_dims, "squeeze_copy_dims")
t_copy, t_copy_out = _copy_op(views.t, "t_copy")
transpose_copy, transpose_copy_out = _copy_op(views.transpose, "transpose_copy")
unsqueeze_copy, unsqueeze_copy_out = _copy_op(views.unsqueeze, "unsqueeze_copy")
view_copy, view_copy_out = _copy_op(_view_for_copy, "view_copy")
view_copy_dtype, view_copy_dtype_out = _copy_op(view_ops.view_dtype, "view_copy_dtype")
unfold_copy, unfold_copy_out = _copy_op(views.unfold, "unfold_copy")
view_as_real_copy, view_as_real_copy_out = _copy_op(view_ops.view_as_real, "view_as_real_copy")
view_as_complex_copy, view_as_complex_copy_out = _copy_op(view_ops.view_as_complex,
                                                          "view_as_complex_copy")
split_copy = _list_copy_op(view_ops.split_Tensor, "split_copy")
split_with_sizes_copy = _list_copy_op(view_ops.split_with_sizes, "split_with_sizes_copy")
unbind_copy = _list_copy_op(views.unbind, "unbind_copy")


def narrow_copy_out(self, dim, start, length, out):
    # torch's narrow_copy.out is a hand-written CPU kernel with its own dtype check
    check(self._dtype is out._dtype, (
        "Expected self.dtype() == output.dtype() to be true, but got false.  (Could this error "
        "message be improved?  If so, please report an enhancement request to PyTorch.)"))
    from .resize import resize_impl
    result = narrow_copy(self, dim, start, length)
    resize_impl(out, result._sizes)      # resized without resize_output's warning
    return copy_(out, result)


# -- the *_scatter ops (Note [The *_scatter ops]) ------------------------------------------------

def _scatter_into(self, src, view_fn, *args):
    result = clone(self)
    target = view_fn(result, *args)
    check(target._sizes == src._sizes, lambda: (
        f"expected src to have a size equal to the slice of self. src size = "
        f"{list(src._sizes)}, slice size = {list(target._sizes)}"))
    copy_(target, src)
    result._vc[0] = 0
    return result


def slice_scatter(self, src, dim=0, start=None, end=None, step=1):
    return _scatter_into(self, src, views.slice_Tensor, dim, start, end, step)


def select_scatter(self, src, dim, index):
    return _scatter_into(self, src, views.select, dim, index)


def diagonal_scatter(self, src, offset=0, dim1=0, dim2=1):
    return _scatter_into(self, src, views.diagonal, offset, dim1, dim2)


def as_strided_scatter(self, src, size, stride, storage_offset=None):
    return _scatter_into(self, src, views.as_strided, size, stride, storage_offset)


def slice_scatter_out(self, src, dim=0, start=None, end=None, step=1, out=None):
    return _into(slice_scatter(self, src, dim, start, end, step), out)




# -- fill ----------------------------------------------------------------------------------------

def fill_Scalar(self, value):
    """``torch.fill(x, v)``: a new tensor of ``x``'s shape, dtype and layout, all ``v``."""
    from .factory import fill_
    result = fill_(empty_like(self), value)
    result._vc[0] = 0
    return result


def fill_Tensor(self, value):
    from .factory import fill_tensor_
    result = fill_tensor_(empty_like(self), value)
    result._vc[0] = 0
    return result


def fill_Scalar_out(self, value, out):
    return _into(fill_Scalar(self, value), out)


def fill_Tensor_out(self, value, out):
    return _into(fill_Tensor(self, value), out)


def fill_diagonal_(self, fill_value, wrap=False):
    """Writes ``fill_value`` on the main diagonal (all indices equal) through a strided
    alias; with ``wrap`` a tall matrix's diagonal restarts every ``width + 1`` rows."""
    sizes = self._sizes
    ndim = len(sizes)
    check(ndim >= 2, "dimensions must larger than 1")
    height, width = sizes[0], sizes[1]
    if ndim > 2:
        check(all(s == height for s in sizes[1:]),
              "all dimensions of input must be of equal length")
    step = sum(self._strides)
    n = min(height, width)
    _call("aten::fill_.Scalar", _call("aten::as_strided", self, [n], [step], self._offset),
          fill_value)
    if wrap and ndim == 2 and height > width + 1:
        period = width + 1
        count = (numel_of(sizes) + period - 1) // period - n
        start = self._offset + self._strides[0] * period
        _call("aten::fill_.Scalar", _call("aten::as_strided", self, [count], [step], start),
              fill_value)
    return self


# -- isin ----------------------------------------------------------------------------------------

def _isin_dtype_check(dtype) -> None:
    check(dtype is not dt.bool_ and not dtype.is_complex, lambda: (
        f"Unsupported input type encountered for isin(): {dtype._scalar_name}"))


def _scalar_dtype_of(value):
    if isinstance(value, bool):
        return dt.bool_
    if isinstance(value, int):
        return dt.int64
    if isinstance(value, complex):
        return dt.complex128
    return dt.float64


def _as_array(operand, dtype):
    if hasattr(operand, "_dtype"):
        a = operand._array()
        return a.astype(dtype.np) if a.dtype != dtype.np else a
    with np.errstate(all="ignore"):
        if isinstance(operand, int) and not isinstance(operand, bool) \
                and dtype.category == dt.INT:
            # C-like wraparound: 257 compared in uint8 is 1
            return np.array(operand & ((1 << (8 * dtype.itemsize)) - 1)).astype(
                np.uint64).astype(dtype.np)
        return np.array(operand).astype(dtype.np)


def _isin(elements, test, assume_unique, invert, out, shape, device):
    dtype = result_type_of((elements, test))
    if out is None:
        result = empty(shape, dt.bool_, None, device)
    else:
        _check_out_dtype(out, dt.bool_)
        resize_output(out, tuple(shape))
        result = out
    if device.type != "meta" and numel_of(shape):
        a = _as_array(elements, dtype)
        b = _as_array(test, dtype).reshape(-1)
        if dtype is dt.bfloat16 or dtype is dt.float16:
            a, b = a.astype(np.float32), b.astype(np.float32)
        found = np.isin(np.asarray(a).reshape(-1), b, invert=invert).reshape(shape)
        np.copyto(result._array(), found)
    if out is not None:
        out._vc[0] += 1
    return result


def isin_Tensor_Tensor(elements, test_elements, assume_unique=False, invert=False):
    _isin_dtype_check(elements._dtype)
    _isin_dtype_check(test_elements._dtype)
    return _isin(elements, test_elements, assume_unique, invert, None, elements._sizes,
                 elements._device)


def isin_Tensor_Tensor_out(elements, test_elements, assume_unique=False, invert=False,
                           out=None):
    _isin_dtype_check(elements._dtype)
    _isin_dtype_check(test_elements._dtype)
    return _isin(elements, test_elements, assume_unique, invert, out, elements._sizes,
                 elements._device)


def isin_Tensor_Scalar(elements, test_element, assume_unique=False, invert=False):
    _isin_dtype_check(elements._dtype)
    _isin_dtype_check(_scalar_dtype_of(test_element))
    return _isin(elements, test_element, assume_unique, invert, None, elements._sizes,
                 elements._device)


def isin_Tensor_Scalar_out(elements, test_element, assume_unique=False, invert=False,
                           out=None):
    _isin_dtype_check(elements._dtype)
    _isin_dtype_check(_scalar_dtype_of(test_element))
    return _isin(elements, test_element, assume_unique, invert, out, elements._sizes,
                 elements._device)


def isin_Scalar_Tensor(element, test_elements, assume_unique=False, invert=False):
    _isin_dtype_check(_scalar_dtype_of(element))
    _isin_dtype_check(test_elements._dtype)
    return _isin(element, test_elements, assume_unique, invert, None, (),
                 test_elements._device)


def isin_Scalar_Tensor_out(element, test_elements, assume_unique=False, invert=False,
                           out=None):
    _isin_dtype_check(_scalar_dtype_of(element))
    _isin_dtype_check(test_elements._dtype)
    return _isin(element, test_elements, assume_unique, invert, out, (),
                 test_elements._device)


# -- renorm --------------------------------------------------------------------------------------

def _renorm_checks(self, p, dim, maxnorm):
    check(not isinstance(p, complex), "renorm: p must be real-valued")
    check(p > 0, "renorm: non-positive-norm not supported")
    check(not isinstance(maxnorm, complex), "renorm: maxnorm must be real-valued")
    check(maxnorm >= 0, lambda: f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    ndim = len(self._sizes)
    check(ndim > 1, lambda: f"renorm: input needs at least 2 dimensions, got {ndim} dimensions")
    return maybe_wrap_dim(dim, ndim)


def _renorm_factor(self, p, dim, maxnorm):
    """The per-slice scale: ``maxnorm / (norm + 1e-7)`` where the slice's ``p``-norm
    exceeds ``maxnorm``, else 1 (a keepdim tensor, broadcastable against ``self``)."""
    reduce = [d for d in range(len(self._sizes)) if d != dim]
    acc = dt.float32 if self._dtype in (dt.float16, dt.bfloat16) else None
    norm = _call("aten::linalg_vector_norm", self, p, reduce, True, acc)
    if _is_meta(self):
        return norm
    a = norm._array()
    m = a.dtype.type(maxnorm)
    with np.errstate(all="ignore"):
        factor = np.where(a > m, m / (a + a.dtype.type(1e-7)), a.dtype.type(1))
    result = empty(norm._sizes, norm._dtype, None, norm._device)
    np.copyto(result._array(), factor, casting="unsafe")
    return result


def _renorm(self, p, dim, maxnorm, out):
    dim = _renorm_checks(self, p, dim, maxnorm)
    factor = _renorm_factor(self, p, dim, maxnorm)
    if factor._dtype is not self._dtype:
        factor = _call("aten::_to_copy", factor, self._dtype, None, None, None, False, None)
    if out is None:
        return _call("aten::mul.Tensor", self, factor)
    return _call("aten::mul.out", self, factor, out)


def renorm(self, p, dim, maxnorm):
    return _renorm(self, p, dim, maxnorm, None)


def renorm_out(self, p, dim, maxnorm, out):
    return _renorm(self, p, dim, maxnorm, out)


def renorm_(self, p, dim, maxnorm):
    return _renorm(self, p, dim, maxnorm, self)


# -- index factories -----------------------------------------------------------------------------

def _tri_indices_checks(row, col, dtype, name):
    check(row >= 0, lambda: f"row must be non-negative, got{row}")
    check(col >= 0, lambda: f"col must be non-negative, got{col}")
    if dtype is not None and dtype not in (dt.int32, dt.int64):
        raise NotImplementedError(f'"{name}" not implemented for \'{dtype._scalar_name}\'')


def _tri_indices(row, col, offset, dtype, device, lower, name):
    dtype = dt.int64 if dtype is None else dtype
    _tri_indices_checks(row, col, dtype, name)
    if lower:
        r, c = np.tril_indices(row, offset, col)
    else:
        r, c = np.triu_indices(row, offset, col)
    n = len(r)
    result = empty((2, n), dtype, None, device)
    if result._device.type != "meta" and n:
        arr = result._array()
        arr[0] = r
        arr[1] = c
    return result


def tril_indices(row, col, offset=0, dtype=None, layout=None, device=None, pin_memory=None):
    return _tri_indices(row, col, offset, dtype, device, True, "tril_indices")


def triu_indices(row, col, offset=0, dtype=None, layout=None, device=None, pin_memory=None):
    return _tri_indices(row, col, offset, dtype, device, False, "triu_indices")


def tril_indices_out(row, col, offset=0, out=None):
    return _into(_tri_indices(row, col, offset, out._dtype, out._device, True,
                              "tril_indices"), out)


def triu_indices_out(row, col, offset=0, out=None):
    return _into(_tri_indices(row, col, offset, out._dtype, out._device, False,
                              "triu_indices"), out)


def empty_permuted(size, physical_layout, dtype=None, layout=None, device=None,
                   pin_memory=None):
    """An uninitialised tensor of ``size`` whose memory is laid out in the order
    ``physical_layout`` (outermost dim first): ``empty(size[p] for p).permute(inverse)``."""
    size = tuple(size)
    ndim = len(size)
    check(ndim == len(physical_layout), lambda: (
        f"Number of dimensions in size does not match the length of the physical_layout; "
        f"i.e. len(size) = {ndim} is not equal to len(physical_layout) = "
        f"{len(physical_layout)}"))
    seen = [False] * ndim
    for i, d in enumerate(physical_layout):
        check(0 <= d < ndim, lambda d=d, i=i: (
            f"Dimension out of range (expected to be between 0 and {ndim - 1}, but got {d} at "
            f"index {i}).  NB: negative dims not currently supported; file an issue if you "
            f"want it."))
        check(not seen[d], "Duplicate dim not allowed")
        seen[d] = True
    physical = tuple(size[d] for d in physical_layout)
    phys_strides = contiguous_strides(physical)
    strides = [0] * ndim
    for i, d in enumerate(physical_layout):
        strides[d] = phys_strides[i]
    base = empty(physical, dtype, layout, device, pin_memory)
    return make_tensor(base._storage, size, tuple(strides), 0, base._dtype)


def empty_permuted_out(size, physical_layout, out):
    from .resize import resize_
    resize_(out, tuple(size))
    return out


def nonzero_static(self, size, fill_value=-1):
    check(size >= 0, "nonzero_static: 'size' must be an non-negative integer")
    ndim = len(self._sizes)
    if _is_meta(self):
        # torch's meta function lays the result out column-major
        base = empty((ndim, size), dt.int64, None, self._device)
        return make_tensor(base._storage, (size, ndim), (1, size), 0, dt.int64)
    result = empty((size, ndim), dt.int64, None, self._device)
    if numel_of(result._sizes):
        found = np.argwhere(self._array())[:size]
        arr = result._array()
        arr[...] = fill_value
        arr[:len(found)] = found
    return result


def nonzero_static_out(self, size, fill_value=-1, out=None):
    return _into(nonzero_static(self, size, fill_value), out)


# -- unsafe_split --------------------------------------------------------------------------------

def _unsafe(pieces):
    """Views that autograd does not know as views: same storage, own version counters."""
    return tuple(make_tensor(p._storage, p._sizes, p._strides, p._offset, p._dtype)
                 for p in pieces)


def unsafe_split(self, split_size, dim=0):
    return _unsafe(view_ops.split_Tensor(self, split_size, dim))


def unsafe_split_with_sizes(self, split_sizes, dim=0):
    return _unsafe(view_ops.split_with_sizes(self, split_sizes, dim))


def unsafe_chunk(self, chunks, dim=0):
    check(len(self._sizes) > 0, "chunk expects at least a 1-dimensional tensor")
    check(chunks > 0, lambda: f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    d = maybe_wrap_dim(dim, len(self._sizes))
    size = self._sizes[d]
    split_size = (size + chunks - 1) // chunks
    if split_size == 0 and size == 0:
        sizes = [split_size] * chunks
        sizes[-1] = split_size - (split_size * chunks - size)
        return _call("aten::unsafe_split_with_sizes", self, sizes, d)
    return _call("aten::unsafe_split.Tensor", self, split_size, d)


# -- composites ----------------------------------------------------------------------------------

def _atleast(t, ndim):
    n = len(t._sizes)
    if n >= ndim:
        return t
    if ndim == 1:
        return _call("aten::reshape", t, [1])
    if ndim == 2:
        if n == 0:
            return _call("aten::reshape", t, [1, 1])
        return _call("aten::unsqueeze", t, 0)
    if n == 0:
        return _call("aten::reshape", t, [1, 1, 1])
    if n == 1:
        return _call("aten::unsqueeze", _call("aten::unsqueeze", t, 0), -1)
    return _call("aten::unsqueeze", t, -1)


def atleast_1d(self):
    return _atleast(self, 1)


def atleast_2d(self):
    return _atleast(self, 2)


def atleast_3d(self):
    return _atleast(self, 3)


def atleast_1d_Sequence(tensors):
    return tuple(_atleast(t, 1) for t in tensors)


def atleast_2d_Sequence(tensors):
    return tuple(_atleast(t, 2) for t in tensors)


def atleast_3d_Sequence(tensors):
    return tuple(_atleast(t, 3) for t in tensors)


def sum_to_size(self, size):
    size = tuple(size)
    sizes = self._sizes
    check(_expandable(size, sizes), lambda: (
        f"size {{{list(size)}}} is not expandable to size {{{list(sizes)}}}."))
    if not size:
        # torch's sum_to: a 0-dim target is the full sum (a fresh tensor, never self)
        return _call("aten::sum", self, None)
    lead = len(sizes) - len(size)
    reduce = list(range(lead))
    reduce += [i for i in range(lead, len(sizes)) if size[i - lead] == 1 and sizes[i] != 1]
    t = self
    if reduce:
        t = _call("aten::sum.dim_IntList", t, reduce, True, None)
    if lead > 0:
        t = _call("aten::view", t, list(size))
    return t


def vander(x, N=None, increasing=False):
    check(len(x._sizes) == 1, "x must be a one-dimensional tensor.")
    n = x._sizes[0] if N is None else N
    check(n >= 0, "N must be non-negative.")
    dtype = dt.promote(x._dtype, dt.int64)
    result = empty((x._sizes[0], n), dtype, None, x._device)
    if n > 0:
        _call("aten::fill_.Scalar", result, 1)
        if n > 1:
            tail = _call("aten::slice.Tensor", result, 1, 1, None, 1)
            _call("aten::copy_", tail, _call("aten::unsqueeze", x, 1), False)
            tail = _call("aten::slice.Tensor", result, 1, 1, None, 1)
            _call("aten::copy_", tail, _call("aten::cumprod", tail, 1, None), False)
    if not increasing:
        return _call("aten::flip", result, [1])
    return result


# -- _chunk_cat ----------------------------------------------------------------------------------

def _chunk_cat_dim(tensors, dim, num_chunks):
    check(num_chunks >= 1, "_chunk_cat expects positive num_chunks")
    check(len(tensors) > 0, "_chunk_cat expects a non-empty input tensor list")
    dtype, device = tensors[0]._dtype, tensors[0]._device
    for t in tensors:
        check(numel_of(t._sizes) > 0, "_chunk_cat expects non-empty tensor")
        check(t._dtype is dtype, "_chunk_cat expects all input tensors with the same dtype")
        check(t._device == device, "_chunk_cat expects all inputs tensors on the same device")
    ndims = {len(t._sizes) for t in tensors}
    if len(ndims) == 1:
        dim = maybe_wrap_dim(dim, len(tensors[0]._sizes))
    else:
        check(dim >= 0, "_chunk_cat expects non-negative dim when input tensors have different "
                        "ndims")
        for t in tensors:
            check(dim < len(t._sizes), "_chunk_cat expects dim < ndim for all input tensors")
    lead = tensors[0]._sizes[:dim]
    for t in tensors:
        check(t._sizes[:dim] == lead, "_chunk_cat expects same sizes of 0,...,dim-1 dimensions "
                                      "for all tensors")
    return dim


def _chunk_pieces(tensors, dim, num_chunks):
    """Each tensor zero-padded along ``dim`` to a multiple of ``num_chunks``, then viewed as
    ``(*leading, num_chunks, -1)``: chunk ``i`` of every tensor lands in row ``i``."""
    pieces = []
    for t in tensors:
        size = t._sizes[dim]
        padded = (size + num_chunks - 1) // num_chunks * num_chunks
        if padded != size:
            pad = [0] * (2 * (len(t._sizes) - dim - 1)) + [0, padded - size]
            t = _call("aten::constant_pad_nd", t, pad, 0)
        pieces.append(_call("aten::reshape", t, list(t._sizes[:dim]) + [num_chunks, -1]))
    return pieces


def chunk_cat(tensors, dim, num_chunks):
    """Every tensor split into ``num_chunks`` chunks along ``dim`` (the last ones
    zero-padded), chunk ``i`` of all tensors flattened and concatenated in row ``i``."""
    dim = _chunk_cat_dim(tensors, dim, num_chunks)
    return _call("aten::cat", _chunk_pieces(tensors, dim, num_chunks), dim + 1)


def chunk_cat_out(tensors, dim, num_chunks, out):
    dim = _chunk_cat_dim(tensors, dim, num_chunks)
    return _call("aten::cat.out", _chunk_pieces(tensors, dim, num_chunks), dim + 1, out)


# -- _unsafe_masked_index ------------------------------------------------------------------------

def _clamped_indices(self, indices):
    """Each index tensor clamped into ``[-size, size - 1]`` of its dim (torch's eager
    kernel: masked-out positions may hold any index)."""
    out = []
    for d, index in enumerate(indices):
        if index is None:
            out.append(None)
            continue
        check(index._dtype in (dt.int64, dt.int32), lambda index=index: (
            f"_unsafe_masked_index found unexpected index type {index._dtype._scalar_name}"))
        size = self._sizes[d]
        out.append(_call("aten::clamp", index, -size, size - 1))
    return out


def _as_bool(mask):
    if mask._dtype is dt.bool_:
        return mask
    return _call("aten::ne.Scalar", mask, 0)


def unsafe_masked_index(self, mask, indices, fill):
    """``self[indices]`` where ``mask`` is set, ``fill`` elsewhere; out-of-range indices are
    clamped, so masked-out positions may hold any index."""
    clamped = _clamped_indices(self, indices)
    if numel_of(self._sizes) == 0:
        # torch's eager kernel: index a filled stand-in whose indexed empty dims have size 1
        # (the dims past the indexed ones stay 0, as its zero-initialised size vector leaves
        # them)
        sizes = [0] * len(self._sizes)
        for d, (index, size) in enumerate(zip(indices, self._sizes)):
            sizes[d] = 1 if index is not None and size == 0 else size
        filled = _call("aten::new_full", self, sizes, fill, None, None, None, None)
        return _call("aten::index.Tensor", filled, clamped)
    gathered = _call("aten::index.Tensor", self, clamped)
    return _call("aten::masked_fill.Scalar", gathered,
                 _call("aten::logical_not", _as_bool(mask)), fill)


def unsafe_masked_index_put_accumulate(self, mask, indices, values):
    """``self`` with ``values`` (zeroed where ``mask`` is unset) added at ``indices``
    (clamped into range)."""
    if numel_of(self._sizes) == 0:
        return clone(self)
    clamped = _clamped_indices(self, indices)
    masked = _call("aten::masked_fill.Scalar", values,
                   _call("aten::logical_not", _as_bool(mask)), 0)
    return _call("aten::index_put", self, clamped, masked, True)


# -- hash_tensor ---------------------------------------------------------------------------------

def _hash_tensor(self, dim, keepdim, mode, out):
    check(mode == 0, lambda: f"Unknown hash_tensor mode: {mode}")
    dtype = self._dtype
    if dtype.is_complex or dtype in (dt.uint16, dt.uint32, dt.uint64):
        raise NotImplementedError(f'"xor_sum_cpu" not implemented for \'{dtype._scalar_name}\'')
    sizes = self._sizes
    ndim = len(sizes)
    if dim is None or len(dim) == 0:
        check(numel_of(sizes) > 0, (
            "hash_tensor: Expected reduction dim to be specified for input.numel() == 0. "
            "Specify the reduction dim with the 'dim' argument."))
        dims = tuple(range(ndim))
    else:
        dims = tuple(sorted({maybe_wrap_dim(d, ndim) for d in dim}))
        for d in dims:
            if ndim and sizes[d] == 0:
                raise IndexError(f"hash_tensor: Expected reduction dim {d} to have non-zero "
                                 f"size.")
    shape = tuple(1 if d in dims else s for d, s in enumerate(sizes)) if keepdim else \
        tuple(s for d, s in enumerate(sizes) if d not in dims)
    if out is None:
        result = empty(shape, dt.uint64, None, self._device)
    else:
        check(out._dtype is dt.uint64, lambda: (
            f"Expected result to be of dtype uint64, but got {out._dtype._scalar_name}"))
        resize_output(out, shape)
        result = out
    if not _is_meta(self) and numel_of(shape):
        a = self._array()
        if dtype.is_floating_point:
            a = a.astype(np.float64)
        elif dtype is dt.bool_ or dtype is dt.uint8:
            a = a.astype(np.uint64)
        else:
            a = a.astype(np.int64)
        words = np.ascontiguousarray(a).view(np.uint64)
        axes = dims if ndim else None
        np.copyto(result._array(), np.bitwise_xor.reduce(words, axis=axes, keepdims=keepdim)
                  .reshape(shape))
    if out is not None:
        out._vc[0] += 1
    return result


def hash_tensor(self, dim=(), keepdim=False, mode=0):
    return _hash_tensor(self, dim, keepdim, mode, None)


def hash_tensor_out(self, dim=(), keepdim=False, mode=0, out=None):
    return _hash_tensor(self, dim, keepdim, mode, out)


# -- segment_reduce ------------------------------------------------------------------------------

_SEGMENT_REDUCTIONS = {"max": "max", "amax": "max", "min": "min", "amin": "min", "sum": "sum",
                       "mean": "mean", "prod": "prod"}


def _segment_plan(data, reduce, lengths, offsets, axis, unsafe):
    """The reduction's name, the wrapped axis, and per segment its start and length
    (int64 arrays of shape ``(*data.shape[:axis], segments)``)."""
    kind = _SEGMENT_REDUCTIONS.get(reduce)
    check(kind is not None, lambda: (
        f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}"))
    axis = maybe_wrap_dim(axis, len(data._sizes))
    check(lengths is not None or offsets is not None,
          "segment_reduce(): Either lengths or offsets must be defined.")
    if data._dtype not in (dt.float16, dt.bfloat16, dt.float32, dt.float64):
        raise NotImplementedError(
            f'"_segment_reduce_cpu" not implemented for \'{data._dtype._scalar_name}\'')
    if offsets is not None:
        check(axis == len(offsets._sizes) - 1, lambda: (
            f"segment_reduce(): Expected axis to be the last dimension of offsets but got "
            f"{axis}."))
        bounds = offsets._array().astype(np.int64) if not _is_meta(data) else None
        counts = (offsets._sizes[:-1] + (offsets._sizes[-1] - 1,))
        if bounds is None:
            return kind, axis, None, None, counts
        starts, lens = bounds[..., :-1], np.diff(bounds, axis=-1)
    else:
        if lengths._dtype not in (dt.int64, dt.int32):
            raise NotImplementedError(f'"_segment_reduce_lengths_cpu_kernel1" not implemented '
                                      f'for \'{lengths._dtype._scalar_name}\'')
        check(axis == len(lengths._sizes) - 1, lambda: (
            f"segment_reduce(): Expected axis to be the last dimension of lengths but got "
            f"{axis}."))
        counts = lengths._sizes
        if _is_meta(data):
            return kind, axis, None, None, counts
        lens = lengths._array().astype(np.int64)
        if not unsafe:
            check(bool(np.all(lens.sum(-1) == data._sizes[axis])), (
                "segment_reduce(): Expected all rows of lengths along axis to sum to "
                "data.size(lengths.dim()-1) when !unsafe."))
        starts = np.cumsum(lens, axis=-1) - lens
    check(bool(np.all(lens >= 0)), (
        "Expected segment_length >= 0 to be true, but got false.  (Could this error message "
        "be improved?  If so, please report an enhancement request to PyTorch.)"))
    return kind, axis, starts, lens, counts


def _segment_rows(arr, axis, starts, j):
    """Element ``start + j`` of every segment: shape ``(*lead, segments, *trail)``."""
    n = arr.shape[axis]
    idx = np.clip(starts + j, 0, max(n - 1, 0))
    idx = idx.reshape(idx.shape + (1,) * (arr.ndim - axis - 1))
    return np.take_along_axis(arr, np.broadcast_to(
        idx, idx.shape[:axis + 1] + arr.shape[axis + 1:]), axis)


def _trail(a, ndim, axis):
    return a.reshape(a.shape + (1,) * (ndim - axis - 1))


def segment_reduce(data, reduce, lengths=None, indices=None, offsets=None, axis=0, unsafe=False,
                   initial=None):
    """Reduce consecutive runs (segments) of ``data`` along ``axis``: segment ``i`` covers
    ``lengths[..., i]`` elements (or ``offsets[..., i]:offsets[..., i + 1]``), folded in
    order from ``initial`` (or the reduction's identity); an empty mean is NaN."""
    check(indices is None, "segment_reduce(): indices based reduction is not supported yet.")
    kind, axis, starts, lens, counts = _segment_plan(data, reduce, lengths, offsets, axis,
                                                     unsafe)
    shape = data._sizes[:axis] + (counts[-1],) + data._sizes[axis + 1:]
    result = empty(shape, data._dtype, None, data._device)
    if _is_meta(data) or not numel_of(shape):
        return result
    arr = data._array()
    ndim = arr.ndim
    np_t = arr.dtype.type
    if initial is not None:
        start = initial
    else:
        start = {"max": -np.inf, "min": np.inf, "sum": 0, "mean": 0, "prod": 1}[kind]
    acc = np.full(shape, start, dtype=arr.dtype)
    span = int(lens.max()) if lens.size else 0
    with np.errstate(all="ignore"):
        for j in range(span):
            valid = _trail(j < lens, ndim, axis)
            val = _segment_rows(arr, axis, starts, j)
            if kind == "max":
                new = np.maximum(acc, val)
            elif kind == "min":
                new = np.minimum(acc, val)
            elif kind == "prod":
                new = acc * val
            else:
                new = acc + val
            acc = np.where(valid, new, acc)
        if kind == "mean":
            n = _trail(lens, ndim, axis).astype(arr.dtype)
            divided = (acc / n).astype(arr.dtype)
            acc = np.where(n == 0, np_t(initial), divided) if initial is not None else divided
    np.copyto(result._array(), acc)
    return result


def segment_reduce_out(data, reduce, lengths=None, indices=None, offsets=None, axis=0,
                       unsafe=False, initial=None, out=None):
    return _into(segment_reduce(data, reduce, lengths, indices, offsets, axis, unsafe, initial),
                 out)


def segment_reduce_backward(grad, output, data, reduce, lengths=None, offsets=None, axis=0,
                            initial=None):
    """Each element's share of its segment's gradient: all of it (sum), ``1 / length``
    (mean), split among the elements equal to the result (max, min), ``result / x`` or the
    product of the others (prod, for zeros and NaNs)."""
    kind, axis, starts, lens, _ = _segment_plan(data, reduce, lengths, offsets, axis, True)
    result = empty(data._sizes, data._dtype, None, data._device)
    if _is_meta(data) or not numel_of(data._sizes):
        return result
    arr = data._array()
    g = grad._array()
    out = output._array()
    ndim = arr.ndim
    n = arr.shape[axis]
    # the segment of every element along axis (-1: none)
    seg_shape = starts.shape[:-1] + (n,)
    seg = np.full(seg_shape, -1, dtype=np.int64)
    pos = np.broadcast_to(np.arange(n), seg_shape)
    for s in range(starts.shape[-1]):
        lo = starts[..., s:s + 1]
        hi = lo + lens[..., s:s + 1]
        seg = np.where((pos >= lo) & (pos < hi), s, seg)
    has = _trail(seg >= 0, ndim, axis)
    segc = _trail(np.maximum(seg, 0), ndim, axis)
    segc = np.broadcast_to(segc, segc.shape[:axis + 1] + arr.shape[axis + 1:])

    def spread(a):
        return np.take_along_axis(a, segc, axis)
    gi = spread(g)
    oi = spread(out)
    with np.errstate(all="ignore"):
        if kind == "sum":
            res = gi
        elif kind == "mean":
            res = gi / spread(_trail(lens, ndim, axis).astype(arr.dtype) + np.zeros_like(out))
        elif kind in ("max", "min"):
            hit = (arr == oi) | (np.isnan(arr) & np.isnan(oi))
            count = np.zeros(out.shape, dtype=arr.dtype)
            for s in range(out.shape[axis]):
                inseg = _trail(seg == s, ndim, axis)
                c = np.sum(hit & inseg, axis=axis, keepdims=True).astype(arr.dtype)
                sl = [slice(None)] * ndim
                sl[axis] = slice(s, s + 1)
                count[tuple(sl)] = c
            res = np.where(hit, gi / spread(count), np.zeros((), arr.dtype))
        else:
            res = (gi * oi / arr).astype(arr.dtype)
            special = (arr == 0) | np.isnan(arr)
            if special.any():
                excl = np.full(arr.shape, 1 if initial is None else initial, dtype=arr.dtype)
                span = int(lens.max()) if lens.size else 0
                for k in range(span):
                    val = np.take_along_axis(arr, np.broadcast_to(
                        _trail(np.clip(np.take_along_axis(
                            starts, np.maximum(seg, 0), -1) + k, 0, n - 1), ndim, axis),
                        arr.shape), axis)
                    within = _trail(k < np.take_along_axis(lens, np.maximum(seg, 0), -1),
                                    ndim, axis)
                    own = _trail(np.take_along_axis(starts, np.maximum(seg, 0), -1) + k == pos,
                                 ndim, axis)
                    excl = np.where(within & ~own, excl * val, excl)
                res = np.where(special, gi * excl, res)
        res = np.where(has, res, np.zeros((), arr.dtype))
    np.copyto(result._array(), res, casting="unsafe")
    return result


# -- the list out= forms of the *_copy ops -------------------------------------------------------

def _copy_pieces_into(pieces, out, name):
    check(len(out) == len(pieces), lambda: (
        f"{name}_out() expected an out= argument of size {len(pieces)}, got size {len(out)}"))
    for o, piece in zip(out, pieces):
        _check_out_dtype(o, piece._dtype)
    for o, piece in zip(out, pieces):
        copy_(o, piece)


def split_copy_out(self, split_size, dim=0, out=None):
    _copy_pieces_into(view_ops.split_Tensor(self, split_size, dim), out, "split_copy_Tensor")


def split_with_sizes_copy_out(self, split_sizes, dim=0, out=None):
    _copy_pieces_into(view_ops.split_with_sizes(self, split_sizes, dim), out,
                      "split_with_sizes_copy")


def unbind_copy_out(self, dim=0, out=None):
    _copy_pieces_into(views.unbind(self, dim), out, "unbind_copy_int")
