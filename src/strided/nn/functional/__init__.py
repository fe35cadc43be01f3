"""``strided.nn.functional``: torch.nn.functional, one submodule per area.

Each submodule lists its public names in ``__all__``; this package re-exports them all
(torch keeps them in one module; programs only ever see ``torch.nn.functional.<name>``).
"""

from __future__ import annotations

from ...frontend.tensor import Tensor as _Tensor
from ...ops._generated import nn_functions as _generated
from ...ops._generated.nn_functions import *  # noqa: F403  (aten ops with python_module: nn)

_generated.bind_tensor_class(_Tensor)

from .activation import *  # noqa: E402, F403
from .attention import *  # noqa: E402, F403
from .attention import (  # noqa: E402, F401  (private helpers programs reach for)
    _canonical_mask,
    _in_projection,
    _in_projection_packed,
    _mha_shape_check,
    _none_or_dtype,
)
from .conv import *  # noqa: E402, F403
from .distance import *  # noqa: E402, F403
from .dropout import *  # noqa: E402, F403
from .linear import *  # noqa: E402, F403
from .linear_cross_entropy import *  # noqa: E402, F403
from .loss import *  # noqa: E402, F403
from .normalization import *  # noqa: E402, F403
from .pooling import *  # noqa: E402, F403
from .sparse import *  # noqa: E402, F403
from .vision import *  # noqa: E402, F403
