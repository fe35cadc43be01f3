"""Linear algebra kernels: the matmul family, products, and ``strided.linalg``.

Every kernel checks its inputs with torch's messages, computes the result's shape and
dtype (all a meta tensor gets), and then runs NumPy on the tensors' strided views.

Note [Products in float32 for half types]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
torch's CPU kernels for float16 and bfloat16 products accumulate in float32 and round
once at the end. NumPy has no BLAS for those types (and ml_dtypes' bfloat16 has no fast
loop at all), so the operands are widened to float32, multiplied there, and the result
is rounded back: the same arithmetic as torch's, and BLAS speed.

Note [How matmul picks its path]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
``matmul`` is a composite. By the ranks of its operands it becomes ``dot`` (1-D, 1-D),
``mv`` (2-D, 1-D), ``mm`` (1-D or 2-D, 2-D), or, with a batch, either one ``mm``/``mv``
on the larger operand folded to a matrix, or a broadcast ``bmm``. Folding is chosen
when the larger operand has at least 3 dims, the other at most 2, and the fold is a
view (its batch dims are row-major among themselves); a 2-D left operand never folds,
since the result would then need a transposed copy. The path is observable: it decides
which of mm's, mv's or bmm's error messages a shape mismatch reports. Every path
returns a row-major result.
"""

from __future__ import annotations

import numpy as np

from ..core import dtypes as dt
from ..core.checks import check
from ..core.devices import CPU as _CPU
from ..core.tensor_impl import contiguous_strides, numel_of
from . import complex32 as _c32
from . import views
from .broadcast import broadcast_pair
from .elementwise import _new_contiguous, _quiet_call
from .factory import empty
from .resize import resize_output
from .scalars import check_scalar_fits, scalar_to_store

# The C++ type names torch prints for a dtype in some messages (caffe2::TypeMeta).
_CPP_NAMES = {
    "bool": "bool", "uint8": "unsigned char", "int8": "signed char", "int16": "short int",
    "int32": "int", "int64": "long int", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
    "float32": "float", "float64": "double", "complex64": "c10::complex<float>",
    "complex128": "c10::complex<double>", "uint16": "short unsigned int",
    "uint32": "unsigned int", "uint64": "long unsigned int",
}
_UNSUPPORTED = ("bool", "uint16", "uint32", "uint64")   # no CPU product kernels in torch
_HALF_TYPES = ("float16", "bfloat16")


def cpp_name(dtype) -> str:
    return _CPP_NAMES[dtype.name]


def _is_meta(t) -> bool:
    return t._device.type == "meta"


def _check_kernel_dtype(t, kernel: str) -> None:
    """torch's dispatch macros name the kernel that has no loop for a dtype."""
    if t._dtype.name in _UNSUPPORTED:
        raise NotImplementedError(f'"{kernel}" not implemented for \'{t._dtype._scalar_name}\'')


def _check_out_dtype(out, dtype) -> None:
    check(out._dtype is dtype, lambda: (
        f"Expected out tensor to have dtype {cpp_name(dtype)}, but got "
        f"{cpp_name(out._dtype)} instead"))


def _new(sizes, dtype, device):
    return empty(tuple(sizes), dtype, None, device)


def _result_or_out(out, size, dtype, device):
    """A new result, or ``out`` checked for ``dtype`` and resized to ``size`` (torch's rule)."""
    if out is None:
        return _new(size, dtype, device)
    _check_out_dtype(out, dtype)
    resize_output(out, size)
    return out


def _written(out):
    out._vc[0] += 1
    return out


# -- the NumPy side ------------------------------------------------------------------------

def _widened(arr: np.ndarray) -> np.ndarray:
    """Note [Products in float32 for half types]."""
    if arr.dtype == np.float32 or arr.dtype.itemsize != 2 or arr.dtype.kind in "iu":
        return arr
    return arr.astype(np.float32)


def _product_into(dst: np.ndarray, a: np.ndarray, b: np.ndarray) -> None:
    """``dst[...] = a @ b`` (matrices or stacks of them, or matrix-vector)."""
    if dst.dtype.itemsize == 2 and dst.dtype.kind not in "iu":
        with np.errstate(all="ignore"):
            np.copyto(dst, np.matmul(_widened(a), _widened(b)), casting="unsafe")
    else:
        np.matmul(a, b, out=dst)


def _product(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if a.dtype.itemsize == 2 and a.dtype.kind not in "iu":
        return np.matmul(_widened(a), _widened(b))
    return np.matmul(a, b)


def _scalar(value, dtype):
    """alpha/beta as the kernel sees them: checked and converted to ``dtype`` (ints are
    truncated: ``alpha=1.5`` multiplies an int64 product by 1)."""
    if dtype.name in _HALF_TYPES:
        dtype = dt.float32   # the opmath type of the half types
    check_scalar_fits(value, dtype)
    return scalar_to_store(value, dtype)


def _scaled_sum_into(dst: np.ndarray, prod: np.ndarray, bias, beta, alpha) -> None:
    """``dst = beta * bias + alpha * prod``; ``beta == 0`` ignores ``bias`` (NaN included),
    as BLAS does."""
    with np.errstate(all="ignore"):
        if alpha != 1:
            prod = prod * np.asarray(alpha, prod.dtype)
        if beta == 0 or bias is None:
            np.copyto(dst, prod, casting="unsafe")
            return
        bias = _widened(bias)
        if beta != 1:
            bias = bias * np.asarray(beta, bias.dtype)
        np.copyto(dst, prod + bias, casting="unsafe")


# -- dot, vdot -----------------------------------------------------------------------------

def _check_dot(self, other, name: str) -> None:
    check(self.dim() == 1 and other.dim() == 1, lambda: (
        f"1D tensors expected, but got {self.dim()}D and {other.dim()}D tensors"))
    check(self._dtype is other._dtype, lambda: (
        f"{name} : expected both vectors to have same dtype, but found "
        f"{self._dtype._scalar_name} and {other._dtype._scalar_name}"))
    n, m = self._sizes[0], other._sizes[0]
    # torch's meta function words it without the space
    the_same = "thesame" if _is_meta(self) else "the same"
    check(n == m, lambda: (
        f"inconsistent tensor size, expected tensor [{n}] and src [{m}] to have {the_same} "
        f"number of elements, but got {n} and {m} elements respectively"))


def _dot_value(self, other, conj: bool) -> np.ndarray:
    a, b = self._array(), other._array()
    if conj and a.dtype.kind == "c":
        a = a.conj()
    if a.dtype.itemsize == 2 and a.dtype.kind not in "iu":
        return np.asarray(np.dot(_widened(a), _widened(b)))
    return np.asarray(np.dot(a, b))


def _dot_impl(self, other, out, conj: bool, name: str):
    _check_dot(self, other, "dot")
    dtype = self._dtype
    meta = _is_meta(self)
    if not meta:
        _check_kernel_dtype(self, "dot")
    if out is None:
        result = _new((), dtype, self._device)
    else:
        check(out._dtype is dtype, lambda: (
            f"result dtype {out._dtype._scalar_name} does not match input dtype "
            f"{dtype._scalar_name}"))
        resize_output(out, ())
        result = out
    if not meta:
        with np.errstate(all="ignore"):
            np.copyto(result._array(), _dot_value(self, other, conj), casting="unsafe")
    return _written(result) if out is not None else result


def dot(self, tensor):
    return _dot_impl(self, tensor, None, False, "dot")


def dot_out(self, tensor, out):
    return _dot_impl(self, tensor, out, False, "dot")


def vdot(self, other):
    return _dot_impl(self, other, None, True, "vdot")


def vdot_out(self, other, out):
    return _dot_impl(self, other, out, True, "vdot")


# -- mm, mv, bmm ---------------------------------------------------------------------------

def _check_mm(self, mat2) -> None:
    check(self.dim() == 2, "self must be a matrix")
    check(mat2.dim() == 2, "mat2 must be a matrix")
    (n, k1), (k2, p) = self._sizes, mat2._sizes
    check(k1 == k2, lambda: (
        f"mat1 and mat2 shapes cannot be multiplied ({n}x{k1} and {k2}x{p})"))


def _mm_into(self, mat2, out):
    """Checks done by the caller; ``out`` is None or the out= tensor."""
    meta = _is_meta(self) or _is_meta(mat2)
    dtype = self._dtype
    if out is not None:   # torch's mm_out checks out='s dtype before the operands'
        check(out._dtype is dtype, lambda: (
            f"Expected out tensor to have dtype {cpp_name(dtype)}, but got "
            f"{cpp_name(out._dtype)} instead"))
    if not meta:
        check(dtype is mat2._dtype, lambda: (
            f"expected m1 and m2 to have the same dtype, but got: {cpp_name(dtype)} != "
            f"{cpp_name(mat2._dtype)}"))
        _check_kernel_dtype(self, "addmm_impl_cpu_")
    size = (self._sizes[0], mat2._sizes[1])
    result = _result_or_out(out, size, dtype, self._device)
    if not meta:
        _product_into(result._array(), self._array(), mat2._array())
    return result


_BLAS_TYPES = frozenset((dt.float32, dt.float64, dt.complex64, dt.complex128))


def _mm_fast(self, mat2):
    """Note [The short path of mm]: two CPU matrices of one BLAS dtype whose inner sizes
    agree. For tiny products the fixed costs are the whole cost, so the result is built
    directly (storage, tensor, its NumPy view cached) and filled by ``np.dot``, whose
    entry is the cheapest route into BLAS (it requires the C-contiguous out it gets)."""
    result, arr = _new_contiguous((self._sizes[0], mat2._sizes[1]), self._dtype)
    if arr.size:
        np.dot(self._array(), mat2._array(), arr)
    return result


def mm(self, mat2):
    sa, sb = self._sizes, mat2._sizes
    if (len(sa) == 2 and len(sb) == 2 and sa[1] == sb[0] and self._dtype is mat2._dtype
            and self._dtype in _BLAS_TYPES and self._device is _CPU and mat2._device is _CPU):
        return _mm_fast(self, mat2)
    _check_mm(self, mat2)
    return _mm_into(self, mat2, None)


def mm_out(self, mat2, out):
    _check_mm(self, mat2)
    return _written(_mm_into(self, mat2, out))


def _check_mv(self, vec, bias=None) -> None:
    bias_dim = 1 if bias is None else bias.dim()
    check(self.dim() == 2 and vec.dim() == 1 and bias_dim == 1, lambda: (
        f"vector + matrix @ vector expected, got {bias_dim}, {self.dim()}, {vec.dim()}"))
    n, k = self._sizes
    bias_n = n if bias is None else bias._sizes[0]
    check(k == vec._sizes[0] and (bias_n == n or bias_n == 1), lambda: (
        f"size mismatch, got input ({bias_n}), mat ({n}x{k}), vec ({vec._sizes[0]})"))


def _check_mv_dtypes(bias, self, vec) -> None:
    bias = self if bias is None else bias
    check(bias._dtype is self._dtype is vec._dtype, lambda: (
        f"addmv input tensors must have the same dtype, but got {bias._dtype._scalar_name}, "
        f"{self._dtype._scalar_name}, and {vec._dtype._scalar_name}"))


def _mv_into(self, vec, out, bias=None, beta=0, alpha=1):
    meta = _is_meta(self) or _is_meta(vec)
    dtype = self._dtype
    if not meta:
        _check_mv_dtypes(bias if bias is not None else vec, self, vec)
    size = (self._sizes[0],)
    result = _result_or_out(out, size, dtype, self._device)
    if not meta:
        _check_kernel_dtype(self, "addmv_impl_cpu")
        beta, alpha = _scalar(beta, dtype), _scalar(alpha, dtype)
        dst = result._array()
        if bias is None and alpha == 1:
            _product_into(dst, self._array(), vec._array())
        else:
            bias_arr = None if bias is None else np.broadcast_to(bias._array(), size)
            _scaled_sum_into(dst, _product(self._array(), vec._array()), bias_arr, beta, alpha)
    return result


def mv(self, vec):
    _check_mv(self, vec)
    return _mv_into(self, vec, None)


def mv_out(self, vec, out):
    _check_mv(self, vec)
    if out._sizes == (self._sizes[0],) and not _is_meta(out):
        # torch runs addmv with ``out`` as its (beta=0) input then: its dtype check first
        _check_mv_dtypes(out, self, vec)
    return _written(_mv_into(self, vec, out))


def _check_bmm(self, mat2) -> None:
    check(self.dim() == 3, "batch1 must be a 3D tensor")
    check(mat2.dim() == 3, "batch2 must be a 3D tensor")
    b, _, k = self._sizes
    check(mat2._sizes[0] == b and mat2._sizes[1] == k, lambda: (
        f"Expected size for first two dimensions of batch2 tensor to be: [{b}, {k}] but got: "
        f"[{mat2._sizes[0]}, {mat2._sizes[1]}]."))


def _bmm_into(self, mat2, out):
    meta = _is_meta(self) or _is_meta(mat2)
    # torch returns zeros for an empty operand before it compares dtypes, in mat2's dtype
    empty = numel_of(self._sizes) == 0 or numel_of(mat2._sizes) == 0
    dtype = mat2._dtype
    if not meta and not empty:
        check(self._dtype is dtype, lambda: (
            f"expected scalar type {self._dtype._scalar_name} but found {dtype._scalar_name}"))
        _check_kernel_dtype(self, "bmm")
    size = (self._sizes[0], self._sizes[1], mat2._sizes[2])
    result = _result_or_out(out, size, dtype, self._device)
    if not meta:
        if empty:
            result._array()[...] = 0
        else:
            _product_into(result._array(), self._array(), mat2._array())
    return result


def bmm(self, mat2):
    _check_bmm(self, mat2)
    return _bmm_into(self, mat2, None)


def bmm_out(self, mat2, out):
    _check_bmm(self, mat2)
    return _written(_bmm_into(self, mat2, out))


# -- matmul (Note [How matmul picks its path]) -------------------------------------------------

def _foldable(big, small_dim: int, small_is_left_matrix: bool) -> bool:
    if not (big.dim() >= 3 and small_dim <= 2):
        return False
    if small_is_left_matrix:
        return False
    if numel_of(big._sizes) == 0:
        return True
    sizes, strides = big._sizes, big._strides
    for i in range(len(sizes) - 2):
        if strides[i] != strides[i + 1] * sizes[i + 1]:
            return False
    return True


def _matmul(a, b, out):
    da, db = a.dim(), b.dim()
    check(da >= 1 and db >= 1, lambda: (
        f"both arguments to matmul need to be at least 1D, but they are {da}D and {db}D"))
    if da == 1 and db == 1:
        return dot(a, b) if out is None else dot_out(a, b, out)
    if da == 2 and db == 1:
        return mv(a, b) if out is None else mv_out(a, b, out)
    if da == 1 and db == 2:
        row = views.unsqueeze(a, 0)
        if out is None:
            return views.squeeze_dim(mm(row, b), 0)
        _check_mm(row, b)
        _mm_into(row, b, out)
        out._sizes, out._strides, out._np = out._sizes[1:], out._strides[1:], None
        return out
    if da == 2 and db == 2:
        return mm(a, b) if out is None else mm_out(a, b, out)
    if da >= db and _foldable(a, db, False):
        return _matmul_folded(a, b, out, transpose=False)
    if db > da and _foldable(views.transpose(b, -2, -1), da, da == 2):
        return _matmul_folded(views.transpose(b, -2, -1), a, out, transpose=True)
    return _matmul_batched(a, b, out)


def _matmul_folded(big, small, out, transpose: bool):
    """``big`` (>= 3 dims) folded into one matrix, times ``small`` (a vector here when
    ``transpose``: the left vector of ``v @ B`` becomes the right one of ``B.mT @ v``)."""
    lead = big._sizes[:-1]
    rows = numel_of(lead)
    folded = views.reshape(big, (rows, big._sizes[-1]))
    if small.dim() == 2:
        shape = lead + (small._sizes[1],)
        _check_mm(folded, small)
        result = _mm_into(folded, small, None)
    else:
        shape = lead
        _check_mv(folded, small)
        result = _mv_into(folded, small, None)
    if out is None:
        return views.view(result, shape)
    resize_output(out, shape)
    if small.dim() == 1:
        _check_mv_dtypes(out, folded, small)   # torch's mv_out into the resized out
    _check_out_dtype(out, result._dtype)
    from .copy import copy_
    flat = (numel_of(shape),) if small.dim() == 1 else (numel_of(lead), small._sizes[1])
    target = views.reshape(out, flat)
    if target._storage is out._storage:
        copy_(target, result)
        return out
    # ``out`` does not fold into a view: torch writes a folded copy and copies it back,
    # reshaped for a matrix product but not for a vector one (a shape error then)
    return copy_(out, views.view(result, shape) if small.dim() == 2 else result)


def _matmul_batched(a, b, out):
    da, db = a.dim(), b.dim()
    batch_a = a._sizes[:-2] if da >= 2 else ()
    batch_b = b._sizes[:-2] if db >= 2 else ()
    n = a._sizes[-2] if da >= 2 else 1
    k1 = a._sizes[-1]
    k2 = b._sizes[-2] if db >= 2 else b._sizes[-1]
    p = b._sizes[-1] if db >= 2 else 1
    batch = broadcast_pair(batch_a, batch_b)
    nb = numel_of(batch)
    a3 = views.reshape(views.expand(a if da >= 2 else views.unsqueeze(a, 0), batch + (n, k1)),
                       (nb, n, k1))
    b3 = views.reshape(views.expand(b if db >= 2 else views.unsqueeze(b, 1), batch + (k2, p)),
                       (nb, k2, p))
    shape = batch + ((n,) if da > 1 else ()) + ((p,) if db > 1 else ())
    _check_bmm(a3, b3)
    if out is None:
        return views.view(_bmm_into(a3, b3, None), shape)
    _check_out_dtype(out, a._dtype)
    resize_output(out, shape)
    target = views.reshape(out, (nb, n, p))
    _bmm_into(a3, b3, target)
    if target._storage is not out._storage:
        from .copy import copy_
        copy_(out, views.view(target, shape))
    return _written(out)


def matmul(self, other):
    sa, sb = self._sizes, other._sizes
    if len(sa) == 2 and len(sb) == 2:
        if (sa[1] == sb[0] and self._dtype is other._dtype and self._dtype in _BLAS_TYPES
                and self._device is _CPU and other._device is _CPU):
            return _mm_fast(self, other)
        return mm(self, other)
    return _matmul(self, other, None)


def matmul_out(self, other, out):
    return _written(_matmul(self, other, out))


# -- addmm, addmv, addbmm, baddbmm ---------------------------------------------------------------

def _check_addmm(self, mat1, mat2) -> None:
    check(mat1.dim() == 2, lambda: f"mat1 must be a matrix, got {mat1.dim()}-D tensor")
    check(mat2.dim() == 2, lambda: f"mat2 must be a matrix, got {mat2.dim()}-D tensor")
    check(self._dtype is mat2._dtype, lambda: (
        f"self and mat2 must have the same dtype, but got {self._dtype._scalar_name} and "
        f"{mat2._dtype._scalar_name}"))
    check(mat1._dtype is mat2._dtype, lambda: (
        f"mat1 and mat2 must have the same dtype, but got {mat1._dtype._scalar_name} and "
        f"{mat2._dtype._scalar_name}"))
    (n, k1), (k2, p) = mat1._sizes, mat2._sizes
    check(k1 == k2, lambda: (
        f"mat1 and mat2 shapes cannot be multiplied ({n}x{k1} and {k2}x{p})"))


def _addmm_into(result, bias, mat1, mat2, beta, alpha):
    if _is_meta(result):
        return result
    _check_kernel_dtype(mat1, "addmm_impl_cpu_")
    dtype = result._dtype
    beta, alpha = _scalar(beta, dtype), _scalar(alpha, dtype)
    bias_arr = np.broadcast_to(bias._array(), result._sizes)
    _scaled_sum_into(result._array(), _product(mat1._array(), mat2._array()), bias_arr, beta,
                     alpha)
    return result


def _addmm_fast(self, mat1, mat2):
    """Note [The short path of mm], for ``addmm`` with ``beta = alpha = 1`` and a bias of
    the result's shape or one row of it (``nn.Linear``'s call): ``np.dot`` into the new
    result, then the bias added in place."""
    result, arr = _new_contiguous((mat1._sizes[0], mat2._sizes[1]), mat1._dtype)
    if arr.size:
        np.dot(mat1._array(), mat2._array(), arr)
        _quiet_call(np.add, arr, self._array(), arr)    # an overflow to inf: no warning
    return result


def addmm(self, mat1, mat2, beta=1, alpha=1):
    sa, sb, sc = mat1._sizes, mat2._sizes, self._sizes
    if (len(sa) == 2 and len(sb) == 2 and sa[1] == sb[0]
            and (sc == (sb[1],) or sc == (sa[0], sb[1]))
            and mat1._dtype is mat2._dtype and mat1._dtype is self._dtype
            and self._dtype in _BLAS_TYPES and mat1._device is _CPU and mat2._device is _CPU
            and self._device is _CPU and type(beta) is int and type(alpha) is int
            and beta == 1 and alpha == 1):
        return _addmm_fast(self, mat1, mat2)
    _check_addmm(self, mat1, mat2)
    size = (mat1._sizes[0], mat2._sizes[1])
    views.expand(self, size)   # torch's broadcast error
    return _addmm_into(_new(size, self._dtype, self._device), self, mat1, mat2, beta, alpha)


def addmm_out(self, mat1, mat2, beta=1, alpha=1, out=None):
    _check_addmm(self, mat1, mat2)
    size = (mat1._sizes[0], mat2._sizes[1])
    views.expand(self, size)
    _check_out_dtype(out, self._dtype)
    resize_output(out, size)
    return _written(_addmm_into(out, self, mat1, mat2, beta, alpha))


def _check_inplace_size(self, size) -> None:
    check(self._sizes == tuple(size), lambda: (
        f"Bad in-place call: input tensor size {list(self._sizes)} and output tensor size "
        f"{list(size)} should match"))


def addmm_(self, mat1, mat2, beta=1, alpha=1):
    _check_addmm(self, mat1, mat2)
    _check_inplace_size(self, (mat1._sizes[0], mat2._sizes[1]))
    return _written(_addmm_into(self, self, mat1, mat2, beta, alpha))


def _addmv_impl(self, mat, vec, beta, alpha, out):
    _check_mv(mat, vec, self)
    if not _is_meta(mat):
        _check_mv_dtypes(self, mat, vec)
    return _mv_into(mat, vec, out, self, beta, alpha)


def addmv(self, mat, vec, beta=1, alpha=1):
    if self.dim() == 0:
        self = views.unsqueeze(self, 0)
    return _addmv_impl(self, mat, vec, beta, alpha, None)


def addmv_out(self, mat, vec, beta=1, alpha=1, out=None):
    if self.dim() == 0:
        self = views.unsqueeze(self, 0)
    return _written(_addmv_impl(self, mat, vec, beta, alpha, out))


def addmv_(self, mat, vec, beta=1, alpha=1):
    _check_mv(mat, vec, self)
    _check_inplace_size(self, (mat._sizes[0],))
    return _written(_addmv_impl(self, mat, vec, beta, alpha, self))


def _baddbmm_size(batch1, batch2) -> tuple:
    """The result's size as torch reads it, before checking the ranks."""
    from ..core.checks import maybe_wrap_dim
    return (batch1._sizes[maybe_wrap_dim(0, batch1.dim())],
            batch1._sizes[maybe_wrap_dim(1, batch1.dim())],
            batch2._sizes[maybe_wrap_dim(2, batch2.dim())])


def _check_baddbmm(self, batch1, batch2) -> None:
    # torch compares self's dtype with batch1's before anything else
    check(self._dtype is batch1._dtype or _is_meta(self), lambda: (
        f"Input dtypes must be the same, got: input {cpp_name(self._dtype)}, batch1: "
        f"{cpp_name(batch1._dtype)}, batch2: {cpp_name(batch2._dtype)}"))
    check(batch1.dim() == 3, "batch1 must be a 3D tensor")
    check(batch2.dim() == 3, "batch2 must be a 3D tensor")
    b, n, k = batch1._sizes
    check(batch2._sizes[0] == b and batch2._sizes[1] == k, lambda: (
        f"Expected size for first two dimensions of batch2 tensor to be: [{b}, {k}] but got: "
        f"[{batch2._sizes[0]}, {batch2._sizes[1]}]."))
    check(batch1._dtype is batch2._dtype, lambda: (
        f"expected scalar type {batch1._dtype._scalar_name} but found "
        f"{batch2._dtype._scalar_name}"))


def _baddbmm_into(result, bias, batch1, batch2, beta, alpha):
    if _is_meta(result):
        return result
    _check_kernel_dtype(batch1, "baddbmm")
    dtype = result._dtype
    beta, alpha = _scalar(beta, dtype), _scalar(alpha, dtype)
    bias_arr = np.broadcast_to(bias._array(), result._sizes)
    _scaled_sum_into(result._array(), _product(batch1._array(), batch2._array()), bias_arr,
                     beta, alpha)
    return result


def baddbmm(self, batch1, batch2, beta=1, alpha=1):
    size = _baddbmm_size(batch1, batch2)
    views.expand(self, size)
    _check_baddbmm(self, batch1, batch2)
    return _baddbmm_into(_new(size, self._dtype, self._device), self, batch1, batch2, beta,
                         alpha)


def baddbmm_out(self, batch1, batch2, beta=1, alpha=1, out=None):
    size = _baddbmm_size(batch1, batch2)
    views.expand(self, size)
    _check_baddbmm(self, batch1, batch2)
    _check_out_dtype(out, self._dtype)
    resize_output(out, size)
    return _written(_baddbmm_into(out, self, batch1, batch2, beta, alpha))


def baddbmm_(self, batch1, batch2, beta=1, alpha=1):
    _check_baddbmm(self, batch1, batch2)
    _check_inplace_size(self, batch1._sizes[:2] + (batch2._sizes[2],))
    return _written(_baddbmm_into(self, self, batch1, batch2, beta, alpha))


def _check_addbmm(self, batch1, batch2) -> tuple:
    check(batch1.dim() == 3, "batch1 must be a 3D tensor")
    check(batch2.dim() == 3, "batch2 must be a 3D tensor")
    b1, n, k1 = batch1._sizes
    b2, k2, p = batch2._sizes
    check(b1 == b2, lambda: (
        f"batch1 and batch2 must have same number of batches, got {b1} and {b2}"))
    check(k1 == k2, lambda: f"Incompatible matrix sizes for bmm ({n}x{k1} and {k2}x{p})")
    return (n, p)


def _addbmm_into(result, bias, batch1, batch2, beta, alpha):
    if _is_meta(result):
        return result
    check(bias._dtype is batch2._dtype, lambda: (
        f"self and mat2 must have the same dtype, but got {bias._dtype._scalar_name} and "
        f"{batch2._dtype._scalar_name}"))
    check(batch1._dtype is batch2._dtype, lambda: (
        f"mat1 and mat2 must have the same dtype, but got {batch1._dtype._scalar_name} and "
        f"{batch2._dtype._scalar_name}"))
    _check_kernel_dtype(batch1, "addmm_impl_cpu_")
    dtype = result._dtype
    beta, alpha = _scalar(beta, dtype), _scalar(alpha, dtype)
    prod = _product(batch1._array(), batch2._array())
    with np.errstate(all="ignore"):
        prod = prod.sum(axis=0, dtype=prod.dtype)
    bias_arr = np.broadcast_to(bias._array(), result._sizes)
    _scaled_sum_into(result._array(), prod, bias_arr, beta, alpha)
    return result


def addbmm(self, batch1, batch2, beta=1, alpha=1):
    size = _check_addbmm(self, batch1, batch2)
    views.expand(self, size)
    return _addbmm_into(_new(size, self._dtype, self._device), self, batch1, batch2, beta,
                        alpha)


def addbmm_out(self, batch1, batch2, beta=1, alpha=1, out=None):
    """torch resizes ``out`` like ``resize_as_`` here, silently; ``t.addbmm_`` with a
    broadcast ``t`` resizes ``t`` itself, after reading it as the bias."""
    size = _check_addbmm(self, batch1, batch2)
    views.expand(self, size)
    if not _is_meta(out):
        check(out._dtype is batch2._dtype, lambda: (
            f"self and mat2 must have the same dtype, but got {out._dtype._scalar_name} and "
            f"{batch2._dtype._scalar_name}"))
    bias = self
    if out is self and self._sizes != size and not _is_meta(self):
        bias = _copy_of(views.expand(self, size))
    if out._sizes != size:
        from .resize import resize_impl
        resize_impl(out, size)
    return _written(_addbmm_into(out, bias, batch1, batch2, beta, alpha))


def _copy_of(t):
    from .copy import copy_
    return copy_(_new(t._sizes, t._dtype, t._device), t)


def addbmm_(self, batch1, batch2, beta=1, alpha=1):
    return addbmm_out(self, batch1, batch2, beta, alpha, self)


# -- outer, inner ----------------------------------------------------------------------------

def _check_outer(self, vec2) -> None:
    check(self.dim() == 1, lambda: f"outer: Expected 1-D argument self, but got {self.dim()}-D")
    check(vec2.dim() == 1, lambda: f"outer: Expected 1-D argument vec2, but got {vec2.dim()}-D")


def _elementwise_mul(a, b, out=None):
    """torch's ``a * b`` (TensorIterator's promotion and layout): the elementwise kernel."""
    from .elementwise import mul, mul_out
    return mul(a, b) if out is None else mul_out(a, b, out)


def _outer(self, vec2, out):
    _check_outer(self, vec2)
    # torch: self.reshape(n, 1) * vec2
    return _elementwise_mul(views.reshape(self, (self._sizes[0], 1)), vec2, out)


def outer(self, vec2):
    return _outer(self, vec2, None)


def outer_out(self, vec2, out):
    return _outer(self, vec2, out)


def ger(self, vec2):
    return _outer(self, vec2, None)


def ger_out(self, vec2, out):
    return _outer(self, vec2, out)


def _inner(self, other, out):
    if self.dim() == 0 or other.dim() == 0:
        return _elementwise_mul(self, other, out)
    check(self._sizes[-1] == other._sizes[-1], lambda: (
        f"inner() the last dimension must match on both input tensors but got shapes "
        f"{list(self._sizes)} and {list(other._sizes)}"))
    return _tensordot(self, other, (self.dim() - 1,), (other.dim() - 1,), out)


def inner(self, other):
    return _inner(self, other, None)


def inner_out(self, other, out):
    return _inner(self, other, out)


# -- tensordot -------------------------------------------------------------------------------

def _tensordot(self, other, dims_self, dims_other, out):
    check(len(dims_self) == len(dims_other), "both dimension lists should have same length")
    check(self._dtype is other._dtype, lambda: (
        "both inputs should have same dtype"))
    nd1, nd2 = self.dim(), other.dim()
    from ..core.checks import maybe_wrap_dim
    contracted1, contracted2 = [], []
    for d1, d2 in zip(dims_self, dims_other):
        w1, w2 = maybe_wrap_dim(d1, nd1), maybe_wrap_dim(d2, nd2)
        s1, s2 = self._sizes[w1], other._sizes[w2]
        if s2 == 1:
            pass
        elif s1 == 1:
            pass
        else:
            check(s1 == s2, lambda s1=s1, s2=s2, d1=d1, d2=d2: (
                f"contracted dimensions need to match, but first has size {s1} in dim {d1} "
                f"and second has size {s2} in dim {d2}"))
        contracted1.append(w1)
        contracted2.append(w2)
    for dims in (contracted1, contracted2):
        for i, d in enumerate(dims):
            check(d not in dims[:i], lambda d=d: f"dim {d} appears multiple times in the list "
                                                 f"of dims")
    free1 = [d for d in range(nd1) if d not in contracted1]
    free2 = [d for d in range(nd2) if d not in contracted2]
    shape = tuple(self._sizes[d] for d in free1) + tuple(other._sizes[d] for d in free2)
    meta = _is_meta(self) or _is_meta(other)
    dtype = self._dtype
    if not meta:
        # a contraction of every dim of both is a dot product in torch
        full = contracted1 and not free1 and not free2
        _check_kernel_dtype(self, "dot" if full else "addmm_impl_cpu_")
    if out is None:
        result = _new(shape, dtype, self._device)
    else:
        check(out._dtype is dtype, lambda: (
            f"tensordot: Expected the output tensor to have dtype {dtype._scalar_name}, but got "
            f"an output tensor with dtype {out._dtype._scalar_name}"))
        resize_output(out, shape)
        result = out
    if not meta:
        a = np.transpose(self._array(), free1 + contracted1)
        b = np.transpose(other._array(), contracted2 + free2)
        rows = numel_of(a.shape[:len(free1)])
        cols = numel_of(b.shape[len(contracted2):])
        inner_sizes = [max(x, y) if 1 in (x, y) else x for x, y in
                       zip(a.shape[len(free1):], b.shape[:len(contracted2)])]
        a = np.broadcast_to(a, a.shape[:len(free1)] + tuple(inner_sizes))
        b = np.broadcast_to(b, tuple(inner_sizes) + b.shape[len(contracted2):])
        k = numel_of(inner_sizes)
        prod = _product(a.reshape(rows, k), b.reshape(k, cols))
        with np.errstate(all="ignore"):
            np.copyto(result._array(), prod.reshape(shape), casting="unsafe")
    return result if out is None else _written(result)


def tensordot(self, other, dims_self, dims_other):
    return _tensordot(self, other, dims_self, dims_other, None)


def tensordot_out(self, other, dims_self, dims_other, out):
    return _tensordot(self, other, dims_self, dims_other, out)


# -- einsum ----------------------------------------------------------------------------------
#
# Note [einsum]
# ~~~~~~~~~~~~~
# The equation is parsed and checked with torch's messages; labels are letters (A-Z sort
# before a-z in an implicit output), "..." stands for the broadcast dims. The result's
# dtype follows torch's evaluation order: labels found in one operand only (and not in the
# output) are summed out of it first (a ``sum``: ints and bools become int64), then the
# operands are multiplied left to right, a pair that contracts a label going through
# ``bmm`` (one dtype, no bool) and one that does not through ``mul`` (promotion). A single
# operand without summed labels gives a view (a permutation and/or diagonal). The values
# come from ``np.einsum`` on operands broadcast to the label sizes. Known difference: torch
# lays some multi-operand results out permuted (its bmm's batch/left/right order); here
# they are row-major.

_ELLIPSIS = "."


def _label_key(c: str) -> int:
    return ord(c) - ord("A") if c.isupper() else 26 + ord(c) - ord("a")


def _parse_einsum(equation: str, operands):
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    pos = 0
    parsed = []   # per term: list of labels, with "." for the ellipsis
    for op_index, term in enumerate(terms):
        labels = []
        dots = 0
        seen_ellipsis = False
        for ch in term:
            if ch == ".":
                dots += 1
                if seen_ellipsis:
                    raise RuntimeError(f"einsum(): found '.' for operand {op_index} for which "
                                       f"an ellipsis was already found")
                if dots == 3:
                    labels.append(_ELLIPSIS)
                    seen_ellipsis = True
                    dots = 0
            else:
                if dots:
                    raise RuntimeError(f"einsum(): found '.' for operand {op_index} that is "
                                       f"not part of any ellipsis")
                if not (ch.isascii() and ch.isalpha()):
                    raise RuntimeError(
                        f"einsum(): invalid subscript given at index {pos} in the equation "
                        f"string, subscripts must be in [a-zA-Z]")
                labels.append(ch)
            pos += 1
        if dots:
            raise RuntimeError(f"einsum(): found '.' for operand {op_index} that is not part of "
                               f"any ellipsis")
        parsed.append(labels)
        pos += 1
    check(len(operands) <= len(parsed),
          "einsum(): more operands were provided than specified in the equation")
    check(len(operands) >= len(parsed),
          "einsum(): fewer operands were provided than specified in the equation")
    return parsed, (rhs if arrow else None)


def _einsum_sizes(parsed, operands):
    """Each operand's labels with its ellipsis expanded, and each label's size."""
    sizes: dict = {}
    ell_ndim = 0
    expanded = []
    for i, (labels, t) in enumerate(zip(parsed, operands)):
        ndim = t.dim()
        n_named = sum(1 for c in labels if c != _ELLIPSIS)
        if _ELLIPSIS in labels:
            check(n_named <= ndim, lambda n=n_named, d=ndim, i=i: (
                f"einsum(): the number of subscripts in the equation ({n}) is more than the "
                f"number of dimensions ({d}) for operand {i}"))
            k = ndim - n_named
            ell_ndim = max(ell_ndim, k)
            at = labels.index(_ELLIPSIS)
            full = labels[:at] + [f"#{j}" for j in range(k)] + labels[at + 1:]
        else:
            check(n_named == ndim, lambda n=n_named, d=ndim, i=i: (
                f"einsum(): the number of subscripts in the equation ({n}) does not match the "
                f"number of dimensions ({d}) for operand {i} and no ellipsis was given"))
            full = list(labels)
        expanded.append(full)
    # ellipsis dims are right-aligned across operands: "#j" counts from the right
    for full in expanded:
        k = sum(1 for c in full if c.startswith("#"))
        for j, c in enumerate(full):
            if c.startswith("#"):
                full[j] = f"#{ell_ndim - k + int(c[1:])}"
    for i, (full, t) in enumerate(zip(expanded, operands)):
        local: dict = {}
        for c, s in zip(full, t._sizes):
            if c in local:
                check(local[c] == s, lambda c=c, s=s, i=i, p=local[c]: (
                    f"einsum(): subscript {c} is repeated for operand {i} but the sizes don't "
                    f"match, {s} != {p}"))
                continue
            local[c] = s
            prev = sizes.get(c)
            if prev is None or prev == 1:
                sizes[c] = s
            elif s != 1 and s != prev:
                name = c if not c.startswith("#") else "..."
                raise RuntimeError(
                    f"einsum(): subscript {name} has size {s} for operand {i} which does not "
                    f"broadcast with previously seen size {prev}")
    return expanded, sizes, ell_ndim


def _einsum_output(parsed, rhs, ell_ndim):
    ell = [f"#{j}" for j in range(ell_ndim)]
    if rhs is None:
        counts: dict = {}
        for labels in parsed:
            for c in labels:
                if c != _ELLIPSIS:
                    counts[c] = counts.get(c, 0) + 1
        return ell + sorted((c for c, n in counts.items() if n == 1), key=_label_key)
    out = []
    everywhere = {c for labels in parsed for c in labels}
    i = 0
    while i < len(rhs):
        ch = rhs[i]
        if rhs.startswith("...", i):
            out.extend(ell)
            i += 3
            continue
        if not (ch.isascii() and ch.isalpha()):
            raise RuntimeError(
                f"einsum(): invalid subscript given at index {i} in the equation string, "
                f"subscripts must be in [a-zA-Z]")
        check(ch not in out, lambda ch=ch: (
            f"einsum(): output subscript {ch} appears more than once in the output"))
        check(ch in everywhere, lambda ch=ch: (
            f"einsum(): output subscript {ch} does not appear in the equation for any input "
            f"operand"))
        out.append(ch)
        i += 1
    return out


def _sum_dtype(dtype):
    return dt.int64 if dtype.category in (dt.BOOL, dt.INT) else dtype


def _einsum_dtype(expanded, output, operands):
    """The result dtype along torch's evaluation order (Note [einsum])."""
    n = len(operands)
    dtypes = []
    for i, (full, t) in enumerate(zip(expanded, operands)):
        others = {c for j, f in enumerate(expanded) if j != i for c in f}
        local_sum = any(c not in output and c not in others for c in full)
        dtypes.append(_sum_dtype(t._dtype) if local_sum else t._dtype)
    acc, acc_labels = dtypes[0], set(expanded[0])
    for i in range(1, n):
        later = {c for f in expanded[i + 1:] for c in f}
        labels = set(expanded[i])
        contracted = {c for c in acc_labels & labels if c not in output and c not in later}
        if contracted:
            check(acc is dtypes[i], lambda a=acc, b=dtypes[i]: (
                f"expected scalar type {a._scalar_name} but found {b._scalar_name}"))
            if acc.name in _UNSUPPORTED:
                raise NotImplementedError(f'"bmm" not implemented for \'{acc._scalar_name}\'')
        else:
            acc = dt.promote(acc, dtypes[i])
        acc_labels = (acc_labels | labels) - contracted
    return acc


def einsum(equation, tensors, path=None):
    operands = tuple(tensors)
    parsed, rhs = _parse_einsum(equation, operands)
    expanded, sizes, ell_ndim = _einsum_sizes(parsed, operands)
    output = _einsum_output(parsed, rhs, ell_ndim)
    dtype = _einsum_dtype(expanded, output, operands)
    shape = tuple(sizes[c] for c in output)
    if len(operands) == 1:
        view = _einsum_view(operands[0], expanded[0], output)
        if view is not None:
            return view
    device = operands[0]._device
    result = _new(shape, dtype, device)
    if any(_is_meta(t) for t in operands) or not numel_of(shape):
        if not _is_meta(result) and numel_of(shape):
            result._array()[...] = 0
        return result
    # map every label (ellipsis dims included) to a NumPy letter
    letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
    names = {}
    for c in [c for f in expanded for c in f] + output:
        if c not in names:
            names[c] = letters[len(names)]
    arrays = []
    compute = np.dtype(np.float32) if dtype.name in _HALF_TYPES else dtype.np
    for full, t in zip(expanded, operands):
        arr = t._array()
        target = tuple(sizes[c] if s == 1 else s for c, s in zip(full, arr.shape))
        # a size-1 dim broadcasts against the label's size (repeated labels keep theirs)
        if target != arr.shape and len(set(full)) == len(full):
            arr = np.broadcast_to(arr, target)
        arrays.append(arr.astype(compute, copy=False))
    spec = ",".join("".join(names[c] for c in f) for f in expanded) + "->" + \
        "".join(names[c] for c in output)
    with np.errstate(all="ignore"):
        values = np.einsum(spec, *arrays, optimize=len(arrays) > 2)
        np.copyto(result._array(), values, casting="unsafe")
    return result


def _einsum_view(t, full, output):
    """A single operand that needs no summation: its diagonals and permutation, as a view."""
    if set(full) != set(output):
        return None
    current = t
    labels = list(full)
    # take the diagonal of each repeated label (the diagonal dim goes last)
    while len(set(labels)) != len(labels):
        for i, c in enumerate(labels):
            j = labels.index(c, i + 1) if labels.count(c) > 1 else -1
            if j >= 0:
                current = views.diagonal(current, 0, i, j)
                labels = [x for k, x in enumerate(labels) if k not in (i, j)] + [c]
                break
    perm = [labels.index(c) for c in output]
    if perm != list(range(len(perm))):
        current = views.permute(current, perm)
    elif current is t:
        current = views.alias(t)
    return current


# -- kron, cross, trace ------------------------------------------------------------------------

def _kron(self, other, out):
    nd = max(self.dim(), other.dim())
    a_sizes = (1,) * (nd - self.dim()) + self._sizes
    b_sizes = (1,) * (nd - other.dim()) + other._sizes
    shape = tuple(x * y for x, y in zip(a_sizes, b_sizes))
    dtype = dt.promote(self._dtype, other._dtype)
    if out is None:
        # torch: (a viewed as (a0, 1, a1, 1, ...)) * (b as (1, b0, 1, b1, ...)), viewed as
        # the result's shape; the product keeps its inputs' layout, so a transposed input
        # can make that last view impossible (torch's view error then)
        a_view = views.view(self, tuple(x for s_ in a_sizes for x in (s_, 1)))
        b_view = views.view(other, tuple(x for s_ in b_sizes for x in (1, s_)))
        return views.view(_elementwise_mul(a_view, b_view), shape)
    else:
        check(dt.can_cast(dtype, out._dtype), lambda: (
            f"result type {dtype._scalar_name} can't be cast to the desired output type "
            f"{out._dtype._scalar_name}"))
        resize_output(out, shape)
        result = out
    if not (_is_meta(self) or _is_meta(other)) and numel_of(shape):
        a = self._array().reshape(a_sizes).astype(dtype.np, copy=False)
        b = other._array().reshape(b_sizes).astype(dtype.np, copy=False)
        with np.errstate(all="ignore"):
            values = np.kron(_widened(a), _widened(b)) if dtype is not dt.bool_ else \
                np.kron(a, b).astype(bool)
            np.copyto(result._array(), values, casting="unsafe")
    return result if out is None else _written(result)


def kron(self, other):
    return _kron(self, other, None)


def kron_out(self, other, out):
    return _kron(self, other, out)


def _cross(self, other, dim, out, linalg: bool):
    check(self.dim() == other.dim(),
          "linalg.cross: inputs must have the same number of dimensions.")
    check(self._dtype is other._dtype, lambda: (
        f"expected scalar type {self._dtype._scalar_name} but found "
        f"{other._dtype._scalar_name}"))
    if dim is None:
        # torch.cross without dim: the first dim of size 3 (deprecated)
        dims = [d for d, s in enumerate(self._sizes) if s == 3]
        check(dims, "no dimension of size 3 in input")
        views.warn_once("cross_dim", (
            "Using torch.cross without specifying the dim arg is deprecated.\nPlease either "
            "pass the dim explicitly or simply use torch.linalg.cross.\nThe default value of "
            "dim will change to agree with that of linalg.cross in a future release."))
        dim = dims[0]
    from ..core.checks import maybe_wrap_dim
    wrapped = maybe_wrap_dim(dim, self.dim())
    s1, s2 = self._sizes[wrapped], other._sizes[wrapped]
    check(s1 == 3 and s2 == 3, lambda: (
        f"linalg.cross: inputs dimension {dim} must have length 3. Got {s1} and {s2}"))
    shape = broadcast_pair(self._sizes, other._sizes)
    if out is None:
        result = _new(shape, self._dtype, self._device)
    else:
        _check_out_dtype(out, self._dtype)
        resize_output(out, shape)
        result = out
    if not (_is_meta(self) or _is_meta(other)) and numel_of(shape):
        a = np.broadcast_to(self._array(), shape)
        b = np.broadcast_to(other._array(), shape)
        with np.errstate(all="ignore"):
            values = np.cross(_widened(a), _widened(b), axis=wrapped)
            np.copyto(result._array(), values, casting="unsafe")
    return result if out is None else _written(result)


def cross(self, other, dim=None):
    return _cross(self, other, dim, None, False)


def cross_out(self, other, dim=None, out=None):
    return _cross(self, other, dim, out, False)


def linalg_cross(self, other, dim=-1):
    return _cross(self, other, dim, None, True)


def linalg_cross_out(self, other, dim=-1, out=None):
    return _cross(self, other, dim, out, True)


def trace(self):
    if self._dtype.category == dt.BOOL and not _is_meta(self):
        raise NotImplementedError(f'"trace" not implemented for \'{self._dtype._scalar_name}\'')
    check(self.dim() == 2, lambda: (
        f"trace: expected a matrix, but got tensor with dim {self.dim()}"))
    dtype = _sum_dtype(self._dtype)
    result = _new((), dtype, self._device)
    if not _is_meta(self):
        diag = np.diagonal(self._array())
        with np.errstate(all="ignore"):
            value = diag.astype(np.float32).sum() if dtype.name in _HALF_TYPES else \
                diag.sum(dtype=dtype.np)
            np.copyto(result._array(), value, casting="unsafe")
    return result


# ============================================================================ strided.linalg
#
# Note [linalg results and their layouts]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# torch's CPU linalg runs LAPACK, which works on column-major matrices: the matrices it
# returns (inv, solve, cholesky, Q and R, U and Vh, eigenvectors, lstsq's solution) are
# column-major in their last two dims, batch dims outermost; vectors (eigenvalues,
# singular values) and scalars (det) are row-major. The kernels allocate the same layouts
# and fill them from NumPy's linalg, which calls LAPACK too (float32 stays float32).
# Errors carry torch's texts, including the LAPACK ``info`` of a singular or
# non-positive-definite input; LinAlgError is a RuntimeError, as torch's is.


class _LinAlgError(RuntimeError):
    """torch.linalg.LinAlgError: a linear algebra routine failed on its input."""


_LinAlgError.__module__ = "strided.linalg"
LinAlgError = _LinAlgError


def _colmajor(shape, dtype, device):
    """A tensor whose last two dims are column-major (Note [linalg results and their
    layouts])."""
    shape = tuple(shape)
    if len(shape) < 2:
        return _new(shape, dtype, device)
    m, n = shape[-2], shape[-1]
    strides = list(contiguous_strides(shape[:-2] + (n, m)))
    strides[-2], strides[-1] = strides[-1], strides[-2]
    from .factory import new_strided
    return new_strided(shape, tuple(strides), dtype, device)


def _fill(t, values):
    if numel_of(t._sizes) and not _is_meta(t):
        with np.errstate(all="ignore"):
            np.copyto(t._array(), values, casting="unsafe")
    return t


def _check_linalg(A, fname: str, *, square=True, arg="A", low="error", kernel=None):
    """torch's checks for a linalg input: at least a matrix, square, a floating or complex
    dtype, no half types (``low``: "error" for torch's RuntimeError, "kernel" for the
    NotImplementedError of a dispatch macro naming ``kernel``)."""
    check(A.dim() >= 2, lambda: (
        f"{fname}: The input tensor {arg} must have at least 2 dimensions."))
    if square:
        m, n = A._sizes[-2], A._sizes[-1]
        check(m == n, lambda: (
            f"{fname}: A must be batches of square matrices, but they are {m} by {n} matrices"))
    cat = A._dtype.category
    check(cat in (dt.FLOAT, dt.COMPLEX), lambda: (
        f"{fname}: Expected a floating point or complex tensor as input. Got "
        f"{A._dtype._scalar_name}"))
    if A._dtype.name in _HALF_TYPES:
        if low == "kernel":
            raise NotImplementedError(
                f'"{kernel}" not implemented for \'{A._dtype._scalar_name}\'')
        raise RuntimeError(
            f"{fname}: Low precision dtypes not supported. Got {A._dtype._scalar_name}")


def _batch_prefix(b, batched: bool) -> str:
    return f"(Batch element {b}): " if batched else ""


def _lu_info(a: np.ndarray) -> int:
    """LAPACK getrf's ``info`` for one matrix: the 1-based index of the first exactly zero
    pivot of an LU factorisation with partial pivoting, 0 if none."""
    a = np.array(a, copy=True)
    n = a.shape[0]
    for k in range(n):
        p = k + int(np.argmax(np.abs(a[k:, k])))
        if a[p, k] == 0:
            return k + 1
        if p != k:
            a[[k, p]] = a[[p, k]]
        a[k + 1:, k] /= a[k, k]
        a[k + 1:, k + 1:] -= np.outer(a[k + 1:, k], a[k, k + 1:])
    return 0


def _lu_infos(arr: np.ndarray) -> np.ndarray:
    flat = arr.reshape((-1,) + arr.shape[-2:])
    return np.array([_lu_info(m) for m in flat], dtype=np.int32).reshape(arr.shape[:-2])


def _cholesky_info(a: np.ndarray) -> int:
    """potrf's ``info``: the order of the first leading minor that is not positive
    definite (Cholesky–Banachiewicz, in the input's precision), 0 if none."""
    n = a.shape[0]
    lower = np.zeros_like(a)
    for j in range(n):
        d = a[j, j] - np.sum(lower[j, :j] * lower[j, :j].conj())
        d = d.real if np.iscomplexobj(d) else d
        if not d > 0:
            return j + 1
        lower[j, j] = np.sqrt(d)
        if j + 1 < n:
            lower[j + 1:, j] = (a[j + 1:, j] - lower[j + 1:, :j] @ lower[j, :j].conj()) / \
                lower[j, j]
    return 0


def _singular_inv_message(fname, info, b, batched) -> str:
    return (f"{fname}: {_batch_prefix(b, batched)}The diagonal element {info} is zero, the "
            f"inversion could not be completed because the input matrix is singular.")


def _nearly_singular(solve, a, b=None):
    """``solve`` on matrices our LU (``_lu_info``, torch's pivoting) finds regular but
    NumPy's LAPACK rounds to an exact zero pivot: matrix by matrix, with the
    pseudo-inverse for those LAPACK refuses (torch returns LU's huge, meaningless
    numbers there; either answer is noise, but neither raises)."""
    try:
        return solve(a) if b is None else solve(a, b)
    except np.linalg.LinAlgError:
        out = []
        for i in range(a.shape[0]):
            try:
                out.append(solve(a[i]) if b is None else solve(a[i], b[i]))
            except np.linalg.LinAlgError:
                pinv = np.linalg.pinv(a[i])
                out.append(pinv if b is None else pinv @ b[i])
        return np.stack(out)


def _inv_values(arr: np.ndarray):
    """(inverse, info per matrix); singular matrices get LAPACK-like inf/nan entries."""
    with np.errstate(all="ignore"):
        try:
            return np.linalg.inv(arr), np.zeros(arr.shape[:-2], np.int32)
        except np.linalg.LinAlgError:
            infos = _lu_infos(arr)
            out = np.full(arr.shape, np.nan, arr.dtype)
            ok = infos == 0
            if ok.any():
                out[ok] = _nearly_singular(np.linalg.inv, arr[ok])
            return out, infos


def _inv_impl(A, fname="linalg.inv", check_errors=True):
    _check_linalg(A, fname)
    result = _colmajor(A._sizes, A._dtype, A._device)
    info = _new(A._sizes[:-2], dt.int32, A._device)
    if _is_meta(A) or not numel_of(A._sizes):
        if not _is_meta(A):
            info._array()[...] = 0
        return result, info
    values, infos = _inv_values(A._array())
    if check_errors and infos.any():
        b = int(np.flatnonzero(infos.reshape(-1))[0])
        raise _LinAlgError(_singular_inv_message(fname, int(infos.reshape(-1)[b]), b,
                                                 A.dim() > 2))
    _fill(result, values)
    _fill(info, infos)
    return result, info


def linalg_inv(A):
    return _inv_impl(A)[0]


def linalg_inv_out(A, out):
    return _copy_outs((out,), (_inv_impl(A)[0],))[0]


def inverse(self):
    return _inv_impl(self)[0]


def inverse_out(self, out):
    return _copy_outs((out,), (_inv_impl(self)[0],))[0]


def linalg_inv_ex(A, check_errors=False):
    return _inv_impl(A, check_errors=check_errors)


def linalg_inv_ex_inverse(A, check_errors=False, inverse=None, info=None):
    return _copy_outs((inverse, info), _inv_impl(A, check_errors=check_errors))


# -- det, slogdet, logdet --------------------------------------------------------------------

def _det_impl(A, out, fname="linalg.det"):
    _check_linalg(A, fname, low="kernel", kernel="lu_cpu")
    shape = A._sizes[:-2]
    if out is None:
        result = _new(shape, A._dtype, A._device)
    else:
        _check_out_dtype(out, A._dtype)
        resize_output(out, shape)
        result = out
    if not _is_meta(A):
        with np.errstate(all="ignore"):
            _fill(result, np.linalg.det(A._array()) if numel_of(A._sizes) else 1)
    return result if out is None else _written(result)


def linalg_det(A):
    return _det_impl(A, None)


def linalg_det_out(A, out):
    return _det_impl(A, out)


def det(self):
    return _det_impl(self, None)


def _slogdet_impl(A, fname="linalg.slogdet"):
    _check_linalg(A, fname)
    shape = A._sizes[:-2]
    sign = _new(shape, A._dtype, A._device)
    logabs = _new(shape, A._dtype.to_real(), A._device)
    if not _is_meta(A):
        if numel_of(A._sizes):
            with np.errstate(all="ignore"):
                s, la = np.linalg.slogdet(A._array())
        else:
            s, la = 1, 0
        _fill(sign, s)
        _fill(logabs, la)
    return sign, logabs


def linalg_slogdet(A):
    return _slogdet_impl(A)


def linalg_slogdet_out(A, sign, logabsdet):
    s, la = _slogdet_impl(A)
    for out, value in ((sign, s), (logabsdet, la)):
        _check_out_dtype(out, value._dtype)
        resize_output(out, value._sizes)
        _fill(out, value._array() if not _is_meta(value) else None)
        _written(out)
    return sign, logabsdet


def slogdet(self):
    return _slogdet_impl(self)


def slogdet_out(self, sign, logabsdet):
    return linalg_slogdet_out(self, sign, logabsdet)


def logdet(self):
    sign, logabs = _slogdet_impl(self, "logdet")
    if _is_meta(self):
        return logabs if not self._dtype.is_complex else sign
    s, la = sign._array(), logabs._array()
    with np.errstate(all="ignore"):
        if self._dtype.is_complex:
            values = np.log(s) + la
            result = _new(sign._sizes, self._dtype, self._device)
        else:
            values = np.where(s < 0, np.nan, la)
            result = _new(sign._sizes, self._dtype, self._device)
    return _fill(result, values)


# -- solve -----------------------------------------------------------------------------------

def _solve_impl(A, B, left, out, check_errors=True):
    _check_linalg(A, "linalg.solve")
    check(A._dtype is B._dtype, lambda: (
        f"linalg.solve: Expected A and B to have the same dtype, but found A of type "
        f"{A._dtype._scalar_name} and B of type {B._dtype._scalar_name} instead"))
    n = A._sizes[-1]
    # B is a vector when it is 1-D or has exactly the batch shape of A plus one dim
    vector = B.dim() == 1 or (B.dim() == A.dim() - 1 and B._sizes == A._sizes[:-1])
    if vector:
        check(B._sizes[-1] == n, lambda: (
            f"linalg.solve: Incompatible shapes of A and B for the equation AX = B "
            f"({n}x{n} and {B._sizes[-1]}x1)"))
        batch = broadcast_pair(A._sizes[:-2], B._sizes[:-1])
        shape = batch + (n,)
    else:
        rows = B._sizes[-2] if left else B._sizes[-1]
        if left:
            check(B.dim() >= 2 and rows == n, lambda: (
                f"linalg.solve: Incompatible shapes of A and B for the equation AX = B "
                f"({n}x{n} and {'x'.join(map(str, B._sizes[-2:]))})"))
        else:
            check(B.dim() >= 2 and rows == n, lambda: (
                f"linalg.solve: Incompatible shapes of A and B for the equation XA = B "
                f"({n}x{n} and {'x'.join(map(str, B._sizes[-2:]))})"))
        batch = broadcast_pair(A._sizes[:-2], B._sizes[:-2])
        shape = batch + B._sizes[-2:]
    if out is None:
        result = _colmajor(shape, A._dtype, A._device) if left or vector else \
            views.transpose(_colmajor(shape[:-2] + shape[:-3:-1], A._dtype, A._device), -2, -1)
    else:
        _check_out_dtype(out, A._dtype)
        resize_output(out, shape)
        result = out
    info = _new(A._sizes[:-2], dt.int32, A._device)
    if _is_meta(A) or _is_meta(B):
        return result, info
    a = np.broadcast_to(A._array(), batch + (n, n))
    b = B._array()
    if vector:
        b = np.broadcast_to(b, batch + (n,))[..., None]
    elif not left:
        a = np.swapaxes(a, -1, -2)
        b = np.swapaxes(np.broadcast_to(b, shape), -1, -2)
    else:
        b = np.broadcast_to(b, shape)
    infos = np.zeros(batch, np.int32)
    with np.errstate(all="ignore"):
        try:
            x = np.linalg.solve(a, b) if numel_of(a.shape) else np.zeros(b.shape, b.dtype)
        except np.linalg.LinAlgError:
            infos = _lu_infos(a)
            if check_errors and infos.any():
                bad = int(np.flatnonzero(infos.reshape(-1))[0])
                raise _LinAlgError(
                    f"torch.linalg.solve: {_batch_prefix(bad, A.dim() > 2)}The solver failed "
                    f"because the input matrix is singular.") from None
            x = np.full(b.shape, np.nan, b.dtype)
            ok = infos == 0
            if ok.any():
                x[ok] = _nearly_singular(np.linalg.solve, a[ok], b[ok])
    if vector:
        x = x[..., 0]
    elif not left:
        x = np.swapaxes(x, -1, -2)
    _fill(result, x)
    if infos.any():
        infos = _lu_infos(A._array())   # info describes A itself (not broadcast)
    else:
        infos = np.zeros(A._sizes[:-2], np.int32)
    _fill(info, infos)
    return result, info


def linalg_solve(A, B, left=True):
    return _solve_impl(A, B, left, None)[0]


def linalg_solve_out(A, B, left=True, out=None):
    return _copy_outs((out,), (_solve_impl(A, B, left, None)[0],))[0]


def linalg_solve_ex(A, B, left=True, check_errors=False):
    return _solve_impl(A, B, left, None, check_errors)


def linalg_solve_ex_out(A, B, left=True, check_errors=False, result=None, info=None):
    return _copy_outs((result, info), _solve_impl(A, B, left, None, check_errors))


# -- cholesky ----------------------------------------------------------------------------------

def _cholesky_impl(A, upper, out, check_errors=True):
    _check_linalg(A, "linalg.cholesky", low="kernel", kernel="cholesky_cpu")
    if out is None:
        result = _colmajor(A._sizes, A._dtype, A._device)
    else:
        _check_out_dtype(out, A._dtype)
        resize_output(out, A._sizes)
        result = out
    info = _new(A._sizes[:-2], dt.int32, A._device)
    if _is_meta(A):
        return result, info
    arr = A._array()
    batched = A.dim() > 2
    infos = np.zeros(arr.shape[:-2], np.int32)
    # LAPACK reads one triangle only: the lower one (the upper one for upper=True)
    tri = np.tril(arr) if not upper else np.swapaxes(np.triu(arr), -1, -2).conj()
    herm = tri + np.swapaxes(np.tril(tri, -1), -1, -2).conj()
    with np.errstate(all="ignore"):
        try:
            low = np.linalg.cholesky(herm) if numel_of(arr.shape) else herm.copy()
        except np.linalg.LinAlgError:
            flat = herm.reshape((-1,) + herm.shape[-2:])
            infos = np.array([_cholesky_info(m) for m in flat], np.int32).reshape(infos.shape)
            if check_errors and infos.any():
                b = int(np.flatnonzero(infos.reshape(-1))[0])
                raise _LinAlgError(
                    f"linalg.cholesky: {_batch_prefix(b, batched)}The factorization could not "
                    f"be completed because the input is not positive-definite (the leading "
                    f"minor of order {int(infos.reshape(-1)[b])} is not positive-definite)."
                ) from None
            low = np.zeros_like(herm)
            ok = infos == 0
            if ok.any():
                low[ok] = np.linalg.cholesky(herm[ok])
    values = np.swapaxes(low, -1, -2).conj() if upper else low
    _fill(result, values)
    _fill(info, infos)
    return result, info


def linalg_cholesky(self, upper=False):
    return _cholesky_impl(self, upper, None)[0]


def linalg_cholesky_out(self, upper=False, out=None):
    return _copy_outs((out,), (_cholesky_impl(self, upper, None)[0],))[0]


def linalg_cholesky_ex(self, upper=False, check_errors=False):
    return _cholesky_impl(self, upper, None, check_errors)


def linalg_cholesky_ex_L(self, upper=False, check_errors=False, L=None, info=None):
    return _copy_outs((L, info), _cholesky_impl(self, upper, None, check_errors))


# -- qr, svd, eigh, eig ---------------------------------------------------------------------------

def _qr_impl(A, mode):
    check(mode in ("reduced", "complete", "r"), lambda: (
        f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), "
        f"'r', or 'complete'"))
    _check_linalg(A, "linalg.qr", square=False, low="kernel", kernel="geqrf_cpu")
    m, n = A._sizes[-2:]
    k = min(m, n)
    batch = A._sizes[:-2]
    q_cols = m if mode == "complete" else k
    r_rows = m if mode == "complete" else k
    q = _new((0,), A._dtype, A._device) if mode == "r" else \
        _colmajor(batch + (m, q_cols), A._dtype, A._device)
    r = _colmajor(batch + (r_rows, n), A._dtype, A._device)
    if _is_meta(A) or not numel_of(A._sizes):
        if not _is_meta(A) and numel_of(q._sizes) and mode != "r":
            q._array()[...] = np.eye(m, q_cols)
        if not _is_meta(A):
            _fill(r, 0)
        return q, r
    np_mode = "complete" if mode == "complete" else "reduced"
    qv, rv = np.linalg.qr(A._array(), mode=np_mode)
    if mode != "r":
        _fill(q, qv)
    _fill(r, rv)
    return q, r


def linalg_qr(A, mode="reduced"):
    return _qr_impl(A, mode)


def linalg_qr_out(A, mode="reduced", Q=None, R=None):
    q, r = _qr_impl(A, mode)
    return _copy_outs((Q, R), (q, r))


def _copy_outs(outs, values, dtype_check=None):
    """Write computed results into out= tensors: torch's dtype check (``dtype_check(out,
    value)`` when the op has its own), resize (a resized out takes the result's layout),
    copy, version bump."""
    for out, value in zip(outs, values):
        if dtype_check is None:
            _check_out_dtype(out, value._dtype)
        else:
            dtype_check(out, value)
        if out._sizes != value._sizes:
            # torch gives resized outs the result's (column-major) layout
            resize_output(out, value._sizes)
            if out._strides != value._strides and numel_of(value._sizes):
                views._set_geometry(out, value._sizes, value._strides, out._offset)
                out._vc[0] -= 1
        if not _is_meta(value):
            _fill(out, value._array())
        _written(out)
    return tuple(outs)


def qr(self, some=True):
    views.warn_once("torch.qr", (
        "torch.qr is deprecated in favor of torch.linalg.qr and will be removed in a future "
        "PyTorch release.\nThe boolean parameter 'some' has been replaced with a string "
        "parameter 'mode'.\nQ, R = torch.qr(A, some)\nshould be replaced with\nQ, R = "
        "torch.linalg.qr(A, 'reduced' if some else 'complete')"))
    return _qr_impl(self, "reduced" if some else "complete")


def _svd_values(A, full_matrices, compute_uv):
    arr = A._array()
    if not numel_of(arr.shape):
        return None
    with np.errstate(all="ignore"):
        if compute_uv:
            return np.linalg.svd(arr, full_matrices=full_matrices)
        return np.linalg.svd(arr, compute_uv=False)


def _check_svd_driver(A, driver) -> None:
    check(driver is None, "torch.linalg.svd: keyword argument `driver=` is only supported on "
                          "CUDA inputs with cuSOLVER backend.")


def _svd_impl(A, full_matrices, driver):
    _check_linalg(A, "linalg.svd", square=False, low="kernel", kernel="linalg_svd_cpu")
    _check_svd_driver(A, driver)
    m, n = A._sizes[-2:]
    k = min(m, n)
    batch = A._sizes[:-2]
    real = A._dtype.to_real()
    u = _colmajor(batch + (m, m if full_matrices else k), A._dtype, A._device)
    s = _new(batch + (k,), real, A._device)
    vh_shape = batch + (n if full_matrices else k, n)
    if _is_meta(A):
        # torch's meta function lays Vh out row-major
        return u, s, _new(vh_shape, A._dtype, A._device)
    vh = _colmajor(vh_shape, A._dtype, A._device)
    values = _svd_values(A, full_matrices, True)
    if values is None:
        # an empty matrix: identity factors where they have elements
        if numel_of(u._sizes):
            u._array()[...] = np.eye(*u._sizes[-2:])
        if numel_of(vh._sizes):
            vh._array()[...] = np.eye(*vh._sizes[-2:])
        return u, s, vh
    _fill(u, values[0])
    _fill(s, values[1])
    _fill(vh, values[2])
    return u, s, vh


def linalg_svd(A, full_matrices=True, driver=None):
    return _svd_impl(A, full_matrices, driver)


def linalg_svd_U(A, full_matrices=True, driver=None, U=None, S=None, Vh=None):
    return _copy_outs((U, S, Vh), _svd_impl(A, full_matrices, driver))


def _svdvals_impl(A, driver):
    _check_linalg(A, "linalg.svd", square=False, low="kernel", kernel="linalg_svd_cpu")
    _check_svd_driver(A, driver)
    k = min(A._sizes[-2:])
    s = _new(A._sizes[:-2] + (k,), A._dtype.to_real(), A._device)
    if not _is_meta(A):
        values = _svd_values(A, False, False)
        if values is not None:
            _fill(s, values)
    return s


def linalg_svdvals(A, driver=None):
    return _svdvals_impl(A, driver)


def linalg_svdvals_out(A, driver=None, out=None):
    return _copy_outs((out,), (_svdvals_impl(A, driver),))[0]


def svd(self, some=True, compute_uv=True):
    """torch.svd: V (Vh's adjoint, a transposed view for real types) instead of Vh, reduced
    by default; without compute_uv, zero-filled full-size U and V."""
    if not compute_uv:
        m, n = self._sizes[-2:] if self.dim() >= 2 else (0, 0)
        s = _svdvals_impl(self, None)
        batch = self._sizes[:-2]
        u = _new(batch + (m, m), self._dtype, self._device)
        v = _colmajor(batch + (n, n), self._dtype, self._device)
        return _fill(u, 0), s, _fill(v, 0)
    u, s, vh = _svd_impl(self, not some, None)
    v = views.transpose(vh, -2, -1)
    if self._dtype.is_complex:
        from .view_ops import alias_conj
        v = alias_conj(v)     # Vh.mH: a conjugate view, as torch's
    return u, s, v


def _check_uplo(uplo) -> str:
    check(uplo.upper() in ("L", "U") and len(uplo) == 1, lambda: (
        f"Expected UPLO argument to be 'L' or 'U', but got {uplo}"))
    return uplo.upper()


def _check_eigh_dtype(A) -> None:
    if A._dtype.category not in (dt.FLOAT, dt.COMPLEX) or A._dtype.name in _HALF_TYPES:
        raise NotImplementedError(
            f'"linalg_eigh_cpu" not implemented for \'{A._dtype._scalar_name}\'')


def _eigh_impl(A, uplo, vectors: bool):
    check(A.dim() >= 2, "linalg.eigh: The input tensor A must have at least 2 dimensions.")
    m, n = A._sizes[-2:]
    check(m == n, lambda: (
        f"linalg.eigh: A must be batches of square matrices, but they are {m} by {n} matrices"))
    uplo = _check_uplo(uplo)
    _check_eigh_dtype(A)
    batch = A._sizes[:-2]
    w = _new(batch + (n,), A._dtype.to_real(), A._device)
    v = _colmajor(A._sizes, A._dtype, A._device) if vectors else None
    if _is_meta(A) or not numel_of(A._sizes):
        return w, v
    with np.errstate(all="ignore"):
        if vectors:
            wv, vv = np.linalg.eigh(A._array(), UPLO=uplo)
            _fill(v, vv)
        else:
            wv = np.linalg.eigvalsh(A._array(), UPLO=uplo)
    _fill(w, wv)
    return w, v


def linalg_eigh(self, UPLO="L"):
    return _eigh_impl(self, UPLO, True)


def linalg_eigh_eigvals(self, UPLO="L", eigvals=None, eigvecs=None):
    return _copy_outs((eigvals, eigvecs), _eigh_impl(self, UPLO, True))


def linalg_eigvalsh(self, UPLO="L"):
    return _eigh_impl(self, UPLO, False)[0]


def linalg_eigvalsh_out(self, UPLO="L", out=None):
    return _copy_outs((out,), (_eigh_impl(self, UPLO, False)[0],))[0]


def _eig_impl(A, vectors: bool, fname: str):
    check(A.dim() >= 2, lambda: (
        f"{fname}: The input tensor A must have at least 2 dimensions."))
    m, n = A._sizes[-2:]
    check(m == n, lambda: (
        f"{fname}: A must be batches of square matrices, but they are {m} by {n} matrices"))
    if A._dtype.category in (dt.BOOL, dt.INT):
        raise RuntimeError(f"Unknown Complex ScalarType for {A._dtype._scalar_name}")
    if A._dtype.name in _HALF_TYPES:
        raise NotImplementedError(
            f'"linalg_eig_out_cpu" not implemented for \'{A._dtype._scalar_name}\'')
    cdtype = A._dtype.to_complex()
    batch = A._sizes[:-2]
    w = _new(batch + (n,), cdtype, A._device)
    v = None
    if vectors:   # torch's meta function lays the eigenvectors out row-major
        v = _new(A._sizes, cdtype, A._device) if _is_meta(A) else \
            _colmajor(A._sizes, cdtype, A._device)
    if _is_meta(A) or not numel_of(A._sizes):
        return w, v
    with np.errstate(all="ignore"):
        if vectors:
            wv, vv = np.linalg.eig(A._array())
            _fill(v, vv)
        else:
            wv = np.linalg.eigvals(A._array())
    _fill(w, wv)
    return w, v


def linalg_eig(self):
    return _eig_impl(self, True, "linalg.eig")


def _castable(fname, names):
    it = iter(names)

    def check_one(out, value):
        name = next(it)
        check(dt.can_cast(value._dtype, out._dtype), lambda: (
            f"torch.{fname}: Expected {name} to be safely castable from "
            f"{value._dtype._scalar_name} dtype, but got {name} with dtype "
            f"{out._dtype._scalar_name}"))
    return check_one


def linalg_eig_out(self, eigenvalues=None, eigenvectors=None):
    return _copy_outs((eigenvalues, eigenvectors), _eig_impl(self, True, "linalg.eig"),
                      _castable("linalg.eig", ("eigenvalues", "eigenvectors")))


def linalg_eigvals(self):
    return _eig_impl(self, False, "linalg.eigvals")[0]


def linalg_eigvals_out(self, out=None):
    return _copy_outs((out,), (_eig_impl(self, False, "linalg.eigvals")[0],),
                      _castable("linalg.eigvals", ("eigenvalues",)))[0]


# -- pinv, matrix_rank ---------------------------------------------------------------------------

def _tolerance_arrays(A, atol, rtol, sigma_max):
    """torch's rule: tol = max(atol, rtol * largest singular value); rtol defaults to
    eps * max(m, n) when neither is given, and to 0 when only atol is."""
    real = A._dtype.to_real()
    def value(x):
        if x is None:
            return None
        return x._array().astype(real.np) if hasattr(x, "_array") else np.asarray(x, real.np)
    a, r = value(atol), value(rtol)
    if r is None:
        r = np.asarray(np.finfo(real.np).eps * max(A._sizes[-2:]) if a is None else 0.0,
                       real.np)
    if a is None:
        a = np.asarray(0.0, real.np)
    # tensors of tolerances have the batch shape: one per matrix
    a = a[..., None] if a.ndim else a
    r = r[..., None] if r.ndim else r
    return np.maximum(a, r * sigma_max)


def _spectrum(A, hermitian):
    """(singular values, and the factors that rebuild the pseudo-inverse)."""
    arr = A._array()
    with np.errstate(all="ignore"):
        if hermitian:
            w, v = np.linalg.eigh(arr)
            return np.abs(w), ("h", w, v)
        u, s, vh = np.linalg.svd(arr, full_matrices=False)
        return s, ("s", u, s, vh)


def _pinv_impl(A, atol, rtol, hermitian, out):
    ok = A.dim() >= 2 and A._dtype.category in (dt.FLOAT, dt.COMPLEX) and \
        A._dtype.name not in _HALF_TYPES
    check(ok, lambda: (
        f"linalg.pinv({A._dtype._scalar_name}{{{list(A._sizes)}}}): expected a tensor with 2 "
        f"or more dimensions of float, double, cfloat or cdouble types"))
    m, n = A._sizes[-2:]
    shape = A._sizes[:-2] + (n, m)
    if out is None:
        result = _new(shape, A._dtype, A._device)
    else:
        # torch's pinv is a composite: its out= is a casting copy
        check(dt.can_cast(A._dtype, out._dtype), lambda: (
            f"result type {A._dtype._scalar_name} can't be cast to the desired output type "
            f"{out._dtype._scalar_name}"))
        resize_output(out, shape)
        result = out
    if _is_meta(A) or not numel_of(A._sizes):
        if not _is_meta(A):
            _fill(result, 0)
        return result if out is None else _written(result)
    sigma, parts = _spectrum(A, hermitian)
    tol = _tolerance_arrays(A, atol, rtol, sigma.max(axis=-1, keepdims=True) if sigma.size
                            else 0)
    with np.errstate(all="ignore"):
        if parts[0] == "h":
            _, w, v = parts
            inv_w = np.where(np.abs(w) > tol, 1 / w, 0).astype(w.dtype)
            values = (v * inv_w[..., None, :]) @ np.swapaxes(v, -1, -2).conj()
        else:
            _, u, s, vh = parts
            inv_s = np.where(s > tol, 1 / s, 0).astype(s.dtype)
            values = (np.swapaxes(vh, -1, -2).conj() * inv_s[..., None, :]) @ \
                np.swapaxes(u, -1, -2).conj()
    _fill(result, values)
    return result if out is None else _written(result)


def linalg_pinv_atol_rtol_tensor(self, atol=None, rtol=None, hermitian=False):
    return _pinv_impl(self, atol, rtol, hermitian, None)


def linalg_pinv_atol_rtol_tensor_out(self, atol=None, rtol=None, hermitian=False, out=None):
    return _pinv_impl(self, atol, rtol, hermitian, out)


def linalg_pinv_atol_rtol_float(self, atol=None, rtol=None, hermitian=False):
    return _pinv_impl(self, atol, rtol, hermitian, None)


def linalg_pinv_atol_rtol_float_out(self, atol=None, rtol=None, hermitian=False, out=None):
    return _pinv_impl(self, atol, rtol, hermitian, out)


def linalg_pinv(self, rcond, hermitian=False):
    return _pinv_impl(self, None, rcond, hermitian, None)


def linalg_pinv_rcond_tensor(self, rcond, hermitian=False):
    return _pinv_impl(self, None, rcond, hermitian, None)


def linalg_pinv_out(self, rcond, hermitian=False, out=None):
    return _pinv_impl(self, None, rcond, hermitian, out)


def linalg_pinv_out_rcond_tensor(self, rcond, hermitian=False, out=None):
    return _pinv_impl(self, None, rcond, hermitian, out)


def pinverse(self, rcond=1e-15):
    return _pinv_impl(self, None, rcond, False, None)


def _matrix_rank_impl(A, atol, rtol, hermitian, out):
    check(A.dim() >= 2, "torch.linalg.matrix_rank: The input tensor input must have at least "
                        "2 dimensions.")
    check(A._dtype.category in (dt.FLOAT, dt.COMPLEX) and A._dtype.name not in _HALF_TYPES,
          "This function doesn't handle types other than float and double")
    shape = A._sizes[:-2]
    if out is None:
        result = _new(shape, dt.int64, A._device)
    else:
        _check_out_dtype(out, dt.int64)
        resize_output(out, shape)
        result = out
    if _is_meta(A):
        return result if out is None else _written(result)
    if not numel_of(A._sizes):
        _fill(result, 0)
        return result if out is None else _written(result)
    sigma, _ = _spectrum(A, hermitian)
    tol = _tolerance_arrays(A, atol, rtol, sigma.max(axis=-1, keepdims=True))
    _fill(result, (sigma > tol).sum(axis=-1))
    return result if out is None else _written(result)


def linalg_matrix_rank_atol_rtol_tensor(input, atol=None, rtol=None, hermitian=False):
    return _matrix_rank_impl(input, atol, rtol, hermitian, None)


def linalg_matrix_rank_atol_rtol_tensor_out(input, atol=None, rtol=None, hermitian=False,
                                            out=None):
    return _matrix_rank_impl(input, atol, rtol, hermitian, out)


def linalg_matrix_rank_atol_rtol_float(self, atol=None, rtol=None, hermitian=False):
    return _matrix_rank_impl(self, atol, rtol, hermitian, None)


def linalg_matrix_rank_atol_rtol_float_out(self, atol=None, rtol=None, hermitian=False,
                                           out=None):
    return _matrix_rank_impl(self, atol, rtol, hermitian, out)


def linalg_matrix_rank(self, tol, hermitian=False):
    return _matrix_rank_impl(self, tol, 0.0, hermitian, None)


def linalg_matrix_rank_out(self, tol, hermitian=False, out=None):
    return _matrix_rank_impl(self, tol, 0.0, hermitian, out)


def linalg_matrix_rank_tol_tensor(input, tol, hermitian=False):
    return _matrix_rank_impl(input, tol, 0.0, hermitian, None)


def linalg_matrix_rank_out_tol_tensor(input, tol, hermitian=False, out=None):
    return _matrix_rank_impl(input, tol, 0.0, hermitian, out)


# -- lstsq ---------------------------------------------------------------------------------------

_LSTSQ_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


def _lstsq_impl(A, B, rcond, driver):
    check(A.dim() >= 2, "torch.linalg.lstsq: input must have at least 2 dimensions.")
    check(B.dim() >= 1, "torch.linalg.lstsq: other must have at least 1 dimension.")
    check(0 <= A.dim() - B.dim() <= 1, "torch.linalg.lstsq: input.dim() must be greater or "
          "equal to other.dim() and (input.dim() - other.dim()) <= 1")
    check(A._dtype is B._dtype, lambda: (
        f"torch.linalg.lstsq: Expected input and other to have the same dtype, but got "
        f"input's dtype {A._dtype._scalar_name} and other's dtype {B._dtype._scalar_name}"))
    m, n = A._sizes[-2:]
    # torch broadcasts the batches reading an other with one dim fewer as a batch of vectors,
    # then takes the vector case only for a 1-d other or exactly input.shape[:-1]
    broadcast_pair(A._sizes[:-2], B._sizes[:-1] if B.dim() == A.dim() - 1 else B._sizes[:-2])
    vector = B.dim() == 1 or (B.dim() == A.dim() - 1 and B._sizes == A._sizes[:-1])
    if vector:
        check(B._sizes[-1] == m,
              "torch.linalg.lstsq: input.size(-2) should match other.size(-1)")
    else:
        check(B._sizes[-2] == m,
              "torch.linalg.lstsq: input.size(-2) should match other.size(-2)")
    check(A._dtype.category in (dt.FLOAT, dt.COMPLEX) and A._dtype.name not in _HALF_TYPES,
          "This function doesn't handle types other than float and double")
    driver = "gelsy" if driver is None else driver
    check(driver in _LSTSQ_DRIVERS, "torch.linalg.lstsq: parameter `driver` should be one of "
                                    "(gels, gelsy, gelsd, gelss)")
    b_batch = B._sizes[:-1] if vector else B._sizes[:-2]
    batch = broadcast_pair(A._sizes[:-2], b_batch)
    k = 1 if vector else B._sizes[-1]
    rows = max(m, n)
    real = A._dtype.to_real()
    # the solution is read out of LAPACK's (max(m, n), k) column-major buffer
    buf = _colmajor(batch + (rows, k), A._dtype, A._device)
    solution = views.narrow(buf, -2, 0, n)
    if vector:
        solution = views.select(solution, -1, 0)
    full_rank_residuals = driver != "gelsy" and m > n
    residuals = _new((0,), real, A._device)
    # rank and singular values describe A: they keep A's own batch shape, not the broadcast one
    a_batch = A._sizes[:-2]
    rank = _new(a_batch if driver != "gels" else (0,), dt.int64, A._device)
    svals = _new(a_batch + (min(m, n),) if driver in ("gelsd", "gelss") else (0,), real,
                 A._device)
    if _is_meta(A) or _is_meta(B):
        return solution, residuals, rank, svals
    a = np.broadcast_to(A._array(), batch + (m, n))
    b = B._array()
    b = np.broadcast_to(b[..., None] if vector else b, batch + (m, k))
    nb = numel_of(batch)       # not -1: NumPy cannot infer it when m or n is 0
    flat_a = a.reshape((nb, m, n))
    flat_b = b.reshape((nb, m, k))
    eps = np.finfo(real.np).eps
    cond = eps * max(m, n) if rcond is None else rcond
    xs, ranks, sv = [], [], []
    with np.errstate(all="ignore"):
        for am, bm in zip(flat_a, flat_b):
            if am.size:
                x, _, r, s = np.linalg.lstsq(am, bm, rcond=cond)
            else:
                x, r, s = np.zeros((n, k), am.dtype), 0, np.zeros(0, real.np)
            xs.append(x)
            ranks.append(r)
            sv.append(s)
    x = np.array(xs, dtype=a.dtype).reshape(batch + (n, k))
    _fill(solution, x[..., 0] if vector else x)
    # the broadcast copies of one matrix of A share its rank and singular values
    of_a = (0,) * (len(batch) - len(a_batch)) + tuple(
        slice(0, 1) if d == 1 else slice(None) for d in a_batch)
    if driver != "gels":
        _fill(rank, np.array(ranks).reshape(batch)[of_a])
    if driver in ("gelsd", "gelss"):
        _fill(svals, np.array(sv).reshape(batch + (min(m, n),))[of_a])
    if full_rank_residuals and all(r == n for r in ranks):
        with np.errstate(all="ignore"):
            res = (np.abs(b - a @ x) ** 2).sum(axis=-2)
        residuals = _new(res.shape, real, A._device)
        _fill(residuals, res)
    return solution, residuals, rank, svals


def linalg_lstsq(self, b, rcond=None, driver=None):
    return _lstsq_impl(self, b, rcond, driver)


def linalg_lstsq_out(self, b, rcond=None, driver=None, solution=None, residuals=None,
                     rank=None, singular_values=None):
    return _copy_outs((solution, residuals, rank, singular_values),
                      _lstsq_impl(self, b, rcond, driver))


# -- matrix_power, multi_dot -----------------------------------------------------------------------

def _matrix_power_impl(A, n, out):
    fname = "linalg.matrix_power"
    check(A.dim() >= 2, lambda: f"{fname}: The input tensor A must have at least 2 dimensions.")
    m, k = A._sizes[-2:]
    check(m == k, lambda: (
        f"{fname}: A must be batches of square matrices, but they are {m} by {k} matrices"))
    if n == 0:
        result = _new(A._sizes, A._dtype, A._device)
        if not _is_meta(A):
            _fill(result, np.broadcast_to(np.eye(m, dtype=A._dtype.np), A._sizes))
    elif n == 1:
        result = _new(A._sizes, A._dtype, A._device)
        if not _is_meta(A):
            _fill(result, A._array())
    else:
        base = A
        if n < 0:
            base = _inv_impl(A)[0]
            n = -n
            if n == 1:
                return base if out is None else _copy_outs((out,), (base,))[0]
        result = None
        power = base
        while n:
            if n & 1:
                result = power if result is None else matmul(result, power)
            n >>= 1
            if n:
                power = matmul(power, power)
        if result is base:
            result = _new(A._sizes, A._dtype, A._device)
            if not _is_meta(A):
                _fill(result, base._array())
    if out is None:
        return result
    return _copy_outs((out,), (result,))[0]


def linalg_matrix_power(self, n):
    return _matrix_power_impl(self, n, None)


def linalg_matrix_power_out(self, n, out=None):
    return _matrix_power_impl(self, n, out)


def matrix_power(self, n):
    return _matrix_power_impl(self, n, None)


def matrix_power_out(self, n, out=None):
    return _matrix_power_impl(self, n, out)


def _multi_dot_impl(tensors, out):
    count = len(tensors)
    check(count >= 2, lambda: f"multi_dot(): expected at least 2 tensors but got {count}")
    first, last = tensors[0], tensors[-1]
    check(first.dim() in (1, 2), lambda: (
        f"multi_dot(): the first tensor must be 1D or 2D but got {first.dim()}D"))
    check(last.dim() in (1, 2), lambda: (
        f"multi_dot(): the last tensor must be 1D or 2D but got {last.dim()}D"))
    for i in range(1, count - 1):
        t = tensors[i]
        check(t.dim() == 2, lambda i=i, t=t: (
            f"multi_dot(): tensor {i} must be 2D but got {t.dim()}D"))
    mats = list(tensors)
    if first.dim() == 1:
        mats[0] = views.unsqueeze(first, 0)
    if last.dim() == 1:
        mats[-1] = views.unsqueeze(last, 1)
    for i in range(1, count):
        check(mats[i]._dtype is first._dtype, lambda i=i: (
            f"multi_dot(): all tensors must have be the same dtype but tensor 0 is "
            f"{cpp_name(first._dtype)} and tensor {i} {cpp_name(mats[i]._dtype)}"))
        a, b = mats[i - 1], mats[i]
        check(a._sizes[1] == b._sizes[0], lambda i=i, a=a, b=b: (
            f"multi_dot(): tensors {i - 1} and {i} with shapes {list(tensors[i - 1]._sizes)} "
            f"and {list(tensors[i]._sizes)} cannot be multiplied"))
    shape = (mats[0]._sizes[0], mats[-1]._sizes[1])
    result = mats[0]
    for t in mats[1:]:
        result = mm(result, t)
    squeeze = (0 if first.dim() == 1 else None, 1 if last.dim() == 1 else None)
    final = [shape[0], shape[1]]
    if squeeze[1] is not None:
        final.pop(1)
    if squeeze[0] is not None:
        final.pop(0)
    result = views.view(result, tuple(final))
    if out is None:
        return result
    _check_out_dtype(out, result._dtype)
    resize_output(out, result._sizes)
    return _written(_fill(out, result._array() if not _is_meta(result) else None))


def linalg_multi_dot(tensors):
    return _multi_dot_impl(tuple(tensors), None)


def linalg_multi_dot_out(tensors, out):
    return _multi_dot_impl(tuple(tensors), out)


# -- matrix_norm, norm ---------------------------------------------------------------------------
# The vector norms are the reductions' (kernels/reduction.py: linalg_vector_norm); matrix
# norms reduce over two dims: 'fro' and 'nuc', the induced 1, inf and 2 norms and their
# negative (minimum) counterparts.

_INF = float("inf")
_MATRIX_ORDS = ("fro", "nuc", 2, -2, 1, -1, _INF, -_INF)


def _fmt_ord(ord) -> str:
    if isinstance(ord, str):
        return ord
    if isinstance(ord, float) and ord.is_integer():
        return str(int(ord))
    return str(ord)


def _matrix_norm_impl(A, ord, dim, keepdim, dtype, out):
    fname = "linalg.matrix_norm"
    if isinstance(ord, bool):
        ord = int(ord)                               # torch reads a bool order as 0 or 1
    # torch checks the order before anything else
    check(ord in _MATRIX_ORDS, lambda: f"{fname}: Order {_fmt_ord(ord)} not supported.")
    check(A.dim() >= 2, lambda: f"{fname}: The input tensor A must have at least 2 dimensions.")
    check(A._dtype.category in (dt.FLOAT, dt.COMPLEX), lambda: (
        f"{fname}: Expected a floating point or complex tensor as input. Got "
        f"{A._dtype._scalar_name}"))
    if dtype is not None:
        check(dtype.category in (dt.FLOAT, dt.COMPLEX), lambda: (
            f"{fname}: dtype should be floating point or complex, but got {dtype._scalar_name}"))
        check(not A._dtype.is_complex or dtype.is_complex, lambda: (
            f"{fname}: dtype should be complex for complex inputs, but got "
            f"{dtype._scalar_name}"))
    dim = tuple(dim)
    check(len(dim) == 2, lambda: (
        f"{fname}: dim must be a 2-tuple. Got {' '.join(map(str, dim))}"))
    from ..core.checks import maybe_wrap_dim
    d0, d1 = maybe_wrap_dim(dim[0], A.dim()), maybe_wrap_dim(dim[1], A.dim())
    check(d0 != d1, lambda: f"{fname}: dims must be different. Got ({d0}, {d1})")
    base = dtype or A._dtype
    real = base.to_real()
    keep = tuple(d for d in range(A.dim()) if d not in (d0, d1))
    shape = tuple(1 if d in (d0, d1) else s for d, s in enumerate(A._sizes)) if keepdim else \
        tuple(A._sizes[d] for d in keep)
    result = _result_or_out(out, shape, real, A._device)
    if _is_meta(A):
        return result if out is None else _written(result)
    if A._dtype is dt.complex32 or base is dt.complex32:   # Note [complex32]
        check(ord not in ("nuc", 2, -2), lambda: (
            f"{fname}: Low precision dtypes not supported. Got ComplexHalf"))
        arr = _c32.narrow(A._array())
    else:
        arr = A._array().astype(base.np, copy=False)
    arr = np.moveaxis(arr, (d0, d1), (-2, -1))
    compute = np.float32 if base.name in _HALF_TYPES else None
    with np.errstate(all="ignore"):
        if compute is not None:
            arr = arr.astype(compute)
        if not arr.size and ord not in ("fro", "nuc"):
            # torch reduces with amax (an empty result is 0) or amin, whose empty-dim error
            # names the dim it reduces: -1 of the singular values; for 1/inf the dim left
            # after the sum (shifted down when the summed dim came before it)
            if ord == -2:
                raise IndexError("amin(): Expected reduction dim -1 to have non-zero size.")
            if ord in (-1, -np.inf):
                summed, reduced = (d0, d1) if ord == -1 else (d1, d0)
                if A._sizes[reduced] == 0:
                    shown = reduced - 1 if not keepdim and summed < reduced else reduced
                    raise IndexError(f"amin(): Expected reduction dim {shown} to have non-zero "
                                     f"size.")
            values = np.zeros(arr.shape[:-2], arr.real.dtype)
        elif ord == "fro":
            values = np.sqrt((np.abs(arr) ** 2).sum(axis=(-2, -1)))
        elif ord in ("nuc", 2, -2):
            if A._dtype.name in _HALF_TYPES:
                raise NotImplementedError(
                    f'"linalg_svd_cpu" not implemented for \'{A._dtype._scalar_name}\'')
            sv = np.linalg.svd(arr, compute_uv=False) if arr.size else \
                np.zeros(arr.shape[:-2] + (0,), arr.real.dtype)
            values = sv.sum(axis=-1) if ord == "nuc" else \
                (sv.max(axis=-1) if ord == 2 else sv.min(axis=-1))
        else:
            along = -2 if ord in (1, -1) else -1     # 1: column sums; inf: row sums
            sums = np.abs(arr).sum(axis=along)
            values = sums.max(axis=-1) if ord > 0 else sums.min(axis=-1)
    if keepdim:
        values = np.expand_dims(values, (d0, d1) if d0 < d1 else (d1, d0))
    _fill(result, values)
    return result if out is None else _written(result)


def linalg_matrix_norm(self, ord, dim=(-2, -1), keepdim=False, dtype=None):
    return _matrix_norm_impl(self, ord, dim, keepdim, dtype, None)


def linalg_matrix_norm_out(self, ord, dim=(-2, -1), keepdim=False, dtype=None, out=None):
    return _matrix_norm_impl(self, ord, dim, keepdim, dtype, out)


def linalg_matrix_norm_str_ord(self, ord="fro", dim=(-2, -1), keepdim=False, dtype=None):
    return _matrix_norm_impl(self, ord, dim, keepdim, dtype, None)


def linalg_matrix_norm_str_ord_out(self, ord="fro", dim=(-2, -1), keepdim=False, dtype=None,
                                   out=None):
    return _matrix_norm_impl(self, ord, dim, keepdim, dtype, out)


def _linalg_norm_impl(A, ord, dim, keepdim, dtype, out):
    from .reduction import linalg_vector_norm, linalg_vector_norm_out
    if dim is not None:
        dim = tuple(dim)
        check(len(dim) in (1, 2), lambda: (
            f"linalg.norm: If dim is specified, it must be of length 1 or 2. Got {list(dim)}"))
    elif ord is not None:
        check(A.dim() in (1, 2), lambda: (
            f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. "
            f"Got {A.dim()}D."))
    matrix = (dim is not None and len(dim) == 2) or (dim is None and ord is not None and
                                                     (A.dim() == 2 or isinstance(ord, str)))
    if matrix:
        return _matrix_norm_impl(A, "fro" if ord is None else ord,
                                 dim if dim is not None else (-2, -1), keepdim, dtype, out)
    vec_ord = 2 if ord is None else ord
    if out is None:
        return linalg_vector_norm(A, vec_ord, dim, keepdim, dtype)
    return linalg_vector_norm_out(A, vec_ord, dim, keepdim, dtype, out)


def linalg_norm(self, ord=None, dim=None, keepdim=False, dtype=None):
    return _linalg_norm_impl(self, ord, dim, keepdim, dtype, None)


def linalg_norm_out(self, ord=None, dim=None, keepdim=False, dtype=None, out=None):
    return _linalg_norm_impl(self, ord, dim, keepdim, dtype, out)


def linalg_norm_ord_str(self, ord, dim=None, keepdim=False, dtype=None):
    return _linalg_norm_impl(self, ord, dim, keepdim, dtype, None)


def linalg_norm_ord_str_out(self, ord, dim=None, keepdim=False, dtype=None, out=None):
    return _linalg_norm_impl(self, ord, dim, keepdim, dtype, out)
