"""Kernels: upsample (nearest, nearest-exact, linear, cubic, anti-aliased), reflection and
replication padding, grid_sampler, affine_grid_generator, pixel/channel shuffle, one_hot.

Note [Separable resampling]
~~~~~~~~~~~~~~~~~~~~~~~~~~~
Every upsample mode is a product of one-dimensional resamplings: along each spatial dim,
output position ``o`` reads ``K`` input positions ``idx[o, k]`` blended with weights
``w[o, k]`` (nearest: K=1 and no weights; linear: K=2; cubic: K=4; anti-aliased: a
window as wide as the filter's support). ``_taps`` computes ``(idx, w)`` the way torch's
CPU kernels do (``area_pixel_compute_scale`` / ``area_pixel_compute_source_index``, in
the op-math type: float32 for float32/half/bfloat16 inputs, float64 for float64), and
the forward gathers whole slabs along the dim with ``np.take`` and blends them, the last
dim first, in the order torch's interpolation sums (innermost dim innermost), so float64
results agree to the last bit and float32 ones to an ulp or two. The backward scatters
each tap's weighted gradient back (``_scatter_axis``: a stable sort then
``np.add.reduceat`` along the dim).
"""

from __future__ import annotations

import math

import numpy as np

from ...core import dtypes as dt
from ...core.checks import check
from ...core.layouts import channels_last_order
from ...core.tensor_impl import contiguous_strides, numel_of
from .. import views
from ..factory import empty, new_strided
from ..shape_ops import _fill_from, _strides_in_order

_call = views._call_op


def _is_meta(t) -> bool:
    return t._device.type == "meta"


def _empty_as(like, sizes, dtype=None):
    """A new tensor of ``sizes`` laid out in ``like``'s suggested memory format."""
    sizes = tuple(sizes)
    dtype = dtype or like._dtype
    order = channels_last_order(like._sizes, like._strides) if len(sizes) in (4, 5) else None
    if order is None:
        return new_strided(sizes, contiguous_strides(sizes), dtype, like._device)
    return new_strided(sizes, _strides_in_order(sizes, order), dtype, like._device)


def _acc(dtype):
    return np.float64 if dtype is dt.float64 else np.float32


# -- separable taps (Note [Separable resampling]) ---------------------------------------------

def _scales_value(scale, in_size, out_size, acc):
    """torch's compute_scales_value: 1/scale when a positive scale was given, else
    in/out, in the op-math type."""
    if scale is not None and scale > 0:
        return acc(1.0 / scale)
    return acc(acc(in_size) / acc(out_size))


def _area_scale(in_size, out_size, align_corners, scale, acc):
    """torch's area_pixel_compute_scale: only align_corners maps a single output to 0;
    otherwise a single output samples the middle of the input like any other size."""
    if not align_corners:
        return _scales_value(scale, in_size, out_size, acc)
    if out_size > 1:
        return acc(acc(in_size - 1) / acc(out_size - 1))
    return acc(0)


def _source_index(scale, out_size, align_corners, cubic, acc):
    o = np.arange(out_size, dtype=acc)
    if align_corners:
        return scale * o
    src = scale * (o + acc(0.5)) - acc(0.5)
    if not cubic:
        src = np.where(src < 0, acc(0), src).astype(acc)
    return src


def _taps_nearest(in_size, out_size, scale, exact):
    o = np.arange(out_size, dtype=np.int64)
    if not exact:
        if out_size == in_size:
            return o[:, None]
        if out_size == 2 * in_size:
            return (o >> 1)[:, None]
    s = _scales_value(scale, in_size, out_size, np.float32)
    if exact:
        # (o + 0.5) is a double in torch; floorf rounds the product to float first
        src = np.floor(((o + 0.5) * np.float64(s)).astype(np.float32))
    else:
        src = np.floor(o.astype(np.float32) * s)
    return np.minimum(src.astype(np.int64), in_size - 1)[:, None]


def _guard(real, in_size, acc):
    """torch's guard_index_and_lambda: the floor index (at most in_size - 1) and the
    fraction clamped to [0, 1]."""
    index = np.minimum(np.floor(real).astype(np.int64), in_size - 1)
    lam = np.minimum(np.maximum(real - index.astype(acc), acc(0)), acc(1)).astype(acc)
    return index, lam


def _taps_linear(in_size, out_size, align_corners, scale, acc):
    if out_size == in_size:
        o = np.arange(out_size, dtype=np.int64)
        w = np.zeros((out_size, 2), acc)
        w[:, 0] = 1
        return np.stack([o, o], 1), w
    ratio = _area_scale(in_size, out_size, align_corners, scale, acc)
    real = _source_index(ratio, out_size, align_corners, False, acc)
    i0, lam1 = _guard(real, in_size, acc)
    i1 = i0 + (i0 < in_size - 1)
    lam0 = (acc(1) - lam1).astype(acc)
    return np.stack([i0, i1], 1), np.stack([lam0, lam1], 1)


def _cubic_coefficients(t, a, acc):
    a = acc(a)
    one = acc(1)

    def conv1(x):
        return ((a + 2) * x - (a + 3)) * x * x + one

    def conv2(x):
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    x2 = one - t
    return np.stack([conv2(t + one), conv1(t), conv1(x2), conv2(x2 + one)], 1).astype(acc)


def _taps_cubic(in_size, out_size, align_corners, scale, acc):
    ratio = _area_scale(in_size, out_size, align_corners, scale, acc)
    real = _source_index(ratio, out_size, align_corners, True, acc)
    i0, t = _guard(real, in_size, acc)
    idx = np.clip(i0[:, None] - 1 + np.arange(4), 0, in_size - 1)
    return idx, _cubic_coefficients(t, -0.75, acc)


def _aa_filter_linear(x, acc):
    return np.maximum(acc(1) - np.abs(x), acc(0)).astype(acc)


def _aa_filter_cubic(x, acc):
    a = acc(-0.5)
    x = np.abs(x)
    c1 = ((a + 2) * x - (a + 3)) * x * x + acc(1)
    c2 = ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return np.where(x < 1, c1, np.where(x < 2, c2, acc(0))).astype(acc)


def _aa_filter_lanczos(x, acc):
    x = np.abs(x)
    return np.where(x < 3, np.sinc(x) * np.sinc(x / acc(3)), acc(0)).astype(acc)


_AA_FILTERS = {"aa_linear": (2, _aa_filter_linear), "aa_cubic": (4, _aa_filter_cubic),
               "aa_lanczos": (6, _aa_filter_lanczos)}


def _taps_aa(in_size, out_size, align_corners, scale, acc, kind):
    """The anti-aliasing window of each output (PIL's filters, as torch's
    ``_compute_indices_min_size_weights_aa``): the filter is widened by the scale when
    downsampling, each window's weights are normalised to sum to one."""
    interp, filt = _AA_FILTERS[kind]
    s = _area_scale(in_size, out_size, align_corners, scale, acc)
    support = acc(interp * 0.5) * s if s >= 1 else acc(interp * 0.5)
    width = int(math.ceil(float(support))) * 2 + 1
    o = np.arange(out_size, dtype=acc)
    center = (s * (o + acc(0.5))).astype(acc)
    invscale = acc(1) / s if s >= 1 else acc(1)
    xmin = np.maximum((center - support + acc(0.5)).astype(np.int64), 0)
    xsize = np.minimum((center + support + acc(0.5)).astype(np.int64), in_size) - xmin
    xsize = np.clip(xsize, 0, width)
    j = np.arange(width)
    x = ((j[None, :] + xmin[:, None]).astype(acc) - center[:, None] + acc(0.5)) * invscale
    w = filt(x.astype(acc), acc)
    w = np.where(j[None, :] < xsize[:, None], w, acc(0)).astype(acc)
    total = w.sum(1, dtype=acc)
    w = np.where(total[:, None] != 0, w / np.where(total == 0, acc(1), total)[:, None], w)
    idx = np.minimum(xmin[:, None] + j[None, :], in_size - 1)
    return idx, w.astype(acc)


def _taps(mode, in_size, out_size, align_corners, scale, acc, dtype=None):
    """``(idx, w)`` of one dim. torch's forward stores the cubic weights in the input's
    dtype (``dtype``: for half and bfloat16 they are rounded to it, then blended in
    float32); its linear weights and its backward stay in float32."""
    if mode == "nearest":
        return _taps_nearest(in_size, out_size, scale, False), None
    if mode == "nearest_exact":
        return _taps_nearest(in_size, out_size, scale, True), None
    reduced = dtype is not None and dtype in (dt.float16, dt.bfloat16)
    if mode == "linear":
        return _taps_linear(in_size, out_size, align_corners, scale, acc)
    if mode == "cubic":
        idx, w = _taps_cubic(in_size, out_size, align_corners, scale, acc)
        return idx, (w.astype(dtype.np).astype(acc) if reduced else w)
    return _taps_aa(in_size, out_size, align_corners, scale, acc, mode)


def _bshape(ndim, axis, n):
    shape = [1] * ndim
    shape[axis] = n
    return shape


def _resample_axis(arr, axis, idx, w):
    if w is None:
        return np.take(arr, idx[:, 0], axis=axis)
    shape = _bshape(arr.ndim, axis, idx.shape[0])
    out = np.take(arr, idx[:, 0], axis=axis)
    out *= w[:, 0].reshape(shape)
    for k in range(1, idx.shape[1]):
        term = np.take(arr, idx[:, k], axis=axis)
        term *= w[:, k].reshape(shape)
        out += term
    return out


def _scatter_axis(g, axis, idx, w, n_in):
    """The transpose of ``_resample_axis``: each tap's (weighted) gradient summed into the
    input position it read.

    With finite gradients this is one matrix product with the dense (out, in) matrix of
    the taps (a BLAS call, whatever the dim); otherwise (a NaN or inf must reach only the
    inputs it was read from) per tap by ``np.add.reduceat`` over runs of equal indices."""
    n_out = idx.shape[0]
    shape = list(g.shape)
    shape[axis] = n_in
    if n_out == 0 or not g.size:
        return np.zeros(shape, g.dtype)
    if np.isfinite(g).all():
        m = np.zeros((n_out, n_in), g.dtype)
        rows = np.broadcast_to(np.arange(n_out)[:, None], idx.shape)
        np.add.at(m, (rows, idx), 1 if w is None else w.astype(g.dtype))
        pre = int(np.prod(g.shape[:axis]))
        post = int(np.prod(g.shape[axis + 1:]))
        g = np.ascontiguousarray(g)      # BLAS needs real strides (grads may be expanded)
        if post == 1:
            out = np.matmul(g.reshape(pre, n_out), m)
        else:
            out = np.matmul(m.T, g.reshape(pre, n_out, post))
        return out.reshape(shape)
    out = np.zeros(shape, g.dtype)
    bshape = _bshape(g.ndim, axis, n_out)
    for k in range(idx.shape[1]):
        ik = idx[:, k]
        vals = g if w is None else g * w[:, k].reshape(bshape)
        if ik.shape[0] > 1 and (ik[1:] < ik[:-1]).any():
            order = np.argsort(ik, kind="stable")
            ik = ik[order]
            vals = np.take(vals, order, axis=axis)
        new = np.r_[True, ik[1:] != ik[:-1]]
        sums = vals if new.all() else np.add.reduceat(vals, np.flatnonzero(new), axis=axis)
        target = [slice(None)] * g.ndim
        target[axis] = ik[new]
        out[tuple(target)] += sums
    return out


# -- upsample ops -----------------------------------------------------------------------------

_DIM_NAMES = {1: ("W",), 2: ("H", "W"), 3: ("D", "H", "W")}


def _upsample_common_check(input_size, output_size, k):
    check(len(output_size) == k, lambda: (
        f"It is expected output_size equals to {k}, but got size {len(output_size)}"))
    check(len(input_size) == k + 2, lambda: (
        f"It is expected input_size equals to {k + 2}, but got size {len(input_size)}"))
    spatial_in = input_size[2:]
    if not (all(s > 0 for s in spatial_in) and all(s > 0 for s in output_size)):
        names = _DIM_NAMES[k]
        if k == 1:
            raise RuntimeError(
                f"Input and output sizes should be greater than 0, but got input (W: "
                f"{spatial_in[0]}) and output (W: {output_size[0]})")
        sep = ", "
        ins = sep.join(f"{n}: {s}" for n, s in zip(names, spatial_in))
        outs = sep.join(f"{n}: {s}" for n, s in zip(names, output_size))
        if k == 2:
            raise RuntimeError(
                f"Input and output sizes should be greater than 0, but got input ({ins}) "
                f"output ({outs})")
        raise RuntimeError(
            f"Input and output sizes should be greater than 0, but got input ({ins}) output "
            f"({outs})")
    return tuple(input_size[:2]) + tuple(output_size)


_KERNEL_NAMES = {
    "nearest": "compute_indices_weights_nearest", "nearest_exact":
    "compute_indices_weights_nearest", "linear": "compute_indices_weights_linear",
    "cubic": "compute_indices_weights_cubic", "aa_linear": "compute_index_ranges_weights",
    "aa_cubic": "compute_index_ranges_weights", "aa_lanczos": "compute_index_ranges_weights",
}

_CHANNELS_LAST_NAMES = {("nearest", 2): "upsample_nearest2d_channels_last",
                        ("nearest_exact", 2): "upsample_nearest2d_channels_last",
                        ("nearest", 3): "upsample_nearest3d_channels_last",
                        ("nearest_exact", 3): "upsample_nearest3d_channels_last",
                        ("linear", 2): "upsample_bilinear2d_channels_last",
                        ("linear", 3): "upsample_trilinear3d_channels_last"}


def _check_upsample_dtype(self, mode, k):
    d = self._dtype
    if mode in ("aa_linear", "aa_cubic", "aa_lanczos"):
        ok = d in (dt.float32, dt.float64)
    elif mode in ("nearest", "nearest_exact"):
        ok = d.is_floating_point or d is dt.uint8
    else:
        ok = d.is_floating_point
    if ok:
        return
    name = _KERNEL_NAMES[mode]
    if (mode, k) in _CHANNELS_LAST_NAMES and (
            self._sizes[1] == 1 or channels_last_order(self._sizes, self._strides)):
        name = _CHANNELS_LAST_NAMES[(mode, k)]
    raise NotImplementedError(f'"{name}" not implemented for \'{d._scalar_name}\'')


def _upsample(self, output_size, mode, align_corners, scales):
    k = len(scales)
    output_size = tuple(output_size)
    sizes = _upsample_common_check(self._sizes, output_size, k)
    rest = 1
    for s in self._sizes[1:]:
        rest *= s
    check(numel_of(self._sizes) != 0 or rest != 0, lambda: (
        f"Non-empty {k + 2}D data tensor expected but got a tensor with sizes "
        f"{list(self._sizes)}"))
    result = _empty_as(self, sizes)
    if _is_meta(self):
        return result
    _check_upsample_dtype(self, mode, k)
    if not numel_of(sizes):
        return result
    arr = self._array()
    acc = _acc(self._dtype)
    if mode not in ("nearest", "nearest_exact"):
        arr = arr.astype(acc)
    for i in reversed(range(k)):
        axis = 2 + i
        idx, w = _taps(mode, self._sizes[axis], output_size[i], align_corners, scales[i], acc,
                       self._dtype)
        arr = _resample_axis(arr, axis, idx, w)
    return _fill_from(result, arr)


def _upsample_backward(grad_output, output_size, input_size, mode, align_corners, scales):
    k = len(scales)
    output_size = tuple(output_size)
    input_size = tuple(input_size)
    full = _upsample_common_check(input_size, output_size, k)
    check(len(grad_output._sizes) == k + 2, lambda: (
        f"Expected grad_output to be a tensor of dimension {k + 2} but got: dimension "
        f"{len(grad_output._sizes)}"))
    for d in range(k + 2):
        check(grad_output._sizes[d] == full[d], lambda d=d: (
            f"Expected grad_output to have the same shape as output; output.size({d}) = "
            f"{full[d]} but got grad_output.size({d}) = {grad_output._sizes[d]}"))
    result = _empty_as(grad_output, input_size)
    if _is_meta(grad_output):
        return result
    if not numel_of(input_size):
        return result
    acc = _acc(grad_output._dtype)
    g = grad_output._array().astype(acc)
    for i in range(k):
        axis = 2 + i
        idx, w = _taps(mode, input_size[axis], output_size[i], align_corners, scales[i], acc)
        g = _scatter_axis(g, axis, idx, w, input_size[axis])
    return _fill_from(result, g)


def upsample_nearest1d(self, output_size, scales=None):
    return _upsample(self, output_size, "nearest", False, (scales,))


def upsample_nearest2d(self, output_size, scales_h=None, scales_w=None):
    return _upsample(self, output_size, "nearest", False, (scales_h, scales_w))


def upsample_nearest3d(self, output_size, scales_d=None, scales_h=None, scales_w=None):
    return _upsample(self, output_size, "nearest", False, (scales_d, scales_h, scales_w))


def upsample_nearest_exact1d(self, output_size, scales=None):
    return _upsample(self, output_size, "nearest_exact", False, (scales,))


def upsample_nearest_exact2d(self, output_size, scales_h=None, scales_w=None):
    return _upsample(self, output_size, "nearest_exact", False, (scales_h, scales_w))


def upsample_nearest_exact3d(self, output_size, scales_d=None, scales_h=None, scales_w=None):
    return _upsample(self, output_size, "nearest_exact", False, (scales_d, scales_h, scales_w))


def upsample_linear1d(self, output_size, align_corners, scales=None):
    return _upsample(self, output_size, "linear", align_corners, (scales,))


def upsample_bilinear2d(self, output_size, align_corners, scales_h=None, scales_w=None):
    return _upsample(self, output_size, "linear", align_corners, (scales_h, scales_w))


def upsample_trilinear3d(self, output_size, align_corners, scales_d=None, scales_h=None,
                         scales_w=None):
    return _upsample(self, output_size, "linear", align_corners, (scales_d, scales_h, scales_w))


def upsample_bicubic2d(self, output_size, align_corners, scales_h=None, scales_w=None):
    return _upsample(self, output_size, "cubic", align_corners, (scales_h, scales_w))


def upsample_bilinear2d_aa(self, output_size, align_corners, scales_h=None, scales_w=None):
    return _upsample(self, output_size, "aa_linear", align_corners, (scales_h, scales_w))


def upsample_bicubic2d_aa(self, output_size, align_corners, scales_h=None, scales_w=None):
    return _upsample(self, output_size, "aa_cubic", align_corners, (scales_h, scales_w))


def upsample_lanczos2d_aa(self, output_size, align_corners, scales_h=None, scales_w=None):
    return _upsample(self, output_size, "aa_lanczos", align_corners, (scales_h, scales_w))


def upsample_lanczos2d_aa_backward(grad_output, output_size, input_size, align_corners,
                                   scales_h=None, scales_w=None):
    return _upsample_backward(grad_output, output_size, input_size, "aa_lanczos",
                              align_corners, (scales_h, scales_w))


def upsample_nearest1d_backward(grad_output, output_size, input_size, scales=None):
    return _upsample_backward(grad_output, output_size, input_size, "nearest", False, (scales,))


def upsample_nearest2d_backward(grad_output, output_size, input_size, scales_h=None,
                                scales_w=None):
    return _upsample_backward(grad_output, output_size, input_size, "nearest", False,
                              (scales_h, scales_w))


def upsample_nearest3d_backward(grad_output, output_size, input_size, scales_d=None,
                                scales_h=None, scales_w=None):
    return _upsample_backward(grad_output, output_size, input_size, "nearest", False,
                              (scales_d, scales_h, scales_w))


def upsample_nearest_exact1d_backward(grad_output, output_size, input_size, scales=None):
    return _upsample_backward(grad_output, output_size, input_size, "nearest_exact", False,
                              (scales,))


def upsample_nearest_exact2d_backward(grad_output, output_size, input_size, scales_h=None,
                                      scales_w=None):
    return _upsample_backward(grad_output, output_size, input_size, "nearest_exact", False,
                              (scales_h, scales_w))


def upsample_nearest_exact3d_backward(grad_output, output_size, input_size, scales_d=None,
                                      scales_h=None, scales_w=None):
    return _upsample_backward(grad_output, output_size, input_size, "nearest_exact", False,
                              (scales_d, scales_h, scales_w))


def upsample_linear1d_backward(grad_output, output_size, input_size, align_corners,
                               scales=None):
    return _upsample_backward(grad_output, output_size, input_size, "linear", align_corners,
                              (scales,))


def upsample_bilinear2d_backward(grad_output, output_size, input_size, align_corners,
                                 scales_h=None, scales_w=None):
    return _upsample_backward(grad_output, output_size, input_size, "linear", align_corners,
                              (scales_h, scales_w))


def upsample_trilinear3d_backward(grad_output, output_size, input_size, align_corners,
                                  scales_d=None, scales_h=None, scales_w=None):
    return _upsample_backward(grad_output, output_size, input_size, "linear", align_corners,
                              (scales_d, scales_h, scales_w))


def upsample_bicubic2d_backward(grad_output, output_size, input_size, align_corners,
                                scales_h=None, scales_w=None):
    return _upsample_backward(grad_output, output_size, input_size, "cubic", align_corners,
                              (scales_h, scales_w))


def upsample_bilinear2d_aa_backward(grad_output, output_size, input_size, align_corners,
                                    scales_h=None, scales_w=None):
    return _upsample_backward(grad_output, output_size, input_size, "aa_linear", align_corners,
                              (scales_h, scales_w))


def upsample_bicubic2d_aa_backward(grad_output, output_size, input_size, align_corners,
                                   scales_h=None, scales_w=None):
    return _upsample_backward(grad_output, output_size, input_size, "aa_cubic", align_corners,
                              (scales_h, scales_w))


# the .vec overloads torch's Python calls: output size from the scale factors, then the op
# with one scale per dim (CompositeImplicitAutograd: the graph shows the op it calls)

def _vec_output_size(input, output_size, scale_factors):
    k = len(input._sizes) - 2
    if output_size is not None:
        check(scale_factors is None, "Must specify exactly one of output_size and scale_factors")
        check(len(output_size) == k, (
            "Expected static_cast<int64_t>(output_size->size()) == spatial_dimensions to be "
            "true, but got false.  (Could this error message be improved?  If so, please "
            "report an enhancement request to PyTorch.)"))
        return list(output_size), [None] * k
    if scale_factors is not None:
        check(len(scale_factors) == k, (
            "Expected static_cast<int64_t>(scale_factors->size()) == spatial_dimensions to be "
            "true, but got false.  (Could this error message be improved?  If so, please "
            "report an enhancement request to PyTorch.)"))
        sizes = []
        for i in range(k):
            odim = float(input._sizes[i + 2]) * scale_factors[i]
            check(math.isfinite(odim) and abs(odim) < 2 ** 63, lambda odim=odim: (
                "value cannot be converted to type int64_t without overflow"))
            sizes.append(int(odim))
        return sizes, list(scale_factors)
    raise RuntimeError("Must specify exactly one of output_size and scale_factors")


def _vec(name, input, output_size, scale_factors, *flags):
    sizes, scales = _vec_output_size(input, output_size, scale_factors)
    return _call(name, input, sizes, *flags, *scales)


def upsample_nearest1d_vec(input, output_size, scale_factors):
    return _vec("aten::upsample_nearest1d", input, output_size, scale_factors)


def upsample_nearest2d_vec(input, output_size, scale_factors):
    return _vec("aten::upsample_nearest2d", input, output_size, scale_factors)


def upsample_nearest3d_vec(input, output_size, scale_factors):
    return _vec("aten::upsample_nearest3d", input, output_size, scale_factors)


def upsample_nearest_exact1d_vec(input, output_size, scale_factors):
    return _vec("aten::_upsample_nearest_exact1d", input, output_size, scale_factors)


def upsample_nearest_exact2d_vec(input, output_size, scale_factors):
    return _vec("aten::_upsample_nearest_exact2d", input, output_size, scale_factors)


def upsample_nearest_exact3d_vec(input, output_size, scale_factors):
    return _vec("aten::_upsample_nearest_exact3d", input, output_size, scale_factors)


def upsample_linear1d_vec(input, output_size, align_corners, scale_factors):
    return _vec("aten::upsample_linear1d", input, output_size, scale_factors, align_corners)


def upsample_bilinear2d_vec(input, output_size, align_corners, scale_factors):
    return _vec("aten::upsample_bilinear2d", input, output_size, scale_factors, align_corners)


def upsample_trilinear3d_vec(input, output_size, align_corners, scale_factors):
    return _vec("aten::upsample_trilinear3d", input, output_size, scale_factors, align_corners)


def upsample_bicubic2d_vec(input, output_size, align_corners, scale_factors):
    return _vec("aten::upsample_bicubic2d", input, output_size, scale_factors, align_corners)


def upsample_bilinear2d_aa_vec(input, output_size, align_corners, scale_factors):
    return _vec("aten::_upsample_bilinear2d_aa", input, output_size, scale_factors,
                align_corners)


def upsample_bicubic2d_aa_vec(input, output_size, align_corners, scale_factors):
    return _vec("aten::_upsample_bicubic2d_aa", input, output_size, scale_factors,
                align_corners)


# -- reflection / replication padding ------------------------------------------------------------

def _pad_index(in_size, lo, hi, reflect):
    """torch's source index of each output position along one padded dim (negative pads
    crop first)."""
    out = in_size + lo + hi
    j = np.arange(out, dtype=np.int64)
    i_start, o_start = max(0, -lo), max(0, lo)
    if reflect:
        ip = np.where(j < lo, lo * 2 - j, np.where(j < in_size + lo, j,
                                                   (in_size + lo - 1) * 2 - j))
    else:
        ip = np.where(j < lo, lo, np.where(j < in_size + lo, j, in_size + lo - 1))
    return ip - o_start + i_start


_PAD_LETTERS = {1: ("W",), 2: ("H", "W"), 3: ("D", "H", "W")}


def _pad_check(self, padding, k, reflect):
    """The shape checks of reflection_pad{k}d / replication_pad{k}d; the output size."""
    padding = tuple(padding)
    check(len(padding) == 2 * k, lambda: (
        f"padding size is expected to be {2 * k}, but got: {len(padding)}"))
    sizes = self._sizes
    ndim = len(sizes)
    batch_mode = ndim == k + 2
    ok = all(s != 0 for s in sizes[1 if batch_mode else 0:])
    check(ok, lambda: (
        f"Expected {k + 1}D or {k + 2}D (batch mode) tensor with possibly 0 batch size and "
        f"other non-zero dimensions for input, but got: {list(sizes)}"))
    check(ndim >= k + 1, lambda: (
        f"Expected {k + 1}D or {k + 2}D (batch mode) tensor with possibly 0 batch size and "
        f"other non-zero dimensions for input, but got: {list(sizes)}"))
    spatial = sizes[ndim - k:]
    # pads come last dim first: (left, right, top, bottom, front, back)
    pairs = [(padding[2 * (k - 1 - i)], padding[2 * (k - 1 - i) + 1]) for i in range(k)]
    if reflect:
        for i in reversed(range(k)):
            lo, hi = pairs[i]
            check(lo < spatial[i] and hi < spatial[i], lambda i=i, lo=lo, hi=hi: (
                f"Argument #{4 + 2 * (k - 1 - i)}: Padding size should be less than the "
                f"corresponding input dimension, but got: padding ({lo}, {hi}) at dimension "
                f"{ndim - k + i} of input {list(sizes)}"))
    out = [s + lo + hi for s, (lo, hi) in zip(spatial, pairs)]
    if not any(o >= 1 for o in out):
        ins = {1: lambda: f"W: {spatial[0]}",
               2: lambda: f"H: {spatial[0]}, W: {spatial[1]}" + ("" if reflect else " "),
               3: lambda: f"D: {spatial[0]} H: {spatial[1]}, W: {spatial[2]}"}[k]()
        outs = " ".join(f"{n}: {o}" for n, o in zip(_PAD_LETTERS[k], out))
        raise RuntimeError(f"input ({ins}) is too small. Calculated output {outs}")
    full = tuple(sizes[:ndim - k]) + tuple(out)
    if any(o < 0 for o in out):
        if reflect:
            raise RuntimeError("numel: integer multiplication overflow")
        raise RuntimeError(
            f"Trying to create tensor with negative dimension {min(out)}: {list(full)}")
    return full, pairs


def _pad_forward(self, padding, k, reflect):
    full, pairs = _pad_check(self, padding, k, reflect)
    result = _empty_as(self, full)
    if _is_meta(self):
        return result
    if self._dtype is dt.bool_:
        name = "reflection_pad" if reflect else "replication_pad"
        raise NotImplementedError(f'"{name}{k}d" not implemented for \'Bool\'')
    if not numel_of(full):
        return result
    arr = self._array()
    ndim = len(full)
    for i in range(k):
        axis = ndim - k + i
        lo, hi = pairs[i]
        arr = np.take(arr, _pad_index(self._sizes[axis], lo, hi, reflect), axis=axis)
    return _fill_from(result, arr)


def _pad_backward(grad_output, self, padding, k, reflect):
    full, pairs = _pad_check(self, padding, k, reflect)
    ndim = len(full)
    for i in range(k):
        axis = ndim - k + i
        name = ("depth", "height", "width")[3 - k + i]
        check(grad_output._sizes[axis] == full[axis], lambda axis=axis, name=name: (
            f"grad_output {name} unexpected. Expected: {full[axis]}, Got: "
            f"{grad_output._sizes[axis]}"))
    result = _empty_as(self, self._sizes, grad_output._dtype)
    if _is_meta(grad_output) or not numel_of(self._sizes):
        return result
    g = grad_output._array()
    for i in range(k):
        axis = ndim - k + i
        lo, hi = pairs[i]
        idx = _pad_index(self._sizes[axis], lo, hi, reflect)[:, None]
        g = _scatter_axis(g, axis, idx, None, self._sizes[axis])
    return _fill_from(result, g)


def reflection_pad1d(self, padding):
    return _pad_forward(self, padding, 1, True)


def reflection_pad2d(self, padding):
    return _pad_forward(self, padding, 2, True)


def reflection_pad3d(self, padding):
    return _pad_forward(self, padding, 3, True)


def replication_pad1d(self, padding):
    return _pad_forward(self, padding, 1, False)


def replication_pad2d(self, padding):
    return _pad_forward(self, padding, 2, False)


def replication_pad3d(self, padding):
    return _pad_forward(self, padding, 3, False)


def reflection_pad1d_backward(grad_output, self, padding):
    return _pad_backward(grad_output, self, padding, 1, True)


def reflection_pad2d_backward(grad_output, self, padding):
    return _pad_backward(grad_output, self, padding, 2, True)


def reflection_pad3d_backward(grad_output, self, padding):
    return _pad_backward(grad_output, self, padding, 3, True)


def replication_pad1d_backward(grad_output, self, padding):
    return _pad_backward(grad_output, self, padding, 1, False)


def replication_pad2d_backward(grad_output, self, padding):
    return _pad_backward(grad_output, self, padding, 2, False)


def replication_pad3d_backward(grad_output, self, padding):
    return _pad_backward(grad_output, self, padding, 3, False)


# -- grid_sampler -------------------------------------------------------------------------------
#
# Note [grid_sampler as gathers]
# Every output point reads 2^k corners (bilinear), one pixel (nearest) or 4x4 pixels
# (bicubic, 2-d only) of its batch's input. The points of the whole batch are handled at
# once: corner indices and weights are arrays over (N, *grid), the input is gathered with
# one advanced index per corner (all channels together), and the backward scatters with
# ``np.add.at``. Out-of-bounds corners get weight zero (padding_mode zeros); border and
# reflection move the coordinates first, as torch's compute_coordinates.

def _gs_unnormalize(coord, size, align_corners, acc, vectorized):
    """Grid coordinate in [-1, 1] to pixel space; the multiplier d(pixel)/d(coord)."""
    if align_corners:
        if vectorized:      # the 2-d CPU kernel: (c + 1) * scaling
            return (coord + acc(1)) * acc((size - 1) / 2), acc((size - 1) / 2)
        return ((coord + acc(1)) / acc(2)) * acc(size - 1), acc((size - 1) / 2)
    if vectorized:
        return (coord + acc(1)) * acc(size / 2) - acc(0.5), acc(size / 2)
    return ((coord + acc(1)) * acc(size) - acc(1)) / acc(2), acc(size / 2)


def _gs_clip(x, size, acc):
    grad = ((x > 0) & (x < size - 1)).astype(acc)
    return np.minimum(np.maximum(x, acc(0)), acc(size - 1)).astype(acc), grad


def _gs_reflect(x, twice_low, twice_high, acc):
    if twice_low == twice_high:
        return np.zeros_like(x), np.zeros_like(x)
    lo = acc(twice_low / 2)
    span = acc((twice_high - twice_low) / 2)
    x = x - lo
    sign = np.where(x < 0, acc(-1), acc(1)).astype(acc)
    x = np.abs(x)
    extra = np.fmod(x, span)
    flips = np.floor(x / span)
    even = (flips % 2) == 0
    out = np.where(even, extra + lo, span - extra + lo).astype(acc)
    return out, np.where(even, sign, -sign).astype(acc)


def _gs_coordinates(x, size, padding_mode, align_corners, acc):
    """torch's compute_coordinates (border / reflection) with its gradient factor."""
    if padding_mode == 1:
        return _gs_clip(x, size, acc)
    if padding_mode == 2:
        if align_corners:
            x, g1 = _gs_reflect(x, 0, 2 * (size - 1), acc)
        else:
            x, g1 = _gs_reflect(x, -1, 2 * size - 1, acc)
        x, g2 = _gs_clip(x, size, acc)
        return x, g1 * g2
    return x, np.ones_like(x)


def _gs_sources(grid, spatial, padding_mode, align_corners, acc, with_padding=True):
    """Per spatial dim (in the input's order D, H, W): pixel-space coordinates and the
    chain-rule multiplier back to the grid value."""
    k = len(spatial)
    coords, mults = [], []
    for d in range(k):
        g = grid[..., k - 1 - d].astype(acc)
        c, m = _gs_unnormalize(g, spatial[d], align_corners, acc, k == 2)
        c = np.asarray(c, dtype=acc)
        if with_padding:
            c, m2 = _gs_coordinates(c, spatial[d], padding_mode, align_corners, acc)
            m = m * m2
        coords.append(c)
        mults.append(np.broadcast_to(np.asarray(m, dtype=acc), c.shape))
    return coords, mults


def _gs_flat(nidx, idx, ok, spatial):
    """Flat row numbers (n, *spatial) of the channels-last input (0 where ``ok`` is
    False)."""
    flat = np.broadcast_to(nidx, ok.shape).astype(np.int64)
    for d, i in enumerate(idx):
        flat = flat * spatial[d] + np.where(ok, i, 0)
    return flat


def _gs_gather(inp, nidx, idx, ok):
    """``inp[n, *idx, :]`` of the channels-last input for every grid point (zeros where
    ``ok`` is False): shape (N, *grid, C)."""
    spatial = inp.shape[1:-1]
    rows = inp.reshape(-1, inp.shape[-1])
    vals = np.take(rows, _gs_flat(nidx, idx, ok, spatial), axis=0)
    return vals * ok[..., None]


class _Scatter:
    """Collects (point, corner) contributions to the input gradient and sums them with a
    single ``np.bincount`` over flat (n, *spatial, channel) indices at the end."""

    def __init__(self, shape):
        self.shape = shape                       # (N, C, *spatial)
        self.index, self.values = [], []

    def add(self, nidx, idx, ok, vals):
        C = self.shape[1]
        flat = _gs_flat(nidx, idx, ok, self.shape[2:])
        self.index.append((flat[..., None] * C + np.arange(C)).ravel())
        self.values.append((vals * ok[..., None]).ravel())

    def result(self, dtype):
        N, C = self.shape[:2]
        spatial = self.shape[2:]
        size = int(np.prod(self.shape))
        if not self.index:
            return np.zeros(self.shape, dtype)
        sums = np.bincount(np.concatenate(self.index), weights=np.concatenate(self.values),
                           minlength=size)
        return np.moveaxis(sums.astype(dtype).reshape((N,) + tuple(spatial) + (C,)), -1, 1)


def _gs_corners(coords, spatial):
    """The 2^k bilinear corners: (indices, in-bounds mask, weight factors per dim,
    signs per dim) in torch's order (nw, ne, sw, se; for 3-d the top plane first)."""
    k = len(spatial)
    lows = [np.floor(c) for c in coords]
    w1 = [c - lo for c, lo in zip(coords, lows)]          # toward the upper corner
    w0 = [(lo + 1) - c for c, lo in zip(coords, lows)]
    corners = []
    for bits in np.ndindex(*(2,) * k):                     # D, H, W bits, W fastest
        idx = [(lows[d] + bits[d]).astype(np.int64) for d in range(k)]
        ok = np.ones(idx[0].shape, bool)
        for d in range(k):
            ok &= (idx[d] >= 0) & (idx[d] < spatial[d])
        factors = [w1[d] if bits[d] else w0[d] for d in range(k)]
        corners.append((idx, ok, factors, [1 if b else -1 for b in bits]))
    return corners


def _gs_weight(factors):
    # torch multiplies x's factor first, then y's, then z's
    w = factors[-1]
    for f in reversed(factors[:-1]):
        w = w * f
    return w


def _cubic_grad_coefficients(t, acc):
    a = acc(-0.75)
    x = -1 - t
    c0 = (-3 * a * x - 10 * a) * x - 8 * a
    x = -t
    c1 = (-3 * (a + 2) * x - 2 * (a + 3)) * x
    x = 1 - t
    c2 = (3 * (a + 2) * x - 2 * (a + 3)) * x
    x = 2 - t
    c3 = (3 * a * x - 10 * a) * x + 8 * a
    return [np.asarray(c, dtype=acc) for c in (c0, c1, c2, c3)]


def _gs_acc(dtype):
    """torch's grid sampler computes in the input's own type, half and bfloat16 included
    (every operation rounded to it): so does this one."""
    return dtype.np.type if dtype in (dt.float16, dt.bfloat16) else _acc(dtype)


def _gs_check(input, grid, interpolation_mode, k):
    isz, gsz = list(input._sizes), list(grid._sizes)
    check(input._device == grid._device, lambda: (
        f"grid_sampler(): expected input and grid to be on same device, but input is on "
        f"{input._device} and grid is on {grid._device}"))
    check(len(isz) >= 1 and len(gsz) >= 1 and isz[0] == gsz[0], lambda: (
        f"grid_sampler(): expected grid and input to have same batch size, but got input "
        f"with sizes {isz} and grid with sizes {gsz}"))
    check(gsz[-1] == len(isz) - 2, lambda: (
        f"grid_sampler(): expected grid to have size {len(isz) - 2} in last dimension, but "
        f"got grid with sizes {gsz}"))
    for i in range(2, len(isz)):
        check(isz[i] > 0, lambda i=i: (
            f"grid_sampler(): expected input to have non-empty spatial dimensions, but input "
            f"has sizes {isz} with dimension {i} being empty"))
    if k is not None:
        check(len(isz) == k + 2 and len(isz) == len(gsz), lambda: (
            f"grid_sampler(): expected {k + 2}D input and grid with same number of dimensions, "
            f"but got input with sizes {isz} and grid with sizes {gsz}"))
        check(not (k == 3 and interpolation_mode == 2),
              "grid_sampler(): bicubic interpolation only supports 4D input")


def grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners):
    """torch's composite: the checks, then grid_sampler_2d or grid_sampler_3d."""
    _gs_check(input, grid, interpolation_mode, None)
    k = len(input._sizes) - 2
    check(k in (2, 3), lambda: (
        f"grid_sampler(): expected 4D or 5D input and grid with same number of dimensions, "
        f"but got input with sizes {list(input._sizes)} and grid with sizes "
        f"{list(grid._sizes)}"))
    return _call(f"aten::grid_sampler_{k}d", input, grid, interpolation_mode, padding_mode,
                 align_corners)


def _gs_prepare(input, grid, interpolation_mode, k):
    _gs_check(input, grid, interpolation_mode, k)
    check(input._dtype is grid._dtype, lambda: (
        f"expected scalar type {input._dtype._scalar_name} but found "
        f"{grid._dtype._scalar_name}"))
    if not input._dtype.is_floating_point and not _is_meta(input):
        raise NotImplementedError(
            f'"grid_sampler_{k}d_cpu_kernel_impl" not implemented for '
            f"'{input._dtype._scalar_name}'")


def _grid_sample_forward(input, grid, mode, padding_mode, align_corners, k):
    _gs_prepare(input, grid, mode, k)
    N, C = input._sizes[:2]
    out_sizes = (N, C) + tuple(grid._sizes[1:-1])
    result = empty(out_sizes, input._dtype, None, input._device)
    if _is_meta(input) or not numel_of(out_sizes):
        return result
    acc = _gs_acc(input._dtype)
    # channels last, so that each gathered point reads its C values in one row
    inp = np.ascontiguousarray(np.moveaxis(input._array().astype(acc, copy=False), 1, -1))
    g = grid._array()
    spatial = input._sizes[2:]
    nidx = np.arange(N).reshape((N,) + (1,) * k)
    if mode == 2:
        out = _bicubic_gather(inp, g, nidx, spatial, padding_mode, align_corners, acc, None)
    else:
        coords, _ = _gs_sources(g, spatial, padding_mode, align_corners, acc)
        if mode == 1:
            idx = [np.rint(c).astype(np.int64) for c in coords]
            ok = np.ones(idx[0].shape, bool)
            for d in range(k):
                ok &= (idx[d] >= 0) & (idx[d] < spatial[d])
            out = _gs_gather(inp, nidx, idx, ok)
        else:
            out = None
            for idx, ok, factors, _ in _gs_corners(coords, spatial):
                term = _gs_gather(inp, nidx, idx, ok) * _gs_weight(factors)[..., None]
                out = term if out is None else out + term
    return _fill_from(result, np.moveaxis(out, -1, 1))


def _bicubic_taps(g, spatial, padding_mode, align_corners, acc):
    coords, mults = _gs_sources(g, spatial, padding_mode, align_corners, acc,
                                with_padding=False)
    taps = []
    for d in range(2):
        lo = np.floor(coords[d])
        t = (coords[d] - lo).astype(acc)
        idxs, oks = [], []
        for i in range(4):
            c, _ = _gs_coordinates((lo - 1 + i).astype(acc), spatial[d], padding_mode,
                                   align_corners, acc)
            ii = c.astype(np.int64)
            idxs.append(ii)
            oks.append((ii >= 0) & (ii < spatial[d]))
        coeffs = [np.asarray(c, dtype=acc) for c in _cubic_coefficients(t.ravel(), -0.75, acc)
                  .T.reshape((4,) + t.shape)]
        taps.append((idxs, oks, coeffs, _cubic_grad_coefficients(t, acc), mults[d]))
    return taps


def _bicubic_gather(inp, g, nidx, spatial, padding_mode, align_corners, acc, _unused):
    (yi, yok, yc, _, _), (xi, xok, xc, _, _) = _bicubic_taps(
        g, spatial, padding_mode, align_corners, acc)
    out = None
    for j in range(4):
        row = None
        for i in range(4):
            v = _gs_gather(inp, nidx, [yi[j], xi[i]], yok[j] & xok[i]) * xc[i][..., None]
            row = v if row is None else row + v
        term = row * yc[j][..., None]
        out = term if out is None else out + term
    return out


def _grid_sample_backward(grad_output, input, grid, mode, padding_mode, align_corners,
                          output_mask, k):
    _gs_prepare(input, grid, mode, k)
    gi = empty(input._sizes, input._dtype, None, input._device) if output_mask[0] else None
    gg = empty(grid._sizes, grid._dtype, None, grid._device)
    if _is_meta(input):
        return gi, gg
    acc = _gs_acc(input._dtype)
    # channels last, so that each gathered point reads its C values in one row
    inp = np.ascontiguousarray(np.moveaxis(input._array().astype(acc, copy=False), 1, -1))
    g = grid._array()
    go = np.moveaxis(grad_output._array().astype(acc, copy=False), 1, -1)  # (N, *grid, C)
    spatial = input._sizes[2:]
    N = input._sizes[0]
    nidx = np.arange(N).reshape((N,) + (1,) * k)
    ginp = _Scatter(input._sizes)
    ggrid = np.zeros(g.shape, acc)
    if mode == 2:
        (yi, yok, yc, ycg, ym), (xi, xok, xc, xcg, xm) = _bicubic_taps(
            g, spatial, padding_mode, align_corners, acc)
        gx = np.zeros(g.shape[:-1], acc)
        gy = np.zeros(g.shape[:-1], acc)
        for j in range(4):
            for i in range(4):
                ok = yok[j] & xok[i]
                if output_mask[0]:
                    ginp.add(nidx, [yi[j], xi[i]], ok,
                                go * (xc[i] * yc[j])[..., None])
                val = (_gs_gather(inp, nidx, [yi[j], xi[i]], ok) * go).sum(-1)
                gx -= val * xcg[i] * yc[j]
                gy -= val * ycg[j] * xc[i]
        ggrid[..., 0] = xm * gx
        ggrid[..., 1] = ym * gy
    else:
        coords, mults = _gs_sources(g, spatial, padding_mode, align_corners, acc)
        if mode == 1:
            idx = [np.rint(c).astype(np.int64) for c in coords]
            ok = np.ones(idx[0].shape, bool)
            for d in range(k):
                ok &= (idx[d] >= 0) & (idx[d] < spatial[d])
            if output_mask[0]:
                ginp.add(nidx, idx, ok, go)
        else:
            gc = [np.zeros(coords[0].shape, acc) for _ in range(k)]
            for idx, ok, factors, signs in _gs_corners(coords, spatial):
                if output_mask[0]:
                    ginp.add(nidx, idx, ok, go * _gs_weight(factors)[..., None])
                val = (_gs_gather(inp, nidx, idx, ok) * go).sum(-1)
                for d in range(k):
                    rest = [f for e, f in enumerate(factors) if e != d]
                    w = _gs_weight(rest) if rest else 1
                    gc[d] += signs[d] * val * w
            for d in range(k):
                ggrid[..., k - 1 - d] = mults[d] * gc[d]
    if gi is not None:
        _fill_from(gi, ginp.result(acc))
    return gi, _fill_from(gg, ggrid)


def grid_sampler_2d(input, grid, interpolation_mode, padding_mode, align_corners):
    return _grid_sample_forward(input, grid, interpolation_mode, padding_mode, align_corners, 2)


def grid_sampler_3d(input, grid, interpolation_mode, padding_mode, align_corners):
    return _grid_sample_forward(input, grid, interpolation_mode, padding_mode, align_corners, 3)


def grid_sampler_2d_backward(grad_output, input, grid, interpolation_mode, padding_mode,
                             align_corners, output_mask):
    return _grid_sample_backward(grad_output, input, grid, interpolation_mode, padding_mode,
                                 align_corners, output_mask, 2)


def grid_sampler_3d_backward(grad_output, input, grid, interpolation_mode, padding_mode,
                             align_corners, output_mask):
    return _grid_sample_backward(grad_output, input, grid, interpolation_mode, padding_mode,
                                 align_corners, output_mask, 3)


# -- affine_grid_generator ---------------------------------------------------------------------

def _linspace_neg_one(n, align_corners, npdtype):
    """torch's linspace(-1, 1, n) (scaled by (n - 1) / n unless align_corners)."""
    if n <= 1:
        return np.zeros(max(n, 1), npdtype)[:n] if n == 0 else np.zeros(1, npdtype)
    acc = npdtype.type
    step = acc((acc(1) - acc(-1)) / acc(n - 1))
    i = np.arange(n)
    half = n // 2
    vals = np.where(i < half, acc(-1) + step * i.astype(npdtype),
                    acc(1) - step * (n - 1 - i).astype(npdtype)).astype(npdtype)
    if not align_corners:
        vals = (vals * acc(n - 1) / acc(n)).astype(npdtype)
    return vals


def _base_grid(sizes, align_corners, npdtype):
    spatial = sizes[2:]
    k = len(spatial)
    base = np.empty(tuple(spatial) + (k + 1,), npdtype)
    for d in range(k):
        line = _linspace_neg_one(spatial[k - 1 - d], align_corners, npdtype)
        shape = [1] * k
        shape[k - 1 - d] = line.shape[0]
        base[..., d] = line.reshape(shape)
    base[..., k] = 1
    return base.reshape(-1, k + 1)


def affine_grid_generator(theta, size, align_corners):
    size = list(size)
    check(len(size) in (4, 5),
          "AffineGridGenerator needs 4d (spatial) or 5d (volumetric) inputs.")
    k = len(size) - 2
    out_sizes = (size[0],) + tuple(size[2:]) + (k,)
    result = empty(out_sizes, theta._dtype, None, theta._device)
    if _is_meta(theta) or not numel_of(out_sizes):
        return result
    base = _base_grid(size, align_corners, theta._dtype.np)
    th = theta._array()
    grid = np.matmul(base[None], np.swapaxes(th, 1, 2))
    return _fill_from(result, grid.reshape(out_sizes))


def affine_grid_generator_backward(grad, size, align_corners):
    size = list(size)
    check(len(size) in (4, 5),
          "AffineGridGenerator needs 4d (spatial) or 5d (volumetric) inputs.")
    k = len(size) - 2
    result = empty((size[0], k, k + 1), grad._dtype, None, grad._device)
    if _is_meta(grad) or not numel_of(result._sizes):
        return result
    base = _base_grid(size, align_corners, grad._dtype.np)
    g = grad._array().reshape(size[0], -1, k)
    gt = np.matmul(base.T[None], g)          # (N, k + 1, k)
    return _fill_from(result, np.swapaxes(gt, 1, 2))


# -- pixel / channel shuffle, one_hot ------------------------------------------------------------
#
# Each is a reshape, a permutation and a copy: the result keeps the input's suggested
# memory format (channels-last inputs give channels-last results, as torch's).

def _permuted_copy(self, split_shape, perm, out_sizes):
    result = _empty_as(self, out_sizes)
    if _is_meta(self) or not numel_of(out_sizes):
        return result
    arr = np.ascontiguousarray(self._array()).reshape(split_shape).transpose(perm)
    return _fill_from(result, arr.reshape(out_sizes))


def pixel_shuffle(self, upscale_factor):
    sizes = self._sizes
    nd = len(sizes)
    r = upscale_factor
    check(nd >= 3, lambda: (
        f"pixel_shuffle expects input to have at least 3 dimensions, but got input with "
        f"{nd} dimension(s)"))
    check(r > 0, lambda: f"pixel_shuffle expects a positive upscale_factor, but got {r}")
    c, h, w = sizes[-3:]
    check(c % (r * r) == 0, lambda: (
        f"pixel_shuffle expects its input's 'channel' dimension to be divisible by the square "
        f"of upscale_factor, but input.size(-3)={c} is not divisible by {r * r}"))
    batch = tuple(sizes[:-3])
    b = len(batch)
    oc = c // (r * r)
    split = batch + (oc, r, r, h, w)
    perm = tuple(range(b)) + (b, b + 3, b + 1, b + 4, b + 2)
    return _permuted_copy(self, split, perm, batch + (oc, h * r, w * r))


def pixel_unshuffle(self, downscale_factor):
    sizes = self._sizes
    nd = len(sizes)
    r = downscale_factor
    check(nd >= 3, lambda: (
        f"pixel_unshuffle expects input to have at least 3 dimensions, but got input with "
        f"{nd} dimension(s)"))
    check(r > 0, lambda: f"pixel_unshuffle expects a positive downscale_factor, but got {r}")
    c, h, w = sizes[-3:]
    check(h % r == 0, lambda: (
        f"pixel_unshuffle expects height to be divisible by downscale_factor, but "
        f"input.size(-2)={h} is not divisible by {r}"))
    check(w % r == 0, lambda: (
        f"pixel_unshuffle expects width to be divisible by downscale_factor, but "
        f"input.size(-1)={w} is not divisible by {r}"))
    batch = tuple(sizes[:-3])
    b = len(batch)
    split = batch + (c, h // r, r, w // r, r)
    perm = tuple(range(b)) + (b, b + 2, b + 4, b + 1, b + 3)
    return _permuted_copy(self, split, perm, batch + (c * r * r, h // r, w // r))


def _channel_shuffle(self, groups):
    sizes = self._sizes
    check(len(sizes) > 2, lambda: (
        f"channel_shuffle expects input with > 2 dims, but got input with sizes {list(sizes)}"))
    check(groups > 0, lambda: (
        f"Number of groups to divide channels in must be positive. Value of groups:{groups}"))
    c = sizes[1]
    check(c % groups == 0, lambda: (
        f"Number of channels must be divisible by groups. Got {c} channels and {groups} "
        f"groups."))
    split = (sizes[0], groups, c // groups) + tuple(sizes[2:])
    perm = (0, 2, 1) + tuple(range(3, len(split)))
    return _permuted_copy(self, split, perm, tuple(sizes))


def channel_shuffle(self, groups):
    return _channel_shuffle(self, groups)


def native_channel_shuffle(self, groups):
    return _channel_shuffle(self, groups)


def one_hot(self, num_classes=-1):
    check(self._dtype is dt.int64,
          "one_hot is only applicable to index tensor of type LongTensor.")
    sizes = tuple(self._sizes)
    if not numel_of(sizes):
        check(num_classes > 0, "Can not infer total number of classes from empty tensor.")
        return empty(sizes + (num_classes,), dt.int64, None, self._device)
    if _is_meta(self):
        check(num_classes != -1, "Tensor.item() cannot be called on meta tensors")
        return empty(sizes + (num_classes,), dt.int64, None, self._device)
    arr = self._array()
    check(arr.min() >= 0, "Class values must be non-negative.")
    top = int(arr.max())
    if num_classes == -1:
        num_classes = top + 1
    else:
        check(num_classes > top, "Class values must be smaller than num_classes.")
    result = empty(sizes + (num_classes,), dt.int64, None, self._device)
    out = (arr[..., None] == np.arange(num_classes)).astype(np.int64)
    return _fill_from(result, out)


def upsample_lanczos2d_aa_vec(input, output_size, align_corners, scale_factors):
    return _vec("aten::_upsample_lanczos2d_aa", input, output_size, scale_factors,
                align_corners)
