"""Helpers for the backward formulas of the torch.nn.utils operators
(autograd/derivatives/nn_utils.yaml). Public, differentiable strided ops only."""

from __future__ import annotations

import strided as _s

__all__ = ["weight_norm_interface_grads"]


def weight_norm_interface_grads(grad, v, g, norms, dim):
    """(grad_v, grad_g) of ``w = v * g / norms``: the fused kernel, or its differentiable
    composite when the backward itself is recorded (create_graph), as torch chooses."""
    if grad is None:
        return None, None
    if _s.is_grad_enabled():
        return _s.ops.aten._weight_norm_differentiable_backward(grad.contiguous(), v, g, norms, dim)
    return _s.ops.aten._weight_norm_interface_backward(grad.contiguous(), v, g, norms, dim)

