"""Helpers for the linear algebra formulas of derivatives_linalg.yaml.

Every helper is written with strided's public (differentiable) ops, so double backward
records through them. The results are the standard matrix-calculus ones (Giles, "An
extended collection of matrix derivative results"); the decompositions (SVD, eigh, eig,
QR, Cholesky) use the gauge-invariant forms. Complex inputs follow torch's convention:
the gradient is the conjugate Wirtinger derivative, so a linear map's gradient is its
adjoint applied to ``grad``.
"""

from __future__ import annotations

import strided as _s

from .formulas import conj_if_complex

__all__ = [
    "linalg_adj", "linalg_conj", "linalg_scale", "addbmm_batch_backward", "cholesky_backward",
    "det_backward", "eig_backward", "eigh_backward", "lstsq_backward", "pinv_backward",
    "qr_backward", "slogdet_backward", "solve_backward", "svd_backward",
]


# -- small pieces ------------------------------------------------------------------------------

def linalg_conj(t):
    """The complex conjugate (anything that is not a complex tensor or number as it is)."""
    return conj_if_complex(t)


def linalg_adj(t):
    """The conjugate transpose of the last two dims."""
    t = t.transpose(-2, -1)
    return linalg_conj(t) if t.is_complex() else t


def linalg_scale(t, s):
    """``t * conj(s)`` for a Scalar ``s`` (``t`` itself when ``s`` is 1)."""
    if s == 1 and not isinstance(s, bool):
        return t
    return t * linalg_conj(s)


def _eye_like(t, n=None):
    n = t.shape[-1] if n is None else n
    return _s.eye(n, dtype=t.dtype)


def _diag(t):
    return t.diagonal(0, -2, -1)


def _imag_part(t):
    """``i * Im(t)`` as a complex tensor: ``(t - conj(t)) / 2``."""
    return (t - linalg_conj(t)) * 0.5


def _solve(A, B, left=True):
    return _s.linalg.solve(A, B, left=left)


# -- products ----------------------------------------------------------------------------------

def addbmm_batch_backward(grad, batch1, batch2, alpha, which):
    """Gradient of ``alpha * sum_b batch1[b] @ batch2[b]`` for batch1 (which=0) or batch2."""
    g = grad.unsqueeze(0).expand(batch1.shape[0], grad.shape[0], grad.shape[1])
    if which == 0:
        out = g.bmm(linalg_adj(batch2))
    else:
        out = linalg_adj(batch1).bmm(g)
    return out if alpha == 1 else out * linalg_conj(alpha)


# -- inverses, determinants, solves ---------------------------------------------------------------

def _prod_others(s):
    """``out[..., i] = prod_{j != i} s[..., j]`` without dividing (s may hold zeros)."""
    n = s.shape[-1]
    eye = _eye_like(s, n)
    rows = s.unsqueeze(-2) * (1 - eye) + eye     # row i: s with s_i replaced by 1
    return rows.prod(-1)


def det_backward(grad, det, A):
    """Gradient of ``det(A)``: ``grad * conj(det) * A^{-H}``; for a singular matrix the
    adjugate from the SVD (``adj(A)^H = conj(det(U) det(Vh)) U adj(S) Vh``)."""
    if A.numel() == 0:
        return _s.zeros_like(A)
    g = (grad * linalg_conj(det)).unsqueeze(-1).unsqueeze(-1)
    if not bool((det == 0).any()):
        try:
            X, info = _s.linalg.solve_ex(linalg_adj(A), g * _eye_like(A))
        except ValueError:
            # the solve kernel lets NumPy's LinAlgError out for a numerically singular
            # matrix that its own pivot check passes: take the SVD path
            info = None
        if info is not None and not bool((info != 0).any()):
            return X
    U, S, Vh = _s.linalg.svd(A)
    phase = linalg_conj(_s.linalg.det(U) * _s.linalg.det(Vh))
    adj_s = _prod_others(S)
    adj_s = adj_s * phase.unsqueeze(-1)
    adjH = (U * adj_s.unsqueeze(-2)) @ Vh
    return grad.unsqueeze(-1).unsqueeze(-1) * adjH


def slogdet_backward(grad_sign, grad_logabsdet, A, sign):
    """Gradient of ``(sign, logabsdet) = slogdet(A)``. With ``t = tr(A^{-1} dA)``,
    ``d logabsdet = Re t`` and ``d sign = sign * i Im t``, so the gradient is
    ``conj(k) A^{-H}`` with ``conj(k) = g_logabsdet - i Im(conj(g_sign) sign)`` (the sign
    term only for complex inputs: a real sign is piecewise constant)."""
    if A.numel() == 0:
        return _s.zeros_like(A)
    k = grad_logabsdet
    if A.is_complex():
        k = k - _imag_part(linalg_conj(grad_sign) * sign)
    k = k.unsqueeze(-1).unsqueeze(-1)
    return _solve(linalg_adj(A), k * _eye_like(A))


def _is_vector_rhs(A, B) -> bool:
    return B.dim() == 1 or (B.dim() == A.dim() - 1 and tuple(B.shape) == tuple(A.shape[:-1]))


def solve_backward(grad, A, B, X, left):
    """Gradients of ``X = A^{-1} B`` (``X = B A^{-1}`` when not ``left``) for (A, B)."""
    AH = linalg_adj(A)
    if _is_vector_rhs(A, B):
        gB = _solve(AH, grad)
        gA = -gB.unsqueeze(-1) * linalg_conj(X).unsqueeze(-2)
    elif left:
        gB = _solve(AH, grad)
        gA = -(gB @ linalg_adj(X))
    else:
        gB = _solve(AH, grad, left=False)
        gA = -(linalg_adj(X) @ gB)
    return gA, gB


# -- decompositions --------------------------------------------------------------------------------

def cholesky_backward(grad, L, upper):
    """Gradient of the Cholesky factor (``A = L L^H``; ``U = L^H`` when ``upper``):
    ``S = L^{-H} Phi(L^H gL) L^{-1}`` with ``Phi`` the lower triangle with a halved
    diagonal, returned Hermitian (``(S + S^H) / 2``), as for a Hermitian input."""
    if upper:
        L = linalg_adj(L)
        grad = linalg_adj(grad)
    phi = (linalg_adj(L) @ grad).tril()
    # (fix by linalg helper) torch symmetrizes before the solves and keeps the diagonal of
    # L^H gL as it is: 0.5 * (T + tril(T, -1)^H), which differs from the symmetrized
    # result when a complex cotangent gives that diagonal an imaginary part
    phi = 0.5 * (phi + linalg_adj(phi.tril(-1)))
    S = _solve(linalg_adj(L), phi)             # L^{-H} Phi
    return _solve(L, S, left=False)            # ... L^{-1}


def _copyltu(M):
    """The Hermitian matrix with M's strictly lower triangle, its conjugate mirrored, and the
    real part of M's diagonal."""
    low = M.tril(-1)
    d = _diag(M)
    if M.is_complex():
        d = (d + linalg_conj(d)) * 0.5
    return low + linalg_adj(low) + _s.diag_embed(d)


def _qr_backward_tall(gQ, gR, Q, R):
    """``A = QR`` with ``m >= n`` (Q m-by-n): ``gA = [gQ + Q copyltu(M)] R^{-H}`` with
    ``M = R gR^H - gQ^H Q``."""
    M = R @ linalg_adj(gR) - linalg_adj(gQ) @ Q
    b = gQ + Q @ _copyltu(M)
    return _solve(linalg_adj(R), b, left=False)


def qr_backward(grads, A, Q, R, mode):
    gQ, gR = grads
    if mode == "r":
        raise RuntimeError(
            "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. "
            "Please use linalg.qr(A, mode='reduced') if you are going to differentiate "
            "through linalg.qr.")
    m, n = A.shape[-2], A.shape[-1]
    if mode == "complete" and m > n:
        raise RuntimeError(
            "The QR decomposition is not differentiable when mode='complete' and "
            "nrows > ncols.")
    if m >= n:
        return _qr_backward_tall(gQ, gR, Q, R)
    # wide: A = [X | Y], R = [U | V], X = Q U square (V's gradient is Q^H gY)
    U = R.narrow(-1, 0, m)
    gU = gR.narrow(-1, 0, m)
    gV = gR.narrow(-1, m, n - m)
    Y = A.narrow(-1, m, n - m)
    gX = _qr_backward_tall(gQ + Y @ linalg_adj(gV), gU, Q, U)
    gY = Q @ gV
    return _s.cat([gX, gY], -1)


def _check_gauge(term, scale, what):
    """torch's refusal of a loss that depends on the free phase of complex vectors: ``term``
    (the imaginary parts that must vanish) is not small next to ``scale``."""
    if term.numel() == 0:
        return
    bound = 1e-6 * max(1.0, float(scale.abs().max()))
    if float(term.abs().max()) > bound:
        raise RuntimeError(what)


def svd_backward(grads, A, full_matrices, U, S, Vh):
    """Gradient of ``A = U diag(S) Vh``: with ``F_ij = 1 / (s_j^2 - s_i^2)`` (0 on the
    diagonal),
    ``gA = U [ (F o (U^H gU - h.c.)) S + S (F o (V^H gV - h.c.)) + diag(gS) ] Vh
          + (I - U U^H) gU S^{-1} Vh + U S^{-1} gV^H (I - V V^H)``
    (plus, for complex inputs, the diagonal phase term ``i Im(diag(U^H gU)) / S``).
    With full_matrices the columns beyond min(m, n) are not defined and not used."""
    gU, gS, gVh = grads
    m, n = A.shape[-2], A.shape[-1]
    k = S.shape[-1]
    if full_matrices and m != n:
        U, gU = U.narrow(-1, 0, k), gU.narrow(-1, 0, k)
        Vh, gVh = Vh.narrow(-2, 0, k), gVh.narrow(-2, 0, k)
    complex_ = A.is_complex()
    gA = (U * gS.unsqueeze(-2)) @ Vh
    UhgU = linalg_adj(U) @ gU
    VhgV = Vh @ linalg_adj(gVh)
    s_row = S.unsqueeze(-2)                   # s_j along the columns
    s_col = S.unsqueeze(-1)                   # s_i along the rows
    eye = _eye_like(S, k)
    E = s_row * s_row - s_col * s_col + eye
    F = (1 - eye) / E
    J = F * (UhgU - linalg_adj(UhgU))
    K = F * (VhgV - linalg_adj(VhgV))
    inner = J * s_row + s_col * K
    if complex_:
        dU = _imag_part(_diag(UhgU))
        dV = _imag_part(_diag(VhgV))
        _check_gauge(dU + dV, _s.cat([UhgU.reshape(-1), VhgV.reshape(-1)]),
                     "svd_backward: The singular vectors in the complex case are specified "
                     "up to multiplication by e^{i phi}. The specified loss function depends "
                     "on this phase term, making it ill-defined.")
        inner = inner + _s.diag_embed((dU - dV) / (2 * S))
    gA = gA + U @ inner @ Vh
    if m > k:
        gA = gA + ((gU - U @ UhgU) / s_row) @ Vh
    if n > k:
        gV = linalg_adj(gVh)
        gA = gA + U @ linalg_adj((gV - linalg_adj(Vh) @ VhgV) / s_row)
    return gA


def eigh_backward(grads, L, V):
    """Gradient of ``A = V diag(L) V^H`` (A Hermitian):
    ``gA = V (diag(gL) + F o (V^H gV)) V^H`` with ``F_ij = 1 / (L_j - L_i)``, 0 on the
    diagonal."""
    gL, gV = grads
    n = L.shape[-1]
    eye = _eye_like(L, n)
    VhgV = linalg_adj(V) @ gV
    if V.is_complex():
        _check_gauge(_imag_part(_diag(VhgV)), VhgV,
                     "linalg_eigh_backward: The eigenvectors in the complex case are specified "
                     "up to multiplication by e^{i phi}. The specified loss function depends "
                     "on this quantity, so it is ill-defined.")
    F = (1 - eye) / (L.unsqueeze(-2) - L.unsqueeze(-1) + eye)
    # (op_db fix) torch projects V^H gV onto the skew-Hermitian matrices, so the gradient is
    # Hermitian (the input's other triangle gets its share, whatever UPLO read)
    skew = (VhgV - linalg_adj(VhgV)) * 0.5
    inner = F * skew + _s.diag_embed(gL)
    return V @ inner @ linalg_adj(V)


def eig_backward(grads, L, V):
    """Gradient of ``A V = V diag(L)`` (columns of V of norm 1):
    ``gA = V^{-H} (diag(gL) + conj(F) o (V^H gV - V^H V diag(Re diag(V^H gV)))) V^H``
    with ``F_ij = 1 / (L_j - L_i)``, 0 on the diagonal. A real input takes the real part
    (the engine casts)."""
    gL, gV = grads
    n = L.shape[-1]
    eye = _eye_like(L, n)
    VhgV = linalg_adj(V) @ gV
    d = _diag(VhgV)
    _check_gauge(_imag_part(d), VhgV,
                 "linalg_eig_backward: The eigenvectors in the complex case are specified up "
                 "to multiplication by e^{i phi}. The specified loss function depends on this "
                 "quantity, so it is ill-defined.")
    re = (d + linalg_conj(d)) * 0.5
    VhV = linalg_adj(V) @ V
    Econj = linalg_conj(L.unsqueeze(-2) - L.unsqueeze(-1)) + eye
    inner = (VhgV - VhV * re.unsqueeze(-2)) * ((1 - eye) / Econj) + _s.diag_embed(gL)
    return _solve(linalg_adj(V), inner @ linalg_adj(V))


def pinv_backward(grad, P, A):
    """Gradient of ``P = pinv(A)`` (constant rank):
    ``gA = -P^H gP P^H + (I - A P)^H gP^H P P^H + P^H P gP^H (I - P A)^H``."""
    PH = linalg_adj(P)
    gPH = linalg_adj(grad)
    gA = -(PH @ grad @ PH)
    gA = gA + (gPH - A @ (P @ gPH)) @ (P @ PH)
    gA = gA + (PH @ P) @ (gPH - gPH @ (P @ A))
    return gA


def lstsq_backward(grads, A, B, solution):
    """Gradients of ``lstsq(A, B)`` for (A, B): the solution is ``pinv(A) B``; the residuals
    (full-rank, tall A) are ``||A X - B||^2`` per column, stationary in X."""
    gX, gR = grads[0], grads[1]
    vector = B.dim() == A.dim() - 1
    X = solution
    if vector:
        gX = gX.unsqueeze(-1)
        X = X.unsqueeze(-1)
        B = B.unsqueeze(-1)
    P = _s.linalg.pinv(A)
    gB = linalg_adj(P) @ gX
    gA = pinv_backward(gX @ linalg_adj(B), P, A)
    if gR is not None and gR.numel() > 0:
        r = A @ X - B
        w = (2 * gR).unsqueeze(-2)       # residuals keep a size-1 last dim for a vector b
        gA = gA + (r * w) @ linalg_adj(X)
        gB = gB - r * w
    if vector:
        gB = gB.squeeze(-1)
    return gA, gB
