"""torch.optim.SGD: momentum, dampening, Nesterov, weight decay, maximize (Note [single-tensor
path] in optimizer.py)."""

from __future__ import annotations

import strided as torch
from strided.autograd.grad_mode import STATE as _GRAD_STATE
from strided.core import dtypes as _dt
from strided.core.dispatch_keys import DispatchKey as _K
from strided.core.tensor_impl import contiguous_strides as _contiguous_strides
from strided.kernels import _sgd_update
from strided.kernels import elementwise as _ew

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


# Note [SGD's plain update without the iterator]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# The plain update (no momentum, no weight decay, not maximizing, a Python-number lr, grad
# mode off as in every non-differentiable step) is ``param.add_(grad, alpha=-lr)`` per
# parameter. Parameters are ``nn.Parameter``s, which the elementwise fast path leaves to the
# TensorIterator; most of a small model's step went to building one iterator per parameter.
# ``_plain_add_`` runs the same arithmetic (torch's fused multiply-add, one rounding: for
# float32 ``kernels/_sgd_update.py``, without the general compute function's checks, which
# cost more than a bias's update; for float64 ``elementwise._add``) on the two NumPy views
# directly, and bumps the version counter as the in-place kernel does, when nothing could
# make the iterator's answer differ: both on the CPU, plain strided (no conj/neg bit, no
# sparse layout, no Python key), the same float32 or float64 dtype and shape, both
# row-major, separate storages, param a leaf with an ordinary version counter. Anything
# else takes ``param.add_``.
_PLAIN_KEYSETS = (_K.CPU.bit, _K.CPU.bit | _K.Autograd.bit)
_PLAIN_DTYPES = (_dt.float32, _dt.float64)


def _plain_add_(param, grad, alpha) -> bool:
    """``param.add_(grad, alpha=alpha)`` without the iterator (Note [SGD's plain update
    without the iterator]); False when it does not apply (nothing done)."""
    sizes = param._sizes
    dtype = param._dtype
    if (param._keyset not in _PLAIN_KEYSETS or grad._keyset not in _PLAIN_KEYSETS
            or param.__class__ not in _plain_classes() or grad.__class__ is not torch.Tensor
            or dtype not in _PLAIN_DTYPES or grad._dtype is not dtype or grad._sizes != sizes
            or param._base is not None or param._vc.__class__ is not list
            or grad._storage is param._storage
            or param._strides != _contiguous_strides(sizes) or grad._strides != param._strides):
        return False
    arr = param._array()
    if arr.size:
        if dtype is _dt.float32:
            _ew._quiet_call(_sgd_update.add_scaled_f32_, arr, grad._array(), alpha)
        else:
            _ew._quiet_call(_ew._add, arr, (arr, grad._array()), dtype, alpha)
    param._vc[0] += 1
    return True


def _plain_classes():
    return (torch.Tensor, torch.nn.Parameter)


def sgd(params, grads, momentum_buffer_list, *, weight_decay, momentum, lr, dampening,
        nesterov, maximize, **_ignored) -> None:
    """The update of ``SGD.step`` on lists (``momentum_buffer_list`` filled in place)."""
    lr = _to_scalar(lr)
    if (not _GRAD_STATE.enabled and weight_decay == 0 and momentum == 0 and not maximize
            and lr.__class__ in (float, int) and weight_decay.__class__ in (float, int)):
        alpha = -lr
        for param, grad in zip(params, grads):
            if not _plain_add_(param, grad, alpha):
                param.add_(grad, alpha=alpha)
        return
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
