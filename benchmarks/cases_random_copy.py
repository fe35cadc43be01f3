"""Random, copy and cat rows beyond issue 17's three groups: the transposed copy at the
sizes Note [Blocked copy] discusses (power-of-two strides and spread ones, float32 and
float64, from real data), the sampler sizes between tiny and 1 << 24, cat of several
inputs and along dim 1, and a same-dtype copy_ between storages (Note [Copying between
storages]).

    python benchmarks/run.py --cpu "[random_copy]"
"""

from __future__ import annotations

import numpy as np
from cases import Case

_RNG = np.random.default_rng(5)


def _call(expr, arrays):
    code = compile(expr, "<bench>", "eval")

    def setup(st, torch, np_):
        fns = {"numpy": None}
        for name, lib in (("strided", st), ("torch", torch)):
            env = {"lib": lib}
            for key, arr in arrays.items():
                env[key] = lib.from_numpy(arr.copy())
            fns[name] = lambda env=env: eval(code, env)
        return fns
    return setup


def _square(n, dtype=np.float32):
    return {"x": _RNG.standard_normal((n, n)).astype(dtype)}


_TINY = {"a": _RNG.standard_normal((4, 4)).astype(np.float32),
         "b": _RNG.standard_normal((4, 4)).astype(np.float32),
         "c": _RNG.standard_normal((2, 4)).astype(np.float32)}
_MID = {"m1": _RNG.standard_normal((256, 128)).astype(np.float32),
        "m2": _RNG.standard_normal((256, 128)).astype(np.float32)}

_ROWS = [   # (expression, size note, operands, calls per timing)
    ("x.t().contiguous()", "f32 1000x1000", _square(1000), 20),
    ("x.t().contiguous()", "f32 1024x1024", _square(1024), 20),
    ("x.t().contiguous()", "f32 2048x2048", _square(2048), 5),
    ("x.t().contiguous()", "f64 2048x2048", _square(2048, np.float64), 5),
    ("x.t().contiguous()", "f64 4096x4096", _square(4096, np.float64), 2),
    ("lib.rand(65536)", "", {}, 500),
    ("lib.randn(65536)", "", {}, 200),
    ("lib.randn(3, 4)", "", {}, 20000),
    ("lib.cat([a, b, c])", "tiny", _TINY, 20000),
    ("lib.cat([a, b], 1)", "tiny", _TINY, 20000),
    ("a.t().clone()", "tiny", _TINY, 20000),
    ("a.copy_(b)", "tiny", _TINY, 20000),
    ("lib.cat([m1, m2], 1)", "256x128", _MID, 500),
]

RANDOM_COPY_CASES = [Case(f"[random_copy] {expr} {note}".rstrip(), _call(expr, arrays),
                          number=number, group="random_copy")
                     for expr, note, arrays, number in _ROWS]
