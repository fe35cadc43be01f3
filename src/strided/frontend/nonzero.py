"""Hand-written bindings for ``nonzero``: ``torch.nonzero(input, *, out=None, as_tuple=False)``
and ``Tensor.nonzero(*, as_tuple=False)``.

torch writes these two bindings by hand too: ``as_tuple`` switches between two operators
(``nonzero``, one (n, ndim) tensor, and ``nonzero_numpy``, one 1-D tensor per dim) and so
cannot come from a single schema. ``as_tuple=True`` is ``nonzero`` followed by ``unbind(1)``
(a 0-dim input counts as 1-D), so the tuple's tensors are views of one result.
"""

from __future__ import annotations

from ..ops.dispatcher import get_op
from . import arg_parser as _ap

__all__ = ["nonzero", "tensor_nonzero"]

_op_nonzero = get_op("aten::nonzero")
_op_nonzero_out = get_op("aten::nonzero.out")

# torch's Python signatures, for its error messages
_FUNCTION_SIG = _ap.PySig("nonzero", (("input", "Tensor", None, False),
                                      ("as_tuple", "bool", "False", True),
                                      ("out", "Tensor", "None", True)))
_FUNCTION_SIGS = (_FUNCTION_SIG,)
_METHOD_SIGS = (_ap.PySig("nonzero", (), is_method=True),
                _ap.PySig("nonzero", (("as_tuple", "bool", None, True),), is_method=True))


def _as_tuple(t):
    if not t._sizes:
        t = t.unsqueeze(0)
    return _op_nonzero.call(t._keyset, t).unbind(1)


def nonzero(*args, **kwargs):
    """``torch.nonzero``: the indices of the nonzero elements, as an (n, ndim) int64 tensor
    or (``as_tuple=True``) as one index tensor per dimension."""
    try:
        input, as_tuple, out = _parse_function(*args, **kwargs)
    except _ap.PARSE_ERRORS:
        # ``nonzero(x=t)``: Note [NumPy-style keyword aliases] in frontend/arg_parser.py
        renamed = _ap.alias_kwargs(kwargs, _FUNCTION_SIGS)
        try:
            if renamed is None:
                raise _ap.Mismatch
            input, as_tuple, out = _parse_function(*args, **renamed)
        except _ap.PARSE_ERRORS:
            _ap.raise_invalid_arguments((_FUNCTION_SIG,), args, kwargs)
    if as_tuple:
        if out is not None:
            raise RuntimeError("nonzero does not support the out kwarg when as_tuple is True")
        return _as_tuple(input)
    if out is None:
        return _op_nonzero.call(input._keyset, input)
    return _op_nonzero_out.call(input._keyset | out._keyset, input, out)


def _parse_function(input, *, as_tuple=False, out=None):
    input = _ap.to_tensor(input)
    if as_tuple is not True and as_tuple is not False:
        as_tuple = _ap.to_bool(as_tuple)
    if out is not None:
        out = _ap.to_tensor(out)
    return input, as_tuple, out


def tensor_nonzero(self, *args, **kwargs):
    """``Tensor.nonzero(*, as_tuple=False)``."""
    if not args and not kwargs:
        return _op_nonzero.call(self._keyset, self)
    if args:
        # torch's message for this case, word for word
        raise TypeError(f"nonzero() takes from 1 to 0 positional arguments but {len(args)} "
                        f"were given")
    if set(kwargs) == {"as_tuple"}:
        as_tuple = kwargs["as_tuple"]
        if as_tuple is not True and as_tuple is not False:
            try:
                as_tuple = _ap.to_bool(as_tuple)
            except _ap.Mismatch:
                _ap.raise_invalid_arguments(_METHOD_SIGS[1:], args, kwargs)
        if as_tuple:
            return _as_tuple(self)
        return _op_nonzero.call(self._keyset, self)
    if "as_tuple" not in kwargs:
        raise TypeError('nonzero() missing 1 required positional arguments: "as_tuple"')
    # torch lists the keywords last to first, and names a wrong one only when it is alone
    bad = [k for k in kwargs if k != "as_tuple"]
    got = ", ".join(f"{k}={_ap._typename(v)}" for k, v in reversed(kwargs.items()))
    why = (f"      didn't match because some of the keywords were incorrect: {bad[0]}\n"
           if len(bad) == 1 else "")
    raise TypeError(
        f"nonzero() received an invalid combination of arguments - got ({got}, ), but expected "
        f"one of:\n * ()\n * (*, bool as_tuple)\n{why}")


# Note [Signatures of the generated bindings] in frontend/arg_parser.py: this hand-written
# binding carries its signature too
nonzero.__signature__ = _ap.LazySignature(_parse_function)
