"""``strided.compiler``: torch.compiler's switches. Nothing is ever being compiled or
exported, so the predicates are False and the decorators return what they decorate."""

from __future__ import annotations

from ._compile import compile  # noqa: F401

__all__ = ["allow_in_graph", "assume_constant_result", "compile", "disable", "is_compiling",
           "is_dynamo_compiling", "is_exporting", "reset", "set_stance"]


def is_compiling() -> bool:
    return False


def is_dynamo_compiling() -> bool:
    return False


def is_exporting() -> bool:
    return False


def reset() -> None:
    return None


def disable(fn=None, recursive: bool = True, *, reason: str | None = None):
    """Marks ``fn`` as never to be compiled: it is returned as it is (usable bare or with
    arguments, as a decorator)."""
    if fn is None:
        return lambda f: f
    return fn


def allow_in_graph(fn):
    return fn


def assume_constant_result(fn):
    return fn


def set_stance(stance: str = "default", *, skip_guard_eval_unsafe: bool = False,
               force_backend=None):
    """Accepted; with no compiler the stance changes nothing. Usable as a decorator or a
    context manager, like torch's."""
    class _Stance:
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def __call__(self, fn):
            return fn
    return _Stance()
