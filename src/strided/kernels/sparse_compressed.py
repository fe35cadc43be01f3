"""Kernels of the compressed sparse layouts: CSR, CSC, BSR and BSC (issue 16).

A compressed tensor of ``size = batch + (nrows, ncols) + dense`` is three strided
tensors (Note [Compressed layouts]):

    compressed_indices   batch + (ncompressed + 1,)       int32 or int64
    plain_indices        batch + (nnz,)                    same dtype
    values               batch + (nnz,) + block + dense    block = (bh, bw) for BSR/BSC

Note [Compressed layouts]
~~~~~~~~~~~~~~~~~~~~~~~~~
The four layouts are one format seen four ways. Row layouts (CSR, BSR) compress
the row dimension: ``crow_indices[..., i]:crow_indices[..., i + 1]`` is the slice of
``col_indices`` / ``values`` holding row ``i``. Column layouts (CSC, BSC) swap the
two roles (``ccol_indices``, ``row_indices``). The block layouts do the same over a
grid of ``(bh, bw)`` blocks, each specified block carrying a whole dense block in
``values``; CSR/CSC are the block layouts with ``blocksize == (1, 1)`` and the two
block dims squeezed out. So every algorithm here works on one normal form:

    cidx (B, M + 1), pidx (B, nnz), values (B, nnz, bh, bw) + dense

with ``B`` the flattened batch, ``M`` the number of compressed blocks and, for
column layouts, the grid transposed (``M`` counts block columns). The helpers
``_np_*`` take and return NumPy arrays only; the kernels at the bottom wrap them.
All batches hold the same nnz (torch's invariant), which is what lets the batch be
a leading array dimension.
"""

from __future__ import annotations

import math

import numpy as np

# -- layout facts --------------------------------------------------------------------

# layout name -> (row-compressed?, blocked?)
_LAYOUT_FACTS = {
    "sparse_csr": (True, False),
    "sparse_csc": (False, False),
    "sparse_bsr": (True, True),
    "sparse_bsc": (False, True),
}
# c10's Layout names as error messages print them
_LAYOUT_CNAME = {"strided": "Strided", "sparse_coo": "Sparse", "sparse_csr": "SparseCsr",
                 "sparse_csc": "SparseCsc", "sparse_bsr": "SparseBsr",
                 "sparse_bsc": "SparseBsc", "_mkldnn": "Mkldnn"}


def _cname(layout) -> str:
    return _LAYOUT_CNAME.get(layout.name, layout.name)


def _index_names(layout_name: str) -> tuple[str, str, str, str]:
    """(compressed indices, plain indices, compressed dim, plain dim) names of a layout."""
    if _LAYOUT_FACTS[layout_name][0]:
        return "crow_indices", "col_indices", "row", "column"
    return "ccol_indices", "row_indices", "column", "row"


# -- dense <-> compressed --------------------------------------------------------------

def _np_dense_to_compressed(arr: np.ndarray, row_major: bool, blocksize, dense_dim: int):
    """(cidx, pidx, values) of the strided array ``arr`` (batch + (R, C) + dense): an
    element (block) is specified when any entry of it, or of its dense part, is nonzero.
    Raises torch's error when batches hold different numbers of specified elements."""
    nb = arr.ndim - 2 - dense_dim
    batch = arr.shape[:nb]
    R, C = arr.shape[nb:nb + 2]
    dense = arr.shape[nb + 2:]
    bh, bw = blocksize if blocksize is not None else (1, 1)
    B = math.prod(batch)
    Mr, Mc = R // bh, C // bw
    a = arr.reshape((B, Mr, bh, Mc, bw) + dense)
    nd = len(dense)
    perm = (0, 1, 3, 2, 4) + tuple(range(5, 5 + nd))
    if not row_major:
        perm = (0, 3, 1, 2, 4) + tuple(range(5, 5 + nd))
    a = a.transpose(perm)                                  # (B, M, N, bh, bw) + dense
    M, N = a.shape[1], a.shape[2]
    inner = bh * bw * math.prod(dense)
    if inner == 1:
        mask = (a != 0).reshape(B * M * N)
    elif inner:
        mask = (a != 0).reshape(B * M * N, inner).any(-1)
    else:
        mask = np.zeros(B * M * N, bool)
    flat = np.flatnonzero(mask)
    b = flat // max(M * N, 1)
    counts = np.bincount(b, minlength=B) if B else np.zeros(0, np.int64)
    if B > 1 and (counts != counts[0]).any():
        raise RuntimeError("Expect the same number of specified elements per batch.")
    nnz = int(counts[0]) if B else 0
    cidx = np.zeros((B, M + 1), np.int64)
    if B and M:
        np.cumsum(np.bincount(flat // max(N, 1), minlength=B * M).reshape(B, M), axis=1,
                  out=cidx[:, 1:])
    pidx = (flat % max(N, 1)).reshape(B, nnz)
    if bh * bw == 1 and row_major:
        values = arr.reshape((B * M * N,) + dense)[flat]
    else:
        values = a.reshape((B * M * N, bh, bw) + dense)[flat]
    return cidx, pidx, values.reshape((B, nnz, bh, bw) + dense)


def _np_compressed_to_dense(cidx, pidx, values, batch, R: int, C: int, row_major: bool,
                            out=None):
    """The strided array (batch + (R, C) + dense) of a compressed tensor in normal form
    (module Note), written into ``out`` when given (a zeroed C-contiguous array)."""
    B = cidx.shape[0]
    M = cidx.shape[1] - 1
    nnz = pidx.shape[1]
    bh, bw = values.shape[2], values.shape[3]
    dense = tuple(values.shape[4:])
    Mr, Mc = R // bh, C // bw
    if out is None:
        out = np.zeros(tuple(batch) + (R, C) + dense, values.dtype)
    if B * nnz:
        counts = np.diff(cidx.astype(np.int64, copy=False), axis=1).ravel()
        comp = np.repeat(np.tile(np.arange(M), B), counts)
        bidx = np.repeat(np.arange(B), nnz)
        plain = pidx.ravel()
        r, c = (comp, plain) if row_major else (plain, comp)
        if bh * bw == 1:
            view = out.reshape((B, R, C) + dense)
            view[bidx, r, c] = values.reshape((B * nnz,) + dense)
        else:
            view = out.reshape((B, Mr, bh, Mc, bw) + dense)
            view[bidx, r, :, c, :] = values.reshape((B * nnz, bh, bw) + dense)
    return out


# -- compressed <-> element lists (COO form) -------------------------------------------

def _np_compressed_to_elements(cidx, pidx, values, row_major: bool):
    """(batch index b, row, col, values (n,) + dense) of every stored entry of a normal
    form compressed tensor, in its storage order, blocks expanded row-major."""
    B = cidx.shape[0]
    M = cidx.shape[1] - 1
    nnz = pidx.shape[1]
    bh, bw = values.shape[2], values.shape[3]
    dense = tuple(values.shape[4:])
    counts = np.diff(cidx.astype(np.int64, copy=False), axis=1).ravel()
    comp = np.repeat(np.tile(np.arange(M, dtype=np.int64), B), counts)
    plain = pidx.astype(np.int64, copy=False).ravel()
    b = np.repeat(np.arange(B, dtype=np.int64), nnz)
    r, c = (comp, plain) if row_major else (plain, comp)
    if bh * bw != 1:
        ii, jj = np.meshgrid(np.arange(bh), np.arange(bw), indexing="ij")
        r = (r[:, None] * bh + ii.ravel()[None, :]).ravel()
        c = (c[:, None] * bw + jj.ravel()[None, :]).ravel()
        b = np.repeat(b, bh * bw)
    return b, r, c, values.reshape((B * nnz * bh * bw,) + dense)


def _np_elements_to_compressed(b, r, c, vals, B: int, R: int, C: int, row_major: bool,
                               blocksize, dtype=None):
    """Compressed normal form (cidx (B, M+1), pidx (B, nnz), values (B, nnz, bh, bw) +
    dense) of
    unique entries (b, r, c, vals). A block is specified when any of its entries is; the
    rest of a block is zero. Raises torch's error when batches end up with different nnz."""
    bh, bw = blocksize if blocksize is not None else (1, 1)
    Mr, Mc = R // bh, C // bw
    M, N = (Mr, Mc) if row_major else (Mc, Mr)
    br, bc = r // bh, c // bw
    local = br * Mc + bc if row_major else bc * Mr + br
    key = b * (Mr * Mc) + local
    ukeys, inv = np.unique(key, return_inverse=True)
    inv = inv.reshape(-1)
    bo = ukeys // max(Mr * Mc, 1)
    rem = ukeys - bo * (Mr * Mc)
    comp, plain = rem // max(N, 1), rem % max(N, 1)
    per_batch = np.bincount(bo, minlength=B) if B else np.zeros(0, np.int64)
    if B > 1 and (per_batch != per_batch[0]).any():
        raise RuntimeError("Expect the same number of specified elements per batch.")
    nnz = int(per_batch[0]) if B else 0
    dense = vals.shape[1:]
    out_dtype = vals.dtype if dtype is None else dtype
    out = np.zeros((ukeys.size, bh, bw) + dense, out_dtype)
    out[inv, r % bh, c % bw] = vals
    out = out.reshape((B, nnz, bh, bw) + dense)
    cidx = np.zeros((B, M + 1), np.int64)
    if B and M:
        np.cumsum(np.bincount(bo * M + comp, minlength=B * M).reshape(B, M), axis=1,
                  out=cidx[:, 1:])
    return cidx, plain.astype(np.int64).reshape(B, nnz), out


# -- products --------------------------------------------------------------------------

_SCIPY_DTYPES = frozenset("?bBhHiIlLqQfdgFDG")


def _np_csr_matmul(cidx, pidx, vals, nrows: int, ncols: int, dense: np.ndarray,
                   out_dtype) -> np.ndarray:
    """``A @ dense`` for one CSR matrix ``A`` (nrows x ncols) given by its arrays and a
    2-D ``dense`` (ncols x n): SciPy's compiled sparse loops (imported lazily), which add
    the products of each row in storage order, as torch's CPU kernel does."""
    n = dense.shape[1]
    out = np.zeros((nrows, n), out_dtype)
    if not (nrows and n and pidx.size):
        return out
    work = np.dtype(out_dtype)
    if work.char not in _SCIPY_DTYPES:       # float16 / bfloat16: accumulate in float32
        work = np.dtype(np.float32)
    idx_dtype = np.int32 if cidx.dtype == np.int32 and pidx.dtype == np.int32 else np.int64
    x = np.ascontiguousarray(dense, work)
    y = np.zeros((nrows, n), work)
    try:
        from scipy.sparse._sparsetools import csr_matvecs
    except ImportError:     # without SciPy: whole-array NumPy (slower; order per row kept)
        counts = np.diff(cidx)
        nonempty = counts > 0
        nnz = int(cidx[-1])
        products = np.asarray(vals[:nnz], work)[:, None] * x[pidx[:nnz]]
        y[nonempty] = np.add.reduceat(products, cidx[:-1][nonempty], axis=0)
        if y.dtype != out.dtype:
            out[...] = y
            return out
        return y
    csr_matvecs(nrows, ncols, n, np.ascontiguousarray(cidx, idx_dtype),
                np.ascontiguousarray(pidx, idx_dtype), np.ascontiguousarray(vals, work),
                x.reshape(-1), y.reshape(-1))
    if y.dtype != out.dtype:
        out[...] = y
        return out
    return y


# == the tensor side ===================================================================

from ..core import dtypes as dt  # noqa: E402
from ..core import layouts  # noqa: E402
from ..core import sparse_tensor as _sp  # noqa: E402
from ..core.checks import check  # noqa: E402
from ..core.dispatch_keys import DispatchKey  # noqa: E402
from ..ops.dispatcher import get_op  # noqa: E402
from .factory import empty  # noqa: E402

__all__: list = []   # kernels are looked up by name (kernels/__init__.py)

_COMPRESSED = (layouts.sparse_csr, layouts.sparse_csc, layouts.sparse_bsr, layouts.sparse_bsc)
_AUTOGRAD_BIT = DispatchKey.Autograd.bit


def _facts(layout):
    return _LAYOUT_FACTS[layout.name]


def _tensor(arr: np.ndarray, dtype, device):
    """A new strided tensor holding a copy of ``arr``."""
    t = empty(tuple(arr.shape), dtype, None, device)
    if arr.size:
        t._array()[...] = arr
    return t


def _call(name: str, *args):
    """``aten::<name>`` through the dispatcher, below autograd (kernels run there)."""
    ks = 0
    for a in args:
        if hasattr(a, "_keyset"):
            ks |= a._keyset
    return get_op("aten::" + name).call(ks & ~_AUTOGRAD_BIT, *args)


def _normal(t):
    """A compressed tensor's arrays in the module Note's normal form, plus its batch
    shape: (cidx, pidx, values, batch)."""
    p = t._sparse
    blocked = _facts(p.layout)[1]
    ci = p.compressed_indices._array()
    pi = p.plain_indices._array()
    v = p.values._array()
    nb = ci.ndim - 1
    batch = ci.shape[:nb]
    B = math.prod(batch)
    ci2 = ci.reshape(B, ci.shape[-1])
    pi2 = pi.reshape(B, pi.shape[-1])
    if blocked:
        v2 = v.reshape((B,) + v.shape[nb:])
    else:
        v2 = v.reshape((B, v.shape[nb], 1, 1) + v.shape[nb + 1:])
    return ci2, pi2, v2, batch


def _from_normal(layout, cidx, pidx, vals, batch, size, dtype, device, index_dtype=None,
                 requires_grad=False):
    """A compressed tensor from normal-form arrays (copied into new member tensors)."""
    blocked = _facts(layout)[1]
    batch = tuple(batch)
    nnz = pidx.shape[1]
    index_dtype = index_dtype or dt.int64
    ci = _tensor(cidx.reshape(batch + (cidx.shape[1],)), index_dtype, device)
    pi = _tensor(pidx.reshape(batch + (nnz,)), index_dtype, device)
    vshape = batch + (nnz,) + (tuple(vals.shape[2:4]) if blocked else ()) + tuple(vals.shape[4:])
    v = _tensor(vals.reshape(vshape), dtype, device)
    return _sp.make_compressed(layout, ci, pi, v, tuple(size))


def _with_values(t, values, layout=None, size=None):
    """``t``'s indices (shared, as torch's kernels share them) with new ``values``."""
    p = t._sparse
    return _sp.make_compressed(layout or p.layout, p.compressed_indices, p.plain_indices,
                               values, tuple(size or t._sizes))


def _is_compressed(t) -> bool:
    return bool(getattr(t, "_keyset", 0) & _sp.SPARSE_CSR_BITS)


def _layout_of(t):
    return _sp.layout_of(t)


# -- validation (torch's _validate_sparse_compressed_tensor_args) ---------------------

def _dtype_cname(d) -> str:
    return d._scalar_name


def _validate(compressed_indices, plain_indices, values, size, layout) -> None:
    """torch's checks of compressed-tensor arguments, in torch's order and words."""
    size = tuple(size)
    cname, pname, cdim, pdim = _index_names(layout.name)
    blocked = _facts(layout)[1]
    for t, name in ((plain_indices, pname), (compressed_indices, cname)):
        lay = _layout_of(t)
        check(lay is layouts.strided,
              lambda name=name, lay=lay: f"expected {name} to be a strided tensor but got "
                                         f"{_cname(lay)} tensor")
    batch_ndim = compressed_indices.dim() - 1
    block_ndim = 2 if blocked else 0
    dense_ndim = values.dim() - batch_ndim - block_ndim - 1
    vlay = _layout_of(values)
    check(vlay is layouts.strided,
          lambda: f"expected values to be a strided tensor but got {_cname(vlay)} tensor")
    check(batch_ndim >= 0, lambda: f"{cname} must have dimensionality >= 1 but got "
                                   f"{compressed_indices.dim()}")
    check(compressed_indices.dim() == plain_indices.dim(),
          lambda: f"{cname} and {pname} dimensionalities must be equal but got "
                  f"{compressed_indices.dim()} and {plain_indices.dim()}, respectively")
    check(dense_ndim >= 0,
          lambda: f"values must have dimensionality > sum of batch and block dimensionalities "
                  f"(={batch_ndim} + {block_ndim}) but got {values.dim()}")
    check(plain_indices._strides[-1] == 1,
          lambda: f"expected {pname} to be a contiguous tensor per batch")
    check(compressed_indices._strides[-1] == 1,
          lambda: f"expected {cname} to be a contiguous tensor per batch")
    check(len(size) == batch_ndim + 2 + dense_ndim,
          lambda: f"tensor dimensionality must be sum of batch, base, and dense "
                  f"dimensionalities (={batch_ndim} + 2 + {dense_ndim}) but got {len(size)}")
    vs = values._sizes
    blocksize = (max(1, vs[batch_ndim + 1]), max(1, vs[batch_ndim + 2])) if blocked else (1, 1)
    batchsize = list(size[:batch_ndim])
    cb = list(compressed_indices._sizes[:batch_ndim])
    pb = list(plain_indices._sizes[:batch_ndim])
    vb = list(vs[:batch_ndim])
    check(batchsize == cb == pb == vb,
          lambda: f"all batch dimensions of {cname} (={cb}), {pname} (={pb}), and values "
                  f"(={vb}) must be equal to tensor batch dimensions (={batchsize})")
    for i in range(block_ndim):
        check(size[batch_ndim + i] % blocksize[i] == 0,
              lambda i=i: f"tensor shape[{batch_ndim + i}] (={size[batch_ndim + i]}) must be "
                      f"divisible with blocksize[{i}] (={blocksize[i]}) as defined by "
                      f"values shape")
    nrows = size[batch_ndim] // blocksize[0]
    ncols = size[batch_ndim + 1] // blocksize[1]
    row_major = _facts(layout)[0]
    ncomp, nplain = (nrows, ncols) if row_major else (ncols, nrows)
    check(compressed_indices._sizes[-1] == ncomp + 1,
          lambda: f"{cname}.shape[-1] must be equal to the number of {cdim}s + 1 "
                  f"(={ncomp + 1}), but got {compressed_indices._sizes[-1]}")
    nnz = vs[batch_ndim]
    check(plain_indices._sizes[-1] == nnz,
          lambda: f"{pname}.shape[-1] must be equal to nnz (={nnz}) as defined by "
                  f"values.shape[{batch_ndim}], but got {plain_indices._sizes[-1]}")
    ct, pt = compressed_indices._dtype, plain_indices._dtype
    check(ct is pt, lambda: f"{cname} and {pname} must have the same dtype, bot got "
                            f"{_dtype_cname(ct)} and {_dtype_cname(pt)}, respectively")
    check(ct in (dt.int32, dt.int64),
          lambda: f"{cname} and {pname} dtype must be Int or Long, but got {_dtype_cname(ct)}")
    if plain_indices.numel() > 0:
        _validate_indices(row_major, compressed_indices, plain_indices, ncomp, nplain, nnz)


def _validate_indices(row_major, cidx_t, pidx_t, ncomp, nplain, nnz) -> None:
    """Invariants 5.1-5.6 of torch's compressed index check, in its order."""
    cname, pname, cdim, pdim = _index_names("sparse_csr" if row_major else "sparse_csc")
    short = {"row": "nrows", "column": "ncols"}
    bits = 32 if cidx_t._dtype is dt.int32 else 64
    lim = 1 << (bits - 1)
    for value, what in ((nplain, pdim), (ncomp, cdim), (nnz, None)):
        if not -lim <= value < lim:
            label = f"{what} dimension" if what else "nnz"
            raise RuntimeError(f"{bits}-bit integer overflow in {label} = {value}")
    ci = cidx_t._array().astype(np.int64)
    pi = pidx_t._array().astype(np.int64)
    check(((pi >= 0) & (pi < nplain)).all(),
          lambda: f"`0 <= {pname} < {short[pdim]}` is not satisfied.")
    B = math.prod(ci.shape[:-1])
    ci = ci.reshape(B, -1)
    pi = pi.reshape(B, -1)
    for b in range(B):
        row = ci[b]
        check(row[0] == 0, lambda: f"`{cname}[..., 0] == 0` is not satisfied.")
        check(row[-1] == nnz, lambda: f"`{cname}[..., -1] == nnz` is not satisfied.")
        steps = np.diff(row)
        bad_step = (steps < 0) | (steps > nplain)
        first_step = int(np.argmax(bad_step)) if bad_step.any() else ncomp
        # rows before the first bad step: their plain indices must increase strictly
        lengths = np.clip(steps[:first_step], 0, None)
        starts = row[:first_step]
        total = int(lengths.sum())
        if total:
            offset = np.arange(total) - np.repeat(np.cumsum(lengths) - lengths, lengths)
            pos = np.repeat(starts, lengths) + offset
            # (a slice reaching past nnz makes torch read past the indices: not checked)
            inner = (offset > 0) & (pos < nnz)
            pb = pi[b]
            bad = np.zeros(total, bool)
            bad[inner] = pb[pos[inner]] <= pb[pos[inner] - 1]
            if bad.any():
                raise RuntimeError(
                    f"`{pname}[..., {cname}[..., i - 1]:{cname}[..., i]] for all i = 1, ..., "
                    f"{short[cdim]} are sorted and distinct along the last dimension values` "
                    f"is not satisfied.")
        if first_step < ncomp:
            raise RuntimeError(
                f"`0 <= {cname}[..., 1:] - {cname}[..., :-1] <= {short[pdim]}` is not "
                f"satisfied.")


# -- construction ------------------------------------------------------------------------

def _layout_title(layout) -> str:
    return _sp.LAYOUT_TITLE.get(layout, _cname(layout))


def _estimate_size(cidx, pidx, values, layout) -> tuple:
    """torch's size of a compressed tensor built without ``size``."""
    cname, pname, _, _ = _index_names(layout.name)
    row_major, blocked = _facts(layout)
    block_ndim = 2 if blocked else 0
    batch_ndim = cidx.dim() - 1
    check(batch_ndim >= 0,
          lambda: f"{cname} must have dimensionality >= 1 but got {cidx.dim()}")
    check(cidx.dim() == pidx.dim(),
          lambda: f"{cname} and {pname} dimensionalities must be equal but got {cidx.dim()} "
                  f"and {pidx.dim()}, respectively")
    dense_ndim = values.dim() - batch_ndim - block_ndim - 1
    check(dense_ndim >= 0,
          lambda: f"values must have dimensionality > sum of batch and block dimensionalities "
                  f"(={batch_ndim} + {block_ndim}) but got {values.dim()}")
    vs = values._sizes
    bh, bw = (max(1, vs[batch_ndim + 1]), max(1, vs[batch_ndim + 2])) if blocked else (1, 1)
    ncomp = cidx._sizes[-1] - 1 if cidx._sizes[-1] > 0 else 0
    if pidx._dtype.category != dt.INT or pidx._dtype.name.startswith("uint") and \
            pidx._dtype is not dt.uint8:
        raise NotImplementedError(f'"estimate_sparse_compressed_tensor_size" not implemented '
                                  f"for '{pidx._dtype._scalar_name}'")
    nplain = int(pidx._array().max()) + 1 if pidx.numel() else 0
    size = list(cidx._sizes[:batch_ndim])
    if row_major:
        size += [ncomp * bh, nplain * bw]
    else:
        size += [nplain * bh, ncomp * bw]
    size += list(vs[batch_ndim + 1 + block_ndim:])
    return tuple(size)


def _check_compressed_layout(layout, what: str):
    if layout is None:
        raise RuntimeError(f"{what} expected sparse compressed tensor layout but got none")
    if layout not in _COMPRESSED:
        raise RuntimeError(f"{what} expected sparse compressed tensor layout but got "
                           f"{_layout_title(layout)}")


def _check_enabled() -> bool:
    # torch.sparse.check_sparse_tensor_invariants' switch (sparse/_construct.py)
    from ..sparse._construct import _CHECK
    return _CHECK[0]


def _make_checked(cidx, pidx, values, size, dtype, layout, device, check_now: bool):
    if check_now or _check_enabled():
        _validate(cidx, pidx, values, size, layout)
    dtype = dtype or dt._default_dtype[0]
    check(values._dtype is dtype, lambda: f"dtype of values ({values._dtype._scalar_name}) "
                                          f"must match dtype of sparse tensor "
                                          f"({dtype._scalar_name})")
    return _sp.make_compressed(layout, cidx, pidx, values, tuple(size))


def sparse_compressed_tensor_size(compressed_indices, plain_indices, values, size, dtype=None,
                                  layout=None, device=None, pin_memory=False):
    _check_compressed_layout(layout, "sparse_compressed_tensor")
    return _make_checked(compressed_indices, plain_indices, values, size, dtype, layout, device,
                         False)


def sparse_compressed_tensor_nosize(compressed_indices, plain_indices, values, dtype=None,
                                    layout=None, device=None, pin_memory=False):
    _check_compressed_layout(layout, "sparse_compressed_tensor")
    size = _estimate_size(compressed_indices, plain_indices, values, layout)
    return _make_checked(compressed_indices, plain_indices, values, size, dtype, layout, device,
                         False)


def _keyset_of(*ts) -> int:
    ks = 0
    for t in ts:
        ks |= t._keyset
    return ks


def _fixed_layout_ctor(kind: str, required):
    # torch's sparse_{csr,csc,bsr,bsc}_tensor call sparse_compressed_tensor through the
    # dispatcher, so autograd records SparseCompressedTensorBackward0 there
    def with_size(compressed_indices, plain_indices, values, size, dtype=None, layout=None,
                  device=None, pin_memory=False):
        if layout is not None:
            check(layout is required, lambda: f"sparse {kind} layout must be "
                                              f"{_layout_title(required)} but got "
                                              f"{_layout_title(layout)}")
        return get_op("aten::sparse_compressed_tensor.comp_plain_value_size").call(
            _keyset_of(compressed_indices, plain_indices, values), compressed_indices,
            plain_indices, values, size, dtype, required, device, pin_memory)

    def without_size(compressed_indices, plain_indices, values, dtype=None, layout=None,
                     device=None, pin_memory=False):
        if layout is not None:
            check(layout is required, lambda: f"sparse {kind} layout must be "
                                              f"{_layout_title(required)} but got "
                                              f"{_layout_title(layout)}")
        return get_op("aten::sparse_compressed_tensor.comp_plain_value").call(
            _keyset_of(compressed_indices, plain_indices, values), compressed_indices,
            plain_indices, values, dtype, required, device, pin_memory)
    return with_size, without_size


sparse_csr_tensor_size, sparse_csr_tensor_nosize = _fixed_layout_ctor("csr", layouts.sparse_csr)
sparse_csc_tensor_size, sparse_csc_tensor_nosize = _fixed_layout_ctor("csc", layouts.sparse_csc)
sparse_bsr_tensor_size, sparse_bsr_tensor_nosize = _fixed_layout_ctor("bsr", layouts.sparse_bsr)
sparse_bsc_tensor_size, sparse_bsc_tensor_nosize = _fixed_layout_ctor("bsc", layouts.sparse_bsc)
for _name in ("csr", "csc", "bsr", "bsc"):
    for _suffix in ("size", "nosize"):
        _fn = globals()[f"sparse_{_name}_tensor_{_suffix}"]
        _fn.__name__ = _fn.__qualname__ = f"sparse_{_name}_tensor_{_suffix}"
        _fn.__module__ = __name__


def sparse_compressed_tensor_unsafe(compressed_indices, plain_indices, values, size,
                                    dtype=None, layout=None, device=None, pin_memory=None):
    if layout is None:
        raise RuntimeError("sparse_compressed_tensor_unsafe expected sparse compressed tensor "
                           "layout but got none")
    _check_compressed_layout(layout, "sparse_compressed_tensor_unsafe")
    return _make_checked(compressed_indices, plain_indices, values, size, dtype, layout, device,
                         False)


def _unsafe_ctor(required):
    def unsafe(compressed_indices, plain_indices, values, size, dtype=None, layout=None,
               device=None, pin_memory=None):
        lay = layout or required
        check(lay is required, lambda: f"sparse compressed layout must be "
                                       f"{_layout_title(required)} but got {_layout_title(lay)}")
        return _make_checked(compressed_indices, plain_indices, values, size, dtype, lay,
                             device, False)
    unsafe.__name__ = unsafe.__qualname__ = f"sparse_{required.name[7:]}_tensor_unsafe"
    unsafe.__module__ = __name__
    return unsafe


sparse_csr_tensor_unsafe = _unsafe_ctor(layouts.sparse_csr)
sparse_csc_tensor_unsafe = _unsafe_ctor(layouts.sparse_csc)
sparse_bsr_tensor_unsafe = _unsafe_ctor(layouts.sparse_bsr)
sparse_bsc_tensor_unsafe = _unsafe_ctor(layouts.sparse_bsc)


def validate_sparse_compressed_tensor_args(compressed_indices, plain_indices, values, size,
                                           layout, check_pinning=None):
    check(layout in _COMPRESSED, lambda: f"validate_sparse_compressed_tensor_args expected "
                                         f"sparse compressed tensor layout but got "
                                         f"{_layout_title(layout)}")
    _validate(compressed_indices, plain_indices, values, size, layout)


def _validator(layout):
    def validate(compressed_indices, plain_indices, values, size, check_pinning=None):
        _validate(compressed_indices, plain_indices, values, size, layout)
    validate.__name__ = validate.__qualname__ = f"validate_sparse_{layout.name[7:]}_tensor_args"
    validate.__module__ = __name__
    return validate


validate_sparse_csr_tensor_args = _validator(layouts.sparse_csr)
validate_sparse_csc_tensor_args = _validator(layouts.sparse_csc)
validate_sparse_bsr_tensor_args = _validator(layouts.sparse_bsr)
validate_sparse_bsc_tensor_args = _validator(layouts.sparse_bsc)


# -- conversions -------------------------------------------------------------------------

def _ltitle(layout) -> str:
    return _layout_title(layout)


def _blocksize_of(t):
    p = t._sparse
    if not _facts(p.layout)[1]:
        return None
    nb = p.compressed_indices.dim() - 1
    return list(p.values._sizes[nb + 1:nb + 3])


def _dense_dim(t) -> int:
    if _is_compressed(t) or _sp.is_coo(t):
        return t._sparse.dense_dim
    return 0


def _check_to_sparse(funcname, self, layout_to, blocksize, dense_dim) -> None:
    """torch's argument checks of the sparse conversions (one set for all of them)."""
    layout_from = _layout_of(self)
    layout_to = layout_to or layouts.sparse_coo
    fr, to = _ltitle(layout_from), _ltitle(layout_to)
    if layout_from is layouts.sparse_coo and layout_to is not layouts.sparse_coo:
        check(self._sparse.sparse_dim == 2,
              lambda: f"{funcname}: conversion from {fr} to {to} for input tensors with "
                      f"sparse_dim()!=2 is not supported")
    if layout_from in (layouts.sparse_csr, layouts.sparse_csc) and \
            layout_to in (layouts.sparse_bsr, layouts.sparse_bsc):
        check(self._sparse.compressed_indices.dim() == 1,
              lambda: f"{funcname}: conversion from {fr} to {to} for batched inputs is not "
                      f"supported")
    blocked_to = layout_to in (layouts.sparse_bsr, layouts.sparse_bsc)
    if blocksize is not None:
        blocksize = list(blocksize)
        check(len(blocksize) == 2, lambda: f"{funcname}: blocksize needs to be a tuple of size "
                                           f"2, but got {len(blocksize)}")
        check(blocksize[0] > 0 and blocksize[1] > 0,
              lambda: f"{funcname}: blocksize needs to be positive, but got {blocksize}")
        if blocked_to:
            if layout_from in (layouts.sparse_bsr, layouts.sparse_bsc):
                bf = _blocksize_of(self)
                check(bf == blocksize, lambda: f"{funcname}: conversion from {fr} to {to} with "
                                               f"blocksize changed from {bf} to {blocksize} is "
                                               f"not supported")
            else:
                dd = (dense_dim or 0) if layout_from is layouts.strided else _dense_dim(self)
                nd = self.dim()
                r = self._sizes[nd - dd - 2] if nd - dd - 2 >= 0 else None
                c = self._sizes[nd - dd - 1] if nd - dd - 1 >= 0 else None
                if r is None or c is None:
                    raise IndexError(f"Dimension out of range (expected to be in range of "
                                     f"[{-max(nd, 1)}, {max(nd, 1) - 1}], but got "
                                     f"{-(dd + 2)})")
                check(r % blocksize[0] == 0 and c % blocksize[1] == 0,
                      lambda: f"{funcname}: tensor sparse size ({r},{c}) must be divisible by "
                              f"given blocksize ({blocksize[0]},{blocksize[1]})")
        else:
            raise RuntimeError(f"{funcname}: conversion from {fr} to {to} with blocksize "
                               f"argument given is not supported")
    elif blocked_to:
        raise RuntimeError(f"{funcname}: conversion from {fr} to {to} without blocksize "
                           f"argument given is not supported")
    if dense_dim is not None:
        check(layout_from is layouts.strided,
              lambda: f"{funcname}: conversion from {fr} to {to} with dense_dim argument given "
                      f"is not supported")
        nd = self.dim()
        if layout_to is layouts.sparse_coo:
            check(not (dense_dim == nd and nd > 0),
                  lambda: f"{funcname}: dense_dim argument must be !=self.dim() when "
                          f"self.dim()>0")
            check(0 <= dense_dim <= nd, lambda: f"{funcname}: dense_dim argument must be in "
                                                f"[0,{nd}] range, but {dense_dim} is given")
        else:
            check(0 <= dense_dim <= nd - 2,
                  lambda: f"{funcname}: dense_dim argument must be in [0,{nd - 2}] range, but "
                          f"{dense_dim} is given")


def _dense_to_compressed(self, layout, blocksize, dense_dim):
    funcname = "dense_to_" + layout.name
    _check_to_sparse(funcname, self, layout, blocksize, dense_dim)
    nd = self.dim()
    if nd < 2:
        # torch fails inside its index arithmetic on a 0-d or 1-d input
        if layout is layouts.sparse_csr:
            n = self.numel()
            raise IndexError(f"select(): index 1 out of range for tensor of size "
                             f"[{n}, {1 if nd else 0}] at dimension 1")
        got = 1 if layout is layouts.sparse_csc else -2
        raise IndexError(f"Dimension out of range (expected to be in range of "
                         f"[{-max(nd, 1)}, {max(nd, 1) - 1}], but got {got})")
    dd = dense_dim or 0
    row_major = _facts(layout)[0]
    cidx, pidx, vals = _np_dense_to_compressed(self._array(), row_major,
                                               tuple(blocksize) if blocksize else None, dd)
    batch = self._sizes[:nd - 2 - dd]
    return _from_normal(layout, cidx, pidx, vals, batch, self._sizes, self._dtype, self._device)


def dense_to_sparse_csr(self, dense_dim=None):
    return _dense_to_compressed(self, layouts.sparse_csr, None, dense_dim)


def dense_to_sparse_csc(self, dense_dim=None):
    return _dense_to_compressed(self, layouts.sparse_csc, None, dense_dim)


def dense_to_sparse_bsr(self, blocksize, dense_dim=None):
    return _dense_to_compressed(self, layouts.sparse_bsr, blocksize, dense_dim)


def dense_to_sparse_bsc(self, blocksize, dense_dim=None):
    return _dense_to_compressed(self, layouts.sparse_bsc, blocksize, dense_dim)


def _coo_elements(self):
    """(r, c, values) of a 2-sparse-dim COO tensor, coalesced (duplicates summed) and
    sorted row-major."""
    p = self._sparse
    idx = p.indices._array().astype(np.int64, copy=False)
    vals = p.values._array()
    r, c = idx[0], idx[1]
    if not p.coalesced and r.size:
        ncols = max(self._sizes[1], 1)
        key = r * ncols + c
        ukeys, inv = np.unique(key, return_inverse=True)
        inv = inv.reshape(-1)
        if ukeys.size != key.size:
            summed = np.zeros((ukeys.size,) + vals.shape[1:], vals.dtype)
            np.add.at(summed, inv, vals)
            vals = summed
        else:
            order = np.empty_like(inv)
            order[inv] = np.arange(inv.size)
            vals = vals[order]
        r, c = ukeys // ncols, ukeys % ncols
    return r, c, vals


def _coo_to_compressed(self, layout, blocksize, dense_dim):
    funcname = "coo_to_" + layout.name
    _check_to_sparse(funcname, self, layout, blocksize, dense_dim)
    r, c, vals = _coo_elements(self)
    b = np.zeros(r.shape, np.int64)
    R, C = self._sizes[0], self._sizes[1]
    cidx, pidx, out = _np_elements_to_compressed(
        b, r, c, vals, 1, R, C, _facts(layout)[0], tuple(blocksize) if blocksize else None)
    return _from_normal(layout, cidx, pidx, out, (), self._sizes, self._dtype, self._device)


def coo_to_sparse_csr(self, dense_dim=None):
    return _coo_to_compressed(self, layouts.sparse_csr, None, dense_dim)


def coo_to_sparse_csc(self, dense_dim=None):
    return _coo_to_compressed(self, layouts.sparse_csc, None, dense_dim)


def coo_to_sparse_bsr(self, blocksize, dense_dim=None):
    return _coo_to_compressed(self, layouts.sparse_bsr, blocksize, dense_dim)


def coo_to_sparse_bsc(self, blocksize, dense_dim=None):
    return _coo_to_compressed(self, layouts.sparse_bsc, blocksize, dense_dim)


def _recompress(self, layout, blocksize):
    """``self`` (any compressed layout) re-laid out as ``layout``: same entries, same
    batch, same dense dims."""
    ci, pi, v, batch = _normal(self)
    B = ci.shape[0]
    nb = len(batch)
    R, C = self._sizes[nb], self._sizes[nb + 1]
    b, r, c, vals = _np_compressed_to_elements(ci, pi, v, _facts(self._sparse.layout)[0])
    cidx, pidx, out = _np_elements_to_compressed(
        b, r, c, vals, B, R, C, _facts(layout)[0], tuple(blocksize) if blocksize else None)
    return _from_normal(layout, cidx, pidx, out, batch, self._sizes, self._dtype, self._device,
                        self._sparse.compressed_indices._dtype)


def _same_layout_copy(self):
    p = self._sparse
    return _sp.make_compressed(p.layout, p.compressed_indices, p.plain_indices, p.values,
                               self._sizes)


def sparse_compressed_to_sparse_csr(self, dense_dim=None):
    lay = self._sparse.layout
    _check_to_sparse("sparse_compressed_to_sparse_csr", self, layouts.sparse_csr, None,
                     dense_dim)
    check(lay in (layouts.sparse_csr, layouts.sparse_csc),
          lambda: f"sparse_compressed_to_sparse_csr: expected SparseCsr or SparseCsc layout "
                  f"but got {_ltitle(lay)}")
    if lay is layouts.sparse_csr:
        return _same_layout_copy(self)
    return _recompress(self, layouts.sparse_csr, None)


def sparse_compressed_to_sparse_csc(self, dense_dim=None):
    lay = self._sparse.layout
    _check_to_sparse("sparse_compressed_to_sparse_csc", self, layouts.sparse_csc, None,
                     dense_dim)
    check(lay in (layouts.sparse_csr, layouts.sparse_csc),
          lambda: f"sparse_compressed_to_sparse_csc: expected SparseCsr or SparseCsc layout "
                  f"but got {_ltitle(lay)}")
    if lay is layouts.sparse_csc:
        return _same_layout_copy(self)
    return _recompress(self, layouts.sparse_csc, None)


def sparse_compressed_to_sparse_bsr(self, blocksize, dense_dim=None):
    lay = self._sparse.layout
    _check_to_sparse("sparse_compressed_to_sparse_bsr", self, layouts.sparse_bsr, blocksize,
                     dense_dim)
    if lay is layouts.sparse_bsr:
        return _same_layout_copy(self)
    return _recompress(self, layouts.sparse_bsr, blocksize)


def sparse_compressed_to_sparse_bsc(self, blocksize, dense_dim=None):
    lay = self._sparse.layout
    _check_to_sparse("sparse_compressed_to_sparse_bsc", self, layouts.sparse_bsc, blocksize,
                     dense_dim)
    if lay is layouts.sparse_bsc:
        return _same_layout_copy(self)
    return _recompress(self, layouts.sparse_bsc, blocksize)


def sparse_compressed_to_dense(self, dtype=None, masked_grad=None):
    check(dtype is None, lambda: "dtype argument is not supported by sparse_csr_to_dense")
    if self._device.type == "meta":
        return empty(self._sizes, self._dtype, None, self._device)
    ci, pi, v, batch = _normal(self)
    nb = len(batch)
    result = empty(self._sizes, self._dtype, None, self._device)
    arr = result._array()
    arr[...] = 0
    _np_compressed_to_dense(ci, pi, v, batch, self._sizes[nb], self._sizes[nb + 1],
                            _facts(self._sparse.layout)[0], arr)
    return result


def _to_coo(self, sparse_dim=None):
    """COO of a compressed tensor: batch dims become sparse dims, blocks are expanded
    (their zeros kept), dense dims stay dense. torch flags the result coalesced when it
    comes from a row layout with one-row blocks, or holds a single block."""
    lay = self._sparse.layout
    ci, pi, v, batch = _normal(self)
    nb = len(batch)
    b, r, c, vals = _np_compressed_to_elements(ci, pi, v, _facts(lay)[0])
    rows = list(np.unravel_index(b, batch)) if nb else []
    idx = np.stack(rows + [r, c])
    coalesced = (_facts(lay)[0] and v.shape[2] == 1) or pi.shape[1] == 1
    indices = _tensor(idx.astype(np.int64).reshape(nb + 2, -1), dt.int64, self._device)
    values = _tensor(vals, self._dtype, self._device)
    return _sp.make_coo(indices, values, self._sizes, coalesced=coalesced)


def sparse_compressed_to_sparse(self, layout=None, blocksize=None, dense_dim=None):
    lay_to = layout or layouts.sparse_coo
    _check_to_sparse("sparse_compressed_to_sparse", self, layout, blocksize, dense_dim)
    if lay_to is layouts.sparse_coo:
        return _to_coo(self)
    if lay_to is layouts.strided:
        return sparse_compressed_to_dense(self)
    if lay_to is layouts.sparse_csr:
        return sparse_compressed_to_sparse_csr(self)
    if lay_to is layouts.sparse_csc:
        return sparse_compressed_to_sparse_csc(self)
    if lay_to is layouts.sparse_bsr:
        return sparse_compressed_to_sparse_bsr(self, blocksize)
    return sparse_compressed_to_sparse_bsc(self, blocksize)


def sparse_compressed_to_sparse_sparse_dim(self, sparse_dim):
    lay = self._sparse.layout
    check(sparse_dim == 2, lambda: f"sparse_compressed_to_sparse: conversion from "
                                   f"{_ltitle(lay)} to Sparse with sparse_dim argument !=2 is "
                                   f"not supported")
    return _to_coo(self)


# -- the to_sparse_* entry points (torch's composites: same layout returns self) ----------

def _S():
    import strided
    return strided


def to_sparse_csr_composite(self, dense_dim=None):
    if _layout_of(self) is layouts.sparse_csr:
        _check_to_sparse("to_sparse_csr", self, layouts.sparse_csr, None, dense_dim)
        return self
    return self._to_sparse_csr(dense_dim)


def to_sparse_csc_composite(self, dense_dim=None):
    if _layout_of(self) is layouts.sparse_csc:
        _check_to_sparse("to_sparse_csc", self, layouts.sparse_csc, None, dense_dim)
        return self
    return self._to_sparse_csc(dense_dim)


def to_sparse_bsr_composite(self, blocksize, dense_dim=None):
    if _layout_of(self) is layouts.sparse_bsr:
        _check_to_sparse("to_sparse_bsr", self, layouts.sparse_bsr, blocksize, dense_dim)
        return self
    return self._to_sparse_bsr(blocksize, dense_dim)


def to_sparse_bsc_composite(self, blocksize, dense_dim=None):
    if _layout_of(self) is layouts.sparse_bsc:
        _check_to_sparse("to_sparse_bsc", self, layouts.sparse_bsc, blocksize, dense_dim)
        return self
    return self._to_sparse_bsc(blocksize, dense_dim)


# -- accessors ---------------------------------------------------------------------------

def _member_alias(t):
    return t.detach()


def _accessor(name: str, row: bool, member: str):
    kind = "row" if row else "column"

    def default(self):
        raise RuntimeError(f"{name} expected sparse {kind} compressed tensor layout but got "
                           f"{_layout_title(_layout_of(self))}")

    def kernel(self):
        lay = self._sparse.layout
        if _facts(lay)[0] != row:
            default(self)
        return _member_alias(getattr(self._sparse, member))
    default.__name__ = default.__qualname__ = f"{name}_default"
    kernel.__name__ = kernel.__qualname__ = f"{name}_sparse_csr"
    default.__module__ = kernel.__module__ = __name__
    return default, kernel


crow_indices_default, crow_indices_sparse_csr = _accessor("crow_indices", True,
                                                          "compressed_indices")
col_indices_default, col_indices_sparse_csr = _accessor("col_indices", True, "plain_indices")
ccol_indices_default, ccol_indices_sparse_csr = _accessor("ccol_indices", False,
                                                          "compressed_indices")
row_indices_default, row_indices_sparse_csr = _accessor("row_indices", False, "plain_indices")


def _values_compressed(self):
    return _member_alias(self._sparse.values)


def _nnz_compressed(self):
    return self._sparse.plain_indices._sizes[-1]


def _sparse_dim_compressed(self):
    return 2


def _dense_dim_compressed(self):
    return self._sparse.dense_dim


# -- metadata and copies -------------------------------------------------------------------

def _clone_compressed(self, memory_format=None):
    check(memory_format is None or memory_format is layouts.preserve_format,
          lambda: f"unsupported memory format option {memory_format}")
    p = self._sparse
    return _sp.make_compressed(p.layout, p.compressed_indices.clone(), p.plain_indices.clone(),
                               p.values.clone(), self._sizes)


def _detach_compressed(self):
    return _same_layout_copy(self)


def _to_copy_compressed(self, dtype=None, layout=None, device=None, pin_memory=None,
                        non_blocking=False, memory_format=None):
    p = self._sparse
    if layout is not None and layout is not p.layout:
        raise RuntimeError(f"to(options) doesn't support converting to a different layout, but "
                           f"got self.layout being {_layout_title(p.layout)} and "
                           f"options.layout set as {_layout_title(layout)}")
    values = _call("_to_copy", p.values, dtype, None, device, None, non_blocking, None)
    ci = _call("_to_copy", p.compressed_indices, None, None, device, None, non_blocking, None)
    pi = _call("_to_copy", p.plain_indices, None, None, device, None, non_blocking, None)
    return _sp.make_compressed(p.layout, ci, pi, values, self._sizes)


_FLIP = {layouts.sparse_csr: layouts.sparse_csc, layouts.sparse_csc: layouts.sparse_csr,
         layouts.sparse_bsr: layouts.sparse_bsc, layouts.sparse_bsc: layouts.sparse_bsr}


def _transpose_compressed(self, dim0, dim1):
    from ..core.checks import maybe_wrap_dim
    nd = len(self._sizes)
    d0, d1 = maybe_wrap_dim(dim0, nd), maybe_wrap_dim(dim1, nd)
    p = self._sparse
    if d0 == d1:
        return _same_layout_copy(self)
    check(p.dense_dim == 0, "transpose(): hybrid sparse compressed tensors with dense dimensions "
                            "are not supported")
    nb = p.compressed_indices.dim() - 1
    lo, hi = min(d0, d1), max(d0, d1)
    if lo == nb and hi == nb + 1:
        # the two sparse dims: the same arrays read the other way round (CSR <-> CSC)
        values = p.values
        if _facts(p.layout)[1]:
            values = values.transpose(nb + 1, nb + 2)
        sizes = list(self._sizes)
        sizes[nb], sizes[nb + 1] = sizes[nb + 1], sizes[nb]
        return _sp.make_compressed(_FLIP[p.layout], p.compressed_indices, p.plain_indices,
                                   values, tuple(sizes))
    if hi < nb:
        # two batch dims: every member's batch dims swap
        sizes = list(self._sizes)
        sizes[d0], sizes[d1] = sizes[d1], sizes[d0]
        return _sp.make_compressed(p.layout, p.compressed_indices.transpose(d0, d1).contiguous(),
                                   p.plain_indices.transpose(d0, d1).contiguous(),
                                   p.values.transpose(d0, d1).contiguous(), tuple(sizes))

    def kind(d):
        return "Batch" if d < nb else "Sparse"
    raise RuntimeError(f"transpose(): can only transpose dimensions of the same type (Batch, "
                       f"Sparse, Dense), got {d0}({kind(d0)}) and {d1}({kind(d1)})")


def _t_compressed(self):
    nd = len(self._sizes)
    check(nd <= 2, lambda: f"t() expects a tensor with <= 2 dimensions, but self is {nd}D")
    return _transpose_compressed(self, 0, 1)


# -- elementwise -------------------------------------------------------------------------

# torch's sparsity-preserving unary ops on the compressed layouts (SparseCsrCPU kernels)
_UNARY = ("abs", "neg", "sgn", "sign", "sin", "sinh", "tan", "tanh", "asin", "asinh", "atan",
          "atanh", "ceil", "floor", "round", "trunc", "frac", "expm1", "log1p", "sqrt", "erf",
          "erfinv", "rad2deg", "deg2rad", "relu")
_UNARY_NO_INPLACE = ("angle", "isnan", "isinf", "isposinf", "isneginf", "signbit")


def _unary_kernel(name):
    def kernel(self):
        return _with_values(self, _call(name, self._sparse.values))

    def kernel_(self):
        _call(name + "_", self._sparse.values)
        self._vc[0] += 1
        return self
    kernel.__name__ = kernel.__qualname__ = f"_{name}_sparse_compressed"
    kernel_.__name__ = kernel_.__qualname__ = f"_{name}__sparse_compressed"
    return kernel, kernel_


def _conj_physical_compressed(self):
    return _with_values(self, _call("_conj_physical", self._sparse.values))


def _same_pattern(a, b) -> bool:
    pa, pb = a._sparse, b._sparse
    if a._device.type == "meta":
        # no indices to compare: the shapes decide (a meta result is shape-only)
        return pa.layout is pb.layout and pa.values._sizes == pb.values._sizes
    return (pa.layout is pb.layout and a._sizes == b._sizes
            and pa.plain_indices._sizes == pb.plain_indices._sizes
            and np.array_equal(pa.compressed_indices._array(), pb.compressed_indices._array())
            and np.array_equal(pa.plain_indices._array(), pb.plain_indices._array()))


def _elementwise_pair(a, b, combine):
    """``combine(values_a, values_b)`` over the union of two compressed tensors' entries
    (same layout, shape and blocksize); a missing entry reads as zero."""
    if _same_pattern(a, b):
        return _with_values(a, combine(a._sparse.values, b._sparse.values))
    lay = a._sparse.layout
    row_major = _facts(lay)[0]
    ca, pa_, va, batch = _normal(a)
    cb, pb_, vb, _ = _normal(b)
    nb = len(batch)
    R, C = a._sizes[nb], a._sizes[nb + 1]
    bh, bw = va.shape[2], va.shape[3]
    Mr, Mc = R // bh, C // bw
    N = Mc if row_major else Mr

    def keys(ci, pi):
        B, nnz = pi.shape
        counts = np.diff(ci.astype(np.int64), axis=1).ravel()
        comp = np.repeat(np.tile(np.arange(ci.shape[1] - 1), B), counts)
        bb = np.repeat(np.arange(B), nnz)
        return (bb * (Mr * Mc) + comp * N + pi.astype(np.int64).ravel())
    ka, kb = keys(ca, pa_), keys(cb, pb_)
    union, inv = np.unique(np.concatenate([ka, kb]), return_inverse=True)
    inv = inv.reshape(-1)
    B = ca.shape[0]
    dense = va.shape[2:]
    za = np.zeros((union.size,) + dense, va.dtype)
    zb = np.zeros((union.size,) + dense, vb.dtype)
    za[inv[:ka.size]] = va.reshape((-1,) + dense)
    zb[inv[ka.size:]] = vb.reshape((-1,) + dense)
    per = np.bincount(union // (Mr * Mc), minlength=B) if B else np.zeros(0, np.int64)
    check(B <= 1 or (per == per[0]).all(),
          lambda: "Expect the same number of specified elements per batch.")
    nnz = int(per[0]) if B else 0
    bo = union // (Mr * Mc)
    rem = union % (Mr * Mc)
    comp, plain = rem // N, rem % N
    M = Mr if row_major else Mc
    cidx = np.zeros((B, M + 1), np.int64)
    if B and M:
        np.cumsum(np.bincount(bo * M + comp, minlength=B * M).reshape(B, M), axis=1,
                  out=cidx[:, 1:])
    blocked = _facts(lay)[1]
    vshape = tuple(batch) + (nnz,) + ((bh, bw) if blocked else ()) + tuple(va.shape[4:])
    ta = _tensor(za.reshape(vshape), a._dtype, a._device)
    tb = _tensor(zb.reshape(vshape), b._dtype, b._device)
    vals = combine(ta, tb)
    idt = a._sparse.compressed_indices._dtype
    ci_t = _tensor(cidx.reshape(tuple(batch) + (M + 1,)), idt, a._device)
    pi_t = _tensor(plain.reshape(tuple(batch) + (nnz,)), idt, a._device)
    return _sp.make_compressed(lay, ci_t, pi_t, vals, a._sizes)


def _is_tensor(x) -> bool:
    return hasattr(x, "_keyset")


def _add_compressed(self, other, alpha=1):
    S = _S()
    if not _is_tensor(other) or (_is_compressed(self) and not _is_compressed(other) and
                                 len(other._sizes) == 0):
        # torch wraps the number and reports the shapes the other way round
        raise RuntimeError(f"add: expected 'self' and 'other' to have same size, but self has "
                           f"size [] while other has size {list(self._sizes)} (FYI: "
                           f"op2-sparse addition does not currently support broadcasting)")
    if _is_compressed(self) and _is_compressed(other):
        check(self._sizes == other._sizes,
              lambda: f"torch.add: Expected input tensors to have the same shape, but got "
                      f"tensor `self` with shape {list(self._sizes)} and tensor `other` with "
                      f"shape {list(other._sizes)}")
        la, lb = self._sparse.layout, other._sparse.layout
        if la in (layouts.sparse_csc, layouts.sparse_bsc) or lb in (layouts.sparse_csc,
                                                                     layouts.sparse_bsc):
            bad = la if la in (layouts.sparse_csc, layouts.sparse_bsc) else lb
            raise RuntimeError(f"crow_indices expected sparse row compressed tensor layout but "
                               f"got {_layout_title(bad)}")
        if _facts(la)[1]:
            bs = _blocksize_of(self)
            check(bs[0] == bs[1], "MKL Sparse doesn't support matrices with non-square blocks.")
        check(self._dtype is other._dtype,
              lambda: f"expected scalar type {other._dtype._scalar_name} but found "
                      f"{self._dtype._scalar_name}")
        if self._dtype.category not in (dt.FLOAT, dt.COMPLEX) or \
                self._dtype in (dt.float16, dt.bfloat16):
            raise NotImplementedError(f"\"add_out_sparse_csr_impl_mkl\" not implemented for "
                                      f"'{self._dtype._scalar_name}'")
        return _elementwise_pair(self, other, lambda a, b: S.add(a, b, alpha=alpha))
    if _is_compressed(other):
        # dense + sparse: dense
        check(self._sizes == other._sizes,
              lambda: f"add: expected 'self' and 'other' to have same size, but self has size "
                      f"{list(self._sizes)} while other has size {list(other._sizes)} (FYI: "
                      f"dense-sparse addition does not currently support broadcasting)")
        return S.add(self, other._to_dense(), alpha=alpha)
    # sparse + dense
    check(self._sizes == other._sizes,
          lambda: f"add: expected 'self' and 'other' to have same size, but self has size "
                  f"{list(self._sizes)} while other has size {list(other._sizes)} (FYI: "
                  f"op2-sparse addition does not currently support broadcasting)")
    return S.add(self._to_dense(), other, alpha=alpha)


def _add_compressed_(self, other, alpha=1):
    if _is_compressed(self) and not _is_compressed(other):
        _sp.is_contiguous(self)          # torch: a dense result cannot go into self
    if _is_compressed(self) and (self._dtype.category not in (dt.FLOAT, dt.COMPLEX) or
                                 self._dtype in (dt.float16, dt.bfloat16)):
        raise NotImplementedError(f"\"add_out_sparse_csr_impl_mkl\" not implemented for "
                                  f"'{self._dtype._scalar_name}'")
    if _is_compressed(self) and _is_compressed(other):
        check(self._dtype is other._dtype,
              lambda: f"expected scalar type {self._dtype._scalar_name} but found "
                      f"{other._dtype._scalar_name}")
    out = _add_compressed(self, other, alpha)
    if _is_compressed(self):
        _assign(self, out)
        return self
    self.copy_(out)
    return self


def _assign(self, out):
    """Make ``self`` hold ``out``'s members (in-place ops on a compressed tensor)."""
    p, q = self._sparse, out._sparse
    values = q.values
    check(dt.can_cast(values._dtype, self._dtype),
          lambda: f"result type {values._dtype._scalar_name} can't be cast to the desired "
                  f"output type {self._dtype._scalar_name}")
    if values._dtype is not self._dtype:
        values = _call("_to_copy", values, self._dtype, None, None, None, False, None)
    p.compressed_indices, p.plain_indices, p.values = (q.compressed_indices, q.plain_indices,
                                                       values)
    p.dense_dim = q.dense_dim
    self._vc[0] += 1


def _mul_compressed(self, other):
    S = _S()
    if not _is_tensor(other) or (not _is_compressed(other) and len(other._sizes) == 0):
        return _with_values(self, S.mul(self._sparse.values, other))
    if not _is_compressed(self) and len(self._sizes) == 0:
        return _with_values(other, S.mul(self, other._sparse.values))
    if _is_compressed(self) and _is_compressed(other):
        if self._dtype is dt.bool_ or other._dtype is dt.bool_:
            raise NotImplementedError("\"mul_out_sparse\" not implemented for 'Bool'")
        check(self._sizes == other._sizes,
              lambda: f"mul(sparse, sparse): expected 'self' and 'other' to have same size, "
                      f"but {list(self._sizes)} != {list(other._sizes)}")
        both = _elementwise_pair(self, other, lambda a, b: S.mul(a, b))
        # torch's sparse-sparse product comes back with int64 indices
        return _drop_missing(both, self, other, dt.int64)
    sparse, dense = (self, other) if _is_compressed(self) else (other, self)
    if self._dtype is dt.bool_ and other._dtype is dt.bool_:
        raise NotImplementedError("\"mul_out_sparse\" not implemented for 'Bool'")
    check(sparse._sizes == dense._sizes,
          lambda: f"sparse_mask(): operands have incompatible sizes; self has size "
                  f"{list(dense._sizes)} but mask has size {list(sparse._sizes)}")
    picked = _gather_dense(dense, sparse)
    return _with_values(sparse, S.mul(sparse._sparse.values, picked) if sparse is self
                        else S.mul(picked, sparse._sparse.values))


def _drop_missing(result, a, b, index_dtype=None):
    """Keep only the entries present in both ``a`` and ``b`` (mul's intersection)."""
    lay = a._sparse.layout
    row_major = _facts(lay)[0]
    ca, pa_, va, batch = _normal(a)
    cb, pb_, vb, _ = _normal(b)
    cr, pr, vr, _ = _normal(result)
    nb = len(batch)
    R, C = a._sizes[nb], a._sizes[nb + 1]
    bh, bw = va.shape[2], va.shape[3]
    Mr, Mc = R // bh, C // bw
    N = Mc if row_major else Mr

    def keys(ci, pi):
        B, nnz = pi.shape
        counts = np.diff(ci.astype(np.int64), axis=1).ravel()
        comp = np.repeat(np.tile(np.arange(ci.shape[1] - 1), B), counts)
        bb = np.repeat(np.arange(B), nnz)
        return bb * (Mr * Mc) + comp * N + pi.astype(np.int64).ravel()
    keep = np.isin(keys(cr, pr), np.intersect1d(keys(ca, pa_), keys(cb, pb_)))
    b, r, c, vals = _np_compressed_to_elements(cr, pr, vr, row_major)
    if bh * bw != 1:
        keep = np.repeat(keep, bh * bw)
    B = cr.shape[0]
    cidx, pidx, out = _np_elements_to_compressed(
        b[keep], r[keep], c[keep], vals[keep], B, R, C, row_major,
        (bh, bw) if _facts(lay)[1] else None)
    return _from_normal(lay, cidx, pidx, out, batch, a._sizes, result._dtype, a._device,
                        index_dtype or a._sparse.compressed_indices._dtype)


def _gather_dense(dense, sparse):
    """The entries of a dense tensor at a compressed tensor's specified positions, shaped
    like its values."""
    ci, pi, v, batch = _normal(sparse)
    nb = len(batch)
    arr = dense._array()
    lay = sparse._sparse.layout
    B = ci.shape[0]
    R, C = sparse._sizes[nb], sparse._sizes[nb + 1]
    bh, bw = v.shape[2], v.shape[3]
    dshape = arr.shape[nb + 2:]
    a = arr.reshape((B, R // bh, bh, C // bw, bw) + dshape)
    a = np.moveaxis(a, 2, 3)                             # (B, Mr, Mc, bh, bw) + dense
    counts = np.diff(ci.astype(np.int64), axis=1).ravel()
    comp = np.repeat(np.tile(np.arange(ci.shape[1] - 1), B), counts)
    bb = np.repeat(np.arange(B), pi.shape[1])
    plain = pi.astype(np.int64).ravel()
    picked = a[bb, comp, plain] if _facts(lay)[0] else a[bb, plain, comp]
    blocked = _facts(lay)[1]
    shape = tuple(batch) + (pi.shape[1],) + ((bh, bw) if blocked else ()) + tuple(dshape)
    return _tensor(np.ascontiguousarray(picked).reshape(shape), dense._dtype, dense._device)


_SCALAR_DTYPES = ((bool, "bool_"), (int, "int64"), (float, "float64"), (complex, "complex128"))


def _mul_compressed_(self, other):
    if not _is_tensor(other):
        # torch checks a number's own type (double for a float) against self's
        for kind, name in _SCALAR_DTYPES:
            if type(other) is kind:
                sd = getattr(dt, name)
                check(dt.can_cast(sd, self._dtype),
                      lambda sd=sd: f"result type {sd._scalar_name} can't be cast to the "
                                    f"desired output type {self._dtype._scalar_name}")
    out = _mul_compressed(self, other)
    _assign(self, out)
    return self


def _sparse_mask_compressed(self, mask):
    check(self._sizes == mask._sizes,
          lambda: f"sparse_mask(): operands have incompatible sizes; self has size "
                  f"{list(self._sizes)} but mask has size {list(mask._sizes)}")
    src = self._to_dense() if _sp.is_sparse(self) else self
    return _with_values(mask, _gather_dense(src, mask))


def _zero_compressed_(self):
    p = self._sparse
    nb = p.compressed_indices.dim() - 1
    batch = self._sizes[:nb]
    idt = p.compressed_indices._dtype
    p.compressed_indices = _tensor(np.zeros(tuple(p.compressed_indices._sizes), np.int64), idt,
                                   self._device)
    p.plain_indices = empty(tuple(batch) + (0,), idt, None, self._device)
    vs = list(p.values._sizes)
    vs[nb] = 0
    p.values = empty(tuple(vs), self._dtype, None, self._device)
    self._vc[0] += 1
    return self


# -- *_like, fill_, copy_ -------------------------------------------------------------------

def _check_like_layout(self, layout):
    lay = self._sparse.layout
    check(layout is None or layout is lay,
          lambda: f"empty_like with different sparse layout is not supported (self is "
                  f"{_layout_title(lay)} but you requested {_layout_title(layout)})")


def _empty_like_compressed(self, dtype=None, layout=None, device=None, pin_memory=None,
                           memory_format=None):
    """torch's empty_like of a compressed tensor: copies of its indices around
    uninitialised values."""
    _check_like_layout(self, layout)
    p = self._sparse
    values = empty(p.values._sizes, dtype or self._dtype, None, device or self._device)
    return _sp.make_compressed(p.layout, p.compressed_indices.clone(), p.plain_indices.clone(),
                               values, self._sizes)


def _zeros_like_compressed(self, dtype=None, layout=None, device=None, pin_memory=None,
                           memory_format=None):
    _check_like_layout(self, layout)
    out = _empty_like_compressed(self, dtype, layout, device, pin_memory, memory_format)
    return _zero_compressed_(out)


def _ones_like_compressed(self, dtype=None, layout=None, device=None, pin_memory=None,
                          memory_format=None):
    out = _empty_like_compressed(self, dtype, layout, device, pin_memory, memory_format)
    return _fill_compressed_(out, 1)


def _new_factory(name):
    def new(self, size, dtype=None, layout=None, device=None, pin_memory=None):
        lay = layout or self._sparse.layout
        dtype = dtype or self._dtype
        device = device or self._device
        if lay is layouts.strided:
            out = empty(tuple(size), dtype, None, device)
            if name == "zeros":
                out._array()[...] = 0
            return out
        # torch's new_zeros is empty + zero_: its refusals name torch.empty
        return _compressed_factory(lay)(tuple(size), dtype, device, "empty")
    new.__name__ = new.__qualname__ = f"_new_{name}_compressed"
    return new


def _fill_compressed_(self, value):
    _call("fill_.Scalar", self._sparse.values, value)
    self._vc[0] += 1
    return self


def _copy_compressed_(self, src, non_blocking=False):
    if not _is_compressed(self):
        raise RuntimeError(f"copy_sparse_compressed_ expected sparse compressed tensor layout "
                           f"but got {_layout_title(_layout_of(self))}")
    ls, lt = self._sparse.layout, _layout_of(src)
    check(ls is lt, lambda: f"torch.copy_: copy of sparse compressed tensors having different "
                            f"layouts is not supported. self layout is {_layout_title(ls)} and "
                            f"src layout is {_layout_title(lt)}")
    p, q = self._sparse, src._sparse
    check(p.plain_indices._sizes[-1] == q.plain_indices._sizes[-1],
          "torch.copy_: only sparse compressed tensors with the same number of specified "
          "elements are supported.")
    _call("copy_", p.compressed_indices, q.compressed_indices, non_blocking)
    _call("copy_", p.plain_indices, q.plain_indices, non_blocking)
    _call("copy_", p.values, q.values, non_blocking)
    self._vc[0] += 1
    return self


# -- reductions --------------------------------------------------------------------------

def _sum_compressed(self, dtype=None):
    return _S().sum(self._sparse.values, dtype=dtype)


def sparse_csr_sum_cpu(self, dim, keepdim=False, dtype=None):
    """``_sparse_csr_sum.dim_dtype``: a CSR row or column sum, kept as CSR."""
    from ..core.checks import maybe_wrap_dim
    S = _S()
    lay = self._sparse.layout
    check(lay is layouts.sparse_csr,
          lambda: f"Expected {_layout_title(layouts.sparse_csr)} layout but got "
                  f"{_layout_title(lay)}")
    check(keepdim, "reduction operations on CSR tensors with keepdim=False is unsupported")
    nd = len(self._sizes)
    dims = sorted({maybe_wrap_dim(d, nd) for d in dim})
    # torch's kernel asserts a 2-d input (its message names its source line)
    check(nd == 2, 'input_dim == 2 INTERNAL ASSERT FAILED at "/__w/pytorch/pytorch/aten/src/'
                   'ATen/native/sparse/SparseCsrTensorMath.cpp":1320, please report a bug to '
                   'PyTorch. ')
    dense = self._to_dense()
    out = S.sum(dense, dims, keepdim=True, dtype=dtype)
    ci, pi, v, batch = _normal(self)
    counts = np.diff(ci[0].astype(np.int64))
    R, C = self._sizes
    if dims == [0, 1]:
        present = np.array([[pi.shape[1] > 0]])
    elif dims == [1]:
        present = (counts > 0).reshape(R, 1)
    else:
        present = np.zeros((1, C), bool)
        present[0, np.unique(pi[0])] = True
    cidx, pidx, vals = _np_dense_to_compressed(present, True, None, 0)
    picked = out._array()[present]
    vals = picked.reshape(vals.shape)
    return _from_normal(layouts.sparse_csr, cidx, pidx, vals, (), out._sizes, out._dtype,
                        self._device, self._sparse.compressed_indices._dtype)


def _sum_dim_compressed(self, dim, keepdim=False, dtype=None):
    if dim is None or len(dim) == 0:
        return _sum_compressed(self, dtype)
    lay = self._sparse.layout
    check(lay is layouts.sparse_csr,
          lambda: f"Currently the only compressed sparse format supported for sum.dim_IntList "
                  f"is CSR, but got layout {_layout_title(lay)}")
    return _S()._sparse_csr_sum(self, dim, keepdim, dtype=dtype)


# -- products ----------------------------------------------------------------------------

_MM_DTYPES = ("float32", "float64", "complex64", "complex128")


def _csr_arrays(t, transpose: bool = False):
    """(crow, col, values 1-D) of a 2-D compressed tensor without dense dims read as CSR, or
    of its transpose. CSR (CSC for the transpose) is read as is; other layouts re-sort."""
    lay = t._sparse.layout
    ci, pi, v, batch = _normal(t)
    R, C = t._sizes
    want_row = not transpose
    if _facts(lay) == (want_row, False):
        return ci[0], pi[0], v.reshape(-1)
    b, r, c, vals = _np_compressed_to_elements(ci, pi, v, _facts(lay)[0])
    if transpose:
        r, c, R, C = c, r, C, R
    cidx, pidx, out = _np_elements_to_compressed(b, r, c, vals, 1, R, C, True, None)
    return cidx[0], pidx[0], out.reshape(-1)


def _check_mm_args(mat1, mat2, what="addmm"):
    for t in (mat1, mat2):
        if len(t._sizes) != 2:
            raise IndexError(f"Dimension out of range (expected to be in range of "
                             f"[{-max(len(t._sizes), 1)}, {max(len(t._sizes), 1) - 1}], but got "
                             f"{1 if len(t._sizes) == 1 else -2})")
    check(mat1._sizes[1] == mat2._sizes[0],
          lambda: f"mat1 and mat2 shapes cannot be multiplied ({mat1._sizes[0]}x"
                  f"{mat1._sizes[1]} and {mat2._sizes[0]}x{mat2._sizes[1]})")
    check(mat1._dtype is mat2._dtype,
          lambda: f"expected scalar type {mat1._dtype._scalar_name} but found "
                  f"{mat2._dtype._scalar_name}")


def _spmm(mat1, mat2, self_title="Strided"):
    """``mat1 @ mat2`` (one compressed operand, one strided) as a NumPy array."""
    d = mat1._dtype
    if d.name not in _MM_DTYPES:
        raise NotImplementedError(f"\"addmm_out_sparse_csr_impl_mkl\" not implemented for "
                                  f"'{d._scalar_name}'")
    if _is_compressed(mat1):
        lay = mat1._sparse.layout
        if lay is layouts.sparse_bsc:
            raise RuntimeError(f"addmm: computation on CPU is not implemented for {self_title} "
                               f"+ SparseBsc @ Strided")
        if lay is layouts.sparse_bsr:
            bs = _blocksize_of(mat1)
            check(bs[0] == bs[1], "MKL Sparse doesn't support matrices with non-square blocks.")
        check(mat1._sparse.dense_dim == 0, "Sparse CSR tensors do not have strides")
        cr, ci, v = _csr_arrays(mat1)
        m, k = mat1._sizes
        return _np_csr_matmul(cr, ci, v, m, k, mat2._array(), d.np)
    lay = mat2._sparse.layout
    if lay in (layouts.sparse_bsr, layouts.sparse_bsc):
        raise RuntimeError(f"addmm: computation on CPU is not implemented for {self_title} + "
                           f"Strided @ {_layout_title(lay)}")
    check(mat2._sparse.dense_dim == 0, "Sparse CSR tensors do not have strides")
    # A @ S = (S^T @ A^T)^T, S^T read as CSR from S's column-compressed arrays
    cr, ci, v = _csr_arrays(mat2, transpose=True)
    k, n = mat2._sizes
    out_t = _np_csr_matmul(cr, ci, v, n, k, mat1._array().T, d.np)
    return np.ascontiguousarray(out_t.T)


def _np_csr_spgemm(ca, pa, va, cb, pb, vb, nrows):
    """CSR @ CSR in Gustavson's order: row i's columns come in the order they first appear
    while A's row i is scanned in storage order and, for each of its entries (i, k), B's
    row k; products add up in that same order (as torch's CPU kernel leaves them)."""
    ca = ca.astype(np.int64)
    cb = cb.astype(np.int64)
    a_rows = np.repeat(np.arange(nrows), np.diff(ca))
    k = pa.astype(np.int64)
    lens = cb[k + 1] - cb[k]
    total = int(lens.sum())
    if total == 0:
        return np.zeros(nrows + 1, np.int64), np.zeros(0, np.int64), np.zeros(0, va.dtype)
    starts = np.repeat(cb[k], lens)
    offs = np.arange(total) - np.repeat(np.cumsum(lens) - lens, lens)
    bpos = starts + offs
    rows = np.repeat(a_rows, lens)
    cols = pb.astype(np.int64)[bpos]
    prods = np.repeat(va, lens) * vb[bpos]
    ncols = int(cols.max()) + 1
    key = rows * ncols + cols
    ukey, first, inv = np.unique(key, return_index=True, return_inverse=True)
    inv = inv.reshape(-1)
    sums = np.zeros(ukey.size, prods.dtype)
    np.add.at(sums, inv, prods)
    order = np.lexsort((first, ukey // ncols))     # by row, then by first appearance
    out_rows = (ukey // ncols)[order]
    cidx = np.zeros(nrows + 1, np.int64)
    np.cumsum(np.bincount(out_rows, minlength=nrows), out=cidx[1:])
    return cidx, (ukey % ncols)[order], sums[order]


def _mm_compressed(self, mat2):
    S = _S()
    if _is_compressed(self) and _is_compressed(mat2):
        _check_mm_args(self, mat2)
        if self._sparse.layout is layouts.sparse_csr and \
                mat2._sparse.layout is layouts.sparse_csr and self._dtype.name in _MM_DTYPES:
            ca, pa, va, _ = _normal(self)
            cb, pb, vb, _ = _normal(mat2)
            cidx, pidx, vals = _np_csr_spgemm(ca[0], pa[0], va.reshape(-1), cb[0], pb[0],
                                              vb.reshape(-1), self._sizes[0])
            return _from_normal(layouts.sparse_csr, cidx[None], pidx[None],
                                vals.reshape(1, -1, 1, 1), (),
                                (self._sizes[0], mat2._sizes[1]), self._dtype, self._device,
                                self._sparse.compressed_indices._dtype)
        dense = S.mm(self._to_dense(), mat2._to_dense())
        return dense_to_sparse_csr(dense) if self._sparse.layout is layouts.sparse_csr else \
            dense._to_sparse(layout=self._sparse.layout, blocksize=_blocksize_of(self))
    _check_mm_args(self, mat2)
    return _tensor(_spmm(self, mat2), self._dtype, self._device)


def _addmm_compressed(self, mat1, mat2, beta=1, alpha=1):
    S = _S()
    if _is_compressed(self):
        raise RuntimeError(f"addmm: computation on CPU is not implemented for "
                           f"{_layout_title(_layout_of(self))} + "
                           f"{_layout_title(_layout_of(mat1))} @ "
                           f"{_layout_title(_layout_of(mat2))}")
    _check_mm_args(mat1, mat2)
    m, n = mat1._sizes[0], mat2._sizes[1]
    prod = _tensor(_spmm(mat1, mat2), mat1._dtype, mat1._device)
    base = self.expand(m, n)
    if alpha != 1:
        prod = S.mul(prod, alpha)
    if beta == 0:
        return prod
    return S.add(S.mul(base, beta) if beta != 1 else base, prod)


def _matmul_compressed(self, other):
    S = _S()
    a, b = len(self._sizes), len(other._sizes)
    if a == 2 and b == 2:
        return S.mm(self, other)
    if a == 2 and b == 1:
        return S.mv(self, other)
    if a == 1 and b == 2:
        return S.mm(self.unsqueeze(0), other).squeeze(0)
    raise RuntimeError(f"expand is unsupported for {_layout_title(_layout_of(self))} tensors")


def _addmv_compressed(self, mat, vec, beta=1, alpha=1):
    S = _S()
    check(self._dtype is mat._dtype is vec._dtype,
          lambda: f"addmv input tensors must have the same dtype, but got "
                  f"{self._dtype._scalar_name}, {mat._dtype._scalar_name}, and "
                  f"{vec._dtype._scalar_name}")
    m, k = mat._sizes
    n = self._sizes[0] if len(self._sizes) == 1 else None
    check(len(vec._sizes) == 1 and vec._sizes[0] == k and n in (1, m),
          lambda: f"size mismatch, got input ({n}), mat ({m}x{k}), vec ({vec._sizes[0]})")
    prod = _tensor(_spmm(mat, vec.unsqueeze(1)).reshape(m), mat._dtype, mat._device)
    if alpha != 1:
        prod = S.mul(prod, alpha)
    if beta == 0:
        return prod
    base = self.expand(m)
    return S.add(S.mul(base, beta) if beta != 1 else base, prod)


def _mv_compressed(self, vec):
    S = _S()
    return S.mm(self, vec.unsqueeze(1)).squeeze(1)


# -- select ------------------------------------------------------------------------------

def _select_compressed(self, dim, index):
    """``select`` of a compressed tensor: a batch dim selects every member's batch (still
    compressed), a sparse dim gives the row / column as COO, a dense dim selects in the
    values (still compressed)."""
    from ..core.checks import maybe_wrap_dim
    p = self._sparse
    nd = len(self._sizes)
    d = maybe_wrap_dim(dim, nd)
    size = self._sizes[d]
    if not -size <= index < size:
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"{list(self._sizes)} at dimension {d}")
    if index < 0:
        index += size
    nb = p.compressed_indices.dim() - 1
    sizes = self._sizes[:d] + self._sizes[d + 1:]
    if d < nb:
        return _sp.make_compressed(p.layout, p.compressed_indices.select(d, index),
                                   p.plain_indices.select(d, index), p.values.select(d, index),
                                   sizes)
    if d >= nb + 2:
        off = 1 + (2 if _facts(p.layout)[1] else 0) - 2
        return _sp.make_compressed(p.layout, p.compressed_indices, p.plain_indices,
                                   p.values.select(d + off, index), sizes)
    check(nb == 0, "select(): selecting a sparse dimension of a batched compressed tensor "
                   "is not supported")
    ci, pi, v, batch = _normal(self)
    check(v.shape[2] * v.shape[3] == 1, "select(): no view exists for the given input, "
                                        "consider using torch.select_copy.")
    b, r, c, vals = _np_compressed_to_elements(ci, pi, v, _facts(p.layout)[0])
    on, other = (r, c) if d == nb else (c, r)
    keep = on == index
    other, vals = other[keep], vals[keep]
    order = np.argsort(other, kind="stable")
    indices = _tensor(other[order].reshape(1, -1).astype(np.int64), dt.int64, self._device)
    values = _tensor(np.ascontiguousarray(vals[order]), self._dtype, self._device)
    return _sp.make_coo(indices, values, sizes, coalesced=True)


# -- empty / zeros with a compressed layout ------------------------------------------------

def _compressed_factory(layout):
    def make(size, dtype=None, device=None, name="empty"):
        for n in size:
            if n < 0:
                if name == "empty":
                    raise RuntimeError(f"Trying to create tensor with negative dimension {n}: "
                                       f"{list(size)}")
                raise RuntimeError(f"{name}: Dimension size must be non-negative.")
        check(len(size) >= 2, lambda: f"torch.{name}: Only batched sparse compressed "
                                      f"(non-block) tensors are supported, but got size "
                                      f"{list(size)}")
        check(not _facts(layout)[1],
              lambda: f"{name}_sparse_compressed expected sparse compressed (non-block) tensor "
                      f"layout but got {_layout_title(layout)}")
        from ..core.devices import DEFAULT_DEVICE
        device = device or DEFAULT_DEVICE[0]
        dtype = dtype or dt._default_dtype[0]
        batch = tuple(size[:-2])
        ncomp = size[-2] if _facts(layout)[0] else size[-1]
        ci = _tensor(np.zeros(batch + (ncomp + 1,), np.int64), dt.int64, device)
        pi = empty(batch + (0,), dt.int64, None, device)
        v = empty(batch + (0,), dtype, None, device)
        return _sp.make_compressed(layout, ci, pi, v, tuple(size))
    return make


def _register_factories():
    from .sparse_coo import COMPRESSED_FACTORY
    for lay in _COMPRESSED:
        COMPRESSED_FACTORY[lay] = _compressed_factory(lay)


_register_factories()


# -- what torch refuses with a metadata error ----------------------------------------------

def _no_strides(self, *args, **kwargs):
    raise _sp.strides_error(self)


def _no_is_contiguous(self, *args, **kwargs):
    _sp.is_contiguous(self)


def _no_expand(self, *args, **kwargs):
    raise RuntimeError(f"expand is unsupported for {_layout_title(_layout_of(self))} tensors")


def _coo_only(name):
    def refuse(self, *args, **kwargs):
        raise RuntimeError(f"{name} expected sparse coordinate tensor layout but got "
                           f"{_layout_title(_layout_of(self))}")
    refuse.__name__ = refuse.__qualname__ = f"_{name}_refused"
    return refuse


# -- TensorIterator ops: torch refuses a compressed operand ---------------------------------

# torch's structured elementwise kernels (TensorIterator) reject compressed operands with
# "unsupported tensor layout: SparseCsr" instead of the dispatcher's missing-kernel error
_ITER_UNARY = ("exp", "cos", "log", "sigmoid", "exp2", "reciprocal", "rsqrt", "cosh", "acos",
               "acosh", "log2", "log10", "lgamma", "digamma", "sinc", "i0", "bitwise_not",
               "isfinite")
_ITER_BINARY = ("sub", "div", "remainder", "eq", "ne", "lt", "gt", "le", "ge", "maximum",
                "minimum", "atan2", "fmod", "hypot", "xlogy", "heaviside", "copysign",
                "bitwise_and", "bitwise_or", "fmax", "fmin", "nextafter", "pow")


def _unsupported_layout(*args, **kwargs):
    for a in args:
        if _is_compressed(a):
            raise RuntimeError(f"unsupported tensor layout: {_layout_title(_layout_of(a))}")
    raise RuntimeError("unsupported tensor layout")


def _iter_rows():
    """The declared overloads of the ops above (the generated operator table)."""
    from ..ops._generated.registrations import OPS
    declared = {q for q, _, _ in OPS}
    rows = []
    for name in _ITER_UNARY + _ITER_BINARY:
        for base in (name, name + "_"):
            for overload in ("", ".Tensor", ".Scalar", ".Tensor_Scalar", ".Tensor_Tensor",
                             ".Scalar_Other", ".Tensor_mode", ".Scalar_mode", ".other"):
                qualname = f"aten::{base}{overload}"
                if qualname in declared:
                    rows.append(qualname)
    return rows


# -- registration of kernels for operators declared elsewhere ----------------------------

DISPATCH: list = []
_KEYS = ("SparseCsrCPU",)
_BOTH = ("SparseCsrCPU", "SparseCsrMeta")    # kernels that work on meta members too


def _row(qualname, fn, keys=_KEYS):
    for key in keys:
        DISPATCH.append((qualname, key, fn))


for _name in _UNARY:
    _k, _k_ = _unary_kernel(_name)
    _row(f"aten::{_name}", _k, _BOTH)
    _row(f"aten::{_name}_", _k_, _BOTH)
for _name in _UNARY_NO_INPLACE:
    _row(f"aten::{_name}", _unary_kernel(_name)[0], _BOTH)

_row("aten::_conj_physical", _conj_physical_compressed, _BOTH)
_row("aten::values", _values_compressed, _BOTH)
_row("aten::_nnz", _nnz_compressed, _BOTH)
_row("aten::sparse_dim", _sparse_dim_compressed, _BOTH)
_row("aten::dense_dim", _dense_dim_compressed, _BOTH)
_row("aten::_to_dense", sparse_compressed_to_dense, _BOTH)
_row("aten::_to_sparse", sparse_compressed_to_sparse)
_row("aten::_to_sparse.sparse_dim", sparse_compressed_to_sparse_sparse_dim)
_row("aten::clone", _clone_compressed, _BOTH)
_row("aten::detach", _detach_compressed, _BOTH)
_row("aten::_to_copy", _to_copy_compressed, _BOTH)
_row("aten::transpose.int", _transpose_compressed, _BOTH)
_row("aten::t", _t_compressed, _BOTH)
_row("aten::add.Tensor", _add_compressed, _BOTH)
_row("aten::add_.Tensor", _add_compressed_)
_row("aten::mul.Tensor", _mul_compressed, _BOTH)
_row("aten::mul_.Tensor", _mul_compressed_)
_row("aten::zero_", _zero_compressed_)
_row("aten::empty_like", _empty_like_compressed, _BOTH)
_row("aten::zeros_like", _zeros_like_compressed, _BOTH)
_row("aten::ones_like", _ones_like_compressed, _BOTH)
_row("aten::new_zeros", _new_factory("zeros"), _BOTH)
_row("aten::new_empty", _new_factory("empty"), _BOTH)
_row("aten::fill_.Scalar", _fill_compressed_, _BOTH)
_row("aten::copy_", _copy_compressed_)
for _q in ("narrow", "narrow_copy", "squeeze", "squeeze.dim", "squeeze.dims", "unsqueeze"):
    _row(f"aten::{_q}", _no_strides)
for _q in ("reshape", "flatten.using_ints", "contiguous"):
    _row(f"aten::{_q}", _no_is_contiguous)
_row("aten::expand", _no_expand)
_row("aten::is_coalesced", _coo_only("is_coalesced"))
_row("aten::indices", _coo_only("indices"))
_row("aten::sparse_mask", _sparse_mask_compressed)
_row("aten::sum", _sum_compressed, _BOTH)
_row("aten::sum.dim_IntList", _sum_dim_compressed)
_row("aten::mm", _mm_compressed)
_row("aten::addmm", _addmm_compressed)
_row("aten::_sparse_addmm", _addmm_compressed)
_row("aten::matmul", _matmul_compressed)
_row("aten::mv", _mv_compressed)
_row("aten::addmv", _addmv_compressed)
_row("aten::select.int", _select_compressed)

_HANDLED = {q for q, _, _ in DISPATCH}
for _q in _iter_rows():
    if _q not in _HANDLED:
        _row(_q, _unsupported_layout)
del _q
