"""Kernels: the activations that are not in elementwise.py's table.

Note [Activation kernels]
~~~~~~~~~~~~~~~~~~~~~~~~~
The pointwise ones with one input (``hardswish``, ``hardsigmoid``, ``hardshrink``,
``softshrink``, ``threshold``) are rows of the elementwise table format (Note [The elementwise
table] in kernels/elementwise.py), stamped here into this module's namespace, so that they get
TensorIterator's dtype, out= and in-place rules and the fast paths. The others read and
write whole arrays: ``log_sigmoid_forward`` (output and torch's ``exp(-|x|)`` buffer),
``glu`` (halves of one dim), ``_prelu_kernel`` (a broadcast weight) and
``rrelu_with_noise`` (random slopes, drawn as torch's CPU kernel draws them: one
``uniform_real_distribution<double>(lower, upper)`` per non-positive element, in the
contiguous order of the input).

The composites (``relu6``, ``selu``, ``celu``, ``rrelu``, ``prelu``, ``log_sigmoid``) call
the public ops, so the graph records the ops torch's composites call.
"""

from __future__ import annotations

import numpy as np

from ...core import dtypes as dt
from ...core.checks import check, maybe_wrap_dim
from ...core.tensor_impl import numel_of
from .. import _distributions as _D
from .. import elementwise as _ew
from ..factory import empty as _empty
from ..factory import empty_like as _empty_like
from ..resize import resize_output as _resize_output

_FLOATS = _ew.FLOATS


def _is_meta(*tensors) -> bool:
    return any(t is not None and t._device.type == "meta" for t in tensors)


def _opmath_np(dtype):
    return np.dtype(np.float32) if dtype in (dt.float16, dt.bfloat16) else dtype.np


def _float_check(name, t):
    if t._dtype not in _FLOATS:
        raise NotImplementedError(f'"{name}" not implemented for \'{t._dtype._scalar_name}\'')


# -- pointwise rows (Note [Activation kernels]) ---------------------------------------------

def _hardswish(x):
    t = x.dtype.type
    return x * np.minimum(np.maximum(x + t(3), t(0)), t(6)) / t(6)


def _hardsigmoid(x):
    t = x.dtype.type
    return np.minimum(np.maximum(x + t(3), t(0)), t(6)) / t(6)


def _hardshrink(x, lambd=0.5):
    lam = x.dtype.type(lambd)
    return np.where((x >= -lam) & (x <= lam), x.dtype.type(0), x)


def _softshrink(x, lambd=0.5):
    t = x.dtype.type
    lam = t(lambd)
    return np.where(x > lam, x - lam, np.where(x < -lam, x + lam, t(0)))


def _threshold(out, ins, ct, threshold, value):
    x = ins[0]
    c = _ew._opmath(ct)
    xv = x if x.__class__ is np.ndarray and x.dtype == c else np.asarray(x, c)
    th = np.asarray(threshold).astype(ct.np).astype(c)
    val = np.asarray(value).astype(ct.np).astype(c)
    np.copyto(out, np.where(xv <= th, val, xv), casting="unsafe")


_LIMITS = {dt.float16: "65504", dt.bfloat16: "3.38953e+38", dt.float32: "3.40282e+38",
           dt.float64: "1.79769e+308"}


def _softshrink_post(op, ct, inputs, params):
    lambd = params[0] if params else 0.5
    if ct in _LIMITS:
        limit = float(np.finfo(ct.np).max) if ct is not dt.bfloat16 else 3.3895313892515355e38
        check(0 <= float(lambd) <= limit, lambda: (
            f"lambda must be in range [0, {_LIMITS[ct]}] for input dtype "
            f"{ct._scalar_name}, but found {lambd:g}"))


_TABLE = [
    _ew.Op("hardswish", 1, "unary", _ew.elementwise(_hardswish), _FLOATS),
    _ew.Op("hardsigmoid", 1, "unary", _ew.elementwise(_hardsigmoid), _FLOATS),
    _ew.Op("hardshrink", 1, "unary", _ew.elementwise(_hardshrink), _FLOATS, defaults=(0.5,)),
    _ew.Op("softshrink", 1, "unary", _ew.elementwise(_softshrink), _FLOATS, "softshrink_check",
           post_checks=(_softshrink_post,), defaults=(0.5,)),
    _ew.Op("threshold", 1, "unary", _threshold, _ew.INTS | _FLOATS, fast=False,
           defaults=(0, 0)),
]


def _stamp_here():
    space: dict = {}
    for op in _TABLE:
        _ew._stamp(op, space)
    for name, fn in space.items():
        fn.__module__ = __name__
        globals()[name] = fn


_stamp_here()


# -- composites: their kernel calls the public ops (the graph is torch's) --------------------

def relu6_composite(self):
    return _nn().hardtanh(self, 0, 6)


def relu6__composite(self):
    return _nn().hardtanh_(self, 0, 6)


def _nn():
    from ...ops._generated import nn_functions
    return nn_functions


def _aten():
    from ... import ops
    return ops.aten


def _torch():
    from ...ops._generated import torch_functions
    return torch_functions


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def selu_composite(self):
    return _nn().elu(self, _SELU_ALPHA, _SELU_SCALE)


def selu__composite(self):
    return _nn().elu_(self, _SELU_ALPHA, _SELU_SCALE)


def _celu_check(alpha):
    check(float(alpha) != 0, "ZeroDivisionError: alpha cannot be 0 for CELU")


def celu(self, alpha=1.0):
    """``elu(x, alpha, 1, 1/alpha)``; its own node (CeluBackward0) as torch's."""
    _celu_check(alpha)
    return _ew.elu(self, alpha, 1.0, 1.0 / float(alpha))  # noqa: F821 - stamped there


def celu_(self, alpha=1.0):
    _celu_check(alpha)
    return _ew.elu_(self, alpha, 1.0, 1.0 / float(alpha))  # noqa: F821


def log_sigmoid_composite(self):
    return _aten().log_sigmoid_forward(self)[0]


def log_sigmoid_out_composite(self, out):
    buffer = _torch().empty((0,), dtype=self.dtype, device=self.device)
    return _aten().log_sigmoid_forward.output(self, output=out, buffer=buffer)[0]


def rrelu_composite(self, lower=0.125, upper=0.3333333333333333, training=False,
                    generator=None):
    _rrelu_bounds(lower, upper)
    noise = _torch().empty_like(self, memory_format=_contiguous())
    return _nn().rrelu_with_noise(self, noise, lower, upper, training, generator)


def rrelu__composite(self, lower=0.125, upper=0.3333333333333333, training=False,
                     generator=None):
    _rrelu_bounds(lower, upper)
    noise = _torch().empty_like(self, memory_format=_contiguous())
    return _nn().rrelu_with_noise_(self, noise, lower, upper, training, generator)


def _contiguous():
    from ...core.layouts import contiguous_format
    return contiguous_format


def _rrelu_bounds(lower, upper):
    check(float(lower) <= float(upper),
          "Lower bound should be less than or equal to the upper bound")


def prelu_composite(self, weight):
    """torch's checks, then ``weight`` reshaped to broadcast along dim 1."""
    ndim = self.dim()
    check(self.dtype is weight.dtype, lambda: (
        f"prelu: Type promoting not supported. Got {self.dtype._scalar_name} and "
        f"{weight.dtype._scalar_name}"))
    if weight.numel() != 1:
        check(ndim > 0, "Not allow zero-dim input tensor.")
        channels = self.shape[1] if ndim > 1 else 1
        check(channels == weight.numel(), lambda: (
            f"Mismatch of parameter numbers and input channel size. Found parameter numbers = "
            f"{weight.numel()} and channel size = {channels}."))
    check(weight.dim() <= 1, lambda: (
        f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = "
        f"{weight.dim()}"))
    w = weight
    if ndim != weight.dim():
        shape = [1] * ndim
        if ndim > 1:
            shape[1] = weight.numel()
        w = weight.reshape(shape)
    return _torch()._prelu_kernel(self, w)


# -- log_sigmoid_forward ----------------------------------------------------------------------

def _log_sigmoid_into(output, buffer, self):
    _float_check("log_sigmoid_cpu", self)
    if _is_meta(self, output, buffer) or not numel_of(self._sizes):
        return
    c = _opmath_np(self._dtype)
    x = self._array().astype(c, copy=False)
    with np.errstate(all="ignore"):
        z = np.exp(-np.abs(x))
        out = np.minimum(x, c.type(0)) - np.log1p(z)
    np.copyto(output._array(), out, casting="unsafe")
    np.copyto(buffer._array(), z, casting="unsafe")


def log_sigmoid_forward(self):
    output = _empty(self._sizes, self._dtype, None, self._device)
    buffer = _empty(self._sizes, self._dtype, None, self._device)
    _log_sigmoid_into(output, buffer, self)
    return output, buffer


def log_sigmoid_forward_output(self, output, buffer):
    _resize_output(output, self._sizes)
    _resize_output(buffer, self._sizes)
    _log_sigmoid_into(output, buffer, self)
    output._vc[0] += 1
    buffer._vc[0] += 1
    return output, buffer


def log_sigmoid_backward(grad_output, self, buffer):
    """``(max_deriv - sign * z / (1 + z)) * grad`` with ``z = exp(-|x|)`` (the buffer)."""
    out = _empty_like(grad_output)
    if _is_meta(grad_output, self, buffer) or not numel_of(out._sizes):
        return out
    c = _opmath_np(self._dtype)
    x = self._array().astype(c, copy=False)
    z = buffer._array().astype(c, copy=False) if numel_of(buffer._sizes) else \
        np.exp(-np.abs(x))
    g = grad_output._array().astype(c, copy=False)
    neg = x < 0
    one = c.type(1)
    with np.errstate(all="ignore"):
        res = (np.where(neg, one, c.type(0)) - np.where(neg, one, -one) * (z / (one + z))) * g
    np.copyto(out._array(), res, casting="unsafe")
    return out


# -- glu --------------------------------------------------------------------------------------

def _glu_shape(self, dim):
    check(len(self._sizes) > 0, "glu does not support scalars because halving size must be even")
    d = maybe_wrap_dim(dim, len(self._sizes))
    n = self._sizes[d]
    check(n % 2 == 0, lambda: f"Halving dimension must be even, but dimension {d} is size {n}")
    return d, self._sizes[:d] + (n // 2,) + self._sizes[d + 1:]


def _glu_compute(out, ins, ct):
    a, b = (_ew._as_ct(x, ct) for x in ins)
    one = a.dtype.type(1)
    np.copyto(out, a * (one / (one + np.exp(-b))), casting="unsafe")


def _prelu_compute(out, ins, ct):
    x, w = (_ew._as_ct(v, ct) for v in ins)
    np.copyto(out, np.where(x > 0, x, w * x), casting="unsafe")


# binary rows over (first half, second half) and (self, weight): TensorIterator gives the
# output torch's layout
_GLU = _ew.Op("glu", 2, "binary", _glu_compute, _FLOATS, "glu_cpu", fast=False)
_PRELU = _ew.Op("prelu", 2, "binary", _prelu_compute, _FLOATS, "prelu_cpu", fast=False)


def _halves(self, dim):
    from ..views import narrow
    d, _ = _glu_shape(self, dim)
    h = self._sizes[d] // 2
    return narrow(self, d, 0, h), narrow(self, d, h, h)


def glu(self, dim=-1):
    a, b = _halves(self, dim)
    return _ew.run(_GLU, None, (a, b), ())


def glu_out(self, dim, out):
    a, b = _halves(self, dim)
    return _ew.run(_GLU, out, (a, b), ())


# -- prelu --------------------------------------------------------------------------------------

def _prelu_arrays(self, weight):
    c = _opmath_np(self._dtype)
    return self._array().astype(c, copy=False), weight._array().astype(c, copy=False)


def prelu_kernel(self, weight):
    return _ew.run(_PRELU, None, (self, weight), ())


def prelu_kernel_backward(grad_output, self, weight):
    """(grad_self, grad_weight), both of the broadcast shape (autograd sums the weight's)."""
    from ..broadcast import broadcast_shapes
    shape = tuple(broadcast_shapes(grad_output._sizes, self._sizes, weight._sizes))
    gs = _empty(shape, self._dtype, None, self._device)
    gw = _empty(shape, weight._dtype, None, self._device)
    if _is_meta(grad_output, self, weight) or not numel_of(shape):
        return gs, gw
    x, w = _prelu_arrays(self, weight)
    g = grad_output._array().astype(x.dtype, copy=False)
    pos = x > 0
    np.copyto(gs._array(), np.where(pos, g, w * g), casting="unsafe")
    np.copyto(gw._array(), np.where(pos, x.dtype.type(0), x * g), casting="unsafe")
    return gs, gw


# -- rrelu_with_noise -------------------------------------------------------------------------

def _rrelu_train(output, self, noise, lower, upper, generator):
    """torch's ``_rrelu_with_noise_train``: for each element in contiguous order, a
    non-positive one draws ``r ~ U(lower, upper)`` (a double from one ``random64()``, then
    cast to the compute type), the output is ``x * r`` and the noise ``r``; the others keep
    ``x`` with noise 1."""
    if self._dtype not in (dt.float32, dt.float64, dt.bfloat16):
        raise NotImplementedError(
            f'"rrelu_with_noise_out_cpu" not implemented for \'{self._dtype._scalar_name}\'')
    if _is_meta(self, noise, output) or not numel_of(self._sizes):
        return
    from ..random import _gen
    c = _opmath_np(self._dtype)
    x = np.ascontiguousarray(self._array()).reshape(-1).astype(c, copy=False)
    lo = float(c.type(lower))
    hi = float(c.type(upper))
    neg = x <= 0
    k = int(np.count_nonzero(neg))
    r = np.ones(x.shape, c)
    if k:
        u = _D.u53(_gen(generator), k)
        r[neg] = (u * (hi - lo) + lo).astype(c)
    with np.errstate(all="ignore"):
        res = np.where(neg, x * r, x)
    out_arr = output._array()
    np.copyto(out_arr, res.reshape(out_arr.shape), casting="unsafe")
    noise_arr = noise._array()
    np.copyto(noise_arr, r.reshape(noise_arr.shape), casting="unsafe")


def _rrelu_into(self, noise, lower, upper, training, generator, output):
    check(self._sizes == noise._sizes, lambda: (
        f"noise tensor shape must match self tensor shape. Got self.shape = "
        f"{list(self._sizes)} noise.shape = {list(noise._sizes)}"))
    if training:
        _rrelu_train(output, self, noise, lower, upper, generator)
        return output
    slope = (np.float64(lower) + np.float64(upper)) / 2 \
        if isinstance(lower, float) or isinstance(upper, float) else (lower + upper) / 2
    return _ew.leaky_relu_out(self, float(slope), output)  # noqa: F821 - stamped there


def rrelu_with_noise(self, noise, lower=0.125, upper=0.3333333333333333, training=False,
                     generator=None):
    out = _empty_like(self, memory_format=_contiguous())
    _rrelu_into(self, noise, lower, upper, training, generator, out)
    out._vc[0] = 0
    return out


def rrelu_with_noise_(self, noise, lower=0.125, upper=0.3333333333333333, training=False,
                      generator=None):
    _rrelu_into(self, noise, lower, upper, training, generator, self)
    if training:
        self._vc[0] += 1
    return self


def rrelu_with_noise_out(self, noise, lower=0.125, upper=0.3333333333333333, training=False,
                         generator=None, out=None):
    if training:
        _resize_output(out, self._sizes)
    _rrelu_into(self, noise, lower, upper, training, generator, out)
    if training:
        out._vc[0] += 1
    return out
