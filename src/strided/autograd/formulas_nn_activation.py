"""Helpers for the backward formulas of torch.nn's activations
(autograd/derivatives/nn_activation.yaml).

As in formulas.py, every helper computes with strided's public, differentiable ops, so a
formula run under ``create_graph=True`` records its own graph (double backward).
"""

from __future__ import annotations

import strided as _s

__all__ = [
    "hardswish_grad", "hardsigmoid_grad", "shrink_grad", "threshold_backward", "threshold_grad",
    "glu_grad",
    "log_sigmoid_grad", "log_sigmoid_double_backward", "rrelu_with_noise_grad",
    "prelu_kernel_grads", "prelu_kernel_double_backward",
]


def _zero(t):
    return _s.zeros((), dtype=t.dtype, device=t.device)


def hardswish_grad(grad, self):
    """0 below -3, ``grad * (x / 3 + 1/2)`` up to 3, ``grad`` above."""
    mid = grad * (self / 3 + 0.5)
    return _s.where(self < -3, _zero(grad), _s.where(self <= 3, mid, grad))


def hardsigmoid_grad(grad, self):
    """``grad / 6`` strictly inside (-3, 3), 0 elsewhere."""
    inside = _s.logical_and(self > -3, self < 3)
    # torch's kernel multiplies by a float 1/6, also for double
    return _s.where(inside, grad * 0.1666666716337204, _zero(grad))


def shrink_grad(grad, self, lambd):
    """hardshrink / softshrink: ``grad`` outside [-lambd, lambd], 0 inside."""
    lam = float(lambd)
    inside = _s.logical_and(self >= -lam, self <= lam)
    return _s.where(inside, _zero(grad), grad)


_THRESHOLD_BACKWARD: list = []


def threshold_backward(grad, self, threshold):
    """``aten::threshold_backward`` through the dispatcher (autograd included, for double
    backward): 0 where ``self <= threshold``, ``grad`` elsewhere. It has no Python binding,
    in torch as here."""
    if not _THRESHOLD_BACKWARD:
        from strided.ops.dispatcher import get_op
        _THRESHOLD_BACKWARD.append(get_op("aten::threshold_backward"))
    return _THRESHOLD_BACKWARD[0].call(grad._keyset | self._keyset, grad, self, threshold)


def threshold_grad(grad, self, threshold):
    """The gradient of ``relu`` / ``threshold``: ``threshold_backward``, as torch's."""
    if self.layout is not _s.strided:      # relu of a compressed sparse tensor (issue 16)
        from .formulas_sparse_compressed import compressed_threshold_grad
        return compressed_threshold_grad(grad, self, threshold)
    return threshold_backward(grad, self, threshold)


def glu_grad(grad, self, dim):
    """``glu(x) = a * sigmoid(b)`` with ``a, b`` the halves of ``x`` along ``dim``."""
    a, b = self.chunk(2, dim)
    sig = b.sigmoid()
    ga = grad * sig
    gb = ga * a * (1 - sig)
    return _s.cat([ga, gb], dim)


def log_sigmoid_grad(grad, self, buffer):
    return _s.ops.aten.log_sigmoid_backward(grad, self, buffer)


def log_sigmoid_double_backward(grad, self):
    z = self.sigmoid()
    return grad * (z - 1) * z


def rrelu_with_noise_grad(grad, self, noise, lower, upper, training, is_result):
    """Training: ``noise * grad``; otherwise leaky_relu's with slope ``(lower + upper) / 2``."""
    if training:
        return noise * grad
    slope = (float(lower) + float(upper)) / 2
    if is_result and slope < 0:
        raise RuntimeError(
            "In-place leakyReLu backward calculation is triggered with a negative slope which "
            "is not supported. This is caused by calling in-place forward function with a "
            "negative slope, please call out-of-place version instead. File an issue at "
            "https://github.com/pytorch/pytorch if you do require supporting in-place "
            "leakRelu backward calculation with negative slope")
    return _s.where(self > 0, grad, grad * slope)


def prelu_kernel_grads(grad, self, weight):
    return _s.ops.aten._prelu_kernel_backward(grad, self, weight)


def prelu_kernel_double_backward(grads, grad_output, self, weight):
    """The gradients of ``_prelu_kernel_backward`` (torch's formulas)."""
    g0, g1 = grads
    pos = self >= 0
    if g0 is not None and g1 is not None:
        d_go = _s.where(pos, g0, g0 * weight + g1 * self)
    elif g0 is not None:
        d_go = _s.where(pos, g0, g0 * weight)
    else:
        d_go = _s.where(pos, _zero(grad_output), g1 * self)
    d_self = _s.where(pos, _zero(self), grad_output * g1) if g1 is not None \
        else _s.zeros_like(self)
    d_w = _s.where(pos, _zero(weight), grad_output * g0) if g0 is not None \
        else _s.zeros_like(self)
    return d_go, d_self, d_w
