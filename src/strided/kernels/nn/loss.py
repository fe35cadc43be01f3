"""Kernels of the losses and of aten's ``_softmax`` / ``_log_softmax`` (NumPy).

Each kernel checks its arguments with torch's messages, allocates its output and, unless
the input lives on the ``meta`` device, runs a few whole-array NumPy calls. The composite
kernels at the end (``softmax.int``, ``nll_loss_nd``, ``cross_entropy_loss``, ``l1_loss``,
``kl_div``, ...) call other operators through the dispatcher, as torch's
CompositeImplicitAutograd kernels do, so that autograd records torch's graph
(``F.cross_entropy(x, t).grad_fn`` is ``NllLossBackward0`` over ``LogSoftmaxBackward0``).

The softmax Notes ([Softmax in one pass per row], [Softmax without the shift], [Tiny
softmax]) are in kernels/nn/softmax.py, with the computations.

Note [nll_loss is one gather]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
``nll_loss_forward`` picks ``input[i, target[i]]`` for every sample with one fancy index
(``_index``: the class along the class dim, the samples' own coordinates elsewhere;
ignored samples read class 0 and are masked out, and the mask is skipped when nothing is
ignored), weights the picks by ``weight[target]`` (one ``np.take``) and reduces; the
backward writes ``-weight[target] * grad`` into zeros through the same index. The 2-d
variant (``nll_loss2d``) is the same gather along the class dimension 1.

Note [CTC as whole-array recursions]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
``_ctc_loss`` runs the alpha recursion over time only: at each step every sample and
every position of the blank-extended target is updated at once (log-sum-exp of three
shifted copies of the previous row, the third masked where the label repeats or is a
blank). Samples whose input is shorter stop changing (a ``where`` on ``t < length``).
``_ctc_loss_backward`` runs the beta recursion the same way backwards in time, then
collects ``exp(alpha + beta)`` per class (shifted by each step's max) with one batched
product by the one-hot matrix of each sample's extended target.
"""

from __future__ import annotations

import math

import numpy as np

from ...core import dtypes as dt
from ...core.checks import check, check_value
from ...core.tensor_impl import numel_of
from ...ops.dispatcher import get_op
from ..broadcast import broadcast_shapes
from ..elementwise import _new_contiguous as _ew_new_contiguous
from ..elementwise import _quiet_call as _ew_quiet_call
from ..factory import empty
from ..resize import resize_output
from . import softmax as _sm

_LOW = (dt.float16, dt.bfloat16)
_MEAN, _SUM, _NONE = 1, 2, 0
_CPP_NAMES = {
    "float16": "c10::Half", "bfloat16": "c10::BFloat16", "float32": "float",
    "float64": "double",
}


def _meta(t) -> bool:
    return t._device.type == "meta"


def _acc(dtype):
    return np.dtype(np.float32) if dtype in _LOW else dtype.np


def _arr(t, acc=None):
    a = t._array()
    if acc is not None and a.dtype != acc:
        a = a.astype(acc)
    return a


def _alloc(shape, dtype, device, out=None):
    if out is None:
        return empty(tuple(shape), dtype, device=device)
    resize_output(out, tuple(shape))
    return out


def _store(res, value) -> None:
    if not numel_of(res._sizes):
        return
    arr = res._array()
    if not arr.ndim:
        arr[()] = np.reshape(value, ())      # a reduced loss, a total weight, one sample
        return
    value = np.asarray(value)
    if value.shape != arr.shape:
        value = value.reshape(arr.shape)
    np.copyto(arr, value, casting="unsafe")


def _check_float(dtype, name) -> None:
    check(dtype.category >= dt.FLOAT and not dtype.is_complex,
          lambda: f'"{name}" not implemented for \'{dtype._scalar_name}\'', NotImplementedError)


def _reduce(loss, reduction, acc):
    """apply_loss_reduction on a NumPy array."""
    if reduction == _MEAN:
        return np.mean(loss, dtype=acc) if loss.size else np.array(np.nan, acc)
    if reduction == _SUM:
        return np.sum(loss, dtype=acc)
    return loss


_handles: dict = {}


def _op(qualname):
    h = _handles.get(qualname)
    if h is None:
        h = _handles[qualname] = get_op("aten::" + qualname)
    return h


def _call(qualname, *args):
    ks = 0
    for a in args:
        if hasattr(a, "_keyset"):
            ks |= a._keyset
    return _op(qualname).call(ks, *args)


# ATen's C++ operators with a Python number: ``t + c`` is ``add.Scalar`` (AddBackward1), and
# ``c - t`` / ``c / t`` fill a new tensor with c and subtract / divide in place
# (SubBackward0 / DivBackward0). The composites below use them where torch's C++ does, so
# that their graphs carry torch's node names.

def _adds(t, c):
    return _call("add.Scalar", t, c, 1)


def _subs(t, c):
    return _call("sub.Scalar", t, c, 1)


def _muls(t, c):
    return _call("mul.Scalar", t, c)


def _divs(t, c):
    return _call("div.Scalar", t, c)


def _rsubs(c, t):
    import strided as s
    return s.empty_like(t).fill_(c).sub_(t)


# -- _softmax / _log_softmax: the computations live in kernels/nn/softmax.py ----------------

def softmax_forward(self, dim, half_to_float):
    return _sm.forward(self, dim, half_to_float, False)


def softmax_forward_out(self, dim, half_to_float, out):
    return _sm.forward(self, dim, half_to_float, False, out)


def log_softmax_forward(self, dim, half_to_float):
    return _sm.forward(self, dim, half_to_float, True)


def log_softmax_forward_out(self, dim, half_to_float, out):
    return _sm.forward(self, dim, half_to_float, True, out)


def softmax_backward_data(grad_output, output, dim, input_dtype):
    return _sm.backward(grad_output, output, dim, input_dtype, False)


def softmax_backward_data_out(grad_output, output, dim, input_dtype, grad_input):
    return _sm.backward(grad_output, output, dim, input_dtype, False, grad_input)


def log_softmax_backward_data(grad_output, output, dim, input_dtype):
    return _sm.backward(grad_output, output, dim, input_dtype, True)


def log_softmax_backward_data_out(grad_output, output, dim, input_dtype, out):
    return _sm.backward(grad_output, output, dim, input_dtype, True, out)


def softmax_int_composite(self, dim, dtype=None):
    return _sm.composite(self, dim, dtype, False)


def log_softmax_int_composite(self, dim, dtype=None):
    return _sm.composite(self, dim, dtype, True)


def softmax_int_out_composite(self, dim, dtype=None, out=None):
    return _sm.composite(self, dim, dtype, False, out)


def log_softmax_int_out_composite(self, dim, dtype=None, out=None):
    return _sm.composite(self, dim, dtype, True, out)


# -- nll_loss (Note [nll_loss is one gather]) --------------------------------------------------

def _check_target_dtype(target):
    check(target._dtype in (dt.int64, dt.uint8), lambda: (
        f"expected target dtype to be Long or Byte, but got {target._dtype._scalar_name}"))


def _nll_targets(t, ignore_index, n_classes):
    """The targets as int64, the mask of the counted ones (None when all count), and the
    targets with the ignored ones replaced by class 0 (safe to gather with)."""
    t = t.astype(np.int64, copy=False)
    if t.size:
        lo, hi = int(t.min()), int(t.max())
        if 0 <= lo and hi < n_classes and not lo <= ignore_index <= hi:
            return None, t                   # every target counts and is in range
    valid = t != ignore_index
    if valid.all():
        if t.size and (t.min() < 0 or t.max() >= n_classes):
            bad = (t < 0) | (t >= n_classes)
            raise IndexError(f"Target {int(t[bad].flat[0])} is out of bounds.")
        return None, t
    bad = valid & ((t < 0) | (t >= n_classes))
    if bad.any():
        raise IndexError(f"Target {int(t[bad].flat[0])} is out of bounds.")
    return valid, np.where(valid, t, 0)


def _index(arr, tc, axis):
    """The fancy-index key that picks class ``tc`` along ``axis`` for every sample: the
    samples' own coordinates elsewhere (sparse grids broadcasting to ``tc``'s shape)."""
    if arr.ndim == 2 and axis == 1:
        return (np.arange(arr.shape[0]), tc)
    grids = list(np.indices(tc.shape, sparse=True))
    return tuple(grids[:axis]) + (tc,) + tuple(grids[axis:])


def _nll_gather(arr, t, w, ignore_index, n_classes, axis):
    """Per-sample ``-w[t] * arr[t]`` (0 where ignored) and the per-sample weights (None
    when every sample counts with weight 1)."""
    valid, tc = _nll_targets(t, ignore_index, n_classes)
    picked = arr[_index(arr, tc, axis)]
    if w is not None:
        ws = np.take(w, tc)
        if valid is not None:
            ws = np.where(valid, ws, 0)
        ws = ws.astype(arr.dtype, copy=False)
        loss = -(picked * ws)
    else:
        ws = None if valid is None else valid.astype(arr.dtype)
        loss = -picked
    if valid is not None:
        loss = np.where(valid, loss, 0)
    return loss.astype(arr.dtype, copy=False), ws


def _nll_forward(self, target, weight, reduction, ignore_index, two_d, output=None,
                 total_weight=None):
    _check_target_dtype(target)
    if two_d:
        check(target.dim() == 3, lambda: (
            f"only batches of spatial targets supported (3D tensors) but got targets of "
            f"dimension: {target.dim()}"))
        check(self.dim() == 4, lambda: (
            f"only batches of spatial inputs supported (4D tensors), but got input of "
            f"dimension: {self.dim()}"))
        check(weight is None or weight.numel() == self._sizes[1],
              "weight tensor should be defined either for all or no classes")
        s, ts = self._sizes, target._sizes
        check(s[0] == ts[0] and s[2] == ts[1] and s[3] == ts[2], lambda: (
            f"size mismatch (got input: {list(s)} , target: {list(ts)}"))
        n_classes = s[1]
        out_shape = ts if reduction == _NONE else ()
        axis = 1
    else:
        check(0 < self.dim() <= 2, "input tensor should be 1D or 2D")
        check(target.dim() <= 1, "0D or 1D target tensor expected, multi-target not supported")
        if self.dim() == 1 and target.dim() == 1:
            check_value(target._sizes[0] == 1, lambda: (
                f"For 1D input, 1D target must have size 1, but got target size: "
                f"{target._sizes[0]}"))
        elif not (self.dim() == 1 and target.dim() == 0):
            check(target.dim() > 0, "Dimension specified as 0 but tensor has no dimensions",
                  IndexError)
            check(self._sizes[0] == target._sizes[0], lambda: (
                f"size mismatch (got input: {list(self._sizes)}, target: "
                f"{list(target._sizes)})"))
        n_classes = self._sizes[-1]
        check(weight is None or (weight.dim() == 1 and weight.numel() == n_classes),
              lambda: (f"weight tensor should be defined either for all {n_classes} classes "
                       f"or no classes but got weight tensor of shape: "
                       f"{list(weight._sizes)}"))
        out_shape = (self._sizes[0],) if reduction == _NONE and self.dim() == 2 else ()
        axis = self.dim() - 1
    _check_float(self._dtype, "nll_loss_out_frame" if not two_d else "nll_loss2d_forward_out_frame")
    _check_weight_dtype(weight, self._dtype)
    dtype = self._dtype
    out = _alloc(out_shape, dtype, self._device, output)
    tw = _alloc((), dtype, self._device, total_weight)
    if _meta(self):
        return out, tw
    acc = _acc(dtype)
    arr = _arr(self, acc)
    t = target._array()
    w = _arr(weight, acc) if weight is not None else None
    if not two_d and self.dim() == 1:
        arr = arr[None]
        t = t.reshape(1)
        axis = 1
    if t.size == 0 and reduction != _NONE:
        _store(out, np.nan if reduction == _MEAN else 0.0)
        _store(tw, 0.0)
        return out, tw
    loss, ws = _nll_gather(arr, t, w, ignore_index, n_classes, axis)
    if reduction == _NONE:
        _store(out, loss)
        _store(tw, 0.0)
        return out, tw
    total = np.sum(ws, dtype=acc) if ws is not None else acc.type(loss.size)
    value = np.sum(loss, dtype=acc)
    if reduction == _MEAN:
        with np.errstate(all="ignore"):
            value = value / total
    _store(out, value)
    _store(tw, total)
    return out, tw


def _check_weight_dtype(weight, dtype):
    if weight is not None:
        check(weight._dtype is dtype, lambda: (
            f"expected scalar type {dtype._scalar_name} but found {weight._dtype._scalar_name}"))


def nll_loss_forward_kernel(self, target, weight, reduction, ignore_index):
    return _nll_forward(self, target, weight, reduction, ignore_index, False)


def nll_loss_forward_output(self, target, weight, reduction, ignore_index, output,
                            total_weight):
    return _nll_forward(self, target, weight, reduction, ignore_index, False, output,
                        total_weight)


def nll_loss2d_forward_kernel(self, target, weight, reduction, ignore_index):
    return _nll_forward(self, target, weight, reduction, ignore_index, True)


def nll_loss2d_forward_output(self, target, weight, reduction, ignore_index, output,
                              total_weight):
    return _nll_forward(self, target, weight, reduction, ignore_index, True, output,
                        total_weight)


def _nll_backward(grad_output, self, target, weight, reduction, ignore_index, total_weight,
                  two_d, grad_input=None):
    _check_target_dtype(target)
    if two_d:
        check(self.dim() == 4, lambda: (
            f"only batches of spatial inputs supported (4D tensors), but got input of "
            f"dimension: {self.dim()}"))
        axis = 1
    else:
        check(0 < self.dim() <= 2, "input tensor should be 1D or 2D")
        check(target.dim() <= 1, "0D or 1D target tensor expected, multi-target not supported")
        check((self.dim() == 1 and target.dim() == 0) or (
            target.dim() > 0 and self._sizes[0] == target._sizes[0]), lambda: (
            f"size mismatch (got input: {list(self._sizes)}, target: "
            f"{list(target._sizes)})"))
        axis = self.dim() - 1
    check(total_weight.numel() == 1, lambda: (
        f"expected total_weight to be a  single element tensor, got: "
        f"{list(total_weight._sizes)} ({total_weight.numel()} elements)"))
    per_sample = reduction == _NONE and (two_d or self.dim() == 2)
    if not per_sample:
        check(grad_output.dim() <= 1 and grad_output.numel() == 1, lambda: (
            f"Expected a single element grad_output tensor, but got: "
            f"{list(grad_output._sizes)}"))
    dtype = self._dtype
    _check_weight_dtype(weight, dtype)
    res = _alloc(self._sizes, dtype, self._device, grad_input)
    if _meta(self) or not numel_of(self._sizes):
        return res
    acc = _acc(dtype)
    n_classes = self._sizes[axis]
    g = _arr(grad_output, acc)
    t = target._array()
    w = _arr(weight, acc) if weight is not None else None
    ga = res._array()
    direct = ga.dtype == acc and ga.flags.writeable
    buf = ga if direct else np.empty(ga.shape, acc)
    buf.fill(0)
    view = buf
    if not two_d and self.dim() == 1:
        view = buf[None]
        t = t.reshape(1)
        axis = 1
    valid, tc = _nll_targets(t, ignore_index, n_classes)
    if w is not None:
        ws = np.take(w, tc)
        if valid is not None:
            ws = np.where(valid, ws, 0)
    else:
        ws = valid.astype(acc) if valid is not None else acc.type(1)
    if per_sample:
        scale = -g
    else:
        gv = g.reshape(())
        if reduction == _MEAN:
            with np.errstate(all="ignore"):
                gv = gv / _arr(total_weight, acc).reshape(())
        scale = -gv
    with np.errstate(invalid="ignore"):
        vals = ws * scale
        if valid is not None:
            vals = np.where(valid, vals, 0)
    view[_index(view, tc, axis)] = vals
    if not direct:
        _store(res, buf)
    return res


def nll_loss_backward_kernel(grad_output, self, target, weight, reduction, ignore_index,
                             total_weight):
    return _nll_backward(grad_output, self, target, weight, reduction, ignore_index,
                         total_weight, False)


def nll_loss_backward_grad_input(grad_output, self, target, weight, reduction, ignore_index,
                                 total_weight, grad_input):
    return _nll_backward(grad_output, self, target, weight, reduction, ignore_index,
                         total_weight, False, grad_input)


def nll_loss2d_backward_kernel(grad_output, self, target, weight, reduction, ignore_index,
                               total_weight):
    return _nll_backward(grad_output, self, target, weight, reduction, ignore_index,
                         total_weight, True)


def nll_loss2d_backward_grad_input(grad_output, self, target, weight, reduction, ignore_index,
                                   total_weight, grad_input):
    return _nll_backward(grad_output, self, target, weight, reduction, ignore_index,
                         total_weight, True, grad_input)


# composites over nll_loss_forward / nll_loss2d_forward

def nll_loss_composite(self, target, weight=None, reduction=_MEAN, ignore_index=-100):
    return _call("nll_loss_forward", self, target, weight, reduction, ignore_index)[0]


def nll_loss_out_composite(self, target, weight=None, reduction=_MEAN, ignore_index=-100,
                           out=None):
    tw = empty((0,), self._dtype, device=self._device)
    return _call("nll_loss_forward.output", self, target, weight, reduction, ignore_index,
                 out, tw)[0]


def nll_loss2d_composite(self, target, weight=None, reduction=_MEAN, ignore_index=-100):
    return _call("nll_loss2d_forward", self, target, weight, reduction, ignore_index)[0]


def nll_loss2d_out_composite(self, target, weight=None, reduction=_MEAN, ignore_index=-100,
                             out=None):
    tw = empty((0,), self._dtype, device=self._device)
    return _call("nll_loss2d_forward.output", self, target, weight, reduction, ignore_index,
                 out, tw)[0]


def nll_loss_nd_composite(self, target, weight=None, reduction=_MEAN, ignore_index=-100):
    ndim = self.dim()
    check_value(ndim >= 1, lambda: f"Expected 1 or more dimensions (got {ndim})")
    if ndim != 1:
        check_value(target.dim() >= 1 and self._sizes[0] == target._sizes[0], lambda: (
            f"Expected input batch_size ({self._sizes[0]}) to match target batch_size "
            f"({target._sizes[0] if target.dim() else 0})."))
    if ndim <= 2:
        return _call("nll_loss", self, target, weight, reduction, ignore_index)
    if ndim == 4:
        return _call("nll_loss2d", self, target, weight, reduction, ignore_index)
    n, c = self._sizes[0], self._sizes[1]
    out_size = (n,) + tuple(self._sizes[2:])
    check(tuple(target._sizes[1:]) == tuple(self._sizes[2:]), lambda: (
        f"Expected target size {list(out_size)}, got {list(target._sizes)}"))
    inp = self.contiguous()
    tgt = target.contiguous()
    inp = inp.view((n, c, 1, -1) if inp.numel() > 0 else (n, c, 0, 0))
    tgt = tgt.view((n, 1, -1) if tgt.numel() > 0 else (n, 0, 0))
    ret = _call("nll_loss2d", inp, tgt, weight, reduction, ignore_index)
    if reduction == _NONE:
        ret = ret.view(out_size)
    return ret


def _class_weight_view(weight, ndim, class_dim):
    if ndim <= 1:
        return weight
    shape = [1] * ndim
    shape[class_dim] = weight._sizes[0]
    return weight.view(shape)


def _ce_prob_target(self, target, weight, reduction, label_smoothing):
    class_dim = 0 if self.dim() == 1 else 1
    n_classes = self._sizes[class_dim]
    check(weight is None or (weight.dim() == 1 and weight.numel() == n_classes), lambda: (
        f"cross_entropy: weight tensor should be defined either for all {n_classes} classes "
        f"or no classes but got weight tensor of shape: {list(weight._sizes)}"))
    inp = _call("log_softmax.int", self, class_dim, self._dtype)
    if label_smoothing > 0.0:
        check(label_smoothing <= 1.0, lambda: (
            f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}"))
        target = _adds(_muls(target, 1 - label_smoothing), label_smoothing / n_classes)
    prod = inp * target
    if weight is not None:
        prod = prod * _class_weight_view(weight, inp.dim(), 1)
    if reduction == _MEAN:
        if inp.numel() == 0:
            return -(prod.sum().fill_(math.nan))
        return _divs(-prod.sum(), inp.numel() // n_classes)
    if reduction == _SUM:
        return -prod.sum()
    check(reduction == _NONE,
          lambda: f"Invalid reduction type encountered in cross_entropy: {reduction}")
    return -prod.sum(class_dim)


def _ce_label_smoothing(self, target, weight, reduction, ignore_index, label_smoothing):
    class_dim = 0 if self.dim() == 1 else 1
    inp = _call("log_softmax.int", self, class_dim, self._dtype)
    nll = _call("nll_loss_nd", inp, target, weight, reduction, ignore_index)
    n_classes = inp._sizes[class_dim]
    if weight is not None:
        smooth = -(inp * _class_weight_view(weight, inp.dim(), class_dim)).sum(class_dim)
    else:
        smooth = -inp.sum(class_dim)
    ignore_mask = target == ignore_index
    smooth.masked_fill_(ignore_mask, 0.0)
    if reduction == _MEAN:
        if weight is not None:
            ret = smooth.sum() / weight.gather(0, target.masked_select(~ignore_mask).flatten()
                                               ).sum()
        else:
            ret = smooth.sum() / (~ignore_mask).sum()
    elif reduction == _SUM:
        ret = smooth.sum()
    else:
        ret = smooth
    return _muls(nll, 1 - label_smoothing) + _muls(ret, label_smoothing / n_classes)


def cross_entropy_loss_composite(self, target, weight=None, reduction=_MEAN, ignore_index=-100,
                                 label_smoothing=0.0):
    if self._sizes == target._sizes:
        check(target._dtype.category >= dt.FLOAT and not target._dtype.is_complex, lambda: (
            f"Expected floating point type for target with class probabilities, got "
            f"{target._dtype._scalar_name}"))
        check(ignore_index < 0, "ignore_index is not supported for floating point target")
        return _ce_prob_target(self, target, weight, reduction, label_smoothing)
    if label_smoothing > 0.0:
        check(label_smoothing <= 1.0, lambda: (
            f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}"))
        return _ce_label_smoothing(self, target, weight, reduction, ignore_index,
                                   label_smoothing)
    class_dim = 0 if self.dim() == 1 else 1
    if self.dim() <= 2 and target.dim() == self.dim() - 1 and (
            self.dim() == 1 or self._sizes[0] == target._sizes[0]):
        # the common case, straight to the two recorded ops (log_softmax.int, nll_loss_nd and
        # nll_loss only pass their arguments on here; the graph is the same)
        inp = _call("_log_softmax", self, class_dim, False)
        return _call("nll_loss_forward", inp, target, weight, reduction, ignore_index)[0]
    inp = _call("log_softmax.int", self, class_dim, self._dtype)
    return _call("nll_loss_nd", inp, target, weight, reduction, ignore_index)


# -- pointwise losses ------------------------------------------------------------------------

def _binary(self, target, name, out=None, reduction=_NONE, dtype=None):
    """Broadcast shape, result dtype and the two NumPy operands of a pointwise loss."""
    dtype = dtype or dt.promote(self._dtype, target._dtype)
    _check_float(dtype, name)
    shape = broadcast_shapes(self._sizes, target._sizes)
    res = _alloc(shape if reduction == _NONE else (), dtype, self._device, out)
    if _meta(self) or _meta(target):
        return res, None, None, None
    acc = _acc(dtype)
    a, b = np.broadcast_arrays(_arr(self, acc), _arr(target, acc))
    return res, a, b, acc


def _finish(res, loss, reduction, acc):
    _store(res, _reduce(loss, reduction, acc))
    return res


# Note [The short path of mse_loss]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# A training step's loss: input and target of one shape and one float32/float64 dtype, on
# the CPU, reduced by mean or sum, no out=. Then there is nothing to broadcast, promote or
# check, and the general path's set-up (broadcast shape, allocation through ``empty``,
# ``np.broadcast_arrays``) costs several times the arithmetic. The short paths compute the
# very same NumPy expressions as the general ones (so the same bits): forward, the
# difference and its sum of squares through one BLAS dot; backward, ``(a - b) * (norm *
# grad)`` in two passes, into a fresh row-major result.
_MSE_FAST_TYPES = (dt.float32, dt.float64)


def _mse_same(self, target) -> bool:
    dtype = self._dtype
    return (dtype in _MSE_FAST_TYPES and target._dtype is dtype and self._sizes == target._sizes
            and self._device.type == "cpu" and target._device.type == "cpu")


def _mse_fast(self, target, reduction):
    """Note [The short path of mse_loss]; None where the general path runs."""
    if reduction == _NONE or not _mse_same(self, target) or not numel_of(self._sizes):
        return None
    res, arr = _ew_new_contiguous((), self._dtype)
    flat = _ew_quiet_call(np.subtract, self._array(), target._array()).reshape(-1)
    total = np.dot(flat, flat)                     # the sum of squares in one BLAS call
    arr[()] = total / flat.size if reduction == _MEAN else total
    return res


def _mse_impl(self, target, reduction, out=None):
    if out is None:
        res = _mse_fast(self, target, reduction)
        if res is not None:
            return res
    res, a, b, acc = _binary(self, target, "mse_cpu", out, reduction)
    if a is None:
        return res
    d = np.asarray(a - b)
    if reduction != _NONE and d.size:
        flat = d.reshape(-1)
        total = np.dot(flat, flat)                 # the sum of squares in one BLAS call
        _store(res, total / d.size if reduction == _MEAN else total)
        return res
    return _finish(res, d * d, reduction, acc)


def mse_loss_kernel(self, target, reduction=_MEAN):
    return _mse_impl(self, target, reduction)


def mse_loss_out_kernel(self, target, reduction=_MEAN, out=None):
    return _mse_impl(self, target, reduction, out)


def _mse_bw_fast(grad_output, self, target, reduction):
    """Note [The short path of mse_loss] (a reduced loss's backward); None where the general
    path runs."""
    if (reduction == _NONE or grad_output._sizes or grad_output._dtype is not self._dtype
            or grad_output._device.type != "cpu" or not _mse_same(self, target)
            or not numel_of(self._sizes)):
        return None
    res, out_arr = _ew_new_contiguous(self._sizes, self._dtype)
    acc = out_arr.dtype
    norm = 2.0 / numel_of(self._sizes) if reduction == _MEAN else 2.0
    _ew_quiet_call(_mse_bw_into, out_arr, self._array(), target._array(),
                   acc.type(norm * grad_output._array().reshape(())))
    return res


def _mse_bw_into(out_arr, a, b, scale):
    np.subtract(a, b, out=out_arr)
    np.multiply(out_arr, scale, out=out_arr)


def _mse_bw_impl(grad_output, self, target, reduction, out=None):
    if out is None:
        res = _mse_bw_fast(grad_output, self, target, reduction)
        if res is not None:
            return res
    dtype = dt.promote(self._dtype, target._dtype)
    shape = tuple(np.broadcast_shapes(grad_output._sizes, self._sizes, target._sizes))
    res = _alloc(shape, dtype, self._device, out)
    if _meta(self):
        return res
    acc = _acc(dtype)
    norm = 2.0 / max(numel_of(self._sizes), 1) if reduction == _MEAN else 2.0
    a, b, g = _arr(self, acc), _arr(target, acc), _arr(grad_output, acc)
    out_arr = res._array()
    if g.size == 1 and a.shape == shape and b.shape == shape and out_arr.dtype == acc and \
            out_arr.flags.writeable:
        # the reduced case: two passes straight into the result
        np.subtract(a, b, out=out_arr)
        np.multiply(out_arr, acc.type(norm * g.reshape(())), out=out_arr)
        return res
    value = norm * (a - b) * g
    _store(res, np.broadcast_to(value, shape))
    return res


def mse_loss_backward_kernel(grad_output, self, target, reduction):
    return _mse_bw_impl(grad_output, self, target, reduction)


def mse_loss_backward_grad_input(grad_output, self, target, reduction, grad_input):
    return _mse_bw_impl(grad_output, self, target, reduction, grad_input)


def _smooth_l1_impl(self, target, reduction, beta, out=None):
    check(beta >= 0, "smooth_l1_loss does not support negative values for beta.")
    res, a, b, acc = _binary(self, target, "smooth_l1_cpu", out, reduction)
    if a is None:
        return res
    d = np.abs(a - b)
    if beta == 0:
        loss = d
    else:
        loss = np.where(d < beta, 0.5 * d * d / beta, d - 0.5 * beta)
    return _finish(res, loss.astype(acc, copy=False), reduction, acc)


def smooth_l1_loss_kernel(self, target, reduction=_MEAN, beta=1.0):
    return _smooth_l1_impl(self, target, reduction, beta)


def smooth_l1_loss_out_kernel(self, target, reduction=_MEAN, beta=1.0, out=None):
    return _smooth_l1_impl(self, target, reduction, beta, out)


def _huber_impl(self, target, reduction, delta, out=None):
    check(delta > 0, "huber_loss does not support non-positive values for delta.")
    res, a, b, acc = _binary(self, target, "huber_cpu", out, reduction)
    if a is None:
        return res
    d = np.abs(a - b)
    loss = np.where(d < delta, 0.5 * d * d, delta * (d - 0.5 * delta))
    return _finish(res, loss.astype(acc, copy=False), reduction, acc)


def huber_loss_kernel(self, target, reduction=_MEAN, delta=1.0):
    return _huber_impl(self, target, reduction, delta)


def huber_loss_out_kernel(self, target, reduction=_MEAN, delta=1.0, out=None):
    return _huber_impl(self, target, reduction, delta, out)


def _soft_margin_impl(self, target, reduction, out=None):
    # torch writes neg(input) into the output and multiplies by target in place: self's dtype
    res, a, b, acc = _binary(self, target, "soft_margin_loss", out, reduction, self._dtype)
    if a is None:
        return res
    with np.errstate(over="ignore"):
        loss = np.log1p(np.exp(-b * a)).astype(acc, copy=False)
    return _finish(res, loss, reduction, acc)


def soft_margin_loss_kernel(self, target, reduction=_MEAN):
    return _soft_margin_impl(self, target, reduction)


def soft_margin_loss_out_kernel(self, target, reduction=_MEAN, out=None):
    return _soft_margin_impl(self, target, reduction, out)


def _bce_impl(self, target, weight, reduction, out=None):
    dtype = self._dtype
    _check_float(dtype, "binary_cross_entropy")
    check_value(numel_of(self._sizes) == numel_of(target._sizes), lambda: (
        f"Using a target size ({target.shape}) that is different to the input size "
        f"({self.shape}) is deprecated. Please ensure they have the same size."))
    res = _alloc(self._sizes if reduction == _NONE else (), dtype, self._device, out)
    if _meta(self):
        return res
    acc = _acc(dtype)
    x = _arr(self, acc)
    y = _arr(target, acc).reshape(x.shape)
    check(not ((x < 0) | (x > 1)).any() and not np.isnan(x).any(),
          "all elements of input should be between 0 and 1")
    with np.errstate(divide="ignore", invalid="ignore"):
        loss = ((y - 1) * np.maximum(np.log1p(-x), -100) - y * np.maximum(np.log(x), -100))
    loss = loss.astype(acc, copy=False)
    if weight is not None:
        loss = loss * _arr(weight, acc)
    return _finish(res, loss.astype(acc, copy=False), reduction, acc)


def binary_cross_entropy_kernel(self, target, weight=None, reduction=_MEAN):
    return _bce_impl(self, target, weight, reduction)


def binary_cross_entropy_out_kernel(self, target, weight=None, reduction=_MEAN, out=None):
    return _bce_impl(self, target, weight, reduction, out)


def _bce_bw_impl(grad_output, self, target, weight, reduction, out=None):
    dtype = self._dtype
    _check_float(dtype, "binary_cross_entropy_backward")
    res = _alloc(self._sizes, dtype, self._device, out)
    if _meta(self) or not numel_of(self._sizes):
        return res
    acc = _acc(dtype)
    x = _arr(self, acc)
    y = _arr(target, acc).reshape(x.shape)
    g = _arr(grad_output, acc)
    with np.errstate(all="ignore"):
        value = g * (x - y) / np.maximum((1 - x) * x, acc.type(1e-12))
    if weight is not None:
        value = value * _arr(weight, acc)
    if reduction == _MEAN:
        value = value / x.size
    _store(res, np.broadcast_to(value, x.shape).astype(acc, copy=False))
    return res


def binary_cross_entropy_backward_kernel(grad_output, self, target, weight=None,
                                         reduction=_MEAN):
    return _bce_bw_impl(grad_output, self, target, weight, reduction)


def binary_cross_entropy_backward_grad_input(grad_output, self, target, weight=None,
                                             reduction=_MEAN, grad_input=None):
    return _bce_bw_impl(grad_output, self, target, weight, reduction, grad_input)


def binary_cross_entropy_with_logits_kernel(self, target, weight=None, pos_weight=None,
                                            reduction=_MEAN):
    dtype = dt.promote(self._dtype, target._dtype)
    _check_float(dtype, "binary_cross_entropy_with_logits")
    shapes = [self._sizes, target._sizes] + [w._sizes for w in (weight, pos_weight)
                                             if w is not None]
    shape = tuple(np.broadcast_shapes(*shapes))
    res = _alloc(shape if reduction == _NONE else (), dtype, self._device)
    if _meta(self):
        return res
    acc = _acc(dtype)
    x = _arr(self, acc)
    y = _arr(target, acc)
    with np.errstate(over="ignore"):
        # log(1 + exp(-x)) computed stably as max(-x, 0) + log(exp(-m) + exp(-x - m))
        m = np.maximum(-x, 0)
        sp = m + np.log(np.exp(-m) + np.exp(-x - m))
        if pos_weight is not None:
            lw = (_arr(pos_weight, acc) - 1) * y + 1
            loss = (1 - y) * x + lw * sp
        else:
            loss = (1 - y) * x + sp
    if weight is not None:
        loss = loss * _arr(weight, acc)
    loss = np.broadcast_to(loss, shape).astype(acc, copy=False)
    return _finish(res, loss, reduction, acc)


# -- margin losses ---------------------------------------------------------------------------

def _mm_shapes(self, target, weight, name):
    ndim = self.dim()
    valid = (ndim == 2 and self._sizes[1] != 0) or (ndim == 1 and self._sizes[0] != 0) or \
        ndim == 0
    nframe = 1 if ndim <= 1 else self._sizes[0]
    dim = 1 if ndim == 0 else self._sizes[-1]
    check(valid, lambda: (f"Expected non-empty vector or matrix with optional 0-dim batch "
                          f"size, but got: {list(self._sizes)}"))
    check(target.dim() <= 1 and target.numel() == nframe, lambda: (
        f"multi_margin_loss: target tensor should be 1-D with size equal to the number of "
        f"input samples (batch size). Expected target size [{nframe}], but got "
        f"{list(target._sizes)}. Input has shape {list(self._sizes)}."))
    if weight is not None:
        check(weight.dim() <= 1 and weight.numel() == dim, lambda: (
            f"inconsistent weight size, expected {dim} but got {list(weight._sizes)}"))
    _check_long(target)
    return nframe, dim


def _check_long(target):
    check(target._dtype is dt.int64, lambda: (
        f"expected scalar type Long but found {target._dtype._scalar_name}"))


def _multi_margin_parts(self, target, p, margin, weight):
    acc = _acc(self._dtype)
    nframe, dim = _mm_shapes(self, target, weight, "multi_margin_loss")
    x = _arr(self, acc).reshape(nframe, dim)
    t = target._array().reshape(nframe).astype(np.int64)
    bad = (t < 0) | (t >= dim)
    check(not bad.any(), "target out of range")
    xt = np.take_along_axis(x, t[:, None], 1)
    z = margin - xt + x
    z[np.arange(nframe), t] = 0
    pos = z > 0
    h = np.where(pos, z if p == 1 else z * z, 0).astype(acc, copy=False)
    if weight is not None:
        wt = np.take(_arr(weight, acc), t)[:, None]
        h = h * wt
    else:
        wt = None
    return acc, nframe, dim, x, t, z, pos, h, wt


def _multi_margin_impl(self, target, p, margin, weight, reduction, out=None):
    p = int(p) if float(p) == int(p) else p
    check(p == 1 or p == 2, "only p == 1 and p == 2 supported")
    _check_float(self._dtype, "multi_margin_loss_cpu_kernel")
    nframe = 1 if self.dim() <= 1 else self._sizes[0]
    shape = (nframe,) if reduction == _NONE and target.dim() > 0 else ()
    if _meta(self):
        _mm_shapes(self, target, weight, "multi_margin_loss")
        return _alloc(shape, self._dtype, self._device, out)
    res = _alloc(shape, self._dtype, self._device, out)
    if not self.numel():
        _mm_shapes(self, target, weight, "multi_margin_loss")
        return res
    acc, nframe, dim, x, t, z, pos, h, wt = _multi_margin_parts(self, target, p, margin, weight)
    per = np.sum(h, axis=1, dtype=acc) / dim
    _store(res, per if reduction == _NONE else _reduce(per, reduction, acc))
    return res


def multi_margin_loss_kernel(self, target, p=1, margin=1, weight=None, reduction=_MEAN):
    return _multi_margin_impl(self, target, p, margin, weight, reduction)


def multi_margin_loss_out_kernel(self, target, p=1, margin=1, weight=None, reduction=_MEAN,
                                 out=None):
    return _multi_margin_impl(self, target, p, margin, weight, reduction, out)


def _multi_margin_bw_impl(grad_output, self, target, p, margin, weight, reduction, out=None):
    p = int(p) if float(p) == int(p) else p
    check(p == 1 or p == 2, "only p == 1 and p == 2 supported")
    res = _alloc(self._sizes, self._dtype, self._device, out)
    if _meta(self):
        return res
    acc, nframe, dim, x, t, z, pos, h, wt = _multi_margin_parts(self, target, p, margin, weight)
    gz = np.where(pos, 1.0 if p == 1 else 2 * z, 0).astype(acc, copy=False) / dim
    if wt is not None:
        gz = gz * wt
    gz[np.arange(nframe), t] = 0
    gz[np.arange(nframe), t] = -gz.sum(axis=1)
    g = _arr(grad_output, acc)
    if reduction == _NONE and grad_output.dim() > 0:
        gz = gz * g.reshape(nframe, 1)
    else:
        gz = gz * g.reshape(())
        if reduction == _MEAN:
            gz = gz / nframe
    _store(res, gz.astype(acc, copy=False))
    return res


def multi_margin_loss_backward_kernel(grad_output, self, target, p, margin, weight=None,
                                      reduction=_MEAN):
    return _multi_margin_bw_impl(grad_output, self, target, p, margin, weight, reduction)


def multi_margin_loss_backward_grad_input(grad_output, self, target, p, margin, weight=None,
                                          reduction=_MEAN, grad_input=None):
    return _multi_margin_bw_impl(grad_output, self, target, p, margin, weight, reduction,
                                 grad_input)


def _mlm_check(self, target):
    ndim = self.dim()
    check(ndim <= 2 and self.numel() > 0 if ndim else True, lambda: (
        f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
        f"{list(self._sizes)}"))
    nframe = 1 if ndim <= 1 else self._sizes[0]
    dim = 1 if ndim == 0 else self._sizes[-1]
    if ndim <= 1:
        check(target.dim() <= 1 and target.numel() == dim, lambda: (
            f"inconsistent target size: {list(target._sizes)} for input of size: "
            f"{list(self._sizes)}"))
    else:
        check(target.dim() == 2 and target._sizes[0] == nframe and target._sizes[1] == dim,
              lambda: (f"inconsistent target size: {list(target._sizes)} for input of size: "
                       f"{list(self._sizes)}"))
    _check_long(target)
    return nframe, dim


def _mlm_parts(self, target):
    acc = _acc(self._dtype)
    nframe, dim = _mlm_check(self, target)
    x = _arr(self, acc).reshape(nframe, dim)
    t = target._array().reshape(nframe, dim).astype(np.int64)
    valid = np.cumprod(t != -1, axis=1).astype(bool)       # positions before the first -1
    check(not (valid & ((t < 0) | (t >= dim))).any(), "argument #2 'target' is out of range")
    tc = np.where(valid, t, 0)
    is_target = np.zeros((nframe, dim), bool)
    rows = np.broadcast_to(np.arange(nframe)[:, None], tc.shape)
    is_target[rows[valid], tc[valid]] = True
    xt = np.take_along_axis(x, tc, 1)                      # (n, j)
    z = 1 - xt[:, :, None] + x[:, None, :]                 # (n, j, k)
    mask = valid[:, :, None] & ~is_target[:, None, :] & (z > 0)
    return acc, nframe, dim, x, tc, valid, is_target, z, mask


def _mlm_forward(self, target, reduction, output=None, is_target_out=None):
    _check_float(self._dtype, "multilabel_margin_loss_forward_out_frame")
    nframe, dim = _mlm_check(self, target)
    shape = (nframe,) if reduction == _NONE and self.dim() == 2 else ()
    out = _alloc(shape, self._dtype, self._device, output)
    ist = _alloc(target._sizes, self._dtype, self._device, is_target_out)
    if _meta(self):
        return out, ist
    acc, nframe, dim, x, tc, valid, is_target, z, mask = _mlm_parts(self, target)
    per = np.sum(np.where(mask, z, 0), axis=(1, 2), dtype=acc) / dim
    _store(out, per if reduction == _NONE else _reduce(per, reduction, acc))
    _store(ist, is_target.astype(acc))
    return out, ist


def multilabel_margin_loss_forward_kernel(self, target, reduction):
    return _mlm_forward(self, target, reduction)


def multilabel_margin_loss_forward_output(self, target, reduction, output, is_target):
    return _mlm_forward(self, target, reduction, output, is_target)


def _mlm_backward(grad_output, self, target, reduction, is_target, out=None):
    res = _alloc(self._sizes, self._dtype, self._device, out)
    if _meta(self):
        return res
    acc, nframe, dim, x, tc, valid, ist, z, mask = _mlm_parts(self, target)
    m = mask.astype(acc)
    gx = m.sum(axis=1) / dim                                # +1 for every (j, k) pair on x[k]
    minus = m.sum(axis=2) / dim                             # -1 on x[t_j]
    rows = np.broadcast_to(np.arange(nframe)[:, None], tc.shape)
    np.add.at(gx, (rows, tc), -minus)
    g = _arr(grad_output, acc)
    if reduction == _NONE and self.dim() == 2:
        gx = gx * g.reshape(nframe, 1)
    else:
        gx = gx * g.reshape(())
        if reduction == _MEAN:
            gx = gx / nframe
    _store(res, gx.astype(acc, copy=False))
    return res


def multilabel_margin_loss_backward_kernel(grad_output, self, target, reduction, is_target):
    return _mlm_backward(grad_output, self, target, reduction, is_target)


def multilabel_margin_loss_backward_grad_input(grad_output, self, target, reduction, is_target,
                                               grad_input):
    return _mlm_backward(grad_output, self, target, reduction, is_target, grad_input)


def multilabel_margin_loss_composite(self, target, reduction=_MEAN):
    return _call("multilabel_margin_loss_forward", self, target, reduction)[0]


def multilabel_margin_loss_out_composite(self, target, reduction=_MEAN, out=None):
    ist = empty((0,), self._dtype, device=self._device)
    return _call("multilabel_margin_loss_forward.output", self, target, reduction, out, ist)[0]


# -- composite losses (torch's CompositeImplicitAutograd kernels) -----------------------------

def _apply_reduction(t, reduction):
    if reduction == _MEAN:
        return t.mean()
    if reduction == _SUM:
        return t.sum()
    return t


def l1_loss_composite(self, target, reduction=_MEAN):
    return _apply_reduction((self - target).abs(), reduction)


def kl_div_composite(self, target, reduction=_MEAN, log_target=False):
    import strided as s
    if log_target:
        out = s.exp(target) * (target - self)
    else:
        # torch's xlogy(target, target): 0 where target is 0 (XlogyBackward0 for the target)
        out = s.xlogy(target, target) - target * self
    return _apply_reduction(out, reduction)


def poisson_nll_loss_composite(input, target, log_input, full, eps, reduction):
    import strided as s
    if log_input:
        loss = s.exp(input) - target * input
    else:
        loss = input - target * s.log(_adds(input, eps))
    if full:
        stirling = (target * s.log(target) - target
                    + _muls(s.log(_muls(target, 2 * math.pi)), 0.5))
        loss = loss + stirling.masked_fill(target <= 1, 0)
    return _apply_reduction(loss, reduction)


def margin_ranking_loss_composite(input1, input2, target, margin=0.0, reduction=_MEAN):
    out = _adds(-target * (input1 - input2), margin).clamp_min_(0)
    return _apply_reduction(out, reduction)


def hinge_embedding_loss_composite(self, target, margin=1.0, reduction=_MEAN):
    import strided as s
    zeros = s.zeros_like(self)
    margin_clamp = _rsubs(margin, self).clamp_min_(0)
    output_margin = s.where(target != 1, margin_clamp, zeros)
    output_self = s.where(target != -1, self, zeros)
    return _apply_reduction(output_margin + output_self, reduction)


def cosine_embedding_loss_composite(input1, input2, target, margin=0.0, reduction=_MEAN):
    import strided as s
    tdim = target.dim()
    check(tdim in (0, 1), "0D or 1D target tensor expected, multi-target not supported")
    if tdim == 1:
        check(input1.dim() == 2, lambda: (
            f"1D target tensor expects 2D input tensors, but found inputs with sizes "
            f"{list(input1._sizes)} and {list(input2._sizes)}."))
    else:
        check(input1.dim() == 1, lambda: (
            f"0D target tensor expects 1D input tensors, but found inputs with sizes "
            f"{list(input1._sizes)} and {list(input2._sizes)}."))
    eps = 1e-12
    prod_sum = (input1 * input2).sum(tdim)
    mag1 = _adds((input1 * input1).sum(tdim), eps)
    mag2 = _adds((input2 * input2).sum(tdim), eps)
    denom = (mag1 * mag2).sqrt_()
    cos = prod_sum / denom
    zeros = s.zeros_like(cos)
    pos = _rsubs(1, cos)
    neg = _subs(cos, margin).clamp_min_(0)
    out = s.where(target == 1, pos, zeros) + s.where(target == -1, neg, zeros)
    return _apply_reduction(out, reduction)


def _pairwise_distance(x1, x2, p, eps):
    """aten::pairwise_distance: the p-norm of ``x1 - x2 + eps`` over the innermost dim."""
    import strided as s
    return s.norm(_adds(x1 - x2, eps), p, max(x1.dim(), x2.dim()) - 1, False)


def triplet_margin_loss_composite(anchor, positive, negative, margin=1.0, p=2.0, eps=1e-6,
                                  swap=False, reduction=_MEAN):
    import strided as s
    a, pd, nd = anchor.dim(), positive.dim(), negative.dim()
    check(a == pd and pd == nd, lambda: (
        f"The anchor, positive, and negative tensors are expected to have the same number of "
        f"dimensions, but got: anchor {a}D, positive {pd}D, and negative {nd}D inputs"))
    dist_pos = _pairwise_distance(anchor, positive, p, eps)
    dist_neg = _pairwise_distance(anchor, negative, p, eps)
    if swap:
        dist_neg = s.min(dist_neg, _pairwise_distance(positive, negative, p, eps))
    return _apply_reduction(s.clamp_min(_adds(dist_pos, margin) - dist_neg, 0), reduction)


# -- CTC (Note [CTC as whole-array recursions]) ------------------------------------------------

_NEG_INF = -np.inf


def _ctc_setup(log_probs, targets, input_lengths, target_lengths, blank, where):
    check(log_probs.dim() == 3, lambda: (
        f"Expected 3-dimensional tensor, but got {log_probs.dim()}-dimensional tensor for "
        f"argument #1 'log_probs' (while checking arguments for {where})"))
    T, N, C = log_probs._sizes
    check(0 <= blank < C, "blank must be in label range")
    il = [int(v) for v in input_lengths]
    tl = [int(v) for v in target_lengths]
    check(len(il) == N, "input_lengths must be of size batch_size")
    check(len(tl) == N, "target_lengths must be of size batch_size")
    for v in tl:
        check(v >= 0, lambda v=v: (f"Expected target_lengths to have value at least 0, but got "
                                   f"value {v} (while checking arguments for {where})"))
    tarr = targets._array().astype(np.int64)
    S = max(tl) if tl else 0
    if targets.dim() == 1:
        total = sum(tl)
        check(targets._sizes[0] == total, lambda: (
            f"Expected tensor to have size {total} at dimension 0, but got size "
            f"{targets._sizes[0]} for argument #2 'targets' (while checking arguments for "
            f"{where})"))
        offsets = np.concatenate([[0], np.cumsum(tl)[:-1]]).astype(np.int64) if N else \
            np.zeros(0, np.int64)
    else:
        check(targets._sizes[0] == N, lambda: (
            f"Expected tensor to have size {N} at dimension 0, but got size "
            f"{targets._sizes[0]} for argument #2 'targets' (while checking arguments for "
            f"{where})"))
        width = targets._sizes[1] if targets.dim() > 1 else 0
        check(width >= S, lambda: (
            f"Expected tensor to have size at least {S} at dimension 1, but got size {width} "
            f"for argument #2 'targets' (while checking arguments for {where})"))
        offsets = np.arange(N, dtype=np.int64) * width
    for v in il:
        check(0 <= v <= T, lambda v=v: (
            f"Expected input_lengths to have value at most {T}, but got value {v} "
            f"(while checking arguments for {where})" if v > T else
            f"Expected input_lengths to have value at least 0, but got value {v} "
            f"(while checking arguments for {where})"))
    flat = tarr.reshape(-1)
    # labels (N, S) padded with blank; torch reads labels outside [0, C) unchecked, here they
    # are clipped so that the gather stays in bounds
    pos = np.arange(S)
    lab = np.full((N, S), blank, np.int64)
    if S and N:
        idx = offsets[:, None] + pos[None, :]
        ok = pos[None, :] < np.asarray(tl)[:, None]
        lab[ok] = np.clip(flat[idx[ok]], 0, C - 1)
    L = 2 * S + 1
    ext = np.full((N, L), blank, np.int64)
    ext[:, 1::2] = lab
    # the skip transition s-2 -> s is allowed where ext[s] is a label different from ext[s-2]
    skip = np.zeros((N, L), bool)
    if L > 2:
        skip[:, 2:] = (ext[:, 2:] != blank) & (ext[:, 2:] != ext[:, :-2])
    return T, N, C, il, tl, S, L, ext, skip


def _lse3(a, b, c):
    m = np.maximum(np.maximum(a, b), c)
    mm = np.where(np.isneginf(m), 0, m)
    with np.errstate(all="ignore"):
        return np.log(np.exp(a - mm) + np.exp(b - mm) + np.exp(c - mm)) + mm


def _ctc_alpha(lp, T, N, il, tl, L, ext, skip):
    acc = lp.dtype
    la = np.full((N, T, L), _NEG_INF, acc)
    if T == 0:
        return la
    rows = np.arange(N)[:, None]
    emit = lp[:, rows, ext]            # (T, N, L): log p of each extended label
    tl_arr = np.asarray(tl)
    first = np.full((N, L), _NEG_INF, acc)
    first[:, 0] = emit[0, :, 0]
    has = tl_arr > 0
    first[has, 1] = emit[0, has, 1]
    la[:, 0] = first
    il_arr = np.asarray(il)
    neg = np.full((N, 1), _NEG_INF, acc)
    neg2 = np.full((N, 2), _NEG_INF, acc)
    prev = first
    for t in range(1, T):
        s1 = np.concatenate([neg, prev[:, :-1]], axis=1)
        s2 = np.where(skip, np.concatenate([neg2, prev[:, :-2]], axis=1), _NEG_INF)
        cur = _lse3(prev, s1, s2) + emit[t]
        cur = np.where((t < il_arr)[:, None], cur, _NEG_INF)
        la[:, t] = cur
        prev = np.where((t < il_arr)[:, None], cur, prev)
    return la


def _ctc_nll(la, il, tl, N, acc):
    nll = np.empty(N, acc)
    for_b = np.arange(N)
    il_arr = np.asarray(il)
    tl_arr = np.asarray(tl)
    tlast = np.maximum(il_arr - 1, 0)
    last = la[for_b, tlast]                                  # (N, L)
    e1 = last[for_b, 2 * tl_arr]
    e2 = np.where(tl_arr > 0, last[for_b, np.maximum(2 * tl_arr - 1, 0)], _NEG_INF)
    m = np.maximum(e1, e2)
    mm = np.where(np.isneginf(m), 0, m)
    with np.errstate(all="ignore"):
        nll[:] = -(np.log(np.exp(e1 - mm) + np.exp(e2 - mm)) + mm)
    nll[il_arr == 0] = np.where(tl_arr[il_arr == 0] == 0, -0.0, np.inf)
    return nll


def _ctc_forward(log_probs, targets, input_lengths, target_lengths, blank, zero_infinity):
    _check_float(log_probs._dtype, "ctc_loss_cpu")
    check(targets._dtype.category <= dt.INT and targets._dtype is not dt.bool_, lambda: (
        f"Expected tensor for argument #2 'targets' to have one of the following scalar types: "
        f"Int, Long; but got {targets._dtype.name} instead (while checking arguments for "
        f"ctc_loss_cpu)"))
    T, N, C, il, tl, S, L, ext, skip = _ctc_setup(
        log_probs, targets, input_lengths, target_lengths, blank, "ctc_loss_allocate_outputs")
    dtype = log_probs._dtype
    nll_t = empty((N,), dtype, device=log_probs._device)
    la_t = empty((N, T, L), dtype, device=log_probs._device)
    if _meta(log_probs):
        return nll_t, la_t
    acc = _acc(dtype)
    lp = _arr(log_probs, acc)
    la = _ctc_alpha(lp, T, N, il, tl, L, ext, skip)
    nll = _ctc_nll(la, il, tl, N, acc) if N else np.empty(0, acc)
    _store(nll_t, nll)
    _store(la_t, la)
    return nll_t, la_t


def ctc_loss_kernel(log_probs, targets, input_lengths, target_lengths, blank=0,
                    zero_infinity=False):
    return _ctc_forward(log_probs, targets, input_lengths, target_lengths, blank,
                        zero_infinity)


def _ints_of(t, name):
    check(t._dtype.category <= dt.INT and t._dtype is not dt.bool_,
          f"{name} must be integral")
    return [int(v) for v in t._array().reshape(-1)]


def ctc_loss_tensor_kernel(log_probs, targets, input_lengths, target_lengths, blank=0,
                           zero_infinity=False):
    return _ctc_forward(log_probs, targets, _ints_of(input_lengths, "input_lengths"),
                        _ints_of(target_lengths, "target_lengths"), blank, zero_infinity)


def _ctc_backward(grad, log_probs, targets, input_lengths, target_lengths, nll_t, la_t, blank,
                  zero_infinity):
    T, N, C, il, tl, S, L, ext, skip = _ctc_setup(log_probs, targets, input_lengths,
                                                  target_lengths, blank, "ctc_loss_backward")
    dtype = log_probs._dtype
    res = empty(log_probs._sizes, dtype, device=log_probs._device)
    if _meta(log_probs) or not numel_of(log_probs._sizes):
        return res
    acc = _acc(dtype)
    lp = _arr(log_probs, acc)
    la = _arr(la_t, acc)
    nll = _arr(nll_t, acc)
    g = np.broadcast_to(_arr(grad, acc), (N,))
    rows = np.arange(N)[:, None]
    emit = lp[:, rows, ext]                                  # (T, N, L)
    il_arr = np.asarray(il)
    tl_arr = np.asarray(tl)
    lb = np.full((N, T, L), _NEG_INF, acc)
    neg = np.full((N, 1), _NEG_INF, acc)
    neg2 = np.full((N, 2), _NEG_INF, acc)
    skip_next = np.zeros((N, L), bool)                       # s -> s+2 allowed
    if L > 2:
        skip_next[:, :-2] = skip[:, 2:]
    lpos = np.arange(L)[None, :]
    init_mask = (lpos == 2 * tl_arr[:, None]) | ((lpos == 2 * tl_arr[:, None] - 1) &
                                                 (tl_arr[:, None] > 0))
    prev = np.full((N, L), _NEG_INF, acc)
    for t in range(T - 1, -1, -1):
        is_last = (t == il_arr - 1)[:, None]
        active = (t < il_arr - 1)[:, None]
        s1 = np.concatenate([prev[:, 1:], neg], axis=1)
        s2 = np.where(skip_next, np.concatenate([prev[:, 2:], neg2], axis=1), _NEG_INF)
        rec = _lse3(prev, s1, s2) + emit[t]
        init = np.where(init_mask, emit[t], _NEG_INF)
        cur = np.where(is_last, init, np.where(active, rec, _NEG_INF))
        lb[:, t] = cur
        prev = cur
    lcab = la + lb                                           # (N, T, L)
    with np.errstate(all="ignore"):
        # log-sum over the extended positions carrying each class: max-shifted scatter-add
        m = np.max(np.where(np.isfinite(lcab), lcab, _NEG_INF), axis=2, keepdims=True)
        m = np.where(np.isneginf(m), 0, m)
        contrib = np.exp(lcab - m)                           # (N, T, L)
        # position s carries class ext[s]: summing per class is a product with the
        # (L, C) one-hot matrix of each sample's extended target (one batched matmul)
        onehot = np.zeros((N, L, C), acc)
        np.put_along_axis(onehot, ext[:, :, None], 1, axis=2)
        summed = np.matmul(contrib, onehot)                  # (N, T, C)
        res_log = np.log(summed) + m                         # (N, T, C)
        lpn = np.transpose(lp, (1, 0, 2))                    # (N, T, C)
        gr = (np.exp(lpn) - np.exp(res_log + nll[:, None, None] - lpn)) * g[:, None, None]
    tmask = np.arange(T)[None, :] < il_arr[:, None]
    gr = np.where(tmask[:, :, None], gr, 0)
    if zero_infinity:
        gr = np.where(np.isinf(nll)[:, None, None], 0, gr)
    _store(res, np.transpose(gr, (1, 0, 2)).astype(acc, copy=False))
    return res


def ctc_loss_backward_kernel(grad, log_probs, targets, input_lengths, target_lengths,
                             neg_log_likelihood, log_alpha, blank, zero_infinity=False):
    return _ctc_backward(grad, log_probs, targets, input_lengths, target_lengths,
                         neg_log_likelihood, log_alpha, blank, zero_infinity)


def ctc_loss_backward_tensor_kernel(grad, log_probs, targets, input_lengths, target_lengths,
                                    neg_log_likelihood, log_alpha, blank, zero_infinity=False):
    return _ctc_backward(grad, log_probs, targets, _ints_of(input_lengths, "input_lengths"),
                         _ints_of(target_lengths, "target_lengths"), neg_log_likelihood,
                         log_alpha, blank, zero_infinity)


def ctc_loss_intlist_composite(log_probs, targets, input_lengths, target_lengths, blank=0,
                               reduction=_MEAN, zero_infinity=False):
    import strided as s
    batched = log_probs.dim() == 3
    lp = log_probs if batched else log_probs.unsqueeze(1)
    res = _call("_ctc_loss", lp, targets.to(dtype=dt.int64), list(input_lengths),
                list(target_lengths), blank, zero_infinity)[0]
    if zero_infinity:
        res = s.where(res == math.inf, s.zeros((), dtype=res.dtype), res)
    if reduction == _MEAN:
        tl = s.tensor(list(target_lengths), dtype=res.dtype).clamp_min(1)
        return (res / tl).mean()
    if reduction == _SUM:
        return res.sum()
    return res if batched else res.squeeze(0)


def ctc_loss_tensor_composite(log_probs, targets, input_lengths, target_lengths, blank=0,
                              reduction=_MEAN, zero_infinity=False):
    il = _ints_of(input_lengths, "input_lengths")
    tl = _ints_of(target_lengths, "target_lengths")
    return ctc_loss_intlist_composite(log_probs, targets, il, tl, blank, reduction,
                                      zero_infinity)

