"""torch.nn.functional: cosine_similarity, pairwise_distance, pdist.

torch exposes these as its top-level builtins (``F.pdist is torch.pdist``); so does
strided: each calls the aten operator through the dispatcher.
"""

from __future__ import annotations

from ...ops.dispatcher import get_op as _get_op

__all__ = ["cosine_similarity", "pairwise_distance", "pdist"]

_HANDLES: dict = {}


def _op(qualname: str, *args):
    op = _HANDLES.get(qualname)
    if op is None:
        op = _HANDLES[qualname] = _get_op(qualname)
    ks = 0
    for a in args:
        ks |= getattr(a, "_keyset", 0)
    return op.call(ks, *args)


def pdist(input, p=2):
    """The p-norm distance between every pair of rows of ``input`` (n, m): the upper
    triangle of the distance matrix, row by row, n * (n - 1) / 2 values."""
    return _op("aten::pdist", input, float(p))


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    return _op("aten::cosine_similarity", x1, x2, dim, float(eps))


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    return _op("aten::pairwise_distance", x1, x2, float(p), float(eps), keepdim)
