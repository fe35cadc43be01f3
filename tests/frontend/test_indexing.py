"""``t[idx]`` / ``t[idx] = v`` against torch over generated index expressions."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import strided

SETTINGS = settings(max_examples=300, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


# -- building the same tensor and the same index for both libraries -------------------------

def make_pair(shape, layout):
    """Equal tensors in both libraries: contiguous, transposed, or a strided slice."""
    n = int(np.prod(shape)) if shape else 1
    if layout == "contiguous":
        return (strided.arange(n).view(shape) if shape else strided.tensor(7),
                torch.arange(n).view(shape) if shape else torch.tensor(7))
    if layout == "transposed" and len(shape) >= 2:
        rev = tuple(reversed(shape))
        perm = tuple(reversed(range(len(shape))))
        return (strided.arange(n).view(rev).permute(perm),
                torch.arange(n).view(rev).permute(perm))
    # every other element of a larger buffer: non-contiguous, with an offset
    big = (n * 2 + 1)
    s = strided.arange(big)[1::2][:n]
    t = torch.arange(big)[1::2][:n]
    return (s.as_strided(shape, _contig_strides(shape, 2), 1) if shape else s[0],
            t.as_strided(shape, _contig_strides(shape, 2), 1) if shape else t[0])


def _contig_strides(shape, scale):
    strides, acc = [], scale
    for size in reversed(shape):
        strides.append(acc)
        acc *= max(size, 1)
    return tuple(reversed(strides))


class Idx:
    """An index item description turned into each library's object on demand."""

    def __init__(self, kind, value):
        self.kind, self.value = kind, value

    def build(self, lib):
        k, v = self.kind, self.value
        if k in ("int", "slice", "none", "ellipsis", "bool", "list"):
            return v
        if k == "tensor":
            return lib.tensor(v, dtype=lib.int64)
        if k == "zero_dim":
            return lib.tensor(v)
        if k == "mask":
            return lib.tensor(np.array(v, dtype=bool))
        raise AssertionError(k)

    def __repr__(self):
        return f"{self.kind}:{self.value!r}"


@st.composite
def index_exprs(draw, max_dims=4):
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=0, max_size=max_dims)))
    items = []
    dim = 0
    used_ellipsis = False
    for _ in range(draw(st.integers(0, len(shape) + 1))):
        kinds = ["none", "bool"]
        if dim < len(shape):
            kinds += ["int", "slice", "tensor", "list", "zero_dim", "mask"]
        if not used_ellipsis:
            kinds.append("ellipsis")
        kind = draw(st.sampled_from(kinds))
        size = shape[dim] if dim < len(shape) else 1
        if kind == "int":
            items.append(Idx(kind, draw(st.integers(-size, size - 1))))
            dim += 1
        elif kind == "slice":
            start = draw(st.one_of(st.none(), st.integers(-size - 1, size + 1)))
            stop = draw(st.one_of(st.none(), st.integers(-size - 1, size + 1)))
            step = draw(st.one_of(st.none(), st.integers(1, 3)))
            items.append(Idx(kind, slice(start, stop, step)))
            dim += 1
        elif kind in ("tensor", "list"):
            n = draw(st.integers(1, 3))
            vals = draw(st.lists(st.integers(-size, size - 1), min_size=n, max_size=n))
            items.append(Idx(kind, vals))
            dim += 1
        elif kind == "zero_dim":
            items.append(Idx(kind, draw(st.integers(-size, size - 1))))
            dim += 1
        elif kind == "mask":
            k = draw(st.integers(1, min(2, len(shape) - dim)))
            mshape = shape[dim:dim + k]
            vals = draw(st.lists(st.booleans(), min_size=int(np.prod(mshape)),
                                 max_size=int(np.prod(mshape))))
            items.append(Idx(kind, np.array(vals, dtype=bool).reshape(mshape).tolist()))
            dim += k
        elif kind == "none":
            items.append(Idx(kind, None))
        elif kind == "bool":
            items.append(Idx(kind, draw(st.booleans())))
        elif kind == "ellipsis":
            items.append(Idx(kind, Ellipsis))
            used_ellipsis = True
            dim = max(dim, len(shape) - (len(shape) - dim))
    layout = draw(st.sampled_from(["contiguous", "transposed", "strided"]))
    single = len(items) == 1 and draw(st.booleans())
    return shape, layout, items, single


def _index(items, lib, single):
    built = [i.build(lib) for i in items]
    return built[0] if single else tuple(built)


def _outcome(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return "ok", fn()
        except Exception as e:  # noqa: BLE001 - the exception itself is what we compare
            return "error", e


def assert_same_tensor(s, t, base_s=None, base_t=None):
    assert tuple(s.shape) == tuple(t.shape)
    assert s.dtype.name == str(t.dtype).replace("torch.", "")
    assert s.tolist() == t.tolist()
    if base_t is not None and t.numel() > 0:
        t_shares = t.untyped_storage().data_ptr() == base_t.untyped_storage().data_ptr()
        s_shares = s.untyped_storage().data_ptr() == base_s.untyped_storage().data_ptr()
        assert s_shares == t_shares
        if t_shares:
            assert s.stride() == t.stride()
            assert s.storage_offset() - base_s.storage_offset() == \
                t.storage_offset() - base_t.storage_offset()


def assert_same_outcome(rs, rt):
    kind_s, vs = rs
    kind_t, vt = rt
    assert kind_s == kind_t, (vs, vt)
    if kind_t == "error":
        assert type(vs) is type(vt), (vs, vt)
        assert str(vs) == str(vt)
    return vs, vt


@SETTINGS
@given(index_exprs())
def test_getitem_matches_torch(expr):
    shape, layout, items, single = expr
    s, t = make_pair(shape, layout)
    rs = _outcome(lambda: s[_index(items, strided, single)])
    rt = _outcome(lambda: t[_index(items, torch, single)])
    vs, vt = assert_same_outcome(rs, rt)
    if rt[0] == "ok":
        assert_same_tensor(vs, vt, s, t)


@SETTINGS
@given(index_exprs(), st.sampled_from(["scalar", "float_scalar", "tensor", "zero_dim"]))
def test_setitem_matches_torch(expr, value_kind):
    shape, layout, items, single = expr
    s, t = make_pair(shape, layout)
    rt_shape = _outcome(lambda: t[_index(items, torch, single)])
    if rt_shape[0] == "error":
        target_shape = ()
    else:
        target_shape = tuple(rt_shape[1].shape)

    def value(lib):
        if value_kind == "scalar":
            return -5
        if value_kind == "float_scalar":
            return 1.7
        if value_kind == "zero_dim":
            return lib.tensor(-3)
        n = int(np.prod(target_shape)) if target_shape else 1
        return lib.arange(-10, -10 - n, -1).view(target_shape) if target_shape else \
            lib.tensor(-9)

    def assign(lib, x):
        x[_index(items, lib, single)] = value(lib)
        return x

    rs = _outcome(lambda: assign(strided, s))
    rt = _outcome(lambda: assign(torch, t))
    assert_same_outcome(rs, rt)
    if rt[0] == "ok":   # after an error torch may have written part of the values; we don't
        assert s.tolist() == t.tolist()


# -- the seed's examples and the documented rules ---------------------------------------------

def seed_tensor(lib):
    return lib.tensor([[1, 2, 3], [4, 5, 6], [7, 8, 9]])


def test_seed_basic_setitem():
    s, t = seed_tensor(strided), seed_tensor(torch)
    s[1, 2] = 3
    t[1, 2] = 3
    assert s.tolist() == t.tolist()
    assert s._version == t._version


def test_seed_advanced_setitem():
    s, t = seed_tensor(strided), seed_tensor(torch)
    s[strided.tensor([0, 2]), strided.tensor([1, 1])] = 10
    t[torch.tensor([0, 2]), torch.tensor([1, 1])] = 10
    assert s.tolist() == t.tolist() == [[1, 10, 3], [4, 5, 6], [7, 10, 9]]


def test_basic_indexing_returns_views_and_advanced_returns_copies():
    s = strided.arange(12).view(3, 4)
    v = s[1:, ::2]
    assert v._base is s._base and v.untyped_storage().data_ptr() == s.untyped_storage().data_ptr()
    c = s[[0, 2]]
    assert c._base is None
    c[0, 0] = 100
    assert s[0, 0].item() == 0
    v[0, 0] = 55
    assert s[1, 0].item() == 55


def test_zero_dim_integer_tensor_behaves_like_int():
    s, t = strided.arange(12).view(3, 4), torch.arange(12).view(3, 4)
    rs, rt = s[strided.tensor(1), 2], t[torch.tensor(1), 2]
    assert rs.tolist() == rt.tolist() and rs.shape == rt.shape
    assert rs.storage_offset() == rt.storage_offset()


def test_value_conversion_to_destination_dtype():
    s, t = strided.zeros(3, dtype=strided.int64), torch.zeros(3, dtype=torch.int64)
    s[0] = 1.7
    t[0] = 1.7
    s[1:] = strided.tensor([2.9, 3.9])
    t[1:] = torch.tensor([2.9, 3.9])
    assert s.tolist() == t.tolist() == [1, 2, 3]


def test_leading_ones_of_value_are_stripped():
    s, t = strided.zeros(2, 3), torch.zeros(2, 3)
    s[:, :] = strided.ones(1, 1, 3)
    t[:, :] = torch.ones(1, 1, 3)
    assert s.tolist() == t.tolist()
    s2, t2 = strided.zeros(4), torch.zeros(4)
    s2[strided.tensor([1, 3])] = strided.tensor([[5.0, 6.0]])
    t2[torch.tensor([1, 3])] = torch.tensor([[5.0, 6.0]])
    assert s2.tolist() == t2.tolist()


def test_setitem_bumps_version_and_is_seen_through_aliases():
    s = strided.zeros(3, 4)
    v = s.t()
    before = s._version
    v[1, 2] = 8
    assert s[2, 1].item() == 8
    assert s._version == v._version > before


@pytest.mark.parametrize("bad", [
    lambda m, t: t[1.5],
    lambda m, t: t["a"],
    lambda m, t: t[0, 0, 0, 0],
    lambda m, t: m.tensor(5)[0],
    lambda m, t: t[5],
    lambda m, t: t[:, 7],
    lambda m, t: t[::-1],
    lambda m, t: t[::0],
    lambda m, t: t[m.tensor([0.5])],
    lambda m, t: t[m.tensor([5])],
    lambda m, t: t[m.ones(1, 3, dtype=m.bool)],
    lambda m, t: t[m.tensor([0, 1]), m.tensor([0, 1, 2])],
    lambda m, t: t[object()],
])
def test_getitem_errors_match_torch(bad):
    rs = _outcome(lambda: bad(strided, strided.arange(24).view(2, 3, 4)))
    rt = _outcome(lambda: bad(torch, torch.arange(24).view(2, 3, 4)))
    assert rt[0] == "error"
    assert_same_outcome(rs, rt)


@pytest.mark.parametrize("bad", [
    lambda m, t: t.__setitem__(0, m.ones(4)),
    lambda m, t: t.__setitem__(m.tensor([0]), m.ones(2, 2)),
    lambda m, t: t.__setitem__(m.tensor([0]), m.ones(3, dtype=m.float64)),
    lambda m, t: t.__delitem__(0),
])
def test_setitem_errors_match_torch(bad):
    rs = _outcome(lambda: bad(strided, strided.zeros(2, 3)))
    rt = _outcome(lambda: bad(torch, torch.zeros(2, 3)))
    assert rt[0] == "error"
    assert_same_outcome(rs, rt)


def test_meta_tensor_indexing_keeps_shapes():
    m = strided.empty(4, 5, device="meta")
    t = torch.empty(4, 5, device="meta")
    for idx in [1, (slice(1, 3), 2), (None, Ellipsis, 0)]:
        assert tuple(m[idx].shape) == tuple(t[idx].shape)
        assert m[idx].stride() == t[idx].stride()
