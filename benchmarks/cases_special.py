"""Benchmark cases for torch.special and the elementwise ops of issue 14 (its speed target:
the special functions over 1M float32 within 3x torch, 1 thread). Inputs are spread over
each function's domain (a range that visits all of its pieces)."""

from __future__ import annotations

import numpy as np
from cases import Case

_N = 1 << 20
_RNG = np.random.default_rng(0)
_WIDE = (_RNG.standard_normal(_N) * 10).astype(np.float32)
_POS = np.abs(_WIDE) + np.float32(0.01)
_UNIT = _RNG.uniform(0.001, 0.999, _N).astype(np.float32)
_SMALL = _RNG.uniform(-1.5, 1.5, _N).astype(np.float32)


def _per_lib(make):
    def setup(st, torch, np):
        return {"numpy": None, "strided": make(st), "torch": make(torch)}
    return setup


def _unary(name, data):
    def make(lib):
        x = lib.tensor(data)
        fn = getattr(lib.special, name)
        return lambda: fn(x)
    return _per_lib(make)


def _binary(name, a, b, module="special"):
    def make(lib):
        x, y = lib.tensor(a), lib.tensor(b)
        fn = getattr(getattr(lib, module) if module else lib, name)
        return lambda: fn(x, y)
    return _per_lib(make)


_UNARY = [
    ("i0", _WIDE), ("i0e", _WIDE), ("i1", _WIDE), ("i1e", _WIDE),
    ("modified_bessel_i0", _WIDE), ("modified_bessel_k0", _POS), ("modified_bessel_k1", _POS),
    ("scaled_modified_bessel_k0", _POS), ("bessel_j0", _WIDE), ("bessel_j1", _WIDE),
    ("bessel_y0", _POS), ("bessel_y1", _POS), ("spherical_bessel_j0", _WIDE),
    ("airy_ai", _WIDE), ("erfcx", _WIDE), ("ndtr", _WIDE), ("log_ndtr", _WIDE),
    ("ndtri", _UNIT), ("entr", _POS), ("sinc", _WIDE), ("expit", _WIDE), ("digamma", _WIDE),
    ("gammaln", _WIDE), ("erf", _WIDE), ("erfinv", _UNIT * 2 - 1), ("logit", _UNIT),
]

SPECIAL_CASES = [Case(f"special.{name} 1M f32", _unary(name, data), number=3)
                 for name, data in _UNARY]
SPECIAL_CASES += [
    Case("special.polygamma(2) 1M f32", _per_lib(
        lambda lib: (lambda x: lambda: lib.special.polygamma(2, x))(lib.tensor(_POS))),
        number=3),
    Case("special.zeta 1M f32", _binary("zeta", _POS + 1.5, _POS), number=3),
    Case("special.xlog1py 1M f32", _binary("xlog1py", _WIDE, _POS), number=3),
    Case("special.gammainc 1M f32", _binary("gammainc", _POS, _POS), number=3),
    Case("special.chebyshev_polynomial_t(n=12) 1M f32",
         _binary("chebyshev_polynomial_t", _SMALL, np.full(_N, 12, np.float32)), number=3),
    Case("special.legendre_polynomial_p(n=5) 1M f32",
         _binary("legendre_polynomial_p", _SMALL, np.full(_N, 5, np.float32)), number=3),
    Case("special.hermite_polynomial_h(n=8) 1M f32",
         _binary("hermite_polynomial_h", _SMALL, np.full(_N, 8, np.float32)), number=3),
    Case("xlogy 1M f32", _binary("xlogy", _WIDE, _POS, module=None), number=3),
    Case("logaddexp2 1M f32", _binary("logaddexp2", _WIDE, _SMALL, module=None), number=3),
]
