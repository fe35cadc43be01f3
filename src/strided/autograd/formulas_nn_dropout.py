"""Helpers for the backward formulas of the dropout ops (derivatives/nn_dropout.yaml)."""

from __future__ import annotations

import strided as _s

__all__ = ["native_dropout_grad", "native_dropout_grad_scaled"]


def native_dropout_grad(grad, mask, p, train):
    """torch's: the scale is 1 in eval mode, 0 for ``p == 1``, else ``1 / (1 - p)``; with
    grad mode on (double backward) the product is recorded, else the backward op runs."""
    scale = 1.0 if train is not None and not train else (0.0 if p == 1 else 1.0 / (1.0 - p))
    return native_dropout_grad_scaled(grad, mask, scale)


def native_dropout_grad_scaled(grad, mask, scale):
    if _s.is_grad_enabled():
        return grad * (mask.type_as(grad) * scale)
    return _s.ops.aten.native_dropout_backward(grad, mask, scale)
