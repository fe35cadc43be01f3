"""torch.nn.functional: every loss function."""

from __future__ import annotations

__all__: list[str] = []
