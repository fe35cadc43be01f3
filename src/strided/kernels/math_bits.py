"""The boxed fallback of the ``Conjugate`` and ``Negative`` keys, and their fallthroughs.

Note [The math bits fallback]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A tensor reaches the ``Conjugate`` (``Negative``) key only when it carries that bit
(Note [Conjugate and negative bits] in view_ops.py). For an op without a bit-aware
kernel, the fallback does what torch's MathBitsFallback does, reading the op's schema:

- an op whose aliasing arguments are all read-only (``Tensor(a) self``: a view op)
  passes through: its kernel copies the bits to the view it makes;
- an op with a ``CompositeImplicitAutograd`` kernel runs it: in torch such a kernel runs
  at the ``Autograd`` key, above the bits, and the ops it calls see them (``atleast_2d``
  or ``broadcast_tensors`` of a conjugate view give conjugate views, ``matmul`` of two
  vectors is a bit-aware ``dot``). For the ops of ``_DECOMPOSED``, strided's
  decompositions registered for the Autograd key only (Note [Composite views under
  autograd] in views.py) serve here too; other such decompositions may read their
  arguments' bytes (they run the backend kernel for its checks), so those ops resolve;
- otherwise every tensor argument carrying the bit is replaced by a resolved clone
  (``clone`` resolves every bit), and the op runs below the key. A written argument
  (``Tensor(a!)``: in-place or ``out=``) is cloned too, so that an input sharing its
  memory is read as it was; afterwards the clone is copied back into it, through the
  bit-aware ``copy_`` (``resize_output`` first, for ``out=``), and the op returns it.
  Only one written tensor may carry the bit, and none inside a written tensor list,
  as in torch.

The ops registered below as fallthroughs skip the fallback: their kernels handle the
bits themselves (``copy_``, ``clone``, views, ``conj_physical_``, ``neg_``), or never
read the values (``empty_like`` and the other factories ``*_like``, ``new_*``, queries
such as ``is_conj``, ``set_``, ``requires_grad_``).
"""

from __future__ import annotations

import warnings

from ..core.dispatch_keys import DispatchKey
from ..ops.dispatcher import FALLTHROUGH, BoxedFallback, all_ops, register_fallback, register_kernel

__all__ = ["install"]

_CONJ = DispatchKey.Conjugate
_NEG = DispatchKey.Negative
_NAMES = {_CONJ: "conjugate", _NEG: "negation"}

_VIEW, _FUNCTIONAL, _MUTATING, _COMPOSITE = 0, 1, 2, 3
# ops torch implements as composites that strided serves with a kernel of its own on the
# backends and a decomposition (over dispatched ops) on the Autograd key: the fallback runs
# the decomposition, so that the bits reach the ops it calls as in torch
_DECOMPOSED = frozenset((
    "broadcast_tensors", "meshgrid", "atleast_1d", "atleast_2d", "atleast_3d",
    "cartesian_prod", "matmul", "inner",
))
_plans: dict = {}


def _plan(op):
    """(kind, tensor positions, written positions) of ``op``, read from its schema."""
    plan = _plans.get(op.qualname)
    if plan is not None:
        return plan
    from ..ops.schema import FunctionSchema
    text = op.schema if isinstance(op.schema, str) else str(op.schema)
    args = FunctionSchema.parse(text.split("::", 1)[-1]).arguments.flat_all
    written = set()
    aliased = False
    for i, a in enumerate(args):
        if a.annotation is not None:
            if a.is_write:
                written.add(i)
            else:
                aliased = True
    positions = tuple(i for i, a in enumerate(args) if str(a.type).startswith("Tensor"))
    implicit = op.kernels.get(DispatchKey.CompositeImplicitAutograd)
    if implicit and (op.resolved_key(DispatchKey.CPU) == DispatchKey.CompositeImplicitAutograd
                     or op.qualname.split("::")[-1].split(".")[0] in _DECOMPOSED):
        kind = (_COMPOSITE, implicit[-1])
    elif aliased and not written:
        kind = _VIEW
    else:
        kind = _MUTATING if written else _FUNCTIONAL
        if aliased:
            kind = ("mixed", op.qualname)
    plan = _plans[op.qualname] = (kind, positions, frozenset(written))
    return plan


def _keyset_of(args) -> int:
    ks = 0
    for a in args:
        if type(a) in (list, tuple):
            for t in a:
                ks |= getattr(t, "_keyset", 0)
        else:
            ks |= getattr(a, "_keyset", 0)
    return ks


def _fallback(key, op, *args):
    """Note [The math bits fallback]."""
    bit = key.bit
    below = bit - 1                     # the keys after ``key``
    kind, positions, written = _plan(op)
    if kind == _VIEW:
        return op.redispatch(_keyset_of(args) & below, *args)
    if type(kind) is tuple and kind[0] == _COMPOSITE:
        return kind[1](*args)
    name = _NAMES[key]
    if type(kind) is tuple:
        raise RuntimeError(
            f"Unsupported operator for {name} fallback: {kind[1]}{name} fallback doesn't work "
            f"for operators with a mix mutable and non-mutable inputs that alias with "
            f"outputs, this must be implemented manually.  If you got this error on a core "
            f"op, please report a bug to PyTorch.")
    from .factory import clone
    args = list(args)
    mutable = None
    for p in positions:
        a = args[p]
        if type(a) in (list, tuple):
            if not any(getattr(t, "_keyset", 0) & bit for t in a):
                continue
            if p in written:
                raise RuntimeError(
                    f" fallback doesn't currently support mutable TensorLists with {name} "
                    f"inputs. Please materialize all the {name} input tensor(s) in the mutable "
                    f"TensorList inputs before calling {op.qualname.split('.')[0]}")
            args[p] = type(a)(clone(t) if getattr(t, "_keyset", 0) & bit else t for t in a)
        elif a is not None and getattr(a, "_keyset", 0) & bit:
            resolved = clone(a)
            if p in written:
                if mutable is not None:
                    raise RuntimeError(
                        f"{name} fallback does not support operators with more than one "
                        f"mutable tensors with {name}bit set to true.")
                mutable = (a, resolved)
            args[p] = resolved
    out = op.redispatch(_keyset_of(args) & below, *args)
    if mutable is None:
        return out
    original, resolved = mutable
    _write_back(original, resolved)
    if out is resolved:
        return original
    if type(out) is tuple or isinstance(out, tuple):
        items = [original if o is resolved else o for o in out]
        return type(out)(items) if type(out) is tuple else type(out)(*items)
    return out


def has_bits(args) -> bool:
    """Whether a tensor among ``args`` (tensor lists included) carries a bit."""
    return bool(_keyset_of(args) & (_CONJ.bit | _NEG.bit))


def run_resolved(kernel, args, written=()):
    """``kernel(*args)`` on resolved copies of the arguments that carry a bit; the written
    argument at a position of ``written`` (``out=``) gets the result copied back, as the
    fallback does (Note [The math bits fallback]). For kernels that an Autograd-key
    decomposition calls directly, bypassing the keys below it."""
    from .factory import clone
    args = list(args)
    mutable = None
    for p, a in enumerate(args):
        if type(a) in (list, tuple):
            args[p] = type(a)(clone(t) if getattr(t, "_keyset", 0) & _MATH else t for t in a)
        elif getattr(a, "_keyset", 0) & _MATH:
            args[p] = clone(a)
            if p in written:
                mutable = (a, args[p])
    out = kernel(*args)
    if mutable is None:
        return out
    original, resolved = mutable
    _write_back(original, resolved)
    return original if out is resolved else out


def _write_back(original, resolved) -> None:
    """The written argument that carried a bit gets the result computed on its resolved
    clone: resized (quietly: torch warns once about a resized out=, and the op already did,
    on the clone) and copied back through ``copy_``, which applies the bits again."""
    from .copy import copy_
    from .resize import resize_output
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        resize_output(original, resolved._sizes)
    copy_(original, resolved)


_MATH = _CONJ.bit | _NEG.bit


# ops whose kernels read no values, or handle the bits themselves (both keys)
_FALLTHROUGH = (
    # views changed in place: their metadata only
    "as_strided_", "squeeze_", "unsqueeze_", "transpose_", "t_", "swapdims_", "swapaxes_",
    "resize_", "resize_as_",
    "copy_", "clone", "conj_physical_", "neg_", "resolve_conj", "resolve_neg", "is_conj",
    "is_neg", "_unsafe_view", "empty_like", "zeros_like", "ones_like", "full_like",
    "rand_like", "randn_like", "randint_like", "new_empty", "new_empty_strided", "new_zeros",
    "new_ones", "new_full", "set_", "detach_", "requires_grad_", "is_complex",
    "is_floating_point", "is_signed", "size", "stride", "_has_same_storage_numel",
    "_new_zeros_with_same_feature_meta",
)


# -- dot and vdot read the conjugate bit, as torch's BLAS-backed kernels do ----------------------
# conj(a).b = vdot(a, b), a.conj(b) = vdot(b, a), conj(a).conj(b) = conj(a.b); for vdot,
# which conjugates its first argument: vdot(conj(a), b) = a.b, vdot(conj(a), conj(b)) =
# vdot(b, a), vdot(a, conj(b)) = conj(a.b). A result "conj(...)" is a conjugate view.

def _call(name, *args):
    from .views import _call_op
    return _call_op(name, *args)


def _raw(t):
    from .view_ops import alias_conj
    return alias_conj(t) if t._keyset & _CONJ.bit else t


def _dot_conjugate(self, other):
    sc, oc = self._keyset & _CONJ.bit, other._keyset & _CONJ.bit
    if sc and oc:
        return _call("aten::_conj", _call("aten::dot", _raw(self), _raw(other)))
    if sc:
        return _call("aten::vdot", _raw(self), other)
    return _call("aten::vdot", _raw(other), self)


def _vdot_conjugate(self, other):
    sc, oc = self._keyset & _CONJ.bit, other._keyset & _CONJ.bit
    if sc and oc:
        return _call("aten::vdot", _raw(other), _raw(self))
    if sc:
        return _call("aten::dot", _raw(self), other)
    return _call("aten::_conj", _call("aten::dot", self, _raw(other)))


def install() -> None:
    """Register the fallback for both keys, the fallthroughs and dot / vdot's kernels."""
    for key in (_CONJ, _NEG):
        register_fallback(key, BoxedFallback(_fallback_for(key)))
    register_kernel("aten::dot", _CONJ, _dot_conjugate)
    register_kernel("aten::vdot", _CONJ, _vdot_conjugate)
    names = set(_FALLTHROUGH)
    for qualname in all_ops():
        base = qualname.split("::", 1)[-1].split(".", 1)[0]
        if qualname.startswith("aten::") and base in names:
            for key in (_CONJ, _NEG):
                register_kernel(qualname, key, FALLTHROUGH)


def _fallback_for(key):
    def math_bits_fallback(op, *args):
        return _fallback(key, op, *args)
    math_bits_fallback.__qualname__ = f"math_bits_fallback[{key.name}]"
    return math_bits_fallback
