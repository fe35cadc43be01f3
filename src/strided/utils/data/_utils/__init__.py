"""DataLoader internals: collation, fetchers and the worker loop."""

from . import collate, fetch, worker  # noqa: F401
from .worker import MP_STATUS_CHECK_INTERVAL  # noqa: F401
