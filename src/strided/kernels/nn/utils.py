"""Kernels of torch.nn.utils's operators: weight normalisation.

Note [Weight norm kernels]
~~~~~~~~~~~~~~~~~~~~~~~~~~
``_weight_norm(v, g, dim)`` is a composite, as in torch: for ``dim`` the first or the
last dimension it calls the fused ``_weight_norm_interface`` (one node,
``WeightNormInterfaceBackward0``), otherwise ``v * (g / norm_except_dim(v, 2, dim))``.
The fused kernel views ``v`` as an (M, N) matrix (``dim == 0``: one norm per row;
last dim: one norm per column), accumulates the squares in the op-math type (float32
for float16 / bfloat16, whose norms stay float32 like torch's), and writes
``w = v * (g / norm)``. Its backward, per slice with ``s = sum(grad_w * v)``:
``grad_g = s / norm`` and ``grad_v = (g / norm) * grad_w - (g / norm) * grad_g / norm * v``.
"""

from __future__ import annotations

import numpy as np

from ...core import dtypes as dt
from ...core.checks import check
from ...core.tensor_impl import compute_is_contiguous, numel_of
from ..factory import empty as _empty
from ..factory import empty_strided as _empty_strided

_FLOATS = (dt.float16, dt.bfloat16, dt.float32, dt.float64)


def _is_meta(*tensors) -> bool:
    return any(t._device.type == "meta" for t in tensors)


def _opmath(dtype):
    return dt.float32 if dtype in (dt.float16, dt.bfloat16) else dtype


def _rows_cols(v, dim):
    """(M, N) and whether the norms run along rows (dim == 0) or columns (last dim)."""
    sizes = v._sizes
    if dim == 0:
        m = sizes[0]
        return m, (numel_of(sizes) // m if m else 0), True
    n = sizes[-1]
    return (numel_of(sizes) // n if n else 0), n, False


def _check_fused(name, v, dim):
    check(dim == 0 or dim == len(v._sizes) - 1,
          lambda: "fused kernels can only be applied for first or last dim")
    if v._dtype not in _FLOATS:
        raise NotImplementedError(f'"{name}" not implemented for \'{v._dtype._scalar_name}\'')


def _contiguous(t) -> bool:
    return compute_is_contiguous(t._sizes, t._strides)


def _flat(t):
    return np.ascontiguousarray(t._array()).reshape(-1)


def weight_norm_interface(v, g, dim=0):
    """(w, norms): ``w`` contiguous like ``v``, ``norms`` shaped (and strided) like ``g``."""
    w = _empty(v._sizes, v._dtype, None, v._device)
    ndtype = _opmath(g._dtype)
    norms = _empty_strided(g._sizes, g._strides, ndtype, None, g._device)
    if _is_meta(v, g):
        return w, norms
    if not numel_of(v._sizes):
        norms._array()[...] = 0
        return w, norms
    _check_fused("weight_norm_kernel", v, dim)
    m, n, rows = _rows_cols(v, dim)
    acc = _opmath(v._dtype).np
    vv = _flat(v).astype(acc, copy=False).reshape(m, n)
    gv = _flat(g).astype(acc, copy=False)
    with np.errstate(all="ignore"):
        nv = np.sqrt(np.einsum("ij,ij->i" if rows else "ij,ij->j", vv, vv))
        scale = gv / nv
        wv = vv * (scale[:, None] if rows else scale[None, :])
    np.copyto(w._array(), wv.reshape(v._sizes), casting="unsafe")
    np.copyto(norms._array(), nv.reshape(g._sizes), casting="unsafe")
    return w, norms


def weight_norm_interface_backward(grad_w, saved_v, saved_g, saved_norms, dim):
    for t, name in ((saved_v, "saved_v"), (saved_g, "saved_g"), (saved_norms, "saved_norm")):
        check(_contiguous(t), lambda name=name: f"{name} must be contiguous")
    grad_v = _empty(saved_v._sizes, saved_v._dtype, None, saved_v._device)
    grad_g = _empty(saved_g._sizes, saved_g._dtype, None, saved_g._device)
    if _is_meta(grad_w, saved_v, saved_g, saved_norms):
        return grad_v, grad_g
    if not numel_of(saved_v._sizes):
        grad_g._array()[...] = 0
        return grad_v, grad_g
    _check_fused("weight_norm_backward_kernel", saved_v, dim)
    m, n, rows = _rows_cols(saved_v, dim)
    acc = _opmath(saved_v._dtype).np
    gw = _flat(grad_w).astype(acc, copy=False).reshape(m, n)
    vv = _flat(saved_v).astype(acc, copy=False).reshape(m, n)
    gv = _flat(saved_g).astype(acc, copy=False)
    nv = _flat(saved_norms).astype(acc, copy=False)
    with np.errstate(all="ignore"):
        sums = np.einsum("ij,ij->i" if rows else "ij,ij->j", gw, vv)
        gg = sums / nv
        a = gv / nv
        b = a * gg / nv
        if rows:
            gvv = a[:, None] * gw - b[:, None] * vv
        else:
            gvv = a[None, :] * gw - b[None, :] * vv
    np.copyto(grad_v._array(), gvv.reshape(saved_v._sizes), casting="unsafe")
    np.copyto(grad_g._array(), gg.reshape(saved_g._sizes), casting="unsafe")
    return grad_v, grad_g


# -- composites (they call the public ops, so autograd records torch's graph) ---------------

def _fns():
    from ...ops._generated import torch_functions
    return torch_functions


def norm_except_dim_composite(v, pow=2, dim=0):
    nd = v.dim()
    if dim == -1:
        return v.norm(pow)
    if dim == 0:
        shape = [1] * nd
        shape[0] = v.size(0)
        return v.contiguous().view(v.size(0), -1).norm(pow, 1).view(shape)
    if dim == nd - 1:
        shape = [1] * nd
        shape[-1] = v.size(-1)
        return v.contiguous().view(-1, v.size(-1)).norm(pow, 0).view(shape)
    return _fns().norm_except_dim(v.transpose(0, dim), pow, 0).transpose(0, dim)


def weight_norm_composite(v, g, dim=0):
    check(v.device == g.device, lambda: (
        "weight_norm: expected v_in and g_in to be on the same device, but v_in is on "
        f"{v.device} and g_in is on {g.device}"))
    v = v.contiguous()
    g = g.contiguous()
    if dim == 0 or dim == v.dim() - 1:
        return _fns()._weight_norm_interface(v, g, dim)[0]
    return v * (g / _fns().norm_except_dim(v, 2, dim))


def weight_norm_differentiable_backward_composite(grad_w, saved_v, saved_g, saved_norms, dim):
    for t, name in ((grad_w, "grad_w"), (saved_v, "saved_v"), (saved_g, "saved_g"),
                    (saved_norms, "saved_norms")):
        check(t.is_contiguous(), lambda name=name: f"{name} must be contiguous")
    last = saved_v.dim() - 1
    check(dim == 0 or dim == last, lambda: "Expected dim to be the first or last dimension")
    norms = saved_norms.to(saved_g.dtype)
    bshape = [1] * saved_v.dim()
    if dim == 0:
        bshape[0] = saved_v.size(0)
        sums = (grad_w * saved_v).view(saved_v.size(0), -1).sum(1).view(bshape)
    else:
        bshape[last] = saved_v.size(last)
        sums = (grad_w * saved_v).view(-1, saved_v.size(last)).sum(0).view(bshape)
    grad_v = (saved_g / norms) * (grad_w - saved_v * (sums / (norms * norms)))
    grad_g = sums / norms
    return grad_v, grad_g
