"""``strided.autograd``: reverse-mode automatic differentiation.

    x = strided.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    y.backward()                     # x.grad == 2 * x
    strided.autograd.grad(y, x, retain_graph=True)

The pieces: ``grad_mode`` (no_grad and friends), ``graph`` (nodes, edges, saved
tensors), ``recording`` (the ``Autograd`` dispatch key's kernels, which build the graph
as ops run), ``views`` (in-place ops on views), ``engine`` (runs a graph backward),
``derivatives.yaml`` and the nodes generated from it, ``function`` (custom
``Function``\\ s), ``gradcheck`` and ``functional`` (jacobian, hessian).
"""

from __future__ import annotations

from . import anomaly_mode, engine, grad_mode, graph  # noqa: F401 - submodules
from .anomaly_mode import detect_anomaly, set_detect_anomaly
from .grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    is_multithreading_enabled,
    no_grad,
    set_grad_enabled,
    set_multithreading_enabled,
)
from .graph import SavedTensor  # noqa: F401 - torch.autograd.SavedTensor

__all__ = ["Function", "backward", "detect_anomaly", "enable_grad", "functional", "grad",
           "gradcheck", "gradgradcheck", "inference_mode", "is_grad_enabled",
           "is_inference_mode_enabled", "is_multithreading_enabled", "no_grad",
           "once_differentiable", "set_detect_anomaly", "set_grad_enabled",
           "set_multithreading_enabled"]


def _as_tuple(x):
    if x is None:
        return ()
    if isinstance(x, (list, tuple)):
        return tuple(x)
    return (x,)


def _ones_scalar(out):
    """``ones_like`` of a 0-dim CPU output, the usual loss (written out: it is made on
    every ``backward()``)."""
    from ..kernels.factory import empty
    t = empty((), out._dtype, None, out._device)
    t._array()[()] = 1
    return t


def _root_grads(outputs, grad_outputs, create_graph):
    """The gradient each output starts with: given, or ones for a scalar output."""
    from ..kernels.factory import ones_like
    grads = []
    for i, (out, g) in enumerate(zip(outputs, grad_outputs)):
        if g is None:
            if out.requires_grad:
                if out.numel() != 1:
                    raise RuntimeError("grad can be implicitly created only for scalar outputs")
                if not out._dtype.is_floating_point:
                    raise RuntimeError(
                        f"grad can be implicitly created only for real scalar outputs but got "
                        f"{out.dtype}")
                g = _ones_scalar(out) if not out._sizes and out._device.type == "cpu" \
                    else ones_like(out)
            grads.append(g)
            continue
        if not out.requires_grad:
            grads.append(g)
            continue
        if g._sizes != out._sizes:
            from ..frontend.tensor import Size
            raise RuntimeError(
                f"Mismatch in shape: grad_output[{i}] has a shape of {Size(g._sizes)!r} and "
                f"output[{i}] has a shape of {Size(out._sizes)!r}.")
        if g._dtype.is_complex != out._dtype.is_complex:
            raise RuntimeError(
                f"For complex Tensors, both grad_output and output are required to have the "
                f"same dtype. Mismatch in dtype: grad_output[{i}] has a dtype of {g.dtype} "
                f"and output[{i}] has a dtype of {out.dtype}.")
        grads.append(g)
    return grads


def _roots(outputs, grads):
    roots = []
    for i, (out, g) in enumerate(zip(outputs, grads)):
        edge = graph.gradient_edge(out)
        if edge[0] is None:
            raise RuntimeError(
                f"element {i} of tensors does not require grad and does not have a grad_fn")
        roots.append((edge, g))
    return roots


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False,
             grad_variables=None, inputs=None):
    """Sum the gradients of ``tensors`` into the ``.grad`` of the graph's leaves (only of
    ``inputs`` when given)."""
    tensors = _as_tuple(tensors)
    if grad_variables is not None:
        grad_tensors = grad_variables
    grad_tensors = _as_tuple(grad_tensors) if grad_tensors is not None else (None,) * len(
        tensors)
    if len(grad_tensors) != len(tensors):
        raise RuntimeError(f"got {len(grad_tensors)} tensors and {len(tensors)} gradients")
    if retain_graph is None:
        retain_graph = create_graph
    if inputs is not None:
        inputs = _as_tuple(inputs)
        if not inputs:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    grads = _root_grads(tensors, grad_tensors, create_graph)
    roots = _roots(tensors, grads)
    if inputs is None:
        engine.execute(roots, retain_graph, create_graph)
        return None
    for t in inputs:
        if not t.requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    capture = [_input_edge(t, i) for i, t in enumerate(inputs)]
    captured = engine.execute(roots, retain_graph, create_graph, capture=capture,
                              accumulate=True)
    for t, g in zip(inputs, captured):
        if g is not None and not t.is_leaf:      # a non-leaf input gets a .grad too
            meta = t._autograd_meta
            meta.grad = g.detach() if meta.grad is None else meta.grad + g.detach()
    return None


def _input_edge(t, i):
    if not t.requires_grad:
        raise RuntimeError("One of the differentiated Tensors does not require grad")
    return graph.gradient_edge(t)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """The gradients of ``outputs`` with respect to ``inputs`` (a tuple), without touching
    any ``.grad``."""
    outputs = _as_tuple(outputs)
    single = not isinstance(inputs, (list, tuple))
    inputs = _as_tuple(inputs)
    if allow_unused is None:
        allow_unused = materialize_grads
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when "
                         "materialize_grads=True, but got: allow_unused=False.")
    grad_outputs = _as_tuple(grad_outputs) if grad_outputs is not None else (None,) * len(
        outputs)
    if len(grad_outputs) != len(outputs):
        raise RuntimeError(f"grad requires one grad_output per output: got "
                           f"{len(grad_outputs)} and {len(outputs)}")
    if retain_graph is None:
        retain_graph = create_graph
    if is_grads_batched:
        return _batched_grad(outputs, inputs, grad_outputs, retain_graph, create_graph,
                             allow_unused, materialize_grads)
    grads = _root_grads(outputs, grad_outputs, create_graph)
    roots = _roots(outputs, grads)
    capture = [_input_edge(t, i) for i, t in enumerate(inputs)]
    result = engine.execute(roots, retain_graph, create_graph, capture=capture,
                            accumulate=False)
    final = []
    for t, g in zip(inputs, result):
        if g is None:
            if materialize_grads:
                from ..kernels.factory import zeros_like
                g = zeros_like(t)
            elif not allow_unused:
                raise RuntimeError(
                    f"The differentiated Tensor at index {len(final)} appears to not have been "
                    f"used in the graph. Set allow_unused=True if this is the desired "
                    f"behavior.")
        elif g._sizes != t._sizes:
            g = engine._sum_to(g, t._sizes)
        final.append(g)
    del single
    return tuple(final)


def _batched_grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused,
                  materialize_grads):
    """``is_grads_batched``: the first dim of each grad_output is a batch; one backward
    per batch entry, results stacked (torch vmaps this; the values are the same)."""
    from .. import stack
    n = grad_outputs[0].shape[0]
    per_input = [[] for _ in inputs]
    for b in range(n):
        gs = tuple(g[b] for g in grad_outputs)
        res = grad(outputs, inputs, gs, retain_graph=True, create_graph=create_graph,
                   allow_unused=allow_unused, materialize_grads=materialize_grads)
        for i, r in enumerate(res):
            per_input[i].append(r)
    out = []
    for rs in per_input:
        out.append(None if any(r is None for r in rs) else stack(rs))
    return tuple(out)


from . import functional  # noqa: E402
from .function import Function, once_differentiable  # noqa: E402
from .gradcheck import gradcheck, gradgradcheck  # noqa: E402

