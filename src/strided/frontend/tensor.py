"""The user-facing ``Tensor``: metadata accessors, Python protocols and conversions.

Operator methods (``t.clone()``, ``t.copy_(s)``, ``t.view(2, 3)``, ...) are
generated from ``native_functions.yaml`` into ``TensorMethods``; this file holds
what is not an operator: ``size()``, ``stride()``, ``item()``, ``numpy()``,
``__len__``, ``to(...)`` (whose argument parsing torch also writes by hand)...
"""

from __future__ import annotations

import operator
import warnings
import weakref

import numpy as np

from ..autograd import grad_mode as _grad_mode
from ..autograd import graph as _graph
from ..autograd import views as _autograd_views
from ..core import dtypes as dt
from ..core import layouts
from ..core import sparse_tensor as _sparse
from ..core.checks import check, maybe_wrap_dim
from ..core.dispatch_keys import DispatchKey as _DispatchKey
from ..core.tensor_impl import (
    ArrayExport,
    AutogradMeta,
    InferenceVersion,
    TensorImpl,
    compute_is_contiguous,
    numel_of,
    set_tensor_class,
)
from ..kernels import complex32 as _c32
from ..kernels import factory as _factory
from ..ops._generated import tensor_methods as _gen_methods
from ..ops._generated import torch_functions as _gen_functions
from ..ops.dispatcher import get_op
from . import arg_parser as _ap
from . import indexing as _indexing
from . import printing
from .operators import TensorOperators

__all__ = ["Size", "Tensor"]

_matmul_op = get_op("aten::matmul")
_object_new = object.__new__
_AUTOGRAD_BIT = _DispatchKey.Autograd.bit
_CONJ_BIT = _DispatchKey.Conjugate.bit
_NEG_BIT = _DispatchKey.Negative.bit
_MATH_BITS = _CONJ_BIT | _NEG_BIT      # Note [Conjugate and negative bits] in view_ops.py
_SPARSE_BITS = _sparse.SPARSE_BITS


def _resolved(t):
    """``t``'s values without conjugate / negative bits (a copy only when it has one)."""
    if not t._keyset & _MATH_BITS:
        return t
    from ..kernels.factory import clone
    return clone(t)


def _py_type_name(v) -> str:
    if isinstance(v, TensorImpl):
        return "Tensor"
    cls = type(v)
    return f"numpy.{cls.__name__}" if cls.__module__ == "numpy" else cls.__name__


def _size_element(i, v) -> int:
    if v.__class__ is int:
        return v
    if isinstance(v, TensorImpl):
        ok = v.numel() == 1 and not (v.dtype.is_floating_point or v.dtype.is_complex)
    else:
        ok = not isinstance(v, (float, complex)) and hasattr(type(v), "__index__")
    if not ok:
        raise TypeError(f"torch.Size() takes an iterable of 'int' (item {i} is "
                        f"'{_py_type_name(v)}')")
    if isinstance(v, np.integer):
        return v    # torch keeps a NumPy integer as it is
    n = int(v.item()) if isinstance(v, TensorImpl) else operator.index(v)
    if not -(1 << 63) <= n < (1 << 63):
        raise ValueError("Overflow when unpacking long long")
    return n


class Size(tuple):
    """``torch.Size``: a tuple of ints that prints as ``torch.Size([2, 3])``."""

    __slots__ = ()

    def __new__(cls, sizes=()):
        # every element an int, as torch's: ``__index__`` objects (NumPy integers, one-element
        # integer tensors) are converted, anything else refused; a Tensor never stays a size
        out = tuple.__new__(cls, sizes)
        for v in out:
            if v.__class__ is not int:
                return tuple.__new__(cls, [_size_element(i, v) for i, v in enumerate(out)])
        return out

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
_is_contiguous_in = _factory.is_contiguous_in
_op_numpy_T = get_op("aten::numpy_T")
_op_matrix_H = get_op("aten::matrix_H")
_op_mT = get_op("aten::mT")
_op_mH = get_op("aten::mH")
_op_real = get_op("aten::real")
_op_imag = get_op("aten::imag")
_op_select = None
_CONTIGUOUS_FORMAT = layouts.contiguous_format


def _cast_args(*, memory_format=None):
    return None if memory_format is None else _ap.to_memory_format(memory_format)


def _dtype_method(target, name):
    sigs = (_ap.PySig(name, (("memory_format", "MemoryFormat?", "None", True),), False, True),)

    def convert(self, *args, **kwargs):
        if args or kwargs:
            try:
                memory_format = _cast_args(*args, **kwargs)
            except _ap.PARSE_ERRORS:
                _ap.raise_invalid_arguments(sigs, args, kwargs)
            if memory_format is not None and memory_format is not layouts.preserve_format:
                return self.to(target, memory_format=memory_format)
        if self._dtype is target:
            return self
        return _op_to_copy.call(self._keyset, self, target, None, None, None, False, None)
    convert.__name__ = name
    convert.__doc__ = (f"``{name}(*, memory_format=None)``: ``self.to({target!r}, "
                       "memory_format=memory_format)``, so ``self`` when nothing changes")
    return convert


class Tensor(TensorImpl, TensorOperators, _gen_methods.TensorMethods):
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

    def size(self, dim=None, *, axis=None):
        if axis is not None:
            dim = _ap.axis_as_dim("size", dim, axis)
        if dim is None:
            return Size(self._sizes)
        if type(dim) is not int:
            dim = _ap.to_dim_arg("size", dim)
        return self._sizes[maybe_wrap_dim(dim, len(self._sizes), False)]

    def stride(self, dim=None, *, axis=None):
        if self._strides is None:
            raise _sparse.strides_error(self)
        if axis is not None:
            dim = _ap.axis_as_dim("stride", dim, axis)
        if dim is None:
            return self._strides
        if type(dim) is not int:
            dim = _ap.to_dim_arg("stride", dim)
        return self._strides[maybe_wrap_dim(dim, len(self._sizes), False)]

    def storage_offset(self) -> int:
        return self._offset

    def dim_order(self, *, ambiguity_check=False):
        """The dims from the outermost to the innermost in memory (frontend/shape_extra.py)."""
        from .shape_extra import dim_order
        return dim_order(self, ambiguity_check=ambiguity_check)

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
        if self._keyset & _SPARSE_BITS:
            return self._sparse.layout
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

    @property
    def is_sparse(self) -> bool:
        return bool(self._keyset & _sparse.SPARSE_COO_BITS)

    @property
    def is_sparse_csr(self) -> bool:
        # torch: True for the CSR layout only, not for CSC/BSR/BSC
        return bool(self._keyset & _sparse.SPARSE_CSR_BITS) and \
            self._sparse.layout is layouts.sparse_csr

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
        if self._keyset & _SPARSE_BITS:
            return _sparse.nbytes(self)
        return numel_of(self._sizes) * self._dtype.itemsize

    def is_contiguous(self, *args, **kwargs) -> bool:
        """``is_contiguous(*, memory_format=torch.contiguous_format)``: torch's flags, read
        off the sizes and strides (``kernels.factory.is_contiguous_in``)."""
        if self._keyset & _SPARSE_BITS:
            return _sparse.is_contiguous(self)
        if not args and not kwargs:
            return compute_is_contiguous(self._sizes, self._strides)
        try:
            memory_format, = _contiguous_args(*args, **kwargs)
        except _ap.PARSE_ERRORS:
            _ap.raise_invalid_arguments(_IS_CONTIGUOUS_SIGS, args, kwargs)
        return _is_contiguous_in(self._sizes, self._strides, memory_format)

    def is_floating_point(self) -> bool:
        return self._dtype.is_floating_point

    def is_complex(self) -> bool:
        return self._dtype.is_complex

    def is_signed(self) -> bool:
        return self._dtype.is_signed

    def data_ptr(self) -> int:
        return self._storage._ptr + self._offset * self._dtype.itemsize

    def untyped_storage(self):
        if self._keyset & _SPARSE_BITS:
            raise _sparse.storage_error(self)
        return self._storage

    def get_device(self) -> int:
        return -1 if self._device.type == "cpu" else (self._device.index or 0)

    @property
    def _version(self) -> int:
        vc = self._vc
        if vc.__class__ is not list and vc.__class__ is InferenceVersion:
            raise RuntimeError("Inference tensors do not track version counter.")
        return vc[0]

    def is_inference(self) -> bool:
        """Whether this tensor was allocated in inference mode (or aliases one that was)."""
        return self._vc.__class__ is InferenceVersion

    def nonzero(self, *args, **kwargs):
        """``nonzero(*, as_tuple=False)``, bound by hand (see ``frontend/nonzero.py``)."""
        from .nonzero import tensor_nonzero
        return tensor_nonzero(self, *args, **kwargs)

    # torch/_tensor.py defines these two in Python, over torch.unique / unique_consecutive
    def unique(self, sorted=True, return_inverse=False, return_counts=False, dim=None):
        """Returns the unique elements of the input tensor. See ``strided.unique``."""
        from .functional import unique
        return unique(self, sorted=sorted, return_inverse=return_inverse,
                      return_counts=return_counts, dim=dim)

    def unique_consecutive(self, return_inverse=False, return_counts=False, dim=None):
        """Eliminates all but the first element of every run of equal consecutive elements.
        See ``strided.unique_consecutive``."""
        from .functional import unique_consecutive
        return unique_consecutive(self, return_inverse=return_inverse,
                                  return_counts=return_counts, dim=dim)

    @staticmethod
    def _make_subclass(cls, data, require_grad=False):
        """``Tensor._make_subclass(cls, data, require_grad)``: an instance of the subclass
        ``cls`` over ``data``'s memory (a detached alias sharing its version counter), as
        ``nn.Parameter`` makes itself. Ops on it give plain ``Tensor``s, as in torch."""
        check(isinstance(data, TensorImpl), "data must be a Tensor", TypeError)
        t = _object_new(cls)
        t._storage = data._storage
        t._sizes = data._sizes
        t._strides = data._strides
        t._offset = data._offset
        t._dtype = data._dtype
        t._device = data._device
        t._vc = data._vc
        t._base = None
        t._autograd_meta = None
        t._np = None
        t._keyset = data._keyset & ~_AUTOGRAD_BIT
        if require_grad:
            t._set_requires_grad(True)
        return t

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
        # torch's three requires_grad entry points word their errors differently: this
        # setter, requires_grad_() and the factories' requires_grad= (arg_parser)
        check(value is True or value is False, "requires_grad must be a bool")
        check(not value or self._dtype.is_floating_point or self._dtype.is_complex,
              "only Tensors of floating point and complex dtype can require gradients")
        self._set_requires_grad(value)

    def requires_grad_(self, *args, **kwargs):
        """``requires_grad_(requires_grad=True)``."""
        requires_grad = True
        if args or kwargs:
            try:
                requires_grad, = _requires_grad_args(*args, **kwargs)
            except _ap.PARSE_ERRORS:
                _ap.raise_invalid_arguments(_REQUIRES_GRAD_SIGS, args, kwargs)
        check(not requires_grad or self._dtype.is_floating_point or self._dtype.is_complex,
              "only Tensors of floating point dtype can require gradients")
        return self._set_requires_grad(requires_grad)

    def _set_requires_grad(self, requires_grad: bool):
        if requires_grad and self._vc.__class__ is InferenceVersion and \
                not _grad_mode.STATE.inference:
            raise RuntimeError("Setting requires_grad=True on inference tensor outside "
                               "InferenceMode is not allowed.")
        meta = self._autograd_meta
        if meta is None:
            if not requires_grad:
                return self
            meta = self._autograd_meta = AutogradMeta()
        if not requires_grad and meta.grad_fn is not None:
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to "
                "use a computed variable in a subgraph that doesn't require differentiation "
                "use var_no_grad = var.detach().")
        meta.requires_grad = requires_grad
        if requires_grad:
            self._keyset |= _AUTOGRAD_BIT
        else:
            self._keyset &= ~_AUTOGRAD_BIT
        return self

    @property
    def grad(self):
        meta = self._autograd_meta
        return None if meta is None else meta.grad

    @grad.setter
    def grad(self, value):
        if value is not None:
            check(isinstance(value, TensorImpl), lambda: (
                f"assigned grad expected to be a Tensor or None but got grad of type "
                f"{type(value).__name__}"))
            check(value._dtype is self._dtype, "assigned grad has data of a different type")
            check(value._sizes == self._sizes, "assigned grad has data of a different size")
        if self._autograd_meta is None:
            self._autograd_meta = AutogradMeta()
        self._autograd_meta.grad = value

    @grad.deleter
    def grad(self):
        if self._autograd_meta is not None:
            self._autograd_meta.grad = None

    @property
    def grad_fn(self):
        meta = self._autograd_meta
        if meta is None or meta.grad_fn is None:
            return None
        if self._base is not None:
            return _autograd_views.refresh_view_grad_fn(self, meta)
        return meta.grad_fn

    @property
    def is_leaf(self) -> bool:
        meta = self._autograd_meta
        return meta is None or meta.grad_fn is None

    @property
    def output_nr(self) -> int:
        meta = self._autograd_meta
        return 0 if meta is None else meta.output_nr

    @property
    def data(self):
        return self.detach()

    @data.setter
    def data(self, value):
        """``t.data = other``: ``t`` takes ``other``'s storage and geometry in place,
        keeping its autograd identity."""
        check(isinstance(value, TensorImpl), "data must be a Tensor")
        self._storage = value._storage
        self._sizes = value._sizes
        self._strides = value._strides
        self._offset = value._offset
        self._dtype = value._dtype
        if value._device is not self._device:    # nn.Module.to(device) moves parameters so
            self._device = value._device
            self._keyset = (value._keyset & ~_AUTOGRAD_BIT) | (self._keyset & _AUTOGRAD_BIT)
        self._np = None

    # -- autograd entry points -------------------------------------------------------------

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """Gradients of this tensor with respect to the graph's leaves, summed into their
        ``.grad`` (see ``strided.autograd.backward``)."""
        from .. import autograd
        meta = self._autograd_meta
        if gradient is None and inputs is None and not create_graph and meta is not None \
                and meta.grad_fn is not None and self._base is None and not self._sizes \
                and self._dtype.is_floating_point and self._device.type == "cpu":
            # the usual ``loss.backward()``: a 0-dim float output with a history
            autograd.engine.execute([((meta.grad_fn, meta.output_nr),
                                      autograd._ones_scalar(self))], bool(retain_graph), False)
            return
        autograd.backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    def retain_grad(self):
        """Keep the gradient of a non-leaf in ``.grad`` during backward."""
        check(self.requires_grad, "can't retain_grad on Tensor that has requires_grad=False")
        meta = self._autograd_meta
        if meta.grad_fn is None or meta.retains_grad:
            return
        fn = self.grad_fn
        if fn._retain_grad_hooks is None:
            fn._retain_grad_hooks = {}
        fn._retain_grad_hooks[meta.output_nr] = weakref.ref(self)
        meta.retains_grad = True

    @property
    def retains_grad(self) -> bool:
        meta = self._autograd_meta
        return meta is not None and meta.retains_grad

    def register_hook(self, hook):
        """``hook(grad)`` runs when this tensor's gradient is computed; it may return a
        replacement. Returns a handle whose ``remove()`` takes it out."""
        check(self.requires_grad, "cannot register a hook on a tensor that doesn't require "
                                  "gradient")
        meta = self._autograd_meta
        if meta.grad_fn is None:
            if meta.hooks is None:
                meta.hooks = []
            return _graph.Handle(meta.hooks, hook)
        fn = self.grad_fn
        if fn._tensor_pre_hooks is None:
            fn._tensor_pre_hooks = {}
        return _graph.Handle(fn._tensor_pre_hooks.setdefault(meta.output_nr, []), hook)

    def register_post_accumulate_grad_hook(self, hook):
        """``hook(tensor)`` after a gradient was accumulated into this leaf's ``.grad``."""
        check(self.is_leaf, "post accumulate grad hooks cannot be registered on non-leaf "
                            "tensors")
        check(self.requires_grad, "cannot register a hook on a tensor that doesn't require "
                                  "gradient")
        meta = self._autograd_meta
        if meta.post_accumulate_hooks is None:
            meta.post_accumulate_hooks = []
        return _graph.Handle(meta.post_accumulate_hooks, hook)

    # -- Python scalars and protocols -------------------------------------------------------

    def item(self):
        return _op_local_scalar.call(self._keyset, self)

    def tolist(self):
        check(self._device.type != "meta", "Cannot copy out of meta tensor; no data!",
              NotImplementedError)
        if self._keyset & _SPARSE_BITS:
            raise RuntimeError("Cannot access data pointer of Tensor that doesn't have storage")
        if not self._storage._nbytes and not self._offset and 0 not in self._sizes:
            # torch's check on a null data pointer (a storage resized to 0 under the tensor)
            raise RuntimeError("tolist() shouldn't be called on a tensor with unallocated "
                               "storage")
        arr = _resolved(self)._array()
        if self._dtype is dt.bfloat16 or self._dtype is dt.float16:
            arr = arr.astype(np.float64)
        elif self._dtype is dt.complex32:
            arr = _c32.widen(arr).astype(np.complex128)
        return arr.tolist()

    def __len__(self):
        if not self._sizes:
            raise TypeError("len() of a 0-d tensor")
        return self._sizes[0]

    def __iter__(self):
        if not self._sizes:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def _one_value(self):
        check(numel_of(self._sizes) == 1,
              "only one element tensors can be converted to Python scalars", ValueError)
        return self.item()

    def __bool__(self):
        n = numel_of(self._sizes)
        if n != 1:
            raise RuntimeError(f"Boolean value of Tensor with "
                               f"{'no values' if n == 0 else 'more than one value'} is ambiguous")
        return bool(self.item())

    # Note [Python scalars from tensors]
    # torch reads the value as a C++ double (float()), int64_t (int() of a non-float,
    # __index__) or complex double, with c10's overflow check: a complex value converts to
    # a real type only when its imaginary part is 0, a uint64 value above 2**63 - 1 not at
    # all. int() of a floating tensor goes through a double, so any size comes back.

    def __int__(self):
        value = self._one_value()
        if self._dtype.is_floating_point:
            return int(value)
        if self._dtype.is_complex:
            real = value.real
            check(value.imag == 0 and -_TWO_63 <= real <= _TWO_63,
                  "value cannot be converted to type int64_t without overflow")
            value = int(real)
            return value if value < _TWO_63 else -_TWO_63    # C++'s cast of 2**63
        return _as_int64(value)

    def __float__(self):
        value = self._one_value()
        if self._dtype.is_complex:
            check(value.imag == 0, "value cannot be converted to type double without overflow")
            return float(value.real)
        return float(value)

    def __complex__(self):
        return complex(self._one_value())

    def __index__(self):
        if self._dtype.category > dt.INT or numel_of(self._sizes) != 1:
            raise TypeError("only integer tensors of a single element can be converted to an "
                            "index")
        return _as_int64(self.item())

    def __hash__(self):
        return id(self)

    # pickle, copy.copy and copy.deepcopy as torch's (Note [Pickling a tensor])
    def __reduce_ex__(self, proto):
        from .pickling import reduce_tensor
        return reduce_tensor(self, proto)

    def __deepcopy__(self, memo):
        from .pickling import deepcopy_tensor
        return deepcopy_tensor(self, memo)

    # -- matrix product (the other arithmetic dunders live with the elementwise ops) --------
    # Like torch's, ``a @ b`` answers NotImplemented for a non-tensor operand, so Python
    # raises its own TypeError. torch defines no ``__imatmul__`` either: ``a @= b``
    # rebinds ``a`` to a new tensor.

    def norm(self, p="fro", dim=None, keepdim=False, dtype=None):
        """``Tensor.norm``: ``strided.norm`` as a method (torch's is Python too)."""
        from .functional import norm
        return norm(self, p, dim, keepdim, dtype=dtype)

    def lu(self, pivot=True, get_infos=False):
        """``Tensor.lu``: the packed LU factorisation and pivots (and, with ``get_infos``,
        LAPACK's infos); torch's is Python too."""
        from .functional_linalg_extra import lu
        return tuple(lu(self, pivot=pivot, get_infos=get_infos))

    def __matmul__(self, other):
        if not isinstance(other, Tensor):
            return NotImplemented
        return _matmul_op.call(self._keyset | other._keyset, self, other)

    def __rmatmul__(self, other):
        if not isinstance(other, Tensor):
            return NotImplemented
        return _matmul_op.call(self._keyset | other._keyset, other, self)

    def __getitem__(self, index):
        return _indexing.getitem(self, index)

    def __setitem__(self, index, value):
        _indexing.setitem(self, index, value)

    def __delitem__(self, index):
        raise TypeError("Tensor does not support deleting items")

    def __repr__(self, *, tensor_contents=None):
        if self._keyset & _SPARSE_BITS:
            return printing.sparse_repr(self)
        values = None if self._device.type == "meta" else _resolved(self)._array()
        return printing.tensor_repr(self, values)

    __str__ = __repr__

    def __format__(self, spec):
        if self.dim() == 0 and self._device.type != "meta":
            return self.item().__format__(spec)
        return object.__format__(self, spec)

    # -- NumPy ------------------------------------------------------------------------------

    def numpy(self, *, force=False):
        """A NumPy array sharing this tensor's memory (torch's rules for when it can't)."""
        if self._keyset & _SPARSE_BITS:
            raise _sparse.numpy_error(self)
        if force:
            t = _resolved(self.detach().to("cpu"))
            if t._dtype is dt.bfloat16 or t._dtype is dt.complex32:
                raise TypeError(f"Got unsupported ScalarType {t._dtype._scalar_name}")
            return np.asarray(ArrayExport(t))
        check(self._device.type == "cpu", lambda: (
            f"can't convert {self._device.type} device type tensor to numpy. Use Tensor.cpu() to "
            f"copy the tensor to host memory first."), TypeError)
        check(not (self.requires_grad and _grad_mode.is_grad_enabled()), (
            "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
            "instead."))
        if self._keyset & _MATH_BITS:
            check(not self._keyset & _CONJ_BIT, "Can't call numpy() on Tensor that has conjugate "
                  "bit set. Use tensor.resolve_conj().numpy() instead.")
            raise RuntimeError("Can't call numpy() on Tensor that has negative bit set. Use "
                               "tensor.resolve_neg().numpy() instead.")
        if self._dtype is dt.bfloat16 or self._dtype is dt.complex32:   # (no NumPy type)
            raise TypeError(f"Got unsupported ScalarType {self._dtype._scalar_name}")
        if 0 in self._sizes:
            return np.empty(self._sizes, self._dtype.np)
        return np.asarray(ArrayExport(self))

    def __array__(self, dtype=None, copy=None):
        """``np.asarray(t)``: ``numpy()`` (its errors too: a tensor that requires grad is
        refused), cast to ``dtype`` if asked. Unlike torch 2.13's, it takes NumPy 2's
        ``copy`` argument, so ``np.asarray(t, copy=False)`` shares memory where torch's
        raises, and NumPy has no missing-``copy`` DeprecationWarning to give."""
        arr = self.numpy()
        if dtype is not None and np.dtype(dtype) != arr.dtype:
            if copy is False:
                raise ValueError("Unable to avoid copy while creating an array as requested.")
            return arr.astype(dtype)
        if copy:
            return arr.copy()
        return arr

    # -- conversions --------------------------------------------------------------------------

    def cuda(self, device=None, non_blocking=False, memory_format=None):
        """A copy on a CUDA device: strided has none, so this fails as torch built without
        CUDA does (a non-CUDA ``device`` is refused first)."""
        if device is not None:
            from ..core.devices import device as device_cls
            d = device_cls(device)   # an int names the accelerator: none here, as torch says
            if d.type != "cuda":
                raise RuntimeError("Invalid device, must be cuda device")
        raise AssertionError("Torch not compiled with CUDA enabled")

    def to(self, *args, **kwargs):
        """``to(device=None, dtype=None)``, ``to(dtype)``, ``to(tensor)``; plus
        ``non_blocking``, ``copy`` and ``memory_format``, as torch's hand-written binding
        parses them. Returns ``self`` when nothing would change: same dtype and device,
        and a memory format that is ``preserve_format`` or the one the tensor's strides
        suggest (``contiguous_format`` for fewer than 4 dims, however strided)."""
        dtype, device, non_blocking, copy, memory_format = _parse_to(args, kwargs)
        if device is not None and device.type not in ("cpu", "meta"):
            if device.type == "cuda":   # as torch built without CUDA
                raise AssertionError("Torch not compiled with CUDA enabled")
            raise RuntimeError(f"strided has no {device.type} backend in this build")
        same = ((dtype is None or dtype is self._dtype)
                and (device is None or device == self._device)   # cpu:1 is not cpu: a copy
                and (memory_format is None or memory_format is layouts.preserve_format
                     or memory_format is suggest_memory_format(self._sizes, self._strides)))
        if same and not copy:
            return self
        return _op_to_copy.call(self._keyset, self, dtype, None, device, None, non_blocking,
                                memory_format)

    def cpu(self, *args, **kwargs):
        """``cpu(*, memory_format=torch.preserve_format)``: ``self.to("cpu", ...)``."""
        if not args and not kwargs:
            return self.to("cpu")
        try:
            memory_format = _cast_args(*args, **kwargs)
        except _ap.PARSE_ERRORS:
            _ap.raise_invalid_arguments(_CPU_SIGS, args, kwargs)
        return self.to("cpu", memory_format=memory_format)

    def type(self, dtype=None, non_blocking=False):
        if dtype is None:
            kind = self._device.type
            if self._keyset & _SPARSE_BITS:      # torch.sparse.FloatTensor, as torch names it
                _sparse.check_legacy_type(self)
                kind = "sparse"
            return (f"torch.{'' if kind == 'cpu' else kind + '.'}"
                    f"{_LEGACY_TYPE_NAMES[self._dtype.name]}Tensor")
        from .._legacy import tensor_type_dtype
        named = tensor_type_dtype(dtype)
        if named is None and isinstance(dtype, str):
            raise ValueError(f"invalid type: '{dtype}'")
        return self.to(named if named is not None else dtype)

    def unflatten(self, dim, sizes):
        """torch's Tensor.unflatten refuses empty sizes before it parses ``dim``."""
        if not sizes:
            raise RuntimeError("unflatten: sizes must be non-empty")
        return _gen_methods.TensorMethods.unflatten(self, dim, sizes)

    def to_sparse_coo(self):
        """A COO copy (``to_sparse()``; torch's Python method)."""
        return self.to_sparse()

    def storage(self):
        """The tensor's storage as a (deprecated) TypedStorage of its dtype."""
        from ..storage import typed_storage_of
        if self._keyset & _SPARSE_BITS:
            raise _sparse.storage_error(self)
        return typed_storage_of(self)

    def is_nonzero(self) -> bool:
        from .._legacy import is_nonzero
        return is_nonzero(self)

    float = _dtype_method(dt.float32, "float")
    double = _dtype_method(dt.float64, "double")
    half = _dtype_method(dt.float16, "half")
    bfloat16 = _dtype_method(dt.bfloat16, "bfloat16")
    long = _dtype_method(dt.int64, "long")
    int = _dtype_method(dt.int32, "int")
    short = _dtype_method(dt.int16, "short")
    char = _dtype_method(dt.int8, "char")
    byte = _dtype_method(dt.uint8, "byte")
    bool = _dtype_method(dt.bool_, "bool")
    cfloat = _dtype_method(dt.complex64, "cfloat")
    cdouble = _dtype_method(dt.complex128, "cdouble")
    chalf = _dtype_method(dt.complex32, "chalf")

    def contiguous(self, *args, **kwargs):
        """``contiguous(*, memory_format=torch.contiguous_format)``."""
        if not args and not kwargs:
            if compute_is_contiguous(self._sizes, self._strides):
                return self
            return _op_contiguous.call(self._keyset, self, _CONTIGUOUS_FORMAT)
        try:
            memory_format, = _contiguous_args(*args, **kwargs)
        except _ap.PARSE_ERRORS:
            _ap.raise_invalid_arguments(_CONTIGUOUS_SIGS, args, kwargs)
        from ..kernels.factory import is_contiguous_in
        if is_contiguous_in(self._sizes, self._strides, memory_format):
            return self
        return _op_contiguous.call(self._keyset, self, memory_format)

    def new_tensor(self, *args, **kwargs):
        """``new_tensor(data, *, dtype=None, device=None, requires_grad=False)``: a copy of
        ``data`` like ``tensor(data)``, but in this tensor's dtype and on its device unless
        told otherwise (no dtype inference)."""
        from .tensor_new import _new_from_data
        try:
            data, dtype, device, requires_grad = _new_tensor_args(*args, **kwargs)
        except _ap.PARSE_ERRORS:
            _ap.raise_invalid_arguments(_NEW_TENSOR_SIGS, args, kwargs)
        if isinstance(data, Tensor):
            warnings.warn(
                "To copy construct from a tensor, it is recommended to use "
                "sourceTensor.detach().clone() or "
                "sourceTensor.detach().clone().requires_grad_(True), rather than "
                "tensor.new_tensor(sourceTensor).", UserWarning, stacklevel=2)
        out = _new_from_data(data, self._dtype if dtype is None else dtype,
                             self._device if device is None else device, copy_tensor=True,
                             name="new_tensor")
        if requires_grad:
            _ap.factory_requires_grad(out)
        return out

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
    "float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16",
    "int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
    "bool": "Bool", "uint16": "UInt16", "uint32": "UInt32", "uint64": "UInt64",
    "complex64": "ComplexFloat", "complex128": "ComplexDouble", "complex32": "ComplexHalf",
}
_TWO_63 = 2 ** 63


def _as_int64(value) -> int:
    """An integer read as torch's int64_t (a uint64 value above its range raises)."""
    check(value < _TWO_63, "value cannot be converted to type int64_t without overflow")
    return int(value)


def suggest_memory_format(sizes, strides):
    """torch's ``suggest_memory_format``: ``channels_last`` (``channels_last_3d``) for a 4-d
    (5-d) tensor whose strides order the dims as N, H, W, C (N, D, H, W, C), else
    ``contiguous_format``."""
    if layouts.channels_last_order(sizes, strides) is None:
        return layouts.contiguous_format
    return layouts.channels_last if len(sizes) == 4 else layouts.channels_last_3d


# torch's Python signatures of the hand-parsed methods, for their TypeErrors
_CONTIGUOUS_SIGS = (_ap.PySig("contiguous", (
    ("memory_format", "MemoryFormat", "contiguous_format", True),), False, True),)
_REQUIRES_GRAD_SIGS = (_ap.PySig("requires_grad_", (
    ("requires_grad", "bool", "True", False),), False, True),)
_NEW_TENSOR_SIGS = (_ap.PySig("new_tensor", (
    ("data", "object", None, False), ("dtype", "ScalarType", "None", True),
    ("device", "Device?", "None", True), ("requires_grad", "bool", "False", True)),
    False, True),)


def _contiguous_args(*, memory_format=layouts.contiguous_format):
    return _ap.to_memory_format(memory_format),


_IS_CONTIGUOUS_SIGS = (_ap.PySig("is_contiguous", (
    ("memory_format", "MemoryFormat", "contiguous_format", True),), False, True),)
_CPU_SIGS = (_ap.PySig("cpu", (
    ("memory_format", "MemoryFormat?", "None", True),), False, True),)


def _requires_grad_args(requires_grad=True):
    return _ap.to_pybool(requires_grad),


def _new_tensor_args(data, *, dtype=None, device=None, requires_grad=False):
    return (data, None if dtype is None else _ap.to_dtype(dtype),
            None if device is None else _ap.to_device(device), _ap.to_pybool(requires_grad))

_TO_SIGS = (
    _ap.PySig("to", (("device", "Device?", "None", False), ("dtype", "ScalarType?", "None", False),
                     ("non_blocking", "bool", "False", False), ("copy", "bool", "False", False),
                     ("memory_format", "MemoryFormat?", "None", True)), False, True),
    _ap.PySig("to", (("dtype", "ScalarType", None, False), ("non_blocking", "bool", "False", False),
                     ("copy", "bool", "False", False),
                     ("memory_format", "MemoryFormat?", "None", True)), False, True),
    _ap.PySig("to", (("tensor", "Tensor", None, False), ("non_blocking", "bool", "False", False),
                     ("copy", "bool", "False", False),
                     ("memory_format", "MemoryFormat?", "None", True)), False, True),
)


def _to_flags(non_blocking, copy, memory_format):
    if non_blocking is not True and non_blocking is not False:
        raise _ap.Mismatch
    if copy is not True and copy is not False:
        raise _ap.Mismatch
    if memory_format is not None:
        _ap.to_memory_format(memory_format)


def _to_device_form(device=None, dtype=None, non_blocking=False, copy=False, *,
                    memory_format=None):
    device = None if device is None else _ap.to_device(device)
    dtype = None if dtype is None else _ap.to_dtype(dtype)
    _to_flags(non_blocking, copy, memory_format)
    return dtype, device, non_blocking, copy, memory_format


def _to_dtype_form(dtype, non_blocking=False, copy=False, *, memory_format=None):
    dtype = _ap.to_dtype(dtype)
    _to_flags(non_blocking, copy, memory_format)
    return dtype, None, non_blocking, copy, memory_format


def _to_tensor_form(tensor, non_blocking=False, copy=False, *, memory_format=None):
    _to_flags(non_blocking, copy, memory_format)
    if not isinstance(tensor, Tensor):
        # torch lets a Python number stand for a tensor here: to(1.5) is to(float64)
        return _wrapped_number_dtype(tensor), None, non_blocking, copy, memory_format
    return tensor._dtype, tensor._device, non_blocking, copy, memory_format


def _wrapped_number_dtype(x):
    """The dtype of the 0-dim tensor torch makes of a Python or NumPy number."""
    if isinstance(x, (bool, np.bool_)):
        return dt.bool_
    if isinstance(x, (int, np.integer)):
        return dt.int64
    if isinstance(x, (float, np.floating)):
        return dt.float64
    if isinstance(x, (complex, np.complexfloating)):
        return dt.complex128
    raise _ap.Mismatch


def _parse_to(args, kwargs):
    if len(args) == 1 and not kwargs and args[0].__class__ is dt.dtype:   # to(dtype)
        return args[0], None, False, False, None
    for form in (_to_device_form, _to_dtype_form, _to_tensor_form):   # torch's order
        try:
            return form(*args, **kwargs)
        except _ap.PARSE_ERRORS:
            continue
    _ap.raise_invalid_arguments(_TO_SIGS, args, kwargs)


set_tensor_class(Tensor)
_ap.set_tensor_class(Tensor)
_ap.register_type_name(Size, "torch.Size")
_gen_methods.bind_tensor_class(Tensor)
_gen_functions.bind_tensor_class(Tensor)
del _factory
