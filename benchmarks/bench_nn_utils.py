"""nn.utils and nn.init timings: strided vs torch, both on one thread. Prints the times
and the ratio strided/torch.

    python benchmarks/bench_nn_utils.py
"""

from __future__ import annotations

import os
import timeit

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import torch  # noqa: E402

import strided  # noqa: E402


def best(fn, number=20, repeat=5) -> float:
    fn()
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number


def clip(lib):
    lib.manual_seed(0)
    params = [lib.randn(256, 256, requires_grad=True) for _ in range(10)]
    for p in params:
        p.grad = lib.randn(256, 256)
    return lambda: lib.nn.utils.clip_grad_norm_(params, 1.0)


def init_linear(lib):
    return lambda: lib.nn.Linear(512, 512)


def weight_norm_step(lib):
    lib.manual_seed(0)
    layer = lib.nn.utils.parametrizations.weight_norm(lib.nn.Linear(256, 256))
    x = lib.randn(64, 256)

    def run():
        layer.zero_grad()
        layer(x).sum().backward()
    return run


def spectral_norm_step(lib):
    lib.manual_seed(0)
    layer = lib.nn.utils.parametrizations.spectral_norm(lib.nn.Linear(256, 256))
    x = lib.randn(64, 256)

    def run():
        layer.zero_grad()
        layer(x).sum().backward()
    return run


def orthogonal_step(lib):
    lib.manual_seed(0)
    layer = lib.nn.utils.parametrizations.orthogonal(lib.nn.Linear(64, 64))
    x = lib.randn(32, 64)

    def run():
        layer.zero_grad()
        layer(x).sum().backward()
    return run


def functional_call(lib):
    lib.manual_seed(0)
    net = lib.nn.Sequential(lib.nn.Linear(16, 16), lib.nn.ReLU(), lib.nn.Linear(16, 4))
    params = {k: v.detach().clone() for k, v in net.named_parameters()}
    x = lib.randn(8, 16)
    return lambda: lib.func.functional_call(net, params, (x,))


CASES = [("clip_grad_norm_ 10 x 256x256", clip), ("Linear(512, 512) construction", init_linear),
         ("weight_norm Linear(256) fwd+bwd", weight_norm_step),
         ("spectral_norm Linear(256) fwd+bwd", spectral_norm_step),
         ("orthogonal Linear(64) fwd+bwd", orthogonal_step),
         ("functional_call small MLP", functional_call)]


def main() -> None:
    torch.set_num_threads(1)
    for name, make in CASES:
        ts = best(make(strided))
        tt = best(make(torch))
        print(f"{name:36s} strided {ts * 1e3:8.3f} ms  torch {tt * 1e3:8.3f} ms  "
              f"ratio {ts / tt:5.2f}")


if __name__ == "__main__":
    main()
