"""torch.nn.functional: max/avg/adaptive/lp/fractional pooling and max_unpool."""

from __future__ import annotations

__all__: list[str] = []
