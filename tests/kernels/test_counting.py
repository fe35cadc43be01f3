"""unique, unique_consecutive, bincount, histc, searchsorted and bucketize against torch.

Each row is a recipe run with ``m = strided`` and ``m = torch`` (``conftest.check``):
values, dtypes, shapes, strides, warnings and errors (type and message) must agree exactly.
A hypothesis test drives searchsorted / bucketize and unique(return_inverse,
return_counts) over random sorted boundaries, values and dtypes.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from conftest import DTYPE_NAMES, check, hyp
from hypothesis import given
from hypothesis import strategies as st

import strided

NAN, INF = float("nan"), float("inf")


def T(m, data, dtype=None, **kw):
    return m.tensor(data, dtype=None if dtype is None else getattr(m, dtype), **kw)


def META(m, *shape, dtype="float32"):
    return m.empty(*shape, dtype=getattr(m, dtype), device="meta")


def _ids(cases):
    return [c[0] for c in cases]


def _run_case(case):
    name, recipe = case
    # torch's "non-contiguous" searchsorted warning is once per process (TORCH_WARN_ONCE):
    # whether the oracle shows it depends on test order, so those rows skip the warning
    # comparison and test_searchsorted_noncontiguous_warnings checks strided's
    check(recipe, warns="non-contiguous" not in name)


# ------------------------------------------------------------------ unique / unique_consecutive

M2 = [[1, 2, 1], [0, 2, 0], [1, 2, 1], [0, 2, 0]]
M3 = [[[1, 2], [1, 2], [0, 3]], [[5, 5], [5, 5], [1, 1]]]
FLOATS = [NAN, 1.0, NAN, 1.0, -0.0, 0.0, -INF, INF, 2.5]

UNIQUE_CASES = [
    # the flag combinations, through the Python-level dispatch on keywords and positions
    ("plain", lambda m: m.unique(T(m, [3, 1, 2, 1, 3]))),
    ("inverse", lambda m: m.unique(T(m, M2), return_inverse=True)),
    ("counts", lambda m: m.unique(T(m, M2), return_counts=True)),
    ("both", lambda m: m.unique(T(m, M2), return_inverse=True, return_counts=True)),
    ("positional", lambda m: m.unique(T(m, M2), False, True, True)),
    ("positional inverse", lambda m: m.unique(T(m, M2), True, True)),
    ("unsorted", lambda m: m.unique(T(m, [5, 3, 5, 1]), sorted=False, return_inverse=True)),
    ("dim none", lambda m: m.unique(T(m, M2), dim=None, return_counts=True)),
    ("method", lambda m: T(m, M2).unique(True, True, True)),
    ("method dim", lambda m: T(m, M2).unique(dim=1, return_inverse=True)),
    ("_unique2", lambda m: m._unique2(T(m, [3, 1, 3]), True, True, False)),
    ("_unique2 defaults", lambda m: m._unique2(T(m, [3, 1, 3]))),
    # dims: torch's output is the stacked slices moved back into place (its strides)
    ("dim0", lambda m: m.unique(T(m, M2), dim=0, return_inverse=True, return_counts=True)),
    ("dim1", lambda m: m.unique(T(m, M2), dim=1, return_inverse=True, return_counts=True)),
    ("dim-1", lambda m: m.unique(T(m, M2), dim=-1, sorted=False)),
    ("3d dim1", lambda m: m.unique(T(m, M3), dim=1, return_inverse=True, return_counts=True)),
    ("3d dim2", lambda m: m.unique(T(m, M3), dim=2, return_inverse=True, return_counts=True)),
    ("3d dim0", lambda m: m.unique(T(m, M3), dim=0, return_counts=True)),
    ("1d dim0", lambda m: m.unique(T(m, [3, 1, 3]), dim=0, return_inverse=True)),
    ("transposed", lambda m: m.unique(T(m, M2).t(), return_inverse=True)),
    ("transposed dim", lambda m: m.unique(T(m, M2).t(), dim=0, return_inverse=True)),
    ("strided", lambda m: m.unique(T(m, list(range(12))).view(3, 4)[:, ::2], dim=1)),
    # floats: every NaN is its own value and sorts last; -0.0 == 0.0
    ("nan", lambda m: m.unique(T(m, FLOATS), return_inverse=True, return_counts=True)),
    # slices holding NaN never merge (torch orders such slices with a comparator that is not
    # a strict weak order, so only inputs whose order that cannot affect are compared)
    ("nan rows", lambda m: m.unique(T(m, [[NAN, 1.0], [NAN, 1.0]]), dim=0,
                                    return_inverse=True, return_counts=True)),
    ("nan consecutive", lambda m: m.unique_consecutive(T(m, [NAN, NAN, 1.0, 1.0]),
                                                       return_inverse=True, return_counts=True)),
    ("signed zero", lambda m: m.unique(T(m, [0.0, -0.0, 1.0, -0.0]))),
    # integers: narrow ranges are counted, wide ones sorted
    ("int8 extremes", lambda m: m.unique(T(m, [-128, 127, -128, 0], "int8"),
                                         return_inverse=True, return_counts=True)),
    ("uint64 high", lambda m: m.unique(T(m, [2 ** 64 - 1, 2 ** 64 - 3, 2 ** 64 - 1], "uint64"),
                                       return_inverse=True, return_counts=True)),
    ("int64 high", lambda m: m.unique(T(m, [2 ** 63 - 1, 2 ** 63 - 3, 2 ** 63 - 1]),
                                      return_inverse=True, return_counts=True)),
    ("int64 wide", lambda m: m.unique(T(m, [-2 ** 62, 5, 2 ** 62, 5, -7]),
                                      return_inverse=True, return_counts=True)),
    ("int64 wide no inverse", lambda m: m.unique(T(m, [2 ** 40, 5, -2 ** 40, 5]),
                                                 return_counts=True)),
    ("bool", lambda m: m.unique(T(m, [True, False, True]), return_inverse=True,
                                return_counts=True)),
    ("signed zero 2", lambda m: m.unique(T(m, [-0.0, 0.0, 1.0]))),
    ("nan bfloat16", lambda m: m.unique(T(m, FLOATS, "bfloat16"), return_inverse=True)),
    ("nan float16", lambda m: m.unique(T(m, FLOATS, "float16"), return_inverse=True,
                                       return_counts=True)),
    # 0-dim and empty inputs
    ("0d", lambda m: m.unique(T(m, 5), return_inverse=True, return_counts=True)),
    ("0d consecutive", lambda m: m.unique_consecutive(T(m, 5), return_inverse=True,
                                                      return_counts=True)),
    ("0d dim", lambda m: m.unique(T(m, 5), dim=0)),
    ("0d dim-1", lambda m: m.unique(T(m, 5), dim=-1)),
    ("0d consecutive dim", lambda m: m.unique_consecutive(T(m, 5), dim=0)),
    ("empty", lambda m: m.unique(m.zeros(0, 3), return_inverse=True, return_counts=True)),
    ("empty no inverse", lambda m: m.unique(m.zeros(0, 3), return_counts=True)),
    ("empty dim0", lambda m: m.unique(m.zeros(0, 3), dim=0, return_inverse=True,
                                      return_counts=True)),
    ("empty dim1", lambda m: m.unique(m.zeros(0, 3), dim=1)),
    ("empty other dim", lambda m: m.unique(m.zeros(2, 0), dim=0)),
    ("two empty dims", lambda m: m.unique(m.zeros(0, 0), dim=0)),
    ("empty consecutive", lambda m: m.unique_consecutive(m.zeros(0, 3), return_inverse=True,
                                                         return_counts=True)),
    ("empty consecutive dim", lambda m: m.unique_consecutive(m.zeros(0, 3), dim=0,
                                                             return_inverse=True)),
    ("empty consecutive dim1", lambda m: m.unique_consecutive(m.zeros(2, 0), dim=0)),
    ("dim out of range", lambda m: m.unique(m.zeros(2, 3), dim=2)),
    ("dim out of range neg", lambda m: m.unique_consecutive(m.zeros(2, 3), dim=-3)),
    # unique_consecutive, with its torch quirks (the flags' positional indices are 2 and 1)
    ("consecutive", lambda m: m.unique_consecutive(T(m, [1, 1, 2, 2, 3, 1, 1, 2]))),
    ("consecutive both", lambda m: m.unique_consecutive(T(m, [1, 1, 2, 2, 3, 1, 1, 2]),
                                                        return_inverse=True,
                                                        return_counts=True)),
    ("consecutive 2d", lambda m: m.unique_consecutive(T(m, M2), return_inverse=True)),
    ("consecutive positional", lambda m: m.unique_consecutive(T(m, [1, 1, 2]), True)),
    ("consecutive positional 2", lambda m: m.unique_consecutive(T(m, [1, 1, 2]), False, True)),
    ("consecutive positional 3", lambda m: m.unique_consecutive(T(m, [1, 1, 2]), True, True)),
    ("consecutive dim0", lambda m: m.unique_consecutive(T(m, [[1, 2], [1, 2], [0, 2]]), dim=0,
                                                        return_counts=True)),
    ("consecutive dim1", lambda m: m.unique_consecutive(T(m, M2), dim=1, return_inverse=True,
                                                        return_counts=True)),
    ("consecutive 3d dim2", lambda m: m.unique_consecutive(
        T(m, [[[1, 1], [1, 1], [0, 0]], [[5, 5], [5, 5], [1, 1]]]), dim=2,
        return_inverse=True, return_counts=True)),
    ("consecutive 1d dim0", lambda m: m.unique_consecutive(T(m, [1, 1, 2]), dim=0,
                                                           return_inverse=True)),
    ("consecutive 1d dim-1", lambda m: m.unique_consecutive(T(m, [1, 1, 2]), dim=-1,
                                                            return_inverse=True)),
    ("consecutive method", lambda m: T(m, [2, 2, 1, 2]).unique_consecutive(True, True)),
    ("consecutive method dim", lambda m: T(m, M2).unique_consecutive(dim=0)),
    # argument errors, from the bindings and from the Python wrappers
    ("list input", lambda m: m.unique([1, 2])),
    ("list input consecutive", lambda m: m.unique_consecutive([1, 2])),
    ("dim str", lambda m: m.unique(T(m, [1, 2]), dim="a")),
    ("dim float", lambda m: m.unique(T(m, [1, 2]), dim=0.0)),
    ("dim bool", lambda m: m.unique(T(m, [[1, 2]]), dim=True)),
    ("dim str consecutive", lambda m: m.unique_consecutive(T(m, [1, 2]), dim="a")),
    ("sorted str", lambda m: m.unique(T(m, [1, 2]), sorted="a")),
    ("inverse int", lambda m: m.unique(T(m, [1, 2]), return_inverse=1)),
    ("bad keyword", lambda m: m.unique(T(m, [1, 2]), foo=1)),
    ("bad keyword consecutive", lambda m: m.unique_consecutive(T(m, [1, 2]), foo=1)),
    ("method too many", lambda m: T(m, [1, 2]).unique(True, True, True, None, 5)),
    # unsupported dtypes and meta tensors (no Meta kernel in torch)
    ("complex", lambda m: m.unique(T(m, [1j, 2]))),
    ("complex dim", lambda m: m.unique(T(m, [1j, 2]), dim=0)),
    ("complex 0d dim", lambda m: m.unique(T(m, 1j), dim=0)),
    ("complex consecutive", lambda m: m.unique_consecutive(T(m, [1j, 2]))),
    ("complex consecutive dim0", lambda m: m.unique_consecutive(T(m, [1j, 2]), dim=0)),
    ("complex consecutive dim-1", lambda m: m.unique_consecutive(T(m, [1j, 2]), dim=-1)),
    ("meta", lambda m: m.unique(META(m, 3))),
    ("meta dim", lambda m: m.unique(META(m, 3), dim=0)),
    ("meta consecutive", lambda m: m.unique_consecutive(META(m, 3))),
    ("meta consecutive dim", lambda m: m.unique_consecutive(META(m, 3, 2), dim=1)),
    ("meta complex", lambda m: m.unique(META(m, 2, dtype="complex64"))),
]


@pytest.mark.parametrize("case", UNIQUE_CASES, ids=_ids(UNIQUE_CASES))
def test_unique(case):
    _run_case(case)


@pytest.mark.parametrize("dtype", DTYPE_NAMES)
def test_unique_dtypes(dtype):
    data = [[3, 1, 0, 1], [0, 1, 1, 3], [3, 1, 0, 1]]
    check(lambda m: m.unique(T(m, data, dtype), return_inverse=True, return_counts=True))
    check(lambda m: m.unique(T(m, data, dtype), dim=0, return_inverse=True, return_counts=True))
    check(lambda m: m.unique(T(m, data, dtype), dim=1, return_inverse=True))
    check(lambda m: m.unique_consecutive(T(m, data, dtype), return_inverse=True,
                                         return_counts=True))
    check(lambda m: m.unique_consecutive(T(m, data, dtype), dim=1, return_counts=True))


# ------------------------------------------------------------------ bincount

BINCOUNT_CASES = [
    ("plain", lambda m: m.bincount(T(m, [0, 1, 1, 3]))),
    ("method", lambda m: T(m, [0, 1, 1, 3]).bincount(minlength=2)),
    ("minlength", lambda m: m.bincount(T(m, [0, 1, 1, 3]), minlength=6)),
    ("minlength negative", lambda m: m.bincount(T(m, [0, 1]), minlength=-1)),
    ("minlength float", lambda m: m.bincount(T(m, [0, 1]), minlength=2.0)),
    ("negative", lambda m: m.bincount(T(m, [0, -1]))),
    ("2d", lambda m: m.bincount(T(m, [[0, 1]]))),
    ("0d", lambda m: m.bincount(T(m, 1))),
    ("empty", lambda m: m.bincount(T(m, [], "int64"))),
    ("empty minlength", lambda m: m.bincount(T(m, [], "int64"), minlength=3)),
    ("empty weights", lambda m: m.bincount(T(m, [], "int64"), m.ones(3))),
    ("empty 2d", lambda m: m.bincount(m.zeros(0, 2, dtype=m.int64))),
    ("strided", lambda m: m.bincount(T(m, [0, 5, 1, 5, 1, 5])[::2])),
    ("weights float32", lambda m: m.bincount(T(m, [0, 1, 1, 3]), T(m, [0.1, 0.2, 0.3, 0.4]))),
    ("weights strided", lambda m: m.bincount(T(m, [0, 1, 1]), T(m, [1., 9, 2, 9, 3, 9])[::2])),
    ("weights mismatch", lambda m: m.bincount(T(m, [0, 1, 1, 3]), m.ones(3))),
    ("weights 2d", lambda m: m.bincount(T(m, [0, 1, 1, 3]), m.ones(2, 2))),
    ("weights 0d", lambda m: m.bincount(T(m, [0]), T(m, 1.0))),
    ("meta", lambda m: m.bincount(META(m, 3, dtype="int64"))),
    ("meta weights", lambda m: m.bincount(T(m, [0, 1]), META(m, 2))),
    ("float32 sums in order", lambda m: m.bincount(
        T(m, np.arange(2000) % 3), T(m, (np.arange(2000) * 0.1).tolist()))),
]


@pytest.mark.parametrize("case", BINCOUNT_CASES, ids=_ids(BINCOUNT_CASES))
def test_bincount(case):
    _run_case(case)


@pytest.mark.parametrize("dtype", DTYPE_NAMES)
def test_bincount_dtypes(dtype):
    check(lambda m: m.bincount(T(m, [0, 1, 1, 3], dtype)))
    weights = [0.5, 1.25, 3.0, 4.0] if dtype not in ("bool",) else [True, False, True, True]
    if dtype.startswith("complex"):
        weights = [0.5 + 1j, 1.25, 3.0, 4.0]
    elif dtype not in ("bool",) and not dtype.startswith(("float", "bfloat")):
        weights = [1, 2, 3, 4]
    check(lambda m: m.bincount(T(m, [0, 1, 1, 3]), T(m, weights, dtype), minlength=5))


# ------------------------------------------------------------------ histc

XF = [1.0, 2, 1, 2.5, 4, -1, NAN, INF]

HISTC_CASES = [
    ("range", lambda m: m.histc(T(m, XF), 4, 0, 3)),
    ("method", lambda m: T(m, XF).histc(4, 0, 4)),
    ("keywords", lambda m: m.histc(T(m, [1.0, 2, 3]), bins=3, min=1, max=3)),
    ("default", lambda m: m.histc(T(m, [1.0, 2, 1, 7, 3]))),
    ("data range", lambda m: m.histc(T(m, [1.0, 2, 1, 7, 3]), 5)),
    ("nan in data range", lambda m: m.histc(T(m, XF))),
    ("nan one element", lambda m: m.histc(T(m, [NAN]), 4)),
    ("nan two elements", lambda m: m.histc(T(m, [1.0, NAN]), 4)),
    ("nan bfloat16", lambda m: m.histc(T(m, [1.0, NAN], "bfloat16"), 4)),
    ("inf in data range", lambda m: m.histc(T(m, [1.0, INF]), 4)),
    ("min equals max", lambda m: m.histc(T(m, XF), 4, 2, 2)),
    ("min greater", lambda m: m.histc(T(m, XF), 4, 3, 2)),
    ("min nan", lambda m: m.histc(T(m, XF), 4, NAN, 2)),
    ("min -inf", lambda m: m.histc(T(m, XF), 4, -INF, 2)),
    ("max inf", lambda m: m.histc(T(m, XF), 4, 0, INF)),
    ("huge range", lambda m: m.histc(T(m, [1.0], "float64"), 4, 1e300, INF)),
    ("bins 0", lambda m: m.histc(T(m, XF), 0)),
    ("bins -1", lambda m: m.histc(T(m, XF), -1)),
    ("bins float", lambda m: m.histc(T(m, XF), 4.0)),
    ("min str", lambda m: m.histc(T(m, XF), 4, "a")),
    ("min complex", lambda m: m.histc(T(m, XF), 4, 1j, 3)),
    ("min bool", lambda m: m.histc(T(m, [1.0, 2.0]), 4, True, 3)),
    ("tensor bound", lambda m: m.histc(T(m, XF), 4, T(m, 0), 3)),
    ("empty", lambda m: m.histc(T(m, []), 4)),
    ("empty equal range", lambda m: m.histc(T(m, [], "float16"), 4, 5, 5)),
    ("all equal", lambda m: m.histc(T(m, [2.0, 2.0]), 4)),
    ("given equal range", lambda m: m.histc(T(m, [1.0]), 4, 5, 5)),
    ("outside", lambda m: m.histc(T(m, [1.0, 2.0]), 4, 3, 3.1)),
    ("0d", lambda m: m.histc(T(m, 2.0), 4)),
    ("2d", lambda m: m.histc(T(m, [[1.0, 2], [3, 4]]), 4)),
    ("strided", lambda m: m.histc(T(m, XF)[::2], 4, 0, 3)),
    ("edges", lambda m: m.histc(T(m, [0.0, 0.25, 0.5, 0.75, 1.0]), 4, 0, 1)),
    ("edges 2", lambda m: m.histc(T(m, [0.3, 0.6, 0.9, 0.1, 0.7, 0.2]), 3, 0.1, 0.9)),
    ("float16 edges", lambda m: m.histc(T(m, [0.1, 0.2, 0.7], "float16"), 3, 0.1, 0.7)),
    ("float16 range", lambda m: m.histc(T(m, [0.1, 0.5, 0.9, 1.0], "float16"), 3, 0, 1)),
    ("float16 overflow", lambda m: m.histc(T(m, [1.0, 2.0], "float16"), 4, 0, 1e6)),
    ("float32 overflow", lambda m: m.histc(T(m, [1.0, 2.0]), 4, 0, 3.5e38)),
    ("bfloat16 tiny range", lambda m: m.histc(T(m, [1.0, 1.01], "bfloat16"), 7, 1, 1.01)),
    ("many bins", lambda m: m.histc(T(m, (np.arange(100) / 7).tolist(), "float64"), 1000)),
    ("out", lambda m: m.histc(T(m, [1.0, 2]), 4, out=m.empty(4))),
    ("out empty", lambda m: m.histc(T(m, [1.0, 2]), 4, out=m.empty(0))),
    ("out resized", lambda m: m.histc(T(m, [1.0, 2]), 4, out=m.empty(2, 2))),
    ("out strided", lambda m: m.histc(T(m, [1.0, 2]), 4, out=m.empty(8)[::2])),
    ("out dtype", lambda m: m.histc(T(m, XF), 4, out=m.empty(4, dtype=m.float64))),
    ("out int", lambda m: m.histc(T(m, XF), 4, out=m.empty(4, dtype=m.int64))),
    ("out checked before range", lambda m: m.histc(T(m, XF), 4, out=m.empty(2))),
    ("int bins 0", lambda m: m.histc(T(m, [1, 2]), 0)),
    ("int out float", lambda m: m.histc(T(m, [1, 2]), 4, out=m.empty(4))),
    ("int range bad", lambda m: m.histc(T(m, [1, 2]), 4, 3, 2)),
    ("int overflow", lambda m: m.histc(T(m, [1, 2], "int32"), 4, 0, 1e30)),
    ("uint8 empty", lambda m: m.histc(T(m, [], "uint8"), 4)),
    ("meta", lambda m: m.histc(META(m, 3), 4)),
    ("meta int", lambda m: m.histc(META(m, 3, dtype="int64"), 4, 0, 1)),
    ("meta bins 0", lambda m: m.histc(META(m, 3), 0)),
    ("meta min greater", lambda m: m.histc(META(m, 3), 4, 3, 2)),
    ("meta min nan", lambda m: m.histc(META(m, 3), 4, NAN, 1)),
    ("meta out", lambda m: m.histc(META(m, 3), 4, out=META(m, 0, dtype="float64"))),
    ("meta out strided", lambda m: m.histc(META(m, 3), 4, out=META(m, 8)[::2])),
    ("meta out resized", lambda m: m.histc(META(m, 3), 4, out=META(m, 2))),
    ("meta out int", lambda m: m.histc(META(m, 3), 4, out=META(m, 0, dtype="int64"))),
    ("meta out cpu input", lambda m: m.histc(T(m, [1.0, 2]), 4, out=META(m, 4))),
]


@pytest.mark.parametrize("case", HISTC_CASES, ids=_ids(HISTC_CASES))
def test_histc(case):
    _run_case(case)


@pytest.mark.parametrize("dtype", DTYPE_NAMES)
def test_histc_dtypes(dtype):
    data = [0, 1, 1, 3] if dtype != "bool" else [True, False]
    check(lambda m: m.histc(T(m, data, dtype), 4, 0, 3))
    check(lambda m: m.histc(T(m, data, dtype), 4))


def test_histc_bins_match_torch_on_random_data():
    # torch counts float16 / bfloat16 histograms in their own dtype, per thread: a bin past
    # 2048 / 256 elements saturates there (by thread count), so those sizes stay below that
    rng = np.random.default_rng(1)
    for dtype, size in (("float16", 2000), ("bfloat16", 250), ("float32", 3000),
                        ("float64", 3000)):
        data = rng.uniform(-3, 3, size).round(2).tolist()
        for bins, lo, hi in ((7, -2.0, 2.5), (100, 0, 0), (33, -1.7, 1.3), (1, -1, 1)):
            check(lambda m, x=data, d=dtype, b=bins, lo=lo, hi=hi:
                  m.histc(T(m, x, d), b, lo, hi))


# ------------------------------------------------------------------ searchsorted / bucketize

B = [1, 3, 5, 7, 9]
V = [[3, 6, 9], [0, 10, 5]]
BB = [[1, 3, 5], [2, 4, 6]]

SEARCH_CASES = [
    ("plain", lambda m: m.searchsorted(T(m, B), T(m, V))),
    ("right", lambda m: m.searchsorted(T(m, B), T(m, V), right=True)),
    ("side right", lambda m: m.searchsorted(T(m, B), T(m, V), side="right")),
    ("side left", lambda m: m.searchsorted(T(m, B), T(m, V), side="left")),
    ("side right, right=False", lambda m: m.searchsorted(T(m, B), T(m, V), side="right",
                                                         right=False)),
    ("side left, right", lambda m: m.searchsorted(T(m, B), T(m, V), side="left", right=True)),
    ("side bad", lambda m: m.searchsorted(T(m, B), T(m, V), side="foo")),
    ("side bad and right", lambda m: m.searchsorted(T(m, B), T(m, V), side="foo", right=True)),
    ("side int", lambda m: m.searchsorted(T(m, B), T(m, V), side=3)),
    ("out_int32", lambda m: m.searchsorted(T(m, B), T(m, V), out_int32=True)),
    ("scalar", lambda m: m.searchsorted(T(m, B), 4)),
    ("scalar right", lambda m: m.searchsorted(T(m, B), 5, right=True)),
    ("scalar float", lambda m: m.searchsorted(T(m, B), 4.5)),
    ("scalar bool", lambda m: m.searchsorted(T(m, B), True)),
    ("scalar complex", lambda m: m.searchsorted(T(m, B), 1j)),
    ("scalar promotes to float32", lambda m: m.searchsorted(T(m, [1, 2 ** 40 + 1]),
                                                            2.0 ** 40 + 1)),
    ("scalar wraps", lambda m: m.searchsorted(T(m, [1, 50, 100], "uint8"), 300)),
    ("scalar str", lambda m: m.searchsorted(T(m, B), "a")),
    ("0d value", lambda m: m.searchsorted(T(m, B), T(m, 4))),
    ("batched", lambda m: m.searchsorted(T(m, BB), T(m, [[3, 4], [3, 4]]))),
    ("batched right", lambda m: m.searchsorted(T(m, BB), T(m, [[3, 4, 0], [3, 4, 7]]),
                                               right=True)),
    ("batched 3d", lambda m: m.searchsorted(
        T(m, [[[1, 2, 3], [4, 5, 6]], [[0, 0, 9], [1, 1, 1]]]),
        T(m, [[[2, 5], [5, 3]], [[0, 9], [1, 2]]]))),
    ("batched mismatch", lambda m: m.searchsorted(T(m, BB), T(m, [[3, 4]]))),
    ("batched mismatch ndim", lambda m: m.searchsorted(T(m, BB), T(m, [3, 4]))),
    ("batched scalar", lambda m: m.searchsorted(T(m, BB), 3)),
    ("batched 0d value", lambda m: m.searchsorted(T(m, BB), T(m, 3))),
    ("0d boundaries", lambda m: m.searchsorted(T(m, 1), T(m, [3, 4]))),
    ("0d boundaries scalar", lambda m: m.searchsorted(T(m, 1), 1)),
    ("mixed dtypes", lambda m: m.searchsorted(T(m, B), T(m, [4.5]))),
    ("mixed dtypes 2", lambda m: m.searchsorted(T(m, B, "float32"), T(m, [4]))),
    ("mixed dtypes 3", lambda m: m.searchsorted(T(m, [-1, 100], "int8"), T(m, [200], "uint8"))),
    ("mixed 0d float64", lambda m: m.searchsorted(T(m, [1, 2 ** 40 + 1]),
                                                  T(m, 2.0 ** 40 + 1, "float64"))),
    ("sorter", lambda m: m.searchsorted(T(m, [5, 1, 3]), T(m, [2, 4, 0, 6]),
                                        sorter=T(m, [1, 2, 0]))),
    ("sorter right", lambda m: m.searchsorted(T(m, [5, 1, 3, 3]), T(m, [3, 5]), right=True,
                                              sorter=T(m, [1, 2, 3, 0]))),
    ("sorter batched", lambda m: m.searchsorted(T(m, [[3, 1, 2], [9, 7, 8]]),
                                                T(m, [[2, 5], [8, 10]]),
                                                sorter=T(m, [[1, 2, 0], [1, 2, 0]]))),
    ("sorter shape", lambda m: m.searchsorted(T(m, [5, 1, 3]), T(m, [2]), sorter=T(m, [1, 2]))),
    ("sorter dtype", lambda m: m.searchsorted(T(m, [5, 1, 3]), T(m, [2]),
                                              sorter=T(m, [1, 2, 0], "int32"))),
    ("sorter out of range", lambda m: m.searchsorted(T(m, [5, 1, 3]), T(m, [2]),
                                                     sorter=T(m, [1, 2, 3]))),
    ("sorter negative", lambda m: m.searchsorted(T(m, [5, 1, 3]), T(m, [2]),
                                                 sorter=T(m, [1, 2, -1]))),
    ("out", lambda m: m.searchsorted(T(m, B), T(m, V), out=m.empty(0, dtype=m.int64))),
    ("out int32", lambda m: m.searchsorted(T(m, B), T(m, V), out_int32=True,
                                           out=m.empty(0, dtype=m.int32))),
    ("out wrong dtype", lambda m: m.searchsorted(T(m, B), T(m, V),
                                                 out=m.empty(0, dtype=m.int32))),
    ("out resized", lambda m: m.searchsorted(T(m, B), T(m, V), out=m.empty(2, dtype=m.int64))),
    ("out strided", lambda m: m.searchsorted(T(m, B), T(m, V),
                                             out=m.empty(3, 2, dtype=m.int64).t())),
    ("out scalar", lambda m: m.searchsorted(T(m, B), 4, out=m.empty(0, dtype=m.int64))),
    ("nan", lambda m: m.searchsorted(T(m, [1.0, 2, NAN]), T(m, [NAN, 1.5, 3.0]))),
    ("nan right", lambda m: m.searchsorted(T(m, [1.0, 2, NAN]), T(m, [NAN, 1.5, 3.0]),
                                           right=True)),
    ("nan tail", lambda m: m.searchsorted(T(m, [1.0, 2, NAN, NAN, NAN]), T(m, [1.5, 0.0, 5.0]))),
    ("nan values", lambda m: m.searchsorted(T(m, [1.0, 2]), T(m, [NAN, -NAN]), side="right")),
    ("nan single boundary", lambda m: m.searchsorted(T(m, [NAN]), T(m, [1.0, NAN]))),
    ("unsorted boundaries", lambda m: m.searchsorted(T(m, [2, 4, -2, -4, 2, 2]),
                                                     T(m, [-3, 3, 2, -5]))),
    ("unsorted batched", lambda m: m.searchsorted(T(m, [[5, 1, 3, 0], [2, 9, 9, 1]]),
                                                  T(m, [[0, 3, 6], [9, 1, 2]]), right=True)),
    ("nan batched", lambda m: m.searchsorted(T(m, [[1.0, NAN, 3.0], [NAN, NAN, 0.0]]),
                                             T(m, [[2.0, NAN], [0.0, -1.0]]))),
    ("signed zeros", lambda m: m.searchsorted(T(m, [-1.0, -0.0, 0.0, 1.0]), T(m, [0.0, -0.0]))),
    ("empty boundaries", lambda m: m.searchsorted(T(m, []), T(m, [1.0]))),
    ("empty batched boundaries", lambda m: m.searchsorted(m.zeros(2, 0), m.ones(2, 3))),
    ("empty values", lambda m: m.searchsorted(T(m, B), T(m, [], "int64"))),
    ("empty values, bool", lambda m: m.searchsorted(T(m, [True]), T(m, [], "bool"))),
    ("non-contiguous values", lambda m: m.searchsorted(T(m, B), T(m, [[1, 2], [3, 4]]).t())),
    ("non-contiguous boundaries", lambda m: m.searchsorted(T(m, list(range(10)))[::3],
                                                           T(m, [4, 7]))),
    ("meta", lambda m: m.searchsorted(META(m, 3), META(m, 2, 2).t())),
    ("meta scalar", lambda m: m.searchsorted(META(m, 3), 1)),
    ("meta mismatch", lambda m: m.searchsorted(META(m, 2, 3), META(m, 3, 2))),
    ("meta side foo", lambda m: m.searchsorted(META(m, 5), META(m, 2, 3), side="foo")),
    ("meta side left right", lambda m: m.searchsorted(META(m, 5), META(m, 2, 3), side="left",
                                                      right=True)),
    ("meta 0d boundaries", lambda m: m.searchsorted(META(m), META(m, 2, 3))),
    ("meta scalar batched", lambda m: m.searchsorted(META(m, 2, 3), 1)),
    ("meta sorter shape", lambda m: m.searchsorted(META(m, 5), META(m, 2),
                                                   sorter=META(m, 4, dtype="int64"))),
    ("meta sorter dtype", lambda m: m.searchsorted(META(m, 5), META(m, 2),
                                                   sorter=META(m, 5, dtype="int32"))),
    ("meta complex", lambda m: m.searchsorted(META(m, 5, dtype="complex64"), META(m, 2))),
    ("meta out int32", lambda m: m.searchsorted(META(m, 5), META(m, 2, 3),
                                                out=META(m, 0, dtype="int32"))),
    ("meta out float", lambda m: m.searchsorted(META(m, 5), META(m, 2, 3),
                                                out=META(m, 0, dtype="float32"))),
    ("meta out resized", lambda m: m.searchsorted(META(m, 5), META(m, 2, 3),
                                                  out=META(m, 5, dtype="int64"))),
    ("meta out bool", lambda m: m.searchsorted(META(m, 5), META(m, 2, 3),
                                               out=META(m, 0, dtype="bool"))),
    ("meta out strided", lambda m: m.searchsorted(META(m, 5), META(m, 2, 3),
                                                  out=META(m, 3, 2, dtype="int64").t())),
    # bucketize: searchsorted with the arguments swapped and 1-d boundaries
    ("bucketize", lambda m: m.bucketize(T(m, V), T(m, B))),
    ("bucketize right", lambda m: m.bucketize(T(m, V), T(m, B), right=True)),
    ("bucketize int32", lambda m: m.bucketize(T(m, V), T(m, B), out_int32=True)),
    ("bucketize scalar", lambda m: m.bucketize(4, T(m, B))),
    ("bucketize scalar float", lambda m: m.bucketize(4.5, T(m, B), right=True)),
    ("bucketize 0d value", lambda m: m.bucketize(T(m, 4), T(m, B))),
    ("bucketize 2d boundaries", lambda m: m.bucketize(T(m, V), T(m, V))),
    ("bucketize 0d boundaries", lambda m: m.bucketize(T(m, V), T(m, 3))),
    ("bucketize scalar 2d boundaries", lambda m: m.bucketize(3, T(m, V))),
    ("bucketize out", lambda m: m.bucketize(T(m, V), T(m, B), out=m.empty(0, dtype=m.int64))),
    ("bucketize out float", lambda m: m.bucketize(T(m, V), T(m, B), out=m.empty(0))),
    ("bucketize scalar out", lambda m: m.bucketize(4, T(m, B), out=m.empty(0, dtype=m.int64))),
    ("bucketize mixed dtypes", lambda m: m.bucketize(T(m, [1.5]), T(m, B))),
    ("bucketize non-contiguous", lambda m: m.bucketize(T(m, [[1, 2], [3, 4]]).t(), T(m, B))),
    ("bucketize bool", lambda m: m.bucketize(T(m, [True]), T(m, [False, True]))),
    ("bucketize nan", lambda m: m.bucketize(T(m, [NAN, 0.5]), T(m, [0.0, NAN, 1.0]))),
    ("bucketize meta", lambda m: m.bucketize(META(m, 2, 2).t(), META(m, 3))),
    ("bucketize meta 2d", lambda m: m.bucketize(META(m, 2, 2), META(m, 3, 3))),
    ("bucketize meta scalar", lambda m: m.bucketize(1, META(m, 2, 2))),
    ("bucketize meta out", lambda m: m.bucketize(META(m, 2), META(m, 3),
                                                 out=META(m, 0, dtype="int32"))),
    ("no method", lambda m: T(m, B).searchsorted(T(m, V))),
]


@pytest.mark.parametrize("case", SEARCH_CASES, ids=_ids(SEARCH_CASES))
def test_searchsorted_bucketize(case):
    _run_case(case)


@pytest.mark.parametrize("dtype", DTYPE_NAMES)
def test_searchsorted_dtypes(dtype):
    b = [0, 1, 1, 3] if dtype != "bool" else [False, True]
    v = [[1, 0], [3, 2]] if dtype != "bool" else [[True, False]]
    check(lambda m: m.searchsorted(T(m, b, dtype), T(m, v, dtype)))
    check(lambda m: m.searchsorted(T(m, b, dtype), T(m, v, dtype), right=True, out_int32=True))
    check(lambda m: m.bucketize(T(m, v, dtype), T(m, b, dtype), right=True))
    check(lambda m: m.searchsorted(T(m, b, dtype), 1))


def test_searchsorted_noncontiguous_warnings():
    b, v = strided.arange(10.0), strided.tensor([[1.0, 2], [3, 4]])
    sorter = strided.arange(20)[::2] // 2    # contiguous: the sorter below is a view
    sorter = strided.stack([sorter, sorter], 1).view(-1)[::2]
    for name, call in (("input value", lambda: strided.searchsorted(b, v.t())),
                       ("boundary", lambda: strided.bucketize(v, b[::2])),
                       ("sorter", lambda: strided.searchsorted(b, v, sorter=sorter))):
        with pytest.warns(UserWarning, match=f"\\): {name} tensor is non-contiguous"):
            call()


# ------------------------------------------------------------------ property tests

_HYP_DTYPES = ["uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
               "float64"]


@st.composite
def _search_problem(draw):
    dtype = draw(st.sampled_from(_HYP_DTYPES))
    lo, hi = (0, 40) if dtype == "uint8" else (-20, 20)
    lead = draw(st.lists(st.integers(1, 3), min_size=0, max_size=2))   # [] = 1-d boundaries
    n = draw(st.integers(0, 9))
    k = draw(st.integers(0, 6))
    count = int(np.prod(lead, dtype=np.int64))
    bounds = draw(st.lists(st.integers(lo, hi), min_size=n * count, max_size=n * count))
    values = draw(st.lists(st.integers(lo, hi), min_size=k * count, max_size=k * count))
    scale = draw(st.sampled_from([1, 0.5, 0.25])) if dtype.startswith(("float", "bf")) else 1
    bd = np.sort(np.array(bounds, np.int64).reshape(lead + [n]), axis=-1) * scale
    vs = np.array(values, np.int64).reshape(lead + [k]) * scale
    vdtype = draw(st.sampled_from([dtype, dtype, "int64", "float32"]))
    # with a sorter the boundaries come shuffled (one permutation for every row)
    perm = draw(st.none() | st.permutations(range(n)))
    sorter = None
    if perm is not None:
        bd = bd[..., list(perm)]
        sorter = np.broadcast_to(np.argsort(perm), bd.shape).tolist()
    return dtype, vdtype, bd.tolist(), vs.tolist(), sorter, draw(st.booleans()), \
        draw(st.booleans())


@given(_search_problem())
@hyp(150)
def test_searchsorted_bucketize_property(problem):
    dtype, vdtype, bd, vs, sorter, right, out_int32 = problem
    check(lambda m: m.searchsorted(
        T(m, bd, dtype), T(m, vs, vdtype), right=right, out_int32=out_int32,
        sorter=None if sorter is None else T(m, sorter, "int64")))
    if np.asarray(bd).ndim == 1 and sorter is None:
        check(lambda m: m.bucketize(T(m, vs, vdtype), T(m, bd, dtype), right=right,
                                    out_int32=out_int32))


@st.composite
def _unique_problem(draw):
    dtype = draw(st.sampled_from(["bool"] + _HYP_DTYPES))
    shape = draw(st.lists(st.integers(1, 4), min_size=0, max_size=3))
    size = int(np.prod(shape, dtype=np.int64))
    values = draw(st.lists(st.integers(0, 4), min_size=size, max_size=size))
    data = np.array(values).reshape(shape)
    if dtype == "bool":
        data = data > 1
    dim = draw(st.none() | st.integers(-len(shape), len(shape) - 1)) if shape else None
    return dtype, data.tolist(), dim, draw(st.booleans()), draw(st.booleans())


@given(_unique_problem())
@hyp(150)
def test_unique_property(problem):
    dtype, data, dim, inverse, counts = problem
    check(lambda m: m.unique(T(m, data, dtype), return_inverse=inverse, return_counts=counts,
                             dim=dim))
    check(lambda m: m.unique_consecutive(T(m, data, dtype), return_inverse=inverse,
                                         return_counts=counts, dim=dim))


# ------------------------------------------------------------------ namespace

def test_namespace_matches_torch():
    for name in ("unique", "unique_consecutive", "_unique2", "bincount", "histc",
                 "searchsorted", "bucketize"):
        assert hasattr(strided, name) and hasattr(torch, name), name
    for name in ("unique_dim", "unique_dim_consecutive"):
        assert not hasattr(strided, name) and not hasattr(torch, name), name
    for name in ("unique", "unique_consecutive", "bincount", "histc"):
        assert hasattr(strided.Tensor, name) and hasattr(torch.Tensor, name), name
    for name in ("searchsorted", "bucketize", "_unique2"):
        assert not hasattr(strided.Tensor, name) and not hasattr(torch.Tensor, name), name
