"""strided.masked against torch.masked: every masked op op_db covers, replayed on a spread
of op_db's own sample inputs (values, dtypes, shapes, errors), float64 gradients of the
masked-in elements and the graph's node names, plus the helpers (_input_mask,
_output_mask, _canonical_dim, _reduction_identity) and torch's error messages."""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
import torch
from conftest import check
from torch.testing._internal.common_methods_invocations import op_db

import strided

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "autograd"))
from grad_harness import grad_fn_names  # noqa: E402

ENTRIES = [op for op in op_db if op.name.startswith("masked.")]
NAMES = [op.name.split(".", 1)[1] for op in ENTRIES]
PER_DTYPE = 5      # samples per entry and dtype, spread over the list
CASES = [(op, dtype) for op in ENTRIES for dtype in (torch.float64, torch.float32, torch.int64)
         if dtype in op.supported_dtypes("cpu")]


def _to_strided(v):
    if isinstance(v, torch.Tensor):
        return strided.from_numpy(v.detach().numpy().copy()).requires_grad_(v.requires_grad)
    if isinstance(v, torch.dtype):
        return getattr(strided, str(v).removeprefix("torch."))
    if isinstance(v, (list, tuple)):
        return type(v)(_to_strided(x) for x in v)
    if isinstance(v, dict):
        return {k: _to_strided(x) for k, x in v.items()}
    return v


def _spread(samples, n):
    samples = list(samples)
    if len(samples) <= n:
        return samples
    step = len(samples) / n
    return [samples[int(i * step)] for i in range(n)]


def _run(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return fn(), None
        except Exception as e:  # noqa: BLE001 - compared
            return None, e


def _compare(rs, rt):
    assert isinstance(rs, strided.Tensor)
    assert tuple(rs.shape) == tuple(rt.shape), (rs.shape, rt.shape)
    assert str(rs.dtype) == str(rt.dtype), (rs.dtype, rt.dtype)
    a, b = rs.detach().numpy(), rt.detach().numpy()
    if a.dtype.kind in "fc":
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6, equal_nan=True)
    else:
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("op,dtype", CASES,
                         ids=[f"{op.name}-{str(d)[6:]}" for op, d in CASES])
def test_sample_inputs(op, dtype):
    fn = getattr(strided.masked, op.name.split(".", 1)[1])
    samples = _spread(op.sample_inputs("cpu", dtype), PER_DTYPE)
    assert samples
    for s in samples:
        rt, et = _run(lambda s=s: op.op(s.input, *s.args, **s.kwargs))
        rs, es = _run(lambda s=s: fn(_to_strided(s.input), *_to_strided(s.args),
                                     **_to_strided(s.kwargs)))
        if et is not None:
            assert es is not None and type(es).__name__ == type(et).__name__, (es, et)
            assert str(es) == str(et)
            continue
        assert es is None, es
        _compare(rs, rt)


@pytest.mark.parametrize("op", [op for op in ENTRIES if op.supports_autograd],
                         ids=[n for op, n in zip(ENTRIES, NAMES) if op.supports_autograd])
def test_gradients(op):
    name = op.name.split(".", 1)[1]
    fn = getattr(strided.masked, name)
    samples = _spread(op.sample_inputs("cpu", torch.float64, requires_grad=True), 4)
    rng = np.random.default_rng(0)
    for s in samples:
        cot: dict = {}

        def run(m, f, s=s, cot=cot):
            args = s.args if m is torch else _to_strided(s.args)
            kwargs = s.kwargs if m is torch else _to_strided(s.kwargs)
            x = s.input if m is torch else _to_strided(s.input)
            if m is torch:
                x = x.detach().requires_grad_()
            leaves = [x]
            if name == "logaddexp":
                args = list(args)
                args[0] = args[0].detach().requires_grad_()
                leaves.append(args[0])
            r = f(x, *args, **kwargs)
            if not r.dtype.is_floating_point:
                return r, [None], []
            names = grad_fn_names(r)
            ct = m.from_numpy(np.asarray(cot.setdefault(id(s), rng.standard_normal(
                tuple(r.shape))), dtype=np.float64).reshape(tuple(r.shape)))
            # masked-out outputs may be inf/nan: their cotangent is 0
            fin = m.isfinite(r.detach())
            r = m.where(fin, r, m.zeros((), dtype=r.dtype))
            (r * ct * fin).sum().backward()
            return r, [leaf.grad for leaf in leaves], names
        rs, gs, ns = run(strided, fn)
        rt, gt, nt = run(torch, op.op)
        assert ns == nt
        for a, b in zip(gs, gt):
            if b is None:
                assert a is None
                continue
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6, atol=1e-8,
                                       equal_nan=True)


# -- errors and helpers -----------------------------------------------------------------------

def _x(m):
    return m.tensor([[1.0, -2.0, 3.0], [4.0, 5.0, -6.0]])


def _mask(m):
    return m.tensor([[True, False, True], [False, False, False]])


ERRORS = [
    lambda m: m.masked.sum(_x(m), mask=m.ones(1, 2, 3, dtype=m.bool)),
    lambda m: m.masked.sum(_x(m), (0, 0), mask=_mask(m)),
    lambda m: m.masked.sum(_x(m), 2, mask=_mask(m)),
    lambda m: m.masked.amax(m.tensor([True, False]), mask=m.tensor([True, False])),
    lambda m: m.masked.mean(m.tensor([1, 2]), mask=m.tensor([True, False])),
    lambda m: m.masked.mean(_x(m), dtype=m.int64, mask=_mask(m)),
    lambda m: m.masked.median(m.tensor([[1, 2], [3, 4]]), 1, mask=m.tensor([True, False])[:, None]
                              .expand(2, 2)),
    lambda m: m.masked.var(_x(m), 1, True, correction=1, mask=_mask(m)),
    lambda m: m.masked.norm(m.tensor([1, 2]), float("-inf"), mask=m.tensor([True, False])),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors(i):
    check(ERRORS[i])


def test_values_with_fully_masked_rows():
    for name in ("sum", "prod", "amax", "amin", "mean", "logsumexp", "norm", "var", "std"):
        check(lambda m, n=name: getattr(m.masked, n)(_x(m), 1, mask=_mask(m)))
        check(lambda m, n=name: getattr(m.masked, n)(_x(m), 1, keepdim=True, mask=_mask(m)))
        check(lambda m, n=name: getattr(m.masked, n)(_x(m), mask=None))
    for name in ("cumsum", "cumprod"):
        check(lambda m, n=name: getattr(m.masked, n)(_x(m), 1, mask=_mask(m)))
    # the softmax family agrees with torch to rounding, not bit for bit (Note [Tiny softmax]
    # in kernels/nn/softmax.py: a divide where torch multiplies by the reciprocal)
    for name in ("softmax", "log_softmax", "softmin"):
        check(lambda m, n=name: getattr(m.masked, n)(_x(m), 1, mask=_mask(m)), exact=False)
    check(lambda m: m.masked.median(_x(m), 1, mask=_mask(m)))
    check(lambda m: m.masked.normalize(_x(m), 2.0, 1, mask=_mask(m)))
    check(lambda m: m.masked.argmax(_x(m), 1, mask=_mask(m)))
    check(lambda m: m.masked.argmin(_x(m), 0, keepdim=True, mask=_mask(m)))
    check(lambda m: m.masked.logaddexp(_x(m), -_x(m), input_mask=_mask(m),
                                       other_mask=_mask(m)))
    check(lambda m: m.masked.sum(m.tensor([1, 2, 3], dtype=m.int8), mask=m.tensor([1, 0, 1])))
    check(lambda m: m.masked.prod(m.tensor([True, True]), mask=m.tensor([True, False])))
    check(lambda m: m.masked.var(m.tensor([1, 2, 4]), mask=m.tensor([True, False, True])))
    check(lambda m: m.masked.std(_x(m).to(m.complex128), 1, unbiased=False, mask=_mask(m)))
    check(lambda m: m.masked.sum(_x(m), (), mask=m.tensor([True, False, True])))


def test_helpers():
    check(lambda m: m.masked._input_mask(_x(m), mask=m.tensor([1, 0, 1])))
    check(lambda m: m.masked._input_mask(_x(m)))
    check(lambda m: m.masked._output_mask(m.masked.sum, _x(m), 1, mask=_mask(m)))
    check(lambda m: m.masked._output_mask(m.masked.softmax, _x(m), 1, mask=_mask(m)))
    check(lambda m: m.masked._output_mask(m.masked.norm, _x(m), 2.0, 0, mask=_mask(m),
                                          keepdim=True))
    check(lambda m: m.masked._canonical_dim((-1, 0), 3))
    check(lambda m: m.masked._canonical_dim(None, 3))
    for name in ("sum", "prod", "amax", "amin", "argmax", "logsumexp", "median", "norm"):
        for dt in ("float32", "int32", "uint8"):
            check(lambda m, n=name, d=dt: m.masked._reduction_identity(
                n, m.ones(2, dtype=getattr(m, d))))
    check(lambda m: m.masked._reduction_identity("mean", m.ones(2)))
    check(lambda m: m.masked._reduction_identity("amax", m.ones(2, dtype=m.bool)))


def test_names_exported():
    assert sorted(strided.masked.__all__) == sorted(
        n for n in torch.masked.__all__ if n in NAMES)
