"""Argument parsing against torch: accepted forms and torch's TypeError texts for bad calls."""

from __future__ import annotations

import numpy as np
import pytest
import torch  # noqa: F401  (the oracle, used through check)
from conftest import check

PLURAL = ("frontend/arg_parser.py PySig.diagnose: torch writes 'missing 1 required positional "
          "arguments' and 'missing 2 required positional argument' (plural and singular "
          "swapped); strided uses English plurals")
SIGS = ("arg_parser/codegen: torch's overload listing shows 'Tensor out = None' first among the "
        "keywords and 'bool pin_memory = False'")
LINSPACE = ("native_functions.yaml: linspace/logspace lack torch's Tensor start/end overloads, so "
            "strided reports a single-signature error where torch lists all overloads")
BOOL_IN_LIST = ("arg_parser.to_intlist: torch reports a bool inside an int list as \"must be "
                "tuple of ints, but found element of type bool at pos 0\"")
COPY_NO_ARGS = ("arg_parser: for a call matching no overload of a single-signature method torch "
                "says \"copy_() received an invalid combination of arguments - got (), but "
                "expected (Tensor other, bool non_blocking = False)\"")
METHOD_NO_ARGS = ("generated Tensor methods without parameters: torch raises "
                  "\"TensorBase.t() takes no arguments (1 given)\"")
VIEW_DTYPE = ("native_functions.yaml: view lacks torch's view(dtype) overload, so the TypeError "
              "differs beyond its first line")
LIST_NAME = ("arg_parser: a single-signature type error names the Python type ('not list'); "
             "strided says 'not list of [int]'")
CONTIGUOUS = ("frontend/tensor.py: Tensor.contiguous takes memory_format as a keyword only; "
              "torch: 'contiguous() takes 0 positional arguments but 1 was given'")
FILL_ORDER = ("native_functions.yaml: torch lists fill_(Tensor value) before fill_(Number value); "
              "strided lists fill_.Scalar first")


def _cases(exprs, bugs):
    return [pytest.param(e, marks=pytest.mark.xfail(strict=True, reason=bugs[e]))
            if e in bugs else e for e in exprs]


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
]
EXACT_BUGS = {
    "m.zeros()": PLURAL, "m.ones(2).new_full((2,))": PLURAL, "m.empty_strided()": PLURAL,
    "m.zeros(2, 3).transpose(0)": PLURAL, "m.zeros((True, 2))": BOOL_IN_LIST,
    "m.ones(2).copy_()": COPY_NO_ARGS, "m.ones(2).t(1)": METHOD_NO_ARGS,
    "m.eye()": SIGS, "m.eye(2, 'a')": SIGS, "m.eye(2, 3, 4)": SIGS,
    "m.scalar_tensor([1])": LIST_NAME, "m.ones(2).contiguous(1)": CONTIGUOUS,
    "m.ones(2).fill_()": FILL_ORDER, "m.ones(2).fill_(1, 2)": FILL_ORDER,
}


@pytest.mark.parametrize("expr", _cases(EXACT, EXACT_BUGS))
def test_error_text(expr):
    check(_recipe(expr))


# Multi-overload messages where torch lists overloads strided does not have (Tensor
# start/end for linspace/logspace, view(dtype), to(Tensor tensor, ...) spelled differently):
# only the first line, "<fn>() received an invalid combination of arguments - got (...), but
# expected one of:", is compared.
FIRST_LINE = [
    "m.linspace()", "m.linspace(0, 1, 'a')", "m.logspace(0, 1, 3, 'a')", "m.ones(2).view('a')",
    "m.zeros(2, 3).view(2.5)", "m.ones(2).to(foo=1)", "m.arange()",
]
FIRST_LINE_BUGS = {"m.linspace()": LINSPACE, "m.linspace(0, 1, 'a')": LINSPACE,
                   "m.logspace(0, 1, 3, 'a')": LINSPACE,
                   "m.ones(2).to(foo=1)": "frontend/tensor.py: Tensor.to's 'got (...)' must "
                                          "read 'got (foo=int, )' like torch's"}


@pytest.mark.parametrize("expr", _cases(FIRST_LINE, FIRST_LINE_BUGS))
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
]
ACCEPTED_BUGS = {
    "m.ones(2).copy_(src=m.zeros(2))": "copy_ binding: torch names the argument 'other' "
                                        "(copy_(src=...) raises TypeError in torch)",
}


@pytest.mark.parametrize("expr", _cases(ACCEPTED, ACCEPTED_BUGS))
def test_accepted_forms(expr):
    check(_recipe(expr))
