"""Helpers for the backward formulas of the torch.nn.utils operators
(autograd/derivatives/nn_utils.yaml). Public, differentiable strided ops only."""

from __future__ import annotations

import strided as _s

__all__ = ["weight_norm_interface_grads", "derivative_not_implemented", "matrix_exp_grad",
           "householder_product_grads"]


def weight_norm_interface_grads(grad, v, g, norms, dim):
    """(grad_v, grad_g) of ``w = v * g / norms``: the fused kernel, or its differentiable
    composite when the backward itself is recorded (create_graph), as torch chooses."""
    if grad is None:
        return None, None
    if _s.is_grad_enabled():
        return _s.ops.aten._weight_norm_differentiable_backward(grad.contiguous(), v, g, norms, dim)
    return _s.ops.aten._weight_norm_interface_backward(grad.contiguous(), v, g, norms, dim)



def derivative_not_implemented(name):
    raise NotImplementedError(f"the derivative for '{name}' is not implemented.")


def matrix_exp_grad(self, grad):
    """exp(A)'s adjoint derivative: the upper-right block of exp([[A^H, G], [0, A^H]])."""
    n = self.size(-1)
    ah = self.mH
    top = _s.cat([ah, grad], -1)
    bottom = _s.cat([_s.zeros_like(ah), ah], -1)
    return _s.linalg.matrix_exp(_s.cat([top, bottom], -2))[..., :n, n:]


def householder_product_grads(grad, result, input, tau):
    """(grad_input, grad_tau) of Q = H_0 ... H_{k-1} E (E: the identity's first n columns,
    H_i = I - tau_i v_i v_i^H). With a_i = (H_0 ... H_{i-1})^H G and P_{i+1} =
    H_{i+1} ... H_{k-1} E, W_i = a_i P_{i+1}^H is the gradient of H_i, so
    grad tau_i = -v^H W v and grad v_i = -conj(tau_i) W v - tau_i W^H v, each with
    matrix-vector products only."""
    if grad is None:
        return None, None
    if input.numel() == 0 or tau.numel() == 0:     # torch's formula: no gradient at all
        return None, None
    m, n = input.size(-2), input.size(-1)
    k = tau.size(-1)
    eye = _s.eye(m, dtype=input.dtype, device=input.device)
    below = _s.ones(m, n, dtype=_s.bool, device=input.device).tril(-1)
    vs = []
    for i in range(k):
        col = _s.where(below[:, i], input[..., :, i], _s.zeros((), dtype=input.dtype))
        vs.append(col + eye[:, i])
    # P_{i+1} for every i, from the right: P_k = E, P_i = H_i P_{i+1}
    p = [None] * (k + 1)
    p[k] = eye[:, :n].expand(*input.shape[:-2], m, n)
    for i in range(k - 1, -1, -1):
        v = vs[i]
        t = tau[..., i, None, None]
        p[i] = p[i + 1] - t * v.unsqueeze(-1) * (v.conj().unsqueeze(-2) @ p[i + 1])
    a = grad
    grad_tau, grad_v = [], []
    for i in range(k):
        v = vs[i]
        t = tau[..., i]
        ph_v = (p[i + 1].mH @ v.unsqueeze(-1)).squeeze(-1)          # P^H v   (n)
        ah_v = (a.mH @ v.unsqueeze(-1)).squeeze(-1)                 # a^H v   (n)
        w_v = (a @ ph_v.unsqueeze(-1)).squeeze(-1)                  # W v     (m)
        wh_v = (p[i + 1] @ ah_v.unsqueeze(-1)).squeeze(-1)          # W^H v   (m)
        grad_tau.append(-(v.conj() * w_v).sum(-1))
        grad_v.append(-t.conj().unsqueeze(-1) * w_v - t.unsqueeze(-1) * wh_v)
        # a_{i+1} = H_i^H a_i
        a = a - t.conj()[..., None, None] * v.unsqueeze(-1) * (v.conj().unsqueeze(-2) @ a)
    gtau = _s.stack(grad_tau, -1) if k else _s.zeros_like(tau)
    if k:
        gv = _s.stack(grad_v, -1)
        gv = _s.where(below[:, :k], gv, _s.zeros((), dtype=gv.dtype))
        if k < n:
            gv = _s.cat([gv, gv.new_zeros(*gv.shape[:-1], n - k)], -1)
    else:
        gv = _s.zeros_like(input)
    return gv, gtau
