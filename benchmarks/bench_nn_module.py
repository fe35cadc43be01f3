"""Module-call overhead: strided vs torch (1 thread) for tiny layers, in one process.

    python benchmarks/bench_nn_module.py [--calls N]

Each case is timed call by call (``perf_counter_ns``, garbage collector off) and the median
is reported, with the ratio strided/torch (the target for ``Linear(4, 4)`` is <= 3). The
median of single calls is steadier than a best-of-loops figure on a shared machine.
Nothing is asserted: these are measurements.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import time
from pathlib import Path

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402
import torch  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
import strided  # noqa: E402


def _linear(shape, grad=True):
    def setup(lib):
        lib.manual_seed(0)
        m = lib.nn.Linear(4, 4)
        x = lib.randn(*shape)
        if grad:
            return lambda: m(x)

        def call():
            with lib.no_grad():
                return m(x)
        return call
    return setup


def _sequential(lib):
    lib.manual_seed(0)
    m = lib.nn.Sequential(lib.nn.Linear(4, 8), lib.nn.Flatten(), lib.nn.Identity(),
                          lib.nn.Linear(8, 2))
    x = lib.randn(3, 4)
    return lambda: m(x)


def _linear_backward(lib):
    lib.manual_seed(0)
    m = lib.nn.Linear(4, 4)
    x = lib.randn(4, 4)

    def step():
        m(x).sum().backward()
    return step


def _hooked(lib):
    lib.manual_seed(0)
    m = lib.nn.Linear(4, 4)
    m.register_forward_hook(lambda mod, args, out: None)
    x = lib.randn(4, 4)
    return lambda: m(x)


CASES = [
    ("Linear(4,4) call, x 4x4", _linear((4, 4))),
    ("Linear(4,4) call, x 1x4", _linear((1, 4))),
    ("Linear(4,4) call, x 4x4, no_grad", _linear((4, 4), grad=False)),
    ("Linear(4,4) call with a forward hook", _hooked),
    ("Sequential(Linear, Flatten, Identity, Linear)", _sequential),
    ("Linear(4,4) forward + backward", _linear_backward),
]


def median_call_us(fn, calls: int) -> float:
    for _ in range(min(1000, calls)):
        fn()
    times = np.empty(calls)
    clock = time.perf_counter_ns
    for i in range(calls):
        t0 = clock()
        fn()
        times[i] = clock() - t0
    return float(np.median(times)) / 1000


def main(argv=None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=20000)
    ns = parser.parse_args(argv)
    torch.set_num_threads(1)
    gc.disable()
    print(f"{'case':48s} {'strided':>10s} {'torch':>10s} {'s/torch':>8s}")
    for name, setup in CASES:
        s = median_call_us(setup(strided), ns.calls)
        t = median_call_us(setup(torch), ns.calls)
        print(f"{name:48s} {s:8.2f}us {t:8.2f}us {s / t:8.2f}")
    gc.enable()
    return 0


if __name__ == "__main__":
    sys.exit(main())
