"""``pickle``, ``copy.copy`` and ``copy.deepcopy`` of tensors against torch: what survives
(values, dtype, sizes, strides, offset, storage size, requires_grad, attributes, subclass),
what does not (grad on pickling, autograd history, hooks, the version counter), storage
sharing between tensors copied together, and torch's errors and warnings."""

from __future__ import annotations

import copy
import pickle

import pytest
import torch
from conftest import CORE_DTYPE_NAMES, check

import strided


def roundtrip(obj, protocol=pickle.DEFAULT_PROTOCOL):
    return pickle.loads(pickle.dumps(obj, protocol=protocol))


def deep(obj):
    return copy.deepcopy(obj)


def shallow(obj):
    return copy.copy(obj)


COPIES = {"pickle": roundtrip, "deepcopy": deep, "copy": shallow}


def described(t):
    """What a copy must agree on beyond ``assert_same`` (values, sizes, strides, offset,
    dtype, requires_grad)."""
    return (t, t.is_leaf, t.grad_fn is None, t.untyped_storage().nbytes(), t._version,
            t._is_view())


def _sample(m, dtype_name):
    dtype = getattr(m, dtype_name)
    return (m.arange(12) % 5).to(dtype).reshape(3, 4)


# -- every dtype, every layout --------------------------------------------------------------------

@pytest.mark.parametrize("how", list(COPIES))
@pytest.mark.parametrize("dtype", CORE_DTYPE_NAMES)
def test_dtypes(how, dtype):
    check(lambda m: described(COPIES[how](_sample(m, dtype))))


LAYOUTS = {
    "0-dim": lambda m: m.tensor(3.5),
    "0-dim complex": lambda m: m.tensor(3 + 1j),
    "size 0": lambda m: m.empty(0, 3),
    "size 0 bool": lambda m: m.empty(0, 3, dtype=m.bool),
    "transposed": lambda m: m.arange(12).reshape(3, 4).t(),
    "stepped view with offset": lambda m: m.arange(20.)[3::2],
    "view alone": lambda m: m.arange(6.)[1:4],
    "expanded": lambda m: m.arange(3.).expand(2, 3),
    "meta": lambda m: m.empty(2, 3, device="meta"),
    "meta transposed": lambda m: m.empty(2, 3, device="meta").t(),
    "meta requires grad": lambda m: m.empty(2, device="meta", requires_grad=True),
}


@pytest.mark.parametrize("how", list(COPIES))
@pytest.mark.parametrize("name", list(LAYOUTS))
def test_layouts(how, name):
    check(lambda m: described(COPIES[how](LAYOUTS[name](m))))


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_protocols(protocol):
    check(lambda m: described(roundtrip(m.arange(6.).reshape(2, 3)[:, 1:], protocol)))


def test_barebones_unsigned_dtypes_round_trip():
    # torch 2.13 cannot load its own plain pickle of these (an AttributeError on load); strided
    # round-trips them
    for name in ("uint16", "uint32", "uint64"):
        t = strided.arange(6).to(getattr(strided, name))[1:]
        for how in COPIES.values():
            r = how(t)
            assert r.dtype is t.dtype and r.tolist() == t.tolist()
            assert r.storage_offset() == 1 and r.stride() == (1,)


# -- tensors copied together ----------------------------------------------------------------------

def _mutate_first(pair):
    pair[0][2] = -1.0
    return pair


def test_base_and_view_pickled_together_do_not_share():
    check(lambda m: _mutate_first(roundtrip([m.arange(6.), m.arange(6.)[1:4]])))

    def recipe(m):
        base = m.arange(6.)
        return _mutate_first(roundtrip([base, base[1:4]]))
    check(recipe)


def test_base_and_view_deepcopied_together_share():
    def recipe(m):
        base = m.arange(6.)
        base_copy, view_copy = _mutate_first(deep([base, base[1:4]]))
        return base_copy, view_copy, view_copy._base is None, view_copy._is_view(), base
    check(recipe)


def test_tensor_and_its_detached_alias_deepcopied_together_share():
    def recipe(m):
        x = m.ones(3, requires_grad=True)
        a, b = deep([x, x.detach()])
        b[0] = 5.
        return a, b
    check(recipe)


def test_same_tensor_twice():
    def recipe(m):
        t = m.arange(3.)
        return [r[0] is r[1] for r in (roundtrip([t, t]), deep([t, t]))]
    check(recipe)


def test_copy_shares_memory():
    def recipe(m):
        t = m.arange(4.)
        c = shallow(t)
        t[0] = 9.
        return c, c is t, t
    check(recipe)


# -- autograd state -------------------------------------------------------------------------------

def _leaf_with_grad(m):
    x = m.ones(3, requires_grad=True)
    (x * 2).sum().backward()
    return x


@pytest.mark.parametrize("how", list(COPIES))
def test_leaf_with_grad(how):
    def recipe(m):
        x = _leaf_with_grad(m)
        r = COPIES[how](x)
        grad_copied = r.grad is not None and r.grad.data_ptr() != x.grad.data_ptr()
        return described(r), r.grad, grad_copied
    check(recipe)


@pytest.mark.parametrize("how", list(COPIES))
def test_non_leaf(how):
    def recipe(m):
        x = m.ones(3, requires_grad=True)
        return described(COPIES[how](x * 2))
    check(recipe)


@pytest.mark.parametrize("how", list(COPIES))
def test_view_of_a_leaf(how):
    check(lambda m: described(COPIES[how](m.ones(3, requires_grad=True)[1:])))


def test_detached_view_deepcopies():
    check(lambda m: described(deep(m.ones(3, requires_grad=True).detach()[1:])))


def test_non_leaf_found_in_memo():
    def recipe(m):
        y = m.ones(2, requires_grad=True) * 2
        return copy.deepcopy(y, {id(y): 5})
    check(recipe)


def test_deepcopy_grad_through_memo():
    def recipe(m):
        x = _leaf_with_grad(m)
        a, g = deep([x, x.grad])
        return a.grad is g, a.grad
    check(recipe)


def test_copy_of_non_leaf_backpropagates_to_itself():
    def recipe(m):
        x = m.ones(3, requires_grad=True)
        c = shallow(x * 2)
        c.sum().backward()
        return x.grad is None, c.grad
    check(recipe)


def test_deepcopy_does_not_share_the_version_counter():
    def recipe(m):
        y = m.ones(2)
        z = deep(y)
        y.add_(1)
        return z._version, y._version, z
    check(recipe)


def _hook(grad):
    return grad


def _quiet_hook(grad):
    return grad


torch.utils.hooks.unserializable_hook(_quiet_hook)


@pytest.mark.parametrize("how", list(COPIES))
@pytest.mark.parametrize("leaf", [True, False])
def test_hooks_are_dropped(how, leaf):
    def recipe(m):
        x = m.ones(2, requires_grad=True)
        t = x if leaf else x * 1
        t.register_hook(_hook)
        return described(COPIES[how](t))
    check(recipe)


def test_unserializable_hook_does_not_warn():
    assert hasattr(_quiet_hook, "__torch_unserializable__")

    def recipe(m):
        x = m.ones(2, requires_grad=True)
        x.register_hook(_quiet_hook)
        return described(roundtrip(x))
    check(recipe)


# -- Parameters, attributes, subclasses -----------------------------------------------------------

@pytest.mark.parametrize("how", list(COPIES))
def test_parameter(how):
    def recipe(m):
        p = m.nn.Parameter(m.ones(2))
        p.grad = m.ones(2)
        r = COPIES[how](p)
        return type(r).__name__, described(r), r.grad, r is p
    check(recipe)


@pytest.mark.parametrize("how", list(COPIES))
def test_attributes(how):
    def recipe(m):
        t = m.arange(3.)
        t.tag = [1, 2]
        r = COPIES[how](t)
        return r.tag, r.tag is t.tag, described(r)
    check(recipe)


class _TorchSub(torch.Tensor):
    pass


class _StridedSub(strided.Tensor):
    pass


def _subclass(m):
    return _TorchSub if m is torch else _StridedSub


@pytest.mark.parametrize("how", list(COPIES))
def test_subclass(how):
    def recipe(m):
        cls = _subclass(m)
        t = m.Tensor._make_subclass(cls, m.ones(2))
        t.note = "kept"
        r = COPIES[how](t)
        # (torch rebuilds a subclass through as_subclass, whose result is a view of the
        # rebuilt tensor: _is_view() is left out)
        return type(r) is cls, r.note, described(r)[:-1]
    check(recipe)


def test_local_subclass_cannot_be_pickled():
    def recipe(m):
        cls = type("LocalTensor", (m.Tensor,), {})
        return roundtrip(m.Tensor._make_subclass(cls, m.ones(2)))
    check(recipe)


# -- modules and containers -----------------------------------------------------------------------

@pytest.mark.parametrize("how", ["pickle", "deepcopy"])
def test_module(how):
    def recipe(m):
        m.manual_seed(0)
        lin = m.nn.Linear(3, 2)
        lin.register_buffer("steps", m.zeros((), dtype=m.int64))
        r = COPIES[how](lin)
        return (type(r.weight).__name__, r.weight, r.bias, r.steps,
                r.weight.data_ptr() != lin.weight.data_ptr())
    check(recipe)


def test_containers():
    def recipe(m):
        t = m.arange(4.)
        obj = {"a": t, "b": (t[1:], [t.t()])}
        r = roundtrip(obj)
        d = deep(obj)
        return r["a"], r["b"][0], r["b"][1][0], d["a"], d["b"][0]
    check(recipe)
