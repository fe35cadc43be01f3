"""torch.optim.Adam (and the update AdamW shares): amsgrad, L2 or decoupled weight decay,
maximize, ``lr``/``betas`` as tensors; ``state['step']`` is a 0-dim tensor as in torch
(Note [single-tensor path] in optimizer.py)."""

from __future__ import annotations

import strided as torch

from .optimizer import (
    Optimizer,
    _as_real,
    _check_capturable,
    _check_fused_device_dtype,
    _check_fused_flags,
    _check_hyperparameters,
    _new_step,
    _restore_step_tensors,
    _run_closure,
    _setdefault_groups,
    _to_scalar,
    _use_grad_for_differentiable,
    _value,
)

__all__ = ["Adam", "adam"]


class Adam(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 amsgrad=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False, fused=None, decoupled_weight_decay=False) -> None:
        if isinstance(lr, torch.Tensor):
            if foreach and not capturable:
                raise ValueError("lr as a Tensor is not supported for capturable=False and "
                                 "foreach=True")
            if lr.numel() != 1:
                raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        _check_hyperparameters(eps=eps, betas=betas, weight_decay=weight_decay)
        both_floats = isinstance(betas[0], float) and isinstance(betas[1], float)
        both_tensors = isinstance(betas[0], torch.Tensor) and isinstance(betas[1], torch.Tensor)
        if not (both_floats or both_tensors):
            raise ValueError("betas must be either both floats or both Tensors")
        for i in (0, 1):
            if isinstance(betas[i], torch.Tensor):
                if not capturable and foreach:
                    raise ValueError(f"betas[{i}] as a Tensor is not supported for "
                                     "capturable=False and foreach=True")
                if betas[i].numel() != 1:
                    raise ValueError(f"Tensor betas[{i}] must be 1-element")
        betas = tuple(map(_to_scalar, betas))
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "amsgrad": amsgrad, "maximize": maximize, "foreach": foreach,
                    "capturable": capturable, "differentiable": differentiable,
                    "fused": fused, "decoupled_weight_decay": decoupled_weight_decay}
        super().__init__(params, defaults)
        if fused:
            _check_fused_flags(fused, False, differentiable)
            self._step_supports_amp_scaling = True
            _check_fused_flags(fused, foreach, False)

    def __setstate__(self, state):
        super().__setstate__(state)
        _setdefault_groups(self, amsgrad=False, maximize=False, foreach=None, capturable=False,
                           differentiable=False, decoupled_weight_decay=False, fused=None)
        _restore_step_tensors(self, fused_aware=True)

    def _init_group(self, group, params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs,
                    steps) -> bool:
        has_complex = False
        for p in group["params"]:
            if p.grad is None:
                continue
            has_complex |= torch.is_complex(p)
            params.append(p)
            if p.grad.is_sparse:
                raise RuntimeError("Adam does not support sparse gradients, please consider "
                                   "SparseAdam instead")
            grads.append(p.grad)
            state = self.state[p]
            if len(state) == 0:
                if group["fused"]:
                    _check_fused_device_dtype(p)
                state["step"] = _new_step(group, p)
                state["exp_avg"] = torch.zeros_like(p, memory_format=torch.preserve_format)
                state["exp_avg_sq"] = torch.zeros_like(p, memory_format=torch.preserve_format)
                if group["amsgrad"]:
                    state["max_exp_avg_sq"] = torch.zeros_like(
                        p, memory_format=torch.preserve_format)
            exp_avgs.append(state["exp_avg"])
            exp_avg_sqs.append(state["exp_avg_sq"])
            if group["amsgrad"]:
                max_exp_avg_sqs.append(state["max_exp_avg_sq"])
            if group["differentiable"] and state["step"].requires_grad:
                raise RuntimeError("`requires_grad` is not supported for `step` in "
                                   "differentiable mode")
            if group["foreach"] and torch.is_tensor(group["lr"]) and not group["capturable"]:
                raise RuntimeError("lr as a Tensor is not supported for capturable=False and "
                                   "foreach=True")
            steps.append(state["step"])
        return has_complex

    @_use_grad_for_differentiable
    def step(self, closure=None):
        loss = _run_closure(closure)
        for group in self.param_groups:
            params, grads, exp_avgs, exp_avg_sqs, max_sqs, steps = [], [], [], [], [], []
            self._init_group(group, params, grads, exp_avgs, exp_avg_sqs, max_sqs, steps)
            beta1, beta2 = group["betas"]
            adam(params, grads, exp_avgs, exp_avg_sqs, max_sqs, steps,
                 amsgrad=group["amsgrad"], beta1=beta1, beta2=beta2, lr=group["lr"],
                 weight_decay=group["weight_decay"], eps=group["eps"],
                 maximize=group["maximize"], capturable=group["capturable"],
                 differentiable=group["differentiable"],
                 decoupled_weight_decay=group["decoupled_weight_decay"])
        return loss


def adam(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, *, amsgrad,
         beta1, beta2, lr, weight_decay, eps, maximize, capturable=False,
         differentiable=False, decoupled_weight_decay=False, **_ignored) -> None:
    """The update of ``Adam.step`` on lists of tensors (torch's ``_single_tensor_adam``)."""
    lr, beta1, beta2 = _to_scalar(lr), _to_scalar(beta1), _to_scalar(beta2)
    for i, param in enumerate(params):
        grad = grads[i] if not maximize else -grads[i]
        exp_avg, exp_avg_sq, step_t = exp_avgs[i], exp_avg_sqs[i], state_steps[i]
        _check_capturable(capturable, param, step_t)
        step_t += 1
        if weight_decay != 0:
            if decoupled_weight_decay:
                param.mul_(1 - lr * weight_decay)
            elif isinstance(weight_decay, torch.Tensor) and weight_decay.requires_grad:
                grad = grad.addcmul_(param.clone(), weight_decay)
            else:
                grad = grad.add(param, alpha=_value(weight_decay))
        if torch.is_complex(param):
            grad, exp_avg, exp_avg_sq = _as_real(grad), _as_real(exp_avg), _as_real(exp_avg_sq)
            if amsgrad:
                max_exp_avg_sqs[i] = _as_real(max_exp_avg_sqs[i])
            param = _as_real(param)
        b1 = beta1.to(dtype=param.dtype) if isinstance(beta1, torch.Tensor) else beta1
        exp_avg.lerp_(grad, 1 - b1)
        if differentiable and isinstance(beta2, torch.Tensor) and beta2.requires_grad:
            exp_avg_sq.lerp_(torch.square(grad), weight=1 - beta2)
        else:
            exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=_value(1 - beta2))
        if differentiable:
            _differentiable_tail(param, exp_avg, exp_avg_sq, max_exp_avg_sqs, i, step_t,
                                 amsgrad, beta1, beta2, lr, eps)
            continue
        step = _value(step_t)
        bias_correction1 = 1 - beta1 ** step
        bias_correction2 = 1 - beta2 ** step
        step_size = lr / bias_correction1
        bias_correction2_sqrt = bias_correction2 ** 0.5
        if amsgrad:
            torch.maximum(max_exp_avg_sqs[i], exp_avg_sq, out=max_exp_avg_sqs[i])
            denom = max_exp_avg_sqs[i].sqrt().div_(bias_correction2_sqrt).add_(eps)
        else:
            # torch divides out of place; dividing the fresh sqrt in place rounds the same
            # and saves a parameter-sized allocation
            denom = exp_avg_sq.sqrt().div_(bias_correction2_sqrt).add_(eps)
        param.addcdiv_(exp_avg, denom, value=-_value(step_size))
        if amsgrad and torch.is_complex(params[i]):
            max_exp_avg_sqs[i] = torch.view_as_complex(max_exp_avg_sqs[i])


def _differentiable_tail(param, exp_avg, exp_avg_sq, max_exp_avg_sqs, i, step_t, amsgrad,
                         beta1, beta2, lr, eps) -> None:
    """torch's tensor-valued form of the bias-corrected update (``differentiable=True``):
    the step and the corrections stay tensors and nothing the graph needs is overwritten."""
    bias_correction1 = 1 - beta1 ** step_t
    bias_correction2 = 1 - beta2 ** step_t
    step_size_neg = (lr / bias_correction1).neg()
    bias_correction2_sqrt = bias_correction2.sqrt()
    if amsgrad:
        previous = max_exp_avg_sqs[i].clone()
        max_exp_avg_sqs[i].copy_(torch.maximum(previous, exp_avg_sq))
        second = max_exp_avg_sqs[i]
    else:
        second = exp_avg_sq
    denom = (second.sqrt() / (bias_correction2_sqrt * step_size_neg)).add_(eps / step_size_neg)
    param.addcdiv_(exp_avg.clone(), denom)
