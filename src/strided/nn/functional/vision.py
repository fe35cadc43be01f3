"""torch.nn.functional:
interpolate/upsample, grid_sample, affine_grid, pad, pixel_shuffle/unshuffle, channel_shuffle,
one_hot, gumbel_softmax.

The Python layer checks and normalises arguments as torch's ``torch/nn/functional.py``
does (same errors and warnings), then calls the aten operator torch's Python calls, so that
graphs show torch's nodes (``UpsampleBilinear2DBackward0``, ``GridSampler2DBackward0``...).
"""

from __future__ import annotations

import math
import numbers
import warnings

from ...ops._generated import nn_functions as _nn
from ...ops._generated import torch_functions as _tf
from ...ops.dispatcher import get_op as _get_op

__all__ = [
    "affine_grid",
    "channel_shuffle",
    "grid_sample",
    "gumbel_softmax",
    "interpolate",
    "native_channel_shuffle",
    "one_hot",
    "pixel_shuffle",
    "pixel_unshuffle",
    "upsample",
    "upsample_bilinear",
    "upsample_nearest",
]

_HANDLES: dict = {}


def _op(qualname: str, *args):
    """Call ``qualname`` through the dispatcher with every argument in schema order."""
    op = _HANDLES.get(qualname)
    if op is None:
        op = _HANDLES[qualname] = _get_op(qualname)
    ks = 0
    for a in args:
        ks |= getattr(a, "_keyset", 0)
    return op.call(ks, *args)


def _binding(qualname: str):
    """The generated Python binding of an ``nn`` op (``torch._C._nn.<name>``): its argument
    parsing gives torch's TypeError for sizes that are not ints."""
    from ...ops._generated import nn_functions
    return getattr(nn_functions, qualname.split("::")[1].split(".")[0])


def _is_integer(x) -> bool:
    from ...frontend.tensor import Tensor
    if isinstance(x, numbers.Integral):          # int, bool, NumPy integers
        return True
    return isinstance(x, Tensor) and not x.is_floating_point()


# -- interpolate --------------------------------------------------------------------------

_VEC_OPS = {
    (3, "nearest"): "aten::upsample_nearest1d.vec",
    (4, "nearest"): "aten::upsample_nearest2d.vec",
    (5, "nearest"): "aten::upsample_nearest3d.vec",
    (3, "nearest-exact"): "aten::_upsample_nearest_exact1d.vec",
    (4, "nearest-exact"): "aten::_upsample_nearest_exact2d.vec",
    (5, "nearest-exact"): "aten::_upsample_nearest_exact3d.vec",
}
_VEC_ALIGN_OPS = {
    (3, "linear"): "aten::upsample_linear1d.vec",
    (4, "bilinear"): "aten::upsample_bilinear2d.vec",
    (5, "trilinear"): "aten::upsample_trilinear3d.vec",
    (4, "bicubic"): "aten::upsample_bicubic2d.vec",
}
_AA_OPS = {"bilinear": "aten::_upsample_bilinear2d_aa.vec",
           "bicubic": "aten::_upsample_bicubic2d_aa.vec"}
_WRONG_RANK = {
    (3, "bilinear"): "Got 3D input, but bilinear mode needs 4D input",
    (3, "trilinear"): "Got 3D input, but trilinear mode needs 5D input",
    (4, "linear"): "Got 4D input, but linear mode needs 3D input",
    (4, "trilinear"): "Got 4D input, but trilinear mode needs 5D input",
    (5, "linear"): "Got 5D input, but linear mode needs 3D input",
    (5, "bilinear"): "Got 5D input, but bilinear mode needs 4D input",
}


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """Resize ``input`` (N, C, d1, ..., dK) to ``size`` or by ``scale_factor``, as
    torch.nn.functional.interpolate."""
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError(
                "align_corners option can only be set with the interpolating modes: "
                "linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False

    ndim = input.dim()
    dim = ndim - 2
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        scale_factors = None
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError(
                    "Input and output must have the same number of spatial dimensions, but got "
                    f"input with spatial dimensions of {list(input.shape[2:])} and output size "
                    f"of {size}. Please provide input tensor in (N, C, d1, d2, ...,dK) format "
                    "and output size in (o1, o2, ...,oK) format.")
            if not all(_is_integer(x) for x in size):
                raise TypeError(
                    "expected size to be one of int or Tuple[int] or Tuple[int, int] or "
                    f"Tuple[int, int, int], but got size with types {[type(x) for x in size]}")
            output_size = [int(x) for x in size]
        else:
            output_size = [size for _ in range(dim)]
    elif scale_factor is not None:
        output_size = None
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ValueError(
                    "Input and scale_factor must have the same number of spatial dimensions, "
                    f"but got input with spatial dimensions of {list(input.shape[2:])} and "
                    f"scale_factor of shape {scale_factor}. Please provide input tensor in "
                    "(N, C, d1, d2, ...,dK) format and scale_factor in (s1, s2, ...,sK) format.")
            scale_factors = list(scale_factor)
        else:
            scale_factors = [scale_factor for _ in range(dim)]
    else:
        raise ValueError("either size or scale_factor should be defined")

    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if mode == "area" and output_size is None:
        recompute_scale_factor = True
    if recompute_scale_factor:
        output_size = [int(math.floor(float(input.size(i + 2) * scale_factors[i])))
                       for i in range(dim)]
        scale_factors = None
    if scale_factors is not None:
        scale_factors = [float(s) for s in scale_factors]

    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and ndim == 4):
        raise ValueError(
            "Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and "
            "requires a 4-D tensor as input")

    name = _VEC_OPS.get((ndim, mode))
    if name is not None:
        return _binding(name)(input, output_size, scale_factors)
    if mode == "area" and ndim in (3, 4, 5):
        from . import pooling
        pool = getattr(pooling, f"adaptive_avg_pool{dim}d")
        return pool(input, output_size)
    if ndim == 4 and mode == "lanczos":
        if align_corners:
            raise ValueError("Lanczos mode does not support align_corners=True")
        if not antialias:
            raise ValueError("Lanczos mode requires antialias=True")
        return _binding("aten::_upsample_lanczos2d_aa.vec")(input, output_size, align_corners,
                                                            scale_factors)
    name = _VEC_ALIGN_OPS.get((ndim, mode))
    if name is not None:
        if antialias:
            name = _AA_OPS[mode]
        return _binding(name)(input, output_size, align_corners, scale_factors)
    if (ndim, mode) in _WRONG_RANK:
        raise NotImplementedError(_WRONG_RANK[(ndim, mode)])
    raise NotImplementedError(
        f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {ndim}D) for the modes: "
        f"nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact "
        f"(got {mode})")


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` "
                  "instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use "
                  "`nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use "
                  "`nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


# -- grid_sample / affine_grid -------------------------------------------------------------

_ALIGN_WARNING = (
    "Default grid_sample and affine_grid behavior has changed to align_corners=False since "
    "1.3.0. Please specify align_corners=True if the old behavior is desired. See the "
    "documentation of grid_sample for details.")


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError(
            "nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or "
            f"'bicubic', but got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(
            "nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
            f"'reflection', but got: '{padding_mode}'")
    mode_enum = {"bilinear": 0, "nearest": 1, "bicubic": 2}[mode]
    padding_enum = {"zeros": 0, "border": 1, "reflection": 2}[padding_mode]
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    return _op("aten::grid_sampler", input, grid, mode_enum, padding_enum, bool(align_corners))


def affine_grid(theta, size, align_corners=None):
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    size = list(size)
    if len(size) == 4:
        if theta.dim() != 3 or theta.shape[-2] != 2 or theta.shape[-1] != 3:
            raise ValueError(
                f"Expected a batch of 2D affine matrices of shape Nx2x3 for size {size}. "
                f"Got {theta.shape}.")
        spatial = size[-2:]
    elif len(size) == 5:
        if theta.dim() != 3 or theta.shape[-2] != 3 or theta.shape[-1] != 4:
            raise ValueError(
                f"Expected a batch of 3D affine matrices of shape Nx3x4 for size {size}. "
                f"Got {theta.shape}.")
        spatial = size[-3:]
    else:
        raise NotImplementedError(
            "affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
            f"respectively. Got size {size}.")
    if align_corners and min(spatial) == 1:
        warnings.warn(
            "Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
            "align_corners=True. This is not an intended use case of affine_grid. See the "
            "documentation of affine_grid for details.", stacklevel=2)
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    return _op("aten::affine_grid_generator", theta, size, bool(align_corners))


# -- shuffles, one_hot, gumbel_softmax -----------------------------------------------------
#
# torch's F.pixel_shuffle, F.pixel_unshuffle, F.channel_shuffle and F.native_channel_shuffle
# are its top-level builtins and F.one_hot is torch._C._nn.one_hot: so are strided's (the
# generated bindings, with their argument checking).

pixel_shuffle = _tf.pixel_shuffle
pixel_unshuffle = _tf.pixel_unshuffle
channel_shuffle = _tf.channel_shuffle
native_channel_shuffle = _tf.native_channel_shuffle
one_hot = _nn.one_hot


def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    """Samples from the Gumbel-softmax distribution; the noise is drawn with
    ``exponential_`` on a tensor like ``logits``, as torch draws it, so a seed gives
    torch's sample. ``hard=True`` returns the one-hot argmax with the soft sample's
    gradient (straight-through)."""
    import strided as _s
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    gumbels = -_s.empty_like(logits, memory_format=_s.contiguous_format).exponential_().log()
    gumbels = (logits + gumbels) / tau
    y_soft = gumbels.softmax(dim)
    if hard:
        index = y_soft.max(dim, keepdim=True)[1]
        y_hard = _s.zeros_like(logits, memory_format=_s.contiguous_format).scatter_(
            dim, index, 1.0)
        return y_hard - y_soft.detach() + y_soft
    return y_soft
