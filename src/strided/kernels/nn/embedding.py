"""Kernels: embedding, embedding_bag.

Note [Embedding scatter-add]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~
The backward of a lookup adds each gradient row into the weight row it came from. torch's
CPU kernel walks the indices in order and accumulates row by row. Here the rows are
grouped by a stable sort of the indices and each group is summed by ``np.add.reduceat``,
which adds the rows of a group left to right: the same additions in the same order as
torch's loop, as whole-array NumPy calls. ``scale_grad_by_freq`` divides each row by the
count of its index; ``padding_idx`` rows are left out before the sort.

Note [EmbeddingBag outputs]
~~~~~~~~~~~~~~~~~~~~~~~~~~~
``_embedding_bag`` returns (output, offset2bag, bag_size, max_indices) as torch's CPU
kernel does: ``offset2bag`` maps each index to its bag (left empty by torch's fast sum path:
float32/half/bfloat16 weights, sum mode, no padding_idx); ``bag_size`` counts the indices of
each bag that are not ``padding_idx`` (zeros in sum mode, one per offset); ``max_indices``
is the argmax row per bag and column in max mode, a copy of ``bag_size`` in mean mode and
zeros in sum mode. Bags are reduced with ``reduceat`` over their non-empty segments.
"""

from __future__ import annotations

import numpy as np

from ...core import dtypes as dt
from ...core.checks import check
from ...core.tensor_impl import numel_of
from ..factory import empty as _factory_empty

_INDEX_TYPES = (dt.int64, dt.int32)
_BAG_WEIGHT_TYPES = (dt.float16, dt.bfloat16, dt.float32, dt.float64)
_SUM, _MEAN, _MAX = 0, 1, 2


def _empty(sizes, dtype, device):
    return _factory_empty(tuple(sizes), dtype, None, device)


def _is_meta(*tensors) -> bool:
    return any(t is not None and t._device.type == "meta" for t in tensors)


def _opmath(dtype):
    return np.dtype(np.float32) if dtype in (dt.float16, dt.bfloat16) else dtype.np


def _type_name(t) -> str:
    return f"torch.{_LEGACY.get(t._dtype, t._dtype._scalar_name + 'Tensor')}"


_LEGACY = {dt.float32: "FloatTensor", dt.float64: "DoubleTensor", dt.float16: "HalfTensor",
           dt.bfloat16: "BFloat16Tensor", dt.int64: "LongTensor", dt.int32: "IntTensor",
           dt.int16: "ShortTensor", dt.int8: "CharTensor", dt.uint8: "ByteTensor",
           dt.bool_: "BoolTensor", dt.complex64: "ComplexFloatTensor",
           dt.complex128: "ComplexDoubleTensor"}


def _check_types(fn, t, pos, name, allowed, names):
    check(t._dtype in allowed, lambda: (
        f"Expected tensor for argument #{pos} '{name}' to have one of the following scalar "
        f"types: {', '.join(names)}; but got {_type_name(t)} instead (while checking "
        f"arguments for {fn})"))


def _check_indices(fn, indices, pos=1):
    _check_types(fn, indices, pos, "indices", _INDEX_TYPES, ("Long", "Int"))


def _flat_indices(indices) -> np.ndarray:
    return np.ascontiguousarray(indices._array()).reshape(-1).astype(np.int64, copy=False)


# -- embedding --------------------------------------------------------------------------------

def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    """``weight[indices]``: rows of a 2-d weight, in the shape of ``indices`` plus one dim."""
    check(len(weight._sizes) == 2, "'weight' must be 2-D")
    _check_indices("embedding", indices)
    shape = indices._sizes + (weight._sizes[1],)
    out = _empty(shape, weight._dtype, weight._device)
    if _is_meta(weight, indices):
        return out
    idx = _flat_indices(indices)
    if idx.size:
        n = weight._sizes[0]
        if int(idx.min()) < 0 or int(idx.max()) >= n:
            raise IndexError("index out of range in self")
    else:
        return out
    # bounds checked above: 'clip' skips NumPy's own (slower) per-element check
    np.take(weight._array(), idx, axis=0, out=out._array().reshape(idx.size, -1), mode="clip")
    return out


def _scatter_add_rows(out_arr, idx, rows):
    """``out_arr[idx[i]] += rows[i]`` for i in order, on a zero ``out_arr`` (Note [Embedding
    scatter-add]). Every row is first written to its target in one fancy assignment (right
    for the indices that occur once). The repeated indices (found with one ``bincount``)
    are grouped by a stable sort of their positions: their targets get the group's first
    row again, then the k-th rows of all groups that have one are added in one fancy
    ``+=`` per k (the targets of one k are distinct). The loop runs as many times as the
    most repeated index occurs, and each group is summed left to right, as torch's loop
    sums it."""
    n = idx.size
    if not n:
        return
    out_arr[idx] = rows
    counts = np.bincount(idx, minlength=out_arr.shape[0])
    if counts.max() <= 1:
        return
    rep = np.flatnonzero(counts[idx] > 1)       # positions of the repeated indices, in order
    ridx = idx[rep]
    order = rep[np.argsort(ridx, kind="stable")]
    sidx = idx[order]
    first = np.empty(order.size, bool)
    first[0] = True
    np.not_equal(sidx[1:], sidx[:-1], out=first[1:])
    starts = np.flatnonzero(first)
    out_arr[sidx[starts]] = rows[order[starts]]
    rank = np.arange(order.size) - np.repeat(starts, np.diff(np.append(starts, order.size)))
    for k in range(1, int(rank.max()) + 1):
        pos = order[rank == k]
        out_arr[idx[pos]] += rows[pos]


def _dense_grad_rows(grad_rows, idx, num_weights, padding_idx, scale_grad_by_freq, out_arr):
    """embedding's scatter-add: ``padding_idx`` rows left out, each row scaled by
    ``1 / count(index)`` (the factor rounded to the dtype, as torch's ``add_(g, alpha)``)."""
    if padding_idx >= 0:
        keep = idx != padding_idx
        if not keep.all():
            idx = idx[keep]
            grad_rows = grad_rows[keep]
    if not idx.size:
        return
    if scale_grad_by_freq:
        counts = np.bincount(idx, minlength=num_weights)
        scale = (1.0 / counts[idx]).astype(grad_rows.dtype)
        grad_rows = grad_rows * scale[:, None]
    _scatter_add_rows(out_arr, idx, grad_rows)


def embedding_dense_backward(grad_output, indices, num_weights, padding_idx,
                             scale_grad_by_freq):
    """The gradient of ``embedding`` for its weight: a (num_weights, dim) zero tensor with
    each gradient row added into its index's row."""
    _check_indices("embedding_backward", indices, 2)
    dim = grad_output._sizes[-1] if grad_output._sizes else 1
    out = _empty((num_weights, dim), grad_output._dtype, grad_output._device)
    if _is_meta(grad_output, indices):
        return out
    arr = out._array()
    c = _opmath(grad_output._dtype)
    idx = _flat_indices(indices)
    g = grad_output._array().reshape(idx.size, dim)   # a view when it can be (expanded grads)
    if c != g.dtype:
        acc = np.zeros((num_weights, dim), c)
        _dense_grad_rows(g.astype(c), idx, num_weights, padding_idx, scale_grad_by_freq, acc)
        np.copyto(arr, acc, casting="unsafe")
    else:
        arr[...] = 0
        _dense_grad_rows(g, idx, num_weights, padding_idx, scale_grad_by_freq, arr)
    return out


def embedding_backward_composite(grad, indices, num_weights, padding_idx, scale_grad_by_freq,
                                 sparse):
    if sparse:          # a COO gradient (issue 16)
        from ..sparse_coo import embedding_sparse_grad
        return embedding_sparse_grad(grad, indices, num_weights, padding_idx,
                                     scale_grad_by_freq)
    from ... import ops
    return ops.aten.embedding_dense_backward(grad, indices, num_weights, padding_idx,
                                             scale_grad_by_freq)


def embedding_renorm_(self, indices, max_norm, norm_type):
    """Rescale, in place, each row of ``self`` named in ``indices`` whose ``norm_type``-norm
    exceeds ``max_norm`` to norm ``max_norm`` (``scale = max_norm / (norm + 1e-7)``)."""
    check(len(self._sizes) == 2, lambda: (
        f"Expected 2-dimensional tensor, but got {len(self._sizes)}-dimensional tensor for "
        f"argument #1 'self' (while checking arguments for embedding_renorm_)"))
    _check_indices("embedding_renorm_", indices, 2)
    if _is_meta(self, indices):
        return self
    idx = np.unique(_flat_indices(indices))
    if idx.size:
        n = self._sizes[0]
        bad = idx[(idx < 0) | (idx >= n)]
        if bad.size:
            raise IndexError(f"select(): index {int(bad[0])} out of range for tensor of size "
                             f"{list(self._sizes)} at dimension 0")
        arr = self._array()
        c = _opmath(self._dtype)
        rows = arr[idx].astype(c, copy=False)
        p = float(norm_type)
        a = np.abs(rows)
        if p == 2:
            norms = np.sqrt(np.sum(a * a, axis=1))
        elif p == 1:
            norms = np.sum(a, axis=1)
        elif p == float("inf"):
            norms = np.max(a, axis=1)
        elif p == 0:
            norms = np.sum(a != 0, axis=1).astype(c)
        else:
            norms = np.sum(a ** c.type(p), axis=1) ** c.type(1.0 / p)
        big = norms > max_norm
        if big.any():
            scale = (float(max_norm) / (norms[big].astype(np.float64) + 1e-7)).astype(c)
            arr[idx[big]] = (rows[big] * scale[:, None]).astype(arr.dtype)
    self._vc[0] += 1
    return self


# -- embedding_bag ------------------------------------------------------------------------------

def _bag_checks(weight, indices, offsets, mode, per_sample_weights):
    _check_indices("embedding_bag", indices)
    _check_types("embedding_bag", offsets, 1, "offsets", _INDEX_TYPES, ("Long", "Int"))
    _check_types("embedding_bag", weight, 1, "weight", _BAG_WEIGHT_TYPES,
                 ("Half", "BFloat16", "Float", "Double"))
    check(len(offsets._sizes) == 1, lambda: (
        f"offsets has to be a 1D Tensor, but got Tensor of dimension {len(offsets._sizes)}"))
    check(mode in (_SUM, _MEAN, _MAX), "`mode` must be sum, mean, or max.")
    if per_sample_weights is not None:
        check(mode == _SUM, "embedding_bag: per_sample_weights only supported with mode='sum'")
        check(per_sample_weights._dtype is weight._dtype, lambda: (
            f"Expected tensor for argument #1 'weight' to have the same type as tensor for "
            f"argument #1 'per_sample_weights'; but type {_type_name(weight)} does not equal "
            f"{_type_name(per_sample_weights)} (while checking arguments for embedding_bag)"))
        check(len(per_sample_weights._sizes) == 1, lambda: (
            "Expected per_sample_weights.value().dim() == 1 to be true, but got false.  (Could "
            "this error message be improved?  If so, please report an enhancement request to "
            "PyTorch.)"))
        check(numel_of(per_sample_weights._sizes) == numel_of(indices._sizes), (
            "Expected per_sample_weights.value().numel() == indices.numel() to be true, but got "
            "false.  (Could this error message be improved?  If so, please report an "
            "enhancement request to PyTorch.)"))


def _offset2bag(offs: np.ndarray, n: int, num_bags: int) -> np.ndarray:
    """The bag of each index: the last offset at or before it (indices past the last bag's
    start belong to the last bag)."""
    return np.searchsorted(offs[:num_bags], np.arange(n), side="right") - 1


def _embedding_bag_impl(weight, indices, offsets, scale_grad_by_freq, mode, sparse,
                        per_sample_weights, include_last_offset, padding_idx):
    _bag_checks(weight, indices, offsets, mode, per_sample_weights)
    n_off = offsets._sizes[0]
    num_bags = n_off - 1 if include_last_offset else n_off
    if include_last_offset:
        check(n_off >= 1, "include_last_offset: number of offset should be at least 1")
    dim = weight._sizes[1]
    n = numel_of(indices._sizes)
    out = _empty((num_bags, dim), weight._dtype, weight._device)
    fast_sum = mode == _SUM and weight._dtype is not dt.float64 and padding_idx < 0
    int_t = indices._dtype if indices._dtype is offsets._dtype else dt.int64
    o2b = _empty((0,) if fast_sum else (n,), int_t, weight._device)
    if mode == _SUM:
        bag_size = _empty((n_off,), int_t, weight._device)
        max_idx = _empty((n_off,), int_t, weight._device)
    else:
        bag_size = _empty((num_bags,), int_t, weight._device)
        max_idx = _empty((num_bags, dim) if mode == _MAX else (num_bags,), int_t,
                         weight._device)
    if _is_meta(weight, indices, offsets):
        # torch's meta function (shapes only; they differ from the CPU kernel's)
        return (out, _empty((n,), int_t, weight._device), _empty((n_off,), int_t, weight._device),
                _empty((num_bags, dim) if mode == _MAX else (0,), int_t, weight._device))
    idx = _flat_indices(indices)
    offs = np.ascontiguousarray(offsets._array()).astype(np.int64, copy=False)
    if n_off:
        check(offs[0] == 0, lambda: (
            f"offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start "
            f"from position 0. However, got {int(offs[0])}\n[ {_type_name(offsets)}{{}} ]"))
        check(offs[-1] <= n, lambda: (
            f"offsets[-1] can not be greater than input's length {n} but got offsets[-1] of "
            f"{int(offs[-1])}"))
    num_w = weight._sizes[0]
    if idx.size:
        bad = np.flatnonzero((idx < 0) | (idx >= num_w))
        if bad.size:
            i = int(bad[0])
            raise RuntimeError(f"Index {i} of input takes value {int(idx[i])} which is not in "
                               f"the valid range [0, {num_w})")
    bags = _offset2bag(offs, n, num_bags) if num_bags else np.zeros(n, np.int64)
    if not fast_sum:
        o2b._array()[...] = bags
    keep = idx != padding_idx if padding_idx >= 0 else None
    counts = np.bincount(bags[keep] if keep is not None else bags,
                         minlength=num_bags)[:num_bags] if num_bags else np.zeros(0, np.int64)
    if mode == _SUM:
        bag_size._array()[...] = 0
        max_idx._array()[...] = 0
    else:
        bag_size._array()[...] = counts
    out_arr = out._array()
    if not num_bags:
        return out, o2b, bag_size, max_idx
    c = _opmath(weight._dtype)
    w = weight._array()
    if keep is not None:
        sel_idx, sel_bags = idx[keep], bags[keep]
        psw_pos = np.flatnonzero(keep)
    else:
        sel_idx, sel_bags, psw_pos = idx, bags, None
    rows = w[sel_idx].astype(c, copy=False)
    if mode != _MAX and per_sample_weights is not None:
        psw = np.ascontiguousarray(per_sample_weights._array()).astype(c, copy=False)
        psw = psw if psw_pos is None else psw[psw_pos]
        rows = rows * psw[:, None]
    nonempty = counts > 0
    starts = np.searchsorted(sel_bags, np.arange(num_bags))
    dense = _dense_bags(rows, sel_idx, counts, starts, mode)
    if dense is not None:   # (bags, longest bag, dim): one reduction over axis 1
        values, didx, live = dense
        if mode == _MAX:
            arg = values.argmax(axis=1)   # the first maximum, as torch's strict ``>``
            result = np.take_along_axis(values, arg[:, None, :], axis=1)[:, 0, :]
            mi = np.where(live[:, None], didx[np.arange(num_bags)[:, None], arg], 0)
            result[~live] = 0
            max_idx._array()[...] = mi
        else:
            result = values.sum(axis=1)   # left to right along each bag, as torch sums
    else:
        starts = starts[nonempty]
        result = np.zeros((num_bags, dim), c)
        if mode == _MAX:
            mi = np.zeros((num_bags, dim), np.int64)
            if starts.size:
                mx = np.maximum.reduceat(rows, starts, axis=0)
                result[nonempty] = mx
                pos = np.arange(rows.shape[0])[:, None]
                bag_of_row = np.cumsum(np.isin(np.arange(rows.shape[0]), starts)) - 1
                first = np.where(rows == mx[bag_of_row], pos, rows.shape[0])
                arg = np.minimum.reduceat(first, starts, axis=0)
                mi[nonempty] = sel_idx[np.minimum(arg, rows.shape[0] - 1)]
            max_idx._array()[...] = mi
        else:
            _scatter_add_rows(result, sel_bags, rows)
    if mode == _MEAN:
        result[nonempty] /= counts[nonempty].astype(c)[:, None]
        max_idx._array()[...] = counts
    np.copyto(out_arr, result, casting="unsafe")
    return out, o2b, bag_size, max_idx


def _dense_bags(rows, idx, counts, starts, mode):
    """The bags as a (bags, longest bag, dim) array when that is not much larger than the
    rows (bags of equal length are a reshape, no copy): padding is 0 for sums and -inf for
    maxima, so one reduction over axis 1 gives every bag. Returns (values, the index of
    each slot, which bags are non-empty) or None."""
    num_bags = counts.size
    n, dim = rows.shape
    longest = int(counts.max()) if num_bags else 0
    if not longest or num_bags * longest > 2 * n + num_bags:
        return None
    live = counts > 0
    if n == num_bags * longest:                   # all bags of one length
        return rows.reshape(num_bags, longest, dim), idx.reshape(num_bags, longest), live
    bag_of = np.repeat(np.arange(num_bags), counts)
    rank = np.arange(n) - starts[bag_of]
    fill = -np.inf if mode == _MAX else 0
    values = np.full((num_bags, longest, dim), fill, rows.dtype)
    values[bag_of, rank] = rows
    didx = np.zeros((num_bags, longest), np.int64)
    didx[bag_of, rank] = idx
    return values, didx, live


def embedding_bag_forward(weight, indices, offsets, scale_grad_by_freq=False, mode=0,
                          sparse=False, per_sample_weights=None, include_last_offset=False,
                          padding_idx=-1):
    """``_embedding_bag`` and ``_embedding_bag_forward_only`` (Note [EmbeddingBag outputs])."""
    return _embedding_bag_impl(weight, indices, offsets, scale_grad_by_freq, mode, sparse,
                               per_sample_weights, include_last_offset, padding_idx)


def embedding_bag_composite(weight, indices, offsets, scale_grad_by_freq=False, mode=0,
                            sparse=False, per_sample_weights=None, include_last_offset=False):
    return embedding_bag_padding_idx_composite(weight, indices, offsets, scale_grad_by_freq,
                                               mode, sparse, per_sample_weights,
                                               include_last_offset, None)


def embedding_bag_padding_idx_composite(weight, indices, offsets, scale_grad_by_freq, mode,
                                        sparse, per_sample_weights, include_last_offset,
                                        padding_idx):
    """torch's ``embedding_bag``: padding_idx checked and wrapped, contiguous indices and
    offsets, then ``_embedding_bag`` when the weight requires grad, else the forward-only
    op."""
    from ...ops._generated import torch_functions as T
    pad = -1
    if padding_idx is not None:
        num = weight.shape[0]
        check(-num <= padding_idx < num, lambda: (
            f"padding_idx must be within the number of embeddings, -{num} through {num - 1}, "
            f"but got {padding_idx}"))
        pad = padding_idx + num if padding_idx < 0 else padding_idx
    fn = T._embedding_bag if weight.requires_grad else T._embedding_bag_forward_only
    return fn(weight, indices.contiguous(), offsets.contiguous(), scale_grad_by_freq, mode,
              sparse, per_sample_weights, include_last_offset, pad)


def _bags_of(offset2bag, offsets, n):
    o2b = offset2bag._array().reshape(-1)
    if o2b.size == n:
        return o2b.astype(np.int64, copy=False)
    offs = np.ascontiguousarray(offsets._array()).astype(np.int64, copy=False)
    return _offset2bag(offs, n, offs.size)


def embedding_bag_backward(grad, indices, offsets, offset2bag, bag_size, maximum_indices,
                           num_weights, scale_grad_by_freq, mode, sparse, per_sample_weights,
                           padding_idx=-1):
    """``_embedding_bag_backward``: the dense backward (an empty ``offset2bag``, left by
    torch's fast sum path, is rebuilt from the offsets)."""
    check(not sparse, "embedding_bag_backward: sparse gradients are not supported by strided")
    n = numel_of(indices._sizes)
    if numel_of(offset2bag._sizes) != n and not _is_meta(grad, indices, offsets):
        o2b = _empty((n,), indices._dtype, indices._device)
        o2b._array()[...] = _bags_of(offset2bag, offsets, n)
        offset2bag = o2b
    return embedding_bag_dense_backward(grad, indices, offset2bag, bag_size, maximum_indices,
                                        num_weights, scale_grad_by_freq, mode,
                                        per_sample_weights, padding_idx)


def embedding_bag_dense_backward(grad, indices, offset2bag, bag_size, maximum_indices,
                                 num_weights, scale_grad_by_freq, mode, per_sample_weights=None,
                                 padding_idx=-1):
    """The weight's gradient of ``_embedding_bag``: each bag's gradient row (scaled by the
    per-sample weight, or divided by the bag size in mean mode) added into the rows of its
    indices; in max mode each column into its argmax row."""
    dim = grad._sizes[-1]
    out = _empty((num_weights, dim), grad._dtype, grad._device)
    if _is_meta(grad, indices):
        return out
    c = _opmath(grad._dtype)
    g = grad._array().astype(c, copy=False)
    if c == grad._dtype.np:     # accumulate straight into the result
        acc = out._array()
        acc[...] = 0
    else:
        acc = np.zeros((num_weights, dim), c)
    sizes = bag_size._array().astype(np.int64, copy=False)
    if mode == _MAX:
        mi = maximum_indices._array().astype(np.int64, copy=False)
        live = np.broadcast_to((sizes > 0)[:, None], mi.shape)
        cols = np.broadcast_to(np.arange(dim), mi.shape)
        np.add.at(acc, (mi[live], cols[live]), g[live])
    else:
        _bag_sum_mean_grad(g, _flat_indices(indices),
                           offset2bag._array().reshape(-1).astype(np.int64, copy=False), sizes,
                           num_weights, scale_grad_by_freq, mode, per_sample_weights,
                           padding_idx, acc)
    if acc.dtype != grad._dtype.np:
        np.copyto(out._array(), acc, casting="unsafe")
    return out


def _bag_sum_mean_grad(g, idx, bags, sizes, num_weights, scale_grad_by_freq, mode,
                       per_sample_weights, padding_idx, acc):
    """Sum / mean bags: torch sorts the indices and, per group of equal indices, adds each
    bag gradient row times a double scale (per-sample weight, ``1 / count``, ``1 / bag
    size``) rounded to the dtype. Its ``1 / count`` reads the count of ``sorted[g]`` for
    group ``g`` (not the group's own index once an index repeats): reproduced, as the
    results are torch's."""
    if not idx.size:
        return
    c = acc.dtype
    scale = None
    if per_sample_weights is not None:
        scale = per_sample_weights._array().reshape(-1).astype(np.float64)
    if scale_grad_by_freq:
        order = np.argsort(idx, kind="stable")
        sidx = idx[order]
        first = np.concatenate(([True], sidx[1:] != sidx[:-1]))
        counts = np.bincount(idx, minlength=num_weights)
        group = np.empty(idx.size, np.int64)
        group[order] = np.cumsum(first) - 1
        scale = (1.0 if scale is None else scale) / counts[sidx[group]]
    if mode == _MEAN:
        sz = sizes[bags]
        base = 1.0 if scale is None else scale
        scale = np.where(sz != 0, base / np.maximum(sz, 1), base)
    rows = g[bags]
    if scale is not None:
        rows *= np.broadcast_to(scale, idx.shape).astype(c)[:, None]
    if padding_idx >= 0:
        keep = idx != padding_idx
        idx, rows = idx[keep], rows[keep]
    _scatter_add_rows(acc, idx, rows)


def embedding_bag_per_sample_weights_backward(grad, weight, indices, offsets, offset2bag,
                                              mode, padding_idx=-1):
    """``d output / d per_sample_weights[i]``: the dot product of the bag's gradient row with
    the weight row of index ``i`` (0 for ``padding_idx``)."""
    check(mode == _SUM, "embedding_bag_backward: per_sample_weights only supported for "
                        "mode='sum'")
    n = numel_of(indices._sizes)
    out = _empty((n,), grad._dtype, grad._device)
    if _is_meta(grad, weight, indices) or not n:
        return out
    c = _opmath(grad._dtype)
    idx = _flat_indices(indices)
    bags = _bags_of(offset2bag, offsets, n)
    res = np.einsum("ij,ij->i", grad._array().astype(c, copy=False)[bags],
                    weight._array().astype(c, copy=False)[idx])
    if padding_idx >= 0:
        res[idx == padding_idx] = 0
    np.copyto(out._array(), res, casting="unsafe")
    return out
