"""Kernels of the rest of torch's linear algebra: ``addr``, the distances (``cdist``'s
``_cdist_forward`` / ``_cdist_backward`` / ``_euclidean_dist``, ``dist``), the Cholesky
family (``cholesky``, ``cholesky_inverse``, ``cholesky_solve``), the triangular solvers
(``triangular_solve``, ``linalg.solve_triangular``), the LU family (``linalg.lu_factor_ex``,
``linalg.lu``, ``linalg.lu_solve``, ``lu_unpack``), ``ormqr``, the LDL family, and the
composites torch builds from other ops (``cdist``, ``chain_matmul``, ``linalg.vecdot``,
``linalg.cond``, ``linalg.tensorinv``...).

Note [Triangular solves by substitution]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
NumPy has no ``trsm``. A triangular system is solved by substitution, one row at a time
over the whole batch and every right-hand side at once (a loop over the small dimension
n; each step is one batched matrix-vector product). This is LAPACK's own algorithm, so a
zero on the diagonal gives torch's infinities and NaNs instead of an exception.

Note [LU with partial pivoting]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
NumPy exposes no ``getrf`` either. ``_getrf`` is the right-looking elimination LAPACK's
``getf2`` performs, batched: at step j the pivot is the first row (from j down) of largest
``|re| + |im|`` (LAPACK's ``i?amax`` measure), the rows are swapped, the column below the
pivot is divided by it and the trailing block gets a rank-1 update. A zero pivot leaves the
column as it is and records ``info = j + 1`` (the first such j), as LAPACK does. Pivots are
1-based int32, LU is column-major, as torch returns them.
"""

from __future__ import annotations

import numpy as np

from ..core import dtypes as dt
from ..core.checks import check, maybe_wrap_dim
from ..core.promotion import result_type_of
from ..core.tensor_impl import numel_of
from . import complex32 as _c32
from . import views
from .broadcast import broadcast_pair
from .linalg import (
    _batch_prefix,
    _check_out_dtype,
    _colmajor,
    _copy_outs,
    _fill,
    _LinAlgError,
    _new,
)
from .tensor_iterator import TensorIteratorConfig

_FLOATS = ("float32", "float64", "complex64", "complex128")


def _s():
    import strided
    return strided


def _is_meta(*ts) -> bool:
    return any(t is not None and t._device.type == "meta" for t in ts)


def _kernel_dtype(t, kernel: str) -> None:
    """torch's dispatch macro for the LAPACK kernels: float and complex only."""
    if t._dtype.name not in _FLOATS:
        raise NotImplementedError(f'"{kernel}" not implemented for \'{t._dtype._scalar_name}\'')


def _square(A, prefix: str) -> None:
    m, n = A._sizes[-2], A._sizes[-1]
    check(m == n, lambda: (
        f"{prefix}A must be batches of square matrices, but they are {m} by {n} matrices"))


def _at_least_2d(t, fname: str, arg: str = "A") -> None:
    check(len(t._sizes) >= 2, lambda: (
        f"{fname}: The input tensor {arg} must have at least 2 dimensions."))


def _adj(a: np.ndarray) -> np.ndarray:
    a = np.swapaxes(a, -1, -2)
    return a.conj() if np.iscomplexobj(a) else a


def _rowmajor(shape, dtype, device):
    return _new(tuple(shape), dtype, device)


def _mT_colmajor(shape, dtype, device):
    """A row-major tensor of ``shape`` (the transpose of a column-major one)."""
    return _rowmajor(shape, dtype, device)


# -- NumPy: substitution and elimination --------------------------------------------------------

def _trisolve(a: np.ndarray, b: np.ndarray, upper: bool, unit: bool) -> np.ndarray:
    """X with ``tri(a) X = b`` (Note [Triangular solves by substitution]); ``a`` (..., n, n)
    and ``b`` (..., n, k) already have one batch shape."""
    n = a.shape[-1]
    x = np.empty(np.broadcast_shapes(a.shape[:-2], b.shape[:-2]) + b.shape[-2:],
                 np.result_type(a, b))
    b = np.broadcast_to(b, x.shape)
    a = np.broadcast_to(a, x.shape[:-2] + (n, n))
    rows = range(n - 1, -1, -1) if upper else range(n)
    with np.errstate(all="ignore"):
        for i in rows:
            lo, hi = (i + 1, n) if upper else (0, i)
            if hi > lo:
                s = b[..., i, :] - np.matmul(a[..., i:i + 1, lo:hi], x[..., lo:hi, :])[..., 0, :]
            else:
                s = b[..., i, :].copy()
            x[..., i, :] = s if unit else s / a[..., i, i, None]
    return x


def _tri_inverse(a: np.ndarray, upper: bool, unit: bool = False) -> np.ndarray:
    n = a.shape[-1]
    eye = np.broadcast_to(np.eye(n, dtype=a.dtype), a.shape)
    return _trisolve(a, eye, upper, unit)


def _cabs1(x: np.ndarray) -> np.ndarray:
    return np.abs(x.real) + np.abs(x.imag) if np.iscomplexobj(x) else np.abs(x)


def _getrf(arr: np.ndarray):
    """(LU, 1-based int32 pivots, int32 info) of every matrix of ``arr`` (Note [LU with
    partial pivoting])."""
    batch = arr.shape[:-2]
    m, n = arr.shape[-2:]
    k = min(m, n)
    a = np.array(arr.reshape((int(np.prod(batch)), m, n)), copy=True)
    nb = a.shape[0]
    piv = np.empty((nb, k), np.int32)
    info = np.zeros(nb, np.int32)
    idx = np.arange(nb)
    with np.errstate(all="ignore"):
        for j in range(k):
            p = j + np.argmax(_cabs1(a[:, j:, j]), axis=1)
            piv[:, j] = p + 1
            pivot = a[idx, p, j]
            zero = pivot == 0
            swap = (p != j) & ~zero
            if swap.any():
                s = idx[swap]
                rows = a[s, j].copy()
                a[s, j] = a[s, p[swap]]
                a[s, p[swap]] = rows
            if zero.any():
                fresh = zero & (info == 0)
                info[fresh] = j + 1
            if j + 1 < m:
                d = np.where(zero, 1, a[:, j, j])
                a[:, j + 1:, j] = np.where(zero[:, None], a[:, j + 1:, j],
                                           a[:, j + 1:, j] / d[:, None])
                if j + 1 < n:
                    a[:, j + 1:, j + 1:] -= a[:, j + 1:, j, None] * a[:, j, None, j + 1:]
    return (a.reshape(batch + (m, n)), piv.reshape(batch + (k,)), info.reshape(batch))


def _perm_of(piv: np.ndarray, m: int) -> np.ndarray:
    """perm[..., i]: the row of A that is row i of P^T A (the pivots' swaps applied in
    order to 0..m-1)."""
    batch = piv.shape[:-1]
    flat = piv.reshape((int(np.prod(batch)), piv.shape[-1])).astype(np.int64) - 1
    perm = np.broadcast_to(np.arange(m), (flat.shape[0], m)).copy()
    idx = np.arange(flat.shape[0])
    for i in range(flat.shape[1]):
        j = flat[:, i]
        a = perm[idx, i].copy()
        perm[idx, i] = perm[idx, j]
        perm[idx, j] = a
    return perm.reshape(batch + (m,))


def _lu_solve_values(lu: np.ndarray, piv: np.ndarray, b: np.ndarray, adjoint: bool):
    """X with ``A X = B`` (``A^H X = B`` when ``adjoint``), ``A = P L U`` packed in ``lu``;
    lu, piv, b share their batch shape."""
    n = lu.shape[-1]
    perm = _perm_of(piv, n)
    if not adjoint:
        pb = np.take_along_axis(b, perm[..., :, None], axis=-2)     # P^T B
        y = _trisolve(lu, pb, upper=False, unit=True)
        return _trisolve(lu, y, upper=True, unit=False)
    ah = _adj(lu)
    y = _trisolve(ah, b, upper=False, unit=False)                   # U^H y = B
    z = _trisolve(ah, y, upper=True, unit=True)                     # L^H z = y
    x = np.empty_like(z)
    np.put_along_axis(x, perm[..., :, None], z, axis=-2)            # P z
    return x


# -- addr -----------------------------------------------------------------------------------------

def _addr_checks(vec1, vec2):
    check(len(vec1._sizes) == 1, lambda: (
        f"addr: Expected 1-D argument vec1, but got {len(vec1._sizes)}-D"))
    check(len(vec2._sizes) == 1, lambda: (
        f"addr: Expected 1-D argument vec2, but got {len(vec2._sizes)}-D"))


def _addr_impl(out, self, vec1, vec2, beta, alpha):
    """``out = beta * self + alpha * outer(vec1, vec2)`` through torch's TensorIterator set-up
    (promotion, the output's layout, safe casting to out=)."""
    col = views.view(vec1, (vec1._sizes[0], 1))
    it = TensorIteratorConfig(
        outputs=[out], inputs=[self, col, vec2], allow_cpu_scalars=True,
        promote_inputs_to_common_dtype=True, cast_common_dtype_to_outputs=True,
        enforce_safe_casting_to_output=True).build()
    ct = it.common_dtype
    if ct is dt.bool_:
        b, a = bool(beta), bool(alpha)
    else:
        integral = ct.category <= dt.INT
        check(not (integral and isinstance(beta, float)),
              "For integral input tensors, argument beta must not be a floating point number.")
        check(not (integral and isinstance(alpha, float)),
              "For integral input tensors, argument alpha must not be a floating point number.")
        b, a = beta, alpha
    result = it.output(0)
    if it.is_meta or not numel_of(result._sizes):
        it.bump_versions()
        return result
    o, s, v1, v2 = it.arrays()
    with np.errstate(all="ignore"):
        if ct is dt.bool_:
            values = (v1 & v2) if a else np.zeros(o.shape, bool)
            if b:
                values = values | s
        else:
            # torch's loop: beta * self + (alpha * vec1) * vec2, each step rounded to the
            # common dtype (half types included)
            npd = ct.np
            prod = (np.asarray(a, npd) * v1.astype(npd)) * v2.astype(npd)
            if b == 0:
                values = prod
            else:
                values = np.asarray(b, npd) * s.astype(npd) + prod
        np.copyto(o, values, casting="unsafe")
    it.bump_versions()
    return result


def addr(self, vec1, vec2, beta=1, alpha=1):
    _addr_checks(vec1, vec2)
    target = (vec1._sizes[0], vec2._sizes[0])
    self = views.expand(self, target)
    return _addr_impl(None, self, vec1, vec2, beta, alpha)


def addr_(self, vec1, vec2, beta=1, alpha=1):
    _addr_checks(vec1, vec2)
    check(len(self._sizes) == 2, lambda: (
        f"2D tensor expected, got {len(self._sizes)}D tensor for input"))
    return _addr_impl(self, self, vec1, vec2, beta, alpha)


def addr_out(self, vec1, vec2, beta=1, alpha=1, out=None):
    _addr_checks(vec1, vec2)
    target = (vec1._sizes[0], vec2._sizes[0])
    self = views.expand(self, target)
    return _addr_impl(out, self, vec1, vec2, beta, alpha)


# -- cdist, dist ---------------------------------------------------------------------------------

def _cdist_shape_checks(x1, x2):
    check(len(x1._sizes) >= 2, lambda: (
        f"cdist only supports at least 2D tensors, X1 got: {len(x1._sizes)}D"))
    check(len(x2._sizes) >= 2, lambda: (
        f"cdist only supports at least 2D tensors, X2 got: {len(x2._sizes)}D"))
    check(x1._sizes[-1] == x2._sizes[-1], lambda: (
        f"X1 and X2 must have the same number of columns. X1: {x1._sizes[-1]} X2: "
        f"{x2._sizes[-1]}"))


def _uses_mm(p, mode, r1, r2) -> bool:
    return p == 2 and (mode == 1 or (mode == 0 and (r1 > 25 or r2 > 25)))


def _cdist_impl_checks(x1, x2, p, compute_mode):
    check(x1._dtype.is_floating_point, lambda: (
        f"cdist only supports floating-point dtypes, X1 got: {x1._dtype._scalar_name}"))
    check(x1._dtype.is_floating_point, lambda: (
        f"cdist only supports floating-point dtypes, X2 got: {x2._dtype._scalar_name}"))
    check(p >= 0, "cdist only supports non-negative p values")
    mode = 0 if compute_mode is None else compute_mode
    check(0 <= mode <= 2, lambda: f"possible modes: 0, 1, 2, but was: {mode}")
    return mode


def _norms_of_diffs(d: np.ndarray, p) -> np.ndarray:
    a = np.abs(d)
    if p == 0:
        return (a != 0).sum(-1).astype(d.dtype)
    if p == 1:
        return a.sum(-1)
    if p == 2:
        return np.sqrt((a * a).sum(-1))
    if p == float("inf"):
        return a.max(-1, initial=0)
    return np.power(np.power(a, p).sum(-1), 1.0 / p)


def _cdist_values(a: np.ndarray, b: np.ndarray, p) -> np.ndarray:
    """Distances between the rows of a (B, r1, c) and b (B, r2, c), in blocks of rows."""
    nb, r1, c = a.shape
    r2 = b.shape[1]
    out = np.empty((nb, r1, r2), a.dtype)
    step = max(1, (1 << 18) // max(r2 * c, 1))
    with np.errstate(all="ignore"):
        for lo in range(0, r1, step):
            d = a[:, lo:lo + step, None, :] - b[:, None, :, :]
            out[:, lo:lo + step] = _norms_of_diffs(d, p)
    return out


def cdist_forward(x1, x2, p, compute_mode):
    _cdist_shape_checks(x1, x2)
    mode = _cdist_impl_checks(x1, x2, p, compute_mode)
    r1, r2, c = x1._sizes[-2], x2._sizes[-2], x1._sizes[-1]
    batch = broadcast_pair(x1._sizes[:-2], x2._sizes[:-2])
    shape = batch + (r1, r2)
    if _uses_mm(p, mode, r1, r2) and numel_of(shape) and c:
        return views.view(euclidean_dist(views.expand(x1, batch + (r1, c)),
                                         views.expand(x2, batch + (r2, c))), shape)
    result = _new(shape, x1._dtype, x1._device)
    if _is_meta(x1, x2) or not numel_of(shape):
        return result
    check(x1._dtype is x2._dtype, lambda: (
        f"expected scalar type {x1._dtype._scalar_name} but found {x2._dtype._scalar_name}"))
    if c == 0:
        return _fill(result, 0)
    nb = numel_of(batch)
    a = np.broadcast_to(x1._array(), batch + (r1, c)).reshape((nb, r1, c))
    b = np.broadcast_to(x2._array(), batch + (r2, c)).reshape((nb, r2, c))
    return _fill(result, _cdist_values(a, b, p).reshape(shape))


def euclidean_dist(x1, x2):
    batch = broadcast_pair(x1._sizes[:-2], x2._sizes[:-2])
    shape = batch + (x1._sizes[-2], x2._sizes[-2])
    dtype = dt.promote(x1._dtype, x2._dtype)
    result = _new(shape, dtype, x1._device)
    if _is_meta(x1, x2) or not numel_of(shape):
        return result
    a = x1._array().astype(dtype.np, copy=False)
    b = x2._array().astype(dtype.np, copy=False)
    with np.errstate(all="ignore"):
        na = (a * a).sum(-1, keepdims=True)
        nbn = (b * b).sum(-1, keepdims=True)
        a_ = np.concatenate([a * -2, na, np.ones_like(na)], -1)
        b_ = np.concatenate([b, np.ones_like(nbn), nbn], -1)
        r = np.matmul(a_, np.swapaxes(b_, -1, -2))
        r = np.sqrt(np.maximum(r, 0))
    return _fill(result, r)


def cdist_backward(grad, x1, x2, p, cdist):
    r1, r2, c = x1._sizes[-2], x2._sizes[-2], x1._sizes[-1]
    batch = broadcast_pair(x1._sizes[:-2], x2._sizes[:-2])
    nb = numel_of(batch)
    if r1 == 0 or r2 == 0 or c == 0 or nb == 0:
        out = _new(x1._sizes, x1._dtype, x1._device)
        return out if _is_meta(x1) else _fill(out, 0)
    result = _new(batch + (r1, c), x1._dtype, x1._device)
    if _is_meta(grad, x1, x2, cdist):
        return result
    a = np.broadcast_to(x1._array(), batch + (r1, c)).reshape((nb, r1, c))
    b = np.broadcast_to(x2._array(), batch + (r2, c)).reshape((nb, r2, c))
    g = grad._array().reshape((nb, r1, r2)).astype(a.dtype)
    dist = cdist._array().reshape((nb, r1, r2)).astype(a.dtype)
    out = np.zeros((nb, r1, c), a.dtype)
    if p != 0:
        step = max(1, (1 << 18) // max(r2 * c, 1))
        with np.errstate(all="ignore"):
            for lo in range(0, r1, step):
                d = a[:, lo:lo + step, None, :] - b[:, None, :, :]
                gg = g[:, lo:lo + step, :, None]
                dd = dist[:, lo:lo + step, :, None]
                if p == 1:
                    contrib = np.sign(d) * gg
                elif p == 2:
                    contrib = np.where(dd == 0, 0, gg * d / dd)
                elif p == float("inf"):
                    contrib = gg * np.sign(d) * (np.abs(d) == dd)
                elif p < 2:
                    contrib = np.where((dd == 0) | ((d == 0) & (p < 1)), 0,
                                       np.sign(d) * np.power(np.abs(d), p - 1) * gg
                                       / np.power(dd, p - 1))
                else:
                    contrib = np.where(dd == 0, 0, d * np.power(np.abs(d), p - 2) * gg
                                       / np.power(dd, p - 1))
                out[:, lo:lo + step] = contrib.sum(2)
    return _fill(result, out.reshape(batch + (r1, c)))


def cdist_composite(x1, x2, p=2, compute_mode=None):
    """torch's ``cdist``: ``_cdist_forward`` (CdistBackward0), or for p = 2 with the
    matrix-product mode the Euclidean route (EuclideanDistBackward0) taken here."""
    _cdist_shape_checks(x1, x2)
    s = _s()
    r1, r2 = x1._sizes[-2], x2._sizes[-2]
    if not numel_of(x1._sizes) or not numel_of(x2._sizes):
        return s.ops.aten._cdist_forward(x1, x2, p, compute_mode)
    mode = 0 if compute_mode is None else compute_mode
    if not _uses_mm(p, mode, r1, r2):
        return s.ops.aten._cdist_forward(x1, x2, p, compute_mode)
    _cdist_impl_checks(x1, x2, p, compute_mode)
    c = x1._sizes[-1]
    batch = broadcast_pair(x1._sizes[:-2], x2._sizes[:-2])
    nb = numel_of(batch)
    shape = batch + (r1, r2)
    if nb == 0:
        return s.empty(shape, dtype=x1.dtype, device=x1.device)
    if c == 0:
        return s.zeros(shape, dtype=x1.dtype, device=x1.device)
    if nb == 1:
        d = s.ops.aten._euclidean_dist(x1, x2)
    else:
        a = x1.expand(batch + (r1, c)).contiguous().view(nb, r1, c)
        b = x2.expand(batch + (r2, c)).contiguous().view(nb, r2, c)
        d = s.ops.aten._euclidean_dist(a, b)
    return d.view(shape)


def dist(self, other, p=2):
    """``norm(self - other, p)`` over every element (a 0-dim result), in the subtraction's
    dtype (a 0-dim operand does not widen a dimensioned one) and with its bool errors."""
    from .elementwise import _sub_check
    _sub_check(None, (self, other), ())
    dtype = result_type_of((self, other))
    check(dtype.is_floating_point or dtype.is_complex, lambda: (
        f"norm(): input dtype should be either floating point or complex. Got "
        f"{dtype._scalar_name} instead."))
    shape = broadcast_pair(self._sizes, other._sizes)
    real = dtype.to_real() if dtype.is_complex else dtype
    result = _new((), real, self._device)
    if _is_meta(self, other):
        return result
    if dtype is dt.complex32:    # Note [complex32]: the difference rounds to complex32
        with np.errstate(all="ignore"):
            d = _c32.narrow(_c32.narrow(self._array()) - _c32.narrow(other._array()))
        a, b = np.broadcast_to(d, shape), 0
    else:
        a = self._array().astype(dtype.np, copy=False)
        b = other._array().astype(dtype.np, copy=False)
    with np.errstate(all="ignore"):
        d = np.broadcast_to(a - b, shape).reshape(-1)
        if real.name in ("float16", "bfloat16"):
            d = d.astype(np.complex64 if dtype.is_complex else np.float32)
        p = float(p)
        if not d.size:
            v = 0.0 if p >= 0 or p != p else float("inf")
        elif p == float("-inf"):
            v = np.abs(d).min()
        elif p < 0:
            v = np.power(np.power(np.abs(d), p).sum(), 1.0 / p)
        else:
            v = _norms_of_diffs(d, p)
    return _fill(result, v)


# -- Cholesky family ----------------------------------------------------------------------------

def _views_warn(key, text):
    views.warn_once(key, text)


def cholesky(self, upper=False):
    _views_warn("torch.cholesky", (
        "torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed "
        "in a future PyTorch release.\nL = torch.cholesky(A)\nshould be replaced with\nL = "
        "torch.linalg.cholesky(A)\nand\nU = torch.cholesky(A, upper=True)\nshould be replaced "
        "with\nU = torch.linalg.cholesky(A).mH\nThis transform will produce equivalent results "
        "for all valid (symmetric positive definite) inputs."))
    return _cholesky(self, upper, "cholesky")


def _cholesky(self, upper, fname):
    from .linalg import _cholesky_impl
    _at_least_2d(self, fname)
    _square(self, f"{fname}: ")
    _kernel_dtype(self, "cholesky_cpu")
    result, info = _cholesky_impl(self, upper, None, check_errors=False)
    if not _is_meta(self) and info._array().any():
        infos = info._array().reshape(-1)
        b = int(np.flatnonzero(infos)[0])
        raise _LinAlgError(
            f"{fname}: {_batch_prefix(b, self.dim() > 2)}The factorization could not be "
            f"completed because the input is not positive-definite (the leading minor of "
            f"order {int(infos[b])} is not positive-definite).")
    return result


def _copy_plain(out, value):
    """out= the way torch's non-structured kernels fill it: resized like a new (row-major)
    tensor, then copied into."""
    from .resize import resize_output
    _check_out_dtype(out, value._dtype)
    resize_output(out, value._sizes)
    if not _is_meta(value):
        _fill(out, value._array())
    out._vc[0] += 1
    return out


def cholesky_out(self, upper=False, out=None):
    return _copy_plain(out, cholesky(self, upper))


def _tri_of(arr: np.ndarray, upper: bool) -> np.ndarray:
    """The lower factor L (the conjugate transpose of the upper one when ``upper``)."""
    return _adj(np.triu(arr)) if upper else np.tril(arr)


def _cholesky_inverse(self, upper, fname="cholesky_inverse"):
    _at_least_2d(self, fname)
    _square(self, f"{fname}: ")
    _kernel_dtype(self, "cholesky_inverse_out_cpu")
    result = _colmajor(self._sizes, self._dtype, self._device)
    if _is_meta(self) or not numel_of(self._sizes):
        return result
    low = _tri_of(self._array(), upper)
    diag = np.diagonal(low, 0, -2, -1)
    zero = (diag == 0)
    if zero.any():
        flat = zero.reshape((-1, zero.shape[-1]))
        b = int(np.flatnonzero(flat.any(-1))[0])
        i = int(np.argmax(flat[b])) + 1
        raise _LinAlgError(
            f"{fname}: {_batch_prefix(b, self.dim() > 2)}The diagonal element {i} is zero, the "
            f"inversion could not be completed because the input matrix is singular.")
    inv = _tri_inverse(low, upper=False)
    with np.errstate(all="ignore"):
        values = np.matmul(_adj(inv), inv)
    return _fill(result, values)


def cholesky_inverse(self, upper=False):
    return _cholesky_inverse(self, upper)


def cholesky_inverse_out(self, upper=False, out=None):
    return _copy_outs((out,), (_cholesky_inverse(self, upper),))[0]


def _solve_checks(b, A, name):
    """torch's linearSolveCheckInputs."""
    check(b._dtype is A._dtype, lambda: (
        f"Expected b and A to have the same dtype, but found b of type "
        f"{b._dtype._scalar_name} and A of type {A._dtype._scalar_name} instead."))
    _square(A, "")
    check(A._sizes[-1] == b._sizes[-2], lambda: (
        f"Incompatible matrix sizes for {name}: each A matrix is {A._sizes[-1]} by "
        f"{A._sizes[-1]} but each b matrix is {b._sizes[-2]} by {b._sizes[-1]}"))


def _batch_of(b, A):
    return broadcast_pair(b._sizes[:-2], A._sizes[:-2])


def cholesky_solve(self, input2, upper=False):
    check(len(self._sizes) >= 2, lambda: (
        f"b should have at least 2 dimensions, but has {len(self._sizes)} dimensions instead"))
    check(len(input2._sizes) >= 2, lambda: (
        f"u should have at least 2 dimensions, but has {len(input2._sizes)} dimensions "
        f"instead"))
    _solve_checks(self, input2, "cholesky_solve")
    batch = _batch_of(self, input2)
    _kernel_dtype(self, "cholesky_solve_cpu")
    shape = batch + self._sizes[-2:]
    result = _colmajor(shape, self._dtype, self._device)
    if _is_meta(self, input2) or not numel_of(shape):
        return result
    n = input2._sizes[-1]
    low = np.broadcast_to(_tri_of(input2._array(), upper), batch + (n, n))
    b = np.broadcast_to(self._array(), shape)
    y = _trisolve(low, b, upper=False, unit=False)
    return _fill(result, _trisolve(_adj(low), y, upper=True, unit=False))


def cholesky_solve_out(self, input2, upper=False, out=None):
    return _copy_plain(out, cholesky_solve(self, input2, upper))


# -- triangular solves ---------------------------------------------------------------------------

def _triangular_solve(self, A, upper, transpose, unitriangular):
    check(len(self._sizes) >= 2, lambda: (
        f"torch.triangular_solve: Expected b to have at least 2 dimensions, but it has "
        f"{len(self._sizes)} dimensions instead"))
    check(len(A._sizes) >= 2, lambda: (
        f"torch.triangular_solve: Expected A to have at least 2 dimensions, but it has "
        f"{len(A._sizes)} dimensions instead"))
    _solve_checks(self, A, "triangular_solve")
    batch = _batch_of(self, A)
    _kernel_dtype(self, "triangular_solve_cpu")
    n = A._sizes[-1]
    shape = batch + self._sizes[-2:]
    x = _colmajor(shape, self._dtype, self._device)
    m = _colmajor(batch + (n, n), A._dtype, A._device)
    if _is_meta(self, A):
        return x, m
    a = np.broadcast_to(A._array(), batch + (n, n))
    _fill(m, a)
    if not numel_of(shape):
        return x, m
    tri = np.triu(a) if upper else np.tril(a)
    if transpose:
        tri, upper = np.swapaxes(tri, -1, -2), not upper
    b = np.broadcast_to(self._array(), shape)
    return _fill(x, _trisolve(tri, b, upper, unitriangular)), m


def triangular_solve(self, A, upper=True, transpose=False, unitriangular=False):
    _views_warn("torch.triangular_solve", (
        "torch.triangular_solve is deprecated in favor of torch.linalg.solve_triangularand "
        "will be removed in a future PyTorch release.\ntorch.linalg.solve_triangular has its "
        "arguments reversed and does not return a copy of one of the inputs.\nX = "
        "torch.triangular_solve(B, A).solution\nshould be replaced with\nX = "
        "torch.linalg.solve_triangular(A, B)."))
    return _triangular_solve(self, A, upper, transpose, unitriangular)


def triangular_solve_X(self, A, upper=True, transpose=False, unitriangular=False, X=None,
                       M=None):
    return _copy_outs((X, M), _triangular_solve(self, A, upper, transpose, unitriangular))


def _solve_triangular(A, B, upper, left, unitriangular):
    fname = "linalg.solve_triangular"
    _at_least_2d(A, fname, "A")
    _at_least_2d(B, fname, "B")
    _square(A, f"{fname}: ")
    n = A._sizes[-1]
    rows = B._sizes[-2] if left else B._sizes[-1]
    eq = "AX = B" if left else "XA = B"
    check(rows == n, lambda: (
        f"{fname}: Incompatible shapes of A and B for the equation {eq} ({n}x{n} and "
        f"{B._sizes[-2]}x{B._sizes[-1]})"))
    batch = broadcast_pair(A._sizes[:-2], B._sizes[:-2])
    _kernel_dtype(A, "triangular_solve_cpu")
    shape = batch + B._sizes[-2:]
    result = _colmajor(shape, A._dtype, A._device)
    if _is_meta(A, B) or not numel_of(shape):
        return result
    a = np.broadcast_to(A._array(), batch + (n, n))
    tri = np.triu(a) if upper else np.tril(a)
    with np.errstate(all="ignore"):
        b = np.broadcast_to(B._array(), shape).astype(A._dtype.np)
    if left:
        x = _trisolve(tri, b, upper, unitriangular)
    else:   # X A = B  <=>  A^T X^T = B^T
        x = np.swapaxes(_trisolve(np.swapaxes(tri, -1, -2), np.swapaxes(b, -1, -2),
                                  not upper, unitriangular), -1, -2)
    return _fill(result, x)


def linalg_solve_triangular(self, B, upper, left=True, unitriangular=False):
    return _solve_triangular(self, B, upper, left, unitriangular)


def linalg_solve_triangular_out(self, B, upper, left=True, unitriangular=False, out=None):
    return _copy_outs((out,), (_solve_triangular(self, B, upper, left, unitriangular),))[0]


# -- LU family -----------------------------------------------------------------------------------

def _lu_error(api, info, batched):
    infos = info.reshape(-1)
    b = int(np.flatnonzero(infos)[0])
    i = int(infos[b])
    return RuntimeError(
        f"{api}: {_batch_prefix(b, batched)}U[{i},{i}] is zero and using it on lu_solve would "
        f"result in a division by zero. If you still want to perform the factorization, "
        f"consider calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)")


def _lu_factor(A, pivot, fname="torch.linalg.lu_factor_ex"):
    check(len(A._sizes) >= 2, lambda: (
        f"{fname}: Expected tensor with 2 or more dimensions. Got size: {list(A._sizes)} "
        f"instead"))
    _kernel_dtype(A, "lu_cpu")
    check(pivot, "linalg.lu_factor: LU without pivoting is not implemented on the CPU")
    m, n = A._sizes[-2:]
    batch = A._sizes[:-2]
    lu = _colmajor(A._sizes, A._dtype, A._device)
    piv = _new(batch + (min(m, n),), dt.int32, A._device)
    info = _new(batch, dt.int32, A._device)
    if _is_meta(A):
        return lu, piv, info
    if not numel_of(A._sizes):
        _fill(piv, np.arange(1, min(m, n) + 1, dtype=np.int32))
        return lu, piv, _fill(info, 0)
    values, pivots, infos = _getrf(A._array())
    return _fill(lu, values), _fill(piv, pivots), _fill(info, infos)


def linalg_lu_factor_ex(A, pivot=True, check_errors=False):
    lu, piv, info = _lu_factor(A, pivot)
    if check_errors and not _is_meta(A) and info._array().any():
        raise _lu_error("torch.linalg.lu_factor_ex", info._array(), A.dim() > 2)
    return lu, piv, info


def linalg_lu_factor_ex_out(A, pivot=True, check_errors=False, LU=None, pivots=None,
                            info=None):
    return _copy_outs((LU, pivots, info), linalg_lu_factor_ex(A, pivot, check_errors))


def _check_lu_info(info, api, is_matrix):
    if info._device.type == "meta" or not numel_of(info._sizes):
        return
    arr = info._array()
    if arr.any():
        raise _lu_error(api, arr, not is_matrix)


def linalg_lu_factor_composite(A, pivot=True):
    lu, piv, info = _s().linalg.lu_factor_ex(A, pivot=pivot)
    _check_lu_info(info, "torch.linalg.lu_factor", A.dim() == 2)
    return lu, piv


def linalg_lu_factor_out_composite(A, pivot=True, LU=None, pivots=None):
    s = _s()
    lu, piv, info = s.linalg.lu_factor_ex(A, pivot=pivot)
    _check_lu_info(info, "torch.linalg.lu_factor", A.dim() == 2)
    return _copy_outs((LU, pivots), (lu, piv))


def lu_with_info_composite(self, pivot=True, check_errors=True):
    _views_warn("torch.lu", (
        "torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex "
        "and will be removed in a future PyTorch release.\nLU, pivots = torch.lu(A, "
        "compute_pivots)\nshould be replaced with\nLU, pivots = torch.linalg.lu_factor(A, "
        "compute_pivots)\nand\nLU, pivots, info = torch.lu(A, compute_pivots, get_infos=True)\n"
        "should be replaced with\nLU, pivots, info = torch.linalg.lu_factor_ex(A, "
        "compute_pivots)"))
    return tuple(_s().linalg.lu_factor_ex(self, pivot=pivot))


def _unpack_values(lu: np.ndarray, piv, unpack_data, unpack_pivots):
    m, n = lu.shape[-2:]
    k = min(m, n)
    P = L = U = None
    if unpack_pivots:
        perm = _perm_of(piv, m)
        P = np.zeros(lu.shape[:-2] + (m, m), lu.dtype)
        np.put_along_axis(P, perm[..., None, :], 1, axis=-2)
    if unpack_data:
        L = np.tril(lu[..., :, :k], -1)
        idx = np.arange(k)
        L[..., idx, idx] = 1
        U = np.triu(lu[..., :k, :])
    return P, L, U


def _lu_unpack_checks(LU, pivots):
    check(len(LU._sizes) >= 2, lambda: (
        f"torch.lu_unpack: Expected tensor with 2 or more dimensions. Got size: "
        f"{list(LU._sizes)} instead"))
    check(pivots._dtype is dt.int32 and pivots.is_contiguous(), (
        "torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 "
        "dtype.\nNote: this function is intended to be used with the output produced by "
        "torch.linalg.lu_factor"))


def _pivots_valid(pivots, m, k) -> bool:
    if pivots._sizes[-1:] != (k,):
        return False
    if _is_meta(pivots) or not numel_of(pivots._sizes):
        return True
    p = pivots._array()
    return bool(((p >= 1) & (p <= m)).all())


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True):
    _lu_unpack_checks(LU_data, LU_pivots)
    m, n = LU_data._sizes[-2:]
    k = min(m, n)
    batch = LU_data._sizes[:-2]
    dtype, device = LU_data._dtype, LU_data._device
    P = _rowmajor(batch + (m, m), dtype, device) if unpack_pivots else _new((0,), dtype, device)
    if unpack_data:
        L = _rowmajor(batch + (m, k), dtype, device)
        U = _rowmajor(batch + (k, n), dtype, device)
    else:
        L = _new((0,), dtype, device)
        U = _new((0,), dtype, device)
    if unpack_pivots:
        check(_pivots_valid(LU_pivots, m, k), (
            "pivots passed to lu_unpack must be between 1 and LU.size(-2) inclusive.Did you "
            "properly pass the result of lu_factor?"))
    if _is_meta(LU_data, LU_pivots):
        return P, L, U
    piv = np.broadcast_to(LU_pivots._array(), batch + (k,)) if unpack_pivots else None
    p, low, up = _unpack_values(LU_data._array(), piv, unpack_data, unpack_pivots)
    if unpack_pivots:
        _fill(P, p)
    if unpack_data:
        _fill(L, low)
        _fill(U, up)
    return P, L, U


def lu_unpack_out(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True, P=None, L=None,
                  U=None):
    return _copy_outs((P, L, U), lu_unpack(LU_data, LU_pivots, unpack_data, unpack_pivots))


def linalg_lu(A, pivot=True):
    check(len(A._sizes) >= 2, lambda: (
        f"linalg.lu: Expected tensor with 2 or more dimensions. Got size: {list(A._sizes)} "
        f"instead"))
    _kernel_dtype(A, "lu_cpu")
    check(pivot, "linalg.lu_factor: LU without pivoting is not implemented on the CPU")
    m, n = A._sizes[-2:]
    k = min(m, n)
    batch = A._sizes[:-2]
    P = _rowmajor(batch + (m, m), A._dtype, A._device)
    L = _rowmajor(batch + (m, k), A._dtype, A._device)
    U = _rowmajor(batch + (k, n), A._dtype, A._device)
    if _is_meta(A):
        return P, L, U
    if not numel_of(A._sizes):
        if numel_of(P._sizes):
            _fill(P, np.broadcast_to(np.eye(m, dtype=A._dtype.np), P._sizes))
        return P, L, U
    lu, piv, _ = _getrf(A._array())
    p, low, up = _unpack_values(lu, piv, True, True)
    return _fill(P, p), _fill(L, low), _fill(U, up)


def linalg_lu_out(A, pivot=True, P=None, L=None, U=None):
    return _copy_outs((P, L, U), linalg_lu(A, pivot))


def _lu_solve(LU, pivots, B, left, adjoint):
    fname = "linalg.lu_solve"
    check(len(LU._sizes) >= 2, lambda: (
        f"torch.linalg.lu_solve: Expected LU to have at least 2 dimensions, but it has "
        f"{len(LU._sizes)} dimensions instead"))
    check(len(B._sizes) >= 2, lambda: (
        f"torch.linalg.lu_solve: Expected B to have at least 2 dimensions, but it has "
        f"{len(B._sizes)} dimensions instead"))
    _square(LU, "torch.linalg.lu_solve: ")
    n = LU._sizes[-1]
    rows = B._sizes[-2] if left else B._sizes[-1]
    eq = "AX = B" if left else "XA = B"
    check(rows == n, lambda: (
        f"{fname}: Incompatible shapes of A and B for the equation {eq} ({n}x{n} and "
        f"{B._sizes[-2]}x{B._sizes[-1]})"))
    check(LU._dtype is B._dtype, lambda: (
        f"{fname}: Expected LU and B to have the same dtype, but found LU of type "
        f"{LU._dtype._scalar_name} and B of type {B._dtype._scalar_name} instead"))
    check(pivots._dtype is dt.int32, (
        f"{fname}: pivots should be a Tensor of scalar type torch.int32"))
    check(pivots._sizes[:-1] == LU._sizes[:-2] and pivots._sizes[-1:] == (n,), (
        f"{fname}: Number of pivots per batch should be same as the dimension of the matrix"))
    batch = broadcast_pair(LU._sizes[:-2], B._sizes[:-2])
    _kernel_dtype(LU, "linalg_lu_solve_cpu")
    shape = batch + B._sizes[-2:]
    if left:
        result = _colmajor(shape, LU._dtype, LU._device)
    else:
        result = _rowmajor(shape, LU._dtype, LU._device)
    if _is_meta(LU, pivots, B):
        return result
    if numel_of(pivots._sizes):
        p = pivots._array()
        check(bool((p >= 1).all()), (
            "Pivots given to lu_solve must all be greater or equal to 1. Did you properly pass "
            "the result of lu_factor?"))
        check(bool((p <= n).all()), (
            "Pivots given to lu_solve must all be smaller or equal to LU.size(-2). Did you "
            "properly pass the result of lu_factor?"))
    if not numel_of(shape):
        return result
    lu = np.broadcast_to(LU._array(), batch + (n, n))
    piv = np.broadcast_to(pivots._array(), batch + (n,))
    b = np.broadcast_to(B._array(), shape)
    if left:
        x = _lu_solve_values(lu, piv, b, adjoint)
    else:
        # X A = B  <=>  A^H X^H = B^H ; X A^H = B  <=>  A X^H = B^H
        x = _adj(_lu_solve_values(lu, piv, _adj(b), not adjoint))
    return _fill(result, x)


def linalg_lu_solve(LU, pivots, B, left=True, adjoint=False):
    return _lu_solve(LU, pivots, B, left, adjoint)


def linalg_lu_solve_out(LU, pivots, B, left=True, adjoint=False, out=None):
    return _copy_outs((out,), (_lu_solve(LU, pivots, B, left, adjoint),))[0]


def lu_solve_composite(self, LU_data, LU_pivots):
    _views_warn("torch.lu_solve", (
        "torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand will be removed in "
        "a future PyTorch release.\nNote that torch.linalg.lu_solve has its arguments "
        "reversed.\nX = torch.lu_solve(B, LU, pivots)\nshould be replaced with\nX = "
        "torch.linalg.lu_solve(LU, pivots, B)"))
    return _s().linalg.lu_solve(LU_data, LU_pivots, self)


def lu_solve_out_composite(self, LU_data, LU_pivots, out=None):
    lu_solve_composite(self, LU_data, LU_pivots)
    return _s().linalg.lu_solve(LU_data, LU_pivots, self, out=out)


# -- ormqr ---------------------------------------------------------------------------------------

def _ormqr_checks(input, tau, other, left):
    name = "torch.ormqr"
    check(len(input._sizes) >= 2, f"{name}: input must have at least 2 dimensions.")
    check(len(other._sizes) >= 2, f"{name}: other must have at least 2 dimensions.")
    left_dim = -2 if left else -1
    if left:
        check(other._sizes[-2] == input._sizes[-2],
              f"{name}: other.shape[-2] must be equal to input.shape[-2]")
    else:
        check(other._sizes[-1] == input._sizes[-2],
              f"{name}: other.shape[-1] must be equal to input.shape[-2]")
    which = "other.shape[-2]" if left else "other.shape[-1]"
    check(len(tau._sizes) >= 1 and tau._sizes[-1] <= min(other._sizes[left_dim],
                                                          input._sizes[-1]), (
        f"{name}: tau.shape[-1] must be equal to min({which}, input.shape[-1])"))
    check(len(input._sizes) - len(tau._sizes) == 1, lambda: (
        f"{name}: Expected tau to have one dimension less than input, but got tau.ndim equal "
        f"to {len(tau._sizes)} and input.ndim is equal to {len(input._sizes)}"))
    check(tau._sizes[:-1] == input._sizes[:-2], lambda: (
        f"{name}: Expected batch dimensions of tau to be equal to input.shape[:-2], but got "
        f"{list(tau._sizes[:-1])}"))
    check(len(other._sizes) == len(input._sizes), lambda: (
        f"{name}: Expected other to have the same number of dimensions as input, but got "
        f"other.ndim equal to {len(other._sizes)} and input.ndim is equal to "
        f"{len(input._sizes)}"))
    check(other._sizes[:-2] == input._sizes[:-2], lambda: (
        f"{name}: Expected batch dimensions of other to be equal to input.shape[:-2], but got "
        f"{list(other._sizes[:-2])}"))
    check(tau._dtype is input._dtype, lambda: (
        f"{name}: Expected input and tau to have the same dtype, but input has dtype"
        f"{input._dtype._scalar_name} and tau has dtype {tau._dtype._scalar_name}"))
    check(other._dtype is input._dtype, lambda: (
        f"{name}: Expected input and other to have the same dtype, but input has dtype"
        f"{input._dtype._scalar_name} and other has dtype {other._dtype._scalar_name}"))
    _kernel_dtype(input, "ormqr_cpu")


def _apply_reflectors(a: np.ndarray, tau: np.ndarray, c: np.ndarray, left: bool,
                      transpose: bool) -> np.ndarray:
    """op(Q) C (left) or C op(Q) (right), Q = H_0 ... H_{k-1}, H_i = I - tau_i v_i v_i^H,
    op = conjugate transpose when ``transpose``."""
    m = a.shape[-2]
    k = tau.shape[-1]
    c = np.array(c, copy=True)
    rows = np.arange(m)
    # left: Q C applies H_{k-1} first; Q^H C applies H_0^H first. right: mirrored.
    forward = (left and transpose) or (not left and not transpose)
    order = range(k) if forward else range(k - 1, -1, -1)
    for i in order:
        v = np.where(rows > i, a[..., :, i], 0).astype(a.dtype)
        v[..., i] = 1
        t = tau[..., i]
        if transpose:
            t = t.conj()
        if left:        # H C = C - t v (v^H C)
            w = np.einsum("...r,...rc->...c", v.conj(), c)
            c -= t[..., None, None] * v[..., :, None] * w[..., None, :]
        else:           # C H = C - t (C v) v^H
            w = np.einsum("...rc,...c->...r", c, v)
            c -= t[..., None, None] * w[..., :, None] * v.conj()[..., None, :]
    return c


def ormqr(self, input2, input3, left=True, transpose=False):
    _ormqr_checks(self, input2, input3, left)
    result = _colmajor(input3._sizes, input3._dtype, input3._device)
    if _is_meta(self, input2, input3) or not numel_of(input3._sizes):
        return result
    with np.errstate(all="ignore"):
        values = _apply_reflectors(self._array(), input2._array(), input3._array(), left,
                                   transpose)
    return _fill(result, values)


def ormqr_out(self, input2, input3, left=True, transpose=False, out=None):
    return _copy_outs((out,), (ormqr(self, input2, input3, left, transpose),))[0]


# -- composites: chain_matmul, vecdot, diagonal --------------------------------------------------

def chain_matmul_composite(matrices):
    views.warn_once("torch.chain_matmul", (
        "torch.chain_matmul is deprecated and will be removed in a future PyTorch release. Use "
        "torch.linalg.multi_dot instead, which accepts a list of two or more tensors rather "
        "than multiple parameters."))
    check(len(matrices) >= 1, "chain_matmul(): Expected one or more matrices")
    for t in matrices:
        check(len(t._sizes) == 2, lambda t=t: (
            f"Tensor dimension is {len(t._sizes)}, expected 2 instead."))
    if len(matrices) == 1:
        return matrices[0].clone()
    return _s().linalg.multi_dot(list(matrices))


def chain_matmul_out_composite(matrices, out=None):
    result = chain_matmul_composite(matrices)
    if len(matrices) == 1:
        return _copy_outs((out,), (result,))[0]
    return _s().linalg.multi_dot(list(matrices), out=out)


def _vecdot_checks(x, y):
    check(x._dtype.is_floating_point or x._dtype.is_complex, lambda: (
        f"linalg.vecdot: Expected a floating point or complex tensor as input. Got "
        f"{x._dtype._scalar_name}"))
    check(x._dtype is y._dtype, lambda: (
        f"linalg.vecdot: Expected x and y to have the same dtype, but found x of type "
        f"{x._dtype._scalar_name} and y of type {y._dtype._scalar_name} instead"))


def linalg_vecdot_composite(x, y, dim=-1):
    _vecdot_checks(x, y)
    s = _s()
    if x.dim() == 1 and y.dim() == 1:
        maybe_wrap_dim(dim, 1)
        return s.vdot(x, y)
    xc = x.conj() if x.is_complex() else x
    return (xc * y).sum(dim)


def linalg_vecdot_out_composite(x, y, dim=-1, out=None):
    _vecdot_checks(x, y)
    s = _s()
    if x.dim() == 1 and y.dim() == 1:
        return s.vdot(x, y, out=out)
    xc = x.conj() if x.is_complex() else x
    return s.sum(xc * y, dim, out=out)


def linalg_diagonal_composite(A, offset=0, dim1=-2, dim2=-1):
    return A.diagonal(offset, dim1, dim2)


# -- composites: cond, tensorinv, tensorsolve, vander --------------------------------------------

def _cond_ord_name(p) -> str:
    if isinstance(p, str):
        return p
    if isinstance(p, float):
        if p != p or p in (float("inf"), float("-inf")):
            return str(p)
        return f"{p:f}"
    return str(p)


def _cond_check_ord(p):
    if isinstance(p, str):
        check(p in ("fro", "nuc"), lambda: f"linalg.cond got an invalid norm type: {p}")
    else:
        check(abs(float(p)) in (1.0, 2.0, float("inf")), lambda: (
            f"linalg.cond got an invalid norm type: {float(p):g}"))


def _cond_empty(A):
    s = _s()
    real = A._dtype.to_real() if A._dtype.is_complex else A._dtype
    return s.zeros(A.shape[:-2], dtype=real, device=A.device)


def _cond_helper(A, p):
    s = _s()
    inverse, info = s.linalg.inv_ex(A)
    info = info.unsqueeze(-1).unsqueeze(-1)
    inverse.masked_fill_(info > 0, float("inf"))     # in place, as torch's (see below)
    result = s.linalg.matrix_norm(A, p) * s.linalg.matrix_norm(inverse, p)
    # torch fills the inverse in place after linalg_inv_ex saved it for backward, so the
    # backward of cond(A, ord) for ord = +-1, +-inf, 'fro' refuses with the version-counter
    # error; doing the same keeps the two libraries' behaviour identical
    return result.nan_to_num_(float("inf"), float("inf"), float("-inf"))


def linalg_cond_composite(self, p=None):
    s = _s()
    check(self.dim() >= 2, "linalg.cond: The input tensor must have at least 2 dimensions.")
    p = 2 if p is None else p
    _cond_check_ord(p)
    if self.numel() == 0:
        return _cond_empty(self)
    if abs(float(p)) == 2.0:
        sv = s.linalg.svdvals(self)
        smax, smin = sv.narrow(-1, 0, 1), sv.narrow(-1, sv.shape[-1] - 1, 1)
        result = s.div(smin, smax) if float(p) == -2.0 else s.div(smax, smin)
        return result.squeeze(-1)
    _square(self, f"linalg.cond(ord={_cond_ord_name(p)}): ")
    return _cond_helper(self, p)


def linalg_cond_p_str(self, p):
    s = _s()
    _at_least_2d(self, f"linalg.cond(ord={p})")
    _square(self, f"linalg.cond(ord={p}): ")
    _cond_check_ord(p)
    if self.numel() == 0:
        return _cond_empty(self)
    if p == "nuc":
        sv = s.linalg.svdvals(self)
        return sv.sum(-1) * sv.reciprocal().sum(-1)
    return _cond_helper(self, p)


def linalg_cond_out_composite(self, p=None, out=None):
    return _copy_plain(out, linalg_cond_composite(self, p))


def linalg_cond_p_str_out(self, p, out=None):
    return _copy_plain(out, linalg_cond_p_str(self, p))


def _prod(xs) -> int:
    out = 1
    for x in xs:
        out *= int(x)
    return out


def _inv_error(info_arr, api):
    infos = info_arr.reshape(-1)
    b = int(np.flatnonzero(infos)[0])
    return _LinAlgError(
        f"{api}: {_batch_prefix(b, infos.size > 1 and info_arr.ndim > 0)}The diagonal element "
        f"{int(infos[b])} is zero, the inversion could not be completed because the input "
        f"matrix is singular.")


def linalg_tensorinv_composite(self, ind=2):
    s = _s()
    check(ind > 0, lambda: f"Expected a strictly positive integer for 'ind', but got {ind}")
    end, start = list(self.shape[ind:]), list(self.shape[:ind])
    p_end, p_start = _prod(end), _prod(start)
    check(p_end == p_start, lambda: (
        f"Expected self to satisfy the requirement prod(self.shape[ind:]) == "
        f"prod(self.shape[:ind]), but got {p_end} != {p_start}"))
    result, info = s.linalg.inv_ex(self.reshape(p_end, p_end))
    if not _is_meta(info) and info._array().any():
        raise _inv_error(info._array(), "inv")
    return _reshape_like_torch(result, end + start)


def _reshape_like_torch(t, shape):
    """torch's reshape: a view of a non-contiguous tensor is made by ``_reshape_alias``
    (its graph shows ReshapeAliasBackward0)."""
    r = t.reshape(shape)
    if not t.is_contiguous() and r._base is not None and tuple(r.shape) != tuple(t.shape):
        return _s().ops.aten._reshape_alias(t, list(r.shape), list(r.stride()))
    return r


def reshape_alias(self, size, stride):
    return views.as_strided(self, size, stride, self._offset)


def linalg_tensorinv_out_composite(self, ind=2, out=None):
    return _copy_plain(out, linalg_tensorinv_composite(self, ind))


def linalg_tensorsolve_composite(self, other, dims=None):
    s = _s()
    nd = self.dim()
    x = self
    if dims is not None:
        dest = list(range(nd - len(dims), nd))
        x = s.movedim(x, list(dims), dest)
    shape = list(x.shape[other.dim():])
    rp, op = _prod(shape), _prod(other.shape)
    check(rp == op, lambda: (
        f"Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
        f"prod(self.shape[:other.ndim]), but got {rp} != {op}"))
    x = x.reshape(rp, rp)
    return s.linalg.solve(x, other.flatten()).reshape(shape)


def linalg_tensorsolve_out_composite(self, other, dims=None, out=None):
    return _copy_plain(out, linalg_tensorsolve_composite(self, other, dims))


def linalg_vander_composite(x, N=None):
    s = _s()
    t = x._dtype
    check(t.name in _FLOATS or (t.category == dt.INT), lambda: (
        f"linalg.vander supports floating point, complex, and integer tensors, but got "
        f"{t._scalar_name}"))
    x_ = x.unsqueeze(-1) if x.dim() == 0 else x
    shape = list(x_.shape)
    n = shape[-1] if N is None else N
    check(n > 1, "N must be greater than 1.")
    shape.append(n - 1)
    result = s.cumprod(x_.unsqueeze(-1).expand(shape), -1)
    shape[-1] = 1
    ones = result.new_ones(shape)
    return s.cat([ones, result], -1)


# -- LDL (Bunch-Kaufman) -------------------------------------------------------------------------
#
# Note [LDL factorization]
# ~~~~~~~~~~~~~~~~~~~~~~~~
# torch calls LAPACK's sytrf / hetrf with the lower triangle; for the small matrices where
# LAPACK runs its unblocked sytf2 / hetf2 this is the same algorithm: diagonal pivoting with
# the Bunch-Kaufman rule (alpha = (1 + sqrt(17)) / 8) choosing 1x1 or 2x2 blocks, LAPACK's
# compact storage of L and D in LD (strict upper triangle zero), and its pivot encoding
# (k for a 1x1 block with row k swapped in, -k twice for a 2x2 block). ``_sytrs`` is
# LAPACK's solve with that factorisation. Both loop over the columns of one matrix.

_BK_ALPHA = (1.0 + np.sqrt(17.0)) / 8.0


def _sytf2(a: np.ndarray, herm: bool):
    """Factor one matrix in place (lower triangle read); returns (pivots 1-based, info)."""
    n = a.shape[0]
    cplx = np.iscomplexobj(a)
    herm = herm and cplx
    ipiv = np.zeros(n, np.int32)
    info = 0
    cj = np.conj if herm else (lambda x: x)

    def dabs(x):
        return abs(x.real) if herm else float(_cabs1(np.asarray(x)))

    k = 0
    while k < n:
        kstep = 1
        if herm:
            a[k, k] = a[k, k].real
        absakk = dabs(a[k, k])
        if k + 1 < n:
            col = _cabs1(a[k + 1:, k])
            imax = k + 1 + int(np.argmax(col))
            colmax = float(col.max())
        else:
            imax, colmax = k, 0.0
        if max(absakk, colmax) == 0 or absakk != absakk:
            if info == 0:
                info = k + 1
            kp = k
            if herm:
                a[k, k] = a[k, k].real
        else:
            if absakk >= _BK_ALPHA * colmax:
                kp = k
            else:
                row = _cabs1(a[imax, k:imax])
                rowmax = float(row.max()) if row.size else 0.0
                if imax + 1 < n:
                    rowmax = max(rowmax, float(_cabs1(a[imax + 1:, imax]).max()))
                if absakk >= _BK_ALPHA * colmax * (colmax / rowmax):
                    kp = k
                elif dabs(a[imax, imax]) >= _BK_ALPHA * rowmax:
                    kp = imax
                else:
                    kp = imax
                    kstep = 2
            kk = k + kstep - 1
            if kp != kk:
                if kp + 1 < n:
                    t = a[kp + 1:, kk].copy()
                    a[kp + 1:, kk] = a[kp + 1:, kp]
                    a[kp + 1:, kp] = t
                for j in range(kk + 1, kp):
                    t = cj(a[j, kk])
                    a[j, kk] = cj(a[kp, j])
                    a[kp, j] = t
                if herm:
                    a[kp, kk] = np.conj(a[kp, kk])
                t = a[kk, kk]
                a[kk, kk] = a[kp, kp]
                a[kp, kp] = t
                if kstep == 2:
                    t = a[k + 1, k]
                    a[k + 1, k] = a[kp, k]
                    a[kp, k] = t
            elif herm:
                a[k, k] = a[k, k].real
                if kstep == 2:
                    a[k + 1, k + 1] = a[k + 1, k + 1].real
            if kstep == 1:
                if k + 1 < n:
                    d11 = 1.0 / (a[k, k].real if herm else a[k, k])
                    x = a[k + 1:, k].copy()
                    upd = np.tril(np.outer(x, cj(x)))
                    a[k + 1:, k + 1:] -= d11 * upd
                    if herm:
                        idx = np.arange(k + 1, n)
                        a[idx, idx] = a[idx, idx].real
                    a[k + 1:, k] = x * d11
            else:
                if k + 2 < n:
                    if herm:
                        d = abs(a[k + 1, k])
                        d11 = a[k + 1, k + 1].real / d
                        d22 = a[k, k].real / d
                        tt = 1.0 / (d11 * d22 - 1.0)
                        d21 = a[k + 1, k] / d
                        d = tt / d
                        wk = d * (d11 * a[k + 2:, k] - d21 * a[k + 2:, k + 1])
                        wkp1 = d * (d22 * a[k + 2:, k + 1] - np.conj(d21) * a[k + 2:, k])
                    else:
                        d21 = a[k + 1, k]
                        d11 = a[k + 1, k + 1] / d21
                        d22 = a[k, k] / d21
                        t = 1.0 / (d11 * d22 - 1.0)
                        d21 = t / d21
                        wk = d21 * (d11 * a[k + 2:, k] - a[k + 2:, k + 1])
                        wkp1 = d21 * (d22 * a[k + 2:, k + 1] - a[k + 2:, k])
                    upd = np.outer(a[k + 2:, k], cj(wk)) + np.outer(a[k + 2:, k + 1], cj(wkp1))
                    a[k + 2:, k + 2:] -= np.tril(upd)
                    a[k + 2:, k] = wk
                    a[k + 2:, k + 1] = wkp1
                    if herm:
                        idx = np.arange(k + 2, n)
                        a[idx, idx] = a[idx, idx].real
        if kstep == 1:
            ipiv[k] = kp + 1
        else:
            ipiv[k] = ipiv[k + 1] = -(kp + 1)
        k += kstep
    return ipiv, info


def _sytrs(a: np.ndarray, ipiv: np.ndarray, b: np.ndarray, herm: bool) -> np.ndarray:
    """X with A X = B for A = L D L^T (L D L^H when ``herm``) packed in ``a``, ``ipiv``."""
    n = a.shape[0]
    herm = herm and np.iscomplexobj(a)
    cj = np.conj if herm else (lambda x: x)
    b = np.array(b, copy=True)
    k = 0
    while k < n:
        if ipiv[k] > 0:
            kp = ipiv[k] - 1
            if kp != k:
                b[[k, kp]] = b[[kp, k]]
            if k + 1 < n:
                b[k + 1:] -= np.outer(a[k + 1:, k], b[k])
            b[k] /= a[k, k].real if herm else a[k, k]
            k += 1
        else:
            kp = -ipiv[k] - 1
            if kp != k + 1:
                b[[k + 1, kp]] = b[[kp, k + 1]]
            if k + 2 < n:
                b[k + 2:] -= np.outer(a[k + 2:, k], b[k])
                b[k + 2:] -= np.outer(a[k + 2:, k + 1], b[k + 1])
            akm1k = a[k + 1, k]
            akm1 = a[k, k] / cj(akm1k)
            ak = a[k + 1, k + 1] / akm1k
            denom = akm1 * ak - 1.0
            bkm1 = b[k] / cj(akm1k)
            bk = b[k + 1] / akm1k
            b[k] = (ak * bkm1 - bk) / denom
            b[k + 1] = (akm1 * bk - bkm1) / denom
            k += 2
    k = n - 1
    while k >= 0:
        if ipiv[k] > 0:
            if k + 1 < n:
                b[k] -= cj(a[k + 1:, k]) @ b[k + 1:]
            kp = ipiv[k] - 1
            if kp != k:
                b[[k, kp]] = b[[kp, k]]
            k -= 1
        else:
            if k + 1 < n:
                b[k] -= cj(a[k + 1:, k]) @ b[k + 1:]
                b[k - 1] -= cj(a[k + 1:, k - 1]) @ b[k + 1:]
            kp = -ipiv[k] - 1
            if kp != k:
                b[[k, kp]] = b[[kp, k]]
            k -= 2
    return b


def _ldl_factor(A, hermitian):
    fname = "torch.linalg.ldl_factor_ex"
    _at_least_2d(A, fname)
    _square(A, f"{fname}: ")
    check(A._dtype.is_floating_point or A._dtype.is_complex, lambda: (
        f"{fname}: Expected a floating point or complex tensor as input. Got "
        f"{A._dtype._scalar_name}"))
    _kernel_dtype(A, "ldl_factor_cpu")
    n = A._sizes[-1]
    batch = A._sizes[:-2]
    LD = _colmajor(A._sizes, A._dtype, A._device)
    piv = _new(batch + (n,), dt.int32, A._device)
    info = _new(batch, dt.int32, A._device)
    if _is_meta(A):
        return LD, piv, info
    arr = np.tril(A._array()).reshape((_prod(batch), n, n)).copy()
    pv = np.zeros((arr.shape[0], n), np.int32)
    inf = np.zeros(arr.shape[0], np.int32)
    with np.errstate(all="ignore"):
        for i in range(arr.shape[0]):
            pv[i], inf[i] = _sytf2(arr[i], hermitian)
    arr = np.tril(arr)
    _fill(LD, arr.reshape(A._sizes))
    _fill(piv, pv.reshape(batch + (n,)))
    return LD, piv, _fill(info, inf.reshape(batch))


def linalg_ldl_factor_ex(self, hermitian=False, check_errors=False):
    LD, piv, info = _ldl_factor(self, hermitian)
    if check_errors and not _is_meta(self) and info._array().any():
        _ldl_raise(info, "torch.linalg.ldl_factor_ex")
    return LD, piv, info


def _ldl_raise(info, api="torch.linalg.ldl_factor"):
    code = int(info._array().reshape(-1)[np.flatnonzero(info._array().reshape(-1))[0]])
    raise RuntimeError(
        'false INTERNAL ASSERT FAILED at "/__w/pytorch/pytorch/aten/src/ATen/native/'
        'BatchLinearAlgebra.cpp":1642, please report a bug to PyTorch. '
        f"{api}: Unknown error code: {code}.")


def linalg_ldl_factor_ex_out(self, hermitian=False, check_errors=False, LD=None, pivots=None,
                             info=None):
    return _copy_outs((LD, pivots, info), linalg_ldl_factor_ex(self, hermitian, check_errors))


def linalg_ldl_factor_composite(self, hermitian=False):
    LD, piv, info = _s().linalg.ldl_factor_ex(self, hermitian=hermitian)
    if not _is_meta(info) and numel_of(info._sizes) and info._array().any():
        _ldl_raise(info)
    return LD, piv


def linalg_ldl_factor_out_composite(self, hermitian=False, LD=None, pivots=None):
    return _copy_outs((LD, pivots), linalg_ldl_factor_composite(self, hermitian))


def _ldl_solve(LD, pivots, B, hermitian):
    name = "torch.linalg.ldl_solve"
    check(LD.dim() >= 2, lambda: (
        f"{name}: Expected LD to have at least 2 dimensions, but it has {LD.dim()} dimensions "
        f"instead"))
    _square(LD, f"{name}: ")
    check(LD._sizes[:-1] == pivots._sizes, lambda: (
        f"{name}: Expected LD.shape[:-1] and pivots.shape to be the same, but got pivots with "
        f"shape {list(pivots._sizes)} instead"))
    check(pivots._dtype is dt.int32, lambda: (
        f"{name}: Expected pivots to be integers. Got {pivots._dtype._scalar_name}"))
    check(LD._dtype is B._dtype, lambda: (
        f"Expected b and A to have the same dtype, but found b of type "
        f"{B._dtype._scalar_name} and A of type {LD._dtype._scalar_name} instead."))
    n = LD._sizes[-1]
    maybe_wrap_dim(-2, B.dim())     # torch reads B.size(-2): IndexError for a vector
    check(B._sizes[-2] == n, lambda: (
        f"{name}: Incompatible shapes of A and B for the equation AX = B ({n}x{n} and "
        f"{B._sizes[-2]}x{B._sizes[-1]})"))
    _kernel_dtype(LD, "ldl_solve_cpu")
    batch = broadcast_pair(LD._sizes[:-2], B._sizes[:-2])
    shape = batch + B._sizes[-2:]
    result = _colmajor(shape, B._dtype, B._device)
    if _is_meta(LD, pivots, B) or not numel_of(shape):
        return result
    p = pivots._array()
    check(bool((np.abs(p) >= 1).all()), (
        "Pivots given to ldl_solve must all satisfy |pivot| >= 1. Did you properly pass the "
        "result of ldl_factor?"))
    nb = _prod(batch)
    lds = np.broadcast_to(LD._array(), batch + (n, n)).reshape((nb, n, n))
    pvs = np.broadcast_to(p, batch + (n,)).reshape((nb, n))
    bs = np.broadcast_to(B._array(), shape).reshape((nb,) + B._sizes[-2:])
    with np.errstate(all="ignore"):
        out = np.stack([_sytrs(lds[i], pvs[i], bs[i], hermitian) for i in range(lds.shape[0])])
    return _fill(result, out.reshape(shape))


def linalg_ldl_solve(LD, pivots, B, hermitian=False):
    return _ldl_solve(LD, pivots, B, hermitian)


def linalg_ldl_solve_out(LD, pivots, B, hermitian=False, out=None):
    return _copy_outs((out,), (_ldl_solve(LD, pivots, B, hermitian),))[0]
