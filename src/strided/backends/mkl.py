"""``strided.backends.mkl``: strided does not call MKL itself."""

from __future__ import annotations

__all__ = ["is_available", "verbose"]

VERBOSE_OFF = 0
VERBOSE_ON = 1


def is_available() -> bool:
    return False


class verbose:
    def __init__(self, enable):
        self.enable = enable

    def __enter__(self):
        return None if self.enable == VERBOSE_OFF else self

    def __exit__(self, *exc):
        return False
