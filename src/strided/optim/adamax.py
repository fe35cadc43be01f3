"""torch.optim.Adamax: Adam with the infinity norm (Note [single-tensor path] in
optimizer.py)."""

from __future__ import annotations

import strided as torch

from .optimizer import (
    Optimizer,
    _as_real,
    _check_capturable,
    _check_hyperparameters,
    _restore_step_tensors,
    _setdefault_groups,
    _single_tensor_step,
    _to_scalar,
    _use_grad_for_differentiable,
    _value,
    _zeros_state,
)

__all__ = ["Adamax", "adamax"]


_init_state = _zeros_state("exp_avg", "exp_inf")


class Adamax(Optimizer):
    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 foreach=None, *, maximize=False, differentiable=False,
                 capturable=False) -> None:
        _check_hyperparameters(lr=lr, eps=eps, betas=betas, weight_decay=weight_decay)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable, "capturable": capturable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        _setdefault_groups(self, foreach=None, maximize=False, differentiable=False,
                           capturable=False)
        _restore_step_tensors(self)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        return _single_tensor_step(self, closure, "Adamax", _init_state,
                                   ("exp_avg", "exp_inf", "step"), adamax)


def adamax(params, grads, exp_avgs, exp_infs, state_steps, *, eps, beta1, beta2, lr,
           weight_decay, maximize, differentiable=False, capturable=False,
           **_ignored) -> None:
    """The update of ``Adamax.step`` on lists."""
    lr = _to_scalar(lr)
    for i, param in enumerate(params):
        grad = grads[i] if not maximize else -grads[i]
        exp_avg, exp_inf, step_t = exp_avgs[i], exp_infs[i], state_steps[i]
        _check_capturable(capturable, param, step_t)
        step_t += 1
        if weight_decay != 0:
            grad = grad.add(param, alpha=weight_decay)
        param, grad = _as_real(param), _as_real(grad)
        exp_avg, exp_inf = _as_real(exp_avg), _as_real(exp_inf)
        exp_avg.lerp_(grad, 1 - beta1)
        if not differentiable:
            torch.maximum(exp_inf.mul_(beta2), grad.abs().add_(eps), out=exp_inf)
        else:
            both = torch.cat([exp_inf.mul_(beta2).unsqueeze(0),
                              grad.abs().add_(eps).unsqueeze_(0)], 0)
            exp_inf.copy_(torch.amax(both, 0, keepdim=False))
        bias_correction = 1 - beta1 ** _value(step_t)
        clr = lr / bias_correction
        param.addcdiv_(exp_avg, exp_inf, value=-_value(clr))
