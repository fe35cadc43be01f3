"""``strided.backends.cudnn``: there is no cuDNN; the flags keep torch's defaults and what is
set (``benchmark = True`` is accepted and has nothing to tune)."""

from __future__ import annotations

import sys

from . import _flag_module, _flags_context

__all__ = ["allow_tf32", "benchmark", "benchmark_limit", "deterministic", "enabled", "flags",
           "is_acceptable", "is_available", "version"]

enabled = True
benchmark = False
benchmark_limit = None
deterministic = False
allow_tf32 = True
fp32_precision = "none"
_FLAGS = ("enabled", "benchmark", "deterministic", "allow_tf32", "fp32_precision")


def is_available() -> bool:
    return False


def version():
    """The cuDNN version, None without cuDNN."""
    return None


def is_acceptable(tensor) -> bool:
    return False


def set_flags(_enabled=None, _benchmark=None, _benchmark_limit=None, _deterministic=None,
              _allow_tf32=None, _fp32_precision="none"):
    module = sys.modules[__name__]
    from . import _set_flags
    old = _set_flags(module, enabled=_enabled, benchmark=_benchmark, deterministic=_deterministic,
                     allow_tf32=_allow_tf32, fp32_precision=_fp32_precision)
    return (old["enabled"], old["benchmark"], None, old["deterministic"], old["allow_tf32"],
            old["fp32_precision"])


def flags(enabled=False, benchmark=False, benchmark_limit=10, deterministic=False,
          allow_tf32=True, fp32_precision="none"):
    """Set the flags for a ``with`` block and restore them after (torch's defaults here are
    the context's, not the module's: ``flags()`` turns cuDNN off)."""
    return _flags_context(sys.modules[__name__], enabled=enabled, benchmark=benchmark,
                          deterministic=deterministic, allow_tf32=allow_tf32,
                          fp32_precision=fp32_precision)


_flag_module(__name__)
