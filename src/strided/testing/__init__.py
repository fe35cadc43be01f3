"""``strided.testing``: ``assert_close`` and ``make_tensor``, as ``torch.testing`` has them."""

from ._comparison import assert_allclose, assert_close
from ._creation import make_tensor

__all__ = ["assert_allclose", "assert_close", "make_tensor"]
