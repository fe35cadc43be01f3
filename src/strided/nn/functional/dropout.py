"""torch.nn.functional: dropout, dropout1d/2d/3d, alpha_dropout, feature_alpha_dropout.

Thin Python over the aten composites (kernels/nn/dropout.py, Note [Dropout draws]): the
probability check with torch's ValueError, the rank rules and warnings of the channel-wise
forms, and the unbatched inputs of dropout1d/3d (a leading batch dim added and removed).
"""

from __future__ import annotations

import warnings

from ...ops._generated import torch_functions as _T

__all__ = ["alpha_dropout", "dropout", "dropout1d", "dropout2d", "dropout3d",
           "feature_alpha_dropout"]


def _check_p(p) -> None:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def dropout(input, p: float = 0.5, training: bool = True, inplace: bool = False):
    """Zero each element with probability ``p`` and scale the rest by ``1 / (1 - p)``."""
    _check_p(p)
    return _T.dropout_(input, p, training) if inplace else _T.dropout(input, p, training)


def _feature(input, p, training, inplace, batched: bool):
    if not batched:
        input = input.unsqueeze_(0) if inplace else input.unsqueeze(0)
    result = _T.feature_dropout_(input, p, training) if inplace else \
        _T.feature_dropout(input, p, training)
    if not batched:
        result = result.squeeze_(0) if inplace else result.squeeze(0)
    return result


def dropout1d(input, p: float = 0.5, training: bool = True, inplace: bool = False):
    """Zero whole channels of (N, C, L) or (C, L) inputs."""
    _check_p(p)
    ndim = input.dim()
    if ndim not in (2, 3):
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {ndim}D input. Note that "
            "dropout1d exists to provide channel-wise dropout on inputs with 1 spatial "
            "dimension, a channel dimension, and an optional batch dimension (i.e. 2D or 3D "
            "inputs).")
    return _feature(input, p, training, inplace, ndim == 3)


def _warn_input_dim(name: str, spatial: int, ndim: int) -> None:
    """torch's deprecation warning of dropout2d / dropout3d for an input that is not
    (N, C, *spatial) or (C, *spatial). ``stacklevel=3``: the warning points at the line
    that called dropout2d / dropout3d, as torch's does."""
    warnings.warn(
        f"{name}: Received a {ndim}-D input to {name}, which is deprecated and will "
        "result in an error in a future release. To retain the behavior and silence this "
        f"warning, please use dropout instead. Note that {name} exists to provide "
        f"channel-wise dropout on inputs with {spatial} spatial dimensions, a channel "
        f"dimension, and an optional batch dimension (i.e. {spatial + 1}D or {spatial + 2}D "
        "inputs).", stacklevel=3)


def dropout2d(input, p: float = 0.5, training: bool = True, inplace: bool = False):
    """Zero whole channels of (N, C, H, W) inputs (a 3-d input is read as (N, C, L))."""
    _check_p(p)
    ndim = input.dim()
    if ndim not in (3, 4):
        _warn_input_dim("dropout2d", 2, ndim)
    if ndim == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D "
            "dropout behavior is desired - input is interpreted as shape (N, C, L), where C is "
            "the channel dim. This behavior will change in a future release to interpret the "
            "input as one without a batch dimension, i.e. shape (C, H, W). To maintain the 1D "
            "channel-wise dropout behavior, please switch to using dropout1d instead.",
            stacklevel=2)
    return _feature(input, p, training, inplace, True)


def dropout3d(input, p: float = 0.5, training: bool = True, inplace: bool = False):
    """Zero whole channels of (N, C, D, H, W) or (C, D, H, W) inputs."""
    _check_p(p)
    ndim = input.dim()
    if ndim not in (4, 5):
        _warn_input_dim("dropout3d", 3, ndim)
    return _feature(input, p, training, inplace, ndim == 5)


def alpha_dropout(input, p: float = 0.5, training: bool = False, inplace: bool = False):
    """Dropout that keeps the self-normalising mean and variance (for SELU networks)."""
    _check_p(p)
    return _T.alpha_dropout_(input, p, training) if inplace else \
        _T.alpha_dropout(input, p, training)


def feature_alpha_dropout(input, p: float = 0.5, training: bool = False,
                          inplace: bool = False):
    """alpha_dropout of whole channels."""
    _check_p(p)
    return _T.feature_alpha_dropout_(input, p, training) if inplace else \
        _T.feature_alpha_dropout(input, p, training)
