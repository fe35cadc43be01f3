"""Helpers of the backward formulas of torch.nn's vision and distance operators
(autograd/derivatives/nn_vision.yaml, nn_distance.yaml).

Each calls strided's public operators only (``strided.ops.aten``), so a backward run with
``create_graph=True`` records its own graph (double backward).
"""

from __future__ import annotations

import strided as _s

__all__ = ["aten_call"]


def aten_call(name, *args):
    """``aten::<name>`` (its default overload) through the dispatcher, autograd included."""
    return getattr(_s.ops.aten, name).default(*args)
