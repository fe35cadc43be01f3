"""Helpers for the backward formulas of the attention ops (derivatives/nn_attention.yaml)."""

from __future__ import annotations

from .formulas_nn_loss import loss_op

__all__ = ["sdpa_flash_cpu_grad", "safe_softmax_grad"]


def sdpa_flash_cpu_grad(grad, query, key, value, out, logsumexp, dropout_p, is_causal,
                        attn_mask, scale):
    return loss_op("_scaled_dot_product_flash_attention_for_cpu_backward", grad, query, key,
                   value, out, logsumexp, dropout_p, is_causal, attn_mask, scale)


def safe_softmax_grad(grad, result, dim, self_dtype):
    return loss_op("_softmax_backward_data", grad, result, dim, self_dtype)
