"""Issue 14's indexing and shape ops against torch: the *_copy ops (values, fresh
row-major results that never alias, out=, node names, gradients), the *_scatter ops, fill,
isin, renorm, unravel_index, atleast_*d, unsafe_split/chunk, sum_to_size, tril/triu_indices,
empty_permuted, nonzero_static, vander, fill_diagonal_, dim_order: values, dtypes, strides,
errors, meta shapes, float64 gradients and grad_fn names."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from conftest import assert_same, check, hyp
from hypothesis import given
from hypothesis import strategies as st

import strided

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "autograd"))
from grad_harness import check_grads, grad_fn_names  # noqa: E402


def _x(m, shape=(3, 4), dtype="float32", start=0):
    n = int(np.prod(shape))
    return m.arange(start, start + n, dtype=getattr(m, dtype)).reshape(shape)


def _nc(m, shape=(4, 3), dtype="float32"):
    """A non-contiguous tensor (a transpose) of ``shape``."""
    return _x(m, shape[::-1], dtype).t() if len(shape) == 2 else _x(m, shape, dtype)


# -- the *_copy ops --------------------------------------------------------------------------

# (id, recipe over (m, x)): x is a (3, 4) tensor, or a transposed (4, 3) one below
COPIES = [
    ("alias_copy", lambda m, x: m.alias_copy(x)),
    ("as_strided_copy", lambda m, x: m.as_strided_copy(x, (2, 2), (1, 2), 1)),
    ("diagonal_copy", lambda m, x: m.diagonal_copy(x, 1)),
    ("diagonal_copy_neg", lambda m, x: m.diagonal_copy(x, -1, 1, 0)),
    ("expand_copy", lambda m, x: m.expand_copy(x, (2, 3, 4))),
    ("expand_copy_neg1", lambda m, x: m.expand_copy(x[:1], (2, -1, 4))),
    ("narrow_copy", lambda m, x: m.narrow_copy(x, 1, 1, 2)),
    ("narrow_copy_negstart", lambda m, x: m.narrow_copy(x, 0, -2, 2)),
    ("permute_copy", lambda m, x: m.permute_copy(x, (1, 0))),
    ("select_copy", lambda m, x: m.select_copy(x, 1, -1)),
    ("slice_copy", lambda m, x: m.slice_copy(x, 1, 0, 4, 2)),
    ("slice_copy_default", lambda m, x: m.slice_copy(x)),
    ("split_copy", lambda m, x: m.split_copy(x, 2)),
    ("split_copy_dim", lambda m, x: m.split_copy(x, 3, 1)),
    ("split_with_sizes_copy", lambda m, x: m.split_with_sizes_copy(x, [1, 2])),
    ("squeeze_copy", lambda m, x: m.squeeze_copy(x.unsqueeze(1))),
    ("squeeze_copy_dim", lambda m, x: m.squeeze_copy(x.unsqueeze(0), 0)),
    ("squeeze_copy_dims", lambda m, x: m.squeeze_copy(x.unsqueeze(0).unsqueeze(-1), (0, -1))),
    ("t_copy", lambda m, x: m.t_copy(x)),
    ("transpose_copy", lambda m, x: m.transpose_copy(x, 0, -1)),
    ("unsqueeze_copy", lambda m, x: m.unsqueeze_copy(x, -1)),
    ("unbind_copy", lambda m, x: m.unbind_copy(x, 1)),
    ("view_copy", lambda m, x: m.view_copy(x, (2, -1))),
    ("unfold_copy", lambda m, x: m.unfold_copy(x, 1, 2, 1)),
]


def _no_alias(result, x):
    parts = result if isinstance(result, tuple) else (result,)
    for p in parts:
        assert p.untyped_storage().data_ptr() != x.untyped_storage().data_ptr()
        assert p._base is None
        assert p.is_contiguous()


@pytest.mark.parametrize("case", COPIES, ids=[c[0] for c in COPIES])
@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
def test_copy_ops_values_fresh_and_contiguous(case, layout):
    _, recipe = case
    make = (lambda m: _x(m)) if layout == "contiguous" else (lambda m: _nc(m, (3, 4)))
    rs, _ = check(lambda m: recipe(m, make(m)))
    x = make(strided)
    _no_alias(recipe(strided, x), x)


def test_view_copy_of_non_viewable_input_reshapes():
    check(lambda m: m.view_copy(_nc(m, (3, 4)), (12,)))
    check(lambda m: m.view_copy(_x(m, dtype="float32"), m.int32))
    check(lambda m: m.view_copy(_x(m, dtype="float32"), m.float16))


def test_view_as_real_and_complex_copy():
    check(lambda m: m.view_as_real_copy(m.tensor([[1 + 2j, 3 - 1j]])))
    check(lambda m: m.view_as_complex_copy(_x(m, (3, 2))))
    x = strided.tensor([1 + 2j, 3j])
    r = strided.view_as_real_copy(x)
    r[0, 0] = 9
    assert x[0].real.item() == 1


def test_detach_copy():
    check(lambda m: m.detach_copy(_x(m)))
    rs, rt = check(lambda m: m.detach_copy(_x(m).requires_grad_()).grad_fn.name())
    assert rs == "torch::autograd::NotImplemented"


@pytest.mark.parametrize("case", [c for c in COPIES if c[0] not in
                                  ("split_copy", "split_copy_dim", "split_with_sizes_copy",
                                   "unbind_copy", "expand_copy_neg1")],
                         ids=lambda c: c[0])
def test_copy_ops_out(case):
    name, recipe = case
    fn = name.split("_copy")[0] + "_copy"

    def run(m, out):
        x = _x(m)
        # the recipe's call of the op, with out= added by a proxy of the module
        calls = {}

        class Spy:
            def __getattr__(self, attr):
                f = getattr(m, attr)
                if attr == fn:
                    def g(*a, **k):
                        calls["r"] = f(*a, out=out, **k)
                        return calls["r"]
                    return g
                return f
        recipe(Spy(), x)
        return calls["r"], out

    check(lambda m: run(m, m.empty(0)))
    check(lambda m: run(m, m.empty(0, dtype=m.float64)))      # dtype mismatch: torch's error
    check(lambda m: run(m, m.empty(5)))                        # resized with a warning
    check(lambda m: run(m, m.empty(40)))


def test_split_copy_out_lists():
    def run(m):
        outs = [m.empty(2, 4), m.empty(1, 4)]
        r = m.split_copy(_x(m), 2, out=outs)
        return r, outs
    check(run)

    def run2(m):
        outs = [m.empty(3), m.empty(3), m.empty(3), m.empty(3, dtype=m.float64)]
        r = m.unbind_copy(_x(m), 1, out=outs)
        return r, outs
    check(run2)

    def run3(m):
        outs = (m.empty(3, 1), m.empty(3, 3))
        m.split_with_sizes_copy(_x(m), [1, 3], 1, out=outs)
        return outs
    check(run3)
    check(lambda m: m.split_copy(_x(m), 2, out=[m.empty(0), m.empty(0)]))
    check(lambda m: m.split_copy(_x(m), 2, out=[m.empty(2, 4)]))
    check(lambda m: m.split_copy(_x(m), 2, out=m.empty(2, 4)), first_line=True)


def test_narrow_copy_out_dtype_error():
    check(lambda m: m.narrow_copy(_x(m), 0, 0, 1, out=m.empty(0, dtype=m.int64)))


COPY_ERRORS = [
    lambda m: m.permute_copy(_x(m), (0, 0)),
    lambda m: m.select_copy(_x(m), 0, 5),
    lambda m: m.narrow_copy(_x(m), 0, 2, 5),
    lambda m: m.diagonal_copy(_x(m), 0, 1, 1),
    lambda m: m.expand_copy(_x(m), (2, 4)),
    lambda m: m.view_copy(_x(m), (5, -1)),
    lambda m: m.unfold_copy(_x(m), 1, 5, 1),
    lambda m: m.transpose_copy(_x(m), 0, 2),
    lambda m: m.view_as_real_copy(_x(m)),
    lambda m: m.squeeze_copy(_x(m), 3),
    lambda m: m.split_copy(_x(m), -1),
]


@pytest.mark.parametrize("i", range(len(COPY_ERRORS)))
def test_copy_ops_errors(i):
    check(COPY_ERRORS[i])


GRAD_COPIES = [
    ("alias_copy", lambda m, x: m.alias_copy(x), (3, 4)),
    ("as_strided_copy", lambda m, x: m.as_strided_copy(x, (2, 2), (1, 2), 1), (3, 4)),
    ("diagonal_copy", lambda m, x: m.diagonal_copy(x, 1), (3, 4)),
    ("expand_copy", lambda m, x: m.expand_copy(x, (2, 3, 4)) * 2, (3, 1)),
    ("narrow_copy", lambda m, x: m.narrow_copy(x, 0, 1, 2), (3, 4)),
    # torch's formula slices [start, start + length): a negative start fails in backward
    ("narrow_copy_negstart", lambda m, x: m.narrow_copy(x, 0, -2, 2), (3, 4)),
    ("permute_copy", lambda m, x: m.permute_copy(x, (1, 0)), (3, 4)),
    ("select_copy", lambda m, x: m.select_copy(x, 1, 2), (3, 4)),
    ("slice_copy", lambda m, x: m.slice_copy(x, 1, 1, None, 2), (3, 4)),
    ("split_copy", lambda m, x: m.split_copy(x, 2)[1], (3, 4)),
    ("split_copy_all", lambda m, x: m.split_copy(x, 2), (3, 4)),
    ("split_with_sizes_copy", lambda m, x: m.split_with_sizes_copy(x, [1, 3], 1)[1], (3, 4)),
    ("squeeze_copy", lambda m, x: m.squeeze_copy(x), (3, 1)),
    ("squeeze_copy_dim", lambda m, x: m.squeeze_copy(x, 1), (3, 1)),
    ("squeeze_copy_dims", lambda m, x: m.squeeze_copy(x, [1]), (3, 1)),
    ("t_copy", lambda m, x: m.t_copy(x), (3, 4)),
    ("transpose_copy", lambda m, x: m.transpose_copy(x, 0, 1), (3, 4)),
    ("unsqueeze_copy", lambda m, x: m.unsqueeze_copy(x, 1), (3, 4)),
    ("unbind_copy", lambda m, x: m.unbind_copy(x)[2], (3, 4)),
    ("view_copy", lambda m, x: m.view_copy(x, (4, 3)), (3, 4)),
    ("unfold_copy", lambda m, x: m.unfold_copy(x, 1, 2, 1), (3, 4)),
    ("view_as_real_copy", lambda m, x: m.view_as_real_copy(m.view_as_complex(x)), (3, 2)),
]


@pytest.mark.parametrize("case", GRAD_COPIES, ids=[c[0] for c in GRAD_COPIES])
def test_copy_ops_gradients_and_node_names(case):
    _, program, shape = case
    check_grads(lambda m, x: program(m, x) * 1.5, [shape])

    def names(m):
        x = m.ones(shape, dtype=m.float64, requires_grad=True)
        r = program(m, x)
        r = r[0] if isinstance(r, tuple) else r
        return grad_fn_names(r)
    assert names(strided) == names(torch)


def test_copy_ops_meta():
    def run(m):
        x = m.empty(3, 4, device="meta")
        return [m.permute_copy(x, (1, 0)), m.expand_copy(x, (2, 3, 4)), m.diagonal_copy(x),
                *m.split_copy(x, 2), m.view_copy(x, (12,))]
    check(run)


# -- the *_scatter ops --------------------------------------------------------------------------

SCATTERS = [
    ("slice", lambda m, x, s: m.slice_scatter(x, s, 1, 1, 4, 2), (3, 2)),
    ("slice_default", lambda m, x, s: m.slice_scatter(x, s), (3, 4)),
    ("slice_neg", lambda m, x, s: m.slice_scatter(x, s, 0, -2), (2, 4)),
    ("select", lambda m, x, s: m.select_scatter(x, s, 0, -1), (4,)),
    ("select_dim1", lambda m, x, s: m.select_scatter(x, s, 1, 2), (3,)),
    ("diagonal", lambda m, x, s: m.diagonal_scatter(x, s), (3,)),
    ("diagonal_offset", lambda m, x, s: m.diagonal_scatter(x, s, 2), (2,)),
    ("diagonal_neg", lambda m, x, s: m.diagonal_scatter(x, s, -1, 1, 0), (3,)),
    ("as_strided", lambda m, x, s: m.as_strided_scatter(x, s, (2, 2), (1, 2)), (2, 2)),
    ("as_strided_offset", lambda m, x, s: m.as_strided_scatter(x, s, (3,), (4,), 1), (3,)),
    ("method", lambda m, x, s: x.slice_scatter(s, 0, 0, 1), (1, 4)),
]


@pytest.mark.parametrize("case", SCATTERS, ids=[c[0] for c in SCATTERS])
def test_scatter_ops(case):
    _, recipe, src_shape = case
    check(lambda m: recipe(m, _x(m), -_x(m, src_shape, start=1)))
    # src of another dtype is cast; self's layout is kept
    check(lambda m: recipe(m, _x(m, dtype="float64"), _x(m, src_shape, dtype="int64")))
    if "as_strided" not in case[0]:
        check(lambda m: recipe(m, _nc(m, (3, 4)), -_x(m, src_shape, start=1)))
    # the result is fresh: writing it leaves self alone
    x = _x(strided)
    r = recipe(strided, x, -_x(strided, src_shape, start=1))
    assert r.untyped_storage().data_ptr() != x.untyped_storage().data_ptr()
    assert r._version == 0


def test_scatter_out():
    # torch binds out= for slice_scatter only
    def run(m, out):
        return m.slice_scatter(_x(m), -_x(m, (3, 2)), 1, 1, None, 2, out=out), out
    check(lambda m: run(m, m.empty(0)))
    check(lambda m: run(m, m.empty(0, dtype=m.float64)))
    check(lambda m: run(m, m.empty(2, 6)))
    for fn, args in [("select_scatter", (0, 0)), ("diagonal_scatter", ()),
                     ("as_strided_scatter", ((3,), (1,)))]:
        check(lambda m, fn=fn, args=args: getattr(m, fn)(_x(m), m.ones(3), *args,
                                                         out=m.empty(0)), first_line=True)


SCATTER_ERRORS = [
    lambda m: m.slice_scatter(_x(m), m.ones(2, 4), 0, 0, 1),
    lambda m: m.select_scatter(_x(m), m.ones(3), 0, 0),
    lambda m: m.select_scatter(_x(m), m.ones(4), 0, 5),
    lambda m: m.diagonal_scatter(_x(m), m.ones(4)),
    lambda m: m.as_strided_scatter(_x(m), m.ones(4), (2, 2), (1, 2)),
    lambda m: m.slice_scatter(_x(m), m.ones(1, 4), 0, 0, 1, out=m.empty(0, dtype=m.int64)),
    lambda m: m.slice_scatter(_x(m), m.ones(3, 4)[None], 0),
]


@pytest.mark.parametrize("i", range(len(SCATTER_ERRORS)))
def test_scatter_errors(i):
    check(SCATTER_ERRORS[i])


@pytest.mark.parametrize("case", SCATTERS, ids=[c[0] for c in SCATTERS])
def test_scatter_gradients(case):
    _, recipe, src_shape = case
    check_grads(lambda m, x, s: recipe(m, x, s) * m.arange(12.).view(3, 4).double(),
                [(3, 4), src_shape])

    def names(m):
        x = m.ones(3, 4, dtype=m.float64, requires_grad=True)
        s = m.ones(src_shape, dtype=m.float64, requires_grad=True)
        return grad_fn_names(recipe(m, x, s))
    assert names(strided) == names(torch)


def test_scatter_double_backward():
    def program(m, x, s):
        y = m.slice_scatter(x * x, s * s, 1, 0, 2)
        (g,) = m.autograd.grad(y.sum(), x, create_graph=True)
        return g
    check_grads(program, [(3, 4), (3, 2)])


@given(st.data())
@hyp(40)
def test_slice_scatter_hypothesis(data):
    ndim = data.draw(st.integers(1, 3))
    shape = tuple(data.draw(st.integers(1, 4)) for _ in range(ndim))
    dim = data.draw(st.integers(-ndim, ndim - 1))
    start = data.draw(st.one_of(st.none(), st.integers(-5, 5)))
    end = data.draw(st.one_of(st.none(), st.integers(-5, 5)))
    step = data.draw(st.integers(1, 3))
    n = shape[dim]
    s, e, _ = slice(start, end, step).indices(n)
    length = max(0, (e - s + step - 1) // step) if e > s else 0
    src_shape = list(shape)
    src_shape[dim] = length
    check(lambda m: m.slice_scatter(_x(m, shape), -_x(m, tuple(src_shape)), dim, start, end,
                                    step))


@given(st.data())
@hyp(30)
def test_diagonal_select_scatter_hypothesis(data):
    shape = tuple(data.draw(st.integers(1, 4)) for _ in range(data.draw(st.integers(2, 3))))
    ndim = len(shape)
    d1 = data.draw(st.integers(0, ndim - 1))
    d2 = data.draw(st.integers(0, ndim - 1).filter(lambda d: d != d1))
    offset = data.draw(st.integers(-3, 3))
    diag = strided.empty(shape).diagonal(offset, d1, d2).shape
    check(lambda m: m.diagonal_scatter(_x(m, shape), -_x(m, tuple(diag)), offset, d1, d2))
    dim = data.draw(st.integers(0, ndim - 1))
    index = data.draw(st.integers(-shape[dim], shape[dim] - 1))
    rest = shape[:dim] + shape[dim + 1:]
    check(lambda m: m.select_scatter(_x(m, shape), -_x(m, rest), dim, index))


# -- fill ---------------------------------------------------------------------------------------

def test_fill():
    check(lambda m: m.fill(_x(m), 2.5))
    check(lambda m: m.fill(_x(m, dtype="int32"), 7))
    check(lambda m: m.fill(_nc(m, (3, 4)), 1))
    check(lambda m: m.fill(_x(m), m.tensor(3.0)))
    check(lambda m: m.fill(_x(m), m.tensor([3.0, 1.0])))
    check(lambda m: m.fill(_x(m, dtype="uint8"), 300))
    check(lambda m: m.fill(_x(m), 2, out=m.empty(0)), first_line=True)
    x = _x(strided)
    r = strided.fill(x, 1.0)
    assert x[0, 0].item() == 0 and r._version == 0
    check_grads(lambda m, x: m.fill(x, 2.0) * x, [(3, 4)])
    check_grads(lambda m, x, v: m.fill(x, v.sum()) * x, [(3, 4), (2,)])
    for value in (2.0, torch.tensor(2.0)):
        def names(m, value=value):
            x = m.ones(3, dtype=m.float64, requires_grad=True)
            v = value if isinstance(value, float) else m.tensor(2.0, requires_grad=True)
            return m.fill(x, v).grad_fn.name()
        assert names(strided) == names(torch)


def test_fill_diagonal_():
    def run(m, shape, value, wrap=False, nc=False):
        x = m.zeros(shape)
        if nc:
            x = x.t()
        r = x.fill_diagonal_(value, wrap)
        assert r is x
        return x
    for shape in [(3, 3), (5, 3), (3, 5), (7, 3), (2, 2, 2), (1, 4)]:
        for wrap in (False, True):
            check(lambda m, s=shape, w=wrap: run(m, s, 2.5, w))
    check(lambda m: run(m, (7, 3), 1, True, True))
    check(lambda m: run(m, (3,), 1))
    check(lambda m: run(m, (2, 3, 2), 1))
    check_grads(lambda m, x: (x * 1).fill_diagonal_(3.0) * x, [(4, 4)])

    def names(m):
        x = m.ones(3, 3, dtype=m.float64, requires_grad=True).clone()
        return grad_fn_names(x.fill_diagonal_(2))
    assert names(strided) == names(torch)


# -- isin ---------------------------------------------------------------------------------------

def test_isin_basic():
    check(lambda m: m.isin(m.tensor([1, 2, 3, 4]), m.tensor([2, 4, 6])))
    check(lambda m: m.isin(m.tensor([1, 2, 3, 4]), m.tensor([2, 4, 6]), invert=True))
    check(lambda m: m.isin(m.tensor([[1, 2], [3, 4]]).t(), m.tensor([1, 4])))
    check(lambda m: m.isin(m.tensor([1, 2, 3]), 2))
    check(lambda m: m.isin(m.tensor([1, 2, 3]), 2.5))
    check(lambda m: m.isin(m.tensor([1, 2, 3], dtype=m.uint8), 257))
    check(lambda m: m.isin(m.tensor([1, 2], dtype=m.uint8), m.tensor([257])))
    check(lambda m: m.isin(2, m.tensor([1, 2, 3])))
    check(lambda m: m.isin(2.0, m.tensor([1, 2, 3]), invert=True))
    check(lambda m: m.isin(m.tensor([2 ** 24 + 1]), m.tensor([2.0 ** 24])))
    check(lambda m: m.isin(m.tensor([float("nan"), 0.0]), m.tensor([float("nan"), -0.0])))
    check(lambda m: m.isin(m.tensor([1.5, 2.0]).half(), m.tensor([1.5]).bfloat16()))
    check(lambda m: m.isin(m.empty(2, 0, 3), m.tensor([1.0])))
    check(lambda m: m.isin(m.tensor([1, 2]), m.tensor([], dtype=m.int64)))
    check(lambda m: m.isin(m.tensor([1, 2]), m.tensor([1]), assume_unique=True))
    check(lambda m: m.isin(m.tensor([1, 2]), m.tensor([1]), out=m.empty(0, dtype=m.bool)))
    check(lambda m: m.isin(m.empty(3, 4, device="meta"), m.empty(2, device="meta")))


ISIN_ERRORS = [
    lambda m: m.isin(m.tensor([1 + 1j]), m.tensor([1 + 1j])),
    lambda m: m.isin(m.tensor([1, 2]), m.tensor([True])),
    lambda m: m.isin(m.tensor([True]), m.tensor([1])),
    lambda m: m.isin(m.tensor([1, 2]), True),
    lambda m: m.isin(m.tensor([1, 2]), 1 + 1j),
    lambda m: m.isin(m.tensor([1, 2], dtype=m.uint16), m.tensor([1])),
    lambda m: m.isin(m.tensor([1, 2]), m.tensor([1]), out=m.empty(0)),
]


@pytest.mark.parametrize("i", range(len(ISIN_ERRORS)))
def test_isin_errors(i):
    check(ISIN_ERRORS[i])


@given(st.data())
@hyp(40)
def test_isin_hypothesis(data):
    dtypes = ["int64", "int32", "uint8", "float32", "float64", "int8", "float16"]
    d1 = data.draw(st.sampled_from(dtypes))
    d2 = data.draw(st.sampled_from(dtypes))
    a = data.draw(st.lists(st.integers(-3, 12), max_size=12))
    b = data.draw(st.lists(st.integers(-3, 12), max_size=30))
    invert = data.draw(st.booleans())

    def t(m, vals, d):
        return m.tensor(vals, dtype=m.int64).to(getattr(m, d))
    check(lambda m: m.isin(t(m, a, d1), t(m, b, d2), invert=invert))
    if b:
        check(lambda m: m.isin(t(m, a, d1), b[0] + 0.5, invert=invert))
        check(lambda m: m.isin(b[0], t(m, a, d1), invert=invert))


# -- renorm -------------------------------------------------------------------------------------

@pytest.mark.parametrize("p", [1, 2, 3.5, float("inf")])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_renorm(p, dim):
    check(lambda m: m.renorm(_x(m, (3, 4), "float64") - 5, p, dim, 5.0), exact=False)
    check(lambda m: (_x(m, (2, 3, 2), "float32") - 5).renorm(p, dim, 4), exact=False)
    check_grads(lambda m, x: m.renorm(x, p, dim, 1.5), [(3, 4)])


def test_renorm_variants():
    def inplace(m):
        x = _x(m, (3, 4)) - 5
        r = x.renorm_(2, 0, 3)
        return r is x, x
    check(inplace, exact=False)
    check(lambda m: m.renorm(_x(m, (3, 4)), 2, 0, 3, out=m.empty(0)), exact=False)
    check(lambda m: m.renorm(m.tensor([[1 + 1j, 2j], [3, 4]]), 2, 0, 1), exact=False)
    check(lambda m: m.renorm(_x(m, (3, 4), "float16"), 2, 1, 3), exact=False)
    check(lambda m: m.renorm(m.empty(3, 4, device="meta"), 2, 1, 3))
    check(lambda m: m.renorm(m.zeros(2, 3), 2, 0, 0))

    def names(m):
        x = m.ones(3, 4, dtype=m.float64, requires_grad=True)
        return grad_fn_names(m.renorm(x, 2, 0, 1))
    assert names(strided) == names(torch)


RENORM_ERRORS = [
    lambda m: m.renorm(_x(m), 0, 0, 1),
    lambda m: m.renorm(_x(m), -1, 0, 1),
    lambda m: m.renorm(_x(m), 2, 0, -1),
    lambda m: m.renorm(m.ones(3), 2, 0, 1),
    lambda m: m.renorm(_x(m), 2, 5, 1),
    lambda m: m.renorm(_x(m, dtype="int32"), 2, 0, 1),
    lambda m: m.renorm(_x(m), 2, 0, 1 + 1j),
    lambda m: m.renorm(_x(m), 2j, 0, 1),
]


@pytest.mark.parametrize("i", range(len(RENORM_ERRORS)))
def test_renorm_errors(i):
    check(RENORM_ERRORS[i])


# -- unravel_index ------------------------------------------------------------------------------

def test_unravel_index():
    check(lambda m: m.unravel_index(m.tensor(4), (3, 2)))
    check(lambda m: m.unravel_index(m.tensor([4, 1]), (3, 2)))
    check(lambda m: m.unravel_index(m.tensor([[1234], [5678]]), (10, 10, 10, 10)))
    check(lambda m: m.unravel_index(m.tensor([5], dtype=m.int32), m.Size([2, 3])))
    check(lambda m: m.unravel_index(m.tensor([5, 2]), 7))
    check(lambda m: m.unravel_index(m.tensor([0]), ()))
    check(lambda m: m.unravel_index(m.tensor([-1]), (2, 3)))


UNRAVEL_ERRORS = [
    lambda m: m.unravel_index(m.tensor([1.0]), (2, 3)),
    lambda m: m.unravel_index(m.tensor([True]), (2, 3)),
    lambda m: m.unravel_index(m.tensor([1]), (2, -3)),
    lambda m: m.unravel_index(m.tensor([1]), (2, 3.0)),
    lambda m: m.unravel_index(m.tensor([1]), 2.0),
]


@pytest.mark.parametrize("i", range(len(UNRAVEL_ERRORS)))
def test_unravel_index_errors(i):
    check(UNRAVEL_ERRORS[i])


@given(st.lists(st.integers(1, 5), min_size=1, max_size=4), st.data())
@hyp(40)
def test_unravel_index_hypothesis(shape, data):
    n = int(np.prod(shape))
    idx = data.draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=6))
    rs, _ = check(lambda m: m.unravel_index(m.tensor(idx), tuple(shape)))
    np.testing.assert_array_equal(np.stack([r.numpy() for r in rs]),
                                  np.stack(np.unravel_index(idx, shape)))


# -- atleast, unsafe_split, sum_to_size ---------------------------------------------------------

@pytest.mark.parametrize("fn", ["atleast_1d", "atleast_2d", "atleast_3d"])
def test_atleast(fn):
    for shape in [(), (3,), (2, 3), (2, 3, 4), (1, 2, 3, 4)]:
        check(lambda m, s=shape: getattr(m, fn)(m.ones(s)))
    check(lambda m: getattr(m, fn)(m.ones(()), m.ones(3)))
    check(lambda m: getattr(m, fn)([m.ones(()), m.ones(2, 3)]))
    check(lambda m: getattr(m, fn)((m.ones(4),)))
    check(lambda m: getattr(m, fn)())
    x = strided.ones(2, 3, 4)
    assert getattr(strided, fn)(x) is x
    v = getattr(strided, fn)(strided.ones(3))
    assert v._base is not None or v.dim() == 1
    check_grads(lambda m, x: getattr(m, fn)(x), [(3,)])
    check_grads(lambda m, x: getattr(m, fn)(x.sum()), [(3,)])


def test_unsafe_split_and_chunk():
    check(lambda m: m.unsafe_split(_x(m), 2))
    check(lambda m: m.unsafe_split(_x(m), 3, 1))
    check(lambda m: _x(m).unsafe_split_with_sizes([1, 3], -1))
    check(lambda m: m.unsafe_chunk(_x(m), 2))
    check(lambda m: _x(m).unsafe_chunk(3, 1))
    check(lambda m: m.unsafe_chunk(m.ones(0, 3), 3))
    check(lambda m: m.unsafe_chunk(m.ones(()), 3))
    check(lambda m: m.unsafe_chunk(_x(m), 0))
    check(lambda m: m.unsafe_split(_x(m), -1))
    x = _x(strided)
    parts = strided.unsafe_split(x, 2)
    assert parts[0]._base is None and not parts[0]._is_view()
    assert parts[0].data_ptr() == x.data_ptr()
    parts[0].add_(1)
    assert x._version == 0 and x[0, 0].item() == 1
    check_grads(lambda m, x: m.unsafe_split(x, 2), [(3, 4)])
    check_grads(lambda m, x: m.unsafe_chunk(x, 2, 1)[1], [(3, 4)])
    check_grads(lambda m, x: m.unsafe_split_with_sizes(x, [2, 1])[0], [(3, 4)])

    def names(m):
        x = m.ones(3, 4, dtype=m.float64, requires_grad=True)
        return (grad_fn_names(m.unsafe_chunk(x, 2)[0]),
                grad_fn_names(m.unsafe_split_with_sizes(x, [2, 1])[0]))
    assert names(strided) == names(torch)


def test_sum_to_size():
    check(lambda m: _x(m).sum_to_size(4))
    check(lambda m: _x(m).sum_to_size(1, 4))
    check(lambda m: _x(m).sum_to_size(3, 1))
    check(lambda m: _x(m).sum_to_size((1, 1)))
    check(lambda m: _x(m, (2, 3, 4)).sum_to_size(3, 1))
    check(lambda m: _x(m).sum_to_size(2, 4))
    check(lambda m: _x(m).sum_to_size(1, 1, 4))
    x = _x(strided)
    assert x.sum_to_size(3, 4) is x
    check_grads(lambda m, x: x.sum_to_size(3, 1), [(2, 3, 4)])

    def names(m):
        x = m.ones(2, 3, 4, dtype=m.float64, requires_grad=True)
        return grad_fn_names(x.sum_to_size(3, 1))
    assert names(strided) == names(torch)


# -- index factories ----------------------------------------------------------------------------

@given(st.integers(0, 7), st.integers(0, 7), st.integers(-9, 9))
@hyp(40)
def test_tril_triu_indices_hypothesis(row, col, offset):
    check(lambda m: m.tril_indices(row, col, offset))
    check(lambda m: m.triu_indices(row, col, offset))
    check(lambda m: m.triu_indices(row, col, offset=offset, dtype=m.int32))


def test_tri_indices_variants_and_errors():
    check(lambda m: m.tril_indices(3, 4, 1, out=m.empty(0, dtype=m.int64)), first_line=True)
    check(lambda m: m.tril_indices(3, 4, device="meta"))
    check(lambda m: m.tril_indices(-1, 4, 1))
    check(lambda m: m.triu_indices(3, -4))
    check(lambda m: m.tril_indices(3, 4, dtype=m.float32))


def test_empty_permuted():
    def run(m, size, perm, **kw):
        t = m.empty_permuted(size, perm, **kw)
        return t.shape, t.stride(), t.dtype, t.storage_offset(), t.is_contiguous()
    for size, perm in [((2, 3, 4), (2, 0, 1)), ((2, 3, 4), (0, 1, 2)), ((2, 3, 4, 5), (0, 2, 3, 1)),
                       ((), ()), ((0, 3), (1, 0))]:
        check(lambda m, s=size, p=perm: run(m, s, p))
    check(lambda m: run(m, (2, 3), (1, 0), dtype=m.float64, device="meta"))
    check(lambda m: m.empty_permuted((2, 3, 4), (2, 0)))
    check(lambda m: m.empty_permuted((2, 3, 4), (2, 0, 0)))
    check(lambda m: m.empty_permuted((2, -3), (1, 0)))

    check(lambda m: m.empty_permuted((2, 3), (1, 0), out=m.empty(0)), first_line=True)


def test_nonzero_static():
    check(lambda m: m.nonzero_static(m.tensor([0, 1, 0, 1, 1]), size=2))
    check(lambda m: m.nonzero_static(m.tensor([[0, 1], [1, 1]]), size=4, fill_value=-5))
    check(lambda m: m.tensor([[0.0, 2.0], [0.5, 0.0]]).nonzero_static(size=3))
    check(lambda m: m.nonzero_static(m.tensor(3), size=2))
    check(lambda m: m.nonzero_static(m.tensor([True, False]), size=0))
    check(lambda m: m.nonzero_static(m.tensor([0, 1, 0, 1, 1]), size=-2))
    check(lambda m: m.nonzero_static(m.tensor([0, 1, 0, 1, 1]), size=3,
                                     out=m.empty(0, dtype=m.int64)))
    check(lambda m: m.nonzero_static(m.empty(4, 5, device="meta"), size=3))


# -- vander, dim_order --------------------------------------------------------------------------

def test_vander():
    check(lambda m: m.vander(m.tensor([1, 2, 3, 5])))
    check(lambda m: m.vander(m.tensor([1, 2, 3, 5], dtype=m.int8), N=3))
    check(lambda m: m.vander(m.tensor([1.5, 2.0, -3.0]), increasing=True), exact=False)
    check(lambda m: m.vander(m.tensor([1.5, 2.0]), N=0))
    check(lambda m: m.vander(m.tensor([1.5, 2.0]), N=1))
    check(lambda m: m.vander(m.ones(2, 2)))
    check(lambda m: m.vander(m.ones(2), N=-1))
    check_grads(lambda m, x: m.vander(x, 4), [(3,)])


def test_dim_order():
    check(lambda m: m.empty((2, 3, 5, 7)).dim_order())
    check(lambda m: m.empty((2, 3, 5, 7)).transpose(1, 2).dim_order())
    check(lambda m: m.empty((2, 5, 7, 3)).permute(0, 3, 1, 2).dim_order())
    check(lambda m: m.empty((2, 5, 7, 3)).permute(0, 3, 1, 2).dim_order(
        ambiguity_check=[m.channels_last]))
    check(lambda m: m.empty((1, 2, 3, 4)).dim_order())
    check(lambda m: m.empty((1, 2, 3, 4)).dim_order(ambiguity_check=True))
    check(lambda m: m.empty((1, 2, 3, 4)).dim_order(
        ambiguity_check=[m.contiguous_format, m.channels_last]))
    check(lambda m: m.empty((1, 2, 3, 4)).dim_order(ambiguity_check="ILLEGAL"))
    check(lambda m: m.empty((1, 2, 3, 4)).dim_order(ambiguity_check=[1]))
    check(lambda m: m.empty(()).dim_order())
    check(lambda m: m.empty(3).dim_order())
    check(lambda m: m.empty(2, 3, 4).permute(2, 0, 1).dim_order())
    check(lambda m: m.empty(2, 3, 4).permute(2, 0, 1).dim_order(ambiguity_check=True))


@given(st.permutations(range(4)), st.lists(st.integers(2, 4), min_size=4, max_size=4))
@hyp(30)
def test_dim_order_hypothesis(perm, sizes):
    check(lambda m: m.empty(sizes).permute(perm).dim_order())


def test_assert_same_helper_used():
    # a direct comparison (not through check) of one composite result
    assert_same(strided.atleast_3d(strided.ones(3)), torch.atleast_3d(torch.ones(3)))


def test_narrow_copy_errors():
    for args in [((), 0, 0, 1), ((10, 5, 20), 3, 0, 0), ((20, 5, 10), -4, 0, 0),
                 ((20, 10, 5), 1, 11, 0), ((20, 10, 5), 1, -11, 0), ((5, 20, 10), 2, 0, 11),
                 ((10,), 0, 0, -1), ((10,), 0, 10, 0), ((10,), 0, -3, 2)]:
        check(lambda m, a=args: m.narrow_copy(m.ones(a[0]), *a[1:]))


def test_sum_to_size_0d():
    check(lambda m: m.tensor(3.0).sum_to_size(()))
    check(lambda m: _x(m).sum_to_size(()))
    x = strided.tensor(3.0)
    assert x.sum_to_size(()).data_ptr() != x.data_ptr()


# -- private ops op_db covers -------------------------------------------------------------------

def test_chunk_cat():
    def a(m):
        return m.arange(6.0).view(2, 3)

    def b(m):
        return m.arange(4.0).view(2, 2)
    check(lambda m: m._chunk_cat([a(m), b(m)], 1, 2))
    check(lambda m: m._chunk_cat([a(m), b(m)], -1, 3))
    check(lambda m: m._chunk_cat([a(m), b(m).t()], 0, 2))
    check(lambda m: m._chunk_cat([a(m), m.arange(8.0).view(2, 2, 2)], 1, 2))
    check(lambda m: m._chunk_cat([a(m)], 0, 5))
    check(lambda m: m._chunk_cat([a(m), b(m)], 1, 2, out=m.empty(0)))
    for bad in [lambda m: m._chunk_cat([a(m), b(m).int()], 1, 2),
                lambda m: m._chunk_cat([a(m), b(m)], 1, 0),
                lambda m: m._chunk_cat([], 1, 2),
                lambda m: m._chunk_cat([a(m), m.empty(2, 0)], 1, 2),
                lambda m: m._chunk_cat([a(m), b(m)[:1]], 1, 2),
                lambda m: m._chunk_cat([a(m), m.ones(2, 2, 2)], -1, 2),
                lambda m: m._chunk_cat([a(m), m.ones(2)], 1, 2)]:
        check(bad)
    assert grad_fn_names(strided._chunk_cat([strided.ones(2, 3, requires_grad=True)], 1, 2)) \
        == grad_fn_names(torch._chunk_cat([torch.ones(2, 3, requires_grad=True)], 1, 2))


def test_unsafe_masked_index():
    def run(m):
        x = m.arange(12.0, dtype=m.float64).view(3, 4).requires_grad_()
        idx = m.tensor([0, 5, -1, 2])
        mask = m.tensor([True, False, True, True])
        r = m._unsafe_masked_index(x, mask, [idx], 9.0)
        r.sum().backward()
        return r.detach(), r.grad_fn.name(), x.grad
    check(run)

    def run2(m):
        x = m.arange(12.0).view(3, 4)
        mask = m.tensor([[True, False], [False, True]])
        return m._unsafe_masked_index(x, mask, [m.tensor([[0], [2]]), m.tensor([[0, 9], [3, -2]])],
                                      -1)
    check(run2)
    for shape, idx, mask in [((0, 3), [[0]], [True]), ((0, 3), [[0, 1]], [True, False]),
                             ((2, 0), [[0, 1]], [True, True]), ((0,), [[0, 0, 0]], [True] * 3),
                             ((0, 4), [[0], [1, 2]], [True, True])]:
        check(lambda m, s=shape, i=idx, k=mask: m._unsafe_masked_index(
            m.empty(s), m.tensor(k), [m.tensor(j) for j in i], 2.0))
    check(lambda m: m._unsafe_masked_index(m.ones(3), m.tensor([True]), [m.tensor([0.0])], 2))
    check(lambda m: m._unsafe_masked_index(m.ones(3), m.tensor([1]), [m.tensor([0])], 2))

    def put(m):
        x = m.zeros(3, dtype=m.float64).requires_grad_()
        v = m.arange(4.0, dtype=m.float64).requires_grad_()
        idx = m.tensor([0, 5, -1, 2])
        mask = m.tensor([True, False, True, True])
        r = m._unsafe_masked_index_put_accumulate(x, mask, [idx], v)
        (r * m.arange(3.0, dtype=m.float64)).sum().backward()
        return r.detach(), r.grad_fn.name(), x.grad, v.grad
    check(put)
    check(lambda m: m._unsafe_masked_index_put_accumulate(m.empty(0, 3), m.tensor([True]),
                                                          [m.tensor([0.5])], m.ones(1, 3)))
    check(lambda m: m._unsafe_masked_index_put_accumulate(m.ones(3), m.tensor([1]),
                                                          [m.tensor([0])], m.ones(1)))
    check(lambda m: m._unsafe_masked_index_put_accumulate(m.ones(3), m.tensor([True]),
                                                          [m.tensor([True])], m.ones(1)))
    check_grads(lambda m, x: m._unsafe_masked_index(x * x, m.tensor([True, False]),
                                                    [m.tensor([1, 0])], 0.5), [(3,)])


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16", "int64", "int8",
                                   "uint8", "bool", "int32"])
def test_hash_tensor(dtype):
    def x(m):
        t = m.tensor([[1.5, -2.0, 0.0, 3.25], [7.0, -0.0, 1.0, 2.0], [5.0, 6.0, -7.5, 8.0]])
        return t.to(getattr(m, dtype))
    check(lambda m: m.hash_tensor(x(m)))
    check(lambda m: m.hash_tensor(x(m), 1))
    check(lambda m: x(m).hash_tensor((0, -1), keepdim=True))
    check(lambda m: m.hash_tensor(x(m), 0, keepdim=True, out=m.empty(0, dtype=m.uint64)))


def test_hash_tensor_edges():
    check(lambda m: m.hash_tensor(m.tensor(3.0)))
    check(lambda m: m.hash_tensor(m.tensor(3.0), 0))
    check(lambda m: m.hash_tensor(m.tensor(3.0), 1))
    check(lambda m: m.hash_tensor(m.empty(0, 3), 1))
    check(lambda m: m.hash_tensor(m.empty(0, 3), 0))
    check(lambda m: m.hash_tensor(m.empty(0)))
    check(lambda m: m.hash_tensor(m.ones(2) + 0j))
    check(lambda m: m.hash_tensor(m.ones(2), mode=1))
    check(lambda m: m.hash_tensor(m.ones(2), out=m.empty(0)))
    check(lambda m: m.hash_tensor(m.ones(2, 3, device="meta"), 1))
    assert not strided.hash_tensor(strided.ones(2, requires_grad=True)).requires_grad


# -- segment_reduce -----------------------------------------------------------------------------

@pytest.mark.parametrize("reduce", ["max", "amax", "min", "amin", "sum", "mean", "prod"])
@pytest.mark.parametrize("initial", [None, 2.0])
def test_segment_reduce(reduce, initial):
    def run(m):
        d = m.tensor([1.0, 3.0, 3.0, 2.0, float("nan"), 0.0, 5.0], dtype=m.float64,
                     requires_grad=True)
        r = m.segment_reduce(d, reduce, lengths=m.tensor([2, 0, 3, 2]), initial=initial)
        (g,) = m.autograd.grad(r, d, m.tensor([1.0, 2.0, 3.0, 4.0], dtype=m.float64))
        return r.detach(), g, r.grad_fn.name()
    check(run)

    def run2d(m, dtype):
        d = m.tensor([[2.0, 2.0, 0.0, 3.0, 0.0], [1.0, -1.0, 4.0, 4.0, 0.5]],
                     dtype=getattr(m, dtype)).t().contiguous()
        lengths = m.tensor([[2, 3], [1, 4]], dtype=m.int32).t()
        return m.segment_reduce(d.t(), reduce, lengths=lengths.t(), axis=1, initial=initial)
    for dtype in ("float64", "float32", "float16"):
        check(lambda m, d=dtype: run2d(m, d))
    check(lambda m: m.segment_reduce(m.arange(10.0).view(2, 5), reduce,
                                     offsets=m.tensor([[0, 2, 5], [0, 1, 4]]), axis=1,
                                     unsafe=True, initial=initial))
    check(lambda m: m.segment_reduce(m.arange(24.0).view(4, 3, 2), reduce,
                                     lengths=m.tensor([1, 0, 3]), initial=initial))
    check_grads(lambda m, x: m.segment_reduce(x, reduce, lengths=m.tensor([1, 3, 0]),
                                              initial=initial), [(4, 2)])


def test_segment_reduce_errors():
    d = [1.0, 2.0, 3.0]
    for bad in [lambda m: m.segment_reduce(m.tensor(d), "max", lengths=m.tensor([1, 1])),
                lambda m: m.segment_reduce(m.tensor(d), "foo", lengths=m.tensor([3])),
                lambda m: m.segment_reduce(m.tensor(d), "max"),
                lambda m: m.segment_reduce(m.tensor(d), "max", lengths=m.tensor([3.0])),
                lambda m: m.segment_reduce(m.tensor(d), "max", lengths=m.tensor([3]), axis=1),
                lambda m: m.segment_reduce(m.tensor(d), "max", lengths=m.tensor([3]),
                                           indices=m.tensor([3])),
                lambda m: m.segment_reduce(m.tensor([1, 2]), "sum", lengths=m.tensor([2])),
                lambda m: m.segment_reduce(m.tensor(d), "sum", lengths=m.tensor([4, -1]),
                                           unsafe=True),
                lambda m: m.segment_reduce(m.ones(2, 5), "sum", lengths=m.tensor([2, 3]),
                                           axis=1)]:
        check(bad)
    check(lambda m: m.segment_reduce(m.ones(2, 5, device="meta"), "sum",
                                     lengths=m.tensor([1, 1], device="meta")))
    assert not hasattr(strided, "_segment_reduce_backward")
