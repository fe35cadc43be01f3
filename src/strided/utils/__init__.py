"""strided.utils: dlpack, explain, hooks, data (imported on first use, as its
worker machinery is not needed by every program)."""


def __getattr__(name):
    if name in ("data", "deterministic"):
        import importlib

        return importlib.import_module("." + name, __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
