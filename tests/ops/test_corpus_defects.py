"""The defects that torch's own corpora (op_db, the docstring examples, the Array API suite)
found in strided (issue 15, item 5), each as a differential test against torch."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import torch
import torch.nn.functional as TF
from conftest import assert_same, assert_same_result, check, hyp
from hypothesis import given
from hypothesis import strategies as st

import strided
import strided.nn.functional as SF


def _F(m):
    return SF if m is strided else TF


# -- clamp / clamp_min / clamp_max with bool bounds ----------------------------------------

CLAMP_BOOL = {
    "min_scalar": lambda m, b: b.clamp_min(True),
    "max_scalar": lambda m, b: b.clamp_max(True),
    "both_scalar": lambda m, b: b.clamp(True, True),
    "kw_min_scalar": lambda m, b: b.clamp(min=True),
    "kw_max_scalar": lambda m, b: b.clamp(max=False),
    "min_tensor": lambda m, b: b.clamp_min(m.tensor(True)),
    "max_tensor": lambda m, b: b.clamp_max(m.tensor(False)),
    "both_tensor": lambda m, b: b.clamp(m.tensor(True), m.tensor(True)),
    "kw_max_tensor": lambda m, b: b.clamp(max=m.tensor(True)),
    "kw_min_tensor": lambda m, b: b.clamp(min=m.tensor([False, True, False])),
    "inplace_scalar": lambda m, b: b.clamp_min_(True),
    "inplace_tensor": lambda m, b: b.clamp_min_(m.tensor(True)),
    "out_scalar": lambda m, b: m.clamp_min(b, True, out=m.empty(3, dtype=m.bool)),
    "out_tensor": lambda m, b: m.clamp_max(b, m.tensor(False), out=m.empty(3, dtype=m.bool)),
    "int_min": lambda m, b: b.int().clamp_min(True),
    "float_max": lambda m, b: b.float().clamp_max(False),
    "long_both": lambda m, b: b.long().clamp(False, True),
    "long_inplace": lambda m, b: b.long().clamp_min_(True),
    "uint8_tensor": lambda m, b: b.to(m.uint8).clamp_max(m.tensor(True)),
    "double_tensors": lambda m, b: b.double().clamp(m.tensor(False), m.tensor(True)),
    "uint16_scalar": lambda m, b: b.to(m.uint16).clamp_min(1),
    "uint16_tensor": lambda m, b: b.to(m.uint16).clamp_max(m.tensor(1, dtype=m.uint16)),
    "bool_int_bound": lambda m, b: b.clamp_min(1),
    "bool_float_bound": lambda m, b: b.clamp_max(0.5),
    "bool_int_tensor_bound": lambda m, b: b.clamp_min(m.tensor(1)),
    # a complex self is refused before broadcasting; mixed Tensor / Number bounds work
    "complex_before_broadcast": lambda m, b: m.clamp(b.to(m.complex64), m.ones(2), m.ones(4)),
    "complex_min_tensor": lambda m, b: b.to(m.complex64).clamp_min(m.ones(2)),
    "complex_bound_broadcast": lambda m, b: m.clamp(b.float(), m.ones(2, dtype=m.complex64)),
    "tensor_and_number": lambda m, b: m.clamp(b.float(), m.tensor(0.), 1.0),
    "number_and_tensor": lambda m, b: b.float().clamp(min=0.5, max=m.tensor(1)),
}


@pytest.mark.parametrize("name", sorted(CLAMP_BOOL))
def test_clamp_bool_bounds(name):
    check(lambda m: CLAMP_BOOL[name](m, m.tensor([True, False, True])))


# -- logsumexp of complex input: the branch of the imaginary part --------------------------

@hyp(40)
@given(re=st.lists(st.floats(-30, 30), min_size=1, max_size=5),
       im=st.lists(st.floats(-7, 7), min_size=5, max_size=5),
       keepdim=st.booleans())
def test_logsumexp_complex_branch(re, im, keepdim):
    vals = [complex(r, i) for r, i in zip(re, im)]
    rs, rt = strided.logsumexp(strided.tensor(vals, dtype=strided.complex128), 0, keepdim), \
        torch.logsumexp(torch.tensor(vals, dtype=torch.complex128), 0, keepdim)
    assert_same(rs, rt, values=False)
    np.testing.assert_allclose(rs.numpy(), rt.numpy(), rtol=1e-9, atol=1e-9)
    assert (np.abs(rs.numpy().imag) <= math.pi + 1e-12).all()


def test_logsumexp_complex_examples():
    for vals in ([[-1 + 3j, 2 - 3j], [1 - 3.1j, 0.5 + 3.1j]], [-3 + 3j, -3 - 3j, 3 + 2j],
                 [1 + 3.14159j, 1 + 3.14159j]):
        for dtype in ("complex128", "complex64"):
            check(lambda m, v=vals, d=dtype: m.logsumexp(m.tensor(v, dtype=getattr(m, d)), -1),
                  exact=False)


# -- replicate / reflect (and circular, constant) padding with negative pads ---------------

PADS = [((1, 2, 6), (-1, 2)), ((2, 6), (-2, -1)), ((1, 1, 5, 6), (-1, 2, 1, -2)),
        ((1, 5, 6), (-3, 0, -1, -2)), ((1, 1, 4, 4, 5), (-1, 2, 1, -2, 0, -1)),
        ((1, 4, 4, 5), (-1, -2, 1, -2, 2, -1)), ((1, 1, 4), (-3, -2)), ((1, 1, 4), (-4, 0)),
        ((1, 1, 4), (4, -1)), ((1, 1, 4), (3, -1))]


@pytest.mark.parametrize("mode", ["replicate", "reflect", "circular", "constant"])
@pytest.mark.parametrize("shape,pad", PADS, ids=[f"{s}{p}" for s, p in PADS])
def test_pad_negative_forward_backward(mode, shape, pad):
    def recipe(m):
        n = math.prod(shape)
        x = m.arange(float(n), dtype=m.float64).reshape(shape).requires_grad_()
        y = _F(m).pad(x, pad, mode=mode)
        g = m.arange(float(y.numel()), dtype=m.float64).reshape(y.shape)
        gx, = m.autograd.grad(y, x, g)
        return y, gx, type(y.grad_fn).__name__
    check(recipe)


# -- take_along_dim with negative indices --------------------------------------------------

@hyp(40)
@given(data=st.data(), shape=st.lists(st.integers(1, 4), min_size=1, max_size=3))
def test_take_along_dim_negative(data, shape):
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    n = shape[dim]
    idx_shape = list(shape)
    idx_shape[dim] = data.draw(st.integers(0, 4))
    count = math.prod(idx_shape)
    idx = data.draw(st.lists(st.integers(-n, n - 1), min_size=count, max_size=count))
    x = np.arange(math.prod(shape)).reshape(shape)
    ix = np.array(idx, dtype=np.int64).reshape(idx_shape)
    check(lambda m: m.take_along_dim(m.from_numpy(x.copy()), m.from_numpy(ix.copy()), dim))
    flat = np.array(idx[:n] or [0], dtype=np.int64) % x.size - x.size
    check(lambda m: m.take_along_dim(m.from_numpy(x.copy()), m.from_numpy(flat.copy())))


# -- linalg.norm / vector_norm / matrix_norm of empty tensors ------------------------------

INF = float("inf")
VECTOR_ORDS = [INF, -INF, 0, 1, 2, -1, 0.5, -0.5, 3]
MATRIX_ORDS = [INF, -INF, 1, -1, 2, -2, "fro", "nuc"]


@pytest.mark.parametrize("ord", VECTOR_ORDS)
@pytest.mark.parametrize("shape,dim", [((0,), None), ((0, 3), None), ((0, 3), 0), ((0, 3), 1),
                                       ((0, 3), (1, 0)), ((0, 3), -2), ((0, 3), ())])
def test_vector_norm_empty(ord, shape, dim):
    check(lambda m: m.linalg.vector_norm(m.zeros(shape), ord, dim=dim))
    if dim is None:
        check(lambda m: m.linalg.norm(m.zeros(shape[:1]), ord))
        check(lambda m: m.norm(m.zeros(shape), ord))
        check(lambda m: m.zeros(shape).norm(ord))


@pytest.mark.parametrize("ord", MATRIX_ORDS)
@pytest.mark.parametrize("shape", [(0, 3), (3, 0), (0, 0), (2, 0, 3)])
def test_matrix_norm_empty(ord, shape):
    check(lambda m: m.linalg.matrix_norm(m.zeros(shape), ord))
    check(lambda m: m.linalg.norm(m.zeros(shape), ord, dim=(-2, -1)))


# -- cat / masked_select with an out= that overlaps itself or an input ---------------------

def _cat_into_input(m):
    x = m.arange(6.)
    return m.cat([x[:2], x[2:4]], out=x[1:5])


def _cat_into_expanded(m):
    x = m.zeros(3)
    return m.cat([x, x], out=m.zeros(1).expand(6))


def _cat_into_other_input(m):
    x, y = m.arange(4.), m.arange(4.)
    return m.cat([x, y], out=m.cat([x, y])), x


def _masked_select_into_input(m):
    x = m.arange(6.)
    mask = m.tensor([True, False, True, True, False, True])
    return m.masked_select(x, mask, out=x[:4])


def _masked_select_into_mask(m):
    x = m.ones(4, dtype=m.bool)
    return m.masked_select(x, x, out=x)


def _masked_select_into_expanded(m):
    x = m.arange(6.)
    mask = m.tensor([True, False, True, True, False, True])
    return m.masked_select(x, mask, out=m.zeros(1).expand(4))


@pytest.mark.parametrize("recipe", [_cat_into_input, _cat_into_expanded, _cat_into_other_input,
                                    _masked_select_into_input, _masked_select_into_mask,
                                    _masked_select_into_expanded])
def test_out_overlap(recipe):
    check(recipe)


# -- reductions over more than 64 dims -----------------------------------------------------

BIG = [1] * 65
OVER_64 = {
    "amax_dims": lambda m: m.amax(m.zeros(BIG), list(range(65))),
    "amax_dim": lambda m: m.amax(m.zeros(BIG), 0),
    "amin_dims": lambda m: m.amin(m.zeros(BIG), (0, 1)),
    "aminmax_dim": lambda m: m.aminmax(m.zeros(BIG), dim=3),
    "max_dim": lambda m: m.max(m.zeros(BIG), 0),
    "min_dim": lambda m: m.min(m.zeros(BIG), 0),
    "argmax_dim": lambda m: m.argmax(m.zeros(BIG), 0),
    "argmin_dim": lambda m: m.argmin(m.zeros(BIG), 0),
    "any": lambda m: m.any(m.zeros(BIG)),
    "all": lambda m: m.all(m.zeros(BIG)),
    "norm": lambda m: m.norm(m.zeros(BIG)),
    "sum_dims": lambda m: m.zeros(BIG).sum([0, 1]),
}


@pytest.mark.parametrize("name", sorted(OVER_64))
def test_reductions_over_64_dims_raise(name):
    check(OVER_64[name])


def test_aminmax_64_dims_works():
    rs, rt = strided.aminmax(strided.zeros([1] * 64)), torch.aminmax(torch.zeros([1] * 64))
    assert_same_result(tuple(rs), tuple(rt))


# -- roll of a 0-d tensor ------------------------------------------------------------------

@pytest.mark.parametrize("args", [(1,), (1, 0), ([1], [0]), (-3, -1), ((2,), (0,)), (0, None)])
def test_roll_0d(args):
    check(lambda m: m.roll(m.tensor(3.), *args))


# -- backward of reductions of 0-d tensors over dim 0 --------------------------------------

ZERO_DIM_REDUCTIONS = {
    "mean": lambda m, x: m.mean(x, dim=0),
    "mean_keepdim": lambda m, x: m.mean(x, 0, keepdim=True),
    "mean_list": lambda m, x: x.mean([0]),
    "mean_neg": lambda m, x: x.mean(-1),
    "sum": lambda m, x: x.sum(0),
    "nansum": lambda m, x: x.nansum(0),
    "nanmean": lambda m, x: x.nanmean(0),
    "prod": lambda m, x: x.prod(0),
    "amax": lambda m, x: x.amax(0),
    "logsumexp": lambda m, x: x.logsumexp(0),
    "var": lambda m, x: x.var(0, correction=0),
    "std_mean": lambda m, x: m.std_mean(x, 0, correction=0)[1],
    "var_mean": lambda m, x: m.var_mean(x, 0, correction=0)[1],
    "norm": lambda m, x: x.norm(2, 0),
}


@pytest.mark.parametrize("name", sorted(ZERO_DIM_REDUCTIONS))
def test_zero_dim_reduction_backward(name):
    def recipe(m):
        x = m.tensor(3., dtype=m.float64, requires_grad=True)
        y = ZERO_DIM_REDUCTIONS[name](m, x)
        g, = m.autograd.grad(y, x)
        return y, g, type(y.grad_fn).__name__
    check(recipe)


# -- matmul with a zero-size inner dimension under autograd ---------------------------------

MATMUL_SHAPES = [((0,), (0,)), ((2, 0), (0,)), ((0,), (0, 3)), ((2, 0), (0, 3)),
                 ((4, 2, 0), (0, 3)), ((2, 0), (4, 0, 3)), ((4, 2, 0), (4, 0, 3)),
                 ((0,), (4, 0, 3)), ((4, 2, 0), (0,)), ((1, 2, 0), (4, 0, 3)),
                 ((4, 2, 0), (1, 0, 3)), ((2, 0), (0, 0)), ((5, 1, 2, 0), (3, 0, 2)),
                 ((3, 1, 0), (1, 2, 0, 4))]


@pytest.mark.parametrize("sa,sb", MATMUL_SHAPES, ids=[f"{a}@{b}" for a, b in MATMUL_SHAPES])
def test_matmul_empty_inner_autograd(sa, sb):
    def recipe(m):
        a = m.ones(sa, dtype=m.float64, requires_grad=True)
        b = m.ones(sb, dtype=m.float64, requires_grad=True)
        y = m.matmul(a, b)
        ga, gb = m.autograd.grad(y.sum(), (a, b))
        return y, ga, gb, type(y.grad_fn).__name__
    check(recipe)


# -- rand_like / randn_like of 0-d complex tensors -----------------------------------------

@pytest.mark.parametrize("fn", ["rand_like", "randn_like"])
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("shape", [(), (1,), (3,), (2, 2)])
def test_random_like_complex(fn, dtype, shape):
    def recipe(m):
        m.manual_seed(3)
        src = m.zeros(shape, dtype=getattr(m, dtype))
        return getattr(m, fn)(src), getattr(m, fn)(src)
    check(recipe)


# -- autograd.grad / backward over several outputs of one node ------------------------------

MULTI_OUTPUT = {
    "chunk": lambda m, x: x.chunk(2),
    "split": lambda m, x: x.split(3),
    "split_sizes": lambda m, x: x.split([2, 4]),
    "unbind": lambda m, x: x.reshape(2, 3).unbind(),
    "max_dim": lambda m, x: (x.reshape(2, 3).max(1)[0],) * 2,
    "aminmax": lambda m, x: tuple(m.aminmax(x.reshape(2, 3), dim=1)),
    "var_mean": lambda m, x: m.var_mean(x.reshape(2, 3), 1),
    "sort_twice": lambda m, x: (x.sort()[0], x.sort()[0]),
    "same_output_twice": lambda m, x: (x * 2,) * 2,
    "unbind_three": lambda m, x: x.reshape(3, 2).unbind(),
}


@pytest.mark.parametrize("name", sorted(MULTI_OUTPUT))
@pytest.mark.parametrize("api", ["grad", "backward", "grad_create_graph"])
def test_grad_of_outputs_of_one_node(name, api):
    def recipe(m):
        x = m.tensor([3., 1., 4., 1.5, 9., 2.6], dtype=m.float64, requires_grad=True)
        outs = MULTI_OUTPUT[name](m, x)
        gos = [m.full(o.shape, float(i + 1), dtype=m.float64) for i, o in enumerate(outs)]
        if api == "backward":
            m.autograd.backward(list(outs), gos)
            return x.grad
        if api == "grad":
            return m.autograd.grad(list(outs), x, gos)
        g, = m.autograd.grad(list(outs), x, gos, create_graph=True)
        return g.detach(), g.requires_grad
    check(recipe)


# -- asarray: requires_grad and copy ---------------------------------------------------------

def _asarray_cases(m):
    out = []
    for src in ["leaf", "nonleaf", "plain", "int"]:
        for req in ["unset", None, False, True]:
            for copy in [None, False, True]:
                for dtype in [None, m.float64]:
                    x = m.arange(3., requires_grad=True)
                    y = {"leaf": x, "nonleaf": x * 2, "plain": m.arange(3.),
                         "int": m.arange(3)}[src]
                    kw = {} if req == "unset" else {"requires_grad": req}
                    try:
                        z = m.asarray(y, copy=copy, dtype=dtype, **kw)
                        out.append((src, req, copy, z.requires_grad,
                                    type(z.grad_fn).__name__ if z.grad_fn else None, z.is_leaf,
                                    z.data_ptr() == y.data_ptr(), z is y, y.requires_grad,
                                    str(z.dtype).split(".")[-1]))
                    except Exception as e:  # noqa: BLE001 - compared
                        out.append((src, req, copy, type(e).__name__, str(e)))
    for obj in [[1., 2.], 3.0, np.arange(3.), np.float32(2), np.int64(3), [[1, 2], [3, 4]]]:
        for copy in [None, False, True]:
            for req in [False, True]:
                try:
                    z = m.asarray(obj, copy=copy, requires_grad=req)
                    out.append((repr(obj), copy, str(z.dtype).split(".")[-1], z.requires_grad,
                                z.tolist()))
                except Exception as e:  # noqa: BLE001 - compared
                    out.append((repr(obj), copy, type(e).__name__, str(e)))
    return out


def test_asarray_grad_and_copy():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert _asarray_cases(strided) == _asarray_cases(torch)


def test_asarray_requires_grad_false_detaches():
    check(lambda m: m.asarray(m.arange(3., requires_grad=True) * 2, requires_grad=False))
    for m in (strided, torch):
        x = m.arange(3., requires_grad=True)
        y = x * 2
        z = m.asarray(y, requires_grad=False)
        assert z.grad_fn is None and z.data_ptr() == y.data_ptr() and not z.requires_grad
        z[0] = 7                                  # an alias of y's memory
        assert y[0].item() == 7


def test_asarray_unspecified_requires_grad_warns_once():
    import strided.frontend.tensor_new as tn
    tn._warned_asarray_grad[0] = False
    with pytest.warns(UserWarning, match="unspecified requires_grad now defaults"):
        strided.asarray(strided.ones(2, requires_grad=True))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        strided.asarray(strided.ones(2, requires_grad=True))     # once per process, as torch


# -- inference tensors -----------------------------------------------------------------------

def _inference(m):
    with m.inference_mode():
        return m.ones(3)


INFERENCE = {
    "is_inference": lambda m: (_inference(m).is_inference(), m.is_inference(_inference(m)),
                               m.ones(2).is_inference()),
    "version": lambda m: _inference(m)._version,
    "view_version": lambda m: _inference(m)[1:]._version,
    "detach_is_inference": lambda m: (_inference(m).detach().is_inference(),
                                      _inference(m).clone().is_inference(),
                                      (_inference(m) + 1).is_inference(),
                                      _inference(m)[:1].is_inference()),
    "inplace_outside": lambda m: _inference(m).add_(1),
    "view_inplace_outside": lambda m: _inference(m).view(3).mul_(2),
    "setitem_outside": lambda m: _inference(m).__setitem__(0, 5.0),
    "copy_outside": lambda m: _inference(m).copy_(m.zeros(3)),
    "out_outside": lambda m: m.add(m.ones(3), 1, out=_inference(m)),
    "save_for_backward": lambda m: (m.ones(3, requires_grad=True) * _inference(m)).sum(),
    "add_not_saved": lambda m: (m.ones(3, requires_grad=True) + _inference(m)).sum(),
    "inplace_other_ok": lambda m: m.ones(3).add_(_inference(m)),
    "requires_grad_outside": lambda m: _inference(m).requires_grad_(),
    "requires_grad_setter_outside": lambda m: setattr(_inference(m), "requires_grad", True),
    "requires_grad_false_ok": lambda m: _inference(m).requires_grad_(False).requires_grad,
    "is_inference_bad_arg": lambda m: m.is_inference(3),
}


@pytest.mark.parametrize("name", sorted(INFERENCE))
def test_inference_tensors(name):
    check(INFERENCE[name])


def _inference_inside(m):
    x = m.ones(3)
    with m.inference_mode():
        y = m.ones(2)
        y.add_(1)                         # in-place on an inference tensor inside: fine
        v = x[1:]                         # a view of a normal tensor stays normal
        x.add_(1)
        with m.inference_mode(False):
            z = m.ones(2)
        w = m.ones(2, requires_grad=True)
    v.add_(1)
    return (y, y.is_inference(), v.is_inference(), v._version, x._version, z.is_inference(),
            z._version, w.requires_grad, w.is_inference(), m.is_inference_mode_enabled())


def test_inference_tensors_inside_mode():
    check(_inference_inside)


def test_inference_tensor_data_written_before_the_error():
    # torch's VariableVersion::bump raises after the kernel wrote: the data has changed
    for m in (strided, torch):
        x = _inference(m)
        with pytest.raises(RuntimeError, match="Inplace update to inference tensor"):
            x.add_(1)
        assert x.tolist() == [2.0, 2.0, 2.0]


def test_inference_tensors_in_threads():
    import threading
    results = {}

    def worker():
        results["other"] = strided.ones(2).is_inference()

    with strided.inference_mode():
        t = threading.Thread(target=worker)
        t.start()
        t.join()
        results["here"] = strided.ones(2).is_inference()
    assert results == {"other": False, "here": True}
    assert not strided.ones(2).is_inference()


# -- torch's order for ties: sort (stable or not), argsort, msort, topk, kthvalue, mode ------

_TIE_DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
               "float32", "float64"]


@st.composite
def _tied_rows(draw):
    dtype = draw(st.sampled_from(_TIE_DTYPES))
    n = draw(st.sampled_from([1, 2, 5, 16, 17, 24, 40, 70, 130]))
    rows = draw(st.integers(1, 3))
    levels = draw(st.integers(1, 4))
    vals = np.array(draw(st.lists(st.integers(0, levels - 1), min_size=rows * n,
                                  max_size=rows * n)), dtype=np.float64).reshape(rows, n)
    if dtype.startswith(("float", "bfloat")) and draw(st.booleans()):
        nan = np.array(draw(st.lists(st.booleans(), min_size=rows * n, max_size=rows * n)))
        vals[nan.reshape(rows, n)] = np.nan
    transpose = draw(st.booleans())
    return dtype, vals, transpose


def _tied(m, dtype, vals, transpose):
    t = m.from_numpy(vals.copy()).to(getattr(m, dtype))
    return t.t() if transpose else t


@hyp(60)
@given(case=_tied_rows(), descending=st.booleans(), stable=st.sampled_from([False, True, None]))
def test_sort_tie_order(case, descending, stable):
    dtype, vals, transpose = case
    dim = 0 if transpose else -1
    kw = {} if stable is None else {"stable": stable}
    check(lambda m: tuple(m.sort(_tied(m, dtype, vals, transpose), dim=dim,
                                 descending=descending, **kw)))
    check(lambda m: m.argsort(_tied(m, dtype, vals, transpose), dim=dim,
                              descending=descending))
    check(lambda m: tuple(_tied(m, dtype, vals, transpose).sort(dim, descending)))
    if transpose:
        check(lambda m: m.msort(_tied(m, dtype, vals, transpose)))


@hyp(60)
@given(case=_tied_rows(), data=st.data())
def test_topk_kthvalue_mode_tie_order(case, data):
    dtype, vals, transpose = case
    dim = 0 if transpose else -1
    n = vals.shape[-1]
    k = data.draw(st.sampled_from(sorted({1, 2, max(1, n // 64), max(1, n // 2), n})))
    largest, srt = data.draw(st.booleans()), data.draw(st.booleans())
    check(lambda m: tuple(m.topk(_tied(m, dtype, vals, transpose), k, dim=dim, largest=largest,
                                 sorted=srt)))
    check(lambda m: tuple(m.kthvalue(_tied(m, dtype, vals, transpose), k, dim=dim)))
    check(lambda m: tuple(m.mode(_tied(m, dtype, vals, transpose), dim=dim)))
    check(lambda m: tuple(m.median(_tied(m, dtype, vals, transpose), dim=dim)))


def test_sort_ties_examples():
    row = [1, 0] * 12                                      # 24 elements: past the insertion sort
    for dtype in ("int64", "uint8", "float32", "bool"):
        check(lambda m, d=dtype: tuple(m.sort(m.tensor(row).to(getattr(m, d)))))
        check(lambda m, d=dtype: tuple(m.sort(m.tensor(row).to(getattr(m, d)), descending=True)))
    nan_row = [float("nan"), 1.0, 0.0] * 8
    check(lambda m: tuple(m.sort(m.tensor(nan_row))))
    check(lambda m: tuple(m.sort(m.tensor(nan_row), descending=True)))
    check(lambda m: tuple(m.topk(m.tensor(nan_row * 4), 1)))    # k * 64 <= n: partial_sort
    check(lambda m: tuple(m.kthvalue(m.tensor(nan_row), 5)))


# -- elementwise results of empty tensors: TensorIterator's strides -------------------------

_EMPTY_SHAPES = [(2, 0), (0, 3), (2, 0, 3), (0, 1, 2), (1, 0), (3, 0, 0), (1, 0, 1), (0, 1)]
_EMPTY_OPS = {
    "add_scalar": lambda m, x: x + 1,
    "radd_scalar": lambda m, x: 1 - x,
    "mul_float": lambda m, x: x * 2.5,
    "add_alpha": lambda m, x: x.add(1, alpha=2),
    "div": lambda m, x: x / 3,
    "mul_self": lambda m, x: x * x,
    "exp": lambda m, x: x.exp(),
    "bias": lambda m, x: x + m.zeros(x.shape[-1:]),
    "zero_dim_tensor": lambda m, x: m.maximum(x, m.tensor(1.)),
    "gt": lambda m, x: x > 0,
    "where": lambda m, x: m.where(x > 0, x, 1.0),
    "clamp": lambda m, x: x.clamp(0, 1),
}


@pytest.mark.parametrize("shape", _EMPTY_SHAPES)
@pytest.mark.parametrize("name", sorted(_EMPTY_OPS))
def test_empty_elementwise_strides(shape, name):
    import itertools
    for perm in itertools.permutations(range(len(shape))):
        check(lambda m, p=perm: _EMPTY_OPS[name](m, m.zeros(shape).permute(p)))


# -- use_deterministic_algorithms: uninitialized memory is filled, as torch's ---------------

@pytest.fixture
def deterministic():
    for m in (strided, torch):
        m.use_deterministic_algorithms(True)
    yield
    for m in (strided, torch):
        m.utils.deterministic.fill_uninitialized_memory = True
        m.use_deterministic_algorithms(False)


_UNINITIALIZED = {
    **{f"empty_{d}": (lambda m, d=d: m.empty(3, dtype=getattr(m, d)))
       for d in ["bool", "uint8", "int8", "int16", "int32", "int64", "uint16", "uint32",
                 "uint64", "float16", "bfloat16", "float32", "float64", "complex64",
                 "complex128"]},
    "empty_like": lambda m: m.empty_like(m.ones(2, 3).t(), dtype=m.int32),
    "new_empty": lambda m: m.ones(2).new_empty(3),
    "empty_strided": lambda m: m.empty_strided((2, 2), (1, 2)),
    "resize_grows": lambda m: m.zeros(2).resize_(5),
    "resize_view_grows": lambda m: m.zeros(6)[2:].resize_(5),
    "resize_shrinks": lambda m: m.zeros(6).resize_(2),
    "out_resized": lambda m: m.add(m.ones(4), 1, out=m.zeros(0)),
}


@pytest.mark.parametrize("name", sorted(_UNINITIALIZED))
def test_deterministic_fills_uninitialized_memory(deterministic, name):
    check(_UNINITIALIZED[name])


def test_deterministic_fill_switch(deterministic):
    check(lambda m: setattr(m.utils.deterministic, "fill_uninitialized_memory", 1))
    for m in (strided, torch):
        assert m.utils.deterministic.fill_uninitialized_memory is True
        m.utils.deterministic.fill_uninitialized_memory = False
        assert m.utils.deterministic.fill_uninitialized_memory is False
        m.use_deterministic_algorithms(False)
        m.utils.deterministic.fill_uninitialized_memory = True
    # deterministic mode off: nothing is filled (the values are whatever memory held)
    strided.empty(3)


def test_reshape_grad_fn_names():
    def recipe(m):
        x = m.ones(2, 3, requires_grad=True)
        return [y.grad_fn.name() for y in (x.reshape(3, 2), x.t().reshape(6), x.reshape(6),
                                           x[:, :2].reshape(4), x.flatten(), x.reshape_as(x),
                                           x.expand(2, 2, 3).reshape(4, 3))]
    check(recipe)


@pytest.mark.parametrize("warn_only", [False, True])
@pytest.mark.parametrize("name", ["put_", "put", "put_bad_index", "put_accumulate",
                                  "index_put_", "scatter_"])
def test_deterministic_alerts(name, warn_only):
    recipes = {
        "put_": lambda m: m.zeros(5).put_(m.tensor([0, 0]), m.tensor([1., 2.])),
        "put": lambda m: m.put(m.zeros(5), m.tensor([0, 0]), m.tensor([1., 2.])),
        "put_bad_index": lambda m: m.zeros(5).put_(m.tensor([9]), m.tensor([1.])),
        "put_accumulate": lambda m: m.zeros(5).put_(m.tensor([0, 0]), m.tensor([1., 2.]),
                                                    accumulate=True),
        "index_put_": lambda m: m.zeros(5).index_put_((m.tensor([0, 0]),), m.tensor([1., 2.])),
        "scatter_": lambda m: m.zeros(5).scatter_(0, m.tensor([0, 0]), m.tensor([1., 2.])),
    }
    try:
        for m in (strided, torch):
            m.use_deterministic_algorithms(True, warn_only=warn_only)
        check(recipes[name])
    finally:
        for m in (strided, torch):
            m.use_deterministic_algorithms(False)


@pytest.mark.parametrize("recipe", [
    lambda m: m.heaviside(m.ones(2, 4, dtype=m.float16), m.ones(1, 3, dtype=m.float16),
                          out=m.empty(5, 7)),
    lambda m: m.heaviside(m.ones(3), m.ones(3), out=m.empty(3, dtype=m.complex64)),
    lambda m: m.heaviside(m.ones(3), m.zeros(3), out=m.empty(3)),
    lambda m: m.heaviside(m.ones(3), m.ones(2, dtype=m.float64)),
    lambda m: m.ones(3).heaviside_(m.ones(2, 3)),
])
def test_heaviside_checks_dtypes_before_broadcasting(recipe):
    check(recipe)


@pytest.mark.parametrize("recipe", [
    lambda m: m.zeros(1, dtype=m.int32).expand(3).nan_to_num_(),
    lambda m: (lambda x: (x.nan_to_num_(), x._version))(m.zeros(3, dtype=m.int32)),
    lambda m: m.nan_to_num(m.tensor([True]), out=m.zeros(1, dtype=m.bool)),
    lambda m: m.nan_to_num(m.ones(2, 3, dtype=m.int64).t()),
    lambda m: m.nan_to_num(m.ones(3, dtype=m.int32), out=m.zeros(1, dtype=m.int32).expand(3)),
    lambda m: m.nan_to_num(m.ones(3, dtype=m.int32), out=m.zeros(0, dtype=m.int32)),
    lambda m: m.nan_to_num(m.ones(3, dtype=m.int32), out=m.zeros(3)),
])
def test_nan_to_num_of_integers_is_a_copy(recipe):
    check(recipe)
