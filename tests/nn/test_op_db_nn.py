"""PyTorch's operator corpus, ``op_db``, replayed against strided for every
``nn.functional`` entry.

For each entry a few of its sample inputs (spread over the list, float64 where the entry
supports it) run through torch and through strided: outputs must agree in structure,
dtype, shape and value, the first output's ``grad_fn`` must carry torch's node name, and
the gradients of every input that requires grad must agree after backpropagating the
same random cotangents. Each entry's error inputs must raise torch's exception class with
a message matching torch's pattern.

The lambdas some entries wrap their function in (``wrapper_set_seed`` for random ops,
argument reordering for embedding) are re-bound to strided, so both libraries draw from a
generator seeded alike.
"""

from __future__ import annotations

import re
import types

import pytest
import torch
from corpus import (
    backward_both,
    compare,
    compare_grads,
    grad_fn_name,
    leaf_pairs,
    sample_indices,
    to_strided,
)
from torch.testing._internal.common_methods_invocations import op_db

import strided

SAMPLES_PER_ENTRY = 4
DTYPE_PREFERENCE = (torch.float64, torch.float32, torch.complex128, torch.int64)

# (an entry with no CPU dtypes, like batch_norm's "without_cudnn" variant, has nothing to run)
ENTRIES = [o for o in op_db if o.name.startswith("nn.functional.") and o.supported_dtypes("cpu")]


def _entry_id(o) -> str:
    return o.name.removeprefix("nn.functional.") + (f".{o.variant_test_name}"
                                                    if o.variant_test_name else "")


def _dtype(o):
    supported = o.supported_dtypes("cpu")
    return next(d for d in DTYPE_PREFERENCE if d in supported)


def _samples(o, dtype):
    torch.manual_seed(0)
    grad = o.supports_autograd and (dtype.is_floating_point or dtype.is_complex)
    return list(o.sample_inputs("cpu", dtype, requires_grad=grad))


def _seeded(op, *args, **kwargs):
    """strided's ``wrapper_set_seed``: the op under a fixed seed (torch's uses 42)."""
    state = strided.get_rng_state()
    strided.manual_seed(42)
    try:
        return op(*args, **kwargs)
    finally:
        strided.set_rng_state(state)


def strided_function(o):
    """The strided callable for an op_db entry: its lambda re-bound to strided, or
    ``strided.nn.functional.<name>``."""
    fn = o.op
    if getattr(fn, "__name__", "") == "<lambda>":
        glb = dict(fn.__globals__)
        glb.update(torch=strided, wrapper_set_seed=_seeded)
        return types.FunctionType(fn.__code__, glb, fn.__name__, fn.__defaults__,
                                  fn.__closure__)
    return getattr(strided.nn.functional, o.name.removeprefix("nn.functional."))


def _cases():
    for o in ENTRIES:
        dtype = _dtype(o)
        n = len(_samples(o, dtype))
        for i in sample_indices(n, SAMPLES_PER_ENTRY):
            yield pytest.param(o, dtype, i, id=f"{_entry_id(o)}-{str(dtype)[6:]}-{i}")


def _run(fn, sample, convert):
    args = (sample.input, *sample.args)
    kwargs = sample.kwargs
    if convert:
        args, kwargs = to_strided(args), to_strided(kwargs)
    return fn(*args, **kwargs), args, kwargs


@pytest.mark.filterwarnings("ignore::UserWarning", "ignore::DeprecationWarning",
                            "ignore::FutureWarning")
@pytest.mark.parametrize("o, dtype, index", list(_cases()))
def test_sample(o, dtype, index):
    sample = _samples(o, dtype)[index]
    try:
        out_t, args_t, kwargs_t = _run(o.op, sample, convert=False)
    except Exception as e:  # noqa: BLE001 - the sample itself is an error case in torch
        with pytest.raises(type(e)):
            _run(strided_function(o), sample, convert=True)
        return
    out_s, args_s, kwargs_s = _run(strided_function(o), sample, convert=True)
    compare(out_s, out_t)
    first_t = out_t[0] if isinstance(out_t, (tuple, list)) else out_t
    first_s = out_s[0] if isinstance(out_s, (tuple, list)) else out_s
    if isinstance(first_t, torch.Tensor):
        assert grad_fn_name(first_s) == grad_fn_name(first_t)
    if o.supports_autograd and backward_both(out_s, out_t):
        compare_grads(leaf_pairs((args_s, kwargs_s), (args_t, kwargs_t)))


def _error_cases():
    for o in ENTRIES:
        if o.error_inputs_func is None:
            continue
        n = len(list(o.error_inputs("cpu")))
        for i in range(n):
            yield pytest.param(o, i, id=f"{_entry_id(o)}-{i}")


@pytest.mark.filterwarnings("ignore::UserWarning", "ignore::DeprecationWarning")
@pytest.mark.parametrize("o, index", list(_error_cases()))
def test_error_input(o, index):
    torch.manual_seed(0)
    err = list(o.error_inputs("cpu"))[index]
    sample = err.sample_input
    with pytest.raises(err.error_type) as info:
        _run(strided_function(o), sample, convert=True)
    assert re.search(err.error_regex, str(info.value)), (err.error_regex, str(info.value))


def test_every_entry_has_a_strided_function():
    missing = sorted({o.name for o in ENTRIES
                      if getattr(o.op, "__name__", "") != "<lambda>"
                      and not hasattr(strided.nn.functional,
                                      o.name.removeprefix("nn.functional."))})
    assert not missing, missing
