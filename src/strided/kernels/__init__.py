"""Kernels: the functions the dispatcher calls, looked up by the names that
``native_functions.yaml`` gives in its ``dispatch:`` tables."""

from __future__ import annotations

from types import ModuleType

from . import copy, elementwise, factory, indexing, reduction, resize, view_ops, views

_MODULES: tuple[ModuleType, ...] = (factory, copy, views, view_ops, resize, indexing,
                                    reduction, elementwise)


# linear algebra and the copying shape ops (issue 4)
from . import linalg, shape_ops  # noqa: E402

_MODULES += (linalg, shape_ops)

# random sampling (issue 4)
from . import random  # noqa: E402

_MODULES += (random,)

# sorting and order statistics (issue 4)
from . import sorting  # noqa: E402

_MODULES += (sorting,)

# unique, counting and bucketing (issue 4)
from . import counting  # noqa: E402

_MODULES += (counting,)

# linear algebra ops that decompose under autograd (issue 5)
from . import linalg_composite  # noqa: E402

_MODULES += (linalg_composite,)

# composite kernels of torch's alias operators (subtract, clip, square...; autograd issue 5)
from . import aliases  # noqa: E402

_MODULES += (aliases,)

# Autograd-key decompositions of reductions torch implements by calling other ops (issue 5)
from . import reduction_autograd  # noqa: E402

_MODULES += (reduction_autograd,)

# torch.nn's operators (issue 10): kernels/nn/<area>.py
from . import nn as _nn  # noqa: E402

_MODULES += _nn.MODULES

# the rest of torch's linear algebra, statistics and calculus ops (issue 14)
from . import linalg_extra, statistics  # noqa: E402

_MODULES += (linalg_extra, statistics)

# torch.special and the elementwise operators of issue 14 (xlogy, i0, gcd, complex, ...)
from . import special_functions  # noqa: E402

_MODULES += (special_functions,)

# indexing and shape ops of issue 14: *_copy, *_scatter, isin, renorm, ...
from . import shape_extra  # noqa: E402

_MODULES += (shape_extra,)

# torch.fft, stft / istft and the window factories (issue 14)
from . import fft as _fft  # noqa: E402

_MODULES += (_fft,)

# the sparse layouts (issue 16): kernels/sparse_*.py. Their DISPATCH rows (qualname, key,
# kernel) add sparse kernels to ops declared elsewhere (Note [Sparse tensors] in
# core/sparse_tensor.py); ops/registry.py registers them.
from . import sparse_coo  # noqa: E402

_MODULES += (sparse_coo,)
EXTRA_DISPATCH: list = list(sparse_coo.DISPATCH)

from . import sparse_compressed  # noqa: E402

_MODULES += (sparse_compressed,)
EXTRA_DISPATCH += sparse_compressed.DISPATCH

def _collect() -> dict:
    table = {}
    for module in _MODULES:
        for name, fn in vars(module).items():
            if callable(fn) and not name.startswith("_") and getattr(fn, "__module__", None) \
                    == module.__name__:
                if name in table and table[name] is not fn:
                    raise RuntimeError(f"kernel name {name} is defined twice")
                table[name] = fn
    return table


KERNELS = _collect()


def kernel(name: str):
    """The kernel called ``name``, or None when no module defines it (the op then reports a
    missing kernel for that key; tests/ops/test_codegen.py checks every name resolves)."""
    return KERNELS.get(name)
