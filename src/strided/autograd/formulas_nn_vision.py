"""Helpers of the backward formulas of torch.nn's vision and distance operators
(autograd/derivatives/nn_vision.yaml, nn_distance.yaml).

Each calls strided's public operators only (``strided.ops.aten``), so a backward run with
``create_graph=True`` records its own graph (double backward).
"""

from __future__ import annotations

import strided as _s

__all__ = ["aten_call", "grid_sampler_double_backward"]


def aten_call(name, *args):
    """``aten::<name>`` (its default overload) through the dispatcher, autograd included."""
    return getattr(_s.ops.aten, name).default(*args)


def grid_sampler_double_backward(ggI, ggG, grad_output, input, grid, mode, padding_mode,
                                 align_corners, k):
    """The backward of ``grid_sampler_{k}d_backward`` along its input-gradient path: the
    input gradient is ``S(grid)^T grad_output``, linear in grad_output and free of input,
    so its cotangent ``ggI`` reaches grad_output as the forward ``S(grid) ggI`` and the
    grid as the grid gradient of ``<S(grid) ggI, grad_output>``. A nonzero cotangent of
    the grid gradient (its second derivatives) is not implemented."""
    if ggG is not None and bool((ggG != 0).any()):
        raise RuntimeError(
            f"the derivative for 'grid_sampler_{k}d_backward' with respect to the grid "
            f"gradient is not implemented.")
    name = f"grid_sampler_{k}d"
    r_go = aten_call(name, ggI, grid, mode, padding_mode, align_corners)
    r_grid = aten_call(name + "_backward", grad_output, ggI, grid, mode, padding_mode,
                       align_corners, [False, True])[1]
    return r_go, None, r_grid
