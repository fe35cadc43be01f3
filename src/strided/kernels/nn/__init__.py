"""Kernels of torch.nn's aten operators, one module per area (NumPy)."""

from . import (  # noqa: F401
    activation,
    attention,
    conv,
    distance,
    dropout,
    embedding,
    linear,
    loss,
    normalization,
    pooling,
    rnn,
    threshold_backward,
    utils,
    vision,
)

MODULES = (linear, conv, pooling, normalization, embedding, dropout, activation, loss,
           vision, distance, utils, attention, rnn, threshold_backward)
