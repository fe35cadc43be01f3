"""Helpers for the backward formulas of the compressed sparse layouts
(autograd/derivatives/sparse_compressed.yaml). Like the other formula files, every helper
computes with strided's public ops."""

from __future__ import annotations

import strided as _s

__all__ = ["compressed_constructor_values_grad", "compressed_threshold_grad",
           "to_compressed_backward"]


def compressed_constructor_values_grad(grad, compressed_indices, plain_indices, values, size,
                                       layout):
    """``grad.to_dense().sparse_mask(result).values()``: the gradient's entries at the
    result's positions, shaped like its values (the result is rebuilt from the saved inputs
    rather than saved itself)."""
    if grad.layout is not _s.strided:
        grad = grad.to_dense()
    mask = _s._sparse_compressed_tensor_unsafe(compressed_indices, plain_indices,
                                               values.detach(), size, dtype=values.dtype,
                                               layout=layout)
    return grad.sparse_mask(mask).values()


def to_compressed_backward(grad, self):
    """The gradient of a conversion to a compressed layout, in the input's layout."""
    if self.layout is _s.strided:
        return grad.to_dense() if grad.layout is not _s.strided else grad
    if self.layout is _s.sparse_coo:
        return grad.to_sparse() if grad.layout is not _s.sparse_coo else grad
    if grad.layout is self.layout:
        return grad
    dense = grad.to_dense() if grad.layout is not _s.strided else grad
    blocksize = None
    if self.layout in (_s.sparse_bsr, _s.sparse_bsc):
        blocksize = tuple(self.values().shape[self.crow_indices().dim() if self.layout is
                                              _s.sparse_bsr else self.ccol_indices().dim():][:2])
    return dense.sparse_mask(self) if blocksize is None else \
        dense.to_sparse(layout=self.layout, blocksize=blocksize)


def compressed_threshold_grad(grad, self, threshold):
    """``threshold_backward`` of a compressed ``self`` (relu's gradient): the gradient at
    self's entries, zero where self's value is at most ``threshold``, in self's layout."""
    # (a strided gradient fails in grad.values(), as torch's kernel does)
    values = _s.where(self.values() <= threshold, _s.zeros_like(grad.values()), grad.values())
    row = self.layout in (_s.sparse_csr, _s.sparse_bsr)
    ci = self.crow_indices() if row else self.ccol_indices()
    pi = self.col_indices() if row else self.row_indices()
    return _s._sparse_compressed_tensor_unsafe(ci, pi, values, self.shape, dtype=values.dtype,
                                               layout=self.layout)
