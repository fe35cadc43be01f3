"""dtypes against torch: attributes, promotion, casting, result_type, default dtype, limits."""

from __future__ import annotations

import copy
import itertools
import pickle

import pytest
import torch
from conftest import (
    DTYPE_NAMES,
    FLOAT_NAMES,
    assert_same_error,
    check,
    dtype_name,
    hyp,
    sdt,
    tdt,
)
from hypothesis import given
from hypothesis import strategies as st

import strided

ALL_PAIRS = list(itertools.product(DTYPE_NAMES, DTYPE_NAMES))


# --------------------------------------------------------------------------- the objects

@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_attributes(name):
    s, t = sdt(name), tdt(name)
    assert isinstance(s, strided.dtype)
    for attr in ("itemsize", "is_floating_point", "is_complex", "is_signed", "abbr"):
        assert getattr(s, attr) == getattr(t, attr), attr
    assert repr(s) == repr(t)
    assert str(s) == str(t)


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_to_real(name):
    check(lambda m: getattr(m, name).to_real())


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_to_complex(name):
    check(lambda m: getattr(m, name).to_complex())


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_singletons(name):
    s = sdt(name)
    assert pickle.loads(pickle.dumps(s)) is s
    assert copy.copy(s) is s and copy.deepcopy(s) is s
    assert s == sdt(name) and hash(s) == hash(sdt(name))


@pytest.mark.parametrize("alias,name", [
    ("float", "float32"), ("double", "float64"), ("half", "float16"), ("long", "int64"),
    ("int", "int32"), ("short", "int16"), ("cfloat", "complex64"), ("cdouble", "complex128"),
    ("bool", "bool"),
])
def test_aliases(alias, name):
    assert getattr(torch, alias) is getattr(torch, name)
    assert getattr(strided, alias) is getattr(strided, name)


def test_distinct():
    assert len({id(sdt(n)) for n in DTYPE_NAMES}) == len(DTYPE_NAMES)
    assert strided.float32 != strided.float64


# --------------------------------------------------------------------------- promote_types

@pytest.mark.parametrize("a,b", ALL_PAIRS)
def test_promote_types_all_pairs(a, b):
    check(lambda m: m.promote_types(getattr(m, a), getattr(m, b)))


@pytest.mark.parametrize("args", [
    (lambda m: (m.float32, 1)),
    (lambda m: ("float32", m.float32)),
    (lambda m: (m.float32,)),
    (lambda m: (None, m.float32)),
])
def test_promote_types_bad_arguments(args):
    check(lambda m: m.promote_types(*args(m)))


@given(st.lists(st.sampled_from(DTYPE_NAMES), min_size=3, max_size=3))
@hyp(60)
def test_promote_types_is_symmetric_and_matches(names):
    a, b, c = names
    for m in (strided, torch):
        try:
            ab = m.promote_types(getattr(m, a), getattr(m, b))
            ba = m.promote_types(getattr(m, b), getattr(m, a))
        except RuntimeError:
            continue
        assert ab is ba
    # associativity is *not* a property of torch's lattice; compare the fold instead
    check(lambda m: m.promote_types(
        m.promote_types(getattr(m, a), getattr(m, b)), getattr(m, c)))


# --------------------------------------------------------------------------- can_cast

@pytest.mark.parametrize("a,b", ALL_PAIRS)
def test_can_cast_all_pairs(a, b):
    check(lambda m: m.can_cast(getattr(m, a), getattr(m, b)))


def test_can_cast_bad_arguments():
    check(lambda m: m.can_cast(m.float32, "a"))
    check(lambda m: m.can_cast(1, m.float32))


# --------------------------------------------------------------------------- result_type

SCALARS = {"bool": True, "int": 3, "float": 2.5, "complex": 1 + 2j}


def _operand(m, kind, name, scalar):
    if kind == "tensor":
        return m.ones(2, dtype=getattr(m, name))
    if kind == "zerodim":
        return m.ones((), dtype=getattr(m, name))
    return SCALARS[scalar]


operand = st.tuples(st.sampled_from(["tensor", "zerodim", "scalar"]),
                    st.sampled_from(DTYPE_NAMES), st.sampled_from(list(SCALARS)))


def _check_result_type(recipe):
    check(recipe)


@given(operand, operand)
@hyp(150)
def test_result_type(a, b):
    _check_result_type(lambda m: m.result_type(_operand(m, *a), _operand(m, *b)))


@pytest.mark.parametrize("a,b", ALL_PAIRS)
def test_result_type_tensor_pairs(a, b):
    check(lambda m: m.result_type(m.ones(2, dtype=getattr(m, a)), m.ones(2, dtype=getattr(m, b))))


@pytest.mark.parametrize("a,b", ALL_PAIRS)
def test_result_type_tensor_zerodim(a, b):
    _check_result_type(lambda m: m.result_type(m.ones(2, dtype=getattr(m, a)),
                                               m.ones((), dtype=getattr(m, b))))


@pytest.mark.parametrize("name", FLOAT_NAMES + ["float64"])
def test_result_type_follows_default_dtype(name, default_dtype):
    default_dtype(name)
    check(lambda m: m.result_type(m.ones(2, dtype=m.int32), 2.5))
    check(lambda m: m.result_type(3, 2.5))
    check(lambda m: m.result_type(m.ones(2, dtype=m.int32), 1j))


def test_result_type_bad_arguments():
    check(lambda m: m.result_type(m.ones(2), "a"))
    check(lambda m: m.result_type("a", "b"))


# --------------------------------------------------------------------------- default dtype

@pytest.mark.parametrize("name", ["float32", "float64", "float16", "bfloat16"])
def test_set_default_dtype(name, default_dtype):
    default_dtype(name)
    assert dtype_name(strided.get_default_dtype()) == dtype_name(torch.get_default_dtype())
    check(lambda m: m.get_default_dtype())
    check(lambda m: m.tensor([1.5]))
    check(lambda m: m.ones(2))


@pytest.mark.parametrize("name", ["int32", "bool", "complex64", "complex128", "uint8"])
def test_set_default_dtype_refuses(name, default_dtype):
    check(lambda m: m.set_default_dtype(getattr(m, name)))
    assert strided.get_default_dtype() is strided.float32


@pytest.mark.parametrize("bad", ["float32", 1, None])
def test_set_default_dtype_bad_argument(bad, default_dtype):
    check(lambda m: m.set_default_dtype(bad))


# --------------------------------------------------------------------------- iinfo / finfo

@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_iinfo(name):
    def info(m):
        i = m.iinfo(getattr(m, name))
        return (i.bits, i.min, i.max, i.dtype, repr(i), str(i))
    check(info)


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_finfo(name):
    def info(m):
        i = m.finfo(getattr(m, name))
        return (i.bits, i.min, i.max, i.eps, i.tiny, i.smallest_normal, i.resolution, i.dtype,
                repr(i), str(i))
    check(info)


@pytest.mark.parametrize("name", FLOAT_NAMES)
def test_finfo_default(name, default_dtype):
    default_dtype(name)
    check(lambda m: repr(m.finfo()))


@pytest.mark.parametrize("bad", ["float32", None, 1])
def test_info_bad_arguments(bad):
    check(lambda m: m.finfo(bad))
    check(lambda m: m.iinfo(bad))


def test_info_types_and_equality():
    for name in ("int32", "uint8"):
        assert isinstance(strided.iinfo(sdt(name)).max, int)
    f = strided.finfo(strided.float32)
    assert isinstance(f.eps, float) and isinstance(f.dtype, str)
    assert_same_error(lambda: strided.iinfo(strided.float32),
                      lambda: torch.iinfo(torch.float32))


@pytest.mark.parametrize("recipe", [
    lambda m: m.promote_types(),
    lambda m: m.promote_types(m.float32, m.float32, m.float32),
    lambda m: m.promote_types(type1=m.float32, type2=m.int8),
    lambda m: m.promote_types(m.float32, type3=1),
    lambda m: m.promote_types(m.float32, type2=m.int8, type3=1),
    lambda m: m.can_cast(m.float32),
    lambda m: m.can_cast(from_=m.float32, to=m.int8),
    lambda m: m.can_cast(m.float32, m.int32, 1),
    lambda m: m.iinfo(),
    lambda m: repr(m.iinfo(type=m.int32)),
    lambda m: m.finfo(type=m.int32),
    lambda m: repr(m.finfo(type=m.float64)),
    lambda m: m.finfo(m.float32, 1),
    lambda m: m.finfo(foo=m.float32),
    lambda m: m.set_default_dtype(),
    lambda m: m.get_default_dtype(1),
], ids=lambda r: "")
def test_dtype_function_argument_errors(recipe, default_dtype):
    check(recipe)
