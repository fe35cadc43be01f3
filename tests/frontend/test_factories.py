"""Factories against torch: tensor / as_tensor / from_numpy, empty*, zeros/ones/full, *_like,
arange, linspace, logspace, eye, scalar_tensor, new_*, out= forms and the meta device."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import torch
from conftest import (
    CORE_DTYPE_NAMES,
    DTYPE_NAMES,
    FLOAT_NAMES,
    assert_same,
    check,
    hyp,
    sdt,
    tdt,
)
from hypothesis import assume, given
from hypothesis import strategies as st

import strided


def _recipe(expr: str):
    """``"m.tensor([1, 2])"`` -> a recipe over the module ``m`` (readable test ids)."""
    return eval(f"lambda m: {expr}", {"np": np, "math": math})


# =========================================================================== tensor()

TENSOR_CASES = [
    # scalars and their dtypes
    "m.tensor(True)", "m.tensor(3)", "m.tensor(2.5)", "m.tensor(1j)", "m.tensor(-0.0)",
    "m.tensor(float('nan'))", "m.tensor(float('-inf'))", "m.tensor(2**63-1)",
    "m.tensor(-2**63)", "m.tensor(2**63)", "m.tensor(-2**63-1)", "m.tensor([2**64])",
    # nesting
    "m.tensor([])", "m.tensor([[]])", "m.tensor([[], []])", "m.tensor([[[], []]])",
    "m.tensor([[], [1]])", "m.tensor(())", "m.tensor([()])", "m.tensor([[1, 2], [3, 4]])",
    "m.tensor(((1, 2), (3, 4)))", "m.tensor([[1, 2], (3, 4)])", "m.tensor(range(3))",
    "m.tensor([range(2), range(2)])", "m.tensor([[1, 2], range(2)])",
    "m.tensor([[[1, 2, 3]], [[4, 5, 6]]])",
    # dtype inference over mixed leaves
    "m.tensor([True, 1])", "m.tensor([True, 1.5])", "m.tensor([1, 2.5, 1j])",
    "m.tensor([[True, False], [1, 0]])", "m.tensor([1, []])", "m.tensor([1.5, []])",
    "m.tensor([2**63, 1.5])",
    # dtype=
    "m.tensor([1, 2], dtype=m.float64)", "m.tensor([1.7, -2.7], dtype=m.int32)",
    "m.tensor([1.7, 2.7], dtype=m.uint8)", "m.tensor([0.5, 0, 2], dtype=m.bool)",
    "m.tensor([1, 2], dtype=m.bfloat16)", "m.tensor([1.1, 2], dtype=m.float16)",
    "m.tensor([[1, 2], [3, 4]], dtype=m.complex64)", "m.tensor([1, 2.5, True], dtype=m.complex128)",
    "m.tensor([[1, 2], [3, 4]], dtype=m.bool)", "m.tensor([0.0, -0.0, float('nan')], dtype=m.bool)",
    "m.tensor(True, dtype=m.float32)", "m.tensor(2.5, dtype=m.int64)",
    "m.tensor([1, 2], dtype=float)", "m.tensor([1, 2], dtype=int)", "m.tensor([1, 2], dtype=bool)",
    "m.tensor([1, 2], dtype=complex)", "m.tensor([1, 2], dtype=m.uint16)",
    "m.tensor([1, 2.5], dtype=m.uint16)", "m.tensor([1, 2], dtype=m.uint64)",
    "m.tensor([2**64 - 1], dtype=m.uint64)", "m.tensor([2**63], dtype=m.uint64)",
    # conversions of out-of-range values (Note [Unpacking leaves] in tensor_new.py)
    "m.tensor([300], dtype=m.uint8)", "m.tensor([-1], dtype=m.uint8)",
    "m.tensor([-255], dtype=m.uint8)", "m.tensor([-256], dtype=m.uint8)",
    "m.tensor([-129], dtype=m.int8)", "m.tensor([128], dtype=m.int8)",
    "m.tensor(300, dtype=m.int8)", "m.tensor([-1], dtype=m.uint16)",
    "m.tensor([-1], dtype=m.uint32)", "m.tensor([-2**32+1], dtype=m.uint32)",
    "m.tensor([2**40], dtype=m.uint32)", "m.tensor([-0.5], dtype=m.uint8)",
    "m.tensor([255.5], dtype=m.uint8)", "m.tensor([255.0], dtype=m.uint8)",
    "m.tensor([-128.9], dtype=m.int8)", "m.tensor([127.9], dtype=m.int8)",
    "m.tensor([float('inf')], dtype=m.int32)", "m.tensor([float('nan')], dtype=m.int64)",
    "m.tensor([float('nan')], dtype=m.uint8)", "m.tensor([1e20], dtype=m.int64)",
    "m.tensor([1e10], dtype=m.int32)", "m.tensor(float('inf'), dtype=m.int32)",
    "m.tensor([1.5], dtype=m.uint64)", "m.tensor([np.int64(3)], dtype=m.uint64)",
    "m.tensor([True], dtype=m.uint64)", "m.tensor([2**64], dtype=m.uint64)",
    "m.tensor([-1], dtype=m.uint64)", "m.tensor([2**70], dtype=m.bool)",
    "m.tensor([[2]], dtype=m.bool)", "m.tensor([1e40], dtype=m.float32)",
    "m.tensor([1e40], dtype=m.float16)", "m.tensor(70000., dtype=m.float16)",
    "m.tensor([10**400], dtype=m.float32)", "m.tensor([10**400])",
    "m.tensor([1.1, 2.2, 1e-8, 65519.99, 65520.], dtype=m.float16)",
    "m.tensor([1.1, 2.2, 1e-8, 3.3895e38, 1e39], dtype=m.bfloat16)",
    "m.tensor([0.1, 1/3], dtype=m.float32)",
    # invalid leaves
    "m.tensor([1+2j], dtype=m.float32)", "m.tensor([1j], dtype=m.float32)",
    "m.tensor([1+2j], dtype=m.int64)", "m.tensor([1+2j], dtype=m.bool)",
    "m.tensor([1, [2]])", "m.tensor([1, [2]], dtype=m.float32)",
    "m.tensor([1, [2]], dtype=m.bool)", "m.tensor([1, [2]], dtype=m.complex64)",
    "m.tensor([None], dtype=m.bool)", "m.tensor([1, None], dtype=m.float32)",
    "m.tensor([1, 'a'], dtype=m.int64)", "m.tensor([1, 'a'], dtype=m.float64)",
    "m.tensor([1, 'a'], dtype=m.complex64)", "m.tensor([1, None], dtype=m.complex64)",
    # ragged and invalid data
    "m.tensor([[1, 2], [3]])", "m.tensor([[1], [2, 3]])", "m.tensor([[1], 2])",
    "m.tensor([[1, 2], [3, 4, 5]])", "m.tensor([[[1, 2]], [[3]]])", "m.tensor([[[1]], [[2, 3]]])",
    "m.tensor([[[1], [2]], [[2], 3]])", "m.tensor([[1], []])", "m.tensor('abc')",
    "m.tensor(['a'])", "m.tensor(['ab', 'cd'])", "m.tensor(['a'], dtype=m.bool)",
    "m.tensor([1, 'a'])", "m.tensor([[1, 2], 'ab'])", "m.tensor([[1, 2], [3, 'a']])",
    "m.tensor(b'ab')", "m.tensor([b'a'])", "m.tensor([None])", "m.tensor(None)",
    "m.tensor([1, None])", "m.tensor([1.5, None])", "m.tensor([[1], None])",
    "m.tensor([[1], [None]])", "m.tensor([[1], 'ab'])", "m.tensor(object())",
    "m.tensor({1, 2})", "m.tensor({1: 2})",
    # NumPy scalars
    "m.tensor(np.float32(1.5))", "m.tensor(np.float64(1.5))", "m.tensor([np.float64(1.5)])",
    "m.tensor(np.int8(3))", "m.tensor(np.bool_(True))", "m.tensor(np.complex64(1j))",
    "m.tensor(np.uint8(5))", "m.tensor(np.uint16(5))", "m.tensor(np.uint32(5))",
    "m.tensor(np.uint64(5))", "m.tensor([np.uint64(5)])", "m.tensor([np.uint32(5), 1])",
    "m.tensor([np.float32(1.5), 2])", "m.tensor([np.float64(1.5), np.float32(2)])",
    "m.tensor([np.int8(1), np.int16(2)])", "m.tensor([np.int8(1), 2.5])",
    "m.tensor([np.int8(1), np.uint8(2)])", "m.tensor([np.float16(1), np.int64(2)])",
    "m.tensor([np.float16(1)])", "m.tensor([np.int32(1), 2])", "m.tensor([np.bool_(True)])",
    "m.tensor([np.bool_(True)], dtype=m.float32)", "m.tensor([np.bool_(True), True])",
    "m.tensor([np.bool_(True), 2])", "m.tensor([np.int8(1), True])",
    "m.tensor(np.int8(1), dtype=m.float32)", "m.tensor(np.int64(2), dtype=m.float32)",
    "m.tensor([np.float32(1.5)], dtype=m.int64)", "m.tensor([np.float64(1.5)], dtype=m.int64)",
    "m.tensor([np.int64(2**40)], dtype=m.int32)", "m.tensor(np.datetime64(1, 'D'))",
    # NumPy arrays (inside lists: leaves are stored one by one)
    "m.tensor(np.array([1, 2], dtype=np.int16))", "m.tensor(np.array([[1, 2]], dtype=np.float16))",
    "m.tensor(np.array(3.5))", "m.tensor(np.array(5))", "m.tensor(np.array(5), dtype=m.float16)",
    "m.tensor(np.array([1.5, 2.5]), dtype=m.int32)", "m.tensor(np.array(['a']))",
    "m.tensor(np.array([1, 2], dtype=object))", "m.tensor(np.arange(6)[::-1])",
    "m.tensor(np.array([1, 2], dtype='>i4'))", "m.tensor(np.array([1, 2, 3])[::2])",
    "m.tensor(np.arange(6).reshape(2, 3)[:, ::2])", "m.tensor(np.array([[1, 2], [3, 4]]).T)",
    "m.tensor(np.ones((2, 3, 4)).transpose(2, 0, 1))", "m.tensor(np.ones((3, 4))[:, 1:])",
    "m.tensor(np.ones((2, 3), dtype=np.float32).T, dtype=m.float64)",
    "m.tensor(np.array([1, 2], dtype=np.float16)[::2])",
    "m.tensor(np.broadcast_to(np.arange(3), (2, 3)))", "m.tensor(np.zeros((0, 3)))",
    "m.tensor(np.array([1, 2]), device='meta')",
    "m.tensor([np.array([1.5, 2.5])], dtype=m.int32)",
    "m.tensor([np.array([1.5, 2.5], dtype=np.float32)], dtype=m.int32)",
    "m.tensor([[1, 2], np.array([1.5, 2.5], dtype=np.float32)])",
    "m.tensor([[1], np.array([2])])", "m.tensor([1, np.array(2)])", "m.tensor([np.array(2), 3])",
    # tensors (leaves inside lists, copied at the top level)
    "m.tensor([m.tensor(1), m.tensor(2)])", "m.tensor([m.tensor(1, dtype=m.int8), 2.5])",
    "m.tensor([m.tensor(1.5), 2])", "m.tensor([m.tensor(True), 2])", "m.tensor([m.tensor(1j), 2])",
    "m.tensor([m.tensor(1.5, dtype=m.float64), m.tensor(1, dtype=m.int8)])",
    "m.tensor([m.tensor(2., dtype=m.bfloat16), 2.5])", "m.tensor([[m.tensor(1)], [2]])",
    "m.tensor([m.tensor([1]), m.tensor([2])])", "m.tensor([1, m.tensor([2, 3])])",
    "m.tensor([m.tensor([1, 2]), m.tensor([3, 4])])", "m.tensor([m.tensor([1., 2.])])",
    "m.tensor([m.tensor([1, 2])], dtype=m.float32)", "m.tensor([m.tensor(1.5)], dtype=m.int32)",
    "m.tensor([m.tensor(300)], dtype=m.uint8)", "m.tensor([m.tensor(2**40)], dtype=m.int32)",
    "m.tensor([m.tensor(1j)], dtype=m.float32)", "m.tensor([m.ones((), device='meta')])",
    # keywords and bad arguments
    "m.tensor([1, 2], device='meta')", "m.tensor([1], dtype=m.float32, device='meta')",
    "m.tensor([1, None], device='meta')", "m.tensor([1., 2], requires_grad=True)",
    "m.tensor([1, 2], requires_grad=True)", "m.tensor([1, 2], dtype='float32')",
    "m.tensor([1, 2], foo=1)", "m.tensor()", "m.tensor([1, 2], m.float32)",
    "m.tensor(3, requires_grad=1)", "m.tensor(3., requires_grad=None)",
    "m.tensor(3., device=1.5)", "m.tensor(3., device=None)", "m.tensor(3., device='cpu:0')",
    "m.tensor(3., dtype=None)", "m.tensor(3., names=None)", "m.tensor(data=3.)",
    "m.tensor([1, 2], pin_memory=True)", "m.tensor([1, 2], pin_memory=1)",
]

@pytest.mark.parametrize("expr", TENSOR_CASES)
def test_tensor(expr):
    check(_recipe(expr))


def test_tensor_copy_constructs_from_tensor():
    for expr in ("m.tensor(m.arange(6).view(2, 3).t())",
                 "m.tensor(m.arange(6).view(2, 3).t(), dtype=m.float64)",
                 "m.tensor(m.ones(2), requires_grad=True)", "m.tensor(m.ones(2), device='meta')",
                 "m.tensor(m.ones(2, device='meta'))",
                 "m.tensor(m.ones(2, device='meta'), device='cpu')"):
        check(_recipe(expr))
    src = strided.ones(3)
    with pytest.warns(UserWarning, match="To copy construct from a tensor"):
        out = strided.tensor(src)
    assert out.data_ptr() != src.data_ptr()
    out.fill_(2)
    assert src.tolist() == [1.0, 1.0, 1.0]


# torch warns only once per process for these (TORCH_WARN_ONCE), so the warnings are
# compared separately below.
@pytest.mark.parametrize("expr", [
    "m.tensor([np.array([1, 2], dtype=np.int8), np.array([3, 4], dtype=np.int8)])",
    "m.tensor([np.array([1, 2], dtype=np.int8), np.array([3, 4], dtype=np.int16)])",
    "m.tensor([np.array([1, 2]), [3, 4]])", "m.tensor([np.array([1., 2]), [3, 4]])",
    "m.tensor([np.array([2]), 3])", "m.tensor([np.array([[1, 2]]), np.array([[3]])])",
    "m.tensor([np.array([300])], dtype=m.uint8)",
])
def test_tensor_from_list_of_arrays(expr):
    check(_recipe(expr), warns=False)


def test_tensor_list_of_arrays_warns():
    with pytest.warns(UserWarning, match="Creating a tensor from a list of numpy.ndarrays"):
        strided.tensor([np.array([1, 2]), np.array([3, 4])])


def test_tensor_complex_array_to_real_warns():
    check(lambda m: m.tensor(np.array([1 + 1j]), dtype=m.float32))
    with pytest.warns(UserWarning, match="Casting complex values to real discards"):
        strided.tensor(np.array([1 + 1j]), dtype=strided.float32)


@pytest.mark.parametrize("default", FLOAT_NAMES)
@pytest.mark.parametrize("expr", [
    "m.tensor(2.5)", "m.tensor([1, 2.5])", "m.tensor([])", "m.tensor([[]])", "m.tensor(1j)",
    "m.tensor([1, 1j])", "m.tensor([True, 2.5])", "m.tensor([np.float32(1), 2.5])",
    "m.tensor([np.float64(1), 2.5])", "m.tensor([m.tensor(1, dtype=m.int8), 2.5])",
    "m.tensor([1.1, 2.2, 3.3])", "m.tensor([[1, 2], [3, 4]])",
])
def test_tensor_dtype_inference_follows_default(default, expr, default_dtype):
    default_dtype(default)
    check(_recipe(expr))


# nested lists of Python scalars with a random (rectangular) shape
_leaf = st.one_of(st.booleans(), st.integers(-2**63, 2**63 - 1),
                  st.floats(allow_nan=True, allow_infinity=True, width=64))


@st.composite
def nested_data(draw, leaf=_leaf):
    shape = draw(st.lists(st.integers(0, 3), min_size=0, max_size=3))

    def build(dims):
        if not dims:
            return draw(leaf)
        return [build(dims[1:]) for _ in range(dims[0])]
    return build(shape)


@given(nested_data())
@hyp(60)
def test_tensor_hypothesis_inferred(data):
    check(lambda m: m.tensor(data))


@given(nested_data(st.one_of(st.booleans(), st.integers(-300, 300),
                             st.floats(-300, 300, width=64))),
       st.sampled_from(CORE_DTYPE_NAMES + ["uint16", "uint32"]))
@hyp(80)
def test_tensor_hypothesis_with_dtype(data, dtype):
    check(lambda m: m.tensor(data, dtype=getattr(m, dtype)))


@given(st.lists(st.floats(allow_nan=False, width=64), min_size=1, max_size=20),
       st.sampled_from(["float16", "bfloat16", "float32"]))
@hyp(60)
def test_tensor_float_rounding(values, dtype):
    check(lambda m: m.tensor(values, dtype=getattr(m, dtype)))


# =========================================================================== as_tensor / asarray

@pytest.mark.parametrize("expr", [
    "m.as_tensor([1, 2])", "m.as_tensor([1, 2], dtype=m.float32)", "m.as_tensor(np.arange(3))",
    "m.as_tensor(np.arange(3), dtype=m.float32)", "m.as_tensor(np.arange(3)[::-1])",
    "m.as_tensor(np.array([1, 2], dtype='>i4'))", "m.as_tensor(np.array(['a']))",
    "m.as_tensor(np.arange(3), device='meta')", "m.as_tensor(m.arange(3), dtype=m.float32)",
    "m.as_tensor(3)", "m.as_tensor(3.5, dtype=m.int32)", "m.as_tensor()",
    "m.as_tensor([1], m.float64)", "m.as_tensor([1], m.float64, 'cpu')",
    "m.as_tensor([1], dtype='x')", "m.as_tensor([1], foo=1)",
    "m.as_tensor([1], requires_grad=True)", "m.as_tensor(data=[1])",
    "m.as_tensor(np.arange(6).reshape(2, 3).T)", "m.as_tensor(m.arange(6).view(2, 3).t())",
    "m.as_tensor([[1, 2], [3]])",
])
def test_as_tensor(expr):
    check(_recipe(expr))


def test_as_tensor_shares_memory_like_torch():
    for m in (strided, torch):
        a = np.arange(4.0)
        t = m.as_tensor(a)
        t.fill_(7.0)
        assert a.tolist() == [7.0] * 4
        a[0] = 1.0
        assert t.tolist()[0] == 1.0
        b = np.arange(4.0)
        c = m.as_tensor(b, dtype=m.float32)  # a conversion: a copy
        c.fill_(0.0)
        assert b.tolist() == [0.0, 1.0, 2.0, 3.0]
        src = m.arange(3)
        assert m.as_tensor(src) is src
        assert m.as_tensor(src, dtype=m.int64) is src
        assert m.as_tensor(src, device="cpu") is src
        assert m.as_tensor(src, dtype=m.float32) is not src
        lst = [1, 2]
        t2 = m.as_tensor(lst)
        t2.fill_(0)
        assert lst == [1, 2]


@pytest.mark.parametrize("expr", [
    "m.asarray([1, 2])", "m.asarray(np.arange(3), dtype=m.float32)",
    "m.asarray(m.arange(3), copy=False, dtype=m.float32)", "m.asarray([1.5], requires_grad=True)",
    "m.asarray(m.arange(3), copy=True)",
])
def test_asarray(expr):
    check(_recipe(expr))


def test_asarray_aliasing():
    for m in (strided, torch):
        src = m.arange(3)
        assert m.asarray(src) is src
        assert m.asarray(src, copy=True) is not src
        a = np.arange(3.0)
        m.asarray(a).fill_(5.0)
        assert a.tolist() == [5.0] * 3


# =========================================================================== from_numpy

NUMPY_DTYPES = [np.bool_, np.uint8, np.int8, np.int16, np.int32, np.int64, np.uint16, np.uint32,
                np.uint64, np.float16, np.float32, np.float64, np.complex64, np.complex128]


@pytest.mark.parametrize("np_dtype", NUMPY_DTYPES, ids=lambda d: np.dtype(d).name)
def test_from_numpy_dtypes(np_dtype):
    a = (np.arange(6) % 3).astype(np_dtype).reshape(2, 3)
    check(lambda m: m.from_numpy(a))


@pytest.mark.parametrize("expr", [
    "m.from_numpy([1])", "m.from_numpy(np.float64(1))", "m.from_numpy(np.array(['a']))",
    "m.from_numpy(np.zeros((2, 0, 3))[:, :, ::2])", "m.from_numpy(np.zeros((2, 3))[:, ::-1])",
    "m.from_numpy(np.zeros(4, dtype=np.float64).view(np.uint8)[1:])",
    "m.from_numpy(np.lib.stride_tricks.as_strided(np.zeros(4, dtype=np.float32), (2,), (2,)))",
    "m.from_numpy(np.array([1, 2], dtype='>i4'))", "m.from_numpy(np.zeros((3, 0)))",
    "m.from_numpy(np.zeros((3, 1))[:, 0:0])", "m.from_numpy(np.array(5.0))",
    "m.from_numpy()", "m.from_numpy(np.zeros(2), 1)", "m.from_numpy(a=np.zeros(2))",
    "m.from_numpy(np.arange(24.0).reshape(2, 3, 4).transpose(1, 2, 0))",
    "m.from_numpy(np.arange(24.0).reshape(4, 6)[1:, ::3])",
    "m.from_numpy(np.array([[1, 2], [3, 4]], order='F'))",
    "m.from_numpy(np.array([1, 2], dtype=np.longlong))",
    "m.from_numpy(np.array([1], dtype=np.datetime64(1, 'D').dtype))",
])
def test_from_numpy(expr):
    check(_recipe(expr))


def test_from_numpy_readonly_warns():
    a = np.arange(3.0)
    a.flags.writeable = False
    with pytest.warns(UserWarning, match="The given NumPy array is not writable"):
        t = strided.from_numpy(a)
    assert t.tolist() == [0.0, 1.0, 2.0]


def test_from_numpy_is_zero_copy_both_ways():
    a = np.zeros((3, 4), dtype=np.float32)
    t = strided.from_numpy(a)
    assert t.data_ptr() == a.__array_interface__["data"][0]
    a[1, 2] = 5.0
    assert t.tolist()[1][2] == 5.0
    t.fill_(2.0)
    assert (a == 2.0).all()
    b = t.numpy()
    assert b.__array_interface__["data"][0] == a.__array_interface__["data"][0]


def test_from_numpy_non_contiguous_is_zero_copy():
    base = np.arange(24.0).reshape(4, 6)
    view = base[1:, ::2]
    t = strided.from_numpy(view)
    tt = torch.from_numpy(view)
    assert_same(t, tt)
    assert t.data_ptr() == view.__array_interface__["data"][0]
    t.zero_()
    assert (base[1:, ::2] == 0).all() and base[0].tolist() == list(range(6))


def test_from_numpy_keeps_array_alive():
    t = strided.from_numpy(np.arange(1000.0))
    import gc
    gc.collect()
    assert t.tolist()[999] == 999.0


# =========================================================================== empty / strided

SIZE_FORMS = [
    "(2, 3)", "[2, 3]", "2, 3", "()", "0", "(0,)", "5", "(1, 0, 2)", "m.Size([2, 3])",
    "size=(2, 3)", "size=[4]", "(np.int64(2), 3)", "(m.tensor(2), 3)",
]


@pytest.mark.parametrize("fn", ["empty", "zeros", "ones"])
@pytest.mark.parametrize("sizes", SIZE_FORMS)
def test_size_forms(fn, sizes):
    values = fn != "empty"

    def recipe(m):
        args = eval(f"lambda m: m.{fn}({sizes})", {"np": np})
        return args(m)
    if values:
        check(recipe)
    else:
        rs, rt = recipe(strided), recipe(torch)
        assert_same(rs, rt, values=False)


@pytest.mark.parametrize("fn", ["empty", "zeros", "ones"])
@pytest.mark.parametrize("dtype", DTYPE_NAMES)
def test_dtype_keyword(fn, dtype):
    rs = getattr(strided, fn)(2, 3, dtype=sdt(dtype))
    rt = getattr(torch, fn)(2, 3, dtype=tdt(dtype))
    assert_same(rs, rt, values=fn != "empty")


@pytest.mark.parametrize("fn", ["empty", "zeros", "ones"])
@pytest.mark.parametrize("default", FLOAT_NAMES)
def test_default_dtype(fn, default, default_dtype):
    default_dtype(default)
    assert_same(getattr(strided, fn)(3), getattr(torch, fn)(3), values=fn != "empty")


@pytest.mark.parametrize("expr", [
    "m.zeros(-1)", "m.zeros(2, -3)", "m.ones((2, -1))", "m.empty(-5)",
    "m.zeros(2, dtype=m.float64, device='meta')", "m.zeros(2, requires_grad=True)",
    "m.zeros(2, dtype=m.int64, requires_grad=True)", "m.ones(2, layout=m.strided)",
    "m.zeros((2, 3), device=m.device('meta'))", "m.empty((2, 3), device='meta')",
    "m.zeros(2, pin_memory=False)", "m.empty(2, 3, memory_format=m.contiguous_format)",
])
def test_factory_keywords(expr):
    recipe = _recipe(expr)
    if expr.startswith("m.empty") and "-" not in expr:
        assert_same(recipe(strided), recipe(torch), values=False)
    else:
        check(recipe)


@pytest.mark.parametrize("size,stride", [
    ((2, 3), (3, 1)), ((2, 3), (1, 2)), ((2, 3), (0, 1)), ((2, 3), (10, 2)), ((), ()),
    ((0, 3), (3, 1)), ((4,), (0,)), ((2, 3, 4), (1, 8, 2)), ((3,), (5,)),
])
@pytest.mark.parametrize("device", ["cpu", "meta"])
def test_empty_strided(size, stride, device):
    rs = strided.empty_strided(size, stride, device=device)
    rt = torch.empty_strided(size, stride, device=device)
    assert_same(rs, rt, values=False)
    assert rs.untyped_storage().nbytes() == rt.untyped_storage().nbytes()


@pytest.mark.parametrize("expr", [
    "m.empty_strided((2, 3), (1,))", "m.empty_strided((2, -3), (1, 1))",
    "m.empty_strided((2, 3), (1, -1))", "m.empty_strided((2,), (1,), dtype=m.int8).dtype",
    "m.empty_strided(2, 1)",
])
def test_empty_strided_errors(expr):
    check(_recipe(expr))


# =========================================================================== full

FILL_VALUES = ["True", "False", "3", "-2", "2.5", "float('nan')", "1+2j", "np.float32(1.5)",
               "np.int8(3)", "m.tensor(4)", "m.tensor(2.5)", "2**62"]


@pytest.mark.parametrize("value", FILL_VALUES)
def test_full_infers_dtype(value):
    check(_recipe(f"m.full((2, 3), {value})"))


@pytest.mark.parametrize("value", FILL_VALUES)
@pytest.mark.parametrize("default", ["float64", "bfloat16"])
def test_full_infers_dtype_default(value, default, default_dtype):
    default_dtype(default)
    check(_recipe(f"m.full((2,), {value})"))


@pytest.mark.parametrize("dtype", CORE_DTYPE_NAMES)
@pytest.mark.parametrize("value", ["True", "3", "-1", "2.5", "300", "1e10", "1+2j", "1+0j",
                                   "float('inf')", "float('nan')", "-2.5"])
def test_full_with_dtype(dtype, value):
    check(_recipe(f"m.full((3,), {value}, dtype=m.{dtype})"))


@pytest.mark.parametrize("expr", [
    "m.full((2,), 'x')", "m.full((2,))", "m.full(2, 3)", "m.full([2, 3], 1.5)", "m.full((), 7)",
    "m.full((2,), m.tensor([1, 2]))", "m.full((2,), None)", "m.full(size=(2,), fill_value=3)",
    "m.full((2,), 1.5, device='meta')", "m.full((2, 2), True, dtype=m.float32)",
])
def test_full_forms(expr):
    check(_recipe(expr))


# =========================================================================== *_like

@st.composite
def layouts(draw, max_dims=4):
    """(size, stride, offset) of a view into ``arange(n)``: permuted, sliced (steps and
    offsets) and expanded (zero strides) dims."""
    ndim = draw(st.integers(0, max_dims))
    sizes = draw(st.lists(st.integers(0, 4), min_size=ndim, max_size=ndim))
    perm = draw(st.permutations(range(ndim)))
    steps = draw(st.lists(st.integers(1, 3), min_size=ndim, max_size=ndim))
    expand = draw(st.lists(st.booleans(), min_size=ndim, max_size=ndim))
    strides = [0] * ndim
    acc = 1
    for d in reversed(perm):
        strides[d] = acc * steps[d]
        acc *= max(sizes[d], 1) * steps[d]
    strides = [0 if e else s for s, e in zip(strides, expand)]
    offset = draw(st.integers(0, 3))
    return tuple(sizes), tuple(strides), offset


def _view(m, layout, dtype="float32"):
    size, stride, offset = layout
    n = offset + 1 + sum((s - 1) * st for s, st in zip(size, stride) if s > 0)
    return m.arange(n, dtype=getattr(m, dtype)).as_strided(size, stride, offset)


@given(layouts(), st.sampled_from(["empty_like", "zeros_like", "ones_like", "clone"]))
@hyp(120)
def test_like_preserves_layout(layout, fn):
    if fn == "empty_like":
        assert_same(strided.empty_like(_view(strided, layout)),
                    torch.empty_like(_view(torch, layout)), values=False)
    else:
        check(lambda m: getattr(m, fn)(_view(m, layout)))


@given(layouts(), st.sampled_from(CORE_DTYPE_NAMES))
@hyp(60)
def test_full_like_with_dtype(layout, dtype):
    check(lambda m: m.full_like(_view(m, layout), 3, dtype=getattr(m, dtype)))


@pytest.mark.parametrize("fn", ["zeros_like", "ones_like", "empty_like"])
@pytest.mark.parametrize("kwargs", [
    "", "dtype=m.float64", "dtype=m.int32", "memory_format=m.contiguous_format",
    "memory_format=m.preserve_format", "device='meta'", "requires_grad=True",
    "dtype=m.int32, requires_grad=True", "layout=m.strided",
])
def test_like_keywords(fn, kwargs):
    recipe = _recipe(f"m.{fn}(m.arange(6.).view(2, 3).t(), {kwargs})")
    if fn == "empty_like" and "int32, requires" not in kwargs:
        assert_same(recipe(strided), recipe(torch), values=False)
    else:
        check(recipe)


@pytest.mark.parametrize("expr", [
    "m.full_like(m.ones(2, 3), 7)", "m.full_like(m.ones(2, 3, dtype=m.int32), 2.7)",
    "m.full_like(m.ones(2, dtype=m.uint8), 300)", "m.full_like(m.ones(2), 1+1j)",
    "m.full_like(m.ones(2), 'x')", "m.zeros_like([1, 2])", "m.ones_like(m.ones(2), m.float64)",
    "m.full_like(m.ones(2, device='meta'), 3)",
])
def test_like_forms(expr):
    check(_recipe(expr))


# =========================================================================== new_*

@pytest.mark.parametrize("expr", [
    "m.ones(2, dtype=m.int32).new_zeros(3)", "m.ones(2, dtype=m.int32).new_zeros((2, 3))",
    "m.ones(2, dtype=m.int32).new_zeros(2, 3)", "m.ones(2, dtype=m.int32).new_ones([3])",
    "m.ones(2, dtype=m.int32).new_ones(3, dtype=m.float64)",
    "m.ones(2, dtype=m.int8).new_full((2,), 3)", "m.ones(2, dtype=m.int8).new_full((2,), 3.5)",
    "m.ones(2, dtype=m.uint8).new_full((2,), 300)", "m.ones(2).new_full((2,), 1+1j)",
    "m.ones(2, device='meta').new_zeros(3)", "m.ones(2).new_ones(3, device='meta')",
    "m.ones(2).new_zeros(3, requires_grad=True)", "m.ones(2).new_zeros(size=(1, 2))",
    "m.ones(2).new_zeros()", "m.ones(2).new_full(3)", "m.ones(2).new_ones(-1)",
    "m.ones(2, dtype=m.float64).new_tensor([1, 2])",
    "m.ones(2, dtype=m.float64).new_tensor([1, 2], dtype=m.int8)",
    "m.ones(2, dtype=m.int32).new_tensor(2.5)",
])
def test_new_methods(expr):
    check(_recipe(expr))


@pytest.mark.parametrize("expr", [
    "m.ones(2, dtype=m.int32).new_empty(3)", "m.ones(2, dtype=m.int32).new_empty((2, 3))",
    "m.ones(2, dtype=m.int32).new_empty(2, 3, dtype=m.float16)",
    "m.ones(2, device='meta').new_empty(3)",
    "m.ones(2, dtype=m.int32).new_empty_strided((2, 3), (1, 2))",
    "m.ones(2).new_empty_strided((2, 3), (0, 1), dtype=m.float64)",
])
def test_new_empty(expr):
    recipe = _recipe(expr)
    assert_same(recipe(strided), recipe(torch), values=False)


# =========================================================================== arange

ARANGE_CASES = [
    "m.arange(5)", "m.arange(0)", "m.arange(5.0)", "m.arange(1, 4)", "m.arange(1, 4, 0.5)",
    "m.arange(0, 1, 0.1)", "m.arange(10, 0, -3)", "m.arange(10, 0, -3.5)", "m.arange(-5, 5, 2)",
    "m.arange(0, -1, -0.25)", "m.arange(True, 3)", "m.arange(1, 2.5)", "m.arange(3, 3)",
    "m.arange(5, dtype=m.float64)", "m.arange(5, dtype=m.int8)", "m.arange(0.5, 5, dtype=m.int32)",
    "m.arange(0, 5, 1.5, dtype=m.int64)", "m.arange(5, dtype=m.bfloat16)",
    "m.arange(5, dtype=m.float16)", "m.arange(5, dtype=m.complex64)", "m.arange(3, dtype=m.bool)",
    "m.arange(5, device='meta')", "m.arange(start=1, end=5)", "m.arange(end=5)",
    "m.arange(1, 5, step=2)", "m.arange(np.int64(5))", "m.arange(np.float32(2.5))",
    "m.arange(m.tensor(5))", "m.arange(m.tensor(2.5))", "m.arange(0, 10, m.tensor(3))",
    "m.arange(5, requires_grad=True)", "m.arange(5.0, requires_grad=True)",
    "m.arange(2**40, 2**40 + 3)", "m.arange(-3)", "m.arange(1, 0)", "m.arange(0, 1, -1)",
    "m.arange(0, 10, 0)", "m.arange(0, float('inf'))", "m.arange(float('nan'))",
    "m.arange(0, 5, 1j)", "m.arange(1j)", "m.arange('a')", "m.arange()",
    "m.arange(1, 2, 3, 4)", "m.arange(5, dtype=m.int32, foo=1)",
    "m.arange(0.0, 1.0, 1e-3).shape", "m.arange(0, 1, 1/3)", "m.arange(-1.0, 1.0, 0.1)",
    "m.arange(0, 0.3, 0.1)", "m.arange(1, 1.3, 0.1)", "m.arange(1e6, 1e6 + 3)",
]


@pytest.mark.parametrize("expr", ARANGE_CASES)
def test_arange(expr):
    check(_recipe(expr))


@given(st.integers(-50, 50), st.integers(-50, 50), st.integers(-7, 7).filter(bool))
@hyp(80)
def test_arange_int_hypothesis(start, end, step):
    check(lambda m: m.arange(start, end, step))


_small_float = st.floats(-20, 20, allow_nan=False).map(lambda x: round(x, 3))


@given(_small_float, _small_float, st.floats(0.01, 5).map(lambda x: round(x, 3)),
       st.booleans(), st.sampled_from(["float32", "float64", "float16", "bfloat16", "int64",
                                       "int32", "uint8", None]))
@hyp(150)
def test_arange_float_hypothesis(start, end, step, negative, dtype):
    if negative:
        step = -step
    assume((end - start) / step < 3000)

    def recipe(m):
        kw = {} if dtype is None else {"dtype": getattr(m, dtype)}
        return m.arange(start, end, step, **kw)
    check(recipe)


@given(st.floats(-1e3, 1e3, allow_nan=False), st.floats(-1e3, 1e3, allow_nan=False),
       st.integers(0, 400), st.sampled_from(["float32", "float64", "float16", "bfloat16",
                                             "int64", "int16", "uint8", "complex64", None]))
@hyp(150)
def test_linspace_hypothesis(start, end, steps, dtype):
    def recipe(m):
        kw = {} if dtype is None else {"dtype": getattr(m, dtype)}
        return m.linspace(start, end, steps, **kw)
    check(recipe)


@given(st.floats(-5, 5, allow_nan=False), st.floats(-5, 5, allow_nan=False),
       st.integers(0, 50), st.sampled_from([10.0, 2.0, 0.5, 3.7]),
       st.sampled_from(["float32", "float64", "int64", "float16"]))
@hyp(80)
def test_logspace_hypothesis(start, end, steps, base, dtype):
    check(lambda m: m.logspace(start, end, steps, base, dtype=getattr(m, dtype)))


@pytest.mark.parametrize("expr", [
    "m.arange(5, out=m.empty(0, dtype=m.int32))", "m.arange(1, 4, 0.5, out=m.empty(0))",
    "m.arange(5, out=m.empty(5))", "m.arange(3, out=m.empty(7, dtype=m.int64))",
    "m.arange(5, out=m.empty(0), dtype=m.int64)", "m.arange(5, out=m.empty(0), dtype=m.float32)",
    "m.arange(5, out=m.empty(0, device='meta'))",
])
def test_arange_out(expr):
    check(_recipe(expr))


# =========================================================================== linspace / logspace

@pytest.mark.parametrize("steps", [0, 1, 2, 3, 4, 5, 10, 11, 100])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32", "uint8", "float16",
                                   "bfloat16", "complex64", None])
@pytest.mark.parametrize("start,end", [(0, 1), (-5, 5), (3, -2.5), (0.1, 0.7), (1, 1)])
def test_linspace(start, end, steps, dtype):
    def recipe(m):
        kw = {} if dtype is None else {"dtype": getattr(m, dtype)}
        return m.linspace(start, end, steps, **kw)
    check(recipe)


@pytest.mark.parametrize("steps", [0, 1, 2, 5, 10, 11])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", None])
@pytest.mark.parametrize("start,end,base", [(0, 3, 10.0), (-2, 2, 2.0), (0.5, 1.5, 10.0),
                                            (3, 0, 3.0), (0, 1, 0.5)])
def test_logspace(start, end, base, steps, dtype):
    def recipe(m):
        kw = {} if dtype is None else {"dtype": getattr(m, dtype)}
        return m.logspace(start, end, steps, base, **kw)
    check(recipe, exact=dtype in ("int64",))


@pytest.mark.parametrize("expr", [
    "m.linspace(0, 1, -1)", "m.linspace(0, 1)", "m.linspace(0, 1, 2.5)", "m.linspace(0, 1j, 3)",
    "m.linspace(1j, 2j, 4)", "m.linspace(0, 1, 5, device='meta')", "m.linspace(0, 1, steps=5)",
    "m.linspace(m.tensor(0.), m.tensor(1.), 3)", "m.linspace(0, 1, 3, out=m.empty(0))",
    "m.linspace(0, 1, 3, out=m.empty(0, dtype=m.float64))",
    "m.linspace(0, 10, 4, out=m.empty(0, dtype=m.int64))",
    "m.linspace(0, 1, 3, requires_grad=True)", "m.linspace('a', 1, 3)",
    "m.logspace(0, 1, -1)", "m.logspace(0, 2, 3, base=2)", "m.logspace(0, 2, 3, 2, device='meta')",
    "m.logspace(0, 2, 3, out=m.empty(0))", "m.logspace(0, 2, 3, dtype=m.int32)",
    "m.linspace(m.tensor(0.5), 2, 4)", "m.linspace(1, m.tensor(3, dtype=m.int8), 3)",
    "m.linspace(m.tensor(1j), 2, 3)", "m.linspace(m.tensor([0.]), m.tensor(1.), 3)",
    "m.linspace(m.tensor([0.]), 1, 3)", "m.linspace(0, m.tensor([[1.]]), 3)",
    "m.linspace(m.tensor(0.), 1, 3, out=m.empty(0, dtype=m.float64))",
    "m.logspace(m.tensor(0.), m.tensor(2.), 3, 2)", "m.logspace(0, m.tensor([2.]), 3)",
    "m.logspace(m.tensor(1.), 2, 3, out=m.empty(0))",
])
def test_linspace_logspace_forms(expr):
    check(_recipe(expr))


# =========================================================================== eye / scalar_tensor

@pytest.mark.parametrize("expr", [
    "m.eye(0)", "m.eye(1)", "m.eye(3)", "m.eye(2, 4)", "m.eye(4, 2)", "m.eye(3, 0)",
    "m.eye(3, dtype=m.int32)", "m.eye(3, dtype=m.bool)", "m.eye(2, 3, dtype=m.complex64)",
    "m.eye(3, device='meta')", "m.eye(-1)", "m.eye(2, -1)", "m.eye(n=2, m=3)",
    "m.eye(3, out=m.empty(0))", "m.eye(2, 3, out=m.empty(0, dtype=m.int64))",
    "m.eye(2, out=m.empty(2, 2).t())", "m.eye(2, 3, out=m.empty(3, 2).t())",
    "m.eye(3, out=m.empty(2, 2))", "m.eye(2.5)", "m.eye(3, requires_grad=True)",
])
def test_eye(expr):
    check(_recipe(expr))


@pytest.mark.parametrize("expr", [
    "m.scalar_tensor(3)", "m.scalar_tensor(2.5)", "m.scalar_tensor(True)", "m.scalar_tensor(1j)",
    "m.scalar_tensor(3, dtype=m.int8)", "m.scalar_tensor(300, dtype=m.uint8)",
    "m.scalar_tensor(2.5, device='meta')", "m.scalar_tensor('a')", "m.scalar_tensor()",
    "m.scalar_tensor(m.tensor(2))", "m.scalar_tensor(np.float64(1.5))",
])
def test_scalar_tensor(expr):
    check(_recipe(expr))


@pytest.mark.parametrize("default", ["float64", "float16"])
def test_scalar_tensor_default(default, default_dtype):
    default_dtype(default)
    check(lambda m: m.scalar_tensor(3))
    check(lambda m: m.scalar_tensor(2.5))


# =========================================================================== out=

@pytest.mark.parametrize("expr", [
    "m.zeros(2, 3, out=m.empty(0))", "m.zeros(2, 3, out=m.empty(6))",
    "m.zeros(2, 3, out=m.empty(2, 3, dtype=m.int32))", "m.ones(2, 3, out=m.empty(3, 2).t())",
    "m.ones(4, out=m.empty(2, 2).t())", "m.full((2,), 7, out=m.empty(0, dtype=m.int8))",
    "m.full((2,), 7.5, out=m.empty(0, dtype=m.int8))",
    "m.zeros(2, out=m.empty(0), dtype=m.float64)", "m.zeros(2, out=m.empty(0), dtype=m.float32)",
    "m.zeros(2, out=m.empty(0), device='meta')", "m.zeros(2, out=m.empty(0), layout=m.strided)",
    "m.empty(2, 3, out=m.empty(0)).shape", "m.zeros(2, out=m.empty(0, device='meta'))",
    "m.ones(2, out=m.empty(0), requires_grad=True)", "m.zeros(2, out=[1])",
    "m.full((2,), 300, out=m.empty(0, dtype=m.uint8))",
])
def test_out(expr):
    check(_recipe(expr))


def test_out_returns_out_and_resizes():
    for m in (strided, torch):
        out = m.empty(0)
        res = m.zeros(2, 3, out=out)
        assert res is out and tuple(out.shape) == (2, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        strided.ones(5, out=strided.empty(0))  # an empty out is resized silently


# =========================================================================== meta device

META_FACTORIES = [
    "m.empty(2, 3, device='meta')", "m.zeros(2, 3, device='meta')", "m.ones(4, device='meta')",
    "m.full((2, 2), 1.5, device='meta')", "m.full((2,), 3, device='meta')",
    "m.empty_strided((2, 3), (1, 2), device='meta')", "m.arange(5, device='meta')",
    "m.arange(0, 1, 0.25, device='meta')", "m.linspace(0, 1, 5, device='meta')",
    "m.logspace(0, 1, 5, device='meta')", "m.eye(3, device='meta')",
    "m.eye(2, 3, device='meta', dtype=m.int8)", "m.scalar_tensor(2, device='meta')",
    "m.tensor([[1, 2]], device='meta')", "m.as_tensor([1.5], device='meta')",
    "m.zeros_like(m.ones(2, 3).t(), device='meta')",
    "m.empty_like(m.empty(2, 3, device='meta').t())",
    "m.ones_like(m.empty(2, 3, device='meta'))", "m.full_like(m.empty(2, device='meta'), 2)",
    "m.empty(2, device='meta').new_zeros(3)", "m.empty(2, device='meta').new_empty(3)",
    "m.empty(2, device='meta').new_full((3,), 1)", "m.empty(2, device='meta').new_ones(1)",
    "m.empty(2, device='meta').clone()", "m.empty(2, 3, device='meta').t().clone()",
    "m.empty(2, 3, device='meta').t().contiguous()",
    "m.empty(2, 3, device='meta', dtype=m.int16)",
]


@pytest.mark.parametrize("expr", META_FACTORIES)
def test_meta(expr):
    recipe = _recipe(expr)
    rs, rt = recipe(strided), recipe(torch)
    assert_same(rs, rt)
    assert rs.is_meta and rs.device.type == "meta"


def test_meta_has_no_data():
    t = strided.zeros(3, device="meta")
    check(lambda m: m.zeros(3, device="meta").tolist())
    check(lambda m: m.zeros(3, device="meta").item())
    check(lambda m: m.zeros((), device="meta").item())
    check(lambda m: m.zeros(3, device="meta").numpy())
    assert t.untyped_storage().data_ptr() == 0
