"""Memory formats through the nn kernels, against torch: the strides of the results and of
the input / weight gradients of convolutions (every backend torch's CPU picks), pools, norms,
upsampling, padding and activations for channels-last inputs (size-1 dims included), the
values in float64, and the gradient layout contract of AccumulateGrad."""

from __future__ import annotations

import pytest

from tests.conftest import check


@pytest.fixture(autouse=True)
def _same_thread_count():
    """torch's convolution backend choice (so its layouts) depends on its thread count, and
    other test modules pin torch's alone: both libraries run with torch's count here."""
    import torch

    import strided
    before = strided.get_num_threads()
    strided.set_num_threads(torch.get_num_threads())
    yield
    strided.set_num_threads(before)


def _cl(lib, x):
    if x.dim() == 4:
        return x.contiguous(memory_format=lib.channels_last)
    if x.dim() == 5:
        return x.contiguous(memory_format=lib.channels_last_3d)
    return x


def _run(lib, fn, shapes, formats, dtype, values):
    """Output and gradient strides (and, in float64, values) of ``fn`` on seeded inputs,
    the ones flagged in ``formats`` made channels-last."""
    lib.manual_seed(0)
    ins = []
    for shape, cl in zip(shapes, formats):
        x = lib.randn(*shape, dtype=lib.float64).to(getattr(lib, dtype))
        ins.append((_cl(lib, x) if cl else x).requires_grad_())
    out = fn(lib, *ins)
    grad = lib.randn(out.shape, dtype=lib.float64).to(out.dtype)
    out.backward(grad)
    strides = (out.stride(),) + tuple(x.grad.stride() for x in ins)
    if not values:
        return strides
    return strides, out.detach(), tuple(x.grad for x in ins)


def _f(lib):
    return lib.nn.functional


OPS = {
    "conv2d": (lambda lib, x, w: _f(lib).conv2d(x, w, padding=1), [(2, 3, 5, 6), (4, 3, 3, 3)]),
    "conv2d_1x1": (lambda lib, x, w: _f(lib).conv2d(x, w), [(2, 3, 5, 6), (4, 3, 1, 1)]),
    "conv2d_groups": (lambda lib, x, w: _f(lib).conv2d(x, w, groups=3),
                      [(2, 3, 5, 6), (3, 1, 3, 3)]),
    "conv2d_dilated": (lambda lib, x, w: _f(lib).conv2d(x, w, dilation=2),
                       [(1, 3, 5, 6), (4, 3, 2, 2)]),
    "conv3d": (lambda lib, x, w: _f(lib).conv3d(x, w), [(2, 3, 3, 4, 4), (4, 3, 2, 2, 2)]),
    "conv3d_n1": (lambda lib, x, w: _f(lib).conv3d(x, w), [(1, 3, 3, 4, 4), (4, 3, 2, 2, 2)]),
    "conv1d": (lambda lib, x, w: _f(lib).conv1d(x, w), [(2, 3, 5), (4, 3, 3)]),
    "conv_transpose2d": (lambda lib, x, w: _f(lib).conv_transpose2d(x, w, stride=2),
                         [(2, 3, 4, 5), (3, 4, 3, 3)]),
    "conv_transpose2d_1x1": (lambda lib, x, w: _f(lib).conv_transpose2d(x, w),
                             [(1, 3, 4, 5), (3, 4, 1, 1)]),
    "conv_transpose3d": (lambda lib, x, w: _f(lib).conv_transpose3d(x, w),
                         [(2, 3, 2, 3, 4), (3, 4, 2, 2, 2)]),
    "max_pool2d": (lambda lib, x: _f(lib).max_pool2d(x, 2), [(2, 3, 6, 6)]),
    "max_pool3d": (lambda lib, x: _f(lib).max_pool3d(x, 2), [(2, 3, 4, 4, 4)]),
    "avg_pool2d": (lambda lib, x: _f(lib).avg_pool2d(x, 3, 2, 1), [(2, 3, 6, 6)]),
    "avg_pool3d": (lambda lib, x: _f(lib).avg_pool3d(x, 2), [(2, 3, 4, 4, 4)]),
    "adaptive_avg_pool2d": (lambda lib, x: _f(lib).adaptive_avg_pool2d(x, (3, 2)),
                            [(2, 3, 6, 5)]),
    "adaptive_avg_pool2d_1": (lambda lib, x: _f(lib).adaptive_avg_pool2d(x, 1),
                              [(2, 3, 6, 5)]),
    "adaptive_max_pool2d": (lambda lib, x: _f(lib).adaptive_max_pool2d(x, (3, 2)),
                            [(2, 3, 6, 5)]),
    "adaptive_avg_pool3d": (lambda lib, x: _f(lib).adaptive_avg_pool3d(x, 2),
                            [(2, 3, 4, 4, 4)]),
    "adaptive_max_pool3d": (lambda lib, x: _f(lib).adaptive_max_pool3d(x, 2),
                            [(2, 3, 4, 4, 4)]),
    "batch_norm": (lambda lib, x, w, b: _f(lib).batch_norm(x, None, None, w, b, training=True),
                   [(2, 3, 4, 5), (3,), (3,)]),
    "batch_norm3d": (lambda lib, x: _f(lib).batch_norm(x, None, None, training=True),
                     [(2, 3, 2, 3, 4)]),
    "group_norm": (lambda lib, x, w, b: _f(lib).group_norm(x, 2, w, b),
                   [(2, 4, 3, 5), (4,), (4,)]),
    "layer_norm": (lambda lib, x: _f(lib).layer_norm(x, (5,)), [(2, 4, 3, 5)]),
    "instance_norm": (lambda lib, x: _f(lib).instance_norm(x), [(2, 4, 3, 5)]),
    "nearest": (lambda lib, x: _f(lib).interpolate(x, scale_factor=2), [(2, 3, 4, 5)]),
    "bilinear": (lambda lib, x: _f(lib).interpolate(x, size=(7, 3), mode="bilinear"),
                 [(2, 3, 4, 5)]),
    "bicubic": (lambda lib, x: _f(lib).interpolate(x, scale_factor=2, mode="bicubic",
                                                   align_corners=True), [(2, 3, 4, 5)]),
    "trilinear": (lambda lib, x: _f(lib).interpolate(x, scale_factor=2, mode="trilinear"),
                  [(2, 3, 2, 3, 4)]),
    "pad_constant": (lambda lib, x: _f(lib).pad(x, (1, 2, 0, 1), value=0.5), [(2, 3, 4, 5)]),
    "pad_crop": (lambda lib, x: _f(lib).pad(x, (-1, 0, 0, -1)), [(2, 3, 4, 5)]),
    "pad_reflect": (lambda lib, x: _f(lib).pad(x, (1, 1, 2, 0), mode="reflect"),
                    [(2, 3, 4, 5)]),
    "pad_replicate": (lambda lib, x: _f(lib).pad(x, (1, 1, 2, 0), mode="replicate"),
                      [(2, 3, 4, 5)]),
    "gelu": (lambda lib, x: _f(lib).gelu(x), [(2, 3, 4, 5)]),
    "softmax": (lambda lib, x: _f(lib).softmax(x, 1), [(2, 3, 4, 5)]),
    "mean_hw": (lambda lib, x: x.mean((2, 3), keepdim=True), [(2, 3, 4, 5)]),
    "bias_add": (lambda lib, x, b: x + b.view(1, 3, 1, 1), [(2, 3, 4, 5), (3,)]),
}


def _format_choices(shapes):
    """Which operands to make channels-last: each 4-d/5-d one alone, then all of them."""
    spatial = [i for i, s in enumerate(shapes) if len(s) in (4, 5)]
    choices = [tuple(i == j for i in range(len(shapes))) for j in spatial]
    if len(spatial) > 1:
        choices.append(tuple(i in spatial for i in range(len(shapes))))
    return choices or [tuple(False for _ in shapes)]


def _size1_variants(shape):
    """The shape, and the shape with N, C or one spatial dim set to 1 (the ambiguous
    layouts) where the op still accepts it."""
    return [shape] + [shape[:d] + (1,) + shape[d + 1:] for d in (0, 1, len(shape) - 1)]


@pytest.mark.parametrize("name", sorted(OPS))
def test_layouts_and_values_float64(name):
    fn, shapes = OPS[name]
    for formats in _format_choices(shapes):
        check(lambda lib, f=formats: _run(lib, fn, shapes, f, "float64", True), exact=False)


@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "float16"])
@pytest.mark.parametrize("name", sorted(n for n in OPS if n.startswith("conv")))
def test_convolution_layouts_per_backend(name, dtype):
    fn, shapes = OPS[name]
    for formats in _format_choices(shapes):
        check(lambda lib, f=formats: _run(lib, fn, shapes, f, dtype, False))


_SIZE1_OK = ("conv2d_1x1", "adaptive_avg_pool2d", "adaptive_avg_pool2d_1",
             "adaptive_max_pool2d", "batch_norm3d", "instance_norm", "nearest", "bilinear",
             "bicubic", "trilinear", "pad_constant", "pad_replicate", "gelu", "softmax",
             "mean_hw", "conv3d", "adaptive_avg_pool3d", "adaptive_max_pool3d")


@pytest.mark.parametrize("name", _SIZE1_OK)
def test_layouts_with_size1_dims(name):
    fn, shapes = OPS[name]
    for first in _size1_variants(shapes[0])[1:]:
        if name.startswith("conv") and first[1] == 1:
            continue
        shp = [first] + shapes[1:]
        for formats in _format_choices(shp):
            check(lambda lib, s=shp, f=formats: _run(lib, fn, s, f, "float32", False))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", [
    ((2, 3, 5, 6), (4, 3, 1, 1), 1), ((1, 3, 5, 6), (4, 3, 1, 1), 1),
    ((2, 3, 5, 6), (3, 1, 3, 3), 3), ((1, 3, 5, 6), (4, 3, 3, 3), 1),
    ((20, 3, 5, 6), (4, 3, 1, 1), 1), ((1, 3, 3, 4, 4), (4, 3, 1, 1, 1), 1),
    ((2, 3, 3, 4, 4), (4, 3, 2, 2, 2), 1),
])
def test_convolution_backward_kernel_layouts(case, dtype):
    """The aten kernels themselves (no AccumulateGrad in between)."""
    isz, wsz, groups = case

    def recipe(lib):
        dt = getattr(lib, dtype)
        x = _cl(lib, lib.ones(isz, dtype=dt))
        w = lib.ones(wsz, dtype=dt)
        nd = len(isz) - 2
        args = ([1] * nd, [0] * nd, [1] * nd, False, [0] * nd, groups)
        y = lib.ops.aten.convolution(x, w, None, *args)
        gi, gw, _ = lib.ops.aten.convolution_backward(lib.ones_like(y), x, w, None, *args,
                                                      [True, True, False])
        return y.stride(), gi.stride(), gw.stride()
    check(recipe)


def test_num_threads_picks_the_1x1_backend():
    def recipe(lib):
        n = lib.get_num_threads()
        lib.set_num_threads(1)
        try:
            x = _cl(lib, lib.ones(2, 3, 5, 6))
            w = lib.ones(4, 3, 1, 1)
            out = lib.ops.aten.convolution_backward(
                lib.ones(2, 4, 5, 6), x, w, None, [1, 1], [0, 0], [1, 1], False, [0, 0], 1,
                [True, True, False])
            return out[1].stride()
        finally:
            lib.set_num_threads(n)
    check(recipe)


# -- AccumulateGrad's layout contract ----------------------------------------------------------

@pytest.mark.parametrize("case", ["steal_size1", "copy_held", "zero_stride", "non_dense_leaf",
                                  "non_dense_leaf_contig_grad", "create_graph",
                                  "channels_last_leaf"])
def test_accumulate_grad_layout_contract(case):
    def recipe(lib):
        if case == "steal_size1":
            # a stealable gradient whose size-1 dims have other strides is kept as it is
            w = lib.ones(4, 3, 1, 1, requires_grad=True)
            (w.expand(4, 3, 2, 2) * 1.0).sum().backward()
            g = w.grad
            w2 = lib.ones(4, 3, 1, 1, requires_grad=True)
            w2.backward(lib.ones(4, 3, 1, 1).contiguous(memory_format=lib.channels_last) * 2)
            return g.stride(), w2.grad.stride()
        if case == "copy_held":
            w = lib.ones(2, 3, 4, 5, requires_grad=True)
            g = lib.ones(2, 3, 4, 5).contiguous(memory_format=lib.channels_last)
            w.backward(g)
            return w.grad.stride(), w.grad is g
        if case == "zero_stride":
            w = lib.ones(4, 1, requires_grad=True)
            w.backward(lib.ones(4, 2)[:, :1].expand(4, 1))
            return w.grad.stride()
        if case == "non_dense_leaf":
            w = lib.ones(4, 6)[:, ::2].requires_grad_()
            (w * 2).sum().backward()
            return w.grad.stride()
        if case == "non_dense_leaf_contig_grad":
            w = lib.ones(6, 4).t()[::2].requires_grad_()
            w.backward(lib.ones(3, 4).t().contiguous().t())
            return w.grad.stride()
        if case == "create_graph":
            w = lib.ones(2, 3, 4, 5).contiguous(memory_format=lib.channels_last)
            w.requires_grad_()
            (w * w).sum().backward(create_graph=True)
            out = (w.grad.stride(), w.grad.grad_fn.name())
            w.grad = None
            return out
        w = lib.ones(2, 3, 4, 5).contiguous(memory_format=lib.channels_last).requires_grad_()
        (w.contiguous() * 3).sum().backward()
        return w.grad.stride(), w.grad.is_contiguous(memory_format=lib.channels_last)
    check(recipe, warns=False)


# -- gradient strides of leaves with size-1 dims (mm's column-major rule, the contract) -------

def _leaf(lib, *shape):
    return lib.randn(*shape, dtype=lib.float64).requires_grad_()


_GRAD_CASES = {
    "linear_one_out": (lambda lib, w, b, x: lib.nn.functional.linear(x, w, b),
                       [(1, 3), (1,), (4, 3)]),
    "linear_one_in": (lambda lib, w, b, x: lib.nn.functional.linear(x, w, b),
                      [(3, 1), (3,), (4, 1)]),
    "linear_batch1": (lambda lib, w, x: lib.nn.functional.linear(x, w), [(3, 5), (1, 5)]),
    "mm_transposed": (lambda lib, a, b: a.t() @ b.t(), [(3, 1), (2, 3)]),
    "addmm_alpha": (lambda lib, c, a, b: lib.addmm(c, a.t(), b, alpha=2.5),
                    [(1, 2), (3, 1), (3, 2)]),
    "bmm": (lambda lib, a, b: a.bmm(b), [(2, 1, 3), (2, 3, 1)]),
    "conv_one_out": (lambda lib, w, b, x: lib.nn.functional.conv2d(x, w, b),
                     [(1, 3, 1, 1), (1,), (2, 3, 4, 4)]),
    "broadcast": (lambda lib, a, b: (a * b).pow(2), [(1, 3), (4, 3)]),
}


@pytest.mark.parametrize("name", sorted(_GRAD_CASES))
def test_leaf_gradient_strides(name):
    fn, shapes = _GRAD_CASES[name]

    def recipe(lib):
        lib.manual_seed(0)
        leaves = [_leaf(lib, *s) for s in shapes]
        fn(lib, *leaves).sum().backward()
        return [leaf.grad for leaf in leaves]
    check(recipe, exact=False)


def test_type_as():
    def recipe(lib):
        x = lib.ones(2, 3, 4, 5).contiguous(memory_format=lib.channels_last).requires_grad_()
        y = x.type_as(lib.ones(1, dtype=lib.float64))
        return y, y.grad_fn.name(), x.type_as(lib.ones(1)) is x
    check(recipe)
    check(lambda lib: lib.ones(2).type_as(1))
