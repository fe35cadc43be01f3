"""torch.optim.Rprop: sign-based steps with per-element step sizes (Note [single-tensor
path] in optimizer.py)."""

from __future__ import annotations

import strided as torch

from .optimizer import (
    Optimizer,
    _as_real,
    _check_capturable,
    _check_lr,
    _new_step,
    _restore_step_tensors,
    _setdefault_groups,
    _single_tensor_step,
    _to_scalar,
    _use_grad_for_differentiable,
)

__all__ = ["Rprop", "rprop"]


def _init_state(state, group, p) -> None:
    state["step"] = _new_step(group, p, fused_aware=False)
    state["prev"] = torch.zeros_like(p, memory_format=torch.preserve_format)
    if p.dtype.is_complex:
        lr = group["lr"]
        state["step_size"] = torch.full_like(p.grad, complex(lr, lr))
    else:
        state["step_size"] = torch.full_like(p.grad, _value_of(group["lr"]))


class Rprop(Optimizer):
    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *,
                 capturable=False, foreach=None, maximize=False,
                 differentiable=False) -> None:
        _check_lr(lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = {"lr": lr, "etas": etas, "step_sizes": step_sizes, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable,
                    "capturable": capturable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        _setdefault_groups(self, foreach=None, maximize=False, differentiable=False,
                           capturable=False)
        _restore_step_tensors(self)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        return _single_tensor_step(self, closure, "Rprop", _init_state,
                                   ("prev", "step_size", "step"), rprop)


def _value_of(lr):
    lr = _to_scalar(lr)
    return lr.item() if isinstance(lr, torch.Tensor) else lr


def rprop(params, grads, prevs, step_sizes, state_steps, *, step_size_min, step_size_max,
          etaminus, etaplus, maximize, differentiable=False, capturable=False,
          **_ignored) -> None:
    """The update of ``Rprop.step`` on lists."""
    for i, param in enumerate(params):
        grad = grads[i] if not maximize else -grads[i]
        prev, step_size, step = prevs[i], step_sizes[i], state_steps[i]
        _check_capturable(capturable, param, step)
        step += 1
        grad, prev = _as_real(grad), _as_real(prev)
        param, step_size = _as_real(param), _as_real(step_size)
        sign = grad.mul(prev.clone() if differentiable else prev).sign()
        sign[sign.gt(0)] = etaplus
        sign[sign.lt(0)] = etaminus
        sign[sign.eq(0)] = 1
        step_size.mul_(sign).clamp_(step_size_min, step_size_max)
        grad = grad.clone(memory_format=torch.preserve_format)
        grad[sign.eq(etaminus)] = 0
        param.addcmul_(grad.sign(), step_size, value=-1)
        prev.copy_(grad)
