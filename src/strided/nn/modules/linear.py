"""torch.nn.modules.linear: Identity, Linear, Bilinear, LazyLinear."""

from __future__ import annotations

__all__: list[str] = []
