"""Kernels of torch's statistics and calculus ops: ``cov``, ``corrcoef``, ``diff``,
``gradient``, the trapezoid family, ``histogram`` / ``histogramdd`` and ``vander``."""

from __future__ import annotations
