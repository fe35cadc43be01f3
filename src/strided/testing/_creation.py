"""``make_tensor``: a tensor of a shape and dtype filled with uniform random values.

The draws are torch's, in torch's order (``randint`` for bool and integer dtypes,
``uniform_`` for floating and complex ones, over the real view of a complex tensor), so
after the same seed both libraries make the same tensor.
"""

from __future__ import annotations

import collections.abc
import math
import warnings

import strided
from strided.core import dtypes as dt

_INTEGRAL = (dt.uint8, dt.int8, dt.int16, dt.int32, dt.int64, dt.uint16, dt.uint32, dt.uint64)
_FLOATING = (dt.float16, dt.bfloat16, dt.float32, dt.float64)
_COMPLEX = (dt.complex64, dt.complex128)


def _bounds(low, high, dtype, *, lowest, highest, default_low, default_high):
    """The user's [low, high) checked, clamped to what the dtype holds, and rounded up
    to integers for integral dtypes."""
    low = default_low if low is None else low
    high = default_high if high is None else high
    if any(isinstance(v, float) and math.isnan(v) for v in (low, high)):
        raise ValueError(f"`low` and `high` cannot be NaN, but got low={low} and high={high}")
    if low == high and dtype in _FLOATING + _COMPLEX:
        warnings.warn("Passing `low==high` to `torch.testing.make_tensor` for floating or "
                      "complex types is deprecated since 2.1 and will be removed in 2.3. Use "
                      "`torch.full(...)` instead.", FutureWarning, stacklevel=3)
    elif low >= high:
        raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
    elif high < lowest or low >= highest:
        raise ValueError(f"The value interval specified by `low` and `high` is [{low}, "
                         f"{high}), but {dtype} only supports [{lowest}, {highest})")
    low, high = min(max(low, lowest), highest), min(max(high, lowest), highest)
    if dtype is dt.bool_ or dtype in _INTEGRAL:
        return math.ceil(low), math.ceil(high)
    return low, high


def make_tensor(*shape, dtype, device, low=None, high=None, requires_grad=False,
                noncontiguous=False, exclude_zero=False, memory_format=None):
    """A tensor of ``shape`` with values drawn uniformly from ``[low, high)`` (defaults by
    dtype: bool [0, 2), unsigned [0, 10), signed [-9, 10), floating and complex [-9, 9))."""
    if len(shape) == 1 and isinstance(shape[0], collections.abc.Sequence):
        shape = shape[0]
    shape = tuple(shape)
    if noncontiguous and memory_format is not None:
        raise ValueError("The parameters `noncontiguous` and `memory_format` are mutually "
                         f"exclusive, but got noncontiguous={noncontiguous} and "
                         f"memory_format={memory_format}")
    if requires_grad and (dtype is dt.bool_ or dtype in _INTEGRAL):
        raise ValueError("`requires_grad=True` is not supported for boolean and integral "
                         f"dtypes, but got dtype={dtype}")
    noncontiguous = noncontiguous and math.prod(shape) > 1
    if noncontiguous:
        shape = (*shape[:-1], 2 * shape[-1])
    if dtype is dt.bool_:
        low, high = _bounds(low, high, dtype, lowest=0, highest=2, default_low=0,
                            default_high=2)
        result = strided.randint(low, high, shape, device=device, dtype=dtype)
    elif dtype in _INTEGRAL:
        info = strided.iinfo(dtype)
        low, high = _bounds(low, high, dtype, lowest=info.min,
                            highest=info.max + (1 if dtype is not dt.int64 else 0),
                            default_low=-9, default_high=10)
        result = strided.randint(low, high, shape, device=device, dtype=dtype)
    elif dtype in _FLOATING + _COMPLEX:
        info = strided.finfo(dtype)
        low, high = _bounds(low, high, dtype, lowest=info.min, highest=info.max,
                            default_low=-9, default_high=9)
        result = strided.empty(shape, device=device, dtype=dtype)
        target = strided.view_as_real(result) if dtype in _COMPLEX else result
        if high - low >= strided.finfo(target.dtype).max:
            target.uniform_(low / 2, high / 2).mul_(2)
        else:
            target.uniform_(low, high)
    else:
        raise TypeError(f"The requested dtype '{dtype}' is not supported by "
                        "torch.testing.make_tensor(). To request support, file an issue at: "
                        "https://github.com/pytorch/pytorch/issues")
    if noncontiguous:
        result = result[..., 1::2]
    elif memory_format is not None:
        result = result.clone(memory_format=memory_format)
    if exclude_zero:
        result[result == 0] = (1 if dtype is dt.bool_ or dtype in _INTEGRAL
                               else strided.finfo(dtype).tiny)
    if dtype in _FLOATING + _COMPLEX:
        result.requires_grad = requires_grad
    return result
