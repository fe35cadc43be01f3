"""Kernels against torch: copy_ (layouts, casts, the blocked copy, overlap rules), fill_,
resize_, and the stride rules (non-overlapping-and-dense, preserve_format)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch._prims_common as prims
from conftest import CORE_DTYPE_NAMES, assert_same, check, hyp
from hypothesis import assume, given
from hypothesis import strategies as st

import strided
from strided.kernels import copy as copy_kernel
from strided.kernels import memory_overlap
from strided.kernels.factory import preserved_strides


@st.composite
def views(draw, n=24, max_dims=3):
    """(size, stride, offset) of an in-bounds view of a storage of ``n`` elements."""
    ndim = draw(st.integers(0, max_dims))
    sizes = draw(st.lists(st.integers(0, 4), min_size=ndim, max_size=ndim))
    strides = draw(st.lists(st.integers(0, 6), min_size=ndim, max_size=ndim))
    extent = sum((s - 1) * t for s, t in zip(sizes, strides) if s > 0)
    if 0 in sizes:
        extent = 0
    offset = draw(st.integers(0, max(0, n - 1 - extent)))
    if offset + extent >= n:
        sizes = [0] * ndim if ndim else sizes
        offset = 0
        if not ndim:
            return (), (), 0
    return tuple(sizes), tuple(strides), offset


# =========================================================================== stride rules

@given(views())
@hyp(200)
def test_non_overlapping_and_dense(view):
    size, stride, offset = view
    t = torch.empty(24).as_strided(size, stride, offset)
    assert memory_overlap.is_non_overlapping_and_dense(size, stride) == \
        prims.is_non_overlapping_and_dense_or_false(t)


@given(views())
@hyp(200)
def test_preserved_strides_match_empty_like(view):
    size, stride, offset = view
    t = torch.empty(24).as_strided(size, stride, offset)
    assert preserved_strides(size, stride) == torch.empty_like(t).stride()


@given(views())
@hyp(200)
def test_internal_overlap(view):
    size, stride, offset = view
    expected = {0: memory_overlap.NO, 1: memory_overlap.YES, 2: memory_overlap.TOO_HARD}
    t = torch.empty(24).as_strided(size, stride, offset)
    s = strided.empty(24).as_strided(size, stride, offset)
    assert memory_overlap.has_internal_overlap(s) == expected[torch._debug_has_internal_overlap(t)]


# =========================================================================== copy_ between views

def _addresses(view):
    size, stride, offset = view
    out = [offset]
    for n, st_ in zip(size, stride):
        out = [a + i * st_ for a in out for i in range(n)]
    return out


@given(views(), views())
@hyp(300)
def test_copy_between_views_of_one_storage(dst, src):
    """Overlap errors (internal, partial), broadcasting errors and the values written."""
    def recipe(m):
        base = m.arange(24, dtype=m.float64)
        d = base.as_strided(*dst)
        s = base.as_strided(*src)
        d.copy_(s)
        return base
    try:
        recipe(torch)
    except RuntimeError:
        check(recipe)   # both must refuse, with the same message
        return
    da, sa = _addresses(dst), _addresses(src)
    # torch writes in an unspecified order when the destination overlaps itself or the
    # source: nothing to compare then
    assume(not (len(set(da)) < len(da) or (set(da) & set(sa) and dst != src)))
    check(recipe)


@given(views(), st.sampled_from(CORE_DTYPE_NAMES), st.sampled_from(CORE_DTYPE_NAMES))
@hyp(150)
def test_copy_casts_into_views(dst, src_dtype, dst_dtype):
    da = _addresses(dst)
    # overlapping writes land in an unspecified order: nothing to compare
    assume(not (len(set(da)) < len(da) and torch._debug_has_internal_overlap(
        torch.empty(24).as_strided(*dst)) == 2))

    def recipe(m):
        base = m.zeros(24, dtype=getattr(m, dst_dtype))
        d = base.as_strided(*dst)
        values = m.tensor([-2.5, 0.0, 3.75, 300.0, -1.0, 1e3], dtype=m.float64)
        src = values.to(getattr(m, src_dtype))
        # a broadcast row when the view's last dim fits, else a broadcast scalar
        if d.dim() and d.shape[-1] <= 6:
            d.copy_(src.as_strided((d.shape[-1],), (1,), 0))
        else:
            d.copy_(src.as_strided((), (), 3))
        return base
    check(recipe, warns=False)


@pytest.mark.parametrize("shape,perm", [
    ((300, 200), (1, 0)), ((513, 300), (1, 0)), ((64, 64, 17), (2, 0, 1)),
    ((4, 300, 70), (0, 2, 1)), ((1000, 70), (1, 0)), ((257, 259), (1, 0)),
])
@pytest.mark.parametrize("dtype", ["float32", "int16", "float64", "bool"])
def test_blocked_copy(shape, perm, dtype):
    """Large transposed copies take the tiled path (Note [Blocked copy])."""
    def recipe(m):
        n = int(np.prod(shape))
        src = m.arange(n, dtype=m.float64).view(*shape).to(getattr(m, dtype))
        src = src.as_strided(tuple(shape[p] for p in perm), tuple(src.stride()[p] for p in perm))
        out = m.empty(tuple(shape[p] for p in perm), dtype=getattr(m, dtype))
        return out.copy_(src)
    check(recipe)


@pytest.mark.parametrize("dst_dtype", ["float32", "int32", "uint8"])
def test_blocked_copy_with_cast(dst_dtype):
    def recipe(m):
        src = m.arange(300 * 257, dtype=m.float64).view(300, 257).t()
        out = m.empty(257, 300, dtype=getattr(m, dst_dtype))
        return out.copy_(src)
    check(recipe)


def test_copy_array_helper_tiles():
    src = np.arange(512 * 384, dtype=np.float32).reshape(512, 384).T
    dst = np.empty((384, 512), np.float32)
    copy_kernel.copy_array(dst, src)
    assert (dst == src).all()
    dst16 = np.empty((384, 512), np.float16)
    copy_kernel.copy_array(dst16, src)
    with np.errstate(over="ignore"):
        assert (dst16 == src.astype(np.float16)).all()


# =========================================================================== fill_

@given(views(), st.sampled_from(CORE_DTYPE_NAMES),
       st.one_of(st.integers(-300, 300), st.floats(-1e3, 1e3), st.booleans()))
@hyp(150)
def test_fill_views(view, dtype, value):
    def recipe(m):
        base = m.zeros(24, dtype=getattr(m, dtype))
        base.as_strided(*view).fill_(value)
        return base
    check(recipe)


@pytest.mark.parametrize("dtype", CORE_DTYPE_NAMES + ["uint16", "uint32", "uint64"])
@pytest.mark.parametrize("value", [0, 1, -1, 127, 128, 255, 256, -129, 2**31, 2**63 - 1,
                                   0.5, -0.5, 255.5, 1e10, 3.5e38, 65504.0, 65520.0,
                                   float("inf"), float("nan"), True, 1 + 0j, 2j])
@pytest.mark.parametrize("n", [0, 1, 3])
def test_fill_value_table(dtype, value, n):
    check(lambda m: m.zeros(n, dtype=getattr(m, dtype)).fill_(value))


def test_zero_bumps_version_once():
    for m in (strided, torch):
        t = m.ones(3)
        t.zero_()
        assert t._version == 1


# =========================================================================== resize_

RESIZE_CASES = [
    ("m.zeros(2, 3)", (3, 2)), ("m.zeros(2, 3)", (2, 3)), ("m.zeros(2, 3).t()", (3, 2)),
    ("m.zeros(2, 3).t()", (2, 3)), ("m.zeros(2, 3)", (0,)), ("m.zeros(2, 3)", (4, 4)),
    ("m.zeros(0)", (5,)), ("m.zeros(6).as_strided((2,), (1,), 3)", (3,)),
    ("m.zeros(2, 3)", ()), ("m.zeros(2, 3)", (-1,)), ("m.zeros(2, 3)", (2, -3)),
]


@pytest.mark.parametrize("src,size", RESIZE_CASES)
def test_resize_(src, size):
    make = eval(f"lambda m: {src}")

    def recipe(m):
        t = make(m)
        t.fill_(1)
        r = t.resize_(size)
        assert r is t
        return (t.shape, t.stride(), t.storage_offset(), t.untyped_storage().nbytes() >=
                t.numel() * t.element_size(), t._version)
    check(recipe)


def test_resize_grows_storage_keeps_prefix():
    def recipe(m):
        t = m.arange(6, dtype=m.int64)
        t.resize_(2, 2)
        prefix = t.clone()
        t.resize_(100)
        return prefix, t.as_strided((6,), (1,), 0).clone(), t.untyped_storage().nbytes()
    check(recipe)


def test_resize_not_resizable():
    check(lambda m: m.from_numpy(np.zeros(3)).resize_(10))


def test_resize_meta():
    def recipe(m):
        t = m.empty(2, device="meta")
        t.resize_(5, 5)
        return t
    rs, rt = recipe(strided), recipe(torch)
    assert_same(rs, rt)
