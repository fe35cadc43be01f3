"""torch.nn.modules.normalization:
LayerNorm, GroupNorm, LocalResponseNorm, RMSNorm, CrossMapLRN2d."""

from __future__ import annotations

__all__: list[str] = []
