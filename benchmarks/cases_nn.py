"""Benchmark cases for torch.nn (issue 10's speed targets): the same layer or training
step built in strided and in torch from the same seed, timed forward + backward.

Each setup returns the zero-argument callables ``run.py`` times; NumPy has no
equivalent of a module, so its column stays empty.
"""

from __future__ import annotations

import numpy as np
from cases import Case

_RNG = np.random.default_rng(0)


def _data(*shape, dtype=np.float32):
    return _RNG.standard_normal(shape).astype(dtype)


def _per_lib(make):
    """A setup from ``make(lib)``, which builds (after manual_seed(0)) and returns the
    zero-argument callable to time for that library."""
    def setup(st, torch, np):
        fns = {"numpy": None}
        for name, lib in (("strided", st), ("torch", torch)):
            lib.manual_seed(0)
            fns[name] = make(lib)
        return fns
    return setup


def _fwd_bwd(make_layer, *input_shapes):
    """``make_layer(lib)`` built after manual_seed(0); inputs require grad; one call runs
    forward, ``.sum().backward()``, and clears the gradients."""
    arrays = [_data(*s) for s in input_shapes]

    def make(lib):
        layer = make_layer(lib)
        xs = [lib.tensor(a, requires_grad=True) for a in arrays]

        def run():
            for x in xs:
                x.grad = None
            layer.zero_grad()
            layer(*xs).sum().backward()
        return run
    return _per_lib(make)


def _cross_entropy_make():
    logits, target = _data(512, 1000), _RNG.integers(0, 1000, 512)

    def make(lib):
        x, y = lib.tensor(logits, requires_grad=True), lib.tensor(target)

        def run():
            x.grad = None
            lib.nn.functional.cross_entropy(x, y).backward()
        return run
    return make


def _embedding_make():
    idx = _RNG.integers(0, 10000, (64, 64))

    def make(lib):
        emb, i = lib.nn.Embedding(10000, 128), lib.tensor(idx)

        def run():
            emb.zero_grad()
            emb(i).sum().backward()
        return run
    return make


def _lenet(lib):
    nn = lib.nn
    return nn.Sequential(
        nn.Conv2d(1, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(16 * 5 * 5, 120), nn.ReLU(),
        nn.Linear(120, 84), nn.ReLU(), nn.Linear(84, 10))


def _lenet_make():
    """One SGD step of LeNet-5 on a batch of 64 28x28 images. The update is written out
    (``p -= lr * p.grad`` under no_grad, what SGD without momentum does) so that the case
    does not depend on torch.optim."""
    images, labels = _data(64, 1, 28, 28), _RNG.integers(0, 10, 64)

    def make(lib):
        model = _lenet(lib)
        params = list(model.parameters())
        x, y = lib.tensor(images), lib.tensor(labels)

        def step():
            for p in params:
                p.grad = None
            lib.nn.functional.cross_entropy(model(x), y).backward()
            with lib.no_grad():
                for p in params:
                    p.sub_(p.grad, alpha=0.01)
        return step
    return make


def _lstm_step(lib):
    """A 2-layer LSTM(128, 256) over 35 steps of a batch of 20: forward, backward."""
    lstm = lib.nn.LSTM(128, 256, 2)
    x = lib.tensor(_LSTM_INPUT, requires_grad=True)

    def run():
        x.grad = None
        lstm.zero_grad()
        out, (h, c) = lstm(x)
        out.sum().backward()
    return run


_LSTM_INPUT = _data(35, 20, 128)


def _causal_sdpa(lib):
    """Causal scaled_dot_product_attention on 8x4x128x32: forward, backward."""
    q, k, v = (lib.tensor(a, requires_grad=True) for a in _SDPA_INPUTS)

    def run():
        for t in (q, k, v):
            t.grad = None
        lib.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True).sum().backward()
    return run


_SDPA_INPUTS = [_data(8, 4, 128, 32) for _ in range(3)]


def _forward(make_layer, shape):
    """A layer's forward alone (no graph: the input does not require grad)."""
    data = _data(*shape)

    def make(lib):
        layer, x = make_layer(lib), lib.tensor(data)
        return lambda: layer(x)
    return make


def _loss_step(loss_name, target_kind):
    """F.<loss>(logits, target).backward() over 512x1000 float32 logits."""
    logits = _data(512, 1000)
    targets = {"classes": _RNG.integers(0, 1000, 512), "values": _data(512, 1000)}

    def make(lib):
        x = lib.tensor(logits, requires_grad=True)
        y = lib.tensor(targets[target_kind])
        loss = getattr(lib.nn.functional, loss_name)

        def run():
            x.grad = None
            loss(x, y).backward()
        return run
    return make


def _row_op(method):
    rows = _data(4096, 1024)

    def make(lib):
        x = lib.tensor(rows)
        return lambda: getattr(x, method)(1)
    return make


def _linear_call(shape, grad=True):
    def make(lib):
        layer, x = lib.nn.Linear(4, 4), lib.ones(*shape)
        if grad:
            return lambda: layer(x)

        def call():
            with lib.no_grad():
                return layer(x)
        return call
    return make


def _linear_hooked(lib):
    layer, x = lib.nn.Linear(4, 4), lib.ones(4, 4)
    layer.register_forward_hook(lambda mod, args, out: None)
    return lambda: layer(x)


def _small_sequential(lib):
    nn = lib.nn
    net, x = nn.Sequential(nn.Linear(4, 8), nn.Flatten(), nn.Identity(), nn.Linear(8, 2)), \
        lib.ones(3, 4)
    return lambda: net(x)


def _conv_step(x_shape, w_shape, **kwargs):
    """F.conv2d forward + backward with weight and bias gradients."""
    xa, wa = _data(*x_shape), _data(*w_shape)

    def make(lib):
        x = lib.tensor(xa, requires_grad=True)
        w = lib.tensor(wa, requires_grad=True)
        b = lib.zeros(w_shape[0], requires_grad=True)

        def run():
            x.grad = w.grad = b.grad = None
            lib.nn.functional.conv2d(x, w, b, **kwargs).sum().backward()
        return run
    return make


def _clip_grad_norm(lib):
    params = [lib.randn(256, 256, requires_grad=True) for _ in range(10)]
    for p in params:
        p.grad = lib.randn(256, 256)
    return lambda: lib.nn.utils.clip_grad_norm_(params, 1.0)


def _parametrized_step(parametrize, size):
    def make(lib):
        layer = parametrize(lib)(lib.nn.Linear(size, size))
        x = lib.randn(32, size)

        def run():
            layer.zero_grad()
            layer(x).sum().backward()
        return run
    return make


def _functional_call(lib):
    net = lib.nn.Sequential(lib.nn.Linear(16, 16), lib.nn.ReLU(), lib.nn.Linear(16, 4))
    params = dict(net.named_parameters())
    x = lib.randn(8, 16)
    return lambda: lib.func.functional_call(net, params, (x,))


NN_CASES = [
    Case("nn Conv2d(3,16,3,p=1) fwd+bwd 32x3x32x32", _fwd_bwd(
        lambda lib: lib.nn.Conv2d(3, 16, 3, padding=1), (32, 3, 32, 32)), number=10),
    Case("nn LeNet-5 SGD step, batch 64", _per_lib(_lenet_make()), number=5),
    Case("nn LayerNorm(512) fwd+bwd 32x128x512", _fwd_bwd(
        lambda lib: lib.nn.LayerNorm(512), (32, 128, 512)), number=5),
    Case("nn BatchNorm2d(16) fwd+bwd 32x16x32x32", _fwd_bwd(
        lambda lib: lib.nn.BatchNorm2d(16), (32, 16, 32, 32)), number=10),
    Case("nn cross_entropy 512x1000 fwd+bwd", _per_lib(_cross_entropy_make()), number=20),
    Case("nn Embedding(10000,128) fwd+bwd 64x64", _per_lib(_embedding_make()), number=20),
    Case("nn tiny Linear(4, 4) call", _per_lib(_linear_call((4, 4))), number=20000),
    # more of the same layers, for context (no targets)
    Case("nn LayerNorm(512) forward 32x128x512", _per_lib(_forward(
        lambda lib: lib.nn.LayerNorm(512), (32, 128, 512))), number=5),
    Case("nn BatchNorm2d(16) forward 32x16x32x32", _per_lib(_forward(
        lambda lib: lib.nn.BatchNorm2d(16), (32, 16, 32, 32))), number=10),
    Case("nn tiny Linear(4, 4) call, x 1x4", _per_lib(_linear_call((1, 4))), number=20000),
    Case("nn tiny Linear(4, 4) call under no_grad", _per_lib(_linear_call((4, 4), False)),
         number=20000),
    Case("nn tiny Linear(4, 4) call with a forward hook", _per_lib(_linear_hooked),
         number=20000),
    Case("nn tiny Sequential(Linear, Flatten, Identity, Linear)", _per_lib(_small_sequential),
         number=10000),
    Case("nn conv2d fwd+bwd LeNet conv1 64x1x28x28 k5", _per_lib(
        _conv_step((64, 1, 28, 28), (6, 1, 5, 5))), number=5),
    Case("nn conv2d fwd+bwd LeNet conv2 64x6x12x12 k5", _per_lib(
        _conv_step((64, 6, 12, 12), (16, 6, 5, 5))), number=5),
    Case("nn conv2d fwd+bwd 8x64x16x16 -> 64, k3", _per_lib(
        _conv_step((8, 64, 16, 16), (64, 64, 3, 3), padding=1)), number=5),
    Case("nn conv2d fwd+bwd depthwise 8x32x16x16", _per_lib(
        _conv_step((8, 32, 16, 16), (32, 1, 3, 3), padding=1, groups=32)), number=5),
    Case("nn conv2d fwd+bwd stride 2 16x16x16x16 -> 32", _per_lib(
        _conv_step((16, 16, 16, 16), (32, 16, 3, 3), stride=2, padding=1)), number=5),
    Case("nn nll_loss 512x1000 fwd+bwd", _per_lib(_loss_step("nll_loss", "classes")),
         number=20),
    Case("nn mse_loss 512x1000 fwd+bwd", _per_lib(_loss_step("mse_loss", "values")),
         number=20),
    Case("nn softmax rows of 4096x1024", _per_lib(_row_op("softmax")), number=10),
    Case("nn log_softmax rows of 4096x1024", _per_lib(_row_op("log_softmax")), number=10),
    Case("nn clip_grad_norm_ 10 x 256x256", _per_lib(_clip_grad_norm), number=20),
    Case("nn Linear(512, 512) construction", _per_lib(lambda lib: lambda: lib.nn.Linear(
        512, 512)), number=20),
    Case("nn weight_norm Linear(256) fwd+bwd", _per_lib(_parametrized_step(
        lambda lib: lib.nn.utils.parametrizations.weight_norm, 256)), number=20),
    Case("nn spectral_norm Linear(256) fwd+bwd", _per_lib(_parametrized_step(
        lambda lib: lib.nn.utils.parametrizations.spectral_norm, 256)), number=20),
    Case("nn orthogonal Linear(64) fwd+bwd", _per_lib(_parametrized_step(
        lambda lib: lib.nn.utils.parametrizations.orthogonal, 64)), number=20),
    Case("nn functional_call small MLP", _per_lib(_functional_call), number=2000),
    Case("nn LSTM(128, 256, 2) seq 35 batch 20 fwd+bwd", _per_lib(_lstm_step), number=5),
    Case("nn causal SDPA 8x4x128x32 fwd+bwd", _per_lib(_causal_sdpa), number=20),
    Case("nn TransformerEncoderLayer(128, 4, 512) 16x64 tokens fwd+bwd", _fwd_bwd(
        lambda lib: lib.nn.TransformerEncoderLayer(128, 4, 512), (64, 16, 128)), number=5),
]
