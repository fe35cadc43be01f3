"""torch.nn.utils: clip_grad, parameters_to_vector, parametrize, parametrizations, stateless."""

from __future__ import annotations

from . import parametrizations, parametrize, stateless  # noqa: F401
from .clip_grad import (
    _clip_grads_with_norm_ as clip_grads_with_norm_,
)
from .clip_grad import (
    _get_total_norm as get_total_norm,
)
from .clip_grad import (
    clip_grad_norm,
    clip_grad_norm_,
    clip_grad_value_,
)
from .convert_parameters import parameters_to_vector, vector_to_parameters

__all__ = [
    "clip_grad_norm",
    "clip_grad_norm_",
    "clip_grads_with_norm_",
    "clip_grad_value_",
    "get_total_norm",
    "parameters_to_vector",
    "parametrizations",
    "parametrize",
    "stateless",
    "vector_to_parameters",
]
