"""Helpers of the backward formulas of the view and shape ops (derivatives_shape.yaml).

Each one is written with strided's public, differentiable ops only, so that a backward
run with ``create_graph=True`` records its own graph (double backward). The engine sums
broadcast dims away and casts to the input's dtype, so none of them cares about either.
"""

from __future__ import annotations

import strided as _s

__all__ = [
    "block_diag_backward", "cat_tensors_backward", "diagonal_backward", "permute_backwards",
    "repeat_backward", "split_backward", "split_lengths", "stack_tensors_backward",
    "unbind_backward", "unfold_backward",
]


def _wrap(dim: int, ndim: int) -> int:
    return dim % ndim if ndim else 0


def permute_backwards(grad, dims):
    """``grad`` of ``permute(dims)`` permuted back: the inverse permutation."""
    ndim = len(dims)
    inverse = [0] * ndim
    for i, d in enumerate(dims):
        inverse[_wrap(d, ndim)] = i
    return grad.permute(inverse)


def diagonal_backward(grad, sizes, offset, dim1, dim2):
    """Zeros of the input's shape with ``grad`` written on the diagonal that was read."""
    out = _s.zeros(tuple(sizes), dtype=grad.dtype)
    out.diagonal(offset, dim1, dim2).copy_(grad)
    return out


def unfold_backward(grad, sizes, dim, size, step):
    """Every window element added back where it was read: window ``i``, element ``j``
    came from position ``i * step + j`` of ``dim``, so element ``j`` of all windows is a
    strided slice ``j::step`` of the input (one in-place add per element of a window)."""
    sizes = tuple(sizes)
    if not sizes:                        # a 0-d input unfolds to (size,), size 0 or 1
        return grad.sum()
    d = _wrap(dim, len(sizes))
    out = _s.zeros(sizes, dtype=grad.dtype)
    n = grad.shape[d]
    for j in range(size):
        piece = grad.select(-1, j)
        target = _s.ops.aten.slice.Tensor(out, d, j, j + (n - 1) * step + 1, step)
        target.add_(piece)
    return out


def _filled(grads, shapes):
    """The gradients of a ``Tensor[]`` output, one per piece: pieces that got no gradient
    (``None``, or past the end of ``grads``) get zeros of their shape."""
    grads = list(grads)[:len(shapes)]
    grads += [None] * (len(shapes) - len(grads))
    dtype = next((g.dtype for g in grads if g is not None), None)
    return [g if g is not None else _s.zeros(tuple(s), dtype=dtype)
            for g, s in zip(grads, shapes)]


def unbind_backward(grads, sizes, dim):
    """The slices' gradients stacked back along ``dim``."""
    sizes = tuple(sizes)
    d = _wrap(dim, len(sizes))
    piece = sizes[:d] + sizes[d + 1:]
    return _s.stack(_filled(grads, [piece] * sizes[d]), d)


def split_lengths(sizes, split_size, dim):
    """The lengths along ``dim`` of the pieces of ``split(split_size, dim)``."""
    size = tuple(sizes)[_wrap(dim, len(sizes))]
    if split_size == 0:
        return [0]
    n = max((size + split_size - 1) // split_size, 1)
    return [split_size] * (n - 1) + [size - split_size * (n - 1)]


def split_backward(grads, lengths, sizes, dim):
    """The pieces' gradients joined back along ``dim``."""
    sizes = tuple(sizes)
    d = _wrap(dim, len(sizes))
    shapes = [sizes[:d] + (n,) + sizes[d + 1:] for n in lengths]
    return _s.cat(_filled(grads, shapes), d)


def cat_tensors_backward(grad, sizes, dim):
    """The part of ``grad`` each input of ``cat`` supplied. A 1-d empty input that took no
    part in the shape rule (torch's legacy rule) gets an empty gradient."""
    ndim = grad.dim()
    d = _wrap(dim, ndim)
    out = []
    pos = 0
    for s in sizes:
        s = tuple(s)
        if s == (0,) and ndim != 1:
            out.append(_s.zeros((0,), dtype=grad.dtype))
            continue
        out.append(grad.narrow(d, pos, s[d]))
        pos += s[d]
    return out


def stack_tensors_backward(grad, dim, n):
    """Slice ``i`` of ``grad`` along the new dim for input ``i``."""
    return [grad.select(dim, i) for i in range(n)]


def repeat_backward(grad, repeats, sizes):
    """``grad`` of ``repeat``: the copies of each element summed. ``grad`` is seen as
    (r0, s0, r1, s1, ...) (the input padded with leading 1s to ``len(repeats)`` dims) and
    summed over the r axes."""
    sizes = tuple(sizes)
    repeats = tuple(repeats)
    if not repeats:
        return grad
    padded = (1,) * (len(repeats) - len(sizes)) + sizes
    split = []
    for r, s in zip(repeats, padded):
        split += [r, s]
    g = grad.reshape(split).sum(list(range(0, len(split), 2)))
    return g.reshape(sizes)


def block_diag_backward(grad, sizes):
    """The block of ``grad`` each input of ``block_diag`` filled (a 0-d input is a 1x1
    block, a 1-d one a row)."""
    out = []
    r = c = 0
    for s in sizes:
        s = tuple(s)
        h, w = (1, 1) if len(s) == 0 else (1, s[0]) if len(s) == 1 else s
        out.append(grad.narrow(0, r, h).narrow(1, c, w).reshape(s))
        r += h
        c += w
    return out
