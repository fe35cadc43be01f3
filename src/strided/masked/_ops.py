"""The masked operations of ``strided.masked`` (torch.masked's, for strided tensors).

Note [Masking by identity]
~~~~~~~~~~~~~~~~~~~~~~~~~~
A masked reduction ``op(input, dim, mask=mask)`` is ``op(where(mask, input, identity))``:
the masked-out elements are replaced by a value that cannot change the result (0 for
sum and cumsum, 1 for prod and cumprod, -inf / the dtype's minimum for amax, argmax,
logsumexp, logaddexp, softmax and log_softmax, +inf / the maximum for amin, argmin and
softmin, NaN for median, which then reduces with nanmedian). ``mean``, ``var`` and
``std`` have no identity: they divide masked sums by the count of masked-in elements, so
a fully masked-out slice gives NaN. Everything runs through public ops, so autograd
records their graphs and the gradient of a masked-out element is zero.
"""

from __future__ import annotations

import builtins

import strided as _s

__all__: list[str] = []

_SMALL_INTS = None


def _small_ints():
    global _SMALL_INTS
    if _SMALL_INTS is None:
        _SMALL_INTS = (_s.uint8, _s.bool, _s.int8, _s.int16, _s.int32)
    return _SMALL_INTS


def _reduction_identity(op_name: str, input, *args):
    """The value that leaves ``op_name``'s result unchanged, as a 0-dim tensor of
    ``input``'s dtype, or None where it is not defined (mean, var, std)."""
    dtype = input.dtype
    device = input.device
    op_name = op_name.rsplit(".", 1)[-1]
    is_float = dtype.is_floating_point
    int_ok = dtype.is_signed or dtype is _s.uint8

    def full(value, d=dtype):
        return _s.tensor(value, dtype=d, device=device)

    if op_name in {"sum", "cumsum"}:
        return full(0)
    if op_name in {"prod", "cumprod"}:
        return full(1)
    if op_name in {"amax", "argmax", "logaddexp"}:
        if is_float:
            return full(-float("inf"))
        if int_ok:
            return full(_s.iinfo(dtype).min)
    elif op_name == "logsumexp":
        if is_float:
            return full(-float("inf"))
        if dtype.is_complex:
            return full(complex(-float("inf"), 0))
        if int_ok:
            return full(_s.iinfo(dtype).min)
    elif op_name in {"amin", "argmin"}:
        if is_float:
            return full(float("inf"))
        if int_ok:
            return full(_s.iinfo(dtype).max)
    elif op_name == "mean":
        return None
    elif op_name == "norm":
        ord = args[0] if args else 2
        if ord == float("-inf"):
            if not is_float:
                raise AssertionError(f"input must be floating point, got {dtype}")
            return full(float("inf"))
        return full(0)
    elif op_name == "median":
        return full(float("nan"), dtype if is_float else _s.float32)
    elif op_name in {"var", "std"}:
        return None
    raise NotImplementedError(f"identity of {op_name} on {dtype} input")


def _canonical_dim(dim, ndim: int) -> tuple:
    """``dim`` (None, an int or a sequence; ``()`` means all dims) as a sorted tuple of
    non-negative dims."""
    if dim == ():
        dim = None
    if dim is None:
        return tuple(range(ndim))
    ndim = builtins.max(ndim, 1)
    dims: list = []
    for d in ((dim,) if isinstance(dim, int) else dim):
        if d in dims:
            raise RuntimeError(f"dim={d} appears multiple times in the list of dims")
        if d >= ndim or d < -ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of "
                             f"[{-ndim}, {ndim - 1}], but got {d})")
        dims.append(d % ndim)
    return tuple(sorted(dims))


def _where(mask, input, fill_value):
    return _s.where(mask, input, fill_value)


def _input_mask(input, *args, **kwargs):
    """``mask`` broadcast to ``input``'s shape as a bool tensor."""
    mask = kwargs.get("mask")
    if mask is None:
        raise ValueError("_input_mask requires explicit mask")
    if mask.shape != input.shape:
        if mask.ndim > input.ndim:
            raise IndexError("_input_mask expected broadcastable mask (got mask dimensionality "
                             "higher than of the input)")
        mask = _s.broadcast_to(mask.clone(), input.shape).to(dtype=_s.bool)
    return mask.to(dtype=_s.bool)


_REDUCTIONS = {"sum", "prod", "amax", "amin", "argmax", "argmin", "mean", "median", "norm",
               "var", "std", "logsumexp"}
_NORMALIZATIONS = {"softmax", "log_softmax", "softmin", "normalize", "cumsum", "cumprod"}


def _output_mask(op, input, *args, **kwargs):
    """Which elements of ``op``'s result have at least one masked-in input."""
    if not callable(op):
        raise ValueError(f"_output_mask expected masked operation (got {type(op).__name__} "
                         f"object)")
    name = op.__name__
    if name in _REDUCTIONS:
        if name == "norm" and args:
            args = args[1:]
        dim = args[0] if args else kwargs.get("dim")
        outmask = _input_mask(input, *args, **kwargs)
        keepdim = kwargs.get("keepdim", False)
        dims = _canonical_dim(dim, input.ndim)
        for d in reversed(dims):
            outmask = outmask.any(dim=d, keepdim=bool(keepdim))
        return outmask
    if name in _NORMALIZATIONS:
        return _input_mask(input, *args, **kwargs)
    raise ValueError(f"_output_mask expected masked operation (got callable "
                     f"{op.__module__}.{name})")


def _combine_input_and_mask(op, input, mask, *args):
    """``input`` with its masked-out elements replaced by ``op``'s identity
    (Note [Masking by identity])."""
    if mask is None:
        return input
    canonical = _input_mask(input, mask=mask)
    fill = _reduction_identity(op.__name__, input, *args)
    return _where(canonical, input, fill)


def _widened(input, dtype):
    """sum/prod's default result dtype: small integers (and bool) count in int64."""
    if dtype is None:
        dtype = input.dtype
        if dtype in _small_ints():
            dtype = _s.int64
    return dtype


# -- reductions ------------------------------------------------------------------------------

def sum(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Sum of the masked-in elements over ``dim`` (all dims by default)."""
    dtype = _widened(input, dtype)
    dims = _canonical_dim(dim, input.ndim)
    masked = _combine_input_and_mask(sum, input, mask)
    return _s.sum(masked, dims, bool(keepdim), dtype=dtype)


def prod(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Product of the masked-in elements over ``dim`` (all dims by default)."""
    dtype = _widened(input, dtype)
    dims = _canonical_dim(dim, input.ndim)
    result = _combine_input_and_mask(prod, input, mask).to(dtype=dtype)
    for d in reversed(dims):
        result = result.prod(dim=d, keepdim=bool(keepdim))
    return result


def cumsum(input, dim, *, dtype=None, mask=None):
    """Running sum along ``dim``, masked-out elements counting as 0."""
    if dtype is None:
        dtype = input.dtype
    d = _canonical_dim(dim, input.ndim)[0]
    masked = _combine_input_and_mask(sum, input, mask)
    return _s.cumsum(masked, d, dtype=dtype).to(dtype=dtype)


def cumprod(input, dim, *, dtype=None, mask=None):
    """Running product along ``dim``, masked-out elements counting as 1."""
    if dtype is None:
        dtype = input.dtype
    d = _canonical_dim(dim, input.ndim)[0]
    masked = _combine_input_and_mask(prod, input, mask)
    return _s.cumprod(masked, d, dtype=dtype).to(dtype=dtype)


def amax(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Largest masked-in element over ``dim``."""
    if dtype is None:
        dtype = input.dtype
    masked = _combine_input_and_mask(amax, input, mask)
    dims = _canonical_dim(dim, masked.ndim)
    return _s.amax(masked, dims, bool(keepdim)).to(dtype=dtype)


def amin(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Smallest masked-in element over ``dim``."""
    if dtype is None:
        dtype = input.dtype
    masked = _combine_input_and_mask(amin, input, mask)
    dims = _canonical_dim(dim, masked.ndim)
    return _s.amin(masked, dims, bool(keepdim)).to(dtype=dtype)


def argmax(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Index of the largest masked-in element along ``dim`` (in ``dtype``, by default
    the input's)."""
    if dtype is None:
        dtype = input.dtype
    masked = _combine_input_and_mask(argmax, input, mask)
    return _s.argmax(masked, dim, bool(keepdim)).to(dtype=dtype)


def argmin(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Index of the smallest masked-in element along ``dim``."""
    if dtype is None:
        dtype = input.dtype
    masked = _combine_input_and_mask(argmin, input, mask)
    return _s.argmin(masked, dim, bool(keepdim)).to(dtype=dtype)


def mean(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Masked sum divided by the number of masked-in elements (NaN where there are
    none)."""
    source = "Optional"
    if dtype is None:
        dtype = input.dtype
        source = "Input"
    if not (dtype.is_floating_point or dtype.is_complex):
        raise ValueError(f"mean(): Could not infer output dtype. {source} dtype must be either "
                         f"a floating point or complex dtype. Got: {dtype}")
    if mask is None:
        count = sum(_s.ones(input.shape, dtype=_s.int64, device=input.device), dim,
                    keepdim=keepdim)
        total = sum(input, dim, keepdim=keepdim, dtype=dtype)
    else:
        inmask = _input_mask(input, mask=mask)
        count = inmask.sum(dim=dim, keepdim=bool(keepdim))
        total = sum(input, dim, keepdim=keepdim, dtype=dtype, mask=inmask)
    return total / count


def median(input, dim=-1, *, keepdim=False, dtype=None, mask=None):
    """Median of the masked-in elements along ``dim`` (NaN where there are none; an
    integer input must have none such)."""
    if dtype is None:
        dtype = input.dtype
    d = _canonical_dim(dim, input.ndim)[0]
    is_float = input.dtype.is_floating_point
    if not is_float:
        input = input.to(dtype=_s.float32)
    masked = _combine_input_and_mask(median, input, mask)
    output = _s.nanmedian(masked, d, keepdim).values
    if is_float:
        return output
    if not _s.isnan(output).any():
        return output.to(dtype=dtype)
    raise ValueError("masked median expects no fully masked out rows if dtype is not floating "
                     "point")


def logsumexp(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """``log(sum(exp(x)))`` over the masked-in elements."""
    if dtype is None:
        dtype = input.dtype
    dims = _canonical_dim(dim, input.ndim)
    masked = _combine_input_and_mask(logsumexp, input, mask)
    return _s.logsumexp(masked, dims, keepdim=keepdim).to(dtype=dtype)


def logaddexp(input, other, *, dtype=None, input_mask=None, other_mask=None):
    """``log(exp(input) + exp(other))`` with each operand's masked-out elements at -inf."""
    if dtype is None:
        dtype = input.dtype
    a = _combine_input_and_mask(logaddexp, input, input_mask)
    b = _combine_input_and_mask(logaddexp, other, other_mask)
    return _s.logaddexp(a, b).to(dtype=dtype)


def norm(input, ord=2.0, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Vector ``ord``-norm of the masked-in elements over ``dim``."""
    if dtype is None:
        dtype = input.dtype
    masked = _combine_input_and_mask(norm, input, mask, ord)
    dims = _canonical_dim(dim, input.ndim)
    return _s.linalg.vector_norm(masked, ord, dims, bool(keepdim), dtype=dtype)


def _std_var(input, dim, unbiased, *, correction_opt, keepdim, dtype, mask, take_sqrt):
    if unbiased is not None and correction_opt is not None:
        raise AssertionError("Only one of unbiased and correction may be given")
    correction = 1.0
    if unbiased is not None:
        correction = 1.0 if unbiased else 0.0
    if correction_opt is not None:
        correction = float(correction_opt)
    if dtype is None:
        dtype = input.dtype
        if not (dtype.is_floating_point or dtype.is_complex):
            dtype = _s.float32
    compute = dtype
    if not (compute.is_floating_point or compute.is_complex):
        compute = _s.float32
    if mask is None:
        count = sum(_s.ones(input.shape, dtype=_s.int64, device=input.device), dim,
                    keepdim=True)
        total = sum(input, dim, keepdim=True, dtype=dtype)
        inmask = None
    else:
        inmask = _input_mask(input, mask=mask)
        count = inmask.sum(dim=dim, keepdim=True)
        total = sum(input, dim, keepdim=True, dtype=dtype, mask=inmask)
    centered = _s.subtract(input, _s.divide(total, count))
    squares = sum(centered * centered.conj(), dim, keepdim=keepdim, dtype=compute, mask=inmask)
    if not keepdim:
        count = count.reshape(squares.shape)
    if correction != 0:
        real = compute.to_real() if compute.is_complex else compute
        count = count.to(real)
        count = _s.subtract(count, correction)
        count = _s.maximum(count, count.new_zeros([]))
    output = _s.divide(squares, count).to(dtype=dtype)
    if take_sqrt:
        output = _s.sqrt(output)
    return output


def var(input, dim=None, unbiased=None, *, correction=None, keepdim=False, dtype=None,
        mask=None):
    """Variance of the masked-in elements (``correction`` 1 by default)."""
    return _std_var(input, dim, unbiased, correction_opt=correction, keepdim=keepdim,
                    dtype=dtype, mask=mask, take_sqrt=False)


def std(input, dim=None, unbiased=None, *, correction=None, keepdim=False, dtype=None,
        mask=None):
    """Standard deviation of the masked-in elements."""
    return _std_var(input, dim, unbiased, correction_opt=correction, keepdim=keepdim,
                    dtype=dtype, mask=mask, take_sqrt=True)


# -- normalizations --------------------------------------------------------------------------

def softmax(input, dim, *, dtype=None, mask=None):
    """Softmax along ``dim`` over the masked-in elements (masked-out ones get 0)."""
    if dtype is None:
        dtype = input.dtype
    d = _canonical_dim(dim, input.ndim)[0]
    masked = _combine_input_and_mask(amax, input, mask)
    return _s.nn.functional.softmax(masked, d, dtype=dtype)


def log_softmax(input, dim, *, dtype=None, mask=None):
    """Log-softmax along ``dim`` over the masked-in elements (masked-out ones get -inf)."""
    if dtype is None:
        dtype = input.dtype
    d = _canonical_dim(dim, input.ndim)[0]
    masked = _combine_input_and_mask(amax, input, mask)
    return _s.nn.functional.log_softmax(masked, d, dtype=dtype)


def softmin(input, dim, *, dtype=None, mask=None):
    """Softmin along ``dim`` over the masked-in elements."""
    if dtype is None:
        dtype = input.dtype
    d = _canonical_dim(dim, input.ndim)[0]
    masked = _combine_input_and_mask(amin, input, mask)
    return _s.nn.functional.softmin(masked, d, dtype=dtype)


def normalize(input, ord, dim, *, eps=1e-12, dtype=None, mask=None):
    """``input`` divided by the masked ``ord``-norm along ``dim`` (at least ``eps``);
    masked-out elements become 0."""
    if dtype is None:
        dtype = input.dtype
    masked = _combine_input_and_mask(sum, input, mask)
    nrm = norm(input, ord, dim, keepdim=True, dtype=dtype, mask=mask)
    denom = _s.maximum(nrm, nrm.new_full([], eps))
    return _s.divide(masked, denom)
