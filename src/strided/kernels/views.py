"""View kernels: compute (sizes, strides, storage_offset) and share the storage.

A view never touches data and never calls NumPy. It shares the version counter
of its input and records the root of the alias chain as ``_base``.
"""

from __future__ import annotations

from ..core.checks import check, maybe_wrap_dim
from ..core.tensor_impl import make_tensor, numel_of


def make_view(self, sizes: tuple, strides: tuple, offset: int):
    base = self._base if self._base is not None else self
    return make_tensor(self._storage, sizes, strides, offset, self._dtype, self._vc, base)


def check_in_bounds_for_storage(sizes, strides, offset, dtype, storage) -> None:
    """torch's setStorage check: the view must fit in the storage's bytes."""
    if 0 in sizes:
        return
    extent = 1 + sum((s - 1) * st for s, st in zip(sizes, strides))
    needed = (offset + extent) * dtype.itemsize
    if needed > storage._nbytes:
        raise RuntimeError(
            f"setStorage: sizes {list(sizes)}, strides {list(strides)}, storage offset "
            f"{offset}, and itemsize {dtype.itemsize} requiring a storage size of {needed} "
            f"are out of bounds for storage of size {storage._nbytes}")


def as_strided(self, size, stride, storage_offset=None):
    offset = self._offset if storage_offset is None else storage_offset
    check(len(size) == len(stride), lambda: (
        "mismatch in length of strides and shape"))
    for s in stride:
        check(s >= 0, lambda: ("as_strided: Negative strides are not supported at the moment, "
                               f"got strides: {list(stride)}"))
    for s in size:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: "
                               f"{list(size)}")
    check(offset >= 0, lambda: f"Tensor: invalid storage offset {offset}")
    check_in_bounds_for_storage(size, stride, offset, self._dtype, self._storage)
    return make_view(self, tuple(size), tuple(stride), offset)


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
            raise RuntimeError(f"invalid shape dimension {s}")
    if infer_dim is None:
        check(known == numel, lambda: f"shape '{list(shape)}' is invalid for input of size "
                                      f"{numel}")
        return tuple(shape)
    check(known != 0 and numel % known == 0, lambda: (
        f"shape '{list(shape)}' is invalid for input of size {numel}")
        if known != 0 else (f"cannot reshape tensor of 0 elements into shape {list(shape)} "
                            f"because the unspecified dimension size -1 can be any value and "
                            f"is ambiguous"))
    out = list(shape)
    out[infer_dim] = numel // known
    return tuple(out)


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


def view(self, size):
    sizes = infer_size(size, numel_of(self._sizes))
    strides = compute_view_strides(self._sizes, self._strides, sizes)
    check(strides is not None, (
        "view size is not compatible with input tensor's size and stride (at least one "
        "dimension spans across two contiguous subspaces). Use .reshape(...) instead."))
    return make_view(self, sizes, strides, self._offset)


def transpose(self, dim0, dim1):
    ndim = len(self._sizes)
    d0 = maybe_wrap_dim(dim0, ndim)
    d1 = maybe_wrap_dim(dim1, ndim)
    if d0 == d1:
        return make_view(self, self._sizes, self._strides, self._offset)
    sizes = list(self._sizes)
    strides = list(self._strides)
    sizes[d0], sizes[d1] = sizes[d1], sizes[d0]
    strides[d0], strides[d1] = strides[d1], strides[d0]
    return make_view(self, tuple(sizes), tuple(strides), self._offset)


def t(self):
    ndim = len(self._sizes)
    check(ndim <= 2, lambda: f"t() expects a tensor with <= 2 dimensions, but self is {ndim}D")
    if ndim < 2:
        return make_view(self, self._sizes, self._strides, self._offset)
    return transpose(self, 0, 1)


def detach(self):
    """Shares storage and version counter, but is not a view for autograd: no ``_base``."""
    return make_tensor(self._storage, self._sizes, self._strides, self._offset, self._dtype,
                       self._vc)


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
    return make_view(self, sizes, strides, self._offset + index * self._strides[dim])


def unbind(self, dim=0):
    ndim = len(self._sizes)
    check(ndim > 0, "Dimension specified as 0 but tensor has no dimensions", IndexError)
    dim = maybe_wrap_dim(dim, ndim)
    sizes = self._sizes[:dim] + self._sizes[dim + 1:]
    strides = self._strides[:dim] + self._strides[dim + 1:]
    step = self._strides[dim]
    return tuple(make_view(self, sizes, strides, self._offset + i * step)
                 for i in range(self._sizes[dim]))
