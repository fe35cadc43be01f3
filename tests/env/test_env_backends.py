"""strided.backends and the process-wide switches (matmul precision, deterministic
algorithms, threads, default device) against torch's CPU build."""

from __future__ import annotations

import warnings

import pytest
import torch

import strided
from tests.conftest import assert_same, check


@pytest.fixture(autouse=True)
def _restore_switches():
    # torch.testing._internal (imported by the op_db / module_db tests) freezes torch's
    # backend flags at import (disable_global_flags); these tests set them on both sides
    frozen = torch.backends.flags_frozen()
    flags = torch.backends.flags_frozen.__globals__      # torch.backends' own module globals
    flags["__allow_nonbracketed_mutation_flag"] = True
    yield
    for lib in (strided, torch):
        lib.set_float32_matmul_precision("highest")
        lib.use_deterministic_algorithms(False)
        lib.set_default_device(None)
        lib.backends.cudnn.benchmark = False
        lib.backends.cudnn.deterministic = False
        lib.backends.cudnn.enabled = True
    flags["__allow_nonbracketed_mutation_flag"] = not frozen


# values a CPU program reads; where strided's answer is the truthful one for a NumPy library
# and differs from torch's build (oneDNN, MKL, OpenMP), it is listed in STRIDED_ONLY
READS = [
    lambda lib: lib.backends.cudnn.enabled,
    lambda lib: lib.backends.cudnn.benchmark,
    lambda lib: lib.backends.cudnn.deterministic,
    lambda lib: lib.backends.cudnn.allow_tf32,
    lambda lib: lib.backends.cudnn.is_available(),
    lambda lib: lib.backends.cudnn.version(),
    lambda lib: lib.backends.cudnn.is_acceptable(lib.ones(1)),
    lambda lib: lib.backends.cudnn.fp32_precision,
    lambda lib: lib.backends.mps.is_available(),
    lambda lib: lib.backends.mps.is_built(),
    lambda lib: lib.backends.mps.is_macos13_or_newer(),
    lambda lib: lib.backends.mkldnn.enabled,
    lambda lib: lib.backends.mkldnn.deterministic,
    lambda lib: lib.backends.opt_einsum.is_available(),
    lambda lib: lib.backends.opt_einsum.enabled,
    lambda lib: lib.backends.opt_einsum.strategy,
    lambda lib: lib.backends.opt_einsum.get_opt_einsum(),
    lambda lib: lib.backends.cuda.is_built(),
    lambda lib: lib.backends.cuda.matmul.allow_tf32,
    lambda lib: lib.backends.cuda.matmul.allow_fp16_reduced_precision_reduction,
    lambda lib: lib.backends.cuda.matmul.allow_bf16_reduced_precision_reduction,
    lambda lib: lib.backends.cuda.matmul.fp32_precision,
    lambda lib: lib.backends.cuda.matmul.no_such_switch,
    lambda lib: lib.backends.cuda.flash_sdp_enabled(),
    lambda lib: lib.backends.cuda.math_sdp_enabled(),
    lambda lib: lib.backends.cuda.mem_efficient_sdp_enabled(),
    lambda lib: lib.backends.cpu.get_cpu_capability(),
    lambda lib: lib.backends.fp32_precision,
    lambda lib: lib.get_float32_matmul_precision(),
    lambda lib: lib.are_deterministic_algorithms_enabled(),
    lambda lib: lib.is_deterministic_algorithms_warn_only_enabled(),
    lambda lib: lib.get_deterministic_debug_mode(),
    lambda lib: lib.get_default_device(),
    lambda lib: lib.backends.flags_frozen(),
]


@pytest.mark.parametrize("read", READS)
def test_reads_match_torch(read):
    check(read)


def test_strided_has_no_onednn_mkl_openmp():
    # torch's CPU build ships oneDNN, MKL and OpenMP; strided computes with NumPy
    assert strided.backends.mkldnn.is_available() is False
    assert strided.backends.mkl.is_available() is False
    assert strided.backends.openmp.is_available() is False


@pytest.mark.parametrize("flag,value", [("benchmark", True), ("deterministic", True),
                                        ("enabled", False), ("allow_tf32", False)])
def test_cudnn_flags_keep_set_value(flag, value):
    def go(lib):
        setattr(lib.backends.cudnn, flag, value)
        got = getattr(lib.backends.cudnn, flag)
        setattr(lib.backends.cudnn, flag, not value)
        return got, getattr(lib.backends.cudnn, flag)
    check(go)


def test_cudnn_flags_context():
    def go(lib):
        cudnn = lib.backends.cudnn
        with cudnn.flags(enabled=True, benchmark=True, deterministic=True):
            inside = (cudnn.enabled, cudnn.benchmark, cudnn.deterministic, cudnn.allow_tf32)
        with cudnn.flags():
            default_ctx = (cudnn.enabled, cudnn.benchmark, cudnn.deterministic)
        return inside, default_ctx, (cudnn.enabled, cudnn.benchmark, cudnn.deterministic)
    check(go)


def test_mkldnn_flags_context():
    def go(lib):
        m = lib.backends.mkldnn
        with m.flags(enabled=False, deterministic=True):
            inside = (m.enabled, m.deterministic)
        return inside, (m.enabled, m.deterministic)
    check(go, warns=False)   # torch also warns that its TF32 oneDNN path needs an Intel GPU


def test_opt_einsum_unavailable_flags_store_values():
    def go(lib):
        lib.backends.opt_einsum.enabled = True
        got = lib.backends.opt_einsum.enabled
        lib.backends.opt_einsum.enabled = False
        return got, lib.backends.opt_einsum.enabled
    check(go)

    def ctx(lib):
        with lib.backends.opt_einsum.flags(enabled=False):
            return lib.backends.opt_einsum.enabled
    check(ctx)


def test_disable_global_flags():
    for lib in (strided, torch):
        lib.backends.disable_global_flags()
    try:
        check(lambda lib: setattr(lib.backends.cudnn, "benchmark", True))
        check(lambda lib: lib.backends.flags_frozen())

        def in_context(lib):
            with lib.backends.cudnn.flags(enabled=True, benchmark=True):
                return lib.backends.cudnn.benchmark
        check(in_context)
    finally:
        torch.backends.m.__dict__["__allow_nonbracketed_mutation_flag"] = True
        strided.backends._mutable[0] = True
    assert not strided.backends.flags_frozen() and not torch.backends.flags_frozen()


@pytest.mark.parametrize("precision", ["high", "medium", "highest", "bad", 3])
def test_float32_matmul_precision(precision):
    def go(lib):
        lib.set_float32_matmul_precision(precision)
        m = lib.backends.cuda.matmul
        return lib.get_float32_matmul_precision(), m.allow_tf32, m.fp32_precision
    check(go)


def test_matmul_allow_tf32_is_the_precision_switch():
    def go(lib):
        lib.backends.cuda.matmul.allow_tf32 = True
        a = lib.get_float32_matmul_precision()
        lib.backends.cuda.matmul.allow_tf32 = False
        return a, lib.get_float32_matmul_precision()
    check(go)
    check(lambda lib: setattr(lib.backends.cuda.matmul, "nope", 1))


@pytest.mark.parametrize("mode,warn_only", [(True, False), (True, True), (False, False),
                                            (1, False), (True, 1)])
def test_use_deterministic_algorithms(mode, warn_only):
    def go(lib):
        lib.use_deterministic_algorithms(mode, warn_only=warn_only)
        return (lib.are_deterministic_algorithms_enabled(),
                lib.is_deterministic_algorithms_warn_only_enabled(),
                lib.get_deterministic_debug_mode())
    check(go)


@pytest.mark.parametrize("mode", ["default", "warn", "error", 0, 1, 2, "x", 5, 1.0])
def test_deterministic_debug_mode(mode):
    def go(lib):
        lib.set_deterministic_debug_mode(mode)
        return (lib.get_deterministic_debug_mode(), lib.are_deterministic_algorithms_enabled(),
                lib.is_deterministic_algorithms_warn_only_enabled())
    check(go)


def test_default_num_threads_is_the_usable_cores():
    import os
    assert strided.get_num_threads() >= 1
    assert strided.get_num_threads() <= (os.cpu_count() or 1)


@pytest.mark.parametrize("n", [1, 3, 0, -1, 1.5])
def test_num_threads(n):
    before = (strided.get_num_threads(), torch.get_num_threads())

    def go(lib):
        lib.set_num_threads(n)
        return lib.get_num_threads()
    try:
        check(go)
    finally:
        strided.set_num_threads(before[0])
        torch.set_num_threads(before[1])


def test_default_device_meta_factories():
    def go(lib):
        lib.set_default_device("meta")
        out = [lib.zeros(2, 3), lib.ones(4), lib.empty(2), lib.randn(3), lib.arange(5),
               lib.full((2,), 1.5), lib.tensor([1.0, 2.0]), lib.tensor([[1, 2]]),
               lib.eye(3), lib.linspace(0, 1, 4)]
        return [(t.device.type, tuple(t.shape), str(t.dtype).split(".")[-1]) for t in out], \
            str(lib.get_default_device())
    check(go)


def test_default_device_module_parameters_on_meta():
    def go(lib):
        lib.set_default_device("meta")
        lin = lib.nn.Linear(3, 2)
        return lin.weight.device.type, lin.bias.device.type, tuple(lin.weight.shape)
    check(go)


def test_default_device_explicit_device_wins_and_reset():
    strided.set_default_device("meta")
    assert strided.zeros(2, device="cpu").device.type == "cpu"
    strided.set_default_device("cpu")
    assert strided.get_default_device() == strided.device("cpu")
    s = strided.arange(3.0)
    torch.set_default_device("cpu")
    assert_same(s, torch.arange(3.0))
    strided.set_default_device(strided.device("meta"))
    strided.set_default_device(None)
    assert strided.zeros(1).device.type == "cpu"


def test_default_device_cuda_refused_like_torch():
    def go(lib):
        lib.set_default_device("cuda")
        return lib.zeros(1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(go)


def test_device_as_context_manager_sets_the_default():
    def go(lib):
        seen = []
        with lib.device("meta") as d:
            seen += [str(d), lib.zeros(1).device.type, str(lib.get_default_device()),
                     lib.nn.Linear(2, 2).weight.device.type]
            with lib.device("cpu"):
                seen.append(lib.ones(1).device.type)
            seen.append(lib.ones(1).device.type)
        seen.append(lib.zeros(1).device.type)
        lib.set_default_device("meta")
        with lib.device("cpu"):
            seen.append(lib.zeros(1).device.type)
        seen.append(lib.zeros(1).device.type)
        lib.set_default_device(None)
        seen.append(str(lib.get_default_device()))
        return seen
    check(go)

    def cuda_block(lib):
        with lib.device("cuda"):
            return lib.zeros(1)
    check(cuda_block)
