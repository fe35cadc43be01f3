"""``strided.masked``: torch.masked's reductions and normalizations over strided tensors.

Each takes a boolean ``mask`` (broadcastable to the input; ``None`` means every element
counts) and computes as if the masked-out elements were absent: they are replaced by the
operation's identity (0 for sum, 1 for prod, -inf for amax, ...) before the ordinary op
runs, so gradients flow through the ordinary ops' graphs. MaskedTensor is not provided.

    strided.masked.sum(x, 1, mask=x > 0)
    strided.masked.softmax(x, -1, mask=valid)
"""

from ._ops import (
    _canonical_dim,
    _combine_input_and_mask,
    _input_mask,
    _output_mask,
    _reduction_identity,
    _where,
    amax,
    amin,
    argmax,
    argmin,
    cumprod,
    cumsum,
    log_softmax,
    logaddexp,
    logsumexp,
    mean,
    median,
    norm,
    normalize,
    prod,
    softmax,
    softmin,
    std,
    sum,
    var,
)

__all__ = [
    "amax", "amin", "argmax", "argmin", "cumprod", "cumsum", "log_softmax", "logaddexp",
    "logsumexp", "mean", "median", "norm", "normalize", "prod", "softmax", "softmin", "std",
    "sum", "var",
]

_PRIVATE = (_canonical_dim, _combine_input_and_mask, _input_mask, _output_mask,
            _reduction_identity, _where)
