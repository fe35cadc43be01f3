"""``strided.cpu``: torch's ``torch.cpu`` device module (the CPU as a device type)."""

from __future__ import annotations

from . import amp  # noqa: F401

__all__ = ["Stream", "StreamContext", "current_device", "current_stream", "device_count",
           "is_available", "is_initialized", "set_device", "stream", "synchronize"]


def is_available() -> bool:
    return True


def is_initialized() -> bool:
    return True


def device_count() -> int:
    return 1


def current_device() -> str:
    return "cpu"


def set_device(device) -> None:
    return None


def synchronize(device=None) -> None:
    """Nothing to wait for: CPU work is done when the call returns."""
    return None


class Stream:
    """The CPU's one stream: work on it is already done when queried."""

    def __init__(self, priority: int = -1) -> None:
        pass

    def wait_stream(self, stream) -> None:
        pass

    def query(self) -> bool:
        return True

    def synchronize(self) -> None:
        pass


_STREAM = Stream()


def current_stream(device=None) -> Stream:
    return _STREAM


class StreamContext:
    def __init__(self, stream) -> None:
        self.stream = stream

    def __enter__(self):
        return self.stream

    def __exit__(self, *exc):
        return False


def stream(stream) -> StreamContext:
    return StreamContext(stream)
