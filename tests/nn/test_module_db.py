"""PyTorch's module corpus, ``module_db``, replayed against strided.

For each module of the corpus that strided implements, a few of its inputs (float64
where supported; in training mode, and in eval mode too where the two differ):

- construction after ``manual_seed(0)`` gives the same parameter and buffer names, in
  torch's order, with bit-identical values, and the same ``repr``;
- the forward output (under a common seed, for the random modules) agrees in structure,
  dtype, shape and value, and its ``grad_fn`` carries torch's node name;
- backpropagating the same cotangents gives the same input and parameter gradients, and
  buffers (running statistics) end up equal;
- the corpus's error inputs raise torch's exception class with a matching message, at
  construction or at forward as the corpus says.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
import torch
from corpus import (
    backward_both,
    compare,
    compare_grads,
    grad_fn_name,
    leaf_pairs,
    sample_indices,
    strided_dtype,
    to_strided,
    values,
)
from torch.testing._internal.common_modules import ModuleErrorEnum, module_db

import strided

SAMPLES_PER_MODE = 3

ENTRIES = list(module_db)      # every module of the corpus


def _dtype(m):
    return torch.float64 if torch.float64 in m.dtypes else torch.float32


def _inputs(m, training):
    torch.manual_seed(0)
    return m.module_inputs_func(m, device="cpu", dtype=_dtype(m), requires_grad=True,
                                training=training)


def _cases():
    for m in ENTRIES:
        modes = (True, False) if m.train_and_eval_differ else (True,)
        for training in modes:
            n = len(_inputs(m, training))
            for i in sample_indices(n, SAMPLES_PER_MODE):
                mode = "train" if training else "eval"
                yield pytest.param(m, training, i, id=f"{m.module_cls.__name__}-{mode}-{i}")


def strided_class(m):
    return getattr(strided.nn, m.module_cls.__name__)


def _construct(m, module_input):
    c = module_input.constructor_input
    dtype = _dtype(m)
    torch.manual_seed(0)
    mt = m.module_cls(*c.args, **c.kwargs).to(dtype)    # as torch's own module tests do
    strided.manual_seed(0)
    ms = strided_class(m)(*to_strided(c.args), **to_strided(c.kwargs)).to(strided_dtype(dtype))
    return ms, mt


def _assert_same_state(ms, mt, what):
    names_t = [n for n, _ in mt.named_parameters()] + [n for n, _ in mt.named_buffers()]
    names_s = [n for n, _ in ms.named_parameters()] + [n for n, _ in ms.named_buffers()]
    assert names_s == names_t, (what, names_s, names_t)
    for (name, ps), (_, pt) in zip(list(ms.named_parameters()) + list(ms.named_buffers()),
                                   list(mt.named_parameters()) + list(mt.named_buffers())):
        if isinstance(pt, torch.nn.parameter.UninitializedTensorMixin):
            continue
        assert tuple(ps.shape) == tuple(pt.shape), (what, name)
        np.testing.assert_array_equal(values(ps), values(pt), err_msg=f"{what}: {name}")


@pytest.mark.filterwarnings("ignore::UserWarning", "ignore::DeprecationWarning",
                            "ignore::FutureWarning")
@pytest.mark.parametrize("m, training, index", list(_cases()))
def test_module_input(m, training, index):
    module_input = _inputs(m, training)[index]
    ms, mt = _construct(m, module_input)
    mt.train(training)
    ms.train(training)
    _assert_same_state(ms, mt, "after construction")
    assert repr(ms) == repr(mt)

    f = module_input.forward_input
    args_s, kwargs_s = to_strided(f.args), to_strided(f.kwargs)
    torch.manual_seed(1)
    out_t = mt(*f.args, **f.kwargs)
    strided.manual_seed(1)
    out_s = ms(*args_s, **kwargs_s)
    compare(out_s, out_t)
    if m.is_lazy:   # the first forward materialised the parameters: drawn alike?
        for (name, ps), (_, pt) in zip(ms.named_parameters(), mt.named_parameters()):
            np.testing.assert_array_equal(values(ps), values(pt), err_msg=name)
    first_t = out_t[0] if isinstance(out_t, (tuple, list)) else out_t
    first_s = out_s[0] if isinstance(out_s, (tuple, list)) else out_s
    if isinstance(first_t, torch.Tensor):
        assert grad_fn_name(first_s) == grad_fn_name(first_t)

    if backward_both(out_s, out_t):
        pairs = leaf_pairs((args_s, kwargs_s), (f.args, f.kwargs))
        pairs += [(ps, pt) for (_, ps), (_, pt) in zip(ms.named_parameters(),
                                                       mt.named_parameters())]
        compare_grads(pairs)
    for (name, bs), (_, bt) in zip(ms.named_buffers(), mt.named_buffers()):
        compare(bs, bt, f"buffer {name} after forward")


def _error_cases():
    for m in ENTRIES:
        if m.module_error_inputs_func is None:
            continue
        errors = m.module_error_inputs_func(m, device="cpu", dtype=_dtype(m),
                                            requires_grad=False, training=True)
        for i in range(len(errors)):
            yield pytest.param(m, i, id=f"{m.module_cls.__name__}-{i}")


@pytest.mark.filterwarnings("ignore::UserWarning", "ignore::DeprecationWarning")
@pytest.mark.parametrize("m, index", list(_error_cases()))
def test_module_error_input(m, index):
    torch.manual_seed(0)
    err = m.module_error_inputs_func(m, device="cpu", dtype=_dtype(m), requires_grad=False,
                                     training=True)[index]
    module_input = err.module_error_input
    c, f = module_input.constructor_input, module_input.forward_input
    cls = strided_class(m)
    if err.error_on == ModuleErrorEnum.CONSTRUCTION_ERROR:
        with pytest.raises(err.error_type) as info:
            cls(*to_strided(c.args), **to_strided(c.kwargs))
    else:
        ms = cls(*to_strided(c.args), **to_strided(c.kwargs))     # (uncast, as torch's test)
        with pytest.raises(err.error_type) as info:
            ms(*to_strided(f.args), **to_strided(f.kwargs))
    assert re.search(err.error_regex, str(info.value)), (err.error_regex, str(info.value))


def test_every_module_exists():
    missing = sorted(m.module_cls.__name__ for m in ENTRIES
                     if not hasattr(strided.nn, m.module_cls.__name__))
    assert not missing, missing
