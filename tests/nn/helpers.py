"""Helpers the tests/nn files share: the same NumPy data as a strided and a torch leaf, and
a channels-last copy of a batched image."""

from __future__ import annotations

import torch

import strided


def both_from_numpy(arr, requires_grad=False):
    """``arr`` as a (strided, torch) pair of independent leaves (each its own copy)."""
    s = strided.from_numpy(arr.copy()).requires_grad_(requires_grad)
    t = torch.from_numpy(arr.copy()).requires_grad_(requires_grad)
    return s, t


def channels_last_copy(x):
    """A channels-last copy of x (N, C, *spatial) in either library: same sizes, the
    channels dim innermost in memory."""
    perm = (0,) + tuple(range(2, x.dim())) + (1,)
    back = (0, x.dim() - 1) + tuple(range(1, x.dim() - 1))
    return x.permute(perm).contiguous().permute(back)
