"""torch.nn._reduction: the reduction enum of the loss operators and the legacy
``size_average`` / ``reduce`` arguments (mapped to a reduction, with torch's warning)."""

from __future__ import annotations

import warnings

_LEGACY_WARNING = ("size_average and reduce args will be deprecated, please use "
                   "reduction='{}' instead.")


def get_enum(reduction: str) -> int:
    """'none' -> 0, 'mean' -> 1, 'sum' -> 2 (aten's Reduction enum)."""
    if reduction == "none":
        return 0
    if reduction == "mean":
        return 1
    if reduction == "elementwise_mean":
        warnings.warn("reduction='elementwise_mean' is deprecated. "
                      "Please use reduction='mean' instead.", stacklevel=2)
        return 1
    if reduction == "sum":
        return 2
    raise ValueError(f"{reduction} is not a valid value for reduction")


def legacy_get_string(size_average, reduce, emit_warning: bool = True) -> str:
    """The reduction that the legacy pair stands for (None counts as True)."""
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    if size_average and reduce:
        ret = "mean"
    elif reduce:
        ret = "sum"
    else:
        ret = "none"
    if emit_warning:
        warnings.warn(_LEGACY_WARNING.format(ret), stacklevel=2)
    return ret


def legacy_get_enum(size_average, reduce, emit_warning: bool = True) -> int:
    return get_enum(legacy_get_string(size_average, reduce, emit_warning))
