"""Issue 17's three benchmark groups: tiny (4x4), mid-size (4K-64K elements) and large.

    python benchmarks/run.py "[tiny]"      # or "[mid]", "[large]", or several at once

Each row belongs to a group (``Case.group``); ``run.py`` prints the geometric mean of
strided/torch per group after the rows. Targets (issue 17): tiny <= 2.0, mid <= 1.5,
large <= 0.9 with no large row worse than 1.5 except ``randn``.

Every expression is evaluated in an environment holding ``lib`` (strided or torch) and
the operands built from the same NumPy arrays, so both libraries run the very same line.
Both run on 1 thread (run.py sets torch.set_num_threads(1) and pins NumPy's BLAS to 1
thread through OPENBLAS_NUM_THREADS / OMP_NUM_THREADS / MKL_NUM_THREADS).
"""

from __future__ import annotations

import numpy as np
from cases import Case

_RNG = np.random.default_rng(17)


def _f32(*shape):
    return _RNG.standard_normal(shape).astype(np.float32)


# The operands of each group, as NumPy arrays (copied into each library).
_TINY = {"a": _f32(4, 4), "b": _f32(4, 4), "m": _f32(4, 4) > 0}
_MID = {"a": _f32(256, 256), "b": _f32(256, 256), "m": _f32(256, 256) > 0,
        "bias": _f32(256), "x": _f32(64, 256), "inp": _f32(32, 128), "w": _f32(128, 128),
        "wb": _f32(128), "c1": _f32(128, 256), "c2": _f32(128, 256)}
_LARGE = {"v": _f32(1 << 22), "u": _f32(1 << 22), "mv": _f32(1 << 22) > 0,
          "x": _f32(4096, 1024), "big": _f32(2048, 2048), "mat": _f32(1024, 1024),
          "sq": _f32(4096, 4096)}


def _env(lib, arrays):
    env = {"lib": lib}
    for name, arr in arrays.items():
        env[name] = lib.from_numpy(arr.copy())
    return env


def _expr(expr, arrays, prepare=None):
    """Times ``expr`` evaluated in each library's environment (``prepare(env)`` may add
    derived operands first, e.g. a transposed view or a 0-dim tensor)."""
    code = compile(expr, "<bench>", "eval")

    def setup(st, torch, np_):
        fns = {"numpy": None}
        for name, lib in (("strided", st), ("torch", torch)):
            env = _env(lib, arrays)
            if prepare is not None:
                prepare(env)
            fns[name] = _bound(code, env)
        return fns
    return setup


def _bound(code, env):
    return lambda: eval(code, env)


def _transposed(name, src):
    def prepare(env):
        env[name] = env[src].t()
    return prepare


def _scalar(env):
    env["s"] = env["a"].sum()


def _mlp_step(width, batch):
    """Two Linear(width, width) layers with a ReLU between, MSE loss, backward and a plain
    SGD update (torch.optim.SGD, lr 0.01): one small-model training step."""
    x_np, y_np = _f32(batch, width), _f32(batch, width)

    def setup(st, torch, np_):
        fns = {"numpy": None}
        for name, lib in (("strided", st), ("torch", torch)):
            lib.manual_seed(0)
            model = lib.nn.Sequential(lib.nn.Linear(width, width), lib.nn.ReLU(),
                                      lib.nn.Linear(width, width))
            opt = lib.optim.SGD(model.parameters(), lr=0.01)
            x, y = lib.from_numpy(x_np.copy()), lib.from_numpy(y_np.copy())
            loss_fn = lib.nn.functional.mse_loss

            def step(model=model, opt=opt, x=x, y=y, loss_fn=loss_fn):
                opt.zero_grad()
                loss_fn(model(x), y).backward()
                opt.step()
            fns[name] = step
        return fns
    return setup


def _tiny(name, expr, prepare=None, number=5000):
    return Case(f"[tiny] {name}", _expr(expr, _TINY, prepare), number=number, group="tiny")


def _mid(name, expr, prepare=None, number=500):
    return Case(f"[mid] {name}", _expr(expr, _MID, prepare), number=number, group="mid")


def _large(name, expr, prepare=None, number=3):
    return Case(f"[large] {name}", _expr(expr, _LARGE, prepare), number=number,
                group="large")


TINY_CASES = [
    _tiny("rand(3, 4)", "lib.rand(3, 4)"),
    _tiny("s.item() (0-dim f32)", "s.item()", _scalar),
    _tiny("tensor([[1, 2], [3, 4]])", "lib.tensor([[1, 2], [3, 4]])"),
    _tiny("cat([a, b])", "lib.cat([a, b])"),
    _tiny("a + b", "a + b"),
    _tiny("a * 2.0", "a * 2.0"),
    _tiny("a.add_(b)", "a.add_(b)"),
    _tiny("a < b", "a < b"),
    _tiny("a.exp()", "a.exp()"),
    _tiny("a.relu()", "a.relu()"),
    _tiny("a.sum()", "a.sum()"),
    _tiny("a.mean(-1, keepdim=True)", "a.mean(-1, keepdim=True)"),
    _tiny("a.max()", "a.max()"),
    _tiny("where(m, a, b)", "lib.where(m, a, b)"),
    _tiny("softmax(a, -1)", "lib.softmax(a, -1)"),
    _tiny("a @ b", "a @ b"),
    _tiny("zeros(4, 4)", "lib.zeros(4, 4)"),
    _tiny("a.clone()", "a.clone()"),
    _tiny("a.t().contiguous()", "a.t().contiguous()"),
    _tiny("a.view(16)", "a.view(16)"),
    _tiny("a[0]", "a[0]"),
]

MID_CASES = [
    _mid("a.sum() 256x256", "a.sum()"),
    _mid("where(m, a, b) 256x256", "lib.where(m, a, b)"),
    _mid("a.mean(-1, keepdim=True) 256x256", "a.mean(-1, keepdim=True)"),
    _mid("softmax(x, -1) 64x256", "lib.softmax(x, -1)"),
    _mid("log_softmax(x, -1) 64x256", "lib.log_softmax(x, -1)"),
    _mid("addmm(wb, inp, w) 32x128 @ 128x128", "lib.addmm(wb, inp, w)"),
    _mid("a.exp() 256x256", "a.exp()"),
    _mid("a + b 256x256", "a + b"),
    _mid("a * bias (broadcast) 256x256", "a * bias"),
    _mid("a.relu() 256x256", "a.relu()"),
    _mid("a.max(-1) 256x256", "a.max(-1)"),
    _mid("at.contiguous() 256x256", "at.contiguous()", _transposed("at", "a")),
    _mid("cat([c1, c2]) 2x128x256", "lib.cat([c1, c2])"),
    Case("[mid] MLP step 2x Linear(128,128), batch 32, SGD", _mlp_step(128, 32),
         number=100, group="mid"),
]

LARGE_CASES = [
    _large("softmax(x, -1) 4096x1024", "lib.softmax(x, -1)"),
    _large("log_softmax(x, -1) 4096x1024", "lib.log_softmax(x, -1)"),
    _large("v.exp() 4M", "v.exp()"),
    _large("randn(1 << 24)", "lib.randn(1 << 24)"),
    _large("rand(1 << 24)", "lib.rand(1 << 24)"),
    # (of filled memory: a fresh ``empty`` block may still be unmapped pages, which read as
    # one shared zero page and time the page tables rather than the copy)
    _large("transposed 4096x4096 .contiguous()", "xt.contiguous()", _transposed("xt", "sq")),
    _large("v + u 4M", "v + u"),
    _large("v.sum() 4M", "v.sum()"),
    _large("x.sum(-1) 4096x1024", "x.sum(-1)"),
    _large("x.mean(-1, keepdim=True) 4096x1024", "x.mean(-1, keepdim=True)"),
    _large("where(mv, v, u) 4M", "lib.where(mv, v, u)"),
    _large("big.clone() 2048x2048", "big.clone()"),
    _large("v.relu() 4M", "v.relu()"),
    _large("mat @ mat 1024x1024", "mat @ mat"),
]

PERF_CASES = TINY_CASES + MID_CASES + LARGE_CASES
