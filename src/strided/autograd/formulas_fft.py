"""Helpers of the FFT backward formulas (autograd/derivatives/fft.yaml).

Written with public strided ops, so a backward run with ``create_graph=True`` records its
own graph (double backward goes through the FFT primitives again).
"""

from __future__ import annotations

import strided as _s

__all__ = ["fft_c2c_backward", "fft_c2r_backward", "fft_r2c_backward"]


def _wrap(d, ndim):
    return d + ndim if d < 0 else d


def fft_r2c_backward(grad, dim, normalization, onesided, last_dim_size):
    """The adjoint of a real-to-complex transform. A onesided r2c is a c2c of the real
    signal with the upper half of the spectrum dropped, so its adjoint zero-fills that
    half, runs the inverse c2c and keeps the real part."""
    if onesided:
        last = _wrap(dim[-1], grad.dim())
        missing = last_dim_size - grad.shape[last]
        if missing > 0:
            pad = [0] * (2 * grad.dim())
            pad[2 * (grad.dim() - 1 - last) + 1] = missing
            grad = _s.constant_pad_nd(grad, pad)
    return _s.real(_s._fft_c2c(grad, dim, normalization, False))


def fft_c2r_backward(grad, dim, normalization):
    """The adjoint of a complex-to-real transform. The c2r fills the missing half by
    Hermitian symmetry, so the bins that stand for two (every one but the first and, for an
    even length, the last) receive twice the onesided r2c of ``grad``."""
    gi = _s._fft_r2c(grad, dim, normalization, True)
    last = _wrap(dim[-1], grad.dim())
    double = grad.shape[last] - gi.shape[last]
    if double > 0:
        scale = _s.ones(gi.shape[last], dtype=gi.dtype.to_real())
        scale[1:1 + double] = 2
        shape = [1] * gi.dim()
        shape[last] = gi.shape[last]
        gi = gi * scale.reshape(shape)
    return gi


def fft_c2c_backward(grad, dim, normalization, forward):
    """The adjoint of a c2c transform is the transform the other way, same scaling."""
    return _s._fft_c2c(grad, dim, normalization, not forward)
