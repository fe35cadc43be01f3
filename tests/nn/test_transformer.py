"""Transformer layers against torch: bit-exact parameters after the same seed, repr,
outputs and every gradient (float64 tight, float32 with tolerance), masks of every kind,
dropout draws, norm_first, activations, bias=False, errors and the nested-tensor warning."""

from __future__ import annotations

import warnings

import pytest
from conftest import check
from test_attention import close


def _params(mod):
    return [p.detach().clone() for p in mod.parameters()], [n for n, _ in mod.named_parameters()]


ENC = {
    "default": (dict(), lambda m, s: dict()),
    "norm_first_gelu": (dict(norm_first=True, activation="gelu"), lambda m, s: dict()),
    "callable_activation": (dict(activation=lambda x: x.tanh()), lambda m, s: dict()),
    "module_activation": (dict(activation="relu", layer_norm_eps=1e-3), lambda m, s: dict()),
    "no_bias": (dict(bias=False), lambda m, s: dict()),
    "batch_first": (dict(batch_first=True), lambda m, s: dict()),
    "causal_mask": (dict(), lambda m, s: dict(
        src_mask=m.nn.Transformer.generate_square_subsequent_mask(5, dtype=s.dtype),
        is_causal=True)),
    "bool_mask": (dict(), lambda m, s: dict(src_mask=m.ones(5, 5, dtype=m.bool).triu(1))),
    "key_padding": (dict(), lambda m, s: dict(
        src_key_padding_mask=m.tensor([[False] * 4 + [True]] * 3))),
    "key_padding_and_mask": (dict(), lambda m, s: dict(
        src_key_padding_mask=m.tensor([[False] * 4 + [True]] * 3),
        src_mask=m.randn(5, 5, dtype=s.dtype))),
}


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", sorted(ENC))
def test_encoder_layer(name, dtype):
    ctor, call = ENC[name]

    def recipe(m):
        m.manual_seed(11)
        d = getattr(m, dtype)
        layer = m.nn.TransformerEncoderLayer(12, 3, 20, dropout=0.2, dtype=d, **ctor)
        params = _params(layer)
        x = m.randn(*((3, 5, 12) if ctor.get("batch_first") else (5, 3, 12)), dtype=d,
                    requires_grad=True)
        y = layer(x, **call(m, x))
        grads = [g.contiguous() for g in m.autograd.grad((y * y).sum(),
                                                          [x] + list(layer.parameters()))]
        r = repr(layer) if not callable(ctor.get("activation")) else ""
        return y, grads, params, r, y.grad_fn.name()
    close(recipe)


DEC = {
    "default": (dict(), lambda m, t, s: dict()),
    "norm_first": (dict(norm_first=True), lambda m, t, s: dict()),
    "masks": (dict(), lambda m, t, s: dict(
        tgt_mask=m.nn.Transformer.generate_square_subsequent_mask(4, dtype=t.dtype),
        memory_mask=m.rand(4, 5) > 0.8,
        tgt_key_padding_mask=m.tensor([[False] * 3 + [True]] * 2),
        memory_key_padding_mask=m.tensor([[False] * 4 + [True]] * 2))),
    "causal_flag": (dict(activation="gelu"), lambda m, t, s: dict(
        tgt_mask=m.nn.Transformer.generate_square_subsequent_mask(4, dtype=t.dtype),
        tgt_is_causal=True)),
}


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", sorted(DEC))
def test_decoder_layer(name, dtype):
    ctor, call = DEC[name]

    def recipe(m):
        m.manual_seed(12)
        d = getattr(m, dtype)
        layer = m.nn.TransformerDecoderLayer(8, 2, 16, dropout=0.1, dtype=d, **ctor)
        params = _params(layer)
        t = m.randn(4, 2, 8, dtype=d, requires_grad=True)
        s = m.randn(5, 2, 8, dtype=d, requires_grad=True)
        y = layer(t, s, **call(m, t, s))
        grads = [g.contiguous() for g in m.autograd.grad((y * y).sum(),
                                                          [t, s] + list(layer.parameters()))]
        return y, grads, params, repr(layer), y.grad_fn.name()
    close(recipe)


@pytest.mark.parametrize("batch_first", [False, True])
def test_transformer(batch_first):
    def recipe(m):
        m.manual_seed(13)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tr = m.nn.Transformer(8, 2, 2, 1, 16, dropout=0.1, batch_first=batch_first,
                                  dtype=m.float64)
        params = _params(tr)
        shp = (lambda L: (2, L, 8)) if batch_first else (lambda L: (L, 2, 8))
        src = m.randn(*shp(5), dtype=m.float64, requires_grad=True)
        tgt = m.randn(*shp(4), dtype=m.float64, requires_grad=True)
        y = tr(src, tgt, tgt_mask=tr.generate_square_subsequent_mask(4, dtype=m.float64),
               src_key_padding_mask=m.tensor([[False] * 4 + [True]] * 2))
        grads = [g.contiguous() for g in m.autograd.grad((y * y).sum(),
                                                          [src, tgt] + list(tr.parameters()))]
        tr.eval()
        y2 = tr(src, tgt)
        return y, y2, grads, params, repr(tr)
    close(recipe)


def test_encoder_stack_and_unbatched():
    def recipe(m):
        m.manual_seed(14)
        layer = m.nn.TransformerEncoderLayer(8, 2, 16, dtype=m.float64)
        enc = m.nn.TransformerEncoder(layer, 2, norm=m.nn.LayerNorm(8, dtype=m.float64),
                                      enable_nested_tensor=False)
        x = m.randn(5, 8, dtype=m.float64, requires_grad=True)
        y = enc(x, mask=enc.layers[0].self_attn.in_proj_weight.new_zeros(5, 5))
        y2 = enc(x, mask=m.nn.Transformer.generate_square_subsequent_mask(5, dtype=m.float64))
        g = m.autograd.grad(y.sum() + y2.sum(), x)
        return y, y2, g, repr(enc), _params(enc)
    close(recipe)


def test_square_subsequent_mask():
    check(lambda m: m.nn.Transformer.generate_square_subsequent_mask(4))
    check(lambda m: m.nn.Transformer.generate_square_subsequent_mask(3, dtype=m.float64))


NESTED = {
    "norm_first": dict(norm_first=True),
    "batch_first_false": dict(),
    "odd_heads": dict(batch_first=True, nhead=1),
    "activation": dict(batch_first=True, activation=lambda x: x),
    "bias": dict(batch_first=True, bias=False),
    "ok": dict(batch_first=True),
}


@pytest.mark.parametrize("name", sorted(NESTED))
def test_enable_nested_tensor_warning(name):
    kw = dict(NESTED[name])
    nhead = kw.pop("nhead", 2)

    def recipe(m):
        enc = m.nn.TransformerEncoder(m.nn.TransformerEncoderLayer(8, nhead, 16, **kw), 1)
        return enc.use_nested_tensor, enc.enable_nested_tensor
    check(recipe)


ERRORS = {
    "activation": lambda m: m.nn.TransformerEncoderLayer(8, 2, activation="tanh"),
    "batch": lambda m: m.nn.Transformer(8, 2, 1, 1, 16)(m.randn(5, 3, 8), m.randn(4, 2, 8)),
    "features": lambda m: m.nn.Transformer(8, 2, 1, 1, 16)(m.randn(5, 3, 8), m.randn(4, 3, 6)),
    "mask_dtype": lambda m: m.nn.TransformerEncoderLayer(8, 2, 16)(
        m.randn(5, 3, 8), src_mask=m.zeros(5, 5, dtype=m.long)),
    "heads": lambda m: m.nn.TransformerEncoderLayer(8, 3, 16),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors(name):
    def recipe(m):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ERRORS[name](m)
    check(recipe)


@pytest.mark.parametrize("padding", ["right", "middle", "none"])
def test_inference_paths(padding):
    """Eval mode without grad: torch's fused attention returns a contiguous batch-first
    output, and its nested-tensor encoder path zeroes the padded (right-aligned) tokens."""
    rows = {"right": [False] * 4 + [True], "middle": [False, False, True, False, False],
            "none": None}[padding]

    def recipe(m):
        m.manual_seed(15)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            enc = m.nn.TransformerEncoder(
                m.nn.TransformerEncoderLayer(8, 2, 16, batch_first=True, dtype=m.float64), 2,
                norm=m.nn.LayerNorm(8, dtype=m.float64)).eval()
            x = m.randn(3, 5, 8, dtype=m.float64)
            kpm = None if rows is None else m.tensor([rows] * 3)
            with m.no_grad():
                y = enc(x, src_key_padding_mask=kpm)
                a, w = enc.layers[0].self_attn(x, x, x, key_padding_mask=kpm)
            return y, a, w
    close(recipe)
