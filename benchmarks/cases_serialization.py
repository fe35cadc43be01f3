"""Benchmark cases for save/load (issue 11's speed targets): a 32 MB state dict saved and
loaded by each library (to and from a file in a temporary folder), and ``load(mmap=True)``
of a 1 GB checkpoint, which should take well under 50 ms (nothing is read until touched).

The files live in a temporary folder removed at exit.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile

import numpy as np
from cases import Case

_DIR: list[str] = []


def _tmpdir() -> str:
    if not _DIR:
        _DIR.append(tempfile.mkdtemp(prefix="strided_bench_"))
        atexit.register(shutil.rmtree, _DIR[0], True)
    return _DIR[0]


def _state_dicts(st, torch):
    """A 32 MB state dict (32 Linear(512, 512) layers: 64 tensors) in both libraries."""
    rng = np.random.default_rng(0)
    arrays = {}
    for i in range(32):
        arrays[f"{i}.weight"] = rng.standard_normal((512, 512), dtype=np.float32)
        arrays[f"{i}.bias"] = rng.standard_normal(512, dtype=np.float32)
    return ({k: st.tensor(v) for k, v in arrays.items()},
            {k: torch.tensor(v) for k, v in arrays.items()})


def _save_32mb(st, torch, np):
    sd_s, sd_t = _state_dicts(st, torch)
    ps, pt = os.path.join(_tmpdir(), "s_save.pt"), os.path.join(_tmpdir(), "t_save.pt")
    return {"strided": lambda: st.save(sd_s, ps), "torch": lambda: torch.save(sd_t, pt),
            "numpy": None}


def _load_32mb(st, torch, np):
    _, sd_t = _state_dicts(st, torch)
    path = os.path.join(_tmpdir(), "load.pt")
    torch.save(sd_t, path)
    return {"strided": lambda: st.load(path), "torch": lambda: torch.load(path),
            "numpy": None}


def _mmap_1gb(st, torch, np):
    path = os.path.join(_tmpdir(), "big.pt")
    # 1 GiB over 16 tensors of 64 MiB, zeros: written once by torch
    torch.save({f"w{i}": torch.zeros(16 * 1024 * 1024) for i in range(16)}, path)
    return {"strided": lambda: st.load(path, mmap=True),
            "torch": lambda: torch.load(path, mmap=True), "numpy": None}


def _ms(seconds) -> str:
    return f"(strided {seconds * 1e3:.2f} ms; target < 50 ms)"


SERIALIZATION_CASES = [
    Case("save 32 MB state dict (64 tensors, file)", _save_32mb, number=3),
    Case("load 32 MB state dict (64 tensors, file)", _load_32mb, number=3),
    Case("load(mmap=True) 1 GB checkpoint", _mmap_1gb, number=10, note=_ms),
]
