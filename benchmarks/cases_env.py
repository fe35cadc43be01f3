"""Benchmark cases for the environment namespaces (issue 11, item 4): what an autocast
region costs, and that leaving one puts the plain dispatcher call back (no cost after)."""

from __future__ import annotations

import numpy as np
from cases import Case

_RNG = np.random.default_rng(0)
_X = _RNG.standard_normal((64, 256)).astype(np.float32)
_state: dict = {}


def _linear_autocast(st, torch, np):
    fns = {}
    for name, lib in (("strided", st), ("torch", torch)):
        lib.manual_seed(0)
        layer = lib.nn.Linear(256, 256)
        x = lib.tensor(_X)

        def run(layer=layer, x=x, lib=lib):
            with lib.no_grad(), lib.autocast("cpu"):
                return layer(x)
        fns[name] = run
    fns["numpy"] = None
    return fns


def _enter_exit(st, torch, np):
    fns = {}
    for name, lib in (("strided", st), ("torch", torch)):
        def run(lib=lib):
            with lib.autocast("cpu"):
                pass
        fns[name] = run
    fns["numpy"] = None
    return fns


def _tiny_mm_after_autocast(st, torch, np):
    import timeit
    a, b = st.ones(2, 2), st.ones(2, 2)

    def mm():
        return st.mm(a, b)

    def best():
        mm()
        return min(timeit.repeat(mm, number=20000, repeat=7)) / 20000
    _state["before"] = best()
    with st.autocast("cpu"):
        mm()
    from strided.ops.dispatcher import OperatorHandle, _plain_call
    assert OperatorHandle.call is _plain_call, "autocast left its call installed"
    ta, tb = torch.ones(2, 2), torch.ones(2, 2)
    return {"strided": mm, "torch": lambda: torch.mm(ta, tb), "numpy": None}


def _after_note(s):
    before = _state.get("before")
    return f"after-autocast / never-autocast = {s / before:.3f}" if before else ""


ENV_CASES = [
    Case("autocast cpu: enter + exit an empty region", _enter_exit, number=5000),
    Case("autocast cpu: Linear(256,256) fwd 64 rows bf16", _linear_autocast, number=200),
    Case("autocast off: tiny mm after a region", _tiny_mm_after_autocast, number=20000,
         note=_after_note),
]
