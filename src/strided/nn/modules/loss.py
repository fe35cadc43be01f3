"""torch.nn.modules.loss: every loss layer."""

from __future__ import annotations

__all__: list[str] = []
