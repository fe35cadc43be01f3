"""Helpers for the backward formulas of the recurrent-layer ops
(autograd/derivatives/nn_rnn.yaml). Public strided ops only.

A plain ``backward()`` runs with grad mode off: the formula calls the fused BPTT kernel
``mkldnn_rnn_layer_backward``. Under ``create_graph=True`` grad mode is on, and (as torch's
``mkldnn_rnn_layer_differentiable_backward`` does) the layer is recomputed in differentiable
ops and differentiated through, so that higher derivatives follow a graph.
"""

from __future__ import annotations

import strided as _s

__all__ = ["lstm_layer_backward"]


def _differentiable(input, w_ih, w_hh, b_ih, b_hh, hx, cx, grad_output, grad_hy, grad_cy,
                    reverse, has_biases):
    from ..nn.modules.rnn import _lstm_step, _run_dense
    inputs = [input, w_ih, w_hh, b_ih, b_hh, hx, cx]
    pre = _s.nn.functional.linear(input, w_ih, b_ih if has_biases else None)
    out, h, c = _run_dense(_lstm_step, pre, hx, cx,
                           (w_hh, b_hh if has_biases else None, None), reverse)
    outs, gouts = [], []
    for o, g in ((out, grad_output), (h, grad_hy), (c, grad_cy)):
        if g is not None and o.requires_grad:
            outs.append(o)
            gouts.append(g)
    live = [k for k, t in enumerate(inputs) if t.requires_grad]
    result = [None] * 7
    if not outs or not live:
        return tuple(result)
    grads = _s.autograd.grad(outs, [inputs[k] for k in live], gouts, create_graph=True,
                             allow_unused=True)
    for k, g in zip(live, grads, strict=True):
        result[k] = g
    return tuple(result)


def lstm_layer_backward(input, w_ih, w_hh, b_ih, b_hh, hx, cx, output, hy, cy, grad_output,
                        grad_hy, grad_cy, reverse, mode, hidden_size, num_layers, has_biases,
                        train, bidirectional, batch_sizes, batch_first, workspace):
    """The seven gradients of ``mkldnn_rnn_layer`` (input, the four weights, hx, cx)."""
    if _s.is_grad_enabled():
        with _s.enable_grad():
            return _differentiable(input, w_ih, w_hh, b_ih, b_hh, hx, cx, grad_output,
                                   grad_hy, grad_cy, reverse, has_biases)
    return _s.ops.aten.mkldnn_rnn_layer_backward.default(
        input, w_ih, w_hh, b_ih, b_hh, hx, cx, output, hy, cy, grad_output, grad_hy, grad_cy,
        reverse, mode, hidden_size, num_layers, has_biases, train, bidirectional, batch_sizes,
        batch_first, workspace)
