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
        lambda x: (lambda: x.contiguous()) if hasattr(x, "contiguous") else
        (lambda: np.ascontiguousarray(x)) if False else None)),
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
