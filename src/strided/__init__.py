"""strided: PyTorch's tensor core rebuilt in Python.

    import strided as torch
    t = torch.tensor([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
    t.t().stride()          # (1, 3): a view, no data moved

Layers (data flows down only): frontend (Tensor, bindings, printing) ->
ops (schema registry, dispatcher) -> kernels (NumPy) -> core (dtypes, devices,
allocators, storages, tensor metadata).
"""

from __future__ import annotations

import builtins as _builtins

from .core.allocator import (  # noqa: F401
    empty_cache,
    max_memory_allocated,
    memory_allocated,
    memory_stats,
    reset_peak_memory_stats,
)
from .core.devices import device  # noqa: F401
from .core.dtypes import (
    ALIASES as _ALIASES,
)
from .core.dtypes import (  # noqa: F401
    bfloat16,
    can_cast,
    complex64,
    complex128,
    dtype,
    finfo,
    float16,
    float32,
    float64,
    get_default_dtype,
    iinfo,
    int8,
    int16,
    int32,
    int64,
    promote_types,
    set_default_dtype,
    uint8,
    uint16,
    uint32,
    uint64,
)
from .core.dtypes import (
    bool_ as bool,
)
from .core.layouts import (  # noqa: F401
    channels_last,
    channels_last_3d,
    contiguous_format,
    layout,
    memory_format,
    preserve_format,
    sparse_bsc,
    sparse_bsr,
    sparse_coo,
    sparse_csc,
    sparse_csr,
    strided,
)
from .core.storage import UntypedStorage  # noqa: F401
from .ops.registry import register_native_functions as _register

_register()

from . import library, ops
from .frontend.nonzero import nonzero  # noqa: F401
from .frontend.printing import set_printoptions  # noqa: F401
from .frontend.tensor import Size, Tensor  # noqa: F401
from .frontend.tensor_new import (  # noqa: F401
    as_tensor,
    asarray,
    from_file,
    from_numpy,
    frombuffer,
    tensor,
)
from .ops._generated.torch_functions import *
from .ops.dispatcher import add_dispatch_hook  # noqa: F401
from .utils.dlpack import from_dlpack  # noqa: F401
from .utils.explain import explain  # noqa: F401

globals().update(_ALIASES)

import math as _math

from . import (
    storage,  # noqa: F401
    testing,  # noqa: F401
)
from ._legacy import (  # noqa: F401
    LEGACY_TENSOR_CLASSES as _LEGACY_TENSOR_CLASSES,
)
from ._legacy import (  # noqa: F401
    is_nonzero,
    is_storage,
    range,
    set_default_tensor_type,
    typename,
)
from .storage import LEGACY_STORAGE_CLASSES as _LEGACY_STORAGE_CLASSES
from .storage import TypedStorage  # noqa: F401

globals().update(_LEGACY_TENSOR_CLASSES)
globals().update(_LEGACY_STORAGE_CLASSES)
e, pi, inf, nan, newaxis = _math.e, _math.pi, _math.inf, _math.nan, None
__version__ = "0.1.0"


def result_type(*args, **kwargs) -> dtype:
    """The dtype ``tensor op other`` computes in (tensors and Python or NumPy numbers).

    Parsed as torch's binding parses it, trying its four signatures in order:
    ``(Tensor tensor, Tensor other)``, ``(Number scalar, Tensor tensor)``,
    ``(Tensor tensor, Number other)``, ``(Number scalar1, Number scalar2)``.
    """
    import builtins

    import numpy as np

    from .core.promotion import result_type_of
    from .frontend import arg_parser as ap

    def number(x):
        if isinstance(x, (builtins.int, builtins.float, builtins.complex)):
            return x
        if isinstance(x, (np.number, np.bool_)):
            return x.item()
        raise ap.Mismatch

    def tensor_tensor(tensor, other):  # noqa: F811 - torch's keyword names
        return ap.to_tensor(tensor), ap.to_tensor(other)

    def scalar_tensor(scalar, tensor):  # noqa: F811
        return number(scalar), ap.to_tensor(tensor)

    def tensor_scalar(tensor, other):  # noqa: F811
        return ap.to_tensor(tensor), number(other)

    def scalar_scalar(scalar1, scalar2):
        return number(scalar1), number(scalar2)

    forms = ((tensor_tensor, (("tensor", "Tensor"), ("other", "Tensor"))),
             (scalar_tensor, (("scalar", "Scalar"), ("tensor", "Tensor"))),
             (tensor_scalar, (("tensor", "Tensor"), ("other", "Scalar"))),
             (scalar_scalar, (("scalar1", "Scalar"), ("scalar2", "Scalar"))))
    for form, _ in forms:
        try:
            operands = form(*args, **kwargs)
        except ap.PARSE_ERRORS:
            continue
        return result_type_of(operands)
    ap.raise_invalid_arguments(tuple(
        ap.PySig("result_type", tuple((name, typ, None, False) for name, typ in params))
        for _, params in forms), args, kwargs)


def is_tensor(obj) -> bool:
    return isinstance(obj, Tensor)


def is_floating_point(input) -> bool:
    return input.is_floating_point()


def is_complex(input) -> bool:
    return input.is_complex()


def is_inference(input) -> bool:
    if not isinstance(input, Tensor):
        raise TypeError(f"is_inference(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    return input.is_inference()


def numel(input) -> int:
    return input.numel()


def broadcast_tensors(*tensors):
    """``torch.broadcast_tensors(a, b, ...)``: the tensors expanded to their common shape
    (torch's Python wrapper takes them as varargs; the op itself takes a list)."""
    from .ops._generated import torch_functions
    if not tensors:
        return ()
    return torch_functions.broadcast_tensors(tensors)


def broadcast_shapes(*shapes) -> Size:
    """The shape ``broadcast_tensors`` would give tensors of these shapes, without making
    any: ints stand for 1-d shapes, ``None`` is skipped, shapes are matched from the right.

        broadcast_shapes((2,), (3, 1), (1, 1, 1))   # torch.Size([1, 3, 2])
    """
    import builtins
    from collections.abc import Sequence
    int_ = builtins.int   # ``strided.int`` is the dtype
    shapes = tuple((s,) if isinstance(s, int_) else s for s in shapes if s is not None)
    if not shapes:
        return Size(())
    for shape in shapes:
        if not isinstance(shape, Sequence):
            raise RuntimeError("Input shapes should be of type ints, a tuple of ints, or a list "
                               f"of ints, got {shape}")
    common = [1] * _builtins.max(len(s) for s in shapes)
    for arg, shape in enumerate(shapes):
        for idx in _builtins.range(-1, -1 - len(shape), -1):
            size = shape[idx]
            if size == common[idx]:
                continue
            if common[idx] == 1:
                if size < 0:
                    raise ValueError("Attempting to broadcast a dimension with negative length!")
                common[idx] = size
            if size != 1 and common[idx] != size:
                raise RuntimeError(
                    f"Attempting to broadcast a dimension of length {size} at {idx}! Mismatching "
                    f"argument at index {arg} had {shape}; but expected shape should be "
                    f"broadcastable to {common}")
    for i, s in enumerate(common):
        if not isinstance(s, int_):
            raise TypeError(f"torch.Size() takes an iterable of 'int' (item {i} is "
                            f"'{type(s).__name__}')")
    return Size(common)


# -- linear algebra and the copying shape ops (issue 4) ----------------------------------------
# -- random numbers (issue 4) -------------------------------------------------------------------
from . import (  # noqa: E402
    func,  # noqa: E402, F401  (torch.func.functional_call)
    linalg,
    masked,
    nn,
    random,  # noqa: E402
    return_types,
)
from ._lowrank import pca_lowrank, svd_lowrank  # noqa: E402  (issue 14: torch._lowrank)
from .core.generator import Generator, default_generator  # noqa: E402
from .frontend.functional import (  # noqa: E402
    block_diag,
    cartesian_prod,
    einsum,
    meshgrid,
    norm,
    tensordot,
    unique,
    unique_consecutive,
)
from .frontend.functional_linalg_extra import (  # noqa: E402  (issue 14: linalg's Python forms)
    cdist,
    chain_matmul,
    lu,
)
from .frontend.shape_extra import (  # noqa: E402  (issue 14: torch/functional.py's varargs forms)
    atleast_1d,
    atleast_2d,
    atleast_3d,
    unravel_index,
)
from .random import (  # noqa: E402
    get_rng_state,
    initial_seed,
    manual_seed,
    seed,
    set_rng_state,
)

# unique_dim is bound (torch.unique calls it) but, as in torch (PRIVATE_OPS), not public
del unique_dim  # noqa: F821
# torch has no Python binding for segment_reduce's backward op (torch.ops.aten only)
del _segment_reduce_backward  # noqa: F821

# -- autograd (issue 5) -------------------------------------------------------------------------
from . import autograd  # noqa: E402
from .autograd._generated.nodes import FORMULAS as _FORMULAS  # noqa: E402
from .autograd.anomaly_mode import is_anomaly_check_nan_enabled, is_anomaly_enabled  # noqa: E402
from .autograd.grad_mode import (  # noqa: E402
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from .autograd.recording import install as _install_autograd  # noqa: E402
from .autograd.recording import install_fallback as _install_autograd_fallback  # noqa: E402

_install_autograd_fallback()
_install_autograd(_FORMULAS)
del _FORMULAS, _install_autograd, _install_autograd_fallback
# the Conjugate / Negative keys' fallback and fallthroughs (issue 15)
from .kernels.math_bits import install as _install_math_bits  # noqa: E402

_install_math_bits()
del _install_math_bits
# -- namespaces: cuda, backends, accelerator, amp, compile, fft, signal, special -------------
# torch.sparse and the sparse constructors (issue 16)
from . import (  # noqa: E402, F401
    accelerator,
    amp,
    backends,
    compiler,
    cpu,
    cuda,
    fft,
    optim,  # noqa: E402  (issue 11: torch.optim)
    serialization,  # noqa: E402  (issue 11: torch's checkpoint format)
    signal,
    sparse,  # noqa: E402, F401
    special,
    version,
    viz,  # noqa: E402  (issue 6: strided.viz.storage_map)
    xpu,
)
from ._compile import compile  # noqa: E402, F401
from .amp.autocast_mode import (  # noqa: E402, F401
    autocast,
    autocast_decrement_nesting,
    autocast_increment_nesting,
    clear_autocast_cache,
    get_autocast_cpu_dtype,
    get_autocast_dtype,
    get_autocast_gpu_dtype,
    is_autocast_cache_enabled,
    is_autocast_cpu_enabled,
    is_autocast_enabled,
    set_autocast_cache_enabled,
    set_autocast_cpu_dtype,
    set_autocast_cpu_enabled,
    set_autocast_dtype,
    set_autocast_enabled,
)
from .serialization import load, save  # noqa: E402, F401
from .sparse._construct import sparse_coo_tensor  # noqa: E402, F401
from .sparse._construct_compressed import (  # noqa: E402, F401
    sparse_bsc_tensor,
    sparse_bsr_tensor,
    sparse_compressed_tensor,
    sparse_csc_tensor,
    sparse_csr_tensor,
)
from .utils.env import (  # noqa: E402, F401
    are_deterministic_algorithms_enabled,
    get_default_device,
    get_deterministic_debug_mode,
    get_float32_matmul_precision,
    get_num_interop_threads,
    get_num_threads,
    is_deterministic_algorithms_warn_only_enabled,
    set_default_device,
    set_deterministic_debug_mode,
    set_float32_matmul_precision,
    set_num_interop_threads,
    set_num_threads,
    use_deterministic_algorithms,
)
