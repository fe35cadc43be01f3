"""``layout`` and ``memory_format``: small singleton enums with torch's names."""

from __future__ import annotations

__all__ = [
    "channels_last",
    "channels_last_3d",
    "contiguous_format",
    "layout",
    "memory_format",
    "preserve_format",
    "sparse_coo",
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
contiguous_format = memory_format("contiguous_format")
preserve_format = memory_format("preserve_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")
