"""Kernels: embedding, embedding_bag."""

from __future__ import annotations
