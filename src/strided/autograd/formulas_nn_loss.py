"""Helpers of the loss and softmax backward formulas (autograd/derivatives/nn_loss.yaml).

Written with public strided ops only, so that a backward run with ``create_graph=True``
records its own graph (double backward). ``reduction`` is torch's enum: 0 none, 1 mean,
2 sum.
"""

from __future__ import annotations

import strided as _s

__all__ = [
    "loss_op", "binary_cross_entropy_double_backward_self",
    "binary_cross_entropy_double_backward_target", "binary_cross_entropy_target_grad",
    "bce_with_logits_grad", "bce_with_logits_target_grad", "huber_loss_grad",
    "log_softmax_double_backward_grad_output", "log_softmax_double_backward_output",
    "mse_loss_double_backward", "smooth_l1_loss_grad", "soft_margin_loss_grad",
    "softmax_double_backward",
]

_MEAN = 1
_EPS = 1e-12


_handles: dict = {}


def loss_op(name, *args):
    """``aten::<name>`` (an overload name such as ``nll_loss_backward`` or
    ``_ctc_loss_backward.Tensor``) called through the dispatcher with the key set of its
    tensor arguments, as a generated binding calls it, autograd included; without the
    binding's argument parsing, which the backward pass does not need."""
    handle = _handles.get(name)
    if handle is None:
        from strided.ops.dispatcher import get_op
        handle = _handles[name] = get_op("aten::" + name)
    keyset = 0
    for a in args:
        k = getattr(a, "_keyset", None)
        if k is not None:
            keyset |= k
    return handle.call(keyset, *args)


def _norm(t, reduction, numel):
    return t / numel if reduction == _MEAN else t


def softmax_double_backward(grad, grad_output, dim, output):
    return (grad_output * grad - (output * grad_output).sum(dim, keepdim=True) * grad
            - grad_output * (output * grad).sum(dim, keepdim=True))


def log_softmax_double_backward_grad_output(grad, output, dim):
    return grad - (grad * output.exp()).sum(dim, keepdim=True)


def log_softmax_double_backward_output(grad, grad_output, dim, output):
    return -grad_output.sum(dim, keepdim=True) * output.exp() * grad


def mse_loss_double_backward(grad, input, reduction):
    return _norm(grad * 2, reduction, input.numel())


def smooth_l1_loss_grad(grad, self, target, reduction, beta):
    d = self - target
    if beta == 0:
        g = d.sign()
    else:
        g = _s.where(d.abs() < beta, d / beta, d.sign())
    return _norm(g * grad, reduction, d.numel())


def huber_loss_grad(grad, self, target, reduction, delta):
    d = self - target
    g = _s.where(d.abs() <= delta, d, delta * d.sign())
    return _norm(g * grad, reduction, d.numel())


def soft_margin_loss_grad(grad, self, target, reduction):
    z = (-target * self).exp()
    return _norm(-target * z / (z + 1) * grad, reduction, self.numel())


def _weighted(t, weight):
    return t if weight is None else t * weight


def binary_cross_entropy_target_grad(grad, self, target, weight, reduction):
    g = (1 - self).log().clamp_min(-100) - self.log().clamp_min(-100)
    return _norm(_weighted(g * grad, weight), reduction, self.numel())


def binary_cross_entropy_double_backward_self(grad_output, grad, self, target, weight,
                                              reduction):
    # d/dx of (x - y) / (x (1 - x))
    denom = ((1 - self) * self).clamp_min(_EPS)
    d = (denom - (self - target) * (1 - 2 * self)) / (denom * denom)
    return _norm(_weighted(d * grad * grad_output, weight), reduction, self.numel())


def binary_cross_entropy_double_backward_target(grad_output, grad, self, target, weight,
                                                reduction):
    denom = ((1 - self) * self).clamp_min(_EPS)
    return _norm(_weighted(-grad * grad_output / denom, weight), reduction, self.numel())


def bce_with_logits_grad(grad, self, target, weight, pos_weight, reduction):
    if pos_weight is not None:
        t = pos_weight * target
        g = (t + 1 - target) * self.sigmoid() - t
    else:
        g = self.sigmoid() - target
    return _norm(_weighted(g * grad, weight), reduction, self.numel())


def bce_with_logits_target_grad(grad, self, target, weight, pos_weight, reduction):
    if pos_weight is not None:
        g = (pos_weight - 1) * _s.nn.functional.softplus(-self) - self
    else:
        g = -self
    return _norm(_weighted(g * grad, weight), reduction, self.numel())
