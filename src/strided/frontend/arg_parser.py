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

import inspect
import numbers
import operator
import threading
import warnings

import numpy as np

from ..core import dtypes as _dt
from ..core import layouts as _layouts
from ..core.devices import CPU
from ..core.devices import DEFAULT_DEVICE as _DEFAULT_DEVICE
from ..core.devices import device as _device_cls
from ..core.dispatch_keys import backend_keyset
from ..core.generator import Generator as _Generator
from ..core.storage import UntypedStorage as _UntypedStorage

__all__ = ["PARSE_ERRORS", "Mismatch", "PySig", "format_invalid_args", "raise_invalid_arguments",
           "tp_name"]


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

# Note [Python ints that do not fit]: torch unpacks an int argument as a C int64 after
# choosing the overload: ValueError "Overflow when unpacking long long" for an ``int``, the
# same text inside "failed to unpack the object at pos N" for an element of an ``int[]``
# (PySig.conversion_error); a Scalar takes int64, then uint64, and otherwise raises
# CPython's OverflowError of PyLong_AsUnsignedLongLong.
INT64_MIN, INT64_MAX, UINT64_END = -(1 << 63), (1 << 63) - 1, 1 << 64


def to_int(x):
    if type(x) is int:
        if not INT64_MIN <= x <= INT64_MAX:
            raise ValueError("Overflow when unpacking long long")
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


def to_symint(x):
    """``SymInt`` (and int list elements): ``to_int``, and any one-element integer tensor
    (``tensor([2])`` too), as torch's parser takes them."""
    t = _tensor_cls[0]
    if isinstance(x, t) and x.numel() == 1 and not x.dtype.is_floating_point \
            and not x.dtype.is_complex and x.dtype is not _dt.bool_:
        return int(x.item())
    return to_int(x)


def _no_bool_tensors(x) -> None:
    """torch's error for a one-element bool tensor in an int list (``empty((tensor(True),))``)."""
    t = _tensor_cls[0]
    for v in x:
        if isinstance(v, t) and v.dtype is _dt.bool_ and v.numel() == 1:
            raise RuntimeError(
                "Expected scalar.isIntegral( false) to be true, but got false.  (Could this "
                "error message be improved?  If so, please report an enhancement request to "
                "PyTorch.)")


def _list_int(v) -> int:
    """An int list element after the first: ``__index__``, a one-element integer tensor."""
    if isinstance(v, _tensor_cls[0]):
        return to_symint(v) if v.numel() == 1 else operator.index(v)
    return operator.index(v)


def to_intlist(x, size=None):
    """``int[]``: a tuple/list/Size of ints; when the list has a fixed size, a single index
    (``sum(x, 1)``, ``roll(x, 1, tensor([0]))``)."""
    if type(x) is tuple:
        for v in x:
            if type(v) is not int or not INT64_MIN <= v <= INT64_MAX:
                return _intlist_slow(x)
        return x
    if isinstance(x, (list, tuple)):
        return _intlist_slow(x)
    if size is not None:
        return (_single_index(x),) * size
    raise Mismatch


def _single_index(x) -> int:
    """The one value given for a whole ``int[N]``: anything with ``__index__`` but a Python
    bool, so a one-element integer or bool tensor of any shape too, as torch's parser takes
    it (``x.sum(tensor([[1]]))``)."""
    if type(x) is int:
        return to_int(x)
    if isinstance(x, bool):
        raise Mismatch
    if isinstance(x, _tensor_cls[0]):
        if x.numel() != 1 or x.dtype.is_floating_point or x.dtype.is_complex:
            raise Mismatch
        return int(x.item())
    try:
        return to_int(operator.index(x))
    except TypeError:
        raise Mismatch from None


def _intlist_slow(x) -> tuple:
    # torch wants an index (no bool) first; later elements only need ``__index__``, so
    # ``zeros(2, True)`` is ``zeros(2, 1)``
    if not x:
        return ()
    _no_bool_tensors(x)
    try:
        first = to_symint(x[0])
        rest = tuple(v if type(v) is int else _list_int(v) for v in x[1:])
    except (TypeError, ValueError, Mismatch):
        raise Mismatch from None
    if any(not INT64_MIN <= v <= INT64_MAX for v in rest):
        raise Mismatch   # PySig.conversion_error names it
    return (first,) + rest


def to_float(x):
    if type(x) is float:
        return x
    if isinstance(x, (bool, complex)) or isinstance(x, np.complexfloating):
        raise Mismatch
    if isinstance(x, numbers.Real):
        return float(x)
    t = _tensor_cls[0]
    if isinstance(x, t) and x.dim() == 0 and not x.dtype.is_complex and not x.requires_grad:
        return float(x.item())
    raise Mismatch


def to_bool(x):
    if x is True or x is False:
        return x
    if isinstance(x, np.bool_):
        return bool(x)
    raise Mismatch


def to_pybool(x):
    """``bool`` as torch's Python bindings take it: ``True`` or ``False`` only."""
    if x is True or x is False:
        return x
    raise Mismatch


def to_scalar(x):
    """``Scalar``: a Python number (kept as bool/int/float/complex) or a 1-element tensor."""
    tx = type(x)
    if tx is int:
        if x < INT64_MIN:
            raise OverflowError("can't convert negative int to unsigned")
        if x >= UINT64_END:
            raise OverflowError("int too big to convert")
        return x
    if tx is float or tx is bool or tx is complex:
        return x
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, numbers.Number):
        return x
    # a tensor only when 0-dim and not requiring grad, as torch's parser checks a Scalar
    t = _tensor_cls[0]
    if isinstance(x, t) and not x._sizes and not x.requires_grad:
        return x.item()
    raise Mismatch


_PY_TYPE_DTYPES = {float: _dt.float64, int: _dt.int64, bool: _dt.bool_, complex: _dt.complex128}


# torch's should_allow_numbers_as_tensors (python_arg_parser.cpp): the functions whose Tensor
# parameters also take Python numbers, as wrapped numbers. tools/codegen/gen_bindings.py keeps
# the same list for the generated bindings (tests/kernels/test_elementwise.py checks they agree).
NUMBERS_AS_TENSORS = frozenset(
    f"{base}{suffix}" for base in ("add", "sub", "subtract", "mul", "multiply", "div", "divide",
                                   "true_divide", "floor_divide")
    for suffix in ("", "_"))


# the whole of torch's list, for the diagnostics (``to`` and ``copy_`` take numbers too)
_NUMBERS_FOR_TENSORS = NUMBERS_AS_TENSORS | {"copy_", "to", "_to_copy"}


def to_tensor_or_number(x):
    """A Tensor parameter of a ``NUMBERS_AS_TENSORS`` function: a tensor or a number."""
    if isinstance(x, _tensor_cls[0]):
        return x
    return to_wrapped_number(x)


def to_wrapped_number(x):
    """A Python (or NumPy) number passed for a Tensor parameter of the few bindings that
    take numbers there (``NUMBERS_AS_TENSORS`` in tools/codegen/gen_bindings.py): kept as
    the number, which kernels treat as torch's wrapped number."""
    tx = type(x)
    if tx is int or tx is float or tx is bool or tx is complex:
        return x
    if isinstance(x, (np.number, np.bool_)):
        return x.item()
    if isinstance(x, numbers.Number):
        return x
    raise Mismatch


def to_dim_arg(name: str, x) -> int:
    """The ``int dim`` of the hand-written ``size(dim)`` / ``stride(dim)``: torch's TypeError
    for anything that is not an index."""
    try:
        return to_int(x)
    except Mismatch:
        raise TypeError(f"{name}(): argument 'dim' (position 1) must be int, not "
                        f"{tp_name(x)}") from None


def axis_as_dim(name: str, dim, axis) -> int:
    """``size(axis=1)`` / ``stride(axis=1)``: torch's parser takes NumPy's ``axis`` for their
    ``dim`` too (Note [NumPy-style keyword aliases]); given both, ``axis`` is left over."""
    if dim is not None:
        raise TypeError(f"{name}() got an unexpected keyword argument 'axis'")
    try:
        return to_int(axis)
    except Mismatch:
        raise TypeError(f"{name}(): argument 'dim' must be int, not {tp_name(axis)}") from None


def to_number_tensor(x):
    """A Python number for a Tensor parameter of ``copy_`` (torch's parser takes numbers
    there): a 0-dim tensor of the number's Python type (int64, float64, bool, complex128)."""
    from .. import tensor as _make_tensor
    value = to_wrapped_number(x)
    return _make_tensor(value, dtype=_PY_TYPE_DTYPES[type(value)])


def keyset_of_arg(x) -> int:
    """The key set of a Tensor-or-number argument: a number counts as a CPU tensor."""
    return getattr(x, "_keyset", _CPU_KEYSET)


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
    tx = type(x)
    if tx is tuple or tx is list or isinstance(x, (list, tuple)):
        t = _tensor_cls[0]
        for v in x:
            if not isinstance(v, t):
                raise Mismatch
        return x if tx is tuple else tuple(x)
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
        dev = _DEFAULT_DEVICE[0]
        if dev is CPU:
            return _CPU_KEYSET
    return backend_keyset(dev)


def keyset_of_list(tensors) -> int:
    ks = 0
    for t in tensors:
        if t is not None:
            ks |= t._keyset
    return ks


# -- diagnostics (the slow path) ------------------------------------------------------
#
# Note [torch's TypeError texts]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# When no overload takes a call, torch's PythonArgParser explains it in one of two ways,
# and strided follows both rules, quirks included, because tests compare the texts:
#
# - One signature (or exactly one whose argument count fits, ``min_args <= given <=
#   len(params)``, hidden signatures not counting): its parser runs again in raising
#   mode and reports the first problem it meets, walking the parameters in order:
#   "takes 2 positional arguments but 3 were given", "missing 1 required positional
#   arguments" (torch's plural and singular are the wrong way round), "argument 'dim'
#   (position 1) must be int, not str", "got an unexpected keyword argument 'foo'".
#   The type of a value is named by CPython's ``tp_name``: "list", "numpy.float64",
#   "torch.dtype".
# - Otherwise "f() received an invalid combination of arguments - got (int, str), but
#   expected one of:" and the signatures. This part of torch re-parses each
#   signature's text (split at ", ", the type is what precedes the last space), so a
#   parameter with a default is read as type "bool non_blocking =" named "False" and
#   "*" counts as a parameter; an overload gets a "didn't match" line only when that
#   count equals the number of arguments given. Keywords are listed in the iteration
#   order of a C++ ``std::unordered_map`` (``_unordered_map_order``).
#
# A signature may be *hidden* (torch's deprecated overloads, e.g. ``copy_(Tensor other,
# bool async=False)``): it counts for "is there more than one signature" but is never
# listed nor plausible.
#
# torch's parser checks little of an int list (its first element only); the rest is
# checked while converting, after the overload was chosen: "argument 'size' failed to
# unpack the object at pos 2 with error ...". ``raise_invalid_arguments`` therefore first
# looks for an overload that torch's checks accept and reports its conversion error.

_MISSING = object()
_HEAPTYPE = 1 << 9      # Py_TPFLAGS_HEAPTYPE: classes defined in Python
_TORCH_TYPE_NAMES: dict = {
    _dtype_cls: "torch.dtype", _device_cls: "torch.device", _layouts.layout: "torch.layout",
    _layouts.memory_format: "torch.memory_format", _dt.finfo: "torch.finfo",
    _dt.iinfo: "torch.iinfo", _UntypedStorage: "torch.storage.UntypedStorage",
}


def register_type_name(cls, name: str) -> None:
    """Name ``cls`` as torch names its counterpart in messages (``Size`` -> "torch.Size")."""
    _TORCH_TYPE_NAMES[cls] = name


def tp_name(value) -> str:
    """The name torch's messages give the type of ``value``: CPython's ``tp_name``, which
    is "module.name" for a type defined in C ("numpy.float32") and the bare name for a
    class defined in Python; strided's stand-ins for torch's C types use torch's names."""
    cls = type(value)
    name = _TORCH_TYPE_NAMES.get(cls)
    if name is not None:
        return name
    if cls.__flags__ & _HEAPTYPE or cls.__module__ == "builtins":
        return cls.__name__
    return f"{cls.__module__}.{cls.__name__}"


# torch's acceptance tests, one per parameter type; they differ from the converters
# above where torch's parser is lax (it looks at the first element of an int list only)
# or strict (a 0-dim tensor for a Scalar).

def _check_long(x) -> bool:
    return (isinstance(x, int) and not isinstance(x, bool)) or isinstance(x, np.integer)


def _is_numpy_scalar(x) -> bool:
    return isinstance(x, (np.integer, np.bool_, np.floating, np.complexfloating))


def _check_index(x) -> bool:
    if isinstance(x, bool):
        return False
    if _check_long(x):
        return True
    try:
        operator.index(x)
        return True
    except Exception:  # noqa: BLE001 - whatever __index__ raises, x is no index
        return False


def _is_int_or_symint(x) -> bool:
    if _check_long(x):
        return True
    t = _tensor_cls[0]
    if isinstance(x, t):
        return x.numel() == 1 and x.dtype.category <= _dt.INT
    return _check_index(x)


def _int_list_check(x, size):
    """(accepted, index of the offending element or None) for an int list."""
    if isinstance(x, (list, tuple)):
        if not x or _is_int_or_symint(x[0]):
            return True, None
        return False, 0
    return bool(size) and _is_int_or_symint(x), None


def _check_double(x) -> bool:
    return isinstance(x, (float, int)) or _is_numpy_scalar(x)


def _plain_0dim(x) -> bool:
    return isinstance(x, _tensor_cls[0]) and not x.requires_grad and x.dim() == 0


def _base_type(typ: str):
    """"Tensor(a!)" -> ("Tensor", None); "int[2]?" -> ("int[]", 2)."""
    typ = typ.removesuffix("?")
    if "(" in typ:
        typ = typ[:typ.index("(")] + typ[typ.index(")") + 1:]
    typ = typ.removesuffix("?")
    if typ.endswith("]") and not typ.endswith("[]"):
        return typ[:typ.index("[")] + "[]", int(typ[typ.index("[") + 1:-1])
    return typ, None


def _torch_check(typ: str, x):
    """Whether torch's parser accepts ``x`` for a parameter of type ``typ``:
    (accepted, index of the offending list element or None)."""
    base, size = _base_type(typ)
    t = _tensor_cls[0]
    if base == "Tensor":
        ok = isinstance(x, t)
    elif base in ("Scalar", "complex"):
        ok = isinstance(x, (int, float, complex)) or _is_numpy_scalar(x) or _plain_0dim(x)
    elif base == "float":
        ok = _check_double(x) or _plain_0dim(x)
    elif base == "int":
        ok = _check_long(x) or (_plain_0dim(x) and x.dtype.category == _dt.INT)
    elif base == "SymInt":
        ok = _is_int_or_symint(x)
    elif base in ("int[]", "SymInt[]"):
        return _int_list_check(x, size)
    elif base == "bool":
        ok = x is True or x is False
    elif base == "ScalarType":
        ok = isinstance(x, _dtype_cls) or (isinstance(x, type) and x in _PY_TYPE_DTYPES)
    elif base == "Layout":
        ok = isinstance(x, _layouts.layout)
    elif base == "MemoryFormat":
        ok = isinstance(x, _layouts.memory_format)
    elif base == "Device":
        ok = _check_long(x) or isinstance(x, (str, _device_cls))
    elif base == "str":
        ok = isinstance(x, str)
    elif base in ("Tensor[]", "Tensor?[]"):
        ok = isinstance(x, (list, tuple)) and all(
            isinstance(v, t) or (v is None and base == "Tensor?[]") for v in x)
        if ok and size is not None and len(x) != size:
            # several out= tensors: torch's parser names the count it expected
            raise TypeError(f"expected tuple of {size} elements but got {len(x)}")
    elif base == "float[]":
        ok = isinstance(x, (list, tuple)) and (
            not x or _check_double(x[0]) or isinstance(x[0], complex))
    elif base == "Storage":
        ok = isinstance(x, _UntypedStorage)
    elif base == "Scalar[]":
        ok = isinstance(x, (list, tuple)) and all(
            isinstance(v, (int, float, complex)) or _is_numpy_scalar(v) for v in x)
    else:
        conv = _CONVERTERS.get(base)
        if conv is None:
            return True, None
        try:
            conv(x)
            ok = True
        except Mismatch:
            ok = False
    return ok, None


def _allows_none(typ: str, default) -> bool:
    # an empty-list default is None to torch's parser (pythonify_default of ``{}``)
    return typ.endswith("?") or default == "None" or default == "[]"


class PySig:
    """A Python signature as torch's messages show it, and torch's parser for it.

    ``params`` is a tuple of (name, type_text, default_text_or_None, kwarg_only), in
    torch's order; a ``hidden`` signature is a deprecated one that torch accepts without
    listing it (Note [torch's TypeError texts]). Operators called through ``strided.ops``
    (names with a namespace, ``myns::f``) have no torch text to follow; their arity errors
    keep Python's wording ("takes 2 positional arguments", "missing 1 required positional
    argument").
    """

    __slots__ = ("hidden", "is_method", "max_pos_args", "min_args", "name", "packs_varargs",
                 "params")

    def __init__(self, name, params, packs_varargs=False, is_method=False, hidden=False):
        self.name = name
        self.params = params
        self.packs_varargs = packs_varargs
        self.is_method = is_method
        self.hidden = hidden
        self.min_args = sum(1 for p in params if p[2] is None)
        self.max_pos_args = sum(1 for p in params if not p[3])

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

    def _varargs(self, args) -> bool:
        """Whether positional ints stand for the single int-list parameter
        (``zeros(2, 3)``)."""
        return self.packs_varargs and _int_list_check(args, None)[0]

    def diagnose(self, args, kwargs) -> str | None:
        """torch's message for the first problem of this call, or None when torch's
        parser accepts it (Note [torch's TypeError texts])."""
        nargs = len(args)
        varargs = self._varargs(args)
        if nargs > self.max_pos_args and not varargs:
            return self._extra_args(nargs)
        arg_pos = 0
        remaining = len(kwargs)
        for i, (name, typ, default, kw_only) in enumerate(self.params):
            is_kwd = False
            if arg_pos < nargs:
                if kw_only:
                    return self._extra_args(nargs)
                value = args[arg_pos]
            elif kwargs:
                value = _lookup(kwargs, name)
                is_kwd = True
            else:
                value = _MISSING
            if value is _MISSING:
                if default is None:
                    return self._missing_args(i)
            elif not (value is None and _allows_none(typ, default)):
                _check_tensor_list_elements(typ, value, i)
                ok, failed = _torch_check(typ, value)
                if not ok and self.name in _NUMBERS_FOR_TENSORS and typ == "Tensor" and (
                        isinstance(value, (int, float, complex)) or _is_numpy_scalar(value)):
                    ok = True     # torch's should_allow_numbers_as_tensors
                if not ok:
                    if varargs and arg_pos == 0 and not is_kwd:
                        arg_pos = nargs
                        continue
                    return self._type_error(name, typ, value, is_kwd, arg_pos, failed)
            if not is_kwd:
                arg_pos += 1
            elif value is not _MISSING:
                remaining -= 1
        if remaining > 0:
            return self._extra_kwargs(kwargs, nargs)
        return None

    def conversion_error(self, args, kwargs) -> str | None:
        """The error torch raises after choosing this signature, while converting: an int
        list element that is no index."""
        nargs = len(args)
        varargs = self._varargs(args)
        arg_pos = 0
        for name, typ, _, _ in self.params:
            if arg_pos < nargs:
                value = args[arg_pos]
                if varargs and arg_pos == 0 and not _torch_check(typ, value)[0]:
                    value = args
                    arg_pos = nargs
                arg_pos += 1
            else:
                value = _lookup(kwargs, name)
            if _base_type(typ)[0] in ("int[]", "SymInt[]") and isinstance(value, (list, tuple)):
                for k, v in enumerate(value):
                    if type(v) is int and not INT64_MIN <= v <= INT64_MAX:
                        return (f"{self.name}(): argument '{name}' failed to unpack the object "
                                f"at pos {k + 1} with error \"Overflow when unpacking long "
                                f"long\"")
                    if not _unpacks_as_index(v):
                        return (f"{self.name}(): argument '{name}' failed to unpack the object "
                                f"at pos {k + 1} with error \"type must be tuple of ints,but "
                                f"got {tp_name(v)}\"")
        return None

    def _extra_args(self, nargs: int) -> str:
        if self.min_args != self.max_pos_args and "::" not in self.name:
            return (f"{self.name}() takes from {self.min_args} to {self.max_pos_args} "
                    f"positional arguments but {nargs} were given")
        n = self.max_pos_args
        return (f"{self.name}() takes {n} positional argument{'' if n == 1 else 's'} but "
                f"{nargs} {'was' if nargs == 1 else 'were'} given")

    def _missing_args(self, index: int) -> str:
        names = [p[0] for p in self.params[index:] if p[2] is None]
        # torch's own wording: "argument" for several, "arguments" for one
        plural = len(names) == 1
        if "::" in self.name:
            plural = not plural
        return (f"{self.name}() missing {len(names)} required positional argument"
                f"{'s' if plural else ''}: " + ", ".join(f'"{n}"' for n in names))

    def _type_error(self, name, typ, value, is_kwd, arg_pos, failed) -> str:
        expected = _display_type(typ)
        if is_kwd:
            return (f"{self.name}(): argument '{name}' must be {expected}, not "
                    f"{tp_name(value)}")
        if failed is not None:
            return (f"{self.name}(): argument '{name}' (position {arg_pos + 1}) must be "
                    f"{expected}, but found element of type {tp_name(value[failed])} at pos "
                    f"{failed}")
        return (f"{self.name}(): argument '{name}' (position {arg_pos + 1}) must be "
                f"{expected}, not {tp_name(value)}")

    def _extra_kwargs(self, kwargs, nargs: int) -> str:
        index = {p[0]: i for i, p in enumerate(self.params)}
        for key in kwargs:
            i = index.get(key)
            if i is None:
                return f"{self.name}() got an unexpected keyword argument '{key}'"
            if i < nargs:
                return f"{self.name}() got multiple values for argument '{key}'"
        return "invalid keyword arguments"


_typename = tp_name   # the name frontend/nonzero.py knows it by


def _unpacks_as_index(v) -> bool:
    """An int list element after the first: anything with ``__index__`` (bools too)."""
    try:
        operator.index(v)
        return True
    except TypeError:
        return False


# Note [NumPy-style keyword aliases]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# torch's parser lets a few parameters also be named the NumPy way: a signature's ``dim``
# takes ``axis=``, ``keepdim`` takes ``keepdims=``, ``input`` takes ``x=``, ``a=`` or ``x1=``
# (the first of them given) and ``other`` takes ``x2=``; the parameter's own name wins when
# both are given, and the alias is then left over, so torch reports it as an unexpected
# keyword. The generated matchers know the parameters' own names only, so a call using an
# alias matches no overload on the first pass and reaches ``unmatched`` (the slow path,
# never taken by a call that binds): it renames the aliases to the parameters the binding
# has and calls the binding once more. When that retry matches no overload either, the
# error is reported for the call as it was written (``PySig.diagnose`` looks aliases up as
# torch's parser does). Renaming uses the parameter names of all the binding's overloads
# together; no binding has one overload taking ``input`` and another a parameter named
# like one of its aliases, so this is torch's per-signature lookup.
NUMPY_ALIASES = {"dim": ("axis",), "keepdim": ("keepdims",), "input": ("x", "a", "x1"),
                 "other": ("x2",)}
_ALIAS_KEYS = frozenset(a for aliases in NUMPY_ALIASES.values() for a in aliases)
_PARAM_NAMES: dict = {}     # id(sigs) -> (sigs, the names of the binding's parameters)


class _AliasRetryFailed(Exception):
    """The retry of ``unmatched`` matched no overload either."""


class _RetryState(threading.local):
    sigs = None


_retry = _RetryState()


def _lookup(kwargs, name):
    """``kwargs[name]``, or the value of its first NumPy-style alias given (_MISSING)."""
    value = kwargs.get(name, _MISSING)
    if value is _MISSING:
        for alias in NUMPY_ALIASES.get(name, ()):
            value = kwargs.get(alias, _MISSING)
            if value is not _MISSING:
                break
    return value


def alias_kwargs(kwargs, sigs):
    """``kwargs`` with its NumPy-style aliases renamed to the parameters of ``sigs``, or
    None when there is nothing to rename (Note [NumPy-style keyword aliases])."""
    if _ALIAS_KEYS.isdisjoint(kwargs):
        return None
    cached = _PARAM_NAMES.get(id(sigs))
    if cached is not None and cached[0] is sigs:
        names = cached[1]
    else:   # (the tuple is kept, so that its id is not reused by another one)
        names = frozenset(p[0] for s in sigs for p in s.params)
        _PARAM_NAMES[id(sigs)] = (sigs, names)
    renamed = None
    for param, aliases in NUMPY_ALIASES.items():
        if param in names and param not in kwargs:
            for alias in aliases:
                if alias in kwargs and alias not in names:
                    if renamed is None:
                        renamed = dict(kwargs)
                    renamed[param] = renamed.pop(alias)
                    break
    return renamed


def unmatched(fn, sigs, args, kwargs, *self):
    """The end of a generated binding whose overloads all refused the call: retry with the
    NumPy-style aliases renamed, else raise torch's TypeError. ``self`` is the tensor of a
    method binding (Note [NumPy-style keyword aliases])."""
    if _retry.sigs is sigs:
        raise _AliasRetryFailed
    if kwargs:
        renamed = alias_kwargs(kwargs, sigs)
        if renamed is not None:
            outer = _retry.sigs
            _retry.sigs = sigs
            try:
                return fn(*self, *args, **renamed)
            except _AliasRetryFailed:
                pass
            finally:
                _retry.sigs = outer
    raise_invalid_arguments(sigs, args, kwargs)


# Note [Signatures of the generated bindings]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# A binding is ``def add(*args, **kwargs)``, so the codegen gives each one a
# ``__signature__``: the Python signature of one of its overloads, the most general one
# (the most parameters, then the most of them optional: ``sum(input, dim, keepdim=False,
# *, dtype=None, out=None)``, ``std(input, dim=None, *, correction=None, keepdim=False,
# out=None)``), which is one of the signatures torch's documentation lists. Its
# parameters and defaults are those of the overload's matcher, so they are what the binding
# really uses, except that a parameter another overload goes without shows ``=None``
# (``sum(input, dim=None, ...)``: ``sum(x)`` binds), and a required keyword of the most
# general overload that a simpler one goes without is added to the simpler one's signature
# (``sort(input, dim=-1, descending=False, *, stable=None, out=None)``, as torch documents
# it); a method's begins with ``self``; an
# int list that also takes varargs ints is ``*size``. The ``inspect.Parameter`` objects are
# built on first use, not at import.
_SIGNATURE_PARAMS = inspect.Signature._parameters    # the slot LazySignature fills late
_P = inspect.Parameter


def _signature_parameters(matcher, packs_varargs: bool, is_method: bool, optional,
                          extra) -> dict:
    params = [] if matcher is None else list(inspect.signature(matcher).parameters.values())
    params = [p.replace(default=None) if p.name in optional else p for p in params]
    if extra:
        at = next((i for i, p in enumerate(params) if p.kind is _P.KEYWORD_ONLY), len(params))
        params[at:at] = [_P(name, _P.KEYWORD_ONLY, default=None) for name in extra]
    if packs_varargs and params and params[0].default is _P.empty:
        # torch documents a required one as ``*size``; an optional one stays a parameter
        params[0] = _P(params[0].name, _P.VAR_POSITIONAL)
    if is_method:
        params.insert(0, _P("self", _P.POSITIONAL_OR_KEYWORD))
    return {p.name: p for p in params}


class LazySignature(inspect.Signature):
    """An ``inspect.Signature`` whose parameters are read from an overload's matcher on
    first use (Note [Signatures of the generated bindings])."""

    __slots__ = ("_spec",)

    def __init__(self, matcher, packs_varargs: bool = False, is_method: bool = False,
                 optional: tuple = (), extra: tuple = ()):
        self._spec = (matcher, packs_varargs, is_method, optional, extra)
        self._return_annotation = inspect.Signature.empty

    @property
    def _parameters(self):
        try:
            return _SIGNATURE_PARAMS.__get__(self)
        except AttributeError:
            params = _signature_parameters(*self._spec)
            _SIGNATURE_PARAMS.__set__(self, params)
            return params

    def replace(self, *, parameters=None, return_annotation=inspect.Signature.empty):
        # a plain Signature (inspect calls this to drop ``self`` of a bound method)
        if parameters is None:
            parameters = self.parameters.values()
        return inspect.Signature(parameters, return_annotation=return_annotation)


_deprecation_warned = [False]


def warn_deprecated(sigs, index: int) -> None:
    """torch's warning for a call that took a deprecated signature (``add(x, 2, y)``): once
    per process, whichever the signature, as torch's TORCH_WARN_ONCE is shared by all."""
    if _deprecation_warned[0]:
        return
    _deprecation_warned[0] = True
    sig = sigs[index]
    text = f"This overload of {sig.name} is deprecated:\n\t{sig.name}{sig.display()}"
    others = [s for s in sigs if not s.hidden]
    if others:
        text += "\nConsider using one of the following signatures instead:" + "".join(
            f"\n\t{sig.name}{s.display()}" for s in others)
    warnings.warn(text, UserWarning, stacklevel=3)


def raise_invalid_arguments(sigs, args, kwargs):
    """Raise torch's TypeError for a call that matched none of ``sigs`` (Note [torch's
    TypeError texts])."""
    if len(sigs) == 1:
        sig = sigs[0]
        msg = sig.diagnose(args, kwargs) or sig.conversion_error(args, kwargs)
        raise TypeError(msg or f"{sig.name}(): invalid arguments")
    for sig in sigs:
        if not sig.hidden and sig.diagnose(args, kwargs) is None:
            msg = sig.conversion_error(args, kwargs)
            if msg:
                raise TypeError(msg)
            break
    n = len(args) + len(kwargs)
    plausible = [s for s in sigs if not s.hidden and s.min_args <= n <= len(s.params)]
    if len(plausible) == 1:
        msg = plausible[0].diagnose(args, kwargs)
        if msg:
            raise TypeError(msg)
    raise TypeError(format_invalid_args(sigs[0].name, args, kwargs,
                                        [s.display() for s in sigs if not s.hidden]))


def raise_no_arguments(name: str, args, kwargs):
    """A method without parameters called with some: CPython's text for torch's
    METH_NOARGS methods."""
    if kwargs:
        raise TypeError(f"TensorBase.{name}() takes no keyword arguments")
    raise TypeError(f"TensorBase.{name}() takes no arguments ({len(args)} given)")


def format_invalid_args(name: str, args, kwargs, options) -> str:
    """torch's "received an invalid combination of arguments" text for ``options`` (the
    displayed signatures)."""
    keywords = [(k, kwargs[k]) for k in _unordered_map_order(list(kwargs))]
    head = f"{name}() received an invalid combination of arguments - "
    n = len(args) + len(keywords)
    if len(options) == 1:
        names, types = _parse_option(options[0])
        unmatched = _unmatched_keywords(names, keywords)
        if unmatched:
            return head + "got unrecognized keyword arguments: " + ", ".join(unmatched)
        desc = (_formatted_args(names, types, args, kwargs) if len(names) == n
                else _args_desc(args, keywords))
        return head + f"got {desc}, but expected {options[0]}"
    lines = [head + f"got {_args_desc(args, keywords)}, but expected one of:"]
    for option in options:
        lines.append(f" * {option}")
        names, types = _parse_option(option)
        if len(names) != n:
            continue
        unmatched = _unmatched_keywords(names, keywords)
        if unmatched:
            lines.append("      didn't match because some of the keywords were incorrect: "
                         + ", ".join(unmatched))
        else:
            lines.append("      didn't match because some of the arguments have invalid types: "
                         + _formatted_args(names, types, args, kwargs))
    return "\n".join(lines) + "\n"


def _parse_option(option: str):
    """torch's reading of a displayed signature: (names, type names), one per ", "-separated
    piece; the type is the text before the last space."""
    names, types = [], []
    for piece in option[1:-1].split(", "):
        cut = piece.rfind(" ")
        types.append(piece if cut < 0 else piece[:cut])
        names.append(piece[cut + 1:])
    return names, types


def _unmatched_keywords(names, keywords) -> list:
    tail = names[max(0, len(names) - len(keywords)):]
    return [k for k, _ in keywords if k not in tail]


def _type_matches(type_name: str, value) -> bool:
    name = tp_name(value)
    if type_name == "float":
        return name in ("float", "int", "long")
    if type_name == "int":
        return name in ("int", "long")
    return name == type_name


def _describe(value) -> str:
    if isinstance(value, tuple):
        inner = ", ".join(tp_name(v) for v in value)
        return f"{tp_name(value)} of ({inner}{',' if len(value) == 1 else ''})"
    if isinstance(value, list):
        return f"{tp_name(value)} of [{', '.join(tp_name(v) for v in value)}]"
    return tp_name(value)


def _formatted_args(names, types, args, kwargs) -> str:
    parts = []
    for i in range(len(names)):
        is_kwarg = i >= len(args)
        value = kwargs[names[i]] if is_kwarg else args[i]
        text = (f"{names[i]}=" if is_kwarg else "") + _describe(value)
        parts.append(text if _type_matches(types[i], value) else f"!{text}!")
    return _join_like_torch(parts, bool(args))


def _args_desc(args, keywords) -> str:
    parts = [tp_name(a) for a in args] + [f"{k}={tp_name(v)}" for k, v in keywords]
    return _join_like_torch(parts, bool(args))


def _join_like_torch(parts, has_positional: bool) -> str:
    # every part is followed by ", " and the last one is removed only when there were
    # positional arguments: "(int, foo=int)" but "(foo=int, )"
    text = "".join(p + ", " for p in parts)
    if has_positional:
        text = text[:-2]
    return "(" + text + ")"


# Note [Keyword order in torch's messages]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# torch copies the keywords into a ``std::unordered_map<std::string, PyObject*>`` and
# lists them in its iteration order, which libstdc++ fixes as follows: keys hash with
# ``std::_Hash_bytes`` (a MurmurHash2 variant, seed 0xc70f6907) modulo the bucket count;
# the table starts with 13 buckets and grows to the next prime >= twice its size when
# it would hold more elements than buckets; a key whose bucket is empty goes to the
# front of the list, one whose bucket is taken goes just before that bucket's first key;
# growing re-inserts the keys in list order. For a few keys in distinct buckets that is
# reverse insertion order ("got (foo=int, dtype=torch.dtype)" for dtype=..., foo=1).

_M64 = (1 << 64) - 1
_MURMUR_MUL = 0xC6A4A7935BD1E995


def _shift_mix(v: int) -> int:
    return v ^ (v >> 47)


def _std_hash(text: str) -> int:
    data = text.encode()
    n = len(data)
    h = (0xC70F6907 ^ (n * _MURMUR_MUL)) & _M64
    whole = n & ~7
    for i in range(0, whole, 8):
        word = int.from_bytes(data[i:i + 8], "little")
        h ^= (_shift_mix((word * _MURMUR_MUL) & _M64) * _MURMUR_MUL) & _M64
        h = (h * _MURMUR_MUL) & _M64
    if n & 7:
        h ^= int.from_bytes(data[whole:], "little")
        h = (h * _MURMUR_MUL) & _M64
    return _shift_mix((_shift_mix(h) * _MURMUR_MUL) & _M64)


_SMALL_BUCKET_COUNTS = (2, 2, 2, 3, 5, 5, 7, 7, 11, 11, 11, 11, 13, 13)


def _bucket_count_for(n: int) -> int:
    if n < len(_SMALL_BUCKET_COUNTS):
        return _SMALL_BUCKET_COUNTS[n]
    while any(n % d == 0 for d in range(2, int(n ** 0.5) + 1)):
        n += 1
    return n


def _unordered_map_order(keys: list) -> list:
    """The iteration order of a libstdc++ ``unordered_map`` filled with ``keys`` in order
    (Note [Keyword order in torch's messages])."""
    hashes = {k: _std_hash(k) for k in keys}
    buckets, next_resize, order = 1, 0, []

    def insert(seq, key, count):
        b = hashes[key] % count
        for j, other in enumerate(seq):
            if hashes[other] % count == b:
                seq.insert(j, key)
                return
        seq.insert(0, key)

    for key in keys:
        n = len(order) + 1
        if n > next_resize:
            wanted = max(n, 0 if next_resize else 11)
            if wanted >= buckets:
                buckets = next_resize = _bucket_count_for(max(wanted + 1, buckets * 2))
                rehashed: list = []
                for other in order:
                    insert(rehashed, other, buckets)
                order = rehashed
            else:
                next_resize = buckets
        insert(order, key, buckets)
    return order


_DISPLAY = {
    "Tensor": "Tensor", "int": "int", "SymInt": "int", "float": "float", "bool": "bool",
    "str": "str", "Scalar": "Number", "ScalarType": "torch.dtype", "Device": "torch.device",
    "Layout": "torch.layout", "MemoryFormat": "torch.memory_format", "complex": "complex",
    "Generator": "torch.Generator", "Tensor[]": "tuple of Tensors",
    "Tensor?[]": "tuple of Tensors", "int[]": "tuple of ints", "SymInt[]": "tuple of ints",
    "float[]": "tuple of floats", "Dimname": "name", "Dimname[]": "tuple of names",
    "Storage": "torch.Storage", "bool[]": "tuple of bools", "Scalar[]": "tuple of Scalars",
}


def _display_type(typ: str) -> str:
    base = _base_type(typ)[0]
    return _DISPLAY.get(base, base)


def _display_default(default: str) -> str:
    # torch shows the C++ default: a list in braces, a string in double quotes
    if len(default) > 2 and default[0] == "[" and default[-1] == "]":
        return "{" + default[1:-1] + "}"
    if len(default) >= 2 and default[0] == default[-1] == "'":
        return '"' + default[1:-1] + '"'
    return {"contiguous_format": "torch.contiguous_format", "[]": "None",
            "long": "torch.int64"}.get(default, default)


_CONVERTERS = {
    "Tensor": to_tensor, "int": to_int, "SymInt": to_symint, "float": to_float, "bool": to_bool,
    "str": to_str, "Scalar": to_scalar, "ScalarType": to_dtype, "Device": to_device,
    "Tensor[]": to_tensorlist, "Tensor?[]": to_optional_tensorlist, "int[]": to_intlist,
    "SymInt[]": to_intlist,
}


def _instance_converter(cls):
    def convert(x):
        if x.__class__ is cls:
            return x
        raise Mismatch
    return convert


to_layout = _instance_converter(_layouts.layout)
to_memory_format = _instance_converter(_layouts.memory_format)
_CONVERTERS.update(Layout=to_layout, MemoryFormat=to_memory_format)


def to_generator(x):
    if isinstance(x, _Generator):
        return x
    raise Mismatch


_CONVERTERS["Generator"] = to_generator
register_type_name(_Generator, "torch._C.Generator")


def is_int_like(x) -> bool:
    """Whether ``x`` starts a varargs int list (``zeros(2, 3)``)."""
    tx = type(x)
    if tx is int:
        return True
    if tx is tuple or tx is list or tx is float or tx is str:
        return False
    try:
        to_symint(x)
        return True
    except Mismatch:
        return False


def factory_requires_grad(result):
    """A factory's ``requires_grad=True`` (torch's ``set_requires_grad``, whose message
    differs from ``Tensor.requires_grad_``'s)."""
    if not (result.dtype.is_floating_point or result.dtype.is_complex):
        raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                           "gradients")
    result.requires_grad_(True)


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


def to_tensorlist_n(x, n: int):
    """Several ``out=`` tensors: a tuple or list of exactly ``n`` tensors (torch's texts)."""
    value = to_tensorlist(x)
    if len(value) != n:
        raise TypeError(f"expected tuple of {n} elements but got {len(value)}")
    return value


def _check_tensor_list_elements(typ: str, value, argnum: int) -> None:
    """torch's parser takes any list or tuple for a ``Tensor[]`` parameter and raises while
    checking its elements, naming the first that is not a tensor (``None`` is allowed in a
    ``Tensor?[]``)."""
    base = _base_type(typ)[0]
    if base not in ("Tensor[]", "Tensor?[]") or not isinstance(value, (list, tuple)):
        return
    t = _tensor_cls[0]
    for k, v in enumerate(value):
        if not (isinstance(v, t) or (v is None and base == "Tensor?[]")):
            raise TypeError(f"expected Tensor as element {k} in argument {argnum}, but got "
                            f"{tp_name(v)}")
