"""torch's legacy type API, kept for old programs: the per-dtype tensor classes
(``torch.FloatTensor``, ``torch.LongTensor``, ...), ``typename``,
``set_default_tensor_type``, the deprecated ``torch.range`` and ``is_nonzero``.

A legacy tensor class is not a Tensor subclass (as in torch): it is a constructor
(``FloatTensor(2, 3)`` is uninitialized, ``FloatTensor([1, 2])`` holds data) and an
``isinstance`` test for CPU tensors of its dtype.
"""

from __future__ import annotations

import numbers
import warnings

from .core import dtypes as _dtypes

__all__ = ["is_nonzero", "is_storage", "range", "set_default_tensor_type", "typename"]

TENSOR_TYPE_NAMES = {
    _dtypes.float64: "DoubleTensor", _dtypes.float32: "FloatTensor",
    _dtypes.float16: "HalfTensor", _dtypes.bfloat16: "BFloat16Tensor",
    _dtypes.int64: "LongTensor", _dtypes.int32: "IntTensor", _dtypes.int16: "ShortTensor",
    _dtypes.int8: "CharTensor", _dtypes.uint8: "ByteTensor", _dtypes.bool_: "BoolTensor",
}
# names typename() gives that have no class in torch's namespace
_EXTRA_TYPE_NAMES = {_dtypes.complex128: "ComplexDoubleTensor",
                     _dtypes.complex64: "ComplexFloatTensor"}


class _LegacyTensorMeta(type):
    def __instancecheck__(cls, instance):
        from .frontend.tensor import Tensor
        return (isinstance(instance, Tensor) and instance.dtype is cls.dtype
                and instance.device.type == "cpu")

    def __call__(cls, *args, device=None):
        import strided
        if device is not None and strided.device(device).type != "cpu":
            raise RuntimeError(f"legacy constructor expects device type: cpu but device "
                               f"type: {strided.device(device).type} was passed")
        if len(args) == 1 and isinstance(args[0], strided.Tensor):
            return args[0].to(cls.dtype) if args[0].dtype is not cls.dtype else args[0]
        if not args:
            return strided.empty(0, dtype=cls.dtype)
        if all(isinstance(a, numbers.Integral) and not isinstance(a, bool) for a in args):
            return strided.empty(args, dtype=cls.dtype)
        if len(args) == 1 and isinstance(args[0], strided.Size):
            return strided.empty(args[0], dtype=cls.dtype)
        if len(args) == 1 and not isinstance(args[0], (str, bytes)):
            return strided.tensor(args[0], dtype=cls.dtype)
        raise TypeError(f"new(): invalid data type '{type(args[0]).__name__}'")

    def __repr__(cls):
        return f"<class 'torch.{cls.__name__}'>"


LEGACY_TENSOR_CLASSES = {
    name: _LegacyTensorMeta(name, (), {"dtype": dt, "is_cuda": False, "is_sparse": False,
                                       "__module__": "strided"})
    for dt, name in TENSOR_TYPE_NAMES.items()}


def tensor_type_dtype(spec):
    """The dtype a legacy type names: ``'torch.FloatTensor'`` or ``strided.FloatTensor``."""
    if isinstance(spec, _LegacyTensorMeta):
        return spec.dtype
    name = spec.removeprefix("torch.") if isinstance(spec, str) else None
    for dt, legacy in {**TENSOR_TYPE_NAMES, **_EXTRA_TYPE_NAMES}.items():
        if legacy == name:
            return dt
    return None


def tensor_type_name(t) -> str:
    """``'torch.FloatTensor'``, ``'torch.meta.LongTensor'``: a tensor's legacy type."""
    name = TENSOR_TYPE_NAMES.get(t.dtype) or _EXTRA_TYPE_NAMES.get(t.dtype)
    if name is None:
        return "torch.Tensor"
    prefix = "torch." if t.device.type == "cpu" else f"torch.{t.device.type}."
    return prefix + name


def typename(obj) -> str:
    """A tensor's legacy type name, else the object's ``module.QualifiedName`` (the bare
    name for builtins), with strided's module paths spelled as torch's."""
    from .frontend.tensor import Tensor
    if isinstance(obj, Tensor):
        return tensor_type_name(obj)
    module = getattr(obj, "__module__", "") or ""
    qualname = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None)
    if qualname is None:
        module = type(obj).__module__ or ""
        qualname = type(obj).__qualname__
    if module in ("", "builtins"):
        return qualname
    if module == "strided" or module.startswith("strided."):
        import strided
        cls = obj if isinstance(obj, type) else type(obj)
        exported = getattr(strided, cls.__qualname__, None) is cls
        module = "torch" if exported else "torch" + module.removeprefix("strided")
    return f"{module}.{qualname}"


_warned_default_tensor_type = False


def set_default_tensor_type(t) -> None:
    """Deprecated (warns once per process, as torch): the default dtype from a floating
    legacy type (class or name)."""
    import strided
    global _warned_default_tensor_type
    if not _warned_default_tensor_type:
        _warned_default_tensor_type = True
        warnings.warn("torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please "
                      "use torch.set_default_dtype() and torch.set_default_device() as "
                      "alternatives.", UserWarning, stacklevel=2)
    if isinstance(t, str):
        module, _, name = t.rpartition(".")
        if module != "torch":                  # torch imports the dotted name's module
            raise ModuleNotFoundError(f"No module named '{module or name}'")
        if not hasattr(strided, name):
            raise AttributeError(f"module 'torch' has no attribute '{name}'")
    dtype = tensor_type_dtype(t)
    if dtype is None:
        raise TypeError("invalid type object: only floating-point types are supported as "
                        "the default type")
    if not dtype.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    strided.set_default_dtype(dtype)


def is_storage(obj) -> bool:
    from .core.storage import UntypedStorage
    from .storage import TypedStorage
    return isinstance(obj, (TypedStorage, UntypedStorage))


def is_nonzero(input) -> bool:
    """Whether a one-element tensor is nonzero (torch's truth test, without coercion)."""
    n = input.numel()
    if n == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if n > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(input.item() != 0)


_RANGE_DEPRECATION = (
    "torch.range is deprecated and will be removed in a future release because its "
    "behavior is inconsistent with Python's range builtin. Instead, use torch.arange, "
    "which produces values in [start, end).")


def range(start=0, end=None, step=1, *, out=None, dtype=None, layout=None, device=None,
          requires_grad=False):
    """Deprecated ``torch.range``: ``start`` to ``end`` INCLUSIVE by ``step``, in the
    default floating dtype unless ``dtype`` is given."""
    import math

    import strided
    warnings.warn(_RANGE_DEPRECATION, UserWarning, stacklevel=2)
    if end is None:
        raise TypeError("range() missing required argument 'end' (pos 2)")
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (step > 0 and end < start) or (step < 0 and end > start):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    count = math.floor((end - start) / step) + 1
    dtype = dtype if dtype is not None else (out.dtype if out is not None
                                             else strided.get_default_dtype())
    values = strided.arange(count, dtype=strided.float64).mul_(step).add_(start)
    result = values.to(dtype=dtype, device=device or "cpu")
    if out is not None:
        out.resize_(result.shape).copy_(result)
        return out
    return result.requires_grad_(requires_grad) if requires_grad else result
