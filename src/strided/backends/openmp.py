"""``strided.backends.openmp``: strided's kernels do not use OpenMP."""

from __future__ import annotations

__all__ = ["is_available"]


def is_available() -> bool:
    return False
