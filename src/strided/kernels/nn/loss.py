"""Kernels: losses."""

from __future__ import annotations
