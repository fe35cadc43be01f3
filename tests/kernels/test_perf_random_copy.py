"""Issue 17's fast paths in random, copy and cat agree with torch: values (random numbers
bit for bit after the same seed), dtype, shape, strides, version counters and errors,
including the cases that must leave the fast path (Notes [Blocked copy], [Copying
between storages], [The short path of cat], [Bit-exact sampling])."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from conftest import assert_same, check

import strided
from strided.kernels import copy as copy_kernels

# -- copy_: between storages, and the blocked transposed copy -------------------------------------

_COPY_SHAPES = [(4, 4), (1, 7), (7, 1), (0, 3), (3, 5, 2), (128, 128), (181, 181),
                (256, 256), (64, 700), (700, 64), (1000, 40), (2, 300, 130)]


def _arange(m, shape, dtype="float32"):
    n = int(np.prod(shape))
    return m.arange(n, dtype=m.float64).reshape(shape).to(getattr(m, dtype))


@pytest.mark.parametrize("shape", _COPY_SHAPES, ids=str)
def test_transposed_contiguous_and_clone(shape):
    def recipe(m):
        x = _arange(m, shape).transpose(0, -1)
        return x.contiguous(), x.clone(), x.transpose(0, 1).contiguous()
    check(recipe)


@pytest.mark.parametrize("dtype", ["float64", "int32", "int64", "uint8", "bool", "float16",
                                   "complex64"])
def test_transposed_copy_dtypes(dtype):
    check(lambda m: _arange(m, (300, 130), dtype).t().contiguous())
    check(lambda m: _arange(m, (4, 4), dtype).t().contiguous())
    check(lambda m: m.empty(130, 300, dtype=getattr(m, dtype)).copy_(
        _arange(m, (300, 130), dtype).t()))


def test_copy_between_storages_paths():
    # same dtype, different storages, row-major destination: the fast path
    def same(m):
        dst = m.zeros(5, 6)
        src = _arange(m, (6, 5)).t()
        v0 = dst._version
        out = dst.copy_(src)
        return out is dst, dst, dst._version - v0
    check(same)
    # a non-row-major destination, a broadcast, a cast, a shared storage: the general path
    check(lambda m: m.zeros(6, 5).t().copy_(_arange(m, (5, 6))))
    check(lambda m: m.zeros(4, 6).copy_(_arange(m, (6,))))
    check(lambda m: m.zeros(4, 6, dtype=m.int32).copy_(_arange(m, (4, 6)) * 1.5))
    check(lambda m: m.zeros(3, dtype=m.float32).copy_(m.tensor([1 + 2j, 3j, 1])))

    def shared(m):
        base = _arange(m, (4, 4))
        base[:2].copy_(base[2:])
        return base
    check(shared)
    # errors of the general path are kept
    check(lambda m: m.zeros(2, 3).expand(4, 2, 3)[0].copy_(m.ones(2, 3)) and
          m.zeros(3).expand(2, 3).copy_(m.ones(2, 3)))
    check(lambda m: m.zeros(2, 3).copy_(m.ones(3, 2)))
    check(lambda m: m.zeros(3, device="meta").copy_(m.ones(3)))
    check(lambda m: m.zeros(3).copy_(m.ones(3, device="meta")))


def test_copy_conj_and_neg_bits():
    def conj(m):
        z = m.tensor([1 + 2j, 3 - 1j, 0.5j])
        a = m.zeros(3, dtype=m.complex64)
        a.copy_(z.conj())
        b = m.zeros(3, dtype=m.complex64).conj()
        b.copy_(z.conj())
        return a, b.resolve_conj(), b.is_conj()
    check(conj)

    def neg(m):
        x = m.tensor([1.0, -2.0, 3.0])
        a = m.zeros(3)
        a.copy_(x._neg_view())
        return a
    check(neg)


def test_copy_requires_grad_and_inplace_version():
    def recipe(m):
        w = m.ones(3, 4, requires_grad=True)
        y = (w * 2).t().contiguous()
        y.sum().backward()
        return y, w.grad, y.grad_fn.name()
    check(recipe)


def test_strip_width_rule():
    # Note [Blocked copy]: one line at a power-of-two stride of 4 KiB and up, wide
    # strips where the lines spread over the sets, the whole dim when L1 holds it
    fit = copy_kernels._lines_in_l1
    assert fit(4096 * 4) == 8 and fit(1024 * 4) == 8
    assert fit(256 * 4) == 32 and fit(512 * 4) == 16
    assert fit(1000 * 4) == 512 and fit(4000 * 4) == 256
    for n in (256, 1000, 1024, 2048):
        base = np.random.default_rng(n).standard_normal((n, n)).astype(np.float32)
        dst = np.empty((n, n), np.float32)
        copy_kernels._copy(dst, base.T)
        np.testing.assert_array_equal(dst, base.T)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int16"])
def test_calibrated_blocked_copy(dtype):
    # destination rows of 16 KiB and more: the strip width is measured (Note [Blocked
    # copy]); the bytes are the same whichever width wins
    width = 16384 // np.dtype(dtype).itemsize
    rows = (1 << 20) // width + 3
    check(lambda m: _arange(m, (width, rows), dtype).t().contiguous())
    check(lambda m: m.empty(rows, width, dtype=m.float64).copy_(
        _arange(m, (width, rows), dtype).t()))


def test_blocked_copy_nd_and_offsets():
    def recipe(m):
        x = _arange(m, (3, 200, 150))
        return (x.permute(2, 1, 0).contiguous(), x.transpose(1, 2).contiguous(),
                x[1:, 5:, 3:].transpose(1, 2).contiguous())
    check(recipe)


def test_t_contiguous_paths():
    # t() of 2-d tensors (the short path), 1-d / 0-d (aliases), 3-d (error), then contiguous
    def recipe(m):
        a = _arange(m, (3, 5))
        v = a.t()
        w = a[1:, ::2].t()
        c = v.contiguous()
        return (v, v.stride(), v._base is a, w, w.stride(), w.storage_offset(), c, c.stride(),
                c._base is None, c.t().contiguous(), _arange(m, (4,)).t(), m.tensor(2.0).t())
    check(recipe)
    check(lambda m: _arange(m, (2, 3, 4)).t())
    check(lambda m: (_arange(m, (2, 3), "complex64").conj().t().contiguous(),
                     _arange(m, (2, 3), "complex64").conj().t().is_conj()))
    check(lambda m: _arange(m, (2, 3), "float64").t().contiguous())

    def grad(m):
        a = _arange(m, (2, 3)).requires_grad_()
        y = a.t()
        (y.contiguous() * _arange(m, (3, 2))).sum().backward()
        return y.grad_fn.name(), a.grad

    check(grad)

    def version(m):
        a = _arange(m, (2, 3))
        v = a.t()
        v.add_(1)
        return a, a._version, v._version
    check(version)


def test_t_of_a_shrunk_storage():
    def recipe(m):
        a = m.ones(4, 4)
        a.untyped_storage().resize_(0)
        return a.t()
    check(recipe)


def test_t_explain_shows_the_view():
    a = strided.ones(2, 3)
    with strided.explain() as ex:
        a.t()
    assert "aten::t" in ex.path() and "as_strided" in ex.path(), ex.path()


# -- cat ----------------------------------------------------------------------------------------

def test_cat_two_inputs():
    check(lambda m: m.cat([_arange(m, (4, 4)), _arange(m, (2, 4)) + 100]))
    check(lambda m: m.cat([_arange(m, (128, 256)), _arange(m, (128, 256))]))
    check(lambda m: m.cat([_arange(m, (3, 4, 5)), _arange(m, (0, 4, 5))]))
    check(lambda m: m.cat([_arange(m, (2, 3), "int64"), _arange(m, (1, 3), "int64")]))
    check(lambda m: m.cat([_arange(m, (2, 3), "bool"), _arange(m, (1, 3), "bool")]))
    check(lambda m: m.cat([_arange(m, (2, 3), "complex64"), _arange(m, (1, 3), "complex64")]))
    check(lambda m: m.cat([_arange(m, (6, 3))[2:], _arange(m, (9, 3))[4:7]]))   # offsets
    check(lambda m: m.cat([m.tensor([1.0, 2.0]), m.tensor([3.0])]))


def test_cat_whole_and_partial_storages():
    # an input that is its whole storage is copied unsliced; prefixes, suffixes and NumPy
    # arrays' storages (from_numpy of a slice) are sliced
    x = np.arange(40, dtype=np.float32).reshape(10, 4)
    check(lambda m: m.cat([_arange(m, (4, 4))[:2], _arange(m, (4, 4))[3:]]))
    check(lambda m: m.cat([m.from_numpy(x[2:5]), m.from_numpy(x[7:])]))
    check(lambda m: m.cat([m.from_numpy(x), _arange(m, (1, 4))]))
    check(lambda m: m.cat([_arange(m, (5,)), _arange(m, (3,))]))

    def inference(m):
        with m.inference_mode():
            y = m.cat([_arange(m, (2, 4)), _arange(m, (1, 4))])
        return y, y.is_inference()
    check(inference)


def test_cat_leaves_the_short_path():
    check(lambda m: m.cat([_arange(m, (2, 3)), _arange(m, (2, 3), "float64")]))
    check(lambda m: m.cat([_arange(m, (3, 2)).t(), _arange(m, (3, 2)).t()]))
    check(lambda m: m.cat([_arange(m, (2, 3)), _arange(m, (2, 4))]))
    check(lambda m: m.cat([_arange(m, (2, 3)), _arange(m, (2, 3))], 1))
    check(lambda m: m.cat([_arange(m, (2, 3)), m.tensor(1.0)]))
    check(lambda m: m.cat([_arange(m, (2, 3)), m.empty(0)]))

    def grad(m):
        a = m.ones(2, 3, requires_grad=True)
        b = m.ones(1, 3, requires_grad=True)
        y = m.cat([a * 2, b])
        y.sum().backward()
        return y, y.grad_fn.name(), a.grad, b.grad
    check(grad)


def test_cat_result_is_independent():
    a, b = strided.ones(2, 2), strided.zeros(1, 2)
    y = strided.cat([a, b])
    a.fill_(5)
    assert y.tolist() == [[1.0, 1.0], [1.0, 1.0], [0.0, 0.0]]
    assert y._version == 0 and y.is_contiguous()
    ta, tb = torch.ones(2, 2), torch.zeros(1, 2)
    assert_same(y, torch.cat([ta, tb]))


# -- random: the fast paths stay bit for bit torch's -----------------------------------------

def _same_bits(fn, seeds=(0, 7, 123456789)):
    """``fn(lib)`` after ``manual_seed`` in both libraries: the same bits, dtype, shape and
    strides, and the generators left in the same state."""
    for seed in seeds:
        strided.manual_seed(seed)
        torch.manual_seed(seed)
        rs, rt = fn(strided), fn(torch)
        if not isinstance(rt, tuple):
            rs, rt = (rs,), (rt,)
        for s, t in zip(rs, rt):
            assert_same(s, t, values=False)
            if t.dtype == torch.bfloat16:
                s, t = s.view(strided.int16), t.view(torch.int16)
            a = np.ascontiguousarray(s.numpy())
            b = np.ascontiguousarray(t.numpy())
            np.testing.assert_array_equal(a.view(f"u{a.itemsize}"), b.view(f"u{b.itemsize}"))
        np.testing.assert_array_equal(strided.get_rng_state().numpy(),
                                      torch.get_rng_state().numpy())


_RAND_SIZES = [(3, 4), (), (0,), (1,), (4, 0), (2, 3, 5), (4095,), (4096,), (5000,),
               (1 << 18,), ((1 << 18) + 3,)]


@pytest.mark.parametrize("size", _RAND_SIZES, ids=str)
def test_rand_bits(size):
    _same_bits(lambda m: (m.rand(size), m.rand(*size) * 1 if size else m.rand(size)))


def test_rand_variants():
    _same_bits(lambda m: m.rand(3, 4, generator=m.Generator().manual_seed(11)))
    _same_bits(lambda m: (m.rand(3, 4, dtype=m.float64), m.rand(5, dtype=m.float16),
                          m.rand(2, 2, dtype=m.complex64), m.rand(4, dtype=m.bfloat16)))
    _same_bits(lambda m: m.rand(3, 4, out=m.empty(12)))
    _same_bits(lambda m: m.rand_like(m.empty(6, 2).t()))

    def grad(m):
        x = m.rand(3, 4, requires_grad=True)
        assert x.requires_grad and x.is_leaf and x._version == 0
        return x.detach()
    _same_bits(grad)
    check(lambda m: m.rand(3, 4, device="meta"))
    check(lambda m: m.rand(-1, 3))
    check(lambda m: m.rand(3, dtype=m.int64))


def test_rand_one_call_path():
    # Note [rand in one call]: explicit float32 / cpu, a list size, inference mode,
    # deterministic mode, a default device of meta: the same bits and metadata as torch
    _same_bits(lambda m: (m.rand(3, 4, dtype=m.float32, device="cpu"), m.rand([2, 5]),
                          m.rand((1, 1, 7)), m.rand(4095), m.rand(2, 0, 3)))

    def inference(m):
        with m.inference_mode():
            x = m.rand(3, 4)
        assert x.is_inference()
        return x
    _same_bits(inference)

    def deterministic(m):
        m.use_deterministic_algorithms(True)
        try:
            return m.rand(3, 4)
        finally:
            m.use_deterministic_algorithms(False)
    _same_bits(deterministic)
    check(lambda m: m.rand(3, 4, device="meta"))


def test_rand_explain_shows_the_steps():
    with strided.explain() as ex:
        strided.rand(3, 4)
    path = ex.path()
    assert "aten::rand" in path and "empty" in path and "uniform_" in path, path


def test_rand_default_dtype():
    strided.set_default_dtype(strided.float64)
    torch.set_default_dtype(torch.float64)
    try:
        _same_bits(lambda m: m.rand(3, 4))
    finally:
        strided.set_default_dtype(strided.float32)
        torch.set_default_dtype(torch.float32)


@pytest.mark.parametrize("n", [16, 17, 33, 4096 * 16 + 5, 1 << 17])
def test_randn_bits(n):
    _same_bits(lambda m: m.randn(n), seeds=(0, 42))
    _same_bits(lambda m: m.randn(n, dtype=m.float16) if n < 1000 else m.randn(n // 16, 16),
               seeds=(3,))


def test_randn_small_sizes_in_sequence():
    # the scalar path on Python floats (up to 32 values) and on NumPy arrays (above),
    # one after the other so that the cached sine sample passes between them
    _same_bits(lambda m: tuple(m.randn(k) for k in (1, 2, 3, 5, 7, 13, 15, 31, 32, 33, 3)),
               seeds=(0, 99))
    _same_bits(lambda m: tuple(m.empty(k, 3).t().normal_(0.5, 2.0) for k in (1, 5, 11, 12)))
    _same_bits(lambda m: tuple(m.randn(k, dtype=m.float64) for k in (1, 9, 40)))
    _same_bits(lambda m: m.empty(7).log_normal_(0.1, 0.5))


def test_randn_affine_and_small():
    _same_bits(lambda m: (m.randn(5), m.randn(3, 4), m.randn(40).mul_(2)))
    _same_bits(lambda m: m.empty(1000).normal_(1.5, 0.25))
    _same_bits(lambda m: m.normal(2.0, 3.0, (20, 7)))


def test_inplace_samplers_refuse_overlap():
    for name, args in (("uniform_", ()), ("normal_", ()), ("exponential_", ()),
                       ("random_", ()), ("bernoulli_", (0.5,))):
        check(lambda m, name=name, args=args: getattr(m.zeros(3).expand(2, 3), name)(*args))
    _same_bits(lambda m: (m.empty(4, 5).uniform_(-1, 2), m.empty(5, 4).t().uniform_(),
                          m.empty(3, 1).exponential_()))
