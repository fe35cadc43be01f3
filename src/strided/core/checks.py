"""Check helpers: a condition, a lazily built message, torch's exception class.

    check_index(i < n, lambda: f"index {i} is out of bounds for dimension 0 with size {n}")

The message is a callable so that the success path builds no string.
"""

from __future__ import annotations


def check(cond, message, exc=RuntimeError) -> None:
    if not cond:
        raise exc(message() if callable(message) else message)


def check_index(cond, message) -> None:
    check(cond, message, IndexError)


def check_value(cond, message) -> None:
    check(cond, message, ValueError)


def check_type(cond, message) -> None:
    check(cond, message, TypeError)


def maybe_wrap_dim(dim: int, ndim: int, wrap_scalar: bool = True) -> int:
    """Turn a possibly negative ``dim`` into an index in ``range(ndim)`` (torch's errors)."""
    if ndim <= 0:
        if not wrap_scalar:
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        ndim = 1
    lo, hi = -ndim, ndim - 1
    if dim < lo or dim > hi:
        raise IndexError(f"Dimension out of range (expected to be in range of [{lo}, {hi}], "
                         f"but got {dim})")
    return dim + ndim if dim < 0 else dim
