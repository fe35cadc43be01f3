"""Whole models, end to end: the same program written once for ``torch`` and run with
both libraries from the same seed. Parameters after construction are bit-identical;
losses, gradients and parameters after a few hand-written SGD steps agree (float64, so
that the only differences are summation orders).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided


def _lenet(m):
    nn = m.nn
    return nn.Sequential(
        nn.Conv2d(1, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(16 * 5 * 5, 120), nn.ReLU(),
        nn.Linear(120, 84), nn.ReLU(), nn.Linear(84, 10))


def _cnn_bn_dropout(m):
    nn = m.nn
    return nn.Sequential(
        nn.Conv2d(3, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8), nn.GELU(),
        nn.AvgPool2d(2), nn.Dropout(0.25),
        nn.Conv2d(8, 8, 3, padding="same", padding_mode="reflect"), nn.GroupNorm(2, 8),
        nn.SiLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.LayerNorm(8), nn.Linear(8, 5))


class _TinyLM:
    """An embedding, a residual MLP block and a tied output projection, built as a
    Module subclass the way user code builds models."""

    @staticmethod
    def build(m):
        nn, F = m.nn, m.nn.functional

        class TinyLM(nn.Module):
            def __init__(self, vocab=50, dim=16):
                super().__init__()
                self.emb = nn.Embedding(vocab, dim)
                self.blocks = nn.ModuleList(
                    nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, 4 * dim), nn.GELU(),
                                  nn.Linear(4 * dim, dim), nn.Dropout(0.1))
                    for _ in range(2))
                self.norm = nn.RMSNorm(dim)

            def forward(self, idx):
                x = self.emb(idx)
                for block in self.blocks:
                    x = x + block(x)
                return F.linear(self.norm(x), self.emb.weight)

        return TinyLM()


MODELS = {
    "lenet": (_lenet, lambda rng: rng.standard_normal((8, 1, 28, 28)), 10),
    "cnn_bn_dropout": (_cnn_bn_dropout, lambda rng: rng.standard_normal((6, 3, 16, 16)), 5),
    "tiny_lm": (_TinyLM.build, lambda rng: rng.integers(0, 50, (4, 12)), 50),
}


def _train(m, name, steps=3):
    build, make_x, classes = MODELS[name]
    rng = np.random.default_rng(0)
    x_np = make_x(rng)
    m.manual_seed(0)
    model = build(m).double()
    initial = [p.detach().clone() for p in model.parameters()]
    x = m.tensor(x_np) if x_np.dtype.kind == "i" else m.tensor(x_np, dtype=m.float64)
    losses = []
    for _ in range(steps):
        out = model(x)
        out = out.reshape(-1, out.shape[-1])
        y = m.tensor(rng.integers(0, classes, out.shape[0]))
        loss = m.nn.functional.cross_entropy(out, y, label_smoothing=0.1)
        model.zero_grad()
        loss.backward()
        with m.no_grad():
            for p in model.parameters():
                p.add_(p.grad, alpha=-0.1)
        losses.append(loss.item())
    return model, initial, losses


def _np(t):
    return t.detach().numpy()


@pytest.mark.parametrize("name", sorted(MODELS))
def test_training_matches_torch(name):
    model_s, init_s, losses_s = _train(strided, name)
    model_t, init_t, losses_t = _train(torch, name)
    assert len(init_s) == len(init_t)
    for a, b in zip(init_s, init_t):           # same seed, same draws: bit-identical
        np.testing.assert_array_equal(_np(a), _np(b))
    np.testing.assert_allclose(losses_s, losses_t, rtol=1e-9)
    for (n, a), (_, b) in zip(model_s.named_parameters(), model_t.named_parameters()):
        np.testing.assert_allclose(_np(a), _np(b), rtol=1e-8, atol=1e-10, err_msg=n)
        np.testing.assert_allclose(_np(a.grad), _np(b.grad), rtol=1e-7, atol=1e-10, err_msg=n)
    assert repr(model_s) == repr(model_t)
    assert list(model_s.state_dict()) == list(model_t.state_dict())
