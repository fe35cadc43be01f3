"""Memory formats against torch: ``is_contiguous(memory_format=)`` for every format, the
strides that ``empty``/``*_like``/``clone``/``contiguous``/``to``/the dtype casts lay out,
when ``to`` and friends return ``self``, the rank errors, and the layout that
elementwise (TensorIterator) results inherit from their inputs.

Inputs are drawn by hypothesis as views of one buffer (a permutation, steps, an expanded
size-1 dim) over ranks 1-6 with sizes 0, 1, 2, 3, so the ambiguous size-1 cases and
empty tensors come up often."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import strided
from tests.conftest import assert_same, assert_same_error, check, hyp

FORMATS = ["contiguous_format", "channels_last", "channels_last_3d", "preserve_format"]


@st.composite
def layouts(draw, min_rank=1, max_rank=6, sizes=None):
    """A recipe ``lib -> tensor``: a float32 view of an arange with drawn sizes (0-3), a
    permutation, per-dim steps and possibly one size-1 dim expanded (stride 0)."""
    if sizes is None:
        rank = draw(st.integers(min_rank, max_rank))
        sizes = draw(st.lists(st.sampled_from([1, 1, 2, 3, 0, 2, 3]), min_size=rank,
                              max_size=rank))
        if draw(st.integers(0, 4)) and 0 in sizes:   # empty tensors, but not most of the time
            sizes = [s or 2 for s in sizes]
    rank = len(sizes)
    perm = draw(st.permutations(range(rank)))
    steps = draw(st.lists(st.sampled_from([1, 1, 1, 2]), min_size=rank, max_size=rank))
    expand = draw(st.sampled_from([None] + [d for d in range(rank) if sizes[d] == 1]))
    expand_to = draw(st.integers(2, 3))

    def make(lib):
        full = [s * k for s, k in zip(sizes, steps)]
        base_sizes = [full[p] for p in perm]
        n = 1
        for s in base_sizes:
            n *= s
        x = lib.arange(float(n)).reshape(base_sizes)
        inverse = [perm.index(d) for d in range(rank)]
        x = x.permute(inverse)
        x = x[tuple(slice(None, None, k) for k in steps)]
        if expand is not None:
            shape = list(x.shape)
            shape[expand] = expand_to
            x = x.expand(shape)
        return x

    return make


def fmt(lib, name):
    return getattr(lib, name)


def _flags(x, lib):
    return [x.is_contiguous(memory_format=fmt(lib, f)) for f in FORMATS] + [x.is_contiguous()]


@hyp(200)
@given(layouts())
def test_is_contiguous_every_format(make):
    assert _flags(make(strided), strided) == _flags(make(torch), torch)


@pytest.mark.parametrize("sizes, strides", [
    ((2, 3, 4, 5), (60, 1, 15, 3)),     # channels last
    ((2, 1, 4, 5), (20, 20, 5, 1)),     # C == 1: both formats
    ((2, 1, 4, 5), (20, 1, 5, 1)),
    ((2, 3, 1, 1), (3, 1, 3, 3)),       # N C 1 1: both
    ((2, 3, 1, 1), (3, 1, 1, 1)),
    ((1, 3, 1, 4), (12, 1, 12, 3)),     # 1 C 1 W transposed
    ((1, 3, 1, 4), (12, 4, 4, 1)),
    ((3, 1, 1, 1), (1, 1, 1, 1)),       # N 1 1 1: ambiguous
    ((3, 1, 2, 1), (2, 2, 1, 1)),
    ((0, 3, 4, 5), (60, 1, 15, 3)),
    ((2, 0, 4, 5), (0, 1, 0, 0)),
    ((2, 3, 4, 5), (60, 0, 15, 3)),     # C of stride 0
    ((2, 3, 4, 5, 6), (360, 1, 90, 18, 3)),
    ((2, 1, 4, 5, 6), (120, 1, 30, 6, 1)),
    ((2, 3, 4, 1, 1), (12, 1, 3, 3, 3)),
    ((2, 3, 1, 1, 1), (3, 1, 3, 3, 3)),
    ((2, 3, 4), (12, 1, 3)),
])
def test_flags_of_ambiguous_strides(sizes, strides):
    def recipe(lib):
        x = lib.empty_strided(sizes, strides)
        return (_flags(x, lib),
                lib.empty_like(x).stride(), x.clone().stride(),
                lib.empty_like(x, memory_format=lib.contiguous_format).stride(),
                x.to(lib.float64).stride(),
                x.to(memory_format=lib.channels_last if len(sizes) == 4 else
                     lib.contiguous_format) is x,
                (x + 1).stride(), x.neg().stride())
    check(recipe)


# -- factories -------------------------------------------------------------------------------

@hyp(80)
@given(st.lists(st.sampled_from([0, 1, 2, 3]), min_size=0, max_size=6),
       st.sampled_from(FORMATS))
def test_empty_with_memory_format(sizes, name):
    check(lambda lib: lib.empty(sizes, memory_format=fmt(lib, name)).stride())
    check(lambda lib: lib.empty(*sizes, dtype=lib.int16, memory_format=fmt(lib, name))
          .stride() if sizes else lib.empty(()).stride())


@pytest.mark.parametrize("op", ["empty_like", "zeros_like", "ones_like", "rand_like",
                                "randn_like", "full_like", "randint_like"])
@hyp(40)
@given(make=layouts(), name=st.sampled_from(FORMATS + [None]))
def test_like_factories(op, make, name):
    def recipe(lib):
        lib.manual_seed(0)
        x = make(lib)
        args = {"full_like": (x, 2.5), "randint_like": (x, 7)}.get(op, (x,))
        kwargs = {} if name is None else {"memory_format": fmt(lib, name)}
        y = getattr(lib, op)(*args, **kwargs)
        return y if op != "empty_like" else (y.shape, y.stride(), y.dtype)
    check(recipe)


def test_new_empty_has_no_memory_format():
    check(lambda lib: lib.ones(2, 3, 4, 5).new_empty((2, 3, 4, 5),
                                                     memory_format=lib.channels_last))


# -- clone, contiguous -------------------------------------------------------------------------

@hyp(150)
@given(make=layouts(), name=st.sampled_from(FORMATS + [None]))
def test_clone(make, name):
    def recipe(lib):
        x = make(lib)
        y = x.clone() if name is None else x.clone(memory_format=fmt(lib, name))
        return y, y.numel() > 0 and y.data_ptr() == x.data_ptr()
    check(recipe)


@hyp(150)
@given(make=layouts(), name=st.sampled_from(FORMATS))
def test_contiguous_returns_self_exactly_when_torch_does(make, name):
    def recipe(lib):
        x = make(lib)
        y = x.contiguous(memory_format=fmt(lib, name))
        return y, y is x
    check(recipe)


@pytest.mark.parametrize("bad", [None, 1, "channels_last"])
@pytest.mark.parametrize("method", ["contiguous", "is_contiguous", "float", "bool", "cdouble"])
def test_memory_format_argument_errors(method, bad):
    x = (strided.ones(2, 3), torch.ones(2, 3))
    if bad is not None or "contiguous" in method:
        assert_same_error(lambda: getattr(x[0], method)(memory_format=bad),
                          lambda: getattr(x[1], method)(memory_format=bad))
    assert_same_error(lambda: getattr(x[0], method)(strided.channels_last),
                      lambda: getattr(x[1], method)(torch.channels_last))
    assert_same_error(lambda: getattr(x[0], method)(format=strided.channels_last),
                      lambda: getattr(x[1], method)(format=torch.channels_last))


def test_is_contiguous_positional_error():
    x = (strided.ones(2, 3), torch.ones(2, 3))
    assert_same_error(lambda: x[0].is_contiguous(strided.channels_last),
                      lambda: x[1].is_contiguous(torch.channels_last))


# -- to, the dtype casts, type ---------------------------------------------------------------

TO_FORMS = ["to_format", "to_dtype_format", "to_same_dtype_format", "to_dtype", "to_same_dtype",
            "to_copy", "float", "double", "float_format", "double_format", "type_same",
            "type_other", "to_tensor_format", "to_device_format"]


def _to(lib, x, form, name):
    mf = fmt(lib, name)
    if form == "to_format":
        return x.to(memory_format=mf)
    if form == "to_dtype_format":
        return x.to(lib.float64, memory_format=mf)
    if form == "to_same_dtype_format":
        return x.to(x.dtype, memory_format=mf)
    if form == "to_dtype":
        return x.to(lib.int32)
    if form == "to_same_dtype":
        return x.to(lib.float32)
    if form == "to_copy":
        return x.to(lib.float32, copy=True)
    if form == "float":
        return x.float()
    if form == "double":
        return x.double()
    if form == "float_format":
        return x.float(memory_format=mf)
    if form == "double_format":
        return x.double(memory_format=mf)
    if form == "type_same":
        return x.type(lib.float32)
    if form == "type_other":
        return x.type("torch.DoubleTensor")
    if form == "to_tensor_format":
        return x.to(lib.ones((), dtype=lib.float32), memory_format=mf)
    return x.to("cpu", lib.float32, memory_format=mf)


@hyp(200)
@given(make=layouts(), form=st.sampled_from(TO_FORMS), name=st.sampled_from(FORMATS))
def test_to_returns_self_only_when_torch_does(make, form, name):
    def recipe(lib):
        x = make(lib)
        y = _to(lib, x, form, name)
        return y, y is x, y.numel() > 0 and y.data_ptr() == x.data_ptr()
    check(recipe)


def test_dtype_casts_take_memory_format_by_keyword_only():
    check(lambda lib: lib.ones(2, 3, 4, 5).float(lib.channels_last))
    check(lambda lib: lib.ones(2, 3, 4).double(memory_format=lib.channels_last))
    check(lambda lib: lib.ones(2, 3, 4).float(memory_format=lib.channels_last_3d))
    check(lambda lib: lib.ones(2, 3, 4).to(memory_format=lib.channels_last))
    check(lambda lib: lib.ones(2, 3, 4, 5).to(lib.int8, memory_format=lib.channels_last_3d))


def test_to_keeps_autograd():
    def recipe(lib):
        x = lib.ones(2, 3, 4, 5, requires_grad=True)
        y = x.to(memory_format=lib.channels_last)
        (y * lib.arange(5.0)).sum().backward()
        return y.grad_fn.name(), y.stride(), x.grad
    check(recipe)


# -- rank errors -----------------------------------------------------------------------------

@pytest.mark.parametrize("rank", [0, 1, 2, 3, 4, 5, 6])
@pytest.mark.parametrize("name", ["channels_last", "channels_last_3d"])
@pytest.mark.parametrize("op", ["empty", "empty_like", "zeros_like", "rand_like", "clone",
                                "contiguous", "to", "to_dtype", "double"])
def test_rank_errors(rank, name, op):
    def recipe(lib):
        shape = (2,) * rank
        x = lib.ones(shape)
        mf = fmt(lib, name)
        if op == "empty":
            return lib.empty(shape, memory_format=mf).stride()
        if op in ("empty_like", "zeros_like", "rand_like"):
            return getattr(lib, op)(x, memory_format=mf).stride()
        if op == "clone":
            return x.clone(memory_format=mf).stride()
        if op == "contiguous":
            return x.contiguous(memory_format=mf).stride()
        if op == "to":
            return x.to(memory_format=mf).stride()
        if op == "to_dtype":
            return x.to(lib.float16, memory_format=mf).stride()
        return x.double(memory_format=mf).stride()
    check(recipe)


# -- TensorIterator: results inherit the inputs' layout ----------------------------------------

@st.composite
def operand_pairs(draw):
    """Two layouts of one shape (ranks 3-5), the second possibly broadcast (some dims set to
    1, or leading dims dropped), so the drawn permutations compete in TensorIterator."""
    rank = draw(st.integers(3, 5))
    sizes = draw(st.lists(st.sampled_from([1, 2, 3, 2, 3, 0]), min_size=rank, max_size=rank))
    if draw(st.integers(0, 4)):
        sizes = [s or 2 for s in sizes]
    other = list(sizes)
    if draw(st.booleans()):
        ones = draw(st.lists(st.integers(0, rank - 1), max_size=2))
        other = [1 if d in ones else s for d, s in enumerate(other)]
        other = other[draw(st.integers(0, 2)):]
    return draw(layouts(sizes=sizes)), draw(layouts(sizes=other))


@hyp(200)
@given(pair=operand_pairs(), op=st.sampled_from(["add", "radd", "mul_int", "where", "neg",
                                                 "lt", "add_scalar", "add_0d", "out",
                                                 "addcmul", "abs_out"]))
def test_elementwise_result_layout(pair, op):
    a, b = pair

    def recipe(lib):
        x, y = a(lib), b(lib)
        if op == "neg":
            return x.neg(), y.neg()
        if op == "add_scalar":
            return x + 1
        if op == "add_0d":
            return lib.tensor(2.0) + x
        if op == "add":
            return x + y
        if op == "radd":
            return y + x
        if op == "mul_int":
            return x.to(lib.int64) * y, y * x.to(lib.int32)
        if op == "lt":
            return x < y
        if op == "out":
            out = lib.empty(0)
            return lib.sub(y, x, out=out)
        if op == "abs_out":
            out = lib.empty(0, dtype=lib.float64)
            return lib.abs(x, out=out)
        if op == "addcmul":
            return lib.addcmul(x, y, x), lib.addcmul(y, x, y)
        return lib.where(x > 2, x, y), lib.where(y > 2, y, x)
    check(recipe)


@pytest.mark.parametrize("shapes", [
    ((2, 3, 4, 5), (2, 3, 4, 5)),
    ((2, 3, 4, 5), (3, 1, 1)),
    ((2, 3, 4, 5), (1, 3, 1, 1)),
    ((2, 3, 4, 5), (5,)),
    ((1, 3, 4, 5), (2, 3, 4, 5)),
    ((2, 1, 4, 5), (2, 3, 4, 5)),
    ((2, 3, 1, 1), (2, 3, 4, 5)),
    ((2, 3, 4, 5, 6), (2, 3, 4, 5, 6)),
    ((2, 3, 4, 5, 6), (3, 1, 1, 1)),
    ((0, 3, 4, 5), (0, 3, 4, 5)),
    ((2, 3, 0, 5), (3, 1, 1)),
])
@pytest.mark.parametrize("formats", [("cl", "cl"), ("cl", "c"), ("c", "cl")])
def test_binary_mixed_formats(shapes, formats):
    def recipe(lib):
        def lay(shape, f):
            x = lib.arange(float(max(1, _numel(shape))))[:_numel(shape)].reshape(shape)
            if f == "cl" and len(shape) in (4, 5):
                x = x.contiguous(memory_format=lib.channels_last if len(shape) == 4
                                 else lib.channels_last_3d)
            return x
        x, y = lay(shapes[0], formats[0]), lay(shapes[1], formats[1])
        out = lib.empty(0)
        lib.add(x, y, out=out)
        return x + y, y * x, lib.maximum(x, y), out, x.add_(0) if x.shape == lib.broadcast_shapes(
            x.shape, y.shape) else x
    check(recipe)


def _numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def test_in_place_and_out_keep_their_layout():
    def recipe(lib):
        x = lib.ones(2, 3, 4, 5).contiguous(memory_format=lib.channels_last)
        y = lib.ones(2, 3, 4, 5)
        x.mul_(y)
        out = lib.empty(2, 3, 4, 5)
        lib.mul(x, y, out=out)
        return x, out, x.is_contiguous(memory_format=lib.channels_last)
    check(recipe)


def test_channels_last_values_and_meta():
    def recipe(lib):
        x = lib.arange(120.0).reshape(2, 3, 4, 5)
        y = x.to(memory_format=lib.channels_last)
        m = lib.empty(2, 3, 4, 5, device="meta", memory_format=lib.channels_last)
        return (y, y.contiguous(), (y * 2).sum(1), (m + 1).stride(),
                m.to(memory_format=lib.contiguous_format).stride(),
                lib.empty_like(m).stride())
    check(recipe)


def test_assert_same_sees_strides():
    # the comparison helper itself must catch a layout difference
    s = strided.ones(2, 3, 4, 5).contiguous(memory_format=strided.channels_last)
    t = torch.ones(2, 3, 4, 5)
    with pytest.raises(AssertionError):
        assert_same(s, t)


# -- resize, cat/stack, random fills, cpu --------------------------------------------------------

@pytest.mark.parametrize("case", ["same", "grow", "rank3", "preserve", "contig", "cl3d",
                                  "as_", "as_cl", "as_preserve", "as_preserve_plain"])
def test_resize_restrides_to_the_memory_format(case):
    def recipe(lib):
        cl = lib.channels_last
        x = lib.ones(2, 3, 4, 5)
        tmpl = lib.ones(2, 3, 4, 5).contiguous(memory_format=cl)
        if case == "same":
            y = x.resize_(2, 3, 4, 5, memory_format=cl)
        elif case == "grow":
            y = lib.ones(2).resize_(2, 3, 4, 5, memory_format=cl)
        elif case == "rank3":
            y = lib.ones(2).resize_(2, 3, 4, memory_format=cl)
        elif case == "preserve":
            y = lib.ones(2).resize_(2, 3, memory_format=lib.preserve_format)
        elif case == "contig":
            y = tmpl.clone().resize_(2, 3, 4, 5, memory_format=lib.contiguous_format)
        elif case == "cl3d":
            y = lib.ones(2).resize_((2, 3, 4, 5, 1), memory_format=lib.channels_last_3d)
        elif case == "as_":
            y = lib.ones(2).resize_as_(tmpl)
        elif case == "as_cl":
            y = lib.ones(2).resize_as_(x, memory_format=cl)
        elif case == "as_preserve":
            y = lib.ones(2).resize_as_(tmpl, memory_format=lib.preserve_format)
        else:
            y = tmpl.clone().resize_as_(x.transpose(0, 1), memory_format=lib.preserve_format)
        return y.shape, y.stride(), y.is_contiguous(memory_format=cl)
    check(recipe)


def test_empty_out_refuses_a_memory_format():
    for mf in ("channels_last", "contiguous_format"):
        check(lambda lib, mf=mf: lib.empty((2, 3, 4, 5), out=lib.empty(0),
                                           memory_format=getattr(lib, mf)))
    check(lambda lib: lib.empty((2, 3), out=lib.empty(0), memory_format=None).stride())


def test_cpu_takes_memory_format():
    def recipe(lib):
        x = lib.ones(2, 3, 4, 5)
        y = x.cpu(memory_format=lib.channels_last)
        return y, x.cpu() is x, x.cpu(memory_format=lib.contiguous_format) is x, \
            y.cpu(memory_format=lib.preserve_format) is y
    check(recipe)
    check(lambda lib: lib.ones(2).cpu(lib.channels_last))
    check(lambda lib: lib.ones(2).cpu(memory_format=1))


@pytest.mark.parametrize("dim", [0, 1, 2, 3, 4, -1])
@pytest.mark.parametrize("formats", [("cl", "cl"), ("cl", "c"), ("c", "cl"), ("cl3d", "cl3d")])
def test_cat_and_stack_layouts(dim, formats):
    def recipe(lib):
        def make(f, k):
            if f == "cl3d":
                return (lib.arange(240.0).reshape(2, 3, 2, 4, 5) + k).contiguous(
                    memory_format=lib.channels_last_3d)
            x = lib.arange(120.0).reshape(2, 3, 4, 5) + k
            return x.contiguous(memory_format=lib.channels_last) if f == "cl" else x
        x, y = make(formats[0], 0), make(formats[1], 1000)
        d = min(dim, x.dim() - 1)
        out = lib.empty(0)
        lib.cat([x, y], d, out=out)
        return (lib.stack([x, y], dim), lib.cat([x, y], d), out, lib.cat([lib.empty(0), x, y]),
                lib.stack([x, y], dim)._base is None)
    check(recipe)


@pytest.mark.parametrize("op", ["bernoulli", "bernoulli_p", "bernoulli_method", "poisson",
                                "rand_like", "dropout"])
@pytest.mark.parametrize("layout", ["channels_last", "transposed"])
def test_random_results_layout_and_values(op, layout):
    def recipe(lib):
        x = lib.arange(120.0).reshape(2, 3, 4, 5) / 120
        x = x.contiguous(memory_format=lib.channels_last) if layout == "channels_last" else \
            x.transpose(1, 3)
        lib.manual_seed(0)
        if op == "bernoulli":
            return lib.bernoulli(x)
        if op == "bernoulli_p":
            return lib.bernoulli(x, 0.3)
        if op == "bernoulli_method":
            return x.bernoulli()
        if op == "poisson":
            return lib.poisson(x * 4)
        if op == "rand_like":
            return lib.rand_like(x)
        return lib.nn.functional.dropout(x, 0.4)
    check(recipe)
