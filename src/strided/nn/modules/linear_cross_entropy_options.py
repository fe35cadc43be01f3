"""``LinearCrossEntropyOptions``: how ``F.linear_cross_entropy`` runs its chunked path.

Passing an instance (instead of ``options=None``) asks ``linear_cross_entropy`` to process
the batch in pieces of ``batch_chunk_size`` rows, so the ``(N, C)`` logits are never held
at once. ``"auto"`` fields are resolved per call by ``_adjust`` from the device and dtype of
the input, with torch's table of defaults (see Note [auto defaults]).

    >>> opts = LinearCrossEntropyOptions(batch_chunk_size=4)
    >>> opts._adjust(10, 3, 7, float64, device("cpu")).batch_chunk_size
    4
"""

from __future__ import annotations

import dataclasses
from typing import Literal, NamedTuple

from ... import bfloat16, float16, float32, float64
from ...core.dtypes import dtype as DType

__all__ = ["LinearCrossEntropyOptions"]


class _AutoDefault(NamedTuple):
    acc_policy: str
    chunking_method: str


# Note [auto defaults]: torch resolves "auto" per (device type, input dtype); half-precision
# CPU inputs get the "accurate" policy (the only one whose weight-gradient matmul runs in
# float32 there), everything else ("cpu", float32/float64 included) the fallback.
_AUTO_DEFAULTS: dict[tuple[str, DType], _AutoDefault] = {
    ("cuda", bfloat16): _AutoDefault("compact", "aspect_ratio:2"),
    ("cuda", float16): _AutoDefault("compact", "aspect_ratio:2"),
    ("cpu", bfloat16): _AutoDefault("accurate", "aspect_ratio"),
    ("cpu", float16): _AutoDefault("accurate", "aspect_ratio"),
}
_AUTO_FALLBACK: _AutoDefault = _AutoDefault("compact", "aspect_ratio:2")

_ACC_POLICIES = ("auto", "accurate", "balanced", "compact")


@dataclasses.dataclass(slots=True, frozen=True)
class LinearCrossEntropyOptions:
    """Settings of the chunked ``linear_cross_entropy``.

    - ``allow_retain_graph``: keep the gradients precomputed by a ``"mean"``/``"sum"``
      forward so that backward may run more than once (costs one gradient-sized copy).
    - ``batch_chunk_size``: rows per chunk (``None``: one chunk, or what
      ``chunking_method`` picks).
    - ``chunking_method``: ``"auto"``, ``"aspect_ratio"``, ``"aspect_ratio:N"`` or ``None``.
    - ``acc_policy``: ``"auto"``, ``"accurate"``, ``"balanced"`` or ``"compact"``.
    - ``acc_dtype``: accumulation dtype (float32 for half-precision inputs), or ``None``.
    """

    allow_retain_graph: bool = False
    batch_chunk_size: int | None = None
    chunking_method: str | None = "auto"
    acc_policy: Literal["accurate", "balanced", "compact", "auto"] = "auto"
    acc_dtype: DType | None = None

    def __post_init__(self):
        if self.acc_policy not in _ACC_POLICIES:
            raise ValueError(f"invalid acc_policy: {self.acc_policy!r}")
        method = self.chunking_method
        if method is not None and method != "auto":
            name, colon, factor = method.partition(":")
            if not colon:
                factor = "1"
            if name != "aspect_ratio" or not factor.isdigit() or int(factor) <= 0:
                raise ValueError(f"invalid chunking_method: {method!r}")
        size = self.batch_chunk_size
        if size is not None and not (isinstance(size, int) and size > 0):
            raise ValueError(f"batch_chunk_size must be positive int or None, got {size!r}")
        if self.acc_dtype is not None and self.acc_dtype not in (float16, bfloat16, float32,
                                                                 float64):
            raise ValueError(
                "acc_dtype must be one of {None, torch.float16, torch.bfloat16, "
                f"torch.float32, torch.float64}}, got {self.acc_dtype!r}. Pass "
                "acc_dtype=None to let the op pick automatically.")

    @staticmethod
    def _ceil_div(a: int, b: int) -> int:
        return -(-a // b)

    @staticmethod
    def _resolve_auto_acc_dtype(dtype, device):
        """float32 for half-precision inputs on a device with a mixed-precision matmul
        (here: the CPU); ``None`` otherwise."""
        if device is None or dtype not in (float16, bfloat16):
            return None
        if device.type == "cpu":
            return float32
        return None

    def _compute_batch_chunk_size(self, num_batches: int, in_features: int,
                                  num_classes: int, method: str | None = None) -> int:
        """Rows per chunk under ``aspect_ratio[:N]``: the chunk's logits take about as much
        memory as the whole input (divided by N), rounded up to a power of two."""
        method = str(method if method is not None else self.chunking_method)
        if not method.startswith("aspect_ratio"):
            raise AssertionError(f"unhandled chunking_method: {method!r}")
        factor = int(method.split(":", 1)[1]) if ":" in method else 1
        classes_per_feature = self._ceil_div(num_classes, in_features)
        target = self._ceil_div(num_batches, classes_per_feature)
        power = 1 << (target - 1).bit_length()
        return min(power // factor, num_batches)

    def _adjust(self, num_batches, in_features, num_classes, dtype, device=None):
        """A copy with every ``"auto"``/``None`` field resolved for one call."""
        acc_policy = self.acc_policy
        method = self.chunking_method
        if method == "auto" and self.batch_chunk_size is not None:
            method = None                  # an explicit size wins over the heuristic
        if acc_policy == "auto" or method == "auto":
            picked = (_AUTO_DEFAULTS.get((device.type, dtype), _AUTO_FALLBACK)
                      if device is not None else _AUTO_FALLBACK)
            if acc_policy == "auto":
                acc_policy = picked.acc_policy
            if method == "auto":
                method = picked.chunking_method
        size = num_batches if self.batch_chunk_size is None else min(self.batch_chunk_size,
                                                                     num_batches)
        if method is not None:
            size = self._compute_batch_chunk_size(num_batches, in_features, num_classes,
                                                  method)
            if self.batch_chunk_size is not None and self.batch_chunk_size != size:
                raise ValueError(
                    f"batch_chunk_size (={self.batch_chunk_size}) and chunking_method "
                    f"('{method}') give different chunk sizes ({self.batch_chunk_size} vs "
                    f"{size}); pass only one.")
        if self.acc_dtype is None:
            auto = (self._resolve_auto_acc_dtype(dtype, device)
                    if self.acc_policy == "auto" else None)
            acc_dtype = auto if auto is not None else dtype
        else:
            acc_dtype = self.acc_dtype
        return dataclasses.replace(self, acc_policy=acc_policy, chunking_method=method,
                                   batch_chunk_size=max(1, size), acc_dtype=acc_dtype)
