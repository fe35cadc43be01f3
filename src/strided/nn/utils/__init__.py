"""torch.nn.utils: clip_grad, parameters_to_vector, parametrize, parametrizations, stateless."""

from __future__ import annotations

from . import parametrizations, parametrize, rnn, stateless  # noqa: F401
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
from .init import skip_init
from .memory_format import (
    convert_conv2d_weight_memory_format,
    convert_conv3d_weight_memory_format,
)
from .spectral_norm import remove_spectral_norm, spectral_norm
from .weight_norm import remove_weight_norm, weight_norm

__all__ = [
    "clip_grad_norm",
    "clip_grad_norm_",
    "clip_grads_with_norm_",
    "clip_grad_value_",
    "convert_conv2d_weight_memory_format",
    "convert_conv3d_weight_memory_format",
    "get_total_norm",
    "parameters_to_vector",
    "parametrizations",
    "parametrize",
    "remove_spectral_norm",
    "remove_weight_norm",
    "rnn",
    "skip_init",
    "spectral_norm",
    "stateless",
    "vector_to_parameters",
    "weight_norm",
]
