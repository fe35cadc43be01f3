"""torch.nn.functional: every loss function.

Each function maps its Python arguments (``reduction`` strings, the legacy
``size_average`` / ``reduce`` pair, torch's size warnings and errors) onto the aten
operator torch's own ``F.<loss>`` calls (``nll_loss_nd``, ``cross_entropy_loss``,
``mse_loss``, ``kl_div``, ``ctc_loss``...), so values, ``grad_fn`` names and messages
follow torch. ``gaussian_nll_loss``, ``multilabel_soft_margin_loss`` and
``triplet_margin_with_distance_loss`` are Python in torch too and are written here over
public ops.
"""

from __future__ import annotations

import math
import warnings

from .. import _reduction as _Reduction

__all__ = [
    "binary_cross_entropy", "binary_cross_entropy_with_logits", "cosine_embedding_loss",
    "cross_entropy", "ctc_loss", "gaussian_nll_loss", "hinge_embedding_loss", "huber_loss",
    "kl_div", "l1_loss", "margin_ranking_loss", "mse_loss", "multi_margin_loss",
    "multilabel_margin_loss", "multilabel_soft_margin_loss", "nll_loss", "poisson_nll_loss",
    "smooth_l1_loss", "soft_margin_loss", "triplet_margin_loss",
    "triplet_margin_with_distance_loss",
]


def _s():
    import strided
    return strided


def _nn():
    from ...ops._generated import nn_functions
    return nn_functions


def _legacy(size_average, reduce, reduction: str) -> str:
    if size_average is not None or reduce is not None:
        return _legacy_warn(size_average, reduce)
    return reduction


def _legacy_warn(size_average, reduce) -> str:
    return _Reduction.legacy_get_string(size_average, reduce)


def _enum(size_average, reduce, reduction: str) -> int:
    return _Reduction.get_enum(_legacy(size_average, reduce, reduction))


def _size_warning(input, target) -> None:
    if target.size() != input.size():
        warnings.warn(
            f"Using a target size ({target.size()}) that is different to the input size "
            f"({input.size()}). This will likely lead to incorrect results due to "
            f"broadcasting. Please ensure they have the same size.", stacklevel=3)


def _weighted_reduction(loss, weight, input, reduction, normalise_by_weight):
    s = _s()
    if weight.size() != input.size():
        raise ValueError("Weights and input must have the same size.")
    weighted = loss * weight
    if reduction == "none":
        return weighted
    if reduction == "sum":
        return s.sum(weighted)
    if reduction == "mean":
        return s.sum(weighted) / s.sum(weight) if normalise_by_weight else weighted.mean()
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', "
                     f"'sum'.")


# -- classification -----------------------------------------------------------------------------

def nll_loss(input, target, weight=None, size_average=None, ignore_index: int = -100,
             reduce=None, reduction: str = "mean"):
    """Negative log likelihood of log-probabilities ``input`` at the classes ``target``."""
    return _nn().nll_loss_nd(input, target, weight, _enum(size_average, reduce, reduction),
                             ignore_index)


def cross_entropy(input, target, weight=None, size_average=None, ignore_index: int = -100,
                  reduce=None, reduction: str = "mean", label_smoothing: float = 0.0):
    """log_softmax over the class dim, then nll_loss (or the class-probability form)."""
    return _nn().cross_entropy_loss(input, target, weight,
                                    _enum(size_average, reduce, reduction), ignore_index,
                                    label_smoothing)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,
                         reduction: str = "mean"):
    """-w (y log x + (1 - y) log(1 - x)), with the logs clamped at -100."""
    r = _enum(size_average, reduce, reduction)
    if target.size() != input.size():
        raise ValueError(
            f"Using a target size ({target.size()}) that is different to the input size "
            f"({input.size()}) is deprecated. Please ensure they have the same size.")
    if weight is not None:
        weight = weight.expand(_s().broadcast_shapes(target.size(), weight.size()))
    return _nn().binary_cross_entropy(input, target, weight, r)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None,
                                     reduce=None, reduction: str = "mean", pos_weight=None):
    """binary_cross_entropy(sigmoid(input), target), computed stably from the logits."""
    r = _enum(size_average, reduce, reduction)
    if target.size() != input.size():
        raise ValueError(f"Target size ({target.size()}) must be the same as input size "
                         f"({input.size()})")
    return _s().binary_cross_entropy_with_logits(input, target, weight, pos_weight, r)


def kl_div(input, target, size_average=None, reduce=None, reduction: str = "mean",
           log_target: bool = False):
    """Kullback-Leibler divergence of ``target`` from the log-probabilities ``input``."""
    if size_average is not None or reduce is not None:
        r = _Reduction.get_enum(_legacy_warn(size_average, reduce))
    else:
        if reduction == "mean":
            warnings.warn(
                "reduction: 'mean' divides the total loss by both the batch size and the "
                "support size.'batchmean' divides only by the batch size, and aligns with the "
                "KL div math definition.'mean' will be changed to behave the same as "
                "'batchmean' in the next major release.", stacklevel=2)
        r = _Reduction.get_enum("sum" if reduction == "batchmean" else reduction)
    reduced = _s().kl_div(input, target, r, log_target=log_target)
    if reduction == "batchmean" and input.dim() != 0:
        reduced = reduced / input.size()[0]
    return reduced


def poisson_nll_loss(input, target, log_input: bool = True, full: bool = False,
                     size_average=None, eps: float = 1e-8, reduce=None,
                     reduction: str = "mean"):
    """exp(input) - target * input (log_input) or input - target * log(input + eps)."""
    reduction = _legacy(size_average, reduce, reduction)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not a valid value for reduction")
    return _s().poisson_nll_loss(input, target, log_input, full, eps,
                                 _Reduction.get_enum(reduction))


def gaussian_nll_loss(input, target, var, full: bool = False, eps: float = 1e-6,
                      reduction: str = "mean"):
    """0.5 * (log(var) + (input - target)**2 / var) (+ 0.5 log(2 pi) when ``full``)."""
    s = _s()
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * s.ones_like(input)
    elif s.any(var < 0):
        raise ValueError("var has negative entry/entries")
    if var.size() != input.size():
        if input.size()[:-1] == var.size():
            var = s.unsqueeze(var, -1)
        elif input.ndim == var.ndim and sum(
                y for x, y in zip(input.size(), var.size()) if x != y) == 1:
            pass
        else:
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    var = var.clone()
    with s.no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (s.log(var) + (input - target) ** 2 / var)
    if full:
        loss += 0.5 * math.log(2 * math.pi)
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank: int = 0,
             reduction: str = "mean", zero_infinity: bool = False):
    """Connectionist Temporal Classification loss."""
    return _s().ctc_loss(log_probs, targets, input_lengths, target_lengths, blank,
                         _Reduction.get_enum(reduction), zero_infinity)


# -- regression ---------------------------------------------------------------------------------

def l1_loss(input, target, size_average=None, reduce=None, reduction: str = "mean",
            weight=None):
    """|input - target|, reduced."""
    _size_warning(input, target)
    reduction = _legacy(size_average, reduce, reduction)
    a, b = _s().broadcast_tensors(input, target)
    if weight is not None:
        return _weighted_reduction(_s().abs(a - b), weight, input, reduction, True)
    return _nn().l1_loss(a, b, _Reduction.get_enum(reduction))


def mse_loss(input, target, size_average=None, reduce=None, reduction: str = "mean",
             weight=None):
    """(input - target)**2, reduced."""
    _size_warning(input, target)
    reduction = _legacy(size_average, reduce, reduction)
    a, b = _s().broadcast_tensors(input, target)
    if weight is not None:
        return _weighted_reduction(_s().pow(a - b, 2), weight, input, reduction, True)
    return _nn().mse_loss(a, b, _Reduction.get_enum(reduction))


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction: str = "mean",
                   beta: float = 1.0):
    """0.5 d**2 / beta where |d| < beta, else |d| - 0.5 beta."""
    _size_warning(input, target)
    reduction = _legacy(size_average, reduce, reduction)
    a, b = _s().broadcast_tensors(input, target)
    if beta == 0.0:
        return _nn().l1_loss(a, b, _Reduction.get_enum(reduction))
    return _nn().smooth_l1_loss(a, b, _Reduction.get_enum(reduction), beta)


def huber_loss(input, target, reduction: str = "mean", delta: float = 1.0, weight=None):
    """0.5 d**2 where |d| < delta, else delta (|d| - 0.5 delta)."""
    _size_warning(input, target)
    a, b = _s().broadcast_tensors(input, target)
    if weight is None:
        return _nn().huber_loss(a, b, _Reduction.get_enum(reduction), delta)
    if weight.size() != input.size():
        raise ValueError("Weights and input must have the same size.")
    loss = _nn().huber_loss(a, b, _Reduction.get_enum("none"), delta)
    return _weighted_reduction(loss, weight, input, reduction, False)


# -- margin and embedding losses ---------------------------------------------------------------

def margin_ranking_loss(input1, input2, target, margin: float = 0, size_average=None,
                        reduce=None, reduction: str = "mean"):
    """max(0, -target * (input1 - input2) + margin)."""
    r = _enum(size_average, reduce, reduction)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(
            f"margin_ranking_loss : All input tensors should have same dimension but got "
            f"sizes: input1: {input1.size()}, input2: {input2.size()}, target: "
            f"{target.size()} ")
    return _s().margin_ranking_loss(input1, input2, target, margin, r)


def hinge_embedding_loss(input, target, margin: float = 1.0, size_average=None, reduce=None,
                         reduction: str = "mean"):
    """input where target is 1, max(0, margin - input) where it is -1."""
    return _s().hinge_embedding_loss(input, target, margin,
                                      _enum(size_average, reduce, reduction))


def multilabel_margin_loss(input, target, size_average=None, reduce=None,
                           reduction: str = "mean"):
    """Multi-class multi-label hinge loss (targets listed up to the first -1)."""
    return _nn().multilabel_margin_loss(input, target, _enum(size_average, reduce, reduction))


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction: str = "mean"):
    """log(1 + exp(-target * input))."""
    return _nn().soft_margin_loss(input, target, _enum(size_average, reduce, reduction))


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None,
                                reduction: str = "mean"):
    """Per-class binary cross entropy on logits, averaged over the classes."""
    from . import logsigmoid
    reduction = _legacy(size_average, reduce, reduction)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    loss = loss.sum(dim=class_dim) / input.size(class_dim)
    if reduction == "none":
        return loss
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    raise ValueError(reduction + " is not valid")


def cosine_embedding_loss(input1, input2, target, margin: float = 0, size_average=None,
                          reduce=None, reduction: str = "mean"):
    """1 - cos(x1, x2) where target is 1, max(0, cos(x1, x2) - margin) where it is -1."""
    return _s().cosine_embedding_loss(input1, input2, target, margin,
                                       _enum(size_average, reduce, reduction))


def multi_margin_loss(input, target, p: int = 1, margin: float = 1.0, weight=None,
                      size_average=None, reduce=None, reduction: str = "mean"):
    """Multi-class hinge loss: sum over j != y of max(0, margin - x[y] + x[j])**p / C."""
    r = _enum(size_average, reduce, reduction)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    return _nn().multi_margin_loss(input, target, p, margin, weight, r)


def triplet_margin_loss(anchor, positive, negative, margin: float = 1.0, p: float = 2,
                        eps: float = 1e-6, swap: bool = False, size_average=None, reduce=None,
                        reduction: str = "mean"):
    """max(0, margin + d(a, p) - d(a, n)) with the p-norm pairwise distance."""
    r = _enum(size_average, reduce, reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    return _s().triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap, r)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None,
                                      margin: float = 1.0, swap: bool = False,
                                      reduction: str = "mean"):
    """triplet_margin_loss with any distance function (pairwise_distance by default)."""
    s = _s()
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    a_dim, p_dim, n_dim = anchor.ndim, positive.ndim, negative.ndim
    if not (a_dim == p_dim and p_dim == n_dim):
        raise RuntimeError(
            f"The anchor, positive, and negative tensors are expected to have the same number "
            f"of dimensions, but got: anchor {a_dim}D, positive {p_dim}D, and negative "
            f"{n_dim}D inputs")
    if distance_function is None:
        distance_function = s.pairwise_distance
    dist_pos = distance_function(anchor, positive)
    dist_neg = distance_function(anchor, negative)
    if swap:
        dist_neg = s.minimum(dist_neg, distance_function(positive, negative))
    loss = s.clamp_min(margin + dist_pos - dist_neg, 0)
    if reduction == "sum":
        return s.sum(loss)
    if reduction == "mean":
        return s.mean(loss)
    return loss
