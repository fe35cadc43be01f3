"""``torch.sparse_compressed_tensor`` and ``sparse_{csr,csc,bsr,bsc}_tensor``: torch's
hand-written Python constructors of the compressed layouts (issue 16). They accept tensors,
nested lists and NumPy arrays; the aten operators they call (ops/native_functions/
sparse_compressed.yaml) take tensors. The kernels are in kernels/sparse_compressed.py."""

from __future__ import annotations

import inspect
import operator

from ..core import layouts
from ..ops.dispatcher import get_op
from ._construct import _CHECK

__all__ = ["sparse_bsc_tensor", "sparse_bsr_tensor", "sparse_compressed_tensor",
           "sparse_csc_tensor", "sparse_csr_tensor"]

_TITLE = {layouts.sparse_csr: "SparseCsr", layouts.sparse_csc: "SparseCsc",
          layouts.sparse_bsr: "SparseBsr", layouts.sparse_bsc: "SparseBsc",
          layouts.sparse_coo: "Sparse", layouts.strided: "Strided"}


def _as_tensor(data, dtype=None, device=None):
    import strided as S
    if isinstance(data, S.Tensor):
        if (dtype is not None and data.dtype is not dtype) or \
                (device is not None and data.device != device):
            return data.to(dtype=dtype or data.dtype, device=device or data.device)
        return data
    return S.tensor(data, dtype=dtype, device=device)


def _construct(name, layout, compressed_indices, plain_indices, values, size, dtype, device,
               pin_memory, requires_grad, check_invariants):
    from ..core.devices import device as _device
    if isinstance(device, (str, int)):
        device = _device(device)
    values = _as_tensor(values, dtype, device)
    compressed_indices = _as_tensor(compressed_indices, None, values.device)
    plain_indices = _as_tensor(plain_indices, None, values.device)
    ks = compressed_indices._keyset | plain_indices._keyset | values._keyset
    saved = _CHECK[0]
    if check_invariants is not None:
        _CHECK[0] = bool(check_invariants)
    try:
        if size is None:
            out = get_op("aten::sparse_compressed_tensor.comp_plain_value").call(
                ks, compressed_indices, plain_indices, values, values.dtype, layout,
                values.device, pin_memory)
        else:
            size = tuple(operator.index(s) for s in size)
            out = get_op("aten::sparse_compressed_tensor.comp_plain_value_size").call(
                ks, compressed_indices, plain_indices, values, size, values.dtype, layout,
                values.device, pin_memory)
    finally:
        _CHECK[0] = saved
    if requires_grad:
        if not (out.dtype.is_floating_point or out.dtype.is_complex):
            raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                               "gradients")
        out.requires_grad_(True)
    return out


_KEYWORDS = ("dtype", "layout", "device", "pin_memory", "requires_grad", "check_invariants")


def _options(compressed: str, plain: str) -> list:
    tail = ("*, torch.dtype dtype = None, torch.layout layout = None, torch.device device = "
            "None, bool pin_memory = False, bool requires_grad = False, bool check_invariants "
            "= None)")
    head = f"(object {compressed}, object {plain}, object values, "
    return [head + "tuple of ints size, " + tail, head + tail]


def _signature(names, with_layout: bool) -> inspect.Signature:
    """The signature torch documents (``sparse_csr_tensor(crow_indices, col_indices, values,
    size=None, *, dtype=None, device=None, ...)``)."""
    P = inspect.Parameter
    params = [P(n, P.POSITIONAL_OR_KEYWORD) for n in (*names, "values")]
    params.append(P("size", P.POSITIONAL_OR_KEYWORD, default=None))
    kw = [("dtype", None)] + ([("layout", None)] if with_layout else []) + [
        ("device", None), ("pin_memory", False), ("requires_grad", False),
        ("check_invariants", None)]
    params += [P(k, P.KEYWORD_ONLY, default=d) for k, d in kw]
    return inspect.Signature(params)


def _bind(name, names, args, kwargs):
    """torch's parse of ``name(c, p, values, size=None, *, ...)``: the arguments as a dict,
    or torch's TypeError for a call none of its two signatures takes."""
    def refuse():
        from ..frontend.arg_parser import format_invalid_args
        raise TypeError(format_invalid_args(name, args, kwargs, _options(*names)))
    allowed = set(names) | {"values", "size"} | set(_KEYWORDS)
    if len(args) > 4 or set(kwargs) - allowed:
        refuse()
    bound = dict(zip((*names, "values", "size"), args))
    for k, v in kwargs.items():
        if k in bound:
            refuse()
        bound[k] = v
    if not {*names, "values"} <= set(bound):
        refuse()
    size = bound.get("size")
    if size is not None:
        try:
            bound["size"] = tuple(operator.index(v) for v in size)
        except TypeError:
            refuse()
    return bound


def sparse_compressed_tensor(*args, **kwargs):
    """``sparse_compressed_tensor(compressed_indices, plain_indices, values, size=None, *,
    dtype=None, layout=None, device=None, pin_memory=False, requires_grad=False,
    check_invariants=None)``: a sparse tensor in the compressed ``layout`` (CSR, CSC, BSR or
    BSC) of ``size`` (inferred from the indices when omitted)."""
    b = _bind("sparse_compressed_tensor", ("compressed_indices", "plain_indices"), args, kwargs)
    return _compressed(b["compressed_indices"], b["plain_indices"], b["values"], b.get("size"),
                       **{k: b[k] for k in _KEYWORDS if k in b})


def _compressed(compressed_indices, plain_indices, values, size=None, *, dtype=None,
                layout=None, device=None, pin_memory=False, requires_grad=False,
                check_invariants=None):
    if layout is None:
        raise RuntimeError("sparse_compressed_tensor expected sparse compressed tensor layout "
                           "but got none")
    if layout not in (layouts.sparse_csr, layouts.sparse_csc, layouts.sparse_bsr,
                      layouts.sparse_bsc):
        raise RuntimeError(f"sparse_compressed_tensor expected sparse compressed tensor layout "
                           f"but got {_TITLE.get(layout, layout)}")
    return _construct("sparse_compressed_tensor", layout, compressed_indices, plain_indices,
                      values, size, dtype, device, pin_memory, requires_grad, check_invariants)


def _fixed(name, required):
    names = (("crow_indices", "col_indices") if required in (layouts.sparse_csr,
                                                               layouts.sparse_bsr)
             else ("ccol_indices", "row_indices"))

    def ctor(*args, **kwargs):
        b = _bind(name, names, args, kwargs)
        return _fixed_ctor(b[names[0]], b[names[1]], b["values"], b.get("size"),
                           **{k: b[k] for k in _KEYWORDS if k in b})

    def _fixed_ctor(compressed_indices, plain_indices, values, size=None, *, dtype=None,
                    device=None, pin_memory=False, requires_grad=False, check_invariants=None,
                    layout=None):
        if layout is not None and layout is not required:
            raise RuntimeError(f"{name}: layout must be {_TITLE[required]} but got "
                               f"{_TITLE.get(layout, layout)}")
        return _construct(name, required, compressed_indices, plain_indices, values, size,
                          dtype, device, pin_memory, requires_grad, check_invariants)
    ctor.__name__ = ctor.__qualname__ = name
    ctor.__signature__ = _signature(names, False)
    ctor.__doc__ = (f"A {_TITLE[required][6:].upper()} tensor: ``{name}(compressed_indices, "
                    f"plain_indices, values, size=None, *, dtype=None, device=None, "
                    f"pin_memory=False, requires_grad=False, check_invariants=None)``.")
    return ctor


sparse_compressed_tensor.__signature__ = _signature(("compressed_indices", "plain_indices"),
                                                    True)
sparse_csr_tensor = _fixed("sparse_csr_tensor", layouts.sparse_csr)
sparse_csc_tensor = _fixed("sparse_csc_tensor", layouts.sparse_csc)
sparse_bsr_tensor = _fixed("sparse_bsr_tensor", layouts.sparse_bsr)
sparse_bsc_tensor = _fixed("sparse_bsc_tensor", layouts.sparse_bsc)
