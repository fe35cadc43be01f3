"""default_collate / default_convert / collate_fn_map against torch's."""

from __future__ import annotations

import collections
from types import MappingProxyType

import numpy as np
import pytest
import torch
from conftest import assert_same_result, check

import strided

Point = collections.namedtuple("Point", ["x", "y"])


def D(m):
    return m.utils.data


def same(a, b):
    """assert_same_result extended to the containers collate produces."""
    assert type(a).__name__ == type(b).__name__ or (
        isinstance(a, strided.Tensor) and isinstance(b, torch.Tensor)), (type(a), type(b))
    if isinstance(b, collections.abc.Mapping):
        assert list(a.keys()) == list(b.keys())
        for k in b:
            same(a[k], b[k])
    elif isinstance(b, tuple) and hasattr(b, "_fields"):
        assert type(a) is type(b)
        for x, y in zip(a, b, strict=True):
            same(x, y)
    elif isinstance(b, collections.abc.Sequence) and not isinstance(b, (str, bytes)):
        assert len(a) == len(b)
        for x, y in zip(a, b, strict=True):
            same(x, y)
    elif type(b) is object:
        assert type(a) is object  # default_convert hands back an unknown object as is
    else:
        assert_same_result(a, b)


def both(recipe):
    """recipe(m) for both libraries: same result, or the same exception and message."""
    try:
        rt = recipe(torch)
    except Exception:  # noqa: BLE001
        check(recipe)
        return
    same(recipe(strided), rt)


class MyList(list):
    pass


class MyDict(dict):
    pass


class Seq(collections.abc.Sequence):
    """An immutable sequence whose constructor takes a list."""

    def __init__(self, items):
        self.items = list(items)

    def __getitem__(self, i):
        return self.items[i]

    def __len__(self):
        return len(self.items)


class NoArgSeq(collections.abc.Sequence):
    """An immutable sequence that cannot be rebuilt from a list (collates to a list)."""

    def __init__(self, *items):
        self.items = items

    def __getitem__(self, i):
        return self.items[i]

    def __len__(self):
        return len(self.items)


CASES = {
    "tensors": lambda m: [m.arange(6.).reshape(2, 3), m.ones(2, 3)],
    "int_tensors": lambda m: [m.tensor([1, 2], dtype=m.int16), m.tensor([3, 4], dtype=m.int16)],
    "scalar_tensors": lambda m: [m.tensor(1.5), m.tensor(2.5)],
    "bool_tensors": lambda m: [m.tensor([True]), m.tensor([False])],
    "noncontig": lambda m: [m.arange(6).reshape(2, 3).t(), m.arange(6, 12).reshape(2, 3).t()],
    "floats": lambda m: [1.5, 2.0, -3.25],
    "ints": lambda m: [1, 2, 3],
    "bools": lambda m: [True, False],
    "mixed_int_float": lambda m: [1, 2.5],
    "strings": lambda m: ["a", "bc"],
    "bytes": lambda m: [b"a", b"bc"],
    "np_arrays": lambda m: [np.arange(3, dtype=np.float32), np.ones(3, np.float32)],
    "np_int_arrays": lambda m: [np.arange(4).reshape(2, 2), np.arange(4, 8).reshape(2, 2)],
    "np_float64_scalars": lambda m: [np.float64(1.5), np.float64(2)],
    "np_int32_scalars": lambda m: [np.int32(1), np.int32(7)],
    "np_bool_scalars": lambda m: [np.bool_(True), np.bool_(False)],
    "np_0d": lambda m: [np.array(1.5), np.array(2.5)],
    "dicts": lambda m: [{"a": 1, "b": m.zeros(2)}, {"a": 2, "b": m.ones(2)}],
    "nested": lambda m: [{"x": [1.0, (2, "s")], "y": {"z": np.int64(1)}},
                         {"x": [3.0, (4, "t")], "y": {"z": np.int64(2)}}],
    "namedtuples": lambda m: [Point(1, m.ones(2)), Point(2, m.zeros(2))],
    "tuples": lambda m: [(1, 2.0, "a"), (3, 4.0, "b")],
    "lists": lambda m: [[1, 2], [3, 4]],
    "mylist": lambda m: [MyList([1, 2]), MyList([3, 4])],
    "mydict": lambda m: [MyDict(a=1), MyDict(a=2)],
    "mappingproxy": lambda m: [MappingProxyType({"a": 1}), MappingProxyType({"a": 2})],
    "seq": lambda m: [Seq([1, 2]), Seq([3, 4])],
    "noargseq": lambda m: [NoArgSeq(1, 2), NoArgSeq(3, 4)],
    "tensor_dataset_rows": lambda m: [(m.ones(3), m.tensor(0)), (m.zeros(3), m.tensor(1))],
    "unequal_lists": lambda m: [[1, 2], [3]],
    "unequal_tensors": lambda m: [m.ones(2), m.ones(3)],
    "mixed_dtypes": lambda m: [m.ones(2), m.ones(2, dtype=m.float64)],
    "np_str_array": lambda m: [np.array(["a"]), np.array(["b"])],
    "np_object_array": lambda m: [np.array([None]), np.array([None])],
    "objects": lambda m: [object(), object()],
    "none": lambda m: [None, None],
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_default_collate(name):
    both(lambda m: D(m).default_collate(CASES[name](m)))


@pytest.mark.parametrize("name", sorted(CASES))
def test_default_convert(name):
    both(lambda m: D(m).default_convert(CASES[name](m)))


def test_default_convert_leaves_structure():
    both(lambda m: D(m).default_convert({"a": np.arange(3), "b": (np.float32(1), "s"),
                                         "c": Point(np.int8(1), [np.zeros(2)])}))
    both(lambda m: D(m).default_convert(np.str_("abc")))
    both(lambda m: D(m).default_convert(np.array([b"x"])))
    both(lambda m: D(m).default_convert(m.ones(2)))
    both(lambda m: D(m).default_convert(3.5))


def test_collate_keeps_subclass_attributes():
    def recipe(m):
        a, b = MyDict(k=1), MyDict(k=2)
        a.tag = "kept"
        out = D(m).default_collate([a, b])
        return type(out).__name__, out.tag, out["k"]
    both(recipe)


def test_collate_fn_map_extension():
    class Box:
        def __init__(self, v):
            self.v = v

    def recipe(m):
        from importlib import import_module
        coll = import_module(f"{m.__name__}.utils.data._utils.collate")

        def collate_box(batch, *, collate_fn_map=None):
            return sum(b.v for b in batch)
        fn_map = dict(coll.default_collate_fn_map)
        fn_map[Box] = collate_box
        return [coll.collate([{"b": Box(1), "t": m.ones(1)}, {"b": Box(2), "t": m.ones(1)}],
                             collate_fn_map=fn_map),
                coll.collate([[1, 2.0], [3, 4.0]], collate_fn_map=fn_map),
                # a tuple key matches any of its types; exact types are looked up first
                coll.collate([Box(5)], collate_fn_map={(int, Box): collate_box})]
    both(recipe)
    check(lambda m: __import__(f"{m.__name__}.utils.data._utils.collate",
                               fromlist=["collate"]).collate([1, 2]))


def test_collate_parameters_and_subclasses():
    both(lambda m: D(m).default_collate([m.nn.Parameter(m.ones(2)),
                                         m.nn.Parameter(m.zeros(2))]).detach())


def test_collate_requires_grad():
    def recipe(m):
        x = m.ones(2, requires_grad=True)
        out = D(m).default_collate([x * 2, x * 3])
        out.sum().backward()
        return out.detach(), x.grad, out.requires_grad
    both(recipe)
