"""torch.nn.functional:
interpolate/upsample, grid_sample, affine_grid, pad, pixel_shuffle/unshuffle, channel_shuffle."""

from __future__ import annotations

__all__: list[str] = []
