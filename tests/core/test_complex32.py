"""complex32 (``torch.complex32`` / ``torch.chalf``, torch's ComplexHalf) against torch 2.13.

Values are compared bit for bit: both libraries' complex32 tensors are read as their int16
pairs (``view_as_real(t).view(int16)``), so signed zeros, NaN payloads and every rounding
of a float16 part must be torch's.
"""

from __future__ import annotations

import io
import itertools
import pickle
import warnings

import numpy as np
import pytest
import torch
from conftest import DTYPE_NAMES, assert_same_error, check, hyp
from hypothesis import given
from hypothesis import strategies as st

import strided

# torch warns once per process when it first allocates a complex32 tensor: let both
# libraries spend that warning here, so the comparisons below see the same (none).
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    torch.empty(0, dtype=torch.chalf)
    strided.empty(0, dtype=strided.chalf)

ALL_NAMES = DTYPE_NAMES + ["complex32"]


def bits(t) -> np.ndarray:
    """A complex32 tensor's float16 parts as int16 bit patterns, shape (..., 2)."""
    if isinstance(t, torch.Tensor):
        return torch.view_as_real(t.detach().resolve_conj()).view(torch.int16).numpy().copy()
    return strided.view_as_real(t.detach()).view(strided.int16)._array().copy()


def same_values(s, t) -> None:
    """``same_bits`` but for NaN payloads (which parts are NaN must agree)."""
    bs, bt = bits(s), bits(t)
    nan_s, nan_t = (np.isnan(b.view(np.float16)) for b in (bs, bt))
    np.testing.assert_array_equal(nan_s, nan_t)
    np.testing.assert_array_equal(np.where(nan_s, 0, bs), np.where(nan_t, 0, bt))


def same_bits(s, t) -> None:
    assert str(s.dtype) == str(t.dtype), (s.dtype, t.dtype)
    assert tuple(s.shape) == tuple(t.shape) and s.stride() == t.stride()
    if t.dtype == torch.complex32:
        np.testing.assert_array_equal(bits(s), bits(t))
    elif t.dtype == torch.float16:
        np.testing.assert_array_equal(s.view(strided.int16)._array(),
                                      t.view(torch.int16).numpy())
    else:
        np.testing.assert_array_equal(s._array(), t.numpy())


def pair(values, shape=None):
    """The same complex32 tensor in both libraries, from float16 (real, imag) pairs."""
    h = np.asarray(values, np.float16).reshape(-1, 2)
    if shape is not None:
        h = h.reshape(tuple(shape) + (2,))
    t = torch.view_as_complex(torch.from_numpy(h.copy()))
    s = strided.view_as_complex(strided.from_numpy(h.copy()))
    return s, t


# float16 parts: any bit pattern (subnormals, near-overflow normals, signed zeros, inf, NaN),
# and a few values chosen for their rounding
_SPECIAL = np.array([0.0, -0.0, 1.0, -1.0, 65504.0, -65504.0, 6e-08, np.inf, -np.inf, 0.1,
                     1 / 3, 2048, 1e-3], np.float16)


def _halves_of(codes) -> np.ndarray:
    raw = np.array([c for c in codes if c >= 0], np.int64).astype(np.uint16).view(np.float16)
    out = np.array([_SPECIAL[-c - 1] if c < 0 else 0 for c in codes], np.float16)
    out[np.array(codes) >= 0] = raw
    return out


def parts(n):
    """2n float16 values, drawn as bit patterns (negative codes pick a special value)."""
    code = st.one_of(st.integers(0, 0xFFFF), st.integers(-len(_SPECIAL), -1))
    return st.lists(code, min_size=2 * n, max_size=2 * n).map(_halves_of)


# --------------------------------------------------------------------------- the dtype

def test_dtype_object():
    s, t = strided.complex32, torch.complex32
    assert strided.chalf is s and torch.chalf is t
    assert repr(s) == repr(t) == "torch.complex32" and str(s) == str(t)
    for attr in ("itemsize", "is_complex", "is_floating_point", "is_signed"):
        assert getattr(s, attr) == getattr(t, attr), attr
    assert s.to_real() is strided.float16 and strided.float16.to_complex() is s
    assert s.to_complex() is s
    assert pickle.loads(pickle.dumps(s)) is s
    assert repr(strided.finfo(s)) == repr(torch.finfo(t))
    check(lambda m: m.iinfo(m.complex32))


@pytest.mark.parametrize("name", ALL_NAMES)
def test_promote_types_with_every_dtype(name):
    check(lambda m: m.promote_types(m.complex32, getattr(m, name)))
    check(lambda m: m.promote_types(getattr(m, name), m.complex32))
    check(lambda m: m.can_cast(m.complex32, getattr(m, name)))
    check(lambda m: m.can_cast(getattr(m, name), m.complex32))


SCALARS = {"bool": True, "int": 3, "float": 2.5, "complex": 1.5 - 2j}


def _operand(m, kind, name, scalar):
    if kind == "tensor":
        return m.ones(2, dtype=getattr(m, name))
    if kind == "zerodim":
        return m.ones((), dtype=getattr(m, name))
    return SCALARS[scalar]


operand = st.tuples(st.sampled_from(["tensor", "zerodim", "scalar"]),
                    st.sampled_from(ALL_NAMES), st.sampled_from(list(SCALARS)))


@given(operand, operand)
@hyp(200)
def test_result_type_over_operand_kinds(a, b):
    """result_type, and the dtype ``add`` computes, for tensors, 0-dim tensors and Python
    scalars of every kind (one side complex32 or float16 most of the time)."""
    check(lambda m: m.result_type(_operand(m, *a), _operand(m, *b)))
    if not (a[0] == b[0] == "scalar"):
        check(lambda m: m.add(_operand(m, *a), _operand(m, *b)).dtype if a[0] != "scalar"
              else m.add(_operand(m, *b), _operand(m, *a)).dtype)


@pytest.mark.parametrize("a, b", [("float16", 1j), ("bfloat16", 1j), ("int32", 1j),
                                  ("bool", 2j), ("float32", 1j)])
def test_half_meets_a_complex_scalar(a, b):
    check(lambda m: (m.ones(3, dtype=getattr(m, a)) * b))
    check(lambda m: m.ones(3, dtype=getattr(m, a)) * m.tensor(b))


def test_default_float16_makes_complex_numbers_complex32(default_dtype):
    default_dtype("float16")
    check(lambda m: m.tensor([1j, 2]))
    check(lambda m: m.result_type(m.ones(2, dtype=m.int32), 1j))
    check(lambda m: m.full((2,), 1j).dtype)          # (full: the default complex dtype)
    check(lambda m: repr(m.ones(2, dtype=m.complex64)))
    default_dtype("bfloat16")
    check(lambda m: m.tensor(1j))


# --------------------------------------------------------------------------- arithmetic

BINARY = {
    "add": lambda m, a, b: a + b,
    "sub": lambda m, a, b: a - b,
    "mul": lambda m, a, b: a * b,
    "add_alpha": lambda m, a, b: m.add(a, b, alpha=3),
    "sub_alpha": lambda m, a, b: m.sub(a, b, alpha=0.3),
    "eq": lambda m, a, b: a == b,
    "ne": lambda m, a, b: a != b,
}
UNARY = {
    "neg": lambda m, a: -a,
    "abs": lambda m, a: a.abs(),
    "isnan": lambda m, a: a.isnan(),
    "isinf": lambda m, a: a.isinf(),
    "isfinite": lambda m, a: a.isfinite(),
    "isreal": lambda m, a: a.isreal(),
    "real": lambda m, a: a.real.clone(),
    "imag": lambda m, a: a.imag.clone(),
    "conj_physical": lambda m, a: a.conj_physical(),
    "to_complex64": lambda m, a: a.to(m.complex64),
    "to_float16": lambda m, a: a.to(m.float16),
    "to_int16": lambda m, a: a.to(m.int16),
    "to_bool": lambda m, a: a.bool(),
}


@given(parts(24), parts(24))
@hyp(40)
def test_binary_bits(x, y):
    (sa, ta), (sb, tb) = pair(x), pair(y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for f in BINARY.values():
            rs, rt = f(strided, sa, sb), f(torch, ta, tb)
            # (which NaN's payload a NaN result carries, when both operands hold one, is
            # the CPU's choice of operand order: NaN parts compare as NaN, the rest bit by bit)
            (same_values if rt.is_complex() else same_bits)(rs, rt)


@given(parts(24))
@hyp(40)
def test_unary_bits(x):
    s, t = pair(x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for f in UNARY.values():
            same_bits(f(strided, s), f(torch, t))
        # (sgn: torch's complex division picks NaN payloads its own way)
        same_values(s.sgn(), t.sgn())


@given(parts(8), st.sampled_from([2, -0.5, 0.1, 1.3 + 0.7j, 1e5, 1 / 3, True]))
@hyp(40)
def test_scalar_operands_round_to_complex32_first(x, c):
    s, t = pair(x)
    for f in (lambda a: a * c, lambda a: a + c, lambda a: c - a, lambda a: a == c,
              lambda a: a.mul_(c), lambda a: a.sub_(c)):
        try:
            rt = f(t.clone())
        except RuntimeError:           # (a bool subtracted)
            assert_same_error(lambda f=f: f(s.clone()), lambda f=f: f(t.clone()))
            continue
        same_bits(f(s.clone()), rt)


@given(parts(6), parts(6), parts(6), st.sampled_from([1, 0.3, 2 - 1j]))
@hyp(30)
def test_addcmul_rounds_after_each_operation(x, y, z, v):
    (sa, ta), (sb, tb), (sc, tc) = pair(x), pair(y), pair(z)
    # (NaN payloads aside: an inf * 0 inside the complex products makes the CPU's default NaN
    # in torch's operand order)
    same_values(strided.addcmul(sa, sb, sc, value=v), torch.addcmul(ta, tb, tc, value=v))


def test_mixed_dtypes():
    s, t = pair(np.linspace(-3, 3, 16), (2, 4))
    for other in ("float16", "int32", "bool", "float32", "bfloat16", "complex64"):
        check(lambda m, o=other: (s if m is strided else t) + m.ones(4, dtype=getattr(m, o)))
        check(lambda m, o=other: m.where((s if m is strided else t).real > 0,
                                         s if m is strided else t, m.ones(4, dtype=getattr(m, o))))
    check(lambda m: m.ones(3, dtype=m.float16).add_(m.tensor(1j, dtype=m.complex32)))
    check(lambda m: m.mul(m.ones(2), 1j, out=m.empty(0, dtype=m.complex32)))
    check(lambda m: m.abs(s if m is strided else t, out=m.empty(0, dtype=m.float32)))


# --------------------------------------------------------------------------- conversions

@pytest.mark.parametrize("name", ALL_NAMES)
def test_conversion_to_and_from_every_dtype(name):
    x = [1e5 + 3j, -7.25 + 1 / 3j, 1 / 3 - 0.1j, 0, -0.0 + 2j, 65519 + 1j, 1e-8 - 1e-8j,
         float("nan"), float("inf") - 1j]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        src_t = torch.tensor(x, dtype=torch.complex128)
        if not getattr(torch, name).is_complex:
            src_t = src_t.real.clone()
            if not getattr(torch, name).is_floating_point:
                src_t = torch.tensor([1, 0, 3, 200, -5, 7, 1, 0, 2])
        src_t = src_t.to(getattr(torch, name))
    src_s = strided.from_dlpack(src_t.clone()) if name not in ("bfloat16",) else \
        strided.tensor(src_t.float().tolist(), dtype=strided.bfloat16)
    same_bits(src_s.to(strided.complex32), src_t.to(torch.complex32))
    check(lambda m: (src_s if m is strided else src_t).to(m.complex32).to(getattr(m, name)),
          warns=False)


def test_float64_rounds_through_float32():
    """torch builds a float16 part from a float: a float64 rounds twice."""
    x = 1 + 2 ** -11 + 2 ** -40       # one ulp-half above a tie: direct rounding goes up
    check(lambda m: m.tensor([x], dtype=m.float64).to(m.complex32))
    check(lambda m: m.tensor([complex(x, -x)], dtype=m.complex32))
    check(lambda m: m.full((1,), complex(x, x), dtype=m.complex32))


# --------------------------------------------------------------------------- factories

FACTORIES = {
    "zeros": lambda m: m.zeros(2, 3, dtype=m.chalf),
    "ones": lambda m: m.ones(2, dtype=m.chalf),
    "full": lambda m: m.full((3,), 1.5 - 0.1j, dtype=m.chalf),
    "full_overflow": lambda m: m.full((2,), 1e6 + 1j, dtype=m.chalf),
    "tensor": lambda m: m.tensor([[1 + 2j, 3], [0.1j, -1]], dtype=m.chalf),
    "scalar_tensor": lambda m: m.scalar_tensor(1j, dtype=m.chalf),
    "empty_meta": lambda m: m.empty(2, 3, dtype=m.chalf, device="meta"),
    "zeros_like": lambda m: m.zeros_like(m.ones(2, dtype=m.chalf)),
    "ones_like": lambda m: m.ones_like(m.ones(2, dtype=m.float16), dtype=m.chalf),
    "full_like": lambda m: m.full_like(m.ones(2, dtype=m.chalf), 2j),
    "new_full": lambda m: m.ones(2, dtype=m.chalf).new_full((3,), -1j),
    "fill_": lambda m: m.zeros(3, dtype=m.chalf).fill_(0.3 + 0.7j),
    "zero_": lambda m: m.ones(3, dtype=m.chalf).zero_(),
    "complex": lambda m: m.complex(m.ones(2, dtype=m.half), m.zeros(2, dtype=m.half)),
    "view_as_complex": lambda m: m.view_as_complex(m.arange(8.0).half().view(2, 2, 2)),
    "Tensor.chalf": lambda m: m.arange(4.0).chalf(),
}


@pytest.mark.parametrize("name", list(FACTORIES))
def test_factories(name):
    check(FACTORIES[name])


@pytest.mark.parametrize("fn", ["randn", "rand"])
def test_random_streams_are_torchs(fn):
    def draw(m):
        m.manual_seed(5)
        a = getattr(m, fn)(7, dtype=m.chalf)
        b = getattr(m, fn + "_like")(a)
        c = m.empty(5, dtype=m.chalf).normal_(1, 2)
        d = m.empty(5, dtype=m.chalf).uniform_(-1, 2)
        return a, b, c, d
    for s, t in zip(draw(strided), draw(torch)):
        same_bits(s, t)


# --------------------------------------------------------------------------- views, layout

def test_views_share_storage_and_strides():
    s, t = pair(np.arange(24), (3, 4))
    for f in (lambda m, a: m.view_as_real(a), lambda m, a: a.real, lambda m, a: a.imag,
              lambda m, a: a.view(m.float16), lambda m, a: a.view(m.int32),
              lambda m, a: a.view(m.float32), lambda m, a: a.t(), lambda m, a: a[1:, ::2],
              lambda m, a: a.unfold(1, 2, 1), lambda m, a: m.view_as_complex(m.view_as_real(a))):
        rs, rt = f(strided, s), f(torch, t)
        assert rs.stride() == rt.stride() and rs.storage_offset() == rt.storage_offset()
        assert rs.untyped_storage().data_ptr() == s.untyped_storage().data_ptr()
        check(lambda m, f=f: f(m, s if m is strided else t))
    assert s.element_size() == 4 and s.untyped_storage().nbytes() == 48
    w = strided.view_as_real(s)
    w[0, 0, 1] = 7        # a write through the float16 view lands in the complex32 one
    assert s[0, 0].item() == 7j


def test_shape_and_indexing_ops():
    s, t = pair(np.linspace(-4, 4, 24), (3, 4))
    idx = [2, 0, 2]
    ops = [
        lambda m, a: m.cat([a, a.conj_physical()], 1),
        lambda m, a: m.stack([a, a]),
        lambda m, a: m.cat([a, m.ones(3, 4, dtype=m.float16)]),
        lambda m, a: a[m.tensor(idx)],
        lambda m, a: a[a.real > 0],
        lambda m, a: a.index_select(1, m.tensor([3, 0])),
        lambda m, a: a.masked_fill(a.imag < 0, 2 - 1j),
        lambda m, a: a.index_put((m.tensor(idx),), a[:1] * 3, accumulate=True),
        lambda m, a: a.index_add(0, m.tensor(idx), a, alpha=0.1),
        lambda m, a: a.index_copy(0, m.tensor([2, 0, 1]), a),
        lambda m, a: a.index_fill(1, m.tensor([1]), 0.5j),
        lambda m, a: a.roll(1, 0), lambda m, a: a.tril(), lambda m, a: a.repeat(2, 1),
        lambda m, a: a.repeat_interleave(2, 0), lambda m, a: a.nonzero(),
        lambda m, a: m.block_diag(a, a[:1]), lambda m, a: a.diag_embed(),
        lambda m, a: a.contiguous().t().contiguous(), lambda m, a: a.clone(),
        lambda m, a: m.nn.functional.pad(a, (1, 1)), lambda m, a: a.any(0),
        lambda m, a: a.all(), lambda m, a: a.count_nonzero(0), lambda m, a: a.var(0),
        lambda m, a: a.std(), lambda m, a: m.var_mean(a, 1), lambda m, a: m.isclose(a, a * 1.001),
        lambda m, a: m.allclose(a, a), lambda m, a: m.dist(a, a.conj_physical()),
        lambda m, a: a.norm(), lambda m, a: m.linalg.vector_norm(a, float("inf")),
        lambda m, a: m.linalg.matrix_norm(a), lambda m, a: a.unbind(1),
    ]
    for f in ops:
        check(lambda m, f=f: f(m, s if m is strided else t))


def test_index_put_accumulate_rounds_per_add_in_index_order():
    s, t = pair([1000, 0, 0.3, 0.1], (2,))
    v = [1e-1 + 0.7j] * 5 + [3.3 - 1j] * 3
    for acc in (True, False):
        same_bits(s.clone().index_put_((strided.tensor([0, 0, 1, 0, 0, 1, 1, 0]),),
                                       strided.tensor(v, dtype=strided.chalf), accumulate=acc),
                  t.clone().index_put_((torch.tensor([0, 0, 1, 0, 0, 1, 1, 0]),),
                                       torch.tensor(v, dtype=torch.chalf), accumulate=acc))


# --------------------------------------------------------------------------- Python side

def test_python_scalars_printing_and_numpy():
    s, t = pair([1, 2, -0.5, 0.25, 3, -1, 1e4, 0.001, float("nan"), 1, float("inf"), 0])
    assert repr(s).replace("strided", "torch") == repr(t)
    assert repr(s.view(2, 3) * 100) == repr(t.view(2, 3) * 100)
    assert repr(s[:0]) == repr(t[:0]) and repr(s[1]) == repr(t[1])
    assert s.tolist()[:4] == t.tolist()[:4]
    for f in (lambda a: a[0].item(), lambda a: complex(a[2]), lambda a: a[:1].tolist(),
              lambda a: float(a[1] * 0 + 2), lambda a: int(a[5]), lambda a: bool(a[5]),
              lambda a: a.type(), lambda a: a.numpy(), lambda a: a.numpy(force=True),
              lambda a: np.asarray(a), lambda a: float(a[0]), lambda a: a.is_complex()):
        check(lambda m, f=f: f(s if m is strided else t))


def test_save_load_and_dlpack_across_libraries():
    s, t = pair(np.linspace(-2, 2, 12), (2, 3))
    buf = io.BytesIO()
    strided.save({"x": s, "row": s[1]}, buf)
    loaded_t = torch.load(io.BytesIO(buf.getvalue()))
    same_bits(strided.from_dlpack(loaded_t["x"]), t)
    assert loaded_t["row"].storage_offset() == 3
    buf = io.BytesIO()
    torch.save({"x": t}, buf)
    same_bits(strided.load(io.BytesIO(buf.getvalue()))["x"], t)
    same_bits(strided.from_dlpack(t), t)
    same_bits(strided.from_dlpack(torch.from_dlpack(s)), t)
    assert torch.from_dlpack(s).data_ptr() == s.data_ptr()


def test_the_first_allocation_warns_once(monkeypatch):
    from strided.kernels import complex32 as c32
    monkeypatch.setattr(c32, "_WARNED", [False])      # as in a fresh process
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        strided.zeros(2, dtype=strided.chalf)
        strided.ones(1, dtype=strided.chalf) + 1
    assert [(w.category, str(w.message)) for w in caught] == [
        (UserWarning, "ComplexHalf support is experimental and many operators don't support "
                      "it yet.")]


# --------------------------------------------------------------------------- refusals

REFUSED = {
    "div": lambda m, a: a / a, "exp": lambda m, a: a.exp(), "sqrt": lambda m, a: a.sqrt(),
    "sin": lambda m, a: a.sin(), "exp2": lambda m, a: a.exp2(), "pow": lambda m, a: a ** 2,
    "reciprocal": lambda m, a: a.reciprocal(), "sigmoid": lambda m, a: a.sigmoid(),
    "logical_not": lambda m, a: a.logical_not(), "sum": lambda m, a: a.sum(),
    "sum_dim": lambda m, a: a.sum(0), "mean": lambda m, a: a.mean(), "prod": lambda m, a: a.prod(),
    "cumsum": lambda m, a: a.cumsum(0), "matmul_dot": lambda m, a: a[0] @ a[0],
    "matmul_mv": lambda m, a: a @ a[0], "mm": lambda m, a: a.mm(a.t()),
    "bmm": lambda m, a: a[None].bmm(a.t()[None]), "flip": lambda m, a: a.flip(1),
    "gather": lambda m, a: a.gather(0, m.zeros(1, 2, dtype=m.long)),
    "scatter_value": lambda m, a: a.scatter(0, m.zeros(1, 2, dtype=m.long), 1.0),
    "take": lambda m, a: a.take(m.tensor([0])), "equal": lambda m, a: m.equal(a, a),
    "masked_scatter": lambda m, a: a.masked_scatter(a.real > 0, a),
    "eye": lambda m, a: m.eye(2, dtype=m.chalf), "arange": lambda m, a: m.arange(3, dtype=m.chalf),
    "linspace": lambda m, a: m.linspace(0, 1, 3, dtype=m.chalf), "angle": lambda m, a: a.angle(),
    "lerp": lambda m, a: m.lerp(a, a, 0.5), "unique": lambda m, a: m.unique(a),
    "softmax": lambda m, a: m.softmax(a, 1), "log_softmax0": lambda m, a: m.log_softmax(a, 0),
    "amax": lambda m, a: a.amax(), "max": lambda m, a: a.max(), "max_dim": lambda m, a: a.max(0),
    "median": lambda m, a: a.median(), "flip_inner": lambda m, a: a.t().flip(0),
    "rot90_3": lambda m, a: a.t().rot90(3), "sort": lambda m, a: a.sort(),
    "fft": lambda m, a: m.fft.fft(a),
    "inv": lambda m, a: m.linalg.inv(a), "det": lambda m, a: m.linalg.det(a),
    "svd": lambda m, a: m.linalg.svd(a), "pinv": lambda m, a: m.linalg.pinv(a),
    "nan_to_num": lambda m, a: a.nan_to_num(), "clamp": lambda m, a: a.clamp(0),
    "dropout": lambda m, a: m.nn.functional.dropout(a), "bernoulli": lambda m, a: m.bernoulli(a),
    "random_": lambda m, a: a.clone().random_(), "rot90": lambda m, a: a.rot90(),
    "einsum": lambda m, a: m.einsum("ij->j", a), "addcdiv": lambda m, a: m.addcdiv(a, a, a),
}


@pytest.mark.parametrize("name", list(REFUSED))
def test_torchs_refusals(name):
    s, t = pair([1, 2, 3, 4, 5, 6, 7, 8], (2, 2))
    assert_same_error(lambda: REFUSED[name](strided, s), lambda: REFUSED[name](torch, t))


@pytest.mark.parametrize("name", ["sum", "flip", "det", "mm", "gather", "take", "mean",
                                  "angle", "eye", "inv"])
def test_refused_ops_on_empty_inputs(name):
    """torch's kernels return before their dtype dispatch for empty inputs (some)."""
    s, t = strided.ones(0, 0, dtype=strided.chalf), torch.ones(0, 0, dtype=torch.chalf)
    ops = {**REFUSED, "gather": lambda m, a: a.gather(0, m.zeros(0, 0, dtype=m.long)),
           "take": lambda m, a: a.take(m.zeros(0, dtype=m.long))}
    check(lambda m: ops[name](m, s if m is strided else t))


def test_meta_tensors_are_not_refused():
    check(lambda m: m.empty(2, 3, dtype=m.chalf, device="meta").sum(0))
    check(lambda m: m.empty(2, 3, dtype=m.chalf, device="meta").exp())


@pytest.mark.parametrize("a, b", list(itertools.product(["complex32"], ["uint16", "uint64"])))
def test_bare_unsigned_promotion_refused(a, b):
    check(lambda m: m.ones(2, dtype=getattr(m, a)) + m.ones(2, dtype=getattr(m, b)))
