"""Custom differentiable functions: ``strided.autograd.Function``.

    class Exp(Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, grad):
            y, = ctx.saved_tensors
            return grad * y

    Exp.apply(x)          # y.grad_fn is an ExpBackward node

As in torch, ``ctx`` is the graph node itself (its class is named ``<Function>Backward``):
``forward`` runs with grad mode off, then the outputs get the node as ``grad_fn``.
``backward`` returns one gradient per ``forward`` argument (None for non-tensors).
A ``forward(*args)`` without ``ctx`` plus a ``setup_context(ctx, inputs, output)``
staticmethod is accepted too.
"""

from __future__ import annotations

import functools

from ..core.tensor_impl import TensorImpl
from . import grad_mode
from .graph import Node, SavedTensor, _metadata_of, gradient_edge

__all__ = ["BackwardCFunction", "Function", "FunctionCtx", "once_differentiable"]


class FunctionCtx:
    """What ``forward`` can tell ``backward``: saved tensors and output flags."""

    def save_for_backward(self, *tensors):
        self._to_save = tensors

    def save_for_forward(self, *tensors):
        self._to_save_forward = tensors

    def mark_dirty(self, *tensors):
        self._dirty = tensors

    def mark_non_differentiable(self, *tensors):
        self._non_differentiable = tensors

    def set_materialize_grads(self, value: bool):
        self._materialize = bool(value)


class BackwardCFunction(Node, FunctionCtx):
    """The node (and ctx) of one ``Function.apply`` call."""

    _function_cls = None

    def __init__(self):
        Node.__init__(self)
        self._to_save = None
        self._saved = None
        self._dirty = ()
        self._non_differentiable = ()
        self._materialize = True
        self.needs_input_grad = ()

    def name(self) -> str:
        return type(self).__name__

    @property
    def saved_tensors(self):
        saved = self._saved
        if saved is None:
            if self._to_save is None:
                return ()
            if self._freed:
                from .graph import _FREED
                raise RuntimeError(_FREED)
            return tuple(self._to_save)
        return tuple(s.unpack(self) if isinstance(s, SavedTensor) else s for s in saved)

    @property
    def saved_variables(self):
        return self.saved_tensors

    def apply(self, grads):
        cls = self._function_cls
        n_out = len(self._out_meta)
        if len(grads) < n_out:                   # outputs no gradient reached
            grads = tuple(grads) + (None,) * (n_out - len(grads))
        if self._materialize:
            from ..kernels.factory import zeros
            grads = tuple(zeros(m[0], m[1], device=m[2]) if g is None and m is not None else g
                          for g, m in zip(grads, self._out_meta))
        result = cls.backward(self, *grads)
        if not isinstance(result, tuple):
            result = (result,)
        n = len(self.next_functions)
        if len(result) != n:
            if len(result) > n and all(r is None for r in result[n:]):
                result = result[:n]
            else:
                raise RuntimeError(
                    f"function {self.name()} returned an incorrect number of gradients "
                    f"(expected {n}, got {len(result)})")
        return result

    def _release(self) -> None:
        self._freed = True
        if self._saved is not None:
            for s in self._saved:
                if isinstance(s, SavedTensor):
                    s.release()
            self._saved = None
        self._to_save = None


class _FunctionMeta(type):
    """Gives every Function subclass its own node class, ``<Name>Backward``."""

    def __init__(cls, name, bases, attrs):
        backward_cls = type(name + "Backward", (BackwardCFunction,), {"_function_cls": cls})
        cls._backward_cls = backward_cls
        super().__init__(name, bases, attrs)


class Function(metaclass=_FunctionMeta):
    """Base class of custom differentiable operations (see the module docstring)."""

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError(
            "You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError(
            "You must implement either the backward or vjp method for your custom "
            "autograd.Function to use it with backward mode AD.")

    vjp = backward

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError

    def __init__(self, *args, **kwargs):
        pass

    def __call__(self, *args, **kwargs):
        raise RuntimeError(
            "Legacy autograd function with non-static forward method is deprecated. Please "
            "use new-style autograd function with static forward method. (Example: "
            "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")

    @classmethod
    def apply(cls, *args, **kwargs):
        from .recording import check_inplace, mark_output
        node = cls._backward_cls()
        is_tensor = [isinstance(a, TensorImpl) for a in args]
        node.needs_input_grad = tuple(t and a.requires_grad for t, a in zip(is_tensor, args))
        record = grad_mode.STATE.enabled and any(node.needs_input_grad)
        uses_setup = cls.setup_context is not Function.setup_context
        prev = grad_mode.STATE.enabled
        grad_mode.STATE.enabled = False
        try:
            if uses_setup:
                outputs = cls.forward(*args, **kwargs)
                cls.setup_context(node, args, outputs)
            else:
                outputs = cls.forward(node, *args, **kwargs)
        finally:
            grad_mode.STATE.enabled = prev
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs
        if not record:
            return outputs
        node.next_functions = tuple(gradient_edge(a) if t else (None, 0)
                                    for t, a in zip(is_tensor, args))
        node._input_metadata = tuple(_metadata_of(a) if t else None
                                     for t, a in zip(is_tensor, args))
        dirty = {id(t) for t in node._dirty}
        non_diff = {id(t) for t in node._non_differentiable}
        new_outs = []
        for i, o in enumerate(outs):
            if not isinstance(o, TensorImpl):
                new_outs.append(o)
                continue
            differentiable = id(o) not in non_diff     # read before o is replaced below
            if id(o) in dirty:
                check_inplace(o)
            elif any(o is a for a in args):
                if not differentiable:
                    with grad_mode.no_grad():
                        o = o.view_as(o)
                elif o._dtype.is_floating_point or o._dtype.is_complex:
                    o = o.view_as(o)
            if differentiable and (o._dtype.is_floating_point or o._dtype.is_complex):
                if id(o) in dirty and o._base is not None:
                    from .views import rebase_view
                    rebase_view(o, node)
                else:
                    mark_output(o, node, i)
            new_outs.append(o)
        node._out_meta = tuple(_metadata_of(o) if isinstance(o, TensorImpl) else None
                               for o in new_outs)
        if node._to_save is not None:
            out_ids = {id(o) for o in new_outs}
            node._saved = tuple(
                SavedTensor(t, is_output=id(t) in out_ids, node=node)
                if isinstance(t, TensorImpl) else t for t in node._to_save)
            node._to_save = None
        from . import anomaly_mode
        if anomaly_mode.is_enabled():
            anomaly_mode.record_trace(node)
        return new_outs[0] if single else tuple(new_outs)


def once_differentiable(fn):
    """Run a ``backward`` with grad mode off: its result is not differentiable again."""

    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with grad_mode.no_grad():
            return fn(ctx, *args)
    return wrapper
