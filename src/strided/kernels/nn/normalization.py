"""Kernels: batch/layer/group norm."""

from __future__ import annotations
