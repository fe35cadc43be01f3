"""strided: PyTorch's tensor core rebuilt in Python.

    import strided as torch
    t = torch.tensor([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
    t.t().stride()          # (1, 3): a view, no data moved

Layers (data flows down only): frontend (Tensor, bindings, printing) ->
ops (schema registry, dispatcher) -> kernels (NumPy) -> core (dtypes, devices,
allocators, storages, tensor metadata).
"""

from __future__ import annotations

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
    sparse_coo,
    strided,
)
from .core.storage import UntypedStorage  # noqa: F401
from .ops.registry import register_native_functions as _register

_register()

from . import library, ops
from .frontend.printing import set_printoptions  # noqa: F401
from .frontend.tensor import Size, Tensor  # noqa: F401
from .frontend.tensor_new import as_tensor, asarray, from_numpy, tensor  # noqa: F401
from .ops._generated.torch_functions import *
from .ops.dispatcher import add_dispatch_hook  # noqa: F401
from .utils.dlpack import from_dlpack  # noqa: F401

globals().update(_ALIASES)
__version__ = "0.1.0"


def result_type(tensor1, tensor2) -> dtype:
    """The dtype ``tensor1 op tensor2`` computes in (tensors and Python scalars)."""
    from .core.promotion import result_type_of
    return result_type_of((tensor1, tensor2))


def is_tensor(obj) -> bool:
    return isinstance(obj, Tensor)


def is_floating_point(input) -> bool:
    return input.is_floating_point()


def is_complex(input) -> bool:
    return input.is_complex()


def numel(input) -> int:
    return input.numel()
