"""torch.nn.modules.container: Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict."""

from __future__ import annotations

__all__: list[str] = []
