"""``threshold_backward``: the gradient of ``relu`` and ``threshold`` (NumPy).

``threshold_backward(grad_output, self, threshold)`` is ``0`` where ``self <= threshold``
and ``grad_output`` elsewhere (a NaN in ``self`` passes the gradient), over torch's binary
TensorIterator: broadcasting, the common dtype of the two inputs, ``threshold`` cast to it.
It is what torch's ``ReluBackward0`` and ``ThresholdBackward0`` call, so one op (one
dispatch) replaces a comparison, a zero and a ``where`` in every ReLU's backward.

Note [threshold_backward as bit selection]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
In a training step both inputs are row-major tensors of one shape and one float dtype
(the incoming gradient and the saved ReLU output). There the kernel skips the iterator and
selects bits: ``self <= threshold`` widened to an unsigned integer of the element's size
and decremented is all ones where the gradient passes and zero where it is dropped, and
``grad & mask`` is then ``grad`` or ``+0.0`` bit for bit (NaN payloads and signed zeros
included), in three branch-free passes instead of ``np.where``'s branch per element (see
Note [where as bit selection] in kernels/elementwise.py).
"""

from __future__ import annotations

import numpy as np

from ...core import dtypes as dt
from ...core.devices import CPU
from ...core.tensor_impl import contiguous_strides
from .. import elementwise as _ew

__all__ = ["threshold_backward", "threshold_backward_grad_input"]


def _compute(out, ins, ct, threshold):
    x, grad = ins           # torch's iterator takes (self, grad_output), in that order
    c = _ew._opmath(ct)
    gv = _ew._as_ct(grad, ct)
    xv = _ew._as_ct(x, ct)
    # the threshold is a value of the common dtype (an int threshold truncates), compared
    # in the computation dtype
    th = np.asarray(threshold).astype(ct.np).astype(c)
    np.copyto(out, np.where(xv <= th, c.type(0), gv), casting="unsafe")


_OP = _ew.Op("threshold_backward", 2, "binary", _compute, _ew.INTS | _ew.FLOATS,
             "threshold_cpu", fast=False)
_BITS = {dt.float32: np.dtype(np.uint32), dt.float64: np.dtype(np.uint64)}


def _fast(grad, x, threshold):
    """Note [threshold_backward as bit selection]; None where the iterator decides."""
    cls = _ew._tensor_cls[0]
    dtype = grad._dtype
    bits = _BITS.get(dtype)
    sizes = grad._sizes
    if (bits is None or grad.__class__ is not cls or x.__class__ is not cls
            or x._dtype is not dtype or grad._device is not CPU or x._device is not CPU
            or x._sizes != sizes or not sizes or threshold.__class__ not in (int, float)):
        return None
    strides = contiguous_strides(sizes)
    if grad._strides != strides or x._strides != strides:
        return None
    result, arr = _ew._new_contiguous(sizes, dtype)
    if arr.size:
        mask = np.less_equal(x._array(), dtype.np.type(threshold)).astype(bits)
        np.subtract(mask, bits.type(1), out=mask)
        np.bitwise_and(grad._array().view(bits), mask, out=arr.view(bits))
    return result


def threshold_backward(grad_output, self, threshold):
    result = _fast(grad_output, self, threshold)
    if result is not None:
        return result
    return _ew.run(_OP, None, (self, grad_output), (threshold,))


def threshold_backward_grad_input(grad_output, self, threshold, grad_input):
    return _ew.run(_OP, grad_input, (self, grad_output), (threshold,))
