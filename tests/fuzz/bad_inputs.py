"""A seeded bad-input fuzzer: the same calls under torch and strided, outcomes compared.

``generate(seed, n)`` returns ``n`` calls of common public operations (torch.* functions and
Tensor methods) with deliberately bad or edge arguments: dims out of range or repeated,
mismatched shapes, dtypes an op refuses, negative or overflowing sizes, empty and 0-dim
tensors, arguments of the wrong type, out-of-range indices, non-contiguous and expanded
(overlapping) inputs to in-place ops, mismatched ``out=`` tensors.

A case is pure data (nested tuples holding NumPy arrays and tags); ``build(lib, spec)`` turns
it into the call's arguments for one library, so both libraries start from the same values.
``compare(case)`` runs it under both and returns ``None`` when the outcomes agree: both raise
the same exception class with the same message (only the module names ``torch``/``strided``
are normalised), or both return the same kind of result with the same dtypes, shapes and
values, every tensor argument afterwards holds the same values (in-place ops), and every
strided tensor involved lies inside its storage.

Run as a script, it runs a slice of the cases and prints one line per case, so that a parent
process can tell which case a crash happened in (``tests/fuzz/test_bad_input_fuzz.py``)::

    python tests/fuzz/bad_inputs.py --seed 0 --n 5000 --start 0      # protocol lines
    python tests/fuzz/bad_inputs.py --seed 0 --n 5000 --report        # mismatches, grouped

Cases on which torch itself crashes (aborts or segfaults) are never generated: the rules
that keep them out are in ``_torch_crashes`` below, each one naming the crash.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
import warnings
from dataclasses import dataclass

import numpy as np

# --------------------------------------------------------------------------- specs
# A tensor spec is ("T", array, mode, dtype_name): mode "c" contiguous, "t" non-contiguous
# (transposed / every other element), "e" expanded along dim 0 (overlapping memory), "g" a
# leaf that requires grad. ("dtype", name) is a dtype; ("list", [...]) / ("tuple", (...))
# hold specs; everything else is passed through as is.

DTYPES = ["float32", "float64", "int64", "int32", "bool", "uint8", "int8", "int16",
          "complex64", "float16", "bfloat16"]
FLOATS = ["float32", "float64"]
SHAPES = [(), (0,), (1,), (3,), (5,), (2, 3), (3, 3), (1, 3), (3, 1), (2, 0), (0, 3),
          (2, 3, 4), (2, 1, 3), (4, 4), (2, 2, 2), (1, 1, 1)]


@dataclass
class Case:
    index: int
    op: str            # "fn:<name>", "meth:<name>", "linalg:<name>", "getitem", "setitem"
    args: tuple
    kwargs: dict

    def describe(self) -> str:
        args = ", ".join(_describe(a) for a in self.args)
        kw = ", ".join(f"{k}={_describe(v)}" for k, v in self.kwargs.items())
        return f"#{self.index} {self.op}({args}{', ' if args and kw else ''}{kw})"


def _describe(spec) -> str:
    if isinstance(spec, tuple) and spec and spec[0] == "T":
        _, arr, mode, dt = spec
        shape = arr.shape if mode != "e" else spec[1].shape
        return f"T{list(shape)}:{dt}{'' if mode == 'c' else '/' + mode}"
    if isinstance(spec, tuple) and spec and spec[0] == "dtype":
        return spec[1]
    if isinstance(spec, tuple) and spec and spec[0] in ("list", "tuple"):
        inner = ", ".join(_describe(s) for s in spec[1])
        return f"[{inner}]" if spec[0] == "list" else f"({inner}{',' if len(spec[1]) == 1 else ''})"
    return repr(spec)


def build(lib, spec):
    if isinstance(spec, tuple) and spec:
        tag = spec[0]
        if tag == "T":
            return _build_tensor(lib, spec)
        if tag == "dtype":
            return getattr(lib, spec[1])
        if tag == "list":
            return [build(lib, s) for s in spec[1]]
        if tag == "tuple":
            return tuple(build(lib, s) for s in spec[1])
    if isinstance(spec, dict):
        return {k: build(lib, v) for k, v in spec.items()}
    return spec


def _build_tensor(lib, spec):
    _, arr, mode, dt = spec
    dtype = getattr(lib, dt)

    def make(a):
        if dt == "bfloat16":
            return lib.tensor(a.astype(np.float32)).to(dtype)
        return lib.tensor(a, dtype=dtype)

    if mode == "t":
        if arr.ndim >= 2:
            return make(np.ascontiguousarray(np.swapaxes(arr, -1, -2))).transpose(-1, -2)
        if arr.ndim == 1:
            twice = np.repeat(arr, 2)
            return make(twice)[::2]
        return make(arr)
    if mode == "e":
        # arr is the full shape; the tensor is its first row expanded along dim 0
        return make(arr[:1]).expand(*arr.shape)
    t = make(arr)
    if mode == "g":
        t.requires_grad_(True)
    return t


# --------------------------------------------------------------------------- generator

class _R:
    """Draws argument specs; every ``bad_*`` pool holds what an op should refuse."""

    def __init__(self, seed: int):
        self.rng = np.random.default_rng(seed)

    def chance(self, p: float) -> bool:
        return bool(self.rng.random() < p)

    def choice(self, seq):
        return seq[int(self.rng.integers(len(seq)))]

    def int(self, lo, hi):
        return int(self.rng.integers(lo, hi + 1))

    # ---- tensors
    def values(self, shape, dt, finite=False):
        n = int(np.prod(shape)) if shape else 1
        ints = self.rng.integers(-3, 6, size=n)
        if dt == "bool":
            a = ints > 1
        elif dt == "uint8":
            a = np.abs(ints).astype(np.uint8)
        elif dt.startswith("int"):
            a = ints.astype(dt)
        elif dt.startswith("complex"):
            a = (ints + 1j * self.rng.integers(-2, 3, size=n)).astype(dt)
        else:
            a = ints.astype(np.float64) / self.choice([1, 1, 2, 4])
            if n and not finite and self.chance(0.1):
                a[self.int(0, n - 1)] = self.choice([np.nan, np.inf, -np.inf])
            a = a.astype(np.float64 if dt == "bfloat16" else dt)
        return a.reshape(shape)

    def tensor(self, shape=None, dt=None, mode=None, floats=False, finite=False):
        if shape is None:
            shape = self.choice(SHAPES)
        if dt is None:
            dt = self.choice(FLOATS) if floats and self.chance(0.8) else self.choice(DTYPES)
        if mode is None:
            mode = self.choice("ccccctteg")
        if mode == "g" and dt not in ("float32", "float64", "complex64"):
            mode = "c"
        if mode == "e" and len(shape) == 0:
            mode = "c"
        return ("T", self.values(tuple(shape), dt, finite), mode, dt)

    def ftensor(self, shape=None, mode=None):
        return self.tensor(shape, self.choice(FLOATS), mode)

    def like(self, t, dt=None, mode=None):
        return self.tensor(t[1].shape, dt or t[3], mode)

    def bad_tensor(self, ref=None):
        kind = self.int(0, 7)
        if kind == 0:
            return "a"
        if kind == 1:
            return None
        if kind == 2:
            return [1, 2]
        if kind == 3:
            return self.tensor(())
        if kind == 4:
            return self.tensor((0,))
        if kind == 5 and ref is not None:
            return self.tensor(ref[1].shape, self.choice(["bool", "int64", "complex64"]))
        if kind == 6:
            return ("list", [self.tensor((2,)), self.tensor((2,))])
        return self.tensor()

    def index_tensor(self, size, shape=None, bad=0.3):
        shape = shape if shape is not None else self.choice([(), (0,), (2,), (3,), (2, 2)])
        hi = max(size, 1)
        if self.chance(bad):
            kind = self.int(0, 4)
            if kind == 0:
                vals = self.rng.integers(size, size + 3, size=shape)
            elif kind == 1:
                vals = self.rng.integers(-size - 3, -size, size=shape) if size else \
                    self.rng.integers(-3, 0, size=shape)
            elif kind == 2:
                return self.tensor(shape, self.choice(["float32", "int32", "bool"]), "c")
            elif kind == 3:
                return ("T", self.rng.integers(0, hi, size=shape).astype(np.int64), "t", "int64")
            else:
                vals = self.rng.integers(-hi, hi, size=shape)
        else:
            vals = self.rng.integers(0, hi, size=shape) if size else np.zeros(shape, np.int64)
        return ("T", np.asarray(vals, dtype=np.int64), "c", "int64")

    # ---- dims / sizes / scalars
    def dim(self, ndim, bad=0.35):
        if self.chance(bad):
            return self.choice([ndim, -ndim - 1, 64, -64, "a", None, 1.5, (0, 0), [0]])
        n = max(ndim, 1)
        return self.int(-n, n - 1)

    def dims(self, ndim, bad=0.35):
        n = max(ndim, 1)
        if self.chance(bad):
            return self.choice([(0, 0), (0, -n), (n,), (0, n), ("a",), (None,), (1.5,),
                                [0, 0], ()])
        k = self.int(0, n)
        picks = self.rng.permutation(n)[:k]
        return tuple(int(p) - (n if self.chance(0.3) else 0) for p in picks)

    def size(self, bad=0.35):
        if self.chance(bad):
            return self.choice([(-1,), (-2, 3), (2 ** 62, 4), (2 ** 63,), ("a",), (None,),
                                (1.5,), (2, "3"), ((2,),), (-1, -1), (3, -1), (2 ** 31, 2 ** 31,
                                                                                  2 ** 31)])
        return self.choice([(), (0,), (2,), (2, 3), (3, 0), (1, 2, 2), (6,), (3, 2), (-1,),
                            (2, -1)])

    def scalar(self, bad=0.25):
        if self.chance(bad):
            return self.choice(["a", None, [1, 2], 1 + 2j, 2 ** 70, float("nan"), -(2 ** 64)])
        return self.choice([0, 1, 2, -1, 2.5, True, False, 0.5, -3])

    def dtype(self, bad=0.3):
        if self.chance(bad):
            return self.choice(["float32", 3, ("dtype", "bool"), ("dtype", "complex64"),
                                ("dtype", "int8")])
        return ("dtype", self.choice(DTYPES))

    def small_int(self, bad=0.3):
        if self.chance(bad):
            return self.choice([-1, -5, 2 ** 62, 1.5, "a", None, 0, 100])
        return self.int(0, 4)


def _is_t(x) -> bool:
    return isinstance(x, tuple) and len(x) == 4 and x[0] == "T"


def _opt(r: _R, value, p=0.5):
    return [value] if r.chance(p) else []


def _out(r: _R, ref, kw: dict, p=0.15):
    """Maybe add an out= tensor: right shape or not, right dtype or not, or not a tensor."""
    if r.chance(p):
        kind = r.int(0, 5)
        if kind == 0:
            kw["out"] = r.tensor((0,), ref[3] if _is_t(ref) else "float32", "c")
        elif kind == 1:
            kw["out"] = r.tensor(None, None, "c")
        elif kind == 2:
            kw["out"] = r.tensor(ref[1].shape if _is_t(ref) else (2,),
                                 r.choice(["int64", "bool", "float64"]), "c")
        elif kind == 3:
            kw["out"] = r.tensor((2, 3), "float32", "e")
        elif kind == 4:
            kw["out"] = "a"
        else:
            kw["out"] = r.tensor((5, 7), "float32", "t")
    return kw


UNARY = ["abs", "neg", "exp", "log", "sqrt", "sin", "cos", "tanh", "sigmoid", "floor", "ceil",
         "round", "trunc", "sign", "reciprocal", "rsqrt", "erf", "bitwise_not", "logical_not",
         "isnan", "isfinite", "frac", "exp2", "expm1", "log1p", "log2", "relu", "angle", "sgn",
         "signbit", "square", "positive", "deg2rad", "nan_to_num", "isinf", "isreal",
         "real", "imag", "conj", "erfinv", "lgamma", "digamma", "asin", "atan", "sinh",
         "logit", "i0", "fix"]
BINARY = ["add", "sub", "mul", "div", "remainder", "fmod", "pow", "maximum", "minimum",
          "atan2", "eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or",
          "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift",
          "floor_divide", "hypot", "copysign", "fmax", "fmin", "xlogy", "true_divide",
          "nextafter", "ldexp", "heaviside", "gcd", "lcm", "float_power", "logaddexp",
          "isclose", "equal", "allclose", "dist"]
REDUCE = ["sum", "mean", "prod", "amax", "amin", "max", "min", "argmax", "argmin", "std",
          "var", "logsumexp", "all", "any", "nansum", "nanmean", "count_nonzero", "median",
          "nanmedian", "mode", "aminmax", "std_mean", "var_mean", "norm"]
SCAN = ["cumsum", "cumprod", "cummax", "cummin", "logcumsumexp", "softmax", "log_softmax"]


def _gen_unary(r, name):
    t = r.tensor() if r.chance(0.9) else r.bad_tensor()
    kw = _out(r, t, {})
    variant = r.choice(["fn", "fn", "meth", "inplace"])
    if variant == "inplace" and _is_t(t):
        return f"meth:{name}_", (t,), {}
    if variant == "meth" and _is_t(t):
        return f"meth:{name}", (t,), {}
    return f"fn:{name}", (t,), kw


def _broadcast_partner(r, t):
    if not _is_t(t):
        return r.tensor()
    shape = t[1].shape
    kind = r.int(0, 6)
    if kind == 0:
        return r.tensor(shape)
    if kind == 1 and shape:
        return r.tensor(shape[-1:])
    if kind == 2:
        return r.scalar()
    if kind == 3:
        return r.tensor(())
    if kind == 4:
        return r.tensor(tuple(s + 1 for s in shape) or (2,))  # not broadcastable (mostly)
    if kind == 5:
        return r.tensor((1,) + tuple(shape))
    return r.tensor()


def _gen_binary(r, name):
    t = r.tensor()
    o = _broadcast_partner(r, t)
    kw = {}
    if name in ("add", "sub") and r.chance(0.3):
        kw["alpha"] = r.scalar(0.4)
    if name == "div" and r.chance(0.4):
        kw["rounding_mode"] = r.choice(["trunc", "floor", None, "bad", 1])
    if name in ("isclose", "allclose") and r.chance(0.4):
        kw["rtol"] = r.choice([-1.0, 0.0, 1e-3, "a"])
    variant = r.choice(["fn", "fn", "meth", "inplace", "swap"])
    if name in ("isclose", "equal", "allclose", "dist"):
        variant = r.choice(["fn", "meth"])
    if variant == "swap":
        return f"fn:{name}", (o, t), _out(r, t, kw)
    if variant == "inplace":
        return f"meth:{name}_", (t, o), kw
    if variant == "meth":
        return f"meth:{name}", (t, o), kw
    return f"fn:{name}", (t, o), _out(r, t, kw)


def _gen_ternary(r, name):
    t = r.tensor()
    a, b = _broadcast_partner(r, t), _broadcast_partner(r, t)
    kw = {}
    if name == "where":
        c = r.tensor(t[1].shape, "bool" if r.chance(0.8) else None)
        return "fn:where", (c, t, a), _out(r, t, kw)
    if name == "clamp":
        if r.chance(0.5):
            return r.choice(["fn:clamp", "meth:clamp", "meth:clamp_"]), (t,), \
                {"min": r.scalar(0.3) if r.chance(0.7) else None,
                 "max": r.scalar(0.3) if r.chance(0.7) else a}
        return r.choice(["fn:clamp", "meth:clamp_"]), (t, a, b), {}
    if name == "lerp":
        return r.choice(["fn:lerp", "meth:lerp_"]), (t, a, r.scalar() if r.chance(0.5) else b), {}
    if name in ("addcmul", "addcdiv"):
        if r.chance(0.3):
            kw["value"] = r.scalar(0.4)
        return r.choice([f"fn:{name}", f"meth:{name}_"]), (t, a, b), _out(r, t, kw)
    raise AssertionError(name)


def _gen_reduce(r, name):
    t = r.tensor(floats=name in ("mean", "std", "var", "logsumexp", "nanmean", "std_mean",
                                 "var_mean", "norm"))
    nd = t[1].ndim
    args = [t]
    kw = {}
    single_dim = name in ("max", "min", "argmax", "argmin", "median", "nanmedian", "mode",
                          "all", "any", "aminmax")
    if name in ("max", "min", "median", "nanmedian", "mode", "argmax", "argmin"):
        if r.chance(0.7):
            args.append(r.dim(nd))
            if r.chance(0.4):
                args.append(r.choice([True, False, "a"]))
    elif name == "aminmax":
        if r.chance(0.6):
            kw["dim"] = r.dim(nd)
        if r.chance(0.3):
            kw["keepdim"] = r.choice([True, False])
    elif name == "logsumexp":
        args.append(r.dims(nd) if r.chance(0.5) else r.dim(nd))
    elif name == "count_nonzero":
        if r.chance(0.7):
            kw["dim"] = r.dims(nd) if r.chance(0.5) else r.dim(nd)
    elif name in ("std", "var", "std_mean", "var_mean"):
        if r.chance(0.6):
            kw["dim"] = r.dims(nd) if r.chance(0.6) else r.dim(nd)
        if r.chance(0.4):
            kw["correction"] = r.choice([0, 1, 2, 10, -1, 0.5])
        if r.chance(0.2):
            kw["keepdim"] = True
    elif name == "norm":
        if r.chance(0.5):
            kw["p"] = r.choice([1, 2, "fro", "nuc", float("inf"), 0, -1, "bad"])
        if r.chance(0.5):
            kw["dim"] = r.dims(nd) if r.chance(0.6) else r.dim(nd)
    elif single_dim:
        if r.chance(0.6):
            args.append(r.dim(nd))
    else:
        if r.chance(0.7):
            args.append(r.dims(nd) if r.chance(0.6) else r.dim(nd))
            if r.chance(0.4):
                args.append(r.choice([True, False]))
        if name in ("sum", "mean", "prod", "nansum", "nanmean") and r.chance(0.3):
            kw["dtype"] = r.dtype()
    if r.chance(0.1) and len(args) > 1:
        _out(r, t, kw, 1.0)
    return r.choice([f"fn:{name}", f"meth:{name}"]), tuple(args), kw


def _gen_scan(r, name):
    t = r.tensor()
    nd = t[1].ndim
    kw = {}
    args = [t, r.dim(nd)] if r.chance(0.85) else [t]
    if name in ("cumsum", "cumprod", "softmax", "log_softmax") and r.chance(0.3):
        kw["dtype"] = r.dtype()
    if name in ("cumsum", "cumprod", "cummax", "cummin") and r.chance(0.1):
        _out(r, t, kw, 1.0)
    if name in ("cumsum", "cumprod") and r.chance(0.2):
        return f"meth:{name}_", tuple(args), kw
    return r.choice([f"fn:{name}", f"meth:{name}"]), tuple(args), kw


def _gen_shape(r, name):
    t = r.tensor()
    nd = t[1].ndim
    shape = t[1].shape
    meth = r.chance(0.6)
    pre = "meth:" if meth else "fn:"
    if name in ("reshape", "view"):
        s = r.size()
        if r.chance(0.5) and len(s) > 0:
            return f"meth:{name}", (t,) + tuple(s), {}
        return (f"meth:{name}" if name == "view" else pre + name), (t, s), {}
    if name in ("expand", "broadcast_to", "repeat", "tile"):
        s = r.size()
        if r.chance(0.3):
            s = tuple(shape) if r.chance(0.5) else (2,) + tuple(shape)
        if name == "expand":
            return "meth:expand", (t,) + tuple(s), {}
        if name == "repeat":
            return "meth:repeat", (t, s), {}
        return pre + name, (t, s), {}
    if name in ("squeeze", "unsqueeze", "flatten", "select", "narrow", "movedim", "transpose",
                "swapaxes", "unflatten", "flip", "roll", "chunk", "split", "tensor_split",
                "unbind", "diagonal", "diag_embed", "tril", "triu", "unfold", "rot90", "t",
                "permute", "diag", "msort", "ravel", "atleast_2d", "fliplr", "flipud",
                "squeeze_", "unsqueeze_", "t_", "transpose_"):
        if name == "squeeze":
            return pre + name, (t,) + tuple(_opt(r, r.dims(nd) if r.chance(0.4) else r.dim(nd),
                                                 0.7)), {}
        if name in ("unsqueeze", "unsqueeze_"):
            return ("meth:" + name if name.endswith("_") else pre + name), \
                (t, r.dim(nd + 1)), {}
        if name == "squeeze_":
            return "meth:squeeze_", (t,) + tuple(_opt(r, r.dim(nd), 0.7)), {}
        if name == "flatten":
            return pre + name, (t,) + tuple(_opt(r, r.dim(nd), 0.7)) + tuple(
                _opt(r, r.dim(nd), 0.5)), {}
        if name == "select":
            return pre + name, (t, r.dim(nd), r.int(-4, 4)), {}
        if name == "narrow":
            return pre + name, (t, r.dim(nd), r.int(-4, 4), r.small_int()), {}
        if name in ("movedim",):
            if r.chance(0.5):
                return pre + name, (t, r.dim(nd), r.dim(nd)), {}
            return pre + name, (t, r.dims(nd), r.dims(nd)), {}
        if name in ("transpose", "swapaxes", "transpose_"):
            return ("meth:transpose_" if name == "transpose_" else pre + name), \
                (t, r.dim(nd), r.dim(nd)), {}
        if name == "unflatten":
            return pre + name, (t, r.dim(nd), r.size()), {}
        if name in ("flip",):
            return pre + name, (t, r.dims(nd)), {}
        if name == "roll":
            return pre + name, (t, r.choice([1, -2, (1, 2), 5]),
                                *_opt(r, r.dims(nd) if r.chance(0.5) else r.dim(nd), 0.7)), {}
        if name in ("chunk", "tensor_split"):
            return pre + name, (t, r.small_int()) + tuple(_opt(r, r.dim(nd), 0.6)), {}
        if name == "split":
            sz = r.small_int() if r.chance(0.6) else r.choice([[1, 2], [1, 1, 1], [-1, 4],
                                                               [0, 3]])
            return pre + name, (t, sz) + tuple(_opt(r, r.dim(nd), 0.6)), {}
        if name == "unbind":
            return pre + name, (t,) + tuple(_opt(r, r.dim(nd), 0.7)), {}
        if name == "diagonal":
            return pre + name, (t,), {"offset": r.int(-3, 3), "dim1": r.dim(nd),
                                      "dim2": r.dim(nd)}
        if name == "diag_embed":
            return pre + name, (t,), {"offset": r.int(-2, 2), "dim1": r.dim(nd + 1),
                                      "dim2": r.dim(nd + 1)}
        if name in ("tril", "triu"):
            if r.chance(0.3):
                return f"meth:{name}_", (t, r.int(-3, 3)), {}
            return pre + name, (t, r.int(-3, 3)), _out(r, t, {})
        if name == "unfold":
            return "meth:unfold", (t, r.dim(nd), r.small_int(), r.small_int()), {}
        if name == "rot90":
            return pre + name, (t, r.int(-3, 5), r.dims(nd, 0.5) if r.chance(0.7) else
                                (0, 1)), {}
        if name == "permute":
            p = tuple(int(i) for i in r.rng.permutation(max(nd, 1)))
            if r.chance(0.5):
                p = r.dims(nd, 0.8)
            if r.chance(0.5) and len(p):
                return "meth:permute", (t,) + p, {}
            return pre + name, (t, p), {}
        if name in ("diag",):
            return pre + name, (t, r.int(-3, 3)), _out(r, t, {})
        return ("meth:" + name if name.endswith("_") else pre + name), (t,), {}
    if name == "as_strided":
        return pre + name, (t, r.size(0.2), r.choice([(1,), (3, 1), (1, 2), (0, 0), (-1, 1),
                                                       (1, 1, 1)]),
                            r.choice([0, 1, 5, 100, -1])), {}
    if name == "view_dtype":
        return "meth:view", (t, r.dtype(0.1)), {}
    raise AssertionError(name)


SHAPE_OPS = ["reshape", "view", "expand", "broadcast_to", "repeat", "tile", "squeeze",
             "unsqueeze", "flatten", "select", "narrow", "movedim", "transpose", "swapaxes",
             "unflatten", "flip", "roll", "chunk", "split", "tensor_split", "unbind", "diagonal",
             "diag_embed", "tril", "triu", "unfold", "rot90", "t", "permute", "diag", "msort",
             "ravel", "as_strided", "view_dtype", "atleast_2d", "fliplr", "flipud",
             "squeeze_", "unsqueeze_", "t_", "transpose_"]


def _gen_join(r, name):
    base = r.tensor(r.choice([(2, 3), (3,), (), (0,), (2, 0), (1, 3)]))
    k = r.int(0, 3)
    ts = []
    for _ in range(k):
        if r.chance(0.6):
            ts.append(r.like(base, r.choice(DTYPES) if r.chance(0.3) else None))
        elif r.chance(0.8):
            ts.append(r.tensor())
        else:
            ts.append(r.bad_tensor())
    seq = ("list", ts) if r.chance(0.7) else ("tuple", tuple(ts))
    if r.chance(0.05):
        seq = base
    args = (seq,)
    kw = {}
    if name in ("cat", "stack", "concat"):
        if r.chance(0.6):
            kw["dim"] = r.dim(base[1].ndim + (name == "stack"))
        _out(r, base, kw, 0.15)
    if name == "broadcast_tensors":
        return "fn:broadcast_tensors", tuple(ts), {}
    if name == "meshgrid":
        if r.chance(0.5):
            kw["indexing"] = r.choice(["ij", "xy", "bad"])
        return "fn:meshgrid", tuple(ts), kw
    return f"fn:{name}", args, kw


JOIN_OPS = ["cat", "stack", "concat", "hstack", "vstack", "dstack", "column_stack",
            "broadcast_tensors", "meshgrid"]


def _gen_index(r, name):
    t = r.tensor()
    nd = t[1].ndim
    shape = t[1].shape
    d = r.dim(nd, 0.2)
    size = shape[d] if isinstance(d, int) and -nd <= d < max(nd, 1) and nd else 1
    if name == "index_select":
        idx = r.index_tensor(size, r.choice([(0,), (2,), (3,), (), (2, 2)]))
        return r.choice(["fn:index_select", "meth:index_select"]), (t, d, idx), \
            _out(r, t, {}, 0.1)
    if name in ("gather", "scatter", "scatter_add", "scatter_reduce", "take_along_dim"):
        ishape = tuple(max(0, s - r.int(0, 1)) for s in shape)
        if r.chance(0.2):
            ishape = r.choice(SHAPES)
        idx = r.index_tensor(size, ishape, 0.25)
        if name == "gather":
            return r.choice(["fn:gather", "meth:gather"]), (t, d, idx), {}
        if name == "take_along_dim":
            return "fn:take_along_dim", (t, idx) + tuple(_opt(r, d, 0.8)), {}
        src = r.like(idx, t[3]) if r.chance(0.6) else (r.tensor() if r.chance(0.5)
                                                       else r.scalar())
        if name == "scatter":
            kw = {"reduce": r.choice(["add", "multiply", "bad"])} if r.chance(0.2) else {}
            return r.choice(["fn:scatter", "meth:scatter_"]), (t, d, idx, src), kw
        if name == "scatter_add":
            return r.choice(["fn:scatter_add", "meth:scatter_add_"]), (t, d, idx, src), {}
        return r.choice(["fn:scatter_reduce", "meth:scatter_reduce_"]), \
            (t, d, idx, src, r.choice(["sum", "prod", "mean", "amax", "amin", "bad"])), \
            {"include_self": r.choice([True, False])}
    if name in ("index_add", "index_copy", "index_fill"):
        idx = r.index_tensor(size, r.choice([(0,), (2,), (1,), ()]))
        n = idx[1].size if _is_t(idx) else 1
        sshape = list(shape) if shape else []
        if sshape and isinstance(d, int) and -nd <= d < nd:
            sshape[d] = n
        src = r.tensor(tuple(sshape), t[3] if r.chance(0.7) else None) if r.chance(0.8) \
            else r.tensor()
        if name == "index_fill":
            val = r.scalar() if r.chance(0.7) else r.tensor(())
            return r.choice(["fn:index_fill", "meth:index_fill_"]), (t, d, idx, val), {}
        kw = {"alpha": r.scalar(0.4)} if name == "index_add" and r.chance(0.3) else {}
        return r.choice([f"fn:{name}", f"meth:{name}_"]), (t, d, idx, src), kw
    if name in ("masked_fill", "masked_select", "masked_scatter"):
        m = r.tensor(shape if r.chance(0.7) else r.choice(SHAPES),
                     "bool" if r.chance(0.8) else None)
        if name == "masked_fill":
            val = r.scalar() if r.chance(0.7) else r.tensor(r.choice([(), (1,), (2,)]))
            return r.choice(["fn:masked_fill", "meth:masked_fill_"]), (t, m, val), {}
        if name == "masked_select":
            return r.choice(["fn:masked_select", "meth:masked_select"]), (t, m), \
                _out(r, t, {}, 0.1)
        src = r.tensor(r.choice([shape, (20,), (0,), ()]), t[3] if r.chance(0.7) else None)
        return r.choice(["fn:masked_scatter", "meth:masked_scatter_"]), (t, m, src), {}
    if name == "take":
        return r.choice(["fn:take", "meth:take"]), (t, r.index_tensor(t[1].size)), {}
    if name == "put_":
        idx = r.index_tensor(t[1].size)
        src = r.like(idx, t[3]) if r.chance(0.6) else r.tensor()
        return "meth:put_", (t, idx, src), {"accumulate": r.choice([True, False])}
    if name == "index_put_":
        idx = r.index_tensor(size, r.choice([(2,), (0,), ()]))
        return "meth:index_put_", (t, ("tuple", (idx,)), r.tensor(r.choice([(), (1,), (2,),
                                                                            (5,)]), t[3])), \
            {"accumulate": r.choice([True, False])}
    if name in ("nonzero", "argwhere", "flatnonzero"):
        kw = {"as_tuple": r.choice([True, False])} if name == "nonzero" and r.chance(0.4) else {}
        return f"fn:{name}", (t,), kw
    raise AssertionError(name)


INDEX_OPS = ["index_select", "gather", "scatter", "scatter_add", "scatter_reduce",
             "take_along_dim", "index_add", "index_copy", "index_fill", "masked_fill",
             "masked_select", "masked_scatter", "take", "put_", "index_put_", "nonzero",
             "argwhere"]


def _gen_getitem(r, name):
    t = r.tensor()
    nd = t[1].ndim
    shape = t[1].shape
    parts = []
    for i in range(r.int(1, 3)):
        s = shape[i] if i < nd else 1
        kind = r.int(0, 9)
        if kind == 0:
            parts.append(r.int(-s - 2, s + 1))
        elif kind == 1:
            parts.append(slice(r.choice([None, 0, 1, -1, 10]), r.choice([None, 2, -1, 100]),
                               r.choice([None, 1, 2, -1, 0])))
        elif kind == 2:
            parts.append(None)
        elif kind == 3:
            parts.append(Ellipsis)
        elif kind == 4:
            parts.append(r.index_tensor(s, r.choice([(2,), (0,), ()])))
        elif kind == 5:
            parts.append(r.tensor((s,), "bool") if r.chance(0.7) else r.tensor((s + 1,), "bool"))
        elif kind == 6:
            parts.append(r.choice(["a", 1.5, [0, 1], [True], [[0]], ()]))
        elif kind == 7:
            parts.append(r.choice([True, False]))
        else:
            parts.append(r.int(0, max(s - 1, 0)))
    key = parts[0] if len(parts) == 1 and r.chance(0.5) else ("tuple", tuple(parts))
    if name == "setitem":
        val = r.scalar() if r.chance(0.5) else r.tensor(r.choice([(), (1,), (2,), (3,),
                                                                 (2, 3), (0,)]))
        return "setitem", (t, key, val), {}
    return "getitem", (t, key), {}


def _gen_factory(r, name):
    kw = {}
    if r.chance(0.3):
        kw["dtype"] = r.dtype()
    if name in ("zeros", "ones", "empty", "rand", "randn"):
        s = r.size()
        args = tuple(s) if r.chance(0.5) and s else (s,)
        if name == "empty":
            # empty's values are undefined; compare what is defined (shape/dtype) via ...
            return "fn:empty_shape", args, kw
        return f"fn:{name}", args, kw
    if name == "full":
        return "fn:full", (r.size(), r.scalar()), kw
    if name in ("zeros_like", "ones_like", "full_like", "empty_like", "rand_like"):
        t = r.tensor() if r.chance(0.9) else r.bad_tensor()
        if name == "full_like":
            return "fn:full_like", (t, r.scalar()), kw
        if name == "empty_like":
            return "fn:empty_like_shape", (t,), kw
        return f"fn:{name}", (t,), kw
    if name == "arange":
        args = tuple(r.choice([0, 1, 5, -3, 2.5, float("inf"), float("nan"), "a", None,
                               2 ** 62]) for _ in range(r.int(1, 3)))
        if len(args) == 3 and r.chance(0.3):
            args = args[:2] + (0,)
        return "fn:arange", args, kw
    if name in ("linspace", "logspace"):
        return f"fn:{name}", (r.scalar(0.1), r.scalar(0.1), r.small_int()), kw
    if name == "eye":
        return "fn:eye", (r.small_int(),) + tuple(_opt(r, r.small_int(), 0.4)), kw
    if name == "randint":
        lo, hi = r.choice([(0, 5), (5, 0), (0, 0), (-3, 3), (0, 2 ** 63)])
        return "fn:randint", (lo, hi, r.size()), kw
    if name == "randperm":
        return "fn:randperm", (r.small_int(),), kw
    if name == "tensor":
        data = r.choice([[1, 2], [[1, 2], [3]], [], [[]], "a", [1, "a"], [1.5, True],
                         [[1], [2]], 2 ** 64, [2 ** 63], [None], [[1, 2], 3], (1, 2.0, 1j)])
        return "fn:tensor", (data,), kw
    if name == "full_bad":
        return "fn:full", (r.size(), r.scalar()), {"dtype": r.dtype(0.5)}
    raise AssertionError(name)


FACTORY_OPS = ["zeros", "ones", "empty", "rand", "randn", "full", "zeros_like", "ones_like",
               "full_like", "empty_like", "rand_like", "arange", "linspace", "logspace", "eye",
               "randint", "randperm", "tensor"]


def _mat(r, rows=None, cols=None, batch=()):
    rows = r.int(0, 4) if rows is None else rows
    cols = r.int(0, 4) if cols is None else cols
    dt = r.choice(FLOATS) if r.chance(0.8) else r.choice(DTYPES)
    # LAPACK's results and failures on NaN/inf input depend on the LAPACK build
    return r.tensor(tuple(batch) + (rows, cols), dt, finite=True)


def _gen_linalg(r, name):
    n = r.int(0, 4)
    m = r.int(0, 4) if r.chance(0.5) else n
    k = r.int(0, 4) if r.chance(0.3) else m
    if name in ("mm", "matmul", "bmm", "addmm", "mv", "dot", "vdot", "outer", "inner", "kron",
                "cross", "tensordot", "baddbmm", "addmv", "addr", "chain_matmul"):
        if name == "mm":
            return r.choice(["fn:mm", "meth:mm"]), (_mat(r, n, m), _mat(r, k, n)), \
                _out(r, None, {}, 0.1)
        if name == "matmul":
            a = r.tensor(r.choice([(3,), (2, 3), (2, 2, 3), (), (0,), (3, 0)]),
                         r.choice(FLOATS) if r.chance(0.8) else None)
            b = r.tensor(r.choice([(3,), (3, 2), (2, 3, 2), (), (4,), (0, 2), (1, 3, 1)]),
                         a[3] if r.chance(0.8) else None)
            return r.choice(["fn:matmul", "meth:matmul", "meth:__matmul__"]), (a, b), {}
        if name in ("bmm", "baddbmm"):
            bb = r.int(0, 2)
            a, b = _mat(r, n, m, (bb,)), _mat(r, k, n, (r.int(0, 2) if r.chance(0.3) else bb,))
            if name == "bmm":
                return "fn:bmm", (a, b), {}
            return "fn:baddbmm", (_mat(r, n, n, (bb,)), a, b), {}
        if name in ("mv", "addmv"):
            v = r.tensor((k,), r.choice(FLOATS))
            if name == "mv":
                return "fn:mv", (_mat(r, n, m), v), {}
            return "fn:addmv", (r.tensor((n,)), _mat(r, n, m), v), {}
        if name in ("dot", "vdot", "outer", "inner", "kron"):
            a = r.tensor((n,) if r.chance(0.8) else r.choice(SHAPES),
                         r.choice(FLOATS) if r.chance(0.8) else None)
            b = r.tensor((m,) if r.chance(0.8) else r.choice(SHAPES),
                         a[3] if r.chance(0.8) else None)
            return f"fn:{name}", (a, b), {}
        if name == "addmm":
            return "fn:addmm", (r.tensor(r.choice([(n, n), (n,), (), (2, 5)]), "float32"),
                                _mat(r, n, m), _mat(r, k, n)), \
                {"beta": r.scalar(0.2), "alpha": r.scalar(0.2)} if r.chance(0.3) else {}
        if name == "addr":
            return "fn:addr", (r.tensor((n, m)), r.tensor((n,)), r.tensor((k,))), {}
        if name == "cross":
            a = r.tensor(r.choice([(3,), (2, 3), (3, 2), (2,), (4, 3)]), r.choice(FLOATS))
            b = r.tensor(r.choice([a[1].shape, (3,), (2, 3)]), a[3])
            return r.choice(["fn:cross", "linalg:cross"]), (a, b), \
                {"dim": r.dim(a[1].ndim)} if r.chance(0.5) else {}
        if name == "tensordot":
            a = r.tensor(r.choice([(2, 3), (3, 3), (2, 3, 4)]), "float64")
            b = r.tensor(r.choice([(3, 2), (3, 4), (4, 3)]), "float64")
            return "fn:tensordot", (a, b), {"dims": r.choice([0, 1, 2, 3, -1, ([1], [0]),
                                                              ([0, 0], [1, 1]), ([5], [0])])}
        if name == "chain_matmul":
            return "fn:chain_matmul", (_mat(r, n, m), _mat(r, m, k)), {}
    sq = _mat(r, n, n if r.chance(0.8) else m, (r.int(1, 2),) if r.chance(0.2) else ())
    if name in ("inv", "det", "slogdet", "cholesky", "matrix_rank", "pinv", "eigvalsh", "qr",
                "svdvals", "matrix_norm", "vector_norm", "norm", "matrix_power", "solve", "lstsq",
                "eigh", "svd", "lu_factor", "multi_dot", "vecdot", "diagonal", "tensorinv"):
        if name == "matrix_power":
            return r.choice(["fn:matrix_power", "linalg:matrix_power"]), (sq, r.int(-2, 3)), {}
        if name == "solve":
            return "linalg:solve", (sq, r.tensor(r.choice([(n,), (n, 2), (m,), (2, n)]),
                                                  sq[3])), {}
        if name == "lstsq":
            return "linalg:lstsq", (sq, r.tensor(r.choice([(n,), (n, 2), (m, 1)]), sq[3])), {}
        if name == "vector_norm":
            t = r.tensor(floats=True)
            kw = {"ord": r.choice([2, 1, 0, float("inf"), -1, "fro", 3.5])}
            if r.chance(0.5):
                kw["dim"] = r.dims(t[1].ndim)
            return "linalg:vector_norm", (t,), kw
        if name == "matrix_norm":
            t = r.tensor(floats=True)
            return "linalg:matrix_norm", (t,), {"ord": r.choice(["fro", "nuc", 1, 2, -1, 3,
                                                                 float("inf")])}
        if name == "norm":
            t = r.tensor(floats=True)
            kw = {"ord": r.choice([None, 2, "fro", "nuc", 1, 3])} if r.chance(0.6) else {}
            if r.chance(0.4):
                kw["dim"] = r.dims(t[1].ndim) if r.chance(0.5) else r.dim(t[1].ndim)
            return "linalg:norm", (t,), kw
        if name == "multi_dot":
            return "linalg:multi_dot", (("list", [_mat(r, n, m), _mat(r, k, 2)][:r.int(0, 2)]),), {}
        if name == "vecdot":
            return "linalg:vecdot", (r.tensor((n,), "float64"), r.tensor((m,), "float64")), {}
        if name == "diagonal":
            return "linalg:diagonal", (r.tensor(),), {}
        if name == "tensorinv":
            return "linalg:tensorinv", (r.tensor((4, 2, 2), "float64"),), \
                {"ind": r.choice([0, 1, 2, 3])}
        if name in ("cholesky", "det", "inv", "slogdet", "pinv", "matrix_rank", "eigvalsh",
                    "svdvals", "qr", "eigh", "svd", "lu_factor"):
            if r.chance(0.5):
                # symmetric positive definite when square
                a = sq[1]
                if a.ndim >= 2 and a.shape[-1] == a.shape[-2] and a.dtype.kind == "f":
                    a = a @ np.swapaxes(a, -1, -2) + np.eye(a.shape[-1], dtype=a.dtype) * 4
                    sq = ("T", a, sq[2] if sq[2] != "e" else "c", sq[3])
            pre = r.choice(["linalg:"] + (["fn:"] if name in ("det", "slogdet", "inverse",
                                                              "pinverse", "cholesky") else []))
            return pre + name, (sq,), {}
    if name in ("trace", "logdet", "inverse", "cholesky_inverse", "triangular_solve"):
        return f"fn:{name}", (sq,), {}
    raise AssertionError(name)


LINALG_OPS = ["mm", "matmul", "bmm", "addmm", "mv", "dot", "vdot", "outer", "inner", "kron",
              "cross", "tensordot", "baddbmm", "addmv", "addr", "inv", "det", "slogdet",
              "cholesky", "matrix_rank", "pinv", "eigvalsh", "qr", "svdvals", "matrix_norm",
              "vector_norm", "norm", "matrix_power", "solve", "lstsq", "eigh", "svd",
              "lu_factor", "multi_dot", "vecdot", "trace", "logdet", "inverse", "tensorinv",
              "diagonal"]


def _gen_sort(r, name):
    t = r.tensor()
    nd = t[1].ndim
    if name in ("sort", "argsort"):
        kw = {}
        if r.chance(0.5):
            kw["dim"] = r.dim(nd)
        if r.chance(0.3):
            kw["descending"] = r.choice([True, False])
        if r.chance(0.3):
            kw["stable"] = r.choice([True, False, None])
        return r.choice([f"fn:{name}", f"meth:{name}"]), (t,), kw
    if name in ("topk", "kthvalue"):
        n = t[1].shape[-1] if nd else 1
        k = r.int(0, n + 1) if r.chance(0.7) else r.small_int()
        kw = {}
        if r.chance(0.5):
            kw["dim"] = r.dim(nd)
        if name == "topk" and r.chance(0.3):
            kw["largest"] = r.choice([True, False])
        return r.choice([f"fn:{name}", f"meth:{name}"]), (t, k), kw
    if name in ("unique", "unique_consecutive"):
        kw = {}
        if r.chance(0.4):
            kw["dim"] = r.dim(nd)
        if r.chance(0.4):
            kw["return_counts"] = True
        if r.chance(0.4):
            kw["return_inverse"] = True
        return f"fn:{name}", (t,), kw
    if name in ("searchsorted", "bucketize"):
        b = ("T", np.sort(r.values((r.int(0, 5),), "float64")), "c", "float64")
        if r.chance(0.3):
            b = r.tensor()
        v = r.tensor() if r.chance(0.7) else r.scalar()
        kw = {}
        if r.chance(0.3):
            kw["right"] = True
        if r.chance(0.2):
            kw["side"] = r.choice(["left", "right", "bad"])
        if r.chance(0.2):
            kw["out_int32"] = True
        if name == "bucketize":
            kw.pop("side", None)
            return "fn:bucketize", (v, b), kw
        return "fn:searchsorted", (b, v), kw
    if name in ("bincount", "histc"):
        if name == "bincount":
            t = r.index_tensor(5, r.choice([(0,), (3,), (), (2, 2)]), 0.4)
            kw = {"minlength": r.choice([0, 3, -1])} if r.chance(0.4) else {}
            if r.chance(0.3):
                kw["weights"] = r.tensor(t[1].shape if r.chance(0.7) else (2,))
            return "fn:bincount", (t,), kw
        return "fn:histc", (t,), {"bins": r.choice([0, 3, -1]), "min": r.choice([0, 5]),
                                  "max": r.choice([0, 3])}
    raise AssertionError(name)


SORT_OPS = ["sort", "argsort", "topk", "kthvalue", "unique", "unique_consecutive",
            "searchsorted", "bucketize", "bincount", "histc"]


def _gen_misc(r, name):
    t = r.tensor()
    nd = t[1].ndim
    if name in ("fill_", "zero_"):
        return f"meth:{name}", (t,) + ((r.scalar() if r.chance(0.7) else r.tensor(
            r.choice([(), (1,), (2,)]))),) * (name == "fill_"), {}
    if name == "copy_":
        return "meth:copy_", (t, _broadcast_partner(r, t)), {}
    if name in ("to", "type"):
        return f"meth:{name}", (t, r.dtype()), {}
    if name == "item":
        return "meth:item", (t,), {}
    if name == "tolist":
        return "meth:tolist", (t,), {}
    if name in ("size", "stride"):
        return f"meth:{name}", (t,) + tuple(_opt(r, r.dim(nd), 0.8)), {}
    if name in ("numel", "dim", "is_contiguous", "clone", "contiguous", "detach", "float",
                "long", "bool", "int", "half", "double", "nelement", "element_size"):
        return f"meth:{name}", (t,), {}
    if name == "resize_":
        return "meth:resize_", (t, r.size()), {}
    if name == "new_zeros":
        return "meth:new_zeros", (t, r.size()), {}
    if name == "new_full":
        return "meth:new_full", (t, r.size(), r.scalar()), {}
    if name == "new_tensor":
        return "meth:new_tensor", (t, r.choice([[1, 2], "a", [[1], [2, 3]], 3.5])), {}
    if name == "expand_as":
        return "meth:expand_as", (t, r.tensor()), {}
    if name == "view_as":
        return "meth:view_as", (t, r.tensor()), {}
    if name == "reshape_as":
        return "meth:reshape_as", (t, r.tensor()), {}
    if name == "dim_bool":
        return "meth:__bool__", (t,), {}
    if name == "int_conv":
        return r.choice(["meth:__int__", "meth:__float__", "meth:__index__",
                         "meth:__len__"]), (t,), {}
    if name == "requires_grad_":
        return "meth:requires_grad_", (t,), {}
    if name in ("logical_and_", "mul_", "add_"):
        return f"meth:{name}", (t, r.tensor()), {}
    raise AssertionError(name)


MISC_OPS = ["fill_", "zero_", "copy_", "to", "type", "item", "tolist", "size", "stride",
            "numel", "dim", "clone", "contiguous", "resize_", "new_zeros", "new_full",
            "new_tensor", "expand_as", "view_as", "reshape_as", "dim_bool", "int_conv",
            "requires_grad_", "float", "long", "bool", "element_size"]

FAMILIES = [
    (UNARY, _gen_unary, 0.12),
    (BINARY, _gen_binary, 0.14),
    (["where", "clamp", "lerp", "addcmul", "addcdiv"], _gen_ternary, 0.04),
    (REDUCE, _gen_reduce, 0.13),
    (SCAN, _gen_scan, 0.04),
    (SHAPE_OPS, _gen_shape, 0.14),
    (JOIN_OPS, _gen_join, 0.05),
    (INDEX_OPS, _gen_index, 0.1),
    (["getitem", "getitem", "setitem"], _gen_getitem, 0.05),
    (FACTORY_OPS, _gen_factory, 0.06),
    (LINALG_OPS, _gen_linalg, 0.07),
    (SORT_OPS, _gen_sort, 0.04),
    (MISC_OPS, _gen_misc, 0.04),
]


def _torch_crashes(case: Case) -> bool:
    """Rules for the calls that crash torch 2.13 itself (abort/segfault), or where torch's
    own answer is wrong or arbitrary: never generated."""
    name = case.op.partition(":")[2]
    first = case.args[0] if case.args else None
    # median/nanmedian along a dim of an expanded (stride 0) input read the wrong elements:
    # torch.tensor([[0., 5.]]).expand(2, 2).median(0) gives values [0., -1.] or garbage
    if name in ("median", "nanmedian") and _is_t(first) and first[2] == "e" and \
            (len(case.args) > 1 or "dim" in case.kwargs):
        return True
    # var_mean/std_mean with an infinite element: torch's Welford update turns the mean into
    # NaN or not depending on where the inf falls in its vectorised loop
    if name in ("var_mean", "std_mean") and _is_t(first) and first[1].dtype.kind == "f" and \
            not np.isfinite(first[1]).all():
        return True
    # the sign bit of a NaN made by a dtype conversion is the converter's choice (torch's
    # float64 -> bfloat16 NaN is negative, ml_dtypes' positive): copysign/signbit read it
    if name in ("copysign", "copysign_", "signbit") and any(
            _is_t(a) and a[1].dtype.kind == "f" and np.isnan(a[1]).any() for a in case.args):
        return True
    # take_along_dim with an index out of range may read outside the input instead of
    # raising (gather over an expanded index)
    if name == "take_along_dim" and len(case.args) > 2 and _is_t(case.args[1]) and \
            _is_t(first) and isinstance(case.args[2], int) and first[1].ndim and \
            -first[1].ndim <= case.args[2] < first[1].ndim:
        size = first[1].shape[case.args[2]]
        idx = case.args[1][1]
        if idx.dtype == np.int64 and idx.size and ((idx < -size) | (idx >= size)).any():
            return True
    return False


def generate(seed: int, n: int) -> list[Case]:
    r = _R(seed)
    weights = np.array([w for _, _, w in FAMILIES])
    weights = weights / weights.sum()
    cases = []
    while len(cases) < n:
        names, gen, _ = FAMILIES[int(r.rng.choice(len(FAMILIES), p=weights))]
        name = r.choice(names)
        op, args, kwargs = gen(r, name)
        case = Case(len(cases), op, tuple(args), dict(kwargs))
        if _torch_crashes(case):
            continue
        cases.append(case)
    return cases


# --------------------------------------------------------------------------- running

def _resolve(lib, op: str):
    kind, _, name = op.partition(":")
    if kind == "fn":
        if name == "empty_shape":
            return lambda *a, **k: tuple(lib.empty(*a, **k).shape)
        if name == "empty_like_shape":
            return lambda *a, **k: (tuple(lib.empty_like(*a, **k).shape),
                                    lib.empty_like(*a, **k).dtype)
        return getattr(lib, name)
    if kind == "linalg":
        return getattr(lib.linalg, name)
    if kind == "meth":
        return lambda self, *a, **k: getattr(self, name)(*a, **k)
    if op == "getitem":
        return lambda self, key: self[key]
    if op == "setitem":
        def setitem(self, key, value):
            self[key] = value
            return self
        return setitem
    raise AssertionError(op)


def run(lib, case: Case):
    """-> ("ok", result, tensor args) or ("err", exception, tensor args)"""
    lib.manual_seed(0)
    try:
        args = [build(lib, a) for a in case.args]
        kwargs = {k: build(lib, v) for k, v in case.kwargs.items()}
    except Exception as e:  # noqa: BLE001
        return ("build", e, [])
    tensors = [a for a in list(args) + list(kwargs.values()) if isinstance(a, lib.Tensor)]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ("ok", _resolve(lib, case.op)(*args, **kwargs), tensors)
    except Exception as e:  # noqa: BLE001 - every exception is compared
        return ("err", e, tensors)


_MODULE_RE = re.compile(r"\b(torch|strided)\b")
# torch's errors raised in C++ helpers of its argument parser carry the C++ stack of the
# build that raised them ("\nException raised from THPUtils_unpackLong at /__w/...: frame #0
# ..."): build-specific text, cut from both sides
_CPP_TRACE_RE = re.compile(r"\nException raised from .*?(?=\"?\Z)", re.DOTALL)


def normalize_message(msg: str) -> str:
    return _MODULE_RE.sub("<lib>", _CPP_TRACE_RE.sub("", msg))


def _summary(x, lib):
    """A comparable, library-independent form of a result."""
    if isinstance(x, lib.Tensor):
        dt = str(x.dtype).split(".")[-1]
        if x.device.type == "meta":
            return ("T", dt, tuple(x.shape))
        if x.numel() == 0:   # (its shape may be too large for a NumPy array: (2**31,) * 2 + (0,))
            return ("T", dt, tuple(x.shape), np.zeros(0), x.requires_grad)
        v = x.detach()
        if v.dtype == lib.bfloat16:
            v = v.float()
        if lib.__name__ == "strided":
            arr = np.array(v.resolve_conj().resolve_neg()._array(), copy=True)
        else:
            arr = v.resolve_conj().resolve_neg().numpy().copy()
        return ("T", dt, tuple(x.shape), arr, x.requires_grad)
    if isinstance(x, lib.Size):
        return ("Size", tuple(x))
    if isinstance(x, lib.dtype):
        return ("dtype", str(x).split(".")[-1])
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return (type(x).__name__,) + tuple(_summary(e, lib) for e in x)
    if isinstance(x, (list, tuple)):
        return (type(x).__name__,) + tuple(_summary(e, lib) for e in x)
    if isinstance(x, (bool, int, float, complex, str)) or x is None:
        return ("scalar", type(x).__name__, x)
    return ("other", type(x).__name__)


def _same(a, b) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        if not (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)):
            return False
        if a.shape != b.shape:
            return False
        if a.dtype.kind in "fc" or b.dtype.kind in "fc":
            # float16 results (and the float32 stand-in for bfloat16) are rounded where
            # torch and NumPy accumulate differently
            tol = 1e-2 if np.float16 in (a.dtype, b.dtype) else 1e-4
            a64 = a.astype(np.complex128 if a.dtype.kind == "c" else np.float64)
            b64 = b.astype(np.complex128 if b.dtype.kind == "c" else np.float64)
            return bool(np.allclose(a64, b64, rtol=tol, atol=tol / 10, equal_nan=True))
        return bool(np.array_equal(a, b))
    if isinstance(a, tuple) and isinstance(b, tuple):
        if len(a) == len(b) == 5 and a[0] == b[0] == "T" and a[1] == b[1]:
            if a[1] in ("bfloat16", "float16", "complex32"):
                return a[2] == b[2] and a[4] == b[4] and bool(np.allclose(
                    a[3].astype(np.float64), b[3].astype(np.float64), rtol=1e-2, atol=1e-3,
                    equal_nan=True))
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-4, abs_tol=1e-5)
    if isinstance(a, complex) and isinstance(b, complex):
        return _same(a.real, b.real) and _same(a.imag, b.imag)
    return type(a) is type(b) and a == b


# The index these ops return among equal values is not specified by torch (it depends on
# its sorting network); where the input holds equal values only the values are compared.
_TIE_OPS = {"topk", "kthvalue", "median", "nanmedian", "mode", "sort", "argsort"}


def _ties_unspecified(case: Case, torch_tensors) -> bool:
    name = case.op.partition(":")[2]
    if name not in _TIE_OPS or case.kwargs.get("stable") is True:
        return False
    if not torch_tensors:
        return False
    t = torch_tensors[0].detach()
    arr = t.numpy() if t.is_complex() else t.double().numpy()
    return np.unique(arr).size != arr.size


def _drop_indices(summary):
    if isinstance(summary, tuple) and summary and summary[0] == "T":
        return summary[:3] if summary[1] == "int64" else summary
    if isinstance(summary, tuple) and len(summary) == 3 and summary[0] in (
            "topk", "kthvalue", "median", "nanmedian", "mode", "sort", "tuple"):
        return summary[:2] + (_drop_indices(summary[2]),)
    return summary


# Factors defined up to signs (or a rotation, for repeated eigenvalues): only the spectrum is
# compared; of the other outputs, shapes and dtypes.
_DECOMPOSITIONS = {"eigh": (0,), "svd": (1,), "qr": (), "lu_factor": ()}


def _values_only(summary):
    if not (isinstance(summary, tuple) and summary and summary[0].startswith("linalg_")):
        return summary
    name = summary[0].removeprefix("linalg_")
    keep = _DECOMPOSITIONS.get(name, ())
    return (summary[0],) + tuple(e if i in keep else e[:3]
                                 for i, e in enumerate(summary[1:]))


def _lacks(lib, op: str) -> bool:
    kind, _, name = op.partition(":")
    if kind == "fn":
        return not hasattr(lib, name.removesuffix("_shape"))
    if kind == "linalg":
        return not hasattr(lib.linalg, name)
    if kind == "meth":
        return not hasattr(lib.Tensor, name)
    return False


def _outside_storage(x, lib) -> str | None:
    """A strided tensor's elements must lie inside its storage."""
    if isinstance(x, (list, tuple)):
        for e in x:
            bad = _outside_storage(e, lib)
            if bad:
                return bad
        return None
    if not isinstance(x, lib.Tensor) or x.device.type == "meta" or x.numel() == 0:
        return None
    lo = hi = x.storage_offset()
    for s, st in zip(x.shape, x.stride()):
        if st >= 0:
            hi += (s - 1) * st
        else:
            lo += (s - 1) * st
    n = x.untyped_storage().nbytes() // x.element_size()
    if lo < 0 or hi >= n:
        return f"elements [{lo}, {hi}] outside a storage of {n} elements"
    return None


def _short(x) -> str:
    s = repr(x)
    return s if len(s) < 160 else s[:157] + "..."


MISSING = "strided has no "


def compare(case: Case) -> str | None:
    """None when both libraries agree; a text saying how they differ otherwise (a text
    starting with ``MISSING`` when strided lacks the operation itself)."""
    import torch

    import strided

    kt, rt, tt = run(torch, case)
    ks, rs, ts = run(strided, case)
    if ks == "err" and isinstance(rs, AttributeError) and _lacks(strided, case.op):
        return MISSING + case.op
    if ks == "err" and isinstance(rs, NotImplementedError) and str(rs).startswith(
            "Could not run 'aten::"):
        return MISSING + "a kernel: " + str(rs).split(" with ")[0]
    if kt == "build" or ks == "build":
        if kt == ks:
            return None
        return f"building the arguments: torch {kt} {_short(rt)}, strided {ks} {_short(rs)}"
    if kt == "err" and ks == "err":
        if type(rt).__name__ != type(rs).__name__:
            return (f"class: torch {type(rt).__name__}: {_short(str(rt))} | strided "
                    f"{type(rs).__name__}: {_short(str(rs))}")
        mt, ms = normalize_message(str(rt)), normalize_message(str(rs))
        if mt != ms:
            return f"message ({type(rt).__name__}): torch {mt!r} | strided {ms!r}"
        return None
    if kt == "err":
        return f"strided returned; torch raised {type(rt).__name__}: {_short(str(rt))}"
    if ks == "err":
        return f"strided raised {type(rs).__name__}: {_short(str(rs))}; torch returned"
    try:
        st, ss = _summary(rt, torch), _summary(rs, strided)
    except Exception as e:  # noqa: BLE001
        return f"summarising the result raised {type(e).__name__}: {e}"
    if _ties_unspecified(case, tt):
        st, ss = _drop_indices(st), _drop_indices(ss)
    if case.op.partition(":")[2] in _DECOMPOSITIONS:
        st, ss = _values_only(st), _values_only(ss)
    if not _same(st, ss):
        return f"result: torch {_short(st)} | strided {_short(ss)}"
    for a, b in zip(tt, ts):
        if not _same(_summary(a, torch), _summary(b, strided)):
            return "a tensor argument holds different values afterwards"
    bad = _outside_storage(rs, strided) or _outside_storage(ts, strided)
    if bad:
        return bad
    return None


def pattern(mismatch: str) -> str:
    """A mismatch with numbers and quoted text blurred, to group mismatches by cause."""
    s = re.sub(r"-?\d+", "N", mismatch)
    return s[:150]


def main(argv=None) -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--n", type=int, default=5000)
    p.add_argument("--start", type=int, default=0)
    p.add_argument("--report", action="store_true")
    p.add_argument("--case", type=int, default=None)
    a = p.parse_args(argv)
    # a generated call that makes either library allocate for real fails here instead of
    # exhausting the machine
    import resource
    resource.setrlimit(resource.RLIMIT_AS, (8 << 30, 8 << 30))
    cases = generate(a.seed, a.n)
    if a.case is not None:
        c = cases[a.case]
        print(c.describe())
        print(compare(c))
        return 0
    if a.report:
        from collections import Counter, defaultdict
        groups = defaultdict(list)
        for c in cases:
            m = compare(c)
            if m:
                groups[pattern(c.op + " " + m)].append((c, m))
        total = sum(len(v) for k, v in groups.items() if MISSING not in k)
        print(f"{total} mismatches in {len(cases)} cases, {len(groups)} patterns "
              "(besides the operations strided lacks)")
        order = sorted(groups.items(), key=lambda kv: -len(kv[1]))
        for _, items in order:
            c, m = items[0]
            print(f"[{len(items)}] {c.describe()}\n      {m}")
        del Counter
        return 0
    out = sys.stdout
    for c in cases[a.start:]:
        out.write(f"S {c.index}\n")
        out.flush()
        m = compare(c)
        out.write("R " + json.dumps({"i": c.index, "case": c.describe(), "mismatch": m}) + "\n")
        out.flush()
    out.write("DONE\n")
    out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
