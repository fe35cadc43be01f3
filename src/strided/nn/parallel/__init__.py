"""``strided.nn.parallel``: DataParallel. With no GPU, torch's DataParallel wraps the module
and calls it directly; so does this one."""

from __future__ import annotations

from .data_parallel import DataParallel, data_parallel

__all__ = ["DataParallel", "data_parallel"]
