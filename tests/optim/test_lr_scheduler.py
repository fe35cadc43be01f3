"""Learning-rate schedulers against torch: the lr (and momentum) of every group over many
steps, state dicts, the calling-order and deprecation warnings, and the constructor
errors."""

from __future__ import annotations

import math
import warnings

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import strided
from tests.conftest import assert_same_error, check, hyp


def _opt(m, name="SGD"):
    ps = [m.nn.Parameter(m.ones(2)), m.nn.Parameter(m.ones(3))]
    if name == "SGD":
        return m.optim.SGD([{"params": ps[:1]}, {"params": ps[1:], "lr": 0.5}], lr=0.1,
                           momentum=0.9)
    return m.optim.Adam([{"params": ps[:1]}, {"params": ps[1:], "lr": 0.5}], lr=0.1)


def _lambda(e):
    return 0.95 ** e


SCHEDULERS = {
    "LambdaLR": lambda m, o: m.optim.lr_scheduler.LambdaLR(o, _lambda),
    "LambdaLR_list": lambda m, o: m.optim.lr_scheduler.LambdaLR(
        o, [_lambda, lambda e: 1 / (e + 1)]),
    "MultiplicativeLR": lambda m, o: m.optim.lr_scheduler.MultiplicativeLR(o, lambda e: 0.97),
    "StepLR": lambda m, o: m.optim.lr_scheduler.StepLR(o, step_size=7, gamma=0.5),
    "MultiStepLR": lambda m, o: m.optim.lr_scheduler.MultiStepLR(o, [5, 12, 12, 30],
                                                                 gamma=0.3),
    "ConstantLR": lambda m, o: m.optim.lr_scheduler.ConstantLR(o, factor=0.25, total_iters=6),
    "LinearLR": lambda m, o: m.optim.lr_scheduler.LinearLR(o, start_factor=0.2,
                                                           end_factor=0.9, total_iters=17),
    "ExponentialLR": lambda m, o: m.optim.lr_scheduler.ExponentialLR(o, gamma=0.93),
    "PolynomialLR": lambda m, o: m.optim.lr_scheduler.PolynomialLR(o, total_iters=40,
                                                                   power=2.0),
    "CosineAnnealingLR": lambda m, o: m.optim.lr_scheduler.CosineAnnealingLR(
        o, T_max=13, eta_min=0.001),
    "CosineAnnealingWarmRestarts": lambda m, o:
        m.optim.lr_scheduler.CosineAnnealingWarmRestarts(o, T_0=5, T_mult=2, eta_min=0.01),
    "CyclicLR": lambda m, o: m.optim.lr_scheduler.CyclicLR(o, base_lr=0.01, max_lr=[0.1, 0.3],
                                                           step_size_up=6, step_size_down=4),
    "CyclicLR_tri2": lambda m, o: m.optim.lr_scheduler.CyclicLR(
        o, base_lr=0.01, max_lr=0.1, step_size_up=5, mode="triangular2"),
    "CyclicLR_exp": lambda m, o: m.optim.lr_scheduler.CyclicLR(
        o, base_lr=0.01, max_lr=0.1, step_size_up=5, mode="exp_range", gamma=0.98),
    "OneCycleLR": lambda m, o: m.optim.lr_scheduler.OneCycleLR(o, max_lr=[0.2, 1.0],
                                                               total_steps=90),
    "OneCycleLR_3phase_linear": lambda m, o: m.optim.lr_scheduler.OneCycleLR(
        o, max_lr=0.2, epochs=9, steps_per_epoch=10, three_phase=True,
        anneal_strategy="linear"),
    "SequentialLR": lambda m, o: m.optim.lr_scheduler.SequentialLR(
        o, [m.optim.lr_scheduler.LinearLR(o, start_factor=0.1, total_iters=10),
            m.optim.lr_scheduler.CosineAnnealingLR(o, T_max=50)], milestones=[10]),
    "SequentialLR3": lambda m, o: m.optim.lr_scheduler.SequentialLR(
        o, [m.optim.lr_scheduler.ConstantLR(o, factor=0.5, total_iters=5),
            m.optim.lr_scheduler.ExponentialLR(o, gamma=0.9),
            m.optim.lr_scheduler.StepLR(o, step_size=4)], milestones=[8, 20]),
    "ChainedScheduler": lambda m, o: m.optim.lr_scheduler.ChainedScheduler(
        [m.optim.lr_scheduler.ConstantLR(o, factor=0.3, total_iters=4),
         m.optim.lr_scheduler.ExponentialLR(o, gamma=0.95)]),
    "SWALR": lambda m, o: m.optim.swa_utils.SWALR(o, swa_lr=0.05, anneal_epochs=7),
    "SWALR_linear": lambda m, o: m.optim.swa_utils.SWALR(o, swa_lr=[0.05, 0.2],
                                                         anneal_epochs=3,
                                                         anneal_strategy="linear"),
}


def _trace(m, name, steps=90, opt_name="SGD"):
    opt = _opt(m, opt_name)
    sched = SCHEDULERS[name](m, opt)
    out = [(sched.get_last_lr(), [g.get("momentum", g.get("betas")) for g in opt.param_groups])]
    for _ in range(steps):
        opt.step()
        sched.step()
        out.append((sched.get_last_lr(),
                    [g.get("momentum", g.get("betas")) for g in opt.param_groups]))
    return out


@pytest.mark.parametrize("name", list(SCHEDULERS))
def test_lr_sequence_equals_torch(name):
    assert _trace(strided, name) == _trace(torch, name)


@pytest.mark.parametrize("name", ["CyclicLR", "OneCycleLR"])
def test_cycle_momentum_with_betas(name):
    assert _trace(strided, name, 40, "Adam") == _trace(torch, name, 40, "Adam")


@pytest.mark.parametrize("name", ["StepLR", "MultiStepLR", "ExponentialLR", "CosineAnnealingLR",
                                  "LinearLR", "ConstantLR", "PolynomialLR",
                                  "CosineAnnealingWarmRestarts"])
def test_step_with_epoch_uses_closed_form_and_warns(name):
    def run(m):
        opt = _opt(m)
        sched = SCHEDULERS[name](m, opt)
        out = []
        for epoch in [1, 2, 5, 3, 20, 7]:
            opt.step()
            sched.step(epoch)
            out.append(sched.get_last_lr())
        return out
    check(run)


def test_reduce_lr_on_plateau():
    metrics = [1.0, 0.9, 0.95, 0.95, 0.96, 0.97, 0.97, 0.5, 0.6, 0.6, 0.6, 0.6, 0.6, 0.6] * 3
    for kw in (dict(), dict(mode="max", factor=0.5, patience=1, threshold=0.1,
                            threshold_mode="abs", cooldown=2, min_lr=[0.01, 0.2]),
               dict(patience=0, threshold_mode="rel", min_lr=0.05, eps=1e-3)):
        def run(m, kw=kw):
            opt = _opt(m)
            sched = m.optim.lr_scheduler.ReduceLROnPlateau(opt, **kw)
            out = []
            for v in metrics:
                opt.step()
                sched.step(m.tensor(v) if v > 0.9 else v)
                out.append((sched.get_last_lr(), sched.num_bad_epochs, sched.best))
            return out
        check(run)


@pytest.mark.parametrize("name", ["StepLR", "CosineAnnealingLR", "OneCycleLR", "CyclicLR",
                                  "SequentialLR", "ChainedScheduler", "LambdaLR",
                                  "CosineAnnealingWarmRestarts", "SWALR"])
def test_state_dict_resume(name):
    def run(m):
        opt = _opt(m)
        sched = SCHEDULERS[name](m, opt)
        for _ in range(13):
            opt.step()
            sched.step()
        sd = sched.state_dict()
        opt2 = _opt(m)
        opt2.load_state_dict(opt.state_dict())
        sched2 = SCHEDULERS[name](m, opt2)
        sched2.load_state_dict(sd)
        out = []
        for _ in range(20):
            opt2.step()
            sched2.step()
            out.append(sched2.get_last_lr())
        keys = sorted(k for k in sd if not k.startswith("_schedulers"))
        return out, keys
    check(run)


def test_state_dict_matches_torch_values():
    for name in ("StepLR", "MultiStepLR", "CosineAnnealingLR", "OneCycleLR",
                 "ReduceLROnPlateau"):
        res = {}
        for m in (strided, torch):
            opt = _opt(m)
            if name == "ReduceLROnPlateau":
                sched = m.optim.lr_scheduler.ReduceLROnPlateau(opt)
                sched.step(1.0)
            else:
                sched = SCHEDULERS[name](m, opt)
                opt.step()
                sched.step()
            res[m.__name__] = {k: v for k, v in sched.state_dict().items()
                               if not callable(v)}
        assert res["strided"] == res["torch"], name


def test_warning_scheduler_before_optimizer():
    def run(m):
        opt = _opt(m)
        sched = m.optim.lr_scheduler.StepLR(opt, 3)
        sched.step()
        return sched.get_last_lr()
    check(run)


def test_warning_get_lr_outside_step():
    def run(m):
        opt = _opt(m)
        sched = m.optim.lr_scheduler.ExponentialLR(opt, 0.5)
        opt.step()
        sched.step()
        return sched.get_lr()
    check(run)


def test_warning_optimizer_step_overridden():
    def run(m):
        opt = _opt(m)
        sched = m.optim.lr_scheduler.StepLR(opt, 3)
        opt.step = lambda: None
        opt.step()
        sched.step()
    check(run)


def test_no_warning_in_the_right_order():
    opt = _opt(strided)
    sched = strided.optim.lr_scheduler.StepLR(opt, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        opt.step()
        sched.step()


def test_tensor_lr_is_updated_in_place():
    res = {}
    for m in (strided, torch):
        p = m.nn.Parameter(m.ones(2))
        lr = m.tensor(0.1)
        opt = m.optim.Adam([p], lr=lr)
        sched = m.optim.lr_scheduler.ExponentialLR(opt, 0.5)
        opt.step()
        sched.step()
        assert opt.param_groups[0]["lr"] is lr
        res[m.__name__] = (float(lr), [float(x) for x in sched.get_last_lr()])
    assert res["strided"] == res["torch"]


def test_last_epoch_resume_needs_initial_lr():
    def run(m):
        m.optim.lr_scheduler.StepLR(_opt(m), 3, last_epoch=4)
    assert_same_error(lambda: run(strided), lambda: run(torch))


ERRORS = {
    "not_optimizer": lambda m: m.optim.lr_scheduler.StepLR(object(), 3),
    "lambda_count": lambda m: m.optim.lr_scheduler.LambdaLR(_opt(m), [_lambda]),
    "mult_not_callable": lambda m: m.optim.lr_scheduler.MultiplicativeLR(_opt(m), [1, 2]),
    "constant_factor": lambda m: m.optim.lr_scheduler.ConstantLR(_opt(m), factor=2),
    "linear_start": lambda m: m.optim.lr_scheduler.LinearLR(_opt(m), start_factor=0),
    "linear_end": lambda m: m.optim.lr_scheduler.LinearLR(_opt(m), end_factor=2),
    "plateau_factor": lambda m: m.optim.lr_scheduler.ReduceLROnPlateau(_opt(m), factor=1.0),
    "plateau_mode": lambda m: m.optim.lr_scheduler.ReduceLROnPlateau(_opt(m), mode="up"),
    "plateau_min_lrs": lambda m: m.optim.lr_scheduler.ReduceLROnPlateau(_opt(m), min_lr=[1]),
    "cyclic_mode": lambda m: m.optim.lr_scheduler.CyclicLR(_opt(m), 0.1, 1.0, mode="x"),
    "cyclic_momentum": lambda m: m.optim.lr_scheduler.CyclicLR(
        m.optim.Adagrad([m.nn.Parameter(m.ones(1))]), 0.1, 1.0),
    "cyclic_len": lambda m: m.optim.lr_scheduler.CyclicLR(_opt(m), [0.1], 1.0),
    "onecycle_total": lambda m: m.optim.lr_scheduler.OneCycleLR(_opt(m), 1.0),
    "onecycle_steps": lambda m: m.optim.lr_scheduler.OneCycleLR(_opt(m), 1.0, total_steps=0),
    "onecycle_pct": lambda m: m.optim.lr_scheduler.OneCycleLR(_opt(m), 1.0, total_steps=10,
                                                              pct_start=1),
    "onecycle_anneal": lambda m: m.optim.lr_scheduler.OneCycleLR(
        _opt(m), 1.0, total_steps=10, anneal_strategy="exp"),
    "warm_T0": lambda m: m.optim.lr_scheduler.CosineAnnealingWarmRestarts(_opt(m), T_0=0),
    "warm_Tmult": lambda m: m.optim.lr_scheduler.CosineAnnealingWarmRestarts(
        _opt(m), T_0=2, T_mult=0),
    "sequential_empty": lambda m: m.optim.lr_scheduler.SequentialLR(_opt(m), [], []),
    "sequential_milestones": lambda m: (lambda o: m.optim.lr_scheduler.SequentialLR(
        o, [m.optim.lr_scheduler.StepLR(o, 2)], [3]))(_opt(m)),
    "chained_plateau": lambda m: (lambda o: m.optim.lr_scheduler.ChainedScheduler(
        [m.optim.lr_scheduler.ReduceLROnPlateau(o)]))(_opt(m)),
    "swalr_strategy": lambda m: m.optim.swa_utils.SWALR(_opt(m), 0.1, anneal_strategy="x"),
    "swalr_epochs": lambda m: m.optim.swa_utils.SWALR(_opt(m), 0.1, anneal_epochs=-1),
}


@pytest.mark.parametrize("case", list(ERRORS))
def test_errors_match_torch(case):
    assert_same_error(lambda: ERRORS[case](strided), lambda: ERRORS[case](torch))


def test_onecycle_past_total_steps_raises():
    def run(m):
        opt = _opt(m)
        sched = m.optim.lr_scheduler.OneCycleLR(opt, 1.0, total_steps=3)
        for _ in range(4):
            opt.step()
            sched.step()
    assert_same_error(lambda: run(strided), lambda: run(torch))


def test_cosine_annealing_long_run_stays_close_to_closed_form():
    opt = _opt(strided)
    sched = strided.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=20)
    for epoch in range(1, 200):
        opt.step()
        sched.step()
        closed = 0.1 * (1 + math.cos(math.pi * epoch / 20)) / 2
        assert abs(sched.get_last_lr()[0] - closed) < 1e-9


@hyp(25)
@given(kind=st.sampled_from(["step", "multistep", "linear", "cosine", "poly", "warm", "cyclic",
                             "onecycle"]),
       a=st.integers(1, 12), b=st.floats(0.05, 0.95), c=st.integers(1, 3))
def test_random_schedules_equal_torch(kind, a, b, c):
    def make(m, o):
        ls = m.optim.lr_scheduler
        return {
            "step": lambda: ls.StepLR(o, step_size=a, gamma=b),
            "multistep": lambda: ls.MultiStepLR(o, [a, 2 * a, 2 * a + c], gamma=b),
            "linear": lambda: ls.LinearLR(o, start_factor=b, end_factor=1.0, total_iters=a),
            "cosine": lambda: ls.CosineAnnealingLR(o, T_max=a, eta_min=b / 100),
            "poly": lambda: ls.PolynomialLR(o, total_iters=a, power=b * 3),
            "warm": lambda: ls.CosineAnnealingWarmRestarts(o, T_0=a, T_mult=c),
            "cyclic": lambda: ls.CyclicLR(o, base_lr=b / 10, max_lr=b, step_size_up=a,
                                          step_size_down=a + c),
            "onecycle": lambda: ls.OneCycleLR(o, max_lr=b, total_steps=60, pct_start=b / 2),
        }[kind]()

    def run(m):
        opt = _opt(m)
        sched = make(m, opt)
        out = []
        for _ in range(59):
            opt.step()
            sched.step()
            out.append(sched.get_last_lr())
        return out
    check(run)
