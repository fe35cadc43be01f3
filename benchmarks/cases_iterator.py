"""Issue 17: ops that take TensorIterator's general set-up (no fast path): broadcasts of
different layouts, transposed and channels-last operands, ``where`` of three operands.
Note [Set-up plans] in kernels/tensor_iterator.py replays the set-up of a repeated call.

    python benchmarks/run.py --cpu --quick "[iterator]"
"""

from __future__ import annotations

from cases import Case
from cases_perf import _MID, _TINY, _expr


def _cl(name, src):
    def prepare(env):
        env[name] = env[src].reshape(1, 4, 2, 2).contiguous(
            memory_format=env["lib"].channels_last)
    return prepare


def _row(name, expr, arrays, prepare=None, number=3000):
    return Case(f"[iterator] {name}", _expr(expr, arrays, prepare), number=number,
                group="iterator")


ITERATOR_CASES = [
    _row("tiny a.t() + b", "a.t() + b", _TINY),
    _row("tiny a.t() * 2.0", "a.t() * 2.0", _TINY),
    _row("tiny a.t() < b", "a.t() < b", _TINY),
    _row("tiny channels_last + 1", "c + 1", _TINY, _cl("c", "a")),
    _row("tiny where(m, a.t(), b)", "lib.where(m, a.t(), b)", _TINY),
    _row("mid a.t() + b 256x256", "a.t() + b", _MID, number=300),
    _row("mid a + bias[:, None] 256x256", "a + bias[:, None]", _MID, number=300),
]
