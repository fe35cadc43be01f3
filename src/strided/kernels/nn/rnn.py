"""Kernels of the recurrent layers (NumPy): ``mkldnn_rnn_layer`` and its backward.

torch runs a float32 LSTM layer on CPU as one ``mkldnn_rnn_layer`` call per layer and
direction (graph node ``MkldnnRnnLayerBackward0``). Here that op is one NumPy kernel: the
input-to-hidden projection of every time step is a single matmul, and only the
hidden-to-hidden product and the gate arithmetic loop over time. The workspace (the
activated gates and the cell states of every step) is what the backward kernel reads; it
runs backpropagation through time with one matmul per step, then gets the weight, bias and
input gradients with one matmul each over the whole sequence.

Layout: ``input`` is ``(T, B, I)`` (torch transposes ``batch_first`` input before the call),
the gates are ordered (input, forget, cell, output) as torch orders them, and the workspace
is ``(T, B, 5H)``: the four activated gates then the cell state.
"""

from __future__ import annotations

import numpy as np

from ...core.checks import check
from ..factory import empty

_LSTM = 2


def _np(t):
    return None if t is None else np.asarray(t._array())


def _new(arr, like):
    out = empty(arr.shape, like._dtype, device=like._device)
    if arr.size:
        out._array()[...] = arr
    return out


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def mkldnn_rnn_layer(input, weight0, weight1, weight2, weight3, hx_, cx_, reverse,
                     batch_sizes, mode, hidden_size, num_layers, has_biases, bidirectional,
                     batch_first, train):
    check(mode == _LSTM, lambda: "mkldnn_rnn_layer: only LSTM is supported here")
    check(input.dim() == 3, lambda: "mkldnn_rnn_layer: expected a 3-D input")
    steps, batch, _ = input._sizes
    h = hidden_size
    if input._device.type == "meta":
        return (empty((steps, batch, h), input._dtype, device=input._device),
                empty((batch, h), input._dtype, device=input._device),
                empty((batch, h), input._dtype, device=input._device),
                empty((steps, batch, 5 * h), input._dtype, device=input._device))
    npdt = input._dtype.np
    x = _np(input)
    w_ih, w_hh = _np(weight0), _np(weight1)
    bias = (_np(weight2) + _np(weight3)) if has_biases else None
    pre = np.matmul(x.reshape(steps * batch, -1), w_ih.T)
    if bias is not None:
        pre += bias
    pre = pre.reshape(steps, batch, 4 * h)
    out = np.empty((steps, batch, h), npdt)
    ws = np.empty((steps, batch, 5 * h), npdt)
    hcur = np.array(_np(hx_), dtype=npdt)
    ccur = np.array(_np(cx_), dtype=npdt)
    w_hh_t = np.ascontiguousarray(w_hh.T)
    order = range(steps - 1, -1, -1) if reverse else range(steps)
    with np.errstate(over="ignore"):
        for t in order:
            g = ws[t, :, :4 * h]
            np.matmul(hcur, w_hh_t, out=g)
            g += pre[t]
            g[:, :2 * h] = _sigmoid(g[:, :2 * h])
            np.tanh(g[:, 2 * h:3 * h], out=g[:, 2 * h:3 * h])
            g[:, 3 * h:] = _sigmoid(g[:, 3 * h:])
            ccur = g[:, h:2 * h] * ccur + g[:, :h] * g[:, 2 * h:3 * h]
            ws[t, :, 4 * h:] = ccur
            hcur = g[:, 3 * h:] * np.tanh(ccur)
            out[t] = hcur
    return _new(out, input), _new(hcur, input), _new(ccur, input), _new(ws, input)


def mkldnn_rnn_layer_backward(input, weight1, weight2, weight3, weight4, hx_, cx_tmp, output,
                              hy_, cy_, grad_output, grad_hy, grad_cy, reverse, mode,
                              hidden_size, num_layers, has_biases, train, bidirectional,
                              batch_sizes, batch_first, workspace):
    check(mode == _LSTM, lambda: "mkldnn_rnn_layer_backward: only LSTM is supported here")
    steps, batch, _ = input._sizes
    h = hidden_size
    npdt = input._dtype.np
    x = _np(input)
    w_ih, w_hh = _np(weight1), _np(weight2)
    ws = _np(workspace)
    hs = _np(output)
    h0, c0 = _np(hx_), _np(cx_tmp)
    go = _np(grad_output)
    dh_next = np.zeros((batch, h), npdt) if grad_hy is None else np.array(_np(grad_hy))
    dc_next = np.zeros((batch, h), npdt) if grad_cy is None else np.array(_np(grad_cy))
    order = list(range(steps - 1, -1, -1) if reverse else range(steps))
    # the states each step started from, in time order
    cs = ws[:, :, 4 * h:]
    c_prev = np.empty((steps, batch, h), npdt)
    h_prev = np.empty((steps, batch, h), npdt)
    for k, t in enumerate(order):
        c_prev[t] = c0 if k == 0 else cs[order[k - 1]]
        h_prev[t] = h0 if k == 0 else hs[order[k - 1]]
    # everything that does not depend on the recurrence, for all steps at once:
    # dgates = (dc * [i', f', g'], dh * o') and dc += dh * o * (1 - tanh(c)^2)
    gates = ws[:, :, :4 * h].reshape(steps, batch, 4, h)
    i, f, gg, o = gates[:, :, 0], gates[:, :, 1], gates[:, :, 2], gates[:, :, 3]
    tc = np.tanh(cs)
    coef = np.empty((steps, batch, 4, h), npdt)
    coef[:, :, 0] = gg * i * (1 - i)
    coef[:, :, 1] = c_prev * f * (1 - f)
    coef[:, :, 2] = i * (1 - gg * gg)
    coef[:, :, 3] = tc * o * (1 - o)
    dc_coef = o * (1 - tc * tc)
    dgates = np.empty((steps, batch, 4, h), npdt)
    for t in reversed(order):
        dh = dh_next if go is None else dh_next + go[t]
        dc = dh * dc_coef[t]
        dc += dc_next
        d = dgates[t]
        np.multiply(coef[t, :, :3], dc[:, None, :], out=d[:, :3])
        np.multiply(coef[t, :, 3], dh, out=d[:, 3])
        dc_next = dc * f[t]
        dh_next = d.reshape(batch, 4 * h) @ w_hh
    dflat = dgates.reshape(steps * batch, 4 * h)
    dx = (dflat @ w_ih).reshape(steps, batch, -1)
    dw_ih = dflat.T @ x.reshape(steps * batch, -1)
    dw_hh = dflat.T @ h_prev.reshape(steps * batch, h)
    db = dflat.sum(0)
    return (_new(dx, input), _new(dw_ih, weight1), _new(dw_hh, weight2), _new(db, weight3),
            _new(db.copy(), weight4), _new(dh_next, hx_), _new(dc_next, cx_tmp))


# -- CompositeImplicitAutograd: the recurrences and cells as torch decomposes them ------------
# (the arithmetic lives in nn/modules/rnn.py: Note [RNN cell arithmetic])

def _impl():
    from ...nn.modules import rnn
    return rnn


def _layers(mode, input, hx, cx, params, has_biases, num_layers, dropout, train,
            bidirectional, batch_first, batch_sizes=None):
    return _impl()._rnn_impl(mode, input, hx, cx, list(params), has_biases, num_layers,
                             dropout, train, bidirectional, batch_first, batch_sizes)


def lstm_input_composite(input, hx, params, has_biases, num_layers, dropout, train,
                         bidirectional, batch_first):
    check(len(hx) == 2, lambda: "lstm expects two hidden states")
    return _layers("LSTM", input, hx[0], hx[1], params, has_biases, num_layers, dropout, train,
                   bidirectional, batch_first)


def lstm_data_composite(data, batch_sizes, hx, params, has_biases, num_layers, dropout, train,
                        bidirectional):
    check(len(hx) == 2, lambda: "lstm expects two hidden states")
    return _layers("LSTM", data, hx[0], hx[1], params, has_biases, num_layers, dropout, train,
                   bidirectional, False, batch_sizes)


def _two(mode):
    def input_fn(input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
                 batch_first):
        out, hy, _ = _layers(mode, input, hx, None, params, has_biases, num_layers, dropout,
                             train, bidirectional, batch_first)
        return out, hy

    def data_fn(data, batch_sizes, hx, params, has_biases, num_layers, dropout, train,
                bidirectional):
        out, hy, _ = _layers(mode, data, hx, None, params, has_biases, num_layers, dropout,
                             train, bidirectional, False, batch_sizes)
        return out, hy
    return input_fn, data_fn


gru_input_composite, gru_data_composite = _two("GRU")
rnn_tanh_input_composite, rnn_tanh_data_composite = _two("RNN_TANH")
rnn_relu_input_composite, rnn_relu_data_composite = _two("RNN_RELU")


def _check_cell(input, hx, w_ih, w_hh, hname):
    rnn = _impl()
    rnn._check_cell(input, hx, w_ih.shape[1], w_hh.shape[1], hname)


def lstm_cell_composite(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    check(len(hx) == 2, lambda: "lstm_cell expects two hidden states")
    _check_cell(input, hx[0], w_ih, w_hh, "hidden0")
    _check_cell(input, hx[1], w_ih, w_hh, "hidden1")
    rnn = _impl()
    gi = rnn.F.linear(input, w_ih, b_ih)
    return rnn._lstm_step(gi, hx[0], hx[1], w_hh, b_hh, None)


def gru_cell_composite(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    _check_cell(input, hx, w_ih, w_hh, "hidden0")
    rnn = _impl()
    return rnn._gru_step(rnn.F.linear(input, w_ih, b_ih), hx, None, w_hh, b_hh, None)[0]


def _simple_cell(act_name):
    def cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
        _check_cell(input, hx, w_ih, w_hh, "hidden0")
        rnn = _impl()
        act = getattr(rnn._fns, act_name)
        return rnn._rnn_step(act, rnn.F.linear(input, w_ih, b_ih), hx, None, w_hh, b_hh,
                             None)[0]
    return cell


rnn_tanh_cell_composite = _simple_cell("tanh")
rnn_relu_cell_composite = _simple_cell("relu")
