"""torch.nn.utils: clip_grad, parameters_to_vector, parametrize, parametrizations, stateless."""

from __future__ import annotations
