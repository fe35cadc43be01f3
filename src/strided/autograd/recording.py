"""The ``Autograd`` kernels: record a node, then re-dispatch below autograd.

Note [How an op records]
~~~~~~~~~~~~~~~~~~~~~~~~
A tensor that requires grad (a leaf with ``requires_grad=True`` or anything with a
``grad_fn``) carries the ``Autograd`` bit in its key set, so an op reaches its autograd
kernel only when some argument does; every other call goes straight to the backend
kernel, paying nothing for autograd. The autograd kernel of an op with a formula in
derivatives.yaml then:

1. returns the backend's result unchanged when grad mode is off or no differentiable
   input needs a gradient;
2. makes the op's node (``MulBackward0``), with one edge per differentiable input
   (``gradient_edge``) and the inputs' metadata, and saves what the formulas read;
3. runs the backend kernel with grad mode off (so that whatever it dispatches records
   nothing: torch's "below autograd");
4. gives each differentiable floating or complex output a ``grad_fn`` (``output_nr``
   set, the ``Autograd`` bit added), and saves the outputs the formulas read.

In-place variants (``mul_``) use their functional entry's node. They refuse a leaf that
requires grad (or a view of one), save a clone of ``self`` when a formula reads its
old value, and rebase ``self``'s history onto the new node; when ``self`` is a view, the
base's history is rebased instead (``CopySlices``, see autograd/views.py). ``out=``
variants refuse to record, as torch's do.

Ops without an entry have no autograd kernel (the key falls through); a test checks
that every op with floating outputs has an entry or is listed as non-differentiable.
"""

from __future__ import annotations

from ..core.dispatch_keys import DispatchKey
from ..core.tensor_impl import AutogradMeta, TensorImpl
from ..kernels.factory import zeros
from ..ops.dispatcher import all_ops, register_kernel
from . import anomaly_mode, grad_mode
from .graph import Node, SavedTensor, _metadata_of, gradient_edge
from .graph import _sequence as _SEQUENCE
from .views import rebase_view

__all__ = ["FormulaNode", "install", "mark_output"]

AUTOGRAD_BIT = DispatchKey.Autograd.bit
_BELOW = ~(DispatchKey.Autograd.bit | DispatchKey.ADInplaceOrView.bit)
_STATE = grad_mode.STATE


class SavedTensorList(tuple):
    """The saved elements of a ``Tensor[]`` argument."""

    __slots__ = ()


def _u(value, node):
    """A saved value as the formula sees it."""
    t = type(value)
    if t is SavedTensor:
        return value.unpack(node)
    if t is SavedTensorList:
        return [v.unpack(node) if v is not None else None for v in value]
    return value


_SAVED_ATTRS: dict = {}     # node class -> ((attribute, saved name), ...) for ``_release``


class FormulaNode(Node):
    """Base of the generated nodes: span bookkeeping for ``Tensor[]`` inputs, zero
    gradients for outputs that got none, saved values as ``_saved_<name>``."""

    __slots__ = ("_spans", "_out_meta")
    _SAVED: tuple = ()

    def __init__(self):
        # Node.__init__ written out: nodes are made on every recorded op
        self.next_functions = ()
        self._input_metadata = ()
        _SEQUENCE[0] += 1
        self._sequence_nr = _SEQUENCE[0]
        self._hooks = self._pre_hooks = self._tensor_pre_hooks = None
        self._retain_grad_hooks = self._metadata = self._anomaly_trace = None
        self._freed = False
        self._spans = None
        self._out_meta = None

    def _need(self, i: int) -> bool:
        spans = self._spans
        edges = self.next_functions
        if spans is None:
            return edges[i][0] is not None
        start, stop = spans[i]
        return any(edges[j][0] is not None for j in range(start, stop))

    def _flatten(self, results: tuple) -> tuple:
        spans = self._spans
        if spans is None:
            return results
        out = []
        for (start, stop), r in zip(spans, results):
            if stop - start == 1 and not isinstance(r, (list, tuple)):
                out.append(r)
            elif r is None:
                out.extend([None] * (stop - start))
            else:
                out.extend(r)
        return tuple(out)

    def _materialize(self, grads):
        out = list(grads)
        if self._out_meta is not None and len(out) < len(self._out_meta):
            out += [None] * (len(self._out_meta) - len(out))   # outputs no gradient reached
        for i, g in enumerate(out):
            if g is None and self._out_meta is not None and self._out_meta[i] is not None:
                sizes, dtype, device = self._out_meta[i]
                out[i] = zeros(sizes, dtype, device=device)
        return tuple(out)

    _TENSOR_VALUES: tuple = ()     # saved Tensor arguments (by name), from the codegen

    def _release(self) -> None:
        self._freed = True
        cls = type(self)
        attrs = _SAVED_ATTRS.get(cls)
        if attrs is None:
            attrs = _SAVED_ATTRS[cls] = tuple(("_s_" + name, name) for name in cls._SAVED)
        for attr, name in attrs:
            value = getattr(self, attr, None)
            t = type(value)
            if t is SavedTensor:
                value.release()
            elif t is SavedTensorList:
                for v in value:
                    if v is not None:
                        v.release()
            elif value is not None and name in self._TENSOR_VALUES:
                # a Python number given for a Tensor argument: torch saved it as a wrapped
                # number tensor, which is released like any other
                released = SavedTensor.__new__(SavedTensor)
                released._data = None
                setattr(self, attr, released)

    def __getattr__(self, name):
        if name.startswith("_saved_") and name[7:] in type(self)._SAVED:
            return _u(object.__getattribute__(self, "_s_" + name[7:]), self)
        if name.startswith("_raw_saved_") and name[11:] in type(self)._SAVED:
            return object.__getattribute__(self, "_s_" + name[11:])
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __dir__(self):
        return list(super().__dir__()) + [f"_saved_{n}" for n in self._SAVED]


# -- marking outputs -------------------------------------------------------------------------

def mark_output(t, node, output_nr: int) -> None:
    """``t`` is output ``output_nr`` of ``node``: it requires grad and has a ``grad_fn``."""
    meta = t._autograd_meta
    if meta is None:
        meta = t._autograd_meta = AutogradMeta(True)
    meta.requires_grad = True
    meta.grad_fn = node
    meta.output_nr = output_nr
    if t._base is not None:
        meta.view_version = t._vc[0]
    t._keyset |= AUTOGRAD_BIT


def _differentiable_dtype(t) -> bool:
    dtype = t._dtype
    return dtype.is_floating_point or dtype.is_complex


def _is_tensor(x) -> bool:
    return isinstance(x, TensorImpl)


# -- the kernels -----------------------------------------------------------------------------

def _below(op, args, tensor_positions):
    """Call the kernel below autograd for these arguments (with grad mode as it is)."""
    ks = 0
    for pos in tensor_positions:
        a = args[pos]
        if isinstance(a, TensorImpl):
            ks |= a._keyset
        elif type(a) in (list, tuple):
            for t in a:
                if t is not None:
                    ks |= t._keyset
        # (None, or a Python number passed for a Tensor parameter: no keys)
    # through ``redispatch``, so that dispatch hooks (strided.explain) see the call below
    return op.redispatch(ks & _BELOW, *args)


def _run_below(op, args, tensor_positions):
    # grad mode is per thread (Note [Per-thread grad mode]): one lookup of this thread's
    # attribute dict, then plain dict operations, instead of three thread-local accesses
    state = _STATE.__dict__
    prev = state["enabled"]
    state["enabled"] = False
    try:
        return _below(op, args, tensor_positions)
    finally:
        state["enabled"] = prev


class _Plan:
    """What one op's autograd kernel needs, worked out once from the schema."""

    __slots__ = ("node_cls", "diff", "saved_in", "saved_out", "out_diff", "tensor_positions",
                 "has_list", "inplace", "name", "view", "diff_positions", "saved_attrs")

    def __init__(self, op, info, inplace):
        node_cls, diff_names, saved_in, saved_out, out_diff = info
        args = _schema(op).arguments.flat_all
        pos = {a.name: i for i, a in enumerate(args)}
        self.node_cls = node_cls
        self.diff = tuple((pos[n], str(args[pos[n]].type).rstrip("?").endswith("[]"))
                          for n in diff_names)
        self.has_list = any(is_list for _, is_list in self.diff)
        self.saved_in = tuple((name, pos[arg], kind, needed_by)
                              for name, arg, kind, needed_by in saved_in)
        # (Note [Recording without lists]) the positions of the differentiable inputs, and
        # each saved value with the node attribute it goes to
        self.diff_positions = tuple(p for p, _ in self.diff)
        self.saved_attrs = tuple(("_s_" + name, p, kind, needed_by)
                                 for name, p, kind, needed_by in self.saved_in)
        self.saved_out = saved_out
        self.out_diff = out_diff
        self.tensor_positions = tuple(i for i, a in enumerate(args)
                                      if str(a.type).startswith("Tensor"))
        self.inplace = inplace
        schema = _schema(op)
        self.name = schema.name.name.base
        ret = schema.returns[0].annotation if schema.returns else None
        self.view = ret is not None and not ret.is_write and not inplace


# Note [Recording without lists]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# Every op a model runs records a node, so recording is on the hot path of a training step
# (six nodes in the forward of a two-layer MLP). Most ops take no ``Tensor[]`` argument: for
# them the edges are found by one loop over the differentiable positions (a leaf's
# ``AccumulateGrad`` read straight from its weak reference when it is alive, a non-view's
# ``grad_fn`` straight from its meta), and a saved value is needed when one of the edges of
# the inputs whose formulas read it is live, read off the edges without ``_need`` calls. Ops
# with lists, and views with a history (whose ``grad_fn`` may need refreshing), take the
# general code (``gradient_edge``, ``_need``), which gives the same answers.

def _edges(plan, args):
    if plan.has_list:
        return _edges_general(plan, args)
    edges = []
    metas = []
    live = False
    for pos in plan.diff_positions:
        a = args[pos]
        if a is None or not isinstance(a, TensorImpl):
            edges.append(_NO_EDGE)
            metas.append(None)
            continue
        if a._keyset & AUTOGRAD_BIT:
            meta = a._autograd_meta
            fn = meta.grad_fn
            if fn is not None:
                e = (fn, meta.output_nr) if a._base is None else gradient_edge(a)
            elif meta.requires_grad:
                ref = meta.grad_accumulator
                acc = ref() if ref is not None else None
                e = (acc, 0) if acc is not None else gradient_edge(a)
            else:
                e = _NO_EDGE
            if e[0] is not None:
                live = True
        else:
            e = _NO_EDGE
        edges.append(e)
        metas.append((a._sizes, a._dtype, a._device))
    return live, edges, metas, None


def _edges_general(plan, args):
    edges = []
    metas = []
    spans = [] if plan.has_list else None
    live = False
    for pos, is_list in plan.diff:
        a = args[pos]
        if is_list:
            start = len(edges)
            for t in a:
                if t is None:
                    edges.append((None, 0))
                    metas.append(None)
                    continue
                e = gradient_edge(t)
                live = live or e[0] is not None
                edges.append(e)
                metas.append(_metadata_of(t))
            spans.append((start, len(edges)))
            continue
        if spans is not None:
            spans.append((len(edges), len(edges) + 1))
        if a is None or not _is_tensor(a):
            edges.append((None, 0))
            metas.append(None)
            continue
        if a._keyset & AUTOGRAD_BIT:
            meta = a._autograd_meta
            fn = meta.grad_fn
            if fn is not None and a._base is None:       # (gradient_edge, the common case)
                e = (fn, meta.output_nr)
            else:
                e = gradient_edge(a)
            live = live or e[0] is not None
        else:
            e = _NO_EDGE
        edges.append(e)
        metas.append((a._sizes, a._dtype, a._device))
    return live, edges, metas, spans


_NO_EDGE = (None, 0)


def _save_inputs(plan, node, args):
    """Save what the formulas of the inputs that need a gradient read (``node``'s edges
    are set already; Note [Recording without lists])."""
    edges = node.next_functions
    spans = node._spans
    for attr, pos, kind, needed_by in plan.saved_attrs:
        if spans is None:
            for i in needed_by:
                if edges[i][0] is not None:
                    break
            else:
                continue
        else:
            for i in needed_by:
                if node._need(i):
                    break
            else:
                continue
        a = args[pos]
        if kind == "value":
            if _is_tensor(a):
                if plan.inplace and pos == 0:
                    a = a.clone()        # recorded: double backward sees its history
                value = SavedTensor(a)
            elif type(a) in (list, tuple) and a and all(_is_tensor(t) or t is None for t in a):
                value = SavedTensorList(SavedTensor(t) if t is not None else None for t in a)
            else:
                value = a
        elif a is None:
            value = None
        elif type(a) in (list, tuple):
            value = tuple(_meta_value(t, kind) for t in a)
        elif kind == "sizes":
            value = a._sizes
        elif kind == "strides":
            value = a._strides
        else:
            value = _meta_value(a, kind)
        setattr(node, attr, value)


def _meta_value(t, kind):
    if kind == "sizes":
        return t._sizes
    if kind == "strides":
        return t._strides
    if kind == "storage_offset":
        return t._offset
    if kind == "dtype":
        return t._dtype
    if kind == "numel":
        n = 1
        for s in t._sizes:
            n *= s
        return n
    if kind == "dim":
        return len(t._sizes)
    return t._device


def _finish(plan, node, out, edges, metas, spans):
    # (``_new_node`` set the edges and spans)
    node._input_metadata = tuple(metas)
    if plan.out_diff is None and isinstance(out, TensorImpl):
        # one tensor output: the common case, written out
        dtype = out._dtype
        if dtype.is_floating_point or dtype.is_complex:
            mark_output(out, node, 0)
        if plan.saved_out:
            _save_outputs(plan, node, (out,))
        if _ANOMALY["enabled"]:
            anomaly_mode.record_trace(node)
        return
    outs = out if type(out) is tuple or (isinstance(out, tuple) and not _is_tensor(out)) \
        else (out,)
    out_meta = []
    for i, o in enumerate(outs):
        if not _is_tensor(o):
            out_meta.append(None)
            continue
        out_meta.append(_metadata_of(o))
        if (plan.out_diff is None or plan.out_diff[i]) and _differentiable_dtype(o):
            mark_output(o, node, i)
    if len(outs) > 1:
        node._out_meta = tuple(out_meta)
    _save_outputs(plan, node, outs)
    if _ANOMALY["enabled"]:
        anomaly_mode.record_trace(node)


def _save_outputs(plan, node, outs):
    need = node._need
    for name, index, needed_by in plan.saved_out:
        for i in needed_by:
            if need(i):
                setattr(node, "_s_" + name, SavedTensor(outs[index], is_output=True, node=node))
                break


_ANOMALY = anomaly_mode._STATE


def _new_node(plan, args, edges, spans):
    """The op's node with its edges, and what the formulas of its live edges read saved
    (before the op runs: an in-place op overwrites ``self``)."""
    node = plan.node_cls()
    node.next_functions = tuple(edges)
    node._spans = spans
    _save_inputs(plan, node, args)
    return node


def _functional_kernel(op, plan):
    positions = plan.tensor_positions

    def autograd_kernel(*args):
        if not _STATE.enabled:
            out = _below(op, args, positions)
            if plan.view:
                _note_view_creation(out, args[0], None)
            return out
        live, edges, metas, spans = _edges(plan, args)
        if not live:
            return _run_below(op, args, positions)
        node = _new_node(plan, args, edges, spans)
        out = _run_below(op, args, positions)
        if out is args[0] and plan.tensor_positions and plan.tensor_positions[0] == 0:
            return out            # an identity (``x.conj()`` of a real x): no node, as torch
        _finish(plan, node, out, edges, metas, spans)
        if plan.view:
            _note_view_creation(out, args[0], node)
        return out

    autograd_kernel.__qualname__ = f"autograd_kernel[{op.qualname}]"
    return autograd_kernel


# Note [Views that refuse in-place ops]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# torch remembers how a view of a tensor that requires grad was made (its "creation
# meta") and refuses in-place ops on two kinds: outputs of an op that returns several
# views (split, unbind, chunk...: their shared node cannot be rebased for one of them),
# and views made under no_grad (whether the change should be tracked is ambiguous). A
# view of such a view inherits the refusal. ``creation_meta`` is ``("multi", owner,
# output_nr)`` or ``("no_grad",)``; a no_grad view gets the Autograd key so that its
# in-place ops reach ``check_inplace``.

def _note_view_creation(out, base, node):
    if isinstance(out, (list, tuple)):
        if node is not None and len(out) > 1:
            owner = _short_node_name(node.name())
            for i, o in enumerate(out):
                if isinstance(o, TensorImpl) and o._autograd_meta is not None:
                    o._autograd_meta.creation_meta = ("multi", owner, i)
            return
        for o in out:
            _note_view_creation(o, base, node)
        return
    if not isinstance(out, TensorImpl) or out is base:
        return
    inherited = base._autograd_meta.creation_meta if base._autograd_meta is not None \
        else None
    if node is None:
        if not base.requires_grad and inherited is None:
            return
        meta = out._autograd_meta
        if meta is None:
            meta = out._autograd_meta = AutogradMeta(False)
        meta.creation_meta = inherited or ("no_grad",)
        out._keyset |= AUTOGRAD_BIT
    elif inherited is not None and out._autograd_meta is not None:
        if inherited[0] == "multi":        # torch then names the newest view's node
            inherited = ("multi", _short_node_name(node.name()), 0)
        out._autograd_meta.creation_meta = inherited


def _short_node_name(name):
    import re
    return re.sub(r"Backward\d*$", "", name)


_MULTI_OUTPUT_VIEW = (
    "Output {nr} of {owner} is a view and is being modified inplace. This view is the output "
    "of a function that returns multiple views. Such functions do not allow the output views "
    "to be modified inplace. You should replace the inplace operation by an out-of-place one.")
_NO_GRAD_VIEW = (
    "A view was created in no_grad mode and is being modified inplace with grad mode enabled. "
    "Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify "
    "your code by moving both the view and the inplace either both inside the no_grad block "
    "(if you don't want the inplace to be tracked) or both outside (if you want the inplace "
    "to be tracked).")

_LEAF_INPLACE = "a leaf Variable that requires grad is being used in an in-place operation."
_VIEW_OF_LEAF_INPLACE = ("a view of a leaf Variable that requires grad is being used in an "
                         "in-place operation.")


def check_inplace(self) -> None:
    """torch's refusals for an in-place op on a leaf that requires grad, or a view of one."""
    if not _STATE.enabled:
        return
    meta = self._autograd_meta
    creation = meta.creation_meta if meta is not None else None
    if creation is not None:       # Note [Views that refuse in-place ops]
        if creation[0] == "multi":
            raise RuntimeError(_MULTI_OUTPUT_VIEW.format(nr=creation[2], owner=creation[1]))
        raise RuntimeError(_NO_GRAD_VIEW)
    base = self._base
    if base is not None:
        bmeta = base._autograd_meta
        if bmeta is not None and bmeta.requires_grad and bmeta.grad_fn is None:
            raise RuntimeError(_VIEW_OF_LEAF_INPLACE)
    if meta is not None and meta.requires_grad and meta.grad_fn is None and base is None:
        raise RuntimeError(_LEAF_INPLACE)


# In-place view ops (t_, squeeze_...) change only the geometry of the tensor they are called
# on: torch records their node as that tensor's new grad_fn, also when it is a view (no
# CopySlices: the base's memory and history are unchanged).  (fix by shape helper)
_INPLACE_VIEW_OPS = frozenset({"t_", "transpose_", "squeeze_", "unsqueeze_", "as_strided_",
                               "swapdims_", "swapaxes_"})


def _inplace_kernel(op, plan):
    positions = plan.tensor_positions
    # (fix by shape helper)
    inplace_view = op.qualname.split("::")[-1].split(".")[0] in _INPLACE_VIEW_OPS

    def autograd_kernel(*args):
        if not _STATE.enabled:
            return _below(op, args, positions)
        self = args[0]
        check_inplace(self)
        live, edges, metas, spans = _edges(plan, args)
        if not live:
            return _run_below(op, args, positions)
        node = _new_node(plan, args, edges, spans)
        out = _run_below(op, args, positions)
        if self._base is not None and not inplace_view:
            node._input_metadata = tuple(metas)
            rebase_view(self, node)
            _save_outputs(plan, node, (self,))
            if _ANOMALY["enabled"]:
                anomaly_mode.record_trace(node)
        else:
            _finish(plan, node, out, edges, metas, spans)
        return out

    autograd_kernel.__qualname__ = f"autograd_kernel[{op.qualname}]"
    return autograd_kernel


def _out_kernel(op, name):
    schema = _schema(op)
    args = schema.arguments.flat_all
    positions = tuple(i for i, a in enumerate(args) if str(a.type).startswith("Tensor"))

    def autograd_kernel(*args):
        if _STATE.enabled:
            for pos in positions:     # the inputs, then the out= tensors (torch checks both)
                a = args[pos]
                items = a if type(a) in (list, tuple) else (a,)
                for t in items:
                    if _is_tensor(t) and t._keyset & AUTOGRAD_BIT and t.requires_grad:
                        raise RuntimeError(
                            f"{name}(): functions with out=... arguments don't support "
                            f"automatic differentiation, but one of the arguments requires "
                            f"grad.")
        return _below(op, args, positions)

    autograd_kernel.__qualname__ = f"autograd_kernel[{op.qualname}]"
    return autograd_kernel


def _passthrough_kernel(op):
    positions = _tensor_positions(op)

    def autograd_kernel(*args):
        return _below(op, args, positions)
    autograd_kernel.__qualname__ = f"autograd_kernel[{op.qualname}]"
    return autograd_kernel


def _is_inplace_schema(schema) -> bool:
    a = schema.arguments
    return (a.self_arg is not None and a.self_arg.is_write and not a.out)


def install(formulas: dict) -> int:
    """Register an autograd kernel for each op with a formula, its in-place variant and its
    out= variants. Returns how many kernels were registered."""
    ops = all_ops()
    bases = {qualname.split("::")[1].split(".")[0] for qualname in formulas}
    by_base: dict = {}
    for qualname, op in ops.items():
        name = qualname.split("::")[1].split(".")[0]
        if name in bases or name.rstrip("_") in bases:
            by_base.setdefault(_schema(op).name.name.base, []).append(op)
    count = 0
    for qualname, info in formulas.items():
        op = ops.get(qualname)
        if op is None:
            continue
        inplace = _is_inplace_schema(_schema(op))
        plan = _Plan(op, info, inplace)
        kernel = _inplace_kernel(op, plan) if inplace else _functional_kernel(op, plan)
        register_kernel(qualname, DispatchKey.Autograd, kernel)
        count += 1
        if inplace:
            continue
        base = _schema(op).name.name.base
        for other in by_base.get(base, ()):
            if other is op or other.qualname in formulas or not _same_inputs(op, other):
                continue
            if _schema(other).arguments.out:
                if info[4] is not None and not any(info[4]):
                    # no output is differentiable: torch's out= variant neither refuses
                    # inputs that require grad nor records anything (histc.out)
                    register_kernel(other.qualname, DispatchKey.Autograd,
                                    _passthrough_kernel(other))
                else:
                    register_kernel(other.qualname, DispatchKey.Autograd,
                                    _out_kernel(other, base))
                count += 1
            elif _is_inplace_schema(_schema(other)):
                register_kernel(other.qualname, DispatchKey.Autograd,
                                _inplace_kernel(other, _Plan(other, info, True)))
                count += 1
    return count


_schemas: dict = {}


def _schema(op):
    """The parsed schema of ``op`` (the dispatcher keeps its text)."""
    parsed = _schemas.get(op.qualname)
    if parsed is None:
        from ..ops.schema import FunctionSchema
        text = op.schema if isinstance(op.schema, str) else str(op.schema)
        parsed = _schemas[op.qualname] = FunctionSchema.parse(text.split("::", 1)[-1])
    return parsed


def _same_inputs(op, other) -> bool:
    a = [(x.name, str(x.type)) for x in _schema(op).arguments.flat_non_out]
    b = [(x.name, str(x.type)) for x in _schema(other).arguments.flat_non_out]
    return a == b


# -- ops without a formula ---------------------------------------------------------------------

class NotImplementedNode(Node):
    """The grad_fn of an output of an op that has no formula: backward through it fails
    with torch's message instead of silently dropping the gradient."""

    __slots__ = ("op_name",)

    def __init__(self, op_name):
        super().__init__()
        self.op_name = op_name

    def name(self) -> str:
        return "torch::autograd::NotImplemented"

    def apply(self, grads):
        raise RuntimeError(f"derivative for {self.op_name} is not implemented")


_positions_cache: dict = {}


def _tensor_positions(op):
    pos = _positions_cache.get(op.qualname)
    if pos is None:
        args = _schema(op).arguments.flat_all
        pos = _positions_cache[op.qualname] = tuple(
            i for i, a in enumerate(args) if str(a.type).startswith("Tensor"))
    return pos


def _input_positions(op):
    key = ("inputs", op.qualname)
    pos = _positions_cache.get(key)
    if pos is None:
        schema = _schema(op)
        outs = {a.name for a in schema.arguments.out}
        pos = _positions_cache[key] = tuple(
            i for i, a in enumerate(schema.arguments.flat_all)
            if str(a.type).startswith("Tensor") and a.name not in outs)
    return pos


_NO_OUT, _FACTORY_OUT, _INPUTS_OUT = 0, 1, 2


def _out_kind(op) -> int:
    """Whether ``op`` has out= tensors, and whether they are its only tensors (``arange``,
    ``zeros``, ``rand``... with ``out=``: torch refuses an out= tensor that requires grad)
    or it has tensor inputs too: those reaching the fallback are the ops torch needs no
    derivative for (``eq``, ``argmax``, ``nonzero``), which run and record nothing, whatever
    requires grad."""
    key = ("out_kind", op.qualname)
    kind = _positions_cache.get(key)
    if kind is None:
        schema = _schema(op)
        if not schema.arguments.out:
            kind = _NO_OUT
        elif any(str(a.type).startswith("Tensor") for a in schema.arguments.flat_non_out):
            kind = _INPUTS_OUT
        else:
            kind = _FACTORY_OUT
        _positions_cache[key] = kind
    return kind


# ops with tensor inputs and no derivatives.yaml row at all in torch (rather than one that
# marks the output non-differentiable): their out= form records a NotImplemented node too
_NOT_IMPLEMENTED_OUT = frozenset({"aten::floor_divide"})

# factories whose out= form torch writes through resize_, which refuses first
_OUT_RESIZES = frozenset({"aten::randn", "aten::empty"})


def _refuse_out_requiring_grad(op, args, positions) -> None:
    """torch's fallback refuses a factory's out= tensor that requires grad (the op named
    with its namespace: ``aten::arange()``)."""
    for pos in positions:
        a = args[pos]
        for t in a if type(a) in (list, tuple) else (a,):
            if _is_tensor(t) and t._keyset & AUTOGRAD_BIT and t.requires_grad:
                name = op.qualname.split(".")[0]
                if name in _OUT_RESIZES:
                    raise RuntimeError("cannot resize variables that require grad")
                raise RuntimeError(
                    f"{name}(): functions with out=... arguments don't support automatic "
                    f"differentiation, but one of the arguments requires grad.")


def autograd_fallback(op, *args):
    """The ``Autograd`` fallback of every op without a formula (Note [How an op records])."""
    positions = _tensor_positions(op)
    if not _STATE.enabled:
        return _below(op, args, positions)
    out_kind = _out_kind(op)
    if out_kind == _FACTORY_OUT:
        _refuse_out_requiring_grad(op, args, positions)
    elif out_kind == _INPUTS_OUT and op.qualname.split(".")[0] not in _NOT_IMPLEMENTED_OUT:
        return _below(op, args, positions)
    # (fix by indexing helper) an in-place op (scatter_ with reduce=) changes self: as in
    # torch's fallback, self then gets a NotImplemented node as its history (edge 0 is its
    # old history), instead of silently keeping the history it had before the change
    inplace = _is_inplace_schema(_schema(op)) and _is_tensor(args[0])
    edges = []
    metas = []
    for pos in positions:
        a = args[pos]
        items = a if type(a) in (list, tuple) else (a,)
        for t in items:
            if inplace and t is args[0]:
                continue
            if _is_tensor(t) and t._keyset & AUTOGRAD_BIT:
                e = gradient_edge(t)
                if e[0] is not None:
                    edges.append(e)
                    metas.append(_metadata_of(t))
    if inplace:
        self = args[0]
        self_edge = gradient_edge(self) if self._keyset & AUTOGRAD_BIT else (None, 0)
        if self_edge[0] is not None or edges:
            check_inplace(self)
            if _differentiable_dtype(self):
                out = _run_below(op, args, positions)
                node = NotImplementedNode(op.qualname.split(".")[0])
                node.next_functions = (self_edge,) + tuple(edges)
                node._input_metadata = (_metadata_of(self),) + tuple(metas)
                if self._base is not None:
                    rebase_view(self, node)
                else:
                    mark_output(self, node, 0)
                return out
    out = _run_below(op, args, positions)
    if not edges:
        return out
    outs = out if type(out) is tuple else (out,)
    inputs = _input_positions(op)
    node = None
    for i, o in enumerate(outs):
        # an output that is one of the inputs is not new (out= tensors are: they get the
        # node, as in torch)
        if _is_tensor(o) and _differentiable_dtype(o) and not any(o is args[p] for p in
                                                                  inputs):
            if node is None:
                node = NotImplementedNode(op.qualname.split(".")[0])
                node.next_functions = tuple(edges)
                node._input_metadata = tuple(metas)
            mark_output(o, node, i)
    return out


# ops torch refuses outright on a tensor that requires grad
_REFUSED = {
    "aten::resize_": "cannot resize variables that require grad",
    "aten::resize_as_": "cannot resize variables that require grad",
}


def _refusing_kernel(op, message):
    positions = _tensor_positions(op)

    def autograd_kernel(*args):
        if args[0].requires_grad:
            raise RuntimeError(message)
        return _below(op, args, positions)
    autograd_kernel.__qualname__ = f"autograd_kernel[{op.qualname}]"
    return autograd_kernel


def install_fallback() -> None:
    """The fallback for ops without a formula, and the kernels of the ops torch refuses."""
    from ..ops.dispatcher import BoxedFallback, register_fallback
    register_fallback(DispatchKey.Autograd, BoxedFallback(autograd_fallback))
    ops = all_ops()
    for qualname, message in _REFUSED.items():
        if qualname in ops:
            register_kernel(qualname, DispatchKey.Autograd,
                            _refusing_kernel(ops[qualname], message))
