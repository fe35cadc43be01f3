"""Docstrings, comments and the README cite only files that exist.

A citation is a path ending in a source or data suffix (``kernels/linalg.py``,
``ops/native_functions.yaml``). It resolves against the repository root, ``src/``,
``src/strided/``, ``src/strided/<any top package>/`` or the citing file's own folder.
Paths into PyTorch's own tree (``torch/...``, ``aten/...``, ``torchgen/...``) and URLs
name torch's files, not ours, and are left out.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src" / "strided"
CITATION = re.compile(r"(?<![\w/.:-])((?:[\w.-]+/)+[\w.-]+\.(?:py|yaml|md|toml))\b")
FOREIGN = ("torch/", "aten/", "torchgen/", "c10/", "numpy/", "scipy/", "tools/autograd/",
           "test/")


def _citing_files() -> list[Path]:
    files = [ROOT / "README.md", *sorted((ROOT / "tools").rglob("*.py")),
             *sorted((ROOT / "benchmarks").rglob("*.py")), *sorted((ROOT / "tests").rglob("*.py"))]
    files += [p for p in sorted(SRC.rglob("*.py")) if "_generated" not in p.parts]
    files += sorted(SRC.rglob("*.yaml"))
    return files


def _resolves(cited: str, citing: Path) -> bool:
    roots = [ROOT, ROOT / "src", SRC, citing.parent, *[p for p in SRC.iterdir() if p.is_dir()]]
    return any((root / cited).exists() for root in roots)


def _citations(path: Path):
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if "://" in line:
            line = re.sub(r"\w+://\S+", "", line)
        for match in CITATION.finditer(line):
            cited = match.group(1)
            if not cited.startswith(FOREIGN):
                yield lineno, cited


@pytest.mark.parametrize("path", _citing_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_cited_files_exist(path):
    dangling = [f"{path.relative_to(ROOT)}:{n}: {cited}" for n, cited in _citations(path)
                if not _resolves(cited, path)]
    assert not dangling, "\n".join(dangling)
