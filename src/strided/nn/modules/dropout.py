"""torch.nn.modules.dropout: Dropout, Dropout1d/2d/3d, AlphaDropout, FeatureAlphaDropout."""

from __future__ import annotations

__all__: list[str] = []
