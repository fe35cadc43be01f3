"""strided.amp against torch's CPU autocast: result dtypes (and values to the lower
precision's rounding) of ops inside and outside a region, the state functions, the
deprecated spellings, gradients, and GradScaler (disabled and enabled on the CPU)."""

from __future__ import annotations

import threading
import warnings

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import strided
from strided.amp import autocast_mode
from tests.conftest import check, dtype_name, hyp


def _maker(lib, seed=0):
    rng = np.random.default_rng(seed)

    def make(*shape, dtype=None):
        t = lib.tensor(rng.standard_normal(shape).astype(np.float32))
        return t if dtype is None else t.to(getattr(lib, dtype))
    return make


BF = "bfloat16"
OPS = {
    "mm": lambda L, T: L.mm(T(3, 4), T(4, 5)),
    "bmm": lambda L, T: L.bmm(T(2, 3, 4), T(2, 4, 5)),
    "matmul": lambda L, T: L.matmul(T(3, 4), T(4)),
    "matmul_op": lambda L, T: T(2, 3, 4) @ T(4, 2),
    "addmm": lambda L, T: L.addmm(T(3, 5), T(3, 4), T(4, 5)),
    "baddbmm": lambda L, T: L.baddbmm(T(2, 3, 5), T(2, 3, 4), T(2, 4, 5)),
    "addbmm": lambda L, T: L.addbmm(T(3, 5), T(2, 3, 4), T(2, 4, 5)),
    "linear": lambda L, T: L.nn.functional.linear(T(3, 4), T(5, 4), T(5)),
    "conv1d": lambda L, T: L.nn.functional.conv1d(T(1, 2, 8), T(3, 2, 3)),
    "conv2d": lambda L, T: L.nn.functional.conv2d(T(1, 2, 6, 6), T(3, 2, 3, 3), T(3)),
    "conv3d": lambda L, T: L.nn.functional.conv3d(T(1, 1, 4, 4, 4), T(2, 1, 2, 2, 2)),
    "conv_transpose2d": lambda L, T: L.nn.functional.conv_transpose2d(T(1, 2, 4, 4),
                                                                      T(2, 3, 3, 3)),
    "prelu": lambda L, T: L.nn.functional.prelu(T(2, 3), T(3)),
    "einsum_bmm": lambda L, T: L.einsum("ij,jk->ik", T(3, 4), T(4, 5)),
    "einsum_outer": lambda L, T: L.einsum("i,j->ij", T(3), T(4)),
    "einsum_chain": lambda L, T: L.einsum("ij,jk,kl->il", T(2, 3), T(3, 4), T(4, 5)),
    "relu": lambda L, T: L.relu(T(3)),
    "relu_bf16": lambda L, T: L.relu(T(3, dtype=BF)),
    "softmax": lambda L, T: L.softmax(T(3, 4), 1),
    "softmax_bf16": lambda L, T: L.softmax(T(3, 4, dtype=BF), 1),
    "log_softmax": lambda L, T: L.log_softmax(T(3, 4), 1),
    "sum": lambda L, T: L.sum(T(3, 4)),
    "sum_bf16": lambda L, T: L.sum(T(3, 4, dtype=BF)),
    "mean": lambda L, T: T(3, 4).mean(0),
    "layer_norm": lambda L, T: L.nn.functional.layer_norm(T(3, 4), (4,), T(4), T(4)),
    "add_mixed": lambda L, T: T(3, dtype=BF) + T(3),
    "mv": lambda L, T: L.mv(T(3, 4), T(4)),
    "dot": lambda L, T: L.dot(T(4), T(4)),
    "mse_loss": lambda L, T: L.nn.functional.mse_loss(T(3, 4, dtype=BF), T(3, 4)),
    "l1_loss": lambda L, T: L.nn.functional.l1_loss(T(3, 4, dtype=BF), T(3, 4, dtype=BF)),
    "smooth_l1_loss": lambda L, T: L.nn.functional.smooth_l1_loss(T(3, dtype=BF), T(3)),
    "huber_loss": lambda L, T: L.nn.functional.huber_loss(T(3, dtype=BF), T(3)),
    "cross_entropy": lambda L, T: L.nn.functional.cross_entropy(T(3, 4, dtype=BF),
                                                                L.tensor([0, 1, 2])),
    "nll_loss": lambda L, T: L.nn.functional.nll_loss(T(3, 4, dtype=BF), L.tensor([0, 1, 2])),
    "bce_with_logits": lambda L, T: L.nn.functional.binary_cross_entropy_with_logits(
        T(3, dtype=BF), T(3).sigmoid()),
    "kl_div": lambda L, T: L.nn.functional.kl_div(T(3, dtype=BF), T(3, dtype=BF),
                                                  reduction="batchmean"),
    "prod": lambda L, T: L.prod(T(3, dtype=BF)),
    "prod_dim": lambda L, T: L.prod(T(3, 2, dtype=BF), 1),
    "trace": lambda L, T: L.trace(T(3, 3, dtype=BF)),
    "inverse": lambda L, T: L.inverse(T(3, 3, dtype=BF) + 3 * L.eye(3, dtype=L.bfloat16)),
    "max_pool3d": lambda L, T: L.nn.functional.max_pool3d(T(1, 1, 4, 4, 4, dtype=BF), 2),
    "avg_pool3d": lambda L, T: L.nn.functional.avg_pool3d(T(1, 1, 4, 4, 4, dtype=BF), 2),
    "reflection_pad1d": lambda L, T: L.nn.functional.pad(T(1, 2, 4, dtype=BF), (1, 1),
                                                         mode="reflect"),
    "replication_pad2d": lambda L, T: L.nn.functional.pad(T(1, 1, 3, 3, dtype=BF),
                                                          (1, 1, 1, 1), mode="replicate"),
    "cat_promote": lambda L, T: L.cat([T(2, dtype=BF), T(2)]),
    "cat_lower": lambda L, T: L.cat([T(2, dtype=BF), T(2, dtype=BF)]),
    "cat_double_ignored": lambda L, T: L.cat([T(2, dtype=BF), T(2).double()]),
    "stack_promote": lambda L, T: L.stack([T(2, dtype=BF), T(2)]),
    "index_copy_promote": lambda L, T: T(3, 2, dtype=BF).index_copy(0, L.tensor([0, 2]),
                                                                     T(2, 2)),
    "mm_double": lambda L, T: L.mm(T(3, 4).double(), T(4, 5).double()),
    "mm_double_mixed": lambda L, T: L.mm(T(3, 4).double(), T(4, 5)),
    "mm_int": lambda L, T: L.mm(L.ones(2, 2, dtype=L.int64), L.ones(2, 2, dtype=L.int64)),
    "module_linear_relu": lambda L, T: L.nn.Sequential(L.nn.Linear(4, 3), L.nn.ReLU())(T(2, 4)),
}


def _run_both(fn, dtype):
    results = []
    for lib in (torch, strided):
        lib.manual_seed(0)
        T = _maker(lib)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                with lib.autocast("cpu", dtype=getattr(lib, dtype)):
                    out = fn(lib, T)
            results.append(out)
        except Exception as e:  # noqa: BLE001 - compared below
            results.append(e)
    return results


def _assert_close(s, t):
    assert dtype_name(s.dtype) == dtype_name(t.dtype), (s.dtype, t.dtype)
    assert tuple(s.shape) == tuple(t.shape)
    sv = s.detach().float().numpy()
    tv = t.detach().float().numpy()
    low = t.dtype in (torch.bfloat16, torch.float16)
    # the same inputs rounded the same way; the products may round differently by one
    # unit of the lower precision type
    tol = 2 ** -6 if t.dtype == torch.bfloat16 else (2 ** -9 if low else 1e-5)
    np.testing.assert_allclose(sv, tv, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("name", list(OPS))
def test_autocast_op_dtypes_and_values_match_torch(name, dtype):
    t, s = _run_both(OPS[name], dtype)
    if isinstance(t, Exception):
        assert type(s) is type(t) and str(s) == str(t), (s, t)
        return
    assert not isinstance(s, Exception), s
    _assert_close(s, t)


@pytest.mark.parametrize("name", ["mm", "linear", "conv2d", "softmax", "cat_promote"])
def test_outside_the_region_nothing_is_cast(name):
    results = []
    for lib in (torch, strided):
        lib.manual_seed(0)
        with lib.autocast("cpu"):
            pass
        results.append(OPS[name](lib, _maker(lib)))
    t, s = results
    assert dtype_name(s.dtype) == dtype_name(t.dtype) == "float32"
    _assert_close(s, t)


def test_autocast_gradients_match_torch():
    grads = []
    for lib in (torch, strided):
        lib.manual_seed(0)
        model = lib.nn.Sequential(lib.nn.Linear(4, 8), lib.nn.ReLU(), lib.nn.Linear(8, 2))
        x = _maker(lib, 1)(5, 4)
        target = lib.tensor([0, 1, 1, 0, 1])
        with lib.autocast("cpu"):
            out = model(x)
            loss = lib.nn.functional.cross_entropy(out, target)
        assert dtype_name(out.dtype) == "bfloat16"
        assert dtype_name(loss.dtype) == "float32"
        loss.backward()
        grads.append([(p.grad.dtype, p.grad.float().numpy()) for p in model.parameters()])
        grads[-1].append(type(out.grad_fn).__name__)
    gt, gs = grads
    assert gs[-1] == gt[-1]
    for (ds, vs), (dt_, vt) in zip(gs[:-1], gt[:-1]):
        assert dtype_name(ds) == dtype_name(dt_) == "float32"
        np.testing.assert_allclose(vs, vt, rtol=2 ** -5, atol=2 ** -6)


def test_weight_used_twice_is_cast_once_per_region():
    for lib in (torch, strided):
        w = lib.ones(3, 3, requires_grad=True)
        x = lib.ones(2, 3)
        with lib.autocast("cpu"):
            y = lib.mm(x, w) + lib.mm(x, w)
            if lib is strided:
                assert len(autocast_mode._CACHE) == 1
        y.sum().backward()
        assert w.grad.dtype == lib.float32 and float(w.grad.sum()) == 36.0
    assert not autocast_mode._CACHE    # cleared when the outermost region exits


def test_cache_disabled_keeps_no_casts():
    w = strided.ones(3, 3, requires_grad=True)
    with strided.autocast("cpu", cache_enabled=False):
        strided.mm(strided.ones(2, 3), w)
        assert not autocast_mode._CACHE
        assert not strided.is_autocast_cache_enabled()
    assert strided.is_autocast_cache_enabled()


def test_state_inside_and_outside():
    def go(lib):
        seen = [lib.is_autocast_enabled("cpu"), lib.get_autocast_dtype("cpu")]
        with lib.autocast("cpu", dtype=lib.float16):
            seen += [lib.is_autocast_enabled("cpu"), lib.get_autocast_dtype("cpu"),
                     lib.is_autocast_enabled(), lib.is_autocast_enabled("cuda")]
            with lib.autocast("cpu", enabled=False):
                seen += [lib.is_autocast_enabled("cpu"), lib.mm(lib.ones(2, 2),
                                                               lib.ones(2, 2)).dtype]
            seen.append(lib.mm(lib.ones(2, 2), lib.ones(2, 2)).dtype)
        seen += [lib.is_autocast_enabled("cpu"), lib.get_autocast_dtype("cpu"),
                 lib.get_autocast_dtype("cuda"), lib.is_autocast_cache_enabled()]
        return seen
    check(go)


def test_deprecated_setters():
    def go(lib):
        lib.set_autocast_enabled(True)          # one argument: the CUDA state
        seen = [lib.is_autocast_enabled("cuda"), lib.is_autocast_enabled("cpu")]
        lib.set_autocast_enabled(False)
        lib.set_autocast_cpu_enabled(True)
        lib.set_autocast_cpu_dtype(lib.float16)
        try:
            seen += [lib.is_autocast_enabled("cpu"), lib.get_autocast_dtype("cpu"),
                     lib.mm(lib.ones(2, 2), lib.ones(2, 2)).dtype]
        finally:
            lib.set_autocast_cpu_enabled(False)
            lib.set_autocast_cpu_dtype(lib.bfloat16)
        return seen + [lib.is_autocast_enabled("cpu"), lib.get_autocast_dtype("cpu")]
    check(go)


def test_set_autocast_enabled_directly():
    def go(lib):
        lib.set_autocast_enabled("cpu", True)
        try:
            inside = lib.mm(lib.ones(2, 2), lib.ones(2, 2)).dtype
        finally:
            lib.set_autocast_enabled("cpu", False)
        return inside, lib.mm(lib.ones(2, 2), lib.ones(2, 2)).dtype
    check(go)


def test_decorator_form():
    def go(lib):
        @lib.autocast("cpu")
        def f(a, b):
            return lib.mm(a, b)
        return f(lib.ones(2, 2), lib.ones(2, 2)).dtype, lib.is_autocast_enabled("cpu")
    check(go)
    check(lambda lib: lib.autocast("cpu")(3))


@pytest.mark.parametrize("make", [
    lambda lib: lib.autocast("cpu", dtype=lib.float32)._enabled,
    lambda lib: lib.autocast("cpu", dtype=lib.float64)._enabled,
    lambda lib: lib.autocast("cuda")._enabled,
    lambda lib: lib.autocast("foo"),
    lambda lib: lib.autocast(lib.device("cpu")),
    lambda lib: lib.autocast("meta"),
    lambda lib: lib.amp.autocast("cpu", dtype=lib.bfloat16, enabled=False)._enabled,
    lambda lib: lib.amp.is_autocast_available("cpu"),
    lambda lib: lib.amp.is_autocast_available("cuda"),
    lambda lib: lib.amp.is_autocast_available("meta"),
    lambda lib: lib.cpu.amp.autocast()._enabled,
    lambda lib: lib.cpu.amp.autocast().fast_dtype,
    lambda lib: lib.get_autocast_cpu_dtype(),
    lambda lib: lib.is_autocast_cpu_enabled(),
    lambda lib: lib.get_autocast_gpu_dtype(),
    lambda lib: lib.get_autocast_dtype("meta"),
    lambda lib: lib.set_autocast_enabled("meta", True),
    lambda lib: lib.is_autocast_enabled("meta"),
    lambda lib: lib.is_autocast_enabled(1),
    lambda lib: lib.get_autocast_dtype("xla"),
])
def test_construction_checks_and_warnings_match_torch(make):
    check(make)


def test_float32_region_disabled_runs_in_float32():
    def go(lib):
        with lib.autocast("cpu", dtype=lib.float32):
            return lib.mm(lib.ones(2, 2), lib.ones(2, 2)).dtype, lib.is_autocast_enabled("cpu")
    check(go)


def test_autocast_is_thread_local():
    seen = {}

    def other():
        seen["enabled"] = strided.is_autocast_enabled("cpu")
        seen["dtype"] = strided.mm(strided.ones(2, 2), strided.ones(2, 2)).dtype
    with strided.autocast("cpu"):
        t = threading.Thread(target=other)
        t.start()
        t.join()
        assert strided.mm(strided.ones(2, 2), strided.ones(2, 2)).dtype == strided.bfloat16
    assert seen == {"enabled": False, "dtype": strided.float32}


def test_plain_call_restored_and_explain_composes():
    from strided.ops import dispatcher
    plain = dispatcher._plain_call
    assert dispatcher.OperatorHandle.call is plain
    with strided.autocast("cpu"):
        assert dispatcher.OperatorHandle.call is not plain
        remove = strided.add_dispatch_hook(lambda op, key, args: None)
        try:
            assert strided.mm(strided.ones(2, 2), strided.ones(2, 2)).dtype == strided.bfloat16
        finally:
            remove()
        assert strided.mm(strided.ones(2, 2), strided.ones(2, 2)).dtype == strided.bfloat16
    assert dispatcher.OperatorHandle.call is plain


def _mul_function(lib):
    class Mul(lib.autograd.Function):
        @staticmethod
        @lib.amp.custom_fwd(device_type="cpu", cast_inputs=lib.float32)
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            return a.mm(b), lib.is_autocast_enabled("cpu")

        @staticmethod
        @lib.amp.custom_bwd(device_type="cpu")
        def backward(ctx, g, _):
            a, b = ctx.saved_tensors
            return g.mm(b.t()), a.t().mm(g)
    return Mul


def test_custom_fwd_bwd():
    results = []
    for lib in (torch, strided):
        a = lib.ones(2, 2, requires_grad=True)
        with lib.autocast("cpu"):
            out, enabled_inside = _mul_function(lib).apply(a.bfloat16(), lib.ones(2, 2))
        out.sum().backward()
        results.append((str(out.dtype).split(".")[-1], enabled_inside,
                        str(a.grad.dtype).split(".")[-1], a.grad.tolist()))
    assert results[0] == results[1]


# -- GradScaler ----------------------------------------------------------------------------------

def test_disabled_scaler_is_a_pass_through():
    for lib in (strided, torch):
        p = lib.nn.Parameter(lib.ones(2))
        opt = lib.optim.SGD([p], lr=0.5)
        scaler = lib.amp.GradScaler("cpu", enabled=False)
        loss = (p * 3).sum()
        assert scaler.scale(loss) is loss
        outs = [loss, loss]
        assert scaler.scale(outs) is outs
        scaler.scale(loss).backward()
        scaler.unscale_(opt)
        scaler.step(opt)
        scaler.update()
        assert p.tolist() == [-0.5, -0.5]
        assert scaler.state_dict() == {} and scaler.get_scale() == 1.0
        assert not scaler.is_enabled()
        scaler.load_state_dict({})


@pytest.mark.parametrize("make", [
    lambda lib: lib.amp.GradScaler().state_dict(),
    lambda lib: lib.amp.GradScaler("cuda").get_scale(),
    lambda lib: lib.amp.GradScaler("cpu").state_dict(),
    lambda lib: lib.amp.GradScaler("cpu", init_scale=8.0).get_scale(),
    lambda lib: lib.amp.GradScaler("cpu", growth_factor=1.0),
    lambda lib: lib.amp.GradScaler("cpu", backoff_factor=1.0),
    lambda lib: lib.amp.GradScaler("cpu").update(),
    lambda lib: lib.amp.GradScaler("cpu").load_state_dict({}),
    lambda lib: lib.cpu.amp.GradScaler().is_enabled(),
])
def test_scaler_construction_matches_torch(make):
    check(make)


def test_enabled_cpu_scaler_trajectory_matches_torch():
    def go(lib):
        lib.manual_seed(0)
        model = lib.nn.Linear(3, 2)
        opt = lib.optim.SGD(model.parameters(), lr=0.1)
        scaler = lib.amp.GradScaler("cpu", init_scale=2.0 ** 10, growth_interval=2)
        x = lib.ones(4, 3)
        history = []
        for step in range(7):
            opt.zero_grad()
            loss = model(x).pow(2).sum()
            if step == 3:
                loss = loss * float("inf")      # an overflow: the step is skipped
            scaler.scale(loss).backward()
            if step == 5:
                scaler.unscale_(opt)
            scaler.step(opt)
            scaler.update()
            history.append((scaler.get_scale(), scaler._get_growth_tracker(),
                            [round(v, 6) for v in model.weight.flatten().tolist()]))
        return history, scaler.state_dict()
    # (strided's matmul kernel lets NumPy warn about the overflowed step's inf * 0; torch
    # does not warn)
    check(go, warns=False)


def test_scaler_state_dict_round_trip_and_errors():
    def go(lib):
        s = lib.amp.GradScaler("cpu", init_scale=4.0)
        s.scale(lib.ones(1))
        other = lib.amp.GradScaler("cpu")
        other.load_state_dict(s.state_dict())
        return other.state_dict(), other.get_scale()
    check(go)

    def twice(lib):
        p = lib.nn.Parameter(lib.ones(1))
        opt = lib.optim.SGD([p], lr=1.0)
        s = lib.amp.GradScaler("cpu")
        s.scale(p.sum()).backward()
        s.unscale_(opt)
        s.unscale_(opt)
    check(twice)

    def after_step(lib):
        p = lib.nn.Parameter(lib.ones(1))
        opt = lib.optim.SGD([p], lr=1.0)
        s = lib.amp.GradScaler("cpu")
        s.scale(p.sum()).backward()
        s.step(opt)
        s.step(opt)
    check(after_step)

    def closure(lib):
        p = lib.nn.Parameter(lib.ones(1))
        s = lib.amp.GradScaler("cpu")
        s.step(lib.optim.SGD([p], lr=1.0), closure=lambda: 0)
    check(closure)


# -- einsum: torch's composite decides by its last pairwise step (a bmm or a mul) ------------

@st.composite
def _einsum_cases(draw):
    labels = "abcd"
    n = draw(st.integers(2, 3))
    terms = [draw(st.text(labels, min_size=1, max_size=3)) for _ in range(n)]
    used = sorted(set("".join(terms)))
    explicit = draw(st.booleans())
    if explicit:
        out = "".join(draw(st.permutations(used))[:draw(st.integers(0, len(used)))])
        eq = ",".join(terms) + "->" + out
    else:
        eq = ",".join(terms)
    in_bf16 = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    return eq, terms, in_bf16


@hyp(40)
@given(_einsum_cases())
def test_autocast_einsum_dtype_matches_torch(case):
    eq, terms, in_bf16 = case
    sizes = {"a": 2, "b": 3, "c": 2, "d": 3}
    results = []
    for lib in (torch, strided):
        ops = []
        for term, low in zip(terms, in_bf16):
            t = lib.ones(*[sizes[c] for c in term])
            ops.append(t.bfloat16() if low else t)
        try:
            with lib.autocast("cpu"):
                out = lib.einsum(eq, *ops)
            results.append((dtype_name(out.dtype), tuple(out.shape), out.float().sum().item()))
        except Exception as e:  # noqa: BLE001 - compared below
            results.append((type(e).__name__, str(e)))
    assert results[0] == results[1], (eq, in_bf16, results)


def test_scaler_pickles_between_iterations():
    import pickle

    def go(lib):
        p = lib.nn.Parameter(lib.ones(2))
        opt = lib.optim.SGD([p], lr=0.1)
        s = lib.amp.GradScaler("cpu", init_scale=16.0, growth_interval=1)
        s.scale(p.sum()).backward()
        s.step(opt)
        s.update()
        clone = pickle.loads(pickle.dumps(s))
        return clone.get_scale(), clone._get_growth_tracker(), clone.state_dict()
    check(go)

    def mid_iteration(lib):
        p = lib.nn.Parameter(lib.ones(2))
        s = lib.amp.GradScaler("cpu")
        s.scale(p.sum()).backward()
        s.unscale_(lib.optim.SGD([p], lr=0.1))
        pickle.dumps(s)
    check(mid_iteration)
