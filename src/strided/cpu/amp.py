"""``strided.cpu.amp``: torch's deprecated CPU spellings of ``strided.amp`` (each warns)."""

from __future__ import annotations

import warnings

from ..amp import GradScaler as _GradScaler
from ..amp import autocast as _autocast
from ..core import dtypes as _dt

__all__ = ["GradScaler", "autocast"]


class autocast(_autocast):
    """``strided.amp.autocast('cpu', ...)`` under torch's old name."""

    def __init__(self, enabled: bool = True, dtype=_dt.bfloat16, cache_enabled: bool = True):
        warnings.warn("`torch.cpu.amp.autocast(args...)` is deprecated. Please use "
                      "`torch.amp.autocast('cpu', args...)` instead.", FutureWarning,
                      stacklevel=2)
        super().__init__("cpu", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


class GradScaler(_GradScaler):
    """``strided.amp.GradScaler('cpu', ...)`` under torch's old name."""

    def __init__(self, init_scale: float = 2.0**16, growth_factor: float = 2.0,
                 backoff_factor: float = 0.5, growth_interval: int = 2000,
                 enabled: bool = True) -> None:
        warnings.warn("`torch.cpu.amp.GradScaler(args...)` is deprecated. Please use "
                      "`torch.amp.GradScaler('cpu', args...)` instead.", FutureWarning,
                      stacklevel=2)
        super().__init__("cpu", init_scale=init_scale, growth_factor=growth_factor,
                         backoff_factor=backoff_factor, growth_interval=growth_interval,
                         enabled=enabled)
