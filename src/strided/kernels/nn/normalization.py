"""Kernels of the normalization operators: batch norm (with its running statistics), layer
norm, group norm, and the composites torch builds on them (batch_norm, instance_norm,
layer_norm, group_norm, rms_norm).

Note [Normalization kernels]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Each native kernel views its input as a small number of axes and works on whole arrays:

- batch norm:  (N, C, K)  statistics per channel, reduced over N and K = H*W*...;
- layer norm:  (M, N)     statistics per row (the leading dims), over the normalized dims;
- group norm:  (N, G, D)  statistics per (sample, group), D = C/G * H*W*...

A forward makes four passes: one sum for the mean, the centred values written straight
into the output buffer, one fused sum of squares of those (``vecdot``), then the scale
(and the affine shift) applied in place. The backward is the closed form, one kernel
for grad_input, grad_weight and grad_bias as ``output_mask`` asks, again whole-array
passes with per-row / per-channel coefficients (layer norm's in torch's uncentred form:
grad_input = rstd * g * w + a * x + c with per-row a and c). Temporaries come from a
small per-thread scratch cache (``_scratch``), so a training loop does not fault in
fresh pages for them at every step. Layer norm runs its passes over blocks of rows
(``_row_blocks``, about a megabyte each) so that the later passes over a block find it
in cache; its rows are independent, so blocking changes no result.

Note [Normalization dtypes]
~~~~~~~~~~~~~~~~~~~~~~~~~~~
float16 and bfloat16 inputs are computed in float32 (torch's opmath type) and rounded
once at the end. The saved statistics (mean / invstd / rstd) have the input's dtype,
except in torch's CPU "mixed type" mode: a reduced-precision input whose parameters
(weight, bias, running stats) are float32 keeps them in float32. The rule and its two
messages follow torch (``check_mixed_data_type``): the parameters must then all be
float32, and only a float16/bfloat16 input may mix.
"""

from __future__ import annotations

import threading
import warnings

import numpy as np

from ...core import dtypes as dt
from ...core.checks import check, check_value, maybe_wrap_dim
from ...core.layouts import channels_last_order, contiguous_format
from ...core.tensor_impl import compute_is_contiguous, contiguous_strides, numel_of
from ..factory import empty, new_strided
from ..resize import resize_output
from ..shape_ops import _strides_in_order
from ..views import _call_op

_LOW = (dt.float16, dt.bfloat16)
_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)
# c10's TypeMeta names, printed by the rms_norm dtype warning
_CPP_NAMES = {
    "float16": "c10::Half", "bfloat16": "c10::BFloat16", "float32": "float",
    "float64": "double", "complex64": "c10::complex<float>",
    "complex128": "c10::complex<double>", "int64": "long int", "int32": "int",
    "int16": "short int", "int8": "signed char", "uint8": "unsigned char", "bool": "bool",
}


# -- shared helpers ------------------------------------------------------------------------

def _is_meta(t) -> bool:
    return t._device.type == "meta"


def _opmath(dtype) -> np.dtype:
    """The NumPy type a kernel computes ``dtype`` in (Note [Normalization dtypes])."""
    return _F32 if dtype in _LOW else dtype.np


def _require_float(t, kernel: str) -> None:
    check(t._dtype.is_floating_point,
          lambda: f'"{kernel}" not implemented for \'{t._dtype._scalar_name}\'',
          NotImplementedError)


def _stat_dtype(input, *params):
    """The dtype of the saved statistics and of the parameters' gradients, with torch's
    mixed-type checks (Note [Normalization dtypes])."""
    first = next((p for p in params if p is not None), None)
    if first is None or first._dtype is input._dtype:
        for p in params:
            if p is not None:
                check(p._dtype is input._dtype, lambda p=p: (
                    f"expected scalar type {input._dtype._scalar_name} but found "
                    f"{p._dtype._scalar_name}"))
        return input._dtype
    for p in params:
        if p is not None:
            check(p._dtype is dt.float32,
                  "mixed dtype (CPU): expect parameter to have scalar type of Float")
    check(input._dtype in _LOW, "mixed dtype (CPU): all inputs must share same datatype.")
    return dt.float32


def _channels_last_strides(t):
    """torch's ``suggest_memory_format``: the strides of a channels-last result for ``t``
    (4-d / 5-d laid out N, [D,] H, W, C), else None."""
    sizes = t._sizes
    if len(sizes) not in (4, 5) or channels_last_order(sizes, t._strides) is None:
        return None
    return _strides_in_order(sizes, (1, 3, 2, 0) if len(sizes) == 4 else (1, 4, 3, 2, 0))


def _empty_suggest(t, dtype):
    """``empty_like(t, t.suggest_memory_format())`` with another dtype."""
    strides = _channels_last_strides(t)
    if strides is None:
        return empty(t._sizes, dtype, device=t._device)
    return new_strided(t._sizes, strides, dtype, t._device)


def _dense(t, npdt, shape) -> np.ndarray:
    """``t``'s values as a C-contiguous array of type ``npdt`` reshaped to ``shape``: a view
    of its memory when it is laid out so already (never written to), else one copy."""
    return np.ascontiguousarray(t._array(), dtype=npdt).reshape(shape)


def _vec(t, npdt):
    return None if t is None else np.ascontiguousarray(t._array(), dtype=npdt).reshape(-1)


def _target(res, npdt, shape):
    """An array of ``shape`` to compute ``res`` in: ``res``'s own memory when it is
    contiguous and of type ``npdt``, else a scratch array that ``_finish`` copies back."""
    if res._dtype.np == npdt and res._strides == contiguous_strides(res._sizes):
        return res._array().reshape(shape), True
    return np.empty(shape, npdt), False


_SCRATCH = threading.local()


def _scratch(shape, npdt, slot: int) -> np.ndarray:
    """A temporary array of ``shape`` (contents undefined) from a per-thread cache of one
    buffer per ``slot``: large temporaries reused across calls cost no fresh pages."""
    cache = getattr(_SCRATCH, "buffers", None)
    if cache is None:
        cache = _SCRATCH.buffers = {}
    nbytes = numel_of(shape) * npdt.itemsize
    buf = cache.get(slot)
    if buf is None or buf.nbytes < nbytes or buf.nbytes > 4 * nbytes + (1 << 20):
        buf = np.empty(max(nbytes, 1), np.uint8)
        if nbytes <= _SCRATCH_LIMIT:
            cache[slot] = buf
    return buf[:nbytes].view(npdt).reshape(shape)


_SCRATCH_LIMIT = 16 << 20     # larger temporaries are not kept


_BLOCK = 1 << 18     # elements per row block: the passes over one block stay in cache


def _row_blocks(m: int, n: int):
    """(start, stop) of blocks of rows of an (m, n) array, each about ``_BLOCK`` elements:
    a kernel makes all its passes over one block while it is in cache (Note
    [Normalization kernels])."""
    step = max(1, _BLOCK // max(n, 1))
    return [(s, min(s + step, m)) for s in range(0, m, step)]


def _finish(res, arr, direct) -> None:
    if not direct and numel_of(res._sizes):
        np.copyto(res._array(), arr.reshape(res._sizes), casting="unsafe")


def _store(res, value) -> None:
    if numel_of(res._sizes):
        np.copyto(res._array(), np.asarray(value).reshape(res._sizes), casting="unsafe")


def _mask(output_mask):
    m = tuple(bool(b) for b in output_mask)
    return m + (False,) * (3 - len(m))


def _shape_str(shape) -> str:
    return "[" + ", ".join(str(s) for s in shape) + "]"


# -- batch norm ----------------------------------------------------------------------------

def _bn_check_params(input, weight, bias, running_mean, running_var, training):
    sizes = input._sizes
    maybe_wrap_dim(1, len(sizes))
    check(numel_of(sizes) > 0, lambda: (
        f"input tensor must have at least one element, but got input_sizes = "
        f"{_shape_str(sizes)}"))
    _require_float(input, "batch_norm")
    stat = _stat_dtype(input, weight, bias, running_mean, running_var)
    c = sizes[1]
    for name, t in (("weight", weight), ("bias", bias), ("running_mean", running_mean),
                    ("running_var", running_var)):
        if t is not None:
            n = numel_of(t._sizes)
            check(n == c, lambda name=name, n=n: f"{name} should contain {c} elements not {n}")
    if not training:
        check(running_mean is not None, "running_mean must be defined in evaluation mode")
        check(running_var is not None, "running_var must be defined in evaluation mode")
    return stat


def _channel_sum(x):
    """Per-channel sums of an (N, C, K) array: pairwise along the contiguous K first (as
    accurate as NumPy's sums get), then over N."""
    return np.add.reduce(np.add.reduce(x, axis=2), axis=0)


def _invstd(var, eps):
    with np.errstate(divide="ignore", invalid="ignore"):
        invstd = 1.0 / np.sqrt(var + eps)
    if eps == 0:
        invstd = np.where(var == 0, np.zeros((), invstd.dtype), invstd)
    return invstd


def _update_running(t, batch_value, momentum) -> None:
    """``t = momentum * batch_value + (1 - momentum) * t`` in double, in place, without a
    version bump (torch writes the running statistics through a raw pointer)."""
    arr = t._array()
    with np.errstate(all="ignore"):
        new = momentum * batch_value.astype(_F64) + (1 - momentum) * arr.astype(_F64)
    np.copyto(arr, new.reshape(arr.shape), casting="unsafe")


def _batch_norm_impl(input, weight, bias, running_mean, running_var, training, momentum, eps):
    stat = _bn_check_params(input, weight, bias, running_mean, running_var, training)
    sizes = input._sizes
    c = sizes[1]
    out = _empty_suggest(input, input._dtype)
    # eval mode saves no statistics: (0,) tensors on CPU; torch's meta function says (C,)
    n_stat = c if training or _is_meta(input) else 0
    save_mean = empty((n_stat,), stat, device=input._device)
    save_invstd = empty((n_stat,), stat, device=input._device)
    if _is_meta(input):
        return out, save_mean, save_invstd
    npdt = _opmath(input._dtype)
    shape = (sizes[0], c, numel_of(sizes[2:]))
    x = _dense(input, npdt, shape)
    o, direct = _target(out, npdt, shape)
    w = _vec(weight, npdt)
    b = _vec(bias, npdt)
    with np.errstate(all="ignore"):
        if training:
            n = shape[0] * shape[2]
            mean = _channel_sum(x) / npdt.type(n)
            np.subtract(x, mean[:, None], out=o)
            var_sum = np.add.reduce(np.vecdot(o, o), axis=0)
            invstd = _invstd(var_sum / npdt.type(n), eps).astype(npdt, copy=False)
            o *= (invstd if w is None else invstd * w)[:, None]
            if b is not None:
                o += b[:, None]
            _store(save_mean, mean)
            _store(save_invstd, invstd)
            if running_mean is not None:
                _update_running(running_mean, mean, momentum)
            if running_var is not None:
                unbiased = var_sum.astype(_F64) / (n - 1) if n > 1 else \
                    var_sum.astype(_F64) / 0.0
                _update_running(running_var, unbiased, momentum)
        else:
            rm = _vec(running_mean, npdt)
            invstd = (1.0 / np.sqrt(_vec(running_var, npdt) + eps)).astype(npdt, copy=False)
            alpha = invstd if w is None else invstd * w
            beta = -rm * alpha if b is None else b - rm * alpha
            np.multiply(x, alpha[:, None], out=o)
            o += beta[:, None]
    _finish(out, o, direct)
    return out, save_mean, save_invstd


def native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps):
    return _batch_norm_impl(input, weight, bias, running_mean, running_var, training,
                            momentum, eps)


def native_batch_norm_out(input, weight, bias, running_mean, running_var, training, momentum,
                          eps, out, save_mean, save_invstd):
    results = _batch_norm_impl(input, weight, bias, running_mean, running_var, training,
                               momentum, eps)
    for dst, src in zip((out, save_mean, save_invstd), results):
        check(dst._dtype is src._dtype, lambda dst=dst, src=src: (
            f"Expected out tensor to have dtype {src._dtype}, but got {dst._dtype} instead"))
        resize_output(dst, src._sizes)
        if not _is_meta(src) and numel_of(src._sizes):
            np.copyto(dst._array(), src._array())
    return out, save_mean, save_invstd


def native_batch_norm_legit(input, weight, bias, running_mean, running_var, training,
                            momentum, eps):
    return _batch_norm_impl(input, weight, bias, running_mean, running_var, training,
                            momentum, eps)


def batch_norm_with_update(input, weight, bias, running_mean, running_var, momentum, eps):
    """``_batch_norm_with_update``: training-mode batch norm updating the running stats, plus
    torch's CPU reserve buffer (an empty uint8 tensor)."""
    out, mean, rstd = _batch_norm_impl(input, weight, bias, running_mean, running_var, True,
                                       momentum, eps)
    return out, mean, rstd, empty((0,), dt.uint8, None, input._device)


def native_batch_norm_legit_no_training(input, weight, bias, running_mean, running_var,
                                        momentum, eps):
    return _batch_norm_impl(input, weight, bias, running_mean, running_var, False,
                            momentum, eps)


def native_batch_norm_legit_no_stats(input, weight, bias, training, momentum, eps):
    return _batch_norm_impl(input, weight, bias, None, None, True, momentum, eps)


def native_batch_norm_backward(grad_out, input, weight, running_mean, running_var, save_mean,
                               save_invstd, train, eps, output_mask):
    """Closed form: with xhat = (x - mean) * invstd per channel,
    grad_bias = sum(g), grad_weight = sum(g * xhat) and, in training,
    grad_input = (g - mean(g) - xhat * mean(g * xhat)) * invstd * w; in eval mode
    grad_input = g * invstd * w (the running statistics are constants)."""
    mask = _mask(output_mask)
    sizes = input._sizes
    c = sizes[1]
    pdt = weight._dtype if weight is not None else _stat_dtype(
        input, running_mean, running_var) if not train else \
        (save_mean._dtype if save_mean is not None else input._dtype)
    gi = _empty_suggest(input, input._dtype) if mask[0] else None
    gw = empty((c,), pdt, device=input._device) if mask[1] else None
    gb = empty((c,), pdt, device=input._device) if mask[2] else None
    if _is_meta(input) or not any(mask):
        return gi, gw, gb
    npdt = _opmath(input._dtype)
    shape = (sizes[0], c, numel_of(sizes[2:]))
    n = shape[0] * shape[2]
    g = _dense(grad_out, npdt, shape)
    x = _dense(input, npdt, shape)
    w = _vec(weight, npdt)
    with np.errstate(all="ignore"):
        if train:
            mean = _vec(save_mean, npdt)
            invstd = _vec(save_invstd, npdt)
        else:
            mean = _vec(running_mean, npdt)
            invstd = (1.0 / np.sqrt(_vec(running_var, npdt) + eps)).astype(npdt, copy=False)
        sum_g = _channel_sum(g) if (mask[2] or (train and mask[0])) else None
        xc = dotp = None
        if mask[1] or (train and mask[0]):
            xc = np.subtract(x, mean[:, None], out=_scratch(shape, npdt, 0))
            dotp = np.add.reduce(np.vecdot(xc, g), axis=0)
        scale = invstd if w is None else invstd * w
        if mask[0]:
            o, direct = _target(gi, npdt, shape)
            np.multiply(g, scale[:, None], out=o)
            if train:
                k = dotp * invstd * invstd / npdt.type(n)
                xc *= (k * scale)[:, None]
                o -= xc
                o -= (sum_g / npdt.type(n) * scale)[:, None]
            _finish(gi, o, direct)
        if mask[1]:
            _store(gw, dotp * invstd)
        if mask[2]:
            _store(gb, sum_g)
    return gi, gw, gb


# -- batch norm composites -------------------------------------------------------------------

def _s():
    import strided
    return strided


def batch_norm_impl_index_composite(input, weight, bias, running_mean, running_var, training,
                                    momentum, eps, cudnn_enabled):
    """torch's ``_batch_norm_impl_index`` on CPU: checks, the empty-input special case
    (a clone scaled by weight[0] and shifted by bias[0], so the graph stays connected),
    else ``native_batch_norm``; index 0 names the native backend."""
    reserve = empty((0,), dt.uint8, device=input._device)
    return _batch_norm_impl_index(input, weight, bias, running_mean, running_var, training,
                                  momentum, eps) + (reserve, 0)


def _batch_norm_impl_index(input, weight, bias, running_mean, running_var, training, momentum,
                           eps):
    """(output, save_mean, save_invstd) of ``_batch_norm_impl_index``."""
    sizes = input._sizes
    if numel_of(sizes) == 0:
        # before any check: the statistics are empty (C,) tensors of the accumulation type
        c = sizes[1] if len(sizes) > 1 else 0
        acc = dt.float32 if input._dtype in _LOW else \
            dt.float64 if input._dtype is dt.float32 or input._dtype.category <= dt.INT \
            else input._dtype
        out = _call_op("aten::clone", input, None)
        if weight is not None:
            out = _call_op("aten::mul.Tensor", out, _call_op("aten::select.int", weight, 0, 0))
        if bias is not None:
            out = _call_op("aten::add.Tensor", out, _call_op("aten::select.int", bias, 0, 0), 1)
        return (out, empty((c,), acc, device=input._device),
                empty((c,), acc, device=input._device))
    c = sizes[maybe_wrap_dim(1, len(sizes))]
    for name, t in (("running_mean", running_mean), ("running_var", running_var)):
        if t is not None:
            n = numel_of(t._sizes)
            check(n == c, lambda name=name, n=n: f"{name} should contain {c} elements not {n}")
        elif not training:
            check(False, f"{name} must be defined in evaluation mode")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None:
            n = numel_of(t._sizes)
            check(n == c, lambda name=name, n=n: f"{name} should contain {c} elements not {n}")
    return _call_op("aten::native_batch_norm", input, weight, bias, running_mean, running_var,
                    training, momentum, eps)


def batch_norm_composite(input, weight, bias, running_mean, running_var, training, momentum,
                         eps, cudnn_enabled):
    return _batch_norm_impl_index(input, weight, bias, running_mean, running_var, training,
                                  momentum, eps)[0]


def instance_norm_composite(input, weight, bias, running_mean, running_var, use_input_stats,
                            momentum, eps, cudnn_enabled):
    """Batch norm over a (1, N*C, *) view: every (sample, channel) pair is a channel. The
    parameters and running statistics are repeated N times; afterwards the running
    statistics are the mean over the batch of the N updated copies."""
    check(use_input_stats or (running_mean is not None and running_var is not None),
          "Expected running_mean and running_var to be defined when use_input_stats is false")
    sizes = input._sizes
    b = sizes[0]
    c = sizes[maybe_wrap_dim(1, len(sizes))]

    def repeat(t):
        return None if t is None else _call_op("aten::repeat", t, (b,))

    weight_, bias_ = repeat(weight), repeat(bias)
    running_mean_, running_var_ = repeat(running_mean), repeat(running_var)
    shape = (1, b * c) + tuple(sizes[2:])
    flat = _call_op("aten::view", _contiguous(input), shape)
    out = batch_norm_composite(flat, weight_, bias_, running_mean_, running_var_,
                               use_input_stats, momentum, eps, cudnn_enabled)
    if use_input_stats:
        with _s().no_grad():
            for t, t_ in ((running_mean, running_mean_), (running_var, running_var_)):
                if t is not None:
                    avg = _call_op("aten::mean.dim", _call_op("aten::view", t_, (b, c)), (0,),
                                   False, None)
                    _call_op("aten::copy_", _call_op("aten::alias", t), avg, False)
    return _call_op("aten::view", out, sizes)


# -- layer norm ------------------------------------------------------------------------------

def _check_layer_norm_inputs(input, normalized_shape, weight, bias):
    """torch's ``_check_layer_norm_inputs``: returns (M, N, axis)."""
    normalized_shape = tuple(normalized_shape)
    nd = len(normalized_shape)
    check(nd >= 1, lambda: (
        f"Expected normalized_shape to be at least 1-dimensional, i.e., containing at least "
        f"one element, but got normalized_shape = {_shape_str(normalized_shape)}"))
    for name, t in (("weight", weight), ("bias", bias)):
        check(t is None or tuple(t._sizes) == normalized_shape, lambda name=name, t=t: (
            f"Expected {name} to be of same shape as normalized_shape, but got {name} of shape "
            f"{_shape_str(t._sizes)} and normalized_shape = {_shape_str(normalized_shape)}"))
    sizes = input._sizes
    ndim = len(sizes)
    if ndim < nd or tuple(sizes[ndim - nd:]) != normalized_shape:
        raise RuntimeError(
            f"Given normalized_shape={_shape_str(normalized_shape)}, expected input with shape "
            f"[*{''.join(', ' + str(s) for s in normalized_shape)}], but got input of size"
            f"{_shape_str(sizes)}")
    axis = ndim - nd
    return numel_of(sizes[:axis]), numel_of(sizes[axis:]), axis


def native_layer_norm(input, normalized_shape, weight, bias, eps):
    m, n, axis = _check_layer_norm_inputs(input, normalized_shape, weight, bias)
    _require_float(input, "LayerNormKernelImpl")
    stat = _stat_dtype(input, weight, bias)
    sizes = input._sizes
    out = empty(sizes, input._dtype, device=input._device)
    stat_shape = tuple(sizes[:axis]) + (1,) * (len(sizes) - axis)
    mean = empty(stat_shape, stat, device=input._device)
    rstd = empty(stat_shape, stat, device=input._device)
    if _is_meta(input) or m == 0:
        return out, mean, rstd
    npdt = _opmath(input._dtype)
    if n == 0:
        _store(mean, np.zeros(m, npdt))
        _store(rstd, np.full(m, np.nan, npdt))
        return out, mean, rstd
    x = _dense(input, npdt, (m, n))
    o, direct = _target(out, npdt, (m, n))
    w = _vec(weight, npdt)
    b = _vec(bias, npdt)
    mu = np.empty(m, npdt)
    rs = np.empty(m, npdt)
    nn = npdt.type(n)
    with np.errstate(all="ignore"):
        for s, e in _row_blocks(m, n):
            xb, ob = x[s:e], o[s:e]
            mb = np.einsum("ij->i", xb)
            mb /= nn
            np.subtract(xb, mb[:, None], out=ob)
            var = np.vecdot(ob, ob) / nn
            rb = (1.0 / np.sqrt(var + eps)).astype(npdt, copy=False)
            ob *= rb[:, None]
            if w is not None:
                ob *= w
            if b is not None:
                ob += b
            mu[s:e] = mb
            rs[s:e] = rb
    _finish(out, o, direct)
    _store(mean, mu)
    _store(rstd, rs)
    return out, mean, rstd


def native_layer_norm_backward(grad_out, input, normalized_shape, mean, rstd, weight, bias,
                               output_mask):
    """Closed form per row, with xhat = (x - mean) * rstd and g = grad_out * w:
    grad_input = rstd * (g - mean(g) - xhat * mean(g * xhat)); grad_weight and grad_bias
    sum grad_out * xhat and grad_out over the rows."""
    mask = _mask(output_mask)
    m, n, axis = _check_layer_norm_inputs(input, normalized_shape, weight, bias)
    stat = mean._dtype
    sizes = input._sizes
    ns = tuple(normalized_shape)
    gi = empty(sizes, input._dtype, device=input._device) if mask[0] else None
    gw = empty(ns, weight._dtype if weight is not None else stat, device=input._device) \
        if mask[1] else None
    pb = bias if bias is not None else weight
    gb = empty(ns, pb._dtype if pb is not None else stat, device=input._device) \
        if mask[2] else None
    if _is_meta(input) or not any(mask):
        return gi, gw, gb
    npdt = _opmath(input._dtype)
    if m == 0 or n == 0:
        for r in (gw, gb):
            if r is not None:
                _store(r, np.zeros(numel_of(ns), npdt))
        return gi, gw, gb
    g = _dense(grad_out, npdt, (m, n))
    x = _dense(input, npdt, (m, n))
    mu = _vec(mean, npdt)
    rs = _vec(rstd, npdt)
    w = _vec(weight, npdt)
    nn = npdt.type(n)
    need_x = mask[0] or mask[1]
    acc_b = np.zeros(n, npdt) if mask[2] else None
    acc_w = np.zeros(n, npdt) if mask[1] else None
    o, direct = _target(gi, npdt, (m, n)) if mask[0] else (None, True)
    with np.errstate(all="ignore"):
        # torch's uncentred form: with gw = g * w, db = sum(gw), ds = sum(gw * x) per row,
        # grad_input = rs * gw + a * x + c, a = (db * mean - ds) * rs^3 / n,
        # c = -a * mean - db * rs / n; grad_weight = sum(g * x * rs) - sum(g * mean * rs)
        for s, e in _row_blocks(m, n):
            gb_, xb, mb, rb = g[s:e], x[s:e], mu[s:e], rs[s:e]
            xr = np.multiply(xb, rb[:, None], out=_scratch((e - s, n), npdt, 0)) \
                if need_x else None
            if acc_b is not None:
                acc_b += np.add.reduce(gb_, axis=0)
            if acc_w is not None:
                acc_w += np.einsum("ij,ij->j", gb_, xr)
                acc_w -= np.einsum("i,ij->j", mb * rb, gb_)
            if mask[0]:
                ob = o[s:e]
                gw_ = gb_ if w is None else np.multiply(gb_, w,
                                                        out=_scratch((e - s, n), npdt, 1))
                db = np.einsum("ij->i", gw_)
                ds = np.vecdot(gw_, xb)
                a = (db * mb - ds) * rb * rb * rb / nn
                c = -a * mb - db * rb / nn
                np.multiply(gw_, rb[:, None], out=ob)
                xr *= (a / rb)[:, None]
                ob += xr
                ob += c[:, None]
    if mask[0]:
        _finish(gi, o, direct)
    if acc_w is not None:
        _store(gw, acc_w)
    if acc_b is not None:
        _store(gb, acc_b)
    return gi, gw, gb


def layer_norm_composite(input, normalized_shape, weight=None, bias=None, eps=1e-05,
                         cudnn_enable=True):
    # native_layer_norm makes the same checks, with the same messages
    return _call_op("aten::native_layer_norm", input, tuple(normalized_shape), weight, bias,
                    eps)[0]


# -- group norm ------------------------------------------------------------------------------

def _check_group_norm_inputs(input, weight, bias, c, num_groups):
    check(num_groups > 0, lambda: f"Expected num groups to be greater than 0, got {num_groups}")
    check(c % num_groups == 0, lambda: (
        f"Expected number of channels in input to be divisible by num_groups, but got input "
        f"of shape {_shape_str(input._sizes)} and num_groups={num_groups}"))
    check(weight is None or (len(weight._sizes) == 1 and numel_of(weight._sizes) == c),
          lambda: (f"Expected weight to be a vector of size equal to the number of channels "
                   f"in input, but got weight of shape {_shape_str(weight._sizes)} and input "
                   f"of shape {_shape_str(input._sizes)}"))
    # torch prints the weight's shape ([0] when there is none) in the bias message
    check(bias is None or (len(bias._sizes) == 1 and numel_of(bias._sizes) == c),
          lambda: (f"Expected bias to be a vector of size equal to the number of channels in "
                   f"input, but got bias of shape "
                   f"{_shape_str(weight._sizes if weight is not None else (0,))} and input of "
                   f"shape {_shape_str(input._sizes)}"))


def native_group_norm(input, weight, bias, N, C, HxW, group, eps):
    _check_group_norm_inputs(input, weight, bias, C, group)
    sizes = input._sizes
    check(numel_of(sizes) == N * C * HxW,
          "Expected X.numel() == N * C * HxW to be true, but got false.  (Could this error "
          "message be improved?  If so, please report an enhancement request to PyTorch.)")
    check(compute_is_contiguous(sizes, input._strides) or
          _channels_last_strides(input) is not None,
          "Expected X.is_contiguous(memory_format) to be true, but got false.  (Could this "
          "error message be improved?  If so, please report an enhancement request to "
          "PyTorch.)")
    _require_float(input, "GroupNormKernelImpl")
    stat = _stat_dtype(input, weight, bias)
    if _is_meta(input):
        stat = input._dtype      # torch's meta function keeps the input's dtype throughout
    out = _empty_suggest(input, input._dtype)
    mean = empty((N, group), stat, device=input._device)
    rstd = empty((N, group), stat, device=input._device)
    if _is_meta(input) or N == 0:
        return out, mean, rstd
    npdt = _opmath(input._dtype)
    d = (C // group) * HxW
    if d == 0:
        _store(mean, np.zeros(N * group, npdt))
        _store(rstd, np.full(N * group, np.nan, npdt))
        return out, mean, rstd
    x = _dense(input, npdt, (N, group, d))
    o, direct = _target(out, npdt, (N, group, d))
    w = _vec(weight, npdt)
    b = _vec(bias, npdt)
    with np.errstate(all="ignore"):
        mu = np.add.reduce(x, axis=2) / npdt.type(d)
        np.subtract(x, mu[:, :, None], out=o)
        var = np.vecdot(o, o) / npdt.type(d)
        rs = (1.0 / np.sqrt(var + eps)).astype(npdt, copy=False)
        o *= rs[:, :, None]
        o3 = o.reshape(N, C, HxW)
        if w is not None:
            o3 *= w[:, None]
        if b is not None:
            o3 += b[:, None]
    _finish(out, o, direct)
    _store(mean, mu)
    _store(rstd, rs)
    return out, mean, rstd


def native_group_norm_backward(grad_out, input, mean, rstd, weight, N, C, HxW, group,
                               output_mask):
    """Closed form per (sample, group), with xhat = (x - mean) * rstd and g = grad_out * w
    (per channel): grad_input = rstd * (g - mean(g) - xhat * mean(g * xhat)) over the
    group; grad_weight and grad_bias sum grad_out * xhat and grad_out per channel."""
    mask = _mask(output_mask)
    pdt = weight._dtype if weight is not None else mean._dtype
    gi = _empty_suggest(input, input._dtype) if mask[0] else None
    gw = empty((C,), pdt, device=input._device) if mask[1] else None
    gb = empty((C,), pdt, device=input._device) if mask[2] else None
    if _is_meta(input) or not any(mask):
        return gi, gw, gb
    npdt = _opmath(input._dtype)
    d = (C // group) * HxW if group else 0
    if N == 0 or d == 0:
        for r in (gw, gb):
            if r is not None:
                _store(r, np.zeros(C, npdt))
        return gi, gw, gb
    g = _dense(grad_out, npdt, (N, group, d))
    x = _dense(input, npdt, (N, group, d))
    mu = np.ascontiguousarray(mean._array(), dtype=npdt).reshape(N, group, 1)
    rs = np.ascontiguousarray(rstd._array(), dtype=npdt).reshape(N, group, 1)
    w = _vec(weight, npdt)
    with np.errstate(all="ignore"):
        xhat = np.subtract(x, mu)
        xhat *= rs
        g3 = g.reshape(N, C, HxW)
        if mask[2]:
            _store(gb, np.add.reduce(g3, axis=(0, 2)))
        if mask[1]:
            _store(gw, np.add.reduce(np.vecdot(g3, xhat.reshape(N, C, HxW)), axis=0))
        if mask[0]:
            o, direct = _target(gi, npdt, (N, group, d))
            gw_ = g if w is None else np.multiply(g3, w[:, None]).reshape(N, group, d)
            c1 = np.add.reduce(gw_, axis=2, keepdims=True) / npdt.type(d)
            c2 = np.vecdot(gw_, xhat)[:, :, None] / npdt.type(d)
            np.multiply(gw_, rs, out=o)
            xhat *= rs * c2
            o -= xhat
            o -= rs * c1
            _finish(gi, o, direct)
    return gi, gw, gb


def _contiguous(t):
    if compute_is_contiguous(t._sizes, t._strides):
        return t
    return _call_op("aten::clone", t, contiguous_format)


def group_norm_composite(input, num_groups, weight=None, bias=None, eps=1e-05,
                         cudnn_enabled=True):
    sizes = input._sizes
    n = sizes[0] if sizes else 0
    c = sizes[maybe_wrap_dim(1, len(sizes))]
    _check_group_norm_inputs(input, weight, bias, c, num_groups)
    hxw = numel_of(sizes[2:])
    # input.contiguous(input.suggest_memory_format()): a channels-last input stays as it is
    x = input if _channels_last_strides(input) is not None else _contiguous(input)
    w = None if weight is None else _contiguous(weight)
    b = None if bias is None else _contiguous(bias)
    return _call_op("aten::native_group_norm", x, w, b, n, c, hxw, num_groups, eps)[0]


# -- RMS norm --------------------------------------------------------------------------------

def _rms_norm(input, normalized_shape, weight, eps):
    """torch's CPU composite: x * rsqrt(mean(x^2) + eps) [* weight], computed in the opmath
    type and cast back; returns (output, rstd)."""
    normalized_shape = tuple(normalized_shape)
    nd = len(normalized_shape)
    check(nd >= 1, lambda: (
        f"Expected normalized_shape to be at least 1-dimensional, i.e., containing at least "
        f"one element, but got normalized_shape = {_shape_str(normalized_shape)}"))
    check(weight is None or tuple(weight._sizes) == normalized_shape, lambda: (
        f"Expected weight to be of same shape as normalized_shape, but got weight of shape "
        f"{_shape_str(weight._sizes)} and normalized_shape = {_shape_str(normalized_shape)}"))
    sizes = input._sizes
    ndim = len(sizes)
    check_value(ndim >= nd, lambda: (
        f"Input tensor must have at least {nd} dimensions, but got {ndim}"))
    check(tuple(sizes[ndim - nd:]) == normalized_shape, lambda: (
        f"Given normalized_shape={_shape_str(normalized_shape)}, expected input with shape "
        f"[*{', '.join(str(s) for s in normalized_shape)}], but got input of size"
        f"{_shape_str(sizes)}"))
    check(input._dtype.category >= dt.FLOAT,
          lambda: f'"rms_norm" not implemented for \'{input._dtype._scalar_name}\'',
          NotImplementedError)
    if weight is not None and weight._dtype is not input._dtype and \
            input._dtype in (dt.float32, dt.float16, dt.bfloat16):
        warnings.warn(
            f"Mismatch dtype between input and weight: input dtype = "
            f"{_CPP_NAMES.get(input._dtype.name, input._dtype.name)}, weight dtype = "
            f"{_CPP_NAMES.get(weight._dtype.name, weight._dtype.name)}, Cannot dispatch to "
            f"fused implementation.", UserWarning, stacklevel=4)
    op_dtype = dt.float32 if input._dtype in _LOW else input._dtype
    x = input if op_dtype is input._dtype else \
        _call_op("aten::_to_copy", input, op_dtype, None, None, None, False, None)
    if eps is None:
        real = op_dtype._real if op_dtype.is_complex else op_dtype
        eps = float(np.finfo(real.np).eps)
    dims = tuple(range(ndim - 1, ndim - nd - 1, -1))
    ms = _call_op("aten::mean.dim", _call_op("aten::pow.Tensor_Scalar", x, 2), dims, True, None)
    ms = _call_op("aten::add_.Scalar", ms, eps, 1)
    rstd = _call_op("aten::rsqrt", ms)
    out = _call_op("aten::mul.Tensor", x, rstd)
    if weight is not None:
        out = _call_op("aten::mul.Tensor", out, weight)
    if out._dtype is not input._dtype:
        out = _call_op("aten::_to_copy", out, input._dtype, None, None, None, False, None)
    # torch returns it in the input's suggested memory format (a copy when neither
    # contiguous nor channels-last)
    if not compute_is_contiguous(out._sizes, out._strides) and \
            _channels_last_strides(out) is None:
        out = _call_op("aten::clone", out, contiguous_format)
    return out, rstd


def rms_norm_composite(input, normalized_shape, weight=None, eps=None):
    return _rms_norm(input, normalized_shape, weight, eps)[0]


def fused_rms_norm_composite(input, normalized_shape, weight, eps):
    return _rms_norm(input, normalized_shape, weight, eps)

