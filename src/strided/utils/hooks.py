"""torch.utils.hooks: ``RemovableHandle`` (what every ``register_*_hook`` returns) and
``BackwardHook``, the machinery behind ``Module.register_full_backward_hook``.

A handle keeps weak references to the dicts its hook lives in (a module's hook dicts die
with the module) and takes its id out of all of them on ``remove()``. Ids come from one
counter shared by every handle, so hooks of different kinds still sort by registration.
"""

from __future__ import annotations

import warnings
import weakref
from collections import OrderedDict
from typing import Any

__all__ = ["RemovableHandle", "unserializable_hook", "warn_if_has_hooks", "BackwardHook"]


class RemovableHandle:
    """``RemovableHandle(hooks_dict, *, extra_dict=None)``: removes the hook with its ``id``
    from ``hooks_dict`` (and from ``extra_dict``, a dict or a list of dicts)."""

    id: int
    next_id: int = 0

    def __init__(self, hooks_dict: Any, *, extra_dict: Any = None) -> None:
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = RemovableHandle.next_id
        RemovableHandle.next_id += 1
        if isinstance(extra_dict, dict):
            self.extra_dict_ref: tuple = (weakref.ref(extra_dict),)
        elif isinstance(extra_dict, list):
            self.extra_dict_ref = tuple(weakref.ref(d) for d in extra_dict)
        else:
            self.extra_dict_ref = ()

    def remove(self) -> None:
        for ref in (self.hooks_dict_ref, *self.extra_dict_ref):
            d = ref()
            if d is not None and self.id in d:
                del d[self.id]

    def __getstate__(self):
        return (self.hooks_dict_ref(), self.id, tuple(ref() for ref in self.extra_dict_ref))

    def __setstate__(self, state) -> None:
        # a dict that is gone when pickling comes back as a fresh empty one
        self.hooks_dict_ref = weakref.ref(OrderedDict() if state[0] is None else state[0])
        self.id = state[1]
        RemovableHandle.next_id = max(RemovableHandle.next_id, self.id + 1)
        extra = state[2] if len(state) > 2 else None
        self.extra_dict_ref = () if extra is None else tuple(weakref.ref(d) for d in extra)

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, type: Any, value: Any, tb: Any) -> None:
        self.remove()


def unserializable_hook(f):
    """Marks ``f`` as a hook that is not expected to survive serialisation."""
    f.__torch_unserializable__ = True
    return f


def warn_if_has_hooks(tensor) -> None:
    hooks = getattr(tensor, "_backward_hooks", None)
    if hooks:
        for k in hooks:
            hook = hooks[k]
            if not hasattr(hook, "__torch_unserializable__"):
                warnings.warn(
                    f"backward hook {hook!r} on tensor will not be serialized.  If this is "
                    "expected, you can decorate the function with "
                    "@torch.utils.hooks.unserializable_hook to suppress this warning",
                    stacklevel=2)


def _backward_hook_function():
    """The identity ``autograd.Function`` whose nodes (``BackwardHookFunctionBackward``)
    mark where a module's inputs and outputs meet the graph (made on first use: the
    autograd package imports this module's users)."""
    global _BackwardHookFunction
    if _BackwardHookFunction is None:
        from ..autograd.function import Function

        class BackwardHookFunction(Function):
            @staticmethod
            def forward(ctx, *args):
                ctx.mark_non_differentiable(*[a for a in args if not a.requires_grad])
                return args

            @staticmethod
            def backward(ctx, *grads):
                return grads

        _BackwardHookFunction = BackwardHookFunction
    return _BackwardHookFunction


_BackwardHookFunction = None


class BackwardHook:
    """Runs a module's full backward (pre-)hooks. The module's tensor inputs and outputs
    pass through an identity Function: the node on the outputs sees ``grad_output`` (the
    pre-hooks run there and may replace it), the node on the inputs sees ``grad_input``
    (the hooks run there, with the saved ``grad_output``, and may replace it). Non-tensor
    positions are ``None`` in what the hooks see."""

    def __init__(self, module, user_hooks, user_pre_hooks) -> None:
        self.user_hooks = user_hooks
        self.user_pre_hooks = user_pre_hooks
        self.module = module
        self.grad_outputs = None
        self.n_outputs = -1
        self.output_tensors_index = None
        self.n_inputs = -1
        self.input_tensors_index = None

    @staticmethod
    def _pack_with_none(indices, values, size):
        res = [None] * size
        for idx, val in zip(indices, values):
            res[idx] = val
        return tuple(res)

    @staticmethod
    def _unpack_none(indices, values):
        return tuple(values[idx] for idx in indices)

    def _set_user_hook(self, grad_fn) -> None:
        def hook(grad_input, _):
            if self.grad_outputs is None:
                # the gradient reached the inputs without passing the outputs (double
                # backward, say): nothing to report
                return None
            res = self._pack_with_none(self.input_tensors_index, grad_input, self.n_inputs)
            for user_hook in self.user_hooks:
                out = user_hook(self.module, res, self.grad_outputs)
                if out is None:
                    continue
                if len(out) != len(res):
                    raise RuntimeError("Backward hook returned an invalid number of grad_input, "
                                       f"got {len(out)}, but expected {len(res)}")
                res = out
            self.grad_outputs = None
            return self._unpack_none(self.input_tensors_index, res)

        grad_fn.register_hook(hook)

    def _apply_on_tensors(self, fn, args):
        from ..autograd.grad_mode import is_grad_enabled
        from ..frontend.tensor import Tensor
        tensors_idx = []
        tensors = []
        requires_grad = False
        for i, arg in enumerate(args):
            if isinstance(arg, Tensor):
                tensors_idx.append(i)
                tensors.append(arg)
                requires_grad |= arg.requires_grad
        if not (requires_grad and is_grad_enabled()):
            return args, None
        new_tensors = _backward_hook_function().apply(*tensors)
        if len(new_tensors) == 0:
            raise RuntimeError("Cannot set Module backward hook for a Module with no input "
                               "Tensors.")
        grad_fns = [t.grad_fn for t in new_tensors if t.grad_fn is not None
                    and t.grad_fn.name() == "BackwardHookFunctionBackward"]
        if not grad_fns:
            raise RuntimeError("Error while setting up backward hooks. Please open "
                               "an issue with a code sample to reproduce this.")
        fn(grad_fns[0])
        arg_list = list(args)
        for idx, val in zip(tensors_idx, new_tensors):
            arg_list[idx] = val
        out = tuple(arg_list) if type(args) is tuple else type(args)(*arg_list)
        return out, tensors_idx

    def setup_input_hook(self, args):
        res, input_idx = self._apply_on_tensors(self._set_user_hook, args)
        self.n_inputs = len(args)
        self.input_tensors_index = input_idx
        return res

    def setup_output_hook(self, args):
        def fn(grad_fn) -> None:
            def hook(_, grad_output):
                self.grad_outputs = self._pack_with_none(self.output_tensors_index,
                                                         grad_output, self.n_outputs)
                if self.user_pre_hooks:
                    expected_len = len(self.grad_outputs)
                    for user_pre_hook in self.user_pre_hooks:
                        new = user_pre_hook(self.module, self.grad_outputs)
                        if new is None:
                            continue
                        if len(new) != expected_len:
                            raise RuntimeError(
                                "Backward pre hook returned an invalid number of grad_output, "
                                f"got {len(new)}, but expected {expected_len}")
                        self.grad_outputs = new
                local_grad_outputs = self.grad_outputs
                if self.input_tensors_index is None:
                    # no input requires grad: the hooks fire here, with no grad_input
                    warnings.warn(
                        "Full backward hook is firing when gradients are computed with "
                        "respect to module outputs since no inputs require gradients. See "
                        "https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html"
                        "#torch.nn.Module.register_full_backward_hook for more details.",
                        stacklevel=5)
                    grad_inputs = self._pack_with_none([], [], self.n_inputs)
                    for user_hook in self.user_hooks:
                        res = user_hook(self.module, grad_inputs, self.grad_outputs)
                        if res is not None and not (isinstance(res, tuple)
                                                    and all(el is None for el in res)):
                            raise RuntimeError(
                                "Backward hook for Modules where no input requires gradient "
                                "should always return None or None for all gradients.")
                    self.grad_outputs = None
                if local_grad_outputs is not None:
                    return tuple(local_grad_outputs[i] for i in self.output_tensors_index)
                return None

            grad_fn.register_hook(hook)

        is_tuple = isinstance(args, tuple)
        if not is_tuple:
            args = (args,)
        res, output_idx = self._apply_on_tensors(fn, args)
        self.n_outputs = len(args)
        self.output_tensors_index = output_idx
        return res if is_tuple else res[0]
