"""torch.nn.modules.module: Module: registration, traversal, state_dict, hooks, repr.

A module keeps its state in three ordered dicts, ``_parameters``, ``_buffers`` and
``_modules``; ``__setattr__`` routes an assigned ``Parameter`` / ``Buffer`` / ``Module`` into
the right one and ``__getattr__`` (called only when normal lookup fails) reads them back.
Everything else (traversal, ``state_dict``, ``to``, ``repr``) walks those dicts in
insertion order, which is what fixes torch's parameter order and state_dict key order.

Note [Module call fast path]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~
``module(x)`` is on every training step, often for tiny layers, so ``__call__`` first
checks (four dict truth tests on the instance and one module-level flag) whether any hook
could run; with none, it is a plain ``self.forward(*args, **kwargs)``. The global hook
dicts are summarised in ``_global_hooks_on`` so that the common case reads one global.

Note [Atomic load_state_dict]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
torch's ``load_state_dict`` copies every matching entry and only then raises for missing
keys or size mismatches, leaving the model half-loaded. Here ``load_state_dict`` keeps an
undo log while it runs (``_LOAD_UNDO``): each in-place copy first saves the old value and
each ``assign=True`` replacement the old object; when loading ends in an error, the log is
played back before raising, so a failed load leaves the module as it was. A successful
load (and any direct ``_load_from_state_dict`` call) behaves exactly as torch's.
"""

from __future__ import annotations

import functools
import inspect
import itertools
import warnings
import weakref
from collections import OrderedDict, namedtuple
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from ...autograd.grad_mode import no_grad
from ...frontend.tensor import Tensor
from ...utils.hooks import BackwardHook, RemovableHandle
from ..parameter import Buffer, Parameter, is_lazy

__all__ = [
    "register_module_forward_pre_hook", "register_module_forward_hook",
    "register_module_full_backward_pre_hook", "register_module_backward_hook",
    "register_module_full_backward_hook", "register_module_buffer_registration_hook",
    "register_module_module_registration_hook", "register_module_parameter_registration_hook",
    "Module",
]


def _typename(obj) -> str:
    """``torch.typename``: ``torch.FloatTensor`` for a tensor, else the qualified class name
    (builtins bare), spelled with torch's package name for our own classes."""
    if isinstance(obj, Tensor):
        return obj.type()
    cls = obj if isinstance(obj, type) else type(obj)
    module = cls.__module__ or ""
    if module in ("", "builtins"):
        return cls.__qualname__
    if module == "strided" or module.startswith("strided."):
        module = "torch" + module[7:]
    return f"{module}.{cls.__qualname__}"


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    __slots__ = ()

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _addindent(s_: str, num_spaces: int) -> str:
    lines = s_.split("\n")
    if len(lines) == 1:
        return s_
    first = lines.pop(0)
    rest = [(num_spaces * " " + line) if line.strip() else "" for line in lines]
    return first + "\n" + "\n".join(rest)


class _WrappedHook:
    """A hook that is called with its module first (held weakly), picklable."""

    def __init__(self, hook: Callable, module: Module | None = None) -> None:
        self.hook = hook
        functools.update_wrapper(self, hook)
        self.with_module = False
        if module is not None:
            self.module = weakref.ref(module)
            self.with_module = True

    def __call__(self, *args, **kwargs):
        if self.with_module:
            module = self.module()
            if module is None:
                raise RuntimeError("You are trying to call the hook of a dead Module!")
            return self.hook(module, *args, **kwargs)
        return self.hook(*args, **kwargs)

    def __getstate__(self) -> dict:
        state = {"hook": self.hook, "with_module": self.with_module}
        if self.with_module:
            state["module"] = self.module()
        return state

    def __setstate__(self, state: dict):
        self.hook = state["hook"]
        self.with_module = state["with_module"]
        if self.with_module:
            if state["module"] is None:
                raise RuntimeError("You are trying to revive the hook of a dead Module!")
            self.module = weakref.ref(state["module"])


# -- global hooks (every module, for debugging / profiling) -----------------------------------

_global_buffer_registration_hooks: dict[int, Callable] = OrderedDict()
_global_module_registration_hooks: dict[int, Callable] = OrderedDict()
_global_parameter_registration_hooks: dict[int, Callable] = OrderedDict()
_global_backward_pre_hooks: dict[int, Callable] = OrderedDict()
_global_backward_hooks: dict[int, Callable] = OrderedDict()
_global_is_full_backward_hook: bool | None = None
_global_forward_pre_hooks: dict[int, Callable] = OrderedDict()
_global_forward_hooks: dict[int, Callable] = OrderedDict()
_global_forward_hooks_always_called: dict[int, bool] = OrderedDict()
_global_forward_hooks_with_kwargs: dict[int, bool] = OrderedDict()

# Note [Module call fast path]: True while any global forward/backward hook is registered
_global_hooks_on = False


def _refresh_global_flag() -> None:
    global _global_hooks_on
    _global_hooks_on = bool(_global_backward_pre_hooks or _global_backward_hooks
                            or _global_forward_pre_hooks or _global_forward_hooks)


class _GlobalHandle(RemovableHandle):
    """A handle on the global hook dicts: removing it refreshes the fast-path flag."""

    def remove(self) -> None:
        super().remove()
        _refresh_global_flag()


def _has_any_global_hook():
    return (_global_backward_pre_hooks or _global_backward_hooks or _global_forward_pre_hooks
            or _global_forward_hooks or _global_forward_hooks_always_called
            or _global_forward_hooks_with_kwargs)


_EXTRA_STATE_KEY_SUFFIX = "_extra_state"


def register_module_buffer_registration_hook(hook: Callable[..., None]) -> RemovableHandle:
    """``hook(module, name, buffer)`` runs on every ``register_buffer``; it may return a
    replacement buffer."""
    handle = RemovableHandle(_global_buffer_registration_hooks)
    _global_buffer_registration_hooks[handle.id] = hook
    return handle


def register_module_module_registration_hook(hook: Callable[..., None]) -> RemovableHandle:
    """``hook(module, name, submodule)`` runs on every submodule registration."""
    handle = RemovableHandle(_global_module_registration_hooks)
    _global_module_registration_hooks[handle.id] = hook
    return handle


def register_module_parameter_registration_hook(hook: Callable[..., None]) -> RemovableHandle:
    """``hook(module, name, param)`` runs on every ``register_parameter``."""
    handle = RemovableHandle(_global_parameter_registration_hooks)
    _global_parameter_registration_hooks[handle.id] = hook
    return handle


def register_module_forward_pre_hook(hook: Callable[..., None]) -> RemovableHandle:
    """A forward pre-hook run before every module's own ones."""
    handle = _GlobalHandle(_global_forward_pre_hooks)
    _global_forward_pre_hooks[handle.id] = hook
    _refresh_global_flag()
    return handle


def register_module_forward_hook(hook: Callable[..., None], *, with_kwargs: bool = False,
                                 always_call: bool = False) -> RemovableHandle:
    """A forward hook run before every module's own ones."""
    handle = _GlobalHandle(_global_forward_hooks, extra_dict=_global_forward_hooks_always_called)
    _global_forward_hooks[handle.id] = hook
    if with_kwargs:
        _global_forward_hooks_with_kwargs[handle.id] = True
    if always_call:
        _global_forward_hooks_always_called[handle.id] = True
    _refresh_global_flag()
    return handle


_MIXED_GLOBAL_BACKWARD = ("Cannot use both regular backward hooks and full backward hooks as a "
                          "global Module hook. Please use only one of them.")


def _register_global_backward_hook(hook, full: bool) -> RemovableHandle:
    """A global backward hook, legacy or full: the first one registered fixes the kind, and
    the other kind is refused from then on."""
    global _global_is_full_backward_hook
    if _global_is_full_backward_hook is (not full):
        raise RuntimeError(_MIXED_GLOBAL_BACKWARD)
    _global_is_full_backward_hook = full
    handle = _GlobalHandle(_global_backward_hooks)
    _global_backward_hooks[handle.id] = hook
    _refresh_global_flag()
    return handle


def register_module_backward_hook(hook) -> RemovableHandle:
    """The legacy (non-full) global backward hook."""
    return _register_global_backward_hook(hook, full=False)


def register_module_full_backward_pre_hook(hook) -> RemovableHandle:
    """A full backward pre-hook for every module."""
    handle = _GlobalHandle(_global_backward_pre_hooks)
    _global_backward_pre_hooks[handle.id] = hook
    _refresh_global_flag()
    return handle


def register_module_full_backward_hook(hook) -> RemovableHandle:
    """A full backward hook for every module."""
    return _register_global_backward_hook(hook, full=True)


def _forward_unimplemented(self, *input: Any) -> None:
    raise NotImplementedError(
        f'Module [{type(self).__name__}] is missing the required "forward" function')


# Note [Atomic load_state_dict]: the undo log of the load_state_dict call in progress
_LOAD_UNDO: list = []

_MIXED_BACKWARD = ("Cannot use both regular backward hooks and full backward hooks on a "
                   "single Module. Please use only one of them.")

_setattr = object.__setattr__


class Module:
    """Base class of all layers: assign ``Parameter``s, buffers and submodules as attributes
    in ``__init__``, write ``forward``; call the module (not ``forward``) so hooks run."""

    dump_patches: bool = False
    _version: int = 1
    training: bool
    call_super_init: bool = False
    _compiled_call_impl = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if self.call_super_init is False and kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() got an unexpected keyword "
                            f"argument '{next(iter(kwargs))}'")
        if self.call_super_init is False and args:
            raise TypeError(f"{type(self).__name__}.__init__() takes 1 positional argument but "
                            f"{len(args) + 1} were given")
        d = self.__dict__
        d["training"] = True
        d["_parameters"] = {}
        d["_buffers"] = {}
        d["_non_persistent_buffers_set"] = set()
        d["_backward_pre_hooks"] = OrderedDict()
        d["_backward_hooks"] = OrderedDict()
        d["_is_full_backward_hook"] = None
        d["_forward_hooks"] = OrderedDict()
        d["_forward_hooks_with_kwargs"] = OrderedDict()
        d["_forward_hooks_always_called"] = OrderedDict()
        d["_forward_pre_hooks"] = OrderedDict()
        d["_forward_pre_hooks_with_kwargs"] = OrderedDict()
        d["_state_dict_hooks"] = OrderedDict()
        d["_state_dict_pre_hooks"] = OrderedDict()
        d["_load_state_dict_pre_hooks"] = OrderedDict()
        d["_load_state_dict_post_hooks"] = OrderedDict()
        d["_modules"] = {}
        if self.call_super_init:
            super().__init__(*args, **kwargs)

    forward: Callable[..., Any] = _forward_unimplemented

    # -- registration -----------------------------------------------------------------------

    def _check_new_entry(self, kind: str, table: str, name) -> None:
        """torch's checks, in torch's order, before ``name`` enters ``self.<table>``."""
        if table not in self.__dict__:
            raise AttributeError(f"cannot assign {kind} before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string. Got {_typename(name)}")
        if "." in name:
            raise KeyError(f'{kind} name can\'t contain "."')
        if name == "":
            raise KeyError(f'{kind} name can\'t be empty string ""')
        if hasattr(self, name) and name not in self.__dict__[table]:
            raise KeyError(f"attribute '{name}' already exists")

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """Adds a buffer (state that is not a parameter); ``persistent=False`` keeps it out
        of ``state_dict``."""
        self._check_new_entry("buffer", "_buffers", name)
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{_typename(tensor)}' object to buffer '{name}' "
                            "(torch Tensor or None required)")
        for hook in _global_buffer_registration_hooks.values():
            output = hook(self, name, tensor)
            if output is not None:
                tensor = output
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Adds a parameter (or a ``None`` placeholder) under ``name``."""
        self._check_new_entry("parameter", "_parameters", name)
        if param is None:
            self._parameters[name] = None
            return
        if not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{_typename(param)}' object to parameter '{name}' "
                            "(torch.nn.Parameter or None required)")
        if param.grad_fn:
            raise ValueError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must "
                f"be created explicitly. To express '{name}' as a function of another Tensor, "
                "compute the value in the forward() method.")
        for hook in _global_parameter_registration_hooks.values():
            output = hook(self, name, param)
            if output is not None:
                param = output
        self._parameters[name] = param

    def add_module(self, name: str, module: Module | None) -> None:
        """Adds a child module under ``name``."""
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {_typename(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        for hook in _global_module_registration_hooks.values():
            output = hook(self, name, module)
            if output is not None:
                module = output
        self._modules[name] = module

    def register_module(self, name: str, module: Module | None) -> None:
        """Alias of ``add_module``."""
        self.add_module(name, module)

    def get_submodule(self, target: str) -> Module:
        """The submodule at dotted path ``target`` ("" is ``self``)."""
        if target == "":
            return self
        mod = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(mod._get_name() + " has no attribute `" + item + "`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")
        return mod

    def set_submodule(self, target: str, module: Module, strict: bool = False) -> None:
        """Replaces (or, unless ``strict``, adds) the submodule at dotted path ``target``."""
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        atoms = target.split(".")
        if not isinstance(module, Module):
            raise ValueError(f"`module` is not an nn.Module, found {type(module)}")
        parent = self if len(atoms) == 1 else self.get_submodule(".".join(atoms[:-1]))
        if strict and not hasattr(parent, atoms[-1]):
            raise AttributeError(parent._get_name() + " has no attribute `" + atoms[-1] + "`")
        if hasattr(parent, atoms[-1]):
            mod = getattr(parent, atoms[-1])
            if not isinstance(mod, Module):
                raise AttributeError("`" + atoms[-1] + "` is not an nn.Module")
        setattr(parent, atoms[-1], module)

    def get_parameter(self, target: str) -> Parameter:
        """The parameter at dotted path ``target``."""
        module_path, _, param_name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, param_name):
            raise AttributeError(mod._get_name() + " has no attribute `" + param_name + "`")
        param = getattr(mod, param_name)
        if not isinstance(param, Parameter):
            raise AttributeError("`" + param_name + "` is not an nn.Parameter")
        return param

    def get_buffer(self, target: str) -> Tensor:
        """The buffer at dotted path ``target``."""
        module_path, _, buffer_name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, buffer_name):
            raise AttributeError(mod._get_name() + " has no attribute `" + buffer_name + "`")
        buffer = getattr(mod, buffer_name)
        if buffer_name not in mod._buffers:
            raise AttributeError("`" + buffer_name + "` is not a buffer")
        return buffer

    def get_extra_state(self) -> Any:
        """Override (with ``set_extra_state``) to put extra picklable state in state_dict."""
        raise RuntimeError(
            "Reached a code path in Module.get_extra_state() that should never be called. "
            "Please file an issue at https://github.com/pytorch/pytorch/issues/new?"
            "template=bug-report.yml to report this bug.")

    def set_extra_state(self, state: Any) -> None:
        """Override (with ``get_extra_state``) to read back extra state."""
        raise RuntimeError(
            "Reached a code path in Module.set_extra_state() that should never be called. "
            "Please file an issue at https://github.com/pytorch/pytorch/issues/new?"
            "template=bug-report.yml to report this bug.")

    # -- conversions --------------------------------------------------------------------------

    def _apply(self, fn, recurse=True):
        """Applies ``fn`` to every parameter, gradient and buffer (children first). A
        parameter keeps its identity: it takes the converted data (``param.data = ...``)."""
        if recurse:
            for module in self.children():
                module._apply(fn)
        for key, param in self._parameters.items():
            if param is None:
                continue
            with no_grad():
                param_applied = fn(param)
            param_grad = param.grad
            if param_applied.__class__ is Tensor or isinstance(param_applied, Parameter):
                param.data = param_applied
                out_param = param
            else:
                out_param = Parameter(param_applied, param.requires_grad)
                self._parameters[key] = out_param
            if param_grad is not None:
                with no_grad():
                    grad_applied = fn(param_grad)
                out_param.grad.data = grad_applied
        for key, buf in self._buffers.items():
            if buf is not None:
                self._buffers[key] = fn(buf)
        return self

    def apply(self, fn: Callable[[Module], None]):
        """Calls ``fn`` on every submodule (children first, then ``self``); returns self."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    def cuda(self, device=None):
        return self._apply(lambda t: t.cuda(device))

    def ipu(self, device=None):
        return self._apply(lambda t: t.ipu(device))

    def xpu(self, device=None):
        return self._apply(lambda t: t.xpu(device))

    def mtia(self, device=None):
        return self._apply(lambda t: t.mtia(device))

    def cpu(self):
        return self._apply(lambda t: t.cpu())

    def type(self, dst_type):
        """Casts every parameter and buffer to ``dst_type``."""
        return self._apply(lambda t: t.type(dst_type))

    def float(self):
        return self._apply(lambda t: t.float() if t.is_floating_point() else t)

    def double(self):
        return self._apply(lambda t: t.double() if t.is_floating_point() else t)

    def half(self):
        return self._apply(lambda t: t.half() if t.is_floating_point() else t)

    def bfloat16(self):
        return self._apply(lambda t: t.bfloat16() if t.is_floating_point() else t)

    def to_empty(self, *, device, recurse: bool = True):
        """Moves parameters and buffers to ``device`` without copying their values."""
        from ...ops._generated import torch_functions as fns
        return self._apply(lambda t: fns.empty_like(t, device=device), recurse=recurse)

    def to(self, *args, **kwargs):
        """``to(device=None, dtype=None, non_blocking=False)``, ``to(dtype)``, ``to(tensor)``,
        ``to(memory_format=...)``: floating point (and complex) parameters and buffers take
        ``dtype``; everything moves to ``device``."""
        from ...frontend.tensor import _parse_to
        dtype, device, non_blocking, _copy, convert_to_format = _parse_to(args, kwargs)
        if dtype is not None:
            if not (dtype.is_floating_point or dtype.is_complex):
                raise TypeError("nn.Module.to only accepts floating point or complex dtypes, "
                                f"but got desired dtype={dtype}")
            if dtype.is_complex:
                warnings.warn(
                    "Complex modules are a new feature under active development whose design "
                    "may change, and some modules might not work as expected when using "
                    "complex tensors as parameters or buffers. Please file an issue at "
                    "https://github.com/pytorch/pytorch/issues/new?template=bug-report.yml "
                    "if a complex module does not work as expected.", stacklevel=2)

        def convert(t):
            target = dtype if (t.is_floating_point() or t.is_complex()) else None
            try:
                if convert_to_format is not None and t.dim() in (4, 5):
                    return t.to(device, target, non_blocking, memory_format=convert_to_format)
                return t.to(device, target, non_blocking)
            except NotImplementedError as e:
                if str(e) == "Cannot copy out of meta tensor; no data!":
                    raise NotImplementedError(
                        f"{e} Please use torch.nn.Module.to_empty() instead of "
                        "torch.nn.Module.to() when moving module from meta to a different "
                        "device.") from None
                raise

        return self._apply(convert)

    # -- hooks -----------------------------------------------------------------------------

    def register_full_backward_pre_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        """``hook(module, grad_output)`` before the module's input gradients are computed;
        it may return a replacement ``grad_output``."""
        handle = RemovableHandle(self._backward_pre_hooks)
        self._backward_pre_hooks[handle.id] = hook
        if prepend:
            self._backward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_backward_hook(self, hook) -> RemovableHandle:
        """The legacy backward hook (on the grad_fn of the output); prefer the full one."""
        if self._is_full_backward_hook is True:
            raise RuntimeError(_MIXED_BACKWARD)
        self._is_full_backward_hook = False
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        return handle

    def register_full_backward_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        """``hook(module, grad_input, grad_output)`` once the gradients with respect to the
        module's inputs are computed; it may return a replacement ``grad_input``."""
        if self._is_full_backward_hook is False:
            raise RuntimeError(_MIXED_BACKWARD)
        self._is_full_backward_hook = True
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        if prepend:
            self._backward_hooks.move_to_end(handle.id, last=False)
        return handle

    def _get_backward_hooks(self):
        full, non_full = [], []
        if _global_is_full_backward_hook is True:
            full += _global_backward_hooks.values()
        if self._is_full_backward_hook is True:
            full += self._backward_hooks.values()
        if _global_is_full_backward_hook is False:
            non_full += _global_backward_hooks.values()
        if self._is_full_backward_hook is False:
            non_full += self._backward_hooks.values()
        return full, non_full

    def _get_backward_pre_hooks(self):
        return [*_global_backward_pre_hooks.values(), *self._backward_pre_hooks.values()]

    def _maybe_warn_non_full_backward_hook(self, inputs, result, grad_fn) -> None:
        if not isinstance(result, Tensor):
            if not (isinstance(result, tuple) and all(isinstance(r, Tensor) for r in result)):
                warnings.warn(
                    "Using non-full backward hooks on a Module that does not return a single "
                    "Tensor or a tuple of Tensors is deprecated and will be removed in future "
                    "versions. This hook will be missing some of the grad_output. Please use "
                    "register_full_backward_hook to get the documented behavior.",
                    FutureWarning, stacklevel=2)
                return
        else:
            result = (result,)
        if not isinstance(inputs, Tensor):
            if not (isinstance(inputs, tuple) and all(isinstance(i, Tensor) for i in inputs)):
                warnings.warn(
                    "Using non-full backward hooks on a Module that does not take as input a "
                    "single Tensor or a tuple of Tensors is deprecated and will be removed in "
                    "future versions. This hook will be missing some of the grad_input. Please "
                    "use register_full_backward_hook to get the documented behavior.",
                    FutureWarning, stacklevel=2)
                return
        else:
            inputs = (inputs,)
        out_grad_fn = {r.grad_fn for r in result if r.grad_fn is not None}
        if len(out_grad_fn) == 0 or (len(out_grad_fn) == 1 and grad_fn not in out_grad_fn):
            warnings.warn(
                "Using a non-full backward hook when outputs are nested in python data "
                "structure is deprecated and will be removed in future versions. This hook "
                "will be missing some grad_output.", FutureWarning, stacklevel=2)
        elif len(out_grad_fn) > 1:
            warnings.warn(
                "Using a non-full backward hook when outputs are generated by different "
                "autograd Nodes is deprecated and will be removed in future versions. This "
                "hook will be missing some grad_output. Please use register_full_backward_hook "
                "to get the documented behavior.", FutureWarning, stacklevel=2)
        else:
            inputs_grad_fn = {i.grad_fn for i in inputs if i.grad_fn is not None}
            next_functions = {n[0] for n in grad_fn.next_functions}
            if inputs_grad_fn != next_functions:
                warnings.warn(
                    "Using a non-full backward hook when the forward contains multiple "
                    "autograd Nodes is deprecated and will be removed in future versions. This "
                    "hook will be missing some grad_input. Please use "
                    "register_full_backward_hook to get the documented behavior.",
                    FutureWarning, stacklevel=2)

    def register_forward_pre_hook(self, hook, *, prepend: bool = False,
                                  with_kwargs: bool = False) -> RemovableHandle:
        """``hook(module, args)`` (``hook(module, args, kwargs)`` with ``with_kwargs``) before
        ``forward``; a non-None result replaces the arguments."""
        handle = RemovableHandle(self._forward_pre_hooks,
                                 extra_dict=self._forward_pre_hooks_with_kwargs)
        self._forward_pre_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs[handle.id] = True
        if prepend:
            self._forward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_forward_hook(self, hook, *, prepend: bool = False, with_kwargs: bool = False,
                              always_call: bool = False) -> RemovableHandle:
        """``hook(module, args, output)`` (``hook(module, args, kwargs, output)`` with
        ``with_kwargs``) after ``forward``; a non-None result replaces the output.
        ``always_call`` runs it even when ``forward`` raises."""
        handle = RemovableHandle(
            self._forward_hooks,
            extra_dict=[self._forward_hooks_with_kwargs, self._forward_hooks_always_called])
        self._forward_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_hooks_with_kwargs[handle.id] = True
        if always_call:
            self._forward_hooks_always_called[handle.id] = True
        if prepend:
            self._forward_hooks.move_to_end(handle.id, last=False)
        return handle

    # -- calling ----------------------------------------------------------------------------

    def _call_impl(self, *args, **kwargs):
        # Note [Module call fast path]
        d = self.__dict__
        if not (d["_forward_pre_hooks"] or d["_forward_hooks"] or d["_backward_hooks"]
                or d["_backward_pre_hooks"] or _global_hooks_on):
            return self.forward(*args, **kwargs)
        return self._call_with_hooks(args, kwargs)

    def _call_with_hooks(self, args, kwargs):
        forward_call = self.forward
        result = None
        called_always_called_hooks = set()

        def inner():
            nonlocal result, args, kwargs
            full_backward_hooks, non_full_backward_hooks = [], []
            backward_pre_hooks = []
            if self._backward_pre_hooks or _global_backward_pre_hooks:
                backward_pre_hooks = self._get_backward_pre_hooks()
            if self._backward_hooks or _global_backward_hooks:
                full_backward_hooks, non_full_backward_hooks = self._get_backward_hooks()
            if _global_forward_pre_hooks or self._forward_pre_hooks:
                for hook_id, hook in (*_global_forward_pre_hooks.items(),
                                      *self._forward_pre_hooks.items()):
                    if hook_id in self._forward_pre_hooks_with_kwargs:
                        args_kwargs_result = hook(self, args, kwargs)
                        if args_kwargs_result is not None:
                            if isinstance(args_kwargs_result, tuple) \
                                    and len(args_kwargs_result) == 2:
                                args, kwargs = args_kwargs_result
                            else:
                                raise RuntimeError(
                                    "forward pre-hook must return None or a tuple of "
                                    f"(new_args, new_kwargs), but got {args_kwargs_result}.")
                    else:
                        args_result = hook(self, args)
                        if args_result is not None:
                            if not isinstance(args_result, tuple):
                                args_result = (args_result,)
                            args = args_result
            bw_hook = None
            if full_backward_hooks or backward_pre_hooks:
                bw_hook = BackwardHook(self, full_backward_hooks, backward_pre_hooks)
                args = bw_hook.setup_input_hook(args)
            result = forward_call(*args, **kwargs)
            if _global_forward_hooks or self._forward_hooks:
                for hook_id, hook in (*_global_forward_hooks.items(),
                                      *self._forward_hooks.items()):
                    if hook_id in self._forward_hooks_always_called \
                            or hook_id in _global_forward_hooks_always_called:
                        called_always_called_hooks.add(hook_id)
                    if hook_id in self._forward_hooks_with_kwargs \
                            or hook_id in _global_forward_hooks_with_kwargs:
                        hook_result = hook(self, args, kwargs, result)
                    else:
                        hook_result = hook(self, args, result)
                    if hook_result is not None:
                        result = hook_result
            if bw_hook:
                if not isinstance(result, (Tensor, tuple)):
                    warnings.warn("For backward hooks to be called, module output should be a "
                                  f"Tensor or a tuple of Tensors but received {type(result)}",
                                  stacklevel=2)
                result = bw_hook.setup_output_hook(result)
            if non_full_backward_hooks:
                var = result
                while not isinstance(var, Tensor):
                    if isinstance(var, dict):
                        var = next(v for v in var.values() if isinstance(v, Tensor))
                    else:
                        var = var[0]
                grad_fn = var.grad_fn
                if grad_fn is not None:
                    for hook in non_full_backward_hooks:
                        grad_fn.register_hook(_WrappedHook(hook, self))
                    self._maybe_warn_non_full_backward_hook(args, result, grad_fn)
            return result

        try:
            return inner()
        except Exception:
            # the always_call forward hooks that did not run yet run now
            for hook_id, hook in _global_forward_hooks.items():
                if hook_id in _global_forward_hooks_always_called \
                        and hook_id not in called_always_called_hooks:
                    try:
                        hook_result = hook(self, args, result)
                        if hook_result is not None:
                            result = hook_result
                    except Exception as e:
                        warnings.warn("global module forward hook with ``always_call=True`` "
                                      "raised an exception that was silenced as another error "
                                      f"was raised in forward: {e!s}", stacklevel=2)
                        continue
            for hook_id, hook in self._forward_hooks.items():
                if hook_id in self._forward_hooks_always_called \
                        and hook_id not in called_always_called_hooks:
                    try:
                        if hook_id in self._forward_hooks_with_kwargs:
                            hook_result = hook(self, args, kwargs, result)
                        else:
                            hook_result = hook(self, args, result)
                        if hook_result is not None:
                            result = hook_result
                    except Exception as e:
                        warnings.warn("module forward hook with ``always_call=True`` raised an "
                                      "exception that was silenced as another error was raised "
                                      f"in forward: {e!s}", stacklevel=2)
                        continue
            raise

    __call__ = _call_impl

    def _wrapped_call_impl(self, *args, **kwargs):
        return self._call_impl(*args, **kwargs)

    # -- pickling ---------------------------------------------------------------------------

    def __getstate__(self):
        state = self.__dict__.copy()
        state.pop("_compiled_call_impl", None)
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        d = self.__dict__
        for name in ("_forward_pre_hooks", "_forward_pre_hooks_with_kwargs",
                     "_forward_hooks_with_kwargs", "_forward_hooks_always_called",
                     "_state_dict_hooks", "_state_dict_pre_hooks", "_load_state_dict_pre_hooks",
                     "_load_state_dict_post_hooks", "_backward_pre_hooks"):
            if name not in d:
                d[name] = OrderedDict()
        if "_non_persistent_buffers_set" not in d:
            d["_non_persistent_buffers_set"] = set()
        if "_is_full_backward_hook" not in d:
            d["_is_full_backward_hook"] = None

    # -- attributes ---------------------------------------------------------------------------

    def __getattr__(self, name: str):
        d = self.__dict__
        if "_parameters" in d:
            params = d["_parameters"]
            if name in params:
                return params[name]
        if "_buffers" in d:
            buffers = d["_buffers"]
            if name in buffers:
                return buffers[name]
        if "_modules" in d:
            modules = d["_modules"]
            if name in modules:
                return modules[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name: str, value) -> None:
        d = self.__dict__

        def remove_from(*dicts_or_sets):
            for c in dicts_or_sets:
                if name in c:
                    if isinstance(c, dict):
                        del c[name]
                    else:
                        c.discard(name)

        params = d.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            remove_from(d, self._buffers, self._modules, self._non_persistent_buffers_set)
            self.register_parameter(name, value)
            return
        if params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as parameter '{name}' "
                                "(torch.nn.Parameter or None expected)")
            self.register_parameter(name, value)
            return
        modules = d.get("_modules")
        if isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            remove_from(d, self._parameters, self._buffers, self._non_persistent_buffers_set)
            for hook in _global_module_registration_hooks.values():
                output = hook(self, name, value)
                if output is not None:
                    value = output
            modules[name] = value
            return
        if modules is not None and name in modules:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as child module '{name}' "
                                "(torch.nn.Module or None expected)")
            for hook in _global_module_registration_hooks.values():
                output = hook(self, name, value)
                if output is not None:
                    value = output
            modules[name] = value
            return
        buffers = d.get("_buffers")
        if isinstance(value, Buffer) or (buffers is not None and name in buffers):
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{_typename(value)}' as buffer '{name}' "
                                "(torch.nn.Buffer, torch.Tensor or None expected)")
            if isinstance(value, Buffer):
                persistent = value.persistent
            else:
                persistent = name not in self._non_persistent_buffers_set
            register = self.register_buffer
            if getattr(register, "__func__", None) is Module.register_buffer \
                    or "persistent" in inspect.signature(register).parameters:
                register(name, value, persistent)
            else:
                if not persistent:
                    raise RuntimeError(
                        "Registering a non-persistent buffer on a Module subclass that "
                        "implements register_buffer() without the persistent argument is not "
                        "allowed.")
                register(name, value)
            return
        _setattr(self, name, value)

    def __delattr__(self, name) -> None:
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            super().__delattr__(name)

    # -- state_dict -----------------------------------------------------------------------

    def _register_state_dict_hook(self, hook):
        """``hook(module, state_dict, prefix, local_metadata)`` after ``state_dict``; a
        non-None result replaces the state dict."""
        if getattr(hook, "_from_public_api", False):
            raise RuntimeError("Cannot register the same function as the state dict post hook "
                               "that was previously registered via "
                               "register_state_dict_post_hook")
        handle = RemovableHandle(self._state_dict_hooks)
        self._state_dict_hooks[handle.id] = hook
        return handle

    def register_state_dict_post_hook(self, hook):
        """``hook(module, state_dict, prefix, local_metadata)`` after ``state_dict``; it
        edits the dict in place and must return None."""
        hook._from_public_api = True
        handle = RemovableHandle(self._state_dict_hooks)
        self._state_dict_hooks[handle.id] = hook
        return handle

    def register_state_dict_pre_hook(self, hook):
        """``hook(module, prefix, keep_vars)`` before ``state_dict``."""
        handle = RemovableHandle(self._state_dict_pre_hooks)
        self._state_dict_pre_hooks[handle.id] = hook
        return handle

    def _save_to_state_dict(self, destination, prefix, keep_vars) -> None:
        """Puts this module's own parameters and persistent buffers (no children) in
        ``destination``; override point for modules with custom state."""
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars else buf.detach()
        if getattr(self.__class__, "get_extra_state", Module.get_extra_state) \
                is not Module.get_extra_state:
            destination[prefix + _EXTRA_STATE_KEY_SUFFIX] = self.get_extra_state()

    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        """An ``OrderedDict`` of every parameter and persistent buffer by dotted name (with
        ``_metadata`` holding each module's ``_version``); detached unless ``keep_vars``."""
        if args:
            warnings.warn(
                "Positional args are being deprecated, use kwargs instead. Refer to "
                "https://pytorch.org/docs/main/generated/torch.nn.Module.html"
                "#torch.nn.Module.state_dict for details.", FutureWarning, stacklevel=2)
            if destination is None:
                destination = args[0]
            if len(args) > 1 and prefix == "":
                prefix = args[1]
            if len(args) > 2 and keep_vars is False:
                keep_vars = args[2]
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        local_metadata = dict(version=self._version)
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = local_metadata
        for hook in self._state_dict_pre_hooks.values():
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".",
                                  keep_vars=keep_vars)
        for hook in self._state_dict_hooks.values():
            hook_result = hook(self, destination, prefix, local_metadata)
            if not getattr(hook, "_from_public_api", False):
                if hook_result is not None:
                    destination = hook_result
            elif hook_result is not None:
                raise RuntimeError("state_dict post-hook must return None")
        return destination

    def _register_load_state_dict_pre_hook(self, hook, with_module=False):
        handle = RemovableHandle(self._load_state_dict_pre_hooks)
        self._load_state_dict_pre_hooks[handle.id] = _WrappedHook(
            hook, self if with_module else None)
        return handle

    def register_load_state_dict_pre_hook(self, hook):
        """``hook(module, state_dict, prefix, local_metadata, strict, missing_keys,
        unexpected_keys, error_msgs)`` before this module loads its part."""
        return self._register_load_state_dict_pre_hook(hook, with_module=True)

    def register_load_state_dict_post_hook(self, hook):
        """``hook(module, incompatible_keys)`` after this module and its children loaded;
        it may edit ``incompatible_keys`` in place (and must return None)."""
        handle = RemovableHandle(self._load_state_dict_post_hooks)
        self._load_state_dict_post_hooks[handle.id] = hook
        return handle

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs) -> None:
        """Loads this module's own entries (no children) from ``state_dict``; override
        point for modules whose saved layout changed (compare ``local_metadata["version"]``)."""
        for hook in self._load_state_dict_pre_hooks.values():
            hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                 error_msgs)
        persistent_buffers = {k: v for k, v in self._buffers.items()
                              if k not in self._non_persistent_buffers_set}
        local_state = {k: v for k, v in itertools.chain(self._parameters.items(),
                                                        persistent_buffers.items())
                       if v is not None}
        assign = local_metadata.get("assign_to_params_buffers", False)
        undo = _LOAD_UNDO[-1] if _LOAD_UNDO else None
        for name, param in local_state.items():
            key = prefix + name
            if key in state_dict:
                input_param = state_dict[key]
                if not isinstance(input_param, Tensor):
                    error_msgs.append(
                        f'While copying the parameter named "{key}", expected torch.Tensor or '
                        f"Tensor-like object from checkpoint but received "
                        f"{_torch_type_repr(input_param)}")
                    continue
                lazy = is_lazy(param)
                if not lazy and param.dim() == 0 and input_param.dim() == 1 \
                        and input_param._sizes[0] == 1:
                    input_param = input_param[0]
                if not lazy and input_param._sizes != param._sizes:
                    error_msgs.append(
                        f"size mismatch for {key}: copying a param with shape "
                        f"{input_param.shape} from checkpoint, the shape in current model is "
                        f"{param.shape}.")
                    continue
                if param.is_meta and not input_param.is_meta and not assign:
                    warnings.warn(
                        f"for {key}: copying from a non-meta parameter in the checkpoint to a "
                        "meta parameter in the current model, which is a no-op. (Did you mean "
                        "to pass `assign=True` to assign items in the state dictionary to "
                        "their corresponding key in the module instead of copying them in "
                        "place?)", stacklevel=2)
                try:
                    with no_grad():
                        if assign:
                            if isinstance(param, Parameter):
                                if not isinstance(input_param, Parameter):
                                    input_param = Parameter(input_param,
                                                            requires_grad=param.requires_grad)
                                else:
                                    input_param.requires_grad_(param.requires_grad)
                            if undo is not None:
                                undo.append((self, name, param, None))
                            setattr(self, name, input_param)
                        else:
                            if undo is not None and not lazy and not param.is_meta:
                                undo.append((self, name, param, param.detach().clone()))
                            param.copy_(input_param)
                except Exception as ex:
                    error_msgs.append(
                        f'While copying the parameter named "{key}", whose dimensions in the '
                        f"model are {param.size()} and whose dimensions in the checkpoint are "
                        f"{input_param.size()}, an exception occurred : {ex.args}.")
            elif strict:
                missing_keys.append(key)
        extra_state_key = prefix + _EXTRA_STATE_KEY_SUFFIX
        if getattr(self.__class__, "set_extra_state", Module.set_extra_state) \
                is not Module.set_extra_state:
            if extra_state_key in state_dict:
                self.set_extra_state(state_dict[extra_state_key])
            elif strict:
                missing_keys.append(extra_state_key)
        elif strict and extra_state_key in state_dict:
            unexpected_keys.append(extra_state_key)
        if strict:
            for key in state_dict.keys():
                if key.startswith(prefix) and key != extra_state_key:
                    input_name = key[len(prefix):].split(".", 1)
                    if len(input_name) > 1:
                        if input_name[0] not in self._modules:
                            unexpected_keys.append(key)
                    elif input_name[0] not in local_state:
                        unexpected_keys.append(key)

    def load_state_dict(self, state_dict: Mapping[str, Any], strict: bool = True,
                        assign: bool = False):
        """Copies ``state_dict``'s entries into the parameters and buffers (or, with
        ``assign``, makes them the parameters). ``strict`` requires the keys to match. Returns
        ``_IncompatibleKeys(missing_keys, unexpected_keys)``; raises with every problem
        listed, leaving the module unchanged (Note [Atomic load_state_dict])."""
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got "
                            f"{_torch_type_repr(state_dict)}.")
        missing_keys: list[str] = []
        unexpected_keys: list[str] = []
        error_msgs: list[str] = []
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)
        if metadata is not None:
            state_dict._metadata = metadata

        def load(module, local_state_dict, prefix=""):
            local_metadata = {} if metadata is None else metadata.get(prefix[:-1], {})
            if assign:
                local_metadata["assign_to_params_buffers"] = assign
            module._load_from_state_dict(local_state_dict, prefix, local_metadata, True,
                                         missing_keys, unexpected_keys, error_msgs)
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    child_state_dict = {k: v for k, v in local_state_dict.items()
                                        if k.startswith(child_prefix)}
                    load(child, child_state_dict, child_prefix)
            incompatible_keys = _IncompatibleKeys(missing_keys, unexpected_keys)
            for hook in module._load_state_dict_post_hooks.values():
                out = hook(module, incompatible_keys)
                if out is not None:
                    raise AssertionError(
                        "Hooks registered with ``register_load_state_dict_post_hook`` are not "
                        "expected to return new values, if incompatible_keys need to be "
                        "modified, it should be done inplace.")

        undo: list = []
        _LOAD_UNDO.append(undo)
        try:
            try:
                load(self, state_dict)
            except BaseException:
                _play_back(undo)
                raise
            if strict:
                if unexpected_keys:
                    error_msgs.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                        ", ".join(f'"{k}"' for k in unexpected_keys)))
                if missing_keys:
                    error_msgs.insert(0, "Missing key(s) in state_dict: {}. ".format(
                        ", ".join(f'"{k}"' for k in missing_keys)))
            if error_msgs:
                _play_back(undo)
                raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                    self.__class__.__name__, "\n\t".join(error_msgs)))
        finally:
            _LOAD_UNDO.pop()
        return _IncompatibleKeys(missing_keys, unexpected_keys)

    # -- traversal -------------------------------------------------------------------------

    def _named_members(self, get_members_fn, prefix="", recurse=True, remove_duplicate=True):
        memo = set()
        modules = (self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
                   if recurse else [(prefix, self)])
        for module_prefix, module in modules:
            for k, v in get_members_fn(module):
                if v is None or v in memo:
                    continue
                if remove_duplicate:
                    memo.add(v)
                yield (module_prefix + ("." if module_prefix else "") + k, v)

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        """Every parameter (submodules' too unless ``recurse=False``), each once."""
        for _name, param in self.named_parameters(recurse=recurse):
            yield param

    def named_parameters(self, prefix: str = "", recurse: bool = True,
                         remove_duplicate: bool = True):
        """``(dotted name, parameter)`` pairs in registration order, depth first."""
        yield from self._named_members(lambda m: m._parameters.items(), prefix=prefix,
                                       recurse=recurse, remove_duplicate=remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        for _, buf in self.named_buffers(recurse=recurse):
            yield buf

    def named_buffers(self, prefix: str = "", recurse: bool = True,
                      remove_duplicate: bool = True):
        yield from self._named_members(lambda m: m._buffers.items(), prefix=prefix,
                                       recurse=recurse, remove_duplicate=remove_duplicate)

    def children(self) -> Iterator[Module]:
        for _name, module in self.named_children():
            yield module

    def named_children(self):
        memo = set()
        for name, module in self._modules.items():
            if module is not None and module not in memo:
                memo.add(module)
                yield name, module

    def modules(self, remove_duplicate: bool = True) -> Iterator[Module]:
        for _, module in self.named_modules(remove_duplicate=remove_duplicate):
            yield module

    def named_modules(self, memo: set | None = None, prefix: str = "",
                      remove_duplicate: bool = True):
        """``(dotted name, module)`` for ``self`` ("" or ``prefix``) and every submodule,
        depth first; a module reachable twice is given once unless ``remove_duplicate`` is
        False."""
        if memo is None:
            memo = set()
        if self not in memo:
            if remove_duplicate:
                memo.add(self)
            yield prefix, self
            for name, module in self._modules.items():
                if module is None:
                    continue
                submodule_prefix = prefix + ("." if prefix else "") + name
                yield from module.named_modules(memo, submodule_prefix, remove_duplicate)

    # -- modes and gradients -----------------------------------------------------------------

    def train(self, mode: bool = True):
        """Sets training mode on this module and every submodule."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self):
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True):
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Resets every parameter's gradient: to None (default) or to zeros."""
        if getattr(self, "_is_replica", False):
            warnings.warn(
                "Calling .zero_grad() from a module created with nn.DataParallel() has no "
                "effect. The parameters are copied (in a differentiable manner) from the "
                "original module. This means they are not leaf nodes in autograd and so don't "
                "accumulate gradients. If you need gradients in your forward method, consider "
                "using autograd.grad instead.", stacklevel=2)
        for p in self.parameters():
            if p.grad is not None:
                if set_to_none:
                    p.grad = None
                else:
                    if p.grad.grad_fn is not None:
                        p.grad.detach_()
                    else:
                        p.grad.requires_grad_(False)
                    p.grad.zero_()

    def share_memory(self):
        """Memory is always shareable here: nothing to move (returns self)."""
        return self

    # -- repr ----------------------------------------------------------------------------

    def _get_name(self):
        return self.__class__.__name__

    def extra_repr(self) -> str:
        """The module's own settings, shown inside its repr; override in layers."""
        return ""

    def __repr__(self) -> str:
        extra_repr = self.extra_repr()
        extra_lines = extra_repr.split("\n") if extra_repr else []
        child_lines = [f"({key}): " + _addindent(repr(module), 2)
                       for key, module in self._modules.items()]
        lines = extra_lines + child_lines
        main_str = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                main_str += extra_lines[0]
            else:
                main_str += "\n  " + "\n  ".join(lines) + "\n"
        return main_str + ")"

    def __dir__(self):
        keys = (dir(self.__class__) + list(self.__dict__.keys()) + list(self._parameters.keys())
                + list(self._modules.keys()) + list(self._buffers.keys()))
        return sorted(key for key in keys if not key[0].isdigit())

    def _replicate_for_data_parallel(self):
        replica = self.__new__(type(self))
        replica.__dict__ = self.__dict__.copy()
        replica._parameters = {}
        replica._buffers = replica._buffers.copy()
        replica._modules = replica._modules.copy()
        replica._is_replica = True
        return replica


def _torch_type_repr(obj) -> str:
    """``repr(type(obj))`` with our package spelled as torch's (as in torch's messages)."""
    text = repr(type(obj))
    return text.replace("'strided.", "'torch.")


def _play_back(undo: list) -> None:
    """Note [Atomic load_state_dict]: restores what a failed load changed, newest first."""
    with no_grad():
        for module, name, old, saved in reversed(undo):
            if saved is None:
                if isinstance(old, Parameter):
                    module._parameters[name] = old
                else:
                    module._buffers[name] = old
            else:
                old.copy_(saved)
