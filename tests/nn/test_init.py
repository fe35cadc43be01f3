"""strided.nn.init against torch.nn.init: same values bit for bit after the same seed
(and with an explicit generator), same warnings, same errors."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import strided
from tests.conftest import _strided_values, _torch_values, assert_same, check, hyp

SEEDS = [0, 1, 1234]
DTYPES = ["float32", "float64"]
SHAPES_2D = [(3, 5), (5, 3), (16, 16), (1, 7), (64, 33)]
SHAPES_ND = [(3, 5), (4, 2, 3), (8, 3, 3, 3), (2, 4, 1, 2, 3)]


def _seeded(m, seed, shape, dtype, fn, *args, **kwargs):
    m.manual_seed(seed)
    t = m.empty(shape, dtype=getattr(m, dtype))
    out = fn(m)(t, *args, **kwargs)
    assert out is t
    # the stream after the call is where torch's is too: one more draw agrees
    return t, m.rand(3, dtype=m.float64), t._version


def _with_generator(m, seed, shape, dtype, fn, *args, **kwargs):
    m.manual_seed(seed + 17)
    g = m.Generator().manual_seed(seed)
    t = m.empty(shape, dtype=getattr(m, dtype))
    fn(m)(t, *args, generator=g, **kwargs)
    # the default generator was left alone; the explicit one moved as torch's
    return t, m.rand(2, dtype=m.float64), m.rand(2, generator=g, dtype=m.float64)


RANDOM_CASES = [
    ("uniform_", (), {}),
    ("uniform_", (-3.0, 0.5), {}),
    ("normal_", (), {}),
    ("normal_", (2.0, 0.1), {}),
    ("xavier_uniform_", (), {}),
    ("xavier_uniform_", (2.5,), {}),
    ("xavier_normal_", (), {"gain": 0.3}),
    ("kaiming_uniform_", (), {}),
    ("kaiming_uniform_", (), {"a": math.sqrt(5)}),
    ("kaiming_uniform_", (0.2, "fan_out", "leaky_relu"), {}),
    ("kaiming_uniform_", (), {"mode": "FAN_OUT", "nonlinearity": "relu"}),
    ("kaiming_normal_", (), {}),
    ("kaiming_normal_", (0, "fan_out", "tanh"), {}),
    ("trunc_normal_", (), {}),
    ("trunc_normal_", (0.0, 1.0, -0.5, 0.5), {}),      # narrow: rejection from uniform
    ("trunc_normal_", (0.0, 0.02, -0.04, 0.04), {}),
    ("trunc_normal_", (1.0, 2.0, 0.0, 0.3), {}),       # window away from the mean
    ("trunc_normal_", (0.0, 1.0, -0.1, 3.0), {}),
]


@pytest.mark.parametrize("name,args,kwargs", RANDOM_CASES)
@pytest.mark.parametrize("dtype", DTYPES + ["float16", "bfloat16"])
def test_random_init_bit_exact(name, args, kwargs, dtype):
    fn = lambda m: getattr(m.nn.init, name)  # noqa: E731
    shapes = SHAPES_ND if name.startswith(("uniform", "normal", "trunc")) else SHAPES_ND[1:]
    for seed in SEEDS:
        for shape in shapes:
            check(lambda m, seed=seed, shape=shape: _seeded(m, seed, shape, dtype, fn, *args,
                                                                **kwargs))
    check(lambda m: _with_generator(m, 5, (7, 9), dtype, fn, *args, **kwargs))


@pytest.mark.parametrize("dtype", DTYPES)
def test_trunc_normal_values_in_window(dtype):
    strided.manual_seed(3)
    t = strided.nn.init.trunc_normal_(strided.empty(2000, dtype=getattr(strided, dtype)),
                                      0.0, 1.0, -0.25, 0.5)
    v = _strided_values(t)
    assert v.min() >= -0.25 and v.max() <= 0.5


def test_trunc_normal_meta_and_warning():
    check(lambda m: m.nn.init.trunc_normal_(m.empty(3, 4, device="meta")))
    # the warning when the mean is far from the window (values still agree)
    check(lambda m: _seeded(m, 0, (4, 5), "float64",
                            lambda m: m.nn.init.trunc_normal_, 5.0, 1.0, -1.0, 1.0))


@pytest.mark.parametrize("dtype", DTYPES)
def test_sparse_bit_exact(dtype):
    fn = lambda m: m.nn.init.sparse_  # noqa: E731
    for seed in SEEDS:
        for shape in [(10, 4), (7, 7), (1, 3), (5, 0), (0, 3)]:
            for sparsity in (0.0, 0.1, 0.5, 0.99, 1.0):
                check(lambda m, a=(seed, shape, dtype, fn, sparsity): _seeded(m, *a))
        check(lambda m, seed=seed: _seeded(m, seed, (6, 5), dtype, fn, 0.3, std=2.0))
    check(lambda m: _with_generator(m, 2, (9, 4), dtype, fn, 0.4))


def _orthogonal_pair(seed, shape, dtype, gain=1, gen=False):
    out = []
    for m in (strided, torch):
        m.manual_seed(seed)
        t = m.empty(shape, dtype=getattr(m, dtype))
        g = m.Generator().manual_seed(seed + 1) if gen else None
        r = m.nn.init.orthogonal_(t, gain, generator=g)
        assert r is t
        out.append((t, m.rand(3, dtype=m.float64)))
    return out


@pytest.mark.parametrize("dtype", DTYPES)
def test_orthogonal(dtype):
    # Note: orthogonal_ draws normal_ (bit-exact) then factors it with QR. Both sides use
    # Householder QR (LAPACK geqrf); the Q is unique once R's diagonal signs are folded in,
    # so the results agree to rounding, not necessarily bit for bit.
    tol = 1e-5 if dtype == "float32" else 1e-12
    for seed in SEEDS:
        for shape in [(3, 5), (5, 3), (6, 6), (4, 2, 3), (2, 3, 2, 2), (1, 4), (4, 1)]:
            for gain, gen in [(1, False), (2.5, True)]:
                (s, sn), (t, tn) = _orthogonal_pair(seed, shape, dtype, gain, gen)
                assert_same(s, t, values=False)
                np.testing.assert_allclose(_strided_values(s), _torch_values(t),
                                           rtol=tol, atol=tol)
                assert_same(sn, tn)
                flat = _strided_values(s).reshape(shape[0], -1) / gain
                if flat.shape[0] < flat.shape[1]:
                    flat = flat.T
                np.testing.assert_allclose(flat.T @ flat, np.eye(flat.shape[1]), atol=tol * 10)


def test_orthogonal_edge_cases():
    check(lambda m: m.nn.init.orthogonal_(m.empty(3, 4, dtype=m.float16)))
    check(lambda m: m.nn.init.orthogonal_(m.empty(3)))
    check(lambda m: m.nn.init.orthogonal_(m.empty(0, 3)))
    check(lambda m: m.nn.init.orthogonal_(m.empty(3, 4, device="meta")))


@pytest.mark.parametrize("dtype", DTYPES + ["int64", "float16"])
def test_deterministic_fills(dtype):
    def fills(m):
        dt = getattr(m, dtype)
        i = m.nn.init
        t = m.empty(3, 4, dtype=dt)
        return (i.constant_(m.empty(2, 3, dtype=dt), 3), i.ones_(m.empty(4, dtype=dt)),
                i.zeros_(m.empty(2, 2, dtype=dt)), i.eye_(t), t,
                i.eye_(m.empty(5, 2, dtype=dt)))
    check(fills)


def test_fills_on_leaf_requiring_grad_keep_graph_clean():
    def rec(m):
        w = m.empty(3, 4, requires_grad=True)
        m.nn.init.eye_(w)
        v = m.empty(2, requires_grad=True)
        m.nn.init.constant_(v, 0.5)
        u = m.empty(2, 3, requires_grad=True)
        m.manual_seed(0)
        m.nn.init.kaiming_uniform_(u)
        return w, v, u, w.grad_fn is None, v.is_leaf, u.is_leaf
    check(rec)


@pytest.mark.parametrize("shape,groups", [((4, 4, 3), 1), ((6, 3, 3, 3), 1), ((6, 2, 3, 4), 2),
                                          ((4, 6, 3, 3, 3), 1), ((6, 4, 2, 3, 5), 3),
                                          ((2, 5, 4), 1), ((5, 2, 3), 1)])
def test_dirac(shape, groups):
    def rec(m):
        t = m.full(shape, 7.0)
        return m.nn.init.dirac_(t, groups), t._version
    check(rec)


def test_dirac_errors():
    check(lambda m: m.nn.init.dirac_(m.empty(3, 3)))
    check(lambda m: m.nn.init.dirac_(m.empty(5, 3, 3), 2))
    check(lambda m: m.nn.init.dirac_(m.empty(4, 3, 3, device="meta"), 2))


def test_calculate_gain():
    names = ["linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
             "conv_transpose3d", "sigmoid", "tanh", "relu", "leaky_relu", "selu"]
    for n in names:
        check(lambda m, n=n: m.nn.init.calculate_gain(n))
    for p in (0.2, 0, 3, -1.5, None):
        check(lambda m, p=p: m.nn.init.calculate_gain("leaky_relu", p))
    for p in (True, "0.2", [0.1]):
        check(lambda m, p=p: m.nn.init.calculate_gain("leaky_relu", p))
    check(lambda m: m.nn.init.calculate_gain("gelu"))
    check(lambda m: m.nn.init.calculate_gain("ReLU"))


def test_fans():
    for shape in [(3, 5), (4, 2, 3), (8, 3, 3, 3), (2, 4, 1, 2, 3), (0, 3), (3,), ()]:
        check(lambda m, sh=shape: m.nn.init._calculate_fan_in_and_fan_out(m.empty(sh)))
        for mode in ("fan_in", "fan_out", "Fan_In", "fan_avg"):
            check(lambda m, sh=shape, md=mode: m.nn.init._calculate_correct_fan(m.empty(sh), md))


def test_errors_and_no_op_warnings():
    i = lambda m: m.nn.init  # noqa: E731
    check(lambda m: i(m).xavier_uniform_(m.empty(3)))
    check(lambda m: i(m).xavier_normal_(m.empty(())))
    check(lambda m: i(m).kaiming_uniform_(m.empty(3)))
    check(lambda m: i(m).kaiming_uniform_(m.empty(0, 3)))
    check(lambda m: i(m).kaiming_normal_(m.empty(3, 0)))
    check(lambda m: i(m).kaiming_normal_(m.empty(3, 4), mode="fan"))
    check(lambda m: i(m).kaiming_uniform_(m.empty(3, 4), nonlinearity="gelu"))
    check(lambda m: i(m).eye_(m.empty(3, 4, 5)))
    check(lambda m: i(m).sparse_(m.empty(3), 0.5))
    check(lambda m: i(m).sparse_(m.empty(3, 4, device="meta"), 0.5))


@pytest.mark.parametrize("old", ["uniform", "normal", "constant", "eye", "dirac", "xavier_uniform",
                                 "xavier_normal", "kaiming_uniform", "kaiming_normal",
                                 "orthogonal", "sparse"])
def test_deprecated_aliases(old):
    args = {"constant": (0.5,), "sparse": (0.5,)}.get(old, ())
    shape = (4, 3, 3) if old == "dirac" else (4, 3)

    def rec(m):
        m.manual_seed(0)
        t = m.empty(shape, dtype=m.float64)
        getattr(m.nn.init, old)(t, *args)
        return t.shape
    check(rec)
    assert getattr(strided.nn.init, old).__name__ == old
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        getattr(strided.nn.init, old)(strided.empty(shape), *args)
    assert any(x.category is FutureWarning for x in w)


def test_all_names():
    assert sorted(strided.nn.init.__all__) == sorted(torch.nn.init.__all__)


@given(shape=st.lists(st.integers(1, 6), min_size=2, max_size=4).map(tuple),
       seed=st.integers(0, 2 ** 31), transpose=st.booleans(), step=st.integers(1, 2),
       name=st.sampled_from(["uniform_", "normal_", "kaiming_uniform_", "kaiming_normal_",
                             "xavier_uniform_", "xavier_normal_", "trunc_normal_"]))
@hyp(40)
def test_init_noncontiguous_hypothesis(shape, seed, transpose, step, name):
    """Draws into views (transposed, strided) land where torch puts them."""
    def rec(m):
        m.manual_seed(seed)
        base = m.zeros(tuple(s * step for s in shape), dtype=m.float64)
        view = base[tuple(slice(None, None, step) for _ in shape)]
        if transpose:
            view = view.transpose(0, -1)
        getattr(m.nn.init, name)(view)
        return base
    check(rec)
