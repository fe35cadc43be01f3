"""torch's legacy and small top-level API: the constants, ``typename``, ``is_nonzero``,
``is_storage``, ``set_default_tensor_type``, ``frombuffer``, ``from_file``, the deprecated
``range``, the per-dtype tensor classes and ``TypedStorage`` with its per-dtype classes;
each compared with torch."""

from __future__ import annotations

import math
import pickle

import pytest
import torch
from conftest import check

import strided


@pytest.mark.parametrize("name", ["e", "pi", "inf", "nan", "newaxis"])
def test_constants(name):
    a, b = getattr(strided, name), getattr(torch, name)
    assert (a is None and b is None) or a == b or (math.isnan(a) and math.isnan(b))


@pytest.mark.parametrize("make", [
    lambda lib: lib.zeros(2), lambda lib: lib.zeros(2, dtype=lib.int64),
    lambda lib: lib.zeros(2, dtype=lib.complex64), lambda lib: lib.zeros(1, device="meta"),
    lambda lib: lib.zeros(1, dtype=lib.bool), lambda lib: 3, lambda lib: lib.nn.Linear(1, 1),
    lambda lib: lib.Size([1]), lambda lib: "text",
])
def test_typename(make):
    check(lambda lib: lib.typename(make(lib)))


@pytest.mark.parametrize("values", [[0.0], [2], [], [1, 2], [[True]], [float("nan")]])
def test_is_nonzero(values):
    check(lambda lib: lib.is_nonzero(lib.tensor(values)))
    check(lambda lib: lib.tensor(values).is_nonzero())


def test_is_storage():
    check(lambda lib: [lib.is_storage(lib.zeros(2).untyped_storage()),
                       lib.is_storage(lib.FloatStorage(2)), lib.is_storage(lib.zeros(2)),
                       lib.is_storage([1])],
          warns=False)      # TypedStorage's deprecation warns once per process in both


@pytest.mark.parametrize("spec", ["torch.DoubleTensor", "torch.FloatTensor", "torch.LongTensor",
                                  "torch.Nope", "DoubleTensor", 3])
def test_set_default_tensor_type(spec, default_dtype):
    def recipe(lib):
        lib.set_default_tensor_type(spec)
        return lib.get_default_dtype(), lib.zeros(1).dtype
    check(recipe, warns=False)      # both warn once per process


@pytest.mark.parametrize("cls", ["DoubleTensor", "HalfTensor", "LongTensor", "BoolTensor"])
def test_set_default_tensor_type_classes(cls, default_dtype):
    def recipe(lib):
        lib.set_default_tensor_type(getattr(lib, cls))
        return lib.get_default_dtype()
    check(recipe, warns=False)


# (a step that is 0 in the dtype, like 0.3 in int64, kills torch with SIGFPE)
@pytest.mark.parametrize("args, dtype", [
    (args, dtype) for args in [(1, 4), (0, 1, 0.3), (5, 1, -2), (1, 1), (2, 1), (0, 1, -1)]
    for dtype in (None, "int64", "float64") if not (dtype == "int64" and args == (0, 1, 0.3))])
def test_range(args, dtype):
    check(lambda lib: lib.range(*args, dtype=None if dtype is None else getattr(lib, dtype)))


@pytest.mark.parametrize("kwargs", [
    dict(dtype="int32"), dict(dtype="int16", count=2, offset=2), dict(dtype="int32", count=3),
    dict(dtype="int32", offset=9), dict(dtype="int64", offset=1), dict(dtype="int32", count=0),
    dict(dtype="uint8", offset=7), dict(dtype="float32", requires_grad=True),
])
def test_frombuffer(kwargs):
    def recipe(lib):
        kw = dict(kwargs, dtype=getattr(lib, kwargs["dtype"]))
        return lib.frombuffer(bytearray(b"\x01\x00\x00\x00\x02\x00\x00\x00"), **kw)
    check(recipe)


def test_frombuffer_shares_writable_memory():
    buf = bytearray(8)
    t = strided.frombuffer(buf, dtype=strided.int32)
    t[1] = 5
    assert bytes(buf) == b"\x00" * 4 + b"\x05\x00\x00\x00"
    check(lambda lib: lib.frombuffer(b"", dtype=lib.int32))
    check(lambda lib: lib.frombuffer(3, dtype=lib.int32))


def test_from_file(tmp_path):
    path = tmp_path / "data.bin"
    path.write_bytes(bytes(range(16)))
    for kwargs in (dict(size=4, dtype="int32"), dict(shared=False, size=2, dtype="int64"),
                   dict(size=5, dtype="int32"), dict(dtype="int32"), dict(size=16, dtype="uint8")):
        check(lambda lib, kwargs=kwargs: lib.from_file(
            str(path), **dict(kwargs, dtype=getattr(lib, kwargs["dtype"]))))
    t = strided.from_file(str(path), shared=True, size=4, dtype=strided.int32)
    t[0] = 7
    assert path.read_bytes()[:4] == b"\x07\x00\x00\x00"
    check(lambda lib: lib.from_file(str(tmp_path / "missing.bin"), size=1))


@pytest.mark.parametrize("make", [
    lambda lib: lib.FloatTensor(2, 3).shape, lambda lib: lib.LongTensor([1, 2]),
    lambda lib: lib.DoubleTensor(), lambda lib: lib.BoolTensor([True]),
    lambda lib: isinstance(lib.zeros(2), lib.FloatTensor),
    lambda lib: isinstance(lib.zeros(2), lib.DoubleTensor),
    lambda lib: isinstance(lib.zeros(2, device="meta"), lib.FloatTensor),
    lambda lib: issubclass(lib.FloatTensor, lib.Tensor), lambda lib: repr(lib.IntTensor),
    lambda lib: lib.FloatTensor("a"), lambda lib: lib.zeros(2).type(lib.DoubleTensor),
    lambda lib: lib.zeros(2).type("torch.IntTensor"), lambda lib: lib.zeros(2).type(),
])
def test_legacy_tensor_classes(make):
    check(lambda lib: make(lib), warns=False)


@pytest.mark.parametrize("make", [
    lambda lib: lib.arange(6.0).storage().tolist(),
    lambda lib: [lib.arange(6.0).storage()[i] for i in (0, -1)],
    lambda lib: lib.arange(6.0).storage()[6],
    lambda lib: lib.arange(6.0).storage()[1:3],
    lambda lib: repr(lib.FloatStorage(3).fill_(1)),
    lambda lib: repr(lib.TypedStorage([1, 2], dtype=lib.int64)),
    lambda lib: repr(lib.TypedStorage(dtype=lib.int64)),
    lambda lib: (lib.TypedStorage(4).dtype, lib.TypedStorage(4).size()),
    lambda lib: [lib.LongStorage(2).type(), lib.zeros(1).storage().type()],
    lambda lib: [isinstance(lib.zeros(2).storage(), lib.FloatStorage),
                 isinstance(lib.zeros(2).storage(), lib.LongStorage)],
    lambda lib: (lib.zeros(3, dtype=lib.int16).storage().nbytes(),
                 lib.zeros(3, dtype=lib.int16).storage().element_size(),
                 len(lib.zeros(3, dtype=lib.int16).storage())),
    lambda lib: lib.FloatStorage(2, dtype=lib.int64),
])
def test_typed_storage(make):
    check(lambda lib: make(lib), warns=False)


def test_typed_storage_shares_the_tensors_memory():
    def recipe(lib):
        t = lib.arange(4.0)
        s = t.storage()
        s[1] = 10
        s.fill_(2) if False else None
        return t, s.data_ptr() == t.data_ptr(), s.untyped().nbytes()
    check(recipe, warns=False)


def test_deprecation_warnings_once_per_process_like_torch():
    code = ("lib.zeros(2).storage(); lib.zeros(2).storage(); lib.FloatStorage(2); "
            "lib.set_default_tensor_type(lib.DoubleTensor); "
            "lib.set_default_tensor_type(lib.FloatTensor); lib.range(0, 2); lib.range(0, 2)")
    import subprocess
    import sys

    def warnings_of(lib):
        script = f"import warnings; warnings.simplefilter('default'); import {lib} as lib; {code}"
        err = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                             check=True).stderr
        return [line.split("UserWarning: ")[1][:60] for line in err.splitlines()
                if "UserWarning: " in line]
    assert warnings_of("strided") == warnings_of("torch")


def test_typed_storage_pickles():
    s = strided.DoubleStorage([1.0, 2.0])
    back = pickle.loads(pickle.dumps(s))
    assert back.dtype is strided.float64 and back.tolist() == [1.0, 2.0]

