"""The benchmark cases. Each ``setup(strided, torch, numpy)`` returns one zero-argument
callable per library (None where a library has no equivalent)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable


@dataclass
class Case:
    name: str
    setup: Callable
    number: int = 20000
    note: Callable | None = None
    group: str | None = None   # run.py prints the geomean of strided/torch per group


def _factory(expr_s, expr_t, expr_n):
    def setup(st, torch, np):
        return {"strided": eval(f"lambda: {expr_s}", {"st": st}),
                "torch": eval(f"lambda: {expr_t}", {"torch": torch}),
                "numpy": eval(f"lambda: {expr_n}", {"np": np}) if expr_n else None}
    return setup


def _tiny(method):
    def setup(st, torch, np):
        s = st.ones(2, 3)
        t = torch.ones(2, 3)
        n = np.ones((2, 3), np.float32)
        return {"strided": method(s), "torch": method(t), "numpy": None if n is None else
                _numpy_equiv(method, n)}
    return setup


def _numpy_equiv(method, n):
    try:
        method(n)()
    except Exception:
        return None
    return method(n)


def _contiguous_transposed(st, torch, np):
    s = st.empty(4096, 4096).t()
    t = torch.empty(4096, 4096).t()
    n = np.empty((4096, 4096), np.float32).T
    return {"strided": lambda: s.contiguous(), "torch": lambda: t.contiguous(),
            "numpy": lambda: np.ascontiguousarray(n)}


def _copy_large(st, torch, np):
    s_dst, s_src = st.empty(2048, 2048), st.ones(2048, 2048)
    t_dst, t_src = torch.empty(2048, 2048), torch.ones(2048, 2048)
    n_dst, n_src = np.empty((2048, 2048), np.float32), np.ones((2048, 2048), np.float32)
    return {"strided": lambda: s_dst.copy_(s_src), "torch": lambda: t_dst.copy_(t_src),
            "numpy": lambda: np.copyto(n_dst, n_src)}


def _clone_large(st, torch, np):
    s, t, n = st.ones(2048, 2048), torch.ones(2048, 2048), np.ones((2048, 2048), np.float32)
    return {"strided": lambda: s.clone(), "torch": lambda: t.clone(), "numpy": lambda: n.copy()}


def _repr(st, torch, np):
    s = st.arange(2000, dtype=st.float32).view(40, 50)
    t = torch.arange(2000, dtype=torch.float32).view(40, 50)
    return {"strided": lambda: repr(s), "torch": lambda: repr(t),
            "numpy": None}


def _repr_small(st, torch, np):
    s = st.tensor([[1.5, 2.25], [3.0, -4.125]])
    t = torch.tensor([[1.5, 2.25], [3.0, -4.125]])
    n = np.array([[1.5, 2.25], [3.0, -4.125]], np.float32)
    return {"strided": lambda: repr(s), "torch": lambda: repr(t), "numpy": lambda: repr(n)}


CASES = [
    Case("empty(2)", _factory("st.empty(2)", "torch.empty(2)", "np.empty(2, np.float32)")),
    Case("zeros(2, 3)", _factory("st.zeros(2, 3)", "torch.zeros(2, 3)",
                                 "np.zeros((2, 3), np.float32)")),
    Case("ones(2, 3)", _factory("st.ones(2, 3)", "torch.ones(2, 3)",
                                "np.ones((2, 3), np.float32)")),
    Case("full((2, 3), 1.5)", _factory("st.full((2, 3), 1.5)", "torch.full((2, 3), 1.5)",
                                       "np.full((2, 3), 1.5, np.float32)")),
    Case("zeros(2, 3, dtype=float64)", _factory(
        "st.zeros(2, 3, dtype=st.float64)", "torch.zeros(2, 3, dtype=torch.float64)",
        "np.zeros((2, 3))")),
    Case("tensor([1., 2., 3.])", _factory("st.tensor([1., 2., 3.])",
                                          "torch.tensor([1., 2., 3.])",
                                          "np.array([1., 2., 3.], np.float32)")),
    Case("arange(10)", _factory("st.arange(10)", "torch.arange(10)", "np.arange(10)")),
    Case("eye(3)", _factory("st.eye(3)", "torch.eye(3)", "np.eye(3, dtype=np.float32)")),
    Case("empty(2, device=meta)", _factory("st.empty(2, device='meta')",
                                           "torch.empty(2, device='meta')", None)),
    Case("tiny clone()", _tiny(lambda x: (lambda: x.clone()) if hasattr(x, "clone") else
                               (lambda: x.copy()))),
    Case("tiny contiguous() (already contiguous)", _tiny(
        lambda x: (lambda: x.contiguous()) if hasattr(x, "contiguous") else None)),
    Case("tiny t()", _tiny(lambda x: (lambda: x.t()) if hasattr(x, "t") else (lambda: x.T))),
    Case("tiny copy_()", _tiny(lambda x: (lambda: x.copy_(x.t().t())) if hasattr(x, "copy_")
                               else None)),
    Case("tiny fill_(2.0)", _tiny(lambda x: (lambda: x.fill_(2.0)) if hasattr(x, "fill_")
                                  else (lambda: x.fill(2.0)))),
    Case("contiguous() of transposed 4096x4096 f32", _contiguous_transposed, number=3),
    Case("copy_ 2048x2048 f32", _copy_large, number=5),
    Case("clone 2048x2048 f32", _clone_large, number=5),
    Case("repr 40x50 f32 (summarised off)", _repr, number=20),
    Case("repr 2x2 f32", _repr_small, number=2000),
]


# ------------------------------------------------------------------ indexing ops (large)
# Throughput targets: at least 0.8x torch's speed (s/torch <= 1.25).

def _rows(st, torch, np):
    """100000x64 f32, 50k random rows."""
    rng = np.random.default_rng(0)
    n_arr = rng.standard_normal((100000, 64)).astype(np.float32)
    n_idx = rng.integers(0, 100000, 50000)
    return (st.from_numpy(n_arr.copy()), st.from_numpy(n_idx.copy()),
            torch.from_numpy(n_arr.copy()), torch.from_numpy(n_idx.copy()), n_arr, n_idx)


def _index_rows(st, torch, np):
    s, si, t, ti, n, ni = _rows(st, torch, np)
    return {"strided": lambda: st.ops.aten.index.Tensor(s, [si]),
            "torch": lambda: torch.ops.aten.index.Tensor(t, [ti]),
            "numpy": lambda: n[ni]}


def _getitem_rows(st, torch, np):
    s, si, t, ti, n, ni = _rows(st, torch, np)
    return {"strided": lambda: s[si], "torch": lambda: t[ti], "numpy": lambda: n[ni]}


def _index_select_rows(st, torch, np):
    s, si, t, ti, n, ni = _rows(st, torch, np)
    return {"strided": lambda: s.index_select(0, si), "torch": lambda: t.index_select(0, ti),
            "numpy": lambda: np.take(n, ni, axis=0)}


def _mask4m(st, torch, np):
    rng = np.random.default_rng(1)
    n_arr = rng.standard_normal((2000, 2000)).astype(np.float32)
    n_mask = n_arr > 0
    return (st.from_numpy(n_arr.copy()), st.from_numpy(n_mask.copy()),
            torch.from_numpy(n_arr.copy()), torch.from_numpy(n_mask.copy()), n_arr, n_mask)


def _index_mask(st, torch, np):
    s, sm, t, tm, n, nm = _mask4m(st, torch, np)
    return {"strided": lambda: st.ops.aten.index.Tensor(s, [sm]),
            "torch": lambda: torch.ops.aten.index.Tensor(t, [tm]),
            "numpy": lambda: n[nm]}


def _getitem_mask(st, torch, np):
    s, sm, t, tm, n, nm = _mask4m(st, torch, np)
    return {"strided": lambda: s[sm], "torch": lambda: t[tm], "numpy": lambda: n[nm]}


def _masked_select(st, torch, np):
    s, sm, t, tm, n, nm = _mask4m(st, torch, np)
    return {"strided": lambda: s.masked_select(sm), "torch": lambda: t.masked_select(tm),
            "numpy": lambda: n[nm]}


def _masked_fill(st, torch, np):
    s, sm, t, tm, n, nm = _mask4m(st, torch, np)
    return {"strided": lambda: s.masked_fill_(sm, 0.5), "torch": lambda: t.masked_fill_(tm, 0.5),
            "numpy": lambda: np.copyto(n, np.float32(0.5), where=nm)}


def _nonzero(st, torch, np):
    s, sm, t, tm, n, nm = _mask4m(st, torch, np)
    return {"strided": lambda: sm.nonzero(), "torch": lambda: tm.nonzero(),
            "numpy": lambda: np.argwhere(nm)}


def _accumulate1m(st, torch, np):
    rng = np.random.default_rng(2)
    n_idx = rng.integers(0, 100000, 1_000_000)
    n_val = rng.standard_normal(1_000_000).astype(np.float32)
    s, t, n = st.zeros(100000), torch.zeros(100000), np.zeros(100000, np.float32)
    si, ti = st.from_numpy(n_idx.copy()), torch.from_numpy(n_idx.copy())
    sv, tv = st.from_numpy(n_val.copy()), torch.from_numpy(n_val.copy())
    return {"strided": lambda: s.index_put_((si,), sv, accumulate=True),
            "torch": lambda: t.index_put_((ti,), tv, accumulate=True),
            "numpy": lambda: np.add.at(n, n_idx, n_val)}


def _accumulate_rows(st, torch, np):
    rng = np.random.default_rng(3)
    n_idx = rng.integers(0, 1000, 16000)
    n_val = rng.standard_normal((16000, 64)).astype(np.float32)
    s, t, n = st.zeros(1000, 64), torch.zeros(1000, 64), np.zeros((1000, 64), np.float32)
    si, ti = st.from_numpy(n_idx.copy()), torch.from_numpy(n_idx.copy())
    sv, tv = st.from_numpy(n_val.copy()), torch.from_numpy(n_val.copy())
    return {"strided": lambda: s.index_put_((si,), sv, accumulate=True),
            "torch": lambda: t.index_put_((ti,), tv, accumulate=True),
            "numpy": lambda: np.add.at(n, n_idx, n_val)}


def _index_add_rows(st, torch, np):
    rng = np.random.default_rng(3)
    n_idx = rng.integers(0, 1000, 16000)
    n_val = rng.standard_normal((16000, 64)).astype(np.float32)
    s, t = st.zeros(1000, 64), torch.zeros(1000, 64)
    si, ti = st.from_numpy(n_idx.copy()), torch.from_numpy(n_idx.copy())
    sv, tv = st.from_numpy(n_val.copy()), torch.from_numpy(n_val.copy())
    return {"strided": lambda: s.index_add_(0, si, sv), "torch": lambda: t.index_add_(0, ti, tv),
            "numpy": None}


def _put_rows(st, torch, np):
    s, si, t, ti, n, ni = _rows(st, torch, np)
    sv, tv = st.ones(50000, 64), torch.ones(50000, 64)
    return {"strided": lambda: s.index_put_((si,), sv), "torch": lambda: t.index_put_((ti,), tv),
            "numpy": lambda: n.__setitem__(ni, np.float32(1))}


def _gather_big(st, torch, np):
    rng = np.random.default_rng(4)
    n_arr = rng.standard_normal((1000, 1000)).astype(np.float32)
    n_idx = rng.integers(0, 1000, (1000, 1000))
    s, t = st.from_numpy(n_arr.copy()), torch.from_numpy(n_arr.copy())
    si, ti = st.from_numpy(n_idx.copy()), torch.from_numpy(n_idx.copy())
    return {"strided": lambda: s.gather(1, si), "torch": lambda: t.gather(1, ti),
            "numpy": lambda: np.take_along_axis(n_arr, n_idx, axis=1)}


def _scatter_add_big(st, torch, np):
    rng = np.random.default_rng(5)
    n_idx = rng.integers(0, 1000, (1000, 1000))
    n_val = rng.standard_normal((1000, 1000)).astype(np.float32)
    s, t = st.zeros(1000, 1000), torch.zeros(1000, 1000)
    si, ti = st.from_numpy(n_idx.copy()), torch.from_numpy(n_idx.copy())
    sv, tv = st.from_numpy(n_val.copy()), torch.from_numpy(n_val.copy())
    return {"strided": lambda: s.scatter_add_(1, si, sv),
            "torch": lambda: t.scatter_add_(1, ti, tv), "numpy": None}


CASES.extend([
    Case("index a[idx] 50k rows of 100000x64 f32 (aten)", _index_rows, number=10),
    Case("index a[idx] 50k rows of 100000x64 f32 (getitem)", _getitem_rows, number=10),
    Case("index_select 50k rows of 100000x64 f32", _index_select_rows, number=10),
    Case("index a[mask] 4M f32 (aten)", _index_mask, number=5),
    Case("index a[mask] 4M f32 (getitem)", _getitem_mask, number=5),
    Case("index masked_select 4M f32", _masked_select, number=5),
    Case("index masked_fill_ 4M f32", _masked_fill, number=5),
    Case("index nonzero 2000x2000 bool", _nonzero, number=3),
    Case("index_put_ accumulate 1M values into 100000", _accumulate1m, number=5),
    Case("index_put_ accumulate 16000 rows of 64", _accumulate_rows, number=5),
    Case("index_put_ 50k rows of 100000x64 f32", _put_rows, number=5),
    Case("index_add_ 16000 rows of 64", _index_add_rows, number=5),
    Case("index gather 1000x1000 f32", _gather_big, number=5),
    Case("index scatter_add_ 1000x1000 f32", _scatter_add_big, number=5),
])


def _tiny_views_and_indexing(expr_s, expr_t, expr_n=None):
    """A 3x4 float32 tensor ``a`` (and index tensor ``i``, mask ``m``) in each library."""
    def setup(st, torch, np):
        env_s = {"a": st.arange(12.0).view(3, 4), "i": st.tensor([0, 2]),
                 "m": st.tensor([[True, False, True, False]] * 3)}
        env_t = {"a": torch.arange(12.0).view(3, 4), "i": torch.tensor([0, 2]),
                 "m": torch.tensor([[True, False, True, False]] * 3)}
        env_n = {"a": np.arange(12.0, dtype=np.float32).reshape(3, 4), "i": np.array([0, 2]),
                 "m": np.array([[True, False, True, False]] * 3), "np": np}
        out = {"strided": _compile(expr_s, env_s), "torch": _compile(expr_t, env_t),
               "numpy": _compile(expr_n, env_n) if expr_n else None}
        return out
    return setup


def _compile(expr, env):
    if "=" in expr and "==" not in expr:
        code = compile(expr, "<bench>", "exec")
        return lambda: exec(code, env)
    code = compile(expr, "<bench>", "eval")
    return lambda: eval(code, env)


def _same(expr, numpy_expr=None):
    return _tiny_views_and_indexing(expr, expr, numpy_expr)


CASES.extend([
    Case("tiny a[1, 2]", _same("a[1, 2]", "a[1, 2]")),
    Case("tiny a[1:3, ::2]", _same("a[1:3, ::2]", "a[1:3, ::2]")),
    Case("tiny a[i, i]", _same("a[i, i]", "a[i, i]")),
    Case("tiny a[mask]", _same("a[m]", "a[m]")),
    Case("tiny a[1, 2] = 3", _same("a[1, 2] = 3", "a[1, 2] = 3")),
    Case("tiny a[mask] = v", _same("a[m] = 1.5", "a[m] = 1.5")),
    Case("tiny view(4, 3)", _same("a.view(4, 3)", "a.reshape(4, 3)")),
    Case("tiny t() (views)", _same("a.t()", "a.T")),
    Case("tiny permute(1, 0)", _same("a.permute(1, 0)", "a.transpose(1, 0)")),
    Case("tiny expand(2, 3, 4)", _same("a.expand(2, 3, 4)",
                                       "np.broadcast_to(a, (2, 3, 4))")),
])


# ------------------------------------------------------------------ reductions
# Tiny: within 3x of torch per call. Large: throughput against torch (1 thread).

def _reduce_large(shape, method):
    def setup(st, torch, np):
        n_arr = np.random.default_rng(4).standard_normal(shape).astype(np.float32)
        s, t = st.from_numpy(n_arr.copy()), torch.from_numpy(n_arr.copy())
        return {"strided": method(s, st), "torch": method(t, torch),
                "numpy": method(n_arr, None)}
    return setup


def _np_softmax(x):
    import numpy as np
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


CASES.extend([
    Case("tiny a.sum()", _tiny(lambda x: lambda: x.sum())),
    Case("tiny a.sum(1)", _tiny(lambda x: lambda: x.sum(1))),
    Case("sum of 16M f32", _reduce_large((1 << 24,), lambda x, m: lambda: x.sum()),
         number=5),
    Case("sum(0) of 4096x4096 f32", _reduce_large(
        (4096, 4096), lambda x, m: (lambda: x.sum(0)) if m is not None else
        (lambda: x.sum(axis=0))), number=5),
    Case("softmax rows of 4096x1024 f32", _reduce_large(
        (4096, 1024), lambda x, m: (lambda: m.softmax(x, 1)) if m is not None else
        (lambda: _np_softmax(x))), number=5),
])


# ------------------------------------------------------------------ random numbers
# rand / randn of 16M float32 (target: at least 0.8x torch). Both libraries draw the same
# bits; NumPy's default Generator (PCG64, other numbers) is shown for scale.

def _random_large(fn_name):
    def setup(st, torch, np):
        n = 1 << 24
        rng = np.random.default_rng(0)
        numpy_fn = (lambda: rng.random(n, dtype=np.float32)) if fn_name == "rand" else \
            (lambda: rng.standard_normal(n, dtype=np.float32))
        return {"strided": lambda: getattr(st, fn_name)(n),
                "torch": lambda: getattr(torch, fn_name)(n), "numpy": numpy_fn}
    return setup


CASES.extend([
    Case("rand(1 << 24)", _random_large("rand"), number=3),
    Case("randn(1 << 24)", _random_large("randn"), number=3),
])


# ------------------------------------------------------------------ linear algebra and shape ops
# Tiny: within 3x of torch per call. 1024x1024 float32 matmul: at least 0.8x torch's speed.
# Note: torch runs on 1 thread here; NumPy's BLAS uses its own thread count (OPENBLAS /
# OMP_NUM_THREADS): set OPENBLAS_NUM_THREADS=1 for a like-for-like comparison.

def _tiny_matmul(st, torch, np):
    s, t, n = st.ones(3, 3), torch.ones(3, 3), np.ones((3, 3), np.float32)
    return {"strided": lambda: s @ s, "torch": lambda: t @ t, "numpy": lambda: n @ n}


def _tiny_cat(st, torch, np):
    s, t = [st.ones(2, 3), st.ones(2, 3)], [torch.ones(2, 3), torch.ones(2, 3)]
    n = [np.ones((2, 3), np.float32), np.ones((2, 3), np.float32)]
    return {"strided": lambda: st.cat(s), "torch": lambda: torch.cat(t),
            "numpy": lambda: np.concatenate(n)}


def _matmul1024(st, torch, np):
    n_arr = np.random.default_rng(5).standard_normal((1024, 1024)).astype(np.float32)
    s, t = st.from_numpy(n_arr.copy()), torch.from_numpy(n_arr.copy())
    return {"strided": lambda: s @ s, "torch": lambda: t @ t, "numpy": lambda: n_arr @ n_arr}


def _gflops_1024(seconds):
    return f"{2 * 1024 ** 3 / seconds / 1e9:.1f} GFLOP/s"


CASES.extend([
    Case("tiny a @ a (3x3 f32)", _tiny_matmul),
    Case("tiny cat of two 2x3 f32", _tiny_cat),
    Case("matmul 1024x1024 f32", _matmul1024, number=5, note=_gflops_1024),
])


# ------------------------------------------------------------------ elementwise (TensorIterator)
# Tiny: within 3x of torch per call. add of 16M float32: at least 0.9x torch's speed; it is
# memory-bound (two reads and a write of 64 MiB each), so the note prints GB/s.

def _tiny_pair(expr):
    def setup(st, torch, np):
        env = {lib: {"a": mod.ones(2, 3), "b": mod.ones(2, 3)}
               for lib, mod in (("strided", st), ("torch", torch))}
        env["numpy"] = {"a": np.ones((2, 3), np.float32), "b": np.ones((2, 3), np.float32),
                        "np": np}
        numpy_expr = {"a.mul_(b)": "np.multiply(a, b, out=a)", "a.exp()": "np.exp(a)"}.get(
            expr, expr)
        return {"strided": _compile(expr, env["strided"]), "torch": _compile(expr, env["torch"]),
                "numpy": _compile(numpy_expr, env["numpy"])}
    return setup


def _elementwise_large(make_inputs, fn_expr, numpy_expr):
    def setup(st, torch, np):
        arrays = make_inputs(np)
        env = {"st": {f"x{i}": st.from_numpy(a.copy()) for i, a in enumerate(arrays)},
               "torch": {f"x{i}": torch.from_numpy(a.copy()) for i, a in enumerate(arrays)},
               "numpy": dict({f"x{i}": a.copy() for i, a in enumerate(arrays)}, np=np)}
        return {"strided": _compile(fn_expr, env["st"]),
                "torch": _compile(fn_expr, env["torch"]),
                "numpy": _compile(numpy_expr, env["numpy"])}
    return setup


def _add16m_inputs(np):
    rng = np.random.default_rng(7)
    n = 1 << 24
    return rng.standard_normal(n, dtype=np.float32), rng.standard_normal(n, dtype=np.float32)


def _gbps_16m(seconds):
    return f"{3 * (4 << 24) / seconds / 1e9:.1f} GB/s (strided)"


CASES.extend([
    Case("tiny a + b", _tiny_pair("a + b")),
    Case("tiny a + 1.5", _tiny_pair("a + 1.5")),
    Case("tiny a.mul_(b)", _tiny_pair("a.mul_(b)")),
    Case("tiny a.exp()", _tiny_pair("a.exp()")),
    Case("tiny a < b", _tiny_pair("a < b")),
    Case("add of 16M f32", _elementwise_large(_add16m_inputs, "x0 + x1", "x0 + x1"),
         number=5, note=_gbps_16m),
    Case("broadcast add 4096x1 + 1x4096 f32", _elementwise_large(
        lambda np: (np.random.default_rng(8).standard_normal((4096, 1), dtype=np.float32),
                    np.random.default_rng(9).standard_normal((1, 4096), dtype=np.float32)),
        "x0 + x1", "x0 + x1"), number=5),
    Case("exp of 4M f32", _elementwise_large(
        lambda np: (np.random.default_rng(10).standard_normal(1 << 22, dtype=np.float32),),
        "x0.exp()", "np.exp(x0)"), number=5),
])


# ------------------------------------------------------------------ autograd (issue 5)
# (a * 2).sum().backward() on 4 elements: per-call overhead, within 3x of torch. One
# training step of a 3-layer MLP (512 wide, batch 256, float32): at least 0.8x torch.

def _tiny_backward(st, torch, np):
    s = st.ones(4, requires_grad=True)
    t = torch.ones(4, requires_grad=True)
    return {"strided": lambda: (s * 2).sum().backward(),
            "torch": lambda: (t * 2).sum().backward(), "numpy": None}


def _mlp_step(st, torch, np):
    rng = np.random.default_rng(11)
    shapes = [(512, 512), (512, 512), (512, 512)]
    weights = [(rng.standard_normal(s) / 512 ** 0.5).astype(np.float32) for s in shapes]
    x_np = rng.standard_normal((256, 512)).astype(np.float32)

    def make(mod):
        ws = [mod.from_numpy(w.copy()).requires_grad_() for w in weights]
        x = mod.from_numpy(x_np.copy())

        def step():
            h = x
            for i, w in enumerate(ws):
                h = h @ w
                if i < len(ws) - 1:
                    h = h.relu()
            h.sum().backward()
            for w in ws:
                w.grad = None
        return step
    return {"strided": make(st), "torch": make(torch), "numpy": None}


CASES.extend([
    Case("tiny (a * 2).sum().backward()", _tiny_backward, number=5000),
    Case("MLP step 3x512, batch 256 f32", _mlp_step, number=10),
])


# ------------------------------------------------------------------ special functions
# erf and lgamma of 1M float32 (NumPy has neither): vectorised piecewise approximations in
# kernels/_special.py; aim: within about 3x of torch's vectorised loops.

def _special_1m(expr, scale):
    def setup(st, torch, np):
        x = (np.random.default_rng(12).standard_normal(1 << 20) * scale).astype(np.float32)
        s, t = st.from_numpy(x.copy()), torch.from_numpy(x.copy())
        return {"strided": _compile(expr, {"x": s}), "torch": _compile(expr, {"x": t}),
                "numpy": None}
    return setup


CASES.extend([
    Case("erf of 1M f32", _special_1m("x.erf()", 2.0), number=10),
    Case("lgamma of 1M f32", _special_1m("x.lgamma()", 5.0), number=5),
])


# ------------------------------------------------------------------ explain, switched off
# Note [Tracing by swapping] (utils/explain.py): tracing installs its hooks and probes when
# it starts and removes them when it stops. The case times a tiny ``a + b`` before any
# explanation was ever recorded (the code with no trace points at all), then records one
# explanation (install + uninstall) and times the same call again: the note prints
# after / before, which must stay within 5% (1.00 +- noise).

_explain_state: dict = {}


def _explain_off(st, torch, np):
    import timeit
    a, b = st.ones(2, 3), st.ones(2, 3)

    def add():
        return a + b

    def best():
        add()
        return min(timeit.repeat(add, number=20000, repeat=7)) / 20000

    _explain_state["before"] = best()
    with st.explain():
        add()
        a[0] + b     # the indexing and TensorIterator probes too
    from strided.ops.dispatcher import OperatorHandle, _plain_call
    assert OperatorHandle.call is _plain_call, "tracing left a hook installed"
    ta, tb = torch.ones(2, 3), torch.ones(2, 3)
    return {"strided": add, "torch": lambda: ta + tb, "numpy": None}


def _explain_note(s):
    before = _explain_state.get("before")
    return f"traced-then-off / never-traced = {s / before:.3f}" if before else ""


CASES.extend([
    Case("explain off: tiny a + b", _explain_off, number=20000, note=_explain_note),
])


# torch.nn's layers and training steps (issue 10)
from cases_nn import NN_CASES  # noqa: E402

CASES.extend(NN_CASES)

# save / load (issue 11)
from cases_serialization import SERIALIZATION_CASES  # noqa: E402

CASES.extend(SERIALIZATION_CASES)

# environment namespaces: autocast (issue 11)
from cases_env import ENV_CASES  # noqa: E402

CASES.extend(ENV_CASES)

# torch.utils.data's DataLoader (issue 11)
from cases_data import DATA_CASES  # noqa: E402

CASES.extend(DATA_CASES)

# torch.optim (issue 11)
from cases_optim import OPTIM_CASES  # noqa: E402

CASES.extend(OPTIM_CASES)

# torch.fft (issue 14)
from cases_fft import FFT_CASES  # noqa: E402

CASES.extend(FFT_CASES)

# torch.special and the elementwise ops of issue 14
from cases_special import SPECIAL_CASES  # noqa: E402

CASES.extend(SPECIAL_CASES)

# issue 17's tiny / mid-size / large groups (geomean per group)
from cases_perf import PERF_CASES  # noqa: E402

CASES.extend(PERF_CASES)

# the sparse layouts (issue 16)
from cases_sparse import SPARSE_CASES  # noqa: E402

CASES.extend(SPARSE_CASES)

# TensorIterator's general set-up (issue 17)
from cases_iterator import ITERATOR_CASES  # noqa: E402

CASES.extend(ITERATOR_CASES)

# the softmax family beyond the rows (issue 17)
from cases_softmax import SOFTMAX_CASES  # noqa: E402

CASES.extend(SOFTMAX_CASES)

# reductions beyond the rows (issue 17)
from cases_reduction import REDUCTION_CASES  # noqa: E402

CASES.extend(REDUCTION_CASES)

# the pieces of the mid-size training step (issue 17)
from cases_training import TRAINING_CASES  # noqa: E402

CASES.extend(TRAINING_CASES)

# elementwise paths beyond the rows (issue 17)
from cases_elementwise import ELEMENTWISE_CASES  # noqa: E402

CASES.extend(ELEMENTWISE_CASES)

# random, copy and cat rows beyond the (issue 17)
from cases_random_copy import RANDOM_COPY_CASES  # noqa: E402

CASES.extend(RANDOM_COPY_CASES)
