"""``assert_close``: whether two (nested) values are close, with torch's messages.

The inputs are first taken apart into pairs of leaves (sequences and mappings are
walked, their lengths and keys checked), then each pair is compared in order, the first
failure raising. A leaf pair is ``None``s, booleans, Python or NumPy numbers, or
tensor-likes (tensors, or any two directly related objects ``as_tensor`` accepts).
Tolerances default by dtype, the looser of the two inputs'.
"""

from __future__ import annotations

import cmath
import collections.abc
import math
import warnings

import numpy as np

import strided
from strided.core import dtypes as dt

DTYPE_PRECISIONS = {  # dtype -> (rtol, atol)
    dt.float16: (0.001, 1e-5), dt.bfloat16: (0.016, 1e-5), dt.float32: (1.3e-6, 1e-5),
    dt.float64: (1e-7, 1e-7), dt.complex64: (1.3e-6, 1e-5), dt.complex128: (1e-7, 1e-7),
}
_NUMBER_DTYPES = {int: dt.int64, float: dt.float64, complex: dt.complex128}


class _Failure(Exception):
    """A mismatch found while pairing or comparing: its exception type, message and the
    path (``id``) of the item it occurred for."""

    def __init__(self, kind: type[Exception], msg: str, id: tuple = ()):
        super().__init__(msg)
        self.kind, self.msg, self.id = kind, msg, id

    def to_error(self, msg=None) -> Exception:
        if isinstance(msg, str):
            return self.kind(msg)
        text = self.msg
        if self.id:
            text += f"\n\nThe failure occurred for item {''.join(str([i]) for i in self.id)}"
        return self.kind(msg(text) if callable(msg) else text)


class _Unsupported(Exception):
    pass


def _type_repr(t: type) -> str:
    return "<class 'torch.Tensor'>" if issubclass(t, strided.Tensor) else str(t)


def _tolerances(dtypes, rtol, atol, id):
    if (rtol is None) ^ (atol is None):
        raise _Failure(ValueError, "Both 'rtol' and 'atol' must be either specified or "
                       f"omitted, but got no {'rtol' if rtol is None else 'atol'}.", id)
    if rtol is not None:
        return rtol, atol
    rtols, atols = zip(*[DTYPE_PRECISIONS.get(d, (0.0, 0.0)) for d in dtypes])
    return max(rtols), max(atols)


def _mismatch_msg(identifier, extra, abs_diff, abs_idx, atol, rel_diff, rel_idx, rtol):
    equality = rtol == 0 and atol == 0

    def line(kind, diff, idx, tol):
        text = (f"{kind.title()} difference: {diff}" if idx is None
                else f"Greatest {kind} difference: {diff} at index {idx}")
        return text + ("" if equality else f" (up to {tol} allowed)") + "\n"

    text = f"{identifier} are not {'equal' if equality else 'close'}!\n\n"
    if extra:
        text += f"{extra.strip()}\n"
    text += line("absolute", abs_diff, abs_idx, atol) + line("relative", rel_diff, rel_idx,
                                                               rtol)
    return text.strip()


def _scalar_msg(actual, expected, rtol, atol) -> str:
    abs_diff = abs(actual - expected)
    rel_diff = float("inf") if expected == 0 else abs_diff / abs(expected)
    return _mismatch_msg("Scalars", f"Expected {expected} but got {actual}.", abs_diff, None,
                         atol, rel_diff, None, rtol)


# -- leaf pairs -------------------------------------------------------------------------------

def _is_number(x) -> bool:
    return (isinstance(x, (int, float, complex, np.number)) and not isinstance(x, bool))


def _compare_none(actual, expected, id, opts):
    if not (actual is None and expected is None):
        raise _Failure(AssertionError, f"None mismatch: {actual} is not {expected}", id)


def _compare_bool(actual, expected, id, opts):
    if bool(actual) is not bool(expected):
        raise _Failure(AssertionError, f"Booleans mismatch: {actual} is not {expected}", id)


def _number_dtype(x):
    if isinstance(x, np.number):
        return dt.from_numpy_dtype(x.dtype)
    return _NUMBER_DTYPES[type(x)] if type(x) in _NUMBER_DTYPES else _NUMBER_DTYPES[
        next(t for t in (complex, float, int) if isinstance(x, t))]


def _compare_numbers(actual, expected, id, opts):
    if opts["check_dtype"] and type(actual) is not type(expected):
        raise _Failure(AssertionError, f"The (d)types do not match: {type(actual)} != "
                       f"{type(expected)}.", id)
    rtol, atol = _tolerances((_number_dtype(actual), _number_dtype(expected)), opts["rtol"],
                             opts["atol"], id)
    a, e = complex(actual), complex(expected)
    if opts["equal_nan"] and cmath.isnan(a) and cmath.isnan(e):
        return
    diff = abs(a - e)
    if math.isfinite(diff) and diff <= atol + rtol * abs(e):
        return
    if a == e:                                     # equal infinities
        return
    raise _Failure(AssertionError, _scalar_msg(actual, expected, rtol, atol), id)


def _as_tensor(x):
    if isinstance(x, strided.Tensor):
        return x
    try:
        return strided.as_tensor(x)
    except Exception:  # noqa: BLE001 - anything as_tensor refuses is not a tensor-like
        raise _Unsupported from None


def _attribute_mismatch(name, a, e, id):
    raise _Failure(AssertionError, f"The values for attribute '{name}' do not match: {a} != "
                   f"{e}.", id)


def _compare_tensors(actual, expected, id, opts):
    related = isinstance(actual, type(expected)) or isinstance(expected, type(actual))
    if not related or (not opts["allow_subclasses"] and type(actual) is not type(expected)):
        raise _Unsupported
    actual, expected = _as_tensor(actual), _as_tensor(expected)
    rtol, atol = _tolerances((actual.dtype, expected.dtype), opts["rtol"], opts["atol"], id)
    if actual.shape != expected.shape:
        _attribute_mismatch("shape", actual.shape, expected.shape, id)
    if actual.layout != expected.layout:
        if opts["check_layout"]:
            _attribute_mismatch("layout", actual.layout, expected.layout, id)
    elif opts["check_stride"] and actual.stride() != expected.stride():
        _attribute_mismatch("stride()", actual.stride(), expected.stride(), id)
    if opts["check_device"] and actual.device != expected.device:
        _attribute_mismatch("device", actual.device, expected.device, id)
    if opts["check_dtype"] and actual.dtype != expected.dtype:
        _attribute_mismatch("dtype", actual.dtype, expected.dtype, id)
    if "meta" in (actual.device.type, expected.device.type):
        return
    actual, expected = actual.detach(), expected.detach()
    if actual.dtype != expected.dtype:
        wide = [dt.int64 if d in (dt.uint16, dt.uint32, dt.uint64) else d
                for d in (actual.dtype, expected.dtype)]
        common = strided.promote_types(*wide)
        actual, expected = actual.to(common), expected.to(common)
    matches = strided.isclose(actual, expected, rtol=rtol, atol=atol,
                              equal_nan=opts["equal_nan"])
    if bool(matches.all()):
        return
    if actual.dim() == 0:
        raise _Failure(AssertionError, _scalar_msg(actual.item(), expected.item(), rtol, atol),
                       id)
    raise _Failure(AssertionError, _tensor_msg(actual, expected, matches, rtol, atol), id)


def _tensor_msg(actual, expected, matches, rtol, atol) -> str:
    total = matches.numel()
    mismatched = total - int(matches.sum())
    extra = f"Mismatched elements: {mismatched} / {total} ({mismatched / total:.1%})"
    a, e, same = actual.flatten(), expected.flatten(), matches.flatten()
    if not (a.dtype.is_floating_point or a.dtype.is_complex):
        a, e = a.to(dt.int64), e.to(dt.int64)
    abs_diff = (a - e).abs()
    abs_diff[same] = 0
    max_abs, abs_at = strided.max(abs_diff, 0)
    rel_diff = abs_diff / e.abs()
    rel_diff[same] = 0
    max_rel, rel_at = strided.max(rel_diff, 0)
    shape = tuple(matches.shape)

    def unravel(flat: int) -> tuple:
        index = []
        for size in reversed(shape):
            flat, rem = divmod(flat, size)
            index.append(rem)
        return tuple(reversed(index))

    return _mismatch_msg("Tensor-likes", extra, max_abs.item(), unravel(int(abs_at)), atol,
                         max_rel.item(), unravel(int(rel_at)), rtol)


def _leaf_comparison(actual, expected, id, opts):
    """The comparison for a pair of leaves: torch's pair types, in torch's order."""
    if actual is None or expected is None:
        return _compare_none
    if isinstance(actual, (bool, np.bool_)) and isinstance(expected, (bool, np.bool_)):
        return _compare_bool
    if _is_number(actual) and _is_number(expected):
        return _compare_numbers
    try:
        related = isinstance(actual, type(expected)) or isinstance(expected, type(actual))
        if related and (opts["allow_subclasses"] or type(actual) is type(expected)):
            _as_tensor(actual), _as_tensor(expected)
            return _compare_tensors
    except _Unsupported:
        pass
    raise _Failure(TypeError, "No comparison pair was able to handle inputs of type "
                   f"{_type_repr(type(actual))} and {_type_repr(type(expected))}.", id)


def _pairs(actual, expected, id, opts) -> list:
    """Every leaf pair with its comparison, sequences and mappings checked on the way."""
    def is_sequence(x):
        return isinstance(x, collections.abc.Sequence) and not isinstance(x, str)

    if is_sequence(actual) and is_sequence(expected):
        if len(actual) != len(expected):
            raise _Failure(AssertionError, f"The length of the sequences mismatch: "
                           f"{len(actual)} != {len(expected)}", id)
        return [p for i in range(len(actual))
                for p in _pairs(actual[i], expected[i], (*id, i), opts)]
    if isinstance(actual, collections.abc.Mapping) and isinstance(expected,
                                                                  collections.abc.Mapping):
        keys_a, keys_e = set(actual.keys()), set(expected.keys())
        if keys_a != keys_e:
            raise _Failure(AssertionError, "The keys of the mappings do not match:\n"
                           f"Missing keys in the actual mapping: {sorted(keys_e - keys_a)}\n"
                           f"Additional keys in the actual mapping: "
                           f"{sorted(keys_a - keys_e)}", id)
        try:
            keys = sorted(keys_a)
        except TypeError:
            keys = list(keys_a)
        return [p for k in keys for p in _pairs(actual[k], expected[k], (*id, k), opts)]
    return [(_leaf_comparison(actual, expected, id, opts), actual, expected, id)]


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None,
                 equal_nan=False, check_device=True, check_dtype=True, check_layout=True,
                 check_stride=False, msg=None):
    """Raise (torch's exception and message) unless ``actual`` and ``expected`` are close:
    ``|actual - expected| <= atol + rtol * |expected|`` elementwise, with the same shape and,
    unless disabled, the same device, dtype and layout."""
    __tracebackhide__ = True
    opts = dict(allow_subclasses=allow_subclasses, rtol=rtol, atol=atol, equal_nan=equal_nan,
                check_device=check_device, check_dtype=check_dtype, check_layout=check_layout,
                check_stride=check_stride)
    try:
        for compare, a, e, id in _pairs(actual, expected, (), opts):
            compare(a, e, id, opts)
    except _Failure as failure:
        raise failure.to_error(msg) from None


def assert_allclose(actual, expected, rtol=None, atol=None, equal_nan=True, msg=""):
    """Deprecated: ``assert_close`` with dtype checks off and looser default tolerances."""
    warnings.warn("`torch.testing.assert_allclose()` is deprecated since 1.12 and will be "
                  "removed in a future release. Please use `torch.testing.assert_close()` "
                  "instead. You can find detailed upgrade instructions in "
                  "https://github.com/pytorch/pytorch/issues/61844.", FutureWarning,
                  stacklevel=2)
    if not isinstance(actual, strided.Tensor):
        actual = strided.tensor(actual)
    if not isinstance(expected, strided.Tensor):
        expected = strided.tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        loose = {dt.float16: (1e-3, 1e-3), dt.float32: (1e-4, 1e-5), dt.float64: (1e-5, 1e-8)}
        rtol = max(loose.get(d, (0.0, 0.0))[0] for d in (actual.dtype, expected.dtype))
        atol = max(loose.get(d, (0.0, 0.0))[1] for d in (actual.dtype, expected.dtype))
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan,
                 check_device=True, check_dtype=False, check_stride=False, msg=msg or None)
