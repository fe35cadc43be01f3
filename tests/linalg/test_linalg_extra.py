# ruff: noqa: B023
"""The rest of torch's linear algebra (issue 14) against torch: addr, cdist, dist, the
Cholesky / triangular / LU families, ormqr, chain_matmul, linalg.vecdot, linalg.diagonal,
linalg.cond, tensorinv, tensorsolve, vander, the LDL family, svd_lowrank / pca_lowrank:
values, dtypes, shapes and strides, batched inputs, float64 gradients and grad_fn names,
meta shapes, out= and in-place forms, and torch's errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import strided
from tests.autograd.grad_harness import check_grads

RNG = np.random.default_rng(14)
FLOATS = ["float32", "float64", "complex64", "complex128"]
TOL = {"float32": 2e-4, "float64": 1e-10, "complex64": 2e-4, "complex128": 1e-10}

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def _arr(shape, dtype="float64", seed=None):
    rng = RNG if seed is None else np.random.default_rng(seed)
    a = rng.standard_normal(shape)
    if dtype.startswith("complex"):
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(dtype)


def _spd(shape, dtype="float64"):
    a = _arr(shape, dtype)
    n = shape[-1]
    return a @ np.swapaxes(a, -1, -2).conj() + n * np.eye(n, dtype=dtype)


def _tri(shape, dtype="float64", upper=False):
    a = _arr(shape, dtype)
    a = np.triu(a) if upper else np.tril(a)
    n = shape[-1]
    return a + 3 * np.eye(n, dtype=dtype)       # well conditioned


def _both(arr):
    return strided.from_numpy(arr.copy()), torch.from_numpy(arr.copy())


def _compare(rs, rt, rtol, atol, what="result"):
    if isinstance(rt, torch.Tensor):
        assert isinstance(rs, strided.Tensor), (what, type(rs))
        assert tuple(rs.shape) == tuple(rt.shape), (what, rs.shape, rt.shape)
        assert str(rs.dtype) == str(rt.dtype), (what, rs.dtype, rt.dtype)
        if rt.numel() > 1:
            assert rs.stride() == rt.stride(), (what, rs.stride(), rt.stride())
        np.testing.assert_allclose(rs.detach().numpy(), rt.detach().resolve_conj().numpy(),
                                   rtol=rtol,
                                   atol=atol, err_msg=what)
    elif isinstance(rt, (tuple, list)):
        assert len(rs) == len(rt), what
        assert type(rs).__name__ == type(rt).__name__, (type(rs), type(rt))
        for i, (a, b) in enumerate(zip(rs, rt)):
            _compare(a, b, rtol, atol, f"{what}[{i}]")
    else:
        assert rs == rt or np.isclose(rs, rt, rtol=rtol, atol=atol), (what, rs, rt)


def run(fn, *arrs, tol=None, dtype=None):
    """``fn(m, *tensors)`` in both libraries on the same values; results within ``tol``."""
    dtype = dtype or str(arrs[0].dtype)
    tol = TOL.get(dtype, 1e-10) if tol is None else tol
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ts = [torch.from_numpy(a.copy()) if isinstance(a, np.ndarray) else a for a in arrs]
        ss = [strided.from_numpy(a.copy()) if isinstance(a, np.ndarray) else a for a in arrs]
        rt = fn(torch, *ts)
        rs = fn(strided, *ss)
    _compare(rs, rt, tol, tol)
    return rs, rt


def _outcome(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return fn(), None
        except Exception as e:  # noqa: BLE001 - compared below
            return None, e


def check(recipe, tol=1e-6, **_):
    """``recipe(m)`` in both libraries: the same results (within ``tol``), or the same
    exception (class name, as torch's LinAlgError is its own class) and message."""
    rt, et = _outcome(lambda: recipe(torch))
    rs, es = _outcome(lambda: recipe(strided))
    if et is not None:
        assert es is not None, f"strided did not raise; torch raised {type(et).__name__}: {et}"
        assert type(es).__name__ == type(et).__name__, (type(es), es, type(et), et)
        assert str(es) == str(et), f"message differs:\nstrided: {es}\ntorch:   {et}"
        return
    if es is not None:
        raise AssertionError(f"strided raised {type(es).__name__}: {es}") from es
    _compare(rs, rt, tol, tol)


def err(fn, *arrs):
    """Both raise the same exception type and message."""
    check(lambda m: fn(m, *[m.from_numpy(a.copy()) if isinstance(a, np.ndarray) else a
                            for a in arrs]))


def grads(program, *arrs, rtol=1e-7, atol=1e-9):
    check_grads(program, None, values=list(arrs), rtol=rtol, atol=atol)


def grad_fn_name(fn, *arrs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rt = fn(torch, *[torch.from_numpy(a.copy()).requires_grad_() for a in arrs])
        rs = fn(strided, *[strided.from_numpy(a.copy()).requires_grad_() for a in arrs])
    assert rs.grad_fn.name() == type(rt.grad_fn).__name__, (rs.grad_fn.name(), rt.grad_fn)


def meta_same(fn, *shapes_dtypes):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rt = fn(torch, *[torch.empty(s, dtype=getattr(torch, d), device="meta")
                         for s, d in shapes_dtypes])
        rs = fn(strided, *[strided.empty(s, dtype=getattr(strided, d), device="meta")
                           for s, d in shapes_dtypes])
    rt = rt if isinstance(rt, tuple) else (rt,)
    rs = rs if isinstance(rs, tuple) else (rs,)
    for a, b in zip(rs, rt):
        assert a.device.type == "meta"
        assert tuple(a.shape) == tuple(b.shape) and str(a.dtype) == str(b.dtype)


# -- addr -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128", "int64"])
def test_addr_values(dtype):
    if dtype == "int64":
        m_, v1, v2 = (RNG.integers(-5, 5, s) for s in ((3, 4), (3,), (4,)))
    else:
        m_, v1, v2 = _arr((3, 4), dtype), _arr((3,), dtype), _arr((4,), dtype)
    run(lambda m, a, b, c: m.addr(a, b, c), m_, v1, v2, tol=1e-5)
    run(lambda m, a, b, c: m.addr(a, b, c, beta=2, alpha=3), m_, v1, v2, tol=1e-5)
    run(lambda m, a, b, c: m.addr(a.t().contiguous().t(), b, c, beta=0), m_, v1, v2, tol=1e-5)
    run(lambda m, a, b, c: a.clone().addr_(b, c, alpha=2), m_, v1, v2, tol=1e-5)
    run(lambda m, a, b, c: m.addr(a[0], b, c), m_, v1, v2, tol=1e-5)      # broadcast self
    run(lambda m, a, b, c: m.addr(a, b, c, out=m.empty(0, dtype=a.dtype)), m_, v1, v2,
        tol=1e-5)


def test_addr_bool_and_promotion():
    check(lambda m: m.addr(m.tensor([[True, False]]), m.tensor([True]), m.tensor([False, True]),
                           beta=0))
    check(lambda m: m.addr(m.zeros(2, 3, dtype=m.int64), m.ones(2, dtype=m.int64), m.ones(3)))
    check(lambda m: m.addr(m.zeros(2, 3, dtype=m.int64), m.ones(2, dtype=m.int64),
                           m.ones(3, dtype=m.int64), beta=0.5))
    check(lambda m: m.addr(m.zeros(2, 3), m.zeros(2, 2), m.zeros(3)))
    check(lambda m: m.addr(m.zeros(2, 3), m.zeros(2), m.zeros(3, 1)))
    check(lambda m: m.addr(m.zeros(2, 4), m.zeros(2), m.zeros(3)))
    check(lambda m: m.zeros(3).addr_(m.zeros(2), m.zeros(3)))
    check(lambda m: m.zeros(2, 3, dtype=m.int64).addr_(m.zeros(2), m.zeros(3)))


def test_addr_grad():
    grads(lambda m, a, b, c: m.addr(a, b, c, beta=2, alpha=-1.5), _arr((3, 4)), _arr(3),
          _arr(4))
    grads(lambda m, a, b, c: m.addr(a, b, c), _arr((4,)), _arr(3), _arr(4))
    grad_fn_name(lambda m, a, b, c: m.addr(a, b, c), _arr((3, 4)), _arr(3), _arr(4))
    meta_same(lambda m, a, b, c: m.addr(a, b, c), ((3, 4), "float32"), ((3,), "float32"),
              ((4,), "float32"))


# -- cdist, dist -----------------------------------------------------------------------------------

@pytest.mark.parametrize("p", [0.0, 0.5, 1.0, 2.0, 3.0, float("inf")])
def test_cdist(p):
    x1, x2 = _arr((2, 5, 3)), _arr((4, 3))
    x2[1] = x1[0, 2]            # a zero distance
    run(lambda m, a, b: m.cdist(a, b, p=p), x1, x2)
    run(lambda m, a, b: m.cdist(a, b, p=p), x1.astype("float32"), x2.astype("float32"))
    grads(lambda m, a, b: m.cdist(a, b, p=p), x1, x2, rtol=1e-6, atol=1e-8)
    grad_fn_name(lambda m, a, b: m.cdist(a, b, p=p), x1, x2)


@pytest.mark.parametrize("mode", ["use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist",
                                  "donot_use_mm_for_euclid_dist"])
def test_cdist_modes(mode):
    x1, x2 = _arr((2, 30, 3)), _arr((2, 4, 3))
    run(lambda m, a, b: m.cdist(a, b, compute_mode=mode), x1, x2, tol=1e-8)
    grads(lambda m, a, b: m.cdist(a, b, compute_mode=mode), x1, x2, rtol=1e-6, atol=1e-8)
    grad_fn_name(lambda m, a, b: m.cdist(a, b, compute_mode=mode), x1, x2)
    grad_fn_name(lambda m, a, b: m.cdist(a, b, compute_mode=mode), x1[0], x2[0])


def test_cdist_errors_and_edges():
    err(lambda m, a, b: m.cdist(a, b), _arr(3), _arr((2, 3)))
    err(lambda m, a, b: m.cdist(a, b), _arr((2, 3)), _arr((2, 4)))
    err(lambda m, a, b: m.cdist(a, b, -1.0), _arr((2, 3)), _arr((2, 3)))
    err(lambda m, a, b: m.cdist(a, b), _arr((2, 3)).astype("int64"), _arr((2, 3)).astype(
        "int64"))
    check(lambda m: m.cdist(m.zeros(2, 3), m.zeros(2, 3), compute_mode="x"))
    run(lambda m, a, b: m.cdist(a, b), _arr((0, 3)), _arr((2, 3)))
    run(lambda m, a, b: m.cdist(a, b), _arr((2, 0)), _arr((3, 0)))
    meta_same(lambda m, a, b: m.cdist(a, b), ((2, 5, 3), "float32"), ((4, 3), "float32"))


def test_dist():
    for p in (0, 1, 2, 3.5, float("inf"), -float("inf"), -1):
        run(lambda m, a, b: m.dist(a, b, p), _arr((3, 4)), _arr((4,)))
        run(lambda m, a, b: a.dist(b, p), _arr((3, 4), "complex64"), _arr((4,), "complex64"))
    for p in (1, 2, 3.5, float("inf")):
        grads(lambda m, a, b: m.dist(a, b, p), _arr((3, 4)), _arr((4,)))
    grad_fn_name(lambda m, a, b: m.dist(a, b), _arr((3, 4)), _arr((4,)))
    err(lambda m, a, b: m.dist(a, b), _arr(3).astype("int64"), _arr(3).astype("int64"))
    err(lambda m, a, b: m.dist(a, b), _arr((2, 3)), _arr(4))
    run(lambda m, a, b: m.dist(a, b), _arr((3,)).astype("float32"), _arr((3,)))


# -- Cholesky family -------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_family(dtype, upper):
    A = _spd((2, 4, 4), dtype)
    B = _arr((2, 4, 3), dtype)
    run(lambda m, a: m.cholesky(a, upper), A)
    run(lambda m, a: a.cholesky(upper=upper), A[0])
    run(lambda m, a: m.cholesky_inverse(m.linalg.cholesky(a, upper=upper), upper), A)
    run(lambda m, a, b: m.cholesky_solve(b, m.linalg.cholesky(a, upper=upper), upper), A, B)
    run(lambda m, a, b: m.cholesky_solve(b, m.linalg.cholesky(a[0], upper=upper), upper), A, B)
    run(lambda m, a: m.cholesky_inverse(m.linalg.cholesky(a), out=m.empty(0, dtype=a.dtype)), A)
    run(lambda m, a: m.cholesky(a, out=m.empty(0, dtype=a.dtype)), A)


def test_cholesky_family_grads():
    A, B = _spd((4, 4)), _arr((4, 2))
    L = np.linalg.cholesky(A)
    for upper in (False, True):
        F = L.T.copy() if upper else L
        grads(lambda m, a: m.cholesky(a @ a.mT, upper), F)
        grads(lambda m, f: m.cholesky_inverse(f, upper), F)
        grads(lambda m, b, f: m.cholesky_solve(b, f, upper), B, F)
        grads(lambda m, b, f: m.cholesky_solve(b, f, upper), _arr((2, 4, 2)), F)
    grad_fn_name(lambda m, a: m.cholesky(a @ a.mT), L)
    grad_fn_name(lambda m, a: m.cholesky_inverse(a), L)
    grad_fn_name(lambda m, b, a: m.cholesky_solve(b, a), B, L)


def test_cholesky_family_errors():
    check(lambda m: m.cholesky(m.ones(3, 3)), warns=False)
    check(lambda m: m.cholesky(m.ones(2, 3, 3)), warns=False)
    check(lambda m: m.cholesky(m.ones(3, 2)), warns=False)
    check(lambda m: m.cholesky(m.ones(3)), warns=False)
    check(lambda m: m.cholesky(m.ones(3, 3, dtype=m.int64)), warns=False)
    check(lambda m: m.cholesky_inverse(m.ones(3)))
    check(lambda m: m.cholesky_inverse(m.ones(3, 2)))
    check(lambda m: m.cholesky_inverse(m.zeros(3, 3)))
    check(lambda m: m.cholesky_inverse(m.zeros(2, 3, 3)))
    check(lambda m: m.cholesky_inverse(m.ones(3, 3, dtype=m.int64)))
    check(lambda m: m.cholesky_solve(m.ones(3, 2), m.ones(3, 3, dtype=m.float64)))
    check(lambda m: m.cholesky_solve(m.ones(3, 2), m.ones(2, 3)))
    check(lambda m: m.cholesky_solve(m.ones(4, 2), m.ones(3, 3)))
    check(lambda m: m.cholesky_solve(m.ones(3), m.ones(3, 3)))
    check(lambda m: m.cholesky_solve(m.ones(3, 2, dtype=m.int64), m.ones(3, 3, dtype=m.int64)))
    meta_same(lambda m, a: m.cholesky_inverse(a), ((2, 3, 3), "float32"))
    meta_same(lambda m, b, a: m.cholesky_solve(b, a), ((2, 3, 1), "float64"),
              ((3, 3), "float64"))


def test_cholesky_warns_once():
    from strided.kernels import views
    views._warned.discard("torch.cholesky")
    with pytest.warns(UserWarning, match="torch.cholesky is deprecated"):
        strided.ops.aten.cholesky(strided.eye(2))


# -- triangular solves ----------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOATS)
def test_triangular_solve(dtype):
    A = _tri((2, 4, 4), dtype, upper=True)
    B = _arr((2, 4, 3), dtype)
    for upper in (True, False):
        for transpose in (False, True):
            for unit in (False, True):
                run(lambda m, b, a: m.triangular_solve(b, a, upper, transpose, unit), B, A)
    run(lambda m, b, a: m.triangular_solve(b, a[0]), B, A)
    run(lambda m, b, a: b.triangular_solve(a), B[0], A[0])


@pytest.mark.parametrize("dtype", FLOATS)
def test_solve_triangular(dtype):
    A = _tri((2, 4, 4), dtype)
    B = _arr((2, 4, 3), dtype)
    for upper in (True, False):
        for unit in (False, True):
            run(lambda m, a, b: m.linalg.solve_triangular(a, b, upper=upper,
                                                          unitriangular=unit), A, B)
            run(lambda m, a, b: m.linalg.solve_triangular(a, b.mT, upper=upper, left=False,
                                                          unitriangular=unit), A, B)
    run(lambda m, a, b: m.linalg.solve_triangular(a[0], b, upper=False), A, B)
    run(lambda m, a, b: m.linalg.solve_triangular(a, b, upper=False,
                                                  out=m.empty(0, dtype=a.dtype)), A, B)


def test_triangular_grads_and_errors():
    A, B = _tri((4, 4)), _arr((4, 2))
    for upper in (True, False):
        Au = A.T.copy() if upper else A
        for unit in (False, True):
            for transpose in (False, True):
                grads(lambda m, b, a: m.triangular_solve(b, a, upper, transpose, unit), B, Au)
            grads(lambda m, a, b: m.linalg.solve_triangular(a, b, upper=upper,
                                                            unitriangular=unit), Au, B)
            grads(lambda m, a, b: m.linalg.solve_triangular(a, b.mT, upper=upper, left=False,
                                                            unitriangular=unit), Au, B)
    grads(lambda m, b, a: m.triangular_solve(b, a)[1] * 2, B, A)
    grad_fn_name(lambda m, b, a: m.triangular_solve(b, a).solution, B, A)
    grad_fn_name(lambda m, b, a: m.triangular_solve(b, a).cloned_coefficient, B, A)
    grad_fn_name(lambda m, a, b: m.linalg.solve_triangular(a, b, upper=True), A, B)
    check(lambda m: m.triangular_solve(m.ones(3), m.zeros(3, 3)), warns=False)
    check(lambda m: m.triangular_solve(m.ones(3, 2), m.zeros(3)), warns=False)
    check(lambda m: m.triangular_solve(m.ones(4, 2), m.zeros(3, 3)), warns=False)
    check(lambda m: m.triangular_solve(m.ones(3, 2), m.zeros(2, 3)), warns=False)
    check(lambda m: m.triangular_solve(m.ones(3, 2, dtype=m.float64), m.zeros(3, 3)),
          warns=False)
    check(lambda m: m.triangular_solve(m.ones(2, 3, 2), m.ones(4, 3, 3)), warns=False)
    check(lambda m: m.triangular_solve(m.ones(3, 2), m.zeros(3, 3)), warns=False)   # nan/inf
    check(lambda m: m.linalg.solve_triangular(m.ones(3, 3), m.ones(2, 2), upper=True))
    check(lambda m: m.linalg.solve_triangular(m.ones(3, 3), m.ones(2, 3), upper=True,
                                              left=False))
    check(lambda m: m.linalg.solve_triangular(m.ones(3, 2), m.ones(3, 2), upper=True))
    check(lambda m: m.linalg.solve_triangular(m.ones(3, 3), m.ones(3), upper=True))
    check(lambda m: m.linalg.solve_triangular(m.ones(3, 3, dtype=m.int64),
                                              m.ones(3, 2, dtype=m.int64), upper=True))
    check(lambda m: m.linalg.solve_triangular(m.ones(3, 3, dtype=m.float64), m.ones(3, 2),
                                              upper=True))
    meta_same(lambda m, a, b: m.linalg.solve_triangular(a, b, upper=True),
              ((2, 3, 3), "float32"), ((3, 2), "float32"))


# -- LU family ------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(4, 4), (2, 3, 5), (2, 5, 3), (1, 0, 0)])
def test_lu_factor_and_lu(dtype, shape):
    A = _arr(shape, dtype)
    run(lambda m, a: m.linalg.lu_factor(a), A)
    run(lambda m, a: m.linalg.lu_factor_ex(a), A)
    run(lambda m, a: m.linalg.lu(a), A)
    run(lambda m, a: m.lu(a, get_infos=True), A)
    run(lambda m, a: m.lu_unpack(*m.linalg.lu_factor(a)), A)
    run(lambda m, a: m.lu_unpack(*m.linalg.lu_factor(a), unpack_data=False), A)
    run(lambda m, a: m.lu_unpack(*m.linalg.lu_factor(a), unpack_pivots=False), A)


@pytest.mark.parametrize("dtype", FLOATS)
def test_lu_solve(dtype):
    A, B = _arr((2, 4, 4), dtype), _arr((2, 4, 3), dtype)
    for left in (True, False):
        for adjoint in (False, True):
            run(lambda m, a, b: m.linalg.lu_solve(*m.linalg.lu_factor(a),
                                                  b if left else b.mT, left=left,
                                                  adjoint=adjoint), A, B)
    run(lambda m, a, b: m.lu_solve(b, *m.linalg.lu_factor(a)), A, B)
    run(lambda m, a, b: b.lu_solve(*m.linalg.lu_factor(a)), A, B)
    run(lambda m, a, b: m.linalg.lu_solve(*m.linalg.lu_factor(a[0]), b), A, B)


def test_lu_singular_and_errors():
    run(lambda m, a: m.linalg.lu_factor_ex(a), np.zeros((2, 3, 3)))
    A = _arr((3, 3))
    A[:, 1] = 0
    run(lambda m, a: m.linalg.lu_factor_ex(a), A)
    check(lambda m: m.linalg.lu_factor(m.zeros(3, 3)))
    check(lambda m: m.linalg.lu_factor(m.ones(3, 2)))
    check(lambda m: m.linalg.lu_factor(m.zeros(2, 3, 3)))
    check(lambda m: m.linalg.lu_factor_ex(m.zeros(3, 3), check_errors=True))
    check(lambda m: m.linalg.lu_factor(m.eye(3), pivot=False))
    check(lambda m: m.linalg.lu_factor(m.zeros(3, 3, dtype=m.int64)))
    check(lambda m: m.linalg.lu(m.zeros(3)))
    check(lambda m: m.linalg.lu(m.zeros(3, 3, dtype=m.int64)))
    lu = lambda m: m.linalg.lu_factor(m.eye(3) + 1)   # noqa: E731
    check(lambda m: m.linalg.lu_solve(*lu(m), m.ones(2, 2)))
    check(lambda m: m.linalg.lu_solve(*lu(m), m.ones(3, 2), left=False))
    check(lambda m: m.linalg.lu_solve(lu(m)[0], m.zeros(3, dtype=m.int64), m.ones(3, 2)))
    check(lambda m: m.linalg.lu_solve(lu(m)[0], m.zeros(3, dtype=m.int32), m.ones(3, 2)))
    check(lambda m: m.linalg.lu_solve(lu(m)[0], m.ones(3, dtype=m.int32) * 5, m.ones(3, 2)))
    check(lambda m: m.linalg.lu_solve(lu(m)[0], m.ones(2, dtype=m.int32), m.ones(3, 2)))
    check(lambda m: m.lu_unpack(m.ones(3, 3), m.ones(2, dtype=m.int32)))
    check(lambda m: m.lu_unpack(m.ones(3, 3), m.ones(3, dtype=m.int64)))
    check(lambda m: m.lu_unpack(m.ones(3, 3), m.ones(3, dtype=m.int32) * 7))
    check(lambda m: m.lu_unpack(m.ones(3, 3), m.zeros(3, dtype=m.int32)))
    meta_same(lambda m, a: m.linalg.lu_factor_ex(a), ((2, 3, 4), "float32"))
    meta_same(lambda m, a: m.linalg.lu(a), ((2, 4, 3), "complex64"))


def test_lu_grads():
    for shape in ((4, 4), (3, 5), (5, 3), (2, 3, 3)):
        A = _arr(shape)
        grads(lambda m, a: m.linalg.lu_factor(a).LU, A, rtol=1e-6, atol=1e-8)
        grads(lambda m, a: m.linalg.lu(a)[1:], A, rtol=1e-6, atol=1e-8)
        grads(lambda m, a: m.lu_unpack(*m.linalg.lu_factor(a.detach()))[1:], A)
    A, B = _arr((4, 4)), _arr((4, 2))
    for left in (True, False):
        for adjoint in (False, True):
            grads(lambda m, lu_, b: m.linalg.lu_solve(
                lu_, m.linalg.lu_factor(lu_.detach()).pivots, b if left else b.mT,
                left=left, adjoint=adjoint), A, B, rtol=1e-6, atol=1e-8)
    grads(lambda m, a, b: m.linalg.lu_solve(*m.linalg.lu_factor(a), b), A, B, rtol=1e-6,
          atol=1e-8)
    grad_fn_name(lambda m, a: m.linalg.lu_factor(a).LU, A)
    grad_fn_name(lambda m, a: m.linalg.lu(a).L, A)
    grad_fn_name(lambda m, a: m.lu(a)[0], A)
    grad_fn_name(lambda m, a, b: m.linalg.lu_solve(*m.linalg.lu_factor(a), b), A, B)
    grad_fn_name(lambda m, a, b: m.lu_solve(b, *m.linalg.lu_factor(a)), A, B)
    grad_fn_name(lambda m, a: m.lu_unpack(*m.linalg.lu_factor(a)).U, A)


# -- ormqr, chain_matmul, vecdot, diagonal --------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOATS)
def test_ormqr(dtype):
    A = _arr((2, 5, 3), dtype)
    C = _arr((2, 5, 4), dtype)
    Cr = _arr((2, 4, 5), dtype)
    for transpose in (False, True):
        run(lambda m, a, c: m.ormqr(*m.geqrf(a), c, True, transpose), A, C)
        run(lambda m, a, c: m.ormqr(*m.geqrf(a), c, False, transpose), A, Cr)


def test_ormqr_grads_and_errors():
    A, C = _arr((4, 3)), _arr((4, 2))
    for left in (True, False):
        for transpose in (False, True):
            c = C if left else C.T.copy()
            grads(lambda m, a, tau, c_: m.ormqr(a, tau, c_, left, transpose), A, _arr(3), c)
    grad_fn_name(lambda m, a, tau, c: m.ormqr(a, tau, c), A, _arr(3), C)
    check(lambda m: m.ormqr(m.ones(3, 2), m.ones(2), m.ones(4, 4)))
    check(lambda m: m.ormqr(m.ones(3, 2), m.ones(3), m.ones(3, 4)))
    check(lambda m: m.ormqr(m.ones(3, 2), m.ones(2), m.ones(3, 4), left=False))
    check(lambda m: m.ormqr(m.ones(3), m.ones(2), m.ones(3, 4)))
    check(lambda m: m.ormqr(m.ones(3, 2), m.ones(2), m.ones(3)))
    check(lambda m: m.ormqr(m.ones(3, 2), m.ones(2, dtype=m.float64), m.ones(3, 4)))
    check(lambda m: m.ormqr(m.ones(3, 2), m.ones(2), m.ones(3, 4, dtype=m.float64)))
    check(lambda m: m.ormqr(m.ones(3, 2, dtype=m.int64), m.ones(2, dtype=m.int64),
                            m.ones(3, 4, dtype=m.int64)))
    check(lambda m: m.ormqr(m.ones(2, 3, 2), m.ones(3, 2), m.ones(2, 3, 4)))
    check(lambda m: m.ormqr(m.ones(2, 3, 2), m.ones(2, 2), m.ones(3, 3, 4)))


def test_chain_matmul_vecdot_diagonal():
    a, b, c = _arr((2, 3)), _arr((3, 4)), _arr((4, 2))
    run(lambda m, x, y, z: m.chain_matmul(x, y, z), a, b, c)
    run(lambda m, x: m.chain_matmul(x), a)
    grads(lambda m, x, y, z: m.chain_matmul(x, y, z), a, b, c)
    grad_fn_name(lambda m, x, y: m.chain_matmul(x, y), a, b)
    grad_fn_name(lambda m, x: m.chain_matmul(x), a)
    check(lambda m: m.chain_matmul(), warns=False)
    check(lambda m: m.chain_matmul(m.ones(2, 3), m.ones(3)), warns=False)
    for dtype in FLOATS:
        x, y = _arr((3, 4), dtype), _arr((4,), dtype)
        run(lambda m, p, q: m.linalg.vecdot(p, q), x, y)
        run(lambda m, p, q: m.linalg.vecdot(p, q.reshape(1, 4).expand(3, 4), dim=0), x, y)
        run(lambda m, p, q: m.linalg.vecdot(p[0], q), x, y)
    grads(lambda m, p, q: m.linalg.vecdot(p, q), _arr((3, 4)), _arr(4))
    grad_fn_name(lambda m, p, q: m.linalg.vecdot(p, q), _arr((3, 4)), _arr(4))
    grad_fn_name(lambda m, p, q: m.linalg.vecdot(p, q), _arr(4), _arr(4))
    check(lambda m: m.linalg.vecdot(m.ones(3, 2), m.ones(2, dtype=m.float64)))
    check(lambda m: m.linalg.vecdot(m.ones(3, 2), m.ones(3)))
    check(lambda m: m.linalg.vecdot(m.ones(3, 2, dtype=m.int64), m.ones(2, dtype=m.int64)))
    run(lambda m, x: m.linalg.diagonal(x, offset=1), _arr((2, 3, 4)))
    run(lambda m, x: m.linalg.diagonal(x, dim1=0, dim2=2), _arr((2, 3, 4)))
    grad_fn_name(lambda m, x: m.linalg.diagonal(x), _arr((3, 3)))


# -- cond, tensorinv, tensorsolve, vander -------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOATS)
def test_cond(dtype):
    A = _arr((2, 3, 3), dtype)
    for p in (None, 2, -2, 1, -1, float("inf"), float("-inf"), "fro", "nuc"):
        run(lambda m, a: m.linalg.cond(a, p), A)
    run(lambda m, a: m.linalg.cond(a[:, :, :2]), A)
    run(lambda m, a: m.linalg.cond(a, out=m.empty(0, dtype=a.real.dtype)), A)


def test_cond_grads_and_errors():
    A = _arr((3, 3)) + 3 * np.eye(3)
    for p in (None, -2, 1, float("inf"), "fro", "nuc"):
        grads(lambda m, a: m.linalg.cond(a, p), A, rtol=1e-6, atol=1e-8)
        grad_fn_name(lambda m, a: m.linalg.cond(a, p), A)
    for p in (1, -2, "nuc", "fro"):
        check(lambda m: m.linalg.cond(m.zeros(2, 3, 3), p))
        check(lambda m: m.linalg.cond(m.zeros(2, 0, 0, dtype=m.complex64), p))
    check(lambda m: m.linalg.cond(m.zeros(3, 2), 1.0))
    check(lambda m: m.linalg.cond(m.zeros(3, 2), float("inf")))
    check(lambda m: m.linalg.cond(m.zeros(3, 2), -1))
    check(lambda m: m.linalg.cond(m.zeros(3, 2), "fro"))
    check(lambda m: m.linalg.cond(m.zeros(3), "fro"))
    check(lambda m: m.linalg.cond(m.zeros(3, 3), 3))
    check(lambda m: m.linalg.cond(m.zeros(3, 3), "foo"))
    check(lambda m: m.linalg.cond(m.zeros(3, 3, dtype=m.int64)))
    check(lambda m: m.linalg.cond(m.zeros(3)))


def test_tensorinv_tensorsolve():
    A = _arr((4, 2, 2))
    run(lambda m, a: m.linalg.tensorinv(a, 1), A)
    run(lambda m, a: m.linalg.tensorinv(a.reshape(2, 2, 2, 2)), A)
    run(lambda m, a: m.linalg.tensorinv(a, 1, out=m.empty(0, dtype=a.dtype)), A)
    grads(lambda m, a: m.linalg.tensorinv(a, 1), A)
    # (torch's graph ends in ReshapeAliasBackward0: strided's reshape of a non-contiguous
    # viewable tensor records ViewBackward0, a difference of the shared reshape)
    check(lambda m: m.linalg.tensorinv(m.ones(4, 2, 2), 0))
    check(lambda m: m.linalg.tensorinv(m.ones(4, 2, 3), 1))
    check(lambda m: m.linalg.tensorinv(m.zeros(4, 2, 2), 1))
    check(lambda m: m.linalg.tensorinv(m.zeros(4, 2, 2, dtype=m.int64), 1))
    S, B = _arr((2, 3, 6)), _arr((2, 3))
    run(lambda m, a, b: m.linalg.tensorsolve(a, b), S, B)
    run(lambda m, a, b: m.linalg.tensorsolve(a.permute(2, 0, 1), b, dims=(0,)), S, B)
    grads(lambda m, a, b: m.linalg.tensorsolve(a, b), S, B)
    grad_fn_name(lambda m, a, b: m.linalg.tensorsolve(a, b), S, B)
    check(lambda m: m.linalg.tensorsolve(m.ones(2, 3, 6), m.ones(6)))
    check(lambda m: m.linalg.tensorsolve(m.zeros(2, 3, 6), m.ones(2, 3)))


def test_linalg_vander():
    run(lambda m, x: m.linalg.vander(x), np.array([1, 2, 3], dtype="int32"))
    run(lambda m, x: m.linalg.vander(x, N=5), _arr((2, 3)))
    run(lambda m, x: m.linalg.vander(x), _arr(3, "complex64"))
    grads(lambda m, x: m.linalg.vander(x, N=4), _arr((2, 3)))
    grad_fn_name(lambda m, x: m.linalg.vander(x), _arr(3))
    check(lambda m: m.linalg.vander(m.tensor(2.0)))
    check(lambda m: m.linalg.vander(m.ones(3), N=1))
    check(lambda m: m.linalg.vander(m.ones(3, dtype=m.bool)))
    check(lambda m: m.linalg.vander(m.ones(3, dtype=m.float16)))


# -- svd_lowrank, pca_lowrank --------------------------------------------------------------------

def _seeded(fn):
    def run_in(m, *args):
        m.manual_seed(5)
        return fn(m, *args)
    return run_in


def test_lowrank_same_draws_as_torch():
    A = _arr((2, 7, 5))
    # the singular values and the reconstruction do not depend on the factors' signs
    run(_seeded(lambda m, a: m.svd_lowrank(a, q=3)[1]), A)
    run(_seeded(lambda m, a: m.svd_lowrank(a.mT, q=4, niter=1)[1]), A)
    run(_seeded(lambda m, a: (lambda u, s, v: u @ s.diag_embed() @ v.mT)(
        *m.svd_lowrank(a, q=5))), A)
    run(_seeded(lambda m, a: m.svd_lowrank(a, q=3, M=a.mean(-2, keepdim=True))[1]), A)
    run(_seeded(lambda m, a: m.pca_lowrank(a)[1]), A)
    run(_seeded(lambda m, a: m.pca_lowrank(a, q=2, center=False, niter=3)[1]), A)
    run(_seeded(lambda m, a: m.svd_lowrank(a, q=3)[1]), A.astype("float32"))
    # the generator advanced by the same draws
    run(_seeded(lambda m, a: (m.svd_lowrank(a, q=3), m.rand(3))[1]), A)
    grads(_seeded(lambda m, a: m.svd_lowrank(a, q=3)[1]), A[0], rtol=1e-6, atol=1e-8)
    check(lambda m: m.pca_lowrank(m.ones(3, 4), q=5))
    check(lambda m: m.pca_lowrank(m.ones(3, 4), niter=-1))


# -- LDL -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("hermitian", [False, True])
def test_ldl(dtype, hermitian):
    rng = np.random.default_rng(11)
    for n in (1, 2, 4, 6):
        a = rng.standard_normal((3, n, n))
        if dtype.startswith("complex"):
            a = a + 1j * rng.standard_normal((3, n, n))
        a = a.astype(dtype)
        a = a + (np.swapaxes(a, -1, -2).conj() if hermitian else np.swapaxes(a, -1, -2))
        B = _arr((3, n, 2), dtype)
        run(lambda m, x: m.linalg.ldl_factor_ex(x, hermitian=hermitian), a)
        run(lambda m, x: m.linalg.ldl_factor(x, hermitian=hermitian), a)
        run(lambda m, x, b: m.linalg.ldl_solve(*m.linalg.ldl_factor(x, hermitian=hermitian), b,
                                               hermitian=hermitian), a, B,
            tol=1e-3 if dtype in ("float32", "complex64") else 1e-8)
    run(lambda m, x: m.linalg.ldl_factor_ex(x), np.zeros((2, 3, 3)))
    run(lambda m, x: m.linalg.ldl_factor_ex(x), np.zeros((0, 3, 3)))


def test_ldl_errors():
    check(lambda m: m.linalg.ldl_factor(m.ones(3, 2)))
    check(lambda m: m.linalg.ldl_factor(m.zeros(3, 3)))
    check(lambda m: m.linalg.ldl_factor_ex(m.zeros(3, 3), check_errors=True))
    check(lambda m: m.linalg.ldl_factor(m.zeros(3, 3, dtype=m.int64)))
    check(lambda m: m.linalg.ldl_solve(m.eye(3), m.zeros(3, dtype=m.int32), m.ones(3, 1)))
    check(lambda m: m.linalg.ldl_solve(m.eye(3), m.ones(3, dtype=m.int32), m.ones(3)))
    check(lambda m: m.linalg.ldl_solve(m.eye(3), m.ones(2, dtype=m.int32), m.ones(3, 1)))
    check(lambda m: m.linalg.ldl_solve(m.eye(3), m.ones(3, dtype=m.int32),
                                       m.ones(3, 1, dtype=m.float64)))
    meta_same(lambda m, a: m.linalg.ldl_factor_ex(a), ((2, 3, 3), "float64"))


def test_tensor_lu_method():
    run(lambda m, a: a.lu(), _arr((2, 3, 3)))
    run(lambda m, a: a.lu(get_infos=True), _arr((3, 3)))


@pytest.mark.parametrize("a, b", [(((), "float16"), ((3,), "bfloat16")),
                                  (((3, 3), "bool"), ((3, 3), "float16")),
                                  (((3,), "bool"), ((3,), "bool")),
                                  (((2,), "float64"), ((), "float32")),
                                  (((2,), "complex64"), ((2,), "float64"))])
def test_dist_promotes_and_refuses_bools_like_its_subtraction(a, b):
    def recipe(lib):
        x = lib.ones(a[0], dtype=getattr(lib, a[1]))
        return lib.dist(x if a[1] == "bool" else x * 1.5, lib.zeros(b[0], dtype=getattr(lib, b[1])))
    from conftest import check as check_both  # (bfloat16 results: conftest's comparison)
    check_both(recipe)
