"""Kernels of torch.nn.utils's operators: weight normalisation.

Note [Weight norm kernels]
~~~~~~~~~~~~~~~~~~~~~~~~~~
``_weight_norm(v, g, dim)`` is a composite, as in torch: for ``dim`` the first or the
last dimension it calls the fused ``_weight_norm_interface`` (one node,
``WeightNormInterfaceBackward0``), otherwise ``v * (g / norm_except_dim(v, 2, dim))``.
The fused kernel views ``v`` as an (M, N) matrix (``dim == 0``: one norm per row;
last dim: one norm per column), accumulates the squares in the op-math type (float32
for float16 / bfloat16, whose norms stay float32 like torch's), and writes
``w = v * (g / norm)``. Its backward, per slice with ``s = sum(grad_w * v)``:
``grad_g = s / norm`` and ``grad_v = (g / norm) * grad_w - (g / norm) * grad_g / norm * v``.
"""

from __future__ import annotations

import numpy as np

from ...core import dtypes as dt
from ...core.checks import check
from ...core.tensor_impl import compute_is_contiguous, numel_of
from ..factory import empty as _empty
from ..factory import empty_strided as _empty_strided

_FLOATS = (dt.float16, dt.bfloat16, dt.float32, dt.float64)


def _is_meta(*tensors) -> bool:
    return any(t._device.type == "meta" for t in tensors)


def _opmath(dtype):
    return dt.float32 if dtype in (dt.float16, dt.bfloat16) else dtype


def _rows_cols(v, dim):
    """(M, N) and whether the norms run along rows (dim == 0) or columns (last dim)."""
    sizes = v._sizes
    if dim == 0:
        m = sizes[0]
        return m, (numel_of(sizes) // m if m else 0), True
    n = sizes[-1]
    return (numel_of(sizes) // n if n else 0), n, False


def _check_fused(name, v, dim):
    check(dim == 0 or dim == len(v._sizes) - 1,
          lambda: "fused kernels can only be applied for first or last dim")
    if v._dtype not in _FLOATS:
        raise NotImplementedError(f'"{name}" not implemented for \'{v._dtype._scalar_name}\'')


def _contiguous(t) -> bool:
    return compute_is_contiguous(t._sizes, t._strides)


def _flat(t):
    return np.ascontiguousarray(t._array()).reshape(-1)


def weight_norm_interface(v, g, dim=0):
    """(w, norms): ``w`` contiguous like ``v``, ``norms`` shaped (and strided) like ``g``."""
    w = _empty(v._sizes, v._dtype, None, v._device)
    ndtype = _opmath(g._dtype)
    norms = _empty_strided(g._sizes, g._strides, ndtype, None, g._device)
    if _is_meta(v, g):
        return w, norms
    if not numel_of(v._sizes):
        norms._array()[...] = 0
        return w, norms
    _check_fused("weight_norm_kernel", v, dim)
    m, n, rows = _rows_cols(v, dim)
    acc = _opmath(v._dtype).np
    vv = _flat(v).astype(acc, copy=False).reshape(m, n)
    gv = _flat(g).astype(acc, copy=False)
    with np.errstate(all="ignore"):
        nv = np.sqrt(np.einsum("ij,ij->i" if rows else "ij,ij->j", vv, vv))
        scale = gv / nv
        wv = vv * (scale[:, None] if rows else scale[None, :])
    np.copyto(w._array(), wv.reshape(v._sizes), casting="unsafe")
    np.copyto(norms._array(), nv.reshape(g._sizes), casting="unsafe")
    return w, norms


def weight_norm_interface_backward(grad_w, saved_v, saved_g, saved_norms, dim):
    for t, name in ((saved_v, "saved_v"), (saved_g, "saved_g"), (saved_norms, "saved_norm")):
        check(_contiguous(t), lambda name=name: f"{name} must be contiguous")
    grad_v = _empty(saved_v._sizes, saved_v._dtype, None, saved_v._device)
    grad_g = _empty(saved_g._sizes, saved_g._dtype, None, saved_g._device)
    if _is_meta(grad_w, saved_v, saved_g, saved_norms):
        return grad_v, grad_g
    if not numel_of(saved_v._sizes):
        grad_g._array()[...] = 0
        return grad_v, grad_g
    _check_fused("weight_norm_backward_kernel", saved_v, dim)
    m, n, rows = _rows_cols(saved_v, dim)
    acc = _opmath(saved_v._dtype).np
    gw = _flat(grad_w).astype(acc, copy=False).reshape(m, n)
    vv = _flat(saved_v).astype(acc, copy=False).reshape(m, n)
    gv = _flat(saved_g).astype(acc, copy=False)
    nv = _flat(saved_norms).astype(acc, copy=False)
    with np.errstate(all="ignore"):
        sums = np.einsum("ij,ij->i" if rows else "ij,ij->j", gw, vv)
        gg = sums / nv
        a = gv / nv
        b = a * gg / nv
        if rows:
            gvv = a[:, None] * gw - b[:, None] * vv
        else:
            gvv = a[None, :] * gw - b[None, :] * vv
    np.copyto(grad_v._array(), gvv.reshape(saved_v._sizes), casting="unsafe")
    np.copyto(grad_g._array(), gg.reshape(saved_g._sizes), casting="unsafe")
    return grad_v, grad_g


# -- composites (they call the public ops, so autograd records torch's graph) ---------------

def _fns():
    from ...ops._generated import torch_functions
    return torch_functions


def norm_except_dim_composite(v, pow=2, dim=0):
    nd = v.dim()
    if dim == -1:
        return v.norm(pow)
    if dim == 0:
        shape = [1] * nd
        shape[0] = v.size(0)
        return v.contiguous().view(v.size(0), -1).norm(pow, 1).view(shape)
    if dim == nd - 1:
        shape = [1] * nd
        shape[-1] = v.size(-1)
        return v.contiguous().view(-1, v.size(-1)).norm(pow, 0).view(shape)
    return _fns().norm_except_dim(v.transpose(0, dim), pow, 0).transpose(0, dim)


def weight_norm_composite(v, g, dim=0):
    check(v.device == g.device, lambda: (
        "weight_norm: expected v_in and g_in to be on the same device, but v_in is on "
        f"{v.device} and g_in is on {g.device}"))
    v = v.contiguous()
    g = g.contiguous()
    if dim == 0 or dim == v.dim() - 1:
        return _fns()._weight_norm_interface(v, g, dim)[0]
    return v * (g / _fns().norm_except_dim(v, 2, dim))


def weight_norm_differentiable_backward_composite(grad_w, saved_v, saved_g, saved_norms, dim):
    for t, name in ((grad_w, "grad_w"), (saved_v, "saved_v"), (saved_g, "saved_g"),
                    (saved_norms, "saved_norms")):
        check(t.is_contiguous(), lambda name=name: f"{name} must be contiguous")
    last = saved_v.dim() - 1
    check(dim == 0 or dim == last, lambda: "Expected dim to be the first or last dimension")
    norms = saved_norms.to(saved_g.dtype)
    bshape = [1] * saved_v.dim()
    if dim == 0:
        bshape[0] = saved_v.size(0)
        sums = (grad_w * saved_v).view(saved_v.size(0), -1).sum(1).view(bshape)
    else:
        bshape[last] = saved_v.size(last)
        sums = (grad_w * saved_v).view(-1, saved_v.size(last)).sum(0).view(bshape)
    grad_v = (saved_g / norms) * (grad_w - saved_v * (sums / (norms * norms)))
    grad_g = sums / norms
    return grad_v, grad_g


# -- the linear algebra behind parametrizations.orthogonal --------------------------------------
#
# Note [Orthogonal parametrization kernels]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# ``geqrf`` is LAPACK's (NumPy's ``qr(mode="raw")``, whose reflector matrix comes back
# transposed); results are column-major like torch's. ``linalg_householder_product``
# forms the first n columns of H_0 H_1 ... H_{k-1} (H_i = I - tau_i v_i v_i^H, v_i is
# column i of the input below the diagonal with an implicit 1 on it) by applying the
# reflectors, last first, to the leading columns of the identity: one rank-1 update per
# reflector over the whole batch (a loop over the small dimension k). ``linalg_matrix_exp``
# is scaling and squaring with the degree-13 Pade approximant (Higham 2005), per matrix
# scaling; torch uses another polynomial, so the values agree to rounding.

_LINALG_FLOATS = (dt.float32, dt.float64, dt.complex64, dt.complex128)


def _linalg_dtype_check(t, kernel):
    if t._dtype not in _LINALG_FLOATS:
        raise NotImplementedError(f'"{kernel}" not implemented for \'{t._dtype._scalar_name}\'')


def _colmajor_new(shape, dtype, device):
    from ..linalg import _colmajor
    return _colmajor(shape, dtype, device)


def geqrf(self):
    check(len(self._sizes) >= 2, lambda: "torch.geqrf: input must have at least 2 dimensions.")
    _linalg_dtype_check(self, "geqrf_cpu")
    m, n = self._sizes[-2:]
    k = min(m, n)
    a = _colmajor_new(self._sizes, self._dtype, self._device)
    tau = _empty(self._sizes[:-2] + (k,), self._dtype, None, self._device)
    if _is_meta(self) or not numel_of(self._sizes):
        return a, tau
    x = self._array()
    batch = x.shape[:-2]
    flat = x.reshape((-1, m, n))
    av = np.empty_like(flat)
    tv = np.empty((flat.shape[0], k), dtype=flat.dtype)
    for b in range(flat.shape[0]):     # LAPACK's raw QR takes one matrix at a time
        h, t = np.linalg.qr(flat[b], mode="raw")
        av[b] = h.T
        tv[b] = t
    np.copyto(a._array(), av.reshape(batch + (m, n)))
    np.copyto(tau._array(), tv.reshape(batch + (k,)))
    return a, tau


def _householder_checks(input, tau):
    name = "torch.linalg.householder_product"
    check(len(input._sizes) >= 2, lambda: f"{name}: input must have at least 2 dimensions.")
    check(input._sizes[-2] >= input._sizes[-1], lambda: (
        f"{name}: input.shape[-2] must be greater than or equal to input.shape[-1]"))
    check(input._sizes[-1] >= tau._sizes[-1] if tau._sizes else True, lambda: (
        f"{name}: input.shape[-1] must be greater than or equal to tau.shape[-1]"))
    check(len(input._sizes) - len(tau._sizes) == 1, lambda: (
        f"{name}: Expected tau to have one dimension less than input, but got tau.ndim "
        f"equal to {len(tau._sizes)} and input.ndim is equal to {len(input._sizes)}"))
    check(tau._sizes[:-1] == input._sizes[:-2], lambda: (
        f"{name}: Expected batch dimensions of tau to be equal to input.shape[:-2], but got "
        f"{list(tau._sizes[:-1])}"))
    check(tau._dtype is input._dtype, lambda: (
        f"{name}: tau dtype {tau._dtype._scalar_name} does not match input dtype "
        f"{input._dtype._scalar_name}"))
    _linalg_dtype_check(input, "orgqr_cpu")


def linalg_householder_product(input, tau):
    _householder_checks(input, tau)
    m, n = input._sizes[-2:]
    out = _colmajor_new(input._sizes, input._dtype, input._device)
    if _is_meta(input, tau) or not numel_of(input._sizes):
        return out
    k = tau._sizes[-1]
    a = input._array()
    tv = tau._array()
    q = np.broadcast_to(np.eye(m, n, dtype=a.dtype), a.shape).copy()
    rows = np.arange(m)
    for i in range(k - 1, -1, -1):
        v = np.where(rows > i, a[..., :, i], 0).astype(a.dtype)
        v[..., i] = 1
        # Q <- Q - tau_i v (v^H Q)
        vhq = np.einsum("...r,...rc->...c", v.conj(), q)
        q -= tv[..., i, None, None] * v[..., :, None] * vhq[..., None, :]
    np.copyto(out._array(), q)
    return out


# Pade(13) coefficients and the 1-norm bound below which degree 13 is exact to rounding
_PADE13 = (64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0,
           129060195264000.0, 10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0,
           40840800.0, 960960.0, 16380.0, 182.0, 1.0)
_THETA13 = 5.371920351148152


def _expm(a):
    """exp of every (n, n) matrix of ``a`` (float64 / complex128)."""
    n = a.shape[-1]
    norm1 = np.abs(a).sum(axis=-2).max(axis=-1)
    with np.errstate(divide="ignore"):
        s = np.maximum(0, np.ceil(np.log2(np.where(norm1 > 0, norm1, 1) / _THETA13)))
    s = np.where(np.isfinite(s), s, 0).astype(np.int64)
    a = a / (2.0 ** s)[..., None, None]
    b = _PADE13
    ident = np.broadcast_to(np.eye(n, dtype=a.dtype), a.shape)
    a2 = a @ a
    a4 = a2 @ a2
    a6 = a4 @ a2
    u = a @ (a6 @ (b[13] * a6 + b[11] * a4 + b[9] * a2) + b[7] * a6 + b[5] * a4 + b[3] * a2
             + b[1] * ident)
    v = a6 @ (b[12] * a6 + b[10] * a4 + b[8] * a2) + b[6] * a6 + b[4] * a4 + b[2] * a2 \
        + b[0] * ident
    r = np.linalg.solve(v - u, v + u)
    for step in range(int(s.max()) if s.size else 0):
        r = np.where((s > step)[..., None, None], r @ r, r)
    return r


def linalg_matrix_exp(self):
    check(len(self._sizes) >= 2, lambda: (
        "linalg.matrix_exp: The input tensor A must have at least 2 dimensions."))
    m, n = self._sizes[-2:]
    check(m == n, lambda: (
        f"linalg.matrix_exp: A must be batches of square matrices, but they are {m} by {n} "
        "matrices"))
    check(self._dtype.is_floating_point or self._dtype.is_complex, lambda: (
        "linalg.matrix_exp: Expected a floating point or complex tensor as input. Got "
        f"{self._dtype._scalar_name}"))
    out = _empty(self._sizes, self._dtype, None, self._device)
    if _is_meta(self) or not numel_of(self._sizes):
        return out
    x = self._array()
    wide = np.complex128 if np.iscomplexobj(x) else np.float64
    with np.errstate(all="ignore"):
        r = _expm(x.astype(wide))
    np.copyto(out._array(), r, casting="unsafe")
    return out


def matrix_exp_composite(self):
    from ...ops._generated import linalg_functions
    return linalg_functions.linalg_matrix_exp(self)


def orgqr_composite(self, input2):
    from ...ops._generated import linalg_functions
    return linalg_functions.linalg_householder_product(self, input2)
