"""``strided.backends.mps``: no Metal backend."""

from __future__ import annotations

__all__ = ["is_available", "is_built", "is_macos13_or_newer", "is_macos_or_newer"]


def is_built() -> bool:
    return False


def is_available() -> bool:
    return False


def is_macos_or_newer(major: int, minor: int) -> bool:
    raise RuntimeError("Cannot execute isOnMacOSorNewer() without MPS backend.")


def is_macos13_or_newer(minor: int = 0) -> bool:
    return is_macos_or_newer(13, minor)
