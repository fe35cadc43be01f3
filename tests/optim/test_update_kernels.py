"""The in-place kernels the optimizers lean on (lerp_ with a scalar weight, addcmul_,
addcdiv_, add_ with alpha) have fast paths that update one temporary in place: they must
give exactly the values of the plain formulas they replace (Note in kernels/elementwise.py),
for every float dtype, broadcast shapes and 0-dim inputs."""

from __future__ import annotations

import numpy as np
import pytest

import strided

RNG = np.random.default_rng(11)
SHAPES = [((50, 40), (50, 40)), ((50, 40), (40,)), ((3, 1), (1, 5)), ((), ()), ((4,), ())]
DTYPES = [("float16", np.float32), ("bfloat16", np.float32), ("float32", np.float32),
          ("float64", np.float64), ("complex64", np.complex64)]


def _wide(t, dname):
    return t.to(strided.complex128 if dname.startswith("complex") else strided.float64).numpy()


def _ref(x, d, dname):
    return _wide(strided.tensor(np.asarray(x)).to(d), dname)


def _inputs(dname, opm, sa, sb):
    d = getattr(strided, dname)
    A = strided.tensor(RNG.standard_normal(sa)).to(d)
    B = strided.tensor(RNG.standard_normal(sb)).to(d)
    C = strided.tensor(np.abs(RNG.standard_normal(sb)) + 0.1).to(d)
    a, b, c = (_wide(t, dname).astype(opm) if t.dtype not in (strided.float16, strided.bfloat16)
               else t.to(strided.float32).numpy() for t in (A, B, C))
    a, b = np.broadcast_arrays(a, b)
    _, c = np.broadcast_arrays(a, c)
    return d, A, B, C, a, b, c


@pytest.mark.parametrize("dname,opm", DTYPES)
@pytest.mark.parametrize("sa,sb", SHAPES)
def test_lerp_scalar_weight(dname, opm, sa, sb):
    d, A, B, C, a, b, c = _inputs(dname, opm, sa, sb)
    for w in (0.1, 0.7, -0.3, 0.5, float("nan")):
        W = opm(w)
        with np.errstate(all="ignore"):
            ref = np.where(np.abs(W) < 0.5, a + W * (b - a), b - (b - a) * (1 - W))
        results = [A.lerp(B, w)]
        if tuple(A.shape) == tuple(strided.broadcast_shapes(A.shape, B.shape)):
            results.append(A.clone().lerp_(B, w))
        for r in results:
            np.testing.assert_array_equal(_wide(r, dname), _ref(ref, d, dname))


@pytest.mark.parametrize("dname,opm", DTYPES)
@pytest.mark.parametrize("sa,sb", SHAPES)
def test_addcmul_addcdiv(dname, opm, sa, sb):
    d, A, B, C, a, b, c = _inputs(dname, opm, sa, sb)
    for v in (1, 0.3, -2.5):
        V = opm(v)
        for divide in (False, True):
            ref = a + V * b / c if divide else a + V * b * c
            r = A.addcdiv(B, C, value=v) if divide else A.addcmul(B, C, value=v)
            np.testing.assert_array_equal(_wide(r, dname), _ref(ref, d, dname))
            if tuple(A.shape) == tuple(strided.broadcast_shapes(A.shape, B.shape)):
                r2 = A.clone()
                (r2.addcdiv_ if divide else r2.addcmul_)(B, C, value=v)
                np.testing.assert_array_equal(_wide(r2, dname), _ref(ref, d, dname))


@pytest.mark.parametrize("sa,sb", SHAPES)
def test_add_alpha_float32_is_one_rounding(sa, sb):
    a = RNG.standard_normal(sa).astype(np.float32)
    b = RNG.standard_normal(sb).astype(np.float32)
    for alpha in (0.1, -3.7, 1e-3):
        ref = (a.astype(np.float64) + b.astype(np.float64) * float(np.float32(alpha)))
        ref = ref.astype(np.float32)
        np.testing.assert_array_equal(
            strided.tensor(a).add(strided.tensor(b), alpha=alpha).numpy(), ref)
        if np.broadcast_shapes(a.shape, b.shape) == a.shape:
            x = strided.tensor(a.copy())
            x.add_(strided.tensor(b), alpha=alpha)
            np.testing.assert_array_equal(x.numpy(), ref)


def test_non_contiguous_lerp():
    A = strided.randn(30, 20).t()
    B = strided.randn(20, 30)
    r = A.clone().lerp_(B, 0.2)
    an, bn = A.numpy(), B.numpy()
    np.testing.assert_array_equal(r.numpy(), an + np.float32(0.2) * (bn - an))


@pytest.mark.parametrize("dname", ["float16", "bfloat16"])
def test_add_alpha_half_rounds_through_float32(dname):
    d = getattr(strided, dname)
    a = strided.tensor(RNG.standard_normal((40, 30))).to(d)
    b = strided.tensor(RNG.standard_normal((40, 30))).to(d)
    wide = (a.to(strided.float64).numpy()
            + b.to(strided.float64).numpy() * float(np.float32(0.37)))
    ref = strided.tensor(wide.astype(np.float32)).to(d).to(strided.float64).numpy()
    np.testing.assert_array_equal(a.add(b, alpha=0.37).to(strided.float64).numpy(), ref)
    x = a.clone()
    x.add_(b, alpha=0.37)
    np.testing.assert_array_equal(x.to(strided.float64).numpy(), ref)


def test_addcdiv_rounds_as_torch():
    # torch evaluates self + value * t1 / t2 left to right: (value * t1) / t2, then the sum
    import torch
    a, b = (RNG.standard_normal(100000).astype(np.float32) for _ in range(2))
    c = np.abs(RNG.standard_normal(100000)).astype(np.float32) + 0.1
    for v in (-0.0123, 0.7, 1):
        got = strided.tensor(a).addcdiv(strided.tensor(b), strided.tensor(c), value=v).numpy()
        want = torch.tensor(a).addcdiv(torch.tensor(b), torch.tensor(c), value=v).numpy()
        np.testing.assert_array_equal(got, want)
        x = strided.tensor(a.copy())
        x.addcdiv_(strided.tensor(b), strided.tensor(c), value=v)
        np.testing.assert_array_equal(x.numpy(), want)
