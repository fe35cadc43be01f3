"""Helpers for the backward formulas of the recurrent-layer ops
(autograd/derivatives/nn_rnn.yaml). Public strided ops only."""

from __future__ import annotations

import strided as _s

__all__ = ["lstm_layer_backward"]


def lstm_layer_backward(*args):
    """The seven gradients of ``mkldnn_rnn_layer`` (input, the four weights, hx, cx) from the
    fused backward kernel; a missing output gradient is passed on as None."""
    return _s.ops.aten.mkldnn_rnn_layer_backward.default(*args)
