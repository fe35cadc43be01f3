"""Kernels: convolution (windows + one matmul), its backward, im2col/col2im, and the
composites torch builds on ``convolution`` (conv1d/2d/3d, conv_transpose*, padding='same').

Note [Convolution as windows and one matmul]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A convolution of an input ``(N, C, *S)`` with a weight ``(O, C/g, *K)`` in ``g`` groups
reads, for every output position, a window of the (zero-padded) input. Those windows are
a strided *view* of the padded input, ``(N, C, *K, *Out)``: a kernel offset ``k`` along
a spatial dim moves ``dilation * stride_of_dim`` elements, an output position moves
``stride * stride_of_dim``. Reshaping that view to ``(N, g, C/g * prod(K), prod(Out))``
makes the one copy (im2col), and the whole convolution is then one (batched) matrix
multiply ``(g, O/g, C/g*K) @ (N, g, C/g*K, L)`` whose result is already laid out as the
output ``(N, O, *Out)``. Any number of spatial dims, stride, padding, dilation and groups
are just different shapes and strides of the same view.

The other products of a convolution use the same two pieces:

- the input gradient is ``w^T @ grad_out`` (columns) scattered back onto the padded input
  (col2im): one strided ``+=`` per kernel offset (``prod(K)`` of them, a small loop over
  whole arrays), then the padding is cut off;
- the weight gradient is ``grad_out @ columns^T`` summed over the batch;
- a transposed convolution *is* the input gradient of the convolution whose output is its
  input: its forward is col2im(``w^T @ x``), its input gradient a plain convolution of the
  output gradient, and its weight gradient ``x @ columns(grad_out)^T``.

float16/bfloat16 are widened to float32 for the products (Note [Products in float32 for
half types] in kernels/linalg.py). The meta device runs only the checks and the shape
and layout rules.

Note [Convolution output layout]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
torch's CPU backends give a channels-last result for 4-d convolutions when the input or
the weight is channels-last (``suggest_memory_format``), and for 5-d ones a channels_last_3d
result likewise when oneDNN runs them; everything else is contiguous. The gradients of the
input and weight follow the same rule, except that torch's own (non-oneDNN) kernels make the
weight gradient like ``weight.contiguous(format)``: a weight already dense in that format
(size-1 dims aside) keeps its strides.

Which backend runs is torch's ``use_mkldnn`` choice (``_onednn``): float32 unless the
convolution is small and plain (batch 1, one group, a kernel of at most 3x3, few elements;
or a 1x1 kernel, unit stride and dilation, batch under 16, one thread); bfloat16 and
float16 where the CPU has the instructions torch checks for; never other dtypes.
"""

from __future__ import annotations

import warnings

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ...core import dtypes as dt
from ...core.checks import check
from ...core.layouts import (
    channels_last,
    channels_last_3d,
    channels_last_order,
    contiguous_format,
)
from ...core.tensor_impl import contiguous_strides, numel_of
from ..factory import is_contiguous_in, new_strided
from ..views import _call_op, type_string

__all__ = [
    "convolution", "convolution_backward", "conv_internal", "conv_internal_mode",
    "conv1d_composite", "conv2d_composite", "conv3d_composite",
    "conv1d_padding_composite", "conv2d_padding_composite", "conv3d_padding_composite",
    "conv_transpose1d_composite", "conv_transpose2d_composite", "conv_transpose3d_composite",
    "im2col", "im2col_out", "col2im", "col2im_out",
]


def _is_meta(t) -> bool:
    return t._device.type == "meta"


def _prod(xs) -> int:
    n = 1
    for x in xs:
        n *= x
    return n


# -- parameters and checks ---------------------------------------------------------------------

def _expand(values, name: str, dim: int) -> tuple:
    values = tuple(values)
    if len(values) == 1:
        return values * dim
    check(len(values) == dim, lambda: (
        f"expected {name} to be a single integer value or a list of {dim} values to match "
        f"the convolution dimensions, but got {name}={list(values)}"))
    return values


def _params(input, weight, bias, stride, padding, dilation, transposed, output_padding,
            groups):
    """torch's ``_convolution`` checks, in its order; the expanded parameters."""
    k = len(weight._sizes)
    dim = k - 2
    check(dim > 0, "weight should have at least three dimensions")
    check(groups > 0, "non-positive groups is not supported")
    stride = _expand(stride, "stride", dim)
    padding = _expand(padding, "padding", dim)
    dilation = _expand(dilation, "dilation", dim)
    output_padding = _expand(output_padding, "output_padding", dim)
    _check_shape_forward(input, weight._sizes, bias, stride, padding, dilation, transposed,
                         output_padding, groups)
    return stride, padding, dilation, output_padding


def _sizes_str(sizes) -> str:
    return "[" + ", ".join(str(s) for s in sizes) + "]"


def _check_shape_forward(input, wsizes, bias, stride, padding, dilation, transposed,
                         output_padding, groups):
    check(all(p >= 0 for p in padding), "negative padding is not supported")
    check(all(p >= 0 for p in output_padding), "negative output_padding is not supported")
    check(all(s > 0 for s in stride), "non-positive stride is not supported")
    check(all(d >= 0 for d in dilation), "dilation should be greater than zero")
    k = len(input._sizes)
    wdim = len(wsizes)
    isizes = input._sizes
    check(wdim == k, lambda: (
        f"Expected {wdim}-dimensional input for {wdim}-dimensional weight {_sizes_str(wsizes)}, "
        f"but got {k}-dimensional input of size {_sizes_str(isizes)} instead"))
    check(wsizes[0] >= groups, lambda: (
        f"Given groups={groups}, expected weight to be at least {groups} at dimension 0, but "
        f"got weight of size {_sizes_str(wsizes)} instead"))
    check(wsizes[0] % groups == 0, lambda: (
        f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, "
        f"but got weight of size [{_sizes_str(wsizes)}] instead"))
    if not transposed:
        check(isizes[1] == wsizes[1] * groups, lambda: (
            f"Given groups={groups}, weight of size {_sizes_str(wsizes)}, expected "
            f"input{_sizes_str(isizes)} to have {wsizes[1] * groups} channels, but got "
            f"{isizes[1]} channels instead"))
        check(bias is None or (len(bias._sizes) == 1 and bias._sizes[0] == wsizes[0]),
              lambda: (
                  f"Given weight of size {_sizes_str(wsizes)}, expected bias to be "
                  f"1-dimensional with {wsizes[0]} elements, but got bias of size "
                  f"{_sizes_str(bias._sizes)} instead"))
        padded = [isizes[i + 2] + 2 * padding[i] for i in range(k - 2)]
        kernel = [dilation[i] * (wsizes[i + 2] - 1) + 1 for i in range(k - 2)]
        if any(p < q for p, q in zip(padded, kernel)):
            raise RuntimeError(
                f"Calculated padded input size per channel: "
                f"({' x '.join(map(str, padded))}). Kernel size: "
                f"({' x '.join(map(str, kernel))}). Kernel size can't be greater than actual "
                f"input size")
    else:
        check(isizes[1] == wsizes[0], lambda: (
            f"Given transposed=1, weight of size {_sizes_str(wsizes)}, expected "
            f"input{_sizes_str(isizes)} to have {wsizes[0]} channels, but got {isizes[1]} "
            f"channels instead"))
        check(bias is None or (len(bias._sizes) == 1 and
                               bias._sizes[0] == wsizes[1] * groups), lambda: (
            f"Given transposed=1, weight of size {_sizes_str(wsizes)}, expected bias to be "
            f"1-dimensional with {wsizes[1] * groups} elements, but got bias of size "
            f"{_sizes_str(bias._sizes)} instead"))


_SPATIAL_NAMES = {1: ("height", "width"), 2: ("height", "width"),
                  3: ("depth", "height", "width")}


def _check_output_padding(stride, dilation, output_padding):
    """slow_conv_transpose's rule: each output_padding below its stride or its dilation
    (1-d convolutions run as 2-d ones, with a leading dim of 1)."""
    if all(op < s or op < d for op, s, d in zip(output_padding, stride, dilation)):
        return
    if len(stride) == 1:
        stride, dilation, output_padding = (1,) + stride, (1,) + dilation, \
            (0,) + output_padding
    names = _SPATIAL_NAMES[len(stride)]
    parts = [f"output_padding_{n}: {v}" for n, v in zip(names, output_padding)]
    parts += [f"stride_{n}: {v}" for n, v in zip(names, stride)]
    parts += [f"dilation_{n}: {v}" for n, v in zip(names, dilation)]
    raise RuntimeError("output padding must be smaller than either stride or dilation, but "
                       "got " + " ".join(parts))


_MKLDNN_TYPES = ("float32", "bfloat16")
_SCALAR_NAMES = {"float64": "Double", "float32": "Float", "float16": "Half",
                 "bfloat16": "BFloat16", "int64": "Long", "int32": "Int", "int16": "Short",
                 "int8": "Char", "uint8": "Byte", "bool": "Bool", "complex64": "ComplexFloat",
                 "complex128": "ComplexDouble"}


def _check_types(input, weight, bias):
    """The dtype checks of the backend torch picks on CPU: oneDNN (float32, bfloat16)
    words them one way, the native kernels another."""
    if input._dtype.name in _MKLDNN_TYPES:
        check(input._dtype is weight._dtype, lambda: (
            f"Input type ({type_string(input)}) and weight type ({type_string(weight)}) "
            f"should be the same or input should be a MKLDNN tensor and weight is a dense "
            f"tensor"))
        check(bias is None or bias._dtype is input._dtype, lambda: (
            f"Input type ({type_string(input)}) and bias type ({type_string(bias)}) should "
            f"be the same or input should be a MKLDNN tensor and bias is a dense tensor"))
        return
    check(input._dtype is weight._dtype, lambda: (
        f"expected scalar type {_SCALAR_NAMES[input._dtype.name]} but found "
        f"{_SCALAR_NAMES[weight._dtype.name]}"))
    if bias is not None and bias._dtype is not input._dtype:
        check(not (bias._dtype.is_floating_point or bias._dtype.is_complex) or
              input._dtype.is_floating_point or input._dtype.is_complex, lambda: (
                  f"result type {_SCALAR_NAMES[bias._dtype.name]} can't be cast to the "
                  f"desired output type {_SCALAR_NAMES[input._dtype.name]}"))


def _check_kernel_dtype(input, dim, transposed, dilated):
    """Which dtypes torch's CPU convolution kernels were compiled for (their names)."""
    d = input._dtype
    if d.is_floating_point or d.is_complex or d is dt.int64:   # (torch 2.13: int64 too)
        return
    if transposed:
        name = "slow_conv_transpose3d_out_cpu" if dim == 3 else "slow_conv_transpose2d_out_cpu"
    elif dilated:
        name = "slow_conv_dilated<>"
    elif d is dt.bool_:
        name = "compute_columns3d" if dim == 3 else "slow_conv2d_cpu"
    else:
        return
    raise NotImplementedError(f'"{name}" not implemented for \'{d._scalar_name}\'')


def _per_channel(sizes) -> str:
    """``3 x 4``; 1-d sizes as the 2-d convolution torch runs them as (``1 x 4``)."""
    return " x ".join(map(str, (1,) + tuple(sizes) if len(sizes) == 1 else sizes))


def _zero_dilation(input, weight, dilation, transposed, groups):
    """A zero dilation passes torch's shape checks; the backend it reaches refuses it, each
    in its own words: oneDNN (float32/bfloat16 convolutions it takes), the transposed
    kernels, or the native dilated ones (1-d convolutions run as 2-d ones)."""
    if len(dilation) == 1:
        dilation = (1,) + tuple(dilation)
    if transposed:
        names = _SPATIAL_NAMES[len(dilation)]
        raise RuntimeError("dilation should be greater than zero, but got " + ", ".join(
            f"dilation_{n}: {d}" for n, d in zip(names, dilation)))
    isz, wsz = input._sizes, weight._sizes
    if len(isz) == 3:
        isz, wsz = isz[:2] + (1,) + isz[2:], wsz[:2] + (1,) + wsz[2:]
    if input._dtype.name in _MKLDNN_TYPES and (
            groups > 1 or (wsz[-1] > 3 and wsz[-2] > 3) or isz[0] > 1 or
            isz[0] * isz[1] * isz[2] * isz[3] > 20480):
        raise RuntimeError("non-positive dilation is not supported")
    raise RuntimeError(f"dilation should be greater than zero, but got {list(dilation)}")


def _out_spatial(in_sp, k_sp, stride, padding, dilation, transposed, output_padding):
    if transposed:
        return tuple((i - 1) * s - 2 * p + d * (k - 1) + op + 1 for i, k, s, p, d, op in
                     zip(in_sp, k_sp, stride, padding, dilation, output_padding))
    return tuple((i + 2 * p - d * (k - 1) - 1) // s + 1 for i, k, s, p, d in
                 zip(in_sp, k_sp, stride, padding, dilation))


def _unsqueezed2(sizes, strides):
    """(sizes, strides) of ``t.unsqueeze(2)``."""
    inner = sizes[2] * strides[2] if len(sizes) > 2 else 1
    return sizes[:2] + (1,) + sizes[2:], strides[:2] + (inner,) + strides[2:]


_CPU_FLAGS: list = []


def _cpu_flags() -> frozenset:
    if not _CPU_FLAGS:
        flags = set()
        try:
            with open("/proc/cpuinfo") as f:
                for line in f:
                    if line.startswith(("flags", "Features")):
                        flags.update(line.split(":", 1)[1].split())
        except OSError:
            pass
        _CPU_FLAGS.append(frozenset(flags))
    return _CPU_FLAGS[0]


def _onednn(input, weight, stride, dilation, groups, transposed, output_padding) -> bool:
    """Whether torch's CPU convolution would run this one through oneDNN (its
    ``use_mkldnn``), whose layouts differ from its own kernels' (Note [Convolution output
    layout])."""
    if transposed and any(op >= s for op, s in zip(output_padding, stride)):
        return False
    dtype = input._dtype
    if dtype is dt.bfloat16:   # mkldnn_bf16_device_check
        flags = _cpu_flags()
        return {"avx512bw", "avx512vl", "avx512dq"} <= flags or "bf16" in flags
    if dtype is dt.float16:    # mkldnn_fp16_device_check
        flags = _cpu_flags()
        return "avx512_fp16" in flags or "amx_fp16" in flags
    if dtype is not dt.float32:
        return False
    isz, wsz = input._sizes, weight._sizes
    if len(isz) == 3:          # torch runs it as a 2-d one (H = 1)
        isz, wsz = isz[:2] + (1,) + isz[2:], wsz[:2] + (1,) + wsz[2:]
    if not (any(s != 1 for s in stride) or any(d != 1 for d in dilation) or isz[0] >= 16
            or wsz[-1] != 1 or wsz[-2] != 1):
        from ...utils.env import get_num_threads
        if get_num_threads() <= 1:
            return False
    return (groups > 1 or (wsz[-1] > 3 and wsz[-2] > 3) or isz[0] > 1
            or isz[0] * isz[1] * isz[2] * isz[3] > 20480)


def _weight_grad_layout(input, weight, onednn):
    """Strides of the weight gradient (Note [Convolution output layout])."""
    wsizes = weight._sizes
    strides = _layout(input, weight, wsizes, onednn)
    if not onednn and len(wsizes) > 3:
        fmt = (contiguous_format if strides == contiguous_strides(wsizes) else
               channels_last if len(wsizes) == 4 else channels_last_3d)
        if is_contiguous_in(wsizes, weight._strides, fmt):
            return weight._strides
    return strides


def _layout(input, weight, sizes, onednn):
    """Strides of a convolution result of ``sizes`` (Note [Convolution output layout])."""
    n = len(sizes)
    if n == 3:
        # torch runs a 1-d convolution as a 2-d one: a contiguous input and the weight
        # unsqueezed at dim 2, whose layout can then still make the result channels-last
        ws, wst = _unsqueezed2(weight._sizes, weight._strides)
        isz = input._sizes[:2] + (1,) + input._sizes[2:]
        sizes4 = sizes[:2] + (1,) + sizes[2:]
        if (channels_last_order(isz, contiguous_strides(isz)) is not None or
                channels_last_order(ws, wst) is not None):
            strides = _channels_last_strides(sizes4)
            return strides[:2] + strides[3:]
        return contiguous_strides(tuple(sizes))
    if n == 4 or (n == 5 and onednn):
        if (channels_last_order(input._sizes, input._strides) is not None or
                channels_last_order(weight._sizes, weight._strides) is not None):
            return _channels_last_strides(sizes)
    return contiguous_strides(tuple(sizes))


def _channels_last_strides(sizes) -> tuple:
    n = len(sizes)
    perm = (0,) + tuple(range(2, n)) + (1,)
    cl = contiguous_strides(tuple(sizes[p] for p in perm))
    strides = [0] * n
    for i, p in enumerate(perm):
        strides[p] = cl[i]
    return tuple(strides)


def _new_like_layout(sizes, strides, dtype, device):
    return new_strided(tuple(sizes), strides, dtype, device)


# -- the NumPy side ------------------------------------------------------------------------------

def _compute_type(arr: np.ndarray) -> np.ndarray:
    if arr.dtype.itemsize == 2 and arr.dtype.kind not in "iu":
        return arr.astype(np.float32)
    return arr


def _padded(arr: np.ndarray, padding) -> np.ndarray:
    if not any(padding):
        return arr
    shape = arr.shape[:2] + tuple(s + 2 * p for s, p in zip(arr.shape[2:], padding))
    out = np.zeros(shape, arr.dtype)
    out[(slice(None), slice(None)) + tuple(slice(p, p + s) for p, s in
                                           zip(padding, arr.shape[2:]))] = arr
    return out


def _columns(arr, ksizes, stride, padding, dilation, out_sp, groups):
    """im2col: ``(N, g, C/g * prod(K), prod(Out))``, one copy of the windows view
    (Note [Convolution as windows and one matmul])."""
    xp = _padded(arr, padding)
    n, c = xp.shape[:2]
    st = xp.strides
    d = len(ksizes)
    shape = (n, c) + tuple(ksizes) + tuple(out_sp)
    strides = st[:2] + tuple(st[2 + i] * dilation[i] for i in range(d)) + \
        tuple(st[2 + i] * stride[i] for i in range(d))
    win = as_strided(xp, shape, strides, writeable=False)
    return win.reshape(n, groups, (c // groups) * _prod(ksizes), _prod(out_sp))


def _col2im(cols, channels, ksizes, stride, padding, dilation, in_sp, out_sp):
    """The adjoint of ``_columns``: ``cols`` ``(N, C * prod(K), prod(Out))`` summed back
    onto an ``(N, C, *in_sp)`` image, one strided add per kernel offset."""
    n = cols.shape[0]
    cols = cols.reshape((n, channels) + tuple(ksizes) + tuple(out_sp))
    padded_sp = tuple(s + 2 * p for s, p in zip(in_sp, padding))
    # room for every window, even when the last ones reach past the padded image
    # (a transposed convolution's output_padding, which only adds zeros)
    reach = tuple(max(ps, (o - 1) * st + dl * (k - 1) + 1) for ps, o, st, dl, k in
                  zip(padded_sp, out_sp, stride, dilation, ksizes))
    buf = np.zeros((n, channels) + reach, dtype=cols.dtype)
    if all(o > 0 for o in out_sp):
        for kidx in np.ndindex(*ksizes):
            where = tuple(slice(k * dl, k * dl + (o - 1) * st + 1, st) for k, dl, o, st in
                          zip(kidx, dilation, out_sp, stride))
            buf[(slice(None), slice(None)) + where] += cols[(slice(None), slice(None)) + kidx]
    return buf[(slice(None), slice(None)) + tuple(slice(p, p + s) for p, s in
                                                  zip(padding, in_sp))]


def _mm(a, b, out=None):
    """``np.matmul``, but an outer product (a contraction over one element, e.g. a
    depthwise convolution's input gradient) as a broadcast multiply: NumPy's matmul
    does not take BLAS for it and is several times slower."""
    if a.shape[-1] == 1:
        return np.multiply(a, b, out=out)
    return np.matmul(a, b, out=out)


def _conv_np(x, w, stride, padding, dilation, groups, out_sp, out=None):
    """Plain convolution of arrays: ``(N, O, *out_sp)``; written into ``out`` (a
    C-contiguous array of that shape and the product's dtype) when given."""
    n = x.shape[0]
    o = w.shape[0]
    ksizes = w.shape[2:]
    cols = _columns(x, ksizes, stride, padding, dilation, out_sp, groups)
    wm = w.reshape(groups, o // groups, -1)
    if out is not None:
        _mm(wm, cols, out=out.reshape(n, groups, o // groups, -1))
        return out
    return _mm(wm, cols).reshape((n, o) + tuple(out_sp))


def _conv_transpose_np(x, w, stride, padding, dilation, groups, out_sp):
    """Transposed convolution of arrays: x ``(N, Cin, *S)``, w ``(Cin, Cout/g, *K)``."""
    cin = x.shape[1]
    wm = w.reshape(groups, cin // groups, -1)
    return _matmul_col2im(wm.transpose(0, 2, 1), x, w.shape[1] * groups, w.shape[2:], stride,
                          padding, dilation, groups, out_sp)


def _matmul_col2im(left, right, channels, ksizes, stride, padding, dilation, groups, in_sp):
    """col2im(``left @ right``): ``left`` ``(g, C/g * prod(K), O/g)``, ``right``
    ``(N, O, *Out)``; the ``(N, C, *in_sp)`` image the columns sum to.

    Note [col2im with long runs]: a strided ``+=`` per kernel offset over an
    ``(N, C, *Out)`` block iterates rows as short as the output's last dim. Flattening the
    spatial dims of the (padded) image makes each offset's targets one slice with step
    ``stride[-1]``, provided the columns are laid out with rows long enough: the right
    operand is zero-padded to sizes ``G`` with ``G[e] = stride[e-1] * B[e] / stride[e]``
    (``B``, the image's padded sizes, rounded up to multiples of the strides). The extra
    columns are zeros, so wherever their targets fall they add nothing."""
    n, o = right.shape[:2]
    out_sp = right.shape[2:]
    d = len(ksizes)
    need = [max(s + 2 * p, (q - 1) * st + dl * (k - 1) + 1) for s, p, q, st, dl, k in
            zip(in_sp, padding, out_sp, stride, dilation, ksizes)]
    b = list(need)
    for e in range(1, d):
        b[e] = -(-need[e] // stride[e]) * stride[e]
    g = [out_sp[0]] + [stride[e - 1] * b[e] // stride[e] for e in range(1, d)]
    if list(out_sp) != g:
        padded = np.zeros((n, o) + tuple(g), right.dtype)
        padded[(slice(None), slice(None)) + tuple(slice(0, q) for q in out_sp)] = right
        right = padded
    gprod = _prod(g)
    cols = _mm(left, right.reshape(n, groups, o // groups, gprod))
    cols = cols.reshape(n, channels, _prod(ksizes), gprod)
    bstr = contiguous_strides(tuple(b))
    last = stride[-1]
    span = last * (gprod - 1) + 1
    top = sum((k - 1) * dl * bs for k, dl, bs in zip(ksizes, dilation, bstr))
    buf = np.zeros((n, channels, max(_prod(b), top + span)), cols.dtype)
    for i, kidx in enumerate(np.ndindex(*ksizes)):
        base = sum(k * dl * bs for k, dl, bs in zip(kidx, dilation, bstr))
        buf[:, :, base:base + span:last] += cols[:, :, i]
    img = buf[:, :, :_prod(b)].reshape((n, channels) + tuple(b))
    return img[(slice(None), slice(None)) + tuple(slice(p, p + s) for p, s in
                                                  zip(padding, in_sp))]


def _conv_grad_weight_np(go, x, wsizes, stride, padding, dilation, groups):
    """Weight gradient of a plain convolution: ``sum_n go @ columns(x)^T``."""
    n, o = go.shape[:2]
    out_sp = go.shape[2:]
    cols = _columns(x, wsizes[2:], stride, padding, dilation, out_sp, groups)
    gom = go.reshape(n, groups, o // groups, -1)
    return np.matmul(gom, cols.transpose(0, 1, 3, 2)).sum(0).reshape(wsizes)


def _conv_grad_input_np(go, w, stride, padding, dilation, groups, in_sp):
    o = go.shape[1]
    wm = w.reshape(groups, o // groups, -1)
    return _matmul_col2im(wm.transpose(0, 2, 1), go, w.shape[1] * groups, w.shape[2:], stride,
                          padding, dilation, groups, in_sp)


def _store(result, value) -> None:
    with np.errstate(all="ignore"):
        np.copyto(result._array(), value, casting="unsafe")


def _bias_view(b: np.ndarray, ndim: int) -> np.ndarray:
    return b.reshape((1, b.shape[0]) + (1,) * (ndim - 2))


# -- convolution ---------------------------------------------------------------------------------

def convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding,
                groups):
    stride, padding, dilation, output_padding = _params(
        input, weight, bias, stride, padding, dilation, transposed, output_padding, groups)
    isizes, wsizes = input._sizes, weight._sizes
    dim = len(wsizes) - 2
    if transposed:
        _check_output_padding(stride, dilation, output_padding)
        out_ch = wsizes[1] * groups
    else:
        out_ch = wsizes[0]
    out_sp = _out_spatial(isizes[2:], wsizes[2:], stride, padding, dilation, transposed,
                          output_padding)
    empty_in = isizes[0] == 0 or isizes[1] == 0
    if isizes[1] == 0:
        out_ch = 0
    if not empty_in:
        check(numel_of(isizes) != 0, lambda: (
            f"Only zero batch or zero channel inputs are supported, but got input shape: "
            f"{_sizes_str(isizes)}"))
    sizes = (isizes[0], out_ch) + out_sp
    check(all(s >= 0 for s in out_sp), lambda: (
        f"Given input size per channel: ({_per_channel(isizes[2:])}). Calculated output size "
        f"per channel: ({_per_channel(out_sp)}). Output size is too small"))
    if not empty_in:
        _check_types(input, weight, bias)
        if 0 in dilation:
            _zero_dilation(input, weight, dilation, transposed, groups)
        _check_kernel_dtype(input, dim, transposed, any(d != 1 for d in dilation))
    onednn = _onednn(input, weight, stride, dilation, groups, transposed, output_padding)
    result = _new_like_layout(sizes, _layout(input, weight, sizes, onednn), input._dtype,
                              input._device)
    if _is_meta(input) or _is_meta(weight) or numel_of(sizes) == 0:
        return result
    x = _compute_type(input._array())
    w = _compute_type(weight._array())
    if transposed:
        value = _conv_transpose_np(x, w, stride, padding, dilation, groups, out_sp)
    else:
        dst = result._array()
        # the product straight into the result when it is the product's own layout
        direct = dst.flags.c_contiguous and dst.dtype == x.dtype == w.dtype
        value = _conv_np(x, w, stride, padding, dilation, groups, out_sp,
                         dst if direct else None)
        if direct:
            if bias is not None:
                dst += _bias_view(bias._array(), len(sizes))
            return result
    if bias is not None:
        value += _bias_view(_compute_type(bias._array()), len(sizes)).astype(value.dtype,
                                                                             copy=False)
    _store(result, value)
    return result


def conv_internal(input, weight, bias, stride, padding, dilation, transposed, output_padding,
                  groups, benchmark, deterministic, cudnn_enabled, allow_tf32):
    """``_convolution``: ``convolution`` with the backend flags torch's CPU ignores."""
    return convolution(input, weight, bias, stride, padding, dilation, transposed,
                       output_padding, groups)


def convolution_backward(grad_output, input, weight, bias_sizes, stride, padding, dilation,
                         transposed, output_padding, groups, output_mask):
    """(grad_input, grad_weight, grad_bias), each None where ``output_mask`` says so."""
    stride, padding, dilation, output_padding = _params(
        input, weight, None, stride, padding, dilation, transposed, output_padding, groups)
    want_i, want_w, want_b = (bool(m) for m in output_mask)
    gi = gw = gb = None
    isizes, wsizes = input._sizes, weight._sizes
    onednn = _onednn(input, weight, stride, dilation, groups, transposed, output_padding)
    if want_i:
        gi = _new_like_layout(isizes, _layout(input, weight, isizes, onednn), input._dtype,
                              input._device)
    if want_w:
        gw = _new_like_layout(wsizes, _weight_grad_layout(input, weight, onednn),
                              weight._dtype, weight._device)
    if want_b:
        bsizes = tuple(bias_sizes) if bias_sizes is not None else (grad_output._sizes[1],)
        gb = new_strided(bsizes, contiguous_strides(bsizes), grad_output._dtype,
                         grad_output._device)
    if _is_meta(grad_output) or _is_meta(input) or _is_meta(weight):
        return gi, gw, gb
    # (a gradient is often an expanded scalar: BLAS needs real strides)
    go = np.ascontiguousarray(_compute_type(grad_output._array()))
    empty = numel_of(isizes) == 0 or numel_of(grad_output._sizes) == 0
    if want_b:
        _store(gb, go.sum(axis=(0,) + tuple(range(2, go.ndim))))
    if want_i:
        if empty or numel_of(wsizes) == 0:
            _store(gi, 0)
        elif transposed:
            _store(gi, _conv_np(go, _compute_type(weight._array()), stride, padding, dilation,
                                groups, isizes[2:]))
        else:
            _store(gi, _conv_grad_input_np(go, _compute_type(weight._array()), stride,
                                           padding, dilation, groups, isizes[2:]))
    if want_w:
        if empty:
            _store(gw, 0)
        elif transposed:
            # the weight (Cin, Cout/g, *K) pairs the input with the windows of grad_out
            x = _compute_type(input._array())
            n, cin = x.shape[:2]
            cols = _columns(go, wsizes[2:], stride, padding, dilation, isizes[2:], groups)
            xm = x.reshape(n, groups, cin // groups, -1)
            _store(gw, np.matmul(xm, cols.transpose(0, 1, 3, 2)).sum(0).reshape(wsizes))
        else:
            _store(gw, _conv_grad_weight_np(go, _compute_type(input._array()), wsizes, stride,
                                            padding, dilation, groups))
    return gi, gw, gb


# -- the composites (CompositeImplicitAutograd, as torch's) --------------------------------------

def _batchify(input, spatial: int, name: str):
    n = len(input._sizes)
    batched = n == spatial + 2
    check(n == spatial + 1 or batched, lambda: (
        f"Expected {spatial + 1}D (unbatched) or {spatial + 2}D (batched) input to {name}, "
        f"but got input of size: {_sizes_str(input._sizes)}"))
    return (input if batched else _call_op("aten::unsqueeze", input, 0)), batched


def _unbatch(out, batched):
    return out if batched else _call_op("aten::squeeze.dim", out, 0)


def _complex_parts(t):
    real = _call_op("aten::view_as_real", _call_op("aten::resolve_conj", t))
    last = len(real._sizes) - 1
    return (_call_op("aten::select.int", real, last, 0),
            _call_op("aten::select.int", real, last, 1))


def _check_same_type(input, weight, bias):
    check(input._dtype is weight._dtype, lambda: (
        f"Input type ({type_string(input)}) and weight type ({type_string(weight)}) should "
        f"be the same"))
    check(bias is None or bias._dtype is input._dtype, lambda: (
        f"Input type ({type_string(input)}) and bias type ({type_string(bias)}) should be "
        f"the same"))


def _complex_conv(conv, input, weight, bias):
    """torch's complex convolution: three real ones (Gauss's trick),
    ``a - b + i (c - a - b)``."""
    _check_same_type(input, weight, bias)
    xr, xi = _complex_parts(input)
    wr, wi = _complex_parts(weight)
    add = "aten::add.Tensor"
    if bias is None:
        a = conv(xr, wr, None)
        b = conv(xi, wi, None)
        c = conv(_call_op(add, xr, xi, 1), _call_op(add, wr, wi, 1), None)
    else:
        br, bi = _complex_parts(bias)
        a = conv(xr, wr, br)
        b = conv(xi, wi, None)
        c = conv(_call_op(add, xr, xi, 1), _call_op(add, wr, wi, 1), _call_op(add, br, bi, 1))
    sub = "aten::sub.Tensor"
    imag = _call_op(sub, _call_op(sub, c, a, 1), b, 1)
    return _call_op(add, _call_op(sub, a, b, 1), _call_op("aten::mul.Scalar", imag, 1j), 1)


def _conv_nd(input, weight, bias, stride, padding, dilation, groups, spatial, name):
    check(bias is None or bias._dtype is input._dtype, lambda: (
        f"Input type ({_cpp_name(input._dtype)}) and bias type ({_cpp_name(bias._dtype)}) "
        f"should be the same"))
    inp, batched = _batchify(input, spatial, name)
    zeros = (0,) * spatial

    def conv(x, w, b):
        return _call_op("aten::convolution", x, w, b, stride, padding, dilation, False, zeros,
                        groups)

    if input._dtype.is_complex:
        out = _complex_conv(conv, inp, weight, bias)
    else:
        out = conv(inp, weight, bias)
    return _unbatch(out, batched)


def conv1d_composite(input, weight, bias=None, stride=(1,), padding=(0,), dilation=(1,),
                     groups=1):
    return _conv_nd(input, weight, bias, stride, padding, dilation, groups, 1, "conv1d")


def conv2d_composite(input, weight, bias=None, stride=(1, 1), padding=(0, 0),
                     dilation=(1, 1), groups=1):
    return _conv_nd(input, weight, bias, stride, padding, dilation, groups, 2, "conv2d")


def conv3d_composite(input, weight, bias=None, stride=(1, 1, 1), padding=(0, 0, 0),
                     dilation=(1, 1, 1), groups=1):
    return _conv_nd(input, weight, bias, stride, padding, dilation, groups, 3, "conv3d")


def _cpp_name(dtype) -> str:
    from ..linalg import cpp_name
    return cpp_name(dtype)


def _same_padding(input, weight, stride, dilation):
    """padding='same': each dim's total padding ``d * (k - 1)``, split left/right."""
    k = len(weight._sizes)
    check(k > 2, "weight should have at least three dimensions")
    dim = k - 2
    check(k == len(input._sizes), lambda: (
        f"Expected {k}-dimensional input for {k}-dimensional weight"
        f"{_sizes_str(weight._sizes)}, but got {len(input._sizes)}-dimensional input of size "
        f"{_sizes_str(input._sizes)} instead"))
    check(len(stride) in (dim, 1), lambda: f"stride cannot broadcast to {dim} dimensions")
    check(len(dilation) in (dim, 1), lambda: f"dilation cannot broadcast to {dim} dimensions")
    check(all(s == 1 for s in stride), "padding='same' is not supported for strided convolutions")
    left, right = [], []
    for i in range(dim):
        d = dilation[0] if len(dilation) == 1 else dilation[i]
        total = d * (weight._sizes[i + 2] - 1)
        left.append(total // 2)
        right.append(total - total // 2)
    return left, right


_WARNED_SAME = [False]


def conv_internal_mode(input, weight, bias, stride, padding, dilation, groups):
    """``_convolution_mode``: padding given as 'same' or 'valid'."""
    if padding == "same":
        left, right = _same_padding(input, weight, stride, dilation)
        dim = len(weight._sizes) - 2
        zeros = (0,) * dim
        if left == right:
            return _call_op("aten::convolution", input, weight, bias, stride, left, dilation,
                            False, zeros, groups)
        if not _WARNED_SAME[0]:     # torch warns once per process (TORCH_WARN_ONCE)
            _WARNED_SAME[0] = True
            warnings.warn("Using padding='same' with even kernel lengths and odd dilation may "
                          "require a zero-padded copy of the input be created", UserWarning,
                          stacklevel=2)
        pad = [0] * (2 * dim)
        for i in range(dim):
            delta = right[i] - left[i]
            at = 2 * (dim - 1 - i)        # F.pad order: the last dim first
            if delta > 0:
                pad[at + 1] = delta
            else:
                pad[at] = delta
                left[i] = right[i]
        padded = _call_op("aten::constant_pad_nd", input, pad, 0)
        return _call_op("aten::convolution", padded, weight, bias, stride, left, dilation,
                        False, zeros, groups)
    if padding == "valid":
        return _call_op("aten::convolution", input, weight, bias, stride, (0,), dilation,
                        False, (0,), groups)
    raise RuntimeError(f"Invalid padding string: '{padding}'")


def _conv_nd_mode(input, weight, bias, stride, padding, dilation, groups, spatial, name):
    inp, batched = _batchify(input, spatial, name)

    def conv(x, w, b):
        return _call_op("aten::_convolution_mode", x, w, b, stride, padding, dilation, groups)

    if input._dtype.is_complex:
        out = _complex_conv(conv, inp, weight, bias)
    else:
        out = conv(inp, weight, bias)
    return _unbatch(out, batched)


def conv1d_padding_composite(input, weight, bias=None, stride=(1,), padding="valid",
                             dilation=(1,), groups=1):
    return _conv_nd_mode(input, weight, bias, stride, padding, dilation, groups, 1, "conv1d")


def conv2d_padding_composite(input, weight, bias=None, stride=(1, 1), padding="valid",
                             dilation=(1, 1), groups=1):
    return _conv_nd_mode(input, weight, bias, stride, padding, dilation, groups, 2, "conv2d")


def conv3d_padding_composite(input, weight, bias=None, stride=(1, 1, 1), padding="valid",
                             dilation=(1, 1, 1), groups=1):
    return _conv_nd_mode(input, weight, bias, stride, padding, dilation, groups, 3, "conv3d")


def _conv_transpose_nd(input, weight, bias, stride, padding, output_padding, groups,
                       dilation, spatial, name):
    inp, batched = _batchify(input, spatial, name)

    def conv(x, w, b):
        return _call_op("aten::convolution", x, w, b, stride, padding, dilation, True,
                        output_padding, groups)

    if input._dtype.is_complex:
        out = _complex_conv(conv, inp, weight, bias)
    else:
        out = conv(inp, weight, bias)
    return _unbatch(out, batched)


def conv_transpose1d_composite(input, weight, bias=None, stride=(1,), padding=(0,),
                               output_padding=(0,), groups=1, dilation=(1,)):
    return _conv_transpose_nd(input, weight, bias, stride, padding, output_padding, groups,
                              dilation, 1, "conv_transpose1d")


def conv_transpose2d_composite(input, weight, bias=None, stride=(1, 1), padding=(0, 0),
                               output_padding=(0, 0), groups=1, dilation=(1, 1)):
    return _conv_transpose_nd(input, weight, bias, stride, padding, output_padding, groups,
                              dilation, 2, "conv_transpose2d")


def conv_transpose3d_composite(input, weight, bias=None, stride=(1, 1, 1), padding=(0, 0, 0),
                               output_padding=(0, 0, 0), groups=1, dilation=(1, 1, 1)):
    return _conv_transpose_nd(input, weight, bias, stride, padding, output_padding, groups,
                              dilation, 3, "conv_transpose3d")


# -- im2col / col2im (Fold, Unfold) --------------------------------------------------------------

def _check_fold_params(kernel_size, dilation, padding, stride):
    for name, v in (("kernel_size", kernel_size), ("dilation", dilation),
                    ("padding", padding), ("stride", stride)):
        check(len(v) == 2, lambda name=name, v=v: (
            f"It is expected {name} equals to 2, but got size {len(v)}"))
    kh, kw = kernel_size
    check(kh > 0 and kw > 0, lambda: (
        f"kernel size should be greater than zero, but got kernel_height: {kh} kernel_width: "
        f"{kw}"))
    sh, sw = stride
    check(sh > 0 and sw > 0, lambda: (
        f"stride should be greater than zero, but got stride_height: {sh} stride_width: {sw}"))
    dh, dw = dilation
    check(dh > 0 and dw > 0, lambda: (
        f"dilation should be greater than zero, but got dilation_height: {dh} "
        f"dilation_width: {dw}"))
    ph, pw = padding
    check(ph >= 0 and pw >= 0, lambda: (
        f"padding should be non-negative, but got pad_height: {ph} pad_width: {pw}"))


def _fold_blocks(sp, kernel_size, dilation, padding, stride):
    return tuple((s + 2 * p - (d * (k - 1) + 1)) // st + 1 for s, k, d, p, st in
                 zip(sp, kernel_size, dilation, padding, stride))


def _check_fold_dtype(t, name):
    d = t._dtype
    if d.is_floating_point or d.is_complex or d is dt.bool_:
        return
    raise NotImplementedError(f'"{name}" not implemented for \'{d._scalar_name}\'')


def _im2col_impl(self, kernel_size, dilation, padding, stride, out):
    kernel_size, dilation = tuple(kernel_size), tuple(dilation)
    padding, stride = tuple(padding), tuple(stride)
    _check_fold_params(kernel_size, dilation, padding, stride)
    sizes = self._sizes
    n = len(sizes)
    if n < 3:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}],"
                         f" but got {n})")
    check(n in (3, 4) and all(s != 0 for s in sizes[-3:]), lambda: (
        f"Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other "
        f"non-zero dimensions for input, but got: {_sizes_str(sizes)}"))
    sp = sizes[-2:]
    blocks = _fold_blocks(sp, kernel_size, dilation, padding, stride)
    if blocks[0] < 1 or blocks[1] < 1:
        raise RuntimeError(
            f"Given input with spatial size ({sp[0]}, {sp[1]}), kernel_size=({kernel_size[0]}, "
            f"{kernel_size[1]}), dilation=({dilation[0]}, {dilation[1]}), padding=("
            f"{padding[0]}, {padding[1]}), calculated shape of the array of sliding blocks as "
            f"({blocks[0]}, {blocks[1]}), but its components must be at least one.")
    _check_fold_dtype(self, "im2col_out_cpu")
    c = sizes[-3]
    out_sizes = sizes[:-3] + (c * kernel_size[0] * kernel_size[1], blocks[0] * blocks[1])
    result = _result(out, out_sizes, self)
    if _is_meta(self) or numel_of(out_sizes) == 0:
        return result
    x = self._array()
    if n == 3:
        x = x[None]
    cols = _columns(x, kernel_size, stride, padding, dilation, blocks, 1)
    _store(result, cols.reshape(out_sizes))
    return result


def _result(out, sizes, like):
    if out is None:
        return new_strided(sizes, contiguous_strides(sizes), like._dtype, like._device)
    from ..linalg import _check_out_dtype
    from ..resize import resize_output
    _check_out_dtype(out, like._dtype)
    resize_output(out, sizes)
    return out


def im2col(self, kernel_size, dilation, padding, stride):
    return _im2col_impl(self, kernel_size, dilation, padding, stride, None)


def im2col_out(self, kernel_size, dilation, padding, stride, out):
    result = _im2col_impl(self, kernel_size, dilation, padding, stride, out)
    result._vc[0] += 1
    return result


def _col2im_impl(self, output_size, kernel_size, dilation, padding, stride, out):
    output_size, kernel_size = tuple(output_size), tuple(kernel_size)
    dilation, padding, stride = tuple(dilation), tuple(padding), tuple(stride)
    check(len(output_size) == 2, lambda: (
        f"It is expected output_size equals to 2, but got size {len(output_size)}"))
    _check_fold_params(kernel_size, dilation, padding, stride)
    sizes = self._sizes
    n = len(sizes)
    check(n in (2, 3) and all(s != 0 for s in sizes[-2:]), lambda: (
        f"Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and "
        f"non-zero dimensions for input, but got: {_sizes_str(sizes)}"))
    kprod = kernel_size[0] * kernel_size[1]
    check(sizes[-2] % kprod == 0, lambda: (
        f"Expected size of input's dimension 1 to be divisible by the product of "
        f"kernel_size, but got input.size(1)={sizes[-2]} and kernel_size=({kernel_size[0]}, "
        f"{kernel_size[1]})."))
    blocks = _fold_blocks(output_size, kernel_size, dilation, padding, stride)
    check(blocks[0] >= 1 and blocks[1] >= 1 and blocks[0] * blocks[1] == sizes[-1], lambda: (
        f"Given output_size=({output_size[0]}, {output_size[1]}), kernel_size=("
        f"{kernel_size[0]}, {kernel_size[1]}), dilation=({dilation[0]}, {dilation[1]}), "
        f"padding=({padding[0]}, {padding[1]}), stride=({stride[0]}, {stride[1]}), expected "
        f"size of input's dimension 2 to match the calculated number of sliding blocks "
        f"{blocks[0]} * {blocks[1]} = {blocks[0] * blocks[1]}, but got input.size(2)="
        f"{sizes[-1]}."))
    _check_fold_dtype(self, "col2im_out_cpu")
    c = sizes[-2] // kprod
    out_sizes = sizes[:-2] + (c,) + output_size
    result = _result(out, out_sizes, self)
    if _is_meta(self) or numel_of(out_sizes) == 0:
        return result
    cols = self._array()
    if n == 2:
        cols = cols[None]
    if cols.dtype == np.bool_:
        cols = cols.astype(np.int8)
        img = _col2im(cols, c, kernel_size, stride, padding, dilation, output_size, blocks)
        img = img != 0
    else:
        img = _col2im(_compute_type(cols), c, kernel_size, stride, padding, dilation,
                      output_size, blocks)
    _store(result, img.reshape(out_sizes))
    return result


def col2im(self, output_size, kernel_size, dilation, padding, stride):
    return _col2im_impl(self, output_size, kernel_size, dilation, padding, stride, None)


def col2im_out(self, output_size, kernel_size, dilation, padding, stride, out):
    result = _col2im_impl(self, output_size, kernel_size, dilation, padding, stride, out)
    result._vc[0] += 1
    return result
