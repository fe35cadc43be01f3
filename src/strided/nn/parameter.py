"""torch.nn.parameter: Parameter, Buffer, UninitializedParameter, UninitializedBuffer.

A ``Parameter`` is a ``Tensor`` subclass that a ``Module`` registers when it is assigned as
an attribute. It is an alias of the data it was made from (same storage, same version
counter, no autograd history) and requires grad unless told otherwise. Ops on a Parameter
give plain ``Tensor``s: kernels always make the base class.

``Buffer(t)`` is not a real subclass instance (as in torch): it gives back a detached
``Tensor`` marked ``_is_buffer`` (and ``persistent``), which ``isinstance(x, Buffer)``
recognises through the metaclass.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from ..core.layouts import preserve_format as _preserve_format
from ..frontend.tensor import Tensor
from ..ops._generated import torch_functions as _fns

__all__ = ["Parameter", "UninitializedParameter", "is_lazy", "Buffer", "UninitializedBuffer",
           "UninitializedTensorMixin"]


class _ParameterMeta(type):
    def __instancecheck__(cls, instance) -> bool:
        if cls is Parameter and isinstance(instance, Tensor) \
                and getattr(instance, "_is_param", False):
            return True
        return super().__instancecheck__(instance)


class Parameter(Tensor, metaclass=_ParameterMeta):
    """``Parameter(data=None, requires_grad=True)``: a tensor that is a module parameter."""

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = _fns.empty(0)
        if type(data) is Tensor or type(data) is Parameter:
            return Tensor._make_subclass(cls, data, requires_grad)
        t = data.detach().requires_grad_(requires_grad)
        if type(t) is not type(data):
            raise RuntimeError(
                f"Creating a Parameter from an instance of type {type(data).__name__} "
                "requires that detach() returns an instance of the same type, but return "
                f"type {type(t).__name__} was found instead. To use the type as a "
                "Parameter, please correct the detach() semantics defined by "
                "its __torch_dispatch__() implementation.")
        t._is_param = True
        return t

    def __init__(self, *args, **kwargs):
        pass

    def __deepcopy__(self, memo):
        key = id(self)
        if key in memo:
            return memo[key]
        out = type(self)(self.data.clone(memory_format=_preserve_format), self.requires_grad)
        memo[key] = out
        return out

    def __repr__(self) -> str:
        return "Parameter containing:\n" + Tensor.__repr__(self)

    __str__ = __repr__

    def __reduce_ex__(self, proto):
        state = _obj_state(self)
        if not state:
            return _rebuild_parameter, (self.data, self.requires_grad, OrderedDict())
        return (_rebuild_parameter_with_state,
                (self.data, self.requires_grad, OrderedDict(), state))


def _obj_state(obj) -> dict:
    """Attributes a user put on a tensor subclass instance (its ``__dict__``)."""
    try:
        return dict(object.__getattribute__(obj, "__dict__"))
    except AttributeError:
        return {}


def _rebuild_parameter(data, requires_grad, backward_hooks):
    """Unpickles a ``Parameter`` (torch writes ``torch._utils._rebuild_parameter``)."""
    return Parameter(data, requires_grad)


def _rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    param = Parameter(data, requires_grad)
    for k, v in state.items():
        setattr(param, k, v)
    return param


# the public Tensor methods an uninitialised parameter or buffer still answers (torch's list)
_UNINIT_ALLOWED = frozenset({
    "size", "copy_", "is_complex", "is_floating_point", "half", "float", "double", "char",
    "short", "int", "long", "cuda", "cpu", "to", "get_device", "materialize", "share_memory_",
    "detach", "requires_grad_", "register_hook", "type", "dim", "data_ptr", "bfloat16",
})


class UninitializedTensorMixin:
    """Shared by ``UninitializedParameter`` and ``UninitializedBuffer``: a placeholder with no
    shape yet; ``materialize(shape)`` gives it memory and turns it into ``cls_to_become``."""

    def materialize(self, shape, device=None, dtype=None) -> None:
        """Gives the placeholder memory of ``shape`` (on its device and in its dtype unless
        told otherwise); it becomes a ``Parameter`` (``Tensor`` for a buffer)."""
        if device is None:
            device = self.data.device
        if dtype is None:
            dtype = self.data.dtype
        self.data = _fns.empty(shape, device=device, dtype=dtype)
        self._device = self.data.device
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError(
            "Can't access the shape of an uninitialized parameter or buffer. "
            "This error usually happens in `load_state_dict` when trying to load "
            "an uninitialized parameter into an initialized one. "
            "Call `forward` to initialize the parameters before accessing their attributes.")

    def share_memory_(self):
        raise RuntimeError(
            "Can't share memory on an uninitialized parameter or buffer. "
            "Call `forward` to initialize the parameters before calling "
            "`module.share_memory()`.")

    def __repr__(self) -> str:
        return f"<{self.__class__.__name__}>"

    __str__ = __repr__

    def __reduce_ex__(self, proto):
        return self.__class__, (self.requires_grad,)

    def __getattribute__(self, name):
        # torch refuses every tensor method outside a short list (through
        # __torch_function__); here the refusal comes when the method is looked up
        if name[0] != "_" and name not in _UNINIT_ALLOWED and name in _TENSOR_METHODS:
            cls_name = type(self).__name__

            def refuse(*args, **kwargs):
                raise ValueError(
                    f"Attempted to use an uninitialized parameter in <method '{name}' of "
                    f"'torch._C.TensorBase' objects>. This error happens when you are using a "
                    f"`LazyModule` or explicitly manipulating "
                    f"`torch.nn.parameter.{cls_name}` objects. When using LazyModules Call "
                    f"`forward` with a dummy batch to initialize the parameters before "
                    f"calling torch functions")
            return refuse
        return object.__getattribute__(self, name)


def is_lazy(param: Any) -> bool:
    """Whether ``param`` is an ``UninitializedParameter`` or ``UninitializedBuffer``."""
    return isinstance(param, UninitializedTensorMixin)


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A parameter whose shape is not known yet (lazy modules)."""

    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        data = _fns.empty(0, device=device, dtype=dtype)
        return Tensor._make_subclass(cls, data, requires_grad)

    def __deepcopy__(self, memo):
        key = id(self)
        if key in memo:
            return memo[key]
        out = type(self)(self.requires_grad, self.data.device, self.data.dtype)
        memo[key] = out
        return out


class _BufferMeta(type):
    def __instancecheck__(cls, instance) -> bool:
        if cls is Buffer and isinstance(instance, Tensor) \
                and getattr(instance, "_is_buffer", False):
            return True
        return super().__instancecheck__(instance)


class Buffer(Tensor, metaclass=_BufferMeta):
    """``Buffer(data=None, *, persistent=True)``: marks a tensor as module state that is not
    a parameter (assigning it to a module attribute registers a buffer)."""

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            data = _fns.empty(0)
        t = data.detach().requires_grad_(data.requires_grad)
        t.persistent = persistent
        t._is_buffer = True
        return t


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A buffer whose shape is not known yet (lazy modules)."""

    cls_to_become = Tensor

    def __new__(cls, requires_grad=False, device=None, dtype=None, persistent=True):
        data = _fns.empty(0, device=device, dtype=dtype)
        out = Tensor._make_subclass(cls, data, requires_grad)
        out.persistent = persistent
        out._is_buffer = True
        return out

    def __init__(self, *args, **kwargs):
        pass

    def __deepcopy__(self, memo):
        key = id(self)
        if key in memo:
            return memo[key]
        out = type(self)(self.requires_grad, self.data.device, self.data.dtype,
                         getattr(self, "persistent", True))
        memo[key] = out
        return out


_TENSOR_METHODS = frozenset(n for n in dir(Tensor)
                            if not n.startswith("_") and callable(getattr(Tensor, n, None)))
