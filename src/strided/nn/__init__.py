"""``strided.nn``: torch.nn. Layers in ``nn.modules`` (by torch's module paths), the
functional forms in ``nn.functional``, ``nn.init`` and ``nn.utils``."""

from __future__ import annotations

from . import (  # noqa: F401
    functional,
    init,
    utils,  # noqa: F401
)
from .modules import *  # noqa: F403
from .parameter import *  # noqa: F403
from . import parallel  # noqa: E402  (issue 11: nn.parallel.DataParallel)
from .parallel import DataParallel  # noqa: E402, F401
