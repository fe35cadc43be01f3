"""View kernels: compute (sizes, strides, storage_offset) and share the storage.

A view never touches data and never calls NumPy. It shares the version counter
of its input and records the root of the alias chain as ``_base``.

Note [Views are three numbers]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Element ``(i0, i1, ...)`` of a strided tensor lives at storage index
``offset + i0 * stride0 + i1 * stride1 + ...``. Every op in this file derives a
new (sizes, strides, offset) from the input's and hands back a tensor over the
same storage; seed 001 walks through diagonal, expand, narrow, permute and
unfold with worked numbers, e.g. for ``rand(2, 4, 4)`` (strides (16, 4, 1))::

    diagonal(-1, 1, 2)   sizes (2, 3)  strides (16, 5)  offset 4
    .diagonal(1, 0, 1)   sizes (2,)    strides (21,)    offset 9

Note [In-place view ops]
~~~~~~~~~~~~~~~~~~~~~~~~
``t_``, ``transpose_``, ``squeeze_``, ``unsqueeze_`` and ``as_strided_`` change
the metadata of the tensor they are called on (``_base`` and the storage stay).
They drop the cached NumPy view (Note [The NumPy view cache]) and, like every
in-place op in torch, bump the version counter.
"""

from __future__ import annotations

import os
import sys
import warnings

from ..core.checks import check, maybe_wrap_dim
from ..core.dispatch_keys import DispatchKey
from ..core.storage import SHRUNK
from ..core.tensor_impl import (
    bounds_message,
    check_numel,
    contiguous_strides,
    make_tensor,
    numel_of,
    storage_nbytes_needed,
)
from .broadcast import broadcast_pair

_INT64_MAX = (1 << 63) - 1


_MATH_BITS = DispatchKey.Conjugate.bit | DispatchKey.Negative.bit


def make_view(self, sizes: tuple, strides: tuple, offset: int):
    """A view of ``self``: same storage, version counter and ``_base`` chain, and the
    conjugate / negative bits of ``self`` (Note [Conjugate and negative bits] in
    view_ops.py)."""
    base = self._base if self._base is not None else self
    out = make_tensor(self._storage, sizes, strides, offset, self._dtype, self._vc, base)
    bits = self._keyset & _MATH_BITS
    if bits:
        out._keyset |= bits
    return out


def _checked_view(self, sizes: tuple, strides: tuple, offset: int):
    """``make_view`` for the views torch makes through ``as_strided`` (select, slice,
    transpose, permute, expand, ...): their geometry must fit in the storage as it is now
    (Note [Shrunk storages]; a view of an in-bounds tensor always does, so the check only
    runs once some storage has shrunk)."""
    if SHRUNK[0]:
        check_in_bounds_for_storage(sizes, strides, offset, self._dtype, self._storage)
    return make_view(self, sizes, strides, offset)   # (looked up here: explain() wraps it)


def _checked_geometry(self, sizes: tuple, strides: tuple, offset: int):
    """``_set_geometry`` with ``_checked_view``'s check (torch's in-place view ops)."""
    if SHRUNK[0]:
        check_in_bounds_for_storage(sizes, strides, offset, self._dtype, self._storage)
    return _set_geometry(self, sizes, strides, offset)


def _set_geometry(self, sizes: tuple, strides: tuple, offset: int):
    """In-place metadata change (Note [In-place view ops])."""
    self._sizes = sizes
    self._strides = strides
    self._offset = offset
    self._np = None
    self._vc[0] += 1
    return self


_warned: set = set()


_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def warn_once(key: str, message: str) -> None:
    """torch's TORCH_WARN_ONCE: the first call in a process warns, later ones are silent.
    The warning is attributed to the first caller outside the strided package."""
    if key in _warned:
        return
    _warned.add(key)
    level = 2
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame = frame.f_back
        level += 1
    warnings.warn(message, UserWarning, stacklevel=level)


# -- legacy type names used in torch's messages ----------------------------------------------

_LEGACY_SCALARS = frozenset(("Byte", "Char", "Short", "Int", "Long", "Half", "Float", "Double"))
_BACKEND_NAMES = {"cpu": "CPU", "cuda": "CUDA", "meta": "Meta"}


def type_string(t) -> str:
    """``torch.FloatTensor`` for the legacy CPU types, ``CPUBoolType`` / ``MetaFloatType``
    for the rest (the name torch prints as ``toString()`` of a tensor's type)."""
    name = t._dtype._scalar_name
    dev = t._device.type
    if name in _LEGACY_SCALARS and dev in ("cpu", "cuda"):
        return f"torch.{name}Tensor" if dev == "cpu" else f"torch.cuda.{name}Tensor"
    return f"{_BACKEND_NAMES.get(dev, dev)}{name}Type"


# -- as_strided ---------------------------------------------------------------------------------

def check_in_bounds_for_storage(sizes, strides, offset, dtype, storage) -> None:
    """torch's setStorage check: the view must fit in the storage's bytes (meta storages
    hold no bytes, and torch checks nothing there)."""
    if storage._buf is None:
        return
    itemsize = dtype.itemsize
    needed = storage_nbytes_needed(sizes, strides, offset, itemsize)
    if needed > storage._nbytes:
        raise RuntimeError(bounds_message(sizes, strides, offset, itemsize, needed,
                                          storage._nbytes))


def _check_negative_size_like_torch(size, stride, offset, itemsize) -> None:
    """torch's errors for a negative size, which its unsigned 64-bit size arithmetic turns
    into an overflow: first of the storage size (offset + 1 + sum (size - 1) * stride),
    then of the element count. (Where neither overflows, a zero dim first, torch makes a
    tensor with a negative size; strided refuses it.)"""
    wrap = 1 << 64
    total, overflowed = offset + 1, False
    for sz, st in zip(size, stride):
        if sz == 0:
            break
        term = st * ((sz - 1) % wrap)
        total += term % wrap
        overflowed |= term >= wrap or total >= wrap
        total %= wrap
    else:
        overflowed |= total * itemsize >= wrap
    check(not overflowed, lambda: f"Storage size calculation overflowed with sizes="
          f"{list(size)} and strides={list(stride)}")
    count = 1
    for sz in size:
        count *= sz % wrap
        check(count < wrap, "numel: integer multiplication overflow")


def _check_as_strided(self, size, stride, offset) -> None:
    check(len(size) == len(stride), "mismatch in length of strides and shape")
    for s in stride:
        check(s >= 0, lambda: ("as_strided: Negative strides are not supported at the moment, "
                               f"got strides: {list(stride)}"))
    negative = [s for s in size if s < 0]
    if negative:
        _check_negative_size_like_torch(size, stride, offset, self._dtype.itemsize)
        raise RuntimeError(f"Trying to create tensor with negative dimension {negative[0]}: "
                           f"{list(size)}")
    check_in_bounds_for_storage(size, stride, offset, self._dtype, self._storage)
    check(offset >= 0, lambda: f"Tensor: invalid storage offset {offset}")
    check_numel(size)


def as_strided(self, size, stride, storage_offset=None):
    offset = self._offset if storage_offset is None else storage_offset
    _check_as_strided(self, size, stride, offset)
    return make_view(self, tuple(size), tuple(stride), offset)


def as_strided_(self, size, stride, storage_offset=None):
    offset = self._offset if storage_offset is None else storage_offset
    _check_as_strided(self, size, stride, offset)
    return _set_geometry(self, tuple(size), tuple(stride), offset)


def alias(self):
    return make_view(self, self._sizes, self._strides, self._offset)


# -- view / reshape -----------------------------------------------------------------------------

def infer_size(shape, numel: int) -> tuple:
    """Resolve one ``-1`` in ``shape`` against ``numel`` (torch's messages)."""
    infer_dim = None
    known = 1
    for i, s in enumerate(shape):
        if s == -1:
            check(infer_dim is None, "only one dimension can be inferred")
            infer_dim = i
        elif s >= 0:
            known *= s
        else:
            raise RuntimeError(f"invalid shape dimension {s} at index {i} of shape "
                               f"{list(shape)}")
    if infer_dim is None:
        if known == numel:
            return tuple(shape)
    elif known == numel or (known > 0 and numel % known == 0):
        check(known != 0, lambda: (
            f"cannot reshape tensor of 0 elements into shape {list(shape)} because the "
            f"unspecified dimension size -1 can be any value and is ambiguous"))
        out = list(shape)
        out[infer_dim] = numel // known
        return tuple(out)
    raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")


def compute_view_strides(old_sizes, old_strides, new_sizes):
    """Strides that let ``new_sizes`` view memory laid out as (old_sizes, old_strides),
    or None when the view would need a copy.

    The old dims are cut into chunks that are contiguous with each other (each dim's
    stride is the next one's stride times its size); every new dim must fall inside
    one chunk, and a chunk's new dims get strides built up from its innermost stride.
    """
    if not old_sizes:
        return (1,) * len(new_sizes)
    numel = numel_of(old_sizes)
    if numel == 0:
        if tuple(old_sizes) == tuple(new_sizes):
            return tuple(old_strides)
        strides = [0] * len(new_sizes)
        acc = 1
        for d in range(len(new_sizes) - 1, -1, -1):
            strides[d] = acc
            acc *= max(new_sizes[d], 1)
        return tuple(strides)
    new_strides = [0] * len(new_sizes)
    view_d = len(new_sizes) - 1
    chunk_stride = old_strides[-1]
    tensor_numel = 1
    view_numel = 1
    for tensor_d in range(len(old_sizes) - 1, -1, -1):
        tensor_numel *= old_sizes[tensor_d]
        chunk_ends = tensor_d == 0 or (
            old_sizes[tensor_d - 1] != 1
            and old_strides[tensor_d - 1] != tensor_numel * chunk_stride)
        if chunk_ends:
            while view_d >= 0 and (view_numel < tensor_numel or new_sizes[view_d] == 1):
                new_strides[view_d] = view_numel * chunk_stride
                view_numel *= new_sizes[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if tensor_d > 0:
                chunk_stride = old_strides[tensor_d - 1]
                tensor_numel = 1
                view_numel = 1
    if view_d != -1:
        return None
    return tuple(new_strides)


def _view_strides(self, sizes):
    """``compute_view_strides`` with a fast path: a row-major input gives row-major views."""
    old = self._sizes
    if self._strides == contiguous_strides(old):
        return contiguous_strides(sizes)
    return compute_view_strides(old, self._strides, sizes)


def view(self, size):
    sizes = infer_size(size, numel_of(self._sizes))
    strides = _view_strides(self, sizes)
    check(strides is not None, (
        "view size is not compatible with input tensor's size and stride (at least one "
        "dimension spans across two contiguous subspaces). Use .reshape(...) instead."))
    return make_view(self, sizes, strides, self._offset)


def view_as(self, other):
    return view(self, other._sizes)


def _contiguous_copy(self):
    from ..core.layouts import contiguous_format
    from .factory import clone
    return clone(self, contiguous_format)


def reshape(self, shape):
    """A view when the strides allow one (exactly when ``view`` succeeds), otherwise a
    contiguous copy of the data with the new shape (not a view: no ``_base``)."""
    sizes = infer_size(shape, numel_of(self._sizes))
    strides = _view_strides(self, sizes)
    if strides is not None:
        return make_view(self, sizes, strides, self._offset)
    copy = _contiguous_copy(self)
    return make_tensor(copy._storage, sizes, contiguous_strides(sizes), copy._offset,
                       copy._dtype)


def unsafe_view(self, size):
    """``_unsafe_view``: ``view``'s result, but not a view for autograd (no ``_base``, its
    own version counter): what ``reshape`` gives when it had to copy."""
    sizes = infer_size(size, numel_of(self._sizes))
    strides = _view_strides(self, sizes)
    check(strides is not None, (
        "view size is not compatible with input tensor's size and stride (at least one "
        "dimension spans across two contiguous subspaces). Use .reshape(...) instead."))
    out = make_tensor(self._storage, sizes, strides, self._offset, self._dtype)
    out._keyset |= self._keyset & _MATH_BITS
    return out


def reshape_as(self, other):
    return reshape(self, other._sizes)


def flatten_using_ints(self, start_dim=0, end_dim=-1):
    """Merges dims ``start_dim..end_dim`` (a view when possible, like ``reshape``).
    Nothing to merge returns ``self`` itself; a 0-dim tensor becomes a 1-element view."""
    ndim = len(self._sizes)
    start = maybe_wrap_dim(start_dim, ndim)
    end = maybe_wrap_dim(end_dim, ndim)
    if ndim == 0:
        return reshape(self, (1,))
    check(start <= end, "flatten() has invalid args: start_dim cannot come after end_dim")
    if start == end:
        return self
    sizes = self._sizes
    merged = numel_of(sizes[start:end + 1])
    return reshape(self, sizes[:start] + (merged,) + sizes[end + 1:])


def unflatten_int(self, dim, sizes):
    """Splits ``dim`` into ``sizes`` (one may be -1); always a view."""
    ndim = len(self._sizes)
    check(len(sizes) > 0, "unflatten: sizes must be non-empty")   # torch's first check
    if ndim == 0:
        raise RuntimeError("unflatten got an unexpected error:\nDimension specified as "
                           f"{dim} but tensor has no dimensions")
    dim = maybe_wrap_dim(dim, ndim)
    size = self._sizes[dim]
    try:
        inner = infer_size(sizes, size)
    except RuntimeError as e:
        # torch rewords the "invalid for input of size" failure and wraps the others
        if "is invalid for input of size" in str(e):
            raise RuntimeError(f"unflatten: Provided sizes {list(sizes)} don't multiply up to "
                               f"the size of dim {dim} ({size}) in the input tensor") from None
        raise RuntimeError(f"unflatten got an unexpected error:\n{e}") from None
    return view(self, self._sizes[:dim] + inner + self._sizes[dim + 1:])


def ravel(self):
    """``contiguous().view(-1)``: on a non-contiguous tensor the result is a view of a
    contiguous copy (its ``_base`` is that copy)."""
    from ..core.tensor_impl import compute_is_contiguous
    numel = numel_of(self._sizes)
    if compute_is_contiguous(self._sizes, self._strides):
        return view(self, (numel,))
    copy = _contiguous_copy(self)
    return make_tensor(copy._storage, (numel,), (1,), copy._offset, copy._dtype, copy._vc,
                       copy)


# -- squeeze / unsqueeze ------------------------------------------------------------------------

def _squeezed(self, dims):
    """(sizes, strides) with the size-1 dims among ``dims`` removed (all of them for None)."""
    sizes = self._sizes
    strides = self._strides
    ndim = len(sizes)
    if dims is None:
        keep = [d for d in range(ndim) if sizes[d] != 1]
    else:
        wrapped = set()
        for d in dims:
            w = maybe_wrap_dim(d, ndim)
            if w in wrapped:
                raise RuntimeError(f"dim {w} appears multiple times in the list of dims")
            wrapped.add(w)
        if ndim == 0:
            return sizes, strides
        keep = [d for d in range(ndim) if d not in wrapped or sizes[d] != 1]
    return tuple(sizes[d] for d in keep), tuple(strides[d] for d in keep)


def squeeze(self):
    sizes, strides = _squeezed(self, None)
    return _checked_view(self, sizes, strides, self._offset)


def squeeze_dim(self, dim):
    sizes, strides = _squeezed(self, (dim,))
    return _checked_view(self, sizes, strides, self._offset)


def squeeze_dims(self, dim):
    sizes, strides = _squeezed(self, dim)
    return _checked_view(self, sizes, strides, self._offset)


def squeeze_(self):
    sizes, strides = _squeezed(self, None)
    return _checked_geometry(self, sizes, strides, self._offset)


def squeeze__dim(self, dim):
    sizes, strides = _squeezed(self, (dim,))
    return _checked_geometry(self, sizes, strides, self._offset)


def squeeze__dims(self, dim):
    sizes, strides = _squeezed(self, dim)
    return _checked_geometry(self, sizes, strides, self._offset)


def _unsqueezed(self, dim):
    sizes = self._sizes
    strides = self._strides
    ndim = len(sizes)
    dim = maybe_wrap_dim(dim, ndim + 1)
    stride = 1 if dim >= ndim else sizes[dim] * strides[dim]
    return sizes[:dim] + (1,) + sizes[dim:], strides[:dim] + (stride,) + strides[dim:]


def unsqueeze(self, dim):
    sizes, strides = _unsqueezed(self, dim)
    return _checked_view(self, sizes, strides, self._offset)


def unsqueeze_(self, dim):
    sizes, strides = _unsqueezed(self, dim)
    return _checked_geometry(self, sizes, strides, self._offset)


# -- transposes and permutations ----------------------------------------------------------------

def _transposed(self, dim0, dim1):
    ndim = len(self._sizes)
    d0 = maybe_wrap_dim(dim0, ndim)
    d1 = maybe_wrap_dim(dim1, ndim)
    if d0 == d1:
        return self._sizes, self._strides
    sizes = list(self._sizes)
    strides = list(self._strides)
    sizes[d0], sizes[d1] = sizes[d1], sizes[d0]
    strides[d0], strides[d1] = strides[d1], strides[d0]
    return tuple(sizes), tuple(strides)


def transpose(self, dim0, dim1):
    sizes, strides = _transposed(self, dim0, dim1)
    if sizes is self._sizes:     # one dim twice: torch's alias, which checks nothing
        return make_view(self, sizes, strides, self._offset)
    return _checked_view(self, sizes, strides, self._offset)


def transpose_(self, dim0, dim1):
    sizes, strides = _transposed(self, dim0, dim1)
    if sizes is self._sizes:
        return _set_geometry(self, sizes, strides, self._offset)
    return _checked_geometry(self, sizes, strides, self._offset)


def swapdims(self, dim0, dim1):
    return transpose(self, dim0, dim1)


def swapaxes(self, axis0, axis1):
    return transpose(self, axis0, axis1)


def t(self):
    sizes = self._sizes
    if len(sizes) == 2:   # transpose(self, 0, 1): _checked_view without its dim wrapping
        strides = self._strides
        sizes, strides = (sizes[1], sizes[0]), (strides[1], strides[0])
        if SHRUNK[0]:
            check_in_bounds_for_storage(sizes, strides, self._offset, self._dtype, self._storage)
        return make_view(self, sizes, strides, self._offset)
    ndim = len(sizes)
    check(ndim <= 2, lambda: f"t() expects a tensor with <= 2 dimensions, but self is {ndim}D")
    if ndim < 2:
        return make_view(self, self._sizes, self._strides, self._offset)
    return transpose(self, 0, 1)


def t_(self):
    ndim = len(self._sizes)
    check(ndim <= 2, lambda: f"t_() expects a tensor with <= 2 dimensions, but self is {ndim}D")
    if ndim < 2:
        return _set_geometry(self, self._sizes, self._strides, self._offset)
    return transpose_(self, 0, 1)


def permute(self, dims):
    sizes = self._sizes
    strides = self._strides
    ndim = len(sizes)
    check(len(dims) == ndim, lambda: (
        "permute(sparse_coo): number of dimensions in the tensor input does not match the "
        "length of the desired ordering of dimensions i.e. input.dim() = "
        f"{ndim} is not equal to len(dims) = {len(dims)}"))
    seen = [False] * ndim
    new_sizes = []
    new_strides = []
    for d in dims:
        w = maybe_wrap_dim(d, ndim)
        check(not seen[w], "permute(): duplicate dims are not allowed.")
        seen[w] = True
        new_sizes.append(sizes[w])
        new_strides.append(strides[w])
    return _checked_view(self, tuple(new_sizes), tuple(new_strides), self._offset)


def movedim_intlist(self, source, destination):
    order = _movedim_order(self, source, destination)
    if not self._sizes:
        return make_view(self, self._sizes, self._strides, self._offset)
    return permute(self, order)


def movedim_int(self, source, destination):
    return movedim_intlist(self, (source,), (destination,))


def moveaxis_intlist(self, source, destination):
    return movedim_intlist(self, source, destination)


def moveaxis_int(self, source, destination):
    return movedim_intlist(self, (source,), (destination,))


# -- expand and broadcasting --------------------------------------------------------------------

def expand(self, size, implicit=False):
    """Size-1 dims grow with stride 0; new dims go in front. A new dim takes the stride
    its inner neighbour would step over (``size * stride``) unless it grows, then 0."""
    sizes = self._sizes
    strides = self._strides
    ndim = len(size)
    tensor_ndim = len(sizes)
    check(ndim >= tensor_ndim, lambda: (
        f"expand({type_string(self)}{{{list(sizes)}}}, size={list(size)}): the number of "
        f"sizes provided ({ndim}) must be greater or equal to the number of dimensions in the "
        f"tensor ({tensor_ndim})"))
    out_sizes = [0] * ndim
    out_strides = [0] * ndim
    lead = ndim - tensor_ndim
    for i in range(ndim - 1, -1, -1):
        dim = i - lead
        if dim >= 0:
            cur = sizes[dim]
            stride = strides[dim]
        else:
            cur = 1
            stride = out_sizes[i + 1] * out_strides[i + 1] if i + 1 < ndim else 0
        target = size[i]
        if target == -1:
            if dim < 0:
                raise RuntimeError(f"The expanded size of the tensor (-1) isn't allowed in a "
                                   f"leading, non-existing dimension {i}")
            target = cur
        if cur != target:
            if cur != 1:
                raise RuntimeError(
                    f"The expanded size of the tensor ({target}) must match the existing size "
                    f"({cur}) at non-singleton dimension {i}.  Target sizes: {list(size)}.  "
                    f"Tensor sizes: {list(sizes)}")
            cur = target
            stride = 0
        out_sizes[i] = cur
        out_strides[i] = stride
    out_sizes = tuple(out_sizes)
    check_numel(out_sizes)
    return _checked_view(self, out_sizes, tuple(out_strides), self._offset)


def expand_as(self, other):
    return expand(self, other._sizes)


def broadcast_to(self, size):
    return expand(self, size)


infer_broadcast_size = broadcast_pair   # torch's name for the two-shape rule


def broadcast_tensors(tensors):
    """Every tensor expanded to the common shape; one that has it already comes back as is."""
    shape = ()
    for t in tensors:
        shape = infer_broadcast_size(shape, t._sizes)
    return tuple(t if t._sizes == shape else expand(t, shape) for t in tensors)


# -- narrow / slice / select / diagonal / unfold ------------------------------------------------

def slice_Tensor(self, dim=0, start=None, end=None, step=1):
    """Python slice semantics along ``dim`` (positive steps only): negative bounds count
    from the end, then both are clamped into ``[0, size]`` with ``end >= start``."""
    sizes = self._sizes
    ndim = len(sizes)
    check(ndim > 0, "slice() cannot be applied to a 0-dim tensor.", IndexError)
    dim = maybe_wrap_dim(dim, ndim)
    check(step > 0, "slice step must be positive")
    size = sizes[dim]
    start = 0 if start is None else start
    end = _INT64_MAX if end is None else end
    if start < 0:
        start += size
    if end < 0:
        end += size
    if start < 0:
        start = 0
    elif start > size:
        start = size
    if end < start:
        end = start
    elif end > size:
        end = size
    stride = self._strides[dim]
    new_sizes = sizes[:dim] + ((end - start + step - 1) // step,) + sizes[dim + 1:]
    new_strides = self._strides[:dim] + (stride * step,) + self._strides[dim + 1:]
    return _checked_view(self, new_sizes, new_strides, self._offset + start * stride)


def narrow(self, dim, start, length):
    sizes = self._sizes
    ndim = len(sizes)
    check(ndim > 0, "narrow() cannot be applied to a 0-dim tensor.")
    check(length >= 0, "narrow(): length must be non-negative.")
    dim = maybe_wrap_dim(dim, ndim)
    cur = sizes[dim]
    if not -cur <= start <= cur:
        raise IndexError(f"start out of range (expected to be in range of [{-cur}, {cur}], "
                         f"but got {start})")
    if start < 0:
        start += cur
    check(start <= cur - length, lambda: (
        f"start ({start}) + length ({length}) exceeds dimension size ({cur})."))
    stride = self._strides[dim]
    return _checked_view(self, sizes[:dim] + (length,) + sizes[dim + 1:], self._strides,
                     self._offset + start * stride)


def narrow_Tensor(self, dim, start, length):
    from ..core.dtypes import INT
    check(start.dim() == 0 and start._dtype.category == INT,
          "start must be an 0-dim integral Tensor.")
    from .factory import local_scalar_dense
    return narrow(self, dim, local_scalar_dense(start), length)


def select(self, dim, index):
    ndim = len(self._sizes)
    check(ndim > 0, "select() cannot be applied to a 0-dim tensor.", IndexError)
    dim = maybe_wrap_dim(dim, ndim)
    size = self._sizes[dim]
    if not -size <= index < size:
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"{list(self._sizes)} at dimension {dim}")
    if index < 0:
        index += size
    sizes = self._sizes[:dim] + self._sizes[dim + 1:]
    strides = self._strides[:dim] + self._strides[dim + 1:]
    return _checked_view(self, sizes, strides, self._offset + index * self._strides[dim])


def unbind(self, dim=0):
    ndim = len(self._sizes)
    check(ndim > 0, "Dimension specified as 0 but tensor has no dimensions", IndexError)
    dim = maybe_wrap_dim(dim, ndim)
    sizes = self._sizes[:dim] + self._sizes[dim + 1:]
    strides = self._strides[:dim] + self._strides[dim + 1:]
    step = self._strides[dim]
    return tuple(_checked_view(self, sizes, strides, self._offset + i * step)
                 for i in range(self._sizes[dim]))


def diagonal(self, offset=0, dim1=0, dim2=1):
    """Seed 001: drop ``dim1`` and ``dim2``, append a dim of
    ``diag_size`` elements whose stride is ``stride[dim1] + stride[dim2]``; a positive
    ``offset`` starts ``offset`` columns right (``+ offset * stride[dim2]``), a negative one
    rows down (``- offset * stride[dim1]``)."""
    sizes = self._sizes
    strides = self._strides
    ndim = len(sizes)
    d1 = maybe_wrap_dim(dim1, ndim)
    d2 = maybe_wrap_dim(dim2, ndim)
    check(d1 != d2, lambda: f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    storage_offset = self._offset
    if offset >= 0:
        diag_size = max(min(sizes[d1], sizes[d2] - offset), 0)
    else:
        diag_size = max(min(sizes[d1] + offset, sizes[d2]), 0)
    if diag_size > 0:
        if offset >= 0:
            storage_offset += offset * strides[d2]
        else:
            storage_offset -= offset * strides[d1]
    keep = [d for d in range(ndim) if d != d1 and d != d2]
    new_sizes = tuple(sizes[d] for d in keep) + (diag_size,)
    new_strides = tuple(strides[d] for d in keep) + (strides[d1] + strides[d2],)
    return _checked_view(self, new_sizes, new_strides, storage_offset)


def unfold(self, dimension, size, step):
    """Seed 001: windows of ``size`` elements every ``step`` along ``dimension``: that dim
    becomes ``(n - size) // step + 1`` windows of stride ``step * stride``, and a new last
    dim of ``size`` elements walks inside a window with the old stride."""
    sizes = self._sizes
    strides = self._strides
    ndim = len(sizes)
    d = maybe_wrap_dim(dimension, ndim)
    max_size = sizes[d] if ndim else 1
    check(size <= max_size, lambda: (
        f"maximum size for tensor at dimension {d} is {max_size} but size is {size}"))
    check(size >= 0, lambda: f"size is {size} but must be >= 0")
    check(step > 0, lambda: f"step is {step} but must be > 0")
    if ndim == 0:
        return _checked_view(self, (size,), (1,), self._offset)
    stride = strides[d]
    new_sizes = sizes[:d] + ((sizes[d] - size) // step + 1,) + sizes[d + 1:] + (size,)
    new_strides = strides[:d] + (step * stride,) + strides[d + 1:] + (stride,)
    return _checked_view(self, new_sizes, new_strides, self._offset)


# -- detach ------------------------------------------------------------------------------------

def detach(self):
    """Shares storage and version counter, but is not a view for autograd: no ``_base``."""
    out = make_tensor(self._storage, self._sizes, self._strides, self._offset, self._dtype,
                      self._vc)
    out._keyset |= self._keyset & _MATH_BITS
    return out


def detach_(self):
    check(self._base is None, (
        "Can't detach views in-place. Use detach() instead. If you are using "
        "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set as "
        "True, gradients are views of DDP buckets, and hence detach_() cannot be called on "
        "these gradients. To fix this error, please refer to the Optimizer.zero_grad() "
        "function in torch/optim/optimizer.py as the solution."))
    meta = self._autograd_meta
    if meta is not None:
        meta.requires_grad = False
        meta.grad_fn = None
    self._keyset &= ~DispatchKey.Autograd.bit
    return self


# -- decompositions for the Autograd key ---------------------------------------------------------
#
# Note [Composite views under autograd]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# torch implements reshape, flatten, narrow, movedim, expand_as... as CompositeImplicitAutograd:
# they have no derivative of their own, and their graph shows the nodes of the ops they call
# (``x.reshape(6).grad_fn`` is a ViewBackward0). strided keeps its direct kernels above for
# the backends (CompositeExplicitAutograd) and registers the ``*_autograd`` kernels below as
# CompositeImplicitAutograd, which the dispatcher uses for the Autograd key only: they check
# their arguments as the direct kernels do, then call the public ops, which record.

_HANDLES: dict = {}


def _call_op(qualname: str, *args):
    """Dispatch ``qualname`` from the top (Autograd included) with ``args`` in schema order,
    every argument given: the public op, without the Python binding's argument parsing."""
    op = _HANDLES.get(qualname)
    if op is None:
        from ..ops.dispatcher import get_op
        op = _HANDLES[qualname] = get_op(qualname)
    ks = 0
    for a in args:
        if type(a) in (list, tuple):
            for t in a:
                ks |= getattr(t, "_keyset", 0)
        else:
            ks |= getattr(a, "_keyset", 0)
    return op.call(ks, *args)


def reshape_autograd(self, shape):
    """A ``view`` when the strides allow one; otherwise a contiguous clone whose shape is
    changed by ``_unsafe_view`` (so that the result is not a view, as torch's)."""
    sizes = infer_size(shape, numel_of(self._sizes))
    if _view_strides(self, sizes) is not None:
        return _call_op("aten::view", self, sizes)
    from ..core.layouts import contiguous_format
    return _call_op("aten::_unsafe_view", _call_op("aten::clone", self, contiguous_format), sizes)


def reshape_as_autograd(self, other):
    return reshape_autograd(self, other._sizes)


def view_as_autograd(self, other):
    return _call_op("aten::view", self, other._sizes)


def flatten_using_ints_autograd(self, start_dim=0, end_dim=-1):
    ndim = len(self._sizes)
    start = maybe_wrap_dim(start_dim, ndim)
    end = maybe_wrap_dim(end_dim, ndim)
    if ndim == 0:
        return reshape_autograd(self, (1,))
    check(start <= end, "flatten() has invalid args: start_dim cannot come after end_dim")
    if start == end:
        return self
    sizes = self._sizes
    return reshape_autograd(self, sizes[:start] + (numel_of(sizes[start:end + 1]),) +
                            sizes[end + 1:])


def unflatten_int_autograd(self, dim, sizes):
    return _call_op("aten::view", self, unflatten_int(self, dim, sizes)._sizes)


def ravel_autograd(self):
    from ..core.layouts import contiguous_format
    flat = _call_op("aten::contiguous", self, contiguous_format)
    return _call_op("aten::view", flat, (numel_of(self._sizes),))


def contiguous_autograd(self, memory_format=None):
    """``self`` when it is contiguous, else a contiguous clone (CloneBackward0)."""
    from ..core.layouts import contiguous_format
    from .factory import is_contiguous_in
    memory_format = memory_format or contiguous_format
    if is_contiguous_in(self._sizes, self._strides, memory_format):
        return self
    return _call_op("aten::clone", self, memory_format)


def _movedim_order(self, source, destination):
    ndim = len(self._sizes)
    check(len(source) == len(destination), lambda: (
        f"movedim: Invalid source or destination dims: source ({list(source)} dims) should "
        f"contain the same number of dims as destination ({list(destination)} dims)"))
    src = [maybe_wrap_dim(d, ndim) for d in source]
    dst = [maybe_wrap_dim(d, ndim) for d in destination]
    check(len(set(src)) == len(src), lambda: f"movedim: repeated dim in `source` ({list(source)})")
    check(len(set(dst)) == len(dst), lambda: (
        f"movedim: repeated dim in `destination` ({list(destination)})"))
    order = [-1] * max(ndim, 1)
    for s, d in zip(src, dst):
        order[d] = s
    rest = iter(d for d in range(ndim) if d not in src)
    for i in range(ndim):
        if order[i] == -1:
            order[i] = next(rest)
    return order


def movedim_intlist_autograd(self, source, destination):
    order = _movedim_order(self, source, destination)
    if not self._sizes:
        return _call_op("aten::alias", self)
    return _call_op("aten::permute", self, order)


def movedim_int_autograd(self, source, destination):
    return movedim_intlist_autograd(self, (source,), (destination,))


def moveaxis_intlist_autograd(self, source, destination):
    return movedim_intlist_autograd(self, source, destination)


def moveaxis_int_autograd(self, source, destination):
    return movedim_intlist_autograd(self, (source,), (destination,))


def swapdims_autograd(self, dim0, dim1):
    return _call_op("aten::transpose.int", self, dim0, dim1)


def swapaxes_autograd(self, axis0, axis1):
    return _call_op("aten::transpose.int", self, axis0, axis1)


def expand_as_autograd(self, other):
    return _call_op("aten::expand", self, other._sizes, False)


def broadcast_to_autograd(self, size):
    return _call_op("aten::expand", self, size, False)


def broadcast_tensors_autograd(tensors):
    shape = ()
    for t in tensors:
        shape = infer_broadcast_size(shape, t._sizes)
    return tuple(t if t._sizes == shape else _call_op("aten::expand", t, shape, False)
                 for t in tensors)


def _narrow_start(self, dim, start, length):
    """``narrow``'s checks; the start as a non-negative index."""
    narrow(self, dim, start, length)
    cur = self._sizes[maybe_wrap_dim(dim, len(self._sizes))]
    return start + cur if start < 0 else start


def narrow_autograd(self, dim, start, length):
    start = _narrow_start(self, dim, start, length)
    return _call_op("aten::slice.Tensor", self, dim, start, start + length, 1)


def narrow_Tensor_autograd(self, dim, start, length):
    from .factory import local_scalar_dense
    narrow_Tensor(self, dim, start, length)   # its checks
    return narrow_autograd(self, dim, local_scalar_dense(start), length)
