"""The pieces of issue 17's mid-size training step (two Linear(128, 128), ReLU, mse_loss, SGD;
batch 32), timed one by one: where the step's time goes, side by side with torch.

    python benchmarks/run.py --cpu --quick "[training]"
"""

from __future__ import annotations

import numpy as np
from cases import Case

_RNG = np.random.default_rng(1706)
_X = _RNG.standard_normal((32, 128)).astype(np.float32)
_Y = _RNG.standard_normal((32, 128)).astype(np.float32)


def _per_lib(make):
    def setup(st, torch, np_):
        fns = {"numpy": None}
        for name, lib in (("strided", st), ("torch", torch)):
            lib.manual_seed(0)
            fns[name] = make(lib)
        return fns
    return setup


def _parts(lib):
    model = lib.nn.Sequential(lib.nn.Linear(128, 128), lib.nn.ReLU(), lib.nn.Linear(128, 128))
    opt = lib.optim.SGD(model.parameters(), lr=0.01)
    x, y = lib.from_numpy(_X.copy()), lib.from_numpy(_Y.copy())
    return model, opt, x, y


def _forward(lib):
    model, _, x, y = _parts(lib)
    return lambda: lib.nn.functional.mse_loss(model(x), y)


def _forward_backward(lib):
    model, opt, x, y = _parts(lib)

    def run():
        opt.zero_grad()
        lib.nn.functional.mse_loss(model(x), y).backward()
    return run


def _sgd_step(lib):
    model, opt, x, y = _parts(lib)
    lib.nn.functional.mse_loss(model(x), y).backward()
    return opt.step


def _linear(lib):
    model, _, x, _ = _parts(lib)
    return lambda: model[0](x)


def _relu_backward(lib):
    h = lib.from_numpy(_X.copy()).requires_grad_()
    g = lib.from_numpy(_Y.copy())

    def run():
        h.grad = None
        h.relu().backward(g)
    return run


def _mse_forward_backward(lib):
    h = lib.from_numpy(_X.copy()).requires_grad_()
    y = lib.from_numpy(_Y.copy())

    def run():
        h.grad = None
        lib.nn.functional.mse_loss(h, y).backward()
    return run


def _case(name, make, number=500):
    return Case(f"[training] {name}", _per_lib(make), number=number, group="training")


TRAINING_CASES = [
    _case("forward + mse_loss (2x Linear(128,128), ReLU)", _forward),
    _case("forward + mse_loss + backward", _forward_backward),
    _case("SGD step (4 parameters, plain)", _sgd_step),
    _case("Linear(128,128) forward, batch 32", _linear, 1000),
    _case("relu + backward 32x128", _relu_backward, 1000),
    _case("mse_loss + backward 32x128", _mse_forward_backward, 1000),
]
