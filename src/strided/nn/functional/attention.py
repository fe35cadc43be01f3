"""torch.nn.functional's attention: ``multi_head_attention_forward`` (and its mask
helpers). ``scaled_dot_product_attention`` is the aten op (ops/native_functions/
nn_attention.yaml, kernels/nn/attention.py), bound with the other generated functions."""

from __future__ import annotations

import math
import warnings

from ...core import dtypes as _dt
from ...ops._generated import torch_functions as _T
from .activation import softmax as _softmax
from .dropout import dropout as _dropout
from .linear import linear as _linear

__all__ = ["multi_head_attention_forward"]


def _pad(t, pad):
    from . import pad as pad_fn
    return pad_fn(t, pad)


def _fail(cond, message):
    if not cond:
        raise AssertionError(message() if callable(message) else message)


def _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads):
    """Whether the inputs are batched; torch's AssertionErrors on ranks that don't fit."""
    qd = query.dim()
    _fail(qd in (2, 3), lambda: "query should be unbatched 2D or batched 3D tensor but "
          f"received {qd}-D query tensor")
    batched = qd == 3
    kind = "batched (3-D)" if batched else "unbatched (2-D)"
    _fail(key.dim() == qd and value.dim() == qd,
          lambda: f"For {kind} `query`, expected `key` and `value` to be {qd}-D but found "
          f"{key.dim()}-D and {value.dim()}-D tensors respectively")
    if key_padding_mask is not None:
        _fail(key_padding_mask.dim() == qd - 1,
              lambda: f"For {kind} `query`, expected `key_padding_mask` to be `None` or "
              f"{qd - 1}-D but found {key_padding_mask.dim()}-D tensor instead")
    if attn_mask is not None:
        _fail(attn_mask.dim() in (2, 3),
              lambda: f"For {kind} `query`, expected `attn_mask` to be `None`, 2-D or 3-D "
              f"but found {attn_mask.dim()}-D tensor instead")
        if not batched and attn_mask.dim() == 3:
            want = (num_heads, query.shape[0], key.shape[0])
            _fail(tuple(attn_mask.shape) == want,
                  lambda: f"Expected `attn_mask` shape to be {want} but got {attn_mask.shape}")
    return batched


def _none_or_dtype(t):
    return None if t is None else t.dtype


def _canonical_mask(mask, mask_name, other_type, other_name, target_type, check_other=True):
    """A bool mask becomes an additive float mask of ``target_type`` (``-inf`` where True);
    float masks pass through; other dtypes are refused."""
    if mask is None:
        return None
    is_float = mask.is_floating_point()
    _fail(mask.dtype == _dt.bool_ or is_float,
          f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype != other_type:
        warnings.warn(f"Support for mismatched {mask_name} and {other_name} is deprecated. "
                      "Use same type for both instead.", stacklevel=3)
    if is_float:
        return mask
    return _T.zeros_like(mask, dtype=target_type).masked_fill_(mask, float("-inf"))


def _split_heads_packed(proj, n, E):
    """(..., n*E) projections -> n contiguous (..., E) tensors, as torch lays them out."""
    p = proj.unflatten(-1, (n, E)).unsqueeze(0).transpose(0, -2).squeeze(-2).contiguous()
    return [p[i] for i in range(n)]


def _in_projection_packed(q, k, v, w, b=None):
    E = q.size(-1)
    if k is v and q is k:
        return _split_heads_packed(_linear(q, w, b), 3, E)
    if k is v:
        w_q, w_kv = w.split([E, 2 * E])
        b_q, b_kv = (None, None) if b is None else b.split([E, 2 * E])
        return [_linear(q, w_q, b_q)] + _split_heads_packed(_linear(k, w_kv, b_kv), 2, E)
    ws = w.chunk(3)
    bs = (None, None, None) if b is None else b.chunk(3)
    return [_linear(x, wi, bi) for x, wi, bi in zip((q, k, v), ws, bs)]


def _in_projection(q, k, v, w_q, w_k, w_v, b_q=None, b_k=None, b_v=None):
    Eq, Ek, Ev = q.size(-1), k.size(-1), v.size(-1)
    for name, w, want in (("query", w_q, (Eq, Eq)), ("key", w_k, (Eq, Ek)),
                          ("value", w_v, (Eq, Ev))):
        _fail(tuple(w.shape) == want,
              lambda name=name, want=want, w=w:
              f"expecting {name} weights shape of {want}, but got {w.shape}")
    for name, b in (("query", b_q), ("key", b_k), ("value", b_v)):
        _fail(b is None or tuple(b.shape) == (Eq,),
              lambda name=name, b=b: f"expecting {name} bias shape of {(Eq,)}, but got {b.shape}")
    return _linear(q, w_q, b_q), _linear(k, w_k, b_k), _linear(v, w_v, b_v)


def _static(t, which, bh, head_dim):
    _fail(t.size(0) == bh, lambda: f"expecting static_{which}.size(0) of {bh}, but got "
          f"{t.size(0)}")
    _fail(t.size(2) == head_dim, lambda: f"expecting static_{which}.size(2) of {head_dim}, "
          f"but got {t.size(2)}")
    return t


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads,
                                 in_proj_weight, in_proj_bias, bias_k, bias_v, add_zero_attn,
                                 dropout_p, out_proj_weight, out_proj_bias, training=True,
                                 key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None,
                                 k_proj_weight=None, v_proj_weight=None, static_k=None,
                                 static_v=None, average_attn_weights=True, is_causal=False):
    """Multi-head attention on (L, N, E) inputs (or unbatched (L, E)), torch's semantics:
    with ``need_weights`` the weights come from ``baddbmm``/``bmm`` + softmax (+ dropout);
    without, the heads go through ``scaled_dot_product_attention``."""
    batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask",
                                       _none_or_dtype(attn_mask), "attn_mask", query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the "
                           "Transformer module method `generate_square_subsequent_mask` to "
                           "create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None    # sdpa builds the causal mask itself
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype,
                                    check_other=False)
        if key_padding_mask is not None:
            is_causal = False
    _fail(embed_dim == embed_dim_to_check,
          lambda: f"was expecting embedding dimension of {embed_dim_to_check}, but got "
          f"{embed_dim}")
    head_dim = embed_dim // num_heads
    _fail(head_dim * num_heads == embed_dim,
          lambda: f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        _fail(key.shape[:2] == value.shape[:2],
              lambda: f"key's sequence and batch dims {key.shape[:2]} do not match value's "
              f"{value.shape[:2]}")
        for name, w in (("q", q_proj_weight), ("k", k_proj_weight), ("v", v_proj_weight)):
            _fail(w is not None,
                  f"use_separate_proj_weight is True but {name}_proj_weight is None")
        bq = bk = bv = None
        if in_proj_bias is not None:
            bq, bk, bv = in_proj_bias.chunk(3)
        q, k, v = _in_projection(query, key, value, q_proj_weight, k_proj_weight,
                                 v_proj_weight, bq, bk, bv)
    else:
        _fail(key.shape == value.shape,
              lambda: f"key shape {key.shape} does not match value shape {value.shape}")
        _fail(in_proj_weight is not None,
              "use_separate_proj_weight is False but in_proj_weight is None")
        q, k, v = _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)

    if attn_mask is not None:
        if attn_mask.dim() == 2:
            if tuple(attn_mask.shape) != (tgt_len, src_len):
                raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but "
                                   f"should be {(tgt_len, src_len)}.")
            attn_mask = attn_mask.unsqueeze(0)
        elif attn_mask.dim() == 3:
            want = (bsz * num_heads, tgt_len, src_len)
            if tuple(attn_mask.shape) != want:
                raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but "
                                   f"should be {want}.")
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")

    if bias_k is not None and bias_v is not None:
        _fail(static_k is None, "bias cannot be added to static key.")
        _fail(static_v is None, "bias cannot be added to static value.")
        k = _T.cat([k, bias_k.repeat(1, bsz, 1)])
        v = _T.cat([v, bias_v.repeat(1, bsz, 1)])
        if attn_mask is not None:
            attn_mask = _pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = _pad(key_padding_mask, (0, 1))
    else:
        _fail(bias_k is None, "bias_k is set but bias_v is None")
        _fail(bias_v is None, "bias_v is set but bias_k is None")

    bh = bsz * num_heads
    q = q.view(tgt_len, bh, head_dim).transpose(0, 1)
    k = k.view(k.shape[0], bh, head_dim).transpose(0, 1) if static_k is None \
        else _static(static_k, "k", bh, head_dim)
    v = v.view(v.shape[0], bh, head_dim).transpose(0, 1) if static_v is None \
        else _static(static_v, "v", bh, head_dim)
    if add_zero_attn:
        k = _T.cat([k, _T.zeros((bh, 1, head_dim), dtype=k.dtype, device=k.device)], dim=1)
        v = _T.cat([v, _T.zeros((bh, 1, head_dim), dtype=v.dtype, device=v.device)], dim=1)
        if attn_mask is not None:
            attn_mask = _pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = _pad(key_padding_mask, (0, 1))
    src_len = k.size(1)

    if key_padding_mask is not None:
        _fail(key_padding_mask.shape[0] == bsz,
              lambda: f"Expected key_padded_mask.shape[0] to be {bsz}, but got "
              f"{key_padding_mask.shape[0]}")
        _fail(key_padding_mask.shape[1] == src_len,
              lambda: f"Expected key_padded_mask.shape[1] to be {src_len}, but got "
              f"{key_padding_mask.shape[1]}")
        kpm = key_padding_mask.view(bsz, 1, 1, src_len).expand(-1, num_heads, -1, -1) \
            .reshape(bh, 1, src_len)
        attn_mask = kpm if attn_mask is None else attn_mask + kpm
    if not training:
        dropout_p = 0.0

    if need_weights:
        E = q.shape[-1]
        q_scaled = q * math.sqrt(1.0 / float(E))
        _fail(not (is_causal and attn_mask is None),
              "FIXME: is_causal not implemented for need_weights")
        kt = k.transpose(-2, -1)
        weights = _T.bmm(q_scaled, kt) if attn_mask is None \
            else _T.baddbmm(attn_mask, q_scaled, kt)
        weights = _softmax(weights, dim=-1)
        if dropout_p > 0.0:
            weights = _dropout(weights, p=dropout_p)
        out = _T.bmm(weights, v).transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        out = _linear(out, out_proj_weight, out_proj_bias)
        out = out.view(tgt_len, bsz, out.size(1))
        weights = weights.view(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(dim=1)
        if not batched:
            out, weights = out.squeeze(1), weights.squeeze(0)
        return out, weights

    if attn_mask is not None:
        attn_mask = attn_mask.unsqueeze(0) if attn_mask.size(0) == 1 and attn_mask.dim() == 3 \
            else attn_mask.view(bsz, num_heads, -1, src_len)
    q = q.view(bsz, num_heads, tgt_len, head_dim)
    k = k.view(bsz, num_heads, src_len, head_dim)
    v = v.view(bsz, num_heads, src_len, head_dim)
    from . import scaled_dot_product_attention as _sdpa
    out = _sdpa(q, k, v, attn_mask, dropout_p, is_causal)
    out = out.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    out = _linear(out, out_proj_weight, out_proj_bias)
    out = out.view(tgt_len, bsz, out.size(1))
    if not batched:
        out = out.squeeze(1)
    return out, None
