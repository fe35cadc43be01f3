"""Embedding / EmbeddingBag against torch: values, gradients, grad_fn names, max_norm's in
place renormalisation, from_pretrained, the EmbeddingBag side outputs, errors, reprs and the
bit-exact init."""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import pytest
import torch
from conftest import check, hyp
from hypothesis import given
from hypothesis import strategies as st

import strided

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "autograd"))


def _w(m, n=10, d=3, dtype="float64", seed=0):
    m.manual_seed(seed)
    return m.randn(n, d, dtype=getattr(m, dtype), requires_grad=True)


IDX = [[1, 2, 4, 9], [4, 3, 9, 4]]

EMB = {
    "plain": lambda m, w: m.nn.functional.embedding(m.tensor(IDX), w),
    "int32": lambda m, w: m.nn.functional.embedding(m.tensor(IDX, dtype=m.int32), w),
    "1d": lambda m, w: m.nn.functional.embedding(m.tensor([4, 1, 4]), w),
    "0d": lambda m, w: m.nn.functional.embedding(m.tensor(4), w),
    "empty": lambda m, w: m.nn.functional.embedding(m.tensor([], dtype=m.long), w),
    "padding": lambda m, w: m.nn.functional.embedding(m.tensor(IDX), w, padding_idx=4),
    "padding_neg": lambda m, w: m.nn.functional.embedding(m.tensor(IDX), w, padding_idx=-1),
    "freq": lambda m, w: m.nn.functional.embedding(m.tensor(IDX), w, scale_grad_by_freq=True),
    "freq_pad": lambda m, w: m.nn.functional.embedding(m.tensor(IDX), w, padding_idx=9,
                                                       scale_grad_by_freq=True),
    "transposed_idx": lambda m, w: m.nn.functional.embedding(m.tensor(IDX).t(), w),
    "noncontig_weight": lambda m, w: m.nn.functional.embedding(m.tensor(IDX), w.t().t()[::2]),
    "aten": lambda m, w: m.embedding(w, m.tensor(IDX), 2, True),
}


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", sorted(EMB))
def test_embedding(name, dtype):
    def recipe(m):
        w = _w(m, dtype=dtype)
        y = EMB[name](m, w)
        (gw,) = m.autograd.grad((y * y).sum(), w)
        return y, gw, y.grad_fn.name()
    check(recipe, exact=name not in ("freq", "freq_pad", "aten"))


def test_embedding_double_backward():
    from grad_harness import check_grads
    check_grads(lambda m, w: m.nn.functional.embedding(m.tensor([[1, 2], [2, 0]]), w,
                                                       padding_idx=1), [(4, 3)])


@pytest.mark.parametrize("norm_type", [2.0, 1.0, 3.0, float("inf")])
def test_max_norm_renormalises_in_place(norm_type):
    def recipe(m):
        w = _w(m).detach().requires_grad_()
        v = w._version
        y = m.nn.functional.embedding(m.tensor([[1, 2], [2, 7]]), w, max_norm=1.0,
                                      norm_type=norm_type)
        (gw,) = m.autograd.grad(y.sum(), w)
        return w.detach(), y, gw, w._version > v
    check(recipe, exact=False)


def test_embedding_renorm_op():
    check(lambda m: m.embedding_renorm_(_w(m).detach(), m.tensor([1, 1, 3]), 0.5, 2.0),
          exact=False)


EMB_ERRORS = [
    lambda m: m.nn.functional.embedding(m.tensor([1]), m.ones(3)),
    lambda m: m.nn.functional.embedding(m.tensor([1.0]), m.ones(3, 2)),
    lambda m: m.nn.functional.embedding(m.tensor([3]), m.ones(3, 2)),
    lambda m: m.nn.functional.embedding(m.tensor([[-1]]), m.ones(3, 2)),
    lambda m: m.nn.functional.embedding(m.tensor([1]), m.ones(3, 2), padding_idx=3),
    lambda m: m.nn.functional.embedding(m.tensor([1]), m.ones(3, 2), padding_idx=-4),
    lambda m: m.embedding_renorm_(m.ones(3), m.tensor([1]), 1.0, 2.0),
    lambda m: m.embedding_renorm_(m.ones(3, 2), m.tensor([1.0]), 1.0, 2.0),
    lambda m: m.embedding_renorm_(m.ones(3, 2), m.tensor([5]), 1.0, 2.0),
    lambda m: m.nn.Embedding(3, 2, padding_idx=3),
    lambda m: m.nn.Embedding(3, 2, _weight=m.ones(2, 2)),
    lambda m: m.nn.Embedding.from_pretrained(m.ones(3)),
]


@pytest.mark.parametrize("i", range(len(EMB_ERRORS)))
def test_embedding_errors(i):
    check(EMB_ERRORS[i])


def test_meta():
    check(lambda m: m.embedding(m.empty(10, 3, device="meta"), m.empty(2, 5, dtype=m.long,
                                                                       device="meta")))
    check(lambda m: m.ops.aten.embedding_dense_backward(
        m.empty(2, 5, 3, device="meta"), m.empty(2, 5, dtype=m.long, device="meta"), 7, -1,
        False))
    check(lambda m: m._embedding_bag(m.empty(10, 3, device="meta"),
                                     m.empty(6, dtype=m.long, device="meta"),
                                     m.empty(2, dtype=m.long, device="meta"), False, 1))


@hyp()
@given(st.integers(1, 40), st.integers(1, 5), st.integers(0, 3))
def test_embedding_backward_scatter(n, d, seed):
    def recipe(m):
        m.manual_seed(seed)
        w = m.randn(6, d, dtype=m.float32, requires_grad=True)
        idx = m.randint(0, 6, (n,))
        y = m.nn.functional.embedding(idx, w)
        (gw,) = m.autograd.grad((y * m.arange(n * d).reshape(n, d)).sum(), w)
        return y, gw
    check(recipe)


# -- EmbeddingBag ------------------------------------------------------------------------------

BAG_IDX = [1, 2, 4, 5, 4, 3, 2, 9]
BAG_OFF = [0, 2, 2, 5]

BAG = {
    "mean": dict(), "sum": dict(mode="sum"), "max": dict(mode="max"),
    "mean_pad": dict(padding_idx=4), "sum_pad": dict(mode="sum", padding_idx=-6),
    "max_pad": dict(mode="max", padding_idx=4),
    "last_offset": dict(include_last_offset=True, offsets=[0, 2, 2, 5, 8]),
    "freq_sum": dict(mode="sum", scale_grad_by_freq=True),
    "freq_mean": dict(scale_grad_by_freq=True),
    "max_norm": dict(max_norm=1.0),
}


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", sorted(BAG))
def test_embedding_bag(name, dtype):
    kw = dict(BAG[name])
    offsets = kw.pop("offsets", BAG_OFF)

    def recipe(m):
        w = _w(m, dtype=dtype)
        y = m.nn.functional.embedding_bag(m.tensor(BAG_IDX), w, m.tensor(offsets), **kw)
        (gw,) = m.autograd.grad((y * y).sum(), w)
        return y, gw, y.grad_fn.name()
    check(recipe, exact=False)


@pytest.mark.parametrize("mode", [0, 1, 2])
@pytest.mark.parametrize("padding_idx", [None, 4])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_embedding_bag_side_outputs(mode, padding_idx, dtype):
    def recipe(m):
        w = _w(m, dtype=dtype).detach()
        return m.embedding_bag(w, m.tensor(BAG_IDX), m.tensor(BAG_OFF), False, mode, False,
                               None, False, padding_idx)
    check(recipe, exact=False)


@pytest.mark.parametrize("padding_idx", [None, 3])
def test_per_sample_weights(padding_idx):
    def recipe(m):
        w = _w(m)
        psw = m.linspace(0.1, 0.8, 8, dtype=m.float64).requires_grad_()
        y = m.nn.functional.embedding_bag(m.tensor(BAG_IDX), w, m.tensor(BAG_OFF), mode="sum",
                                          per_sample_weights=psw, padding_idx=padding_idx)
        gw, gp = m.autograd.grad((y * y).sum(), [w, psw])
        return y, gw, gp, y.grad_fn.name()
    check(recipe, exact=False)


def test_two_dimensional_input():
    def recipe(m):
        w = _w(m)
        y = m.nn.functional.embedding_bag(m.tensor([[1, 2, 4], [5, 4, 3]]), w, mode="sum",
                                          per_sample_weights=m.ones(2, 3, dtype=m.float64))
        (gw,) = m.autograd.grad(y.sum(), w)
        return y, gw
    check(recipe)


BAG_ERRORS = [
    lambda m: m.nn.functional.embedding_bag(m.tensor([1, 2]), m.ones(5, 2), m.tensor([1])),
    lambda m: m.nn.functional.embedding_bag(m.tensor([1, 2]), m.ones(5, 2), m.tensor([0, 3])),
    lambda m: m.nn.functional.embedding_bag(m.tensor([1, 7]), m.ones(5, 2), m.tensor([0])),
    lambda m: m.nn.functional.embedding_bag(m.tensor([1, 2]), m.ones(5, 2), m.tensor([0]),
                                            padding_idx=5),
    lambda m: m.nn.functional.embedding_bag(m.tensor([1, 2]), m.ones(5, 2), m.tensor([0]),
                                            per_sample_weights=m.ones(2)),
    lambda m: m.nn.functional.embedding_bag(m.tensor([1, 2]), m.ones(5, 2), m.tensor([0]),
                                            mode="sum", per_sample_weights=m.ones(3)),
    lambda m: m.nn.functional.embedding_bag(m.tensor([1, 2]), m.ones(5, 2), m.tensor([0]),
                                            mode="max", scale_grad_by_freq=True),
    lambda m: m.nn.functional.embedding_bag(m.tensor([1, 2]), m.ones(5, 2), m.tensor([0]),
                                            mode="median"),
    lambda m: m.nn.functional.embedding_bag(m.tensor([1, 2]), m.ones(5, 2)),
    lambda m: m.nn.functional.embedding_bag(m.tensor([1, 2]), m.ones(5, 2), m.tensor([[0]])),
    lambda m: m.nn.functional.embedding_bag(m.tensor([1, 2]), m.ones(5), m.tensor([0])),
    lambda m: m.nn.functional.embedding_bag(m.ones(1, 1, 1, dtype=m.long), m.ones(5, 2)),
    lambda m: m.embedding_bag(m.ones(5, 2), m.tensor([1.0]), m.tensor([0]), False, 0),
    lambda m: m.embedding_bag(m.ones(5, 2, dtype=m.long), m.tensor([1]), m.tensor([0]),
                              False, 0),
    lambda m: m.embedding_bag(m.ones(5, 2), m.tensor([1]), m.tensor([0]), False, 0, False,
                              m.ones(1, dtype=m.float64)),
    lambda m: m.embedding_bag(m.ones(5, 2), m.tensor([1]), m.tensor([0]), False, 3),
]


@pytest.mark.parametrize("i", range(len(BAG_ERRORS)))
def test_embedding_bag_errors(i):
    check(BAG_ERRORS[i])


# -- modules ------------------------------------------------------------------------------------

MODULES = [
    lambda m: m.nn.Embedding(10, 3),
    lambda m: m.nn.Embedding(10, 3, padding_idx=-2, max_norm=2.0, norm_type=1.0,
                             scale_grad_by_freq=True),
    lambda m: m.nn.Embedding(10, 3, sparse=True, dtype=m.float64),
    lambda m: m.nn.EmbeddingBag(10, 3),
    lambda m: m.nn.EmbeddingBag(10, 3, max_norm=1.0, norm_type=1.0, scale_grad_by_freq=True,
                                padding_idx=-1),
    lambda m: m.nn.EmbeddingBag(10, 3, mode="max", include_last_offset=True),
]


@pytest.mark.parametrize("i", range(len(MODULES)))
def test_module_init_and_repr(i):
    def recipe(m):
        m.manual_seed(4)
        layer = MODULES[i](m)
        return repr(layer), layer.weight.detach(), m.rand(2)
    check(recipe)


def test_module_forward_backward():
    def recipe(m):
        m.manual_seed(4)
        emb = m.nn.Embedding(10, 3, padding_idx=0)
        bag = m.nn.EmbeddingBag(10, 3, mode="sum")
        y = emb(m.tensor([[0, 1], [2, 0]]))
        z = bag(m.tensor([0, 1, 2, 3]), m.tensor([0, 3]))
        (y.sum() + z.sum()).backward()
        return y, z, emb.weight.grad, bag.weight.grad
    check(recipe)


def test_from_pretrained():
    def recipe(m):
        w = m.arange(12.0).reshape(4, 3)
        a = m.nn.Embedding.from_pretrained(w)
        b = m.nn.Embedding.from_pretrained(w, freeze=False, padding_idx=1)
        c = m.nn.EmbeddingBag.from_pretrained(w, mode="sum")
        d = m.nn.EmbeddingBag.from_pretrained(w, freeze=False)
        return (repr(a), repr(b), repr(c), a.weight.requires_grad, b.weight.requires_grad,
                c.weight.requires_grad, d.weight.requires_grad,
                a(m.tensor([1, 3])), c(m.tensor([[1, 3]])))
    check(recipe)


def test_oracle_is_torch():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert strided.nn.Embedding(2, 2).weight.shape == torch.nn.Embedding(2, 2).weight.shape
