"""``strided.amp``: automatic mixed precision (``autocast`` regions, ``GradScaler``)."""

from __future__ import annotations

from .autocast_mode import (  # noqa: F401
    _enter_autocast,
    _exit_autocast,
    autocast,
    custom_bwd,
    custom_fwd,
    is_autocast_available,
)
from .grad_scaler import GradScaler

__all__ = ["GradScaler", "autocast", "custom_bwd", "custom_fwd", "is_autocast_available"]
