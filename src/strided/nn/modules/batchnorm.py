"""torch.nn.modules.batchnorm: BatchNorm1d/2d/3d, LazyBatchNorm*, SyncBatchNorm."""

from __future__ import annotations

__all__: list[str] = []
