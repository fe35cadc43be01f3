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

_C64 = np.dtype(np.complex64)
_F32 = np.dtype(np.float32)
_F16 = np.dtype(np.float16)


def is_c32(arr) -> bool:
    return getattr(arr, "dtype", None) == COMPLEX32_NP


def widen(arr: np.ndarray) -> np.ndarray:
    """A complex32 array as a new complex64 array (exact)."""
    out = np.empty(arr.shape, _C64)
    if out.size:
        out.real[...] = arr["real"]
        out.imag[...] = arr["imag"]
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
