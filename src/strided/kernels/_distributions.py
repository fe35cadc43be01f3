"""The samplers behind the random kernels, on NumPy arrays: ``f(generator, n, ...)`` returns
the next ``n`` values of one distribution exactly as torch's CPU kernels compute them.

Note [Bit-exact sampling]
~~~~~~~~~~~~~~~~~~~~~~~~~
torch's CPU samplers are scalar C++ loops over its MT19937 stream (Note [The CPU random
stream] in core/generator.py). Matching them bit for bit takes three things:

1. The same words in the same order. Each sampler documents what it reads per element:
   ``random()`` (one 32-bit word) or ``random64()`` (two words, the first one high).
2. The same conversions: a float uniform is ``(w & (2**24 - 1)) * 2**-24`` (the low 24
   bits, not the high ones NumPy would take); half and bfloat16 keep 11 and 8 bits; a
   double uniform keeps the low 53 bits of ``random64()``.
3. The same floating-point operations, including two that C++ compilers add silently:

   - *FMA contraction*: torch's CPU kernels are compiled with ``-mfma`` and GCC's default
     ``-ffp-contract=fast``, so ``x * std + mean`` is one fused multiply-add, rounded
     once. NumPy has no fma ufunc; ``fma64`` and ``fma32`` below compute it exactly
     (the product error recovered with Veltkamp/Dekker splitting, the final rounding
     made correct with a round-to-odd step, after Boldo and Melquiond).
   - *libm*: the scalar samplers call glibc's ``log1p``, ``log``, ``tan``, ``exp``,
     ``lgamma``. NumPy's SIMD versions of several of these differ from glibc in the last
     bit, while Python's ``math`` module calls glibc itself, so ``_libm`` maps ``math``
     functions over the values (NumPy's float64 ``sin``/``cos`` do agree with glibc).

Note [normal's two algorithms]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
``normal_`` on a contiguous tensor of at least 16 elements fills the whole tensor with
uniforms first, then turns each block of 16 into normals by Box-Muller over the pairs
(j, j + 8): ``radius = sqrt(-2 log(1 - u[j]))``, ``theta = 2 pi u[j + 8]``, ``out[j] =
radius cos(theta)``, ``out[j + 8] = radius sin(theta)``. When the size is not a multiple
of 16, the last 16 elements are redrawn from 16 fresh uniforms and recomputed, so the
tail overlaps the last full block. For float32 the block runs through the AVX2 kernel,
whose ``log`` and ``sincos`` are the Cephes polynomials of ``avx_mathfun.h`` evaluated in
float32 with the compiler's FMA contractions; ``_log_ps`` and ``_sincos_ps`` replay them
step for step. Half and bfloat16 draw 16 float uniforms per block (the tail block again
16 fresh ones written over the last 16 elements) and round the float32 result. float64
uses glibc's ``log``, ``cos`` and ``sin``.

Anything smaller than 16 elements, or not contiguous, takes the scalar path instead:
``at::normal_distribution<double>`` per element, which makes a pair from two double
uniforms (``radius = sqrt(-2 log1p(-u2))``, ``theta = 2 pi u1``), returns the cosine
one and caches the sine one in the generator for the next call. Up to 32 values it runs
on Python floats (``_normal_scalar_floats``: ``math`` is glibc, and NumPy's calls would
cost more than the arithmetic), above on NumPy arrays; the two give the same bits.
"""

from __future__ import annotations

import math

import numpy as np

from ..core.generator import _BULK

# NumPy's C copyto itself: ``np.copyto`` first runs the ``__array_function__`` protocol's
# Python dispatcher (0.2 of its 0.4 us on a dozen elements)
try:
    from numpy._core._multiarray_umath import copyto as _copyto
except ImportError:   # NumPy 1.x
    _copyto = np.copyto

f32 = np.float32
f64 = np.float64
_U24 = f32(2.0 ** -24)
_U53 = 2.0 ** -53
_MASK24 = np.uint32(0xFFFFFF)
_MASK53 = np.uint64((1 << 53) - 1)
_TWO_PI_F32 = f32(2.0 * math.pi)


# -- uniform bits ---------------------------------------------------------------------------

_CHUNK = 1 << 18   # words per draw when filling a large buffer: the passes stay in cache
_MASK24_0D = np.array(0xFFFFFF, np.uint64)
_U24_0D = np.array(2.0 ** -24, f32)


def u24(gen, n: int, out: np.ndarray | None = None) -> np.ndarray:
    """``uniform_real_distribution<float>(0, 1)`` n times: float32 in [0, 1), one word each,
    written into ``out`` (a C-contiguous float32 array of n elements, of any shape when n
    is below _BULK, else 1-d) when given."""
    if out is None:
        out = np.empty(n, f32)
    if n < _BULK:
        # a small draw: the words as random_raw gives them (uint64), in out's shape, and
        # the scalars as 0-d arrays (a ufunc converts a scalar operand on every call)
        if n:
            gen._fresh = False
        w = gen._bg.random_raw(out.shape)
        np.bitwise_and(w, _MASK24_0D, out=w)
        _copyto(out, w, casting="unsafe")       # a 24-bit integer is exact in float32
        np.multiply(out, _U24_0D, out=out)      # and so is its product with 2**-24
        return out
    if n <= _CHUNK:     # one draw: no loop, no slicing
        w = gen._words(n)
        np.bitwise_and(w, _MASK24, out=w)
        np.multiply(w, _U24, out=out, dtype=f32, casting="unsafe")
        return out
    for start in range(0, n, _CHUNK):
        w = gen._words(min(_CHUNK, n - start))
        np.bitwise_and(w, _MASK24, out=w)
        # w * 2**-24 is exact in float32 (a 24-bit integer times a power of two)
        np.multiply(w, _U24, out=out[start:start + w.size], dtype=f32, casting="unsafe")
    return out


def u53(gen, n: int) -> np.ndarray:
    """``uniform_real_distribution<double>(0, 1)`` n times: float64, one ``random64()`` each."""
    r = gen._random64(n)
    np.bitwise_and(r, _MASK53, out=r)
    x = r.astype(f64)
    x *= _U53
    return x


def to_dtype(values: np.ndarray, np_dtype) -> np.ndarray:
    """``static_cast<scalar_t>(double)``: half and bfloat16 are built from a float, so a
    double goes through float32 first (two roundings, as in C++)."""
    if values.dtype == np_dtype:
        return values
    if np_dtype.itemsize == 2 and (np_dtype.kind in "fV" or np_dtype.name == "bfloat16"):
        return values.astype(f32).astype(np_dtype)
    return values.astype(np_dtype)


# -- exact fused multiply-add ------------------------------------------------------------------

_SPLIT = 134217729.0   # 2**27 + 1


def _round_to_odd_sum(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """x + y rounded to odd: when inexact, the neighbour whose last mantissa bit is 1."""
    s = x + y
    bb = s - x
    err = (x - (s - bb)) + (y - bb)
    bits = s.view(np.int64)
    fix = (err != 0) & ((bits & 1) == 0) & np.isfinite(s)
    if fix.any():
        step = np.where((err > 0) == (s > 0), 1, -1)
        bits = bits + np.where(fix, step, 0)
        s = bits.view(f64)
    return s


def fma64(a, b, c) -> np.ndarray:
    """``fma(a, b, c)`` on float64 arrays, rounded once (Boldo-Melquiond emulation)."""
    a = np.asarray(a, f64)
    b = np.asarray(b, f64)
    c = np.asarray(c, f64)
    ph = a * b
    t = _SPLIT * a
    ah = t - (t - a)
    al = a - ah
    t = _SPLIT * b
    bh = t - (t - b)
    bl = b - bh
    pl = ((ah * bh - ph) + ah * bl + al * bh) + al * bl
    th = c + ph
    bb = th - c
    tl = (c - (th - bb)) + (ph - bb)
    out = th + _round_to_odd_sum(tl, pl)
    bad = ~np.isfinite(out) | ~np.isfinite(ph)
    if bad.any():
        out = np.where(bad, a * b + c, out)
    return out


def fma32(a, b, c) -> np.ndarray:
    """``fmaf(a, b, c)`` on float32 values: the float64 product is exact, and the sum is
    rounded to odd before the float32 rounding, which makes the result correctly rounded."""
    p = np.asarray(a, f64) * np.asarray(b, f64)
    return _round_to_odd_sum(p, np.asarray(c, f64)).astype(f32)


# -- glibc functions ----------------------------------------------------------------------------

def _libm(fn, x: np.ndarray) -> np.ndarray:
    """``fn`` (a ``math`` function, i.e. glibc's) applied to each float64 of ``x``."""
    flat = x.ravel()
    return np.fromiter(map(fn, flat.tolist()), f64, count=flat.size).reshape(x.shape)


def _safe(fn):
    def call(v):
        try:
            return fn(v)
        except (ValueError, OverflowError):
            return _c_semantics(fn, v)
    return call


def _c_semantics(fn, v):
    """What glibc returns where Python's ``math`` raises (poles, domain errors, overflow)."""
    if fn is math.log or fn is math.log1p:
        edge = 0.0 if fn is math.log else -1.0
        if v == edge:
            return -math.inf
        return math.nan
    if fn is math.exp:
        return math.inf
    if fn is math.lgamma:
        return math.inf
    return math.nan


log = _safe(math.log)
log1p = _safe(math.log1p)
exp = _safe(math.exp)
lgamma = _safe(math.lgamma)


# -- normal: the scalar path ---------------------------------------------------------------------

def normal_scalar(gen, n: int, mean: float, std: float) -> np.ndarray:
    """``at::normal_distribution<double>(mean, std)`` called n times (float64 values),
    using and refilling the generator's cached sample (Note [normal's two algorithms])."""
    if n <= _SCALAR_IN_PYTHON:
        out = np.array(_normal_scalar_floats(gen, n), f64)
        return out if mean == 0.0 and std == 1.0 else fma64(out, std, mean)
    out = np.empty(n, f64)
    i = 0
    if n and gen._next_double_normal is not None:
        out[0] = gen._next_double_normal
        gen._next_double_normal = None
        i = 1
    m = n - i
    if m:
        pairs = (m + 1) // 2
        u = u53(gen, 2 * pairs)
        u1, u2 = u[0::2], u[1::2]
        radius = np.sqrt(-2.0 * _libm(log1p, -u2))
        theta = (2.0 * math.pi) * u1
        z = np.empty(2 * pairs, f64)
        z[0::2] = radius * np.cos(theta)
        z[1::2] = radius * np.sin(theta)
        out[i:] = z[:m]
        if m % 2:
            gen._next_double_normal = float(z[-1])
    if not (mean == 0.0 and std == 1.0):
        out = fma64(out, std, mean)
    return out


_SCALAR_IN_PYTHON = 32   # values: up to this many, Python floats beat NumPy's calls
_TWO_PI = 2.0 * math.pi
_MASK53_INT = (1 << 53) - 1


def _normal_scalar_floats(gen, n: int) -> list:
    """``normal_scalar``'s standard values for a small n, on Python floats: the same words,
    the same double operations, ``math`` being glibc (sqrt correctly rounded either way)."""
    values = []
    if n and gen._next_double_normal is not None:
        values.append(gen._next_double_normal)
        gen._next_double_normal = None
    m = n - len(values)
    if m:
        gen._fresh = False
        w = gen._bg.random_raw(4 * ((m + 1) // 2)).tolist()   # two random64() per pair
        sqrt, log1p_, cos, sin = math.sqrt, math.log1p, math.cos, math.sin
        for k in range(0, len(w), 4):
            u1 = (((w[k] << 32) | w[k + 1]) & _MASK53_INT) * _U53
            u2 = (((w[k + 2] << 32) | w[k + 3]) & _MASK53_INT) * _U53
            radius = sqrt(-2.0 * log1p_(-u2))
            theta = _TWO_PI * u1
            values += (radius * cos(theta), radius * sin(theta))
        if m % 2:
            gen._next_double_normal = values.pop()   # the sine of the last pair
    return values


# -- normal: the 16-element Box-Muller blocks ------------------------------------------------------

_LOG_P = [f32(v) for v in (7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1,
                           -1.2420140846e-1, 1.4249322787e-1, -1.6668057665e-1,
                           2.0000714765e-1, -2.4999993993e-1, 3.3333331174e-1)]
_LOG_Q1 = f32(-2.12194440e-4)
_LOG_Q2 = f32(0.693359375)
_SQRTHF = f32(0.707106781186547524)
_SQRTHF_BITS = np.int32(_SQRTHF.view(np.int32))
_FOPI = f32(1.27323954473516)
_DP1, _DP2, _DP3 = f32(-0.78515625), f32(-2.4187564849853515625e-4), \
    f32(-3.77489497744594108e-8)
_COS_P = [f64(f32(v)) for v in (2.443315711809948e-5, -1.388731625493765e-3,
                                4.166664568298827e-2)]
_SIN_P = [f64(f32(v)) for v in (-1.9515295891e-4, 8.3321608736e-3, -1.6666654611e-1)]
_LOG_P64 = [f64(v) for v in _LOG_P]


def _fma_round(p64: np.ndarray, c, out32: np.ndarray) -> np.ndarray:
    """``out32 = float32(p64 + c)``: an FMA whose product ``p64`` is exact in float64 (the
    rare double rounding of a float64 sum landing on a float32 tie is not corrected)."""
    np.add(p64, c, out=p64)
    np.copyto(out32, p64, casting="same_kind")
    return out32


def _log_ps(x: np.ndarray) -> np.ndarray:
    """``log256_ps`` of avx_mathfun.h on positive normal float32 ``x``, with GCC's
    contractions: each Horner step is an FMA, ``y * z + e * q1`` is an FMA whose addend is
    the rounded product ``e * q1``; ``y - z * 0.5`` and ``x + e * q2`` are exact either way
    (``z * 0.5`` and ``e * q2`` are exact products)."""
    # cephes splits x = m 2**(e + 1) with m in [0.5, 1) and takes xm = m - 1, or 2m - 1
    # and e - 1 when m < sqrt(1/2): that is x = m' 2**e' with m' in [sqrt(1/2), sqrt(2)),
    # which the bits give at once: e' = (bits - bits(sqrt(1/2))) >> 23 (an arithmetic
    # shift), m' = bits - (e' << 23) (x is positive and normal)
    ex = x.view(np.int32) - _SQRTHF_BITS
    ex >>= 23
    e = ex.astype(f32)
    ex <<= 23
    np.subtract(x.view(np.int32), ex, out=ex)
    xm = ex.view(f32)
    xm -= f32(1)                                 # m' - 1: exact
    z = xm * xm
    x64 = xm.astype(f64)
    p = x64 * _LOG_P64[0]
    y = np.empty_like(xm)
    y64 = np.empty_like(x64)
    for coeff in _LOG_P64[1:-1]:
        _fma_round(p, coeff, y)
        np.copyto(y64, y)
        np.multiply(y64, x64, out=p)
    _fma_round(p, _LOG_P64[-1], y)
    y *= xm                                      # y * x, rounded (a plain product)
    np.copyto(y64, y)
    np.multiply(y64, z, out=p)
    _fma_round(p, e * _LOG_Q1, y)
    z *= f32(0.5)
    y -= z
    xm += y
    e *= _LOG_Q2
    xm += e
    return xm


def _sincos_ps(x: np.ndarray):
    """``sincos256_ps`` of avx_mathfun.h on float32 ``x >= 0``: octant reduction with the
    three-part pi/4 (only the last part's product needs the fused rounding: the first two
    are exact), then the Cephes sine and cosine polynomials with their contractions.
    Returns (sin, cos)."""
    j = (x * _FOPI).astype(np.int32)
    j += 1
    j &= ~1
    y = j.astype(f32)
    x = x + y * _DP1
    x += y * _DP2
    p = y.astype(f64)
    p *= f64(_DP3)
    x = _fma_round(p, x, x)
    z = x * x
    z64 = z.astype(f64)
    t64 = np.empty_like(z64)
    yc = np.empty_like(x)
    np.multiply(z64, _COS_P[0], out=p)
    _fma_round(p, _COS_P[1], yc)
    np.copyto(t64, yc)
    np.multiply(t64, z64, out=p)
    _fma_round(p, _COS_P[2], yc)
    yc *= z
    # fma(yc, z, -z / 2) is z * (yc - 1/2) rounded once: both steps are exact in float64
    np.copyto(t64, yc)
    t64 -= 0.5
    np.multiply(t64, z64, out=p)
    np.copyto(yc, p, casting="same_kind")
    yc += f32(1)
    ys = np.empty_like(x)
    np.multiply(z64, _SIN_P[0], out=p)
    _fma_round(p, _SIN_P[1], ys)
    np.copyto(t64, ys)
    np.multiply(t64, z64, out=p)
    _fma_round(p, _SIN_P[2], ys)
    ys *= z
    np.copyto(t64, ys)
    np.copyto(z64, x)
    np.multiply(t64, z64, out=p)
    _fma_round(p, z64, ys)
    # select the polynomials and set the signs with bit operations (np.where is slow on
    # random masks): sin takes the sine polynomial when bit 1 of j is clear
    ys_bits = ys.view(np.uint32)
    yc_bits = yc.view(np.uint32)
    diff = ys_bits ^ yc_bits
    pick = (j & 2).view(np.uint32)
    pick >>= 1
    pick -= 1                                    # all ones where the sine polynomial wins
    sin_bits = diff & pick
    sin_bits ^= yc_bits
    diff ^= sin_bits                             # the other polynomial
    swap = j & 4
    swap <<= 29
    sin_bits ^= swap.view(np.uint32)
    j -= 2
    np.invert(j, out=j)
    j &= 4
    j <<= 29
    diff ^= j.view(np.uint32)
    return sin_bits.view(f32), diff.view(f32)


_BLOCK_ROWS = 4096   # 16-element blocks per pass: the temporaries stay in cache


def _box_muller_rows(blk: np.ndarray) -> None:
    """Rows of 16 float32 uniforms to normals, in place, as ``normal_fill_16_AVX2``
    computes them with mean 0 and std 1."""
    # the two halves of every row, each made contiguous in one copy: a row half is one
    # 32-byte item (NumPy's loops over (rows, 8) floats would run 8 elements per call)
    rows = blk.shape[0]
    halves = np.ascontiguousarray(blk.view(_HALF).T).view(f32).reshape(2, 8 * rows)
    u1, theta = halves
    np.subtract(f32(1), u1, out=u1)
    radius = _log_ps(u1)
    radius *= f32(-2)
    np.sqrt(radius, out=radius)
    theta *= _TWO_PI_F32
    sin, cos = _sincos_ps(theta)
    np.multiply(radius, cos, out=u1)
    np.multiply(radius, sin, out=theta)
    np.copyto(blk.view(_HALF), halves.view(_HALF).reshape(2, rows).T)


_HALF = np.dtype("V32")   # eight float32


def _affine32(values: np.ndarray, mean, std) -> np.ndarray:
    """``fmadd(n, std, mean)`` in float32, unless it is the identity."""
    if mean == 0.0 and std == 1.0:
        return values
    values[...] = fma32(values, f32(std), f32(mean))
    return values


def normal_fill_f32(gen, n: int, mean: float, std: float, out: np.ndarray | None = None,
                    reduced: bool = False) -> np.ndarray:
    """float32, contiguous, n >= 16 (Note [normal's two algorithms]), into ``out`` (a
    contiguous float32 array) when given. ``reduced`` is the half/bfloat16 variant, which
    draws no uniforms for the elements past the last full block of 16."""
    if out is None:
        out = np.empty(n, f32)
    full = n // 16
    rows = out[:16 * full].reshape(full, 16)
    for start in range(0, full, _BLOCK_ROWS):
        blk = rows[start:start + _BLOCK_ROWS]
        u24(gen, blk.size, blk.reshape(-1))
        _box_muller_rows(blk)
    if n % 16:
        if not reduced:
            u24(gen, n % 16)                     # drawn, then overwritten by the tail block
        tail = u24(gen, 16).reshape(1, 16)
        _box_muller_rows(tail)
        out[n - 16:] = tail.reshape(-1)
    return _affine32(out, mean, std)


def _box_muller_f64(u: np.ndarray) -> np.ndarray:
    radius = np.sqrt(-2.0 * _libm(log, 1.0 - u[:, :8]))
    theta = (2.0 * math.pi) * u[:, 8:]
    out = np.empty_like(u)
    out[:, :8] = radius * np.cos(theta)
    out[:, 8:] = radius * np.sin(theta)
    return out


def normal_fill_f64(gen, n: int, mean: float, std: float) -> np.ndarray:
    data = u53(gen, n)
    full = n // 16
    out = data.copy()
    out[:16 * full] = _box_muller_f64(data[:16 * full].reshape(full, 16)).ravel()
    if n % 16:
        out[n - 16:] = _box_muller_f64(u53(gen, 16).reshape(1, 16)).ravel()
    if not (mean == 0.0 and std == 1.0):
        out = fma64(out, std, mean)
    return out


# -- uniform -----------------------------------------------------------------------------------

_DIGITS = {"float16": 11, "bfloat16": 8, "float32": 24, "float64": 53}
def uniform(gen, n: int, np_dtype, lo: float, hi: float) -> np.ndarray:
    """``uniform_`` n times, as ``np_dtype`` values. float64 computes
    ``x * (to - from) + from`` (one FMA) from a 53-bit uniform; the other types compute it
    in float32 from a 24-bit uniform with ``from`` and ``to`` cast to float, then round
    to the type; half and bfloat16 map a result that rounded up to ``to`` back to
    ``from``, keeping the interval half-open."""
    name = np.dtype(np_dtype).name
    if name == "float64":
        x = u53(gen, n)
        if lo == 0.0 and hi == 1.0:
            return x
        return fma64(x, hi - lo, lo)
    x = u24(gen, n)
    if not (lo == 0.0 and hi == 1.0):
        x = fma32(x, f32(hi) - f32(lo), f32(lo))
    if name == "float32":
        return x
    out = x.astype(np_dtype)
    t_hi = np.asarray(hi, f64).astype(f32).astype(np_dtype)
    over = out >= t_hi
    if over.any():
        out[over] = np.asarray(lo, f64).astype(f32).astype(np_dtype)
    return out


# -- integers ------------------------------------------------------------------------------------

def random_from_to(gen, n: int, span: int, base: int, wide: bool) -> np.ndarray:
    """``uniform_int_from_to_distribution``: ``(w % span) + base`` as int64, where ``w`` is
    ``random64()`` when ``wide`` (a span of 2**32 or more) and ``random()`` otherwise."""
    if wide:
        w = gen._random64(n)
        r = w % np.uint64(span)
    else:
        w = gen._words(n)
        r = w % np.uint32(span) if span <= 0xFFFFFFFF else w.astype(np.uint64)
    return r.astype(np.int64) + np.int64(base) if base else r.astype(np.int64)


def random_full_64(gen, n: int) -> np.ndarray:
    """``uniform_int_full_range_distribution``: ``random64()`` reinterpreted as int64."""
    return gen._random64(n).view(np.int64)


def random_default(gen, n: int, name: str) -> np.ndarray:
    """``uniform_int_distribution<T>`` (``random_()`` without bounds) as int64 values:
    ``random64() % 2**63`` for int64, ``random64() % (2**53 + 1)`` for double,
    ``random() % (2**digits + 1)`` for float, half and bfloat16, ``random() & 1`` for
    bool, and ``random() % (max + 1)`` for the other integer types."""
    if name == "int64":
        return (gen._random64(n) & np.uint64((1 << 63) - 1)).astype(np.int64)
    if name == "float64":
        return (gen._random64(n) % np.uint64((1 << 53) + 1)).astype(np.int64)
    w = gen._words(n)
    if name in _DIGITS:
        return (w % np.uint32((1 << _DIGITS[name]) + 1)).astype(np.int64)
    if name == "bool":
        return (w & np.uint32(1)).astype(np.int64)
    info = np.iinfo(np.dtype(name))
    if info.max >= 0xFFFFFFFF:
        return w.astype(np.int64)
    return (w % np.uint32(info.max + 1)).astype(np.int64)


# -- the scalar double samplers -----------------------------------------------------------------

def exponential(gen, n: int, lambd: float) -> np.ndarray:
    """``-1 / lambda * log1p(-u)`` with a double uniform per element."""
    u = u53(gen, n)
    return (-1.0 / lambd) * _libm(log1p, -u)


def geometric(gen, n: int, p: float) -> np.ndarray:
    """``ceil(log(u) / log1p(-p))`` with a double uniform per element."""
    u = u53(gen, n)
    return np.ceil(_libm(log, u) / log1p(-p))


def cauchy(gen, n: int, median: float, sigma: float) -> np.ndarray:
    """``median + sigma * tan(pi * (u - 0.5))`` (one FMA) with a double uniform each."""
    u = u53(gen, n)
    t = _libm(_safe(math.tan), math.pi * (u - 0.5))
    return fma64(np.full(n, sigma), t, median)


def log_normal(gen, n: int, mean: float, std: float) -> np.ndarray:
    """``exp(normal(mean, std))`` with the scalar normal sampler."""
    return _libm(exp, normal_scalar(gen, n, mean, std))


def bernoulli_scalar(gen, n: int, p: float) -> np.ndarray:
    """``u < p`` with a double uniform per element (the non-MKL kernel)."""
    return u53(gen, n) < p


def bernoulli_tensor(gen, p: np.ndarray) -> np.ndarray:
    """``u < p`` per element: a double uniform for a float64 ``p``, a float uniform
    (one word) otherwise, compared in float."""
    if p.dtype == f64:
        return u53(gen, p.size) < p.ravel()
    return u24(gen, p.size) < p.ravel().astype(f32)


def poisson(gen, lam: np.ndarray) -> np.ndarray:
    """torch's ``sample_poisson`` per rate, in order (Hormann's transformed rejection from
    rate 10 up, multiplication of uniforms below): float64 results."""
    out = np.empty(lam.size, f64)
    flat = lam.ravel().astype(f64).tolist()
    bg = gen._bg

    def uniform01():
        gen._fresh = False
        hi = bg.random_raw()
        lo = bg.random_raw()
        return (((hi << 32) | lo) & ((1 << 53) - 1)) * _U53

    for i, rate in enumerate(flat):
        if not rate >= 0:
            raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
        out[i] = _poisson_one(rate, uniform01)
    return out


def _poisson_one(lam: float, uniform01) -> int:
    if lam >= 10:
        slam = math.sqrt(lam)
        loglam = log(lam)
        b = 0.931 + 2.53 * slam
        a = -0.059 + 0.02483 * b
        invalpha = 1.1239 + 1.1328 / (b - 3.4)
        vr = 0.9277 - 3.6224 / (b - 2)
        while True:
            u = uniform01() - 0.5
            v = uniform01()
            us = 0.5 - abs(u)
            k = math.floor((2 * a / us + b) * u + lam + 0.43)
            if us >= 0.07 and v <= vr:
                return k
            if k < 0 or (us < 0.013 and v > us):
                continue
            if (log(v) + log(invalpha) - log(a / (us * us) + b)) <= \
                    (-lam + k * loglam - lgamma(k + 1.0)):
                return k
    if lam == 0:
        return 0
    enlam = exp(-lam)
    x = 0
    prod = 1.0
    while True:
        prod *= uniform01()
        if prod > enlam:
            x += 1
        else:
            return x


def randperm(gen, n: int) -> np.ndarray:
    """torch's CPU ``randperm``: below ``2**32 / 20`` a Fisher-Yates shuffle from the front
    (``z = random() % (n - i)``, swap ``i`` and ``i + z``); above it the inside-out
    variant with ``random64() % (i + 1)``."""
    if n < 0xFFFFFFFF // 20:
        perm = list(range(n))
        if n > 1:
            spans = np.arange(n, 1, -1, dtype=np.uint32)
            z = (gen._words(n - 1) % spans).tolist()
            for i, zi in enumerate(z):
                k = i + zi
                perm[i], perm[k] = perm[k], perm[i]
        return np.array(perm, np.int64)
    out = np.empty(n, np.int64)
    z = gen._random64(n) % np.arange(1, n + 1, dtype=np.uint64)
    for i, zi in enumerate(z.tolist()):
        out[i] = out[zi]
        out[zi] = i
    return out
