"""The dispatcher: one ``OperatorHandle`` per schema, a kernel table per handle.

A call goes ``binding -> handle.call(keyset, *args) -> kernel(*args)``. The
binding computes the key set from its tensor arguments (``t._keyset``) or, for
factories, from the ``device`` argument. The handle picks the kernel registered
for the highest key in that set.

Note [Fallthrough masks]
~~~~~~~~~~~~~~~~~~~~~~~~
Some keys are pass-through for most ops (``Autograd`` for an op with no
autograd formula, ``Python`` when no mode is active). Instead of testing for
that at call time, each handle keeps ``mask``: the key-set bits whose entry is a
real kernel. ``table[(keyset & mask).bit_length()]`` is then the whole dispatch,
one AND and one list index. ``mask`` and ``table`` are rebuilt whenever a
kernel or fallback is registered.

Note [Resolution order]
~~~~~~~~~~~~~~~~~~~~~~~
For a runtime key K the table entry is the first of: a kernel registered for K;
for backend keys, a ``CompositeExplicitAutograd`` kernel; a
``CompositeImplicitAutograd`` kernel (backends and Autograd); the backend
fallback registered for K (which may be the ``FALLTHROUGH`` marker); otherwise
a kernel that raises ``NotImplementedError`` naming the op and the key.

Note [Hooks cost nothing when off]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
``OperatorHandle.call`` is a plain method. Adding the first dispatch hook swaps
it, on the class, for a version that reports every call; removing the last hook
swaps it back. So an untraced call never tests whether tracing is on.
"""

from __future__ import annotations

import functools

from ..core.dispatch_keys import (
    ALIAS_KEYS,
    BACKEND_KEYS,
    NUM_RUNTIME_KEYS,
    DispatchKey,
    highest_key,
)

__all__ = [
    "FALLTHROUGH",
    "OperatorHandle",
    "add_dispatch_hook",
    "all_ops",
    "find_op",
    "get_op",
    "register_fallback",
    "register_kernel",
    "register_op",
]

K = DispatchKey
_SPARSE_KEYS = (K.SparseCPU, K.SparseMeta, K.SparseCsrCPU, K.SparseCsrMeta)


class _Fallthrough:
    def __repr__(self):
        return "FALLTHROUGH"


FALLTHROUGH = _Fallthrough()

class BoxedFallback:
    """A backend fallback that needs to know which operator it serves: the dispatcher
    calls it as ``fn(op_handle, *args)`` (torch's boxed fallbacks see the operator)."""

    __slots__ = ("fn",)

    def __init__(self, fn):
        self.fn = fn


# Backend fallbacks (Note [Resolution order]): a stack per key, the last one wins. By
# default these keys pass through.
def _no_cuda(*args):
    # strided has no CUDA backend: a CUDA tensor cannot be made, and torch built without
    # CUDA fails this way when asked for one
    raise AssertionError("Torch not compiled with CUDA enabled")


_fallbacks: dict = {K.BackendSelect: [FALLTHROUGH], K.ADInplaceOrView: [FALLTHROUGH],
                    K.Autograd: [FALLTHROUGH], K.AutocastCPU: [FALLTHROUGH],
                    K.Python: [FALLTHROUGH], K.CUDA: [_no_cuda]}
_ops: dict[str, OperatorHandle] = {}


class OperatorHandle:
    """An operator: its schema, its kernels per key and the resolved dispatch table."""

    __slots__ = ("__weakref__", "kernels", "mask", "qualname", "schema", "table", "tensor_args")

    def __init__(self, qualname: str, schema):
        self.qualname = qualname          # "aten::add.Tensor"
        self.schema = schema
        self.kernels: dict = {}           # DispatchKey -> [kernel, ...] (last one wins)
        self.table: list = []
        self.mask = 0
        self._rebuild()

    @property
    def name(self) -> str:
        return self.qualname

    def call(self, keyset: int, *args):
        """Run the kernel for the highest key of ``keyset`` (Note [Fallthrough masks])."""
        return self.table[(keyset & self.mask).bit_length()](*args)

    def redispatch(self, keyset: int, *args):
        """Like ``call``; named separately so that kernels that re-enter read clearly."""
        return self.table[(keyset & self.mask).bit_length()](*args)

    def kernel_for(self, key: DispatchKey):
        return self.table[key.value]

    def dispatch_key(self, keyset: int) -> DispatchKey:
        return highest_key(keyset & self.mask)

    # -- registration -----------------------------------------------------------

    def _resolve(self, key: DispatchKey):
        kernels = self.kernels
        direct = kernels.get(key)
        if direct:
            return direct[-1], key
        if key in BACKEND_KEYS:
            for alias in (K.CompositeExplicitAutogradNonFunctional, K.CompositeExplicitAutograd):
                if kernels.get(alias):
                    return kernels[alias][-1], alias
        implicit = kernels.get(K.CompositeImplicitAutograd)
        # sparse keys: a kernel of their own or an implicit composite, never an explicit one
        # (Note [Sparse tensors] in core/sparse_tensor.py)
        if implicit and (key in BACKEND_KEYS or key == K.Autograd or key in _SPARSE_KEYS):
            return implicit[-1], K.CompositeImplicitAutograd
        stack = _fallbacks.get(key)
        if stack:
            fallback = stack[-1]
            if isinstance(fallback, BoxedFallback):
                return functools.partial(fallback.fn, self), key
            return fallback, key
        return None, None

    def resolved_key(self, key: DispatchKey) -> DispatchKey | None:
        """Which registration serves ``key``: the key itself, an alias, or None."""
        return self._resolve(key)[1]

    def _undefined_entry(self):
        """The kernel for a call without tensor arguments (an empty tensor list): like
        torch, a composite kernel serves it when there is one."""
        for alias in (K.CompositeExplicitAutogradNonFunctional, K.CompositeExplicitAutograd,
                      K.CompositeImplicitAutograd):
            if self.kernels.get(alias):
                return self.kernels[alias][-1]
        return self._missing(K.Undefined)

    def _rebuild(self):
        table = [self._undefined_entry()]
        mask = 0
        for value in range(1, NUM_RUNTIME_KEYS):
            key = K(value)
            fn, _ = self._resolve(key)
            if fn is None:
                fn = self._missing(key)
                mask |= key.bit
            elif fn is not FALLTHROUGH:
                mask |= key.bit
            table.append(fn)
        self.table = table
        self.mask = mask

    def available_keys(self) -> list[str]:
        return [k.name for k in self.kernels if self.kernels[k]]

    def _missing(self, key: DispatchKey):
        qualname = self.qualname

        def missing_kernel(*args):
            if key == K.Undefined:
                raise RuntimeError(
                    f"There were no tensor arguments to this function (e.g., you passed an "
                    f"empty list of Tensors), but no fallback function is registered for "
                    f"schema {qualname}.")
            raise NotImplementedError(
                f"Could not run '{qualname}' with arguments from the '{key.name}' backend. "
                f"This could be because the operator doesn't exist for this backend, or was "
                f"omitted during the selective/custom build process (if using custom build). If "
                f"you are a Facebook employee using PyTorch on mobile, please visit "
                f"https://fburl.com/ptmfixes for possible resolutions. "
                f"'{qualname}' is only available for these backends: "
                f"[{', '.join(self.available_keys())}].")
        missing_kernel.__qualname__ = f"missing_kernel[{qualname}, {key.name}]"
        return missing_kernel

    def __repr__(self):
        return f"<OperatorHandle {self.qualname}>"


def register_op(qualname: str, schema) -> OperatorHandle:
    if qualname in _ops:
        raise RuntimeError(f"Tried to register an operator ({qualname}) with the same name "
                           f"and overload name multiple times.")
    op = _ops[qualname] = OperatorHandle(qualname, schema)
    return op


def find_op(qualname: str) -> OperatorHandle | None:
    return _ops.get(qualname)


def get_op(qualname: str) -> OperatorHandle:
    op = _ops.get(qualname)
    if op is None:
        raise RuntimeError(f"No such operator {qualname}")
    return op


def all_ops() -> dict:
    return dict(_ops)


def _as_key(key) -> DispatchKey:
    if isinstance(key, DispatchKey):
        return key
    if key == "Autograd" or (isinstance(key, str) and key.startswith("Autograd")):
        return K.Autograd
    try:
        return K[key]
    except KeyError:
        raise ValueError(f"unknown dispatch key '{key}'") from None


def register_kernel(qualname: str, key, fn) -> callable:
    """Add ``fn`` for ``key`` on top of what is there; returns a function undoing it."""
    op = get_op(qualname)
    key = _as_key(key)
    stack = op.kernels.setdefault(key, [])
    stack.append(fn)
    op._rebuild()

    def undo():
        if fn in stack:
            stack.remove(fn)
            op._rebuild()
    return undo


def register_fallback(key, fn) -> callable:
    """A backend fallback for every op without a kernel for ``key``: a kernel called with the
    op's arguments, a ``BoxedFallback`` (called with the op handle first), or FALLTHROUGH.
    Returns a function that removes exactly this registration."""
    key = _as_key(key)
    stack = _fallbacks.setdefault(key, [])
    stack.append(fn)
    for op in _ops.values():
        op._rebuild()

    def undo():
        for i in range(len(stack) - 1, -1, -1):
            if stack[i] is fn:
                del stack[i]
                break
        for op in _ops.values():
            op._rebuild()
    return undo


def deregister_op(qualname: str) -> None:
    """Forget an operator (used when the library that defined it is destroyed)."""
    _ops.pop(qualname, None)


# -- hooks (Note [Hooks cost nothing when off]) ---------------------------------------

_hooks: list = []
_plain_call = OperatorHandle.call
# ``call`` when no hook is installed: the plain one, or the one strided.amp installs while an
# autocast region is on, which adds the key the thread's state asks for (torch's TLS included
# set); ``_tls_keys`` gives those keys to the hooked version.
_base_call = [_plain_call]
_tls_keys: list = [None]


def set_base_call(call, tls_keys) -> None:
    """Install ``call`` as ``OperatorHandle.call`` (``None`` restores the plain one);
    ``tls_keys()`` is the key set it adds, for the hooked version to add too."""
    _base_call[0] = call or _plain_call
    _tls_keys[0] = tls_keys if call else None
    if not _hooks:
        OperatorHandle.call = _base_call[0]


def _redispatch_with_hooks(self, keyset, *args):
    key = highest_key(keyset & self.mask)
    exits = []
    for hook in tuple(_hooks):
        done = hook(self, key, args)
        if done is not None:
            exits.append(done)
    result = self.table[key.value](*args)
    for done in reversed(exits):
        done(result)
    return result


def _call_with_hooks(self, keyset, *args):
    # the body of _redispatch_with_hooks, not a call to it: a hook finds the binding two
    # frames up (strided.explain)
    extra = _tls_keys[0]
    if extra is not None:
        keyset |= extra()
    key = highest_key(keyset & self.mask)
    exits = []
    for hook in tuple(_hooks):
        done = hook(self, key, args)
        if done is not None:
            exits.append(done)
    result = self.table[key.value](*args)
    for done in reversed(exits):
        done(result)
    return result


def add_dispatch_hook(hook) -> callable:
    """``hook(op, key, args)`` runs before every dispatched call; it may return a callable
    that receives the result. Returns a function that removes the hook."""
    _hooks.append(hook)
    OperatorHandle.call = _call_with_hooks
    OperatorHandle.redispatch = _redispatch_with_hooks

    def remove():
        if hook in _hooks:
            _hooks.remove(hook)
        if not _hooks:
            OperatorHandle.call = _base_call[0]
            OperatorHandle.redispatch = _plain_call
    return remove


assert not set(ALIAS_KEYS) & set(BACKEND_KEYS)
