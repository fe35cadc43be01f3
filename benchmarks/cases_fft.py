"""Benchmark cases for torch.fft (issue 14's speed target: ``fft`` of 1M complex64, at most
1.5x torch on one thread) and a few neighbours: 2^20 and 10^6 points (the second has no
power-of-two split, so it runs pocketfft's single long transform), rfft, a batched fft2,
stft of a second of 16 kHz audio."""

from __future__ import annotations

import numpy as np
from cases import Case

_RNG = np.random.default_rng(0)


def _complex(n):
    return (_RNG.standard_normal(n) + 1j * _RNG.standard_normal(n)).astype(np.complex64)


def _per_lib(make):
    """A setup from ``make(lib)``: the zero-argument callable to time for that library
    (NumPy's column runs ``numpy.fft`` on the same array where it has one)."""
    def setup(st, torch, np_):
        return {"strided": make(st), "torch": make(torch), "numpy": None}
    return setup


def _fft_make(arr, fn="fft", **kw):
    def make(lib):
        x = lib.from_numpy(arr.copy())
        f = getattr(lib.fft, fn)
        return lambda: f(x, **kw)
    return make


def _stft_make(arr):
    def make(lib):
        x = lib.from_numpy(arr.copy())
        w = lib.hann_window(400)
        return lambda: lib.stft(x, 400, hop_length=160, window=w, return_complex=True)
    return make


FFT_CASES = [
    Case("fft.fft 1M (2^20) complex64", _per_lib(_fft_make(_complex(1 << 20))), number=20),
    Case("fft.fft 1e6 complex64", _per_lib(_fft_make(_complex(10 ** 6))), number=10),
    Case("fft.rfft 1M float32", _per_lib(_fft_make(
        _RNG.standard_normal(1 << 20).astype(np.float32), "rfft")), number=20),
    Case("fft.fft2 64x256x256 complex64", _per_lib(_fft_make(
        _complex(64 * 256 * 256).reshape(64, 256, 256), "fft2")), number=10),
    Case("stft 16000 samples n_fft=400 hop=160", _per_lib(_stft_make(
        _RNG.standard_normal(16000).astype(np.float32))), number=200),
]
