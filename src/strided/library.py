"""``strided.library``: define operators and register kernels from Python, as ``torch.library``.

::

    lib = strided.library.Library("myns", "DEF")
    lib.define("scale(Tensor x, float k=2.0) -> Tensor")
    lib.impl("scale", scale_cpu, "CPU")
    lib.impl("scale", scale_meta, "Meta")
    strided.ops.myns.scale(x)           # dispatches on x's key set
    lib._destroy()                      # undoes the define and both impls

Every registration a :class:`Library` makes is recorded with the function that undoes
it; ``_destroy()`` (or the library being garbage collected) runs those in reverse, so a
test that overrides ``aten::zeros`` for CPU and then destroys its library gets the
original kernel back.

Kernels receive every argument positionally, in schema order (Note [The generic
binder] in ``ops/op_namespace.py``); this differs from torch, which passes
keyword-only arguments as keywords and leaves out trailing defaults.
"""

from __future__ import annotations

import sys
import warnings
import weakref

from .core.dispatch_keys import ALIAS_KEYS, DispatchKey
from .ops import dispatcher
from .ops import op_namespace as _opns
from .ops.op_namespace import OpOverload
from .ops.schema import FunctionSchema, SchemaError

__all__ = [
    "Library",
    "define",
    "fallthrough_kernel",
    "impl",
    "impl_abstract",
    "register_fake",
    "register_kernel",
]

K = DispatchKey

# "ns/name/dispatch_key" for every kernel registered through a live Library (torch's _impls).
_impls: set[str] = set()
# Operators defined through a live Library -> where.
_defs: dict[str, str] = {}
# Namespaces claimed by a live "DEF" library -> where.
_def_namespaces: dict[str, str] = {}
# Backend fallbacks registered through a live Library: key -> where.
_fallback_owners: dict[DispatchKey, str] = {}
_reserved_namespaces = ("prim",)
_keep_alive: list[Library] = []


def fallthrough_kernel():
    """A dummy kernel: registered with ``impl`` or ``fallback``, the key passes the call on."""
    raise NotImplementedError("fallthrough_kernel() should never be called.")


def _caller_frame():
    """The innermost frame outside this module, and how many frames up it is."""
    frame, depth = sys._getframe(1), 1
    while frame.f_back is not None and frame.f_globals.get("__name__") == __name__:
        frame, depth = frame.f_back, depth + 1
    return frame, depth


def _caller_where() -> str:
    frame, _ = _caller_frame()
    return f"{frame.f_code.co_filename}:{frame.f_lineno}"


def _parse_key(text) -> DispatchKey:
    if isinstance(text, DispatchKey):
        return text
    if isinstance(text, str):
        if text.startswith("Autograd") and text != "AutogradNonFunctional":
            return K.Autograd
        key = K.__members__.get(text)
        if key is not None and key is not K.Undefined:
            return key
    raise RuntimeError(f"could not parse dispatch key: {text}")


def _deregister_op(qualname: str, handle) -> None:
    if dispatcher.find_op(qualname) is handle:
        dispatcher.deregister_op(qualname)


class _Registrations:
    """What one Library registered: undo functions, run in reverse by ``release``."""

    __slots__ = ("impl_keys", "undos")

    def __init__(self):
        self.undos: list = []
        self.impl_keys: set[str] = set()

    def release(self):
        global _impls
        _impls -= self.impl_keys
        self.impl_keys.clear()
        while self.undos:
            self.undos.pop()()


def _boxed_fallback(fn):
    """torch calls a Python backend fallback as ``fn(op, *args)`` with an OpOverload."""
    return dispatcher.BoxedFallback(
        lambda handle, *args: fn(_opns.get_overload(handle.qualname), *args))


class _WithKeyset:
    """``impl(..., with_keyset=True)``: the kernel gets the call's key set first, masked to the
    keys at or below the one it serves (the tensor arguments' key sets)."""

    __slots__ = ("fn", "mask")

    def __init__(self, fn, key: DispatchKey):
        self.fn = fn
        self.mask = (key.bit << 1) - 1 if key not in ALIAS_KEYS else -1

    def __call__(self, *args):
        keyset = 0
        for a in args:
            ks = getattr(a, "_keyset", None)
            if ks is not None:
                keyset |= ks
            elif isinstance(a, (list, tuple)):
                for b in a:
                    keyset |= getattr(b, "_keyset", 0)
        return self.fn(keyset & self.mask, *args)


class Library:
    """A set of registrations: ``Library(ns, kind, dispatch_key="")``.

    ``kind`` is ``"DEF"`` (defines the namespace ``ns``; one per namespace),
    ``"FRAGMENT"`` (defines more operators in ``ns``) or ``"IMPL"`` (only registers
    kernels, e.g. overrides of ``aten`` kernels). ``dispatch_key`` is the default key of
    :meth:`impl`.
    """

    def __init__(self, ns, kind, dispatch_key=""):
        if kind not in ("IMPL", "DEF", "FRAGMENT"):
            raise ValueError(f"Unsupported kind: {kind}")
        if ns in _reserved_namespaces and kind in ("DEF", "FRAGMENT"):
            raise ValueError(f"{ns} is a reserved namespace. Please try creating a library "
                             f"with another name.")
        if dispatch_key:
            _parse_key(dispatch_key)
        where = _caller_where()
        self.ns = ns
        self.kind = kind
        self.dispatch_key = dispatch_key
        self._where = where
        self._regs = _Registrations()
        self._alive = True
        if kind == "DEF":
            previous = _def_namespaces.get(ns) or _builtin_namespace_source(ns)
            if previous is not None:
                raise RuntimeError(
                    f"Only a single TORCH_LIBRARY can be used to register the namespace {ns}; "
                    f"please put all of your definitions in a single TORCH_LIBRARY block.  If "
                    f"you were trying to specify implementations, consider using "
                    f"TORCH_LIBRARY_IMPL (which can be duplicated).  If you really intended to "
                    f"define operators for a single namespace in a distributed way, you can use "
                    f"TORCH_LIBRARY_FRAGMENT to explicitly indicate this.  Previous registration "
                    f"of TORCH_LIBRARY was registered at {previous}; latest registration was "
                    f"registered at {where}")
            _def_namespaces[ns] = where
            self._regs.undos.append(lambda: _def_namespaces.pop(ns, None))
        self._finalizer = weakref.finalize(self, self._regs.release)
        self._finalizer.atexit = False

    def __repr__(self):
        return f"Library(kind={self.kind}, ns={self.ns}, dispatch_key={self.dispatch_key})>"

    def _check_alive(self):
        if not self._alive:
            raise AssertionError("Library object has been destroyed")

    # -- define ----------------------------------------------------------------------------

    def define(self, schema, alias_analysis="", *, tags=()):
        """Define the operator ``ns::<name>.<overload>`` from ``schema`` (e.g.
        ``"foo(Tensor x, int k=2) -> Tensor"``); returns its name as torch does
        (without the overload)."""
        if alias_analysis not in ("", "FROM_SCHEMA", "CONSERVATIVE"):
            raise RuntimeError(f"Invalid alias_analysis type {alias_analysis}")
        self._check_alive()
        if not isinstance(schema, str):
            raise TypeError(f"define(): schema must be a str, not {type(schema).__name__}")
        where = _caller_where()
        head, paren, rest = schema.partition("(")
        ns = self.ns
        if "::" in head:
            ns, head = head.split("::", 1)
            if ns != self.ns:
                raise RuntimeError(
                    f"Explicitly provided namespace ({ns}) in schema string does not match "
                    f"namespace of enclosing TORCH_LIBRARY block ({self.ns}).  Move this "
                    f"definition to the (unique) TORCH_LIBRARY block corresponding to this "
                    f"namespace (and consider deleting the namespace from your schema string.)"
                    f"  (Error occurred while processing TORCH_LIBRARY block at {self._where})")
        if self.kind == "IMPL":
            raise RuntimeError(
                f'def("{head}"): Cannot define an operator inside of a TORCH_LIBRARY_IMPL block.'
                f"  All def()s should be placed in the (unique) TORCH_LIBRARY block for their "
                f"namespace.  (Error occurred while processing TORCH_LIBRARY_IMPL block at "
                f"{self._where})")
        try:
            parsed = FunctionSchema.parse(head + paren + rest)
        except SchemaError as e:
            raise RuntimeError(str(e)) from None
        qualname = f"{self.ns}::{parsed.name}"
        existing = dispatcher.find_op(qualname)
        if existing is not None:
            original = _defs.get(qualname, "native_functions.yaml")
            raise RuntimeError(
                f"Tried to register an operator ({self.ns}::{parsed}) with the same name and "
                f"overload name multiple times. Each overload's schema should only be "
                f"registered with a single call to def(). Duplicate registration: registered at "
                f"{where}. Original registration: registered at {original}")
        handle = dispatcher.register_op(qualname, str(parsed))
        _defs[qualname] = where
        _opns.invalidate(qualname)

        def undo():
            _deregister_op(qualname, handle)
            if _defs.get(qualname) == where:
                del _defs[qualname]
            _opns.invalidate(qualname)
        self._regs.undos.append(undo)
        name = schema.partition("(")[0].split(".")[0]
        return name

    # -- impl -------------------------------------------------------------------------------

    def _resolve_op_name(self, op_name, api_name) -> str:
        if isinstance(op_name, str):
            return op_name
        if isinstance(op_name, OpOverload):
            return op_name.name()
        raise RuntimeError(f"{api_name} should be passed either a name or an OpOverload object "
                           f"as the first argument, got {type(op_name)}")

    def _qualify(self, name: str, api_name: str) -> str:
        if "::" in name:
            ns, name = name.split("::", 1)
            if ns != self.ns:
                raise RuntimeError(
                    f'{api_name}("{ns}::{name}", ...): Explicitly provided namespace ({ns}) in '
                    f"operator name does not match namespace of enclosing TORCH_LIBRARY block "
                    f"({self.ns}).  Move this definition to the TORCH_LIBRARY block "
                    f"corresponding to this namespace (and consider deleting the namespace from "
                    f"your schema string.)  (Error occurred while processing TORCH_LIBRARY block "
                    f"at {self._where})")
        return name

    def impl(self, op_name, fn, dispatch_key="", *, with_keyset=False, allow_override=True):
        """Register ``fn`` as the kernel of ``op_name`` (``"name"``, ``"name.overload"``,
        ``"ns::name"`` or an OpOverload) for ``dispatch_key`` (the library's key, else
        ``CompositeImplicitAutograd``). ``fn`` receives the arguments in schema order;
        ``fallthrough_kernel`` makes the key pass the call on."""
        if not callable(fn):
            raise TypeError(f"Input function is required to be a callable but found type "
                            f"{type(fn)}")
        if isinstance(dispatch_key, DispatchKey):
            dispatch_key = dispatch_key.name
        if dispatch_key == "":
            dispatch_key = self.dispatch_key
        name = self._qualify(self._resolve_op_name(op_name, "impl"), "impl")
        impl_key = f"{self.ns}/{name}/{dispatch_key}"
        if not allow_override and impl_key in _impls:
            raise RuntimeError(
                f"This is not allowed since there's already a kernel registered from python "
                f"overriding {name}'s behavior for {dispatch_key} dispatch key and {self.ns} "
                f"namespace.")
        key = _parse_key(dispatch_key or "CompositeImplicitAutograd")
        qualname = f"{self.ns}::{name}"
        handle = dispatcher.find_op(qualname)
        if key is K.Meta and handle is not None \
                and handle.kernels.get(K.CompositeImplicitAutograd):
            raise RuntimeError(
                f"We should not register a meta kernel directly to the operator '{name}', "
                f"because it has a CompositeImplicitAutograd kernel in core. Instead we should "
                f"let the operator decompose, and ensure that we have meta kernels for the base "
                f"ops that it decomposes into.")
        self._check_alive()
        if handle is None:
            raise RuntimeError(f"impl(\"{qualname}\", ...): there is no operator {qualname}; "
                               f"define it first (Library.define or strided.library.define)")
        stack = handle.kernels.get(key) or []
        if stack:
            _warn_override(handle, key, stack[-1])
        kernel = dispatcher.FALLTHROUGH if fn is fallthrough_kernel else fn
        if with_keyset and kernel is not dispatcher.FALLTHROUGH:
            kernel = _WithKeyset(fn, key)
        if any(k is kernel for k in stack):
            # Each registration must be one undoable entry, so a kernel registered twice
            # gets a distinct wrapper.
            kernel = _Unique(kernel)
        undo = dispatcher.register_kernel(qualname, key, kernel)
        self._regs.undos.append(undo)
        _impls.add(impl_key)
        self._regs.impl_keys.add(impl_key)

    # -- fallback ---------------------------------------------------------------------------

    def fallback(self, fn, dispatch_key="", *, with_keyset=False):
        """Register ``fn`` as the backend fallback of ``dispatch_key`` (only on the global
        namespace ``"_"``): operators with no kernel for that key call ``fn(op, *args)``.
        ``fallthrough_kernel`` makes the key pass every such call on."""
        if dispatch_key == "":
            dispatch_key = self.dispatch_key
        if self.ns != "_":
            raise RuntimeError(f'Fallback can only be registered using library fragment on the '
                               f'global namespace "_" but it is {self.ns}')
        if dispatch_key == "":
            raise AssertionError("dispatch_key must not be empty for fallback")
        self._check_alive()
        if with_keyset:
            raise NotImplementedError("fallback(..., with_keyset=True) is not supported")
        key = _parse_key(dispatch_key)
        if key in ALIAS_KEYS:
            raise RuntimeError(f"cannot register a backend fallback for the alias key {key.name}")
        where = _caller_where()
        if key in _fallback_owners:
            raise RuntimeError(
                f"Tried to register multiple backend fallbacks for the same dispatch key "
                f"{key.name}; previous registration registered at {_fallback_owners[key]}, new "
                f"registration registered at {where}")
        kernel = dispatcher.FALLTHROUGH if fn is fallthrough_kernel else _boxed_fallback(fn)
        undo_dispatcher = dispatcher.register_fallback(key, kernel)
        _fallback_owners[key] = where

        def undo():
            undo_dispatcher()
            _fallback_owners.pop(key, None)
        self._regs.undos.append(undo)

    # -- lifetime ---------------------------------------------------------------------------

    def _destroy(self):
        """Undo every registration of this library, newest first."""
        self._alive = False
        self._finalizer()


class _Unique:
    __slots__ = ("fn",)

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, *args):
        return self.fn(*args)


def _builtin_namespace_source(ns: str) -> str | None:
    """Where namespace ``ns`` was defined if not through a Library (``aten``: the YAML)."""
    prefix = ns + "::"
    for qualname in dispatcher.all_ops():
        if qualname.startswith(prefix) and qualname not in _defs:
            return "native_functions.yaml"
    return None


def _describe(fn) -> str:
    fn = getattr(fn, "fn", fn)
    code = getattr(fn, "__code__", None)
    name = getattr(fn, "__qualname__", repr(fn))
    if code is None:
        return name
    return f"{name} at {code.co_filename}:{code.co_firstlineno}"


def _warn_override(handle, key, previous) -> None:
    source = _defs.get(handle.qualname, "native_functions.yaml")
    ns = handle.qualname.split("::")[0]
    warnings.warn(
        f"Overriding a previously registered kernel for the same operator and the same "
        f"dispatch key\n"
        f"  operator: {ns}::{handle.schema}\n"
        f"    registered at {source}\n"
        f"  dispatch key: {key.name}\n"
        f"  previous kernel: {_describe(previous)}\n"
        f"       new kernel: registered at {_caller_where()}",
        UserWarning, stacklevel=_caller_frame()[1])


# -- module-level helpers ----------------------------------------------------------------------

def _parse_namespace(qualname: str) -> tuple[str, str]:
    splits = qualname.split("::")
    if len(splits) != 2:
        raise ValueError(f'Expected `qualname` to be of the form "namespace::name", but got '
                         f"{qualname}. The qualname passed to the torch.library APIs must "
                         f"consist of a namespace and a name, e.g. aten::sin")
    return splits[0], splits[1]


def _library_for(ns: str, lib: Library | None) -> Library:
    if lib is not None:
        return lib
    lib = Library(ns, "FRAGMENT")
    _keep_alive.append(lib)
    return lib


def _is_nameless_schema(schema) -> bool:
    return isinstance(schema, str) and schema.startswith("(") and ") -> " in schema


def define(qualname, schema, *, lib=None, tags=(), alias_analysis=""):
    """Define operator ``qualname`` (``"ns::name"``) with a nameless schema such as
    ``"(Tensor x) -> Tensor"``. Without ``lib`` it lives for the rest of the process.

    The old form ``define(lib, "name(...) -> ...")`` returns a decorator that defines the
    operator and registers the decorated function as its CompositeImplicitAutograd kernel.
    """
    if isinstance(qualname, Library):
        library = qualname

        def wrap(f):
            name = library.define(schema, alias_analysis)
            library.impl(name, f)
            return f
        return wrap
    if not isinstance(qualname, str):
        raise ValueError(  # noqa: TRY004 - torch's type
            f"define(qualname, schema): expected qualname to be instance of str, got "
            f"{type(qualname)}")
    ns, name = _parse_namespace(qualname)
    use_lib = _library_for(ns, lib)
    if not _is_nameless_schema(schema):
        raise ValueError(f'define(qualname, schema, ...): expected schema to look like e.g. '
                         f'"(Tensor x) -> Tensor" but got "{schema}"')
    use_lib.define(name + schema, alias_analysis, tags=tags)


def _device_type_to_key(device_type: str) -> str:
    if device_type == "default":
        return "CompositeExplicitAutograd"
    key = {"cpu": "CPU", "cuda": "CUDA", "meta": "Meta", "privateuseone": "PrivateUse1"}.get(
        device_type)
    if key is None:
        raise RuntimeError(f"Expected one of cpu, cuda, meta, privateuseone device type at start "
                           f"of device string: {device_type}")
    return key


def _keys_for_types(types) -> list[str]:
    if isinstance(types, str):
        types = (types,)
    keys: list[str] = []
    for typ in types:
        if isinstance(typ, DispatchKey) or (typ in K.__members__ and typ != "Undefined"):
            key = typ.name if isinstance(typ, DispatchKey) else typ
        else:
            key = _device_type_to_key(typ)
        if key not in keys:
            keys.append(key)
    return keys


def impl(qualname, types, func=None, *, lib=None):
    """Register ``func`` for device types (``"cpu"``, ``"meta"``, ``"default"`` for all, or a
    dispatch key name) of operator ``qualname``; a decorator when ``func`` is omitted.

    The old form ``impl(lib, name, dispatch_key="")`` returns a decorator too.
    """
    if isinstance(qualname, Library):
        library, name, dispatch_key = qualname, types, func or ""

        def wrap_legacy(f):
            library.impl(name, f, dispatch_key)
            return f
        return wrap_legacy
    keys = _keys_for_types(types)

    def register(f):
        ns, _ = _parse_namespace(qualname if isinstance(qualname, str) else qualname.name())
        use_lib = _library_for(ns, lib)
        for key in keys:
            use_lib.impl(qualname, f, key)
        return f

    if func is None:
        return register
    register(func)
    return None


def register_kernel(op, device_types, func=None, /, *, lib=None):
    """Register ``func`` for ``device_types`` of ``op`` (``None``: every device type)."""
    if not isinstance(op, (str, OpOverload)):
        raise ValueError(  # noqa: TRY004 - torch's type
            f"register_kernel({op}): got unexpected type for op: {type(op)}")
    qualname = op if isinstance(op, str) else op.name()
    if device_types is None:
        device_types = "CompositeExplicitAutograd"
    return impl(qualname, device_types, func, lib=lib)


def register_fake(op, func=None, /, *, lib=None, _stacklevel=1, allow_override=True):
    """Register ``func`` as the fake ("meta") implementation of ``op``: the kernel for
    meta tensors. A decorator when ``func`` is omitted."""
    if not isinstance(op, (str, OpOverload)):
        raise ValueError(  # noqa: TRY004 - torch's type
            f"register_fake({op}): got unexpected type for op: {type(op)}")
    qualname = op if isinstance(op, str) else op.name()

    def register(f):
        ns, name = _parse_namespace(qualname)
        handle = dispatcher.find_op(qualname)
        if not allow_override and handle is not None:
            if handle.kernels.get(K.Meta):
                raise RuntimeError(
                    f"register_fake(...): the operator {qualname} already has a "
                    f"DispatchKey::Meta implementation via a pre-existing torch.library or "
                    f"TORCH_LIBRARY registration. Please either remove that registration or "
                    f"don't call register_fake.")
            if handle.kernels.get(K.CompositeImplicitAutograd):
                raise RuntimeError(
                    f"register_fake(...): the operator {qualname} already has an "
                    f"implementation for this device type via a pre-existing registration to "
                    f"DispatchKey::CompositeImplicitAutograd.CompositeImplicitAutograd "
                    f"operators do not need a fake impl; instead, the operator will decompose "
                    f"into its constituents and those can have fake impls defined on them.")
        use_lib = _library_for(ns, lib)
        use_lib.impl(name, f, "Meta", allow_override=allow_override)
        return f

    if func is None:
        return register
    return register(func)


def impl_abstract(qualname, func=None, *, lib=None, _stacklevel=1):
    """The old name of :func:`register_fake`."""
    warnings.warn("`torch.library.impl_abstract` was renamed to `torch.library.register_fake`. "
                  "Please use that instead; we will remove `torch.library.impl_abstract` in a "
                  "future version of PyTorch.", FutureWarning, stacklevel=2)
    return register_fake(qualname, func, lib=lib)
