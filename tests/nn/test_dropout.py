"""Dropout against torch: after the same seed the masks, outputs and gradients are
bit-identical (Note [Dropout draws]); grad_fn names, errors, warnings, modules."""

from __future__ import annotations

import warnings

import pytest
import torch
from conftest import check

P = 0.3

CASES = {
    "dropout": lambda m, x: m.nn.functional.dropout(x, P),
    "dropout_p1": lambda m, x: m.nn.functional.dropout(x, 1.0),
    "dropout_eval": lambda m, x: m.nn.functional.dropout(x * 1, P, training=False),
    "dropout_inplace": lambda m, x: m.nn.functional.dropout(x * 1, P, inplace=True),
    "dropout1d": lambda m, x: m.nn.functional.dropout1d(x, P),
    "dropout1d_unbatched": lambda m, x: m.nn.functional.dropout1d(x[0], P),
    "dropout2d": lambda m, x: m.nn.functional.dropout2d(x.unsqueeze(-1), P),
    "dropout2d_inplace": lambda m, x: m.nn.functional.dropout2d(x.unsqueeze(-1) * 1, P,
                                                                inplace=True),
    "dropout3d": lambda m, x: m.nn.functional.dropout3d(x.unsqueeze(-1).unsqueeze(-1), P),
    "dropout3d_unbatched": lambda m, x: m.nn.functional.dropout3d(x.unsqueeze(-1), P),
    "alpha_dropout": lambda m, x: m.nn.functional.alpha_dropout(x, P, True),
    "alpha_dropout_inplace": lambda m, x: m.nn.functional.alpha_dropout(x * 1, P, True, True),
    "feature_alpha_dropout": lambda m, x: m.nn.functional.feature_alpha_dropout(x, P, True),
    "native_dropout": lambda m, x: m.native_dropout(x, P, True)[0],
    "native_dropout_eval": lambda m, x: m.native_dropout(x, P, False)[0],
    "native_dropout_mask": lambda m, x: m.native_dropout(x, P, True)[1] * x,
    "transposed": lambda m, x: m.nn.functional.dropout(x.transpose(0, 2), P),
}


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_same_masks_and_grads_as_torch(name, dtype):
    def recipe(m):
        m.manual_seed(5)
        x = m.randn(4, 6, 5, dtype=getattr(m, dtype), requires_grad=True)
        y = CASES[name](m, x)
        (gx,) = m.autograd.grad((y * y).sum(), x)
        return y, gx, y.grad_fn.name() if y.grad_fn else None, m.rand(2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(recipe)


def test_warnings_and_errors():
    check(lambda m: m.nn.functional.dropout2d(m.ones(2, 3, 4), 0.5))     # the 3-d warning
    check(lambda m: m.nn.functional.dropout2d(m.ones(2, 3), 0.5))        # the rank warning
    check(lambda m: m.nn.functional.dropout3d(m.ones(2, 3), 0.5))
    for fn in ("dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout",
               "feature_alpha_dropout"):
        check(lambda m, fn=fn: getattr(m.nn.functional, fn)(m.ones(2, 3, 4), 1.5))
    check(lambda m: m.nn.functional.dropout1d(m.ones(2, 3, 4, 5), 0.5))
    check(lambda m: m.dropout(m.ones(3), -0.5, True))
    check(lambda m: m.feature_dropout(m.ones(3), 0.5, True))
    check(lambda m: m.nn.Dropout(2.0))
    check(lambda m: m.dropout(m.ones(0, 3), 0.5, True))


def test_meta():
    check(lambda m: m.native_dropout(m.empty(3, 4, device="meta"), 0.5, True))
    for fn in ("dropout", "alpha_dropout", "feature_alpha_dropout", "dropout1d"):
        check(lambda m, fn=fn: getattr(m.nn.functional, fn)(m.empty(3, 4, 5, device="meta"),
                                                            0.3, True))
    check(lambda m: m.nn.functional.rrelu(m.empty(3, 4, device="meta"), training=True))


MODULES = ["Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout",
           "FeatureAlphaDropout"]


@pytest.mark.parametrize("name", MODULES)
def test_modules(name):
    def recipe(m):
        m.manual_seed(2)
        layer = getattr(m.nn, name)(0.4, name == "Dropout")
        x = m.randn(3, 4, 5, 6)
        train = layer(x * 1)
        layer.eval()
        return repr(layer), train, layer(x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(recipe)


def test_torch_is_the_oracle():
    assert torch.nn.functional.dropout(torch.ones(3), 0.0).tolist() == [1.0, 1.0, 1.0]
