"""``layout`` and ``memory_format``: small singleton enums with torch's names."""

from __future__ import annotations

__all__ = [
    "channels_last",
    "channels_last_3d",
    "contiguous_format",
    "layout",
    "memory_format",
    "preserve_format",
    "sparse_bsc",
    "sparse_bsr",
    "sparse_coo",
    "sparse_csc",
    "sparse_csr",
    "strided",
]


class layout:
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return "torch." + self.name

    def __reduce__(self):
        return self.name


class memory_format:
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return "torch." + self.name

    def __reduce__(self):
        return self.name


strided = layout("strided")
sparse_coo = layout("sparse_coo")
sparse_csr = layout("sparse_csr")
sparse_csc = layout("sparse_csc")
sparse_bsr = layout("sparse_bsr")
sparse_bsc = layout("sparse_bsc")
contiguous_format = memory_format("contiguous_format")
preserve_format = memory_format("preserve_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")


_CHANNELS_LAST_ORDERS = {4: (1, 3, 2, 0), 5: (1, 4, 3, 2, 0)}


def channels_last_order(sizes, strides):
    """The dims from innermost to outermost when ``(sizes, strides)`` is laid out
    channels-last (N, [D,] H, W, C), else None: torch's rule in ``suggest_memory_format``.
    Walking out from C, the strides must not decrease; the ambiguous cases (C of stride
    0, N sharing C's stride) count as contiguous."""
    order = _CHANNELS_LAST_ORDERS.get(len(sizes))
    if order is None or strides[1] == 0:
        return None
    smallest = 0
    for d in order:
        if sizes[d] == 0 or strides[d] < smallest:
            return None
        if d == 0 and smallest == strides[1]:
            return None
        smallest = strides[d] * (sizes[d] if sizes[d] > 1 else 1)
    return order


def suggest_memory_format(sizes, strides):
    """torch's ``suggest_memory_format``: ``channels_last`` (``channels_last_3d``) for a 4-d
    (5-d) tensor whose strides order the dims N, H, W, C (N, D, H, W, C), else
    ``contiguous_format``. Kernels that lay their result out like their input (pads, pools,
    convolutions, norms, upsampling) allocate it in this format."""
    if channels_last_order(sizes, strides) is None:
        return contiguous_format
    return channels_last if len(sizes) == 4 else channels_last_3d
