"""``strided.autograd.functional``: ``jacobian`` and ``hessian`` of Python functions.

    jacobian(lambda x: x ** 2, x)          # diag(2x), shape x.shape + x.shape
    hessian(lambda x: (x ** 3).sum(), x)   # diag(6x)

Both are built from reverse-mode ``autograd.grad`` calls, one per output element (torch
does the same unless ``vectorize=True``, which only changes the speed).
"""

from __future__ import annotations

__all__ = ["hessian", "jacobian"]


def _as_tuple(x):
    return (tuple(x), True) if isinstance(x, (list, tuple)) else ((x,), False)


def _prepare(inputs, create_graph):
    out = []
    for t in inputs:
        if create_graph and t.requires_grad:
            out.append(t.view_as(t))
        else:
            out.append(t.detach().requires_grad_(True))
    return tuple(out)


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False,
             strategy="reverse-mode"):
    """The Jacobian of ``func`` at ``inputs``: for one input and one output a tensor of
    shape ``output.shape + input.shape``; tuples of those otherwise."""
    from .. import stack, zeros
    from . import grad, grad_mode
    if strategy != "reverse-mode":
        raise ValueError('Expected strategy to be "reverse-mode" only; forward-mode AD is '
                         'not available in strided.')
    inputs, inputs_tuple = _as_tuple(inputs)
    with grad_mode.enable_grad():
        ins = _prepare(inputs, create_graph)
        outputs, outputs_tuple = _as_tuple(func(*ins))
        jac = []
        for out in outputs:
            rows = [[] for _ in ins]
            flat = out.reshape(-1)
            for j in range(flat.numel()):
                if out.requires_grad:
                    gs = grad(flat[j], ins, retain_graph=True, create_graph=create_graph,
                              allow_unused=True)
                else:
                    gs = (None,) * len(ins)
                for k, (g, t) in enumerate(zip(gs, ins)):
                    if g is None:
                        if strict:
                            raise RuntimeError(
                                f"The output of the user-provided function is independent "
                                f"of input {k}. This is not allowed in strict mode.")
                        g = zeros(t.shape, dtype=t.dtype)
                    rows[k].append(g)
            per_input = []
            for k, t in enumerate(ins):
                if rows[k]:
                    j_ik = stack(rows[k]).reshape(tuple(out.shape) + tuple(t.shape))
                else:
                    j_ik = zeros(tuple(out.shape) + tuple(t.shape), dtype=t.dtype)
                if not create_graph:
                    j_ik = j_ik.detach()
                per_input.append(j_ik)
            jac.append(tuple(per_input))
    if not outputs_tuple and not inputs_tuple:
        return jac[0][0]
    if not outputs_tuple:
        return jac[0]
    if not inputs_tuple:
        return tuple(j[0] for j in jac)
    return tuple(jac)


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False,
            outer_jacobian_strategy="reverse-mode"):
    """The Hessian of a scalar function ``func`` at ``inputs``."""
    from . import grad
    inputs, inputs_tuple = _as_tuple(inputs)

    def gradient(*ins):
        out = func(*ins)
        if out.numel() != 1:
            raise RuntimeError("The function given to hessian should return a single Tensor "
                               "with a single element.")
        gs = grad(out, ins, create_graph=True, allow_unused=True)
        from .. import zeros_like
        return tuple(g if g is not None else zeros_like(t) for g, t in zip(gs, ins))

    res = jacobian(gradient, inputs, create_graph=create_graph, strict=strict)
    if not inputs_tuple:
        return res[0][0]
    return res
