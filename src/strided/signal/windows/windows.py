"""torch.signal.windows: window functions built from strided's public ops.

Each window is sampled on a ``linspace`` grid and mapped through an elementwise formula,
the way torch builds them, so values, dtypes and ``requires_grad`` follow torch's. ``sym``
(default True) gives the symmetric window used for filter design; ``sym=False`` the
periodic one used for spectral analysis (the symmetric window of ``M + 1`` points without
its last point).

    >>> import strided as torch
    >>> torch.signal.windows.hann(5)
    tensor([0.0000, 0.5000, 1.0000, 0.5000, 0.0000])
"""

from __future__ import annotations

from collections.abc import Iterable
from math import pi, sqrt

import strided as _s

__all__ = [
    "bartlett",
    "blackman",
    "cosine",
    "exponential",
    "gaussian",
    "general_cosine",
    "general_hamming",
    "hamming",
    "hann",
    "kaiser",
    "nuttall",
]


def _checks(name, M, dtype, layout):
    if M < 0:
        raise ValueError(f"{name} requires non-negative window length, got M={M}")
    if layout is not _s.strided:
        raise ValueError(f"{name} is implemented for strided tensors only, got: {layout}")
    if dtype not in (_s.float32, _s.float64):
        raise ValueError(f"{name} expects float32 or float64 dtypes, got: {dtype}")


def _dtype(dtype):
    return _s.get_default_dtype() if dtype is None else dtype


def _trivial(M, dtype, layout, device, requires_grad, one=True):
    """The window of 0 points (and of 1 point when ``one``), or None."""
    if M == 0:
        return _s.empty((0,), dtype=dtype, layout=layout, device=device,
                        requires_grad=requires_grad)
    if one and M == 1:
        return _s.ones((1,), dtype=dtype, layout=layout, device=device,
                       requires_grad=requires_grad)
    return None


def _grid(start, end, M, dtype, layout, device, requires_grad):
    return _s.linspace(start=start, end=end, steps=M, dtype=dtype, layout=layout,
                       device=device, requires_grad=requires_grad)


def exponential(M: int, *, center: float | None = None, tau: float = 1.0, sym: bool = True,
                dtype=None, layout=_s.strided, device=None, requires_grad: bool = False):
    """``exp(-|n - center| / tau)``; ``center`` defaults to the middle of the window."""
    dtype = _dtype(dtype)
    _checks("exponential", M, dtype, layout)
    if tau <= 0:
        raise ValueError(f"Tau must be positive, got: {tau} instead.")
    if sym and center is not None:
        raise ValueError("Center must be None for symmetric windows")
    empty = _trivial(M, dtype, layout, device, requires_grad, one=False)
    if empty is not None:
        return empty
    if center is None:
        center = (M if not sym and M > 1 else M - 1) / 2.0
    inv = 1 / tau
    k = _grid(-center * inv, (-center + (M - 1)) * inv, M, dtype, layout, device,
              requires_grad)
    return _s.exp(-_s.abs(k))


def cosine(M: int, *, sym: bool = True, dtype=None, layout=_s.strided, device=None,
           requires_grad: bool = False):
    """The sine window ``sin(pi (n + 1/2) / M)``."""
    dtype = _dtype(dtype)
    _checks("cosine", M, dtype, layout)
    empty = _trivial(M, dtype, layout, device, requires_grad, one=False)
    if empty is not None:
        return empty
    step = pi / (M + 1 if not sym and M > 1 else M)
    k = _grid(0.5 * step, (0.5 + (M - 1)) * step, M, dtype, layout, device, requires_grad)
    return _s.sin(k)


def gaussian(M: int, *, std: float = 1.0, sym: bool = True, dtype=None, layout=_s.strided,
             device=None, requires_grad: bool = False):
    """``exp(-(n - center)^2 / (2 std^2))``."""
    dtype = _dtype(dtype)
    _checks("gaussian", M, dtype, layout)
    if std <= 0:
        raise ValueError(f"Standard deviation must be positive, got: {std} instead.")
    empty = _trivial(M, dtype, layout, device, requires_grad, one=False)
    if empty is not None:
        return empty
    start = -(M if not sym and M > 1 else M - 1) / 2.0
    scale = 1 / (std * sqrt(2))
    k = _grid(start * scale, (start + (M - 1)) * scale, M, dtype, layout, device,
              requires_grad)
    return _s.exp(-(k ** 2))


def _i0(t):
    fn = getattr(_s, "i0", None)
    if fn is None:
        fn = _s.special.i0
    return fn(t)


def kaiser(M: int, *, beta: float = 12.0, sym: bool = True, dtype=None, layout=_s.strided,
           device=None, requires_grad: bool = False):
    """``I0(beta sqrt(1 - (2n / (M - 1) - 1)^2)) / I0(beta)``."""
    dtype = _dtype(dtype)
    _checks("kaiser", M, dtype, layout)
    if beta < 0:
        raise ValueError(f"beta must be non-negative, got: {beta} instead.")
    trivial = _trivial(M, dtype, layout, device, requires_grad)
    if trivial is not None:
        return trivial
    b = _s.tensor(beta, dtype=dtype, device=device)
    start = -b
    step = 2.0 * b / (M if not sym else M - 1)
    end = _s.minimum(b, start + (M - 1) * step)
    k = _grid(start, end, M, dtype, layout, device, requires_grad)
    return _i0(_s.sqrt(b * b - _s.pow(k, 2))) / _i0(b)


def hamming(M: int, *, sym: bool = True, dtype=None, layout=_s.strided, device=None,
            requires_grad: bool = False):
    """``general_hamming`` with ``alpha = 0.54``."""
    return general_hamming(M, sym=sym, dtype=dtype, layout=layout, device=device,
                           requires_grad=requires_grad)


def hann(M: int, *, sym: bool = True, dtype=None, layout=_s.strided, device=None,
         requires_grad: bool = False):
    """``general_hamming`` with ``alpha = 0.5``."""
    return general_hamming(M, alpha=0.5, sym=sym, dtype=dtype, layout=layout, device=device,
                           requires_grad=requires_grad)


def blackman(M: int, *, sym: bool = True, dtype=None, layout=_s.strided, device=None,
             requires_grad: bool = False):
    """``general_cosine`` with the coefficients 0.42, 0.5, 0.08."""
    dtype = _dtype(dtype)
    _checks("blackman", M, dtype, layout)
    return general_cosine(M, a=[0.42, 0.5, 0.08], sym=sym, dtype=dtype, layout=layout,
                          device=device, requires_grad=requires_grad)


def bartlett(M: int, *, sym: bool = True, dtype=None, layout=_s.strided, device=None,
             requires_grad: bool = False):
    """The triangular window ``1 - |2n / (M - 1) - 1|``."""
    dtype = _dtype(dtype)
    _checks("bartlett", M, dtype, layout)
    trivial = _trivial(M, dtype, layout, device, requires_grad)
    if trivial is not None:
        return trivial
    step = 2 / (M if not sym else M - 1)
    k = _grid(-1, -1 + (M - 1) * step, M, dtype, layout, device, requires_grad)
    return 1 - _s.abs(k)


def general_cosine(M, *, a: Iterable, sym: bool = True, dtype=None, layout=_s.strided,
                   device=None, requires_grad: bool = False):
    """``sum_i (-1)^i a_i cos(2 pi i n / (M - 1))``."""
    dtype = _dtype(dtype)
    _checks("general_cosine", M, dtype, layout)
    trivial = _trivial(M, dtype, layout, device, requires_grad)
    if trivial is not None:
        return trivial
    if not isinstance(a, Iterable):
        raise TypeError("Coefficients must be a list/tuple")
    if not a:
        raise ValueError("Coefficients cannot be empty")
    step = 2 * pi / (M if not sym else M - 1)
    k = _grid(0, (M - 1) * step, M, dtype, layout, device, requires_grad)
    coeffs = _s.tensor([(-1) ** i * w for i, w in enumerate(a)], device=device, dtype=dtype,
                       requires_grad=requires_grad)
    i = _s.arange(coeffs.shape[0], dtype=coeffs.dtype, device=coeffs.device,
                  requires_grad=coeffs.requires_grad)
    return (coeffs.unsqueeze(-1) * _s.cos(i.unsqueeze(-1) * k)).sum(0)


def general_hamming(M, *, alpha: float = 0.54, sym: bool = True, dtype=None,
                    layout=_s.strided, device=None, requires_grad: bool = False):
    """``alpha - (1 - alpha) cos(2 pi n / (M - 1))``."""
    return general_cosine(M, a=[alpha, 1.0 - alpha], sym=sym, dtype=dtype, layout=layout,
                          device=device, requires_grad=requires_grad)


def nuttall(M: int, *, sym: bool = True, dtype=None, layout=_s.strided, device=None,
            requires_grad: bool = False):
    """The minimum 4-term Blackman-Harris window of Nuttall."""
    return general_cosine(M, a=[0.3635819, 0.4891775, 0.1365995, 0.0106411], sym=sym,
                          dtype=dtype, layout=layout, device=device,
                          requires_grad=requires_grad)
