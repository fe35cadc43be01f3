"""``strided.backends.opt_einsum``: whether ``einsum`` may ask the opt_einsum package for a
contraction order. strided's ``einsum`` contracts left to right and does not use it, so
``is_available()`` is False, ``enabled`` is False and ``strategy`` is None; turning it on
raises torch's ValueError."""

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


def _set_enabled(value):
    if value:
        raise ValueError(
            f"opt_einsum is not available, so setting `enabled` to {value} will not reap the "
            f"benefits of calculating an optimal path for einsum. torch.einsum will fall back "
            f"to contracting from left to right. To enable this optimal path calculation, "
            f"please install opt-einsum.")
    return value


def _set_strategy(value):
    if value is not None:
        raise ValueError(
            f"opt_einsum is not available, so setting `strategy` to {value} will not be "
            f"meaningful. torch.einsum will bypass path calculation and simply contract from "
            f"left to right. Please install opt_einsum or unset `strategy`.")
    return value


def flags(enabled=None, strategy=None):
    return _flags_context(sys.modules[__name__], enabled=enabled, strategy=strategy)


_flag_module(__name__)
