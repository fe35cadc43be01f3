"""Python-level shape helpers of issue 14 that torch writes in Python (``torch/functional.py``,
``torch/_tensor.py``): ``atleast_1d/2d/3d`` taking varargs, ``unravel_index`` and
``Tensor.dim_order``.

    strided.atleast_2d(a, b)                         # (a viewed as >= 2-d, b ...)
    strided.unravel_index(strided.tensor([4, 1]), (3, 2))
    # (tensor([2, 0]), tensor([0, 1]))
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from ..ops._generated import torch_functions as _F

__all__ = ["atleast_1d", "atleast_2d", "atleast_3d", "dim_order", "unravel_index"]


def _one_or_many(fn, tensors):
    # f(x) -> x's result; f(x, y) and f([x, y]) -> a tuple
    if len(tensors) == 1:
        tensors = tensors[0]
    return fn(tensors)


def atleast_1d(*tensors):
    """Each input viewed with at least one dimension (0-d becomes shape ``(1,)``)."""
    return _one_or_many(_F.atleast_1d, tensors)


def atleast_2d(*tensors):
    """Each input viewed with at least two dimensions (1-d ``(n,)`` becomes ``(1, n)``)."""
    return _one_or_many(_F.atleast_2d, tensors)


def atleast_3d(*tensors):
    """Each input viewed with at least three dimensions (``(n,)`` becomes ``(1, n, 1)``,
    ``(m, n)`` becomes ``(m, n, 1)``)."""
    return _one_or_many(_F.atleast_3d, tensors)


def unravel_index(indices, shape):
    """Flat indices into a tensor of ``shape`` turned into one coordinate tensor per dim,
    each of ``indices``' shape (int64)."""
    from .. import Size, tensor
    from .. import bool as _bool
    from .. import int64 as _int64
    dtype = indices.dtype
    if indices.is_complex() or indices.is_floating_point() or dtype is _bool:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {dtype}")
    if not isinstance(shape, (int, Sequence)):
        raise TypeError(f"expected 'shape' to be int or sequence of ints, but got {type(shape)}")
    if isinstance(shape, int):
        shape = Size([shape])
    else:
        for d in shape:
            if not isinstance(d, int):
                raise TypeError(
                    f"expected 'shape' sequence to only contain ints, but got {type(d)}")
        shape = Size(shape)
    if any(d < 0 for d in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {tuple(shape)}")
    # the place value of each dim: the product of the sizes after it
    places = list(itertools.accumulate(reversed(tuple(shape[1:]) + (1,)),
                                       lambda a, b: a * b))[::-1]
    device = indices.device
    coords = indices.unsqueeze(-1).floor_divide(tensor(places, dtype=_int64, device=device)) \
        % tensor(list(shape), dtype=_int64, device=device)
    return coords.unbind(-1)


_AMBIGUOUS_FORMATS = ("The tensor does not have unique dim order, or cannot map to exact one of "
                      "the given memory formats.")


def _order_compare(sizes, strides, a, b):
    """-1 when dim ``a`` must come after ``b`` in the physical order built back-to-front, 1
    when it must be swapped, 0 when undecided (torch's rule for elementwise outputs)."""
    sa, sb = strides[a], strides[b]
    if sa == 0 or sb == 0:
        return 0

    def ge(x, y):
        if y == 0:
            return True
        if x == 0:
            return False
        return x >= y or x % y == 0

    if sa == sb:
        return 0 if ge(sizes[b], sizes[a]) else 1
    if ge(sb, sa):
        return -1
    if ge(sa, sb):
        return 1
    return 0


def _is_contiguous_as(t, fmt) -> bool:
    """``t.is_contiguous(memory_format=fmt)`` by torch's rules (channels-last: dims 1, last,
    ..., 0 from the innermost; size-1 dims are free)."""
    from ..core import layouts
    sizes, strides = tuple(t.shape), t.stride()
    if fmt is layouts.channels_last or fmt is layouts.channels_last_3d:
        ndim = 4 if fmt is layouts.channels_last else 5
        if len(sizes) != ndim:
            return False
        expected = 1
        for d in (1, *range(ndim - 1, 1, -1), 0):
            if sizes[d] != 1:
                if strides[d] != expected:
                    return False
                expected *= sizes[d]
        return True
    return t.is_contiguous()


def _physical_order(t, ambiguity_check):
    sizes, strides = tuple(t.shape), t.stride()
    ndim = len(sizes)
    if ndim == 0:
        return [], False
    if ndim == 1:
        return [0], False
    from ..core import layouts
    contiguous = t.is_contiguous()
    channels_last = _is_contiguous_as(t, layouts.channels_last)
    if contiguous and not channels_last:
        return list(range(ndim)), False
    if channels_last and not contiguous:
        return [0, *range(2, ndim), 1], False
    perm = list(reversed(range(ndim)))
    for i in range(1, ndim):
        d1 = i
        for d0 in reversed(range(i)):
            c = _order_compare(sizes, strides, perm[d0], perm[d1])
            if c > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif c < 0:
                break
    ambiguous = False
    if ambiguity_check:
        ambiguous = any(_order_compare(sizes, strides, perm[i], perm[i + 1]) != -1
                        for i in range(ndim - 1))
    return list(reversed(perm)), ambiguous


def dim_order(self, *, ambiguity_check=False):
    """The dims of ``self`` from the outermost to the innermost in memory.

        strided.empty(2, 3, 5, 7).transpose(1, 2).dim_order()   # (0, 2, 1, 3)
    """
    from ..core.layouts import memory_format
    message = "The ambiguity_check argument must be a bool or a list of memory formats."
    if not isinstance(ambiguity_check, bool):
        if not isinstance(ambiguity_check, list):
            raise TypeError(message)
        for fmt in ambiguity_check:
            if not isinstance(fmt, memory_format):
                raise TypeError(message)
    formats = ambiguity_check if isinstance(ambiguity_check, list) else []
    check_multiple = ambiguity_check if isinstance(ambiguity_check, bool) else True
    sizes, strides = tuple(self.shape), self.stride()
    multiple = any(a == b for a, b in itertools.pairwise(strides)) or any(s == 1 for s in sizes)
    if check_multiple and multiple:
        legal = sum(1 for fmt in formats if _is_contiguous_as(self, fmt))
        if legal != 1:
            raise RuntimeError(_AMBIGUOUS_FORMATS)
    perm, ambiguous = _physical_order(self, ambiguity_check)
    if ambiguous:
        raise RuntimeError("The tensor does not have unique dim order.")
    return tuple(perm)
