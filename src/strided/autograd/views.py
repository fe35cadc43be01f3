"""In-place ops on views: ``CopySlices`` and regenerated view histories.

    x = strided.ones(2, 3, requires_grad=True)
    y = x * 1
    y[0] = 0                   # copy_ into the view y[0]
    y.grad_fn                  # <CopySlices>: y's history now includes the copy
    y[0].grad_fn               # <SelectBackward0> of <CopySlices>

Note [Rebasing a view's history]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
An in-place op on a view changes the memory of its base, so the base's history must
change too. The op's node ``fn`` is recorded as if ``view`` were its input (its first
edge is the view's old history). Then the base gets a ``CopySlices`` node whose first
edge is the base's old history and whose other edges are ``fn``'s other edges. Its
backward takes the gradient for the whole base, runs ``fn`` on the part the view
covers (found by laying out a buffer like the base and taking the view's
``as_strided`` of it), writes ``fn``'s result for the view back into that part, and
sends the rest of the base's gradient along unchanged.

The view itself gets a fresh history on top of the base's: ``as_strided`` of the base
with the view's geometry. Every other view of the same base sees, through the version
counter they share, that the base changed after their ``grad_fn`` was made, and
regenerates its ``grad_fn`` the same way the next time it is asked for
(``refresh_view_grad_fn``), as torch does.
"""

from __future__ import annotations

from ..core.dispatch_keys import DispatchKey
from ..core.tensor_impl import AutogradMeta
from . import grad_mode
from .graph import Node, _metadata_of, gradient_edge

__all__ = ["CopySlices", "rebase_view", "refresh_view_grad_fn"]


class CopySlices(Node):
    """The base's node after an in-place op on one of its views."""

    __slots__ = ("fn", "base_sizes", "base_strides", "base_offset", "view_sizes",
                 "view_strides", "view_offset", "view_real", "view_bits")

    def __init__(self, base, view, fn):
        super().__init__()
        self.fn = fn
        self.base_sizes = base._sizes
        self.base_strides = base._strides
        self.base_offset = base._offset
        self.view_sizes = view._sizes
        self.view_strides = view._strides
        self.view_offset = view._offset
        self.view_real = _real_view_of_complex(view, base)   # (fix by shape helper)
        self.view_bits = _bits_between(view, base)
        self.next_functions = (gradient_edge(base),) + tuple(fn.next_functions[1:])
        self._input_metadata = (_metadata_of(base),) + tuple(fn._input_metadata[1:])

    def name(self) -> str:
        return "torch::autograd::CopySlices"

    def apply(self, grads):
        from ..kernels.factory import empty_strided
        grad = grads[0]
        result = empty_strided(self.base_sizes, self.base_strides, grad._dtype,
                               device=grad._device)
        # the buffer starts at the base's offset: shift the view's offset to match
        span_offset = self.base_offset
        if span_offset:
            result = _shifted(result, span_offset)
        result.copy_(grad)
        src = _as_real(result) if self.view_real else result   # (fix by shape helper)
        grad_slice = src.as_strided(self.view_sizes, self.view_strides, self.view_offset)
        # a conjugate / negative view is conj / neg of the part it covers: its gradient is
        # that part's gradient conjugated / negated, and back (Note [Rebasing a view's history])
        res = self.fn.apply((_math_bits_applied(grad_slice, self.view_bits).clone(),))
        if res[0] is None:
            grad_slice.zero_()
        else:
            grad_slice.copy_(_math_bits_applied(res[0], self.view_bits))
        return (result,) + tuple(res[1:])

    def _release(self) -> None:
        self._freed = True
        self.fn._release()


def _shifted(t, offset):
    """A tensor like ``t`` whose storage starts ``offset`` elements earlier (so that the
    base's and the view's storage offsets can be used as they are)."""
    from ..kernels.factory import empty
    numel = t._storage._nbytes // t._dtype.itemsize + offset
    buf = empty((numel,), t._dtype, device=t._device)
    return buf.as_strided(t._sizes, t._strides, offset)


def _real_view_of_complex(view, base) -> bool:
    """A real view (``real``, ``imag``, ``view_as_real``) of a complex base: its geometry
    counts in reals, so it is taken from ``view_as_real`` of the base.  (fix by shape helper)"""
    return base._dtype.is_complex and not view._dtype.is_complex


def _as_real(t):
    import strided
    return strided.view_as_real(t)


_CONJ_BIT = DispatchKey.Conjugate.bit
_NEG_BIT = DispatchKey.Negative.bit


def _bits_between(view, base) -> int:
    """The conjugate / negative bits that ``view`` has and ``base`` has not, or the reverse
    (Note [Conjugate and negative bits] in kernels/view_ops.py): the view's values are
    those of ``base``'s part conjugated / negated (a real view of a complex base counts
    only the negative bit)."""
    return (view._keyset ^ base._keyset) & (_CONJ_BIT | _NEG_BIT)


def _math_bits_applied(t, bits, lazy=False):
    """``t`` conjugated / negated as ``bits`` say: as views (``_conj``, ``_neg_view``) when
    ``lazy``, else as values (recorded either way)."""
    if bits & _CONJ_BIT and t.is_complex():
        t = t._conj() if lazy else t.conj_physical()
    if bits & _NEG_BIT:
        t = t._neg_view() if lazy else t.neg()
    return t


def _view_history(view, base):
    """``as_strided`` of ``base`` with ``view``'s geometry, recorded: its grad_fn."""
    prev = grad_mode.STATE.enabled
    grad_mode.STATE.enabled = True
    try:
        src = _as_real(base) if _real_view_of_complex(view, base) else base  # (fix by shape helper)
        fresh = _math_bits_applied(src.as_strided(view._sizes, view._strides, view._offset),
                                   _bits_between(view, base), lazy=True)
    finally:
        grad_mode.STATE.enabled = prev
    return fresh._autograd_meta.grad_fn if fresh._autograd_meta is not None else None


def rebase_view(view, fn) -> None:
    """Note [Rebasing a view's history]: ``fn`` was just recorded for an in-place op on
    ``view``."""
    from .recording import mark_output
    base = view._base
    copy_slices = CopySlices(base, view, fn)
    mark_output(base, copy_slices, 0)
    meta = view._autograd_meta
    if meta is None:
        meta = view._autograd_meta = AutogradMeta(True)
    meta.grad_fn = _view_history(view, base)
    meta.requires_grad = True
    meta.output_nr = 0
    meta.view_version = view._vc[0]
    view._keyset |= _autograd_bit()


def _autograd_bit():
    from .recording import AUTOGRAD_BIT
    return AUTOGRAD_BIT


def refresh_view_grad_fn(view, meta):
    """A view's ``grad_fn``, regenerated if its base changed in place since it was made."""
    if meta.view_version is None or meta.view_version == view._vc[0]:
        return meta.grad_fn
    base = view._base
    bmeta = base._autograd_meta
    if bmeta is None or bmeta.grad_fn is None:
        meta.view_version = view._vc[0]
        return meta.grad_fn
    meta.grad_fn = _view_history(view, base)
    meta.output_nr = 0
    meta.view_version = view._vc[0]
    return meta.grad_fn
