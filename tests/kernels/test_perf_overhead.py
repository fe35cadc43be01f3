"""Differential tests for the call-overhead fast paths (issue 17): the complex32 probe
(Note [The complex32 probe]), the allocation and factory fast paths, ``item``."""

from __future__ import annotations

import warnings

import pytest
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


def test_probe_expression_reads_every_tensor_and_dtype_argument():
    text = c32._probe_expression("sum(Tensor self, *, ScalarType? dtype=None) -> Tensor")
    assert text == "len(args) != 2 or args[0]._dtype is C32 or args[1] is C32"
    text = c32._probe_expression(
        "index_put(Tensor self, Tensor?[] indices, Tensor values, bool accumulate=False) "
        "-> Tensor")
    assert "_list_has_c32(args[1])" in text and "args[2]._dtype is C32" in text
    text = c32._probe_expression("mm.out(Tensor self, Tensor mat2, *, Tensor(a!) out) -> "
                                 "Tensor(a!)")
    assert "args[2]._dtype is C32" in text


def test_guard_takes_the_exact_scan_for_unusual_calls():
    # keywords, another argument count or a wrong kind of argument go to the exact scan
    def kernel(*args, **kwargs):
        return "ran"
    guarded = c32.guard("aten::sum", kernel, "sum(Tensor self, *, ScalarType? dtype=None) "
                                             "-> Tensor")
    assert guarded.__wrapped__ is kernel
    t = strided.ones(2)
    assert guarded(t, None) == "ran"
    assert guarded(t) == "ran"
    assert guarded(t, dtype=None) == "ran"
    assert guarded(None, None) == "ran"
    with pytest.raises(NotImplementedError, match="sum_cpu"):
        guarded(t, strided.complex32)
    with pytest.raises(NotImplementedError, match="sum_cpu"):
        guarded(t, dtype=strided.complex32)
