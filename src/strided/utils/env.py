"""Process-wide switches of torch's top-level namespace: matmul precision, deterministic
algorithms, thread counts and the default device.

strided's kernels are NumPy calls, so none of these changes a result: float32 matmuls are
always computed in float32 ("highest"), every kernel is deterministic, and NumPy's BLAS
picks its own threads. The switches still keep and report what a program sets, with
torch's checks and messages, because programs set and read them.
"""

from __future__ import annotations

import os
import warnings

__all__ = [
    "are_deterministic_algorithms_enabled", "get_default_device", "get_deterministic_debug_mode",
    "get_float32_matmul_precision", "get_num_interop_threads", "get_num_threads",
    "is_deterministic_algorithms_warn_only_enabled", "set_default_device",
    "set_deterministic_debug_mode", "set_float32_matmul_precision", "set_num_interop_threads",
    "set_num_threads", "use_deterministic_algorithms",
]


def _cpu_count() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


class _Env:
    matmul_precision = "highest"
    matmul_fp32_precision = "none"     # torch 2.9's backend-level spelling, until set
    deterministic = False
    deterministic_warn_only = False
    fill_uninitialized_memory = True       # torch.utils.deterministic's switch
    num_threads = _cpu_count()
    num_interop_threads = _cpu_count()


ENV = _Env()


# -- float32 matmul precision ------------------------------------------------------------------

def get_float32_matmul_precision() -> str:
    return ENV.matmul_precision


def set_float32_matmul_precision(precision: str) -> None:
    """'highest' (the default), 'high' or 'medium'; an unknown string warns and changes
    nothing, as torch's does. (strided computes float32 matmuls in float32 whatever is set.)"""
    if not isinstance(precision, str):
        raise RuntimeError(f"set_float32_matmul_precision expects a str, but got "
                           f"{type(precision).__name__}")
    if precision not in ("highest", "high", "medium"):
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
                      f"setFloat32MatmulPrecision call has no effect.", UserWarning,
                      stacklevel=2)
        return
    ENV.matmul_precision = precision
    ENV.matmul_fp32_precision = "ieee" if precision == "highest" else "tf32"


# -- deterministic algorithms ------------------------------------------------------------------

def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """Record the request: every strided kernel is already deterministic, so nothing raises
    or warns under it except ``put_`` without ``accumulate`` (as torch's CPU kernels); while
    it is on, memory handed out uninitialised is filled (``strided.utils.deterministic``)."""
    if mode is not True and mode is not False:
        raise TypeError(f"_set_deterministic_algorithms(): argument 'mode' (position 1) must "
                        f"be bool, not {type(mode).__name__}")
    if warn_only is not True and warn_only is not False:
        raise TypeError(f"_set_deterministic_algorithms(): argument 'warn_only' must be bool, "
                        f"not {type(warn_only).__name__}")
    ENV.deterministic = mode
    ENV.deterministic_warn_only = warn_only
    _sync_fill()


def _sync_fill() -> None:
    from ..kernels import factory
    factory.FILL_UNINITIALIZED[0] = ENV.deterministic and ENV.fill_uninitialized_memory
    factory.DETERMINISTIC[:] = [ENV.deterministic, ENV.deterministic_warn_only]


def are_deterministic_algorithms_enabled() -> bool:
    return ENV.deterministic


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    return ENV.deterministic_warn_only


def set_deterministic_debug_mode(debug_mode) -> None:
    """0/'default': off; 1/'warn': deterministic, warn only; 2/'error': deterministic."""
    if isinstance(debug_mode, str):
        names = {"default": 0, "warn": 1, "error": 2}
        if debug_mode not in names:
            raise RuntimeError(f"invalid value of debug_mode, expected one of `default`, "
                               f"`warn`, `error`, but got {debug_mode}")
        debug_mode = names[debug_mode]
    elif not isinstance(debug_mode, int) or isinstance(debug_mode, bool):
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    if debug_mode == 0:
        use_deterministic_algorithms(False)
    elif debug_mode == 1:
        use_deterministic_algorithms(True, warn_only=True)
    elif debug_mode == 2:
        use_deterministic_algorithms(True)
    else:
        raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got "
                           f"{debug_mode}")


def get_deterministic_debug_mode() -> int:
    if not ENV.deterministic:
        return 0
    return 1 if ENV.deterministic_warn_only else 2


# -- threads -----------------------------------------------------------------------------------

def _check_threads(name: str, n) -> int:
    if not isinstance(n, int) or isinstance(n, bool):
        raise RuntimeError(f"{name} expects an int, but got {type(n).__name__}")
    if n <= 0:
        raise RuntimeError(f"{name} expects a positive integer")
    return n


def get_num_threads() -> int:
    return ENV.num_threads


def set_num_threads(n: int) -> None:
    """Recorded and reported; the kernels run NumPy, whose BLAS chooses its own threads."""
    ENV.num_threads = _check_threads("set_num_threads", n)


def get_num_interop_threads() -> int:
    return ENV.num_interop_threads


def set_num_interop_threads(n: int) -> None:
    ENV.num_interop_threads = _check_threads("set_num_interop_threads", n)


# -- the default device ------------------------------------------------------------------------

def get_default_device():
    from ..core.devices import default_device
    return default_device()


def set_default_device(device) -> None:
    """The device factories use when given none: 'cpu' (the default) or 'meta'; None resets
    it. A CUDA device fails as in torch without CUDA."""
    from ..core.devices import CPU, set_default
    from ..core.devices import device as device_cls
    if device is None:
        set_default(CPU)
        return
    if not isinstance(device, device_cls):
        device = device_cls(device)
    if device.type == "cuda":
        raise AssertionError("Torch not compiled with CUDA enabled")
    if device.type not in ("cpu", "meta"):
        raise RuntimeError(f"strided has no '{device.type}' backend: the default device can be "
                           f"'cpu' or 'meta'")
    set_default(device)
