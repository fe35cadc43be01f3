"""The sparse COO layout (issue 16), differential against torch: construction, accessors,
repr, coalesce, conversions, elementwise ops, reductions, shape ops, products, softmax,
autograd and the errors of each."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest
import torch
from conftest import check

import strided

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

DTYPES = ["float32", "float64", "int64", "bool", "complex64"]


def _sp(x):
    """A comparable form of a result: sparse tensors become their observable parts."""
    if isinstance(x, (tuple, list)):
        return tuple(_sp(v) for v in x)
    mod = strided if isinstance(x, strided.Tensor) else torch
    if isinstance(x, (strided.Tensor, torch.Tensor)) and x.layout == mod.sparse_coo:
        return ("coo", repr(x), tuple(x.shape), x._indices(), x._values(), x.is_coalesced(),
                x._nnz(), x.sparse_dim(), x.dense_dim(), x.requires_grad)
    return x


def chk(recipe, **kw):
    return check(lambda m: _sp(recipe(m)), **kw)


def _data(m, dtype="float32"):
    """An uncoalesced 2-d COO tensor (a duplicate at (1, 2)) of ``dtype``."""
    i = m.tensor([[1, 0, 1, 2], [2, 1, 2, 0]])
    v = m.tensor([1, 2, 3, 4]).to(getattr(m, dtype))
    return m.sparse_coo_tensor(i, v, (3, 4))


def _hybrid(m):
    i = m.tensor([[2, 0, 2], [1, 1, 1]])
    v = m.arange(6.0).reshape(3, 2) - 2
    return m.sparse_coo_tensor(i, v, (3, 2, 2))


def _coalesced(m):
    return m.sparse_coo_tensor(m.tensor([[0, 1, 1], [2, 0, 2]]), m.tensor([3.0, -4, 5]),
                               (2, 3)).coalesce()


# -------------------------------------------------------------------------- construction

@pytest.mark.parametrize("dtype", DTYPES)
def test_construct_and_repr_dtypes(dtype):
    chk(lambda m: _data(m, dtype))
    chk(lambda m: _data(m, dtype).coalesce())
    chk(lambda m: _data(m, dtype).to_dense())


@pytest.mark.parametrize("recipe", [
    lambda m: m.sparse_coo_tensor([[0, 1], [1, 0]], [3, 4]),
    lambda m: m.sparse_coo_tensor([[0, 1], [1, 0]], [3.0, 4], dtype=m.float64),
    lambda m: m.sparse_coo_tensor([[0, 1], [1, 0]], [3.0, 4], (4, 5), requires_grad=True),
    lambda m: m.sparse_coo_tensor((2, 3)),
    lambda m: m.sparse_coo_tensor([2, 3], dtype=m.int32),
    lambda m: m.sparse_coo_tensor(m.zeros(2, 0, dtype=m.long), m.zeros(0)),
    lambda m: m.sparse_coo_tensor(m.zeros(1, 0, dtype=m.long), m.zeros(0, 2), (4, 2)),
    lambda m: m.sparse_coo_tensor(m.tensor([[0, 2]]), m.ones(2, 3)),
    lambda m: m.sparse_coo_tensor(m.tensor([[0.0, 1]]), m.tensor([1.0, 2]), (3,)),
    lambda m: m.sparse_coo_tensor(m.tensor([[0, 1]], dtype=m.int32), m.tensor([1.0, 2]), (3,)),
    lambda m: m.sparse_coo_tensor(m.zeros(0, 1, dtype=m.long), m.tensor([5.0]), ()),
    lambda m: m.sparse_coo_tensor(m.tensor([[0, 5]]), m.tensor([1.0, 2]), (3,)),
    lambda m: m.sparse_coo_tensor(m.tensor([[1, 0, 1]]), m.tensor([1.0, 2, 3]),
                                  is_coalesced=True).is_coalesced(),
    lambda m: m.sparse_coo_tensor(m.tensor([[0, 1]]), m.tensor(1.0), (3,)),
    lambda m: m.zeros(2, 3, layout=m.sparse_coo),
    lambda m: m.empty(2, 3, layout=m.sparse_coo, dtype=m.float64),
    lambda m: _hybrid(m),
    lambda m: _hybrid(m).coalesce(),
    lambda m: _hybrid(m).to_dense(),
])
def test_construct(recipe):
    chk(recipe)


@pytest.mark.parametrize("recipe", [
    lambda m: m.sparse_coo_tensor(m.tensor([0, 1]), m.tensor([1.0, 2]), (3,)),
    lambda m: m.sparse_coo_tensor(m.tensor([[0, 1]]), m.tensor([1.0, 2, 3]), (3,)),
    lambda m: m.sparse_coo_tensor(m.tensor([[0, 1], [0, 1]]), m.tensor([1.0, 2]), (3,)),
    lambda m: m.sparse_coo_tensor(m.tensor([[0, 1]]), m.tensor([[1.0, 2], [3, 4]]), (3, 3)),
    lambda m: m.sparse_coo_tensor(m.tensor([[0, 1]]), m.tensor([[1.0, 2], [3, 4]]), (3, 2, 2)),
    lambda m: m.sparse_coo_tensor(m.tensor([[0, -1]]), m.tensor([1.0, 2])),
    lambda m: m.sparse_coo_tensor(m.tensor([[0, 1]]), m.tensor([1, 2]), (3,),
                                  requires_grad=True),
    lambda m: m.sparse_coo_tensor(m.tensor([[0, 5]]), m.tensor([1.0, 2]), (3,),
                                  check_invariants=True),
    lambda m: m.sparse_coo_tensor(m.tensor([[0, -2]]), m.tensor([1.0, 2]), (3,),
                                  check_invariants=True),
    lambda m: m.sparse_coo_tensor(m.tensor([[1, 0]]), m.tensor([1.0, 2]), (3,),
                                  check_invariants=True, is_coalesced=True),
    lambda m: m.zeros(-2, 3, layout=m.sparse_coo),
])
def test_construct_errors(recipe):
    chk(recipe)


def test_check_sparse_tensor_invariants_context():
    def recipe(m):
        with m.sparse.check_sparse_tensor_invariants():
            assert m.sparse.check_sparse_tensor_invariants.is_enabled()
            return m.sparse_coo_tensor(m.tensor([[0, 7]]), m.tensor([1.0, 2]), (3,))
    chk(recipe)
    assert not strided.sparse.check_sparse_tensor_invariants.is_enabled()


# ----------------------------------------------------------------------------- accessors

@pytest.mark.parametrize("recipe", [
    lambda m: (str(_data(m).layout), _data(m).is_sparse, _data(m).is_sparse_csr, _data(m)._nnz(),
               _data(m).sparse_dim(), _data(m).dense_dim(), _data(m).is_coalesced()),
    lambda m: (_hybrid(m).sparse_dim(), _hybrid(m).dense_dim(), _hybrid(m).shape,
               _hybrid(m).dim(), _hybrid(m).numel()),
    lambda m: (_data(m)._indices(), _data(m)._values()),
    lambda m: (_data(m).coalesce().indices(), _data(m).coalesce().values()),
    lambda m: _data(m).indices(),
    lambda m: _data(m).values(),
    lambda m: m.ones(2).indices(),
    lambda m: m.ones(2).values(),
    lambda m: m.ones(2).is_coalesced(),
    lambda m: m.ones(2).coalesce(),
    lambda m: (m.ones(2, 3).sparse_dim(), m.ones(2, 3).dense_dim(), m.ones(2).to_dense()),
    lambda m: _data(m).stride(),
    lambda m: _data(m).stride(1),
    lambda m: _data(m).is_contiguous(),
    lambda m: _data(m).storage_offset(),
    lambda m: _data(m).untyped_storage(),
    lambda m: _data(m).data_ptr(),
    lambda m: _data(m).numpy(),
    lambda m: _data(m).nbytes,
    lambda m: (_data(m).element_size(), _data(m).itemsize),
    lambda m: _data(m).tolist(),
    lambda m: _data(m).item(),
    lambda m: len(_data(m)),
    lambda m: m.empty(2, 3, layout=m.sparse_coo, device="meta"),
    lambda m: (_data(m).type(), _data(m, "float64").type(), _data(m, "int64").type()),
    lambda m: _meta(m).type(),
    lambda m: m.zeros(4, 3).copy_(_data(m)),
    lambda m: _data(m).copy_(m.zeros(3, 4)),
    lambda m: m.zeros(3, 4, layout=m.sparse_coo, dtype=m.float64).copy_(_data(m)),
])
def test_accessors(recipe):
    chk(recipe)


@pytest.mark.parametrize("recipe", [
    lambda m: m.ones(2)._values(),
    lambda m: m.ones(2)._nnz(),
    lambda m: _data(m).exp(),
    lambda m: _data(m).view(12),
    lambda m: m.flip(_data(m), [0]),
])
def test_unsupported_ops_raise_torchs_missing_kernel_error(recipe):
    # the backend list differs (torch has many more backends): compare up to it
    errs = []
    for m in (strided, torch):
        with pytest.raises(NotImplementedError) as info:
            recipe(m)
        errs.append(str(info.value).split(" is only available for these backends")[0])
    assert errs[0] == errs[1]


# ----------------------------------------------------------------------------- coalesce

def test_coalesce_random_against_torch():
    rng = np.random.default_rng(0)
    for shape, nnz, dense in [((5, 7), 40, ()), ((3, 4, 5), 100, ()), ((6, 4), 30, (2,)),
                              ((9,), 25, ()), ((4, 4), 0, ())]:
        sd = len(shape)
        idx = np.stack([rng.integers(0, s, nnz) for s in shape]) if nnz else \
            np.zeros((sd, 0), np.int64)
        vals = rng.standard_normal((nnz,) + dense)

        def recipe(m, idx=idx, vals=vals, shape=shape, dense=dense):
            s = m.sparse_coo_tensor(m.tensor(idx), m.tensor(vals), shape + dense)
            return s.coalesce(), s.to_dense()
        # (the sums of duplicates may differ from torch's in the last bit)
        chk(recipe, exact=False)


@pytest.mark.parametrize("dtype", ["bool", "int64", "complex64"])
def test_coalesce_dtypes(dtype):
    chk(lambda m: m.sparse_coo_tensor(m.tensor([[2, 0, 2, 2]]), m.tensor([1, 0, 1, 3])
                                      .to(getattr(m, dtype)), (3,)).coalesce())


# ---------------------------------------------------------------------------- conversions

@pytest.mark.parametrize("recipe", [
    lambda m: m.tensor([[0.0, 1], [2, 0], [0, 0]]).to_sparse(),
    lambda m: m.tensor([[0.0, 1], [2, 0], [0, 0]]).to_sparse(1),
    lambda m: m.tensor([[0.0, 1], [2, 0], [0, 0]]).to_sparse(0),
    lambda m: m.tensor([[0.0, 1], [2, 0], [0, 0]]).to_sparse(layout=m.sparse_coo),
    lambda m: m.tensor([[0, 1], [2, 0]]).to_sparse(),
    lambda m: m.tensor([[True, False], [False, True]]).to_sparse(),
    lambda m: m.zeros(2, 0).to_sparse(),
    lambda m: m.tensor([[0.0, 1], [2, 0]]).to_sparse(3),
    lambda m: _data(m).to_sparse(),
    lambda m: _data(m).to_sparse(2),
    lambda m: _data(m).to_dense(m.float64),
    lambda m: _data(m).to(m.float64),
    lambda m: _data(m).double(),
    lambda m: _data(m).clone(),
    lambda m: _data(m).detach(),
    lambda m: m.zeros_like(_data(m)),
    lambda m: m.empty_like(_hybrid(m)),
    lambda m: _data(m).requires_grad_(),
    lambda m: m.tensor([[0.0, 1], [2, 0]]).to_sparse(layout=m.sparse_coo, blocksize=(1, 1)),
    lambda m: _data(m).to_sparse(layout=m.sparse_coo, blocksize=(1, 1)),
    lambda m: _data(m).to_sparse(1),
    lambda m: _data(m).to_sparse(layout=m.sparse_coo, dense_dim=1),
    lambda m: m.tensor([[0.0, 1], [2, 0]]).to_sparse(dense_dim=3),
    lambda m: m.tensor([[0.0, 1], [2, 0]]).to_sparse(dense_dim=2),
    lambda m: m.tensor([[0.0, 1], [2, 0]]).to_sparse(dense_dim=1),
    lambda m: m.tensor([[0.0, 1], [2, 0]]).to_sparse(dense_dim=0),
    lambda m: m.tensor([[0.0, 1], [2, 0]]).to_sparse_coo(),
])
def test_conversions(recipe):
    chk(recipe)


# --------------------------------------------------------------------- elementwise ops

@pytest.mark.parametrize("recipe", [
    lambda m: _data(m) + _data(m),
    lambda m: _data(m).coalesce() + _data(m).coalesce(),
    lambda m: _coalesced(m) + _data(m)[:2, :3].coalesce() if False else _coalesced(m) * 2,
    lambda m: m.add(_data(m).coalesce(), _data(m, "float64").coalesce(), alpha=2),
    lambda m: _data(m) - _data(m),
    lambda m: m.ones(3, 4) + _data(m),
    lambda m: m.add(m.ones(3, 4, dtype=m.float64), _data(m), alpha=3),
    lambda m: _data(m) + m.ones(3, 4),
    lambda m: _data(m) * 2,
    lambda m: _data(m) * m.tensor(2.5),
    lambda m: _data(m) / 2,
    lambda m: _data(m).mul(m.arange(12.0).reshape(3, 4)),
    lambda m: _data(m).coalesce() * _data(m, "float64").coalesce().neg(),
    lambda m: _data(m, "bool") - _data(m, "bool"),
    lambda m: _data(m) + m.ones(4),
])
def test_binary(recipe):
    chk(recipe)


UNARY = ["neg", "abs", "sqrt", "sin", "tanh", "sinh", "tan", "asin", "asinh", "atan", "sgn",
         "sign", "ceil", "floor", "round", "trunc", "expm1", "log1p", "erf", "relu",
         "isnan", "isinf", "signbit", "frac", "rad2deg", "deg2rad"]


@pytest.mark.parametrize("name", UNARY)
def test_unary_sparsity_preserving(name):
    # (transcendental functions may differ from torch's in the last bit)
    chk(lambda m: getattr(_data(m), name)(), exact=False)
    chk(lambda m: getattr(_hybrid(m), name)(), exact=False)


def test_unary_int_and_inplace():
    chk(lambda m: _data(m, "int64").sqrt())
    chk(lambda m: _data(m).coalesce().neg_())
    chk(lambda m: _data(m).sin_())


# ---------------------------------------------------------------------- reductions

@pytest.mark.parametrize("recipe", [
    lambda m: _data(m).sum(),
    lambda m: _data(m, "int64").sum(),
    lambda m: _data(m, "bool").sum(),
    lambda m: m.sparse.sum(_data(m)),
    lambda m: m.sparse.sum(_data(m), 0),
    lambda m: m.sparse.sum(_data(m), 1),
    lambda m: m.sparse.sum(_data(m), [0, 1]),
    lambda m: m.sparse.sum(_hybrid(m), 0),
    lambda m: m.sparse.sum(_hybrid(m), 2),
    lambda m: m.sparse.sum(_hybrid(m), [0, 2]),
    lambda m: m.sparse.sum(_hybrid(m), [0, 1]),
    lambda m: m.sparse.sum(_data(m), dtype=m.float64),
    lambda m: m.sparse.sum(_data(m, "int64"), 1, dtype=m.float32),
    lambda m: _data(m).sum(0),
    lambda m: _data(m).sum(1, keepdim=True),
])
def test_sum(recipe):
    chk(recipe)


# ------------------------------------------------------------------------- shape ops

@pytest.mark.parametrize("recipe", [
    lambda m: _data(m).t(),
    lambda m: _data(m).coalesce().t().is_coalesced(),
    lambda m: _data(m).transpose(0, 1),
    lambda m: _data(m).transpose(1, 1),
    lambda m: _hybrid(m).transpose(0, 2),
    lambda m: _hybrid(m).t(),
    lambda m: m.narrow_copy(_data(m), 1, 1, 2),
    lambda m: _data(m).narrow_copy(0, 1, 2),
    lambda m: _hybrid(m).narrow_copy(2, 1, 1),
    lambda m: _data(m).narrow_copy(0, 2, 3),
    lambda m: _data(m).index_select(1, m.tensor([2, 2, 0])),
    lambda m: _data(m).index_select(0, m.tensor([1])),
    lambda m: _hybrid(m).index_select(2, m.tensor([1, 0, 1])),
    lambda m: _data(m).index_select(0, m.tensor([5])),
    lambda m: _data(m).unsqueeze(0),
    lambda m: _hybrid(m).unsqueeze(3),
])
def test_shape_ops(recipe):
    chk(recipe)


# -------------------------------------------------------------------------- products

def _dense(m, *shape):
    return m.arange(float(np.prod(shape))).reshape(shape) - 3


@pytest.mark.parametrize("recipe", [
    lambda m: m.mm(_data(m), _dense(m, 4, 2)),
    lambda m: _data(m) @ _dense(m, 4, 2),
    lambda m: m.matmul(_data(m), _dense(m, 4, 2)),
    lambda m: m.mm(_dense(m, 2, 3), _data(m)),
    lambda m: _dense(m, 2, 3) @ _data(m),
    lambda m: m.mv(_data(m), _dense(m, 4)),
    lambda m: m.addmm(m.ones(3, 2), _data(m), _dense(m, 4, 2)),
    lambda m: m.addmm(m.ones(3, 2), _data(m), _dense(m, 4, 2), beta=2, alpha=0.5),
    lambda m: m.sparse.mm(_data(m), _dense(m, 4, 2)),
    lambda m: m.sparse.mm(_dense(m, 2, 3), _data(m)),
    lambda m: m.sparse.addmm(m.ones(3, 2), _data(m), _dense(m, 4, 2), beta=2, alpha=3),
    lambda m: m.mm(_data(m), _dense(m, 3, 2)),
    lambda m: m.mm(_data(m), _dense(m, 4, 2).double()),
    lambda m: m.mm(_data(m, "float64"), _dense(m, 4, 2).double()),
    lambda m: m.mm(_dense(m, 2, 3), _hybrid(m)),
    lambda m: m.mm(_data(m), _dense(m, 4)),
    lambda m: m.mm(_data(m), _dense(m, 4, 2, 2)),
    lambda m: m.mm(m.sparse_coo_tensor(m.tensor([[0, 1], [1, 0]]), m.ones(2, 3), (2, 2, 3)),
                   _dense(m, 2, 2)),
    lambda m: m.mm(_dense(m, 2, 2),
                   m.sparse_coo_tensor(m.tensor([[0, 1], [1, 0]]), m.ones(2, 3), (2, 2, 3))),
])
def test_products(recipe):
    chk(recipe)


# --------------------------------------------------------------- masks and softmax

@pytest.mark.parametrize("recipe", [
    lambda m: m.sparse.softmax(_data(m), 1),
    lambda m: m.sparse.softmax(_data(m), 0),
    lambda m: m.sparse.log_softmax(_data(m), 1),
    lambda m: m.sparse.log_softmax(_data(m), -2),
    lambda m: m.sparse.softmax(_hybrid(m), 2),
    lambda m: m.sparse.softmax(_hybrid(m), 0),
    lambda m: m.sparse.softmax(_data(m), 1, dtype=m.float64),
    lambda m: _dense(m, 3, 4).sparse_mask(_data(m).coalesce()),
    lambda m: _dense(m, 3, 4).sparse_mask(_data(m)),
    lambda m: _data(m).sparse_mask(_coalesced(m).t().coalesce().t().coalesce()
                                   if False else _data(m).coalesce()),
    lambda m: m.ones(2, 3).sparse_mask(_data(m)),
])
def test_masks_and_softmax(recipe):
    chk(recipe, exact=False)


# ------------------------------------------------------------------------------ autograd

def _grads(m, fn, *leaves):
    out = fn(*leaves)
    out.sum().backward() if out.layout == m.strided else out.to_dense().sum().backward()
    return (out.grad_fn.name() if hasattr(out.grad_fn, "name") else None,) + tuple(
        leaf.grad for leaf in leaves)


def _name(fn):
    return type(fn).__name__ if fn is not None else None


@pytest.mark.parametrize("which", ["sparse.mm", "@", "mm", "addmm", "dense@sparse"])
def test_mm_gradients(which):
    def recipe(m):
        s = _data(m).coalesce().requires_grad_()
        d = _dense(m, 4, 2).requires_grad_()
        if which == "sparse.mm":
            y = m.sparse.mm(s, d)
        elif which == "@":
            y = s @ d
        elif which == "mm":
            y = m.mm(s, d)
        elif which == "addmm":
            y = m.sparse.addmm(m.ones(3, 2), s, d, beta=2, alpha=3)
        else:
            d = _dense(m, 2, 3).requires_grad_()
            y = m.sparse.mm(d, s)
        name = _name(y.grad_fn)
        (y * m.arange(float(y.numel())).reshape(y.shape)).sum().backward()
        return name, s.grad, d.grad
    chk(recipe)


@pytest.mark.parametrize("recipe", [
    lambda m, s: s.to_dense() * m.arange(12.0).reshape(3, 4),
    lambda m, s: m.sparse.sum(s),
    lambda m, s: m.sparse.sum(s, 1).to_dense() * m.arange(3.0),
    lambda m, s: m.sparse.sum(s, 0).to_dense() * m.arange(4.0),
    lambda m, s: m.sparse.softmax(s, 1).to_dense() * m.arange(12.0).reshape(3, 4),
    lambda m, s: m.sparse.log_softmax(s, 0).to_dense() * m.arange(12.0).reshape(3, 4),
    lambda m, s: s.coalesce().values() * 2,
])
def test_sparse_leaf_gradients(recipe):
    def run(m):
        s = _data(m, "float64").coalesce().requires_grad_()
        y = recipe(m, s)
        name = _name(y.grad_fn)
        y.sum().backward()
        return name, s.grad
    check(lambda m: _sp(run(m)), exact=False)


def test_values_gradient_through_constructor():
    def recipe(m):
        v = m.tensor([1.0, 2, 3, 4], requires_grad=True)
        s = m.sparse_coo_tensor(m.tensor([[1, 0, 1, 2], [2, 1, 2, 0]]), v, (3, 4))
        name = _name(s.grad_fn)
        (s.to_dense() * m.arange(12.0).reshape(3, 4)).sum().backward()
        return name, v.grad, s.requires_grad
    chk(recipe)


# ---------------------------------------------------------------------- save and load

@pytest.mark.parametrize("make", [_data, _hybrid, lambda m: _data(m).coalesce(),
                                  lambda m: m.zeros(2, 3, layout=m.sparse_coo)])
def test_pickle_roundtrip(make):
    s = make(strided)
    r = pickle.loads(pickle.dumps(s))
    assert _sp(r)[1] == _sp(s)[1]
    assert r.is_coalesced() == s.is_coalesced()


@pytest.mark.parametrize("weights_only", [False, True])
def test_save_load_interop(tmp_path, weights_only):
    # strided saves, torch loads; torch saves, strided loads
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        p1 = tmp_path / "s.pt"
        strided.save({"a": _data(strided), "h": _hybrid(strided)}, p1)
        got_t = torch.load(p1, weights_only=weights_only)
        p2 = tmp_path / "t.pt"
        torch.save({"a": _data(torch), "h": _hybrid(torch)}, p2)
        got_s = strided.load(p2, weights_only=weights_only)
    for k in ("a", "h"):
        assert repr(got_t[k]) == repr(got_s[k])
        assert got_s[k].is_coalesced() == got_t[k].is_coalesced()


# ----------------------------------------------------------------- nn and optim, deepcopy

@pytest.mark.parametrize("padding_idx", [None, 2])
def test_embedding_sparse_gradient_and_sgd(padding_idx):
    def recipe(m):
        m.manual_seed(0)
        e = m.nn.Embedding(5, 3, sparse=True, padding_idx=padding_idx)
        x = m.tensor([[0, 2, 0], [4, 3, 2]])
        (e(x) * m.arange(3.0)).sum().backward()
        grad = e.weight.grad
        m.optim.SGD(e.parameters(), lr=0.1).step()
        return grad, e.weight.detach()
    chk(recipe)


def test_deepcopy():
    import copy

    def recipe(m):
        s = _data(m).requires_grad_()
        c = copy.deepcopy(s)
        return c, c is s, c._values().data_ptr() == s._values().data_ptr()
    chk(recipe)


# ------------------------------------------------------------------------------ meta

def _meta(m):
    return m.sparse_coo_tensor(m.zeros(2, 3, dtype=m.long, device="meta"),
                               m.zeros(3, device="meta"), (4, 5))


@pytest.mark.parametrize("recipe", [
    lambda m: _meta(m),
    lambda m: m.empty(2, 3, layout=m.sparse_coo, device="meta"),
    lambda m: (_meta(m)._nnz(), _meta(m).is_coalesced(), _meta(m).sparse_dim()),
    lambda m: _meta(m) + _meta(m),
    lambda m: _meta(m).t(),
    lambda m: _meta(m).clone(),
    lambda m: _meta(m).to(m.float64),
    lambda m: m.zeros_like(_meta(m)),
    lambda m: _meta(m).sum(),
    lambda m: (_meta(m)._indices(), _meta(m)._values()),
    lambda m: _meta(m).coalesce(),
    lambda m: _meta(m).to_dense(),
])
def test_meta(recipe):
    errs = []
    for mod in (strided, torch):
        try:
            errs.append(("ok", repr(recipe(mod))))
        except NotImplementedError as e:
            errs.append(("missing", str(e).split(" backend.")[0]))
    assert errs[0] == errs[1]


# ------------------------------------------- every op x layouts of entries x dtypes

def _entries(m, dtype, kind):
    if kind == "empty":
        return m.sparse_coo_tensor(m.zeros(2, 0, dtype=m.long), m.zeros(0, dtype=dtype), (3, 4))
    if kind == "hybrid":
        return m.sparse_coo_tensor(m.tensor([[2, 0, 2]]),
                                   (m.arange(6).reshape(3, 2) - 2).to(dtype), (3, 2))
    return m.sparse_coo_tensor(m.tensor([[1, 0, 1, 2], [2, 1, 2, 0]]),
                               m.tensor([1, 0, 3, 4]).to(dtype), (3, 4))


OPS = {
    "coalesce": lambda m, s: s.coalesce(),
    "to_dense": lambda m, s: s.to_dense(),
    "add": lambda m, s: s + s.coalesce(),
    "add_coalesced": lambda m, s: s.coalesce() + s.coalesce(),
    "dense_add": lambda m, s: m.ones(s.shape, dtype=s.dtype) + s,
    "mul_scalar": lambda m, s: s * 2,
    "mul_sparse": lambda m, s: s.coalesce() * s.coalesce(),
    "mul_dense": lambda m, s: s * m.ones(s.shape, dtype=s.dtype),
    "neg": lambda m, s: -s,
    "abs": lambda m, s: s.abs(),
    "sqrt": lambda m, s: s.sqrt(),
    "pow": lambda m, s: s.pow(2),
    "sub": lambda m, s: s - s.coalesce(),
    "div": lambda m, s: s / 2,
    "sum": lambda m, s: s.sum(),
    "sparse_sum0": lambda m, s: m.sparse.sum(s, 0),
    "sparse_sum1": lambda m, s: m.sparse.sum(s, 1),
    "t": lambda m, s: s.t(),
    "narrow0": lambda m, s: s.narrow_copy(0, 1, 2),
    "narrow1": lambda m, s: s.narrow_copy(1, 1, 1),
    "index_select0": lambda m, s: s.index_select(0, m.tensor([2, 1, 2])),
    "index_select1": lambda m, s: s.index_select(1, m.tensor([1, 0])),
    "mm": lambda m, s: m.mm(s, m.ones(s.shape[1], 2, dtype=s.dtype)),
    "dense_mm": lambda m, s: m.mm(m.ones(2, s.shape[0], dtype=s.dtype), s),
    "softmax": lambda m, s: m.sparse.softmax(s, 0),
    "sparse_mask": lambda m, s: m.ones(s.shape, dtype=s.dtype).sparse_mask(s.coalesce()),
    "to_sparse": lambda m, s: s.to_dense().to_sparse(),
    "any": lambda m, s: s.any(),
    "clone": lambda m, s: s.clone(),
    "zero_": lambda m, s: s.clone().zero_(),
    "copy_": lambda m, s: m.zeros(s.shape, layout=m.sparse_coo, dtype=s.dtype).copy_(s),
}


def _observed(m, x):
    """Values, dtypes, flags and the members' strides (what torch's kernels lay out)."""
    if isinstance(x, m.Tensor) and x.layout == m.sparse_coo:
        return (repr(x), tuple(x._indices().stride()), tuple(x._values().stride()),
                x.is_coalesced())
    if isinstance(x, m.Tensor):
        return repr(x), tuple(x.stride())
    return x


@pytest.mark.parametrize("kind", ["entries", "empty", "hybrid"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_ops_by_kind_and_dtype(kind, dtype):
    for name, op in OPS.items():
        out = []
        for m in (strided, torch):
            try:
                out.append(_observed(m, op(m, _entries(m, getattr(m, dtype), kind))))
            except Exception as e:              # noqa: BLE001 (compared below)
                out.append((type(e).__name__, str(e).split(" is only available")[0]))
        assert out[0] == out[1], (name, out[0], out[1])


@pytest.mark.parametrize("coalesce", [False, True])
def test_dense_plus_sparse_rounds_as_torch(coalesce):
    # duplicates are added one at a time, each a fused multiply-add (torch's CPU kernel)
    def recipe(m):
        w = m.tensor([0.6380263566970825, 1.0, 3.0])
        g = m.sparse_coo_tensor(m.tensor([[0, 0, 0, 2]]), m.tensor([0.1, 0.1, 0.7, 0.3]), (3,))
        g = g.coalesce() if coalesce else g
        return w.clone().add_(g, alpha=-0.3), m.add(w, g, alpha=-0.3), w + g
    chk(recipe)


def test_products_round_as_torch_on_random_floats():
    # one fused axpy per entry, in entry order (torch's COO @ dense kernel): bit-exact
    rng = np.random.default_rng(2)
    idx = np.stack([rng.integers(0, 30, 300), rng.integers(0, 20, 300)])
    vals = rng.standard_normal(300).astype(np.float32)
    d = rng.standard_normal((20, 5)).astype(np.float32)
    d2 = rng.standard_normal((4, 30)).astype(np.float32)
    t0 = rng.standard_normal((30, 5)).astype(np.float32)

    def recipe(m):
        s = m.sparse_coo_tensor(m.tensor(idx), m.tensor(vals), (30, 20))
        return (m.mm(s, m.tensor(d)), m.mm(m.tensor(d2), s),
                m.addmm(m.tensor(t0), s, m.tensor(d), beta=0.7, alpha=1.3),
                m.addmm(m.tensor(t0[0]), s, m.tensor(d), beta=1.5),
                m.sparse.addmm(m.tensor(t0), s, m.tensor(d), beta=0, alpha=2.1))
    chk(recipe)


@pytest.mark.parametrize("opt", ["SGD", "Adagrad", "SparseAdam"])
def test_optimizers_take_sparse_gradients(opt):
    def recipe(m):
        m.manual_seed(0)
        e = m.nn.Embedding(5, 3, sparse=True)
        o = getattr(m.optim, opt)(e.parameters(), lr=0.1)
        for _ in range(3):
            o.zero_grad()
            (e(m.tensor([[0, 2, 0], [4, 3, 2]])) * m.arange(3.0)).sum().backward()
            o.step()
        return e.weight.detach()
    chk(recipe)


@pytest.mark.parametrize("recipe", [
    lambda m: m.optim.Adam(m.nn.Embedding(3, 2, sparse=True).parameters()).step(),
    lambda m: m.optim.SparseAdam(m.nn.Embedding(3, 2).parameters(), lr=-1),
])
def test_optimizer_sparse_refusals(recipe):
    def run(m):
        e = m.nn.Embedding(3, 2, sparse=True)
        e(m.tensor([1, 2])).sum().backward()
        o = m.optim.Adam(e.parameters())
        return o.step()
    chk(run)
    chk(recipe)


@pytest.mark.parametrize("fn", [
    lambda m, x: m.sparse.sum(x, 1),
    lambda m, x: (x.to_dense() ** 2).sum(),
    lambda m, x: m.sparse.softmax(x, 1),
    lambda m, x: m.sparse.log_softmax(x, 0),
    lambda m, x: m.sparse.mm(x, m.arange(6.0, dtype=m.float64).reshape(3, 2)),
])
def test_as_sparse_gradcheck(fn):
    def recipe(m):
        s = m.sparse_coo_tensor([[0, 1, 1], [2, 0, 2]], [3.0, 4, 5], (2, 3),
                                dtype=m.float64).requires_grad_()
        return m.sparse.as_sparse_gradcheck(m.autograd.gradcheck)(lambda x: fn(m, x), (s,))
    assert chk(recipe)[0] is True


@pytest.mark.parametrize("recipe", [
    lambda m, a, b: m.mm(a, b),
    lambda m, a, b: m.sparse.mm(a, b),
    lambda m, a, b: a @ b,
    lambda m, a, b: m.mm(a, m.sparse_coo_tensor(m.tensor([[0], [0]]), m.tensor([0.0]), (3, 2))),
])
def test_sparse_sparse_products(recipe):
    # explicit zeros of the product stay entries (a structural product)
    def run(m):
        a = m.sparse_coo_tensor(m.tensor([[0, 1, 1, 0], [2, 0, 2, 2]]), m.tensor([3., -4, 5, 1]),
                                (2, 3))
        b = m.sparse_coo_tensor(m.tensor([[2, 0, 2], [0, 1, 1]]), m.tensor([1., 0., -1.]), (3, 2))
        return recipe(m, a, b)
    chk(run)
