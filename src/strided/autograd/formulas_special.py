"""Helpers for the backward formulas of torch.special and the elementwise operators of
issue 14 (autograd/derivatives/special.yaml). Like the other formula files, every helper
computes with strided's public, differentiable ops, so double backward records a graph."""

from __future__ import annotations

import math

import strided as _s

__all__ = [
    "special_not_implemented", "xlogy_self_grad", "xlogy_scalar_other_grad",
    "xlog1py_self_grad", "xlog1py_scalar_other_grad", "special_i1", "special_i1e",
    "special_zeta", "i1_backward", "i1e_backward", "sinc_backward", "logcumsumexp_backward",
    "mvlgamma_backward", "polar_backward", "angle_backward", "real_part_grad",
    "imag_part_grad",
]


def real_part_grad(grad):
    """complex(real, imag)'s gradient for ``real`` (the argument's name shadows ``real``)."""
    return _s.real(grad)


def imag_part_grad(grad):
    return _s.imag(grad)


def special_not_implemented(name):
    """torch's ``not_implemented`` formula: backward through the input fails."""
    raise NotImplementedError(f"the derivative for '{name}' is not implemented.")


def special_i1(x):
    return _s.special.i1(x)


def special_i1e(x):
    return _s.special.i1e(x)


def special_zeta(x, q):
    return _s.special.zeta(x, q)


def xlogy_self_grad(grad, self, other):
    """d/dx x log y = log y; 0 where x == 0 and y <= 0 (where x log y is 0 by definition)."""
    return _s.xlogy(grad, other).masked_fill((self == 0.0) & (other <= 0.0), 0.0)


def xlogy_scalar_other_grad(grad, self, other):
    g = _s.xlogy(grad, other)
    return g if float(other) > 0 else g.masked_fill(self == 0.0, 0.0)


def xlog1py_self_grad(grad, self, other):
    return _s.special.xlog1py(grad, other).masked_fill((self == 0.0) & (other <= -1.0), 0.0)


def xlog1py_scalar_other_grad(grad, self, other):
    g = _s.special.xlog1py(grad, other)
    return g if float(other) > -1 else g.masked_fill(self == 0.0, 0.0)


def _tiny_safe(self):
    eps = _s.finfo(self.dtype).eps
    big = self.abs() > eps
    return big, _s.where(big, self, _s.full((), eps, dtype=self.dtype))


def i1_backward(grad, self, result):
    """i1'(x) = i0(x) - i1(x)/x, whose limit at 0 (1/2) is taken below eps."""
    big, safe = _tiny_safe(self)
    d = safe.i0() - result * safe.reciprocal()
    return grad * _s.where(big, d, _s.full((), 0.5, dtype=self.dtype))


def i1e_backward(grad, self, result):
    """i1e'(x) = i0e(x) - i1e(x) (sgn(x) + 1/x), 1/2 at 0."""
    big, safe = _tiny_safe(self)
    d = _s.special.i0e(safe) - result * (safe.sgn() + safe.reciprocal())
    return grad * _s.where(big, d, _s.full((), 0.5, dtype=self.dtype))


def sinc_backward(grad, self):
    """sinc'(x) = (pi x cos(pi x) - sin(pi x)) / (pi x^2); 0 at x = 0."""
    px = self * math.pi
    sq = self * self * math.pi
    out = grad * ((px * px.cos() - px.sin()) / sq).conj()
    return _s.where(sq == 0.0, _s.zeros((), dtype=out.dtype), out)


def _rev_logcumsumexp(x, dim):
    return x.flip(dim).logcumsumexp(dim).flip(dim)


def logcumsumexp_backward(grad, self, result, dim):
    """grad_i = sum_(k >= i) grad_k exp(x_i - r_k), summed in log space over the positive and
    the negative parts of grad separately (no overflow of exp(-r_k))."""
    if grad.numel() == 0:
        return grad
    if self.is_complex():   # in log space too: no split needed, log(conj(grad)) is finite
        return (_rev_logcumsumexp(grad.conj().log() - result, dim) + self).exp().conj()
    pos = grad.clamp(min=0).log()
    neg = (-grad).clamp(min=0).log()
    return (_rev_logcumsumexp(pos - result, dim) + self).exp() - \
        (_rev_logcumsumexp(neg - result, dim) + self).exp()


def mvlgamma_backward(grad, self, p):
    """d/dx sum_j lgamma(x - j/2) = sum_j digamma(x - j/2)."""
    total = None
    for j in range(p):
        term = (self - j * 0.5).digamma()
        total = term if total is None else total + term
    return grad * total


def polar_backward(grad, result):
    g = grad.conj()
    grad_abs = _s.real(g * result.sgn())
    grad_angle = _s.real(g * (result * 1j))
    return grad_abs, grad_angle


def angle_backward(grad, self):
    if not self.is_complex():
        return _s.zeros_like(self)
    d = grad * self / self.abs().pow(2) * 1j
    return _s.where(self == 0.0, _s.zeros((), dtype=d.dtype), d)
