"""Vision ops (issue 10): F.interpolate / Upsample (every mode, align_corners, size and
scale_factor, recompute_scale_factor, antialias), grid_sample / affine_grid, pixel and
channel shuffle, one_hot and gumbel_softmax, against torch: values, input gradients,
grad_fn names, strides, meta shapes, module repr, torch's errors and warnings."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import strided
from tests.autograd.grad_harness import gradcheck_strided
from tests.conftest import assert_same, check, hyp
from tests.nn.helpers import both_from_numpy
from tests.nn.helpers import channels_last_copy as _cl

RNG = np.random.default_rng(11)

pytestmark = pytest.mark.filterwarnings("ignore:Since version 1.3.0, affine_grid")


def _run(fn, *arrs, rtol=1e-12, atol=1e-13, grad=True, exact_strides=True):
    """fn(m, *xs) in both libraries: output values, strides and dtype, grad_fn name and the
    gradients of every float input (of a random weighting of the output)."""
    pairs = [both_from_numpy(a, requires_grad=grad and a.dtype.kind == "f") for a in arrs]
    rs = fn(strided, *[p[0] for p in pairs])
    rt = fn(torch, *[p[1] for p in pairs])
    assert tuple(rs.shape) == tuple(rt.shape)
    if exact_strides:
        assert rs.stride() == rt.stride()
    assert str(rs.dtype) == str(rt.dtype)
    np.testing.assert_allclose(rs.detach().numpy(), rt.detach().numpy(), rtol=rtol, atol=atol)
    if grad and rt.requires_grad:
        assert rs.grad_fn.name() == type(rt.grad_fn).__name__
        w = RNG.standard_normal(tuple(rt.shape)).astype(arrs[0].dtype)
        ws, wt = strided.from_numpy(w.copy()), torch.from_numpy(w.copy())
        (rs * ws).sum().backward()
        (rt * wt).sum().backward()
        for (s, t) in pairs:
            if t.requires_grad:
                np.testing.assert_allclose(s.grad.numpy(), t.grad.numpy(), rtol=rtol * 10,
                                           atol=atol * 10)
    return rs, rt


def _meta(fn, shape):
    ms = fn(strided, strided.empty(shape, device="meta"))
    mt = fn(torch, torch.empty(shape, device="meta"))
    assert ms.device.type == "meta"
    assert tuple(ms.shape) == tuple(mt.shape) and ms.stride() == mt.stride()


# -- interpolate: every mode ------------------------------------------------------------------

MODES = [  # (mode, spatial dims, takes align_corners)
    ("nearest", 1, False), ("nearest", 2, False), ("nearest", 3, False),
    ("nearest-exact", 1, False), ("nearest-exact", 2, False), ("nearest-exact", 3, False),
    ("linear", 1, True), ("bilinear", 2, True), ("trilinear", 3, True), ("bicubic", 2, True),
    ("area", 1, False), ("area", 2, False), ("area", 3, False),
]
SHAPES = {1: (2, 3, 7), 2: (2, 3, 5, 7), 3: (1, 2, 4, 5, 3)}
SIZES = {1: [(11,), (4,), (7,)], 2: [(9, 4), (3, 13), (5, 7)], 3: [(6, 3, 4), (2, 7, 3)]}
SCALES = {1: [1.7, 0.6, 2.0], 2: [(1.7, 0.6), (2.0, 3.0), 0.5], 3: [(1.5, 0.7, 2.0), 2.0]}


@pytest.mark.parametrize("mode,k,ac", MODES)
def test_interpolate_modes(mode, k, ac):
    x = RNG.standard_normal(SHAPES[k])
    corners = (False, True) if ac else (None,)
    for align in corners:
        for size in SIZES[k]:
            _run(lambda m, t, size=size, align=align: m.nn.functional.interpolate(
                t, size=size, mode=mode, align_corners=align), x)
        for scale in SCALES[k]:
            for recompute in (None, True, False):
                _run(lambda m, t, scale=scale, align=align, recompute=recompute:
                     m.nn.functional.interpolate(
                    t, scale_factor=scale, mode=mode, align_corners=align,
                    recompute_scale_factor=recompute), x)


@pytest.mark.parametrize("mode,align", [("bilinear", False), ("bilinear", True),
                                        ("bicubic", False), ("bicubic", True),
                                        ("lanczos", False)])
def test_interpolate_antialias(mode, align):
    x = RNG.standard_normal((2, 3, 9, 11))
    for kw in ({"size": (4, 5)}, {"size": (13, 3)}, {"scale_factor": 0.3},
               {"scale_factor": (2.5, 0.45)}):
        _run(lambda m, t, kw=kw: m.nn.functional.interpolate(
            t, mode=mode, align_corners=align, antialias=True, **kw), x)


@pytest.mark.parametrize("mode", ["nearest", "nearest-exact", "bilinear", "bicubic"])
def test_interpolate_float32(mode):
    x = RNG.standard_normal((2, 3, 6, 5)).astype(np.float32)
    ac = None if mode.startswith("nearest") else False
    _run(lambda m, t: m.nn.functional.interpolate(t, scale_factor=(1.7, 2.3), mode=mode,
                                                  align_corners=ac), x, rtol=1e-5, atol=1e-5)
    if mode in ("bilinear", "bicubic"):
        _run(lambda m, t: m.nn.functional.interpolate(t, size=(3, 2), mode=mode,
                                                      antialias=True), x,
             rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_interpolate_reduced_precision(dtype):
    x = RNG.standard_normal((1, 2, 4, 5)).astype(np.float32)
    for mode in ("nearest", "bilinear", "bicubic"):
        def fn(m, t, mode=mode):
            return m.nn.functional.interpolate(t.to(getattr(m, dtype)), scale_factor=1.5,
                                               mode=mode).float()
        # nearest to the bit; the blends within an ulp of the reduced type
        tol = 0 if mode == "nearest" else 1e-2
        _run(fn, x, rtol=tol, atol=tol, grad=False)


def test_interpolate_uint8_nearest():
    x = RNG.integers(0, 255, size=(1, 3, 4, 5)).astype(np.uint8)
    check(lambda m: m.nn.functional.interpolate(m.from_numpy(x.copy()), scale_factor=1.7))
    check(lambda m: m.nn.functional.interpolate(m.from_numpy(x.copy()), size=(3, 7),
                                                mode="nearest-exact"))


def test_interpolate_channels_last_keeps_layout():
    x = RNG.standard_normal((2, 3, 5, 4))
    for mode in ("nearest", "bilinear", "bicubic"):
        _run(lambda m, t, mode=mode: m.nn.functional.interpolate(_cl(t), scale_factor=2,
                                                                 mode=mode), x)
    x3 = RNG.standard_normal((1, 2, 3, 4, 3))
    _run(lambda m, t: m.nn.functional.interpolate(_cl(t), size=(4, 4, 4), mode="trilinear"),
         x3)


def test_interpolate_channels_last_leaf_gradients():
    # a channels-last leaf: its .grad keeps the layout (torch's AccumulateGrad)
    x = RNG.standard_normal((2, 3, 8, 9))
    outs = []
    for m in (strided, torch):
        t = _cl(m.from_numpy(x.copy())).requires_grad_(True)
        o = m.nn.functional.interpolate(t, size=(4, 5), mode="bilinear", antialias=True)
        o.backward(_cl(m.ones_like(o)))
        outs.append((o.stride(), t.grad.stride(), t.grad.numpy()))
    assert outs[0][:2] == outs[1][:2]
    np.testing.assert_allclose(outs[0][2], outs[1][2], rtol=1e-12, atol=1e-13)


@hyp(25)
@given(st.integers(1, 6), st.integers(1, 6), st.floats(0.3, 3.5), st.floats(0.3, 3.5),
       st.sampled_from(["nearest", "nearest-exact", "bilinear", "bicubic"]),
       st.booleans(), st.booleans())
def test_interpolate_hypothesis(h, w, sh, sw, mode, align, transposed):
    x = RNG.standard_normal((2, 3, w, h) if transposed else (2, 3, h, w))
    ac = None if mode.startswith("nearest") else align
    if int(h * sh) < 1 or int(w * sw) < 1:
        check(lambda m: m.nn.functional.interpolate(
            m.from_numpy(x.copy()).transpose(2, 3) if transposed else m.from_numpy(x.copy()),
            scale_factor=(sh, sw), mode=mode, align_corners=ac))
        return

    def fn(m, t):
        t = t.transpose(2, 3) if transposed else t    # non-contiguous input
        return m.nn.functional.interpolate(t, scale_factor=(sh, sw), mode=mode, align_corners=ac)
    _run(fn, x, exact_strides=not transposed)


def test_interpolate_gradcheck():
    def fn(m, x):
        return (m.nn.functional.interpolate(x, size=(4, 3), mode="bicubic", align_corners=True),
                m.nn.functional.interpolate(x, scale_factor=0.6, mode="bilinear",
                                            antialias=True))
    gradcheck_strided(fn, [(1, 2, 3, 5)], second=True)


def test_interpolate_meta():
    for mode, k, _ in MODES:
        if mode == "area":
            continue
        shape = SHAPES[k]
        _meta(lambda m, t, mode=mode: m.nn.functional.interpolate(t, scale_factor=2.5,
                                                                  mode=mode), shape)
        _meta(lambda m, t, mode=mode, k=k: m.nn.functional.interpolate(
            t, size=SIZES[k][0], mode=mode), shape)
    _meta(lambda m, t: m.nn.functional.interpolate(t, size=(2, 3), mode="bilinear",
                                                   antialias=True), (1, 2, 5, 6))
    _meta(lambda m, t: m.nn.functional.interpolate(_cl(t), size=(2, 3), mode="bilinear"),
          (1, 2, 5, 6))


def test_interpolate_direct_ops():
    x = RNG.standard_normal((1, 2, 3, 4))
    _run(lambda m, t: m.ops.aten.upsample_bilinear2d(t, [5, 6], True), x)
    _run(lambda m, t: m.ops.aten.upsample_bilinear2d(t, [5, 6], False, 2.0, 1.5), x)
    _run(lambda m, t: m.ops.aten.upsample_nearest2d(t, [5, 7], 1.3, None), x)
    _run(lambda m, t: m.ops.aten.upsample_bicubic2d.vec(t, None, False, [1.5, 2.5]), x)
    _run(lambda m, t: m.ops.aten._upsample_nearest_exact1d(t[0], [9]), x)


def _x(m, shape=(1, 2, 4, 4), dtype="float32"):
    return m.zeros(shape, dtype=getattr(m, dtype))


ERRORS = [
    lambda m: m.nn.functional.interpolate(_x(m), size=3, align_corners=True),
    lambda m: m.nn.functional.interpolate(_x(m), size=3, mode="area", align_corners=False),
    lambda m: m.nn.functional.interpolate(_x(m), size=3, scale_factor=2),
    lambda m: m.nn.functional.interpolate(_x(m)),
    lambda m: m.nn.functional.interpolate(_x(m), size=(3, 4, 5)),
    lambda m: m.nn.functional.interpolate(_x(m), size=(3.0, 4)),
    lambda m: m.nn.functional.interpolate(_x(m), scale_factor=(2, 3, 4)),
    lambda m: m.nn.functional.interpolate(_x(m), size=3, recompute_scale_factor=True),
    lambda m: m.nn.functional.interpolate(_x(m), size=3, antialias=True),
    lambda m: m.nn.functional.interpolate(_x(m, (1, 2, 4)), size=3, mode="bilinear",
                                          antialias=True),
    lambda m: m.nn.functional.interpolate(_x(m, (1, 2, 4)), size=3, mode="bilinear"),
    lambda m: m.nn.functional.interpolate(_x(m, (1, 2, 4)), size=3, mode="trilinear"),
    lambda m: m.nn.functional.interpolate(_x(m), size=3, mode="linear"),
    lambda m: m.nn.functional.interpolate(_x(m), size=3, mode="trilinear"),
    lambda m: m.nn.functional.interpolate(_x(m, (1, 2, 3, 3, 3)), size=3, mode="linear"),
    lambda m: m.nn.functional.interpolate(_x(m, (1, 2, 3, 3, 3)), size=3, mode="bilinear"),
    lambda m: m.nn.functional.interpolate(_x(m, (1, 2)), size=3, mode="nearest"),
    lambda m: m.nn.functional.interpolate(_x(m), size=3, mode="cubic"),
    lambda m: m.nn.functional.interpolate(_x(m), size=3, mode="lanczos"),
    lambda m: m.nn.functional.interpolate(_x(m), size=3, mode="lanczos", antialias=True,
                                          align_corners=True),
    lambda m: m.nn.functional.interpolate(_x(m, (1, 2, 4)), size=3, mode="lanczos",
                                          antialias=True),
    lambda m: m.nn.functional.interpolate(_x(m, dtype="float16"), size=3, mode="lanczos",
                                          antialias=True),
    lambda m: m.nn.functional.interpolate(_x(m), size=0),
    lambda m: m.nn.functional.interpolate(_x(m, (1, 2, 4)), size=0),
    lambda m: m.nn.functional.interpolate(_x(m, (1, 2, 3, 3, 3)), size=(0, 1, 1)),
    lambda m: m.nn.functional.interpolate(_x(m), scale_factor=0.1),
    lambda m: m.nn.functional.interpolate(_x(m, (1, 0, 4, 4)), size=3),
    lambda m: m.nn.functional.interpolate(_x(m, (0, 2, 4, 4)), size=3),
    lambda m: m.nn.functional.interpolate(_x(m, dtype="int64"), size=3, mode="bicubic"),
    lambda m: m.nn.functional.interpolate(_x(m, dtype="float64"), size=3, mode="bilinear",
                                          antialias=True),
    lambda m: m.nn.functional.interpolate(_x(m, (1, 2, 4), "int32"), size=3, mode="linear"),
    lambda m: m.nn.functional.interpolate(_x(m, (2, 3, 4), "int64"), size=3),
    lambda m: m.ops.aten.upsample_bilinear2d(_x(m), [3], False),
    lambda m: m.ops.aten.upsample_nearest2d.vec(_x(m), [3], None),
    lambda m: m.ops.aten.upsample_nearest2d.vec(_x(m), None, [2.0]),
    lambda m: m.ops.aten.upsample_nearest2d.vec(_x(m), None, None),
    lambda m: m.ops.aten.upsample_nearest2d.vec(_x(m), [3, 3], [2.0, 2.0]),
    lambda m: m.ops.aten.upsample_nearest2d.vec(_x(m), None, [float("inf"), 2.0]),
    lambda m: m.nn.functional.interpolate(_x(m), scale_factor=-2.0),
    lambda m: m.ops.aten.upsample_nearest2d_backward(_x(m), [4, 4], [1, 2, 2], None, None),
    lambda m: m.ops.aten.upsample_nearest2d_backward(_x(m), [4, 5], [1, 2, 2, 2], None, None),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_interpolate_errors(i):
    check(ERRORS[i], exact=False)


def test_interpolate_float_size_is_a_type_error():
    # the binding's overload list names torch's out= overloads too: first lines compared
    check(lambda m: m.nn.functional.interpolate(_x(m), size=3.0), first_line=True)
    check(lambda m: m.nn.functional.interpolate(_x(m), size=2.5, mode="bicubic"),
          first_line=True)


def test_upsample_deprecation_warnings():
    x = RNG.standard_normal((1, 1, 2, 3))
    check(lambda m: m.nn.functional.upsample(m.from_numpy(x.copy()), scale_factor=2),
          exact=False)
    check(lambda m: m.nn.functional.upsample_nearest(m.from_numpy(x.copy()), size=3),
          exact=False)
    check(lambda m: m.nn.functional.upsample_bilinear(m.from_numpy(x.copy()), size=(3, 5)),
          exact=False)


def test_upsample_modules():
    x = RNG.standard_normal((2, 3, 4, 5))
    specs = [((), {"scale_factor": 2}), ((), {"size": (3, 7), "mode": "bilinear"}),
             ((), {"scale_factor": (1.5, 2.0), "mode": "bicubic", "align_corners": True}),
             ((), {"scale_factor": 0.5, "recompute_scale_factor": True}),
             ((5,), {"mode": "nearest-exact"})]
    for args, kw in specs:
        ms, mt = strided.nn.Upsample(*args, **kw), torch.nn.Upsample(*args, **kw)
        assert repr(ms) == repr(mt)
        _run(lambda m, t, ms=ms, mt=mt: (ms if m is strided else mt)(t), x)
    for cls, args in (("UpsamplingNearest2d", (None, 2)), ("UpsamplingBilinear2d", ((3, 4),)),
                      ("UpsamplingBilinear2d", (None, (2, 3)))):
        ms, mt = getattr(strided.nn, cls)(*args), getattr(torch.nn, cls)(*args)
        assert repr(ms) == repr(mt)
        _run(lambda m, t, ms=ms, mt=mt: (ms if m is strided else mt)(t), x)


# -- grid_sample / affine_grid ----------------------------------------------------------------

GRID_CASES = [(k, mode, pad, ac) for k in (2, 3) for mode in ("bilinear", "nearest", "bicubic")
              for pad in ("zeros", "border", "reflection") for ac in (False, True)
              if not (k == 3 and mode == "bicubic")]


@pytest.mark.parametrize("k,mode,pad,ac", GRID_CASES)
def test_grid_sample(k, mode, pad, ac):
    x = RNG.standard_normal((2, 3) + ((4, 5) if k == 2 else (3, 4, 5)))
    g = RNG.uniform(-1.4, 1.4, size=(2,) + ((3, 4) if k == 2 else (2, 3, 4)) + (k,))
    rs, rt = _run(lambda m, t, gr: m.nn.functional.grid_sample(
        t, gr, mode=mode, padding_mode=pad, align_corners=ac), x, g, rtol=1e-11, atol=1e-12)


def test_grid_sample_float32_and_noncontiguous():
    x = RNG.standard_normal((2, 3, 5, 4)).astype(np.float32)
    g = RNG.uniform(-1.2, 1.2, size=(2, 2, 3, 4)).astype(np.float32)
    _run(lambda m, t, gr: m.nn.functional.grid_sample(
        t.transpose(2, 3), gr.permute(0, 2, 3, 1), align_corners=False), x, g,
        rtol=1e-5, atol=1e-5)
    _run(lambda m, t, gr: m.nn.functional.grid_sample(
        t, gr.permute(0, 2, 3, 1), mode="bicubic", padding_mode="reflection",
        align_corners=True), x, g, rtol=1e-5, atol=1e-5)


@hyp(25)
@given(st.integers(1, 5), st.integers(1, 5), st.integers(1, 4), st.integers(1, 4),
       st.sampled_from(["bilinear", "nearest", "bicubic"]),
       st.sampled_from(["zeros", "border", "reflection"]), st.booleans(), st.booleans())
def test_grid_sample_hypothesis(h, w, gh, gw, mode, pad, ac, transposed):
    x = RNG.standard_normal((2, 2, w, h) if transposed else (2, 2, h, w))
    g = RNG.uniform(-1.6, 1.6, size=(2, gh, gw, 2))

    def fn(m, t, gr):
        t = t.transpose(2, 3) if transposed else t    # non-contiguous input
        return m.nn.functional.grid_sample(t, gr, mode=mode, padding_mode=pad,
                                           align_corners=ac)
    _run(fn, x, g, rtol=1e-10, atol=1e-11)


@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic"])
@pytest.mark.parametrize("k", [2, 3])
def test_grid_sample_double_backward_input_path(mode, k):
    """A penalty on the input gradient (gradient penalties): its gradients reach the grid
    and the cotangent as torch's, the input gets none."""
    if k == 3 and mode == "bicubic":
        return
    x = RNG.standard_normal((2, 3) + (4,) * k)
    g = RNG.uniform(-1.2, 1.2, (2,) + (3,) * k + (k,))
    v = RNG.standard_normal((2, 3) + (3,) * k)
    res = []
    for m in (strided, torch):
        xs, gs, vs = (m.from_numpy(a.copy()).requires_grad_(True) for a in (x, g, v))
        out = m.nn.functional.grid_sample(xs, gs, mode=mode, padding_mode="reflection",
                                          align_corners=False)
        gx, = m.autograd.grad((out * vs).sum(), xs, create_graph=True)
        (gx * gx).sum().backward()
        res.append((xs.grad, gs.grad.numpy(), vs.grad.numpy()))
    assert res[0][0] is None and res[1][0] is None
    np.testing.assert_allclose(res[0][1], res[1][1], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(res[0][2], res[1][2], rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_grid_sample_reduced_precision(dtype):
    x = RNG.standard_normal((2, 3, 4, 5)).astype(np.float32)
    g = RNG.uniform(-1.2, 1.2, (2, 3, 4, 2)).astype(np.float32)
    for mode in ("bilinear", "nearest", "bicubic"):
        # values to the bit (computed in the reduced type, as torch's kernel does)
        check(lambda m, mode=mode: m.nn.functional.grid_sample(
            m.from_numpy(x.copy()).to(getattr(m, dtype)),
            m.from_numpy(g.copy()).to(getattr(m, dtype)), mode=mode,
            padding_mode="reflection", align_corners=False))


def test_grid_sample_gradcheck():
    def fn(m, x, g):
        return m.nn.functional.grid_sample(x, g * 0.7, align_corners=False)
    gradcheck_strided(fn, [(1, 2, 3, 4), (1, 2, 3, 2)])


def test_grid_sample_warning_and_meta():
    x = RNG.standard_normal((1, 1, 3, 3))
    g = RNG.uniform(-1, 1, (1, 2, 2, 2))
    check(lambda m: m.nn.functional.grid_sample(m.from_numpy(x.copy()), m.from_numpy(g.copy())),
          exact=False)
    for k in (2, 3):
        xs = (1, 2) + (3,) * k
        gs = (1,) + (4,) * k + (k,)
        ms = strided.nn.functional.grid_sample(strided.empty(xs, device="meta"),
                                               strided.empty(gs, device="meta"),
                                               align_corners=False)
        assert tuple(ms.shape) == (1, 2) + (4,) * k


GRID_ERRORS = [
    lambda m: m.nn.functional.grid_sample(_x(m), _x(m, (1, 2, 2, 2)), mode="cubic",
                                          align_corners=False),
    lambda m: m.nn.functional.grid_sample(_x(m), _x(m, (1, 2, 2, 2)), padding_mode="wrap",
                                          align_corners=False),
    lambda m: m.nn.functional.grid_sample(_x(m), _x(m, (1, 2, 2, 2), "float64"),
                                          align_corners=False),
    lambda m: m.nn.functional.grid_sample(_x(m), _x(m, (1, 2, 2, 1)), align_corners=False),
    lambda m: m.nn.functional.grid_sample(_x(m), _x(m, (2, 2, 2, 2)), align_corners=False),
    lambda m: m.nn.functional.grid_sample(_x(m, (1, 2, 0, 3)), _x(m, (1, 2, 2, 2)),
                                          align_corners=False),
    lambda m: m.nn.functional.grid_sample(_x(m, (1, 2, 3, 3, 3)), _x(m, (1, 2, 2, 2, 3)),
                                          mode="bicubic", align_corners=False),
    lambda m: m.nn.functional.grid_sample(_x(m, dtype="int64"), _x(m, (1, 2, 2, 2), "int64"),
                                          align_corners=False),
]


@pytest.mark.parametrize("i", range(len(GRID_ERRORS)))
def test_grid_sample_errors(i):
    check(GRID_ERRORS[i], exact=False)


@pytest.mark.parametrize("size", [(2, 3, 4, 5), (2, 1, 1, 3), (1, 2, 3, 4, 2), (2, 1, 1, 1, 1)])
@pytest.mark.parametrize("ac", [False, True])
def test_affine_grid(size, ac):
    k = len(size) - 2
    theta = RNG.standard_normal((size[0], k, k + 1))
    _run(lambda m, th: m.nn.functional.affine_grid(th, list(size), align_corners=ac), theta)
    _run(lambda m, th: m.nn.functional.affine_grid(th.float(), size, align_corners=ac), theta,
         rtol=1e-5, atol=1e-6)


AFFINE_ERRORS = [
    lambda m: m.nn.functional.affine_grid(_x(m, (1, 2, 3)), [1, 1, 3, 3]),
    lambda m: m.nn.functional.affine_grid(_x(m, (1, 2, 3), "int64"), [1, 1, 3, 3], False),
    lambda m: m.nn.functional.affine_grid(_x(m, (1, 3, 3)), [1, 1, 3, 3], False),
    lambda m: m.nn.functional.affine_grid(_x(m, (1, 2, 3)), [1, 1, 3, 3, 3], False),
    lambda m: m.nn.functional.affine_grid(_x(m, (1, 2, 3)), [1, 1, 3], False),
    lambda m: m.nn.functional.affine_grid(_x(m, (1, 2, 3)), [1, 1, 0, 3], False),
    lambda m: m.nn.functional.affine_grid(_x(m, (1, 2, 3)), [1, 1, 1, 3], True),
]


@pytest.mark.parametrize("i", range(len(AFFINE_ERRORS)))
def test_affine_grid_errors_and_warnings(i):
    check(AFFINE_ERRORS[i], exact=False)


# -- pixel / channel shuffle ------------------------------------------------------------------

@pytest.mark.parametrize("shape,r", [((2, 8, 3, 3), 2), ((3, 9, 2, 1), 3), ((18, 2, 2), 3),
                                     ((2, 1, 4, 2, 2), 2), ((2, 3, 2, 2), 1)])
def test_pixel_shuffle(shape, r):
    x = RNG.standard_normal(shape)
    _run(lambda m, t: m.nn.functional.pixel_shuffle(t, r), x)
    y = RNG.standard_normal(shape[:-3] + (shape[-3], shape[-2] * r, shape[-1] * r))
    _run(lambda m, t: m.nn.functional.pixel_unshuffle(t, r), y)
    if len(shape) == 4:
        _run(lambda m, t: m.nn.functional.pixel_shuffle(_cl(t), r), x)
        _run(lambda m, t: m.nn.functional.pixel_unshuffle(_cl(t), r), y)
        _meta(lambda m, t: m.pixel_shuffle(t, r), shape)
    for cls, arg, inp in (("PixelShuffle", r, x), ("PixelUnshuffle", r, y)):
        ms, mt = getattr(strided.nn, cls)(arg), getattr(torch.nn, cls)(arg)
        assert repr(ms) == repr(mt)
        _run(lambda m, t, ms=ms, mt=mt: (ms if m is strided else mt)(t), inp)


@pytest.mark.parametrize("shape,g", [((2, 8, 3, 3), 2), ((2, 6, 5), 3), ((1, 4, 2, 2, 2), 4)])
def test_channel_shuffle(shape, g):
    x = RNG.standard_normal(shape)
    _run(lambda m, t: m.nn.functional.channel_shuffle(t, g), x)
    # a non-contiguous input of the same shape (dims 0 and -1 swapped in memory)
    _run(lambda m, t: m.channel_shuffle(t.transpose(0, -1).contiguous().transpose(0, -1), g), x)
    _run(lambda m, t: m.native_channel_shuffle(t, g), x, grad=False)
    if len(shape) == 4:
        _run(lambda m, t: m.channel_shuffle(_cl(t), g), x)
    _meta(lambda m, t: m.channel_shuffle(t, g), shape)
    ms, mt = strided.nn.ChannelShuffle(g), torch.nn.ChannelShuffle(g)
    assert repr(ms) == repr(mt)
    _run(lambda m, t: (ms if m is strided else mt)(t), x)


SHUFFLE_ERRORS = [
    lambda m: m.nn.functional.pixel_shuffle(_x(m), 3),
    lambda m: m.nn.functional.pixel_shuffle(_x(m), 0),
    lambda m: m.nn.functional.pixel_shuffle(_x(m, (4, 4)), 0),
    lambda m: m.nn.functional.pixel_unshuffle(_x(m, (1, 2, 3, 4)), 2),
    lambda m: m.nn.functional.pixel_unshuffle(_x(m, (1, 2, 4, 3)), 2),
    lambda m: m.nn.functional.pixel_unshuffle(_x(m), -1),
    lambda m: m.nn.functional.pixel_unshuffle(_x(m, (4,)), 1),
    lambda m: m.nn.functional.channel_shuffle(_x(m), 3),
    lambda m: m.nn.functional.channel_shuffle(_x(m), 0),
    lambda m: m.nn.functional.channel_shuffle(_x(m, (2, 4)), 2),
    lambda m: m.native_channel_shuffle(_x(m), -2),
    lambda m: m.nn.functional.pixel_shuffle(_x(m), 2.0),
    lambda m: m.nn.functional.channel_shuffle(_x(m), groups="2"),
]


@pytest.mark.parametrize("i", range(len(SHUFFLE_ERRORS)))
def test_shuffle_errors(i):
    check(SHUFFLE_ERRORS[i])


# -- one_hot, gumbel_softmax ------------------------------------------------------------------

@pytest.mark.parametrize("values,n", [([1, 2, 0], -1), ([[1, 2], [4, 0]], 6), ([3], 4),
                                      ([], 3), ([[0]], -1)])
def test_one_hot(values, n):
    check(lambda m: m.nn.functional.one_hot(m.tensor(values, dtype=m.int64), n))
    check(lambda m: m.nn.functional.one_hot(m.tensor(values, dtype=m.int64).t(), n))


ONE_HOT_ERRORS = [
    lambda m: m.nn.functional.one_hot(m.tensor([1, 2, 5]), 3),
    lambda m: m.nn.functional.one_hot(m.tensor([1, -2, 1]), 3),
    lambda m: m.nn.functional.one_hot(m.tensor([1.0, 2.0])),
    lambda m: m.nn.functional.one_hot(m.tensor([1, 2], dtype=m.int32), 4),
    lambda m: m.nn.functional.one_hot(m.tensor([], dtype=m.int64)),
    lambda m: m.nn.functional.one_hot(m.tensor([1, 2]), -3),
]


@pytest.mark.parametrize("i", range(len(ONE_HOT_ERRORS)))
def test_one_hot_errors(i):
    check(ONE_HOT_ERRORS[i])


def test_one_hot_meta():
    ms = strided.nn.functional.one_hot(strided.empty(2, 3, dtype=strided.int64,
                                                     device="meta"), 5)
    assert tuple(ms.shape) == (2, 3, 5) and ms.dtype is strided.int64


@pytest.mark.parametrize("hard", [False, True])
@pytest.mark.parametrize("dim", [-1, 0])
def test_gumbel_softmax_same_seed_same_sample(hard, dim):
    x = RNG.standard_normal((4, 5))
    outs = []
    for m in (strided, torch):
        m.manual_seed(123)
        t = m.from_numpy(x.copy()).requires_grad_(True)
        y = m.nn.functional.gumbel_softmax(t, tau=0.7, hard=hard, dim=dim)
        w = m.from_numpy(np.arange(20.0).reshape(4, 5))
        (y * w).sum().backward()
        outs.append((y.detach().numpy(), t.grad.numpy(),
                     y.grad_fn.name() if m is strided else type(y.grad_fn).__name__))
    np.testing.assert_allclose(outs[0][0], outs[1][0], rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(outs[0][1], outs[1][1], rtol=1e-10, atol=1e-12)
    assert outs[0][2] == outs[1][2]


def test_gumbel_softmax_eps_warning():
    def fn(m):
        m.manual_seed(0)
        return m.nn.functional.gumbel_softmax(m.zeros(2, 3), eps=1e-5)
    check(fn, exact=False)


def test_pad_meta_and_values_exact():
    x = RNG.standard_normal((1, 2, 3, 4))
    s, t = both_from_numpy(x)
    assert_same(strided.nn.functional.pad(s, (1, 2, 2, 0), mode="reflect"),
                torch.nn.functional.pad(t, (1, 2, 2, 0), mode="reflect"))


@pytest.mark.parametrize("mode", ["linear", "bilinear", "bicubic", "trilinear"])
@pytest.mark.parametrize("align", [False, True])
def test_interpolate_to_a_single_output(mode, align):
    """One output sample along a dim: without align_corners it is taken from the middle of
    the input (torch's area_pixel_compute_scale), not from its first element."""
    k = {"linear": 1, "bilinear": 2, "bicubic": 2, "trilinear": 3}[mode]
    x = np.arange(2 * 3 * 5 ** k, dtype=np.float64).reshape((2, 3) + (5,) * k)
    check(lambda m: m.nn.functional.interpolate(m.from_numpy(x.copy()), size=(1,) * k,
                                                mode=mode, align_corners=align), exact=False)
