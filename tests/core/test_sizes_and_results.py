"""Sizes, storage sizes and devices checked like torch's; results torch gets right.

* ``set_(source_tensor, offset, size)`` counts from the source's own first element;
* integer division of the minimum by -1, relu's gradient at NaN, ``mode`` with NaN;
* sizes: overflow of numel and of storage sizes, negative sizes, ``UntypedStorage(n)``,
  sizes given as NumPy integers or one-element tensors (never stored as a Tensor), floats
  refused; failed allocations leave the allocator's statistics alone and never print
  "Exception ignored" from a storage's destructor;
* a CPU (or meta) tensor made with ``device='cpu:1'`` is on ``cpu``.
"""

from __future__ import annotations

import gc
import sys
import warnings

import numpy as np
import pytest
import torch
from conftest import assert_same, check, hyp
from hypothesis import given
from hypothesis import strategies as st

import strided

INT_MINS = {"int8": -(1 << 7), "int16": -(1 << 15), "int32": -(1 << 31), "int64": -(1 << 63)}


# --------------------------------------------------------------------------- set_

@pytest.mark.parametrize("offset, size, stride", [
    (1, (2,), None), (0, (3,), None), (1, (2,), (2,)), (2, (2, 2), (1, 2)), (5, (5,), None),
    (-1, (2,), None), (-3, (2,), None), (0, (0,), None),
])
def test_set_from_a_tensor_counts_from_its_first_element(offset, size, stride):
    def recipe(m):
        src = m.arange(10)[2:]
        args = (src, offset, size) if stride is None else (src, offset, size, stride)
        out = m.empty(0, dtype=m.int64).set_(*args)
        n = out.numel()
        return _meta(out), src.untyped_storage().nbytes(), out if n <= 8 - max(offset, 0) \
            else out.shape
    check(recipe)


def test_set_from_a_tensor_of_another_dtype():
    # the offset is in the result's elements, added to the source's offset as is
    check(lambda m: m.empty(0, dtype=m.int32).set_(m.arange(10)[2:], 1, (2,)))


def test_set_from_a_tensor_keeps_sharing():
    def recipe(m):
        src = m.arange(10.0)[3:]
        out = m.empty(0).set_(src, 2, (2, 2), (2, 1))
        out.fill_(-1)
        return src, out
    check(recipe)


def _meta(t):
    return tuple(t.shape), tuple(t.stride()), t.storage_offset()


# --------------------------------------------------------------------------- division

def _int_min_operands(m, name):
    d = getattr(m, name)
    mn = INT_MINS[name]
    return m.tensor([mn, mn, 7, -7, mn, 0], dtype=d), m.tensor([-1, 1, -1, 2, 2, -1], dtype=d)


@pytest.mark.parametrize("name", list(INT_MINS))
@pytest.mark.parametrize("op", ["floor", "floor_divide", "remainder", "fmod", "true",
                                "floor_scalar", "fmod_scalar"])
def test_integer_minimum_divided_by_minus_one(name, op):
    def recipe(m):
        a, b = _int_min_operands(m, name)
        return {
            "floor": lambda: m.div(a, b, rounding_mode="floor"),
            "floor_divide": lambda: m.floor_divide(a, b),
            "remainder": lambda: m.remainder(a, b),
            "fmod": lambda: m.fmod(a, b),
            "true": lambda: a / b,
            "floor_scalar": lambda: m.div(a, -1, rounding_mode="floor"),
            "fmod_scalar": lambda: m.fmod(a, -1),
        }[op]()
    check(recipe)


@pytest.mark.parametrize("name", ["int8", "int16"])
@pytest.mark.parametrize("scalar", [False, True])
def test_integer_minimum_trunc_division_small_types(name, scalar):
    def recipe(m):
        a, b = _int_min_operands(m, name)
        return m.div(a, -1 if scalar else b, rounding_mode="trunc"), \
            a.clone().div_(-1 if scalar else b, rounding_mode="trunc")
    check(recipe)


@pytest.mark.parametrize("name", ["int32", "int64"])
def test_integer_minimum_trunc_division_wraps(name):
    # torch's CPU kernel traps (SIGFPE) here; strided gives what the int8/int16 kernels and
    # the floor mode give: the minimum itself (two's complement wrap-around), quietly
    a, b = _int_min_operands(strided, name)
    mn = INT_MINS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r1 = strided.div(a, b, rounding_mode="trunc")
        r2 = strided.div(a, -1, rounding_mode="trunc")
        r3 = strided.div(a[0], b[0], rounding_mode="trunc")
    assert r1.tolist() == [mn, mn, -7, -3, mn // 2, 0]
    assert r2.tolist() == [mn, mn, -7, 7, mn, 0]
    assert r3.item() == mn
    floor = torch.div(*_int_min_operands(torch, name), rounding_mode="floor")
    assert r1.tolist()[:3] == floor.tolist()[:3]


# --------------------------------------------------------------------------- relu at NaN

# (hardtanh / relu6 are left out: torch's kernel gives 0 at NaN in its vectorized body and
# the gradient in its scalar tail, so the answer depends on the position and the CPU's vector
# width; strided gives the vectorized body's 0 everywhere)
ACTIVATIONS = {
    "relu": lambda m, x: x.relu(),
    "relu_f": lambda m, x: m.nn.functional.relu(x),
    "threshold": lambda m, x: m.nn.functional.threshold(x, 0.0, -2.0),
    "leaky_relu": lambda m, x: m.nn.functional.leaky_relu(x),
    "relu_inplace": lambda m, x: (x * 1).relu_(),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", list(ACTIVATIONS))
def test_activation_gradient_at_nan(name, dtype):
    def recipe(m):
        nan, inf = float("nan"), float("inf")
        x = m.tensor([nan, -1.0, 0.0, 0.25, 1.0, 6.0, 7.0, -inf, inf],
                     dtype=getattr(m, dtype), requires_grad=True)
        y = ACTIVATIONS[name](m, x)
        g = m.tensor([1.0, 2.0, 3.0, 4.0, nan, inf, 5.0, 6.0, 7.0], dtype=getattr(m, dtype))
        gx, = m.autograd.grad(y, x, g)
        return y.detach(), gx, type(y.grad_fn).__name__
    check(recipe)


# --------------------------------------------------------------------------- mode with NaN

@hyp(120)
@given(n=st.integers(1, 70), nan_p=st.floats(0.0, 1.0), seed=st.integers(0, 2**16),
       dtype=st.sampled_from(["float32", "float64", "float16", "bfloat16", "int64", "int8"]))
def test_mode_with_nan_matches_torch(n, nan_p, seed, dtype):
    rng = np.random.default_rng(seed)
    vals = rng.integers(0, 4, n).astype(np.float64)
    if dtype.startswith("float") or dtype == "bfloat16":
        vals[rng.random(n) < nan_p] = np.nan
    tv, ti = torch.tensor(vals).to(getattr(torch, dtype)).mode()
    sv, si = strided.tensor(vals).to(getattr(strided, dtype)).mode()
    assert_same(sv, tv)
    assert_same(si, ti)


@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("keepdim", [False, True])
def test_mode_with_nan_along_dims(dim, keepdim):
    # (rows longer than 16 pick among ties as torch's std::sort does: see the next test)
    nan = float("nan")
    rows = [[nan, 1.0, nan, 2.0], [1.0, nan, 1.0, nan], [nan, nan, nan, nan], [2.0, 2.0, 1.0, 1.0]]
    check(lambda m: tuple(m.tensor(rows).mode(dim, keepdim)))
    check(lambda m: tuple(m.tensor(rows, dtype=m.float64).t().mode(dim, keepdim)))


def test_mode_of_long_rows_picks_torchs_index():
    rng = np.random.default_rng(5)
    vals = rng.integers(0, 7, (6, 300))
    check(lambda m: tuple(m.tensor(vals).mode(1)))
    check(lambda m: tuple(m.tensor(vals, dtype=m.float32).mode(0)))
    check(lambda m: tuple(m.tensor(np.ascontiguousarray(vals[0])).mode()))


# --------------------------------------------------------------------------- size overflow

SIZE_CASES = {
    "expand_numel": lambda m: m.zeros(1, 3).expand(1 << 62, 3).numel(),
    "expand_square": lambda m: m.zeros(1, 1).expand(1 << 62, 1 << 62).shape,
    "expand_2_40": lambda m: m.zeros(1, 1).expand(1 << 40, 1 << 40).shape,
    "expand_fits": lambda m: m.zeros(1, 1).expand(1 << 31, 1 << 31).shape,
    "broadcast_to": lambda m: m.zeros(1, 1).broadcast_to(1 << 62, 4).shape,
    "as_strided_numel": lambda m: m.zeros(1).as_strided((1 << 62, 4), (0, 0)).shape,
    "empty_overflow": lambda m: m.empty(1 << 62, 4),
    "empty_zero_after_overflow": lambda m: m.empty(1 << 62, 4, 0),
    "empty_zero_no_overflow": lambda m: m.empty(1 << 31, 1 << 32, 0).shape,
    "empty_bytes_overflow": lambda m: m.empty(1 << 61),
    "empty_int8_fits": lambda m: m.empty(1 << 62, 0, dtype=m.int8).shape,
    "zeros_overflow": lambda m: m.zeros(1 << 62, 4),
    "ones_overflow": lambda m: m.ones(1 << 62, 4),
    "full_overflow": lambda m: m.full((1 << 62, 4), 1.0),
    "rand_overflow": lambda m: m.rand(1 << 62, 4),
    "randn_overflow": lambda m: m.randn(1 << 62, 4),
    "empty_meta_overflow": lambda m: m.empty(1 << 62, 4, device="meta"),
    "empty_meta_large": lambda m: m.empty(1 << 40, device="meta").shape,
    "empty_strided_overflow": lambda m: m.empty_strided((1 << 62,), (4,)),
    "empty_negative": lambda m: m.empty(-1),
    "empty_negative2": lambda m: m.empty(2, -1),
    "zeros_negative": lambda m: m.zeros(-1),
    "full_negative": lambda m: m.full((-1,), 1.0),
    "rand_negative": lambda m: m.rand(-1),
    "resize_overflow": lambda m: m.zeros(1).resize_(1 << 62, 4),
    "resize_negative": lambda m: m.zeros(1).resize_(-1, 3),
    "resize_bytes_overflow": lambda m: m.zeros(1).resize_(1 << 61),
    "view_big": lambda m: m.zeros(6).view(1 << 62, 4),
    "view_negative": lambda m: m.zeros(6).view(-2, 3),
    "reshape_big": lambda m: m.zeros(6).reshape(1 << 62, 4, 0),
    "new_empty_overflow": lambda m: m.zeros(1).new_empty((1 << 62, 4)),
    "new_zeros_negative": lambda m: m.zeros(1).new_zeros((-1,)),
}


@pytest.mark.parametrize("name", list(SIZE_CASES))
def test_size_overflow_and_negative_sizes(name):
    check(SIZE_CASES[name])


STORAGE_CASES = {
    "negative": lambda m: m.UntypedStorage(-1),
    "negative5": lambda m: m.UntypedStorage(-5),
    "huge": lambda m: m.UntypedStorage(1 << 62),
    "too_big": lambda m: m.UntypedStorage(1 << 63),
    "float": lambda m: m.UntypedStorage(1.5),
    "bool": lambda m: m.UntypedStorage(True),
    "none": lambda m: m.UntypedStorage(None),
    "float_tensor": lambda m: m.UntypedStorage(m.tensor(3.0)),
    "tensor_1d": lambda m: m.UntypedStorage(m.tensor([3])),
    "bool_tensor": lambda m: m.UntypedStorage(m.tensor(True)),
    "int_tensor": lambda m: m.UntypedStorage(m.tensor(3)).nbytes(),
    "numpy_int": lambda m: m.UntypedStorage(np.int64(3)).nbytes(),
    "empty": lambda m: m.UntypedStorage().nbytes(),
    "list": lambda m: m.UntypedStorage([1, 2, 300, -1, True]).tolist(),
    "tuple": lambda m: m.UntypedStorage((1, 2)).tolist(),
    "bytes": lambda m: m.UntypedStorage(b"ab").tolist(),
    "str": lambda m: m.UntypedStorage("ab"),
    "list_of_float": lambda m: m.UntypedStorage([1.5]),
    "list_of_tensor": lambda m: m.UntypedStorage([m.tensor(3)]),
    "meta": lambda m: m.UntypedStorage(3, device="meta").nbytes(),
    "meta_negative": lambda m: m.UntypedStorage(-3, device="meta").nbytes(),
    "resize_negative": lambda m: m.UntypedStorage(3).resize_(-1),
    "resize_huge": lambda m: m.UntypedStorage(3).resize_(1 << 62),
    "resize_too_big": lambda m: m.UntypedStorage(3).resize_(1 << 63),
    "resize_tensor": lambda m: m.UntypedStorage(3).resize_(m.tensor(5)),
    "resize_float": lambda m: m.UntypedStorage(3).resize_(1.5),
    "resize_bool": lambda m: m.UntypedStorage(3).resize_(True),
    "resize_numpy": lambda m: m.UntypedStorage(3).resize_(np.int64(5)).nbytes(),
    "resize_meta_negative": lambda m: m.UntypedStorage(3, device="meta").resize_(-1).nbytes(),
}


@pytest.mark.parametrize("name", list(STORAGE_CASES))
def test_untyped_storage_sizes(name):
    check(STORAGE_CASES[name])


def test_storage_from_a_sequence_keeps_the_bytes():
    def recipe(m):
        s = m.UntypedStorage([1, 2, 3, 4])
        t = m.empty(0, dtype=m.uint8).set_(s)
        return t, s.nbytes()
    check(recipe)


# --------------------------------------------------------------------------- size arguments

def _size_args(m):
    return {"t0": m.tensor(2), "t1": m.tensor([2]), "tf": m.tensor(2.0),
            "np": np.int64(2), "npf": np.float64(2.0), "f": 2.0, "u8": m.tensor(2, dtype=m.uint8)}


SIZE_TAKERS = {
    "empty": lambda m, v: m.empty(v, 3),
    "empty_tuple": lambda m, v: m.empty((v, 3)),
    "zeros_second": lambda m, v: m.zeros(3, v),
    "full": lambda m, v: m.full((v,), 1.0),
    "rand": lambda m, v: m.rand(v),
    "view": lambda m, v: m.zeros(6).view(v, 3),
    "view_tuple": lambda m, v: m.zeros(6).view((v, -1)),
    "reshape": lambda m, v: m.zeros(6).reshape(v, 3),
    "expand": lambda m, v: m.zeros(1, 3).expand(v, 3),
    "new_zeros": lambda m, v: m.zeros(6).new_zeros(v),
    "new_empty": lambda m, v: m.zeros(6).new_empty((v, 3)),
    "new_full": lambda m, v: m.zeros(6).new_full((v,), 1.0),
    "resize_": lambda m, v: m.zeros(1).resize_(v, 3),
    "narrow": lambda m, v: m.zeros(6).narrow(0, v, 2),
    "unflatten": lambda m, v: m.zeros(6).unflatten(0, (v, 3)),
    "repeat": lambda m, v: m.zeros(6).repeat(v),
    "empty_strided": lambda m, v: m.empty_strided((v, 3), (3, 1)),
    "size": lambda m, v: m.Size([v, 3]),
}


def _as_meta(r):
    if isinstance(r, (torch.Tensor, strided.Tensor)):
        return _meta(r), [type(s).__name__ for s in r.shape]
    if isinstance(r, (torch.Size, strided.Size)):
        return tuple(r), [type(s).__name__ for s in r]
    return r


@pytest.mark.parametrize("arg", ["t0", "t1", "tf", "np", "npf", "f", "u8"])
@pytest.mark.parametrize("name", list(SIZE_TAKERS))
def test_size_arguments_are_indices(name, arg):
    check(lambda m: _as_meta(SIZE_TAKERS[name](m, _size_args(m)[arg])), first_line=True)


def test_a_tensor_never_stays_a_size():
    s = strided.Size([strided.tensor(2), strided.tensor([3], dtype=strided.uint8), True])
    assert tuple(s) == (2, 3, 1) and all(type(v) is int for v in s)
    t = torch.Size([torch.tensor(2), torch.tensor([3], dtype=torch.uint8), True])
    assert tuple(t) == (2, 3, 1) and all(type(v) is int for v in t)
    x = strided.zeros(6).view(strided.tensor(2), 3)
    assert all(type(v) is int for v in x.shape)
    y = x + 1    # would recurse if a Tensor were stored as a size
    assert y.shape == (2, 3)


@pytest.mark.parametrize("items", [[2.0], ["a"], [None], [np.float64(2)]])
def test_size_refuses_non_indices(items):
    check(lambda m: m.Size(items))
    check(lambda m: m.Size([m.tensor(2.0)]))


# --------------------------------------------------------------------------- allocator

def _stats():
    gc.collect()
    stats = strided.memory_stats()
    return {k: v for k, v in stats.items() if k != "cached_bytes"}


FAILING_ALLOCATIONS = [
    lambda: strided.UntypedStorage(-1),
    lambda: strided.UntypedStorage(1 << 62),
    lambda: strided.UntypedStorage(1.5),
    lambda: strided.UntypedStorage(strided.tensor(3.0)),
    lambda: strided.empty(1 << 40),
    lambda: strided.empty(1 << 62, 4),
    lambda: strided.empty(-1),
    lambda: strided.zeros(1 << 41),
    lambda: strided.UntypedStorage(8).resize_(1 << 62),
    lambda: strided.UntypedStorage(8).resize_(-1),
    lambda: strided.zeros(1).resize_(1 << 40),
    lambda: strided.zeros(1).expand(1 << 40) + 1,
]


@pytest.mark.parametrize("i", range(len(FAILING_ALLOCATIONS)))
def test_failed_allocations_leave_the_statistics_and_stderr_alone(i, capsys):
    unraisable = []
    old_hook = sys.unraisablehook
    sys.unraisablehook = unraisable.append
    try:
        before = _stats()
        with pytest.raises((RuntimeError, TypeError, ValueError)):
            FAILING_ALLOCATIONS[i]()
        after = _stats()
        gc.collect()
    finally:
        sys.unraisablehook = old_hook
    assert not unraisable, [u.exc_value for u in unraisable]
    assert "Exception ignored" not in capsys.readouterr().err
    assert all(type(v) is int for v in after.values())
    assert after["allocated_bytes.current"] == before["allocated_bytes.current"]
    assert after["allocation.current"] == before["allocation.current"]
    # the allocator still works
    t = strided.ones(3) + 1
    assert t.tolist() == [2.0, 2.0, 2.0]


def test_allocator_refuses_a_non_integer_byte_count():
    alloc = strided.core.allocator.get_allocator("cpu")
    bads = (1.5, strided.tensor(8), strided.tensor(8.0), "8")
    before = alloc.stats()
    for bad in bads:
        with pytest.raises(TypeError):
            alloc.allocate(bad)
    assert alloc.stats()["allocated_bytes.current"] == before["allocated_bytes.current"]


# --------------------------------------------------------------------------- devices

DEVICE_CASES = {
    "device_object": lambda m: m.device("cpu:1"),
    "device_pair": lambda m: m.device("cpu", 1),
    "zeros": lambda m: m.zeros(1, device="cpu:1").device,
    "zeros_object": lambda m: m.zeros(1, device=m.device("cpu", 3)).device,
    "storage_of_tensor": lambda m: m.zeros(1, device="cpu:1").untyped_storage().device,
    "storage": lambda m: m.UntypedStorage(3, device="cpu:1").device,
    "meta": lambda m: m.zeros(1, device="meta:1").device,
    "tensor": lambda m: m.tensor([1.0], device="cpu:1").device,
    "arange": lambda m: m.arange(3, device="cpu:1").device,
    "rand": lambda m: m.rand(3, device="cpu:1").device,
    "full": lambda m: m.full((2,), 1.0, device="cpu:1").device,
    "eye": lambda m: m.eye(2, device="cpu:1").device,
    "empty_strided": lambda m: m.empty_strided((2,), (1,), device="cpu:1").device,
    "zeros_like": lambda m: m.zeros_like(m.zeros(1), device="cpu:1").device,
    "new_zeros": lambda m: m.zeros(1).new_zeros(1, device="cpu:1").device,
    "to": lambda m: m.zeros(1).to("cpu:1").device,
    "to_copies": lambda m: (lambda a: a.to("cpu:1") is a)(m.zeros(1)),
    "to_same": lambda m: (lambda a: a.to("cpu") is a)(m.zeros(1)),
    "get_device": lambda m: m.zeros(1, device="cpu:1").get_device(),
    "negative_string": lambda m: m.zeros(1, device="cpu:-1"),
    "negative_index": lambda m: m.device("cpu", -1),
    "as_tensor": lambda m: m.as_tensor([1], device="cpu:1").device,
}


@pytest.mark.parametrize("name", list(DEVICE_CASES))
def test_cpu_devices_have_no_index(name):
    check(DEVICE_CASES[name])


def test_device_index_loop_ends():
    # code that probes devices by index until the tensor's device differs stops at once
    seen = []
    for i in range(4):
        d = strided.zeros(1, device=f"cpu:{i}").device
        seen.append(str(d))
    assert seen == ["cpu"] * 4


@pytest.mark.parametrize("size, stride", [((-2, 3), (3, 1)), ((2, -3), (3, 1)),
                                          ((-2, 3), (0, 1)), ((-1,), (1,)), ((3, -2), (1, 0))])
def test_as_strided_negative_size_errors_like_torch(size, stride):
    """torch's unsigned size arithmetic: the storage-size overflow, else the numel one."""
    check(lambda lib: lib.zeros(9, dtype=lib.uint8).as_strided(size, stride, 1))
