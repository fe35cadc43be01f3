"""Every operator that takes a Tensor and returns one is covered by autograd.

An operator declared in ops/native_functions.yaml is covered when

- it has an entry in the generated ``FORMULAS`` table (derivatives*.yaml), or
- it is an ``out=`` variant of a covered operator (same base name: out= variants never
  record; they refuse inputs that require grad where torch's do), or an in-place
  variant for which autograd/recording.py installed its functional entry's kernel, or
  the in-place variant of a listed composite (below), or
- it is listed in one of the exemption tables below, each with its reason:
  ``INTEGER_OUTPUTS`` (nothing to differentiate), ``NOT_DIFFERENTIABLE_IN_TORCH`` (torch
  has no formula either; backward raises, as torch's does), ``COMPOSITE`` (a
  ``CompositeImplicitAutograd`` decomposition, differentiable through the ops it calls,
  each checked against torch below).

Any other operator would get the autograd fallback's ``NotImplemented`` node: the test
lists them all.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from grad_harness import check_grads

import strided
from strided.autograd._generated.nodes import FORMULAS
from strided.core.dispatch_keys import DispatchKey
from strided.ops.dispatcher import find_op
from strided.ops.schema import load_native_function_files, native_function_files

NATIVE = native_function_files(Path(strided.__file__).parent / "ops")

pytestmark = [
    pytest.mark.filterwarnings("ignore:torch.meshgrid"),
    pytest.mark.filterwarnings("ignore:The reduce argument of torch.scatter"),
]


# -- exemptions ---------------------------------------------------------------------------------

# Outputs are always integer or bool (indices, counts, masks, ranks), whatever the input:
# no floating output ever gets a grad_fn. (The in-place comparisons, eq_ ..., are not
# here: they write 0/1 into a floating self, and torch records them with zero gradients.)
INTEGER_OUTPUTS = {
    # indices
    "argmax", "argmin", "argsort", "argsort.stable", "nonzero", "argwhere",
    "where",                                     # where(condition): nonzero as a tuple
    "bucketize.Tensor", "bucketize.Scalar", "searchsorted.Tensor", "searchsorted.Scalar",
    "multinomial",
    "repeat_interleave.Tensor",                  # repeat_interleave(repeats): indices
    # counts and ranks
    "count_nonzero", "count_nonzero.dim_IntList",
    "linalg_matrix_rank", "linalg_matrix_rank.atol_rtol_tensor",
    "linalg_matrix_rank.atol_rtol_float", "linalg_matrix_rank.tol_tensor",
    # bool results
    "any", "any.dim", "any.dims", "all", "all.dim", "all.dims",
    "isnan", "isinf", "isposinf", "isneginf", "isfinite", "isclose",
    "logical_and", "logical_or", "logical_xor", "logical_not",
    *[f"{op}.{kind}" for op in ("eq", "ne", "lt", "le", "gt", "ge", "greater", "greater_equal",
                                "less", "less_equal", "not_equal")
      for kind in ("Tensor", "Scalar")],
    # bitwise ops take integral or bool tensors only (in place too)
    *[f"{op}{inplace}.{kind}" for op in ("bitwise_and", "bitwise_or", "bitwise_xor")
      for inplace in ("", "_") for kind in ("Tensor", "Scalar")],
    "bitwise_and.Scalar_Tensor", "bitwise_or.Scalar_Tensor", "bitwise_xor.Scalar_Tensor",
    *[f"{op}{inplace}.{kind}" for op in ("bitwise_left_shift", "bitwise_right_shift")
      for inplace in ("", "_") for kind in ("Tensor", "Tensor_Scalar")],
    "bitwise_left_shift.Scalar_Tensor", "bitwise_right_shift.Scalar_Tensor",
    "bitwise_not", "bitwise_not_",
}

# torch has no formula for these either: their floating output gets a NotImplemented node
# and backward raises "derivative for aten::<op> is not implemented" (checked below).
NOT_DIFFERENTIABLE_IN_TORCH = {
    "scatter.reduce": lambda m, x: x.scatter(0, m.tensor([[0, 1]]), m.ones(1, 2,
                                             dtype=m.float64), reduce="add"),
    "scatter.value_reduce": lambda m, x: x.scatter(0, m.tensor([[0, 1]]), 2.0,
                                                   reduce="multiply"),
    "scatter_.reduce": lambda m, x: (x * 1).scatter_(0, m.tensor([[0, 1]]), m.ones(
        1, 2, dtype=m.float64), reduce="add"),
    "scatter_.value_reduce": lambda m, x: (x * 1).scatter_(0, m.tensor([[0, 1]]), 2.0,
                                                           reduce="multiply"),
    "bernoulli.p": lambda m, x: m.bernoulli(x.abs() / 4, 0.5),
    "bincount": lambda m, x: m.bincount(m.tensor([0, 1, 1]), weights=x[0]),
    "floor_divide": lambda m, x: m.floor_divide(x, m.full((2, 3), 2.0, dtype=m.float64)),
    "floor_divide.Scalar": lambda m, x: m.ops.aten.floor_divide.Scalar(x, 2.0),
    "floor_divide.out": lambda m, x: m.floor_divide(x, x.detach(),
                                                    out=m.empty(2, 3, dtype=m.float64)),
    "floor_divide.Scalar_out": lambda m, x: m.ops.aten.floor_divide.Scalar_out(
        x, 2.0, out=m.empty(2, 3, dtype=m.float64)),
    "floor_divide_.Tensor": lambda m, x: (x * 1).floor_divide_(x.detach()),
    "floor_divide_.Scalar": lambda m, x: m.ops.aten.floor_divide_.Scalar(x * 1, 2.0),
    "remainder.Scalar_Tensor": lambda m, x: m.remainder(2.0, x),
    "set_": lambda m, x: (x * 1).set_(),
    "set_.source_Tensor": lambda m, x: (x * 1).set_(m.ones(3, dtype=m.float64)),
    "set_.source_Storage": lambda m, x: (x * 1).set_(
        m.ones(3, dtype=m.float64).untyped_storage()),
    "set_.source_Storage_storage_offset": lambda m, x: (x * 1).set_(
        m.ones(3, dtype=m.float64).untyped_storage(), 0, (3,), (1,)),
    "set_.source_Tensor_storage_offset": lambda m, x: (x * 1).set_(
        m.ones(3, dtype=m.float64), 0, (3,), (1,)),
    # nn utils: the fused weight-norm backward (its double backward is the composite
    # _weight_norm_differentiable_backward, chosen by WeightNormInterfaceBackward0)
    "_weight_norm_interface_backward": lambda m, x: m.ops.aten._weight_norm_interface_backward(
        x, m.ones(2, 3, dtype=m.float64), m.ones(2, 1, dtype=m.float64),
        m.ones(2, 1, dtype=m.float64), 0)[0],
    # nn losses: torch has no double backward for these backward kernels
    "multi_margin_loss_backward": lambda m, x: m.ops.aten.multi_margin_loss_backward(
        m.ones((), dtype=m.float64), x, m.tensor([0, 2]), 1, 1, None, 1),
    "multilabel_margin_loss_backward": lambda m, x: m.ops.aten.multilabel_margin_loss_backward(
        m.ones((), dtype=m.float64), x, m.tensor([[0, -1, 0], [1, 2, -1]]), 1,
        m.zeros(2, 3, dtype=m.float64)),
    "_ctc_loss_backward": lambda m, x: _ctc_backward(m, x, False),
    "_ctc_loss_backward.Tensor": lambda m, x: _ctc_backward(m, x, True),
}


def _ctc_backward(m, x, as_tensors):
    lp = x.reshape(2, 1, 3)
    targets = m.tensor([[1]])
    il, tl = ([2], [1]) if not as_tensors else (m.tensor([2]), m.tensor([1]))
    nll, alpha = m.ops.aten._ctc_loss(lp.detach(), targets, [2], [1])
    op = m.ops.aten._ctc_loss_backward
    op = op.Tensor if as_tensors else op.default
    return op(m.ones(1, dtype=m.float64), lp, targets, il, tl, nll, alpha, 0)

# refused outright when self requires grad ("cannot resize variables that require grad")
REFUSED = {
    "resize_": lambda m, x: x.resize_(6),
    "resize_as_": lambda m, x: x.resize_as_(m.ones(6)),
}


def _eye(m, n=3):
    return m.eye(n, dtype=m.float64)


def _spd(m, x):
    return x @ x.mT + 3 * _eye(m, x.shape[-1])


def _mask(m):
    return m.tensor([[True, False, True, False], [False, True, True, False],
                     [True, True, False, False]])


def _inplace_comparison(op, kind):
    def program(m, x):
        return getattr(x * 1, op + "_")(x.detach() if kind == "Tensor" else 0.5)
    return program


# CompositeImplicitAutograd decompositions (their kernel calls other dispatched ops, which
# record): op -> (program, leaf shapes[, dtype]) for a gradient check against torch.
COMPOSITE = {
    # in-place comparison aliases (zero gradients through eq_ and friends) and positive
    **{f"{op}_.{kind}": (_inplace_comparison(op, kind), [(3, 4)])
       for op in ("greater", "greater_equal", "less", "less_equal", "not_equal")
       for kind in ("Tensor", "Scalar")},
    "positive": (lambda m, x: m.positive(x * 2), [(3, 4)]),
    # nn losses and softmax (kernels/nn/loss.py)
    "softmax.int": (lambda m, x: (m.softmax(x, 1), x.float().softmax(0, dtype=m.float64)),
                    [(3, 4)]),
    "log_softmax.int": (lambda m, x: (m.log_softmax(x, 1), x.log_softmax(0)), [(3, 4)]),
    "nll_loss": (lambda m, x: m.ops.aten.nll_loss(x, m.tensor([0, 3, 1])), [(3, 4)]),
    "nll_loss2d": (lambda m, x: m.ops.aten.nll_loss2d(
        x, m.tensor([[[0, 1], [2, 1]]]), m.tensor([1.0, 2.0, 3.0], dtype=m.float64)),
        [(1, 3, 2, 2)]),
    "nll_loss_nd": (lambda m, x: m.ops.aten.nll_loss_nd(x, m.tensor([[0, 1], [2, 1]]), None, 0),
                    [(2, 3, 2)]),
    "cross_entropy_loss": (lambda m, x: (
        m.ops.aten.cross_entropy_loss(x, m.tensor([0, 3, 1])),
        m.ops.aten.cross_entropy_loss(x, m.tensor([0, 3, 1]), None, 1, -100, 0.2),
        m.ops.aten.cross_entropy_loss(x, x.detach().softmax(1))), [(3, 4)]),
    "l1_loss": (lambda m, x, y: m.ops.aten.l1_loss(x, y), [(3, 4), (3, 4)]),
    "kl_div": (lambda m, x, y: (m.kl_div(x, y.abs(), 2), m.kl_div(x, y, 0, log_target=True)),
               [(3, 4), (3, 4)]),
    "poisson_nll_loss": (lambda m, x, y: m.poisson_nll_loss(x, y.abs() * 2, True, True, 1e-8, 1),
                         [(3, 4), (3, 4)]),
    "margin_ranking_loss": (lambda m, x, y: m.margin_ranking_loss(
        x, y, m.tensor([1.0, -1.0, 1.0], dtype=m.float64), 0.5), [(3,), (3,)]),
    "hinge_embedding_loss": (lambda m, x: m.hinge_embedding_loss(
        x, m.tensor([[1.0, -1.0, 1.0, -1.0]] * 3, dtype=m.float64)), [(3, 4)]),
    "cosine_embedding_loss": (lambda m, x, y: m.cosine_embedding_loss(
        x, y, m.tensor([1.0, -1.0, 1.0], dtype=m.float64), 0.1), [(3, 4), (3, 4)]),
    "triplet_margin_loss": (lambda m, a, p, n: m.triplet_margin_loss(a, p, n, swap=True),
                            [(3, 4), (3, 4), (3, 4)]),
    "multilabel_margin_loss": (lambda m, x: m.ops.aten.multilabel_margin_loss(
        x, m.tensor([[0, 2, -1, 1], [3, -1, 0, 0], [1, 0, 2, 3]])), [(3, 4)]),
    "ctc_loss.IntList": (lambda m, x: m.ctc_loss(
        x.log_softmax(2), m.tensor([[1, 2], [1, 1]]), [4, 3], [2, 1]), [(4, 2, 3)]),
    "ctc_loss.Tensor": (lambda m, x: m.ctc_loss(
        x.log_softmax(2), m.tensor([1, 2, 1]), m.tensor([4, 4]), m.tensor([2, 1]),
        reduction=0), [(4, 2, 3)]),
    # nn utils (weight norm)
    "norm_except_dim": (lambda m, x: m.norm_except_dim(x, 2, 1), [(2, 3, 4)]),
    "_weight_norm": (lambda m, v, g, h: (m._weight_norm(v, g, 1), m._weight_norm(v, h, 0)),
                     [(2, 3, 4), (1, 3, 1), (2, 1, 1)]),
    "_weight_norm_differentiable_backward": (
        lambda m, gw, v, g: m.ops.aten._weight_norm_differentiable_backward(
            gw, v, g, g.detach().abs() + 1, 0), [(2, 3), (2, 3), (2, 1)]),
    "matrix_exp": (lambda m, x: m.matrix_exp(x), [(3, 3)]),
    "orgqr": (lambda m, a, t: m.orgqr(a, t), [(4, 3), (2,)]),
    # nn linear (kernels/nn/linear.py: addmm / flattened addmm / matmul + add_; _trilinear)
    "linear": (lambda m, x, y, w, b: (m.nn.functional.linear(x, w, b),
                                      m.nn.functional.linear(y, w, b),
                                      m.nn.functional.linear(y.mT, w),
                                      m.nn.functional.linear(y.mT, w, b[:1])),
               [(3, 4), (2, 3, 4), (5, 4), (5,)]),
    "bilinear": (lambda m, x, y, w, b: m.bilinear(x, y, w, b), [(2, 3), (2, 4), (5, 3, 4),
                                                                (5,)]),
    # nn pooling (1-d pools over unsqueezed 2-d ones; max_pool2d/3d take output 0)
    "max_pool1d": (lambda m, x: m.max_pool1d(x, 2, 1, 1), [(2, 5)]),
    "max_pool1d_with_indices": (lambda m, x: m.max_pool1d_with_indices(x, 2)[0], [(2, 3, 5)]),
    "max_pool2d": (lambda m, x: m.max_pool2d(x, 2, 1), [(2, 3, 4)]),
    "max_pool3d": (lambda m, x: m.max_pool3d(x, 2, 1), [(1, 3, 3, 4)]),
    "avg_pool1d": (lambda m, x: m.avg_pool1d(x, 3, 2, 1), [(2, 3, 6)]),
    "adaptive_avg_pool1d": (lambda m, x: m.adaptive_avg_pool1d(x, 3), [(2, 7)]),
    "adaptive_avg_pool2d": (lambda m, x: m.nn.functional.adaptive_avg_pool2d(x, (2, 3)),
                            [(2, 5, 7)]),
    "adaptive_avg_pool3d": (lambda m, x: m.nn.functional.adaptive_avg_pool3d(x, 2),
                            [(1, 3, 4, 5)]),
    "adaptive_max_pool1d": (lambda m, x: m.adaptive_max_pool1d(x, 3)[0], [(2, 7)]),
    # shape and view ops
    "contiguous": (lambda m, x: x.t().contiguous(), [(3, 4)]),
    "to.dtype_layout": (lambda m, x: x.to(dtype=m.float32) * 2, [(3, 4)]),
    "view_as": (lambda m, x: x.view_as(m.empty(4, 3)), [(3, 4)]),
    "reshape": (lambda m, x: x.t().reshape(12), [(3, 4)]),
    "reshape_as": (lambda m, x: x.reshape_as(m.empty(2, 6)), [(3, 4)]),
    "flatten.using_ints": (lambda m, x: x.flatten(), [(2, 3, 2)]),
    "unflatten.int": (lambda m, x: x.unflatten(1, (2, 2)), [(3, 4)]),
    "ravel": (lambda m, x: x.t().ravel(), [(3, 4)]),
    "swapdims": (lambda m, x: x.swapdims(0, 1), [(3, 4)]),
    "swapaxes": (lambda m, x: x.swapaxes(0, 1), [(3, 4)]),
    "adjoint": (lambda m, x: x.adjoint(), [(3, 4)]),
    "movedim.intlist": (lambda m, x: m.movedim(x, [0, 1], [1, 2]), [(2, 3, 4)]),
    "movedim.int": (lambda m, x: x.movedim(0, 2), [(2, 3, 4)]),
    "moveaxis.intlist": (lambda m, x: m.moveaxis(x, [0, 1], [1, 2]), [(2, 3, 4)]),
    "moveaxis.int": (lambda m, x: x.moveaxis(0, 2), [(2, 3, 4)]),
    "expand_as": (lambda m, x: x.expand_as(m.empty(3, 4)), [(1, 4)]),
    "broadcast_to": (lambda m, x: x.broadcast_to((2, 3, 4)), [(3, 1)]),
    "broadcast_tensors": (lambda m, x, y: m.broadcast_tensors(x, y), [(3, 1), (1, 4)]),
    "narrow": (lambda m, x: x.narrow(1, 1, 2), [(3, 4)]),
    "narrow.Tensor": (lambda m, x: x.narrow(1, m.tensor(1), 2), [(3, 4)]),
    "split.sizes": (lambda m, x: m.ops.aten.split.sizes(x, [1, 3], 1), [(3, 4)]),
    "tensor_split.sections": (lambda m, x: x.tensor_split(2, 1), [(3, 4)]),
    "tensor_split.indices": (lambda m, x: x.tensor_split([1, 3], 1), [(3, 4)]),
    "tensor_split.tensor_indices_or_sections": (
        lambda m, x: x.tensor_split(m.tensor([1, 3]), 1), [(3, 4)]),
    "chunk": (lambda m, x: x.chunk(2, 1), [(3, 4)]),
    "hsplit.int": (lambda m, x: x.hsplit(2), [(3, 4)]),
    "hsplit.array": (lambda m, x: x.hsplit([1, 3]), [(3, 4)]),
    "vsplit.int": (lambda m, x: x.vsplit(3), [(3, 4)]),
    "vsplit.array": (lambda m, x: x.vsplit([1]), [(3, 4)]),
    "dsplit.int": (lambda m, x: x.dsplit(2), [(2, 3, 4)]),
    "dsplit.array": (lambda m, x: x.dsplit([1]), [(2, 3, 4)]),
    "real": (lambda m, x: x.real * 2, [(3, 4)], "complex128"),
    "imag": (lambda m, x: x.imag * 2, [(3, 4)], "complex128"),
    "numpy_T": (lambda m, x: x.T, [(3, 4)]),
    "matrix_H": (lambda m, x: x.H, [(3, 4)]),
    "mT": (lambda m, x: x.mT, [(2, 3, 4)]),
    "mH": (lambda m, x: x.mH, [(2, 3, 4)]),
    "fliplr": (lambda m, x: x.fliplr(), [(3, 4)]),
    "flipud": (lambda m, x: x.flipud(), [(3, 4)]),
    "tile": (lambda m, x: x.tile((2, 1)), [(3, 4)]),
    "repeat_interleave.self_Tensor": (
        lambda m, x: x.repeat_interleave(m.tensor([1, 2, 0]), 0), [(3, 4)]),
    "repeat_interleave.self_int": (lambda m, x: x.repeat_interleave(2, 1), [(3, 4)]),
    "diag": (lambda m, x: m.diag(x), [(3, 4)]),
    "diagflat": (lambda m, x: m.diagflat(x), [(2, 2)]),
    "meshgrid": (lambda m, x, y: m.meshgrid(x, y), [(3,), (4,)]),
    "meshgrid.indexing": (lambda m, x, y: m.meshgrid(x, y, indexing="xy"), [(3,), (4,)]),
    "cartesian_prod": (lambda m, x, y: m.cartesian_prod(x, y), [(3,), (2,)]),
    "combinations": (lambda m, x: m.combinations(x, 2), [(4,)]),
    "pad": (lambda m, x: m.ops.aten.pad(x, [1, 2]), [(3, 4)]),
    "concat": (lambda m, x, y: m.concat([x, y], 1), [(3, 4), (3, 2)]),
    "concatenate": (lambda m, x, y: m.concatenate([x, y]), [(3, 4), (2, 4)]),
    "hstack": (lambda m, x, y: m.hstack([x, y]), [(3, 4), (3, 2)]),
    "vstack": (lambda m, x, y: m.vstack([x, y]), [(4,), (2, 4)]),
    "row_stack": (lambda m, x, y: m.row_stack([x, y]), [(4,), (2, 4)]),
    "dstack": (lambda m, x, y: m.dstack([x, y]), [(3, 4), (3, 4)]),
    "column_stack": (lambda m, x, y: m.column_stack([x, y]), [(3,), (3, 2)]),
    # indexing
    "take_along_dim": (lambda m, x: x.take_along_dim(m.tensor([[0, 2, 1, 0]]), 0), [(3, 4)]),
    # reductions
    "nanmean": (lambda m, x: x.nanmean(), [(3, 4)]),
    "max.other": (lambda m, x, y: m.max(x, y), [(3, 4), (4,)]),
    "min.other": (lambda m, x, y: m.min(x, y), [(3, 4), (4,)]),
    "var": (lambda m, x: x.var(unbiased=False), [(3, 4)]),
    "var.dim": (lambda m, x: x.var(1, unbiased=False), [(3, 4)]),
    "std": (lambda m, x: x.std(unbiased=True), [(3, 4)]),
    "std.dim": (lambda m, x: x.std(0, unbiased=True), [(3, 4)]),
    "var_mean": (lambda m, x: m.var_mean(x, unbiased=False), [(3, 4)]),
    "var_mean.dim": (lambda m, x: m.var_mean(x, 1, unbiased=True), [(3, 4)]),
    "std_mean": (lambda m, x: m.std_mean(x, unbiased=False), [(3, 4)]),
    "std_mean.dim": (lambda m, x: m.std_mean(x, 1, unbiased=True), [(3, 4)]),
    "msort": (lambda m, x: m.msort(x), [(3, 4)]),
    "quantile": (lambda m, x: m.quantile(x, m.tensor([0.25, 0.5], dtype=m.float64), dim=1),
                 [(3, 4)]),
    "quantile.scalar": (lambda m, x: m.quantile(x, 0.3), [(3, 4)]),
    "nanquantile": (lambda m, x: m.nanquantile(x, m.tensor([0.25], dtype=m.float64)),
                    [(3, 4)]),
    "nanquantile.scalar": (lambda m, x: m.nanquantile(x, 0.7, dim=0), [(3, 4)]),
    # elementwise aliases
    "subtract.Tensor": (lambda m, x, y: m.subtract(x, y, alpha=2), [(3, 4), (4,)]),
    "subtract.Scalar": (lambda m, x: m.ops.aten.subtract.Scalar(x, 2), [(3, 4)]),
    "multiply.Tensor": (lambda m, x, y: m.multiply(x, y), [(3, 4), (4,)]),
    "multiply.Scalar": (lambda m, x: m.ops.aten.multiply.Scalar(x, 2), [(3, 4)]),
    "divide.Tensor": (lambda m, x, y: m.divide(x, y), [(3, 4), (4,)]),
    "divide.Tensor_mode": (lambda m, x, y: m.divide(x, y, rounding_mode="trunc"),
                           [(3, 4), (4,)]),
    "divide.Scalar": (lambda m, x: m.ops.aten.divide.Scalar(x, 2), [(3, 4)]),
    "divide.Scalar_mode": (lambda m, x: m.ops.aten.divide.Scalar_mode(
        x, 2, rounding_mode="floor"), [(3, 4)]),
    "true_divide.Tensor": (lambda m, x, y: m.true_divide(x, y), [(3, 4), (4,)]),
    "true_divide.Scalar": (lambda m, x: m.ops.aten.true_divide.Scalar(x, 2), [(3, 4)]),
    "float_power.Tensor_Tensor": (lambda m, x, y: m.float_power(x.abs() + 0.5, y),
                                  [(3, 4), (4,)]),
    "float_power.Scalar": (lambda m, x: m.float_power(2, x), [(3, 4)]),
    "float_power.Tensor_Scalar": (lambda m, x: m.float_power(x.abs() + 0.5, 2.5), [(3, 4)]),
    "arctan2": (lambda m, x, y: m.arctan2(x, y), [(3, 4), (4,)]),
    "negative": (lambda m, x: m.negative(x), [(3, 4)]),
    "absolute": (lambda m, x: m.absolute(x), [(3, 4)]),
    "square": (lambda m, x: m.square(x), [(3, 4)]),
    "fix": (lambda m, x: m.fix(x), [(3, 4)]),
    "arcsin": (lambda m, x: m.arcsin(x * 0.4), [(3, 4)]),
    "arccos": (lambda m, x: m.arccos(x * 0.4), [(3, 4)]),
    "arctan": (lambda m, x: m.arctan(x), [(3, 4)]),
    "arcsinh": (lambda m, x: m.arcsinh(x), [(3, 4)]),
    "arccosh": (lambda m, x: m.arccosh(x.abs() + 1.5), [(3, 4)]),
    "arctanh": (lambda m, x: m.arctanh(x * 0.4), [(3, 4)]),
    "clip.Tensor": (lambda m, x, lo, hi: x.clip(lo - 1, hi + 1), [(3, 4), (4,), (3, 1)]),
    "clip": (lambda m, x: x.clip(-0.5, 0.5), [(3, 4)]),
    "where.ScalarSelf": (lambda m, x: m.where(_mask(m), 1.5, x), [(3, 4)]),
    "where.ScalarOther": (lambda m, x: m.where(_mask(m), x, 1.5), [(3, 4)]),
    "where.Scalar": (lambda m, x: m.where(_mask(m), 1.5, 0.5) * x, [(3, 4)]),
    # linear algebra
    "matmul": (lambda m, x, y: x @ y, [(2, 3, 4), (4,)]),
    "linalg_matmul": (lambda m, x, y: m.linalg.matmul(x, y), [(3, 4), (4, 2)]),
    "outer": (lambda m, x, y: m.outer(x, y), [(3,), (4,)]),
    "ger": (lambda m, x, y: m.ger(x, y), [(3,), (4,)]),
    "inner": (lambda m, x, y: m.inner(x, y), [(3, 4), (2, 4)]),
    "tensordot": (lambda m, x, y: m.tensordot(x, y, dims=1), [(3, 4), (4, 2)]),
    "einsum": (lambda m, x, y: m.einsum("ij,jk->ik", x, y), [(3, 4), (4, 2)]),
    "kron": (lambda m, x, y: m.kron(x, y), [(2, 2), (2, 3)]),
    "cross": (lambda m, x, y: m.cross(x, y, dim=1), [(2, 3), (2, 3)]),
    "matrix_power": (lambda m, x: m.matrix_power(x, 3), [(3, 3)]),
    "linalg_matrix_power": (lambda m, x: m.linalg.matrix_power(x, 2), [(3, 3)]),
    "pinverse": (lambda m, x: m.pinverse(x), [(3, 2)]),
    "svd": (lambda m, x: m.svd(x)[1], [(3, 2)]),
    "qr": (lambda m, x: (lambda q, r: q @ r)(*m.qr(x)), [(3, 2)]),
    "linalg_cholesky": (lambda m, x: m.linalg.cholesky(_spd(m, x)), [(3, 3)]),
    "det": (lambda m, x: m.det(x), [(3, 3)]),
    "slogdet": (lambda m, x: m.slogdet(x)[1], [(3, 3)]),
    "logdet": (lambda m, x: m.logdet(_spd(m, x)), [(3, 3)]),
    "linalg_eigvals": (lambda m, x: m.linalg.eigvals(x).sum(), [(3, 3)]),
    "linalg_eigvalsh": (lambda m, x: m.linalg.eigvalsh(x + x.mT), [(3, 3)]),
    "linalg_inv": (lambda m, x: m.linalg.inv(_spd(m, x)), [(3, 3)]),
    "inverse": (lambda m, x: m.inverse(_spd(m, x)), [(3, 3)]),
    "linalg_svdvals": (lambda m, x: m.linalg.svdvals(x), [(3, 2)]),
    "linalg_pinv.atol_rtol_float": (lambda m, x: m.linalg.pinv(x, atol=0.0), [(3, 2)]),
    "linalg_pinv": (lambda m, x: m.linalg.pinv(x, 1e-15), [(3, 2)]),
    "linalg_pinv.rcond_tensor": (
        lambda m, x: m.linalg.pinv(x, m.tensor(1e-15, dtype=m.float64)), [(3, 2)]),
    "linalg_solve": (lambda m, a, b: m.linalg.solve(_spd(m, a), b), [(3, 3), (3, 2)]),
    "linalg_multi_dot": (lambda m, x, y, z: m.linalg.multi_dot([x, y, z]),
                         [(2, 3), (3, 4), (4, 2)]),
    "linalg_norm": (lambda m, x: m.linalg.norm(x), [(3, 4)]),
    "linalg_norm.ord_str": (lambda m, x: m.linalg.norm(x, "fro"), [(3, 4)]),
    "linalg_matrix_norm": (lambda m, x: m.linalg.matrix_norm(x, ord=1), [(3, 4)]),
    "linalg_matrix_norm.str_ord": (lambda m, x: m.linalg.matrix_norm(x), [(3, 4)]),
}

# nn activations and dropout (ops/native_functions/nn_activation.yaml, nn_dropout.yaml): the
# dropout composites draw from the generator, so they are checked at p == 1 (x * 0)
COMPOSITE.update({
    "relu6": (lambda m, x: m.nn.functional.relu6(x * 4), [(3, 4)]),
    "selu": (lambda m, x: m.selu(x), [(3, 4)]),
    "rrelu": (lambda m, x: m.rrelu(x, 0.1, 0.3, False), [(3, 4)]),
    "prelu": (lambda m, x, w: m.prelu(x, w), [(3, 4), (4,)]),
    "log_sigmoid": (lambda m, x: m.nn.functional.logsigmoid(x), [(3, 4)]),
    **{op: (lambda m, x, op=op: getattr(m, op)(x, 1.0, True), [(3, 4)])
       for op in ("dropout", "feature_dropout", "alpha_dropout", "feature_alpha_dropout")},
    # embedding (ops/native_functions/nn_embedding.yaml)
    "embedding_backward": (lambda m, g: m.ops.aten.embedding_backward(
        g, m.tensor([1, 2, 1]), 5, -1, False, False), [(3, 4)]),
    "embedding_bag": (lambda m, w: m.embedding_bag(w, m.tensor([1, 2, 4, 1]),
                                                   m.tensor([0, 1]), False, 1)[0], [(5, 3)]),
    "embedding_bag.padding_idx": (
        lambda m, w: m.embedding_bag(w, m.tensor([1, 2, 4, 1]), m.tensor([0, 1]), False, 0,
                                     False, None, False, 2)[0], [(5, 3)]),
})

# nn vision and distance (ops/native_functions/nn_vision.yaml, nn_distance.yaml): the .vec
# upsample overloads decompose into the upsample op with one scale per dim
COMPOSITE.update({
    **{f"{op}.vec": (lambda m, x, op=op: getattr(m.ops.aten, op).vec(x, None, [1.7] * (
        x.dim() - 2)), [shape]) for op, shape in (
        ("upsample_nearest1d", (1, 2, 3)), ("upsample_nearest2d", (1, 2, 3, 2)),
        ("upsample_nearest3d", (1, 1, 2, 3, 2)), ("_upsample_nearest_exact1d", (1, 2, 3)),
        ("_upsample_nearest_exact2d", (1, 2, 3, 2)),
        ("_upsample_nearest_exact3d", (1, 1, 2, 3, 2)))},
    **{f"{op}.vec": (lambda m, x, op=op: getattr(m.ops.aten, op).vec(x, [4] * (x.dim() - 2),
                                                                       False, None), [shape])
       for op, shape in (("upsample_linear1d", (1, 2, 3)), ("upsample_bilinear2d", (1, 2, 3, 2)),
                         ("upsample_trilinear3d", (1, 1, 2, 3, 2)),
                         ("upsample_bicubic2d", (1, 2, 3, 2)),
                         ("_upsample_bilinear2d_aa", (1, 2, 5, 6)),
                         ("_upsample_bicubic2d_aa", (1, 2, 5, 6)),
                         ("_upsample_lanczos2d_aa", (1, 2, 5, 6)))},
    "grid_sampler": (lambda m, x, g: m.grid_sampler(x, g.tanh() * 1.2, 0, 0, False),
                     [(1, 2, 3, 4), (1, 2, 3, 2)]),
    "pdist": (lambda m, x: m.pdist(x, 3.0), [(4, 3)]),
    "cosine_similarity": (lambda m, x, y: m.cosine_similarity(x, y, 1), [(3, 4), (3, 4)]),
    "pairwise_distance": (lambda m, x, y: m.pairwise_distance(x, y), [(3, 4), (3, 4)]),
})
# the rest of linalg (ops/native_functions/linalg_extra.yaml, issue 14)
COMPOSITE.update({
    "cdist": (lambda m, x, y: (m.cdist(x, y, 1.5), m.cdist(x, y.repeat(9, 1))), [(3, 4), (3, 4)]),
    "chain_matmul": (lambda m, x, y: (m.chain_matmul(x, y, x.mT), m.chain_matmul(x)),
                     [(3, 4), (4, 4)]),
    "linalg_diagonal": (lambda m, x: m.linalg.diagonal(x, offset=1), [(3, 4)]),
    "linalg_vecdot": (lambda m, x, y: (m.linalg.vecdot(x, y), m.linalg.vecdot(x[0], y[1])),
                      [(3, 4), (3, 4)]),
    "linalg_lu_factor": (lambda m, x: m.linalg.lu_factor(x + 4 * m.eye(4))[0], [(4, 4)]),
    "_lu_with_info": (lambda m, x: m.lu(x + 4 * m.eye(4))[0], [(4, 4)]),
    "lu_solve": (lambda m, x, b: m.lu_solve(b, *m.linalg.lu_factor(x + 4 * m.eye(4))),
                 [(4, 4), (4, 2)]),
    "linalg_cond": (lambda m, x: (m.linalg.cond(x), m.linalg.cond(x, -2)), [(3, 3)]),
    "linalg_cond.p_str": (lambda m, x: m.linalg.cond(x, "nuc"), [(3, 3)]),
    "linalg_tensorinv": (lambda m, x: m.linalg.tensorinv(x + 3 * m.eye(4).view(4, 2, 2), 1),
                         [(4, 2, 2)]),
    "linalg_tensorsolve": (lambda m, x, b: m.linalg.tensorsolve(
        x + 4 * m.eye(6).view(2, 3, 6), b), [(2, 3, 6), (2, 3)]),
    "linalg_vander": (lambda m, x: m.linalg.vander(x, N=4), [(2, 3)]),
    # statistics and calculus (kernels/statistics.py)
    "cov": (lambda m, x, w: m.cov(x, aweights=w.abs()), [(3, 4), (4,)]),
    "corrcoef": (lambda m, x: m.corrcoef(x), [(3, 4)]),
    "diff": (lambda m, x, p: m.diff(x, 2, 0, prepend=p), [(3, 4), (1, 4)]),
    **{f"gradient.{kind}": (program, [(3, 4)]) for kind, program in (
        ("scalarint", lambda m, x: m.gradient(x, spacing=2.0)),
        ("scalararray", lambda m, x: m.gradient(x, spacing=2.0, dim=[1])),
        ("array", lambda m, x: m.gradient(x, dim=[0, 1], edge_order=2)),
        ("scalarrayint", lambda m, x: m.gradient(x, spacing=[2.0, 0.5])),
        ("scalarrayarray", lambda m, x: m.gradient(x, spacing=[0.5], dim=[0])),
        ("tensorarrayint", lambda m, x: m.gradient(x, spacing=[m.tensor([0.0, 1.0, 3.0]),
                                                                m.tensor([0.0, 1, 2, 4])])),
        ("tensorarray", lambda m, x: m.gradient(x, spacing=[m.tensor([0.0, 1, 2, 4])],
                                                 dim=[1])))},
    **{f"{op}.{kind}": (program, [(3, 4)]) for op in ("trapezoid", "trapz",
                                                       "cumulative_trapezoid")
       for kind, program in (
           ("x", lambda m, y, op=op: getattr(m, op)(y, m.tensor([0.0, 1, 3, 4]))),
           ("dx", lambda m, y, op=op: getattr(m, op)(y, dx=0.5, dim=0)))},
})
NOT_DIFFERENTIABLE_IN_TORCH.update({
    "linalg_ldl_factor_ex": lambda m, x: m.linalg.ldl_factor_ex(x[:, :2] @ x[:, :2].mT)[0],
    "linalg_ldl_solve": lambda m, x: m.linalg.ldl_solve(
        m.eye(2, dtype=m.float64), m.tensor([1, 2], dtype=m.int32), x[:, :2]),
    "histogram.bin_ct": lambda m, x: m.histogram(x.view(-1), 3).hist,
    "histogram.bins_tensor": lambda m, x: m.histogram(x.view(-1), m.tensor(
        [0.0, 1.0, 2.0], dtype=m.float64)).hist,
    "_histogramdd_bin_edges": lambda m, x: m.ops.aten._histogramdd_bin_edges(x, [2, 2, 3])[1],
    "_histogramdd_from_bin_cts": lambda m, x: m.ops.aten._histogramdd_from_bin_cts(x, [2, 2, 3]),
    "_histogramdd_from_bin_tensors": lambda m, x: m.ops.aten._histogramdd_from_bin_tensors(
        x[:, :2], [m.tensor([0.0, 2.0], dtype=m.float64)] * 2),
})
# linalg.ldl_factor decomposes into linalg_ldl_factor_ex, which has no formula in torch
COMPOSITE["linalg_ldl_factor"] = (lambda m, x: m.linalg.ldl_factor(x @ x.mT)[0], [(3, 3)])
# histogramdd decomposes into the _histogramdd_* kernels, which have no formula in torch
# either: backward raises the same error in both
COMPOSITE.update({
    "histogramdd": (lambda m, x: m.histogramdd(x, [2, 2, 2]).hist, [(2, 3)]),
    "histogramdd.int_bins": (lambda m, x: m.histogramdd(x, 2).hist, [(2, 3)]),
    "histogramdd.TensorList_bins": (lambda m, x: m.histogramdd(
        x, [m.tensor([0.0, 2.0], dtype=m.float64)] * 3).hist, [(2, 3)]),
})
INTEGER_OUTPUTS.add("one_hot")
NOT_DIFFERENTIABLE_IN_TORCH.update({
    "native_channel_shuffle": lambda m, x: m.native_channel_shuffle(x.reshape(1, 2, 3), 2),
    # nn attention: the flash kernel's backward has no formula in torch either
    "_scaled_dot_product_flash_attention_for_cpu_backward": lambda m, x: (
        m.ops.aten._scaled_dot_product_flash_attention_for_cpu_backward(
            x.reshape(1, 1, 2, 3), x.reshape(1, 1, 2, 3), x.reshape(1, 1, 2, 3),
            x.reshape(1, 1, 2, 3), x.detach().reshape(1, 1, 2, 3),
            m.zeros(1, 1, 2, dtype=m.float64), 0.0, False)[0]),
})

# nn attention (ops/native_functions/nn_attention.yaml): the flash kernel or the math path
COMPOSITE.update({
    "scaled_dot_product_attention": (
        lambda m, q, k, v: m.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True),
        [(2, 2, 3, 4), (2, 2, 5, 4), (2, 2, 5, 4)]),
})

# nn recurrent layers (ops/native_functions/nn_rnn.yaml): linear/sigmoid/tanh per time step
_RNN_SHAPES = {"lstm": 4, "gru": 3, "rnn_tanh": 1, "rnn_relu": 1}


def _rnn_program(op, data):
    def program(m, x, h, wi, wh, b):
        hx = [h, h * 2] if op == "lstm" else h
        params = [wi, wh, b, b * 2]
        if data:
            return getattr(m, op)(x.reshape(6, 2), m.tensor([2, 2, 1, 1]), hx, params, True,
                                  1, 0.0, False, False)
        return getattr(m, op)(x.reshape(3, 2, 2), hx, params, True, 1, 0.0, False, False,
                              False)
    return program


def _cell_program(op):
    def program(m, x, h, wi, wh, b):
        hx = [h[0], h[0] * 2] if op == "lstm" else h[0]
        return getattr(m, op + "_cell")(x.reshape(6, 2)[:2], hx, wi, wh, b, b * 2)
    return program


COMPOSITE.update({
    **{f"{op}.{kind}": (_rnn_program(op, kind == "data"),
                        [(12,), (1, 2, 3), (g * 3, 2), (g * 3, 3), (g * 3,)])
       for op, g in _RNN_SHAPES.items() for kind in ("input", "data")},
    **{f"{op}_cell": (_cell_program(op), [(12,), (1, 2, 3), (g * 3, 2), (g * 3, 3), (g * 3,)])
       for op, g in _RNN_SHAPES.items()},
})

# nn normalization (ops/native_functions/nn_normalization.yaml): the public entry points
# decompose into native_batch_norm / native_layer_norm / native_group_norm / primitives
COMPOSITE.update({
    "batch_norm": (lambda m, x, w, b: m.batch_norm(x, w, b, None, None, True, 0.1, 1e-5, False),
                   [(4, 3, 2), (3,), (3,)]),
    "_batch_norm_impl_index": (lambda m, x, w: m._batch_norm_impl_index(
        x, w, None, None, None, True, 0.1, 1e-5, False)[0], [(4, 3), (3,)]),
    "instance_norm": (lambda m, x, w: m.instance_norm(x, w, None, None, None, True, 0.1, 1e-5,
                                                      False), [(2, 3, 4), (3,)]),
    "layer_norm": (lambda m, x, w, b: m.layer_norm(x, [4], w, b), [(2, 3, 4), (4,), (4,)]),
    "group_norm": (lambda m, x, w, b: m.group_norm(x, 3, w, b), [(2, 6, 4), (6,), (6,)]),
    "rms_norm": (lambda m, x, w: m.rms_norm(x, [4], w), [(2, 3, 4), (4,)]),
    "_fused_rms_norm": (lambda m, x, w: m._fused_rms_norm(x, [4], w, 1e-3), [(2, 3, 4), (4,)]),
})

# nn conv (ops/native_functions/nn_conv.yaml): the entry points batchify and call convolution
COMPOSITE.update({
    "conv1d": (lambda m, x, w, b: m.conv1d(x, w, b, 2, 1), [(2, 2, 5), (3, 2, 2), (3,)]),
    "conv2d": (lambda m, x, w: m.conv2d(x, w, None, 1, 1, 2), [(2, 4, 4), (3, 2, 2, 2)]),
    "conv3d": (lambda m, x, w: m.conv3d(x, w, groups=2), [(1, 2, 3, 3, 3), (2, 1, 2, 2, 2)]),
    "conv1d.padding": (lambda m, x, w: m.conv1d(x, w, None, 1, "same"), [(1, 2, 5), (3, 2, 2)]),
    "conv2d.padding": (lambda m, x, w: m.conv2d(x, w, None, 1, "valid"),
                       [(1, 2, 4, 4), (3, 2, 3, 3)]),
    "conv3d.padding": (lambda m, x, w: m.conv3d(x, w, None, 1, "same"),
                       [(1, 2, 3, 3, 3), (2, 2, 3, 3, 3)]),
    "_convolution_mode": (lambda m, x, w: m._convolution_mode(x, w, None, [1], "same", [2], 1),
                          [(1, 2, 5), (3, 2, 3)]),
    "conv_transpose1d": (lambda m, x, w: m.conv_transpose1d(x, w, None, 2, 1, 1),
                         [(1, 2, 4), (2, 3, 3)]),
    "conv_transpose2d.input": (lambda m, x, w, b: m.conv_transpose2d(x, w, b, 2),
                               [(1, 2, 3, 3), (2, 3, 2, 2), (3,)]),
    "conv_transpose3d.input": (lambda m, x, w: m.conv_transpose3d(x, w, groups=2),
                               [(1, 2, 2, 2, 2), (2, 1, 2, 2, 2)]),
})


# torch.special and the elementwise ops of issue 14 (ops/native_functions/special.yaml,
# elementwise_extra.yaml): integer/bool results, heaviside (no formula in torch), and
# torch.special's aliases, which call the op they stand for
INTEGER_OUTPUTS.update({"gcd", "gcd_", "lcm", "lcm_", "signbit", "isreal"})
NOT_DIFFERENTIABLE_IN_TORCH.update({
    "heaviside": lambda m, x: m.heaviside(x, x),
    "heaviside_": lambda m, x: x.clone().heaviside_(x),
})
COMPOSITE.update({
    **{f"special_{name}": (lambda m, x, name=name: getattr(m.special, name)(x), [(3,)])
       for name in ("digamma", "erf", "erfc", "exp2", "expit", "expm1", "gammaln", "i0",
                    "log1p", "ndtr", "psi", "sinc")},
    "special_erfinv": (lambda m, x: m.special.erfinv(x * 0.5), [(3,)]),
    "special_logit": (lambda m, x: m.special.logit(x * 0.5 + 0.2), [(3,)]),
    "special_round": (lambda m, x: m.special.round(x, decimals=1), [(3,)]),
    "special_gammainc": (lambda m, x, y: m.special.gammainc(x.detach() + 1, y.abs() + 0.5),
                         [(3,), (3,)]),
    "special_gammaincc": (lambda m, x, y: m.special.gammaincc(x.detach() + 1, y.abs() + 0.5),
                          [(3,), (3,)]),
    "special_multigammaln": (lambda m, x: m.special.multigammaln(x.abs() + 2, 2), [(3,)]),
    "special_polygamma": (lambda m, x: m.special.polygamma(1, x.abs() + 1), [(3,)]),
    "special_logsumexp": (lambda m, x: m.special.logsumexp(x, 1), [(2, 3)]),
    "special_softmax": (lambda m, x: m.special.softmax(x, 1), [(2, 3)]),
    "special_log_softmax": (lambda m, x: m.special.log_softmax(x, 1), [(2, 3)]),
    "special_xlogy": (lambda m, x, y: m.special.xlogy(x, y.abs() + 0.5), [(3,), (3,)]),
    "special_xlogy.self_scalar": (lambda m, y: m.special.xlogy(2.0, y.abs() + 0.5), [(3,)]),
    "special_xlogy.other_scalar": (lambda m, x: m.special.xlogy(x, 3.0), [(3,)]),
})

# torch.fft, stft / istft (ops/native_functions/fft.yaml): composites over the FFT primitives
COMPOSITE.update({
    **{f"fft_{name}": (lambda m, x, name=name: getattr(m.fft, name)(x).abs(), [(3, 4)])
       for name in ("fft", "ifft", "rfft", "ihfft", "fft2", "ifft2", "rfft2", "ihfft2", "fftn",
                    "ifftn", "rfftn", "ihfftn")},
    **{f"fft_{name}": (lambda m, x, name=name: getattr(m.fft, name)(x * (1 + 1j)), [(3, 4)])
       for name in ("irfft", "hfft", "irfft2", "hfft2", "irfftn", "hfftn")},
    "fft_fftshift": (lambda m, x: m.fft.fftshift(x), [(3, 4)]),
    "fft_ifftshift": (lambda m, x: m.fft.ifftshift(x), [(3, 4)]),
    "stft.center": (lambda m, x: m.stft(x, 4, window=m.hann_window(4, dtype=m.float64),
                                        return_complex=True).abs(), [(10,)]),
    "istft": (lambda m, x: m.istft(m.stft(x, 4, window=m.hann_window(4, dtype=m.float64),
                                          return_complex=True),
                                   4, window=m.hann_window(4, dtype=m.float64)), [(10,)]),
})
# issue 14's shape composites (ops/native_functions/shape_extra.yaml)
COMPOSITE.update({
    **{f"atleast_{n}d": (lambda m, x, n=n: getattr(m, f"atleast_{n}d")(x.sum()), [(3,)])
       for n in (1, 2, 3)},
    **{f"atleast_{n}d.Sequence": (lambda m, x, n=n: getattr(m, f"atleast_{n}d")([x, x[0]]),
                                  [(3,)]) for n in (1, 2, 3)},
    "fill_diagonal_": (lambda m, x: (x * 1).fill_diagonal_(2.0) * x, [(3, 3)]),
    "sum_to_size": (lambda m, x: x.sum_to_size(3, 1), [(2, 3, 4)]),
    "unsafe_chunk": (lambda m, x: m.unsafe_chunk(x, 2, 1), [(3, 4)]),
    "vander": (lambda m, x: m.vander(x, 4), [(3,)]),
})
# (op_db fix) conj_physical: the input itself for real dtypes, else _conj_physical
COMPOSITE["conj_physical"] = (lambda m, x: (m.conj_physical(x * 2), x.real.conj_physical()),
                              [(3, 4)], "complex128")
# issue 15: conj, resolve_conj and resolve_neg are composites over _conj / clone (math bits)
COMPOSITE.update({
    "conj": (lambda m, x: (x * 2).conj() * 1j, [(3, 4)], "complex128"),
    "resolve_conj": (lambda m, x: (x * 2).conj().resolve_conj(), [(3, 4)], "complex128"),
    "resolve_neg": (lambda m, x: (x * 2)._neg_view().resolve_neg(), [(3, 4)], "complex128"),
})
# the plain stft overload has no Python binding (torch.stft is the center one): via aten
COMPOSITE["stft"] = (lambda m, x: m.ops.aten.stft(
    x, 4, None, None, m.hann_window(4, dtype=m.float64), False, None, True).abs(), [(10,)])


# the sparse COO layout (issue 16): gradients of the values of a COO tensor, read back dense
def _coo(m, v):
    return m.sparse_coo_tensor(m.tensor([[0, 2, 0, 1], [1, 0, 1, 1]]), v, (3, 2))


COMPOSITE.update({
    "sparse_coo_tensor.indices": (
        lambda m, v: m.sparse_coo_tensor(m.tensor([[0, 2, 0]]), v).to_dense(), [(3, 2)]),
    "sparse_coo_tensor.indices_size": (lambda m, v: _coo(m, v).to_dense(), [(4,)]),
    "_sparse_coo_tensor_unsafe": (lambda m, v: m.ops.aten._sparse_coo_tensor_unsafe(
        m.tensor([[0, 2, 0]]), v, [3]).to_dense(), [(3,)]),
    "coalesce": (lambda m, v: _coo(m, v).coalesce().values(), [(4,)]),
    "to_dense": (lambda m, v: _coo(m, v).to_dense() * 2, [(4,)]),
    "to_sparse": (lambda m, x: x.to_sparse().to_dense(), [(3, 2)]),
    "to_sparse.sparse_dim": (lambda m, x: x.to_sparse(1).to_dense(), [(3, 2)]),
    "_sparse_sum": (lambda m, v: m.sparse.sum(_coo(m, v)), [(4,)]),
    "_sparse_sum.dtype": (lambda m, v: m.sparse.sum(_coo(m, v), dtype=m.float64), [(4,)]),
    "_sparse_sum.dim_dtype": (lambda m, v: m.sparse.sum(_coo(m, v), 1, dtype=m.float64)
                              .to_dense(), [(4,)]),
    "_sparse_softmax.int": (lambda m, v: m.sparse.softmax(_coo(m, v), 1).to_dense(), [(4,)]),
    "_sparse_log_softmax.int": (lambda m, v: m.sparse.log_softmax(_coo(m, v), 0).to_dense(),
                                [(4,)]),
    "_sparse_mm": (lambda m, v, d: m.sparse.mm(_coo(m, v), d), [(4,), (2, 3)]),
})


# the compressed sparse layouts (issue 16): gradients of the values, read back dense; the
# constructors without a size have no formula in torch (their backward raises)
# memory formats (ops/native_functions/memory_format.yaml): type_as is to(other's dtype)
COMPOSITE["type_as"] = (lambda m, x: x.type_as(m.ones(1, dtype=m.float32)), [(3, 4)])


def _cidx(m):
    return m.tensor([0, 2, 3]), m.tensor([0, 2, 1])


def _blk(m):
    return m.tensor([0, 1, 2]), m.tensor([0, 1])


COMPOSITE.update({
    "sparse_csr_tensor.crow_col_value_size": (
        lambda m, v: m.sparse_csr_tensor(*_cidx(m), v, (2, 3)).to_dense(), [(3,)]),
    "sparse_csc_tensor.ccol_row_value_size": (
        lambda m, v: m.sparse_csc_tensor(*_cidx(m), v, (3, 2)).to_dense(), [(3,)]),
    "sparse_bsr_tensor.crow_col_value_size": (
        lambda m, v: m.sparse_bsr_tensor(*_blk(m), v, (4, 4)).to_dense(), [(2, 2, 2)]),
    "sparse_bsc_tensor.ccol_row_value_size": (
        lambda m, v: m.sparse_bsc_tensor(*_blk(m), v, (4, 4)).to_dense(), [(2, 2, 2)]),
    "sparse_csr_tensor.crow_col_value": (
        lambda m, v: m.sparse_csr_tensor(*_cidx(m), v).to_dense(), [(3,)]),
    "sparse_csc_tensor.ccol_row_value": (
        lambda m, v: m.sparse_csc_tensor(*_cidx(m), v).to_dense(), [(3,)]),
    "sparse_bsr_tensor.crow_col_value": (
        lambda m, v: m.sparse_bsr_tensor(*_blk(m), v).to_dense(), [(2, 2, 2)]),
    "sparse_bsc_tensor.ccol_row_value": (
        lambda m, v: m.sparse_bsc_tensor(*_blk(m), v).to_dense(), [(2, 2, 2)]),
    "_sparse_compressed_tensor_unsafe": (lambda m, v: m.ops.aten._sparse_compressed_tensor_unsafe(
        *_cidx(m), v, [2, 3], dtype=m.float64, layout=m.sparse_csr).to_dense(), [(3,)]),
    "_sparse_csr_tensor_unsafe": (lambda m, v: m.ops.aten._sparse_csr_tensor_unsafe(
        *_cidx(m), v, [2, 3], dtype=m.float64).to_dense(), [(3,)]),
    "_sparse_csc_tensor_unsafe": (lambda m, v: m.ops.aten._sparse_csc_tensor_unsafe(
        *_cidx(m), v, [3, 2], dtype=m.float64).to_dense(), [(3,)]),
    "_sparse_bsr_tensor_unsafe": (lambda m, v: m.ops.aten._sparse_bsr_tensor_unsafe(
        *_blk(m), v, [4, 4], dtype=m.float64).to_dense(), [(2, 2, 2)]),
    "_sparse_bsc_tensor_unsafe": (lambda m, v: m.ops.aten._sparse_bsc_tensor_unsafe(
        *_blk(m), v, [4, 4], dtype=m.float64).to_dense(), [(2, 2, 2)]),
    "to_sparse_csr": (lambda m, x: x.to_sparse_csr().to_dense() * 2, [(3, 2)]),
    "to_sparse_csc": (lambda m, x: x.to_sparse_csc().to_dense() * 2, [(3, 2)]),
    "to_sparse_bsr": (lambda m, x: x.to_sparse_bsr((1, 2)).to_dense() * 2, [(3, 2)]),
    "to_sparse_bsc": (lambda m, x: x.to_sparse_bsc((3, 1)).to_dense() * 2, [(3, 2)]),
})
NOT_DIFFERENTIABLE_IN_TORCH.update({
    "sparse_compressed_tensor.comp_plain_value": lambda m, x: m.sparse_compressed_tensor(
        *_cidx(m), x[0], layout=m.sparse_csr).to_dense(),
    "_sparse_csr_sum.dim_dtype": lambda m, x: m.ops.aten._sparse_csr_sum(
        x.to_sparse_csr(), [1], True).to_dense(),
})

# -- the operators and the rules --------------------------------------------------------------

def _native():
    return load_native_function_files(NATIVE)


def _is_tensor_type(t) -> bool:
    return str(t).startswith("Tensor")


def _takes_and_returns_tensor(func) -> bool:
    out = set(func.arguments.out)
    takes = any(_is_tensor_type(a.type) for a in func.arguments.flat_all if a not in out)
    return takes and any(_is_tensor_type(r.type) for r in func.returns)


def _functional_names(functions) -> dict:
    """base name -> names of its functional (not in-place, not out=) overloads"""
    by_base: dict = {}
    for nf in functions:
        f = nf.func
        if not f.arguments.out and not f.name.name.inplace:
            by_base.setdefault(f.name.name.base, set()).add(str(f.name))
    return by_base


def _has_autograd_kernel(name) -> bool:
    op = find_op("aten::" + name)
    return op is not None and bool(op.kernels.get(DispatchKey.Autograd))


def _has_composite_kernel(name) -> bool:
    op = find_op("aten::" + name)
    return op is not None and bool(op.kernels.get(DispatchKey.CompositeImplicitAutograd))


def _covered(func, functionals) -> bool:
    name = str(func.name)
    if "aten::" + name in FORMULAS or name in INTEGER_OUTPUTS or \
            name in NOT_DIFFERENTIABLE_IN_TORCH or name in COMPOSITE or name in REFUSED:
        return True
    base = func.name.name.base
    siblings = functionals.get(base, set())

    def listed(n):
        return ("aten::" + n in FORMULAS or n in INTEGER_OUTPUTS or
                n in NOT_DIFFERENTIABLE_IN_TORCH or n in COMPOSITE)
    if func.arguments.out:
        return any(listed(n) for n in siblings)
    if func.name.name.inplace:
        if _has_autograd_kernel(name):          # recording.install gave it its entry's kernel
            return True
        return _has_composite_kernel(name) and any(n in COMPOSITE for n in siblings)
    return False


def uncovered() -> list:
    functions = _native()
    functionals = _functional_names(functions)
    return sorted(str(nf.func.name) for nf in functions
                  if _takes_and_returns_tensor(nf.func) and not _covered(nf.func, functionals))


def test_every_op_is_covered():
    missing = uncovered()
    assert not missing, (f"{len(missing)} operators have no autograd formula, are no variant "
                         f"of one, and are not exempted:\n  " + "\n  ".join(missing))


def test_exemptions_name_declared_operators():
    declared = {str(nf.func.name) for nf in _native()}
    for table in (INTEGER_OUTPUTS, NOT_DIFFERENTIABLE_IN_TORCH, COMPOSITE):
        stale = sorted(set(table) - declared)
        assert not stale, stale


def test_composites_are_composite():
    # a listed composite must really decompose (else it would need a formula)
    not_composite = sorted(n for n in COMPOSITE if not _has_composite_kernel(n))
    assert not not_composite, not_composite


def test_every_composite_is_listed():
    unlisted = sorted(
        str(nf.func.name) for nf in _native()
        if "CompositeImplicitAutograd" in nf.dispatch and not nf.func.arguments.out
        and not nf.func.name.name.inplace and _takes_and_returns_tensor(nf.func)
        and str(nf.func.name) not in COMPOSITE and str(nf.func.name) not in INTEGER_OUTPUTS
        and "aten::" + str(nf.func.name) not in FORMULAS)
    assert not unlisted, unlisted


@pytest.mark.parametrize("name", sorted(COMPOSITE))
def test_composite_gradient(name):
    program, shapes, *dtype = COMPOSITE[name]
    check_grads(program, shapes, dtype=dtype[0] if dtype else "float64")


@pytest.mark.parametrize("name", sorted(NOT_DIFFERENTIABLE_IN_TORCH))
def test_not_differentiable_in_torch(name):
    program = NOT_DIFFERENTIABLE_IN_TORCH[name]
    messages = []
    for m in (strided, torch):
        x = m.ones(2, 3, dtype=m.float64, requires_grad=True)
        y = program(m, x)
        assert y.requires_grad
        with pytest.raises(RuntimeError) as info:
            y.sum().backward()
        # torch names the op with its namespace ("aten::scatter"); strided's fallback
        # node (autograd/recording.py) does not
        messages.append(str(info.value).replace("aten::", ""))
    assert messages[0] == messages[1]


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_refused_like_torch(name):
    messages = []
    for m in (strided, torch):
        x = m.ones(2, 3, dtype=m.float64, requires_grad=True)
        with pytest.raises(RuntimeError) as info:
            REFUSED[name](m, x)
        messages.append(str(info.value))
    assert messages[0] == messages[1] == "cannot resize variables that require grad"
