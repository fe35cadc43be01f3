"""torch.nn.modules.sparse: Embedding, EmbeddingBag."""

from __future__ import annotations

__all__: list[str] = []
