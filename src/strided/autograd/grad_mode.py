"""Grad mode: whether operations record the graph.

    with strided.no_grad():          # nothing inside records a graph
        y = x * 2                    # y.requires_grad is False

    @strided.enable_grad()           # works as a decorator too
    def f(x): ...

Note [Per-thread grad mode]
~~~~~~~~~~~~~~~~~~~~~~~~~~~
torch keeps grad mode and inference mode per thread, and so does strided: ``STATE`` is a
``threading.local``, so ``no_grad()`` in one thread (or the engine turning grad mode off
for a backward pass) changes nothing another thread sees. A new thread starts with grad
mode on and inference mode off, whatever the thread that started it had (as in torch).
The autograd kernels read ``STATE.enabled`` directly: one thread-local attribute read per
recorded op, no function call.

``inference_mode`` is grad mode off, plus a flag that ``is_inference_mode_enabled``
reports; tensors allocated inside it are inference tensors (Note [Inference tensors] in
core/tensor_impl.py): no version counter, no in-place writes outside inference mode, never
saved for backward.
"""

from __future__ import annotations

import functools
import inspect
import threading

from ..core import tensor_impl as _tensor_impl

__all__ = ["enable_grad", "inference_mode", "is_grad_enabled", "is_inference_mode_enabled",
           "is_multithreading_enabled", "no_grad", "set_grad_enabled",
           "set_multithreading_enabled"]


class _State(threading.local):
    """Grad mode and inference mode of the calling thread (Note [Per-thread grad mode]);
    ``__init__`` runs once in each thread that reads it: a fresh thread's defaults."""

    def __init__(self):
        self.enabled = True
        self.inference = False
        # torch's engine may run a backward pass's nodes on per-device worker threads
        # unless this is off; strided's engine always runs them on the calling thread, so
        # the flag is only reported (per thread, like torch's)
        self.multithreading = True


STATE = _State()
_tensor_impl.INFERENCE_STATE[0] = STATE


def is_grad_enabled() -> bool:
    return STATE.enabled


def is_inference_mode_enabled() -> bool:
    return STATE.inference


def is_multithreading_enabled() -> bool:
    return STATE.multithreading


class _Mode:
    """A context manager that is also a decorator (on functions and generators)."""

    def __call__(self, fn):
        if inspect.isclass(fn):
            raise RuntimeError(f"{type(self).__name__} can't be applied to a class")
        if inspect.isgeneratorfunction(fn):
            @functools.wraps(fn)
            def generator(*args, **kwargs):
                gen = fn(*args, **kwargs)
                with self.clone():
                    request = gen.send(None)
                while True:
                    try:
                        response = yield request
                    except GeneratorExit:
                        with self.clone():
                            gen.close()
                        raise
                    except BaseException as exc:   # noqa: B036 - re-thrown into the generator
                        with self.clone():
                            request = gen.throw(exc)
                    else:
                        try:
                            with self.clone():
                                request = gen.send(response)
                        except StopIteration as stop:
                            return stop.value
            return generator

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.clone():
                return fn(*args, **kwargs)
        return wrapper

    def clone(self):
        return type(self)()

    # (``STATE.__dict__`` is this thread's attribute dict: one thread-local lookup, then
    # plain dict operations)

    def __enter__(self):
        state = STATE.__dict__
        self._prev = (state["enabled"], state["inference"])
        self._set(state)
        return None

    def __exit__(self, *exc):
        state = STATE.__dict__
        state["enabled"], state["inference"] = self._prev
        return False


class no_grad(_Mode):
    """Disable gradient recording inside the block or function."""

    def __enter__(self):
        state = STATE.__dict__
        self._prev = (state["enabled"], state["inference"])
        state["enabled"] = False
        return None

    def _set(self, state):
        state["enabled"] = False


class enable_grad(_Mode):
    """Enable gradient recording inside the block or function (even under ``no_grad``)."""

    def _set(self, state):
        state["enabled"] = True


class set_grad_enabled(_Mode):
    """``set_grad_enabled(mode)``: sets grad mode at once when called, and restores the
    previous mode when used as a context manager and the block ends."""

    def __init__(self, mode: bool):
        if not isinstance(mode, bool):
            raise TypeError(f"set_grad_enabled(): argument 'mode' must be bool, not "
                            f"{type(mode).__name__}")
        self._prev = (STATE.enabled, STATE.inference)
        self.mode = mode
        STATE.enabled = mode

    def __call__(self, fn):
        STATE.enabled, STATE.inference = self._prev
        return super().__call__(fn)

    def clone(self):
        return type(self)(self.mode)

    def __enter__(self):
        STATE.enabled = self.mode
        return None

    def _set(self, state):
        state["enabled"] = self.mode


class inference_mode(_Mode):
    """``inference_mode(mode=True)``: grad mode off (and the inference flag on) inside."""

    def __init__(self, mode: bool = True):
        self.mode = mode

    def __new__(cls, mode=True):
        if callable(mode) and not isinstance(mode, bool):    # used as @inference_mode
            return cls(True)(mode)
        return super().__new__(cls)

    def clone(self):
        return type(self)(self.mode)

    def _set(self, state):
        if self.mode:
            state["enabled"] = False
            state["inference"] = True
        else:                         # inference_mode(False) inside inference_mode()
            state["inference"] = False

    def __enter__(self):
        _tensor_impl.INFERENCE_ACTIVE[0] += 1     # Note [Inference tensors]
        return super().__enter__()

    def __exit__(self, *exc):
        _tensor_impl.INFERENCE_ACTIVE[0] -= 1
        return super().__exit__(*exc)


class set_multithreading_enabled(_Mode):
    """``set_multithreading_enabled(mode)``: sets this thread's multithreaded-backward flag
    at once, and restores the previous one when used as a context manager and the block
    ends (the engine runs on the calling thread either way)."""

    def __init__(self, mode: bool):
        if not isinstance(mode, bool):
            raise TypeError(f"set_multithreading_enabled(): argument 'enabled' (position 1) "
                            f"must be bool, not {type(mode).__name__}")
        self.prev = STATE.multithreading
        STATE.multithreading = mode
        self.mode = mode

    def clone(self):
        return type(self)(self.mode)

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        STATE.multithreading = self.prev
        return False
