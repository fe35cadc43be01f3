"""Attention against torch: F.scaled_dot_product_attention (torch's CPU backend choice, the
flash kernel and the math path, their graphs, gradients, masks, dropout draws and errors),
F.multi_head_attention_forward and nn.MultiheadAttention."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from conftest import _strided_values, _torch_values, check

import strided


def close(recipe, rtol=1e-9, atol=1e-11):
    """``recipe`` on both libraries: same structure, shapes, strides, dtypes, names; values
    within tolerance (torch's fused kernels sum in another order)."""
    rt = recipe(torch)
    rs = recipe(strided)
    _close(rs, rt, rtol, atol)
    return rs, rt


def _close(rs, rt, rtol, atol):
    if isinstance(rt, torch.Tensor):
        assert isinstance(rs, strided.Tensor), type(rs)
        assert tuple(rs.shape) == tuple(rt.shape), (rs.shape, rt.shape)
        assert tuple(rs.stride()) == tuple(rt.stride()), (rs.stride(), rt.stride())
        assert str(rs.dtype) == str(rt.dtype), (rs.dtype, rt.dtype)
        assert rs.requires_grad == rt.requires_grad
        if rt.device.type != "meta":
            tol = (1e-4, 1e-5) if rt.dtype == torch.float32 else (rtol, atol)
            np.testing.assert_allclose(_strided_values(rs), _torch_values(rt), rtol=tol[0],
                                       atol=tol[1], equal_nan=True)
    elif isinstance(rt, (tuple, list)):
        assert len(rs) == len(rt)
        for a, b in zip(rs, rt):
            _close(a, b, rtol, atol)
    else:
        assert rs == rt, (rs, rt)


def _qkv(m, dtype, qs=(2, 3, 5, 4), ks=(2, 3, 6, 4), vs=(2, 3, 6, 4)):
    d = getattr(m, dtype)
    return (m.randn(*qs, dtype=d, requires_grad=True), m.randn(*ks, dtype=d, requires_grad=True),
            m.randn(*vs, dtype=d, requires_grad=True))


SDPA = {
    "plain": lambda m, q, k, v: dict(),
    "causal": lambda m, q, k, v: dict(is_causal=True),
    "bool_mask_2d": lambda m, q, k, v: dict(attn_mask=m.rand(5, 6) > 0.3),
    "bool_mask_4d": lambda m, q, k, v: dict(attn_mask=m.rand(2, 1, 5, 6) > 0.3),
    "bool_mask_3d": lambda m, q, k, v: dict(attn_mask=m.rand(3, 5, 6) > 0.3),
    "float_mask": lambda m, q, k, v: dict(attn_mask=m.randn(5, 6, dtype=q.dtype)),
    "float_mask_bcast": lambda m, q, k, v: dict(attn_mask=m.randn(1, 6, dtype=q.dtype)),
    "float32_mask": lambda m, q, k, v: dict(attn_mask=m.randn(2, 3, 5, 6)),
    "mask_and_causal": lambda m, q, k, v: dict(attn_mask=m.randn(5, 6, dtype=q.dtype),
                                               is_causal=True),
    "dead_rows": lambda m, q, k, v: dict(attn_mask=m.tensor([True, False, True, True, False])
                                         [:, None].expand(5, 6).contiguous()),
    "scale": lambda m, q, k, v: dict(scale=0.7),
    "negative_scale": lambda m, q, k, v: dict(scale=-0.4),
    "dropout": lambda m, q, k, v: dict(dropout_p=0.3),
    "dropout_causal": lambda m, q, k, v: dict(dropout_p=0.5, is_causal=True),
}


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", sorted(SDPA))
def test_sdpa(name, dtype):
    def recipe(m):
        m.manual_seed(3)
        q, k, v = _qkv(m, dtype)
        kw = SDPA[name](m, q, k, v)
        o = m.nn.functional.scaled_dot_product_attention(q, k, v, **kw)
        g = m.autograd.grad((o * o).sum(), (q, k, v))
        return o, g, o.grad_fn.name()
    close(recipe)


SHAPES = {
    "3d": ((3, 5, 4), (3, 6, 4), (3, 6, 4)),
    "5d": ((2, 2, 2, 5, 4), (2, 2, 6, 4), (2, 2, 6, 4)),
    "value_dim": ((2, 3, 5, 4), (2, 3, 6, 4), (2, 3, 6, 7)),
    "broadcast_heads": ((2, 3, 5, 4), (2, 1, 6, 4), (2, 1, 6, 4)),
}


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_sdpa_shapes(name):
    def recipe(m):
        m.manual_seed(4)
        q, k, v = _qkv(m, "float64", *SHAPES[name])
        o = m.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
        g = m.autograd.grad((o * o).sum(), (q, k, v))
        return o, g, o.grad_fn.name()
    close(recipe)


@pytest.mark.parametrize("dropout", [0.0, 0.2])
@pytest.mark.parametrize("kv_heads", [1, 3])
def test_sdpa_gqa(kv_heads, dropout):
    def recipe(m):
        m.manual_seed(4)
        q, k, v = _qkv(m, "float64", (2, 6, 5, 4), (2, kv_heads, 7, 4), (2, kv_heads, 7, 4))
        o = m.nn.functional.scaled_dot_product_attention(q, k, v, enable_gqa=True,
                                                         dropout_p=dropout)
        g = m.autograd.grad((o * o).sum(), (q, k, v))
        return o, g, o.grad_fn.name()
    close(recipe)


def test_sdpa_non_contiguous_and_mask_grad():
    def recipe(m):
        m.manual_seed(4)
        q, k, v = _qkv(m, "float64", (2, 3, 4, 5), (2, 3, 4, 6), (2, 3, 6, 4))
        mask = m.randn(5, 6, dtype=m.float64, requires_grad=True)
        o = m.nn.functional.scaled_dot_product_attention(q.transpose(-1, -2),
                                                         k.transpose(-1, -2), v,
                                                         attn_mask=mask)
        g = m.autograd.grad((o * o).sum(), (q, k, v, mask))
        return o, g, o.grad_fn.name()
    close(recipe)


def test_sdpa_no_grad_and_meta():
    check(lambda m: m.nn.functional.scaled_dot_product_attention(
        *[m.empty(2, 3, 5, 4, device="meta")] * 3, is_causal=True))
    check(lambda m: m.nn.functional.scaled_dot_product_attention(
        m.ones(2, 5, 4), m.ones(2, 6, 4), m.ones(2, 6, 3)))


ERRORS = {
    "dtype": lambda m, q: (q, q.double(), q),
    "dims": lambda m, q: (q[0, 0, 0], q[0, 0, 0], q[0, 0, 0]),
    "mask_dtype": lambda m, q: (q, q, q, m.ones(5, 5, dtype=m.long)),
    "mask_shape": lambda m, q: (q, q, q, m.ones(4, 5)),
    "heads": lambda m, q: (q, q[:, :2], q[:, :2]),
    "dropout_p": lambda m, q: (q[0], q[0], q[0], None, 2.0),
    "math_mask_and_causal": lambda m, q: (q[0], q[0], q[0], m.ones(5, 5), 0.0, True),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_sdpa_errors(name):
    check(lambda m: m.nn.functional.scaled_dot_product_attention(
        *ERRORS[name](m, m.randn(2, 3, 5, 4))))
    check(lambda m: m.nn.functional.scaled_dot_product_attention(
        m.randn(2, 3, 5, 4), m.randn(2, 2, 5, 4), m.randn(2, 2, 5, 4), enable_gqa=True))


# -- MultiheadAttention / multi_head_attention_forward -----------------------------------------

MHA = {
    "self": (dict(), lambda m, x, y: dict()),
    "self_batch_first": (dict(batch_first=True), lambda m, x, y: dict()),
    "causal_bool": (dict(), lambda m, x, y: dict(attn_mask=m.ones(5, 5, dtype=m.bool).triu(1))),
    "causal_hint_no_weights": (dict(), lambda m, x, y: dict(
        attn_mask=m.ones(5, 5, dtype=m.bool).triu(1), is_causal=True, need_weights=False)),
    "float_mask_3d": (dict(), lambda m, x, y: dict(attn_mask=m.randn(6, 5, 5,
                                                                       dtype=x.dtype))),
    "key_padding": (dict(), lambda m, x, y: dict(
        key_padding_mask=m.tensor([[False, False, True, False, True]] * 3))),
    "key_padding_and_mask": (dict(), lambda m, x, y: dict(
        key_padding_mask=m.tensor([[False, False, True, False, True]] * 3),
        attn_mask=m.ones(5, 5, dtype=m.bool).triu(1))),
    "key_padding_no_weights": (dict(), lambda m, x, y: dict(
        key_padding_mask=m.tensor([[False, False, True, False, True]] * 3),
        need_weights=False)),
    "no_weights": (dict(), lambda m, x, y: dict(need_weights=False)),
    "per_head_weights": (dict(), lambda m, x, y: dict(average_attn_weights=False)),
    "bias_kv_zero_attn": (dict(add_bias_kv=True, add_zero_attn=True), lambda m, x, y: dict(
        key_padding_mask=m.tensor([[False, False, True, False, True]] * 3),
        attn_mask=m.ones(5, 5, dtype=m.bool).triu(1))),
    "no_bias": (dict(bias=False), lambda m, x, y: dict()),
    "kdim_vdim": (dict(kdim=4, vdim=3), lambda m, x, y: dict()),
    "dropout": (dict(dropout=0.3), lambda m, x, y: dict()),
    "dropout_no_weights": (dict(dropout=0.3), lambda m, x, y: dict(need_weights=False)),
}


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", sorted(MHA))
def test_multihead_attention(name, dtype):
    ctor, call = MHA[name]

    def recipe(m):
        m.manual_seed(7)
        d = getattr(m, dtype)
        mha = m.nn.MultiheadAttention(6, 2, dtype=d, **ctor)
        params = [p.detach().clone() for p in mha.parameters()]
        bf = ctor.get("batch_first", False)
        x = m.randn(*((3, 5, 6) if bf else (5, 3, 6)), dtype=d, requires_grad=True)
        kd, vd = ctor.get("kdim", 6), ctor.get("vdim", 6)
        if "kdim" in ctor:
            k = m.randn(5, 3, kd, dtype=d, requires_grad=True)
            v = m.randn(5, 3, vd, dtype=d, requires_grad=True)
        else:
            k = v = x
        out, w = mha(x, k, v, **call(m, x, None))
        loss = (out * out).sum() + (0 if w is None else (w * w).sum())
        # (contiguous: strided's mm backward does not keep torch's column-major grad layout)
        grads = [g.contiguous() for g in m.autograd.grad(loss, [x] + list(mha.parameters()))]
        return out, w, grads, params, [n for n, _ in mha.named_parameters()], repr(mha), \
            out.grad_fn.name()
    close(recipe)


def test_multihead_attention_unbatched_and_cross():
    def recipe(m):
        m.manual_seed(1)
        mha = m.nn.MultiheadAttention(4, 2, dtype=m.float64)
        q = m.randn(3, 4, dtype=m.float64, requires_grad=True)
        kv = m.randn(5, 4, dtype=m.float64, requires_grad=True)
        o1, w1 = mha(q, kv, kv, key_padding_mask=m.tensor([False, True, False, False, False]))
        o2, w2 = mha(q, kv, kv * 2, attn_mask=m.randn(2, 3, 5, dtype=m.float64))
        mha.eval()
        o3, _ = mha(q, kv, kv)
        g = m.autograd.grad(o1.sum() + o2.sum() + w1.sum() + w2.sum(), (q, kv))
        return o1, w1, o2, w2, o3, g
    close(recipe)


MHA_ERRORS = {
    "rank": lambda m, a, x: a(x[0, 0], x[0, 0], x[0, 0]),
    "key_rank": lambda m, a, x: a(x, x[0], x[0]),
    "kpm_rank": lambda m, a, x: a(x, x, x, key_padding_mask=m.zeros(5, dtype=m.bool)),
    "mask_rank": lambda m, a, x: a(x, x, x, attn_mask=m.zeros(5, dtype=m.bool)),
    "mask_2d_shape": lambda m, a, x: a(x, x, x, attn_mask=m.zeros(4, 5, dtype=m.bool)),
    "mask_3d_shape": lambda m, a, x: a(x, x, x, attn_mask=m.zeros(2, 5, 5, dtype=m.bool)),
    "mask_dtype": lambda m, a, x: a(x, x, x, attn_mask=m.zeros(5, 5, dtype=m.long)),
    "causal_no_mask": lambda m, a, x: a(x, x, x, is_causal=True),
    "embed_dim": lambda m, a, x: a(x[..., :4], x[..., :4], x[..., :4]),
    "kv_shape": lambda m, a, x: a(x, x, x[:4]),
    "kpm_shape": lambda m, a, x: a(x, x, x, key_padding_mask=m.zeros(3, 4, dtype=m.bool)),
    "ctor_heads": lambda m, a, x: m.nn.MultiheadAttention(6, 4),
    "ctor_zero": lambda m, a, x: m.nn.MultiheadAttention(0, 4),
}


@pytest.mark.parametrize("name", sorted(MHA_ERRORS))
def test_multihead_attention_errors(name):
    def recipe(m):
        a = m.nn.MultiheadAttention(6, 2)
        return MHA_ERRORS[name](m, a, m.randn(5, 3, 6))
    check(recipe)


def test_mismatched_mask_warning_and_functional():
    def recipe(m):
        m.manual_seed(2)
        a = m.nn.MultiheadAttention(6, 2, dtype=m.float64)
        x = m.randn(5, 3, 6, dtype=m.float64)
        out, w = a(x, x, x, key_padding_mask=m.zeros(3, 5, dtype=m.bool),
                   attn_mask=m.zeros(5, 5, dtype=m.float64))
        out2, w2 = m.nn.functional.multi_head_attention_forward(
            x, x, x, 6, 2, a.in_proj_weight, a.in_proj_bias, None, None, False, 0.0,
            a.out_proj.weight, a.out_proj.bias, training=False,
            static_k=m.randn(6, 5, 3, dtype=m.float64), static_v=m.randn(6, 5, 3,
                                                                         dtype=m.float64))
        return out.detach(), w.detach(), out2.detach(), w2.detach()
    check(recipe, exact=False)


def test_merge_masks():
    def recipe(m):
        m.manual_seed(3)
        a = m.nn.MultiheadAttention(6, 2, batch_first=True)
        q = m.randn(3, 4, 6)
        am = m.randn(4, 4)
        kpm = m.randn(3, 4)
        return (a.merge_masks(None, None, q), a.merge_masks(None, kpm, q),
                a.merge_masks(am, None, q), a.merge_masks(am, kpm, q),
                a.merge_masks(m.randn(6, 4, 4), kpm, q))
    check(recipe)
