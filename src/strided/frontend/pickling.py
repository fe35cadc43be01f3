"""``pickle``, ``copy.copy`` and ``copy.deepcopy`` of tensors, as torch does them.

Note [Pickling a tensor]
~~~~~~~~~~~~~~~~~~~~~~~~
``Tensor.__reduce_ex__`` gives ``(rebuild, args)`` in torch's shape: the storage, the
storage offset, sizes, strides, ``requires_grad`` and an empty hooks dict, rebuilt by
``serialization._rebuild_tensor_v2`` (a meta tensor: dtype, sizes, strides and
``requires_grad`` only). What it leaves out is what torch leaves out: the autograd
history (a non-leaf comes back as a leaf that requires grad), ``.grad``, hooks (with
torch's warning for each hook not marked ``unserializable_hook``) and the version
counter. A tensor with attributes of its own, or of a subclass, is wrapped in
``_rebuild_from_type_v2`` with its ``__dict__`` as state.

The storage travels inside a ``TypedStorage`` made afresh for each tensor, as torch
makes one: pickled, each carries its own copy of the bytes, so a base and its view
pickled together come back as two tensors on two storages (torch's behaviour), while
``copy.copy`` (which calls ``__reduce_ex__`` without pickling) hands the same storage to
the rebuilt tensor, so the copy shares memory with the original, as in torch.

``Tensor.__deepcopy__`` is torch's: only leaves may be deep-copied; the storage is
deep-copied through the memo, so tensors that shared a storage in one ``deepcopy`` call
share the new one (``deepcopy([base, view])`` keeps the view's memory tied to the base,
though not as a view: ``_base`` is not kept, as in torch); ``requires_grad``, a deep copy
of ``.grad`` and the ``__dict__`` follow.
"""

from __future__ import annotations

import copy
import copyreg
import warnings
from collections import OrderedDict

from ..core.storage import UntypedStorage

__all__ = ["TypedStorage", "reduce_tensor", "deepcopy_tensor"]


class TypedStorage:
    """An untyped storage with the dtype a tensor reads it as: what a pickled tensor
    carries (the role of torch's ``TypedStorage`` in its pickles). ``serialization``'s
    rebuild functions read ``_untyped_storage`` and ``dtype``."""

    __slots__ = ("_untyped_storage", "dtype")

    def __init__(self, storage: UntypedStorage, dtype):
        self._untyped_storage = storage
        self.dtype = dtype

    def __reduce__(self):
        storage = self._untyped_storage
        nbytes = storage._nbytes
        data = None if storage._buf is None else storage._buf[:nbytes].tobytes()
        return _load_typed_storage, (data, nbytes, str(storage.device), self.dtype)


def _load_typed_storage(data, nbytes, device, dtype) -> TypedStorage:
    from ..core.storage import _rebuild_storage
    return TypedStorage(_rebuild_storage(data, nbytes, device), dtype)


def _obj_state(t):
    """A tensor's own attributes (its ``__dict__``), or None (a sparse tensor's members
    are not attributes: Note [Sparse tensors] in core/sparse_tensor.py)."""
    try:
        state = object.__getattribute__(t, "__dict__")
    except AttributeError:
        return None
    if "_sparse" in state:
        state = {k: v for k, v in state.items() if k != "_sparse"}
    return state if state else None


def _hooks(t) -> list:
    """The backward hooks registered on ``t`` (``register_hook``)."""
    meta = t._autograd_meta
    if meta is None:
        return []
    if meta.grad_fn is None:
        return list(meta.hooks or ())
    pre = getattr(meta.grad_fn, "_tensor_pre_hooks", None)
    return list(pre.get(meta.output_nr, ())) if pre else []


def _warn_if_has_hooks(t) -> None:
    for hook in _hooks(t):
        if not hasattr(hook, "__torch_unserializable__"):
            warnings.warn(
                f"backward hook {hook!r} on tensor will not be serialized.  If this is "
                "expected, you can decorate the function with "
                "@torch.utils.hooks.unserializable_hook to suppress this warning",
                stacklevel=4)


def _reduce_internal(t):
    from .. import serialization
    _warn_if_has_hooks(t)
    requires_grad = t.requires_grad
    if "_sparse" in t.__dict__:
        return serialization._rebuild_sparse_tensor, serialization.sparse_reduce_args(t)
    if t._device.type == "meta":
        return serialization._rebuild_meta_tensor_no_storage, (
            t._dtype, tuple(t._sizes), tuple(t._strides), requires_grad)
    args = (TypedStorage(t._storage, t._dtype), t._offset, tuple(t._sizes), tuple(t._strides),
            requires_grad, OrderedDict())
    metadata = serialization.tensor_metadata(t)     # the conjugate / negative bits
    if metadata:
        args += (metadata,)
    return serialization._rebuild_tensor_v2, args


def reduce_tensor(t, proto):
    """``Tensor.__reduce_ex__`` (Note [Pickling a tensor])."""
    from .tensor import Tensor
    state = _obj_state(t)
    if type(t) is Tensor and not state:
        return _reduce_internal(t)
    from .. import serialization
    func, args = _reduce_internal(t)
    return serialization._rebuild_from_type_v2, (func, type(t), args, state)


_NOT_LEAF = ("Only Tensors created explicitly by the user (graph leaves) support the deepcopy "
             "protocol at the moment.  If you were attempting to deepcopy a module, this may be "
             "because of a torch.nn.utils.weight_norm usage, see "
             "https://github.com/pytorch/pytorch/pull/103001")
_WRAPPER_SUBCLASS = (
    "The default implementation of __deepcopy__() for wrapper subclasses only works for "
    "subclass types that implement clone() and for which cloning returns another instance of "
    "the same subclass. You should either properly implement clone() for your subclass or "
    "override __deepcopy__() if it is intended behavior for clone() to return an instance of "
    "a different type.")
_NON_WRAPPER_SUBCLASS = (
    "The default implementation of __deepcopy__() for non-wrapper subclasses only works for "
    "subclass types that implement new_empty() and for which that function returns another "
    "instance of the same subclass. You should either properly implement new_empty() for "
    "your subclass or override __deepcopy__() if it is intended behavior for new_empty() to "
    "return an instance of a different type.")

_base_slots: frozenset | None = None


def _subclass_slots(cls) -> list:
    """The ``__slots__`` a Tensor subclass declares itself (torch's Tensor has none; ours
    are the metadata, which the deep copy rebuilds rather than copies)."""
    global _base_slots
    from .tensor import Tensor
    if _base_slots is None:
        _base_slots = frozenset(copyreg._slotnames(Tensor)) | {"__dict__", "__weakref__"}
    return [name for name in copyreg._slotnames(cls) if name not in _base_slots]


def deepcopy_tensor(t, memo):
    """``Tensor.__deepcopy__`` (Note [Pickling a tensor])."""
    from ..autograd.grad_mode import no_grad
    from .tensor import Tensor
    if not t.is_leaf:
        raise RuntimeError(_NOT_LEAF)
    key = id(t)
    if key in memo:
        return memo[key]
    with no_grad():
        if t._device.type == "meta" or "_sparse" in t.__dict__ or (
                type(t) is not Tensor and t.data_ptr() == 0):
            new = t.clone()
            if type(new) is not type(t):
                raise RuntimeError(_WRAPPER_SUBCLASS)
        else:
            storage = copy.deepcopy(t._storage, memo)
            new = t.new_empty([])
            if type(new) is not type(t):
                raise RuntimeError(_NON_WRAPPER_SUBCLASS)
            new.set_(storage, t._offset, t._sizes, t._strides)
            if t.is_conj():       # torch resolves the bits of a deep copy this way
                new = new.conj_physical()
            if t.is_neg():
                new = new.neg()
        if t.requires_grad:
            new.requires_grad_()
        grad = t.grad
        if grad is not None:
            new.grad = grad.__deepcopy__(memo)
        if type(t) is not Tensor:
            for name in _subclass_slots(type(t)):
                if hasattr(t, name):
                    setattr(new, name, copy.deepcopy(getattr(t, name), memo))
        state = _obj_state(t)
        if state:
            new.__dict__.update(copy.deepcopy(state, memo))
        memo[key] = new
        return new
