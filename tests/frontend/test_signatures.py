"""``inspect.signature`` of the generated bindings (issue 15, item 4; Note [Signatures of
the generated bindings] in frontend/arg_parser.py).

torch's own builtins have no signature (``inspect.signature(torch.add)`` raises ValueError),
so the reference is the signature text of torch's documentation (the lines of
``torch.add.__doc__`` that read ``add(input, other, *, alpha=1, out=None) -> Tensor``):
for a sample of functions and methods, the positional parameters must be those of one of
the documented lines, in order, and its keyword-only parameters must be among ours.
"""

from __future__ import annotations

import inspect
import re

import pytest
import torch
from conftest import check

import strided
from strided.ops._generated import (
    fft_functions,
    linalg_functions,
    nn_functions,
    special_functions,
    tensor_methods,
    torch_functions,
)

P = inspect.Parameter
GENERATED = [torch_functions, nn_functions, linalg_functions, fft_functions, special_functions]


def _generated_callables():
    for module in GENERATED:
        for name in module.__all__:
            yield f"{module.__name__.rsplit('.', 1)[1]}.{name}", getattr(module, name)
    for name, fn in vars(tensor_methods.TensorMethods).items():
        if inspect.isfunction(fn):
            yield f"Tensor.{name}", fn


def test_every_generated_binding_has_a_signature():
    count = 0
    for label, fn in _generated_callables():
        sig = inspect.signature(fn)
        params = list(sig.parameters.values())
        kinds = [p.kind for p in params]
        assert kinds == sorted(kinds), (label, sig)      # a valid Python signature
        assert str(sig).startswith("("), label
        if label.startswith("Tensor."):
            assert params[0].name == "self", (label, sig)
        names = [p.name for p in params]
        assert len(names) == len(set(names)), (label, sig)
        count += 1
    assert count > 1200


def test_public_names_carry_the_signature():
    assert str(inspect.signature(strided.add)) == "(input, other, *, alpha=1, out=None)"
    assert str(inspect.signature(strided.Tensor.add)) == "(self, other, *, alpha=1)"
    # a bound method drops self
    assert str(inspect.signature(strided.ones(2).add)) == "(other, *, alpha=1)"
    assert str(inspect.signature(strided.ones(2).t)) == "()"
    assert str(inspect.signature(strided.linalg.norm)) == (
        "(input, ord=None, dim=None, keepdim=False, *, dtype=None, out=None)")
    assert str(inspect.signature(strided.fft.fft)) == (
        "(input, n=None, dim=-1, norm=None, *, out=None)")
    assert str(inspect.signature(strided.special.erf)) == "(input, *, out=None)"
    # an int list that takes varargs ints is *size; a parameter another overload goes
    # without shows =None, so the calls that work bind
    sig = inspect.signature(strided.zeros)
    assert list(sig.parameters)[:2] == ["size", "out"]
    assert sig.parameters["size"].kind is P.VAR_POSITIONAL
    assert str(inspect.signature(strided.Tensor.view)) == "(self, *size)"
    sum_sig = inspect.signature(strided.sum)
    assert str(sum_sig) == "(input, dim=None, keepdim=False, *, dtype=None, out=None)"
    x = strided.ones(2, 3)
    assert sum_sig.bind(x).arguments == {"input": x}
    assert sum_sig.bind(x, 1, True).arguments["keepdim"] is True
    assert inspect.signature(strided.randperm).parameters["generator"].default is None


def test_hand_written_nonzero_has_its_signature():
    assert str(inspect.signature(strided.nonzero)) == "(input, *, as_tuple=False, out=None)"


def test_signatures_compare_and_hash_like_inspect_signatures():
    a, b = inspect.signature(strided.add), inspect.signature(strided.add)
    assert a == b and hash(a) == hash(b)
    plain = inspect.Signature(list(a.parameters.values()))
    assert a == plain and str(a) == str(plain)
    assert a != inspect.signature(strided.abs)
    assert a.replace(parameters=[]) == inspect.Signature()


def _documented(obj, name):
    """The parameter lists of the signature lines of ``obj``'s docstring:
    [(positional names, keyword-only names)]."""
    found = []
    for line in (obj.__doc__ or "").splitlines():
        line = line.strip().removeprefix(".. function:: ")
        if not line.startswith(name + "("):
            continue
        depth, end = 0, None
        for i, ch in enumerate(line[len(name):], len(name)):
            depth += ch in "([{"
            depth -= ch in ")]}"
            if depth == 0:
                end = i
                break
        inner = line[len(name) + 1:end]
        pieces, depth, cur = [], 0, ""
        for ch in inner:
            if ch == "," and depth == 0:
                pieces.append(cur)
                cur = ""
                continue
            depth += ch in "([{"
            depth -= ch in ")]}"
            cur += ch
        pieces.append(cur)
        pos, kw, star = [], [], False
        for piece in (p.strip().replace("\\*", "*") for p in pieces):
            if not piece:
                continue
            if piece == "*":
                star = True
                continue
            pname = re.split(r"[=:]", piece)[0].strip()
            if pname.startswith("*"):
                pos.append(pname)
                star = True
            else:
                (kw if star else pos).append(pname)
        found.append((pos, kw))
    return found


def _ours(fn, drop_self=False):
    pos, kw = [], []
    for p in inspect.signature(fn).parameters.values():
        if p.kind is P.VAR_POSITIONAL:
            pos.append("*" + p.name)
        elif p.kind is P.KEYWORD_ONLY:
            kw.append(p.name)
        else:
            pos.append(p.name)
    return (pos[1:] if drop_self else pos), kw


FUNCTIONS = [
    "abs", "add", "sub", "mul", "div", "pow", "exp", "log", "sqrt", "sin", "clamp", "where",
    "sum", "mean", "std", "var", "prod", "amax", "amin", "argmax", "argmin", "max", "min",
    "logsumexp", "all", "any", "cumsum", "cumprod", "cummax", "sort", "argsort", "topk",
    "kthvalue", "mode", "cat", "stack", "transpose", "permute", "reshape", "select",
    "narrow", "squeeze", "unsqueeze", "flatten", "roll", "flip", "gather", "index_select",
    "matmul", "mm", "bmm", "dot", "outer", "tril", "triu", "diagonal",
    "zeros", "ones", "full", "empty", "rand", "randn", "randint", "eye", "linspace",
    "zeros_like", "ones_like", "full_like", "rand_like", "isclose", "allclose", "equal",
    "maximum", "minimum", "lerp", "addmm", "bernoulli", "multinomial", "chunk",
    "tensor_split", "bucketize",
]
NAMESPACES = [
    ("linalg", ["norm", "solve", "inv", "det", "svd", "cross", "vecdot", "qr", "lu"]),
    ("fft", ["fft", "ifft", "rfft", "irfft", "fftn", "fft2", "rfft2", "hfft", "fftfreq"]),
    ("special", ["erf", "erfc", "expit", "logit", "xlogy", "gammaln", "logsumexp",
                 "log_softmax", "i0", "ndtr", "entr", "zeta"]),
]
METHODS = [
    "add", "add_", "sub", "mean", "std", "amax", "max", "argmax", "transpose", "permute",
    "reshape", "expand", "repeat", "select", "squeeze", "unsqueeze", "flatten",
    "masked_fill_", "index_add_", "scatter_", "clamp", "clamp_", "fill_", "zero_", "sort",
    "topk", "roll", "lerp", "pow", "exp", "abs", "neg", "t",
]

# Where torch's documentation names a parameter otherwise than its parser does, the
# signature follows the parser: torch itself must take our names as keywords.
# (name, positional arguments as a recipe of m)
DOCS_DIFFER = [
    ("linalg.vector_norm", lambda m: (m.eye(3),)),          # docs: x
    ("linalg.matrix_norm", lambda m: (m.eye(3),)),          # docs: A
    ("linalg.cholesky", lambda m: (m.eye(3),)),
    ("linalg.eigh", lambda m: (m.eye(3),)),
    ("linalg.pinv", lambda m: (m.eye(3),)),
    ("linalg.matrix_rank", lambda m: (m.eye(3),)),
    ("Tensor.mul", lambda m: (m.eye(3), 2)),                 # docs: value
    ("Tensor.div", lambda m: (m.eye(3), 2)),
    ("Tensor.matmul", lambda m: (m.eye(3), m.eye(3))),       # docs: tensor2
    ("Tensor.narrow", lambda m: (m.eye(3), 0, 1, 2)),        # docs: dimension
    ("Tensor.where", lambda m: (m.eye(3), m.eye(3) > 0, m.ones(3, 3))),   # docs: y
    ("Tensor.cumsum", lambda m: (m.eye(3), 1)),
    ("Tensor.sum", lambda m: (m.eye(3), 1)),
    ("searchsorted", lambda m: (m.arange(4.0), m.tensor([1.5]))),         # docs: values
    ("true_divide", lambda m: (m.eye(3), 2)),               # docs: dividend, divisor
    ("matrix_exp", lambda m: (m.eye(3),)),                  # docs: A
    ("special.airy_ai", lambda m: (m.ones(2),)),             # docs: input
]


def _resolve(m, dotted):
    obj = m
    for part in dotted.split("."):
        obj = getattr(obj, part)
    return obj


@pytest.mark.parametrize("name,make_args", DOCS_DIFFER, ids=[n for n, _ in DOCS_DIFFER])
def test_names_are_the_ones_torchs_parser_takes(name, make_args):
    fn = _resolve(strided, name)
    assert fn.__module__.startswith("strided.ops._generated"), name
    names = [p.name for p in inspect.signature(fn).parameters.values()]
    def recipe(m):
        args = make_args(m)
        if name.startswith("Tensor."):
            result = getattr(args[0], name.split(".")[1])(**dict(zip(names[1:], args[1:])))
        else:
            result = _resolve(m, name)(**dict(zip(names, args)))
        # a named tuple of torch.return_types compares as its fields
        return tuple(result) if type(result).__module__.endswith("return_types") else result
    rs, rt = check(recipe, exact=False)
    assert rt is not None


def _check_documented(fn, tfn, name, drop_self=False):
    docs = _documented(tfn, name)
    assert docs, f"torch documents no signature for {name}: fix the sample"
    pos, kw = _ours(fn, drop_self)
    assert any(dpos == pos and set(dkw) <= set(kw) | set(pos) for dpos, dkw in docs), (
        name, inspect.signature(fn), docs)


@pytest.mark.parametrize("name", FUNCTIONS)
def test_functions_match_torch_docs(name):
    fn = getattr(strided, name)
    if not fn.__module__.startswith("strided.ops._generated"):
        pytest.fail(f"strided.{name} is not a generated binding: fix the sample")
    _check_documented(fn, getattr(torch, name), name)


@pytest.mark.parametrize("namespace,name",
                         [(ns, n) for ns, names in NAMESPACES for n in names])
def test_namespace_functions_match_torch_docs(namespace, name):
    fn = getattr(getattr(strided, namespace), name)
    tfn = getattr(getattr(torch, namespace), name)
    assert fn.__module__.startswith("strided.ops._generated"), name
    docs = _documented(tfn, f"{namespace}.{name}") or _documented(tfn, name)
    assert docs, name
    pos, kw = _ours(fn)
    assert any(dpos == pos and set(dkw) <= set(kw) | set(pos) for dpos, dkw in docs), (
        name, inspect.signature(fn), docs)


@pytest.mark.parametrize("name", METHODS)
def test_methods_match_torch_docs(name):
    fn = getattr(strided.Tensor, name)
    assert fn.__module__.startswith("strided.ops._generated"), name
    _check_documented(fn, getattr(torch.Tensor, name), name, drop_self=True)


def test_torch_builtins_have_no_signature():
    # why the docs are the reference: torch's builtins refuse inspect.signature
    with pytest.raises(ValueError):
        inspect.signature(torch.add)


def test_nn_functional_bindings_match_torchs_python_signatures():
    # where torch.nn.functional.<name> is a Python function, inspect gives its signature:
    # the generated binding strided exposes under that name has the same parameters
    import torch.nn.functional as tF

    import strided.nn.functional as sF
    compared = 0
    for name in dir(sF):
        fn = getattr(sF, name)
        if not callable(fn) or not getattr(fn, "__module__", "").startswith(
                "strided.ops._generated"):
            continue
        try:
            expected = inspect.signature(getattr(tF, name))
        except (AttributeError, TypeError, ValueError):
            continue                  # a builtin in torch: no signature to compare
        ours = inspect.signature(fn)
        assert list(ours.parameters) == list(expected.parameters), (name, ours, expected)
        compared += 1
    assert compared > 0
