"""torch.nn.modules.instancenorm: InstanceNorm1d/2d/3d and their Lazy forms.

Instance norm normalises each channel of each sample over its spatial dims
(``F.instance_norm``: batch norm over a (1, N*C, ...) view). By default it has no affine
parameters and keeps no running statistics; with ``track_running_stats`` the eval-mode
forward normalises with them. An input without the batch dim is run as a batch of one.
"""

from __future__ import annotations

import warnings

from .. import functional as F
from .batchnorm import _check_dims, _LazyNormBase, _NormBase

__all__ = [
    "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "LazyInstanceNorm1d",
    "LazyInstanceNorm2d", "LazyInstanceNorm3d",
]


class _InstanceNorm(_NormBase):
    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.1,
                 affine: bool = False, track_running_stats: bool = False, device=None,
                 dtype=None, *, bias: bool = True) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats,
                         device=device, dtype=dtype, bias=bias)

    _no_batch_dim: int      # an unbatched input's dims: 2, 3, 4 for InstanceNorm1d/2d/3d

    def _check_input_dim(self, input) -> None:
        _check_dims(input, (self._no_batch_dim, self._no_batch_dim + 1))

    def _get_no_batch_dim(self) -> int:
        return self._no_batch_dim

    def _handle_no_batch_input(self, input):
        return self._apply_instance_norm(input.unsqueeze(0)).squeeze(0)

    def _apply_instance_norm(self, input):
        return F.instance_norm(input, self.running_mean, self.running_var, self.weight,
                               self.bias, self.training or not self.track_running_stats,
                               self.momentum if self.momentum is not None else 0.0, self.eps)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs) -> None:
        version = local_metadata.get("version", None)
        # state dicts from before running stats were off by default carry them: refuse
        # them with an explanation instead of "unexpected key"
        if version is None and not self.track_running_stats:
            keys = [prefix + name for name in ("running_mean", "running_var")
                    if prefix + name in state_dict]
            if keys:
                klass = self.__class__.__name__
                names = " and ".join(f'"{k}"' for k in keys)
                error_msgs.append(
                    f"Unexpected running stats buffer(s) {names} for {klass} with "
                    f"track_running_stats=False. If state_dict is a checkpoint saved before "
                    f"0.4.0, this may be expected because {klass} does not track running "
                    f"stats by default since 0.4.0. Please remove these keys from state_dict. "
                    f"If the running stats are actually needed, instead set "
                    f"track_running_stats=True in {klass} to enable them. See the "
                    f"documentation of {klass} for details.")
                for key in keys:
                    state_dict.pop(key)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict,
                                      missing_keys, unexpected_keys, error_msgs)

    def forward(self, input):
        self._check_input_dim(input)
        feature_dim = input.dim() - self._get_no_batch_dim()
        if input.size(feature_dim) != self.num_features:
            if self.affine:
                raise ValueError(
                    f"expected input's size at dim={feature_dim} to match num_features"
                    f" ({self.num_features}), but got: {input.size(feature_dim)}.")
            warnings.warn(
                f"input's size at dim={feature_dim} does not match num_features. You can "
                f"silence this warning by not passing in num_features, which is not used "
                f"because affine=False", stacklevel=2)
        if input.dim() == self._get_no_batch_dim():
            return self._handle_no_batch_input(input)
        return self._apply_instance_norm(input)


class InstanceNorm1d(_InstanceNorm):
    """Instance normalization over a 2D (C, L) or 3D (N, C, L) input."""

    _no_batch_dim = 2


class LazyInstanceNorm1d(_LazyNormBase, _InstanceNorm):
    """InstanceNorm1d whose num_features comes from the first input."""

    cls_to_become = InstanceNorm1d
    _no_batch_dim = 2


class InstanceNorm2d(_InstanceNorm):
    """Instance normalization over a 3D (C, H, W) or 4D (N, C, H, W) input."""

    _no_batch_dim = 3


class LazyInstanceNorm2d(_LazyNormBase, _InstanceNorm):
    """InstanceNorm2d whose num_features comes from the first input."""

    cls_to_become = InstanceNorm2d
    _no_batch_dim = 3


class InstanceNorm3d(_InstanceNorm):
    """Instance normalization over a 4D (C, D, H, W) or 5D (N, C, D, H, W) input."""

    _no_batch_dim = 4


class LazyInstanceNorm3d(_LazyNormBase, _InstanceNorm):
    """InstanceNorm3d whose num_features comes from the first input."""

    cls_to_become = InstanceNorm3d
    _no_batch_dim = 4
