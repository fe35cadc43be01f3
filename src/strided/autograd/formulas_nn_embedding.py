"""Helpers for the backward formulas of Embedding / EmbeddingBag
(autograd/derivatives/nn_embedding.yaml): they call the backward aten ops, as torch's
formulas do."""

from __future__ import annotations

import strided as _s

__all__ = ["embedding_weight_grad", "embedding_dense_double_backward",
           "embedding_bag_weight_grad", "embedding_bag_psw_grad"]


def embedding_weight_grad(grad, indices, num_weights, padding_idx, scale_grad_by_freq, sparse):
    return _s.ops.aten.embedding_backward(grad, indices, num_weights, padding_idx,
                                          scale_grad_by_freq, sparse)


def embedding_dense_double_backward(grad, indices, padding_idx):
    """The gradient of ``embedding_dense_backward`` for its grad_output: the lookup again,
    zero where the index is ``padding_idx``."""
    out = grad.index_select(0, indices.reshape(-1)).view(*indices.shape, grad.shape[-1])
    if padding_idx >= 0:
        out = out.masked_fill((indices == padding_idx).unsqueeze(-1), 0)
    return out


def embedding_bag_weight_grad(grad, indices, offsets, offset2bag, bag_size, max_indices,
                              num_weights, scale_grad_by_freq, mode, sparse, per_sample_weights,
                              padding_idx):
    return _s.ops.aten._embedding_bag_backward(grad, indices, offsets, offset2bag, bag_size,
                                               max_indices, num_weights, scale_grad_by_freq,
                                               mode, sparse, per_sample_weights, padding_idx)


def embedding_bag_psw_grad(grad, weight, indices, offsets, offset2bag, mode, padding_idx):
    return _s.ops.aten._embedding_bag_per_sample_weights_backward(
        grad, weight, indices, offsets, offset2bag, mode, padding_idx)
