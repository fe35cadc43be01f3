"""Elementwise paths beyond issue 17's rows (``python benchmarks/run.py "[elementwise]"``):
the in-place update with a number, in-place relu, a bias broadcast over a large matrix
(Note [Tiling the broadcast operand]), relu of an odd length (whole zero chunks plus a
rest) and a comparison with a Python float (Note [Python numbers to the ufunc])."""

from __future__ import annotations

import numpy as np
from cases import Case

_RNG = np.random.default_rng(4)


def _f32(*shape):
    return _RNG.standard_normal(shape).astype(np.float32)


_ARRAYS = {"a": _f32(4, 4), "b": _f32(4, 4), "x": _f32(4096, 1024), "bias": _f32(1024),
           "odd": _f32(1000, 300), "obias": _f32(300), "v": _f32((1 << 22) + 12345)}


def _expr(expr):
    code = compile(expr, "<bench>", "eval")

    def setup(st, torch, np_):
        fns = {"numpy": None}
        for name, lib in (("strided", st), ("torch", torch)):
            env = {"lib": lib, **{k: lib.from_numpy(v.copy()) for k, v in _ARRAYS.items()}}
            fns[name] = (lambda env=env: eval(code, env))
        return fns
    return setup


ELEMENTWISE_CASES = [
    Case("[elementwise] a.mul_(1.0) 4x4", _expr("a.mul_(1.0)"), number=5000),
    Case("[elementwise] a.relu_() 4x4", _expr("a.relu_()"), number=5000),
    Case("[elementwise] a < 0.5 4x4", _expr("a < 0.5"), number=5000),
    Case("[elementwise] x + bias 4096x1024", _expr("x + bias"), number=5),
    Case("[elementwise] odd * obias 1000x300", _expr("odd * obias"), number=200),
    Case("[elementwise] v.relu() 4M+12345", _expr("v.relu()"), number=5),
]
