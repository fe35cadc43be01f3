"""strided.func: torch.func's ``functional_call`` and ``stack_module_state``.

>>> import strided as torch
>>> m = torch.nn.Linear(2, 1)
>>> x = torch.ones(1, 2)
>>> torch.func.functional_call(m, {"weight": torch.ones(1, 2), "bias": torch.zeros(1)}, x)
tensor([[2.]])
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["functional_call", "stack_module_state"]


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *,
                    tie_weights: bool = True, strict: bool = False):
    """Run ``module(*args, **kwargs)`` with the given tensors in place of its parameters
    and buffers (one dict, or several dicts with disjoint keys); the module is left as
    it was. ``tie_weights``: a tensor registered under several names is replaced under
    all of them; ``strict``: the names must be exactly the module's tensors."""
    from .nn.utils.stateless import _functional_call
    if isinstance(parameter_and_buffer_dicts, dict):
        merged = parameter_and_buffer_dicts
    elif isinstance(parameter_and_buffer_dicts, Sequence):
        if not all(isinstance(d, dict) for d in parameter_and_buffer_dicts):
            raise ValueError(
                "Expected all elements of parameter_and_buffer_dicts to be dictionaries")
        counts: dict = {}
        for d in parameter_and_buffer_dicts:
            for k in d:
                counts[k] = counts.get(k, 0) + 1
        repeated = [k for k, n in counts.items() if n > 1]
        if repeated:
            raise ValueError(
                f"{repeated} appeared in multiple dictionaries; behavior of functional call "
                "is ambiguous")
        merged = {k: v for d in parameter_and_buffer_dicts for k, v in d.items()}
    else:
        raise ValueError(
            "Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts, "
            f"but got {type(parameter_and_buffer_dicts)}")
    return _functional_call(module, merged, args, kwargs, tie_weights=tie_weights,
                            strict=strict)


def _stacked_leaf(tensors, name):
    import strided as _st
    all_grad = all(t.requires_grad for t in tensors)
    if not all_grad and any(t.requires_grad for t in tensors):
        raise RuntimeError(f"Expected {name} from each model to have the same .requires_grad")
    out = _st.stack(tensors)
    if all_grad:
        out = out.detach().requires_grad_()
    return out


def stack_module_state(models):
    """(params, buffers): each model's tensors stacked along a new first dim, by name."""
    if len(models) == 0:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or all(not m.training for m in models)):
        raise RuntimeError(
            "stack_module_state: Expected all models to have the same training/eval mode.")
    cls0 = type(models[0])
    if not all(type(m) is cls0 for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    all_params = [dict(m.named_parameters()) for m in models]
    params = {k: _stacked_leaf(tuple(p[k] for p in all_params), k) for k in all_params[0]}
    all_buffers = [dict(m.named_buffers()) for m in models]
    buffers = {k: _stacked_leaf(tuple(b[k] for b in all_buffers), k) for k in all_buffers[0]}
    return params, buffers
