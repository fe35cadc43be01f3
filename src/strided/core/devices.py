"""``device``: where a tensor's storage lives (``cpu``, ``meta``, ``cuda:N``).

Parsed and compared like ``torch.device``; instances are interned so that the
hot path can compare devices by identity.
"""

from __future__ import annotations

__all__ = ["DEVICE_TYPES", "device"]

# torch's list, in torch's order (it shows up verbatim in its error message).
DEVICE_TYPES = (
    "cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve",
    "fpga", "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia", "privateuseone",
)
_interned: dict = {}
_NO_INDEX = object()
_INDEX_MAX = 2**31 - 1  # torch parses the index with stoi
_ACCELERATOR: list = [None]  # a backend with an accelerator (CUDA) sets its device type


class device:
    """``device('cuda:1')``, ``device('cuda', 1)``, ``device('cpu')``, ``device(other)``.

    Instances are interned: equal devices are the same object, whichever way they were
    spelled, so ``==`` is an identity test on the hot path.
    """

    __slots__ = ("__weakref__", "index", "type")

    def __new__(cls, *args, **kwargs):
        if len(args) == 1 and not kwargs:
            arg = args[0]
            if arg.__class__ is str:
                cached = _interned.get(arg)
                if cached is not None:
                    return cached
            elif arg.__class__ is cls:
                return arg
        type_, index = _parse_args(args, kwargs)
        if isinstance(type_, cls):
            return type_
        if isinstance(type_, int):
            if type_ < 0:
                raise RuntimeError("Device index must not be negative")
            accelerator = current_accelerator()
            if accelerator is None:
                raise RuntimeError("Cannot access accelerator device when none is available.")
            return _interned_device(accelerator, type_)
        if index is None:
            cached = _interned.get(type_)
            if cached is not None:
                return cached
        name, idx = _parse(type_)
        if index is not None:
            if idx is not None:
                raise RuntimeError(
                    "type (string) must not include an index because index was passed "
                    f"explicitly: {type_}")
            if index < 0:
                raise RuntimeError("Device index must not be negative")
            idx = index
        out = _interned_device(name, idx)
        if index is None:
            _interned[type_] = out
        return out

    def __enter__(self):
        # ``with device("meta"):`` makes it the factories' default for the block, as torch's
        # does; devices are interned, so the outer defaults are kept on a stack
        _DEFAULT_STACK.append(DEFAULT_DEVICE[0])
        DEFAULT_DEVICE[0] = self
        return self

    def __exit__(self, *exc):
        DEFAULT_DEVICE[0] = _DEFAULT_STACK.pop()
        return False

    def __repr__(self):
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other):
        # torch compares devices with devices only: device('cpu') == 'cpu' is False
        if self is other:
            return True
        if other.__class__ is not device:
            return NotImplemented if not isinstance(other, device) else False
        return self.type == other.type and self.index == other.index

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    # Devices are interned (``_interned_device`` makes each (type, index) once), so equal
    # devices are the same object and the identity hash is consistent with ``__eq__``; it
    # keeps the per-op dict lookups keyed by device in C.
    __hash__ = object.__hash__

    def __reduce__(self):
        return (device, (self.type, self.index))


def current_accelerator():
    """The device type that ``device(0)`` means; None while strided has no accelerator
    backend (torch: "Cannot access accelerator device when none is available.")."""
    return _ACCELERATOR[0]


def _interned_device(name: str, index):
    key = (name, index)
    out = _interned.get(key)
    if out is None:
        out = object.__new__(device)
        out.type = name
        out.index = index
        _interned[key] = out
    return out


_SIGNATURES = " * (torch.device device)\n{0} * (str type, int index = -1)\n"


def _parse_args(args, kwargs):
    """torch's two overloads ``(torch.device device)`` and ``(str type, int index = -1)``,
    with its TypeError texts. Returns (type_or_device_or_int, index)."""
    n = len(args) + len(kwargs)
    if n == 1 and len(args) == 1:
        arg = args[0]
        if isinstance(arg, (str, device)) or (isinstance(arg, int) and
                                               not isinstance(arg, bool)):
            return arg, None
        _invalid(args, kwargs, f"      didn't match because some of the arguments have invalid "
                               f"types: (!{_typename(arg, True)}!)\n")
    if n == 0 or len(args) > 2:
        _invalid(args, kwargs, "")
    if not args and "type" not in kwargs:
        bad = ", ".join(kwargs)
        _invalid(args, kwargs, f"      didn't match because some of the keywords were "
                               f"incorrect: {bad}\n")
    names = ("type", "index")
    values = list(args)
    for name in names[len(args):]:
        values.append(kwargs.get(name, _NO_INDEX))
    for key in kwargs:
        if key not in names:
            raise TypeError(f"device() got an unexpected keyword argument '{key}'")
    type_, index = values
    if type_ is _NO_INDEX:
        raise TypeError('device() missing 1 required positional arguments: "type"')
    if not isinstance(type_, str):
        where = " (position 1)" if args else ""
        raise TypeError(f"device(): argument 'type'{where} must be str, not "
                        f"{_typename(type_)}")
    if index is _NO_INDEX:
        index = None
    elif index is not None and (not isinstance(index, int) or isinstance(index, bool)):
        where = " (position 2)" if len(args) > 1 else ""
        raise TypeError(f"device(): argument 'index'{where} must be int, not "
                        f"{_typename(index)}")
    return type_, index


def _invalid(args, kwargs, first_note):
    got = ", ".join([_typename(a) for a in args] + [f"{k}={_typename(v)}"
                                                      for k, v in kwargs.items()])
    if kwargs and not args:
        got += ", "  # torch's formatting of a keywords-only call
    raise TypeError(f"device() received an invalid combination of arguments - got ({got}), "
                    f"but expected one of:\n" + _SIGNATURES.format(first_note))


def _parse(text: str):
    """Split ``'cuda:1'`` into ``('cuda', 1)`` with torch's grammar and messages:
    a name of letters and underscores, then optionally ``:`` and a decimal index
    without leading zeros."""
    if not text:
        raise RuntimeError("Device string must not be empty")
    name, sep, digits = text.partition(":")
    valid = (bool(name) and all(c.isascii() and (c.isalpha() or c == "_") for c in name)
             and (not sep or (digits.isascii() and digits.isdigit()
                              and (digits == "0" or digits[0] != "0"))))
    if not valid:
        raise RuntimeError(f"Invalid device string: '{text}'")
    index = None
    if sep:
        index = int(digits)
        if index > _INDEX_MAX:
            raise RuntimeError(f"Could not parse device index '{digits}' in device string "
                               f"'{text}'")
    if name not in DEVICE_TYPES:
        raise RuntimeError(
            f"Expected one of {', '.join(DEVICE_TYPES)} device type at start of device "
            f"string: {name}")
    return name, index


def _typename(obj, detailed=False) -> str:
    if detailed and isinstance(obj, (list, tuple)) and obj:
        return f"{type(obj).__name__} of [{', '.join(_typename(v) for v in obj)}]"
    return "torch.device" if isinstance(obj, device) else type(obj).__name__


CPU = device("cpu")
META = device("meta")
# The device factories use when given none (``strided.set_default_device``).
DEFAULT_DEVICE = [CPU]
_DEFAULT_STACK: list = []


def default_device() -> device:
    return DEFAULT_DEVICE[0]


def set_default(dev: device) -> None:
    DEFAULT_DEVICE[0] = dev
