"""Every optimizer against torch's ``foreach=False`` path: 100 steps from the same
parameters with the same gradients, parameters compared every 10 steps and the whole state
dict at the end; state dicts loaded across libraries in both directions."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided
from tests.conftest import check
from tests.optim._helpers import (
    assert_state_close,
    make_params,
    max_rel_diff,
    set_grads,
    to_np,
    to_strided,
    to_torch,
)

CASES = [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01)),
    ("SGD", dict(lr=0.1, momentum=0.9, dampening=0.1, maximize=True)),
    ("Adam", dict(lr=0.01)),
    ("Adam", dict(lr=0.01, amsgrad=True, weight_decay=0.1, maximize=True)),
    ("Adam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True)),
    ("AdamW", dict(lr=0.01)),
    ("AdamW", dict(lr=0.01, amsgrad=True, betas=(0.8, 0.99))),
    ("Adagrad", dict(lr=0.1)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.01, weight_decay=0.1, initial_accumulator_value=0.1)),
    ("RMSprop", dict(lr=0.01)),
    ("RMSprop", dict(lr=0.01, momentum=0.9, centered=True, weight_decay=0.1)),
    ("Adadelta", dict()),
    ("Adadelta", dict(lr=0.5, rho=0.8, weight_decay=0.1, maximize=True)),
    ("Adamax", dict()),
    ("Adamax", dict(weight_decay=0.1)),
    ("NAdam", dict(lr=0.01)),
    ("NAdam", dict(lr=0.01, momentum_decay=0.01, weight_decay=0.1)),
    ("NAdam", dict(lr=0.01, decoupled_weight_decay=True, weight_decay=0.1)),
    ("RAdam", dict(lr=0.01)),
    ("RAdam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True)),
    ("RAdam", dict(lr=0.01, weight_decay=0.1)),
    ("Rprop", dict()),
    ("Rprop", dict(lr=0.05, etas=(0.4, 1.5), step_sizes=(1e-4, 1.0), maximize=True)),
    ("ASGD", dict(lr=0.05)),
    ("ASGD", dict(lr=0.05, t0=10, lambd=1e-3, weight_decay=0.1)),
]
IDS = [f"{n}-{'-'.join(f'{k}={v}' for k, v in kw.items()) or 'default'}" for n, kw in CASES]

# the largest relative difference after 100 steps, per case (printed with -s, for the report)
WORST: dict[str, float] = {}


def _pair(name, kw, **extra):
    ps, pt = make_params(strided), make_params(torch)
    os_ = getattr(strided.optim, name)(ps, **kw, **extra)
    ot = getattr(torch.optim, name)(pt, **kw, foreach=False)
    return ps, pt, os_, ot


def _assert_params(ps, pt):
    for a, b in zip(ps, pt):
        np.testing.assert_allclose(to_np(a), to_np(b), rtol=2e-4, atol=2e-6)


@pytest.mark.parametrize("name,kw", CASES, ids=IDS)
def test_trajectory_matches_torch(name, kw):
    ps, pt, os_, ot = _pair(name, kw, foreach=False)
    for step in range(100):
        set_grads(ps, pt, step)
        os_.step()
        ot.step()
        if step % 10 == 9:
            _assert_params(ps, pt)
    WORST[name + str(kw)] = max_rel_diff(ps, pt)
    assert_state_close(os_.state_dict(), ot.state_dict(), rtol=2e-4)


@pytest.mark.parametrize("flag", [dict(foreach=True), dict(fused=True), dict(foreach=None)])
@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "Adagrad"])
def test_foreach_and_fused_run_the_same_update(name, flag):
    kw = dict(lr=0.01) if name != "SGD" else dict(lr=0.1, momentum=0.9)
    ps, pt, os_, ot = _pair(name, kw, **flag)
    for step in range(10):
        set_grads(ps, pt, step)
        os_.step()
        ot.step()
    _assert_params(ps, pt)
    assert os_.param_groups[0][next(iter(flag))] == next(iter(flag.values()))


@pytest.mark.parametrize("name,kw", CASES[::2], ids=IDS[::2])
def test_state_dict_from_torch_loads_and_steps_the_same(name, kw):
    ps, pt, os_, ot = _pair(name, kw)
    for step in range(5):
        set_grads(ps, pt, step)
        ot.step()
    sd = ot.state_dict()
    # the parameters too: start strided from torch's point
    with strided.no_grad():
        for a, b in zip(ps, pt):
            a.copy_(strided.tensor(to_np(b).copy()))
    os_.load_state_dict(to_strided(sd))
    assert_state_close(os_.state_dict(), sd)
    for step in range(5, 8):
        set_grads(ps, pt, step)
        os_.step()
        ot.step()
    _assert_params(ps, pt)
    assert_state_close(os_.state_dict(), ot.state_dict(), rtol=1e-4)


@pytest.mark.parametrize("name,kw", CASES[1::2], ids=IDS[1::2])
def test_state_dict_from_strided_loads_into_torch(name, kw):
    ps, pt, os_, ot = _pair(name, kw)
    for step in range(5):
        set_grads(ps, pt, step)
        os_.step()
    sd = os_.state_dict()
    with torch.no_grad():
        for a, b in zip(pt, ps):
            a.copy_(torch.from_numpy(to_np(b).copy()))
    ot.load_state_dict(to_torch(sd))
    assert_state_close(sd, ot.state_dict())
    for step in range(5, 8):
        set_grads(ps, pt, step)
        os_.step()
        ot.step()
    _assert_params(ps, pt)


def test_state_dict_format_equals_torch():
    # two groups, one parameter shared between a group's list twice is not allowed; names
    for name in ("SGD", "Adam"):
        res = {}
        for lib in (strided, torch):
            params = make_params(lib)
            opt = getattr(lib.optim, name)([{"params": params[:2]},
                                            {"params": params[2:], "lr": 0.5}], lr=0.1,
                                           **({"momentum": 0.9} if name == "SGD" else {}))
            for p in params:
                p.grad = lib.ones_like(p)
            opt.step()
            res[lib.__name__] = opt.state_dict()
        s, t = res["strided"], res["torch"]
        assert list(s["state"]) == list(t["state"]) == [0, 1, 2, 3]
        assert s["param_groups"] == t["param_groups"]
        assert_state_close(s["state"], t["state"])


@pytest.mark.parametrize("name", ["Adam", "SGD", "RMSprop", "NAdam"])
def test_tensor_lr(name):
    ps, pt = make_params(strided), make_params(torch)
    os_ = getattr(strided.optim, name)(ps, lr=strided.tensor(0.01))
    ot = getattr(torch.optim, name)(pt, lr=torch.tensor(0.01), foreach=False)
    for step in range(10):
        set_grads(ps, pt, step)
        os_.step()
        ot.step()
    _assert_params(ps, pt)


def test_weight_decay_as_tensor_sgd():
    ps, pt = make_params(strided), make_params(torch)
    os_ = strided.optim.SGD(ps, lr=0.1, weight_decay=strided.tensor(0.1))
    ot = torch.optim.SGD(pt, lr=0.1, weight_decay=torch.tensor(0.1), foreach=False)
    for step in range(5):
        set_grads(ps, pt, step)
        os_.step()
        ot.step()
    _assert_params(ps, pt)


def test_float64_parameters():
    for name in ("Adam", "SGD", "Adagrad"):
        ps, pt = make_params(strided, np.float64), make_params(torch, np.float64)
        os_ = getattr(strided.optim, name)(ps, lr=0.01)
        ot = getattr(torch.optim, name)(pt, lr=0.01, foreach=False)
        for step in range(20):
            set_grads(ps, pt, step)
            os_.step()
            ot.step()
        for a, b in zip(ps, pt):
            np.testing.assert_allclose(to_np(a), to_np(b), rtol=1e-12, atol=1e-14)


def test_complex_parameters_adam():
    rng = np.random.default_rng(0)
    z = (rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4))).astype(np.complex64)
    g = (rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4))).astype(np.complex64)
    out = {}
    for lib in (strided, torch):
        p = lib.nn.Parameter(lib.tensor(z.copy()))
        opt = lib.optim.Adam([p], lr=0.1, weight_decay=0.1, amsgrad=True)
        for _ in range(5):
            p.grad = lib.tensor(g.copy())
            opt.step()
        out[lib.__name__] = p.detach().numpy()
    np.testing.assert_allclose(out["strided"], out["torch"], rtol=1e-5, atol=1e-6)


def test_params_without_grad_are_skipped():
    for lib in (strided, torch):
        params = make_params(lib)
        opt = lib.optim.Adam(params)
        params[0].grad = lib.ones_like(params[0])
        opt.step()
        assert len(opt.state) == 1
        assert params[0] in opt.state and params[1] not in opt.state


def test_end_to_end_training_with_autograd():
    # each library computes its own forward/backward: the difference then also carries the
    # rounding of the model's kernels, so the tolerance is looser.
    rng = np.random.default_rng(5)
    x = rng.standard_normal((32, 8)).astype(np.float32)
    y = rng.standard_normal((32, 1)).astype(np.float32)
    res = {}
    for lib in (strided, torch):
        lib.manual_seed(0)
        model = lib.nn.Sequential(lib.nn.Linear(8, 16), lib.nn.Tanh(), lib.nn.Linear(16, 1))
        opt = lib.optim.AdamW(model.parameters(), lr=0.01)
        xt, yt = lib.tensor(x), lib.tensor(y)
        for _ in range(20):
            opt.zero_grad()
            loss = lib.nn.functional.mse_loss(model(xt), yt)
            loss.backward()
            opt.step()
        res[lib.__name__] = list(model.parameters())
    assert max_rel_diff(res["strided"], res["torch"]) < 1e-3


def test_report_worst_differences(capsys):
    if WORST:
        with capsys.disabled():
            print("\nlargest relative difference after 100 steps:")
            for k, v in sorted(WORST.items(), key=lambda kv: -kv[1]):
                print(f"  {v:.2e}  {k}")
    assert all(v < 1e-3 for v in WORST.values())


@pytest.mark.parametrize("amsgrad", [False, True])
def test_adam_tensor_betas_and_lr(amsgrad):
    ps, pt = make_params(strided), make_params(torch)
    os_ = strided.optim.Adam(ps, lr=strided.tensor(0.01), amsgrad=amsgrad,
                             betas=(strided.tensor(0.9), strided.tensor(0.999)))
    ot = torch.optim.Adam(pt, lr=torch.tensor(0.01), amsgrad=amsgrad, foreach=False,
                          betas=(torch.tensor(0.9), torch.tensor(0.999)))
    for step in range(20):
        set_grads(ps, pt, step)
        os_.step()
        ot.step()
    _assert_params(ps, pt)


@pytest.mark.parametrize("amsgrad", [False, True])
def test_adam_differentiable_gives_torch_values_and_gradients(amsgrad):
    # differentiable=True: the update is recorded by autograd (torch's tensor-valued form)
    rng = np.random.default_rng(0)
    init = rng.standard_normal(6)
    grads = [rng.standard_normal(6) for _ in range(3)]

    def run(m):
        w = m.tensor(init.copy(), requires_grad=True)
        q = w.clone()
        opt = m.optim.Adam([q], lr=0.1, differentiable=True, amsgrad=amsgrad,
                           weight_decay=0.1)
        for g in grads:
            q.grad = m.tensor(g.copy())
            opt.step()
        (q ** 2).sum().backward()
        return q.detach(), w.grad
    check(run, exact=False)


@pytest.mark.parametrize("name,kw", [("NAdam", {}), ("NAdam", {"decoupled_weight_decay": True}),
                                     ("RAdam", {}), ("Adagrad", {}),
                                     ("RMSprop", {"centered": True, "momentum": 0.5}),
                                     ("Adadelta", {}), ("SGD", {"momentum": 0.9}),
                                     ("ASGD", {})])
def test_differentiable_values_and_gradients(name, kw):
    rng = np.random.default_rng(1)
    init = rng.standard_normal(6)
    grads = [rng.standard_normal(6) for _ in range(3)]

    def run(m):
        w = m.tensor(init.copy(), requires_grad=True)
        q = w.clone()
        opt = getattr(m.optim, name)([q], lr=0.05, weight_decay=0.1, differentiable=True, **kw)
        for g in grads:
            q.grad = m.tensor(g.copy())
            opt.step()
        (q ** 2).sum().backward()
        return q.detach(), w.grad
    check(run, exact=False)

