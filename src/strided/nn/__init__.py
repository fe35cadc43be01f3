"""``strided.nn``: torch.nn. Layers in ``nn.modules`` (by torch's module paths), the
functional forms in ``nn.functional``, ``nn.init``, ``nn.utils`` and ``nn.parallel``."""

from __future__ import annotations

from . import functional, init, parallel, utils  # noqa: F401
from .modules import *  # noqa: F403
from .parallel import DataParallel  # noqa: F401
from .parameter import *  # noqa: F403
