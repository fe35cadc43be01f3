"""torch.optim.ASGD: averaged SGD; ``eta``, ``mu`` and ``ax`` live in the state (Note
[single-tensor path] in optimizer.py)."""

from __future__ import annotations

import strided as torch

from .optimizer import (
    Optimizer,
    _as_real,
    _check_capturable,
    _check_hyperparameters,
    _get_scalar_dtype,
    _restore_step_tensors,
    _setdefault_groups,
    _single_tensor_step,
    _to_scalar,
    _use_grad_for_differentiable,
    _value,
)

__all__ = ["ASGD", "asgd"]


def _init_state(state, group, p) -> None:
    dtype = _get_scalar_dtype()
    state["step"] = torch.zeros((), device=p.device, dtype=dtype)
    state["eta"] = torch.as_tensor(_to_scalar(group["lr"]), device=p.device,
                                   dtype=dtype).clone().detach()
    state["mu"] = torch.ones((), device=p.device, dtype=dtype)
    state["ax"] = torch.zeros_like(p, memory_format=torch.preserve_format)


class ASGD(Optimizer):
    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0,
                 foreach=None, maximize=False, differentiable=False,
                 capturable=False) -> None:
        _check_hyperparameters(lr=lr, weight_decay=weight_decay)
        defaults = {"lr": lr, "lambd": lambd, "alpha": alpha, "t0": t0,
                    "weight_decay": weight_decay, "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable, "capturable": capturable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        _setdefault_groups(self, foreach=None, maximize=False, differentiable=False,
                           capturable=False)
        for group in self.param_groups:
            for p in group["params"]:
                p_state = self.state.get(p, [])
                if len(p_state) != 0:
                    for key in ("step", "eta", "mu"):
                        if not torch.is_tensor(p_state[key]):
                            p_state[key] = torch.tensor(float(p_state[key]),
                                                        dtype=_get_scalar_dtype(),
                                                        device=p.device)
        _restore_step_tensors(self)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        return _single_tensor_step(self, closure, "ASGD", _init_state,
                                   ("ax", "mu", "eta", "step"), asgd)


def asgd(params, grads, axs, mus, etas, state_steps, *, lambd, lr, t0, alpha, weight_decay,
         maximize, differentiable=False, capturable=False, **_ignored) -> None:
    """The update of ``ASGD.step`` on lists."""
    lr = _to_scalar(lr)
    for i, param in enumerate(params):
        grad = grads[i] if not maximize else -grads[i]
        mu, ax, eta, step_t = mus[i], axs[i], etas[i], state_steps[i]
        _check_capturable(capturable, param, mu, eta, step_t,
                          what="params, mus, etas, and state_steps")
        grad, param, ax = _as_real(grad), _as_real(param), _as_real(ax)
        step_t += 1
        if weight_decay != 0:
            grad = grad.add(param, alpha=weight_decay)
        eta_value = _value(eta)
        param.mul_(1 - lambd * eta_value)
        param.add_(grad, alpha=-eta_value)
        if mu.item() != 1:
            ax.add_(param.sub(ax).mul_(mu))
        else:
            ax.copy_(param)
        step = _value(step_t)
        eta.copy_(torch.as_tensor(lr / ((1 + lambd * lr * step) ** alpha)))
        mu.copy_(torch.as_tensor(1 / max(1, step - t0)))
