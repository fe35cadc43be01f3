"""TensorIterator: the shared set-up of every elementwise (and reduction) kernel.

Given outputs (``None`` for "allocate one") and inputs (tensors, or Python numbers
standing for torch's *wrapped numbers*), ``TensorIteratorConfig(...).build()`` does,
once per call and in torch's order (so that the first error is torch's first error):

1. mark outputs that are also inputs (``is_read_write``: in-place ops);
2. memory-overlap checks: no output may have two elements at one address (an
   expanded tensor), and no input may partially overlap an output;
3. the broadcast shape of the inputs (torch's ``infer_size`` error text);
4. which ``out=`` tensors get resized (only write-only outputs may be);
5. the common dtype (``result_type`` over the inputs, Note [Wrapped numbers]), the
   integer-to-float promotion, the safe-cast check of outputs and the device check;
6. the output layout (Note [Output strides]), allocation or resize of the outputs;
7. dimension coalescing (Note [Coalescing]).

A kernel then asks for ``arrays()``: one NumPy view per operand over the coalesced
iteration shape (outputs first), and runs one vectorised NumPy call over them.

Note [Wrapped numbers]
~~~~~~~~~~~~~~~~~~~~~~
torch turns a Python number passed where an op takes a Tensor (``t + 2``,
``torch.add(t, 2.5)``) into a 0-dim CPU tensor flagged as a *wrapped number*: it
ranks below 0-dim tensors in type promotion and a float one counts as the default
dtype (``int32 tensor + 2.5`` is float32). strided skips the 0-dim tensor: the number
itself travels through the dispatcher to the kernel (so ``t + 1.5`` allocates
nothing for the scalar), and this module treats any operand that is not a tensor as
a wrapped number. Kernels registered by users for such ops can see Python numbers
in Tensor arguments.

Note [Output strides]
~~~~~~~~~~~~~~~~~~~~~
An output that the iterator allocates follows the layout of the inputs, as torch's
does: ``x.t() + 1`` is transposed like ``x.t()``. Two routes, as in torch:

- *fast set-up*: when all operands have one shape and are all contiguous, the
  output is contiguous; else when all are channels-last contiguous (4-d), it is
  channels-last; else when all are non-overlapping and dense with the same strides,
  the output takes those strides;
- otherwise the dims are sorted by the operands' strides (``_reorder``): an
  insertion sort, starting from row-major order, that moves a dim inwards past
  another when the first operand with a strict opinion (neither stride zero)
  has a smaller stride for it, ties broken by size. The output is then laid out
  densely in that order.

Note [Coalescing]
~~~~~~~~~~~~~~~~~
In the sorted order (innermost dim first), two neighbouring dims merge when, for
every operand, stepping over the whole inner dim is one step of the outer
(``shape[i] * stride[i] == stride[i+1]``) or either dim has size 1. A contiguous
(3, 4) + (3, 4) becomes one dim of 12; ``torch/_tensor_iterator.py`` shows torch's
result for the same operands, and the tests compare the two.
"""

from __future__ import annotations

import numpy as np

from ..core import dtypes as dt
from ..core.checks import check
from ..core.devices import CPU
from ..core.promotion import result_type_of
from ..core.storage import SHRUNK
from ..core.tensor_impl import (
    TensorImpl,
    check_storage_bounds,
    compute_is_contiguous,
    contiguous_strides,
    numel_of,
)
from .broadcast import broadcast_pair
from .factory import empty, new_strided
from .memory_overlap import (
    assert_no_internal_overlap,
    assert_no_partial_overlap,
    is_non_overlapping_and_dense,
)
from .resize import resize_output

__all__ = [
    "TensorIterator",
    "TensorIteratorConfig",
    "binary_float_op",
    "binary_op",
    "comparison_op",
    "nullary_op",
    "unary_float_op",
    "unary_op",
    "wrapped_dtype",
]


def wrapped_dtype(value) -> dt.dtype:
    """The dtype of the 0-dim tensor torch wraps a Python number in (bool, int64, float64,
    complex128); promotion then ranks it as a wrapped number (Note [Wrapped numbers])."""
    tv = type(value)
    if tv is float:
        return dt.float64
    if tv is int:
        return dt.int64
    if tv is bool:
        return dt.bool_
    if tv is complex:
        return dt.complex128
    if isinstance(value, (bool, np.bool_)):
        return dt.bool_
    if isinstance(value, (int, np.integer)):
        return dt.int64
    if isinstance(value, (float, np.floating)):
        return dt.float64
    return dt.complex128


class _Operand:
    __slots__ = ("tensor", "value", "sizes", "strides", "dtype", "target_dtype", "is_output",
                 "will_resize", "is_read_write", "device")

    def __init__(self, item, is_output: bool):
        self.is_output = is_output
        self.will_resize = False
        self.is_read_write = False
        if item is None:
            self.tensor = None
            self.value = None
            self.sizes = None
            self.strides = None
            self.dtype = None
            self.device = None
        elif isinstance(item, TensorImpl):
            self.tensor = item
            self.value = None
            self.sizes = item._sizes
            self.strides = item._strides
            self.dtype = item._dtype
            self.device = item._device
        else:
            self.tensor = None
            self.value = item
            self.sizes = ()
            self.strides = ()
            self.dtype = wrapped_dtype(item)
            self.device = CPU
        self.target_dtype = self.dtype

    @property
    def defined(self) -> bool:
        return self.dtype is not None

    @property
    def is_wrapped(self) -> bool:
        return self.tensor is None and self.dtype is not None



# Note [Set-up plans]
# ~~~~~~~~~~~~~~~~~~~
# What the set-up decides (broadcast shape, common dtype, device, permutation, coalesced
# loop, each new output's strides and dtype) is a function of the configuration, the
# default dtype and, per operand, its sizes, strides, dtype and device (a wrapped number:
# its Python type), plus which input an output is (in-place ops). The first call with such
# a signature records these decisions; later calls with the same signature replay them:
# they still run, in torch's order, what looks at storages and identities (the overlap
# checks of the outputs passed in), allocate the new outputs through the same
# ``_set_output``, and skip the passes over the dims. Not recorded: a call that raises
# (errors are raised afresh every time), one that resizes an ``out=`` tensor (its resize
# and warning run every time) and one with a declared static shape.

_PLANS: dict = {}
_PLANS_MAX = 1024


def _signature(config):
    """The plan key of a call (Note [Set-up plans]), or None when it has none."""
    if config.static_shape is not None:
        return None
    key = [config.check_all_same_dtype, config.check_all_same_device,
           config.promote_inputs_to_common_dtype, config.promote_integer_inputs_to_float,
           config.cast_common_dtype_to_outputs, config.enforce_safe_casting_to_output,
           config.enforce_linear_iteration, config.resize_outputs, config.check_mem_overlap,
           config.allow_cpu_scalars, config.is_reduction, config.static_dtype,
           len(config.outputs), dt._default_dtype[0]]
    inputs = config.inputs
    for x in inputs:
        if isinstance(x, TensorImpl):
            key.append((x._sizes, x._strides, x._dtype, x._device))
        else:
            key.append(type(x))
    for t in config.outputs:
        if t is None:
            key.append(None)
            continue
        if not isinstance(t, TensorImpl):
            return None
        alias = -1     # which input the output is (in-place ops: read-write outputs)
        for k, x in enumerate(inputs):
            if x is t:
                alias = k
                break
        key.append((t._sizes, t._strides, t._dtype, t._device, alias))
    return tuple(key)


def sort_dims(shape, strides, reduction_outputs=()) -> list:
    """The dims of ``shape``, innermost first, as TensorIterator orders them (Note [Output
    strides]): an insertion sort where the first operand whose strides differ decides
    (operands' ``strides`` are aligned to ``shape``, 0 where broadcast; None skips one;
    a broadcast dim leaves the decision to the next operand; equal strides put the
    smaller dim inside). For a reduction output (``reduction_outputs`` holds its
    index), a reduced dim (stride 0) goes inside first."""
    ndim = len(shape)
    perm = list(range(ndim - 1, -1, -1))     # perm[0] is the innermost dimension

    def should_swap(d0, d1):
        for k, st in enumerate(strides):
            if st is None:
                continue
            s0, s1 = st[d0], st[d1]
            if k in reduction_outputs and (s0 == 0) != (s1 == 0):
                return 1 if s1 == 0 else -1
            if s0 == 0 or s1 == 0:
                continue
            if s0 < s1:
                return -1
            if s0 > s1:
                return 1
            if shape[d0] > shape[d1]:
                return 1
        return 0

    for i in range(1, ndim):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            c = should_swap(perm[d0], perm[d1])
            if c > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif c < 0:
                break
    return perm


class TensorIteratorConfig:
    """The knobs of torch's ``TensorIteratorConfig``, set by keyword or by the fluent
    setters (``TensorIteratorConfig().add_output(None).add_input(a)...``)."""

    __slots__ = ("outputs", "inputs", "check_all_same_dtype", "check_all_same_device",
                 "promote_inputs_to_common_dtype", "promote_integer_inputs_to_float",
                 "cast_common_dtype_to_outputs", "enforce_safe_casting_to_output",
                 "enforce_linear_iteration", "resize_outputs", "check_mem_overlap",
                 "allow_cpu_scalars", "is_reduction", "static_dtype", "static_shape")

    def __init__(self, *, outputs=(), inputs=(), check_all_same_dtype=True,
                 check_all_same_device=True, promote_inputs_to_common_dtype=False,
                 promote_integer_inputs_to_float=False, cast_common_dtype_to_outputs=False,
                 enforce_safe_casting_to_output=False, enforce_linear_iteration=False,
                 resize_outputs=True, check_mem_overlap=True, allow_cpu_scalars=False,
                 is_reduction=False, static_dtype=None, static_shape=None):
        self.outputs = list(outputs)
        self.inputs = list(inputs)
        self.check_all_same_dtype = check_all_same_dtype and not promote_inputs_to_common_dtype
        self.check_all_same_device = check_all_same_device
        self.promote_inputs_to_common_dtype = promote_inputs_to_common_dtype
        self.promote_integer_inputs_to_float = promote_integer_inputs_to_float
        self.cast_common_dtype_to_outputs = cast_common_dtype_to_outputs
        self.enforce_safe_casting_to_output = enforce_safe_casting_to_output
        self.enforce_linear_iteration = enforce_linear_iteration
        self.resize_outputs = resize_outputs
        self.check_mem_overlap = check_mem_overlap
        self.allow_cpu_scalars = allow_cpu_scalars
        self.is_reduction = is_reduction
        self.static_dtype = static_dtype
        if static_dtype is not None:
            self.check_all_same_dtype = False
        self.static_shape = None if static_shape is None else tuple(static_shape)

    # fluent setters, named as torch's
    def add_output(self, t=None):
        self.outputs.append(t)
        return self

    def add_input(self, t):
        self.inputs.append(t)
        return self

    add_const_input = add_input

    def set_check_mem_overlap(self, value: bool):
        self.check_mem_overlap = value
        return self

    def set_promote_inputs_to_common_dtype(self, value: bool):
        self.promote_inputs_to_common_dtype = value
        if value:
            self.check_all_same_dtype = False
        return self

    def set_promote_integer_inputs_to_float(self, value: bool):
        self.promote_integer_inputs_to_float = value
        return self

    def set_cast_common_dtype_to_outputs(self, value: bool):
        self.cast_common_dtype_to_outputs = value
        if value:
            self.check_all_same_dtype = False
        return self

    def set_enforce_safe_casting_to_output(self, value: bool):
        self.enforce_safe_casting_to_output = value
        return self

    def set_check_all_same_dtype(self, value: bool):
        self.check_all_same_dtype = value
        return self

    def set_resize_outputs(self, value: bool):
        self.resize_outputs = value
        return self

    def set_allow_cpu_scalars(self, value: bool):
        self.allow_cpu_scalars = value
        return self

    def set_is_reduction(self, value: bool):
        self.is_reduction = value
        return self

    def declare_static_dtype(self, dtype):
        self.static_dtype = dtype
        self.check_all_same_dtype = False
        return self

    def declare_static_shape(self, shape):
        self.static_shape = tuple(shape)
        return self

    def build(self) -> TensorIterator:
        return TensorIterator(self)


class TensorIterator:
    """A built iterator (see the module docstring). After ``build``:

    - ``shape``: the broadcast shape (in the tensors' own dim order);
    - ``common_dtype``; ``output(i)``, ``input(i)``, ``dtype(i)``;
    - ``iter_shape`` / ``strides(i)`` / ``element_strides(i)``: the coalesced iteration
      space, innermost dim first, as torch's ``_tensor_iterator`` reports it.
    """

    __slots__ = ("operands", "noutputs", "shape", "common_dtype", "device", "perm",
                 "iter_shape", "iter_strides", "is_reduction", "all_same_shape",
                 "fast_setup", "_config", "_np_layout")

    def __init__(self, config: TensorIteratorConfig):
        self._config = config
        self.is_reduction = config.is_reduction
        self._np_layout = None
        key = _signature(config)
        if key is not None:
            plan = _PLANS.get(key)
            if plan is not None:
                self._replay(config, plan)
                return
        ops = [_Operand(t, True) for t in config.outputs]
        ops += [_Operand(t, False) for t in config.inputs]
        self.operands = ops
        self.noutputs = len(config.outputs)
        self.common_dtype = None
        self.device = None
        self.perm = None
        self.fast_setup = False
        self._mark_outputs()
        if config.check_mem_overlap:
            self._check_mem_overlaps()
        self._compute_shape()
        self._mark_resize_outputs()
        self._compute_types()
        if key is not None:
            for op in ops[:self.noutputs]:
                if op.will_resize:   # out= resizing (and its warning) is never replayed
                    key = None
                    break
        if not self._fast_set_up():
            self._compute_strides()
            self._reorder()
            self._allocate_or_resize_outputs()
            self._coalesce()
        if key is not None:
            if len(_PLANS) >= _PLANS_MAX:
                _PLANS.clear()
            _PLANS[key] = (
                self.shape, self.all_same_shape, self.common_dtype, self.device,
                self.fast_setup, tuple(self.perm), tuple(self.iter_shape),
                tuple(None if st is None else tuple(st) for st in self.iter_strides),
                tuple((op.tensor._strides, op.dtype, op.device, t is not None)
                      for op, t in zip(ops, config.outputs)),
                self._layout())

    def _replay(self, config, plan):
        """Note [Set-up plans]: the set-up a previous call with this signature computed."""
        (self.shape, self.all_same_shape, self.common_dtype, self.device, self.fast_setup,
         perm, iter_shape, iter_strides, outs, self._np_layout) = plan
        ops = [_Operand(t, True) for t in config.outputs]
        ops += [_Operand(t, False) for t in config.inputs]
        self.operands = ops
        self.noutputs = len(outs)
        if any(o[3] for o in outs):   # an out= or in-place output: its checks run every time
            self._mark_outputs()
            if config.check_mem_overlap:
                self._check_mem_overlaps()
        shape = self.shape
        for op, (strides, dtype, device, given) in zip(ops, outs):
            if not given:
                op.target_dtype = dtype
                op.device = device
                self._set_output(op, shape, strides)
        self.perm = list(perm)
        self.iter_shape = list(iter_shape)
        self.iter_strides = [None if st is None else list(st) for st in iter_strides]

    # -- build steps -------------------------------------------------------------------

    def _mark_outputs(self):
        n = self.noutputs
        for out in self.operands[:n]:
            t = out.tensor
            if t is None:
                continue
            for op in self.operands[n:]:
                if op.tensor is t:
                    out.is_read_write = True

    def _check_mem_overlaps(self):
        n = self.noutputs
        for out in self.operands[:n]:
            t = out.tensor
            if t is None:
                continue
            assert_no_internal_overlap(t)
            for op in self.operands[n:]:
                if op.tensor is not None and op.tensor is not t:
                    assert_no_partial_overlap(t, op.tensor)

    def _compute_shape(self):
        config = self._config
        if config.static_shape is not None:
            self.shape = config.static_shape
            self.all_same_shape = True
            return
        shape = None
        same = True
        has_scalars = has_tensors = False
        for op in self.operands:
            if not op.defined or (config.resize_outputs and op.is_output):
                continue
            sizes = op.sizes
            if sizes:
                has_tensors = True
            else:
                has_scalars = True
            if has_scalars and has_tensors:
                same = False
            if shape is None:
                shape = sizes
            elif sizes != shape:
                same = False
                shape = broadcast_pair(shape, sizes)
        self.shape = () if shape is None else shape
        self.all_same_shape = same

    def _mark_resize_outputs(self):
        config = self._config
        if config.static_shape is not None:
            return
        for op in self.operands[:self.noutputs]:
            if not op.defined or op.sizes == self.shape:
                continue
            if config.resize_outputs and not op.is_read_write:
                op.will_resize = True
                continue
            check(self.is_reduction, lambda op=op: (
                f"output with shape {list(op.sizes)} doesn't match the broadcast shape "
                f"{list(self.shape)}"))

    def _compute_types(self):
        config = self._config
        n = self.noutputs
        common_device = None
        for op in self.operands:
            if op.defined and not op.is_wrapped and op.device is not None:
                if not (config.allow_cpu_scalars and not op.is_output and not op.sizes
                        and op.device is CPU):
                    common_device = op.device
                    break
        if common_device is None:
            common_device = CPU
        self.device = common_device
        common = None
        different = False
        for op in self.operands[n:]:
            if common is None:
                common = op.dtype
            elif op.dtype is not common:
                different = True
        all_scalars = all(not op.sizes for op in self.operands[n:]) if n < len(
            self.operands) else False
        if config.promote_inputs_to_common_dtype and (different or all_scalars):
            common = result_type_of([op.tensor if op.tensor is not None else op.value
                                     for op in self.operands[n:]])
        if config.promote_integer_inputs_to_float and common is not None and \
                common.category <= dt.INT:
            common = dt._default_dtype[0]
        self.common_dtype = common
        static = config.static_dtype
        for op in self.operands:
            if config.check_all_same_device and op.tensor is not None and \
                    op.device is not common_device:
                is_cpu_scalar = (config.allow_cpu_scalars and not op.is_output and not op.sizes
                                 and op.device is CPU)
                check(is_cpu_scalar, lambda op=op: (
                    f"Tensor on device {op.device} is not on the expected device "
                    f"{common_device}!"))
            if op.is_output:
                if not op.defined:
                    op.target_dtype = static if static is not None else common
                    op.device = common_device
                    continue
                if config.cast_common_dtype_to_outputs and common is not None and \
                        config.enforce_safe_casting_to_output:
                    check(common.category <= op.dtype.category, lambda op=op: (
                        f"result type {common._scalar_name} can't be cast to the desired "
                        f"output type {op.dtype._scalar_name}"))
                if static is not None and op.dtype is not static and \
                        not config.cast_common_dtype_to_outputs:
                    check(False, lambda op=op: (
                        f"Expected out tensor to have dtype {static._scalar_name}, but got "
                        f"{op.dtype._scalar_name} instead"))
            if config.check_all_same_dtype and common is not None and op.defined and \
                    op.dtype is not common:
                check(False, lambda op=op: (
                    f"Found dtype {op.dtype._scalar_name} but expected {common._scalar_name}"))

    def _fast_set_up(self) -> bool:
        if self.is_reduction or not self.all_same_shape:
            return False
        ops = self.operands
        contiguous = True
        dense_same = True
        last = None
        for op in reversed(ops):
            if op.defined:
                last = op
                break
        for op in ops:
            if op.defined and not op.will_resize:
                if op.is_wrapped:
                    continue
                if contiguous and not compute_is_contiguous(op.sizes, op.strides):
                    contiguous = False
                if dense_same and (not is_non_overlapping_and_dense(op.sizes, op.strides)
                                   or op.strides != last.strides):
                    dense_same = False
        channels_last = not contiguous and len(self.shape) == 4 and all(
            _is_channels_last_contiguous(op.sizes, op.strides) for op in ops
            if op.defined and not op.will_resize and not op.is_wrapped)
        if not contiguous and not channels_last and not dense_same:
            return False
        shape = self.shape
        for op in ops[:self.noutputs]:
            if not op.defined or op.will_resize:
                if contiguous:
                    strides = None
                elif channels_last:
                    strides = _channels_last_strides(shape)
                else:
                    strides = last.strides
                self._set_output(op, shape, strides)
        self.fast_setup = True
        self.perm = list(range(len(shape) - 1, -1, -1))
        if shape:
            self.iter_shape = [numel_of(shape)]
            self.iter_strides = [[0 if op.is_wrapped or not op.sizes else 1] for op in ops]
        else:
            self.iter_shape = []
            self.iter_strides = [[] for _ in ops]
        return True

    def _compute_strides(self):
        shape = self.shape
        ndim = len(shape)
        strides = []
        for op in self.operands:
            if not op.defined or op.will_resize:
                strides.append(None)
                continue
            sizes = op.sizes
            offset = ndim - len(sizes)
            st = [0] * ndim
            for i, size in enumerate(sizes):
                st[offset + i] = 0 if (size == 1 and shape[offset + i] != 1) else op.strides[i]
            strides.append(st)
        self.iter_strides = strides

    def _reorder(self):
        """Dims sorted innermost first (Note [Output strides]); ``perm[i]`` is the tensor
        dim at iteration position ``i``."""
        ndim = len(self.shape)
        perm = list(range(ndim - 1, -1, -1))
        self.perm = perm
        if ndim <= 1 or self._config.enforce_linear_iteration:
            self._apply_perm()
            return
        ops = self.operands
        reduction_outputs = {k for k, op in enumerate(ops) if self.is_reduction and op.is_output}
        self.perm = sort_dims(self.shape, self.iter_strides, reduction_outputs)
        self._apply_perm()

    def _apply_perm(self):
        perm = self.perm
        self.iter_shape = [self.shape[d] for d in perm]
        self.iter_strides = [None if st is None else [st[d] for d in perm]
                             for st in self.iter_strides]

    def _allocate_or_resize_outputs(self):
        perm = self.perm
        ndim = len(perm)
        inverted = all(perm[j] == ndim - 1 - j for j in range(ndim))
        for k, op in enumerate(self.operands[:self.noutputs]):
            if op.defined and not op.will_resize:
                continue
            if inverted:
                strides = None
            else:
                # dense strides in iteration order, then back to the tensor's dim order
                iter_st = []
                nxt = 1
                for size in self.iter_shape:
                    iter_st.append(nxt)
                    nxt *= size
                strides = [0] * ndim
                for j, d in enumerate(perm):
                    strides[d] = iter_st[j]
                strides = tuple(strides)
            self._set_output(op, self.shape, strides)
            t = op.tensor
            self.iter_strides[k] = [t._strides[d] for d in perm]

    def _set_output(self, op, shape, strides):
        """Allocate an output, or resize (and restride) a write-only ``out=`` tensor."""
        if op.defined:   # will_resize: torch's resize_output, then as_strided_ on resize
            t = op.tensor
            if resize_output(t, shape) and strides is not None:
                t._strides = tuple(strides)
                t._np = None
            op.sizes, op.strides = t._sizes, t._strides
            op.will_resize = False
            return
        dtype = op.target_dtype
        if strides is None or strides == contiguous_strides(shape):
            t = empty(shape, dtype, None, op.device)
        else:
            t = new_strided(shape, tuple(strides), dtype, op.device)
        op.tensor = t
        op.sizes, op.strides, op.dtype = t._sizes, t._strides, dtype

    def _coalesce(self):
        shape = self.iter_shape
        strides = self.iter_strides
        ndim = len(shape)
        if ndim <= 1:
            return
        prev = 0
        for dim in range(1, ndim):
            s0, s1 = shape[prev], shape[dim]
            ok = s0 == 1 or s1 == 1 or all(st[prev] * s0 == st[dim] for st in strides)
            if ok:
                if s0 == 1:
                    for st in strides:
                        st[prev] = st[dim]
                shape[prev] *= s1
            else:
                prev += 1
                if prev != dim:
                    for st in strides:
                        st[prev] = st[dim]
                    shape[prev] = shape[dim]
        del shape[prev + 1:]
        for st in strides:
            del st[prev + 1:]

    # -- what kernels and tests read -----------------------------------------------------

    @property
    def ndim(self) -> int:
        return len(self.iter_shape)

    @property
    def numel(self) -> int:
        return numel_of(self.shape)

    @property
    def ntensors(self) -> int:
        return len(self.operands)

    @property
    def ninputs(self) -> int:
        return len(self.operands) - self.noutputs

    @property
    def is_meta(self) -> bool:
        return self.device.type == "meta"

    def tensor(self, i: int):
        op = self.operands[i]
        return op.tensor if op.tensor is not None else op.value

    def output(self, i: int = 0):
        return self.operands[i].tensor

    def input(self, i: int = 0):
        return self.tensor(self.noutputs + i)

    def dtype(self, i: int = 0):
        op = self.operands[i]
        return op.dtype if op.tensor is not None or op.is_wrapped else op.target_dtype

    def element_strides(self, i: int) -> tuple:
        return tuple(self.iter_strides[i])

    def strides(self, i: int) -> tuple:
        size = self.dtype(i).itemsize
        return tuple(s * size for s in self.iter_strides[i])

    def is_cpu_scalar(self, i: int) -> bool:
        op = self.operands[i]
        return op.is_wrapped or (op.tensor is not None and not op.sizes and op.device is CPU)

    def _layout(self):
        """The NumPy shape (outermost first) and each operand's byte strides (None for a
        wrapped number or an undefined operand) of ``arrays()``."""
        shape = tuple(reversed(self.iter_shape))
        strides = []
        for op, st in zip(self.operands, self.iter_strides):
            t = op.tensor
            if t is None or st is None:
                strides.append(None)
                continue
            itemsize = t._dtype.itemsize
            strides.append(tuple(s * itemsize for s in reversed(st)))
        return shape, tuple(strides)

    def arrays(self) -> list:
        """One NumPy view per operand (outputs first) over the coalesced iteration shape,
        outermost dim first; wrapped numbers come back as the Python number."""
        out = []
        layout = self._np_layout
        if layout is None:
            layout = self._layout()
        shape, all_strides = layout
        shrunk = SHRUNK[0]
        for op, strides in zip(self.operands, all_strides):
            t = op.tensor
            if t is None:
                out.append(op.value)
                continue
            if shrunk:
                check_storage_bounds(t)   # NumPy does not check a zero-length buffer
            try:
                out.append(np.ndarray(shape, t._dtype.np, buffer=t._storage._buf,
                                      offset=t._offset * t._dtype.itemsize,
                                      strides=strides))
            except (TypeError, ValueError):
                check_storage_bounds(t)   # a storage shrunk under t (Note [Shrunk storages])
                raise
        return out

    def bump_versions(self) -> None:
        """Count a write to every output the caller passed in (``out=``, in-place self)."""
        for t in self._config.outputs:
            if t is not None:
                t._vc[0] += 1


def _is_channels_last_contiguous(sizes, strides) -> bool:
    """Dense in N, H, W, C order (C innermost), size-1 dims ignored (torch's rule)."""
    expected = 1
    for d in (1, 3, 2, 0):
        if sizes[d] != 1:
            if strides[d] != expected:
                return False
            expected *= sizes[d]
    return True


def _channels_last_strides(sizes) -> tuple:
    n, c, h, w = sizes
    return (h * w * c, 1, w * c, c)


# -- torch's named configurations (TensorIterator::binary_op and friends) -----------------

def binary_op(out, a, b) -> TensorIterator:
    return TensorIteratorConfig(
        outputs=[out], inputs=[a, b], allow_cpu_scalars=True,
        promote_inputs_to_common_dtype=True, cast_common_dtype_to_outputs=True,
        enforce_safe_casting_to_output=True).build()


def binary_float_op(out, a, b) -> TensorIterator:
    return TensorIteratorConfig(
        outputs=[out], inputs=[a, b], allow_cpu_scalars=True,
        promote_inputs_to_common_dtype=True, cast_common_dtype_to_outputs=True,
        enforce_safe_casting_to_output=True, promote_integer_inputs_to_float=True).build()


def comparison_op(out, a, b) -> TensorIterator:
    return TensorIteratorConfig(
        outputs=[out], inputs=[a, b], allow_cpu_scalars=True,
        promote_inputs_to_common_dtype=True,
        cast_common_dtype_to_outputs=out is not None and out._dtype is not dt.bool_,
        static_dtype=dt.bool_ if out is None else None).build()


def unary_op(out, a) -> TensorIterator:
    return TensorIteratorConfig(outputs=[out], inputs=[a]).build()


def unary_float_op(out, a) -> TensorIterator:
    return TensorIteratorConfig(
        outputs=[out], inputs=[a], promote_inputs_to_common_dtype=True,
        cast_common_dtype_to_outputs=True, enforce_safe_casting_to_output=True,
        promote_integer_inputs_to_float=True).build()


def nullary_op(out) -> TensorIterator:
    return TensorIteratorConfig(outputs=[out], check_all_same_dtype=False,
                                resize_outputs=False).build()
