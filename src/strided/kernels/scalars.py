"""Python scalars meeting tensors: the dtype a scalar implies and overflow checks."""

from __future__ import annotations

import math

from ..core import dtypes as dt

# The C type names torch uses in its overflow message.
_C_NAMES = {
    "bool": "bool", "uint8": "uint8_t", "int8": "int8_t", "int16": "int16_t",
    "int32": "int", "int64": "int64_t", "uint16": "uint16_t", "uint32": "uint32_t",
    "uint64": "uint64_t", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
    "float32": "float", "float64": "double", "complex64": "c10::complex<float>",
    "complex128": "c10::complex<double>",
}
_INT_RANGES = {}


def scalar_dtype(value) -> dt.dtype:
    """The dtype torch infers for a Python scalar (``full``'s fill_value, ``tensor(3)``)."""
    if isinstance(value, bool):
        return dt.bool_
    if isinstance(value, int):
        return dt.int64
    if isinstance(value, complex):
        return dt.default_complex_dtype()
    return dt._default_dtype[0]


def check_scalar_fits(value, dtype) -> None:
    """torch refuses a scalar that overflows an integer dtype, or a complex one with an
    imaginary part for a real dtype."""
    tv = type(value)
    if dtype.category == dt.INT and tv is int:
        rng = _INT_RANGES.get(dtype)
        if rng is None:
            import numpy as np
            info = np.iinfo(dtype.np)
            rng = _INT_RANGES[dtype] = (int(info.min), int(info.max))
        if not rng[0] <= value <= rng[1]:
            _overflow(dtype)
    elif tv is complex and not dtype.is_complex and value.imag != 0:
        _overflow(dtype)
    elif tv is float and dtype.category == dt.INT:
        if math.isfinite(value):
            rng = _INT_RANGES.get(dtype)
            if rng is None:
                import numpy as np
                info = np.iinfo(dtype.np)
                rng = _INT_RANGES[dtype] = (int(info.min), int(info.max))
            if not rng[0] - 1 < value < rng[1] + 1:
                _overflow(dtype)
        elif dtype is not dt.bool_:
            _overflow(dtype)
    elif tv is float and dtype.category == dt.FLOAT and dtype.itemsize < 8:
        if math.isfinite(value):
            limit = dt.finfo(dtype).max
            if abs(value) > limit * (1 + 2 ** -8):
                _overflow(dtype)


def _overflow(dtype):
    raise RuntimeError(
        f"value cannot be converted to type {_C_NAMES[dtype.name]} without overflow")
