"""Python-level functions of torch (``torch/functional.py``) for the linear algebra of
issue 14: ``cdist`` (compute modes by name), ``chain_matmul`` (varargs) and ``lu``
(``get_infos`` picks the number of results). They normalise their arguments and call the
generated bindings.

    strided.cdist(x1, x2, p=1.0)
    strided.chain_matmul(a, b, c)
    LU, pivots = strided.lu(A)
"""

from __future__ import annotations

from ..ops._generated import torch_functions as _F

__all__ = ["cdist", "chain_matmul", "lu"]

_COMPUTE_MODES = {"use_mm_for_euclid_dist_if_necessary": None, "use_mm_for_euclid_dist": 1,
                  "donot_use_mm_for_euclid_dist": 2}


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """The p-norm distance between each pair of rows of ``x1`` (..., P, M) and ``x2``
    (..., R, M): a (..., P, R) tensor. For p = 2 and more than 25 rows the distances come
    from matrix products (``compute_mode`` forces or forbids that)."""
    if compute_mode not in _COMPUTE_MODES:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    return _F.cdist(x1, x2, p, _COMPUTE_MODES[compute_mode])


def chain_matmul(*matrices, out=None):
    """The product of the matrices, in the cheapest order (deprecated in torch in favour of
    ``linalg.multi_dot``)."""
    if out is None:
        return _F.chain_matmul(matrices)
    return _F.chain_matmul(matrices, out=out)


def _check_list_size(out_len, get_infos, out):
    if out_len - int(bool(get_infos)) != 2:
        raise TypeError(f"expected tuple of {2 + int(get_infos)} elements but got {out_len}")
    if not isinstance(out, (tuple, list)):
        raise TypeError(f"argument 'out' must be tuple of Tensors, not {type(out).__name__}")


def lu(A, pivot=True, get_infos=False, out=None):
    """The LU factorisation of ``A`` packed as torch.linalg.lu_factor returns it, and the
    pivots; with ``get_infos`` also LAPACK's info per matrix (deprecated in torch)."""
    result = _F._lu_with_info(A, pivot=pivot, check_errors=not get_infos)
    if out is not None:
        _check_list_size(len(out), get_infos, out)
        for i in range(len(out)):
            out[i].resize_as_(result[i]).copy_(result[i])
        return out
    if get_infos:
        return result
    return result[0], result[1]
