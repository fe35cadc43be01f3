"""torch.nn.modules.module: Module: registration, traversal, state_dict, hooks, repr."""

from __future__ import annotations

__all__: list[str] = []
