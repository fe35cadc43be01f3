"""The README's code runs as written: every ```python block is executed in a fresh
process, in a scratch folder (examples may write files). The block under "Differences
from torch" asserts each difference it states, so the list stays true: when a difference
is fixed, its assertion fails until the README is updated."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"


def _blocks() -> list[tuple[str, str]]:
    text = README.read_text(encoding="utf-8")
    found, section = [], "top"
    for m in re.finditer(r"^## ([^\n]+)$|^```python\n(.*?)^```", text, re.M | re.S):
        if m.group(1):
            section = m.group(1).strip()
        else:
            found.append((f"{section}-{len(found)}", m.group(2)))
    return found


def test_readme_has_a_differences_section_with_code():
    assert any(name.startswith("Differences from torch") for name, _ in _blocks())


@pytest.mark.parametrize("name, code", _blocks(), ids=[n for n, _ in _blocks()])
def test_readme_block_runs(name, code, tmp_path):
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            cwd=tmp_path, timeout=300)
    assert result.returncode == 0, f"{name} failed:\n{result.stderr[-3000:]}"


def test_first_block_prints_something(tmp_path):
    name, code = _blocks()[0]
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            cwd=tmp_path, timeout=300)
    assert result.stdout.strip(), "the README's first example prints nothing"
