"""Reduction rows beyond issue 17's three groups (Note [The reduction fast path] in
kernels/reduction.py): amax, argmax, max/min over a dim, var/std, the 2-norm, any/all, a
dim list, on tiny (4x4) and mid-size (256x256) tensors.

    python benchmarks/run.py --cpu "[reduction]"
"""

from __future__ import annotations

import numpy as np
from cases import Case

_RNG = np.random.default_rng(17)
_ARRAYS = {"tiny": _RNG.standard_normal((4, 4)).astype(np.float32),
           "mid": _RNG.standard_normal((256, 256)).astype(np.float32)}


def _call(expr, size):
    code = compile(expr, "<bench>", "eval")

    def setup(st, torch, np_):
        fns = {"numpy": None}
        for name, lib in (("strided", st), ("torch", torch)):
            env = {"lib": lib, "a": lib.from_numpy(_ARRAYS[size].copy())}
            fns[name] = lambda env=env: eval(code, env)
        return fns
    return setup


_EXPRS = ["a.amax(-1)", "a.argmax()", "a.argmax(-1)", "a.max(-1)", "a.min(0)", "a.var(-1)",
          "a.std()", "a.norm()", "lib.linalg.vector_norm(a, dim=-1)", "(a > 0).any()",
          "a.sum((0, 1))", "a.mean((0, 1), keepdim=True)"]

REDUCTION_CASES = [Case(f"[reduction] {size} {expr}", _call(expr, size),
                        number=20000 if size == "tiny" else 2000, group="reduction")
                   for size in ("tiny", "mid") for expr in _EXPRS]
