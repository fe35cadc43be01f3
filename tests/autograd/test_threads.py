"""Autograd under threads, against torch (issue 13, item 1).

What torch keeps per thread (grad mode, inference mode, saved-tensor hooks, autocast, the
engine's state during a backward pass) must be per thread here too, and what torch keeps
for the process (anomaly mode, the default dtype, the default generator) must stay global.
Each scenario runs the same threads under ``strided`` and under ``torch`` and compares what
the threads saw. The stress test is the issue's: three threads training while one sits in
``no_grad`` and one in ``inference_mode``.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest
import torch

import strided

_TIMEOUT = 30      # seconds: a thread that never arrives fails the test instead of hanging it


def _in_thread(fn, *args):
    """``fn(*args)`` run in a new thread; its result (or exception) comes back."""
    box = {}

    def target():
        try:
            box["value"] = fn(*args)
        except BaseException as e:  # noqa: BLE001 - re-raised in the caller
            box["error"] = e
    t = threading.Thread(target=target)
    t.start()
    t.join(_TIMEOUT)
    assert not t.is_alive(), "the thread did not finish"
    if "error" in box:
        raise box["error"]
    return box["value"]


def _run_threads(fns):
    """Start one thread per function at once (behind a barrier); results in order."""
    barrier = threading.Barrier(len(fns), timeout=_TIMEOUT)
    results = [None] * len(fns)
    errors = []

    def target(i, fn):
        try:
            barrier.wait()
            results[i] = fn()
        except BaseException as e:  # noqa: BLE001 - reported by the caller
            errors.append(e)
    threads = [threading.Thread(target=target, args=(i, fn)) for i, fn in enumerate(fns)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(_TIMEOUT)
        assert not t.is_alive(), "a thread did not finish"
    if errors:
        raise errors[0]
    return results


def _both(scenario):
    s, t = scenario(strided), scenario(torch)
    assert s == t, f"\nstrided: {s}\ntorch:   {t}"
    return s


# -- per-thread modes, against torch ---------------------------------------------------------

def test_new_thread_starts_with_grad_mode_on():
    def scenario(m):
        seen = {}
        with m.no_grad():
            seen["no_grad"] = _in_thread(m.is_grad_enabled)
        with m.inference_mode():
            seen["inference"] = _in_thread(
                lambda: (m.is_grad_enabled(), m.is_inference_mode_enabled()))
            seen["inference_here"] = (m.is_grad_enabled(), m.is_inference_mode_enabled())
        with m.set_grad_enabled(False):
            seen["set_false"] = _in_thread(m.is_grad_enabled)
            x = m.ones(2, requires_grad=True)
            seen["records_in_thread"] = _in_thread(lambda: (x * 2).requires_grad)
            seen["records_here"] = (x * 2).requires_grad
        return seen
    seen = _both(scenario)
    assert seen["no_grad"] is True and seen["inference"] == (True, False)


def test_grad_mode_set_in_a_thread_stays_there():
    def scenario(m):
        def turn_off():
            m.set_grad_enabled(False)               # not as a context manager: left off
            x = m.ones(2, requires_grad=True)
            return m.is_grad_enabled(), (x * 2).requires_grad
        inside = _in_thread(turn_off)
        x = m.ones(2, requires_grad=True)
        return inside, m.is_grad_enabled(), (x * 2).requires_grad
    assert _both(scenario) == ((False, False), True, True)


def test_no_grad_in_one_thread_while_another_records():
    # the two threads interleave their steps: each must see only its own mode
    def scenario(m):
        steps = [threading.Event() for _ in range(4)]
        seen = {}

        def quiet():
            with m.no_grad():
                steps[0].set()
                assert steps[1].wait(_TIMEOUT)
                seen["quiet"] = (m.is_grad_enabled(),
                                 (m.ones(2, requires_grad=True) * 2).requires_grad)
                steps[2].set()
                assert steps[3].wait(_TIMEOUT)

        def busy():
            assert steps[0].wait(_TIMEOUT)
            x = m.ones(2, requires_grad=True)
            y = (x * x).sum()
            steps[1].set()
            assert steps[2].wait(_TIMEOUT)
            y.backward()
            seen["busy"] = (m.is_grad_enabled(), y.requires_grad, x.grad.tolist())
            steps[3].set()

        def releasing(fn):
            def run():
                try:
                    fn()
                finally:                  # (a thread that fails does not leave the other waiting)
                    for step in steps:
                        step.set()
            return run
        _run_threads([releasing(quiet), releasing(busy)])
        return seen
    assert _both(scenario) == {"quiet": (False, False), "busy": (True, True, [2.0, 2.0])}


def test_multithreading_flag_is_per_thread():
    def scenario(m):
        out = []
        with m.autograd.set_multithreading_enabled(False):
            out.append((m.autograd.is_multithreading_enabled(),
                        _in_thread(m.autograd.is_multithreading_enabled)))
            x = m.ones(2, requires_grad=True)
            (x * x).sum().backward()                 # backward runs all the same
            out.append(x.grad.tolist())
        out.append(m.autograd.is_multithreading_enabled())
        try:
            m.autograd.set_multithreading_enabled(1)
        except TypeError as e:
            out.append(str(e))
        return out
    assert _both(scenario)[0] == (False, True)


def test_anomaly_mode_is_global_as_in_torch():
    # torch keeps anomaly mode in one process-wide flag (AnomalyMode is static, not
    # thread-local): a thread sees the caller's setting and its own change stays set
    def scenario(m):
        out = []
        with m.autograd.set_detect_anomaly(True, check_nan=False):
            out.append(_in_thread(lambda: (m.is_anomaly_enabled(),
                                           m.is_anomaly_check_nan_enabled())))
        out.append(m.is_anomaly_enabled())
        _in_thread(lambda: m.autograd.set_detect_anomaly(True))
        out.append((m.is_anomaly_enabled(), m.is_anomaly_check_nan_enabled()))
        m.autograd.set_detect_anomaly(False)
        out.append(m.is_anomaly_enabled())
        return out
    assert _both(scenario) == [(True, False), False, (True, True), False]


def test_saved_tensors_hooks_are_per_thread():
    def scenario(m):
        log = []

        def pack(t):
            log.append(("pack", threading.current_thread().name))
            return t

        def unpack(t):
            log.append(("unpack", threading.current_thread().name))
            return t

        def work():
            x = m.ones(2, requires_grad=True)
            (x * x).sum().backward()
            return x.grad.tolist()
        with m.autograd.graph.saved_tensors_hooks(pack, unpack):
            other = _in_thread(work)             # the thread has no hooks
            n_after_thread = len(log)
            here = work()
            x = m.ones(2, requires_grad=True)
            y = (x * x).sum()
        # a graph packed here and run backward in another thread unpacks with these hooks
        _in_thread(y.backward)
        names = [kind for kind, _ in log]
        return other, n_after_thread, here, names, x.grad.tolist()
    out = _both(scenario)
    assert out[1] == 0 and out[3].count("pack") == 4


def test_disable_saved_tensors_hooks_is_per_thread():
    def scenario(m):
        def push():
            try:
                with m.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
                    return "ok"
            except RuntimeError as e:
                return str(e)
        with m.autograd.graph.disable_saved_tensors_hooks("no hooks here"):
            return _in_thread(push), push()
    assert _both(scenario) == ("ok", "no hooks here")


def test_autocast_is_per_thread():
    def scenario(m):
        a = m.ones(4, 4)
        with m.autocast("cpu"):
            here = str((a @ a).dtype)
            there = _in_thread(lambda: (m.is_autocast_enabled("cpu"), str((a @ a).dtype)))
        return here, there
    assert _both(scenario) == ("torch.bfloat16", (False, "torch.float32"))


def test_autocast_cast_cache_is_per_thread():
    # torch's cache of lower-precision weight casts is thread-local: a region that ends in
    # another thread neither sees this thread's casts nor clears them
    from strided.amp import autocast_mode
    w = strided.ones(4, 4, requires_grad=True)
    x = strided.ones(2, 4)
    with strided.autocast("cpu"):
        strided.nn.functional.linear(x, w)
        assert len(autocast_mode._STATE.cache) == 1

        def other():
            with strided.autocast("cpu"):
                seen = len(autocast_mode._STATE.cache)
                strided.nn.functional.linear(x, w)
                return seen, len(autocast_mode._STATE.cache)
        assert _in_thread(other) == (0, 1)
        assert len(autocast_mode._STATE.cache) == 1
    assert not autocast_mode._STATE.cache


def test_backward_runs_with_the_callers_modes():
    # inside a backward pass hooks see grad mode = create_graph and the caller's inference
    # mode, in the thread that runs it; another thread meanwhile keeps its own grad mode
    def scenario(m):
        seen = []
        x = m.ones(2, requires_grad=True)
        y = (x * x).sum()
        x.register_hook(lambda g: seen.append((m.is_grad_enabled(),
                                               m.is_inference_mode_enabled())))
        with m.inference_mode():
            y.backward(retain_graph=True)
        x.grad = None                  # (made in inference mode: torch refuses to add to it)
        with m.no_grad():
            _in_thread(lambda: y.backward(retain_graph=True))
        grads = m.autograd.grad(y, x, create_graph=True)
        seen.append(grads[0].requires_grad)
        return seen
    assert _both(scenario) == [(False, True), (False, False), (True, False), True]


def test_default_dtype_stays_global():
    def scenario(m):
        before = m.get_default_dtype()
        try:
            _in_thread(m.set_default_dtype, m.float64)
            return str(m.get_default_dtype()), str(m.ones(1).dtype)
        finally:
            m.set_default_dtype(before)
    assert _both(scenario) == ("torch.float64", "torch.float64")


# -- concurrent backward ---------------------------------------------------------------------

def test_concurrent_backward_on_independent_graphs():
    def scenario(m):
        def one(k):
            def run():
                x = m.arange(6.0, dtype=m.float64).reshape(2, 3).requires_grad_()
                out = []
                for i in range(20):
                    loss = ((x * (k + i)).sin() * x).sum()
                    g, = m.autograd.grad(loss, x, retain_graph=True)
                    loss.backward()
                    out.append(np.array_equal(np.asarray(g.tolist()),
                                              np.asarray(x.grad.tolist())))
                    x.grad = None
                return all(out), g.tolist()
            return run
        return _run_threads([one(k) for k in range(4)])
    s = scenario(strided)
    t = scenario(torch)
    assert all(ok for ok, _ in s)
    for (_, gs), (_, gt) in zip(s, t):
        np.testing.assert_allclose(gs, gt, rtol=1e-12)


def test_concurrent_backward_accumulates_into_a_shared_leaf():
    # integer-valued gradients: the sum is exact whatever order the passes add in
    n_threads, reps, size = 4, 25, 200_000

    def scenario(m):
        w = m.zeros(size, dtype=m.float64, requires_grad=True)

        def worker(k):
            def run():
                for _ in range(reps):
                    (w * float(k + 1)).sum().backward()
            return run
        _run_threads([worker(k) for k in range(n_threads)])
        return w.grad.unique().tolist()
    expected = [float(reps * sum(range(1, n_threads + 1)))]
    assert scenario(torch) == expected
    assert scenario(strided) == expected


def test_concurrent_backward_through_a_shared_graph():
    def scenario(m):
        x = m.tensor([1.0, 2.0, 3.0], dtype=m.float64, requires_grad=True)
        y = (x * x * x).sum()                    # built once, run by every thread

        def worker():
            grads = [m.autograd.grad(y, x, retain_graph=True)[0].tolist() for _ in range(10)]
            for _ in range(10):
                y.backward(retain_graph=True)
            return grads
        results = _run_threads([worker] * 3)
        return results, x.grad.tolist()
    assert _both(scenario)[1] == [90.0, 360.0, 810.0]


# -- the stress test -------------------------------------------------------------------------

def _training_run(m, w0, b0, xs, ys, steps):
    """A Linear model trained with a hand-written SGD step; its grads and final weights."""
    lin = m.nn.Linear(4, 3, dtype=m.float64)
    with m.no_grad():
        lin.weight.copy_(m.tensor(w0, dtype=m.float64))
        lin.bias.copy_(m.tensor(b0, dtype=m.float64))
    x = m.tensor(xs, dtype=m.float64)
    y = m.tensor(ys, dtype=m.float64)
    grads = []
    for _ in range(steps):
        loss = m.nn.functional.mse_loss(m.tanh(lin(x)), y)
        loss.backward()
        grads.append(np.concatenate([np.ravel(lin.weight.grad.tolist()),
                                     lin.bias.grad.tolist()]))
        with m.no_grad():
            for p in lin.parameters():
                p -= 0.05 * p.grad
        lin.zero_grad()
    return np.stack(grads), np.array(lin.weight.detach().tolist())


def test_threads_training_while_others_sit_in_no_grad_and_inference_mode():
    rng = np.random.default_rng(0)
    w0, b0 = rng.standard_normal((3, 4)).tolist(), rng.standard_normal(3).tolist()
    xs, ys = rng.standard_normal((16, 4)).tolist(), rng.standard_normal((16, 3)).tolist()
    steps = 60
    ref_grads, ref_w = _training_run(strided, w0, b0, xs, ys, steps)
    torch_grads, torch_w = _training_run(torch, w0, b0, xs, ys, steps)
    np.testing.assert_allclose(ref_grads, torch_grads, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(ref_w, torch_w, rtol=1e-10, atol=1e-12)

    stop = threading.Event()
    forward_counts = {}

    def sit(name, mode):
        def run():
            lin = strided.nn.Linear(4, 3, dtype=strided.float64)
            x = strided.tensor(xs, dtype=strided.float64)
            n = 0
            with mode():
                while not stop.is_set() or n < 20:
                    out = lin(x).relu().sum()
                    assert not out.requires_grad and not strided.is_grad_enabled()
                    n += 1
            forward_counts[name] = n
        return run

    def trainer():
        return _training_run(strided, w0, b0, xs, ys, steps)

    sitters = [threading.Thread(target=sit("no_grad", strided.no_grad)),
               threading.Thread(target=sit("inference", strided.inference_mode))]
    for t in sitters:
        t.start()
    try:
        results = _run_threads([trainer] * 3)
    finally:
        stop.set()
        for t in sitters:
            t.join()
    assert sorted(forward_counts) == ["inference", "no_grad"]
    for grads, w in results:
        assert grads.shape == ref_grads.shape          # every backward pass ran
        np.testing.assert_array_equal(grads, ref_grads)
        np.testing.assert_array_equal(w, ref_w)


# -- generators ------------------------------------------------------------------------------

def _draws(m, seed, n=30):
    g = m.Generator().manual_seed(seed)
    out = []
    for i in range(n):
        out.append(m.randn(5, generator=g, dtype=m.float64).tolist())
        out.append(m.rand(3, generator=g).tolist())
        out.append(m.randint(0, 1000, (4,), generator=g).tolist())
        out.append(m.randperm(7 + i % 3, generator=g).tolist())
    return out


def test_threads_drawing_from_separate_generators():
    seeds = [1, 22, 333, 4444]
    serial = [_draws(strided, s) for s in seeds]
    threaded = _run_threads([lambda s=s: _draws(strided, s) for s in seeds])
    assert threaded == serial
    assert serial == [_draws(torch, s) for s in seeds]


def test_global_generator_is_shared_as_in_torch():
    # the default generator is global: draws in a thread advance it for everyone
    def scenario(m):
        m.manual_seed(7)
        first = _in_thread(lambda: m.rand(3).tolist())
        second = m.rand(3).tolist()
        m.manual_seed(7)
        return first, second, m.rand(6).tolist() == first + second
    _, _, consistent = _both(scenario)
    assert consistent


# -- explain ---------------------------------------------------------------------------------

def test_explain_records_only_its_own_thread():
    from strided.utils.explain import Explanation
    started, done = threading.Event(), threading.Event()
    calls = [0]

    def noisy():
        started.set()
        a = strided.ones(3)
        while not done.is_set():
            a.mul(2)
            calls[0] += 1

    t = threading.Thread(target=noisy)
    t.start()
    assert started.wait(_TIMEOUT)
    try:
        with Explanation() as ex:
            a = strided.ones(2)
            before = calls[0]
            for _ in range(10_000):            # until the other thread has run meanwhile
                a = a + 1
                if calls[0] > before + 5:
                    break
            ran_meanwhile = calls[0] - before
    finally:
        done.set()
        t.join()
    assert ran_meanwhile > 5
    ops = {step.op for _, step in ex.walk() if hasattr(step, "op")}
    assert "aten::add.Tensor" in ops
    assert "aten::mul.Tensor" not in ops


if __name__ == "__main__":
    pytest.main([__file__, "-q"])
