"""torch.optim.RAdam: rectified Adam, L2 or decoupled weight decay (Note [single-tensor
path] in optimizer.py)."""

from __future__ import annotations

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

__all__ = ["RAdam", "radam"]


_init_state = _zeros_state("exp_avg", "exp_avg_sq")


class RAdam(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False,
                 capturable=False, differentiable=False) -> None:
        _check_hyperparameters(lr=lr, eps=eps, betas=betas, weight_decay=weight_decay)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "maximize": maximize, "foreach": foreach, "capturable": capturable,
                    "decoupled_weight_decay": decoupled_weight_decay,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        _setdefault_groups(self, foreach=None, maximize=False, differentiable=False,
                           decoupled_weight_decay=False, capturable=False)
        _restore_step_tensors(self)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        return _single_tensor_step(self, closure, "RAdam", _init_state,
                                   ("exp_avg", "exp_avg_sq", "step"), radam)


def radam(params, grads, exp_avgs, exp_avg_sqs, state_steps, *, beta1, beta2, lr,
          weight_decay, eps, decoupled_weight_decay=False, maximize=False, capturable=False,
          differentiable=False, **_ignored) -> None:
    """The update of ``RAdam.step`` on lists."""
    lr = _to_scalar(lr)
    for i, param in enumerate(params):
        grad = grads[i] if not maximize else -grads[i]
        exp_avg, exp_avg_sq, step_t = exp_avgs[i], exp_avg_sqs[i], state_steps[i]
        _check_capturable(capturable, param, step_t)
        param, grad = _as_real(param), _as_real(grad)
        exp_avg, exp_avg_sq = _as_real(exp_avg), _as_real(exp_avg_sq)
        step_t += 1
        step = _value(step_t)
        if weight_decay != 0:
            if decoupled_weight_decay:
                param.mul_(1 - lr * weight_decay)
            else:
                grad = grad.add(param, alpha=weight_decay)
        exp_avg.lerp_(grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        bias_correction1 = 1 - beta1 ** step
        bias_correction2 = 1 - beta2 ** step
        corrected = exp_avg / bias_correction1
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
        if rho_t > 5.0:
            rect = ((rho_t - 4) * (rho_t - 2) * rho_inf
                    / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
            sq = exp_avg_sq.sqrt()
            sq = sq.add(eps) if differentiable else sq.add_(eps)
            adaptive_lr = (bias_correction2 ** 0.5) / sq
            param.add_(corrected * lr * adaptive_lr * rect, alpha=-1.0)
        else:
            param.add_(corrected * lr, alpha=-1.0)
