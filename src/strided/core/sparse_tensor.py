"""Sparse tensors: the data model shared by the five sparse layouts (issue 16).

Note [Sparse tensors]
~~~~~~~~~~~~~~~~~~~~~
A sparse tensor is an ordinary object of the frontend ``Tensor`` class (``type(s) is
strided.Tensor``, as in torch) that owns no storage. What makes it sparse:

- ``_keyset`` carries a sparse backend key instead of ``CPU``/``Meta``:
  ``SparseCPU``/``SparseMeta`` for COO, ``SparseCsrCPU``/``SparseCsrMeta`` for the four
  compressed layouts (CSR, CSC, BSR, BSC), as torch's keys. The autograd bit is added
  and removed as on dense tensors. A key set mixing dense and sparse tensors dispatches
  to the sparse key (its bit is higher), as torch's does.
- ``_sparse`` (an instance attribute, in ``__dict__``) is a ``SparseParts`` record:

  ======================  ===============================================================
  ``layout``              ``strided.sparse_coo`` / ``sparse_csr`` / ``sparse_csc`` /
                          ``sparse_bsr`` / ``sparse_bsc``
  ``sparse_dim``          COO: dims addressed by ``indices``; compressed: 2 (the
                          matrix dims; batch dims are not counted, as torch)
  ``dense_dim``           trailing dims stored densely in each value
  ``values``              a dense Tensor. COO: ``[nnz, *dense_shape]``; CSR/CSC:
                          ``[*batch, nnz, *dense_shape]``; BSR/BSC: ``[*batch, nnz,
                          blockrows, blockcols, *dense_shape]``
  ``indices``             COO only: a dense int64 Tensor ``[sparse_dim, nnz]``
  ``coalesced``           COO only: the ``is_coalesced()`` flag (sorted, no duplicates)
  ``compressed_indices``  compressed only: ``crow_indices`` (CSR/BSR) or
                          ``ccol_indices`` (CSC/BSC), ``[*batch, n_compressed + 1]``
  ``plain_indices``       compressed only: ``col_indices``/``row_indices``,
                          ``[*batch, nnz]``
  ======================  ===============================================================

  The member tensors are the sparse tensor's own (``_values()``/``_indices()`` alias
  them, as torch's do); kernels never mutate them in place unless the op is an
  in-place op on the sparse tensor.
- ``_sizes`` is the full (dense) shape, ``_dtype``/``_device`` are the values'.
  ``_offset`` is 0. ``_strides`` is ``(0,) * ndim`` for COO (torch reports those) and
  ``None`` for compressed layouts (torch: "Sparse CSR tensors do not have strides").
- ``_storage`` is ``NO_STORAGE``: its ``_buf`` is None so ``_array()`` fails with torch's
  "Cannot access data pointer of Tensor that doesn't have storage", as does
  ``data_ptr()``. A sparse tensor is never viewed as a NumPy array: kernels read the
  member tensors.

Dispatch: the sparse keys are not in ``BACKEND_KEYS``. A sparse key is served by a
kernel registered for that key, else by a ``CompositeImplicitAutograd`` kernel (it
decomposes into ops that then dispatch on the sparse key themselves), else by the
dispatcher's missing-kernel error, torch's NotImplementedError "Could not run 'aten::X'
with arguments from the 'SparseCPU' backend...". ``CompositeExplicitAutograd`` kernels
are not used for sparse keys: here they are NumPy code over dense storage.

Kernels for ops declared elsewhere (``aten::add.Tensor``...) are added per key through
the ``DISPATCH`` rows of a kernel module (kernels/sparse_coo.py): ``(qualname, key,
kernel)``; ``kernels.EXTRA_DISPATCH`` gathers them, ops/registry.py registers them.

Use ``make_coo`` / ``make_compressed`` to build one, ``parts(t)`` to read one.
"""

from __future__ import annotations

from . import layouts
from .dispatch_keys import DispatchKey

__all__ = ["NO_STORAGE", "SPARSE_BITS", "SPARSE_COO_BITS", "SPARSE_CSR_BITS", "SparseParts",
           "is_compressed", "is_sparse", "layout_of", "make_compressed", "make_coo", "parts"]

SPARSE_COO_BITS = DispatchKey.SparseCPU.bit | DispatchKey.SparseMeta.bit
SPARSE_CSR_BITS = DispatchKey.SparseCsrCPU.bit | DispatchKey.SparseCsrMeta.bit
SPARSE_BITS = SPARSE_COO_BITS | SPARSE_CSR_BITS
COMPRESSED_LAYOUTS = (layouts.sparse_csr, layouts.sparse_csc, layouts.sparse_bsr,
                      layouts.sparse_bsc)
# torch's layout names in messages ("Sparse CSC tensors do not have strides", "can't
# convert SparseCsc layout tensor to numpy")
LAYOUT_TITLE = {layouts.sparse_coo: "Sparse", layouts.sparse_csr: "SparseCsr",
                layouts.sparse_csc: "SparseCsc", layouts.sparse_bsr: "SparseBsr",
                layouts.sparse_bsc: "SparseBsc", layouts.strided: "Strided"}
LAYOUT_SHORT = {layouts.sparse_csr: "CSR", layouts.sparse_csc: "CSC",
                layouts.sparse_bsr: "BSR", layouts.sparse_bsc: "BSC"}


class SparseParts:
    """What a sparse tensor holds (Note [Sparse tensors])."""

    __slots__ = ("coalesced", "compressed_indices", "dense_dim", "indices", "layout",
                 "plain_indices", "sparse_dim", "values")

    def __init__(self, layout, values, sparse_dim, dense_dim, indices=None, coalesced=False,
                 compressed_indices=None, plain_indices=None):
        self.layout = layout
        self.values = values
        self.sparse_dim = sparse_dim
        self.dense_dim = dense_dim
        self.indices = indices
        self.coalesced = coalesced
        self.compressed_indices = compressed_indices
        self.plain_indices = plain_indices


class _NoStorage:
    """The storage slot of a sparse tensor: it has no bytes (Note [Sparse tensors])."""

    __slots__ = ()
    _buf = None
    _nbytes = 0
    device = None

    @property
    def _ptr(self):
        raise RuntimeError("Cannot access data pointer of Tensor that doesn't have storage")

    def __repr__(self):
        return "<no storage>"


NO_STORAGE = _NoStorage()


def _new(layout, sizes, values, sparse_parts):
    from .tensor_impl import _object_new, _tensor_cls
    t = _object_new(_tensor_cls[0])
    dev = values._device
    t._storage = NO_STORAGE
    t._sizes = tuple(sizes)
    t._strides = (0,) * len(sizes) if layout is layouts.sparse_coo else None
    t._offset = 0
    t._dtype = values._dtype
    t._device = dev
    t._vc = [0]
    t._base = None
    t._autograd_meta = None
    t._np = None
    meta = dev.type == "meta"
    if layout is layouts.sparse_coo:
        key = DispatchKey.SparseMeta if meta else DispatchKey.SparseCPU
    else:
        key = DispatchKey.SparseCsrMeta if meta else DispatchKey.SparseCsrCPU
    t._keyset = key.bit
    t._sparse = sparse_parts
    return t


def make_coo(indices, values, sizes, coalesced=False):
    """A COO tensor of shape ``sizes`` over ``indices`` ([sparse_dim, nnz], int64) and
    ``values`` ([nnz, *dense]); no checks, no copies (the caller validated them)."""
    sparse_dim = indices._sizes[0]
    dense_dim = len(values._sizes) - 1
    return _new(layouts.sparse_coo, sizes, values,
                SparseParts(layouts.sparse_coo, values, sparse_dim, dense_dim, indices=indices,
                            coalesced=coalesced))


def make_compressed(layout, compressed_indices, plain_indices, values, sizes, dense_dim=None):
    """A CSR/CSC/BSR/BSC tensor of shape ``sizes``; no checks, no copies. ``dense_dim``
    defaults to what ``values``' rank implies."""
    if dense_dim is None:
        batch = len(compressed_indices._sizes) - 1
        block = 2 if layout in (layouts.sparse_bsr, layouts.sparse_bsc) else 0
        dense_dim = len(values._sizes) - batch - 1 - block
    return _new(layout, sizes, values,
                SparseParts(layout, values, 2, dense_dim,
                            compressed_indices=compressed_indices,
                            plain_indices=plain_indices))


def parts(t) -> SparseParts:
    return t._sparse


def is_sparse(t) -> bool:
    """Any sparse layout."""
    return bool(getattr(t, "_keyset", 0) & SPARSE_BITS)


def is_coo(t) -> bool:
    return bool(getattr(t, "_keyset", 0) & SPARSE_COO_BITS)


def is_compressed(t) -> bool:
    return bool(getattr(t, "_keyset", 0) & SPARSE_CSR_BITS)


def layout_of(t):
    if t._keyset & SPARSE_BITS:
        return t._sparse.layout
    return layouts.strided


# -- what a sparse tensor refuses (torch's texts) ------------------------------------------

def _impl_name(t) -> str:
    return "SparseTensorImpl" if t._keyset & SPARSE_COO_BITS else "SparseCsrTensorImpl"


def storage_error(t):
    return NotImplementedError(f"Cannot access storage of {_impl_name(t)}")


def strides_error(t):
    return RuntimeError(f"Sparse {LAYOUT_SHORT[t._sparse.layout]} tensors do not have strides")


def is_contiguous(t) -> bool:
    if t._keyset & SPARSE_CSR_BITS:
        raise RuntimeError(
            f"Sparse {LAYOUT_SHORT[t._sparse.layout]} tensors do not have is_contiguous")
    return False


def nbytes(t) -> int:
    if t._keyset & SPARSE_CSR_BITS:
        # torch answers numel() * element_size() for the compressed layouts (engineer 7)
        n = 1
        for s in t._sizes:
            n *= s
        return n * t._dtype.itemsize
    raise RuntimeError(
        "nbytes is not defined for sparse tensors.  If you want the size of the constituent "
        "tensors, add the nbytes of the indices and values.  If you want the size of the  "
        "equivalent dense tensor, multiply numel() by element_size()")


def numpy_error(t):
    return TypeError(f"can't convert {LAYOUT_TITLE[t._sparse.layout]} layout tensor to numpy. "
                     f"Use Tensor.to_dense() first.")


def alias(t):
    """Another tensor object for the same sparse tensor (same members, same version counter,
    no autograd state): what a saved output or a shallow copy holds."""
    out = _new(t._sparse.layout, t._sizes, t._sparse.values, t._sparse)
    out._dtype = t._dtype
    out._vc = t._vc
    return out


def adopt_grad(grad):
    """What AccumulateGrad stores as a leaf's first gradient when sparsity is involved: a COO
    gradient whose members are contiguous is re-wrapped around them (the coalesced flag then
    only survives for nnz < 2, as torch's ``_sparse_coo_tensor_unsafe``); anything else is
    cloned."""
    if grad._keyset & SPARSE_COO_BITS:
        sp = grad._sparse
        if sp.indices.is_contiguous() and sp.values.is_contiguous():
            return make_coo(sp.indices, sp.values, grad._sizes, sp.indices._sizes[1] < 2)
    return grad.clone()


def check_legacy_type(t) -> None:
    """``Tensor.type()`` of a sparse tensor: torch names CPU COO tensors only."""
    meta = t._device.type == "meta"
    if t._keyset & SPARSE_CSR_BITS:
        raise RuntimeError(f"Unimplemented backend {'SparseCsrMeta' if meta else 'SparseCsrCPU'}")
    if meta:
        raise RuntimeError("Unrecognized tensor type ID: SparseMeta")
