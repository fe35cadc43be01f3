"""Kernels: dropout.

Note [Dropout draws]
~~~~~~~~~~~~~~~~~~~~
torch's CPU ``dropout``, ``feature_dropout``, ``alpha_dropout`` and
``feature_alpha_dropout`` are composites (``_dropout_impl`` in ATen's Dropout.cpp): a noise
tensor of the input's dtype (``empty_like(input)``, which keeps the input's layout, so a
transposed input draws in memory order; ``(N, C, 1, ...)`` for the feature forms) filled by
``bernoulli_(1 - p)``, scaled by ``1 / (1 - p)`` (or, for the alpha forms, turned into
``a * noise`` and ``b = (noise - 1) * alpha * a + alpha * a * p``), then ``input * noise``
(``+ b``). ``p == 1`` multiplies by a zero scalar tensor; ``p == 0``, eval
mode and empty inputs return the input itself. The kernels below make the same calls
through the public ops, so the generator is drawn exactly as torch draws it and the graph
holds torch's nodes (MulBackward0, AddBackward0). ``native_dropout`` (CPU kernel: a bool
mask from ``bernoulli_(1 - p)``, then ``input * mask * scale``) is the fused form torch
uses on accelerators and in decompositions; it has its own node (NativeDropoutBackward0).
"""

from __future__ import annotations

import math

import numpy as np

from ...core import dtypes as dt
from ...core.checks import check
from ...core.tensor_impl import numel_of
from ..factory import empty as _empty
from ..factory import empty_like as _empty_like

_ALPHA = 1.7580993408473766


def _opmath(dtype):
    return np.dtype(np.float32) if dtype in (dt.float16, dt.bfloat16) else dtype.np


def _torch():
    from ...ops._generated import torch_functions
    return torch_functions


def _contiguous():
    from ...core.layouts import contiguous_format
    return contiguous_format


def _dropout_impl(input, p, train, feature, alpha, inplace):
    check(0 <= p <= 1, lambda: f"dropout probability has to be between 0 and 1, but got {p:g}")
    if p == 0 or not train or input.numel() == 0:
        return input
    T = _torch()
    if p == 1:
        zero = T.zeros((), dtype=input.dtype, device=input.device)
        return input.mul_(zero) if inplace else input.mul(zero)
    if feature:
        check(input.dim() >= 2, "Feature dropout requires at least 2 dimensions in the input")
        sizes = list(input.shape[:2]) + [1] * (input.dim() - 2)
        noise = input.new_empty(sizes)
    else:
        noise = T.empty_like(input)
    noise.bernoulli_(1 - p)
    if alpha:
        a = 1.0 / math.sqrt((_ALPHA * _ALPHA * p + 1) * (1 - p))
        b = noise.add(-1).mul_(_ALPHA * a).add_(_ALPHA * a * p)
        noise.mul_(a)
        out = input.mul_(noise) if inplace else input.mul(noise)
        return out.add_(b)
    noise.div_(1 - p)
    return input.mul_(noise) if inplace else input.mul(noise)


def dropout_composite(input, p, train):
    return _dropout_impl(input, p, train, False, False, False)


def dropout__composite(self, p, train):
    return _dropout_impl(self, p, train, False, False, True)


def feature_dropout_composite(input, p, train):
    return _dropout_impl(input, p, train, True, False, False)


def feature_dropout__composite(self, p, train):
    return _dropout_impl(self, p, train, True, False, True)


def alpha_dropout_composite(input, p, train):
    return _dropout_impl(input, p, train, False, True, False)


def alpha_dropout__composite(self, p, train):
    return _dropout_impl(self, p, train, False, True, True)


def feature_alpha_dropout_composite(input, p, train):
    return _dropout_impl(input, p, train, True, True, False)


def feature_alpha_dropout__composite(self, p, train):
    return _dropout_impl(self, p, train, True, True, True)


# -- native_dropout ---------------------------------------------------------------------------

def native_dropout(input, p, train=None):
    """(output, bool mask): ``input * mask * (1 / (1 - p))`` with ``mask ~ bernoulli(1 - p)``
    (Note [Dropout draws]); eval mode gives a clone and an all-true mask."""
    if numel_of(input._sizes) == 0:
        return input, _empty_like(input)
    from ..random import bernoulli_float_
    mask = _empty_like(input, dtype=dt.bool_)
    meta = input._device.type == "meta"
    if train is None or train:
        p1m = 1.0 - p
        scale = 0.0 if p1m == 0 else 1.0 / p1m
        out = _empty_like(input)
        if meta:
            return out, mask
        bernoulli_float_(mask, p1m)
        mask._vc[0] = 0
        x = input._array()
        c = _opmath(input._dtype)
        # torch: input.mul(mask) rounds to the input's dtype, then mul_(scale)
        prod = np.multiply(x, mask._array(), dtype=input._dtype.np, casting="unsafe")
        np.multiply(prod.astype(c, copy=False), c.type(scale), out=out._array(),
                    casting="unsafe")
        return out, mask
    out = _empty_like(input)
    if not meta:
        np.copyto(out._array(), input._array())
        mask._array()[...] = True
    return out, mask


def native_dropout_backward(grad_output, mask, scale):
    """``grad * mask * scale``."""
    check(mask._dtype is dt.bool_, lambda: (
        f"Mask should be Bool Scalar Type{mask._dtype._scalar_name}"))
    from ..broadcast import broadcast_shapes
    shape = tuple(broadcast_shapes(grad_output._sizes, mask._sizes))
    # (op_db fix) a wrapped-number scale promotes integer and bool gradients to the default
    # floating dtype, as torch's TensorIterator does
    odt = grad_output._dtype
    if not (odt.is_floating_point or odt.is_complex):
        odt = dt._default_dtype[0]
    out = _empty(shape, odt, None, grad_output._device)
    if grad_output._device.type == "meta" or not numel_of(shape):
        return out
    g = grad_output._array()
    c = _opmath(odt)
    prod = np.multiply(g, mask._array(), dtype=g.dtype, casting="unsafe")
    np.multiply(prod.astype(c, copy=False), c.type(scale), out=out._array(), casting="unsafe")
    return out
