"""torch.nn.modules.padding: the padding layers."""

from __future__ import annotations

__all__: list[str] = []
