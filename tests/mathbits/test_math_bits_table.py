"""Conjugate and negative views through the whole operator table (issue 15).

For every ``op_db`` entry strided covers, a few sample inputs run three ways in each
library: on the plain tensors, and with every complex tensor argument replaced by a
conjugate view (``x.conj_physical().conj()``: the same values, the bit set) or every
floating / complex one by a negative view (``(-x)._neg_view()``). The view results must
equal strided's results on the plain tensors (the math bits fallback resolves exactly,
Note [The math bits fallback] in kernels/math_bits.py), and torch's results on the same
views, bits of the outputs included (view ops pass the bit on, everything else returns
resolved tensors). Where torch refuses a view (``view_as_real`` of a conjugate view),
strided must refuse it with the same exception class. Entries with an in-place variant
also run it with ``self`` a view: the values written land in the base, conjugated or
negated, as in torch.

This is torch's own ``test_conj_view`` / ``test_neg_view`` (test_ops.py), differential.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
import torch
from corpus import (
    TOLERANCES,
    compare,
    dtype_name,
    rebind,
    strided_op,
    tensors,
    to_strided_shared,
    values,
)
from torch.testing._internal.common_methods_invocations import op_db

import strided

SAMPLES = {"conj": 2, "neg": 1}     # the first samples of each entry
# entries whose samples cannot be replayed with views for a reason unrelated to the bits
SKIP = {
    "sparse.mm", "sparse.sampled_addmm", "to_sparse", "torch._scaled_mm",
    "torch._scaled_mm_v2",
    # uninitialized memory: only metadata is defined
    "empty", "empty_like", "empty_strided", "empty_permuted", "new_empty",
    "new_empty_strided",
}


# entry -> why the bits of strided's outputs still differ from torch's (values agree)
KNOWN_BITS = {
    "repeat_interleave": "with a tensor of repeats torch's result keeps the bit of self; "
                         "strided's kernel resolves it (index_select does in both)",
    "linalg.lu_solve": "torch's kernel solves with the bytes of a conjugate LU or B and "
                       "returns a conjugate view; strided returns the values resolved",
}


def _pick_dtype(o, mode):
    supported = o.supported_dtypes("cpu")
    order = (torch.complex128, torch.complex64) if mode == "conj" else (
        torch.float64, torch.complex128, torch.float32, torch.complex64)
    return next((d for d in order if d in supported), None)


def _entries():
    for o in op_db:
        if o.name in SKIP or o.name.startswith("jiterator") or "_attention_forward" in o.name:
            continue
        for mode in ("conj", "neg"):
            dtype = _pick_dtype(o, mode)
            if dtype is not None:
                name = o.name + (f".{o.variant_test_name}" if o.variant_test_name else "")
                yield pytest.param(o, mode, dtype, id=f"{name}-{mode}")


def _wants(t, mode) -> bool:
    if t.layout != torch.strided if isinstance(t, torch.Tensor) else t.layout != strided.strided:
        return False
    if mode == "conj":
        return t.is_complex()
    return t.is_floating_point() or t.is_complex()


def _as_view(t, mode):
    """A view with ``t``'s values and the bit set (torch's test_ops does the same), over a
    copy of ``t``'s whole storage conjugated / negated, with ``t``'s geometry (samples such
    as as_strided's partial views read past the tensor)."""
    t = t.detach()
    n = t.untyped_storage().nbytes() // t.element_size()
    whole = t.new_empty(0).set_(t.untyped_storage(), 0, (n,), (1,))
    whole = whole.conj_physical() if mode == "conj" else -whole
    view = whole.as_strided(tuple(t.shape), t.stride(), t.storage_offset())
    return view.conj() if mode == "conj" else view._neg_view()


def _transform(value, mode):
    if isinstance(value, (torch.Tensor, strided.Tensor)):
        return _as_view(value, mode) if _wants(value, mode) else value
    if isinstance(value, (list, tuple)):
        items = [_transform(v, mode) for v in value]
        return type(value)(*items) if hasattr(value, "_fields") else type(value)(items)
    if isinstance(value, dict):
        return {k: _transform(v, mode) for k, v in value.items()}
    return value


def _has_view(value, mode) -> bool:
    return any(_wants(t, mode) for t in tensors(value))


def _call(fn, args, kwargs, m):
    m.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def _bits(value):
    return [(t.is_conj(), t.is_neg()) for t in tensors(value)]


def _same(a, b) -> None:
    """Two strided results agree: structure, dtypes, shapes and values (within the dtype's
    tolerance: a resolved copy may be laid out otherwise than the sample's tensor)."""
    ta, tb = tensors(a), tensors(b)
    assert len(ta) == len(tb), "views against plain tensors: number of outputs"
    for k, (x, y) in enumerate(zip(ta, tb)):
        assert (tuple(x.shape), x.dtype) == (tuple(y.shape), y.dtype), ("output", k)
        rtol, atol = TOLERANCES.get(dtype_name(x.dtype), (0, 0))
        np.testing.assert_allclose(values(x), values(y), rtol=rtol, atol=atol, equal_nan=True,
                                   err_msg=f"views against plain tensors, output {k}")
    if not ta:
        assert a == b or (a != a and b != b), ("views against plain tensors", a, b)


def _check(o, fn, sample, mode):
    args_t, kwargs_t = (sample.input, *sample.args), dict(sample.kwargs)
    if not _has_view((args_t, kwargs_t), mode):
        return False
    try:
        plain_t = _call(o.op, args_t, kwargs_t, torch)
    except Exception:  # noqa: BLE001 - an error sample: nothing to compare views with
        return False
    args_s, kwargs_s = to_strided_shared((args_t, kwargs_t))
    try:
        plain_s = _call(fn, args_s, kwargs_s, strided)
        compare(plain_s, plain_t)
    except Exception:  # noqa: BLE001 - strided differs on the plain sample (test_op_db's job)
        return False
    views_t = _transform((args_t, kwargs_t), mode)
    views_s = _transform((args_s, kwargs_s), mode)
    try:
        out_t = _call(o.op, *views_t, torch)
    except Exception as e:  # noqa: BLE001 - torch refuses the view: so must strided
        with pytest.raises(type(e)):
            _call(fn, *views_s, strided)
        return True
    out_s = _call(fn, *views_s, strided)
    process = sample.output_process_fn_grad
    if getattr(process, "__code__", None) is not None:
        out_t, out_s, plain_s = process(out_t), rebind(process)(out_s), rebind(process)(plain_s)
    if o.name not in KNOWN_BITS:
        assert _bits(out_s) == _bits(out_t), "bits of the outputs"
    if _agree(lambda: compare(out_t, plain_t)):
        _same(out_s, plain_s)
        compare(out_s, out_t, "views (strided) against views (torch)")
    else:
        # torch's result on the views differs from its result on the plain tensors (its
        # max_pool1d reads a negative view's bytes; its dot of two conjugate views made by
        # as_strided): strided gives one of the two
        assert _agree(lambda: _same(out_s, plain_s)) or _agree(
            lambda: compare(out_s, out_t)), "views: neither torch's nor the plain result"
    return True


def _agree(fn) -> bool:
    try:
        fn()
    except AssertionError:
        return False
    return True


def _check_inplace(o, sample, mode):
    """``self`` a view of a copy: after the in-place op the copy holds what torch's holds."""
    inplace = o.inplace_variant
    name = getattr(inplace, "__name__", "")
    fn = getattr(strided.Tensor, name, None) if name.endswith("_") else None
    if fn is None or not isinstance(sample.input, torch.Tensor) or not _wants(sample.input,
                                                                                mode):
        return False
    args_t, kwargs_t = (sample.input, *sample.args), dict(sample.kwargs)
    args_s, kwargs_s = to_strided_shared((args_t, kwargs_t))
    results = []
    for m, f, args, kwargs in ((torch, inplace, args_t, kwargs_t),
                               (strided, fn, args_s, kwargs_s)):
        base = args[0].detach().clone()
        view = base.conj() if mode == "conj" else base._neg_view()
        # the view shows the sample's values: the base holds their conjugates / negations
        base.copy_(args[0].detach().conj_physical() if mode == "conj" else -args[0].detach())
        try:
            _call(f, (view,) + tuple(args[1:]), kwargs, m)
        except Exception as e:  # noqa: BLE001
            results.append(type(e))
            continue
        results.append((base, view, view.is_conj(), view.is_neg()))
    rt, rs = results
    if not isinstance(rt, tuple):
        assert rs is rt, f"strided: {rs}, torch raised {rt.__name__}"
        return True
    assert isinstance(rs, tuple), f"strided raised {rs}"
    compare(rs[0], rt[0], "base after the in-place op")
    compare(rs[1], rt[1], "view after the in-place op")
    assert rs[2:] == rt[2:], "bits of the view"
    return True


@pytest.mark.parametrize("o, mode, dtype", list(_entries()))
def test_views_through_the_table(o, mode, dtype):
    fn = strided_op(o)
    assert fn is not None, f"strided has no counterpart for {o.name}"
    torch.manual_seed(0)
    # the first samples only: some entries make hundreds, and making them all costs more
    # than running them
    samples = list(itertools.islice(o.sample_inputs("cpu", dtype, requires_grad=False),
                                    SAMPLES[mode]))
    for i, sample in enumerate(samples):
        try:
            _check(o, fn, sample, mode)
            _check_inplace(o, sample, mode)
        except AssertionError as e:
            raise AssertionError(f"sample {i}: {e}") from e
