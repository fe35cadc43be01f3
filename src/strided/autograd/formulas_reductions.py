"""Helpers for the backward formulas of the reductions (derivatives_reductions.yaml).

Same rules as formulas.py: public strided ops only, so that a formula run with
``create_graph=True`` records its own graph (double backward). Gradients come back in the
output's shape; the engine reduces broadcast dims and casts to the input's dtype.

Conventions shared with torch:

- a reduction that selects values (``amax``, ``max()``, ``median()``) splits the gradient
  evenly among the elements equal to the selected value; the ``dim`` overloads that also
  return indices send it to the returned index only;
- complex inputs follow the conjugate Wirtinger convention (``conj_if_complex``).
"""

from __future__ import annotations

import math

import strided as _s

from .formulas import conj_if_complex as _conj
from .formulas import (
    mean_backward,
    reduced_dims,
    restore_reduced_dims,
    std_backward,
    var_backward,
)

__all__ = [
    "aminmax_backward", "cummaxmin_backward", "cumprod_backward",
    "evenly_distribute_backward", "log_softmax_backward", "logsumexp_backward",
    "nansum_backward", "prod_grad", "reverse_cumsum",
    "scale_grad_by_count", "softmax_backward", "std_mean_backward", "var_mean_backward",
    "vector_norm_backward",
]


def nansum_backward(grad, self, dim, keepdim):
    g = restore_reduced_dims(grad, dim, keepdim, self.shape).expand(self.shape)
    return g * self.isnan().logical_not()


def scale_grad_by_count(grad, self, result, dim, keepdim):
    """Gradient of ``amax``/``amin`` (``result``) over ``dim``: ``grad`` shared evenly by
    the elements equal to the result (a NaN result matches nothing, so its slice gets NaN,
    as torch's does)."""
    ndim = self.dim()
    g = restore_reduced_dims(grad, dim, keepdim, self.shape)
    r = restore_reduced_dims(result, dim, keepdim, self.shape)
    mask = r == self
    if ndim == 0:
        return g / mask * mask
    count = mask.sum(reduced_dims(dim, ndim), keepdim=True)
    return g / count * mask


def evenly_distribute_backward(grad, self, value):
    """Gradient of a full reduction that picks ``value`` (``max()``, ``median()``): shared
    evenly by the elements equal to it, or by the NaNs when it is NaN."""
    if bool(value.isnan()):
        mask = self.isnan()
    else:
        mask = self == value
    share = grad / mask.sum()
    return _s.where(mask, share, _s.zeros_like(share))


def aminmax_backward(grad_min, grad_max, self, mn, mx, dim, keepdim):
    dims = None if dim is None else [dim]
    return scale_grad_by_count(grad_min, self, mn, dims, keepdim) + \
        scale_grad_by_count(grad_max, self, mx, dims, keepdim)


def _unused_degenerate(grad, self, dim, correction):
    """True when the var/std output of var_mean/std_mean got no gradient (the node fills
    in zeros) and has no degrees of freedom: its formula would turn those zeros into NaN
    (0 * inf), where torch, which sees no gradient there, skips it."""
    n = 1
    if self.dim():                # a 0-d self reduces over its one element
        for d in reduced_dims(dim, self.dim()):
            n *= self.shape[d]
    corr = 1 if correction is None else correction
    return n - corr <= 0 and not bool(grad.ne(0).any())


def var_mean_backward(grad_var, grad_mean, self, dim, correction, keepdim):
    g = mean_backward(grad_mean, tuple(self.shape), dim, self.numel(), keepdim)
    if _unused_degenerate(grad_var, self, dim, correction):
        return g
    return var_backward(grad_var, self, dim, correction, keepdim) + g


def std_mean_backward(grad_std, grad_mean, self, std, dim, correction, keepdim):
    g = mean_backward(grad_mean, tuple(self.shape), dim, self.numel(), keepdim)
    if _unused_degenerate(grad_std, self, dim, correction):
        return g
    return std_backward(std, grad_std, self, dim, correction, keepdim) + g


def _nonzero_or_one(t):
    """``t`` with its zeros replaced by ones (a safe divisor that keeps double backward
    free of 0/0)."""
    return _s.where(t == 0, _s.ones_like(t), t)


def vector_norm_backward(grad, self, p, norm, dim, keepdim):
    """Gradient of the vector ``p``-norm ``norm`` of ``self`` over ``dim``; None (no
    gradient) for p = 0, as torch."""
    p = 2.0 if p is None else float(p)
    if p == 0.0:
        return None
    g = restore_reduced_dims(grad, dim, keepdim, self.shape)
    n = restore_reduced_dims(norm, dim, keepdim, self.shape)
    if p == 1.0:
        return self.sgn() * g
    if p == 2.0:
        # a zero norm means a zero slice: self / 1 is then the zero torch gives
        return self / _nonzero_or_one(n) * g
    if math.isinf(p):
        a = self.abs()
        mask = (a == n).logical_or(a.isnan())
        count = mask.sum(reduced_dims(dim, self.dim()), keepdim=True) if self.dim() else mask
        return self.sgn() * (g / count * mask)
    if p < 1.0:
        # |x|^(p-1) is infinite at x = 0, where sgn(x) makes the term 0
        scaled = self.sgn() * _nonzero_or_one(self.abs()).pow(p - 1)
        return scaled * g * n.pow(1 - p)
    if p < 2.0:
        scaled = self.sgn() * self.abs().pow(p - 1)
    else:
        scaled = self * self.abs().pow(p - 2)
    return scaled * (g / _nonzero_or_one(n).pow(p - 1))


def logsumexp_backward(grad, self, result, dim, keepdim):
    g = restore_reduced_dims(grad, dim, keepdim, self.shape)
    r = restore_reduced_dims(result, dim, keepdim, self.shape)
    return g * _conj((self - r).exp())


def softmax_backward(grad, result, dim):
    if result.dim() == 0:
        return grad - grad * result   # softmax of one element is constant 1
    return result * (grad - (grad * result).sum(dim, keepdim=True))


def log_softmax_backward(grad, result, dim):
    if result.dim() == 0:
        return grad - grad * result.exp()
    return grad - result.exp() * grad.sum(dim, keepdim=True)


def reverse_cumsum(t, dim):
    """``out[i] = t[i] + t[i+1] + ...`` along ``dim``."""
    if t.dim() == 0:
        return t
    return t.flip(dim).cumsum(dim).flip(dim)


def prod_grad(grad, self, result, dim=None, keepdim=False):
    """Gradient of ``prod`` (over ``dim``, or all elements): the product of the other
    elements, which is ``result / self`` when there is no zero, and otherwise the product
    of the exclusive cumulative products from both sides (exact with any number of zeros,
    and differentiable again through cumprod)."""
    if self.dim() == 0:
        return grad
    if dim is None:
        flat = prod_grad(grad.reshape(1), self.reshape(-1), result.reshape(1), 0, True)
        return flat.reshape(self.shape)
    d = dim % self.dim()
    g = restore_reduced_dims(grad, [d], keepdim, self.shape)
    r = restore_reduced_dims(result, [d], keepdim, self.shape)
    if not bool((self == 0).any()):
        return g * _conj(r / self)
    n = self.shape[d]
    one = _s.ones_like(self.narrow(d, 0, 1))
    left = _s.cat([one, self.narrow(d, 0, n - 1)], d).cumprod(d)
    right = _s.cat([self.narrow(d, 1, n - 1), one], d).flip(d).cumprod(d).flip(d)
    return g * _conj(left * right)


def cumprod_backward(grad, self, result, dim):
    """Gradient of ``cumprod(self, dim)``: ``grad[i] = sum over k >= i of grad[k] times the
    product of self[j] for j <= k, j != i``.

    Without zeros that is ``reverse_cumsum(grad * result) / self``. With zeros and grad
    mode off (a plain backward), only the elements up to the first zero of a slice get a
    gradient: before it the same formula over the terms before the zero, at it the sum of
    ``grad[k]`` times the cumprod of the slice with that zero replaced by one. A double
    backward needs the derivative of this gradient also with respect to the zeros, which
    the masking above loses: with grad mode on it is computed without division, as a
    polynomial in ``self`` (O(n^2) per slice)."""
    if self.dim() == 0 or self.numel() == 0:
        return grad
    d = dim % self.dim()
    x = _conj(self)
    is_zero = self == 0
    if not bool(is_zero.any()):
        return reverse_cumsum(grad * _conj(result), d) / x
    if _s.is_grad_enabled():
        return _cumprod_backward_polynomial(grad, self, d)
    zeros_so_far = is_zero.cumsum(d)
    before = zeros_so_far == 0                      # strictly before the first zero
    first = is_zero.logical_and(zeros_so_far == 1)  # the first zero itself
    y = _conj(result)
    before_grad = reverse_cumsum(grad * y * before, d) / _s.where(before, x, _s.ones_like(x))
    others = _s.where(first, _s.ones_like(self), self).cumprod(d)
    at_grad = (grad * _conj(others) * zeros_so_far.ge(1)).sum(d, keepdim=True)
    return before_grad * before + at_grad * first


def _cumprod_backward_polynomial(grad, self, d):
    n = self.shape[d]
    x = self.transpose(d, -1)
    g = grad.transpose(d, -1)
    eye = _s.eye(n, dtype=_s.bool)
    # rows i: the slice with element i replaced by one; cumprod along the columns k
    others = _s.where(eye, _s.ones((), dtype=self.dtype), x.unsqueeze(-2)).cumprod(-1)
    upper = _s.ones(n, n, dtype=_s.bool).triu()       # k >= i
    out = (g.unsqueeze(-2) * _conj(others) * upper).sum(-1)
    return out.transpose(d, -1)


def cummaxmin_backward(grad, sizes, indices, dim):
    """Gradient of ``cummax``/``cummin``: each ``grad[k]`` goes to the index selected at k."""
    if len(sizes) == 0:
        return grad
    return _s.zeros(tuple(sizes), dtype=grad.dtype).scatter_add(dim, indices, grad)
