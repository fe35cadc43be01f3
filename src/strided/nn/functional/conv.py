"""torch.nn.functional: conv1d/2d/3d, conv_transpose1d/2d/3d, fold, unfold."""

from __future__ import annotations

__all__: list[str] = []
