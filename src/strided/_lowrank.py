"""Randomized low-rank decompositions (torch._lowrank): ``svd_lowrank`` and
``pca_lowrank``, after Halko, Martinsson and Tropp (2009), algorithms 4.4 and 5.1.

They draw one Gaussian test matrix of shape (n, q) from the default generator, exactly as
torch draws it, so the same seed gives the same factors. Everything else is public strided
ops, so the result is differentiable the way torch's is.

    U, S, V = strided.svd_lowrank(A, q=4)      # A ~ U diag(S) V^H
"""

from __future__ import annotations

import strided as _s

__all__ = ["svd_lowrank", "pca_lowrank"]

_FLOATING = ("float16", "float32", "float64")


def _floating_dtype(A):
    return A.dtype if str(A.dtype).removeprefix("torch.") in _FLOATING else _s.float32


def _range_basis(A, q, niter=2, M=None):
    """Q (m, q) with orthonormal columns whose span approximates the range of ``A - M``,
    from ``niter`` power (subspace) iterations on a Gaussian start."""
    niter = 2 if niter is None else niter
    dtype = A.dtype if A.is_complex() else _floating_dtype(A)
    R = _s.randn(A.shape[-1], q, dtype=dtype, device=A.device)

    def times(X, Mx, B):        # (X - Mx) B without forming X - Mx
        return X.matmul(B) if Mx is None else X.matmul(B) - Mx.matmul(B)

    MH = M.mH if M is not None else None
    Q = _s.linalg.qr(times(A, M, R)).Q
    for _ in range(niter):
        Q = _s.linalg.qr(times(A.mH, MH, Q)).Q
        Q = _s.linalg.qr(times(A, M, Q)).Q
    return Q


def _svd_lowrank(A, q=6, niter=2, M=None):
    q = 6 if q is None else q
    m, n = A.shape[-2:]
    if M is not None:
        M = M.broadcast_to(A.size())
    wide = m < n
    if wide:
        A = A.mH
        M = M.mH if M is not None else None
    Q = _range_basis(A, q, niter=niter, M=M)
    B = Q.mH.matmul(A)
    if M is not None:
        B = B - Q.mH.matmul(M)
    U, S, Vh = _s.linalg.svd(B, full_matrices=False)
    V = Vh.mH
    U = Q.matmul(U)
    return (V, S, U) if wide else (U, S, V)


def svd_lowrank(A, q=6, niter=2, M=None):
    """An approximate SVD ``(U, S, V)`` of ``A`` (or of ``A - M``) of rank ``q``:
    ``A ~ U diag(S) V^H``."""
    return _svd_lowrank(A, q=q, niter=niter, M=M)


def pca_lowrank(A, q=None, center=True, niter=2):
    """Principal components of the rows of ``A``: the low-rank SVD of ``A`` minus its column
    means (``center=False`` takes ``A`` as already centred). ``q`` defaults to
    ``min(6, m, n)``."""
    m, n = A.shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif not (q >= 0 and q <= min(m, n)):
        raise ValueError(
            f"q(={q}) must be non-negative integer and not greater than min(m, n)={min(m, n)}")
    if not (niter >= 0):
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if not center:
        return _svd_lowrank(A, q, niter=niter, M=None)
    C = A.mean(dim=(-2,), keepdim=True)
    return _svd_lowrank(A - C, q, niter=niter, M=None)
