"""``strided.cuda.nvtx``: NVTX ranges need a CUDA build; every call fails as torch's does."""

from __future__ import annotations

from contextlib import contextmanager

__all__ = ["mark", "range", "range_end", "range_pop", "range_push", "range_start"]


def _fail(*args, **kwargs):
    raise RuntimeError("NVTX functions not installed. Are you sure you have a CUDA build?")


range_push = range_pop = range_start = range_end = mark = _fail


@contextmanager
def range(msg, *args, **kwargs):  # noqa: A001 - torch's name
    range_push(msg.format(*args, **kwargs))
    try:
        yield
    finally:
        range_pop()
