"""F.linear_cross_entropy, nn.LinearCrossEntropyLoss and nn.LinearCrossEntropyOptions
against torch 2.13.

The reference path (``options=None``) and the chunked path (an options instance): values,
gradients of input / linear weight / linear bias, whole ``grad_fn`` graphs (torch's
``GeneratedBackwardFor_torch_nn__..._defaultBackward`` nodes for the chunked ops), every
reduction, class weights, ignore_index (in and out of range), class-probability targets,
K-dimensional ``linear_weight``, unbatched input, half precision with each ``acc_policy``,
non-contiguous inputs (hypothesis), the meta device, retain_graph behaviour, torch's errors
and warnings, the options' validation / resolution, and the module's repr, parameters
after ``manual_seed`` (bit-exact) and state_dict.
"""

from __future__ import annotations

import itertools
import sys
import warnings

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import strided
from tests.autograd.grad_harness import grad_fn_names
from tests.conftest import assert_same, check, hyp

REDUCTIONS = ("mean", "sum", "none")


def _np(t):
    t = t.detach()
    if isinstance(t, torch.Tensor):
        return (t.float() if t.dtype in (torch.bfloat16, torch.float16) else t).numpy()
    if t.dtype in (strided.bfloat16, strided.float16):
        t = t.to(strided.float32)
    return t.numpy()


def _to(m, arr, dtype="float64", requires_grad=False):
    t = m.from_numpy(np.array(arr, dtype="float64" if dtype in ("bfloat16", "float16")
                              else dtype))
    t = t.to(getattr(m, dtype))
    return t.requires_grad_(requires_grad) if requires_grad else t


def _close(rs, rt, what="result"):
    if isinstance(rt, torch.Tensor):
        assert isinstance(rs, strided.Tensor), what
        assert str(rs.dtype) == str(rt.dtype) and tuple(rs.shape) == tuple(rt.shape), what
        # float64 to 1e-9; float32 to torch's own assert_close tolerance (its sums, and
        # strided's BLAS sums, round in other orders: Note [Summing through BLAS])
        rtol, atol = (1.3e-6, 1e-5) if str(rt.dtype) == "torch.float32" else (1e-9, 1e-12)
        np.testing.assert_allclose(_np(rs), _np(rt), rtol=rtol, atol=atol, err_msg=what)
    elif isinstance(rt, (list, tuple)):
        assert len(rs) == len(rt), what
        for k, (a, b) in enumerate(zip(rs, rt)):
            _close(a, b, f"{what}[{k}]")
    else:
        assert rs == rt, (what, rs, rt)


def check_close(recipe):
    """``check`` with values compared within a tolerance (torch sums in other orders): the
    same error, or the same structure with close values."""
    rt, et = _attempt(lambda: recipe(torch))
    if et is not None:
        check(recipe)
        return
    rs, es = _attempt(lambda: recipe(strided))
    if es is not None:
        raise AssertionError(f"strided raised {type(es).__name__}: {es}") from es
    _close(rs, rt)


def _attempt(fn):
    try:
        return fn(), None
    except Exception as e:  # noqa: BLE001 - compared by the caller
        return None, e


def _options(m, kwargs):
    if kwargs is None:
        return None
    kwargs = dict(kwargs)
    if isinstance(kwargs.get("acc_dtype"), str):
        kwargs["acc_dtype"] = getattr(m, kwargs["acc_dtype"])
    return m.nn.LinearCrossEntropyOptions(**kwargs)


def _run(m, arrays, target, *, dtype="float64", bias=False, weight=None, options=None,
         input_view=None, cotangent_seed=3, backward=True, **kwargs):
    """Build leaves from the NumPy ``arrays`` (input, linear_weight[, linear_bias]), run
    the loss, backpropagate a fixed cotangent; return (out, grads, grad_fn names)."""
    leaves = [_to(m, a, dtype, requires_grad=True) for a in arrays]
    x, w = leaves[0], leaves[1]
    xin = input_view(x) if input_view is not None else x
    b = leaves[2] if bias else None
    cw = _to(m, weight, dtype) if weight is not None else None
    t = m.from_numpy(np.asarray(target)) if np.asarray(target).dtype.kind == "i" else \
        _to(m, target, dtype)
    out = m.nn.functional.linear_cross_entropy(xin, w, t, linear_bias=b, weight=cw,
                                               options=_options(m, options), **kwargs)
    names = grad_fn_names(out)
    if backward:
        g = np.random.default_rng(cotangent_seed).uniform(0.5, 1.5, size=tuple(out.shape))
        out.backward(_to(m, g, dtype))
    return out, [leaf.grad for leaf in leaves], names


def _compare(arrays, target, *, rtol=1e-10, atol=1e-12, **kw):
    out_t, grads_t, names_t = _run(torch, arrays, target, **kw)
    out_s, grads_s, names_s = _run(strided, arrays, target, **kw)
    assert names_s == names_t
    assert tuple(out_s.shape) == tuple(out_t.shape)
    assert str(out_s.dtype) == str(out_t.dtype)
    np.testing.assert_allclose(_np(out_s), _np(out_t), rtol=rtol, atol=atol)
    for k, (gs, gt) in enumerate(zip(grads_s, grads_t)):
        if gt is None:
            assert gs is None, k
            continue
        assert gs is not None, k
        assert str(gs.dtype) == str(gt.dtype) and tuple(gs.shape) == tuple(gt.shape), k
        np.testing.assert_allclose(_np(gs), _np(gt), rtol=rtol, atol=atol, err_msg=f"grad {k}")
    return out_s, out_t


def _problem(n=7, f=4, c=5, *, k_dims=(), seed=0, bias=True):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, f)) if n is not None else rng.standard_normal(f)
    w = rng.standard_normal((c, *k_dims, f))
    arrays = [x, w] + ([rng.standard_normal((c, *k_dims))] if bias else [])
    tshape = ((n,) if n is not None else ()) + k_dims
    target = rng.integers(0, c, size=tshape).astype(np.int64)
    cw = rng.uniform(0.5, 2.0, size=c)
    return arrays, target, cw


# ------------------------------------------------------------------ reference path

@pytest.mark.parametrize("reduction, bias, weighted, ignore_index, smoothing",
                         list(itertools.product(REDUCTIONS, (False, True), (False, True),
                                                (None, 2), (0.0, 0.2))))
def test_reference_path(reduction, bias, weighted, ignore_index, smoothing):
    arrays, target, cw = _problem(bias=bias)
    target[1] = 2
    _compare(arrays, target, bias=bias, weight=cw if weighted else None, reduction=reduction,
             ignore_index=ignore_index, label_smoothing=smoothing)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("bias", (False, True))
def test_reference_k_dimensional(reduction, bias):
    arrays, target, cw = _problem(6, 3, 4, k_dims=(2, 3), bias=bias)
    _compare(arrays, target, bias=bias, weight=cw, reduction=reduction, ignore_index=1)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("k_dims", ((), (2,)))
def test_reference_probability_target(reduction, k_dims):
    arrays, _, _ = _problem(5, 3, 4, k_dims=k_dims)
    probs = np.random.default_rng(1).dirichlet(np.ones(4), size=(5, *k_dims))
    probs = np.moveaxis(probs, -1, 1)                     # (N, C, *k_dims)
    _compare(arrays, probs, bias=True, reduction=reduction, label_smoothing=0.1)


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_reference_unbatched(reduction):
    arrays, target, cw = _problem(None)
    _compare(arrays, target, bias=True, weight=cw, reduction=reduction)


# ------------------------------------------------------------------ chunked path

CHUNK_OPTIONS = ({}, {"batch_chunk_size": 1}, {"batch_chunk_size": 3},
                 {"batch_chunk_size": 100}, {"chunking_method": "aspect_ratio"},
                 {"chunking_method": "aspect_ratio:2", "allow_retain_graph": True},
                 {"acc_policy": "accurate", "batch_chunk_size": 2},
                 {"acc_policy": "balanced", "chunking_method": None})


@pytest.mark.parametrize("options", CHUNK_OPTIONS)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_chunked_matches_torch(options, reduction):
    arrays, target, cw = _problem(9, 4, 6, seed=2)
    _compare(arrays, target, bias=True, weight=cw, reduction=reduction, options=options)
    _compare(arrays[:2], target, reduction=reduction, options=options)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("ignore_index", (-100, 0, 3, 9, -1))
@pytest.mark.parametrize("weighted", (False, True))
def test_chunked_ignore_index(reduction, ignore_index, weighted):
    arrays, target, cw = _problem(8, 3, 5, seed=4)
    target[2] = target[5] = ignore_index
    if ignore_index in (9, -1):
        target[0] = 0                    # ignored rows and class 0 rows side by side
    _compare(arrays, target, bias=True, weight=cw if weighted else None, reduction=reduction,
             ignore_index=ignore_index, options={"batch_chunk_size": 3})


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_chunked_all_rows_ignored(reduction):
    arrays, target, _ = _problem(4, 3, 5)
    target[:] = 1
    _compare(arrays, target, bias=True, reduction=reduction, ignore_index=1,
             options={"batch_chunk_size": 2})


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_chunked_unbatched(reduction):
    arrays, target, cw = _problem(None, 5, 3)
    _compare(arrays, target, bias=True, weight=cw, reduction=reduction, options={})


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_chunked_empty_batch(reduction):
    arrays, target, _ = _problem(0, 3, 4)
    check(lambda m: m.nn.functional.linear_cross_entropy(
        _to(m, arrays[0]), _to(m, arrays[1]), m.from_numpy(target), reduction=reduction,
        options=m.nn.LinearCrossEntropyOptions()))


@pytest.mark.parametrize("which", ("input", "weight", "bias", "input+bias", "none"))
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_chunked_partial_requires_grad(which, reduction):
    """Only the gradients asked for are computed (the op's compute_* flags)."""
    arrays, target, _ = _problem(6, 3, 4)

    def run(m):
        x, w, b = (_to(m, a) for a in arrays)
        for name, t in (("input", x), ("weight", w), ("bias", b)):
            if name in which:
                t.requires_grad_(True)
        out = m.nn.functional.linear_cross_entropy(
            x, w, m.from_numpy(target), linear_bias=b, reduction=reduction,
            options=m.nn.LinearCrossEntropyOptions(batch_chunk_size=4))
        if out.requires_grad:
            out.sum().backward()
        return (out.grad_fn.name() if out.grad_fn is not None else None,
                *(t.grad is None for t in (x, w, b)), out.detach(),
                *(t.grad for t in (x, w, b) if t.grad is not None))

    check_close(run)


@pytest.mark.parametrize("dtype", ("float16", "bfloat16"))
@pytest.mark.parametrize("policy, acc", [("auto", None), ("auto", "float32"),
                                         ("accurate", "float32"), ("balanced", "float32"),
                                         ("compact", "float32"), ("compact", None),
                                         ("balanced", None)])
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_chunked_half_precision(dtype, policy, acc, reduction):
    """torch's dtype plan per acc_policy: same output / gradient dtypes, values within
    one or two ulps of the half type (most are bit-identical)."""
    arrays, target, cw = _problem(9, 6, 11, seed=5)
    tol = 2e-2 if dtype == "bfloat16" else 4e-3
    _compare(arrays, target, dtype=dtype, bias=True, weight=cw, reduction=reduction,
             options={"acc_policy": policy, "acc_dtype": acc, "batch_chunk_size": 4},
             rtol=tol, atol=tol)


def test_chunked_float32():
    arrays, target, cw = _problem(16, 8, 40, seed=6)
    for red in REDUCTIONS:
        _compare(arrays, target, dtype="float32", bias=True, weight=cw, reduction=red,
                 options={}, rtol=1e-5, atol=1e-6)


@hyp(15)
@given(n=st.integers(1, 9), f=st.integers(1, 5), c=st.integers(1, 7),
       chunk=st.integers(1, 10), transposed=st.booleans(), reduction=st.sampled_from(REDUCTIONS))
def test_chunked_hypothesis_non_contiguous(n, f, c, chunk, transposed, reduction):
    rng = np.random.default_rng(n * 100 + f * 10 + c)
    x = rng.standard_normal((f, n) if transposed else (n, 2 * f))
    w = rng.standard_normal((c, f))
    b = rng.standard_normal(c)
    target = rng.integers(0, c, size=n).astype(np.int64)

    def view(t):
        return t.T if transposed else t[:, ::2]
    for options in (None, {"batch_chunk_size": chunk}):
        _compare([x, w, b], target, bias=True, input_view=view, reduction=reduction,
                 options=options)


@pytest.mark.parametrize("options", (None, {"batch_chunk_size": 2}))
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_meta(options, reduction):
    def run(m):
        x = m.empty(5, 4, device="meta")
        w = m.empty(6, 4, device="meta", requires_grad=True)
        t = m.zeros(5, dtype=m.int64, device="meta")
        out = m.nn.functional.linear_cross_entropy(x, w, t, reduction=reduction,
                                                   options=_options(m, options))
        return out.shape, out.dtype, out.device.type, out.grad_fn.name()
    check(run)


# ------------------------------------------------------------------ retain_graph

@pytest.mark.parametrize("allow", (False, True))
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_backward_twice_with_retain_graph(allow, reduction):
    """A second backward: allowed with allow_retain_graph (gradients accumulate, the
    first one untouched) or for reduction='none'; torch's error otherwise."""
    arrays, target, _ = _problem(5, 3, 4)

    def run(m):
        x, w, b = (_to(m, a, requires_grad=True) for a in arrays)
        out = m.nn.functional.linear_cross_entropy(
            x, w, m.from_numpy(target), linear_bias=b, reduction=reduction,
            options=m.nn.LinearCrossEntropyOptions(allow_retain_graph=allow,
                                                   batch_chunk_size=2))
        loss = out.sum() if reduction == "none" else out
        loss.backward(retain_graph=True)
        first = [t.grad.clone() for t in (x, w, b)]
        loss.backward()
        return first + [x.grad, w.grad, b.grad]
    check_close(run)


# ------------------------------------------------------------------ errors and warnings

def _call(m, x_shape, w_shape, target, **kwargs):
    x = m.ones(*x_shape)
    w = m.ones(*w_shape)
    t = target(m) if callable(target) else target
    if isinstance(kwargs.get("linear_bias"), tuple):
        kwargs["linear_bias"] = m.ones(*kwargs["linear_bias"])
    if isinstance(kwargs.get("options"), dict):
        kwargs["options"] = _options(m, kwargs["options"])
    return m.nn.functional.linear_cross_entropy(x, w, t, **kwargs)


def _idx(*values):
    return lambda m: m.tensor(list(values), dtype=m.int64)


ERRORS = [
    ((2, 3, 3), (2, 3), lambda m: m.ones(3, 2), {}),
    ((2, 3), (2,), lambda m: m.ones(2, 2), {}),
    ((2, 3), (2, 4), lambda m: m.ones(2, 2), {}),
    ((2, 3), (2, 3), lambda m: m.ones(2, 2), {"ignore_index": 0}),
    ((3,), (2, 4, 3), lambda m: m.ones(2, 4), {}),
    ((2, 3), (2, 3), _idx(0, 1), {"linear_bias": (3,)}),
    ((2, 3), (2, 4, 3), lambda m: m.zeros(2, 4, dtype=m.int64), {"linear_bias": (2,)}),
    ((3, 4), (5, 4), _idx(1, 2, 7), {"options": {}}),
    ((3, 4), (5, 4), _idx(1, 2, -1), {"options": {}}),
    ((3, 4), (5, 4), _idx(1, 2), {"options": {}}),
    ((3, 4), (5, 4), _idx(1, 2, 3), {"options": {"acc_dtype": "float64"}}),
    ((3, 4), (5, 4), _idx(1, 2, 3), {"options": {"acc_dtype": "float16"}}),
    ((3, 4), (5, 4), _idx(1, 2, 3), {"options": {"acc_dtype": "bfloat16",
                                                 "acc_policy": "compact"}}),
    ((3, 4), (5, 4), _idx(1, 2, 3), {"options": {"batch_chunk_size": 2,
                                                 "chunking_method": "aspect_ratio"}}),
    ((3, 4), (5, 4), _idx(1, 2, 3), {"reduction": "avg"}),
    ((3, 4), (5, 4), _idx(1, 2, 3), {"reduction": "avg", "options": {}}),
    ((3, 4), (5, 4), _idx(1, 2, 7), {}),
]


@pytest.mark.parametrize("x_shape, w_shape, target, kwargs", ERRORS)
def test_errors(x_shape, w_shape, target, kwargs):
    check(lambda m: _call(m, x_shape, w_shape, target, **dict(kwargs)))


def test_mixed_dtype_errors():
    for options in (None, {}):
        check(lambda m, options=options: m.nn.functional.linear_cross_entropy(
            m.ones(3, 4), m.ones(5, 4, dtype=m.float64), m.tensor([1, 2, 3]),
            options=_options(m, options)))


FALLBACKS = [  # options given, but torch warns and takes the reference path
    ((3, 4), (5, 4), _idx(1, 2, 3), {"label_smoothing": 0.1}),
    ((3, 4), (5, 2, 4), lambda m: m.zeros(3, 2, dtype=m.int64), {}),
    ((3, 4), (5, 2, 4), lambda m: m.zeros(3, 2, dtype=m.int64), {"linear_bias": (5, 2)}),
    ((3, 4), (5, 4), lambda m: m.ones(3, 5) / 5, {}),
    ((3, 4), (5, 4), lambda m: m.tensor([1, 2, 3], dtype=m.int32), {}),
    ((4,), (5, 4), lambda m: m.ones(5) / 5, {"reduction": "none"}),
]


@pytest.mark.filterwarnings("ignore:linear_cross_entropy. ``options`` ignored")
@pytest.mark.parametrize("x_shape, w_shape, target, kwargs", FALLBACKS)
def test_fallback_warnings(x_shape, w_shape, target, kwargs):
    check(lambda m: _call(m, x_shape, w_shape, target, options={"batch_chunk_size": 2},
                          **dict(kwargs)).grad_fn, exact=False)
    check_close(lambda m: _call(m, x_shape, w_shape, target, options={}, **dict(kwargs)))

    def messages(m):
        error = None
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                _call(m, x_shape, w_shape, target, options={}, **dict(kwargs))
            except RuntimeError as e:
                error = str(e)
        return [(w.category.__name__, str(w.message)) for w in caught], error
    rs, rt = check(messages)
    assert rs[0] and "``options`` ignored; chunked path needs" in rs[0][0][1]


def test_no_warning_on_chunked_path():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _call(strided, (3, 4), (5, 4), _idx(1, 2, 3), options={})


def test_no_grad_mode():
    def run(m):
        x = m.ones(3, 4, requires_grad=True)
        with m.no_grad():
            out = m.nn.functional.linear_cross_entropy(
                x, m.ones(5, 4), m.tensor([1, 2, 3]),
                options=m.nn.LinearCrossEntropyOptions())
        return out, out.grad_fn is None
    check(run)


# ------------------------------------------------------------------ options

OPTION_CASES = [
    {}, {"acc_policy": "accurate"}, {"acc_policy": "fast"}, {"chunking_method": None},
    {"chunking_method": "aspect_ratio"}, {"chunking_method": "aspect_ratio:3"},
    {"chunking_method": "aspect_ratio:0"}, {"chunking_method": "aspect_ratio:x"},
    {"chunking_method": "ratio"}, {"batch_chunk_size": 0}, {"batch_chunk_size": 2.0},
    {"batch_chunk_size": -3}, {"batch_chunk_size": 5}, {"acc_dtype": "int32"},
    {"acc_dtype": "float32", "allow_retain_graph": True}, {"acc_dtype": "bfloat16"},
]


@pytest.mark.parametrize("kwargs", OPTION_CASES)
def test_options_construction(kwargs):
    check(lambda m: repr(_options(m, kwargs)))


@pytest.mark.parametrize("kwargs", [{}, {"batch_chunk_size": 7}, {"acc_policy": "balanced"},
                                    {"chunking_method": "aspect_ratio:4"},
                                    {"batch_chunk_size": 4, "chunking_method": "aspect_ratio"},
                                    {"batch_chunk_size": 3, "chunking_method": "aspect_ratio"},
                                    {"chunking_method": None}, {"acc_dtype": "float32"}])
@pytest.mark.parametrize("shape", [(100, 8, 1000), (10, 64, 32), (1, 3, 5), (33, 1, 7)])
@pytest.mark.parametrize("dtype", ("float32", "float16", "bfloat16", "float64"))
@pytest.mark.parametrize("device", ("cpu", None))
def test_options_adjust(kwargs, shape, dtype, device):
    def run(m):
        dev = m.device(device) if device is not None else None
        return repr(_options(m, kwargs)._adjust(*shape, getattr(m, dtype), dev))
    check(run)


def test_options_dataclass():
    def run(m):
        o = m.nn.LinearCrossEntropyOptions(batch_chunk_size=3)
        import dataclasses
        fields = [f.name for f in dataclasses.fields(o)]
        replaced = dataclasses.replace(o, acc_policy="compact")
        return (fields, repr(replaced), o == m.nn.LinearCrossEntropyOptions(batch_chunk_size=3),
                hasattr(o, "__dict__"), type(o).__module__.split(".", 1)[1],
                type(o).__name__)
    check(run)
    check(lambda m: setattr(m.nn.LinearCrossEntropyOptions(), "acc_policy", "compact"))


def test_options_accepts_torch_instance():
    """An object with the options' fields (here torch's own instance) is read field by
    field: what torch's corpora pass when they replay samples against strided."""
    arrays, target, _ = _problem(6, 3, 4)
    x, w = (_to(strided, a, requires_grad=True) for a in arrays[:2])
    out = strided.nn.functional.linear_cross_entropy(
        x, w, strided.from_numpy(target),
        options=torch.nn.LinearCrossEntropyOptions(batch_chunk_size=2, acc_dtype=torch.float64))
    assert out.grad_fn.name() == (
        "GeneratedBackwardFor_torch_nn__linear_cross_entropy_batch_chunked_defaultBackward")
    ref = strided.nn.functional.linear_cross_entropy(x, w, strided.from_numpy(target))
    np.testing.assert_allclose(out.item(), ref.item(), rtol=1e-12)


# ------------------------------------------------------------------ module

MODULE_CASES = [
    ((4, 5), {}),
    ((4, 5), {"bias": True, "reduction": "sum"}),
    ((3, 4), {"out_features": (2, 3), "bias": True, "ignore_index": 1}),
    ((3, 4), {"out_features": (2,), "label_smoothing": 0.2, "reduction": "none"}),
    ((4, 5), {"options": {"batch_chunk_size": 2}, "bias": True, "weighted": True}),
    ((4, 5), {"options": {"acc_policy": "balanced", "allow_retain_graph": True},
              "reduction": "none", "ignore_index": 0}),
    ((4, 5), {"dtype": "float64", "options": {}}),
]


def _module(m, args, kwargs):
    kwargs = dict(kwargs)
    if kwargs.pop("weighted", False):
        kwargs["weight"] = m.linspace(0.5, 2.0, args[1])
    if "options" in kwargs:
        kwargs["options"] = _options(m, kwargs["options"])
    if "dtype" in kwargs:
        kwargs["dtype"] = getattr(m, kwargs["dtype"])
    m.manual_seed(7)
    return m.nn.LinearCrossEntropyLoss(*args, **kwargs)


@pytest.mark.parametrize("args, kwargs", MODULE_CASES)
def test_module_init_and_repr(args, kwargs):
    def run(m):
        mod = _module(m, args, kwargs)
        state = [(k, v) for k, v in mod.state_dict().items()]
        return (repr(mod), [k for k, _ in state], [v for _, v in state],
                [n for n, _ in mod.named_parameters()], type(mod).__module__.split(".", 1)[1])
    check(run)


@pytest.mark.filterwarnings("ignore:linear_cross_entropy. ``options`` ignored")
@pytest.mark.parametrize("args, kwargs", MODULE_CASES)
@pytest.mark.parametrize("batched", (True, False))
def test_module_forward_backward(args, kwargs, batched):
    of = kwargs.get("out_features", ())
    if of and not batched:
        check(lambda m: _module(m, args, kwargs)(m.ones(args[0]), m.zeros(*of, dtype=m.int64)))
        return
    rng = np.random.default_rng(11)
    n = (6,) if batched else ()
    x = rng.standard_normal((*n, args[0]))
    target = rng.integers(0, args[1], size=(*n, *of)).astype(np.int64)

    def run(m):
        mod = _module(m, args, kwargs).to(m.float64)
        xi = _to(m, x, requires_grad=True)
        out = mod(xi, m.from_numpy(target))
        out.sum().backward()
        return (out.detach(), out.grad_fn.name(), xi.grad,
                [p.grad for p in mod.parameters()])
    check_close(run)


def test_module_errors():
    check(lambda m: m.nn.LinearCrossEntropyLoss(3, 4, weight=m.ones(3)))
    check(lambda m: m.nn.LinearCrossEntropyLoss(3, 4, label_smoothing=-0.1))
    check(lambda m: m.nn.LinearCrossEntropyLoss(3, 4, label_smoothing=1.5))
    check(lambda m: m.nn.LinearCrossEntropyLoss(3, 2)(m.ones(4, 3), m.zeros(4, 2,
                                                                           dtype=m.int64)))


def test_module_weight_buffer_and_to():
    def run(m):
        mod = m.nn.LinearCrossEntropyLoss(3, 4, weight=m.ones(4), bias=True).double()
        return ([(k, v.dtype) for k, v in mod.state_dict().items()],
                [k for k, _ in mod.named_buffers()], mod.linear.weight.shape)
    check(run)


def test_public_names():
    assert strided.nn.LinearCrossEntropyLoss is strided.nn.modules.loss.LinearCrossEntropyLoss
    from strided.nn.modules import linear_cross_entropy_options as opts_mod
    assert strided.nn.LinearCrossEntropyOptions is opts_mod.LinearCrossEntropyOptions
    lce_mod = sys.modules["strided.nn.functional.linear_cross_entropy"]
    assert strided.nn.functional.linear_cross_entropy is lce_mod.linear_cross_entropy
    assert "LinearCrossEntropyLoss" in strided.nn.modules.loss.__all__
    assert strided.nn.modules.linear_cross_entropy.__all__ == []
    x = strided.ones(2, 3)
    assert_same(strided.nn.functional.linear_cross_entropy(x, strided.ones(4, 3),
                                                           strided.tensor([0, 1])),
                torch.nn.functional.linear_cross_entropy(torch.ones(2, 3), torch.ones(4, 3),
                                                         torch.tensor([0, 1])))
