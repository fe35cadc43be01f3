"""Side-by-side timings: strided vs torch (1 thread) vs NumPy, in one process.

    python benchmarks/run.py [--quick] [filter ...]

Each case times the same operation in the three libraries (best of several
repeats) and prints the time per call and the ratio strided/torch
(< 1 means strided is faster). Nothing is asserted: these are measurements.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
import timeit
from pathlib import Path

# torch runs on 1 thread here (torch.set_num_threads(1) below); NumPy's BLAS (matmul) gets
# 1 thread too, so that both sides of a product are compared like for like. It must be set
# before NumPy loads its BLAS; an explicit OPENBLAS_NUM_THREADS in the environment wins.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402
import torch  # noqa: E402

import strided  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))
from cases import CASES  # noqa: E402


def best_time(fn, number: int, repeat: int, timer=timeit.default_timer) -> float:
    fn()
    return min(timeit.repeat(fn, number=number, repeat=repeat, timer=timer)) / number


def main(argv=None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("filters", nargs="*")
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    parser.add_argument("--cpu", action="store_true", help=(
        "time the calling thread's CPU time (time.thread_time) instead of wall-clock time: "
        "steadier on a shared machine; both libraries run on this one thread here"))
    ns = parser.parse_args(argv)
    torch.set_num_threads(1)
    repeat = 3 if ns.quick else 7
    print(f"{'case':44s} {'strided':>11s} {'torch':>11s} {'numpy':>11s} {'s/torch':>8s}")
    ratios: dict[str, list[float]] = {}
    for case in CASES:
        if ns.filters and not any(f in case.name for f in ns.filters):
            continue
        fns = case.setup(strided, torch, np)
        timer = time.thread_time if ns.cpu else timeit.default_timer
        times = {lib: best_time(fn, case.number, repeat, timer) if fn is not None else None
                 for lib, fn in fns.items()}
        s, t, n = times["strided"], times["torch"], times.get("numpy")
        extra = f"  {case.note(s)}" if case.note else ""
        print(f"{case.name:44s} {_fmt(s)} {_fmt(t)} {_fmt(n)} {s / t:8.2f}{extra}", flush=True)
        if case.group:
            ratios.setdefault(case.group, []).append(s / t)
    for group, rs in ratios.items():
        geomean = math.exp(sum(math.log(r) for r in rs) / len(rs))
        print(f"geomean strided/torch [{group}] over {len(rs)} rows: {geomean:.2f}")
    return 0


def _fmt(seconds) -> str:
    if seconds is None:
        return f"{'-':>11s}"
    if seconds < 1e-3:
        return f"{seconds * 1e6:8.2f} us"
    return f"{seconds * 1e3:8.2f} ms"


if __name__ == "__main__":
    sys.exit(main())
