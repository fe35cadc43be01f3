"""swa_utils against torch: AveragedModel (SWA mean, EMA through avg_fn and multi_avg_fn,
use_buffers), update_bn, and the averaging functions."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided
from tests.conftest import assert_same_error, check

RNG = np.random.default_rng(7)
STEPS = [[RNG.standard_normal(s).astype(np.float32) for s in ((4, 3), (4,), (2, 4), (2,))]
         for _ in range(5)]
DATA = [RNG.standard_normal((8, 3)).astype(np.float32) * 2 + 1 for _ in range(4)]


def _model(m):
    m.manual_seed(0)
    return m.nn.Sequential(m.nn.Linear(3, 4), m.nn.BatchNorm1d(4), m.nn.ReLU(),
                           m.nn.Linear(4, 2))


def _set(m, model, arrays):
    with m.no_grad():
        params = [model[0].weight, model[0].bias, model[3].weight, model[3].bias]
        for p, a in zip(params, arrays):
            p.copy_(m.tensor(a))
        model[1].running_mean.add_(m.tensor(arrays[1]))


def _averaged(m, kind):
    sw = m.optim.swa_utils
    if kind == "swa":
        return lambda model: sw.AveragedModel(model)
    if kind == "ema_avg_fn":
        return lambda model: sw.AveragedModel(model, avg_fn=sw.get_ema_avg_fn(0.9))
    if kind == "ema_multi":
        return lambda model: sw.AveragedModel(model, multi_avg_fn=sw.get_ema_multi_avg_fn(0.8),
                                              use_buffers=True)
    if kind == "swa_multi":
        return lambda model: sw.AveragedModel(model, multi_avg_fn=sw.get_swa_multi_avg_fn())
    return lambda model: sw.AveragedModel(model, avg_fn=sw.get_swa_avg_fn(), use_buffers=True)


@pytest.mark.parametrize("kind", ["swa", "ema_avg_fn", "ema_multi", "swa_multi",
                                  "swa_fn_buffers"])
def test_averaged_model_matches_torch(kind):
    res = {}
    for m in (strided, torch):
        model = _model(m)
        avg = _averaged(m, kind)(model)
        for arrays in STEPS:
            _set(m, model, arrays)
            avg.update_parameters(model)
        state = {k: v.detach().numpy().copy() for k, v in avg.state_dict().items()}
        out = avg(m.tensor(DATA[0])).detach().numpy()
        res[m.__name__] = (state, out, int(avg.n_averaged))
    (ss, os_, ns), (st, ot, nt) = res["strided"], res["torch"]
    assert list(ss) == list(st) and ns == nt == len(STEPS)
    for k in st:
        np.testing.assert_allclose(ss[k], st[k], rtol=1e-6, atol=1e-6, err_msg=k)
    np.testing.assert_allclose(os_, ot, rtol=1e-5, atol=1e-5)


def test_update_bn_matches_torch():
    res = {}
    for m in (strided, torch):
        model = _model(m)
        model[1].momentum = 0.3
        model.eval()
        loader = [(m.tensor(d), m.zeros(8)) for d in DATA]
        m.optim.swa_utils.update_bn(loader, model)
        bn = model[1]
        res[m.__name__] = (bn.running_mean.numpy().copy(), bn.running_var.numpy().copy(),
                           bn.momentum, model.training, int(bn.num_batches_tracked))
    s, t = res["strided"], res["torch"]
    np.testing.assert_allclose(s[0], t[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(s[1], t[1], rtol=1e-5, atol=1e-6)
    assert s[2:] == t[2:] == (0.3, False, 4)


def test_update_bn_without_batchnorm_is_a_no_op():
    model = strided.nn.Linear(2, 2)
    strided.optim.swa_utils.update_bn([strided.ones(1, 2)], model)


def test_averaging_functions_and_errors():
    for fn in ("get_ema_avg_fn", "get_ema_multi_avg_fn"):
        assert_same_error(lambda fn=fn: getattr(strided.optim.swa_utils, fn)(1.5),
                          lambda fn=fn: getattr(torch.optim.swa_utils, fn)(1.5))
    assert_same_error(
        lambda: strided.optim.swa_utils.AveragedModel(strided.nn.Linear(1, 1), avg_fn=abs,
                                                      multi_avg_fn=abs),
        lambda: torch.optim.swa_utils.AveragedModel(torch.nn.Linear(1, 1), avg_fn=abs,
                                                    multi_avg_fn=abs))
    a, b = np.float32([1.0, 2.0]), np.float32([3.0, 6.0])
    for name, args in (("get_swa_avg_fn", ()), ("get_ema_avg_fn", (0.7,))):
        rs = getattr(strided.optim.swa_utils, name)(*args)(strided.tensor(a), strided.tensor(b),
                                                           strided.tensor(3))
        rt = getattr(torch.optim.swa_utils, name)(*args)(torch.tensor(a), torch.tensor(b),
                                                         torch.tensor(3))
        np.testing.assert_array_equal(rs.numpy(), rt.numpy())


def test_integer_buffers_use_the_integer_paths():
    def swa(m, n):
        x = [m.tensor([10, 20])]
        m.optim.swa_utils.get_swa_multi_avg_fn()(x, [m.tensor([20, 40])], n)
        return x[0]

    def ema(m):
        z = [m.tensor([10, 20])]
        m.optim.swa_utils.get_ema_multi_avg_fn(0.5)(z, [m.tensor([20, 40])], 0)
        return z[0]
    check(lambda m: swa(m, 1))
    check(lambda m: swa(m, m.tensor(1)))  # torch refuses integer addcdiv: so do we
    check(ema)
