"""torch.nn.modules.pooling: every pooling layer."""

from __future__ import annotations

__all__: list[str] = []
