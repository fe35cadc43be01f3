"""strided.cuda, strided.cpu and strided.accelerator against torch's CPU build: values,
exception types and messages, warnings."""

from __future__ import annotations

import pytest
import torch

import strided
from tests.conftest import check

# (name, args): what a CPU-only torch answers for each
CUDA_CALLS = [
    ("is_available", ()), ("device_count", ()), ("is_initialized", ()),
    ("is_bf16_supported", ()), ("is_tf32_supported", ()), ("get_arch_list", ()),
    ("get_gencode_flags", ()),
    ("current_device", ()), ("synchronize", ()), ("init", ()), ("get_device_name", ()),
    ("get_device_capability", ()), ("get_device_properties", ()), ("initial_seed", ()),
    ("get_rng_state", ()), ("current_stream", ()), ("default_stream", ()), ("ipc_collect", ()),
    ("mem_get_info", ()), ("get_sync_debug_mode", ()), ("can_device_access_peer", (0, 1)),
    ("caching_allocator_alloc", (10,)), ("set_per_process_memory_fraction", (0.5,)),
    ("memory_allocated", ()), ("max_memory_allocated", ()), ("memory_reserved", ()),
    ("max_memory_reserved", ()), ("memory_cached", ()), ("empty_cache", ()),
    ("manual_seed", (0,)), ("manual_seed_all", (123,)), ("seed", ()), ("seed_all", ()),
    ("get_rng_state_all", ()), ("set_stream", (None,)),
]


@pytest.mark.parametrize("name,args", CUDA_CALLS, ids=[c[0] for c in CUDA_CALLS])
def test_cuda_function_matches_torch(name, args):
    check(lambda lib: getattr(lib.cuda, name)(*args))


def test_cuda_memory_stats_empty():
    assert strided.cuda.memory_stats() == torch.cuda.memory_stats() == {}


def test_cuda_seeding_leaves_cpu_generator_alone():
    strided.manual_seed(7)
    a = strided.rand(3)
    strided.manual_seed(7)
    strided.cuda.manual_seed_all(99)
    strided.cuda.manual_seed(5)
    strided.cuda.seed()
    b = strided.rand(3)
    assert a.tolist() == b.tolist()
    torch.manual_seed(7)
    assert torch.rand(3).tolist() == a.tolist()


@pytest.mark.parametrize("make", [
    lambda lib: lib.cuda.Stream(),
    lambda lib: lib.cuda.Event(),
    lambda lib: lib.cuda.device(0).__enter__(),
    lambda lib: lib.cuda.device("cpu"),
    lambda lib: lib.cuda.nvtx.range_push("a"),
    lambda lib: lib.cuda.set_rng_state(lib.get_rng_state()),
    lambda lib: lib.cuda.stream(None).__enter__(),
])
def test_cuda_objects_match_torch(make):
    check(make)


def test_cuda_device_contexts_without_a_device_are_no_ops():
    # (torch's own answers here depend on its lazy-init state; strided's selects nothing)
    with strided.cuda.device_of(strided.ones(1)) as d:
        assert d.idx == -1
    with strided.cuda.device(None) as d:
        assert d.idx == -1
    with strided.cuda.device(-1):
        pass
    strided.cuda.set_device(-1)


def test_cuda_amp_deprecated_aliases_warn_and_disable():
    def autocast(lib):
        with lib.cuda.amp.autocast():
            return lib.is_autocast_enabled("cuda"), lib.is_autocast_enabled()
    check(autocast)

    def scaler(lib):
        s = lib.cuda.amp.GradScaler()
        return s.is_enabled(), s.get_scale(), s.state_dict()
    check(scaler)
    assert strided.cuda.amp.amp_definitely_not_available()


CPU_CALLS = [("is_available", ()), ("device_count", ()), ("current_device", ()),
             ("synchronize", ()), ("is_initialized", ()), ("set_device", ("cpu",))]


@pytest.mark.parametrize("name,args", CPU_CALLS, ids=[c[0] for c in CPU_CALLS])
def test_cpu_device_module_matches_torch(name, args):
    check(lambda lib: getattr(lib.cpu, name)(*args))


def test_cpu_stream():
    s = strided.cpu.current_stream()
    assert s.query() is True and s is strided.cpu.current_stream()
    with strided.cpu.stream(s) as entered:
        assert entered is s


ACCELERATOR_CALLS = [
    ("is_available", ()), ("device_count", ()), ("current_accelerator", ()),
    ("current_device_index", ()), ("set_device_index", (0,)), ("synchronize", ()),
    ("current_stream", ()), ("empty_cache", ()), ("memory_allocated", ()),
    ("max_memory_allocated", ()), ("memory_stats", ()), ("reset_peak_memory_stats", ()),
    ("memory_reserved", ()),
]


@pytest.mark.parametrize("name,args", ACCELERATOR_CALLS, ids=[c[0] for c in ACCELERATOR_CALLS])
def test_accelerator_matches_torch(name, args):
    check(lambda lib: getattr(lib.accelerator, name)(*args))


def test_accelerator_check_available_and_device_index():
    check(lambda lib: lib.accelerator.current_accelerator(check_available=True))

    def none_index(lib):
        with lib.accelerator.device_index(None):
            return 1
    check(none_index)

    def index0(lib):
        with lib.accelerator.device_index(0):
            return 1
    check(index0)


@pytest.mark.parametrize("make", [
    lambda lib: lib.zeros(2, device="cuda"),
    lambda lib: lib.randn(2, device="cuda:0"),
    lambda lib: lib.tensor([1.0], device="cuda"),
    lambda lib: lib.ones(2).to("cuda"),
    lambda lib: lib.ones(2).to(lib.device("cuda", 0), lib.float64),
    lambda lib: lib.ones(2).cuda(),
    lambda lib: lib.ones(2).cuda(0),
    lambda lib: lib.ones(2).cuda("cpu"),
    lambda lib: lib.nn.Linear(2, 2).cuda(),
    lambda lib: lib.nn.Linear(2, 2).to("cuda"),
])
def test_cuda_tensors_are_refused_like_torch(make):
    check(make)


XPU_CALLS = [("is_available", ()), ("device_count", ()), ("is_initialized", ()),
             ("is_bf16_supported", ()), ("manual_seed", (1,)), ("manual_seed_all", (1,)),
             ("seed", ()), ("empty_cache", ()), ("memory_allocated", ()),
             ("current_device", ()), ("synchronize", ()), ("get_device_name", ())]


@pytest.mark.parametrize("name,args", XPU_CALLS, ids=[c[0] for c in XPU_CALLS])
def test_xpu_matches_torch(name, args):
    check(lambda lib: getattr(lib.xpu, name)(*args))


def test_version_module():
    check(lambda lib: (lib.version.cuda, lib.version.hip, lib.version.xpu, lib.version.debug))
    assert strided.version.__version__ == strided.__version__
