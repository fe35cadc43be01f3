"""Kernels: pooling (max, average, adaptive, fractional) and max_unpool, 1 to 3 spatial dims.

Every kernel runs torch's argument checks in torch's order (so the first failing check gives
torch's message), allocates its outputs (channels-last where torch keeps the layout that
its ``suggest_memory_format`` reads off the input), and unless the input is on the meta
device computes the result with a few whole-array NumPy calls over all planes at once:

- max / avg pooling: the input padded once (with -inf, or the lowest integer, for max;
  with zeros for avg) and viewed as windows through ``as_strided`` (no copy); then one
  pass per kernel offset over all windows at once: a running maximum (torch's comparison,
  the winning offset kept with branch-free arithmetic) or a running sum in torch's order.
- adaptive pooling: reduced one spatial dim at a time: for avg one matmul with a 0/1
  window matrix per dim; for max a running scan over the offsets inside the windows
  (Note [Adaptive max, one dim at a time]).
- fractional max pooling: the windows' starts differ per plane; they are gathered with one
  fancy index and reduced with one argmax.
- backward of the max pools: a scatter-add of the gradient through the flat per-plane
  indices with one ``np.bincount``; of avg pooling: one strided add per kernel offset; of
  adaptive avg: the transposed window matmuls.

Note [Which element a max pool picks]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
torch scans each window in row-major order and replaces its running maximum when
``val > max || isnan(val)``, starting from -inf (the lowest value for integers) with the
index of the window's first in-bounds element. So: ties go to the *first* maximal element,
a NaN wins and the *last* NaN of the window is reported, and a window whose in-bounds
elements are all -inf reports its first in-bounds element. The running scans reproduce
this literally (start at the lowest value and the first in-bounds offset, take where
``v > max | isnan(v)``; padding holds the lowest value, so it never wins). ``_window_arg``
does the same for windows materialised as (..., K): ``np.argmax`` gives the first maximum
and the first NaN, and NaN windows are moved to their last NaN.
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ...core import dtypes as dt
from ...core.checks import check, maybe_wrap_dim
from ...core.layouts import channels_last_order
from ...core.tensor_impl import contiguous_strides, numel_of
from ..factory import empty, new_strided
from ..reduction import _CPP_NAMES, _check_out_dtype, _store
from ..resize import resize_impl, resize_output
from ..views import _set_geometry

_FLOATS = frozenset((dt.float16, dt.bfloat16, dt.float32, dt.float64))
_INTS = frozenset((dt.uint8, dt.int8, dt.int16, dt.int32, dt.int64))


# -- small helpers -----------------------------------------------------------------------------

def _is_meta(t) -> bool:
    return t._device.type == "meta"


def _cdiv(a: int, b: int) -> int:
    """C++ integer division (truncation toward zero)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def _sizes_str(t) -> str:
    return "[" + ", ".join(str(s) for s in t._sizes) + "]"


def _require(t, supported, name: str) -> None:
    check(t._dtype in supported, lambda: (
        f"\"{name}\" not implemented for '{t._dtype._scalar_name}'"), NotImplementedError)


def _channels_last(t, nd: int) -> bool:
    """torch's suggest_memory_format(t) is channels_last (nd=2) / channels_last_3d (nd=3)."""
    return len(t._sizes) == nd + 2 and channels_last_order(t._sizes, t._strides) is not None


def _cl_strides(shape) -> tuple:
    """Channels-last strides of an (N, C, *spatial) shape."""
    n, c, *sp = shape
    strides = [0] * len(shape)
    acc = 1
    strides[1] = 1
    acc = max(c, 1)
    for d in range(len(shape) - 1, 1, -1):
        strides[d] = acc
        acc *= max(shape[d], 1)
    strides[0] = acc
    return tuple(strides)


def _new(like, shape, dtype, channels_last=False):
    shape = tuple(shape)
    if channels_last:
        strides = _cl_strides(shape)
        if strides != contiguous_strides(shape):
            return new_strided(shape, strides, dtype, like._device)
    return empty(shape, dtype, device=like._device)


def _lowest(np_dtype):
    if np_dtype.kind == "f" or np_dtype.name == "bfloat16":
        return -np.inf
    return np.iinfo(np_dtype).min


def _expand(values, n: int) -> tuple:
    """An int[1]/int[n] argument as n ints (a single int is repeated)."""
    values = tuple(values)
    return values * n if len(values) == 1 else values


def _pool_out_size(size, k, pad, stride, dilation, ceil_mode) -> int:
    """torch's pooling_output_shape, with its checks."""
    check(stride != 0, "stride should not be zero")
    check(pad >= 0, lambda: f"pad must be non-negative, but got pad: {pad}")
    check(pad <= _cdiv((k - 1) * dilation + 1, 2), lambda: (
        f"pad should be at most half of effective kernel size, but got pad={pad}, "
        f"kernel_size={k} and dilation={dilation}"))
    out = (size + 2 * pad - dilation * (k - 1) - 1 + (stride - 1 if ceil_mode else 0)) \
        // stride + 1
    if ceil_mode and (out - 1) * stride >= size + pad:
        out -= 1
    return out


def _int_div(a: np.ndarray, b):
    """C++ integer division of arrays (truncation toward zero)."""
    q = np.abs(a) // np.abs(b)
    return np.where((a < 0) != (np.asarray(b) < 0), -q, q)


# -- window machinery --------------------------------------------------------------------------

def _padded(arr, nd, pads, outs, ks, strides, dilations, fill):
    """``arr`` (..., *spatial) padded with ``fill``: ``pads`` before each spatial dim, and
    after it as much as the last window needs (pad, or more in ceil mode)."""
    lead = arr.shape[:-nd]
    sp = arr.shape[-nd:]
    full = []
    for i in range(nd):
        need = (outs[i] - 1) * strides[i] + (ks[i] - 1) * dilations[i] + 1
        full.append(max(need, sp[i] + 2 * pads[i]))
    if not any(pads) and tuple(full) == tuple(sp):
        return arr                  # no padding needed: the windows view the input itself
    out = np.full(lead + tuple(full), fill, dtype=arr.dtype)
    region = (Ellipsis,) + tuple(slice(p, p + s) for p, s in zip(pads, sp))
    out[region] = arr
    return out


def _windows(padded, nd, outs, ks, strides, dilations):
    """The (..., *outs, *ks) window view of ``padded``."""
    lead = padded.shape[:-nd]
    st = padded.strides
    lead_st, sp_st = st[:-nd], st[-nd:]
    shape = lead + tuple(outs) + tuple(ks)
    wst = lead_st + tuple(s * t for s, t in zip(strides, sp_st)) + \
        tuple(d * t for d, t in zip(dilations, sp_st))
    return as_strided(padded, shape, wst, writeable=False)


def _window_arg(w):
    """``w`` (..., K), windows with no padding: the index along K that torch picks (Note
    [Which element a max pool picks]) and the values there."""
    arg = np.argmax(w, axis=-1)
    val = np.take_along_axis(w, arg[..., None], -1)[..., 0]
    if w.dtype.kind == "f" or w.dtype.name == "bfloat16":
        nan = val != val
        if nan.any():
            isn = np.isnan(w[nan].astype(np.float32) if w.dtype.name == "bfloat16"
                           else w[nan])
            arg[nan] = w.shape[-1] - 1 - np.argmax(isn[..., ::-1], axis=-1)
    return arg, val


def _take_where(pos, k, upd, tmp):
    """``pos[upd] = k`` as arithmetic (a masked copy is branchy and several times slower
    on random masks): pos -= (pos - k) * upd."""
    np.subtract(pos, k, out=tmp)
    np.multiply(tmp, upd, out=tmp)
    np.subtract(pos, tmp, out=pos)


def _window_table(nd, in_sp, outs, ks, strides, pads, dilations):
    """(O, K) flat per-plane input index of each window element, and (O,) the window
    position of each window's first in-bounds element."""
    grids_o = np.meshgrid(*[np.arange(o) for o in outs], indexing="ij")
    grids_k = np.meshgrid(*[np.arange(k) for k in ks], indexing="ij")
    plane_st = contiguous_strides(tuple(in_sp))
    flat = 0
    first = 0
    kst = contiguous_strides(tuple(ks))
    for i in range(nd):
        start = grids_o[i].reshape(-1, 1) * strides[i] - pads[i]
        coord = start + grids_k[i].reshape(1, -1) * dilations[i]
        flat = flat + coord * plane_st[i]
        # the first in-bounds kernel offset along dim i
        s = start[:, 0]
        kfirst = np.where(s < 0, -(s // dilations[i]), 0)
        first = first + kfirst * kst[i]
    return flat, first


# -- max pooling -------------------------------------------------------------------------------

def _max_pool_compute(self, nd, ks, ss, ps, ds, outs, out, indices):
    """torch's scan, one kernel offset at a time over all windows at once (Note [Which
    element a max pool picks]): start from the lowest value and each window's first
    in-bounds index, and take an element where ``val > max or isnan(val)``. Padding holds
    the lowest value, so it never wins. K passes over output-sized strided views; nothing
    of size O*K is materialised."""
    arr = self._array()
    if arr.dtype == np.float16 or arr.dtype.name == "bfloat16":
        arr = arr.astype(np.float32)           # exact; compared as float32
    in_sp = self._sizes[-nd:]
    low = _lowest(arr.dtype)
    padded = _padded(arr, nd, ps, outs, ks, ss, ds, low)
    win = _windows(padded, nd, outs, ks, ss, ds)
    lead = arr.shape[:-nd]
    table, first = _window_table(nd, in_sp, outs, ks, ss, ps, ds)
    best = np.full(lead + tuple(outs), low, dtype=arr.dtype)
    want = indices is not None
    # the kernel offset each window took (its first in-bounds element to begin with)
    kpos = np.empty(lead + tuple(outs), dtype=np.int32)
    kpos[...] = first.reshape(outs)
    nan = arr.dtype.kind == "f" and bool(np.isnan(arr).any())
    upd = np.empty(best.shape, dtype=bool)
    step = np.empty(best.shape, dtype=np.int32)
    # strided window slices are copied once into a dense buffer: the two passes over
    # them then run on contiguous memory
    dense = np.empty(best.shape, dtype=arr.dtype) if any(st > 1 for st in ss) else None
    for k, off in enumerate(np.ndindex(*ks)):
        v = win[(Ellipsis,) + tuple(off)]
        if dense is not None:
            np.copyto(dense, v)
            v = dense
        if want:
            np.greater(v, best, out=upd)
            if nan:
                upd |= np.isnan(v)
            _take_where(kpos, k, upd, step)
        np.maximum(best, v, out=best)      # the value taken (NaN propagates), branch-free
    _store(out, best)
    if want:
        # flat index = the window start's flat index + the chosen kernel element's offset
        # (linear in the coordinates, so exact even where the start lies in the padding)
        base = table[:, 0].reshape(outs)
        koff = (table[0] - table[0, 0]).astype(np.int64)
        _store(indices, np.take(koff, kpos) + base)


_NUMBER_WORDS = {2: "two", 3: "three"}


def _window_args(name, nd, kernel_size, stride, padding, dilation=(1,), must="must either be"):
    """kernel_size / stride / padding / dilation of an nd pooling op, each checked to hold
    1 or nd ints (stride may also be empty: the kernel size) and expanded to nd ints, with
    torch's messages: ``must`` is their wording ("must either be"; avg_pool3d's "must
    be"), except dilation's, which torch words "must be either" throughout."""
    words = _NUMBER_WORDS[nd]

    def expand(arg, values, must, omitted=""):
        check(len(values) in ((0, 1, nd) if omitted else (1, nd)), lambda: (
            f"{name}: {arg} {must} {omitted}a single int, or a tuple of {words} ints"))
        return _expand(values, nd)

    ks = expand("kernel_size", kernel_size, must)
    ss = expand("stride", stride, must, omitted="omitted, ") or ks
    ps = expand("padding", padding, must)
    ds = expand("dilation", dilation, "must be either")
    return ks, ss, ps, ds


def _pool2d_shape_check(self, ks, ss, ps, ds, outs, cl):
    kh, kw = ks
    check(kw > 0 and kh > 0, lambda: (
        f"kernel size should be greater than zero, but got kH: {kh} kW: {kw}"))
    check(ss[1] > 0 and ss[0] > 0, lambda: (
        f"stride should be greater than zero, but got dH: {ss[0]} dW: {ss[1]}"))
    check(ds[0] > 0 and ds[1] > 0, lambda: (
        f"dilation should be greater than zero, but got dilationH: {ds[0]} "
        f"dilationW: {ds[1]}"))
    sz = self._sizes
    ndim = len(sz)
    valid = sz[1] != 0 and sz[2] != 0
    if cl:
        check(ndim == 4 and valid and sz[3] != 0, lambda: (
            "Expected 4D (batch mode) tensor expected for input with channels_last layout "
            f"with optional 0 dim batch size for input, but got: {_sizes_str(self)}"))
    else:
        check((ndim == 3 and sz[0] != 0 and valid) or (ndim == 4 and valid and sz[3] != 0),
              lambda: ("Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size "
                       f"for input, but got:{_sizes_str(self)}"))
    check(_cdiv(kw, 2) >= ps[1] and _cdiv(kh, 2) >= ps[0], lambda: (
        "pad should be smaller than or equal to half of kernel size, but got "
        f"padW = {ps[1]}, padH = {ps[0]}, kW = {kw}, kH = {kh}"))
    c, h, w = sz[-3:]
    check(outs[1] >= 1 and outs[0] >= 1, lambda: (
        f"Given input size: ({c}x{h}x{w}). Calculated output size: "
        f"({c}x{outs[0]}x{outs[1]}). Output size is too small"))


def _max_pool2d_geometry(self, kernel_size, stride, padding, dilation, ceil_mode):
    ks, ss, ps, ds = _window_args("max_pool2d", 2, kernel_size, stride, padding, dilation)
    cl = _channels_last(self, 2)
    ndim = len(self._sizes)
    check(ndim in (3, 4), "non-empty 3D or 4D (batch mode) tensor expected for input")
    outs = tuple(_pool_out_size(self._sizes[-2 + i], ks[i], ps[i], ss[i], ds[i], ceil_mode)
                 for i in range(2))
    _pool2d_shape_check(self, ks, ss, ps, ds, outs, cl)
    return ks, ss, ps, ds, outs, cl


def max_pool2d_with_indices(self, kernel_size, stride=(), padding=(0,), dilation=(1,),
                            ceil_mode=False):
    ks, ss, ps, ds, outs, cl = _max_pool2d_geometry(self, kernel_size, stride, padding,
                                                    dilation, ceil_mode)
    shape = self._sizes[:-2] + outs
    out = _new(self, shape, self._dtype, cl)
    indices = _new(self, shape, dt.int64, cl)
    if _is_meta(self):
        return out, indices
    _require(self, _FLOATS | _INTS, "max_pool2d")
    if numel_of(shape):
        _max_pool_compute(self, 2, ks, ss, ps, ds, outs, out, indices)
    return out, indices


def _scatter_max_grad(grad_output, self, indices, nd, cl, disjoint=False):
    """grad_input of a max pool: grad_output added at the flat per-plane ``indices`` (index
    -1, which torch skips, adds nothing). ``disjoint``: the windows do not overlap, so no
    index repeats and a plain assignment does (no float64 round trip through bincount)."""
    gi = _new(self, self._sizes, self._dtype, cl)
    if _is_meta(self):
        return gi
    in_sp = self._sizes[-nd:]
    plane = numel_of(in_sp)
    total = numel_of(self._sizes)
    if not total:
        return gi
    g = grad_output._array()
    idx = indices._array()
    lead_n = numel_of(self._sizes[:-nd])
    nout = numel_of(grad_output._sizes[-nd:])
    idx2 = idx.reshape(lead_n, nout)
    flat = np.arange(lead_n)[:, None] * plane + idx2
    weights = g.reshape(lead_n, nout)
    if idx2.size and idx2.min() < 0:
        valid = idx2 != -1
        flat, weights = flat[valid], weights[valid]
    if disjoint:
        acc = np.zeros(total, dtype=weights.dtype)
        acc[flat.ravel()] = weights.ravel()
    else:
        acc = np.bincount(flat.ravel(), weights=weights.ravel().astype(np.float64),
                          minlength=total)
    _store(gi, acc)
    return gi


def _disjoint(ks, ss, ds) -> bool:
    """Whether no two windows share an element (stride >= effective kernel size)."""
    return all(s >= (k - 1) * d + 1 for k, s, d in zip(ks, ss, ds))


def max_pool2d_with_indices_backward(grad_output, self, kernel_size, stride, padding, dilation,
                                     ceil_mode, indices):
    ks, ss, ps, ds, outs, cl = _max_pool2d_geometry(self, kernel_size, stride, padding,
                                                    dilation, ceil_mode)
    check(self._dtype is grad_output._dtype, lambda: (
        f"expected dtype {_CPP_NAMES[self._dtype.name]} for `gradOutput` but got dtype "
        f"{_CPP_NAMES[grad_output._dtype.name]}"))
    ndim = len(self._sizes)
    for t in (grad_output, indices):
        for i, size in zip((ndim - 3, ndim - 2, ndim - 1), (self._sizes[-3],) + outs):
            _check_dim(t, ndim, i, size)
    return _scatter_max_grad(grad_output, self, indices, 2, cl, _disjoint(ks, ss, ds))


def _check_dim(t, ndim, dim, size):
    """torch's check_dim_size."""
    sz = t._sizes
    got = sz[dim] if -len(sz) <= dim < len(sz) else 0
    check(len(sz) == ndim and got == size, lambda: (
        f"Expected a tensor of dimension {ndim} and tensor.size[{dim}] == {size} but got: "
        f"dimension {len(sz)} and tensor.size[{dim}] = {got}"))


def _max_pool3d_geometry(self, kernel_size, stride, padding, dilation, ceil_mode, fn):
    ks, ss, ps, ds = _window_args("max_pool3d", 3, kernel_size, stride, padding, dilation)
    ndim = len(self._sizes)
    check(ndim in (4, 5), "non-empty 4D or 5D (batch mode) tensor expected for input")
    outs = tuple(_pool_out_size(self._sizes[-3 + i], ks[i], ps[i], ss[i], ds[i], ceil_mode)
                 for i in range(3))
    _pool3d_shape_check(self, ks, ss, ps, ds, outs, fn)
    return ks, ss, ps, ds, outs, _channels_last(self, 3)


def _pool3d_shape_check(self, ks, ss, ps, ds, outs, fn, check_input_size=False):
    kt, kh, kw = ks
    check(kt > 0 and kw > 0 and kh > 0, lambda: (
        f"kernel size should be greater than zero, but got kT: {kt} kH: {kh} kW: {kw}"))
    check(ss[0] > 0 and ss[2] > 0 and ss[1] > 0, lambda: (
        f"stride should be greater than zero, but got dT: {ss[0]} dH: {ss[1]} dW: {ss[2]}"))
    check(ds[0] > 0 and ds[2] > 0 and ds[1] > 0, lambda: (
        f"dilation should be greater than zero, but got dilationT: {ds[0]} dilationH: "
        f"{ds[1]} dilationW: {ds[2]}"))
    sz = self._sizes
    ndim = len(sz)
    check(ndim in (4, 5), lambda: (
        f"{fn}: Expected 4D or 5D tensor for input, but got: {_sizes_str(self)}"))
    for i in range(ndim):
        if ndim == 5 and i == 0:
            continue
        check(sz[i] > 0, lambda i=i: (
            f"{fn}: Expected input's non-batch dimensions to have positive length, but input "
            f"has a shape of {_sizes_str(self)} and non-batch dimension {sz[i]} has length "
            "zero!"))
    t, h, w = sz[-3:]
    if check_input_size:
        check(t >= kt and h >= kh and w >= kw, lambda: (
            f"input image (T: {t} H: {h} W: {w}) smaller than kernel size "
            f"(kT: {kt} kH: {kh} kW: {kw})"))
    check(_cdiv(kt, 2) >= ps[0] and _cdiv(kw, 2) >= ps[2] and _cdiv(kh, 2) >= ps[1], lambda: (
        "pad should be smaller than or equal to half of kernel size, but got "
        f"kT: {kt} kW: {kw} kH: {kh} padT: {ps[0]} padW: {ps[2]} padH: {ps[1]}"))
    c = sz[-4]
    check(outs[0] >= 1 and outs[2] >= 1 and outs[1] >= 1, lambda: (
        f"Given input size: ({c}x{t}x{h}x{w}). Calculated output size: "
        f"({c}x{outs[0]}x{outs[1]}x{outs[2]}). Output size is too small"))


def max_pool3d_with_indices(self, kernel_size, stride=(), padding=(0,), dilation=(1,),
                            ceil_mode=False):
    ks, ss, ps, ds, outs, cl = _max_pool3d_geometry(
        self, kernel_size, stride, padding, dilation, ceil_mode,
        "max_pool3d_with_indices_out_cpu_template()")
    shape = self._sizes[:-3] + outs
    out = _new(self, shape, self._dtype, cl)
    indices = _new(self, shape, dt.int64, cl)
    if _is_meta(self):
        return out, indices
    _require(self, _FLOATS | _INTS, "max_pool3d")
    if numel_of(shape):
        _max_pool_compute(self, 3, ks, ss, ps, ds, outs, out, indices)
    return out, indices


def max_pool3d_with_indices_backward(grad_output, self, kernel_size, stride, padding, dilation,
                                     ceil_mode, indices):
    ks, ss, ps, ds, outs, cl = _max_pool3d_geometry(
        self, kernel_size, stride, padding, dilation, ceil_mode,
        "max_pool3d_with_indices_backward_out_cpu_template()")
    # torch's CPU kernel checks against the output sizes that grad_output has
    ndim = len(self._sizes)
    gsz = grad_output._sizes
    got = tuple(gsz[-3:]) if len(gsz) >= 3 else outs
    for t in (grad_output, indices):
        for i, size in zip(range(ndim - 4, ndim), (self._sizes[-4],) + got):
            _check_dim(t, ndim, i, size)
    return _scatter_max_grad(grad_output, self, indices, 3, cl, _disjoint(ks, ss, ds))


# -- the 1-d and plain composites (CompositeImplicitAutograd) --------------------------------

def _s():
    import strided
    return strided


def _nn():
    from ...ops._generated import nn_functions
    return nn_functions


def _check_max_pool1d(self, kernel_size, stride, padding, dilation, ceil_mode):
    sz = self._sizes
    ndim = len(sz)
    check((ndim == 2 and sz[0] != 0 and sz[1] != 0) or (ndim == 3 and sz[1] != 0 and
                                                         sz[2] != 0), lambda: (
        "max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for "
        f"input, but got:{_sizes_str(self)}"))
    check(len(kernel_size) == 1, lambda: (
        "max_pool1d() kernel_size must be an int, list of ints or tuple of ints of size 1 but "
        f"got size {len(kernel_size)}"))
    check(len(stride) in (0, 1), lambda: (
        "max_pool1d() stride must be None, an int, list of ints, or tuple of ints of size 1 "
        f"but got size {len(stride)}"))
    check(len(padding) == 1, lambda: (
        "max_pool1d() padding must be an int, list of ints, or tuple of ints of size 1 but got "
        f"size {len(padding)}"))
    check(len(dilation) == 1, lambda: (
        "max_pool1d() dilation must be an int, list of ints or tuple of ints of size 1 but got "
        f"size {len(dilation)}"))
    k = kernel_size[0]
    s = stride[0] if len(stride) else k
    p, d = padding[0], dilation[0]
    check(k > 0, lambda: f"max_pool1d() kernel_size must be greater than zero, but got {k}")
    check(s > 0, lambda: f"max_pool1d() stride must be greater than zero, but got {s}")
    check(p >= 0, lambda: f"max_pool1d() padding must be non-negative, but got {p}")
    check(p <= k // 2, lambda: (
        "max_pool1d() padding should be at most half of kernel size, but got padding="
        f"{p} and kernel_size={k}"))
    check(d > 0, lambda: f"max_pool1d() dilation must be greater than zero, but got {d}")
    ow = _pool_out_size(sz[-1], k, p, s, d, ceil_mode)
    check(ow > 0, lambda: f"max_pool1d() Invalid computed output size: {ow}")
    return k, s, p, d, ow


def max_pool1d_with_indices(self, kernel_size, stride=(), padding=(0,), dilation=(1,),
                            ceil_mode=False):
    # torch checks only the ranks here; the rest is max_pool2d_with_indices' checks
    if not len(stride):
        stride = kernel_size
    _check_dim_range(self, 2, 4, "max_pool1d")
    for arg, values in (("kernel_size", kernel_size), ("stride", stride),
                        ("padding", padding), ("dilation", dilation)):
        _check_one("max_pool1d", arg, values)
    x = self.unsqueeze(-2)
    out, idx = _nn().max_pool2d_with_indices(x, (1, kernel_size[0]), (1, stride[0]),
                                             (0, padding[0]),
                                             (1, dilation[0]), ceil_mode)
    return out.squeeze(-2), idx.squeeze(-2)


def max_pool1d(self, kernel_size, stride=(), padding=(0,), dilation=(1,), ceil_mode=False):
    from ...autograd import grad_mode
    k, s, p, d, ow = _check_max_pool1d(self, kernel_size, stride, padding, dilation, ceil_mode)
    if (self.requires_grad and grad_mode.STATE.enabled) or _is_meta(self):
        return max_pool1d_with_indices(self, kernel_size, stride, padding, dilation,
                                       ceil_mode)[0]
    # max_pool1d_impl: values only, floating types only
    _require(self, _FLOATS, "max_pool1d_impl")
    shape = self._sizes[:-1] + (ow,)
    out = empty(shape, self._dtype, device=self._device)
    if numel_of(shape):
        _max_pool_compute(self, 1, (k,), (s,), (p,), (d,), (ow,), out, None)
    return out


def max_pool2d(self, kernel_size, stride=(), padding=(0,), dilation=(1,), ceil_mode=False):
    return _nn().max_pool2d_with_indices(self, kernel_size, stride, padding, dilation,
                                         ceil_mode)[0]


def max_pool3d(self, kernel_size, stride=(), padding=(0,), dilation=(1,), ceil_mode=False):
    return _nn().max_pool3d_with_indices(self, kernel_size, stride, padding, dilation,
                                         ceil_mode)[0]


# -- average pooling ---------------------------------------------------------------------------

def _avg_divisors(nd, in_sp, outs, ks, ss, ps, count_include_pad, divisor_override):
    """(*outs) array of the divisor of each output element (torch's divide_factor)."""
    if divisor_override is not None:
        return np.full(tuple(outs), divisor_override, dtype=np.int64)
    div = np.ones((), np.int64)
    for i in range(nd):
        o = np.arange(outs[i])
        start = o * ss[i] - ps[i]
        end = np.minimum(start + ks[i], in_sp[i] + ps[i])
        size = end - start
        if not count_include_pad:
            size = np.minimum(end, in_sp[i]) - np.maximum(start, 0)
        shape = [1] * nd
        shape[i] = outs[i]
        div = div * size.reshape(shape)
    return div


def _avg_pool_compute(self, nd, ks, ss, ps, outs, count_include_pad, divisor_override, out):
    arr = self._array()
    acc = np.float32 if self._dtype in (dt.float16, dt.bfloat16) else arr.dtype
    padded = _padded(arr.astype(acc, copy=False), nd, ps, outs, ks, ss, (1,) * nd, 0)
    win = _windows(padded, nd, outs, ks, ss, (1,) * nd)
    # summed one kernel offset at a time, in torch's order (row-major over the window)
    total = np.zeros(arr.shape[:-nd] + tuple(outs), dtype=acc)
    for off in np.ndindex(*ks):
        total += win[(Ellipsis,) + off]
    div = _avg_divisors(nd, self._sizes[-nd:], outs, ks, ss, ps, count_include_pad,
                        divisor_override)
    if np.dtype(acc).kind in "iu":
        res = np.where(div == 0, 0, _int_div(total, np.where(div == 0, 1, div)))
    else:
        with np.errstate(divide="ignore", invalid="ignore"):
            res = np.where(div == 0, 0, total / div.astype(acc))
    _store(out, res)


def _avg_pool2d_geometry(self, kernel_size, stride, padding, ceil_mode, divisor_override):
    ks, ss, ps, _ = _window_args("avg_pool2d", 2, kernel_size, stride, padding)
    check(divisor_override is None or divisor_override != 0, "divisor must be not zero")
    maybe_wrap_dim(-3, len(self._sizes))     # torch reads input.size(-3) here
    outs = tuple(_pool_out_size(self._sizes[-2 + i], ks[i], ps[i], ss[i], 1, ceil_mode)
                 for i in range(2))
    cl = _channels_last(self, 2)
    _pool2d_shape_check(self, ks, ss, ps, (1, 1), outs, cl)
    return ks, ss, ps, outs, cl


def avg_pool2d(self, kernel_size, stride=(), padding=(0,), ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    ks, ss, ps, outs, cl = _avg_pool2d_geometry(self, kernel_size, stride, padding, ceil_mode,
                                                divisor_override)
    shape = self._sizes[:-2] + outs
    out = _new(self, shape, self._dtype, cl)
    if _is_meta(self):
        return out
    _require(self, _FLOATS | {dt.int64}, "avg_pool2d")
    if numel_of(shape):
        _avg_pool_compute(self, 2, ks, ss, ps, outs, count_include_pad, divisor_override, out)
    return out


def _avg_pool_backward_compute(grad_output, self, nd, ks, ss, ps, outs, count_include_pad,
                               divisor_override, gi):
    g = grad_output._array()
    acc = np.float32 if self._dtype in (dt.float16, dt.bfloat16) else g.dtype
    div = _avg_divisors(nd, self._sizes[-nd:], outs, ks, ss, ps, count_include_pad,
                        divisor_override)
    g = g.astype(acc, copy=False)
    if np.dtype(acc).kind in "iu":
        delta = np.where(div == 0, 0, _int_div(g, np.where(div == 0, 1, div)))
    else:
        with np.errstate(divide="ignore", invalid="ignore"):
            delta = np.where(div == 0, 0, g / div.astype(acc))
    in_sp = self._sizes[-nd:]
    lead = self._sizes[:-nd]
    full = [max((outs[i] - 1) * ss[i] + ks[i], in_sp[i] + 2 * ps[i]) for i in range(nd)]
    buf = np.zeros(tuple(lead) + tuple(full), dtype=acc)
    for off in np.ndindex(*ks):
        region = (Ellipsis,) + tuple(slice(off[i], off[i] + (outs[i] - 1) * ss[i] + 1, ss[i])
                                     for i in range(nd))
        buf[region] += delta
    crop = (Ellipsis,) + tuple(slice(ps[i], ps[i] + in_sp[i]) for i in range(nd))
    _store(gi, buf[crop])


def avg_pool2d_backward(grad_output, self, kernel_size, stride, padding, ceil_mode,
                        count_include_pad, divisor_override):
    ks, ss, ps, outs, cl = _avg_pool2d_geometry(self, kernel_size, stride, padding, ceil_mode,
                                                divisor_override)
    ndim = len(self._sizes)
    for i, size in zip((ndim - 3, ndim - 2, ndim - 1), (self._sizes[-3],) + outs):
        _check_dim(grad_output, ndim, i, size)
    gi = _new(self, self._sizes, self._dtype, cl)
    if _is_meta(self) or not numel_of(self._sizes):
        return gi
    _require(self, _FLOATS | {dt.int64}, "avg_pool2d_backward_cpu")
    _avg_pool_backward_compute(grad_output, self, 2, ks, ss, ps, outs, count_include_pad,
                               divisor_override, gi)
    return gi


def _avg_pool3d_geometry(self, kernel_size, stride, padding, ceil_mode, divisor_override, fn):
    ks, ss, ps, _ = _window_args("avg_pool3d", 3, kernel_size, stride, padding,
                                 must="must be")
    ndim = len(self._sizes)
    check(ndim in (4, 5), "non-empty 4D or 5D (batch mode) tensor expected for input")
    check(divisor_override is None or divisor_override != 0, "divisor must be not zero")
    outs = tuple(_pool_out_size(self._sizes[-3 + i], ks[i], ps[i], ss[i], 1, ceil_mode)
                 for i in range(3))
    _pool3d_shape_check(self, ks, ss, ps, (1, 1, 1), outs, fn, True)
    return ks, ss, ps, outs, False      # torch's avg_pool3d output is contiguous


def avg_pool3d(self, kernel_size, stride=(), padding=(0,), ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    ks, ss, ps, outs, cl = _avg_pool3d_geometry(self, kernel_size, stride, padding, ceil_mode,
                                                divisor_override, "avg_pool3d()")
    shape = self._sizes[:-3] + outs
    out = _new(self, shape, self._dtype, cl)
    if _is_meta(self):
        return out
    _require(self, {dt.float32, dt.float64, dt.int64}, "avg_pool3d_out_frame")
    if numel_of(shape):
        _avg_pool_compute(self, 3, ks, ss, ps, outs, count_include_pad, divisor_override, out)
    return out


def avg_pool3d_backward(grad_output, self, kernel_size, stride, padding, ceil_mode,
                        count_include_pad, divisor_override):
    ks, ss, ps, outs, cl = _avg_pool3d_geometry(self, kernel_size, stride, padding, ceil_mode,
                                                divisor_override, "avg_pool3d_backward()")
    ndim = len(self._sizes)
    for i, size in zip(range(ndim - 4, ndim), (self._sizes[-4],) + outs):
        _check_dim(grad_output, ndim, i, size)
    gi = _new(self, self._sizes, self._dtype, cl)
    if _is_meta(self) or not numel_of(self._sizes):
        return gi
    _require(self, {dt.float32, dt.float64, dt.int64}, "avg_pool3d_backward_out_frame")
    _avg_pool_backward_compute(grad_output, self, 3, ks, ss, ps, outs, count_include_pad,
                               divisor_override, gi)
    return gi


def _check_dim_range(t, lo, hi, name):
    """torch's checkDimRange (dims in [lo, hi))."""
    ndim = len(t._sizes)
    check(lo <= ndim < hi, lambda: (
        f"Expected {lo} to {hi - 1} dimensions, but got {ndim}-dimensional tensor for "
        f"argument #1 'self' (while checking arguments for {name})"))


def _check_one(name, arg, values):
    check(len(values) == 1, lambda: (
        f"{name}() argument '{arg}' should contain one int (got {len(values)})"))


def _check_avg_pool1d(self, kernel_size, stride, padding):
    _check_dim_range(self, 2, 4, "avg_pool1d")
    _check_one("avg_pool1d", "kernel_size", kernel_size)
    if len(stride):
        _check_one("avg_pool1d", "stride", stride)
    _check_one("avg_pool1d", "padding", padding)


def avg_pool1d(self, kernel_size, stride=(), padding=(0,), ceil_mode=False,
               count_include_pad=True):
    _check_avg_pool1d(self, kernel_size, stride, padding)
    st = (1, stride[0]) if len(stride) else (1, kernel_size[0])
    out = _nn().avg_pool2d(self.unsqueeze(-2), (1, kernel_size[0]), st, (0, padding[0]),
                           ceil_mode, count_include_pad)
    return out.squeeze(-2)


# -- adaptive pooling --------------------------------------------------------------------------

def _adaptive_ranges(insize: int, outsize: int):
    """(start, end) of each output position: floor(o*in/out), ceil((o+1)*in/out)."""
    return [((o * insize) // outsize, -((-(o + 1) * insize) // outsize))
            for o in range(outsize)]


def _adaptive_avg_check(self, output_size, nd, name):
    ndim = len(self._sizes)
    dims = range(max(ndim - 2, 0), ndim) if nd == 2 else range(1, ndim)
    for i in dims:
        check(self._sizes[i] > 0, lambda i=i: (
            f"{name}(): Expected input to have non-zero size for non-batch dimensions, but "
            f"input has sizes {_sizes_str(self)} with dimension {i} being empty"))
    check(ndim in (nd + 1, nd + 2), lambda: (
        f"{name}(): Expected {nd + 1}D or {nd + 2}D tensor, but got {_sizes_str(self)}"))
    check(len(output_size) == nd, lambda: f"{name}: output_size must be {nd}")


def _window_matrix(insize, outsize, dtype):
    """(insize, outsize) 0/1 matrix: column o marks the input positions of window o."""
    m = np.zeros((insize, outsize), dtype=dtype)
    for o, (s, e) in enumerate(_adaptive_ranges(insize, outsize)):
        m[s:e, o] = 1
    return m


def _along(x, m, axis):
    """Contract ``x``'s ``axis`` with the matrix ``m`` (one matmul)."""
    if axis == x.ndim - 1:
        return x @ m
    return np.moveaxis(np.moveaxis(x, axis, -1) @ m, -1, axis)


def _adaptive_counts(insize, outsize, dtype):
    return np.array([e - s for s, e in _adaptive_ranges(insize, outsize)], dtype=dtype)


def _adaptive_avg_forward(self, outs, nd, out):
    """Window sums one spatial dim at a time, each as one matmul with a 0/1 window matrix;
    then, as torch does, the sum divided by each dim's window size in turn."""
    x = self._array()
    acc = np.float32 if self._dtype in (dt.float16, dt.bfloat16) else x.dtype
    x = x.astype(acc, copy=False)
    in_sp = self._sizes[-nd:]
    for i in range(nd - 1, -1, -1):
        x = _along(x, _window_matrix(in_sp[i], outs[i], acc), x.ndim - nd + i)
    for i in range(nd):
        shape = [1] * nd
        shape[i] = outs[i]
        x = x / _adaptive_counts(in_sp[i], outs[i], acc).reshape(shape)
    _store(out, x)


def _adaptive_avg_pool(self, output_size, nd, name):
    _adaptive_avg_check(self, output_size, nd, name)
    outs = tuple(output_size)
    shape = self._sizes[:-nd] + outs
    # channels-last kept in 2d only (torch's 3-d adaptive kernels return contiguous)
    out = _new(self, shape, self._dtype, nd == 2 and _channels_last(self, nd))
    if _is_meta(self):
        return out
    _require(self, _FLOATS, name)
    if numel_of(shape):
        _adaptive_avg_forward(self, outs, nd, out)
    return out


def adaptive_avg_pool2d_kernel(self, output_size):
    return _adaptive_avg_pool(self, output_size, 2, "adaptive_avg_pool2d")


def adaptive_avg_pool3d_kernel(self, output_size):
    return _adaptive_avg_pool(self, output_size, 3, "adaptive_avg_pool3d")


def _adaptive_avg_backward(grad_output, self, nd, name):
    gi = _new(self, self._sizes, self._dtype, nd == 2 and _channels_last(self, nd))
    if _is_meta(self) or not numel_of(self._sizes):
        return gi
    _require(self, _FLOATS, name)
    g = grad_output._array()
    acc = np.float32 if self._dtype in (dt.float16, dt.bfloat16) else g.dtype
    g = g.astype(acc, copy=False)
    in_sp = self._sizes[-nd:]
    outs = grad_output._sizes[-nd:]
    for i in range(nd):
        shape = [1] * nd
        shape[i] = outs[i]
        g = g / _adaptive_counts(in_sp[i], outs[i], acc).reshape(shape)
    for i in range(nd):
        g = _along(g, _window_matrix(in_sp[i], outs[i], acc).T, g.ndim - nd + i)
    _store(gi, g)
    return gi


def adaptive_avg_pool2d_backward_kernel(grad_output, self):
    _adaptive_backward_empty_check(grad_output, "adaptive_avg_pool2d_backward")
    ndim = len(self._sizes)
    check(ndim in (3, 4), lambda: (
        f"adaptive_avg_pool2d_backward(): Expected 3D or 4D tensor, but got {_sizes_str(self)}"))
    check(self._dtype is grad_output._dtype, lambda: (
        f"expected dtype {self._dtype} for `grad_output` but got dtype {grad_output._dtype}"))
    return _adaptive_avg_backward(grad_output, self, 2, "adaptive_avg_pool2d_backward_cpu")


def adaptive_avg_pool3d_backward_kernel(grad_output, self):
    _adaptive_backward_empty_check(grad_output, "adaptive_avg_pool3d_backward")
    return _adaptive_avg_backward(grad_output, self, 3, "adaptive_avg_pool3d_backward_cpu")


def _adaptive_backward_empty_check(grad_output, name):
    ndim = len(grad_output._sizes)
    for i in range(1, ndim):
        check(grad_output._sizes[i] > 0, lambda i=i: (
            f"{name}(): Expected grad_output to have non-zero size for non-batch dimensions, "
            f"but grad_output has sizes {_sizes_str(grad_output)} with dimension {i} being "
            "empty"))


def adaptive_avg_pool2d(self, output_size):
    check(len(output_size) == 2, "adaptive_avg_pool2d: output_size must be 2")
    check(output_size[0] >= 0 and output_size[1] >= 0, lambda: (
        "adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but "
        f"received {{{output_size[0]}, {output_size[1]}}}"))
    if tuple(output_size) == (1, 1):
        out = self.mean((-1, -2), keepdim=True)
        if _channels_last(self, 2):
            n, c = self._sizes[:2]
            out.as_strided_((n, c, 1, 1), (c, 1, c, c))
        return out
    return _s()._adaptive_avg_pool2d(self, output_size)


def adaptive_avg_pool3d(self, output_size):
    check(len(output_size) == 3, "adaptive_avg_pool3d: output_size must be 3")
    check(all(o >= 0 for o in output_size), lambda: (
        "adaptive_avg_pool3d: elements of output_size must be greater than or equal to 0 but "
        f"received {{{output_size[0]}, {output_size[1]}, {output_size[2]}}}"))
    if tuple(output_size) == (1, 1, 1):
        out = self.mean((-1, -2, -3), keepdim=True)
        if _channels_last(self, 3):
            n, c = self._sizes[:2]
            out.as_strided_((n, c, 1, 1, 1), (c, 1, c, c, c))
        return out
    return _s()._adaptive_avg_pool3d(self, output_size)


def adaptive_avg_pool1d(self, output_size):
    _check_dim_range(self, 2, 4, "adaptive_avg_pool1d")
    _check_one("adaptive_avg_pool1d", "output_size", output_size)
    out = _nn().adaptive_avg_pool2d(self.unsqueeze(-2), (1, output_size[0]))
    return out.squeeze(-2)


# Note [Adaptive max, one dim at a time]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# The window maximum is reduced over the innermost dim first (for each output position of
# that dim: the first maximum, or the last NaN, of its range), then over the next dim out,
# comparing the partial maxima of the rows. Taking the first row that holds the maximum
# (or the last row with a NaN) and inside it the element found before gives exactly the
# element of torch's row-major scan (Note [Which element a max pool picks]): the smallest
# row index first, then the smallest column. The flat index is carried along.

def _adaptive_max_forward(x, in_sp, outs):
    """(values, flat per-plane indices) of adaptive max pooling over ``x``'s trailing dims
    (Note [Adaptive max, one dim at a time]). Each dim is a running scan over the offsets
    inside the windows (at most ceil(in/out) + 1 of them), all windows at once."""
    nd = len(outs)
    if x.dtype == np.float16 or x.dtype.name == "bfloat16":
        x = x.astype(np.float32)
    nan = x.dtype.kind == "f" and bool(np.isnan(x).any())
    plane_st = contiguous_strides(tuple(in_sp))
    flat = None
    for i in range(nd - 1, -1, -1):
        axis = x.ndim - nd + i
        ranges = _adaptive_ranges(in_sp[i], outs[i])
        starts = np.array([r[0] for r in ranges], dtype=np.int64)
        lens = np.array([r[1] - r[0] for r in ranges], dtype=np.int64)
        bshape = [1] * x.ndim
        bshape[axis] = outs[i]
        best = np.take(x, starts, axis=axis)
        pos = np.zeros(best.shape, dtype=np.int64)
        upd = np.empty(best.shape, dtype=bool)
        step = np.empty(best.shape, dtype=np.int64)
        # offsets past a shorter window read an extra slice of the lowest value, which
        # never wins (no mask needed)
        fill_shape = list(x.shape)
        fill_shape[axis] = 1
        xp = np.concatenate([x, np.full(fill_shape, _lowest(x.dtype), x.dtype)], axis=axis)
        for j in range(1, int(lens.max()) if len(lens) else 0):
            v = np.take(xp, np.where(j < lens, starts + j, in_sp[i]), axis=axis)
            np.greater(v, best, out=upd)
            if nan:
                upd |= np.isnan(v)
            _take_where(pos, j, upd, step)
            np.maximum(best, v, out=best)
        where = starts.reshape(bshape) + pos
        here = where * plane_st[i]
        if flat is not None:
            here = here + np.take_along_axis(flat, where, axis=axis)
        x, flat = best, here
    return x, flat


def _adaptive_max_pool(self, output_size, nd):
    name = f"adaptive_max_pool{nd}d"
    ndim = len(self._sizes)
    check(ndim in (nd + 1, nd + 2), lambda: (
        f"{name}(): Expected {nd + 1}D or {nd + 2}D tensor, but got: {_sizes_str(self)}"))
    for i in range(1, ndim):
        check(self._sizes[i] > 0, lambda i=i: (
            f"{name}(): Expected input to have non-zero size for non-batch dimensions, but "
            f"input has sizes {_sizes_str(self)} with dimension {i} being empty"))
    check(len(output_size) == nd, lambda: (
        f"{name}(): internal error: output_size.size() must be {nd}"))
    outs = tuple(output_size)
    shape = self._sizes[:-nd] + outs
    cl = nd == 2 and _channels_last(self, nd)
    out = _new(self, shape, self._dtype, cl)
    indices = _new(self, shape, dt.int64, cl)
    if _is_meta(self):
        return out, indices
    _require(self, _FLOATS, name)
    if numel_of(shape):
        vals, flat = _adaptive_max_forward(self._array(), self._sizes[-nd:], outs)
        _store(out, vals)
        _store(indices, flat)
    return out, indices


def adaptive_max_pool2d(self, output_size):
    return _adaptive_max_pool(self, output_size, 2)


def adaptive_max_pool3d(self, output_size):
    return _adaptive_max_pool(self, output_size, 3)


def adaptive_max_pool2d_backward(grad_output, self, indices):
    ndim = len(grad_output._sizes)
    check(ndim in (3, 4), lambda: (
        "adaptive_max_pooling2d_backward(): Expected 3D or 4D grad_output, but got: "
        f"{_sizes_str(grad_output)}"))
    _adaptive_backward_empty_check(grad_output, "adaptive_max_pool2d_backward")
    check(self._dtype is grad_output._dtype, lambda: (
        f"expected dtype {self._dtype} for `grad_output` but got dtype {grad_output._dtype}"))
    return _scatter_max_grad(grad_output, self, indices, 2, _channels_last(self, 2))


def adaptive_max_pool3d_backward(grad_output, self, indices):
    _adaptive_backward_empty_check(grad_output, "adaptive_max_pool3d_backward")
    return _scatter_max_grad(grad_output, self, indices, 3, False)


def adaptive_max_pool1d(self, output_size):
    _check_dim_range(self, 2, 4, "adaptive_max_pool1d")
    for i in range(1, len(self._sizes)):
        check(self._sizes[i] > 0, lambda i=i: (
            "adaptive_max_pool1d(): Expected input to have non-zero size for non-batch "
            f"dimensions, but input has sizes {_sizes_str(self)} with dimension {i} being "
            "empty"))
    _check_one("adaptive_max_pool1d", "output_size", output_size)
    out, idx = _nn().adaptive_max_pool2d(self.unsqueeze(-2), (1, output_size[0]))
    return out.squeeze(-2), idx.squeeze(-2)


# -- fractional max pooling --------------------------------------------------------------------

def _intervals(samples, insize, outsize, pool):
    """torch's generate_intervals for every plane at once, in the samples' dtype:
    (P,) samples -> (P, outsize) window starts."""
    p = samples.shape[0]
    seq = np.zeros((p, outsize), dtype=np.int64)
    if outsize > 1:
        t = samples.dtype.type
        alpha = t(insize - pool) / t(outsize - 1)
        i = np.arange(outsize - 1).astype(samples.dtype)
        a = ((i[None, :] + samples[:, None]) * alpha).astype(np.float64)
        b = (samples * alpha).astype(np.float64)
        seq[:, :outsize - 1] = np.trunc(a).astype(np.int64) - np.trunc(b).astype(np.int64)[:, None]
    if outsize > 0:
        seq[:, outsize - 1] = insize - pool
    return seq


def _fractional_check(self, kernel_size, output_size, random_samples, nd):
    name = "fractional_max_pool2d()" if nd == 2 else "fractional_max_pool3d_out()"
    check(len(kernel_size) == nd, lambda: (
        f"fractional_max_pool{nd}d: kernel_size must either be a single Int or tuple of Ints"))
    check(len(output_size) == nd, lambda: (
        f"fractional_max_pool{nd}d: output_size must either be a single Int or tuple of Ints"))
    ndim = len(self._sizes)
    check(ndim in (nd + 1, nd + 2), lambda: (
        f"{name}: Expected {nd + 1}D or {nd + 2}D tensor, but got: {_sizes_str(self)}"))
    for d in range(1, ndim):
        check(self._sizes[d] > 0, lambda d=d: (
            f"{name}: Expected input to have non-zero size for non-batch dimensions, but "
            f"got{_sizes_str(self)} with dimension {d} being empty."))
    check(self._dtype is random_samples._dtype,
          "Expect _random_samples to have the same dtype as input")
    rdim = len(random_samples._sizes)
    check(rdim == 3, lambda: f"Expect _random_samples to have 3 dimensions, got {rdim}")
    n, c, d = random_samples._sizes
    batch = self._sizes[0] if ndim == nd + 2 else 1
    check(n >= batch, "Expect _random_samples.size(0) no less then input batch size.")
    check(c == self._sizes[-nd - 1],
          "Expect _random_samples.size(1) equals to input channel size.")
    check(d == nd, lambda: f"Expect _random_samples.size(2) equals to {nd}; got {d}.")
    names = ("time", "height", "width")[3 - nd:]
    for i in range(nd):
        check(output_size[i] + kernel_size[i] - 1 <= self._sizes[-nd + i], lambda i=i: (
            f"{name}: pool {names[i]} {kernel_size[i]} too large relative to input "
            f"{names[i]} {self._sizes[-nd + i]}"))


def _fractional(self, kernel_size, output_size, random_samples, nd):
    _fractional_check(self, kernel_size, output_size, random_samples, nd)
    outs = tuple(output_size)
    ks = tuple(kernel_size)
    shape = self._sizes[:-nd] + outs
    out = _new(self, shape, self._dtype)
    indices = _new(self, shape, dt.int64)
    if _is_meta(self):
        return out, indices
    _require(self, _FLOATS, f"fractional_max_pool{nd}d_out_frame")
    if not numel_of(shape):
        return out, indices
    x = self._array()
    in_sp = self._sizes[-nd:]
    c = self._sizes[-nd - 1]
    batch = self._sizes[0] if len(self._sizes) == nd + 2 else 1
    planes = batch * c
    xs = x.reshape((planes,) + tuple(in_sp))
    samples = random_samples._array()[:batch].reshape(planes, nd)
    # 2d: sample 0 drives W, sample 1 drives H; 3d: samples 0, 1, 2 drive T, H, W
    order = (1, 0) if nd == 2 else (0, 1, 2)
    coords = []
    for i in range(nd):
        seq = _intervals(samples[:, order[i]], in_sp[i], outs[i], ks[i])   # (P, o_i)
        coords.append(seq[:, :, None] + np.arange(ks[i])[None, None, :])   # (P, o_i, k_i)
    # gather (P, *outs, *ks)
    pidx = np.arange(planes).reshape((planes,) + (1,) * (2 * nd))
    index = [pidx]
    for i in range(nd):
        shp = [planes] + [1] * (2 * nd)
        shp[1 + i] = outs[i]
        shp[1 + nd + i] = ks[i]
        index.append(coords[i].reshape(shp))
    win = xs[tuple(index)]
    nout, kk = numel_of(outs), numel_of(ks)
    w = win.reshape(planes, nout, kk)
    arg, val = _window_arg(w)
    # flat index of the chosen element
    kcoords = np.unravel_index(arg, ks)
    plane_st = contiguous_strides(tuple(in_sp))
    ocoords = np.unravel_index(np.arange(nout), outs)
    flat = np.zeros(arg.shape, np.int64)
    for i in range(nd):
        starts = coords[i][:, :, 0]                                # (P, o_i)
        start_at = starts[:, ocoords[i]]                           # (P, nout)
        flat += (start_at + kcoords[i]) * plane_st[i]
    _store(out, val)
    _store(indices, flat)
    return out, indices


def fractional_max_pool2d(self, kernel_size, output_size, random_samples):
    return _fractional(self, kernel_size, output_size, random_samples, 2)


def fractional_max_pool3d(self, kernel_size, output_size, random_samples):
    return _fractional(self, kernel_size, output_size, random_samples, 3)


def fractional_max_pool2d_backward(grad_output, self, kernel_size, output_size, indices):
    nd = 2
    check(tuple(grad_output._sizes[-2:]) == tuple(output_size),
          "fractional_max_pool2d_backward(): gradOutput sizes unexpected")
    return _scatter_max_grad(grad_output, self, indices, nd, False)


def fractional_max_pool3d_backward(grad_output, self, kernel_size, output_size, indices):
    nd = 3
    for i in range(nd):
        check(grad_output._sizes[-nd + i] == output_size[i], lambda i=i: (
            f"fractional_max_pool3d_backward_out(): gradOutput "
            f"{('time', 'height', 'width')[i]} unexpected"))
    return _scatter_max_grad(grad_output, self, indices, nd, False)


# -- max_unpool --------------------------------------------------------------------------------

def _max_unpool(self, indices, outs, nd):
    """Each value of ``self`` written at its flat per-plane index of a zero output (a
    repeated index keeps the last value, as torch's sequential loop does)."""
    outs = tuple(outs)
    shape = self._sizes[:-nd] + outs
    out = _new(self, shape, self._dtype, nd == 2 and _channels_last(self, nd))
    if _is_meta(self):
        return out
    x = self._array()
    idx = indices._array()
    lead_n = numel_of(self._sizes[:-nd])
    plane_in = numel_of(self._sizes[-nd:])
    plane_out = numel_of(outs)
    buf = np.zeros((lead_n, plane_out), dtype=x.dtype)
    if lead_n and plane_in:
        idx2 = np.ascontiguousarray(idx).reshape(lead_n, plane_in)
        bad = (idx2 < 0) | (idx2 >= plane_out)
        if bad.any():
            last = int(idx2[bad][-1])
            dims = "x".join(str(o) for o in outs)
            raise RuntimeError(f"Found an invalid max index: {last} (output volumes are of "
                               f"size {dims})")
        rows = np.broadcast_to(np.arange(lead_n)[:, None], idx2.shape)
        vals = np.ascontiguousarray(x).reshape(lead_n, plane_in)
        buf[rows.ravel(), idx2.ravel()] = vals.ravel()
    _store(out, buf)
    return out


def max_unpool2d(self, indices, output_size):
    check(indices._dtype is dt.int64, lambda: (
        f"elements in indices should be type int64 but got: {indices._dtype._scalar_name}"))
    check(len(output_size) == 2, lambda: (
        f"There should be exactly two elements (height, width) in output_size, but got "
        f"{len(output_size)} elements."))
    ndim = len(self._sizes)
    check(ndim in (3, 4), lambda: (
        f"Input to max_unpooling2d should be a 3d or 4d Tensor, but got a tensor with {ndim} "
        "dimensions."))
    check(self._sizes == indices._sizes, lambda: (
        f"Expected shape of indices to be same as that of the input tensor ({_sizes_str(self)}) "
        f"but got indices tensor with shape: {_sizes_str(indices)}"))
    for i in range(1, ndim):
        check(self._sizes[i] > 0, lambda i=i: (
            f"max_unpooling2d_forward_out_cpu(): Expected input to have non-zero size for "
            f"non-batch dimensions, but got {_sizes_str(self)} with dimension {i} being empty."))
    return _max_unpool(self, indices, output_size, 2)


def max_unpool3d(self, indices, output_size, stride, padding):
    check(indices._dtype is dt.int64, "elements in indices should be type int64")
    ndim = len(self._sizes)
    check(ndim in (4, 5), lambda: (
        f"Input to max_unpooling3d should be a 4d or 5d Tensor, but got a tensor with {ndim} "
        "dimensions."))
    check(len(output_size) == 3, lambda: (
        f"There should be exactly three elements (depth, height, width) in output_size, but "
        f"got {len(output_size)} elements."))
    check(len(stride) == 3, lambda: (
        f"There should be exactly three elements (depth, height, width) in stride, but got: "
        f"{len(stride)} elements."))
    check(len(padding) == 3, lambda: (
        f"There should be exactly three elements (depth, height, width) in padding, but got: "
        f"{len(padding)} elements."))
    check(self._sizes == indices._sizes, lambda: (
        f"Expected shape of indices to be same as that of the input tensor ({_sizes_str(self)}) "
        f"but got indices tensor with shape: {_sizes_str(indices)}"))
    for i in range(1, ndim):
        check(self._sizes[i] > 0, lambda i=i: (
            f"max_unpooling3d_forward_out_cpu(): Expected input to have non-zero size for "
            f"non-batch dimensions, but got {_sizes_str(self)} with dimension {i} being empty."))
    check(all(s > 0 for s in stride), lambda: (
        f"strides should be greater than zero, but got stride: {list(stride)}"))
    return _max_unpool(self, indices, output_size, 3)



# -- out= forms --------------------------------------------------------------------------------
# torch's structured kernels check each out tensor's dtype against the result's, resize it
# (warning when it held elements) and write the result into it.

def _into(results, outs):
    for res, out in zip(results, outs):
        _check_out_dtype(out, res._dtype)
    for res, out in zip(results, outs):
        if resize_output(out, res._sizes) and res._strides != contiguous_strides(res._sizes):
            _set_geometry(out, res._sizes, res._strides, out._offset)
        if not _is_meta(out) and numel_of(res._sizes):
            out._array()[...] = res._array()
    return outs[0] if len(outs) == 1 else tuple(outs)


def max_pool2d_with_indices_out(self, kernel_size, stride=(), padding=(0,), dilation=(1,),
                                ceil_mode=False, out=None, indices=None):
    return _into(max_pool2d_with_indices(self, kernel_size, stride, padding, dilation,
                                         ceil_mode), (out, indices))


def avg_pool2d_out(self, kernel_size, stride=(), padding=(0,), ceil_mode=False,
                   count_include_pad=True, divisor_override=None, out=None):
    return _into((avg_pool2d(self, kernel_size, stride, padding, ceil_mode, count_include_pad,
                             divisor_override),), (out,))


def avg_pool3d_out(self, kernel_size, stride=(), padding=(0,), ceil_mode=False,
                   count_include_pad=True, divisor_override=None, out=None):
    return _into((avg_pool3d(self, kernel_size, stride, padding, ceil_mode, count_include_pad,
                             divisor_override),), (out,))


def adaptive_max_pool2d_out(self, output_size, out=None, indices=None):
    return _into(adaptive_max_pool2d(self, output_size), (out, indices))


def adaptive_max_pool3d_out(self, output_size, out=None, indices=None):
    return _into(adaptive_max_pool3d(self, output_size), (out, indices))


# torch's older (not structured) CPU kernels: each out tensor must have the result's dtype
# (their own message) and is resized without a warning.

_SCALAR_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half",
                 "bfloat16": "BFloat16", "int64": "Long", "int32": "Int", "int16": "Short",
                 "int8": "Char", "uint8": "Byte", "bool": "Bool"}


def _into_legacy(results, outs, message):
    for res, out in zip(results, outs):
        check(out._dtype is res._dtype, lambda res=res, out=out: message(res, out))
    for res, out in zip(results, outs):
        if out._sizes != res._sizes:
            resize_impl(out, res._sizes)
        if res._strides != contiguous_strides(res._sizes):
            _set_geometry(out, res._sizes, res._strides, out._offset)
        if not _is_meta(out) and numel_of(res._sizes):
            out._array()[...] = res._array()
    return outs[0] if len(outs) == 1 else tuple(outs)


def _scalar_type_msg(res, out):
    return (f"expected scalar type {_SCALAR_NAMES.get(res._dtype.name, res._dtype.name)} but "
            f"found {_SCALAR_NAMES.get(out._dtype.name, out._dtype.name)}")


def _output_dtype_msg(res, out):
    return (f"expected dtype {_CPP_NAMES[res._dtype.name]} for `output` but got dtype "
            f"{_CPP_NAMES[out._dtype.name]}")


def max_pool3d_with_indices_out(self, kernel_size, stride=(), padding=(0,), dilation=(1,),
                                ceil_mode=False, out=None, indices=None):
    return _into_legacy(max_pool3d_with_indices(self, kernel_size, stride, padding, dilation,
                                                ceil_mode), (out, indices), _scalar_type_msg)


def adaptive_avg_pool2d_out(self, output_size, out=None):
    return _into_legacy((adaptive_avg_pool2d_kernel(self, output_size),), (out,),
                        _output_dtype_msg)


def adaptive_avg_pool3d_out(self, output_size, out=None):
    return _into_legacy((adaptive_avg_pool3d_kernel(self, output_size),), (out,),
                        _output_dtype_msg)


def fractional_max_pool2d_output(self, kernel_size, output_size, random_samples, output=None,
                                 indices=None):
    return _into(fractional_max_pool2d(self, kernel_size, output_size, random_samples),
                 (output, indices))


def fractional_max_pool3d_output(self, kernel_size, output_size, random_samples, output=None,
                                 indices=None):
    return _into(fractional_max_pool3d(self, kernel_size, output_size, random_samples),
                 (output, indices))


def max_unpool2d_out(self, indices, output_size, out=None):
    return _into_legacy((max_unpool2d(self, indices, output_size),), (out,), _scalar_type_msg)


def max_unpool3d_out(self, indices, output_size, stride, padding, out=None):
    return _into_legacy((max_unpool3d(self, indices, output_size, stride, padding),), (out,),
                        _scalar_type_msg)
