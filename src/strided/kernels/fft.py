"""Discrete Fourier transforms: torch.fft, stft / istft and the window factories.

Note [The three FFT primitives]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
torch computes every transform with three aten operators, and so do we:

- ``_fft_r2c(self, dim, normalization, onesided)``: real -> complex, forward; with
  ``onesided`` the last of ``dim`` keeps only its ``n // 2 + 1`` non-redundant bins;
- ``_fft_c2r(self, dim, normalization, last_dim_size)``: the inverse of a onesided r2c
  (a Hermitian half-spectrum -> real signal of ``last_dim_size`` along the last dim);
- ``_fft_c2c(self, dim, normalization, forward)``: complex -> complex, either direction.

``normalization`` is torch's ``fft_norm_mode``: 0 none, 1 by ``1/sqrt(n)``, 2 by ``1/n``,
``n`` being the product of the signal sizes. The kernels run NumPy's pocketfft in the
input's precision (NumPy >= 2 transforms float32 natively) and carry the derivatives; the
public functions (``fft_fft``, ``fft_rfftn``...) are composites over them, as torch's are,
so a graph records torch's nodes: ``fft.ifft`` of a real tensor is ``_fft_r2c`` followed
by ``conj`` (ConjBackward0), ``n`` larger than the input pads (ConstantPadNdBackward0),
smaller slices (SliceBackward0).

Note [FFT output layout]
~~~~~~~~~~~~~~~~~~~~~~~~
torch's CPU kernels (MKL) permute the input so that the dims not transformed come first,
ordered by decreasing input stride, followed by the transformed dims, and write the output
row-major in that order. ``fft.fft(x, dim=0)`` of a contiguous (3, 4, 5) tensor thus has
strides (1, 15, 3). The transformed dims of c2c (and all but the last of r2c) are first
sorted by decreasing input stride. A multi-dim c2r runs a c2c over the leading dims first
and takes its batch order from that intermediate. We allocate the same strides.

Note [Four-step FFT]
~~~~~~~~~~~~~~~~~~~~
pocketfft transforms one long 1-d signal (a million points) several times slower than a
batch of short ones of the same total size: the long transform's passes miss the cache.
A length ``N = N1 * N2`` transform is a batch of ``N2`` transforms of length ``N1`` (down
the columns of the signal viewed as an ``N1 x N2`` matrix), a pointwise multiply by the
twiddle factors ``exp(-+2 pi i k1 n2 / N)``, and a batch of ``N1`` transforms of length
``N2`` along the rows; the result is read out column-major. 1-d complex transforms of at
least 2^17 points whose length has a divisor of at least 32 up to its square root take that
path (n1 that divisor).

Note [complex64 transforms in complex128]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
NumPy's pocketfft runs its complex64 loops at about half the speed of its complex128 ones,
so complex64 c2c transforms (and the c2c axes of multi-dim r2c / c2r) run in complex128 and
are rounded once into the result: faster even with the two conversions, and closer to the
exact transform than torch's float32 arithmetic (results agree with torch's to float32
rounding, not bit for bit). The real float32 r2c / c2r loops have no such penalty.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from ..core import dtypes as dt
from ..core.checks import check, maybe_wrap_dim
from ..core.tensor_impl import numel_of
from .copy import copy_array
from .factory import new_strided
from .resize import resize_output

__all__: list = []   # the kernels are looked up by name (kernels/__init__.py)

_NONE, _BY_ROOT_N, _BY_N = 0, 1, 2


def _S():
    import strided
    return strided


def _is_meta(*tensors) -> bool:
    return any(t._device.type == "meta" for t in tensors)


# -- output layout (Note [FFT output layout]) -----------------------------------------------

def _sorted_dims(strides, dims, exclude_last=False):
    dims = list(dims)
    end = len(dims) - int(exclude_last)
    dims[:end] = sorted(dims[:end], key=lambda d: strides[d], reverse=True)
    return dims


def _exec_strides(in_strides, out_sizes, dims):
    """Strides of a transform's output over ``dims`` of an input with ``in_strides``."""
    ndim = len(out_sizes)
    tset = set(dims)
    batch = sorted((d for d in range(ndim) if d not in tset), key=lambda d: in_strides[d],
                   reverse=True)
    strides = [0] * ndim
    acc = 1
    for d in reversed(dims):
        strides[d] = acc
        acc *= max(1, out_sizes[d])
    signal = acc
    numel = 1
    for d in reversed(batch):
        strides[d] = numel * signal
        numel *= out_sizes[d]
    return tuple(strides)


def _c2r_strides(self, dims, out_sizes):
    strides = self._strides
    if len(dims) > 1:
        lead = _sorted_dims(strides, dims[:-1])
        strides = _exec_strides(strides, self._sizes, lead)
    return _exec_strides(strides, out_sizes, [dims[-1]])


# -- NumPy execution --------------------------------------------------------------------------

def _np_norm(normalization, forward):
    """torch's norm mode -> NumPy's ``norm`` for a transform in that direction."""
    if normalization == _BY_ROOT_N:
        return "ortho"
    scaled = normalization == _BY_N
    if forward:
        return "forward" if scaled else "backward"
    return "backward" if scaled else "forward"


def _check_batch(self):
    # MKL refuses a descriptor with a zero batch (torch's CPU message)
    check(numel_of(self._sizes) != 0, "MKL FFT error: Intel oneMKL DFTI ERROR: Inconsistent "
          "configuration parameters")


_twiddles: dict = {}
_FOUR_STEP_MIN = 1 << 17
_ROW_PAD = 8
_four_step_cache: dict = {}


def _four_step_split(n):
    """A factor pair (n1, n2) of ``n`` with n1 the largest divisor up to sqrt(n), or None
    when ``n`` is small or has no divisor large enough to make both passes batches."""
    if n < _FOUR_STEP_MIN:
        return None
    n1 = _four_step_cache.get(n)
    if n1 is None:
        n1 = math.isqrt(n)
        while n % n1:
            n1 -= 1
        _four_step_cache[n] = n1
    return (n1, n // n1) if n1 >= 32 else None


def _twiddle(n1, n2, forward, np_dtype):
    key = (n1, n2, forward, np_dtype)
    tw = _twiddles.get(key)
    if tw is None:
        k1 = np.arange(n1, dtype=np.float64)[:, None]
        j2 = np.arange(n2, dtype=np.float64)[None, :]
        sign = -2.0 if forward else 2.0
        tw = np.exp(1j * (sign * np.pi / (n1 * n2)) * (k1 * j2)).astype(np_dtype)
        if len(_twiddles) > 8:
            _twiddles.clear()
        _twiddles[key] = tw
    return tw


def _c2c_1d_four_step(a, out, n1, n2, forward, norm):
    """``out[:] = fft(a)`` of a 1-d ``a`` by Note [Four-step FFT], in complex128. The
    matrix rows are padded by a few elements: a power-of-two row stride would map a
    column's elements onto the same cache sets."""
    fn = np.fft.fft if forward else np.fft.ifft
    work = np.empty((n1, n2 + _ROW_PAD), np.complex128)[:, :n2]
    np.copyto(work, a.reshape(n1, n2))
    cols = fn(work, axis=0, norm=norm, out=work)              # [k1, j2]
    cols *= _twiddle(n1, n2, forward, np.dtype(np.complex128))
    rows = fn(cols, axis=1, norm=norm, out=cols)              # [k1, k2]
    np.copyto(out.reshape(n2, n1), rows.T, casting="unsafe")


def _run_c2c(x, out, dims, normalization, forward):
    """``out[:] = `` the c2c transform of ``x`` over ``dims`` (Note [Four-step FFT], Note
    [complex64 transforms in complex128])."""
    norm = _np_norm(normalization, forward)
    if len(dims) == 1 and x.ndim == 1 and out.flags.c_contiguous:
        split = _four_step_split(x.shape[0])
        if split is not None:
            _c2c_1d_four_step(x, out, split[0], split[1], forward, norm)
            return
    target = out
    if x.dtype == np.complex64:
        x = x.astype(np.complex128)
        target = np.empty(out.shape, np.complex128)
    if len(dims) == 1:
        (np.fft.fft if forward else np.fft.ifft)(x, axis=dims[0], norm=norm, out=target)
    else:
        (np.fft.fftn if forward else np.fft.ifftn)(x, axes=dims, norm=norm, out=target)
    if target is not out:
        np.copyto(out, target, casting="unsafe")


# -- the primitives ----------------------------------------------------------------------------

def _check_complex(self):
    check(self._dtype.is_complex, lambda: (
        f"Only supports complex dtypes, but found: {self._dtype._scalar_name}"))
    check(self._dtype is not dt.complex32, "MKL FFT doesn't support tensors of type: Half")


def _check_real(self):
    check(self._dtype.is_floating_point, lambda: (
        f"Only supports floating-point dtypes, but found: {self._dtype._scalar_name}"))
    check(self._dtype in (dt.float32, dt.float64), lambda: (
        f"MKL FFT doesn't support tensors of type: {self._dtype._scalar_name}"))


def _wrap_dims(dims, ndim):
    return [maybe_wrap_dim(d, ndim, wrap_scalar=False) for d in dims]


def fft_c2c_kernel(self, dim, normalization, forward):
    _check_complex(self)
    dims = _wrap_dims(dim, self.dim())
    if not dims:
        return self.clone()
    dims = _sorted_dims(self._strides, dims)
    out = new_strided(self._sizes, _exec_strides(self._strides, self._sizes, dims),
                      self._dtype, self._device)
    if _is_meta(self):
        return out
    _check_batch(self)
    _run_c2c(self._array(), out._array(), dims, normalization, forward)
    return out


def fft_r2c_kernel(self, dim, normalization, onesided):
    _check_real(self)
    dims = _wrap_dims(dim, self.dim())
    sizes = list(self._sizes)
    if onesided:
        sizes[dims[-1]] = sizes[dims[-1]] // 2 + 1
    sizes = tuple(sizes)
    dims = _sorted_dims(self._strides, dims, exclude_last=True)
    out = new_strided(sizes, _exec_strides(self._strides, sizes, dims), self._dtype.to_complex(),
                      self._device)
    if _is_meta(self):
        return out
    _check_batch(self)
    x, o = self._array(), out._array()
    norm = _np_norm(normalization, True)
    if len(dims) == 1 and not onesided:
        _r2c_two_sided(x, o, dims[0], norm)
    elif len(dims) == 1:
        np.fft.rfft(x, axis=dims[0], norm=norm, out=o)
    elif onesided:
        # the last dim's r2c, then the c2c of the others in complex128
        # (Note [complex64 transforms in complex128])
        half = np.fft.rfft(x, axis=dims[-1], norm=norm).astype(np.complex128, copy=False)
        np.fft.fftn(half, axes=dims[:-1], norm=norm, out=half)
        np.copyto(o, half, casting="unsafe")
    else:
        _run_c2c(x.astype(o.dtype), o, dims, normalization, True)
    return out


def _r2c_two_sided(x, o, d, norm):
    """The full spectrum of a real signal: its onesided r2c, and the upper bins filled by
    Hermitian symmetry (``X[n - k] = conj(X[k])``), as torch's CPU kernel fills them."""
    n = x.shape[d]
    h = n // 2 + 1

    def along(sl):
        index = [slice(None)] * x.ndim
        index[d] = sl
        return tuple(index)
    np.fft.rfft(x, axis=d, norm=norm, out=o[along(slice(0, h))])
    if n > h:
        np.conjugate(o[along(slice(n - h, 0, -1))], out=o[along(slice(h, n))])


def fft_c2r_kernel(self, dim, normalization, last_dim_size):
    _check_complex(self)
    dims = _wrap_dims(dim, self.dim())
    sizes = list(self._sizes)
    sizes[dims[-1]] = last_dim_size
    sizes = tuple(sizes)
    out = new_strided(sizes, _c2r_strides(self, dims, sizes), self._dtype.to_real(),
                      self._device)
    if _is_meta(self):
        return out
    _check_batch(self)
    norm = _np_norm(normalization, False)
    x, o = self._array(), out._array()
    if len(dims) == 1:
        np.fft.irfft(x, n=last_dim_size, axis=dims[0], norm=norm, out=o)
    elif x.dtype == np.complex64:
        # Note [complex64 transforms in complex128]: the leading c2c axes dominate
        y = np.fft.irfftn(x.astype(np.complex128), s=[sizes[d] for d in dims], axes=dims,
                          norm=norm)
        np.copyto(o, y, casting="unsafe")
    else:
        np.fft.irfftn(x, s=[sizes[d] for d in dims], axes=dims, norm=norm, out=o)
    return out


def _into_out(out, result):
    resize_output(out, result._sizes)
    if not _is_meta(out, result) and numel_of(result._sizes):
        copy_array(out._array(), result._array())
    out._vc[0] += 1
    return out


def fft_c2c_out_kernel(self, dim, normalization, forward, out):
    return _into_out(out, fft_c2c_kernel(self, dim, normalization, forward))


def fft_r2c_out_kernel(self, dim, normalization, onesided, out):
    return _into_out(out, fft_r2c_kernel(self, dim, normalization, onesided))


def fft_c2r_out_kernel(self, dim, normalization, last_dim_size, out):
    return _into_out(out, fft_c2r_kernel(self, dim, normalization, last_dim_size))


# -- torch.fft: the composites -------------------------------------------------------------------

def _promote(t, require_complex=False):
    """torch's promote_type_fft: ints to the default float dtype; only float32/float64 (and
    their complex types) transform on the CPU."""
    d = t.dtype
    if d.is_complex:
        return t
    if not d.is_floating_point:
        d = dt._default_dtype[0]
    check(d in (dt.float32, dt.float64), lambda: f"Unsupported dtype {d._scalar_name}")
    if require_complex:
        d = d.to_complex()
    return t if d is t.dtype else t.to(d)


def _norm_mode(norm, forward):
    if norm is None or norm == "backward":
        return _NONE if forward else _BY_N
    if norm == "forward":
        return _BY_N if forward else _NONE
    if norm == "ortho":
        return _BY_ROOT_N
    raise RuntimeError(f'Invalid normalization mode: "{norm}"')


def _resize_input(x, dims, sizes):
    """Zero-pad or slice ``x`` so that ``x.size(dims[i]) == sizes[i]`` (-1: leave)."""
    shape = x.shape
    pad = [0] * (2 * len(shape))
    padded = False
    for d, n in zip(dims, sizes):
        if n == -1:
            continue
        if shape[d] < n:
            padded = True
            pad[len(pad) - 2 * d - 1] = n - shape[d]
        if shape[d] > n:
            x = _S().ops.aten.slice.Tensor(x, d, 0, n)
    return _S().constant_pad_nd(x, pad) if padded else x


def _check_out_complex(fname, out):
    check(out is None or out.dtype.is_complex, lambda: (
        f"{fname} expects a complex output tensor, but got {out.dtype._scalar_name}"))


def _check_out_real(fname, out):
    check(out is None or out.dtype.is_floating_point, lambda: (
        f"{fname} expects a floating point output tensor, but got {out.dtype._scalar_name}"))


def _call(name, *args, out=None):
    fn = getattr(_S(), name)
    return fn(*args) if out is None else fn(*args, out=out)


def _c2c_maybe_out(fname, out, x, dims, mode, forward):
    _check_out_complex(fname, out)
    return _call("_fft_c2c", x, dims, mode, forward, out=out)


def _r2c_maybe_out(fname, out, x, dims, mode, onesided):
    _check_out_complex(fname, out)
    return _call("_fft_r2c", x, dims, mode, onesided, out=out)


def _c2r_maybe_out(fname, out, x, dims, mode, last_dim_size):
    _check_out_real(fname, out)
    return _call("_fft_c2r", x, dims, mode, last_dim_size, out=out)


def _fft_c2r(fname, out, x, n, dim, norm, forward):
    _check_out_real(fname, out)
    x = _promote(x, require_complex=True)
    d = maybe_wrap_dim(dim, x.dim(), wrap_scalar=False)
    size = n if n is not None else 2 * (x.shape[d] - 1)
    check(size >= 1, lambda: f"Invalid number of data points ({size}) specified")
    if n is not None:
        x = _resize_input(x, [d], [size // 2 + 1])
    mode = _norm_mode(norm, forward)
    if forward:
        x = x.conj()
    return _c2r_maybe_out(fname, out, x, [d], mode, size)


def _fft_r2c(fname, out, x, n, dim, norm, forward, onesided):
    check(not x.dtype.is_complex, lambda: (
        f"{fname} expects a real input tensor, but got {x.dtype._scalar_name}"))
    _check_out_complex(fname, out)
    x = _promote(x)
    d = maybe_wrap_dim(dim, x.dim(), wrap_scalar=False)
    size = n if n is not None else x.shape[d]
    check(size >= 1, lambda: f"Invalid number of data points ({size}) specified")
    if n is not None:
        x = _resize_input(x, [d], [size])
    mode = _norm_mode(norm, forward)
    if forward:
        return _call("_fft_r2c", x, [d], mode, onesided, out=out)
    ret = _S()._fft_r2c(x, [d], mode, onesided)
    return ret.conj() if out is None else _into_out(out, _S().conj_physical(ret))


def _fft_c2c(fname, out, x, n, dim, norm, forward):
    check(x.dtype.is_complex, lambda: (
        f"{fname} expects a complex input tensor, but got {x.dtype._scalar_name}"))
    d = maybe_wrap_dim(dim, x.dim(), wrap_scalar=False)
    size = n if n is not None else x.shape[d]
    check(size >= 1, lambda: f"Invalid number of data points ({size}) specified")
    if n is not None:
        x = _resize_input(x, [d], [size])
    return _c2c_maybe_out(fname, out, x, [d], _norm_mode(norm, forward), forward)


def fft_fft_composite(self, n=None, dim=-1, norm=None):
    if self.dtype.is_complex:
        return _fft_c2c("fft", None, self, n, dim, norm, True)
    return _fft_r2c("fft", None, self, n, dim, norm, True, False)


def fft_fft_out_composite(self, n=None, dim=-1, norm=None, out=None):
    if self.dtype.is_complex:
        _fft_c2c("fft", out, self, n, dim, norm, True)
    else:
        _fft_r2c("fft", out, self, n, dim, norm, True, False)
    return out


def fft_ifft_composite(self, n=None, dim=-1, norm=None):
    if self.dtype.is_complex:
        return _fft_c2c("ifft", None, self, n, dim, norm, False)
    return _fft_r2c("ifft", None, self, n, dim, norm, False, False)


def fft_ifft_out_composite(self, n=None, dim=-1, norm=None, out=None):
    if self.dtype.is_complex:
        _fft_c2c("ifft", out, self, n, dim, norm, False)
    else:
        _fft_r2c("ifft", out, self, n, dim, norm, False, False)
    return out


def fft_rfft_composite(self, n=None, dim=-1, norm=None):
    return _fft_r2c("rfft", None, self, n, dim, norm, True, True)


def fft_rfft_out_composite(self, n=None, dim=-1, norm=None, out=None):
    _fft_r2c("rfft", out, self, n, dim, norm, True, True)
    return out


def fft_irfft_composite(self, n=None, dim=-1, norm=None):
    return _fft_c2r("irfft", None, self, n, dim, norm, False)


def fft_irfft_out_composite(self, n=None, dim=-1, norm=None, out=None):
    _fft_c2r("irfft", out, self, n, dim, norm, False)
    return out


def fft_hfft_composite(self, n=None, dim=-1, norm=None):
    return _fft_c2r("hfft", None, self, n, dim, norm, True)


def fft_hfft_out_composite(self, n=None, dim=-1, norm=None, out=None):
    _fft_c2r("hfft", out, self, n, dim, norm, True)
    return out


def fft_ihfft_composite(self, n=None, dim=-1, norm=None):
    return _fft_r2c("ihfft", None, self, n, dim, norm, False, True)


def fft_ihfft_out_composite(self, n=None, dim=-1, norm=None, out=None):
    _fft_r2c("ihfft", out, self, n, dim, norm, False, True)
    return out


# -- n-dimensional transforms ------------------------------------------------------------------

def _shape_and_dims(x, s, dim):
    """torch's canonicalize_fft_shape_and_dim_args: the transformed dims and their sizes."""
    ndim = x.dim()
    sizes = x.shape
    dims = None
    if dim is not None:
        dims = _wrap_dims(dim, ndim)
        check(len(set(dims)) == len(dims), "FFT dims must be unique")
    if s is not None:
        check(dim is None or len(dim) == len(s),
              "When given, dim and shape arguments must have the same length")
        check(len(s) <= ndim, lambda: (
            f"Got shape with {len(s)} values but input tensor only has {ndim} dimensions."))
        if dim is None:
            dims = list(range(ndim - len(s), ndim))
        shape = [sizes[d] if v == -1 else v for v, d in zip(s, dims)]
    elif dim is None:
        dims = list(range(ndim))
        shape = list(sizes)
    else:
        shape = [sizes[d] for d in dims]
    for v in shape:
        check(v > 0, lambda v=v: f"Invalid number of data points ({v}) specified")
    return shape, dims


def _fftn_c2c(fname, out, self, s, dim, norm, forward):
    shape, dims = _shape_and_dims(self, s, dim)
    x = _promote(self, require_complex=True)
    x = _resize_input(x, dims, shape)
    return _c2c_maybe_out("fftn", out, x, dims, _norm_mode(norm, forward), forward)


def _rfftn(out, self, s, dim, norm):
    check(not self.dtype.is_complex, lambda: (
        f"rfftn expects a real-valued input tensor, but got {self.dtype._scalar_name}"))
    shape, dims = _shape_and_dims(self, s, dim)
    check(len(shape) > 0, "rfftn must transform at least one axis")
    x = _resize_input(_promote(self), dims, shape)
    return _r2c_maybe_out("rfftn", out, x, dims, _norm_mode(norm, True), True)


def _c2r_shape_and_dims(fname, self, s, dim):
    shape, dims = _shape_and_dims(self, s, dim)
    check(len(shape) > 0, lambda: f"{fname} must transform at least one axis")
    if s is None or s[-1] == -1:
        last = 2 * (self.shape[dims[-1]] - 1)
    else:
        last = shape[-1]
    check(last >= 1, lambda: f"Invalid number of data points ({last}) specified")
    shape[-1] = last // 2 + 1
    return shape, dims, last


def _irfftn(out, self, s, dim, norm):
    shape, dims, last = _c2r_shape_and_dims("irfftn", self, s, dim)
    x = _resize_input(_promote(self, require_complex=True), dims, shape)
    return _c2r_maybe_out("irfftn", out, x, dims, _norm_mode(norm, False), last)


def _hfftn(out, self, s, dim, norm):
    shape, dims, last = _c2r_shape_and_dims("hfftn", self, s, dim)
    x = _resize_input(_promote(self, require_complex=True), dims, shape)
    mode = _norm_mode(norm, True)
    if len(dims) > 1:
        x = _S()._fft_c2c(x, dims[:-1], mode, True)
    return _c2r_maybe_out("hfftn", out, x.conj(), [dims[-1]], mode, last)


def _ihfftn(out, self, s, dim, norm):
    shape, dims = _shape_and_dims(self, s, dim)
    check(len(shape) > 0, "ihfftn must transform at least one axis")
    x = _resize_input(_promote(self), dims, shape)
    mode = _norm_mode(norm, False)
    tmp = _S()._fft_r2c(x, [dims[-1]], mode, True)
    if len(dims) == 1:
        if out is None:
            return tmp.conj()
        # torch 2.13 writes this case as conj_physical_out(tmp, out), arguments swapped:
        # the temporary is resized to out's shape (with resize_output's warning) and
        # receives conj(out), while out itself is returned unwritten. Mirrored as is.
        resize_output(tmp, out._sizes)
        return out
    tmp = _S().conj_physical(tmp)
    return _c2c_maybe_out("ihfftn", out, tmp, dims[:-1], mode, False)


def _nd(impl):
    def functional(self, s=None, dim=None, norm=None):
        return impl(None, self, s, dim, norm)

    def with_out(self, s=None, dim=None, norm=None, out=None):
        impl(out, self, s, dim, norm)
        return out
    return functional, with_out


def _c2c_nd(fname, forward):
    def impl(out, self, s, dim, norm):
        return _fftn_c2c(fname, out, self, s, dim, norm, forward)
    return impl


fft_fftn_composite, fft_fftn_out_composite = _nd(_c2c_nd("fftn", True))
fft_ifftn_composite, fft_ifftn_out_composite = _nd(_c2c_nd("ifftn", False))
fft_rfftn_composite, fft_rfftn_out_composite = _nd(_rfftn)
fft_irfftn_composite, fft_irfftn_out_composite = _nd(_irfftn)
fft_hfftn_composite, fft_hfftn_out_composite = _nd(_hfftn)
fft_ihfftn_composite, fft_ihfftn_out_composite = _nd(_ihfftn)


def _two_d(nfn, nfn_out):
    def functional(self, s=None, dim=(-2, -1), norm=None):
        return nfn(self, s, dim, norm)

    def with_out(self, s=None, dim=(-2, -1), norm=None, out=None):
        return nfn_out(self, s, dim, norm, out)
    return functional, with_out


fft_fft2_composite, fft_fft2_out_composite = _two_d(fft_fftn_composite,
                                                    fft_fftn_out_composite)
fft_ifft2_composite, fft_ifft2_out_composite = _two_d(fft_ifftn_composite,
                                                      fft_ifftn_out_composite)
fft_rfft2_composite, fft_rfft2_out_composite = _two_d(fft_rfftn_composite,
                                                      fft_rfftn_out_composite)
fft_irfft2_composite, fft_irfft2_out_composite = _two_d(fft_irfftn_composite,
                                                        fft_irfftn_out_composite)
fft_hfft2_composite, fft_hfft2_out_composite = _two_d(fft_hfftn_composite,
                                                      fft_hfftn_out_composite)
fft_ihfft2_composite, fft_ihfft2_out_composite = _two_d(fft_ihfftn_composite,
                                                        fft_ihfftn_out_composite)

for _name, _fn in list(globals().items()):
    if _name.startswith("fft_") and _name.endswith("_composite") and callable(_fn) and \
            _fn.__name__ in ("functional", "with_out"):
        _fn.__name__ = _fn.__qualname__ = _name
        _fn.__module__ = __name__


# -- helpers: frequencies and shifts -----------------------------------------------------------

def _trunc_div(a, b):
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _freq_values(out, n, d, ks):
    """``out[:] = ks * (1 / (n * d))`` in ``out``'s dtype, as torch's ``mul_`` computes it."""
    if _is_meta(out) or not numel_of(out._sizes):
        return
    npd = out._dtype.np
    with np.errstate(all="ignore"):
        scale = 1.0 / (n * d) if n * d != 0 else (math.copysign(math.inf, d) if n else math.nan)
        arr = np.asarray(ks, dtype=npd) * npd.type(scale)
    np.copyto(out._array(), arr, casting="unsafe")


def _check_freq_dtype(fname, dtype):
    check(dtype.is_floating_point or dtype.is_complex,
          f"{fname} requires a floating point or complex dtype")


def _fftfreq_ks(n):
    ks = np.arange(n, dtype=np.float64)
    half = _trunc_div(n + 1, 2)
    ks[half:] = np.arange(-_trunc_div(n, 2), 0, dtype=np.float64)[:max(0, n - half)]
    return ks


def fft_fftfreq_kernel(n, d=1.0, dtype=None, layout=None, device=None, pin_memory=None):
    out = _S().empty((n,), dtype=dtype, layout=layout, device=device, pin_memory=pin_memory)
    return fft_fftfreq_out_kernel(n, d, out)


def fft_fftfreq_out_kernel(n, d=1.0, out=None):
    _check_freq_dtype("fftfreq", out.dtype)
    _S().arange(n, out=out)
    _freq_values(out, n, d, _fftfreq_ks(n))
    return out


def fft_rfftfreq_kernel(n, d=1.0, dtype=None, layout=None, device=None, pin_memory=None):
    m = _trunc_div(n, 2) + 1
    out = _S().empty((m,), dtype=dtype, layout=layout, device=device, pin_memory=pin_memory)
    return fft_rfftfreq_out_kernel(n, d, out)


def fft_rfftfreq_out_kernel(n, d=1.0, out=None):
    _check_freq_dtype("rfftfreq", out.dtype)
    m = _trunc_div(n, 2) + 1
    _S().arange(m, out=out)
    _freq_values(out, n, d, np.arange(m, dtype=np.float64))
    return out


def _all_dims(x, dim):
    if dim is None:
        return list(range(x.dim()))
    return _wrap_dims(dim, x.dim())


def fft_fftshift_composite(self, dim=None):
    dims = _all_dims(self, dim)
    return _S().roll(self, [self.shape[d] // 2 for d in dims], dims)


def fft_ifftshift_composite(self, dim=None):
    dims = _all_dims(self, dim)
    return _S().roll(self, [(self.shape[d] + 1) // 2 for d in dims], dims)


# -- stft / istft ------------------------------------------------------------------------------

_warned: set = set()


def _warn_once(key, message):
    """torch's TORCH_WARN_ONCE: the first time in the process only."""
    if key not in _warned:
        _warned.add(key)
        warnings.warn(message, UserWarning, stacklevel=4)


def _opt(v):
    return "None" if v is None else str(int(v))


def _type_string(t):
    """c10's Tensor::toString(): the legacy ``torch.FloatTensor`` names, and ``CPU<Type>Type``
    for the dtypes that never had one (complex)."""
    name = t.dtype._scalar_name
    return f"CPU{name}Type" if t.dtype.is_complex else f"torch.{name}Tensor"


def _window_repr(window):
    if window is None:
        return "None"
    return f"{_type_string(window)}{{{list(window.shape)}}}"


def _check_window_device(name, self, window):
    check(window is None or window.device == self.device, lambda: (
        f"{name} input and window must be on the same device but got self on "
        f"{self.device} and window on {window.device}"))


_NO_WINDOW = ("A window was not provided. A rectangular window will be applied,which is known "
              "to cause spectral leakage. Other windows such as torch.hann_window or "
              "torch.hamming_window are recommended to reduce spectral leakage.To suppress "
              "this warning and use a rectangular window, explicitly set "
              "`window=torch.ones(n_fft, device=<device>)`.")
_NO_WINDOW_ISTFT = ("A window was not provided. A rectangular window will be applied.Please "
                    "provide the same window used by stft to make the inversion lossless.To "
                    "suppress this warning and use a rectangular window, explicitly set "
                    "`window=torch.ones(n_fft, device=<device>)`.")
_RETURN_REAL = ("stft with return_complex=False is deprecated. In a future pytorch release, "
                "stft will return complex tensors for all inputs, and return_complex=False "
                "will raise an error.\nNote: you can still call torch.view_as_real on the "
                "complex output to recover the old return format.")


def stft_center_composite(self, n_fft, hop_length=None, win_length=None, window=None,
                          center=True, pad_mode="reflect", normalized=False, onesided=None,
                          return_complex=None, align_to_window=None):
    """torch.stft: with ``center`` the signal is first padded by ``n_fft // 2`` on both
    sides (``pad_mode``), so that frame ``t`` is centred on sample ``t * hop_length``."""
    check(not (center and align_to_window is not None),
          "stft align_to_window should only be set when center = false")
    x = self
    if center:
        ndim = x.dim()
        extended = [1] * (3 - ndim) + list(x.shape)
        pad = int(n_fft // 2)
        x = _S().nn.functional.pad(x.view(extended), [pad, pad], pad_mode)
        x = x.view(x.shape[-ndim:] if ndim else ())
    return stft_composite(x, n_fft, hop_length, win_length, window, normalized, onesided,
                          return_complex, align_to_window)


def stft_composite(self, n_fft, hop_length=None, win_length=None, window=None,
                   normalized=False, onesided=None, return_complex=None, align_to_window=None):
    """Frames of ``n_fft`` samples every ``hop_length`` (a strided view), times the window
    (zero-padded to ``n_fft`` around its centre), through one batched r2c (c2c for complex
    signals or windows); the result is (batch?, freq, frames)."""
    S = _S()
    _check_window_device("stft", self, window)
    if window is None:
        _warn_once("stft_window", _NO_WINDOW)
    hop = n_fft >> 2 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    want_complex = return_complex if return_complex is not None else (
        self.is_complex() or (window is not None and window.is_complex()))
    if not want_complex:
        check(return_complex is not None,
              "stft requires the return_complex parameter be given for real inputs, and will "
              "further require that return_complex=True in a future PyTorch release.")
        _warn_once("stft_real", _RETURN_REAL)

    def fail(what):
        raise RuntimeError(
            f"stft({_type_string(self)}{list(self.shape)}, n_fft={n_fft}, "
            f"hop_length={hop}, win_length={win}, window={_window_repr(window)}, "
            f"normalized={int(normalized)}, onesided={_opt(onesided)}, "
            f"return_complex={_opt(return_complex)}, align_to_window={_opt(align_to_window)}) "
            f": {what}")

    if not (self.dtype.is_floating_point or self.dtype.is_complex):
        fail("expected a tensor of floating point or complex values")
    if self.dim() not in (1, 2):
        fail("expected a 1D or 2D tensor")
    x = self.unsqueeze(0) if self.dim() == 1 else self
    batch, length = x.shape
    if n_fft <= 0 or n_fft > length:
        fail(f"expected 0 < n_fft < {length}, but got n_fft={win}")
    if hop <= 0:
        fail(f"expected hop_length > 0, but got hop_length={hop}")
    if win <= 0 or win > n_fft:
        fail(f"expected 0 < win_length <= n_fft, but got win_length={win}")
    if window is not None and (window.dim() != 1 or window.shape[0] != win):
        fail(f"expected a 1D window tensor of size equal to win_length={win}, but got window "
             f"with size {list(window.shape)}")
    left = (n_fft - win) // 2
    s0, s1 = x.stride()
    if align_to_window and win < n_fft:
        # frames of the window's length, each zero-padded to n_fft around it
        frames_n = 1 + (length - win) // hop
        _check_frames_in_storage(x, batch, length, frames_n, n_fft, hop, left)
        frames = x.as_strided((batch, frames_n, win), (s0, hop * s1, s1), x.storage_offset())
        if window is not None:
            frames = frames * window
        frames = S.constant_pad_nd(frames, [left, n_fft - win - left])
    else:
        win_full = window
        if win < n_fft:
            if window is not None:
                win_full = S.constant_pad_nd(window, [left, n_fft - win - left])
            else:
                win_full = S.zeros((n_fft,), dtype=self.dtype, device=self.device)
                win_full[left:left + win] = 1
        frames_n = 1 + (length - n_fft) // hop
        frames = x.as_strided((batch, frames_n, n_fft), (s0, hop * s1, s1),
                              x.storage_offset())
        if win_full is not None:
            frames = frames * win_full
    complex_fft = frames.is_complex()
    sided = (not complex_fft) if onesided is None else onesided
    mode = _BY_ROOT_N if normalized else _NONE
    if complex_fft:
        check(not sided, "Cannot have onesided output if window or input is complex")
        out = S._fft_c2c(frames, [2], mode, True)
    else:
        out = S._fft_r2c(frames, [2], mode, sided)
    out.transpose_(1, 2)
    if self.dim() == 1:
        out.squeeze_(0)
    return out if want_complex else S.view_as_real(out)


def _check_frames_in_storage(x, batch, length, frames, n_fft, hop, left):
    """torch 2.13 pads the signal by ``left`` on both sides and views ``n_fft`` samples from
    each frame start (the window's zero padding hides the excess), so aligned frames whose
    ``n_fft`` samples run past the padded signal's storage fail its as_strided bounds check:
    the same error here (the values are the same either way)."""
    row = length + 2 * left
    itemsize = x.dtype.itemsize
    sizes, strides = [batch, frames, n_fft], [row, hop, 1]
    needed = 1 + sum((n - 1) * st for n, st in zip(sizes, strides))
    have = batch * row * itemsize
    check(needed * itemsize <= have, lambda: (
        f"setStorage: sizes {sizes}, strides {strides}, storage offset 0, and itemsize "
        f"{itemsize} requiring a storage size of {needed * itemsize} are out of bounds for "
        f"storage of size {have}"))


def _as_complex(t):
    """view_as_complex of a (..., 2) real tensor, through a contiguous copy when the view is
    not possible."""
    strides = t.stride()
    ok = all(s % 2 == 0 for s in strides[:-1]) and strides[-1] == 1 and \
        t.storage_offset() % 2 == 0
    return _S().view_as_complex(t if ok else t.clone(memory_format=_S().contiguous_format))


def _overlap_add(frames, total, hop):
    """Sum (channel, n_frames, n_fft) frames placed every ``hop`` samples into
    (channel, total) (torch's unfold_backward along dim 1)."""
    S = _S()
    channels, n_frames, n_fft = frames.shape
    index = (S.arange(n_frames).unsqueeze(1) * hop + S.arange(n_fft)).reshape(-1)
    acc = S.zeros((channels, total), dtype=frames.dtype, device=frames.device)
    return acc.index_add(1, index, frames.reshape(channels, n_frames * n_fft))


def istft_composite(self, n_fft, hop_length=None, win_length=None, window=None, center=True,
                    normalized=False, onesided=None, length=None, return_complex=False):
    """The least-squares inverse of stft: inverse transforms of every frame, windowed,
    overlap-added, divided by the overlap-added squared window."""
    S = _S()
    _check_window_device("istft", self, window)
    hop = n_fft >> 2 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    if window is None:
        _warn_once("istft_window", _NO_WINDOW_ISTFT)
    check(self.is_complex(), "istft requires a complex-valued input tensor matching the output "
          "from stft with return_complex=True.")
    x = S.view_as_real(self.resolve_conj())
    ndim = x.dim()
    n_frames = x.size(-2)
    fft_size = x.size(-3)
    expected = n_fft + hop * (n_frames - 1)

    def fail(what, sep=": "):
        raise RuntimeError(
            f"istft({_type_string(self)}{list(self.shape)}, n_fft={n_fft}, "
            f"hop_length={hop}, win_length={win}, window={_window_repr(window)}, "
            f"center={int(center)}, normalized={int(normalized)}, onesided={_opt(onesided)}, "
            f"length={'None' if length is None else length}, "
            f"return_complex={int(return_complex)}) {sep}{what}")

    if x.numel() == 0:
        fail("input tensor cannot be empty.")
    if ndim not in (3, 4):
        fail(f"expected a tensor with 3 or 4 dimensions, but got {ndim}")
    sided = (fft_size != n_fft) if onesided is None else onesided
    if sided and n_fft // 2 + 1 != fft_size:
        fail("expected the frequency dimension (3rd to the last) of the input tensor to match "
             f"n_fft / 2 + 1 when onesided=True, but got {fft_size}")
    if not sided and n_fft != fft_size:
        fail("expected the frequency dimension (3rd to the last) of the input tensor to match "
             f"n_fft when onesided=False, but got {fft_size}")
    if not (0 < hop <= win):
        fail("expected 0 < hop_length <= win_length")
    if not (0 < win <= n_fft):
        fail("expected 0 < win_length <= n_fft")
    if window is not None and (window.dim() != 1 or window.shape[0] != win):
        fail("Invalid window shape. window has to be 1D and length of `win_length`")
    win_full = window if window is not None else S.ones((win,), dtype=x.dtype,
                                                        device=x.device)
    if win != n_fft:
        left = (n_fft - win) // 2
        win_full = S.constant_pad_nd(win_full, [left, n_fft - win - left], 0)
    if ndim == 3:
        x = x.unsqueeze(0)
    x = _as_complex(x.transpose(1, 2))          # (channel, n_frames, fft_size)
    mode = _BY_ROOT_N if normalized else _BY_N
    if return_complex:
        check(not sided, "Cannot have onesided output if window or input is complex")
        x = S._fft_c2c(x, [2], mode, False)
    else:
        check(window is None or not window.is_complex(),
              "Complex windows are incompatible with return_complex=False")
        if not sided:
            x = S.ops.aten.slice.Tensor(x, -1, 0, n_fft // 2 + 1)
        x = S._fft_c2r(x, [2], mode, n_fft)
    y = _overlap_add(x * win_full.view(1, 1, n_fft), expected, hop)
    envelope = _overlap_add(win_full.pow(2).expand(1, n_frames, n_fft), expected, hop)
    start = n_fft // 2 if center else 0
    if length is not None:
        end = start + length
    else:
        end = -(n_fft // 2) if center else expected
    y = S.ops.aten.slice.Tensor(y, 1, start, end, 1)
    envelope = S.ops.aten.slice.Tensor(envelope, 1, start, end, 1)
    lowest = envelope.abs().min().lt(1e-11)
    # torch reads the flag with at::equal, which has no meta kernel
    check(lowest.device.type != "meta", "aten::equal: attempted to run this operator with "
          "Meta tensors, but there was no fake impl or Meta kernel registered. You may have "
          "run into this message while using an operator with PT2 compilation APIs "
          "(torch.compile/torch.export); in order to use this operator with those APIs you'll "
          "need to add a fake impl. Please see the following for next steps:  "
          "https://pytorch.org/tutorials/advanced/custom_ops_landing_page.html",
          NotImplementedError)
    if bool(lowest):
        fail(f"{int(bool(lowest))}\n[ CPUBoolType{{}} ]", sep="window overlap add min: ")
    y = y / envelope
    if ndim == 3:
        y = y.squeeze(0)
    if end > expected:
        _warn_once("istft_length", "The length of signal is shorter than the length parameter. "
                   "Result is being padded with zeros in the tail. Please check your center "
                   "and hop_length settings.")
        y = S.constant_pad_nd(y, [0, end - expected], 0)
    return y


# -- window factories (torch.hann_window, ...) ---------------------------------------------------

_CPP_NAMES = {
    "bool": "bool", "uint8": "unsigned char", "int8": "signed char", "int16": "short int",
    "int32": "int", "int64": "long int", "uint16": "unsigned short", "uint32": "unsigned int",
    "uint64": "unsigned long", "complex64": "c10::complex<float>",
    "complex128": "c10::complex<double>",
}


def _window_checks(name, dtype, layout, window_length):
    dtype = dtype or dt._default_dtype[0]
    check(dtype.is_floating_point, lambda: (
        f"{name} expects floating point dtypes, got: TensorOptions(dtype="
        f"{_CPP_NAMES.get(dtype.name, dtype.name)}, device=cpu, layout=Strided (default), "
        f"requires_grad=false (default), pinned_memory=false, memory_format=(nullopt))"))
    check(window_length >= 0, lambda: (
        f"{name} requires non-negative window_length, got window_length={window_length}"))
    return dtype


def _compute_np(dtype):
    """NumPy type each elementwise step runs in (float32 for the half types, as torch's CPU
    kernels compute them) and the storage type it rounds to after each step."""
    if dtype in (dt.float16, dt.bfloat16):
        return np.dtype(np.float32), dtype.np
    return dtype.np, dtype.np


def _window_tensor(values, dtype, layout, device, pin_memory):
    out = _S().empty((values.shape[0],), dtype=dtype, layout=layout, device=device,
                     pin_memory=pin_memory)
    if not _is_meta(out) and values.shape[0]:
        np.copyto(out._array(), values, casting="unsafe")
    return out


def _make_window(name, window_length, periodic, dtype, layout, device, pin_memory, body):
    dtype = _window_checks(name, dtype, layout, window_length)
    S = _S()
    if window_length == 0:
        return S.empty((0,), dtype=dtype, layout=layout, device=device, pin_memory=pin_memory)
    if window_length == 1:
        return S.ones((1,), dtype=dtype, layout=layout, device=device, pin_memory=pin_memory)
    n = window_length + 1 if periodic else window_length
    comp, store = _compute_np(dtype)

    def r(a):   # one elementwise op's result, rounded to the window's dtype
        return np.asarray(a, dtype=comp).astype(store).astype(comp)

    with np.errstate(all="ignore"):
        values = body(r(np.arange(n, dtype=np.float64)), n, comp, r)
    full = _window_tensor(values.astype(store), dtype, layout, device, pin_memory)
    return full.narrow(0, 0, n - 1) if periodic else full


def _hamming_body(alpha, beta):
    def body(k, n, c, r):
        k = r(k * c.type(math.pi * 2.0 / (n - 1)))
        k = r(np.cos(k))
        k = r(k * c.type(-beta))
        return r(k + c.type(alpha))
    return body


def _hamming_impl(window_length, periodic=True, alpha=0.54, beta=0.46, dtype=None,
                          layout=None, device=None, pin_memory=None):
    return _make_window("hamming_window", window_length, periodic, dtype, layout, device,
                        pin_memory, _hamming_body(alpha, beta))


def _hann_impl(window_length, periodic=True, dtype=None, layout=None, device=None,
                       pin_memory=None):
    _window_checks("hann_window", dtype, layout, window_length)
    return _make_window("hamming_window", window_length, periodic, dtype, layout, device,
                        pin_memory, _hamming_body(0.5, 0.5))


def _blackman_body(k, n, c, r):
    k = r(k * c.type(math.pi / (n - 1)))
    a = r(r(np.cos(r(k * c.type(4)))) * c.type(0.08))
    b = r(r(np.cos(r(k * c.type(2)))) * c.type(0.5))
    return r(r(a - b) + c.type(0.42))


def _blackman_impl(window_length, periodic=True, dtype=None, layout=None, device=None,
                           pin_memory=None):
    return _make_window("blackman_window", window_length, periodic, dtype, layout, device,
                        pin_memory, _blackman_body)


def _bartlett_body(k, n, c, r):
    k = r(k * c.type(2.0 / (n - 1)))
    half = ((n - 1) >> 1) + 1
    k[half:] = r(r(k[half:] * c.type(-1)) + c.type(2))
    return k


def _bartlett_impl(window_length, periodic=True, dtype=None, layout=None, device=None,
                           pin_memory=None):
    return _make_window("bartlett_window", window_length, periodic, dtype, layout, device,
                        pin_memory, _bartlett_body)


# Cephes' Chebyshev coefficients for I0 (torch's calc_i0), on [0, 8] and (8, inf)
_I0_A = (-4.41534164647933937950e-18, 3.33079451882223809783e-17, -2.43127984654795469359e-16,
         1.71539128555513303061e-15, -1.16853328779934516808e-14, 7.67618549860493561688e-14,
         -4.85644678311192946090e-13, 2.95505266312963983461e-12, -1.72682629144155570723e-11,
         9.67580903537323691224e-11, -5.18979560163526290666e-10, 2.65982372468238665035e-9,
         -1.30002500998624804212e-8, 6.04699502254191894932e-8, -2.67079385394061173391e-7,
         1.11738753912010371815e-6, -4.41673835845875056359e-6, 1.64484480707288970893e-5,
         -5.75419501008210370398e-5, 1.88502885095841655729e-4, -5.76375574538582365885e-4,
         1.63947561694133579842e-3, -4.32430999505057594430e-3, 1.05464603945949983183e-2,
         -2.37374148058994688156e-2, 4.93052842396707084878e-2, -9.49010970480476444210e-2,
         1.71620901522208775349e-1, -3.04682672343198398683e-1, 6.76795274409476084995e-1)
_I0_B = (-7.23318048787475395456e-18, -4.83050448594418207126e-18, 4.46562142029675999901e-17,
         3.46122286769746109310e-17, -2.82762398051658348494e-16, -3.42548561967721913462e-16,
         1.77256013305652638360e-15, 3.81168066935262242075e-15, -9.55484669882830764870e-15,
         -4.15056934728722208663e-14, 1.54008621752140982691e-14, 3.85277838274214270114e-13,
         7.18012445138366623367e-13, -1.79417853150680611778e-12, -1.32158118404477131188e-11,
         -3.14991652796324136454e-11, 1.18891471078464383424e-11, 4.94060238822496958910e-10,
         3.39623202570838634515e-9, 2.26666899049817806459e-8, 2.04891858946906374183e-7,
         2.89137052083475648297e-6, 6.88975834691682398426e-5, 3.36911647825569408990e-3,
         8.04490411014108831608e-1)


def _chbevl(x, coeffs, c):
    b0 = np.zeros_like(x)
    b1 = np.zeros_like(x)
    b2 = b1
    for a in coeffs:
        b2 = b1
        b1 = b0
        b0 = x * b1 - b2 + c.type(a)
    return c.type(0.5) * (b0 - b2)


def _i0_np(x, c):
    x = np.abs(x)
    small = x <= 8
    with np.errstate(all="ignore"):
        lo = np.exp(x) * _chbevl(x * c.type(0.5) - c.type(2.0), _I0_A, c)
        hi = np.exp(x) * _chbevl(c.type(32.0) / x - c.type(2.0), _I0_B, c) / np.sqrt(x)
    return np.where(small, lo, hi)


def _kaiser_impl(window_length, periodic=True, beta=12.0, dtype=None, layout=None,
                         device=None, pin_memory=None):
    def body(k, n, c, r):
        alpha = c.type((n - 1) / 2.0)
        b = c.type(beta)
        arg = b * np.sqrt(np.abs(c.type(1) - ((k - alpha) / alpha) ** c.type(2.0)))
        return _i0_np(arg, c) / _i0_np(np.asarray(b, dtype=c), c)
    return _make_window("kaiser_window", window_length, periodic, dtype, layout, device,
                        pin_memory, body)


def _overloads():
    """One kernel per overload (the dispatcher passes each schema's arguments by position)."""
    g = globals()

    def bind(name, fn):
        fn.__name__ = fn.__qualname__ = name
        fn.__module__ = __name__
        g[name] = fn

    for base in ("hann", "hamming", "blackman", "bartlett", "kaiser"):
        impl = g[f"_{base}_impl"]
        bind(f"{base}_window_kernel",
             lambda n, dtype=None, layout=None, device=None, pin_memory=None, impl=impl:
             impl(n, True, dtype=dtype, layout=layout, device=device, pin_memory=pin_memory))
        bind(f"{base}_window_periodic_kernel",
             lambda n, periodic, dtype=None, layout=None, device=None, pin_memory=None,
             impl=impl: impl(n, periodic, dtype=dtype, layout=layout, device=device,
                             pin_memory=pin_memory))
    bind("hamming_window_periodic_alpha_kernel",
         lambda n, periodic, alpha, dtype=None, layout=None, device=None, pin_memory=None:
         _hamming_impl(n, periodic, alpha, dtype=dtype, layout=layout, device=device,
                       pin_memory=pin_memory))
    bind("hamming_window_periodic_alpha_beta_kernel",
         lambda n, periodic, alpha, beta, dtype=None, layout=None, device=None,
         pin_memory=None: _hamming_impl(n, periodic, alpha, beta, dtype=dtype, layout=layout,
                                        device=device, pin_memory=pin_memory))
    bind("kaiser_window_beta_kernel",
         lambda n, periodic, beta, dtype=None, layout=None, device=None, pin_memory=None:
         _kaiser_impl(n, periodic, beta, dtype=dtype, layout=layout, device=device,
                      pin_memory=pin_memory))


_overloads()
