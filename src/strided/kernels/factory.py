"""Factory kernels: allocate a storage, wrap it in a tensor, fill it.

Each backend kernel takes the schema's arguments in order. ``dtype=None`` and
``device=None`` mean torch's defaults (the default float dtype, the CPU).
"""

from __future__ import annotations

import math

import numpy as np

from ..core import dtypes as dt
from ..core import layouts
from ..core.allocator import get_allocator
from ..core.checks import check
from ..core.devices import CPU
from ..core.storage import UntypedStorage
from ..core.tensor_impl import compute_is_contiguous, contiguous_strides, make_tensor, numel_of
from .copy import copy_
from .memory_overlap import is_non_overlapping_and_dense
from .resize import resize_output
from .scalars import check_scalar_fits, scalar_dtype

_alloc_of = {}


def _allocator(device):
    a = _alloc_of.get(device)
    if a is None:
        a = _alloc_of[device] = get_allocator(device.type)
    return a


def _check_sizes(size):
    for s in size:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: "
                               f"{list(size)}")


def _check_layout(layout):
    check(layout is None or layout is layouts.strided,
          lambda: f"strided supports only the strided layout, got {layout}")


def new_strided(size, stride, dtype, device):
    """Allocate a tensor with the given (sizes, strides); nothing is initialised."""
    dtype = dtype or dt._default_dtype[0]
    device = device or CPU
    nbytes = 0
    if 0 not in size:
        extent = 1
        for s, st in zip(size, stride):
            extent += (s - 1) * st
        nbytes = extent * dtype.itemsize
    storage = UntypedStorage._new(nbytes, device, _allocator(device))
    return make_tensor(storage, size, stride, 0, dtype)


def empty(size, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None):
    if type(size) is not tuple:
        size = tuple(size)
    numel = 1
    for s in size:
        if s < 0:
            _check_sizes(size)
        numel *= s
    if layout is not None:
        _check_layout(layout)
    dtype = dtype or dt._default_dtype[0]
    device = device or CPU
    storage = UntypedStorage._new(numel * dtype.itemsize, device, _allocator(device))
    return make_tensor(storage, size, contiguous_strides(size), 0, dtype)


def empty_out(size, memory_format, out):
    resize_output(out, tuple(size))
    return out


def empty_strided(size, stride, dtype=None, layout=None, device=None, pin_memory=None):
    check(len(size) == len(stride), lambda: "mismatch in length of strides and shape")
    _check_sizes(size)
    _check_layout(layout)
    return new_strided(tuple(size), tuple(stride), dtype, device)


def zeros(size, dtype=None, layout=None, device=None, pin_memory=None):
    t = empty(size, dtype, layout, device, pin_memory)
    buf = t._storage._buf
    if buf is not None:
        buf.fill(0)
    return t


def ones(size, dtype=None, layout=None, device=None, pin_memory=None):
    return fill_(empty(size, dtype, layout, device, pin_memory), 1)


def full(size, fill_value, dtype=None, layout=None, device=None, pin_memory=None):
    if dtype is None:
        dtype = scalar_dtype(fill_value)
    return fill_(empty(size, dtype, layout, device, pin_memory), fill_value)


def _filled_out(out, size, value):
    resize_output(out, tuple(size))
    return fill_(out, value)


def zeros_out(size, out):
    return _filled_out(out, size, 0)


def ones_out(size, out):
    return _filled_out(out, size, 1)


def full_out(size, fill_value, out):
    return _filled_out(out, size, fill_value)


def scalar_tensor(s, dtype=None, layout=None, device=None, pin_memory=None):
    return fill_(empty((), dtype, layout, device, pin_memory), s)


# -- *_like and new_* -------------------------------------------------------------------------

def preserved_strides(sizes, strides) -> tuple:
    """torch's preserve_format: keep the strides of a non-overlapping and dense tensor,
    otherwise lay the dims out densely in the order of the input's strides.

    The order comes from an insertion sort, innermost dim first, starting from
    row-major order. A dim moves outwards past another only when its stride is larger
    (or equal, with a larger size); a zero stride (a broadcast dim) compares with
    nothing, so such dims keep their row-major place and the scan goes on past them."""
    if is_non_overlapping_and_dense(sizes, strides):
        return tuple(strides)
    ndim = len(sizes)
    perm = list(range(ndim - 1, -1, -1))   # perm[0] is the innermost dim

    def outer_first(d0, d1):   # 1: d0 belongs outside d1; -1: inside; 0: undecided
        s0, s1 = strides[d0], strides[d1]
        if s0 == 0 or s1 == 0:
            return 0
        if s0 != s1:
            return 1 if s0 > s1 else -1
        return 1 if sizes[d0] > sizes[d1] else 0

    for i in range(1, ndim):
        j = i
        for k in range(i - 1, -1, -1):
            order = outer_first(perm[k], perm[j])
            if order > 0:
                perm[k], perm[j] = perm[j], perm[k]
                j = k
            elif order < 0:
                break
    out = [0] * ndim
    acc = 1
    for d in perm:
        out[d] = acc
        if sizes[d] > 1:
            acc *= sizes[d]
    return tuple(out)


def empty_like(self, dtype=None, layout=None, device=None, pin_memory=None,
               memory_format=None):
    _check_layout(layout)
    dtype = dtype or self._dtype
    device = device or self._device
    sizes = self._sizes
    if memory_format is None or memory_format is layouts.preserve_format:
        strides = preserved_strides(sizes, self._strides)
        if strides == contiguous_strides(sizes):
            return empty(sizes, dtype, None, device)
        return new_strided(sizes, strides, dtype, device)
    check(memory_format is layouts.contiguous_format, lambda: (
        f"strided does not support memory format {memory_format} yet"))
    return empty(sizes, dtype, None, device)


def zeros_like(self, dtype=None, layout=None, device=None, pin_memory=None,
               memory_format=None):
    return fill_(empty_like(self, dtype, layout, device, pin_memory, memory_format), 0)


def ones_like(self, dtype=None, layout=None, device=None, pin_memory=None,
              memory_format=None):
    return fill_(empty_like(self, dtype, layout, device, pin_memory, memory_format), 1)


def full_like(self, fill_value, dtype=None, layout=None, device=None, pin_memory=None,
              memory_format=None):
    return fill_(empty_like(self, dtype, layout, device, pin_memory, memory_format), fill_value)


def new_empty(self, size, dtype=None, layout=None, device=None, pin_memory=None):
    return empty(size, dtype or self._dtype, layout, device or self._device)


def new_empty_strided(self, size, stride, dtype=None, layout=None, device=None,
                      pin_memory=None):
    return empty_strided(size, stride, dtype or self._dtype, layout, device or self._device)


def new_zeros(self, size, dtype=None, layout=None, device=None, pin_memory=None):
    return zeros(size, dtype or self._dtype, layout, device or self._device)


def new_ones(self, size, dtype=None, layout=None, device=None, pin_memory=None):
    return ones(size, dtype or self._dtype, layout, device or self._device)


def new_full(self, size, fill_value, dtype=None, layout=None, device=None, pin_memory=None):
    return full(size, fill_value, dtype or self._dtype, layout, device or self._device)


# -- fills and copies -------------------------------------------------------------------------

def fill_(self, value):
    check_scalar_fits(value, self._dtype)
    if self._storage._buf is not None and numel_of(self._sizes):
        arr = self._array()
        if type(value) is complex and not self._dtype.is_complex:
            value = value.real
        arr.fill(value)
    self._vc[0] += 1
    return self


def fill_tensor_(self, value):
    check(value.dim() == 0, lambda: (
        f"fill_ only supports 0-dimension value tensor but got tensor with "
        f"{value.dim()} dimensions."))
    return fill_(self, value.item())


def zero_(self):
    return fill_(self, 0)


def clone(self, memory_format=None):
    out = empty_like(self, None, None, None, None, memory_format)
    return copy_(out, self)


def contiguous(self, memory_format=layouts.contiguous_format):
    if compute_is_contiguous(self._sizes, self._strides):
        return self
    return clone(self, layouts.contiguous_format)


def to_copy(self, dtype=None, layout=None, device=None, pin_memory=None, non_blocking=False,
            memory_format=None):
    if self._device.type == "meta" and device is not None and device.type != "meta":
        raise NotImplementedError("Cannot copy out of meta tensor; no data!")
    out = empty_like(self, dtype, layout, device, pin_memory, memory_format)
    return copy_(out, self)


def to_dtype_layout(self, dtype=None, layout=None, device=None, pin_memory=None,
                    non_blocking=False, copy=False, memory_format=None):
    same = ((dtype is None or dtype is self._dtype) and (device is None or device ==
            self._device) and (memory_format is None or memory_format is
                               layouts.preserve_format))
    if same and not copy:
        return self
    return to_copy(self, dtype, layout, device, pin_memory, non_blocking, memory_format)


def local_scalar_dense(self):
    check(self._device.type != "meta", "Tensor.item() cannot be called on meta tensors")
    n = numel_of(self._sizes)
    check(n == 1, lambda: f"a Tensor with {n} elements cannot be converted to Scalar")
    value = self._array().reshape(-1)[0]
    if self._dtype is dt.bfloat16 or self._dtype is dt.float16:
        return float(value)
    return value.item()


# -- ranges -----------------------------------------------------------------------------------

def _is_float(*scalars) -> bool:
    return any(isinstance(s, float) for s in scalars)


def arange_start_out(start, end, step, out):
    for name, v in (("start", start), ("end", end), ("step", step)):
        check(not isinstance(v, complex), "arange: complex arguments are not supported")
        check(math.isfinite(v), f"unsupported range: {start} -> {end}")
    check(step != 0, "step must be nonzero")
    check((step > 0 and end >= start) or (step < 0 and end <= start),
          "upper bound and larger bound inconsistent with step sign")
    dtype = out._dtype
    if dtype.is_floating_point or _is_float(start, end, step):
        length = math.ceil((end - start) / step)
    else:
        length = (end - start + step - (1 if step > 0 else -1)) // step
    check(length >= 0, lambda: "invalid size, possible overflow?")
    resize_output(out, (length,))
    if out._storage._buf is not None and length:
        if dtype.is_floating_point or dtype.is_complex:
            values = np.arange(length, dtype=np.float64) * float(step) + float(start)
        else:
            values = np.arange(length, dtype=np.int64) * int(step) + int(start)
        np.copyto(out._array(), values, casting="unsafe")
    out._vc[0] += 1
    return out


def arange_start_step(start, end, step=1, dtype=None, layout=None, device=None,
                      pin_memory=None):
    if dtype is None:
        dtype = dt._default_dtype[0] if _is_float(start, end, step) else dt.int64
    out = empty((0,), dtype, layout, device)
    return arange_start_out(start, end, step, out)


def arange(end, dtype=None, layout=None, device=None, pin_memory=None):
    return arange_start_step(0, end, 1, dtype, layout, device, pin_memory)


def arange_start(start, end, dtype=None, layout=None, device=None, pin_memory=None):
    return arange_start_step(start, end, 1, dtype, layout, device, pin_memory)


def arange_out(end, out):
    return arange_start_out(0, end, 1, out)


def _linspace_values(start, end, steps, np_dtype):
    """torch's formula: the first half counts up from start, the second half down from end."""
    idx = np.arange(steps, dtype=np.float64)
    if steps == 1:
        return np.array([start], dtype=np_dtype)
    work = np_dtype if np_dtype.kind in "fc" and np_dtype.itemsize >= 4 else np.dtype(
        np.float64 if np_dtype.kind not in "c" else np.complex128)
    start_w = np.asarray(start, dtype=work)
    end_w = np.asarray(end, dtype=work)
    step = (end_w - start_w) / np.asarray(steps - 1, dtype=work)
    half = steps // 2
    idx = idx.astype(work)
    values = np.where(np.arange(steps) < half, start_w + step * idx,
                      end_w - step * (np.asarray(steps - 1, dtype=work) - idx))
    return values


def linspace_out(start, end, steps, out):
    check(steps >= 0, "number of steps must be non-negative")
    resize_output(out, (steps,))
    if out._storage._buf is not None and steps:
        np.copyto(out._array(), _linspace_values(start, end, steps, out._dtype.np),
                  casting="unsafe")
    out._vc[0] += 1
    return out


def linspace(start, end, steps, dtype=None, layout=None, device=None, pin_memory=None):
    if dtype is None:
        dtype = dt.default_complex_dtype() if isinstance(start, complex) or isinstance(
            end, complex) else dt._default_dtype[0]
    return linspace_out(start, end, steps, empty((0,), dtype, layout, device))


def logspace_out(start, end, steps, base, out):
    check(steps >= 0, "number of steps must be non-negative")
    resize_output(out, (steps,))
    if out._storage._buf is not None and steps:
        exps = _linspace_values(start, end, steps, np.dtype(np.float64))
        np.copyto(out._array(), np.power(float(base), exps), casting="unsafe")
    out._vc[0] += 1
    return out


def logspace(start, end, steps, base=10.0, dtype=None, layout=None, device=None,
             pin_memory=None):
    dtype = dtype or dt._default_dtype[0]
    return logspace_out(start, end, steps, base, empty((0,), dtype, layout, device))


def eye_m_out(n, m, out):
    check(n >= 0, lambda: f"n must be greater or equal to 0, got {n}")
    check(m >= 0, lambda: f"m must be greater or equal to 0, got {m}")
    resize_output(out, (n, m))
    fill_(out, 0)
    if out._storage._buf is not None and n and m:
        arr = out._array()
        k = min(n, m)
        arr[np.arange(k), np.arange(k)] = 1
    return out


def eye_out(n, out):
    return eye_m_out(n, n, out)


def eye_m(n, m, dtype=None, layout=None, device=None, pin_memory=None):
    check(n >= 0, lambda: f"n must be greater or equal to 0, got {n}")
    check(m >= 0, lambda: f"m must be greater or equal to 0, got {m}")
    return eye_m_out(n, m, empty((n, m), dtype, layout, device))


def eye(n, dtype=None, layout=None, device=None, pin_memory=None):
    return eye_m(n, n, dtype, layout, device, pin_memory)
