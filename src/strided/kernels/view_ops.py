"""More view kernels: splits, dtype and complex views, matrix transposes, ``set_``.

Each result is built by the geometry kernels of ``views.py`` (narrow, slice,
select, transpose, permute) or by ``make_tensor`` over the same storage; nothing
here reads data, except the index tensor of ``tensor_split``.

Note [Conjugate and negative bits]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
As in torch, ``conj()`` of a complex tensor copies nothing: it returns a view whose
key set carries the ``Conjugate`` bit (``is_conj()``), meaning "the values are the
conjugates of the bytes". ``imag`` of such a view, and ``_neg_view``, carry the
``Negative`` bit the same way ("the values are the negated bytes"). ``H``, ``mH`` and
``adjoint`` are a transpose plus ``_conj``: views too. The bits are dispatch keys, so
that a tensor without them pays nothing (Note [Fallthrough masks]):

- every view kernel copies the bits of ``self`` to its result (``make_view``);
  ``real``/``imag`` drop the conjugate bit and set the negative bit where the
  conjugate negates (``imag``); ``view(dtype)`` and ``view_as_real`` refuse a
  conjugated tensor, as torch does;
- ``copy_`` and ``clone`` understand the bits of both sides (``copy_`` conjugates or
  negates what it wrote where the bits of ``self`` and ``src`` differ), and so do the
  ops registered as fallthroughs in kernels/math_bits.py (views, factories ``*_like``,
  queries, ``conj_physical_``, ``neg_``);
- every other op reaches the boxed "math bits" fallback of kernels/math_bits.py,
  which materializes the inputs carrying the bit (``clone``) and re-dispatches below
  the key; an in-place or ``out=`` op whose written tensor carries the bit runs on a
  resolved clone that is then copied back (torch's MathBitsFallback).

Kernels therefore read ``_array()`` (the bytes) only of tensors without bits. What
reads data outside the dispatcher (printing, ``tolist``, pickling) resolves first;
``numpy()`` and ``__dlpack__`` refuse, as torch does.
"""

from __future__ import annotations

import numpy as np

from ..core import dtypes as dt
from ..core import layouts
from ..core.checks import check, maybe_wrap_dim
from ..core.dispatch_keys import DispatchKey
from ..core.storage import UntypedStorage
from ..core.tensor_impl import (
    bounds_message,
    check_numel,
    contiguous_strides,
    make_tensor,
    storage_nbytes_needed,
)
from . import complex32 as _c32
from .views import (
    _call_op,
    make_view,
    narrow,
    permute,
    select,
    slice_Tensor,
    transpose,
    warn_once,
)

# -- dtype views --------------------------------------------------------------------------------


def _alias_as(self, sizes, strides, offset, dtype):
    """A view with another dtype. Shares the version counter and ``_base`` chain, and the
    negative bit of ``self`` (Note [Conjugate and negative bits])."""
    base = self._base if self._base is not None else self
    out = make_tensor(self._storage, sizes, strides, offset, dtype, self._vc, base)
    out._keyset |= self._keyset & _NEG_BIT
    return out


def _check_no_bits_for_dtype_view(self):
    check(not self._keyset & _CONJ_BIT, "torch.Tensor.view is not supported for conjugate view "
                                        "tensors when converting to a different dtype.")
    check(not self._keyset & _NEG_BIT, "torch.Tensor.view is not supported for tensors with "
                                       "negative bit set when converting to a different dtype.")


def view_dtype(self, dtype):
    """Reinterpret the bytes as ``dtype``. With a different item size the last dim
    (stride 1) grows or shrinks by the size ratio and the other strides and the offset
    are rescaled. Like torch, the result is not a view for autograd (no ``_base``) but
    shares the version counter."""
    if self._keyset & (_CONJ_BIT | _NEG_BIT):
        _check_no_bits_for_dtype_view(self)
    old = self._dtype
    sizes = self._sizes
    strides = self._strides
    offset = self._offset
    if old.itemsize == dtype.itemsize:
        return make_tensor(self._storage, sizes, strides, offset, dtype, self._vc)
    ndim = len(sizes)

    def what():
        return f"to view {old._scalar_name} as {dtype._scalar_name} (different element sizes)"

    check(ndim > 0, lambda: f"self.dim() cannot be 0 {what()}")
    if old.itemsize > dtype.itemsize:
        ratio = old.itemsize // dtype.itemsize
        check(strides[-1] == 1, lambda: f"self.stride(-1) must be 1 {what()}, but got "
                                        f"{strides[-1]}")
        new_sizes = sizes[:-1] + (sizes[-1] * ratio,)
        new_strides = tuple(s * ratio for s in strides[:-1]) + (1,)
        new_offset = offset * ratio
    else:
        ratio = dtype.itemsize // old.itemsize
        check(sizes[-1] % ratio == 0, lambda: (
            f"self.size(-1) must be divisible by {ratio} {what()}, but got {sizes[-1]}"))
        check(offset % ratio == 0, lambda: (
            f"self.storage_offset() must be divisible by {ratio} {what()}, but got {offset}"))
        check(strides[-1] == 1, lambda: f"self.stride(-1) must be 1 {what()}, but got "
                                        f"{strides[-1]}")
        for i in range(ndim - 1):
            if strides[i] % ratio:
                raise RuntimeError(f"self.stride({i}) must be divisible by {ratio} {what()}, "
                                   f"but got {strides[i]}")
        new_sizes = sizes[:-1] + (sizes[-1] // ratio,)
        new_strides = tuple(s // ratio for s in strides[:-1]) + (1,)
        new_offset = offset // ratio
    return make_tensor(self._storage, new_sizes, new_strides, new_offset, dtype, self._vc)


def view_as_real(self):
    """A complex tensor as pairs of reals: a trailing dim of 2, every stride and the
    offset doubled (counted in reals now)."""
    check(not self._keyset & _CONJ_BIT, (
        "view_as_real doesn't work on unresolved conjugated tensors.  To resolve the conjugate "
        "tensor so you can view it as real, use self.resolve_conj(); however, be warned that "
        "the resulting tensor will NOT alias the original."))
    check(self._dtype.is_complex, "view_as_real is only supported for complex tensors")
    return _alias_as(self, self._sizes + (2,), tuple(s * 2 for s in self._strides) + (1,),
                     self._offset * 2, self._dtype.to_real())


_COMPLEX_OF = {dt.float16: dt.complex32, dt.float32: dt.complex64, dt.float64: dt.complex128}


def view_as_complex(self):
    dtype = self._dtype
    if dtype not in _COMPLEX_OF:
        raise RuntimeError("view_as_complex is only supported for half, float and double "
                           f"tensors, but got a tensor of scalar type: {dtype._scalar_name}")
    sizes = self._sizes
    strides = self._strides
    check(len(sizes) > 0, "Input tensor must have one or more dimensions")
    check(sizes[-1] == 2, "Tensor must have a last dimension of size 2")
    check(strides[-1] == 1, "Tensor must have a last dimension with stride 1")
    for s in strides[:-1]:
        check(s % 2 == 0, "Tensor must have a stride divisible by 2 for all but last dimension")
    check(self._offset % 2 == 0, "Tensor must have a storage_offset divisible by 2")
    return _alias_as(self, sizes[:-1], tuple(s // 2 for s in strides[:-1]), self._offset // 2,
                     _COMPLEX_OF[dtype])


def real(self):
    """The real parts of a complex tensor (a view); a real tensor is its own real part. As
    torch's: of a conjugate view, the real parts of ``_conj(self)`` (the bytes)."""
    if not self._dtype.is_complex:
        return self
    if self._keyset & _CONJ_BIT:
        self = alias_conj(self)
    return select(view_as_real(self), -1, 0)


def imag(self):
    """The imaginary parts (a view); those of a conjugate view are the negated imaginary
    parts of ``_conj(self)``: a negative view (Note [Conjugate and negative bits])."""
    check(self._dtype.is_complex, "imag is not implemented for tensors with non-complex dtypes.")
    if self._keyset & _CONJ_BIT:
        return select(alias_neg(view_as_real(alias_conj(self))), -1, 1)
    return select(view_as_real(self), -1, 1)


# -- matrix transposes and the conjugate / negative bits ------------------------------------------
# (Note [Conjugate and negative bits])

_CONJ_BIT = DispatchKey.Conjugate.bit
_NEG_BIT = DispatchKey.Negative.bit
_SPARSE_BITS = (DispatchKey.SparseCPU.bit | DispatchKey.SparseMeta.bit
                | DispatchKey.SparseCsrCPU.bit | DispatchKey.SparseCsrMeta.bit)


def _flipped(self, bit):
    """An alias of ``self`` (same geometry) with ``bit`` of its key set flipped."""
    out = make_view(self, self._sizes, self._strides, self._offset)
    out._keyset ^= bit
    return out


def alias_conj(self):
    """``_conj``: a view whose conjugate bit is the opposite of ``self``'s."""
    return _flipped(self, _CONJ_BIT)


def alias_neg(self):
    """``_neg_view``: a view whose negative bit is the opposite of ``self``'s."""
    return _flipped(self, _NEG_BIT)


def _conj(t):
    """``t.conj()`` at the kernel level: ``t`` itself for real dtypes, else a conjugate view
    (a sparse tensor is conjugated physically, as torch does)."""
    if not t._dtype.is_complex:
        return t
    if t._keyset & _SPARSE_BITS:
        return _call_op("aten::conj_physical", t)
    return alias_conj(t)


def conj(self):
    """torch's composite ``conj``: ``self`` for real dtypes, ``_conj(self)`` (a view with the
    conjugate bit flipped, ConjBackward0) for complex ones."""
    if not self._dtype.is_complex:
        return self
    if self._keyset & _SPARSE_BITS:
        return _call_op("aten::conj_physical", self)
    return _call_op("aten::_conj", self)


def conj_physical(self):
    """torch's composite: a real tensor is returned itself, a complex one goes through
    ``_conj_physical`` (ConjPhysicalBackward0)."""
    if not self._dtype.is_complex:
        return self
    return _call_op("aten::_conj_physical", self)


def conj_physical_copy(self):
    """``_conj_physical``: the conjugated values in a new tensor without bits."""
    from .factory import clone
    if not self._dtype.is_complex:
        return clone(self)
    if self._keyset & _CONJ_BIT:
        return clone(alias_conj(self))      # the bytes already are the conjugates
    out = clone(self)
    if out._device.type != "meta":
        _conj_bytes_(out._array())
    return out


def _conj_bytes_(arr) -> None:
    """Conjugate the complex values of ``arr`` in place (complex32 too: two float16 fields)."""
    if arr.dtype.kind == "c":
        np.conjugate(arr, out=arr)
    elif arr.dtype.names and "imag" in arr.dtype.names:
        imag = arr["imag"]
        np.negative(imag, out=imag)
        _c32.quiet_nans(imag)     # (torch negates it as a float: a signalling NaN quiets)


def _neg_bytes_(arr) -> None:
    if arr.dtype.names:
        for name in arr.dtype.names:
            field = arr[name]
            np.negative(field, out=field)
    elif arr.dtype.kind == "b":
        raise NotImplementedError('"neg_cpu" not implemented for \'Bool\'')   # torch's copy_
    else:
        with np.errstate(all="ignore"):
            np.negative(arr, out=arr)


def conj_physical_(self):
    """Conjugating the bytes conjugates the values whatever bits ``self`` carries (conj and
    neg commute), so this kernel serves conjugate and negative views directly."""
    if self._dtype.is_complex and self._device.type != "meta":
        _conj_bytes_(self._array())
        self._vc[0] += 1
    return self


def resolve_conj(self):
    """torch's composite: ``self`` without the conjugate bit, else a clone (which resolves
    every bit, the negative one included)."""
    if not self._keyset & _CONJ_BIT:
        return self
    return _call_op("aten::clone", self, None)


def resolve_neg(self):
    if not self._keyset & _NEG_BIT:
        return self
    return _call_op("aten::clone", self, None)


def is_conj(self):
    return bool(self._keyset & _CONJ_BIT)


def is_neg(self):
    return bool(self._keyset & _NEG_BIT)


def numpy_T(self):
    """``Tensor.T``: all dims reversed."""
    ndim = len(self._sizes)
    if ndim == 0:
        warn_once("T0", "Tensor.T is deprecated on 0-D tensors. This function is the identity "
                        "in these cases.")
    elif ndim != 2:
        warn_once("T", "The use of `x.T` on tensors of dimension other than 2 to reverse their "
                       "shape is deprecated and it will throw an error in a future release. "
                       "Consider `x.mT` to transpose batches of matrices or `x.permute(*torch."
                       "arange(x.ndim - 1, -1, -1))` to reverse the dimensions of a tensor.")
    return permute(self, tuple(range(ndim - 1, -1, -1)))


def matrix_H(self):
    """``Tensor.H``: the conjugate transpose of a matrix."""
    return _matrix_H(self, _conj, transpose)


def _matrix_H(self, conj, transpose_fn):
    ndim = len(self._sizes)
    if ndim == 0:
        warn_once("H0", "Tensor.H is deprecated on 0-D tensors. Consider using x.conj().")
        return conj(self)
    check(ndim == 2, lambda: (
        f"tensor.H is only supported on matrices (2-D tensors). Got {ndim}-D tensor."
        + (" For batches of matrices, consider using tensor.mH" if ndim > 2 else "")))
    return conj(transpose_fn(self, 0, 1))


def mT(self):
    """``Tensor.mT``: the last two dims swapped (batches of matrices)."""
    ndim = len(self._sizes)
    if ndim == 0:
        warn_once("mT0", "Tensor.mT is deprecated on 0-D tensors. This function is the "
                         "identity in these cases.")
        return self
    check(ndim >= 2, lambda: ("tensor.mT is only supported on matrices or batches of matrices. "
                              f"Got {ndim}-D tensor."))
    return transpose(self, -2, -1)


def _matrix_adjoint(self, name, key, warning, conj=_conj, transpose_fn=transpose):
    ndim = len(self._sizes)
    if ndim == 0:
        warn_once(key, warning)
        return conj(self)
    check(ndim >= 2, lambda: (f"tensor.{name} is only supported on matrices or batches of "
                              f"matrices. Got {ndim}-D tensor."))
    return conj(transpose_fn(self, -2, -1))


_MH = ("mH", "mH0", "Tensor.mH is deprecated on 0-D tensors. Consider using x.conj().")
_ADJOINT = ("adjoint()", "adjoint0", "adjoint() is deprecated on 0-D tensors. Consider using "
            "x.conj().")


def mH(self):
    return _matrix_adjoint(self, *_MH)


def adjoint(self):
    return _matrix_adjoint(self, *_ADJOINT)


# -- splits ---------------------------------------------------------------------------------------

def split_Tensor(self, split_size, dim=0):
    """Pieces of ``split_size`` along ``dim``; the last one takes what is left."""
    ndim = len(self._sizes)
    check(ndim != 0, "split expects at least a 1-dimensional tensor")
    check(split_size >= 0, lambda: (
        f"split expects split_size be non-negative, but got split_size={split_size}"))
    dim = maybe_wrap_dim(dim, ndim)
    dim_size = self._sizes[dim]
    check(split_size > 0 or dim_size == 0, lambda: (
        f"split_size can only be 0 if dimension size is 0, but got dimension size of "
        f"{dim_size}"))
    if split_size == 0:
        return (narrow(self, dim, 0, 0),)
    num_splits = max((dim_size + split_size - 1) // split_size, 1)
    last = dim_size - split_size * (num_splits - 1)
    return tuple(narrow(self, dim, i * split_size, split_size if i < num_splits - 1 else last)
                 for i in range(num_splits))


def split_with_sizes(self, split_sizes, dim=0):
    ndim = len(self._sizes)
    check(ndim != 0, "split expects at least a 1-dimensional tensor")
    wrapped = maybe_wrap_dim(dim, ndim)
    dim_size = self._sizes[wrapped]
    for length in split_sizes:
        check(length >= 0, lambda: (
            "split_with_sizes expects split_sizes have only non-negative entries, but got "
            f"split_sizes={list(split_sizes)}"))
    check(sum(split_sizes) == dim_size, lambda: (
        f"split_with_sizes expects split_sizes to sum exactly to {dim_size} (input tensor's "
        f"size at dimension {dim}), but got split_sizes={list(split_sizes)}"))
    out = []
    start = 0
    for length in split_sizes:
        out.append(narrow(self, wrapped, start, length))
        start += length
    return tuple(out)


def split_sizes(self, split_size, dim=0):
    return split_with_sizes(self, split_size, dim)


def _check_tensor_split_input(self):
    ndim = len(self._sizes)
    check(ndim > 0, lambda: ("tensor_split expected at least a 1-dimensional tensor, but got a "
                             f"tensor with {ndim} dims"))


def tensor_split_sections(self, sections, dim=0):
    """``sections`` nearly equal pieces: the first ``size % sections`` get one extra."""
    _check_tensor_split_input(self)
    dim = maybe_wrap_dim(dim, len(self._sizes))
    check(sections > 0, lambda: f"number of sections must be larger than 0, got {sections}")
    # torch reserves a std::vector of ``sections`` tensors first
    check(sections < 1 << 60, "cannot create std::vector larger than max_size()")
    dim_size = self._sizes[dim]
    small, extra = divmod(dim_size, sections)
    out = []
    start = 0
    for i in range(sections):
        length = small + (1 if i < extra else 0)
        out.append(slice_Tensor(self, dim, start, start + length, 1))
        start += length
    return tuple(out)


def tensor_split_indices(self, indices, dim=0):
    """Cuts before each index (Python slice bounds: negative ones count from the end,
    out-of-range ones clamp)."""
    _check_tensor_split_input(self)
    dim = maybe_wrap_dim(dim, len(self._sizes))
    out = []
    start = 0
    for index in indices:
        out.append(slice_Tensor(self, dim, start, index, 1))
        start = index
    out.append(slice_Tensor(self, dim, start, None, 1))
    return tuple(out)


def tensor_split_tensor_indices_or_sections(self, tensor_indices_or_sections, dim=0):
    t = tensor_indices_or_sections
    check(t._device.type == "cpu", lambda: (
        "tensor_split expected tensor_indices_or_sections to be on cpu, but it's on "
        f"{t._device}"))
    check(t._dtype is dt.int64, lambda: (
        "tensor_split expected tensor_indices_or_sections to have dtype of long, but got "
        f"{t._dtype._scalar_name}"))
    check(len(t._sizes) <= 1, lambda: (
        "tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
        f"one-dimensional tensor, but got a tensor with {len(t._sizes)} dims"))
    values = t._array()
    if not t._sizes:
        return tensor_split_sections(self, int(values), dim)
    return tensor_split_indices(self, [int(v) for v in values], dim)


def _chunk_plan(self, chunks, dim):
    """``chunk``'s checks and plan: (dim, split size), or (dim, None) for an empty dim
    (then ``chunks`` empty pieces)."""
    ndim = len(self._sizes)
    check(ndim > 0, "chunk expects at least a 1-dimensional tensor")
    check(chunks > 0, lambda: f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    dim = maybe_wrap_dim(dim, ndim)
    dim_size = self._sizes[dim]
    split_size = (dim_size + chunks - 1) // chunks
    return dim, (None if split_size == 0 and dim_size == 0 else split_size)


def chunk(self, chunks, dim=0):
    """``split`` with ``ceil(size / chunks)``: may give fewer than ``chunks`` pieces."""
    dim, split_size = _chunk_plan(self, chunks, dim)
    if split_size is None:
        return split_with_sizes(self, [0] * chunks, dim)
    return split_Tensor(self, split_size, dim)


def _directional_split_dim(self, name, min_dims, dim):
    ndim = len(self._sizes)
    check(ndim >= min_dims, lambda: (
        f"torch.{name} requires a tensor with at least {min_dims} dimension, but got a "
        f"tensor with {ndim} dimensions!"))
    return dim


def _directional_split_int(self, name, min_dims, dim, sections):
    _directional_split_dim(self, name, min_dims, dim)
    size = self._sizes[dim]
    check(sections != 0 and size % sections == 0, lambda: (
        f"torch.{name} attempted to split along dimension {dim}, but the size of the dimension "
        f"{size} is not divisible by the split_size {sections}!"))
    return tensor_split_sections(self, sections, dim)


def hsplit_int(self, sections):
    dim = 1 if len(self._sizes) > 1 else 0
    return _directional_split_int(self, "hsplit", 1, dim, sections)


def hsplit_array(self, indices):
    dim = 1 if len(self._sizes) > 1 else 0
    _directional_split_dim(self, "hsplit", 1, dim)
    return tensor_split_indices(self, indices, dim)


def vsplit_int(self, sections):
    return _directional_split_int(self, "vsplit", 2, 0, sections)


def vsplit_array(self, indices):
    _directional_split_dim(self, "vsplit", 2, 0)
    return tensor_split_indices(self, indices, 0)


def dsplit_int(self, sections):
    return _directional_split_int(self, "dsplit", 3, 2, sections)


def dsplit_array(self, indices):
    _directional_split_dim(self, "dsplit", 3, 2)
    return tensor_split_indices(self, indices, 2)


# -- set_ / resize_as_ ----------------------------------------------------------------------------

_INT64_MAX = (1 << 63) - 1

# The C++ type names torch's set_ message prints.
_CPP_TYPE_NAMES = {
    "Bool": "bool", "Byte": "unsigned char", "Char": "signed char", "Short": "short int",
    "Int": "int", "Long": "long int", "Half": "c10::Half", "BFloat16": "c10::BFloat16",
    "Float": "float", "Double": "double", "ComplexFloat": "c10::complex<float>",
    "ComplexDouble": "c10::complex<double>", "UInt16": "short unsigned int",
    "UInt32": "unsigned int", "UInt64": "long unsigned int",
}


def _set_storage(self, storage, offset, sizes, strides):
    """Point ``self`` at ``storage`` with the given geometry, growing the storage when the
    geometry reaches past its end (torch's ``set_`` resizes rather than refusing)."""
    check(storage.device == self._device, lambda: (
        f'Attempted to set the storage of a tensor on device "{self._device}" to a storage on '
        f'different device "{storage.device}".  This is no longer allowed; the devices must '
        f"match."))
    sizes = tuple(sizes)
    given = tuple(strides) if strides else ()
    strides = given or contiguous_strides(sizes)
    check(len(sizes) == len(strides), lambda: (
        f"unequal size length ({len(sizes)}) and stride length ({len(strides)})"))
    check(offset >= 0, lambda: f"Tensor: invalid storage offset {offset}")
    check_numel(sizes)
    for s in strides:
        check(s >= 0, lambda: (f"Storage size calculation overflowed with sizes={list(sizes)} "
                               f"and strides={list(strides)}"))
    itemsize = self._dtype.itemsize
    needed = storage_nbytes_needed(sizes, strides, offset, itemsize)
    if needed > _INT64_MAX:
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(sizes)}"
                           + (f" and strides={list(strides)}" if given else ""))
    if needed > storage._nbytes:
        if (sizes == self._sizes and given in ((), self._strides)
                and storage.device.type != "meta"):
            # torch's resize step sees no change of geometry and leaves the storage as it is,
            # so the new geometry must fit (the strides as given show in the message)
            raise RuntimeError(bounds_message(sizes, given, offset, itemsize, needed,
                                              storage._nbytes))
        storage.resize_(needed)
    self._storage = storage
    self._sizes = sizes
    self._strides = strides
    self._offset = offset
    self._np = None
    self._vc[0] += 1
    return self


def set_source_Storage(self, source):
    return _set_storage(self, source, 0, (source._nbytes // self._dtype.itemsize,), (1,))


def set_source_Storage_storage_offset(self, source, storage_offset, size, stride=()):
    return _set_storage(self, source, storage_offset, size, stride)


def set_source_Tensor_storage_offset(self, source, storage_offset, size, stride=()):
    # the offset counts from the source tensor's own first element, as torch's does
    return _set_storage(self, source._storage, source._offset + storage_offset, size, stride)


def set_source_Tensor(self, source):
    check(source._dtype is self._dtype, lambda: (
        f"Could not set tensor of type {_CPP_TYPE_NAMES[source._dtype._scalar_name]} to a "
        f"tensor of type {_CPP_TYPE_NAMES[self._dtype._scalar_name]}"))
    return _set_storage(self, source._storage, source._offset, source._sizes, source._strides)


def set_(self):
    """Detach ``self`` from its storage: a fresh empty one, shape ``(0,)``."""
    return _set_storage(self, UntypedStorage(0, device=self._device), 0, (0,), (1,))


def resize_as_(self, the_template, memory_format=None):
    """``resize_`` to the template's sizes (the version moves only when they change); a
    memory format then restrides it, ``preserve_format`` meaning the template's suggested
    one."""
    from .resize import resize_ as _resize
    from .resize import restride
    _resize(self, the_template._sizes)
    if memory_format is not None:
        if memory_format is layouts.preserve_format:
            memory_format = layouts.suggest_memory_format(the_template._sizes,
                                                          the_template._strides)
        restride(self, memory_format)
    return self


# -- decompositions for the Autograd key (Note [Composite views under autograd] in views.py) ---

def split_sizes_autograd(self, split_size, dim=0):
    return _call_op("aten::split_with_sizes", self, split_size, dim)


def chunk_autograd(self, chunks, dim=0):
    dim, split_size = _chunk_plan(self, chunks, dim)
    if split_size is None:
        return _call_op("aten::split_with_sizes", self, [0] * chunks, dim)
    return _call_op("aten::split.Tensor", self, split_size, dim)


def _bounds_slices(self, bounds, dim):
    d = maybe_wrap_dim(dim, len(self._sizes))
    return tuple(_call_op("aten::slice.Tensor", self, d, a, b, 1) for a, b in bounds)


def _section_bounds(self, sections, dim):
    dim_size = self._sizes[maybe_wrap_dim(dim, len(self._sizes))]
    small, extra = divmod(dim_size, sections)
    bounds = []
    start = 0
    for i in range(sections):
        length = small + (1 if i < extra else 0)
        bounds.append((start, start + length))
        start += length
    return bounds


def _index_bounds(indices):
    bounds = []
    start = 0
    for index in indices:
        bounds.append((start, index))
        start = index
    bounds.append((start, None))
    return bounds


def tensor_split_sections_autograd(self, sections, dim=0):
    tensor_split_sections(self, sections, dim)      # its checks
    return _bounds_slices(self, _section_bounds(self, sections, dim), dim)


def tensor_split_indices_autograd(self, indices, dim=0):
    tensor_split_indices(self, indices, dim)
    return _bounds_slices(self, _index_bounds(indices), dim)


def tensor_split_tensor_indices_or_sections_autograd(self, tensor_indices_or_sections, dim=0):
    tensor_split_tensor_indices_or_sections(self, tensor_indices_or_sections, dim)
    t = tensor_indices_or_sections
    values = t._array()
    if not t._sizes:
        return tensor_split_sections_autograd(self, int(values), dim)
    return tensor_split_indices_autograd(self, [int(v) for v in values], dim)


def hsplit_int_autograd(self, sections):
    hsplit_int(self, sections)
    return tensor_split_sections_autograd(self, sections, 1 if len(self._sizes) > 1 else 0)


def hsplit_array_autograd(self, indices):
    hsplit_array(self, indices)
    return tensor_split_indices_autograd(self, indices, 1 if len(self._sizes) > 1 else 0)


def vsplit_int_autograd(self, sections):
    vsplit_int(self, sections)
    return tensor_split_sections_autograd(self, sections, 0)


def vsplit_array_autograd(self, indices):
    vsplit_array(self, indices)
    return tensor_split_indices_autograd(self, indices, 0)


def dsplit_int_autograd(self, sections):
    dsplit_int(self, sections)
    return tensor_split_sections_autograd(self, sections, 2)


def dsplit_array_autograd(self, indices):
    dsplit_array(self, indices)
    return tensor_split_indices_autograd(self, indices, 2)


def real_autograd(self):
    if not self._dtype.is_complex:
        return self
    if self._keyset & _CONJ_BIT:
        self = _call_op("aten::_conj", self)
    return _call_op("aten::select.int", _call_op("aten::view_as_real", self), -1, 0)


def imag_autograd(self):
    check(self._dtype.is_complex, "imag is not implemented for tensors with non-complex dtypes.")
    if self._keyset & _CONJ_BIT:
        parts = _call_op("aten::_neg_view", _call_op("aten::view_as_real",
                                                     _call_op("aten::_conj", self)))
    else:
        parts = _call_op("aten::view_as_real", self)
    return _call_op("aten::select.int", parts, -1, 1)


def numpy_T_autograd(self):
    numpy_T(self)   # its warnings
    return _call_op("aten::permute", self, list(range(len(self._sizes) - 1, -1, -1)))


def mT_autograd(self):
    mT(self)
    if not self._sizes:
        return self
    return _call_op("aten::transpose.int", self, -2, -1)


def _conj_autograd(t):
    """The conjugate through the dispatcher (ConjBackward0 in the graph, as torch)."""
    if not t._dtype.is_complex:
        return t
    return _call_op("aten::conj", t)


def _transpose_autograd(t, dim0, dim1):
    return _call_op("aten::transpose.int", t, dim0, dim1)


def matrix_H_autograd(self):
    return _matrix_H(self, _conj_autograd, _transpose_autograd)


def mH_autograd(self):
    return _matrix_adjoint(self, *_MH, _conj_autograd, _transpose_autograd)


def adjoint_autograd(self):
    return _matrix_adjoint(self, *_ADJOINT, _conj_autograd, _transpose_autograd)
