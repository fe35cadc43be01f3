"""``strided.nn.modules``: the layers, one submodule per torch module path
(``torch.nn.modules.conv.Conv2d``...; whole saved models pickle by these paths).
Each submodule lists its public names in ``__all__``."""

from __future__ import annotations

from . import (  # noqa: E402
    activation,
    batchnorm,
    channelshuffle,
    container,
    conv,
    distance,
    dropout,
    flatten,
    fold,
    instancenorm,
    lazy,
    linear,
    linear_cross_entropy,
    linear_cross_entropy_options,
    loss,
    module,
    normalization,
    padding,
    pixelshuffle,
    pooling,
    rnn,
    sparse,
    transformer,
    upsampling,
)
from .activation import *  # noqa: F403
from .batchnorm import *  # noqa: F403
from .channelshuffle import *  # noqa: F403
from .container import *  # noqa: F403
from .conv import *  # noqa: F403
from .distance import *  # noqa: F403
from .dropout import *  # noqa: F403
from .flatten import *  # noqa: F403
from .fold import *  # noqa: F403
from .instancenorm import *  # noqa: F403
from .lazy import *  # noqa: F403
from .linear import *  # noqa: F403
from .linear_cross_entropy import *  # noqa: F403
from .linear_cross_entropy_options import *  # noqa: F403
from .loss import *  # noqa: F403
from .module import *  # noqa: F403
from .normalization import *  # noqa: F403
from .padding import *  # noqa: F403
from .pixelshuffle import *  # noqa: F403
from .pooling import *  # noqa: F403
from .rnn import *  # noqa: F403
from .sparse import *  # noqa: F403
from .transformer import *  # noqa: F403
from .upsampling import *  # noqa: F403

# Only the layers are public: a star import of this package (strided.nn does one) must not
# bring in its submodules (``utils`` would shadow ``strided.nn.utils``).
__all__ = [name for area in (
    activation, batchnorm, channelshuffle, container, conv, distance, dropout, flatten, fold,
    instancenorm, lazy, linear, linear_cross_entropy, linear_cross_entropy_options, loss, module,
    normalization, padding, pixelshuffle, pooling, rnn, sparse, transformer, upsampling,
) for name in area.__all__]
