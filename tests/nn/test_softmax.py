"""aten ``_softmax`` / ``_log_softmax`` (+ backward) and the ``softmax.int`` /
``log_softmax.int`` composites over them: differential tests against torch.

Values over dims, dtypes, ``dtype=`` casts, extreme values (rows beyond the no-shift range,
-inf and nan rows), non-contiguous inputs (hypothesis), gradients and double gradients,
the graph (``SoftmaxBackward0`` over ``ToCopyBackward0``), ``out=``, meta, and errors.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import strided
from tests.autograd.grad_harness import check_grads, grad_fn_names, gradcheck_strided
from tests.conftest import check, hyp

FNS = ("softmax", "log_softmax")


def _close(recipe):
    check(recipe, exact=False)


@pytest.mark.parametrize("fn", FNS)
@pytest.mark.parametrize("shape,dim", [((4, 5), 1), ((4, 5), 0), ((4, 5), -1), ((2, 3, 4), 1),
                                       ((2, 3, 4), 2), ((7,), 0), ((), 0), ((3, 0), 1),
                                       ((0, 3), 1), ((1, 1), 0)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_values(fn, shape, dim, dtype):
    data = np.asarray(np.random.default_rng(0).standard_normal(shape) * 3).astype(dtype)

    def recipe(m):
        return getattr(m.tensor(data), fn)(dim)
    if dtype == "float64":
        _close(recipe)
    else:
        rs, rt = recipe(strided), recipe(torch)
        assert rs.shape == rt.shape and str(rs.dtype) == str(rt.dtype)
        np.testing.assert_allclose(rs.numpy(), rt.numpy(), rtol=2e-6, atol=1e-6)


@pytest.mark.parametrize("fn", FNS)
@pytest.mark.parametrize("scale", [1.0, 100.0, 1e4])
def test_large_values_use_the_shift(fn, scale):
    data = np.random.default_rng(1).standard_normal((6, 33)) * scale

    def recipe(m):
        x = m.tensor(data)
        return getattr(x, fn)(1), getattr(x.float(), fn)(1).double()
    rs, rt = recipe(strided), recipe(torch)
    np.testing.assert_allclose(rs[0].numpy(), rt[0].numpy(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(rs[1].numpy(), rt[1].numpy(), rtol=1e-5, atol=1e-30)


@pytest.mark.parametrize("fn", FNS)
def test_inf_and_nan_rows(fn):
    data = np.array([[-np.inf, -np.inf, -np.inf], [np.inf, 0.0, 1.0], [np.nan, 0.0, 1.0],
                     [-np.inf, 0.0, 1.0], [np.inf, np.inf, 0.0]])
    _close(lambda m: getattr(m.tensor(data), fn)(1))
    _close(lambda m: getattr(m.tensor(data.T.copy()), fn)(0))


@pytest.mark.parametrize("fn", FNS)
def test_many_rows_cross_blocks(fn):
    data = np.random.default_rng(2).standard_normal((300, 257)).astype(np.float32)
    data[5] *= 1000                      # one block needs the max shift, the others do not
    rs, rt = getattr(strided.tensor(data), fn)(1), getattr(torch.tensor(data), fn)(1)
    np.testing.assert_allclose(rs.numpy(), rt.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("fn", FNS)
def test_half_precision(fn):
    data = np.random.default_rng(3).standard_normal((4, 9)).astype(np.float16)
    for dt in ("float16", "bfloat16"):
        rs = getattr(strided.tensor(data).to(getattr(strided, dt)), fn)(1)
        rt = getattr(torch.tensor(data).to(getattr(torch, dt)), fn)(1)
        assert str(rs.dtype) == str(rt.dtype)
        np.testing.assert_allclose(rs.float().numpy(), rt.float().numpy(), rtol=1e-2,
                                   atol=1e-2)


@pytest.mark.parametrize("fn", FNS)
@pytest.mark.parametrize("dtype", ["float64", "float32", "float16"])
def test_dtype_argument(fn, dtype):
    data = np.random.default_rng(4).standard_normal((3, 4)).astype(np.float32)

    def recipe(m):
        x = m.tensor(data, requires_grad=True)
        y = getattr(x, fn)(1, dtype=getattr(m, dtype))
        return y.dtype, grad_fn_names(y)
    check(recipe)


@pytest.mark.parametrize("fn", FNS)
def test_graph(fn):
    def recipe(m):
        x = m.tensor(np.ones((2, 3)), requires_grad=True)
        return (grad_fn_names(getattr(x, fn)(1)),
                grad_fn_names(getattr(m, fn)(x.float(), 0)),
                grad_fn_names(getattr(m.nn.functional, fn)(x, dim=1, dtype=m.float32)))
    check(recipe)


@pytest.mark.parametrize("fn", FNS)
@pytest.mark.parametrize("shape,dim", [((3, 4), 1), ((3, 4), 0), ((2, 3, 4), 1), ((5,), 0),
                                       ((), 0)])
def test_gradients(fn, shape, dim):
    check_grads(lambda m, x, w: (getattr(x, fn)(dim) * w).sum(), [shape, shape])


@pytest.mark.parametrize("fn", FNS)
def test_double_backward(fn):
    gradcheck_strided(lambda m, x: getattr(x, fn)(1) ** 2, [(3, 4)], second=True)
    gradcheck_strided(lambda m, x: getattr(x, fn)(0) ** 2, [(3, 4)], second=True)

    def program(m, x, w):
        y = (getattr(x, fn)(1) * w).sum()
        (g,) = m.autograd.grad(y, x, create_graph=True)
        return (g * g).sum()
    check_grads(program, [(3, 4), (3, 4)])


@pytest.mark.parametrize("name", ["_softmax_backward_data", "_log_softmax_backward_data"])
def test_backward_data_ops(name):
    data = np.random.default_rng(5).standard_normal((3, 4))

    def recipe(m):
        y = m.tensor(data).softmax(1)
        if name.startswith("_log"):
            y = y.log()
        g = m.tensor(data[::-1].copy())
        return (getattr(m.ops.aten, name)(g, y, 1, m.float64),
                getattr(m.ops.aten, name)(g.t(), y.t(), 0, m.float64))
    _close(recipe)


@pytest.mark.parametrize("fn", FNS)
def test_out(fn):
    data = np.random.default_rng(6).standard_normal((3, 4))

    def recipe(m):
        out = m.empty(0, dtype=m.float64)
        r = getattr(m, fn)(m.tensor(data), 1, out=out)
        return r is out, out
    _close(recipe)


@pytest.mark.parametrize("fn", FNS)
def test_out_aten(fn):
    data = np.random.default_rng(6).standard_normal((3, 4))

    def recipe(m):
        out = m.empty(3, 4, dtype=m.float64)
        getattr(m.ops.aten, "_" + fn).out(m.tensor(data), 0, False, out=out)
        return out
    _close(recipe)


@pytest.mark.parametrize("fn", FNS)
def test_meta(fn):
    def recipe(m):
        x = m.empty(3, 4, 5, device="meta")
        return getattr(x, fn)(1), getattr(x, fn)(2, dtype=m.float64), \
            getattr(m.ops.aten, "_" + fn)(x, 0, False)
    check(recipe)


ERRORS = {
    "long": lambda m: m.tensor([1, 2]).softmax(0),
    "long-dim0": lambda m: m.tensor([[1, 2]]).log_softmax(0),
    "bool": lambda m: m.tensor([True]).softmax(0),
    "dim-range": lambda m: m.ones(2, 3).softmax(2),
    "dtype-long": lambda m: m.ones(2, 3).softmax(1, dtype=m.int64),
    "half-to-float": lambda m: m.ops.aten._softmax(m.ones(2, 3, dtype=m.float16), 1, True),
    "log-half-to-float": lambda m: m.ops.aten._log_softmax(m.ones(2, dtype=m.float16), 0, True),
    "out-dtype": lambda m: m.softmax(m.ones(2, 3), 1, out=m.empty(2, 3, dtype=m.float64)),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors(name):
    check(ERRORS[name])


@hyp(30)
@given(shape=st.lists(st.integers(1, 6), min_size=1, max_size=4), data=st.data(),
       fn=st.sampled_from(FNS), scale=st.sampled_from([1.0, 50.0, 500.0]))
def test_hypothesis_non_contiguous(shape, data, fn, scale):
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    perm = data.draw(st.permutations(range(len(shape))))
    step = data.draw(st.integers(1, 2))
    values = np.random.default_rng(len(shape)).standard_normal([s * step for s in shape])
    values = values * scale

    def program(m, x, w):
        v = x[tuple(slice(None, None, step) for _ in shape)].permute(*perm)
        return (getattr(v, fn)(dim) * w).sum()
    w_shape = tuple(shape[p] for p in perm)
    w = np.random.default_rng(9).standard_normal(w_shape)
    check_grads(program, [values.shape, w_shape], values=[values, w], rtol=1e-7, atol=1e-10)
