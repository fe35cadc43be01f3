"""Convolutions, transposed convolutions, Fold/Unfold: differential tests against torch.

Values and gradients (float64 tight, float32 with a tolerance), grad_fn graphs, the meta
device's shapes and strides, output layouts, torch's error messages, module init after
the same seed (bit-exact), repr, and hypothesis-drawn shapes / strides / paddings /
dilations / groups on non-contiguous inputs.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import strided
from tests.autograd.grad_harness import check_grads, grad_fn_names, gradcheck_strided
from tests.conftest import assert_same_error, check, hyp

F_CONV = {1: "conv1d", 2: "conv2d", 3: "conv3d"}
F_CONVT = {1: "conv_transpose1d", 2: "conv_transpose2d", 3: "conv_transpose3d"}


def _f(m):
    return m.nn.functional


# -- values and gradients (float64) -------------------------------------------------------------

# (function, input shape, weight shape, bias?, kwargs)
CASES = [
    ("conv1d", (2, 4, 9), (6, 2, 3), True, dict(stride=2, padding=1, dilation=2, groups=2)),
    ("conv1d", (4, 7), (3, 4, 2), False, {}),                               # unbatched
    ("conv1d", (2, 3, 8), (5, 3, 4), True, dict(padding="same")),
    ("conv1d", (2, 3, 8), (5, 3, 3), True, dict(padding="valid", stride=2)),
    ("conv2d", (2, 4, 9, 8), (6, 2, 3, 2), True,
     dict(stride=(2, 1), padding=(1, 2), dilation=(2, 1), groups=2)),
    ("conv2d", (3, 7, 6), (4, 3, 3, 3), True, dict(padding=1)),            # unbatched
    ("conv2d", (2, 3, 7, 6), (4, 3, 2, 3), True, dict(padding="same", dilation=(1, 2))),
    ("conv2d", (2, 3, 7, 6), (4, 3, 4, 2), False, dict(padding="same")),   # uneven 'same'
    ("conv2d", (1, 6, 5, 5), (6, 1, 3, 3), True, dict(groups=6, padding=2)),  # depthwise
    ("conv2d", (2, 3, 5, 5), (4, 3, 1, 1), True, dict(stride=2)),
    ("conv3d", (2, 4, 5, 6, 5), (6, 4, 3, 2, 2), True, dict(stride=(1, 2, 1), padding=1)),
    ("conv3d", (4, 4, 5, 4), (2, 2, 2, 2, 2), False, dict(groups=2, dilation=(1, 2, 1))),
    ("conv_transpose1d", (2, 4, 5), (4, 3, 3), True, dict(stride=2, padding=1,
                                                         output_padding=1)),
    ("conv_transpose1d", (4, 5), (4, 2, 2), False, dict(groups=2, dilation=3)),
    ("conv_transpose2d", (2, 4, 5, 6), (4, 3, 3, 2), True,
     dict(stride=(2, 3), padding=(1, 0), output_padding=(1, 2), dilation=(1, 2), groups=2)),
    ("conv_transpose2d", (3, 4, 4), (3, 2, 2, 2), True, dict(stride=2)),    # unbatched
    ("conv_transpose2d", (2, 2, 3, 3), (2, 2, 3, 3), True,
     dict(stride=1, output_padding=1, dilation=2)),        # output_padding below dilation
    ("conv_transpose3d", (2, 2, 3, 4, 3), (2, 3, 2, 3, 2), True,
     dict(stride=(2, 1, 2), padding=(0, 1, 1), output_padding=(1, 0, 1))),
]


def _case_program(name, has_bias, kwargs):
    def program(m, x, w, *b):
        return getattr(_f(m), name)(x, w, b[0] if has_bias else None, **kwargs)
    return program


def _bias_len(name, wshape, kwargs):
    return wshape[1] * kwargs.get("groups", 1) if "transpose" in name else wshape[0]


@pytest.mark.parametrize("name, xshape, wshape, has_bias, kwargs", CASES)
def test_values_and_grads_float64(name, xshape, wshape, has_bias, kwargs):
    shapes = [xshape, wshape] + ([(_bias_len(name, wshape, kwargs),)] if has_bias else [])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_grads(_case_program(name, has_bias, kwargs), shapes, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name, xshape, wshape, has_bias, kwargs", CASES[::3])
def test_values_and_grads_float32(name, xshape, wshape, has_bias, kwargs):
    shapes = [xshape, wshape] + ([(_bias_len(name, wshape, kwargs),)] if has_bias else [])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_grads(_case_program(name, has_bias, kwargs), shapes, dtype="float32",
                    rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name, xshape, wshape, has_bias, kwargs", CASES)
def test_grad_fn_graph(name, xshape, wshape, has_bias, kwargs):
    names = {}
    for m in (strided, torch):
        x = m.ones(xshape, dtype=m.float64, requires_grad=True)
        w = m.ones(wshape, dtype=m.float64, requires_grad=True)
        b = m.ones(_bias_len(name, wshape, kwargs), dtype=m.float64, requires_grad=True) \
            if has_bias else None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            names[m.__name__] = grad_fn_names(getattr(_f(m), name)(x, w, b, **kwargs))
    assert names["strided"] == names["torch"]
    assert "ConvolutionBackward0" in names["torch"]


def test_convolution_aten_ops_and_grad_fn_names():
    def recipe(m):
        x = m.ones(2, 3, 6, 6, dtype=m.float64, requires_grad=True)
        w = m.ones(4, 3, 3, 3, dtype=m.float64, requires_grad=True)
        a = m.convolution(x, w, None, [1, 1], [1, 1], [1, 1], False, [0, 0], 1)
        b = m._convolution(x, w, None, [2], [0], [1], False, [0], 1, False, False, False,
                           False)
        c = m._convolution_mode(x, w, None, [1, 1], "same", [1, 1], 1)
        return [t.grad_fn.name() for t in (a, b, c)] + [tuple(t.shape) for t in (a, b, c)]
    check(recipe)


def test_convolution_backward_op_and_double_backward():
    values = [np.random.default_rng(5).standard_normal(s) for s in
              [(2, 4, 5, 5), (6, 2, 3, 3), (6,)]]

    def grads(m, transposed):
        x, w, b = (m.tensor(v, requires_grad=True) for v in values)
        if transposed:
            w2 = m.tensor(np.arange(4 * 3 * 9.0).reshape(4, 3, 3, 3) / 50, requires_grad=True)
            y = _f(m).conv_transpose2d(x, w2, None, stride=2, groups=1)
            w = w2
        else:
            y = _f(m).conv2d(x, w, b, padding=1, groups=2, dilation=(1, 2))
        gx, gw = m.autograd.grad((y * y).sum(), [x, w], create_graph=True)
        names = [gx.grad_fn.name(), gw.grad_fn.name()]
        hx, hw = m.autograd.grad((gx * gx).sum() + (gw ** 3).sum(), [x, w])
        return names, [t.detach().numpy() for t in (gx, gw, hx, hw)]

    for transposed in (False, True):
        ns, vs = grads(strided, transposed)
        nt, vt = grads(torch, transposed)
        assert ns == nt == ["ConvolutionBackwardBackward0"] * 2
        for a, b in zip(vs, vt):
            np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-10)
    # the op itself: masks give None
    x = strided.ones(1, 2, 4, 4)
    w = strided.ones(3, 2, 2, 2)
    go = strided.ones(1, 3, 3, 3)
    gi, gw, gb = strided.ops.aten.convolution_backward.default(
        go, x, w, [3], [1, 1], [0, 0], [1, 1], False, [0, 0], 1, [False, True, False])
    assert gi is None and gb is None and tuple(gw.shape) == (3, 2, 2, 2)


def test_gradgradcheck():
    gradcheck_strided(lambda m, x, w, b: _f(m).conv2d(x, w, b, stride=2, padding=1, groups=2),
                      [(1, 4, 4, 5), (2, 2, 2, 3), (2,)], second=True)
    gradcheck_strided(lambda m, x, w: _f(m).conv_transpose1d(x, w, stride=2, output_padding=1),
                      [(1, 2, 3), (2, 3, 2)], second=True)


# -- hypothesis: shapes, strides, paddings, dilations, groups, non-contiguous inputs -----------

@st.composite
def _conv_args(draw):
    dim = draw(st.integers(1, 3))
    groups = draw(st.integers(1, 3))
    cin = groups * draw(st.integers(1, 2))
    cout = groups * draw(st.integers(1, 2))
    ks = [draw(st.integers(1, 3)) for _ in range(dim)]
    stride = [draw(st.integers(1, 3)) for _ in range(dim)]
    dilation = [draw(st.integers(1, 2)) for _ in range(dim)]
    padding = [draw(st.integers(0, 2)) for _ in range(dim)]
    sizes = [draw(st.integers(max(1, d * (k - 1) + 1 - 2 * p), 7))
             for k, d, p in zip(ks, dilation, padding)]
    batch = draw(st.integers(1, 3))
    transposed = draw(st.booleans())
    layout = draw(st.sampled_from(["contiguous", "permuted", "sliced"]))
    bias = draw(st.booleans())
    output_padding = [draw(st.integers(0, max(s, d) - 1)) for s, d in zip(stride, dilation)] \
        if transposed else [0] * dim
    return dict(dim=dim, groups=groups, cin=cin, cout=cout, ks=ks, stride=stride,
                dilation=dilation, padding=padding, sizes=sizes, batch=batch,
                transposed=transposed, layout=layout, bias=bias, output_padding=output_padding)


def _layout_input(m, arr, layout):
    """The same values as a contiguous, a permuted (channels-last-like) or a sliced view."""
    if layout == "permuted":
        perm = (0,) + tuple(range(2, arr.ndim)) + (1,)
        inv = tuple(np.argsort(perm))
        return m.tensor(np.ascontiguousarray(arr.transpose(perm))).permute(*inv)
    if layout == "sliced":
        big = np.zeros(arr.shape[:-1] + (arr.shape[-1] * 2,))
        big[..., ::2] = arr
        return m.tensor(big)[..., ::2]
    return m.tensor(arr)


@hyp(40)
@given(_conv_args())
def test_hypothesis_conv(a):
    rng = np.random.default_rng(0)
    x = rng.standard_normal([a["batch"], a["cin"]] + a["sizes"])
    if a["transposed"]:
        w = rng.standard_normal([a["cin"], a["cout"] // a["groups"]] + a["ks"])
    else:
        w = rng.standard_normal([a["cout"], a["cin"] // a["groups"]] + a["ks"])
    b = rng.standard_normal(a["cout"])
    out = {}
    for m in (strided, torch):
        xt = _layout_input(m, x, a["layout"]).requires_grad_(True)
        wt = m.tensor(w, requires_grad=True)
        bt = m.tensor(b, requires_grad=True) if a["bias"] else None
        try:
            if a["transposed"]:
                y = getattr(_f(m), F_CONVT[a["dim"]])(
                    xt, wt, bt, a["stride"], a["padding"], a["output_padding"], a["groups"],
                    a["dilation"])
            else:
                y = getattr(_f(m), F_CONV[a["dim"]])(xt, wt, bt, a["stride"], a["padding"],
                                                     a["dilation"], a["groups"])
        except RuntimeError as e:
            out[m.__name__] = ("error", str(e))
            continue
        g = np.random.default_rng(1).standard_normal(tuple(y.shape))
        y.backward(m.tensor(g))
        out[m.__name__] = (tuple(y.shape), tuple(y.stride()), y.detach().numpy(),
                           xt.grad.numpy(), wt.grad.numpy(),
                           bt.grad.numpy() if bt is not None else None)
    s, t = out["strided"], out["torch"]
    if t[0] == "error":
        assert s == t
        return
    assert s[:2] == t[:2]
    for u, v in zip(s[2:], t[2:]):
        if v is None:
            assert u is None
        else:
            np.testing.assert_allclose(u, v, rtol=1e-9, atol=1e-10)


# -- dtypes ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8"])
def test_integer_convolution(dtype):
    def recipe(m):
        x = m.arange(2 * 3 * 5 * 5).reshape(2, 3, 5, 5).remainder(7).to(getattr(m, dtype))
        w = m.arange(4 * 3 * 3 * 3).reshape(4, 3, 3, 3).remainder(3).to(getattr(m, dtype))
        return _f(m).conv2d(x, w, stride=2, padding=1)
    check(recipe)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_convolution(dtype):
    def run(m):
        g = np.random.default_rng(2)
        x = m.tensor(g.standard_normal((2, 3, 6, 6)), dtype=getattr(m, dtype),
                     requires_grad=True)
        w = m.tensor(g.standard_normal((4, 3, 3, 3)), dtype=getattr(m, dtype),
                     requires_grad=True)
        y = _f(m).conv2d(x, w, padding=1)
        y.float().sum().backward()
        return ([str(t.dtype) for t in (y, x.grad, w.grad)],
                [t.detach().float().numpy() for t in (y, x.grad, w.grad)])
    (ds, vs), (dt_, vt) = run(strided), run(torch)
    assert [d.split(".")[-1] for d in ds] == [d.split(".")[-1] for d in dt_]
    for a, b in zip(vs, vt):
        np.testing.assert_allclose(a, b, rtol=2e-2, atol=5e-2)


def test_complex_convolution():
    def program(m, xr, xi, wr, wi, br, bi):
        x = m.view_as_complex(m.stack([xr, xi], -1))
        w = m.view_as_complex(m.stack([wr, wi], -1))
        b = m.view_as_complex(m.stack([br, bi], -1))
        y = _f(m).conv2d(x, w, b, padding=1)
        return m.view_as_real(y)
    check_grads(program, [(2, 2, 4, 4)] * 2 + [(3, 2, 3, 3)] * 2 + [(3,)] * 2, rtol=1e-10,
                atol=1e-12)
    names = []
    for m in (strided, torch):
        x = m.ones(1, 2, 3, dtype=m.complex128, requires_grad=True)
        w = m.ones(1, 2, 2, dtype=m.complex128, requires_grad=True)
        names.append(grad_fn_names(_f(m).conv1d(x[0], w)))
    assert names[0] == names[1]


# -- layouts and the meta device ------------------------------------------------------------------

def _channels_last(t):
    """A channels-last copy (built by permutes: independent of ``contiguous(memory_format)``)."""
    perm = (0,) + tuple(range(2, t.dim())) + (1,)
    inv = [perm.index(i) for i in range(t.dim())]
    return t.permute(*perm).contiguous().permute(*inv)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("which", ["input", "weight", "both", "none"])
def test_output_layout(dtype, which):
    def recipe(m):
        g = np.random.default_rng(3)
        x = m.tensor(g.standard_normal((2, 3, 6, 5)), dtype=getattr(m, dtype))
        w = m.tensor(g.standard_normal((4, 3, 3, 2)), dtype=getattr(m, dtype))
        x5 = m.tensor(g.standard_normal((2, 3, 4, 4, 4)), dtype=getattr(m, dtype))
        w5 = m.tensor(g.standard_normal((4, 3, 2, 2, 2)), dtype=getattr(m, dtype))
        if which in ("input", "both"):
            x = _channels_last(x)
            x5 = _channels_last(x5)
        if which in ("weight", "both"):
            w = _channels_last(w)
            w5 = _channels_last(w5)
        return (_f(m).conv2d(x, w, padding=1).stride(),
                _f(m).conv2d(x, w, dilation=2).stride(),
                _f(m).conv_transpose2d(x, w.transpose(0, 1)).stride(),
                _f(m).conv3d(x5, w5).stride(),
                _f(m).conv1d(x[:, :, 0], w[:, :, 0]).stride())
    check(recipe)


def test_channels_last_values():
    def recipe(m):
        g = np.random.default_rng(4)
        x = _channels_last(m.tensor(g.standard_normal((2, 3, 6, 5))))
        w = m.tensor(g.standard_normal((4, 3, 3, 3)))
        return _f(m).conv2d(x, w, m.ones(4, dtype=m.float64), padding=1)
    check(recipe, exact=False)


@pytest.mark.parametrize("name, xshape, wshape, has_bias, kwargs", CASES)
def test_meta_shapes(name, xshape, wshape, has_bias, kwargs):
    def recipe(m):
        x = m.empty(xshape, device="meta")
        w = m.empty(wshape, device="meta")
        b = m.empty(_bias_len(name, wshape, kwargs), device="meta") if has_bias else None
        return getattr(_f(m), name)(x, w, b, **kwargs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(recipe, warns=False)


def test_meta_backward_and_fold_shapes():
    def recipe(m):
        x = m.empty(2, 3, 7, 6, device="meta", requires_grad=True)
        w = m.empty(4, 3, 3, 3, device="meta", requires_grad=True)
        y = _f(m).conv2d(x, w, stride=2)
        gx, gw = m.autograd.grad(y.sum(), [x, w])
        u = _f(m).unfold(x, (2, 3), stride=2, padding=1)
        f = _f(m).fold(u, (7, 6), (2, 3), stride=2, padding=1)
        return [tuple(t.shape) for t in (y, gx, gw, u, f)] + [u.device.type]
    check(recipe)


def test_empty_batch_and_channels():
    check(lambda m: _f(m).conv2d(m.ones(0, 3, 5, 5), m.ones(4, 3, 3, 3)))
    check(lambda m: _f(m).conv2d(m.ones(2, 0, 5, 5), m.ones(4, 0, 3, 3)))
    check(lambda m: _f(m).conv_transpose2d(m.ones(0, 3, 3, 3), m.ones(3, 4, 3, 3)))
    check(lambda m: _f(m).conv2d(m.ones(0, 3, 0, 8), m.ones(4, 3, 3, 3), padding=2))


# -- errors ---------------------------------------------------------------------------------------

ERRORS = [
    lambda m: _f(m).conv2d(m.ones(8, 8), m.ones(4, 3, 3, 3)),
    lambda m: _f(m).conv2d(m.ones(1, 2, 3, 8, 8), m.ones(4, 3, 3, 3)),
    lambda m: _f(m).conv1d(m.ones(2, 3, 8, 8), m.ones(4, 3, 3)),
    lambda m: _f(m).conv3d(m.ones(2, 3, 8, 8), m.ones(4, 3, 3, 3)),
    lambda m: _f(m).conv_transpose2d(m.ones(8, 8), m.ones(3, 4, 3, 3)),
    lambda m: _f(m).conv2d(m.ones(2, 4, 8, 8), m.ones(4, 3, 3, 3)),
    lambda m: _f(m).conv2d(m.ones(4, 8, 8), m.ones(4, 3, 3, 3)),
    lambda m: _f(m).conv2d(m.ones(2, 3, 2, 2), m.ones(4, 3, 3, 3)),
    lambda m: _f(m).conv2d(m.ones(2, 3, 4, 4), m.ones(4, 3, 3, 3), dilation=2),
    lambda m: _f(m).conv2d(m.ones(2, 3, 8, 8), m.ones(4, 3, 3, 3), stride=0),
    lambda m: _f(m).conv2d(m.ones(2, 3, 8, 8), m.ones(4, 3, 3, 3), stride=-1),
    lambda m: _f(m).conv2d(m.ones(2, 3, 8, 8), m.ones(4, 3, 3, 3), padding=-1),
    lambda m: _f(m).conv2d(m.ones(2, 3, 8, 8), m.ones(4, 3, 3, 3), dilation=0),
    lambda m: _f(m).conv2d(m.ones(1, 3, 8, 8), m.ones(4, 3, 3, 3), dilation=0),
    lambda m: _f(m).conv1d(m.ones(2, 3, 8, dtype=m.float64), m.ones(4, 3, 3, dtype=m.float64),
                           dilation=0),
    lambda m: _f(m).conv3d(m.ones(1, 1, 4, 4, 4), m.ones(1, 1, 2, 2, 2), dilation=0),
    lambda m: _f(m).conv_transpose1d(m.ones(1, 1, 4), m.ones(1, 1, 2), dilation=0),
    lambda m: _f(m).conv_transpose3d(m.ones(1, 1, 4, 4, 4), m.ones(1, 1, 2, 2, 2), dilation=0),
    lambda m: _f(m).conv2d(m.ones(2, 3, 8, 8), m.ones(4, 2, 3, 3), dilation=-1),
    lambda m: _f(m).conv2d(m.ones(2, 3, 8, 8), m.ones(4, 3, 3, 3), dilation=-1, stride=0),
    lambda m: _f(m).conv2d(m.ones(1, 3, 8, 8), m.ones(4, 2, 3, 3), dilation=0),
    lambda m: _f(m).conv2d(m.ones(2, 3, 8, 8), m.ones(4, 3, 3, 3), stride=0, padding=-1),
    lambda m: _f(m).conv2d(m.ones(2, 3, 8, 8), m.ones(4, 3, 3, 3), groups=0),
    lambda m: _f(m).conv2d(m.ones(2, 3, 8, 8), m.ones(4, 3, 3, 3), groups=2),
    lambda m: _f(m).conv2d(m.ones(2, 3, 8, 8), m.ones(4, 1, 3, 3), groups=3),
    lambda m: _f(m).conv2d(m.ones(2, 5, 8, 8), m.ones(4, 1, 3, 3), groups=5),
    lambda m: _f(m).conv2d(m.ones(2, 3, 8, 8), m.ones(0, 3, 3, 3)),
    lambda m: _f(m).conv2d(m.ones(2, 3, 8, 8), m.ones(4, 3, 3, 3), padding="same", stride=2),
    lambda m: _f(m).conv2d(m.ones(2, 3, 8, 8), m.ones(4, 3, 3, 3), padding="foo"),
    lambda m: _f(m).conv2d(m.ones(2, 3, 8, 8), m.ones(4, 3, 3, 3, dtype=m.float64)),
    lambda m: _f(m).conv2d(m.ones(2, 3, 8, 8, dtype=m.float64), m.ones(4, 3, 3, 3)),
    lambda m: _f(m).conv1d(m.ones(2, 3, 8, dtype=m.float64), m.ones(4, 3, 3)),
    lambda m: _f(m).conv2d(m.ones(2, 3, 8, 8), m.ones(4, 3, 3, 3), m.ones(4, dtype=m.float64)),
    lambda m: _f(m).conv1d(m.ones(2, 3, 8), m.ones(4, 3, 3), m.ones(4, dtype=m.float64)),
    lambda m: _f(m).conv2d(m.ones(2, 3, 8, 8), m.ones(4, 3, 3, 3), m.ones(5)),
    lambda m: _f(m).conv2d(m.ones(2, 3, 8, 8), m.ones(4, 3, 3, 3), m.ones(4, 1)),
    lambda m: _f(m).conv2d(m.ones(2, 3, 8, 8), m.ones(4, 3, 3, 3), stride=(1, 1, 1)),
    lambda m: _f(m).conv2d(m.ones(2, 3, 8, 8), m.ones(4, 3, 3)),
    lambda m: _f(m).conv2d(m.ones(2, 3, 8, 8, dtype=m.bool), m.ones(4, 3, 3, 3, dtype=m.bool)),
    lambda m: _f(m).conv3d(m.ones(2, 3, 1, 8, 8, dtype=m.bool),
                           m.ones(4, 3, 1, 3, 3, dtype=m.bool)),
    lambda m: _f(m).conv2d(m.ones(2, 3, 8, 8, dtype=m.int32), m.ones(4, 3, 3, 3, dtype=m.int32),
                           dilation=2),
    lambda m: _f(m).conv_transpose2d(m.ones(2, 3, 8, 8, dtype=m.int32),
                                     m.ones(3, 3, 3, 3, dtype=m.int32)),
    lambda m: _f(m).conv2d(m.ones(2, 3, 0, 8), m.ones(4, 3, 3, 3), padding=2),
    lambda m: _f(m).conv_transpose2d(m.ones(2, 3, 8, 8), m.ones(4, 3, 3, 3)),
    lambda m: _f(m).conv_transpose2d(m.ones(2, 3, 8, 8), m.ones(3, 4, 3, 3), output_padding=1),
    lambda m: _f(m).conv_transpose1d(m.ones(2, 3, 8), m.ones(3, 4, 3), output_padding=1),
    lambda m: _f(m).conv_transpose3d(m.ones(2, 3, 3, 3, 3), m.ones(3, 2, 3, 3, 3),
                                     output_padding=1),
    lambda m: _f(m).conv_transpose2d(m.ones(2, 3, 8, 8), m.ones(3, 4, 3, 3), output_padding=-1),
    lambda m: _f(m).conv_transpose2d(m.ones(2, 4, 8, 8), m.ones(3, 4, 3, 3), stride=2, groups=2),
    lambda m: _f(m).conv_transpose2d(m.ones(2, 3, 8, 8), m.ones(3, 4, 3, 3), m.ones(3)),
    lambda m: m.convolution(m.ones(2, 3, 8, 8), m.ones(4, 3, 3, 3), None, [1], [0], [1], False,
                            [0], 1),
    lambda m: m.convolution(m.ones(3, 8, 8), m.ones(4, 3, 3, 3), None, [1, 1], [0, 0], [1, 1],
                            False, [0, 0], 1),
    lambda m: m.convolution(m.ones(2, 3, 8, 8), m.ones(4, 3, 3, 3), None, [1, 1], [0, 0],
                            [1, 1], False, [0], 1),
    lambda m: m.convolution(m.ones(2, 3, 8, 8), m.ones(4), None, [1], [0], [1], False, [0], 1),
    lambda m: _f(m).conv_transpose1d(m.ones(2, 3, 3, dtype=m.float64),
                                     m.ones(3, 2, 3, dtype=m.float64), padding=4),
    lambda m: _f(m).conv_transpose3d(m.ones(1, 2, 3, 3, 3, dtype=m.float64),
                                     m.ones(2, 2, 3, 3, 3, dtype=m.float64), padding=4),
    # the argument parser's TypeErrors
    lambda m: _f(m).conv2d(m.ones(1, 1, 3, 3)),
    lambda m: _f(m).conv2d(m.ones(1, 1, 3, 3), m.ones(1, 1, 2, 2), stride="a"),
    lambda m: _f(m).conv2d(m.ones(1, 1, 3, 3), m.ones(1, 1, 2, 2), groups=1.5),
    lambda m: _f(m).conv2d(m.ones(1, 1, 3, 3), m.ones(1, 1, 2, 2), padding=[1, 2, 3]),
    lambda m: m.convolution(m.ones(2, 3, 8, 8), m.ones(4, 3, 3, 3), None, [0, 0], [0, 0],
                            [0, 0], False, [-1, -1], 1),
]


@pytest.mark.parametrize("recipe", ERRORS)
def test_errors(recipe):
    check(recipe)


# -- modules --------------------------------------------------------------------------------------

MODULES = [
    ("Conv1d", (3, 6, 3), {}),
    ("Conv1d", (4, 6, 2), dict(stride=2, padding=1, dilation=2, groups=2, bias=False)),
    ("Conv1d", (3, 5, 4), dict(padding="same", padding_mode="reflect")),
    ("Conv2d", (3, 16, 3), dict(padding=1)),
    ("Conv2d", (4, 6, (3, 2)), dict(stride=(2, 1), padding=(1, 0), dilation=(1, 2), groups=2)),
    ("Conv2d", (3, 4, 3), dict(padding=2, padding_mode="replicate")),
    ("Conv2d", (3, 4, 3), dict(padding=(1, 2), padding_mode="circular", bias=False)),
    ("Conv2d", (3, 4, 2), dict(padding="same", padding_mode="circular")),
    ("Conv2d", (3, 4, 3), dict(padding="valid")),
    ("Conv3d", (2, 4, 2), dict(padding=1, padding_mode="zeros")),
    ("Conv3d", (2, 4, (1, 2, 2)), dict(stride=2, padding_mode="reflect", padding=1)),
    ("ConvTranspose1d", (3, 6, 3), dict(stride=2, output_padding=1)),
    ("ConvTranspose2d", (4, 6, 3), dict(stride=2, padding=1, groups=2, dilation=2)),
    ("ConvTranspose2d", (3, 2, (2, 3)), dict(bias=False, output_padding=(0, 1), stride=(1, 2))),
    ("ConvTranspose3d", (2, 3, 2), dict(stride=(1, 2, 2))),
]


def _input_for(name, cin, seed=7, unbatched=False):
    spatial = int(name[-2])
    shape = (2, cin) + (5, 6, 5)[:spatial]
    arr = np.random.default_rng(seed).standard_normal(shape)
    return arr[0] if unbatched else arr


@pytest.mark.parametrize("name, args, kwargs", MODULES)
def test_module_init_repr_forward_backward(name, args, kwargs):
    made = {}
    for m in (strided, torch):
        m.manual_seed(11)
        layer = getattr(m.nn, name)(*args, **kwargs, dtype=m.float64)
        x = m.tensor(_input_for(name, args[0]), requires_grad=True)
        y = layer(x)
        y.backward(m.ones_like(y))
        made[m.__name__] = (repr(layer), layer, x, y)
    rs, ls, xs, ys = made["strided"]
    rt, lt, xt, yt = made["torch"]
    assert rs == rt
    for (ns, ps), (nt, pt) in zip(ls.named_parameters(), lt.named_parameters()):
        assert ns == nt
        assert type(ps).__name__ == type(pt).__name__ == "Parameter"
    # after the same seed: the same parameters, bit for bit
    strided.manual_seed(5)
    torch.manual_seed(5)
    a = getattr(strided.nn, name)(*args, **kwargs)
    b = getattr(torch.nn, name)(*args, **kwargs)
    for (ns, ps), (nt, pt) in zip(a.named_parameters(), b.named_parameters()):
        assert ns == nt
        np.testing.assert_array_equal(ps.detach().numpy(), pt.detach().numpy())
    assert tuple(ys.shape) == tuple(yt.shape)
    assert ys.grad_fn.name() == yt.grad_fn.name()
    np.testing.assert_allclose(ys.detach().numpy(), yt.detach().numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(xs.grad.numpy(), xt.grad.numpy(), rtol=1e-10, atol=1e-12)
    for ps, pt in zip(ls.parameters(), lt.parameters()):
        np.testing.assert_allclose(ps.grad.numpy(), pt.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_module_unbatched_and_attributes():
    for m in (strided, torch):
        m.manual_seed(0)
    a = strided.nn.Conv2d(3, 4, 3, padding="same", dilation=2)
    b = torch.nn.Conv2d(3, 4, 3, padding="same", dilation=2)
    x = _input_for("Conv2d", 3, unbatched=True)
    ys, yt = a(strided.tensor(x, dtype=strided.float32)), b(torch.tensor(x, dtype=torch.float32))
    assert tuple(ys.shape) == tuple(yt.shape)
    np.testing.assert_allclose(ys.detach().numpy(), yt.detach().numpy(), rtol=1e-5, atol=1e-6)
    for attr in ("in_channels", "out_channels", "kernel_size", "stride", "padding", "dilation",
                 "transposed", "output_padding", "groups", "padding_mode",
                 "_reversed_padding_repeated_twice"):
        assert list(np.atleast_1d(getattr(a, attr))) == list(np.atleast_1d(getattr(b, attr))) \
            if not isinstance(getattr(b, attr), str) else getattr(a, attr) == getattr(b, attr)
    assert type(a).__module__ == "strided.nn.modules.conv"
    assert list(a.state_dict()) == list(b.state_dict())


def test_conv_transpose_output_size():
    for m in (strided, torch):
        m.manual_seed(1)
    a = strided.nn.ConvTranspose2d(4, 6, 3, stride=2, groups=2, dtype=strided.float64)
    b = torch.nn.ConvTranspose2d(4, 6, 3, stride=2, groups=2, dtype=torch.float64)
    x = np.random.default_rng(0).standard_normal((2, 4, 5, 5))
    for size in ([11, 11], [12, 12], [2, 6, 12, 11], (11, 12)):
        ys, yt = a(strided.tensor(x), output_size=size), b(torch.tensor(x), output_size=size)
        assert tuple(ys.shape) == tuple(yt.shape)
        np.testing.assert_allclose(ys.detach().numpy(), yt.detach().numpy(), rtol=1e-10)
    for size in ([13, 13], [10, 11], [1, 2, 3]):
        assert_same_error(lambda size=size: a(strided.tensor(x), output_size=size),
                          lambda size=size: b(torch.tensor(x), output_size=size))
    # unbatched
    ys = a(strided.tensor(x[0]), output_size=[6, 12, 12])
    yt = b(torch.tensor(x[0]), output_size=[6, 12, 12])
    np.testing.assert_allclose(ys.detach().numpy(), yt.detach().numpy(), rtol=1e-10)


MODULE_ERRORS = [
    lambda m: m.nn.Conv2d(3, 4, 3, groups=0),
    lambda m: m.nn.Conv2d(3, 4, 3, groups=2),
    lambda m: m.nn.Conv2d(4, 3, 3, groups=2),
    lambda m: m.nn.Conv2d(3, 4, 3, padding="full"),
    lambda m: m.nn.Conv2d(3, 4, 3, padding="same", stride=2),
    lambda m: m.nn.ConvTranspose2d(3, 4, 3, padding_mode="reflect"),
    lambda m: m.nn.Conv1d(3, 4, 3)(m.ones(2, 3, 4, 4)),
    lambda m: m.nn.Conv2d(3, 4, 3)(m.ones(2, 4, 5, 5)),
    lambda m: m.nn.Conv2d(3, 4, 3)(m.ones(2, 3, 5, 5, dtype=m.float64)),
]


@pytest.mark.parametrize("recipe", MODULE_ERRORS)
def test_module_errors(recipe):
    check(recipe)


def test_module_bad_padding_mode():
    # torch prints a set: the order of its elements is not fixed, so compare the start
    errs = []
    for m in (strided, torch):
        with pytest.raises(ValueError) as info:
            m.nn.Conv2d(3, 4, 3, padding_mode="wrap")
        errs.append(str(info.value))
    assert errs[0].split("{")[0] == errs[1].split("{")[0]
    assert errs[0].endswith("but got padding_mode='wrap'") and errs[1].endswith(
        "but got padding_mode='wrap'")


def test_channels_last_module_weight_init():
    # reset_parameters draws into a contiguous scratch tensor when the weight is not
    for m in (strided, torch):
        m.manual_seed(3)
    a = strided.nn.Conv2d(3, 4, 3)
    b = torch.nn.Conv2d(3, 4, 3)
    a.weight.data = _channels_last(a.weight.data)
    b.weight.data = _channels_last(b.weight.data)
    strided.manual_seed(9)
    torch.manual_seed(9)
    a.reset_parameters()
    b.reset_parameters()
    np.testing.assert_array_equal(a.weight.detach().numpy(), b.weight.detach().numpy())
    assert a.weight.stride() == b.weight.stride()


@pytest.mark.parametrize("name, args, kwargs", [
    ("LazyConv1d", (4, 3), dict(stride=2)),
    ("LazyConv2d", (4, 3), dict(padding=1, groups=1)),
    ("LazyConv3d", (2, 2), dict(bias=False)),
    ("LazyConvTranspose1d", (4, 3), dict(stride=2)),
    ("LazyConvTranspose2d", (4, 3), dict(output_padding=1, stride=2)),
    ("LazyConvTranspose3d", (2, 2), {}),
])
def test_lazy_modules(name, args, kwargs):
    made = {}
    for m in (strided, torch):
        m.manual_seed(4)
        layer = getattr(m.nn, name)(*args, **kwargs)
        x = m.tensor(_input_for(name[4:], 3), dtype=m.float32)
        y = layer(x)
        made[m.__name__] = (layer, y)
    (ls, ys), (lt, yt) = made["strided"], made["torch"]
    assert type(ls).__name__ == type(lt).__name__ == name[4:]
    assert repr(ls) == repr(lt)
    for ps, pt in zip(ls.parameters(), lt.parameters()):
        np.testing.assert_array_equal(ps.detach().numpy(), pt.detach().numpy())
    np.testing.assert_allclose(ys.detach().numpy(), yt.detach().numpy(), rtol=1e-5, atol=1e-5)


# -- Fold / Unfold --------------------------------------------------------------------------------

FOLD_CASES = [
    (3, 1, 0, 1),
    ((2, 3), 2, 1, (2, 1)),
    (2, (1, 2), (0, 1), 3),
]


@pytest.mark.parametrize("kernel_size, dilation, padding, stride", FOLD_CASES)
@pytest.mark.parametrize("unbatched", [False, True])
def test_unfold_fold_values_grads(kernel_size, dilation, padding, stride, unbatched):
    xshape = (3, 7, 8) if unbatched else (2, 3, 7, 8)

    def program(m, x):
        cols = _f(m).unfold(x, kernel_size, dilation, padding, stride)
        back = _f(m).fold(cols * cols, (7, 8), kernel_size, dilation, padding, stride)
        return cols, back
    check_grads(program, [xshape], rtol=1e-12, atol=1e-12)
    names = []
    for m in (strided, torch):
        x = m.ones(xshape, dtype=m.float64, requires_grad=True)
        names.append(grad_fn_names(program(m, x)[1]))
    assert names[0] == names[1]
    assert "Col2ImBackward0" in names[1] and "Im2ColBackward0" in names[1]


def test_fold_unfold_modules_and_dtypes():
    def recipe(m):
        x = m.arange(2 * 3 * 5 * 6, dtype=m.float64).reshape(2, 3, 5, 6)
        u = m.nn.Unfold((2, 3), dilation=1, padding=1, stride=2)
        f = m.nn.Fold((5, 6), (2, 3), padding=1, stride=2)
        cols = u(x)
        return repr(u), repr(f), cols, f(cols), _f(m).unfold(x > 10, 2), \
            _f(m).fold(_f(m).unfold(x > 10, 2), (5, 6), 2), \
            _f(m).unfold(_channels_last(x.float()), 2), \
            _f(m).unfold(x[:, :, ::2, 1:].half(), 2)
    check(recipe)


FOLD_ERRORS = [
    lambda m: _f(m).unfold(m.ones(8, 8), 3),
    lambda m: _f(m).unfold(m.ones(8), 3),
    lambda m: _f(m).unfold(m.ones(1, 2, 3, 4, 5), 1),
    lambda m: _f(m).unfold(m.ones(2, 3, 8, 8), 10),
    lambda m: _f(m).unfold(m.ones(2, 3, 8, 8), 0),
    lambda m: _f(m).unfold(m.ones(2, 3, 8, 8), 3, stride=0),
    lambda m: _f(m).unfold(m.ones(2, 3, 8, 8), 3, padding=-1),
    lambda m: _f(m).unfold(m.ones(2, 3, 8, 8), 3, dilation=0),
    lambda m: _f(m).unfold(m.ones(2, 3, 8, 8, dtype=m.int32), 3),
    lambda m: _f(m).unfold(m.ones(2, 0, 8, 8), 3),
    lambda m: _f(m).unfold(m.ones(2, 3, 8, 8), (3, 3, 3)),
    lambda m: _f(m).fold(m.ones(27, 36)[0], (8, 8), 3),
    lambda m: _f(m).fold(m.ones(2, 27, 36), (8, 8), 2),
    lambda m: _f(m).fold(m.ones(2, 28, 36), (8, 8), 3),
    lambda m: _f(m).fold(m.ones(2, 27, 36), (9, 8), 3),
    lambda m: _f(m).fold(m.ones(2, 27, 36), (8, 8), 3, stride=0),
    lambda m: _f(m).fold(m.ones(2, 27, 36), (8, 8), 3, padding=-1),
    lambda m: _f(m).fold(m.ones(2, 27, 36), (8, 8), 3, dilation=0),
    lambda m: _f(m).fold(m.ones(2, 27, 36), (8, 8), 0),
    lambda m: _f(m).fold(m.ones(2, 27, 36, dtype=m.int64), (8, 8), 3),
    lambda m: _f(m).fold(m.ones(2, 27, 0), (2, 2), 3),
    lambda m: _f(m).fold(m.ones(1, 1, 1, 1), (1, 1), 1),
    lambda m: _f(m).fold(m.ones(2, 27, 36), (8, 8, 8), 3),
]


@pytest.mark.parametrize("recipe", FOLD_ERRORS)
def test_fold_errors(recipe):
    check(recipe)


def test_fold_out_variants():
    def recipe(m):
        x = m.arange(2 * 3 * 4 * 4, dtype=m.float32).reshape(2, 3, 4, 4)
        out = m.empty(0)
        m._C._nn.im2col(x, [2, 2], [1, 1], [0, 0], [1, 1], out=out) if m is torch else \
            _f(m)._generated.im2col(x, [2, 2], [1, 1], [0, 0], [1, 1], out=out)
        back = m.empty(0)
        m._C._nn.col2im(out, [4, 4], [2, 2], [1, 1], [0, 0], [1, 1], out=back) if m is torch \
            else _f(m)._generated.col2im(out, [4, 4], [2, 2], [1, 1], [0, 0], [1, 1], out=back)
        return out, back
    check(recipe)
