"""Padding (issue 10): F.pad's reflect / replicate / circular / constant modes (the aten
reflection_pad{1,2,3}d / replication_pad{1,2,3}d ops and their backward ops) and the
padding layers, against torch: values, gradients, grad_fn names, meta shapes, module repr
and torch's errors."""

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

RNG = np.random.default_rng(5)


def _run(fn, arr, grad=True):
    xs, xt = both_from_numpy(arr, requires_grad=grad)
    rs, rt = fn(strided, xs), fn(torch, xt)
    assert_same(rs, rt)
    if grad:
        assert rs.grad_fn.name() == rt.grad_fn.name()
        w = RNG.standard_normal(tuple(rt.shape))
        (rs * strided.from_numpy(w.copy())).sum().backward()
        (rt * torch.from_numpy(w.copy())).sum().backward()
        np.testing.assert_allclose(xs.grad.numpy(), xt.grad.numpy(), rtol=1e-12, atol=1e-13)
    return rs, rt


PADS = {1: [(1, 2), (0, 3), (2, 0), (-1, 2), (3, -2)],
        2: [(1, 1, 1, 1), (2, 0, 1, 3), (-1, 2, 1, -2), (0, 0, 3, 3)],
        3: [(1, 1, 1, 1, 1, 1), (1, 0, 0, 2, 2, 1), (-1, 1, 0, 1, 1, -1)]}


def _circular_defined(shape, pad):
    """torch reads uninitialised memory when a circular pad wraps past what a negative pad
    on the other side leaves: such pads are left out."""
    for i in range(len(pad) // 2):
        lo, hi = pad[2 * i], pad[2 * i + 1]
        size = shape[len(shape) - 1 - i]
        if lo > size - max(-hi, 0) or hi > size - max(-lo, 0):
            return False
    return True


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular", "constant"])
@pytest.mark.parametrize("k", [1, 2, 3])
@pytest.mark.parametrize("batched", [False, True])
def test_pad_modes(mode, k, batched):
    shape = (2,) * batched + (3,) + (4, 5, 4)[:k]
    x = RNG.standard_normal(shape)
    for pad in PADS[k]:
        if mode == "circular" and not _circular_defined(shape, pad):
            continue
        _run(lambda m, t, pad=pad: m.nn.functional.pad(t, pad, mode=mode), x)


def test_pad_direct_ops_and_backward_ops():
    x = RNG.standard_normal((2, 3, 4, 5))
    for op in ("reflection_pad2d", "replication_pad2d"):
        _run(lambda m, t, op=op: getattr(m.ops.aten, op)(t, [1, 2, 3, 0]), x)
        g = RNG.standard_normal((2, 3, 7, 8))
        check(lambda m, op=op, g=g: getattr(m.ops.aten, op + "_backward")(
            m.from_numpy(g.copy()), m.from_numpy(x.copy()), [1, 2, 3, 0]), exact=False)
    for op in ("reflection_pad1d", "replication_pad1d"):
        _run(lambda m, t, op=op: getattr(m.ops.aten, op)(t[0], [2, 1]), x)


def test_pad_dtypes():
    for dtype in ("int64", "float16", "complex128", "uint8"):
        x = RNG.integers(0, 9, size=(2, 3, 4))
        check(lambda m, dtype=dtype, x=x: m.nn.functional.pad(
            m.tensor(x.tolist(), dtype=getattr(m, dtype)), (2, 1), mode="reflect"))
        check(lambda m, dtype=dtype, x=x: m.nn.functional.pad(
            m.tensor(x.tolist(), dtype=getattr(m, dtype)), (2, 1, 0, 1), mode="replicate"))


def test_pad_double_backward():
    def fn(m, x):
        return (m.nn.functional.pad(x, (1, 2, 2, 1), mode="reflect"),
                m.nn.functional.pad(x, (2, 0, 1, 1), mode="replicate"))
    gradcheck_strided(fn, [(1, 2, 3, 4)], second=True)


@hyp(25)
@given(st.lists(st.integers(2, 5), min_size=2, max_size=5), st.integers(1, 3),
       st.sampled_from(["reflect", "replicate", "circular"]), st.data())
def test_pad_hypothesis(shape, k, mode, data):
    if len(shape) < k + 1:
        k = len(shape) - 1
    if len(shape) > k + 2:
        shape = shape[:k + 2]
    pad = []
    for d in range(k):
        size = shape[len(shape) - 1 - d]
        hi = size - 1 if mode == "reflect" else size
        pad += [data.draw(st.integers(-1, hi)), data.draw(st.integers(-1, hi))]
    if mode == "circular" and not _circular_defined(shape, pad):
        return
    x = RNG.standard_normal(shape)
    # non-contiguous input: the last two dims swapped in memory
    check(lambda m: m.nn.functional.pad(
        m.from_numpy(x.copy()).transpose(-1, -2).contiguous().transpose(-1, -2), pad,
        mode=mode))


def test_pad_meta():
    for mode in ("reflect", "replicate", "circular"):
        for k, pad in ((1, (2, 1)), (2, (1, 2, 3, 0)), (3, (1, 1, 2, 0, 0, 1))):
            shape = (2, 3) + (4,) * k
            ms = strided.nn.functional.pad(strided.empty(shape, device="meta"), pad, mode=mode)
            mt = torch.nn.functional.pad(torch.empty(shape, device="meta"), pad, mode=mode)
            assert ms.device.type == "meta"
            assert tuple(ms.shape) == tuple(mt.shape) and ms.stride() == mt.stride()


def _z(m, shape, dtype="float32"):
    return m.zeros(shape, dtype=getattr(m, dtype))


ERRORS = [
    lambda m: m.nn.functional.pad(_z(m, (1, 1, 3, 3)), (4, 4, 1, 1), mode="reflect"),
    lambda m: m.nn.functional.pad(_z(m, (1, 1, 3, 3)), (1, 1, 4, 4), mode="reflect"),
    lambda m: m.nn.functional.pad(_z(m, (1, 3, 3)), (3, 1), mode="reflect"),
    lambda m: m.nn.functional.pad(_z(m, (1, 1, 3, 3, 3)), (1, 1, 1, 1, 3, 3), mode="reflect"),
    lambda m: m.nn.functional.pad(_z(m, (1, 1, 3, 3)), (1, 1, 1, 1, 1, 1), mode="reflect"),
    lambda m: m.nn.functional.pad(_z(m, (1, 3, 3)), (-2, -2), mode="replicate"),
    lambda m: m.nn.functional.pad(_z(m, (1, 3, 3)), (-2, -1), mode="reflect"),
    lambda m: m.nn.functional.pad(_z(m, (1, 1, 3, 3)), (-2, -1, -2, -1), mode="reflect"),
    lambda m: m.nn.functional.pad(_z(m, (1, 1, 3, 3)), (-2, -2, -2, -2), mode="replicate"),
    lambda m: m.nn.functional.pad(_z(m, (1, 1, 3, 3, 3)), (-2, -2, -2, -2, -2, -2),
                                  mode="reflect"),
    lambda m: m.nn.functional.pad(_z(m, (1, 1, 3, 3, 3)), (-2, -2, -2, -2, -2, -2),
                                  mode="replicate"),
    lambda m: m.nn.functional.pad(_z(m, (1, 1, 3, 3)), (-2, -2, 0, 0), mode="replicate"),
    lambda m: m.nn.functional.pad(_z(m, (1, 1, 3, 3)), (-2, -2, 0, 0), mode="reflect"),
    lambda m: m.nn.functional.pad(_z(m, (1, 2, 4)), (-3, -2), mode="circular"),
    lambda m: m.nn.functional.pad(_z(m, (1, 2, 4)), (5, 0), mode="circular"),
    lambda m: m.nn.functional.pad(_z(m, (1, 2, 4)).requires_grad_(), (-3, -2), mode="circular"),
    lambda m: m.nn.functional.pad(_z(m, (1, 1, 3, 3)), (1, 1), mode="reflect", value=1.0),
    lambda m: m.nn.functional.pad(_z(m, (1, 1, 3, 3)), (1, 1), mode="wrap"),
    lambda m: m.nn.functional.pad(_z(m, (1, 1, 3, 3)), (1,), mode="reflect"),
    lambda m: m.nn.functional.pad(_z(m, (3,)), (1, 1), mode="reflect"),
    lambda m: m.nn.functional.pad(_z(m, (2, 0, 3)), (1, 1), mode="replicate"),
    lambda m: m.nn.functional.pad(_z(m, (2, 3), "bool"), (1, 1), mode="reflect"),
    lambda m: m.nn.functional.pad(_z(m, (2, 3), "bool"), (1, 1), mode="replicate"),
    lambda m: m.ops.aten.reflection_pad2d(_z(m, (1, 1, 3, 3)), [1, 1]),
    lambda m: m.ops.aten.reflection_pad2d(_z(m, (3,)), [1, 1, 1, 1]),
    lambda m: m.ops.aten.replication_pad3d(_z(m, (3, 0, 3, 3, 3)), [1, 1, 1, 1, 1, 1]),
    lambda m: m.ops.aten.reflection_pad1d_backward(_z(m, (2, 4)), _z(m, (2, 3)), [1, 1]),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_pad_errors(i):
    check(ERRORS[i])


MODULES = [
    ("ZeroPad1d", (2,)), ("ZeroPad2d", ((1, 2, 0, 1),)), ("ZeroPad3d", (1,)),
    ("ConstantPad1d", ((1, 2), 3.5)), ("ConstantPad2d", (1, -1.0)),
    ("ConstantPad3d", ((1, 0, 0, 1, 1, 0), 2)),
    ("ReflectionPad1d", (2,)), ("ReflectionPad2d", ((1, 2, 2, 0),)), ("ReflectionPad3d", (1,)),
    ("ReplicationPad1d", ((3, 1),)), ("ReplicationPad2d", (2,)), ("ReplicationPad3d", (1,)),
    ("CircularPad1d", (2,)), ("CircularPad2d", ((1, 2, 0, 1),)), ("CircularPad3d", (1,)),
]


@pytest.mark.parametrize("name,args", MODULES)
def test_padding_modules(name, args):
    ms, mt = getattr(strided.nn, name)(*args), getattr(torch.nn, name)(*args)
    assert repr(ms) == repr(mt)
    assert ms.padding == mt.padding
    assert type(ms).__module__ == "strided.nn.modules.padding"
    k = int(name[-2])
    x = RNG.standard_normal((2, 3) + (4, 5, 4)[:k])
    _run(lambda m, t: (ms if m is strided else mt)(t), x)
    _run(lambda m, t: (ms if m is strided else mt)(t[0]), x)   # unbatched


def test_circular_pad_module_dim_check():
    for name, shape in (("CircularPad1d", (3,)), ("CircularPad2d", (1, 2)),
                        ("CircularPad3d", (1, 2, 3, 4, 5, 6))):
        check(lambda m, name=name, shape=shape: getattr(m.nn, name)(1)(m.zeros(shape)))


@pytest.mark.parametrize("mode", ["reflect", "replicate"])
def test_pad_channels_last_keeps_layout(mode):
    for shape, pad in (((2, 3, 4, 5), (1, 2, 2, 1)), ((2, 3, 3, 4, 5), (1, 1, 0, 2, 1, 0))):
        x = RNG.standard_normal(shape)
        _run(lambda m, t, pad=pad: m.nn.functional.pad(_cl(t), pad, mode=mode), x)
        g = RNG.standard_normal(tuple(s + pad[2 * (len(shape) - 1 - d)] +
                                      pad[2 * (len(shape) - 1 - d) + 1] if d >= 2 else s
                                      for d, s in enumerate(shape)))
        op = ("reflection" if mode == "reflect" else "replication") + f"_pad{len(shape) - 2}d"
        check(lambda m, g=g, x=x, pad=pad, op=op: getattr(m.ops.aten, op + "_backward")(
            _cl(m.from_numpy(g.copy())), _cl(m.from_numpy(x.copy())), list(pad)), exact=False)
