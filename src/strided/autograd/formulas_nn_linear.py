"""Backward helpers of the linear layers (autograd/derivatives/nn_linear.yaml).

``_trilinear`` is linear in each input, so each gradient is itself a ``_trilinear``: the
incoming gradient takes the place of the input being differentiated, whose expanded dims
become the ones summed, and the summed dims become the gradient's expanded ones (torch's
``_trilinear_backward``). Being public ops, these are recorded in turn (double backward).
"""

from __future__ import annotations

import strided as _s

__all__ = ["trilinear_backward"]


def _trilinear(*args):
    return _s.ops.aten._trilinear.default(*args)


def trilinear_backward(grad, i1, i2, i3, expand1, expand2, expand3, sumdim, node):
    """(grad_i1, grad_i2, grad_i3) of ``_trilinear``, only those with live edges."""
    g1 = g2 = g3 = None
    if node._need(0):
        g1 = _trilinear(grad, i2, i3, sumdim, expand2, expand3, expand1, 1)
    if node._need(1):
        g2 = _trilinear(i1, grad, i3, expand1, sumdim, expand3, expand2, 1)
    if node._need(2):
        g3 = _trilinear(i1, i2, grad, expand1, expand2, sumdim, expand3, 1)
    return g1, g2, g3
