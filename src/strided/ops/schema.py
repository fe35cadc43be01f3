"""Operator schemas: parse PyTorch's schema language into frozen dataclasses.

Every operator of the library is declared once, in a YAML file, with a
``func:`` line written in the same schema language that PyTorch uses in
``native_functions.yaml``::

    add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor

This module turns such a line into a tree of small frozen (hashable)
dataclasses, checks that the declaration is self-consistent, and prints it
back: ``str()`` of any parsed object reproduces its input text exactly.
Only the canonical spelling is accepted (a single space after each comma,
`` -> `` between arguments and returns, ...); anything else is rejected
with a :class:`SchemaError` that shows the canonical spelling.

Worked example:

>>> s = FunctionSchema.parse(
...     "add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)")
>>> s.name.name.base, s.name.overload_name, s.kind()
('add', 'out', 'out')
>>> [a.name for a in s.arguments.flat_positional], [a.name for a in s.arguments.out]
(['self', 'other'], ['out'])
>>> s.mutated_arguments()
('out',)
>>> str(s.signature())
'add(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor'
>>> s.signature() == FunctionSchema.parse(
...     "add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)").signature()
True
>>> parse_type("Tensor?[]")
ListType(elem=OptionalType(elem=BaseType(name='Tensor')), size=None)

Grammar (informally)::

    schema     := opname "(" [item (", " item)*] ") -> " returns
    opname     := basename ["." overload]
    item       := "*" | basetype ["(" annotation ")"] suffix* " " name ["=" default]
    returns    := "()" | ret | "(" ret (", " ret)* ")"
    ret        := basetype ["(" annotation ")"] suffix* [" " name]
    suffix     := "?" | "[" [size] "]"
    annotation := set ["!"] [" -> " (set | "*")]        set := alias ("|" alias)*

Alias annotations may only decorate ``Tensor`` types and are written right
after the word ``Tensor`` (``Tensor(a!)?``, ``Tensor(a)[]``).

The second half of the module loads a ``native_functions.yaml``-style file
into :class:`NativeFunction` records (see :func:`load_native_functions`);
every error raised there starts with ``"<file>:<line>: "``.
"""

from __future__ import annotations

import itertools
import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

import yaml

__all__ = [
    "AUGMENTED_ASSIGNMENT_NAMES",
    "BASE_TYPE_NAMES",
    "Annotation",
    "Argument",
    "Arguments",
    "BaseOperatorName",
    "BaseType",
    "FunctionSchema",
    "ListType",
    "Location",
    "NativeFunction",
    "OperatorName",
    "OptionalType",
    "Return",
    "SchemaError",
    "SchemaKind",
    "TensorOptionsArguments",
    "Type",
    "load_native_functions",
    "parse_returns",
    "parse_type",
]


class SchemaError(ValueError):
    """A schema, or a YAML entry declaring one, is malformed or inconsistent."""


# --------------------------------------------------------------------------------------
# Lexical helpers
# --------------------------------------------------------------------------------------

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ALIAS = r"[a-z][a-z0-9_]*"
_ALIAS_RE = re.compile(_ALIAS)
_ANNOTATION_RE = re.compile(
    rf"(?P<before>{_ALIAS}(?:\|{_ALIAS})*)(?P<write>!?)"
    rf"(?: -> (?P<after>\*|{_ALIAS}(?:\|{_ALIAS})*))?"
)
_ANNOTATED_TYPE_RE = re.compile(r"(?P<base>\w+)\((?P<ann>.*)\)(?P<suffix>(?:\?|\[\d*\])*)")
_CLOSERS = {"(": ")", "[": "]"}


def _is_ident(text: str) -> bool:
    return _IDENT.fullmatch(text) is not None


def _structure(text: str) -> Iterator[tuple[int, str, int]]:
    """Yield ``(index, char, depth)`` for every character outside string literals.

    ``depth`` is the bracket nesting level *around* the character, so an opening
    bracket and its matching closing bracket report the same depth.  Raises
    :class:`SchemaError` on mismatched brackets; if the caller consumes the whole
    iterator, also on unclosed brackets and unterminated string literals.
    """
    stack: list[str] = []
    quote: str | None = None
    i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        if quote is not None:
            if ch == "\\":
                i += 2
                continue
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch in _CLOSERS:
            yield i, ch, len(stack)
            stack.append(_CLOSERS[ch])
        elif ch in ")]":
            if not stack or stack.pop() != ch:
                raise SchemaError(f"unbalanced {ch!r} at offset {i} in {text!r}")
            yield i, ch, len(stack)
        else:
            yield i, ch, len(stack)
        i += 1
    if quote is not None:
        raise SchemaError(f"unterminated string literal in {text!r}")
    if stack:
        raise SchemaError(f"missing {stack[-1]!r} in {text!r}")


def _split_top_level(text: str) -> list[str]:
    """Split ``text`` at commas that are outside brackets and string literals.

    A single space following each comma is consumed; other whitespace is kept
    (and later rejected by the canonical-form check).
    """
    pieces: list[str] = []
    begin = 0
    for i, ch, depth in _structure(text):
        if ch == "," and depth == 0:
            pieces.append(text[begin:i])
            begin = i + 2 if text.startswith(" ", i + 1) else i + 1
    pieces.append(text[begin:])
    return pieces


def _last_top_level_space(text: str) -> int:
    """Index of the last space outside brackets and string literals, or -1."""
    found = -1
    for i, ch, depth in _structure(text):
        if ch == " " and depth == 0:
            found = i
    return found


def _check_canonical(what: str, text: str, parsed: object) -> None:
    printed = str(parsed)
    if printed != text:
        raise SchemaError(f"{what} {text!r} is not in canonical form; write it as {printed!r}")


# --------------------------------------------------------------------------------------
# Operator names
# --------------------------------------------------------------------------------------

#: Operators that have an in-place dunder spelling ``__i<name>__`` (PEP 203).
AUGMENTED_ASSIGNMENT_NAMES: frozenset[str] = frozenset(
    {"add", "sub", "mul", "div", "mod", "pow", "lshift", "rshift", "and", "xor", "or"}
)

_AUGMENTED = AUGMENTED_ASSIGNMENT_NAMES
_FUNCTIONAL_SUFFIX = "_functional"


@dataclass(frozen=True)
class BaseOperatorName:
    """An operator name without its overload: ``add``, ``add_``, ``__iand__``.

    ``base`` is the name stripped of the in-place underscore, the dunder
    decoration and the ``_functional`` suffix; the flags record which of those
    were present.
    """

    base: str
    inplace: bool
    dunder_method: bool
    functional_overload: bool = False

    def __post_init__(self) -> None:
        if not _is_ident(self.base):
            raise SchemaError(f"invalid operator name {self.base!r}")
        if self.dunder_method:
            if not re.fullmatch(r"[A-Za-z0-9]+", self.base):
                raise SchemaError(f"invalid dunder method name {self.base!r}")
            if self.functional_overload:
                raise SchemaError("a dunder method cannot be a functional overload")
            if self.inplace and self.base not in AUGMENTED_ASSIGNMENT_NAMES:
                raise SchemaError(f"'__i{self.base}__' is not an augmented assignment operator")
            if not self.inplace and self.base[:1] == "i" and self.base[1:] in _AUGMENTED:
                raise SchemaError(
                    f"'__{self.base}__' reads as the in-place form of '__{self.base[1:]}__'"
                )
            return
        if self.base.startswith("__") and self.base.endswith("__"):
            raise SchemaError(f"{self.base!r} must be declared with dunder_method=True")
        if self.inplace and self.functional_overload:
            raise SchemaError("an in-place operator cannot be a functional overload")
        if self.base.endswith("_out"):
            raise SchemaError(
                f"operator name {str(self)!r}: the '_out' suffix is reserved; "
                "declare an 'out' overload instead"
            )
        if self.base.endswith(_FUNCTIONAL_SUFFIX):
            raise SchemaError(
                f"operator name {self.base!r}: spell the '_functional' suffix with "
                "functional_overload=True"
            )
        if not self.inplace and self.base.endswith("_"):
            raise SchemaError(f"operator name {self.base!r} ends with '_' and so must be in-place")

    @staticmethod
    def parse(text: str) -> BaseOperatorName:
        """Parse ``add``, ``add_``, ``__and__``, ``__iand__``, ``batch_norm_functional``."""
        dunder = re.fullmatch(r"__([A-Za-z0-9]+)__", text)
        if dunder is not None:
            inner = dunder.group(1)
            inplace = inner.startswith("i") and inner[1:] in AUGMENTED_ASSIGNMENT_NAMES
            result = BaseOperatorName(inner[1:] if inplace else inner, inplace, True)
        else:
            if not _is_ident(text):
                raise SchemaError(f"invalid operator name {text!r}")
            inplace = text.endswith("_")
            base = text[:-1] if inplace else text
            functional = not inplace and base.endswith(_FUNCTIONAL_SUFFIX)
            if functional:
                base = base[: -len(_FUNCTIONAL_SUFFIX)]
            result = BaseOperatorName(base, inplace, False, functional)
        _check_canonical("operator name", text, result)
        return result

    def __str__(self) -> str:
        if self.dunder_method:
            return f"__{'i' if self.inplace else ''}{self.base}__"
        if self.inplace:
            return f"{self.base}_"
        if self.functional_overload:
            return f"{self.base}{_FUNCTIONAL_SUFFIX}"
        return self.base


@dataclass(frozen=True)
class OperatorName:
    """A full operator name: base name plus (possibly empty) overload name."""

    name: BaseOperatorName
    overload_name: str

    def __post_init__(self) -> None:
        if self.overload_name and re.fullmatch(r"\w+", self.overload_name) is None:
            raise SchemaError(f"invalid overload name {self.overload_name!r}")

    @staticmethod
    def parse(text: str) -> OperatorName:
        """Parse ``add.Tensor`` or ``relu``."""
        base, dot, overload = text.partition(".")
        if dot and not overload:
            raise SchemaError(f"empty overload name in {text!r}")
        result = OperatorName(BaseOperatorName.parse(base), overload)
        _check_canonical("operator name", text, result)
        return result

    def __str__(self) -> str:
        if self.overload_name:
            return f"{self.name}.{self.overload_name}"
        return str(self.name)


# --------------------------------------------------------------------------------------
# Types
# --------------------------------------------------------------------------------------

#: Names accepted by :class:`BaseType`.
BASE_TYPE_NAMES: frozenset[str] = frozenset(
    {
        "Tensor",
        "int",
        "SymInt",
        "float",
        "bool",
        "SymBool",
        "str",
        "Scalar",
        "ScalarType",
        "Layout",
        "Device",
        "DeviceIndex",
        "MemoryFormat",
        "Generator",
        "Dimname",
        "Storage",
        "Stream",
        "QScheme",
        "DimVector",
        "GraphModule",
    }
)


@dataclass(frozen=True)
class Type:
    """Base class of schema types; use :func:`parse_type` to build one from text."""

    @staticmethod
    def parse(text: str) -> Type:
        """Same as :func:`parse_type`."""
        return parse_type(text)

    @property
    def root(self) -> BaseType:
        """The base type at the core, e.g. ``Tensor`` for ``Tensor?[]``."""
        raise NotImplementedError

    def is_tensor_like(self) -> bool:
        """True for ``Tensor``, ``Tensor?``, ``Tensor[]``, ``Tensor?[]`` and the like."""
        return self.root.name == "Tensor"

    def is_optional(self) -> bool:
        """True if the outermost constructor is ``?``."""
        return False

    def is_list(self) -> bool:
        """True if the outermost constructor is ``[]`` / ``[N]``."""
        return False


@dataclass(frozen=True)
class BaseType(Type):
    """An atomic type such as ``Tensor``, ``int`` or ``ScalarType``."""

    name: str

    def __post_init__(self) -> None:
        if self.name not in BASE_TYPE_NAMES:
            raise SchemaError(f"unknown type {self.name!r}")

    @property
    def root(self) -> BaseType:
        return self

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class OptionalType(Type):
    """``T?``: a value of type ``T`` or ``None``."""

    elem: Type

    def __post_init__(self) -> None:
        if isinstance(self.elem, OptionalType):
            raise SchemaError(f"doubly optional type '{self.elem}?'")

    @property
    def root(self) -> BaseType:
        return self.elem.root

    def is_optional(self) -> bool:
        return True

    def __str__(self) -> str:
        return f"{self.elem}?"


@dataclass(frozen=True)
class ListType(Type):
    """``T[]`` (any length) or ``T[N]`` (a fixed length ``N``)."""

    elem: Type
    size: int | None = None

    def __post_init__(self) -> None:
        if self.size is not None and self.size < 1:
            raise SchemaError(f"list size must be positive, got {self.size}")

    @property
    def root(self) -> BaseType:
        return self.elem.root

    def is_list(self) -> bool:
        return True

    def __str__(self) -> str:
        return f"{self.elem}[{'' if self.size is None else self.size}]"


def _parse_type(text: str) -> Type:
    if text.endswith("?"):
        return OptionalType(_parse_type(text[:-1]))
    if text.endswith("]"):
        open_at = text.rfind("[")
        size_text = text[open_at + 1 : -1]
        if open_at <= 0 or not (size_text == "" or size_text.isdigit()):
            raise SchemaError(f"malformed list type {text!r}")
        return ListType(_parse_type(text[:open_at]), int(size_text) if size_text else None)
    if not _is_ident(text):
        raise SchemaError(f"malformed type {text!r}")
    return BaseType(text)


def parse_type(text: str) -> Type:
    """Parse a type without alias annotation, e.g. ``int[2]`` or ``Tensor?[]``."""
    result = _parse_type(text)
    _check_canonical("type", text, result)
    return result


# --------------------------------------------------------------------------------------
# Alias annotations, arguments and returns
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Annotation:
    """An alias annotation, the part in parentheses in ``Tensor(a!)``.

    ``alias_set`` names the alias sets the value belongs to (``a|b`` means
    either), ``is_write`` records a ``!`` (the operator writes to it) and
    ``alias_set_after`` the sets it belongs to after the call (``a -> *``).
    """

    alias_set: tuple[str, ...]
    is_write: bool = False
    alias_set_after: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.alias_set:
            raise SchemaError("empty alias set")
        for alias in self.alias_set:
            if _ALIAS_RE.fullmatch(alias) is None:
                raise SchemaError(f"invalid alias set name {alias!r}")
        for alias in self.alias_set_after:
            if alias != "*" and _ALIAS_RE.fullmatch(alias) is None:
                raise SchemaError(f"invalid alias set name {alias!r}")
        if "*" in self.alias_set_after and len(self.alias_set_after) > 1:
            raise SchemaError("the wildcard alias set '*' must stand alone")
        if self.is_write and len(self.alias_set) > 1:
            raise SchemaError(f"a written value must belong to one alias set, got {self}")
        if len(self.alias_set) > 1 and len(self.alias_set_after) > 1:
            raise SchemaError(f"alias sets before and after cannot both be unions: {self}")

    @staticmethod
    def parse(text: str) -> Annotation:
        """Parse the inside of the parentheses: ``a``, ``a!``, ``a -> *``, ``a|b``."""
        m = _ANNOTATION_RE.fullmatch(text)
        if m is None:
            raise SchemaError(f"malformed alias annotation {text!r}")
        after = m.group("after")
        result = Annotation(
            alias_set=tuple(m.group("before").split("|")),
            is_write=m.group("write") == "!",
            alias_set_after=tuple(after.split("|")) if after else (),
        )
        _check_canonical("alias annotation", text, result)
        return result

    def __str__(self) -> str:
        text = "|".join(self.alias_set) + ("!" if self.is_write else "")
        if self.alias_set_after:
            text += " -> " + "|".join(self.alias_set_after)
        return text


def _parse_annotated_type(text: str) -> tuple[Type, Annotation | None]:
    m = _ANNOTATED_TYPE_RE.fullmatch(text)
    if m is None:
        return _parse_type(text), None
    if m.group("base") != "Tensor":
        raise SchemaError(f"alias annotations are only allowed on Tensor types: {text!r}")
    return _parse_type("Tensor" + m.group("suffix")), Annotation.parse(m.group("ann"))


def _format_annotated_type(type_: Type, annotation: Annotation | None) -> str:
    text = str(type_)
    if annotation is None:
        return text
    # The annotation binds to the word Tensor, before any ?/[] suffix.
    return f"Tensor({annotation}){text[len('Tensor') :]}"


def _check_annotation_target(type_: Type, annotation: Annotation | None) -> None:
    if annotation is not None and not type_.is_tensor_like():
        raise SchemaError(f"alias annotation ({annotation}) on non-Tensor type {type_}")


@dataclass(frozen=True)
class Argument:
    """One formal argument, e.g. ``Tensor(a!) self`` or ``Scalar alpha=1``.

    ``default`` is kept verbatim as written in the schema (``None``, ``[]``,
    ``"valid"``, ``contiguous_format``, ...).
    """

    name: str
    type: Type
    default: str | None = None
    annotation: Annotation | None = None

    def __post_init__(self) -> None:
        if not _is_ident(self.name):
            raise SchemaError(f"invalid argument name {self.name!r}")
        if self.default is not None and (not self.default or self.default != self.default.strip()):
            raise SchemaError(f"argument {self.name!r} has an empty or padded default")
        _check_annotation_target(self.type, self.annotation)

    @property
    def is_write(self) -> bool:
        """True if the annotation carries ``!``."""
        return self.annotation is not None and self.annotation.is_write

    @staticmethod
    def parse(text: str) -> Argument:
        """Parse ``Tensor(a!) self``, ``int[1] dim=[]``, ``ScalarType? dtype=None``..."""
        head, eq, default = text.partition("=")
        split_at = _last_top_level_space(head)
        if split_at < 0:
            raise SchemaError(f"expected '<type> <name>' in argument {text!r}")
        type_, annotation = _parse_annotated_type(head[:split_at])
        result = Argument(
            name=head[split_at + 1 :],
            type=type_,
            default=default if eq else None,
            annotation=annotation,
        )
        _check_canonical("argument", text, result)
        return result

    def __str__(self) -> str:
        text = f"{_format_annotated_type(self.type, self.annotation)} {self.name}"
        if self.default is not None:
            text += f"={self.default}"
        return text


@dataclass(frozen=True)
class Return:
    """One returned value: ``Tensor``, ``Tensor(a)``, ``Tensor values``."""

    name: str | None
    type: Type
    annotation: Annotation | None = None

    def __post_init__(self) -> None:
        if self.name is not None and not _is_ident(self.name):
            raise SchemaError(f"invalid return name {self.name!r}")
        _check_annotation_target(self.type, self.annotation)

    @property
    def is_write(self) -> bool:
        """True if the annotation carries ``!``."""
        return self.annotation is not None and self.annotation.is_write

    @staticmethod
    def parse(text: str) -> Return:
        """Parse a single return (without surrounding parentheses)."""
        split_at = _last_top_level_space(text)
        if split_at >= 0 and not _is_ident(text[split_at + 1 :]):
            split_at = -1  # e.g. "Tensor(a -> *)": the space is inside the type
        type_text = text if split_at < 0 else text[:split_at]
        type_, annotation = _parse_annotated_type(type_text)
        result = Return(
            name=None if split_at < 0 else text[split_at + 1 :],
            type=type_,
            annotation=annotation,
        )
        _check_canonical("return", text, result)
        return result

    def __str__(self) -> str:
        text = _format_annotated_type(self.type, self.annotation)
        return text if self.name is None else f"{text} {self.name}"


def parse_returns(text: str) -> tuple[Return, ...]:
    """Parse the part after ``->``: ``()``, ``Tensor`` or ``(Tensor a, Tensor b)``."""
    if text == "()":
        return ()
    if not text:
        raise SchemaError("missing return type; write '()' for an operator returning nothing")
    inner = text
    if text.startswith("("):
        close = next((i for i, ch, d in _structure(text) if ch == ")" and d == 0), -1)
        if close == len(text) - 1:
            inner = text[1:-1]
    returns = tuple(Return.parse(piece) for piece in _split_top_level(inner))
    printed = _format_returns(returns)
    if printed != text:
        raise SchemaError(f"returns {text!r} are not in canonical form; write {printed!r}")
    return returns


def _format_returns(returns: tuple[Return, ...]) -> str:
    if len(returns) == 1:
        return str(returns[0])
    return "(" + ", ".join(map(str, returns)) + ")"


# --------------------------------------------------------------------------------------
# Argument lists
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TensorOptionsArguments:
    """The ``dtype, layout, device, pin_memory`` kwarg-only group of factory functions."""

    dtype: Argument
    layout: Argument
    device: Argument
    pin_memory: Argument

    #: expected (name, base type) of each member, in order
    MEMBERS: ClassVar[tuple[tuple[str, str], ...]] = (
        ("dtype", "ScalarType"),
        ("layout", "Layout"),
        ("device", "Device"),
        ("pin_memory", "bool"),
    )

    def __post_init__(self) -> None:
        for arg, (name, base) in zip(self.all(), self.MEMBERS):
            if not _is_tensor_options_member(arg, name, base):
                raise SchemaError(f"{arg} cannot be the '{name}' tensor option")

    def all(self) -> tuple[Argument, Argument, Argument, Argument]:
        """The four arguments in schema order."""
        return (self.dtype, self.layout, self.device, self.pin_memory)


def _is_tensor_options_member(arg: Argument, name: str, base: str) -> bool:
    plain = BaseType(base)
    return arg.name == name and arg.type in (plain, OptionalType(plain))


@dataclass(frozen=True)
class Arguments:
    """A schema's arguments, grouped the way the code generators need them.

    Positional arguments are split around the ``self`` argument (only
    ``where.self``-style schemas have anything before it); keyword-only
    arguments around the tensor-options group; and the written keyword-only
    arguments at the end form the ``out`` group.
    """

    pre_self_positional: tuple[Argument, ...] = ()
    self_arg: Argument | None = None
    post_self_positional: tuple[Argument, ...] = ()
    pre_tensor_options_kwarg_only: tuple[Argument, ...] = ()
    tensor_options: TensorOptionsArguments | None = None
    post_tensor_options_kwarg_only: tuple[Argument, ...] = ()
    out: tuple[Argument, ...] = ()

    def __post_init__(self) -> None:
        if self.self_arg is None:
            if self.pre_self_positional:
                raise SchemaError("pre_self_positional requires a self argument")
        elif self.self_arg.name != "self":
            raise SchemaError(f"the self argument must be named 'self', not {self.self_arg.name!r}")
        if any(a.name == "self" for a in self.pre_self_positional):
            raise SchemaError("the first positional argument named 'self' is the self argument")
        if self.tensor_options is None and self.post_tensor_options_kwarg_only:
            raise SchemaError("post_tensor_options_kwarg_only requires tensor_options")
        for a in self.pre_self_positional:
            if a.is_write:
                raise SchemaError(f"argument before self cannot be written: {a}")
        for a in self.flat_kwarg_only:
            if a.is_write:
                raise SchemaError(f"written keyword-only argument {a} must be in the out group")
        for a in self.out:
            if not a.is_write:
                raise SchemaError(f"out argument {a} must carry a write annotation like (a!)")

    @property
    def flat_positional(self) -> tuple[Argument, ...]:
        """Positional arguments in schema order (self included)."""
        self_part = () if self.self_arg is None else (self.self_arg,)
        return self.pre_self_positional + self_part + self.post_self_positional

    @property
    def flat_kwarg_only(self) -> tuple[Argument, ...]:
        """Keyword-only arguments in schema order, excluding the out group."""
        options = () if self.tensor_options is None else self.tensor_options.all()
        return self.pre_tensor_options_kwarg_only + options + self.post_tensor_options_kwarg_only

    @property
    def flat_non_out(self) -> tuple[Argument, ...]:
        """Positional then keyword-only arguments, excluding the out group."""
        return self.flat_positional + self.flat_kwarg_only

    @property
    def flat_all(self) -> tuple[Argument, ...]:
        """Every argument in schema order."""
        return self.flat_positional + self.flat_kwarg_only + self.out

    @staticmethod
    def parse(text: str) -> Arguments:
        """Parse the text between the parentheses of a schema."""
        positional: list[Argument] = []
        kwarg_only: list[Argument] = []
        out: list[Argument] = []
        seen_star = False
        pieces = _split_top_level(text) if text else []
        for piece in pieces:
            if piece == "*":
                if seen_star:
                    raise SchemaError("the keyword-only marker '*' may appear only once")
                seen_star = True
                continue
            if not piece:
                raise SchemaError(f"empty argument in {text!r}")
            arg = Argument.parse(piece)
            if not seen_star:
                positional.append(arg)
            elif arg.is_write:
                out.append(arg)
            elif out:
                raise SchemaError(f"argument {arg} cannot follow the out arguments")
            else:
                kwarg_only.append(arg)
        if seen_star and not (kwarg_only or out):
            raise SchemaError("'*' must be followed by at least one keyword-only argument")

        self_at = next((i for i, a in enumerate(positional) if a.name == "self"), None)
        if self_at is None:
            pre_self, self_arg, post_self = [], None, positional
        else:
            pre_self, self_arg = positional[:self_at], positional[self_at]
            post_self = positional[self_at + 1 :]

        pre_options, options, post_options = _group_tensor_options(kwarg_only)
        result = Arguments(
            pre_self_positional=tuple(pre_self),
            self_arg=self_arg,
            post_self_positional=tuple(post_self),
            pre_tensor_options_kwarg_only=pre_options,
            tensor_options=options,
            post_tensor_options_kwarg_only=post_options,
            out=tuple(out),
        )
        _check_canonical("argument list", text, result)
        return result

    def __str__(self) -> str:
        parts = [str(a) for a in self.flat_positional]
        keyword = self.flat_kwarg_only + self.out
        if keyword:
            parts.append("*")
            parts.extend(str(a) for a in keyword)
        return ", ".join(parts)


def _group_tensor_options(
    kwarg_only: list[Argument],
) -> tuple[tuple[Argument, ...], TensorOptionsArguments | None, tuple[Argument, ...]]:
    width = len(TensorOptionsArguments.MEMBERS)
    for start in range(len(kwarg_only) - width + 1):
        window = kwarg_only[start : start + width]
        if all(
            _is_tensor_options_member(arg, name, base)
            for arg, (name, base) in zip(window, TensorOptionsArguments.MEMBERS)
        ):
            return (
                tuple(kwarg_only[:start]),
                TensorOptionsArguments(*window),
                tuple(kwarg_only[start + width :]),
            )
    return tuple(kwarg_only), None, ()


# --------------------------------------------------------------------------------------
# Function schemas
# --------------------------------------------------------------------------------------

SchemaKind = Literal["functional", "inplace", "out", "mutable", "scratch"]

_SCRATCH_PREFIX = "_scratch_"


@dataclass(frozen=True)
class FunctionSchema:
    """A complete operator schema: name, arguments and returns.

    Construct one with :meth:`parse`; ``str()`` prints it back verbatim.
    """

    name: OperatorName
    arguments: Arguments
    returns: tuple[Return, ...]

    # ---- parsing and printing ----------------------------------------------------

    @staticmethod
    def parse(text: str) -> FunctionSchema:
        """Parse and validate a schema, e.g. ``relu(Tensor self) -> Tensor``."""
        try:
            return FunctionSchema._parse(text)
        except SchemaError as e:
            raise SchemaError(f"{e} (in schema {text!r})") from None

    @staticmethod
    def _parse(text: str) -> FunctionSchema:
        if not isinstance(text, str):
            raise SchemaError(f"a schema must be a string, got {type(text).__name__}")
        open_at = text.find("(")
        if open_at < 0:
            raise SchemaError("expected '(' after the operator name")
        close_at = -1
        for i, ch, depth in _structure(text[open_at:]):
            if ch == ")" and depth == 0:
                close_at = open_at + i
                break
        if close_at < 0:
            raise SchemaError("the argument list is not closed")
        arrow = " -> "
        if not text.startswith(arrow, close_at + 1):
            raise SchemaError("expected ' -> ' after the argument list")
        result = FunctionSchema(
            name=OperatorName.parse(text[:open_at]),
            arguments=Arguments.parse(text[open_at + 1 : close_at]),
            returns=parse_returns(text[close_at + 1 + len(arrow) :]),
        )
        _check_canonical("schema", text, result)
        return result

    def __str__(self) -> str:
        return f"{self.name}({self.arguments}) -> {_format_returns(self.returns)}"

    # ---- invariants ----------------------------------------------------------------

    def __post_init__(self) -> None:
        args = self.arguments
        flat = args.flat_all

        names = [a.name for a in flat]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise SchemaError(f"duplicate argument name(s): {', '.join(duplicates)}")
        return_names = [r.name for r in self.returns if r.name is not None]
        if len(set(return_names)) != len(return_names):
            raise SchemaError("duplicate return names")

        alias_owner: dict[str, str] = {}
        for a in flat:
            for alias in a.annotation.alias_set if a.annotation else ():
                if alias in alias_owner:
                    raise SchemaError(
                        f"alias set '{alias}' is used by both {alias_owner[alias]!r} and {a.name!r}"
                    )
                alias_owner[alias] = a.name

        seen_default = None
        for a in args.flat_positional:
            if a.default is not None:
                seen_default = a
            elif seen_default is not None:
                raise SchemaError(
                    f"positional argument {a.name!r} without a default follows "
                    f"{seen_default.name!r} which has one"
                )

        inplace = self.name.name.inplace
        if inplace and args.out:
            raise SchemaError("a schema cannot be both in-place and out=")

        written_returns = [r for r in self.returns if r.is_write]
        if written_returns and len(written_returns) != len(self.returns):
            raise SchemaError("returns must be either all written (a!) or all not written")
        aliasable = list(args.out) + ([args.self_arg] if args.self_arg is not None else [])
        for r in written_returns:
            if not any(a.annotation == r.annotation for a in aliasable):
                raise SchemaError(
                    f"written return {r} must alias an out argument or self; "
                    "did you forget to make the out argument keyword-only?"
                )
        for a in args.post_self_positional:
            if a.is_write and any(r.annotation == a.annotation for r in self.returns):
                raise SchemaError(f"written positional argument {a.name!r} must not be returned")

        if args.out:
            if all(a.type == BaseType("Tensor") for a in args.out):
                outs = [a for a in args.out if not a.name.startswith(_SCRATCH_PREFIX)]
                if len(outs) != len(self.returns):
                    raise SchemaError(
                        f"an out= schema must return its {len(outs)} out argument(s), "
                        f"found {len(self.returns)} return(s)"
                    )
                for a, r in zip(outs, self.returns):
                    if a.annotation != r.annotation:
                        raise SchemaError(
                            f"return {r} must carry the annotation of out argument {a}"
                        )
            elif self.returns:
                raise SchemaError("an out= schema with non-Tensor out arguments returns nothing")

        if inplace:
            self_arg = args.self_arg
            if self_arg is None or not self_arg.is_write:
                raise SchemaError(
                    f"in-place operator {self.name} needs a written self argument like "
                    "'Tensor(a!) self'"
                )
            if self_arg.type == BaseType("Tensor"):
                if len(self.returns) != 1 or self.returns[0].annotation != self_arg.annotation:
                    raise SchemaError(f"in-place operator {self.name} must return self")
            elif self.returns:
                raise SchemaError(
                    f"in-place operator {self.name} with a {self_arg.type} self returns nothing"
                )

        if args.tensor_options is not None and self.kind() != "functional":
            raise SchemaError("only functional schemas may take the tensor-options group")
        if "functional" in self.name.overload_name and self.kind() != "functional":
            raise SchemaError("overload names containing 'functional' are reserved")

    # ---- classification ------------------------------------------------------------

    def kind(self) -> SchemaKind:
        """Classify the schema as in torchgen's ``SchemaKind``.

        ``inplace`` (name ends in ``_``), ``scratch`` (out= with ``_scratch_``
        outputs), ``out`` (has written keyword-only arguments), ``mutable``
        (writes a positional argument after self) or ``functional``.  Note that
        a schema that writes ``self`` without an in-place name (``set_data``)
        counts as ``functional``, as in torchgen; see :meth:`mutated_arguments`.
        """
        args = self.arguments
        if self.name.name.inplace:
            return "inplace"
        if any(a.name.startswith(_SCRATCH_PREFIX) for a in args.out):
            return "scratch"
        if args.out:
            return "out"
        if any(a.is_write for a in args.post_self_positional):
            return "mutable"
        return "functional"

    def is_out_fn(self) -> bool:
        """True if the schema has out arguments (``out`` or ``scratch`` kind)."""
        return bool(self.arguments.out)

    def is_inplace(self) -> bool:
        """True for in-place operators (``add_``, ``__iand__``)."""
        return self.name.name.inplace

    def is_mutable(self) -> bool:
        """True if any argument is written."""
        return any(a.is_write for a in self.arguments.flat_all)

    def is_view_op(self) -> bool:
        """True if some return aliases an input without being written (``Tensor(a)``)."""
        return any(r.annotation is not None and not r.annotation.is_write for r in self.returns)

    def is_factory(self) -> bool:
        """True for tensor factories: tensor-options group and no Tensor positional input."""
        return self.arguments.tensor_options is not None and not any(
            a.type.is_tensor_like() for a in self.arguments.flat_positional
        )

    def mutated_arguments(self) -> tuple[str, ...]:
        """Names of the arguments annotated with ``!``, in schema order."""
        return tuple(a.name for a in self.arguments.flat_all if a.is_write)

    def tensor_argument_names(self) -> tuple[str, ...]:
        """Names of all arguments (out included) whose type is tensor-like."""
        return tuple(a.name for a in self.arguments.flat_all if a.type.is_tensor_like())

    def aliased_return_names(self) -> tuple[str | None, ...]:
        """For each return, the name of the argument it aliases, or ``None``."""
        result: list[str | None] = []
        for r in self.returns:
            match = None
            if r.annotation is not None:
                match = next(
                    (a.name for a in self.arguments.flat_all if a.annotation == r.annotation),
                    None,
                )
            result.append(match)
        return tuple(result)

    # ---- grouping ------------------------------------------------------------------

    def signature(self, *, strip_defaults: bool = False) -> FunctionSchema:
        """The functional core shared by the functional, in-place and out= variants.

        The overload name, in-place marker, ``_functional`` suffix, out arguments,
        tensor-options group, alias annotations and return names are dropped;
        written arguments that are not already returned become extra (unnamed)
        returns.  ``add.Tensor``, ``add_.Tensor`` and ``add.out`` all map to
        ``add(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor``.
        """

        def plain(a: Argument) -> Argument:
            return Argument(a.name, a.type, None if strip_defaults else a.default, None)

        args = self.arguments
        written_inputs = itertools.chain(
            [args.self_arg] if args.self_arg is not None else [],
            args.out,
            args.post_self_positional,
        )
        extra_returns = tuple(
            Return(None, a.type, None)
            for a in written_inputs
            if a.is_write and not any(r.annotation == a.annotation for r in self.returns)
        )
        returns = tuple(Return(None, r.type, None) for r in self.returns) + extra_returns
        arguments = Arguments(
            pre_self_positional=tuple(map(plain, args.pre_self_positional)),
            self_arg=None if args.self_arg is None else plain(args.self_arg),
            post_self_positional=tuple(map(plain, args.post_self_positional)),
            pre_tensor_options_kwarg_only=tuple(
                map(plain, args.pre_tensor_options_kwarg_only + args.post_tensor_options_kwarg_only)
            ),
        )
        base = self.name.name
        name = OperatorName(BaseOperatorName(base.base, False, base.dunder_method), "")
        return FunctionSchema(name, arguments, returns)


# --------------------------------------------------------------------------------------
# native_functions.yaml
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Location:
    """Where a YAML entry starts (1-based line)."""

    file: str
    line: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"


_VARIANTS = frozenset({"function", "method"})
_DISPATCH_KEY_RE = re.compile(r"[A-Za-z][A-Za-z0-9_]*")


@dataclass(frozen=True)
class NativeFunction:
    """One entry of an operator YAML file.

    ``dispatch`` maps each dispatch key to a kernel name (a YAML key such as
    ``CPU, Meta`` is expanded to one entry per key).  ``manual_binding`` is our
    own flag: the Python binding is hand-written rather than generated.  Keys
    that this class does not model (``structured``, ``device_check``, ...) are
    kept, unvalidated, in ``extra``.
    """

    func: FunctionSchema
    variants: frozenset[str] = frozenset({"function"})
    dispatch: dict[str, str] = field(default_factory=dict, hash=False)
    structured_delegate: str | None = None
    python_module: str | None = None
    manual_binding: bool = False
    autogen: str | None = None
    tags: tuple[str, ...] = ()
    loc: Location | None = None
    extra: dict[str, Any] = field(default_factory=dict, hash=False)

    def __post_init__(self) -> None:
        if not self.variants or not self.variants <= _VARIANTS:
            raise SchemaError(f"variants must be a non-empty subset of {sorted(_VARIANTS)}")
        if "method" in self.variants and self.func.arguments.self_arg is None:
            raise SchemaError("a method variant needs a 'self' argument")
        for key, kernel in self.dispatch.items():
            if not isinstance(key, str) or _DISPATCH_KEY_RE.fullmatch(key) is None:
                raise SchemaError(f"invalid dispatch key {key!r}")
            if not isinstance(kernel, str) or not kernel.strip():
                raise SchemaError(f"dispatch key {key!r} needs a kernel name, got {kernel!r}")
        if self.structured_delegate is not None:
            OperatorName.parse(self.structured_delegate)
        self.autogen_names()  # validates
        for tag in self.tags:
            if not isinstance(tag, str) or not _is_ident(tag):
                raise SchemaError(f"invalid tag {tag!r}")

    @property
    def name(self) -> OperatorName:
        """Shortcut for ``func.name``."""
        return self.func.name

    def autogen_names(self) -> tuple[OperatorName, ...]:
        """The operators listed under ``autogen:``, parsed."""
        if self.autogen is None:
            return ()
        return tuple(OperatorName.parse(n.strip()) for n in self.autogen.split(","))

    @staticmethod
    def from_yaml(entry: Mapping[str, Any], loc: Location) -> NativeFunction:
        """Build a record from one parsed YAML mapping; errors are prefixed with ``loc``."""
        try:
            return NativeFunction._from_yaml(dict(entry), loc)
        except SchemaError as e:
            raise SchemaError(f"{loc}: {e}") from None

    @staticmethod
    def _from_yaml(e: dict[str, Any], loc: Location) -> NativeFunction:
        if "func" not in e:
            raise SchemaError("entry has no 'func' key")
        func = FunctionSchema.parse(_expect(e.pop("func"), str, "func"))

        raw_variants = e.pop("variants", "function")
        if isinstance(raw_variants, str):
            raw_variants = raw_variants.split(",")
        variants = frozenset(_expect(v, str, "variants").strip() for v in raw_variants)

        dispatch: dict[str, str] = {}
        raw_dispatch = _expect_optional(e.pop("dispatch", None), dict, "dispatch") or {}
        for keys, kernel in raw_dispatch.items():
            kernel = _expect(kernel, str, f"dispatch[{keys!r}]")
            for key in _expect(keys, str, "dispatch key").split(","):
                key = key.strip()
                if key in dispatch:
                    raise SchemaError(f"dispatch key {key!r} is given twice")
                dispatch[key] = kernel

        raw_tags = e.pop("tags", None)
        if raw_tags is None:
            raw_tags = []
        elif isinstance(raw_tags, str):
            raw_tags = [raw_tags]
        tags = tuple(_expect(t, str, "tags") for t in _expect(raw_tags, list, "tags"))

        return NativeFunction(
            func=func,
            variants=variants,
            dispatch=dispatch,
            structured_delegate=_expect_optional(
                e.pop("structured_delegate", None), str, "structured_delegate"
            ),
            python_module=_expect_optional(e.pop("python_module", None), str, "python_module"),
            manual_binding=_expect(e.pop("manual_binding", False), bool, "manual_binding"),
            autogen=_expect_optional(e.pop("autogen", None), str, "autogen"),
            tags=tags,
            loc=loc,
            extra=e,
        )


def _expect(value: Any, kind: type, what: str) -> Any:
    if not isinstance(value, kind):
        raise SchemaError(f"{what} must be a {kind.__name__}, got {value!r}")
    return value


def _expect_optional(value: Any, kind: type, what: str) -> Any:
    return None if value is None else _expect(value, kind, what)


_YamlBase: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _StrictLoader(_YamlBase):  # type: ignore[misc, valid-type]
    """A safe YAML loader that refuses duplicate keys in a mapping."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue
            key = self.construct_object(key_node, deep=True)
            try:
                duplicate = key in seen
            except TypeError:  # unhashable; the base class reports it
                continue
            if duplicate:
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key {key!r}", key_node.start_mark
                )
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


def _yaml_error_line(error: yaml.YAMLError, fallback: int) -> int:
    mark = getattr(error, "problem_mark", None) or getattr(error, "context_mark", None)
    return fallback if mark is None else mark.line + 1


def native_function_files(ops_dir: str | os.PathLike[str]) -> list[str]:
    """The operator YAML files of one package, in load order: ``native_functions.yaml``
    (the tensor core) and then every ``native_functions/<area>.yaml`` beside it, sorted
    (one file per area of torch.nn and above, so that areas are edited independently)."""
    root = os.fspath(ops_dir)
    extra = os.path.join(root, "native_functions")
    files = [os.path.join(root, "native_functions.yaml")]
    if os.path.isdir(extra):
        files += sorted(os.path.join(extra, n) for n in os.listdir(extra) if n.endswith(".yaml"))
    return files


def load_native_function_files(paths) -> list[NativeFunction]:
    """Every entry of several operator YAML files, checked across all of them as one."""
    functions: list[NativeFunction] = []
    for path in paths:
        functions += _load_entries(path)
    _check_across_entries(functions)
    return functions


def load_native_functions(path: str | os.PathLike[str]) -> list[NativeFunction]:
    """Load every entry of one operator YAML file and check them across entries."""
    functions = _load_entries(path)
    _check_across_entries(functions)
    return functions


def _load_entries(path: str | os.PathLike[str]) -> list[NativeFunction]:
    """The entries of an operator YAML file (a list of mappings with ``func:``), each
    validated on its own.  The checks across entries (`_check_across_entries`: names
    unique, every ``structured_delegate`` declared, no ``autogen`` operator also declared
    by hand) run over everything loaded.  Every error is a :class:`SchemaError` whose
    message starts with ``"<file>:<line>: "``.
    """
    file = os.fspath(path)
    with open(file, encoding="utf-8") as stream:
        text = stream.read()

    loader = _StrictLoader(text)
    try:
        try:
            root = loader.get_single_node()
        except yaml.YAMLError as e:
            problem = getattr(e, "problem", None) or str(e)
            raise SchemaError(f"{file}:{_yaml_error_line(e, 1)}: invalid YAML: {problem}") from None
        if root is None:
            return []
        if not isinstance(root, yaml.SequenceNode):
            raise SchemaError(f"{file}:{root.start_mark.line + 1}: expected a list of entries")

        functions: list[NativeFunction] = []
        for item in root.value:
            loc = Location(file, item.start_mark.line + 1)
            try:
                entry = loader.construct_object(item, deep=True)
            except yaml.YAMLError as e:
                problem = getattr(e, "problem", None) or str(e)
                line = _yaml_error_line(e, loc.line)
                raise SchemaError(f"{file}:{line}: invalid YAML: {problem}") from None
            if not isinstance(entry, dict):
                raise SchemaError(f"{loc}: expected a mapping with a 'func' key, got {entry!r}")
            functions.append(NativeFunction.from_yaml(entry, loc))
    finally:
        loader.dispose()
    return functions


def _check_across_entries(functions: list[NativeFunction]) -> None:
    declared: dict[str, NativeFunction] = {}
    for f in functions:
        key = str(f.name)
        if key in declared:
            raise SchemaError(f"{f.loc}: operator {key} is already declared at {declared[key].loc}")
        declared[key] = f
    for f in functions:
        if f.structured_delegate is not None and f.structured_delegate not in declared:
            raise SchemaError(
                f"{f.loc}: structured_delegate {f.structured_delegate} is not declared"
            )
        for generated in f.autogen_names():
            if str(generated) in declared:
                raise SchemaError(
                    f"{f.loc}: autogen operator {generated} is also declared at "
                    f"{declared[str(generated)].loc}"
                )
