"""The compressed sparse layouts CSR, CSC, BSR and BSC (issue 16), differential against
torch: constructors and their invariant checks, conversions between dense, COO and the four
compressed layouts, accessors, repr, elementwise ops, sums, transposes, products and the
gradients of sparse @ dense. Every recipe runs on both libraries (conftest.check)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from conftest import assert_same, check, hyp
from hypothesis import given
from hypothesis import strategies as st

import strided

pytestmark = pytest.mark.filterwarnings("ignore:Sparse CSR tensor support is in beta state")

ROW = ("sparse_csr", "sparse_bsr")


def comps(t):
    """Everything observable of a compressed tensor, for check() to compare."""
    m = strided if isinstance(t, strided.Tensor) else torch
    lay = t.layout
    if lay in (m.sparse_csr, m.sparse_bsr):
        ci, pi = t.crow_indices(), t.col_indices()
    else:
        ci, pi = t.ccol_indices(), t.row_indices()
    # members compared by value: torch's conversions leave some of them as views into
    # scratch buffers (a storage offset strided does not reproduce)
    return (str(lay), t.shape, t.dtype, t._nnz(), t.sparse_dim(), t.dense_dim(), ci.clone(),
            pi.clone(), t.values().detach().clone(), repr(t), t.is_sparse, t.is_sparse_csr,
            t.requires_grad)


def coo_comps(t):
    return (str(t.layout), t.shape, t.is_coalesced(), t._indices().clone(),
            t._values().clone(), t.sparse_dim(), t.dense_dim())


def _mat(m, dtype="float32", shape=(4, 6), seed=0, density=0.4):
    rng = np.random.default_rng(seed)
    a = rng.integers(-3, 4, shape) * (rng.random(shape) < density)
    if dtype == "bool":
        a = a != 0
    elif dtype.startswith("complex"):
        a = a + 1j * np.roll(a, 1, -1)
    return m.tensor(a.tolist(), dtype=getattr(m, dtype))


DTYPES = ["float32", "float64", "int64", "bool", "complex64"]


# ------------------------------------------------------------------ dense -> compressed

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout, blocksize", [("sparse_csr", None), ("sparse_csc", None),
                                               ("sparse_bsr", (2, 3)), ("sparse_bsc", (2, 2))])
def test_dense_to_compressed(dtype, layout, blocksize):
    def recipe(m):
        d = _mat(m, dtype)
        t = d.to_sparse(layout=getattr(m, layout), blocksize=blocksize)
        return comps(t) + (t.to_dense(),)
    check(recipe)


@pytest.mark.parametrize("fn", ["to_sparse_csr", "to_sparse_csc"])
def test_hybrid_batched_zero_nnz(fn):
    check(lambda m: comps(getattr(_mat(m, shape=(4, 3, 2), density=0.5), fn)(dense_dim=1)))
    check(lambda m: comps(getattr(_mat(m, shape=(2, 3, 4), density=1.0), fn)()))
    check(lambda m: comps(getattr(m.zeros(2, 3, 4), fn)()))          # batched, nnz 0
    check(lambda m: comps(getattr(m.zeros(0, 3), fn)()))
    check(lambda m: comps(getattr(m.zeros(2, 3, dtype=m.int64), fn)()))


def test_blocked_batched_and_hybrid():
    check(lambda m: comps(m.ones(2, 4, 4).to_sparse_bsr((2, 2))))
    check(lambda m: comps(_mat(m, shape=(4, 4, 3), density=0.3).to_sparse_bsc((2, 2), 1)))
    check(lambda m: comps(m.arange(16.).reshape(4, 4).to_sparse_bsr((4, 4))))


def test_dense_conversion_errors():
    check(lambda m: m.ones(2, 3, 4).to_sparse_csr(dense_dim=2))
    check(lambda m: m.ones(2, 3, 4).to_sparse_csc(dense_dim=-1))
    check(lambda m: m.ones(3).to_sparse_csr())
    check(lambda m: m.ones(3).to_sparse_csc())
    check(lambda m: m.ones(3).to_sparse_bsr((1, 1)))
    check(lambda m: m.ones(2, 4).to_sparse_bsr((1, 1, 1)))
    check(lambda m: m.ones(2, 4).to_sparse_bsr((0, 1)))
    check(lambda m: m.ones(2, 4).to_sparse_bsr((3, 2)))
    check(lambda m: m.ones(2, 3, 4).to_sparse_bsr((1, 2), dense_dim=1))
    check(lambda m: m.ones(2, 4).to_sparse(layout=m.sparse_bsr))
    check(lambda m: m.ones(2, 4).to_sparse(layout=m.sparse_csr, blocksize=(1, 1)))
    check(lambda m: m.tensor([[[1., 0], [0, 1]], [[1, 0], [0, 0]]]).to_sparse_csr())


# ------------------------------------------------------------------ between layouts

PAIRS = [("to_sparse_csr", ()), ("to_sparse_csc", ()), ("to_sparse_bsr", ((2, 2),)),
         ("to_sparse_bsc", ((2, 1),)), ("to_sparse", ()), ("to_dense", ())]


@pytest.mark.parametrize("src", [("to_sparse_csr", ()), ("to_sparse_csc", ()),
                                 ("to_sparse_bsr", ((2, 2),)), ("to_sparse_bsc", ((2, 2),)),
                                 ("to_sparse_bsr", ((1, 2),))])
@pytest.mark.parametrize("dst", PAIRS)
def test_compressed_to_compressed(src, dst):
    def recipe(m):
        t = getattr(_mat(m), src[0])(*src[1])
        r = getattr(t, dst[0])(*dst[1])
        if r.layout is m.strided:
            return r
        if r.layout is m.sparse_coo:
            return coo_comps(r)
        return comps(r)
    check(recipe)


def test_same_layout_returns_self_and_batched_refusals():
    check(lambda m: (lambda c: c.to_sparse_csr() is c)(_mat(m).to_sparse_csr()))
    check(lambda m: _mat(m).to_sparse_csr().to_sparse_csr(dense_dim=0))
    check(lambda m: _mat(m).to_sparse_csr().to_sparse_csc(dense_dim=0))
    check(lambda m: _mat(m).to_sparse_bsr((1, 2)).to_sparse_bsr((2, 2)))
    check(lambda m: _mat(m, shape=(2, 4, 4)).to_sparse_csr().to_sparse_bsr((2, 2)))
    check(lambda m: comps(_mat(m, shape=(2, 4, 4), density=1).to_sparse_csr().to_sparse_csc()))
    check(lambda m: _mat(m).to_sparse_csr().to_sparse(1))
    check(lambda m: comps(_mat(m, "int64").to_sparse_csr().to_sparse_bsr((2, 2))))


@pytest.mark.parametrize("dst", PAIRS[:4])
def test_coo_to_compressed(dst):
    def recipe(m):
        i = m.tensor([[0, 0, 1, 3, 0], [1, 1, 0, 2, 5]])
        v = m.tensor([1., 2, 3, 4, 5])
        coo = m.sparse_coo_tensor(i, v, (4, 6))          # uncoalesced: (0, 1) twice
        return comps(getattr(coo, dst[0])(*dst[1]))
    check(recipe)
    check(lambda m: comps(_mat(m, shape=(4, 4, 2)).to_sparse(2).to_sparse_csr()))
    check(lambda m: _mat(m, shape=(2, 4, 4)).to_sparse().to_sparse_csc())
    check(lambda m: _mat(m).to_sparse().to_sparse_csr(dense_dim=0))
    check(lambda m: _mat(m).to_sparse().to_sparse_bsr((3, 1)))


# ------------------------------------------------------------------ constructors

def test_constructors():
    check(lambda m: comps(m.sparse_csr_tensor([0, 2, 3], [0, 2, 1], [1., 2, 3], (2, 3))))
    check(lambda m: comps(m.sparse_csr_tensor([0, 2, 3], [0, 2, 1], [1, 2, 3])))
    check(lambda m: comps(m.sparse_csc_tensor([0, 1, 3], [1, 0, 1], [1., 2, 3], (2, 2))))
    check(lambda m: comps(m.sparse_bsr_tensor([0, 1, 2], [0, 1], m.ones(2, 2, 2), (4, 4))))
    check(lambda m: comps(m.sparse_bsc_tensor([0, 1, 2], [0, 1], m.ones(2, 2, 3))))
    check(lambda m: comps(m.sparse_compressed_tensor(
        m.tensor([0, 1, 2], dtype=m.int32), m.tensor([0, 1], dtype=m.int32), [1., 2],
        layout=m.sparse_csc)))
    check(lambda m: comps(m.sparse_csr_tensor([[0, 1], [0, 1]], [[0], [1]], [[1.], [2.]])))
    check(lambda m: comps(m.sparse_csr_tensor([0, 1], [0], [1], dtype=m.float64)))
    check(lambda m: comps(m.sparse_csr_tensor([0, 0], [], [], (1, 5), dtype=m.complex64)))
    check(lambda m: comps(m.sparse_csr_tensor([0, 1], [0], [True])))
    check(lambda m: comps(m.sparse_csr_tensor([0, 1], [0], [1.], requires_grad=True)))
    check(lambda m: comps(m.sparse_csr_tensor([0, 1, 3], [0, 0, 1], m.ones(3, 2),
                                              (2, 2, 2))))


BAD = [
    ([0, 1, 2], [0, 5], [1., 2], (2, 3)),
    ([0, 1, 2], [0, -1], [1., 2], (2, 3)),
    ([1, 1, 2], [0, 1], [1., 2], (2, 3)),
    ([0, 1, 3], [0, 1], [1., 2], (2, 3)),
    ([0, 2, 2], [1, 0], [1., 2], (2, 3)),
    ([0, 2, 2], [1, 1], [1., 2], (2, 3)),
    ([0, 2, 1, 2], [1, 1], [1., 2], (3, 3)),
    ([0, 1, 0, 2], [0, 1], [1., 2], (3, 3)),    # (a slice past nnz: torch reads garbage)
    ([0, 1, 2], [0, 1], [1., 2], (3, 3)),
    ([0, 1, 2], [0, 1], [1., 2, 3], (2, 3)),
    ([0, 1, 2], [0, 1], [1., 2], (2, 3, 4)),
    ([[0, 1, 2]], [0, 1], [1., 2], (2, 3)),
]


@pytest.mark.parametrize("args", BAD)
def test_invariant_errors(args):
    check(lambda m: m.sparse_csr_tensor(*args, check_invariants=True))
    # unchecked by default, as torch
    check(lambda m: m.sparse_csr_tensor(*args).shape)


def test_more_constructor_errors():
    def i32(m, x):
        return m.tensor(x, dtype=m.int32)
    check(lambda m: m.sparse_csr_tensor(i32(m, [0, 1, 2]), m.tensor([0, 1]), [1., 2],
                                        check_invariants=True))
    check(lambda m: m.sparse_csr_tensor(m.tensor([0, 1, 2], dtype=m.int16),
                                        m.tensor([0, 1], dtype=m.int16), [1., 2],
                                        check_invariants=True))
    check(lambda m: m.sparse_csr_tensor(m.tensor([0, 1, 2.]), m.tensor([0, 1.]), [1., 2]))
    check(lambda m: m.sparse_csr_tensor([], [], []))
    check(lambda m: m.sparse_csr_tensor(m.tensor(0), m.tensor(0), m.ones(2), (2, 2)).shape)
    check(lambda m: m.sparse_csr_tensor(m.tensor([0, 1, 2]), m.tensor([0, 1]),
                                        m.ones(2, 3), (2, 2), check_invariants=True))
    check(lambda m: m.sparse_csr_tensor(m.tensor([0, 1, 2, 4])[::2], m.tensor([0, 1]),
                                        m.ones(2), (1, 2), check_invariants=True))
    check(lambda m: m.sparse_csr_tensor(m.tensor([[0, 1, 2], [0, 1, 2]]),
                                        m.tensor([[0, 1], [0, 0]]), m.ones(3, 2), (2, 2, 2),
                                        check_invariants=True))
    check(lambda m: m.sparse_csr_tensor(m.tensor([0, 1, 2]), m.tensor([0, 1]),
                                        m.tensor([1., 2]).to_sparse(), (2, 2),
                                        check_invariants=True))
    check(lambda m: m.sparse_bsr_tensor([0, 1, 2], [0, 1], m.ones(2, 2, 2), (4, 5),
                                        check_invariants=True))
    check(lambda m: m.sparse_bsr_tensor([0, 1, 2], [0, 1], m.ones(2, 2), (4, 4),
                                        check_invariants=True))
    check(lambda m: m.sparse_csc_tensor([0, 2, 1], [1, 1], [1., 2], (2, 2),
                                        check_invariants=True))
    check(lambda m: m.sparse_csc_tensor([0, 3, 2], [1, 1], [1., 2], (2, 2),
                                        check_invariants=True))
    check(lambda m: m.sparse_csc_tensor(i32(m, [0, 1, 2]), i32(m, [0, 1]), [1., 2],
                                        (2, 2 ** 31), check_invariants=True))
    check(lambda m: m.sparse_csr_tensor([0, 1], [0], [1.], layout=m.sparse_csc))
    check(lambda m: m.sparse_compressed_tensor([0, 1], [0], [1.]))
    check(lambda m: m.sparse_compressed_tensor([0, 1], [0], [1.], layout=m.strided))
    check(lambda m: m.sparse_compressed_tensor([0, 1], [0], [1.], layout=m.sparse_coo))


def test_check_invariants_switch():
    def recipe(m):
        with m.sparse.check_sparse_tensor_invariants():
            return m.sparse_csr_tensor([0, 1, 2], [0, 5], [1., 2], (2, 3))
    check(recipe)


# ------------------------------------------------------------------ accessors and repr

def test_accessor_errors():
    check(lambda m: m.ones(2, 2).crow_indices())
    check(lambda m: m.ones(2, 2).to_sparse_csr().ccol_indices())
    check(lambda m: m.ones(2, 2).to_sparse_csr().row_indices())
    check(lambda m: m.ones(2, 2).to_sparse_csc().col_indices())
    check(lambda m: m.ones(2, 2).to_sparse().col_indices())
    check(lambda m: m.ones(2, 2).to_sparse_csr().to_dense(m.float64))


def test_repr_dtypes():
    for dtype in DTYPES + ["int32", "float16"]:
        check(lambda m, dtype=dtype: repr(_mat(m, dtype).to_sparse_csr()))
        check(lambda m, dtype=dtype: repr(_mat(m, dtype).to_sparse_bsc((2, 3))))
    check(lambda m: repr(m.zeros(2, 2, 3, dtype=m.int64).to_sparse_csr()))
    check(lambda m: str(m.zeros(0, 3).to_sparse_csc()))


# ------------------------------------------------------------------ elementwise and sums

def _pair(m, dtype="float32"):
    a = _mat(m, dtype, seed=1).to_sparse_csr()
    b = _mat(m, dtype, seed=2).to_sparse_csr()
    return a, b


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "int64", "bool"])
def test_binary(dtype):
    check(lambda m: comps(m.add(*_pair(m, dtype), alpha=2)))
    check(lambda m: comps(_pair(m, dtype)[0] * _pair(m, dtype)[1]))
    check(lambda m: comps(_pair(m, dtype)[0] * 3))
    check(lambda m: _pair(m, dtype)[0] + _mat(m, dtype))
    check(lambda m: _mat(m, dtype) + _pair(m, dtype)[0])
    check(lambda m: comps(_pair(m, dtype)[0] * _mat(m, dtype, seed=5)))


def test_binary_layouts_and_errors():
    check(lambda m: comps(_mat(m).to_sparse_bsr((2, 3)) + _mat(m, seed=4).to_sparse_bsr((2, 3))))
    check(lambda m: _mat(m).to_sparse_csc() + _mat(m).to_sparse_csc())
    check(lambda m: _mat(m).to_sparse_csr() + 1)
    check(lambda m: _mat(m).to_sparse_csr() + _mat(m, "float64").to_sparse_csr())
    check(lambda m: _mat(m).to_sparse_csr() + m.ones(6, 4).to_sparse_csr())
    check(lambda m: comps(_mat(m).to_sparse_csc() * 2))
    check(lambda m: comps((lambda c: c.mul_(2))(_mat(m).to_sparse_csr())))
    check(lambda m: comps((lambda c: c.add_(_mat(m, seed=3).to_sparse_csr()))(
        _mat(m).to_sparse_csr())))
    check(lambda m: comps((lambda c: c.zero_())(_mat(m).to_sparse_csr())))


UNARY = ["abs", "neg", "sgn", "sin", "sinh", "tan", "tanh", "asin", "asinh", "atan", "ceil",
         "floor", "round", "trunc", "frac", "expm1", "log1p", "sqrt", "erf", "rad2deg",
         "deg2rad", "sign", "relu", "isnan", "isinf", "signbit", "angle"]


@pytest.mark.parametrize("name", UNARY)
def test_unary(name):
    # transcendental functions: within an ulp of torch's vectorised loops
    check(lambda m: comps(getattr(_mat(m, "float64").to_sparse_csr(), name)()), exact=False)
    check(lambda m: comps(getattr(_mat(m, "float32").to_sparse_bsc((2, 3)), name)()),
          exact=False)


def test_unary_inplace_and_int():
    check(lambda m: comps((lambda c: c.neg_())(_mat(m).to_sparse_csr())))
    check(lambda m: comps(_mat(m, "int64").to_sparse_csr().abs()))
    check(lambda m: comps(_mat(m, "int64").to_sparse_csr().sin()), exact=False)
    check(lambda m: _mat(m, "bool").to_sparse_csr().neg())


def test_sum():
    check(lambda m: _mat(m).to_sparse_csr().sum())
    check(lambda m: _mat(m, "int64").to_sparse_csc().sum())
    check(lambda m: _mat(m, shape=(2, 3, 4)).to_sparse_csr().sum())
    check(lambda m: comps(_mat(m).to_sparse_csr().sum(1, keepdim=True)))
    check(lambda m: comps(_mat(m).to_sparse_csr().sum(0, keepdim=True)))
    check(lambda m: _mat(m).to_sparse_csr().sum(0))


# ------------------------------------------------------------------ shapes and copies

def test_transpose_clone_to():
    check(lambda m: comps(_mat(m).to_sparse_csr().t()))
    check(lambda m: comps(_mat(m).to_sparse_csc().transpose(1, 0)))
    check(lambda m: comps(_mat(m).to_sparse_bsr((2, 3)).t()))
    check(lambda m: comps(_mat(m).to_sparse_csr().transpose(0, 0)))
    check(lambda m: comps(m.ones(2, 3, 2, 2).to_sparse_csr().transpose(0, 1)))
    check(lambda m: m.ones(2, 2, 2).to_sparse_csr().transpose(0, 1))
    check(lambda m: m.ones(2, 2, 2).to_sparse_csr(dense_dim=1).transpose(1, 2))
    check(lambda m: m.ones(2, 2, 2).to_sparse_csr().t())
    check(lambda m: comps(_mat(m).to_sparse_csr().clone()))
    check(lambda m: comps(_mat(m).to_sparse_csr().detach()))
    check(lambda m: comps(_mat(m).to_sparse_csr().to(m.float64)))
    check(lambda m: comps(_mat(m).to_sparse_bsr((1, 2)).to(m.int64)))
    check(lambda m: comps(_mat(m).to_sparse_csr().double()))


def test_unsupported_op_is_the_dispatchers_error():
    with pytest.raises(NotImplementedError, match=r"Could not run 'aten::cumsum' with "
                                                  r"arguments from the 'SparseCsrCPU' backend"):
        strided.ones(2, 2).to_sparse_csr().cumsum(0)
    with pytest.raises(NotImplementedError, match="'SparseCsrCPU' backend"):
        strided.ones(2, 2).to_sparse_csr().flip(0)


def test_explicit_layout_flags():
    check(lambda m: [(t.is_sparse, t.is_sparse_csr, str(t.layout)) for t in
                     (_mat(m).to_sparse_csr(), _mat(m).to_sparse_csc(),
                      _mat(m).to_sparse_bsr((1, 1)), _mat(m).to_sparse_bsc((1, 1)))])


# ------------------------------------------------------------------ products

@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64"])
@pytest.mark.parametrize("layout", ["to_sparse_csr", "to_sparse_csc"])
def test_mm(dtype, layout):
    def a(m):
        return getattr(_mat(m, dtype), layout)()

    def b(m, shape=(6, 3)):
        return _mat(m, dtype, shape=shape, seed=7, density=1.0)
    check(lambda m: a(m) @ b(m), exact=False)
    check(lambda m: m.mm(a(m), b(m)), exact=False)
    check(lambda m: m.sparse.mm(a(m), b(m)), exact=False)
    check(lambda m: m.addmm(b(m, (4, 3)), a(m), b(m), beta=2, alpha=3), exact=False)
    check(lambda m: m.addmm(b(m, (3,)), a(m), b(m)), exact=False)
    check(lambda m: m.sparse.addmm(b(m, (4, 3)), a(m), b(m)), exact=False)
    check(lambda m: b(m, (3, 4)) @ a(m), exact=False)
    check(lambda m: a(m) @ b(m, (6,)), exact=False)
    check(lambda m: b(m, (4,)) @ a(m), exact=False)


def test_mm_errors_and_blocks():
    check(lambda m: _mat(m).to_sparse_csr() @ m.ones(3, 2))
    check(lambda m: _mat(m).to_sparse_csr() @ m.ones(6, 2, dtype=m.float64))
    check(lambda m: _mat(m, "int64").to_sparse_csr() @ m.ones(6, 2, dtype=m.int64))
    check(lambda m: m.sparse.mm(_mat(m, "bool").to_sparse_csr(), m.ones(6, 2, dtype=m.bool)))
    check(lambda m: _mat(m).to_sparse_csr().mm(m.ones(6)))
    check(lambda m: _mat(m).to_sparse_bsr((2, 3)) @ m.ones(6, 2))
    check(lambda m: _mat(m, shape=(4, 4)).to_sparse_bsr((2, 2)) @ m.ones(4, 2), exact=False)
    check(lambda m: _mat(m).to_sparse_bsc((2, 2)) @ m.ones(6, 2))
    check(lambda m: m.ones(2, 4) @ _mat(m).to_sparse_bsr((2, 2)))
    check(lambda m: m.addmm(m.ones(3, 3), _mat(m).to_sparse_csr(), m.ones(6, 2)))
    check(lambda m: m.addmm(_mat(m, shape=(4, 4)).to_sparse_csr(), _mat(m).to_sparse_csr(),
                            m.ones(6, 4)))


def test_large_product_matches_torch():
    rng = np.random.default_rng(0)
    a = (rng.random((300, 200)) * (rng.random((300, 200)) < 0.05)).astype(np.float32)
    b = rng.random((200, 16)).astype(np.float32)
    s = strided.tensor(a.tolist()).to_sparse_csr() @ strided.tensor(b.tolist())
    t = torch.tensor(a).to_sparse_csr() @ torch.tensor(b)
    assert_same(s, t, exact=False)


# ------------------------------------------------------------------ autograd

def test_sparse_mm_gradients():
    def recipe(m):
        d = _mat(m, "float64")
        c = d.to_sparse_csr().requires_grad_()
        b = _mat(m, "float64", shape=(6, 3), seed=3, density=1.0).requires_grad_()
        y = m.sparse.mm(c, b)
        y.sum().backward()
        return (type(y.grad_fn).__name__, comps(c.grad), b.grad)
    check(recipe, exact=False)


def test_constructor_and_to_dense_gradients():
    def ctor(m):
        v = m.tensor([1., 2, 3], dtype=m.float64, requires_grad=True)
        c = m.sparse_csr_tensor([0, 1, 3], [1, 0, 2], v, (2, 4))
        y = c @ m.arange(8., dtype=m.float64).reshape(4, 2)
        y.sum().backward()
        return type(c.grad_fn).__name__, type(y.grad_fn).__name__, v.grad
    check(ctor)

    def dense(m):
        d = _mat(m, "float64").requires_grad_()
        c = d.to_sparse_csr()
        y = c.to_dense()
        (y * m.arange(24., dtype=m.float64).reshape(4, 6)).sum().backward()
        return type(c.grad_fn).__name__, type(y.grad_fn).__name__, d.grad
    check(dense)

    def leaf(m):
        c = _mat(m, "float64").to_sparse_csr().requires_grad_()
        (c.to_dense() * m.arange(24., dtype=m.float64).reshape(4, 6)).sum().backward()
        return comps(c.grad)
    check(leaf)

    def nosize(m):
        v = m.tensor([1., 2, 3], requires_grad=True)
        return repr(m.sparse_csr_tensor([0, 1, 3], [1, 0, 2], v).grad_fn).split()[0]
    check(nosize)


# ------------------------------------------------------------------ save / load / pickle

MAKERS = [lambda m: _mat(m).to_sparse_csr(), lambda m: _mat(m, "int64").to_sparse_csc(),
          lambda m: _mat(m, "complex64").to_sparse_bsr((2, 3)),
          lambda m: m.ones(2, 4, 4, dtype=m.float64).to_sparse_bsc((2, 2)),
          lambda m: m.zeros(3, 3).to_sparse_csr()]


@pytest.mark.parametrize("make", MAKERS)
def test_save_load_pickle_across_libraries(make):
    import io
    import pickle
    buf = io.BytesIO()
    strided.save(make(strided), buf)
    buf.seek(0)
    loaded = torch.load(buf)
    check(lambda m: comps(loaded if m is torch else strided.load(_saved_by_torch(make))))
    check(lambda m: comps(pickle.loads(pickle.dumps(make(m)))))


def _saved_by_torch(make):
    import io
    buf = io.BytesIO()
    torch.save(make(torch), buf)
    buf.seek(0)
    return buf


# ------------------------------------------------------------------ select, refused layouts

def test_select():
    check(lambda m: coo_comps(_mat(m).to_sparse_csr().select(0, 1)))
    check(lambda m: coo_comps(_mat(m).to_sparse_csr()[2]))
    check(lambda m: coo_comps(_mat(m).to_sparse_csc().select(1, -1)))
    check(lambda m: coo_comps(_mat(m, shape=(4, 4)).to_sparse_bsr((2, 2)).select(0, 3)))
    check(lambda m: comps(_mat(m, shape=(3, 4, 4)).to_sparse_csr().select(0, 1)))
    check(lambda m: comps(m.ones(2, 3, 2).to_sparse_csr(dense_dim=1).select(2, 1)))
    check(lambda m: _mat(m).to_sparse_csr().select(0, 5))
    check(lambda m: _mat(m).to_sparse_csr().select(2, 0))


@pytest.mark.parametrize("op", [lambda c: c.exp(), lambda c: c - c, lambda c: c / 2,
                                lambda c: c == c, lambda c: c ** 2, lambda c: c.sigmoid_(),
                                lambda c: torch.maximum(c, c) if isinstance(c, torch.Tensor)
                                else strided.maximum(c, c)])
def test_tensor_iterator_ops_refuse_compressed_operands(op):
    check(lambda m: op(_mat(m).to_sparse_csr()))
    check(lambda m: op(_mat(m).to_sparse_bsc((2, 3))))


def test_factories_with_a_compressed_layout():
    check(lambda m: comps(m.zeros(2, 3, layout=m.sparse_csr)))
    check(lambda m: comps(m.zeros(2, 2, 3, layout=m.sparse_csc, dtype=m.int32)))
    check(lambda m: m.zeros(3, layout=m.sparse_csr))
    check(lambda m: m.zeros(2, 3, layout=m.sparse_bsr))
    check(lambda m: m.empty(2, 3, layout=m.sparse_bsc))
    check(lambda m: m.zeros(-1, 3, layout=m.sparse_csr))
    check(lambda m: m.empty(2, 3, layout=m.sparse_csr).shape)


@pytest.mark.parametrize("needs", [(True, False), (False, True), (True, True)])
def test_mm_and_addmm_gradients(needs):
    def recipe(m, how):
        c = _mat(m, "float64").to_sparse_csr().requires_grad_(needs[0])
        b = _mat(m, "float64", shape=(6, 3), seed=3, density=1.0).requires_grad_(needs[1])
        if how == "mm":
            y = c @ b
        elif how == "rmm":
            y = b.t() @ c.t()
        else:
            y = m.addmm(m.ones(4, 3, dtype=m.float64), c, b, beta=2, alpha=3)
        (y * m.arange(float(y.numel()), dtype=m.float64).reshape(y.shape)).sum().backward()
        # (torch lays the sparse leaf's dense gradient out column-major: values compared)
        return (type(y.grad_fn).__name__, None if c.grad is None else c.grad.contiguous(),
                b.grad)
    for how in ("mm", "rmm", "addmm"):
        check(lambda m, how=how: recipe(m, how), exact=False)


def test_int32_indices_survive_as_torch():
    def c32(m):
        i32 = lambda x: m.tensor(x, dtype=m.int32)  # noqa: E731
        return m.sparse_csr_tensor(i32([0, 2, 3]), i32([0, 2, 1]), m.tensor([1., 2, 3]), (2, 3))
    check(lambda m: comps(c32(m).to_sparse_csc()))
    check(lambda m: comps(c32(m).to_sparse_bsr((1, 1))))
    check(lambda m: comps(c32(m) + c32(m)))
    check(lambda m: comps(c32(m) * c32(m)))
    check(lambda m: comps(c32(m).t()))
    check(lambda m: comps(c32(m).sum(1, keepdim=True)))
    check(lambda m: coo_comps(c32(m).to_sparse()))
    check(lambda m: c32(m) @ m.ones(3, 2))
    check(lambda m: m.sparse.sum(c32(m)))


def test_values_gradient():
    def recipe(m):
        d = _mat(m, "float64").to_sparse_csr().requires_grad_()
        v = d.values()
        (v * m.arange(float(v.numel()), dtype=m.float64)).sum().backward()
        return type(v.grad_fn).__name__, comps(d.grad)
    check(recipe)


# ------------------------------------------------------------------ random shapes

@hyp(40)
@given(batch=st.lists(st.integers(1, 3), max_size=1), rows=st.integers(0, 3),
       cols=st.integers(0, 3), bh=st.integers(1, 2), bw=st.integers(1, 2),
       dense=st.lists(st.integers(1, 2), max_size=1), layout=st.sampled_from(
           ["sparse_csr", "sparse_csc", "sparse_bsr", "sparse_bsc"]),
       seed=st.integers(0, 50))
def test_random_round_trips(batch, rows, cols, bh, bw, dense, layout, seed):
    shape = tuple(batch) + (rows * bh, cols * bw) + tuple(dense)
    blocksize = (bh, bw) if layout in ("sparse_bsr", "sparse_bsc") else None

    def recipe(m):
        d = _mat(m, shape=shape, seed=seed, density=0.5) if 0 not in shape else m.zeros(shape)
        # batches must hold the same nnz: make every batch the first one
        if batch:
            d = d[:1].expand(shape).clone()
        t = d.to_sparse(layout=getattr(m, layout), blocksize=blocksize, dense_dim=len(dense))
        out = comps(t) + (t.to_dense(),)
        if not dense and not batch:
            out += (comps(t.to_sparse_csr() if layout in ("sparse_csr", "sparse_csc")
                          else t.to_sparse_bsr(blocksize)),)
        return out
    check(recipe)


def test_sparse_sparse_products():
    check(lambda m: comps(_mat(m).to_sparse_csr() @ _mat(m, shape=(6, 4), seed=2)
                          .to_sparse_csr()))
    check(lambda m: comps(m.mm(_mat(m).to_sparse_csr(), m.zeros(6, 2).to_sparse_csr())))


def test_meta_compressed_tensors():
    def meta(m):
        return m.sparse_csr_tensor([0, 1, 2], [0, 1], [1., 2], (2, 2), device="meta")

    def shape_of(r):
        return (str(r.layout), r.shape, r.dtype, str(r.device), repr(r))
    for op in (lambda c: c.t(), lambda c: c.clone(), lambda c: c.detach(), lambda c: c.sin(),
               lambda c: -c, lambda c: c.to(c.values().dtype), lambda c: c * 2,
               lambda c: c + c, lambda c: c.to_dense(), lambda c: c.sum(),
               lambda c: c.values()):
        check(lambda m, op=op: shape_of(op(meta(m))))
    check(lambda m: meta(m)._nnz())


@pytest.mark.parametrize("which", ["sparse_left", "sparse_right", "addmm"])
def test_torch_sparse_mm_gradients_both_sides(which):
    def recipe(m):
        c = _mat(m, "float64").to_sparse_csr().requires_grad_()
        if which == "sparse_left":
            b = _mat(m, "float64", shape=(6, 3), seed=3, density=1.0).requires_grad_()
            y = m.sparse.mm(c, b)
        elif which == "sparse_right":
            b = _mat(m, "float64", shape=(3, 4), seed=3, density=1.0).requires_grad_()
            y = m.sparse.mm(b, c)
        else:
            b = _mat(m, "float64", shape=(6, 3), seed=3, density=1.0).requires_grad_()
            y = m.sparse.addmm(m.ones(4, 3, dtype=m.float64), c, b, beta=0.5, alpha=2.0)
        (y * m.arange(float(y.numel()), dtype=m.float64).reshape(y.shape)).sum().backward()
        return type(y.grad_fn).__name__, comps(c.grad), b.grad
    check(recipe, exact=False)


OPS_WITH_GRAD = {
    "relu": lambda m, c: c.relu().to_dense().sum(),
    "relu_dense_grad": lambda m, c: c.relu().sum(),
    "neg": lambda m, c: (-c).to_dense().sum(),
    "mul": lambda m, c: (c * 2).to_dense().sum(),
    "add": lambda m, c: (c + c).to_dense().sum(),
    "sin": lambda m, c: c.sin().to_dense().sum(),
    "abs": lambda m, c: c.abs().to_dense().sum(),
    "sum": lambda m, c: c.sum(),
    "t": lambda m, c: c.t().to_dense().sum(),
    "clone": lambda m, c: c.clone().to_dense().sum(),
    "to": lambda m, c: c.to(m.float32).to_dense().sum(),
    "csc": lambda m, c: c.to_sparse_csc().to_dense().sum(),
    "coo": lambda m, c: c.to_sparse().to_dense().sum(),
    "mul_dense": lambda m, c: (c * m.ones(2, 3, dtype=m.float64)).to_dense().sum(),
    "dense_add": lambda m, c: (m.ones(2, 3, dtype=m.float64) + c).sum(),
}


@pytest.mark.parametrize("name", sorted(OPS_WITH_GRAD))
def test_gradients_through_elementwise_ops(name):
    def recipe(m):
        c = m.tensor([[0, 1., 0], [2, 0, -3]], dtype=m.float64).to_sparse_csr()
        c.requires_grad_()
        y = OPS_WITH_GRAD[name](m, c)
        y.backward()
        g = c.grad
        return type(y.grad_fn).__name__, str(g.layout), g.to_dense()
    check(recipe)


def test_like_fill_copy():
    check(lambda m: comps(m.zeros_like(_mat(m).to_sparse_csr())))
    check(lambda m: comps(m.zeros_like(_mat(m).to_sparse_csc(), dtype=m.float64)))
    check(lambda m: comps(m.ones_like(_mat(m).to_sparse_csr())))
    check(lambda m: m.empty_like(_mat(m).to_sparse_csr()).shape)
    check(lambda m: m.empty_like(_mat(m).to_sparse_csr(), layout=m.strided))
    check(lambda m: comps(_mat(m).to_sparse_csr().fill_(2)))
    check(lambda m: comps((lambda c: c.copy_(c * 3))(_mat(m).to_sparse_csr())))
    check(lambda m: _mat(m).to_sparse_csr().copy_(m.ones(4, 6).to_sparse_csr()))
    check(lambda m: _mat(m).to_sparse_csr().copy_(_mat(m).to_sparse_csc()))
    check(lambda m: _mat(m).to_sparse_csr().copy_(m.ones(4, 6)))
    check(lambda m: m.zeros(4, 6).copy_(_mat(m).to_sparse_csr()))


@pytest.mark.parametrize("op", [lambda c: c.reshape(6), lambda c: c.narrow(0, 0, 1),
                                lambda c: c.squeeze(), lambda c: c.squeeze(0),
                                lambda c: c.expand(2, 3), lambda c: c.flatten(),
                                lambda c: c.unsqueeze(0), lambda c: c.narrow_copy(0, 0, 1),
                                lambda c: c.is_coalesced(), lambda c: c.indices(),
                                lambda c: c.nbytes, lambda c: c.coalesce()])
def test_metadata_refusals_and_nbytes(op):
    check(lambda m: op(m.tensor([[0, 1., 0], [2, 0, -3]]).to_sparse_csr()))
    check(lambda m: op(m.ones(2, 3).to_sparse_bsc((1, 3))))


def test_addmv():
    def c(m):
        return m.tensor([[0, 1., 0], [2, 0, -3]]).to_sparse_csr()
    check(lambda m: m.addmv(m.ones(2), c(m), m.ones(3), beta=2, alpha=3))
    check(lambda m: m.addmv(m.ones(1), c(m), m.ones(3)))
    check(lambda m: m.addmv(m.ones(2), c(m).to_sparse_csc(), m.ones(3), beta=0))
    check(lambda m: m.addmv(m.ones(3), c(m), m.ones(3)))
    check(lambda m: m.addmv(m.ones(2), c(m), m.ones(4)))
    check(lambda m: m.addmv(m.ones(2), c(m), m.ones(3, dtype=m.int64)))


def test_new_factories():
    check(lambda m: comps(_mat(m).to_sparse_csr().new_zeros(2, 2)))
    check(lambda m: comps(_mat(m).to_sparse_csc().new_zeros((3, 2), dtype=m.float64)))
    check(lambda m: _mat(m).to_sparse_csr().new_empty(2, 2).shape)
    check(lambda m: _mat(m).to_sparse_csr().new_zeros(3))


def test_sum_dim_refusals():
    check(lambda m: _mat(m).to_sparse_csc().sum(0, keepdim=True))
    check(lambda m: _mat(m).to_sparse_bsr((2, 3)).sum(1, keepdim=True))
    check(lambda m: m.ones(2, 2, 3).to_sparse_csr().sum(1, keepdim=True))
    check(lambda m: comps(_mat(m).to_sparse_csr().sum((0, 1), keepdim=True)))
    check(lambda m: comps(_mat(m).to_sparse_csr().sum(-1, keepdim=True, dtype=m.float64)))


@pytest.mark.parametrize("op", [
    lambda m, c: c * m.ones(3), lambda m, c: m.ones(3) * c, lambda m, c: c.int().mul_(2.5),
    lambda m, c: comps(c.int().mul_(2)), lambda m, c: c.add_(m.ones(2, 3)),
    lambda m, c: c.int().add_(c), lambda m, c: comps(c.add_(c)), lambda m, c: c.add_(1),
    lambda m, c: c.add_(m.tensor(1.)), lambda m, c: c.add_(c.double()),
    lambda m, c: c + c.double(), lambda m, c: comps(c * m.ones(2, 3, dtype=m.float64))])
def test_binary_dtype_and_inplace_rules(op):
    check(lambda m: op(m, m.tensor([[0, 1., 0], [2, 0, -3]]).to_sparse_csr()))


@pytest.mark.parametrize("call", [
    lambda m: m.sparse_csr_tensor([0, 1], [0]),
    lambda m: m.sparse_compressed_tensor([0, 1], [0]),
    lambda m: m.sparse_csr_tensor([0, 1], [0], [1.], size=3),
    lambda m: m.sparse_csr_tensor([0, 1], [0], [1], requires_grad=True),
    lambda m: m.sparse_csr_tensor([0, 1], [0], [1.], (1, 1), m.float64),
    lambda m: m.sparse_csc_tensor([0, 1], [0], [1.], foo=1),
    lambda m: comps(m.sparse_csr_tensor(crow_indices=[0, 1], col_indices=[0], values=[1.],
                                        size=(1, 3))),
    lambda m: comps(m.sparse_bsc_tensor([0, 1], [0], [[[1.]]], (1, 1), dtype=m.float64,
                                        requires_grad=True)),
    lambda m: m.sparse_csr_tensor("a", [0], [1.]),
])
def test_constructor_argument_parsing(call):
    check(call)


@pytest.mark.parametrize("name", ["sparse_csr_tensor", "sparse_csc_tensor", "sparse_bsr_tensor",
                                  "sparse_bsc_tensor", "sparse_compressed_tensor"])
def test_signature_is_torchs_documented_one(name):
    import inspect
    doc_line = getattr(torch, name).__doc__.strip().splitlines()[0]
    assert doc_line == f"{name}{inspect.signature(getattr(strided, name))} -> Tensor"


@pytest.mark.parametrize("layout", ["csr", "csc", "bsr"])
@pytest.mark.parametrize("how", ["mm", "sparse.mm", "addmm"])
def test_product_gradients_per_layout(layout, how):
    def recipe(m):
        d = m.tensor([[0, 1., 0, 2], [3, 0, -3, 0]], dtype=m.float64)
        c = (d.to_sparse_bsr((2, 2)) if layout == "bsr" else
             getattr(d, f"to_sparse_{layout}")()).requires_grad_()
        b = m.arange(12., dtype=m.float64).reshape(4, 3).requires_grad_()
        y = (c @ b if how == "mm" else m.sparse.mm(c, b) if how == "sparse.mm" else
             m.addmm(m.zeros(2, 3, dtype=m.float64), c, b))
        y.sum().backward()
        g = c.grad
        return (type(y.grad_fn).__name__, str(g.layout),
                g.to_dense() if g.layout is not m.strided else g.contiguous(), b.grad)
    check(recipe)


def test_csr_matmul_without_scipy_agrees_with_torch(monkeypatch):
    """SciPy is optional: without it CSR @ dense runs on a whole-array NumPy formulation."""
    import sys

    import torch

    import strided
    monkeypatch.setitem(sys.modules, "scipy.sparse._sparsetools", None)   # import fails
    g = torch.Generator().manual_seed(3)
    a = torch.randn(30, 20, generator=g)
    a[a.abs() < 1] = 0
    a[4] = 0                                   # an empty row
    d = torch.randn(20, 5, generator=g)
    got = strided.tensor(a.numpy()).to_sparse_csr() @ strided.tensor(d.numpy())
    np.testing.assert_allclose(got.numpy(), (a.to_sparse_csr() @ d).numpy(), rtol=1e-5,
                               atol=1e-5)
