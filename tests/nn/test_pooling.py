"""Pooling (issue 10): max / avg / adaptive / lp / fractional pooling and max_unpool, module
and functional forms, against torch: values, indices, gradients (and gradcheck), grad_fn
names, meta shapes, channels-last layouts, module repr, and torch's errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import strided
from tests.autograd.grad_harness import check_grads, gradcheck_strided
from tests.conftest import assert_same, check, hyp
from tests.nn.helpers import both_from_numpy
from tests.nn.helpers import channels_last_copy as _cl

RNG = np.random.default_rng(7)


def _arr(shape, dtype="float64", ties=False):
    if ties:
        return RNG.integers(-3, 4, size=shape).astype(dtype)
    return RNG.standard_normal(shape).astype(dtype)


def _run(fn, arr, exact=True, grad=True):
    """fn(m, x) on both libraries: outputs (values, indices, strides), grad_fn names and
    input gradients (of a weighted sum of the float outputs)."""
    xs, xt = both_from_numpy(arr, requires_grad=grad)
    rs, rt = fn(strided, xs), fn(torch, xt)
    outs_s = rs if isinstance(rs, tuple) else (rs,)
    outs_t = rt if isinstance(rt, tuple) else (rt,)
    assert len(outs_s) == len(outs_t)
    for a, b in zip(outs_s, outs_t):
        assert_same(a, b, exact=exact or b.dtype == torch.int64)
    if grad:
        first_s, first_t = outs_s[0], outs_t[0]
        assert first_s.grad_fn.name() == first_t.grad_fn.name()
        w = RNG.standard_normal(tuple(first_t.shape))
        ws, wt = strided.from_numpy(w.copy()), torch.from_numpy(w.copy())
        (first_s * ws).sum().backward()
        (first_t * wt).sum().backward()
        np.testing.assert_allclose(xs.grad.numpy(), xt.grad.numpy(), rtol=1e-10, atol=1e-12)
    return rs, rt


def _meta(fn, shape, dtype="float32"):
    """fn on meta tensors: torch's shapes, dtypes and strides without data."""
    def recipe(m):
        return fn(m, m.empty(shape, dtype=getattr(m, dtype), device="meta"))
    check(recipe)


# -- max pooling ---------------------------------------------------------------------------

MAX2D = [
    dict(kernel_size=2),
    dict(kernel_size=3, stride=1, padding=1),
    dict(kernel_size=(2, 3), stride=(1, 2), padding=(1, 1), dilation=(2, 1)),
    dict(kernel_size=3, stride=2, ceil_mode=True),
    dict(kernel_size=(3, 2), stride=2, padding=1, ceil_mode=True),
    dict(kernel_size=2, dilation=2, stride=1, padding=1),
]


@pytest.mark.parametrize("kw", MAX2D)
@pytest.mark.parametrize("shape", [(2, 3, 7, 8), (3, 6, 5)])
def test_max_pool2d(kw, shape):
    _run(lambda m, x: m.nn.functional.max_pool2d(x, return_indices=True, **kw),
         _arr(shape, ties=True))
    _run(lambda m, x: m.nn.functional.max_pool2d(x, **kw), _arr(shape))
    _meta(lambda m, x: m.nn.functional.max_pool2d(x, return_indices=True, **kw), shape)


@pytest.mark.parametrize("kw", [dict(kernel_size=2), dict(kernel_size=3, stride=1, padding=1),
                                dict(kernel_size=(1, 2, 3), stride=(2, 1, 2), dilation=(1, 2, 1),
                                     ceil_mode=True),
                                dict(kernel_size=3, stride=2, padding=1, ceil_mode=True)])
@pytest.mark.parametrize("shape", [(2, 2, 5, 6, 7), (3, 4, 5, 6)])
def test_max_pool3d(kw, shape):
    _run(lambda m, x: m.nn.functional.max_pool3d(x, return_indices=True, **kw),
         _arr(shape, ties=True))
    _run(lambda m, x: m.nn.functional.max_pool3d(x, **kw), _arr(shape))
    _meta(lambda m, x: m.nn.functional.max_pool3d(x, return_indices=True, **kw), shape)


@pytest.mark.parametrize("kw", [dict(kernel_size=2), dict(kernel_size=3, stride=1, padding=1),
                                dict(kernel_size=3, stride=2, dilation=2, ceil_mode=True),
                                dict(kernel_size=4, stride=3, padding=2, ceil_mode=True)])
@pytest.mark.parametrize("shape", [(2, 3, 11), (4, 9)])
def test_max_pool1d(kw, shape):
    _run(lambda m, x: m.nn.functional.max_pool1d(x, return_indices=True, **kw),
         _arr(shape, ties=True))
    _run(lambda m, x: m.nn.functional.max_pool1d(x, **kw), _arr(shape))
    # without grad torch runs its values-only max_pool1d_impl
    _run(lambda m, x: m.nn.functional.max_pool1d(x, **kw), _arr(shape), grad=False)
    _meta(lambda m, x: m.nn.functional.max_pool1d(x, **kw), shape)


def test_max_pool_nan_inf_and_ties():
    # ties: the first maximum; NaN: the last NaN of the window; all -inf: the first
    # in-bounds element (never a padding position)
    inf, nan = float("inf"), float("nan")
    a = np.array([[[-inf, -inf, 1.0, 1.0], [nan, 2.0, nan, 1.0], [5.0, 5.0, 5.0, -inf],
                   [-inf, -inf, -inf, -inf]]])
    for kw in (dict(kernel_size=2, stride=1), dict(kernel_size=3, stride=1, padding=1),
               dict(kernel_size=2, stride=2, padding=1, ceil_mode=True)):
        _run(lambda m, x: m.nn.functional.max_pool2d(x, return_indices=True, **kw), a,  # noqa: B023
             grad=False)
        _run(lambda m, x: m.nn.functional.max_pool1d(x[0], return_indices=True, **kw), a,  # noqa: B023
             grad=False)
        _run(lambda m, x: m.nn.functional.max_pool1d(x[0], **kw), a, grad=False)  # noqa: B023
    _run(lambda m, x: m.nn.functional.max_pool3d(x[None], (1, 2, 2), 1, return_indices=True), a,
         grad=False)


@pytest.mark.parametrize("dtype", ["float32", "int64", "int32", "uint8", "int8", "int16",
                                   "float16", "bfloat16"])
def test_max_pool_dtypes(dtype):
    def fn(m, x):
        x = x.to(getattr(m, dtype))
        return (m.nn.functional.max_pool2d(x, 2, 1, 1, return_indices=True),
                m.nn.functional.max_pool3d(x[None], 2, 1, return_indices=True))
    a = _arr((2, 5, 6), ties=True)
    check(lambda m: fn(m, m.from_numpy(a.copy())))


def test_max_pool_channels_last_and_non_contiguous():
    a = _arr((2, 3, 6, 7))
    _run(lambda m, x: m.nn.functional.max_pool2d(
        _cl(x), 3, 2, 1, return_indices=True), a)
    _run(lambda m, x: m.nn.functional.max_pool2d(x.transpose(2, 3), 2, return_indices=True), a)
    _run(lambda m, x: m.nn.functional.max_pool2d(x[:, :, ::2, 1:], 2, 1), a)
    b = _arr((2, 3, 4, 5, 6))
    _run(lambda m, x: m.nn.functional.max_pool3d(
        _cl(x), 2, return_indices=True), b)


@given(n=st.integers(1, 2), c=st.integers(1, 3), h=st.integers(1, 9), w=st.integers(1, 9),
       k=st.integers(1, 4), s=st.integers(1, 3), p=st.integers(0, 2), d=st.integers(1, 2),
       ceil=st.booleans(), transpose=st.booleans())
@hyp(40)
def test_max_pool2d_hypothesis(n, c, h, w, k, s, p, d, ceil, transpose):
    a = _arr((n, c, h, w), ties=True)

    def fn(m, x):
        if transpose:
            x = x.transpose(2, 3)
        return m.nn.functional.max_pool2d(x, k, s, p, d, ceil_mode=ceil, return_indices=True)
    check(lambda m: fn(m, m.from_numpy(a.copy())))


def test_max_pool_gradcheck():
    F = strided.nn.functional
    gradcheck_strided(lambda m, x: F.max_pool2d(x, 2, 1, 1), [(1, 2, 4, 5)])
    gradcheck_strided(lambda m, x: F.max_pool3d(x, 2, 1), [(1, 3, 3, 4)])
    gradcheck_strided(lambda m, x: F.max_pool1d(x, 3, 2, 1, ceil_mode=True), [(2, 7)])


def test_max_pool_double_backward():
    def prog(m, x):
        y = m.nn.functional.max_pool2d(x, 2, 1)
        (g,) = m.autograd.grad(y.pow(2).sum(), x, create_graph=True)
        return g
    check_grads(prog, [(1, 2, 4, 4)])


MAX_ERRORS = [
    lambda F, x: F.max_pool2d(x, (2, 2, 2)),
    lambda F, x: F.max_pool2d(x, 2, (1, 1, 1)),
    lambda F, x: F.max_pool2d(x, 2, 1, (1, 1, 1)),
    lambda F, x: F.max_pool2d(x, 2, 1, 0, (1, 1, 1)),
    lambda F, x: F.max_pool2d(x[0, 0], 2),
    lambda F, x: F.max_pool2d(x, 2, 0),
    lambda F, x: F.max_pool2d(x, 0),
    lambda F, x: F.max_pool2d(x, 2, 1, -1),
    lambda F, x: F.max_pool2d(x, 3, 1, 2),
    lambda F, x: F.max_pool2d(x, 2, 1, 0, 0),
    lambda F, x: F.max_pool2d(x, 9),
    lambda F, x: F.max_pool2d(x[:, :, :0], 2),
    lambda F, x: F.max_pool2d(x.bool(), 2),
    lambda F, x: F.max_pool3d(x, 2, (1, 1, 1, 1)),
    lambda F, x: F.max_pool3d(x, 9),
    lambda F, x: F.max_pool3d(x[0, 0], 2),
    lambda F, x: F.max_pool3d(x, 3, 1, 2),
    lambda F, x: F.max_pool3d(x, 2, 0),
    lambda F, x: F.max_pool3d(x, (2, 2), 1),
    lambda F, x: F.max_pool3d(x, 2, 1, 0, (1, 1)),
    lambda F, x: F.max_pool3d(x[:, :0], 2),
    lambda F, x: F.max_pool1d(x[0], (2, 2)),
    lambda F, x: F.max_pool1d(x[0], 9),
    lambda F, x: F.max_pool1d(x, 2),
    lambda F, x: F.max_pool1d(x[0], 2, 0),
    lambda F, x: F.max_pool1d(x[0], 0),
    lambda F, x: F.max_pool1d(x[0], 3, 1, 2),
    lambda F, x: F.max_pool1d(x[0], 3, 1, -1),
    lambda F, x: F.max_pool1d(x[0], 3, 1, 1, 0),
    lambda F, x: F.max_pool1d(x[0, :, :0], 2),
    lambda F, x: F.max_pool1d(x[0].long(), 2),
    lambda F, x: F.max_pool1d(x[0].requires_grad_(), 9),
    lambda F, x: F.max_pool1d(x[0], 2, 1, -1, return_indices=True),
    lambda F, x: F.max_pool1d(x[0], (2, 2), return_indices=True),
    lambda F, x: F.max_pool1d(x[0, 0, 0], 2, return_indices=True),
    lambda F, x: F.max_pool1d(x[0], 9, return_indices=True),
    lambda F, x: F.max_pool1d(x[0], 3, 1, 2, return_indices=True),
]


@pytest.mark.parametrize("i", range(len(MAX_ERRORS)))
def test_max_pool_errors(i):
    a = _arr((2, 3, 8, 8), "float32")
    check(lambda m: MAX_ERRORS[i](m.nn.functional, m.from_numpy(a.copy())))


# -- average pooling -----------------------------------------------------------------------

AVG2D = [
    dict(kernel_size=2),
    dict(kernel_size=3, stride=1, padding=1),
    dict(kernel_size=3, stride=1, padding=1, count_include_pad=False),
    dict(kernel_size=(2, 3), stride=(2, 1), padding=(1, 1), ceil_mode=True),
    dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False),
    dict(kernel_size=2, stride=1, divisor_override=3),
    dict(kernel_size=3, stride=2, ceil_mode=True),
]


@pytest.mark.parametrize("kw", AVG2D)
@pytest.mark.parametrize("shape", [(2, 3, 7, 8), (3, 5, 6)])
def test_avg_pool2d(kw, shape):
    _run(lambda m, x: m.nn.functional.avg_pool2d(x, **kw), _arr(shape), exact=False)
    _meta(lambda m, x: m.nn.functional.avg_pool2d(x, **kw), shape)
    kw3 = {k: (_to3(v, 1 if k in ("kernel_size", "stride") else 0)
               if k in ("kernel_size", "stride", "padding") else v) for k, v in kw.items()}
    _run(lambda m, x: m.nn.functional.avg_pool3d(x[..., None, :, :].expand(
        *x.shape[:-2], 3, *x.shape[-2:]), **kw3), _arr(shape), exact=False)
    if "divisor_override" not in kw:
        k1 = {k: (v[0] if isinstance(v, tuple) else v) for k, v in kw.items()}
        _run(lambda m, x: m.nn.functional.avg_pool1d(x.flatten(-2), **k1), _arr(shape),
             exact=False)


def _to3(k, first):
    return (first,) + (k if isinstance(k, tuple) else (k, k))


@pytest.mark.parametrize("dtype", ["int64", "float32", "float16", "bfloat16", "int32"])
def test_avg_pool_dtypes(dtype):
    a = _arr((2, 5, 6))

    def fn(m, three):
        x = (m.from_numpy(a.copy()) * 7).to(getattr(m, dtype))
        if three:
            return m.nn.functional.avg_pool3d(x[None], 2, 1)
        return m.nn.functional.avg_pool2d(x, 3, 1, 1), m.nn.functional.avg_pool2d(x, 2)
    for three in (False, True):
        try:
            rt = fn(torch, three)
        except NotImplementedError:
            check(lambda m: fn(m, three))  # noqa: B023
            continue
        rs = fn(strided, three)
        for s_, t_ in zip(rs if three is False else (rs,), rt if three is False else (rt,)):
            assert_same(s_, t_, values=False)
            tol = {"float16": 1e-3, "bfloat16": 1e-2}.get(dtype, 1e-6)
            np.testing.assert_allclose(s_.float().numpy(), t_.float().numpy(), rtol=tol,
                                       atol=tol)


def test_avg_pool_layouts_and_gradcheck():
    a = _arr((2, 3, 6, 7))
    _run(lambda m, x: m.nn.functional.avg_pool2d(
        _cl(x), 3, 2, 1), a, exact=False)
    _run(lambda m, x: m.nn.functional.avg_pool2d(x.transpose(2, 3)[:, :, 1:], 2, 1), a,
         exact=False)
    F = strided.nn.functional
    gradcheck_strided(lambda m, x: F.avg_pool2d(x, 3, 2, 1, ceil_mode=True), [(1, 2, 5, 6)],
                      second=True)
    gradcheck_strided(lambda m, x: F.avg_pool3d(x, 2, 1, count_include_pad=False, padding=1),
                      [(1, 2, 3, 4)])


AVG_ERRORS = [
    lambda F, x: F.avg_pool2d(x, (2, 2, 2)),
    lambda F, x: F.avg_pool2d(x, 2, (1, 1, 1)),
    lambda F, x: F.avg_pool2d(x, 2, 1, (1, 1, 1)),
    lambda F, x: F.avg_pool2d(x[0, 0], 2),
    lambda F, x: F.avg_pool2d(x, 2, 0),
    lambda F, x: F.avg_pool2d(x, 3, 1, 2),
    lambda F, x: F.avg_pool2d(x, 9),
    lambda F, x: F.avg_pool2d(x, 2, divisor_override=0),
    lambda F, x: F.avg_pool2d(x.int(), 2),
    lambda F, x: F.avg_pool3d(x, 9),
    lambda F, x: F.avg_pool3d(x[0, 0], 2),
    lambda F, x: F.avg_pool3d(x, (2, 2)),
    lambda F, x: F.avg_pool3d(x, 2, 0),
    lambda F, x: F.avg_pool3d(x, 3, 1, 2),
    lambda F, x: F.avg_pool3d(x, 2, divisor_override=0),
    lambda F, x: F.avg_pool1d(x, 2),
    lambda F, x: F.avg_pool1d(x[0], (2, 2)),
    lambda F, x: F.avg_pool1d(x[0], 9),
    lambda F, x: F.avg_pool1d(x[0], 3, 1, 2),
]


@pytest.mark.parametrize("i", range(len(AVG_ERRORS)))
def test_avg_pool_errors(i):
    a = _arr((2, 3, 8, 8), "float32")
    check(lambda m: AVG_ERRORS[i](m.nn.functional, m.from_numpy(a.copy())))


# -- adaptive pooling ----------------------------------------------------------------------

@pytest.mark.parametrize("out", [3, (2, 5), (None, 4), (1, 1), (7, 8), (4, None), 1])
@pytest.mark.parametrize("shape", [(2, 3, 7, 8), (3, 5, 6)])
def test_adaptive_pool2d(out, shape):
    _run(lambda m, x: m.nn.functional.adaptive_avg_pool2d(x, out), _arr(shape), exact=False)
    _run(lambda m, x: m.nn.functional.adaptive_max_pool2d(x, out, return_indices=True),
         _arr(shape, ties=True))
    _meta(lambda m, x: m.nn.functional.adaptive_max_pool2d(x, out, True), shape)
    _meta(lambda m, x: m.nn.functional.adaptive_avg_pool2d(x, out), shape)


@pytest.mark.parametrize("out", [2, (1, 3, 2), (None, 2, 3), (1, 1, 1)])
def test_adaptive_pool3d(out):
    for shape in [(2, 2, 4, 5, 6), (3, 3, 4, 5)]:
        _run(lambda m, x: m.nn.functional.adaptive_avg_pool3d(x, out), _arr(shape),
             exact=False)
        _run(lambda m, x: m.nn.functional.adaptive_max_pool3d(x, out, return_indices=True),
             _arr(shape, ties=True))
        _meta(lambda m, x: m.nn.functional.adaptive_max_pool3d(x, out, True), shape)


@pytest.mark.parametrize("out", [1, 3, 5, 11])
def test_adaptive_pool1d(out):
    for shape in [(2, 3, 7), (4, 5)]:
        _run(lambda m, x: m.nn.functional.adaptive_avg_pool1d(x, out), _arr(shape),
             exact=False)
        _run(lambda m, x: m.nn.functional.adaptive_max_pool1d(x, out, return_indices=True),
             _arr(shape, ties=True))


def test_adaptive_nan_channels_last_gradcheck():
    nan = float("nan")
    a = np.array([[[1.0, nan, 2.0, nan], [3.0, 3.0, nan, 0.0], [4.0, 4.0, 4.0, 4.0]]])
    _run(lambda m, x: m.nn.functional.adaptive_max_pool2d(x, (2, 3), True), a, grad=False)
    b = _arr((2, 3, 6, 7))
    _run(lambda m, x: m.nn.functional.adaptive_avg_pool2d(
        _cl(x), (3, 2)), b, exact=False)
    _run(lambda m, x: m.nn.functional.adaptive_avg_pool2d(
        _cl(x), 1), b, exact=False)
    _run(lambda m, x: m.nn.functional.adaptive_max_pool2d(
        _cl(x), (3, 2), True), b)
    c = _arr((2, 3, 4, 5, 6))
    _run(lambda m, x: m.nn.functional.adaptive_avg_pool3d(_cl(x), 1), c, exact=False)
    _run(lambda m, x: m.nn.functional.adaptive_avg_pool3d(_cl(x), (2, 3, 1)), c, exact=False)
    _run(lambda m, x: m.nn.functional.avg_pool3d(_cl(x), 2, 1, 1), c, exact=False)
    _run(lambda m, x: m.nn.functional.adaptive_max_pool3d(_cl(x), (2, 3, 1), True), c)
    _run(lambda m, x: m.nn.functional.max_unpool3d(
        *m.nn.functional.max_pool3d(_cl(x), 2, return_indices=True), 2, output_size=(4, 5, 6)),
        c)
    _run(lambda m, x: m.nn.functional.max_unpool2d(
        *m.nn.functional.max_pool2d(_cl(x), 2, return_indices=True), 2, output_size=(6, 7)),
        b)
    F = strided.nn.functional
    gradcheck_strided(lambda m, x: F.adaptive_avg_pool2d(x, (2, 3)), [(1, 2, 5, 4)], second=True)
    gradcheck_strided(lambda m, x: F.adaptive_max_pool2d(x, (2, 3)), [(1, 2, 5, 4)])
    gradcheck_strided(lambda m, x: F.adaptive_avg_pool3d(x, 2), [(1, 3, 3, 4)])


ADAPTIVE_ERRORS = [
    lambda F, x: F.adaptive_avg_pool2d(x[0, 0], 2),
    lambda F, x: F.adaptive_avg_pool2d(x[:, :0], 2),
    lambda F, x: F.adaptive_avg_pool2d(x, (2, -1)),
    lambda F, x: F.adaptive_avg_pool2d(x.long(), 2),
    lambda F, x: F.adaptive_avg_pool2d(x, (None, None, 2)),
    lambda F, x: F.adaptive_max_pool2d(x[0, 0], 2),
    lambda F, x: F.adaptive_max_pool2d(x[:, :, :0], 2),
    lambda F, x: F.adaptive_max_pool2d(x.long(), 2),
    lambda F, x: F.adaptive_avg_pool3d(x[0, 0], 2),
    lambda F, x: F.adaptive_max_pool3d(x[0, 0], 2),
    lambda F, x: F.adaptive_avg_pool1d(x, 2),
    lambda F, x: F.adaptive_max_pool1d(x, 2),
    lambda F, x: F.adaptive_max_pool1d(x[0, :, :0], 2),
]


@pytest.mark.parametrize("i", range(len(ADAPTIVE_ERRORS)))
def test_adaptive_errors(i):
    a = _arr((2, 3, 8, 8), "float32")
    check(lambda m: ADAPTIVE_ERRORS[i](m.nn.functional, m.from_numpy(a.copy())))


# -- lp pooling ----------------------------------------------------------------------------

@pytest.mark.parametrize("p", [2, 1.5, 3, float("inf")])
def test_lp_pool(p):
    a = np.abs(_arr((2, 3, 6, 7))) + 0.1
    _run(lambda m, x: m.nn.functional.lp_pool2d(x, p, 2), a, exact=False)
    _run(lambda m, x: m.nn.functional.lp_pool2d(x, p, (2, 3), 1, ceil_mode=True), a,
         exact=False)
    _run(lambda m, x: m.nn.functional.lp_pool1d(x.flatten(-2), p, 3, 2), a, exact=False)
    _run(lambda m, x: m.nn.functional.lp_pool3d(x, p, (1, 2, 2)), a, exact=False)


# -- fractional max pooling ----------------------------------------------------------------

def _samples(m, shape, dtype="float64"):
    arr = np.random.default_rng(3).random(shape)
    return m.from_numpy(arr.astype(dtype))


@pytest.mark.parametrize("kw", [dict(kernel_size=2, output_size=3),
                                dict(kernel_size=(2, 3), output_size=(4, 2)),
                                dict(kernel_size=2, output_ratio=(0.5, 0.5)),
                                dict(kernel_size=3, output_size=(1, 5))])
def test_fractional_max_pool2d(kw):
    for shape in [(2, 3, 7, 8), (3, 7, 8)]:
        n = shape[0] if len(shape) == 4 else 1
        _run(lambda m, x: m.nn.functional.fractional_max_pool2d(
            x, return_indices=True, _random_samples=_samples(m, (n, shape[-3], 2)), **kw),  # noqa: B023
            _arr(shape, ties=True))


@pytest.mark.parametrize("kw", [dict(kernel_size=2, output_size=3),
                                dict(kernel_size=(1, 2, 3), output_size=(2, 3, 2)),
                                dict(kernel_size=2, output_ratio=(0.5, 0.6, 0.7))])
def test_fractional_max_pool3d(kw):
    for shape in [(2, 2, 5, 6, 7), (2, 5, 6, 7)]:
        n = shape[0] if len(shape) == 5 else 1
        _run(lambda m, x: m.nn.functional.fractional_max_pool3d(
            x, return_indices=True, _random_samples=_samples(m, (n, shape[-4], 3)), **kw),  # noqa: B023
            _arr(shape, ties=True))


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_fractional_seeded(dtype):
    # without samples both draw rand(N, C, 2) from the default generator: same windows
    a = np.random.default_rng(11).standard_normal((2, 3, 10, 9)).astype("float32")

    def fn(m):
        m.manual_seed(5)
        x = m.from_numpy(a.copy()).to(getattr(m, dtype))
        r2 = m.nn.functional.fractional_max_pool2d(x, 2, output_size=(4, 5),
                                                   return_indices=True)
        r3 = m.nn.FractionalMaxPool3d(2, output_ratio=0.5, return_indices=True)(x[None])
        return r2, r3
    check(fn)


def test_fractional_gradcheck():
    F = strided.nn.functional
    s = _samples(strided, (1, 2, 2))
    gradcheck_strided(lambda m, x: F.fractional_max_pool2d(x, 2, output_size=3,
                                                        _random_samples=s), [(1, 2, 6, 5)])


FRACTIONAL_ERRORS = [
    lambda m, x: m.nn.functional.fractional_max_pool2d(x, 2),
    lambda m, x: m.nn.functional.fractional_max_pool2d(x[0, 0], 2, output_size=2),
    lambda m, x: m.nn.functional.fractional_max_pool2d(x, 5, output_size=5),
    lambda m, x: m.nn.functional.fractional_max_pool2d(
        x, 2, output_size=2, _random_samples=m.rand(2, 3, 2, dtype=m.float64)),
    lambda m, x: m.nn.functional.fractional_max_pool2d(
        x, 2, output_size=2, _random_samples=m.rand(1, 3, 2)),
    lambda m, x: m.nn.functional.fractional_max_pool2d(
        x, 2, output_size=2, _random_samples=m.rand(2, 2, 2)),
    lambda m, x: m.nn.functional.fractional_max_pool2d(
        x, 2, output_size=2, _random_samples=m.rand(2, 3, 3)),
    lambda m, x: m.nn.functional.fractional_max_pool3d(x, 2),
    lambda m, x: m.nn.functional.fractional_max_pool3d(x, 5, output_size=5),
    lambda m, x: m.nn.FractionalMaxPool2d(2),
    lambda m, x: m.nn.FractionalMaxPool2d(2, output_size=2, output_ratio=0.5),
    lambda m, x: m.nn.FractionalMaxPool2d(2, output_ratio=1.5),
    lambda m, x: m.nn.FractionalMaxPool3d(0, output_size=2),
]


@pytest.mark.parametrize("i", range(len(FRACTIONAL_ERRORS)))
def test_fractional_errors(i):
    a = _arr((2, 3, 8, 8), "float32")
    check(lambda m: FRACTIONAL_ERRORS[i](m, m.from_numpy(a.copy())))


# -- max_unpool ----------------------------------------------------------------------------

def test_max_unpool():
    a = _arr((2, 3, 6, 7))

    def two(m, x):
        y, i = m.nn.functional.max_pool2d(x, 2, return_indices=True)
        return m.nn.functional.max_unpool2d(y, i, 2, output_size=x.shape[-2:])
    _run(two, a)

    def one(m, x):
        x = x.flatten(-2)
        y, i = m.nn.functional.max_pool1d(x, 3, 2, 1, return_indices=True)
        return m.nn.MaxUnpool1d(3, 2, 1)(y, i, output_size=x.shape[-1:])
    _run(one, a)

    def three(m, x):
        y, i = m.nn.functional.max_pool3d(x, 2, return_indices=True)
        return m.nn.MaxUnpool3d(2)(y, i, output_size=(3, 6, 7))
    _run(three, a)
    _meta(lambda m, x: m.nn.functional.max_unpool2d(x, x.long(), 2), (2, 3, 4, 4))


def _bad_index(i):
    # one invalid index only: torch scans planes in parallel, so which of several invalid
    # indices it reports is not deterministic
    j = i.clone()
    j[1, 2, 1, 2] = 1000
    return j


UNPOOL_ERRORS = [
    lambda m, y, i: m.nn.functional.max_unpool2d(y, i.int(), 2),
    lambda m, y, i: m.nn.functional.max_unpool2d(y, i, 2, output_size=(1, 2, 3)),
    lambda m, y, i: m.nn.functional.max_unpool2d(y, i, 2, output_size=(20, 20)),
    lambda m, y, i: m.nn.functional.max_unpool2d(y, _bad_index(i), 2),
    lambda m, y, i: m.nn.functional.max_unpool2d(y, i[:, :1], 2),
    lambda m, y, i: m.nn.functional.max_unpool2d(y[0, 0], i[0, 0], 2),
    lambda m, y, i: m.nn.functional.max_unpool3d(y, i, 2),
    lambda m, y, i: m.nn.functional.max_unpool3d(y[None], _bad_index(i)[None], 2),
]


@pytest.mark.parametrize("i", range(len(UNPOOL_ERRORS)))
def test_max_unpool_errors(i):
    a = _arr((2, 3, 6, 6))

    def fn(m):
        y, idx = m.nn.functional.max_pool2d(m.from_numpy(a.copy()), 2, return_indices=True)
        return UNPOOL_ERRORS[i](m, y, idx)
    check(fn)


# -- modules -------------------------------------------------------------------------------

MODULES = [
    ("MaxPool1d", (3,), dict(stride=2, padding=1, return_indices=True), (2, 3, 9)),
    ("MaxPool2d", ((2, 3),), dict(dilation=2, ceil_mode=True), (2, 3, 9, 9)),
    ("MaxPool3d", (2,), dict(stride=1), (2, 2, 4, 5, 6)),
    ("AvgPool1d", (3,), dict(stride=2, padding=1, count_include_pad=False), (2, 3, 9)),
    ("AvgPool2d", (3,), dict(stride=2, padding=1, divisor_override=2), (2, 3, 9, 9)),
    ("AvgPool3d", (2,), dict(ceil_mode=True), (2, 2, 5, 5, 5)),
    ("AdaptiveAvgPool1d", (4,), {}, (2, 3, 9)),
    ("AdaptiveAvgPool2d", ((None, 3),), {}, (2, 3, 9, 9)),
    ("AdaptiveAvgPool3d", (2,), {}, (2, 2, 4, 5, 6)),
    ("AdaptiveMaxPool1d", (4,), dict(return_indices=True), (2, 3, 9)),
    ("AdaptiveMaxPool2d", ((3, None),), {}, (2, 3, 9, 9)),
    ("AdaptiveMaxPool3d", (2,), dict(return_indices=True), (2, 2, 4, 5, 6)),
    ("LPPool1d", (2, 3), dict(stride=2), (2, 3, 9)),
    ("LPPool2d", (1.5, 2), dict(ceil_mode=True), (2, 3, 9, 9)),
    ("LPPool3d", (2, 2), {}, (2, 2, 4, 5, 6)),
    ("FractionalMaxPool2d", (2,), dict(output_size=3), (2, 3, 9, 9)),
    ("FractionalMaxPool3d", (2,), dict(output_ratio=(0.5, 0.5, 0.5), return_indices=True),
     (2, 2, 4, 5, 6)),
    ("MaxUnpool2d", (2,), dict(stride=1, padding=0), None),
]


@pytest.mark.parametrize("name,args,kwargs,shape", MODULES, ids=[m[0] for m in MODULES])
def test_modules(name, args, kwargs, shape):
    ms, mt = getattr(strided.nn, name)(*args, **kwargs), getattr(torch.nn, name)(*args, **kwargs)
    assert repr(ms) == repr(mt)
    assert type(ms).__module__ == "strided.nn.modules.pooling"
    if shape is None:
        return

    def fn(m, x):
        mod = ms if m is strided else mt
        if name.startswith("LP"):
            x = x.abs() + 0.1
        m.manual_seed(0)
        return mod(x)
    _run(fn, _arr(shape), exact=False)


# -- property tests over shapes and arguments (non-contiguous inputs included) -------------

@given(c=st.integers(1, 3), h=st.integers(1, 8), w=st.integers(1, 8), k=st.integers(1, 4),
       s=st.integers(1, 3), p=st.integers(0, 2), ceil=st.booleans(), incl=st.booleans(),
       div=st.sampled_from([None, 3, -2]), layout=st.sampled_from(["plain", "t", "cl"]))
@hyp(40)
def test_avg_pool2d_hypothesis(c, h, w, k, s, p, ceil, incl, div, layout):
    a = _arr((2, c, h, w))

    def fn(m):
        x = m.from_numpy(a.copy())
        x = {"plain": x, "t": x.transpose(2, 3), "cl": _cl(x)}[layout]
        return m.nn.functional.avg_pool2d(x, k, s, p, ceil, incl, div)
    check(fn, exact=False)


@given(d=st.integers(1, 5), h=st.integers(1, 9), w=st.integers(1, 9), oh=st.integers(1, 6),
       ow=st.integers(1, 6), none=st.booleans(), step=st.booleans())
@hyp(30)
def test_adaptive_pool2d_hypothesis(d, h, w, oh, ow, none, step):
    a = _arr((2, d, h, w), ties=True)
    out = (None, ow) if none else (oh, ow)

    def fn(m):
        x = m.from_numpy(a.copy())
        if step:
            x = x.transpose(1, 3)
        return (m.nn.functional.adaptive_avg_pool2d(x, out),
                m.nn.functional.adaptive_max_pool2d(x, out, return_indices=True))
    check(fn, exact=False)


def test_double_backward():
    def unpool(m, x):
        y, i = m.nn.functional.max_pool2d(x, 2, return_indices=True)
        z = m.nn.functional.max_unpool2d(y * y, i, 2)
        (g,) = m.autograd.grad(z.sum(), x, create_graph=True)
        return g
    check_grads(unpool, [(1, 2, 4, 4)])

    def adaptive(m, x):
        y = m.nn.functional.adaptive_max_pool2d(x, 2)
        (g,) = m.autograd.grad(y.pow(2).sum(), x, create_graph=True)
        return g
    check_grads(adaptive, [(1, 2, 5, 4)])

    def avg3d(m, x):
        y = m.nn.functional.avg_pool3d(x, 2, 1, 1)
        (g,) = m.autograd.grad(y.pow(2).sum(), x, create_graph=True)
        return g * x
    check_grads(avg3d, [(1, 2, 3, 4)])
    F = strided.nn.functional
    gradcheck_strided(lambda m, x: F.adaptive_avg_pool3d(x, (2, 1, 3)), [(1, 2, 3, 4)],
                      second=True)
    gradcheck_strided(lambda m, x: F.max_pool3d(x, 2, 1, ceil_mode=True), [(1, 2, 3, 4)],
                      second=True)


def _m(m, *shape, dtype=None):
    return m.empty(*shape, device="meta", dtype=dtype or m.float32)


BACKWARD_META = {
    "max_pool2d_with_indices_backward": lambda m: (
        _m(m, 2, 3, 4, 4), _m(m, 2, 3, 8, 8), [2, 2], [2, 2], [0, 0], [1, 1], False,
        _m(m, 2, 3, 4, 4, dtype=m.long)),
    "max_pool3d_with_indices_backward": lambda m: (
        _m(m, 2, 3, 2, 4, 4), _m(m, 2, 3, 4, 8, 8), [2, 2, 2], [2, 2, 2], [0, 0, 0],
        [1, 1, 1], False, _m(m, 2, 3, 2, 4, 4, dtype=m.long)),
    "avg_pool2d_backward": lambda m: (
        _m(m, 2, 3, 4, 4), _m(m, 2, 3, 8, 8), [2, 2], [2, 2], [0, 0], False, True, None),
    "avg_pool3d_backward": lambda m: (
        _m(m, 3, 2, 4, 4), _m(m, 3, 4, 8, 8), [2, 2, 2], [2, 2, 2], [0, 0, 0], False, True,
        None),
    "_adaptive_avg_pool2d_backward": lambda m: (_m(m, 2, 3, 4, 4), _m(m, 2, 3, 8, 8)),
    "_adaptive_avg_pool3d_backward": lambda m: (_m(m, 2, 3, 2, 4, 4), _m(m, 2, 3, 4, 8, 8)),
    "adaptive_max_pool2d_backward": lambda m: (
        _m(m, 2, 3, 4, 4), _m(m, 2, 3, 8, 8), _m(m, 2, 3, 4, 4, dtype=m.long)),
    "adaptive_max_pool3d_backward": lambda m: (
        _m(m, 2, 3, 2, 4, 4), _m(m, 2, 3, 4, 8, 8), _m(m, 2, 3, 2, 4, 4, dtype=m.long)),
    "fractional_max_pool2d_backward": lambda m: (
        _m(m, 2, 3, 4, 4), _m(m, 2, 3, 8, 8), [2, 2], [4, 4], _m(m, 2, 3, 4, 4, dtype=m.long)),
    "fractional_max_pool2d": lambda m: (_m(m, 2, 3, 8, 8), [2, 2], [4, 3], _m(m, 2, 3, 2)),
    "fractional_max_pool3d": lambda m: (_m(m, 3, 4, 8, 8), [2, 2, 2], [2, 4, 3],
                                        _m(m, 1, 3, 3)),
    "max_unpool3d": lambda m: (_m(m, 2, 3, 2, 4, 4), _m(m, 2, 3, 2, 4, 4, dtype=m.long),
                               [4, 8, 8], [2, 2, 2], [0, 0, 0]),
    "_adaptive_avg_pool3d": lambda m: (_m(m, 2, 3, 4, 8, 8), [2, 3, 1]),
    "adaptive_max_pool3d": lambda m: (_m(m, 3, 4, 8, 8), [2, 3, 1]),
}


@pytest.mark.parametrize("name", sorted(BACKWARD_META))
def test_aten_ops_on_meta(name):
    # the aten ops themselves (backward ones included: torch binds them only as ops.aten)
    check(lambda m: getattr(m.ops.aten, name)(*BACKWARD_META[name](m)))


@given(vals=st.lists(st.sampled_from([0.0, 1.0, -1.0, 2.0, float("nan"), float("inf"),
                                      -float("inf")]), min_size=48, max_size=48),
       k=st.integers(1, 3), s=st.integers(1, 2), p=st.integers(0, 1))
@hyp(30)
def test_max_pools_special_values(vals, k, s, p):
    # ties, NaN and infinities: the index torch reports, for every max-type pool
    a = np.array(vals).reshape(1, 2, 4, 6)
    smp = np.array([[[0.3, 0.7], [0.9, 0.1]]])

    def fn(m):
        x = m.from_numpy(a.copy())
        F = m.nn.functional
        out = [F.adaptive_max_pool2d(x, (3, 4), True), F.adaptive_max_pool1d(x[0], 4, True),
               F.fractional_max_pool2d(x, 2, output_size=(3, 3), return_indices=True,
                                       _random_samples=m.from_numpy(smp.copy()))]
        if p <= k // 2:
            out += [F.max_pool2d(x, k, s, p, return_indices=True),
                    F.max_pool1d(x[0], k, s, p, ceil_mode=True, return_indices=True),
                    F.max_pool3d(x, (1, k, k), s, (0, p, p), return_indices=True)]
        return out
    check(fn)


def test_max_unpool_unbatched():
    a = _arr((3, 6, 6))

    def fn(m, x):
        y, i = m.nn.functional.max_pool2d(x, 2, return_indices=True)
        return m.nn.functional.max_unpool2d(y, i, 2)
    _run(fn, a)

    def fn3(m, x):
        y, i = m.nn.functional.max_pool3d(x[None], 2, return_indices=True)
        return m.nn.functional.max_unpool3d(y, i, 2, output_size=(3, 6, 6))
    _run(fn3, a)


def _nn_ops(m):
    if m is torch:
        return torch._C._nn
    from strided.ops._generated import nn_functions
    return nn_functions


OUT_FORMS = [
    lambda n, m, x: n.max_pool2d_with_indices(x, 2, out=(m.empty(0), m.empty(0, dtype=m.long))),
    lambda n, m, x: n.max_pool2d_with_indices(x, 3, 1, 1, out=(m.empty(5), m.empty(0,
                                                                                  dtype=m.long))),
    lambda n, m, x: n.max_pool2d_with_indices(x, 2, out=(m.empty(0, dtype=m.float64),
                                                         m.empty(0, dtype=m.long))),
    lambda n, m, x: n.max_pool2d_with_indices(x, 2, out=(m.empty(0), m.empty(0))),
    lambda n, m, x: n.avg_pool2d(x, 2, out=m.empty(0)),
    lambda n, m, x: n.avg_pool2d(x, 3, 1, 1, out=m.empty(0, dtype=m.float64)),
    lambda n, m, x: n.avg_pool3d(x, 2, out=m.empty(3)),
    lambda n, m, x: n.adaptive_max_pool2d(x, 3, out=(m.empty(0), m.empty(0, dtype=m.long))),
    lambda n, m, x: n.adaptive_max_pool3d(x, 2, out=(m.empty(0), m.empty(0, dtype=m.long))),
    lambda n, m, x: n.adaptive_max_pool2d(x, 3, out=(m.empty(0), m.empty(0))),
    lambda n, m, x: n.max_pool3d_with_indices(x, 2, out=(m.empty(0, dtype=m.float64),
                                                         m.empty(0, dtype=m.long))),
    lambda n, m, x: n.max_pool3d_with_indices(x, 2, out=(m.empty(0), m.empty(0))),
    lambda n, m, x: n.max_pool3d_with_indices(x, 2, out=(m.empty(3), m.empty(0,
                                                                             dtype=m.long))),
    lambda n, m, x: n.adaptive_avg_pool3d(x, 2, out=m.empty(0, dtype=m.float64)),
    lambda n, m, x: n.adaptive_avg_pool3d(x, 2, out=m.empty(3)),
    lambda n, m, x: n.adaptive_avg_pool2d(x, 1, out=m.empty(0)),
    lambda n, m, x: n.adaptive_avg_pool2d(x, (2, 3), out=m.empty(0, dtype=m.float64)),
    lambda n, m, x: n.fractional_max_pool2d(
        x, 2, (2, 2), m.full((2, 3, 2), 0.3), out=(m.empty(0, dtype=m.float64),
                                                   m.empty(0, dtype=m.long))),
    lambda n, m, x: n.fractional_max_pool2d(
        x, 2, (3, 2), m.full((2, 3, 2), 0.3), out=(m.empty(0), m.empty(4, dtype=m.long))),
    lambda n, m, x: n.fractional_max_pool3d(
        x[None], 2, (1, 3, 2), m.full((1, 2, 3), 0.6), out=(m.empty(0),
                                                            m.empty(0, dtype=m.long))),
    lambda n, m, x: n.max_unpool2d(x, x.long() * 0, (8, 8), out=m.empty(0, dtype=m.float64)),
    lambda n, m, x: n.max_unpool2d(x, x.long() * 0 + 3, (8, 8), out=m.empty(3)),
    lambda n, m, x: n.max_unpool3d(x, x.long() * 0 + 3, (8, 8, 8), (2, 2, 2), (0, 0, 0),
                                   out=m.empty(3)),
]


@pytest.mark.parametrize("i", range(len(OUT_FORMS)))
def test_out_forms(i):
    a = _arr((2, 3, 6, 6), "float32")
    check(lambda m: OUT_FORMS[i](_nn_ops(m), m, m.from_numpy(a.copy())), exact=False)


def _pooled(m, x, op):
    if op == "frac2":
        return m.ops.aten.fractional_max_pool2d(x, [2, 2], [4, 4], m.full((2, 3, 2), 0.4))[1]
    return m.ops.aten.max_pool2d_with_indices(x, [2, 2], [2, 2])[1]


BACKWARD_ERRORS = [
    lambda A, m, x, i: A.fractional_max_pool2d_backward(m.ones(2, 3, 4, 5), x, [2, 2], [4, 4],
                                                        i),
    lambda A, m, x, i: A.fractional_max_pool3d_backward(m.ones(2, 3, 1, 4, 5), x[None],
                                                        [2, 2, 2], [1, 4, 4], i[None]),
    lambda A, m, x, i: A.fractional_max_pool3d_backward(m.ones(2, 3, 2, 4, 4), x[None],
                                                        [2, 2, 2], [1, 4, 4], i[None]),
    lambda A, m, x, i: A.max_pool2d_with_indices_backward(m.ones(2, 3, 4, 5), x, [2, 2],
                                                          [2, 2], [0, 0], [1, 1], False, i),
    lambda A, m, x, i: A.max_pool2d_with_indices_backward(
        m.ones(2, 3, 4, 4, dtype=m.float64), x, [2, 2], [2, 2], [0, 0], [1, 1], False, i),
    lambda A, m, x, i: A.avg_pool2d_backward(m.ones(2, 3, 4, 5), x, [2, 2], [2, 2], [0, 0],
                                             False, True, None),
    lambda A, m, x, i: A.max_pool3d_with_indices_backward(
        m.ones(1, 2, 3, 4, 5), x[None], [2, 2, 2], [2, 2, 2], [0, 0, 0], [1, 1, 1], False,
        i[None]),
    lambda A, m, x, i: A.avg_pool3d_backward(m.ones(1, 2, 3, 4, 5), x[None], [2, 2, 2],
                                             [2, 2, 2], [0, 0, 0], False, True, None),
]


@pytest.mark.parametrize("i", range(len(BACKWARD_ERRORS)))
def test_backward_op_errors(i):
    a = _arr((2, 3, 8, 8), "float32")

    def fn(m):
        x = m.from_numpy(a.copy())
        return BACKWARD_ERRORS[i](m.ops.aten, m, x, _pooled(m, x, "frac2" if i < 3 else "mp"))
    check(fn)
