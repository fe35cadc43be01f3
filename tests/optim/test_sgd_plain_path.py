"""SGD's plain update without the iterator (Note [SGD's plain update without the iterator]
in optim/sgd.py), compared with torch: values bit for bit, versions, layouts that fall back."""

import numpy as np
import pytest

from tests.conftest import assert_same, check


def _run_steps(lib, make, lr, steps=3, **kw):
    params = [lib.nn.Parameter(lib.from_numpy(p.copy())) for p in make["params"]]
    opt = lib.optim.SGD(params, lr=lr, **kw)
    for k in range(steps):
        for p, g in zip(params, make["grads"]):
            grad = lib.from_numpy(g * (k + 1))
            p.grad = make.get("grad_view", lambda t: t)(grad)
        opt.step()
    return params


def _inputs(dtype, shapes, seed=0):
    rng = np.random.default_rng(seed)
    params = [rng.standard_normal(s).astype(dtype) for s in shapes]
    grads = [rng.standard_normal(s).astype(dtype) * 1e-3 for s in shapes]
    return {"params": params, "grads": grads}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("lr", [0.01, 0.1, 1, 0.0, 0.3333333])
def test_plain_update_bitwise(dtype, lr):
    make = _inputs(dtype, [(17, 13), (13,), (), (0, 4)])

    def recipe(lib):
        ps = _run_steps(lib, make, lr)
        return [p.detach() for p in ps] + [lib.tensor([p._version for p in ps])]
    check(recipe)


def test_plain_update_extremes():
    make = _inputs(np.float32, [(6,)])
    make["params"][0][:] = [np.inf, -np.inf, np.nan, 3e38, -3e38, 1e-45]
    make["grads"][0][:] = [1.0, np.nan, 0.0, -1e38, 1e38, 1e-45]

    def recipe(lib):
        return _run_steps(lib, make, 1e3, steps=2)[0].detach()
    check(recipe)


@pytest.mark.parametrize("case", ["grad_t", "grad_alias", "param_t", "momentum", "maximize",
                                  "weight_decay"])
def test_fallback_layouts(case):
    """Layouts and options outside the plain path give torch's answer (the iterator)."""
    make = _inputs(np.float32, [(5, 7)])
    kw = {"momentum": {"momentum": 0.9}, "maximize": {"maximize": True},
          "weight_decay": {"weight_decay": 0.01}}.get(case, {})
    if case == "grad_t":
        make["grads"] = [np.ascontiguousarray(make["grads"][0].T)]
        make["grad_view"] = lambda t: t.t()

    def recipe(lib):
        if case == "param_t":
            base = lib.nn.Parameter(lib.from_numpy(make["params"][0].T.copy()))
            p = base.t()
            assert not p.is_contiguous()
            leaf = lib.nn.Parameter(p.detach())
            leaf.grad = lib.from_numpy(make["grads"][0])
            opt = lib.optim.SGD([leaf], lr=0.1)
            opt.step()
            return leaf.detach(), leaf.stride()
        if case == "grad_alias":     # the grad is the parameter's own memory
            p = lib.nn.Parameter(lib.from_numpy(make["params"][0].copy()))
            p.grad = p.detach()
            lib.optim.SGD([p], lr=0.1).step()
            return p.detach(), p._version
        return _run_steps(lib, make, 0.1, **kw)[0].detach()
    check(recipe)


def test_differentiable_step_records_graph():
    import torch

    import strided
    out = []
    for lib in (strided, torch):
        w = lib.tensor([1.0, 2.0], requires_grad=True)
        p = w.clone()
        p.grad = lib.tensor([0.5, 0.25])
        opt = lib.optim.SGD([p], lr=0.1, differentiable=True)
        opt.step()
        out.append(p)
    assert_same(out[0], out[1])
    assert out[0].grad_fn.name() == out[1].grad_fn.name()


def test_plain_path_is_taken():
    """The bitwise tests above exercise the plain path, not only the iterator."""
    import strided
    from strided.optim import sgd as sgd_mod
    p = strided.nn.Parameter(strided.ones(3, 2))
    g = strided.full((3, 2), 0.5)
    with strided.no_grad():
        assert sgd_mod._plain_add_(p, g, -0.1)
        assert not sgd_mod._plain_add_(p, g.t().contiguous().t(), -0.1)
    assert p._version == 1
