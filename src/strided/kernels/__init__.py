"""Kernels: the functions the dispatcher calls, looked up by the names that
``native_functions.yaml`` gives in its ``dispatch:`` tables."""

from __future__ import annotations

from types import ModuleType

from . import copy, factory, resize, views

_MODULES: tuple[ModuleType, ...] = (factory, copy, views, resize)


def _collect() -> dict:
    table = {}
    for module in _MODULES:
        for name, fn in vars(module).items():
            if callable(fn) and not name.startswith("_") and getattr(fn, "__module__", None) \
                    == module.__name__:
                if name in table and table[name] is not fn:
                    raise RuntimeError(f"kernel name {name} is defined twice")
                table[name] = fn
    return table


KERNELS = _collect()


def kernel(name: str):
    try:
        return KERNELS[name]
    except KeyError:
        raise RuntimeError(f"native_functions.yaml names kernel '{name}', which no module in "
                           f"strided.kernels defines") from None
