"""torch.nn's normalization against torch: batch / layer / group / instance / RMS norm,
local response norm and F.normalize. Values and gradients (float64, tight), gradcheck and
gradgradcheck, grad_fn names, running statistics over several training steps and the
eval-mode outputs after them, the native ops' saved statistics (shapes, dtypes, mixed
reduced-precision inputs), meta shapes, output layouts, torch's error messages, module
construction / repr / state_dict / versioned loading, the Lazy and Sync forms, and
hypothesis-drawn shapes including non-contiguous inputs."""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
import torch
from conftest import assert_same_error, check, hyp
from hypothesis import given
from hypothesis import strategies as st

import strided

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "autograd"))
from grad_harness import check_grads, gradcheck_strided  # noqa: E402

RNG = np.random.default_rng(7)


def _t(m, arr, grad=False):
    return m.tensor(arr, requires_grad=grad)


def _vals(*shapes, scale=1.0, shift=0.0):
    return [RNG.standard_normal(s) * scale + shift for s in shapes]


def _np(t):
    t = t.detach()
    if isinstance(t, torch.Tensor):
        return (t.float() if t.dtype == torch.bfloat16 else t).numpy()
    return t._array().astype(np.float64) if t.dtype is strided.bfloat16 else t.numpy()


def _close(a, b, rtol=1e-9, atol=1e-10, what=""):
    assert tuple(a.shape) == tuple(b.shape), (what, a.shape, b.shape)
    assert str(a.dtype) == str(b.dtype), (what, a.dtype, b.dtype)
    np.testing.assert_allclose(_np(a), _np(b), rtol=rtol, atol=atol, err_msg=what)


# -- functional values, gradients and node names ---------------------------------------------

def _f(m):
    return m.nn.functional


FUNCTIONAL = {
    "bn_train": (lambda m, x, w, b: _f(m).batch_norm(x, None, None, w, b, True),
                 [(4, 3, 5), (3,), (3,)]),
    "bn_train_2d": (lambda m, x, w, b: _f(m).batch_norm(x, None, None, w, b, True, 0.3, 1e-3),
                    [(6, 3), (3,), (3,)]),
    "bn_train_4d_stats": (lambda m, x, w, b: _f(m).batch_norm(
        x, m.zeros(3, dtype=m.float64), m.ones(3, dtype=m.float64), w, b, True),
        [(2, 3, 4, 2), (3,), (3,)]),
    "bn_eval": (lambda m, x, w, b: _f(m).batch_norm(
        x, m.tensor([0.1, -0.2, 0.3], dtype=x.dtype),
        m.tensor([0.5, 1.5, 2.0], dtype=x.dtype), w, b), [(4, 3, 5), (3,), (3,)]),
    "bn_eval_no_affine": (lambda m, x: _f(m).batch_norm(
        x, m.tensor([0.1, -0.2, 0.3], dtype=m.float64),
        m.tensor([0.5, 1.5, 2.0], dtype=m.float64)), [(4, 3, 2, 2)]),
    "bn_5d": (lambda m, x, w: _f(m).batch_norm(x, None, None, w, None, True),
              [(2, 2, 3, 2, 2), (2,)]),
    "ln": (lambda m, x, w, b: _f(m).layer_norm(x, (5,), w, b), [(4, 3, 5), (5,), (5,)]),
    "ln_2d_shape": (lambda m, x, w, b: _f(m).layer_norm(x, [3, 5], w, b, 1e-3),
                    [(4, 3, 5), (3, 5), (3, 5)]),
    "ln_no_affine": (lambda m, x: _f(m).layer_norm(x, (4,)), [(2, 3, 4)]),
    "ln_weight_only": (lambda m, x, w: _f(m).layer_norm(x, (4,), w), [(6, 4), (4,)]),
    "ln_whole": (lambda m, x, w: _f(m).layer_norm(x, (2, 3, 4), w), [(2, 3, 4), (2, 3, 4)]),
    "gn": (lambda m, x, w, b: _f(m).group_norm(x, 2, w, b), [(3, 6, 5), (6,), (6,)]),
    "gn_4d": (lambda m, x, w, b: _f(m).group_norm(x, 3, w, b, 1e-3), [(2, 6, 3, 2), (6,),
                                                                     (6,)]),
    "gn_2d": (lambda m, x: _f(m).group_norm(x, 2), [(3, 4)]),
    "gn_groups_eq_c": (lambda m, x, w: _f(m).group_norm(x, 4, w), [(2, 4, 3), (4,)]),
    "in": (lambda m, x, w, b: _f(m).instance_norm(x, None, None, w, b), [(3, 4, 5), (4,),
                                                                        (4,)]),
    "in_stats": (lambda m, x: _f(m).instance_norm(x, m.zeros(4, dtype=m.float64),
                                                  m.ones(4, dtype=m.float64)), [(3, 4, 5)]),
    "in_eval_stats": (lambda m, x, w: _f(m).instance_norm(
        x, m.linspace(-1, 1, 4, dtype=m.float64), m.linspace(1, 2, 4, dtype=m.float64), w,
        None, False), [(3, 4, 5), (4,)]),
    "in_4d": (lambda m, x: _f(m).instance_norm(x), [(2, 3, 2, 3)]),
    "rms": (lambda m, x, w: _f(m).rms_norm(x, (5,), w), [(4, 3, 5), (5,)]),
    "rms_eps": (lambda m, x: _f(m).rms_norm(x, [3, 5], None, 1e-3), [(4, 3, 5)]),
    "fused_rms": (lambda m, x, w: m._fused_rms_norm(x, [5], w, None), [(2, 5), (5,)]),
    "lrn_3d": (lambda m, x: _f(m).local_response_norm(x, 3), [(2, 5, 4)]),
    "lrn_4d": (lambda m, x: _f(m).local_response_norm(x, 2, 0.1, 0.6, 2.0), [(2, 5, 3, 2)]),
    "lrn_5d": (lambda m, x: _f(m).local_response_norm(x, 4, 0.2), [(1, 5, 2, 2, 2)]),
    "normalize": (lambda m, x: _f(m).normalize(x), [(3, 4, 2)]),
    "normalize_p1": (lambda m, x: _f(m).normalize(x, 1.0, 0), [(3, 4)]),
    "normalize_inf": (lambda m, x: _f(m).normalize(x, float("inf"), -1), [(3, 4)]),
}


@pytest.mark.parametrize("name", sorted(FUNCTIONAL))
def test_functional_values_and_grads(name):
    program, shapes = FUNCTIONAL[name]
    check_grads(program, shapes, rtol=1e-9, atol=1e-10)


@pytest.mark.parametrize("name", sorted(FUNCTIONAL))
def test_grad_fn_names(name):
    program, shapes = FUNCTIONAL[name]
    values = _vals(*shapes)
    names = []
    for m in (strided, torch):
        out = program(m, *[_t(m, v, True) for v in values])
        out = out[0] if isinstance(out, tuple) else out
        fn = out.grad_fn
        names.append((fn.name(), [f.name() if f is not None else None
                                  for f, _ in fn.next_functions]))
    assert names[0] == names[1]


# smaller shapes than FUNCTIONAL's: gradgradcheck perturbs every element of every input
GRADCHECK = {
    "bn_train": [(3, 2, 2), (2,), (2,)], "bn_eval": [(2, 3, 2), (3,), (3,)],
    "ln": [(2, 5), (5,), (5,)], "ln_2d_shape": [(2, 3, 5), (3, 5), (3, 5)],
    "gn": [(2, 4, 2), (4,), (4,)], "gn_4d": [(1, 6, 2, 1), (6,), (6,)],
    "in": [(2, 2, 3), (2,), (2,)], "in_eval_stats": [(2, 4, 2), (4,)],
    "rms": [(2, 5), (5,)], "lrn_3d": [(1, 5, 2)], "normalize": [(2, 3, 2)],
}


@pytest.mark.parametrize("name", sorted(GRADCHECK))
def test_gradcheck_and_gradgradcheck(name):
    program, _ = FUNCTIONAL[name]
    gradcheck_strided(program, GRADCHECK[name], second=True)


@pytest.mark.parametrize("name", ["bn_train", "ln", "gn", "in"])
def test_double_backward_matches_torch(name):
    program, shapes = FUNCTIONAL[name]
    values = _vals(*shapes)
    results = []
    for m in (strided, torch):
        leaves = [_t(m, v, True) for v in values]
        out = program(m, *leaves)
        grads = m.autograd.grad((out * out.detach().cos()).sum(), leaves, create_graph=True)
        total = sum((g * g).sum() for g in grads)
        results.append(m.autograd.grad(total, leaves, allow_unused=True))
    for a, b in zip(*results):
        if b is None:       # the bias: its gradient does not depend on it
            assert a is None
        else:
            _close(a, b, rtol=1e-8, atol=1e-9)


def test_group_norm_gradient_through_mean_and_rstd():
    values = _vals((2, 6, 3), (6,), (6,))

    def program(m, x, w, b):
        out, mean, rstd = m.native_group_norm(x, w, b, 2, 6, 3, 3, 1e-5)
        return (out * 2).sum() + (mean * 3).sum() + (rstd * rstd).sum()
    check_grads(program, [v.shape for v in values], values=values)


@pytest.mark.parametrize("op", ["batch", "layer", "group"])
def test_backward_operators_differentiate(op):
    """The *_backward operators called directly have derivatives of their own (double
    backward through the statistics recomputed from the input)."""
    aten = strided.ops.aten

    def program(m, g, x, w):
        if op == "batch":
            _, mean, invstd = m.native_batch_norm(x, w, None, None, None, True, 0.1, 1e-5)
            return aten.native_batch_norm_backward(g, x, w, None, None, mean.detach(),
                                                   invstd.detach(), True, 1e-5,
                                                   [True, True, True])
        if op == "layer":
            _, mean, rstd = m.native_layer_norm(x, [3], w, None, 1e-5)
            return aten.native_layer_norm_backward(g, x, [3], mean.detach(), rstd.detach(), w,
                                                   None, [True, True, True])
        _, mean, rstd = m.native_group_norm(x, w, None, 4, 3, 3, 3, 1e-5)
        return aten.native_group_norm_backward(g, x, mean.detach(), rstd.detach(), w, 4, 3, 3,
                                               3, [True, True, True])
    gradcheck_strided(program, [(4, 3, 3), (4, 3, 3), (3,)])


# -- float32 and reduced precision -----------------------------------------------------------

@pytest.mark.parametrize("name", ["bn_train", "bn_eval", "ln", "gn", "in", "rms"])
def test_float32_close_to_torch(name):
    program, shapes = FUNCTIONAL[name]
    values = [v.astype(np.float32) for v in _vals(*shapes, scale=3.0, shift=1.0)]
    outs = []
    for m in (strided, torch):
        leaves = [_t(m, v, True) for v in values]
        out = program(m, *leaves)
        out.backward(m.tensor(np.cos(np.arange(out.numel())).reshape(tuple(out.shape)),
                              dtype=m.float32))
        outs.append([out] + [leaf.grad for leaf in leaves])
    for a, b in zip(*outs):
        _close(a, b, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("mixed", [False, True])
def test_native_ops_reduced_precision(dtype, mixed):
    """Statistics keep the input's dtype, except a reduced-precision input with float32
    parameters: then they are float32 (torch's CPU mixed-type mode)."""
    x = RNG.standard_normal((4, 6, 5))

    def native(m):
        d = getattr(m, dtype)
        pd = m.float32 if mixed else d
        xs = m.tensor(x, dtype=d)
        w = m.ones(6, dtype=pd) * 1.5
        b = m.zeros(6, dtype=pd) + 0.25
        rm, rv = m.zeros(6, dtype=pd), m.ones(6, dtype=pd)
        bn = m.native_batch_norm(xs, w, b, rm, rv, True, 0.1, 1e-5)
        ln = m.native_layer_norm(xs, [5], m.ones(5, dtype=pd), None, 1e-5)
        gn = m.native_group_norm(xs, w, b, 4, 6, 5, 3, 1e-5)
        return [*bn, rm, rv, *ln, *gn]
    for a, b in zip(native(strided), native(torch)):
        _close(a, b, rtol=2e-2, atol=2e-2)


def test_rms_norm_reduced_precision_and_warning():
    x = RNG.standard_normal((3, 4))

    def program(m):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = m.nn.functional.rms_norm(m.tensor(x, dtype=m.float16), [4], m.ones(4))
        texts = [str(w.message).split(" (Triggered")[0] for w in caught]
        return out, texts
    (os_, ws), (ot, wt) = program(strided), program(torch)
    _close(os_, ot, rtol=1e-3, atol=1e-3)
    assert ws == wt and len(wt) == 1


# -- running statistics ----------------------------------------------------------------------

@pytest.mark.parametrize("momentum", [0.1, None, 0.5])
@pytest.mark.parametrize("cls, shape", [("BatchNorm1d", (5, 3)), ("BatchNorm1d", (4, 3, 6)),
                                        ("BatchNorm2d", (3, 3, 4, 2)),
                                        ("BatchNorm3d", (2, 3, 2, 2, 3))])
def test_batchnorm_running_stats_then_eval(cls, shape, momentum):
    data = [RNG.standard_normal(shape) * (i + 1) + i for i in range(4)]
    grad = RNG.standard_normal(shape)

    def run(m):
        layer = getattr(m.nn, cls)(3, momentum=momentum, dtype=m.float64)
        outs = []
        for d in data:
            x = _t(m, d, True)
            y = layer(x)
            y.backward(m.tensor(grad))
            outs += [y, x.grad]
        layer.eval()
        x = _t(m, data[0] * 0.5, True)
        y = layer(x)
        y.sum().backward()
        outs += [y, x.grad, layer.running_mean, layer.running_var, layer.weight.grad,
                 layer.bias.grad]
        assert layer.num_batches_tracked.dtype == m.int64
        return outs, int(layer.num_batches_tracked)
    (os_, ns), (ot, nt) = run(strided), run(torch)
    assert ns == nt == 4
    for i, (a, b) in enumerate(zip(os_, ot)):
        _close(a, b, rtol=1e-9, atol=1e-10, what=str(i))


@pytest.mark.parametrize("affine, track", [(False, False), (True, False), (False, True),
                                           (True, True)])
def test_batchnorm_affine_and_tracking_modes(affine, track):
    data = RNG.standard_normal((4, 3, 5))

    def run(m):
        layer = m.nn.BatchNorm1d(3, affine=affine, track_running_stats=track).double()
        out = [layer(_t(m, data)), layer(_t(m, data * 2))]
        layer.eval()
        out.append(layer(_t(m, data)))
        bufs = [b for _, b in layer.named_buffers()]
        return out + bufs, [n for n, _ in layer.named_parameters()]
    (os_, ps), (ot, pt) = run(strided), run(torch)
    assert ps == pt
    assert len(os_) == len(ot)
    for a, b in zip(os_, ot):
        _close(a, b)


def test_running_stats_updated_in_place_without_version_bump():
    for m in (strided, torch):
        layer = m.nn.BatchNorm1d(3)
        rm = layer.running_mean
        before = rm._version
        layer(m.randn(4, 3))
        assert layer.running_mean is rm and rm._version == before
        assert layer.num_batches_tracked.item() == 1


@pytest.mark.parametrize("track", [False, True])
def test_instance_norm_running_stats(track):
    data = [RNG.standard_normal((3, 4, 5)) + i for i in range(3)]

    def run(m):
        layer = m.nn.InstanceNorm1d(4, affine=True, track_running_stats=track,
                                    dtype=m.float64)
        outs = []
        for d in data:
            x = _t(m, d, True)
            y = layer(x)
            (y * y).sum().backward()
            outs += [y, x.grad]
        layer.eval()
        outs.append(layer(_t(m, data[0])))
        outs += [b for _, b in layer.named_buffers()]
        return outs
    for a, b in zip(run(strided), run(torch)):
        _close(a, b)


def test_instance_norm_unbatched_input_and_warning():
    x = RNG.standard_normal((4, 5))

    def run(m):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            y = m.nn.InstanceNorm1d(3)(_t(m, x))
        return y, [str(w.message) for w in caught]
    (ys, ws), (yt, wt) = run(strided), run(torch)
    _close(ys, yt)
    assert ws == wt and len(wt) == 1


# -- native ops: saved statistics, layouts, meta ---------------------------------------------

_NATIVE_INPUT = RNG.standard_normal((4, 3, 5, 2))


def _native_results(m, device=None):
    x = m.empty(4, 3, 5, 2, device=device) if device else m.tensor(_NATIVE_INPUT,
                                                                     dtype=m.float32)
    return {
        "bn_train": m.native_batch_norm(x, None, None, None, None, True, 0.1, 1e-5),
        "bn_eval": m.native_batch_norm(x, None, None, m.zeros(3, device=device),
                                       m.ones(3, device=device), False, 0.1, 1e-5),
        "bn_legit": m._native_batch_norm_legit(x, None, None, m.zeros(3, device=device),
                                               m.ones(3, device=device), True, 0.1, 1e-5),
        "bn_legit_nostats": m._native_batch_norm_legit(x, None, None, True, 0.1, 1e-5),
        "bn_legit_eval": m._native_batch_norm_legit_no_training(
            x, None, None, m.zeros(3, device=device), m.ones(3, device=device), 0.1, 1e-5),
        "ln": m.native_layer_norm(x, [5, 2], None, None, 1e-5),
        "ln_last": m.native_layer_norm(x, [2], None, None, 1e-5),
        "gn": m.native_group_norm(x, None, None, 4, 3, 10, 3, 1e-5),
        "fused_rms": m._fused_rms_norm(x, [2], None, None),
    }


def test_native_outputs_shapes_dtypes_strides():
    rs, rt = _native_results(strided), _native_results(torch)
    for key in rt:
        for a, b in zip(rs[key], rt[key]):
            assert tuple(a.shape) == tuple(b.shape), key
            assert a.stride() == b.stride(), key
            _close(a, b, rtol=1e-4, atol=1e-5, what=key)


def test_meta_shapes():
    rs, rt = _native_results(strided, "meta"), _native_results(torch, "meta")
    for key in rt:
        for a, b in zip(rs[key], rt[key]):
            assert a.device.type == "meta"
            assert (tuple(a.shape), a.stride(), str(a.dtype)) == \
                (tuple(b.shape), b.stride(), str(b.dtype)), key
    for m in (strided, torch):
        x = m.empty(2, 4, 3, device="meta")
        assert tuple(m.nn.GroupNorm(2, 4, device="meta")(x).shape) == (2, 4, 3)
        assert tuple(m.nn.LayerNorm(3, device="meta")(x).shape) == (2, 4, 3)
        assert tuple(m.nn.BatchNorm1d(4, device="meta")(x).shape) == (2, 4, 3)
        assert tuple(m.nn.RMSNorm(3, device="meta")(x).shape) == (2, 4, 3)


def test_output_layouts_follow_torch():
    base = RNG.standard_normal((2, 3, 4, 5))

    def layouts(m):
        x = m.tensor(base)
        inputs = [x.permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2),   # channels last
                  x.transpose(2, 3), x[:, :, ::2], x.permute(1, 0, 2, 3)]
        out = []
        for xi in inputs:
            out.append(m.native_batch_norm(xi, None, None, None, None, True, 0.1, 1e-5)[0])
            out.append(m.native_layer_norm(xi, [xi.shape[-1]], None, None, 1e-5)[0])
            out.append(m.group_norm(xi, 1))
            out.append(m.instance_norm(xi, None, None, None, None, True, 0.1, 1e-5, False))
            out.append(m.rms_norm(xi, [xi.shape[-1]]))
        return out
    for a, b in zip(layouts(strided), layouts(torch)):
        assert a.stride() == b.stride()
        _close(a, b)


def test_empty_inputs():
    def run(m):
        w = m.ones(3, dtype=m.float64, requires_grad=True)
        x = m.zeros(0, 3, 2, dtype=m.float64, requires_grad=True)
        y = m.nn.functional.batch_norm(x, None, None, w, None, True)
        idx = m._batch_norm_impl_index(x, None, None, None, None, True, 0.1, 1e-5, False)
        z = m.nn.functional.batch_norm(m.zeros(0, dtype=m.float64),
                                       m.zeros(0, dtype=m.float64),
                                       m.ones(0, dtype=m.float64))
        ln = m.native_layer_norm(m.zeros(0, 4), [4], None, None, 1e-5)
        gn = m.nn.functional.group_norm(m.zeros(0, 4, 2), 2)
        return [y, idx[1], idx[2], idx[3], z, *ln, gn], y.grad_fn.name()
    (rs, ns), (rt, nt) = run(strided), run(torch)
    assert ns == nt
    for a, b in zip(rs, rt):
        assert (tuple(a.shape), str(a.dtype)) == (tuple(b.shape), str(b.dtype))


# -- errors ----------------------------------------------------------------------------------

ERRORS = {
    "bn_one_value": lambda m: m.nn.functional.batch_norm(m.ones(1, 3), None, None,
                                                         training=True),
    "bn_one_value_3d": lambda m: m.nn.functional.batch_norm(m.ones(1, 3, 1), None, None,
                                                            training=True),
    "bn_eps_train": lambda m: m.nn.functional.batch_norm(m.ones(2, 3), None, None,
                                                         training=True, eps=0.0),
    "bn_eps_eval": lambda m: m.nn.functional.batch_norm(m.ones(2, 3), m.zeros(3), m.ones(3),
                                                        eps=-1.0),
    "bn_running_mean_size": lambda m: m.batch_norm(m.ones(4, 3), None, None, m.zeros(4),
                                                   m.ones(3), True, 0.1, 1e-5, False),
    "bn_running_var_size": lambda m: m.batch_norm(m.ones(4, 3), None, None, m.zeros(3),
                                                  m.ones(2), True, 0.1, 1e-5, False),
    "bn_weight_size": lambda m: m.batch_norm(m.ones(4, 3), m.ones(4), None, None, None, True,
                                             0.1, 1e-5, False),
    "bn_bias_size": lambda m: m.batch_norm(m.ones(4, 3), None, m.ones(4), None, None, True,
                                           0.1, 1e-5, False),
    "bn_eval_no_mean": lambda m: m.batch_norm(m.ones(4, 3), None, None, None, m.ones(3),
                                              False, 0.1, 1e-5, False),
    "bn_eval_no_var": lambda m: m.batch_norm(m.ones(4, 3), None, None, m.zeros(3), None,
                                             False, 0.1, 1e-5, False),
    "bn_1d": lambda m: m.batch_norm(m.ones(3), None, None, None, None, True, 0.1, 1e-5,
                                    False),
    "bn_int": lambda m: m.native_batch_norm(m.ones(4, 3, dtype=m.int64), None, None, None,
                                            None, True, 0.1, 1e-5),
    "bn_complex": lambda m: m.batch_norm(m.ones(4, 3, dtype=m.complex64), None, None, None,
                                         None, True, 0.1, 1e-5, False),
    "bn_native_empty": lambda m: m.native_batch_norm(m.ones(0, 3), None, None, None, None,
                                                     True, 0.1, 1e-5),
    "bn_mixed_double_input": lambda m: m.native_batch_norm(
        m.ones(4, 3, dtype=m.float64), m.ones(3), None, None, None, True, 0.1, 1e-5),
    "bn_mixed_param": lambda m: m.native_batch_norm(
        m.ones(4, 3, dtype=m.float16), m.ones(3, dtype=m.float64), None, None, None, True,
        0.1, 1e-5),
    "bn_param_dtype": lambda m: m.native_batch_norm(
        m.ones(4, 3), m.ones(3), m.ones(3, dtype=m.float64), None, None, True, 0.1, 1e-5),
    "bn1d_4d": lambda m: m.nn.BatchNorm1d(3)(m.ones(2, 3, 4, 5)),
    "bn2d_3d": lambda m: m.nn.BatchNorm2d(3)(m.ones(2, 3, 4)),
    "bn3d_4d": lambda m: m.nn.BatchNorm3d(3)(m.ones(2, 3, 4, 5)),
    "sync_1d": lambda m: m.nn.SyncBatchNorm(3)(m.ones(3)),
    "sync_no_channels": lambda m: m.nn.SyncBatchNorm(0)(m.ones(2, 0)),
    "ln_empty_shape": lambda m: m.layer_norm(m.ones(2, 3), []),
    "ln_weight_shape": lambda m: m.layer_norm(m.ones(2, 3), [3], m.ones(4)),
    "ln_bias_shape": lambda m: m.layer_norm(m.ones(2, 3), [3], None, m.ones(2)),
    "ln_input_shape": lambda m: m.layer_norm(m.ones(4, 3, 5), [6]),
    "ln_input_rank": lambda m: m.layer_norm(m.ones(4, 3, 5), [2, 4, 3, 5]),
    "ln_module_mismatch": lambda m: m.nn.LayerNorm([3, 4])(m.ones(2, 4, 3)),
    "ln_int": lambda m: m.layer_norm(m.ones(3, 5, dtype=m.int64), [5]),
    "ln_mixed": lambda m: m.native_layer_norm(m.ones(3, 5, dtype=m.float64), [5], m.ones(5),
                                              None, 1e-5),
    "ln_int_weight": lambda m: m.layer_norm(m.ones(3, 5), [5], m.ones(5, dtype=m.int64)),
    "gn_1d": lambda m: m.nn.functional.group_norm(m.ones(3), 1),
    "gn_divisible": lambda m: m.nn.functional.group_norm(m.ones(2, 3, 4), 2),
    "gn_weight": lambda m: m.nn.functional.group_norm(m.ones(2, 4, 4), 2, m.ones(3)),
    "gn_weight_2d": lambda m: m.group_norm(m.ones(2, 4, 4), 2, m.ones(2, 2)),
    "gn_bias_no_weight": lambda m: m.nn.functional.group_norm(m.ones(2, 4, 4), 2, None,
                                                              m.ones(3)),
    "gn_bias": lambda m: m.group_norm(m.ones(2, 4, 4), 2, m.ones(4), m.ones(3)),
    "gn_groups_zero": lambda m: m.group_norm(m.ones(2, 4, 4), 0),
    "gn_one_value": lambda m: m.nn.functional.group_norm(m.ones(1, 2, 1), 2),
    "gn_native_numel": lambda m: m.native_group_norm(m.ones(2, 4, 4), None, None, 3, 4, 4, 2,
                                                     1e-5),
    "gn_native_layout": lambda m: m.native_group_norm(m.ones(2, 4, 4).transpose(1, 2), None,
                                                      None, 2, 4, 4, 2, 1e-5),
    "gn_complex": lambda m: m.group_norm(m.ones(2, 4, 4, dtype=m.complex64), 2),
    "gn_module": lambda m: m.nn.GroupNorm(2, 3),
    "in_spatial": lambda m: m.nn.functional.instance_norm(m.ones(2, 3, 1)),
    "in_2d": lambda m: m.nn.functional.instance_norm(m.ones(2, 3)),
    "in_no_stats_eval": lambda m: m.nn.functional.instance_norm(m.ones(2, 3, 4),
                                                                use_input_stats=False),
    "in_stats_size": lambda m: m.nn.functional.instance_norm(m.ones(2, 3, 4), m.zeros(4),
                                                             m.ones(4)),
    "in_affine_features": lambda m: m.nn.InstanceNorm1d(4, affine=True)(m.ones(2, 3, 4)),
    "in1d_rank": lambda m: m.nn.InstanceNorm1d(3)(m.ones(2, 3, 4, 5)),
    "in2d_rank": lambda m: m.nn.InstanceNorm2d(3)(m.ones(3, 4)),
    "in3d_rank": lambda m: m.nn.InstanceNorm3d(3)(m.ones(3, 4, 5)),
    "rms_weight": lambda m: m.nn.functional.rms_norm(m.ones(4, 5), [5], m.ones(4)),
    "rms_shape": lambda m: m.nn.functional.rms_norm(m.ones(4, 3, 5), [2, 5]),
    "rms_rank": lambda m: m.nn.functional.rms_norm(m.ones(5), [2, 5]),
    "rms_empty_shape": lambda m: m.nn.functional.rms_norm(m.ones(5), []),
    "rms_bool": lambda m: m.nn.functional.rms_norm(m.ones(4, 5, dtype=m.bool), [5]),
    "lrn_rank": lambda m: m.nn.functional.local_response_norm(m.ones(3, 4), 2),
    "crossmap_rank": lambda m: m.nn.CrossMapLRN2d(3)(m.ones(2, 3, 4)),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_like_torch(name):
    assert_same_error(lambda: ERRORS[name](strided), lambda: ERRORS[name](torch))


# -- modules: construction, repr, state_dict -------------------------------------------------

MODULES = {
    "BatchNorm1d": lambda m: m.nn.BatchNorm1d(4),
    "BatchNorm2d_opts": lambda m: m.nn.BatchNorm2d(3, eps=1e-3, momentum=None, affine=False),
    "BatchNorm3d_nobias": lambda m: m.nn.BatchNorm3d(2, bias=False, track_running_stats=False),
    "SyncBatchNorm": lambda m: m.nn.SyncBatchNorm(5, momentum=0.3),
    "LazyBatchNorm2d": lambda m: m.nn.LazyBatchNorm2d(eps=0.1),
    "InstanceNorm1d": lambda m: m.nn.InstanceNorm1d(3),
    "InstanceNorm2d_affine": lambda m: m.nn.InstanceNorm2d(3, affine=True,
                                                           track_running_stats=True),
    "InstanceNorm3d": lambda m: m.nn.InstanceNorm3d(2, momentum=0.2),
    "LazyInstanceNorm1d": lambda m: m.nn.LazyInstanceNorm1d(affine=True),
    "LayerNorm": lambda m: m.nn.LayerNorm(6),
    "LayerNorm_shape": lambda m: m.nn.LayerNorm([2, 3], eps=1e-6, bias=False),
    "LayerNorm_noaffine": lambda m: m.nn.LayerNorm(m.Size([4]), elementwise_affine=False),
    "GroupNorm": lambda m: m.nn.GroupNorm(2, 6),
    "GroupNorm_opts": lambda m: m.nn.GroupNorm(3, 3, eps=1e-3, affine=False),
    "GroupNorm_nobias": lambda m: m.nn.GroupNorm(1, 2, bias=False),
    "RMSNorm": lambda m: m.nn.RMSNorm(4),
    "RMSNorm_opts": lambda m: m.nn.RMSNorm([2, 3], eps=1e-5, elementwise_affine=False),
    "LocalResponseNorm": lambda m: m.nn.LocalResponseNorm(3, alpha=0.1, beta=0.5, k=2.0),
    "CrossMapLRN2d": lambda m: m.nn.CrossMapLRN2d(5),
}


@pytest.mark.parametrize("name", sorted(MODULES))
def test_module_construction(name):
    ms, mt = MODULES[name](strided), MODULES[name](torch)
    assert repr(ms) == repr(mt)
    sd_s, sd_t = ms.state_dict(), mt.state_dict()
    assert list(sd_s) == list(sd_t)
    for key in sd_t:
        if isinstance(sd_t[key], torch.nn.parameter.UninitializedTensorMixin):
            continue
        assert str(sd_s[key].dtype) == str(sd_t[key].dtype), key
        np.testing.assert_array_equal(_np(sd_s[key]), _np(sd_t[key]), err_msg=key)
    assert [n for n, _ in ms.named_parameters()] == [n for n, _ in mt.named_parameters()]
    assert sd_s._metadata[""]["version"] == sd_t._metadata[""]["version"]
    assert type(ms).__module__.replace("strided", "torch") == type(mt).__module__


def test_module_paths_and_constants():
    for name in ("BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "SyncBatchNorm",
                 "LazyBatchNorm1d", "InstanceNorm1d", "LazyInstanceNorm3d", "LayerNorm",
                 "GroupNorm", "RMSNorm", "LocalResponseNorm", "CrossMapLRN2d"):
        cs, ct = getattr(strided.nn, name), getattr(torch.nn, name)
        assert cs.__module__.replace("strided", "torch") == ct.__module__
        assert getattr(cs, "__constants__", None) == getattr(ct, "__constants__", None)


def test_reset_running_stats_and_parameters():
    for m in (strided, torch):
        layer = m.nn.BatchNorm1d(3)
        layer(m.randn(4, 3) * 3 + 1)
        with m.no_grad():
            layer.weight.mul_(2)
        layer.reset_running_stats()
        assert layer.running_mean.abs().sum().item() == 0
        assert layer.running_var.sum().item() == 3 and layer.num_batches_tracked.item() == 0
        assert layer.weight.sum().item() == 6
        layer.reset_parameters()
        assert layer.weight.sum().item() == 3


def test_load_old_state_dict_without_num_batches_tracked():
    data = RNG.standard_normal((4, 3))

    def run(m):
        src = m.nn.BatchNorm1d(3)
        src(m.tensor(data, dtype=m.float32))
        sd = src.state_dict()
        del sd["num_batches_tracked"]
        sd._metadata[""]["version"] = 1
        dst = m.nn.BatchNorm1d(3)
        dst.num_batches_tracked.fill_(7)
        result = dst.load_state_dict(sd)
        old = m.nn.BatchNorm1d(3)
        sd2 = dict(src.state_dict())
        del sd2["num_batches_tracked"]          # no metadata: version None
        old.load_state_dict(sd2)
        strict_err = None
        try:
            m.nn.BatchNorm1d(3).load_state_dict({k: v for k, v in src.state_dict().items()
                                                 if k != "num_batches_tracked"} | {})
        except RuntimeError as e:
            strict_err = str(e)
        return (list(result.missing_keys), int(dst.num_batches_tracked),
                int(old.num_batches_tracked), dst.running_mean.tolist(), strict_err)
    rs, rt = run(strided), run(torch)
    assert rs[:3] == rt[:3]
    np.testing.assert_allclose(rs[3], rt[3], rtol=1e-5)
    assert rs[4] == rt[4]


def test_instance_norm_refuses_old_running_stats():
    def run(m):
        layer = m.nn.InstanceNorm1d(3)
        sd = {"running_mean": m.zeros(3), "running_var": m.ones(3)}
        try:
            layer.load_state_dict(sd)
        except RuntimeError as e:
            return str(e)
        return None
    rs, rt = run(strided), run(torch)
    assert rt is not None and "Unexpected running stats buffer(s)" in rt
    assert rs == rt


def test_lazy_modules_materialize():
    x = RNG.standard_normal((2, 4, 3, 3))

    def run(m):
        out = []
        for cls in ("LazyBatchNorm2d", "LazyInstanceNorm2d"):
            layer = getattr(m.nn, cls)(affine=True, track_running_stats=True)
            y = layer(_t(m, x).float())
            out.append((type(layer).__name__, tuple(layer.weight.shape),
                        tuple(layer.running_mean.shape), layer.num_features, repr(layer),
                        _np(y).round(4).tolist()))
        return out
    assert run(strided) == run(torch)


def test_lazy_load_state_dict():
    data = RNG.standard_normal((4, 3))

    def run(m):
        src = m.nn.BatchNorm1d(3)
        src(m.tensor(data, dtype=m.float32))
        lazy = m.nn.LazyBatchNorm1d()
        lazy.load_state_dict(src.state_dict())
        return tuple(lazy.weight.shape), lazy.running_var.tolist()
    rs, rt = run(strided), run(torch)
    assert rs[0] == rt[0]
    np.testing.assert_allclose(rs[1], rt[1], rtol=1e-6)


def test_sync_batchnorm_single_process_and_convert():
    x = RNG.standard_normal((4, 3, 2))

    def run(m):
        net = m.nn.Sequential(m.nn.Linear(2, 2), m.nn.BatchNorm1d(3, momentum=None),
                              m.nn.Sequential(m.nn.BatchNorm2d(3)))
        net[1].eval()
        conv = m.nn.SyncBatchNorm.convert_sync_batchnorm(net)
        sync = m.nn.SyncBatchNorm(3, momentum=None).double()
        ys = [sync(_t(m, x)) for _ in range(2)]
        return (repr(conv), type(conv[1]).__name__, conv[1].training,
                conv[1].weight is net[1].weight, conv[1].running_mean is net[1].running_mean,
                ys, int(sync.num_batches_tracked), sync.running_var)
    rs, rt = run(strided), run(torch)
    assert rs[:5] == rt[:5]
    for a, b in zip(rs[5], rt[5]):
        _close(a, b)
    assert rs[6] == rt[6]
    _close(rs[7], rt[7])


def test_module_forward_values_and_grad_fn():
    x = RNG.standard_normal((2, 6, 4, 3))

    def run(m):
        out = []
        for make in (lambda: m.nn.LayerNorm([4, 3]), lambda: m.nn.GroupNorm(3, 6),
                     lambda: m.nn.RMSNorm(3), lambda: m.nn.LocalResponseNorm(3),
                     lambda: m.nn.CrossMapLRN2d(3, 0.1, 0.7, 2.0),
                     lambda: m.nn.InstanceNorm2d(6, affine=True)):
            layer = make().double()
            xi = _t(m, x, True)
            y = layer(xi)
            (y * y * y).sum().backward()
            out.append((y, xi.grad, y.grad_fn.name(),
                        [p.grad for p in layer.parameters()]))
        return out
    for (ys, gs, ns, ps), (yt, gt, nt, pt) in zip(run(strided), run(torch)):
        assert ns == nt
        _close(ys, yt)
        _close(gs, gt, rtol=1e-8)
        for a, b in zip(ps, pt):
            _close(a, b, rtol=1e-8, atol=1e-9)


def test_cross_map_lrn2d_window_quirk():
    """torch's legacy layer keeps channel 0 in every later channel's window."""
    x = np.zeros((1, 7, 1, 1))
    x[0, 0] = 3.0
    x[0, 5] = 1.0
    ys, yt = (m.nn.CrossMapLRN2d(3, 1.0, 1.0, 1.0)(_t(m, x)) for m in (strided, torch))
    _close(ys, yt)


def test_functional_signatures_and_out():
    data = RNG.standard_normal((3, 4))

    def run(m):
        f = m.nn.functional
        x = m.tensor(data)
        out = m.empty(3, 4, dtype=m.float64)
        r = f.normalize(x, p=3.0, dim=1, eps=1e-6, out=out)
        return r is out, out, f.instance_norm(x.unsqueeze(0), eps=1e-3), \
            f.layer_norm(input=x, normalized_shape=[4], eps=0.1), \
            f.group_norm(x, num_groups=2, eps=0.5)
    rs, rt = run(strided), run(torch)
    assert rs[0] is rt[0] is True
    for a, b in zip(rs[1:], rt[1:]):
        _close(a, b)
    check(lambda m: m.nn.functional.normalize(m.zeros(2, 3, dtype=m.float64)))


# -- hypothesis: shapes and layouts ----------------------------------------------------------

@st.composite
def _layout_case(draw):
    ndim = draw(st.integers(2, 4))
    shape = [draw(st.integers(1, 4)) for _ in range(ndim)]
    shape[1] = draw(st.sampled_from([2, 4, 6]))
    if draw(st.booleans()):
        shape[0] = max(shape[0], 2)
    layout = draw(st.sampled_from(["contiguous", "transposed", "sliced", "expanded"]))
    return tuple(shape), layout, draw(st.integers(0, 2**16))


def _make(m, shape, layout, seed):
    rng = np.random.default_rng(seed)
    if layout == "transposed":
        arr = rng.standard_normal(shape[::-1])
        return m.tensor(arr).permute(*reversed(range(len(shape))))
    if layout == "sliced":
        arr = rng.standard_normal((shape[0], shape[1]) + tuple(2 * s for s in shape[2:]))
        t = m.tensor(arr)
        for d in range(2, len(shape)):
            t = t.narrow(d, 1, shape[d]) if d % 2 else t[(slice(None),) * d + (slice(None,
                                                                                     None, 2),)]
        return t
    if layout == "expanded":
        return m.tensor(rng.standard_normal((1,) + shape[1:])).expand(*shape)
    return m.tensor(rng.standard_normal(shape))


@hyp(25)
@given(_layout_case())
def test_hypothesis_layouts(case):
    shape, layout, seed = case
    per_channel = 1
    for s in (shape[0],) + shape[2:]:
        per_channel *= s

    def run(m):
        base = _make(m, shape, layout, seed)
        x = base.detach().requires_grad_() if base.is_contiguous() else base.requires_grad_()
        c = shape[1]
        w = m.linspace(0.5, 1.5, c, dtype=m.float64, requires_grad=True)
        outs = [m.nn.functional.layer_norm(x, shape[-1:]),
                m.nn.functional.rms_norm(x, shape[-1:])]
        if shape[0] * c // 2 * per_channel // shape[0] > 1:
            outs.append(m.nn.functional.group_norm(x, 2, w))
        if per_channel > 1:
            rm, rv = m.zeros(c, dtype=m.float64), m.ones(c, dtype=m.float64)
            outs.append(m.nn.functional.batch_norm(x, rm, rv, w, None, True))
            outs += [rm, rv]
        total = sum((o * o.detach().sin()).sum() for o in outs if o.requires_grad)
        total.backward()
        return outs + [x.grad if x.is_leaf else None, w.grad]
    for a, b in zip(run(strided), run(torch)):
        if b is None:
            continue
        _close(a, b, rtol=1e-8, atol=1e-9)


@pytest.mark.parametrize("mask", [(True, False, False), (False, True, False),
                                  (False, False, True), (False, True, True)])
@pytest.mark.parametrize("op", ["bn", "bn_eval", "gn", "ln"])
def test_partial_output_masks(op, mask):
    """Only some of input / weight / bias require grad: the backward kernels compute just
    those (torch's output_mask)."""
    data = [RNG.standard_normal(s) for s in ((4, 6, 5), (6,), (6,))]
    programs = {
        "bn": lambda m, x, w, b: m.nn.functional.batch_norm(x, None, None, w, b, True),
        "bn_eval": lambda m, x, w, b: m.nn.functional.batch_norm(
            x, m.zeros(6, dtype=m.float64), m.ones(6, dtype=m.float64) * 2, w, b),
        "gn": lambda m, x, w, b: m.nn.functional.group_norm(x, 3, w, b),
        "ln": lambda m, x, w, b: m.nn.functional.layer_norm(x.transpose(1, 2), (6,), w, b),
    }

    def run(m):
        leaves = [m.tensor(d, requires_grad=r) for d, r in zip(data, mask)]
        y = programs[op](m, *leaves)
        (y * y).sum().backward()
        return [leaf.grad for leaf in leaves]
    for a, b in zip(run(strided), run(torch)):
        assert (a is None) == (b is None)
        if b is not None:
            _close(a, b)
