"""The elementwise and complex torch.* operators of issue 14 against torch: xlogy, i0, sinc,
frexp, ldexp, logaddexp2, logcumsumexp, heaviside, gcd, lcm, nextafter, igamma, igammac,
signbit, mvlgamma, deg2rad, rad2deg, polygamma, complex, polar, angle, isreal: values,
dtypes (promotion), broadcasting, out=, in-place, meta, errors, graphs and gradients."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

import strided
from tests.autograd.grad_harness import check_grads
from tests.conftest import assert_same_error, check

EDGE = [0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 2.5, -3.0, 30.0, -30.0, math.inf, -math.inf, math.nan]


def close(a, b, rtol=1e-12, atol=1e-300):
    if isinstance(b, (tuple, list)):
        assert type(a) is type(b) or isinstance(a, tuple)
        for x, y in zip(a, b):
            close(x, y, rtol, atol)
        return
    assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1], (a.dtype, b.dtype)
    assert tuple(a.shape) == tuple(b.shape), (a.shape, b.shape)
    x = np.asarray(a.detach()._array())
    if b.dtype == torch.bfloat16:
        x, y = x.astype(np.float32), b.detach().float().numpy()
    else:
        y = b.detach().resolve_conj().numpy()
    if x.dtype.kind in "biu":
        np.testing.assert_array_equal(x, y)
        return
    np.testing.assert_allclose(x, y, rtol=rtol, atol=atol, equal_nan=True)


def both(fn, *arrays, rtol=1e-12, atol=1e-300, dtypes=None):
    """fn(lib, *tensors) with both libraries on the same values."""
    dtypes = dtypes or [None] * len(arrays)
    ts = [torch.tensor(a, dtype=None if d is None else getattr(torch, d))
          for a, d in zip(arrays, dtypes)]
    ss = [strided.tensor(a, dtype=None if d is None else getattr(strided, d))
          for a, d in zip(arrays, dtypes)]
    close(fn(strided, *ss), fn(torch, *ts), rtol, atol)


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "bfloat16"])
def test_xlogy_family(dtype):
    x, y = np.meshgrid(EDGE, EDGE)
    x, y = x.ravel().tolist(), y.ravel().tolist()
    tol = dict(rtol=1e-12 if dtype == "float64" else 1e-2, atol=1e-300)
    both(lambda m, a, b: m.xlogy(a, b), x, y, dtypes=[dtype, dtype], **tol)
    both(lambda m, a, b: m.special.xlog1py(a, b), x, y, dtypes=[dtype, dtype], **tol)
    both(lambda m, a, b: m.special.xlogy(a, b), x, y, dtypes=[dtype, dtype], **tol)
    both(lambda m, b: m.xlogy(3, b), y, dtypes=[dtype], **tol)
    both(lambda m, a: m.xlogy(a, 2.5), x, dtypes=[dtype], **tol)
    both(lambda m, a: a.xlogy(0.0), x, dtypes=[dtype], **tol)
    both(lambda m, a, b: a.clone().xlogy_(b), x, y, dtypes=[dtype, dtype], **tol)
    both(lambda m, a: a.clone().xlogy_(2), x, dtypes=[dtype], **tol)


def test_xlogy_promotion_out_errors():
    both(lambda m, a, b: m.xlogy(a, b), [1, 2, 0], [3, 0, 0])                 # int -> float
    both(lambda m, a, b: m.xlogy(a, b), [1, 2, 0], [3.0, 0.5, 0.0], dtypes=["int32", "float64"])
    both(lambda m, a, b: m.xlogy(a, b), [[1.0], [2.0]], [3.0, 0.5, 0.0])      # broadcast
    both(lambda m, a, b: m.xlogy(a, b, out=m.empty(0, dtype=m.float64)), [1.0, 2.0], [3.0, 4.0])
    check(lambda m: m.xlogy(m.tensor([1, 2]), m.tensor([3, 4]), out=m.empty(2, dtype=m.int64)))
    check(lambda m: m.tensor([1, 2]).xlogy_(m.tensor([3.0, 4.0])))
    check(lambda m: m.xlogy(m.ones(2, dtype=m.complex64), m.ones(2, dtype=m.complex64)))
    check(lambda m: m.xlogy(m.ones(2), m.ones(3)))
    r = strided.xlogy(strided.empty(2, 3, device="meta"), strided.empty(3, device="meta"))
    assert r.device.type == "meta" and tuple(r.shape) == (2, 3)


@pytest.mark.parametrize("name", ["i0", "sinc", "deg2rad", "rad2deg", "signbit"])
def test_unary(name):
    for dtype in ("float64", "float32", "float16", "bfloat16"):
        tol = 1e-12 if dtype == "float64" else 1e-6 if dtype == "float32" else 1e-2
        both(lambda m, a: getattr(m, name)(a), EDGE + [100.0, -7.25], dtypes=[dtype], rtol=tol)
        both(lambda m, a: getattr(a, name)(), [0.25, -3.0], dtypes=[dtype], rtol=tol)
        if name != "signbit":
            both(lambda m, a: getattr(a.clone(), name + "_")(), [0.25, -3.0], dtypes=[dtype],
                 rtol=tol)
    for dtype in ("int64", "int16", "uint8", "bool"):
        vals = [0, 1, 1, 0] if dtype in ("uint8", "bool") else [-3, 0, 2, 7]
        both(lambda m, a: getattr(m, name)(a), vals, dtypes=[dtype], rtol=1e-6)
    both(lambda m, a: getattr(m, name)(a, out=m.empty(0, dtype=a.dtype if name != "signbit"
                                                    else m.bool)), [0.25, -3.0], rtol=1e-6)
    if name in ("i0", "deg2rad", "rad2deg", "signbit"):
        check(lambda m: getattr(m, name)(m.ones(2, dtype=m.complex64)))
    check(lambda m: getattr(m.ones(2, dtype=m.int64), name + "_")()
          if name != "signbit" else m.signbit(m.ones(2), out=m.empty(2)))


def test_sinc_complex():
    z = [0j, 1 + 1j, -0.5 + 2j, 3 - 0.25j]
    both(lambda m, a: m.sinc(a), z, dtypes=["complex128"])
    both(lambda m, a: m.sinc(a), z, dtypes=["complex64"], rtol=1e-5)


def test_frexp_ldexp():
    vals = EDGE + [1e-310, 3e38, 0.1]
    for dtype in ("float64", "float32", "float16", "bfloat16"):
        v = vals if dtype == "float64" else [x for x in vals if x not in (1e-310, 3e38)]
        both(lambda m, a: m.frexp(a), v, dtypes=[dtype])
        both(lambda m, a: a.frexp(), v, dtypes=[dtype])
    r = strided.frexp(strided.tensor([1.5, 8.0]))
    assert type(r).__name__ == "frexp" and r.mantissa is r[0] and r.exponent is r[1]
    both(lambda m, a: m.frexp(a, out=(m.empty(0), m.empty(0, dtype=m.int32))), [3.0, 0.75])
    check(lambda m: m.frexp(m.tensor([1, 2])))
    check(lambda m: m.frexp(m.ones(2), out=(m.empty(2, dtype=m.float64),
                                             m.empty(2, dtype=m.int32))))
    check(lambda m: m.frexp(m.ones(2), out=(m.empty(2), m.empty(2, dtype=m.int64))))
    both(lambda m, a, b: m.ldexp(a, b), [1.0, -2.5, 0.5], [3, -2, 0])
    both(lambda m, a, b: m.ldexp(a, b), [1, 2, 3], [3, -2, 0])
    both(lambda m, a, b: m.ldexp(a, b), [1.0, 2.0], [0.5, 3.0], dtypes=["float16", "float64"])
    both(lambda m, a, b: a.clone().ldexp_(b), [1.0, -2.5], [3, 1])
    both(lambda m, a, b: m.ldexp(a, b, out=m.empty(0)), [1.0, -2.5], [3, 1],
         dtypes=["float32", "int64"])
    assert strided.ldexp(strided.ones(2, requires_grad=True), strided.tensor([1, 2])) \
        .grad_fn.name() == "LdexpBackward0"


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "bfloat16"])
def test_binary_float_ops(dtype):
    x, y = np.meshgrid(EDGE, EDGE)
    x, y = x.ravel().tolist(), y.ravel().tolist()
    tol = 1e-12 if dtype == "float64" else 1e-5 if dtype == "float32" else 1e-2
    both(lambda m, a, b: m.logaddexp2(a, b), x, y, dtypes=[dtype, dtype], rtol=tol)
    both(lambda m, a, b: m.nextafter(a, b), x, y, dtypes=[dtype, dtype], rtol=0)
    both(lambda m, a, b: a.clone().nextafter_(b), x, y, dtypes=[dtype, dtype], rtol=0)
    check(lambda m: m.logaddexp2(m.tensor([1, 2]), m.tensor([1, 2])))
    check(lambda m: m.nextafter(m.tensor([1, 2]), m.tensor([1, 2])))


def test_igamma():
    rng = np.random.default_rng(3)
    a = np.concatenate([rng.uniform(0, 12, 200), [0, 0, 1, -1, math.inf, 1, 2, 0.5, 1e-4]])
    x = np.concatenate([rng.uniform(0, 20, 200), [1, 0, 0, 1, 1, math.inf, -1, math.nan,
                                                 1e-4]])
    for fn in ("igamma", "igammac"):
        both(lambda m, p, q, fn=fn: getattr(m, fn)(p, q), a.tolist(), x.tolist(), rtol=1e-10,
             dtypes=["float64", "float64"])
        both(lambda m, p, q, fn=fn: getattr(p.clone(), fn + "_")(q), a.tolist(), x.tolist(),
             rtol=1e-10, dtypes=["float64", "float64"])
        both(lambda m, p, q, fn=fn: getattr(m, fn)(p, q), a.tolist(), x.tolist(),
             dtypes=["float32", "float32"], rtol=2e-5)
        check(lambda m, fn=fn: getattr(m, fn)(m.tensor([1, 2]), m.tensor([1, 2])))
    g = strided.igamma(strided.ones(2, requires_grad=True), strided.ones(2))
    assert g.grad_fn.name() == "IgammaBackward0"
    assert_same_error(lambda: strided.igamma(strided.ones(2, requires_grad=True),
                                             strided.ones(2)).sum().backward(),
                      lambda: torch.igamma(torch.ones(2, requires_grad=True),
                                           torch.ones(2)).sum().backward())


def test_integer_ops():
    a = [12, -18, 0, 7, 0, -5, 2 ** 12]
    b = [18, 12, 5, 0, 0, -10, 6]
    for dtype in ("int64", "int32", "int16", "int8", "uint8"):
        aa = [abs(v) % 100 for v in a] if dtype in ("uint8", "int8") else a
        bb = [abs(v) % 100 for v in b] if dtype in ("uint8", "int8") else b
        for fn in ("gcd", "lcm"):
            both(lambda m, p, q, fn=fn: getattr(m, fn)(p, q), aa, bb, dtypes=[dtype, dtype])
            both(lambda m, p, q, fn=fn: getattr(p.clone(), fn + "_")(q), aa, bb,
                 dtypes=[dtype, dtype])
    both(lambda m, p, q: m.gcd(p, q), [4, 6], [6, 9], dtypes=["int64", "int8"])
    both(lambda m, p: m.gcd(p, m.tensor(6)), [4, 9])
    for fn in ("gcd", "lcm"):
        check(lambda m, fn=fn: getattr(m, fn)(m.ones(2), m.ones(2)))
        check(lambda m, fn=fn: getattr(m, fn)(m.ones(2, dtype=m.bool), m.ones(2, dtype=m.bool)))
    x, v = np.meshgrid(EDGE, [0.5, 0.0, -1.0, math.nan])
    both(lambda m, p, q: m.heaviside(p, q), x.ravel().tolist(), v.ravel().tolist())
    both(lambda m, p, q: m.heaviside(p, q), [-2, 0, 3], [7, 7, 7])
    both(lambda m, p, q: p.clone().heaviside_(q), [-2.0, 0.0, 3.0], [0.5])
    check(lambda m: m.heaviside(m.ones(2), m.ones(2, dtype=m.float64)))
    check(lambda m: m.heaviside(m.ones(2, dtype=m.complex64), m.ones(2, dtype=m.complex64)))


def test_logcumsumexp():
    rng = np.random.default_rng(5)
    v = rng.standard_normal((3, 4, 5)) * 10
    v[0, 0, 2] = -math.inf
    v[1, 2, 3] = math.inf
    v[2, 1, 1] = math.nan
    for dim in (0, 1, -1):
        both(lambda m, a, dim=dim: m.logcumsumexp(a, dim), v.tolist(), dtypes=["float64"])
        both(lambda m, a, dim=dim: a.logcumsumexp(dim), v.tolist(), dtypes=["float32"], rtol=1e-5)
    both(lambda m, a: m.logcumsumexp(a, 0), 2.5)
    both(lambda m, a: m.logcumsumexp(a, 0), [[1.0, 2.0], [3.0, 4.0]], dtypes=["float16"],
         rtol=1e-2)
    z = (rng.standard_normal((4, 3)) + 1j * rng.standard_normal((4, 3))).tolist()
    both(lambda m, a: m.logcumsumexp(a, 0), z, dtypes=["complex128"], rtol=1e-10)
    both(lambda m, a: m.logcumsumexp(a, 1, out=m.empty(0)), [[1.0, 2.0]], dtypes=["float32"])
    check(lambda m: m.logcumsumexp(m.tensor([1, 2]), 0))
    check(lambda m: m.logcumsumexp(m.ones(2), 1))


def test_mvlgamma_polygamma():
    x = [2.0, 3.5, 10.0, 1.25]
    for p in (1, 2, 5):
        both(lambda m, a, p=p: m.mvlgamma(a, p), x, dtypes=["float64"])
        both(lambda m, a, p=p: a.mvlgamma(p), x, dtypes=["float32"], rtol=1e-6)
        both(lambda m, a, p=p: a.clone().mvlgamma_(p), x, dtypes=["float64"])
        both(lambda m, a, p=p: m.mvlgamma(a, p=p), [3, 4, 5], rtol=1e-6)
    check(lambda m: m.mvlgamma(m.ones(2), 0))
    for n in (0, 1, 2, 4):
        both(lambda m, a, n=n: m.polygamma(n, a), EDGE + [-2.5, 7.0], rtol=1e-11,
             dtypes=["float64"])
        both(lambda m, a, n=n: m.polygamma(n, a), EDGE + [-2.5, 7.0], rtol=1e-5)
        both(lambda m, a, n=n: a.polygamma(n), [0.5, 3.0], dtypes=["float32"], rtol=1e-5)
        both(lambda m, a, n=n: a.clone().polygamma_(n), [0.5, 3.0], rtol=1e-11,
             dtypes=["float64"])
        both(lambda m, a, n=n: m.polygamma(n, a, out=m.empty(0)), [0.5, 3.0], dtypes=["float32"],
             rtol=1e-5)
    both(lambda m, a: m.polygamma(1, a), [1, 2, 3])
    check(lambda m: m.polygamma(-1, m.ones(2)))
    check(lambda m: m.polygamma(1, m.ones(2, dtype=m.complex64)))


def test_complex_ops():
    re, im = [1.0, -2.0, 0.0, 3.5], [0.5, 0.0, -1.0, 2.0]
    for dtype in ("float32", "float64"):
        both(lambda m, a, b: m.complex(a, b), re, im, dtypes=[dtype, dtype])
        both(lambda m, a, b: m.polar(a, b), [1.0, 2.0, 0.0, 3.0], im, dtypes=[dtype, dtype],
             rtol=1e-6)
        both(lambda m, a, b: m.complex(a, b), [[1.0], [2.0]], im, dtypes=[dtype, dtype])
    both(lambda m, a, b: m.complex(a, b, out=m.empty(0, dtype=m.complex128)), re, im,
         dtypes=["float64", "float64"])
    both(lambda m, a, b: m.polar(a, b, out=m.empty(0, dtype=m.complex64)), re, im,
         dtypes=["float32", "float32"], rtol=1e-6)
    check(lambda m: m.complex(m.tensor([1, 2]), m.tensor([1, 2])))
    check(lambda m: m.complex(m.ones(2), m.ones(2, dtype=m.float64)))
    check(lambda m: m.polar(m.tensor([1, 2]), m.tensor([1, 2])))
    z = [1 + 1j, -1 + 0j, 0j, -2 - 3j, complex(math.inf, 1)]
    both(lambda m, a: m.angle(a), z, dtypes=["complex128"])
    both(lambda m, a: m.angle(a), z, dtypes=["complex64"], rtol=1e-6)
    both(lambda m, a: m.angle(a), EDGE, dtypes=["float32"])
    both(lambda m, a: m.angle(a), [-1, 0, 3])
    both(lambda m, a: m.angle(a), [True, False])
    both(lambda m, a: a.angle(), z, dtypes=["complex64"], rtol=1e-6)
    both(lambda m, a: m.angle(a, out=m.empty(0)), [-1.0, 2.0])
    both(lambda m, a: m.isreal(a), [1 + 0j, 1j, 0j, complex(math.nan, 0)])
    both(lambda m, a: m.isreal(a), [1.0, math.nan])
    both(lambda m, a: a.isreal(), [1, 2])


GRADS = [
    ("xlogy", lambda m, x, y: m.xlogy(x, y.abs())),
    ("xlogy_zero_self", lambda m, x, y: m.xlogy(x * 0, y)),
    ("xlogy_scalar_self", lambda m, y: m.xlogy(2.0, y.abs())),
    ("xlogy_scalar_other", lambda m, x: m.xlogy(x, 3.0)),
    ("xlogy_scalar_other_neg", lambda m, x: m.xlogy(x * 0, -1.0)),
    ("i0", lambda m, x: m.i0(x)),
    ("sinc", lambda m, x: m.sinc(x)),
    ("sinc_zero", lambda m, x: m.sinc(x * 0)),
    ("logaddexp2", lambda m, x, y: m.logaddexp2(x, y)),
    ("nextafter", lambda m, x, y: m.nextafter(x, y)),
    ("ldexp", lambda m, x, y: m.ldexp(x, y)),
    ("frexp", lambda m, x: m.frexp(x)[0]),
    ("logcumsumexp", lambda m, x: m.logcumsumexp(x, 1)),
    ("logcumsumexp_dim0", lambda m, x: m.logcumsumexp(x * 10, 0)),
    ("igamma_other", lambda m, x, y: m.igamma(x.detach().abs() + 0.5, y.abs())),
    ("igammac_other", lambda m, x, y: m.igammac(x.detach().abs() + 0.5, y.abs())),
    ("mvlgamma", lambda m, x: m.mvlgamma(x.abs() + 2, 3)),
    ("polygamma", lambda m, x: m.polygamma(1, x.abs() + 0.5)),
    ("polygamma_", lambda m, x: (x.abs() + 0.5).polygamma_(2)),
    ("deg2rad", lambda m, x: m.deg2rad(x)),
    ("rad2deg", lambda m, x: m.rad2deg(x)),
    ("complex", lambda m, x, y: m.view_as_real(m.complex(x, y))),
    ("polar", lambda m, x, y: m.view_as_real(m.polar(x, y))),
    ("angle_real", lambda m, x: m.angle(x)),
    ("angle_complex", lambda m, x, y: m.angle(m.complex(x, y))),
    ("kl_div", lambda m, x, y: m.nn.functional.kl_div(x, y.abs(), reduction="sum")),
]


@pytest.mark.parametrize("name,program", GRADS, ids=[g[0] for g in GRADS])
def test_grads(name, program):
    nargs = program.__code__.co_argcount - 1
    check_grads(program, [(2, 3)] * nargs, rtol=1e-9, atol=1e-11)


def test_node_names():
    pairs = [
        (lambda m, x: m.xlogy(x, x), "XlogyBackward0"),
        (lambda m, x: m.xlogy(2, x), "XlogyBackward1"),
        (lambda m, x: m.xlogy(x, 2), "XlogyBackward2"),
        (lambda m, x: m.special.xlog1py(x, 2), "SpecialXlog1PyBackward2"),
        (lambda m, x: m.i0(x), "I0Backward0"),
        (lambda m, x: m.polygamma(2, x), "PolygammaBackward0"),
        (lambda m, x: m.deg2rad(x), "Deg2RadBackward0"),
        (lambda m, x: m.rad2deg(x), "Rad2DegBackward0"),
        (lambda m, x: m.logcumsumexp(x, 0), "LogcumsumexpBackward0"),
        (lambda m, x: m.frexp(x)[0], "FrexpBackward0"),
        (lambda m, x: m.complex(x, x), "ComplexBackward0"),
        (lambda m, x: m.polar(x, x), "PolarBackward0"),
        (lambda m, x: m.angle(x), "AngleBackward0"),
        (lambda m, x: m.sinc(x), "SincBackward0"),
        (lambda m, x: m.mvlgamma(x + 3, 2), "MvlgammaBackward0"),
        (lambda m, x: m.nextafter(x, x), "NextafterBackward0"),
        (lambda m, x: m.logaddexp2(x, x), "Logaddexp2Backward0"),
    ]
    for fn, name in pairs:
        t = fn(torch, torch.rand(3, requires_grad=True))
        s = fn(strided, strided.rand(3, requires_grad=True))
        assert t.grad_fn.name() == name, (t.grad_fn.name(), name)
        assert s.grad_fn.name() == name, (s.grad_fn.name(), name)
    assert strided.frexp(strided.rand(2, requires_grad=True))[1].grad_fn is None
