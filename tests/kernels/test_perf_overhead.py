"""Differential tests for the call-overhead fast paths (issue 17): the complex32 probe
(Note [The complex32 probe]), the allocation and factory fast paths, ``item``."""

from __future__ import annotations

import warnings

import pytest
import torch
from conftest import check

import strided
from strided.kernels import complex32 as c32


def _c32(m, *shape):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return m.ones(*shape, dtype=m.complex64).to(m.complex32)


# -- the complex32 probe ------------------------------------------------------------------

@pytest.mark.parametrize("recipe", [
    lambda m: _c32(m, 2, 3).sum(),
    lambda m: _c32(m, 2, 3).sum(dtype=m.complex32),
    lambda m: m.ones(2, 3, dtype=m.complex64).sum(dtype=m.complex32),
    lambda m: _c32(m, 2, 3).sum(1),
    lambda m: _c32(m, 2, 3).mean(),
    lambda m: _c32(m, 2, 3).max(),
    lambda m: _c32(m, 0, 3).sum(),              # empty: computed, not refused
    lambda m: _c32(m, 0, 3).mean(),
    lambda m: _c32(m, 2, 2) @ _c32(m, 2, 2),
    lambda m: _c32(m, 2) @ _c32(m, 2),
    lambda m: m.mm(_c32(m, 2, 2), _c32(m, 2, 2)),
    lambda m: m.addmm(_c32(m, 2, 2), _c32(m, 2, 2), _c32(m, 2, 2), beta=2, alpha=0.5),
    lambda m: m.mm(_c32(m, 2, 2), _c32(m, 2, 2), out=_c32(m, 2, 2)),
    lambda m: m.lerp(_c32(m, 3), _c32(m, 3), 0.5),
    lambda m: m.arange(3, dtype=m.complex32),
    lambda m: m.flip(_c32(m, 2, 3), [1]),
    lambda m: m.flip(_c32(m, 2, 3), [0]),
    lambda m: m.index_put(_c32(m, 3), (m.tensor([0]),), _c32(m, 1)),
    lambda m: m.take(_c32(m, 3), m.tensor([0])),
    lambda m: _c32(m, 3).scatter(0, m.tensor([0]), 1.0),
    lambda m: m.linalg.inv(_c32(m, 2, 2)),
    lambda m: m.ones(2, 3, device="meta", dtype=m.complex32).sum(),
])
def test_complex32_refusals_through_the_probe(recipe):
    check(recipe)


@pytest.mark.parametrize("recipe", [
    lambda m: m.ones(2, 3).sum(),
    lambda m: m.ones(2, 3).sum(dtype=m.float64),
    lambda m: m.ones(2, 3, dtype=m.int32).sum(1, keepdim=True),
    lambda m: m.ones(2, 3).max(),
    lambda m: m.ones(2, 2) @ m.ones(2, 2, dtype=m.float64),
    lambda m: m.addmm(m.ones(2, 2), m.ones(2, 2), m.ones(2, 2), beta=2, alpha=0.5),
    lambda m: m.lerp(m.ones(3), m.zeros(3), 0.5),
    lambda m: m.cat([m.ones(2), m.zeros(3)]),
    lambda m: m.arange(3, dtype=m.complex64),
    lambda m: m.ones(0, 3).sum(),
])
def test_probe_clears_other_calls(recipe):
    check(recipe)


def _probe(schema):
    return c32._probe_expression(c32._schema_arguments(schema))


def test_probe_expression_reads_every_tensor_and_dtype_argument():
    text = _probe("sum(Tensor self, *, ScalarType? dtype=None) -> Tensor")
    assert text == "a0._dtype is C32 or a1 is C32"
    text = _probe("index_put(Tensor self, Tensor?[] indices, Tensor values, bool "
                  "accumulate=False) -> Tensor")
    assert text == "a0._dtype is C32 or _list_has_c32(a1) or a2._dtype is C32"
    text = _probe("mm.out(Tensor self, Tensor mat2, *, Tensor(a!) out) -> Tensor(a!)")
    assert text == "a0._dtype is C32 or a1._dtype is C32 or a2._dtype is C32"
    assert _probe("eye(SymInt n) -> Tensor") == "False"


def test_guard_takes_the_exact_scan_for_unusual_calls():
    # keywords, another argument count or a wrong kind of argument go to the exact scan
    def kernel(*args, **kwargs):
        return "ran"
    guarded = c32.guard("aten::dot", kernel, "dot(Tensor self, Tensor tensor) -> Tensor")
    assert guarded.__wrapped__ is kernel
    t = strided.ones(2)
    half = t.to(strided.complex64).to(strided.complex32)
    assert guarded(t, t) == "ran"
    assert guarded(t, tensor=t) == "ran"
    assert guarded(t, t, "extra") == "ran"
    assert guarded(None, None) == "ran"
    with pytest.raises(NotImplementedError, match='"dot" not implemented'):
        guarded(half, t)
    with pytest.raises(NotImplementedError, match='"dot" not implemented'):
        guarded(t, half)
    with pytest.raises(NotImplementedError, match='"dot" not implemented'):
        guarded(t, tensor=half)
    with pytest.raises(NotImplementedError, match='"dot" not implemented'):
        guarded(t, half, "extra")


def test_reductions_refuse_complex32_in_their_own_kernels():
    # sum and friends are not wrapped: their kernels refuse by the dtype they compute in
    def kernel(*args, **kwargs):
        return "ran"
    assert c32.guard("aten::sum", kernel, "sum(Tensor self, *, ScalarType? dtype=None) "
                                          "-> Tensor") is kernel


# -- factories, clone, item (Note [Factories' fast path], Note [The varargs fast path]) ---

@pytest.mark.parametrize("recipe", [
    lambda m: m.zeros(4, 4),
    lambda m: m.zeros((2, 3), dtype=m.int32),
    lambda m: m.zeros(2, 0, 3),
    lambda m: m.zeros(()),
    lambda m: m.zeros(2, -1),
    lambda m: m.zeros([2, 3]),
    lambda m: m.zeros(2, 3.0),
    lambda m: m.zeros(2, True),
    lambda m: m.zeros(2, 3, requires_grad=True).requires_grad,
    lambda m: m.zeros(2, 3, device="meta"),
    lambda m: m.empty(3, 4).shape,
    lambda m: m.empty(3, 4).stride(),
    lambda m: m.empty(0).shape,
    lambda m: m.empty(-1, 2),
    lambda m: m.empty(2, 3, dtype=m.float64).dtype,
    lambda m: m.empty(2, 3, memory_format=m.channels_last),
    lambda m: m.empty(1, 2, 3, 4, memory_format=m.channels_last).stride(),
    lambda m: m.ones(3, 2),
    lambda m: m.ones(2**62, 4),
    lambda m: m.rand(2, 3, generator=m.Generator().manual_seed(0)),
])
def test_factories(recipe):
    check(recipe)


def test_zeros_fast_path_follows_the_default_dtype_and_device():
    # _row_major_cpu reads the default dtype and device at each call
    for lib in (strided, torch):
        lib.set_default_dtype(lib.float64)
    try:
        check(lambda m: m.zeros(4, 4))
        check(lambda m: m.zeros(3, dtype=m.float32))
        check(lambda m: m.empty(2, 3).dtype)
    finally:
        for lib in (strided, torch):
            lib.set_default_dtype(lib.float32)
    check(lambda m: m.zeros(4, 4))
    check(lambda m: m.zeros(2, 2, dtype=m.complex32))
    check(lambda m: m.zeros(2, 2, dtype=m.bool))
    check(lambda m: m.zeros(5, 1, 3, dtype=m.int64).stride())
    strided.set_default_device("meta")
    try:
        z = strided.zeros(4, 4)
        assert z.device.type == "meta" and tuple(z.shape) == (4, 4)
    finally:
        strided.set_default_device("cpu")
    # a recycled block is zeroed again
    strided.ones(4, 4).add_(7)
    assert not strided.zeros(4, 4).any().item()


def test_empty_fills_in_deterministic_mode():
    def recipe(m):
        m.use_deterministic_algorithms(True)
        try:
            return m.empty(3, 2), m.empty(4, dtype=m.int32)
        finally:
            m.use_deterministic_algorithms(False)
    check(recipe)


def test_rand_varargs_matches_seeded_torch():
    check(lambda m: (m.manual_seed(3), m.rand(3, 4), m.randn(2, 2))[1:])


def test_view_and_reshape_varargs():
    check(lambda m: m.arange(12.).view(3, 4).reshape(2, -1).permute(1, 0).flip(0))
    check(lambda m: m.arange(12.).view(3, 5))
    check(lambda m: m.arange(12.).view(m.float32).view(-1, 6))


@pytest.mark.parametrize("recipe", [
    lambda m: m.arange(6.).reshape(2, 3).clone(),
    lambda m: m.arange(6, dtype=m.int16).clone(),
    lambda m: m.tensor(2.5).clone(),
    lambda m: m.ones(0, 3).clone(),
    lambda m: m.arange(6.).reshape(2, 3).t().clone(),
    lambda m: m.arange(6.).reshape(2, 3)[1].clone(),
    lambda m: m.arange(12.).reshape(3, 4)[:, 1:].clone(),
    lambda m: m.tensor([1 + 2j, 3j]).conj().clone(),
    lambda m: m.tensor([1 + 2j, 3j]).conj().clone().is_conj(),
    lambda m: m.arange(24.).reshape(1, 2, 3, 4).clone(memory_format=m.channels_last).stride(),
    lambda m: m.ones(2, 3, device="meta").clone(),
])
def test_clone(recipe):
    check(recipe)


def test_clone_is_a_new_block_with_autograd():
    def recipe(m):
        a = m.arange(4.).requires_grad_()
        b = a.clone()
        b.sum().backward()
        return b, b.grad_fn.name(), a.grad, b.data_ptr() != a.data_ptr(), b._version
    check(recipe)


@pytest.mark.parametrize("recipe", [
    lambda m: m.tensor(1.5).item(),
    lambda m: m.tensor([7]).item(),
    lambda m: m.tensor([[True]]).item(),
    lambda m: m.tensor(1.5, dtype=m.float16).item(),
    lambda m: m.tensor(1.5, dtype=m.bfloat16).item(),
    lambda m: m.tensor(1 + 2j).item(),
    lambda m: m.tensor(1 + 2j).conj().item(),
    lambda m: m.tensor(3, dtype=m.uint8).item(),
    lambda m: m.arange(4.)[2].item(),
    lambda m: m.arange(4.).item(),
    lambda m: m.ones(1, device="meta").item(),
    lambda m: m.ones(0).item(),
])
def test_item(recipe):
    check(recipe)


def test_item_after_the_storage_changes():
    def recipe(m):
        t = m.tensor([2.0])
        first = t.item()
        t.set_(m.tensor([5.0]))
        return first, t.item()
    check(recipe)


@pytest.mark.parametrize("make", [
    lambda a: strided.zeros(4, 4),
    lambda a: strided.empty(3, 5, dtype=strided.float64),
    lambda a: a.clone(),
])
def test_fast_factories_keep_the_allocator_statistics(make):
    a = strided.ones(4, 4)
    make(a)                                   # (a block of this size in the cache)
    before = strided.memory_stats()
    t = make(a)
    during = strided.memory_stats()
    nbytes = (t.numel() * t.element_size() + 63) // 64 * 64
    assert during["allocation.allocated"] == before["allocation.allocated"] + 1
    assert during["allocated_bytes.current"] == before["allocated_bytes.current"] + nbytes
    assert t.data_ptr() % 64 == 0
    del t
    after = strided.memory_stats()
    assert after["allocation.freed"] == before["allocation.freed"] + 1
    assert after["allocated_bytes.current"] == before["allocated_bytes.current"]


def test_fast_factories_report_to_allocator_hooks():
    events = []
    remove = strided.core.allocator.add_hook(lambda *e: events.append(e[:2]))
    try:
        t = strided.zeros(2, 8)
        del t
    finally:
        remove()
    assert events == [("alloc", 64), ("free", 64)]


def test_empty_under_inference_mode_makes_inference_tensors():
    with strided.inference_mode():
        t = strided.empty(2, 2)
        z = strided.zeros(2, 2)
        c = t.clone()
    assert t.is_inference() and z.is_inference() and c.is_inference()
    assert not strided.zeros(2, 2).is_inference()


@pytest.mark.parametrize("recipe", [
    lambda m: m.arange(6.).reshape(2, 3).t().contiguous(),
    lambda m: m.arange(6.).reshape(2, 3).t().contiguous().stride(),
    lambda m: m.arange(6, dtype=m.int64).reshape(2, 3).t().clone(memory_format=m.contiguous_format),
    lambda m: m.arange(6.).reshape(2, 3).t().clone().stride(),
    lambda m: m.arange(12.).reshape(3, 4)[:, ::2].contiguous(),
    lambda m: m.tensor([1 + 2j, 3j]).conj().contiguous().is_conj(),
    lambda m: m.arange(4.).expand(3, 4).contiguous(),
    lambda m: m.ones(0, 3).t().contiguous(),
])
def test_contiguous_of_strided_sources(recipe):
    check(recipe)


def test_contiguous_keeps_autograd_and_versions():
    def recipe(m):
        a = m.arange(6.).reshape(2, 3).requires_grad_()
        b = a.t().contiguous()
        (b * m.arange(6.).reshape(3, 2)).sum().backward()
        return b, b.grad_fn.name(), a.grad, b._version
    check(recipe)


# -- the tensor fast path of the bindings (Note [The tensor fast path]) ----------------------

@pytest.mark.parametrize("recipe", [
    lambda m: m.ones(2, 2).add_(m.full((2, 2), 3.0)),
    lambda m: m.ones(2, 2).add_(2),
    lambda m: m.ones(2, 2).add_(m.ones(2), alpha=2),
    lambda m: m.where(m.tensor([True, False]), m.ones(2), m.zeros(2)),
    lambda m: m.where(m.tensor([True, False]), 1.0, m.zeros(2)),
    lambda m: m.where(m.tensor([True, False]), m.ones(2), 0),
    lambda m: m.where(m.tensor([True, False])),
    lambda m: m.add(m.ones(2), m.ones(2, dtype=m.int64)),
    lambda m: m.mul(m.ones(2), m.tensor(3)),
    lambda m: m.mm(m.ones(2, 3), m.ones(3, 2)),
    lambda m: m.mm(m.ones(2, 3), m.ones(2, 2)),
    lambda m: m.ones(3).mul(m.nn.Parameter(m.ones(3))),
    lambda m: m.nn.functional.mse_loss(m.ones(3), m.zeros(3)),
    lambda m: m.nn.functional.relu6(m.arange(-3., 9.)),
    lambda m: m.special.xlogy(m.ones(2), m.ones(2)),
    lambda m: m.linalg.vecdot(m.ones(3), m.ones(3)),
    lambda m: m.fft.fft(m.ones(4)),
    lambda m: m.ones(2, 2).copy_(m.zeros(2, 2)),
    lambda m: m.maximum(m.ones(2), m.zeros(2)),
    lambda m: m.maximum(m.ones(2), 1),
])
def test_tensor_fast_path(recipe):
    check(recipe)


def test_tensor_fast_path_keeps_autograd():
    def recipe(m):
        a = m.ones(3, requires_grad=True)
        b = m.arange(3.)
        c = m.mul(a, b)
        d = m.where(b > 0, c, b)
        d.sum().backward()
        return c.grad_fn.name(), d.grad_fn.name(), a.grad
    check(recipe)
