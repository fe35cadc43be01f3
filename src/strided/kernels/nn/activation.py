"""Kernels: activations not in elementwise.py."""

from __future__ import annotations
