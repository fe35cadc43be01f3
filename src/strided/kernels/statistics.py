"""Kernels of torch's statistics and calculus ops: ``cov``, ``corrcoef``, ``diff``,
``gradient`` and the trapezoid family are composites (torch builds them from other ops, so
the graph shows its nodes: ``trapezoid(y)`` ends in MulBackward1, ``gradient`` in
CatBackward0); ``histogram`` and the ``_histogramdd_*`` ops are kernels.

Note [Histogram bins]
~~~~~~~~~~~~~~~~~~~~~
torch finds an element's bin with the bin edges themselves (for evenly spaced edges a first
guess by interpolation, then a search among its neighbours): the bin is the last edge
``<= x``, the rightmost edge belongs to the last bin, and values outside ``[first,
last]`` (NaN included) are dropped. ``np.searchsorted(edges, x, "right") - 1`` gives the
same bins. Evenly spaced edges are torch's ``linspace`` between the outer edges: the range,
or the input's min and max, widened by 0.5 each way when they are equal, (0, 1) when the
input is empty.
"""

from __future__ import annotations

import numpy as np

from ..core import dtypes as dt
from ..core.checks import check, maybe_wrap_dim
from .linalg import _copy_outs, _fill, _new


def _s():
    import strided
    return strided


def _is_meta(*ts) -> bool:
    return any(t is not None and t._device.type == "meta" for t in ts)


def _narrow(t, dim, start, end=None):
    """torch's ``slice(t, dim, start, end)`` with Python's negative indices."""
    n = t.shape[dim]
    start = max(start + n, 0) if start < 0 else min(start, n)
    end = n if end is None else (max(end + n, 0) if end < 0 else min(end, n))
    return t.narrow(dim, start, max(end - start, 0))


# -- cov, corrcoef -------------------------------------------------------------------------------

def _is_true(t) -> bool:
    return bool(t.item())


def cov_composite(self, correction=1, fweights=None, aweights=None):
    s = _s()
    check(self.dim() <= 2, lambda: (
        f"cov(): expected input to have two or fewer dimensions but got an input with "
        f"{self.dim()} dimensions"))
    check(self.dtype is not s.bool, "cov(): bool dtype is not supported for input")
    x = self.view(1, -1) if self.dim() < 2 else self
    nobs = x.shape[1]
    w = None
    if fweights is not None:
        w = fweights
        check(w.dim() <= 1, lambda: (
            f"cov(): expected fweights to have one or fewer dimensions but got fweights with "
            f"{w.dim()} dimensions"))
        check(w._dtype.category == dt.INT, lambda: (
            f"cov(): expected fweights to have integral dtype but got fweights with "
            f"{w._dtype._scalar_name} dtype"))
        check(w.numel() == nobs, lambda: (
            f"cov(): expected fweights to have the same numel as there are observations in "
            f"the input but got {w.numel()} != {nobs}"))
        check(nobs == 0 or _is_true(w.min().ge(0)), "cov(): fweights cannot be negative")
    if aweights is not None:
        aw = aweights
        check(aw.dim() <= 1, lambda: (
            f"cov(): expected aweights to have one or fewer dimensions but got aweights with "
            f"{aw.dim()} dimensions"))
        check(aw._dtype.is_floating_point, lambda: (
            f"cov(): expected aweights to have floating point dtype but got aweights with "
            f"{aw._dtype._scalar_name} dtype"))
        check(aw.numel() == nobs, lambda: (
            f"cov(): expected aweights to have the same numel as there are observations in "
            f"the input but got {aw.numel()} != {nobs}"))
        check(nobs == 0 or _is_true(aw.min().ge(0)), "cov(): aweights cannot be negative")
        w = aw if w is None else w * aw
    w_sum = w.sum() if w is not None else s.scalar_tensor(nobs, dtype=s.int64)
    check(w is None or _is_true(w_sum.ne(0)), "cov(): weights sum to zero, can't be normalized")
    avg = (x * w if w is not None else x).sum(1) / w_sum
    if w is None:
        norm = s.scalar_tensor(nobs - correction, dtype=s.int64)
    elif correction == 0:
        norm = w_sum
    elif aweights is None:
        norm = w_sum - correction
    elif fweights is None and nobs == 1 and correction == 1:
        norm = s.scalar_tensor(0, dtype=s.int64)
    else:
        norm = w_sum - correction * (w * aweights).sum() / w_sum
    if _is_true(norm.le(0)):
        import warnings
        warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less "
                      "than the number of observations.", UserWarning, stacklevel=3)
        norm = s.zeros_like(norm)
    if nobs == 1 and (fweights is not None) != (aweights is not None):
        x.zero_()       # torch zeroes the (single-observation) input itself here
        if x._dtype.category <= dt.INT:
            x = x.to(s.float32)
    else:
        x = x - avg.unsqueeze(1)
    rhs = (x * w if w is not None else x).t()
    c = s.mm(x, rhs.conj() if rhs.is_complex() else rhs)
    return s.true_divide(c, norm).squeeze()


def corrcoef_composite(self):
    s = _s()
    check(self.dim() <= 2, lambda: (
        f"corrcoef(): expected input to have two or fewer dimensions but got an input with "
        f"{self.dim()} dimensions"))
    c = s.cov(self)
    if c.dim() == 0:
        return c / c
    d = c.diagonal()
    std = s.sqrt(d.real if d.is_complex() else d)
    c = c / std.view(-1, 1)
    c = c / std.view(1, -1)
    if c.is_complex():
        return s.complex(c.real.clip(-1, 1), c.imag.clip(-1, 1))
    return c.clip(-1, 1)


# -- diff ----------------------------------------------------------------------------------------

def _diff_check_other(self, other, dim):
    if other is None:
        return
    wrapped = maybe_wrap_dim(dim, self.dim(), False)
    check(other.dim() == self.dim(),
          "diff expects prepend or append to be the same dimension as input")
    for i in range(other.dim()):
        if i == wrapped:
            continue
        check(other.shape[i] == self.shape[i], lambda i=i: (
            f"diff expects the shape of tensor to prepend or append to match that of input "
            f"except along the differencing dimension; input.size({i}) = {self.shape[i]}, but "
            f"got tensor.size({i}) = {other.shape[i]}"))


def _diff_check(self, n, dim, prepend, append):
    check(self.dim() >= 1, "diff expects input to be at least one-dimensional")
    check(n >= 0, lambda: f"order must be non-negative but got {n}")
    _diff_check_other(self, prepend, dim)
    _diff_check_other(self, append, dim)


def _with_ends(self, prepend, append, dim):
    s = _s()
    parts = [t for t in (prepend, self, append) if t is not None]
    return s.cat(parts, dim)


def _diff_steps(x, n, dim):
    s = _s()
    if n == 0:
        r = s.zeros_like(x)
        r.copy_(x)
        return r
    size = x.shape[dim]
    n = min(n, size)
    length = size - 1
    for _ in range(n):
        a, b = x.narrow(dim, 1, length), x.narrow(dim, 0, length)
        x = s.logical_xor(a, b) if x.dtype is s.bool else a - b
        length -= 1
    return x


def diff_composite(self, n=1, dim=-1, prepend=None, append=None):
    _diff_check(self, n, dim, prepend, append)
    if (prepend is None and append is None) or n == 0:
        return _diff_steps(self, n, dim)
    return _diff_steps(_with_ends(self, prepend, append, dim), n, dim)


def diff_out_composite(self, n=1, dim=-1, prepend=None, append=None, out=None):
    s = _s()
    _diff_check(self, n, dim, prepend, append)
    x = self if (prepend is None and append is None) or n == 0 else \
        _with_ends(self, prepend, append, dim)
    if n == 0:
        from .resize import resize_output
        resize_output(out, x._sizes)
        check(out._dtype is x._dtype, lambda: (
            f"Expected out tensor to have dtype {x._dtype._scalar_name}, but got "
            f"{out._dtype._scalar_name} instead"))
        return out.copy_(x)
    size = x.shape[dim]
    n = min(n, size)
    length = size - n
    prev = _diff_steps(x, n - 1, dim) if n > 1 else x
    a, b = prev.narrow(dim, 1, length), prev.narrow(dim, 0, length)
    if x.dtype is s.bool:
        return s.logical_xor(a, b, out=out)
    return s.sub(a, b, out=out)


# -- gradient ------------------------------------------------------------------------------------

def _gradient_checks(self, spacing_size, dims, edge_order):
    s = _s()
    check(self.dtype is not s.uint8, "torch.gradient does not support uint8 input.")
    if spacing_size is not None and dims is None:
        check(spacing_size == self.dim(), lambda: (
            f"torch.gradient expected spacing to be unspecified, a scalar, or a list of length "
            f"equal to 'self.dim() = {self.dim()}', since dim argument was not given, but got a "
            f"list of length {spacing_size}"))
    if spacing_size is not None and dims is not None:
        check(spacing_size == len(dims), lambda: (
            f"torch.gradient expected spacing to be unspecified, a scalar or it's spacing and "
            f"dim arguments to have the same length, but got a spacing argument of length "
            f"{spacing_size} and a dim argument of length {len(dims)}."))
    check(edge_order in (1, 2), "torch.gradient only supports edge_order=1 and edge_order=2.")
    if dims is not None:
        seen = set()
        for d in dims:
            w = maybe_wrap_dim(d, self.dim())
            check(w not in seen, lambda w=w: (
                f"dim {w} appears multiple times in the list of dims"))
            seen.add(w)
        for d in dims:
            check(self.shape[d] >= edge_order + 1,
                  "torch.gradient expected each dimension size to be at least edge_order+1")
    else:
        for i in range(self.dim()):
            check(self.shape[i] >= edge_order + 1,
                  "torch.gradient expected each dimension size to be at least edge_order+1")


def _gradient_uniform(self, spacing, dims, edge_order):
    s = _s()
    out = []
    for i, d in enumerate(dims):
        d = maybe_wrap_dim(d, self.dim())
        h = spacing[i]
        center = (_narrow(self, d, 2) - _narrow(self, d, 0, -2)) / h
        if edge_order == 1:
            pre = (_narrow(self, d, 1, 2) - _narrow(self, d, 0, 1)) / h
            app = (_narrow(self, d, -1) - _narrow(self, d, -2, -1)) / h
        else:
            pre = (-1.5 * _narrow(self, d, 0, 1) + 2 * _narrow(self, d, 1, 2)
                   - 0.5 * _narrow(self, d, 2, 3)) / h
            app = (0.5 * _narrow(self, d, -3, -2) - 2 * _narrow(self, d, -2, -1)
                   + 1.5 * _narrow(self, d, -1)) / h
        out.append(s.cat([pre, center / 2, app], d))
    return tuple(out)


def _gradient_coords(self, coords, dims, edge_order):
    s = _s()
    for c in coords:
        check(self.device == c.device, lambda c=c: (
            f"torch.gradient expected each tensor to be on the same device, but got devices "
            f"{self.device} and {c.device}!"))
    out = []
    for i, d in enumerate(dims):
        c = coords[i]
        check(c.dim() == 1, lambda c=c: (
            f"torch.gradient expected each element of spacing to have one dimension, but got "
            f"an element with {c.dim()} dimensions!"))
        d = maybe_wrap_dim(d, self.dim())
        shape = [1] * self.dim()
        shape[d] = -1
        dx = c.diff(1, 0)
        dx1, dx2 = _narrow(dx, 0, 0, -1), _narrow(dx, 0, 1)
        a = (-dx2 / (dx1 * (dx1 + dx2))).reshape(shape)
        b = ((dx2 - dx1) / (dx1 * dx2)).reshape(shape)
        cc = (dx1 / (dx2 * (dx1 + dx2))).reshape(shape)
        center = a * _narrow(self, d, 0, -2) + b * _narrow(self, d, 1, -1) \
            + cc * _narrow(self, d, 2)
        if edge_order == 1:
            pre = (_narrow(self, d, 1, 2) - _narrow(self, d, 0, 1)) / dx[0]
            app = (_narrow(self, d, -1) - _narrow(self, d, -2, -1)) / dx[-1]
        else:
            a = -(2.0 * dx[0] + dx[1]) / (dx[0] * (dx[0] + dx[1]))
            b = (dx[0] + dx[1]) / (dx[0] * dx[1])
            cc = (-dx[0]) / (dx[1] * (dx[0] + dx[1]))
            pre = a * _narrow(self, d, 0, 1) + b * _narrow(self, d, 1, 2) \
                + cc * _narrow(self, d, 2, 3)
            a = dx[-1] / (dx[-2] * (dx[-1] + dx[-2]))
            b = -(dx[-1] + dx[-2]) / (dx[-1] * dx[-2])
            cc = (2 * dx[-1] + dx[-2]) / (dx[-1] * (dx[-1] + dx[-2]))
            app = a * _narrow(self, d, -3, -2) + b * _narrow(self, d, -2, -1) \
                + cc * _narrow(self, d, -1)
        out.append(s.cat([pre, center, app], d))
    return tuple(out)


def _all_dims(self, dim):
    return [dim] if dim is not None else list(range(self.dim()))


def gradient_scalarint(self, spacing=None, dim=None, edge_order=1):
    dims = _all_dims(self, dim)
    unit = spacing if spacing is not None else 1.0
    sp = [unit] * (1 if dim is not None else self.dim())
    _gradient_checks(self, len(sp) if spacing is not None else None,
                     dims if dim is not None else None, edge_order)
    return _gradient_uniform(self, sp, dims, edge_order)


def gradient_scalararray(self, spacing, dim, edge_order=1):
    sp = [spacing] * len(dim)
    _gradient_checks(self, len(sp), list(dim), edge_order)
    return _gradient_uniform(self, sp, list(dim), edge_order)


def gradient_array(self, dim, edge_order=1):
    sp = [1.0] * len(dim)
    _gradient_checks(self, len(sp), list(dim), edge_order)
    return _gradient_uniform(self, sp, list(dim), edge_order)


def gradient_scalarrayint(self, spacing, dim=None, edge_order=1):
    dims = _all_dims(self, dim)
    _gradient_checks(self, len(spacing), dims if dim is not None else None, edge_order)
    return _gradient_uniform(self, list(spacing), dims, edge_order)


def gradient_scalarrayarray(self, spacing, dim, edge_order=1):
    _gradient_checks(self, len(spacing), list(dim), edge_order)
    return _gradient_uniform(self, list(spacing), list(dim), edge_order)


def gradient_tensorarrayint(self, spacing, dim=None, edge_order=1):
    dims = _all_dims(self, dim)
    _gradient_checks(self, len(spacing), dims if dim is not None else None, edge_order)
    return _gradient_coords(self, list(spacing), dims, edge_order)


def gradient_tensorarray(self, spacing, dim, edge_order=1):
    _gradient_checks(self, len(spacing), list(dim), edge_order)
    return _gradient_coords(self, list(spacing), list(dim), edge_order)


# -- the trapezoid family -------------------------------------------------------------------------

def _zeros_except(y, dim):
    s = _s()
    sizes = list(y.shape)
    del sizes[maybe_wrap_dim(dim, y.dim())]
    return s.zeros(sizes, dtype=y.dtype, device=y.device)


def _padded_view(x, y, dim, name):
    if x.dim() == 1:
        check(x.shape[0] == y.shape[dim], (
            f"{name}: There must be one `x` value for each sample point"))
        sizes = [1] * y.dim()
        sizes[dim] = x.shape[0]
        return x.view(sizes)
    if x.dim() < y.dim():
        return x.view([1] * (y.dim() - x.dim()) + list(x.shape))
    return x


def trapezoid_x(y, x, dim=-1):
    dim = maybe_wrap_dim(dim, y.dim())
    if y.shape[dim] == 0:
        return _zeros_except(y, dim)
    s = _s()
    check(y.dtype is not s.bool and x.dtype is not s.bool, (
        "trapezoid: received a bool input for `x` or `y`, but bool is not supported"))
    xv = _padded_view(x, y, dim, "trapezoid")
    dx = _narrow(xv, dim, 1) - _narrow(xv, dim, 0, -1)
    left, right = _narrow(y, dim, 0, -1), _narrow(y, dim, 1)
    return _s().ops.aten.div.Scalar(((left + right) * dx).sum(dim), 2.0)


def _check_dx(dx, name):
    check(not isinstance(dx, (complex, bool)), (
        f"{name}: Currently, we only support dx as a real number."))


def trapezoid_dx(y, dx=1, dim=-1):
    if y.shape[dim] == 0:
        return _zeros_except(y, dim)
    s = _s()
    check(y.dtype is not s.bool, (
        "trapezoid: received a bool input for `y`, but bool is not supported"))
    _check_dx(dx, "trapezoid")
    mul = _s().ops.aten.mul.Scalar
    return mul(y.sum(dim) - mul(y.select(dim, 0) + y.select(dim, -1), 0.5), float(dx))


def trapz_x(y, x, dim=-1):
    return trapezoid_x(y, x, dim)


def trapz_dx(y, dx=1, dim=-1):
    return trapezoid_dx(y, dx, dim)


def cumulative_trapezoid_x(y, x, dim=-1):
    s = _s()
    dim = maybe_wrap_dim(dim, y.dim())
    check(y.dtype is not s.bool and x.dtype is not s.bool, (
        "cumulative_trapezoid: received a bool input for `x` or `y`, but bool is not "
        "supported"))
    xv = _padded_view(x, y, dim, "cumulative_trapezoid")
    dx = _narrow(xv, dim, 1) - _narrow(xv, dim, 0, -1)
    left, right = _narrow(y, dim, 0, -1), _narrow(y, dim, 1)
    return _s().ops.aten.div.Scalar(((left + right) * dx).cumsum(dim), 2.0)


def cumulative_trapezoid_dx(y, dx=1, dim=-1):
    s = _s()
    check(y.dtype is not s.bool, (
        "cumulative_trapezoid: received a bool input for `y`, but bool is not supported"))
    _check_dx(dx, "cumulative_trapezoid")
    left, right = _narrow(y, dim, 0, -1), _narrow(y, dim, 1)
    return _s().ops.aten.mul.Scalar(left + right, float(dx) / 2.0).cumsum(dim)


# -- histogram, histogramdd -----------------------------------------------------------------------

def _fmt(v: float) -> str:
    return f"{v:g}" if np.isfinite(v) else ("nan" if v != v else ("inf" if v > 0 else "-inf"))


def _hist_checks(self, bins_tensors, bin_cts, weight, range_):
    """torch's histogramdd_check_inputs (+ the dtype dispatch's error)."""
    D = self._sizes[-1] if self._sizes else 0
    check(len(self._sizes) >= 2, "torch.histogramdd: input tensor should have at least 2 "
                                 "dimensions")
    if bins_tensors is not None:
        check(len(bins_tensors) == D, "histogramdd: The size of bins must be equal to the "
                                      "innermost dimension of the input.")
        for i, b in enumerate(bins_tensors):
            check(b._dtype is self._dtype, lambda b=b, i=i: (
                f"torch.histogramdd: input tensor and bins tensors should have the same dtype, "
                f"but got input with dtype {self._dtype.name.replace('float32', 'float')} and "
                f"bins for dimension {i} with dtype "
                f"{b._dtype.name.replace('float32', 'float').replace('float64', 'double')}"))
            check(b.dim() == 1, lambda b=b, i=i: (
                f"torch.histogramdd: bins tensor should have one dimension, but got {b.dim()} "
                f"dimensions in the bins tensor for dimension {i}"))
            check(b.numel() > 0, lambda b=b, i=i: (
                f"torch.histogramdd: bins tensor should have at least 1 element, but got "
                f"{b.numel()} elements in the bins tensor for dimension {i}"))
    else:
        check(len(bin_cts) == D, "histogramdd: The size of bins must be equal to the innermost "
                                 "dimension of the input.")
        for i, b in enumerate(bin_cts):
            check(b > 0, lambda b=b, i=i: (
                f"torch.histogram(): bins must be > 0, but got {b} for dimension {i}"))
    if weight is not None:
        check(weight._dtype is self._dtype, lambda: (
            f"torch.histogramdd: if weight tensor is provided, input tensor and weight tensor "
            f"should have the same dtype, but got input({_cname(self._dtype)}), and "
            f"weight({_cname(weight._dtype)})"))
        check(weight._sizes == self._sizes[:-1], lambda: (
            f"torch.histogramdd: if weight tensor is provided it should have the same shape as "
            f"the input tensor excluding its innermost dimension, but got input with shape "
            f"{list(self._sizes)} and weight with shape {list(weight._sizes)}"))
    if range_ is not None:
        check(len(range_) == 2 * D, lambda: (
            f"torch.histogramdd: for a {D}-dimensional histogram range should have {2 * D} "
            f"elements, but got {len(range_)}"))
    if not self._dtype.is_floating_point or self._dtype.name in ("float16", "bfloat16"):
        raise NotImplementedError(
            f'"histogramdd" not implemented for \'{self._dtype._scalar_name}\'')


def _cname(d):
    return {"float32": "float", "float64": "double"}.get(d.name, d.name)


def _outer_edges(self, D, range_):
    """(leftmost, rightmost) per dimension (Note [Histogram bins])."""
    x = self._array().reshape((-1, D)) if not _is_meta(self) else None
    out = []
    for d in range(D):
        if range_ is not None:
            lo, hi = float(range_[2 * d]), float(range_[2 * d + 1])
        elif x is not None and x.shape[0]:
            col = x[:, d]
            lo, hi = float(np.min(col)), float(np.max(col))
        else:
            lo, hi = 0.0, 1.0 if x is not None else 0.0
        check(lo <= hi or lo != lo or hi != hi, lambda lo=lo, hi=hi, d=d: (
            f"torch.histogramdd: min should not exceed max, but got min {_fmt(lo)} max "
            f"{_fmt(hi)} for dimension {d}"))
        check(np.isfinite(lo) and np.isfinite(hi), lambda lo=lo, hi=hi, d=d: (
            f"torch.histogramdd: dimension {d}'s range [{_fmt(lo)}, {_fmt(hi)}] is not finite"))
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        out.append((lo, hi))
    return out


def _linspace_edges(lo, hi, n, dtype):
    s = _s()
    return s.linspace(lo, hi, n, dtype=dtype)


def _counts(self, edges, weight, density):
    """The D-dimensional histogram of the rows of ``self`` over ``edges`` (NumPy arrays)."""
    D = len(edges)
    x = self._array().reshape((-1, D))
    w = weight._array().reshape(-1) if weight is not None else None
    shape = tuple(len(e) - 1 for e in edges)
    keep = np.ones(x.shape[0], bool)
    idx = []
    for d, e in enumerate(edges):
        col = x[:, d]
        with np.errstate(invalid="ignore"):
            keep &= (col >= e[0]) & (col <= e[-1])
        i = np.searchsorted(e, col, side="right") - 1
        i = np.minimum(i, len(e) - 2)
        idx.append(i)
    hist = np.zeros(shape, x.dtype)
    if keep.any() and all(n > 0 for n in shape):
        flat = np.ravel_multi_index(tuple(i[keep] for i in idx), shape)
        vals = w[keep] if w is not None else None
        hist = np.bincount(flat, weights=vals, minlength=int(np.prod(shape))).astype(
            x.dtype).reshape(shape)
    if density:
        total = hist.sum()
        with np.errstate(all="ignore"):
            hist = hist / total
            for d, e in enumerate(edges):
                widths = np.diff(e).astype(x.dtype)
                view = [1] * D
                view[d] = -1
                hist = hist / widths.reshape(view)
    return hist


def histogramdd_bin_edges(self, bins, range=None, weight=None, density=False):
    _hist_checks(self, None, list(bins), weight, range)
    D = self._sizes[-1]
    if _is_meta(self):
        return tuple(_new((b + 1,), self._dtype, self._device) for b in bins)
    outer = _outer_edges(self, D, range)
    return tuple(_linspace_edges(lo, hi, b + 1, self._dtype) for (lo, hi), b in zip(outer, bins))


def _hist_result(self, shape):
    return _new(tuple(shape), self._dtype, self._device)


def histogramdd_from_bin_cts(self, bins, range=None, weight=None, density=False):
    edges = histogramdd_bin_edges(self, bins, range, weight, density)
    result = _hist_result(self, bins)
    if _is_meta(self):
        return result
    return _fill(result, _counts(self, [e._array() for e in edges], weight, density))


def histogramdd_from_bin_tensors(self, bins, weight=None, density=False):
    _hist_checks(self, list(bins), None, weight, None)
    result = _hist_result(self, [b.numel() - 1 for b in bins])
    if _is_meta(self):
        return result
    return _fill(result, _counts(self, [b._array() for b in bins], weight, density))


def _as_2d(self):
    return self.reshape(-1, 1)


def histogram_bins_tensor(self, bins, weight=None, density=False):
    x = _as_2d(self)
    w = weight.reshape(-1) if weight is not None and weight._sizes == self._sizes else weight
    hist = histogramdd_from_bin_tensors(x, [bins], w, density)
    edges = _new(bins._sizes, bins._dtype, bins._device)
    if not _is_meta(bins):
        _fill(edges, bins._array())
    return hist, edges


def histogram_bin_ct(self, bins=100, range=None, weight=None, density=False):
    x = _as_2d(self)
    w = weight.reshape(-1) if weight is not None and weight._sizes == self._sizes else weight
    check(range is None or len(range) == 2, lambda: (
        f"torch.histogramdd: for a 1-dimensional histogram range should have 2 elements, but "
        f"got {len(range)}"))
    edges = histogramdd_bin_edges(x, [bins], range, w, density)[0]
    hist = _hist_result(x, [bins])
    if not _is_meta(self):
        _fill(hist, _counts(x, [edges._array()], w, density))
    return hist, edges


def histogram_bins_tensor_out(self, bins, weight=None, density=False, hist=None,
                              bin_edges=None):
    return _copy_outs((hist, bin_edges), histogram_bins_tensor(self, bins, weight, density))


def histogram_bin_ct_out(self, bins=100, range=None, weight=None, density=False, hist=None,
                         bin_edges=None):
    return _copy_outs((hist, bin_edges), histogram_bin_ct(self, bins, range, weight, density))


def histogramdd_composite(self, bins, range=None, weight=None, density=False):
    s = _s()
    edges = s.ops.aten._histogramdd_bin_edges(self, list(bins), range=range, weight=weight,
                                              density=density)
    hist = s.ops.aten._histogramdd_from_bin_cts(self, list(bins), range=range, weight=weight,
                                                density=density)
    return hist, tuple(edges)


def histogramdd_int_bins(self, bins, range=None, weight=None, density=False):
    D = self._sizes[-1] if self._sizes else 0
    return histogramdd_composite(self, [bins] * D, range, weight, density)


def histogramdd_tensorlist_bins(self, bins, range=None, weight=None, density=False):
    s = _s()
    hist = s.ops.aten._histogramdd_from_bin_tensors(self, list(bins), weight=weight,
                                                    density=density)
    return hist, tuple(bins)
