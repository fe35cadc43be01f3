"""torch.nn.modules.padding: the padding layers (Zero, Constant, Reflection, Replication,
Circular; 1d to 3d). Each is ``F.pad`` with its mode; the padding is normalised to a tuple
of 2, 4 or 6 ints as torch's ``_ntuple`` does."""

from __future__ import annotations

from .. import functional as F
from .module import Module
from .utils import _ntuple, _pair, _quadruple

_sextuple = _ntuple(6, "_sextuple")

__all__ = [
    "CircularPad1d", "CircularPad2d", "CircularPad3d",
    "ConstantPad1d", "ConstantPad2d", "ConstantPad3d",
    "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d",
    "ReplicationPad1d", "ReplicationPad2d", "ReplicationPad3d",
    "ZeroPad1d", "ZeroPad2d", "ZeroPad3d",
]


class _CircularPadNd(Module):
    __constants__ = ["padding"]
    _dims = (2, 3)

    def _check_input_dim(self, input) -> None:
        lo, hi = self._dims
        if input.dim() != lo and input.dim() != hi:
            raise ValueError(f"expected {lo}D or {hi}D input (got {input.dim()}D input)")

    def forward(self, input):
        self._check_input_dim(input)
        return F.pad(input, self.padding, "circular")

    def extra_repr(self) -> str:
        return f"{self.padding}"


class CircularPad1d(_CircularPadNd):
    _dims = (2, 3)

    def __init__(self, padding) -> None:
        super().__init__()
        self.padding = _pair(padding)


class CircularPad2d(_CircularPadNd):
    _dims = (3, 4)

    def __init__(self, padding) -> None:
        super().__init__()
        self.padding = _quadruple(padding)


class CircularPad3d(_CircularPadNd):
    _dims = (4, 5)

    def __init__(self, padding) -> None:
        super().__init__()
        self.padding = _sextuple(padding)


class _ConstantPadNd(Module):
    __constants__ = ["padding", "value"]

    def __init__(self, value: float) -> None:
        super().__init__()
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    def __init__(self, padding, value: float) -> None:
        super().__init__(value)
        self.padding = _pair(padding)


class ConstantPad2d(_ConstantPadNd):
    def __init__(self, padding, value: float) -> None:
        super().__init__(value)
        self.padding = _quadruple(padding)


class ConstantPad3d(_ConstantPadNd):
    def __init__(self, padding, value: float) -> None:
        super().__init__(value)
        self.padding = _sextuple(padding)


class _ReflectionPadNd(Module):
    __constants__ = ["padding"]

    def forward(self, input):
        return F.pad(input, self.padding, "reflect")

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ReflectionPad1d(_ReflectionPadNd):
    def __init__(self, padding) -> None:
        super().__init__()
        self.padding = _pair(padding)


class ReflectionPad2d(_ReflectionPadNd):
    def __init__(self, padding) -> None:
        super().__init__()
        self.padding = _quadruple(padding)


class ReflectionPad3d(_ReflectionPadNd):
    def __init__(self, padding) -> None:
        super().__init__()
        self.padding = _sextuple(padding)


class _ReplicationPadNd(Module):
    __constants__ = ["padding"]

    def forward(self, input):
        return F.pad(input, self.padding, "replicate")

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ReplicationPad1d(_ReplicationPadNd):
    def __init__(self, padding) -> None:
        super().__init__()
        self.padding = _pair(padding)


class ReplicationPad2d(_ReplicationPadNd):
    def __init__(self, padding) -> None:
        super().__init__()
        self.padding = _quadruple(padding)


class ReplicationPad3d(_ReplicationPadNd):
    def __init__(self, padding) -> None:
        super().__init__()
        self.padding = _sextuple(padding)


class ZeroPad1d(ConstantPad1d):
    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad2d(ConstantPad2d):
    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad3d(ConstantPad3d):
    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"
