"""Named tuples for operators with several named returns, like ``torch.return_types``.

    sign, logabsdet = strided.linalg.slogdet(a)      # unpacks like a tuple
    strided.linalg.slogdet(a).logabsdet              # or by field name
    type(strided.linalg.slogdet(a))                  # strided.return_types.linalg_slogdet

The generated bindings wrap a multi-return operator's tuple in the class named after the
Python binding (``linalg_slogdet``; its ``out=`` form gets ``linalg_slogdet_out``), as torch's
bindings do. The dispatcher itself returns plain tuples (``strided.ops.aten`` calls too).

Like torch's structseq types, a class is a plain ``tuple`` subclass built from one sequence
(``linalg_slogdet((sign, logabsdet))``), with ``n_fields`` and a field-per-line repr.
"""

from __future__ import annotations

__all__ = ["make"]

_TYPES: dict[str, type] = {}


def _field(index: int):
    return property(lambda self: tuple.__getitem__(self, index))


def _repr(self) -> str:
    body = ",\n".join(f"{name}={value!r}" for name, value in zip(self._field_names, self))
    return f"torch.return_types.{type(self).__name__}(\n{body})"


def _reduce(self):
    return (type(self), (tuple(self),))


def make(name: str, fields: tuple) -> type:
    """The return type called ``name`` with these field names (made once, then shared, and
    reachable as ``strided.return_types.<name>``)."""
    cls = _TYPES.get(name)
    if cls is not None:
        return cls
    fields = tuple(fields)
    namespace = {f: _field(i) for i, f in enumerate(fields)}
    namespace.update(__slots__=(), __repr__=_repr, __reduce__=_reduce, __module__=__name__,
                     _field_names=fields, n_fields=len(fields),
                     n_sequence_fields=len(fields), n_unnamed_fields=0)
    namespace["__new__"] = lambda c, sequence: _new(c, sequence, len(fields))
    cls = type(name, (tuple,), namespace)
    cls.__qualname__ = name
    _TYPES[name] = cls
    globals()[name] = cls
    return cls


def _new(cls, sequence, n: int):
    values = tuple(sequence)
    if len(values) != n:
        raise TypeError(f"torch.return_types.{cls.__name__}() takes a {n}-sequence "
                        f"({len(values)}-sequence given)")
    return tuple.__new__(cls, values)
