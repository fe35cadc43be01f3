"""The engine: runs the graph backward from some roots.

    execute(roots, retain_graph, create_graph, capture=None, accumulate=True)

Note [Engine order]
~~~~~~~~~~~~~~~~~~~
The engine first walks the graph from the roots and counts, for every node, how many
edges lead into it. A node is ready when all of them have delivered (its count reaches
zero); among ready nodes the one created last runs first (the highest sequence
number, as torch's CPU ready queue orders them). Gradients arriving at the same input of
a node are summed in its input buffer before it runs.

When the caller wants only some gradients (``autograd.grad`` or ``backward(inputs=)``),
nodes from which no wanted gradient can be reached are not run at all, and with
``autograd.grad`` the leaves' ``AccumulateGrad`` nodes are not run either: their
incoming gradient is captured instead.

Note [What the engine does to a gradient]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Before a gradient travels along an edge it is checked against the input metadata of
the node that produced it (Note [Input metadata] in graph.py): summed back to the
input's shape if the input was broadcast, cast to the input's dtype. A gradient whose
shape cannot be summed to the input's raises torch's "returned an invalid gradient".
Without ``create_graph`` the whole backward runs under ``no_grad``, so formulas record
nothing; with it, they record a graph of their own (double backward).

Note [Backward from several threads]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
As in torch, a backward pass runs on the thread that asked for it, and everything it
changes while it runs is that thread's: grad mode is per thread (Note [Per-thread grad
mode] in grad_mode.py; the pass sets it to ``create_graph`` and keeps the caller's
inference mode, as torch's graph task does), and the pass's buffers, counts and ready
queue are locals of ``execute``. So threads can run backward at the same time on
independent graphs, or through a graph they share (with ``retain_graph``). What they
share is the leaves: adding into a leaf's ``.grad`` holds ``_GRAD_LOCK`` (torch's
AccumulateGrad holds its node's mutex), so gradients of concurrent passes into one leaf
all arrive. Hooks run outside the lock; like torch, strided leaves their thread safety to
their author.
"""

from __future__ import annotations

import heapq
import sys
import threading
import warnings

from ..core import sparse_tensor as _sparse_tensor
from ..core.layouts import contiguous_format as _contiguous
from ..core.tensor_impl import compute_is_contiguous, contiguous_strides
from ..kernels.factory import empty_like
from ..kernels.memory_overlap import is_non_overlapping_and_dense
from . import anomaly_mode, grad_mode
from .graph import AccumulateGrad

_ANOMALY = anomaly_mode._STATE

__all__ = ["accumulate_into_leaf", "execute"]


_HANDLES: list = []


def _handles():
    """``aten::sum.dim_IntList`` and ``aten::view``: ``_sum_to`` calls them through the
    dispatcher as a binding would (autograd and hooks included), without parsing."""
    if not _HANDLES:
        from ..ops.dispatcher import get_op
        _HANDLES.extend((get_op("aten::sum.dim_IntList"), get_op("aten::view")))
    return _HANDLES


def _sum_to(grad, sizes):
    """``grad`` summed over the dims that broadcasting added to a tensor of ``sizes``."""
    sum_op, view_op = _HANDLES or _handles()
    gs = grad._sizes
    lead = len(gs) - len(sizes)
    dims = list(range(lead))
    for i, s in enumerate(sizes):
        if s == 1 and gs[lead + i] != 1:
            dims.append(lead + i)
    if dims:
        grad = sum_op.call(grad._keyset, grad, tuple(dims), True, None)
    sizes = tuple(sizes)
    if lead or grad._sizes != sizes:
        grad = view_op.call(grad._keyset, grad, sizes)
    return grad


def _expandable(sizes, target) -> bool:
    if len(sizes) > len(target):
        return False
    for s, t in zip(reversed(sizes), reversed(target)):
        if s != 1 and s != t:
            return False
    return True


def _validate(node, i, grad, metadata):
    sizes, dtype, device = metadata
    if grad._sizes != sizes:
        if not _expandable(sizes, grad._sizes):
            raise RuntimeError(
                f"Function {node.name()} returned an invalid gradient at index {i} - got "
                f"[{', '.join(map(str, grad._sizes))}] but expected shape compatible with "
                f"[{', '.join(map(str, sizes))}]")
        grad = _sum_to(grad, sizes)
    if grad._dtype is not dtype:
        if not dtype.is_complex and grad._dtype.is_complex:
            grad = grad.real
        grad = grad.to(dtype)
    return grad


def _add(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return a + b


# Note [Stealing the incoming gradient]
# The first gradient a leaf receives becomes its ``.grad``. torch adopts the incoming tensor
# itself ("steals" it) when nothing else can see it: grad mode is off, it has the leaf's
# layout, and its use count shows no other owner; otherwise it copies. Copying a large
# gradient (an embedding table's) costs a full pass, so strided steals under the same rule,
# with Python's reference counts as the use count: the engine's buffer list, the tuple
# ``apply`` receives and the parameters on the way here are the expected references
# (measured once, through a chain of calls of the same shape, by ``_expected_refs``); one
# more means a hook, a capture or another buffer holds the tensor. Its storage must have no
# other tensor on it either, save a base that only this view keeps alive.

def _refcount(x) -> int:
    return sys.getrefcount(x)


def _unshared(grad) -> tuple:
    """(references to the storage, references to the base or 0)."""
    base = grad._base
    return _refcount(grad._storage), 0 if base is None else _refcount(base)


_EXPECTED: list = []
_GRAD_LOCK = threading.Lock()      # Note [Backward from several threads]


def _probe_apply(grads):                      # shaped like AccumulateGrad.apply
    return _probe_accumulate(None, grads[0])


def _probe_accumulate(variable, grad):        # shaped like accumulate_into_leaf
    return _probe_can_steal(variable, grad)


def _probe_can_steal(variable, grad):         # shaped like _can_steal
    return _refcount(grad), _unshared(grad)


def _expected_refs(like) -> list:
    """The counts an unshared gradient shows in ``_can_steal``: its own references, and
    ``_unshared`` of a plain tensor and of a view whose base only it keeps alive. Measured
    once, on fresh tensors sent through calls of the same shape as the engine's."""
    if not _EXPECTED:
        grads = [empty_like(like)]
        count, plain = _probe_apply(tuple(grads))
        del grads
        # (a row-major probe: ``like`` may be laid out channels-last, which view(-1) refuses)
        view = empty_like(like, memory_format=_contiguous).view(-1)
        # one slice assignment: a thread measuring at the same time replaces, not extends
        _EXPECTED[:] = (count, plain, _unshared(view))
    return _EXPECTED


# Note [Gradient layout contract]
# torch's AccumulateGrad keeps a gradient's layout only where it "obeys the contract" with
# its leaf: for a non-overlapping and dense leaf, the same strides on every dim of size > 1
# (a size-1 dim may have any stride but 0); for any other leaf, a row-major gradient. A
# copy is laid out like a dense leaf, else row-major.

def _obeys_layout_contract(grad, variable) -> bool:
    vstrides = variable._strides
    if grad._strides == vstrides and vstrides == contiguous_strides(variable._sizes):
        return True       # (a row-major leaf and its row-major gradient: the common case)
    if is_non_overlapping_and_dense(variable._sizes, vstrides):
        for size, gs, vs in zip(grad._sizes, grad._strides, vstrides):
            if gs != vs if size != 1 else gs == 0:
                return False
        return True
    return compute_is_contiguous(grad._sizes, grad._strides)


def _copy_obeying_contract(variable, grad):
    if is_non_overlapping_and_dense(variable._sizes, variable._strides):
        new = empty_like(variable, dtype=grad._dtype)
    else:
        new = empty_like(variable, dtype=grad._dtype, memory_format=_contiguous)
    return new.copy_(grad)


def _can_steal(variable, grad) -> bool:
    if not _obeys_layout_contract(grad, variable) or grad._offset != variable._offset or \
            grad._dtype is not variable._dtype or grad._device is not variable._device or \
            grad._autograd_meta is not None:
        return False
    count, plain, view = _expected_refs(variable)
    if _refcount(grad) != count:
        return False
    return _unshared(grad) == (plain if grad._base is None else view)


def accumulate_into_leaf(variable, grad) -> None:
    """Add ``grad`` into ``variable.grad`` (AccumulateGrad's job). Without grad mode the
    sum is in place into the existing ``.grad``; with it (``create_graph``) it is a new
    tensor that keeps its graph. A first gradient nobody else holds is adopted as it is
    (Note [Stealing the incoming gradient])."""
    meta = variable._autograd_meta
    if grad is None:
        return
    _GRAD_LOCK.acquire()       # Note [Backward from several threads]
    try:
        old = meta.grad
        if grad_mode.STATE.enabled:   # a copy (recorded) or a sum, as torch's
            meta.grad = _copy_obeying_contract(variable, grad) if old is None else old + grad
        elif old is None:
            if "_sparse" in grad.__dict__ or "_sparse" in variable.__dict__:
                # a sparse gradient (or leaf) has no strides to lay out: keep a clone (a COO
                # gradient with contiguous members is re-wrapped, as torch's AccumulateGrad)
                meta.grad = _sparse_tensor.adopt_grad(grad)
            elif _can_steal(variable, grad):
                meta.grad = grad if grad._base is None else grad.detach()
            else:
                meta.grad = _copy_obeying_contract(variable, grad)
        elif old.requires_grad:
            meta.grad = old + grad
        else:
            old.add_(grad)
        old = None
    finally:
        _GRAD_LOCK.release()
    hooks = meta.post_accumulate_hooks
    if hooks:
        for hook in tuple(hooks):
            hook(variable)


def _run_tensor_hooks(hooks, grad):
    for hook in tuple(hooks):
        new = hook(grad)
        if new is not None:
            grad = new
    return grad


def _pre_process(node, grads: list) -> list:
    """Tensor hooks, retain_grad and the node's pre-hooks, in torch's order."""
    if type(node) is AccumulateGrad:
        hooks = node.variable._autograd_meta.hooks
        if hooks and grads and grads[0] is not None:
            grads[0] = _run_tensor_hooks(hooks, grads[0])
    tensor_hooks = node._tensor_pre_hooks
    if tensor_hooks:
        for nr, hooks in tensor_hooks.items():
            if nr < len(grads) and grads[nr] is not None:
                grads[nr] = _run_tensor_hooks(hooks, grads[nr])
    retained = node._retain_grad_hooks
    if retained:
        for nr, ref in retained.items():
            t = ref()
            if t is not None and nr < len(grads) and grads[nr] is not None:
                meta = t._autograd_meta
                g = grads[nr]
                with _GRAD_LOCK:
                    meta.grad = g.detach().clone() if meta.grad is None else meta.grad + g
    if node._pre_hooks:
        for hook in tuple(node._pre_hooks):
            new = hook(tuple(grads))
            if new is not None:
                grads = list(new)
    return grads


def _collect(roots):
    """Dependency counts of every node reachable from ``roots`` (Note [Engine order])."""
    deps: dict = {}
    seen = set()
    # a node can be the root of several edges (``grad([a, b])`` with ``a, b = x.chunk(2)``):
    # it is walked once, or its children's counts would never reach zero
    stack = list({node: None for node, _ in roots if node is not None})
    seen.update(stack)
    while stack:
        node = stack.pop()
        for nxt, _ in node.next_functions:
            if nxt is None:
                continue
            deps[nxt] = deps.get(nxt, 0) + 1
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return deps, seen


def _needed(nodes, targets) -> set:
    """Nodes from which some node of ``targets`` can be reached."""
    memo: dict = {}
    for start in nodes:
        if start in memo:
            continue
        # iterative post-order: a node is needed if it is a target or a child is needed
        stack = [(start, iter(start.next_functions))]
        memo[start] = start in targets
        while stack:
            node, children = stack[-1]
            advanced = False
            for nxt, _ in children:
                if nxt is None:
                    continue
                if nxt not in memo:
                    memo[nxt] = nxt in targets
                    stack.append((nxt, iter(nxt.next_functions)))
                    advanced = True
                    break
                if memo[nxt]:
                    memo[node] = True
            if not advanced:
                stack.pop()
                if stack and memo[node]:
                    memo[stack[-1][0]] = True
    return {n for n, need in memo.items() if need}


def execute(roots, retain_graph: bool, create_graph: bool, capture=None,
            accumulate: bool = True):
    """Run the graph backward. ``roots`` is a list of ``((node, input_nr), grad)``.
    ``capture`` is a list of edges whose incoming gradient is returned (in order; None
    where nothing arrived); with ``accumulate=False`` no ``AccumulateGrad`` runs."""
    edges = [edge for edge, _ in roots]
    deps, nodes = _collect(edges)
    buffers: dict = {}
    for (node, nr), grad in roots:
        if node is None:
            continue
        buf = buffers.setdefault(node, [])
        while len(buf) <= nr:
            buf.append(None)
        buf[nr] = _add(buf[nr], grad)
    captured = {}
    wanted = None
    if capture is not None:
        targets = {node for node, _ in capture if node is not None}
        wanted = _needed(nodes, targets)
        for edge in capture:
            captured[edge] = None
    ready = []
    for node in {node for node, _ in edges if node is not None}:
        if deps.get(node, 0) == 0:
            heapq.heappush(ready, (-node._sequence_nr, id(node), node))
    state = grad_mode.STATE            # this thread's (Note [Backward from several threads])
    prev = state.enabled
    state.enabled = create_graph
    heappush, heappop = heapq.heappush, heapq.heappop
    try:
        while ready:
            node = heappop(ready)[2]
            grads = buffers.pop(node, None)
            outputs = None
            if grads is not None and (wanted is None or node in wanted) and \
                    _any_defined(grads):
                if node._tensor_pre_hooks or node._retain_grad_hooks or node._pre_hooks or (
                        type(node) is AccumulateGrad and node.variable._autograd_meta.hooks):
                    grads = _pre_process(node, grads)
                if capture is not None:
                    for nr, g in enumerate(grads):
                        if (node, nr) in captured:
                            captured[(node, nr)] = _add(captured[(node, nr)], g)
                if accumulate or type(node) is not AccumulateGrad:
                    outputs = _apply(node, grads, retain_graph)
            n_out = 0 if outputs is None else len(outputs)
            metas = node._input_metadata
            i = -1
            for nxt, nr in node.next_functions:
                i += 1
                if nxt is None:
                    continue
                if i < n_out:
                    g = outputs[i]
                    if g is not None:
                        meta = metas[i]
                        if g._sizes != meta[0] or g._dtype is not meta[1]:
                            g = _validate(node, i, g, meta)
                        buf = buffers.get(nxt)
                        if buf is None:
                            buf = buffers[nxt] = [None] * (nr + 1)
                        elif len(buf) <= nr:
                            buf.extend([None] * (nr + 1 - len(buf)))
                        old = buf[nr]
                        buf[nr] = g if old is None else old + g
                remaining = deps[nxt] - 1
                deps[nxt] = remaining
                if not remaining:
                    heappush(ready, (-nxt._sequence_nr, id(nxt), nxt))
            g = old = None     # no stale reference (Note [Stealing the incoming gradient])
    finally:
        state.enabled = prev
    if capture is not None:
        return [captured[edge] for edge in capture]
    return None


def _any_defined(grads) -> bool:
    for g in grads:                      # (not list.count(None): that calls Tensor.__eq__)
        if g is not None:
            return True
    return False


def _apply(node, grads, retain_graph):
    # A node freed by an earlier backward runs again as long as it needs nothing it
    # dropped: as in torch, only reading a released saved tensor raises (SavedTensor.unpack,
    # Function.saved_tensors), so ``(x + 1).sum()`` can be backpropagated twice.
    try:
        outputs = node.apply(tuple(grads))
    except Exception:
        if anomaly_mode.is_enabled() and node._anomaly_trace is not None:
            warnings.warn(f"Error detected in {node.name()}. Traceback of forward call that "
                          f"caused the error:\n{node._anomaly_trace}", stacklevel=2)
        raise
    if _ANOMALY["enabled"] and _ANOMALY["check_nan"]:
        anomaly_mode.check_outputs(node, outputs)
    if node._hooks:
        # torch validates (sums to the input's shape, casts) before the post hooks run
        metas = node._input_metadata
        outputs = tuple(
            _validate(node, i, g, metas[i])
            if g is not None and i < len(metas) and metas[i] is not None
            and (g._sizes != metas[i][0] or g._dtype is not metas[i][1]) else g
            for i, g in enumerate(outputs))
        for hook in tuple(node._hooks):
            new = hook(tuple(outputs), tuple(grads))
            if new is not None:
                outputs = new
    if not retain_graph:
        node._release()
    return outputs
