"""The Optimizer base class against torch: constructor and add_param_group checks (types
and messages), zero_grad, closures, hooks, state-dict hooks and the flags torch accepts
or refuses."""

from __future__ import annotations

import importlib
import pickle

import numpy as np
import pytest
import torch

import strided
from tests.conftest import _run, assert_same_error, check
from tests.optim._helpers import make_params, set_grads, to_np


def _params(lib):
    return make_params(lib)


ERROR_CASES = {
    "tensor_as_params": lambda m: m.optim.SGD(m.ones(2, requires_grad=True), lr=0.1),
    "empty": lambda m: m.optim.Adam([]),
    "set": lambda m: m.optim.SGD([{"params": {m.ones(2, requires_grad=True)}}], lr=0.1),
    "non_tensor": lambda m: m.optim.SGD([1.0], lr=0.1),
    "non_leaf": lambda m: m.optim.SGD([m.ones(2, requires_grad=True) * 2], lr=0.1),
    "shared_param": lambda m: (lambda p: m.optim.SGD([{"params": [p]}, {"params": [p]}],
                                                     lr=0.1))(m.ones(2, requires_grad=True)),
    "group_not_dict": lambda m: m.optim.SGD([m.ones(2, requires_grad=True)],
                                            lr=0.1).add_param_group([1]),
    "names_mixed": lambda m: m.optim.SGD([("a", m.ones(2, requires_grad=True)),
                                          m.ones(2, requires_grad=True)], lr=0.1),
    "names_groups_mixed": lambda m: m.optim.SGD(
        [("a", m.ones(2, requires_grad=True))], lr=0.1).add_param_group(
            {"params": [m.ones(2, requires_grad=True)]}),
    "sgd_neg_lr": lambda m: m.optim.SGD(_params(m), lr=-1.0),
    "sgd_neg_momentum": lambda m: m.optim.SGD(_params(m), lr=0.1, momentum=-1.0),
    "sgd_neg_wd": lambda m: m.optim.SGD(_params(m), lr=0.1, weight_decay=-1.0),
    "sgd_nesterov": lambda m: m.optim.SGD(_params(m), lr=0.1, nesterov=True),
    "adam_beta0": lambda m: m.optim.Adam(_params(m), betas=(1.0, 0.9)),
    "adam_beta1": lambda m: m.optim.Adam(_params(m), betas=(0.9, -0.1)),
    "adam_eps": lambda m: m.optim.Adam(_params(m), eps=-1.0),
    "adam_mixed_betas": lambda m: m.optim.Adam(_params(m), betas=(m.tensor(0.9), 0.99)),
    "adam_lr_2elem": lambda m: m.optim.Adam(_params(m), lr=m.tensor([0.1, 0.2])),
    "adam_tensor_lr_foreach": lambda m: m.optim.Adam(_params(m), lr=m.tensor(0.1),
                                                      foreach=True),
    "adam_fused_foreach": lambda m: m.optim.Adam(_params(m), fused=True, foreach=True),
    "adam_fused_differentiable": lambda m: m.optim.Adam(_params(m), fused=True,
                                                         differentiable=True),
    "adagrad_lr_decay": lambda m: m.optim.Adagrad(_params(m), lr_decay=-1),
    "adagrad_init_acc": lambda m: m.optim.Adagrad(_params(m), initial_accumulator_value=-1),
    "rmsprop_alpha": lambda m: m.optim.RMSprop(_params(m), alpha=-1),
    "adadelta_rho": lambda m: m.optim.Adadelta(_params(m), rho=1.5),
    "nadam_momentum_decay": lambda m: m.optim.NAdam(_params(m), momentum_decay=-1),
    "rprop_etas": lambda m: m.optim.Rprop(_params(m), etas=(1.5, 1.2)),
    "asgd_wd": lambda m: m.optim.ASGD(_params(m), weight_decay=-1),
    "lbfgs_groups": lambda m: m.optim.LBFGS([{"params": _params(m)[:2]},
                                             {"params": _params(m)[2:]}]),
    "required_lr_missing": lambda m: m.optim.Optimizer(
        _params(m), {"lr": importlib.import_module(m.__name__ + ".optim.optimizer").required}),
}


@pytest.mark.parametrize("case", list(ERROR_CASES))
def test_constructor_errors_match_torch(case):
    fn = ERROR_CASES[case]
    assert_same_error(lambda: fn(strided), lambda: fn(torch))


def _step_once(m, name, **kw):
    p = m.nn.Parameter(m.ones(3))
    opt = getattr(m.optim, name)([p], **kw)
    p.grad = m.ones(3)
    opt.step()
    return p


@pytest.mark.parametrize("name", ["Adam", "AdamW", "RMSprop", "Adamax", "NAdam", "RAdam",
                                  "Rprop", "ASGD", "Adadelta"])
def test_capturable_on_cpu_raises_like_torch(name):
    assert_same_error(lambda: _step_once(strided, name, capturable=True),
                      lambda: _step_once(torch, name, capturable=True))


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "Adagrad"])
def test_fused_needs_floating_params(name):
    def run(m):
        p = m.ones(3, dtype=m.int64)
        opt = getattr(m.optim, name)([p], lr=0.1, fused=True)
        p.grad = m.ones(3, dtype=m.int64)
        opt.step()
    assert_same_error(lambda: run(strided), lambda: run(torch))


def test_duplicate_parameter_warns():
    def run(m):
        p = m.ones(2, requires_grad=True)
        return len(m.optim.SGD([p, p], lr=0.1).param_groups[0]["params"])
    check(run)


def test_param_groups_and_defaults_match_torch():
    def run(m):
        ps = _params(m)
        opt = m.optim.Adam([{"params": ps[:2]}, {"params": ps[2:], "lr": 0.5}], lr=0.1)
        opt.add_param_group({"params": [m.ones(2, requires_grad=True)], "eps": 1.0})
        return [{k: v for k, v in g.items() if k != "params"} for g in opt.param_groups], \
            sorted(opt.defaults.items())
    rs, rt = _run(lambda: run(strided))[0], run(torch)
    assert rs == rt


def test_named_parameters_give_param_names():
    def run(m):
        lin = m.nn.Linear(2, 3)
        opt = m.optim.SGD(lin.named_parameters(), lr=0.1)
        return opt.param_groups[0]["param_names"], opt.state_dict()["param_groups"]
    assert _run(lambda: run(strided))[0] == run(torch)


def test_zero_grad_set_to_none_and_zero():
    for lib in (strided, torch):
        ps = _params(lib)
        opt = lib.optim.SGD(ps, lr=0.1)
        for p in ps:
            p.grad = lib.ones_like(p)
        opt.zero_grad(set_to_none=False)
        assert all(p.grad is not None and float(p.grad.abs().sum()) == 0 for p in ps)
        opt.zero_grad()
        assert all(p.grad is None for p in ps)


@pytest.mark.parametrize("lib", [strided, torch])
def test_closure_returns_loss_and_runs_with_grad(lib):
    if True:
        p = lib.nn.Parameter(lib.tensor([1.0, 2.0]))
        opt = lib.optim.SGD([p], lr=0.1)

        def closure(lib=lib, p=p):
            opt.zero_grad()
            loss = (p ** 2).sum()
            assert lib.is_grad_enabled()
            loss.backward()
            return loss

        with lib.no_grad():
            loss = opt.step(closure)
        assert float(loss) == 5.0
        np.testing.assert_allclose(to_np(p), [0.8, 1.6], rtol=1e-6)


def test_step_hooks_order_and_removal():
    calls = []
    ps = _params(strided)
    opt = strided.optim.SGD(ps, lr=0.1)
    h1 = opt.register_step_pre_hook(lambda o, a, k: calls.append(("pre", o is opt)))
    h2 = opt.register_step_post_hook(lambda o, a, k: calls.append(("post", o is opt)))
    g1 = strided.optim.optimizer.register_optimizer_step_pre_hook(
        lambda o, a, k: calls.append(("gpre", True)))
    g2 = strided.optim.optimizer.register_optimizer_step_post_hook(
        lambda o, a, k: calls.append(("gpost", True)))
    try:
        opt.step()
        assert calls == [("gpre", True), ("pre", True), ("post", True), ("gpost", True)]
        h1.remove()
        h2.remove()
        calls.clear()
        opt.step()
        assert calls == [("gpre", True), ("gpost", True)]
    finally:
        g1.remove()
        g2.remove()
    calls.clear()
    opt.step()
    assert calls == []


def test_step_pre_hook_may_replace_arguments_and_bad_return_raises():
    def run(m):
        ps = _params(m)
        opt = m.optim.SGD(ps, lr=0.1)
        seen = []
        opt.register_step_pre_hook(lambda o, a, k: (a, {"closure": lambda: seen.append(1)}))
        opt.step()
        assert seen == [1]
        opt.register_step_pre_hook(lambda o, a, k: 3)
        opt.step()
    es, et = _run(lambda: run(strided))[1], _run(lambda: run(torch))[1]
    assert type(es) is type(et) is RuntimeError
    assert str(es).endswith("must return None or a tuple of (new_args, new_kwargs), but got 3.")


@pytest.mark.parametrize("lib", [strided, torch])
def test_state_dict_hooks(lib):
    if True:
        ps = _params(lib)
        opt = lib.optim.SGD(ps, lr=0.1, momentum=0.9)
        log = []
        opt.register_state_dict_pre_hook(lambda o: log.append("pre"))
        opt.register_state_dict_post_hook(lambda o, sd: {**sd, "extra": 1})
        opt.register_load_state_dict_pre_hook(lambda o, sd: log.append("lpre"))
        opt.register_load_state_dict_post_hook(lambda o: log.append("lpost"))
        opt.register_load_state_dict_pre_hook(lambda o, sd: log.append("first"), prepend=True)
        sd = opt.state_dict()
        assert sd["extra"] == 1
        opt.load_state_dict(sd)
        assert log == ["pre", "first", "lpre", "lpost"], lib


def test_load_state_dict_errors_match_torch():
    def wrong_groups(m):
        ps = _params(m)
        m.optim.SGD(ps, lr=0.1).load_state_dict(
            m.optim.SGD([{"params": ps[:2]}, {"params": ps[2:]}], lr=0.1).state_dict())

    def wrong_sizes(m):
        ps = _params(m)
        m.optim.SGD(ps, lr=0.1).load_state_dict(m.optim.SGD(ps[:3], lr=0.1).state_dict())
    assert_same_error(lambda: wrong_groups(strided), lambda: wrong_groups(torch))
    assert_same_error(lambda: wrong_sizes(strided), lambda: wrong_sizes(torch))


def test_load_state_dict_casts_state_to_param_dtype_but_keeps_step():
    ps = [strided.nn.Parameter(strided.ones(3, dtype=strided.float64))]
    opt = strided.optim.Adam(ps)
    ps[0].grad = strided.ones(3, dtype=strided.float64)
    opt.step()
    sd = opt.state_dict()
    sd["state"][0]["exp_avg"] = sd["state"][0]["exp_avg"].float()
    opt.load_state_dict(sd)
    assert opt.state[ps[0]]["exp_avg"].dtype == strided.float64
    assert opt.state[ps[0]]["step"].dtype == strided.float32
    assert opt.state[ps[0]]["step"].item() == 1.0


def test_adagrad_state_exists_before_first_step():
    check(lambda m: sorted((k, str(v.dtype)) for k, v in
                           m.optim.Adagrad(_params(m)).state_dict()["state"][0].items()))


def test_step_is_a_float32_tensor_like_torch():
    for name in ("Adam", "AdamW", "NAdam", "RAdam", "Adamax", "RMSprop", "Adadelta", "Rprop",
                 "ASGD", "Adagrad"):
        ps, pt = _params(strided), _params(torch)
        os_, ot = getattr(strided.optim, name)(ps), getattr(torch.optim, name)(pt)
        set_grads(ps, pt, 0)
        os_.step()
        ot.step()
        ss, st = os_.state[ps[0]], ot.state[pt[0]]
        assert list(ss) == list(st), name
        for k in st:
            if isinstance(st[k], torch.Tensor):
                assert str(ss[k].dtype) == str(st[k].dtype) and ss[k].shape == st[k].shape


def test_differentiable_steps_with_grad_enabled():
    # with differentiable=True the update runs under grad mode: an in-place update of a leaf
    # that requires grad is refused, as in torch
    def run(m):
        p = m.nn.Parameter(m.ones(2))
        opt = m.optim.SGD([p], lr=0.1, differentiable=True)
        p.grad = m.ones(2)
        opt.step()
    assert_same_error(lambda: run(strided), lambda: run(torch))

    def run_nograd(m):
        p = m.nn.Parameter(m.ones(2))
        opt = m.optim.SGD([p], lr=0.1)
        p.grad = m.ones(2)
        with m.enable_grad():
            opt.step()
        return p.detach()
    check(run_nograd)


def test_pickle_round_trip_keeps_groups_and_hooks_work():
    ps = _params(strided)
    opt = strided.optim.SGD(ps, lr=0.1, momentum=0.9)
    state = opt.__getstate__()
    assert set(state) == {"defaults", "state", "param_groups"}
    clone = pickle.loads(pickle.dumps(opt))
    assert clone.param_groups[0]["lr"] == 0.1
    assert clone._optimizer_step_pre_hooks == {}


def test_repr_matches_torch():
    check(lambda m: repr(m.optim.Adam(_params(m), lr=0.1)))
    check(lambda m: repr(m.optim.SGD([{"params": _params(m)[:1]},
                                      {"params": _params(m)[1:], "lr": 1.0}], lr=0.1)))


@pytest.mark.parametrize("line_search", [None, "strong_wolfe"])
@pytest.mark.parametrize("history_size", [3, 100])
def test_lbfgs_matches_torch(line_search, history_size):
    # a float64 Rosenbrock problem: the closure is computed the same way on both sides
    out = {}
    for lib in (strided, torch):
        x = lib.nn.Parameter(lib.tensor([-1.5, 2.0, 0.5, -0.3], dtype=lib.float64))
        opt = lib.optim.LBFGS([x], lr=1, max_iter=15, history_size=history_size,
                              line_search_fn=line_search)
        losses = []

        def closure(lib=lib, x=x, opt=opt):
            opt.zero_grad()
            loss = (100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2).sum()
            loss.backward()
            return loss

        for _ in range(4):
            losses.append(float(opt.step(closure)))
        state = opt.state[x]
        out[lib.__name__] = (to_np(x), losses, state["func_evals"], state["n_iter"])
    s, t = out["strided"], out["torch"]
    np.testing.assert_allclose(s[0], t[0], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(s[1], t[1], rtol=1e-9)
    assert s[2:] == t[2:]


def test_lbfgs_unknown_line_search():
    def run(m):
        x = m.nn.Parameter(m.ones(2))
        opt = m.optim.LBFGS([x], line_search_fn="armijo")

        def closure():
            opt.zero_grad()
            loss = (x ** 2).sum()
            loss.backward()
            return loss
        opt.step(closure)
    assert_same_error(lambda: run(strided), lambda: run(torch))
