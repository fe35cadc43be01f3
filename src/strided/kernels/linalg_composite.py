"""The ``CompositeImplicitAutograd`` kernels of the linear algebra ops that torch implements
as compositions: with autograd they decompose into other dispatched ops, so the graph shows
torch's nodes (``(a @ b).grad_fn`` is ``MmBackward0``, ``linalg.inv(A).grad_fn`` is
``LinalgInvExBackward0``, ``linalg.matrix_norm(A, 2).grad_fn`` is ``AmaxBackward0``...).

Note [Composite at the Autograd key only]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Each op keeps its ``CompositeExplicitAutograd`` kernel (kernels/linalg.py) for the
backend keys, so a call without autograd runs one fused NumPy kernel as before; the
dispatcher sends only the ``Autograd`` key here (Note [Resolution order] in
ops/dispatcher.py). With grad mode off these kernels call the explicit kernel directly.
Before decomposing, each one runs the explicit kernel on meta stand-ins of its tensors, so
invalid arguments fail with exactly the errors of the plain call.
"""

from __future__ import annotations

import functools

from ..autograd import grad_mode as _grad_mode
from ..core.checks import maybe_wrap_dim
from ..core.devices import META
from ..core.tensor_impl import TensorImpl
from . import linalg as _L
from . import math_bits as _math_bits
from .broadcast import broadcast_pair
from .factory import empty

_STATE = _grad_mode.STATE


def _s():
    import strided
    return strided


def _meta(x):
    if isinstance(x, TensorImpl):
        return empty(x._sizes, x._dtype, None, META)
    if type(x) in (list, tuple) and x and all(isinstance(t, TensorImpl) for t in x):
        return type(x)(_meta(t) for t in x)
    return x


def _validate(explicit, *args):
    """Run ``explicit`` on meta stand-ins: its argument checks, none of its arithmetic."""
    return explicit(*(_meta(a) for a in args))


def _composite(explicit):
    """The decorated decomposition, or ``explicit`` itself when grad mode is off (Note
    [Composite at the Autograd key only])."""
    def decorate(fn):
        @functools.wraps(fn)
        def kernel(*args):
            if not _STATE.enabled and not _math_bits.has_bits(args):
                return explicit(*args)
            # (a conjugate / negative view goes through the decomposition's dispatched ops,
            # which read the bits: the explicit kernel would read its bytes)
            return fn(*args)
        return kernel
    return decorate


def _unsafe_view(t, shape):
    """torch's ``_unsafe_view`` where strided declares it, else ``view``."""
    aten = _s().ops.aten
    op = getattr(aten, "_unsafe_view", None)
    if op is not None:
        return op(t, list(shape))
    return t.view(tuple(shape))


def _requires_grad(t) -> bool:
    return bool(t.requires_grad)


# -- matmul ------------------------------------------------------------------------------------

def _should_fold(a, b) -> bool:
    """Whether the larger operand (>= 3 dims, the other <= 2) is folded into one matrix for a
    single mm/mv: always when the smaller operand requires grad (its gradient is then one
    mm instead of a batch reduced afterwards),
    never when the left operand is a matrix (the result would need a transposed copy), and
    otherwise when folding is a view."""
    a_larger = a.dim() >= b.dim()
    t1 = a if a_larger else b.mT
    other_dim = b.dim() if a_larger else a.dim()
    if not (t1.dim() >= 3 and other_dim <= 2):
        return False
    if _requires_grad(b if a_larger else a):
        return True
    if a.dim() == 2:
        return False
    if t1.numel() == 0:
        return True
    sizes, strides = t1.shape, t1.stride()
    return all(strides[i] == strides[i + 1] * sizes[i + 1] for i in range(t1.dim() - 2))


def _matmul_composite(a, b):
    da, db = a.dim(), b.dim()
    if da == 0 or db == 0:
        return _L.matmul(a, b)                 # the explicit kernel's error
    if da == 1 and db == 1:
        return a.dot(b)
    if da == 2 and db == 1:
        return a.mv(b)
    if da == 1 and db == 2:
        return a.unsqueeze(0).mm(b).squeeze_(0)
    if da == 2 and db == 2:
        return a.mm(b)
    # a 3-d operand with a batch of one against a batched one: drop that batch dim
    if da == 3 and db == 3 and (a.shape[0] == 1) != (b.shape[0] == 1):
        if a.shape[0] == 1:
            a, da = a.squeeze(0), 2
        else:
            b, db = b.squeeze(0), 2
    if _should_fold(a, b):
        transpose = db > da
        t1 = b.mT if transpose else a
        t2 = (a.t() if da == 2 else a) if transpose else b
        sizes1 = tuple(t1.shape)
        out_shape = sizes1[:-1] + ((t2.shape[-1],) if t2.dim() == 2 else ())
        rows = 1                         # explicit, not -1: the inner size may be 0
        for s in sizes1[:-1]:
            rows *= s
        t1 = t1.reshape(rows, sizes1[-1])
        out = t1.mm(t2) if t2.dim() == 2 else t1.mv(t2)
        out = _unsafe_view(out, out_shape)
        if transpose and t2.dim() == 2:
            out = out.mT.contiguous()
        return out
    # broadcast batch: one bmm
    n = a.shape[-2] if da > 1 else 1
    k1 = a.shape[-1]
    k2 = b.shape[-2] if db > 1 else b.shape[-1]
    p = b.shape[-1] if db > 1 else 1
    batch_a = tuple(a.shape[:-2]) if da > 2 else ()
    batch_b = tuple(b.shape[:-2]) if db > 2 else ()
    batch = broadcast_pair(batch_a, batch_b)             # torch's infer_size (its error)
    nb = 1
    for s in batch:
        nb *= s
    out_shape = batch + ((n,) if da > 1 else ()) + ((p,) if db > 1 else ())
    a3 = (a if da > 1 else a.unsqueeze(0)).expand(batch + (n, k1)).reshape(nb, n, k1)
    b3 = (b if db > 1 else b.unsqueeze(-1)).expand(batch + (k2, p)).reshape(nb, k2, p)
    return _unsafe_view(a3.bmm(b3), out_shape)


@_composite(_L.matmul)
def matmul_autograd(self, other):
    return _matmul_composite(self, other)


# -- products ----------------------------------------------------------------------------------

def _tensordot_composite(a, b, dims_a, dims_b):
    _validate(_L.tensordot, a, b, dims_a, dims_b)
    na, nb = a.dim(), b.dim()
    ca = [maybe_wrap_dim(d, na) for d in dims_a]
    cb = [maybe_wrap_dim(d, nb) for d in dims_b]
    csize = 1
    for da_, db_ in zip(ca, cb):
        sa, sb = a.shape[da_], b.shape[db_]
        if sb == 1 and sa != 1:
            a = a.sum(da_, keepdim=True)
        elif sa == 1 and sb != 1:
            b = b.sum(db_, keepdim=True)
        else:
            csize *= sa
    free_a = [d for d in range(na) if d not in ca]
    free_b = [d for d in range(nb) if d not in cb]
    size_a = 1
    for d in free_a:
        size_a *= a.shape[d]
    size_b = 1
    for d in free_b:
        size_b *= b.shape[d]
    out_shape = tuple(a.shape[d] for d in free_a) + tuple(b.shape[d] for d in free_b)
    pa = a.permute(free_a + ca)
    pb = b.permute(cb + free_b)
    if not free_a and not free_b:
        out = _flat(pa, csize).dot(_flat(pb, csize))
    else:
        out = pa.reshape(size_a, csize).mm(pb.reshape(csize, size_b))
    return out.reshape(out_shape)


def _flat(t, n):
    return t if t.dim() == 1 else t.reshape(n)


@_composite(_L.tensordot)
def tensordot_autograd(self, other, dims_self, dims_other):
    return _tensordot_composite(self, other, dims_self, dims_other)


@_composite(_L.inner)
def inner_autograd(self, other):
    if self.dim() == 0 or other.dim() == 0:
        return self * other
    _validate(_L.inner, self, other)
    return _tensordot_composite(self, other, [-1], [-1])


def _outer_composite(self, vec2):
    _L._check_outer(self, vec2)
    return self.reshape(self.shape[0], 1) * vec2


@_composite(_L.outer)
def outer_autograd(self, vec2):
    return _outer_composite(self, vec2)


@_composite(_L.ger)
def ger_autograd(self, vec2):
    return _outer_composite(self, vec2)


@_composite(_L.kron)
def kron_autograd(self, other):
    _validate(_L.kron, self, other)
    nd = max(self.dim(), other.dim())
    pad_a, pad_b = nd - self.dim(), nd - other.dim()
    shape_a, shape_b, shape_out = [], [], []
    for i in range(nd):
        sa = self.shape[i - pad_a] if i >= pad_a else 1
        sb = other.shape[i - pad_b] if i >= pad_b else 1
        shape_a += [sa, 1]
        shape_b += [1, sb]
        shape_out.append(sa * sb)
    return _unsafe_view(_reshape_unsafe(self, shape_a) * _reshape_unsafe(other, shape_b),
                        shape_out)


def _reshape_unsafe(t, shape):
    return _unsafe_view(t, shape) if t.is_contiguous() else t.reshape(shape)


@_composite(_L.cross)
def cross_autograd(self, other, dim=None):
    _validate(_L.cross, self, other, dim)   # also the deprecation warning of dim=None
    if dim is None:
        dim = next(d for d, s in enumerate(self.shape) if s == 3)
    return _s().linalg.cross(self, other, dim=dim)


@_composite(_L.linalg_multi_dot)
def linalg_multi_dot_autograd(tensors):
    tensors = list(tensors)
    _validate(_L.linalg_multi_dot, tensors)
    first_1d, last_1d = tensors[0].dim() == 1, tensors[-1].dim() == 1
    mats = list(tensors)
    if first_1d:
        mats[0] = mats[0].unsqueeze(0)
    if last_1d:
        mats[-1] = mats[-1].unsqueeze(-1)
    out_shape = []
    if not first_1d:
        out_shape.append(mats[0].shape[0])
    if not last_1d:
        out_shape.append(mats[-1].shape[1])
    n = len(mats)
    if n == 2:
        result = mats[0].mm(mats[1])
    elif n == 3:
        a, b = mats[0].shape
        c, d = mats[2].shape
        if a * c * (b + d) > b * d * (a + c):
            result = mats[0].mm(mats[1].mm(mats[2]))
        else:
            result = mats[0].mm(mats[1]).mm(mats[2])
    else:
        order = _chain_order([m.shape[0] for m in mats] + [mats[-1].shape[1]])
        result = _chain_multiply(mats, order, 0, n - 1)
    return result.view(tuple(out_shape))


def _chain_order(p):
    """The matrix-chain split table (cost of multiplying p[i] x p[i+1] matrices)."""
    n = len(p) - 1
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = None
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + p[i] * p[k + 1] * p[j + 1]
                if cost[i][j] is None or c < cost[i][j]:
                    cost[i][j] = c
                    split[i][j] = k
    return split


def _chain_multiply(mats, split, i, j):
    if i == j:
        return mats[i]
    k = split[i][j]
    return _chain_multiply(mats, split, i, k).mm(_chain_multiply(mats, split, k + 1, j))


# -- einsum -------------------------------------------------------------------------------------

def _sumproduct_pair(left, right, sum_dims):
    """Multiply two aligned operands (same ndim, size 1 where a label is missing) and sum
    over ``sum_dims``: the dims become a batch (in both), left-only, summed and right-only
    groups for one ``bmm``; the result has size 1 in the summed dims."""
    ndim = left.dim()
    lro, lo, ro = [], [], []
    sums = []
    for d in range(ndim):
        sl, sr = left.shape[d] != 1, right.shape[d] != 1
        if d in sum_dims:
            if sl and not sr:
                left = left.sum(d, keepdim=True)
            elif sr and not sl:
                right = right.sum(d, keepdim=True)
            sums.append(d)
        elif sl and sr:
            lro.append(d)
        elif sl:
            lo.append(d)
        elif sr:
            ro.append(d)
        else:
            lro.append(d)

    def size(t, dims):
        n = 1
        for d in dims:
            n *= t.shape[d]
        return n
    lro_size, lo_size, ro_size = size(left, lro), size(left, lo), size(right, ro)
    sum_size = size(left, sums)
    # (each side has size 1 in the other side's own dims)
    order = lro + lo + sums + ro
    lt = left.permute(order).reshape(lro_size, lo_size, sum_size)
    rt = right.permute(order).reshape(lro_size, sum_size, ro_size)
    out = lt.bmm(rt)
    sizes = [left.shape[d] for d in lro] + [left.shape[d] for d in lo] + [1] * len(sums) + \
        [right.shape[d] for d in ro]
    out = out.view(tuple(sizes))
    inverse = [order.index(d) for d in range(ndim)]
    return out.permute(inverse)


@_composite(_L.einsum)
def einsum_autograd(equation, tensors, path=None):
    operands = list(tensors)
    _validate(_L.einsum, equation, operands, path)
    parsed, rhs = _L._parse_einsum(equation, operands)
    expanded, _, ell_ndim = _L._einsum_sizes(parsed, operands)
    output = _L._einsum_output(parsed, rhs, ell_ndim)
    contracted = []
    for full in expanded:
        for c in full:
            if c not in output and c not in contracted:
                contracted.append(c)
    order = list(output) + contracted
    aligned = []
    for t, full in zip(operands, expanded):
        labels = list(full)
        cur = t
        while len(set(labels)) != len(labels):
            for i, c in enumerate(labels):
                if labels.count(c) > 1:
                    j = labels.index(c, i + 1)
                    # the diagonal goes last; move it back to where the label was first
                    cur = cur.diagonal(0, i, j)
                    rest = list(range(cur.dim() - 1))
                    cur = cur.permute(rest[:i] + [cur.dim() - 1] + rest[i:])
                    labels = [x for k, x in enumerate(labels) if k != j]
                    break
        for c in order:
            if c not in labels:
                cur = cur.unsqueeze(-1)
                labels.append(c)
        aligned.append(cur.permute([labels.index(c) for c in order]))
    n_out = len(output)
    if len(aligned) == 1:
        result = aligned[0]
        if contracted:
            result = result.sum(list(range(n_out, len(order))))
        return result
    label_sets = [set(full) for full in expanded]
    # labels of one operand only (and not in the output) are summed out of it first
    for i, cur in enumerate(aligned):
        others = set().union(*(s for j, s in enumerate(label_sets) if j != i))
        own = [order.index(c) for c in contracted if c in label_sets[i] and c not in others]
        if own:
            aligned[i] = cur.sum(own, keepdim=True)
    result = aligned[0]
    seen = set(label_sets[0])
    for i in range(1, len(aligned)):
        later = set().union(*label_sets[i + 1:]) if i + 1 < len(label_sets) else set()
        sum_dims = [order.index(c) for c in contracted
                    if c in seen and c in label_sets[i] and c not in later]
        if sum_dims:
            result = _sumproduct_pair(result, aligned[i], sum_dims)
        else:
            result = result * aligned[i]
        seen |= label_sets[i]
    if contracted:
        result = result.view(tuple(result.shape[:n_out]))
    return result


# -- strided.linalg: inverses, determinants, solvers ----------------------------------------------

@_composite(_L.linalg_inv)
def linalg_inv_autograd(A):
    return _s().linalg.inv_ex(A, check_errors=True)[0]


@_composite(_L.inverse)
def inverse_autograd(self):
    return _s().linalg.inv_ex(self, check_errors=True)[0]


@_composite(_L.det)
def det_autograd(self):
    return _s().linalg.det(self)


@_composite(_L.slogdet)
def slogdet_autograd(self):
    return tuple(_s().linalg.slogdet(self))


@_composite(_L.logdet)
def logdet_autograd(self):
    _L._check_linalg(self, "logdet")
    s = _s()
    sign, logabs = s.linalg.slogdet(self)
    if self.is_complex():
        return sign.log() + logabs
    return s.where(sign == -1, s.full_like(logabs, float("nan")), logabs)


@_composite(_L.linalg_solve)
def linalg_solve_autograd(A, B, left=True):
    return _s().linalg.solve_ex(A, B, left=left, check_errors=True)[0]


@_composite(_L.linalg_cholesky)
def linalg_cholesky_autograd(self, upper=False):
    return _s().linalg.cholesky_ex(self, upper=upper, check_errors=True)[0]


def _pinv_tensor(self, atol, rtol, hermitian):
    s = _s()
    def as_tensor(x):
        if x is None or isinstance(x, TensorImpl):
            return x
        return s.tensor(float(x), dtype=s.float64)
    return s.ops.aten.linalg_pinv.atol_rtol_tensor(self, atol=as_tensor(atol),
                                                   rtol=as_tensor(rtol), hermitian=hermitian)


@_composite(_L.linalg_pinv_atol_rtol_float)
def linalg_pinv_atol_rtol_float_autograd(self, atol=None, rtol=None, hermitian=False):
    _validate(_L.linalg_pinv_atol_rtol_float, self, atol, rtol, hermitian)
    return _pinv_tensor(self, atol, rtol, hermitian)


@_composite(_L.linalg_pinv)
def linalg_pinv_autograd(self, rcond, hermitian=False):
    _validate(_L.linalg_pinv, self, rcond, hermitian)
    return _pinv_tensor(self, None, rcond, hermitian)


@_composite(_L.linalg_pinv_rcond_tensor)
def linalg_pinv_rcond_tensor_autograd(self, rcond, hermitian=False):
    _validate(_L.linalg_pinv_rcond_tensor, self, rcond, hermitian)
    return _pinv_tensor(self, None, rcond, hermitian)


@_composite(_L.pinverse)
def pinverse_autograd(self, rcond=1e-15):
    _validate(_L.pinverse, self, rcond)
    return _pinv_tensor(self, None, rcond, False)


def _matrix_power_composite(A, n):
    _validate(_L.linalg_matrix_power, A, n)
    s = _s()
    if n == 0:
        eye = s.eye(A.shape[-1], dtype=A.dtype).expand_as(A)
        return A.clone(memory_format=s.contiguous_format).copy_(eye)
    if n == 1:
        return A.clone(memory_format=s.contiguous_format)
    if n < 0:
        A = s.linalg.inv(A)
        n = -n
    if n == 2:
        return A.matmul(A)
    if n == 3:
        return A.matmul(A).matmul(A)
    z = result = None
    while n > 0:
        bit = n % 2
        n //= 2
        z = A if z is None else z.matmul(z)
        if bit:
            result = z if result is None else result.matmul(z)
    return result


@_composite(_L.matrix_power)
def matrix_power_autograd(self, n):
    return _matrix_power_composite(self, n)


@_composite(_L.linalg_matrix_power)
def linalg_matrix_power_autograd(self, n):
    return _matrix_power_composite(self, n)


# -- strided.linalg: decompositions --------------------------------------------------------------

@_composite(_L.qr)
def qr_autograd(self, some=True):
    _validate(_L.qr, self, some)    # torch.qr's deprecation warning
    return tuple(_s().linalg.qr(self, "reduced" if some else "complete"))


@_composite(_L.svd)
def svd_autograd(self, some=True, compute_uv=True):
    _validate(_L.svd, self, some, compute_uv)
    s = _s()
    if not compute_uv:
        U, _, V = _L.svd(self.detach(), some, False)
        return U, s.linalg.svdvals(self), V
    U, S, Vh = s.linalg.svd(self, full_matrices=not some)
    V = Vh.transpose(-2, -1)
    if self.is_complex():
        from ..autograd.formulas_linalg import linalg_conj
        V = linalg_conj(V)
    return U, S, V


@_composite(_L.linalg_svdvals)
def linalg_svdvals_autograd(A, driver=None):
    _validate(_L.linalg_svdvals, A, driver)
    return _s().linalg.svd(A, full_matrices=False, driver=driver)[1]


@_composite(_L.linalg_eigvalsh)
def linalg_eigvalsh_autograd(self, UPLO="L"):
    return _s().linalg.eigh(self, UPLO)[0]


@_composite(_L.linalg_eigvals)
def linalg_eigvals_autograd(self):
    _validate(_L.linalg_eigvals, self)
    return _s().linalg.eig(self)[0]


# -- strided.linalg: norms ------------------------------------------------------------------------

def _matrix_norm_composite(explicit, A, ord, dim, keepdim, dtype):
    _validate(explicit, A, ord, dim, keepdim, dtype)
    s = _s()
    if isinstance(ord, bool):
        ord = int(ord)
    nd = A.dim()
    d0, d1 = maybe_wrap_dim(dim[0], nd), maybe_wrap_dim(dim[1], nd)
    if ord == "fro":
        return s.linalg.vector_norm(A, 2, (d0, d1), keepdim, dtype=dtype)
    if ord in ("nuc", 2, -2):
        if dtype is not None:
            A = A.to(dtype)
        perm = [d for d in range(nd) if d not in (d0, d1)] + [d0, d1]
        sv = s.linalg.svdvals(A.permute(perm))
        if ord == "nuc":
            result = sv.sum(-1, keepdim=keepdim)
        elif ord == 2:
            result = sv.amax(-1, keepdim=keepdim)
        else:
            result = sv.amin(-1, keepdim=keepdim)
        if keepdim:
            result = result.unsqueeze(-1).permute([perm.index(d) for d in range(nd)])
        return result
    if abs(ord) == float("inf"):
        d0, d1 = d1, d0
    if not keepdim and d0 < d1:
        d1 -= 1
    sums = s.linalg.vector_norm(A, 1, d0, keepdim, dtype=dtype)
    return sums.amax(d1, keepdim=keepdim) if ord > 0 else sums.amin(d1, keepdim=keepdim)


@_composite(_L.linalg_matrix_norm)
def linalg_matrix_norm_autograd(self, ord, dim=(-2, -1), keepdim=False, dtype=None):
    return _matrix_norm_composite(_L.linalg_matrix_norm, self, ord, dim, keepdim, dtype)


@_composite(_L.linalg_matrix_norm_str_ord)
def linalg_matrix_norm_str_ord_autograd(self, ord="fro", dim=(-2, -1), keepdim=False,
                                        dtype=None):
    return _matrix_norm_composite(_L.linalg_matrix_norm_str_ord, self, ord, dim, keepdim,
                                  dtype)


def _linalg_norm_composite(explicit, A, ord, dim, keepdim, dtype):
    _validate(explicit, A, ord, dim, keepdim, dtype)
    s = _s()
    if dim is not None:
        dim = tuple(dim)
    matrix = (dim is not None and len(dim) == 2) or (dim is None and ord is not None and
                                                     (A.dim() == 2 or isinstance(ord, str)))
    if matrix:
        return s.linalg.matrix_norm(A, "fro" if ord is None else ord,
                                    dim if dim is not None else (-2, -1), keepdim, dtype=dtype)
    return s.linalg.vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype)


@_composite(_L.linalg_norm)
def linalg_norm_autograd(self, ord=None, dim=None, keepdim=False, dtype=None):
    return _linalg_norm_composite(_L.linalg_norm, self, ord, dim, keepdim, dtype)


@_composite(_L.linalg_norm_ord_str)
def linalg_norm_ord_str_autograd(self, ord, dim=None, keepdim=False, dtype=None):
    return _linalg_norm_composite(_L.linalg_norm_ord_str, self, ord, dim, keepdim, dtype)


# -- out= variants --------------------------------------------------------------------------------
# torch's composites run their out= through the out= variant of the op they decompose to,
# which refuses inputs that require grad, naming that op.

def _requires_grad_any(args) -> bool:
    for a in args:
        items = a if type(a) in (list, tuple) else (a,)
        for t in items:
            if isinstance(t, TensorImpl) and t.requires_grad:
                return True
    return False


def _refuse_out(explicit, name, inputs=1):
    """An out= kernel that refuses (with ``name`` as the op torch's error names) when grad
    mode is on and one of the first ``inputs`` arguments requires grad."""
    def kernel(*args):
        if _STATE.enabled and _requires_grad_any(args[:inputs]):
            op = name(*args) if callable(name) else name
            if op is not None:
                raise RuntimeError(
                    f"{op}(): functions with out=... arguments don't support automatic "
                    f"differentiation, but one of the arguments requires grad.")
        if _math_bits.has_bits(args):      # the keys below Autograd are bypassed here
            return _math_bits.run_resolved(explicit, args, (len(args) - 1,))
        return explicit(*args)
    return kernel


def _matrix_power_op(self, n, *rest):
    if n < 0:
        return "linalg_inv_ex"
    return "matmul" if n >= 2 else None


matmul_out_autograd = _refuse_out(_L.matmul_out, "matmul", 2)
outer_out_autograd = _refuse_out(_L.outer_out, "mul", 2)
ger_out_autograd = _refuse_out(_L.ger_out, "mul", 2)
kron_out_autograd = _refuse_out(_L.kron_out, "mul", 2)
cross_out_autograd = _refuse_out(_L.cross_out, "linalg_cross", 2)
linalg_inv_out_autograd = _refuse_out(_L.linalg_inv_out, "linalg_inv_ex")
inverse_out_autograd = _refuse_out(_L.inverse_out, "linalg_inv_ex")
slogdet_out_autograd = _refuse_out(_L.slogdet_out, "_linalg_slogdet")
linalg_solve_out_autograd = _refuse_out(_L.linalg_solve_out, "_linalg_solve_ex", 2)
linalg_cholesky_out_autograd = _refuse_out(_L.linalg_cholesky_out, "linalg_cholesky_ex")
linalg_svdvals_out_autograd = _refuse_out(_L.linalg_svdvals_out, "_linalg_svd")
linalg_eigvalsh_out_autograd = _refuse_out(_L.linalg_eigvalsh_out, "_linalg_eigh")
matrix_power_out_autograd = _refuse_out(_L.matrix_power_out, _matrix_power_op)
linalg_matrix_power_out_autograd = _refuse_out(_L.linalg_matrix_power_out, _matrix_power_op)
linalg_multi_dot_out_autograd = _refuse_out(_L.linalg_multi_dot_out, "mm")
for _name, _fn in list(globals().items()):
    if _name.endswith("_out_autograd"):
        _fn.__name__ = _fn.__qualname__ = _name
        _fn.__module__ = __name__
del _name, _fn
