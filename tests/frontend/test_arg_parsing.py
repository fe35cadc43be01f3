"""Argument parsing against torch: accepted forms and torch's TypeError texts for bad calls."""

from __future__ import annotations

import numpy as np
import pytest
import torch  # noqa: F401  (the oracle, used through check)
from conftest import check


def _recipe(expr: str):
    return eval(f"lambda m: {expr}", {"np": np})


# Calls whose whole message must equal torch's.
EXACT = [
    "m.zeros('a')", "m.zeros(2, dtype=3)", "m.ones(2, foo=1)", "m.full((2,), 'x')",
    "m.zeros()", "m.zeros(2, 'a')", "m.zeros((2, 'a'))", "m.zeros([2, 2.5])", "m.zeros(2.5)",
    "m.zeros(2, 3, dtype=m.float32, device=1.5)", "m.zeros(2, layout=1)",
    "m.zeros(2, requires_grad=1)", "m.zeros(2, pin_memory=1)", "m.zeros(None)",
    "m.zeros((2, None))", "m.zeros(2, out=1)", "m.empty(2, memory_format=1)",
    "m.empty_like(1)", "m.empty_like(m.ones(1), 2)", "m.full(2)", "m.full((2,), 1, 2)",
    "m.full('a', 1)", "m.eye('a')", "m.scalar_tensor([1])", "m.ones(2).new_zeros('a')",
    "m.ones(2).new_full((2,))", "m.ones(2).new_ones(2, dtype='a')",
    "m.empty_strided((2,), 'a')", "m.empty_strided()", "m.ones(2).clone(1)",
    "m.ones(2).clone(memory_format=1)", "m.ones(2).contiguous(1)", "m.ones(2).t(1)",
    "m.ones(2).copy_()", "m.zeros(2, size=(2,))", "m.zeros(m.tensor([2, 3]))",
    "m.zeros(m.tensor(2.5))", "m.zeros(True)", "m.zeros((True, 2))",
    "m.zeros(2, device=0)", "m.zeros(2, device='foo')", "m.zeros(2, 3).view(4)",
    "m.zeros(2, 3).view(-1, -1)", "m.zeros(2, 3).transpose(0)", "m.zeros(2, 3).transpose(0, 5)",
    "m.zeros(2, 3, 4).t()", "m.zeros(2, 3).as_strided((2,), (1,), -1)",
    "m.zeros(2, 3).as_strided((10,), (1,))", "m.ones(2).fill_()", "m.ones(2).fill_(1, 2)",
    "m.eye()", "m.eye(2, 'a')", "m.eye(2, 3, 4)",
    # torch's quirks: keyword order of a C++ unordered_map, a hidden deprecated copy_
    # signature, METH_NOARGS methods, int list elements checked only while unpacking
    "m.eye(n=2, m=3, k=4)", "m.ones(2).fill_(a=1, b=2, c=3)",
    "m.ones(2).copy_(1, 2, 3)", "m.ones(2).copy_(m.ones(2), non_blocking=True, foo=1)",
    "m.ones(2).copy_(m.ones(2), other=m.ones(2))", "m.ones(2).t(foo=1)", "m.ones(2).zero_(1)",
    "m.zeros(2, 3, out=m.empty(0), foo=1)", "m.zeros(2, (3,))", "m.zeros(size=(2, 'a'))",
    "m.zeros(True, 2)", "m.zeros(2, 3).view(2, True)", "m.ones(2).fill_(value=(1,))",
    "m.ones(2).fill_(valu=[1])", "m.ones(2).contiguous(memory_format=None)",
]


@pytest.mark.parametrize("expr", EXACT)
def test_error_text(expr):
    check(_recipe(expr))


# Multi-overload messages compared by their first line only, "<fn>() received an invalid
# combination of arguments - got (...), but expected one of:" (torch lists a view(dtype)
# overload strided does not have; test_factories.py and test_tensor_api.py compare the
# linspace/logspace and to() listings in full).
FIRST_LINE = [
    "m.linspace()", "m.linspace(0, 1, 'a')", "m.logspace(0, 1, 3, 'a')", "m.ones(2).view('a')",
    "m.zeros(2, 3).view(2.5)", "m.ones(2).to(foo=1)", "m.arange()",
]


@pytest.mark.parametrize("expr", FIRST_LINE)
def test_error_first_line(expr):
    check(_recipe(expr), first_line=True)


# Calls that must be accepted, and give torch's result.
ACCEPTED = [
    "m.zeros(size=(2,), dtype=m.float64)", "m.zeros(m.tensor(2))", "m.zeros(np.int64(3))",
    "m.zeros((np.int32(2), 3))", "m.zeros([])", "m.zeros(())", "m.zeros(2, dtype=float)",
    "m.zeros(2, dtype=int)", "m.zeros(2, dtype=bool)", "m.zeros(2, dtype=None)",
    "m.zeros(2, device=None)", "m.zeros(2, device='cpu')", "m.zeros(2, device=m.device('cpu'))",
    "m.zeros(2, 3).view(-1)", "m.zeros(2, 3).view((3, 2))", "m.zeros(2, 3).view([6])",
    "m.zeros(2, 3).view(m.Size([3, 2]))", "m.zeros(2, 3).transpose(-1, 0)",
    "m.zeros(2, 3).transpose(dim0=0, dim1=1)", "m.zeros(2, 3).as_strided(size=(3,), stride=(2,))",
    "m.full(size=[2], fill_value=1.5)", "m.full([2], fill_value=m.tensor(3))",
    "m.arange(end=3)", "m.arange(1, end=3)", "m.arange(start=1, end=5, step=2)",
    "m.eye(n=2)", "m.eye(2, m=3)", "m.ones(2).fill_(value=3)", "m.ones(2).copy_(src=m.zeros(2))",
    "m.empty_strided(size=(2,), stride=(1,)).shape", "m.zeros(2).new_zeros(size=3)",
    "m.zeros(2).new_full(size=(2,), fill_value=1)", "m.ones(3).clone(memory_format=None)",
    "m.linspace(start=0, end=1, steps=3)", "m.logspace(0, 1, steps=3, base=2)",
    "m.scalar_tensor(s=2)", "m.zeros(2, 3).size(dim=1)", "m.zeros(2, 3).stride(dim=-1)",
    "m.zeros(2, True)", "m.zeros(2, requires_grad=None)", "m.arange(4).to(1.5)",
    "m.result_type(m.ones(2), other=1)", "m.result_type(scalar1=1, scalar2=2.5)",
]


@pytest.mark.parametrize("expr", ACCEPTED)
def test_accepted_forms(expr):
    check(_recipe(expr))
