"""``strided.testing`` against ``torch.testing``: ``assert_close``'s verdicts, exception
types and messages, and ``make_tensor``'s values after the same seed."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from conftest import check

import strided

CASES = [  # (make actual, make expected, options), each from a library
    (lambda L: L.tensor([1., 2., 3.]), lambda L: L.tensor([1., 2.5, 3.]), {}),
    (lambda L: 1, lambda L: 1.0, {}),
    (lambda L: 1.0, lambda L: 1.5, {}),
    (lambda L: 1.0, lambda L: 1.0 + 1e-9, {}),
    (lambda L: True, lambda L: False, {}),
    (lambda L: None, lambda L: 1, {}),
    (lambda L: None, lambda L: None, {}),
    (lambda L: L.tensor([1, 2]), lambda L: L.tensor([1, 3]), {}),
    (lambda L: [1, 2], lambda L: [1, 2, 3], {}),
    (lambda L: {"a": 1}, lambda L: {"b": 1}, {}),
    (lambda L: [L.zeros(2)], lambda L: [L.ones(2)], {}),
    (lambda L: {"w": [L.zeros(2), L.ones(1)]}, lambda L: {"w": [L.zeros(2), L.zeros(1)]}, {}),
    (lambda L: L.zeros(2), lambda L: L.zeros(3), {}),
    (lambda L: L.zeros(2), lambda L: L.zeros(2, dtype=L.float64), {}),
    (lambda L: "a", lambda L: "a", {}),
    (lambda L: L.tensor(1.), lambda L: L.tensor(2.), {}),
    (lambda L: L.zeros(2), lambda L: [0., 0.], {}),
    (lambda L: L.tensor([float("nan")]), lambda L: L.tensor([float("nan")]), {}),
    (lambda L: L.tensor([float("nan")]), lambda L: L.tensor([float("nan")]),
     dict(equal_nan=True)),
    (lambda L: L.tensor([float("inf")]), lambda L: L.tensor([float("inf")]), {}),
    (lambda L: 1 + 1j, lambda L: 1 + 2j, {}),
    (lambda L: L.zeros(2, 2), lambda L: L.eye(2), {}),
    (lambda L: L.zeros(2), lambda L: L.zeros(2), dict(rtol=0.1)),
    (lambda L: L.tensor([0.]), lambda L: L.tensor([1e-6]), {}),
    (lambda L: L.tensor([1, 2]), lambda L: L.tensor([1., 2.]), dict(check_dtype=False)),
    (lambda L: L.tensor([1, 2]), lambda L: L.tensor([1., 2.5]), dict(check_dtype=False)),
    (lambda L: L.zeros(3, 2).t(), lambda L: L.zeros(2, 3), dict(check_stride=True)),
    (lambda L: L.zeros(2), lambda L: L.ones(2), dict(msg="custom")),
    (lambda L: L.zeros(2), lambda L: L.ones(2), dict(msg=lambda m: "X" + m[:10])),
    (lambda L: L.zeros(2, device="meta"), lambda L: L.ones(2, device="meta"), {}),
    (lambda L: L.zeros(2, dtype=L.complex64), lambda L: L.ones(2, dtype=L.complex64), {}),
    (lambda L: L.arange(6.).reshape(2, 3), lambda L: L.arange(6.).reshape(2, 3) * 1.5, {}),
    (lambda L: L.tensor([1., 2.]), lambda L: L.tensor([1.1, 2.]), dict(rtol=0.2, atol=0.)),
    (lambda L: np.zeros(2), lambda L: np.ones(2), {}),
    (lambda L: np.float64(1.0), lambda L: np.float64(2.0), {}),
    (lambda L: L.tensor([True, False]), lambda L: L.tensor([True, True]), {}),
    (lambda L: L.tensor([1.], dtype=L.float16), lambda L: L.tensor([1.001], dtype=L.float16),
     {}),
]


@pytest.mark.parametrize("make_actual, make_expected, options", CASES)
def test_assert_close(make_actual, make_expected, options):
    check(lambda L: L.testing.assert_close(make_actual(L), make_expected(L), **options))


def test_assert_allclose_is_deprecated_and_loose():
    check(lambda L: L.testing.assert_allclose(L.tensor([1.0]), [1.000001]))
    check(lambda L: L.testing.assert_allclose(L.tensor([1.0]), [1.1]))


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16", "complex64",
                                   "complex128", "int64", "int8", "uint8", "bool"])
@pytest.mark.parametrize("kwargs", [{}, dict(low=-2, high=3), dict(noncontiguous=True),
                                    dict(exclude_zero=True), dict(low=0, high=1e300)])
def test_make_tensor_draws_like_torch(dtype, kwargs):
    def recipe(L):
        L.manual_seed(7)
        t = L.testing.make_tensor(3, 4, dtype=getattr(L, dtype), device="cpu", **kwargs)
        return t, t.is_contiguous()
    check(recipe)


@pytest.mark.parametrize("kwargs", [
    dict(dtype="int64", requires_grad=True), dict(dtype="float32", low=2, high=1),
    dict(dtype="float32", low=float("nan")), dict(dtype="uint8", low=300, high=400),
    dict(dtype="float32", noncontiguous=True, memory_format="contiguous_format"),
    dict(dtype="float32", low=1, high=1), dict(dtype="float32", requires_grad=True),
])
def test_make_tensor_arguments(kwargs):
    def recipe(L):
        L.manual_seed(0)
        kw = dict(kwargs, dtype=getattr(L, kwargs["dtype"]))
        if "memory_format" in kw:
            kw["memory_format"] = getattr(L, kw["memory_format"])
        t = L.testing.make_tensor((2, 2), device="cpu", **kw)
        return t.detach(), t.requires_grad
    check(recipe)


def test_namespace_matches_torch():
    assert set(strided.testing.__all__) <= set(dir(torch.testing))
