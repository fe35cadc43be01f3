"""Kernels: attention.

``_scaled_dot_product_flash_attention_for_cpu`` is the fused kernel torch's CPU
``scaled_dot_product_attention`` picks for 4-d inputs without dropout: here one batched
matmul for ``Q K^T``, a row softmax (its log-sum-exp kept for the backward), one batched
matmul with ``V``. The backward recomputes the probabilities from the log-sum-exp.
``_safe_softmax`` is the softmax of the math path: rows that are entirely ``-inf`` give
zeros instead of NaN.
"""

from __future__ import annotations

import math

import numpy as np

from ...core import dtypes as dt
from ...core.checks import check, maybe_wrap_dim
from ..factory import empty

_LOW = (dt.float16, dt.bfloat16)


def _opmath(dtype):
    return np.dtype(np.float32) if dtype in _LOW else dtype.np


def _is_meta(t):
    return t._device.type == "meta"


def _arr(t, npdt):
    return np.asarray(t._array(), dtype=npdt)


def _t(a, *_axes):
    """``a`` with its last two axes swapped, C-contiguous (NumPy's batched matmul is several
    times slower on a transposed operand than the copy costs)."""
    return np.ascontiguousarray(np.swapaxes(a, -1, -2))


def _store(res, value):
    if res.numel():
        np.copyto(res._array(), np.asarray(value).reshape(res._sizes), casting="unsafe")


def _scores(q, k, mask, is_causal, scale, npdt):
    """``scale * Q K^T`` plus the mask (float mask added, causal mask as ``-inf``)."""
    s = np.matmul(q * npdt.type(scale), _t(k, -1, -2))
    if mask is not None:
        s += mask
    if is_causal:
        s += _causal_bias(s.shape[-2], s.shape[-1], npdt)
    return s


_CAUSAL = {}


def _causal_bias(L, S, npdt):
    """(L, S) additive mask: 0 on and below the diagonal, -inf above (cached)."""
    key = (L, S, npdt)
    bias = _CAUSAL.get(key)
    if bias is None:
        bias = np.where(np.tri(L, S, dtype=bool), npdt.type(0), npdt.type(-np.inf))
        bias.flags.writeable = False
        if len(_CAUSAL) > 64:
            _CAUSAL.clear()
        _CAUSAL[key] = bias
    return bias


def _check_flash(query, key, value, dropout_p):
    check(query.dim() == 4 and key.dim() == 4 and value.dim() == 4,
          lambda: "scaled_dot_product_attention_flash_attention: Accept only 4 dims inputs "
          "shape of {B, H, T, K}")
    check(dropout_p == 0.0, "scaled_dot_product_attention_flash_attention: Currently "
          "do not support dropout > 0")
    check(query.size(3) == value.size(3) and key.size(3) == value.size(3),
          "scaled_dot_product_attention_flash_attention: Q/K/V should have the same head size")


def _heads_inner(t):
    """A tensor like ``t`` (B, H, L, E) laid out as (B, L, H, E), as torch's kernel
    writes its gradients."""
    B, H, L, E = t._sizes
    return empty((B, L, H, E), t._dtype, device=t._device).transpose(1, 2)


def _scale_of(query, scale):
    return scale if scale is not None else 1.0 / math.sqrt(query.size(-1))


def sdpa_flash_cpu(query, key, value, dropout_p=0.0,
                                                is_causal=False, attn_mask=None,
                                                scale=None):
    _check_flash(query, key, value, dropout_p)
    B, H, L, _ = query._sizes
    out = empty((B, H, L, value.size(3)), query._dtype, device=query._device)
    lse_dtype = dt.float32 if query._dtype in _LOW else query._dtype
    lse = empty((B, L, H), lse_dtype, device=query._device).permute(0, 2, 1)
    if _is_meta(query) or out.numel() == 0:
        return out, lse
    npdt = _opmath(query._dtype)
    q, k, v = _arr(query, npdt), _arr(key, npdt), _arr(value, npdt)
    rep = query.size(1) // key.size(1)
    if rep != 1:
        k, v = np.repeat(k, rep, axis=1), np.repeat(v, rep, axis=1)
    mask = None if attn_mask is None else _arr(attn_mask, npdt)
    with np.errstate(all="ignore"):
        s = _scores(q, k, mask, is_causal, _scale_of(query, scale), npdt)
        m = s.max(axis=-1, keepdims=True)
        m[~np.isfinite(m)] = 0
        np.subtract(s, m, out=s)
        np.exp(s, out=s)
        den = s.sum(axis=-1, keepdims=True)
        dead = den == 0
        den[dead] = 1
        s *= 1 / den
        o = np.matmul(s, v)
        lg = np.log(den) + m
    _store(out, o)
    _store(lse, lg[..., 0])
    return out, lse


def sdpa_flash_cpu_backward(grad_out, query, key, value, out,
                                                         logsumexp, dropout_p, is_causal,
                                                         attn_mask=None, scale=None):
    _check_flash(query, key, value, dropout_p)
    gq, gk, gv = (_heads_inner(t) for t in (query, key, value))
    if _is_meta(query) or query.numel() == 0 or key.numel() == 0:
        return gq, gk, gv
    npdt = _opmath(query._dtype)
    q, k, v = _arr(query, npdt), _arr(key, npdt), _arr(value, npdt)
    rep = query.size(1) // key.size(1)
    if rep != 1:
        k, v = np.repeat(k, rep, axis=1), np.repeat(v, rep, axis=1)
    do, o = _arr(grad_out, npdt), _arr(out, npdt)
    mask = None if attn_mask is None else _arr(attn_mask, npdt)
    sc = npdt.type(_scale_of(query, scale))
    with np.errstate(all="ignore"):
        p = _scores(q, k, mask, is_causal, sc, npdt)
        p -= _arr(logsumexp, npdt)[..., None]
        np.exp(p, out=p)
        dv = np.matmul(np.swapaxes(p, -1, -2), do)
        dp = np.matmul(do, _t(v, -1, -2))
        dp -= np.einsum("...d,...d->...", do, o)[..., None]
        dp *= p
        dq = np.matmul(dp, k)
        dq *= sc
        dk = np.matmul(np.swapaxes(dp, -1, -2), q)
        dk *= sc
    if rep != 1:
        B, H, S = dk.shape[0], dk.shape[1] // rep, dk.shape[2]
        dk = dk.reshape(B, H, rep, S, -1).sum(axis=2)
        dv = dv.reshape(B, H, rep, S, -1).sum(axis=2)
    _store(gq, dq)
    _store(gk, dk)
    _store(gv, dv)
    return gq, gk, gv


def safe_softmax(self, dim, dtype=None):
    out_dtype = dtype if dtype is not None else self._dtype
    dim = maybe_wrap_dim(dim, self.dim())
    out = empty(self._sizes, out_dtype, device=self._device)
    if _is_meta(self) or out.numel() == 0:
        return out
    npdt = _opmath(out_dtype)
    x = np.array(self._array(), dtype=npdt)
    with np.errstate(all="ignore"):
        m = x.max(axis=dim, keepdims=True) if x.ndim else x
        dead = np.isneginf(m)
        m = np.where(dead, 0, m)
        np.subtract(x, m, out=x)
        np.exp(x, out=x)
        x /= x.sum(axis=dim, keepdims=True)
        x = np.where(dead, 0, x)
    _store(out, x)
    return out


# -- scaled_dot_product_attention: torch's CPU backend choice and its math path ---------------

_CPP_NAMES = {
    "float16": "c10::Half", "bfloat16": "c10::BFloat16", "float32": "float",
    "float64": "double", "int64": "long int", "int32": "int", "int16": "short int",
    "int8": "signed char", "uint8": "unsigned char", "bool": "bool",
    "complex64": "c10::complex<float>", "complex128": "c10::complex<double>",
}


def _cpp(dtype):
    return _CPP_NAMES.get(dtype.name, dtype.name)


def _aten():
    from ... import ops
    return ops.aten


def _torch():
    from ...ops._generated import torch_functions
    return torch_functions


def _validate_sdpa(query, key, value, attn_mask):
    check(query._dtype == key._dtype and query._dtype == value._dtype,
          lambda: "Expected query, key, and value to have the same dtype, but got query.dtype: "
          f"{_cpp(query._dtype)} key.dtype: {_cpp(key._dtype)} and value.dtype: "
          f"{_cpp(value._dtype)} instead.")
    check(query._device == key._device and query._device == value._device,
          lambda: "Expected query, key, and value to have the same device type, but got "
          f"query.device: {query._device} key.device: {key._device} and value.device: "
          f"{value._device} instead.")
    check(query.dim() >= 2 and key.dim() >= 2 and value.dim() >= 2,
          lambda: "Expected query, key, and value to all be  at least 2 dimensional, but got "
          f"query.dim: {query.dim()} key.dim: {key.dim()} and value.dim: {value.dim()} "
          "instead.")
    if attn_mask is not None:
        md = attn_mask._dtype
        check(md == dt.bool_ or md == dt.float32 or md == query._dtype,
              lambda: "Expected attn_mask dtype to be bool or float or to match query dtype, "
              f"but got attn_mask.dtype: {_cpp(md)} and  query.dtype: {_cpp(query._dtype)} "
              "instead.")
        check(attn_mask._device == query._device,
              lambda: "Expected attn_mask device to match query device, but got "
              f"attn_mask.device: {attn_mask._device} and query.device: {query._device} "
              "instead.")


def _gqa_ok(query, key, value):
    hq, hk, hv = query.size(-3), key.size(-3), value.size(-3)
    return hk != 0 and hv != 0 and hq % hk == 0 and hq % hv == 0


def _use_flash(query, key, value, attn_mask, dropout_p, enable_gqa):
    if query._dtype not in (dt.float32, dt.float64, dt.bfloat16, dt.float16):
        return False
    if dropout_p != 0.0 or query.dim() != 4 or key.dim() != 4 or value.dim() != 4:
        return False
    B, H, L, E = query._sizes
    if key.size(0) != B or value.size(0) != B:
        return False
    if enable_gqa:
        if key.size(1) != value.size(1) or not _gqa_ok(query, key, value):
            return False
    elif key.size(1) != H or value.size(1) != H:
        return False
    S = key.size(2)
    if attn_mask is not None:
        if attn_mask.requires_grad:
            return False
        if attn_mask.dim() not in (2, 4) or attn_mask.size(-2) not in (L, 1) \
                or attn_mask.size(-1) not in (S, 1):
            return False
        if attn_mask.dim() == 4 and (attn_mask.size(0) not in (1, B)
                                     or attn_mask.size(1) not in (1, H)):
            return False
    if key.size(3) != E or value.size(3) != E:
        return False
    if L == 0 or S == 0:
        return False
    return all(t.stride(-1) == 1 for t in (query, key, value))


def _bool_to_float_mask(mask, dtype):
    if mask is None or mask._dtype != dt.bool_:
        return mask
    T = _torch()
    return T.where(mask.logical_not(), -math.inf, T.scalar_tensor(0.0, dtype=dtype))


def sdpa_composite(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False,
                   scale=None, enable_gqa=False):
    _validate_sdpa(query, key, value, attn_mask)
    mask = _bool_to_float_mask(attn_mask, query._dtype)
    if _use_flash(query, key, value, attn_mask, dropout_p, enable_gqa):
        return _aten()._scaled_dot_product_flash_attention_for_cpu(
            query, key, value, dropout_p, is_causal, attn_mask=mask, scale=scale)[0]
    return _sdpa_math(query, key, value, mask, dropout_p, is_causal, scale, enable_gqa)


def _sdpa_math(query, key, value, mask, dropout_p, is_causal, scale, enable_gqa):
    check(not (is_causal and mask is not None), "_scaled_dot_product_attention: Explicit "
          "attn_mask should not be set when is_causal=True")
    T = _torch()
    A = _aten()
    negative = scale is not None and scale < 0
    base = abs(scale) if negative else (scale if scale is not None
                                        else 1.0 / math.sqrt(query.size(-1)))
    factor = math.sqrt(base)
    q = A.mul.Scalar(query, -factor if negative else factor)
    if is_causal:
        L, S = query.size(-2), key.size(-2)
        causal = T.ones((L, S), dtype=dt.bool_, device=query.device).tril()
        mask = _bool_to_float_mask(causal, query._dtype)
    if enable_gqa:
        check(_gqa_ok(query, key, value),
              "Number of heads in key and value must divide the number of heads in ")
        hq = query.size(-3)
        if key.size(-3) != hq:
            key = key.repeat_interleave(hq // key.size(-3), -3)
        if value.size(-3) != hq:
            value = value.repeat_interleave(hq // value.size(-3), -3)
    attn = T.matmul(q, A.mul.Scalar(key.transpose(-2, -1), factor))
    if mask is not None:
        attn.add_(mask)
    attn = A._safe_softmax(attn, -1)
    if dropout_p > 0.0:
        attn = T.dropout(attn, dropout_p, True)
    return T.matmul(attn, value)
