"""``strided.xpu``: what torch built without XPU answers (device-selection code asks it)."""

from __future__ import annotations

__all__ = ["current_device", "device_count", "empty_cache", "get_device_name", "is_available",
           "is_bf16_supported", "is_initialized", "manual_seed", "manual_seed_all",
           "memory_allocated", "seed", "synchronize"]


def _no_xpu():
    raise AssertionError("Torch not compiled with XPU enabled")


def is_available() -> bool:
    return False


def device_count() -> int:
    return 0


def is_initialized() -> bool:
    return False


def is_bf16_supported(including_emulation: bool = True) -> bool:
    return False


def manual_seed(seed) -> None:
    int(seed)


def manual_seed_all(seed) -> None:
    int(seed)


def seed() -> None:
    return None


def empty_cache() -> None:
    return None


def memory_allocated(device=None) -> int:
    return 0


def current_device() -> int:
    _no_xpu()


def synchronize(device=None) -> None:
    _no_xpu()


def get_device_name(device=None) -> str:
    _no_xpu()
