"""RNN / LSTM / GRU, the cells and nn.utils.rnn against torch: bit-exact parameters after the
same seed, outputs, final states, every gradient (input, initial states, parameters), packed
and padded sequences, dropout between layers, grad_fn names of the cells, errors and reprs."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import strided
from tests.conftest import assert_same_error, check, hyp

TOL = {"float64": (1e-10, 1e-12), "float32": (2e-4, 2e-5)}


def _np(t):
    return t.detach().numpy() if isinstance(t, torch.Tensor) else t.detach().numpy()


def _close(a, b, dtype, what=""):
    rtol, atol = TOL[dtype]
    assert tuple(a.shape) == tuple(b.shape), (what, a.shape, b.shape)
    np.testing.assert_allclose(_np(a), _np(b), rtol=rtol, atol=atol, err_msg=what)


def _flat(h):
    return list(h) if isinstance(h, tuple) else [h]


def _run_module(m, cls, args, kwargs, dtype, x_shape, hx_shapes=None, seed=0, train=False):
    m.manual_seed(seed)
    mod = getattr(m.nn, cls)(*args, **kwargs).to(getattr(m, dtype))
    mod.train(train)
    x = (m.arange(float(np.prod(x_shape)), dtype=getattr(m, dtype)).reshape(x_shape) * 0.37
         ).sin().requires_grad_()
    leaves = [x]
    hx = None
    if hx_shapes is not None:
        hs = [(m.arange(float(np.prod(s)), dtype=getattr(m, dtype)).reshape(s) * 0.21 + k
               ).cos().requires_grad_() for k, s in enumerate(hx_shapes)]
        leaves += hs
        hx = tuple(hs) if len(hs) == 2 else hs[0]
    out = mod(x) if hx is None else mod(x, hx)
    if isinstance(out, tuple):
        o, h = out
        res = [o] + _flat(h)
    else:
        res = [out]
    loss = sum((r * r.cos()).sum() for r in res)
    loss.backward()
    params = [p for _, p in mod.named_parameters()]
    return mod, res, [v.grad for v in leaves], params, [p.grad for p in params]


def _compare_module(cls, args, kwargs, dtype, x_shape, hx_shapes=None, train=False):
    ms, rs, gs, ps, pgs = _run_module(strided, cls, args, kwargs, dtype, x_shape, hx_shapes,
                                      train=train)
    mt, rt, gt, pt, pgt = _run_module(torch, cls, args, kwargs, dtype, x_shape, hx_shapes,
                                      train=train)
    assert repr(ms) == repr(mt)
    assert [n for n, _ in ms.named_parameters()] == [n for n, _ in mt.named_parameters()]
    for a, b in zip(ps, pt, strict=True):
        np.testing.assert_array_equal(_np(a), _np(b), strict=True)  # bit-exact init
    for k, (a, b) in enumerate(zip(rs, rt, strict=True)):
        _close(a, b, dtype, f"result {k}")
    for k, (a, b) in enumerate(zip(gs, gt, strict=True)):
        _close(a, b, dtype, f"input grad {k}")
    names = [n for n, _ in mt.named_parameters()]
    for n, a, b in zip(names, pgs, pgt, strict=True):
        _close(a, b, dtype, f"grad of {n}")


CONFIGS = [
    ("RNN", {}),
    ("RNN", {"nonlinearity": "relu", "num_layers": 2}),
    ("RNN", {"bias": False, "bidirectional": True}),
    ("GRU", {}),
    ("GRU", {"num_layers": 2, "bidirectional": True, "batch_first": True}),
    ("GRU", {"bias": False}),
    ("LSTM", {}),
    ("LSTM", {"num_layers": 2, "bidirectional": True}),
    ("LSTM", {"proj_size": 2, "num_layers": 2, "batch_first": True}),
    ("LSTM", {"proj_size": 3, "bias": False, "bidirectional": True}),
]


def _state_shapes(cls, kw, batch):
    dirs = 2 if kw.get("bidirectional") else 1
    layers = kw.get("num_layers", 1)
    h = kw.get("proj_size", 0) or 5
    shapes = [(layers * dirs,) + ((batch,) if batch else ()) + (h,)]
    if cls == "LSTM":
        shapes.append((layers * dirs,) + ((batch,) if batch else ()) + (5,))
    return shapes


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("cls,kw", CONFIGS, ids=lambda v: str(v))
@pytest.mark.parametrize("with_hx", [False, True])
def test_recurrent_layers(cls, kw, dtype, with_hx):
    shape = (2, 4, 3) if kw.get("batch_first") else (4, 2, 3)
    hx = _state_shapes(cls, kw, 2) if with_hx else None
    _compare_module(cls, (3, 5), kw, dtype, shape, hx)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("cls,kw", CONFIGS[::3], ids=lambda v: str(v))
def test_unbatched_input(cls, kw, dtype):
    _compare_module(cls, (3, 5), kw, dtype, (4, 3), _state_shapes(cls, kw, None))
    _compare_module(cls, (3, 5), kw, dtype, (4, 3))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("cls", ["RNN", "GRU", "LSTM"])
def test_dropout_between_layers_draws_as_torch(cls, dtype):
    # training mode, dropout after layers 0 and 1: the masks come from the same generator
    _compare_module(cls, (3, 5), {"num_layers": 3, "dropout": 0.4, "bidirectional": True},
                    dtype, (4, 2, 3), train=True)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("cls", ["RNN", "GRU", "LSTM"])
def test_non_contiguous_input_and_state(cls, dtype):
    res = []
    for m in (strided, torch):
        m.manual_seed(1)
        mod = getattr(m.nn, cls)(3, 4, batch_first=True).to(getattr(m, dtype))
        base = (m.arange(60.0, dtype=getattr(m, dtype)).reshape(5, 3, 4) * 0.2).sin()
        x = base[:, :, ::2].transpose(0, 2).transpose(1, 2)[:, :, :3]  # (2, 5, 3) strided
        x = x.detach().requires_grad_()
        h = m.full((2, 1, 4), 0.5, dtype=getattr(m, dtype)).transpose(0, 1)  # (1, 2, 4)
        hx = (h, h * 3) if cls == "LSTM" else h
        out, hy = mod(x.transpose(0, 1).contiguous().transpose(0, 1), hx)
        (out.sum() + sum(t.sum() for t in _flat(hy))).backward()
        res.append([out, *_flat(hy), x.grad, *[p.grad for p in mod.parameters()]])
    for a, b in zip(*res, strict=True):
        _close(a, b, dtype)


def test_copy_and_pickle_keep_working():
    import copy
    import io
    m = strided.nn.LSTM(3, 4, 2)
    x = strided.ones(2, 1, 3)
    expected = m(x)[0]
    buf = io.BytesIO()
    strided.save(m, buf)
    buf.seek(0)
    for other in (copy.deepcopy(m), strided.load(buf, weights_only=False)):
        _close(other(x)[0], expected, "float32")
        assert other._flat_weights_names == m._flat_weights_names


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("cls,kw", [("RNNCell", {}), ("RNNCell", {"nonlinearity": "relu"}),
                                    ("RNNCell", {"bias": False}), ("GRUCell", {}),
                                    ("GRUCell", {"bias": False}), ("LSTMCell", {}),
                                    ("LSTMCell", {"bias": False})], ids=lambda v: str(v))
def test_cells(cls, kw, dtype):
    hx = [(2, 5)] * (2 if cls == "LSTMCell" else 1)
    _compare_module(cls, (3, 5), kw, dtype, (2, 3), hx)
    _compare_module(cls, (3, 5), kw, dtype, (2, 3))
    _compare_module(cls, (3, 5), kw, dtype, (3,), [(5,)] * len(hx))


@pytest.mark.parametrize("cls", ["RNNCell", "GRUCell", "LSTMCell"])
def test_cell_grad_fn_names(cls):
    names = []
    for m in (strided, torch):
        m.manual_seed(0)
        out = getattr(m.nn, cls)(3, 4)(m.ones(2, 3))
        names.append([o.grad_fn.name() for o in _flat(out)])
    assert names[0] == names[1]


@pytest.mark.parametrize("cls,kw", CONFIGS, ids=lambda v: str(v))
@pytest.mark.parametrize("enforce_sorted", [True, False])
def test_packed_sequences(cls, kw, enforce_sorted):
    lengths = [4, 3, 1] if enforce_sorted else [3, 4, 1]
    results = []
    for m in (strided, torch):
        m.manual_seed(0)
        mod = getattr(m.nn, cls)(3, 5, **{k: v for k, v in kw.items() if k != "batch_first"})
        mod = mod.double()
        x = (m.arange(36.0, dtype=m.float64).reshape(4, 3, 3) * 0.3).sin().requires_grad_()
        packed = m.nn.utils.rnn.pack_padded_sequence(x, lengths,
                                                     enforce_sorted=enforce_sorted)
        out, h = mod(packed)
        assert type(out).__name__ == "PackedSequence"
        padded, lens = m.nn.utils.rnn.pad_packed_sequence(out, total_length=5)
        loss = (padded * padded.sin()).sum() + sum((t * t).sum() for t in _flat(h))
        loss.backward()
        results.append([packed.data, out.data, padded, *_flat(h), x.grad,
                        *[p.grad for p in mod.parameters()]]
                       + [lens, packed.batch_sizes])
    for a, b in zip(*results, strict=True):
        _close(a, b, "float64")


def _seqs(m):
    return [(m.arange(float(n * 2), dtype=m.float64).reshape(n, 2) + n) for n in (3, 1, 4)]


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("side", ["right", "left"])
def test_pad_sequence(batch_first, side):
    check(lambda m: m.nn.utils.rnn.pad_sequence(_seqs(m), batch_first=batch_first,
                                                padding_value=-2.5, padding_side=side))


def test_pack_unpack_round_trips():
    check(lambda m: m.nn.utils.rnn.unpack_sequence(
        m.nn.utils.rnn.pack_sequence(_seqs(m), enforce_sorted=False)))
    check(lambda m: tuple(m.nn.utils.rnn.pack_sequence(_seqs(m), enforce_sorted=False)))
    check(lambda m: m.nn.utils.rnn.pad_packed_sequence(
        m.nn.utils.rnn.pack_sequence(_seqs(m), enforce_sorted=False), batch_first=True,
        padding_value=7.0))
    check(lambda m: m.nn.utils.rnn.unpad_sequence(
        m.nn.utils.rnn.pad_sequence(_seqs(m)), m.tensor([3, 1, 4])))


def test_pack_errors():
    def unsorted(m):
        return m.nn.utils.rnn.pack_sequence(_seqs(m))
    assert_same_error(lambda: unsorted(strided), lambda: unsorted(torch))

    def short_total(m):
        p = m.nn.utils.rnn.pack_sequence(_seqs(m), enforce_sorted=False)
        return m.nn.utils.rnn.pad_packed_sequence(p, total_length=2)
    assert_same_error(lambda: short_total(strided), lambda: short_total(torch))


def _call(cls, x_shape, hx_shapes=None, dtype="float32", **kw):
    def recipe(m):
        m.manual_seed(0)
        mod = getattr(m.nn, cls)(3, 5, **kw)
        x = m.zeros(x_shape, dtype=getattr(m, dtype))
        if hx_shapes is None:
            return mod(x)
        hs = [m.zeros(s) for s in hx_shapes]
        return mod(x, tuple(hs) if len(hs) == 2 else hs[0])
    return recipe


@pytest.mark.parametrize("recipe", [
    _call("RNN", (2, 2, 2, 3)),
    _call("LSTM", (3,)),
    _call("GRU", (4, 2, 4)),
    _call("RNN", (4, 2, 3), [(1, 3, 5)]),
    _call("GRU", (4, 2, 3), [(2, 5)]),
    _call("GRU", (4, 3), [(1, 1, 5)]),
    _call("LSTM", (4, 2, 3), [(1, 2, 5), (1, 2, 4)]),
    _call("LSTM", (4, 2, 3), [(1, 2, 5), (2, 5)]),
    _call("LSTM", (4, 3), [(1, 1, 5), (1, 1, 5)]),
    _call("GRU", (4, 2, 3), dtype="float64"),
    _call("RNNCell", (2, 4)),
    _call("RNNCell", (2, 3), [(3, 5)]),
    _call("GRUCell", (2, 3), [(2, 4)]),
    _call("LSTMCell", (2, 3), [(2, 5), (2, 6)]),
    _call("LSTMCell", (2, 2, 3)),
    _call("GRUCell", (2, 3), [(1, 2, 5)]),
], ids=lambda r: "")
def test_errors(recipe):
    rs, rt = check(recipe, exact=False)
    assert rs is None and rt is None  # every recipe here raises


@pytest.mark.parametrize("args", [
    ("RNN", (3, 5), {"num_layers": 2, "nonlinearity": "relu", "batch_first": True}),
    ("LSTM", (3, 5), {"proj_size": 2, "bias": False, "bidirectional": True,
                      "dropout": 0.5, "num_layers": 2}),
    ("GRU", (3, 5), {}),
    ("RNNCell", (3, 5), {"bias": False, "nonlinearity": "relu"}),
    ("LSTMCell", (3, 5), {}),
    ("GRUCell", (3, 5), {"bias": False}),
])
def test_repr_and_parameters(args):
    cls, a, kw = args
    mods = []
    for m in (strided, torch):
        m.manual_seed(3)
        mods.append(getattr(m.nn, cls)(*a, **kw))
    assert repr(mods[0]) == repr(mods[1])
    ps, pt = dict(mods[0].named_parameters()), dict(mods[1].named_parameters())
    assert list(ps) == list(pt)
    for n in pt:
        np.testing.assert_array_equal(_np(ps[n]), _np(pt[n]), strict=True)
    if cls in ("RNN", "LSTM", "GRU"):
        mods[0].flatten_parameters()
        assert [[tuple(w.shape) for w in ws] for ws in mods[0].all_weights] == \
            [[tuple(w.shape) for w in ws] for ws in mods[1].all_weights]


def test_constructor_errors():
    for kw in ({"dropout": 1.5}, {"proj_size": 5}, {"num_layers": 0}, {"bias": 1}):
        check(lambda m, kw=kw: m.nn.LSTM(3, 5, **kw))
    check(lambda m: m.nn.GRU(3, 5, proj_size=2))
    check(lambda m: m.nn.RNN(3, 5, nonlinearity="gelu"))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("cls", ["RNN", "GRU", "LSTM"])
@pytest.mark.parametrize("kw", [{}, {"batch_first": True},
                                {"bidirectional": True, "num_layers": 2}],
                         ids=lambda v: str(v))
def test_layer_grad_fn_names(cls, kw, dtype):
    # float32 LSTM layers are mkldnn_rnn_layer nodes, as torch's oneDNN path records them
    names = []
    for m in (strided, torch):
        m.manual_seed(0)
        mod = getattr(m.nn, cls)(3, 4, **kw).to(getattr(m, dtype))
        out, h = mod(m.ones(4, 2, 3, dtype=getattr(m, dtype), requires_grad=True))
        names.append([out.grad_fn.name()] + [t.grad_fn.name() for t in _flat(h)])
    assert names[0] == names[1]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_lstm_double_backward(dtype):
    res = []
    for m in (strided, torch):
        m.manual_seed(0)
        mod = m.nn.LSTM(3, 4, 2, bidirectional=True).to(getattr(m, dtype))
        x = (m.arange(24.0, dtype=getattr(m, dtype)).reshape(4, 2, 3) * 0.3).sin()
        x.requires_grad_()
        out, (h, c) = mod(x)
        loss = (out * out).sum() + (c * c).sum()
        gx, gw = m.autograd.grad(loss, [x, mod.weight_hh_l0], create_graph=True)
        (gx.pow(2).sum() + gw.sum()).backward()
        res.append([gx, gw, x.grad, mod.weight_ih_l0.grad, mod.weight_hh_l1_reverse.grad])
    for a, b in zip(*res, strict=True):
        _close(a, b, dtype)


def test_mkldnn_rnn_layer_op():
    # the op itself, called as torch.mkldnn_rnn_layer: outputs and gradients
    res = []
    for m in (strided, torch):
        m.manual_seed(0)
        w = [(m.rand(s) - 0.5).requires_grad_() for s in ((16, 3), (16, 4), (16,), (16,))]
        x = m.rand(5, 2, 3, requires_grad=True)
        h0 = m.rand(2, 4, requires_grad=True)
        c0 = m.rand(2, 4, requires_grad=True)
        out, hy, cy, _ = m.mkldnn_rnn_layer(x, *w, h0, c0, True, [], 2, 4, 1, True, False,
                                            False, True)
        ((out * out).sum() + hy.sum() + (cy * 2).sum()).backward()
        res.append([out, hy, cy, x.grad, h0.grad, c0.grad] + [t.grad for t in w])
    for a, b in zip(*res, strict=True):
        _close(a, b, "float32")


def _weights(m, gates, inp, hid, dtype):
    shapes = ((gates * hid, inp), (gates * hid, hid), (gates * hid,), (gates * hid,))
    return [((m.arange(float(np.prod(s)), dtype=dtype).reshape(s) * 0.13).sin() / 2
             ).requires_grad_() for s in shapes]


@pytest.mark.parametrize("op,gates", [("lstm", 4), ("gru", 3), ("rnn_tanh", 1),
                                      ("rnn_relu", 1)])
@pytest.mark.parametrize("packed", [False, True])
def test_aten_recurrences(op, gates, packed):
    # torch.lstm / gru / rnn_tanh / rnn_relu, the .input and .data overloads
    res = []
    for m in (strided, torch):
        w = _weights(m, gates, 3, 4, m.float64)
        x = (m.arange(24.0, dtype=m.float64).reshape(4, 2, 3) * 0.3).cos().requires_grad_()
        h0 = m.full((1, 2, 4), 0.1, dtype=m.float64, requires_grad=True)
        hx = [h0, h0 * 2] if op == "lstm" else h0
        if packed:
            p = m.nn.utils.rnn.pack_padded_sequence(x, [4, 3])
            out = getattr(m, op)(p.data, p.batch_sizes, hx, w, True, 1, 0.0, False, False)
        else:
            out = getattr(m, op)(x, hx, w, True, 1, 0.0, False, False, False)
        sum((t * t).sum() for t in out).backward()
        res.append(list(out) + [x.grad, h0.grad] + [t.grad for t in w])
    for a, b in zip(*res, strict=True):
        _close(a, b, "float64")


@pytest.mark.parametrize("op,gates", [("lstm_cell", 4), ("gru_cell", 3), ("rnn_tanh_cell", 1),
                                      ("rnn_relu_cell", 1)])
def test_aten_cells(op, gates):
    res = []
    for m in (strided, torch):
        w = _weights(m, gates, 3, 4, m.float64)
        x = (m.arange(6.0, dtype=m.float64).reshape(2, 3) * 0.3).cos().requires_grad_()
        h0 = m.full((2, 4), 0.3, dtype=m.float64, requires_grad=True)
        hx = [h0, h0 * 2] if op == "lstm_cell" else h0
        out = getattr(m, op)(x, hx, *w)
        outs = list(out) if isinstance(out, tuple) else [out]
        sum((t * t).sum() for t in outs).backward()
        res.append(outs + [x.grad, h0.grad] + [t.grad for t in w])
        res.append([t.grad_fn.name() for t in outs])
    assert res[1] == res[3]
    for a, b in zip(res[0], res[2], strict=True):
        _close(a, b, "float64")


@hyp(12)
@given(cls=st.sampled_from(["RNN", "GRU", "LSTM"]), steps=st.integers(1, 4),
       batch=st.integers(1, 3), inp=st.integers(1, 4), hidden=st.integers(2, 4),
       layers=st.integers(1, 2), bidirectional=st.booleans(),
       dtype=st.sampled_from(["float32", "float64"]))
def test_shapes_hypothesis(cls, steps, batch, inp, hidden, layers, bidirectional, dtype):
    kw = {"num_layers": layers, "bidirectional": bidirectional}
    ms, rs, gs, ps, pgs = _run_module(strided, cls, (inp, hidden), kw, dtype,
                                      (steps, batch, inp))
    mt, rt, gt, pt, pgt = _run_module(torch, cls, (inp, hidden), kw, dtype,
                                      (steps, batch, inp))
    for a, b in zip(rs + gs + ps + pgs, rt + gt + pt + pgt, strict=True):
        _close(a, b, dtype)
