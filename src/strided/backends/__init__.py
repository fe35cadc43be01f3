"""``strided.backends``: the backend switches torch exposes, answered for a CPU library.

strided computes with NumPy; it has no cuDNN, MPS, oneDNN (mkldnn) or CUDA, so each
``is_available()`` is False, while the flags programs set (``cudnn.benchmark = True``,
``backends.cuda.matmul.allow_tf32 = True``) exist with torch's defaults and keep what is
set, and the ``flags(...)`` context managers restore them on exit.

After ``disable_global_flags()`` a flag can only be changed inside its ``flags()`` context,
as in torch.
"""

from __future__ import annotations

import types
from contextlib import contextmanager

__all__ = ["cpu", "cuda", "cudnn", "disable_global_flags", "flags", "flags_frozen", "mkl",
           "mkldnn", "mps", "openmp", "opt_einsum"]

_mutable = [True]


def disable_global_flags() -> None:
    _mutable[0] = False


def flags_frozen() -> bool:
    return not _mutable[0]


@contextmanager
def _allow_mutation():
    old = _mutable[0]
    _mutable[0] = True
    try:
        yield
    finally:
        _mutable[0] = old


class FlagModule(types.ModuleType):
    """A backend module whose flags (``_FLAGS``) are frozen by ``disable_global_flags`` and
    may have a validating setter ``_set_<name>``."""

    def __setattr__(self, name, value):
        if name in self.__dict__.get("_FLAGS", ()):
            if flags_frozen():
                name = self.__name__.replace("strided.", "torch.", 1)
                raise RuntimeError(f"not allowed to set {name} flags after "
                                   f"disable_global_flags; please use flags() context manager "
                                   f"instead")
            setter = self.__dict__.get(f"_set_{name}")
            if setter is not None:
                value = setter(value)
        super().__setattr__(name, value)


def _flag_module(name: str) -> None:
    import sys
    sys.modules[name].__class__ = FlagModule


def _set_flags(module, **values) -> tuple:
    """Set the flags given (None: unchanged) bypassing the freeze; return the old values."""
    old = {k: getattr(module, k) for k in values}
    with _allow_mutation():
        for k, v in values.items():
            if v is not None:
                setattr(module, k, v)
    return old


@contextmanager
def _flags_context(module, **values):
    old = _set_flags(module, **values)
    try:
        yield
    finally:
        with _allow_mutation():
            for k, v in old.items():
                setattr(module, k, v)


fp32_precision = "none"
_FLAGS = ("fp32_precision",)


def _set_fp32_precision(value):
    if value not in ("none", "ieee", "tf32"):
        raise RuntimeError(f"{value} is not supported for fp32_precision (choose one of "
                           f"'none', 'ieee', 'tf32')")
    return value


def flags(fp32_precision="none"):
    import sys
    return _flags_context(sys.modules[__name__], fp32_precision=fp32_precision)


_flag_module(__name__)

from . import cpu, cuda, cudnn, mkl, mkldnn, mps, openmp, opt_einsum  # noqa: E402
