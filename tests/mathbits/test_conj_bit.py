"""Lazy conjugate and negative bits against torch (Note [Conjugate and negative bits] in
kernels/view_ops.py, Note [The math bits fallback] in kernels/math_bits.py).

Each recipe runs on strided and on torch; ``check`` compares results (bits included:
``assert_same`` compares ``is_conj()`` / ``is_neg()`` and the values they stand for),
errors and warnings."""

from __future__ import annotations

import copy
import io
import pickle

import numpy as np
import pytest
from conftest import check

import strided


def _c(m, n=4, dtype=None):
    """A complex vector with distinct real and imaginary parts."""
    dtype = dtype or m.complex128
    return m.tensor([complex(i + 1, -2 * i - 0.5) for i in range(n)], dtype=dtype)


def _cm(m, shape=(2, 3)):
    n = shape[0] * shape[1]
    return m.view_as_complex(m.arange(2.0 * n, dtype=m.float64).reshape(*shape, 2) - 2.5)


def _bits(t):
    return (t.is_conj(), t.is_neg())


# -- the views and their bits ------------------------------------------------------------------

def test_conj_is_a_view_with_the_bit():
    def recipe(m):
        x = _c(m)
        c = x.conj()
        return (c, _bits(c), c._base is x, c.data_ptr() == x.data_ptr(), c._is_view(),
                m.conj(x).is_conj(), x.is_conj())
    check(recipe)


def test_conj_of_real_is_self_and_conj_of_conj_clears_the_bit():
    def recipe(m):
        r = m.arange(3.0)
        x = _c(m)
        cc = x.conj().conj()
        return r.conj() is r, m.conj(r) is r, cc, _bits(cc), cc._base is x
    check(recipe)


def test_neg_view_and_its_bits():
    def recipe(m):
        x = _c(m)
        r = m.arange(4.0)
        n = x._neg_view()
        return (n, _bits(n), n._base is x, r._neg_view(), _bits(r._neg_view()),
                m._neg_view(r), n.conj(), _bits(n.conj()), _bits(n._neg_view()))
    check(recipe)


def test_resolve_conj_and_resolve_neg():
    def recipe(m):
        x = _cm(m, (3, 2)).t()
        c = x.conj()
        n = x._neg_view()
        return (c.resolve_conj(), _bits(c.resolve_conj()), c.resolve_conj().stride(),
                x.resolve_conj() is x, n.resolve_neg(), n.resolve_conj() is n,
                n.conj().resolve_conj(), _bits(n.conj().resolve_conj()),
                m.resolve_conj(c), m.resolve_neg(n))
    check(recipe)


def test_conj_physical():
    def recipe(m):
        x = _c(m)
        c = x.conj()
        out = (m.conj_physical(c), _bits(m.conj_physical(c)), c.conj_physical(),
               m.conj_physical(x._neg_view()), m._conj_physical(c))
        y = _c(m)
        y.conj().conj_physical_()
        z = _c(m)
        z._neg_view().conj_physical_()
        return out + (y, z)
    check(recipe)


@pytest.mark.parametrize("name", ["H", "mH", "adjoint", "mT"])
def test_matrix_adjoints_are_views(name):
    def recipe(m):
        x = _cm(m, (2, 3))
        v = x.adjoint() if name == "adjoint" else getattr(x, name)
        w = getattr(x.conj(), name) if name != "adjoint" else x.conj().adjoint()
        return v, _bits(v), v._base is x, v.stride(), w, _bits(w), m.adjoint(x)
    check(recipe)


def test_views_of_conj_keep_the_bit():
    def recipe(m):
        c = _cm(m, (2, 3)).conj()
        views = [c[0], c[:, 1:], c[None], c.t(), c.transpose(0, 1), c.permute(1, 0),
                 c.reshape(3, 2), c.view(6), c.flatten(), c.unsqueeze(0).expand(2, 2, 3),
                 c.diagonal(), c.narrow(1, 0, 2), c.select(1, 2), c.unbind(0)[1],
                 c.split(1, 1)[2], c.chunk(2, 0)[0], c.as_strided((2,), (1,)), c.detach(),
                 c.unfold(1, 2, 1), c.movedim(0, 1), c.squeeze(), c.contiguous(),
                 c.view_as(c), c.expand_as(c)]
        return [(v, _bits(v)) for v in views]
    check(recipe)


def test_copies_of_conj_lose_the_bit():
    def recipe(m):
        c = _cm(m, (2, 3)).conj()
        copies = [c.clone(), c.t().contiguous(), c.t().reshape(6), c.to(m.complex64),
                  c.to(m.complex128), c * 2, c + 0, c[[1, 0]], m.empty_like(c).zero_(),
                  m.zeros_like(c), m.ones_like(c), c.new_zeros(2), m.full_like(c, 2j),
                  c.real, c.sum(), c.cumsum(0), m.cat([c, c]), m.stack([c, c]),
                  c.flip(0), c.roll(1, 1)]
        return [(v, _bits(v)) for v in copies]
    check(recipe)


def test_real_and_imag_of_bit_views():
    def recipe(m):
        x = _c(m)
        n = x._neg_view()
        out = []
        for t in (x.conj(), n, n.conj()):
            out += [t.real, _bits(t.real), t.imag, _bits(t.imag), t.real._base is x,
                    t.imag._base is x]
        out += [x.conj().imag.real, _bits(x.conj().imag.real)]
        return out
    check(recipe)


def test_view_as_real_and_dtype_views():
    def recipe(m):
        x = _c(m)
        n = x._neg_view()
        return m.view_as_real(n), _bits(m.view_as_real(n)), m.view_as_complex(
            m.arange(4.0).reshape(2, 2)._neg_view())
    check(recipe)
    for fn in (lambda m: m.view_as_real(_c(m).conj()),
               lambda m: _c(m).conj().view(m.float64),
               lambda m: _c(m).conj().view(m.complex128),
               lambda m: m.arange(4.0)._neg_view().view(m.int64),
               lambda m: _c(m)._neg_view().view(m.float64)):
        check(fn)


# -- writes through the views ------------------------------------------------------------------

def test_writes_through_conj_view_land_conjugated():
    def recipe(m):
        x = _c(m)
        c = x.conj()
        c[0] = 5 + 6j
        c[1:3].fill_(1j)
        c.add_(1j)
        c.mul_(2)
        c[-1] += 3 - 1j
        return x, c, _bits(c)
    check(recipe)


def test_writes_through_neg_view():
    def recipe(m):
        x = m.arange(4.0)
        n = x._neg_view()
        n[0] = 7
        n.add_(1)
        n[1:] *= 2
        y = _c(m)
        y._neg_view().conj().fill_(1 + 2j)
        return x, n, y
    check(recipe)


def test_real_and_imag_setters_through_conj_view():
    def recipe(m):
        x = _c(m)
        c = x.conj()
        c.imag.fill_(7)
        c.real.fill_(9)
        y = _c(m)
        y.conj().imag = m.tensor([1.0, 2, 3, 4], dtype=m.float64)
        return x, y
    check(recipe)


def test_copy_between_bits():
    def recipe(m):
        x = _c(m)
        a = m.zeros(4, dtype=m.complex128)
        a.copy_(x.conj())
        b = m.zeros(4, dtype=m.complex128)
        b.conj().copy_(x)
        c = m.zeros(4, dtype=m.complex128)
        c.conj().copy_(x.conj())
        d = m.zeros(4, dtype=m.float64)
        d.copy_(x._neg_view().conj())
        e = _c(m)
        e.copy_(e.conj())                      # same memory, other bits: not a no-op
        f = m.zeros(4, dtype=m.complex64)
        f._neg_view().copy_(x.conj())
        return a, b, c, d, e, f
    check(recipe, warns=False)


def test_out_and_inplace_with_bits():
    def recipe(m):
        x = _c(m)
        y = m.zeros(4, dtype=m.complex128)
        m.add(x, 1, out=y.conj())
        z = _c(m)
        m.add(z.conj(), 1j, out=z.conj())      # the written tensor is an input too
        w = _c(m)
        m.mul(w.conj(), w, out=w)              # an input is a conj view of the output
        v = m.zeros(4)
        m.sub(m.arange(4.0), 1, out=v._neg_view())
        return y, z, w, v
    check(recipe)


def test_out_resized_through_the_fallback():
    def recipe(m):
        b = m.zeros(2, dtype=m.complex64)
        out = m.add(m.ones(3, dtype=m.complex64), 1j, out=b.conj())
        return b.shape, out.shape, _bits(out), out
    check(recipe)


def test_indexing_with_bits():
    def recipe(m):
        x = _cm(m, (3, 4))
        c = x.conj()
        got = [c[1], c[1, 2], c[[0, 2]], c[c.real > 2], c[..., 1], c[:, None, 1:3]]
        c[[0, 2], 1] = m.tensor([1j, 2j], dtype=m.complex128)
        c[c.real < 0] = 0
        c[1, 1:3] = m.tensor([5 + 5j, 6 - 6j], dtype=m.complex128)
        n = m.arange(6.0).reshape(2, 3)._neg_view()
        n[0, [0, 2]] = 9
        n[n > -2] += 1
        return [(g, _bits(g)) for g in got] + [x, c, n]
    check(recipe)


def test_reading_values():
    def recipe(m):
        c = _c(m).conj()
        n = m.arange(3.0)._neg_view()
        return (c.tolist(), c[1].item(), n.tolist(), n[2].item(), complex(c[0]), float(n[1]),
                repr(c), str(n), repr(c.imag), bool(c[0] == 1 - 0.5j), c.equal(c.clone()),
                m.equal(c, _c(m).conj_physical()))
    check(recipe)


def test_printing_conj_and_neg_views():
    def recipe(m):
        x = _cm(m, (2, 3))
        return repr(x.conj()), repr(x.mH), repr(x._neg_view()), repr(x.conj().imag), \
            repr(m.arange(5.0)._neg_view()), format(x.conj()[0, 1].real, ".2f")
    check(recipe)


# -- NumPy, DLPack, pickling ------------------------------------------------------------------

def test_numpy_refuses_bits():
    check(lambda m: _c(m).conj().numpy())
    check(lambda m: m.arange(3.0)._neg_view().numpy())
    check(lambda m: np.asarray(_c(m).conj()))
    check(lambda m: _c(m)._neg_view().conj().numpy())
    check(lambda m: _c(m).conj().numpy(force=True))
    check(lambda m: m.arange(3.0)._neg_view().numpy(force=True))
    check(lambda m: np.asarray(_c(m).conj().resolve_conj()))


def test_dlpack():
    check(lambda m: _c(m).conj().__dlpack__())
    # torch's legacy to_dlpack and __dlpack__ of a negative view export the bytes as they are
    for fn in (lambda m: m.utils.dlpack.from_dlpack(m.utils.dlpack.to_dlpack(_c(m).conj())),
               lambda m: m.from_dlpack(m.arange(3.0)._neg_view())):
        check(fn)


@pytest.mark.parametrize("make", [
    lambda m: _c(m).conj(), lambda m: m.arange(3.0)._neg_view(),
    lambda m: _c(m)._neg_view().conj(), lambda m: _cm(m, (2, 3)).mH,
    lambda m: _c(m).conj().requires_grad_()])
def test_pickle_keeps_the_bits(make):
    def recipe(m):
        t = make(m)
        p = pickle.loads(pickle.dumps(t))
        return p, _bits(p), p.stride()
    check(recipe)


def test_save_load_keeps_the_bits_and_sharing():
    def recipe(m):
        x = _c(m)
        buf = io.BytesIO()
        m.save([x, x.conj(), x.imag, x.conj().imag], buf)
        buf.seek(0)
        a, c, i, ci = m.load(buf)
        return (a, c, _bits(c), i, ci, _bits(ci),
                c.untyped_storage().data_ptr() == a.untyped_storage().data_ptr())
    check(recipe)


def test_copy_module_and_deepcopy():
    def recipe(m):
        c = _c(m).conj()
        n = m.arange(3.0)._neg_view()
        d, e = copy.deepcopy(c), copy.deepcopy(n)
        s = copy.copy(c)
        return d, _bits(d), e, _bits(e), s, _bits(s)
    check(recipe)


# -- autograd ----------------------------------------------------------------------------------

def _leaf(m):
    return _c(m).requires_grad_()


def test_grad_fn_names():
    def recipe(m):
        x = _leaf(m)
        a = m.arange(4.0, dtype=m.float64).requires_grad_()
        mat = _cm(m, (2, 2)).to(m.complex128).requires_grad_()
        c = x.conj()
        names = [c.grad_fn.name(), c.resolve_conj().grad_fn.name(),
                 c.conj_physical().grad_fn.name(), x.conj_physical().grad_fn.name(),
                 m._conj(x).grad_fn.name(), c.imag.grad_fn.name(),
                 c.imag.grad_fn.next_functions[0][0].name(),
                 c.imag.resolve_neg().grad_fn.name(), x._neg_view().grad_fn.name(),
                 a._neg_view().grad_fn.name(), mat.mH.grad_fn.name(), mat.H.grad_fn.name(),
                 mat.adjoint().grad_fn.name(),
                 mat.mH.grad_fn.next_functions[0][0].name(), (c * c).grad_fn.name(),
                 c.sum().grad_fn.name(), c.clone().grad_fn.name()]
        return names, a.conj() is a, a.resolve_neg() is a, c.requires_grad, c.is_leaf
    check(recipe)


def _grads(m, program):
    x = _leaf(m)
    a = m.tensor([0.5, -1.0, 2.0, 3.0], dtype=m.float64, requires_grad=True)
    out = program(m, x, a)
    w = m.tensor([1 - 1j, 2j, -1.5, 0.5 + 0.25j], dtype=m.complex128)
    loss = (out * w[:out.shape[-1]]).sum()
    (loss.real if loss.is_complex() else loss).backward()
    return x.grad, a.grad


@pytest.mark.parametrize("program", [
    lambda m, x, a: x.conj() * 2,
    lambda m, x, a: (x.conj() * x).abs() + a,
    lambda m, x, a: x.conj().imag * a,
    lambda m, x, a: x.conj().real + x._neg_view().imag,
    lambda m, x, a: (x * a).conj().resolve_conj().exp(),
    lambda m, x, a: a._neg_view() * x.conj(),
    lambda m, x, a: m.view_as_real(x._neg_view()).sum(-1),
    lambda m, x, a: x.reshape(2, 2).mH.reshape(4),
    lambda m, x, a: x.conj().conj_physical() * 1j,
    lambda m, x, a: m.matmul(x.reshape(2, 2).conj(), x.reshape(2, 2)).reshape(4),
], ids=["conj", "abs", "imag", "real_neg", "resolve", "negview", "view_as_real", "mH",
        "conj_physical", "matmul"])
def test_gradients_through_bit_views(program):
    check(lambda m: _grads(m, program), exact=False)


def test_inplace_on_conj_view_of_a_non_leaf():
    def recipe(m):
        x = _leaf(m)
        y = x * 1
        yc = y.conj()
        yc.mul_(m.tensor([2j, 1, 1, -1j], dtype=m.complex128))
        names = (yc.grad_fn.name(), y.grad_fn.name())
        y.abs().sum().backward()
        return names, yc.is_conj(), x.grad
    check(recipe, exact=False)


def test_setitem_through_conj_view_with_autograd():
    def recipe(m):
        x = _leaf(m)
        b = m.tensor([0.5j, 2.0], dtype=m.complex128, requires_grad=True)
        y = x * 2
        y.conj()[1:3] = b * 3
        y.imag[0] = 4.0
        (y * m.tensor([1j, 2, 3 - 1j, 1], dtype=m.complex128)).sum().real.backward()
        return y.grad_fn.name(), x.grad, b.grad
    check(recipe, exact=False)


def test_requires_grad_on_a_conj_view():
    def recipe(m):
        c = _c(m).conj()
        c.requires_grad_()
        (c * c).sum().real.backward()
        return _bits(c), c.grad, c.is_leaf
    check(recipe, exact=False)


def test_inplace_on_conj_view_of_a_leaf_is_refused():
    def recipe(m):
        x = _leaf(m)
        x.conj().add_(1)
    check(recipe)


# -- the fallback's corner cases ---------------------------------------------------------------

def test_meta_conj_views():
    def recipe(m):
        x = m.empty(2, 3, dtype=m.complex64, device="meta")
        c = x.conj()
        return _bits(c), (c + 1).shape, _bits(c + 1), c.mH.stride(), _bits(c.imag), \
            c.clone().device.type, _bits(c.clone())
    check(recipe)


def test_dispatch_of_plain_tensors_never_reaches_the_fallback():
    """A tensor without bits never dispatches to the math-bits keys (Note [Fallthrough
    masks]): the key chosen for a plain complex add is the backend's."""
    from strided.core.dispatch_keys import DispatchKey
    from strided.ops.dispatcher import get_op
    x = _c(strided)
    op = get_op("aten::add.Tensor")
    assert op.dispatch_key(x._keyset) is DispatchKey.CPU
    assert op.dispatch_key(x.conj()._keyset) is DispatchKey.Conjugate
    assert op.dispatch_key(x._neg_view()._keyset) is DispatchKey.Negative
    # copy_ and clone are fallthroughs for both keys: the backend's kernel serves them
    for name in ("aten::copy_", "aten::clone", "aten::is_conj"):
        ks = x.conj()._neg_view()._keyset
        assert get_op(name).dispatch_key(ks) is DispatchKey.CPU, name


def test_bool_neg_view_cannot_be_read():
    check(lambda m: m.tensor([True, False])._neg_view().clone())
