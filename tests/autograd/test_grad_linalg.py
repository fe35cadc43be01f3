"""Backward formulas of the linear algebra ops against torch and gradcheck (the harness in
grad_harness.py explains the comparison), and the graphs' node names against torch's.

Inputs are random (uniform in [-2, 2]) and made well conditioned inside the programs:
a shifted diagonal for inverses and solves, ``X X^H + n I`` for Cholesky, ``X + X^H`` for
the Hermitian eigensolvers. Random matrices have distinct singular values and
eigenvalues (almost surely, and for these fixed seeds), which the SVD, eigh and eig
derivatives need: with repeated ones they are not defined. Losses on singular vectors
and eigenvectors are gauge invariant (``U @ Vh``, ``U * U``, ``|V|^2``): the vectors are
determined only up to sign (or phase), and NumPy's LAPACK and torch's may pick different
ones.
"""

from __future__ import annotations

import pytest
import torch
from grad_harness import check_grads, grad_fn_names, gradcheck_strided, leaf_values

import strided

INF = float("inf")


# -- input conditioning (the same code runs with torch and strided) ----------------------------

def _eye(m, x):
    return m.eye(x.shape[-1], dtype=x.dtype)


def wc(m, x):
    """Well conditioned: x + 3 I."""
    return x + 3 * _eye(m, x)


def hpd(m, x):
    """Hermitian positive definite: X X^H + n I."""
    return x @ x.mH + x.shape[-1] * _eye(m, x)


def herm(m, x):
    return x + x.mH


def sq(m, t):
    """|t|^2 elementwise: gauge invariant for singular vectors and eigenvectors."""
    if t.is_complex():
        return t.real * t.real + t.imag * t.imag
    return t * t


def svd_inv(m, out):
    U, S, Vh = out
    k = S.shape[-1]
    U, Vh = U[..., :k], Vh[..., :k, :]
    return S, U @ Vh, sq(m, U), sq(m, Vh)


def eig_inv(m, out):
    L, V = out
    return L, sq(m, V)


def _sing(m, x):
    """A singular 3x3 matrix: the rows of x and twice the first one."""
    return m.cat([x, x[:1] * 2], 0)


# -- the cases ---------------------------------------------------------------------------------
# (id, program, shapes, flags); flags: "c" = check complex128 too, "n" = skip the float32
# comparison, "g" = skip the complex gradcheck

CASES = [
    # products
    ("mm", lambda m, x, y: x.mm(y), [(2, 3), (3, 2)], "c"),
    ("mm_noncontig", lambda m, x, y: x.mT.mm(y[:, ::2]), [(3, 2), (3, 4)], "c"),
    ("bmm", lambda m, x, y: x.bmm(y), [(2, 2, 3), (2, 3, 4)], "c"),
    ("bmm_noncontig", lambda m, x, y: x.transpose(1, 2).bmm(y), [(2, 3, 2), (2, 3, 4)], "c"),
    ("mv", lambda m, x, y: x.mv(y), [(2, 3), (3,)], "c"),
    ("mv_noncontig", lambda m, x, y: x.t().mv(y[::2]), [(3, 2), (6,)], "c"),
    ("dot", lambda m, x, y: x.dot(y), [(3,), (3,)], "c"),
    ("vdot", lambda m, x, y: m.vdot(x, y), [(3,), (3,)], "c"),
    ("addmm", lambda m, b, x, y: m.addmm(b, x, y), [(2, 3), (2, 3), (3, 3)], "c"),
    ("addmm_scaled", lambda m, b, x, y: m.addmm(b, x, y, beta=0.5, alpha=-2),
     [(3,), (2, 3), (3, 3)], "c"),
    ("addmm_beta0", lambda m, b, x, y: m.addmm(b, x, y, beta=0, alpha=2),
     [(1, 3), (2, 3), (3, 3)], ""),
    ("addmm_", lambda m, b, x, y: b.clone().addmm_(x, y, beta=2, alpha=0.5),
     [(2, 3), (2, 3), (3, 3)], ""),
    ("addmv", lambda m, b, x, y: m.addmv(b, x, y, beta=0.5, alpha=2), [(2,), (2, 3), (3,)], "c"),
    ("addmv_", lambda m, b, x, y: b.clone().addmv_(x, y, alpha=3), [(2,), (2, 3), (3,)], ""),
    ("baddbmm", lambda m, b, x, y: m.baddbmm(b, x, y, beta=0.5, alpha=2), [(1, 3), (2, 2, 3),
                                                                          (2, 3, 3)], "c"),
    ("baddbmm_", lambda m, b, x, y: b.clone().baddbmm_(x, y),
     [(2, 2, 3), (2, 2, 3), (2, 3, 3)], ""),
    ("addbmm", lambda m, b, x, y: m.addbmm(b, x, y, beta=0.5, alpha=2), [(2, 3), (2, 2, 3),
                                                                        (2, 3, 3)], "c"),
    ("addbmm_", lambda m, b, x, y: b.clone().addbmm_(x, y), [(2, 3), (2, 2, 3), (2, 3, 3)], ""),
    ("trace", lambda m, x: x.trace(), [(3, 4)], "c"),
    ("trace_noncontig", lambda m, x: x.t().trace(), [(3, 4)], ""),
    ("linalg_cross", lambda m, x, y: m.linalg.cross(x, y), [(2, 3), (1, 3)], "c"),
    ("cross_dim", lambda m, x, y: m.cross(x, y, dim=0), [(3, 2), (3, 2)], "c"),
    # matmul, by ranks
    ("matmul_1_1", lambda m, x, y: x @ y, [(3,), (3,)], "c"),
    ("matmul_2_1", lambda m, x, y: x @ y, [(2, 3), (3,)], "c"),
    ("matmul_1_2", lambda m, x, y: x @ y, [(3,), (3, 4)], "c"),
    ("matmul_2_2", lambda m, x, y: x @ y, [(2, 3), (3, 4)], "c"),
    ("matmul_3_2", lambda m, x, y: x @ y, [(2, 4, 3), (3, 5)], "c"),
    ("matmul_2_3", lambda m, x, y: x @ y, [(4, 3), (2, 3, 5)], "c"),
    ("matmul_1_3", lambda m, x, y: x @ y, [(3,), (2, 3, 4)], "c"),
    ("matmul_3_1", lambda m, x, y: x @ y, [(2, 3, 4), (4,)], "c"),
    ("matmul_3_3", lambda m, x, y: x @ y, [(2, 3, 4), (2, 4, 5)], "c"),
    ("matmul_b1_3", lambda m, x, y: x @ y, [(1, 3, 4), (2, 4, 5)], "c"),
    ("matmul_4_3", lambda m, x, y: x @ y, [(2, 2, 3, 4), (2, 4, 5)], "c"),
    ("matmul_bcast", lambda m, x, y: x @ y, [(2, 1, 3, 4), (3, 4, 5)], ""),
    ("matmul_noncontig", lambda m, x, y: x.transpose(0, 1) @ y, [(4, 2, 3), (3, 5)], ""),
    ("linalg_matmul", lambda m, x, y: m.linalg.matmul(x, y), [(2, 3), (3, 4)], ""),
    # compositions of products
    ("inner_1_1", lambda m, x, y: m.inner(x, y), [(3,), (3,)], "c"),
    ("inner_2_2", lambda m, x, y: m.inner(x, y), [(2, 3), (4, 3)], "c"),
    ("inner_scalar", lambda m, x, y: m.inner(x, y), [(), (2, 3)], ""),
    ("outer", lambda m, x, y: m.outer(x, y), [(2,), (3,)], "c"),
    ("ger", lambda m, x, y: m.ger(x, y), [(2,), (3,)], ""),
    ("tensordot_int", lambda m, x, y: m.tensordot(x, y, 1), [(2, 3), (3, 4)], "c"),
    ("tensordot_lists", lambda m, x, y: m.tensordot(x, y, ([1, 2], [1, 0])), [(2, 3, 4),
                                                                              (4, 3, 5)], "c"),
    ("tensordot_full", lambda m, x, y: m.tensordot(x, y, 2), [(2, 3), (2, 3)], ""),
    ("tensordot_size1", lambda m, x, y: m.tensordot(x, y, ([1], [0])), [(2, 1), (3, 4)], ""),
    ("kron", lambda m, x, y: m.kron(x, y), [(2, 3), (2, 2)], "c"),
    ("kron_mixed", lambda m, x, y: m.kron(x, y), [(2, 3), (4,)], "c"),
    ("einsum_mm", lambda m, x, y: m.einsum("ij,jk->ik", x, y), [(2, 3), (3, 4)], "c"),
    ("einsum_diag", lambda m, x: m.einsum("ii->i", x), [(3, 3)], ""),
    ("einsum_trace", lambda m, x: m.einsum("ii", x), [(3, 3)], "c"),
    ("einsum_transpose", lambda m, x: m.einsum("ij->ji", x), [(2, 3)], ""),
    ("einsum_sum", lambda m, x: m.einsum("ij->", x), [(2, 3)], ""),
    ("einsum_bmm", lambda m, x, y: m.einsum("bij,bjk->bik", x, y), [(2, 2, 3), (2, 3, 4)], ""),
    ("einsum_outer", lambda m, x, y: m.einsum("i,j->ij", x, y), [(3,), (4,)], ""),
    ("einsum_dot", lambda m, x, y: m.einsum("i,i->", x, y), [(3,), (3,)], "c"),
    ("einsum_hadamard", lambda m, x, y: m.einsum("ij,ij->ij", x, y), [(3, 4), (3, 4)], ""),
    ("einsum_chain", lambda m, x, y, z: m.einsum("ij,jk,kl->il", x, y, z), [(2, 3), (3, 4),
                                                                          (4, 2)], "c"),
    ("einsum_ellipsis", lambda m, x, y: m.einsum("...ij,...jk->...ik", x, y), [(2, 2, 3),
                                                                               (2, 3, 4)], ""),
    ("einsum_broadcast", lambda m, x, y: m.einsum("bij,jk->bik", x, y), [(2, 2, 3), (3, 4)], "c"),
    ("einsum_own_sums", lambda m, x, y: m.einsum("ij,kl->ik", x, y), [(2, 3), (4, 2)], ""),
    # strided.linalg: inverses, determinants, solvers
    ("inv", lambda m, x: m.linalg.inv(wc(m, x)), [(3, 3)], "c"),
    ("inverse", lambda m, x: m.inverse(wc(m, x)), [(2, 3, 3)], "c"),
    ("inv_ex", lambda m, x: m.linalg.inv_ex(wc(m, x)).inverse, [(3, 3)], "c"),
    ("det", lambda m, x: m.linalg.det(x), [(3, 3)], "c"),
    ("det_batched", lambda m, x: m.det(x), [(2, 3, 3)], "c"),
    ("det_singular", lambda m, x: m.linalg.det(_sing(m, x)), [(2, 3)], "cn"),
    ("slogdet", lambda m, x: tuple(m.linalg.slogdet(x)), [(3, 3)], "c"),
    ("slogdet_torch", lambda m, x: m.slogdet(x)[1], [(2, 3, 3)], "c"),
    ("logdet", lambda m, x: m.logdet(hpd(m, x)), [(3, 3)], "c"),
    ("solve", lambda m, a, b: m.linalg.solve(wc(m, a), b), [(3, 3), (3, 2)], "c"),
    # left=False: complex left out (torch returns a conjugate view the harness cannot read)
    ("solve_right", lambda m, a, b: m.linalg.solve(wc(m, a), b, left=False), [(3, 3), (2, 3)],
     ""),
    ("solve_vector", lambda m, a, b: m.linalg.solve(wc(m, a), b), [(3, 3), (3,)], "c"),
    ("solve_broadcast", lambda m, a, b: m.linalg.solve(wc(m, a), b), [(3, 3), (2, 3, 2)], "c"),
    ("solve_ex", lambda m, a, b: m.linalg.solve_ex(wc(m, a), b).result, [(2, 3, 3), (3, 2)], "c"),
    # decompositions
    ("cholesky", lambda m, x: m.linalg.cholesky(hpd(m, x)), [(3, 3)], "c"),
    ("cholesky_upper", lambda m, x: m.linalg.cholesky(hpd(m, x), upper=True), [(2, 3, 3)], "c"),
    ("cholesky_ex", lambda m, x: m.linalg.cholesky_ex(hpd(m, x)).L, [(3, 3)], "c"),
    ("qr", lambda m, x: tuple(m.linalg.qr(x)), [(3, 3)], "c"),
    ("qr_tall", lambda m, x: tuple(m.linalg.qr(x)), [(4, 3)], "c"),
    ("qr_wide", lambda m, x: tuple(m.linalg.qr(x)), [(3, 4)], "c"),
    ("qr_complete_wide", lambda m, x: tuple(m.linalg.qr(x, mode="complete")), [(3, 4)], "c"),
    ("qr_torch", lambda m, x: tuple(m.qr(x)), [(2, 4, 3)], ""),
    ("svd", lambda m, x: svd_inv(m, m.linalg.svd(x, full_matrices=False)), [(3, 3)], "c"),
    ("svd_tall", lambda m, x: svd_inv(m, m.linalg.svd(x, full_matrices=False)), [(3, 2)], "c"),
    ("svd_wide", lambda m, x: svd_inv(m, m.linalg.svd(x, full_matrices=False)), [(2, 3)], "c"),
    ("svd_full_matrices", lambda m, x: svd_inv(m, m.linalg.svd(x)), [(3, 2)], "c"),
    ("svd_torch", lambda m, x: (lambda U, S, V: (S, U @ V.mT))(*m.svd(x)), [(4, 3)], ""),
    ("svd_torch_no_uv", lambda m, x: m.svd(x, compute_uv=False)[1], [(4, 3)], "c"),
    ("svdvals", lambda m, x: m.linalg.svdvals(x), [(2, 4, 3)], "c"),
    ("eigh", lambda m, x: eig_inv(m, m.linalg.eigh(herm(m, x))), [(3, 3)], "c"),
    ("eigh_upper", lambda m, x: eig_inv(m, m.linalg.eigh(herm(m, x), UPLO="U")), [(2, 3, 3)], "c"),
    ("eigvalsh", lambda m, x: m.linalg.eigvalsh(herm(m, x)), [(3, 3)], "c"),
    ("eig", lambda m, x: eig_inv(m, m.linalg.eig(x)), [(3, 3)], "cn"),
    ("eigvals", lambda m, x: m.linalg.eigvals(x), [(2, 3, 3)], "cn"),
    ("pinv_wide", lambda m, x: m.linalg.pinv(x), [(3, 4)], "c"),
    ("pinv_tall", lambda m, x: m.linalg.pinv(x), [(2, 4, 3)], "c"),
    ("pinv_hermitian", lambda m, x: m.linalg.pinv(herm(m, x), hermitian=True), [(3, 3)], "c"),
    ("pinv_rtol", lambda m, x: m.linalg.pinv(x, rtol=0.01), [(3, 4)], "c"),
    ("pinv_atol_tensor", lambda m, x: m.linalg.pinv(x, atol=m.tensor(0.01, dtype=m.float64)),
     [(3, 4)], ""),
    ("pinv_rcond", lambda m, x: m.linalg.pinv(x, 0.01), [(3, 4)], ""),
    ("pinverse", lambda m, x: m.pinverse(x), [(3, 4)], "c"),
    ("lstsq", lambda m, a, b: m.linalg.lstsq(a, b).solution, [(4, 3), (4, 2)], "c"),
    ("lstsq_residuals", lambda m, a, b: tuple(m.linalg.lstsq(a, b, driver="gelsd")[:2]),
     [(4, 3), (4, 2)], "c"),
    ("lstsq_vector", lambda m, a, b: tuple(m.linalg.lstsq(a, b, driver="gelsd")[:2]),
     [(2, 4, 3), (2, 4)], "c"),
    ("lstsq_wide", lambda m, a, b: m.linalg.lstsq(a, b).solution, [(3, 4), (3, 2)], ""),
    ("matrix_power_0", lambda m, x: m.matrix_power(x, 0) * x, [(3, 3)], ""),
    ("matrix_power_1", lambda m, x: m.matrix_power(x, 1), [(3, 3)], ""),
    ("matrix_power_3", lambda m, x: m.linalg.matrix_power(x, 3), [(3, 3)], "c"),
    ("matrix_power_6", lambda m, x: m.matrix_power(x, 6), [(2, 3, 3)], "c"),
    ("matrix_power_neg1", lambda m, x: m.matrix_power(wc(m, x), -1), [(3, 3)], ""),
    ("matrix_power_neg3", lambda m, x: m.linalg.matrix_power(wc(m, x), -3), [(3, 3)], "c"),
    ("multi_dot_2", lambda m, x, y: m.linalg.multi_dot([x, y]), [(2, 3), (3, 4)], "c"),
    ("multi_dot_3", lambda m, x, y, z: m.linalg.multi_dot([x, y, z]), [(2, 3), (3, 4), (4, 5)],
     ""),
    ("multi_dot_4", lambda m, x, y, z, w: m.linalg.multi_dot([x, y, z, w]),
     [(2, 3), (3, 4), (4, 5), (5, 2)], ""),
    ("multi_dot_vectors", lambda m, x, y, z: m.linalg.multi_dot([x, y, z]), [(3,), (3, 4), (4,)],
     "c"),
    # norms
    ("matrix_norm_fro", lambda m, x: m.linalg.matrix_norm(x), [(3, 4)], "c"),
    ("matrix_norm_nuc", lambda m, x: m.linalg.matrix_norm(x, "nuc"), [(3, 4)], "c"),
    ("matrix_norm_2", lambda m, x: m.linalg.matrix_norm(x, 2), [(2, 3, 4)], "c"),
    ("matrix_norm_-2", lambda m, x: m.linalg.matrix_norm(x, -2), [(3, 4)], "c"),
    ("matrix_norm_1", lambda m, x: m.linalg.matrix_norm(x, 1), [(3, 4)], "c"),
    ("matrix_norm_-1", lambda m, x: m.linalg.matrix_norm(x, -1), [(3, 4)], "c"),
    ("matrix_norm_inf", lambda m, x: m.linalg.matrix_norm(x, INF), [(3, 4)], "c"),
    ("matrix_norm_-inf", lambda m, x: m.linalg.matrix_norm(x, -INF), [(3, 4)], "c"),
    ("matrix_norm_2_dims_keep", lambda m, x: m.linalg.matrix_norm(x, 2, dim=(0, 2), keepdim=True),
     [(3, 2, 4)], ""),
    ("matrix_norm_1_dims_keep", lambda m, x: m.linalg.matrix_norm(x, 1, dim=(2, 0), keepdim=True),
     [(3, 2, 4)], ""),
    ("matrix_norm_nuc_keep", lambda m, x: m.linalg.matrix_norm(x, "nuc", keepdim=True), [(3, 4)],
     ""),
    ("norm", lambda m, x: m.linalg.norm(x), [(3, 4)], "c"),
    ("norm_2", lambda m, x: m.linalg.norm(x, 2), [(3, 4)], "c"),
    ("norm_fro", lambda m, x: m.linalg.norm(x, "fro"), [(3, 4)], ""),
    ("norm_nuc", lambda m, x: m.linalg.norm(x, "nuc"), [(3, 4)], "c"),
    ("norm_inf_matrix", lambda m, x: m.linalg.norm(x, INF), [(3, 4)], ""),
    ("norm_vector_3", lambda m, x: m.linalg.norm(x, 3), [(4,)], ""),
    ("norm_dim", lambda m, x: m.linalg.norm(x, dim=1), [(3, 4)], ""),
    ("norm_dims", lambda m, x: m.linalg.norm(x, dim=(0, 2)), [(3, 2, 4)], ""),
]

IDS = [c[0] for c in CASES]
COMPLEX = [c for c in CASES if "c" in c[3]]
F32 = [c for c in CASES if "n" not in c[3]]


def _contiguous(result):
    # gradgradcheck makes complex grad_outputs with the outputs' strides and then refuses
    # them when not contiguous: hand it contiguous outputs
    if isinstance(result, tuple):
        return tuple(r.contiguous() for r in result)
    return result.contiguous()


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_against_torch(case):
    _, program, shapes, _ = case
    check_grads(program, shapes)


@pytest.mark.parametrize("case", F32, ids=[c[0] for c in F32])
def test_against_torch_float32(case):
    _, program, shapes, _ = case
    check_grads(program, shapes, dtype="float32", rtol=2e-4, atol=2e-4)


@pytest.mark.parametrize("case", COMPLEX, ids=[c[0] for c in COMPLEX])
def test_against_torch_complex(case):
    _, program, shapes, _ = case
    check_grads(program, shapes, dtype="complex128")


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_gradcheck(case):
    _, program, shapes, _ = case
    gradcheck_strided(program, shapes, second=True)


@pytest.mark.parametrize("case", COMPLEX, ids=[c[0] for c in COMPLEX])
def test_gradcheck_complex(case):
    # first order only (second order for complex inputs: a few cases in
    # test_gradgradcheck_complex, to keep the file fast)
    _, program, shapes, _ = case
    gradcheck_strided(lambda m, *xs: _contiguous(program(m, *xs)), shapes, dtype="complex128")


SECOND_COMPLEX = ["mm", "addmm_scaled", "inv", "det", "slogdet", "solve", "cholesky", "qr",
                  "svd", "eigh", "eig", "pinv_wide", "lstsq"]


@pytest.mark.parametrize("name", SECOND_COMPLEX)
def test_gradgradcheck_complex(name):
    _, program, shapes, _ = next(c for c in CASES if c[0] == name)
    gradcheck_strided(lambda m, *xs: _contiguous(program(m, *xs)), shapes, second=True,
                      dtype="complex128")


def _first(result):
    return result[0] if isinstance(result, tuple) else result


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_node_name(case):
    _, program, shapes, _ = case
    values = leaf_values(shapes, seed=7)
    rs = _first(program(strided, *[strided.from_numpy(v.copy()).requires_grad_()
                                   for v in values]))
    rt = _first(program(torch, *[torch.from_numpy(v.copy()).requires_grad_() for v in values]))
    assert rs.grad_fn.name() == rt.grad_fn.name()


# -- whole graphs where strided decomposes as torch does -----------------------------------------

GRAPHS = [
    ("matmul_1_2", lambda m, x, y: x @ y, [(3,), (3, 4)]),
    ("matmul_3_2", lambda m, x, y: x @ y, [(2, 4, 3), (3, 5)]),
    ("matmul_2_3", lambda m, x, y: x @ y, [(4, 3), (2, 3, 5)]),
    ("matmul_1_3", lambda m, x, y: x @ y, [(3,), (2, 3, 4)]),
    ("matmul_3_3", lambda m, x, y: x @ y, [(2, 3, 4), (2, 4, 5)]),
    ("matmul_b1_3", lambda m, x, y: x @ y, [(1, 3, 4), (2, 4, 5)]),
    ("tensordot", lambda m, x, y: m.tensordot(x, y, ([1, 2], [1, 0])), [(2, 3, 4), (4, 3, 5)]),
    ("kron", lambda m, x, y: m.kron(x, y), [(2, 3), (2, 2)]),
    ("einsum_mm", lambda m, x, y: m.einsum("ij,jk->ik", x, y), [(2, 3), (3, 4)]),
    ("einsum_chain", lambda m, x, y, z: m.einsum("ij,jk,kl->il", x, y, z), [(2, 3), (3, 4),
                                                                          (4, 2)]),
    ("einsum_trace", lambda m, x: m.einsum("ii", x), [(3, 3)]),
    ("matrix_power_6", lambda m, x: m.matrix_power(x, 6), [(3, 3)]),
    ("matrix_power_neg3", lambda m, x: m.matrix_power(wc(m, x), -3), [(3, 3)]),
    ("multi_dot_vectors", lambda m, x, y, z: m.linalg.multi_dot([x, y, z]), [(3,), (3, 4), (4,)]),
    ("matrix_norm_2_keep", lambda m, x: m.linalg.matrix_norm(x, 2, keepdim=True), [(2, 3, 4)]),
    ("matrix_norm_inf", lambda m, x: m.linalg.matrix_norm(x, INF), [(3, 4)]),
    ("logdet", lambda m, x: m.logdet(hpd(m, x)), [(3, 3)]),
    ("svd_torch", lambda m, x: m.svd(x)[2], [(3, 3)]),
]


def _nodes(t):
    # the leaves' AccumulateGrad nodes are named differently ("torch::autograd::...")
    return [n for n in grad_fn_names(t) if not n.endswith("AccumulateGrad")]


@pytest.mark.parametrize("case", GRAPHS, ids=[c[0] for c in GRAPHS])
def test_graph_as_torch(case):
    _, program, shapes = case
    values = leaf_values(shapes, seed=3)
    rs = program(strided, *[strided.from_numpy(v.copy()).requires_grad_() for v in values])
    rt = program(torch, *[torch.from_numpy(v.copy()).requires_grad_() for v in values])
    assert _nodes(rs) == _nodes(rt)


# -- errors and non-differentiable outputs ------------------------------------------------------

ERRORS = [
    ("qr_mode_r", lambda m, x: m.linalg.qr(x, mode="r")[1], [(3, 3)]),
    ("qr_complete_tall", lambda m, x: tuple(m.linalg.qr(x, mode="complete")), [(4, 3)]),
    ("eig_phase_dependent", lambda m, x: m.linalg.eig(x)[1].real, [(3, 3)]),
    ("mm_out", lambda m, x, y: m.mm(x, y, out=m.empty(2, 2, dtype=m.float64)), [(2, 3), (3, 2)]),
    ("inv_out", lambda m, x: m.linalg.inv(x, out=m.empty(2, 2, dtype=m.float64)), [(2, 2)]),
    ("matmul_out", lambda m, x, y: m.matmul(x, y, out=m.empty(0, dtype=m.float64)),
     [(2, 3), (3,)]),
    ("kron_out", lambda m, x, y: m.kron(x, y, out=m.empty(0, dtype=m.float64)), [(2,), (3,)]),
    ("solve_out", lambda m, x, y: m.linalg.solve(wc(m, x), y, out=m.empty(0, dtype=m.float64)),
     [(2, 2), (2,)]),
    ("cholesky_out", lambda m, x: m.linalg.cholesky(hpd(m, x), out=m.empty(0, dtype=m.float64)),
     [(2, 2)]),
    ("matrix_power_out", lambda m, x: m.matrix_power(x, 3, out=m.empty(0, dtype=m.float64)),
     [(2, 2)]),
    ("multi_dot_out", lambda m, x, y: m.linalg.multi_dot([x, y], out=m.empty(0, dtype=m.float64)),
     [(2, 3), (3, 2)]),
    ("addmm_leaf_inplace", lambda m, b, x, y: b.addmm_(x, y), [(2, 2), (2, 3), (3, 2)]),
]


@pytest.mark.parametrize("case", ERRORS, ids=[c[0] for c in ERRORS])
def test_errors_as_torch(case):
    _, program, shapes = case
    check_grads(program, shapes)


def test_svd_phase_dependent_loss_raises():
    check_grads(lambda m, x: m.linalg.svd(x)[0].real, [(3, 3)], dtype="complex128")


def test_eigh_phase_dependent_loss_raises():
    check_grads(lambda m, x: m.linalg.eigh(herm(m, x))[1].real, [(3, 3)], dtype="complex128")


def test_matrix_rank_is_not_differentiable():
    x = strided.randn(3, 4, dtype=strided.float64, requires_grad=True)
    r = strided.linalg.matrix_rank(x)
    assert r.grad_fn is None and not r.requires_grad


def test_info_outputs_are_not_differentiable():
    x = strided.eye(3, dtype=strided.float64).requires_grad_()
    inv, info = strided.linalg.inv_ex(x)
    assert inv.grad_fn.name() == "LinalgInvExBackward0"
    assert info.grad_fn is None and not info.requires_grad


def test_lstsq_rank_and_singular_values_are_not_differentiable():
    values = leaf_values([(4, 3), (4, 2)], seed=5)
    for m in (strided, torch):
        a, b = (m.from_numpy(v.copy()).requires_grad_() for v in values)
        out = m.linalg.lstsq(a, b, driver="gelsd")
        assert out.rank.grad_fn is None
        assert out.singular_values.grad_fn is None
        assert out.residuals.grad_fn is not None


def test_no_grad_uses_the_plain_kernels():
    x = strided.randn(2, 3, 4, dtype=strided.float64, requires_grad=True)
    y = strided.randn(4, 5, dtype=strided.float64)
    with strided.no_grad():
        out = x @ y
    assert out.grad_fn is None
    assert strided.allclose(out, x.detach() @ y)
