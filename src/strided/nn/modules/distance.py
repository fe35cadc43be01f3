"""torch.nn.modules.distance: PairwiseDistance, CosineSimilarity."""

from __future__ import annotations

__all__: list[str] = []
