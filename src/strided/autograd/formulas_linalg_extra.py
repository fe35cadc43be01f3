"""Helpers for the backward formulas of autograd/derivatives/linalg_extra.yaml (addr, the
distances, the Cholesky, triangular and LU families, ormqr). Public, differentiable strided
ops only, so double backward records through them. The results are the standard
matrix-calculus adjoints; complex inputs get the conjugate Wirtinger derivative, as in
torch (a linear map's gradient is its adjoint applied to ``grad``).
"""

from __future__ import annotations

import strided as _s

__all__ = [
    "addr_vec_grads", "euclidean_dist_grads", "cdist_grad_x2", "cholesky_inverse_grad",
    "cholesky_solve_grads", "triangular_solve_grads", "solve_triangular_grads",
    "lu_factor_ex_grad", "linalg_lu_grad", "lu_solve_grads", "lu_unpack_grad", "ormqr_grads",
]


def _mH(t):
    t = t.transpose(-2, -1)
    return t.conj() if t.is_complex() else t


def _conj(x):
    if isinstance(x, complex):
        return x.conjugate()
    if isinstance(x, _s.Tensor) and x.is_complex():
        return x.conj()
    return x


def _scaled(t, s):
    if s == 1 and not isinstance(s, bool):
        return t
    return t * _conj(s)


def addr_vec_grads(grad, vec1, vec2, alpha, which):
    """Gradient of ``alpha * outer(vec1, vec2)`` for vec1 (which=0) or vec2."""
    if which == 0:
        return _scaled(grad.mv(_conj(vec2)), alpha)
    return _scaled(grad.t().mv(_conj(vec1)), alpha)


def euclidean_dist_grads(grad, x1, x2, res):
    """(grad_x1, grad_x2) of ``res = sqrt(|x1_i|^2 - 2 x1_i.x2_j + |x2_j|^2)``; 0 where the
    distance is 0 (a subgradient)."""
    if grad is None:
        return None, None
    ratio = (grad / res).masked_fill(res == 0, 0)
    g1 = x1 * ratio.sum(-1, keepdim=True) - ratio.matmul(x2)
    g2 = x2 * ratio.sum(-2).unsqueeze(-1) - ratio.mT.matmul(x1)
    return g1, g2


def cdist_grad_x2(grad, x1, x2, p, result):
    return _s.ops.aten._cdist_backward(grad.mT.contiguous(), x2, x1, p,
                                       result.mT.contiguous())


def cholesky_inverse_grad(grad, L, upper, inverse):
    """torch's formula: ``-(G + G^H)`` sandwiched by the inverse, times the factor."""
    common = grad + _mH(grad)
    common = inverse.matmul(common.matmul(inverse))
    return -L.matmul(common) if upper else -common.matmul(L)


def cholesky_solve_grads(grad, self, input2, result, upper):
    """(grad_b, grad_factor) of ``X = (L L^H)^{-1} B``."""
    if grad is None:
        return None, None
    g_self = grad.cholesky_solve(input2, upper)
    common = g_self.matmul(_mH(result))
    common = common + _mH(common)
    g_in = -input2.matmul(common) if upper else -common.matmul(input2)
    return g_self, g_in


def _tri(t, upper, unit):
    return t.triu(int(unit)) if upper else t.tril(-int(unit))


def triangular_solve_grads(grads, self, A, solution, upper, transpose, unitriangular):
    """(grad_b, grad_A) of ``op(tri(A)) X = b`` and of the returned copy of A."""
    gx, gm = grads
    gb = ga = None
    if gx is not None:
        gb = _s.triangular_solve(gx, A.conj() if A.is_complex() else A, upper, not transpose,
                                 unitriangular).solution
        if transpose:
            sc = solution.conj() if solution.is_complex() else solution
            ga = -sc.matmul(gb.mT)
        else:
            ga = -gb.matmul(_mH(solution))
        ga = _tri(ga, upper, unitriangular)
    if gm is not None:
        ga = gm if ga is None else ga + gm
    if gb is None:
        gb = _s.zeros_like(self)
    if ga is None:
        ga = _s.zeros_like(A)
    return gb, ga


def solve_triangular_grads(grad, A, X, upper, left, unitriangular):
    """(grad_A, grad_B) of ``X = tri(A)^{-1} B`` (``B tri(A)^{-1}`` when not left)."""
    if grad is None:
        return None, None
    gB = _s.linalg.solve_triangular(_mH(A), grad, upper=not upper, left=left,
                                    unitriangular=unitriangular)
    gA = -gB.matmul(_mH(X)) if left else -_mH(X).matmul(gB)
    return _tri(gA, upper, unitriangular), gB


# -- LU -----------------------------------------------------------------------------------------

def _solve_tri(A, B, upper, left=True, unit=False):
    return _s.linalg.solve_triangular(A, B, upper=upper, left=left, unitriangular=unit)


def linalg_lu_grad(gL, gU, P, L, U, pivot=True):
    """Gradient of ``A = P L U`` (L unit lower m-by-k, U upper k-by-n) from those of L, U.
    Square: ``gA = P L^{-H} [L^H gL o 1_L + gU U^H o 1_U] U^{-H}``; the wide and tall cases
    split U (resp. L) into its square block and the rest."""
    if gL is None and gU is None:
        return None
    m, n = L.shape[-2], U.shape[-1]
    k = min(m, n)
    if m == n:
        gA = None
        if gL is not None:
            gA = (_mH(L) @ gL).tril(-1)
        if gU is not None:
            t = (gU @ _mH(U)).triu()
            gA = t if gA is None else gA + t
        gA = _solve_tri(_mH(U), gA, upper=False, left=False)
        gA = _solve_tri(_mH(L), gA, upper=True, left=True, unit=True)
    elif m < n:
        U1 = U.narrow(-1, 0, k)
        gA = None
        if gL is not None:
            gA = _mH(L) @ gL
        if gU is not None:
            t = gU.triu() @ _mH(U)
            gA = -t if gA is None else gA - t
        gA = _solve_tri(_mH(U1), gA.tril(-1), upper=False, left=False)
        if gU is not None:
            gA = _s.cat([gA + gU.narrow(-1, 0, k).triu(), gU.narrow(-1, k, n - k)], -1)
        gA = _solve_tri(_mH(L), gA, upper=True, left=True, unit=True)
        if gU is None:
            gA = _s.cat([gA, _s.zeros_like(U.narrow(-1, k, n - k))], -1)
    else:
        L1 = L.narrow(-2, 0, k)
        gA = None
        if gU is not None:
            gA = gU @ _mH(U)
        if gL is not None:
            t = _mH(L) @ gL.tril(-1)
            gA = -t if gA is None else gA - t
        gA = _solve_tri(_mH(L1), gA.triu(), upper=True, left=True, unit=True)
        if gL is not None:
            gA = _s.cat([gA + gL.narrow(-2, 0, k).tril(-1), gL.narrow(-2, k, m - k)], -2)
        gA = _solve_tri(_mH(U), gA, upper=False, left=False)
        if gL is None:
            gA = _s.cat([gA, _s.zeros_like(L.narrow(-2, k, m - k))], -2)
    return P @ gA if pivot else gA


def lu_factor_ex_grad(grad, LU, pivots, pivot):
    """Gradient of the packed factorisation: L's part is the strict lower triangle, U's the
    upper one."""
    P, L, U = _s.lu_unpack(LU, pivots, True, pivot)
    m, n = LU.shape[-2], LU.shape[-1]
    k = min(m, n)
    return linalg_lu_grad(grad.narrow(-1, 0, k), grad.narrow(-2, 0, k), P, L, U, pivot)


def lu_solve_grads(grad, LU, pivots, X, left, adjoint):
    """(grad_LU, grad_B) of ``X = op(A)^{-1} B`` (or ``B op(A)^{-1}``), A = P L U packed
    in LU."""
    if grad is None:
        return None, None
    gB = _s.linalg.lu_solve(LU, pivots, grad, left=left, adjoint=not adjoint)
    P, L, U = _s.lu_unpack(LU, pivots, True, left == adjoint)
    if left != adjoint:
        # A^{-1} appears as U^{-1} L^{-1} P^T: gR = U^{-H} op(-gX) op(X)^H
        rhs = -(grad.matmul(_mH(X)) if left else _mH(grad).matmul(X))
        gR = _solve_tri(_mH(U), rhs, upper=False)
        gL = _solve_tri(_mH(L), gR.matmul(_mH(U)), upper=True, unit=True).tril(-1)
        gLU = gL + gR.triu()
    else:
        # A^{-H} = P L^{-H} U^{-H}
        gR = -P.mT.matmul(X if left else _mH(X)).matmul(_mH(grad) if left else grad).matmul(P)
        gR = _solve_tri(_mH(L), gR, upper=True, left=False, unit=True)
        gU = _solve_tri(_mH(U), _mH(L).matmul(gR), upper=False, left=False).triu()
        gLU = gR.tril(-1) + gU
    return gLU, gB


def lu_unpack_grad(gL, gU, m, n):
    if gL is None and gU is None:
        return None
    k = min(m, n)
    if m == n:
        if gL is None:
            return gU.triu()
        if gU is None:
            return gL.tril(-1)
        return gL.tril(-1) + gU.triu()
    if m < n:       # L m-by-m, U m-by-n
        out = gU.triu() if gU is not None else None
        if gL is not None:
            low = _s.cat([gL.tril(-1), _s.zeros(gL.shape[:-1] + (n - k,), dtype=gL.dtype)],
                         -1)
            out = low if out is None else out + low
        return out
    out = gL.tril(-1) if gL is not None else None       # L m-by-n, U n-by-n
    if gU is not None:
        up = _s.cat([gU.triu(), _s.zeros(gU.shape[:-2] + (m - k, n), dtype=gU.dtype)], -2)
        out = up if out is None else out + up
    return out


# -- ormqr ---------------------------------------------------------------------------------------

def ormqr_grads(grad, self, input2, input3, left, transpose):
    """Gradients of ``op(Q) C`` through the reflectors: Q formed from (self, tau) by
    ``householder_product`` over the full m-by-m space, differentiated by the engine."""
    if grad is None:
        return None, None, None
    if self.numel() == 0:       # torch's formula leaves the reflectors without a gradient
        return None, None, grad.clone()
    with _s.enable_grad():
        a = self.detach().requires_grad_(True)
        tau = input2.detach().requires_grad_(True)
        c = input3.detach().requires_grad_(True)
        m, k = a.shape[-2], a.shape[-1]
        if k < m:
            pad = _s.zeros(a.shape[:-1] + (m - k,), dtype=a.dtype)
            full = _s.cat([a, pad], -1)
        else:
            full = a.narrow(-1, 0, m)
        q = _s.linalg.householder_product(full, tau)
        if transpose:
            q = _mH(q)
        out = q.matmul(c) if left else c.matmul(q)
        return _s.autograd.grad(out, (a, tau, c), grad, allow_unused=True)
