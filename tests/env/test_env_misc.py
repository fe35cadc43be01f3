"""strided.compile / strided.compiler and nn.parallel.DataParallel against torch's CPU build."""

from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pytest
import torch

import strided
from strided import _compile
from tests.conftest import check


@pytest.fixture
def fresh_warning():
    _compile._warned[0] = False
    yield
    _compile._warned[0] = True


def test_compile_returns_function_unchanged_and_warns_once(fresh_warning):
    def f(x):
        return x * 2

    with pytest.warns(UserWarning, match="strided has no compiler yet") as rec:
        g = strided.compile(f)
    assert g is f and len(rec) == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert strided.compile(f, mode="max-autotune", fullgraph=True) is f
    assert g(strided.ones(2)).tolist() == [2.0, 2.0]


def test_compile_warns_once_per_process():
    code = ("import warnings, strided\nwarnings.simplefilter('always')\n"
            "with warnings.catch_warnings(record=True) as w:\n"
            "    strided.compile(len); strided.compile(abs)\n"
            "    strided.compile(strided.nn.Linear(2, 2))\n"
            "print(sum('no compiler' in str(x.message) for x in w))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "1"


def test_compile_module_and_decorators(fresh_warning):
    m = strided.nn.Linear(3, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert strided.compile(m) is m

        @strided.compile
        def f(x):
            return x + 1

        @strided.compile(dynamic=True, backend="eager")
        def g(x):
            return x - 1
    assert f(strided.zeros(1)).tolist() == [1.0]
    assert g(strided.zeros(1)).tolist() == [-1.0]
    assert strided.compile(m, disable=True) is m


def test_compile_argument_checks_match_torch():
    check(lambda lib: lib.compile(len, mode="default", options={"a": 1}))
    check(lambda lib: lib.compile()(None))


def test_compiler_namespace():
    check(lambda lib: (lib.compiler.is_compiling(), lib.compiler.is_dynamo_compiling(),
                       lib.compiler.is_exporting()))

    def f(x):
        return x

    assert strided.compiler.disable(f) is f
    assert strided.compiler.disable()(f) is f
    assert strided.compiler.disable(recursive=False)(f) is f
    assert strided.compiler.reset() is None


def _pair(lib):
    lib.manual_seed(0)
    inner = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.ReLU(), lib.nn.Linear(4, 2))
    return inner, lib.nn.DataParallel(inner)


def test_data_parallel_is_the_module_on_cpu():
    def go(lib):
        inner, dp = _pair(lib)
        x = lib.arange(6.0).reshape(2, 3)
        out = dp(x)
        return (dp.module is inner, dp.device_ids, list(dp.state_dict().keys()), repr(dp),
                out, [n for n, _ in dp.named_parameters()], hasattr(dp, "output_device"))
    check(go)


def test_data_parallel_constructor_arguments_and_training():
    def go(lib):
        lib.manual_seed(0)
        dp = lib.nn.parallel.DataParallel(lib.nn.Linear(2, 1), device_ids=[0, 1],
                                          output_device=0, dim=1)
        dp.train(False)
        loss = dp(lib.ones(3, 2), ).sum()
        loss.backward()
        return dp.device_ids, dp.module.training, dp.module.weight.grad
    check(go)


def test_data_parallel_state_dict_round_trip_with_torch():
    s_inner, s_dp = _pair(strided)
    t_inner, t_dp = _pair(torch)
    sd = {k: torch.from_numpy(v.detach().numpy().copy()) for k, v in s_dp.state_dict().items()}
    t_dp.load_state_dict(sd)
    x = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(s_dp(strided.tensor(x)).detach().numpy(),
                                  t_dp(torch.tensor(x)).detach().numpy())


def test_functional_data_parallel_matches_torch():
    check(lambda lib: lib.nn.parallel.data_parallel(lib.nn.Linear(2, 2), lib.ones(1, 2)))
