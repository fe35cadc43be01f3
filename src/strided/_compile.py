"""``strided.compile``: there is no graph compiler in strided yet. ``compile`` returns the
function or module it is given, unchanged (so a compiled model runs eagerly, with the same
results), and says so once per process with a UserWarning."""

from __future__ import annotations

import warnings

__all__ = ["compile"]

NO_COMPILER = ("strided.compile: strided has no compiler yet; the function or module is "
               "returned unchanged and runs eagerly.")
_warned = [False]


def compile(model=None, *, fullgraph: bool = False, dynamic: bool | None = None,
            backend="inductor", mode: str | None = None, options: dict | None = None,
            name: str | None = None, disable: bool = False, recompile_limit: int | None = None,
            isolate_recompiles: bool = False, shapes_spec=None):
    """torch.compile's signature and argument checks; returns ``model`` itself (or, called
    without a model, a decorator that does)."""
    if model is None:
        def decorate(model):
            if model is None:
                raise RuntimeError("Model can't be None")
            return compile(model, fullgraph=fullgraph, dynamic=dynamic, backend=backend,
                           mode=mode, options=options, name=name, disable=disable,
                           recompile_limit=recompile_limit,
                           isolate_recompiles=isolate_recompiles, shapes_spec=shapes_spec)
        return decorate
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be "
                           "specified at the same time.")
    if not callable(model):
        raise RuntimeError(f"Expected a callable or a Module to compile, got "
                           f"{type(model).__name__}")
    if not disable and not _warned[0]:
        _warned[0] = True
        warnings.warn(NO_COMPILER, UserWarning, stacklevel=2)
    return model
