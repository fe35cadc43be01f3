"""torch.nn.functional: linear, bilinear."""

from __future__ import annotations

__all__: list[str] = []
