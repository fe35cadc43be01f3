"""Helpers of the backward formulas of issue 14's indexing and shape ops
(autograd/derivatives/shape_extra.yaml), written with public strided ops only so that
double backward records its own graph."""

from __future__ import annotations

import strided as _s

from .formulas import norm_backward

__all__ = ["as_strided_scatter_self_backward", "masked_index_grad", "masked_index_put_grad",
           "narrow_copy_backward", "not_implemented_copy", "renorm_backward",
           "segment_reduce_grad"]


def segment_reduce_grad(grad, result, data, reduce, lengths, offsets, axis, initial):
    """``segment_reduce``'s gradient, through torch's backward op."""
    return _s.ops.aten._segment_reduce_backward(grad, result, data, reduce, lengths=lengths,
                                                offsets=offsets, axis=axis, initial=initial)


def masked_index_grad(grad, self_sizes, mask, indices):
    """``_unsafe_masked_index``'s gradient: ``grad`` accumulated back at the indices it was
    read from (masked-out positions contribute nothing)."""
    zeros = grad.new_zeros(tuple(self_sizes))
    return _s._unsafe_masked_index_put_accumulate(zeros, mask, indices, grad)


def masked_index_put_grad(grad, mask, indices):
    """``_unsafe_masked_index_put_accumulate``'s gradient for ``values``: ``grad`` read at
    the indices they were added to (0 where masked out)."""
    return _s._unsafe_masked_index(grad, mask, indices, 0)


def not_implemented_copy(name):
    """The node torch records for an op it cannot differentiate (``detach_copy``)."""
    raise RuntimeError(f"derivative for {name} is not implemented")


def narrow_copy_backward(grad, sizes, dim, start, length):
    """Zeros of the input's shape with ``grad`` written on the narrowed range."""
    out = _s.zeros(tuple(sizes), dtype=grad.dtype)
    out.narrow(dim, start, length).copy_(grad)
    return out


def as_strided_scatter_self_backward(grad, self_sizes, self_strides, self_storage_offset,
                                     src_sizes, size, stride, storage_offset):
    """torch's formula, kept for the same numbers: zeros of the input's shape holding
    ``grad`` only at the elements that ``src`` overwrote (the mathematically expected
    gradient is the opposite; torch's op_db marks this gradient test as an expected
    failure)."""
    g = grad.contiguous()
    out = _s.zeros_like(g)
    out.as_strided(size, stride, storage_offset).copy_(g.as_strided(size, stride,
                                                                    storage_offset))
    return out


def renorm_backward(grad, self, p, dim, maxnorm):
    """Where a slice was scaled by ``f = maxnorm / (norm + 1e-7)``: ``f * grad`` minus the
    part that flows through the norm; elsewhere ``grad``."""
    ndim = self.dim()
    dim = dim % ndim
    reduce = [d for d in range(ndim) if d != dim]
    acc = _s.float32 if self.dtype in (_s.float16, _s.bfloat16) else None
    norm = _s.linalg.vector_norm(self, p, reduce, keepdim=True, dtype=acc)
    dot = self.conj() * grad
    if dot.is_complex():
        dot = dot.real
    dot = dot.sum(reduce, keepdim=True, dtype=norm.dtype)
    nb = norm_backward(dot, self, p, norm, reduce, keepdim=True)
    invnorm = (norm + 1e-7).reciprocal()
    factor = invnorm * maxnorm
    return _s.where(norm > maxnorm, factor * grad - (factor * invnorm) * nb, grad)
