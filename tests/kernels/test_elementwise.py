"""Elementwise ops against torch: one table row per op drives the generic tests.

Each row names the op, how many tensor inputs it takes, extra arguments, the dtypes to
try, the value domain of its samples and its tolerance. The generic tests run every row
over its dtypes and sample layouts (contiguous, transposed, strided, broadcast, 0-dim,
empty, Python scalars) in four forms: function, method, in place and ``out=``, and
compare values (within the dtype's tolerance), dtype, shape, strides, and exception type
and message when torch raises. Hypothesis covers type promotion over all dtype pairs and
operand kinds, and the TensorIterator's decisions against ``torch._tensor_iterator``.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np
import pytest
import torch
from close_check import values_of
from conftest import DTYPE_NAMES, assert_same_warnings, hyp
from hypothesis import given
from hypothesis import strategies as st

import strided
from strided.kernels import tensor_iterator as sti

torch.set_num_threads(1)

CORE = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
        "float32", "float64", "complex64", "complex128"]
BARE = ["uint16", "uint32", "uint64"]
FLOATS = ["float16", "bfloat16", "float32", "float64"]

# (rtol, atol) per dtype for ops that are not exact
TOL = {"float16": (2e-3, 1e-3), "bfloat16": (1.6e-2, 1e-2), "float32": (1e-5, 1e-6),
       "float64": (1e-12, 1e-13), "complex64": (1e-5, 1e-6), "complex128": (1e-12, 1e-13)}


# --------------------------------------------------------------------------- comparison

def _dname(d):
    return str(d).removeprefix("torch.")


def assert_close(rs, rt, exact=False, scale=1.0, tol_dtype=None):
    if isinstance(rt, torch.Tensor):
        assert isinstance(rs, strided.Tensor), type(rs)
        assert _dname(rs.dtype) == _dname(rt.dtype), (rs.dtype, rt.dtype)
        assert tuple(rs.shape) == tuple(rt.shape), (rs.shape, rt.shape)
        assert tuple(rs.stride()) == tuple(rt.stride()), (rs.stride(), rt.stride())
        assert rs.device.type == rt.device.type
        if rt.device.type == "meta":
            return
        a, e = values_of(rs), values_of(rt)
        tol = TOL.get(_dname(rt.dtype))
        if tol_dtype is not None and tol is not None and tol_dtype in TOL:
            # an out= of a wider dtype holds values computed in a narrower one
            tol = max(tol, TOL[tol_dtype])
        # complex products and quotients round differently between implementations
        if (exact and not rt.dtype.is_complex) or tol is None:
            np.testing.assert_array_equal(a, e)
        else:
            np.testing.assert_allclose(a, e, rtol=tol[0] * scale, atol=tol[1] * scale,
                                       equal_nan=True)
    elif isinstance(rt, (tuple, list)):
        assert len(rs) == len(rt)
        for x, y in zip(rs, rt):
            assert_close(x, y, exact, scale, tol_dtype)
    else:
        assert type(rs) is type(rt) and rs == rt, (rs, rt)


def _run(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            return fn(), None, caught
        except Exception as e:  # noqa: BLE001 - compared with torch's
            return None, e, caught


def check(recipe, exact=False, scale=1.0, tol_dtype=None):
    """``recipe(strided)`` against ``recipe(torch)``: results within tolerance (that of
    ``tol_dtype`` when coarser than the result's), or the same exception and message."""
    rt, et, wt = _run(lambda: recipe(torch))
    rs, es, ws = _run(lambda: recipe(strided))
    if et is not None:
        assert es is not None, (
            f"strided did not raise; torch raised {type(et).__name__}: {et}; got {rs!r}")
        assert type(es) is type(et), (
            f"strided raised {type(es).__name__}: {es}\ntorch {type(et).__name__}: {et}")
        assert str(es) == str(et), f"message differs:\nstrided: {es}\ntorch:   {et}"
        return None, None
    if es is not None:
        raise AssertionError(f"strided raised {type(es).__name__}: {es}") from es
    assert_close(rs, rt, exact, scale, tol_dtype)
    assert_same_warnings(ws, wt)
    return rs, rt


# --------------------------------------------------------------------------- samples

def _data(shape, dtype, domain, seed):
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        return rng.integers(0, 2, shape).astype(bool)
    if dtype.startswith("uint") or dtype.startswith("int"):
        lo = 0 if dtype.startswith("uint") else -6
        v = rng.integers(lo, 7, shape)
        if domain in ("nonzero", "positive"):
            v = np.where(v == 0, 3, v)
        if domain == "positive":
            v = np.abs(v)
        if domain == "shift":
            v = rng.integers(0, 5, shape)
        return v
    if dtype.startswith("complex"):
        v = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
        return v * (0.5 if domain == "unit" else 1.5)
    v = rng.standard_normal(shape) * 2.5
    if domain == "positive":
        v = np.abs(v) + 0.1
    elif domain == "unit":
        v = rng.uniform(-0.95, 0.95, shape)
    elif domain == "prob":
        v = rng.uniform(0.05, 0.95, shape)
    elif domain == "nonzero":
        v = np.where(np.abs(v) < 0.1, 0.7, v)
    if shape and v.size > 2 and domain is None:
        flat = v.reshape(-1)
        flat[0] = 0.0
        if dtype != "bfloat16":
            flat[1] = -3.5
    return v


def make(m, shape, dtype, domain=None, layout="contiguous", seed=0):
    """The same tensor in either library (``m`` is the module)."""
    values = _data(shape, dtype, domain, seed)
    t = m.from_numpy(np.array(values, copy=True))
    t = t.to(getattr(m, dtype))
    if layout == "transposed" and t.dim() >= 2:
        t = t.mT.contiguous().mT
    elif layout == "strided" and t.dim() >= 1:
        big = m.zeros(tuple(2 * s for s in t.shape), dtype=t.dtype)
        view = big[tuple(slice(None, None, 2) for _ in t.shape)]
        view.copy_(t)
        t = view
    return t


UNARY_LAYOUTS = [((3, 4), "contiguous"), ((4, 3), "transposed"), ((3, 5), "strided"),
                 ((), "contiguous"), ((0, 3), "contiguous"), ((2, 1, 3), "contiguous")]
# (shape a, layout a, shape b, layout b); "scalar" stands for a Python number
BINARY_LAYOUTS = [((3, 4), "contiguous", (3, 4), "contiguous"),
                  ((3, 1), "contiguous", (1, 4), "contiguous"),
                  ((4, 3), "transposed", (4, 3), "contiguous"),
                  ((3, 4), "strided", (4,), "contiguous"),
                  ((3, 4), "contiguous", (), "contiguous"),
                  ((), "contiguous", (2, 3), "transposed"),
                  ((0, 4), "contiguous", (4,), "contiguous"),
                  ((3, 4), "contiguous", "scalar", None)]


def _scalar_for(dtype, domain):
    if dtype == "bool":
        return True
    if dtype.startswith("complex"):
        return 0.5 - 1.25j
    if dtype.startswith("float") or dtype == "bfloat16":
        return 0.75 if domain in ("unit", "prob") else 2.5
    return 2


# --------------------------------------------------------------------------- the table

@dataclass
class Row:
    name: str
    arity: int = 1
    args: tuple = ()
    kwargs: dict = field(default_factory=dict)
    dtypes: list = field(default_factory=lambda: list(CORE))
    domain: str | None = None          # sample values: positive, unit, nonzero, shift...
    domain_rhs: str | None = None
    exact: bool = False
    scale: float = 1.0                 # tolerance multiplier
    method: bool = True
    inplace: bool = True
    out: bool = True
    nn: bool = False                   # torch.nn.functional / strided.nn.functional
    scalar: bool = True                # binary: also with a Python number on the right

    def __post_init__(self):
        if self.nn:   # torch.nn.functional's wrappers take no out=
            self.out = False

    @property
    def id(self):
        return self.name + (f"{self.args}" if self.args else "") + (
            f"{self.kwargs}" if self.kwargs else "")


ALL_DTYPES = CORE + BARE
UNARY_FLOAT_NAMES = ["reciprocal", "sqrt", "rsqrt", "exp", "exp2", "expm1", "log", "log2",
                     "log10", "log1p", "sin", "cos", "tan", "asin", "acos", "atan", "sinh",
                     "cosh", "tanh", "asinh", "acosh", "atanh", "sigmoid"]
_DOMAINS = {"sqrt": "positive", "rsqrt": "positive", "log": "positive", "log2": "positive",
            "log10": "positive", "log1p": "positive", "asin": "unit", "acos": "unit",
            "atanh": "unit", "acosh": "positive", "reciprocal": "nonzero"}

ROWS = [
    Row("add", 2, exact=True, dtypes=ALL_DTYPES),
    Row("add", 2, kwargs={"alpha": 2}, exact=False),
    Row("add", 2, kwargs={"alpha": 0.5}, dtypes=FLOATS + ["int64", "complex64"]),
    Row("sub", 2, exact=True, dtypes=ALL_DTYPES),
    Row("sub", 2, kwargs={"alpha": 3}),
    Row("mul", 2, exact=True, dtypes=ALL_DTYPES),
    Row("div", 2, domain_rhs="nonzero", scale=0.2),
    Row("div", 2, kwargs={"rounding_mode": "trunc"}, domain_rhs="nonzero"),
    Row("div", 2, kwargs={"rounding_mode": "floor"}, domain_rhs="nonzero"),
    Row("true_divide", 2, domain_rhs="nonzero", scale=0.2),
    Row("floor_divide", 2, domain_rhs="nonzero"),
    Row("remainder", 2, domain_rhs="nonzero"),
    Row("fmod", 2, domain_rhs="nonzero"),
    Row("pow", 2, domain="positive", domain_rhs="shift", scale=5),
    Row("float_power", 2, domain="positive", domain_rhs="shift", scale=5),
    Row("atan2", 2),
    Row("hypot", 2),
    Row("maximum", 2, exact=True, scalar=False),
    Row("minimum", 2, exact=True, scalar=False),
    Row("fmax", 2, exact=True, scalar=False),
    Row("fmin", 2, exact=True, scalar=False),
    Row("copysign", 2, exact=True),
    Row("logaddexp", 2, scalar=False, inplace=False),
    Row("eq", 2, exact=True, dtypes=ALL_DTYPES),
    Row("ne", 2, exact=True),
    Row("lt", 2, exact=True, dtypes=ALL_DTYPES),
    Row("le", 2, exact=True),
    Row("gt", 2, exact=True),
    Row("ge", 2, exact=True),
    Row("logical_and", 2, exact=True, scalar=False, dtypes=ALL_DTYPES),
    Row("logical_or", 2, exact=True, scalar=False),
    Row("logical_xor", 2, exact=True, scalar=False),
    Row("bitwise_and", 2, exact=True, dtypes=ALL_DTYPES),
    Row("bitwise_or", 2, exact=True),
    Row("bitwise_xor", 2, exact=True),
    Row("bitwise_left_shift", 2, exact=True, domain_rhs="shift"),
    Row("bitwise_right_shift", 2, exact=True, domain_rhs="shift"),
    Row("neg", exact=True, dtypes=ALL_DTYPES),
    Row("abs", dtypes=ALL_DTYPES),
    Row("sign", exact=True),
    Row("sgn"),
    Row("square", scale=2),
    Row("floor", exact=True, dtypes=ALL_DTYPES),
    Row("ceil", exact=True),
    Row("trunc", exact=True),
    Row("round", exact=True),
    Row("round", kwargs={"decimals": 2}),
    Row("round", kwargs={"decimals": -1}),
    Row("frac", exact=True),
    Row("bitwise_not", exact=True, dtypes=ALL_DTYPES),
    Row("logical_not", exact=True, dtypes=ALL_DTYPES),
    Row("isnan", exact=True, inplace=False, out=False, dtypes=ALL_DTYPES),
    Row("isinf", exact=True, inplace=False, out=False),
    Row("isposinf", exact=True, inplace=False),
    Row("isneginf", exact=True, inplace=False),
    Row("isfinite", exact=True, inplace=False, out=False),
    Row("relu", exact=True, out=False),
    Row("positive", exact=True, inplace=False, out=False, dtypes=ALL_DTYPES),
    Row("logit", domain="prob", scale=5),
    Row("logit", args=(0.2,), domain="prob", scale=5),
    Row("erf"),
    Row("erfc", scale=5),
    Row("erfinv", domain="unit", scale=10),
    Row("lgamma", scale=5),
    Row("digamma", domain="positive", scale=20),
    Row("nan_to_num", exact=True),
    Row("gelu", nn=True, inplace=False),
    Row("gelu", kwargs={"approximate": "tanh"}, nn=True, inplace=False, scale=5),
    Row("silu", nn=True, inplace=False, scale=5),
    Row("softplus", nn=True, inplace=False, scale=5),
    Row("softplus", kwargs={"beta": 2, "threshold": 1}, nn=True, inplace=False, scale=5),
    Row("mish", nn=True, inplace=False, scale=5),
    Row("elu", nn=True, inplace=False, scale=5),
    Row("leaky_relu", nn=True, inplace=False, exact=True),
    Row("hardtanh", nn=True, inplace=False, exact=True),
    Row("hardtanh", args=(-0.5, 2.0), nn=True, inplace=False, exact=True),
] + [Row(n, domain=_DOMAINS.get(n), scale=4) for n in UNARY_FLOAT_NAMES]

CASES = [(row, d) for row in ROWS for d in row.dtypes]


def _fn(m, row):
    if row.nn:
        return getattr(m.nn.functional, row.name)
    return getattr(m, row.name)


def _inputs(m, row, dtype, sample):
    if row.arity == 1:
        shape, layout = sample
        return (make(m, shape, dtype, row.domain, layout),)
    sa, la, sb, lb = sample
    a = make(m, sa, dtype, row.domain, la, seed=1)
    b = _scalar_for(dtype, row.domain_rhs) if sb == "scalar" else make(
        m, sb, dtype, row.domain_rhs, lb, seed=2)
    return a, b


def _samples(row):
    if row.arity == 1:
        return UNARY_LAYOUTS
    return [s for s in BINARY_LAYOUTS if row.scalar or s[2] != "scalar"]


@pytest.mark.parametrize("row,dtype", CASES, ids=[f"{r.id}-{d}" for r, d in CASES])
def test_function_and_method(row, dtype):
    for sample in _samples(row):
        check(lambda m, sample=sample: _fn(m, row)(*_inputs(m, row, dtype, sample), *row.args,
                                                   **row.kwargs), row.exact, row.scale)
        if row.method and not row.nn:
            def method(m, sample=sample):
                x, *rest = _inputs(m, row, dtype, sample)
                return getattr(x, row.name)(*rest, *row.args, **row.kwargs)
            check(method, row.exact, row.scale)


@pytest.mark.parametrize("row,dtype", [c for c in CASES if c[0].inplace],
                         ids=[f"{r.id}-{d}" for r, d in CASES if r.inplace])
def test_inplace(row, dtype):
    for sample in _samples(row):
        def recipe(m, sample=sample):
            x, *rest = _inputs(m, row, dtype, sample)
            version = x._version
            y = getattr(x, row.name + "_")(*rest, *row.args, **row.kwargs)
            assert y is x
            assert x._version > version
            return x
        check(recipe, row.exact, row.scale)


OUT_DTYPES = ["float32", "float64", "int64", "bool", "complex64", "float16"]


def _computation_dtype(dtype):
    return dtype if dtype in TOL else "float32"


@pytest.mark.parametrize("row,dtype", [c for c in CASES if c[0].out],
                         ids=[f"{r.id}-{d}" for r, d in CASES if r.out])
def test_out(row, dtype):
    sample = _samples(row)[1 if row.arity == 2 else 0]
    for out_dtype in OUT_DTYPES + [dtype]:
        for out_shape in [(0,), (3, 4)]:
            def recipe(m, out_shape=out_shape, out_dtype=out_dtype):
                inputs = _inputs(m, row, dtype, sample)
                out = m.zeros(out_shape, dtype=getattr(m, out_dtype))
                res = _fn(m, row)(*inputs, *row.args, **row.kwargs, out=out)
                assert res is out
                return out
            check(recipe, row.exact, row.scale, _computation_dtype(dtype))


@pytest.mark.parametrize("row", [r for r in ROWS if r.out], ids=lambda r: r.id)
def test_out_transposed_input_restrides(row):
    """A resized ``out=`` takes the layout the iterator computed (torch restrides it)."""
    dtype = "float32" if "float32" in row.dtypes else row.dtypes[0]

    def recipe(m):
        x = make(m, (4, 3), dtype, row.domain, "transposed")
        rest = (make(m, (3, 1), dtype, row.domain_rhs, seed=3),) if row.arity == 2 else ()
        out = m.empty(0, dtype=_fn(m, row)(x, *rest, *row.args, **row.kwargs).dtype)
        return _fn(m, row)(x, *rest, *row.args, **row.kwargs, out=out)
    check(recipe, row.exact, row.scale)


# torch's Meta kernels for these come from Python decompositions (torch/_refs), whose
# output strides differ from its CPU kernels' for mixed layouts; strided follows the CPU
# kernels, so their meta comparison keeps to samples of one layout.
_META_REFS = {"copysign", "floor_divide"}


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r.id)
def test_meta(row):
    dtype = "float32" if "float32" in row.dtypes else row.dtypes[0]
    samples = _samples(row)[:4]
    if row.name in _META_REFS or row.kwargs.get("rounding_mode") == "floor":
        samples = [s for s in samples if s[1] != "transposed"]
    for sample in samples:
        def recipe(m, sample=sample):
            inputs = [x.to("meta") if isinstance(x, m.Tensor) else x
                      for x in _inputs(m, row, dtype, sample)]
            return _fn(m, row)(*inputs, *row.args, **row.kwargs)
        check(recipe)


# --------------------------------------------------------------------------- special ops

def _f(shape, dtype="float32", domain=None, layout="contiguous", seed=0):
    return lambda m: make(m, shape, dtype, domain, layout, seed)


SPECIAL = [
    # where
    lambda m: m.where(make(m, (3, 4), "bool"), make(m, (3, 4), "float32"),
                      make(m, (4,), "float64", seed=1)),
    lambda m: m.where(make(m, (3, 1), "bool"), 1.5, make(m, (4,), "int32", seed=1)),
    lambda m: m.where(make(m, (3, 4), "bool"), make(m, (3, 4), "int64"), 2),
    lambda m: m.where(make(m, (3, 4), "bool"), 1, 0.5),
    lambda m: m.where(make(m, (3, 4), "float32"), 1, 0),
    lambda m: m.where(make(m, (4, 3), "bool", layout="transposed"),
                      make(m, (4, 3), "float32", layout="transposed"), 0.0),
    lambda m: make(m, (3, 4), "float32").where(make(m, (3, 4), "bool"), -1.0),
    lambda m: m.where(make(m, (3, 4), "bool"), make(m, (3, 4), "float32"),
                      make(m, (3, 4), "float32"), out=m.empty(0)),
    lambda m: m.where(make(m, (3, 4), "bool"), make(m, (3, 4), "float32"),
                      make(m, (3, 4), "float32"), out=m.empty(0, dtype=m.int64)),
    lambda m: m.where(make(m, (3, 4), "bool"), make(m, (3, 5), "float32"), 0.0),
    # clamp / clip
    lambda m: m.clamp(make(m, (3, 4)), -1.0, 1.0),
    lambda m: m.clamp(make(m, (3, 4)), min=0.5),
    lambda m: m.clamp(make(m, (3, 4)), max=0.5),
    lambda m: m.clamp(make(m, (3, 4), "int64"), 0.5, 2.5),
    lambda m: m.clamp(make(m, (3, 4), "int32"), -2, 2),
    lambda m: m.clamp(make(m, (3, 4)), 1.0, -1.0),
    lambda m: m.clamp(make(m, (3, 4))),
    lambda m: m.clamp(make(m, (3, 4), "complex64"), 0, 1),
    lambda m: m.clamp(make(m, (3, 4), "bool"), 0, 1),
    lambda m: make(m, (3, 4), "int64").clamp_(0.5, 2.5),
    lambda m: make(m, (3, 4)).clamp_(-0.5, 0.5),
    lambda m: m.clamp(make(m, (3, 4)), make(m, (4,), seed=1), make(m, (3, 1), seed=2) + 3),
    lambda m: m.clamp(make(m, (3, 4)), min=make(m, (4,), seed=1)),
    lambda m: m.clamp(make(m, (3, 4), "int32"), max=make(m, (4,), "float64", seed=1)),
    lambda m: m.clip(make(m, (3, 4)), -1, 1),
    lambda m: m.clamp_min(make(m, (3, 4)), 0.5),
    lambda m: m.clamp_max(make(m, (3, 4), "int64"), 1),
    lambda m: m.clamp(make(m, (3, 4)), -1.0, 1.0, out=m.empty(0, dtype=m.float64)),
    lambda m: m.clamp(make(m, (4, 3), layout="transposed"), -1.0, 1.0),
    lambda m: m.clamp(make(m, (3, 4), "float16"), -1.0, 1.0),
    # lerp, addcmul, addcdiv
    lambda m: m.lerp(make(m, (3, 4)), make(m, (3, 4), seed=1), 0.3),
    lambda m: m.lerp(make(m, (3, 4)), make(m, (4,), seed=1), make(m, (3, 1), seed=2)),
    lambda m: m.lerp(make(m, (3, 4)), make(m, (3, 4), "float64", seed=1), 0.3),
    lambda m: m.lerp(make(m, (3, 4), "int64"), make(m, (3, 4), "int64", seed=1), 0.3),
    lambda m: make(m, (3, 4)).lerp_(make(m, (3, 4), seed=1), 0.7),
    lambda m: m.addcmul(make(m, (3, 4)), make(m, (3, 4), seed=1), make(m, (4,), seed=2),
                        value=0.5),
    lambda m: m.addcmul(make(m, (3, 4), "int64"), make(m, (3, 4), "int64", seed=1),
                        make(m, (4,), "int64", seed=2), value=2),
    lambda m: m.addcdiv(make(m, (3, 4)), make(m, (3, 4), seed=1),
                        make(m, (4,), domain="nonzero", seed=2), value=-1.5),
    lambda m: m.addcdiv(make(m, (3, 4), "int64"), make(m, (3, 4), "int64", seed=1),
                        make(m, (4,), "int64", "nonzero", seed=2)),
    lambda m: make(m, (3, 4)).addcmul_(make(m, (3, 4), seed=1), make(m, (3, 4), seed=2)),
    # nan_to_num with special values
    lambda m: m.nan_to_num(m.tensor([float("nan"), float("inf"), -float("inf"), 1.5])),
    lambda m: m.nan_to_num(m.tensor([float("nan"), float("inf"), -float("inf"), 1.5],
                                    dtype=m.float16), nan=2.0, posinf=10.0),
    lambda m: m.nan_to_num(m.tensor([complex(float("nan"), float("inf"))])),
    # isclose, allclose, equal
    lambda m: m.isclose(make(m, (3, 4)), make(m, (3, 4)) + 1e-6),
    lambda m: m.isclose(make(m, (3, 4)), make(m, (4,), seed=1), rtol=0.5, atol=0.5),
    lambda m: m.isclose(m.tensor([float("nan"), 1.0]), m.tensor([float("nan"), 1.0]),
                        equal_nan=True),
    lambda m: m.isclose(m.tensor([float("inf"), 1.0]), m.tensor([float("inf"), -1.0])),
    lambda m: m.isclose(make(m, (3,), "int64"), make(m, (3,), "int64")),
    lambda m: m.isclose(make(m, (3,)), make(m, (3,), "float64")),
    lambda m: m.allclose(make(m, (3, 4)), make(m, (3, 4)) + 1e-6),
    lambda m: m.allclose(make(m, (3, 4)), make(m, (3, 4)) + 1e-3),
    lambda m: m.equal(make(m, (3, 4)), make(m, (3, 4))),
    lambda m: m.equal(make(m, (3, 4)), make(m, (3, 4), seed=1)),
    lambda m: m.equal(make(m, (3, 4)), make(m, (4, 3))),
    lambda m: make(m, (3, 4)).equal(make(m, (3, 4), layout="transposed")),
    # special values of the math functions
    lambda m: m.sign(m.tensor([float("nan"), -0.0, 0.0, -2.0, float("inf")])),
    lambda m: m.digamma(m.tensor([0.0, -0.0, -1.0, -2.5, 1e-8, 30.0, -7.25])),
    lambda m: m.lgamma(m.tensor([0.0, -1.0, -2.5, 1e-8, 30.0, float("inf"), -float("inf")])),
    lambda m: m.erfinv(m.tensor([-1.0, 1.0, 0.0, 1.5, 0.999999, -0.5])),
    lambda m: m.erfinv(m.tensor([-1.0, 1.0, 0.0, 1.5, 0.999999, -0.5], dtype=m.float64)),
    lambda m: m.remainder(m.tensor([-4.0, 4.0, -3.5, 3.5]), m.tensor([2.0, -2.0, 2.0, -2.0])),
    lambda m: m.pow(m.tensor([0.0, -0.0, -2.0, float("inf"), -float("inf")]), 0.5),
    lambda m: m.pow(m.tensor([0.0, -0.0, -2.0, 3.0, float("inf")]), -1),
    lambda m: m.pow(m.tensor([0.0, -0.0, -2.0, 3.0, float("inf")]), 2),
    lambda m: m.pow(m.tensor([2, -1, 1, 0, 3]), m.tensor([-1, -3, -2, 2, 40])),
    lambda m: m.tensor([2, 3]) ** -1,
    lambda m: m.pow(2, m.tensor([1, 2, 3])),
    lambda m: m.pow(2.5, m.tensor([1, 2, 3])),
    lambda m: m.pow(m.tensor([True, False]), 2),
    lambda m: m.pow(m.tensor([1, 2], dtype=m.int8), 9),
    lambda m: m.bitwise_left_shift(m.tensor([1, -8, 3]), m.tensor([70, 1, -1])),
    lambda m: m.bitwise_right_shift(m.tensor([1, -8, 3]), m.tensor([70, 1, -1])),
    lambda m: m.bitwise_left_shift(m.tensor([1, 2], dtype=m.int8), 7),
    lambda m: m.bitwise_right_shift(m.tensor([-128, 64], dtype=m.int8), 9),
    lambda m: m.bitwise_left_shift(3, m.tensor([1, 2])),
    lambda m: m.remainder(5, m.tensor([2, -3])),
    lambda m: m.remainder(5.5, m.tensor([2, -3])),
    lambda m: m.div(m.tensor([7, -7, 7, -7]), m.tensor([2, 2, -2, -2]), rounding_mode="trunc"),
    lambda m: m.div(m.tensor([7, -7, 7, -7]), m.tensor([2, 2, -2, -2]), rounding_mode="floor"),
    lambda m: m.div(m.tensor([7.5, -7.5, 0.0]), m.tensor([2.0, 2.0, 0.0]),
                    rounding_mode="floor"),
    lambda m: m.div(m.tensor([7.5, -7.5, 0.0]), m.tensor([2.0, 0.0, -2.0]),
                    rounding_mode="trunc"),
    lambda m: m.div(m.tensor([1, 2]), 2, rounding_mode="bad"),
    lambda m: m.div(m.tensor([1, 2]), 0, rounding_mode="floor"),
    lambda m: m.div(m.tensor([1, 2]), m.tensor([1, 0]), rounding_mode="trunc"),
    lambda m: m.fmod(m.tensor([1, 2]), m.tensor([1, 0])),
    lambda m: m.remainder(m.tensor([1, 2], dtype=m.int8), 0),
    lambda m: m.floor_divide(m.tensor([5, 6]), 0),
    lambda m: m.div(m.tensor([1, 2]), 0),
    lambda m: m.tensor([1.0, -1.0, 0.0]) / 0,
    lambda m: m.float_power(m.tensor([2, 3]), 2),
    lambda m: m.float_power(m.tensor([2.0, 3.0]), m.tensor([1 + 1j])),
    lambda m: m.tensor([2.0, 3.0]).float_power_(2),
    lambda m: m.tensor([2.0, 3.0], dtype=m.float64).float_power_(2),
    lambda m: m.float_power(m.tensor([2, 3]), 2, out=m.empty(2)),
    lambda m: m.round(m.tensor([0.5, 1.5, 2.5, -0.5, 1.2345678]), decimals=3),
    lambda m: m.round(m.tensor([1234.5, -55.0, 0.5]), decimals=-2),
    lambda m: m.round(m.tensor([1, 25, 35]), decimals=-1),
    lambda m: m.logit(m.tensor([0.0, 1.0, 0.5, 0.1]), eps=0.25),
    lambda m: m.nn.functional.gelu(make(m, (3,)), approximate="bad"),
    lambda m: m.nn.functional.hardtanh(make(m, (3,), "uint8"), 0, 4),
    lambda m: m.nn.functional.hardtanh(make(m, (3,), "uint8"), -1, 4),
    lambda m: m.nn.functional.elu(make(m, (3, 4)), alpha=0.5),
    lambda m: m.nn.functional.leaky_relu(make(m, (3, 4)), 0.2),
    lambda m: m.nn.functional.relu(make(m, (3, 4))),
    lambda m: m.nn.functional.relu(make(m, (3, 4)), inplace=True),
    lambda m: m.nn.functional.silu(make(m, (3, 4)), inplace=True),
    lambda m: m.nn.functional.elu(make(m, (3, 4)), inplace=True),
    lambda m: m.nn.functional.leaky_relu(make(m, (3, 4)), inplace=True),
    lambda m: m.nn.functional.hardtanh(make(m, (3, 4)), inplace=True),
    lambda m: m.nn.functional.mish(make(m, (3, 4)), inplace=True),
    lambda m: m.nn.functional.relu_(make(m, (3, 4))),
    lambda m: m.relu_(make(m, (3, 4))),
    lambda m: m.nn.functional.sigmoid(make(m, (3, 4))),
    lambda m: m.nn.functional.tanh(make(m, (3, 4))),
    # alpha rules
    lambda m: m.add(make(m, (3,), "int64"), make(m, (3,), "int64"), alpha=2.5),
    lambda m: m.add(make(m, (3,), "int64"), 2, alpha=True),
    lambda m: m.add(make(m, (3,), "bool"), make(m, (3,), "bool"), alpha=True),
    lambda m: m.add(make(m, (3,), "int8"), 1, alpha=1000),
    lambda m: m.sub(make(m, (3,), "float32"), make(m, (3,), "float32"), alpha=1j),
    lambda m: m.add(make(m, (3,), "complex64"), make(m, (3,), "complex64"), alpha=1j),
    lambda m: m.sub(2, make(m, (3,), "int64")),
    lambda m: m.rsub(make(m, (3,), "int64"), 2),
    lambda m: m.rsub(make(m, (3,)), make(m, (3,), seed=1), alpha=2),
    lambda m: m.add(2, 3),
    lambda m: m.add(2.5, 3),
    lambda m: m.mul(True, make(m, (3,), "int32")),
    lambda m: m.true_divide(4, make(m, (3,), "int64", "nonzero")),
    lambda m: m.floor_divide(5, make(m, (3,), "int64", "nonzero")),
    # NaN, infinities, overflow, wrapping, mixed dtypes and layouts
    lambda m: m.equal(m.ones(3), m.ones(3, dtype=m.float64)),
    lambda m: m.equal(m.ones(3), m.ones(3, dtype=m.int64)),
    lambda m: m.isclose(m.tensor([True, False]), m.tensor([True, True])),
    lambda m: m.clamp(m.tensor([1.0, float("nan"), 3.0]), m.tensor([float("nan"), 0.0, 0.0]),
                      m.tensor(2.0)),
    lambda m: m.clamp(m.tensor([1, 5, 3]), m.tensor([2.5, 0.0, 0.0])),
    lambda m: m.clamp(m.tensor([1.0, 5.0]), min=2, max=1),
    lambda m: m.maximum(m.tensor([1.0, float("nan")]), m.tensor([float("nan"), 2.0])),
    lambda m: m.fmax(m.tensor([1.0, float("nan")]), m.tensor([float("nan"), 2.0])),
    lambda m: m.sub(m.ones(3), m.ones(3), alpha=2, out=m.empty(3, dtype=m.float64)),
    lambda m: (lambda a: (a[1:].add_(a[:-1]), a))(m.arange(5.0)),
    lambda m: (lambda a: (a.t().add_(1), a))(m.ones(2, 3)),
    lambda m: (lambda a, v: (v.mul_(2), a._version, v._version))(
        *(lambda a: (a, a[0]))(m.ones(2, 3))),
    lambda m: m.ones(2, 3, dtype=m.int32) // 2.5,
    lambda m: m.ones(2, 3, dtype=m.int32) / 2,
    lambda m: m.ones(2, 3, dtype=m.int32) % 2.5,
    lambda m: m.tensor([5, -5]) % m.tensor([3, 3]),
    lambda m: m.tensor([5.5, -5.5]).fmod(2),
    lambda m: m.tensor(3) + m.tensor([1, 2], dtype=m.int8),
    lambda m: m.tensor(3.5) + m.tensor([1, 2], dtype=m.int8),
    lambda m: m.tensor([1, 2], dtype=m.uint8) - 5,
    lambda m: m.tensor([250], dtype=m.uint8) + 10,
    lambda m: m.tensor([1e30]) * 1e30,
    lambda m: m.tensor([1.0]).half() * 70000,
    lambda m: m.tensor([2.0, 3.0]).pow(m.tensor([2, 3])),
    lambda m: m.tensor([2, 3]).pow(m.tensor([2.0, 0.5])),
    lambda m: m.logical_and(m.tensor([1.0, 0.0]).bfloat16(), m.tensor([1, 1])),
    lambda m: m.logical_not(m.tensor([1.0, 0.0]).bfloat16()),
    lambda m: m.eq(m.tensor([1.0, 0.0]).bfloat16(), m.tensor([1.0, 0.0]).half()),
    lambda m: m.where(m.tensor([True, False]), m.tensor([1.0]).half(), m.tensor([2.0]).bfloat16()),
    lambda m: m.sigmoid(m.tensor([-100.0, 100.0, 0.0])),
    lambda m: m.nn.functional.softplus(m.tensor([-100.0, 100.0, 0.0, 19.9, 20.1])),
    lambda m: m.nn.functional.gelu(m.tensor([-10.0, 10.0, 0.0, 1.0])),
    lambda m: m.nn.functional.mish(m.tensor([-30.0, 30.0, 0.0, 1.0])),
    lambda m: m.exp(m.tensor([1000.0, -1000.0])),
    lambda m: m.log(m.tensor([0.0, -1.0])),
    lambda m: m.sqrt(m.tensor([-1.0])),
    lambda m: m.atan2(m.tensor([0.0, -0.0]), m.tensor([-0.0, -1.0])),
    lambda m: m.add(m.tensor([1, 2]), m.tensor([1.5]), alpha=2),
    lambda m: m.bitwise_and(m.tensor([True]), 3),
    lambda m: m.tensor([1, 2]).add(m.tensor([1.0]).to("meta")),
    lambda m: m.tensor([1, 2]).to("meta") + 1.5,
    lambda m: m.ones(2, 3).to("meta").t() + m.ones(3, 2).to("meta"),
    lambda m: m.empty(0).exp_(),
    lambda m: m.copysign(m.tensor([1, 2]), -1),
    lambda m: m.lerp(m.tensor([1.0, 2.0]), m.tensor([3.0, 4.0]),
                     m.tensor([0.5, 0.8], dtype=m.float64)),
    lambda m: m.addcmul(m.ones(2), m.ones(2, dtype=m.float64), m.ones(2, dtype=m.int64)),
    lambda m: m.addcdiv(m.ones(2, dtype=m.int64), m.ones(2, dtype=m.int64), m.ones(2), value=2),
    lambda m: m.addcmul(m.ones(2, dtype=m.int64), m.ones(2, dtype=m.int64),
                        m.ones(2, dtype=m.int64), value=0.5),
    lambda m: m.float_power(m.tensor([-8.0]), 1 / 3),
    lambda m: m.trunc(m.tensor([2.7, -2.7])),
    lambda m: m.sgn(m.tensor([0j, 3 + 4j])),
    lambda m: m.reciprocal(m.tensor([0, 2])),
    lambda m: m.square(m.tensor([True, False])),
    lambda m: m.rsqrt(m.tensor([0.0, -0.0, 4.0])),
    lambda m: m.frac(m.tensor([2.5, -2.5])),
    lambda m: m.erfc(m.tensor([10.0, -10.0, 30.0])),
    lambda m: m.expm1(m.tensor([1e-10])),
    lambda m: m.logaddexp(m.tensor([1e30, -1e30]), m.tensor([1e30, -1e30])),
    lambda m: m.hypot(m.tensor([3.0]), m.tensor([4.0])),
    lambda m: m.ones(3) == m.ones(3).to(m.int64),
    lambda m: m.ones(3) + m.tensor(2, dtype=m.float64),
    lambda m: m.ones(3, dtype=m.float16) + m.tensor(2, dtype=m.float64),
    lambda m: m.ones(3, dtype=m.int8) + m.tensor(2.5, dtype=m.float64),
    lambda m: m.tensor(1, dtype=m.int8) + m.tensor(2, dtype=m.int64),
]


@pytest.mark.parametrize("recipe", SPECIAL, ids=[str(i) for i in range(len(SPECIAL))])
def test_special(recipe):
    check(recipe, scale=10)


# --------------------------------------------------------------------------- errors

ERRORS = [
    lambda m: m.add(m.ones(3), m.ones(4)),
    lambda m: m.ones(2, 3) + m.ones(3, 2),
    lambda m: m.ones(3).add_(m.ones(2, 3)),
    lambda m: m.ones(3, dtype=m.int64).add_(1.5),
    lambda m: m.ones(3, dtype=m.int64).exp_(),
    lambda m: m.ones(3, dtype=m.int64).mul_(m.ones(3)),
    lambda m: m.add(m.ones(3), m.ones(3), out=m.empty(3, dtype=m.int64)),
    lambda m: m.exp(m.ones(3), out=m.empty(3, dtype=m.int64)),
    lambda m: m.neg(m.ones(3, dtype=m.int64), out=m.empty(3)),
    lambda m: m.ones(1, 3).expand(2, 3).add_(1),
    lambda m: m.add(m.ones(3), 1, out=m.ones(1, 3).expand(2, 3)),
    lambda m: (lambda t: m.add(t[1:], t[:-1], out=t[:-1]))(m.arange(5.0)),
    lambda m: (lambda t: m.add(t[1:], 1, out=t[:-1]))(m.arange(5.0)),
    lambda m: m.ones(2, dtype=m.bool) - m.ones(2, dtype=m.bool),
    lambda m: m.ones(2, dtype=m.bool) - 1,
    lambda m: 1 - m.ones(2, dtype=m.bool),
    lambda m: -m.ones(2, dtype=m.bool),
    lambda m: +m.ones(2, dtype=m.bool),
    lambda m: ~m.ones(2),
    lambda m: m.ones(2) & 1,
    lambda m: m.ones(2, dtype=m.int64) // 0,
    lambda m: m.ones(2, dtype=m.int64) % 0,
    lambda m: m.ones(2, dtype=m.int64) ** -1,
    lambda m: m.ones(2) + "a",
    lambda m: m.ones(2) + [1, 2],
    lambda m: m.add(m.ones(2), "a"),
    lambda m: m.eq(m.ones(2), "a"),
    lambda m: m.ones(2).add("a"),
    lambda m: m.ones(2, dtype=m.int64) + 2 ** 64,
    lambda m: m.ones(2, dtype=m.int64) + (-2 ** 64),
    lambda m: m.ones(2, dtype=m.uint16) + m.ones(2, dtype=m.int16),
    lambda m: m.ones(2) + m.ones(2, device="meta"),
    lambda m: m.where(m.ones(2), m.ones(2), m.ones(2)),
    lambda m: m.lerp(m.ones(2), m.ones(2, dtype=m.float64), 0.5),
    lambda m: m.isclose(m.ones(2), m.ones(2, dtype=m.float64)),
    lambda m: m.isclose(m.ones(2, dtype=m.complex64), m.ones(2, dtype=m.complex64),
                        equal_nan=True),
    lambda m: m.isclose(m.ones(2), m.ones(2), rtol=-1.0),
    lambda m: m.ones(3, dtype=m.int64).float_power_(2),
    lambda m: m.maximum(m.ones(2, dtype=m.complex64), m.ones(2, dtype=m.complex64)),
    lambda m: m.sign(m.ones(2, dtype=m.complex64)),
    lambda m: m.floor(m.ones(2, dtype=m.complex64)),
    lambda m: m.isposinf(m.ones(2, dtype=m.complex64)),
    lambda m: m.relu(m.ones(2, dtype=m.bool)),
    lambda m: m.relu(m.ones(2, dtype=m.complex64)),
    lambda m: m.clamp(m.ones(2), m.ones(2, dtype=m.float64), out=m.empty(2, dtype=m.int32)),
    lambda m: m.ones(2).clamp_(m.ones(2, dtype=m.float64)),
]


@pytest.mark.parametrize("recipe", ERRORS, ids=[str(i) for i in range(len(ERRORS))])
def test_errors(recipe):
    check(recipe)


# --------------------------------------------------------------------------- operators

_OPERATORS = ["+", "-", "*", "/", "//", "%", "**", "&", "|", "^", "<<", ">>", "==", "!=",
              "<", "<=", ">", ">="]
_OPERANDS = [("int64", 2), ("int64", 2.5), ("int64", True), ("float32", 2),
             ("float32", 0.5), ("float16", 3), ("bool", True), ("bool", 2), ("int8", 300),
             ("uint8", -1), ("complex64", 2), ("float32", 1j), ("int32", 1j)]


@pytest.mark.parametrize("op", _OPERATORS)
@pytest.mark.parametrize("dtype,scalar", _OPERANDS)
def test_operators_with_python_numbers(op, dtype, scalar):
    domain = "shift" if op in ("<<", ">>", "**") else "nonzero"
    for layout in ("contiguous", "transposed"):
        check(lambda m, layout=layout: eval(
            f"t {op} s", {"t": make(m, (3, 4), dtype, domain, layout), "s": scalar}), scale=10)
        check(lambda m, layout=layout: eval(
            f"s {op} t", {"t": make(m, (3, 4), dtype, "nonzero", layout), "s": scalar}),
            scale=10)


@pytest.mark.parametrize("op", ["+=", "-=", "*=", "/=", "//=", "%=", "**=", "&=", "|=", "^=",
                                "<<=", ">>="])
@pytest.mark.parametrize("dtype,other", [("int64", "t"), ("float32", "t"), ("int64", 2),
                                         ("float32", 2.5), ("int64", 2.5), ("bool", True)])
def test_inplace_operators(op, dtype, other):
    def recipe(m):
        t = make(m, (3, 4), dtype, "shift" if op in ("<<=", ">>=", "**=") else "nonzero")
        o = make(m, (4,), dtype, "shift", seed=5) if other == "t" else other
        before = t
        env = {"t": t, "o": o}
        exec(f"t {op} o", env)
        if op not in ("//=",):
            assert env["t"] is before
        return env["t"]
    check(recipe, scale=10)


@pytest.mark.parametrize("expr", ["-t", "+t", "abs(t)", "~t", "t @ 2", "2 @ t", "t == None",
                                  "t != 'a'", "np.float32(2) * t", "t * np.float64(0.5)",
                                  "np.int64(3) + t"])
@pytest.mark.parametrize("dtype", ["int64", "float32", "bool"])
def test_unary_operators(expr, dtype):
    check(lambda m: eval(expr, {"t": make(m, (2, 3), dtype), "np": np}))


def test_positive_is_self():
    t = strided.ones(3)
    assert (+t) is t and strided.positive(t) is t


def test_tensor_stays_hashable():
    t = strided.ones(2)
    assert hash(t) == id(t) and {t: 1}[t] == 1


# --------------------------------------------------------------------------- promotion

_KINDS = ["tensor", "zerodim", "scalar"]
_PY_SCALARS = [True, 3, -2.5, 1.5 + 2j]


@hyp(max_examples=250)
@given(st.sampled_from(["add", "mul", "div", "eq", "lt", "maximum", "sub", "atan2",
                        "bitwise_and", "where"]),
       st.sampled_from(DTYPE_NAMES), st.sampled_from(DTYPE_NAMES),
       st.sampled_from(_KINDS[:2]), st.sampled_from(_KINDS), st.sampled_from(_PY_SCALARS),
       st.sampled_from([((2, 3), (2, 3)), ((2, 1), (1, 3)), ((3,), (2, 3)), ((0, 3), (3,))]))
def test_promotion_and_broadcasting(op, da, db, ka, kb, scalar, shapes):
    def operand(m, dtype, kind, shape, seed):
        if kind == "scalar":
            return scalar
        return make(m, () if kind == "zerodim" else shape, dtype, "nonzero", seed=seed)

    def recipe(m):
        a = operand(m, da, ka, shapes[0], 1)
        b = operand(m, db, kb, shapes[1], 2)
        if op == "where":
            return m.where(make(m, shapes[0], "bool"), a, b)
        if kb == "scalar" and op in ("atan2", "maximum"):
            b = m.tensor(b)
        return getattr(m, op)(a, b)
    check(recipe, scale=50)


@hyp(max_examples=60)
@given(st.sampled_from(DTYPE_NAMES), st.sampled_from(_PY_SCALARS),
       st.sampled_from(["+", "*", "/", "-", "==", "<"]))
def test_python_scalar_promotion(dtype, scalar, op):
    check(lambda m: eval(f"t {op} s", {"t": make(m, (2, 2), dtype, "nonzero"), "s": scalar}),
          scale=50)


# --------------------------------------------------------------------------- TensorIterator

def _layout_tensor(m, shape, perm, step, dtype):
    """A tensor of ``shape`` whose memory order is ``perm``, every dim sliced by ``step``."""
    base_shape = [shape[p] * step for p in perm]
    t = make(m, tuple(base_shape), dtype)
    t = t[tuple(slice(None, None, step) for _ in base_shape)]
    inv = [perm.index(i) for i in range(len(perm))]
    return t.permute(*inv)


@st.composite
def _operand_layouts(draw):
    ndim = draw(st.integers(1, 4))
    shape = draw(st.lists(st.integers(1, 4), min_size=ndim, max_size=ndim))
    specs = []
    for _ in range(draw(st.integers(1, 3))):
        sub = [s if draw(st.booleans()) else 1 for s in shape]
        k = draw(st.integers(0, ndim))
        sub = sub[k:] if draw(st.booleans()) else sub
        perm = draw(st.permutations(range(len(sub))))
        specs.append((tuple(sub), list(perm), draw(st.sampled_from([1, 2]))))
    return specs


def _ti_summary(it, module):
    if module is torch:
        out = it.output(0)
        return (_dname(it.common_dtype), tuple(it.shape), [it.element_strides(i) for i in
                                                          range(it.ntensors)],
                tuple(out.stride()), tuple(out.shape))
    out = it.output(0)
    return (_dname(it.common_dtype), tuple(it.iter_shape), [it.element_strides(i) for i in
                                                            range(it.ntensors)],
            tuple(out.stride()), tuple(out.shape))


@hyp(max_examples=200)
@given(_operand_layouts(), st.sampled_from(["binary", "float", "comparison"]))
def test_tensor_iterator_matches_torch(specs, kind):
    from torch import _tensor_iterator as tti
    factories = {"binary": (tti.binary_op, sti.binary_op),
                 "float": (tti.binary_float_op, sti.binary_float_op),
                 "comparison": (tti.comparison_op, sti.comparison_op)}
    ft, fs = factories[kind]

    def operands(m):
        ts = [_layout_tensor(m, shape, perm, step, "float32") for shape, perm, step in specs]
        return ts + ts[:1] if len(ts) == 1 else ts[:2]

    rt, et, _ = _run(lambda: _ti_summary(ft(None, *operands(torch)), torch))
    rs, es, _ = _run(lambda: _ti_summary(fs(None, *operands(strided)), strided))
    if et is not None:
        assert es is not None and str(es) == str(et), (es, et)
    else:
        assert es is None, es
        assert rs == rt


@pytest.mark.parametrize("case", [
    lambda m: (None, make(m, (3, 4), "int32"), make(m, (4,), "int64")),
    lambda m: (None, make(m, (3, 4), "int32"), make(m, (), "float64")),
    lambda m: (None, make(m, (3, 4), "float16"), make(m, (4,), "bfloat16")),
    lambda m: (m.empty(4, 3).t(), make(m, (3, 4)), make(m, (3, 4))),
    lambda m: (m.empty(0), make(m, (4, 3), layout="transposed"), make(m, (4, 3))),
    lambda m: (m.empty(4, 3, dtype=m.float64), make(m, (4, 3)), make(m, (4, 3))),
    lambda m: (m.empty(4, 3, dtype=m.int64), make(m, (4, 3)), make(m, (4, 3))),
    lambda m: (None, make(m, (3, 4)), make(m, (3, 5))),
    lambda m: (m.ones(1, 4).expand(3, 4), make(m, (3, 4)), make(m, (3, 4))),
    lambda m: (None, make(m, (0, 3), layout="transposed"), make(m, (3, 1))),
])
@pytest.mark.parametrize("kind", ["binary_op", "binary_float_op", "comparison_op"])
def test_tensor_iterator_dtypes_and_outputs(case, kind):
    from torch import _tensor_iterator as tti

    def summary(m, it):
        out = it.output(0) if m is torch else it.operands[0].tensor
        return _dname(it.common_dtype), tuple(out.stride()), tuple(out.shape), \
            _dname(out.dtype)

    def torch_side():
        ops = case(torch)
        it = getattr(tti, kind)(*ops)
        out = ops[0] if ops[0] is not None else it.output(0)
        return _dname(it.common_dtype), tuple(out.stride()), tuple(out.shape), \
            _dname(out.dtype)

    rt, et, _ = _run(torch_side)
    rs, es, _ = _run(lambda: summary(strided, getattr(sti, kind)(*case(strided))))
    if et is not None:
        assert es is not None and type(es) is type(et) and str(es) == str(et), (es, et)
    else:
        assert es is None, es
        assert rs == rt


def test_tensor_iterator_coalesces_and_reorders():
    a = strided.ones(3, 4)
    it = sti.binary_op(None, a, a)
    assert it.iter_shape == [12] and it.element_strides(0) == (1,)
    t = strided.ones(4, 3).t()
    it = sti.binary_op(None, t, 1.5)
    assert it.output(0).stride() == (1, 3)
    assert it.iter_shape == [12]
    it = sti.binary_op(None, strided.ones(3, 1), strided.ones(1, 4))
    assert it.iter_shape == [4, 3] and it.element_strides(1) == (0, 1)


def test_tensor_iterator_arrays_cover_every_operand():
    a = strided.arange(6.0).view(2, 3)
    it = sti.binary_op(None, a.t(), 2)
    out, x, two = it.arrays()
    assert two == 2 and out.shape == x.shape
    np.copyto(out, x * 2)
    assert it.output(0).tolist() == [[0.0, 6.0], [2.0, 8.0], [4.0, 10.0]]


def test_version_counter_moves_on_writes():
    a, b = strided.ones(3), strided.ones(3)
    v = a._version
    a.add_(b)
    a.mul_(2)
    strided.add(b, b, out=a)
    assert a._version == v + 3
    assert b._version == 0


def test_numbers_as_tensors_lists_agree():
    """The generated bindings and ``strided.ops`` take numbers for the same functions."""
    import importlib.util
    import sys
    from pathlib import Path

    from strided.frontend import arg_parser
    path = Path(__file__).resolve().parents[2] / "tools" / "codegen" / "gen_bindings.py"
    spec = importlib.util.spec_from_file_location("_gen_bindings_for_test", path)
    gen = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = gen   # dataclasses look their module up
    try:
        spec.loader.exec_module(gen)
    finally:
        del sys.modules[spec.name]
    assert gen.NUMBERS_AS_TENSORS == arg_parser.NUMBERS_AS_TENSORS


@pytest.mark.parametrize("call", [
    lambda m: m.ops.aten.add.Tensor(m.ones(2, dtype=m.int32), 2.5),
    lambda m: m.ops.aten.mul.Tensor(m.ones(2, dtype=m.float16), 2.5),
])
def test_ops_namespace_wrapped_numbers(call):
    assert_close(call(strided), call(torch))
    with pytest.raises((TypeError, RuntimeError)):   # only torch's listed functions take them
        strided.ops.aten.view.default(2.0, [1])
