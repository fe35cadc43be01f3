"""``strided.accelerator``: torch's device-agnostic accelerator API. strided runs on the CPU
only, so there is no current accelerator: ``is_available()`` is False, ``device_count()``
is 0, and what needs a device raises torch's RuntimeError."""

from __future__ import annotations

__all__ = [
    "current_accelerator", "current_device_idx", "current_device_index", "current_stream",
    "device_count", "device_index", "empty_cache", "is_available", "max_memory_allocated",
    "max_memory_reserved", "memory_allocated", "memory_reserved", "memory_stats",
    "reset_accumulated_memory_stats", "reset_peak_memory_stats", "set_device_idx",
    "set_device_index", "set_stream", "synchronize",
]

_NONE = "Cannot access accelerator device when none is available."


def _none():
    raise RuntimeError(_NONE)


def is_available() -> bool:
    return False


def device_count() -> int:
    return 0


def current_accelerator(check_available: bool = False):
    """The accelerator's device type, None when there is none."""
    return None


def current_device_index() -> int:
    _none()


current_device_idx = current_device_index


def set_device_index(device) -> None:
    _none()


set_device_idx = set_device_index


def current_stream(device=None):
    _none()


def set_stream(stream) -> None:
    _none()


def synchronize(device=None) -> None:
    _none()


def empty_cache() -> None:
    _none()


def memory_stats(device_index=None):
    _none()


def memory_allocated(device_index=None) -> int:
    _none()


def max_memory_allocated(device_index=None) -> int:
    _none()


def memory_reserved(device_index=None) -> int:
    _none()


def max_memory_reserved(device_index=None) -> int:
    _none()


def reset_accumulated_memory_stats(device_index=None) -> None:
    _none()


def reset_peak_memory_stats(device_index=None) -> None:
    _none()


class device_index:
    """Context manager selecting an accelerator device; ``None`` is a no-op."""

    def __init__(self, device, /):
        self.idx = device

    def __enter__(self):
        if self.idx is not None:
            _none()
        return self

    def __exit__(self, *exc):
        return False
