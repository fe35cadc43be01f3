"""torch.nn.init: the initialisation functions, drawing exactly what torch draws."""

from __future__ import annotations

__all__: list[str] = []
