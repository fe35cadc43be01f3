"""torch.nn.modules.activation: every activation layer."""

from __future__ import annotations

__all__: list[str] = []
