"""Kernels: pooling."""

from __future__ import annotations
