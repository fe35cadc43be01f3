"""Conv2d(3, 16, 3, padding=1) forward + backward on 32x3x32x32 float32: strided vs torch,
both on one thread (torch.set_num_threads(1); NumPy's BLAS pinned to 1 thread as in
benchmarks/run.py). Prints the times and the ratio strided/torch (the issue asks <= 1.5).

    python benchmarks/bench_nn_conv.py
"""

from __future__ import annotations

import os
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


def _functional_step(lib, x, w, b):
    def run():
        x.grad = w.grad = b.grad = None
        lib.nn.functional.conv2d(x, w, b, padding=1).sum().backward()
    return run


def best(fn, number=20, repeat=7) -> float:
    fn()
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number


def main() -> None:
    torch.set_num_threads(1)
    data = np.random.default_rng(0).standard_normal((32, 3, 32, 32)).astype(np.float32)
    times = {}
    for name, lib in (("strided", strided), ("torch", torch)):
        lib.manual_seed(0)
        x = lib.tensor(data, requires_grad=True)
        if hasattr(lib.nn, "Conv2d"):
            times[name] = best(_step(lib, lib.nn.Conv2d(3, 16, 3, padding=1), x))
        else:
            w = lib.randn(16, 3, 3, 3, requires_grad=True)
            b = lib.randn(16, requires_grad=True)
            times[name] = best(_functional_step(lib, x, w, b))
    s, t = times["strided"], times["torch"]
    print(f"Conv2d(3, 16, 3, padding=1) fwd+bwd 32x3x32x32 f32: strided {s * 1e3:.3f} ms, "
          f"torch {t * 1e3:.3f} ms, strided/torch {s / t:.2f}")


if __name__ == "__main__":
    main()
