"""The arithmetic of SGD's plain update, ``param += alpha * grad``, on NumPy arrays (Note
[SGD's plain update without the iterator] in optim/sgd.py). Not a registered kernel module:
the optimizer calls it directly on the arrays of tensors it has checked.

torch's CPU ``add_(grad, alpha=a)`` on float32 is a fused multiply-add in float32 (one
rounding of ``param + float32(a) * grad``). The product of two float32 numbers is exact in
float64 and the float64 sum rounds once before the final rounding to float32: the same
bits as the fused operation but for rare double-rounding ties, as ``elementwise._add``
computes it too. Here the float64 temporary is a slice of one per-thread buffer, and the
four passes (widen, scale, add, narrow) run without the general kernel's checks: for a
bias of a few hundred elements those checks cost more than the arithmetic.
"""

from __future__ import annotations

import threading

import numpy as np

_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)
_WIDE = threading.local()


def _wide(n: int) -> np.ndarray:
    flat = getattr(_WIDE, "flat", None)
    if flat is None or flat.size < n:
        flat = _WIDE.flat = np.empty(n, _F64)
    return flat[:n]


def add_scaled_f32_(param: np.ndarray, grad: np.ndarray, alpha: float) -> None:
    """``param += alpha * grad`` for two row-major float32 arrays of one shape, rounded as
    torch's fused multiply-add (see the module docstring)."""
    wide = _wide(param.size).reshape(param.shape)
    np.copyto(wide, grad)
    np.multiply(wide, float(np.float32(alpha)), out=wide)
    np.add(wide, param, out=wide)
    np.copyto(param, wide, casting="unsafe")
