"""Scalar types: singleton ``dtype`` objects, the promotion table, casting rules.

Every dtype maps onto one NumPy dtype (bfloat16 comes from ``ml_dtypes``), which
is what the kernels use. The objects carry torch's names and attributes so that
``import strided as torch`` code that inspects dtypes keeps working.

Note [Promotion is data]
~~~~~~~~~~~~~~~~~~~~~~~~
``promote_types`` is a lookup in ``_PROMOTION``, a square table written out
below, not a chain of ifs. The category rules (bool < int < float < complex)
only appear in ``category``, which ``result_type`` uses to let a
higher-category scalar or 0-dim tensor win over dimensioned tensors.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np

__all__ = [
    "ALL_DTYPES",
    "can_cast",
    "dtype",
    "finfo",
    "get_default_dtype",
    "iinfo",
    "promote_types",
    "set_default_dtype",
]

# complex32 (torch's ComplexHalf): NumPy has no such type, so its elements are a pair of
# float16 fields, 4 bytes each, and every view/stride/storage rule holds unchanged. Kernels
# that compute read it as complex64 and round each part back on store (Note [complex32]
# in kernels/complex32.py).
COMPLEX32_NP = np.dtype([("real", np.float16), ("imag", np.float16)])

# Categories, ordered: a value of a higher category cannot be held by a lower one.
BOOL, INT, FLOAT, COMPLEX = 0, 1, 2, 3


class dtype:
    """A scalar type, e.g. ``strided.float32``. Compared by identity."""

    __slots__ = (
        "_complex",
        "_index",
        "_real",
        "_scalar_name",
        "abbr",
        "category",
        "is_complex",
        "is_floating_point",
        "is_signed",
        "itemsize",
        "name",
        "np",
    )

    def __init__(self, name, scalar_name, abbr, np_dtype, category, index):
        self.name = name
        self.abbr = abbr
        self._scalar_name = scalar_name  # c10 ScalarType name, used in error messages
        self.np = np.dtype(np_dtype)
        self.itemsize = self.np.itemsize
        self.category = category
        self.is_floating_point = category == FLOAT
        self.is_complex = category == COMPLEX
        self.is_signed = category in (FLOAT, COMPLEX) or (
            category == INT and self.np.kind == "i"
        )
        self._index = index
        self._real = self
        self._complex = self if category == COMPLEX else None

    def to_real(self) -> dtype:
        return self._real

    def to_complex(self) -> dtype:
        if self._complex is None:
            raise RuntimeError(f"Unknown Complex ScalarType for {self._scalar_name}")
        return self._complex

    def __repr__(self):
        return "torch." + self.name

    __str__ = __repr__

    def __reduce__(self):
        return (_dtype_by_name, (self.name,))

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self


def _dtype_by_name(name):
    return _BY_NAME[name]


# (name, c10 name, abbreviation, numpy dtype, category). The order fixes the promotion
# table's rows and columns.
_SPECS = [
    ("bool", "Bool", "b8", np.bool_, BOOL),
    ("uint8", "Byte", "u8", np.uint8, INT),
    ("int8", "Char", "i8", np.int8, INT),
    ("int16", "Short", "i16", np.int16, INT),
    ("int32", "Int", "i32", np.int32, INT),
    ("int64", "Long", "i64", np.int64, INT),
    ("float16", "Half", "f16", np.float16, FLOAT),
    ("bfloat16", "BFloat16", "bf16", ml_dtypes.bfloat16, FLOAT),
    ("float32", "Float", "f32", np.float32, FLOAT),
    ("float64", "Double", "f64", np.float64, FLOAT),
    ("complex64", "ComplexFloat", "c64", np.complex64, COMPLEX),
    ("complex128", "ComplexDouble", "c128", np.complex128, COMPLEX),
    ("uint16", "UInt16", "u16", np.uint16, INT),
    ("uint32", "UInt32", "u32", np.uint32, INT),
    ("uint64", "UInt64", "u64", np.uint64, INT),
    ("complex32", "ComplexHalf", "c32", COMPLEX32_NP, COMPLEX),
]

ALL_DTYPES: tuple = tuple(dtype(n, s, a, d, c, i) for i, (n, s, a, d, c) in enumerate(_SPECS))
_BY_NAME = {d.name: d for d in ALL_DTYPES}
(bool_, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64,
 complex64, complex128, uint16, uint32, uint64, complex32) = ALL_DTYPES

for _r, _c in ((float16, complex32), (float32, complex64), (float64, complex128)):
    _r._complex = _c
    _c._real = _r
bfloat16._complex = complex64   # (torch has no complex bfloat16)

# torch's aliases (torch.float, torch.long, ...)
ALIASES = {
    "float": float32, "double": float64, "half": float16, "long": int64, "int": int32,
    "short": int16, "cfloat": complex64, "cdouble": complex128, "chalf": complex32,
    "complex32": complex32,
}

# (a structured array is no complex32 to ``from_numpy``: torch refuses it)
_BY_NUMPY = {d.np: d for d in ALL_DTYPES if d is not complex32}

# Note [Promotion is data]: one row per dtype in _SPECS order; "--" marks pairs
# torch refuses to promote (the barebones unsigned types mixed with other ints).
_ABBR = {"b1": bool_, "u1": uint8, "i1": int8, "i2": int16, "i4": int32, "i8": int64,
         "f2": float16, "bf": bfloat16, "f4": float32, "f8": float64, "c4": complex64,
         "c8": complex128, "U2": uint16, "U4": uint32, "U8": uint64, "c2": complex32,
         "--": None}
_TABLE = """
     b1 u1 i1 i2 i4 i8 f2 bf f4 f8 c4 c8 U2 U4 U8 c2
b1   b1 u1 i1 i2 i4 i8 f2 bf f4 f8 c4 c8 -- -- -- c2
u1   u1 u1 i2 i2 i4 i8 f2 bf f4 f8 c4 c8 -- -- -- c2
i1   i1 i2 i1 i2 i4 i8 f2 bf f4 f8 c4 c8 -- -- -- c2
i2   i2 i2 i2 i2 i4 i8 f2 bf f4 f8 c4 c8 -- -- -- c2
i4   i4 i4 i4 i4 i4 i8 f2 bf f4 f8 c4 c8 -- -- -- c2
i8   i8 i8 i8 i8 i8 i8 f2 bf f4 f8 c4 c8 -- -- -- c2
f2   f2 f2 f2 f2 f2 f2 f2 f4 f4 f8 c4 c8 f2 f2 f2 c2
bf   bf bf bf bf bf bf f4 bf f4 f8 c4 c8 bf bf bf c4
f4   f4 f4 f4 f4 f4 f4 f4 f4 f4 f8 c4 c8 f4 f4 f4 c4
f8   f8 f8 f8 f8 f8 f8 f8 f8 f8 f8 c8 c8 f8 f8 f8 c8
c4   c4 c4 c4 c4 c4 c4 c4 c4 c4 c8 c4 c8 -- -- -- c4
c8   c8 c8 c8 c8 c8 c8 c8 c8 c8 c8 c8 c8 -- -- -- c8
U2   -- -- -- -- -- -- f2 bf f4 f8 -- -- U2 -- -- --
U4   -- -- -- -- -- -- f2 bf f4 f8 -- -- -- U4 -- --
U8   -- -- -- -- -- -- f2 bf f4 f8 -- -- -- -- U8 --
c2   c2 c2 c2 c2 c2 c2 c2 c4 c4 c8 c4 c8 -- -- -- c2
"""
_PROMOTION = [[_ABBR[c] for c in line.split()[1:]] for line in _TABLE.strip().splitlines()[1:]]


def promote(type1: dtype, type2: dtype) -> dtype:
    """``promote_types`` without argument checking, for the hot paths."""
    result = _PROMOTION[type1._index][type2._index]
    if result is None:
        raise RuntimeError(
            "Promotion for uint16, uint32, uint64 types is not supported, attempted to "
            f"promote {type1._scalar_name} and {type2._scalar_name}"
        )
    return result


def promote_types(*args, **kwargs) -> dtype:
    """The smallest dtype both can be converted to, e.g. ``(uint8, int8) -> int16``."""
    if len(args) == 2 and not kwargs:
        a, b = args
        if a.__class__ is dtype and b.__class__ is dtype:
            return promote(a, b)
    return promote(*_parse_dtype_args("promote_types", ("type1", "type2"), args, kwargs))


def can_cast(*args, **kwargs) -> bool:
    """torch's same-kind rule: casting may not lower the category (float -> int is refused)."""
    if len(args) == 2 and not kwargs:
        a, b = args
    else:
        a, b = _parse_dtype_args("can_cast", ("from_", "to"), args, kwargs)
    if a.__class__ is not dtype or b.__class__ is not dtype:
        a, b = _parse_dtype_args("can_cast", ("from_", "to"), args, kwargs)
    return a.category <= b.category


def _parse_dtype_args(name, params, args, kwargs, default=None) -> tuple:
    """torch's argument parser for a function whose parameters are all ``torch.dtype``:
    the same TypeError texts (including its "1 required positional arguments")."""
    if len(args) > len(params):
        n = len(params)
        raise TypeError(f"{name}() takes {n} positional argument{'s' if n != 1 else ''} but "
                        f"{len(args)} {'were' if len(args) != 1 else 'was'} given")
    values = []
    for i, param in enumerate(params):
        if i < len(args):
            value, where = args[i], f" (position {i + 1})"
        elif param in kwargs:
            value, where = kwargs[param], ""
        elif default is not None:
            value, where = default, ""
        else:
            missing = params[i:]
            raise TypeError(
                f"{name}() missing {len(missing)} required positional argument"
                f"{'s' if len(missing) == 1 else ''}: " + ", ".join(f'"{m}"' for m in missing))
        if value.__class__ is not dtype:
            raise TypeError(f"{name}(): argument '{param}'{where} must be torch.dtype, not "
                            f"{type(value).__name__}")
        values.append(value)
    for key in kwargs:
        if key not in params:
            raise TypeError(f"{name}() got an unexpected keyword argument '{key}'")
    return tuple(values)


_default_dtype = [float32]


def get_default_dtype(*args) -> dtype:
    if args:
        raise TypeError(f"torch.get_default_dtype() takes no arguments ({len(args)} given)")
    return _default_dtype[0]


def set_default_dtype(d: dtype, /) -> None:
    if not isinstance(d, dtype):
        raise TypeError(
            "invalid dtype object: only floating-point types are supported as the default type")
    if d not in (float16, bfloat16, float32, float64):
        raise TypeError("only floating-point types are supported as the default type")
    _default_dtype[0] = d


def default_complex_dtype() -> dtype:
    return complex128 if _default_dtype[0] is float64 else complex64


def from_numpy_dtype(np_dtype) -> dtype:
    np_dtype = np.dtype(np_dtype)
    try:
        return _BY_NUMPY[np_dtype]
    except KeyError:
        raise TypeError(
            f"can't convert np.ndarray of type numpy.{np_dtype.type.__name__}. The only "
            "supported types "
            "are: float64, float32, float16, complex64, complex128, int64, int32, int16, "
            "int8, uint64, uint32, uint16, uint8, and bool."
        ) from None


def _fmt(v) -> str:
    return f"{v:.6g}"


_NO_ARG = object()


class finfo:
    """Machine limits of a floating point dtype, like ``torch.finfo``."""

    def __init__(self, *args, **kwargs):
        if not args and not kwargs:
            type = get_default_dtype()
        elif len(args) + len(kwargs) > 1:
            got = ", ".join([_arg_typename(a) for a in args]
                            + [f"{k}={_arg_typename(v)}" for k, v in kwargs.items()])
            raise TypeError(
                f"finfo() received an invalid combination of arguments - got ({got}), but "
                "expected one of:\n * (torch.dtype type)\n * ()\n")
        else:
            (type,) = _parse_dtype_args("finfo", ("type",), args, kwargs)
        if type.category < FLOAT:
            raise TypeError("torch.finfo() requires a floating point input type. Use "
                            "torch.iinfo to handle 'torch.finfo'")
        real = type.to_real()
        info = ml_dtypes.finfo(real.np) if real is bfloat16 else np.finfo(real.np)
        self.bits = info.bits
        self.eps = float(info.eps)
        self.max = float(info.max)
        self.min = float(info.min)
        self.tiny = float(info.tiny)
        self.smallest_normal = self.tiny
        # torch reports the decimal resolution exactly (1e-06), not rounded to the type
        self.resolution = 10.0 ** -int(info.precision)
        self.dtype = real.name

    def __repr__(self):
        return (f"finfo(resolution={_fmt(self.resolution)}, min={_fmt(self.min)}, "
                f"max={_fmt(self.max)}, eps={_fmt(self.eps)}, "
                f"smallest_normal={_fmt(self.smallest_normal)}, tiny={_fmt(self.tiny)}, "
                f"dtype={self.dtype})")


class iinfo:
    """Machine limits of an integer dtype, like ``torch.iinfo``."""

    def __init__(self, *args, **kwargs):
        (type,) = _parse_dtype_args("iinfo", ("type",), args, kwargs)
        if type is bool_:
            raise TypeError("torch.bool is not supported by torch.iinfo")
        if not isinstance(type, dtype) or type.category > INT:
            raise TypeError("torch.iinfo() requires an integer input type. Use "
                            "torch.finfo to handle 'torch.iinfo'")
        info = np.iinfo(type.np)
        self.bits = info.bits
        self.max = int(info.max)
        self.min = int(info.min)
        self.dtype = type.name

    def __repr__(self):
        return f"iinfo(min={_fmt(self.min)}, max={_fmt(self.max)}, dtype={self.dtype})"


def _arg_typename(value) -> str:
    return "torch.dtype" if value.__class__ is dtype else type(value).__name__
