"""Kernels: pdist (``_pdist_forward`` / ``_pdist_backward``), and the composites
``pdist``, ``cosine_similarity`` and ``pairwise_distance`` (torch's decompositions, so the
graph shows the ops they call: SumBackward1, NormBackward1...).

``_pdist_forward`` takes the rows of the upper triangle (i < j, row-major, torch's order)
as two index arrays and reduces all pair differences at once; the backward scatters each
pair's contribution to both rows with ``np.add.at``.
"""

from __future__ import annotations

import numpy as np

from ...core import dtypes as dt
from ...core.checks import check
from ...core.tensor_impl import numel_of
from .. import views
from ..factory import empty
from ..shape_ops import _fill_from

_call = views._call_op


def _is_meta(t) -> bool:
    return t._device.type == "meta"


def _pdist_checks(self, p):
    check(len(self._sizes) == 2, lambda: (
        f"pdist only supports 2D tensors, got: {len(self._sizes)}D"))
    check(self._dtype.is_floating_point, "pdist only supports floating-point dtypes")
    check(p >= 0, "pdist only supports non-negative p values")


def _pairs(n):
    return np.triu_indices(n, 1)


def _pair_norm(diff, p):
    a = np.abs(diff)
    if p == 0:
        return (a != 0).sum(-1).astype(diff.dtype)
    if p == 1:
        return a.sum(-1)
    if p == 2:
        return np.sqrt(np.einsum("ij,ij->i", diff, diff))
    if p == float("inf"):
        return a.max(-1, initial=0)
    return np.power(np.power(a, p).sum(-1), 1.0 / p)


def pdist(self, p=2):
    _pdist_checks(self, p)
    from ...core.layouts import contiguous_format
    return _call("aten::_pdist_forward", _call("aten::contiguous", self, contiguous_format), p)


def pdist_forward(self, p=2):
    _pdist_checks(self, p)
    n = self._sizes[0]
    result = empty((n * (n - 1) // 2,), self._dtype, None, self._device)
    if _is_meta(self) or not numel_of(result._sizes):
        return result
    x = self._array()
    if self._sizes[1] == 0:
        return _fill_from(result, 0)
    i, j = _pairs(n)
    out = np.empty(i.shape[0], x.dtype)
    # blocks of pairs small enough to stay in cache (the differences are not kept)
    step = max(1, (1 << 16) // max(self._sizes[1], 1))
    with np.errstate(all="ignore"):
        for lo in range(0, i.shape[0], step):
            hi = lo + step
            out[lo:hi] = _pair_norm(x[i[lo:hi]] - x[j[lo:hi]], p)
    return _fill_from(result, out)


def pdist_backward(grad, self, p, pdist):
    _pdist_checks(self, p)
    result = empty(self._sizes, self._dtype, None, self._device)
    if _is_meta(self) or not numel_of(self._sizes):
        return result
    n = self._sizes[0]
    x = self._array()
    out = np.zeros(x.shape, x.dtype)
    if n > 1 and p != 0:
        i, j = _pairs(n)
        diff = x[i] - x[j]
        g = grad._array()[:, None].astype(x.dtype)
        d = pdist._array()[:, None].astype(x.dtype)
        with np.errstate(all="ignore"):
            if p == 1:
                c = np.sign(diff) * g
            elif p == 2:
                c = np.where(d == 0, 0, g * diff / d)
            elif p == float("inf"):
                c = np.sign(diff) * (np.abs(diff) == d) * g
            elif p < 2:     # torch's "less than two" form: sign(diff) |diff|^(p-1)
                c = np.where((d == 0) | ((diff == 0) & (p < 1)), 0, np.sign(diff) * np.power(
                    np.abs(diff), p - 1) * g / np.power(d, p - 1))
            else:
                c = np.where(d == 0, 0, diff * np.power(np.abs(diff), p - 2) * g
                             / np.power(d, p - 1))
        np.add.at(out, i, c)
        np.add.at(out, j, -c)
    return _fill_from(result, out)


def cosine_similarity(x1, x2, dim=1, eps=1e-08):
    """torch's decomposition: each input divided by its norm along ``dim`` (clamped to
    ``eps`` without recording), then the product summed over ``dim``."""
    common = dt.promote(x1._dtype, x2._dtype)
    check(common.is_floating_point, lambda: (
        f"expected common dtype to be floating point, yet common dtype is "
        f"{common._scalar_name}"))
    if not x1._dtype.is_floating_point and not x1._dtype.is_complex:
        x1 = _call("aten::_to_copy", x1, common, None, None, None, False, None)
    if not x2._dtype.is_floating_point and not x2._dtype.is_complex:
        x2 = _call("aten::_to_copy", x2, common, None, None, None, False, None)
    x1, x2 = _call("aten::broadcast_tensors", [x1, x2])
    n1 = _call("aten::clone", _call("aten::linalg_vector_norm", x1, 2, [dim], True, None), None)
    n2 = _call("aten::clone", _call("aten::linalg_vector_norm", x2, 2, [dim], True, None), None)
    from ...autograd.grad_mode import no_grad
    with no_grad():
        _call("aten::clamp_min_", n1, eps)
        _call("aten::clamp_min_", n2, eps)
    a = _call("aten::div.Tensor", x1, n1)
    b = _call("aten::div.Tensor", x2, n2)
    return _call("aten::sum.dim_IntList", _call("aten::mul.Tensor", a, b), [dim], False, None)


def pairwise_distance(x1, x2, p=2, eps=1e-06, keepdim=False):
    """torch's decomposition: ``norm(x1 - x2 + eps, p, last dim, keepdim)``."""
    out_dim = max(len(x1._sizes), len(x2._sizes))
    diff = _call("aten::add.Scalar", _call("aten::sub.Tensor", x1, x2, 1), eps, 1)
    return _call("aten::norm.ScalarOpt_dim", diff, p, [out_dim - 1], keepdim)
