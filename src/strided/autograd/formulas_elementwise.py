"""Helpers for the backward formulas of the elementwise ops (derivatives_elementwise.yaml).

Like formulas.py, every helper computes with strided's public, differentiable ops, so
that a formula run under ``create_graph=True`` records its own graph (double backward).
Formulas return gradients of the output's shape; the engine sums them back over
broadcast dims and casts them to the input's dtype (Note [What the engine does to a
gradient] in engine.py). Complex inputs follow torch's convention: the gradient of a
holomorphic ``f`` is ``grad * conj(f'(z))``.

Where a formula selects between two expressions with ``where``, the branch that is not
selected is still differentiated in double backward (with a zero incoming gradient), so
its inputs are made safe first (no ``0 / 0``, no ``exp`` overflow): ``0 * inf`` would
turn the zero into NaN.
"""

from __future__ import annotations

import cmath
import math

import strided as _s

from .formulas import conj_if_complex

__all__ = [
    "zeros_grad", "sgn_backward", "pow_backward", "pow_backward_self",
    "pow_backward_exponent", "pow_scalar_backward_exponent", "scalar_log", "trigamma",
    "clamp_backward", "clamp_backward_min_max", "copysign_backward", "atan2_backward",
    "logit_backward", "gelu_backward", "elu_backward", "mish_backward", "softplus_backward",
    "maximum_backward", "fmax_backward", "to_copy_backward", "elu_backward_from_result",
    "leaky_relu_backward_from_result",
]

_SQRT_2 = math.sqrt(2.0)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)


def zeros_grad(like):
    """Zeros of ``like``'s shape and dtype, with no history (made from sizes, not from a
    tensor, so double backward has nothing to trace through)."""
    return _s.zeros(tuple(like.shape), dtype=like.dtype, device=like.device)


def _conj(t):
    return conj_if_complex(t)


# -- sgn ---------------------------------------------------------------------------------------

def sgn_backward(grad, self, result):
    """``sgn(z) = z / |z|``. Real inputs: zero. Complex: with ``s = sgn(z)``,
    d s / d z = 1 / (2|z|) and d s / d conj(z) = -s^2 / (2|z|), so the gradient is
    ``(grad - s^2 conj(grad)) / (2|z|)``, and zero at ``z = 0``."""
    if not self.is_complex():
        return zeros_grad(grad)
    a = self.abs()
    zero = a == 0
    denom = _s.where(zero, 1.0, 2 * a)
    g = (grad - result * result * conj_if_complex(grad)) / denom
    return _s.where(zero, 0.0, g)


# -- pow ---------------------------------------------------------------------------------------

def pow_backward(grad, self, exponent):
    """``pow.Tensor_Scalar``: ``grad * conj(p * x^(p-1))``, and zeros for ``p == 0``."""
    if exponent == 0:
        return zeros_grad(grad)
    exp = complex(exponent) if isinstance(exponent, complex) else float(exponent)
    return grad * _conj(exp * self.pow(exp - 1))


def pow_backward_self(grad, self, exponent):
    """``pow.Tensor_Tensor`` for the base: zero where the exponent is 0."""
    g = grad * _conj(exponent * self.pow(exponent - 1))
    return _s.where(exponent == 0, 0.0, g)


def _nonneg_real(exponent):
    if exponent.is_complex():
        return _s.logical_and(exponent.imag == 0, exponent.real >= 0)
    return exponent >= 0


def pow_backward_exponent(grad, self, exponent, result):
    """``pow.Tensor_Tensor`` for the exponent: ``grad * conj(x^p log x)``, taken as 0 where
    ``x == 0`` and ``p`` is real and non-negative (x^p is then constant 0 or 1 nearby)."""
    cond = _s.logical_and(self == 0, _nonneg_real(exponent))
    dtype = _s.result_type(self, exponent)
    base = self if self.dtype == dtype else self.to(dtype)
    safe = _s.where(cond, 1.0, base)
    return grad * _s.where(cond, 0.0, _conj(result * safe.log()))


def scalar_log(x):
    """``log`` of a Python number as torch takes it: NaN for a negative real, -inf at 0."""
    if isinstance(x, complex):
        return cmath.log(x) if x != 0 else complex(-math.inf, 0.0)
    x = float(x)
    if x > 0:
        return math.log(x)
    if x == 0:
        return -math.inf
    return math.nan


def pow_scalar_backward_exponent(grad, self, exponent, result):
    """``pow.Scalar`` (number ** tensor) for the exponent: ``grad * conj(result log b)``, and
    0 where ``b == 0`` and the exponent is real and non-negative."""
    base = self
    if exponent.is_complex() and not isinstance(base, complex):
        base = complex(base)
    log_b = scalar_log(base)
    if base == 0:
        cond = _nonneg_real(exponent)
        # log 0 = -inf: keep the result out of the unselected branch (its gradient there
        # would be 0 * -inf)
        safe = _s.where(cond, 0.0, result)
        return grad * _s.where(cond, 0.0, _conj(safe * log_b))
    return grad * _conj(result * log_b)


# -- digamma's derivative ----------------------------------------------------------------------

def trigamma(x):
    """polygamma(1, x), elementwise: for ``x < 1/2`` the reflection
    ``psi1(x) = pi^2 / sin^2(pi x) - psi1(1 - x)``; then six steps of the recurrence
    ``psi1(y) = 1 / y^2 + psi1(y + 1)`` and the asymptotic series
    ``psi1(y) ~ 1/y + 1/(2y^2) + 1/(6y^3) - 1/(30y^5) + 1/(42y^7)``."""
    reflect = x < 0.5
    y = _s.where(reflect, 1 - x, x)
    total = 1 / (y * y)
    for _ in range(5):
        y = y + 1
        total = total + 1 / (y * y)
    y = y + 1
    iyy = 1 / (y * y)
    total = total + (1 + 1 / (2 * y) + iyy * (1.0 / 6 - iyy * (1.0 / 30 - iyy * (1.0 / 42)))) / y
    # sin(pi x) only where reflected; elsewhere an x whose sine is not 0
    s = _s.sin(math.pi * _s.where(reflect, x, 0.5))
    return _s.where(reflect, (math.pi * math.pi) / (s * s) - total, total)


# -- clamp -------------------------------------------------------------------------------------

def clamp_backward(grad, self, min, max):
    """The gradient passes where ``min <= self <= max`` (boundaries included)."""
    if min is not None and max is not None:
        keep = _s.logical_and(self >= min, self <= max)
    elif min is not None:
        keep = self >= min
    elif max is not None:
        keep = self <= max
    else:
        return grad
    return _s.where(keep, grad, 0.0)


def clamp_backward_min_max(grad, self, min, max):
    """``clamp.Tensor`` for ``min`` and ``max``: ``min`` gets the gradient where it is the
    result (``self < min`` and ``min < max``), ``max`` where it is (``self > max``, or
    ``max < min``, when it wins everywhere)."""
    gmin = gmax = None
    if min is not None and max is not None:
        gmin = _s.where(_s.logical_and(self < min, min < max), grad, 0.0)
        gmax = _s.where(_s.logical_or(self > max, max < min), grad, 0.0)
    elif min is not None:
        gmin = _s.where(self < min, grad, 0.0)
    elif max is not None:
        gmax = _s.where(self > max, grad, 0.0)
    return gmin, gmax


# -- binary ops --------------------------------------------------------------------------------

def copysign_backward(grad, self, result):
    """``copysign(x, y) = +-x``: the gradient is ``grad * result / x``, 0 where ``x == 0``."""
    zero = self == 0
    ratio = result / _s.where(zero, 1.0, self)
    return grad * _s.where(zero, 0.0, ratio)


def atan2_backward(grad, self, other):
    """``d atan2(y, x) = (x dy - y dx) / (x^2 + y^2)``; 0 at the origin, as torch."""
    denom = self * self + other * other
    zero = denom == 0
    recip = 1 / _s.where(zero, 1.0, denom)
    gs = _s.where(zero, 0.0, grad * other * recip)
    go = _s.where(zero, 0.0, grad * -self * recip)
    return gs, go


def maximum_backward(grad, self, other, loses):
    """``maximum``/``minimum`` for one input (``loses``: where the other one is selected):
    the gradient goes to the selected input, half to each on a tie, and whole to both
    when a NaN makes every comparison false (as torch)."""
    half = _s.where(self == other, grad / 2, grad)
    return _s.where(loses, 0.0, half)


def fmax_backward(grad, keep):
    return _s.where(keep, grad, 0.0)


# -- unary ops with a domain -------------------------------------------------------------------

def logit_backward(grad, self, eps):
    """``logit'(x) = 1 / (x (1 - x))``. Without ``eps``: NaN outside [0, 1]. With ``eps``:
    0 outside ``[eps, 1 - eps]``, where the input was clamped."""
    if eps is None:
        outside = _s.logical_or(self < 0, self > 1)
        fill = math.nan
    else:
        outside = _s.logical_or(self < eps, self > 1 - eps)
        fill = 0.0
    safe = _s.where(outside, 0.5, self)
    return _s.where(outside, fill, grad / (safe * (1 - safe)))


# -- activations -------------------------------------------------------------------------------

def gelu_backward(grad, self, approximate):
    if approximate == "tanh":
        beta = math.sqrt(2.0 / math.pi)
        kappa = 0.044715
        x_sq = self * self
        inner = beta * (self + kappa * x_sq * self)
        t = _s.tanh(inner)
        left = 0.5 * self
        right = 1 + t
        d_inner = beta * (1 + 3 * kappa * x_sq)
        return grad * (0.5 * right + left * (1 - t * t) * d_inner)
    cdf = 0.5 * (1 + _s.erf(self / _SQRT_2))
    pdf = _INV_SQRT_2PI * _s.exp(-0.5 * self * self)
    return grad * (cdf + self * pdf)


def elu_backward(grad, self, alpha, scale, input_scale):
    """``x > 0``: ``scale``; else ``alpha * scale * input_scale * exp(x * input_scale)``."""
    neg = _s.where(self > 0, 0.0, self)   # exp of the positive side is never needed
    neg_grad = grad * (float(alpha) * float(scale) * float(input_scale)) * \
        _s.exp(neg * float(input_scale))
    return _s.where(self > 0, grad * float(scale), neg_grad)


def elu_backward_from_result(grad, result, alpha, scale, input_scale):
    """``elu_``: from the result, ``input_scale * (result + alpha * scale)`` where
    ``result <= 0``; torch refuses a negative ``alpha`` (the result then no longer tells
    which side the input was on)."""
    if float(alpha) < 0:
        raise RuntimeError(
            "In-place elu backward calculation is triggered with a negative slope which is "
            "not supported. This is caused by calling in-place forward function with a "
            "negative slope, please call out-of-place version instead.")
    neg_grad = grad * float(input_scale) * (result + float(alpha) * float(scale))
    return _s.where(result <= 0, neg_grad, grad * float(scale))


def leaky_relu_backward_from_result(grad, result, negative_slope):
    if float(negative_slope) < 0:
        raise RuntimeError(
            "In-place leakyReLu backward calculation is triggered with a negative slope which "
            "is not supported. This is caused by calling in-place forward function with a "
            "negative slope, please call out-of-place version instead. File an issue at "
            "https://github.com/pytorch/pytorch if you do require supporting in-place leakRelu "
            "backward calculation with negative slope")
    return _s.where(result > 0, grad, grad * negative_slope)


def softplus_backward(grad, self, beta, threshold):
    """``softplus(x) = log(1 + exp(beta x)) / beta``, linear above the threshold:
    ``sigmoid(beta x)`` below, 1 above."""
    bx = self * beta
    return _s.where(bx > threshold, grad, grad * _s.sigmoid(bx))


def mish_backward(grad, self):
    """``mish(x) = x tanh(softplus(x))``: ``tanh(sp) + x sigmoid(x) (1 - tanh(sp)^2)``."""
    t = _s.tanh(_s.nn.functional.softplus(self))
    return grad * (t + self * _s.sigmoid(self) * (1 - t * t))


# -- conversions -------------------------------------------------------------------------------

def to_copy_backward(grad, self_dtype):
    """``_to_copy``: the gradient converted back to the input's dtype (the real part for a
    real input converted to complex)."""
    if grad.is_complex() and not self_dtype.is_complex:
        grad = grad.real
    return grad.to(self_dtype)
