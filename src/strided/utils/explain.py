"""``strided.explain``: record the path each call takes down through the layers.

The seeds walk one line of PyTorch code by hand: the binding, the argument parser's
overloads, the dispatcher's key, the kernel, the allocator, the view arithmetic,
TensorIterator's decisions, the frees. ``explain`` shows that walk for any code, live::

    >>> import strided as torch
    >>> with torch.explain() as ex:
    ...     res = torch.rand(3, 4)[0] + torch.rand(3, 4)
    >>> print(ex)                                     # doctest: +SKIP
    line 2  res = torch.rand(3, 4)[0] + torch.rand(3, 4)
    ▸ torch.rand → aten::rand(SymInt[] size, *, ScalarType? dtype=None, ...)
        args  size=[3, 4]  dtype=None  ...
        key   CPU  (CPU from the device argument (default cpu))
        kernel strided.kernels.random.rand  [registered for CPU]
        · empty  sizes=(3, 4) strides=(4, 1) dtype=float32 nbytes=48
          + alloc 64 B at 0x55d0...
        · uniform_  from=0.0 to=1.0 generator=default CPU generator (MT19937)
        = tensor(3, 4) float32 cpu
    ...
    >>> [s.kind for s in ex.record][:2]               # doctest: +SKIP
    ['call', 'index']
    >>> ex2 = torch.explain("t = torch.rand(3, 4); t[0] + 1")   # the same, from a string

``ex.record`` is the list of top-level steps (dataclasses with ``to_dict()``),
``ex.to_json()`` the JSON form, ``str(ex)`` the tree (coloured only on a terminal
without ``NO_COLOR``), ``ex.walk()`` every step depth-first with its depth, and
``ex.path()`` the steps' short labels in order (what the tests compare with the seeds).

Note [Tracing by swapping]
~~~~~~~~~~~~~~~~~~~~~~~~~~
Nothing in the library tests whether tracing is on. Starting a trace installs
three kinds of observers, and stopping it removes them, so that an untraced call
runs exactly the code it ran before (the benchmark case "explain off: tiny a + b"
measures it):

- a dispatcher hook (``add_dispatch_hook``, Note [Hooks cost nothing when off] in
  ops/dispatcher.py): every operator call, with its key and kernel;
- an allocator hook (``core.allocator.add_hook``): every allocation and free;
- *probes*: module-level helpers that the kernels call by their global name
  (``factory.empty``, ``random._uniform``, ``views.make_view``, the indexing front end's
  ``getitem`` / ``setitem`` / ``apply_slicing`` / ``copy_to``, the elementwise fast
  paths) and ``TensorIteratorConfig.build`` are replaced, in every ``strided`` module
  that bound them, by wrappers that record a step; the originals are put back when
  the trace stops. A kernel looks a global name up at call time, so the swap is seen
  at once, and nothing remains of it afterwards.

The observers are process-wide, but an explanation records only the thread that opened
it: every other thread's calls go through them unrecorded (``Explanation._paused``).

Note [Where a call came from]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
The dispatcher hook sees the operator, not the Python function that called it. The
binding is the caller's frame (``sys._getframe(2)`` from the hook): its code object
is looked up among the functions of ``strided``, ``Tensor``, ``strided.linalg`` and
``strided.nn.functional``; generated operator methods share one code object per
shape (``Tensor.__add__`` and ``Tensor.__mul__`` are both ``_binary.<locals>.method``),
so the closure's cells decide between them. The argument parser has already chosen an
overload when the binding calls the dispatcher: the operator handle *is* the overload
(``aten::add.Tensor`` vs ``aten::add.Scalar``), and its schema names the arguments.

Note [Why this dispatch key]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~
The hook receives the key already computed. The explanation rebuilds the reasons:
each tensor argument contributes its key-set bits (``CPU`` from its device,
``Autograd`` when it requires grad or is a view of one that does), a factory's backend
comes from its ``device`` argument; the operator's mask drops keys whose entry is a
fallthrough (Note [Fallthrough masks]); when the key is lower than the highest bit
left, the caller excluded keys above it (the autograd kernel redispatching below
itself, or a factory made "like" a tensor).
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import linecache
import os
import sys
import threading
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Call", "Explanation", "Index", "Inner", "Iterator", "Memory", "explain"]

_PKG_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# -- the record -------------------------------------------------------------------------------

@dataclass
class Step:
    """A node of the tree. ``kind`` names the layer; ``children`` are the steps inside it."""

    kind: str = dataclasses.field(init=False, default="step")

    def label(self) -> str:
        return self.kind

    def to_dict(self) -> dict:
        out: dict = {"kind": self.kind}
        for f in dataclasses.fields(self):
            if f.name == "kind" or f.name.startswith("_"):
                continue
            value = getattr(self, f.name)
            if f.name == "children":
                value = [c.to_dict() for c in value]
            out[f.name] = value
        return out


@dataclass
class Call(Step):
    """One dispatched operator call (Note [Where a call came from], [Why this dispatch key])."""

    op: str = ""                     # the overload: "aten::add.Tensor"
    schema: str = ""                 # its schema, as the argument parser matched it
    binding: str = ""                # "Tensor.__add__", "torch.rand", or the calling kernel
    source: str | None = None        # "line 1: res = ..." for top-level calls
    args: dict = field(default_factory=dict)
    dispatch_key: str = ""
    key_reasons: list = field(default_factory=list)
    kernel: str = ""
    registered_for: str = ""         # the key or alias key (CompositeImplicitAutograd...)
    result: Any = None
    view: dict | None = None         # sizes / strides / storage_offset of a view result
    version_bumps: list = field(default_factory=list)
    error: str | None = None
    children: list = field(default_factory=list)
    _frame_id: int = 0
    _vcs: list = field(default_factory=list)

    def __post_init__(self):
        self.kind = "call"

    def label(self) -> str:
        return self.op


@dataclass
class Index(Step):
    """``t[idx]`` or ``t[idx] = v`` through the indexing front end (seed 000)."""

    op: str = ""                     # "getitem" | "setitem"
    binding: str = ""                # "Tensor.__getitem__"
    source: str | None = None
    self: Any = None
    index: str = ""
    items: list = field(default_factory=list)
    value: Any = None
    ran: list = field(default_factory=list)   # which of select/slice/.../index_put_ ran
    result: Any = None
    error: str | None = None
    children: list = field(default_factory=list)

    def __post_init__(self):
        self.kind = "index"

    def label(self) -> str:
        return self.binding


@dataclass
class Inner(Step):
    """A step inside a kernel: ``empty``, ``uniform_``, ``as_strided``, ``applySlicing``..."""

    name: str = ""
    details: dict = field(default_factory=dict)
    source: str | None = None        # set when the step is top-level (``torch.tensor``)
    children: list = field(default_factory=list)

    def __post_init__(self):
        self.kind = "inner"

    def label(self) -> str:
        return self.name


@dataclass
class Iterator(Step):
    """What TensorIterator decided (Notes [Output strides], [Coalescing])."""

    operands: list = field(default_factory=list)
    broadcast_shape: list = field(default_factory=list)
    common_dtype: str | None = None
    output_strides: list | None = None
    fast_setup: bool = False
    permutation: list | None = None
    loop_shape: list = field(default_factory=list)
    loop_strides: list = field(default_factory=list)
    children: list = field(default_factory=list)

    def __post_init__(self):
        self.kind = "iterator"

    def label(self) -> str:
        return "TensorIterator"


@dataclass
class Memory(Step):
    """One allocation or free seen by the allocator."""

    event: str = ""                  # "alloc" | "free"
    nbytes: int = 0
    ptr: int = 0
    device: str = "cpu"
    source: str | None = None
    children: list = field(default_factory=list)

    def __post_init__(self):
        self.kind = "memory"

    def label(self) -> str:
        return self.event


_STEP_TYPES = {"call": Call, "index": Index, "inner": Inner, "iterator": Iterator,
               "memory": Memory}


def step_from_dict(d: dict) -> Step:
    """Rebuild a step from ``to_dict()`` output (the JSON form round-trips)."""
    d = dict(d)
    cls = _STEP_TYPES[d.pop("kind")]
    d["children"] = [step_from_dict(c) for c in d.get("children", [])]
    return cls(**d)


# -- summaries (never dispatch: only private attributes are read) -------------------------

def _tensor_cls():
    from ..frontend.tensor import Tensor
    return Tensor


def summarize(value, depth: int = 0):
    """A JSON-able summary: tensors as shape/dtype/device, scalars as values."""
    from ..core.tensor_impl import TensorImpl
    if isinstance(value, TensorImpl):
        out = {"tensor": list(value._sizes), "dtype": _dtype_name(value._dtype),
               "device": str(value._device)}
        if value._strides is not None and value._strides != _contiguous(value._sizes):
            out["strides"] = list(value._strides)    # (compressed sparse tensors have none)
        if value._offset:
            out["storage_offset"] = value._offset
        meta = value._autograd_meta
        if meta is not None and getattr(meta, "requires_grad", False):
            out["requires_grad"] = True
        return out
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if value == value and abs(value) != float("inf") else repr(value)
    if isinstance(value, complex):
        return repr(value)
    if isinstance(value, (list, tuple)) and depth < 2:
        if len(value) > 16:
            return [summarize(v, depth + 1) for v in value[:16]] + ["..."]
        return [summarize(v, depth + 1) for v in value]
    if isinstance(value, slice):
        parts = ["" if p is None else str(p) for p in (value.start, value.stop)]
        return ":".join(parts) + (f":{value.step}" if value.step is not None else "")
    if value is Ellipsis:
        return "..."
    text = str(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _dtype_name(d) -> str:
    return str(d).replace("torch.", "")


def _contiguous(sizes):
    from ..core.tensor_impl import contiguous_strides
    return contiguous_strides(sizes)


def _fmt_value(v) -> str:
    if isinstance(v, dict) and "tensor" in v:
        s = f"tensor{tuple(v['tensor'])} {v['dtype']}"
        if v.get("device") != "cpu":
            s += f" {v['device']}"
        if "strides" in v:
            s += f" strides={tuple(v['strides'])}"
        if v.get("storage_offset"):
            s += f" offset={v['storage_offset']}"
        if v.get("requires_grad"):
            s += " requires_grad"
        return s
    if isinstance(v, list):
        return "[" + ", ".join(_fmt_value(x) for x in v) + "]"
    return repr(v) if isinstance(v, str) and v != "..." else str(v)


# -- schemas: argument names per overload ------------------------------------------------------

_arg_names_cache: dict = {}


def _arg_names(op) -> list:
    names = _arg_names_cache.get(op.qualname)
    if names is None:
        try:
            from ..ops.schema import FunctionSchema
            schema = FunctionSchema.parse(op.schema) if isinstance(op.schema, str) else op.schema
            names = [a.name for a in schema.arguments.flat_all]
        except Exception:   # a user-defined schema the parser does not take: positions
            names = []
        _arg_names_cache[op.qualname] = names
    return names


# -- bindings (Note [Where a call came from]) --------------------------------------------------

_binding_map: dict | None = None


def _build_binding_map() -> dict:
    import strided
    from strided import linalg
    from strided.nn import functional as F
    tensor_ns: dict = {}
    for klass in reversed(_tensor_cls().__mro__):
        tensor_ns.update(vars(klass))
    spaces = [("Tensor", tensor_ns), ("torch", vars(strided)),
              ("torch.linalg", vars(linalg)), ("torch.nn.functional", vars(F))]
    out: dict = {}
    for prefix, ns in spaces:
        for name, obj in list(ns.items()):
            if isinstance(obj, (staticmethod, classmethod)):
                obj = obj.__func__
            elif isinstance(obj, property):
                obj = obj.fget
            code = getattr(obj, "__code__", None)
            if code is not None:
                out.setdefault(code, []).append((f"{prefix}.{name}", obj))
    return out


def _binding_of(frame) -> str:
    global _binding_map
    if _binding_map is None:
        _binding_map = _build_binding_map()
    code = frame.f_code
    candidates = _binding_map.get(code)
    if candidates:
        if len(candidates) == 1:
            return candidates[0][0]
        if code.co_freevars:
            cells = [frame.f_locals.get(n) for n in code.co_freevars]
            for label, fn in candidates:
                closure = fn.__closure__ or ()
                try:
                    if all(c.cell_contents is v for c, v in zip(closure, cells)):
                        return label
                except ValueError:
                    continue
        dunder = [lbl for lbl, _ in candidates if lbl.split(".")[-1].startswith("__")]
        return (dunder or [candidates[0][0]])[0]
    module = frame.f_globals.get("__name__", "")
    if module.startswith("strided."):
        module = module[len("strided."):]
    return f"{module}.{code.co_qualname}" if module else code.co_qualname


def _user_source(frame) -> str | None:
    """"line N: text" of the first frame outside the strided package."""
    while frame is not None:
        filename = frame.f_code.co_filename
        if not os.path.abspath(filename).startswith(_PKG_DIR):
            line = linecache.getline(filename, frame.f_lineno).strip()
            return f"line {frame.f_lineno}: {line}" if line else f"line {frame.f_lineno}"
        frame = frame.f_back
    return None


def _frame_ids(frame) -> set:
    ids = set()
    while frame is not None:
        ids.add(id(frame))
        frame = frame.f_back
    return ids


# -- the tracer ----------------------------------------------------------------------------

_active: list = []       # the Explanation being recorded (one at a time)
_code_counter = itertools.count(1)


class Explanation:
    """The record of one ``explain`` session; a context manager that records while open."""

    def __init__(self, *, pictures: bool = False):
        self.record: list = []
        self.pictures: list = []     # (label, svg text) per view, when pictures=True
        self.pictures_error: str | None = None
        self._pictures = pictures
        self._stack: list = []
        self._pause_count = 0
        self._thread = threading.get_ident()
        self._undo: list = []
        self._view_count = 0
        self.namespace: dict | None = None   # the globals the code ran in (explain(code))

    # -- context manager ------------------------------------------------------------------

    @property
    def _paused(self) -> bool:
        """Whether to let a call through unrecorded: while the explanation itself works
        (pictures), and for every thread but the one recording (the hooks and probes are
        process-wide; another thread's calls are not part of this explanation)."""
        return bool(self._pause_count) or threading.get_ident() != self._thread

    def __enter__(self) -> Explanation:
        if _active:
            raise RuntimeError("strided.explain: an explanation is already being recorded")
        self._thread = threading.get_ident()
        _active.append(self)
        try:
            self._install()
        except BaseException:
            self._uninstall()
            _active.remove(self)
            raise
        return self

    def __exit__(self, exc_type, exc, tb):
        self._uninstall()
        _active.remove(self)
        for node in self._stack:
            if getattr(node, "error", None) is None and hasattr(node, "error") and exc:
                node.error = f"{exc_type.__name__}: {exc}"
        self._stack.clear()
        return False

    def _install(self):
        from ..core.allocator import add_hook
        from ..ops.dispatcher import add_dispatch_hook
        self._undo.append(add_dispatch_hook(self._on_dispatch))
        self._undo.append(add_hook(self._on_memory, "cpu"))
        self._undo.append(add_hook(self._on_memory, "meta"))
        self._undo.extend(_install_probes(self))

    def _uninstall(self):
        while self._undo:
            self._undo.pop()()

    # -- recording ------------------------------------------------------------------------

    def _container(self) -> list:
        stack = self._stack
        if stack and any(isinstance(n, Call) for n in stack):
            # a kernel that raised never reported back: drop calls whose frame is gone
            alive = _frame_ids(sys._getframe(2))
            while stack and isinstance(stack[-1], Call) and stack[-1]._frame_id not in alive:
                node = stack.pop()
                if node.error is None:
                    node.error = "raised"
        return stack[-1].children if stack else self.record

    def _on_dispatch(self, op, key, args):
        if self._paused:
            return None
        caller = sys._getframe(2)
        container = self._container()
        top = not self._stack
        names = _arg_names(op)
        summary = {}
        vcs = []
        for i, a in enumerate(args):
            name = names[i] if i < len(names) else f"arg{i}"
            summary[name] = summarize(a)
            for t in _tensors_in(a):
                vcs.append((name, t._vc, t._vc[0]))
        kernel_fn = op.table[key.value]
        registered = op.resolved_key(key) if key.value else None
        node = Call(op=op.qualname, schema=op.schema if isinstance(op.schema, str)
                    else str(op.schema), binding=_binding_of(caller),
                    source=_user_source(caller) if top else None, args=summary,
                    dispatch_key=key.name, key_reasons=_key_reasons(op, key, args, names),
                    kernel=_kernel_name(kernel_fn),
                    registered_for=registered.name if registered is not None else key.name)
        node._frame_id = id(caller)
        node._vcs = vcs
        container.append(node)
        self._stack.append(node)

        def done(result):
            self._finish_call(node, args, result)
        return done

    def _finish_call(self, node, args, result):
        stack = self._stack
        if node in stack:
            while stack and stack[-1] is not node:
                stack.pop()
            stack.pop()
        node.result = summarize(result)
        node._frame_id = 0
        for name, vc, before in node._vcs:
            if vc[0] != before:
                entry = {"arg": name, "before": before, "after": vc[0]}
                if entry not in node.version_bumps:
                    node.version_bumps.append(entry)
        node._vcs = []
        from ..core.tensor_impl import TensorImpl
        if isinstance(result, TensorImpl) and not any(result is a for a in args):
            for a in args:
                if isinstance(a, TensorImpl) and a._storage is result._storage and \
                        "_sparse" not in result.__dict__:    # (sparse tensors own none)
                    node.view = {"sizes": list(result._sizes), "strides": list(result._strides),
                                 "storage_offset": result._offset,
                                 "of": {"sizes": list(a._sizes), "strides": list(a._strides),
                                        "storage_offset": a._offset},
                                 "shares_storage": True}
                    if self._pictures:
                        self._picture(node, result)
                    break

    def _picture(self, node, t):
        self._pause_count += 1
        try:
            from .. import viz
            self._view_count += 1
            label = f"{self._view_count:02d}_{node.op.split('::')[-1]}"
            self.pictures.append((label, viz.storage_map(t).svg()))
        except Exception as e:   # viz missing or failing must not break the explanation
            self.pictures_error = f"{type(e).__name__}: {e}"
        finally:
            self._pause_count -= 1

    def _on_memory(self, event, nbytes, ptr, device):
        if self._paused:
            return
        top = not self._stack
        container = self._container()
        node = Memory(event=event, nbytes=nbytes, ptr=ptr, device=str(device.type))
        if top:
            node.source = _user_source(sys._getframe(1))
        container.append(node)

    def _open(self, node):
        container = self._container()
        container.append(node)
        self._stack.append(node)

    def _close(self, node):
        stack = self._stack
        if node in stack:
            while stack and stack[-1] is not node:
                stack.pop()
            stack.pop()

    # -- reading --------------------------------------------------------------------------

    def walk(self):
        """Every step, depth first, as (depth, step)."""
        def rec(steps, depth):
            for s in steps:
                yield depth, s
                yield from rec(s.children, depth + 1)
        yield from rec(self.record, 0)

    def path(self) -> list:
        """The steps' labels in order: ``['torch.rand', 'aten::rand', 'empty', 'alloc', ...]``
        (a call contributes its binding, then its operator)."""
        out = []
        for _, s in self.walk():
            if isinstance(s, Call):
                out.append(s.binding)
            out.append(s.label())
        return out

    def views(self) -> list:
        return [s for _, s in self.walk() if isinstance(s, Call) and s.view is not None]

    def to_dict(self) -> dict:
        return {"steps": [s.to_dict() for s in self.record]}

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent)

    def render(self, color: bool | None = None) -> str:
        if color is None:
            color = _want_color(sys.stdout)
        return _render(self.record, color)

    def __str__(self) -> str:
        return self.render()

    def __repr__(self) -> str:
        return f"<Explanation: {len(self.record)} top-level steps>"


def _tensors_in(value):
    from ..core.tensor_impl import TensorImpl
    if isinstance(value, TensorImpl):
        yield value
    elif isinstance(value, (list, tuple)):
        for v in value:
            if isinstance(v, TensorImpl):
                yield v


def _kernel_name(fn) -> str:
    import functools
    if isinstance(fn, functools.partial):
        fn = fn.func
    name = getattr(fn, "__qualname__", None) or repr(fn)
    module = getattr(fn, "__module__", None)
    return f"{module}.{name}" if module else name


def _key_reasons(op, key, args, names) -> list:
    """Note [Why this dispatch key]."""
    from ..core.dispatch_keys import DispatchKey
    reasons = []
    union = 0
    for i, a in enumerate(args):
        name = names[i] if i < len(names) else f"arg{i}"
        for t in _tensors_in(a):
            ks = t._keyset
            union |= ks
            for k in DispatchKey:
                if k.value and k.value < 20 and ks & k.bit:
                    why = _why_bit(k, t)
                    reasons.append(f"{k.name} from {name} ({why})")
    if not union:
        device = None
        for i, a in enumerate(args):
            if i < len(names) and names[i] == "device":
                device = a
        where = f"device={device}" if device is not None else "default device cpu"
        reasons.append(f"{key.name} from the device argument ({where})")
        return reasons
    masked = union & op.mask
    dropped = [k.name for k in DispatchKey if k.value and k.value < 20 and union & k.bit
               and not masked & k.bit]
    if dropped:
        reasons.append(f"fallthrough for this op: {', '.join(dropped)}")
    if masked and masked.bit_length() > key.value:
        reasons.append(f"keys above {key.name} excluded by the caller (a redispatch below "
                       f"them)")
    return reasons


def _why_bit(k, t) -> str:
    from ..core.dispatch_keys import DispatchKey
    if k in (DispatchKey.CPU, DispatchKey.CUDA, DispatchKey.Meta, DispatchKey.PrivateUse1):
        return f"on {t._device}"
    if k is DispatchKey.Autograd:
        meta = t._autograd_meta
        if meta is not None and getattr(meta, "requires_grad", False):
            return "requires grad"
        return "part of an autograd graph"
    if k is DispatchKey.ADInplaceOrView:
        return "may be viewed or written in place under autograd"
    return "key-set bit"


def _want_color(stream) -> bool:
    if os.environ.get("NO_COLOR") is not None:
        return False
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


# -- probes (Note [Tracing by swapping]) --------------------------------------------------------

def _replace_everywhere(original, replacement) -> list:
    """Rebind every ``strided`` module global that is ``original``; returns the sites."""
    sites = []
    for name, mod in list(sys.modules.items()):
        if mod is None or not (name == "strided" or name.startswith("strided.")):
            continue
        ns = getattr(mod, "__dict__", None)
        if not ns:
            continue
        for key, value in list(ns.items()):
            if value is original:
                ns[key] = replacement
                sites.append((ns, key))
    return sites


def _install_probes(ex: Explanation) -> list:
    from ..frontend import indexing
    from ..kernels import elementwise, factory, random, tensor_iterator, views
    undo = []

    def swap(module, attr, make):
        original = getattr(module, attr)
        wrapper = make(original)
        sites = _replace_everywhere(original, wrapper)

        def restore():
            for ns, key in sites:
                if ns.get(key) is wrapper:
                    ns[key] = original
        undo.append(restore)

    def inner(name, details_of):
        def make(original):
            def probe(*args, **kwargs):
                if ex._paused:
                    return original(*args, **kwargs)
                node = Inner(name=name, details=details_of(args, kwargs, None))
                if not ex._stack:
                    node.source = _user_source(sys._getframe(1))
                ex._open(node)
                try:
                    result = original(*args, **kwargs)
                    extra = details_of(args, kwargs, result)
                    if extra:
                        node.details.update(extra)
                    return result
                finally:
                    ex._close(node)
            return probe
        return make

    def empty_details(args, kwargs, result):
        if result is None:
            return {}
        return {"sizes": list(result._sizes), "strides": list(result._strides),
                "dtype": _dtype_name(result._dtype),
                "device": str(result._device), "nbytes": result._storage.nbytes(),
                "storage": "StorageImpl(nbytes, allocator) -> TensorImpl(sizes, strides)"}

    def uniform_details(args, kwargs, result):
        if result is not None:
            return {}
        from ..kernels.random import _gen
        gen = _gen(args[3] if len(args) > 3 else None)
        which = "default CPU generator" if args[3:4] in ((), (None,)) else "given generator"
        return {"self": summarize(args[0]), "from": args[1], "to": args[2],
                "generator": f"{which} (MT19937, seed {_seed_of(gen)})"}

    def view_details(args, kwargs, result):
        if result is None:
            return {}
        return {"sizes": list(args[1]), "strides": list(args[2]), "storage_offset": args[3],
                "of": summarize(args[0]), "copies": 0}

    def slicing_details(args, kwargs, result):
        if result is None:
            return {"items": [summarize(i) for i in args[1]]}
        view, advanced = result
        return {"view": summarize(view),
                "advanced_indices": None if advanced is None else
                [summarize(a) for a in advanced]}

    def copy_to_details(args, kwargs, result):
        if result is not None:
            return {}
        dst, src = args
        how = ("copy_ (same shape)" if dst._sizes == src._sizes else
               "fill_ (0-dim value)" if not src._sizes else "expand, then copy_")
        return {"dst": summarize(dst), "src": summarize(src), "how": how}

    def tensor_details(args, kwargs, result):
        if result is None:
            data = args[0] if args else kwargs.get("data")
            text = repr(data)
            return {"data": text if len(text) <= 60 else text[:59] + "…",
                    "how": "dtype and shape inferred from the nested data, then an empty "
                           "tensor filled (torch.tensor is not a dispatched operator)"}
        return {"result": summarize(result)}

    from ..frontend import tensor_new
    swap(tensor_new, "tensor", inner("torch.tensor", tensor_details))
    swap(factory, "empty", inner("empty", empty_details))
    swap(factory, "new_strided", inner("empty_strided", empty_details))
    swap(random, "_uniform", inner("uniform_", uniform_details))
    swap(random, "_uniform_fresh", inner("uniform_", uniform_details))
    # The suffix-broadcast fast path (x + bias) computes what the iterator would, but the
    # seeds' example (rand(3, 4)[0] + rand(3, 4)) is there to show TensorIterator
    # broadcasting: while explaining, broadcasts take the iterator.
    swap(elementwise, "_fast_suffix_broadcast", lambda original: lambda *args: None)
    swap(views, "make_view", inner("as_strided", view_details))
    swap(indexing, "apply_slicing", inner("applySlicing", slicing_details))
    swap(indexing, "copy_to", inner("copy_to", copy_to_details))

    def fast(name):
        def make(original):
            def probe(*args):
                result = original(*args)
                if result is not None and result is not False and not ex._paused:
                    details = {"what": f"{name}: row-major operands of one shape and dtype, "
                                       f"no TensorIterator (Note [Fast paths])"}
                    if result is not True:
                        details["result"] = summarize(result)
                    ex._container().append(Inner(name="fast path", details=details))
                return result
            return probe
        return make

    for attr in ("_fast_binary", "_fast_functional", "_fast_inplace"):
        if hasattr(elementwise, attr):
            swap(elementwise, attr, fast(attr))

    def indexing_probe(kind):
        def make(original):
            def probe(self, index, *value):
                if ex._paused:
                    return original(self, index, *value)
                caller = sys._getframe(1)
                top = not ex._stack
                node = Index(op=kind, binding=f"Tensor.__{kind}__", self=summarize(self),
                             index=_index_repr(index),
                             items=[summarize(i) for i in _items_of(index)],
                             value=summarize(value[0]) if value else None,
                             source=_user_source(caller) if top else None)
                ex._open(node)
                try:
                    result = original(self, index, *value)
                    node.result = summarize(result)
                    return result
                except BaseException as e:
                    node.error = f"{type(e).__name__}: {e}"
                    raise
                finally:
                    ex._close(node)
                    node.ran = [_short(c) for c in node.children if _short(c)]
            return probe
        return make

    swap(indexing, "getitem", indexing_probe("getitem"))
    swap(indexing, "setitem", indexing_probe("setitem"))

    cfg = tensor_iterator.TensorIteratorConfig
    original_build = cfg.__dict__["build"]

    def build(config):
        if ex._paused:
            return original_build(config)
        node = Iterator()
        ex._open(node)     # the outputs it allocates nest under it
        try:
            it = original_build(config)
        finally:
            ex._close(node)
        _fill_iterator_step(node, it)
        return it
    cfg.build = build

    def restore_build():
        cfg.build = original_build
    undo.append(restore_build)
    return undo


def _seed_of(gen):
    try:
        return gen.initial_seed()
    except Exception:
        return "?"


def _items_of(index):
    return list(index) if type(index) is tuple else [index]


def _index_repr(index) -> str:
    def one(i):
        if isinstance(i, slice):
            parts = ["" if p is None else str(p) for p in (i.start, i.stop)]
            text = ":".join(parts)
            return text + (f":{i.step}" if i.step is not None else "")
        if i is Ellipsis:
            return "..."
        s = summarize(i)
        return _fmt_value(s) if isinstance(s, dict) else repr(i)
    items = _items_of(index)
    return "[" + ", ".join(one(i) for i in items) + "]"


_SHORT = {"aten::select.int": "select", "aten::slice.Tensor": "slice",
          "aten::unsqueeze": "unsqueeze", "aten::index.Tensor": "index (advanced indexing)",
          "aten::index_put_": "index_put_ (advanced indexing)", "aten::copy_": "copy_",
          "aten::fill_.Scalar": "fill_", "aten::fill_.Tensor": "fill_",
          "aten::masked_fill_.Scalar": "masked_fill_", "aten::alias": "alias",
          "aten::expand": "expand", "aten::view": "view"}


def _short(step) -> str | None:
    if isinstance(step, Call):
        return _SHORT.get(step.op, step.op)
    if isinstance(step, Inner) and step.name in ("applySlicing", "copy_to"):
        return step.name
    return None


def _fill_iterator_step(node: Iterator, it) -> None:
    ops = []
    for i, op in enumerate(it.operands):
        role = "output" if i < it.noutputs else "input"
        if op.tensor is not None:
            ops.append({"role": role, "sizes": list(op.sizes), "strides": list(op.strides),
                        "dtype": _dtype_name(op.dtype)})
        elif op.value is not None:
            ops.append({"role": role, "wrapped_number": summarize(op.value)})
    out = it.operands[0].tensor if it.noutputs else None
    node.operands = ops
    node.broadcast_shape = list(it.shape or ())
    node.common_dtype = _dtype_name(it.common_dtype) if it.common_dtype else None
    node.output_strides = list(out._strides) if out is not None else None
    node.fast_setup = bool(it.fast_setup)
    node.permutation = list(it.perm) if it.perm else None
    node.loop_shape = list(getattr(it, "iter_shape", ()) or ())
    node.loop_strides = [list(s) for s in (getattr(it, "iter_strides", ()) or ())]


# -- rendering ---------------------------------------------------------------------------------

_COLORS = {"call": "\033[1;36m", "index": "\033[1;35m", "inner": "\033[33m",
           "iterator": "\033[1;32m", "alloc": "\033[32m", "free": "\033[31m",
           "dim": "\033[2m", "source": "\033[1m", "reset": "\033[0m"}


def _render(steps, color: bool) -> str:
    def c(kind, text):
        return f"{_COLORS[kind]}{text}{_COLORS['reset']}" if color else text

    lines: list = []
    last_source = [None]

    def emit(depth, text):
        lines.append("    " * depth + text)

    def args_text(d):
        return "  ".join(f"{k}={_fmt_value(v)}" for k, v in d.items())

    def rec(step, depth):
        src = getattr(step, "source", None)
        if depth == 0 and src and src != last_source[0]:
            lines.append(c("source", src))
            last_source[0] = src
        pad = depth + 1
        if isinstance(step, Call):
            emit(depth, c("call", f"▸ {step.binding} → {step.op}") + c("dim", f"  {step.schema}"))
            emit(pad, f"args    {args_text(step.args)}")
            emit(pad, f"key     {step.dispatch_key}" +
                 (f"  ({'; '.join(step.key_reasons)})" if step.key_reasons else ""))
            emit(pad, f"kernel  {step.kernel}  [registered for {step.registered_for}]")
        elif isinstance(step, Index):
            emit(depth, c("index", f"▸ {step.binding}") + f"  t{step.index}" +
                 (f" = {_fmt_value(step.value)}" if step.op == "setitem" else ""))
            emit(pad, f"self    {_fmt_value(step.self)}")
            emit(pad, f"items   {', '.join(_fmt_value(i) for i in step.items)}")
        elif isinstance(step, Inner):
            emit(depth, c("inner", f"· {step.name}") + "  " + "  ".join(
                f"{k}={v if isinstance(v, str) else _fmt_value(v)}"
                for k, v in step.details.items()))
        elif isinstance(step, Iterator):
            emit(depth, c("iterator", "· TensorIterator") +
                 ("  (fast set-up)" if step.fast_setup else ""))
            for op in step.operands:
                emit(pad, f"{op['role']:7s} " + args_text({k: v for k, v in op.items()
                                                             if k != "role"}))
            emit(pad, f"broadcast shape {tuple(step.broadcast_shape)}  common dtype "
                      f"{step.common_dtype}  output strides "
                      f"{tuple(step.output_strides) if step.output_strides else None}")
            emit(pad, f"loop (coalesced, innermost first) shape {tuple(step.loop_shape)}  "
                      f"strides {[tuple(s) for s in step.loop_strides]}")
        elif isinstance(step, Memory):
            kind = "alloc" if step.event == "alloc" else "free"
            emit(depth, c(kind, f"{'+' if kind == 'alloc' else '-'} {step.event} "
                                f"{step.nbytes} B at {step.ptr:#x}") +
                 (f" ({step.device})" if step.device != "cpu" else ""))
        for child in step.children:
            rec(child, depth + 1)
        if isinstance(step, Call):
            if step.view is not None:
                v = step.view
                emit(pad, f"view    sizes={tuple(v['sizes'])} strides={tuple(v['strides'])} "
                          f"storage_offset={v['storage_offset']}  (same storage, no copy)")
            for b in step.version_bumps:
                emit(pad, f"version {b['arg']}: {b['before']} -> {b['after']}")
            if step.error:
                emit(pad, f"error   {step.error}")
            emit(pad, f"= {_fmt_value(step.result)}")
        elif isinstance(step, Index):
            emit(pad, f"ran     {' → '.join(step.ran) if step.ran else '(nothing)'}")
            if step.error:
                emit(pad, f"error   {step.error}")
            elif step.op == "getitem":
                emit(pad, f"= {_fmt_value(step.result)}")

    for s in steps:
        rec(s, 0)
    return "\n".join(lines)


# -- the public entry point ----------------------------------------------------------------------

def explain(code: str | None = None, *, globals: dict | None = None,
            pictures: bool = False) -> Explanation:
    """Record the path of every call: ``with strided.explain() as ex: ...`` or
    ``strided.explain("t = torch.rand(3, 4); t[0] + 1")`` (runs the code with ``torch``
    bound to strided and returns the Explanation). ``pictures=True`` also keeps an SVG
    storage map (``strided.viz``) of every view made."""
    ex = Explanation(pictures=pictures)
    if code is None:
        return ex
    if not isinstance(code, str):
        raise TypeError(f"explain(): argument 'code' must be str, not {type(code).__name__}")
    import strided
    filename = f"<explain-{next(_code_counter)}>"
    linecache.cache[filename] = (len(code), None, code.splitlines(True), filename)
    compiled = compile(code, filename, "exec")
    namespace = {"torch": strided, "__name__": "__explain__"} if globals is None else globals
    with ex:
        exec(compiled, namespace)
    ex.namespace = namespace
    return ex
