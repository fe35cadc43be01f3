"""Sorting and order statistics against torch: sort / argsort / msort, topk, kthvalue,
median / nanmedian, mode, quantile / nanquantile, cummax / cummin, aminmax.

Each recipe runs with ``m = strided`` and ``m = torch`` and must agree on everything
observable: the named-tuple type and its fields, each tensor's values (exactly, NaN included),
dtype, shape, strides and storage offset, the warnings, and when torch raises, the exception
type and message.

Ties: torch breaks ties deterministically in ``sort(stable=True)``, ``argsort(stable=True)``,
``median``/``nanmedian`` (by index), ``cummax``/``cummin`` and ``mode`` on rows of at most
16 elements, and so does strided; those recipes use inputs full of ties and NaNs. Elsewhere
torch's index for tied values comes out of its introsort / nth_element / partial_sort /
x86-simd-sort and cannot be predicted in general (Note [Which index for ties] in
kernels/sorting.py), so ``topk``, ``kthvalue`` and ``sort(stable=False)`` on rows longer
than 16 are tested on inputs without ties (at most one NaN per row).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from conftest import _run, assert_same, assert_same_warnings, hyp
from hypothesis import given
from hypothesis import strategies as st

import strided

RNG = np.random.default_rng(1234)

SORT_DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "uint16", "uint32",
               "uint64", "float16", "bfloat16", "float32", "float64"]
NUMERIC = ["uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
           "float64"]
FLOATS = ["float16", "bfloat16", "float32", "float64"]
REJECTED = ["bool", "uint16", "uint32", "uint64", "complex64", "complex128"]


# ------------------------------------------------------------------ helpers

def T(m, arr, dtype=None):
    t = m.from_numpy(np.array(arr, copy=True))
    return t if dtype is None else t.to(getattr(m, dtype))


def _same(rs, rt):
    if isinstance(rt, torch.Tensor):
        assert_same(rs, rt)
    elif isinstance(rt, tuple) and hasattr(type(rt), "n_fields"):
        # torch.return_types.<name>: same class name and fields, element by element
        assert type(rs).__name__ == type(rt).__name__, (type(rs), type(rt))
        assert type(rs).__module__ == "strided.return_types"
        fields = type(rs)._field_names
        assert len(rs) == len(rt) == type(rt).n_fields
        for k, name in enumerate(fields):
            _same(getattr(rs, name), getattr(rt, name))
            _same(rs[k], rt[k])
    elif isinstance(rt, (tuple, list)):
        assert type(rs) is type(rt) and len(rs) == len(rt)
        for a, b in zip(rs, rt):
            _same(a, b)
    else:
        assert rs == rt, (rs, rt)


def compare(recipe, *, first_line=False):
    """recipe(strided) and recipe(torch): same results and warnings, or the same error."""
    rt, et, wt = _run(lambda: recipe(torch))
    rs, es, ws = _run(lambda: recipe(strided))
    if et is not None:
        assert es is not None, f"strided did not raise; torch raised {type(et).__name__}: {et}"
        assert type(es) is type(et), (f"strided {type(es).__name__}: {es}\n"
                                      f"torch {type(et).__name__}: {et}")
        ms, mt = str(es), str(et)
        if first_line:
            ms, mt = ms.split("\n")[0], mt.split("\n")[0]
        assert ms == mt, f"message differs:\nstrided: {ms!r}\ntorch:   {mt!r}"
        return
    if es is not None:
        raise AssertionError(f"strided raised but torch did not: {type(es).__name__}: {es}") \
            from es
    _same(rs, rt)
    assert_same_warnings(ws, wt)


def ties(shape, dtype, nan=True):
    """Values full of ties (and, for floats, NaN, infinities and signed zeros)."""
    if dtype == "bool":
        return RNG.random(shape) > 0.5
    if dtype.startswith("float"):
        pool = [0.0, -0.0, 1.0, 2.0, -1.5, np.inf, -np.inf] + ([np.nan] if nan else [])
        return RNG.choice(pool, shape)
    return RNG.integers(0, 4, shape)


def distinct(shape, dtype, nan=False):
    """All values distinct; with ``nan`` a 2-d array gets one NaN in some rows and columns,
    never two in one row or column."""
    n = int(np.prod(shape))
    arr = RNG.permutation(n).reshape(shape).astype(np.float64)
    if dtype == "bfloat16" and n > 256:
        # 8 significant bits: 128..255 times a power of two keeps every value distinct
        arr = (128 + arr % 128) * 2.0 ** (arr // 128)
    if dtype in ("int8", "int16", "int32", "int64") or dtype.startswith("float"):
        arr -= n // 2 if dtype != "bfloat16" or n <= 256 else 0
    if nan and dtype.startswith("float") and len(shape) == 2:
        for i in range(0, min(shape), 2):
            arr[i, i] = np.nan
    return arr


def _check_meta(recipe):
    """A meta input gives the shapes, strides and dtypes of torch's CPU result, and no data.
    (torch's own meta kernels are not the oracle here: some run Python decompositions whose
    checks read data, and fail on meta where the CPU kernel succeeds.)"""
    rt = recipe(torch, "cpu")
    rs = recipe(strided, "meta")

    def walk(a, b):
        if isinstance(b, torch.Tensor):
            assert a.device.type == "meta"
            assert tuple(a.shape) == tuple(b.shape) and a.stride() == b.stride()
            assert str(a.dtype) == str(b.dtype)
        else:
            assert type(a).__name__ == type(b).__name__
            for x, y in zip(a, b):
                walk(x, y)
    walk(rs, rt)


# ------------------------------------------------------------------ sort / argsort / msort

SORT_INPUTS = [(), (0,), (5,), (2, 0, 3), (3, 7), (2, 3, 4)]


# torch sorts int32/int64/float32/float64 with x86-simd-sort when stable=False, whose tie
# order depends on the CPU's vector width; the other dtypes go through std::sort, an
# insertion sort (so stable) on rows of up to 16 elements.
XSS_DTYPES = ("int32", "int64", "float32", "float64")


@pytest.mark.parametrize("dtype", SORT_DTYPES)
@pytest.mark.parametrize("shape", SORT_INPUTS)
def test_sort_with_ties_and_nans(dtype, shape):
    # every dim is at most 16 long: stable sorts are exact with ties everywhere, unstable
    # ones too except for the x86-simd-sort dtypes, where the unstable recipes check the
    # values and that the indices gather them (ties in any order)
    arr = ties(shape, dtype)
    exact = dtype not in XSS_DTYPES
    for d in range(-max(len(shape), 1), max(len(shape), 1)):
        for desc in (False, True):
            compare(lambda m, d=d, desc=desc: m.sort(T(m, arr, dtype), stable=True, dim=d,
                                                      descending=desc))
            compare(lambda m, d=d, desc=desc: m.argsort(T(m, arr, dtype), stable=True,
                                                         dim=d, descending=desc))
            if exact:
                compare(lambda m, d=d, desc=desc: T(m, arr, dtype).sort(d, desc))
                compare(lambda m, d=d, desc=desc: T(m, arr, dtype).argsort(d, desc))
            else:
                compare(lambda m, d=d, desc=desc: T(m, arr, dtype).sort(d, desc).values)
                compare(lambda m, d=d, desc=desc: T(m, arr, dtype).gather(
                    d, T(m, arr, dtype).sort(d, desc).indices))
                compare(lambda m, d=d, desc=desc: T(m, arr, dtype).gather(
                    d, T(m, arr, dtype).argsort(d, desc)))
    compare(lambda m: m.msort(T(m, arr, dtype)))
    if exact:
        compare(lambda m: T(m, arr, dtype).sort(stable=None))
        compare(lambda m: T(m, arr, dtype).sort(stable=False, descending=True))


@pytest.mark.parametrize("dtype", ["int32", "float32", "bfloat16", "uint64"])
def test_sort_long_rows(dtype):
    arr = ties((3, 200), dtype)
    # stable: exact with ties
    for desc in (False, True):
        compare(lambda m, desc=desc: T(m, arr, dtype).sort(stable=True, descending=desc))
        compare(lambda m, desc=desc: m.argsort(T(m, arr, dtype), dim=1, stable=True,
                                               descending=desc))
    # not stable, rows longer than 16: torch's tie order is its introsort's; no ties here
    uniq = distinct((3, 200), dtype)
    if dtype in FLOATS:
        uniq[0, 5] = np.nan
    compare(lambda m: T(m, uniq, dtype).sort(descending=True))
    compare(lambda m: T(m, uniq, dtype).argsort(dim=0))


def test_sort_output_strides_follow_the_input():
    arr = ties((3, 4, 5), "float32")
    compare(lambda m: T(m, arr).transpose(0, 2).sort(stable=True))
    compare(lambda m: T(m, arr).permute(1, 2, 0).sort(stable=True, dim=0))
    compare(lambda m: m.argsort(T(m, arr).permute(1, 2, 0), 1, stable=True))
    uniq = distinct((3, 4, 5), "float32")      # unstable float32 sort: no ties
    compare(lambda m: m.msort(T(m, uniq).transpose(0, 1)))
    compare(lambda m: T(m, uniq).permute(1, 2, 0).argsort(1))
    compare(lambda m: T(m, arr)[:, ::2].sort(stable=True))          # not dense
    compare(lambda m: T(m, arr[:1]).expand(4, 4, 5).sort(0))        # stride 0
    compare(lambda m: T(m, arr).transpose(0, 1)[1:].sort(stable=True, dim=1))


def test_sort_errors():
    cplx = np.ones((2, 3)) + 1j
    compare(lambda m: T(m, cplx).sort())
    compare(lambda m: T(m, cplx).argsort(stable=True))
    compare(lambda m: m.msort(T(m, cplx.astype(np.complex64))))
    compare(lambda m: T(m, np.complex128(1)).sort())
    compare(lambda m: T(m, cplx).sort(4))          # the dim is checked first
    for d in (2, -3):
        compare(lambda m, d=d: T(m, np.ones((2, 3))).sort(d))
        compare(lambda m, d=d: T(m, np.ones((2, 3))).argsort(d))
    compare(lambda m: T(m, np.float64(3)).sort(1))
    compare(lambda m: T(m, np.ones(3)).sort(foo=1), first_line=True)
    compare(lambda m: m.sort(T(m, np.ones(3)), 0, True, 1), first_line=True)
    compare(lambda m: T(m, np.ones(3)).sort(stable=1), first_line=True)


def test_sort_out():
    arr = distinct((4, 5), "float32", nan=True)   # unstable float32 sorts: no ties

    def outs(m, vdtype="float32", idtype="int64", vshape=(0,), ishape=(0,)):
        return (m.zeros(vshape, dtype=getattr(m, vdtype)),
                m.zeros(ishape, dtype=getattr(m, idtype)))
    compare(lambda m: m.sort(T(m, arr), out=outs(m)))
    compare(lambda m: m.sort(T(m, arr), stable=True, dim=0, descending=True, out=outs(m)))
    compare(lambda m: m.sort(T(m, arr).t(), out=outs(m)))      # resized: input's strides
    compare(lambda m: m.sort(T(m, arr).t(), out=outs(m, vshape=(5, 4), ishape=(5, 4))))
    compare(lambda m: m.sort(T(m, arr), out=outs(m, vshape=(7,), ishape=(3, 3))))  # warns
    compare(lambda m: m.sort(T(m, arr), out=outs(m, vdtype="float64")))
    compare(lambda m: m.sort(T(m, arr), out=outs(m, idtype="int32")))
    compare(lambda m: m.sort(T(m, arr), 5, out=outs(m, vdtype="float64")))
    compare(lambda m: m.argsort(T(m, arr), stable=True, out=m.zeros(0, dtype=m.int64)))
    compare(lambda m: m.argsort(T(m, arr).t(), stable=True, out=m.zeros(0, dtype=m.int64)))
    compare(lambda m: m.argsort(T(m, arr), stable=True, out=m.zeros(0, dtype=m.int32)))
    compare(lambda m: m.msort(T(m, arr).t(), out=m.zeros(0)))
    compare(lambda m: m.msort(T(m, arr), out=m.zeros(0, dtype=m.float64)))
    # the out tensors come back (same objects, sort_out named tuple)
    v, i = strided.zeros(0), strided.zeros(0, dtype=strided.int64)
    r = strided.sort(T(strided, arr, "float32"), out=(v, i))
    assert type(r).__name__ == "sort_out" and r.values is v and r.indices is i


@given(shape=st.lists(st.integers(0, 7), min_size=0, max_size=3).flatmap(
           lambda s: st.tuples(st.just(tuple(s)), st.permutations(range(len(s))))),
       long=st.integers(1, 40),
       dtype=st.sampled_from(SORT_DTYPES),
       dim=st.integers(-3, 2), descending=st.booleans(), seed=st.integers(0, 2 ** 16))
@hyp(60)
def test_stable_sort_property(shape, long, dtype, dim, descending, seed):
    """Stable sort and argsort match torch's for random shapes, dims, layouts and dtypes."""
    sizes, perm = shape
    if sizes:
        sizes = (long,) + sizes[1:]      # one longer dim: beyond the insertion-sort length
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        arr = rng.random(sizes) > 0.5
    elif dtype.startswith("float"):
        arr = rng.choice([0.0, -0.0, 1.0, 2.5, np.nan, np.inf, -7.0], sizes)
    else:
        arr = rng.integers(0, 5, sizes)

    def recipe(m):
        x = T(m, arr, dtype).permute(*perm) if perm else T(m, arr, dtype)
        return (x.sort(dim=dim, descending=descending, stable=True),
                m.argsort(x, dim, stable=True, descending=descending))
    compare(recipe)


# ------------------------------------------------------------------ topk

@pytest.mark.parametrize("dtype", NUMERIC)
def test_topk(dtype):
    arr = distinct((6, 9), dtype, nan=True)
    for d in (0, 1, -1):
        n = arr.shape[d]
        for k in sorted({0, 1, 3, n}):
            for largest in (True, False):
                compare(lambda m, d=d, k=k, lg=largest: T(m, arr, dtype).topk(k, d, lg))
                compare(lambda m, d=d, k=k, lg=largest: m.topk(
                    T(m, arr, dtype).t(), k, dim=d, largest=lg))
                # sorted=False: torch's order is its selection's; compare sorted rows
                compare(lambda m, d=d, k=k, lg=largest: tuple(
                    t.sort(d).values
                    for t in T(m, arr, dtype).topk(k, d, lg, sorted=False)))


def test_topk_long_rows_and_shapes():
    arr = distinct((4, 300), "float64", nan=True)
    for k in (1, 2, 5, 40, 300):      # small k: selection path; large k: sort path
        for largest in (True, False):
            compare(lambda m, k=k, lg=largest: T(m, arr).topk(k, largest=lg))
            compare(lambda m, k=k, lg=largest: T(m, arr, "int32").topk(k, largest=lg))
    a3, b3 = distinct((2, 3, 50), "float32"), distinct((2, 50, 3), "float32")
    compare(lambda m: T(m, a3).topk(4, dim=2))
    compare(lambda m: T(m, b3).topk(4, dim=1))
    compare(lambda m: T(m, np.float64(5)).topk(1))
    compare(lambda m: T(m, np.float64(5)).topk(0))
    compare(lambda m: T(m, np.zeros(0)).topk(0))
    compare(lambda m: T(m, np.zeros((2, 0, 3))).topk(0))
    compare(lambda m: T(m, np.zeros((2, 0, 3))).topk(2))
    compare(lambda m: T(m, np.zeros((2, 0, 3))).topk(1, 0))


@pytest.mark.parametrize("dtype", REJECTED)
def test_topk_rejected_dtypes(dtype):
    arr = np.arange(6).reshape(2, 3)
    compare(lambda m: T(m, arr, dtype).topk(2))
    compare(lambda m: T(m, arr, dtype).topk(7))                  # k is checked first
    compare(lambda m: T(m, np.zeros(0), dtype).topk(0))
    compare(lambda m: T(m, np.int64(1), dtype).topk(1))


def test_topk_errors_and_out():
    arr = distinct((3, 4), "float32")
    for k in (-1, 5):
        compare(lambda m, k=k: T(m, arr).topk(k))
    compare(lambda m: T(m, arr).topk(1, 2))
    compare(lambda m: T(m, np.zeros(0)).topk(1))
    compare(lambda m: T(m, np.float64(1)).topk(2))

    def outs(m, vd="float32", idt="int64", shape=(0,)):
        return m.zeros(shape, dtype=getattr(m, vd)), m.zeros(shape, dtype=getattr(m, idt))
    compare(lambda m: m.topk(T(m, arr), 2, out=outs(m)))
    compare(lambda m: m.topk(T(m, arr), 2, 0, False, out=outs(m, shape=(5,))))
    compare(lambda m: m.topk(T(m, arr), 2, out=outs(m, shape=(3, 2))))
    compare(lambda m: m.topk(T(m, arr), 2, out=outs(m, vd="float64")))
    compare(lambda m: m.topk(T(m, arr), 2, out=outs(m, idt="int32")))
    compare(lambda m: m.topk(T(m, arr), 7, out=outs(m, vd="float64")))


# ------------------------------------------------------------------ kthvalue

@pytest.mark.parametrize("dtype", NUMERIC)
def test_kthvalue(dtype):
    arr = distinct((5, 7), dtype, nan=True)
    for d in (0, 1, -2):
        for k in (1, 3, arr.shape[d]):
            for keepdim in (False, True):
                compare(lambda m, d=d, k=k, kd=keepdim: T(m, arr, dtype).kthvalue(k, d, kd))
                compare(lambda m, d=d, k=k, kd=keepdim: m.kthvalue(
                    T(m, arr, dtype).t(), k, dim=d, keepdim=kd))
    long = distinct((3, 400), dtype if dtype not in ("int8", "uint8") else "int16")
    compare(lambda m: T(m, long, dtype if dtype not in ("int8", "uint8") else "int16")
            .kthvalue(123))
    compare(lambda m: T(m, np.float64(2), dtype).kthvalue(1))
    compare(lambda m: T(m, np.float64(2), dtype).kthvalue(1, 0, True))


@pytest.mark.parametrize("dtype", REJECTED)
def test_kthvalue_rejected_dtypes(dtype):
    compare(lambda m: T(m, np.arange(6).reshape(2, 3), dtype).kthvalue(2))
    compare(lambda m: T(m, np.arange(6).reshape(2, 3), dtype).kthvalue(9))   # k first
    compare(lambda m: T(m, np.int64(1), dtype).kthvalue(1))                  # 0-dim: copied
    compare(lambda m: T(m, np.zeros(0), dtype).kthvalue(1))


def test_kthvalue_errors_and_out():
    arr = distinct((3, 4), "float32")
    for k in (0, 5, -1):
        compare(lambda m, k=k: T(m, arr).kthvalue(k))
        compare(lambda m, k=k: T(m, np.float64(1)).kthvalue(k))
    compare(lambda m: T(m, arr).kthvalue(1, 2))
    compare(lambda m: T(m, np.zeros(0)).kthvalue(1))
    compare(lambda m: T(m, np.zeros((2, 0, 3))).kthvalue(1, 1))
    compare(lambda m: T(m, np.zeros((2, 0, 3))).kthvalue(2))
    compare(lambda m: T(m, np.zeros((2, 0, 3))).kthvalue(2, 0, True))
    compare(lambda m: T(m, np.zeros((2, 0, 3))).kthvalue(0, 0))

    def outs(m, shape=(0,), vd="float32", idt="int64"):
        return m.zeros(shape, dtype=getattr(m, vd)), m.zeros(shape, dtype=getattr(m, idt))
    # Note [Outputs of kthvalue and mode]: the warning names the unsqueezed shape
    for shape in [(0,), (3,), (7,), (3, 1), (3, 4), (1, 3)]:
        for keepdim in (False, True):
            compare(lambda m, s=shape, kd=keepdim: m.kthvalue(
                T(m, arr), 2, 1, kd, out=outs(m, s)))
    compare(lambda m: m.kthvalue(T(m, arr), 2, out=outs(m, vd="float64")))
    compare(lambda m: m.kthvalue(T(m, arr), 2, out=outs(m, idt="int32")))
    compare(lambda m: m.kthvalue(T(m, arr), 9, out=outs(m, vd="float64")))
    # a correctly shaped non-contiguous out keeps its strides
    compare(lambda m: m.kthvalue(T(m, arr), 2, 0, out=(m.zeros(4, 2)[:, 0],
                                                       m.zeros(4, 2, dtype=m.int64)[:, 1])))


# ------------------------------------------------------------------ median / nanmedian

@pytest.mark.parametrize("op", ["median", "nanmedian"])
@pytest.mark.parametrize("dtype", NUMERIC)
def test_median(op, dtype):
    # torch breaks ties by index in both forms, so ties and NaNs are fine; only an all-NaN
    # row of nanmedian(dim) has an implementation-defined index (left out below)
    arr = ties((5, 6), dtype)
    if op == "nanmedian" and dtype.startswith("float"):
        arr[np.isnan(arr).all(axis=1), 0] = 1.0
        arr[:, np.isnan(arr).all(axis=0)] = 2.0
    compare(lambda m: getattr(T(m, arr, dtype), op)())
    for d in (0, 1, -1):
        for keepdim in (False, True):
            compare(lambda m, d=d, kd=keepdim: getattr(T(m, arr, dtype), op)(d, kd))
            compare(lambda m, d=d, kd=keepdim: getattr(m, op)(T(m, arr, dtype).t(), d,
                                                               keepdim=kd))
    long = ties((3, 40), dtype)
    compare(lambda m: getattr(T(m, long, dtype), op)(1))
    compare(lambda m: getattr(T(m, np.float64(3), dtype), op)())
    compare(lambda m: getattr(T(m, np.float64(3), dtype), op)(0))
    compare(lambda m: getattr(T(m, np.float64(3), dtype), op)(-1, True))


def test_median_nan_rows():
    arr = np.array([[1.0, np.nan, 3.0, np.nan, 2.0], [4.0, 1.0, 1.0, 5.0, 1.0],
                    [np.nan, np.nan, np.nan, 7.0, np.nan], [2.0, 2.0, 9.0, 9.0, np.nan]])
    for op in ("median", "nanmedian"):
        compare(lambda m, op=op: getattr(T(m, arr), op)())
        compare(lambda m, op=op: getattr(T(m, arr), op)(1))
        compare(lambda m, op=op: getattr(T(m, arr[:, [0, 1, 2, 4]]), op)(0, True))
    compare(lambda m: T(m, np.full((2, 3), np.nan)).nanmedian())
    compare(lambda m: T(m, np.full((2, 3), np.nan)).median())


@pytest.mark.parametrize("dtype", SORT_DTYPES + ["complex64"])
def test_median_of_empty_and_rejected_dtypes(dtype):
    # median() of an empty tensor is NaN converted to the dtype, whatever the dtype
    compare(lambda m: T(m, np.zeros((2, 0)), dtype).median())
    compare(lambda m: T(m, np.zeros(0), dtype).nanmedian())
    if dtype in NUMERIC:
        return
    compare(lambda m: T(m, np.ones((2, 3)), dtype).median())
    compare(lambda m: T(m, np.ones((2, 3)), dtype).nanmedian(1))
    compare(lambda m: T(m, np.ones(()), dtype).median(0))
    compare(lambda m: T(m, np.ones((2, 0)), dtype).median(0))
    compare(lambda m: T(m, np.ones((2, 0)), dtype).median(1))


def test_median_errors_and_out():
    arr = ties((3, 4), "float32")
    for op in ("median", "nanmedian"):
        compare(lambda m, op=op: getattr(T(m, arr), op)(2))
        compare(lambda m, op=op: getattr(T(m, np.zeros(0)), op)(0))
        compare(lambda m, op=op: getattr(T(m, np.zeros((0, 3))), op)(1, True))
        compare(lambda m, op=op: getattr(T(m, np.zeros((0, 3))), op)(0))

        def outs(m, shape=(0,), vd="float32", idt="int64"):
            return m.zeros(shape, dtype=getattr(m, vd)), m.zeros(shape, dtype=getattr(m, idt))
        compare(lambda m, op=op: getattr(m, op)(T(m, arr), 1, out=outs(m)))
        compare(lambda m, op=op: getattr(m, op)(T(m, arr), 1, True, out=outs(m, (3,))))
        compare(lambda m, op=op: getattr(m, op)(T(m, arr), 1, out=outs(m, vd="float64")))
        compare(lambda m, op=op: getattr(m, op)(T(m, arr), 1, out=outs(m, idt="int32")))
        compare(lambda m, op=op: getattr(m, op)(T(m, arr), 1, out=outs(m, vd="float64",
                                                                      idt="int32")))
        compare(lambda m, op=op: getattr(m, op)(T(m, arr, "uint8"), 1, out=outs(m)))
        compare(lambda m, op=op: getattr(m, op)(T(m, arr, "bool"), 1, out=outs(m)))
        compare(lambda m, op=op: getattr(m, op)(T(m, arr), out=m.zeros(())),
                first_line=True)          # no out= without a dim in torch's Python API
    # the operator itself has the out= overload
    out = strided.zeros(5)
    with pytest.warns(UserWarning, match="resized"):
        strided.ops.aten.median.out(T(strided, np.float32([3.0, 1.0, 2.0])), out=out)
    assert out.shape == () and out.item() == 2.0


# ------------------------------------------------------------------ mode

@pytest.mark.parametrize("dtype", ["bool"] + NUMERIC)
def test_mode(dtype):
    # rows of at most 16 elements: torch's index is the last occurrence there (Note [Which
    # index for ties]); the value (the smallest most frequent one) is exact for any length
    arr = ties((6, 9), dtype, nan=False)
    for d in (0, 1, -1):
        for keepdim in (False, True):
            compare(lambda m, d=d, kd=keepdim: T(m, arr, dtype).mode(d, kd))
            compare(lambda m, d=d, kd=keepdim: m.mode(T(m, arr, dtype).t(), d, keepdim=kd))
    a3, long = ties((2, 3, 4), dtype, nan=False), ties((4, 200), dtype, nan=False)
    compare(lambda m: T(m, a3, dtype).mode(1))
    compare(lambda m: T(m, np.float64(1), dtype).mode())
    compare(lambda m: T(m, long, dtype).mode().values)


@pytest.mark.parametrize("dtype", ["uint16", "uint32", "uint64", "complex64"])
def test_mode_rejected_dtypes(dtype):
    compare(lambda m: T(m, np.ones((2, 3)), dtype).mode())
    compare(lambda m: T(m, np.ones(()), dtype).mode())           # 0-dim: copied, no check
    compare(lambda m: T(m, np.ones((3, 0)), dtype).mode(0))      # empty: no check
    compare(lambda m: T(m, np.ones((2, 3)), dtype).mode(4))      # the dim is checked first


def test_mode_errors_and_out():
    arr = ties((3, 4), "float32", nan=False)
    compare(lambda m: T(m, arr).mode(2))
    compare(lambda m: T(m, np.zeros(0)).mode())
    compare(lambda m: T(m, np.zeros((2, 0))).mode(0))
    compare(lambda m: T(m, np.zeros((2, 0))).mode(0, True))
    compare(lambda m: T(m, np.zeros((2, 0))).mode(1))

    def outs(m, shape=(0,), vd="float32", idt="int64"):
        return m.zeros(shape, dtype=getattr(m, vd)), m.zeros(shape, dtype=getattr(m, idt))
    for shape in [(0,), (3,), (7,), (3, 1), (3, 4), (1, 3), (3, 1, 1)]:
        for keepdim in (False, True):
            compare(lambda m, s=shape, kd=keepdim: m.mode(T(m, arr), 1, kd, out=outs(m, s)))
    compare(lambda m: m.mode(T(m, arr), 0, out=outs(m, (5, 5))))
    compare(lambda m: m.mode(T(m, arr), out=outs(m, vd="float64")))
    compare(lambda m: m.mode(T(m, arr), out=outs(m, idt="int32")))
    compare(lambda m: m.mode(T(m, arr), 9, out=outs(m, vd="float64")))
    compare(lambda m: m.mode(T(m, np.float32(2)), out=outs(m, (4,))))   # resized silently
    compare(lambda m: m.mode(T(m, np.zeros((2, 0))), 0, out=outs(m, (4,))))


# ------------------------------------------------------------------ quantile / nanquantile

INTERPOLATIONS = ["linear", "lower", "higher", "midpoint", "nearest"]


@pytest.mark.parametrize("op", ["quantile", "nanquantile"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("interpolation", INTERPOLATIONS)
def test_quantile(op, dtype, interpolation):
    arr = RNG.standard_normal((4, 6, 5))
    arr[1, 2, :] = np.nan
    arr[2, :3, 1] = np.nan
    arr[3, 0, 0] = np.nan
    qs = [0.0, 0.25, 0.5, 0.62, 1.0]
    for q in [0.37, "t0", "t1", "tn"]:
        for dim in (None, 0, 1, -1):
            for keepdim in (False, True):
                def recipe(m, q=q, dim=dim, kd=keepdim):
                    qq = {"t0": lambda: m.tensor(0.8, dtype=getattr(m, dtype)),
                          "t1": lambda: m.tensor([0.5], dtype=getattr(m, dtype)),
                          "tn": lambda: m.tensor(qs, dtype=getattr(m, dtype))}.get(
                              q, lambda: q)()
                    return getattr(m, op)(T(m, arr, dtype), qq, dim, kd,
                                          interpolation=interpolation)
                compare(recipe)
    compare(lambda m: getattr(T(m, arr[0], dtype), op)(0.5, interpolation=interpolation))
    compare(lambda m: getattr(T(m, np.float64(2), dtype), op)(
        m.tensor(qs, dtype=getattr(m, dtype)), 0, True, interpolation=interpolation))
    compare(lambda m: getattr(T(m, np.float64(2), dtype), op)(0.3, keepdim=True))
    compare(lambda m: getattr(T(m, arr, dtype).transpose(0, 2), op)(
        m.tensor(qs, dtype=getattr(m, dtype)), 1, interpolation=interpolation))


def test_quantile_many_values():
    arr = RNG.standard_normal((30, 257))
    q = np.linspace(0, 1, 41)
    for dtype in ("float32", "float64"):
        for op in ("quantile", "nanquantile"):
            compare(lambda m, dtype=dtype, op=op: getattr(m, op)(
                T(m, arr, dtype), T(m, q, dtype), 1))
            compare(lambda m, dtype=dtype, op=op: getattr(m, op)(
                T(m, arr, dtype), T(m, q, dtype), 0, interpolation="midpoint"))


def test_quantile_errors():
    x = np.zeros(3)
    f = "float32"
    cases = [
        lambda m: m.quantile(T(m, x, f), 1.5),
        lambda m: m.quantile(T(m, x, f), -1e-20),
        lambda m: m.quantile(T(m, x, f), float("nan")),
        lambda m: m.quantile(T(m, x, f), 1.0000001),
        lambda m: m.quantile(T(m, x, "int32"), -0.1),          # q first
        lambda m: m.quantile(T(m, x, f), 1.5, interpolation="foo"),
        lambda m: m.quantile(T(m, x, f), 0.5, interpolation="foo"),
        lambda m: m.quantile(T(m, np.zeros(0), f), 0.5, interpolation="foo"),
        lambda m: m.quantile(T(m, np.zeros(0), f), 0.5, dim=3),
        lambda m: m.quantile(T(m, x, "int32"), 0.5, dim=3),
        lambda m: m.quantile(T(m, x, "float16"), 0.5),
        lambda m: m.quantile(T(m, x, "complex64"), 0.5),
        lambda m: m.quantile(T(m, x, f), T(m, [[0.5]], f), dim=5),
        lambda m: m.quantile(T(m, x, f), T(m, [0.5], "float64")),
        lambda m: m.quantile(T(m, x, f), T(m, [0.5, 1.5], f)),
        lambda m: m.quantile(T(m, x, f), T(m, [0.5, 1.5], f), dim=4),
        lambda m: m.quantile(T(m, x, f), T(m, np.nan, f)),
        lambda m: m.quantile(T(m, x, f), 0.5, 1),
        lambda m: m.quantile(T(m, np.float32(1)), 0.5, 1),
        lambda m: m.nanquantile(T(m, x, f), 2),
        lambda m: m.nanquantile(T(m, np.zeros((2, 0)), f), 0.5, 0),
        lambda m: m.quantile(T(m, x, f), T(m, [], f)),
        lambda m: m.quantile(T(m, x, f), 0.5, out=m.zeros(1, dtype=m.float64)),
        lambda m: m.quantile(T(m, x, f), T(m, [0.5], "float64"),
                             out=m.zeros(1, dtype=m.float64)),
        lambda m: m.quantile(T(m, x, "int32"), 0.5, out=m.zeros(1, dtype=m.float64)),
        lambda m: T(m, x, f).quantile(0.5, out=m.zeros(1)),
    ]
    for recipe in cases:
        compare(recipe, first_line=True)


def test_quantile_out():
    arr = RNG.standard_normal((3, 5))
    q = [0.1, 0.5, 0.9]
    compare(lambda m: m.quantile(T(m, arr), T(m, q), 1, out=m.zeros(0, dtype=m.float64)))
    compare(lambda m: m.nanquantile(T(m, arr), 0.3, 0, True, out=m.zeros(0, dtype=m.float64)))
    compare(lambda m: m.quantile(T(m, arr), T(m, q), 1, out=m.zeros(7, dtype=m.float64)))
    compare(lambda m: m.quantile(T(m, arr), T(m, q), 1,
                                 out=m.zeros(3, 3, dtype=m.float64).t()))
    compare(lambda m: m.quantile(T(m, arr), 0.2, out=m.zeros(0, dtype=m.float64)))


# ------------------------------------------------------------------ cummax / cummin

@pytest.mark.parametrize("op", ["cummax", "cummin"])
@pytest.mark.parametrize("dtype", ["bool"] + NUMERIC)
def test_cummax_cummin(op, dtype):
    # deterministic in torch: the last index reaching the running extreme, NaN sticky
    arr = ties((5, 7), dtype)
    for d in (0, 1, -1):
        compare(lambda m, d=d: getattr(T(m, arr, dtype), op)(d))
        compare(lambda m, d=d: getattr(m, op)(T(m, arr, dtype).t(), d))
    a3 = ties((2, 3, 4), dtype)
    compare(lambda m: getattr(T(m, a3, dtype), op)(1))
    compare(lambda m: getattr(T(m, np.float64(1), dtype), op)(0))
    compare(lambda m: getattr(T(m, np.float64(1), dtype), op)(-1))
    compare(lambda m: getattr(T(m, np.array([-0.0, 0.0, -0.0, 0.0]), dtype), op)(0))


@pytest.mark.parametrize("op", ["cummax", "cummin"])
def test_cummax_cummin_errors_and_out(op):
    arr = ties((3, 4), "float32")
    compare(lambda m: getattr(T(m, arr), op)(2))
    compare(lambda m: getattr(T(m, np.float64(1)), op)(1))
    compare(lambda m: getattr(T(m, np.zeros((2, 0))), op)(7))     # empty: dim not checked
    for dtype in ("uint16", "uint64", "complex64"):
        compare(lambda m, dt=dtype: getattr(T(m, arr, dt), op)(1))
        compare(lambda m, dt=dtype: getattr(T(m, np.zeros(0), dt), op)(0))
        compare(lambda m, dt=dtype: getattr(T(m, np.ones(()), dt), op)(0))

    def outs(m, shape=(0,), vd="float32", idt="int64"):
        return m.zeros(shape, dtype=getattr(m, vd)), m.zeros(shape, dtype=getattr(m, idt))
    compare(lambda m: getattr(m, op)(T(m, arr), 1, out=outs(m)))
    compare(lambda m: getattr(m, op)(T(m, arr), 1, out=outs(m, (5,))))
    compare(lambda m: getattr(m, op)(T(m, arr), 1, out=(m.zeros(4, 3).t(),
                                                        m.zeros(4, 3, dtype=m.int64).t())))
    compare(lambda m: getattr(m, op)(T(m, arr), 1, out=outs(m, vd="float64")))
    compare(lambda m: getattr(m, op)(T(m, arr), 1, out=outs(m, idt="int32")))
    compare(lambda m: getattr(m, op)(T(m, arr), 9, out=outs(m, vd="float64")))
    compare(lambda m: getattr(m, op)(T(m, np.float32(1)), 3, out=outs(m)))


# ------------------------------------------------------------------ aminmax

@pytest.mark.parametrize("dtype", ["bool"] + NUMERIC)
def test_aminmax(dtype):
    arr = ties((4, 5), dtype)
    compare(lambda m: T(m, arr, dtype).aminmax())
    compare(lambda m: m.aminmax(T(m, arr, dtype), keepdim=True))
    for d in (0, 1, -1):
        for keepdim in (False, True):
            compare(lambda m, d=d, kd=keepdim: T(m, arr, dtype).aminmax(dim=d, keepdim=kd))
            compare(lambda m, d=d, kd=keepdim: m.aminmax(T(m, arr, dtype).t(), dim=d,
                                                         keepdim=kd))
    compare(lambda m: T(m, np.float64(3), dtype).aminmax())
    compare(lambda m: T(m, np.float64(3), dtype).aminmax(dim=0, keepdim=True))
    compare(lambda m: T(m, np.zeros((2, 0)), dtype).aminmax(dim=0))


def test_aminmax_errors_and_out():
    arr = ties((3, 4), "float32")
    compare(lambda m: T(m, arr).aminmax(dim=2))
    compare(lambda m: T(m, np.zeros(0)).aminmax())
    compare(lambda m: T(m, np.zeros((2, 0))).aminmax(keepdim=True))
    compare(lambda m: T(m, np.zeros((2, 0))).aminmax(dim=1))
    compare(lambda m: T(m, np.zeros((2, 0))).aminmax(dim=-1, keepdim=True))
    compare(lambda m: T(m, arr).aminmax(0))
    for dtype in ("uint16", "uint32", "complex64", "complex128"):
        compare(lambda m, dt=dtype: T(m, arr, dt).aminmax())
        compare(lambda m, dt=dtype: T(m, np.ones(()), dt).aminmax())
        compare(lambda m, dt=dtype: T(m, np.zeros((2, 0)), dt).aminmax(dim=0))
        compare(lambda m, dt=dtype: T(m, np.zeros(0), dt).aminmax())

    def outs(m, shape=(0,), d1="float32", d2="float32"):
        return m.zeros(shape, dtype=getattr(m, d1)), m.zeros(shape, dtype=getattr(m, d2))
    compare(lambda m: m.aminmax(T(m, arr), out=outs(m)))
    compare(lambda m: m.aminmax(T(m, arr), dim=1, out=outs(m)))
    compare(lambda m: m.aminmax(T(m, arr), dim=1, out=outs(m, (2, 2))))
    compare(lambda m: m.aminmax(T(m, arr), out=outs(m, d1="float64")))
    compare(lambda m: m.aminmax(T(m, arr), out=outs(m, d2="int64")))
    compare(lambda m: m.aminmax(T(m, arr, "complex64"), out=outs(m, d1="float64")))
    r = strided.aminmax(T(strided, arr))
    assert type(r).__name__ == "aminmax" and type(r)._field_names == ("min", "max")


# ------------------------------------------------------------------ meta and named tuples

META_RECIPES = [
    lambda m, dev: m.zeros(3, 4, device=dev).t().sort(0),
    lambda m, dev: m.zeros(3, 4, device=dev, dtype=m.int16).argsort(stable=True),
    lambda m, dev: m.zeros(3, 4, device=dev).msort(),
    lambda m, dev: m.zeros(3, 4, device=dev).topk(2),
    lambda m, dev: m.zeros(3, 4, device=dev).topk(0, 0),
    lambda m, dev: m.zeros(3, 4, device=dev).kthvalue(2, 0, True),
    lambda m, dev: m.zeros(3, 4, device=dev).median(),
    lambda m, dev: m.zeros(3, 4, device=dev).median(1),
    lambda m, dev: m.zeros(3, 4, device=dev).nanmedian(0, True),
    lambda m, dev: m.zeros(3, 4, device=dev).mode(),
    lambda m, dev: m.zeros(3, 4, device=dev).quantile(0.3),
    lambda m, dev: m.zeros(3, 4, device=dev).quantile(m.zeros(5, device=dev), 1, True),
    lambda m, dev: m.zeros(3, 4, device=dev, dtype=m.float64).nanquantile(
        m.zeros(2, device=dev, dtype=m.float64), 0),
    lambda m, dev: m.zeros(3, 4, device=dev).cummax(1),
    lambda m, dev: m.zeros(3, 4, device=dev, dtype=m.bool).cummin(0),
    lambda m, dev: m.zeros(3, 4, device=dev).aminmax(),
    lambda m, dev: m.zeros(3, 4, device=dev).aminmax(dim=0, keepdim=True),
    lambda m, dev: m.zeros((), device=dev).sort(),
    lambda m, dev: m.zeros(2, 0, device=dev).topk(0),
]


@pytest.mark.parametrize("recipe", META_RECIPES)
def test_meta_gives_shapes_strides_and_dtypes(recipe):
    _check_meta(recipe)


def test_meta_skips_data_dependent_checks_but_not_shape_checks():
    meta = strided.zeros(3, 4, device="meta", dtype=strided.complex64)
    assert strided.sort(meta).values.dtype is strided.complex64     # torch's meta allows it
    assert meta.topk(2).indices.shape == (3, 2)
    with pytest.raises(IndexError, match="Dimension out of range"):
        meta.sort(2)
    with pytest.raises(RuntimeError, match="selected index k out of range"):
        meta.topk(5)
    q = strided.zeros(3, device="meta").quantile(strided.tensor([0.5, 2.0], device="meta"))
    assert q.shape == (2,) and q.device.type == "meta"


def test_named_tuple_types():
    x = T(strided, ties((3, 4), "float32"))
    for name, r, fields in [
        ("sort", x.sort(), ("values", "indices")),
        ("sort", strided.sort(x, stable=True), ("values", "indices")),
        ("topk", x.topk(1), ("values", "indices")),
        ("kthvalue", x.kthvalue(1), ("values", "indices")),
        ("median", x.median(0), ("values", "indices")),
        ("nanmedian", x.nanmedian(0), ("values", "indices")),
        ("mode", x.mode(), ("values", "indices")),
        ("cummax", x.cummax(0), ("values", "indices")),
        ("cummin", strided.cummin(x, 0), ("values", "indices")),
        ("aminmax", x.aminmax(), ("min", "max")),
    ]:
        assert type(r).__name__ == name and type(r)._field_names == fields
        assert type(r) is getattr(strided.return_types, name)
        assert repr(r).startswith(f"torch.return_types.{name}(")


def test_methods_and_bad_arguments_parse_like_torch():
    arr = ties((3, 4), "float32")
    for recipe in [
        lambda m: T(m, arr).msort(1),
        lambda m: T(m, arr).topk(),
        lambda m: T(m, arr).kthvalue("a"),
        lambda m: m.median(T(m, arr), 1, 2, 3),
        lambda m: T(m, arr).quantile("a"),
        lambda m: T(m, arr).aminmax(1),
        lambda m: m.argsort(T(m, arr), foo=1),
        lambda m: m.cummax(T(m, arr)),
    ]:
        compare(recipe, first_line=True)


def test_no_python_loops_on_large_inputs():
    """A smoke test of the vectorised paths on a large input (speed is benchmarked, not
    asserted); values against torch."""
    arr = RNG.standard_normal((64, 4096)).astype(np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        compare(lambda m: T(m, arr).sort(stable=True, descending=True))
        compare(lambda m: T(m, arr).topk(10))
        compare(lambda m: T(m, arr).kthvalue(1000))
        compare(lambda m: T(m, arr).median(1))
        compare(lambda m: T(m, arr).cummax(1))
        compare(lambda m: m.quantile(T(m, arr), T(m, np.float32([0.1, 0.9])), 1))
