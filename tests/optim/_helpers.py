"""Shared pieces of the optimizer tests: the same small MLP and data in strided and torch."""

from __future__ import annotations

import numpy as np
import torch

import strided

RNG = np.random.default_rng(1234)
W1 = RNG.standard_normal((16, 8)).astype(np.float32) * 0.3
B1 = RNG.standard_normal(16).astype(np.float32) * 0.1
W2 = RNG.standard_normal((4, 16)).astype(np.float32) * 0.3
B2 = RNG.standard_normal(4).astype(np.float32) * 0.1
X = RNG.standard_normal((32, 8)).astype(np.float32)
Y = RNG.standard_normal((32, 4)).astype(np.float32)


def make_params(lib):
    return [lib.nn.Parameter(lib.tensor(a.copy())) for a in (W1, B1, W2, B2)]


def loss_fn(lib, params, x, y):
    w1, b1, w2, b2 = params
    h = lib.tanh(x @ w1.t() + b1)
    return ((h @ w2.t() + b2 - y) ** 2).mean()


def to_np(t):
    return t.detach().numpy() if isinstance(t, torch.Tensor) else np.asarray(t.detach().numpy())


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


def max_rel_diff(ps, pt) -> float:
    worst = 0.0
    for a, b in zip(ps, pt):
        a, b = to_np(a).astype(np.float64), to_np(b).astype(np.float64)
        worst = max(worst, float(np.max(np.abs(a - b) / (np.abs(b) + 1e-6))))
    return worst
