"""Helpers for the backward formulas of the normalization ops
(autograd/derivatives/nn_normalization.yaml). Public strided ops only.

Note [Normalization backward, once or twice]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A plain ``backward()`` runs with grad mode off: the formula then calls the fused
backward operator (``native_batch_norm_backward``, ``native_layer_norm_backward``,
``native_group_norm_backward``), one closed-form NumPy kernel. Under
``create_graph=True`` grad mode is on and the formula instead spells the same closed
form out in differentiable ops, recomputing the statistics from the input, so that a
second (third...) derivative follows the graph, as torch does for group norm
(``infinitely_differentiable_native_group_norm_backward``). The backward operators
themselves, when called directly on inputs that require grad, differentiate through
that spelled-out form (``*_double_backward``).
"""

from __future__ import annotations

import strided as _s

__all__ = [
    "batch_norm_backward", "batch_norm_double_backward", "group_norm_backward",
    "group_norm_double_backward", "layer_norm_backward", "layer_norm_double_backward",
]


def _aten():
    return _s.ops.aten


# -- spelled-out backward (differentiable) ---------------------------------------------------

def _sum_dims(t, dims):
    return t.sum(dims) if dims else t


def _bn_composite(grad, input, weight, running_mean, running_var, train, eps, mask):
    nd = input.dim()
    dims = [0] + list(range(2, nd))
    shape = [1, input.shape[1]] + [1] * (nd - 2)
    if train:
        mean = input.mean(dims, keepdim=True)
        xc = input - mean
        invstd = ((xc * xc).mean(dims, keepdim=True) + eps).rsqrt()
    else:
        xc = input - running_mean.reshape(shape)
        invstd = (running_var.reshape(shape) + eps).rsqrt()
    xhat = xc * invstd
    gi = gw = gb = None
    if mask[2]:
        gb = grad.sum(dims)
    if mask[1]:
        gw = (grad * xhat).sum(dims)
    if mask[0]:
        scale = invstd if weight is None else invstd * weight.reshape(shape)
        if train:
            gi = (grad - grad.mean(dims, keepdim=True) -
                  xhat * (grad * xhat).mean(dims, keepdim=True)) * scale
        else:
            gi = grad * scale
    return gi, gw, gb


def _ln_composite(grad, input, normalized_shape, weight, eps, mask):
    nd = input.dim()
    axis = nd - len(normalized_shape)
    dims = list(range(axis, nd))
    lead = list(range(axis))
    mean = input.mean(dims, keepdim=True)
    xc = input - mean
    rstd = ((xc * xc).mean(dims, keepdim=True) + eps).rsqrt()
    xhat = xc * rstd
    gi = gw = gb = None
    if mask[2]:
        gb = _sum_dims(grad, lead)
    if mask[1]:
        gw = _sum_dims(grad * xhat, lead)
    if mask[0]:
        g = grad if weight is None else grad * weight
        gi = rstd * (g - g.mean(dims, keepdim=True) -
                     xhat * (g * xhat).mean(dims, keepdim=True))
    return gi, gw, gb


def _gn_composite(grad, grad_mean, grad_rstd, input, weight, n, c, group, eps, mask):
    nd = input.dim()
    dims = [0] + list(range(2, nd))
    shape = [1, c] + [1] * (nd - 2)
    xg = input.reshape(n, group, -1)
    d = xg.shape[-1]
    mean = xg.mean(-1, keepdim=True)
    xc = xg - mean
    rstd = ((xc * xc).mean(-1, keepdim=True) + eps).rsqrt()
    xhat = xc * rstd
    gi = gw = gb = None
    if mask[2]:
        gb = grad.sum(dims)
    if mask[1]:
        gw = (grad * xhat.reshape(input.shape)).sum(dims)
    if mask[0]:
        g = (grad if weight is None else grad * weight.reshape(shape)).reshape(n, group, -1)
        gi = rstd * (g - g.mean(-1, keepdim=True) - xhat * (g * xhat).mean(-1, keepdim=True))
        if grad_mean is not None:
            gi = gi + grad_mean.reshape(n, group, 1) / d
        if grad_rstd is not None:
            gi = gi - grad_rstd.reshape(n, group, 1) * rstd.pow(3) * xc / d
        gi = gi.reshape(input.shape)
    return gi, gw, gb


def _recovered_eps(input, dims, rstd_keepdim):
    """The eps that gave ``rstd`` (1 / rstd^2 - var), per row: the backward operators of
    layer and group norm do not take eps, their double backward needs it."""
    with _s.no_grad():
        xc = input - input.mean(dims, keepdim=True)
        return 1.0 / (rstd_keepdim * rstd_keepdim) - (xc * xc).mean(dims, keepdim=True)


def _nonzero(t) -> bool:
    return t is not None and bool((t != 0).any())


# -- first backward ------------------------------------------------------------------------

def batch_norm_backward(grad, input, weight, running_mean, running_var, save_mean, save_invstd,
                        train, eps, mask):
    if _s.is_grad_enabled():
        return _bn_composite(grad, input, weight, running_mean, running_var, train, eps, mask)
    return _aten().native_batch_norm_backward.default(
        grad, input, weight, running_mean, running_var, save_mean, save_invstd, train, eps,
        list(mask))


def layer_norm_backward(grad, input, normalized_shape, mean, rstd, weight, bias, eps, mask):
    if _s.is_grad_enabled():
        return _ln_composite(grad, input, list(normalized_shape), weight, eps, mask)
    return _aten().native_layer_norm_backward.default(
        grad, input, list(normalized_shape), mean, rstd, weight, bias, list(mask))


def group_norm_backward(grads, input, mean, rstd, weight, n, c, hxw, group, eps, mask):
    grad, grad_mean, grad_rstd = grads
    grad_mean = grad_mean if _nonzero(grad_mean) else None
    grad_rstd = grad_rstd if _nonzero(grad_rstd) else None
    if _s.is_grad_enabled() or grad_mean is not None or grad_rstd is not None:
        return _gn_composite(grad, grad_mean, grad_rstd, input, weight, n, c, group, eps, mask)
    return _aten().native_group_norm_backward.default(
        grad, input, mean, rstd, weight, n, c, hxw, group, list(mask))


# -- the backward operators' own derivatives -------------------------------------------------

def _vjp(fn, primals, needs, cotangents):
    """The gradients of ``sum(fn(*primals) * cotangents)`` for the primals whose ``needs``
    is set (None elsewhere), by differentiating ``fn``'s graph."""
    with _s.enable_grad():
        leaves = [p.detach().requires_grad_() if p is not None and need else p
                  for p, need in zip(primals, needs)]
        outs = fn(*leaves)
        pairs = [(o, g) for o, g in zip(outs, cotangents)
                 if o is not None and g is not None and o.requires_grad]
        wanted = [leaf for leaf, need in zip(leaves, needs) if need and leaf is not None]
        if not pairs or not wanted:
            return tuple(None for _ in primals)
        got = iter(_s.autograd.grad([o for o, _ in pairs], wanted, [g for _, g in pairs],
                                    allow_unused=True))
    return tuple(next(got) if need and p is not None else None
                 for p, need in zip(primals, needs))


def batch_norm_double_backward(grads, grad_out, input, weight, running_mean, running_var,
                               train, eps, output_mask, needs):
    def fn(g, x, w):
        return _bn_composite(g, x, w, running_mean, running_var, train, eps, output_mask)
    return _vjp(fn, (grad_out, input, weight), needs, grads)


def layer_norm_double_backward(grads, grad_out, input, normalized_shape, rstd, weight,
                               output_mask, needs):
    ns = list(normalized_shape)
    dims = list(range(input.dim() - len(ns), input.dim()))
    eps = _recovered_eps(input, dims, rstd)

    def fn(g, x, w):
        return _ln_composite(g, x, ns, w, eps, output_mask)
    return _vjp(fn, (grad_out, input, weight), needs, grads)


def group_norm_double_backward(grads, grad_out, input, rstd, weight, n, c, group, output_mask,
                               needs):
    with _s.no_grad():
        eps = _recovered_eps(input.reshape(n, group, -1), [-1], rstd.reshape(n, group, 1))

    def fn(g, x, w):
        return _gn_composite(g, None, None, x, w, n, c, group, eps, output_mask)
    return _vjp(fn, (grad_out, input, weight), needs, grads)
