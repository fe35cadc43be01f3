"""Kernels: upsample, grid_sampler, pixel shuffle."""

from __future__ import annotations
