"""torch.nn.modules.lazy: LazyModuleMixin.

A lazy module is built with ``UninitializedParameter``s (and ``UninitializedBuffer``s) and
learns their shapes from its first input: a forward pre-hook calls
``initialize_parameters(*args, **kwargs)`` (each lazy class writes it: materialise the
placeholders, then ``reset_parameters``), removes itself, and the instance's class becomes
``cls_to_become`` (``LazyLinear`` -> ``Linear``). Loading a state dict into a lazy module
materialises the placeholders to the saved shapes first (a load_state_dict pre-hook).

The mixin comes first in the bases (``class LazyLinear(LazyModuleMixin, Linear)``) so that
its ``__init__`` runs the layer's and then installs the two hooks.
"""

from __future__ import annotations

import itertools

from ...autograd.grad_mode import no_grad
from ..parameter import is_lazy

__all__ = ["LazyModuleMixin"]


class LazyModuleMixin:
    """Mixin of modules whose parameter shapes come from the first input (see the module
    docstring). Subclasses set ``cls_to_become`` and write ``initialize_parameters``."""

    cls_to_become = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._load_hook = self._register_load_state_dict_pre_hook(self._lazy_load_hook)
        self._initialize_hook = self.register_forward_pre_hook(self._infer_parameters,
                                                               with_kwargs=True)

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        # a placeholder is saved as itself (detach would give a plain tensor)
        for name, param in self._parameters.items():
            if param is not None:
                if not (is_lazy(param) or keep_vars):
                    param = param.detach()
                destination[prefix + name] = param
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                if not (is_lazy(buf) or keep_vars):
                    buf = buf.detach()
                destination[prefix + name] = buf

    def _lazy_load_hook(self, state_dict, prefix, local_metadata, strict, missing_keys,
                        unexpected_keys, error_msgs):
        """Materialises each placeholder that the state dict holds a real tensor for, to
        that tensor's shape, so that the load can copy into it."""
        for name, param in itertools.chain(self._parameters.items(), self._buffers.items()):
            key = prefix + name
            if key in state_dict and param is not None:
                input_param = state_dict[key]
                if is_lazy(param) and not is_lazy(input_param):
                    with no_grad():
                        param.materialize(input_param.shape)

    def initialize_parameters(self, *args, **kwargs):
        """Materialise the placeholders from the first input; lazy classes override it."""
        raise NotImplementedError(
            f"initialize_parameters is not implemented for {self.__class__.__name__}")

    def has_uninitialized_params(self):
        """Whether any parameter or buffer is still a placeholder."""
        for param in itertools.chain(self._parameters.values(), self._buffers.values()):
            if is_lazy(param):
                return True
        return False

    def _infer_parameters(self, module, args, kwargs=None):
        """The forward pre-hook: initialise, check, unhook, change class."""
        kwargs = kwargs if kwargs else {}
        module.initialize_parameters(*args, **kwargs)
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {self._get_name()} has not been fully initialized")
        module._initialize_hook.remove()
        module._load_hook.remove()
        delattr(module, "_initialize_hook")
        delattr(module, "_load_hook")
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become

    def _replicate_for_data_parallel(self):
        raise RuntimeError(
            "Modules with uninitialized parameters can't be used with `DataParallel`. Run a "
            "dummy forward pass to correctly initialize the modules")
