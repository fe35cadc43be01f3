"""torch.optim.Optimizer: parameter groups, per-parameter state, hooks, and state dicts in
torch's format (parameters numbered 0, 1, ... in group order), so a state dict written by
torch's optimizer loads here and gives the same next step, and the reverse.

    opt = strided.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    loss = model(x).sum(); loss.backward(); opt.step(); opt.zero_grad()

Note [single-tensor path]: every algorithm here reproduces the order of operations of
torch's ``foreach=False`` code path, one parameter at a time, with the same in-place ops
(``lerp_``, ``addcmul_``, ``addcdiv_``...) and the same Python-float arithmetic for the
scalars (bias corrections are computed from ``step.item()`` as torch does), so float32
trajectories agree with torch's to rounding. ``foreach=True`` and ``fused=True`` are
accepted and run that same path: on a NumPy backend there is nothing to fuse.
"""

from __future__ import annotations

import functools
import warnings
from collections import OrderedDict, defaultdict
from collections.abc import Callable, Iterable
from copy import deepcopy
from itertools import chain
from typing import Any

import strided as torch
from strided.utils.hooks import RemovableHandle

__all__ = ["Optimizer", "register_optimizer_step_pre_hook", "register_optimizer_step_post_hook"]


class _RequiredParameter:
    """Marks a default that every parameter group must give (``SGD(lr=required)``)."""

    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()

_global_optimizer_pre_hooks: OrderedDict[int, Callable] = OrderedDict()
_global_optimizer_post_hooks: OrderedDict[int, Callable] = OrderedDict()

# What torch 2.13 names in its messages (a CPU build): fused kernels exist for these device
# types, capturable (graph-safe) steps only for accelerators.
_FUSED_DEVICES = ["mps", "cuda", "xpu", "hpu", "cpu", "mtia", "privateuseone"]


def _capturable_devices(supports_xla: bool = True) -> list[str]:
    return ["cuda", "xpu", "hpu", "privateuseone"] + (["xla"] if supports_xla else [])


def register_optimizer_step_pre_hook(hook: Callable) -> RemovableHandle:
    """A pre-step hook for every optimizer: ``hook(optimizer, args, kwargs)`` returning None
    or a new ``(args, kwargs)``."""
    handle = RemovableHandle(_global_optimizer_pre_hooks)
    _global_optimizer_pre_hooks[handle.id] = hook
    return handle


def register_optimizer_step_post_hook(hook: Callable) -> RemovableHandle:
    """A post-step hook for every optimizer: ``hook(optimizer, args, kwargs)``."""
    handle = RemovableHandle(_global_optimizer_post_hooks)
    _global_optimizer_post_hooks[handle.id] = hook
    return handle


# -- small helpers the algorithms share -------------------------------------------------------

def _typename(obj: Any) -> str:
    if isinstance(obj, torch.Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    qualname = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None)
    if qualname is None:
        qualname = type(obj).__qualname__
        module = type(obj).__module__
    return qualname if module in ("", "builtins") else f"{module}.{qualname}"


def _get_scalar_dtype(is_fused: bool | None = None):
    """The dtype of ``state['step']``: float32, or float64 under a float64 default dtype
    (fused steps are always float32)."""
    if is_fused:
        return torch.float32
    return torch.float64 if torch.get_default_dtype() == torch.float64 else torch.float32


def _to_scalar(x):
    """A 1-element hyperparameter tensor becomes 0-dim; numbers stay numbers."""
    if isinstance(x, torch.Tensor) and x.dim() != 0:
        return x.squeeze()
    return x


def _value(x):
    """A number from a 0-dim tensor (``step.item()``), as torch's ``_get_value``; torch turns a
    tensor passed as ``alpha``/``value`` into a number the same way."""
    return x.item() if isinstance(x, torch.Tensor) else x


def _new_step(group: dict, p, *, fused_aware: bool = True, on_device: bool = False):
    """A fresh ``state['step']`` tensor, 0-dim, as torch makes it."""
    fused = group.get("fused") if fused_aware else None
    dtype = _get_scalar_dtype(is_fused=fused)
    if fused or group.get("capturable") or on_device:
        return torch.zeros((), dtype=dtype, device=p.device)
    return torch.tensor(0.0, dtype=dtype)


def _check_capturable(capturable: bool, param, *others, supports_xla: bool = True,
                      what: str = "params and state_steps") -> None:
    if not capturable:
        return
    devices = _capturable_devices(supports_xla)
    if not (all(param.device.type == t.device.type for t in others)
            and param.device.type in devices):
        raise AssertionError(f"If capturable=True, {what} must be on supported devices: "
                             f"{devices}.")


def _check_fused_device_dtype(p) -> None:
    if not (p.device.type in _FUSED_DEVICES and torch.is_floating_point(p)):
        raise RuntimeError(
            "`fused=True` requires all the params to be floating point Tensors of "
            f"supported devices: {_FUSED_DEVICES} but {p.dtype} and {p.device.type}")


def _check_fused_first_param(opt, group: dict, p) -> None:
    """torch checks the first param with a grad of a fused group once per optimizer
    (``_need_device_dtype_check_for_fused``)."""
    if group["fused"] and getattr(opt, "_need_device_dtype_check_for_fused", True):
        _check_fused_device_dtype(p)
        opt._need_device_dtype_check_for_fused = False


def _check_fused_flags(fused, foreach, differentiable) -> None:
    if fused:
        if differentiable:
            raise RuntimeError("`fused` does not support `differentiable`")
        if foreach:
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")


def _check_lr(lr) -> None:
    if isinstance(lr, torch.Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")


# The name torch's message gives a hyperparameter, where it is not the argument's own.
_HYPERPARAMETER_LABELS = {"eps": "epsilon"}


def _check_hyperparameters(**values) -> None:
    """Torch's constructor checks, in the order the keywords are given: ``lr`` as
    ``_check_lr``, each of ``betas`` in [0, 1), ``rho`` in [0, 1], any other >= 0.

    ``_check_hyperparameters(lr=lr, eps=-1.0)`` raises
    ``ValueError("Invalid epsilon value: -1.0")``."""
    for name, value in values.items():
        if name == "lr":
            _check_lr(value)
        elif name == "betas":
            for i in (0, 1):
                if not 0.0 <= value[i] < 1.0:
                    raise ValueError(f"Invalid beta parameter at index {i}: {value[i]}")
        elif name == "rho":
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"Invalid rho value: {value}")
        elif not 0.0 <= value:
            label = _HYPERPARAMETER_LABELS.get(name, name)
            raise ValueError(f"Invalid {label} value: {value}")


def _as_real(t):
    return torch.view_as_real(t) if torch.is_complex(t) else t


def _use_grad_for_differentiable(func: Callable) -> Callable:
    """Runs ``step`` with grad mode set to the optimizer's ``differentiable`` flag."""

    @functools.wraps(func)
    def _use_grad(self, *args, **kwargs):
        prev = torch.is_grad_enabled()
        try:
            torch.set_grad_enabled(self.defaults["differentiable"])
            return func(self, *args, **kwargs)
        finally:
            torch.set_grad_enabled(prev)

    return _use_grad


def _run_closure(closure):
    if closure is None:
        return None
    with torch.enable_grad():
        return closure()


def _zeros_state(*names: str) -> Callable:
    """The ``init_state`` of ``_init_group`` for an algorithm whose state is a 0-dim ``step``
    and zero buffers like the param: ``_zeros_state("exp_avg", "exp_inf")``."""

    def init_state(state: dict, group: dict, p) -> None:
        state["step"] = _new_step(group, p, fused_aware=False)
        for name in names:
            state[name] = torch.zeros_like(p, memory_format=torch.preserve_format)

    return init_state


def _init_group(opt: Optimizer, group: dict, name: str, init_state: Callable):
    """The group's params that have a grad, their grads and their states, as torch's
    ``_init_group``: a sparse grad raises, an empty state is filled by
    ``init_state(state, group, p)``."""
    params, grads, states = [], [], []
    for p in group["params"]:
        if p.grad is None:
            continue
        params.append(p)
        if p.grad.is_sparse:
            raise RuntimeError(f"{name} does not support sparse gradients")
        grads.append(p.grad)
        state = opt.state[p]
        if len(state) == 0:
            init_state(state, group, p)
        states.append(state)
    return params, grads, states


# Group keys that torch's ``step`` unpacks into two keywords of the functional update.
_PAIRED_HYPERPARAMETERS = {"betas": ("beta1", "beta2"), "etas": ("etaminus", "etaplus"),
                           "step_sizes": ("step_size_min", "step_size_max")}


def _group_hyperparameters(group: dict) -> dict:
    """A group's hyperparameters as the functional update's keywords: every key but
    ``params``, the pairs of ``_PAIRED_HYPERPARAMETERS`` split (the functionals take the
    keys they do not use in ``**_ignored``)."""
    kwargs = {}
    for key, value in group.items():
        if key == "params":
            continue
        if key in _PAIRED_HYPERPARAMETERS:
            first, second = _PAIRED_HYPERPARAMETERS[key]
            kwargs[first], kwargs[second] = value
        else:
            kwargs[key] = value
    return kwargs


def _single_tensor_step(opt: Optimizer, closure, name: str, init_state: Callable,
                        state_keys, update: Callable):
    """torch's ``step`` for an algorithm without a foreach/fused path: the closure under
    enable_grad, then per group ``update(params, grads, *state lists, **hyperparameters)``
    with one list per key of ``state_keys`` (a tuple, or a function of the group; a key of
    None passes an empty list). The update math stays in each algorithm's functional."""
    loss = _run_closure(closure)
    for group in opt.param_groups:
        params, grads, states = _init_group(opt, group, name, init_state)
        keys = state_keys(group) if callable(state_keys) else state_keys
        lists = [[] if key is None else [state[key] for state in states] for key in keys]
        update(params, grads, *lists, **_group_hyperparameters(group))
    return loss


class Optimizer:
    """Base class: holds ``param_groups`` (dicts with ``'params'`` and the options),
    ``defaults`` and ``state`` (a defaultdict keyed by the parameter tensor)."""

    def __init__(self, params, defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        self._optimizer_step_pre_hooks: OrderedDict[int, Callable] = OrderedDict()
        self._optimizer_step_post_hooks: OrderedDict[int, Callable] = OrderedDict()
        self._optimizer_state_dict_pre_hooks: OrderedDict[int, Callable] = OrderedDict()
        self._optimizer_state_dict_post_hooks: OrderedDict[int, Callable] = OrderedDict()
        self._optimizer_load_state_dict_pre_hooks: OrderedDict[int, Callable] = OrderedDict()
        self._optimizer_load_state_dict_post_hooks: OrderedDict[int, Callable] = OrderedDict()
        self._patch_step_function()

        if isinstance(params, torch.Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of "
                            "Tensors or dicts, but got " + _typename(params))
        self.state: defaultdict = defaultdict(dict)
        self.param_groups: list[dict[str, Any]] = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for group in param_groups:
            self.add_param_group(group)
        self._warned_capturable_if_run_uncaptured = True

    # -- pickling ------------------------------------------------------------------------------
    def __getstate__(self) -> dict[str, Any]:
        return {"defaults": self.defaults, "state": self.state,
                "param_groups": self.param_groups}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        for name in ("_optimizer_step_pre_hooks", "_optimizer_step_post_hooks",
                     "_optimizer_state_dict_pre_hooks", "_optimizer_state_dict_post_hooks",
                     "_optimizer_load_state_dict_pre_hooks",
                     "_optimizer_load_state_dict_post_hooks"):
            if name not in self.__dict__:
                setattr(self, name, OrderedDict())
        self._patch_step_function()
        self.defaults.setdefault("differentiable", False)

    def __repr__(self) -> str:
        text = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            text += f"\nParameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    text += f"    {key}: {group[key]}\n"
        return text + ")"

    # -- step and its hooks --------------------------------------------------------------------
    def _patch_step_function(self) -> None:
        # As torch: the concrete class's ``step`` is wrapped once so that the pre/post hooks
        # run around it whatever the subclass does.
        self._zero_grad_profile_name = f"Optimizer.zero_grad#{type(self).__name__}.zero_grad"
        cls = type(self)
        if not getattr(cls.step, "hooked", False):
            cls.step = _with_step_hooks(cls.step)
            cls.step.hooked = True

    def _optimizer_step_code(self) -> None:
        """An empty hook point after each step (profilers attach to it in torch)."""

    def _accelerator_graph_capture_health_check(self) -> None:
        """No accelerator graphs exist on CPU: nothing to check."""

    def register_step_pre_hook(self, hook: Callable) -> RemovableHandle:
        handle = RemovableHandle(self._optimizer_step_pre_hooks)
        self._optimizer_step_pre_hooks[handle.id] = hook
        return handle

    def register_step_post_hook(self, hook: Callable) -> RemovableHandle:
        handle = RemovableHandle(self._optimizer_step_post_hooks)
        self._optimizer_step_post_hooks[handle.id] = hook
        return handle

    def _register(self, hooks: OrderedDict, hook: Callable, prepend: bool) -> RemovableHandle:
        handle = RemovableHandle(hooks)
        hooks[handle.id] = hook
        if prepend:
            hooks.move_to_end(handle.id, last=False)
        return handle

    def register_state_dict_pre_hook(self, hook: Callable, prepend: bool = False):
        return self._register(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(self, hook: Callable, prepend: bool = False):
        return self._register(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(self, hook: Callable, prepend: bool = False):
        return self._register(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(self, hook: Callable, prepend: bool = False):
        return self._register(self._optimizer_load_state_dict_post_hooks, hook, prepend)

    def step(self, closure=None):
        """One optimization step (each algorithm defines it)."""
        raise NotImplementedError

    # -- state dicts ---------------------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        """``{'state': {param_index: {...}}, 'param_groups': [{..., 'params': [indices]}]}``;
        parameters are numbered in group order, each the first time it appears."""
        for hook in self._optimizer_state_dict_pre_hooks.values():
            hook(self)
        index_of: dict[int, int] = {}
        packed_groups = []
        start = 0
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            for i, p in enumerate(group["params"], start):
                index_of.setdefault(id(p), i)
            packed["params"] = [index_of[id(p)] for p in group["params"]]
            start += len(packed["params"])
            packed_groups.append(packed)
        packed_state = {(index_of[id(k)] if isinstance(k, torch.Tensor) else k): v
                        for k, v in self.state.items()}
        state_dict = {"state": packed_state, "param_groups": packed_groups}
        for hook in self._optimizer_state_dict_post_hooks.values():
            result = hook(self, state_dict)
            if result is not None:
                state_dict = result
        return state_dict

    @staticmethod
    def _process_value_according_to_param_policy(param, value, param_id, param_groups,
                                                 key=None):
        # A loaded state tensor follows its parameter's dtype and device, except ``step``,
        # which stays as saved (float32 under fused / capturable).
        fused = capturable = False
        for pg in param_groups:
            if param_id in pg["params"]:
                fused = pg.get("fused", False)
                capturable = pg.get("capturable", False)
                break
        if key == "step":
            if capturable or fused:
                return value.to(dtype=torch.float32, device=param.device)
            return value
        if param.is_floating_point():
            return value.to(dtype=param.dtype, device=param.device)
        return value.to(device=param.device)

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Loads a dict made by ``state_dict()`` (here or by torch): the saved groups are
        matched to this optimizer's groups by position, their parameters by order."""
        state_dict = state_dict.copy()
        for hook in self._optimizer_load_state_dict_pre_hooks.values():
            result = hook(self, state_dict)
            if result is not None:
                state_dict = result
        groups = self.param_groups
        saved_groups = deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't "
                             "match the size of optimizer's group")
        id_map = dict(zip(chain.from_iterable(g["params"] for g in saved_groups),
                          chain.from_iterable(g["params"] for g in groups)))

        def cast(param, value, param_id=None, key=None):
            if isinstance(value, torch.Tensor):
                return Optimizer._process_value_according_to_param_policy(
                    param, value, param_id, state_dict["param_groups"], key)
            if isinstance(value, dict):
                return {k: cast(param, v, param_id, key=k) for k, v in value.items()}
            if isinstance(value, Iterable) and not isinstance(value, (str, bytes)):
                return type(value)(cast(param, v, param_id) for v in value)
            return value

        state: defaultdict = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                param = id_map[k]
                state[param] = cast(param, v, param_id=k)
            else:
                state[k] = v

        def update_group(group, new_group):
            new_group["params"] = group["params"]
            if "param_names" in group and "param_names" not in new_group:
                new_group["param_names"] = group["param_names"]
            return new_group

        param_groups = [update_group(g, ng) for g, ng in zip(groups, saved_groups)]
        self.__setstate__({"state": state, "param_groups": param_groups})
        for hook in self._optimizer_load_state_dict_post_hooks.values():
            hook(self)

    # -- gradients and groups ------------------------------------------------------------------
    def zero_grad(self, set_to_none: bool = True) -> None:
        """Drops every gradient (``set_to_none``) or zeroes it in place, detached."""
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                else:
                    if p.grad.grad_fn is not None:
                        p.grad.detach_()
                    else:
                        p.grad.requires_grad_(False)
                    p.grad.zero_()

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Adds a group; options it leaves out take the optimizer's defaults."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, torch.Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, "
                            "but the ordering of tensors in sets will change between runs. "
                            "Please use a list instead.")
        else:
            param_group["params"] = list(params)

        tensors, names = [], []
        for param in param_group["params"]:
            if isinstance(param, tuple):
                names.append(param[0])
                tensors.append(param[1])
            else:
                tensors.append(param)
        param_group["params"] = tensors
        if names:
            if len(names) != len(tensors):
                raise ValueError("all optimizer params should be with/without names. "
                                 "Some param names are missing")
            param_group["param_names"] = names

        for param in tensors:
            if not isinstance(param, torch.Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is "
                                + _typename(param))
            if not self.defaults.get("differentiable", None) and not (
                    param.is_leaf or param.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")

        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError("parameter group didn't specify a value of required "
                                 f"optimization parameter {name}")
            param_group.setdefault(name, default)

        if len(tensors) != len(set(tensors)):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; "
                          "in future, this will cause an error; see "
                          "github.com/pytorch/pytorch/issues/40967 for more information",
                          stacklevel=3)
        seen: set = set()
        for group in self.param_groups:
            seen.update(group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                which = "with names" if "param_names" in param_group else "without names"
                raise ValueError("all optimizer param groups should be with/without names. "
                                 f"cannot add param group {which} to the optimizer")
        if not seen.isdisjoint(tensors):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)


def _with_step_hooks(step: Callable) -> Callable:
    @functools.wraps(step)
    def wrapper(*args, **kwargs):
        self = args[0]
        for hook in chain(_global_optimizer_pre_hooks.values(),
                          self._optimizer_step_pre_hooks.values()):
            result = hook(self, args, kwargs)
            if result is not None:
                if isinstance(result, tuple) and len(result) == 2:
                    args, kwargs = result
                else:
                    raise RuntimeError(f"{step} must return None or a tuple of "
                                       f"(new_args, new_kwargs), but got {result}.")
        out = step(*args, **kwargs)
        self._optimizer_step_code()
        for hook in chain(self._optimizer_step_post_hooks.values(),
                          _global_optimizer_post_hooks.values()):
            hook(self, args, kwargs)
        return out

    return wrapper


def _setdefault_groups(opt: Optimizer, **defaults) -> None:
    """Fills in, in the order given, the group keys that a pickled optimizer from an older
    torch lacks (each algorithm's ``__setstate__``)."""
    for group in opt.param_groups:
        for name, default in defaults.items():
            group.setdefault(name, default)


def _restore_step_tensors(opt: Optimizer, fused_aware: bool = False) -> None:
    """Old state dicts kept ``step`` as a number; torch turns it back into a tensor."""
    for group in opt.param_groups:
        fused = group.get("fused") if fused_aware else None
        for p in group["params"]:
            p_state = opt.state.get(p, [])
            if len(p_state) != 0 and not torch.is_tensor(p_state["step"]):
                value = float(p_state["step"])
                if group.get("capturable") or fused:
                    p_state["step"] = torch.tensor(value, dtype=_get_scalar_dtype(fused),
                                                   device=p.device)
                else:
                    p_state["step"] = torch.tensor(value, dtype=_get_scalar_dtype())
