"""The shape ops that copy, against torch: cat / concat / concatenate, stack and its
h/v/d/column variants, flip, roll, rot90, repeat, tile, repeat_interleave, tril / triu,
diag, diag_embed, diagflat, block_diag, meshgrid, cartesian_prod, combinations and
nn.functional.pad. Values (exact), dtypes, shapes, strides, out=, meta tensors, errors.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from close_check import Arr, check, check_meta
from conftest import CORE_DTYPE_NAMES, hyp
from hypothesis import given
from hypothesis import strategies as hst

import strided

LAYOUTS = ["contiguous", "transposed", "strided"]


def T(m, shape, dtype="float32", layout="contiguous"):
    """A tensor of distinct small values (exact in every dtype)."""
    n = int(np.prod(shape))
    t = m.arange(n, dtype=m.float64).view(shape).to(getattr(m, dtype))
    if layout == "transposed" and t.dim() >= 2:
        t = t.mT.contiguous().mT
    elif layout == "strided" and t.dim() >= 1:
        big = m.zeros(tuple(2 * s for s in shape), dtype=t.dtype)
        view = big[tuple(slice(None, None, 2) for _ in shape)]
        view.copy_(t)
        t = view
    return t


def CL(m, shape):
    return T(m, shape).to(memory_format=m.channels_last) if m is torch else \
        T(m, shape).permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2)


# =============================================================================== cat

CAT_CASES = [
    # (list of (shape, dtype), dim)
    ([((2, 3), "float32"), ((2, 3), "float32")], 0),
    ([((2, 3), "float32"), ((2, 3), "float32")], 1),
    ([((2, 3), "float32"), ((4, 3), "float32"), ((1, 3), "float32")], 0),
    ([((2, 3), "float32"), ((2, 3), "float64")], 0),
    ([((2, 3), "int32"), ((2, 3), "bool")], 0),
    ([((2, 3), "bool"), ((2, 3), "bool")], -1),
    ([((2, 3), "int32"), ((2, 3), "float32")], 0),
    ([((2, 3), "uint8"), ((2, 3), "int8")], 0),
    ([((2, 3), "float32"), ((2, 3), "complex128")], 0),
    ([((2, 3), "bfloat16"), ((2, 3), "float16")], 0),
    ([((2, 3), "float32"), ((0,), "float32")], 0),
    ([((0,), "float32"), ((2, 3), "float32")], 1),
    ([((0,), "float32"), ((0,), "float32")], 0),
    ([((0,), "float32"), ((2, 3), "int32")], 0),
    ([((0,), "int64"), ((2, 3), "int32")], 0),
    ([((2, 3), "float32"), ((0, 3), "float32")], 0),
    ([((2, 3), "float32"), ((0, 3), "float32")], 1),
    ([((2, 3), "float32"), ((2,), "float32")], 0),
    ([((2, 3), "float32"), ((2, 4), "float32")], 0),
    ([((2, 3), "float32"), ((3, 4), "float32")], 1),
    ([((2, 3), "float32")], 2),
    ([((2, 3), "float32")], -3),
    ([((), "float32")], 0),
    ([((), "float32"), ((2, 3), "float32")], 0),
    ([((2, 3), "float32"), ((), "float32")], 0),
    ([((2, 0), "float32"), ((3, 0), "float32")], 0),
    ([((2, 0), "float32"), ((3, 1), "float32")], 0),
    ([((0,), "float32"), ((2, 2), "float32")], 1),
    ([((0,), "float32"), ((2, 2), "float32")], 5),
    ([((0, 2), "float32"), ((2, 3), "float32")], 0),
    ([((2, 2), "float32"), ((2, 2, 2), "float32")], 0),
    ([((2, 3, 4), "float32"), ((2, 5, 4), "float32"), ((2, 1, 4), "float32")], 1),
    ([((2, 3), "float32")] * 5, 0),
]


@pytest.mark.parametrize("case", CAT_CASES, ids=str)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name", ["cat", "concat", "concatenate"])
def test_cat(case, layout, name):
    specs, dim = case
    check(lambda m: getattr(m, name)([T(m, s, d, layout) for s, d in specs], dim))


@pytest.mark.parametrize("case", CAT_CASES, ids=str)
def test_cat_meta(case):
    specs, dim = case
    check_meta(lambda m: m.cat([T(m, s, d).to("meta") for s, d in specs], dim))


@pytest.mark.parametrize("out_kind", ["empty", "right", "wrong_size", "double", "int",
                                      "transposed"])
def test_cat_out(out_kind):
    def recipe(m):
        a, b = T(m, (2, 3)), T(m, (4, 3))
        out = {"empty": lambda: m.empty(0), "right": lambda: m.empty(6, 3),
               "wrong_size": lambda: m.zeros(5), "double": lambda: m.empty(0, dtype=m.float64),
               "int": lambda: m.empty(0, dtype=m.int32),
               "transposed": lambda: m.empty(3, 6).t()}[out_kind]()
        r = m.cat([a, b], out=out)
        assert r is out
        return out
    check(recipe)


def test_cat_errors_and_keywords():
    check(lambda m: m.cat([]))
    check(lambda m: m.cat((T(m, (2, 3)), T(m, (2, 3))), dim=1))
    check(lambda m: m.cat([T(m, (2, 3)), T(m, (2, 3))], 1.0))
    check(lambda m: m.cat([T(m, (2, 3)), T(m, (2, 3)).to(m.complex64)],
                          out=m.empty(0)))
    check(lambda m: m.cat([T(m, (2, 3)), T(m, (2, 3)).to("meta")]))

    def overlap(m):
        f = T(m, (2, 3))
        return m.cat([f, f], out=f)
    check(overlap)


def test_cat_channels_last():
    check(lambda m: m.cat([CL(m, (2, 3, 4, 5)), CL(m, (2, 3, 4, 5))], 1))
    check(lambda m: m.cat([CL(m, (2, 3, 4, 5)), T(m, (2, 3, 4, 5))], 1))
    check(lambda m: m.cat([T(m, (2, 3, 4, 5)), CL(m, (2, 3, 4, 5))], 0))
    check(lambda m: m.cat([CL(m, (2, 3, 4, 5)), CL(m, (1, 3, 4, 5))], 0))


def test_cat_tiny_fast_path_versions():
    # the byte-copy path gives a fresh tensor: version 0, its own storage
    def recipe(m):
        a, b = T(m, (2, 3)), T(m, (2, 3))
        r = m.cat([a, b])
        return r, r._version, r.data_ptr() != a.data_ptr()
    check(recipe)
    check(lambda m: m.cat([T(m, (2, 3))[1:], T(m, (3, 3))[::2]]))


# =============================================================================== stack family

STACK_CASES = [
    ([(2, 3), (2, 3)], 0), ([(2, 3), (2, 3)], 2), ([(2, 3), (2, 3)], -1),
    ([(2, 3), (2, 3)], 3), ([(2, 3), (3, 2)], 0), ([(0,), (0,)], 0), ([(2, 3), (0,)], 0),
    ([(), ()], 0), ([(3,)], -2),
]


@pytest.mark.parametrize("case", STACK_CASES, ids=str)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_stack(case, layout):
    shapes, dim = case
    check(lambda m: m.stack([T(m, s, layout=layout) for s in shapes], dim))


def test_stack_dtypes_and_out():
    check(lambda m: m.stack([T(m, (2, 3)), T(m, (2, 3), "int32")]))
    check(lambda m: m.stack([T(m, (2, 3)), T(m, (2, 3))], out=m.empty(0, dtype=m.float64)))
    check(lambda m: m.stack([]))
    check(lambda m: m.stack([T(m, (2, 3), "bool"), T(m, (2, 3), "bool")], 1))


HV_CASES = [
    [(2, 3), (2, 3)], [(3,), (2,)], [(), (2,)], [(3,), (3,)], [(3,), (2,)], [(2, 3), (3,)],
    [(), ()], [(2, 3, 4), (2, 3, 4)], [(3,), (3, 2)], [(), (1, 2)], [(2, 2), (3, 2)],
]


@pytest.mark.parametrize("shapes", HV_CASES, ids=str)
@pytest.mark.parametrize("name", ["hstack", "vstack", "row_stack", "dstack", "column_stack"])
def test_hvd_stack(shapes, name):
    check(lambda m: getattr(m, name)([T(m, s, layout="transposed") for s in shapes]))


@pytest.mark.parametrize("name", ["hstack", "vstack", "row_stack", "dstack", "column_stack"])
def test_hvd_stack_empty_and_out(name):
    check(lambda m: getattr(m, name)([]))

    def recipe(m):
        out = m.empty(0, dtype=m.float64)
        r = getattr(m, name)([T(m, (2, 2)), T(m, (2, 2), "int32")], out=out)
        return r is out, out
    check(recipe)


# =============================================================================== flips, rolls

FLIP_CASES = [((2, 3, 4), [0]), ((2, 3, 4), [0, 2]), ((2, 3, 4), []), ((2, 3, 4), [0, 0]),
              ((2, 3, 4), [3]), ((2, 3, 4), [-1, 1]), ((), [0]), ((), []), ((0, 3), [0]),
              ((5,), [0])]


@pytest.mark.parametrize("case", FLIP_CASES, ids=str)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_flip(case, layout):
    shape, dims = case
    check(lambda m: m.flip(T(m, shape, layout=layout), dims))
    check(lambda m: T(m, shape, layout=layout).flip(*dims) if dims else
          T(m, shape, layout=layout).flip(dims))


@pytest.mark.parametrize("shape", [(3,), (2, 3), (2, 3, 4), ()], ids=str)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_fliplr_flipud(shape, layout):
    check(lambda m: m.fliplr(T(m, shape, layout=layout)))
    check(lambda m: m.flipud(T(m, shape, layout=layout)))
    check(lambda m: m.flip(T(m, shape, layout=layout).permute(*reversed(range(len(shape)))),
                           [0]))


ROLL_CASES = [((2, 3, 4), 1, ()), ((2, 3, 4), 1, 0), ((2, 3, 4), (1, -2), (0, 2)),
              ((2, 3, 4), (1, 2), 0), ((2, 3, 4), 1, 5), ((2, 3, 4), (), ()), ((), 1, ()),
              ((2, 3, 4), 100, 1), ((0, 3), 1, 0), ((2, 3, 4), (1,), (0, 1)),
              ((2, 3, 4), (1, 2), ()), ((2, 3, 4), -7, ())]


@pytest.mark.parametrize("case", ROLL_CASES, ids=str)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_roll(case, layout):
    shape, shifts, dims = case
    check(lambda m: m.roll(T(m, shape, layout=layout), shifts, dims))


ROT_CASES = [(1, [0, 1]), (2, [0, 1]), (-1, [0, 1]), (3, [1, 0]), (4, [0, 1]), (0, [0, 1]),
             (1, [0, 0]), (1, [0]), (1, [0, 5]), (1, [0, -2]), (5, [1, -1])]


@pytest.mark.parametrize("case", ROT_CASES, ids=str)
@pytest.mark.parametrize("shape", [(3, 4), (2, 3, 4), (4,)], ids=str)
def test_rot90(case, shape):
    k, dims = case
    check(lambda m: m.rot90(T(m, shape), k, dims))


# =============================================================================== repeats

REPEAT_CASES = [((3, 4), (2, 3)), ((3, 4), (2, 1, 3)), ((3, 4), (2,)), ((3, 4), (0, 2)),
                ((3, 4), (1, 1)), ((), (2,)), ((), ()), ((3, 4), (-1, 2)), ((2,), (3, 2, 1))]


@pytest.mark.parametrize("case", REPEAT_CASES, ids=str)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_repeat_tile(case, layout):
    shape, reps = case
    check(lambda m: T(m, shape, layout=layout).repeat(reps))
    if reps:
        check(lambda m: T(m, shape, layout=layout).repeat(*reps))
    check(lambda m: m.tile(T(m, shape, layout=layout), reps))
    check(lambda m: T(m, shape, layout=layout).tile(reps))


def _ints(m, values, dtype="int64"):
    return m.tensor(values, dtype=getattr(m, dtype))


INTERLEAVE_CASES = [
    lambda m: m.repeat_interleave(_ints(m, [1, 2, 0])),
    lambda m: m.repeat_interleave(_ints(m, [1, 2, 0], "int32")),
    lambda m: m.repeat_interleave(_ints(m, [1, 2, 0]).float()),
    lambda m: m.repeat_interleave(_ints(m, [[1, 2, 0]])),
    lambda m: m.repeat_interleave(-_ints(m, [1, 2, 0])),
    lambda m: m.repeat_interleave(_ints(m, [1, 2, 0]), output_size=3),
    lambda m: m.repeat_interleave(_ints(m, [1, 2, 0]), output_size=5),
    lambda m: m.repeat_interleave(T(m, (3, 4)), 2),
    lambda m: m.repeat_interleave(T(m, (3, 4)), 2, 0),
    lambda m: m.repeat_interleave(T(m, (3, 4)), 2, -1),
    lambda m: m.repeat_interleave(T(m, (3, 4)), _ints(m, [1, 2, 0]), 0),
    lambda m: m.repeat_interleave(T(m, (3, 4)), _ints(m, [1, 2, 0]), 1),
    lambda m: m.repeat_interleave(T(m, (3, 4)), m.tensor(2), 1),
    lambda m: m.repeat_interleave(T(m, (3, 4)), _ints(m, [2]), 1),
    lambda m: m.repeat_interleave(T(m, (3, 4)), -1),
    lambda m: m.repeat_interleave(T(m, (3, 4), layout="transposed"), 2, 0),
    lambda m: m.repeat_interleave(T(m, (3, 4)), _ints(m, [1, 2, 0])),
    lambda m: m.repeat_interleave(T(m, (3,)), _ints(m, [1, 2, 0])),
    lambda m: m.repeat_interleave(T(m, ()), 3),
    lambda m: m.repeat_interleave(T(m, (3, 4)), 2, 3),
    lambda m: m.repeat_interleave(T(m, (3, 4)), _ints(m, [1, 2, 0]).float(), 0),
    lambda m: T(m, (3, 4)).repeat_interleave(2),
    lambda m: T(m, (3, 4)).repeat_interleave(_ints(m, [0, 1, 3]), dim=0),
    lambda m: m.repeat_interleave(T(m, (3,)), _ints(m, [1, 2, 0]), output_size=2),
    lambda m: m.repeat_interleave(T(m, (3, 4)), 0, 1),
]


@pytest.mark.parametrize("case", range(len(INTERLEAVE_CASES)))
def test_repeat_interleave(case):
    check(INTERLEAVE_CASES[case])


# =============================================================================== tril / triu / diag

@pytest.mark.parametrize("shape", [(3, 4), (4, 3), (2, 3, 4), (3,), (0, 3), (3, 3)], ids=str)
@pytest.mark.parametrize("diagonal", [0, 1, -1, -5, 7])
@pytest.mark.parametrize("name", ["tril", "triu"])
@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
def test_tril_triu(shape, diagonal, name, layout):
    check(lambda m: getattr(m, name)(T(m, shape, layout=layout), diagonal))

    def inplace(m):
        t = T(m, shape, layout=layout)
        r = getattr(t, name + "_")(diagonal)
        return r is t, t, t._version
    check(inplace)


@pytest.mark.parametrize("name", ["tril", "triu"])
@pytest.mark.parametrize("dtype", ["bool", "int64", "complex64", "bfloat16"])
def test_tril_triu_dtypes_out(name, dtype):
    check(lambda m: getattr(m, name)(T(m, (3, 4), dtype), 1))
    check(lambda m: getattr(m, name)(T(m, (3, 4)), out=m.empty(0)))
    check(lambda m: getattr(m, name)(T(m, (3, 4)), out=m.empty(0, dtype=m.int64)))


DIAG_CASES = [((3,), 0), ((3,), 1), ((3,), -2), ((3, 4), 0), ((3, 4), 2), ((3, 4), -3),
              ((3, 4), 9), ((2, 3, 4), 0), ((), 0), ((0,), 1), ((0, 3), 0)]


@pytest.mark.parametrize("case", DIAG_CASES, ids=str)
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "strided"])
def test_diag(case, layout):
    shape, k = case
    check(lambda m: m.diag(T(m, shape, layout=layout), k))
    check(lambda m: m.diagflat(T(m, shape, layout=layout), k))


@pytest.mark.parametrize("shape", [(3,), (3, 4)], ids=str)
@pytest.mark.parametrize("out_dtype", ["int64", "float64", "float32"])
def test_diag_out(shape, out_dtype):
    def recipe(m):
        out = m.empty(0, dtype=getattr(m, out_dtype))
        r = m.diag(T(m, shape), 1, out=out)
        return r is out, out
    check(recipe)


DIAG_EMBED_CASES = [((3,), 0, -2, -1), ((3, 4), 1, -2, -1), ((3, 4), -1, 0, 2),
                    ((3, 4), 0, 1, 1), ((3, 4), 0, 0, 5), ((), 0, -2, -1), ((2, 3), 0, 2, 0)]


@pytest.mark.parametrize("case", DIAG_EMBED_CASES, ids=str)
@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
def test_diag_embed(case, layout):
    shape, offset, d1, d2 = case
    check(lambda m: m.diag_embed(T(m, shape, layout=layout), offset, d1, d2))


BLOCK_CASES = [[(3, 4), (3,), ()], [], [(2, 3, 4)], [(3, 4), (2,)], [(0, 2), (3, 4)],
               [(2, 2)], [(1, 0), (0, 1)]]


@pytest.mark.parametrize("shapes", BLOCK_CASES, ids=str)
def test_block_diag(shapes):
    check(lambda m: m.block_diag(*(T(m, s, layout="transposed") for s in shapes)))


def test_block_diag_dtypes():
    check(lambda m: m.block_diag(T(m, (3, 4)), T(m, (3,), "int32")))
    check(lambda m: m.block_diag(T(m, (3, 4), "complex64"), T(m, (3,))))
    check(lambda m: m.block_diag(T(m, (2, 2), "bool"), T(m, (1,), "bool")))


# =============================================================================== grids

@pytest.mark.parametrize("indexing", ["ij", "xy"])
@pytest.mark.parametrize("shapes", [[(3,), (2,)], [(3,), ()], [(3,), (2,), (4,)], [(0,), (2,)],
                                    [(3,)]], ids=str)
def test_meshgrid(indexing, shapes):
    check(lambda m: m.meshgrid(*(T(m, s) for s in shapes), indexing=indexing))
    check(lambda m: m.meshgrid([T(m, s) for s in shapes], indexing=indexing)[0]._base is not
          None if len(shapes) < 3 else True)


def test_meshgrid_errors_and_default():
    # torch prints the offending tensor with its C++ printer; the text before it is compared
    with pytest.raises(RuntimeError, match="^torch.meshgrid: Expected 0D or 1D tensor in the "
                       "tensor list but got:"):
        strided.meshgrid(strided.ones(3), strided.ones(3, 4), indexing="ij")
    check(lambda m: m.meshgrid(T(m, (3,)), T(m, (3,), "int32"), indexing="ij"))
    check(lambda m: m.meshgrid(indexing="ij"))
    check(lambda m: m.meshgrid(T(m, (3,)), indexing="foo"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        grids = strided.meshgrid(strided.arange(3), strided.arange(2))
    assert [g.shape for g in grids] == [(3, 2), (3, 2)]
    assert len(caught) <= 1
    check(lambda m: m.meshgrid(T(m, (3,)), T(m, (2,))), warns=False)


@pytest.mark.parametrize("shapes", [[(3,), (2,)], [(3,)], [(3,), (3, 4)], [], [(3,), (0,)],
                                    [(2,), (2,), (2,)]], ids=str)
def test_cartesian_prod(shapes):
    check(lambda m: m.cartesian_prod(*(T(m, s) for s in shapes)))


def test_cartesian_prod_dtypes():
    check(lambda m: m.cartesian_prod(T(m, (3,)), T(m, (2,), "int32")))

    def same(m):
        v = T(m, (3,))
        return m.cartesian_prod(v) is v
    check(same)


@pytest.mark.parametrize("r", [0, 1, 2, 3, 5, -1])
@pytest.mark.parametrize("with_replacement", [False, True])
@pytest.mark.parametrize("shape", [(4,), (0,), (3, 4)], ids=str)
def test_combinations(r, with_replacement, shape):
    check(lambda m: m.combinations(T(m, shape, "int64"), r, with_replacement))
    check(lambda m: m.combinations(T(m, shape, "float32", "strided"), r=r,
                                   with_replacement=with_replacement))


# =============================================================================== pad

PAD_CASES = [
    ((3, 4), (1, 2), "constant", None), ((3, 4), (1, 2, 0, 1), "constant", None),
    ((3, 4), (1, 2, 0, 1, 1, 1), "constant", None), ((3, 4), (1, 2, 0), "constant", None),
    ((3, 4), (-1, 2), "constant", None), ((3, 4), (1, 2), "constant", 3.5),
    ((3, 4), (-3, -2), "constant", None), ((3, 4), (-5, 0), "constant", None),
    ((3, 4), (1, 2), "reflect", None), ((3, 4), (3, 2), "reflect", None),
    ((3, 4), (4, 2), "reflect", None), ((3,), (1, 1), "reflect", None),
    ((2, 3, 4), (1, 1), "reflect", None), ((2, 3, 4), (1, 1, 1, 1), "reflect", None),
    ((1, 2, 3, 4), (1, 1, 1, 1, 1, 1), "reflect", None),
    ((1, 1, 2, 3, 4), (1, 1, 1, 1, 1, 1), "reflect", None),
    ((3, 4), (1, 2), "reflect", 1.0), ((3, 4), (1, 2), "replicate", None),
    ((2, 3, 4), (1, 1, 2, 0), "replicate", None), ((3,), (1, 1), "replicate", None),
    ((3, 4), (5, 2), "replicate", None), ((3, 4), (-1, 2), "replicate", None),
    ((3, 4), (-1, 2), "reflect", None), ((3, 4), (1, 2), "circular", None),
    ((2, 3, 4), (1, 2, 1, 0), "circular", None), ((2, 3, 4), (5, 2), "circular", None),
    ((2, 3, 4), (4, 2), "circular", None), ((3,), (1, 1), "circular", None),
    ((2, 3, 4), (-1, 2), "circular", None), ((3, 4), (1, 2), "foo", None),
    ((2, 3, 4), (1, 1, 1, 1), "replicate", None), ((0, 3), (1, 1), "constant", None),
    ((0, 3), (1, 1), "reflect", None), ((2, 0), (1, 1), "replicate", None),
    ((), (1, 1), "constant", None), ((3, 4), (1,), "reflect", None),
    ((1, 2, 3, 4), (1, 2, 0, 1, 2, 2), "circular", None),
    ((2, 3, 4), (0, 0, 1, 1), "reflect", None),
]


@pytest.mark.parametrize("case", PAD_CASES, ids=str)
@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
def test_pad(case, layout):
    shape, pad, mode, value = case

    def recipe(m):
        F = m.nn.functional
        x = T(m, shape, layout=layout)
        return F.pad(x, pad, mode=mode, value=value) if value is not None else \
            F.pad(x, pad, mode)
    check(recipe)


@pytest.mark.parametrize("dtype", ["int32", "bool", "float16", "complex64"])
@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
def test_pad_dtypes(dtype, mode):
    check(lambda m: m.nn.functional.pad(T(m, (2, 3, 4), dtype), (1, 1), mode))
    if mode == "constant":
        check(lambda m: m.nn.functional.pad(T(m, (2, 3, 4), dtype), (1, 1), value=3.5))
        check(lambda m: m.constant_pad_nd(T(m, (2, 3, 4), dtype), (1, 2), 2))


# =============================================================================== meta

META_CASES = [
    lambda m, x: m.stack([x, x], 1), lambda m, x: m.hstack([x, x]),
    lambda m, x: m.flip(x, [0]), lambda m, x: m.roll(x, 1, 0), lambda m, x: m.rot90(x),
    lambda m, x: x.repeat(2, 1, 3), lambda m, x: m.tile(x, (2,)), lambda m, x: m.tril(x, 1),
    lambda m, x: m.triu(x), lambda m, x: m.diag(x[0]), lambda m, x: m.diag_embed(x),
    lambda m, x: m.diagflat(x), lambda m, x: m.block_diag(x, x[0]),
    lambda m, x: m.repeat_interleave(x, 2, 1), lambda m, x: m.nn.functional.pad(x, (1, 2)),
    lambda m, x: m.nn.functional.pad(x, (1, 2), mode="reflect"),
    lambda m, x: m.meshgrid(x[0], x[:, 0], indexing="xy"),
]


@pytest.mark.parametrize("case", range(len(META_CASES)))
def test_meta(case):
    check_meta(lambda m: META_CASES[case](m, T(m, (3, 4)).to("meta")))


def test_arr_helper_consistency():
    a = Arr((2, 3))
    assert torch.equal(a.t(torch), torch.from_numpy(a.t(strided).numpy()))


@pytest.mark.parametrize("call", [
    lambda m, f: m.cat([f, 1]), lambda m, f: m.cat((f, None)), lambda m, f: m.stack([1]),
    lambda m, f: m.cat([f], dim="x"), lambda m, f: m.cat(f, 0), lambda m, f: m.cat([[f]]),
    lambda m, f: m.block_diag(f, 1), lambda m, f: m.cat([f, 1], out=f),
    lambda m, f: m.linalg.multi_dot([f, 2]), lambda m, f: m.hstack([f, 2.0]),
])
def test_tensor_list_argument_errors(call):
    check(lambda m: call(m, m.ones(2)))


# =============================================================================== properties


@hyp(80)
@given(d1=hst.sampled_from(CORE_DTYPE_NAMES), d2=hst.sampled_from(CORE_DTYPE_NAMES),
       rows=hst.lists(hst.integers(0, 3), min_size=1, max_size=3), dim=hst.integers(-2, 1),
       legacy_empty=hst.booleans())
def test_cat_promotion_property(d1, d2, rows, dim, legacy_empty):
    """cat of tensors of two dtypes (and maybe a legacy empty one): torch's promotion, shape
    and layout, or torch's error."""
    def recipe(m):
        ts = [T(m, (r, 2) if dim in (0, -2) else (2, r), d1 if i % 2 == 0 else d2)
              for i, r in enumerate(rows)]
        if legacy_empty:
            ts.insert(1, m.empty(0, dtype=getattr(m, d2)))
        return m.cat(ts, dim)
    check(recipe)
