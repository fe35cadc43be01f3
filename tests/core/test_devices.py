"""``device`` against torch: parsing, repr/str, equality, hashing and errors."""

from __future__ import annotations

import copy
import pickle

import pytest
import torch
from conftest import check

import strided

VALID = ["cpu", "cpu:0", "cpu:1", "cuda", "cuda:0", "cuda:1", "cuda:7", "cuda:127", "meta",
         "meta:0", "mps", "xla:3", "privateuseone", "hip:2", "xpu"]
INVALID = ["", "foo", "CUDA", "Cpu", " cpu", "cpu ", "cuda:", "cuda:-1", "cuda:01", "cuda:x",
           "cuda:1:2", "cuda0", "cu da", "cuda:1 ", ":1", "cuda::1", "cuda:99999999999",
           "foo:1", "c-u", "cpu_x", "_cpu"]


def _describe(d):
    return (repr(d), str(d), d.type, d.index)


@pytest.mark.parametrize("text", VALID)
def test_parse(text):
    check(lambda m: _describe(m.device(text)))


@pytest.mark.parametrize("text", INVALID)
def test_parse_errors(text):
    check(lambda m: m.device(text))


@pytest.mark.parametrize("args,kwargs", [
    (("cuda", 1), {}), (("cpu", 0), {}), (("meta", 0), {}), (("cuda", None), {}),
    (("cuda",), {"index": 2}), ((), {"type": "cuda", "index": 2}), ((), {"type": "cpu"}),
    (("cuda:1", 2), {}), (("cuda:1", 1), {}), (("cuda", -1), {}), (("cuda", -2), {}),
    (("cuda",), {"index": -1}), (("foo", 1), {}), (("cuda", "1"), {}), (("cuda", True), {}),
    (("cuda", 1.0), {}), ((1.5,), {}), ((None,), {}), ((True,), {}), ((), {}),
    (("cpu", 1, 2), {}), ((), {"index": 1}), (("cpu",), {"foo": 1}),
    ((), {"type": "cpu", "foo": 1}), ((-1,), {}), ((-3,), {}), ((0,), {}), ((3,), {}),
    ((["cpu"],), {}),
])
def test_constructor_forms(args, kwargs):
    check(lambda m: _describe(m.device(*args, **kwargs)))


def test_from_device():
    check(lambda m: _describe(m.device(m.device("cuda:1"))))
    check(lambda m: m.device(m.device("cpu"), 1))
    check(lambda m: m.device(m.device("cpu"), index=1))


@pytest.mark.parametrize("a", VALID)
@pytest.mark.parametrize("b", ["cpu", "cpu:0", "cuda", "cuda:0", "cuda:1", "meta"])
def test_equality_and_hash(a, b):
    def compare(m):
        x, y = m.device(a), m.device(b)
        return (x == y, x != y, hash(x) == hash(y) if x == y else True, x == a, x == str(x),
                x == 1, x != a)
    check(compare)


def test_equal_spellings_are_equal():
    for m in (strided, torch):
        assert m.device("cuda:1") == m.device("cuda", 1) == m.device(type="cuda", index=1)
        assert m.device("cpu") != m.device("cpu:0")
        assert {m.device("cpu"): 1}[m.device("cpu")] == 1
        assert len({m.device("cuda", 2), m.device("cuda:2")}) == 1


def test_pickle_and_copy():
    for text in VALID:
        d = strided.device(text)
        assert pickle.loads(pickle.dumps(d)) == d
        assert copy.deepcopy(d) == d and copy.copy(d) == d


def test_attributes_readonly_like_torch():
    d = strided.device("cuda:1")
    assert (d.type, d.index) == ("cuda", 1)
    assert isinstance(d, strided.device)
