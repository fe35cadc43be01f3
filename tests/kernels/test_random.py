"""Random sampling against torch, bit for bit: after the same ``manual_seed`` every sampler
must produce the same bits and leave the generator in the same state (torch's 5056-byte
state is compared too, so the number of words each sampler consumes is checked)."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest
import torch

import strided as st

SEEDS = (0, 1, 12345)
_UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def _bits_st(t) -> np.ndarray:
    a = np.ascontiguousarray(t._array())
    if a.dtype.kind == "c":
        a = a.view(a.real.dtype).reshape(a.shape + (2,))
    return a.view(_UINT[a.dtype.itemsize])


def _bits_torch(t) -> np.ndarray:
    t = t.contiguous()
    size = t.element_size()
    if t.dtype.is_complex:
        t = torch.view_as_real(t)
        size //= 2
    ints = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[size]
    a = t.view(ints).numpy()
    return a.view(_UINT[size])


def _assert_same(a, b):
    assert isinstance(a, st.Tensor)
    assert str(a.dtype) == str(b.dtype)
    assert tuple(a.shape) == tuple(b.shape)
    assert a.stride() == b.stride()
    sa, sb = _bits_st(a), _bits_torch(b)
    mismatched = int((sa != sb).sum())
    assert mismatched == 0, f"{mismatched} of {sa.size} elements differ"


def _state_same():
    assert np.array_equal(st.get_rng_state()._array(), torch.get_rng_state().numpy())


def check(fn, seeds=SEEDS):
    """``fn(lib)`` runs the same code with ``lib`` = strided and torch."""
    for seed in seeds:
        st.manual_seed(seed)
        a = fn(st)
        torch.manual_seed(seed)
        b = fn(torch)
        if isinstance(b, tuple):
            for x, y in zip(a, b):
                _assert_same(x, y)
        else:
            _assert_same(a, b)
        _state_same()


FLOATS = ("float16", "bfloat16", "float32", "float64")
SIZES = (0, 1, 5, 15, 16, 17, 31, 32, 33, 100, (3, 7), (2, 3, 5))


# -- uniform ---------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOATS + ("complex64", "complex128"))
@pytest.mark.parametrize("size", SIZES)
def test_rand(dtype, size):
    check(lambda m: m.rand(size, dtype=getattr(m, dtype)))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("bounds", [(-3.7, 11.3), (2.0, 2.0), (-1e-3, 5e-4), (100.0, 1000.5)])
def test_uniform_bounds(dtype, bounds):
    check(lambda m: m.empty(37, dtype=getattr(m, dtype)).uniform_(*bounds))


def test_uniform_noncontiguous():
    check(lambda m: m.empty(4, 6).t().uniform_())
    check(lambda m: m.empty(5, 8)[:, ::3].uniform_(-1, 1))
    check(lambda m: m.empty(3, 4, 2).permute(2, 0, 1).uniform_())


def test_rand_like_and_generator():
    check(lambda m: m.rand_like(m.empty(3, 5).t()))
    check(lambda m: m.rand(7, generator=m.Generator().manual_seed(3)))
    check(lambda m: m.rand_like(m.empty(9), generator=m.Generator().manual_seed(4)))
    check(lambda m: m.rand(2, 3, out=m.empty(6)))


# -- normal -----------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOATS + ("complex64", "complex128"))
@pytest.mark.parametrize("size", SIZES + (1000, 4099))
def test_randn(dtype, size):
    check(lambda m: m.randn(size, dtype=getattr(m, dtype)))


def test_randn_large():
    check(lambda m: m.randn(1 << 18), seeds=(7,))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("n", (5, 16, 21, 200))
def test_normal_mean_std(dtype, n):
    check(lambda m: m.normal(0.37, 2.9, (n,), dtype=getattr(m, dtype)))
    check(lambda m: m.empty(n, dtype=getattr(m, dtype)).normal_(-1.5, 0.25))


def test_normal_cached_sample():
    # the scalar path caches one sample; an odd count leaves it for the next call
    check(lambda m: (m.randn(3, dtype=m.float64), m.randn(5), m.randn(2, dtype=m.float16),
                     m.randn(40), m.randn(1)))


def test_normal_noncontiguous():
    check(lambda m: m.empty(5, 6).t().normal_())
    check(lambda m: m.empty(8, 8)[:, ::2].normal_(1.0, 3.0))


def test_normal_tensor_overloads():
    def mean(m):
        return m.arange(20, dtype=m.float32).reshape(4, 5) / 7

    check(lambda m: m.normal(mean(m), 0.5))
    check(lambda m: m.normal(mean(m)))
    check(lambda m: m.normal(1.5, mean(m)))
    check(lambda m: m.normal(mean(m), mean(m) + 1))
    check(lambda m: m.normal(mean(m), m.ones(5, dtype=m.float64) * 0.3))
    check(lambda m: m.normal(mean(m)[:1], mean(m)))
    check(lambda m: m.normal(mean(m), 2.0, out=m.empty(4, 5)))
    check(lambda m: m.randn_like(mean(m)))
    check(lambda m: m.randn(3, 9, generator=m.Generator().manual_seed(5)))


# -- integers -------------------------------------------------------------------------------------

INTS = ("uint8", "int8", "int16", "int32", "int64")


@pytest.mark.parametrize("dtype", INTS + FLOATS)
def test_randint(dtype):
    check(lambda m: m.randint(100, (17,), dtype=getattr(m, dtype)))
    check(lambda m: m.randint(3, 20, (4, 5), dtype=getattr(m, dtype)))


def test_randint_ranges():
    check(lambda m: m.randint(-(2 ** 40), 2 ** 40, (9,)))
    check(lambda m: m.randint(-5, 2 ** 32 + 1, (9,)))
    check(lambda m: m.randint(-(2 ** 31), 2 ** 31, (9,), dtype=m.int32))
    check(lambda m: m.randint(2 ** 62, (9,)))
    check(lambda m: m.randint(10, (3,), generator=m.Generator().manual_seed(9)))
    check(lambda m: m.randint(5, (6,), out=m.empty(6, dtype=m.int64)))
    check(lambda m: m.randint_like(m.empty(3, 4), 50))
    check(lambda m: m.randint_like(m.empty(3, 4, dtype=m.int16), -4, 7))
    check(lambda m: m.randint_like(m.empty(7), m.tensor(9)))


@pytest.mark.parametrize("dtype", INTS + FLOATS + ("bool",))
def test_random_(dtype):
    check(lambda m: m.empty(23, dtype=getattr(m, dtype)).random_())
    check(lambda m: m.empty(23, dtype=getattr(m, dtype)).random_(2))
    check(lambda m: m.empty(23, dtype=getattr(m, dtype)).random_(0, 2))


def test_random_from_without_to():
    check(lambda m: m.empty(11, dtype=m.int64).random_(-(2 ** 63), None))
    check(lambda m: m.empty(11, dtype=m.int64).random_(5, None))
    check(lambda m: m.empty(11, dtype=m.int8).random_(-20, None))
    check(lambda m: m.empty(11, dtype=m.float32).random_(3, None))
    check(lambda m: m.empty(11, dtype=m.float64).random_(-(2 ** 63), None))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(lambda m: m.empty(11, dtype=m.float32).random_(0, 2 ** 40))


@pytest.mark.parametrize("n", (0, 1, 2, 5, 100, 1000))
@pytest.mark.parametrize("dtype", ("int64", "int32", "float32", "float64"))
def test_randperm(n, dtype):
    check(lambda m: m.randperm(n, dtype=getattr(m, dtype)))


def test_randperm_small_types():
    check(lambda m: m.randperm(200, dtype=m.uint8))
    check(lambda m: m.randperm(2000, dtype=m.float16))
    check(lambda m: m.randperm(7, generator=m.Generator().manual_seed(1)))
    check(lambda m: m.randperm(7, out=m.empty(3, dtype=m.int64)))


# -- the scalar-double samplers -------------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOATS)
def test_continuous_samplers(dtype):
    def e(m):
        return m.empty(41, dtype=getattr(m, dtype))

    check(lambda m: e(m).exponential_())
    check(lambda m: e(m).exponential_(3.5))
    check(lambda m: e(m).geometric_(0.3))
    check(lambda m: e(m).cauchy_())
    check(lambda m: e(m).cauchy_(1.5, 0.2))
    check(lambda m: e(m).log_normal_())
    check(lambda m: e(m).log_normal_(0.1, 0.7))


@pytest.mark.parametrize("dtype", INTS)
def test_geometric_int(dtype):
    check(lambda m: m.empty(19, dtype=getattr(m, dtype)).geometric_(0.05))


# -- bernoulli, multinomial, poisson --------------------------------------------------------------

@pytest.mark.parametrize("dtype", ("bool", "uint8", "int64") + FLOATS)
def test_bernoulli_scalar(dtype):
    check(lambda m: m.empty(29, dtype=getattr(m, dtype)).bernoulli_(0.3))
    check(lambda m: m.empty(29, dtype=getattr(m, dtype)).bernoulli_())
    check(lambda m: m.bernoulli(m.empty(3, 3, dtype=getattr(m, dtype)), 0.8))


@pytest.mark.parametrize("pdtype", ("float32", "float64", "float16", "bfloat16"))
def test_bernoulli_tensor(pdtype):
    def p(m):
        return (m.arange(24, dtype=m.float64) / 23).to(getattr(m, pdtype)).reshape(4, 6)

    check(lambda m: m.bernoulli(p(m)))
    check(lambda m: m.empty(4, 6, dtype=m.int32).bernoulli_(p(m)))
    check(lambda m: m.empty(3, 4, 6).bernoulli_(p(m)))
    check(lambda m: m.bernoulli(p(m), generator=m.Generator().manual_seed(2)))
    check(lambda m: m.empty(6, 4).t().bernoulli_(p(m)))


@pytest.mark.parametrize("dtype", ("float32", "float64", "float16"))
def test_multinomial(dtype):
    def p(m):
        return (m.arange(1, 13, dtype=m.float64) % 5).to(getattr(m, dtype))

    check(lambda m: m.multinomial(p(m), 1))
    check(lambda m: m.multinomial(p(m), 4))
    check(lambda m: m.multinomial(p(m), 9, True))
    check(lambda m: m.multinomial(p(m).reshape(3, 4) + 0.5, 2))
    check(lambda m: m.multinomial(p(m).reshape(3, 4), 6, replacement=True))
    check(lambda m: p(m).multinomial(1, generator=m.Generator().manual_seed(8)))


@pytest.mark.parametrize("dtype", ("float32", "float64"))
def test_poisson(dtype):
    rates = [0.0, 0.5, 3.0, 9.99, 10.0, 25.0, 1000.0, 7.5]
    check(lambda m: m.poisson(m.tensor(rates * 3, dtype=getattr(m, dtype))))


# -- generators and states ------------------------------------------------------------------------

def test_generator_objects():
    g = st.Generator()
    assert g.device == st.device("cpu")
    assert st.Generator("cpu:0").device == st.device("cpu")
    assert st.Generator(device=st.device("cpu")).device.type == "cpu"
    assert g.initial_seed() == torch.Generator().initial_seed() == 67280421310721
    assert g.manual_seed(5) is g and g.initial_seed() == 5
    assert st.Generator().manual_seed(-1).initial_seed() == 2 ** 64 - 1
    s = g.seed()
    assert g.initial_seed() == s
    assert st.default_generator.manual_seed(3) is st.default_generator
    assert st.initial_seed() == 3
    assert isinstance(st.seed(), int)


def test_generator_streams_are_independent():
    g1 = st.Generator().manual_seed(1)
    g2 = st.Generator().manual_seed(1)
    st.manual_seed(1)
    a = st.rand(5, generator=g1)
    st.rand(3)
    b = st.rand(5, generator=g2)
    assert np.array_equal(a._array(), b._array())


def test_state_round_trip_and_torch_compat():
    st.manual_seed(11)
    st.randn(3)                      # leaves a cached normal sample
    state = st.get_rng_state()
    assert state.dtype == st.uint8 and tuple(state.shape) == (5056,)
    a = st.randn(21)
    st.set_rng_state(state)
    b = st.randn(21)
    assert np.array_equal(a._array(), b._array())
    # strided's state loads into torch and torch's into strided
    torch.set_rng_state(torch.from_numpy(state._array().copy()))
    c = torch.randn(21)
    assert np.array_equal(c.numpy(), a._array())
    torch.manual_seed(99)
    torch.rand(700)
    torch.randn(5, dtype=torch.float64)
    st.set_rng_state(st.from_numpy(torch.get_rng_state().numpy()))
    _state_same()
    check_next = (st.rand(9)._array(), torch.rand(9).numpy())
    assert np.array_equal(*check_next)
    # a fresh seed's bytes are torch's too, also after drawing nothing
    st.manual_seed(123456789)
    torch.manual_seed(123456789)
    _state_same()
    st.rand(0), torch.rand(0), st.poisson(st.zeros(3)), torch.poisson(torch.zeros(3))
    _state_same()


def test_generator_pickle_and_clone():
    g = st.Generator().manual_seed(4)
    st.rand(3, generator=g)
    g2 = pickle.loads(pickle.dumps(g))
    g3 = g.clone_state()
    a = st.rand(4, generator=g)._array()
    assert np.array_equal(a, st.rand(4, generator=g2)._array())
    assert np.array_equal(a, st.rand(4, generator=g3)._array())


def test_fork_rng():
    st.manual_seed(3)
    with st.random.fork_rng():
        st.rand(10)
    a = st.rand(4)
    st.manual_seed(3)
    b = st.rand(4)
    assert np.array_equal(a._array(), b._array())
    with st.random.fork_rng(enabled=False):
        st.rand(1)
    assert not np.array_equal(st.rand(4)._array(), b._array())


def test_meta_tensors_draw_nothing():
    st.manual_seed(0)
    before = st.get_rng_state()._array().copy()
    t = st.rand(4, 5, device="meta")
    assert t.device.type == "meta" and tuple(t.shape) == (4, 5)
    st.empty(7, device="meta").normal_()
    assert np.array_equal(before, st.get_rng_state()._array())


def test_versions():
    assert st.rand(3)._version == 0
    assert st.randn(20)._version == 0
    t = st.ones(3)
    assert t.uniform_()._version == 1


# -- errors ---------------------------------------------------------------------------------------

ERRORS = [
    "m.empty(3, dtype=m.long).uniform_()",
    "m.empty(3).uniform_(2, 1)",
    "m.empty(3).uniform_(0, float('inf'))",
    "m.empty(3, dtype=m.float16).uniform_(0, 1e6)",
    "m.empty(3).normal_(0, -1)",
    "m.empty(3, dtype=m.long).normal_()",
    "m.normal(m.zeros(3), -1.)",
    "m.normal(m.zeros(3), m.tensor([1., -1., 1.]))",
    "m.normal(m.zeros(3), m.ones(4))",
    "m.randn(3, dtype=m.long)",
    "m.rand(3, dtype=m.int32)",
    "m.randint(5, 3, (3,))",
    "m.randint(3, 3, (3,))",
    "m.randint(0, (3,))",
    "m.randint(0, 300, (3,), dtype=m.uint8)",
    "m.randint(-1, 3, (3,), dtype=m.uint8)",
    "m.randint(0, 3, (3,), dtype=m.bool)",
    "m.randint(0, 3, (3,), dtype=m.complex64)",
    "m.empty(3, dtype=m.int8).random_(0, 1000)",
    "m.empty(3, dtype=m.complex64).random_()",
    "m.empty(3).random_(0)",
    "m.empty(3, dtype=m.int32).random_(-2**40, 5)",
    "m.empty(3, dtype=m.bfloat16).random_(2**31, None)",
    "m.empty(3).exponential_(-1)",
    "m.empty(3, dtype=m.long).exponential_()",
    "m.empty(3).geometric_(0)",
    "m.empty(3).geometric_(1.5)",
    "m.empty(3).cauchy_(0, -1)",
    "m.empty(3).log_normal_(0, -1)",
    "m.empty(3, dtype=m.long).log_normal_()",
    "m.empty(3).bernoulli_(1.5)",
    "m.bernoulli(m.tensor([0.5, 1.5]))",
    "m.bernoulli(m.tensor([1, 0]))",
    "m.empty(3, dtype=m.complex64).bernoulli_(0.5)",
    "m.multinomial(m.tensor([0., 0.]), 1)",
    "m.multinomial(m.tensor([1., -1.]), 1)",
    "m.multinomial(m.tensor([1., 1.]), 3)",
    "m.multinomial(m.ones(2, 2, 2), 1)",
    "m.multinomial(m.ones(2), 0)",
    "m.multinomial(m.tensor([1, 2]), 1)",
    "m.multinomial(m.tensor([0., 0.]), 2, True)",
    "m.multinomial(m.tensor([1., -1.]), 2, True)",
    "m.poisson(m.tensor([-1.]))",
    "m.poisson(m.tensor([1]))",
    "m.randperm(-1)",
    "m.randperm(300, dtype=m.uint8)",
    "m.randperm(3000, dtype=m.float16)",
    "m.randperm(3, dtype=m.bool)",
    "m.rand(-1)",
    "m.Generator().manual_seed(2**64)",
    "m.Generator().manual_seed(1.5)",
    "m.rand(3, generator=5)",
    "m.empty(2).expand(3, 2).uniform_()",
    "m.randint_like(m.ones(3), 5, 3)",
    "m.Generator().set_state(m.zeros(10, dtype=m.uint8))",
    "m.Generator().set_state(m.zeros(5056, dtype=m.int8))",
    "m.Generator().set_state(m.zeros(5056, dtype=m.uint8))",
    "m.Generator().set_state([1, 2])",
    "m.Generator('meta')",
    "m.Generator('cuda')",
    "m.Generator('xyz')",
]


@pytest.mark.parametrize("expr", ERRORS)
def test_errors(expr):
    outcomes = []
    for m in (st, torch):
        with pytest.raises(Exception) as info:
            eval(expr, {"m": m})
        outcomes.append((type(info.value), str(info.value)))
    assert outcomes[0] == outcomes[1]
