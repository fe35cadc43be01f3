"""Kernels: pdist, cdist."""

from __future__ import annotations
