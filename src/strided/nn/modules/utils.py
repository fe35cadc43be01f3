"""torch.nn.modules.utils: the argument normalisers the conv, pooling and padding layers
(and their functional forms) share.

``_pair(3) == (3, 3)``, ``_pair([1, 2]) == (1, 2)``: an iterable is taken as given (as a
tuple), anything else is repeated n times, exactly as torch's ``_ntuple`` does.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import repeat

__all__: list[str] = []


def _ntuple(n, name="parse"):
    def parse(x):
        if isinstance(x, Iterable):
            return tuple(x)
        return tuple(repeat(x, n))

    parse.__name__ = name
    return parse


_single = _ntuple(1, "_single")
_pair = _ntuple(2, "_pair")
_triple = _ntuple(3, "_triple")
_quadruple = _ntuple(4, "_quadruple")


def _reverse_repeat_tuple(t, n):
    """``(a, b) -> (b, b, a, a)`` for n=2: F.pad's order (last dim first) from a
    per-dim padding."""
    return tuple(x for x in reversed(t) for _ in range(n))


def _list_with_default(out_size, defaults):
    """``output_size`` with its None entries replaced by the input's trailing sizes:
    ``_list_with_default([None, 3], (1, 8, 5, 5)) == [5, 3]``."""
    if isinstance(out_size, int):
        return out_size
    if len(defaults) <= len(out_size):
        raise ValueError(f"Input dimension should be at least {len(out_size) + 1}")
    return [v if v is not None else d for v, d in zip(out_size, defaults[-len(out_size):])]
