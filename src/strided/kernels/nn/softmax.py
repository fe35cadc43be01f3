"""The computations behind aten's ``_softmax`` / ``_log_softmax`` and their backward (NumPy).

The registered kernels are the thin public functions in ``kernels/nn/loss.py``
(``softmax_forward``, ``log_softmax_backward_data``, ``softmax_int_composite``, ...); they
call ``forward`` / ``backward`` / ``composite`` here.

Note [Softmax in one pass per row]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Over the last dim the rows are worked on in blocks small enough to stay in cache
(``_BLOCK`` elements: 16K and 32K are slower on 4096x1024, 128K no faster), so that only the
first pass over a block reads memory. That first pass is ``exp``, straight into the output
block, unshifted (Note [Softmax without the shift]); then the row sums as one
matrix-vector product (BLAS: several times faster than a reduction along the last axis),
and softmax multiplies by their reciprocals as torch does (``exp * (1 / sum)``), while
log-softmax computes ``x - log(sum)``. A block whose sums say the shift was needed is done
again from its input the way torch does it (``_shifted``: ``x - max`` first). No
temporaries of the input's size, no dispatcher round trips. Other dims take the same steps
on the whole array seen as ``(outer, n, inner)`` (``_along``: the sums over ``n`` one
batched product). The backward kernels are the closed forms ``y * (g - sum(g * y))`` and
``g - exp(y) * sum(g)``, blocked the same way.

The broadcasts of a block (``* (1 / sum)[:, None]``, ``- log(sum)[:, None]``) run with
NumPy's iterator buffer set to ``_ROW_BUFSIZE`` elements for rows at least that long (the
``_ROWS`` error-state object): with the default 8192-element buffer NumPy buffers a
broadcast over rows of 1-8K elements and takes twice as long (12 vs 6 us on 64x1024
float32); a buffer no longer than a row lets it run the inner loop straight over the row.
Shorter rows keep the default (a small buffer is slower there).

Note [Softmax without the shift]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
``softmax`` is the same function of ``x`` and of ``x - c``; torch subtracts the row max so
that ``exp`` cannot overflow. The blocks skip the shift and check afterwards, on the row
sums ``s`` of ``exp(x)``: ``s`` finite means no ``exp`` overflowed (and no NaN came in);
``s >= c * exp(-47)`` (float32; ``exp(-660)`` for float64) means the row max is above -47,
so an element whose ``exp`` is subnormal lies more than 40 below the max, where torch's
value is below ``exp(-40)`` too. Both are one BLAS product on the reciprocals ``r``:
``sum(r * (s + 1))`` is NaN when some ``s`` is 0, infinite or NaN, and otherwise at least
``sum(r)``, so ``<= 1 / (c * exp(-47))`` bounds every ``r`` (two NumPy reductions of the
64 sums cost 1.9 us, this 1.2). Otherwise the block is redone with the shift. The
unshifted values differ from torch's only by rounding: for softmax, where torch's own
``x - max`` rounds (half an ulp of ``|x - max|``, 4.8e-7 relative up to 16 below the max,
on probabilities under ``exp(-16)`` beyond); for log-softmax, ``x - log(sum)`` is within an
ulp of ``log(sum)`` (absolute) of torch's ``(x - max) - log(sum)``. Both are well inside
torch's own float32 test tolerance (rtol 1.3e-6, atol 1e-5; tests/kernels/
test_perf_softmax.py checks 2e-6 relative, and for log-softmax 2e-6 absolute).

Note [Tiny softmax]
~~~~~~~~~~~~~~~~~~~
Up to ``_SMALL`` elements NumPy's fixed cost per call dominates: on 16 elements a
reduction along an axis costs ~1 us and a broadcast ~0.9 us, an ``exp``, a same-shape
divide or a small BLAS product ~0.3-0.5 us. So the tiny path computes the row sums already
broadcast to the input's shape: one ``np.dot`` with a ``c x c`` matrix of ones (cached per
width up to ``_SQUARE``; every row of the product adds the same terms in the same order,
so each element of a row sees the same sum), after which the normalisation is a same-shape
divide (correctly rounded: within an ulp of torch's multiply by the reciprocal). Softmax
skips the shift when every ``|x| < 8``, which one ``np.vdot(x, x) < 64`` shows (NaN and
infinities fail it): ``x - max`` then rounds by at most half an ulp of 16 in torch, and no
step can raise a floating-point warning. Otherwise, and always for log-softmax (whose
results near 0 only torch's own steps reproduce within 1e-6), the rows are shifted by their
max first, with warnings off.

Every computation that can meet an infinity runs with NumPy's floating-point warnings off
through NumPy's own context variable (``_EXTOBJ``, see kernels/elementwise.py), not
``np.errstate`` (0.9 us): ``-inf`` rows (``-inf - -inf``) and infinite elements give
torch's NaNs silently.

The composite ``softmax.int`` calls the ``_softmax`` handle with the input's own key set
(what the dispatcher would compute from the arguments), so autograd records
``SoftmaxBackward0`` and explain shows the ``_softmax`` step as before. While no dispatch
hook (explain) and no autocast replace ``OperatorHandle.call``, it does the handle's table
lookup itself, and when that finds the CPU kernel registered for ``_softmax`` it calls
``forward`` at once (three Python calls fewer); any other entry (autograd, a Python mode, a
kernel registered over ours) is called as the handle would. NumPy's ``vdot`` is its C
function and the sums ``ndarray.dot``: ``np.vdot`` / ``np.dot`` first run the
``__array_function__`` dispatcher in Python (0.5 of their 1.1 us on 16 elements).
"""

from __future__ import annotations

import math

import numpy as np

from ...core import dtypes as dt
from ...core.checks import check, maybe_wrap_dim
from ...core.devices import CPU
from ...core.dispatch_keys import DispatchKey
from ...core.tensor_impl import contiguous_strides, new_cpu_tensor, numel_of
from ...ops.dispatcher import OperatorHandle, get_op
from ...ops.dispatcher import _plain_call as _PLAIN_CALL
from ..elementwise import _EXTOBJ
from ..factory import empty
from ..resize import resize_output

_LOW = (dt.float16, dt.bfloat16)
_F32, _F64 = dt.float32, dt.float64
_CPP_NAMES = {
    "float16": "c10::Half", "bfloat16": "c10::BFloat16", "float32": "float",
    "float64": "double",
}

_BLOCK = 1 << 16      # elements per row block of the last-dim kernels (256 KiB of float32)
_SMALL = 256          # up to this many elements, the tiny path (Note [Tiny softmax])
_SQUARE = 64          # widest row whose sums come from a c x c matrix of ones
_NORM2 = 64.0         # a tiny input whose squares sum below this has every |x| < 8
_ROW_BUFSIZE = 512    # Note [Softmax in one pass per row]

# A row of c elements whose unshifted sum is at least c * _SUM_LOW has its max above -47
# (float32; -660 for float64): an element whose exp is subnormal lies 40 below it (Note
# [Softmax without the shift]).
_SUM_LOW = {4: float(np.exp(np.float64(-47.0))), 8: float(np.exp(np.float64(-660.0)))}
_INF = float("inf")

# NumPy's C functions themselves: ``np.vdot`` first runs the ``__array_function__`` protocol's
# Python dispatcher (0.5 of its 1.1 us on 16 elements); the kernels pass plain arrays
try:
    from numpy._core._multiarray_umath import vdot as _vdot
except ImportError:   # NumPy 1.x
    _vdot = np.vdot

with np.errstate(all="ignore"):
    _QUIET = _EXTOBJ.get() if _EXTOBJ is not None else None
    if _EXTOBJ is not None:
        np.setbufsize(_ROW_BUFSIZE)
        _ROWS = _EXTOBJ.get()

# factory's empty, out of reach of explain's probes (which rebind every global bound to it):
# ``empty is not _EMPTY[0]`` while explain records, and the kernels then allocate through it
_EMPTY = (empty,)
_ones_cache: dict = {}


_squares: dict = {4: {}, 8: {}}   # item size -> {c: the c x c matrix of ones}


def _ones(shape, like):
    """A cached read-only array of ones of ``like``'s dtype (float32 or float64): the vector
    that sums rows (one BLAS product), or the ``c x c`` matrix that sums them already
    broadcast (Note [Tiny softmax]; also in ``_squares``, keyed by ``c`` alone)."""
    key = (shape, like.itemsize)
    j = _ones_cache.get(key)
    if j is None:
        j = np.ones(shape, like.dtype)
        j.flags.writeable = False
        if len(_ones_cache) < 512:
            _ones_cache[key] = j
            if type(shape) is tuple:
                _squares[like.itemsize][shape[0]] = j
    return j


# -- the last dim -------------------------------------------------------------------------

def _tiny(a2, o2, log):
    """Note [Tiny softmax]: the rows of ``a2`` (2-d, the computation dtype, at most
    ``_SMALL`` elements) into ``o2`` (row-major)."""
    if log or not _vdot(a2, a2) < _NORM2:
        return _quietly(_tiny_shifted, 0, a2, o2, log)
    # every |x| < 8: no shift (Note [Softmax without the shift]), and no step can raise a
    # floating-point warning (exp(x) > exp(-8), the sums > 0)
    np.exp(a2, out=o2)
    np.divide(o2, _row_sums(o2), out=o2)


def _row_sums(e):
    """The sums of the rows of ``e``, as a ``c x c`` product: already broadcast to its
    shape (Note [Tiny softmax]), or as a column for wider rows."""
    c = e.shape[1]
    if c <= _SQUARE:   # the method, not np.dot: no __array_function__ dispatcher (0.5 us)
        return e.dot(_ones((c, c), e))
    return e.dot(_ones(c, e))[:, None]


def _tiny_shifted(a2, o2, log):
    np.subtract(a2, np.maximum.reduce(a2, axis=1, keepdims=True), out=o2)
    if log:
        s = _row_sums(np.exp(o2))
        np.log(s, out=s)
        np.subtract(o2, s, out=o2)
    else:
        np.exp(o2, out=o2)
        np.divide(o2, _row_sums(o2), out=o2)


def _blocks(a2, o2, log):
    """Note [Softmax in one pass per row]: the rows of ``a2`` into ``o2`` (2-d, rows
    contiguous, the computation dtype), a block of rows at a time."""
    rows, c = a2.shape
    ones = _ones(c, o2)
    # rows of one element take the shift, torch's exact 1 and 0 (1 / low = 0 fails the check)
    low = c * _SUM_LOW[o2.itemsize] if c > 1 else _INF
    step = _BLOCK // c or 1
    if rows <= step:
        _block(a2, o2, log, ones, low)
        return
    for i in range(0, rows, step):
        _block(a2[i:i + step], o2[i:i + step], log, ones, low)


def _block(ab, ob, log, ones, low):
    if ab.dtype != ob.dtype:
        ab = ab.astype(ob.dtype)
    # exp first, unshifted, into the output: the pass that reads the block from memory
    # (Note [Softmax without the shift]); the row sums tell whether a shift is needed
    np.exp(ab, out=ob)
    s = np.dot(ob, ones)
    r = np.reciprocal(s)
    # every s in [low, inf): sum(r * (s + 1)) = rows + sum(r) is NaN for an s of 0, inf or
    # NaN, and at most 1 / low only if every r is (one product instead of two reductions)
    if np.dot(r, s + 1.0) <= 1.0 / low:
        if log:
            np.log(s, out=s)
            np.subtract(ab, s[:, None], out=ob)
        else:
            np.multiply(ob, r[:, None], out=ob)
    else:
        _shifted(ab, ob, log, ones)


def _shifted(ab, ob, log, ones):
    """A block of rows the way torch computes it: ``x - max`` first."""
    np.subtract(ab, np.maximum.reduce(ab, axis=1, keepdims=True), out=ob)
    if log:
        s = np.dot(np.exp(ob), ones)
        np.log(s, out=s)
        np.subtract(ob, s[:, None], out=ob)
    else:
        np.exp(ob, out=ob)
        s = np.dot(ob, ones)
        np.reciprocal(s, out=s)
        np.multiply(ob, s[:, None], out=ob)


def _along(arr, target, d, log):
    """Along dim ``d`` (not the last): the blocks' steps on the whole array seen as
    ``(outer, n, inner)``, the sums over ``n`` as one (batched) BLAS product."""
    shape = arr.shape
    n = shape[d]
    outer = math.prod(shape[:d])
    a3 = arr.reshape(outer, n, -1)
    o3 = target.reshape(outer, n, -1)
    np.exp(a3, out=o3)
    s = np.matmul(_ones(n, o3), o3)
    r = np.reciprocal(s)
    # as in _block; one element per slice takes the shift (torch's exact 1 and 0)
    if n > 1 and np.vdot(r, s + 1.0) <= 1.0 / (n * _SUM_LOW[o3.itemsize]):
        if log:
            np.log(s, out=s)
            np.subtract(a3, s[:, None], out=o3)
        else:
            np.multiply(o3, r[:, None], out=o3)
        return
    np.subtract(a3, np.maximum.reduce(a3, axis=1, keepdims=True), out=o3)
    if log:
        s = np.add.reduce(np.exp(o3), axis=1, keepdims=True)
        np.log(s, out=s)
        np.subtract(o3, s, out=o3)
    else:
        np.exp(o3, out=o3)
        s = np.add.reduce(o3, axis=1, keepdims=True)
        np.reciprocal(s, out=s)
        np.multiply(o3, s, out=o3)


def _quietly(fn, c, *args):
    """``fn(*args)`` without NumPy's floating-point warnings; rows of ``c`` elements."""
    if _EXTOBJ is None:
        with np.errstate(all="ignore"):
            return fn(*args)
    token = _EXTOBJ.set(_ROWS if c >= _ROW_BUFSIZE else _QUIET)
    try:
        return fn(*args)
    finally:
        _EXTOBJ.reset(token)


# -- the kernels ------------------------------------------------------------------------------

def _check_float(dtype, name) -> None:
    check(dtype.category >= dt.FLOAT and not dtype.is_complex,
          lambda: f'"{name}" not implemented for \'{dtype._scalar_name}\'', NotImplementedError)


def forward(self, dim, half_to_float, log, out=None):
    """``_softmax`` / ``_log_softmax`` (``log``), functional or into ``out``."""
    sizes = self._sizes
    dtype = self._dtype
    if ((dtype is _F32 or dtype is _F64) and out is None and self._device is CPU
            and sizes and not half_to_float and self._strides == contiguous_strides(sizes)):
        # the common case: a row-major float CPU tensor, its last dim, a fresh result
        ndim = len(sizes)
        n = sizes[0] * sizes[1] if ndim == 2 else numel_of(sizes)
        if (dim == -1 or dim == ndim - 1) and n:
            if empty is _EMPTY[0]:
                res, target = new_cpu_tensor(sizes, dtype, n * dtype.itemsize)
            else:   # explain is recording: its probe in place of empty shows the step
                res = empty(sizes, dtype, None, CPU)
                target = res._array()
            c = sizes[-1]
            arr = self._array()
            if ndim != 2:
                arr = arr.reshape(-1, c)
                target = target.reshape(-1, c)
            if n <= _SMALL:
                if not log and c <= _SQUARE and _vdot(arr, arr) < _NORM2:
                    # _tiny's unshifted softmax, inline (Note [Tiny softmax])
                    j = _squares[target.itemsize].get(c)
                    if j is None:
                        j = _ones((c, c), target)
                    np.exp(arr, out=target)
                    np.divide(target, target.dot(j), out=target)
                else:
                    _tiny(arr, target, log)
            else:
                _quietly(_blocks, c, arr, target, log)
            return res
    return _general(self, dim, half_to_float, log, out)


def _general(self, dim, half_to_float, log, out):
    name = "log_softmax" if log else "softmax"
    check(not half_to_float, "softmax with half to float conversion is not supported on CPU")
    ndim = len(self._sizes)
    d = maybe_wrap_dim(dim, ndim)
    src = self._dtype
    kernel = name + ("_lastdim_kernel_impl" if d == ndim - 1 or not ndim else "_kernel_impl")
    if numel_of(self._sizes):   # an empty input never reaches torch's dtype dispatch
        _check_float(src, kernel)
    if out is not None:
        check(out._dtype is src, lambda: (
            f"Expected out tensor to have dtype {_CPP_NAMES.get(src.name, src.name)}, but got "
            f"{_CPP_NAMES.get(out._dtype.name, out._dtype.name)} instead"))
    res = _alloc(self._sizes, src, self._device, out)
    if self._device.type == "meta" or not numel_of(self._sizes):
        return res
    acc = _acc(src)
    arr = self._array()
    if not ndim:
        _store(res, np.zeros((), acc) if log else np.ones((), acc))
        return res
    target = res._array()
    if target.dtype != acc or not target.flags.writeable or not target.flags.c_contiguous:
        target = np.empty(arr.shape, acc)
    if d == ndim - 1:
        c = arr.shape[-1]
        a2, o2 = arr.reshape(-1, c), target.reshape(-1, c)
        if a2.size <= _SMALL and a2.dtype == acc:
            _tiny(a2, o2, log)
        else:
            _quietly(_blocks, c, a2, o2, log)
    else:
        if arr.dtype != acc:
            arr = arr.astype(acc)
        _quietly(_along, 0, arr, target, d, log)
    if target is not res._array():
        _store(res, target)
    return res


def _acc(dtype):
    return np.dtype(np.float32) if dtype in _LOW else dtype.np


def _alloc(shape, dtype, device, out=None):
    if out is None:
        return empty(tuple(shape), dtype, device=device)
    resize_output(out, tuple(shape))
    return out


def _store(res, value) -> None:
    arr = res._array()
    if not arr.ndim:
        arr[()] = np.reshape(value, ())
        return
    np.copyto(arr, np.asarray(value).reshape(arr.shape), casting="unsafe")


# -- backward ---------------------------------------------------------------------------------

def _bw_block(g, y, t, log, sums):
    if log:                                         # g - exp(y) * sum(g)
        s = sums(g)
        np.exp(y, out=t)
        np.multiply(t, s, out=t)
        np.subtract(g, t, out=t)
    else:                                           # y * (g - sum(g * y))
        np.multiply(g, y, out=t)
        s = sums(t)
        np.subtract(g, s, out=t)
        np.multiply(t, y, out=t)


def _bw_rows(g2, y2, t2, log):
    """The backward kernels over rows (2-d), a block of rows at a time as the forward; tiny
    inputs sum through the ``c x c`` product (Note [Tiny softmax])."""
    rows, c = y2.shape
    if rows * c <= _SMALL:
        _bw_block(g2, y2, t2, log, _row_sums)
        return
    ones = _ones(c, t2)
    step = max(1, _BLOCK // max(c, 1))

    def sums(a):
        return np.dot(a, ones)[:, None]
    for i in range(0, rows, step):
        _bw_block(g2[i:i + step], y2[i:i + step], t2[i:i + step], log, sums)


def _bw_last_dim(g, y, t, log):
    c = y.shape[-1]
    _bw_rows(g.reshape(-1, c), y.reshape(-1, c), t.reshape(-1, c), log)


def _bw_along(g, y, t, d, log):
    _bw_block(g, y, t, log, lambda a: np.add.reduce(a, axis=d, keepdims=True))


def backward(grad_output, output, dim, input_dtype, log, out=None):
    """``_softmax_backward_data`` / ``_log_softmax_backward_data`` (``log``)."""
    sizes = output._sizes
    dtype = output._dtype
    if ((dtype is _F32 or dtype is _F64) and out is None and output._device is CPU
            and grad_output._dtype is dtype and grad_output._device is CPU and sizes
            and grad_output._sizes == sizes and empty is _EMPTY[0]):
        # the common case (as the forward's): row-major float CPU tensors, the last dim
        strides = contiguous_strides(sizes)
        ndim = len(sizes)
        n = numel_of(sizes)
        if (output._strides == strides and grad_output._strides == strides and n
                and (dim == -1 or dim == ndim - 1)):
            res, t = new_cpu_tensor(sizes, dtype, n * dtype.itemsize)
            c = sizes[-1]
            g = grad_output._array()
            y = output._array()
            if ndim != 2:
                g, y, t = g.reshape(-1, c), y.reshape(-1, c), t.reshape(-1, c)
            _quietly(_bw_rows, c, g, y, t, log)
            return res
    return _bw_general(grad_output, output, dim, log, out)


def _bw_general(grad_output, output, dim, log, out):
    ndim = len(output._sizes)
    d = maybe_wrap_dim(dim, ndim)
    check(grad_output._sizes == output._sizes, lambda: (
        f"grad_output and output must have the same shape, got {list(grad_output._sizes)} "
        f"and {list(output._sizes)}"))
    dtype = output._dtype
    res = _alloc(output._sizes, dtype, output._device, out)
    if output._device.type == "meta" or not numel_of(output._sizes):
        return res
    acc = _acc(dtype)
    g = grad_output._array()
    y = output._array()
    if g.dtype != acc:
        g = g.astype(acc)
    if y.dtype != acc:
        y = y.astype(acc)
    target = res._array()
    if target.dtype != acc or not target.flags.writeable or not target.flags.c_contiguous:
        target = np.empty(y.shape, acc)
    if not ndim:
        _store(res, g - np.exp(y) * g if log else g - g * y)
        return res
    if d == ndim - 1:
        _quietly(_bw_last_dim, y.shape[-1], g, y, target, log)
    else:
        _quietly(_bw_along, 0, g, y, target, d, log)
    if target is not res._array():
        _store(res, target)
    return res


# -- softmax.int / log_softmax.int ------------------------------------------------------------
# torch casts to ``dtype`` first (ToCopyBackward0 in the graph) and then calls
# _softmax(converted, dim, False); the handle is called with the tensor's own key set, as the
# dispatcher's own computation from the arguments would give.

_forward_handles: list = []    # [(handle, its CPU kernel)] for _softmax and _log_softmax


def _forward_handle(log):
    if not _forward_handles:
        for name in ("aten::_softmax", "aten::_log_softmax"):
            h = get_op(name)
            _forward_handles.append((h, h.kernels[DispatchKey.CPU][-1]))
    return _forward_handles[log]


def composite(self, dim, dtype, log, out=None):
    if dtype is not None and dtype is not self._dtype:
        self = self.to(dtype)
    if out is None:
        # Note [Tiny softmax]: the handle's own table lookup, without its call; the kernel
        # registered for CPU is this module's forward, called at once
        h, cpu_kernel = _forward_handle(log)
        if OperatorHandle.call is _PLAIN_CALL:
            fn = h.table[(self._keyset & h.mask).bit_length()]
            if fn is cpu_kernel:
                return forward(self, dim, False, log)
            return fn(self, dim, False)
        return h.call(self._keyset, self, dim, False)
    handle = get_op("aten::_log_softmax.out" if log else "aten::_softmax.out")
    return handle.call(self._keyset | out._keyset, self, dim, False, out)
