"""Helpers for the autograd tests: the same program run with strided and with torch.

    check_grads(lambda m, x, y: (x * y).sum(), shapes=[(2, 3), (3,)])

builds float64 leaves with the same values in both libraries, runs the program, calls
``backward`` on its (scalar, or summed) result, and compares the result and every
leaf's ``.grad`` (values within a tolerance, shapes, dtypes; ``None`` where torch has
``None``), or the error type and message when torch raises.

``gradcheck_strided(fn, shapes)`` runs ``strided.autograd.gradcheck`` (and, with
``second=True``, ``gradgradcheck``) on float64 leaves of those shapes.
"""

from __future__ import annotations

import numpy as np
import torch

import strided

RNG = np.random.default_rng(1234)


def leaf_values(shapes, dtype="float64", low=-2.0, high=2.0, seed=None):
    rng = RNG if seed is None else np.random.default_rng(seed)
    out = []
    for shape in shapes:
        arr = rng.uniform(low, high, size=shape)
        if dtype.startswith("complex"):
            arr = arr + 1j * rng.uniform(low, high, size=shape)
        out.append(np.asarray(arr, dtype=dtype))
    return out


def _leaves(m, values, requires_grad=True):
    return [m.from_numpy(v.copy()).requires_grad_(requires_grad) for v in values]


def _np(t):
    t = t.detach()
    if isinstance(t, torch.Tensor):
        return t.numpy().copy()
    return t.numpy().copy()


def _reduce(result, m):
    if isinstance(result, (tuple, list)):
        parts = [r for r in result if isinstance(r, (m.Tensor,)) and r.requires_grad]
        total = None
        for r in parts:
            s = (r.real if r.is_complex() else r).sum()
            total = s if total is None else total + s
        return total
    if result.is_complex():
        return result.real.sum()
    return result.sum() if result.numel() != 1 or result.dim() else result


def _run(m, program, values, backward=True):
    leaves = _leaves(m, values)
    try:
        result = program(m, *leaves)
        if backward:
            loss = _reduce(result, m)
            if loss is not None:
                loss.backward()
    except Exception as e:  # noqa: BLE001 - compared below
        return None, None, e
    return result, [leaf.grad for leaf in leaves], None


def _compare_tensor(s, t, rtol, atol, what):
    assert tuple(s.shape) == tuple(t.shape), f"{what}: shape {tuple(s.shape)} != {tuple(t.shape)}"
    assert str(s.dtype) == str(t.dtype), f"{what}: dtype {s.dtype} != {t.dtype}"
    np.testing.assert_allclose(_np(s), _np(t), rtol=rtol, atol=atol, err_msg=what)


def _compare(rs, rt, rtol, atol, what):
    if isinstance(rt, torch.Tensor):
        assert isinstance(rs, strided.Tensor), f"{what}: {type(rs)}"
        _compare_tensor(rs, rt, rtol, atol, what)
    elif isinstance(rt, (tuple, list)):
        assert len(rs) == len(rt), f"{what}: {len(rs)} != {len(rt)}"
        for i, (a, b) in enumerate(zip(rs, rt)):
            _compare(a, b, rtol, atol, f"{what}[{i}]")
    elif rt is None:
        assert rs is None, f"{what}: expected None, got {rs!r}"
    else:
        assert rs == rt or (isinstance(rt, float) and np.isclose(rs, rt)), f"{what}: {rs} {rt}"


def check_grads(program, shapes, *, dtype="float64", rtol=1e-7, atol=1e-9, values=None,
                low=-2.0, high=2.0, backward=True):
    """Run ``program(m, *leaves)`` with both libraries; compare results and leaf grads."""
    if values is None:
        values = leaf_values(shapes, dtype, low, high)
    rt, gt, et = _run(torch, program, values, backward)
    rs, gs, es = _run(strided, program, values, backward)
    if et is not None:
        assert es is not None, f"strided did not raise; torch raised {type(et).__name__}: {et}"
        assert type(es) is type(et), f"{type(es).__name__}: {es} vs {type(et).__name__}: {et}"
        assert str(es) == str(et), f"message differs:\nstrided: {es}\ntorch:   {et}"
        return
    if es is not None:
        raise AssertionError(f"strided raised {type(es).__name__}: {es}") from es
    _compare(rs, rt, rtol, atol, "result")
    _compare(gs, gt, rtol, atol, "grads")


def grad_fn_names(t):
    """The names of the nodes reachable from ``t.grad_fn``, depth first (for comparing
    graph structure with torch)."""
    out = []
    seen = set()
    stack = [t.grad_fn]
    while stack:
        fn = stack.pop()
        if fn is None or id(fn) in seen:
            continue
        seen.add(id(fn))
        out.append(fn.name())
        stack.extend(nxt for nxt, _ in reversed(fn.next_functions))
    return out


def gradcheck_strided(program, shapes, *, dtype="float64", second=False, low=-2.0, high=2.0,
                      values=None, atol=1e-5, rtol=1e-3):
    if values is None:
        values = leaf_values(shapes, dtype, low, high)
    leaves = _leaves(strided, values)
    fn = lambda *xs: program(strided, *xs)  # noqa: E731
    assert strided.autograd.gradcheck(fn, tuple(leaves), atol=atol, rtol=rtol)
    if second:
        assert strided.autograd.gradgradcheck(fn, tuple(leaves), atol=atol, rtol=rtol)


# -- programs compared by outcome ----------------------------------------------------------

def plain(x, digits: int = 9):
    """A result as plain data: tensors as (kind, dtype, shape, rounded values)."""
    if isinstance(x, (torch.Tensor, strided.Tensor)):
        return ("tensor", str(x.dtype).removeprefix("torch."), tuple(x.shape),
                [round(v, digits) if isinstance(v, float) else v for v in
                 (x.detach().reshape(-1).tolist())])
    if isinstance(x, (list, tuple)):
        return [plain(v, digits) for v in x]
    return x


def outcome(m, program, digits: int = 9):
    try:
        return "ok", plain(program(m), digits)
    except Exception as e:  # noqa: BLE001 - compared by the caller
        return type(e).__name__, str(e)


def same(program, digits: int = 9):
    """``program(strided)`` and ``program(torch)`` return equal plain data, or raise the
    same exception class with the same message."""
    s = outcome(strided, program, digits)
    t = outcome(torch, program, digits)
    assert s == t, f"\nstrided: {s}\ntorch:   {t}"
    return s
