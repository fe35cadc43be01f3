"""Kernels of torch.nn's linear layers: ``linear`` and ``bilinear`` (composites, as torch
declares them, so autograd records the ops they call: ``AddmmBackward0``, ``MmBackward0``,
``ViewBackward0``...) and ``_trilinear``, the one real kernel (NumPy ``einsum``).

Note [How linear decomposes]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~
torch's ``linear`` picks one of three graphs, and programs can see which (``grad_fn``):

- 2-d input with a bias: ``addmm(bias, input, weight.t())``;
- a contiguous input of any other rank with a 1-d bias: the leading dims are flattened
  (a view), ``addmm`` runs on the 2-d matrix, and the result is viewed back
  (``ViewBackward0``); a 1-d input becomes one row;
- otherwise ``matmul(input, weight.t())`` followed by an in-place ``add_`` of the bias
  (``AddBackward0``).

Note [_trilinear as one einsum]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
``_trilinear(i1, i2, i3, expand1, expand2, expand3, sumdim)`` is
``(i1.unsqueeze(expand1) * i2.unsqueeze(expand2) * i3.unsqueeze(expand3)).sum(sumdim)``.
Each of the ``total_dim`` dims gets one einsum letter; an input is labelled with the
letters of the dims it is not expanded in, the output with the dims not summed, and NumPy
contracts the three at once (pairwise, in the order it finds cheapest), broadcasting
size-1 dims like the unsqueezed product would. torch unrolls a loop over ``unroll_dim``;
the value is the same sum, so ``unroll_dim`` is only checked.
"""

from __future__ import annotations

import numpy as np

from ...core.checks import check
from ...core.tensor_impl import compute_is_contiguous, contiguous_strides, numel_of
from ...ops.dispatcher import get_op
from ..factory import new_strided
from ..views import _call_op

__all__ = ["linear_composite", "linear_out_composite", "bilinear_composite", "trilinear",
           "trilinear_out"]

_ops: list = []


def _handles():
    """The op handles linear dispatches to (looked up on first use: the registry is still
    being filled when kernel modules are imported)."""
    if not _ops:
        _ops.extend(get_op(n) for n in ("aten::addmm", "aten::t", "aten::view", "aten::matmul",
                                        "aten::add_.Tensor"))
    return _ops


def linear_composite(input, weight, bias=None):
    """``linear(input, weight, bias=None)`` (Note [How linear decomposes])."""
    _op_addmm, _op_t, _op_view, _op_matmul, _op_add_ = _ops or _handles()
    input_dim = len(input._sizes)
    check(input_dim != 0 and len(weight._sizes) != 0, lambda: (
        f"both arguments to linear need to be at least 1D, but they are {input_dim}D and "
        f"{len(weight._sizes)}D"))
    wt = _op_t.call(weight._keyset, weight)
    if bias is not None:
        if input_dim == 2:
            return _op_addmm.call(input._keyset | wt._keyset | bias._keyset, bias, input, wt,
                                  1, 1)
        if len(bias._sizes) == 1 and compute_is_contiguous(input._sizes, input._strides):
            return _flatten_nd_linear(input, wt, bias)
    out = _op_matmul.call(input._keyset | wt._keyset, input, wt)
    if bias is not None:
        out = _op_add_.call(out._keyset | bias._keyset, out, bias, 1)
    return out


def _flatten_nd_linear(input, wt, bias):
    _op_addmm, _op_t, _op_view, _op_matmul, _op_add_ = _ops
    sizes = input._sizes
    rows = numel_of(sizes[:-1])
    flat = _op_view.call(input._keyset, input, (rows, sizes[-1]))
    result = _op_addmm.call(flat._keyset | wt._keyset | bias._keyset, bias, flat, wt, 1, 1)
    return _op_view.call(result._keyset, result, sizes[:-1] + (result._sizes[1],))


def linear_out_composite(input, weight, bias=None, out=None):
    """``linear.out``: ``addmm.out`` for a 2-d input with a bias, else ``matmul.out`` and
    an in-place bias add (torch's composition)."""
    wt = _call_op("aten::t", weight)
    if len(input._sizes) == 2 and bias is not None:
        return _call_op("aten::addmm.out", bias, input, wt, 1, 1, out)
    out = _call_op("aten::matmul.out", input, wt, out)
    if bias is not None:
        _call_op("aten::add_.Tensor", out, bias, 1)
    return out


def _dtype_name(t) -> str:
    from ..linalg import cpp_name
    return cpp_name(t._dtype)


def bilinear_composite(input1, input2, weight, bias=None):
    """``bilinear(input1, input2, weight, bias=None)``: ``y[..., o] = sum_ij x1[..., i] *
    W[o, i, j] * x2[..., j] (+ b[o])``, through ``_trilinear`` on the flattened inputs."""
    same = input1._dtype is input2._dtype and input1._dtype is weight._dtype
    if bias is not None:
        check(same and input1._dtype is bias._dtype, lambda: (
            f"All tensors must have the same dtype, got input1: {_dtype_name(input1)}, "
            f"input2: {_dtype_name(input2)}, weight: {_dtype_name(weight)}, bias: "
            f"{_dtype_name(bias)}"))
    else:
        check(same, lambda: (
            f"All tensors must have the same dtype, got input1: {_dtype_name(input1)}, "
            f"input2: {_dtype_name(input2)}, weight: {_dtype_name(weight)}"))
    s1, s2 = input1._sizes, input2._sizes
    check(len(s1) == len(s2), lambda: (
        f"bilinear(): input dimensions do not match: got {len(s1)} and {len(s2)}"))
    for i in range(len(s1) - 1):
        if s1[i] != s2[i]:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match at dim {i}: "
                               f"got {s1[i]} and {s2[i]}")
    last1 = input1.size(-1)
    check(last1 == weight.size(1), lambda: (
        f"bilinear(): input1 size does not match weight size: got {last1} but expected "
        f"{weight.size(1)}"))
    last2 = input2.size(-1)
    check(last2 == weight.size(2), lambda: (
        f"bilinear(): input2 size does not match weight size: got {last2} but expected "
        f"{weight.size(2)}"))
    check(bias is None or bias.size(0) == weight.size(0), lambda: (
        f"bilinear(): bias size does not match weight size: got {bias.size(0)} but expected "
        f"{weight.size(0)}"))
    output_size = s1[:-1] + (weight._sizes[0],)
    flat1 = _call_op("aten::reshape", input1, (-1, last1))
    flat2 = _call_op("aten::reshape", input2, (-1, last2))
    out = _call_op("aten::_trilinear", flat1, weight, flat2, [1, 3], [0], [1, 2], [2, 3], 1)
    out = _call_op("aten::reshape", out, output_size)
    if bias is not None:
        out = _call_op("aten::add.Tensor", out, bias, 1)
    return out


def _trilinear_plan(i1, i2, i3, expand1, expand2, expand3, sumdim, unroll_dim):
    total_dim = len(i1._sizes) + len(expand1)
    check(0 <= unroll_dim < total_dim, lambda: f"unroll_dim must be in [0,{total_dim - 1}]")
    expands = [set(expand1), set(expand2), set(expand3)]
    sums = set(sumdim)
    letters = [chr(ord("a") + i) for i in range(total_dim)]
    subs = []
    for t, ex in zip((i1, i2, i3), expands):
        kept = [d for d in range(total_dim) if d not in ex]
        if len(kept) != len(t._sizes):
            raise RuntimeError(f"_trilinear: expected a {len(kept)}-d input, got "
                               f"{len(t._sizes)}-d")
        subs.append("".join(letters[d] for d in kept))
    # each output dim takes the size of the last input that has it (torch's rule)
    sizes = []
    for d in range(total_dim):
        if d in sums:
            continue
        s = 1
        for t, ex in zip((i1, i2, i3), expands):
            if d not in ex:
                s = t._sizes[[k for k in range(total_dim) if k not in ex].index(d)]
        sizes.append(s)
    out_sub = "".join(letters[d] for d in range(total_dim) if d not in sums)
    return f"{subs[0]},{subs[1]},{subs[2]}->{out_sub}", tuple(sizes)


def _trilinear_impl(i1, i2, i3, expand1, expand2, expand3, sumdim, unroll_dim, out):
    spec, sizes = _trilinear_plan(i1, i2, i3, expand1, expand2, expand3, sumdim, unroll_dim)
    if out is None:
        result = new_strided(sizes, contiguous_strides(sizes), i1._dtype, i1._device)
    else:
        from ..linalg import _check_out_dtype
        from ..resize import resize_output
        _check_out_dtype(out, i1._dtype)
        resize_output(out, sizes)
        result = out
    if result._device.type == "meta" or numel_of(sizes) == 0:
        return result
    dst = result._array()
    if 0 in i1._sizes or 0 in i2._sizes or 0 in i3._sizes:
        dst[...] = 0
        return result
    npdt = dst.dtype
    a, b, c = (t._array().astype(npdt, copy=False) for t in (i1, i2, i3))
    dst[...] = np.einsum(spec, a, b, c, optimize=True)
    return result


def trilinear(i1, i2, i3, expand1, expand2, expand3, sumdim, unroll_dim=1):
    """``_trilinear`` (Note [_trilinear as one einsum])."""
    return _trilinear_impl(i1, i2, i3, expand1, expand2, expand3, sumdim, unroll_dim, None)


def trilinear_out(i1, i2, i3, expand1, expand2, expand3, sumdim, unroll_dim=1, out=None):
    result = _trilinear_impl(i1, i2, i3, expand1, expand2, expand3, sumdim, unroll_dim, out)
    result._vc[0] += 1
    return result
