"""Broadcasting: the shape rule and the zero-stride views that implement it."""

from __future__ import annotations


def broadcast_pair(a, b) -> tuple:
    """torch's ``infer_size`` for two shapes: align right; sizes must be equal or 1. Dims are
    compared from the last one, so the error names the last mismatching dim."""
    ndim = max(len(a), len(b))
    out = [0] * ndim
    for i in range(ndim - 1, -1, -1):
        ia, ib = i - ndim + len(a), i - ndim + len(b)
        sa = a[ia] if ia >= 0 else 1
        sb = b[ib] if ib >= 0 else 1
        if sa != sb and sa != 1 and sb != 1:
            raise RuntimeError(f"The size of tensor a ({sa}) must match the size of tensor b "
                               f"({sb}) at non-singleton dimension {i}")
        out[i] = sb if sa == 1 else sa
    return tuple(out)


def broadcast_shapes(*shapes) -> tuple:
    """The broadcast of any number of shapes, folded pairwise left to right."""
    result = ()
    for shape in shapes:
        result = broadcast_pair(result, tuple(shape))
    return result


def expanded_strides(sizes, strides, target) -> tuple:
    """Strides that view (sizes, strides) as ``target`` (size-1 and new dims get stride 0).

    Raises torch's message when a non-1 size differs from the target's.
    """
    ndim = len(target)
    offset = ndim - len(sizes)
    out = [0] * ndim
    for i in range(len(sizes)):
        j = offset + i
        size = sizes[i]
        if size == target[j]:
            out[j] = strides[i] if size != 1 else 0 if target[j] != 1 else strides[i]
        elif size == 1:
            out[j] = 0
        else:
            raise RuntimeError(
                f"The size of tensor a ({target[j]}) must match the size of tensor b ({size}) "
                f"at non-singleton dimension {j}")
    return tuple(out)
