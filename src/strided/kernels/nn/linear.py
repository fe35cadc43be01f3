"""Kernels: linear/bilinear."""

from __future__ import annotations
