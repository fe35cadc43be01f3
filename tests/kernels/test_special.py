"""Accuracy of the vectorised special functions (``strided.kernels._special``).

Errors are measured in ulps: ``|got - ref|`` over the spacing of the result dtype at the
reference. float64 is checked against Python's ``math`` (erf, erfc, lgamma) on dense grids
and random points, tails, tiny arguments and the pieces' boundaries, and against mpmath
(a test dependency) at 40 digits, which is where the tight bounds live (``math.lgamma`` itself
is off by thousands of ulps next to its zeros at 1 and 2, and ``math.erfc`` by 2 ulps).
digamma, erfinv and gelu are compared with torch, float32 and the half types with torch's
float64 result rounded; special values (infinities, NaN, poles, signed zeros) must match
torch bit for bit.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
import torch

import strided
from strided.kernels import _special

torch.set_num_threads(1)

RNG = np.random.default_rng(20250611)
F64 = np.float64
F32 = np.float32
DIGAMMA_ROOT = 1.4616321449683622


def ulps(got, ref, dtype):
    """``|got - ref|`` in units of the spacing of ``dtype`` at ``ref`` (finite refs)."""
    ref = np.asarray(ref, F64)
    spacing = np.spacing(np.abs(ref.astype(dtype))).astype(F64)
    return np.abs(np.asarray(got, F64) - ref) / spacing


def worst(err, xs):
    i = int(np.argmax(err))
    return f"max {err[i]:.2f} ulp at x = {xs[i]!r}"


def by_math(fn, xs):
    return np.fromiter(map(fn, xs.tolist()), F64, count=xs.size)


def near(points, n=40, spread=1e-3):
    """Arguments around ``points``: a few ulps either side and a geometric spread."""
    out = []
    for p in points:
        out.append(p + np.geomspace(1e-15, spread, n) * max(abs(p), 1))
        out.append(p - np.geomspace(1e-15, spread, n) * max(abs(p), 1))
        out.append([np.nextafter(p, -np.inf), p, np.nextafter(p, np.inf)])
    return np.concatenate(out)


def t64(fn, xs):
    return fn(torch.from_numpy(np.asarray(xs, F64))).numpy()


# --------------------------------------------------------------------------- float64 vs math

ERF_X = np.concatenate([
    np.linspace(-7, 7, 20001), RNG.standard_normal(20000) * 2,
    np.geomspace(1e-320, 1, 400), -np.geomspace(1e-320, 1, 400), near([0.5, 4.0, 6.0])])


def test_erf_float64_vs_math():
    err = ulps(_special.erf(ERF_X), by_math(math.erf, ERF_X), F64)
    assert err.max() <= 3, worst(err, ERF_X)


def test_erfc_float64_vs_math():
    xs = np.concatenate([ERF_X, np.linspace(4, 27.3, 20001), RNG.uniform(0, 27, 10000),
                         near([26.5, 27.0, 28.0])])
    err = ulps(_special.erfc(xs), by_math(math.erfc, xs), F64)
    assert err.max() <= 7, worst(err, xs)


def _lgamma_math(x):
    try:
        return math.lgamma(x)
    except ValueError:
        return math.inf


def test_lgamma_float64_vs_math():
    xs = np.concatenate([np.linspace(1e-3, 40, 20001), RNG.uniform(0, 20, 10000),
                         np.geomspace(1e-320, 1e305, 2000), near([1.0, 3.0, 10.0])])
    got, ref = _special.lgamma(xs), by_math(_lgamma_math, xs)
    # math.lgamma is accurate only in absolute terms next to its zeros at 1 and 2
    err = np.abs(got - ref) / (np.spacing(np.abs(ref)) + 1e-15)
    assert err.max() <= 6, worst(err, xs)


def test_lgamma_negative_float64_vs_math():
    """x < 0: log(pi / |sin(pi x)|) - lgamma(1 - x); the error is measured against the
    larger of the two terms (the result cancels next to its zeros)."""
    n = RNG.integers(1, 60, 8000)
    xs = np.concatenate([-n + RNG.uniform(0.001, 0.999, n.size),
                         -np.geomspace(1e-300, 0.999, 500), np.arange(-40.5, 0, 1)])
    got, ref = _special.lgamma(xs), by_math(_lgamma_math, xs)
    term = by_math(_lgamma_math, 1 - xs)
    scale = np.maximum(np.maximum(np.abs(ref), np.abs(term)), np.abs(ref + term))
    err = np.abs(got - ref) / np.spacing(scale)
    assert err.max() <= 6, worst(err, xs)


# --------------------------------------------------------------------------- float64 vs mpmath

def _mp_reference(fn, xs):
    mp.mp.dps = 40
    return mp, [fn(mp, mp.mpf(float(v))) for v in xs]


def _mp_ulps(got, refs, mp):
    out = np.empty(len(refs))
    for i, (g, r) in enumerate(zip(got.tolist(), refs)):
        out[i] = float(abs(mp.mpf(g) - r)) / np.spacing(abs(float(r)))
    return out


MP_CASES = {
    # name: (function, mpmath reference, arguments, bound in ulps)
    "erf": (_special.erf, lambda mp, v: mp.erf(v),
            np.concatenate([np.linspace(-6, 6, 1201), near([0.5], 10)]), 2.5),
    "erfc": (_special.erfc, lambda mp, v: mp.erfc(v),
             np.concatenate([np.linspace(-6, 27, 1651), near([0.5, 4.0], 10)]), 5),
    "erfinv": (_special.erfinv, lambda mp, v: mp.erfinv(v),
               np.concatenate([np.linspace(-0.999, 0.999, 1001), 1 - np.geomspace(1e-3, 1e-16, 300),
                               near([0.5], 10), np.geomspace(1e-300, 0.1, 50)]), 4),
    "lgamma": (_special.lgamma, lambda mp, v: mp.loggamma(v).real,
               np.concatenate([np.linspace(0.01, 30, 1201), np.geomspace(1e-300, 1e300, 150),
                               near([1.0, 2.0], 15), near([3.0, 10.0], 5)]), 5.5),
    "digamma": (_special.digamma, lambda mp, v: mp.digamma(v),
                np.concatenate([np.linspace(0.01, 30, 1201), np.geomspace(1e-300, 1e300, 150),
                                near([DIGAMMA_ROOT], 20), near([1.0, 2.0, 10.0], 5)]), 5),
}


@pytest.mark.parametrize("name", list(MP_CASES))
def test_float64_vs_mpmath(name):
    fn, ref_fn, xs, bound = MP_CASES[name]
    xs = xs[xs != 2.0] if name == "lgamma" else xs   # exact zeros: checked below
    mp, refs = _mp_reference(ref_fn, xs)
    err = _mp_ulps(fn(xs), refs, mp)
    assert err.max() <= bound, worst(err, xs)


def test_reflection_float64_vs_mpmath():
    """Negative arguments: absolute error in ulps of the larger reflection term."""
    xs = np.concatenate([-RNG.integers(0, 40, 400) - RNG.uniform(0.01, 0.99, 400),
                         -np.geomspace(1e-200, 0.5, 40), [-0.5, -1.5, -2.5, -30.5]])
    mp, refs = _mp_reference(lambda mp, v: (mp.log(mp.pi / abs(mp.sin(mp.pi * v))),
                                            mp.loggamma(1 - v).real,
                                            mp.pi * mp.cot(mp.pi * v), mp.digamma(1 - v)), xs)
    for fn, combine in ((_special.lgamma, lambda a, b: (a - b, a, b)),
                        (_special.digamma, lambda a, b: (b - a, a, b))):
        got = fn(xs).tolist()
        for g, x, r in zip(got, xs, refs):
            pair = r[:2] if fn is _special.lgamma else r[2:]
            ref, a, b = combine(*pair)
            scale = max(abs(float(a)), abs(float(b)), abs(float(ref)))
            err = float(abs(mp.mpf(g) - ref)) / np.spacing(scale)
            assert err <= 4, (fn.__name__, x, err)


# --------------------------------------------------------------------------- vs torch

def test_digamma_float64_vs_torch():
    xs = np.concatenate([np.linspace(-30, 30, 12001) + 1e-3, RNG.uniform(0, 20, 5000),
                         np.geomspace(1e-300, 1e300, 500), near([DIGAMMA_ROOT], 10)])
    got, ref = _special.digamma(xs), t64(torch.digamma, xs)
    # torch's own digamma is accurate to ~1e-15 in absolute terms (recurrence to x >= 10),
    # and loses ~1e-13 next to the poles (pi / tan(pi x) of an unreduced x)
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-14)


def test_erfinv_float64_vs_torch():
    xs = np.concatenate([np.linspace(-1, 1, 20001)[1:-1], RNG.uniform(-1, 1, 10000),
                         1 - np.geomspace(1e-2, 1.2e-16, 500),
                         -(1 - np.geomspace(1e-2, 1e-16, 100)), np.geomspace(1e-310, 1e-3, 200),
                         near([0.5], 10)])
    err = ulps(_special.erfinv(xs), t64(torch.erfinv, xs), F64)
    assert err.max() <= 4.5, worst(err, xs)


def test_gelu_float64_vs_torch():
    xs = np.concatenate([np.linspace(-12, 12, 24001), RNG.standard_normal(10000) * 3,
                         np.geomspace(1e-300, 1e300, 300), -np.geomspace(1e-300, 1e300, 300)])
    got, ref = _special.gelu(xs), t64(torch.nn.functional.gelu, xs)
    # Phi = (1 + erf)/2 is accurate in absolute terms, in torch as here: errors ~ eps |x|
    err = np.abs(got - ref) / (np.spacing(np.abs(ref)) + np.spacing(np.abs(xs)))
    assert err.max() <= 4, worst(err, xs)


# --------------------------------------------------------------------------- float32, half types

F32_CASES = {
    # name: (torch function, arguments, bound in float32 ulps)
    "erf": (torch.erf, np.concatenate([np.linspace(-5, 5, 20001), np.geomspace(1e-44, 1, 300)]), 3),
    "erfc": (torch.erfc, np.concatenate([np.linspace(-5, 10.1, 20001), RNG.standard_normal(5000)]),
             6),
    "erfinv": (torch.erfinv, np.concatenate([np.linspace(-1, 1, 20001)[1:-1],
                                             1 - np.geomspace(1e-2, 6e-8, 300)]), 3),
    "lgamma": (torch.lgamma, np.concatenate([np.linspace(-30, 40, 20001) + 1e-3,
                                             np.geomspace(1e-38, 1e36, 300), near([1.0, 2.0])]), 1),
    "digamma": (torch.digamma, np.concatenate([np.linspace(0.01, 40, 20001),
                                               np.geomspace(1e-38, 1e36, 300)]), 1),
    "gelu": (torch.nn.functional.gelu, np.linspace(-6, 6, 20001), 3),
}


@pytest.mark.parametrize("name", list(F32_CASES))
def test_float32_vs_torch_float64(name):
    """float32 against torch's float64 result: within a few float32 ulps (lgamma and
    digamma compute in float64 and round once)."""
    tfn, xs, bound = F32_CASES[name]
    xs = xs.astype(F32)
    got = getattr(_special, name)(xs)
    assert got.dtype == F32
    ref = t64(tfn, xs.astype(F64))
    finite = np.isfinite(ref)
    if name == "lgamma":      # near its zeros x ~ -2.457, ... only absolute accuracy
        finite &= np.abs(ref) > 1e-3
    err = ulps(got[finite], ref[finite], F32)
    if name == "gelu":        # absolute accuracy as torch's: in ulps of x
        err = np.abs(got.astype(F64) - ref) / np.spacing(np.abs(xs)).astype(F64)
    assert err.max() <= bound, worst(err, xs[finite] if name != "gelu" else xs)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("name", ["erf", "erfc", "erfinv", "lgamma", "digamma"])
def test_half_types_vs_torch(name, dtype):
    xs = np.linspace(-0.99, 0.99, 397) if name == "erfinv" else np.linspace(-4.9, 8, 397)
    s = getattr(strided, name)(strided.tensor(xs.tolist(), dtype=getattr(strided, dtype)))
    t = getattr(torch, name)(torch.tensor(xs.tolist(), dtype=getattr(torch, dtype)))
    assert str(s.dtype) == str(t.dtype)
    a, e = s.float().numpy(), t.float().numpy()
    tol = 2 ** -10 if dtype == "float16" else 2 ** -7     # one ulp of the half type
    np.testing.assert_allclose(a, e, rtol=tol, atol=tol * 1e-2, equal_nan=True)


# --------------------------------------------------------------------------- special values

SPECIAL_X = [0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 0.5, -0.5, -3.0, -2.5, 1e-300, -1e-300, 5e-324,
             -5e-324, 1e-38, 3e10, -3e10, 1e300, -1e300, 2.0 ** 60, -(2.0 ** 60), 30.0, -30.0,
             math.inf, -math.inf, math.nan]


def _bitwise_same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    same = (a == b) & (np.signbit(a) == np.signbit(b))
    return same | (np.isnan(a) & np.isnan(b))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", ["erf", "erfc", "erfinv", "lgamma", "digamma", "gelu"])
def test_special_values_match_torch(name, dtype):
    """Wherever torch gives an infinity, a NaN, a (signed) zero or an exact 1 or 2 (erf and
    erfc saturating), strided gives the same bits."""
    xs = SPECIAL_X + ([1.0 - 2 ** -53, -1.0 + 2 ** -53, 1.5, -1.5] if name == "erfinv" else [])
    if name == "gelu" and dtype == "float32":
        xs = [v for v in xs if not v > 3.4e38]   # torch: NaN from its vectorised float32 loop
    tfn = torch.nn.functional.gelu if name == "gelu" else getattr(torch, name)
    sfn = strided.nn.functional.gelu if name == "gelu" else getattr(strided, name)
    ref = tfn(torch.tensor(xs, dtype=getattr(torch, dtype))).numpy()
    got = sfn(strided.tensor(xs, dtype=getattr(strided, dtype))).numpy()
    special = ~np.isfinite(ref) | (ref == 0) | (np.abs(ref) == 1) | (ref == 2)
    ok = _bitwise_same(got, ref) | ~special
    bad = [(x, g, r) for x, g, r, k in zip(xs, got, ref, ok) if not k]
    assert not bad, bad


def test_exact_values():
    assert _special.lgamma(np.array([1.0, 2.0])).tolist() == [0.0, 0.0]
    assert _special.lgamma(np.array([1.0, 2.0], F32)).tolist() == [0.0, 0.0]
    assert _special.erfinv(np.array([0.0, -0.0, 1.0, -1.0])).tolist() == [0, 0, math.inf, -math.inf]
    assert np.signbit(_special.erfinv(np.array([-0.0]))).all()
    assert _special.digamma(np.array([0.0, -0.0])).tolist() == [-math.inf, math.inf]
    assert np.isnan(_special.digamma(np.array([-1.0, -2.0, -1e20, -math.inf]))).all()
    assert _special.lgamma(np.array([0.0, -0.0, -1.0, -7.0, math.inf, -math.inf])).tolist() \
        == [math.inf] * 6
    assert _special.digamma(np.array([-0.5]))[0] == pytest.approx(0.03648997397857652, rel=1e-15)


# --------------------------------------------------------------------------- through the API

@pytest.mark.parametrize("name", ["erf", "erfc", "erfinv", "lgamma", "digamma"])
def test_integer_and_bool_inputs_promote(name):
    vals = [0, 1, 2, 3, -1, -2] if name != "erfinv" else [0, 1, -1, 0, 1, 0]
    for sd, td in (("int64", torch.int64), ("int32", torch.int32), ("uint8", torch.uint8)):
        v = [abs(x) for x in vals] if sd == "uint8" else vals
        s = getattr(strided, name)(strided.tensor(v, dtype=getattr(strided, sd)))
        t = getattr(torch, name)(torch.tensor(v, dtype=td))
        assert str(s.dtype) == str(t.dtype)
        np.testing.assert_array_equal(np.isnan(s.numpy()), np.isnan(t.numpy()))
        np.testing.assert_allclose(s.numpy(), t.numpy(), rtol=1e-6, equal_nan=True)
    s = getattr(strided, name)(strided.tensor([True, False]))
    t = getattr(torch, name)(torch.tensor([True, False]))
    assert str(s.dtype) == str(t.dtype)
    np.testing.assert_allclose(s.numpy(), t.numpy(), rtol=1e-6, equal_nan=True)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_large_strided_inputs_match_torch(dtype):
    """Several blocks, a transposed view, mixed pieces: the blocked, piecewise evaluation
    lines up with torch element by element."""
    base = RNG.standard_normal((700, 300)) * 6
    rtol = 1e-5 if dtype == "float32" else 1e-12
    for name in ("erf", "erfc", "lgamma", "digamma", "gelu"):
        sfn = strided.nn.functional.gelu if name == "gelu" else getattr(strided, name)
        tfn = torch.nn.functional.gelu if name == "gelu" else getattr(torch, name)
        s = sfn(strided.from_numpy(base.astype(dtype)).t())
        t = tfn(torch.from_numpy(base.astype(dtype)).t())
        atol = 1e-5 if name == "digamma" else 1e-6     # digamma cancels near its roots
        np.testing.assert_allclose(s.numpy(), t.numpy(), rtol=rtol, atol=atol, err_msg=name)
    u = np.tanh(base).astype(dtype)
    np.testing.assert_allclose(strided.erfinv(strided.from_numpy(u).t()).numpy(),
                               torch.erfinv(torch.from_numpy(u).t()).numpy(), rtol=rtol * 10)


def test_zero_dim_and_empty():
    for name in ("erf", "erfc", "erfinv", "lgamma", "digamma"):
        fn = getattr(_special, name)
        assert fn(np.float32(0.25)).dtype == F32
        assert fn(np.array(0.25)).shape == ()
        assert fn(np.zeros((0, 3))).shape == (0, 3)
