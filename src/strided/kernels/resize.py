"""Resizing a tensor in place (``resize_``) and the ``out=`` resize rule."""

from __future__ import annotations

import warnings

from ..core.tensor_impl import check_numel, contiguous_strides, numel_of

_INT64_MAX = (1 << 63) - 1


def resize_(self, size, memory_format=None):
    """``Tensor.resize_``: new sizes with contiguous strides, the storage grown if too
    small; a change of sizes counts as a mutation (the version counter moves)."""
    size = tuple(size)
    changed = size != self._sizes
    resize_impl(self, size)
    if changed:
        self._vc[0] += 1
    if memory_format is not None:   # after the resize, as torch's (sizes unchanged or not)
        from ..core import layouts
        from ..core.checks import check
        check(memory_format is not layouts.preserve_format, "Unsupported memory formatPreserve")
        restride(self, memory_format)
    return self


def restride(self, memory_format):
    """torch's ``empty_tensor_restride``: the dense strides of ``memory_format`` for the
    tensor's sizes (its storage already holds them)."""
    from .factory import _format_strides
    self._strides = _format_strides(self._sizes, memory_format)
    self._np = None


def resize_impl(self, size: tuple):
    """The resize itself, for kernels (their own mutation is counted once by them).

    As torch's: unchanged sizes leave the tensor (and its storage) alone, even when a shrunk
    storage no longer holds them; otherwise the sizes become contiguous and the storage
    grows to hold ``(offset + numel) * itemsize`` bytes (never shrinks; nothing is allocated
    for an empty result)."""
    if size == self._sizes:
        return self
    check_numel(size)
    numel = numel_of(size)
    itemsize = self._dtype.itemsize
    needed = (self._offset + numel) * itemsize if numel else 0
    if needed > _INT64_MAX:
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(size)}")
    storage = self._storage
    if needed > storage._nbytes:
        old = storage._nbytes
        storage.resize_(needed)
        from . import factory
        if factory.FILL_UNINITIALIZED[0]:        # the grown part, as torch's resize_
            factory.fill_uninitialized(storage, self._dtype, old // itemsize)
    self._sizes = size
    self._strides = contiguous_strides(size)
    self._np = None
    return self


def resize_output(out, size: tuple) -> bool:
    """torch's rule for ``out=``: resize silently when empty, warn when it held elements."""
    if out._sizes == size:
        return False
    if numel_of(out._sizes) != 0:
        warnings.warn(
            f"An output with one or more elements was resized since it had shape "
            f"{list(out._sizes)}, which does not match the required output shape "
            f"{list(size)}. This behavior is deprecated, and in a future PyTorch release "
            f"outputs will not be resized unless they have zero elements. You can explicitly "
            f"reuse an out tensor t by resizing it, inplace, to zero elements with "
            f"t.resize_(0).", UserWarning, stacklevel=4)
    resize_impl(out, size)
    return True

