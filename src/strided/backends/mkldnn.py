"""``strided.backends.mkldnn``: strided does not use oneDNN, so ``is_available()`` is False;
the flags keep torch's defaults and what is set."""

from __future__ import annotations

import sys

from . import _flag_module, _flags_context

__all__ = ["VERBOSE_OFF", "VERBOSE_ON", "VERBOSE_ON_CREATION", "allow_tf32", "deterministic",
           "enabled", "flags", "is_acl_available", "is_available", "verbose"]

enabled = True
deterministic = False
allow_tf32 = None
fp32_precision = "none"
_FLAGS = ("enabled", "deterministic", "allow_tf32", "fp32_precision")

VERBOSE_OFF = 0
VERBOSE_ON = 1
VERBOSE_ON_CREATION = 2


def is_available() -> bool:
    return False


def is_acl_available() -> bool:
    return False


class verbose:
    """oneDNN's verbose mode: with no oneDNN there is nothing to print; the levels are
    accepted."""

    def __init__(self, level):
        self.level = level

    def __enter__(self):
        return None if self.level == VERBOSE_OFF else self

    def __exit__(self, *exc):
        return False


def flags(enabled=False, deterministic=False, allow_tf32=True, fp32_precision="none"):
    return _flags_context(sys.modules[__name__], enabled=enabled, deterministic=deterministic,
                          allow_tf32=allow_tf32, fp32_precision=fp32_precision)


_flag_module(__name__)
