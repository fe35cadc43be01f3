"""``tensor_repr`` against torch: every case builds a torch tensor, a duck-typed
stand-in carrying the same metadata, and compares the two reprs exactly."""

from __future__ import annotations

import math
import time
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from strided.core import dtypes as sd
from strided.frontend import printing
from strided.frontend.printing import (
    get_printoptions,
    printoptions,
    set_printoptions,
    tensor_repr,
    tensor_str,
)

TORCH_DTYPES = {
    "bool": torch.bool, "uint8": torch.uint8, "int8": torch.int8, "int16": torch.int16,
    "int32": torch.int32, "int64": torch.int64, "uint16": torch.uint16,
    "uint32": torch.uint32, "uint64": torch.uint64, "float16": torch.float16,
    "bfloat16": torch.bfloat16, "float32": torch.float32, "float64": torch.float64,
    "complex64": torch.complex64, "complex128": torch.complex128,
}
INT_NAMES = ["bool", "uint8", "int8", "int16", "int32", "int64", "uint16", "uint32", "uint64"]
FLOAT_NAMES = ["float16", "bfloat16", "float32", "float64"]
COMPLEX_NAMES = ["complex64", "complex128"]


# --------------------------------------------------------------------------- adapters

class FakeDevice:
    def __init__(self, type_, text=None):
        self.type = type_
        self._text = text or type_

    def __str__(self):
        return self._text


class FakeGradFn:
    def __init__(self, name):
        self._name = name

    def name(self):
        return self._name


class FakeTensor:
    """Just the attributes ``tensor_repr`` is allowed to read."""

    def __init__(self, t: torch.Tensor, device=None):
        self.dtype = sd._BY_NAME[str(t.dtype).removeprefix("torch.")]
        self.shape = tuple(t.shape)
        self.device = device or FakeDevice(t.device.type, str(t.device))
        self.requires_grad = t.requires_grad
        self.grad_fn = None if t.grad_fn is None else FakeGradFn(t.grad_fn.name())
        self.is_leaf = t.is_leaf


def values_of(t: torch.Tensor):
    if t.device.type == "meta":
        return None
    t = t.detach()
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy().view(ml_dtypes.bfloat16)
    return t.numpy()


def check(t: torch.Tensor):
    expected = repr(t)
    got = tensor_repr(FakeTensor(t), values_of(t))
    assert got == expected, f"\n--- got:\n{got}\n--- torch:\n{expected}"


@pytest.fixture(autouse=True)
def _restore_options():
    torch.set_printoptions(profile="default")
    set_printoptions(profile="default")
    yield
    torch.set_printoptions(profile="default")
    set_printoptions(profile="default")
    torch.set_default_dtype(torch.float32)
    sd.set_default_dtype(sd.float32)


def both_printoptions(**kwargs):
    torch.set_printoptions(**kwargs)
    set_printoptions(**kwargs)


# --------------------------------------------------------------------------- data

SHAPES = [
    (), (1,), (5,), (17,), (100,), (3, 4), (2, 3, 4), (2, 1, 3, 2), (1, 1, 1),
    (0,), (2, 0, 3), (0, 3), (1001,), (40, 30), (11, 10, 10), (7, 200),
]


def make_values(name: str, shape, flavor: str, seed: int) -> torch.Tensor:
    rng = np.random.default_rng(seed)
    n = math.prod(shape)
    if name == "bool":
        data = rng.random(n) < 0.5
    elif name in INT_NAMES:
        info = np.iinfo(sd._BY_NAME[name].np)
        if flavor == "extreme":
            data = rng.choice(np.array([info.min, info.max, 0, 1], dtype=info.dtype), n)
        else:
            lo, hi = max(info.min, -1000), min(info.max, 1000)
            data = rng.integers(lo, hi, n, endpoint=True, dtype=info.dtype)
    else:
        if flavor == "normal":
            data = rng.standard_normal(n)
        elif flavor == "whole":
            data = rng.integers(-50, 50, n).astype(np.float64)
        elif flavor == "wide":  # forces scientific notation
            data = rng.standard_normal(n) * 10.0 ** rng.integers(-6, 6, n)
        else:  # "special"
            pool = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 1.5, -2.25, 1e-3, 7.0])
            data = rng.choice(pool, n)
        if name in COMPLEX_NAMES:
            pair = np.empty(n, dtype=np.complex128)
            pair.real, pair.imag = data, rng.permutation(data)
            data = pair
    dtype = TORCH_DTYPES[name]
    if name in ("uint16", "uint32", "uint64"):
        return torch.from_numpy(np.ascontiguousarray(data).reshape(shape))
    return torch.tensor(np.asarray(data).reshape(shape)).to(dtype)


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("name", INT_NAMES)
@pytest.mark.parametrize("flavor", ["plain", "extreme"])
def test_integer_and_bool_grid(name, shape, flavor):
    check(make_values(name, shape, flavor, seed=hash((name, shape, flavor)) % 2**32))


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("name", FLOAT_NAMES + COMPLEX_NAMES)
@pytest.mark.parametrize("flavor", ["normal", "whole", "wide", "special"])
def test_floating_grid(name, shape, flavor):
    seed = sum(map(ord, f"{name}{shape}{flavor}"))
    check(make_values(name, shape, flavor, seed))


# --------------------------------------------------------------------------- specials

SPECIAL_CASES = [
    [1.0, 2.0, 3.0], [0.5, 1.25], [0.0, -0.0], [-0.0], [0.0], [float("nan")],
    [float("inf"), -float("inf"), float("nan")], [1.0, float("nan"), float("inf")],
    [1e-5, 1.0], [1e9], [1e8], [1.0e8 + 1], [1e-4], [9.99e-5], [1.0, 1000.0], [1.0, 1001.0],
    [123456789.0], [1e300, 1e-300], [5e-324], [1e100], [-1e100, 1e-100, 1.0], [9.99996],
    [0.1, 0.25, -3.5], [-1.0, 10.0, -100.0], [1.0, -0.0, 3.0], [2.0**60], [2.0**60 + 0.5],
    [99999.99995], [3.0, float("nan"), -0.0], [1e-7, float("inf")], [65504.0], [1e38],
    list(np.linspace(-1, 1, 7)), [1234.5678, 0.001],
]


@pytest.mark.parametrize("values", SPECIAL_CASES, ids=str)
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32, torch.float64])
def test_special_floats(values, dtype):
    check(torch.tensor(values, dtype=torch.float64).to(dtype))
    check(torch.tensor(values[0], dtype=torch.float64).to(dtype))


@pytest.mark.parametrize("values", [
    [1 + 2j], [0j], [-0.0 - 0.0j, complex(0.0, -0.0)], [complex(-0.0, 0.0)],
    [complex(float("nan"), 1)], [complex(1, float("inf")), complex(-float("inf"), -2)],
    [1e-5 + 1j, 3 - 4j], [1e10j, 2.5], [complex(1.5, -0.25), -1j], [1 + 1e-9j],
], ids=str)
@pytest.mark.parametrize("dtype", [torch.complex64, torch.complex128])
def test_special_complex(values, dtype):
    check(torch.tensor(values, dtype=dtype))
    check(torch.tensor(values[0], dtype=dtype))


def test_integer_extremes():
    check(torch.tensor([2**63 - 1, -2**63, 0]))
    check(torch.tensor([-1, 5, -100]))
    check(torch.tensor(-7))
    check(torch.tensor([True]))
    check(torch.tensor(False))
    check(torch.tensor([True, True]))
    check(torch.from_numpy(np.array([2**64 - 1, 0], dtype=np.uint64)))


# --------------------------------------------------------------------------- options

OPTION_SETS = [
    {"precision": 2}, {"precision": 0}, {"precision": 8}, {"sci_mode": True},
    {"sci_mode": False}, {"threshold": 5}, {"threshold": 0}, {"linewidth": 30},
    {"linewidth": 5}, {"linewidth": 200}, {"edgeitems": 1}, {"edgeitems": 0},
    {"edgeitems": 1, "threshold": 3}, {"edgeitems": 0, "threshold": 3}, {"edgeitems": 10},
    {"profile": "full"}, {"profile": "short"}, {"profile": "short", "precision": 6},
    {"precision": 1, "sci_mode": True, "linewidth": 40},
]
OPTION_SAMPLES = [
    ("float32", (12,), "normal"), ("float32", (5, 7), "wide"), ("float64", (3, 4, 5), "whole"),
    ("complex64", (4, 6), "normal"), ("int64", (30,), "plain"), ("bool", (4, 9), "plain"),
    ("float16", (), "special"), ("bfloat16", (2, 3, 2), "special"), ("float32", (0,), "normal"),
    ("float64", (1200,), "normal"), ("int32", (20, 60), "extreme"),
    ("complex128", (1500,), "wide"), ("float32", (2, 3, 4, 25), "normal"),
]


@pytest.mark.parametrize("opts", OPTION_SETS, ids=str)
@pytest.mark.parametrize("sample", OPTION_SAMPLES, ids=str)
def test_printoptions_variants(opts, sample):
    both_printoptions(**opts)
    name, shape, flavor = sample
    check(make_values(name, shape, flavor, seed=7))


def test_get_and_set_printoptions_match_torch():
    from torch._tensor_str import get_printoptions as torch_get

    assert get_printoptions() == torch_get()
    for opts in OPTION_SETS + [{"profile": "default"}, {"profile": "nonsense"}]:
        both_printoptions(**opts)
        assert get_printoptions() == torch_get()
    both_printoptions(profile="full")
    assert get_printoptions()["threshold"] == math.inf
    assert list(get_printoptions()) == [
        "precision", "threshold", "edgeitems", "linewidth", "sci_mode"]


def test_printoptions_context_manager():
    before = get_printoptions()
    t = torch.tensor([1.123456, 2.5])
    with printoptions(precision=2, sci_mode=True):
        assert get_printoptions()["precision"] == 2
        with torch._tensor_str.printoptions(precision=2, sci_mode=True):
            check(t)
    assert get_printoptions() == before
    with pytest.raises(ZeroDivisionError), printoptions(precision=1):
        raise ZeroDivisionError
    assert get_printoptions() == before


def test_set_printoptions_resets_sci_mode():
    set_printoptions(sci_mode=True)
    set_printoptions(precision=3)
    assert get_printoptions()["sci_mode"] is None


# --------------------------------------------------------------------------- suffixes

@pytest.mark.parametrize("name", FLOAT_NAMES + COMPLEX_NAMES)
@pytest.mark.parametrize("shape", [(), (3,), (2, 2), (90,), (2, 40)], ids=str)
def test_requires_grad_and_grad_fn(name, shape):
    leaf = make_values(name, shape, "normal", seed=3).requires_grad_()
    check(leaf)
    check(leaf * 2)
    check(leaf.sum())
    with torch.no_grad():
        check(leaf + 1)


@pytest.mark.parametrize("name", list(TORCH_DTYPES))
@pytest.mark.parametrize("shape", [(), (0,), (2, 3), (4, 0), (5,)], ids=str)
def test_meta(name, shape):
    check(torch.empty(shape, dtype=TORCH_DTYPES[name], device="meta"))


def test_meta_with_grad():
    check(torch.empty(2, 3, device="meta", requires_grad=True))
    check(torch.empty(2, 3, device="meta", requires_grad=True) * 2)


def torch_oracle_with_device(t: torch.Tensor, device_text: str) -> str:
    """What torch prints for ``t`` on another device, assembled from torch's own
    printing helpers (this torch build has no CUDA)."""
    ts = torch._tensor_str
    suffixes = [f"device='{device_text}'"]
    if t.dtype not in (torch.get_default_dtype(), torch.complex64, torch.int64, torch.bool):
        suffixes.append(f"dtype={t.dtype}")
    if t.requires_grad:
        suffixes.append("requires_grad=True")
    return ts._add_suffixes("tensor(" + ts._tensor_str(t, 7), suffixes, 7, False)


@pytest.mark.parametrize("sample", [
    ("float32", (3,)), ("float32", (4, 5)), ("int32", (2, 2)), ("float64", ()),
    ("complex64", (8,)), ("float32", (14,)), ("float32", (3, 11)),
], ids=str)
@pytest.mark.parametrize("requires_grad", [False, True])
def test_cuda_device_suffix(sample, requires_grad):
    name, shape = sample
    t = make_values(name, shape, "normal", seed=1)
    if requires_grad:
        if name == "int32":
            return
        t.requires_grad_()
    fake = FakeTensor(t, device=FakeDevice("cuda", "cuda:0"))
    assert tensor_repr(fake, values_of(t)) == torch_oracle_with_device(t, "cuda:0")


@pytest.mark.parametrize("default", [torch.float64, torch.float16, torch.bfloat16])
def test_default_dtype_changes_suffixes(default):
    torch.set_default_dtype(default)
    sd.set_default_dtype(sd._BY_NAME[str(default).removeprefix("torch.")])
    for name in ["float16", "bfloat16", "float32", "float64", "complex64", "complex128",
                 "int64"]:
        for shape in [(3,), (0,), (2, 0)]:
            check(make_values(name, shape, "normal", seed=5))
        check(torch.empty(2, dtype=TORCH_DTYPES[name], device="meta"))


def test_prefix_and_str_alias():
    t = torch.tensor([[1.5, 2.0], [3.0, 4.0]])
    assert tensor_str is tensor_repr
    assert tensor_str(FakeTensor(t), values_of(t)) == str(t)
    got = tensor_repr(FakeTensor(t), values_of(t), prefix="MyTensor(")
    assert got == "MyTensor([[1.5000, 2.0000],\n          [3.0000, 4.0000]])"


# --------------------------------------------------------------------------- layout

@pytest.mark.parametrize("linewidth", [10, 40, 79, 80, 81, 120])
def test_suffix_wrapping(linewidth):
    both_printoptions(linewidth=linewidth)
    for n in (3, 9, 10, 11, 12, 20):
        check(torch.arange(n, dtype=torch.float16).requires_grad_() * 1.5)
        check(torch.arange(n, dtype=torch.int16))
        check(torch.ones(2, n, dtype=torch.float64).requires_grad_())


def test_summarised_huge_array_is_fast():
    # 10**8 elements through a broadcast view: nothing may walk the whole array.
    row = np.arange(10_000, dtype=np.float32) / 7
    values = np.broadcast_to(row, (10_000, 10_000))
    t = torch.from_numpy(row).expand(10_000, 10_000)
    start = time.perf_counter()
    got = tensor_repr(FakeTensor(t), values)
    assert time.perf_counter() - start < 0.5
    assert got == repr(t)


def test_summarised_dense_array():
    t = torch.from_numpy(np.random.default_rng(0).standard_normal((300, 400)).astype(np.float32))
    check(t)
    check(t.to(torch.bfloat16))
    check(t[:, :1].contiguous())
    check(t.T)


def test_non_contiguous_values():
    base = torch.arange(60.0).reshape(3, 4, 5)
    check(base.permute(2, 0, 1))
    check(base[:, ::2, 1:])
    check(base[1, :, 3])


# --------------------------------------------------------------------------- hypothesis

float_arrays = st.sampled_from(["float16", "float32", "float64"]).flatmap(
    lambda name: hnp.arrays(
        dtype=np.dtype(name),
        shape=hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=6),
        elements=st.floats(width=np.dtype(name).itemsize * 8, allow_nan=True,
                           allow_infinity=True),
    )
)


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(arr=float_arrays, precision=st.integers(0, 6),
       sci_mode=st.sampled_from([None, None, True, False]))
def test_hypothesis_floats(arr, precision, sci_mode):
    both_printoptions(precision=precision, sci_mode=sci_mode)
    check(torch.from_numpy(arr.copy()))


parts = st.floats(allow_nan=True, allow_infinity=True, width=32)


@settings(max_examples=100, deadline=None)
@given(data=st.data(), shape=hnp.array_shapes(min_dims=0, max_dims=2, max_side=5),
       linewidth=st.integers(20, 100))
def test_hypothesis_complex(data, shape, linewidth):
    real = data.draw(hnp.arrays(np.float32, shape, elements=parts))
    imag = data.draw(hnp.arrays(np.float32, shape, elements=parts))
    arr = real.astype(np.complex64)
    arr.imag = imag
    both_printoptions(linewidth=linewidth)
    check(torch.from_numpy(arr))
    check(torch.from_numpy(arr.astype(np.complex128)))


@settings(max_examples=100, deadline=None)
@given(arr=hnp.arrays(
    dtype=np.float64, shape=hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=9),
    elements=st.floats(-1e6, 1e6)),
    threshold=st.integers(0, 50), edgeitems=st.integers(0, 4))
def test_hypothesis_summarisation(arr, threshold, edgeitems):
    both_printoptions(threshold=threshold, edgeitems=edgeitems)
    check(torch.from_numpy(arr.copy()).to(torch.bfloat16))
    check(torch.from_numpy(arr.copy()))


def test_module_imports_only_allowed_modules():
    source = Path(printing.__file__).read_text()
    imports = {line.split()[1] for line in source.splitlines()
               if line.startswith(("import ", "from "))}
    assert imports <= {"__future__", "contextlib", "math", "typing", "numpy", "ml_dtypes",
                       "strided.core"}
