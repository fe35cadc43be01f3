"""torch.optim.RMSprop: smoothing ``alpha``, momentum, centered, weight decay, maximize
(Note [single-tensor path] in optimizer.py)."""

from __future__ import annotations

import strided as torch

from .optimizer import (
    Optimizer,
    _as_real,
    _check_capturable,
    _check_hyperparameters,
    _new_step,
    _restore_step_tensors,
    _setdefault_groups,
    _single_tensor_step,
    _to_scalar,
    _use_grad_for_differentiable,
    _value,
)

__all__ = ["RMSprop", "rmsprop"]


def _init_state(state, group, p) -> None:
    state["step"] = _new_step(group, p, fused_aware=False)
    state["square_avg"] = torch.zeros_like(p, memory_format=torch.preserve_format)
    if group["momentum"] > 0:
        state["momentum_buffer"] = torch.zeros_like(p, memory_format=torch.preserve_format)
    if group["centered"]:
        state["grad_avg"] = torch.zeros_like(p, memory_format=torch.preserve_format)


def _state_keys(group) -> tuple:
    """``rmsprop``'s lists: ``grad_avgs`` and ``momentum_buffer_list`` are empty when the
    group is not centered / has no momentum."""
    return ("square_avg", "grad_avg" if group["centered"] else None,
            "momentum_buffer" if group["momentum"] > 0 else None, "step")


class RMSprop(Optimizer):
    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
                 centered=False, capturable=False, foreach=None, maximize=False,
                 differentiable=False) -> None:
        _check_hyperparameters(lr=lr, eps=eps, momentum=momentum, weight_decay=weight_decay,
                               alpha=alpha)
        defaults = {"lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps,
                    "centered": centered, "weight_decay": weight_decay,
                    "capturable": capturable, "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        _setdefault_groups(self, momentum=0, centered=False, foreach=None, maximize=False,
                           differentiable=False, capturable=False)
        _restore_step_tensors(self)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        return _single_tensor_step(self, closure, "RMSprop", _init_state,
                                   _state_keys, rmsprop)


def rmsprop(params, grads, square_avgs, grad_avgs, momentum_buffer_list, state_steps, *, lr,
            alpha, eps, weight_decay, momentum, centered, maximize, differentiable=False,
            capturable=False, **_ignored) -> None:
    """The update of ``RMSprop.step`` on lists."""
    lr = _to_scalar(lr)
    for i, param in enumerate(params):
        step = state_steps[i]
        _check_capturable(capturable, param, step)
        grad = grads[i] if not maximize else -grads[i]
        square_avg = square_avgs[i]
        step += 1
        if weight_decay != 0:
            grad = grad.add(param, alpha=weight_decay)
        param, grad, square_avg = _as_real(param), _as_real(grad), _as_real(square_avg)
        square_avg.mul_(alpha).addcmul_(grad, grad, value=1 - alpha)
        if centered:
            grad_avg = _as_real(grad_avgs[i])
            grad_avg.lerp_(grad, 1 - alpha)
            avg = square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt_()
        else:
            avg = square_avg.sqrt()
        avg = avg.add(eps) if differentiable else avg.add_(eps)
        if momentum > 0:
            buf = _as_real(momentum_buffer_list[i])
            buf.mul_(momentum).addcdiv_(grad, avg)
            param.add_(buf, alpha=-_value(lr))
        else:
            param.addcdiv_(grad, avg, value=-_value(lr))
