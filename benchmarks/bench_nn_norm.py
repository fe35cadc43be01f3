"""LayerNorm(512) on 32x128x512 and BatchNorm2d(16) (training mode) on 32x16x32x32, float32,
forward + backward: strided vs torch, both on one thread (torch.set_num_threads(1); NumPy's
BLAS pinned to 1 thread as in benchmarks/run.py), timed in process CPU time. Prints the
times and the ratio strided/torch (the issue asks <= 1.5 for each), forward-only too.

    python benchmarks/bench_nn_norm.py
"""

from __future__ import annotations

import os
import time
import timeit

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402
import torch  # noqa: E402

import strided  # noqa: E402

CASES = (
    ("LayerNorm(512)", lambda lib: lib.nn.LayerNorm(512), (32, 128, 512)),
    ("BatchNorm2d(16)", lambda lib: lib.nn.BatchNorm2d(16), (32, 16, 32, 32)),
)


def _fwd_bwd(layer, x, g):
    def run():
        layer.zero_grad()
        x.grad = None
        layer(x).backward(g)
    return run


def _fwd(layer, x):
    def run():
        layer(x)
    return run


def best(fn, number=10, repeat=7) -> float:
    # process CPU time: both libraries run on one thread, so on an idle machine it equals
    # the wall time, and on a busy one it does not count the time spent descheduled
    fn()
    return min(timeit.repeat(fn, number=number, repeat=repeat, timer=time.process_time)) / \
        number


def main() -> None:
    torch.set_num_threads(1)
    rng = np.random.default_rng(0)
    for label, make, shape in CASES:
        x_np = rng.standard_normal(shape).astype(np.float32)
        g_np = rng.standard_normal(shape).astype(np.float32)
        setups = {}
        for name, lib in (("strided", strided), ("torch", torch)):
            layer = make(lib)
            x = lib.tensor(x_np, requires_grad=True)
            g = lib.tensor(g_np)
            setups[name] = (_fwd(layer, x), _fwd_bwd(layer, x, g))
        times = {name: [float("inf"), float("inf")] for name in setups}
        for _ in range(3):        # interleaved rounds: a busy machine hurts both alike
            for name, fns in setups.items():
                for i, fn in enumerate(fns):
                    times[name][i] = min(times[name][i], best(fn))
        (sf, sb), (tf, tb) = times["strided"], times["torch"]
        dims = "x".join(map(str, shape))
        print(f"{label} {dims} f32 forward:     strided {sf * 1e3:7.3f} ms, "
              f"torch {tf * 1e3:7.3f} ms, strided/torch {sf / tf:.2f}")
        print(f"{label} {dims} f32 fwd+bwd:     strided {sb * 1e3:7.3f} ms, "
              f"torch {tb * 1e3:7.3f} ms, strided/torch {sb / tb:.2f}")


if __name__ == "__main__":
    main()
