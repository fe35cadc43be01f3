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
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_sdpa_errors(name):
    check(lambda m: m.nn.functional.scaled_dot_product_attention(
        *ERRORS[name](m, m.randn(2, 3, 5, 4))))
    check(lambda m: m.nn.functional.scaled_dot_product_attention(
        m.randn(2, 3, 5, 4), m.randn(2, 2, 5, 4), m.randn(2, 2, 5, 4), enable_gqa=True))
