"""Backward helpers whose result layout follows torch's (issue 15, memory formats).

torch's ``mm_mat1_backward`` / ``mm_mat2_backward`` return the gradient of a column-major
(transposed) matrix operand column-major too: the product is taken the other way round and
transposed back. The layout of such a gradient is observable: AccumulateGrad keeps it when
it obeys the leaf's layout contract (Note [Gradient layout contract] in engine.py), so a
``Linear`` weight with one output row gets torch's strides."""

from __future__ import annotations

from ..core.layouts import strided as _STRIDED
from .formulas import conj_if_complex
from .formulas_linalg import linalg_scale

__all__ = ["mm_mat1_backward", "mm_mat2_backward"]


def _column_major(sizes, strides) -> bool:
    return strides is not None and len(strides) == 2 and strides[0] == 1 and \
        strides[1] == sizes[0]


def _strided(t) -> bool:
    return t.layout is _STRIDED


def mm_mat1_backward(grad, mat2, mat1_sizes, mat1_strides, alpha=1):
    """Gradient of ``mat1`` in ``mat1 @ mat2`` (times ``alpha``)."""
    if _column_major(mat1_sizes, mat1_strides) and _strided(grad) and _strided(mat2):
        out = conj_if_complex(mat2).mm(grad.t()).t()
    else:
        out = grad.mm(conj_if_complex(mat2).t())
    return linalg_scale(out, alpha)


def mm_mat2_backward(grad, mat1, mat2_sizes, mat2_strides, alpha=1):
    """Gradient of ``mat2`` in ``mat1 @ mat2`` (times ``alpha``)."""
    if _column_major(mat2_sizes, mat2_strides) and _strided(grad) and _strided(mat1):
        out = grad.t().mm(conj_if_complex(mat1)).t()
    else:
        out = conj_if_complex(mat1).t().mm(grad)
    return linalg_scale(out, alpha)
