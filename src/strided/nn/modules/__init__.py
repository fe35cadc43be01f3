"""``strided.nn.modules``: the layers, one submodule per torch module path
(``torch.nn.modules.conv.Conv2d``...; whole saved models pickle by these paths).
Each submodule lists its public names in ``__all__``."""

from __future__ import annotations

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
from .sparse import *  # noqa: F403
from .upsampling import *  # noqa: F403
