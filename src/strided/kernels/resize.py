"""Resizing a tensor in place (``resize_``) and the ``out=`` resize rule."""

from __future__ import annotations

import warnings

from ..core.tensor_impl import contiguous_strides, numel_of


def resize_(self, size, memory_format=None):
    """``Tensor.resize_``: new sizes with contiguous strides, the storage grown if too
    small; a change of sizes counts as a mutation (the version counter moves)."""
    size = tuple(size)
    changed = size != self._sizes
    resize_impl(self, size)
    if changed:
        self._vc[0] += 1
    return self


def resize_impl(self, size: tuple):
    """The resize itself, for kernels (their own mutation is counted once by them)."""
    for s in size:
        if s < 0:
            raise RuntimeError("numel: integer multiplication overflow")
    if size != self._sizes:
        self._sizes = size
        self._strides = contiguous_strides(size)
        self._np = None
    needed = (self._offset + numel_of(size)) * self._dtype.itemsize if numel_of(size) else 0
    storage = self._storage
    if needed > storage._nbytes:
        storage.resize_(needed)
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

