"""``strided.utils.deterministic``: ``fill_uninitialized_memory`` (default True): while
deterministic algorithms are on (``use_deterministic_algorithms(True)``), memory that
``empty``, ``empty_like``, ``empty_strided`` and a growing ``resize_`` hand out uninitialised
is filled with NaN (floating and complex types) or the dtype's largest value (integers,
True for bool), as torch does."""

from __future__ import annotations

import sys
import types

from .env import ENV, _sync_fill


class _DeterministicModule(types.ModuleType):
    @property
    def fill_uninitialized_memory(self) -> bool:
        return ENV.fill_uninitialized_memory

    @fill_uninitialized_memory.setter
    def fill_uninitialized_memory(self, mode) -> None:
        if mode is not True and mode is not False:
            raise RuntimeError(f"expected a bool, but got {type(mode).__name__}")
        ENV.fill_uninitialized_memory = mode
        _sync_fill()


sys.modules[__name__].__class__ = _DeterministicModule
