"""tools/codegen/gen_autograd.py: the generated nodes are fresh, and bad entries fail with
the file and line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools" / "codegen"))

import gen_autograd  # noqa: E402


def test_generated_nodes_are_up_to_date():
    gen = ROOT / "tools" / "codegen" / "gen_autograd.py"
    result = subprocess.run([sys.executable, str(gen), "--check"], capture_output=True,
                            text=True)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.fixture()
def native():
    schema = gen_autograd._schema_module()
    return {str(nf.func.name): nf.func for nf in schema.load_native_function_files(
        schema.native_function_files(gen_autograd.OPS_DIR))}


@pytest.mark.parametrize("raw, message", [
    ({"name": "nope(Tensor self) -> Tensor", "self": "grad"}, "is not declared"),
    ({"name": "neg(Tensor self) -> Tensor", "other": "grad"}, "is not a Tensor argument"),
    ({"name": "neg(Tensor self) -> Tensor", "self": "grad +"}, "is not a Python expression"),
    ({"name": "exp(Tensor self) -> Tensor", "self": 3}, "must be a string"),
    ({"name": "max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, "
              "Tensor indices)", "output_differentiability": [True]}, "needs 2 values"),
])
def test_bad_entries_are_refused_with_their_line(native, raw, message):
    with pytest.raises(gen_autograd.EntryError, match=message) as info:
        gen_autograd.Entry(dict(raw), native, 42)
    assert "derivatives.yaml:42" in str(info.value)


def test_names_follow_torch(native):
    assert gen_autograd._camel("log1p") == "Log1P"
    assert gen_autograd._camel("linalg_vector_norm") == "LinalgVectorNorm"
    entry = gen_autograd.Entry({"name": "mul.Tensor(Tensor self, Tensor other) -> Tensor",
                                "self": "grad * other_sizes[0]", "other": "grad * self"},
                               native, 1)
    assert entry.diff_inputs == ["self", "other"]
    assert ("other_sizes", "other", "sizes") in entry.saved_inputs
    assert ("self", "self", "value") in entry.saved_inputs
