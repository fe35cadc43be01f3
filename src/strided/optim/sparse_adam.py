"""torch.optim.SparseAdam: Adam restricted to the rows a sparse COO gradient names (the
gradients of ``nn.Embedding(sparse=True)``); moments and parameters elsewhere are left as
they are. Same update order as torch's functional ``sparse_adam``."""

from __future__ import annotations

import math

import strided as torch

from .optimizer import Optimizer, _to_scalar

__all__ = ["SparseAdam", "sparse_adam"]


class SparseAdam(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, maximize=False):
        if isinstance(lr, torch.Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 < lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps, "maximize": maximize})
        sparse_params, complex_params = [], []
        for index, group in enumerate(self.param_groups):
            for d_index, p in enumerate(group["params"]):
                if p.is_sparse:
                    sparse_params.append([index, d_index])
                if p.is_complex():
                    complex_params.append([index, d_index])
        if sparse_params:
            raise ValueError(f"Sparse params at indices {sparse_params}: SparseAdam requires "
                             f"dense parameter tensors")
        if complex_params:
            raise ValueError(f"Complex params at indices {complex_params}: SparseAdam does not "
                             f"support complex parameters")

    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            params, grads, exp_avgs, exp_avg_sqs, steps = [], [], [], [], []
            beta1, beta2 = group["betas"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                params.append(p)
                if not p.grad.is_sparse:
                    raise RuntimeError("SparseAdam does not support dense gradients, please "
                                       "consider Adam instead")
                grads.append(p.grad)
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = 0
                    state["exp_avg"] = torch.zeros_like(p, memory_format=torch.preserve_format)
                    state["exp_avg_sq"] = torch.zeros_like(p,
                                                           memory_format=torch.preserve_format)
                exp_avgs.append(state["exp_avg"])
                exp_avg_sqs.append(state["exp_avg_sq"])
                state["step"] += 1
                steps.append(state["step"])
            sparse_adam(params, grads, exp_avgs, exp_avg_sqs, steps, eps=group["eps"],
                        beta1=beta1, beta2=beta2, lr=_to_scalar(group["lr"]),
                        maximize=group.get("maximize", False))
        return loss


def sparse_adam(params, grads, exp_avgs, exp_avg_sqs, state_steps, *, eps, beta1, beta2, lr,
                maximize):
    """The functional SparseAdam step: the moments move only at the gradient's rows (its
    coalesced indices), and the parameter by the bias-corrected ratio there."""
    for param, grad, exp_avg, exp_avg_sq, step in zip(params, grads, exp_avgs, exp_avg_sqs,
                                                      state_steps):
        grad = -grad if maximize else grad
        grad = grad.coalesce()          # the update is not linear: one entry per row
        indices, values = grad._indices(), grad._values()
        if values.numel() == 0:
            continue
        size = grad.size()

        def rows(v, indices=indices, size=size):
            return torch.sparse_coo_tensor(indices, v, size)

        old_avg = exp_avg.sparse_mask(grad)._values()
        avg_update = values.sub(old_avg).mul_(1 - beta1)
        exp_avg.add_(rows(avg_update))
        old_sq = exp_avg_sq.sparse_mask(grad)._values()
        sq_update = values.pow(2).sub_(old_sq).mul_(1 - beta2)
        exp_avg_sq.add_(rows(sq_update))
        numer = avg_update.add_(old_avg)
        sq_update.add_(old_sq)
        denom = sq_update.sqrt_().add_(eps)
        bias_correction1 = 1 - beta1 ** step
        bias_correction2 = 1 - beta2 ** step
        step_size = lr * math.sqrt(bias_correction2) / bias_correction1
        param.add_(rows(-step_size * numer.div_(denom)))
