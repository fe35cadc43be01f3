"""torch.nn.modules.rnn: RNNBase, RNN, LSTM, GRU and the single-step cells RNNCell, LSTMCell,
GRUCell.

Parameters are made and named as torch makes them (``weight_ih_l0``, ``weight_hh_l0_reverse``,
``bias_ih_l1``, ``weight_hr_l0``...), in torch's order, and ``reset_parameters`` draws
``uniform_(-1/sqrt(hidden_size), 1/sqrt(hidden_size))`` over them in that order, so that after
the same ``manual_seed`` the parameters are bit-identical.

The recurrences are written over public strided ops so autograd records the graph. As torch's
CPU path does, a layer computes its input-to-hidden projection for every time step at once (one
``linear`` over the whole sequence) and loops over time only for the hidden-to-hidden part. Each
step combines the gates in torch's order of operations (Note [RNN cell arithmetic] below), so
float64 results agree with torch's to the last bits that the matmuls allow.

Note [RNN cell arithmetic]
  rnn:  h' = act(linear(h, w_hh, b_hh) + gi)
  lstm: gates = linear(h, w_hh, b_hh) + gi, chunked (in, forget, cell, out);
        c' = forget * c + in * cell;  h' = out * tanh(c')  (then h' @ w_hr.T with projections)
  gru:  r = sigmoid(hr + ir); z = sigmoid(hz + iz); n = tanh(in + hn * r);
        h' = (h - n) * z + n
where ``gi = linear(x, w_ih, b_ih)``.
"""

from __future__ import annotations

import math
import numbers
import warnings
import weakref

from ...ops._generated import torch_functions as _fns
from .. import functional as F
from .. import init
from ..parameter import Parameter
from ..utils.rnn import PackedSequence
from .module import Module

__all__ = ["GRU", "GRUCell", "LSTM", "LSTMCell", "RNN", "RNNBase", "RNNCell", "RNNCellBase"]


def _dtype(name):
    import strided
    return getattr(strided, name)


def _apply_permutation(tensor, permutation, dim: int = 1):
    return tensor.index_select(dim, permutation)


# -- one step of each cell (Note [RNN cell arithmetic]) ----------------------------------------

def _rnn_step(act, gi, h, c, w_hh, b_hh, w_hr):
    return act(F.linear(h, w_hh, b_hh) + gi), None


def _lstm_step(gi, h, c, w_hh, b_hh, w_hr):
    gates = F.linear(h, w_hh, b_hh) + gi
    i, f, g, o = gates.chunk(4, 1)
    i = i.sigmoid()
    f = f.sigmoid()
    g = g.tanh()
    o = o.sigmoid()
    cy = f * c + i * g
    hy = o * cy.tanh()
    if w_hr is not None:
        hy = _fns.matmul(hy, w_hr.t())
    return hy, cy


def _gru_step(gi, h, c, w_hh, b_hh, w_hr):
    ir, iz, in_ = gi.chunk(3, 1)
    hr, hz, hn = F.linear(h, w_hh, b_hh).chunk(3, 1)
    r = (hr + ir).sigmoid()
    z = (hz + iz).sigmoid()
    n = (in_ + hn * r).tanh()
    return (h - n) * z + n, None


def _step_fn(mode):
    if mode == "LSTM":
        return _lstm_step
    if mode == "GRU":
        return _gru_step
    act = _fns.tanh if mode == "RNN_TANH" else _fns.relu
    return lambda gi, h, c, w_hh, b_hh, w_hr: _rnn_step(act, gi, h, c, w_hh, b_hh, w_hr)


# -- one direction of one layer ------------------------------------------------------------------

def _run_dense(step, pre, h, c, w, reverse):
    """``pre``: (T, B, G) input projections; returns (output (T, B, H), h, c)."""
    steps = pre.unbind(0)
    order = range(len(steps) - 1, -1, -1) if reverse else range(len(steps))
    outs = [None] * len(steps)
    for t in order:
        h, c = step(steps[t], h, c, *w)
        outs[t] = h
    if not outs:
        return pre.new_empty((0, h.shape[0], h.shape[1])), h, c
    return _fns.stack(outs, 0), h, c


def _run_packed(step, pre, h0, c0, w, reverse, sizes):
    """``pre``: (N, G) packed projections, ``sizes``: batch sizes as ints."""
    offsets = [0]
    for s in sizes:
        offsets.append(offsets[-1] + s)
    outs = []
    if not reverse:
        h, c = h0, c0
        h_done, c_done = [], []
        cur = sizes[0]
        for t, bs in enumerate(sizes):
            if bs < cur:
                h_done.append(h[bs:cur])
                h = h[:bs]
                if c is not None:
                    c_done.append(c[bs:cur])
                    c = c[:bs]
                cur = bs
            h, c = step(pre[offsets[t]:offsets[t + 1]], h, c, *w)
            outs.append(h)
        h_done.append(h)
        hy = _fns.cat(h_done[::-1], 0)
        cy = None
        if c is not None:
            c_done.append(c)
            cy = _fns.cat(c_done[::-1], 0)
        return _fns.cat(outs, 0), hy, cy
    cur = sizes[-1]
    h = h0[:cur]
    c = None if c0 is None else c0[:cur]
    for t in range(len(sizes) - 1, -1, -1):
        bs = sizes[t]
        if bs > cur:
            h = _fns.cat([h, h0[cur:bs]], 0)
            if c is not None:
                c = _fns.cat([c, c0[cur:bs]], 0)
            cur = bs
        h, c = step(pre[offsets[t]:offsets[t + 1]], h, c, *w)
        outs.append(h)
    return _fns.cat(outs[::-1], 0), h, c


def _rnn_impl(mode, input, hx, cx, weights, has_biases, num_layers, dropout, train,
              bidirectional, batch_first, batch_sizes=None):
    """The multi-layer recurrence (torch's ``_VF.rnn_tanh/rnn_relu/lstm/gru``): returns
    ``(output, h_n, c_n)`` with ``c_n`` None except for LSTM."""
    step = _step_fn(mode)
    num_dirs = 2 if bidirectional else 1
    per = (4 if has_biases else 2)
    has_proj = mode == "LSTM" and len(weights) == num_layers * num_dirs * (per + 1)
    if has_proj:
        per += 1
    packed = batch_sizes is not None
    # torch's CPU LSTM runs float32 layers through oneDNN, one mkldnn_rnn_layer per layer and
    # direction (MkldnnRnnLayerBackward0); projections and packed input take the generic path
    fused = (mode == "LSTM" and not has_proj and not packed
             and input.dtype == _dtype("float32") and input.device.type == "cpu"
             and input.numel() != 0)
    if packed:
        sizes = [int(s) for s in batch_sizes.tolist()]
    elif batch_first:
        input = input.transpose(0, 1)
    layer_input = input
    hs, cs = [], []
    for layer in range(num_layers):
        dir_outs = []
        for d in range(num_dirs):
            idx = layer * num_dirs + d
            ws = weights[idx * per:(idx + 1) * per]
            w_ih, w_hh = ws[0], ws[1]
            b_ih = ws[2] if has_biases else None
            b_hh = ws[3] if has_biases else None
            w_hr = ws[-1] if has_proj else None
            h0 = hx[idx]
            c0 = cx[idx] if cx is not None else None
            if fused:
                gate = w_ih.shape[0]
                zeros = None if has_biases else w_ih.new_zeros(gate)
                out, h, c, _ = _fns.mkldnn_rnn_layer(
                    layer_input, w_ih, w_hh, b_ih if has_biases else zeros,
                    b_hh if has_biases else zeros, h0, c0, d == 1, [], 2, w_hh.shape[1],
                    num_layers, has_biases, bidirectional, False, train)
                dir_outs.append(out)
                hs.append(h)
                cs.append(c)
                continue
            pre = F.linear(layer_input, w_ih, b_ih)
            w = (w_hh, b_hh, w_hr)
            if packed:
                out, h, c = _run_packed(step, pre, h0, c0, w, d == 1, sizes)
            else:
                out, h, c = _run_dense(step, pre, h0, c0, w, d == 1)
            dir_outs.append(out)
            hs.append(h)
            cs.append(c)
        out = dir_outs[0] if num_dirs == 1 else _fns.cat(dir_outs, -1)
        if dropout != 0 and train and layer < num_layers - 1:
            out = F.dropout(out, dropout, True)
        layer_input = out
    output = layer_input
    if not packed and batch_first:
        # torch's rnn_tanh/rnn_relu/gru transpose their result in place (TransposeBackward1);
        # lstm returns a transposed view (TransposeBackward0)
        output = output.transpose(0, 1) if mode == "LSTM" else output.transpose_(0, 1)
    hy = _fns.stack(hs, 0)
    cy = _fns.stack(cs, 0) if cx is not None else None
    return output, hy, cy


class RNNBase(Module):
    """The shared constructor, parameter layout, checks and repr of RNN, LSTM and GRU."""

    __constants__ = ["mode", "input_size", "hidden_size", "num_layers", "bias", "batch_first",
                     "dropout", "bidirectional", "proj_size"]
    __jit_unused_properties__ = ["all_weights"]

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1,
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, proj_size: int = 0, device=None,
                 dtype=None) -> None:
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        self._flat_weight_refs = []
        num_directions = 2 if bidirectional else 1
        if (not isinstance(dropout, numbers.Number) or isinstance(dropout, bool)
                or not 0 <= dropout <= 1):
            raise ValueError("dropout should be a number in range [0, 1] representing the "
                             "probability of an element being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so "
                          "non-zero dropout expects num_layers greater than 1, but got "
                          f"dropout={dropout} and num_layers={num_layers}", stacklevel=2)
        for name, value, kind in (("bias", bias, bool), ("batch_first", batch_first, bool),
                                  ("input_size", input_size, int)):
            if not isinstance(value, kind):
                raise TypeError(f"{name} should be of type {kind.__name__}, got: "
                                f"{type(value).__name__}")
            if name == "input_size" and input_size <= 0:
                raise ValueError("input_size must be greater than zero")
        if not isinstance(hidden_size, int):
            raise TypeError(f"hidden_size should be of type int, got: "
                            f"{type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable "
                             "projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        gate_size = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}.get(mode)
        if gate_size is None:
            raise ValueError("Unrecognized RNN mode: " + mode)
        gate_size *= hidden_size
        self._flat_weights_names = []
        self._all_weights = []
        real_hidden_size = proj_size if proj_size > 0 else hidden_size
        for layer in range(num_layers):
            for direction in range(num_directions):
                layer_input_size = (input_size if layer == 0
                                    else real_hidden_size * num_directions)
                w_ih = Parameter(_fns.empty((gate_size, layer_input_size), **factory_kwargs))
                w_hh = Parameter(_fns.empty((gate_size, real_hidden_size), **factory_kwargs))
                b_ih = Parameter(_fns.empty(gate_size, **factory_kwargs))
                b_hh = Parameter(_fns.empty(gate_size, **factory_kwargs))
                params = [w_ih, w_hh] + ([b_ih, b_hh] if bias else [])
                names = ["weight_ih_l{}{}", "weight_hh_l{}{}"]
                if bias:
                    names += ["bias_ih_l{}{}", "bias_hh_l{}{}"]
                if proj_size > 0:
                    params.append(Parameter(_fns.empty((proj_size, hidden_size),
                                                       **factory_kwargs)))
                    names.append("weight_hr_l{}{}")
                suffix = "_reverse" if direction == 1 else ""
                names = [n.format(layer, suffix) for n in names]
                for name, param in zip(names, params, strict=True):
                    setattr(self, name, param)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self._init_flat_weights()
        self.reset_parameters()

    def _init_flat_weights(self) -> None:
        self._flat_weights = [getattr(self, wn) if hasattr(self, wn) else None
                              for wn in self._flat_weights_names]
        self._flat_weight_refs = [weakref.ref(w) if w is not None else None
                                  for w in self._flat_weights]
        self.flatten_parameters()

    def __setattr__(self, attr, value) -> None:
        if hasattr(self, "_flat_weights_names") and attr in self._flat_weights_names:
            self._flat_weights[self._flat_weights_names.index(attr)] = value
        super().__setattr__(attr, value)

    def flatten_parameters(self) -> None:
        """Packs the weights into one buffer for cuDNN in torch; here (CPU) nothing to do."""

    def _apply(self, fn, recurse=True):
        self._flat_weight_refs = []
        ret = super()._apply(fn, recurse)
        self._init_flat_weights()
        return ret

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def check_input(self, input, batch_sizes) -> None:
        w0 = self._flat_weights[0]
        if input.dtype != w0.dtype:
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype "
                             f"({w0.dtype}). Convert input: input.to({w0.dtype}), or convert "
                             f"model: model.to({input.dtype})")
        expected_input_dim = 2 if batch_sizes is not None else 3
        if input.dim() != expected_input_dim:
            raise RuntimeError(f"input must have {expected_input_dim} dimensions, got "
                               f"{input.dim()}")
        if self.input_size != input.size(-1):
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected "
                               f"{self.input_size}, got {input.size(-1)}")

    def get_expected_hidden_size(self, input, batch_sizes):
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = input.size(0) if self.batch_first else input.size(1)
        num_directions = 2 if self.bidirectional else 1
        size = self.proj_size if self.proj_size > 0 else self.hidden_size
        return (self.num_layers * num_directions, mini_batch, size)

    def check_hidden_size(self, hx, expected_hidden_size,
                          msg: str = "Expected hidden size {}, got {}") -> None:
        if hx.size() != expected_hidden_size:
            raise RuntimeError(msg.format(expected_hidden_size, list(hx.size())))

    def _weights_have_changed(self):
        for ref, name in zip(self._flat_weight_refs, self._flat_weights_names, strict=True):
            weight = getattr(self, name) if hasattr(self, name) else None
            if weight is not None and ref is not None and ref() is not weight:
                return True
        return False

    def check_forward_args(self, input, hidden, batch_sizes) -> None:
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    def permute_hidden(self, hx, permutation):
        if permutation is None:
            return hx
        return _apply_permutation(hx, permutation)

    def extra_repr(self) -> str:
        s = "{input_size}, {hidden_size}"
        if self.proj_size != 0:
            s += ", proj_size={proj_size}"
        if self.num_layers != 1:
            s += ", num_layers={num_layers}"
        if self.bias is not True:
            s += ", bias={bias}"
        if self.batch_first is not False:
            s += ", batch_first={batch_first}"
        if self.dropout != 0:
            s += ", dropout={dropout}"
        if self.bidirectional is not False:
            s += ", bidirectional={bidirectional}"
        return s.format(**self.__dict__)

    def _update_flat_weights(self) -> None:
        if self._weights_have_changed():
            self._init_flat_weights()

    def __getstate__(self):
        self._update_flat_weights()
        state = self.__dict__.copy()
        del state["_flat_weight_refs"]
        return state

    def __setstate__(self, d):
        super().__setstate__(d)
        if "all_weights" in d:
            self._all_weights = d["all_weights"]
        if "proj_size" not in d:
            self.proj_size = 0
        self._flat_weights = [getattr(self, wn) if hasattr(self, wn) else None
                              for wn in self._flat_weights_names]
        self._flat_weight_refs = [weakref.ref(w) if w is not None else None
                                  for w in self._flat_weights]

    @property
    def all_weights(self):
        return [[getattr(self, weight) for weight in weights] for weights in self._all_weights]

    def _replicate_for_data_parallel(self):
        replica = super()._replicate_for_data_parallel()
        replica._flat_weights = replica._flat_weights[:]
        replica._flat_weights_names = replica._flat_weights_names[:]
        return replica

    # -- the shared forward ----------------------------------------------------------------

    def _forward(self, input, hx, name):
        self._update_flat_weights()
        lstm = self.mode == "LSTM"
        num_directions = 2 if self.bidirectional else 1
        real_hidden_size = self.proj_size if self.proj_size > 0 else self.hidden_size
        orig_input = input
        batch_sizes = None
        is_batched = True
        batch_dim = 0 if self.batch_first else 1
        sorted_indices = unsorted_indices = None

        def zeros(size):
            return _fns.zeros(self.num_layers * num_directions, max_batch_size, size,
                              dtype=input.dtype, device=input.device)

        if isinstance(orig_input, PackedSequence):
            input, batch_sizes, sorted_indices, unsorted_indices = input
            max_batch_size = int(batch_sizes[0])
            if hx is None:
                hx = (zeros(real_hidden_size), zeros(self.hidden_size)) if lstm \
                    else zeros(self.hidden_size)
            else:
                hx = self.permute_hidden(hx, sorted_indices)
        else:
            if input.dim() not in (2, 3):
                tail = " instead" if name != "RNN" else " tensor instead"
                raise ValueError(f"{name}: Expected input to be 2D or 3D, got "
                                 f"{input.dim()}D{tail}")
            is_batched = input.dim() == 3
            if not is_batched:
                input = input.unsqueeze(batch_dim)
            if lstm:
                if hx is not None:
                    if is_batched:
                        if hx[0].dim() != 3 or hx[1].dim() != 3:
                            raise RuntimeError(
                                "For batched 3-D input, hx and cx should also be 3-D but got "
                                f"({hx[0].dim()}-D, {hx[1].dim()}-D) tensors")
                    else:
                        if hx[0].dim() != 2 or hx[1].dim() != 2:
                            raise RuntimeError(
                                "For unbatched 2-D input, hx and cx should also be 2-D but got "
                                f"({hx[0].dim()}-D, {hx[1].dim()}-D) tensors")
                        hx = (hx[0].unsqueeze(1), hx[1].unsqueeze(1))
            elif hx is not None:
                if not is_batched:
                    if hx.dim() != 2:
                        raise RuntimeError("For unbatched 2-D input, hx should also be 2-D but "
                                           f"got {hx.dim()}-D tensor")
                    hx = hx.unsqueeze(1)
                elif hx.dim() != 3:
                    raise RuntimeError("For batched 3-D input, hx should also be 3-D but got "
                                       f"{hx.dim()}-D tensor")
            max_batch_size = input.size(0) if self.batch_first else input.size(1)
            if hx is None:
                hx = (zeros(real_hidden_size), zeros(self.hidden_size)) if lstm \
                    else zeros(self.hidden_size)
        self.check_forward_args(input, hx, batch_sizes)
        op = {"LSTM": _fns.lstm, "GRU": _fns.gru, "RNN_TANH": _fns.rnn_tanh,
              "RNN_RELU": _fns.rnn_relu}[self.mode]
        hx_arg = list(hx) if lstm else hx
        if batch_sizes is None:
            result = op(input, hx_arg, self._flat_weights, self.bias, self.num_layers,
                        self.dropout, self.training, self.bidirectional, self.batch_first)
        else:
            result = op(input, batch_sizes, hx_arg, self._flat_weights, self.bias,
                        self.num_layers, self.dropout, self.training, self.bidirectional)
        output = result[0]
        hy = result[1]
        cy = result[2] if lstm else None
        hidden = (hy, cy) if lstm else hy
        if isinstance(orig_input, PackedSequence):
            output_packed = PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices)
            return output_packed, self.permute_hidden(hidden, unsorted_indices)
        if not is_batched:
            output = output.squeeze(batch_dim)
            hidden = (hy.squeeze(1), cy.squeeze(1)) if lstm else hy.squeeze(1)
        return output, self.permute_hidden(hidden, unsorted_indices)


class RNN(RNNBase):
    """``RNN(input_size, hidden_size, num_layers=1, nonlinearity='tanh', bias=True,
    batch_first=False, dropout=0.0, bidirectional=False, device=None, dtype=None)``:
    ``h_t = act(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)``."""

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif self.nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' "
                             "or 'relu'.")
        super().__init__(mode, *args, **kwargs)

    def forward(self, input, hx=None):
        return self._forward(input, hx, "RNN")


class LSTM(RNNBase):
    """``LSTM(input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
    dropout=0.0, bidirectional=False, proj_size=0, device=None, dtype=None)``."""

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)

    def get_expected_cell_size(self, input, batch_sizes):
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = input.size(0) if self.batch_first else input.size(1)
        num_directions = 2 if self.bidirectional else 1
        return (self.num_layers * num_directions, mini_batch, self.hidden_size)

    def check_forward_args(self, input, hidden, batch_sizes) -> None:
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden[0], self.get_expected_hidden_size(input, batch_sizes),
                               "Expected hidden[0] size {}, got {}")
        self.check_hidden_size(hidden[1], self.get_expected_cell_size(input, batch_sizes),
                               "Expected hidden[1] size {}, got {}")

    def permute_hidden(self, hx, permutation):
        if permutation is None:
            return hx
        return (_apply_permutation(hx[0], permutation), _apply_permutation(hx[1], permutation))

    def forward(self, input, hx=None):
        return self._forward(input, hx, "LSTM")


class GRU(RNNBase):
    """``GRU(input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
    dropout=0.0, bidirectional=False, device=None, dtype=None)``."""

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    def forward(self, input, hx=None):
        return self._forward(input, hx, "GRU")


# -- cells -------------------------------------------------------------------------------------

def _check_cell(input, hx, input_size, hidden_size, hname):
    if input.size(1) != input_size:
        raise RuntimeError(f"input has inconsistent input_size: got {input.size(1)} expected "
                           f"{input_size}")
    if input.size(0) != hx.size(0):
        raise RuntimeError(f"Input batch size {input.size(0)} doesn't match {hname} batch size "
                           f"{hx.size(0)}")
    if hx.size(1) != hidden_size:
        raise RuntimeError(f"{hname} has inconsistent hidden_size: got {hx.size(1)}, expected "
                           f"{hidden_size}")


class RNNCellBase(Module):
    """The parameters (``weight_ih``, ``weight_hh``, ``bias_ih``, ``bias_hh``) and repr shared
    by the cells."""

    __constants__ = ["input_size", "hidden_size", "bias"]

    def __init__(self, input_size: int, hidden_size: int, bias: bool, num_chunks: int,
                 device=None, dtype=None) -> None:
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(_fns.empty((num_chunks * hidden_size, input_size),
                                              **factory_kwargs))
        self.weight_hh = Parameter(_fns.empty((num_chunks * hidden_size, hidden_size),
                                              **factory_kwargs))
        if bias:
            self.bias_ih = Parameter(_fns.empty(num_chunks * hidden_size, **factory_kwargs))
            self.bias_hh = Parameter(_fns.empty(num_chunks * hidden_size, **factory_kwargs))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self) -> str:
        s = "{input_size}, {hidden_size}"
        if "bias" in self.__dict__ and self.bias is not True:
            s += ", bias={bias}"
        if "nonlinearity" in self.__dict__ and self.nonlinearity != "tanh":
            s += ", nonlinearity={nonlinearity}"
        return s.format(**self.__dict__)

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _prepare(self, input, hx, name, lstm=False):
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if hx is not None:
            if lstm:
                for idx, value in enumerate(hx):
                    if value.dim() not in (1, 2):
                        raise ValueError(f"{name}: Expected hx[{idx}] to be 1D or 2D, got "
                                         f"{value.dim()}D instead")
            elif hx.dim() not in (1, 2):
                raise ValueError(f"{name}: Expected hidden to be 1D or 2D, got {hx.dim()}D "
                                 "instead")
        is_batched = input.dim() == 2
        if not is_batched:
            input = input.unsqueeze(0)
        if hx is None:
            zeros = _fns.zeros(input.size(0), self.hidden_size, dtype=input.dtype,
                               device=input.device)
            hx = (zeros, zeros) if lstm else zeros
        elif not is_batched:
            hx = (hx[0].unsqueeze(0), hx[1].unsqueeze(0)) if lstm else hx.unsqueeze(0)
        return input, hx, is_batched


class RNNCell(RNNCellBase):
    """``RNNCell(input_size, hidden_size, bias=True, nonlinearity='tanh', device=None,
    dtype=None)``: one step ``h' = act(x W_ih^T + b_ih + h W_hh^T + b_hh)``."""

    __constants__ = ["input_size", "hidden_size", "bias", "nonlinearity"]

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 nonlinearity: str = "tanh", device=None, dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device,
                         dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        input, hx, is_batched = self._prepare(input, hx, "RNNCell")
        if self.nonlinearity not in ("tanh", "relu"):
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        op = _fns.rnn_tanh_cell if self.nonlinearity == "tanh" else _fns.rnn_relu_cell
        ret = op(input, hx, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        return ret if is_batched else ret.squeeze(0)


class LSTMCell(RNNCellBase):
    """``LSTMCell(input_size, hidden_size, bias=True, device=None, dtype=None)``: one LSTM
    step, returning ``(h', c')``."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None,
                 dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device,
                         dtype=dtype)

    def forward(self, input, hx=None):
        input, hx, is_batched = self._prepare(input, hx, "LSTMCell", lstm=True)
        h, c = _fns.lstm_cell(input, list(hx), self.weight_ih, self.weight_hh, self.bias_ih,
                              self.bias_hh)
        if not is_batched:
            return h.squeeze(0), c.squeeze(0)
        return h, c


class GRUCell(RNNCellBase):
    """``GRUCell(input_size, hidden_size, bias=True, device=None, dtype=None)``: one GRU
    step."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None,
                 dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device,
                         dtype=dtype)

    def forward(self, input, hx=None):
        input, hx, is_batched = self._prepare(input, hx, "GRUCell")
        ret = _fns.gru_cell(input, hx, self.weight_ih, self.weight_hh, self.bias_ih,
                            self.bias_hh)
        return ret if is_batched else ret.squeeze(0)

