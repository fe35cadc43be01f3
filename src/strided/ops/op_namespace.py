"""``strided.ops``: operators by name, as ``torch.ops`` has them.

``strided.ops.aten.zeros.default([2, 3])`` calls the dispatcher entry
``aten::zeros``; ``strided.ops.myns.foo(x)`` calls whichever overload of
``myns::foo`` accepts the arguments. Three small objects make this up:

- :class:`OpNamespace` (``strided.ops.myns``): a namespace; its attributes are
  the operators of that namespace.
- :class:`OpOverloadPacket` (``strided.ops.myns.foo``): all overloads of one
  name; calling it tries them in registration order.
- :class:`OpOverload` (``strided.ops.myns.foo.default``): one dispatcher entry
  (``OperatorHandle``) plus a binder for its schema.

Note [The generic binder]
~~~~~~~~~~~~~~~~~~~~~~~~~
Operators declared in ``native_functions.yaml`` get generated Python bindings;
operators defined at run time (``strided.library``) have none. :class:`Binder`
fills that gap from the parsed :class:`~strided.ops.schema.FunctionSchema`: it
matches positional and keyword arguments to the schema, fills defaults, converts
each value with the ``frontend.arg_parser`` converters, and computes the key set
as the OR of the tensor arguments' ``_keyset`` (tensor lists included). A call
without tensor arguments dispatches on its ``Device`` argument, like torch's
BackendSelect for factories, and on CPU when there is none. The kernel then gets
every argument positionally, in schema order (``handle.call(keyset, *args)``),
the calling convention the generated bindings use too. A call that fits no
overload raises torch's ``TypeError`` texts (``PySig`` / ``raise_invalid_arguments``).

Note [Keeping the caches honest]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Namespaces cache their packets and packets cache their overload lists, so a
call costs no scan of the operator table. ``strided.library`` calls
:func:`invalidate` whenever it defines or deletes an operator. Code that
registers operators with the dispatcher directly after a packet was first used
must call it too.
"""

from __future__ import annotations

import ast
import types

from ..core import dtypes as _dt
from ..core import layouts as _layouts
from ..core.devices import device as _device
from ..frontend import arg_parser as _ap
from ..frontend.arg_parser import Mismatch
from . import dispatcher
from .schema import BaseType, FunctionSchema, ListType, OptionalType

__all__ = [
    "Binder",
    "OpNamespace",
    "OpOverload",
    "OpOverloadPacket",
    "get_overload",
    "invalidate",
    "namespace",
]

_MISSING = object()

# -- converters by schema type ---------------------------------------------------------


def _pass(x):
    return x


def _list_of(convert):
    def convert_list(x):
        if isinstance(x, (list, tuple)):
            return tuple(convert(v) for v in x)
        raise Mismatch
    return convert_list


def _to_bool_list(x):
    return _list_of(_ap.to_bool)(x)


_BASE_CONVERTERS = {
    "Tensor": _ap.to_tensor, "int": _ap.to_int, "SymInt": _ap.to_int,
    "DeviceIndex": _ap.to_int, "float": _ap.to_float, "bool": _ap.to_bool,
    "SymBool": _ap.to_bool, "str": _ap.to_str, "Scalar": _ap.to_scalar,
    "ScalarType": _ap.to_dtype, "Layout": _ap.to_layout, "MemoryFormat": _ap.to_memory_format,
    "Device": _ap.to_device,
}
_LIST_CONVERTERS = {
    "Tensor": _ap.to_tensorlist, "Tensor?": _ap.to_optional_tensorlist,
    "int": _ap.to_intlist, "SymInt": _ap.to_intlist,
}


def _converter(typ):
    """The converter for a non-optional type (the optional wrapper is handled by the binder)."""
    if isinstance(typ, BaseType):
        return _BASE_CONVERTERS.get(typ.name, _pass)
    if isinstance(typ, ListType):
        elem = str(typ.elem)
        conv = _LIST_CONVERTERS.get(elem)
        if conv is _ap.to_intlist and typ.size is not None:
            size = typ.size
            return lambda x: _ap.to_intlist(x, size)
        if conv is not None:
            return conv
        inner = typ.elem
        if isinstance(inner, OptionalType):
            elem_conv = _converter(inner.elem)
            return _list_of(lambda v: None if v is None else elem_conv(v))
        return _list_of(_converter(inner))
    raise AssertionError(f"unexpected type {typ}")  # OptionalType is unwrapped by the caller


# -- defaults ---------------------------------------------------------------------------

_DTYPE_DEFAULTS = dict(_dt.ALIASES, bool=_dt.bool_)
_NAMED_DEFAULTS = {
    "contiguous_format": _layouts.contiguous_format, "preserve_format": _layouts.preserve_format,
    "channels_last": _layouts.channels_last, "channels_last_3d": _layouts.channels_last_3d,
    "strided": _layouts.strided, "sparse_coo": _layouts.sparse_coo,
    "Mean": 1, "Sum": 2,                   # at::Reduction (the losses' ``int reduction=Mean``)
}


def _default_value(text: str, typ):
    """The Python value of a schema default such as ``None``, ``[0, 1]``, ``"mean"``, ``long``."""
    if text == "None":
        return None
    base = typ.elem if isinstance(typ, OptionalType) else typ
    root = base.root.name
    if root == "ScalarType" and not isinstance(base, ListType):
        d = _DTYPE_DEFAULTS.get(text) or getattr(_dt, text, None)
        if isinstance(d, _dt.dtype):
            return d
    if text in _NAMED_DEFAULTS:
        return _NAMED_DEFAULTS[text]
    if text in ("inf", "-inf", "nan"):
        return float(text)
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text
    if isinstance(base, ListType):
        if not isinstance(value, (list, tuple)):
            value = [value] * (base.size or 1)
        return tuple(value)
    if root == "Device" and isinstance(value, str):
        return _device(value)
    if root == "float" and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    return value


# -- the binder -----------------------------------------------------------------------------

_NOT_TENSOR, _TENSOR, _TENSOR_LIST = 0, 1, 2


class _Param:
    __slots__ = ("convert", "default", "device", "kwarg_only", "name", "optional", "required",
                 "tensor")

    def __init__(self, arg, kwarg_only: bool, numbers_ok: bool = False):
        typ = arg.type
        self.name = arg.name
        self.kwarg_only = kwarg_only
        self.optional = isinstance(typ, OptionalType)
        base = typ.elem if self.optional else typ
        self.convert = _converter(base)
        if numbers_ok and typ == BaseType("Tensor"):
            # torch's numbers-as-tensors functions take a Python number here (a wrapped number)
            self.convert = _ap.to_tensor_or_number
        self.required = arg.default is None
        self.default = None if self.required else _default_value(arg.default, typ)
        if base.root.name == "Tensor":
            self.tensor = _TENSOR_LIST if isinstance(base, ListType) else _TENSOR
        else:
            self.tensor = _NOT_TENSOR
        self.device = base == BaseType("Device")


class Binder:
    """Python arguments -> (schema-ordered values, key set) for one schema (Note [The generic
    binder])."""

    __slots__ = ("device_params", "index", "n_positional", "params", "sig")

    def __init__(self, schema: FunctionSchema, display_name: str):
        args = schema.arguments
        positional = args.flat_positional
        keyword = args.flat_kwarg_only + args.out
        numbers_ok = str(schema.name.name) in _ap.NUMBERS_AS_TENSORS and \
            display_name.startswith("aten::")
        self.params = tuple([_Param(a, False, numbers_ok) for a in positional]
                            + [_Param(a, True) for a in keyword])
        self.n_positional = len(positional)
        self.index = {p.name: i for i, p in enumerate(self.params)}
        self.device_params = tuple(i for i, p in enumerate(self.params) if p.device)
        self.sig = _ap.PySig(display_name, tuple(
            (a.name, str(a.type), a.default, i >= len(positional))
            for i, a in enumerate(positional + keyword)))

    def bind(self, args: tuple, kwargs: dict):
        """Raises ``Mismatch`` when the arguments do not fit the schema."""
        params = self.params
        n = len(args)
        if n > self.n_positional:
            raise Mismatch
        values = list(args)
        if n < len(params):
            values.extend([_MISSING] * (len(params) - n))
        if kwargs:
            index = self.index
            for name, value in kwargs.items():
                i = index.get(name)
                if i is None or i < n:
                    raise Mismatch
                values[i] = value
        keyset = 0
        for i, p in enumerate(params):
            v = values[i]
            if v is _MISSING:
                if p.required:
                    raise Mismatch
                values[i] = p.default
                continue
            if v is None and p.optional:
                continue
            v = values[i] = p.convert(v)
            if p.tensor:
                keyset |= _ap.keyset_of_arg(v) if p.tensor == _TENSOR else \
                    _ap.keyset_of_list(v)
        if not keyset:
            dev = None
            for i in self.device_params:
                if values[i] is not None:
                    dev = values[i]
                    break
            keyset = _ap.keyset_of_device(dev)
        return values, keyset


def _raise_bad_call(sigs, args, kwargs):
    if len(sigs) == 1:
        sig = sigs[0]
        positional = [p[0] for p in sig.params if not p[3]][:len(args)]
        for name in kwargs:
            if name in positional:
                raise TypeError(f"{sig.name}() got multiple values for argument '{name}'")
    _ap.raise_invalid_arguments(sigs, args, kwargs)


# -- overloads, packets, namespaces ----------------------------------------------------------

class _DeletedHandle:
    """Stands in for the handle of an operator that was deleted (its library destroyed)."""

    __slots__ = ("qualname",)

    def __init__(self, qualname):
        self.qualname = qualname

    def call(self, keyset, *args):
        raise RuntimeError(f"operator {self.qualname} was deleted (the Library that defined it "
                           f"was destroyed)")

    redispatch = call


def _split(qualname: str) -> tuple[str, str, str]:
    ns, _, rest = qualname.partition("::")
    name, _, overload = rest.partition(".")
    return ns, name, overload


class OpOverload:
    """One operator overload, e.g. ``strided.ops.aten.zeros.default``; calling it binds the
    arguments to its schema and dispatches."""

    __slots__ = ("__weakref__", "_binder", "_handle", "_name", "_opname", "_overloadname",
                 "_schema", "namespace")

    def __init__(self, handle):
        self._bind_handle(handle)

    def _bind_handle(self, handle):
        self._handle = handle
        self._name = handle.qualname
        self.namespace, self._opname, overload = _split(handle.qualname)
        self._overloadname = overload or "default"
        schema = handle.schema
        self._schema = schema if isinstance(schema, FunctionSchema) else \
            FunctionSchema.parse(schema)
        self._binder = Binder(self._schema, f"{self.namespace}::{self._opname}")

    def __call__(self, /, *args, **kwargs):
        try:
            values, keyset = self._binder.bind(args, kwargs)
        except _ap.PARSE_ERRORS:
            _raise_bad_call((self._binder.sig,), args, kwargs)
        return self._handle.call(keyset, *values)

    def redispatch(self, keyset: int, /, *args):
        """Call the kernel for ``keyset`` with arguments already in schema order."""
        return self._handle.redispatch(keyset, *args)

    def name(self) -> str:
        return self._name

    @property
    def overloadpacket(self) -> OpOverloadPacket:
        return namespace(self.namespace)._packet(self._opname)

    @property
    def op(self):
        return self

    def __repr__(self):
        return f"<OpOverload(op='{self.namespace}.{self._opname}', overload=" \
               f"'{self._overloadname}')>"

    def __str__(self):
        return f"{self.namespace}.{self._opname}.{self._overloadname}"


_overloads: dict[str, OpOverload] = {}   # qualname -> the one OpOverload of that entry
_generation = [0]


def get_overload(qualname: str) -> OpOverload | None:
    """The OpOverload of dispatcher entry ``qualname`` (the same object each time), or None."""
    handle = dispatcher.find_op(qualname)
    if handle is None:
        return None
    ov = _overloads.get(qualname)
    if ov is None or ov._handle is not handle:
        if ov is None:
            ov = _overloads[qualname] = OpOverload(handle)
        else:
            ov._bind_handle(handle)
    return ov


def _qualnames(ns: str, name: str) -> list[str]:
    exact = f"{ns}::{name}"
    prefix = exact + "."
    return [q for q in dispatcher.all_ops() if q == exact or q.startswith(prefix)]


class OpOverloadPacket:
    """All overloads of one operator name, e.g. ``strided.ops.aten.zeros``."""

    __slots__ = ("__weakref__", "_cache", "_name", "_ns", "_qualified_op_name")

    def __init__(self, ns: str, name: str):
        self._ns = ns
        self._name = name
        self._qualified_op_name = f"{ns}::{name}"
        self._cache = (-1, ())

    def _all(self) -> tuple:
        gen, ovs = self._cache
        if gen != _generation[0]:
            ovs = tuple(ov for ov in map(get_overload, _qualnames(self._ns, self._name))
                        if ov is not None)
            self._cache = (_generation[0], ovs)
        return ovs

    def overloads(self) -> list[str]:
        return [ov._overloadname for ov in self._all()]

    @property
    def _schemas(self) -> dict:
        return {ov._overloadname: ov._schema for ov in self._all()}

    def __getattr__(self, overload: str) -> OpOverload:
        if overload.startswith("__"):
            raise AttributeError(overload)
        qualname = self._qualified_op_name
        if overload != "default":
            qualname = f"{qualname}.{overload}"
        ov = get_overload(qualname)
        if ov is None:
            raise AttributeError(f"The underlying op of '{self}' has no overload name "
                                 f"'{overload}'")
        return ov

    def __call__(self, /, *args, **kwargs):
        ovs = self._all()
        for ov in ovs:
            try:
                values, keyset = ov._binder.bind(args, kwargs)
            except _ap.PARSE_ERRORS:
                continue
            return ov._handle.call(keyset, *values)
        if not ovs:
            raise RuntimeError(f"operator {self._qualified_op_name} has no overloads (was its "
                               f"Library destroyed?)")
        _raise_bad_call(tuple(ov._binder.sig for ov in ovs), args, kwargs)

    def __repr__(self):
        return f"<OpOverloadPacket(op='{self._ns}.{self._name}')>"

    def __str__(self):
        return f"{self._ns}.{self._name}"


class OpNamespace(types.ModuleType):
    """``strided.ops.<ns>``: attribute access gives the packets of that namespace."""

    def __init__(self, name: str):
        super().__init__(f"strided.ops.{name}")
        self.name = name

    def _packet(self, op_name: str) -> OpOverloadPacket:
        return getattr(self, op_name)

    def __getattr__(self, op_name: str) -> OpOverloadPacket:
        if op_name.startswith("__"):
            raise AttributeError(op_name)
        if not _qualnames(self.name, op_name):
            raise AttributeError(f"'_OpNamespace' '{self.name}' object has no attribute "
                                 f"'{op_name}'")
        packet = OpOverloadPacket(self.name, op_name)
        setattr(self, op_name, packet)
        return packet

    def __dir__(self):
        names = {_split(q)[1] for q in dispatcher.all_ops() if q.startswith(self.name + "::")}
        return sorted(names)

    def __repr__(self):
        return f"<module 'strided.ops.{self.name}' from 'strided.ops'>"


_namespaces: dict[str, OpNamespace] = {}


def namespace(name: str) -> OpNamespace:
    """``strided.ops.<name>`` (also for names that ``strided.ops`` submodules shadow)."""
    ns = _namespaces.get(name)
    if ns is None:
        ns = _namespaces[name] = OpNamespace(name)
    return ns


def invalidate(qualname: str | None = None) -> None:
    """Forget cached packets and overload lists (Note [Keeping the caches honest]).

    With ``qualname``, the cached packet of that name is dropped and its OpOverload is
    re-pointed at the current dispatcher entry, or marked deleted when there is none.
    """
    _generation[0] += 1
    if qualname is None:
        for ns in _namespaces.values():
            for key in [k for k, v in vars(ns).items() if isinstance(v, OpOverloadPacket)]:
                delattr(ns, key)
        return
    ns_name, name, _ = _split(qualname)
    ns = _namespaces.get(ns_name)
    if ns is not None and isinstance(vars(ns).get(name), OpOverloadPacket) \
            and not _qualnames(ns_name, name):
        delattr(ns, name)
    ov = _overloads.get(qualname)
    if ov is not None:
        handle = dispatcher.find_op(qualname)
        if handle is None:
            del _overloads[qualname]
            ov._handle = _DeletedHandle(qualname)
        elif handle is not ov._handle:
            ov._bind_handle(handle)
