"""The fast softmax / log_softmax paths of kernels/nn/softmax.py against torch.

Note [Tiny softmax] (up to 256 elements: the unshifted path when every |x| < 8, the shifted
one otherwise), Note [Softmax in one pass per row] with Note [Softmax without the shift]
(blocks of rows: exp first, the row sums decide whether the block needs torch's shift), and
the composite's direct call of ``_softmax``: values, dtypes, strides, the odd inputs
(NaN, +-inf, all -inf rows, overflow and underflow rows, non-contiguous, 0-dim, size 0,
half / bfloat16), ``dtype=``, ``out=``, autograd graphs and gradients, inference mode,
explain's steps and errors.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import strided
from tests.autograd.grad_harness import check_grads, grad_fn_names
from tests.conftest import check, hyp

FNS = ("softmax", "log_softmax")


def _data(shape, dtype=np.float32, scale=1.0, seed=0):
    return (np.random.default_rng(seed).standard_normal(shape) * scale).astype(dtype)


def _both(fn, x, dim=-1, **kw):
    rs = getattr(strided, fn)(strided.from_numpy(x.copy()), dim, **kw)
    rt = getattr(torch, fn)(torch.from_numpy(x.copy()), dim, **kw)
    assert str(rs.dtype) == str(rt.dtype) and tuple(rs.shape) == tuple(rt.shape)
    assert rs.stride() == rt.stride() and rs.requires_grad == rt.requires_grad
    return rs.numpy(), rt.numpy()


def _close(fn, rs, rt):
    """float64: to 1e-12. float32 softmax: 2e-6 relative (the unshifted path differs only
    where torch's own ``x - max`` rounds); log_softmax: an ulp of ``log(sum)`` absolute
    (the row sums' order differs from torch's). And torch's own float32 tolerance."""
    if rs.dtype == np.float64:
        np.testing.assert_allclose(rs, rt, rtol=1e-12, atol=1e-14, equal_nan=True)
    elif fn == "softmax":
        np.testing.assert_allclose(rs, rt, rtol=2e-6, atol=1e-9, equal_nan=True)
    else:
        np.testing.assert_allclose(rs, rt, rtol=2e-6, atol=2e-6, equal_nan=True)
    torch.testing.assert_close(torch.from_numpy(rs), torch.from_numpy(rt), equal_nan=True)


# -- the tiny path ---------------------------------------------------------------------------

@pytest.mark.parametrize("fn", FNS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(4, 4), (1, 16), (16, 4), (2, 3, 5), (7,), (2, 128),
                                   (1, 1)])
@pytest.mark.parametrize("scale", [0.5, 1.0, 5.0])
def test_tiny_values(fn, dtype, shape, scale):
    # scale 0.5 / 1.0 on <= 16 elements: mostly the unshifted path; 5.0: the shifted one
    _close(fn, *_both(fn, _data(shape, dtype, scale)))


def test_tiny_takes_both_paths():
    from strided.kernels.nn import softmax as sm
    small, large = _data((4, 4), scale=0.5), _data((4, 4), scale=5.0)
    assert np.vdot(small, small) < sm._NORM2 <= np.vdot(large, large)


@pytest.mark.parametrize("fn", FNS)
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("shape", [(3, 4), (4, 64), (2, 100)])
def test_tiny_special_values(fn, bad, shape):
    x = _data(shape, scale=0.3)          # the unshifted path but for the special value
    x[1, 2] = bad
    check(lambda lib: getattr(lib, fn)(lib.from_numpy(x.copy()), -1), exact=False)


@pytest.mark.parametrize("fn", FNS)
def test_tiny_all_neg_inf_row(fn):
    x = _data((3, 4), scale=0.3)
    x[0] = -np.inf
    check(lambda lib: getattr(lib, fn)(lib.from_numpy(x.copy()), -1), exact=False)


@pytest.mark.parametrize("fn", FNS)
def test_tiny_no_warning(fn):
    import warnings
    for x in (_data((4, 4), scale=0.3), np.full((2, 3), -np.inf, np.float32)):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            getattr(strided, fn)(strided.from_numpy(x), -1)


def test_tiny_rows_sum_to_one():
    # every element of a row is divided by the same sum (the c x c product of ones)
    x = _data((16, 16), np.float64, 0.2)
    s = strided.softmax(strided.from_numpy(x), -1).numpy()
    e = np.exp(x)
    np.testing.assert_allclose(s, e / e.sum(-1, keepdims=True), rtol=1e-15, atol=0)


# -- the blocks of rows ----------------------------------------------------------------------

@pytest.mark.parametrize("fn", FNS)
@pytest.mark.parametrize("shape", [(64, 256), (300, 257), (3, 1024), (70, 1000), (2, 3, 200)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_block_values(fn, shape, dtype):
    _close(fn, *_both(fn, _data(shape, dtype, 2.0)))


@pytest.mark.parametrize("fn", FNS)
@pytest.mark.parametrize("row", ["overflow", "underflow", "nan", "inf", "-inf", "all-inf"])
def test_block_rows_that_need_the_shift(fn, row):
    x = _data((300, 300), scale=1.0)
    values = {"overflow": 200.0, "underflow": -200.0, "nan": np.nan, "inf": np.inf,
              "-inf": -np.inf}
    if row == "all-inf":
        x[7] = -np.inf
    elif row in ("overflow", "underflow"):
        x[7] += values[row]          # a whole row shifted out of exp's range
    else:
        x[7, 3] = values[row]
    rs, rt = _both(fn, x)
    # the rows of the block that fell back to the shift are torch's computation exactly
    blk = slice(0, 218)
    np.testing.assert_allclose(rs[blk], rt[blk], rtol=1e-6, atol=0, equal_nan=True)
    np.testing.assert_allclose(rs, rt, rtol=2e-6, atol=2e-6, equal_nan=True)


@pytest.mark.parametrize("fn", FNS)
@pytest.mark.parametrize("shape,dim", [((300, 1), -1), ((1, 300), 0), ((2, 1, 200), 1),
                                       ((1, 1), 0), ((5, 1), -1)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_one_element_slices_are_exact(fn, shape, dim, dtype):
    x = _data(shape, dtype, 3.0)
    x.flat[0] = np.inf
    check(lambda lib: getattr(lib, fn)(lib.from_numpy(x.copy()), dim))     # exact: 1, 0, NaN


@pytest.mark.parametrize("fn", FNS)
@pytest.mark.parametrize("shape,dim", [((256, 64), 0), ((4, 50, 30), 1), ((30, 20, 2), 0)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_other_dims(fn, shape, dim, dtype):
    _close(fn, *_both(fn, _data(shape, dtype, 2.0), dim))
    x = _data(shape, dtype, 1.0)
    x[(slice(None),) * dim + (slice(0, 1),)] += 300.0        # a slice that needs the shift
    _close(fn, *_both(fn, x, dim))


@pytest.mark.parametrize("fn", FNS)
def test_block_wide_spread(fn):
    x = _data((128, 512), scale=30.0)      # in exp's range, rows spread far beyond 16
    rs, rt = _both(fn, x)
    torch.testing.assert_close(torch.from_numpy(rs), torch.from_numpy(rt))
    big = rt > 1e-6 if fn == "softmax" else rt > -1e30
    np.testing.assert_allclose(rs[big], rt[big], rtol=2e-6, atol=2e-6)


@pytest.mark.parametrize("fn", FNS)
def test_block_no_warning(fn):
    import warnings
    x = _data((100, 600), scale=1.0)
    x[3] = -np.inf
    x[5, 1] = 1e30
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        getattr(strided, fn)(strided.from_numpy(x), -1)


# -- the kernel's other paths and the composite ----------------------------------------------

@pytest.mark.parametrize("fn", FNS)
@pytest.mark.parametrize("case", ["t", "slice", "dim0", "dim1of3", "0-dim", "size0",
                                  "size0-rows", "half", "bf16", "f64-dtype", "expand"])
def test_layouts_and_dtypes(fn, case):
    x = _data((6, 5), scale=2.0)
    y = _data((300, 3), scale=2.0)

    def recipe(lib):
        t = lib.from_numpy(x.copy())
        u = lib.from_numpy(y.copy())
        f = getattr(lib, fn)
        return {
            "t": lambda: f(t.t(), -1),
            "slice": lambda: f(u[::2], -1),
            "dim0": lambda: f(u, 0),
            "dim1of3": lambda: f(t.reshape(2, 3, 5), 1),
            "0-dim": lambda: f(t[0, 0], 0),
            "size0": lambda: f(t[:, :0], -1),
            "size0-rows": lambda: f(t[:0], -1),
            "half": lambda: f(t.half(), -1),
            "bf16": lambda: f(u.t().bfloat16(), -1),
            "f64-dtype": lambda: f(t, -1, dtype=lib.float64),
            "expand": lambda: f(t[:1].expand(4, 5), -1),
        }[case]()
    rs, rt = recipe(strided), recipe(torch)
    assert str(rs.dtype) == str(rt.dtype) and tuple(rs.shape) == tuple(rt.shape)
    assert rs.stride() == rt.stride()
    if case in ("half", "bf16"):
        np.testing.assert_allclose(rs.float().numpy(), rt.float().numpy(), rtol=1e-2,
                                   atol=1e-2)
    else:
        _close(fn, rs.numpy(), rt.numpy())


@pytest.mark.parametrize("fn", FNS)
@pytest.mark.parametrize("shape", [(4, 4), (64, 256)])
def test_out(fn, shape):
    x = _data(shape)

    def recipe(lib):
        out = lib.empty(0)
        r = getattr(lib, fn)(lib.from_numpy(x.copy()), -1, out=out)
        return r is out, out
    check(recipe, exact=False)


@pytest.mark.parametrize("fn", FNS)
def test_errors(fn):
    check(lambda lib: getattr(lib, fn)(lib.tensor([[1, 2]]), -1))
    check(lambda lib: getattr(lib, fn)(lib.ones(2, 3), 2))
    check(lambda lib: getattr(lib, fn)(lib.ones(2, 3), -1, out=lib.empty(2, 3,
                                                                          dtype=lib.float64)))


@pytest.mark.parametrize("fn", FNS)
@pytest.mark.parametrize("shape", [(4, 4), (40, 300)])
def test_graph_and_gradients(fn, shape):
    def recipe(lib):
        x = lib.from_numpy(_data(shape)).requires_grad_()
        y = getattr(lib, fn)(x, -1)
        z = getattr(lib, fn)(x, -1, dtype=lib.float64)
        return y.requires_grad, grad_fn_names(y), grad_fn_names(z)
    check(recipe)
    check_grads(lambda m, x, w: (getattr(m, fn)(x, -1) * w).sum(), [shape, shape])


@pytest.mark.parametrize("fn", FNS)
def test_inference_and_no_grad(fn):
    x = _data((4, 4))

    def recipe(lib):
        t = lib.from_numpy(x.copy()).requires_grad_()
        with lib.inference_mode():
            a = getattr(lib, fn)(t, -1)
        with lib.no_grad():
            b = getattr(lib, fn)(t, -1)
        return a.is_inference(), a.requires_grad, b.requires_grad, b.grad_fn is None
    check(recipe)


@pytest.mark.parametrize("fn", FNS)
def test_result_is_fresh(fn):
    x = strided.from_numpy(_data((4, 4)))
    before = x.numpy().copy()
    y = getattr(strided, fn)(x, -1)
    assert y.data_ptr() != x.data_ptr() and y._version == 0 and y.is_contiguous()
    z = getattr(strided, fn)(x, -1)
    first = z.numpy().copy()
    y.add_(1)
    np.testing.assert_array_equal(z.numpy(), first)
    np.testing.assert_array_equal(x.numpy(), before)


@pytest.mark.parametrize("fn", FNS)
def test_explain_shows_the_steps(fn):
    a = strided.from_numpy(_data((4, 4)))
    with strided.explain() as ex:
        getattr(strided, fn)(a, -1)
    path = ex.path()
    assert f"aten::{fn}.int" in path and f"aten::_{fn}" in path and "empty" in path


# -- backward ------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["_softmax_backward_data", "_log_softmax_backward_data"])
@pytest.mark.parametrize("shape", [(4, 4), (2, 3, 5), (2, 128), (64, 256), (3, 1024)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_backward_data(name, shape, dtype):
    # the outputs of a forward (rows summing to 1), as autograd passes them
    fwd = torch.log_softmax if name.startswith("_log") else torch.softmax
    y = fwd(torch.from_numpy(_data(shape, dtype, 2.0, seed=1)), -1).numpy()
    g = _data(shape, dtype)

    def recipe(lib):
        op = getattr(lib.ops.aten, name)
        return op(lib.from_numpy(g.copy()), lib.from_numpy(y.copy()), -1, getattr(lib, dtype))
    rs, rt = recipe(strided), recipe(torch)
    assert str(rs.dtype) == str(rt.dtype) and rs.stride() == rt.stride()
    rtol, atol = (1e-12, 1e-14) if dtype == "float64" else (2e-6, 1e-6)
    np.testing.assert_allclose(rs.numpy(), rt.numpy(), rtol=rtol, atol=atol)


@pytest.mark.parametrize("fn", FNS)
@pytest.mark.parametrize("shape", [(4, 4), (64, 256)])
def test_backward_through_autograd(fn, shape):
    x = _data(shape)

    def recipe(lib):
        t = lib.from_numpy(x.copy()).requires_grad_()
        getattr(lib, fn)(t, -1).sum().backward()         # an expanded grad: the general path
        g1 = t.grad.clone()
        t.grad = None
        w = lib.from_numpy(_data(shape, seed=3))
        (getattr(lib, fn)(t, -1) * w).sum().backward()    # a row-major grad: the fast path
        return g1, t.grad
    rs, rt = recipe(strided), recipe(torch)
    for a, b in zip(rs, rt):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=2e-6, atol=1e-6)


@hyp(40)
@given(shape=st.lists(st.integers(1, 40), min_size=1, max_size=3), fn=st.sampled_from(FNS),
       scale=st.sampled_from([0.1, 1.0, 4.0, 30.0]), dtype=st.sampled_from(["float32",
                                                                           "float64"]),
       data=st.data())
def test_hypothesis_fast_paths(shape, fn, scale, dtype, data):
    # tiny and blocked, unshifted and shifted, row-major and transposed, forward and backward
    x = _data(shape, dtype, scale, seed=len(shape))
    transpose = len(shape) > 1 and data.draw(st.booleans())
    rs, rt = [], []
    for lib, out in ((strided, rs), (torch, rt)):
        t = lib.from_numpy(x.copy())
        t = (t.transpose(0, -1) if transpose else t).requires_grad_()
        y = getattr(lib, fn)(t, -1)
        w = lib.from_numpy(_data(tuple(y.shape), dtype, seed=5))
        (y * w).sum().backward()
        out.extend([y.detach(), t.grad])
    for a, b in zip(rs, rt):
        assert str(a.dtype) == str(b.dtype) and a.stride() == b.stride()
    _close(fn, rs[0].numpy(), rt[0].numpy())
    # the gradients (y * (g - sum(g * y)), g - exp(y) * sum(g)) cancel and carry the
    # forward's last-ulp differences times sum(g): torch's own tolerance in float32
    if dtype == "float64":
        np.testing.assert_allclose(rs[1].numpy(), rt[1].numpy(), rtol=1e-12, atol=1e-13)
    else:
        torch.testing.assert_close(torch.from_numpy(rs[1].numpy()), rt[1])


# -- the composite's direct call (kernels/nn/softmax.py ``composite``) ----------------------------

@pytest.mark.parametrize("fn", FNS)
def test_composite_goes_through_dispatch_hooks(fn):
    # with a dispatch hook installed the composite calls the _softmax handle as before
    from strided.ops.dispatcher import add_dispatch_hook
    seen = []
    remove = add_dispatch_hook(lambda op, key, args: seen.append(op.qualname))
    try:
        y = getattr(strided, fn)(strided.from_numpy(_data((4, 4))), -1)
    finally:
        remove()
    assert seen == [f"aten::{fn}.int", f"aten::_{fn}"]
    rt = getattr(torch, fn)(torch.from_numpy(_data((4, 4))), -1)
    _close(fn, y.numpy(), rt.numpy())


@pytest.mark.parametrize("fn", FNS)
@pytest.mark.parametrize("shape", [(4, 4), (2, 2, 4), (3, 80), (1,), (16, 1)])
def test_composite_direct_call_matches(fn, shape):
    # the unshifted inline path (c <= 64), wide rows (c > 64), 3-d, one-element rows
    x = _data(shape, scale=0.5)
    rs, rt = _both(fn, x)
    _close(fn, rs, rt)
    rs, rt = _both(fn, x, dtype=None)
    _close(fn, rs, rt)
    rs, rt = _both(fn, x.astype(np.float64))
    _close(fn, rs, rt)
