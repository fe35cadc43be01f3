"""``torch.sparse_coo_tensor``: torch's hand-written Python constructor (it accepts nested
lists and NumPy arrays as well as tensors), and the invariant-checking switch."""

from __future__ import annotations

import functools
import operator

from ..core.devices import CPU
from ..core.dispatch_keys import backend_keyset
from ..ops.dispatcher import get_op

__all__ = ["check_sparse_tensor_invariants", "sparse_coo_tensor"]

_CHECK = [False]
_op_size = get_op("aten::sparse_coo_tensor.size")
_op_indices = get_op("aten::sparse_coo_tensor.indices")
_op_indices_size = get_op("aten::sparse_coo_tensor.indices_size")
_op_validate = get_op("aten::_validate_sparse_coo_tensor_args")


class check_sparse_tensor_invariants:
    """Whether sparse constructors validate their indices (off by default, as torch): a
    context manager, a decorator, or ``enable()``/``disable()``."""

    @staticmethod
    def is_enabled():
        return _CHECK[0]

    @staticmethod
    def enable():
        _CHECK[0] = True

    @staticmethod
    def disable():
        _CHECK[0] = False

    def __init__(self, enable=True):
        self.state = enable
        self.saved_state = None

    def __enter__(self):
        if self.saved_state is not None:
            raise RuntimeError("This context manager instance is already activated. Use a "
                               "different context manager instance for context nesting.")
        self.saved_state = _CHECK[0]
        _CHECK[0] = self.state

    def __exit__(self, type, value, traceback):
        _CHECK[0] = self.saved_state
        self.saved_state = None

    def __call__(self, mth):
        @functools.wraps(mth)
        def test_mth(*args, **kwargs):
            with type(self)(self.state):
                return mth(*args, **kwargs)
        return test_mth


def _is_size(x) -> bool:
    if isinstance(x, (tuple, list)):
        try:
            [operator.index(v) for v in x]
        except TypeError:
            return False
        return True
    return False


def _keyset(*ts):
    ks = 0
    for t in ts:
        ks |= t._keyset
    return ks


_MISSING = object()


def sparse_coo_tensor(indices, values=_MISSING, size=None, *, dtype=None, device=None,
                      pin_memory=False, requires_grad=False, check_invariants=None,
                      is_coalesced=None):
    """A COO tensor from ``indices`` ([sparse_dim, nnz]) and ``values`` ([nnz, *dense]) of
    shape ``size`` (inferred from the indices when omitted); ``sparse_coo_tensor(size)`` is
    an empty one. Data may be tensors, nested lists or NumPy arrays."""
    import strided as S

    from ..core.devices import device as _device
    if isinstance(device, (str, int)):
        device = _device(device)
    check = _CHECK[0] if check_invariants is None else check_invariants
    if device is not None and device.type == "cuda":
        raise RuntimeError("PyTorch is not linked with support for cuda devices")
    if values is _MISSING:
        if not _is_size(indices) and not isinstance(indices, S.Size):
            raise TypeError("sparse_coo_tensor() missing required argument 'values'")
        size = tuple(operator.index(v) for v in indices)
        out = _op_size.call(backend_keyset(device or CPU), size, dtype, None,
                            device, pin_memory)
        return out.requires_grad_(requires_grad) if requires_grad else out
    if isinstance(values, S.Tensor):
        if dtype is not None or device is not None:
            values = values.to(dtype=dtype or values.dtype, device=device or values.device)
    else:
        values = S.as_tensor(values, dtype=dtype, device=device)
    if isinstance(indices, S.Tensor):
        if indices.dtype is not S.int64 or indices.device != values.device:
            indices = indices.to(dtype=S.int64, device=values.device)
    else:
        indices = S.as_tensor(indices, dtype=S.int64, device=values.device)
    ks = _keyset(indices, values)
    if size is None:
        out = _op_indices.call(ks, indices, values, values.dtype, None, values.device,
                               pin_memory, is_coalesced)
    else:
        size = tuple(operator.index(v) for v in size)
        if check:
            _op_validate.call(ks, indices, values, size, is_coalesced, None)
        out = _op_indices_size.call(ks, indices, values, size, values.dtype, None,
                                    values.device, pin_memory, is_coalesced)
    if requires_grad:
        if not (out.dtype.is_floating_point or out.dtype.is_complex):
            raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                               "gradients")
        out.requires_grad_(True)
    return out


