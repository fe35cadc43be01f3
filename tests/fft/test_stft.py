"""strided.stft / istft against torch's: values, shapes, strides, grad_fn names, gradients,
warnings and error messages."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from conftest import check

import strided
from strided.kernels import fft as fft_kernels

RNG = np.random.default_rng(11)
SIGNAL = RNG.standard_normal((2, 40))
CSIGNAL = SIGNAL + 1j * RNG.standard_normal((2, 40))


def _window(m, spec, n):
    if spec is None:
        return None
    return getattr(m, spec)(n, dtype=m.float64)


STFT_CASES = [
    dict(n_fft=8),
    dict(n_fft=8, hop_length=3, win_length=6, window="hann_window", normalized=True),
    dict(n_fft=8, center=False),
    dict(n_fft=8, onesided=False, window="hamming_window"),
    dict(n_fft=8, win_length=4, window="hann_window", center=False, align_to_window=True),
    dict(n_fft=8, win_length=5, center=False, align_to_window=True),
    dict(n_fft=8, pad_mode="constant"),
    dict(n_fft=8, pad_mode="replicate", hop_length=5),
    dict(n_fft=7, window="hann_window"),
]


def _stft(m, signal, case, grad=False, **extra):
    kw = dict(case)
    kw.update(extra)
    win = kw.pop("window", None)
    kw["window"] = _window(m, win, kw.get("win_length") or kw["n_fft"])
    x = m.from_numpy(signal.copy()).requires_grad_(grad)
    return x, m.stft(x, **kw)


@pytest.mark.parametrize("index", range(len(STFT_CASES)))
@pytest.mark.parametrize("kind", ["real", "complex", "real1d"])
def test_stft_values_and_gradients(index, kind):
    case = STFT_CASES[index]
    if kind == "complex" and case.get("onesided") is not None:
        case = {k: v for k, v in case.items() if k != "onesided"}
    signal = {"real": SIGNAL, "complex": CSIGNAL, "real1d": SIGNAL[0]}[kind]
    out = []
    for m in (strided, torch):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            x, y = _stft(m, signal, case, grad=True, return_complex=True)
        y.abs().sum().backward()
        out.append((y, x.grad, type(y.grad_fn).__name__))
    (ys, gs, ns), (yt, gt, nt) = out
    assert ns == nt
    assert tuple(ys.shape) == tuple(yt.shape) and str(ys.dtype) == str(yt.dtype)
    assert tuple(ys.stride()) == tuple(yt.stride())
    np.testing.assert_allclose(ys.detach().numpy(), yt.detach().numpy(), atol=1e-10)
    np.testing.assert_allclose(gs.numpy(), gt.resolve_conj().numpy(), atol=1e-10)


def test_stft_return_real_and_float32():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rs = strided.stft(strided.from_numpy(SIGNAL.astype(np.float32)), 8,
                          return_complex=False)
        rt = torch.stft(torch.from_numpy(SIGNAL.astype(np.float32)), 8, return_complex=False)
    assert tuple(rs.shape) == tuple(rt.shape) and tuple(rs.stride()) == tuple(rt.stride())
    assert rs.dtype == strided.float32
    np.testing.assert_allclose(rs.numpy(), rt.numpy(), atol=1e-5)
    check(lambda m: m.stft(m.from_numpy(SIGNAL[0].copy()), 8,
                           window=m.ones(8, dtype=m.float32), return_complex=True),
          exact=False)


def test_stft_method():
    check(lambda m: m.from_numpy(SIGNAL.copy()).stft(8, window=m.hann_window(8),
                                                      return_complex=True), exact=False)


STFT_ERRORS = [
    lambda m, x: m.stft(x, 8, window=m.ones(8)),
    lambda m, x: m.stft(m.arange(20), 8, return_complex=True),
    lambda m, x: m.stft(m.randn(2, 2, 20), 8, return_complex=True),
    lambda m, x: m.stft(x, 0, return_complex=True),
    lambda m, x: m.stft(x, 60, center=False, return_complex=True),
    lambda m, x: m.stft(x, 8, hop_length=0, return_complex=True),
    lambda m, x: m.stft(x, 8, win_length=9, return_complex=True),
    lambda m, x: m.stft(x, 8, window=m.ones(5), return_complex=True),
    lambda m, x: m.stft(x, 8, window=m.ones(8, 1), return_complex=True),
    lambda m, x: m.stft(x * 1j, 8, onesided=True, window=m.ones(8)),
    lambda m, x: m.stft(x, 8, window=m.ones(8), align_to_window=True, return_complex=True),
    lambda m, x: m.stft(x, 8, window=m.ones(8), pad_mode="foo", return_complex=True),
    lambda m, x: m.stft(x, 8, window=m.ones(8, device="meta"), return_complex=True),
]


@pytest.mark.parametrize("index", range(len(STFT_ERRORS)))
def test_stft_errors(index):
    check(lambda m: STFT_ERRORS[index](m, m.from_numpy(SIGNAL.astype(np.float32))),
          warns=False)


def _spectrum(m, signal=SIGNAL, **kw):
    return m.stft(m.from_numpy(signal.copy()), 8, window=m.hann_window(8, dtype=m.float64),
                  return_complex=True, **kw)


ISTFT_CASES = [
    lambda m: m.istft(_spectrum(m), 8, window=m.hann_window(8, dtype=m.float64)),
    lambda m: m.istft(_spectrum(m), 8, window=m.hann_window(8, dtype=m.float64), length=30),
    lambda m: m.istft(_spectrum(m), 8, window=m.hann_window(8, dtype=m.float64), length=60),
    lambda m: m.istft(_spectrum(m)[0], 8, window=m.hann_window(8, dtype=m.float64)),
    lambda m: m.istft(_spectrum(m, normalized=True), 8, normalized=True,
                      window=m.hann_window(8, dtype=m.float64)),
    lambda m: m.istft(_spectrum(m, onesided=False), 8, onesided=False,
                      window=m.hann_window(8, dtype=m.float64)),
    lambda m: m.istft(_spectrum(m, signal=CSIGNAL), 8, window=m.hann_window(8, dtype=m.float64),
                      return_complex=True),
    lambda m: m.istft(m.stft(m.from_numpy(SIGNAL.copy()), 8, win_length=6,
                             window=m.hann_window(6, dtype=m.float64), return_complex=True),
                      8, win_length=6, window=m.hann_window(6, dtype=m.float64)),
    lambda m: _spectrum(m).istft(8, window=m.hann_window(8, dtype=m.float64)),
    lambda m: m.istft(_spectrum(m).to(m.complex64), 8, window=m.hann_window(8)),
]


@pytest.mark.parametrize("index", range(len(ISTFT_CASES)))
def test_istft(index):
    check(ISTFT_CASES[index], exact=False, warns=False)


def test_istft_roundtrip_and_gradient():
    out = []
    for m in (strided, torch):
        x = m.from_numpy(SIGNAL.copy()).requires_grad_()
        w = m.hann_window(8, dtype=m.float64)
        y = m.istft(m.stft(x, 8, window=w, return_complex=True), 8, window=w)
        (y * y).sum().backward()
        out.append((y, x.grad, type(y.grad_fn).__name__))
    np.testing.assert_allclose(out[0][0].detach().numpy(), SIGNAL, atol=1e-12)
    np.testing.assert_allclose(out[0][1].numpy(), out[1][1].numpy(), atol=1e-10)
    assert out[0][2] == out[1][2]


ISTFT_ERRORS = [
    lambda m, s, w: m.istft(m.view_as_real(s), 8, window=w),
    lambda m, s, w: m.istft(m.zeros(5, 0, dtype=m.complex64), 8, window=w),
    lambda m, s, w: m.istft(s[0, 0], 8, window=w),
    lambda m, s, w: m.istft(s, 10, window=m.hann_window(10)),
    lambda m, s, w: m.istft(s, 8, window=w, onesided=False),
    lambda m, s, w: m.istft(s, 8, hop_length=9, window=w),
    lambda m, s, w: m.istft(s, 8, win_length=9, window=w),
    lambda m, s, w: m.istft(s, 8, window=m.ones(7)),
    lambda m, s, w: m.istft(s, 8, window=m.zeros(8)),
    lambda m, s, w: m.istft(s, 8, window=w, return_complex=True),
    lambda m, s, w: m.istft(s, 8, window=w.to(m.complex64)),
    lambda m, s, w: m.istft(m.stft(m.ones(2, 20), 8, window=w, center=False,
                                   return_complex=True), 8, window=w, center=False),
]


@pytest.mark.parametrize("index", range(len(ISTFT_ERRORS)))
def test_istft_errors(index):
    def recipe(m):
        w = m.hann_window(8)
        s = m.stft(m.from_numpy(SIGNAL.astype(np.float32)), 8, window=w, return_complex=True)
        return ISTFT_ERRORS[index](m, s, w)
    check(recipe, warns=False)


def test_warnings_once_per_process():
    fft_kernels._warned.clear()
    x = strided.ones(2, 20)
    with pytest.warns(UserWarning, match="A window was not provided"):
        strided.stft(x, 8, return_complex=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        strided.stft(x, 8, return_complex=True)      # no second warning
    with pytest.warns(UserWarning, match="return_complex=False is deprecated"):
        strided.stft(x, 8, window=strided.ones(8), return_complex=False)
    spec = strided.stft(x, 8, window=strided.ones(8), return_complex=True)
    with pytest.warns(UserWarning, match="Please provide the same window used by stft"):
        strided.istft(spec, 8)
    with pytest.warns(UserWarning, match="The length of signal is shorter"):
        strided.istft(spec, 8, window=strided.ones(8), length=40)


@pytest.mark.parametrize("seed", range(4))
def test_stft_random_parameters(seed):
    """Random lengths, n_fft, hop, win_length, windows, centering, padding modes, sidedness,
    alignment: the same result (size-1 dims' strides aside) or the same error as torch."""
    rng = np.random.default_rng(seed)
    for _ in range(40):
        length, n_fft = int(rng.integers(1, 30)), int(rng.integers(1, 12))
        hop = [None, int(rng.integers(1, 6))][rng.integers(0, 2)]
        win = [None, int(rng.integers(1, n_fft + 2))][rng.integers(0, 2)]
        use_window, center = bool(rng.integers(0, 2)), bool(rng.integers(0, 2))
        kw = dict(hop_length=hop, win_length=win, center=center,
                  normalized=bool(rng.integers(0, 2)),
                  onesided=[None, True, False][rng.integers(0, 3)],
                  pad_mode=["reflect", "constant", "replicate", "circular"][rng.integers(0, 4)],
                  align_to_window=None if center else [None, True, False][rng.integers(0, 3)],
                  return_complex=True)
        arr = rng.standard_normal((2, length) if rng.integers(0, 2) else (length,))
        if rng.integers(0, 4) == 0:
            arr = arr + 1j * rng.standard_normal(arr.shape)
        wl = win if win is not None else n_fft
        window = np.hanning(wl + 2)[1:-1].copy() if use_window and wl > 0 else None

        def recipe(m, arr=arr, n_fft=n_fft, kw=kw, window=window):
            w = None if window is None else m.from_numpy(window.copy())
            return m.stft(m.from_numpy(arr.copy()), n_fft, window=w, **kw)
        try:
            rt = recipe(torch)
        except Exception:   # noqa: BLE001 - strided must raise the same
            check(recipe, warns=False)
            continue
        rs = recipe(strided)
        assert tuple(rs.shape) == tuple(rt.shape)
        assert [st for st, n in zip(rs.stride(), rs.shape) if n > 1] == \
            [st for st, n in zip(rt.stride(), rt.shape) if n > 1]
        np.testing.assert_allclose(rs.numpy(), rt.numpy(), atol=1e-10)


@pytest.mark.parametrize("seed", range(3))
def test_istft_random_parameters(seed):
    """Random spectra (right and wrong frequency sizes), hops, windows, lengths, centering,
    sidedness: the same signal or the same error as torch."""
    rng = np.random.default_rng(100 + seed)
    for _ in range(40):
        n_fft = int(rng.integers(2, 12))
        hop = [None, int(rng.integers(1, 8))][rng.integers(0, 2)]
        win = [None, int(rng.integers(1, n_fft + 2))][rng.integers(0, 2)]
        kw = dict(hop_length=hop, win_length=win, center=bool(rng.integers(0, 2)),
                  normalized=bool(rng.integers(0, 2)),
                  onesided=[None, True, False][rng.integers(0, 3)],
                  length=[None, int(rng.integers(1, 40))][rng.integers(0, 2)],
                  return_complex=bool(rng.integers(0, 4) == 0))
        fsize = [n_fft // 2 + 1, n_fft, int(rng.integers(1, 10))][rng.integers(0, 3)]
        shape = ((2,) if rng.integers(0, 2) else ()) + (fsize, int(rng.integers(1, 8)))
        arr = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
        wl = win if win is not None else n_fft
        window = np.hanning(wl + 2)[1:-1] + 0.1 if rng.integers(0, 2) and wl > 0 else None

        def recipe(m, arr=arr, n_fft=n_fft, kw=kw, window=window):
            w = None if window is None else m.from_numpy(window.copy())
            return m.istft(m.from_numpy(arr.copy()), n_fft, window=w, **kw)
        check(recipe, exact=False, warns=False)


def test_meta():
    check(lambda m: m.stft(m.empty(2, 100, device="meta"), 16,
                           window=m.hann_window(16, device="meta"), return_complex=True).shape)
    r = strided.stft(strided.empty(2, 100, device="meta"), 16,
                     window=strided.hann_window(16, device="meta"), return_complex=True)
    assert r.device.type == "meta" and tuple(r.stride()) == (234, 1, 9)
    check(lambda m: m.istft(m.empty(2, 9, 13, dtype=m.complex64, device="meta"), 16,
                            window=m.hann_window(16, device="meta")), warns=False)
