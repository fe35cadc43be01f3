"""``strided.signal.windows``: torch.signal.windows' window functions."""

from .windows import *  # noqa: F403
from .windows import __all__  # noqa: F401
