"""``device``: where a tensor's storage lives (``cpu``, ``meta``, ``cuda:N``).

Parsed and compared like ``torch.device``; instances are interned so that the
hot path can compare devices by identity.
"""

from __future__ import annotations

import re

__all__ = ["DEVICE_TYPES", "device"]

# torch's list, in torch's order (it shows up verbatim in its error message).
DEVICE_TYPES = (
    "cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve",
    "fpga", "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia", "privateuseone",
)
_DEVICE_RE = re.compile(r"([a-z]+)(?::(0|[1-9][0-9]*))?\Z")
_interned: dict = {}


class device:
    """``device('cuda:1')``, ``device('cuda', 1)``, ``device('cpu')``, ``device(other)``."""

    __slots__ = ("__weakref__", "index", "type")

    def __new__(cls, type, index=None):
        if isinstance(type, device):
            if index is not None:
                raise TypeError("device(): a device object takes no index")
            return type
        if isinstance(type, int) and not isinstance(type, bool):
            type, index = "cuda", type
        elif not isinstance(type, str):
            raise TypeError(
                "device() received an invalid combination of arguments - got "
                f"({_typename(type)}), but expected one of:\n * (torch.device device)\n"
                f"      didn't match because some of the arguments have invalid types: "
                f"(!{_typename(type)}!)\n * (str type, int index = -1)\n"
            )
        key = (type, index)
        cached = _interned.get(key)
        if cached is not None:
            return cached
        dtype_, idx = _parse(type)
        if index is not None:
            if idx is not None:
                raise RuntimeError(
                    "type (string) must not include an index because index was passed "
                    f"explicitly: {type}")
            if index < 0:
                raise RuntimeError("Device index must not be negative")
            idx = index
        self = object.__new__(cls)
        self.type = dtype_
        self.index = idx
        _interned[key] = self
        return self

    def __repr__(self):
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other):
        if self is other:
            return True
        if isinstance(other, str):
            other = device(other)
        return (isinstance(other, device) and self.type == other.type
                and self.index == other.index)

    def __hash__(self):
        return hash((self.type, self.index))

    def __reduce__(self):
        return (device, (self.type, self.index))


def _parse(text: str):
    m = _DEVICE_RE.match(text)
    if m is None or m.group(1) not in DEVICE_TYPES:
        head = re.match(r"[a-z]*", text).group(0)
        if head in DEVICE_TYPES:
            raise RuntimeError(f"Invalid device string: '{text}'")
        raise RuntimeError(
            f"Expected one of {', '.join(DEVICE_TYPES)} device type at start of device "
            f"string: {text}")
    idx = m.group(2)
    return m.group(1), None if idx is None else int(idx)


def _typename(obj) -> str:
    return type(obj).__name__


CPU = device("cpu")
META = device("meta")
