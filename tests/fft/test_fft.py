"""strided.fft against torch.fft: values, dtypes, shapes, strides, grad_fn names, out=,
meta shapes, gradients and error messages."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from conftest import check, hyp
from hypothesis import given
from hypothesis import strategies as st

import strided
from tests.autograd.grad_harness import check_grads

ONE_D = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]
TWO_D = ["fft2", "ifft2", "rfft2", "irfft2", "hfft2", "ihfft2"]
N_D = ["fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn"]
REAL_INPUT = {"rfft", "ihfft", "rfft2", "ihfft2", "rfftn", "ihfftn"}
DTYPES = ["float32", "float64", "complex64", "complex128", "int64"]

RNG = np.random.default_rng(7)


def _values(shape, dtype):
    arr = RNG.standard_normal(shape)
    if dtype.startswith("complex"):
        arr = arr + 1j * RNG.standard_normal(shape)
    if dtype == "int64":
        return (arr * 4).astype(np.int64)
    return arr.astype(dtype)


def _input(m, arr):
    return m.from_numpy(arr.copy())


def _tol(t):
    return 1e-5 if t.dtype in (torch.float32, torch.complex64) else 1e-11


def _compare(rs, rt):
    """Values within a tolerance scaled to the result's size; dtype, shape and strides."""
    assert str(rs.dtype) == str(rt.dtype)
    assert tuple(rs.shape) == tuple(rt.shape)
    # (the strides of size-1 dims are left out: torch's tie-breaking among them is MKL's)
    assert [st for st, n in zip(rs.stride(), rs.shape) if n > 1] == \
        [st for st, n in zip(rt.stride(), rt.shape) if n > 1]
    expected = rt.resolve_conj().numpy()
    actual = rs.resolve_conj().numpy()
    scale = max(1.0, float(np.abs(expected).max())) if expected.size else 1.0
    np.testing.assert_allclose(actual, expected, rtol=0, atol=_tol(rt) * scale)


def _run(name, arr, **kw):
    """The transform in both libraries, or both errors compared."""
    def recipe(m):
        return getattr(m.fft, name)(_input(m, arr), **kw)
    try:
        rt = recipe(torch)
    except Exception:   # noqa: BLE001 - then strided must raise the same
        check(recipe)
        return
    _compare(recipe(strided), rt)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", ONE_D)
def test_one_dim(name, dtype):
    arr = _values((3, 4, 6), dtype)
    for kw in ({}, {"norm": "ortho"}, {"norm": "forward"}, {"norm": "backward"}, {"dim": 0},
               {"dim": 1, "n": 7}, {"n": 3}, {"n": 10, "norm": "ortho"}):
        _run(name, arr, **kw)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", TWO_D + N_D)
def test_multi_dim(name, dtype):
    arr = _values((3, 4, 6), dtype)
    for kw in ({}, {"norm": "ortho"}, {"norm": "forward"}, {"dim": (0, 2)}, {"dim": (2, 0)},
               {"s": (5, 4)}, {"s": (2, -1), "dim": (0, 1)}, {"s": (3, 8), "norm": "ortho"}):
        _run(name, arr, **kw)
    if name in N_D:
        _run(name, arr, dim=1)
        _run(name, arr, s=5)
        if name not in REAL_INPUT and not name.startswith(("irfft", "hfft")):
            _run(name, arr, dim=())


def test_layout_of_permuted_inputs():
    base = _values((4, 5, 6), "float64")
    for name in ("fft", "rfft", "ihfft", "fftn", "rfftn", "irfftn", "hfftn", "ihfftn", "fft2"):
        for perm in ((2, 0, 1), (1, 2, 0), (0, 2, 1)):
            def recipe(m, name=name, perm=perm):
                x = _input(m, base).permute(*perm)
                if name in ("irfftn", "hfftn"):
                    x = x * (1 + 1j)
                return getattr(m.fft, name)(x)
            _compare(recipe(strided), recipe(torch))


def test_non_contiguous_and_sliced_inputs():
    arr = _values((6, 8), "complex128")
    for fn in (lambda m, x: m.fft.fft(x[::2, 1::2]), lambda m, x: m.fft.ifft(x.t(), dim=0),
               lambda m, x: m.fft.fft2(x[:, ::3]), lambda m, x: m.fft.irfft(x[1:], n=9)):
        _compare(fn(strided, _input(strided, arr)), fn(torch, _input(torch, arr)))


@given(shape=st.lists(st.integers(1, 5), min_size=1, max_size=3),
       data=st.data(), complex_=st.booleans(),
       norm=st.sampled_from([None, "ortho", "forward", "backward"]))
@hyp(40)
def test_fftn_hypothesis(shape, data, complex_, norm):
    ndim = len(shape)
    k = data.draw(st.integers(1, ndim))
    dims = data.draw(st.permutations(range(ndim)))[:k]
    s = data.draw(st.one_of(st.none(), st.lists(st.integers(1, 6), min_size=k, max_size=k)))
    arr = _values(tuple(shape), "complex128" if complex_ else "float64")
    name = data.draw(st.sampled_from(N_D))
    _run(name, arr, s=s, dim=dims, norm=norm)


@given(n=st.one_of(st.none(), st.integers(-1, 9)), dim=st.integers(-3, 2),
       name=st.sampled_from(ONE_D), complex_=st.booleans())
@hyp(40)
def test_one_dim_hypothesis(n, dim, name, complex_):
    arr = _values((2, 3, 4), "complex64" if complex_ else "float32")
    _run(name, arr, n=n, dim=dim)


def test_grad_fn_names():
    arr = _values((3, 4), "float64")
    carr = _values((3, 4), "complex128")
    cases = [("fft", arr, {}), ("fft", carr, {}), ("ifft", arr, {}), ("rfft", arr, {}),
             ("irfft", carr, {}), ("hfft", carr, {}), ("ihfft", arr, {}), ("fft", arr, {"n": 6}),
             ("fft", carr, {"n": 2}), ("fftn", arr, {}), ("rfftn", arr, {}),
             ("irfftn", carr, {}), ("hfftn", carr, {}), ("ihfftn", arr, {}),
             ("ihfft2", arr, {}), ("fftshift", arr, {})]
    for name, values, kw in cases:
        names = []
        for m in (strided, torch):
            x = _input(m, values).requires_grad_()
            names.append(type(getattr(m.fft, name)(x, **kw).grad_fn).__name__)
        assert names[0] == names[1], (name, kw, names)


@pytest.mark.parametrize("name", ONE_D + TWO_D + N_D)
def test_gradients(name):
    # complex inputs are made from a real leaf (the harness reads torch's grads with numpy,
    # which refuses the conjugate-bit grads torch gives complex leaves here)
    def lift(x):
        return x if name in REAL_INPUT else x * (1 + 0.5j)

    def program(m, x):
        y = getattr(m.fft, name)(lift(x), norm="ortho")
        return y.abs() if y.is_complex() else y
    check_grads(program, [(3, 4)])

    def padded(m, x):
        kw = {"n": 6} if name in ONE_D else {"s": (2, 6)}
        y = getattr(m.fft, name)(lift(x), **kw)
        return y.abs() if y.is_complex() else y
    check_grads(padded, [(3, 4)])


def test_gradients_of_real_input_to_complex_transforms():
    check_grads(lambda m, x: m.fft.fft(x).abs(), [(5,)])
    check_grads(lambda m, x: m.fft.ifft2(x).abs(), [(3, 4)])
    check_grads(lambda m, x: m.fft.hfft(x), [(5,)])
    check_grads(lambda m, x: m.fft.irfft(x, n=7), [(5,)])


def test_double_backward():
    m = strided
    for name in ("rfft", "fft", "irfft"):
        x = m.tensor([0.3, -1.2, 0.7, 2.0, 0.1], dtype=m.float64, requires_grad=True)

        def fn(t, name=name):
            y = getattr(m.fft, name)(t * (1 + 1j) if name == "irfft" else t)
            return y.abs() if y.is_complex() else y
        assert m.autograd.gradcheck(fn, (x,))
        assert m.autograd.gradgradcheck(fn, (x,))


def test_out():
    arr = _values((3, 4), "float32")
    carr = _values((3, 4), "complex64")
    for name, values, out_dtype in (("fft", arr, "complex64"), ("fft", carr, "complex128"),
                                    ("rfft", arr, "complex64"), ("ihfft", arr, "complex64"),
                                    ("irfft", carr, "float64"), ("hfft", carr, "float32"),
                                    ("fftn", arr, "complex64"), ("ihfft2", arr, "complex64"),
                                    ("ihfftn", arr, "complex128"), ("hfft2", carr, "float32"),
                                    ("irfftn", carr, "float32"), ("rfft2", arr, "complex64")):
        for shape in ((0,), (2,)):
            def recipe(m, name=name, values=values, out_dtype=out_dtype, shape=shape):
                out = m.empty(shape, dtype=getattr(m, out_dtype))
                r = getattr(m.fft, name)(_input(m, values), out=out)
                assert r is out
                return out
            rs, rt = recipe(strided), recipe(torch)
            np.testing.assert_allclose(rs.resolve_conj().numpy(), rt.resolve_conj().numpy(),
                                       atol=1e-5)
            assert tuple(rs.shape) == tuple(rt.shape) and str(rs.dtype) == str(rt.dtype)


def test_out_resize_warning_and_dtype_errors():
    arr = _values((3, 4), "float32")
    check(lambda m: m.fft.fft(_input(m, arr), out=m.empty(2, 2, dtype=m.complex64)),
          exact=False)
    check(lambda m: m.fft.fft(_input(m, arr), out=m.empty(0)))
    check(lambda m: m.fft.ifft(_input(m, arr) * 1j, out=m.empty(0)))
    check(lambda m: m.fft.fftn(_input(m, arr), out=m.empty(0)))
    check(lambda m: m.fft.irfft(_input(m, arr), out=m.empty(0, dtype=m.complex64)))
    check(lambda m: m.fft.hfft(_input(m, arr), out=m.empty(0, dtype=m.int64)))
    check(lambda m: m.fft.ihfft(_input(m, arr), out=m.empty(0)))
    check(lambda m: m.fft.rfftn(_input(m, arr), out=m.empty(0)))
    x = strided.ones(3, requires_grad=True)
    t = torch.ones(3, requires_grad=True)
    check(lambda m: m.fft.fft(x if m is strided else t, out=m.empty(3, dtype=m.complex64)))


ERRORS = [
    lambda m, x: m.fft.fft(x, n=0),
    lambda m, x: m.fft.fft(x, n=-1),
    lambda m, x: m.fft.fft(x, dim=2),
    lambda m, x: m.fft.fft(m.tensor(1.0)),
    lambda m, x: m.fft.fft(x, norm="bad"),
    lambda m, x: m.fft.rfft(x, norm="bad"),
    lambda m, x: m.fft.fftn(x, s=(1, 2, 3)),
    lambda m, x: m.fft.fftn(x, s=(1, 2), dim=(0,)),
    lambda m, x: m.fft.fftn(x, dim=(0, 0)),
    lambda m, x: m.fft.fft2(x, s=(0, 2)),
    lambda m, x: m.fft.rfft(x * 1j),
    lambda m, x: m.fft.ihfft(x * 1j),
    lambda m, x: m.fft.ihfft2(x * 1j),
    lambda m, x: m.fft.rfftn(x * 1j),
    lambda m, x: m.fft.irfftn(x, dim=()),
    lambda m, x: m.fft.rfftn(x, dim=()),
    lambda m, x: m.fft.ihfft2(x, dim=()),
    lambda m, x: m.fft.fft(x.half()),
    lambda m, x: m.fft.rfft(x.to(m.bfloat16)),
    lambda m, x: m.fft.fft(m.zeros(0, 3)),
    lambda m, x: m.fft.fft(m.zeros(3, 0)),
    lambda m, x: m.fft.irfft(m.zeros(3, 1)),
    lambda m, x: m.fft.fft2(m.ones(3)),
    lambda m, x: m.fft.fftshift(x, dim=5),
    lambda m, x: m.fft.hfft(x, dim=-3),
    lambda m, x: m.fft.fftshift(m.tensor(1.0)),
    lambda m, x: m._fft_r2c(x * 1j, [1], 0, True),
    lambda m, x: m._fft_c2c(x, [1], 0, True),
    lambda m, x: m._fft_c2r(x, [1], 0, 4),
]


@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_errors(index):
    arr = _values((4, 3), "float32")
    check(lambda m: ERRORS[index](m, _input(m, arr)))


def test_dtype_promotion(default_dtype):
    arr = np.arange(6).reshape(2, 3)
    for src in ("int64", "int32", "bool", "uint8"):
        check(lambda m, src=src: m.fft.fft(m.from_numpy(arr.astype(src))), exact=False)
    default_dtype("float64")
    check(lambda m: m.fft.rfft(m.arange(5)), exact=False)
    check(lambda m: m.fft.fftn(m.arange(6).reshape(2, 3)), exact=False)


def test_zero_dim_fftn():
    check(lambda m: m.fft.fftn(m.tensor(2.0)))
    check(lambda m: m.fft.ifftn(m.tensor(2.0 + 1j)))


def test_meta_shapes_and_strides():
    for name, kw, dtype in (("fft", {}, "float32"), ("rfft", {"dim": 0}, "float64"),
                            ("irfft", {"n": 9}, "complex64"), ("ihfft", {}, "float64"),
                            ("ihfftn", {"dim": (0, 2)}, "float32"), ("rfftn", {}, "float32"),
                            ("fft2", {"s": (4, 9)}, "complex64"), ("ifft", {"n": 2}, "float32")):
        # dtype and shape as torch's meta kernels give them; strides as torch's CPU kernels
        # (torch's meta registrations follow cuFFT's layout for some transforms)
        res = []
        for m, device in ((strided, "meta"), (torch, "meta"), (torch, "cpu")):
            x = m.zeros((3, 4, 5), dtype=getattr(m, dtype), device=device).permute(2, 0, 1)
            r = getattr(m.fft, name)(x, **kw)
            res.append((str(r.dtype), tuple(r.shape), tuple(r.stride())))
        assert res[0][:2] == res[1][:2], (name, res)
        assert res[0][2] == res[2][2], (name, res)
        assert getattr(strided.fft, name)(strided.empty(2, 3, device="meta")).device.type == \
            "meta"
    for m in (strided, torch):
        x = m.empty((3, 4), device="meta")
        assert tuple(m._fft_r2c(x, [0, 1], 0, True).shape) == (3, 3)


def test_fftfreq():
    for n in (0, 1, 4, 5, 8):
        for d in (1.0, 0.5, 0.1):
            check(lambda m, n=n, d=d: m.fft.fftfreq(n, d))
            check(lambda m, n=n, d=d: m.fft.rfftfreq(n, d))
            check(lambda m, n=n, d=d: m.fft.fftfreq(n, d, dtype=m.float64))
    check(lambda m: m.fft.rfftfreq(-1))
    check(lambda m: m.fft.fftfreq(-1))
    check(lambda m: m.fft.fftfreq(3, 0.0))
    check(lambda m: m.fft.fftfreq(5, dtype=m.int64))
    check(lambda m: m.fft.rfftfreq(5, dtype=m.int64))
    check(lambda m: m.fft.fftfreq(4, dtype=m.complex64))
    check(lambda m: m.fft.fftfreq(3, out=m.empty(5, dtype=m.float64)))
    check(lambda m: m.fft.fftfreq(3, out=m.empty(5, dtype=m.int64)))
    check(lambda m: m.fft.fftfreq(4, requires_grad=True))


def test_shifts():
    arr = _values((4, 5, 3), "float32")
    for fn in ("fftshift", "ifftshift"):
        for kw in ({}, {"dim": 1}, {"dim": (0, -1)}, {"dim": [2]}):
            check(lambda m, fn=fn, kw=kw: getattr(m.fft, fn)(_input(m, arr), **kw))
    check(lambda m: m.fft.ifftshift(m.fft.fftshift(m.arange(7))))


def test_namespace():
    for name in torch.fft.__all__:
        assert hasattr(strided.fft, name), name
    assert not hasattr(strided.fft, "fft_fft")


def test_long_one_dim_transforms():
    # 2^17 points and more take the four-step path (Note [Four-step FFT]); a prime length
    # does not; complex64 runs in complex128 (Note [complex64 transforms in complex128])
    for n, dtype in ((1 << 17, "complex64"), (3 * (1 << 17), "complex128"),
                     (131071, "complex64")):
        arr = _values((n,), dtype)
        for name, kw in (("fft", {}), ("ifft", {"norm": "ortho"}), ("fft", {"n": n + 2})):
            _run(name, arr, **kw)
    arr = _values((1 << 17,), "float32")
    _run("fft", arr)
    _run("ifft", arr)


def test_ihfftn_one_dim_out_is_left_unwritten_as_torch():
    check(lambda m: m.fft.ihfftn(m.arange(4.0), out=m.zeros(3, dtype=m.complex64)))
    check(lambda m: m.fft.ihfftn(m.arange(4.0), out=m.empty(0, dtype=m.complex64)))
    check(lambda m: m.fft.ihfftn(m.arange(8.0).reshape(2, 4), dim=1,
                                 out=m.zeros(2, 3, dtype=m.complex64)))
