"""Python-level functions of torch (``torch/functional.py``) for linear algebra and shape
ops: they take their tensors as varargs and normalise the arguments, then call the
generated bindings (which call the dispatcher).

    strided.meshgrid(x, y, indexing="xy")
    strided.tensordot(a, b, dims=([1], [0]))
    strided.einsum("bij,bjk->bik", a, b)
"""

from __future__ import annotations

from ..ops._generated import torch_functions as _F

__all__ = ["block_diag", "cartesian_prod", "einsum", "meshgrid", "tensordot", "unique",
           "unique_consecutive"]


def _tensors_of(tensors):
    """``f(a, b)`` and ``f([a, b])`` both mean the list ``[a, b]``."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        return tuple(tensors[0])
    return tensors


def meshgrid(*tensors, indexing: str | None = None):
    """Coordinate grids: one tensor per input, each of the shape of all inputs' sizes,
    ``indexing="ij"`` (matrix order, the default) or ``"xy"`` (the first two dims
    swapped). The grids are views (expanded inputs), returned as a tuple."""
    tensors = _tensors_of(tensors)
    if indexing is None:
        return tuple(_F.meshgrid(tensors))
    return tuple(_F.meshgrid(tensors, indexing=indexing))


def block_diag(*tensors):
    """The inputs (0-, 1- or 2-d) placed along the diagonal of one matrix."""
    return _F.block_diag(tensors)


def cartesian_prod(*tensors):
    """Every combination of one element from each 1-d input, one per row."""
    return _F.cartesian_prod(tensors)


def tensordot(a, b, dims=2, out=None):
    """Sum the products over the last ``dims`` dims of ``a`` and the first ``dims`` of
    ``b``, or over the dims listed in ``dims = ([dims of a], [dims of b])``."""
    from .tensor import Tensor
    if isinstance(dims, bool) or not isinstance(dims, (tuple, list, Tensor, int)):
        raise RuntimeError("tensordot expects dims to be int or tuple[list[int], list[int]] or "
                           f"list[list[int]] containing two lists, but got dims={dims}")
    if isinstance(dims, Tensor):
        if dims.numel() > 1:
            dims_a, dims_b = dims[0].tolist(), dims[1].tolist()
        else:
            count = int(dims.item())
            if count < 0:
                raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
            dims_a, dims_b = list(range(-count, 0)), list(range(count))
    elif isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > min(a.dim(), b.dim()):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        dims_a, dims_b = list(range(-dims, 0)), list(range(dims))
    else:
        dims_a, dims_b = dims
    if out is None:
        return _F.tensordot(a, b, dims_a, dims_b)
    return _F.tensordot(a, b, dims_a, dims_b, out=out)


def _sublist_equation(args) -> tuple:
    """``einsum(op0, [0, 1], op1, [1, 2], [0, 2])``: the sublist format, as an equation."""
    def letters(sub):
        out = []
        for s in sub:
            if s is Ellipsis:
                out.append("...")
            elif isinstance(s, int) and 0 <= s < 52:
                out.append(chr(ord("a") + s) if s < 26 else chr(ord("A") + s - 26))
            else:
                raise ValueError("einsum(): expected subscript to be within the range [0, 52) "
                                 f"but got {s}")
        return "".join(out)
    operands = list(args[0::2])
    subs = list(args[1::2])
    output = None
    if len(operands) > len(subs):
        # an odd count: the last item is the output sublist
        output = operands.pop()
    equation = ",".join(letters(s) for s in subs)
    if output is not None:
        equation += "->" + letters(output)
    return equation, operands


def einsum(*args):
    """Einstein summation: ``einsum("ij,jk->ik", a, b)`` is ``a @ b``; also
    ``einsum("ij,jk", [a, b])`` and the sublist format ``einsum(a, [0, 1], b, [1, 2])``."""
    if len(args) < 2:
        raise ValueError("einsum(): must specify the equation string and at least one operand, "
                         "or at least one operand and its subscripts list")
    if isinstance(args[0], str):
        equation, operands = args[0], args[1:]
        operands = _tensors_of(operands)
    else:
        equation, operands = _sublist_equation(args)
    return _F.einsum(equation, operands)


def norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):
    """``torch.norm``: a front for ``linalg.vector_norm`` and ``linalg.matrix_norm``, chosen
    as torch's Python function chooses. ``'fro'`` over at most two dims (or all of them) is
    the vector 2-norm of the flattened dims; any other string ('nuc', or 'fro' over more
    dims, which matrix_norm then refuses) is a matrix norm, over every dim when ``dim`` is
    None; a number (None means 2) is a vector norm."""
    from .. import linalg

    dims = [dim] if isinstance(dim, int) else dim
    kw = {} if out is None else {"out": out}
    if isinstance(p, str):
        if p == "fro" and (dim is None or isinstance(dim, int) or len(dim) <= 2):
            return linalg.vector_norm(input, 2, dims, keepdim, dtype=dtype, **kw)
        if dims is None:
            dims = list(range(input.dim()))
        return linalg.matrix_norm(input, p, dims, keepdim, dtype=dtype, **kw)
    return linalg.vector_norm(input, 2.0 if p is None else p, dims, keepdim, dtype=dtype, **kw)


# -- unique / unique_consecutive (issue 4) ------------------------------------------------------
# torch.unique and torch.unique_consecutive are Python functions whose result (a tensor, or a
# tuple of two or three) depends on the return_inverse / return_counts flags. torch picks
# one of four functions with nested ``boolean_dispatch`` wrappers (torch/_jit_internal.py),
# each wrapper reading its flag from a keyword or from a fixed positional index. The same
# structure is kept here, quirks included: unique_consecutive's wrappers read positions 2 and
# 1, so ``unique_consecutive(x, True)`` returns (output, empty counts), as torch's does; and
# a bad keyword names the inner function (``_return_output() got an unexpected keyword``).

def _boolean_dispatch(arg_name, arg_index, default, if_true, if_false, func_name):
    def fn(*args, **kwargs):
        flag = default
        if arg_name in kwargs:
            flag = kwargs[arg_name]
        elif arg_index < len(args):
            flag = args[arg_index]
        if flag:
            return if_true(*args, **kwargs)
        return if_false(*args, **kwargs)
    fn.__name__ = func_name
    fn.__doc__ = if_false.__doc__ or if_true.__doc__
    return fn


def _unique_impl(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None)

    The unique elements of ``input`` (sorted: the CPU kernel always sorts), or with ``dim``
    the unique slices along that dim; ``return_inverse`` adds where each element (slice) went
    in the output, ``return_counts`` how often each unique value occurs.

        >>> strided.unique(strided.tensor([2, 1, 2]), return_counts=True)
        (tensor([1, 2]), tensor([1, 2]))
    """
    if dim is not None:
        return _F.unique_dim(input, dim, sorted=sorted, return_inverse=return_inverse,
                             return_counts=return_counts)
    return _F._unique2(input, sorted=sorted, return_inverse=return_inverse,
                       return_counts=return_counts)


def _return_inverse_and_counts(input, sorted=True, return_inverse=False, return_counts=False,
                               dim=None):
    return _unique_impl(input, sorted, return_inverse, return_counts, dim)


def _return_counts(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    output, _, counts = _unique_impl(input, sorted, return_inverse, return_counts, dim)
    return output, counts


def _return_output(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    return _unique_impl(input, sorted, return_inverse, return_counts, dim)[0]


def _return_inverse(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    output, inverse_indices, _ = _unique_impl(input, sorted, return_inverse, return_counts, dim)
    return output, inverse_indices


_return_output.__doc__ = _unique_impl.__doc__
unique = _boolean_dispatch(
    "return_inverse", 2, False,
    _boolean_dispatch("return_counts", 3, False, _return_inverse_and_counts, _return_inverse,
                      "unique"),
    _boolean_dispatch("return_counts", 3, False, _return_counts, _return_output, "unique"),
    "unique")


def _unique_consecutive_impl(input, return_inverse=False, return_counts=False, dim=None):
    """unique_consecutive(input, return_inverse=False, return_counts=False, dim=None)

    Keeps the first element of every run of equal consecutive elements (or slices along
    ``dim``), like C++'s ``std::unique``; ``return_inverse`` and ``return_counts`` as for
    ``unique``.

        >>> strided.unique_consecutive(strided.tensor([1, 1, 2, 1]))
        tensor([1, 2, 1])
    """
    return _F.unique_consecutive(input, return_inverse=return_inverse,
                                 return_counts=return_counts, dim=dim)


def _consecutive_return_inverse_and_counts(input, return_inverse=False, return_counts=False,
                                           dim=None):
    return _unique_consecutive_impl(input, return_inverse, return_counts, dim)


def _consecutive_return_counts(input, return_inverse=False, return_counts=False, dim=None):
    output, _, counts = _unique_consecutive_impl(input, return_inverse, return_counts, dim)
    return output, counts


def _consecutive_return_output(input, return_inverse=False, return_counts=False, dim=None):
    return _unique_consecutive_impl(input, return_inverse, return_counts, dim)[0]


def _consecutive_return_inverse(input, return_inverse=False, return_counts=False, dim=None):
    output, inverse_indices, _ = _unique_consecutive_impl(input, return_inverse, return_counts,
                                                          dim)
    return output, inverse_indices


_consecutive_return_output.__doc__ = _unique_consecutive_impl.__doc__
unique_consecutive = _boolean_dispatch(
    "return_inverse", 2, False,
    _boolean_dispatch("return_counts", 1, False, _consecutive_return_inverse_and_counts,
                      _consecutive_return_inverse, "unique_consecutive"),
    _boolean_dispatch("return_counts", 1, False, _consecutive_return_counts,
                      _consecutive_return_output, "unique_consecutive"),
    "unique_consecutive")
