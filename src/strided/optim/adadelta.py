"""torch.optim.Adadelta (Note [single-tensor path] in optimizer.py)."""

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

__all__ = ["Adadelta", "adadelta"]


_init_state = _zeros_state("square_avg", "acc_delta")


class Adadelta(Optimizer):
    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *,
                 capturable=False, maximize=False, differentiable=False) -> None:
        _check_hyperparameters(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay)
        defaults = {"lr": lr, "rho": rho, "eps": eps, "weight_decay": weight_decay,
                    "maximize": maximize, "capturable": capturable, "foreach": foreach,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        _setdefault_groups(self, foreach=None, maximize=False, differentiable=False,
                           capturable=False)
        _restore_step_tensors(self)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        return _single_tensor_step(self, closure, "Adadelta", _init_state,
                                   ("square_avg", "acc_delta", "step"), adadelta)


def adadelta(params, grads, square_avgs, acc_deltas, state_steps, *, lr, rho, eps,
             weight_decay, maximize, differentiable=False, capturable=False,
             **_ignored) -> None:
    """The update of ``Adadelta.step`` on lists."""
    for p, s in zip(params, state_steps):
        _check_capturable(capturable, p, s, supports_xla=False)
    lr = _to_scalar(lr)
    for param, grad, square_avg, acc_delta, step in zip(params, grads, square_avgs,
                                                        acc_deltas, state_steps):
        step += 1
        grad = grad if not maximize else -grad
        if weight_decay != 0:
            grad = grad.add(param, alpha=weight_decay)
        complex_param = torch.is_complex(param)
        square_avg, acc_delta, grad = _as_real(square_avg), _as_real(acc_delta), _as_real(grad)
        square_avg.mul_(rho).addcmul_(grad, grad, value=1 - rho)
        std = square_avg.add(eps).sqrt_()
        delta = acc_delta.add(eps).sqrt_()
        if differentiable:
            delta = delta.clone()
        delta.div_(std).mul_(grad)
        acc_delta.mul_(rho).addcmul_(delta, delta, value=1 - rho)
        if complex_param:
            delta = torch.view_as_complex(delta)
        param.add_(delta, alpha=-_value(lr))
