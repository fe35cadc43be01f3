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


def _int_range(dtype):
    rng = _INT_RANGES.get(dtype)
    if rng is None:
        import numpy as np
        info = np.iinfo(dtype.np)
        rng = _INT_RANGES[dtype] = (int(info.min), int(info.max))
    return rng


def _real_overflows(value, dtype, check_reduced) -> bool:
    """Whether the real number ``value`` overflows ``dtype`` (c10's checked_convert).

    Integers: out of range, except that unsigned types accept negatives down to -max
    (they wrap, two's complement style); floats must be finite and in range, and are
    not rounded first (255.5 overflows uint8). Floating types: a finite value beyond the
    type's max overflows (infinities and NaN convert); for float16 and bfloat16 torch
    checks only when ``check_reduced`` (not when it fills a one-element tensor)."""
    cat = dtype.category
    if cat == dt.BOOL:
        return False
    if cat == dt.INT:
        lo, hi = _int_range(dtype)
        if isinstance(value, float):
            return not lo <= value <= hi
        if lo == 0:
            return value > hi or (value < 0 and -value > hi)
        return not lo <= value <= hi
    if dtype is dt.float64 or dtype is dt.complex128:
        return False
    if dtype.itemsize == 2 and not check_reduced:
        return False
    if isinstance(value, int):
        value = float(value)
    return math.isfinite(value) and abs(value) > _float_max(dtype)


_FLOAT_MAX = {}


def _float_max(dtype) -> float:
    out = _FLOAT_MAX.get(dtype)
    if out is None:
        real = dtype.to_real()
        out = _FLOAT_MAX[dtype] = dt.finfo(real).max
    return out


def check_scalar_fits(value, dtype, numel: int = 2) -> None:
    """torch refuses a Python scalar that overflows ``dtype`` (see ``_real_overflows``), or
    a complex one with an imaginary part for a real dtype other than bool."""
    tv = type(value)
    if tv is bool:
        return
    if tv is int and not -(1 << 63) <= value < (1 << 64):
        # the range of torch's Scalar (int64, or uint64 for large positives)
        raise OverflowError("can't convert negative int to unsigned" if value < 0 else
                            "int too big to convert")
    if dtype is dt.bool_ or dtype is dt.complex32:   # (c10::complex<Half> converts unchecked)
        return
    check_reduced = numel != 1
    if not check_reduced and dtype.itemsize == 2 and dtype.category == dt.FLOAT:
        # torch fills a one-element half tensor through a double, unchecked
        if isinstance(value, complex) and value.imag != 0:
            raise RuntimeError("value cannot be converted to type double without overflow")
        return
    if tv is complex or isinstance(value, complex):
        if dtype.is_complex:
            bad = (_real_overflows(value.real, dtype, check_reduced)
                   or _real_overflows(value.imag, dtype, check_reduced))
        else:
            bad = value.imag != 0 or _real_overflows(value.real, dtype, check_reduced)
    else:
        bad = _real_overflows(value, dtype, check_reduced)
    if bad:
        _overflow(dtype)


def scalar_to_store(value, dtype):
    """The Python value that ``dtype`` holds for the (already checked) scalar ``value``:
    truncated and wrapped for integers, real part for real types, rounded through float32
    for float16/bfloat16 (c10::Half and c10::BFloat16 are built from a float)."""
    cat = dtype.category
    if cat == dt.BOOL:
        return bool(value)
    if isinstance(value, complex) and cat != dt.COMPLEX:
        value = value.real
    if cat == dt.INT:
        v = int(value)
        lo, hi = _int_range(dtype)
        if lo == 0 and v < 0:
            v %= hi + 1
        return v
    if cat == dt.FLOAT:
        v = float(value)
        if dtype.itemsize == 2:
            import numpy as np
            with np.errstate(over="ignore"):
                v = float(np.float32(v))
        return v
    if dtype is dt.complex32:    # a NumPy scalar of the structured dtype (Note [complex32])
        import numpy as np
        c = np.complex64(complex(value))
        with np.errstate(over="ignore"):
            return np.array((c.real, c.imag), dt.COMPLEX32_NP)[()]
    return complex(value)


def _overflow(dtype):
    raise RuntimeError(
        f"value cannot be converted to type {_C_NAMES[dtype.name]} without overflow")
