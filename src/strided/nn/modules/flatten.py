"""torch.nn.modules.flatten: Flatten, Unflatten."""

from __future__ import annotations

__all__: list[str] = []
