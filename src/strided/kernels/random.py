"""Random sampling kernels: factories (``rand``, ``randn``, ``randint``, ``randperm``, the
``*_like`` forms, ``normal``), in-place samplers (``uniform_``, ``normal_``, ``random_``,
``bernoulli_``, ``exponential_``, ``geometric_``, ``log_normal_``, ``cauchy_``) and
``bernoulli``, ``multinomial``, ``poisson``.

Every kernel draws from a ``Generator`` (the default one when ``generator`` is None) and
gives the numbers torch gives after the same seed (Note [Bit-exact sampling] in
_distributions.py). Values are written in torch's element order: a nullary
TensorIterator walks the output in memory order (dimensions sorted by stride), so a
transposed tensor receives the stream in its storage order, not in index order.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from ..core import dtypes as dt
from ..core.checks import check
from ..core.devices import CPU as _CPU
from ..core.devices import DEFAULT_DEVICE as _DEFAULT_DEVICE
from ..core.generator import default_generator
from ..core.layouts import contiguous_format
from ..core.tensor_impl import (
    compute_is_contiguous,
    contiguous_strides,
    new_cpu_tensor,
    numel_of,
)
from . import _distributions as D
from .factory import _fresh, empty, empty_like
from .memory_overlap import assert_no_internal_overlap
from .resize import resize_impl, resize_output

_FLOATS = ("float16", "bfloat16", "float32", "float64")
_F32 = dt.float32
_DEFAULT_DTYPE = dt._default_dtype
_CPP_NAMES = {
    "bool": "bool", "uint8": "unsigned char", "int8": "signed char", "int16": "short int",
    "int32": "int", "int64": "long int", "uint16": "short unsigned int",
    "uint32": "unsigned int", "uint64": "long unsigned int", "float16": "c10::Half",
    "bfloat16": "c10::BFloat16", "float32": "float", "float64": "double",
}


def _gen(generator):
    return default_generator if generator is None else generator


def _fmt(v: float) -> str:
    """A double as C++ streams it (``%g``)."""
    return f"{v:g}"


def _not_implemented(kernel: str, t) -> NotImplementedError:
    return NotImplementedError(f'"{kernel}" not implemented for \'{t._dtype._scalar_name}\'')


def _is_meta(t) -> bool:
    return t._storage._buf is None


# -- writing a stream of values into a tensor ---------------------------------------------------

def _iter_view(t) -> np.ndarray:
    """``t``'s NumPy view with its dimensions in TensorIterator order (largest stride
    first), so that C order is the order torch's kernels visit the elements."""
    arr = t._array()
    strides = t._strides
    if t._dtype.is_complex:
        # a new last axis first: NumPy cannot change the itemsize of a 0-dim array's view
        arr = np.expand_dims(arr, -1).view(t._dtype.to_real().np)
        strides = tuple(2 * s for s in strides) + (1,)
    if arr.ndim > 1 and strides != contiguous_strides(arr.shape):
        order = sorted(range(arr.ndim), key=lambda d: -strides[d] if arr.shape[d] > 1 else 0)
        arr = arr.transpose(order)
    return arr


def _write(t, values: np.ndarray) -> None:
    view = _iter_view(t)
    view[...] = values.reshape(view.shape)


def _flat(t) -> np.ndarray:
    """The elements of a contiguous tensor as a 1-d NumPy view (complex as real pairs)."""
    arr = t._array().reshape(-1)
    if t._dtype.is_complex:
        arr = arr.view(t._dtype.to_real().np)
    return arr


def _numel(t) -> int:
    n = numel_of(t._sizes)
    return 2 * n if t._dtype.is_complex else n


def _real_name(t) -> str:
    d = t._dtype
    return d.to_real().name if d.is_complex else d.name


def _prepare_inplace(t) -> bool:
    """Common start of an in-place sampler: False when there is nothing to draw."""
    if _is_meta(t):
        return False
    if not compute_is_contiguous(t._sizes, t._strides):   # (else no two elements share one
        assert_no_internal_overlap(t)                    # address)
    return numel_of(t._sizes) > 0


# -- uniform_ ---------------------------------------------------------------------------------

_LIMITS = {"float16": 65504.0, "bfloat16": 3.3895313892515355e38,
           "float32": 3.4028234663852886e38, "float64": 1.7976931348623157e308}


def _check_uniform(t, lo, hi):
    name = _real_name(t)
    if name not in _FLOATS:
        raise _not_implemented("check_uniform_bounds", t)
    limit = _LIMITS[name]
    cpp = _CPP_NAMES[name]
    check(-limit <= lo <= limit, lambda: f"from is out of bounds for {cpp}")
    check(-limit <= hi <= limit, lambda: f"to is out of bounds for {cpp}")
    check(lo <= hi, lambda: (f"uniform_ expects to return a [from, to) range, but found "
                             f"from={_fmt(lo)} > to={_fmt(hi)}"))
    check(hi - lo <= limit, lambda: (
        f"uniform_ expects to-from <= std::numeric_limits<{t._dtype.to_real()._scalar_name}"
        f">::max(), but found to={_fmt(hi)} and from={_fmt(lo)} which result in to-from to "
        f"exceed the limit"))


def _uniform(t, lo, hi, generator):
    _check_uniform(t, lo, hi)
    if not _prepare_inplace(t):
        return t
    name = _real_name(t)
    gen = _gen(generator)
    if name == "float32" and lo == 0.0 and hi == 1.0 and \
            compute_is_contiguous(t._sizes, t._strides):
        D.u24(gen, _numel(t), _flat(t))
        return t
    _write(t, D.uniform(gen, _numel(t), dt._BY_NAME[name].np, lo, hi))
    return t


def uniform_(self, from_=0.0, to=1.0, generator=None):
    _uniform(self, from_, to, generator)
    self._vc[0] += 1
    return self


# -- normal_ ----------------------------------------------------------------------------------

def _check_std(std):
    check(not math.isnan(std) and std >= 0.0,
          lambda: f"normal expects std >= 0.0, but found std {_fmt(std)}")


def _normal(t, mean, std, generator):
    """torch's ``normal_kernel`` (Note [normal's two algorithms] in _distributions.py)."""
    _check_std(std)
    name = _real_name(t)
    if name not in _FLOATS:
        raise _not_implemented("normal_kernel_cpu", t)
    if _is_meta(t):
        return t
    contiguous = compute_is_contiguous(t._sizes, t._strides)
    if not contiguous:             # (a contiguous tensor has no two elements at one address)
        assert_no_internal_overlap(t)
    if t._dtype.is_complex:
        std = std / math.sqrt(2)   # torch samples view_as_real(self) with std / sqrt(2)
    n = _numel(t)
    if n == 0:
        return t
    gen = _gen(generator)
    np_dtype = dt._BY_NAME[name].np
    if n >= 16 and contiguous:
        if name == "float32":
            D.normal_fill_f32(gen, n, mean, std, _flat(t))
            return t
        if name == "float64":
            values = D.normal_fill_f64(gen, n, mean, std)
        else:
            values = D.normal_fill_f32(gen, n, mean, std, reduced=True).astype(np_dtype)
    else:
        values = D.to_dtype(D.normal_scalar(gen, n, mean, std), np_dtype)
    _write(t, values)
    return t


def normal_(self, mean=0.0, std=1.0, generator=None):
    _normal(self, mean, std, generator)
    self._vc[0] += 1
    return self


# -- random_ ------------------------------------------------------------------------------------

_DIGITS = {"float16": 11, "bfloat16": 8, "float32": 24, "float64": 53}
_WIDE = ("int64", "float64", "float32", "bfloat16")
_I64_MIN = -(1 << 63)
_I64_MAX = (1 << 63) - 1


def _to_double(v: int) -> float:
    return float(v)


def _cast_int(v: int, name: str) -> int:
    """``static_cast<int64_t>(static_cast<scalar_t>(v))`` for a floating ``scalar_t``."""
    f = np.array([float(v)], np.float64).astype(np.float32).astype(dt._BY_NAME[name].np) \
        if name != "float64" else np.array([float(v)])
    return int(f.astype(np.float64)[0])


def _update_from(v: int, name: str) -> int:
    plus1 = _cast_int(v + 1, name)
    if plus1 < v:
        mag = abs(v + 1)
        n = mag.bit_length() - 1 if mag else 0
        v = plus1 + (1 << (n - _DIGITS[name] + 1))
    return v


def _update_to(v: int, name: str) -> int:
    minus1 = _cast_int(v - 1, name)
    if minus1 >= v:
        mag = abs(v - 1)
        n = mag.bit_length() - 1 if mag else 0
        v = minus1 - (1 << (n - _DIGITS[name] + 1))
    return v


def _int_bounds(name: str):
    if name == "bool":
        return 0, 1
    info = np.iinfo(np.dtype(name))
    return int(info.min), int(info.max)


def _check_from_to_in_range(lo: int, to_inc: int, t) -> None:
    name = t._dtype.name
    cpp = _CPP_NAMES.get(name)
    if name in _FLOATS:
        limit = _LIMITS[name]
        check(-limit <= lo <= limit, lambda: f"from is out of bounds for {cpp}")
        check(-limit <= to_inc <= limit, lambda: f"to - 1 is out of bounds for {cpp}")
        digits = _DIGITS[name]
        for var, label in ((lo, "from"), (to_inc, "to - 1")):
            if var < -(1 << digits) or var > (1 << digits):
                warnings.warn(
                    f"{label} is out of bounds [-(2^{digits}), 2^{digits}]. Due to precision "
                    f"limitations {cpp} can support discrete uniform distribution only within "
                    f"this range. This warning will become an error in version 1.7 release, "
                    f"please fix the code in advance", UserWarning, stacklevel=4)
    elif name == "uint64":
        check(0 <= lo <= _I64_MAX, lambda: f"from is out of bounds for {cpp}")
        check(0 <= to_inc <= _I64_MAX, lambda: f"to - 1 is out of bounds for {cpp}")
    elif cpp is not None and not t._dtype.is_complex:
        mn, mx = _int_bounds(name)
        check(mn <= lo <= mx, lambda: f"from is out of bounds for {cpp}")
        check(mn <= to_inc <= mx, lambda: f"to - 1 is out of bounds for {cpp}")
    else:
        raise RuntimeError("check_random_bounds handles only integral, floating-point and "
                           "boolean types")


def _write_ints(t, values: np.ndarray) -> None:
    """``static_cast<scalar_t>(int64)``: half and bfloat16 through float."""
    name = t._dtype.name
    if name in ("float16", "bfloat16"):
        values = values.astype(np.float32)
    _write(t, values.astype(t._dtype.np))


def _random_from_to(t, lo: int, to, generator):
    name = t._dtype.name
    if to is not None:
        check(lo < to, lambda: (f"random_ expects 'from' to be less than 'to', but got "
                                f"from={lo} >= to={to}"))
        if name in _FLOATS:
            lo = _update_from(lo, name)
            to = _update_to(to, name)
            check(lo < to, lambda: (
                f"random_ expects 'from' casted to dtype to be less than 'to' casted to dtype, "
                f"but got from={lo} >= to={to}"))
        _check_from_to_in_range(lo, to - 1, t)
        span = to - lo
    elif lo != _I64_MIN:
        if name in _FLOATS:
            to_inc = min(1 << _DIGITS[name], _I64_MAX)
            lo = _update_from(lo, name)
            check(lo < to_inc, lambda: (
                f"random_ expects 'from' casted to dtype to be less than or equal to 'to_inc' "
                f"casted to dtype, but got from={lo} > to_inc={to_inc}"))
        elif t._dtype.category in (dt.INT, dt.BOOL) and not t._dtype.is_complex:
            to_inc = _int_bounds(name)[1]
        else:
            raise RuntimeError("random_from_to_impl handles only integral, floating-point and "
                               "boolean types")
        _check_from_to_in_range(lo, to_inc, t)
        span = to_inc - lo + 1
    else:
        span = None
    if _is_meta(t) or numel_of(t._sizes) == 0:
        return t
    assert_no_internal_overlap(t)
    if name in ("uint16", "uint32", "uint64") or t._dtype.is_complex:
        kernel = "random_full_64_bits_range_kernel_cpu" if span is None else \
            "random_from_to_kernel_cpu"
        raise _not_implemented(kernel, t)
    gen = _gen(generator)
    n = numel_of(t._sizes)
    if span is None:
        check(name in _WIDE, "random_full_64_bits_range_kernel_cpu handles only int64, double, "
                             "float and bfloat16")
        values = D.random_full_64(gen, n)
    else:
        values = D.random_from_to(gen, n, span, lo, span >= 1 << 32)
    _write_ints(t, values)
    return t


def random_(self, generator=None):
    if not _is_meta(self) and numel_of(self._sizes):
        name = self._dtype.name
        if name in ("uint16", "uint32", "uint64") or self._dtype.is_complex:
            raise _not_implemented("random_kernel_cpu", self)
        assert_no_internal_overlap(self)
        _write_ints(self, D.random_default(_gen(generator), numel_of(self._sizes), name))
    self._vc[0] += 1
    return self


def random_from(self, from_, to=None, generator=None):
    _random_from_to(self, from_, to, generator)
    self._vc[0] += 1
    return self


def random_to(self, to, generator=None):
    _random_from_to(self, 0, to, generator)
    self._vc[0] += 1
    return self


# -- the other in-place samplers ------------------------------------------------------------------

def _sample_double(t, kernel_name: str, sampler, *args, generator=None):
    """Fill ``t`` from a float64 sampler, cast as ``static_cast<scalar_t>(double)``."""
    name = t._dtype.name
    if name not in _FLOATS:
        raise _not_implemented(kernel_name, t)
    if not _prepare_inplace(t):
        return
    values = sampler(_gen(generator), numel_of(t._sizes), *args)
    _write(t, D.to_dtype(values, t._dtype.np))


def exponential_(self, lambd=1.0, generator=None):
    check(lambd > 0.0, lambda: f"exponential_ expects lambda > 0.0, but found lambda={_fmt(lambd)}")
    check(self._dtype.category == dt.FLOAT, lambda: (
        f"Exponential distribution is a continuous probability distribution. dtype must be a "
        f"floating point but you specified {self._dtype._scalar_name}"))
    _sample_double(self, "exponential_cpu", D.exponential, lambd, generator=generator)
    self._vc[0] += 1
    return self


def geometric_(self, p, generator=None):
    check(0 < p < 1, lambda: f"geometric_ expects p to be in (0, 1), but got p={_fmt(p)}")
    name = self._dtype.name
    if name not in _FLOATS and (self._dtype.category != dt.INT or name in (
            "uint16", "uint32", "uint64")):
        raise _not_implemented("geometric_cpu", self)
    if _prepare_inplace(self):
        values = D.geometric(_gen(generator), numel_of(self._sizes), p)
        if name in _FLOATS:
            _write(self, D.to_dtype(values, self._dtype.np))
        else:
            _write(self, _double_to_int(values, self._dtype.np))
    self._vc[0] += 1
    return self


def _double_to_int(values: np.ndarray, np_dtype) -> np.ndarray:
    """``static_cast<int_type>(double)`` for values that fit (large ones wrap as x86 does
    through int64)."""
    with np.errstate(invalid="ignore", over="ignore"):
        return values.astype(np.int64).astype(np_dtype)


def cauchy_(self, median=0.0, sigma=1.0, generator=None):
    check(sigma > 0.0, lambda: f"cauchy_ expects sigma > 0.0, but found sigma={_fmt(sigma)}")
    _sample_double(self, "cauchy_cpu", D.cauchy, median, sigma, generator=generator)
    self._vc[0] += 1
    return self


def log_normal_(self, mean=1.0, std=2.0, generator=None):
    check(std > 0.0, lambda: f"log_normal_ expects std > 0.0, but found std={_fmt(std)}")
    _sample_double(self, "log_normal_cpu", D.log_normal, mean, std, generator=generator)
    self._vc[0] += 1
    return self


# -- bernoulli ------------------------------------------------------------------------------------

def _bool_or_number(t) -> bool:
    return not t._dtype.is_complex


def bernoulli_float_(self, p=0.5, generator=None):
    check(0 <= p <= 1, lambda: f"bernoulli_ expects p to be in [0, 1], but got p={_fmt(p)}")
    if not _bool_or_number(self) or self._dtype.name in ("uint16", "uint32", "uint64"):
        raise _not_implemented("bernoulli_scalar_cpu_", self)
    if _prepare_inplace(self):
        values = D.bernoulli_scalar(_gen(generator), numel_of(self._sizes), p)
        _write(self, values.astype(self._dtype.np))
    self._vc[0] += 1
    return self


def _bernoulli_from(out, p, generator):
    """``out.bernoulli_(p)`` with a tensor ``p`` broadcast to ``out``."""
    if not _bool_or_number(out):
        raise _not_implemented("bernoulli_tensor_cpu_self_", out)
    pname = p._dtype.name
    if pname not in _FLOATS:
        raise _not_implemented("bernoulli_tensor_cpu_p_", p)
    if _is_meta(out) or numel_of(out._sizes) == 0:
        return out
    assert_no_internal_overlap(out)
    pv = p._array()
    if pv.size and not (np.all(pv >= 0) and np.all(pv <= 1)):
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  "
                           "(Could this error message be improved?  If so, please report an "
                           "enhancement request to PyTorch.)")
    try:
        pb = np.broadcast_to(pv, out._sizes)
    except ValueError:
        raise RuntimeError(f"expand: the shape of p {list(p._sizes)} can't be broadcast to "
                           f"{list(out._sizes)}") from None
    # p follows out's element order
    view = _iter_view(out)
    order = _iter_order(out)
    pb = np.ascontiguousarray(pb.transpose(order)) if order is not None else pb
    if pname == "float64":
        values = D.bernoulli_tensor(_gen(generator), np.ascontiguousarray(pb, np.float64))
    else:
        values = D.bernoulli_tensor(_gen(generator), np.ascontiguousarray(pb, np.float32))
    view[...] = values.reshape(view.shape).astype(out._dtype.np)
    return out


def _iter_order(t):
    strides = t._strides
    if len(t._sizes) > 1 and strides != contiguous_strides(t._sizes):
        return sorted(range(len(t._sizes)), key=lambda d: -strides[d] if t._sizes[d] > 1 else 0)
    return None


def bernoulli_Tensor_(self, p, generator=None):
    _bernoulli_from(self, p, generator)
    self._vc[0] += 1
    return self


def bernoulli(self, generator=None):
    out = empty_like(self, memory_format=contiguous_format)   # torch's: row-major, whatever p's
    return _fresh(_bernoulli_from(out, self, generator))


def bernoulli_out(self, generator, out):
    resize_output(out, self._sizes)
    _bernoulli_from(out, self, generator)
    out._vc[0] += 1
    return out


def bernoulli_p(self, p, generator=None):
    out = empty_like(self, memory_format=contiguous_format)
    bernoulli_float_(out, p, generator)
    return _fresh(out)


# -- factories ------------------------------------------------------------------------------------

def _sized(size, dtype, layout, device):
    return empty(tuple(size), dtype, layout, device)


def _uniform_fresh(t, lo, hi, generator):
    """uniform_(0, 1) of a fresh row-major float32 tensor: [0, 1) fits it and it cannot
    overlap itself, so uniform_'s bounds and overlap checks have nothing to find. (Its own
    function, with _uniform's signature, so that explain shows it as the uniform_ step.)"""
    n = numel_of(t._sizes)
    if n:
        arr = t._array()
        D.u24(default_generator if generator is None else generator, n,
              arr if n < D._BULK else arr.reshape(n))
    return t


def _rand(size, dtype, layout, device, generator):
    t = empty(size, dtype, layout, device)
    if t._dtype is dt.float32 and t._storage._buf is not None:
        # a fresh tensor: its version counter is still 0
        return _uniform_fresh(t, 0.0, 1.0, generator)
    return _fresh(_uniform(t, 0.0, 1.0, generator))


# Note [rand in one call]
# ~~~~~~~~~~~~~~~~~~~~~~
# ``rand(3, 4)``: a row-major float32 CPU tensor of a few elements from the default
# generator. ``rand`` makes it with ``new_cpu_tensor`` (what ``empty``'s fast path returns,
# without the three calls down to it) and fills it with ``D.u24``, the draw
# ``_uniform_fresh`` makes, bit for bit the same words. The deterministic fill of
# uninitialised memory has nothing to do (every element is written). While explain records,
# its probes stand in for ``empty`` and ``_uniform_fresh``; ``rand`` then sees they are not
# the originals (kept in ``_RAND_STEPS``, out of the probes' reach) and takes ``_rand``, which
# shows both steps. Any other call (a dtype, a device, a size of 0 or below, a large draw)
# takes ``_rand`` too.

def rand(size, dtype=None, layout=None, device=None, pin_memory=None):
    if ((dtype is None and _DEFAULT_DTYPE[0] is _F32 or dtype is _F32) and layout is None
            and (device is None and _DEFAULT_DEVICE[0] is _CPU or device is _CPU)
            and empty is _RAND_STEPS[0] and _uniform_fresh is _RAND_STEPS[1]):
        n = 1
        for s in size:
            if s <= 0:
                n = 0
                break
            n *= s
        if 0 < n < D._BULK:
            t, arr = new_cpu_tensor(size if type(size) is tuple else tuple(size), _F32, n * 4)
            D.u24(default_generator, n, arr)
            return t
    return _rand(size, dtype, layout, device, None)


_RAND_STEPS = (empty, _uniform_fresh)


def rand_generator(size, generator, dtype=None, layout=None, device=None, pin_memory=None):
    return _rand(size, dtype, layout, device, generator)


def rand_out(size, out):
    resize_output(out, tuple(size))
    return uniform_(out)


def rand_generator_out(size, generator, out):
    resize_output(out, tuple(size))
    return uniform_(out, 0.0, 1.0, generator)


def rand_like(self, dtype=None, layout=None, device=None, pin_memory=None,
              memory_format=None):
    out = empty_like(self, dtype, layout, device, pin_memory, memory_format)
    return _fresh(_uniform(out, 0.0, 1.0, None))


def rand_like_generator(self, generator, dtype=None, layout=None, device=None,
                        pin_memory=None, memory_format=None):
    out = empty_like(self, dtype, layout, device, pin_memory, memory_format)
    return _fresh(_uniform(out, 0.0, 1.0, generator))


def randn(size, dtype=None, layout=None, device=None, pin_memory=None):
    return _fresh(_normal(_sized(size, dtype, layout, device), 0.0, 1.0, None))


def randn_generator(size, generator, dtype=None, layout=None, device=None, pin_memory=None):
    return _fresh(_normal(_sized(size, dtype, layout, device), 0.0, 1.0, generator))


def randn_out(size, out):
    resize_output(out, tuple(size))
    return normal_(out)


def randn_generator_out(size, generator, out):
    resize_output(out, tuple(size))
    return normal_(out, 0.0, 1.0, generator)


def randn_like(self, dtype=None, layout=None, device=None, pin_memory=None,
               memory_format=None):
    out = empty_like(self, dtype, layout, device, pin_memory, memory_format)
    return _fresh(_normal(out, 0.0, 1.0, None))


def randn_like_generator(self, generator, dtype=None, layout=None, device=None,
                         pin_memory=None, memory_format=None):
    out = empty_like(self, dtype, layout, device, pin_memory, memory_format)
    return _fresh(_normal(out, 0.0, 1.0, generator))


# randint: ``empty(size, dtype).random_(low, high)``

def randint(high, size, dtype=None, layout=None, device=None, pin_memory=None):
    return randint_low_generator(0, high, size, None, dtype, layout, device, pin_memory)


def randint_generator(high, size, generator, dtype=None, layout=None, device=None,
                      pin_memory=None):
    return randint_low_generator(0, high, size, generator, dtype, layout, device, pin_memory)


def randint_low(low, high, size, dtype=None, layout=None, device=None, pin_memory=None):
    return randint_low_generator(low, high, size, None, dtype, layout, device, pin_memory)


def randint_low_generator(low, high, size, generator, dtype=None, layout=None, device=None,
                          pin_memory=None):
    t = _sized(size, dtype or dt.int64, layout, device)
    return _fresh(_random_from_to(t, low, high, generator))


def randint_out(high, size, out):
    return randint_low_generator_out(0, high, size, None, out)


def randint_generator_out(high, size, generator, out):
    return randint_low_generator_out(0, high, size, generator, out)


def randint_low_out(low, high, size, out):
    return randint_low_generator_out(low, high, size, None, out)


def randint_low_generator_out(low, high, size, generator, out):
    resize_output(out, tuple(size))
    return random_from(out, low, high, generator)


def _randint_like(self, low, high, generator, dtype, layout, device, pin_memory,
                  memory_format):
    out = empty_like(self, dtype, layout, device, pin_memory, memory_format)
    return _fresh(_random_from_to(out, low, high, generator))


def randint_like(self, high, dtype=None, layout=None, device=None, pin_memory=None,
                 memory_format=None):
    return _randint_like(self, 0, high, None, dtype, layout, device, pin_memory, memory_format)


def randint_like_generator(self, high, generator, dtype=None, layout=None, device=None,
                           pin_memory=None, memory_format=None):
    return _randint_like(self, 0, high, generator, dtype, layout, device, pin_memory,
                         memory_format)


def _high_of(high) -> int:
    check(high.numel() == 1 and high._dtype.category in (dt.INT, dt.BOOL),
          "high must be a scalar tensor and on CPU")
    return int(high._array().reshape(-1)[0])


def randint_like_Tensor(self, high, dtype=None, layout=None, device=None, pin_memory=None,
                        memory_format=None):
    return _randint_like(self, 0, _high_of(high), None, dtype, layout, device, pin_memory,
                         memory_format)


def randint_like_Tensor_generator(self, high, generator, dtype=None, layout=None, device=None,
                                  pin_memory=None, memory_format=None):
    return _randint_like(self, 0, _high_of(high), generator, dtype, layout, device, pin_memory,
                         memory_format)


def randint_like_low_dtype(self, low, high, dtype=None, layout=None, device=None,
                           pin_memory=None, memory_format=None):
    return _randint_like(self, low, high, None, dtype, layout, device, pin_memory,
                         memory_format)


def randint_like_low_generator_dtype(self, low, high, generator, dtype=None, layout=None,
                                     device=None, pin_memory=None, memory_format=None):
    return _randint_like(self, low, high, generator, dtype, layout, device, pin_memory,
                         memory_format)


# randperm

_RANDPERM_MAX = {"uint8": 256, "int8": 128, "int16": 32768, "float16": 2049,
                 "bfloat16": 257}


def _randperm_into(out, n: int, generator):
    check(n >= 0, lambda: f"n must be non-negative, got{n}")
    name = out._dtype.name
    if name == "bool" or out._dtype.is_complex or name in ("uint16", "uint32", "uint64"):
        raise _not_implemented("randperm", out)
    limit = _RANDPERM_MAX.get(name)
    if limit is not None and n > limit:
        if name in ("float16", "bfloat16"):
            kind = "Half" if name == "float16" else "BFloat16"
            raise RuntimeError(f"n cannot be greater than {limit} for {kind} type.")
        raise RuntimeError(f"value cannot be converted to type {name}_t without overflow")
    resize_impl(out, (n,))
    if _is_meta(out) or n == 0:
        return out
    values = D.randperm(_gen(generator), n)
    if name in ("float16", "bfloat16"):
        values = values.astype(np.float32)
    _write(out, values.astype(out._dtype.np))
    return out


def randperm(n, dtype=None, layout=None, device=None, pin_memory=None):
    return randperm_generator(n, None, dtype, layout, device, pin_memory)


def randperm_generator(n, generator, dtype=None, layout=None, device=None, pin_memory=None):
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    out = empty((n,), dtype or dt.int64, layout, device)
    return _fresh(_randperm_into(out, n, generator))


def randperm_out(n, out):
    return randperm_generator_out(n, None, out)


def randperm_generator_out(n, generator, out):
    _randperm_into(out, n, generator)
    out._vc[0] += 1
    return out


# -- normal with tensor arguments --------------------------------------------------------------

def _check_tensor_std(std):
    if _is_meta(std) or std._dtype.is_complex:
        return
    a = std._array()
    check(a.size == 0 or bool(np.all(a >= 0)), "normal expects all elements of std >= 0.0")


def _broadcast_shape(a, b):
    from .broadcast import broadcast_pair
    return broadcast_pair(a, b)


def _binary_inplace(out, other, op):
    """``out.op_(other)`` as torch computes it: in the promoted dtype, cast back."""
    if _is_meta(out):
        return
    o = out._array()
    b = other if isinstance(other, np.ndarray) else other._array()
    common = np.result_type(o.dtype, b.dtype)
    if o.dtype.name in ("float16", "bfloat16") and common == o.dtype:
        common = np.float32
    res = op(o.astype(common), b.astype(common))
    o[...] = res.astype(o.dtype) if o.dtype.name not in ("float16", "bfloat16") else \
        res.astype(np.float32).astype(o.dtype)


def normal_Tensor_float(mean, std=1.0, generator=None):
    _check_std(std)
    out = empty(mean._sizes, mean._dtype, None, mean._device)
    return _fresh(_normal_tensor_float_into(out, mean, std, generator))


def _normal_tensor_float_into(out, mean, std, generator):
    _normal(out, 0.0, std, generator)
    _binary_inplace(out, mean, np.add)
    return out


def normal_Tensor_float_out(mean, std, generator, out):
    _check_std(std)
    resize_output(out, _broadcast_shape(mean._sizes, out._sizes))
    _normal_tensor_float_into(out, mean, std, generator)
    out._vc[0] += 1
    return out


def normal_float_Tensor(mean, std, generator=None):
    _check_tensor_std(std)
    out = empty(std._sizes, std._dtype, None, std._device)
    return _fresh(_normal_float_tensor_into(out, mean, std, generator))


def _normal_float_tensor_into(out, mean, std, generator):
    _normal(out, 0.0, 1.0, generator)
    _binary_inplace(out, std, np.multiply)
    if not _is_meta(out):
        _binary_inplace(out, np.array(mean, out._dtype.np), np.add)
    return out


def normal_float_Tensor_out(mean, std, generator, out):
    _check_tensor_std(std)
    resize_output(out, std._sizes)
    _normal_float_tensor_into(out, mean, std, generator)
    out._vc[0] += 1
    return out


def normal_Tensor_Tensor(mean, std, generator=None):
    _check_tensor_std(std)
    shape = _broadcast_shape(mean._sizes, std._sizes)
    out = empty(shape, mean._dtype, None, mean._device)
    return _fresh(_normal_tensor_tensor_into(out, mean, std, generator))


def _normal_tensor_tensor_into(out, mean, std, generator):
    _normal(out, 0.0, 1.0, generator)
    _binary_inplace(out, std, np.multiply)
    _binary_inplace(out, mean, np.add)
    return out


def normal_Tensor_Tensor_out(mean, std, generator, out):
    _check_tensor_std(std)
    resize_output(out, _broadcast_shape(mean._sizes, std._sizes))
    _normal_tensor_tensor_into(out, mean, std, generator)
    out._vc[0] += 1
    return out


def normal_float_float(mean, std, size, generator=None, dtype=None, layout=None, device=None,
                       pin_memory=None):
    _check_std(std)
    return _fresh(_normal(_sized(size, dtype, layout, device), mean, std, generator))


def normal_float_float_out(mean, std, size, generator, out):
    _check_std(std)
    resize_output(out, tuple(size))
    return normal_(out, mean, std, generator)


# -- multinomial and poisson ----------------------------------------------------------------------

def _multinomial_into(out, self, n_sample, replacement, generator):
    check(self.dim() > 0 and self.dim() <= 2, "prob_dist must be 1 or 2 dim")
    check(self._dtype.category == dt.FLOAT, lambda: (
        f"multinomial only supports floating-point dtypes for input, got: "
        f"{self._dtype._scalar_name}"))
    check(out._dtype is dt.int64, lambda: (
        f"multinomial expects Long tensor out, got: {out._dtype._scalar_name}"))
    check(n_sample > 0, "cannot sample n_sample <= 0 samples")
    n_cat = self._sizes[-1]
    check(replacement or n_sample <= n_cat,
          "cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    check(n_cat <= 1 << 24, "number of categories cannot exceed 2^24")
    shape = (n_sample,) if self.dim() == 1 else (self._sizes[0], n_sample)
    resize_output(out, shape)
    if _is_meta(self) or numel_of(shape) == 0:
        return out
    probs = self._array()
    rows = probs.reshape(1, -1) if probs.ndim == 1 else probs
    gen = _gen(generator)
    if not replacement or n_sample == 1:
        p32 = rows.astype(np.float64)
        check(bool(np.all(p32 < np.inf)) and bool(np.all(p32 >= 0)) and not np.isnan(p32).any(),
              "probability tensor contains either `inf`, `nan` or element < 0")
        sums = rows.sum(axis=-1, dtype=np.float64)
        check(not bool(np.any(sums == 0)),
              "invalid multinomial distribution (sum of probabilities <= 0)")
        # Gumbel-max with exponentials: argmax / topk of p / q, q ~ Exp(1) drawn into a
        # tensor shaped like the probabilities (in its memory order)
        q_t = empty_like(self)
        exponential_(q_t, 1.0, gen)
        q = q_t._array().reshape(rows.shape)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = (rows / q).astype(rows.dtype)
        if n_sample == 1:
            idx = np.argmax(ratio, axis=-1)[:, None]
        else:
            idx = np.argsort(-ratio.astype(np.float64), axis=-1, kind="stable")[:, :n_sample]
    else:
        idx = np.empty((rows.shape[0], n_sample), np.int64)
        acc_dtype = np.float32 if rows.dtype.name in ("float16", "bfloat16") else rows.dtype
        for i, row in enumerate(rows):
            r = row.astype(acc_dtype)
            check(bool(np.all(r >= 0)),
                  "invalid multinomial distribution (encountering probability entry < 0)")
            check(bool(np.all(np.isfinite(r))), "invalid multinomial distribution (encountering "
                                                "probability entry = infinity or NaN)")
            cum = np.cumsum(r, dtype=acc_dtype)
            total = cum[-1]
            check(total > 0, "invalid multinomial distribution (sum of probabilities <= 0)")
            cum = (cum / total).astype(acc_dtype)
            cum[-1] = 1
            u = D.u53(gen, n_sample)
            idx[i] = np.searchsorted(cum.astype(np.float64), u, side="left")
    out._array()[...] = idx.reshape(shape)
    return out


def multinomial(self, num_samples, replacement=False, generator=None):
    out = empty((0,), dt.int64, None, self._device)
    return _fresh(_multinomial_into(out, self, num_samples, replacement, generator))


def multinomial_out(self, num_samples, replacement, generator, out):
    _multinomial_into(out, self, num_samples, replacement, generator)
    out._vc[0] += 1
    return out


def poisson(self, generator=None):
    name = self._dtype.name
    if name not in _FLOATS:
        raise _not_implemented("poisson_cpu", self)
    out = empty_like(self, memory_format=contiguous_format)   # torch's zeros(sizes)
    if _is_meta(self) or numel_of(self._sizes) == 0:
        return _fresh(out)
    rates = np.ascontiguousarray(self._array().transpose(_iter_order(out))) \
        if _iter_order(out) is not None else self._array()
    values = D.poisson(_gen(generator), rates.astype(np.float64))
    _write(out, D.to_dtype(values, self._dtype.np))
    return _fresh(out)
