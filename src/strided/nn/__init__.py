"""``strided.nn``: the functional side of torch.nn (``strided.nn.functional``)."""

from . import functional  # noqa: F401
