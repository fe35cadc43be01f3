"""``strided.nn.functional``: torch.nn.functional's operators, as generated bindings
(``python_module: nn`` in native_functions.yaml) or small wrappers over them.

Several engineers add to this module: append new names, keep the existing ones.
"""

from __future__ import annotations

from ..frontend.tensor import Tensor as _Tensor
from ..ops._generated import nn_functions as _generated
from ..ops._generated.nn_functions import pad  # noqa: F401

_generated.bind_tensor_class(_Tensor)
