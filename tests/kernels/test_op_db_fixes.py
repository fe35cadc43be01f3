"""Differential tests for the op_db corpus entries fixed one by one (tests/ops/test_op_db.py):
aliasing of composite ops, grad_fn names, integer kernels and error inputs, against torch."""

from __future__ import annotations

import torch
from conftest import check

import strided


def _same_storage(a, b) -> bool:
    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()


def _t(m, data, dtype="float64", requires_grad=False):
    return m.tensor(data, dtype=getattr(m, dtype), requires_grad=requires_grad)


# --------------------------------------------------------------------------- conj_physical

def test_conj_physical_of_real_is_the_input_itself():
    for m in (strided, torch):
        x = _t(m, [[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        assert m.conj_physical(x) is x and x.conj_physical() is x
        i = _t(m, [1, 2], "int64")
        assert m.conj_physical(i) is i


def test_conj_physical_of_complex_copies_with_torchs_node():
    def recipe(m):
        x = m.tensor([1 + 2j, 3 - 1j], dtype=m.complex128, requires_grad=True)
        y = m.conj_physical(x)
        assert not _same_storage(x, y)
        (y * m.tensor([2 - 1j, 1j], dtype=m.complex128)).real.sum().backward()
        return y.detach(), y.grad_fn.name(), x.grad
    check(recipe)


# --------------------------------------------------------------------------- take_along_dim

def test_take_along_dim_indices_modulo_the_dim_size():
    def recipe(m):
        x = m.arange(10.0, dtype=m.float64).reshape(2, 5).requires_grad_(True)
        idx = m.tensor([[-1, 12], [-13, 5]])
        y = m.take_along_dim(x, idx, 1)
        y.sum().backward()
        out = m.empty(2, 2, dtype=m.float64)
        m.take_along_dim(x.detach(), idx, -1, out=out)
        return y.detach(), y.grad_fn.name(), x.grad, out, idx
    check(recipe)


def test_take_along_dim_errors():
    check(lambda m: m.take_along_dim(m.arange(10.0), m.tensor([-1]), None))
    check(lambda m: m.take_along_dim(m.empty(2, 0), m.zeros(2, 1, dtype=m.int64), 1))
    check(lambda m: m.take_along_dim(m.empty(2, 0), m.zeros(2, 0, dtype=m.int64), 1))


# --------------------------------------------------------------------------- dropout backward

def test_native_dropout_backward_promotes_integer_gradients():
    def recipe(m):
        mask = m.tensor([True, False, True])
        return [m.ops.aten.native_dropout_backward(m.tensor([3, -2, 5], dtype=getattr(m, d)),
                                                   mask, 0.5)
                for d in ("int64", "int32", "uint8", "float64", "float32")]
    check(recipe)


# --------------------------------------------------------------------------- diag

def test_diag_of_a_matrix_records_diagonal_copy():
    def recipe(m):
        x = m.arange(12.0, dtype=m.float64).reshape(3, 4).requires_grad_(True)
        ys = [m.diag(x, k) for k in (-1, 0, 2)] + [x.diag()]
        sum(y.sum() * (i + 1) for i, y in enumerate(ys)).backward()
        return [(y.detach(), y.grad_fn.name()) for y in ys], x.grad
    check(recipe)


# --------------------------------------------------------------------------- memory formats

def test_channels_last_layouts():
    def recipe(m):
        x = m.arange(36.0, dtype=m.float64).reshape(2, 3, 2, 3)
        v = m.arange(120.0).reshape(1, 3, 2, 4, 5)
        cl = x.contiguous(memory_format=m.channels_last)
        return [m.empty(2, 3, 0, 2, memory_format=m.channels_last).stride(),
                m.empty(2, 3, 4, 2, 5, memory_format=m.channels_last_3d).stride(),
                m.empty_like(x, memory_format=m.channels_last).stride(),
                cl, cl.contiguous(memory_format=m.channels_last) is cl,
                x.clone(memory_format=m.channels_last), x.double(memory_format=m.channels_last),
                x.long(memory_format=m.channels_last), x.to(m.int64, memory_format=m.channels_last),
                cl.contiguous(), v.contiguous(memory_format=m.channels_last_3d)]
    check(recipe)


def test_channels_last_rank_errors():
    check(lambda m: m.empty(2, 3, memory_format=m.channels_last))
    check(lambda m: m.empty(2, 3, 4, memory_format=m.channels_last_3d))
    check(lambda m: m.ones(2, 3).t().contiguous(memory_format=m.channels_last))
    check(lambda m: m.empty_like(m.ones(2, 3), memory_format=m.channels_last))


def test_to_dtype_aliases_only_when_torch_does():
    def recipe(m):
        x = m.ones(2, 3, 2, 3, dtype=m.float64)
        outs = [x.double(), x.to(m.float64), x.double(memory_format=m.channels_last),
                x.to(memory_format=m.channels_last), x.long()]
        return [_same_storage(o, x) for o in outs]
    check(recipe)


# --------------------------------------------------------------------------- out= overlap

def test_out_overlapping_an_input_is_refused():
    def x(m):
        return m.arange(6.0)

    def mask(m):
        return m.tensor([True, False, True, True, False, True])

    def masked_select_into_self(m):
        t = x(m)
        return m.masked_select(t, mask(m), out=t)

    def gather_into_expanded(m):
        return m.gather(x(m), 0, m.tensor([0, 2, 1]), out=m.empty(1).expand(3))

    def cat_into_input(m):
        e, t = m.empty(0), m.ones(4, 6)
        return m.cat((e, t), out=e)

    def cat_into_view_of_input(m):
        t = m.ones(4, 6)
        return m.cat((t, m.zeros(4, 6)), out=t[:2])

    def cat_into_expanded(m):
        return m.cat((m.ones(2, 5), m.ones(3, 5)), out=m.empty(1, 5).expand(5, 5))

    def kthvalue_into_input(m):
        t = x(m)
        return m.kthvalue(t, 2, out=(t, m.empty(0, dtype=m.int64)))

    for recipe in (masked_select_into_self, gather_into_expanded, cat_into_input,
                   cat_into_view_of_input, cat_into_expanded, kthvalue_into_input):
        check(recipe)


def test_reducing_a_dim_of_more_than_64_dims_is_refused():
    def recipe(op, **kw):
        return lambda m: getattr(m, op)(m.zeros([1] * 65), **kw)
    for op in ("amax", "amin", "aminmax"):
        for dim in (-1, 64):
            check(recipe(op, dim=dim))
    check(recipe("amax", dim=(0, 1)))


# --------------------------------------------------------------------------- eigh backward

def test_eigh_gradient_of_a_non_symmetric_input_is_hermitian_as_torchs():
    def recipe(m):
        a = m.tensor([[2.0, 0.3, -1.0], [0.7, 1.0, 0.2], [0.1, -0.4, 3.0]], dtype=m.float64,
                     requires_grad=True)
        c = m.tensor([[1.0, 1j, 0.5], [2.0, -1.0, 1 + 1j], [0.0, 0.3j, 2.0]],
                     dtype=m.complex128, requires_grad=True)
        w = m.tensor([[0.5, -1.0, 2.0], [1.0, 0.25, -0.5], [3.0, 1.0, 1.0]], dtype=m.float64)
        for x, uplo in ((a, "L"), (a, "U"), (c, "U")):
            vals, vecs = m.linalg.eigh(x, UPLO=uplo)
            (vals * m.tensor([1.0, -2.0, 0.5], dtype=m.float64)).sum().backward(
                retain_graph=True)
            (vecs.abs() * w).sum().backward()
        return a.grad, c.grad
    check(recipe, exact=False)


# --------------------------------------------------------------------------- integer conv

def test_integer_convolutions_dilated_and_transposed():
    def recipe(m):
        f = m.nn.functional
        x2 = m.arange(50).reshape(1, 2, 5, 5) % 7 - 3
        w2 = m.arange(54).reshape(2, 3, 3, 3) % 5 - 2
        x1, w1 = x2[:, :, 0], w2[:, :, 0]
        x3 = m.arange(250).reshape(1, 2, 5, 5, 5) % 5 - 2
        w3 = m.arange(108).reshape(2, 2, 3, 3, 3) % 3 - 1
        return [f.conv_transpose2d(x2, w2, stride=2, padding=1), f.conv_transpose1d(x1, w1),
                f.conv_transpose3d(x3, w3, dilation=2), f.conv1d(x1, w1.transpose(0, 1),
                                                                 dilation=2),
                f.conv2d(x2, w2.transpose(0, 1), dilation=(1, 2)),
                f.conv3d(x3, w3, dilation=2, padding=1)]
    check(recipe)


def test_bool_convolutions_are_refused_as_torch():
    def b(m, *s):
        return m.ones(*s, dtype=m.bool)
    check(lambda m: m.nn.functional.conv_transpose2d(b(m, 1, 2, 5, 5), b(m, 2, 3, 3, 3)))
    check(lambda m: m.nn.functional.conv1d(b(m, 1, 2, 5), b(m, 3, 2, 3), dilation=2))
    check(lambda m: m.nn.functional.conv3d(b(m, 1, 2, 5, 5, 5), b(m, 3, 2, 3, 3, 3)))
    for d in ("int32", "int8", "uint8"):     # torch compiles these kernels for int64 only
        check(lambda m, d=d: m.nn.functional.conv_transpose1d(
            m.ones(1, 2, 5, dtype=getattr(m, d)), m.ones(2, 3, 3, dtype=getattr(m, d))))
        check(lambda m, d=d: m.nn.functional.conv2d(
            m.ones(1, 2, 5, 5, dtype=getattr(m, d)), m.ones(3, 2, 3, 3, dtype=getattr(m, d)),
            dilation=2))


# --------------------------------------------------------------------------- batch norm

def test_batch_norm_with_update():
    def recipe(m):
        x = (m.arange(24.0, dtype=m.float64).reshape(3, 2, 4) % 5).requires_grad_(True)
        w = m.tensor([1.5, -0.5], dtype=m.float64, requires_grad=True)
        b = m.tensor([0.25, 1.0], dtype=m.float64, requires_grad=True)
        rm, rv = m.zeros(2, dtype=m.float64), m.ones(2, dtype=m.float64)
        out = m.ops.aten._batch_norm_with_update(x, w, b, rm, rv, 0.1, 1e-5)
        (out[0] * m.arange(24.0, dtype=m.float64).reshape(3, 2, 4)).sum().backward()
        return [t.detach() for t in out], out[0].grad_fn.name(), rm, rv, x.grad, w.grad, b.grad
    check(recipe, exact=False)


# --------------------------------------------------------------------------- kthvalue ties

def test_kthvalue_ties_in_torchs_quickselect_order():
    import numpy as np
    rng = np.random.default_rng(0)
    for n in (1, 2, 3, 5, 8, 17, 40):
        data = rng.integers(-2, 3, size=(6, n)).tolist()
        for k in sorted({1, (n + 1) // 2, n}):
            def recipe(m, data=data, k=k):
                x = m.tensor(data)
                return (m.kthvalue(x, k), m.kthvalue(x.t(), k, 0, keepdim=True),
                        m.kthvalue(x.to(m.int16), k), m.kthvalue(x > 0, k))
            check(recipe)


def test_topk_ties_in_torchs_nth_element_order():
    import numpy as np
    rng = np.random.default_rng(1)
    for n in (1, 3, 5, 10, 17, 33, 70):
        data = rng.integers(-2, 3, size=(5, n)).tolist()
        for k in sorted({1, 2, (n + 1) // 2, n} - {0} & set(range(1, n + 1))):
            def recipe(m, data=data, k=k):
                x = m.tensor(data)
                outs = [m.topk(x, k, largest=lg, sorted=so) for lg in (True, False)
                         for so in (True, False)] + [m.topk(x.t().to(m.int32), k, 0)]
                return [(o.values, o.indices) for o in outs]
            check(recipe)


def test_integer_division_of_an_empty_tensor_by_zero():
    def recipe(m):
        e = m.zeros(0, 3, dtype=m.int64)
        return [m.remainder(e, 0), e // 0, m.fmod(e, 0), e.div(0, rounding_mode="floor"),
                m.remainder(e, m.tensor([1, 0, 2]))]
    check(recipe)
    check(lambda m: m.remainder(m.ones(2, dtype=m.int64), 0))
