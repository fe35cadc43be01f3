"""torch.nn.functional: linear, bilinear.

Both are aten ops bound directly, as torch binds them (``F.linear`` is
``torch._C._nn.linear``, ``F.bilinear`` is ``torch.bilinear``); their composites live in
``kernels/nn/linear.py``.
"""

from __future__ import annotations

from ...ops._generated.nn_functions import linear
from ...ops._generated.torch_functions import bilinear

__all__ = ["linear", "bilinear"]
