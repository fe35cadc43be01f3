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
from ..core.storage import UntypedStorage
from ..core.tensor_impl import contiguous_strides, make_tensor, numel_of
from . import views
from .broadcast import broadcast_pair
from .factory import _allocator, empty
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
    if not meta:
        check(dtype is mat2._dtype, lambda: (
            f"expected m1 and m2 to have the same dtype, but got: {cpp_name(dtype)} != "
            f"{cpp_name(mat2._dtype)}"))
        _check_kernel_dtype(self, "addmm_impl_cpu_")
    size = (self._sizes[0], mat2._sizes[1])
    if out is None:
        result = _new(size, dtype, self._device)
    else:
        _check_out_dtype(out, dtype)
        resize_output(out, size)
        result = out
    if not meta:
        _product_into(result._array(), self._array(), mat2._array())
    return result


_BLAS_TYPES = frozenset((dt.float32, dt.float64, dt.complex64, dt.complex128))


def _mm_fast(self, mat2):
    """Note [The short path of mm]: two CPU matrices of one BLAS dtype whose inner sizes
    agree. For tiny products the fixed costs are the whole cost, so the result is built
    directly (storage, tensor, its NumPy view cached) and filled by ``np.dot``, whose
    entry is the cheapest route into BLAS (it requires the C-contiguous out it gets)."""
    dtype = self._dtype
    n, p = self._sizes[0], mat2._sizes[1]
    count = n * p
    device = self._device
    storage = UntypedStorage._new(count * dtype.itemsize, device, _allocator(device))
    size = (n, p)
    result = make_tensor(storage, size, contiguous_strides(size), 0, dtype)
    if count:
        buf = storage._buf
        arr = np.frombuffer(buf, dtype.np, count).reshape(size)
        np.dot(self._array(), mat2._array(), arr)
        result._np = arr
        result._np_buf = buf
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
    if out is None:
        result = _new(size, dtype, self._device)
    else:
        _check_out_dtype(out, dtype)
        resize_output(out, size)
        result = out
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
    dtype = self._dtype
    if not meta:
        check(dtype is mat2._dtype, lambda: (
            f"expected scalar type {dtype._scalar_name} but found {mat2._dtype._scalar_name}"))
        _check_kernel_dtype(self, "bmm")
    size = (self._sizes[0], self._sizes[1], mat2._sizes[2])
    if out is None:
        result = _new(size, dtype, self._device)
    else:
        _check_out_dtype(out, dtype)
        resize_output(out, size)
        result = out
    if not meta:
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
    if len(self._sizes) == 2 and len(other._sizes) == 2:
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


def addmm(self, mat1, mat2, beta=1, alpha=1):
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
    check(batch1.dim() == 3, "batch1 must be a 3D tensor")
    check(batch2.dim() == 3, "batch2 must be a 3D tensor")
    b, n, k = batch1._sizes
    check(batch2._sizes[0] == b and batch2._sizes[1] == k, lambda: (
        f"Expected size for first two dimensions of batch2 tensor to be: [{b}, {k}] but got: "
        f"[{batch2._sizes[0]}, {batch2._sizes[1]}]."))
    check(self._dtype is batch1._dtype or _is_meta(self), lambda: (
        f"Input dtypes must be the same, got: input {cpp_name(self._dtype)}, batch1: "
        f"{cpp_name(batch1._dtype)}, batch2: {cpp_name(batch2._dtype)}"))
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

def _promoted(a, b):
    return dt.promote(a._dtype, b._dtype)


def _elementwise_product(shape, dtype, device, a_arr, b_arr, out):
    if out is None:
        result = _new(shape, dtype, device)
    else:
        check(dt.can_cast(dtype, out._dtype), lambda: (
            f"result type {dtype._scalar_name} can't be cast to the desired output type "
            f"{out._dtype._scalar_name}"))
        resize_output(out, shape)
        result = out
    if a_arr is not None:
        with np.errstate(all="ignore"):
            prod = np.multiply(_widened(a_arr.astype(dtype.np, copy=False)),
                               _widened(b_arr.astype(dtype.np, copy=False)))
            if prod.dtype != np.bool_ and dtype is dt.bool_:
                prod = prod != 0
            np.copyto(result._array(), prod, casting="unsafe")
    return result if out is None else _written(result)


def _check_outer(self, vec2) -> None:
    check(self.dim() == 1, lambda: f"outer: Expected 1-D argument self, but got {self.dim()}-D")
    check(vec2.dim() == 1, lambda: f"outer: Expected 1-D argument vec2, but got {vec2.dim()}-D")


def _outer(self, vec2, out):
    _check_outer(self, vec2)
    meta = _is_meta(self) or _is_meta(vec2)
    shape = (self._sizes[0], vec2._sizes[0])
    a = None if meta else self._array()[:, None]
    b = None if meta else vec2._array()[None, :]
    return _elementwise_product(shape, _promoted(self, vec2), self._device, a, b, out)


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
        meta = _is_meta(self) or _is_meta(other)
        shape = broadcast_pair(self._sizes, other._sizes)
        a = None if meta else self._array()
        b = None if meta else other._array()
        return _elementwise_product(shape, _promoted(self, other), self._device, a, b, out)
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
            check(s1 == s2, lambda s1=s1, s2=s2, w1=w1, w2=w2: (
                f"contracted dimensions need to match, but first has size {s1} in dim {w1} "
                f"and second has size {s2} in dim {w2}"))
        contracted1.append(w1)
        contracted2.append(w2)
    free1 = [d for d in range(nd1) if d not in contracted1]
    free2 = [d for d in range(nd2) if d not in contracted2]
    shape = tuple(self._sizes[d] for d in free1) + tuple(other._sizes[d] for d in free2)
    meta = _is_meta(self) or _is_meta(other)
    dtype = self._dtype
    if not meta:
        _check_kernel_dtype(self, "addmm_impl_cpu_")
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
