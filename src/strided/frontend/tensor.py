"""The user-facing ``Tensor``: metadata accessors, Python protocols and conversions.

Operator methods (``t.clone()``, ``t.copy_(s)``, ``t.view(2, 3)``, ...) are
generated from ``native_functions.yaml`` into ``TensorMethods``; this file holds
what is not an operator: ``size()``, ``stride()``, ``item()``, ``numpy()``,
``__len__``, ``to(...)`` (whose argument parsing torch also writes by hand)...
"""

from __future__ import annotations

import numpy as np

from ..core import dtypes as dt
from ..core import layouts
from ..core.checks import check, maybe_wrap_dim
from ..core.tensor_impl import (
    ArrayExport,
    AutogradMeta,
    TensorImpl,
    compute_is_contiguous,
    numel_of,
    set_tensor_class,
)
from ..kernels import factory as _factory
from ..ops._generated import tensor_methods as _gen_methods
from ..ops._generated import torch_functions as _gen_functions
from ..ops.dispatcher import get_op
from . import arg_parser as _ap
from . import indexing as _indexing
from . import printing

__all__ = ["Size", "Tensor"]


class Size(tuple):
    """``torch.Size``: a tuple of ints that prints as ``torch.Size([2, 3])``."""

    __slots__ = ()

    def __repr__(self):
        return f"torch.Size([{', '.join(str(s) for s in self)}])"

    def numel(self) -> int:
        return numel_of(self)

    def __getitem__(self, item):
        out = tuple.__getitem__(self, item)
        return Size(out) if isinstance(item, slice) else out

    def __add__(self, other):
        return Size(tuple.__add__(self, other))


_op_to_copy = get_op("aten::_to_copy")
_op_local_scalar = get_op("aten::_local_scalar_dense")
_op_contiguous = get_op("aten::contiguous")
_op_numpy_T = get_op("aten::numpy_T")
_op_matrix_H = get_op("aten::matrix_H")
_op_mT = get_op("aten::mT")
_op_mH = get_op("aten::mH")
_op_real = get_op("aten::real")
_op_imag = get_op("aten::imag")
_op_select = None


def _dtype_method(target):
    def convert(self, memory_format=layouts.preserve_format):
        if self._dtype is target:
            return self
        return _op_to_copy.call(self._keyset, self, target, None, None, None, False, None)
    convert.__name__ = target.name
    convert.__doc__ = f"``self.to({target!r})``"
    return convert


class Tensor(TensorImpl, _gen_methods.TensorMethods):
    """A strided view of a storage; see ``strided.core.tensor_impl``."""

    __slots__ = ()

    def __new__(cls, *args, **kwargs):
        """The legacy constructor: ``Tensor(2, 3)`` (uninitialised float) or
        ``Tensor([1, 2])`` (float data). Kernels create tensors without calling this."""
        from .tensor_new import legacy_new
        return legacy_new(cls, args, kwargs)

    # -- metadata -------------------------------------------------------------------------

    @property
    def shape(self) -> Size:
        return Size(self._sizes)

    def size(self, dim=None):
        if dim is None:
            return Size(self._sizes)
        return self._sizes[maybe_wrap_dim(dim, len(self._sizes), False)]

    def stride(self, dim=None):
        if dim is None:
            return self._strides
        return self._strides[maybe_wrap_dim(dim, len(self._sizes), False)]

    def storage_offset(self) -> int:
        return self._offset

    def dim(self) -> int:
        return len(self._sizes)

    ndimension = dim

    @property
    def ndim(self) -> int:
        return len(self._sizes)

    def numel(self) -> int:
        return numel_of(self._sizes)

    nelement = numel

    @property
    def dtype(self) -> dt.dtype:
        return self._dtype

    @property
    def device(self):
        return self._device

    @property
    def layout(self):
        return layouts.strided

    @property
    def is_cuda(self) -> bool:
        return self._device.type == "cuda"

    @property
    def is_cpu(self) -> bool:
        return self._device.type == "cpu"

    @property
    def is_meta(self) -> bool:
        return self._device.type == "meta"

    is_sparse = False
    is_quantized = False
    is_mkldnn = False
    is_nested = False

    def element_size(self) -> int:
        return self._dtype.itemsize

    @property
    def itemsize(self) -> int:
        return self._dtype.itemsize

    @property
    def nbytes(self) -> int:
        return numel_of(self._sizes) * self._dtype.itemsize

    def is_contiguous(self, memory_format=layouts.contiguous_format) -> bool:
        return compute_is_contiguous(self._sizes, self._strides)

    def is_floating_point(self) -> bool:
        return self._dtype.is_floating_point

    def is_complex(self) -> bool:
        return self._dtype.is_complex

    def is_signed(self) -> bool:
        return self._dtype.is_signed

    def data_ptr(self) -> int:
        return self._storage._ptr + self._offset * self._dtype.itemsize

    def untyped_storage(self):
        return self._storage

    def get_device(self) -> int:
        return -1 if self._device.type == "cpu" else (self._device.index or 0)

    @property
    def _version(self) -> int:
        return self._vc[0]

    def nonzero(self, *args, **kwargs):
        """``nonzero(*, as_tuple=False)``, bound by hand (see ``frontend/nonzero.py``)."""
        from .nonzero import tensor_nonzero
        return tensor_nonzero(self, *args, **kwargs)

    def _is_view(self) -> bool:
        return self._base is not None

    def is_set_to(self, other) -> bool:
        return (self._storage is other._storage and self._offset == other._offset
                and self._sizes == other._sizes and self._strides == other._strides)

    # -- views that torch exposes as attributes -------------------------------------------

    @property
    def T(self):
        return _op_numpy_T.call(self._keyset, self)

    @property
    def H(self):
        return _op_matrix_H.call(self._keyset, self)

    @property
    def mT(self):
        return _op_mT.call(self._keyset, self)

    @property
    def mH(self):
        return _op_mH.call(self._keyset, self)

    @property
    def real(self):
        return _op_real.call(self._keyset, self)

    @real.setter
    def real(self, value):
        _assign_view(_op_real.call(self._keyset, self), value)

    @property
    def imag(self):
        return _op_imag.call(self._keyset, self)

    @imag.setter
    def imag(self, value):
        _assign_view(_op_imag.call(self._keyset, self), value)

    # -- autograd flags (the engine comes later) -----------------------------------------

    @property
    def requires_grad(self) -> bool:
        meta = self._autograd_meta
        return meta is not None and meta.requires_grad

    @requires_grad.setter
    def requires_grad(self, value):
        self.requires_grad_(value)

    def requires_grad_(self, requires_grad=True):
        if requires_grad:
            check(self._dtype.is_floating_point or self._dtype.is_complex, (
                "only Tensors of floating point and complex dtype can require gradients"))
        meta = self._autograd_meta
        if meta is None:
            if not requires_grad:
                return self
            meta = self._autograd_meta = AutogradMeta()
        meta.requires_grad = bool(requires_grad)
        return self

    @property
    def grad(self):
        meta = self._autograd_meta
        return None if meta is None else meta.grad

    @grad.setter
    def grad(self, value):
        if self._autograd_meta is None:
            self._autograd_meta = AutogradMeta()
        self._autograd_meta.grad = value

    @property
    def grad_fn(self):
        meta = self._autograd_meta
        return None if meta is None else meta.grad_fn

    @property
    def is_leaf(self) -> bool:
        meta = self._autograd_meta
        return meta is None or meta.grad_fn is None

    @property
    def data(self):
        return self.detach()

    # -- Python scalars and protocols -------------------------------------------------------

    def item(self):
        return _op_local_scalar.call(self._keyset, self)

    def tolist(self):
        check(self._device.type != "meta", "Cannot copy out of meta tensor; no data!",
              NotImplementedError)
        arr = self._array()
        if self._dtype is dt.bfloat16 or self._dtype is dt.float16:
            arr = arr.astype(np.float64)
        return arr.tolist()

    def __len__(self):
        if not self._sizes:
            raise TypeError("len() of a 0-d tensor")
        return self._sizes[0]

    def __iter__(self):
        if not self._sizes:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def _scalar_value(self, what):
        n = numel_of(self._sizes)
        check(n == 1, lambda: "only one element tensors can be converted to Python scalars")
        return self.item()

    def __bool__(self):
        n = numel_of(self._sizes)
        if n != 1:
            raise RuntimeError(f"Boolean value of Tensor with "
                               f"{'no values' if n == 0 else 'more than one value'} is ambiguous")
        return bool(self.item())

    def __int__(self):
        return int(self._scalar_value("int").real if self._dtype.is_complex else
                   self._scalar_value("int"))

    def __float__(self):
        return float(self._scalar_value("float"))

    def __complex__(self):
        return complex(self._scalar_value("complex"))

    def __index__(self):
        if self._dtype.category != dt.INT or numel_of(self._sizes) != 1:
            raise TypeError("only integer tensors of a single element can be converted to an "
                            "index")
        return self.item()

    def __hash__(self):
        return id(self)

    def __getitem__(self, index):
        return _indexing.getitem(self, index)

    def __setitem__(self, index, value):
        _indexing.setitem(self, index, value)

    def __delitem__(self, index):
        raise TypeError("Tensor does not support deleting items")

    def __repr__(self, *, tensor_contents=None):
        values = None if self._device.type == "meta" else self._array()
        return printing.tensor_repr(self, values)

    __str__ = __repr__

    def __format__(self, spec):
        if self.dim() == 0 and self._device.type != "meta":
            return self.item().__format__(spec)
        return object.__format__(self, spec)

    # -- NumPy ------------------------------------------------------------------------------

    def numpy(self, *, force=False):
        """A NumPy array sharing this tensor's memory (torch's rules for when it can't)."""
        if force:
            t = self.detach().to("cpu")
            if t._dtype is dt.bfloat16:
                raise TypeError("Got unsupported ScalarType BFloat16")
            return np.asarray(ArrayExport(t))
        check(not self.requires_grad, (
            "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
            "instead."))
        check(self._device.type == "cpu", lambda: (
            f"can't convert {self._device.type} device type tensor to numpy. Use Tensor.cpu() to "
            f"copy the tensor to host memory first."), TypeError)
        if self._dtype is dt.bfloat16:
            raise TypeError("Got unsupported ScalarType BFloat16")
        if 0 in self._sizes:
            return np.empty(self._sizes, self._dtype.np)
        return np.asarray(ArrayExport(self))

    def __array__(self, dtype=None, copy=None):
        if self._dtype is dt.bfloat16 and dtype is None:
            dtype = np.float32
        arr = self.numpy(force=True) if self._dtype is not dt.bfloat16 else \
            self._array().astype(np.float32)
        if dtype is not None and np.dtype(dtype) != arr.dtype:
            if copy is False:
                raise ValueError("Unable to avoid copy while creating an array as requested.")
            return arr.astype(dtype)
        if copy:
            return arr.copy()
        return arr

    # -- conversions --------------------------------------------------------------------------

    def to(self, *args, **kwargs):
        """``to(dtype)``, ``to(device, dtype=None)``, ``to(other)``; plus ``non_blocking``,
        ``copy`` and ``memory_format`` keywords, as torch's hand-written binding parses them."""
        dtype, device, non_blocking, copy, memory_format = _parse_to(args, kwargs)
        if device is not None and device.type not in ("cpu", "meta"):
            raise RuntimeError(f"strided has no {device.type} backend in this build")
        same = ((dtype is None or dtype is self._dtype)
                and (device is None or device.type == self._device.type)
                and (memory_format is None or memory_format is layouts.preserve_format))
        if same and not copy:
            return self
        return _op_to_copy.call(self._keyset, self, dtype, None, device, None, non_blocking,
                                memory_format)

    def cpu(self):
        return self.to("cpu")

    def type(self, dtype=None, non_blocking=False):
        if dtype is None:
            return _LEGACY_TYPE_NAMES.get(self._dtype.name, "torch.Tensor")
        return self.to(dtype)

    float = _dtype_method(dt.float32)
    double = _dtype_method(dt.float64)
    half = _dtype_method(dt.float16)
    bfloat16 = _dtype_method(dt.bfloat16)
    long = _dtype_method(dt.int64)
    int = _dtype_method(dt.int32)
    short = _dtype_method(dt.int16)
    char = _dtype_method(dt.int8)
    byte = _dtype_method(dt.uint8)
    bool = _dtype_method(dt.bool_)
    cfloat = _dtype_method(dt.complex64)
    cdouble = _dtype_method(dt.complex128)

    def contiguous(self, memory_format=layouts.contiguous_format):
        if compute_is_contiguous(self._sizes, self._strides):
            return self
        return _op_contiguous.call(self._keyset, self, memory_format)

    # -- interop -------------------------------------------------------------------------------

    def __dlpack__(self, *args, **kwargs):
        from ..utils import dlpack
        return dlpack.to_dlpack_capsule(self, *args, **kwargs)

    def __dlpack_device__(self):
        from ..utils import dlpack
        return dlpack.dlpack_device(self)


def _assign_view(view, value):
    """``t.real = value``: copy a tensor or a Python number into the view (torch's setter)."""
    if not isinstance(value, TensorImpl):
        if not isinstance(value, (bool, int, float, complex)):
            from ..kernels.views import type_string
            raise TypeError(f"can't assign a {type(value).__name__} to a {type_string(view)}")
        from ..kernels.factory import scalar_tensor
        value = scalar_tensor(value, view._dtype, None, view._device)
    view.copy_(value)


_LEGACY_TYPE_NAMES = {
    "float32": "torch.FloatTensor", "float64": "torch.DoubleTensor",
    "float16": "torch.HalfTensor", "bfloat16": "torch.BFloat16Tensor",
    "int64": "torch.LongTensor", "int32": "torch.IntTensor", "int16": "torch.ShortTensor",
    "int8": "torch.CharTensor", "uint8": "torch.ByteTensor", "bool": "torch.BoolTensor",
}

_TO_SIGS = (
    _ap.PySig("to", (("dtype", "ScalarType", None, False), ("non_blocking", "bool", "False", False),
                     ("copy", "bool", "False", False),
                     ("memory_format", "MemoryFormat?", "None", True)), False, True),
    _ap.PySig("to", (("device", "Device?", "None", False), ("dtype", "ScalarType?", "None", False),
                     ("non_blocking", "bool", "False", False), ("copy", "bool", "False", False),
                     ("memory_format", "MemoryFormat?", "None", True)), False, True),
    _ap.PySig("to", (("other", "Tensor", None, False), ("non_blocking", "bool", "False", False),
                     ("copy", "bool", "False", False),
                     ("memory_format", "MemoryFormat?", "None", True)), False, True),
)


def _to_dtype_form(dtype, non_blocking=False, copy=False, *, memory_format=None):
    return _ap.to_dtype(dtype), None, non_blocking, copy, memory_format


def _to_device_form(device=None, dtype=None, non_blocking=False, copy=False, *,
                    memory_format=None):
    device = None if device is None else _ap.to_device(device)
    dtype = None if dtype is None else _ap.to_dtype(dtype)
    return dtype, device, non_blocking, copy, memory_format


def _to_other_form(other, non_blocking=False, copy=False, *, memory_format=None):
    _ap.to_tensor(other)
    return other._dtype, other._device, non_blocking, copy, memory_format


def _parse_to(args, kwargs):
    for form in (_to_dtype_form, _to_device_form, _to_other_form):
        try:
            dtype, device, non_blocking, copy, memory_format = form(*args, **kwargs)
        except _ap.PARSE_ERRORS:
            continue
        _ap.to_bool(non_blocking)
        _ap.to_bool(copy)
        if memory_format is not None:
            _ap.to_memory_format(memory_format)
        return dtype, device, non_blocking, copy, memory_format
    _ap.raise_invalid_arguments(_TO_SIGS, args, kwargs)


set_tensor_class(Tensor)
_ap.set_tensor_class(Tensor)
_gen_methods.bind_tensor_class(Tensor)
_gen_functions.bind_tensor_class(Tensor)
del _factory
