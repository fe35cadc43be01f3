"""torch.nn.modules.lazy: LazyModuleMixin."""

from __future__ import annotations

__all__: list[str] = []
