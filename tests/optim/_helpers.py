"""Shared pieces of the optimizer tests: the same parameters in strided and torch, and a
gradient function computed once in NumPy and handed to both sides, so that any difference
comes from the optimizer update alone."""

from __future__ import annotations

import numpy as np
import torch

import strided

RNG = np.random.default_rng(1234)
SHAPES = [(16, 8), (16,), (4, 16), (4,)]
INIT = [(RNG.standard_normal(s) * 0.5).astype(np.float32) for s in SHAPES]
NOISE = [[(RNG.standard_normal(s) * 0.1).astype(np.float32) for s in SHAPES]
         for _ in range(8)]


def make_params(lib, dtype=np.float32):
    return [lib.nn.Parameter(lib.tensor(a.astype(dtype))) for a in INIT]


def grad_arrays(params_t, step: int):
    """A gradient that depends on the (torch) parameters: that of sum(p^2/4 - cos(3p)/3),
    plus a fixed per-step perturbation."""
    out = []
    for p, n in zip(params_t, NOISE[step % len(NOISE)]):
        a = p.detach().numpy()
        out.append((0.5 * a + np.sin(3 * a) + n.astype(a.dtype)).astype(a.dtype))
    return out


def set_grads(params_s, params_t, step: int) -> None:
    for ps, pt, g in zip(params_s, params_t, grad_arrays(params_t, step)):
        pt.grad = torch.from_numpy(g.copy())
        ps.grad = strided.tensor(g.copy())


def to_np(t):
    return t.detach().numpy()


def to_strided(obj):
    """A torch object (state dict) with every tensor turned into a strided tensor."""
    if isinstance(obj, torch.Tensor):
        return strided.tensor(obj.detach().numpy().copy())
    if isinstance(obj, dict):
        return {k: to_strided(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(to_strided(v) for v in obj)
    return obj


def to_torch(obj):
    if isinstance(obj, strided.Tensor):
        return torch.from_numpy(obj.detach().numpy().copy())
    if isinstance(obj, dict):
        return {k: to_torch(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(to_torch(v) for v in obj)
    return obj


def max_rel_diff(ps, pt, floor: float = 1e-3) -> float:
    """max |a - b| / max(|b|, floor) over all elements (the floor keeps entries that pass
    near zero from dominating)."""
    worst = 0.0
    for a, b in zip(ps, pt):
        a, b = to_np(a).astype(np.float64), to_np(b).astype(np.float64)
        worst = max(worst, float(np.max(np.abs(a - b) / np.maximum(np.abs(b), floor))))
    return worst


def assert_state_close(state_s, state_t, rtol=1e-5) -> None:
    """Two optimizer state dicts (strided, torch): same structure, types and values."""
    if isinstance(state_t, torch.Tensor):
        assert isinstance(state_s, strided.Tensor)
        assert str(state_s.dtype) == str(state_t.dtype)
        assert tuple(state_s.shape) == tuple(state_t.shape)
        np.testing.assert_allclose(to_np(state_s), to_np(state_t), rtol=rtol, atol=1e-7)
    elif isinstance(state_t, dict):
        assert set(state_s) == set(state_t)
        for k in state_t:
            assert_state_close(state_s[k], state_t[k], rtol)
    elif isinstance(state_t, (list, tuple)):
        assert type(state_s) is type(state_t) and len(state_s) == len(state_t)
        for a, b in zip(state_s, state_t):
            assert_state_close(a, b, rtol)
    elif isinstance(state_t, float):
        assert state_s == state_t or abs(state_s - state_t) <= rtol * abs(state_t)
    else:
        assert state_s == state_t
