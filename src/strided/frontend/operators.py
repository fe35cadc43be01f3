"""Python operators on tensors: ``+ - * / // % ** & | ^ ~ << >>``, comparisons, their
reflected and in-place forms, with torch's semantics for Python numbers.

Note [Operators and Python numbers]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Each operator calls the op torch's binds it to (``t + 2`` is ``add.Tensor`` with 2 as a
wrapped number, ``t == 2`` is ``eq.Scalar``), so promotion follows torch: ``int_tensor /
2`` is float, ``int_tensor // 2.5`` is float, ``2 ** t`` is ``pow.Scalar``. An operand
that is neither a tensor nor a number makes the operator answer ``NotImplemented``, as
torch's do (its parser's TypeError is turned into ``NotImplemented``), so Python raises
its own "unsupported operand type(s)" error, or for ``==`` falls back to identity.
Reflected forms follow torch's ``_tensor.py``: ``2 - t`` is ``rsub``, ``2 / t`` is
``t.reciprocal() * 2`` (so its rounding is torch's), ``2 % t`` is ``remainder(2, t)``.
"""

from __future__ import annotations

import numbers

import numpy as np

from ..core import dtypes as dt
from ..core.tensor_impl import TensorImpl
from ..ops.dispatcher import get_op

__all__ = ["TensorOperators"]

_NOT_A_NUMBER = object()
_PYNUM = (int, float, bool, complex)
_INT64_MAX = (1 << 63) - 1


def _number(x):
    """``x`` as the Python number torch's argument parser reads it, or ``_NOT_A_NUMBER``.

    torch reads a NumPy integer as an int (one past int64 becomes a uint64 scalar that no
    operator takes: NotImplemented here), a Python bool, int, float or complex (subclasses
    like ``np.float64``/``np.complex128`` too) as itself, and any other NumPy scalar through
    ``float()``: ``np.bool_(True)`` is 1.0 and ``np.complex64(2j)`` loses its imaginary part
    with NumPy's ComplexWarning, as in torch."""
    if x.__class__ in _PYNUM:
        return x
    if isinstance(x, np.integer):
        x = int(x)
        return x if x <= _INT64_MAX else _NOT_A_NUMBER
    if isinstance(x, _PYNUM):
        return x
    if isinstance(x, (np.number, np.bool_)):
        return float(x)
    return _NOT_A_NUMBER


def _foreign_self(qualname: str, self):
    """An unbound operator method called on a non-tensor: torch's reflected subtraction is
    a Python function that answers NotImplemented; its C slots refuse the object."""
    if qualname == "aten::rsub.Tensor":
        return NotImplemented
    raise TypeError(f"descriptor requires a 'torch._C.TensorBase' object but received a "
                    f"'{type(self).__name__}'")


def _binary(tensor_qualname: str, scalar_qualname: str | None = None, alpha: bool = False,
            swap: bool = False):
    """``self <op> other``: the Tensor overload for a tensor, the Scalar overload (or the
    Tensor one with a wrapped number) for a number; ``swap`` for the reflected forms that
    compute ``other <op> self``."""
    op_t = get_op(tensor_qualname)
    op_s = get_op(scalar_qualname) if scalar_qualname else op_t
    if alpha:
        def method(self, other):
            if isinstance(other, TensorImpl):
                return op_t.call(self._keyset | other._keyset, self, other, 1)
            other = _number(other)
            if other is _NOT_A_NUMBER:
                return NotImplemented
            if not isinstance(self, TensorImpl):       # Tensor.__add__(2, 3), unbound
                return _foreign_self(tensor_qualname, self)
            return op_s.call(self._keyset, self, other, 1)
    elif swap:
        def method(self, other):
            if isinstance(other, TensorImpl):
                return op_t.call(self._keyset | other._keyset, other, self)
            other = _number(other)
            if other is _NOT_A_NUMBER or not isinstance(self, TensorImpl):
                return NotImplemented
            return op_s.call(self._keyset, other, self)
    else:
        def method(self, other):
            if isinstance(other, TensorImpl):
                return op_t.call(self._keyset | other._keyset, self, other)
            other = _number(other)
            if other is _NOT_A_NUMBER:
                return NotImplemented
            return op_s.call(self._keyset, self, other)
    return method


def _rtruediv(self, other):
    # torch's ``__rdiv__`` is Python: ``self.reciprocal() * other``, a TypeError made
    # NotImplemented; an ndarray ``other`` then multiplies through NumPy (a tensor back)
    try:
        return self.reciprocal() * other
    except TypeError:
        return NotImplemented


def _eq_with_arrays():
    """``t == other``: like the other operators, but an ndarray ``other`` is compared as
    ``from_numpy(other)`` (torch's ``__eq__`` alone does this; ``!=`` does not): an array
    from_numpy refuses with a TypeError makes it NotImplemented."""
    op_t = get_op("aten::eq.Tensor")
    op_s = get_op("aten::eq.Scalar")

    def __eq__(self, other):
        if isinstance(other, TensorImpl):
            return op_t.call(self._keyset | other._keyset, self, other)
        if isinstance(other, np.ndarray):
            from .tensor_new import _from_numpy
            try:
                other = _from_numpy(other)
            except TypeError:
                return NotImplemented
            return op_t.call(self._keyset | other._keyset, self, other)
        other = _number(other)
        if other is _NOT_A_NUMBER:
            return NotImplemented
        return op_s.call(self._keyset, self, other)
    return __eq__


def _array_wrap(self, array):
    """NumPy wraps a ufunc's result on tensors with this (``np.exp(t)`` is a tensor): a
    tensor sharing the result's memory; a bool result becomes uint8, as in torch. The
    one-argument signature is torch's (NumPy 2 warns about it for both)."""
    from .tensor_new import _from_numpy
    if array.dtype == np.bool_:
        array = array.astype(np.uint8)
    return _from_numpy(array)


def _contains(self, element):
    """``element in t``: whether ``element == t`` anywhere (broadcasting a tensor
    ``element``); only tensors and numbers (``numbers.Number``) are accepted."""
    if isinstance(element, (TensorImpl, numbers.Number)):
        return bool((element == self).any().item())
    raise RuntimeError("Tensor.__contains__ only supports Tensor or scalar, but you passed in "
                       f"a {type(element)}.")


def _invert(self):
    if self._dtype.category > dt.INT:
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type "
                        "tensors")
    return _op_bitwise_not.call(self._keyset, self)


_op_bitwise_not = get_op("aten::bitwise_not")
_op_neg = get_op("aten::neg")
_op_abs = get_op("aten::abs")
_op_positive = get_op("aten::positive")


class TensorOperators:
    """The operator dunders of ``Tensor`` (Note [Operators and Python numbers])."""

    __slots__ = ()

    __add__ = __radd__ = _binary("aten::add.Tensor", alpha=True)
    __iadd__ = _binary("aten::add_.Tensor", alpha=True)
    __sub__ = _binary("aten::sub.Tensor", alpha=True)
    __isub__ = _binary("aten::sub_.Tensor", alpha=True)
    __rsub__ = _binary("aten::rsub.Tensor", "aten::rsub.Scalar", alpha=True)
    __mul__ = __rmul__ = _binary("aten::mul.Tensor")
    __imul__ = _binary("aten::mul_.Tensor")
    __truediv__ = _binary("aten::div.Tensor")
    __itruediv__ = _binary("aten::div_.Tensor")
    __rtruediv__ = __rdiv__ = _rtruediv
    __floordiv__ = _binary("aten::floor_divide")
    __ifloordiv__ = _binary("aten::floor_divide_.Tensor")
    __rfloordiv__ = _binary("aten::floor_divide", swap=True)
    __mod__ = _binary("aten::remainder.Tensor", "aten::remainder.Scalar")
    __imod__ = _binary("aten::remainder_.Tensor", "aten::remainder_.Scalar")
    __rmod__ = _binary("aten::remainder.Tensor", "aten::remainder.Scalar_Tensor", swap=True)
    __pow__ = _binary("aten::pow.Tensor_Tensor", "aten::pow.Tensor_Scalar")
    __ipow__ = _binary("aten::pow_.Tensor", "aten::pow_.Scalar")
    __rpow__ = _binary("aten::pow.Tensor_Tensor", "aten::pow.Scalar", swap=True)
    __and__ = __rand__ = _binary("aten::bitwise_and.Tensor", "aten::bitwise_and.Scalar")
    __iand__ = _binary("aten::bitwise_and_.Tensor", "aten::bitwise_and_.Scalar")
    __or__ = __ror__ = _binary("aten::bitwise_or.Tensor", "aten::bitwise_or.Scalar")
    __ior__ = _binary("aten::bitwise_or_.Tensor", "aten::bitwise_or_.Scalar")
    __xor__ = __rxor__ = _binary("aten::bitwise_xor.Tensor", "aten::bitwise_xor.Scalar")
    __ixor__ = _binary("aten::bitwise_xor_.Tensor", "aten::bitwise_xor_.Scalar")
    __lshift__ = _binary("aten::bitwise_left_shift.Tensor",
                         "aten::bitwise_left_shift.Tensor_Scalar")
    __ilshift__ = _binary("aten::bitwise_left_shift_.Tensor",
                          "aten::bitwise_left_shift_.Tensor_Scalar")
    __rlshift__ = _binary("aten::bitwise_left_shift.Tensor",
                          "aten::bitwise_left_shift.Scalar_Tensor", swap=True)
    __rshift__ = _binary("aten::bitwise_right_shift.Tensor",
                         "aten::bitwise_right_shift.Tensor_Scalar")
    __irshift__ = _binary("aten::bitwise_right_shift_.Tensor",
                          "aten::bitwise_right_shift_.Tensor_Scalar")
    __rrshift__ = _binary("aten::bitwise_right_shift.Tensor",
                          "aten::bitwise_right_shift.Scalar_Tensor", swap=True)
    __eq__ = _eq_with_arrays()
    __ne__ = _binary("aten::ne.Tensor", "aten::ne.Scalar")
    __lt__ = _binary("aten::lt.Tensor", "aten::lt.Scalar")
    __le__ = _binary("aten::le.Tensor", "aten::le.Scalar")
    __gt__ = _binary("aten::gt.Tensor", "aten::gt.Scalar")
    __ge__ = _binary("aten::ge.Tensor", "aten::ge.Scalar")
    __invert__ = _invert

    def __neg__(self):
        return _op_neg.call(self._keyset, self)

    def __pos__(self):
        return _op_positive.call(self._keyset, self)

    def __abs__(self):
        return _op_abs.call(self._keyset, self)

    __array_priority__ = 1000   # NumPy defers to the tensor: np.float32(2) * t is a tensor
    __array_wrap__ = _array_wrap
    __contains__ = _contains
