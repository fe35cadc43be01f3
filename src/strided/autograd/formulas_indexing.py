"""Helpers for the backward formulas of the indexing ops (derivatives_indexing.yaml).

Every helper is written with strided's public, differentiable ops, so that a formula
run with ``create_graph=True`` records a graph of its own (double backward). The
engine sums a gradient back over broadcast dims and casts it to its input's dtype, so
the helpers return gradients of the output's shape unless said otherwise.

Note [Gradients of the scatter reductions]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
``scatter_reduce(self, dim, index, src, reduce, include_self)`` reduces, at each
position ``p`` of the output, a group of values: ``self[p]`` (when ``include_self``,
or when no element of ``src`` lands on ``p``) and every ``src[j]`` whose target is
``p``. Each reduction's gradient is a statement about that group:

- ``sum``: every member gets ``grad[p]``;
- ``mean``: every member gets ``grad[p] / n[p]``, ``n`` the group's size;
- ``amax`` / ``amin``: the members equal to the result share ``grad[p]`` evenly (torch
  counts ``self[p]`` among them even without ``include_self``, and then drops its share:
  with such a tie the gradients add up to less than ``grad[p]``; we do the same);
- ``prod``: a member gets ``grad[p]`` times the product of the *other* members. That
  product is computed without dividing by zero: with ``z[p]`` zeros in the group and
  ``P[p]`` the product of its non-zero members, a non-zero member gets ``P / v`` when
  ``z == 0`` and 0 otherwise; a zero member gets ``P`` when it is the only zero, else 0.

Without ``include_self`` the positions some ``src`` element lands on do not depend on
``self`` at all (their gradient for ``self`` is 0); the others are ``self`` unchanged.
``index_reduce`` is the same reduction with a 1-D index along ``dim``, so its backward
expands the index to ``source``'s shape and reuses the scatter formulas.
"""

from __future__ import annotations

import strided as _s

from .formulas import conj_if_complex

__all__ = [
    "gather_backward", "index_add_source_backward", "index_copy_source_backward",
    "index_fill_value_backward",
    "index_reduce_backward", "index_select_backward", "masked_fill_value_backward",
    "masked_scatter_source_backward", "masked_select_backward", "not_implemented",
    "put_source_backward", "scatter_reduce_backward", "take_backward",
]


def not_implemented(name):
    """The formula of an op torch records but cannot differentiate (``_unique2``...):
    backward through its node fails with torch's message."""
    raise RuntimeError(f"the derivative for '{name}' is not implemented.")


def _zeros(sizes, like):
    return _s.zeros(tuple(sizes), dtype=like.dtype)


def _as_shape(t, sizes):
    """``t`` (a fresh, contiguous result) viewed with ``sizes`` if they differ."""
    sizes = tuple(sizes)
    return t if tuple(t.shape) == sizes else t.view(sizes)


def index_copy_source_backward(grad, dim, index, source_sizes):
    """``self.index_copy(dim, index, source)`` for ``source``: the gradient at the
    positions each slice was copied to."""
    g = grad.index_select(dim, index) if grad.dim() else grad
    return _as_shape(g, source_sizes)


def put_source_backward(grad, index, source_sizes):
    """``self.put(index, source)`` for ``source``: the gradient at the flat positions
    written, in ``source``'s shape."""
    return _as_shape(grad.take(index), source_sizes)


def index_select_backward(grad, self_sizes, dim, index):
    """``self.index_select(dim, index)``: ``grad`` added back at the selected positions
    (an index that repeats adds up)."""
    if len(self_sizes) == 0:
        return grad.sum()
    return _zeros(self_sizes, grad).index_add(dim, index, grad)


def index_add_source_backward(grad, dim, index, source_sizes, alpha):
    """``self.index_add(dim, index, source, alpha=alpha)`` for ``source``: the gradient at
    the positions each slice of ``source`` was added to, times ``alpha``. torch does not
    conjugate a complex ``alpha`` here (its formula multiplies by ``alpha`` itself), and
    neither do we, so that the gradients agree."""
    g = grad.index_select(dim, index) if grad.dim() else grad
    g = _as_shape(g, source_sizes)
    return g if alpha == 1 else g * alpha


def index_fill_value_backward(grad, dim, index):
    """``self.index_fill(dim, index, value)`` for a 0-dim tensor ``value``: the sum of the
    gradient over the filled positions (each position once, however often it is
    named)."""
    if grad.dim() == 0:
        return grad.sum()
    n = grad.shape[dim]
    sel = _s.zeros(n, dtype=grad.dtype).index_fill(0, index.reshape(-1), 1)
    shape = [1] * grad.dim()
    shape[dim] = n
    return (grad * sel.reshape(shape)).sum()


def gather_backward(grad, self_sizes, dim, index):
    """``self.gather(dim, index)``: ``grad`` added back where each element was read."""
    return _zeros(self_sizes, grad).scatter_add(dim, index, grad)


def take_backward(grad, self_sizes, index):
    """``self.take(index)``: ``grad`` added back at the flat positions read."""
    return _zeros(self_sizes, grad).put(index, grad, True)


def masked_fill_value_backward(grad, mask):
    """``self.masked_fill(mask, value)`` for a 0-dim tensor ``value``: the gradient summed
    over the filled positions."""
    return _s.where(mask, grad, _s.zeros((), dtype=grad.dtype)).sum()


def masked_scatter_source_backward(grad, mask, source_sizes):
    """``self.masked_scatter(mask, source)`` for ``source``: the gradient at the masked
    positions, in order, for the first elements of ``source``; zeros for the elements it
    did not use."""
    n = 1
    for s in source_sizes:
        n *= s
    picked = grad.masked_select(mask)
    rest = n - picked.numel()
    if rest > 0:
        picked = _s.cat([picked, _s.zeros(rest, dtype=grad.dtype)])
    return _as_shape(picked, source_sizes)


def masked_select_backward(grad, self_sizes, mask):
    """``self.masked_select(mask)``: ``grad`` scattered back to the masked positions of the
    broadcast shape of ``self`` and ``mask`` (the engine sums the broadcast dims away)."""
    shape = _s.broadcast_shapes(tuple(self_sizes), tuple(mask.shape))
    return _zeros(shape, grad).masked_scatter(mask, grad)


# -- the scatter reductions (Note [Gradients of the scatter reductions]) -------------------

def _restrict(src, sizes):
    """The part of ``src`` the scatter reads: its leading ``sizes`` along every dim."""
    for d, n in enumerate(sizes):
        if src.shape[d] != n:
            src = src.narrow(d, 0, n)
    return src


def _others_product(value, zeros, product):
    """The product of the other members of a value's group, given the group's count of
    zeros and the product of its non-zero members."""
    is_zero = value == 0
    safe = value.masked_fill(is_zero, 1)
    nonzero_member = (product / safe).masked_fill(zeros != 0, 0)
    zero_member = product.masked_fill(zeros != 1, 0)
    return conj_if_complex(_s.where(is_zero, zero_member, nonzero_member))


def scatter_reduce_backward(grad, self, dim, index, src, reduce, include_self, result):
    """Gradients of ``scatter_reduce`` for ``self`` and ``src`` (as a pair)."""
    if index.numel() == 0:
        return grad, _s.zeros(tuple(index.shape), dtype=grad.dtype)
    dtype = grad.dtype
    src = _restrict(src, index.shape)
    if reduce == "sum":
        grad_self = grad if include_self else grad.scatter(dim, index, 0)
        return grad_self, grad.gather(dim, index)
    if reduce == "mean":
        count = _s.ones(tuple(self.shape), dtype=dtype) if include_self else \
            _s.zeros(tuple(self.shape), dtype=dtype)
        count = count.scatter_add(dim, index, _s.ones(tuple(index.shape), dtype=dtype))
        share = grad / count.masked_fill(count == 0, 1)
        grad_self = share if include_self else share.scatter(dim, index, 0)
        return grad_self, share.gather(dim, index)
    if reduce in ("amax", "amin"):
        # torch counts self among the values equal to the result even without
        # include_self (then only its share of the gradient is dropped): so do we
        self_is = (self == result).to(dtype)
        src_is = (src == result.gather(dim, index)).to(dtype)
        count = self_is.scatter_add(dim, index, src_is)
        share = grad / count.masked_fill(count == 0, 1)
        grad_self = self_is * share
        if not include_self:
            grad_self = grad_self.scatter(dim, index, 0)
        return grad_self, src_is * share.gather(dim, index)
    if reduce == "prod":
        src_zero = (src == 0).to(dtype)
        ones_src = src.masked_fill(src == 0, 1)
        if include_self:
            zeros = (self == 0).to(dtype).scatter_add(dim, index, src_zero)
            base = self.masked_fill(self == 0, 1)
        else:
            zeros = _s.zeros(tuple(self.shape), dtype=dtype).scatter_add(dim, index, src_zero)
            base = _s.ones(tuple(self.shape), dtype=dtype)
        product = base.scatter_reduce(dim, index, ones_src, "prod", include_self=True)
        if include_self:
            grad_self = grad * _others_product(self, zeros, product)
        else:
            grad_self = grad.scatter(dim, index, 0)
        grad_src = grad.gather(dim, index) * _others_product(
            src, zeros.gather(dim, index), product.gather(dim, index))
        return grad_self, grad_src
    raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got "
                       f"{reduce}")


def index_reduce_backward(grad, self, dim, index, source, reduce, include_self, result):
    """Gradients of ``index_reduce`` for ``self`` and ``source``: the scatter reduction
    with ``index`` laid along ``dim`` and expanded to ``source``'s shape."""
    if source.dim() == 0:
        expanded = index.reshape(())
    else:
        shape = [1] * source.dim()
        shape[dim] = index.numel()
        expanded = index.reshape(shape).expand(tuple(source.shape))
    return scatter_reduce_backward(grad, self, dim, expanded, source, reduce, include_self,
                                   result)
