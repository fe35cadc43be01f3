"""Helpers that the backward formulas of derivatives.yaml call.

Formulas are Python expressions over strided's own differentiable ops, so a formula
run with grad mode on (``create_graph=True``) records a graph of its own: that is all
double backward needs. The helpers here are the pieces several formulas share; each
is written with public ops only, for the same reason.

The engine sums a gradient back over broadcast dims and casts it to its input's dtype
(Note [What the engine does to a gradient] in engine.py), so formulas return
gradients of the output's shape and dtype and need not care about either.
"""

from __future__ import annotations

import builtins
import math

import strided as _s

# every public strided function, except those that would shadow a Python builtin for the
# formulas (strided.float is a dtype, strided.max a reduction, strided.complex a function)
__all__ = [n for n in dir(_s) if not n.startswith("_") and not hasattr(builtins, n)] + [
    "as_strided_backward", "conj_if_complex", "expand_reduced", "grad_zeros_like",
    "index_backward", "math", "matmul_backward", "mean_backward", "norm_backward",
    "prod_backward", "reduced_dims", "restore_reduced_dims", "select_backward",
    "slice_backward", "std_backward", "sum_backward", "unsqueeze_multiple", "unsqueeze_to",
    "value_selecting_reduction_backward", "var_backward",
]
globals().update({n: getattr(_s, n) for n in __all__ if hasattr(_s, n)})


def conj_if_complex(t):
    """The complex conjugate of a complex tensor or number; anything else as it is."""
    if isinstance(t, complex):
        return t.conjugate()
    if isinstance(t, _s.Tensor) and t.is_complex():
        return t.conj()
    return t


def grad_zeros_like(t):
    return _s.zeros_like(t)


def reduced_dims(dim, ndim) -> list:
    """The dims a reduction over ``dim`` (None, an int or a list; empty means all) removes,
    wrapped and sorted."""
    if dim is None:
        return list(range(ndim))
    if isinstance(dim, int):
        dim = [dim]
    if len(dim) == 0:
        return list(range(ndim))
    return sorted(d % ndim if ndim else 0 for d in dim)


def unsqueeze_multiple(t, dims, ndim):
    for d in sorted(dims):
        if d < ndim:
            t = t.unsqueeze(d)
    return t


def unsqueeze_to(grad, sizes, dim=None):
    """The gradient of ``squeeze``: ``grad`` unsqueezed back at every squeezed dim (of
    ``dim``: an int, a list, or None for all) where ``sizes`` has a 1. Views, as torch's
    formula: a reshape would give other strides where the sizes contain a 0."""
    ndim = len(sizes)
    if dim is None:
        dims = range(ndim)
    else:
        dims = sorted({d % ndim for d in ([dim] if isinstance(dim, int) else dim)}) \
            if ndim else ()
    for d in dims:
        if sizes[d] == 1:
            grad = grad.unsqueeze(d)
    return grad


def restore_reduced_dims(grad, dim, keepdim, sizes):
    """``grad`` of a reduction's output with the reduced dims put back as size 1."""
    ndim = len(sizes)
    if keepdim or ndim == 0:
        return grad
    return unsqueeze_multiple(grad, reduced_dims(dim, ndim), ndim)


def expand_reduced(grad, dim, keepdim, sizes):
    return restore_reduced_dims(grad, dim, keepdim, sizes).expand(tuple(sizes))


def sum_backward(grad, sizes, dim=None, keepdim=False):
    return expand_reduced(grad, dim, keepdim, sizes)


def mean_backward(grad, sizes, dim, numel, keepdim):
    ndim = len(sizes)
    n = 1
    if ndim:                      # a 0-d self reduces over its one (size 1) element
        for d in reduced_dims(dim, ndim):
            n *= sizes[d]
    return expand_reduced(grad, dim, keepdim, sizes) / n


def prod_backward(grad, self, result, dim=None, keepdim=False):
    """d prod / d x_i = prod of the others; computed without dividing by zero."""
    if dim is None:
        flat = self.reshape(-1)
        return _prod_safe_grad(grad.reshape(1), flat.unsqueeze(0), result.reshape(1, 1),
                               1).reshape(self.shape)
    d = dim % self.dim() if self.dim() else 0
    if not keepdim and self.dim():
        grad = grad.unsqueeze(d)
        result = result.unsqueeze(d)
    if self.dim() == 0:
        return grad
    return _prod_safe_grad(grad, self, result, d)


def _prod_safe_grad(grad, self, result, d):
    # exclusive cumulative products from both sides give prod of the others exactly
    ones_shape = list(self.shape)
    ones_shape[d] = 1
    one = _s.ones(ones_shape, dtype=self.dtype)
    left = _s.cat([one, self.narrow(d, 0, self.shape[d] - 1)], d).cumprod(d) \
        if self.shape[d] > 0 else self
    right = _s.cat([self.narrow(d, 1, self.shape[d] - 1), one], d).flip(d).cumprod(d).flip(d) \
        if self.shape[d] > 0 else self
    return grad * conj_if_complex(left * right)


def var_backward(grad, self, dim, correction, keepdim):
    ndim = self.dim()
    dims = reduced_dims(dim, ndim)
    n = 1
    if ndim:                      # a 0-d self reduces over its one element
        for d in dims:
            n *= self.shape[d]
    corr = 1 if correction is None else correction
    grad = restore_reduced_dims(grad, dim, keepdim, self.shape)
    mean = self.mean(dims, keepdim=True) if ndim else self
    return (2.0 / max(n - corr, 0)) * grad * (self - mean) if n - corr > 0 else \
        grad * (self - mean) * float("inf")


def std_backward(result, grad, self, dim, correction, keepdim):
    grad = grad / (2 * result)
    grad = grad.masked_fill(result == 0, 0)
    return var_backward(grad, self, dim, correction, keepdim)


def norm_backward(grad, self, p, norm, dim=None, keepdim=False):
    """Gradient of the vector p-norm ``norm`` of ``self`` over ``dim``."""
    p = 2.0 if p is None else float(p)
    ndim = self.dim()
    grad = restore_reduced_dims(grad, dim, keepdim, self.shape)
    norm = restore_reduced_dims(norm, dim, keepdim, self.shape)
    if p == 0.0:
        return self * 0
    if p == 1.0:
        return self.sgn() * grad
    if p == 2.0:
        return (self / norm).masked_fill(norm == 0, 0) * grad
    if math.isinf(p):
        mask = (self.abs() == norm)
        count = mask.sum(reduced_dims(dim, ndim), keepdim=True) if ndim else mask.to(self.dtype)
        return self.sgn() * mask.to(self.dtype) * grad / count
    scale = self.abs().pow(p - 2) * self / norm.pow(p - 1)
    return scale.masked_fill(norm == 0, 0) * grad


def value_selecting_reduction_backward(grad, dim, indices, sizes, keepdim):
    """Gradient of max/min/median/kthvalue/mode along ``dim``: ``grad`` scattered to the
    selected positions."""
    if len(sizes) == 0:
        return grad.clone()
    if not keepdim:
        grad = grad.unsqueeze(dim)
        indices = indices.unsqueeze(dim)
    return _s.zeros(tuple(sizes), dtype=grad.dtype).scatter(dim, indices, grad)


def select_backward(grad, sizes, dim, index):
    out = _s.zeros(tuple(sizes), dtype=grad.dtype)
    out.select(dim, index).copy_(grad)
    return out


def slice_backward(grad, sizes, dim, start, end, step):
    out = _s.zeros(tuple(sizes), dtype=grad.dtype)
    _s.ops.aten.slice.Tensor(out, dim, start, end, step).copy_(grad)
    return out


def index_backward(grad, sizes, indices):
    """Gradient of ``self[indices]``: ``grad`` accumulated into zeros at the indices."""
    out = _s.zeros(tuple(sizes), dtype=grad.dtype)
    return out.index_put(indices, grad, accumulate=True)


def matmul_backward(grad, self, other, which):
    """Gradient of ``matmul(self, other)`` for ``self`` (which=0) or ``other`` (1), for
    every rank combination (the engine sums broadcast batch dims away)."""
    a, b = self, other
    if a.dim() == 1 and b.dim() == 1:
        return grad * conj_if_complex(b) if which == 0 else grad * conj_if_complex(a)
    if which == 0:
        if b.dim() == 1:          # (..., n, k) @ (k,) -> (..., n)
            return grad.unsqueeze(-1) * conj_if_complex(b)
        if a.dim() == 1:          # (k,) @ (..., k, m) -> (..., m)
            g = _s.matmul(grad.unsqueeze(-2), conj_if_complex(b).mT).squeeze(-2)
            return g.reshape(-1, g.shape[-1]).sum(0) if g.dim() > 1 else g
        return _s.matmul(grad, conj_if_complex(b).mT)
    if a.dim() == 1:              # (k,) @ (..., k, m)
        return conj_if_complex(a).unsqueeze(-1) * grad.unsqueeze(-2)
    if b.dim() == 1:              # (..., n, k) @ (k,)
        g = (conj_if_complex(a) * grad.unsqueeze(-1))
        return g.reshape(-1, g.shape[-1]).sum(0)
    return _s.matmul(conj_if_complex(a).mT, grad)


def as_strided_backward(grad, self_sizes, self_strides, self_storage_offset, size, stride,
                        storage_offset):
    """Gradient of ``as_strided``: each element of ``grad`` is added to the storage
    position it was read from (positions read several times get the sum), and the
    result is read back with the input's geometry."""
    import numpy as np
    offset = self_storage_offset if storage_offset is None else storage_offset
    # storage positions each output element read, and those the input covers
    out_pos = np.full(tuple(size), offset, dtype=np.int64)
    for d, (n, st) in enumerate(zip(size, stride)):
        shape = [1] * len(size)
        shape[d] = n
        out_pos = out_pos + (np.arange(n, dtype=np.int64) * st).reshape(shape)
    in_pos = np.full(tuple(self_sizes), self_storage_offset, dtype=np.int64)
    for d, (n, st) in enumerate(zip(self_sizes, self_strides)):
        shape = [1] * len(self_sizes)
        shape[d] = n
        in_pos = in_pos + (np.arange(n, dtype=np.int64) * st).reshape(shape)
    lo = min(int(out_pos.min(initial=offset)), int(in_pos.min(initial=self_storage_offset)))
    hi = max(int(out_pos.max(initial=offset)), int(in_pos.max(initial=self_storage_offset)))
    flat = _s.zeros(hi - lo + 1, dtype=grad.dtype)
    idx = _s.from_numpy((out_pos - lo).reshape(-1).copy())
    flat = flat.index_add(0, idx, grad.reshape(-1))
    take = _s.from_numpy((in_pos - lo).reshape(-1).copy())
    return flat.index_select(0, take).reshape(tuple(self_sizes))
