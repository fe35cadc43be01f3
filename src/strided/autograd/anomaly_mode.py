"""Anomaly detection: ``detect_anomaly()`` / ``set_detect_anomaly(True)``.

While it is on, every node records the stack of the forward call that made it; when that
node's backward raises, the engine warns with that stack before re-raising. With
``check_nan`` (the default) a node whose backward returns NaN raises torch's error
naming the node and the output index.

The setting is one for the whole process, not per thread: torch keeps it in a static
flag (unlike grad mode, Note [Per-thread grad mode] in grad_mode.py), so a thread sees,
and changes, what every other thread sees.
"""

from __future__ import annotations

import os
import traceback
import warnings

__all__ = ["detect_anomaly", "is_anomaly_check_nan_enabled", "is_anomaly_enabled",
           "set_detect_anomaly"]

_STATE = {"enabled": False, "check_nan": True}


def is_enabled() -> bool:
    return _STATE["enabled"]


def checks_nan() -> bool:
    return _STATE["enabled"] and _STATE["check_nan"]


is_anomaly_enabled = is_enabled


def is_anomaly_check_nan_enabled() -> bool:
    return _STATE["check_nan"]


def record_trace(node) -> None:
    """Called by the autograd kernels for each new node while anomaly mode is on."""
    frames = [f for f in traceback.extract_stack()
              if f"{os.sep}strided{os.sep}autograd{os.sep}" not in f.filename]
    node._anomaly_trace = "".join(traceback.format_list(frames))


def check_outputs(node, outputs) -> None:
    for i, g in enumerate(outputs):
        if g is not None and (g._dtype.is_floating_point or g._dtype.is_complex) and \
                bool(g.isnan().any()):
            raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th "
                               f"output.")


class set_detect_anomaly:
    """``set_detect_anomaly(mode, check_nan=True)``: on or off at once; restores the
    previous setting when used as a context manager."""

    def __init__(self, mode: bool, check_nan: bool = True):
        self.prev = dict(_STATE)
        _STATE["enabled"] = mode
        _STATE["check_nan"] = check_nan

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        _STATE.update(self.prev)
        return False


class detect_anomaly:
    """Context manager (and decorator) turning anomaly detection on inside."""

    def __init__(self, check_nan: bool = True):
        self.check_nan = check_nan
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the "
                      "runtime and should only be enabled for debugging.", stacklevel=2)

    def __enter__(self):
        self.prev = dict(_STATE)
        _STATE["enabled"] = True
        _STATE["check_nan"] = self.check_nan

    def __exit__(self, *exc):
        _STATE.update(self.prev)
        return False

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with detect_anomaly(self.check_nan):
                return fn(*args, **kwargs)
        return wrapper
