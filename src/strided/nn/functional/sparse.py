"""torch.nn.functional: embedding, embedding_bag, one_hot."""

from __future__ import annotations

__all__: list[str] = []
