"""torch.nn.utils.parametrize: tensors of a module computed from other tensors.

Note [How a parametrization is attached]
``register_parametrization(module, "weight", P)`` moves the parameter (or buffer)
``weight`` into ``module.parametrizations.weight.original`` (a ``ParametrizationList``,
a ``ModuleList`` holding P) and swaps the module's class for a one-off subclass
``Parametrized<Class>`` carrying a property ``weight`` whose getter evaluates
``P(original)`` (cached inside ``cached()``) and whose setter runs the right inverses.
The swap is per module, so other instances of the class are untouched, and it is undone
by ``remove_parametrizations`` when the last parametrization goes. When the right
inverse returns one tensor, ``original`` keeps the identity of the old parameter
(its data is ``set_`` in place), so optimizers holding it need no update; when it
returns a sequence, the tensors are registered as ``original0``, ``original1``, ...
"""

from __future__ import annotations

import collections.abc
import copyreg
from contextlib import contextmanager
from copy import deepcopy

import strided as _st

from ...frontend.tensor import Tensor
from ..modules.container import Module, ModuleDict, ModuleList
from ..parameter import Parameter

__all__ = [
    "cached",
    "ParametrizationList",
    "register_parametrization",
    "is_parametrized",
    "remove_parametrizations",
    "type_before_parametrizations",
    "transfer_parametrizations_and_params",
]

_cache_enabled = 0
_cache: dict = {}


@contextmanager
def cached():
    """Inside this context every parametrized tensor is computed once (on first access)
    and reused; the cache is dropped when the outermost context exits."""
    global _cache, _cache_enabled
    _cache_enabled += 1
    try:
        yield
    finally:
        _cache_enabled -= 1
        if not _cache_enabled:
            _cache = {}


def _register_parameter_or_buffer(module, name, X) -> None:
    if isinstance(X, Parameter):
        module.register_parameter(name, X)
    else:
        module.register_buffer(name, X)


def _maybe_set(dest: Tensor, src: Tensor) -> None:
    # torch swaps tensors only under set_swap_module_params_on_conversion(True) or for
    # wrapper subclasses; neither exists here, so the data moves in with set_
    dest.set_(src)


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor, applied in order, with its original tensor(s)
    as ``original`` (one) or ``original0``, ``original1``... (a right inverse returning
    a sequence)."""

    def __init__(self, modules, original, unsafe: bool = False) -> None:
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe

        original_shape = original.shape
        original_dtype = original.dtype

        # what the originals will hold: the right inverses applied last to first
        with _st.no_grad():
            new = original
            for module in reversed(self):
                if hasattr(module, "right_inverse"):
                    try:
                        new = module.right_inverse(new)
                    except NotImplementedError:
                        pass

        if not isinstance(new, Tensor) and not isinstance(new, collections.abc.Sequence):
            raise ValueError(
                "'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "
                f"Got {type(new).__name__}"
            )

        self.is_tensor = isinstance(new, Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)

        if self.is_tensor:
            if original.dtype != new.dtype:
                raise ValueError(
                    "When `right_inverse` outputs one tensor, it may not change the dtype.\n"
                    f"original.dtype: {original.dtype}\n"
                    f"right_inverse(original).dtype: {new.dtype}"
                )
            if original.device != new.device:
                raise ValueError(
                    "When `right_inverse` outputs one tensor, it may not change the device.\n"
                    f"original.device: {original.device}\n"
                    f"right_inverse(original).device: {new.device}"
                )
            # keep the parameter object (optimizers hold it): move the data into it
            with _st.no_grad():
                _maybe_set(original, new)
            _register_parameter_or_buffer(self, "original", original)
        else:
            for i, originali in enumerate(new):
                if not isinstance(originali, Tensor):
                    raise ValueError(
                        "'right_inverse' must return a Tensor or a Sequence of tensors "
                        "(list, tuple...). "
                        f"Got element {i} of the sequence with type {type(originali).__name__}."
                    )
                if isinstance(original, Parameter):
                    originali = Parameter(originali, original.requires_grad)
                originali.requires_grad_(original.requires_grad)
                _register_parameter_or_buffer(self, f"original{i}", originali)

        if not self.unsafe:
            # forward(right_inverse(original)) must look like original
            Z = self()
            if not isinstance(Z, Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got {type(Z).__name__}.")
            if Z.dtype != original_dtype:
                raise ValueError(
                    "Registering a parametrization may not change the dtype of the tensor, "
                    "unless `unsafe` flag is enabled.\n"
                    f"unparametrized dtype: {original_dtype}\n"
                    f"parametrized dtype: {Z.dtype}"
                )
            if Z.shape != original_shape:
                raise ValueError(
                    "Registering a parametrization may not change the shape of the tensor, "
                    "unless `unsafe` flag is enabled.\n"
                    f"unparametrized shape: {original_shape}\n"
                    f"parametrized shape: {Z.shape}"
                )

    def right_inverse(self, value: Tensor) -> None:
        """Set the original tensor(s) so that the parametrized tensor becomes ``value``
        (each parametrization's ``right_inverse``, last to first)."""
        with _st.no_grad():
            for module in reversed(self):
                if hasattr(module, "right_inverse"):
                    value = module.right_inverse(value)
                else:
                    raise RuntimeError(
                        f"parametrization {type(module).__name__} does not implement "
                        "right_inverse."
                    )
            if self.is_tensor:
                if not isinstance(value, Tensor):
                    raise ValueError(
                        f"`right_inverse` should return a tensor. Got {type(value).__name__}"
                    )
                if value.dtype != self.original.dtype:
                    raise ValueError(
                        f"The tensor returned by `right_inverse` has dtype {value.dtype} "
                        f"while `original` has dtype {self.original.dtype}"
                    )
                _maybe_set(self.original, value)
            else:
                if not isinstance(value, collections.abc.Sequence):
                    raise ValueError(
                        "'right_inverse' must return a sequence of tensors. "
                        f"Got {type(value).__name__}."
                    )
                if len(value) != self.ntensors:
                    raise ValueError(
                        "'right_inverse' must return a sequence of tensors of length "
                        f"{self.ntensors}. Got a sequence of length {len(value)}."
                    )
                for i, tensor in enumerate(value):
                    original_i = getattr(self, f"original{i}")
                    if not isinstance(tensor, Tensor):
                        raise ValueError(
                            "'right_inverse' must return a sequence of tensors "
                            "or reference-type opaques. Got element "
                            f"{i} of type {type(tensor).__name__}."
                        )
                    if original_i.dtype != tensor.dtype:
                        raise ValueError(
                            f"Tensor {i} returned by `right_inverse` has dtype {tensor.dtype} "
                            f"while `original{i}` has dtype {original_i.dtype}"
                        )
                    _maybe_set(original_i, tensor)

    def forward(self):
        if self.is_tensor:
            x = self[0](self.original)
        else:
            x = self[0](*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        # the following parametrizations take one tensor each; only integer keys count
        i = 1
        while hasattr(self, str(i)):
            x = self[i](x)
            i += 1
        return x


def _default_deepcopy(self, memo):
    # the usual deepcopy of an object (dict and slots), for classes without __deepcopy__
    obj = memo.get(id(self), None)
    if obj is not None:
        return obj
    replica = self.__new__(self.__class__)
    memo[id(self)] = replica
    replica.__dict__ = deepcopy(self.__dict__, memo)
    for slot in copyreg._slotnames(self.__class__):
        if hasattr(self, slot):
            setattr(replica, slot, deepcopy(getattr(self, slot), memo))
    return replica


def _refuse_getstate(self):
    raise RuntimeError(
        "Serialization of parametrized modules is only "
        "supported through state_dict(). See:\n"
        "https://pytorch.org/tutorials/beginner/saving_loading_models.html"
        "#saving-loading-a-general-checkpoint-for-inference-and-or-resuming-training"
    )


def _inject_new_class(module: Module) -> None:
    """Give ``module`` its own subclass ``Parametrized<Class>`` (Note [How a
    parametrization is attached]); pickling it is refused, deepcopy still works."""
    cls = module.__class__
    namespace = {"__getstate__": _refuse_getstate}
    if not hasattr(cls, "__deepcopy__"):
        namespace["__deepcopy__"] = _default_deepcopy
    module.__class__ = type(f"Parametrized{cls.__name__}", (cls,), namespace)


def _inject_property(module: Module, tensor_name: str) -> None:
    if hasattr(module, tensor_name):
        raise AssertionError(f"Module already has an attribute named '{tensor_name}'")

    def get_parametrized(self) -> Tensor:
        parametrization = self.parametrizations[tensor_name]
        if not _cache_enabled:
            return parametrization()
        key = (id(module), tensor_name)
        tensor = _cache.get(key)
        if tensor is None:
            tensor = parametrization()
            _cache[key] = tensor
        return tensor

    def set_original(self, value: Tensor) -> None:
        self.parametrizations[tensor_name].right_inverse(value)

    setattr(module.__class__, tensor_name, property(get_parametrized, set_original))


def _check_same_space(X, Y, tensor_name):
    if not isinstance(X, Tensor):
        raise ValueError(f"A parametrization must return a tensor. Got {type(X).__name__}.")
    if X.dtype != Y.dtype:
        raise ValueError(
            "Registering a parametrization may not change the dtype of the tensor, unless the "
            "`unsafe` flag is enabled.\n"
            f"module.{tensor_name}.dtype: {Y.dtype}\n"
            f"parametrization(module.{tensor_name}).dtype: {X.dtype}"
        )
    if X.shape != Y.shape:
        raise ValueError(
            "Registering a parametrization may not change the shape of the tensor, unless the "
            "`unsafe` flag is enabled.\n"
            f"module.{tensor_name}.shape: {Y.shape}\n"
            f"parametrization(module.{tensor_name}).shape: {X.shape}"
        )


def _check_right_inverse(parametrization, X, Y, tensor_name):
    if not hasattr(parametrization, "right_inverse"):
        return
    try:
        Z = parametrization.right_inverse(X)
    except NotImplementedError:
        return
    if not isinstance(Z, Tensor):
        raise ValueError(
            f"parametrization.right_inverse must return a tensor. Got: {type(Z).__name__}"
        )
    if Z.dtype != Y.dtype:
        raise ValueError(
            "The tensor returned by parametrization.right_inverse must have the same dtype "
            f"as module.{tensor_name}, unless the `unsafe` flag is enabled.\n"
            f"module.{tensor_name}.dtype: {Y.dtype}\n"
            f"returned dtype: {Z.dtype}"
        )
    if Z.shape != Y.shape:
        raise ValueError(
            "The tensor returned by parametrization.right_inverse must have the same shape "
            f"as module.{tensor_name}, unless the `unsafe` flag is enabled.\n"
            f"module.{tensor_name}.shape: {Y.shape}\n"
            f"returned shape: {Z.shape}"
        )


def register_parametrization(module: Module, tensor_name: str, parametrization: Module, *,
                             unsafe: bool = False) -> Module:
    """Make ``module.<tensor_name>`` the output of ``parametrization`` applied to the
    original tensor (Note [How a parametrization is attached]). A second registration
    on the same name appends to its ``ParametrizationList``.

    >>> import strided as torch
    >>> class Symmetric(torch.nn.Module):
    ...     def forward(self, X):
    ...         return X.triu() + X.triu(1).mT
    >>> m = torch.nn.Linear(3, 3)
    >>> _ = torch.nn.utils.parametrize.register_parametrization(m, "weight", Symmetric())
    >>> type(m).__name__, torch.equal(m.weight, m.weight.T)
    ('ParametrizedLinear', True)
    """
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            Y = getattr(module, tensor_name)
            X = parametrization(Y)
            _check_same_space(X, Y, tensor_name)
            _check_right_inverse(parametrization, X, Y, tensor_name)
        plist = module.parametrizations[tensor_name]
        plist.append(parametrization)
        # once unsafe, always unsafe
        plist.unsafe |= unsafe
    elif tensor_name in module._buffers or tensor_name in module._parameters:
        original = getattr(module, tensor_name)
        # built first: it raises before the module is touched
        plist = ParametrizationList([parametrization], original, unsafe=unsafe)
        delattr(module, tensor_name)
        if not is_parametrized(module):
            _inject_new_class(module)
            module.parametrizations = ModuleDict()
        _inject_property(module, tensor_name)
        module.parametrizations[tensor_name] = plist
    else:
        raise ValueError(
            f"Module '{module}' does not have a parameter, a buffer, or a "
            f"parametrized element with name '{tensor_name}'"
        )
    return module


def is_parametrized(module: Module, tensor_name: str | None = None) -> bool:
    """Whether ``module`` has any parametrization (or one on ``tensor_name``)."""
    parametrizations = getattr(module, "parametrizations", None)
    if parametrizations is None or not isinstance(parametrizations, ModuleDict):
        return False
    if tensor_name is None:
        return len(parametrizations) > 0
    return tensor_name in parametrizations


def remove_parametrizations(module: Module, tensor_name: str,
                            leave_parametrized: bool = True) -> Module:
    """Undo the parametrizations on ``tensor_name``: the tensor becomes a plain parameter
    (or buffer) again, holding its current parametrized value (``leave_parametrized``)
    or the original; the class swap is undone when nothing else is parametrized."""
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    plist = module.parametrizations[tensor_name]
    if plist.is_tensor:
        original = plist.original
        if leave_parametrized:
            with _st.no_grad():
                t = getattr(module, tensor_name)
                # same dtype (checked at registration): set_ keeps the object's identity
                _maybe_set(original, t)
    else:
        if not leave_parametrized:
            raise ValueError(
                "Cannot leave unparametrized (`leave_parametrized=False`) a tensor "
                "that is parametrized in terms of a sequence of tensors."
            )
        # not under no_grad: whether any original requires grad decides the kind
        t = getattr(module, tensor_name)
        original = Parameter(t) if t.requires_grad else t

    delattr(module.__class__, tensor_name)
    del module.parametrizations[tensor_name]
    _register_parameter_or_buffer(module, tensor_name, original)

    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = module.__class__.__bases__[0]
    return module


def type_before_parametrizations(module: Module) -> type:
    """The class of ``module`` before any parametrization swapped it."""
    if is_parametrized(module):
        return module.__class__.__bases__[0]
    return type(module)


def transfer_parametrizations_and_params(from_module: Module, to_module: Module,
                                         tensor_name: str | None = None) -> Module:
    """Register ``from_module``'s parametrizations (all, or those of ``tensor_name``) on
    ``to_module`` and share their original tensors."""
    if not is_parametrized(from_module):
        return to_module
    names = list(from_module.parametrizations) if tensor_name is None else [tensor_name]
    for name in names:
        if not hasattr(to_module, name):
            setattr(to_module, name, Parameter(getattr(from_module, name)))
        for param_func in from_module.parametrizations[name]:
            register_parametrization(to_module, name, param_func)
        src = from_module.parametrizations[name]
        dst = to_module.parametrizations[name]
        if hasattr(src, "original"):
            dst.original = src.original
        else:
            i = 0
            while hasattr(src, f"original{i}"):
                setattr(dst, f"original{i}", getattr(src, f"original{i}"))
                i += 1
    return to_module
