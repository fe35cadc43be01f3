"""The generated bindings: fresh, and behaving like torch's argument parser."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import torch

import strided

ROOT = Path(__file__).resolve().parents[2]


def test_generated_files_are_up_to_date(tmp_path):
    """Regenerating from the YAML must reproduce the checked-in files exactly."""
    gen = ROOT / "tools" / "codegen" / "gen_bindings.py"
    result = subprocess.run([sys.executable, str(gen), "--check"], capture_output=True,
                            text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_generator_output_goes_where_asked(tmp_path):
    gen = ROOT / "tools" / "codegen" / "gen_bindings.py"
    subprocess.run([sys.executable, str(gen), "--out", str(tmp_path)], check=True)
    for name in ("registrations.py", "torch_functions.py", "tensor_methods.py"):
        generated = (tmp_path / name).read_text()
        assert generated.startswith("# @generated")
        assert generated == (ROOT / "src/strided/ops/_generated" / name).read_text()


def test_every_yaml_op_is_registered_with_its_kernels():
    from strided.kernels import KERNELS
    from strided.ops import dispatcher
    from strided.ops._generated.registrations import OPS
    missing = sorted({name for _, _, dispatch in OPS for name in dispatch.values()
                      if name not in KERNELS})
    assert not missing, f"kernels named in native_functions.yaml but not defined: {missing}"
    for qualname, schema, dispatch in OPS:
        op = dispatcher.get_op(qualname)
        assert op.schema == schema
        for key in dispatch:
            assert op.kernels[strided.core.dispatch_keys.DispatchKey[key]]


@pytest.mark.parametrize("call", [
    lambda m: m.zeros(2, 3),
    lambda m: m.zeros((2, 3)),
    lambda m: m.zeros([2, 3]),
    lambda m: m.zeros(size=(2, 3)),
    lambda m: m.zeros(m.Size([2, 3]) if hasattr(m, "Size") else (2, 3)),
    lambda m: m.ones(4, dtype=m.int32),
    lambda m: m.full((2,), 7, dtype=m.float64),
    lambda m: m.empty(0, 3).new_zeros(2),
    lambda m: m.empty(3, 2).new_full((1, 2), 3),
    lambda m: m.arange(1, 10, 3),
    lambda m: m.arange(start=1, end=4),
    lambda m: m.eye(2, 3),
    lambda m: m.zeros(()),
    lambda m: m.zeros(2, 3, dtype=float),
    lambda m: m.zeros(2, 3, dtype=int),
    lambda m: m.zeros(2, device="meta"),
])
def test_overloads_and_varargs_parse_like_torch(call):
    s, t = call(strided), call(torch)
    assert tuple(s.shape) == tuple(t.shape)
    assert s.stride() == t.stride()
    assert repr(s.dtype) == repr(t.dtype)
    assert s.device.type == t.device.type
    if t.device.type != "meta":
        assert s.tolist() == t.tolist()


@pytest.mark.parametrize("call", [
    lambda m: m.zeros("a"),
    lambda m: m.ones(2, foo=1),
    lambda m: m.full((2,), "x"),
    lambda m: m.empty(2).clone(3),
    lambda m: m.eye("3"),
    lambda m: m.zeros(2, 3.5),
])
def test_bad_arguments_raise_typeerror_like_torch(call):
    with pytest.raises(TypeError) as theirs:
        call(torch)
    with pytest.raises(TypeError) as ours:
        call(strided)
    # torch lists overloads strided does not have (named tensors); the first line, which
    # says what was passed, must agree.
    assert str(ours.value).splitlines()[0] == str(theirs.value).splitlines()[0]


def test_out_overload_is_folded_into_functional_binding():
    out = strided.empty(0)
    r = strided.zeros(2, 2, out=out)
    assert r is out and out.shape == (2, 2) and out.tolist() == [[0, 0], [0, 0]]
    with pytest.raises(RuntimeError, match=r"dtype Long does not match dtype of out parameter "
                                           r"\(Float\)"):
        strided.zeros(2, out=out, dtype=strided.int64)


def test_factory_requires_grad_keyword():
    assert strided.zeros(2, requires_grad=True).requires_grad
    with pytest.raises(RuntimeError, match="Only Tensors of floating point"):   # torch's text
        strided.zeros(2, dtype=strided.int64, requires_grad=True)
