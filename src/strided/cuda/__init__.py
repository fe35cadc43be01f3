"""``strided.cuda``: what ``torch.cuda`` answers in a build without CUDA.

strided has no CUDA backend, so this namespace tells the truth the way a CPU-only torch
does: ``is_available()`` is False, ``device_count()`` is 0, the seeding functions do
nothing (torch queues them until CUDA initialises, which never happens), memory counters
read 0, and anything that needs a device raises torch's
``AssertionError('Torch not compiled with CUDA enabled')``.

    if strided.cuda.is_available():      # False: the usual guard takes the CPU branch
        ...
"""

from __future__ import annotations

import warnings
from collections import OrderedDict

from . import amp, nvtx  # noqa: F401

__all__ = [
    "Event", "Stream", "StreamContext", "amp", "caching_allocator_alloc",
    "can_device_access_peer", "current_device", "current_stream", "default_stream", "device",
    "device_count", "device_of", "empty_cache", "get_arch_list", "get_device_capability",
    "get_device_name", "get_device_properties", "get_gencode_flags", "get_rng_state",
    "get_rng_state_all", "get_sync_debug_mode", "init", "initial_seed", "ipc_collect",
    "is_available", "is_bf16_supported", "is_current_stream_capturing", "is_initialized",
    "is_tf32_supported", "manual_seed", "manual_seed_all", "max_memory_allocated",
    "max_memory_cached", "max_memory_reserved", "mem_get_info", "memory_allocated",
    "memory_cached", "memory_reserved", "memory_stats", "reset_max_memory_allocated",
    "reset_peak_memory_stats", "seed", "seed_all", "set_device", "set_per_process_memory_fraction",
    "set_rng_state", "set_rng_state_all", "set_stream", "set_sync_debug_mode", "stream",
    "synchronize",
]

_NOT_COMPILED = "Torch not compiled with CUDA enabled"


def _no_cuda():
    raise AssertionError(_NOT_COMPILED)


# -- availability ------------------------------------------------------------------------------

def is_available() -> bool:
    return False


def device_count() -> int:
    return 0


def is_initialized() -> bool:
    return False


def is_bf16_supported(including_emulation: bool = True) -> bool:
    return False


def is_tf32_supported() -> bool:
    return False


def get_arch_list() -> list:
    return []


def get_gencode_flags() -> str:
    return ""


def is_current_stream_capturing() -> bool:
    return False


# -- things that need a device: torch's lazy init fails first ----------------------------------

def init() -> None:
    _no_cuda()


def current_device() -> int:
    _no_cuda()


def synchronize(device=None) -> None:
    _no_cuda()


def get_device_name(device=None) -> str:
    _no_cuda()


def get_device_capability(device=None) -> tuple:
    _no_cuda()


def get_device_properties(device=None):
    _no_cuda()


def can_device_access_peer(device, peer_device) -> bool:
    _no_cuda()


def current_stream(device=None):
    _no_cuda()


def default_stream(device=None):
    _no_cuda()


def ipc_collect() -> None:
    _no_cuda()


def mem_get_info(device=None) -> tuple:
    _no_cuda()


def get_sync_debug_mode() -> int:
    _no_cuda()


def set_sync_debug_mode(debug_mode) -> None:
    _no_cuda()


def caching_allocator_alloc(size, device=None, stream=None):
    _no_cuda()


def set_per_process_memory_fraction(fraction, device=None) -> None:
    _no_cuda()


def initial_seed() -> int:
    _no_cuda()


def get_rng_state(device="cuda"):
    _no_cuda()


def reset_peak_memory_stats(device=None) -> None:
    _no_cuda()


def reset_max_memory_allocated(device=None) -> None:
    _no_cuda()


def set_device(device) -> None:
    """A negative index (or None) selects nothing, as in torch; any real CUDA device fails."""
    index = _device_index(device)
    if index >= 0:
        _no_cuda()


# -- seeding: queued in torch until CUDA starts, so here it does nothing ------------------------

def manual_seed(seed) -> None:
    int(seed)   # torch converts first: a non-number still raises


def manual_seed_all(seed) -> None:
    int(seed)


def seed() -> None:
    return None


def seed_all() -> None:
    return None


def set_rng_state(new_state, device="cuda") -> None:
    return None


def get_rng_state_all() -> list:
    return []


def set_rng_state_all(new_states) -> None:
    for state in new_states:
        set_rng_state(state)


# -- memory counters: nothing is ever allocated on a CUDA device -------------------------------

def memory_allocated(device=None) -> int:
    return 0


def max_memory_allocated(device=None) -> int:
    return 0


def memory_reserved(device=None) -> int:
    return 0


def max_memory_reserved(device=None) -> int:
    return 0


def memory_cached(device=None) -> int:
    warnings.warn("`torch.cuda.memory_cached` has been renamed to `torch.cuda.memory_reserved`",
                  FutureWarning, stacklevel=2)
    return 0


def max_memory_cached(device=None) -> int:
    warnings.warn("`torch.cuda.max_memory_cached` has been renamed to "
                  "`torch.cuda.max_memory_reserved`", FutureWarning, stacklevel=2)
    return 0


def memory_stats(device=None) -> OrderedDict:
    return OrderedDict()


def empty_cache() -> None:
    return None


# -- devices and streams -----------------------------------------------------------------------

def _device_index(device, optional: bool = True) -> int:
    from ..core.devices import device as device_cls
    if device is None:
        return -1
    if isinstance(device, str):
        device = device_cls(device)
    if isinstance(device, device_cls):
        if device.type != "cuda":
            raise ValueError(f"Expected a cuda device, but got: {device}")
        return -1 if device.index is None else device.index
    if isinstance(device, int) and not isinstance(device, bool):
        return device
    raise ValueError(f"Expected a torch.device with a specified index or an integer, but got:"
                     f"{device}")


class device:
    """Context manager selecting a CUDA device; index -1 (or None) selects none and is a
    no-op, any other index fails on entry, as in torch without CUDA."""

    def __init__(self, device):
        self.idx = _device_index(device)
        self.prev_idx = -1

    def __enter__(self):
        if self.idx >= 0:
            raise RuntimeError("PyTorch was compiled without CUDA support")
        return self

    def __exit__(self, *exc):
        return False


class device_of(device):
    """``device`` of a tensor's CUDA device; a CPU tensor selects none."""

    def __init__(self, obj):
        super().__init__(obj.get_device() if getattr(obj, "is_cuda", False) else -1)


class Stream:
    def __new__(cls, *args, **kwargs):
        raise RuntimeError("torch.cuda.Stream requires CUDA support")


class Event:
    def __new__(cls, *args, **kwargs):
        raise RuntimeError("Tried to instantiate dummy base class Event")


class StreamContext:
    """``with strided.cuda.stream(None)`` is a no-op, as in torch; a stream cannot exist."""

    def __init__(self, stream):
        self.stream = stream

    def __enter__(self):
        return self.stream

    def __exit__(self, *exc):
        return False


def stream(stream) -> StreamContext:
    return StreamContext(stream)


def set_stream(stream) -> None:
    return None
