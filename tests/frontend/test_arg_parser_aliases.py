"""What torch's Python argument parser accepts beyond the schema's own names and types
(issue 15, item 4), each case run against torch 2.13:

- the NumPy-style keyword aliases (``axis`` for ``dim``, ``keepdims`` for ``keepdim``,
  ``x``/``a``/``x1`` for ``input``, ``x2`` for ``other``), in functions, methods and the
  linalg/fft/special/nn namespaces, and torch's errors when a parameter is given both ways
  (Note [NumPy-style keyword aliases] in frontend/arg_parser.py);
- ``None`` for an optional int list, a single int for a sized int list;
- integer tensors where an int is expected (0-dim for ``int``, one element for ``SymInt``
  and sized int lists);
- Python numbers for the Tensor parameters of the few bindings torch allows them in;
- torch's deprecated signatures (``add(x, 2, y)``, ``addmm(beta, x, alpha, m1, m2)``).
"""

from __future__ import annotations

import pytest
import torch
from conftest import check

import strided


def _recipe(expr: str):
    def recipe(m):
        x = m.arange(12.0).reshape(3, 4)
        y = m.linspace(-1.0, 2.0, 12).reshape(3, 4)
        b = m.tensor([[True, False, True, True], [False] * 4, [True] * 4])
        result = eval(expr, {"m": m, "x": x, "y": y, "b": b, "t": m.tensor})   # noqa: S307
        # a named tuple of torch.return_types compares as its fields
        return tuple(result) if type(result).__module__.endswith("return_types") else result
    return recipe


ALIASES = [
    # dim <- axis, keepdim <- keepdims: reductions, scans, shape ops, functions and methods
    "m.sum(x, axis=0)",
    "m.sum(a=x, axis=1, keepdims=True)",
    "x.sum(axis=1)",
    "x.sum(axis=(0, 1), keepdims=True)",
    "m.mean(x, axis=0, keepdims=True)",
    "x.mean(axis=-1)",
    "m.nansum(x, axis=0)",
    "m.prod(x, axis=1)",
    "m.amax(x, axis=0)",
    "x.amin(axis=1, keepdims=True)",
    "m.max(x, axis=0)",
    "x.max(axis=1, keepdims=True)",
    "m.min(x, axis=1)",
    "m.argmax(x, axis=1, keepdims=True)",
    "x.argmin(axis=0)",
    "m.median(x, axis=0)",
    "m.var(x, axis=0, keepdims=True)",
    "m.std(x, axis=1, correction=0)",
    "m.var_mean(x, axis=0)",
    "m.logsumexp(x, axis=0)",
    "m.all(b, axis=0)",
    "b.any(axis=1)",
    "m.any(b, axis=(0, 1))",
    "m.count_nonzero(x, axis=0)",
    "m.cumsum(x, axis=0)",
    "x.cumprod(axis=1)",
    "m.cummax(x, axis=0)",
    "m.softmax(x, axis=0)",
    "x.log_softmax(axis=1)",
    "m.sort(x, axis=0)",
    "m.argsort(x, axis=0, descending=True)",
    "m.topk(x, 2, axis=0)",
    "m.kthvalue(x, 2, axis=0)",
    "m.cat([x, y], axis=0)",
    "m.cat(tensors=[x, y], axis=1)",
    "m.stack([x, y], axis=0)",
    "m.squeeze(x[None], axis=0)",
    "x[None].squeeze(axis=0)",
    "m.unsqueeze(x, axis=0)",
    "x.unsqueeze(axis=-1)",
    "m.select(x, axis=0, index=1)",
    "m.narrow(x, axis=0, start=0, length=1)",
    "m.index_select(x, axis=1, index=t([0, 2]))",
    "m.gather(x, axis=0, index=t([[0, 1]]))",
    "m.unbind(x, axis=1)",
    "x.unbind(axis=0)",
    "m.tensor_split(x, 2, axis=1)",
    "m.flatten(x, start_dim=0)",
    "m.chunk(x, 2, axis=1)",
    # input <- x / a / x1, other <- x2
    "m.abs(x=x)",
    "m.abs(a=-x)",
    "m.neg(x1=x)",
    "m.add(x1=x, x2=y)",
    "m.add(x, x2=y, alpha=2)",
    "x.add(x2=y)",
    "m.sub(x, x2=2)",
    "m.mul(x1=x, x2=3)",
    "m.maximum(x1=x, x2=y)",
    "m.eq(x, x2=y)",
    "x.eq(x2=y)",
    "x.lt(x2=1)",
    "m.matmul(x1=x, x2=y.T)",
    "m.equal(x1=x, x2=y)",
    "m.allclose(x1=x, x2=x)",
    "m.dist(x, x2=y)",
    "m.atan2(x1=x, x2=y)",
    # the linalg, fft, special and nn namespaces go through the same parser
    "m.linalg.norm(x, axis=0)",
    "m.linalg.vector_norm(x, axis=0, keepdims=True)",
    "m.linalg.cross(x[:, :3], y[:, :3], axis=1)",
    "m.linalg.vecdot(x, y, axis=0)",
    "m.fft.fft(x, axis=0)",
    "m.fft.fft(a=x)",
    "m.special.logsumexp(x, axis=1)",
    "m.special.softmax(x, axis=0)",
    "m.nn.functional.logsigmoid(x=x)",
    # torch's hand-written bindings parse the same way
    "x.size(axis=1)",
    "x.stride(axis=-1)",
    "x.size(axis=None)",
    "m.nonzero(x=x)",
    "m.nonzero(a=x, as_tuple=True)",
]

ALIAS_ERRORS = [
    # the own name wins; the alias is left over and reported (the first leftover keyword)
    "m.sum(x, dim=1, axis=0)",
    "x.sum(dim=1, axis=0)",
    "m.sum(x, axis=0, keepdims=True, keepdim=False)",
    "m.cat([x], axis=0, dim=0)",
    "m.abs(x=x, a=x)",
    "m.abs(input=x, a=x)",
    "m.abs(input=x, x=y)",
    "m.add(x, y, x2=y)",
    "m.add(input=x, x1=x, other=y)",
    # the alias binds, then the value is checked under the parameter's name
    "m.abs(x=1)",
    "m.sum(x, axis='a')",
    "x.sum(axis='a')",
    "m.argmax(x, axis='a')",
    "m.sum(input=x, x=x)",
    "m.cumsum(x, axis=0.5)",
    # names torch has no alias for
    "m.roll(x, 1, axis=0)",
    "m.flip(x, axis=0)",
    "m.abs(y=x)",
    "m.nn.functional.relu(x=x)",
    "m.sum(x, axes=0)",
    "x.size(dim=1, axis=0)",
    "x.size(1, axis=0)",
    "x.size(axis='a')",
    "x.stride(axis=1.0)",
    "m.nonzero(x=1)",
    "m.nonzero(x=x, input=x)",
    "m.nonzero(x, y=1)",
]

NONE_INT_LISTS = [
    "m.amax(x, None)",
    "m.amin(x, None, True)",
    "m.roll(x, 1, None)",
    "m.sum(x, None)",
    "x.sum(None, keepdim=True)",
    "m.mean(x, None)",
    "m.std(x, None)",
    "m.var(x, None, keepdim=True)",
    "m.nansum(x, None)",
    "m.logsumexp(x, None)",
    "m.aminmax(x, dim=None)",
    "m.count_nonzero(x, None)",
    "m.norm(x, dim=None)",
    "m.squeeze(x, None)",
    "m.flip(x, None)",
    "m.permute(x, None)",
    "x.view(None)",
    "m.zeros(None)",
    # a single int (or index) for a sized int list
    "m.sum(x, 1)",
    "x.amax(-1)",
    "m.mean(x, 0, keepdim=True)",
    "m.roll(x, 1, 0)",
    "x.sum(True)",
    "x.roll(1, True)",
    "m.nn.functional.max_pool2d(x[None], True)",
    "x.sum(2 ** 70)",
]

TENSOR_INTS = [
    # SymInt and int-list elements: one-element integer tensors (torch's __index__)
    "m.zeros(t([2]), 3)",
    "m.zeros(t(2), 3)",
    "m.zeros((t(2), t([3])))",
    "m.ones(t([2, 3]))",
    "m.zeros(t([[2]]))",
    "x.select(0, t([2]))",
    "x.select(0, t(2))",
    "m.eye(t(2))",
    "m.eye(t([2]))",
    "m.eye(3, t([2]))",
    "x.view(t(12))",
    "x.view(t([12]))",
    "x.reshape(t([12]))",
    "m.full((t(2),), 1.0)",
    "x.expand(t(3), 4)",
    "x.new_zeros(t([2]))",
    "x.narrow(0, t(1), 1)",
    "m.narrow_copy(x, 0, t([0]), t([1]))",
    "m.topk(x, t([2]))",
    "m.repeat_interleave(x, t(2))",
    # an int takes a 0-dim integer tensor only
    "x.select(t(0), 1)",
    "x.select(t([0]), 1)",
    "x.transpose(t(0), t(1))",
    "x.unsqueeze(t(0))",
    "m.diagonal(x, t(0))",
    "m.tril(x, t(1))",
    "m.tril(x, t([1]))",
    "m.zeros(t(2.0))",
    # a sized int list takes one index
    "x.roll(1, t([0]))",
    "x.roll(t([1]), 0)",
    "x.roll(t([[1]]), 0)",
    "x.roll(1, t(0))",
    "x.sum(t([0]))",
    "x.sum(t([[1]]))",
    "x.sum(t([True]))",
    "x.amax(t([1]))",
    "x.sum(t([0.0]))",
    "x.roll(t(1.0), 0)",
    "m.nn.functional.max_pool2d(x[None], t([2]))",
    # a Tensor overload is tried before a SymInt one, as in torch
    "m.tensor_split(x, t([1]))",
    "m.tensor_split(x, t(1))",
    "m.tensor_split(x, t([1, 2]))",
    "m.tensor_split(x, 2)",
    "m.tensor_split(x, [1, 2])",
    "x.narrow(0, t([1]), 1)",
    "m.narrow(x, 0, t([1]), 1)",
]

NUMBERS_AS_TENSORS = [
    # torch's should_allow_numbers_as_tensors: add/sub/mul/div and their aliases, copy_
    "m.add(1, x)",
    "m.add(1, 2)",
    "m.add(x, 1, alpha=2)",
    "m.sub(1, x, alpha=2)",
    "m.mul(2, 3)",
    "m.mul(x, t(2))",
    "m.div(1, x)",
    "m.div(1, 2)",
    "m.divide(x, 2, rounding_mode='trunc')",
    "m.true_divide(1, 2)",
    "m.true_divide(True, 2.5)",
    "m.floor_divide(5, x)",
    "m.floor_divide(5, 2)",
    "m.multiply(1.5, x)",
    "m.subtract(1, x)",
    "x.sub(True)",
    "x.div(2, rounding_mode='floor')",
    "x.clone().add_(1)",
    "x.clone().copy_(1)",
    "x.clone().copy_(2.5)",
    "x.clone().copy_(True)",
    "b.clone().copy_(0)",
    "x.long().copy_(7)",
    # and nowhere else
    "m.maximum(x, 1)",
    "m.eq(1, x)",
    "m.atan2(x, 1)",
    "m.add(x, None)",
    "m.add(x, 'a')",
    "x.clone().copy_('a')",
    "x.clone().copy_(None)",
    # a bad argument after a number in a Tensor position is the one torch names
    "m.add(x, 1, alpha='a')",
    "m.add(1, x, alpha='a')",
    "x.add(1, alpha='a')",
    "x.clone().copy_(1, non_blocking='a')",
    "m.sub(x, 'a')",
]

# a Scalar takes a tensor only when 0-dim and not requiring grad
SCALARS = [
    "m.add(x, 1, alpha=t(2))",
    "m.add(x, 1, alpha=t([2]))",
    "m.add(x, 1, alpha=t(2.0, requires_grad=True))",
    "m.full((2,), t(1.5))",
    "m.full((2,), t([1.5]))",
    "m.full((2,), t(1.5, requires_grad=True))",
    "m.arange(t(3))",
    "m.arange(t([3]))",
    "m.threshold(x, t(1.0), 0)",
    "x.clamp(min=t(1.0))",
    "x.clone().fill_(t([2.0]))",
    "x.masked_fill(x > 1, t([0.0]))",
    "m.pow(2, t([2]))",
    # a float likewise
    "m.dropout(x, t(0.0), False)",
    "m.dropout(x, t(0.0, requires_grad=True), False)",
    "m.dropout(x, t([0.0]), False)",
    "m.pdist(x, t(2))",
    "m.pdist(x, t(2.0, requires_grad=True))",
]


# torch's deprecated signatures (Note [Deprecated signatures] in tools/codegen/gen_bindings.py):
# the old argument orders, tried after every other overload
DEPRECATED = [
    "m.add(x, 2, y)",
    "m.sub(x, 2, y)",
    "x.add(2, y)",
    "x.clone().add_(2, y)",
    "x.clone().sub_(2, y)",
    "m.add(x, 2, y, out=y.clone())",
    "m.sub(x, 2, y, out=y.clone())",
    "m.add(x, 2, 3)",
    "m.add(x, 2, x2=y)",
    "m.addcmul(x, 2, y, y)",
    "m.addcdiv(x, 2, y, y + 1)",
    "x.addcmul(2, y, y)",
    "x.clone().addcmul_(2, y, y)",
    "m.addcmul(x, 2, y, y, out=y.clone())",
    "m.addmm(2, x[:, :3], 3, x, y.T[:, :3])",
    "m.addmm(2, m.ones(3, 3), x, y.T)",
    "x[:, :3].addmm(2, 3, x, y.T[:, :3])",
    "m.addmv(2, x[:, 0], 3, x, y[0])",
    "m.addr(2, x, 3, x[:, 0], y[0])",
    "m.baddbmm(2, x[None], 3, x[None, :, :1], y[None, :1])",
    "m.addbmm(2, x, 3, x[None, :, :1], y[None, :1])",
    # the hidden signatures count in torch's choice of message, and are never listed
    "m.add(x, 'a', y)",
    "m.add(x, y, 2)",
    "m.add(foo=y)",
    "m.add(x2=y)",
    "m.add(x1=x)",
    "m.addmm(2, x, 3, x, y.T)",
]


@pytest.mark.parametrize("expr", DEPRECATED)
def test_deprecated_signatures(expr):
    # torch warns once per process (below), so warnings are not compared here
    check(_recipe(expr), exact=False, warns=False)


def test_deprecated_signature_warns_once_with_torchs_text():
    from strided.frontend import arg_parser
    saved = arg_parser._deprecation_warned[0]
    arg_parser._deprecation_warned[0] = False
    x = strided.ones(2)
    try:
        with pytest.warns(UserWarning) as record:
            x.addcmul(2, x, x)
            x.add(2, x)                     # once per process, whichever the signature
    finally:
        arg_parser._deprecation_warned[0] = saved
    assert [str(w.message) for w in record] == [
        "This overload of addcmul is deprecated:\n\taddcmul(Number value, Tensor tensor1, "
        "Tensor tensor2)\nConsider using one of the following signatures instead:\n\t"
        "addcmul(Tensor tensor1, Tensor tensor2, *, Number value = 1)"]


@pytest.mark.parametrize("expr", SCALARS)
def test_tensors_for_scalars(expr):
    check(_recipe(expr))


@pytest.mark.parametrize("expr", ALIASES)
def test_numpy_aliases(expr):
    check(_recipe(expr), exact=False)


@pytest.mark.parametrize("expr", ALIAS_ERRORS)
def test_numpy_alias_errors(expr):
    rs, rt = check(_recipe(expr))
    assert rs is None and rt is None   # torch raises for each of them


@pytest.mark.parametrize("expr", NONE_INT_LISTS)
def test_none_and_single_int_for_int_lists(expr):
    check(_recipe(expr), exact=False)


@pytest.mark.parametrize("expr", TENSOR_INTS)
def test_integer_tensors_for_ints(expr):
    check(_recipe(expr))


@pytest.mark.parametrize("expr", NUMBERS_AS_TENSORS)
def test_numbers_for_tensor_parameters(expr):
    check(_recipe(expr))


def test_alias_path_is_taken_only_after_every_overload_refused():
    # a binding with a parameter really named like an alias binds it directly
    check(lambda m: m.trapezoid(m.tensor([1.0, 2.0, 4.0]), x=m.tensor([0.0, 1.0, 3.0])))
    # the alias reaches the parameter of whichever overload has it
    check(lambda m: tuple(m.max(m.arange(6.0).reshape(2, 3), axis=1, keepdims=True)))


def test_alias_retry_keeps_the_written_call_in_messages():
    # the retry renames axis -> dim; a failure is still reported with the keyword as written
    x = strided.ones(2, 3)
    with pytest.raises(TypeError, match=r"got \(Tensor, axis=str\)"):
        strided.sum(x, axis="a")
    with pytest.raises(TypeError, match=r"got \(axis=str, \)"):
        x.mean(axis="a")
    tx = torch.ones(2, 3)
    with pytest.raises(TypeError, match=r"got \(axis=str, \)"):
        tx.mean(axis="a")


def test_alias_retry_in_threads():
    # the retry state is per thread: concurrent alias calls do not see each other's
    import threading
    errors = []

    def work():
        try:
            x = strided.arange(6.0).reshape(2, 3)
            for _ in range(50):
                assert strided.sum(x, axis=0).tolist() == [3.0, 5.0, 7.0]
                try:
                    strided.sum(x, axis="a")
                except TypeError as e:
                    assert "axis=str" in str(e)
                else:
                    raise AssertionError("no TypeError")
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)
    threads = [threading.Thread(target=work) for _ in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors, errors
