"""torch.nn.modules.pixelshuffle: PixelShuffle, PixelUnshuffle."""

from __future__ import annotations

__all__: list[str] = []
