"""torch.signal.windows and the legacy window factories (hann_window, ...) against torch."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from conftest import check

import strided

SIGNAL_WINDOWS = ["bartlett", "blackman", "cosine", "exponential", "gaussian", "hamming",
                  "hann", "kaiser", "nuttall"]


@pytest.mark.parametrize("name", SIGNAL_WINDOWS)
def test_signal_windows(name):
    for M in (0, 1, 2, 5, 8):
        for sym in (True, False):
            check(lambda m, M=M, sym=sym: getattr(m.signal.windows, name)(M, sym=sym),
                  exact=False)
    check(lambda m: getattr(m.signal.windows, name)(6, dtype=m.float64), exact=False)
    check(lambda m: getattr(m.signal.windows, name)(6, requires_grad=True), exact=False)
    check(lambda m: getattr(m.signal.windows, name)(-1))
    check(lambda m: getattr(m.signal.windows, name)(4, dtype=m.float16))
    check(lambda m: getattr(m.signal.windows, name)(4, dtype=m.int64))


def test_signal_window_parameters():
    w = lambda m: m.signal.windows  # noqa: E731
    for recipe in (
        lambda m: w(m).exponential(7, tau=2.5),
        lambda m: w(m).exponential(7, center=2.0, sym=False),
        lambda m: w(m).exponential(7, center=2.0),
        lambda m: w(m).exponential(7, tau=0),
        lambda m: w(m).gaussian(7, std=0.5),
        lambda m: w(m).gaussian(7, std=-1.0),
        lambda m: w(m).kaiser(7, beta=4.0),
        lambda m: w(m).kaiser(7, beta=-1.0),
        lambda m: w(m).general_hamming(7, alpha=0.6),
        lambda m: w(m).general_cosine(7, a=[0.5, 0.3, 0.2]),
        lambda m: w(m).general_cosine(7, a=[]),
        lambda m: w(m).general_cosine(7, a=3),
    ):
        check(recipe, exact=False)


LEGACY = ["hann_window", "hamming_window", "blackman_window", "bartlett_window",
          "kaiser_window"]


@pytest.mark.parametrize("name", LEGACY)
def test_legacy_windows(name):
    exact = name != "kaiser_window"     # torch's I0 runs in float32 for float32 windows
    for n in (0, 1, 2, 5, 8):
        check(lambda m, n=n: getattr(m, name)(n), exact=exact)
        check(lambda m, n=n: getattr(m, name)(n, False, dtype=m.float64), exact=False)
        check(lambda m, n=n: getattr(m, name)(n, True), exact=exact)
    # half windows: each step rounds to float16 (torch's vectorised loops may round one step
    # differently: within one float16 ulp)
    hs = getattr(strided, name)(6, dtype=strided.float16)
    ht = getattr(torch, name)(6, dtype=torch.float16)
    assert hs.dtype == strided.float16
    np.testing.assert_allclose(hs.float().numpy(), ht.float().numpy(), atol=2e-3)
    check(lambda m: getattr(m, name)(6, requires_grad=True), exact=False)
    check(lambda m: getattr(m, name)(-1))
    check(lambda m: getattr(m, name)(3, dtype=m.int64))
    check(lambda m: getattr(m, name)(3, out=m.empty(3)), first_line=True)
    r = getattr(strided, name)(4, device="meta")
    assert r.device.type == "meta" and tuple(r.shape) == (4,)


def test_legacy_window_parameters():
    check(lambda m: m.hamming_window(7, False, 0.3), exact=False)
    check(lambda m: m.hamming_window(7, True, 0.3, 0.2), exact=False)
    check(lambda m: m.kaiser_window(7, True, 3.0), exact=False)
    check(lambda m: m.kaiser_window(9, False, 20.0, dtype=m.float64), exact=False)
