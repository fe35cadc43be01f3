"""torch.optim.SGD: momentum, dampening, Nesterov, weight decay, maximize (Note [single-tensor
path] in optimizer.py)."""

from __future__ import annotations

import strided as torch

from .optimizer import (
    Optimizer,
    _check_fused_first_param,
    _check_fused_flags,
    _run_closure,
    _setdefault_groups,
    _to_scalar,
    _use_grad_for_differentiable,
    _value,
)

__all__ = ["SGD", "sgd"]


class SGD(Optimizer):
    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0,
                 nesterov=False, *, maximize=False, foreach=None, differentiable=False,
                 fused=None) -> None:
        if isinstance(lr, torch.Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "momentum": momentum, "dampening": dampening,
                    "weight_decay": weight_decay, "nesterov": nesterov, "maximize": maximize,
                    "foreach": foreach, "differentiable": differentiable, "fused": fused}
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)
        if fused:
            self._step_supports_amp_scaling = True
            self._need_device_dtype_check_for_fused = True
            _check_fused_flags(fused, foreach, differentiable)

    def __setstate__(self, state):
        super().__setstate__(state)
        _setdefault_groups(self, nesterov=False, maximize=False, foreach=None,
                           differentiable=False, fused=False)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        loss = _run_closure(closure)
        for group in self.param_groups:
            params, grads, bufs = [], [], []
            for p in group["params"]:
                if p.grad is None:
                    continue
                _check_fused_first_param(self, group, p)
                params.append(p)
                grads.append(p.grad)
                if group["momentum"] != 0:
                    bufs.append(self.state[p].get("momentum_buffer"))
            sgd(params, grads, bufs, weight_decay=group["weight_decay"],
                momentum=group["momentum"], lr=group["lr"], dampening=group["dampening"],
                nesterov=group["nesterov"], maximize=group["maximize"])
            if group["momentum"] != 0:
                for p, buf in zip(params, bufs):
                    self.state[p]["momentum_buffer"] = buf
        return loss


def sgd(params, grads, momentum_buffer_list, *, weight_decay, momentum, lr, dampening,
        nesterov, maximize, **_ignored) -> None:
    """The update of ``SGD.step`` on lists (``momentum_buffer_list`` filled in place)."""
    lr = _to_scalar(lr)
    for i, param in enumerate(params):
        grad = grads[i] if not maximize else -grads[i]
        if weight_decay != 0:
            if isinstance(weight_decay, torch.Tensor) and weight_decay.requires_grad:
                grad = grad.addcmul_(param.clone(), weight_decay)
            else:
                grad = grad.add(param, alpha=_value(weight_decay))
        if momentum != 0:
            buf = momentum_buffer_list[i]
            if buf is None:
                buf = grad.detach().clone()
                momentum_buffer_list[i] = buf
            else:
                buf.mul_(momentum).add_(grad, alpha=1 - dampening)
            grad = grad.add(buf, alpha=momentum) if nesterov else buf
        if isinstance(lr, torch.Tensor) and lr.requires_grad:
            param.addcmul_(grad, lr, value=-1)
        else:
            param.add_(grad, alpha=-_value(lr))
