"""Helpers for the backward formulas of the sparse operators (autograd/derivatives/sparse.yaml).
Like the other formula files, every helper computes with strided's public ops."""

from __future__ import annotations

import strided as _s

__all__ = ["maybe_multiply", "mm_mat1_sparse_backward", "mm_mat2_sparse_backward",
           "sparse_constructor_values_grad", "sparse_log_softmax_grad", "sparse_mask_backward",
           "sparse_not_implemented", "sparse_softmax_grad", "sparse_sparse_matmul_grad",
           "sparse_sum_grad", "to_dense_backward", "to_sparse_backward", "values_backward"]


def _is_sparse(t) -> bool:
    return t.layout is not _s.strided


def maybe_multiply(t, s):
    return t if s == 1 else t * s


def sparse_constructor_values_grad(grad, result):
    """``grad.sparse_mask(result)._values()``: the gradient entries at the result's indices."""
    return grad.sparse_mask(result)._values()


def to_dense_backward(grad, self, masked_grad=None):
    """The gradient of a sparse tensor's ``to_dense``: the dense gradient at its entries (a
    COO tensor with its indices), or the whole gradient made sparse when
    ``masked_grad=False``."""
    if self.layout is _s.sparse_coo:
        # autograd works on the coalesced tensor: one entry per index
        if masked_grad is False:
            return grad.to_sparse(self.sparse_dim())
        return grad.sparse_mask(self.coalesce())
    if masked_grad is False:
        return grad.to_sparse(layout=self.layout)
    return grad.sparse_mask(self)


def values_backward(grad, self):
    """The gradient of ``values()``: a COO tensor with self's indices and ``grad`` values."""
    if self.layout in (_s.sparse_csr, _s.sparse_bsr, _s.sparse_csc, _s.sparse_bsc):
        # a compressed tensor: its own indices around the gradient (engineer 7's edit)
        row = self.layout in (_s.sparse_csr, _s.sparse_bsr)
        ci = self.crow_indices() if row else self.ccol_indices()
        pi = self.col_indices() if row else self.row_indices()
        return _s._sparse_compressed_tensor_unsafe(ci, pi, grad, self.shape, dtype=grad.dtype,
                                                   layout=self.layout)
    return _s.ops.aten._sparse_coo_tensor_unsafe(self._indices(), grad, self.shape,
                                                 is_coalesced=self.is_coalesced())


def to_sparse_backward(grad, self):
    """The gradient of a conversion to a sparse layout: back to self's layout."""
    if self.layout is _s.strided:
        return grad.to_dense() if _is_sparse(grad) else grad
    if _is_sparse(grad):
        return grad.to_sparse(layout=self.layout)
    return grad.to_sparse(layout=self.layout)


def sparse_mask_backward(grad, mask, self):
    """``sparse_mask``'s gradient for ``self``: the gradient's entries at mask's indices, in
    self's layout."""
    if self.layout is _s.strided:
        return grad.to_dense() if _is_sparse(grad) else grad
    return grad if _is_sparse(grad) else grad.sparse_mask(mask)


def mm_mat1_sparse_backward(grad, mat1, mat2, alpha):
    """The sparse ``mat1``'s gradient of ``mat1 @ mat2``: ``grad @ mat2^H`` at mat1's
    entries (torch's mm_mat1_sparse_backward)."""
    if mat1.layout in (_s.sparse_csc, _s.sparse_bsr, _s.sparse_bsc):
        # torch's masked backward knows COO and CSR only (engineer 7's edit)
        def title(t):
            return {_s.strided: "Strided", _s.sparse_coo: "Sparse"}.get(
                t.layout, "Sparse" + str(t.layout)[13:].capitalize())
        raise RuntimeError(f"sparse_addmm_sparse_backward: unsupported combination of layouts, "
                           f"grad: {title(grad)}, mat1: {title(mat1)}, mat2: {title(mat2)}")
    g = grad.to_dense() if _is_sparse(grad) else grad
    if _is_sparse(mat2):
        mat2 = mat2.to_dense()
    prod = g.mm(mat2.mH)
    if _is_sparse(mat1):
        # compressed layouts have no coalesce (engineer 7's edit)
        mask = mat1.coalesce() if mat1.layout is _s.sparse_coo else mat1
        return maybe_multiply(prod.sparse_mask(mask), alpha)
    return maybe_multiply(prod, alpha)


def mm_mat2_sparse_backward(grad, mat1, alpha):
    """``mat1^H @ grad``; dense when ``mat2`` is dense."""
    g = grad.to_dense() if _is_sparse(grad) else grad
    return maybe_multiply(mat1.mH.mm(g) if not _is_sparse(mat1) else mat1.t().conj().mm(g),
                          alpha)


def sparse_not_implemented(name):
    """torch's ``not_implemented`` formula: backward through the input fails."""
    raise NotImplementedError(f"the derivative for '{name}' is not implemented.")


def sparse_sum_grad(grad, self, dim):
    return _s.ops.aten._sparse_sum_backward(grad, self, dim)


def sparse_softmax_grad(grad, result, dim, self):
    return _s._sparse_softmax_backward_data(grad, result, dim, self)


def sparse_log_softmax_grad(grad, result, dim, self):
    return _s._sparse_log_softmax_backward_data(grad, result, dim, self)


def sparse_sparse_matmul_grad(grad, a, b, which):
    """COO @ COO's gradients, at each operand's own entries: ``grad @ b^H`` for ``a``,
    ``a^H @ grad`` for ``b``."""
    if which == 0:
        return _s._sparse_sparse_matmul(grad, b.conj().t()).sparse_mask(a.coalesce())
    return _s._sparse_sparse_matmul(a.conj().t(), grad).sparse_mask(b.coalesce())
