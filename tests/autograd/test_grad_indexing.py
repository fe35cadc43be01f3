"""Backward of the indexing ops and of ``t[idx]`` / ``t[idx] = v``, against torch and
gradcheck; and the samplers and ``*_like`` factories torch records (or does not).

Each case is ``(id, program, shapes)``: ``program(m, *leaves)`` runs with ``m`` strided
or torch (grad_harness.py). Index tensors are made inside the programs, so each library
gets its own.
"""

from __future__ import annotations

import pytest
import torch
from grad_harness import check_grads, grad_fn_names, gradcheck_strided, leaf_values

import strided

pytestmark = [
    pytest.mark.filterwarnings("ignore:index_reduce.*is in beta"),
    pytest.mark.filterwarnings("ignore:The reduce argument of torch.scatter"),
    pytest.mark.filterwarnings("ignore:Using a non-tuple sequence for multidimensional"),
]


def _t(m, data, dtype=None):
    return m.tensor(data) if dtype is None else m.tensor(data, dtype=dtype)


def _mask(m):
    return _t(m, [[True, False, True, False], [False, False, True, True],
                  [True, True, False, False]])


def _idx(m):
    return _t(m, [[0, 1, 2, 0], [2, 1, 0, 2]])


def _scatter_idx(m):
    # no two positions of a column target the same row: scatter without reduction is then
    # deterministic (and gradcheck meaningful)
    return _t(m, [[0, 1, 2, 0], [2, 0, 0, 1]])


def _inplace(x, fn):
    y = x * 1
    fn(y)
    return y


# (id, program, shapes). Ops with complex autograd in torch are also run in complex128.
CASES = [
    # index.Tensor
    ("index_int", lambda m, x: x[_t(m, [0, 2, 2])], [(3, 4)]),
    ("index_two", lambda m, x: m.ops.aten.index(x, [_t(m, [0, 2]), _t(m, [[1], [3]])]), [(3, 4)]),
    ("index_none_slot", lambda m, x: m.ops.aten.index(x, [None, _t(m, [1, 1, 3])]), [(3, 4)]),
    ("index_mask", lambda m, x: x[_mask(m)], [(3, 4)]),
    ("index_mask_1d", lambda m, x: x[_t(m, [True, False, True])], [(3, 4)]),
    ("index_noncontig", lambda m, x: x.t()[_t(m, [3, 0, 3])], [(3, 4)]),
    # index_put (the values' gradient is gathered)
    ("index_put", lambda m, x, v: x.index_put((_t(m, [0, 2]),), v), [(3, 4), (2, 4)]),
    ("index_put_bcast", lambda m, x, v: x.index_put((_t(m, [0, 2]),), v), [(3, 4), (4,)]),
    ("index_put_acc", lambda m, x, v: x.index_put((_t(m, [0, 2, 0]),), v, accumulate=True),
     [(3, 4), (3, 4)]),
    ("index_put_mask", lambda m, x, v: x.index_put((_mask(m),), v), [(3, 4), (6,)]),
    ("index_put_scalar_value", lambda m, x, v: x.index_put((_mask(m),), v), [(3, 4), ()]),
    ("index_put_2", lambda m, x, v: x.index_put((_t(m, [0, 2]), _t(m, [1, 3])), v),
     [(3, 4), (2,)]),
    ("index_put_", lambda m, x, v: _inplace(x, lambda y: y.index_put_((_t(m, [1]),), v)),
     [(3, 4), (4,)]),
    ("index_put_acc_", lambda m, x, v: _inplace(
        x, lambda y: y.index_put_((_t(m, [1, 1]),), v, accumulate=True)), [(3, 4), (2, 4)]),
    # index_select
    ("index_select", lambda m, x: x.index_select(1, _t(m, [3, 0, 3])), [(3, 4)]),
    ("index_select_noncontig", lambda m, x: x.t().index_select(0, _t(m, [1, 1])), [(3, 4)]),
    ("index_select_1d", lambda m, x: m.index_select(x, 0, _t(m, [2, 0, 2])), [(4,)]),
    # index_add
    ("index_add", lambda m, x, s: x.index_add(0, _t(m, [0, 2, 0]), s), [(3, 4), (3, 4)]),
    ("index_add_alpha", lambda m, x, s: x.index_add(1, _t(m, [3, 1]), s, alpha=2.5),
     [(3, 4), (3, 2)]),
    ("index_add_", lambda m, x, s: _inplace(x, lambda y: y.index_add_(0, _t(m, [1]), s)),
     [(3, 4), (1, 4)]),
    # index_copy
    ("index_copy", lambda m, x, s: x.index_copy(0, _t(m, [2, 0]), s), [(3, 4), (2, 4)]),
    ("index_copy_", lambda m, x, s: _inplace(x, lambda y: y.index_copy_(1, _t(m, [3]), s)),
     [(3, 4), (3, 1)]),
    # index_fill
    ("index_fill_scalar", lambda m, x: x.index_fill(1, _t(m, [0, 2, 0]), 1.5), [(3, 4)]),
    ("index_fill_tensor", lambda m, x, v: x.index_fill(1, _t(m, [0, 2, 0]), v), [(3, 4), ()]),
    # (negative indices only with a Scalar value: torch's backward for a Tensor value
    # refuses them, "INDICES element is out of DATA bounds"; strided sums the right grads)
    ("index_fill_neg", lambda m, x: x.index_fill(-1, _t(m, [-1, 1]), 0.5), [(3, 4)]),
    ("index_fill_", lambda m, x, v: _inplace(x, lambda y: y.index_fill_(0, _t(m, [1]), v)),
     [(3, 4), ()]),
    # gather / scatter
    ("gather", lambda m, x: x.gather(0, _idx(m)), [(3, 4)]),
    ("gather_dim1", lambda m, x: x.gather(1, _t(m, [[0, 0], [3, 1], [2, 2]])), [(3, 4)]),
    ("gather_noncontig", lambda m, x: x.t().gather(1, _t(m, [[0], [2], [1], [1]])), [(3, 4)]),
    ("scatter_src", lambda m, x, s: x.scatter(0, _scatter_idx(m), s), [(3, 4), (2, 4)]),
    ("scatter_src_big", lambda m, x, s: x.scatter(1, _t(m, [[0, 1], [3, 2], [1, 0]]), s),
     [(3, 4), (3, 2)]),
    ("scatter_value", lambda m, x: x.scatter(0, _scatter_idx(m), 2.0), [(3, 4)]),
    ("scatter_", lambda m, x, s: _inplace(x, lambda y: y.scatter_(0, _scatter_idx(m), s)),
     [(3, 4), (2, 4)]),
    ("scatter_add", lambda m, x, s: x.scatter_add(0, _idx(m), s), [(3, 4), (2, 4)]),
    ("scatter_add_", lambda m, x, s: _inplace(x, lambda y: y.scatter_add_(1, _idx(m), s)),
     [(3, 4), (2, 4)]),
    # take / put
    ("take", lambda m, x: x.take(_t(m, [[0, 11], [5, 5]])), [(3, 4)]),
    ("take_noncontig", lambda m, x: x.t().take(_t(m, [1, 7, -1])), [(3, 4)]),
    ("put", lambda m, x, s: x.put(_t(m, [0, 5, 11]), s), [(3, 4), (3,)]),
    ("put_shape", lambda m, x, s: x.put(_t(m, [[0, 5], [11, 2]]), s), [(3, 4), (4,)]),
    ("put_acc", lambda m, x, s: x.put(_t(m, [0, 5, 0]), s, accumulate=True), [(3, 4), (3,)]),
    ("put_", lambda m, x, s: _inplace(x, lambda y: y.put_(_t(m, [1, 2]), s)), [(3, 4), (2,)]),
    # take_along_dim (CompositeImplicitAutograd: gather over expand / view)
    ("take_along_dim", lambda m, x: x.take_along_dim(_idx(m), 0), [(3, 4)]),
    ("take_along_dim_bcast", lambda m, x: m.take_along_dim(x, _t(m, [[0, 3], [3, 3], [1, 2]]),
                                                           1), [(1, 4)]),
    ("take_along_dim_flat", lambda m, x: m.take_along_dim(x, _t(m, [0, 11, 11])), [(3, 4)]),
    # masked ops
    ("masked_fill_scalar", lambda m, x: x.masked_fill(_mask(m), 2.0), [(3, 4)]),
    ("masked_fill_tensor", lambda m, x, v: x.masked_fill(_mask(m), v), [(3, 4), ()]),
    ("masked_fill_bcast", lambda m, x, v: m.masked_fill(x, _mask(m), v), [(3, 1), ()]),
    ("masked_fill_bcast_mask", lambda m, x: x.masked_fill(_t(m, [True, False, True, False]),
                                                          0.5), [(3, 4)]),
    ("masked_fill_", lambda m, x, v: _inplace(x, lambda y: y.masked_fill_(_mask(m), v)),
     [(3, 4), ()]),
    ("masked_fill_view_", lambda m, x: _inplace(x, lambda y: y[1:].masked_fill_(
        _mask(m)[1:], 0.0)), [(3, 4)]),
    ("masked_scatter", lambda m, x, s: x.masked_scatter(_mask(m), s), [(3, 4), (2, 5)]),
    ("masked_scatter_bcast", lambda m, x, s: m.masked_scatter(x, _mask(m), s), [(3, 1), (8,)]),
    ("masked_scatter_", lambda m, x, s: _inplace(x, lambda y: y.masked_scatter_(_mask(m), s)),
     [(3, 4), (6,)]),
    ("masked_select", lambda m, x: x.masked_select(_mask(m)), [(3, 4)]),
    ("masked_select_bcast", lambda m, x: x.masked_select(_mask(m)), [(4,)]),
    ("masked_select_noncontig", lambda m, x: x.t().masked_select(_mask(m).t()), [(3, 4)]),
]

COMPLEX = {"index_int", "index_mask", "index_put", "index_put_acc", "index_put_mask",
           "index_put_", "index_select", "index_add", "index_copy", "index_fill_tensor",
           "gather", "scatter_src", "scatter_value", "scatter_add", "take", "put", "put_acc",
           "take_along_dim", "masked_fill_scalar", "masked_fill_tensor", "masked_scatter",
           "masked_select"}

# the leaves of these receive a gradient that depends on which duplicate write wins, or
# the op is not smooth at the values gradcheck perturbs: compare with torch only
NO_GRADCHECK = set()

DTYPES = ["float64", "float32"]


def _tol(dtype):
    return dict(rtol=1e-5, atol=1e-6) if dtype == "float32" else {}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_against_torch(case, dtype):
    _, program, shapes = case
    check_grads(program, shapes, dtype=dtype, **_tol(dtype))


@pytest.mark.parametrize("case", [c for c in CASES if c[0] in COMPLEX],
                         ids=[c[0] for c in CASES if c[0] in COMPLEX])
def test_against_torch_complex(case):
    _, program, shapes = case
    check_grads(program, shapes, dtype="complex128")


@pytest.mark.parametrize("case", [c for c in CASES if c[0] not in NO_GRADCHECK],
                         ids=[c[0] for c in CASES if c[0] not in NO_GRADCHECK])
def test_gradcheck(case):
    _, program, shapes = case
    gradcheck_strided(program, shapes, second=True)


def _strip(name):
    return name.replace("torch::autograd::", "")


def _names(program, shapes):
    values = leaf_values(shapes)
    out = []
    for m in (strided, torch):
        leaves = [m.from_numpy(v.copy()).requires_grad_() for v in values]
        out.append([_strip(n) for n in grad_fn_names(program(m, *leaves))])
    return out


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_node_names(case):
    _, program, shapes = case
    ours, theirs = _names(program, shapes)
    assert ours == theirs


# -- scatter_reduce / index_reduce ------------------------------------------------------------

REDUCE_CASES = [
    (f"{op}_{reduce}_{'self' if include_self else 'noself'}", op, reduce, include_self)
    for op in ("scatter_reduce", "index_reduce")
    for reduce in ("sum", "prod", "mean", "amax", "amin")
    for include_self in (True, False)
    if not (op == "index_reduce" and reduce == "sum")
]


def _reduce_program(op, reduce, include_self):
    if op == "scatter_reduce":
        return lambda m, x, s: x.scatter_reduce(0, _idx(m), s, reduce,
                                                include_self=include_self)
    return lambda m, x, s: x.index_reduce(1, _t(m, [0, 3, 0]), s, reduce,
                                          include_self=include_self)


def _reduce_shapes(op):
    return [(3, 4), (2, 4)] if op == "scatter_reduce" else [(3, 4), (3, 3)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", REDUCE_CASES, ids=[c[0] for c in REDUCE_CASES])
def test_reduce_against_torch(case, dtype):
    _, op, reduce, include_self = case
    check_grads(_reduce_program(op, reduce, include_self), _reduce_shapes(op), dtype=dtype,
                **_tol(dtype))


@pytest.mark.parametrize("case", REDUCE_CASES, ids=[c[0] for c in REDUCE_CASES])
def test_reduce_gradcheck(case):
    _, op, reduce, include_self = case
    gradcheck_strided(_reduce_program(op, reduce, include_self), _reduce_shapes(op),
                      second=True)


@pytest.mark.parametrize("case", REDUCE_CASES, ids=[c[0] for c in REDUCE_CASES])
def test_reduce_node_names(case):
    _, op, reduce, include_self = case
    ours, theirs = _names(_reduce_program(op, reduce, include_self), _reduce_shapes(op))
    assert ours == theirs


@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_prod_with_zeros(include_self):
    # one zero, two zeros in one group, a zero in self: the product of the others
    values = leaf_values([(3, 4), (2, 4)])
    values[0][0, 0] = 0.0
    values[0][1, 1] = 0.0
    values[1][0, 1] = 0.0
    values[1][1, 2] = 0.0
    values[1][0, 2] = 0.0
    values[1][0, 3] = 0.0

    def program(m, x, s):
        return x.scatter_reduce(0, _idx(m), s, "prod", include_self=include_self)
    check_grads(program, [(3, 4), (2, 4)], values=values)


def test_scatter_reduce_ties():
    # amax / amin share the gradient evenly between the members equal to the result
    values = [leaf_values([(3, 4)])[0], leaf_values([(2, 4)])[0]]
    values[1][0, 0] = values[1][1, 0] = 5.0
    values[0][0, 1] = values[1][0, 1] = 5.0

    for reduce in ("amax", "amin"):
        vals = [v.copy() for v in values]
        if reduce == "amin":
            vals = [-v for v in vals]
        for include_self in (True, False):
            def program(m, x, s, reduce=reduce, include_self=include_self):
                return x.scatter_reduce(0, _t(m, [[0, 0, 2, 0], [0, 1, 0, 2]]), s, reduce,
                                        include_self=include_self)
            check_grads(program, [(3, 4), (2, 4)], values=vals)


def test_scatter_src_larger_than_index_is_refused_in_backward():
    # torch's formula gives src a gradient of the index's shape: the engine refuses it
    check_grads(lambda m, x, s: x.scatter(0, _scatter_idx(m), s), [(3, 4), (3, 5)])
    check_grads(lambda m, x, s: x.scatter_add(0, _scatter_idx(m), s), [(3, 4), (3, 5)])


@pytest.mark.parametrize("kind", ["reduce", "value_reduce"])
def test_scatter_with_reduce_is_not_differentiable(kind):
    def run(m):
        x = m.ones(3, 4, dtype=m.float64, requires_grad=True)
        idx = _scatter_idx(m)
        if kind == "reduce":
            y = x.scatter(0, idx, m.ones(2, 4, dtype=m.float64), reduce="multiply")
        else:
            y = x.scatter(0, idx, 2.0, reduce="add")
        with pytest.raises(RuntimeError) as info:
            y.sum().backward()
        return _strip(y.grad_fn.name()), str(info.value)
    ours, theirs = run(strided), run(torch)
    assert ours[0] == theirs[0] == "NotImplemented"
    # torch names the op with its namespace (aten::scatter); the core's fallback does not
    assert ours[1].replace("aten::", "") == theirs[1].replace("aten::", "")


def test_index_add_complex_alpha():
    # torch multiplies the source's gradient by alpha itself (not its conjugate)
    check_grads(lambda m, x, s: x.index_add(0, _t(m, [2, 0]), s, alpha=2 + 1j),
                [(3, 4), (2, 4)], dtype="complex128")


def test_take_along_dim_out_refuses_grad():
    check_grads(lambda m, x: m.take_along_dim(x, _idx(m), 0, out=m.empty(2, 4,
                                                                       dtype=m.float64)),
                [(3, 4)])


# -- the Python front end: t[idx] and t[idx] = v ----------------------------------------------

INDICES = [
    ("int", lambda m: 1),
    ("neg_int", lambda m: -1),
    ("slice", lambda m: slice(1, None)),
    ("full_slice", lambda m: slice(None)),
    ("slice_step", lambda m: (slice(None), slice(None, None, 2))),
    ("none", lambda m: None),
    ("ellipsis", lambda m: Ellipsis),
    ("none_int", lambda m: (None, 1)),
    ("ellipsis_int", lambda m: (Ellipsis, 2)),
    ("int_int", lambda m: (0, 3)),
    ("true", lambda m: True),
    ("false", lambda m: False),
    ("tensor", lambda m: _t(m, [0, 2, 0])),
    ("tensor_pair", lambda m: (_t(m, [0, 2]), _t(m, [1, 2]))),
    ("slice_tensor", lambda m: (slice(None), _t(m, [3, 1]))),
    ("separated", lambda m: (_t(m, [0, 1]), slice(None), _t(m, [4, 0]))),
    ("mask", lambda m: _mask(m)),
    ("mask_rows", lambda m: _t(m, [True, False, True])),
    ("list", lambda m: [0, 2]),
    ("nested_list", lambda m: [[0, 1], [1, 2]]),
    ("int_slice_tensor", lambda m: (1, slice(None), _t(m, [[1, 0], [3, 3]]))),
    ("none_tensor_ellipsis_int", lambda m: (None, _t(m, [0, 2]), Ellipsis, 1)),
    ("tensor0d", lambda m: _t(m, 1)),
    ("bool_tensor0d", lambda m: _t(m, True)),
    ("mask_slice", lambda m: (_mask(m), slice(1, 3))),
    ("tensor_none_tensor", lambda m: (_t(m, [0, 2]), None, _t(m, [1, 1]))),
    ("int_tensor_int", lambda m: (0, _t(m, [1, 3]), 1)),
]
SHAPE = (3, 4, 5)


def _indexed_shape(index_fn):
    return tuple(torch.zeros(SHAPE)[index_fn(torch)].shape)


@pytest.mark.parametrize("case", INDICES, ids=[c[0] for c in INDICES])
def test_getitem(case):
    _, index_fn = case

    def program(m, x):
        return x[index_fn(m)]
    check_grads(program, [SHAPE])
    ours, theirs = _names(program, [SHAPE])
    assert ours == theirs


def _set(m, x, index_fn, value):
    y = x * 1
    y[index_fn(m)] = value
    return y


@pytest.mark.parametrize("case", INDICES, ids=[c[0] for c in INDICES])
def test_setitem_tensor_value(case):
    _, index_fn = case
    shape = _indexed_shape(index_fn)
    for vshape in {shape, shape[-1:], ()}:
        def program(m, x, v):
            return _set(m, x, index_fn, v)
        check_grads(program, [SHAPE, vshape])
        ours, theirs = _names(program, [SHAPE, vshape])
        assert ours == theirs, vshape


@pytest.mark.parametrize("case", INDICES, ids=[c[0] for c in INDICES])
def test_setitem_scalar_value(case):
    _, index_fn = case

    def program(m, x):
        return _set(m, x, index_fn, 1.5)
    check_grads(program, [SHAPE])
    ours, theirs = _names(program, [SHAPE])
    assert ours == theirs


@pytest.mark.parametrize("case", [c for c in INDICES if c[0] in (
    "int", "slice_step", "tensor_pair", "mask", "separated", "none_tensor_ellipsis_int")],
    ids=lambda c: c[0])
def test_setitem_gradcheck(case):
    _, index_fn = case
    shape = _indexed_shape(index_fn)
    gradcheck_strided(lambda m, x, v: _set(m, x, index_fn, v) * 2, [SHAPE, shape],
                      second=True)


def test_setitem_on_a_view():
    # the assignment goes through a view of a non-leaf: CopySlices on its base
    def program(m, x, v):
        y = x * 1
        z = y.transpose(0, 1)
        z[_t(m, [1, 0]), 2] = v
        return y
    check_grads(program, [(3, 4, 5), (2, 5)])
    ours, theirs = _names(program, [(3, 4, 5), (2, 5)])
    assert ours == theirs


def test_setitem_leaf_is_refused():
    def program(m, x):
        x[_t(m, [0])] = 1.0
        return x
    check_grads(program, [(3, 4)])


# -- samplers and factories "like" a tensor -----------------------------------------------------

NOT_RECORDED = [
    ("zeros_like", lambda m, x: m.zeros_like(x)),
    ("ones_like", lambda m, x: m.ones_like(x)),
    ("empty_like", lambda m, x: m.empty_like(x)),
    ("full_like", lambda m, x: m.full_like(x, 2.0)),
    ("rand_like", lambda m, x: m.rand_like(x)),
    ("randn_like", lambda m, x: m.randn_like(x)),
    ("randint_like", lambda m, x: m.randint_like(x, 5)),
    ("randint_like_low", lambda m, x: m.randint_like(x, 1, 5)),
    ("new_zeros", lambda m, x: x.new_zeros(2)),
    ("new_ones", lambda m, x: x.new_ones(2, 3)),
    ("new_empty", lambda m, x: x.new_empty(2)),
    ("new_full", lambda m, x: x.new_full((2,), 1.5)),
    ("new_empty_strided", lambda m, x: x.new_empty_strided((2, 2), (1, 2))),
    ("histc", lambda m, x: m.histc(x, bins=4)),
    ("multinomial", lambda m, x: m.multinomial(x.abs() + 0.1, 2)),
    ("histc_out", lambda m, x: m.histc(x, bins=4, out=m.empty(4, dtype=m.float64))),
    ("linspace_tt", lambda m, x: m.linspace(x[0, 0], x[1, 1], 5)),
    ("linspace_st", lambda m, x: m.linspace(0.0, x[1, 1], 5)),
    ("linspace_ts", lambda m, x: m.linspace(x[0, 0], 3.0, 5)),
    ("logspace_tt", lambda m, x: m.logspace(x[0, 0], x[1, 1], 5)),
    ("logspace_st", lambda m, x: m.logspace(0.0, x[1, 1], 5)),
    ("logspace_ts", lambda m, x: m.logspace(x[0, 0], 3.0, 5, base=2.0)),
    ("bucketize", lambda m, x: m.bucketize(x, _t(m, [0.5, 1.5], m.float64))),
    ("searchsorted", lambda m, x: m.searchsorted(x.reshape(-1).sort().values, x)),
    ("nonzero", lambda m, x: m.nonzero(x)),
]


@pytest.mark.parametrize("case", NOT_RECORDED, ids=[c[0] for c in NOT_RECORDED])
def test_not_recorded(case):
    _, program = case
    for m in (strided, torch):
        x = m.ones(3, 4, dtype=m.float64, requires_grad=True)
        y = program(m, x)
        assert y.grad_fn is None and not y.requires_grad, m.__name__


SAMPLERS = [
    ("bernoulli", lambda m, x: m.bernoulli(x.clamp(0, 1))),
    ("normal_tensor_float", lambda m, x: m.normal(x, 1.0)),
    ("normal_float_tensor", lambda m, x: m.normal(0.0, x.abs())),
    ("normal_tensor_tensor", lambda m, x: m.normal(x, x.abs())),
    ("poisson", lambda m, x: m.poisson(x.abs())),
    ("uniform_", lambda m, x: (x * 1).uniform_()),
    ("normal_", lambda m, x: (x * 1).normal_()),
    ("random_", lambda m, x: (x * 1).random_()),
    ("random_from", lambda m, x: (x * 1).random_(0, 5)),
    ("random_to", lambda m, x: (x * 1).random_(5)),
    ("cauchy_", lambda m, x: (x * 1).cauchy_()),
    ("log_normal_", lambda m, x: (x * 1).log_normal_()),
    ("exponential_", lambda m, x: (x * 1).exponential_()),
    ("geometric_", lambda m, x: (x * 1).geometric_(0.5)),
    ("bernoulli_float", lambda m, x: (x * 1).bernoulli_(0.5)),
    ("bernoulli_tensor", lambda m, x: (x * 1).bernoulli_(x.clamp(0, 1))),
    ("bernoulli_tensor_p_only", lambda m, x: m.zeros(3, 4, dtype=m.float64).bernoulli_(
        x.clamp(0, 1))),
    ("uniform_view", lambda m, x: _inplace(x, lambda y: y[1].uniform_())),
]


@pytest.mark.parametrize("case", SAMPLERS, ids=[c[0] for c in SAMPLERS])
def test_samplers_record_a_zero_gradient(case):
    # torch records the samplers, with zero gradients: the sample is a constant
    _, program = case
    grads = []
    for m in (strided, torch):
        x = m.full((3, 4), 0.5, dtype=m.float64, requires_grad=True)
        y = program(m, x)
        assert y.requires_grad
        y.sum().backward()
        grads.append(x.grad.tolist())
    assert grads[0] == grads[1]
    ours, theirs = _names(lambda m, x: program(m, x.detach().fill_(0.5).requires_grad_()),
                          [(3, 4)])
    assert ours == theirs


def test_bernoulli_p_is_not_differentiable():
    for m in (strided, torch):
        x = m.full((3,), 0.5, dtype=m.float64, requires_grad=True)
        y = m.bernoulli(x, 0.3)
        assert _strip(y.grad_fn.name()) == "NotImplemented"
        with pytest.raises(RuntimeError, match="is not implemented"):
            y.sum().backward()


UNIQUE = [
    ("unique", lambda m, x: m.unique(x, return_inverse=True, return_counts=True)),
    ("unique_sorted_false", lambda m, x: m.unique(x, sorted=False)),
    ("unique_dim", lambda m, x: m.unique(x, dim=0)),
    ("unique_consecutive", lambda m, x: m.unique_consecutive(x, return_counts=True)),
    ("unique_consecutive_dim", lambda m, x: m.unique_consecutive(x, dim=1)),
]


@pytest.mark.parametrize("case", UNIQUE, ids=[c[0] for c in UNIQUE])
def test_unique_records_a_node_without_derivative(case):
    _, program = case
    seen = []
    for m in (strided, torch):
        x = m.tensor([[1.0, 2.0, 2.0], [1.0, 2.0, 2.0]], dtype=m.float64, requires_grad=True)
        out = program(m, x)
        outs = out if isinstance(out, tuple) else (out,)
        values = outs[0]
        with pytest.raises(RuntimeError) as info:
            values.sum().backward()
        seen.append((values.grad_fn.name(), [o.requires_grad for o in outs], str(info.value)))
    assert seen[0] == seen[1]


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean"])
def test_scatter_reduce_complex_gradcheck(reduce):
    # torch refuses complex autograd for scatter_reduce at the forward call ("does not
    # support automatic differentiation for outputs with complex dtype"); strided records
    # it, with the conjugate Wirtinger gradients gradcheck expects
    for include_self in (True, False):
        def program(m, x, s, include_self=include_self):
            return x.scatter_reduce(0, _idx(m), s, reduce, include_self=include_self)
        gradcheck_strided(program, [(3, 4), (2, 4)], dtype="complex128", second=True)


def test_inplace_op_without_formula_on_a_view():
    # scatter_ with reduce= has no formula (in torch either): the base's history becomes
    # CopySlices over a NotImplemented node, and backward fails instead of silently
    # using the history from before the change
    seen = []
    for m in (strided, torch):
        x = m.ones(2, 3, dtype=m.float64, requires_grad=True)
        y = x * 1
        y[0].scatter_(0, m.tensor([0, 1]), 2.0, reduce="multiply")
        with pytest.raises(RuntimeError) as info:
            y.sum().backward()
        seen.append((_strip(y.grad_fn.name()), str(info.value).replace("aten::", "")))
    assert seen[0] == seen[1]
