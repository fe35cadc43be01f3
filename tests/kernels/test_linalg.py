"""Linear algebra against torch: the matmul family (every rank combination, broadcasting,
out=, alpha/beta), products (dot, vdot, outer, inner, tensordot, einsum, kron, cross,
trace) and ``strided.linalg``.

Each recipe is written once against a module ``m`` and run with ``m = strided`` and
``m = torch``: shape, strides, storage offset, dtype, device, values (with a tolerance
that fits the dtype: the two libraries call different BLAS kernels), the exception type
and message, and warnings.
"""

from __future__ import annotations

import pytest
from close_check import Arr, check, check_meta

# =========================================================================== matmul family

MATMUL_SHAPES = [
    ((3,), (3,)), ((3,), (4,)), ((2, 3), (3,)), ((2, 3), (4,)), ((3,), (3, 4)), ((3,), (4, 5)),
    ((2, 3), (3, 4)), ((2, 3), (4, 5)), ((5, 2, 3), (3,)), ((5, 2, 3), (4,)),
    ((3,), (5, 3, 4)), ((4,), (5, 3, 4)), ((5, 2, 3), (3, 4)), ((5, 2, 3), (4, 4)),
    ((2, 3), (5, 3, 4)), ((2, 3), (5, 4, 4)), ((5, 2, 3), (5, 3, 4)), ((5, 2, 3), (5, 4, 4)),
    ((5, 2, 3), (6, 3, 4)), ((1, 2, 3), (5, 3, 4)), ((7, 1, 2, 3), (5, 3, 4)),
    ((2, 2, 3), (5, 3, 4)), ((0, 3), (3, 0)), ((3, 0), (0, 4)), ((5, 0, 3), (3,)),
    ((2, 3), (5, 3, 1)), ((1, 3), (5, 3, 4)), ((5, 3, 2), (2, 1)), ((2, 1, 4, 3), (3, 3, 2)),
    ((3, 4, 0), (0, 2)), ((2, 3, 4), (4, 0)), ((), (3,)), ((3,), ()), ((0,), (0,)),
]
MATMUL_DTYPES = ["float32", "float64", "float16", "bfloat16", "complex64", "int64", "int8",
                 "uint8"]


@pytest.mark.parametrize("shapes", MATMUL_SHAPES, ids=str)
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "strided"])
def test_matmul_shapes(shapes, layout):
    a, b = Arr(shapes[0], layout=layout), Arr(shapes[1], layout=layout)
    check(lambda m: m.matmul(a.t(m), b.t(m)))
    check(lambda m: a.t(m) @ b.t(m))


@pytest.mark.parametrize("dtype", MATMUL_DTYPES + ["bool", "uint16", "complex128", "int32"])
@pytest.mark.parametrize("shapes", [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)),
                                    ((2, 3), (3, 4)), ((5, 2, 3), (3, 4)), ((5, 2, 3), (3,)),
                                    ((5, 2, 3), (5, 3, 4)), ((2, 3), (5, 3, 4))], ids=str)
def test_matmul_dtypes(dtype, shapes):
    a, b = Arr(shapes[0], dtype), Arr(shapes[1], dtype)
    check(lambda m: m.matmul(a.t(m), b.t(m)))


@pytest.mark.parametrize("shapes", MATMUL_SHAPES, ids=str)
def test_matmul_meta(shapes):
    a, b = Arr(shapes[0], device="meta"), Arr(shapes[1], device="meta")
    check_meta(lambda m: m.matmul(a.t(m), b.t(m)))


@pytest.mark.parametrize("pair", [("float32", "float64"), ("float64", "float32"),
                                  ("float32", "int64"), ("int32", "float16")])
@pytest.mark.parametrize("shapes", [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)),
                                    ((2, 3), (3, 4)), ((5, 2, 3), (3, 4)),
                                    ((5, 2, 3), (5, 3, 4))], ids=str)
def test_matmul_mixed_dtypes(pair, shapes):
    a, b = Arr(shapes[0], pair[0]), Arr(shapes[1], pair[1])
    check(lambda m: m.matmul(a.t(m), b.t(m)))


def test_matmul_fold_depends_on_layout():
    # a batch that folds into one matrix reports mm's message; one that does not, bmm's
    a = Arr((4, 2, 3))
    b = Arr((4, 4))
    check(lambda m: m.matmul(a.t(m), b.t(m)))
    check(lambda m: m.matmul(a.t(m).permute(1, 0, 2).contiguous().permute(1, 0, 2), b.t(m)))
    v = Arr((3,))
    bt = Arr((5, 4, 3))
    check(lambda m: m.matmul(v.t(m)[:2], bt.t(m).mT))
    check(lambda m: m.matmul(Arr((4,)).t(m), bt.t(m).mT))


OUT_SHAPES = [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)),
              ((5, 2, 3), (3, 4)), ((5, 2, 3), (3,)), ((5, 2, 3), (5, 3, 4)),
              ((2, 3), (5, 3, 4)), ((3,), (5, 3, 4)), ((2, 1, 2, 3), (3, 3, 4))]


@pytest.mark.parametrize("shapes", OUT_SHAPES, ids=str)
@pytest.mark.parametrize("out_kind", ["empty", "right", "wrong_size", "transposed", "double"])
def test_matmul_out(shapes, out_kind):
    a, b = Arr(shapes[0]), Arr(shapes[1])

    def recipe(m):
        x, y = a.t(m), b.t(m)
        expected = m.matmul(x, y)
        if out_kind == "empty":
            out = m.empty(0)
        elif out_kind == "right":
            out = m.empty(expected.shape)
        elif out_kind == "wrong_size":
            out = m.zeros(7)
        elif out_kind == "transposed":
            out = m.empty(tuple(reversed(expected.shape))).mT if expected.dim() >= 2 else \
                m.empty(expected.shape)
        else:
            out = m.empty(0, dtype=m.float64)
        r = m.matmul(x, y, out=out)
        assert r is out
        return out
    check(recipe)


PRODUCT_CASES = [
    # (op, shapes, kwargs)
    ("mm", [(2, 3), (3, 4)], {}), ("mm", [(2, 3), (4, 5)], {}), ("mm", [(3,), (3, 4)], {}),
    ("mm", [(2, 3), (3,)], {}), ("mm", [(1, 2, 3), (3, 4)], {}), ("mm", [(0, 3), (3, 4)], {}),
    ("mm", [(2, 0), (0, 4)], {}),
    ("bmm", [(2, 2, 3), (2, 3, 4)], {}), ("bmm", [(2, 2, 3), (3, 3, 4)], {}),
    ("bmm", [(2, 2, 3), (2, 4, 4)], {}), ("bmm", [(2, 3), (2, 3, 4)], {}),
    ("bmm", [(2, 2, 3), (3, 4)], {}), ("bmm", [(0, 2, 3), (0, 3, 4)], {}),
    ("mv", [(2, 3), (3,)], {}), ("mv", [(2, 3), (2,)], {}), ("mv", [(2, 3), (2, 3)], {}),
    ("mv", [(3,), (3,)], {}), ("mv", [(0, 3), (3,)], {}),
    ("dot", [(3,), (3,)], {}), ("dot", [(3,), (4,)], {}), ("dot", [(2, 2), (2, 2)], {}),
    ("dot", [(3,), (3, 1)], {}), ("dot", [(0,), (0,)], {}),
    ("vdot", [(3,), (3,)], {}), ("vdot", [(3,), (4,)], {}), ("vdot", [(3, 1), (3,)], {}),
    ("addmm", [(2, 4), (2, 3), (3, 4)], {}), ("addmm", [(4,), (2, 3), (3, 4)], {}),
    ("addmm", [(), (2, 3), (3, 4)], {}), ("addmm", [(1, 1), (2, 3), (3, 4)], {}),
    ("addmm", [(2, 4), (2, 3), (3, 4)], {"beta": 0.5, "alpha": -2}),
    ("addmm", [(2, 4), (2, 3), (3, 4)], {"beta": 0}),
    ("addmm", [(3, 3), (2, 3), (3, 4)], {}), ("addmm", [(3,), (2, 3), (3, 4)], {}),
    ("addmm", [(2, 4), (2, 3), (4, 4)], {}), ("addmm", [(2, 4), (3,), (3, 4)], {}),
    ("addmm", [(2, 4), (2, 3), (3, 4, 1)], {}), ("addmm", [(2, 4), (2, 3), (3, 4)],
                                                 {"beta": 1j}),
    ("addmv", [(2,), (2, 3), (3,)], {}), ("addmv", [(), (2, 3), (3,)], {}),
    ("addmv", [(1,), (2, 3), (3,)], {"beta": 2, "alpha": 0.5}),
    ("addmv", [(3,), (2, 3), (3,)], {}), ("addmv", [(2, 2), (2, 3), (3,)], {}),
    ("addmv", [(2,), (2, 3), (4,)], {}), ("addmv", [(2,), (2, 3), (3,)], {"beta": 0}),
    ("baddbmm", [(2, 2, 4), (2, 2, 3), (2, 3, 4)], {}),
    ("baddbmm", [(4,), (2, 2, 3), (2, 3, 4)], {"beta": -1, "alpha": 3}),
    ("baddbmm", [(3, 2, 4), (2, 2, 3), (2, 3, 4)], {}),
    ("baddbmm", [(2, 2, 4), (2, 2, 3), (2, 4, 4)], {}),
    ("baddbmm", [(2, 2, 4), (2, 3), (2, 3, 4)], {}),
    ("addbmm", [(2, 4), (3, 2, 3), (3, 3, 4)], {}),
    ("addbmm", [(4,), (3, 2, 3), (3, 3, 4)], {"beta": 0.25, "alpha": 2}),
    ("addbmm", [(2, 2, 4), (3, 2, 3), (3, 3, 4)], {}),
    ("addbmm", [(3, 4), (3, 2, 3), (3, 3, 4)], {}),
    ("addbmm", [(2, 4), (3, 2, 3), (2, 3, 4)], {}),
    ("addbmm", [(2, 4), (3, 2, 3), (3, 4, 4)], {}),
    ("addbmm", [(2, 4), (0, 2, 3), (0, 3, 4)], {}),
    ("outer", [(3,), (4,)], {}), ("outer", [(3,), (2, 2)], {}), ("outer", [(2, 2), (3,)], {}),
    ("ger", [(3,), (4,)], {}),
    ("inner", [(3,), (3,)], {}), ("inner", [(2, 3), (4, 3)], {}), ("inner", [(3,), (4,)], {}),
    ("inner", [(), (4, 3)], {}), ("inner", [(2, 5, 3), (4, 3)], {}),
    ("inner", [(2, 3), (4, 2)], {}),
]


def _product_recipe(op, shapes, kwargs, dtypes, layout="contiguous", device="cpu"):
    arrs = [Arr(s, d, layout, device) for s, d in zip(shapes, dtypes)]
    return lambda m: getattr(m, op)(*(a.t(m) for a in arrs), **kwargs)


@pytest.mark.parametrize("case", PRODUCT_CASES, ids=lambda c: f"{c[0]}{c[1]}{c[2]}")
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128", "bfloat16", "int64"])
def test_products(case, dtype):
    op, shapes, kwargs = case
    if dtype == "int64" and any(isinstance(v, float) for v in kwargs.values()):
        kwargs = {k: int(v) for k, v in kwargs.items()}
    check(_product_recipe(op, shapes, kwargs, [dtype] * len(shapes)))


@pytest.mark.parametrize("case", PRODUCT_CASES[::3], ids=lambda c: f"{c[0]}{c[1]}{c[2]}")
def test_products_layouts(case):
    op, shapes, kwargs = case
    for layout in ("transposed", "strided"):
        check(_product_recipe(op, shapes, kwargs, ["float64"] * len(shapes), layout))


@pytest.mark.parametrize("case", PRODUCT_CASES, ids=lambda c: f"{c[0]}{c[1]}{c[2]}")
def test_products_meta(case):
    op, shapes, kwargs = case
    if op == "addmv" and len(shapes[0]) == 2:
        return   # torch's meta function takes a matrix as addmv's input; its CPU kernel not
    check_meta(_product_recipe(op, shapes, kwargs, ["float32"] * len(shapes), device="meta"))


@pytest.mark.parametrize("op,shapes", [
    ("mm", [(2, 3), (3, 4)]), ("bmm", [(2, 2, 3), (2, 3, 4)]), ("mv", [(2, 3), (3,)]),
    ("dot", [(3,), (3,)]), ("vdot", [(3,), (3,)]), ("addmm", [(2, 4), (2, 3), (3, 4)]),
    ("addmv", [(2,), (2, 3), (3,)]), ("baddbmm", [(2, 2, 4), (2, 2, 3), (2, 3, 4)]),
    ("addbmm", [(2, 4), (3, 2, 3), (3, 3, 4)]), ("outer", [(3,), (4,)]),
    ("inner", [(2, 3), (4, 3)]), ("matmul", [(2, 3), (3, 4)]),
])
@pytest.mark.parametrize("dtypes", [
    ("float32", "float64"), ("float64", "float32"), ("int64", "float32"), ("bool", "bool"),
    ("uint16", "uint16"), ("float16", "float16"), ("int8", "int8"), ("int32", "int32"),
    ("complex64", "complex64"), ("float32", "float32", "float64"),
    ("float64", "float32", "float32"),
])
def test_products_dtype_rules(op, shapes, dtypes):
    dts = (list(dtypes) * 3)[:len(shapes)] if len(dtypes) == 2 else list(dtypes)[:len(shapes)]
    if len(dts) < len(shapes):
        dts += [dts[-1]] * (len(shapes) - len(dts))
    check(_product_recipe(op, shapes, {}, dts))


@pytest.mark.parametrize("op,shapes", [
    ("mm", [(2, 3), (3, 4)]), ("bmm", [(2, 2, 3), (2, 3, 4)]), ("mv", [(2, 3), (3,)]),
    ("dot", [(3,), (3,)]), ("vdot", [(3,), (3,)]), ("addmm", [(2, 4), (2, 3), (3, 4)]),
    ("addmv", [(2,), (2, 3), (3,)]), ("baddbmm", [(2, 2, 4), (2, 2, 3), (2, 3, 4)]),
    ("addbmm", [(2, 4), (3, 2, 3), (3, 3, 4)]), ("outer", [(3,), (4,)]),
    ("inner", [(2, 3), (4, 3)]),
])
@pytest.mark.parametrize("out_kind", ["empty", "right", "wrong_size", "double", "int"])
def test_products_out(op, shapes, out_kind):
    arrs = [Arr(s, "float32") for s in shapes]

    def recipe(m):
        args = [a.t(m) for a in arrs]
        expected = getattr(m, op)(*args)
        out = {"empty": lambda: m.empty(0), "right": lambda: m.empty(expected.shape),
               "wrong_size": lambda: m.zeros(7), "double": lambda: m.empty(0, dtype=m.float64),
               "int": lambda: m.empty(0, dtype=m.int64)}[out_kind]()
        r = getattr(m, op)(*args, out=out)
        assert r is out
        return out
    check(recipe)


@pytest.mark.parametrize("op,shapes,kwargs", [
    ("addmm_", [(2, 4), (2, 3), (3, 4)], {}), ("addmm_", [(2, 4), (2, 3), (3, 4)],
                                                 {"beta": 2, "alpha": 0.5}),
    ("addmm_", [(4,), (2, 3), (3, 4)], {}), ("addmm_", [(1, 4), (2, 3), (3, 4)], {}),
    ("addmv_", [(2,), (2, 3), (3,)], {"alpha": 3}), ("addmv_", [(1,), (2, 3), (3,)], {}),
    ("baddbmm_", [(2, 2, 4), (2, 2, 3), (2, 3, 4)], {"beta": 0}),
    ("baddbmm_", [(2, 1, 4), (2, 2, 3), (2, 3, 4)], {}),
    ("addbmm_", [(2, 4), (3, 2, 3), (3, 3, 4)], {"alpha": -1}),
    ("addbmm_", [(4,), (3, 2, 3), (3, 3, 4)], {}),
])
def test_products_inplace(op, shapes, kwargs):
    arrs = [Arr(s, "float64") for s in shapes]

    def recipe(m):
        args = [a.t(m) for a in arrs]
        r = getattr(args[0], op)(*args[1:], **kwargs)
        assert r is args[0]
        return r, r._version
    check(recipe)


def test_addmm_integer_scalars_truncate():
    a = Arr((2, 2), "int64")
    check(lambda m: m.addmm(a.t(m), a.t(m), a.t(m), beta=2.7, alpha=-1.9))
    check(lambda m: m.addmm(a.t(m), a.t(m), a.t(m), alpha=1j))


def test_beta_zero_ignores_nan():
    check(lambda m: m.addmm(m.full((2, 2), float("nan")), m.ones(2, 2), m.ones(2, 2), beta=0))
    check(lambda m: m.addmv(m.full((2,), float("nan")), m.ones(2, 2), m.ones(2), beta=0))


def test_half_accumulates_in_float32():
    check(lambda m: m.full((1000,), 0.1, dtype=m.float16) @ m.full((1000,), 0.1,
                                                                   dtype=m.float16), tol=(0, 0))
    check(lambda m: m.ones(2, 2000, dtype=m.bfloat16) @ m.full((2000, 2), 0.1,
                                                               dtype=m.bfloat16), tol=(0, 0))
    check(lambda m: m.tensor([[1000., 1000.], [1, 1]], dtype=m.float16).mm(
        m.tensor([[1000., 1.], [1000., 1.]], dtype=m.float16)), tol=(0, 0))


def test_integer_products_wrap():
    check(lambda m: m.ones(2, 2, dtype=m.int8).mm(m.full((2, 2), 100, dtype=m.int8)))
    check(lambda m: m.full((3,), 200, dtype=m.uint8).dot(m.full((3,), 3, dtype=m.uint8)))


def test_matmul_operators():
    a, b = Arr((2, 3)), Arr((3, 4))
    check(lambda m: a.t(m).__rmatmul__(b.t(m).mT))

    def inplace(m):
        x = a.t(m)
        y = x
        x @= b.t(m)
        return x, y
    check(inplace)
    for other in (1, 2.5, [[1.0]], None):
        check(lambda m, other=other: a.t(m) @ other)
        check(lambda m, other=other: other @ a.t(m))
