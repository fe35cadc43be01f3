"""``strided.backends.opt_einsum``: whether ``einsum`` may ask the opt_einsum package for a
contraction order. strided's ``einsum`` contracts left to right and does not use it, so
``is_available()`` is False, ``enabled`` is False and ``strategy`` is None. As in torch
without the package, setting them just stores the value (torch's validating setters are not
reached there either)."""

from __future__ import annotations

import sys

from . import _flag_module, _flags_context

__all__ = ["enabled", "flags", "get_opt_einsum", "is_available", "strategy"]

enabled = False
strategy = None
_FLAGS = ("enabled", "strategy")


def is_available() -> bool:
    return False


def get_opt_einsum():
    return None


def flags(enabled=None, strategy=None):
    return _flags_context(sys.modules[__name__], enabled=enabled, strategy=strategy)


_flag_module(__name__)
