"""The operator layer, and ``strided.ops.<namespace>.<op>`` access as in ``torch.ops``.

This package holds the dispatcher code (``dispatcher``, ``schema``, ``registry``,
...). Any other attribute is an operator namespace: ``strided.ops.aten`` or
``strided.ops.myns`` (see ``op_namespace``). A submodule name wins over a namespace
of the same name; ``op_namespace.namespace(name)`` reaches such a namespace anyway.
"""

from __future__ import annotations

import importlib
import importlib.util


def __getattr__(name: str):
    if name.startswith("__") or not name.isidentifier():
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    # ``from strided.ops import dispatcher`` asks for the attribute before importing
    # the submodule, so a submodule that is not imported yet must be imported here.
    if importlib.util.find_spec(f"{__name__}.{name}") is not None:
        return importlib.import_module(f"{__name__}.{name}")
    ns = importlib.import_module(f"{__name__}.op_namespace").namespace(name)
    globals()[name] = ns
    return ns
