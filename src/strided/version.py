"""``strided.version``: the build description torch programs print. strided is built for
the CPU alone: no CUDA, HIP/ROCm or XPU toolkit versions."""

from __future__ import annotations

__all__ = ["__version__", "cuda", "debug", "git_version", "hip", "rocm", "xpu"]

__version__ = "0.1.0"
debug = False
cuda = None
hip = None
rocm = None
xpu = None
git_version = "unknown"
