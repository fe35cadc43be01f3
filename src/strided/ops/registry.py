"""Turn the generated registration table into dispatcher entries (runs at import)."""

from __future__ import annotations

from ..core.dispatch_keys import DispatchKey
from ..kernels import EXTRA_DISPATCH, kernel
from ..kernels import complex32 as _c32
from . import dispatcher
from ._generated.registrations import OPS

_C32_KEYS = ("CPU", "CompositeExplicitAutograd", "CompositeImplicitAutograd")


def register_native_functions() -> None:
    for qualname, schema_text, dispatch in OPS:
        if dispatcher.find_op(qualname) is not None:
            continue
        op = dispatcher.register_op(qualname, schema_text)
        for key, kernel_name in dispatch.items():
            fn = kernel(kernel_name)
            if fn is not None:
                if key in _C32_KEYS:   # Note [complex32 refusals]
                    fn = _c32.guard(qualname, fn, schema_text)
                op.kernels.setdefault(DispatchKey[key], []).append(fn)
        op._rebuild()
    # kernels for further dispatch keys of ops declared in another file (the sparse layouts)
    touched = set()
    for qualname, key, fn in EXTRA_DISPATCH:
        op = dispatcher.get_op(qualname)
        stack = op.kernels.setdefault(DispatchKey[key], [])
        if fn not in stack:
            stack.append(fn)
            touched.add(op)
    for op in touched:
        op._rebuild()
