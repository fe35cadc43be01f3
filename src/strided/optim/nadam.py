"""torch.optim.NAdam: Adam with Nesterov momentum and the ``momentum_decay`` schedule;
``state['mu_product']`` is a 0-dim tensor, as in torch (Note [single-tensor path] in
optimizer.py)."""

from __future__ import annotations

import strided as torch

from .optimizer import (
    Optimizer,
    _as_real,
    _check_capturable,
    _check_hyperparameters,
    _get_scalar_dtype,
    _new_step,
    _restore_step_tensors,
    _setdefault_groups,
    _single_tensor_step,
    _to_scalar,
    _use_grad_for_differentiable,
    _value,
)

__all__ = ["NAdam", "nadam"]


def _init_state(state, group, p) -> None:
    state["step"] = _new_step(group, p, fused_aware=False)
    if group["capturable"]:
        state["mu_product"] = torch.ones((), dtype=_get_scalar_dtype(), device=p.device)
    else:
        state["mu_product"] = torch.tensor(1.0, dtype=_get_scalar_dtype())
    state["exp_avg"] = torch.zeros_like(p, memory_format=torch.preserve_format)
    state["exp_avg_sq"] = torch.zeros_like(p, memory_format=torch.preserve_format)


class NAdam(Optimizer):
    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 momentum_decay=4e-3, decoupled_weight_decay=False, *, foreach=None,
                 maximize=False, capturable=False, differentiable=False) -> None:
        _check_hyperparameters(lr=lr, eps=eps, betas=betas, weight_decay=weight_decay,
                               momentum_decay=momentum_decay)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "momentum_decay": momentum_decay,
                    "decoupled_weight_decay": decoupled_weight_decay, "maximize": maximize,
                    "foreach": foreach, "capturable": capturable,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        _setdefault_groups(self, maximize=False, foreach=None, capturable=False,
                           differentiable=False, decoupled_weight_decay=False)
        for group in self.param_groups:
            for p in group["params"]:
                p_state = self.state.get(p, [])
                if len(p_state) != 0 and not torch.is_tensor(p_state["mu_product"]):
                    p_state["mu_product"] = torch.tensor(float(p_state["mu_product"]),
                                                         dtype=_get_scalar_dtype())
        _restore_step_tensors(self)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        return _single_tensor_step(self, closure, "NAdam", _init_state,
                                   ("exp_avg", "exp_avg_sq", "mu_product", "step"), nadam)


def nadam(params, grads, exp_avgs, exp_avg_sqs, mu_products, state_steps, *, beta1, beta2,
          lr, weight_decay, momentum_decay, eps, decoupled_weight_decay=False, maximize=False,
          capturable=False, differentiable=False, **_ignored) -> None:
    """The update of ``NAdam.step`` on lists."""
    lr = _to_scalar(lr)
    for i, param in enumerate(params):
        grad = grads[i] if not maximize else -grads[i]
        exp_avg, exp_avg_sq = exp_avgs[i], exp_avg_sqs[i]
        mu_product, step_t = mu_products[i], state_steps[i]
        param, grad = _as_real(param), _as_real(grad)
        exp_avg, exp_avg_sq = _as_real(exp_avg), _as_real(exp_avg_sq)
        _check_capturable(capturable, param, mu_product, step_t,
                          what="params, mu_products and state_steps")
        step_t += 1
        step = _value(step_t)
        bias_correction2 = 1 - beta2 ** step
        if weight_decay != 0:
            if decoupled_weight_decay:
                param.mul_(1 - lr * weight_decay)
            else:
                grad = grad.add(param, alpha=weight_decay)
        mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
        mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
        mu_product *= mu
        exp_avg.lerp_(grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        denom = exp_avg_sq.div(bias_correction2).sqrt()
        if differentiable:
            # torch's tensor-valued form: mu_product stays a tensor in the graph
            denom = denom.add(eps)
            mu_product_next = mu_product * mu_next
            param.addcdiv_(grad * (-lr * (1.0 - mu) / (1.0 - mu_product)), denom)
            param.addcdiv_(exp_avg * (-lr * mu_next / (1.0 - mu_product_next)), denom)
            continue
        mu_product_value = _value(mu_product)
        mu_product_next = mu_product_value * mu_next
        denom.add_(eps)
        param.addcdiv_(grad, denom, value=_value(-lr * (1.0 - mu) / (1.0 - mu_product_value)))
        param.addcdiv_(exp_avg, denom, value=_value((-lr * mu_next) / (1.0 - mu_product_next)))
