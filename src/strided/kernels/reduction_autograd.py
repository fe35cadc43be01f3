"""Autograd-key decompositions of reductions that torch implements by calling other ops.

torch's ``var(x)`` is ``var.correction`` with correction 1 or 0, ``msort(x)`` is
``sort(x, 0)``, ``max(x, y)`` is ``maximum``, ``nanmean`` is ``nansum / count``: they
have no backward formula of their own, and the graph they record is that of the ops they
call (``torch.var(x).grad_fn`` is ``VarBackward0``, the node of ``var.correction``).

strided keeps its direct CPU kernels for these ops (their results and errors are torch's)
and registers the kernels below as their ``CompositeImplicitAutograd`` kernel, which the
dispatcher uses for the ``Autograd`` key only (Note [Resolution order] in
ops/dispatcher.py): a call with an input that requires grad makes torch's call, through the
public ops, and so records torch's nodes; every other call goes straight to the CPU kernel.
"""

from __future__ import annotations

from ..core import dtypes as dt
from ..core.checks import check, maybe_wrap_dim
from . import sorting
from .reduction import _mean_dtype


def _aten():
    from .. import ops
    return ops.aten


def _correction(unbiased) -> int:
    return 1 if unbiased else 0


# -- var / std / var_mean / std_mean: the unbiased= overloads call .correction -------------

def var_autograd(self, unbiased=True):
    return _aten().var.correction(self, None, correction=_correction(unbiased))


def var_dim_autograd(self, dim, unbiased=True, keepdim=False):
    return _aten().var.correction(self, dim, correction=_correction(unbiased), keepdim=keepdim)


def std_autograd(self, unbiased=True):
    return _aten().std.correction(self, None, correction=_correction(unbiased))


def std_dim_autograd(self, dim, unbiased=True, keepdim=False):
    return _aten().std.correction(self, dim, correction=_correction(unbiased), keepdim=keepdim)


def var_out_autograd(self, dim, unbiased=True, keepdim=False, out=None):
    return _aten().var.correction_out(self, dim, correction=_correction(unbiased),
                                      keepdim=keepdim, out=out)


def std_out_autograd(self, dim, unbiased=True, keepdim=False, out=None):
    return _aten().std.correction_out(self, dim, correction=_correction(unbiased),
                                      keepdim=keepdim, out=out)


def var_mean_autograd(self, unbiased=True):
    return _aten().var_mean.correction(self, None, correction=_correction(unbiased))


def var_mean_dim_autograd(self, dim, unbiased=True, keepdim=False):
    return _aten().var_mean.correction(self, dim, correction=_correction(unbiased),
                                       keepdim=keepdim)


def std_mean_autograd(self, unbiased=True):
    return _aten().std_mean.correction(self, None, correction=_correction(unbiased))


def std_mean_dim_autograd(self, dim, unbiased=True, keepdim=False):
    return _aten().std_mean.correction(self, dim, correction=_correction(unbiased),
                                       keepdim=keepdim)


# -- the others ------------------------------------------------------------------------------

def nanmean_autograd(self, dim=None, keepdim=False, dtype=None):
    # the CPU kernel's checks, in its order
    check(self._dtype.category >= dt.FLOAT, lambda: (
        f"nanmean(): expected input to have floating point or complex dtype but got "
        f"{self._dtype._scalar_name}"))
    check(not self._dtype.is_complex, "nansum on CPU does not support complex inputs")
    _mean_dtype("nanmean", self, dtype)
    aten = _aten()
    count = aten.sum.dim_IntList(aten.logical_not(aten.isnan(self)), dim, keepdim)
    return aten.div.Tensor(aten.nansum(self, dim, keepdim, dtype=dtype), count)


def nanmean_out_autograd(self, dim=None, keepdim=False, dtype=None, out=None):
    check(self._dtype.category >= dt.FLOAT, lambda: (
        f"nanmean(): expected input to have floating point or complex dtype but got "
        f"{self._dtype._scalar_name}"))
    check(not self._dtype.is_complex, "nansum on CPU does not support complex inputs")
    _mean_dtype("nanmean", self, dtype, out)
    aten = _aten()
    count = aten.sum.dim_IntList(aten.logical_not(aten.isnan(self)), dim, keepdim)
    return aten.nansum.out(self, dim, keepdim, dtype=dtype, out=out).div_(count)


def max_other_autograd(self, other):
    return _aten().maximum(self, other)


def min_other_autograd(self, other):
    return _aten().minimum(self, other)


def max_other_out_autograd(self, other, out):
    return _aten().maximum.out(self, other, out=out)


def min_other_out_autograd(self, other, out):
    return _aten().minimum.out(self, other, out=out)


def msort_autograd(self):
    return _aten().sort.default(self, 0, False)[0]


def msort_out_autograd(self, out):
    from .. import empty, int64
    indices = empty(0, dtype=int64, device=self.device)
    return _aten().sort.values(self, 0, False, values=out, indices=indices)[0]


# -- quantile / nanquantile: sort, gather and lerp, as torch computes them ------------------

def _quantile_graph(self, q, dim, keepdim, interpolation, ignore_nan):
    """torch's quantile algorithm through the public ops (so its graph is torch's): sort the
    reduced dim last, turn q into fractional ranks, gather the values on both sides and
    lerp between them, then move the q dim to the front."""
    from .. import int64
    from .. import tensor as _tensor
    aten = _aten()
    ndim = self.dim()
    d = None if dim is None else maybe_wrap_dim(dim, ndim)
    if dim is not None and ndim:
        out_shape = list(self.shape)
        if keepdim:
            out_shape[d] = 1
        else:
            del out_shape[d]
    else:
        out_shape = [1] * ndim if keepdim else []
    out_shape.insert(0, q.numel())
    if dim is None:
        srt = self.flatten().sort()[0]
    elif d == ndim - 1:
        srt = self.sort()[0]
    else:
        srt = self.unsqueeze(-1).transpose(d, -1).sort()[0]
    n = srt.shape[-1]
    srt = srt.view(out_shape[1:] + [n])
    nan = srt.isnan()
    if ignore_nan:
        ranks = q * (nan.logical_not().sum(-1, keepdim=True) - 1)
        ranks = ranks.masked_fill(ranks < 0, 0)
    else:
        ranks, nan_any = aten.broadcast_tensors([q * (n - 1), nan.any(-1, keepdim=True)])
        ranks = ranks.masked_fill(nan_any, n - 1)
    if interpolation == "lower":
        ranks = ranks.floor()
    elif interpolation == "higher":
        ranks = ranks.ceil()
    elif interpolation == "nearest":
        ranks = ranks.round()
    below = ranks.to(int64)
    values = srt.gather(-1, below)
    if interpolation in ("linear", "midpoint"):
        weights = _tensor(0.5, dtype=ranks.dtype).expand(ranks.shape) \
            if interpolation == "midpoint" else ranks - below
        # torch lerps in place; out of place records the same node (LerpBackward1) and
        # keeps the old values' history for a double backward
        values = values.lerp(srt.gather(-1, ranks.ceil().to(int64)), weights)
    if q.dim() == 0:
        values.squeeze_(-1)
    else:
        values.unsqueeze_(0).transpose_(0, -1).squeeze_(-1)
    return values


def _scalar_q(self, q):
    from .. import scalar_tensor
    return scalar_tensor(q, dtype=self.dtype, device=self.device)


# each runs the CPU kernel first for its checks (its errors are torch's), then the graph

def quantile_autograd(self, q, dim=None, keepdim=False, interpolation="linear"):
    sorting.quantile(self, q, dim, keepdim, interpolation)
    return _quantile_graph(self, q, dim, keepdim, interpolation, False)


def quantile_scalar_autograd(self, q, dim=None, keepdim=False, interpolation="linear"):
    sorting.quantile_scalar(self, q, dim, keepdim, interpolation)
    return _quantile_graph(self, _scalar_q(self, q), dim, keepdim, interpolation, False)


def nanquantile_autograd(self, q, dim=None, keepdim=False, interpolation="linear"):
    sorting.nanquantile(self, q, dim, keepdim, interpolation)
    return _quantile_graph(self, q, dim, keepdim, interpolation, True)


def nanquantile_scalar_autograd(self, q, dim=None, keepdim=False, interpolation="linear"):
    sorting.nanquantile_scalar(self, q, dim, keepdim, interpolation)
    return _quantile_graph(self, _scalar_q(self, q), dim, keepdim, interpolation, True)


# the out= forms: the CPU kernel checks, resizes and fills ``out``; the graph's result is
# then copied in, which (as torch's copy) records CopyBackwards on ``out``

def quantile_out_autograd(self, q, dim=None, keepdim=False, interpolation="linear", out=None):
    sorting.quantile_out(self, q, dim, keepdim, interpolation, out)
    return out.copy_(_quantile_graph(self, q, dim, keepdim, interpolation, False))


def quantile_scalar_out_autograd(self, q, dim=None, keepdim=False, interpolation="linear",
                                 out=None):
    sorting.quantile_scalar_out(self, q, dim, keepdim, interpolation, out)
    return out.copy_(_quantile_graph(self, _scalar_q(self, q), dim, keepdim, interpolation,
                                     False))


def nanquantile_out_autograd(self, q, dim=None, keepdim=False, interpolation="linear",
                             out=None):
    sorting.nanquantile_out(self, q, dim, keepdim, interpolation, out)
    return out.copy_(_quantile_graph(self, q, dim, keepdim, interpolation, True))


def nanquantile_scalar_out_autograd(self, q, dim=None, keepdim=False, interpolation="linear",
                                    out=None):
    sorting.nanquantile_scalar_out(self, q, dim, keepdim, interpolation, out)
    return out.copy_(_quantile_graph(self, _scalar_q(self, q), dim, keepdim, interpolation,
                                     True))
