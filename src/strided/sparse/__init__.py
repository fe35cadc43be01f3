"""``torch.sparse``: the operators of the sparse layouts (issue 16).

The data model is Note [Sparse tensors] in core/sparse_tensor.py; the kernels are in
kernels/sparse_coo.py (and the compressed layouts' module). The functions here are thin:
each calls one aten operator, as torch's do.
"""

from __future__ import annotations

import strided as _s

from ._construct import check_sparse_tensor_invariants

__all__ = ["addmm", "as_sparse_gradcheck", "check_sparse_tensor_invariants", "log_softmax",
           "mm", "softmax", "sum"]


def sum(input, dim=None, dtype=None):
    """Sum of a sparse tensor's entries over ``dim`` (all dims when None): dense once every
    sparse dim is summed, sparse otherwise."""
    if dtype is None:
        if dim is not None:
            return _s._sparse_sum(input, dim)
        return _s._sparse_sum(input)
    if dim is not None:
        return _s._sparse_sum(input, dim, dtype=dtype)
    return _s._sparse_sum(input, dtype=dtype)


def mm(mat1, mat2, reduce=None):
    """``mat1 @ mat2`` where either is a sparse matrix; the sparse operand's gradient is sparse
    with its own sparsity pattern."""
    if reduce is not None:
        raise RuntimeError(f"sparse.mm: reduce={reduce!r} is supported for sparse CSR only")
    return _s.ops.aten._sparse_mm(mat1, mat2)


def addmm(mat, mat1, mat2, *, beta=1.0, alpha=1.0):
    """``beta * mat + alpha * (mat1 @ mat2)`` for a sparse ``mat1``, differentiable in it."""
    return _s.ops.aten._sparse_addmm(mat, mat1, mat2, beta=beta, alpha=alpha)


def softmax(input, dim, *, dtype=None):
    """Softmax over ``dim`` of the specified entries only (unspecified ones count as -inf)."""
    return _s.ops.aten._sparse_softmax.int(input, dim, dtype)


def log_softmax(input, dim, *, dtype=None):
    return _s.ops.aten._sparse_log_softmax.int(input, dim, dtype)


def as_sparse_gradcheck(gradcheck):
    """torch's decorator: a ``gradcheck`` that accepts sparse COO inputs. Each COO input that
    requires grad is checked through the values of its coalesced form (the function sees
    the COO tensor rebuilt around them); sparse outputs are compared dense."""
    def gradcheck_with_sparse_support(func, inputs, **kwargs):
        kwargs.pop("masked", None)
        single = isinstance(inputs, _s.Tensor)
        inputs = (inputs,) if single else tuple(inputs)
        flat, layouts = [], []
        for x in inputs:
            if isinstance(x, _s.Tensor) and x.layout is _s.sparse_coo and x.requires_grad:
                c = x.detach().coalesce()
                flat.append(c._values().detach().clone().requires_grad_())
                layouts.append((c._indices(), tuple(x.shape)))
            else:
                flat.append(x)
                layouts.append(None)

        def func_on_values(*args):
            rebuilt = [a if lay is None else _s.sparse_coo_tensor(lay[0], a, lay[1])
                       for a, lay in zip(args, layouts)]
            out = func(*rebuilt)
            if isinstance(out, (tuple, list)):
                return type(out)(o.to_dense() if isinstance(o, _s.Tensor) and
                                 o.layout is not _s.strided else o for o in out)
            return out.to_dense() if out.layout is not _s.strided else out
        return gradcheck(func_on_values, tuple(flat), **kwargs)
    return gradcheck_with_sparse_support
