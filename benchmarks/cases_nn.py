"""Benchmark cases for torch.nn (issue 10's speed targets): the same layer or training
step built in strided and in torch from the same seed, timed forward + backward.

Each setup returns the zero-argument callables ``run.py`` times; NumPy has no
equivalent of a module, so its column stays empty.
"""

from __future__ import annotations

import numpy as np
from cases import Case

_RNG = np.random.default_rng(0)


def _data(*shape, dtype=np.float32):
    return _RNG.standard_normal(shape).astype(dtype)


def _fwd_bwd(make_layer, *input_shapes):
    """``make_layer(lib)`` built after manual_seed(0); inputs require grad; one call runs
    forward, ``.sum().backward()``, and clears the gradients."""
    arrays = [_data(*s) for s in input_shapes]

    def setup(st, torch, np):
        fns = {}
        for name, lib in (("strided", st), ("torch", torch)):
            lib.manual_seed(0)
            layer = make_layer(lib)
            xs = [lib.tensor(a, requires_grad=True) for a in arrays]

            def run(layer=layer, xs=xs):
                for x in xs:
                    x.grad = None
                layer.zero_grad()
                layer(*xs).sum().backward()
            fns[name] = run
        fns["numpy"] = None
        return fns
    return setup


def _cross_entropy(st, torch, np):
    logits = _data(512, 1000)
    target = _RNG.integers(0, 1000, 512)
    fns = {"numpy": None}
    for name, lib in (("strided", st), ("torch", torch)):
        x = lib.tensor(logits, requires_grad=True)
        y = lib.tensor(target)

        def run(lib=lib, x=x, y=y):
            x.grad = None
            lib.nn.functional.cross_entropy(x, y).backward()
        fns[name] = run
    return fns


def _embedding(st, torch, np):
    idx = _RNG.integers(0, 10000, (64, 64))
    fns = {"numpy": None}
    for name, lib in (("strided", st), ("torch", torch)):
        lib.manual_seed(0)
        emb = lib.nn.Embedding(10000, 128)
        i = lib.tensor(idx)

        def run(emb=emb, i=i):
            emb.zero_grad()
            emb(i).sum().backward()
        fns[name] = run
    return fns


def _lenet(lib):
    nn = lib.nn
    return nn.Sequential(
        nn.Conv2d(1, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(16 * 5 * 5, 120), nn.ReLU(),
        nn.Linear(120, 84), nn.ReLU(), nn.Linear(84, 10))


def _lenet_step(st, torch, np):
    """One SGD step of LeNet-5 on a batch of 64 28x28 images. The update is written out
    (``p -= lr * p.grad`` under no_grad, what SGD without momentum does) so that the case
    does not depend on torch.optim."""
    images = _data(64, 1, 28, 28)
    labels = _RNG.integers(0, 10, 64)
    fns = {"numpy": None}
    for name, lib in (("strided", st), ("torch", torch)):
        lib.manual_seed(0)
        model = _lenet(lib)
        params = list(model.parameters())
        x, y = lib.tensor(images), lib.tensor(labels)

        def step(lib=lib, model=model, params=params, x=x, y=y):
            for p in params:
                p.grad = None
            loss = lib.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            with lib.no_grad():
                for p in params:
                    p.sub_(p.grad, alpha=0.01)
        fns[name] = step
    return fns


def _tiny_linear(st, torch, np):
    fns = {"numpy": None}
    for name, lib in (("strided", st), ("torch", torch)):
        lib.manual_seed(0)
        layer = lib.nn.Linear(4, 4)
        x = lib.ones(4, 4)
        fns[name] = lambda layer=layer, x=x: layer(x)
    return fns


NN_CASES = [
    Case("nn Conv2d(3,16,3,p=1) fwd+bwd 32x3x32x32", _fwd_bwd(
        lambda lib: lib.nn.Conv2d(3, 16, 3, padding=1), (32, 3, 32, 32)), number=10),
    Case("nn LeNet-5 SGD step, batch 64", _lenet_step, number=5),
    Case("nn LayerNorm(512) fwd+bwd 32x128x512", _fwd_bwd(
        lambda lib: lib.nn.LayerNorm(512), (32, 128, 512)), number=5),
    Case("nn BatchNorm2d(16) fwd+bwd 32x16x32x32", _fwd_bwd(
        lambda lib: lib.nn.BatchNorm2d(16), (32, 16, 32, 32)), number=10),
    Case("nn cross_entropy 512x1000 fwd+bwd", _cross_entropy, number=20),
    Case("nn Embedding(10000,128) fwd+bwd 64x64", _embedding, number=20),
    Case("nn tiny Linear(4, 4) call", _tiny_linear, number=20000),
]
