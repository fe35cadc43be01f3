"""Runtime support for the generated Python bindings: argument converters and
torch's TypeError texts.

Note [How a binding parses its arguments]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Each overload of a binding gets a generated *matcher*: a Python function whose
own signature is the overload's Python signature, so CPython binds positional
and keyword arguments (and rejects unknown or missing ones) in C. The matcher's
body converts and type-checks each argument with the converters below, which
raise ``Mismatch`` when a value does not fit. The binding tries its overloads in
declaration order; only when all fail does ``raise_invalid_arguments`` run, and
it builds the diagnostic the slow way from the signature descriptions. So the
success path has no generic argument loop at all.

Torch's parser accepts ``zeros(2, 3)`` for ``zeros(size)``: an overload whose
only positional parameter is an int list takes varargs ints (``packs_varargs``).
"""

from __future__ import annotations

import numbers
import operator

import numpy as np

from ..core import dtypes as _dt
from ..core import layouts as _layouts
from ..core.devices import CPU
from ..core.devices import device as _device_cls
from ..core.dispatch_keys import backend_keyset

__all__ = ["PARSE_ERRORS", "Mismatch", "PySig", "raise_invalid_arguments"]


class Mismatch(Exception):
    """A converter's way to say "this overload does not match"; never escapes a binding."""


PARSE_ERRORS = (TypeError, Mismatch)
_dtype_cls = _dt.dtype
_tensor_cls: list = [None]   # set by frontend.tensor
_CPU_KEYSET = backend_keyset(CPU)


def set_tensor_class(cls):
    _tensor_cls[0] = cls


# -- converters ---------------------------------------------------------------------
# Each returns the converted value or raises Mismatch.

def to_int(x):
    if type(x) is int:
        return x
    if isinstance(x, bool) or isinstance(x, (float, complex)):
        raise Mismatch
    t = _tensor_cls[0]
    if isinstance(x, t):
        if x.dim() == 0 and not x.dtype.is_floating_point and not x.dtype.is_complex \
                and x.dtype is not _dt.bool_:
            return x.item()
        raise Mismatch
    try:
        return operator.index(x)
    except TypeError:
        raise Mismatch from None


def to_intlist(x, size=None):
    """``int[]``: a tuple/list/Size of ints; a single int when the list has a fixed size."""
    if type(x) is tuple:
        for v in x:
            if type(v) is not int:
                return tuple(to_int(v) for v in x)
        return x
    if isinstance(x, (list, tuple)):
        return tuple(to_int(v) for v in x)
    if size is not None:
        return (to_int(x),) * size
    raise Mismatch


def to_float(x):
    if type(x) is float:
        return x
    if isinstance(x, (bool, complex)) or isinstance(x, np.complexfloating):
        raise Mismatch
    if isinstance(x, numbers.Real):
        return float(x)
    t = _tensor_cls[0]
    if isinstance(x, t) and x.dim() == 0 and not x.dtype.is_complex:
        return float(x.item())
    raise Mismatch


def to_bool(x):
    if x is True or x is False:
        return x
    if isinstance(x, np.bool_):
        return bool(x)
    raise Mismatch


def to_scalar(x):
    """``Scalar``: a Python number (kept as bool/int/float/complex) or a 1-element tensor."""
    tx = type(x)
    if tx is int or tx is float or tx is bool or tx is complex:
        return x
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, numbers.Number):
        return x
    t = _tensor_cls[0]
    if isinstance(x, t) and x.numel() == 1:
        return x.item()
    raise Mismatch


_PY_TYPE_DTYPES = {float: _dt.float64, int: _dt.int64, bool: _dt.bool_, complex: _dt.complex128}


def to_dtype(x):
    if x.__class__ is _dtype_cls:
        return x
    d = _PY_TYPE_DTYPES.get(x) if isinstance(x, type) else None
    if d is None:
        raise Mismatch
    return d


def to_device(x):
    if isinstance(x, _device_cls):
        return x
    if isinstance(x, (str, int)) and not isinstance(x, bool):
        return _device_cls(x)
    raise Mismatch


def to_tensor(x):
    if isinstance(x, _tensor_cls[0]):
        return x
    raise Mismatch


def to_tensorlist(x):
    if isinstance(x, (list, tuple)):
        t = _tensor_cls[0]
        for v in x:
            if not isinstance(v, t):
                raise Mismatch
        return tuple(x)
    raise Mismatch


def to_optional_tensorlist(x):
    if isinstance(x, (list, tuple)):
        t = _tensor_cls[0]
        for v in x:
            if v is not None and not isinstance(v, t):
                raise Mismatch
        return tuple(x)
    raise Mismatch


def to_str(x):
    if isinstance(x, str):
        return x
    raise Mismatch


def to_instance_of(cls_getter):
    def convert(x):
        if isinstance(x, cls_getter()):
            return x
        raise Mismatch
    return convert


def keyset_of_device(dev) -> int:
    """Factories dispatch on their ``device=`` argument (torch's BackendSelect)."""
    if dev is None:
        return _CPU_KEYSET
    return backend_keyset(dev)


def keyset_of_list(tensors) -> int:
    ks = 0
    for t in tensors:
        if t is not None:
            ks |= t._keyset
    return ks


# -- diagnostics (the slow path) ------------------------------------------------------

class PySig:
    """A Python signature as shown in torch's messages, and enough to diagnose a call.

    ``params`` is a tuple of (name, type_text, default_text_or_None, kwarg_only).
    """

    __slots__ = ("is_method", "name", "packs_varargs", "params")

    def __init__(self, name, params, packs_varargs=False, is_method=False):
        self.name = name
        self.params = params
        self.packs_varargs = packs_varargs
        self.is_method = is_method

    def display(self) -> str:
        parts = []
        star = False
        for name, typ, default, kw_only in self.params:
            if kw_only and not star:
                parts.append("*")
                star = True
            text = f"{_display_type(typ)} {name}"
            if default is not None:
                text += f" = {_display_default(default)}"
            parts.append(text)
        return "(" + ", ".join(parts) + ")"

    def diagnose(self, args, kwargs) -> tuple[str | None, list]:
        """Why this signature rejects the call: (message or None, per-arg match flags)."""
        positional = [p for p in self.params if not p[3]]
        by_name = {p[0]: p for p in self.params}
        if self.packs_varargs and args and (len(args) > 1 or is_int_like(args[0])):
            args = (tuple(args),)
        if len(args) > len(positional):
            return (f"{self.name}() takes {len(positional)} positional argument"
                    f"{'s' if len(positional) != 1 else ''} but {len(args)} "
                    f"{'were' if len(args) != 1 else 'was'} given"), []
        flags = []
        for i, value in enumerate(args):
            name, typ, _, _ = positional[i]
            ok = _matches(typ, value)
            flags.append(ok)
            if not ok:
                bad = _bad_list_element(typ, value)
                if bad is not None:
                    return (f"{self.name}(): argument '{name}' failed to unpack the object at "
                            f"pos {bad[0] + 1} with error \"type must be tuple of ints,but got "
                            f"{_typename(bad[1])}\""), flags
                return (f"{self.name}(): argument '{name}' (position {i + 1}) must be "
                        f"{_display_type(typ)}, not {_typename(value)}"), flags
        for key, value in kwargs.items():
            if key in {p[0] for p in positional[:len(args)]}:
                return f"{self.name}() got multiple values for argument '{key}'", flags
            if key not in by_name:
                return f"{self.name}() got an unexpected keyword argument '{key}'", flags
            _, typ, _, _ = by_name[key]
            if not _matches(typ, value):
                return (f"{self.name}(): argument '{key}' must be {_display_type(typ)}, not "
                        f"{_typename(value)}"), flags
        given = {p[0] for p in positional[:len(args)]} | set(kwargs)
        missing = [p[0] for p in self.params if p[2] is None and p[0] not in given]
        if missing:
            return (f"{self.name}() missing {len(missing)} required positional argument"
                    f"{'s' if len(missing) != 1 else ''}: "
                    + ", ".join(f'"{m}"' for m in missing)), flags
        return None, flags


def _bad_list_element(typ: str, value):
    """(index, element) of the first non-int in a list given for an int list, else None."""
    base = typ.rstrip("?")
    if base.split("[")[0] in ("int", "SymInt") and "[" in base and isinstance(value, (list,
                                                                                      tuple)):
        for i, v in enumerate(value):
            if not _matches("int", v):
                return i, v
    return None


def _plausible(sig: PySig, args, kwargs) -> bool:
    """torch reports a single signature's error when only one could take this many
    arguments and these keywords."""
    positional = [p for p in sig.params if not p[3]]
    if sig.packs_varargs and args and (len(args) > 1 or is_int_like(args[0])):
        args = (tuple(args),)
    names = {p[0] for p in sig.params}
    required = [p for p in positional if p[2] is None]
    return (len(required) <= len(args) + sum(k in names for k in kwargs)
            and len(args) <= len(positional) and all(k in names for k in kwargs))


def raise_invalid_arguments(sigs, args, kwargs):
    """Raise torch's TypeError for a call that matched none of ``sigs``."""
    plausible = [s for s in sigs if _plausible(s, args, kwargs)]
    if len(sigs) == 1 or len(plausible) == 1:
        sig = sigs[0] if len(sigs) == 1 else plausible[0]
        msg, _ = sig.diagnose(args, kwargs)
        raise TypeError(msg or f"{sig.name}(): invalid arguments")
    got = ", ".join([_typename(a) for a in args]
                    + [f"{k}={_typename(v)}" for k, v in kwargs.items()])
    lines = [f"{sigs[0].name}() received an invalid combination of arguments - got ({got}), "
             f"but expected one of:"]
    for sig in sigs:
        lines.append(f" * {sig.display()}")
        msg, flags = sig.diagnose(args, kwargs)
        if flags and not all(flags):
            marked = ", ".join(_typename(a) if ok else f"!{_typename(a)}!"
                               for a, ok in zip(args, flags))
            lines.append(f"      didn't match because some of the arguments have invalid "
                         f"types: ({marked})")
    raise TypeError("\n".join(lines) + "\n")


_DISPLAY = {
    "Tensor": "Tensor", "int": "int", "SymInt": "int", "float": "float", "bool": "bool",
    "str": "str", "Scalar": "Number", "ScalarType": "torch.dtype", "Device": "torch.device",
    "Layout": "torch.layout", "MemoryFormat": "torch.memory_format",
    "Generator": "torch.Generator", "Tensor[]": "tuple of Tensors",
    "Tensor?[]": "tuple of Tensors", "int[]": "tuple of ints", "SymInt[]": "tuple of ints",
    "float[]": "tuple of floats", "Dimname": "name", "Dimname[]": "tuple of names",
    "Storage": "Storage", "bool[]": "tuple of bools", "Scalar[]": "tuple of Scalars",
}


def _display_type(typ: str) -> str:
    base = typ.removesuffix("?")
    if base.endswith("]") and not base.endswith("[]"):
        base = base[:base.index("[")] + "[]"
    return _DISPLAY.get(base, base)


def _display_default(default: str) -> str:
    return {"contiguous_format": "torch.contiguous_format", "[]": "()",
            "long": "torch.int64"}.get(default, default)


def _typename(value) -> str:
    t = _tensor_cls[0]
    if t is not None and isinstance(value, t):
        return "Tensor"
    if isinstance(value, (list, tuple)) and value:
        inner = _typename(value[0])
        if all(_typename(v) == inner for v in value):
            return f"{type(value).__name__} of [{', '.join(_typename(v) for v in value)}]"
    return type(value).__name__


_CONVERTERS = {
    "Tensor": to_tensor, "int": to_int, "SymInt": to_int, "float": to_float, "bool": to_bool,
    "str": to_str, "Scalar": to_scalar, "ScalarType": to_dtype, "Device": to_device,
    "Tensor[]": to_tensorlist, "Tensor?[]": to_optional_tensorlist, "int[]": to_intlist,
    "SymInt[]": to_intlist,
}


def _matches(typ: str, value) -> bool:
    if typ.endswith("?"):
        if value is None:
            return True
        typ = typ[:-1]
    if typ.endswith("]") and not typ.endswith("[]"):
        typ = typ[:typ.index("[")] + "[]"
        if typ in ("int[]", "SymInt[]") and not isinstance(value, (list, tuple)):
            typ = "int"
    conv = _CONVERTERS.get(typ)
    if conv is None:
        return True
    try:
        conv(value)
        return True
    except Mismatch:
        return False


def _instance_converter(cls):
    def convert(x):
        if x.__class__ is cls:
            return x
        raise Mismatch
    return convert


to_layout = _instance_converter(_layouts.layout)
to_memory_format = _instance_converter(_layouts.memory_format)
_CONVERTERS.update(Layout=to_layout, MemoryFormat=to_memory_format)


def is_int_like(x) -> bool:
    """Whether ``x`` starts a varargs int list (``zeros(2, 3)``)."""
    tx = type(x)
    if tx is int:
        return True
    if tx is tuple or tx is list or tx is float or tx is str:
        return False
    try:
        to_int(x)
        return True
    except Mismatch:
        return False


def check_factory_out(out, dtype, layout, device):
    """A factory called with ``out=`` must not ask for another dtype/layout/device."""
    if dtype is not None and dtype is not out.dtype:
        raise RuntimeError(f"dtype {dtype._scalar_name} does not match dtype of out "
                           f"parameter ({out.dtype._scalar_name})")
    if layout is not None and layout is not _layouts.strided:
        raise RuntimeError("layout does not match layout of out parameter")
    if device is not None and device.type != out.device.type:
        raise RuntimeError(f"device type {device.type} does not match device type of out "
                           f"parameter ({out.device.type})")
