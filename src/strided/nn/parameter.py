"""torch.nn.parameter: Parameter, Buffer, UninitializedParameter, UninitializedBuffer."""

from __future__ import annotations

__all__: list[str] = []
