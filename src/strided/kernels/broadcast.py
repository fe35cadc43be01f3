"""Broadcasting: the shape rule and the zero-stride views that implement it."""

from __future__ import annotations


def broadcast_shapes(*shapes) -> tuple:
    """torch's rule: align right; sizes must be equal or 1 (error names the mismatch)."""
    ndim = max((len(s) for s in shapes), default=0)
    result = [1] * ndim
    for shape in shapes:
        offset = ndim - len(shape)
        for i, size in enumerate(shape):
            j = offset + i
            cur = result[j]
            if cur == size or size == 1:
                continue
            if cur == 1:
                result[j] = size
                continue
            raise RuntimeError(
                f"The size of tensor a ({cur}) must match the size of tensor b ({size}) at "
                f"non-singleton dimension {j}")
    return tuple(result)


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
