"""Composite kernels of the operators torch implements by calling another operator.

Note [Alias operators]
~~~~~~~~~~~~~~~~~~~~~~
``subtract``, ``multiply``, ``divide``, ``true_divide``, ``negative``, ``absolute``, the
``arc*`` names, ``clip``, ``fix``, the Scalar overloads of ``where``, the in-place
comparison aliases (``greater_``...), ``square`` and ``float_power`` are
``CompositeImplicitAutograd`` in torch: their kernel calls the operator they stand for
(``at::sub``, ``at::pow(self, 2)``...) through the dispatcher, so autograd records that
operator's node (``torch.subtract(x, y).grad_fn`` is ``SubBackward0``, ``x.square()``'s is
``PowBackward0``) and no formula of their own is needed. ``native_functions.yaml``
registers the kernels below under the same key, and each one re-dispatches to its target
with the key set of its tensor arguments: with autograd on, the target's autograd kernel
records; below autograd, the target's backend kernel runs, so the forward result is the
target's.
"""

from __future__ import annotations

from ..core import dtypes as dt
from ..core.checks import check
from ..core.devices import CPU
from ..core.dispatch_keys import backend_keyset
from ..core.tensor_impl import TensorImpl
from ..ops.dispatcher import get_op

__all__: list = []   # the kernels are looked up by name (kernels/__init__.py)
_CPU_KEYSET = backend_keyset(CPU)


def _keyset(args) -> int:
    ks = 0
    for a in args:
        if isinstance(a, TensorImpl):
            ks |= a._keyset
    # only Python numbers (``torch.true_divide(1, 2)``): torch wraps them as CPU tensors
    return ks or _CPU_KEYSET


def _redispatch(target: str, name: str):
    """A kernel that calls ``aten::<target>`` with its own arguments."""
    handle = []

    def kernel(*args):
        if not handle:
            handle.append(get_op("aten::" + target))
        return handle[0].call(_keyset(args), *args)

    kernel.__name__ = kernel.__qualname__ = name
    kernel.__doc__ = f"``aten::{target}`` (Note [Alias operators])."
    return kernel


# alias overload -> the overload torch's composite kernel calls, arguments unchanged
_TARGETS = {
    "subtract.Tensor": "sub.Tensor", "subtract.Scalar": "sub.Scalar",
    "subtract.out": "sub.out", "subtract_.Tensor": "sub_.Tensor",
    "subtract_.Scalar": "sub_.Scalar",
    "multiply.Tensor": "mul.Tensor", "multiply.Scalar": "mul.Scalar",
    "multiply.out": "mul.out", "multiply_.Tensor": "mul_.Tensor",
    "multiply_.Scalar": "mul_.Scalar",
    "divide.Tensor": "div.Tensor", "divide.Tensor_mode": "div.Tensor_mode",
    "divide.Scalar": "div.Scalar", "divide.Scalar_mode": "div.Scalar_mode",
    "divide.out": "div.out", "divide.out_mode": "div.out_mode",
    "divide_.Tensor": "div_.Tensor", "divide_.Tensor_mode": "div_.Tensor_mode",
    "divide_.Scalar": "div_.Scalar", "divide_.Scalar_mode": "div_.Scalar_mode",
    "true_divide.Tensor": "div.Tensor", "true_divide.Scalar": "div.Scalar",
    "true_divide.out": "div.out", "true_divide_.Tensor": "div_.Tensor",
    "true_divide_.Scalar": "div_.Scalar",
    "clip.Tensor": "clamp.Tensor", "clip": "clamp", "clip.Tensor_out": "clamp.Tensor_out",
    "clip.out": "clamp.out", "clip_.Tensor": "clamp_.Tensor", "clip_": "clamp_",
    "where.ScalarSelf": "where.self", "where.ScalarOther": "where.self",
    "where.Scalar": "where.self",
}
# the in-place comparisons: on a floating self they record torch's GtBackward0...
for _alias, _target in (("greater", "gt"), ("greater_equal", "ge"), ("less", "lt"),
                        ("less_equal", "le"), ("not_equal", "ne")):
    _TARGETS[_alias + "_.Tensor"] = _target + "_.Tensor"
    _TARGETS[_alias + "_.Scalar"] = _target + "_.Scalar"
for _alias, _target in (("negative", "neg"), ("absolute", "abs"), ("arcsin", "asin"),
                        ("arccos", "acos"), ("arctan", "atan"), ("arcsinh", "asinh"),
                        ("arccosh", "acosh"), ("arctanh", "atanh"), ("arctan2", "atan2"),
                        ("fix", "trunc")):
    _TARGETS[_alias] = _target
    _TARGETS[_alias + ".out"] = _target + ".out"
    _TARGETS[_alias + "_"] = _target + "_"


def _kernel_name(alias: str) -> str:
    """``divide_.Scalar_mode`` -> ``divide__Scalar_mode_alias`` (the name the YAML uses)."""
    return alias.replace(".", "_") + "_alias"


for _alias, _target in _TARGETS.items():
    _name = _kernel_name(_alias)
    globals()[_name] = _redispatch(_target, _name)
    __all__.append(_name)
del _alias, _target, _name


# -- square: pow(self, 2) ----------------------------------------------------------------------

_POW = {}


def _op(qualname):
    op = _POW.get(qualname)
    if op is None:
        op = _POW[qualname] = get_op(qualname)
    return op


def square_alias(self):
    """``square``: ``pow(self, 2)``."""
    return _op("aten::pow.Tensor_Scalar").call(self._keyset, self, 2)


def square_out_alias(self, out):
    return _op("aten::pow.Tensor_Scalar_out").call(self._keyset | out._keyset, self, 2, out)


def square__alias(self):
    return _op("aten::pow_.Scalar").call(self._keyset, self, 2)


# -- float_power: pow in double (or complex double) ------------------------------------------

def _is_complex(x) -> bool:
    if isinstance(x, TensorImpl):
        return x._dtype.is_complex
    return isinstance(x, complex)


def _float_power_dtype(base, exp):
    return dt.complex128 if _is_complex(base) or _is_complex(exp) else dt.float64


def _convert(x, dtype):
    """``x.to(dtype)`` through the dispatcher (so autograd records ``ToCopyBackward0``), or
    a number as a Python double / complex."""
    if isinstance(x, TensorImpl):
        if x._dtype is dtype:
            return x
        return _op("aten::_to_copy").call(x._keyset, x, dtype, None, None, None, False, None)
    return complex(x) if dtype.is_complex else float(x)


def _check_out(out, dtype):
    check(out._dtype is dtype, lambda: (
        f"the output given to float_power has dtype {out._dtype._scalar_name} but the "
        f"operation's result requires dtype {dtype._scalar_name}"))


def float_power_Tensor_Tensor_alias(self, exponent):
    dtype = _float_power_dtype(self, exponent)
    base, exp = _convert(self, dtype), _convert(exponent, dtype)
    return _op("aten::pow.Tensor_Tensor").call(base._keyset | exp._keyset, base, exp)


def float_power_Scalar_alias(self, exponent):
    dtype = _float_power_dtype(self, exponent)
    exp = _convert(exponent, dtype)
    return _op("aten::pow.Scalar").call(exp._keyset, _convert(self, dtype), exp)


def float_power_Tensor_Scalar_alias(self, exponent):
    dtype = _float_power_dtype(self, exponent)
    base = _convert(self, dtype)
    return _op("aten::pow.Tensor_Scalar").call(base._keyset, base, _convert(exponent, dtype))


def float_power_Tensor_Tensor_out_alias(self, exponent, out):
    dtype = _float_power_dtype(self, exponent)
    _check_out(out, dtype)
    base, exp = _convert(self, dtype), _convert(exponent, dtype)
    return _op("aten::pow.Tensor_Tensor_out").call(
        base._keyset | exp._keyset | out._keyset, base, exp, out)


def float_power_Scalar_out_alias(self, exponent, out):
    dtype = _float_power_dtype(self, exponent)
    _check_out(out, dtype)
    exp = _convert(exponent, dtype)
    return _op("aten::pow.Scalar_out").call(exp._keyset | out._keyset,
                                            _convert(self, dtype), exp, out)


def float_power_Tensor_Scalar_out_alias(self, exponent, out):
    dtype = _float_power_dtype(self, exponent)
    _check_out(out, dtype)
    base = _convert(self, dtype)
    return _op("aten::pow.Tensor_Scalar_out").call(base._keyset | out._keyset, base,
                                                   _convert(exponent, dtype), out)


def _check_inplace(self, dtype):
    check(self._dtype is dtype, lambda: (
        f"the base given to float_power_ has dtype {self._dtype._scalar_name} but the "
        f"operation's result requires dtype {dtype._scalar_name}"))


def float_power__Tensor_alias(self, exponent):
    dtype = _float_power_dtype(self, exponent)
    _check_inplace(self, dtype)
    exp = _convert(exponent, dtype)
    return _op("aten::pow_.Tensor").call(self._keyset | exp._keyset, self, exp)


def float_power__Scalar_alias(self, exponent):
    dtype = _float_power_dtype(self, exponent)
    _check_inplace(self, dtype)
    return _op("aten::pow_.Scalar").call(self._keyset, self, _convert(exponent, dtype))


__all__ += ["square_alias", "square_out_alias", "square__alias",
            "float_power_Tensor_Tensor_alias", "float_power_Scalar_alias",
            "float_power_Tensor_Scalar_alias", "float_power_Tensor_Tensor_out_alias",
            "float_power_Scalar_out_alias", "float_power_Tensor_Scalar_out_alias",
            "float_power__Tensor_alias", "float_power__Scalar_alias"]
