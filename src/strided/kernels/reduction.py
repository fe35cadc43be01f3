"""Reduction kernels: sum, mean, prod, amax/amin, max/min, argmax/argmin, any/all,
count_nonzero, std/var, nansum/nanmean, logsumexp, cumsum/cumprod, norms.

Each kernel follows the same three steps: work out the reduced dims and the output's shape
and dtype with torch's rules and messages (``_plan``), allocate the output (or resize
``out=``), and, unless the input lives on the ``meta`` device, run one NumPy reduction over
the input's strided view and store its result.

Note [Reduction dims]
~~~~~~~~~~~~~~~~~~~~~
``dim`` arrives as None, an int or a tuple (the codegen turns an ``int[1]?`` int into a
1-tuple). None and the empty tuple both mean "every dim" (torch 2.13: ``a.sum(())`` is a
full sum). Each dim is wrapped (a 0-dim tensor accepts 0 and -1) and a repeated dim is
refused ("dim 0 appears multiple times in the list of dims"). ``keepdim`` keeps the reduced
dims with size 1.

Note [Accumulation types]
~~~~~~~~~~~~~~~~~~~~~~~~~
torch accumulates float16/bfloat16 in float32 and integers in int64; NumPy is told so with
``dtype=``. Float sums are then correct but not bit-identical to torch's: NumPy adds
pairwise along contiguous axes and sequentially along strided ones, torch uses its own
cascade, so the last bits can differ (the tests compare floats with tolerances).

Note [Summing through BLAS]
~~~~~~~~~~~~~~~~~~~~~~~~~~~
NumPy's float32/float64 ``add.reduce`` is far from the memory bound at the sizes small
models live on (a pairwise loop for a full sum, a scalar loop per row for ``sum(-1)``):
torch sums 256x256 floats 3x faster. A matrix-vector product against a vector of ones
is the same sum and runs in BLAS's vectorised kernels, so ``sum`` / ``mean`` of a
C-contiguous float32/float64 tensor over its trailing dims (``sum(-1)``, a full sum) or
over its leading dims (``sum(0)``) go through ``np.matmul``:

- trailing dims, viewed as ``(R, C)``: ``X @ ones(C)``. One BLAS dot keeps a few vector
  accumulators, so its rounding error grows with the run it sums; a run is capped at
  ``_BLAS_RUN`` (4096) elements: a longer row is viewed as ``(R * q, C / q)`` and the q
  partial sums per row are then added by NumPy's pairwise loop. The error bound is then
  of the order of 4096 / 8 + log2(q) roundings against NumPy's 128 / 8 + log2(n), and
  measured on uniform and normal data from 4K to 16M elements the relative error
  (against a float64 sum) is of the same order as torch's and NumPy's own (1e-8 to 1e-10
  for float32), well within torch's float32 test tolerance (rtol 1.3e-6, atol 1e-5).
- leading dims, viewed as ``(R, C)``: ``ones(R) @ X``, which adds the R rows in order as
  NumPy's axis-0 reduction does (the same error bound as before).

Beyond the caches (from ``_EINSUM_BYTES``, 8 MiB, on) the row sums are memory-bound and
BLAS's matrix-vector product was measured 10-25% slower than NumPy's ``einsum("ij->i")``
(a vectorised loop over each row, with the same run cap), and NumPy's own reduction
slower still (a 16M float32 sum: einsum 2.1 ms, torch 2.2 ms, NumPy 2.7 ms, BLAS 3.0 ms),
so those rows go through einsum. Its rounding error on rows of 1024-4096 normal floats
lies between NumPy's pairwise loop and the BLAS product: measured against a float64 sum
in units of assert_close's float32 tolerance (1e-5 + 1.3e-6 |sum|), torch's own result
is off by 0.8-1.5 units, einsum's by 1.1-4.3, the BLAS product's by 1.4-7.6; on
uniform (positive) data all three stay within one unit. The tests compare sums of
cancelling terms with a wider atol (1e-3), as torch's result itself needs.
Small tensors (below ``_BLAS_MIN`` elements, where one more NumPy call costs more than
it saves), ``out=`` and every other dtype or layout stay with NumPy's reduction, except
the sum of a whole C-contiguous block (``sum()`` / ``mean()``, ``_fast_total``): there
BLAS's dot of the flat block against ones is one call, 0.5 us against NumPy's reduce's
0.8 us for 16 elements, so blocks of 2 to ``_BLAS_RUN`` elements take one ``np.dot`` and
larger ones (below ``_EINSUM_BYTES``) the runs' product then a dot of its q run sums
(``np.dot``, not ``np.matmul``: the same BLAS call without the ufunc machinery, 0.4 us
less; a 256x256 float32 sum 8.5 -> 6 us). A run of up to 4096 elements has the error
bound above; the q sums add log2(q)-ish roundings, as NumPy's pairwise loop over them
did. NaN and infinities propagate as in a plain sum (x * 1 is x), and a sum of zeros is
+0.0 in both (but for one element, where BLAS's dot returns -0.0 * 1 = -0.0: a block of
one element keeps NumPy's reduction).

Note [The reduction fast path]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
On a 4x4 tensor the work of ``sum`` is a fraction of a microsecond; the general kernel's
set-up (dim list wrapping and sorting, dtype resolution, the accumulation type, ``empty``
with its checks) cost more than the reduction. ``_fast_sum`` is the common case written
out: ``sum`` / ``mean`` of a CPU float32 or float64 tensor with elements, no ``dtype=``
and no ``out=``, over every dim, one int dim (wrapped inline) or a dim list (through the
general kernel's ``_dims``, so a bad dim raises the same error with the same message).
(``sum()`` / ``mean()`` of a whole C-contiguous block skip the plan too: ``_fast_total``
keeps, per element count, how the dots split the block, Note [Summing through BLAS].)
Its result dtype is the input's (no promotion for these dtypes), so it allocates the
row-major result directly (``new_cpu_tensor``, no deterministic fill: every element is
written) and reduces into it: through BLAS where Note [Summing through BLAS] applies,
else one ``np.add.reduce`` with ``out=`` (positional arguments: NumPy parses no
keywords). ``mean`` divides the sum in place by the count, as torch's mean (a sum, then
a division) does. NumPy's error state is set quiet through its context variable for both
steps: an overflow to inf is no warning in torch. Other dtypes, 0-dim or empty inputs and
meta tensors return None and run the general kernel. The fast path sits in the CPU
kernel, under the dispatcher, so autograd, explain, inference mode and the conj/neg
fallbacks see the same call as before.

The other reductions that keep (or fix) their dtype share the plan (``_fast_plan``: the
reduced dims, the result's shape, the count) on the same conditions: ``amax`` / ``amin``
(``_fast_extreme``; NumPy's maximum / minimum propagate NaN as torch does; over the last
dim of many rows through ``reduceat``, since NumPy's reduce pays about 80 ns per row),
``argmax`` / ``argmin`` and ``max`` / ``min`` over a dim (``_fast_arg``: NumPy's arg
functions write the indices into the int64 result, the first extreme or the first NaN as
torch; the values are gathered at those indices, so a tie of 0.0 and -0.0 gives torch's
sign), ``any`` / ``all`` (``_fast_logical``), ``var`` / ``std`` (``_fast_var``: the
general kernel's two passes, when there are degrees of freedom left: no warning to give)
and the 2-norm (``_fast_norm``: the squares summed as ``sum`` sums them). ``max()`` /
``min()`` of all elements allocate their 0-dim result the same way and find a small
block's extreme through argmax / argmin (Note [max() through argmax]). Complex inputs (and
float16 / bfloat16 where NumPy does not compare them natively) keep the general kernels.
"""

from __future__ import annotations

import warnings

import numpy as np

from ..core import dtypes as dt
from ..core.checks import check, maybe_wrap_dim
from ..core.devices import CPU
from ..core.tensor_impl import new_cpu_tensor, numel_of
from . import complex32 as _c32
from .elementwise import _EXTOBJ, _QUIET
from .factory import empty
from .resize import resize_output

_LOW_FLOATS = (dt.float16, dt.bfloat16)
# c10's TypeMeta names, which torch's out= dtype messages print.
_CPP_NAMES = {
    "bool": "bool", "uint8": "unsigned char", "int8": "signed char", "int16": "short int",
    "int32": "int", "int64": "long int", "uint16": "unsigned short",
    "uint32": "unsigned int", "uint64": "unsigned long", "float16": "c10::Half",
    "bfloat16": "c10::BFloat16", "float32": "float", "float64": "double",
    "complex64": "c10::complex<float>", "complex128": "c10::complex<double>",
}


def _is_meta(t) -> bool:
    return t._device.type == "meta"


def _dims(self, dim) -> tuple:
    """The reduced dims, wrapped and sorted (Note [Reduction dims])."""
    ndim = len(self._sizes)
    if dim is None:
        return tuple(range(ndim))
    if ndim > 64:               # torch's dim bitset, for any dim list given
        check(type(dim) is not int and not dim, "only tensors with up to 64 dims are supported")
    if type(dim) is tuple and len(dim) == 1 and type(dim[0]) is int and 0 <= dim[0] < ndim:
        return dim                                   # the common a.sum(1): nothing to wrap
    if type(dim) is int:
        dim = maybe_wrap_dim(dim, ndim)
        return (dim,) if ndim else ()
    if not dim:
        return tuple(range(ndim))
    seen = []
    for d in dim:
        w = maybe_wrap_dim(d, ndim)
        check(w not in seen, lambda w=w: f"dim {w} appears multiple times in the list of dims")
        seen.append(w)
    return tuple(sorted(seen)) if ndim else ()


def _shape(sizes, axes, keepdim) -> tuple:
    if not keepdim and len(axes) == len(sizes):
        return ()
    if len(axes) == 1 and not keepdim:
        axis = axes[0]
        return sizes[:axis] + sizes[axis + 1:]
    if keepdim:
        return tuple(1 if i in axes else s for i, s in enumerate(sizes))
    return tuple(s for i, s in enumerate(sizes) if i not in axes)


def _alloc(self, shape, dtype, out=None):
    if out is None:
        return empty(shape, dtype, device=self._device)
    resize_output(out, shape)
    return out


def _store(res, value) -> None:
    """Write a NumPy result (any shape with res's number of elements) into ``res``."""
    if not numel_of(res._sizes):
        return
    arr = res._array()
    if type(value) is not np.ndarray:
        value = np.asarray(value)
    if value.shape != arr.shape:
        value = value.reshape(arr.shape)
    if arr.dtype == dt.COMPLEX32_NP:
        _c32.store(arr, value)
        return
    if value.dtype.kind == "c" and arr.dtype.kind != "c":
        value = value.real
    np.copyto(arr, value, casting="unsafe")


_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)
_I64 = np.dtype(np.int64)
_C64 = np.dtype(np.complex64)


def _acc(dtype) -> np.dtype:
    """The NumPy type to accumulate ``dtype`` in (Note [Accumulation types])."""
    if dtype.category <= dt.INT:
        return _I64
    if dtype in _LOW_FLOATS:
        return _F32
    if dtype is dt.complex32:
        return _C64
    return dtype.np


_FLOAT32 = dt.float32
_FLOAT64 = dt.float64


def _refuse_complex32(kernel_name):
    """torch's CPU kernels that leave ComplexHalf out of their dtype dispatch refuse it so
    (Note [complex32 refusals] in kernels/complex32.py); the reductions check the dtype they
    compute in themselves, where they already look at it."""
    raise NotImplementedError(f"\"{kernel_name}\" not implemented for 'ComplexHalf'")


def _int_to_long(dtype):
    return dt.int64 if dtype.category <= dt.INT else dtype


def _check_out_dtype(out, dtype) -> None:
    if out is not None:
        check(out._dtype is dtype, lambda: (
            f"Expected out tensor to have dtype {_CPP_NAMES[dtype.name]}, but got "
            f"{_CPP_NAMES[out._dtype.name]} instead"))


def _np_axes(self, axes):
    return axes if self._sizes else None


# -- sum / nansum / prod / mean --------------------------------------------------------------

def _sum_like(self, dim, keepdim, dtype, out, ufunc, name):
    axes = _dims(self, dim)
    if out is not None and dtype is not None:
        _check_out_dtype(out, dtype)
    out_dtype = dtype or (out._dtype if out is not None else _int_to_long(self._dtype))
    shape = _shape(self._sizes, axes, keepdim)
    res = _alloc(self, shape, out_dtype, out)
    if _is_meta(self):
        return res
    arr = self._array()
    if out_dtype is dt.complex32 or self._dtype is dt.complex32:
        # torch casts to the result's dtype and dispatches on it: a complex32 result with
        # elements to add is refused, a complex32 input summed into complex64 is not
        if out_dtype is dt.complex32 and numel_of(self._sizes):
            _refuse_complex32("sum_cpu" if ufunc is np.add else "prod_out_cpu")
        arr = _c32.numeric(arr)
    acc = _acc(dtype or self._dtype)
    if name == "nansum" and self._dtype.is_floating_point:
        arr = np.where(np.isnan(arr), np.zeros((), arr.dtype), arr)
    if not self._sizes:
        _store(res, arr.astype(acc))
    elif (arr.size >= _BLAS_MIN and name == "sum" and out is None and acc in _BLAS_SUM_TYPES
          and res._dtype.np is acc and arr.dtype == acc and _blas_sum(arr, axes, res._array())):
        pass
    elif res._dtype.np is acc:
        # straight into the output's (possibly strided) memory: no temporary, no copy
        ufunc.reduce(arr, axis=axes, dtype=acc, keepdims=keepdim, out=res._array())
    else:
        _store(res, ufunc.reduce(arr, axis=axes, dtype=acc, keepdims=keepdim))
    return res


_BLAS_SUM_TYPES = (np.dtype(np.float32), np.dtype(np.float64))
_BLAS_MIN = 1024            # elements (Note [Summing through BLAS])
_BLAS_RUN = 4096            # the longest run one BLAS dot sums
_EINSUM_BYTES = 1 << 23     # from 8 MiB on, rows are summed by einsum
_ONES: dict = {}


_RUN_ONES = {}                # a run's vector of ones, per float type (read-only)
for _t in _BLAS_SUM_TYPES:
    _RUN_ONES[_t] = np.ones(_BLAS_RUN, _t)
    _RUN_ONES[_t].flags.writeable = False


def _ones(np_dtype, n):
    ones = _ONES.get(np_dtype)
    if ones is None or ones.shape[0] < n:
        ones = _ONES[np_dtype] = np.ones(n if n > _BLAS_RUN else _BLAS_RUN, np_dtype)
        ones.flags.writeable = False
    return ones[:n]


def _row_sums(x, out=None):
    """The sums of the rows of the C-contiguous 2-D float ``x`` (each of <= _BLAS_RUN
    elements), into ``out`` (C-contiguous, of ``x``'s type) when given: BLAS's
    matrix-vector product (``np.dot``: ``np.matmul`` is the same product behind the ufunc
    machinery, 0.4 us more per call), or NumPy's einsum for an ``x`` beyond the caches
    (Note [Summing through BLAS])."""
    if x.nbytes >= _EINSUM_BYTES:
        return np.einsum("ij->i", x, out=out)
    return np.dot(x, _RUN_ONES[x.dtype][:x.shape[1]], out)


def _blas_sum(arr, axes, res_arr) -> bool:
    """Sum the C-contiguous float ``arr`` over the sorted ``axes`` into the contiguous
    ``res_arr`` through BLAS; False (nothing written) where Note [Summing through BLAS]
    keeps NumPy's reduction."""
    if arr.size < _BLAS_MIN or not arr.flags.c_contiguous:
        return False
    if _EXTOBJ is None:
        with np.errstate(all="ignore"):
            return _blas_sum_contiguous(arr, axes, res_arr)
    token = _EXTOBJ.set(_QUIET)              # an overflow to inf is no warning in torch
    try:
        return _blas_sum_contiguous(arr, axes, res_arr)
    finally:
        _EXTOBJ.reset(token)


def _pieces(c):
    """The fewest pieces of equal length <= _BLAS_RUN that a run of ``c`` (> _BLAS_RUN)
    elements splits into; None when no piece of 1024..4096 elements divides it."""
    q = q0 = -(-c // _BLAS_RUN)
    while c % q:
        q += 1
        if q > 4 * q0:
            return None
    return q


def _blas_sum_contiguous(arr, axes, res_arr) -> bool:
    """``_blas_sum`` without the error state; ``axes`` None: every dim."""
    n = arr.size
    if axes is None:
        r, c = 1, n
    else:
        ndim, k = arr.ndim, len(axes)
        if axes[0] == 0 and axes[-1] == k - 1 and k < ndim:      # leading dims: (R, C)
            r = 1
            for s in arr.shape[:k]:
                r *= s
            if r > 1 << 16:
                return False
            np.matmul(_ones(arr.dtype, r), arr.reshape(r, n // r),
                      out=res_arr.reshape(n // r))
            return True
        if axes[0] != ndim - k or axes[-1] != ndim - 1:
            return False
        c = 1                                                    # trailing dims: (R, C)
        for s in arr.shape[ndim - k:]:
            c *= s
        r = n // c
    if c <= _BLAS_RUN:
        _row_sums(arr.reshape(r, c), res_arr.reshape(r))
        return True
    q = _pieces(c)
    if q is None:                # no piece of 1024..4096 elements divides the row
        if r != 1:
            return False
        # a flat sum: whole runs of _BLAS_RUN, then the short tail on its own
        q = c // _BLAS_RUN
        flat = arr.reshape(c)
        head = _row_sums(flat[:q * _BLAS_RUN].reshape(q, _BLAS_RUN))
        res_arr[...] = np.add.reduce(head) + np.add.reduce(flat[q * _BLAS_RUN:])
        return True
    part = _row_sums(arr.reshape(r * q, c // q))
    if r == 1 and q <= _BLAS_RUN:        # the partial sums: one more dot (q >= 2)
        np.dot(part, _RUN_ONES[part.dtype][:q], res_arr.reshape(()))
    elif r == 1:
        np.add.reduce(part, None, None, res_arr.reshape(()))
    else:
        np.add.reduce(part.reshape(r, q), 1, None, res_arr.reshape(r))
    return True


def _fast_plan(self, dim, keepdim):
    """The reduced dims (None: every dim), the result's shape and the number of elements
    each result element reduces, for a CPU tensor with elements reduced over ``dim`` (None,
    an int, or a dim list); None for a 0-dim or empty input or another device (Note [The
    reduction fast path])."""
    sizes = self._sizes
    if self._device is not CPU or not sizes or 0 in sizes:
        return None
    ndim = len(sizes)
    if dim is None or (type(dim) is not int and not dim):
        n = 1
        for s in sizes:
            n *= s
        return None, (1,) * ndim if keepdim else (), n
    d = dim if type(dim) is int else dim[0] if len(dim) == 1 else None
    if type(d) is int and -ndim <= d < ndim:           # one dim: nothing to sort
        if d < 0:
            d += ndim
        shape = sizes[:d] + (1,) + sizes[d + 1:] if keepdim else sizes[:d] + sizes[d + 1:]
        return (d,), shape, sizes[d]
    axes = _dims(self, dim)      # a dim list, or a bad dim: the general kernel's checks
    count = 1
    for a in axes:
        count *= sizes[a]
    return axes, _shape(sizes, axes, keepdim), count


def _fast_start(self, dim, keepdim, dtype):
    """The start every fast path shares: the plan (``_fast_plan``), the input's NumPy view
    and a fresh row-major result of ``dtype``: ``(arr, axes, shape, count, res, out)``,
    ``out`` the result's NumPy view; None where the general kernel must run."""
    plan = _fast_plan(self, dim, keepdim)
    if plan is None:
        return None
    axes, shape, count = plan
    arr = self._array()
    res, out = new_cpu_tensor(shape, dtype, arr.size // count * dtype.itemsize)
    return arr, axes, shape, count, res, out


def _fast_sum(self, dim, keepdim, mean):
    """``sum`` / ``mean`` of a CPU float32/float64 tensor with elements over any dims,
    ``dtype`` and ``out=`` not given, written out (Note [The reduction fast path]); None
    where the general kernel must run."""
    dtype = self._dtype
    if dtype is not _FLOAT32 and dtype is not _FLOAT64:
        return None
    start = _fast_start(self, dim, keepdim, dtype)
    if start is None:
        return None
    arr, axes, shape, count, res, out = start
    n = arr.size
    token = _EXTOBJ.set(_QUIET)      # an overflow to inf warns in NumPy, not in torch
    try:
        whole = _total_plan(dtype, n) if count == n and n > 1 and \
            arr.flags.c_contiguous else None
        if whole:     # every dim (listed, or with keepdim): the dots of ``_fast_total``
            _dot_total(arr, whole, out.reshape(()) if shape else out)
        elif n < _BLAS_MIN or not arr.flags.c_contiguous or not _blas_sum_contiguous(
                arr, axes, out):
            np.add.reduce(arr, axes, None, out, keepdim)
        if mean:
            np.divide(out, count, out)
    finally:
        _EXTOBJ.reset(token)
    return res


_TOTAL_PLANS = {_FLOAT32: {}, _FLOAT64: {}}     # n -> _total_plan(dtype, n)


def _total_plan(dtype, n):
    """How ``_fast_total`` sums ``n`` contiguous elements of ``dtype``: ``(q, run,
    ones(run), ones(q))``, q runs of ``run`` elements (q = 1: one dot), or False where
    ``_fast_sum`` sums them (Note [Summing through BLAS]: beyond the caches, or no run
    length divides ``n``). Kept per ``n``."""
    plans = _TOTAL_PLANS[dtype]
    plan = plans.get(n)
    if plan is not None:
        return plan
    if len(plans) > 4096:
        plans.clear()
    ones = _RUN_ONES[dtype.np]
    if n <= _BLAS_RUN:
        plan = (1, n, ones[:n], None)
    elif n * dtype.itemsize >= _EINSUM_BYTES:
        plan = False
    else:
        q = _pieces(n)
        plan = (q, n // q, ones[:n // q], ones[:q]) if q is not None and q <= _BLAS_RUN \
            else False
    plans[n] = plan
    return plan


def _fast_total(self, mean):
    """``sum()`` / ``mean()`` of a C-contiguous CPU float32/float64 block of 2 or more
    elements, below ``_EINSUM_BYTES``: BLAS dots against ones into the 0-dim result (one,
    or the runs' product and a dot of its sums, as ``_blas_sum_contiguous`` splits them),
    without the plan (Note [The reduction fast path]); anything else goes on to
    ``_fast_sum``. (Not for one element: BLAS's dot returns -0.0 * 1 as it is, torch's sum
    +0.0.)"""
    dtype = self._dtype
    if (dtype is not _FLOAT32 and dtype is not _FLOAT64) or self._device is not CPU:
        return None
    arr = self._array()
    n = arr.size
    plan = _TOTAL_PLANS[dtype].get(n)
    if plan is None:
        plan = _total_plan(dtype, n)
    if n < 2 or not plan or not arr.flags.c_contiguous:
        return _fast_sum(self, None, False, mean)
    res, out = new_cpu_tensor((), dtype, dtype.itemsize)
    token = _EXTOBJ.set(_QUIET)      # an overflow to inf warns in NumPy, not in torch
    try:
        _dot_total(arr, plan, out)
        if mean:
            np.divide(out, n, out)
    finally:
        _EXTOBJ.reset(token)
    return res


def _dot_total(arr, plan, out):
    """The sum of the C-contiguous ``arr`` into the 0-dim ``out`` by ``_total_plan``'s
    ``plan``: one dot, or q runs summed by one product and their sums by a dot."""
    q, run, ones_run, ones_q = plan
    if q == 1:
        np.dot(arr.ravel(), ones_run, out)
    else:
        np.dot(np.dot(arr.reshape(q, run), ones_run), ones_q, out)


def sum(self, dtype=None):
    if dtype is None and _EXTOBJ is not None:
        res = _fast_total(self, False)
        if res is not None:
            return res
    return _sum_like(self, None, False, dtype, None, np.add, "sum")


def sum_dim_IntList(self, dim, keepdim=False, dtype=None):
    if dtype is None and _EXTOBJ is not None:
        res = _fast_sum(self, dim, keepdim, False)
        if res is not None:
            return res
    return _sum_like(self, dim, keepdim, dtype, None, np.add, "sum")


def sum_IntList_out(self, dim, keepdim=False, dtype=None, out=None):
    return _sum_like(self, dim, keepdim, dtype, out, np.add, "sum")


def nansum(self, dim=None, keepdim=False, dtype=None):
    check(not self._dtype.is_complex, "nansum on CPU does not support complex inputs")
    return _sum_like(self, dim, keepdim, dtype, None, np.add, "nansum")


def nansum_out(self, dim=None, keepdim=False, dtype=None, out=None):
    check(not self._dtype.is_complex, "nansum on CPU does not support complex inputs")
    return _sum_like(self, dim, keepdim, dtype, out, np.add, "nansum")


def prod(self, dtype=None):
    return _sum_like(self, None, False, dtype, None, np.multiply, "prod")


def prod_dim_int(self, dim, keepdim=False, dtype=None):
    return _sum_like(self, dim, keepdim, dtype, None, np.multiply, "prod")


def prod_int_out(self, dim, keepdim=False, dtype=None, out=None):
    return _sum_like(self, dim, keepdim, dtype, out, np.multiply, "prod")


def _mean_dtype(name, self, dtype, out=None):
    if dtype is None:
        check(self._dtype.category >= dt.FLOAT, lambda: (
            f"{name}(): could not infer output dtype. Input dtype must be either a floating "
            f"point or complex dtype. Got: {self._dtype._scalar_name}"))
        if out is None:
            return self._dtype
        # torch divides into out= last; that division's cast check names Float
        check(out._dtype.category >= dt.FLOAT, lambda: (
            f"result type Float can't be cast to the desired output type "
            f"{out._dtype._scalar_name}"))
        return out._dtype
    else:
        check(dtype.category >= dt.FLOAT, lambda: (
            f"{name}(): could not infer output dtype. Optional dtype must be either a "
            f"floating point or complex dtype. Got: {dtype._scalar_name}"))
    return dtype


def _mean_impl(self, dim, keepdim, dtype, out, nan=False):
    name = "nanmean" if nan else "mean"
    if nan:
        # nanmean's out= overload has its own text
        check(self._dtype.category >= dt.FLOAT, lambda: (
            "nanmean(): integral types and 'Bool' are not supported for nanmean, even for "
            "empty tensors." if out is not None else
            f"nanmean(): expected input to have floating point or complex dtype but got "
            f"{self._dtype._scalar_name}"))
        check(not self._dtype.is_complex, "nansum on CPU does not support complex inputs")
    out_dtype = _mean_dtype(name, self, dtype, out)
    axes = _dims(self, dim)
    shape = _shape(self._sizes, axes, keepdim)
    res = _alloc(self, shape, out_dtype, out)
    if _is_meta(self):
        return res
    acc = _acc(out_dtype)
    arr = self._array()
    if out_dtype is dt.complex32 or self._dtype is dt.complex32:
        if out_dtype is dt.complex32:       # torch's sum refuses it, or with nothing to add
            _refuse_complex32("sum_cpu" if numel_of(self._sizes) else "div_cpu")  # its div
        arr = _c32.numeric(arr)
    arr = arr.astype(acc, copy=False)
    if (arr.size >= _BLAS_MIN and not nan and out is None and acc in _BLAS_SUM_TYPES
            and res._dtype.np is acc and self._sizes and _blas_sum(arr, axes, res._array())):
        count = 1
        for a in axes:
            count *= self._sizes[a]
        res_arr = res._array()
        np.divide(res_arr, count, out=res_arr)
        return res
    if not nan and _EXTOBJ is not None:
        # NumPy's error state set quietly through its context variable (a fraction of
        # np.errstate's cost; Note [Fast paths] in elementwise.py): the sum and division
        # warn on nothing then, as torch's mean
        n = 1
        for a in axes:
            n *= self._sizes[a]
        token = _EXTOBJ.set(_QUIET)
        try:
            total = np.add.reduce(arr, axis=_np_axes(self, axes), keepdims=keepdim, dtype=acc)
            value = np.divide(total, n, dtype=acc) if n else np.full_like(total, np.nan)
        finally:
            _EXTOBJ.reset(token)
        _store(res, value)
        return res
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        if nan:
            mask = ~np.isnan(arr)
            total = np.add.reduce(np.where(mask, arr, 0), axis=_np_axes(self, axes),
                                  keepdims=keepdim)
            count = np.add.reduce(mask, axis=_np_axes(self, axes), keepdims=keepdim)
            value = np.divide(total, count, dtype=acc)
        else:
            n = 1
            for a in axes:
                n *= self._sizes[a]
            total = np.add.reduce(arr, axis=_np_axes(self, axes), keepdims=keepdim, dtype=acc)
            value = np.divide(total, n, dtype=acc) if n else np.full_like(total, np.nan)
    _store(res, value)
    return res


def mean(self, dtype=None):
    if dtype is None and _EXTOBJ is not None:
        res = _fast_total(self, True)
        if res is not None:
            return res
    return _mean_impl(self, None, False, dtype, None)


def mean_dim(self, dim, keepdim=False, dtype=None):
    if dtype is None and _EXTOBJ is not None:
        res = _fast_sum(self, dim, keepdim, True)
        if res is not None:
            return res
    return _mean_impl(self, dim, keepdim, dtype, None)


def mean_out(self, dim, keepdim=False, dtype=None, out=None):
    return _mean_impl(self, dim, keepdim, dtype, out)


def nanmean(self, dim=None, keepdim=False, dtype=None):
    return _mean_impl(self, dim, keepdim, dtype, None, nan=True)


def nanmean_out(self, dim=None, keepdim=False, dtype=None, out=None):
    return _mean_impl(self, dim, keepdim, dtype, out, nan=True)


# -- amax / amin / max / min / argmax / argmin -----------------------------------------------

def _check_nonempty(name, self, axes, dim_given) -> None:
    if not numel_of(self._sizes) and self._sizes:
        check(dim_given, lambda: (
            f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
            f"Specify the reduction dim with the 'dim' argument."))
        for a in axes:
            if self._sizes[a] == 0:
                raise IndexError(f"{name}(): Expected reduction dim {a} to have non-zero size.")


def _extreme(self, dim, keepdim, out, ufunc, name):
    given = dim is not None and (type(dim) is int or len(dim) > 0)
    axes = _dims(self, dim)
    if given and self._sizes and not numel_of(self._sizes):
        # amax/amin name the dim as it was given (-1, not 0)
        for d in ((dim,) if type(dim) is int else dim):
            if self._sizes[maybe_wrap_dim(d, len(self._sizes))] == 0:
                raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
    _check_nonempty(name, self, axes, given)
    if out is not None:
        check(out._dtype is self._dtype, lambda: (
            f"Expected the dtype for input and out to match, but got "
            f"{self._dtype._scalar_name} for input's dtype and {out._dtype._scalar_name} for "
            f"out's dtype."))
    res = _alloc(self, _shape(self._sizes, axes, keepdim), self._dtype, out)
    if _is_meta(self) or not numel_of(res._sizes):
        return res
    # torch's dtype dispatch happens in the CPU kernel, which an empty result never reaches
    check(not self._dtype.is_complex and self._dtype not in _WIDE_UNSIGNED, lambda: (
        f'"{name[1:]}_values_cpu" not implemented for \'{self._dtype._scalar_name}\''),
        NotImplementedError)
    arr = self._array()
    if self._dtype in _LOW_FLOATS:
        arr = arr.astype(np.float32)
    _store(res, ufunc.reduce(arr, axis=_np_axes(self, axes), keepdims=keepdim))
    return res


def _fast_extreme(self, dim, keepdim, ufunc):
    """``amax`` / ``amin`` of a CPU tensor with elements of a real dtype NumPy compares
    natively (not float16 / bfloat16), ``out=`` not given (Note [The reduction fast
    path]); None where the general kernel must run. NaN propagates as in torch."""
    dtype = self._dtype
    if dtype not in _ARG_DTYPES:
        return None
    start = _fast_start(self, dim, keepdim, dtype)
    if start is None:
        return None
    arr, axes, shape, count, res, out = start
    n = arr.size
    if count >= n or count < 4 or n // count < 16 or axes[0] != arr.ndim - 1 or \
            not arr.flags.c_contiguous:
        ufunc.reduce(arr, axes, None, out, keepdim)
    else:
        # the last dim of many rows: NumPy's reduce pays per row, reduceat (one call over
        # the flat elements, cut at each row's start) about half of that
        ufunc.reduceat(arr.reshape(n), np.arange(0, n, count), 0, None,
                       out.reshape(n // count))
    return res


def amax(self, dim=(), keepdim=False):
    res = _fast_extreme(self, dim, keepdim, np.maximum)
    if res is not None:
        return res
    return _extreme(self, dim, keepdim, None, np.maximum, "amax")


def amax_out(self, dim=(), keepdim=False, out=None):
    return _extreme(self, dim, keepdim, out, np.maximum, "amax")


def amin(self, dim=(), keepdim=False):
    res = _fast_extreme(self, dim, keepdim, np.minimum)
    if res is not None:
        return res
    return _extreme(self, dim, keepdim, None, np.minimum, "amin")


def amin_out(self, dim=(), keepdim=False, out=None):
    return _extreme(self, dim, keepdim, out, np.minimum, "amin")


def _all_extreme(self, largest, name):
    dtype = self._dtype
    sizes = self._sizes
    if self._device is CPU and dtype in _ARG_DTYPES and 0 not in sizes:
        # the everyday call: a CPU tensor with elements of a dtype NumPy compares natively
        arr = self._array()
        n = arr.size
        res, res_arr = new_cpu_tensor((), dtype, dtype.itemsize)
        if n <= _ARG_ANY or (n <= _ARG_CONTIGUOUS and arr.flags.c_contiguous):
            # Note [max() through argmax]
            value = arr.item(arr.argmax() if largest else arr.argmin())
            if value:
                res_arr[()] = value
                return res
        (np.maximum if largest else np.minimum).reduce(arr, None, None, res_arr)
        return res
    if 0 in sizes:
        raise RuntimeError(f"{name}(): Expected reduction dim to be specified for "
                           f"input.numel() == 0. Specify the reduction dim with the 'dim' "
                           f"argument.")
    if dtype.is_complex or dtype in _WIDE_UNSIGNED:
        raise NotImplementedError(f'"{name}_all" not implemented for \'{dtype._scalar_name}\'')
    ufunc = np.maximum if largest else np.minimum
    if self._device is not CPU:
        res = empty((), dtype, device=self._device)
        if _is_meta(self):
            return res
        res_arr = res._array()
    else:
        res, res_arr = new_cpu_tensor((), dtype, dtype.itemsize)
    if dtype is dt.float16 or dtype is dt.bfloat16:
        _store(res, ufunc.reduce(self._array().astype(np.float32), None))
    else:
        ufunc.reduce(self._array(), None, None, res_arr)    # straight into the 0-dim result
    return res


# Note [max() through argmax]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~
# NumPy's ``maximum.reduce`` of a small block costs about 0.8 us, nearly all of it the ufunc
# machinery's set-up; ``ndarray.argmax`` finds the same element in 0.15-0.4 us up to 4096
# contiguous elements (256 in any layout: it copies a strided input first, which costs more
# than the reduce from there on). The extreme is then read at that index (``item``: a Python
# number holding the element exactly, NaN included: argmax / argmin stop at the first NaN,
# which torch's max() / min() propagate). A zero extreme (0.0, -0.0, False, 0) takes the
# reduce instead: when +0.0 and -0.0 tie, argmax returns the first while the sign NumPy's
# and torch's reductions give depends on their order of comparison, and this path keeps
# NumPy's reduction's answer there as before (integers and bools gain nothing from it, but
# lose nothing either but a second look).
_ARG_ANY = 256
_ARG_CONTIGUOUS = 4096
# (torch's CPU max / min / amax kernels leave uint16 / uint32 / uint64 out, as complex)
_WIDE_UNSIGNED = frozenset((dt.uint16, dt.uint32, dt.uint64))
# the dtypes those kernels take and NumPy compares natively
_ARG_DTYPES = frozenset(d for d in dt.ALL_DTYPES if not d.is_complex and d not in (
    dt.float16, dt.bfloat16) and d not in _WIDE_UNSIGNED)


def max(self):
    return _all_extreme(self, True, "max")


def min(self):
    return _all_extreme(self, False, "min")


def _arg_np(arr, axis, largest):
    if arr.dtype in (np.float16,) or arr.dtype.name == "bfloat16":
        arr = arr.astype(np.float32)
    return np.argmax(arr, axis=axis) if largest else np.argmin(arr, axis=axis)


def _fast_arg(self, dim, keepdim, largest, values):
    """``argmax`` / ``argmin`` (over every dim or one), or with ``values`` ``max`` /
    ``min`` over one dim (values and indices), of a CPU tensor with elements of a real
    dtype NumPy compares natively, ``out=`` not given (Note [The reduction fast path]);
    None where the general kernel must run. The values are gathered at the indices, as
    torch takes them (the first extreme; the first NaN)."""
    dtype = self._dtype
    if dtype not in _ARG_DTYPES or (dtype is dt.bool_ and not values):
        return None
    start = _fast_start(self, dim, keepdim, dt.int64)
    if start is None:
        return None
    arr, axes, shape, count, i_res, i_out = start
    n = arr.size
    find = arr.argmax if largest else arr.argmin    # (the methods: np.argmax wraps them)
    if axes is None:
        find(None, i_out, keepdims=keepdim)
        return i_res
    d = axes[0]
    sizes = self._sizes
    keep = i_out if keepdim else i_out.reshape(sizes[:d] + (1,) + sizes[d + 1:])
    find(d, keep, keepdims=True)
    if not values:
        return i_res
    v_res, v_out = new_cpu_tensor(shape, dtype, n // count * dtype.itemsize)
    # one fancy index on the (outer, count, inner) view (np.take_along_axis builds the
    # same index in Python and costs several times more)
    r = n // count
    if d == len(sizes) - 1:          # rows
        v_out.reshape(r)[...] = arr.reshape(r, count)[np.arange(r), keep.reshape(r)]
    else:
        inner = 1
        for s in sizes[d + 1:]:
            inner *= s
        outer = r // inner
        v_out.reshape(outer, inner)[...] = arr.reshape(outer, count, inner)[
            np.arange(outer)[:, None], keep.reshape(outer, inner), np.arange(inner)]
    return v_res, i_res


def _refuse_wide_unsigned(self, kernel_name):
    """torch's CPU kernels of max / min / argmax... dispatch on a dtype list without
    uint16 / uint32 / uint64."""
    if self._dtype in _WIDE_UNSIGNED:
        raise NotImplementedError(
            f"\"{kernel_name}\" not implemented for '{self._dtype._scalar_name}'")


def _max_dim_impl(self, dim, keepdim, values, indices, largest, name):
    ndim = len(self._sizes)
    d = maybe_wrap_dim(dim, ndim)
    _check_nonempty(name, self, (d,) if ndim else (), True)
    check(not self._dtype.is_complex, lambda: f"{name}(): does not support complex input")
    shape = _shape(self._sizes, (d,) if ndim else (), keepdim)
    if values is not None:
        check(values._dtype is self._dtype, lambda: (
            f"Expected out tensor to have dtype {_CPP_NAMES[self._dtype.name]}, but got "
            f"{_CPP_NAMES[values._dtype.name]} instead"))
        check(indices._dtype is dt.int64, lambda: (
            f"Expected out tensor to have dtype long int, but got "
            f"{_CPP_NAMES[indices._dtype.name]} instead"))
    v = _alloc(self, shape, self._dtype, values)
    i = _alloc(self, shape, dt.int64, indices)
    if _is_meta(self) or not numel_of(shape):
        return v, i
    arr = self._array()
    if not ndim:
        _store(v, arr)
        _store(i, np.zeros((), np.int64))
        return v, i
    _refuse_wide_unsigned(self, name + "_cpu")
    idx = np.expand_dims(_arg_np(arr, d, largest), d)
    _store(v, np.take_along_axis(arr, idx, d))
    _store(i, idx)
    return v, i


def max_dim(self, dim, keepdim=False):
    res = _fast_arg(self, dim, keepdim, True, True)
    if res is not None:
        return res
    return _max_dim_impl(self, dim, keepdim, None, None, True, "max")


def max_dim_max(self, dim, keepdim=False, max=None, max_values=None):
    return _max_dim_impl(self, dim, keepdim, max, max_values, True, "max")


def min_dim(self, dim, keepdim=False):
    res = _fast_arg(self, dim, keepdim, False, True)
    if res is not None:
        return res
    return _max_dim_impl(self, dim, keepdim, None, None, False, "min")


def min_dim_min(self, dim, keepdim=False, min=None, min_indices=None):
    return _max_dim_impl(self, dim, keepdim, min, min_indices, False, "min")


def _binary_extreme(self, other, out, fn):
    from .broadcast import broadcast_shapes
    check(self._device == other._device, lambda: (
        f"Expected all tensors to be on the same device, but found at least two devices, "
        f"{self._device} and {other._device}!"))
    dtype = dt.promote_types(self._dtype, other._dtype)
    shape = broadcast_shapes(self._sizes, other._sizes)
    res = _alloc(self, shape, dtype, out)
    if not _is_meta(self) and numel_of(shape):
        _store(res, fn(self._array().astype(dtype.np), other._array().astype(dtype.np)))
    return res


def max_other(self, other):
    return _binary_extreme(self, other, None, np.maximum)


def max_other_out(self, other, out):
    return _binary_extreme(self, other, out, np.maximum)


def min_other(self, other):
    return _binary_extreme(self, other, None, np.minimum)


def min_other_out(self, other, out):
    return _binary_extreme(self, other, out, np.minimum)


def _argext(self, dim, keepdim, out, largest):
    name = "argmax" if largest else "argmin"
    check(not self._dtype.is_complex, lambda: f"{name}(): does not support complex input")
    check(self._dtype is not dt.bool_, lambda: f"{name}(): does not support bool input")
    ndim = len(self._sizes)
    if dim is None:
        if not numel_of(self._sizes):
            raise IndexError(f"{name}(): Expected reduction dim to be specified for "
                             f"input.numel() == 0.")
        shape = (1,) * ndim if keepdim else ()
    else:
        d = maybe_wrap_dim(dim, ndim)
        _check_nonempty(name, self, (d,) if ndim else (), True)
        shape = _shape(self._sizes, (d,) if ndim else (), keepdim)
    if out is not None:
        check(out._dtype is dt.int64, lambda: (
            f"Expected out tensor to have dtype long int, but got "
            f"{_CPP_NAMES[out._dtype.name]} instead"))
    res = _alloc(self, shape, dt.int64, out)
    if _is_meta(self) or not numel_of(shape):
        return res
    _refuse_wide_unsigned(self, name + "_cpu")
    arr = self._array()
    if dim is None or not ndim:
        _store(res, _arg_np(arr.reshape(-1), 0, largest))
    else:
        _store(res, _arg_np(arr, d, largest))
    return res


def argmax(self, dim=None, keepdim=False):
    res = _fast_arg(self, dim, keepdim, True, False)
    if res is not None:
        return res
    return _argext(self, dim, keepdim, None, True)


def argmax_out(self, dim=None, keepdim=False, out=None):
    return _argext(self, dim, keepdim, out, True)


def argmin(self, dim=None, keepdim=False):
    res = _fast_arg(self, dim, keepdim, False, False)
    if res is not None:
        return res
    return _argext(self, dim, keepdim, None, False)


def argmin_out(self, dim=None, keepdim=False, out=None):
    return _argext(self, dim, keepdim, out, False)


# -- any / all / count_nonzero ---------------------------------------------------------------

def _fast_logical(self, dim, keepdim, ufunc):
    """``any`` / ``all`` of a CPU tensor with elements, not uint8 (whose result is uint8)
    nor complex, ``out=`` not given, through the fast plan (Note [The reduction fast
    path]); None where the general kernel must run."""
    dtype = self._dtype
    if dtype is dt.uint8 or dtype.is_complex or (type(dim) is tuple and not dim):
        return None
    start = _fast_start(self, dim, keepdim, dt.bool_)
    if start is None:
        return None
    arr, axes, shape, count, res, out = start
    ufunc.reduce(arr if dtype is dt.bool_ else arr != 0, axes, None, out, keepdim)
    return res


def _logical(self, dim, keepdim, out, ufunc):
    if out is None:
        res = _fast_logical(self, dim, keepdim, ufunc)
        if res is not None:
            return res
    # unlike sum's, any/all's empty dim list reduces nothing (torch 2.13)
    axes = () if type(dim) is tuple and not dim else _dims(self, dim)
    out_dtype = dt.uint8 if self._dtype is dt.uint8 else dt.bool_
    res = _alloc(self, _shape(self._sizes, axes, keepdim), out_dtype, out)
    if _is_meta(self) or not numel_of(res._sizes):
        return res
    arr = _c32.truth(self._array())
    if arr.dtype != np.bool_:
        arr = arr != 0
    _store(res, ufunc.reduce(arr, axis=_np_axes(self, axes), keepdims=keepdim))
    return res


def any(self):
    return _logical(self, None, False, None, np.logical_or)


def any_dims(self, dim=None, keepdim=False):
    return _logical(self, dim, keepdim, None, np.logical_or)


def any_dims_out(self, dim=None, keepdim=False, out=None):
    return _logical(self, dim, keepdim, out, np.logical_or)


def all(self):
    return _logical(self, None, False, None, np.logical_and)


def all_dims(self, dim=None, keepdim=False):
    return _logical(self, dim, keepdim, None, np.logical_and)


def all_dims_out(self, dim=None, keepdim=False, out=None):
    return _logical(self, dim, keepdim, out, np.logical_and)


def count_nonzero_dim_IntList(self, dim):
    axes = _dims(self, dim)
    res = _alloc(self, _shape(self._sizes, axes, False), dt.int64)
    if _is_meta(self) or not numel_of(res._sizes):
        return res
    _store(res, np.count_nonzero(_c32.truth(self._array()), axis=_np_axes(self, axes)))
    return res


def count_nonzero(self, dim=None):
    return count_nonzero_dim_IntList(self, None if dim is None else (dim,))


# -- var / std -------------------------------------------------------------------------------

def _fast_var(self, dim, correction, keepdim, take_sqrt):
    """``var`` / ``std`` of a CPU float32/float64 tensor with elements and more elements per
    result than ``correction`` (no warning to give), ``out=`` not given, through the fast
    plan (Note [The reduction fast path]); the general kernel's two passes (the mean, then
    the squared deviations), without its set-up. None where the general kernel must run."""
    plan = _fast_plan(self, dim, keepdim)
    if plan is None or plan[2] - correction <= 0:
        return None
    axes, shape, count = plan
    arr = self._array()
    res, out = new_cpu_tensor(shape, self._dtype, arr.size // count * self._dtype.itemsize)
    token = _EXTOBJ.set(_QUIET)      # inf - inf is NaN, quietly, as in torch
    try:
        dev = arr - np.divide(np.add.reduce(arr, axes, None, None, True), count)
        np.multiply(dev, dev, dev)
        np.add.reduce(dev, axes, None, out, keepdim)
        np.divide(out, count - correction, out)
        if take_sqrt:
            np.sqrt(out, out)
    finally:
        _EXTOBJ.reset(token)
    return res


def _var_impl(name, self, dim, correction, keepdim, out=None, take_sqrt=False,
              with_mean=False):
    check(self._dtype.category >= dt.FLOAT,
          f"{name} only support floating point and complex dtypes")
    if correction is None:
        correction = 1
    if out is None and not with_mean and (self._dtype is _FLOAT32 or self._dtype is _FLOAT64):
        res = _fast_var(self, dim, correction, keepdim, take_sqrt)
        if res is not None:
            return res
    axes = _dims(self, dim)
    shape = _shape(self._sizes, axes, keepdim)
    real = self._dtype._real if self._dtype.is_complex else self._dtype
    res = _alloc(self, shape, real, out)
    mean_res = _alloc(self, shape, self._dtype) if with_mean else None
    if _is_meta(self):
        return (res, mean_res) if with_mean else res
    n = 1
    for a in axes:
        n *= self._sizes[a]
    m = numel_of(shape)
    # torch's reduction factor is input numel / output numel, 0 for an empty input
    if (n if numel_of(self._sizes) else 0) - correction <= 0:
        label = name if name in ("std_mean", "var_mean") else ("std" if take_sqrt else "var")
        warnings.warn(f"{label}(): degrees of freedom is <= 0. "
                      f"Correction should be strictly less than the reduction factor (input "
                      f"numel divided by output numel).", UserWarning, stacklevel=4)
    if m:
        arr = _c32.numeric(self._array())
        if self._dtype in _LOW_FLOATS:
            arr = arr.astype(np.float32)
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            ax = _np_axes(self, axes)
            mu = np.mean(arr, axis=ax, keepdims=True) if n else \
                np.full(_shape(self._sizes, axes, True), np.nan, arr.dtype)
            dev = arr - mu
            sq = (dev.real * dev.real + dev.imag * dev.imag) if np.iscomplexobj(dev) \
                else dev * dev
            total = np.add.reduce(sq, axis=ax, keepdims=keepdim)
            value = total / np.maximum(n - correction, 0)
            if take_sqrt:
                value = np.sqrt(value)
        _store(res, value)
        if with_mean:
            _store(mean_res, mu)
    return (res, mean_res) if with_mean else res


def var(self, unbiased=True):
    return _var_impl("std and var", self, None, 1 if unbiased else 0, False)


def var_dim(self, dim, unbiased=True, keepdim=False):
    return _var_impl("std and var", self, dim, 1 if unbiased else 0, keepdim)


def var_correction(self, dim=None, correction=None, keepdim=False):
    return _var_impl("std and var", self, dim, correction, keepdim)


def var_correction_out(self, dim=None, correction=None, keepdim=False, out=None):
    return _var_impl("std and var", self, dim, correction, keepdim, out)


def std(self, unbiased=True):
    return _var_impl("std and var", self, None, 1 if unbiased else 0, False, take_sqrt=True)


def std_dim(self, dim, unbiased=True, keepdim=False):
    return _var_impl("std and var", self, dim, 1 if unbiased else 0, keepdim, take_sqrt=True)


def std_correction(self, dim=None, correction=None, keepdim=False):
    return _var_impl("std and var", self, dim, correction, keepdim, take_sqrt=True)


def std_correction_out(self, dim=None, correction=None, keepdim=False, out=None):
    return _var_impl("std and var", self, dim, correction, keepdim, out, take_sqrt=True)


def var_mean(self, unbiased=True):
    return _var_impl("var_mean", self, None, 1 if unbiased else 0, False, with_mean=True)


def var_mean_dim(self, dim, unbiased=True, keepdim=False):
    return _var_impl("var_mean", self, dim, 1 if unbiased else 0, keepdim, with_mean=True)


def var_mean_correction(self, dim=None, correction=None, keepdim=False):
    return _var_impl("var_mean", self, dim, correction, keepdim, with_mean=True)


def std_mean(self, unbiased=True):
    return _var_impl("std_mean", self, None, 1 if unbiased else 0, False, take_sqrt=True,
                     with_mean=True)


def std_mean_dim(self, dim, unbiased=True, keepdim=False):
    return _var_impl("std_mean", self, dim, 1 if unbiased else 0, keepdim, take_sqrt=True,
                     with_mean=True)


def std_mean_correction(self, dim=None, correction=None, keepdim=False):
    return _var_impl("std_mean", self, dim, correction, keepdim, take_sqrt=True,
                     with_mean=True)


# -- logsumexp (softmax and log_softmax are in kernels/nn/loss.py) --------------------------

def _float_of(dtype):
    return dtype if dtype.category >= dt.FLOAT else dt._default_dtype[0]


def _logsumexp_np(arr, axes, keepdim):
    with np.errstate(all="ignore"):
        if arr.size == 0:
            return np.log(np.add.reduce(np.exp(arr), axis=axes, keepdims=keepdim))
        # complex input: the shift is the max of the real parts (torch's amax(real(x))), so
        # that the imaginary part comes out of log() in (-pi, pi]
        m = np.maximum.reduce(arr.real if arr.dtype.kind == "c" else arr, axis=axes,
                              keepdims=True)
        m = np.where(np.isinf(m), np.zeros((), m.dtype), m)
        s = np.add.reduce(np.exp(arr - m), axis=axes, keepdims=True)
        r = np.log(s) + m
        return r if keepdim else np.squeeze(r, axis=axes)


def _logsumexp_impl(self, dim, keepdim, out):
    if self._dtype is dt.complex32 and not _is_meta(self):
        _refuse_complex32("exp_vml_cpu")       # torch's exp comes first, even with no elements
    if dim is not None and not len(dim) and not keepdim and self._sizes and \
            numel_of(self._sizes):
        # torch's logsumexp over dim=() adds its keepdim max (all ones) into a 0-dim result
        raise RuntimeError(f"output with shape [] doesn't match the broadcast shape "
                           f"{[1] * len(self._sizes)}")
    axes = _dims(self, dim)
    out_dtype = _float_of(self._dtype)
    res = _alloc(self, _shape(self._sizes, axes, keepdim), out_dtype, out)
    if _is_meta(self) or not numel_of(res._sizes):
        return res
    if res._dtype is dt.complex32 and numel_of(self._sizes):
        _refuse_complex32("sum_cpu")           # out=: the sum of the exps is in complex32
    arr = self._array()
    acc = _acc(out_dtype) if out_dtype.category >= dt.FLOAT else out_dtype.np
    arr = arr.astype(acc, copy=False)
    if not self._sizes and arr.dtype.kind != "c":
        _store(res, arr)
        return res
    _store(res, _logsumexp_np(arr, axes, keepdim))
    return res


def logsumexp(self, dim, keepdim=False):
    return _logsumexp_impl(self, dim, keepdim, None)


def logsumexp_out(self, dim, keepdim=False, out=None):
    return _logsumexp_impl(self, dim, keepdim, out)


# -- cumsum / cumprod ------------------------------------------------------------------------

def _cum_impl(self, dim, dtype, out, ufunc, inplace=False):
    ndim = len(self._sizes)
    d = maybe_wrap_dim(dim, ndim)
    out_dtype = dtype or (out._dtype if out is not None else _int_to_long(self._dtype))
    if inplace:
        check(dtype is None or dtype is self._dtype, lambda: (
            f"Bad in-place call: input tensor dtype {_CPP_NAMES[self._dtype.name]} and output "
            f"tensor dtype {_CPP_NAMES[dtype.name]} should match"))
        res = self
    else:
        res = _alloc(self, self._sizes, out_dtype, out)
    if _is_meta(self) or not numel_of(self._sizes):
        return res
    arr = self._array()
    if res._dtype is dt.complex32 or self._dtype is dt.complex32:
        # a 0-dim input is copied, not accumulated: torch's dtype dispatch never runs then
        if res._dtype is dt.complex32 and ndim:
            _refuse_complex32("cumsum_out_cpu" if ufunc is np.add else "cumprod_out_cpu")
        arr = _c32.numeric(arr)
    acc = _acc(dtype or self._dtype)
    value = arr.astype(acc) if not ndim else ufunc.accumulate(arr, axis=d, dtype=acc)
    _store(res, value)
    if inplace:
        self._vc[0] += 1
    return res


def cumsum(self, dim, dtype=None):
    return _cum_impl(self, dim, dtype, None, np.add)


def cumsum_out(self, dim, dtype=None, out=None):
    return _cum_impl(self, dim, dtype, out, np.add)


def cumsum_(self, dim, dtype=None):
    return _cum_impl(self, dim, dtype, None, np.add, inplace=True)


def cumprod(self, dim, dtype=None):
    return _cum_impl(self, dim, dtype, None, np.multiply)


def cumprod_out(self, dim, dtype=None, out=None):
    return _cum_impl(self, dim, dtype, out, np.multiply)


def cumprod_(self, dim, dtype=None):
    return _cum_impl(self, dim, dtype, None, np.multiply, inplace=True)


# -- norms -----------------------------------------------------------------------------------

def _fast_norm(self, dim, keepdim):
    """The 2-norm of a CPU float32/float64 tensor with elements, ``dtype`` and ``out=`` not
    given, through the fast plan (Note [The reduction fast path]): the squares (no ``abs``
    pass: x * x is |x| ** 2 for real x) summed as ``sum`` sums them (Note [Summing through
    BLAS]), then the square root, as torch's sum of squares then sqrt (an overflow to inf
    included). None where the general kernel must run."""
    start = _fast_start(self, dim, keepdim, self._dtype)
    if start is None:
        return None
    arr, axes, shape, count, res, out = start
    n = arr.size
    token = _EXTOBJ.set(_QUIET)
    try:
        sq = np.multiply(arr, arr)
        if n < _BLAS_MIN or not sq.flags.c_contiguous or not _blas_sum_contiguous(
                sq, axes, out):
            np.add.reduce(sq, axes, None, out, keepdim)
        np.sqrt(out, out)
    finally:
        _EXTOBJ.reset(token)
    return res


def _vector_norm_impl(self, ord, dim, keepdim, dtype, out, name="linalg.vector_norm"):
    check(self._dtype.category >= dt.FLOAT, lambda: (
        f"{name}: Expected a floating point or complex tensor as input. Got "
        f"{self._dtype._scalar_name}"))
    ord = float(ord)
    if ord == 2.0 and out is None and dtype is None and _EXTOBJ is not None and (
            self._dtype is _FLOAT32 or self._dtype is _FLOAT64):
        res = _fast_norm(self, dim, keepdim)
        if res is not None:
            return res
    axes = _dims(self, dim)
    if not numel_of(self._sizes) and (ord < 0 or ord == float("inf")):
        # (torch names linalg.vector_norm here for torch.norm too, and prints each dim as
        # it was given, in the order given)
        given = (dim,) if type(dim) is int else tuple(dim or ())
        check(given, lambda: (
            f"linalg.vector_norm cannot compute the {ord:g} norm on an empty tensor because "
            f"the operation does not have an identity"))
        for a in given:
            check(self._sizes[maybe_wrap_dim(a, len(self._sizes))] != 0, lambda a=a: (
                f"linalg.vector_norm cannot compute the {ord:g} norm on the dimension {a}"
                f"because this dimension is empty and the operation does not have an "
                f"identity"))
    base = dtype or self._dtype
    real = base._real if base.is_complex else base
    res = _alloc(self, _shape(self._sizes, axes, keepdim), real, out)
    if _is_meta(self) or not numel_of(res._sizes):
        return res
    arr = _c32.magnitude(self._array())
    acc = _acc(real)
    arr = arr.astype(acc, copy=False)
    ax = _np_axes(self, axes)
    with np.errstate(all="ignore"):
        if ord == float("inf"):
            value = np.maximum.reduce(arr, axis=ax, keepdims=keepdim)
        elif ord == float("-inf"):
            value = np.minimum.reduce(arr, axis=ax, keepdims=keepdim)
        elif ord == 0:
            value = np.add.reduce((arr != 0).astype(acc), axis=ax, keepdims=keepdim)
        elif ord == 1:
            value = np.add.reduce(arr, axis=ax, keepdims=keepdim)
        elif ord == 2:
            value = np.sqrt(np.add.reduce(arr * arr, axis=ax, keepdims=keepdim))
        else:
            value = np.power(np.add.reduce(np.power(arr, ord), axis=ax, keepdims=keepdim),
                             1.0 / ord)
    _store(res, value)
    return res


def linalg_vector_norm(self, ord=2, dim=None, keepdim=False, dtype=None):
    return _vector_norm_impl(self, ord, dim, keepdim, dtype, None)


def linalg_vector_norm_out(self, ord=2, dim=None, keepdim=False, dtype=None, out=None):
    return _vector_norm_impl(self, ord, dim, keepdim, dtype, out)


def norm_Scalar(self, p=2):
    return _vector_norm_impl(self, p, None, False, None, None, "norm")


def norm_ScalarOpt_dim(self, p, dim, keepdim=False):
    return _vector_norm_impl(self, 2 if p is None else p, dim, keepdim, None, None, "norm")


def norm_ScalarOpt_dim_dtype(self, p, dim, keepdim=False, dtype=None):
    return _vector_norm_impl(self, 2 if p is None else p, dim, keepdim, dtype, None, "norm")


def norm_out(self, p, dim, keepdim=False, out=None):
    return _vector_norm_impl(self, 2 if p is None else p, dim, keepdim, None, out, "norm")


def norm_ScalarOpt_dtype(self, p, dtype):
    return _vector_norm_impl(self, 2 if p is None else p, None, False, dtype, None, "norm")


def norm_dtype_out(self, p, dim, keepdim, dtype, out):
    return _vector_norm_impl(self, 2 if p is None else p, dim, keepdim, dtype, out, "norm")


# -- the remaining out= and single-dim overloads ---------------------------------------------

def mean_dtype_out(self, dtype=None, out=None):
    return _mean_impl(self, None, False, dtype, out)


def max_unary_out(self, out):
    res = max(self)
    resize_output(out, ())
    _store(out, res._array() if not _is_meta(self) else 0)
    return out


def min_unary_out(self, out):
    res = min(self)
    resize_output(out, ())
    _store(out, res._array() if not _is_meta(self) else 0)
    return out


def any_all_out(self, out):
    return _logical(self, None, False, out, np.logical_or)


def any_dim(self, dim, keepdim=False):
    return _logical(self, dim, keepdim, None, np.logical_or)


def any_out(self, dim, keepdim=False, out=None):
    return _logical(self, dim, keepdim, out, np.logical_or)


def all_all_out(self, out):
    return _logical(self, None, False, out, np.logical_and)


def all_dim(self, dim, keepdim=False):
    return _logical(self, dim, keepdim, None, np.logical_and)


def all_out(self, dim, keepdim=False, out=None):
    return _logical(self, dim, keepdim, out, np.logical_and)


def var_out(self, dim, unbiased=True, keepdim=False, out=None):
    return _var_impl("std and var", self, dim, 1 if unbiased else 0, keepdim, out)


def std_out(self, dim, unbiased=True, keepdim=False, out=None):
    return _var_impl("std and var", self, dim, 1 if unbiased else 0, keepdim, out,
                     take_sqrt=True)
