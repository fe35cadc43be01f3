"""``result_type``: the dtype an operation over tensors and Python scalars computes in.

Operands fall in three priority classes: tensors with at least one dimension,
0-dim tensors, and Python scalars ("wrapped numbers"). Within a class dtypes are
promoted with ``promote_types``; across classes a lower class only matters when
it is of a higher category (bool < int < float < complex) than everything above
it. So ``int32 tensor + 2.5`` is float32 (the default dtype), ``int32 tensor +
int64 0-dim tensor`` stays int32, and ``float16 tensor + float64 0-dim`` stays
float16.
"""

from __future__ import annotations

from . import dtypes as dt


def scalar_type_of_python(value) -> dt.dtype:
    if isinstance(value, bool):
        return dt.bool_
    if isinstance(value, int):
        return dt.int64
    if isinstance(value, float):
        return dt._default_dtype[0]
    if isinstance(value, complex):    # the default dtype's complex type (float16: complex32)
        return dt._default_dtype[0].to_complex()
    raise TypeError(f"result_type: unsupported operand {type(value).__name__}")


def _promote(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return dt.promote(a, b)


def _combine(higher, lower):
    """Let ``lower`` (a lower priority class) raise ``higher`` only across categories."""
    if higher is None:
        return lower
    if lower is None:
        return higher
    if higher.is_complex:
        return higher
    if lower.is_complex:
        return higher.to_complex() if higher.is_floating_point else lower
    if higher.is_floating_point:
        return higher
    if higher is dt.bool_ or lower.is_floating_point:
        return dt.promote(higher, lower)
    return higher


def result_type_of(operands) -> dt.dtype:
    dim_result = zero_result = wrapped_result = None
    for op in operands:
        d = getattr(op, "_dtype", None)
        if d is not None:
            if op._sizes:
                dim_result = _promote(dim_result, d)
            else:
                zero_result = _promote(zero_result, d)
        else:
            wrapped_result = _promote(wrapped_result, scalar_type_of_python(op))
    return _combine(dim_result, _combine(zero_result, wrapped_result))
