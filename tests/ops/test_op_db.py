"""PyTorch's operator corpus, ``op_db``, replayed against strided: every entry.

For each entry and dtype, a few of its sample inputs (spread over the list) run through
torch and through strided. Outputs must agree in structure, dtype, shape and value; which
outputs share storage with which inputs (views, in-place results) must be the same; the
first output's ``grad_fn`` must carry torch's node name; and for the floating dtype, the
gradients of every input that requires grad must agree after backpropagating the same
random cotangents. Each entry's error inputs must raise torch's exception class with a
message matching torch's pattern.

By default each entry runs in its preferred floating dtype (with gradients) and, where it
supports one, an integer or bool dtype (forward only), ``SAMPLES`` samples each, so the
suite stays fast. ``STRIDED_OP_DB=full`` runs every sample in every supported dtype:

    STRIDED_OP_DB=full python -m pytest -q -p no:cacheprovider tests/ops/test_op_db.py

Entries strided does not cover are listed in ``NOT_COVERED`` with the reason.
"""

from __future__ import annotations

import os
import re

import pytest
import torch
from corpus import (
    backward_both,
    compare,
    compare_grads,
    compare_metadata,
    grad_fn_name,
    leaf_pairs,
    rebind,
    sample_indices,
    storage_sharing,
    strided_op,
    tensors,
    to_strided_shared,
)
from torch.testing._internal.common_methods_invocations import op_db

FULL = os.environ.get("STRIDED_OP_DB") == "full"
SAMPLES = 4

# entry name -> why strided has no counterpart
NOT_COVERED = {
    "sparse.mm": "sparse layouts are issue 16",
    "sparse.sampled_addmm": "sparse layouts are issue 16",
    "torch._scaled_mm": "float8 matrix multiply with scales: strided has no float8 dtypes",
    "torch._scaled_mm_v2": "float8 matrix multiply with scales: strided has no float8 dtypes",
    "torch.ops.aten._flash_attention_forward": "a CUDA kernel's entry point",
    "torch.ops.aten._efficient_attention_forward": "a CUDA kernel's entry point",
    **{f"jiterator_{name}": "CUDA's runtime-compiled kernels (jiterator)" for name in (
        "unary", "binary", "binary_return_by_ref", "4inputs_with_extra_args",
        "2inputs_2outputs")},
}

# entry -> (rtol, atol) where torch itself is less accurate than the dtype's tolerance:
# torch's float64 bessel_j0 / bessel_y1 are off by up to 3e-7 for x in [5, 8] (mpmath is
# the referee; strided agrees with it to rounding, tests/special/test_special_namespace.py)
TOLERANCE_OVERRIDES = {"special.bessel_j0": (1e-7, 5e-7), "special.bessel_y1": (1e-7, 5e-7)}

# outputs whose values are unspecified (uninitialized memory): only metadata compares
UNINITIALIZED = {"empty", "empty_like", "empty_strided", "empty_permuted", "new_empty",
                 "new_empty_strided"}

FLOAT_PREFERENCE = (torch.float64, torch.float32, torch.complex128, torch.complex64)
EXACT_PREFERENCE = (torch.int64, torch.int32, torch.bool, torch.uint8)
FULL_DTYPES = (torch.float64, torch.float32, torch.float16, torch.bfloat16, torch.complex128,
               torch.complex64, torch.complex32, torch.int64, torch.int32, torch.int16,
               torch.int8, torch.uint8, torch.bool)

ENTRIES = [o for o in op_db if o.supported_dtypes("cpu") and o.name not in NOT_COVERED]


def _entry_id(o) -> str:
    return o.name + (f".{o.variant_test_name}" if o.variant_test_name else "")


def _dtypes(o) -> list:
    supported = o.supported_dtypes("cpu")
    if FULL:
        return [d for d in FULL_DTYPES if d in supported]
    chosen = [next((d for d in FLOAT_PREFERENCE if d in supported), None),
              next((d for d in EXACT_PREFERENCE if d in supported), None),
              torch.complex32 if torch.complex32 in supported else None]   # (few have it)
    return [d for d in chosen if d is not None]


def _samples(o, dtype):
    torch.manual_seed(0)
    grad = o.supports_autograd and (dtype.is_floating_point or dtype.is_complex)
    return list(o.sample_inputs("cpu", dtype, requires_grad=grad))


def _describe(sample) -> str:
    """A sample in one short line: tensors as dtype[shape]."""
    def short(v):
        if isinstance(v, torch.Tensor):
            return f"{str(v.dtype)[6:]}{list(v.shape)}"
        if isinstance(v, (list, tuple)):
            return "(" + ", ".join(short(x) for x in v) + ")"
        return repr(v)[:40]
    kwargs = ", ".join(f"{k}={short(v)}" for k, v in sample.kwargs.items())
    return f"({short(sample.input)}, {short(sample.args)[1:-1]}; {kwargs})"


def _run(fn, sample, convert):
    args = (sample.input, *sample.args)
    kwargs = sample.kwargs
    if convert:
        args, kwargs = to_strided_shared((args, kwargs))
    return fn(*args, **kwargs), args, kwargs


def _check_sample(o, fn, sample, dtype) -> None:
    try:
        out_t, args_t, kwargs_t = _run(o.op, sample, convert=False)
    except Exception as e:  # noqa: BLE001 - the sample itself is an error case in torch
        with pytest.raises(type(e)):
            _run(fn, sample, convert=True)
        return
    out_s, args_s, kwargs_s = _run(fn, sample, convert=True)
    if o.name in UNINITIALIZED:
        compare_metadata(out_s, out_t)
        return
    process = sample.output_process_fn_grad     # e.g. eigenvectors up to sign: abs()
    if getattr(process, "__code__", None) is not None:
        out_t, out_s = process(out_t), rebind(process)(out_s)
    compare(out_s, out_t, tol=TOLERANCE_OVERRIDES.get(o.name))
    assert storage_sharing(out_s, (args_s, kwargs_s)) == storage_sharing(
        out_t, (args_t, kwargs_t)), "outputs alias other inputs than torch's"
    first_t, first_s = tensors(out_t)[:1], tensors(out_s)[:1]
    if first_t and first_s:
        assert grad_fn_name(first_s[0]) == grad_fn_name(first_t[0])
    if o.supports_autograd and dtype in FLOAT_PREFERENCE:
        pairs = leaf_pairs((args_s, kwargs_s), (args_t, kwargs_t))
        for _, leaf_t in pairs:        # samples may share a leaf: start from no gradient
            leaf_t.grad = None
        if backward_both(out_s, out_t):
            compare_grads(pairs)


# (entry id, dtype) -> why strided still differs; strict: a fixed one fails until removed
KNOWN_DIFFERENCES = {
    **{(name, torch.uint8): "uint8 bilinear/bicubic/antialiased interpolation raises (torch "
       "has a fixed-point path; README, Differences from torch)" for name in (
           "nn.functional.interpolate.bilinear", "nn.functional.interpolate.bicubic",
           "nn.functional.upsample_bilinear", "_upsample_bilinear2d_aa")},
}


def _sample_params():
    for o in ENTRIES:
        for d in _dtypes(o):
            why = KNOWN_DIFFERENCES.get((_entry_id(o), d))
            marks = [pytest.mark.xfail(strict=True, reason=why)] if why else []
            yield pytest.param(o, d, id=f"{_entry_id(o)}-{str(d)[6:]}", marks=marks)


@pytest.mark.filterwarnings("ignore::UserWarning", "ignore::DeprecationWarning",
                            "ignore::FutureWarning", "ignore::RuntimeWarning")
@pytest.mark.parametrize("o, dtype", list(_sample_params()))
def test_samples(o, dtype):
    """A few samples spread over the entry's list (every sample under ``full``)."""
    fn = strided_op(o)
    assert fn is not None, f"strided has no counterpart for {o.name}"
    samples = _samples(o, dtype)
    chosen = range(len(samples)) if FULL else sample_indices(len(samples), SAMPLES)
    for i in chosen:
        try:
            _check_sample(o, fn, samples[i], dtype)
        except AssertionError as e:
            raise AssertionError(f"sample {i} of {len(samples)} "
                                 f"{_describe(samples[i])}: {e}") from e


@pytest.mark.filterwarnings("ignore::UserWarning", "ignore::DeprecationWarning")
@pytest.mark.parametrize("o", [pytest.param(o, id=_entry_id(o)) for o in ENTRIES
                               if o.error_inputs_func is not None])
def test_error_inputs(o):
    """Every error input raises torch's exception class with a message torch's pattern
    matches."""
    fn = strided_op(o)
    assert fn is not None, f"strided has no counterpart for {o.name}"
    for i in range(len(list(o.error_inputs("cpu")))):
        torch.manual_seed(0)      # a fresh list each time: torch's calls mutate shared inputs
        err = list(o.error_inputs("cpu"))[i]
        sample = err.sample_input
        args_s, kwargs_s = to_strided_shared(((sample.input, *sample.args), sample.kwargs))
        try:                  # (some entries list inputs torch's eager mode accepts)
            out_t = o.op(sample.input, *sample.args, **sample.kwargs)
        except Exception:  # noqa: BLE001 - the expected case
            pass
        else:
            compare(fn(*args_s, **kwargs_s), out_t, f"error input {i} torch accepts")
            continue
        with pytest.raises(err.error_type) as info:
            fn(*args_s, **kwargs_s)
        assert re.search(err.error_regex, str(info.value)), (
            i, err.error_regex, str(info.value))


def test_every_entry_has_a_strided_counterpart():
    missing = sorted({o.name for o in ENTRIES if strided_op(o) is None})
    assert not missing, missing


def test_not_covered_entries_exist_in_op_db():
    """The exemption lists name real entries (so they cannot hide a typo)."""
    names = {o.name for o in op_db}
    assert set(NOT_COVERED) <= names, set(NOT_COVERED) - names
    ids = {(_entry_id(o), d) for o in ENTRIES for d in _dtypes(o)}
    assert set(KNOWN_DIFFERENCES) <= ids, set(KNOWN_DIFFERENCES) - ids
