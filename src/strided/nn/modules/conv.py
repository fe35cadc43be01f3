"""torch.nn.modules.conv: Conv1d/2d/3d, ConvTranspose1d/2d/3d and their Lazy forms."""

from __future__ import annotations

__all__: list[str] = []
