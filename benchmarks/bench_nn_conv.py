"""Conv2d(3, 16, 3, padding=1) forward + backward on 32x3x32x32 float32: strided vs torch,
both on one thread (torch.set_num_threads(1); NumPy's BLAS pinned to 1 thread as in
benchmarks/run.py). Prints the times and the ratio strided/torch (the issue asks <= 1.5).

    python benchmarks/bench_nn_conv.py
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


def _step(lib, layer, x):
    def run():
        layer.zero_grad()
        x.grad = None
        layer(x).sum().backward()
    return run


def best(fn, number=20, repeat=7, timer=time.perf_counter) -> float:
    fn()
    return min(timeit.repeat(fn, number=number, repeat=repeat, timer=timer)) / number


def main() -> None:
    torch.set_num_threads(1)
    data = np.random.default_rng(0).standard_normal((32, 3, 32, 32)).astype(np.float32)
    # wall-clock time, and the process's CPU time (both sides run on one thread, so on a
    # shared, busy machine the CPU time is the steadier measure of the work done)
    for label, timer in (("wall", time.perf_counter), ("cpu", time.process_time)):
        times = {}
        for name, lib in (("strided", strided), ("torch", torch)):
            lib.manual_seed(0)
            x = lib.tensor(data, requires_grad=True)
            times[name] = best(_step(lib, lib.nn.Conv2d(3, 16, 3, padding=1), x), timer=timer)
        s, t = times["strided"], times["torch"]
        print(f"Conv2d(3, 16, 3, padding=1) fwd+bwd 32x3x32x32 f32 ({label}): strided "
              f"{s * 1e3:.3f} ms, torch {t * 1e3:.3f} ms, strided/torch {s / t:.2f}")


# more shapes (functional conv, forward + backward; CPU time): LeNet's two layers, a
# channel-heavy layer, a depthwise one, a strided one
SHAPES = [
    ((64, 1, 28, 28), (6, 1, 5, 5), {}),
    ((64, 6, 12, 12), (16, 6, 5, 5), {}),
    ((8, 64, 16, 16), (64, 64, 3, 3), {"padding": 1}),
    ((8, 32, 16, 16), (32, 1, 3, 3), {"padding": 1, "groups": 32}),
    ((16, 16, 16, 16), (32, 16, 3, 3), {"stride": 2, "padding": 1}),
]


def _functional_step(lib, x, w, b, kwargs):
    def run():
        x.grad = w.grad = b.grad = None
        lib.nn.functional.conv2d(x, w, b, **kwargs).sum().backward()
    return run


def shapes() -> None:
    rng = np.random.default_rng(1)
    for xs, ws, kwargs in SHAPES:
        xa = rng.standard_normal(xs).astype(np.float32)
        wa = rng.standard_normal(ws).astype(np.float32)
        times = {}
        for name, lib in (("strided", strided), ("torch", torch)):
            x = lib.tensor(xa, requires_grad=True)
            w = lib.tensor(wa, requires_grad=True)
            b = lib.zeros(ws[0], requires_grad=True)
            times[name] = best(_functional_step(lib, x, w, b, kwargs), number=10, repeat=5,
                               timer=time.process_time)
        s, t = times["strided"], times["torch"]
        print(f"  conv2d x{list(xs)} w{list(ws)} {kwargs} (cpu): strided {s * 1e3:.3f} ms, "
              f"torch {t * 1e3:.3f} ms, strided/torch {s / t:.2f}")


if __name__ == "__main__":
    main()
    shapes()
