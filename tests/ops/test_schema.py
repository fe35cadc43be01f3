"""Tests for ``strided.ops.schema``: the operator schema parser and YAML loader.

torch's own ``native_functions.yaml`` (shipped inside ``torchgen``) is the
main corpus: every ``func:`` must round-trip, and classification and grouping
are cross-checked against torchgen's model, which serves as an oracle.
"""

from __future__ import annotations

import doctest
import os
import textwrap
from pathlib import Path

import pytest
import torchgen
import yaml
from torchgen.model import FunctionSchema as TgSchema

from strided.ops import schema as schema_module
from strided.ops.schema import (
    Annotation,
    Argument,
    Arguments,
    BaseOperatorName,
    BaseType,
    FunctionSchema,
    ListType,
    Location,
    NativeFunction,
    OperatorName,
    OptionalType,
    Return,
    SchemaError,
    load_native_functions,
    parse_returns,
    parse_type,
)

TORCH_YAML = os.path.join(
    os.path.dirname(torchgen.__file__), "packaged", "ATen", "native", "native_functions.yaml"
)


@pytest.fixture(scope="module")
def torch_funcs() -> list[str]:
    """Every ``func:`` string of torch's native_functions.yaml, in file order."""
    with open(TORCH_YAML, encoding="utf-8") as f:
        entries = yaml.load(f, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    return [e["func"] for e in entries]


@pytest.fixture(scope="module")
def torch_native_functions() -> list[NativeFunction]:
    return load_native_functions(TORCH_YAML)


def P(text: str) -> FunctionSchema:
    return FunctionSchema.parse(text)


ADD_TENSOR = "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"
ADD_INPLACE = "add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)"
ADD_OUT = "add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)"
ADD_SCALAR = "add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor"
EMPTY = (
    "empty.memory_format(SymInt[] size, *, Dimname[]? names=None, ScalarType? dtype=None, "
    "Layout? layout=None, Device? device=None, bool? pin_memory=None, "
    "MemoryFormat? memory_format=None) -> Tensor"
)
EMPTY_LIKE = (
    "empty_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, "
    "Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor"
)
WHERE = "where.self(Tensor condition, Tensor self, Tensor other) -> Tensor"
TRANSPOSE = "transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)"
SPLIT = "split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[]"
MAX_DIM = "max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)"
MAX_DIM_OUT = (
    "max.dim_max(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) max, "
    "Tensor(b!) max_values) -> (Tensor(a!) values, Tensor(b!) indices)"
)
FOREACH_ADD_ = "_foreach_add_.Scalar(Tensor(a!)[] self, Scalar scalar) -> ()"
FOREACH_ADD_OUT = "_foreach_add.Scalar_out(Tensor[] self, Scalar scalar, *, Tensor(a!)[] out) -> ()"
BN_MUTABLE = (
    "_native_batch_norm_legit(Tensor input, Tensor? weight, Tensor? bias, Tensor(a!) running_mean, "
    "Tensor(b!) running_var, bool training, float momentum, float eps) -> (Tensor, Tensor, Tensor)"
)
BN_FUNCTIONAL = (
    "_native_batch_norm_legit_functional(Tensor input, Tensor? weight, Tensor? bias, "
    "Tensor running_mean, Tensor running_var, bool training, float momentum, float eps) -> "
    "(Tensor, Tensor, Tensor, Tensor running_mean_out, Tensor running_var_out)"
)


# ---------------------------------------------------------------------------------------
# Round trip over torch's whole native_functions.yaml
# ---------------------------------------------------------------------------------------


def test_corpus_is_large(torch_funcs: list[str]) -> None:
    assert len(torch_funcs) > 2000


def test_round_trip_every_torch_schema(torch_funcs: list[str]) -> None:
    failures = []
    for text in torch_funcs:
        try:
            printed = str(FunctionSchema.parse(text))
        except SchemaError as e:
            failures.append(f"{text}: {e}")
            continue
        if printed != text:
            failures.append(f"{text} printed as {printed}")
    assert not failures, "\n".join(failures[:20])


def test_parsed_schemas_are_hashable_and_equal_by_value(torch_funcs: list[str]) -> None:
    first = [FunctionSchema.parse(t) for t in torch_funcs[:200]]
    again = [FunctionSchema.parse(t) for t in torch_funcs[:200]]
    assert first == again
    assert len({*first, *again}) == len(set(torch_funcs[:200]))


# ---------------------------------------------------------------------------------------
# Types
# ---------------------------------------------------------------------------------------

TENSOR = BaseType("Tensor")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Tensor", TENSOR),
        ("int", BaseType("int")),
        ("SymInt", BaseType("SymInt")),
        ("Dimname", BaseType("Dimname")),
        ("Tensor?", OptionalType(TENSOR)),
        ("Tensor[]", ListType(TENSOR, None)),
        ("Tensor?[]", ListType(OptionalType(TENSOR), None)),
        ("int[2]", ListType(BaseType("int"), 2)),
        ("SymInt[1]?", OptionalType(ListType(BaseType("SymInt"), 1))),
        ("float[]?", OptionalType(ListType(BaseType("float"), None))),
        ("ScalarType?", OptionalType(BaseType("ScalarType"))),
        ("bool[3]", ListType(BaseType("bool"), 3)),
    ],
)
def test_parse_type(text: str, expected: object) -> None:
    parsed = parse_type(text)
    assert parsed == expected
    assert str(parsed) == text


def test_type_predicates() -> None:
    for text in ["Tensor", "Tensor?", "Tensor[]", "Tensor?[]", "Tensor[]?"]:
        assert parse_type(text).is_tensor_like(), text
    for text in ["int", "Scalar", "SymInt[]", "ScalarType?", "Generator?"]:
        assert not parse_type(text).is_tensor_like(), text
    assert parse_type("int[2]?").is_optional()
    assert not parse_type("int[2]?").is_list()
    assert parse_type("int?[2]").is_list()
    assert parse_type("Tensor?[]").root == TENSOR


@pytest.mark.parametrize(
    "text", ["", "Foo", "Tensor ", "int[0]", "int[-1]", "int??", "int[2", "[]", "int[a]", "?"]
)
def test_parse_type_rejects(text: str) -> None:
    with pytest.raises(SchemaError):
        parse_type(text)


# ---------------------------------------------------------------------------------------
# Annotations, arguments, returns, names
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "alias_set", "is_write", "after"),
    [
        ("a", ("a",), False, ()),
        ("a!", ("a",), True, ()),
        ("b!", ("b",), True, ()),
        ("a -> *", ("a",), False, ("*",)),
        ("a|b", ("a", "b"), False, ()),
        ("a! -> b|c", ("a",), True, ("b", "c")),
    ],
)
def test_annotation(text: str, alias_set: tuple, is_write: bool, after: tuple) -> None:
    ann = Annotation.parse(text)
    assert (ann.alias_set, ann.is_write, ann.alias_set_after) == (alias_set, is_write, after)
    assert str(ann) == text


@pytest.mark.parametrize("text", ["", "!", "A", "a !", "a->*", "a|b!", "a -> ", "a -> *|b", "a||b"])
def test_annotation_rejects(text: str) -> None:
    with pytest.raises(SchemaError):
        Annotation.parse(text)


@pytest.mark.parametrize(
    ("text", "name", "type_", "default", "annotation"),
    [
        ("Tensor self", "self", "Tensor", None, None),
        ("Tensor(a!) self", "self", "Tensor", None, "a!"),
        ("Tensor(a!)? out", "out", "Tensor?", None, "a!"),
        ("Tensor(a!)[] self", "self", "Tensor[]", None, "a!"),
        ("Tensor(a -> *) self", "self", "Tensor", None, "a -> *"),
        ("int[1] dim=[]", "dim", "int[1]", "[]", None),
        ("int[1] dim=[-2,-1]", "dim", "int[1]", "[-2,-1]", None),
        ("Scalar alpha=1", "alpha", "Scalar", "1", None),
        ("ScalarType? dtype=None", "dtype", "ScalarType?", "None", None),
        ('str padding="valid"', "padding", "str", '"valid"', None),
        ("str b='\"\\'\\\\'", "b", "str", "'\"\\'\\\\'", None),
        (
            "MemoryFormat memory_format=contiguous_format",
            "memory_format",
            "MemoryFormat",
            "contiguous_format",
            None,
        ),
        ("float eps=1e-05", "eps", "float", "1e-05", None),
    ],
)
def test_argument(
    text: str, name: str, type_: str, default: str | None, annotation: str | None
) -> None:
    arg = Argument.parse(text)
    assert arg.name == name
    assert arg.type == parse_type(type_)
    assert arg.default == default
    assert arg.annotation == (None if annotation is None else Annotation.parse(annotation))
    assert arg.is_write == (annotation is not None and "!" in annotation)
    assert str(arg) == text


@pytest.mark.parametrize(
    "text",
    [
        "Tensor",
        "Tensor  self",
        "int(a) x",
        "Tensor(a) 1x",
        "int x=",
        "Tensor self =1",
        "Foo x",
        "Tensor(a!)?[] x y",
    ],
)
def test_argument_rejects(text: str) -> None:
    with pytest.raises(SchemaError):
        Argument.parse(text)


@pytest.mark.parametrize(
    ("text", "name", "type_", "annotation"),
    [
        ("Tensor", None, "Tensor", None),
        ("Tensor(a)", None, "Tensor", "a"),
        ("Tensor(a!)", None, "Tensor", "a!"),
        ("Tensor(a)[]", None, "Tensor[]", "a"),
        ("Tensor values", "values", "Tensor", None),
        ("Tensor(b!) indices", "indices", "Tensor", "b!"),
        ("bool", None, "bool", None),
        ("SymInt[]", None, "SymInt[]", None),
    ],
)
def test_return(text: str, name: str | None, type_: str, annotation: str | None) -> None:
    ret = Return.parse(text)
    assert (ret.name, ret.type) == (name, parse_type(type_))
    assert ret.annotation == (None if annotation is None else Annotation.parse(annotation))
    assert str(ret) == text


def test_parse_returns() -> None:
    assert parse_returns("()") == ()
    assert parse_returns("Tensor") == (Return(None, TENSOR),)
    both = parse_returns("(Tensor values, Tensor indices)")
    assert [r.name for r in both] == ["values", "indices"]
    for bad in ["", "(Tensor)", "(Tensor, )", "(Tensor a, Tensor b", "Tensor, Tensor"]:
        with pytest.raises(SchemaError):
            parse_returns(bad)


@pytest.mark.parametrize(
    ("text", "base", "inplace", "dunder", "functional"),
    [
        ("add", "add", False, False, False),
        ("add_", "add", True, False, False),
        ("_add_relu_", "_add_relu", True, False, False),
        ("__and__", "and", False, True, False),
        ("__iand__", "and", True, True, False),
        ("__lshift__", "lshift", False, True, False),
        ("__ilshift__", "lshift", True, True, False),
        ("__invert__", "invert", False, True, False),
        ("_native_batch_norm_legit_functional", "_native_batch_norm_legit", False, False, True),
    ],
)
def test_base_operator_name(
    text: str, base: str, inplace: bool, dunder: bool, functional: bool
) -> None:
    name = BaseOperatorName.parse(text)
    assert (name.base, name.inplace, name.dunder_method, name.functional_overload) == (
        base,
        inplace,
        dunder,
        functional,
    )
    assert str(name) == text


def test_operator_name() -> None:
    name = OperatorName.parse("add_.Tensor")
    assert name.name == BaseOperatorName("add", True, False)
    assert name.overload_name == "Tensor"
    assert str(name) == "add_.Tensor"
    assert str(OperatorName.parse("relu")) == "relu"
    for bad in ["", "add.", "add.a.b", "a-b", "foo_out", "foo_out.bar", "1add", "add x"]:
        with pytest.raises(SchemaError):
            OperatorName.parse(bad)


def test_operator_name_constructor_rejects_ambiguous_spellings() -> None:
    with pytest.raises(SchemaError):
        BaseOperatorName("add_", False, False)  # would print as the in-place "add"
    with pytest.raises(SchemaError):
        BaseOperatorName("foo_functional", False, False)  # use functional_overload
    with pytest.raises(SchemaError):
        BaseOperatorName("iand", False, True)  # "__iand__" is the in-place "and"
    with pytest.raises(SchemaError):
        BaseOperatorName("foo", True, False, True)


# ---------------------------------------------------------------------------------------
# Argument grouping
# ---------------------------------------------------------------------------------------


def names(args: tuple[Argument, ...]) -> list[str]:
    return [a.name for a in args]


def test_grouping_add_out() -> None:
    a = P(ADD_OUT).arguments
    assert a.pre_self_positional == ()
    assert a.self_arg is not None and a.self_arg.name == "self"
    assert names(a.post_self_positional) == ["other"]
    assert names(a.pre_tensor_options_kwarg_only) == ["alpha"]
    assert a.tensor_options is None
    assert names(a.out) == ["out"]
    assert names(a.flat_positional) == ["self", "other"]
    assert names(a.flat_kwarg_only) == ["alpha"]
    assert names(a.flat_all) == ["self", "other", "alpha", "out"]
    assert str(a) == "Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out"


def test_grouping_where_has_pre_self_positional() -> None:
    a = P(WHERE).arguments
    assert names(a.pre_self_positional) == ["condition"]
    assert a.self_arg is not None
    assert names(a.post_self_positional) == ["other"]


def test_grouping_tensor_options() -> None:
    a = P(EMPTY).arguments
    assert a.self_arg is None
    assert names(a.post_self_positional) == ["size"]
    assert names(a.pre_tensor_options_kwarg_only) == ["names"]
    assert a.tensor_options is not None
    assert names(a.tensor_options.all()) == ["dtype", "layout", "device", "pin_memory"]
    assert names(a.post_tensor_options_kwarg_only) == ["memory_format"]
    assert names(a.flat_kwarg_only) == [
        "names",
        "dtype",
        "layout",
        "device",
        "pin_memory",
        "memory_format",
    ]


def test_partial_tensor_options_are_not_grouped() -> None:
    s = P("f(Tensor self, *, ScalarType? dtype=None, Device? device=None) -> Tensor")
    assert s.arguments.tensor_options is None
    assert names(s.arguments.pre_tensor_options_kwarg_only) == ["dtype", "device"]


def test_arguments_parse_and_empty() -> None:
    assert Arguments.parse("") == Arguments()
    assert str(Arguments()) == ""
    args = Arguments.parse("Tensor self, *, int x=1")
    assert str(args) == "Tensor self, *, int x=1"
    assert names(args.pre_tensor_options_kwarg_only) == ["x"]


def test_arguments_constructor_invariants() -> None:
    out = Argument("out", TENSOR, None, Annotation(("a",), True))
    plain = Argument("x", TENSOR)
    with pytest.raises(SchemaError):
        Arguments(out=(plain,))  # out args must be written
    with pytest.raises(SchemaError):
        Arguments(pre_tensor_options_kwarg_only=(out,))  # written kwargs belong to out
    with pytest.raises(SchemaError):
        Arguments(pre_self_positional=(plain,))  # needs a self argument
    with pytest.raises(SchemaError):
        Arguments(self_arg=plain)  # self must be called self


# ---------------------------------------------------------------------------------------
# Classification and grouping of variants
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "kind", "view", "factory"),
    [
        (ADD_TENSOR, "functional", False, False),
        (ADD_INPLACE, "inplace", False, False),
        (ADD_OUT, "out", False, False),
        (EMPTY, "functional", False, True),
        (EMPTY_LIKE, "functional", False, False),
        (TRANSPOSE, "functional", True, False),
        (SPLIT, "functional", True, False),
        (MAX_DIM_OUT, "out", False, False),
        (FOREACH_ADD_, "inplace", False, False),
        (FOREACH_ADD_OUT, "out", False, False),
        (BN_MUTABLE, "mutable", False, False),
        (BN_FUNCTIONAL, "functional", False, False),
        ("__iand__.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)", "inplace", False, False),
        (
            "f.out(Tensor self, *, Tensor(a!) out, Tensor(b!) _scratch_x) -> Tensor(a!)",
            "scratch",
            False,
            False,
        ),
        ("set_data(Tensor(a!) self, Tensor new_data) -> ()", "functional", False, False),
    ],
)
def test_kind_view_factory(text: str, kind: str, view: bool, factory: bool) -> None:
    s = P(text)
    assert s.kind() == kind
    assert s.is_view_op() is view
    assert s.is_factory() is factory
    assert s.is_inplace() is (kind == "inplace")
    assert s.is_out_fn() is (kind in ("out", "scratch"))


def test_mutated_and_tensor_arguments() -> None:
    assert P(ADD_TENSOR).mutated_arguments() == ()
    assert P(ADD_INPLACE).mutated_arguments() == ("self",)
    assert P(MAX_DIM_OUT).mutated_arguments() == ("max", "max_values")
    assert P(BN_MUTABLE).mutated_arguments() == ("running_mean", "running_var")
    assert P(ADD_OUT).tensor_argument_names() == ("self", "other", "out")
    assert P(ADD_SCALAR).tensor_argument_names() == ("self",)
    assert P(EMPTY).tensor_argument_names() == ()
    index = P("index.Tensor(Tensor self, Tensor?[] indices) -> Tensor")
    assert index.tensor_argument_names() == ("self", "indices")
    assert P(FOREACH_ADD_).tensor_argument_names() == ("self",)
    assert P(ADD_OUT).is_mutable() and not P(ADD_TENSOR).is_mutable()


def test_aliased_return_names() -> None:
    assert P(ADD_TENSOR).aliased_return_names() == (None,)
    assert P(ADD_OUT).aliased_return_names() == ("out",)
    assert P(TRANSPOSE).aliased_return_names() == ("self",)
    assert P(MAX_DIM_OUT).aliased_return_names() == ("max", "max_values")


def test_signature_groups_functional_inplace_out() -> None:
    sigs = {P(t).signature() for t in (ADD_TENSOR, ADD_INPLACE, ADD_OUT)}
    assert len(sigs) == 1
    (sig,) = sigs
    assert str(sig) == "add(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"
    assert sig.kind() == "functional"
    assert P(ADD_SCALAR).signature() != sig
    assert P(MAX_DIM).signature() == P(MAX_DIM_OUT).signature()
    assert str(P(MAX_DIM).signature()) == (
        "max(Tensor self, int dim, bool keepdim=False) -> (Tensor, Tensor)"
    )


def test_signature_drops_tensor_options_and_converts_mutated_inputs() -> None:
    empty_out = P(
        "empty.out(SymInt[] size, *, Dimname[]? names=None, "
        "MemoryFormat? memory_format=None, Tensor(a!) out) -> Tensor(a!)"
    )
    assert P(EMPTY).signature() == empty_out.signature()
    assert P(BN_MUTABLE).signature() == P(BN_FUNCTIONAL).signature()
    assert P(FOREACH_ADD_).signature() == P(FOREACH_ADD_OUT).signature()
    assert (
        str(P(FOREACH_ADD_).signature()) == "_foreach_add(Tensor[] self, Scalar scalar) -> Tensor[]"
    )


def test_signature_strip_defaults() -> None:
    p = P("bernoulli.p(Tensor self, float p, *, Generator? generator=None) -> Tensor")
    p_ = P(
        "bernoulli_.float(Tensor(a!) self, float p=0.5, *, Generator? generator=None) -> Tensor(a!)"
    )
    assert p.signature() != p_.signature()
    assert p.signature(strip_defaults=True) == p_.signature(strip_defaults=True)


def test_cross_check_against_torchgen(torch_funcs: list[str]) -> None:
    """Every torch schema (a superset of the 300-sample asked for): kind, views, grouping."""
    mismatches = []
    for text in torch_funcs:
        ours, tg = FunctionSchema.parse(text), TgSchema.parse(text)
        checks = {
            "kind": (ours.kind(), tg.kind().name.lower()),
            "is_view_op": (
                ours.is_view_op(),
                any(r.annotation is not None and not r.annotation.is_write for r in tg.returns),
            ),
            "is_factory": (
                ours.is_factory(),
                tg.arguments.tensor_options is not None
                and not any(a.type.is_tensor_like() for a in tg.arguments.flat_positional),
            ),
            "is_out_fn": (ours.is_out_fn(), tg.is_out_fn()),
            "mutated": (list(ours.mutated_arguments()), tg.arguments.mutable_arg_names()),
            "aliased": (list(ours.aliased_return_names()), tg.aliased_return_names()),
            "groups": (
                [
                    names(ours.arguments.pre_self_positional),
                    names(ours.arguments.flat_positional),
                    names(ours.arguments.pre_tensor_options_kwarg_only),
                    ours.arguments.tensor_options is not None,
                    names(ours.arguments.post_tensor_options_kwarg_only),
                    names(ours.arguments.out),
                ],
                [
                    names(tg.arguments.pre_self_positional),
                    names(tg.arguments.flat_positional),
                    names(tg.arguments.pre_tensor_options_kwarg_only),
                    tg.arguments.tensor_options is not None,
                    names(tg.arguments.post_tensor_options_kwarg_only),
                    names(tg.arguments.out),
                ],
            ),
        }
        # torchgen special-cases bernoulli.p's missing default inside signature().
        if not text.startswith("bernoulli.p("):
            checks["signature"] = (str(ours.signature()), str(tg.signature()))
        for what, (mine, theirs) in checks.items():
            if mine != theirs:
                mismatches.append(f"{what}: {mine!r} != {theirs!r} for {text}")
    assert not mismatches, "\n".join(mismatches[:20])


# ---------------------------------------------------------------------------------------
# Malformed and inconsistent schemas
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "",
        "add",
        "add Tensor self -> Tensor",
        "add(Tensor self, Tensor other) ->Tensor",
        "add(Tensor self,Tensor other) -> Tensor",
        "add(Tensor self, Tensor other -> Tensor",
        "add(Tensor self]) -> Tensor",
        "add(Tensor self) -> ",
        "add(Tensor self) -> (Tensor)",
        "add(Tensor self, , Tensor other) -> Tensor",
        "add(Tensor self, Foo other) -> Tensor",
        "add(Tensor self, int(a) x) -> Tensor",
        'add(Tensor self, str x="abc) -> Tensor',
        "add(Tensor self, *) -> Tensor",
        "add(Tensor self, *, *, int x) -> Tensor",
        "aten::add(Tensor self) -> Tensor",
    ],
)
def test_malformed_schemas(text: str) -> None:
    with pytest.raises(SchemaError):
        FunctionSchema.parse(text)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("f(Tensor self, Tensor self) -> Tensor", "duplicate argument"),
        ("f(Tensor self, *) -> Tensor", "at least one keyword-only"),
        ("f(Tensor self, int x=1, int y) -> Tensor", "without a default"),
        ("f(Tensor self) -> (Tensor a, Tensor a)", "duplicate return"),
        ("f(Tensor(a) self, Tensor(a) other) -> Tensor(a)", "alias set 'a'"),
        ("add_(Tensor self) -> Tensor", "written self"),
        ("add_(Tensor(a!) self) -> Tensor", "must return self"),
        ("_foreach_add_(Tensor(a!)[] self) -> Tensor[]", "returns nothing"),
        ("add.out(Tensor self, Tensor(a!) out) -> Tensor(a!)", "keyword-only"),
        ("add.out(Tensor self, *, Tensor(a!) out) -> Tensor", "annotation of out argument"),
        ("add.out(Tensor self, *, Tensor(a!) out) -> ()", "must return"),
        ("add.out(Tensor self, *, Tensor(a!) out, int x) -> Tensor(a!)", "cannot follow"),
        ("add.out(Tensor self, *, Tensor(a!)[] out) -> Tensor[]", "returns nothing"),
        ("add_.out(Tensor(a!) self, *, Tensor(b!) out) -> Tensor(a!)", "both in-place and out"),
        ("f(Tensor self, Tensor(a!) x) -> Tensor(a!)", "must alias"),
        ("f(Tensor(a!) self, Tensor(b!) x) -> (Tensor(a!), Tensor x)", "either all"),
        ("f(Tensor(a!) x, Tensor self) -> ()", "before self"),
        ("f.functional(Tensor self, Tensor(a!) x) -> ()", "'functional'"),
        ("f_out(Tensor self) -> Tensor", "'_out' suffix"),
        (
            (
                "f.out(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? "
                "device=None, bool? pin_memory=None, Tensor(a!) out) -> Tensor(a!)"
            ),
            "tensor-options",
        ),
    ],
)
def test_invariant_violations(text: str, message: str) -> None:
    with pytest.raises(SchemaError, match=message) as info:
        FunctionSchema.parse(text)
    assert text in str(info.value)  # the offending schema is named


# ---------------------------------------------------------------------------------------
# YAML loading
# ---------------------------------------------------------------------------------------

GOOD_YAML = """\
# leading comment
- func: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
  variants: function, method
  structured_delegate: add.out
  tags: [core, pointwise]

- func: add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)
  dispatch:
    CPU, Meta: add_out_kernel
    CUDA: add_out_cuda
  autogen: add.frob_out
  structured: True

- func: linalg_norm(Tensor self, int? dim=None) -> Tensor
  python_module: linalg
  manual_binding: True
  tags: reduction
  some_future_key: {a: 1}
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "ops.yaml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def test_load_small_file(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD_YAML)
    add, add_out, norm = load_native_functions(path)

    assert str(add.func) == ADD_TENSOR
    assert add.name == OperatorName.parse("add.Tensor")
    assert add.variants == frozenset({"function", "method"})
    assert add.structured_delegate == "add.out"
    assert add.tags == ("core", "pointwise")
    assert add.dispatch == {}
    assert add.loc == Location(str(path), 2)
    assert add.python_module is None and add.manual_binding is False and add.autogen is None
    assert add.extra == {}

    assert add_out.variants == frozenset({"function"})
    assert add_out.dispatch == {
        "CPU": "add_out_kernel",
        "Meta": "add_out_kernel",
        "CUDA": "add_out_cuda",
    }
    assert add_out.autogen == "add.frob_out"
    assert add_out.autogen_names() == (OperatorName.parse("add.frob_out"),)
    assert add_out.extra == {"structured": True}
    assert add_out.loc is not None and add_out.loc.line == 7

    assert norm.python_module == "linalg"
    assert norm.manual_binding is True
    assert norm.tags == ("reduction",)
    assert norm.extra == {"some_future_key": {"a": 1}}
    assert str(norm.loc) == f"{path}:14"
    hash(norm)  # usable as a dict key despite the dict-valued fields


def test_native_function_defaults() -> None:
    nf = NativeFunction(func=P(ADD_TENSOR))
    assert nf.variants == frozenset({"function"})
    assert nf.dispatch == {} and nf.extra == {} and nf.tags == ()
    with pytest.raises(SchemaError, match="self"):
        NativeFunction(func=P(EMPTY), variants=frozenset({"method"}))
    with pytest.raises(SchemaError):
        NativeFunction(func=P(ADD_TENSOR), variants=frozenset({"module"}))


BROKEN_ENTRIES = {
    "bad schema": "- func: mul.Tensor(Tensor self, Tensor other) ->Tensor\n",
    "invariant": "- func: mul_(Tensor self, Tensor other) -> Tensor\n",
    "missing func": "- variants: function\n",
    "func not a string": "- func: [1, 2]\n",
    "bad variant": "- func: mul(Tensor self) -> Tensor\n  variants: function, module\n",
    "dispatch not a mapping": "- func: mul(Tensor self) -> Tensor\n  dispatch: CPU\n",
    "dispatch value": "- func: mul(Tensor self) -> Tensor\n  dispatch:\n    CPU: [a]\n",
    "dispatch key twice": "- func: mul(Tensor self) -> Tensor\n  dispatch:\n    CPU, CPU: k\n",
    "manual_binding type": "- func: mul(Tensor self) -> Tensor\n  manual_binding: yes please\n",
    "bad tag": "- func: mul(Tensor self) -> Tensor\n  tags: [not a tag]\n",
    "bad delegate": "- func: mul(Tensor self) -> Tensor\n  structured_delegate: mul.\n",
    "unknown delegate": "- func: mul(Tensor self) -> Tensor\n  structured_delegate: mul.out\n",
    "not a mapping": "- just a string\n",
    "duplicate op": "- func: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor\n",
    "autogen clash": "- func: mul(Tensor self) -> Tensor\n  autogen: add.Tensor\n",
    "duplicate key": "- func: mul(Tensor self) -> Tensor\n  tags: core\n  tags: core\n",
}


@pytest.mark.parametrize("case", sorted(BROKEN_ENTRIES))
def test_broken_entry_reports_file_and_line(tmp_path: Path, case: str) -> None:
    text = GOOD_YAML + "\n" + BROKEN_ENTRIES[case]
    line = GOOD_YAML.count("\n") + 2  # the broken entry starts here (1-based)
    if case == "duplicate key":
        line += 2  # reported at the repeated key itself
    path = write(tmp_path, text)
    with pytest.raises(SchemaError) as info:
        load_native_functions(path)
    assert str(info.value).startswith(f"{path}:{line}: "), str(info.value)


def test_yaml_syntax_error_reports_line(tmp_path: Path) -> None:
    path = write(tmp_path, "- func: relu(Tensor self) -> Tensor\n- func: [unclosed\n- x: y\n")
    with pytest.raises(SchemaError, match="invalid YAML") as info:
        load_native_functions(path)
    assert str(info.value).startswith(f"{path}:")
    line = int(str(info.value)[len(str(path)) + 1 :].split(":", 1)[0])
    assert line in (2, 3)


def test_non_list_and_empty_files(tmp_path: Path) -> None:
    path = write(tmp_path, "func: relu(Tensor self) -> Tensor\n")
    with pytest.raises(SchemaError, match=f"^{path}:1: "):
        load_native_functions(path)
    assert load_native_functions(write(tmp_path, "# nothing\n")) == []


def test_load_torch_native_functions(torch_native_functions: list[NativeFunction]) -> None:
    nfs = torch_native_functions
    assert len(nfs) > 2000
    by_name = {str(f.name): f for f in nfs}
    assert len(by_name) == len(nfs)

    add = by_name["add.Tensor"]
    assert add.variants == frozenset({"function", "method"})
    assert add.structured_delegate == "add.out"
    assert "pointwise" in add.tags and "core" in add.tags
    add_out = by_name["add.out"]
    assert add_out.dispatch["SparseCPU"] == add_out.dispatch["SparseMeta"]
    assert add_out.extra.get("structured") is True

    assert by_name["linalg_cholesky"].python_module == "linalg"
    assert by_name["fft_fft"].python_module == "fft"
    assert by_name["special_expit"].python_module == "special"
    assert all(not f.manual_binding for f in nfs)

    with open(TORCH_YAML, encoding="utf-8") as f:
        lines = f.read().splitlines()
    for nf in nfs[::97]:
        assert nf.loc is not None
        assert lines[nf.loc.line - 1] == f"- func: {nf.func}"


# ---------------------------------------------------------------------------------------
# Documentation
# ---------------------------------------------------------------------------------------


def test_module_docstring_example() -> None:
    result = doctest.testmod(schema_module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0
