"""``strided.backends.cpu``: the SIMD level of this CPU, as torch names it."""

from __future__ import annotations

import os

__all__ = ["get_cpu_capability"]


def get_cpu_capability() -> str:
    """torch's ``get_cpu_capability()``: "AVX512" when the CPU has AVX-512 F/BW/VL/DQ,
    "AVX2" with AVX2 and FMA, otherwise "DEFAULT"; the
    ``ATEN_CPU_CAPABILITY`` environment variable may lower it, as torch's does."""
    import platform

    import numpy as np

    try:
        from numpy._core._multiarray_umath import __cpu_features__ as features
    except ImportError:  # NumPy 1.x
        from numpy.core._multiarray_umath import __cpu_features__ as features
    del np
    machine = platform.machine().lower()
    if machine not in ("x86_64", "amd64", "i386", "i686"):
        return "DEFAULT"
    levels = ["DEFAULT"]
    if features.get("AVX2") and features.get("FMA3"):
        levels.append("AVX2")
    if all(features.get(f) for f in ("AVX512F", "AVX512BW", "AVX512VL", "AVX512DQ")) and \
            features.get("FMA3"):
        levels.append("AVX512")
    wanted = {"default": "DEFAULT", "avx2": "AVX2", "avx512": "AVX512"}.get(
        os.environ.get("ATEN_CPU_CAPABILITY", "").lower())
    if wanted in levels:
        return wanted
    return levels[-1]
