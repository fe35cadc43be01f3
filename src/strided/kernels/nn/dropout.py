"""Kernels: dropout masks."""

from __future__ import annotations
