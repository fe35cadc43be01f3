"""Losses and softmax: strided vs torch, both on one thread (torch.set_num_threads(1);
NumPy's BLAS pinned to 1 thread as in benchmarks/run.py). Prints the times and the ratio
strided/torch for

- ``F.cross_entropy`` over 512x1000 float32 logits, forward + backward (the issue asks
  <= 1.3);
- ``softmax`` over the rows of a 4096x1024 float32 tensor, forward only, and
  ``log_softmax`` the same;
- ``F.mse_loss`` and ``F.nll_loss`` forward + backward on 512x1000.

    python benchmarks/bench_nn_loss.py
"""

from __future__ import annotations

import os
import timeit

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402
import torch  # noqa: E402

import strided  # noqa: E402


def best_pair(fa, fb, number=20, repeat=9) -> tuple:
    """Best time per call of ``fa`` and of ``fb``, measured alternately so that both see the
    same machine load (the ratio is then steadier on a busy machine)."""
    fa(), fb()
    ta, tb = [], []
    for _ in range(repeat):
        ta.append(timeit.timeit(fa, number=number))
        tb.append(timeit.timeit(fb, number=number))
    return min(ta) / number, min(tb) / number


def _cross_entropy(lib, logits, target):
    x = lib.tensor(logits, requires_grad=True)
    t = lib.tensor(target)

    def run():
        x.grad = None
        lib.nn.functional.cross_entropy(x, t).backward()
    return run


def _nll(lib, logits, target):
    x = lib.tensor(logits, requires_grad=True)
    t = lib.tensor(target)

    def run():
        x.grad = None
        lib.nn.functional.nll_loss(x, t).backward()
    return run


def _mse(lib, logits, _target):
    x = lib.tensor(logits, requires_grad=True)
    y = lib.tensor(logits[::-1].copy())

    def run():
        x.grad = None
        lib.nn.functional.mse_loss(x, y).backward()
    return run


def _softmax(lib, rows, _):
    x = lib.tensor(rows)
    return lambda: x.softmax(1)


def _log_softmax(lib, rows, _):
    x = lib.tensor(rows)
    return lambda: x.log_softmax(1)


def main() -> None:
    torch.set_num_threads(1)
    rng = np.random.default_rng(0)
    logits = rng.standard_normal((512, 1000)).astype(np.float32)
    target = rng.integers(0, 1000, 512)
    rows = rng.standard_normal((4096, 1024)).astype(np.float32)
    cases = [
        ("cross_entropy 512x1000 f32 fwd+bwd", _cross_entropy, logits, target, 20),
        ("nll_loss 512x1000 f32 fwd+bwd", _nll, logits, target, 20),
        ("mse_loss 512x1000 f32 fwd+bwd", _mse, logits, target, 20),
        ("softmax(dim=1) 4096x1024 f32", _softmax, rows, None, 5),
        ("log_softmax(dim=1) 4096x1024 f32", _log_softmax, rows, None, 5),
    ]
    for title, make, a, b, number in cases:
        s, t = best_pair(make(strided, a, b), make(torch, a, b), number=number)
        print(f"{title}: strided {s * 1e3:.3f} ms, torch {t * 1e3:.3f} ms, "
              f"strided/torch {s / t:.2f}")


if __name__ == "__main__":
    main()
