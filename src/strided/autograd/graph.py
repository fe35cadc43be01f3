"""The autograd graph: nodes, edges and saved tensors.

    x = strided.ones(3, requires_grad=True)
    y = (x * 2).sum()
    y.grad_fn                        # <SumBackward0>
    y.grad_fn.next_functions         # ((<MulBackward0>, 0),)
    y.grad_fn.next_functions[0][0].next_functions   # ((<AccumulateGrad>, 0), (None, 0))

A ``Node`` is one recorded backward function. Its ``next_functions`` are its edges,
one per differentiable input of the forward op: ``(node, input_nr)`` pairs that say
where the gradient for that input goes (``(None, 0)`` for an input that needs none).
A leaf that requires grad is reached through its ``AccumulateGrad`` node, which adds
incoming gradients into ``leaf.grad``.

Note [Input metadata]
~~~~~~~~~~~~~~~~~~~~~
Each node remembers the shape, dtype and device of every forward input
(``_input_metadata``). The engine uses it to shape what a formula returns before it
travels along an edge: a gradient for an input that was broadcast is summed back to
the input's shape, and a gradient of another dtype is cast to the input's dtype. So
formulas never deal with broadcasting or mixed dtypes (torch's engine does the same in
``validate_outputs``).

Note [Saved tensors and cycles]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A node keeps what its formula needs as ``SavedTensor`` objects, each with the tensor's
version when it was saved; unpacking after an in-place change raises torch's error.
Saving an op's *output* must not make ``out.grad_fn -> node -> out`` a reference
cycle (the graph would then outlive its last user until the cycle collector ran, and
the memory statistics would show it). So an output is saved as a bare alias (same
storage, same version counter, no autograd state) and re-attached to its node when
unpacked. Inputs are saved as the tensors themselves: they point upstream only.

Note [Saved-tensor hooks]
~~~~~~~~~~~~~~~~~~~~~~~~~
``saved_tensors_hooks(pack, unpack)`` (torch.autograd.graph's) changes how a node keeps
what it saves: ``pack(tensor)`` runs once when the tensor is saved (with grad mode off,
and refused if it changes its input in place), and the node keeps only what ``pack``
returned; ``unpack(packed)`` runs each time the formula reads the value, and must return
a tensor. The tensor the formula sees is a new one over the unpacked data with the saved
tensor's autograd identity (its ``grad_fn`` and output number, or for a leaf its
``AccumulateGrad``), so double backward still reaches the right places. The version check
is skipped, as in torch: nothing tracks a version through the hooks. The innermost pair
in force when a tensor is saved wins. The stack of pairs and the
``disable_saved_tensors_hooks`` message are per thread, like torch's.
"""

from __future__ import annotations

import re
import threading
import weakref

from ..core.dispatch_keys import DispatchKey as _DispatchKey
from ..core.sparse_tensor import NO_STORAGE as _NO_STORAGE
from ..core.sparse_tensor import alias as _sparse_alias
from ..core.tensor_impl import AutogradMeta, make_tensor
from ..core.tensor_impl import TensorImpl as _TensorImpl

__all__ = ["AccumulateGrad", "Node", "SavedTensor", "disable_saved_tensors_hooks",
           "gradient_edge", "save_on_cpu", "saved_tensors_hooks"]

# the conjugate / negative bits a saved tensor keeps (Note [Conjugate and negative bits])
_MATH_BITS = _DispatchKey.Conjugate.bit | _DispatchKey.Negative.bit
_FREED = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward.")

_FREED_HOOKS = (
    "Calling register_hooks on a saved tensor after it has been freed. Saved intermediate "
    "values of the graph are freed when you call .backward() or autograd.grad(). Specify "
    "retain_graph=True if you need to backward through the graph a second time or if you "
    "need to access saved variables after calling backward.")

_sequence = [0]


def _next_sequence_nr() -> int:
    _sequence[0] += 1
    return _sequence[0]


class Node:
    """A backward function in the graph (torch's ``torch.autograd.graph.Node``)."""

    __slots__ = ("next_functions", "_input_metadata", "_sequence_nr", "_hooks", "_pre_hooks",
                 "_tensor_pre_hooks", "_retain_grad_hooks", "_metadata", "_freed",
                 "_anomaly_trace", "__weakref__")

    def __init__(self):
        self.next_functions = ()
        self._input_metadata = ()
        self._sequence_nr = _next_sequence_nr()
        self._hooks = None
        self._pre_hooks = None
        self._tensor_pre_hooks = None       # {output_nr: [hook, ...]} from Tensor.register_hook
        self._retain_grad_hooks = None      # {output_nr: tensor weakref}
        self._metadata = None
        self._freed = False
        self._anomaly_trace = None

    def name(self) -> str:
        return type(self).__name__

    @property
    def metadata(self) -> dict:
        if self._metadata is None:
            self._metadata = {}
        return self._metadata

    def _sequence_number(self) -> int:
        return self._sequence_nr

    def apply(self, grads: tuple) -> tuple:
        """Gradients for the inputs (one per edge) from gradients for the outputs."""
        raise NotImplementedError(f"{self.name()} has no backward")

    def _release(self) -> None:
        """Drop what the formula saved (after a backward without ``retain_graph``)."""
        self._freed = True

    def register_hook(self, fn):
        """``fn(grad_inputs, grad_outputs)`` after the node runs; it may return new
        grad_inputs. Returns a handle with ``remove()``."""
        if self._hooks is None:
            self._hooks = []
        return Handle(self._hooks, fn)

    def register_prehook(self, fn):
        """``fn(grad_outputs)`` before the node runs; it may return new grad_outputs."""
        if self._pre_hooks is None:
            self._pre_hooks = []
        return Handle(self._pre_hooks, fn)

    def __call__(self, *grads):
        return self.apply(grads)

    def __repr__(self):      # the bare class name, as torch's (AccumulateGrad, NotImplemented)
        return f"<{self.name().rpartition('::')[2]} object at {hex(id(self))}>"


class Handle:
    """What ``register_hook`` returns: ``remove()`` takes the hook out again."""

    __slots__ = ("_hooks", "_fn")

    def __init__(self, hooks: list, fn):
        hooks.append(fn)
        self._hooks = hooks
        self._fn = fn

    def remove(self) -> None:
        if self._fn in self._hooks:
            self._hooks.remove(self._fn)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


class AccumulateGrad(Node):
    """The sink of a leaf that requires grad: adds gradients into ``variable.grad``."""

    __slots__ = ("variable", "_post_accumulate_hooks")

    def __init__(self, variable):
        super().__init__()
        self.variable = variable
        self._post_accumulate_hooks = None
        self._input_metadata = (_metadata_of(variable),)

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"

    def _release(self) -> None:
        pass                                 # shared by every graph that reaches the leaf

    def apply(self, grads):
        _engine.accumulate_into_leaf(self.variable, grads[0])
        return ()


def _metadata_of(t) -> tuple:
    return (t._sizes, t._dtype, t._device)


_SAVE_INFERENCE = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in "
    "inference mode in computation tracked by autograd. To work around this, you can make a "
    "clone to get a normal tensor and use it in autograd, or use `torch.no_grad()` instead of "
    "`torch.inference_mode()`.")


def _output_alias(t):
    """A new tensor object over ``t``'s data (a saved output must not own its grad_fn)."""
    if t._storage is _NO_STORAGE:       # sparse (Note [Sparse tensors])
        return _sparse_alias(t)
    return make_tensor(t._storage, t._sizes, t._strides, t._offset, t._dtype, t._vc, t._base)


class SavedTensor:
    """A tensor a node saved for backward, with the version it had (Note [Saved tensors and
    cycles])."""

    __slots__ = ("_data", "_version", "_is_output", "_output_nr", "_owner_name", "_weak_owner",
                 "_requires_grad", "_hooks", "_edge")

    def __init__(self, tensor, is_output: bool = False, node=None):
        if tensor._vc.__class__ is not list and tensor.is_inference():
            raise RuntimeError(_SAVE_INFERENCE)             # Note [Inference tensors]
        self._version = tensor._vc[0]
        self._is_output = is_output
        meta = tensor._autograd_meta
        self._requires_grad = meta is not None and meta.requires_grad
        self._hooks = None
        # (the thread-local stack is read only while some thread has hooks set)
        if _PUSHED[0] and _SAVED_HOOKS.stack:       # Note [Saved-tensor hooks]
            hooks = _SAVED_HOOKS.stack
            self._output_nr = meta.output_nr if meta is not None else 0
            self._owner_name = None
            self._pack(tensor, meta, hooks[-1])
            return
        if is_output:
            self._data = _output_alias(tensor)
            self._data._keyset |= tensor._keyset & _MATH_BITS
            self._output_nr = meta.output_nr if meta is not None else 0
            self._owner_name = node.name() if node is not None else None
        else:
            self._data = tensor
            self._output_nr = 0
            self._owner_name = None

    def unpack(self, node=None):
        data = self._data
        if data is None:
            if getattr(self, "_hooks", None) is not None:     # (a released stand-in has none)
                return self._unpack_hooked(node)
            raise RuntimeError(_FREED)
        if data._vc[0] != self._version:
            raise RuntimeError(self._version_error(data, node))
        if self._is_output and self._requires_grad and node is not None:
            out = _output_alias(data)
            out._keyset |= data._keyset & _MATH_BITS
            meta = out._autograd_meta = AutogradMeta(True)
            meta.grad_fn = node
            meta.output_nr = self._output_nr
            out._keyset = data._keyset | _AUTOGRAD_BIT
            return out
        return data

    def _version_error(self, data, node) -> str:
        where = f"[{data.type()} [{', '.join(map(str, data._sizes))}]]"
        if self._is_output:
            owner = self._owner_name
        else:
            fn = data.grad_fn
            owner = fn.name() if fn is not None else None
        if owner is not None:
            where += f", which is output {self._output_nr} of {_short_name(owner)},"
        return ("one of the variables needed for gradient computation has been modified by "
                f"an inplace operation: {where} is at version {data._vc[0]}; expected version "
                f"{self._version} instead. Hint: enable anomaly detection to find the "
                "operation that failed to compute its gradient, with "
                "torch.autograd.set_detect_anomaly(True, check_nan=False).")

    def release(self) -> None:
        self._data = None
        self._hooks = None
        self._edge = None

    # -- Note [Saved-tensor hooks] --------------------------------------------------------

    def _pack(self, tensor, meta, hooks) -> None:
        pack, unpack = hooks
        self._data = None
        # the autograd identity to give back on unpack: an input's history (an output's is
        # the node asking), or a leaf's AccumulateGrad (held weakly, as the leaf holds it)
        self._edge = None
        if not self._is_output and meta is not None:
            if meta.grad_fn is not None:
                self._edge = gradient_edge(tensor)
            elif meta.requires_grad:
                self._edge = (weakref.ref(grad_accumulator(tensor, meta)), 0)
        version = tensor._vc[0]
        state = _grad_mode.STATE
        prev = state.enabled
        state.enabled = False
        try:
            packed = pack(tensor)
        finally:
            state.enabled = prev
        if tensor._vc[0] != version:
            raise RuntimeError(
                "A saved tensor pack hook is modifying its input in place. Tensors provided "
                "as input to pack hook cannot be modified by in-place operations as this can "
                "lead to unexpected side-effects. Please open an issue if you need to perform "
                "in-place operations on the input to a pack hook.")
        self._hooks = (unpack, packed)

    def _unpack_hooked(self, node):
        unpack, packed = self._hooks
        data = unpack(packed)
        if not isinstance(data, _TensorImpl):
            raise TypeError(f"Output of saved tensor unpack_hook expected to be a Tensor but "
                            f"got result of type {type(data).__name__}")
        # a plain tensor over the unpacked data (saved views come back as non-views)
        out = make_tensor(data._storage, data._sizes, data._strides, data._offset,
                          data._dtype, data._vc, None)
        out._keyset |= data._keyset & _MATH_BITS
        if not self._requires_grad:
            return out
        meta = out._autograd_meta = AutogradMeta(True)
        edge = self._edge
        if self._is_output:
            if node is not None:
                meta.grad_fn = node
                meta.output_nr = self._output_nr
        elif edge is not None and type(edge[0]) is weakref.ReferenceType:
            meta.grad_accumulator = edge[0]
        elif edge is not None:
            meta.grad_fn, meta.output_nr = edge
        out._keyset = data._keyset | _AUTOGRAD_BIT
        return out

    def register_hooks(self, pack_hook, unpack_hook) -> None:
        """Pack this saved tensor now with ``pack_hook``; ``unpack_hook`` gives it back
        (torch's ``SavedTensor.register_hooks``)."""
        if not callable(pack_hook) or not callable(unpack_hook):
            raise TypeError("register_hooks(): incompatible function arguments: pack_hook "
                            "and unpack_hook must be callables")
        if getattr(self, "_hooks", None) is not None:
            raise RuntimeError("Calling register_hooks on a saved tensor whose hooks have "
                               "already been set. Hint: only one pair of hooks is allowed at "
                               "a time.")
        data = self._data
        if data is None:
            raise RuntimeError(_FREED_HOOKS)
        if self._is_output:
            self._pack(data, None, (pack_hook, unpack_hook))
            return
        self._pack(data, data._autograd_meta, (pack_hook, unpack_hook))


# -- saved-tensor hooks (Note [Saved-tensor hooks]) ---------------------------------------------

class _SavedHooksState(threading.local):
    """This thread's stack of (pack, unpack) pairs and its ``disable`` message."""

    def __init__(self):
        self.stack = []
        self.disabled = None


_SAVED_HOOKS = _SavedHooksState()
_PUSHED = [0]                  # hook pairs set, over all threads (changed under _PUSH_LOCK)
_PUSH_LOCK = threading.Lock()


class saved_tensors_hooks:
    """``with saved_tensors_hooks(pack_hook, unpack_hook):`` every tensor an operation saves
    for backward inside the block is kept as ``pack_hook(tensor)`` and given back to the
    formula as ``unpack_hook(packed)`` (Note [Saved-tensor hooks]).

        with saved_tensors_hooks(lambda t: t.numpy().copy(), strided.from_numpy):
            y = x.exp()        # ExpBackward0 keeps a NumPy copy of y
    """

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self) -> None:
        state = _SAVED_HOOKS
        if state.disabled is not None:
            raise RuntimeError(state.disabled)
        with _PUSH_LOCK:
            state.stack.append((self.pack_hook, self.unpack_hook))
            _PUSHED[0] += 1

    def __exit__(self, *exc) -> None:
        with _PUSH_LOCK:
            _SAVED_HOOKS.stack.pop()
            _PUSHED[0] -= 1


class save_on_cpu(saved_tensors_hooks):
    """Saved tensors are kept as a CPU copy and moved back to their device when unpacked
    (on strided, where every tensor is on the CPU or meta, the copy is the whole effect)."""

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda"):
        def pack_to_cpu(tensor):
            if not pin_memory:
                return (tensor.device, tensor.cpu())
            return (tensor.device, tensor.clone(memory_format=_contiguous_format()))

        def unpack_from_cpu(packed):
            device, tensor = packed
            return tensor.to(device)

        super().__init__(pack_to_cpu, unpack_from_cpu)


def _contiguous_format():
    from ..core.layouts import contiguous_format
    return contiguous_format


class disable_saved_tensors_hooks:
    """Inside the block, entering ``saved_tensors_hooks`` raises ``RuntimeError(
    error_message)`` (in this thread). Usable as a decorator too."""

    def __init__(self, error_message: str):
        self.error_message = error_message

    def __enter__(self) -> None:
        state = _SAVED_HOOKS
        if state.stack:
            raise RuntimeError(self.error_message)
        self._prev = state.disabled
        state.disabled = self.error_message

    def __exit__(self, *exc) -> None:
        _SAVED_HOOKS.disabled = self._prev

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with disable_saved_tensors_hooks(self.error_message):
                return fn(*args, **kwargs)
        return wrapper


def _short_name(name: str) -> str:
    """torch names the owner without the ``Backward<n>`` suffix: ``MulBackward0 -> Mul``."""
    return re.sub(r"Backward\d*$", "", name)


def _bits():
    from ..core.dispatch_keys import DispatchKey
    return DispatchKey.Autograd.bit


_AUTOGRAD_BIT = _bits()


def gradient_edge(t) -> tuple:
    """Where the gradient for ``t`` goes: ``(grad_fn, output_nr)``, ``(AccumulateGrad, 0)``
    for a leaf that requires grad, ``(None, 0)`` otherwise."""
    meta = t._autograd_meta
    if meta is None:
        return (None, 0)
    fn = meta.grad_fn
    if fn is not None:
        if t._base is not None:
            fn = _views.refresh_view_grad_fn(t, meta)
        return (fn, meta.output_nr)
    if meta.requires_grad:
        return (grad_accumulator(t, meta), 0)
    return (None, 0)


def grad_accumulator(t, meta):
    """The leaf's ``AccumulateGrad`` node. The meta holds it weakly (as torch does): the
    graph nodes that lead to it keep it alive, and a strong reference from the leaf would
    make ``leaf -> AccumulateGrad -> leaf`` a cycle."""
    ref = meta.grad_accumulator
    acc = ref() if ref is not None else None
    if acc is None:
        # one AccumulateGrad per leaf, also when threads race to make it (acquire/release:
        # half the cost of a ``with`` block)
        _ACC_LOCK.acquire()
        try:
            ref = meta.grad_accumulator
            acc = ref() if ref is not None else None
            if acc is None:
                acc = AccumulateGrad(t)
                meta.grad_accumulator = weakref.ref(acc)
        finally:
            _ACC_LOCK.release()
    return acc


_ACC_LOCK = threading.Lock()


# late imports: these modules import this one
from . import engine as _engine  # noqa: E402
from . import grad_mode as _grad_mode  # noqa: E402
from . import views as _views  # noqa: E402
