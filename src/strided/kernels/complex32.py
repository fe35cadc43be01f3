"""complex32 (torch's ComplexHalf) for the NumPy kernels: reading as complex64, storing back.

Note [complex32]
~~~~~~~~~~~~~~~~
NumPy has no complex type with float16 parts. A complex32 tensor's elements are stored as
a structured NumPy dtype of two float16 fields (``dtypes.COMPLEX32_NP``, 4 bytes), so the
tensor's bytes are torch's (interleaved real, imaginary halves), and views, strides, storage
offsets, ``view_as_real`` and the kernels that only move elements (copies of one dtype,
``cat``, indexing, ``where``...) work on it unchanged.

Kernels that compute do it the way torch's ``c10::complex<Half>`` does: each operation
widens its operands to complex64 (exactly), computes there, and rounds each part back to
float16 on store (round to nearest even). So a chain of operations rounds after each one:
``add(a, b, alpha=s)`` is ``a + round(s * b)``, and a Python number meeting a complex32
operand is rounded to complex32 first. Conversions into complex32 go through complex64 (and
float32), as torch's ``static_cast`` chain does: a float64 is rounded to float32, then to
float16.

``widen`` / ``store`` are the two primitives; ``copy.copy_array`` and the elementwise
engine call them whenever an array has the complex32 dtype, so kernels keep seeing NumPy
dtypes they know.
"""

from __future__ import annotations

import numpy as np

from ..core.dtypes import COMPLEX32_NP
from ..core.dtypes import complex32 as _COMPLEX32

_C64 = np.dtype(np.complex64)
_F32 = np.dtype(np.float32)
_F16 = np.dtype(np.float16)


def is_c32(arr) -> bool:
    return getattr(arr, "dtype", None) == COMPLEX32_NP


def widen(arr: np.ndarray) -> np.ndarray:
    """A complex32 array as a new complex64 array (exact; a signalling NaN comes back quiet,
    as the hardware conversion torch uses gives it)."""
    out = np.empty(arr.shape, _C64)
    if out.size:
        out.real[...] = arr["real"]
        out.imag[...] = arr["imag"]
        f = out.reshape(-1).view(np.float32)
        nan = np.isnan(f)
        if nan.any():
            f.view(np.uint32)[nan] |= 0x00400000
    return out


def narrow(value) -> np.ndarray:
    """Any numeric array or number as complex64 holding the complex32 values torch would
    store: each part rounded to float16 (through float32, as torch converts)."""
    value = np.asarray(value)
    if is_c32(value):
        return widen(value)
    with np.errstate(all="ignore"):
        if value.dtype.kind == "c":
            c = value.astype(_C64)
        else:
            c = value.astype(_F32).astype(_C64)
        out = np.empty(c.shape, _C64)
        out.real[...] = c.real.astype(_F16)
        out.imag[...] = c.imag.astype(_F16)
    return out


def store(dst: np.ndarray, src) -> None:
    """``dst[...] = src`` for a complex32 ``dst``: ``src`` (any numeric array or number,
    broadcast to ``dst``) rounded part by part (Note [complex32])."""
    src = np.asarray(src)
    if is_c32(src):
        np.copyto(dst, src)
        return
    with np.errstate(all="ignore"):
        if src.dtype.kind == "c":
            c = src.astype(_C64) if src.dtype != _C64 else src
            real, imag = c.real, c.imag
        else:
            real = src.astype(_F32) if src.dtype != _F32 else src
            imag = 0
        dst["real"][...] = real
        dst["imag"][...] = imag
    _quiet_nans(dst)


def _quiet_nans(dst) -> None:
    """torch's float16 <-> float32 conversions (the hardware's) quiet a signalling NaN;
    NumPy's keep it: set the quiet bit of every NaN part stored."""
    quiet_nans(dst["real"])
    quiet_nans(dst["imag"])


def quiet_nans(part) -> None:
    """Set the quiet bit of the NaNs of a float16 array (or field view) in place."""
    if True:
        nan = np.isnan(part)
        if nan.any():
            bits = part.view(np.uint16) if part.flags.c_contiguous or part.ndim == 0 else None
            if bits is not None:
                bits[nan] |= 0x0200
            else:       # a strided field view: go through a copy
                b = np.ascontiguousarray(part).view(np.uint16)
                b[nan] |= 0x0200
                part[...] = b.view(np.float16)


def scalar(value) -> np.complex64:
    """A Python number as the complex32 value torch converts it to, held as complex64."""
    return np.complex64(narrow(complex(value))[()])


_WARNED = [False]


def warn_experimental() -> None:
    """torch warns once per process when it first allocates a complex32 tensor."""
    if not _WARNED[0]:
        _WARNED[0] = True
        import warnings
        warnings.warn("ComplexHalf support is experimental and many operators don't support it "
                      "yet.", UserWarning, stacklevel=2)


def numeric(arr):
    """``arr`` ready for NumPy arithmetic: a complex32 array widened to complex64, any other
    array (or number) unchanged."""
    return widen(arr) if is_c32(arr) else arr


def magnitude(arr) -> np.ndarray:
    """``abs`` of an array; complex32 as torch computes it: hypotf of the float32 parts."""
    if is_c32(arr):
        c = widen(arr)
        return np.hypot(c.real, c.imag)
    return np.abs(arr)


def ufunc_at(ufunc, flat: np.ndarray, offsets: np.ndarray, values) -> None:
    """``ufunc.at(flat, offsets, values)`` for a 1-D complex32 ``flat``: torch's loops apply
    the op element by element in index order, rounding after each, so repeated offsets are
    done in rounds (the k-th occurrence of every offset in round k)."""
    offsets = np.asarray(offsets, np.int64)
    vals = narrow(np.broadcast_to(numeric(np.asarray(values)), offsets.shape)).reshape(-1)
    offsets = offsets.reshape(-1)
    if not offsets.size:
        return
    order = np.argsort(offsets, kind="stable")
    ranked = offsets[order]
    starts = np.flatnonzero(np.r_[True, ranked[1:] != ranked[:-1]])
    lengths = np.diff(np.r_[starts, ranked.size])
    rank = np.arange(ranked.size) - np.repeat(starts, lengths)
    for r in range(int(rank.max()) + 1):
        pick = order[rank == r]
        at = offsets[pick]
        cur = widen(flat[at])
        with np.errstate(all="ignore"):
            res = ufunc(cur, vals[pick])
        out = np.empty(at.shape, COMPLEX32_NP)
        store(out, res)
        flat[at] = out


def truth(arr):
    """``arr`` where NumPy reads truth values: a complex32 array as "either part nonzero"."""
    if is_c32(arr):
        return (arr["real"] != 0) | (arr["imag"] != 0)
    return arr


def castable(arr, dst_dtype: np.dtype):
    """``arr`` in a form NumPy can cast (``copyto``, ``concatenate``) into ``dst_dtype``: a
    complex32 array widened for any other dtype, any array stored as complex32 (rounded)
    for a complex32 destination."""
    if dst_dtype == COMPLEX32_NP:
        if is_c32(arr):
            return arr
        out = np.empty(np.shape(arr), COMPLEX32_NP)
        store(out, arr)
        return out
    return widen(arr) if is_c32(arr) else arr


# Note [complex32 refusals]
# torch's CPU kernels dispatch on a list of dtypes that mostly leaves ComplexHalf out; a
# complex32 input then raises NotImplementedError naming the kernel. Kernels of the ops
# below (by aten name, "name.overload" before "name") are wrapped at registration
# (ops/registry.py) to raise torch's error for a complex32 tensor argument off the meta
# device; the elementwise table refuses through its dtype sets instead, and the reductions
# (sum, mean, prod, logsumexp, cumsum, cumprod, amax, amin, max(), min()) refuse in their own
# kernels, by the dtype they compute in (torch's rule: a complex32 sum into a complex64
# ``dtype=``/``out=`` computes; Note [The reduction fast path] in kernels/reduction.py).
REFUSED = {
    "trace": "trace", "dot": "dot", "vdot": "vdot",
    "mm": "addmm_impl_cpu_", "addmm": "addmm_impl_cpu_", "addmm_": "addmm_impl_cpu_",
    "addbmm": "addmm_impl_cpu_", "addbmm_": "addmm_impl_cpu_", "addmv": "addmv_impl_cpu",
    "addmv_": "addmv_impl_cpu", "mv": "addmv_impl_cpu", "bmm": "bmm", "baddbmm": "baddbmm",
    "baddbmm_": "baddbmm", "addr": "addr_cpu", "addr_": "addr_cpu",
    "addcdiv": "addcdiv_cpu_out", "addcdiv_": "addcdiv_cpu_out", "linalg_cross": "cross",
    "equal": "equal_notnan_cpu", "flip": lambda args: _flip_refusal(args[0], args[1]),
    "rot90": lambda args: _rot90_refusal(*args), "masked_scatter": "masked_scatter",
    "masked_scatter_": "masked_scatter", "gather": "scatter_gather_tensor_cpu",
    "scatter": "scatter_gather_tensor_cpu", "scatter_": "scatter_gather_tensor_cpu",
    "scatter.value": "scatter_gather_scalar_cpu", "scatter_.value": "scatter_gather_scalar_cpu",
    "scatter.value_out": "scatter_gather_scalar_cpu",
    "scatter.value_reduce": "scatter_gather_scalar_cpu",
    "scatter_.value_reduce": "scatter_gather_scalar_cpu",
    "scatter.value_reduce_out": "scatter_gather_scalar_cpu",
    "scatter_add": "scatter_gather_tensor_cpu", "scatter_add_": "scatter_gather_tensor_cpu",
    "scatter_reduce": "scatter_gather_tensor_cpu", "scatter_reduce_": "scatter_gather_tensor_cpu",
    "take": "take_cpu", "put": "take_put_cpu", "put_": "take_put_cpu", "eye": "eye",
    "angle": "angle_cpu", "reflection_pad1d": "reflection_pad1d",
    "reflection_pad2d": "reflection_pad2d", "reflection_pad3d": "reflection_pad3d",
    "replication_pad1d": "replication_pad1d", "replication_pad2d": "replication_pad2d",
    "replication_pad3d": "replication_pad3d", "im2col": "im2col_out_cpu",
    "pixel_shuffle": "pixel_shuffle", "pixel_unshuffle": "pixel_unshuffle",
    "channel_shuffle": "channel_shuffle", "cholesky": "cholesky_cpu",
    "linalg_cholesky_ex": "cholesky_cpu", "linalg_eig": "linalg_eig_out_cpu",
    "linalg_eigh": "linalg_eigh_cpu", "linalg_svd": "linalg_svd_cpu", "geqrf": "geqrf_cpu",
    "linalg_qr": "geqrf_cpu", "linalg_lu_factor_ex": "lu_cpu",
    "linalg_lu_solve": "linalg.lu_solve_cpu", "linalg_ldl_factor_ex": "ldl_factor_kernel_cpu",
    "linalg_ldl_solve": "ldl_solve_kernel_cpu", "arange": "arange_cpu",
    "linspace": "linspace_cpu", "logspace": "logspace_cpu", "_unique2": "unique",
    "unique_consecutive": "unique", "unique_dim": "unique_dim",
    "lerp.Scalar": "lerp_kernel_scalar", "lerp_.Scalar": "lerp_kernel_scalar",
    "lerp.Scalar_out": "lerp_kernel_scalar", "lerp": "lerp_kernel_tensor",
    "lerp_": "lerp_kernel_tensor", "bernoulli": "bernoulli_tensor_cpu_self_",
    "bernoulli_.Tensor": "bernoulli_tensor_cpu_self_", "bernoulli_": "bernoulli_scalar_cpu_",
    "bernoulli.p": "bernoulli_scalar_cpu_", "nan_to_num": "nan_to_num",
    "nan_to_num_": "nan_to_num", "rms_norm": "rms_norm", "cummax": "cummax_cpu",
    "cummin": "cummin_cpu", "median": "median_cpu", "median.dim": "median_out",
    "median.dim_values": "median_out", "nanmedian": "median_cpu", "mode": "mode_cpu",
    "histc": "aminmax_cpu", "aminmax": "aminmax_cpu", "cross": "cross", "qr": "geqrf_cpu",
    "einsum": "sum_cpu", "take_along_dim": "scatter_gather_tensor_cpu", "inner": "dot",
    "tensordot": "addmm_impl_cpu_", "linalg_cholesky": "cholesky_cpu",
    "linalg_eigvals": "linalg_eig_out_cpu", "linalg_eigvalsh": "linalg_eigh_cpu",
    "linalg_svdvals": "linalg_svd_cpu", "linalg_cond": "linalg_svd_cpu",
    "linalg_matrix_power": "eye", "matrix_power": "eye", "linalg_multi_dot": "addmm_impl_cpu_",
    "linalg_solve": "lu_cpu", "linalg_solve_ex": "lu_cpu", "linalg_tensorsolve": "lu_cpu",
    "matrix_exp": "bmm", "lu_unpack": "scatter_gather_scalar_cpu", "linalg_det": "lu_cpu",
    "det": "lu_cpu", "svd": "linalg_svd_cpu",
    "linalg_vecdot": "vdot",
    "pinverse": lambda args: (RuntimeError, (
        f"linalg.pinv(ComplexHalf{{{list(args[0]._sizes)}}}): expected a tensor with 2 or "
        "more dimensions of float, double, cfloat or cdouble types")),
    "linalg_pinv": lambda args: (RuntimeError, (
        f"linalg.pinv(ComplexHalf{{{list(args[0]._sizes)}}}): expected a tensor with 2 or "
        "more dimensions of float, double, cfloat or cdouble types")),
    # (RuntimeErrors of torch's linalg dtype checks)
    "logdet": (RuntimeError, "logdet: Low precision dtypes not supported. Got ComplexHalf"),
    "linalg_slogdet": (RuntimeError, "linalg.slogdet: Low precision dtypes not supported. Got "
                                     "ComplexHalf"),
    "slogdet": (RuntimeError, "linalg.slogdet: Low precision dtypes not supported. Got "
                              "ComplexHalf"),
    **{name: (RuntimeError, "linalg.inv: Low precision dtypes not supported. Got ComplexHalf")
       for name in ("linalg_inv", "linalg_inv_ex", "inverse", "linalg_tensorinv")},
    **{name: (RuntimeError, "This function doesn't handle types other than float and double")
       for name in ("linalg_lstsq", "linalg_matrix_rank")},
}


# (max.dim, min.dim... refuse every complex input with their own RuntimeError)
_EXACT = frozenset(("max", "min"))


# ops whose TensorIterator dispatches on the dtype even with no elements; the other kernels
# return early for empty inputs, before their dtype dispatch
_EVEN_EMPTY = frozenset(("angle", "lerp", "lerp_", "addcdiv", "addcdiv_", "nan_to_num",
                         "nan_to_num_", "im2col", "linalg_vecdot"))


def _has_c32(args, kwargs, empty_too=True) -> bool:
    """A complex32 tensor off the meta device (with elements, unless ``empty_too``), or
    ``dtype=complex32`` (factories, sum's dtype) with no meta device named."""
    # (this guard runs on every call of a guarded kernel: plain numbers and None are
    # skipped before any attribute lookup, and no import statement runs per call)
    complex32 = _COMPLEX32
    dtype_asked = False
    for a in (*args, *kwargs.values()) if kwargs else args:
        cls = a.__class__
        if cls is int or cls is bool or cls is float or a is None:
            continue
        if a is complex32:
            dtype_asked = True
        elif getattr(a, "_dtype", None) is complex32 and a._device.type != "meta":
            if empty_too or 0 not in a._sizes:
                return True
        elif (cls is list or cls is tuple) and _has_c32(a, {}, empty_too):   # (TensorLists)
            return True
    if dtype_asked:
        device = kwargs.get("device")
        return getattr(device, "type", device) != "meta"
    return False


def _swap_c32(value, to_wide: bool):
    """Tensors (nested in lists and tuples) converted complex32 -> complex64 (``to_wide``),
    or complex64 -> complex32 and float32 -> float16 back."""
    from ..core import dtypes as dt
    from .factory import to_copy
    d = getattr(value, "_dtype", None)
    if d is not None:
        if to_wide:
            return to_copy(value, dt.complex64) if d is dt.complex32 else value
        if d is dt.complex64:
            return to_copy(value, dt.complex32)
        return to_copy(value, dt.float16) if d is dt.float32 else value
    if type(value) in (list, tuple):
        return type(value)(_swap_c32(v, to_wide) for v in value)
    if isinstance(value, tuple) and hasattr(value, "_fields"):    # torch.return_types
        return type(value)(*(_swap_c32(v, to_wide) for v in value))
    return value


def _empty_call(name, fn, args, kwargs):
    """A refused op on complex32 inputs that are all empty: torch's kernel returns before its
    dtype dispatch, so the result is computed in complex64 and narrowed (no element
    rounds). ``mean`` still divides, and its division refuses."""
    if name == "mean":
        raise NotImplementedError("\"div_cpu\" not implemented for 'ComplexHalf'")
    if any(getattr(a, "_dtype", None) is not None and a is kwargs.get("out") for a in
           kwargs.values()):
        return fn(*args, **kwargs)
    wide = fn(*_swap_c32(args, True), **_swap_c32(kwargs, True))
    return _swap_c32(wide, False)


_FLIP_ERROR = (NotImplementedError, "\"flip_cpu\" not implemented for 'ComplexHalf'")


def _flip_refusal(t, dims):
    """torch's flip reaches its dtype dispatch only when a flipped dim is the innermost one of
    its iteration (the smallest stride among dims of size > 1); otherwise it moves bytes."""
    from ..core.checks import maybe_wrap_dim
    if 0 in t._sizes:
        return None
    nd = len(t._sizes)
    flipped = {maybe_wrap_dim(d, max(nd, 1)) for d in dims}
    big = [d for d in range(nd) if t._sizes[d] > 1]
    if not big:
        return _FLIP_ERROR if nd == 0 and flipped else None
    inner = min(big, key=lambda d: (abs(t._strides[d]), -d))
    return _FLIP_ERROR if inner in flipped else None


def _rot90_refusal(t, k=1, dims=(0, 1)):
    """rot90 is flips and a transpose in torch: its error is the flip's."""
    if len(dims) != 2:
        return None
    k %= 4
    flipped = {1: (dims[1],), 2: tuple(dims), 3: (dims[0],)}.get(k)
    return None if flipped is None else _flip_refusal(t, flipped)


def _matmul_kernel_name(args) -> str:
    """The kernel torch's matmul reaches first for these operand ranks (dot, mv, mm, bmm)."""
    a, b = args[0], args[1]
    da, db = len(a._sizes), len(b._sizes)
    if da == 1 and db == 1:
        return "dot"
    if da == 2 and db == 1:
        return "addmv_impl_cpu"
    if db <= 2:
        return "addmm_impl_cpu_"
    return "bmm"


# Note [The complex32 probe]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~
# The guards below wrap the kernels of sum, mean, max, mm... and run on every call, so the
# common case (no complex32 anywhere) must cost next to nothing. Each guard gets a probe
# built once from its op's schema: one expression reading only the arguments that can hold
# a complex32 tensor or the complex32 dtype (a ``Tensor`` and the ``out`` tensor by their
# ``_dtype``, a ``Tensor?`` unless None, a ``Tensor[]`` element by element, a
# ``ScalarType?`` by identity, a ``Scalar`` that is not a plain number), the dispatcher
# passing every argument positionally. ``sum(Tensor self, *, ScalarType? dtype)`` probes
# ``a0._dtype is C32 or a1 is C32``. Only when the probe finds one (or the call
# is unusual: keywords, another argument count, an argument of the wrong kind) does the
# exact scan ``_has_c32`` decide, so the probe only has to never miss what the scan finds.

_PLAIN = frozenset((int, float, bool, complex, type(None)))


def _list_has_c32(values) -> bool:
    return any(getattr(v, "_dtype", None) is _COMPLEX32 for v in values)


def _schema_arguments(schema_text: str):
    from ..ops.schema import FunctionSchema
    try:
        return FunctionSchema.parse(schema_text).arguments.flat_all
    except Exception:       # (a schema the parser refuses: the exact scan always)
        return None


def _probe_expression(arguments) -> str:
    """The probe of an op's arguments (read from its schema), as a Python expression over
    ``a0, a1, ...`` (Note [The complex32 probe])."""
    terms = []
    for i, arg in enumerate(arguments):
        kind, x = arg.type, f"a{i}"
        root = kind.root.name
        if root == "Tensor" and kind.is_list():
            terms.append(f"_list_has_c32({x})")
        elif root == "Tensor" and kind.is_optional():
            terms.append(f"({x} is not None and {x}._dtype is C32)")
        elif root == "Tensor":
            terms.append(f"{x}._dtype is C32")
        elif root == "ScalarType":
            terms.append(f"{x} is C32")
        elif root == "Scalar":     # (a number; a tensor only if some caller passes one)
            terms.append(f"({x}.__class__ not in _PLAIN and "
                         f"getattr({x}, '_dtype', None) is C32)")
    return " or ".join(terms) or "False"


# The wrapper takes the schema's arguments by position (``a0, a1, ...``: the dispatcher
# passes them so), which is cheaper than packing ``*args``; a call with fewer or more
# arguments, or with keywords, goes to the exact scan with the arguments it was given.
_PROBED = """
def guarded({params}*rest, **kwargs):
    if not rest and not kwargs and {last} is not _NO:
        try:
            clear = not ({probe})
        except (AttributeError, TypeError, IndexError):
            clear = False
        if clear:
            return fn({names})
    return exact(tuple(a for a in ({names}{comma}) if a is not _NO) + rest, kwargs)
"""
_NO = object()     # (an argument not given)


def _probed(fn, exact, schema_text):
    """``fn`` behind the probe of its schema; ``exact(args, kwargs)`` (the scan, then the
    refusal or the call) takes every call the probe does not clear."""
    arguments = None if schema_text is None else _schema_arguments(schema_text)
    if not arguments:
        def guarded(*args, **kwargs):
            return exact(args, kwargs)
    else:
        names = ", ".join(f"a{i}" for i in range(len(arguments)))
        source = _PROBED.format(params="".join(f"a{i}=_NO, " for i in range(len(arguments))),
                                last=f"a{len(arguments) - 1}", names=names,
                                comma="," if len(arguments) == 1 else "",
                                probe=_probe_expression(arguments))
        scope = {"C32": _COMPLEX32, "_PLAIN": _PLAIN, "_list_has_c32": _list_has_c32,
                 "fn": fn, "exact": exact, "_NO": _NO}
        exec(source, scope)
        guarded = scope["guarded"]
    guarded.__name__ = getattr(fn, "__name__", "guarded")
    guarded.__wrapped__ = fn
    return guarded


def guard(qualname: str, fn, schema_text: str | None = None):
    """``fn`` itself, or for an op of ``REFUSED`` a wrapper raising torch's error first
    (Note [complex32 refusals]); ``schema_text`` gives the wrapper its probe (Note [The
    complex32 probe])."""
    name = qualname.split("::", 1)[-1]
    if name.split(".", 1)[0] == "matmul":
        def exact_matmul(args, kwargs):
            if _has_c32(args, kwargs, False):
                raise NotImplementedError(f"\"{_matmul_kernel_name(args)}\" not implemented "
                                          "for 'ComplexHalf'")
            if _has_c32(args, kwargs):
                return _empty_call(name, fn, args, kwargs)
            return fn(*args, **kwargs)
        return _probed(fn, exact_matmul, schema_text)
    kernel_name = REFUSED.get(name)
    if kernel_name is None and "." in name and name.split(".", 1)[0] not in _EXACT:
        kernel_name = REFUSED.get(name.split(".", 1)[0])
    if kernel_name is None:
        return fn
    if callable(kernel_name):     # the error (or none) depends on the arguments
        def exact_call(args, kwargs):
            if _has_c32(args, kwargs):
                refusal = kernel_name(args)
                if refusal is not None:
                    raise refusal[0](refusal[1])
            return fn(*args, **kwargs)
        return _probed(fn, exact_call, schema_text)
    empty_too = True
    if isinstance(kernel_name, tuple):
        error, message = kernel_name
    else:
        error, message = NotImplementedError, f"\"{kernel_name}\" not implemented for 'ComplexHalf'"
        empty_too = name.split(".", 1)[0] in _EVEN_EMPTY

    base = name.split(".", 1)[0]

    def exact(args, kwargs):
        if _has_c32(args, kwargs, empty_too):
            raise error(message)
        if not empty_too and _has_c32(args, kwargs):
            return _empty_call(base, fn, args, kwargs)
        return fn(*args, **kwargs)
    return _probed(fn, exact, schema_text)
