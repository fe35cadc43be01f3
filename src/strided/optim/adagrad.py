"""torch.optim.Adagrad: lr decay, weight decay, initial accumulator; state is created in the
constructor, as torch does (Note [single-tensor path] in optimizer.py)."""

from __future__ import annotations

import strided as torch

from .optimizer import (
    Optimizer,
    _as_real,
    _check_fused_device_dtype,
    _check_fused_first_param,
    _check_fused_flags,
    _check_hyperparameters,
    _get_scalar_dtype,
    _restore_step_tensors,
    _run_closure,
    _setdefault_groups,
    _to_scalar,
    _use_grad_for_differentiable,
    _value,
)

__all__ = ["Adagrad", "adagrad"]


def _fresh_state(state: dict, group: dict, p, initial_accumulator_value) -> None:
    if group["fused"]:
        state["step"] = torch.zeros((), dtype=_get_scalar_dtype(True), device=p.device)
    else:
        state["step"] = torch.tensor(0.0, dtype=_get_scalar_dtype())
    init = (complex(initial_accumulator_value, initial_accumulator_value)
            if torch.is_complex(p) else initial_accumulator_value)
    state["sum"] = torch.full_like(p, init, memory_format=torch.preserve_format)


class Adagrad(Optimizer):
    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0,
                 initial_accumulator_value=0, eps=1e-10, foreach=None, *, maximize=False,
                 differentiable=False, fused=None) -> None:
        _check_hyperparameters(lr=lr, lr_decay=lr_decay, weight_decay=weight_decay,
                               initial_accumulator_value=initial_accumulator_value, eps=eps)
        defaults = {"lr": lr, "lr_decay": lr_decay, "eps": eps, "weight_decay": weight_decay,
                    "initial_accumulator_value": initial_accumulator_value,
                    "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable, "fused": fused}
        super().__init__(params, defaults)
        if fused:
            _check_fused_flags(fused, foreach, differentiable)
            self._need_device_dtype_check_for_fused = True
            self._step_supports_amp_scaling = True
        for group in self.param_groups:
            for p in group["params"]:
                _fresh_state(self.state[p], group, p, initial_accumulator_value)

    def __setstate__(self, state):
        super().__setstate__(state)
        _setdefault_groups(self, foreach=None, maximize=False, differentiable=False, fused=None)
        _restore_step_tensors(self, fused_aware=True)

    def share_memory(self) -> None:
        for group in self.param_groups:
            for p in group["params"]:
                self.state[p]["sum"].share_memory_()

    @_use_grad_for_differentiable
    def step(self, closure=None):
        loss = _run_closure(closure)
        for group in self.param_groups:
            params, grads, sums, steps = [], [], [], []
            for p in group["params"]:
                if p.grad is None:
                    continue
                _check_fused_first_param(self, group, p)
                params.append(p)
                grads.append(p.grad)
                state = self.state[p]
                if len(state) == 0:
                    if group["fused"]:
                        _check_fused_device_dtype(p)
                    _fresh_state(state, group, p, self.defaults["initial_accumulator_value"])
                sums.append(state["sum"])
                steps.append(state["step"])
            adagrad(params, grads, sums, steps, lr=group["lr"],
                    weight_decay=group["weight_decay"], lr_decay=group["lr_decay"],
                    eps=group["eps"], maximize=group["maximize"],
                    differentiable=group["differentiable"])
        return loss


def adagrad(params, grads, state_sums, state_steps, *, lr, weight_decay, lr_decay, eps,
            maximize, differentiable=False, **_ignored) -> None:
    """The update of ``Adagrad.step`` on lists (dense gradients)."""
    if not all(isinstance(t, torch.Tensor) for t in state_steps):
        raise RuntimeError("API has changed, `state_steps` argument must contain a list of "
                           "singleton tensors")
    lr = _to_scalar(lr)
    for param, grad, state_sum, step_t in zip(params, grads, state_sums, state_steps):
        step_t += 1
        step = _value(step_t)
        grad = grad if not maximize else -grad
        if weight_decay != 0:
            if grad.is_sparse:
                raise RuntimeError("weight_decay option is not compatible with sparse "
                                   "gradients")
            grad = grad.add(param, alpha=weight_decay)
        clr = lr / (1 + (step - 1) * lr_decay)
        if grad.is_sparse:      # a COO gradient (Embedding(sparse=True)): rows it names only
            grad = grad.coalesce()
            indices, values = grad._indices(), grad._values()
            state_sum.add_(torch.sparse_coo_tensor(indices, values.pow(2), grad.size()))
            std_values = state_sum.sparse_mask(grad)._values().sqrt_().add_(eps)
            param.add_(torch.sparse_coo_tensor(indices, values / std_values, grad.size()),
                       alpha=-_value(clr))
            continue
        grad, state_sum, param = _as_real(grad), _as_real(state_sum), _as_real(param)
        state_sum.addcmul_(grad, grad, value=1)
        std = state_sum.sqrt() + eps if differentiable else state_sum.sqrt().add_(eps)
        param.addcdiv_(grad, std, value=-_value(clr))
