"""torch.nn.functional.linear_cross_entropy: ``cross_entropy(linear(input, W, b), target)``.

With ``options=None`` it is exactly that composition (so the graph is torch's:
``NllLossBackward0`` over ``LogSoftmaxBackward0`` over ``MmBackward0``...). With a
``LinearCrossEntropyOptions`` it runs the chunked ops of
``strided.nn.modules.linear_cross_entropy`` (Note [chunked linear cross entropy]) where
they apply, and otherwise warns and falls back to the composition, as torch does.

``linear_weight`` may have the shape ``(C, d_1, ..., d_K, in_features)``: the logits are
then ``(N, C, d_1, ..., d_K)`` (a K-dimensional loss).
"""

from __future__ import annotations

import math
import warnings

from .linear import linear
from .loss import cross_entropy

__all__ = ["linear_cross_entropy"]


def _strided_options(options):
    """``options`` as strided's ``LinearCrossEntropyOptions`` (an object with the same
    fields, e.g. torch's own, is read field by field)."""
    from ..modules.linear_cross_entropy_options import LinearCrossEntropyOptions
    if isinstance(options, LinearCrossEntropyOptions):
        return options
    acc_dtype = options.acc_dtype
    if acc_dtype is not None and not isinstance(acc_dtype, _dtype_class()):
        import strided
        acc_dtype = getattr(strided, str(acc_dtype).rpartition(".")[2])
    return LinearCrossEntropyOptions(
        allow_retain_graph=options.allow_retain_graph,
        batch_chunk_size=options.batch_chunk_size,
        chunking_method=options.chunking_method, acc_policy=options.acc_policy,
        acc_dtype=acc_dtype)


def _dtype_class():
    from ...core.dtypes import dtype
    return dtype


def _is_tracing() -> bool:
    return False                            # strided has no tracer (torch.jit.trace)


def linear_cross_entropy(input, linear_weight, target, *, linear_bias=None, weight=None,
                         reduction: str = "mean", ignore_index: int | None = None,
                         label_smoothing: float = 0.0, options=None):
    """Cross entropy of ``input @ linear_weight.T (+ linear_bias)`` against ``target``.

    ``ignore_index=None`` means -100 for class-index targets and is required for
    class-probability targets (``target.shape`` equal to the logits' shape).

        >>> x = strided.randn(4, 3); w = strided.randn(5, 3)
        >>> linear_cross_entropy(x, w, strided.tensor([0, 4, 1, 1])).shape
        torch.Size([])
    """
    import strided
    if input.dim() < 1 or input.dim() > 2:
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.dim()}")
    if linear_weight.dim() < 2:
        raise RuntimeError("expected linear_weight with dimensionality at least 2, got "
                           f"{linear_weight.dim()}")
    batch_shape = tuple(input.shape[:-1])
    in_features = input.shape[-1]
    if in_features != linear_weight.shape[-1]:
        raise RuntimeError(
            "expected equal input and linear_weight last dimensions (in_features), "
            f"got {input.shape[-1]} and {linear_weight.shape[-1]}, respectively")
    num_classes = linear_weight.shape[0]
    out_features = tuple(linear_weight.shape[1:-1])
    if linear_bias is not None and tuple(linear_bias.shape) != (num_classes, *out_features):
        raise RuntimeError(f"expected linear_bias shape {(num_classes, *out_features)}, got "
                           f"{tuple(linear_bias.shape)}")
    if out_features and not batch_shape:
        raise RuntimeError(
            f"K-dimensional loss defined by linear_weight shape {tuple(linear_weight.shape)} "
            f"requires batched input, (N, {in_features}), got unbatched input with shape "
            f"{tuple(input.shape)}")
    logits_shape = (*batch_shape, num_classes, *out_features)
    if tuple(target.shape) == logits_shape and ignore_index is not None:
        raise RuntimeError("ignore_index cannot be specified when target contains "
                           "probabilities")
    ignore_index = -100 if ignore_index is None else ignore_index

    if options is not None:
        tracing = _is_tracing()
        chunkable = (not out_features and reduction in ("mean", "sum", "none")
                     and label_smoothing == 0.0 and target.dtype == strided.int64
                     and not tracing)
        if not chunkable:
            bias_shape = tuple(linear_bias.shape) if linear_bias is not None else None
            warnings.warn(
                "linear_cross_entropy: ``options`` ignored; chunked path needs reduction in "
                "{'mean','sum','none'}, label_smoothing == 0, target.dtype == int64, "
                f"out_features == (). Got reduction={reduction!r}, label_smoothing="
                f"{label_smoothing}, target.dtype={target.dtype}, out_features="
                f"{out_features}, tracing={tracing}, linear_bias.shape={bias_shape}.",
                stacklevel=2)
        else:
            return _chunked(input, linear_weight, target, linear_bias, weight, reduction,
                            ignore_index, label_smoothing, _strided_options(options),
                            in_features, num_classes)

    if out_features:
        flat = math.prod(out_features, start=num_classes)
        linear_weight = linear_weight.reshape((flat, in_features))
        if linear_bias is not None:
            linear_bias = linear_bias.reshape(flat)
    logits = linear(input, linear_weight, linear_bias).reshape(logits_shape)
    return cross_entropy(logits, target, weight=weight, reduction=reduction,
                         ignore_index=ignore_index, label_smoothing=label_smoothing)


def _chunked(input, linear_weight, target, linear_bias, weight, reduction, ignore_index,
             label_smoothing, options, in_features, num_classes):
    from ...autograd import grad_mode
    from ..modules.linear_cross_entropy import (
        _linear_cross_entropy_batch_chunked,
        _linear_cross_entropy_batch_chunked_no_reduction,
    )
    batched = input.dim() == 2
    if not batched:
        input = input.unsqueeze(0)
        target = target.unsqueeze(0)
    options = options._adjust(num_batches=input.shape[0], in_features=in_features,
                              num_classes=num_classes, dtype=input.dtype,
                              device=input.device)
    if reduction == "none":
        result = _linear_cross_entropy_batch_chunked_no_reduction(
            input, linear_weight, target, linear_bias, weight, ignore_index,
            options.batch_chunk_size, options.acc_policy, options.acc_dtype)
    else:
        enabled = grad_mode.STATE.enabled
        result = _linear_cross_entropy_batch_chunked(
            input, linear_weight, target, linear_bias, weight, reduction, ignore_index,
            label_smoothing, options.batch_chunk_size, options.acc_policy, options.acc_dtype,
            options.allow_retain_graph, input.requires_grad and enabled,
            linear_weight.requires_grad and enabled,
            linear_bias is not None and linear_bias.requires_grad and enabled)[0]
    if not batched:
        result = result.squeeze(0)
    return result
