"""Shared helpers for the differential tests: torch is the oracle.

The usual shape of a test is one recipe written against a module ``m`` and run
twice, once with ``m = strided`` and once with ``m = torch``::

    check(lambda m: m.zeros(2, 3, dtype=m.float64).t())

``check`` compares the results (tensors: type, shape, strides, storage offset,
dtype, device type and values; scalars: type and value; tuples element-wise) or,
when torch raises, that strided raises the same exception type with the same
message.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, settings

import strided


def hyp(max_examples: int = 30):
    """hypothesis settings for these tests: no deadline, deterministic, modest size."""
    return settings(deadline=None, max_examples=max_examples, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow,
                                           HealthCheck.function_scoped_fixture])


DTYPE_NAMES = [
    "bool", "uint8", "int8", "int16", "int32", "int64", "uint16", "uint32", "uint64",
    "float16", "bfloat16", "float32", "float64", "complex64", "complex128",
]
# The dtypes every factory and kernel must support (the unsigned "barebones" types
# uint16/32/64 have few kernels in torch).
CORE_DTYPE_NAMES = [n for n in DTYPE_NAMES if n not in ("uint16", "uint32", "uint64")]
FLOAT_NAMES = ["float16", "bfloat16", "float32", "float64"]
INT_NAMES = ["uint8", "int8", "int16", "int32", "int64"]


def sdt(name: str):
    return getattr(strided, name)


def tdt(name: str):
    return getattr(torch, name)


def dtype_name(d) -> str:
    """``torch.float32`` -> ``"float32"`` for either library's dtype objects."""
    return str(d).removeprefix("torch.")


# --------------------------------------------------------------------------- values

def _torch_values(t: torch.Tensor) -> np.ndarray:
    t = t.detach()
    if t.dtype == torch.bfloat16:
        t = t.float()
    elif t.dtype == torch.complex32:    # (no NumPy type: its float16 pairs)
        t = torch.view_as_real(t.resolve_conj().resolve_neg())
    return t.numpy()


def _strided_values(s) -> np.ndarray:
    # The private NumPy view is used on purpose: the helper must not depend on the
    # conversions (numpy(), to(), tolist()) that the tests themselves exercise.
    arr = s._array()
    if s.dtype is strided.bfloat16:
        arr = arr.astype(np.float32)
    elif s.dtype is strided.complex32:   # its float16 pairs, as _torch_values gives them
        arr = np.stack([arr["real"], arr["imag"]], -1)
    return arr


def assert_values_equal(actual: np.ndarray, expected: np.ndarray, *, exact: bool = True) -> None:
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    if exact:
        np.testing.assert_array_equal(actual, expected, strict=True)
    else:
        np.testing.assert_allclose(actual, expected, rtol=1e-6, atol=0, equal_nan=True,
                                   strict=True)


def assert_same(s, t, *, exact: bool = True, values: bool = True) -> None:
    """``s`` (a strided tensor) matches ``t`` (a torch tensor) in every observable way."""
    assert isinstance(t, torch.Tensor), type(t)
    assert isinstance(s, strided.Tensor), f"expected a strided.Tensor, got {type(s)}"
    assert tuple(s.shape) == tuple(t.shape), (s.shape, t.shape)
    assert type(s.shape) is strided.Size
    assert tuple(s.stride()) == tuple(t.stride()), (s.stride(), t.stride())
    assert s.storage_offset() == t.storage_offset(), (s.storage_offset(), t.storage_offset())
    assert dtype_name(s.dtype) == dtype_name(t.dtype), (s.dtype, t.dtype)
    assert s.device.type == t.device.type, (s.device, t.device)
    assert s.requires_grad == t.requires_grad
    assert (s.is_conj(), s.is_neg()) == (t.is_conj(), t.is_neg()), "conjugate / negative bits"
    if values and t.device.type != "meta":
        if t.is_conj() or t.is_neg():      # compare the values the bits stand for
            s, t = s.resolve_conj().resolve_neg(), t.resolve_conj().resolve_neg()
        assert_values_equal(_strided_values(s), _torch_values(t), exact=exact)


def assert_same_scalar(a, b) -> None:
    """Python scalars: same type, same value (NaN equal to NaN, signed zeros distinct)."""
    assert type(a) is type(b), (type(a), type(b), a, b)
    if isinstance(a, float):
        assert (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) ==
                                                     math.copysign(1, b)), (a, b)
    elif isinstance(a, complex):
        assert_same_scalar(a.real, b.real)
        assert_same_scalar(a.imag, b.imag)
    else:
        assert a == b, (a, b)


def assert_same_result(rs, rt, *, exact: bool = True) -> None:
    """Compare any result: tensors, Size, dtypes, devices, scalars, nested tuples/lists."""
    if isinstance(rt, torch.Tensor):
        assert_same(rs, rt, exact=exact)
    elif isinstance(rt, torch.Size):
        assert type(rs) is strided.Size and tuple(rs) == tuple(rt), (rs, rt)
    elif isinstance(rt, torch.dtype):
        assert isinstance(rs, strided.dtype) and dtype_name(rs) == dtype_name(rt), (rs, rt)
    elif isinstance(rt, torch.device):
        assert isinstance(rs, strided.device) and str(rs) == str(rt), (rs, rt)
    elif isinstance(rt, (list, tuple)):
        assert type(rs) is type(rt), (type(rs), type(rt))
        assert len(rs) == len(rt), (rs, rt)
        for a, b in zip(rs, rt):
            assert_same_result(a, b, exact=exact)
    elif isinstance(rt, np.ndarray):
        assert isinstance(rs, np.ndarray)
        assert rs.dtype == rt.dtype and rs.strides == rt.strides
        assert_values_equal(rs, rt)
    else:
        assert_same_scalar(rs, rt)


# --------------------------------------------------------------------------- errors

def _run(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            return fn(), None, caught
        except Exception as e:  # noqa: BLE001 - any exception is compared
            return None, e, caught


def assert_same_error(fn_strided, fn_torch, *, first_line: bool = False) -> None:
    """Both calls raise; the exception types are the same and so are the messages.

    ``first_line=True`` compares only the first line of the message: used for torch's
    multi-overload TypeErrors whose overload list names overloads strided does not have.
    """
    _, et, _ = _run(fn_torch)
    assert et is not None, "torch did not raise: fix the test"
    _, es, _ = _run(fn_strided)
    assert es is not None, f"strided did not raise; torch raised {type(et).__name__}: {et}"
    assert type(es) is type(et), (
        f"exception type differs: strided {type(es).__name__}: {es}\n"
        f"torch {type(et).__name__}: {et}")
    ms, mt = str(es), str(et)
    if first_line:
        ms, mt = ms.split("\n")[0], mt.split("\n")[0]
    assert ms == mt, f"message differs:\nstrided: {ms!r}\ntorch:   {mt!r}"


def check(recipe, *, exact: bool = True, first_line: bool = False, warns: bool = True):
    """Run ``recipe(strided)`` and ``recipe(torch)`` and compare results or errors.

    With ``warns=True`` the warning categories and messages must match too.
    Returns the pair of results.
    """
    rt, et, wt = _run(lambda: recipe(torch))
    rs, es, ws = _run(lambda: recipe(strided))
    if et is not None:
        assert es is not None, (
            f"strided did not raise; torch raised {type(et).__name__}: {et}; strided "
            f"returned {rs!r}")
        assert type(es) is type(et), (
            f"exception type differs: strided {type(es).__name__}: {es}\n"
            f"torch {type(et).__name__}: {et}")
        ms, mt = str(es), str(et)
        if first_line:
            ms, mt = ms.split("\n")[0], mt.split("\n")[0]
        assert ms == mt, f"message differs:\nstrided: {ms!r}\ntorch:   {mt!r}"
        return None, None
    if es is not None:
        raise AssertionError(f"strided raised but torch did not: {type(es).__name__}: {es}") \
            from es
    assert_same_result(rs, rt, exact=exact)
    if warns:
        assert_same_warnings(ws, wt)
    return rs, rt


# torch raises these with TORCH_WARN_ONCE: only the first time in a process, so whether the
# oracle shows them depends on test order. They are left out of the comparison; the tests
# check that strided emits them with pytest.warns.
ONCE_PER_PROCESS = (
    "Casting complex values to real discards the imaginary part",
    "Creating a tensor from a list of numpy.ndarrays is extremely slow",
    "The given NumPy array is not writable",
    "Sparse CSR tensor support is in beta state",
    "Sparse invariant checks are implicitly disabled",
    "ComplexHalf support is experimental",
)


def _warning_key(w):
    text = str(w.message)
    # torch's C++ warnings carry a source location suffix: "... (Triggered internally at ...)"
    text = text.split(" (Triggered internally at")[0]
    return (w.category.__name__, text)


def assert_same_warnings(ws, wt) -> None:
    def keys(warns):
        return sorted({k for k in map(_warning_key, warns)
                       if not k[1].startswith(ONCE_PER_PROCESS)})
    ks, kt = keys(ws), keys(wt)
    assert ks == kt, f"warnings differ:\nstrided: {ks}\ntorch:   {kt}"


@pytest.fixture
def default_dtype():
    """Yields a setter for the default dtype of both libraries; restores float32 after."""
    def set_both(name):
        strided.set_default_dtype(sdt(name))
        torch.set_default_dtype(tdt(name))
    yield set_both
    strided.set_default_dtype(strided.float32)
    torch.set_default_dtype(torch.float32)


@pytest.fixture(autouse=True)
def _nn_tests_start_from_one_seed(request):
    """Layers draw their parameters from the default generators: each torch.nn test starts
    both libraries from the same seed, so that a test that builds a layer without seeding
    compares like with like whatever ran before it."""
    if request.node.path.parent.name == "nn":
        strided.manual_seed(0)
        torch.manual_seed(0)
