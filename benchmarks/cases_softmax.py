"""Softmax-family rows beyond issue 17's three groups (kernels/nn/softmax.py): the tiny
log_softmax, a non-last dim, the backward kernels and cross_entropy's forward + backward.

    python benchmarks/run.py --cpu "[softmax]"
"""

from __future__ import annotations

import numpy as np
from cases import Case

_RNG = np.random.default_rng(17)


def _f32(*shape):
    return _RNG.standard_normal(shape).astype(np.float32)


def _per_lib(make):
    """A setup from ``make(lib)``, which returns the zero-argument callable to time."""
    def setup(st, torch, np_):
        return {"numpy": None, "strided": make(st), "torch": make(torch)}
    return setup


def _call(expr, **arrays):
    code = compile(expr, "<bench>", "eval")

    def make(lib):
        env = {"lib": lib}
        env.update({k: lib.from_numpy(v.copy()) for k, v in arrays.items()})
        if "y" in env:       # a forward's output, rows summing to 1, for the backward rows
            env["y"] = lib.softmax(env["y"], -1)
        return lambda: eval(code, env)
    return _per_lib(make)


def _fwd_bwd(fn, shape):
    x_np, w_np = _f32(*shape), _f32(*shape)

    def make(lib):
        x, w = lib.from_numpy(x_np.copy()).requires_grad_(), lib.from_numpy(w_np.copy())

        def run():
            x.grad = None
            (getattr(lib, fn)(x, -1) * w).sum().backward()
        return run
    return _per_lib(make)


def _cross_entropy(n, c):
    logits, target = _f32(n, c), _RNG.integers(0, c, n)

    def make(lib):
        x, t = lib.from_numpy(logits.copy()).requires_grad_(), lib.from_numpy(target.copy())

        def run():
            x.grad = None
            lib.nn.functional.cross_entropy(x, t).backward()
        return run
    return _per_lib(make)


_BW = "lib.ops.aten._softmax_backward_data(g, y, -1, lib.float32)"

SOFTMAX_CASES = [
    Case("[softmax] log_softmax(a, -1) 4x4", _call("lib.log_softmax(a, -1)", a=_f32(4, 4)),
         number=5000),
    Case("[softmax] softmax(x, 0) 256x64", _call("lib.softmax(x, 0)", x=_f32(256, 64)),
         number=300),
    Case("[softmax] _softmax_backward_data 4x4", _call(_BW, g=_f32(4, 4), y=_f32(4, 4)),
         number=5000),
    Case("[softmax] _softmax_backward_data 64x256",
         _call(_BW, g=_f32(64, 256), y=_f32(64, 256)), number=500),
    Case("[softmax] _softmax_backward_data 1024x1024",
         _call(_BW, g=_f32(1024, 1024), y=_f32(1024, 1024)), number=10),
    Case("[softmax] softmax fwd+bwd 64x256", _fwd_bwd("softmax", (64, 256)), number=200),
    Case("[softmax] log_softmax fwd+bwd 64x256", _fwd_bwd("log_softmax", (64, 256)),
         number=200),
    Case("[softmax] cross_entropy fwd+bwd 32x128", _cross_entropy(32, 128), number=300),
]
