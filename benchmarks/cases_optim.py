"""Benchmark cases for torch.optim (issue 11's target: an Adam step on 1M parameters,
strided/torch <= 1.5): one 1000x1000 float32 parameter with a gradient, stepped in place.

On CPU torch's default Adam (foreach=None, fused=None) runs the same single-tensor path as
``foreach=False``; ``fused=True`` is torch's fused CPU kernel, shown for reference.
"""

from __future__ import annotations

import numpy as np
from cases import Case

_P = np.random.default_rng(0).standard_normal((1000, 1000)).astype(np.float32)
_G = np.random.default_rng(1).standard_normal((1000, 1000)).astype(np.float32)


def _adam(torch_kwargs, strided_kwargs=None, cls="Adam", extra=None):
    extra = extra or {}

    def setup(st, torch, np):
        fns = {"numpy": None}
        for name, lib, kw in (("strided", st, strided_kwargs or {}),
                              ("torch", torch, torch_kwargs)):
            p = lib.nn.Parameter(lib.tensor(_P.copy()))
            p.grad = lib.tensor(_G.copy())
            opt = getattr(lib.optim, cls)([p], lr=1e-3, **extra, **kw)
            opt.step()  # the state exists before timing
            fns[name] = opt.step
        return fns
    return setup


OPTIM_CASES = [
    Case("optim: Adam step 1M params (torch foreach=False)", _adam({"foreach": False}),
         number=20),
    Case("optim: Adam step 1M params (torch default)", _adam({}), number=20),
    Case("optim: Adam step 1M params (torch fused=True)", _adam({"fused": True}), number=20),
    Case("optim: AdamW amsgrad 1M params (foreach=False)",
         _adam({"foreach": False}, cls="AdamW", extra={"amsgrad": True}), number=20),
    Case("optim: SGD momentum 1M params (foreach=False)",
         _adam({"foreach": False}, cls="SGD", extra={"momentum": 0.9}), number=20),
]
