"""Autocast: mixed precision regions, as a dispatch key (torch's ``AutocastCPU``).

    with strided.autocast("cpu"):                 # bfloat16 by default on the CPU
        y = model(x)                              # linear/conv/mm... run in bfloat16

Note [Autocast as a dispatch key]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Each operator on torch's CPU autocast lists gets a kernel for ``DispatchKey.AutocastCPU``
(above ``Autograd``, so the casts it makes are recorded in the graph); every other operator
passes through that key (its fallback is FALLTHROUGH, so the key is out of its mask). No
tensor carries the key: while some thread has CPU autocast on, ``OperatorHandle.call`` is
swapped for a version that adds the key when the calling thread's state asks for it (torch's
thread-local "included" set). With autocast off everywhere, the plain ``call`` runs, so an
ordinary program pays nothing (the dispatch hooks of ``strided.explain`` use the same trick,
Note [Hooks cost nothing when off]).

An autocast kernel casts the arguments its policy names, then calls the operator again below
its key with the key excluded for everything it runs (torch's ``ExcludeDispatchKeyGuard``),
so the ops inside a composite such as ``linear`` are not cast a second time.

The policies, as in torch's ``aten/src/ATen/autocast_mode.cpp`` for the CPU:

- lower precision: floating tensor arguments (not float64) are cast to the region's dtype;
- fp32: they are cast to float32;
- promote: they are cast to the widest floating type among them (float64 ignored).

Casts of float32 leaf parameters (``requires_grad``, not views) to the lower precision type
are cached for the outermost region when ``cache_enabled``, so a weight used twice is cast
once, and the cache is cleared when that region exits.
"""

from __future__ import annotations

import functools
import threading
import warnings
import weakref
from typing import Any

from ..core import dtypes as dt
from ..core.dispatch_keys import DispatchKey
from ..core.tensor_impl import TensorImpl
from ..ops import dispatcher
from ..ops.schema import FunctionSchema

__all__ = [
    "autocast",
    "autocast_decrement_nesting",
    "autocast_increment_nesting",
    "clear_autocast_cache",
    "custom_bwd",
    "custom_fwd",
    "get_autocast_cpu_dtype",
    "get_autocast_dtype",
    "get_autocast_gpu_dtype",
    "is_autocast_available",
    "is_autocast_cache_enabled",
    "is_autocast_cpu_enabled",
    "is_autocast_enabled",
    "set_autocast_cache_enabled",
    "set_autocast_cpu_dtype",
    "set_autocast_cpu_enabled",
    "set_autocast_dtype",
    "set_autocast_enabled",
]

_AUTOCAST_BIT = DispatchKey.AutocastCPU.bit

# Device types torch keeps autocast state for, with their default lower precision type.
_DEFAULT_DTYPES = {"cpu": dt.bfloat16, "cuda": dt.float16, "xpu": dt.float16,
                   "mps": dt.float16, "hpu": dt.bfloat16, "xla": dt.bfloat16,
                   "ipu": dt.float16, "mtia": dt.float16, "maia": dt.float16,
                   "privateuseone": dt.float16}


class _State(threading.local):
    """Autocast state of one thread (torch keeps it thread-local)."""

    def __init__(self):
        self.enabled: dict = {}
        self.dtypes: dict = dict(_DEFAULT_DTYPES)
        self.cache_enabled = True
        self.nesting = 0
        self.keys = 0          # the key set ``call`` adds: AutocastCPU while CPU autocast is on
        self.excluded = 0      # > 0 inside an autocast kernel (the key is excluded there)
        self.cache: dict = {}  # id(source) -> (weakref to source, its cast); torch's is per thread


_STATE = _State()
_ON_THREADS: set = set()       # threads with CPU autocast on
_LOCK = threading.Lock()


def _tls_keys() -> int:
    state = _STATE
    return 0 if state.excluded else state.keys


def _call_with_autocast(self, keyset, *args):
    state = _STATE
    if state.keys and not state.excluded:
        keyset |= _AUTOCAST_BIT
    return self.table[(keyset & self.mask).bit_length()](*args)


def _refresh() -> None:
    """Record whether this thread has CPU autocast on; swap ``call`` when the first thread
    turns it on and back when the last one turns it off (Note [Autocast as a dispatch key])."""
    state = _STATE
    on = bool(state.enabled.get("cpu"))
    keys = _AUTOCAST_BIT if on else 0
    if keys == state.keys and (not on or _installed):
        return       # nothing changes for this thread
    state.keys = keys
    with _LOCK:
        before = bool(_ON_THREADS)
        if on:
            _ON_THREADS.add(threading.get_ident())
            _install_kernels()
        else:
            _ON_THREADS.discard(threading.get_ident())
        after = bool(_ON_THREADS)
        if after != before:
            dispatcher.set_base_call(_call_with_autocast if after else None, _tls_keys)


# -- state functions (torch.is_autocast_enabled and friends) ----------------------------------

def _check_device_type(device_type) -> str:
    if device_type in _DEFAULT_DTYPES and type(device_type) is str:
        return device_type
    from ..core.devices import device
    if not isinstance(device_type, str):
        raise TypeError(f"is_autocast_enabled(): argument 'device_type' (position 1) must be "
                        f"str, not {type(device_type).__name__}")
    device(device_type)    # an unknown device type raises torch's message
    return device_type


def _autocast_key(device_type) -> str:
    """The device type, when autocast has a dispatch key for it (torch's error otherwise)."""
    if _check_device_type(device_type) not in _DEFAULT_DTYPES:
        raise RuntimeError("unknown device type for autocast in "
                           "get_autocast_dispatch_key_from_device_type")
    return device_type


def is_autocast_available(device_type: str) -> bool:
    """Whether autocast has a policy for ``device_type`` (the CPU does; so do the accelerator
    types torch knows, although strided never runs on them)."""
    return _check_device_type(device_type) in _DEFAULT_DTYPES


def is_autocast_enabled(device_type: str | None = None) -> bool:
    """``is_autocast_enabled()`` without an argument asks about CUDA, as torch's does."""
    if device_type is None:
        device_type = "cuda"
    return bool(_STATE.enabled.get(_autocast_key(device_type), False))


def set_autocast_enabled(device_type: str, enabled: bool | None = None) -> None:
    if enabled is None:        # the deprecated one-argument form: the CUDA state
        device_type, enabled = "cuda", device_type
    _STATE.enabled[_autocast_key(device_type)] = bool(enabled)
    if device_type == "cpu":
        _refresh()


def get_autocast_dtype(device_type: str) -> dt.dtype:
    dtype = _STATE.dtypes.get(_check_device_type(device_type))
    if dtype is None:
        raise RuntimeError("unsupported scalarType")
    return dtype


def set_autocast_dtype(device_type: str, dtype: dt.dtype) -> None:
    _check_device_type(device_type)
    _STATE.dtypes[device_type] = dtype


def is_autocast_cache_enabled() -> bool:
    return _STATE.cache_enabled


def set_autocast_cache_enabled(enabled: bool) -> None:
    _STATE.cache_enabled = bool(enabled)


def autocast_increment_nesting() -> int:
    _STATE.nesting += 1
    return _STATE.nesting


def autocast_decrement_nesting() -> int:
    _STATE.nesting -= 1
    return _STATE.nesting


def clear_autocast_cache() -> None:
    _STATE.cache.clear()


def _deprecated(old: str, new: str) -> None:
    warnings.warn(f"torch.{old} is deprecated. Please use torch.{new} instead.",
                  DeprecationWarning, stacklevel=3)


def is_autocast_cpu_enabled() -> bool:
    _deprecated("is_autocast_cpu_enabled()", "is_autocast_enabled('cpu')")
    return is_autocast_enabled("cpu")


def set_autocast_cpu_enabled(enabled: bool) -> None:
    _deprecated("set_autocast_cpu_enabled(enabled)", "set_autocast_enabled('cpu', enabled)")
    set_autocast_enabled("cpu", enabled)


def get_autocast_cpu_dtype() -> dt.dtype:
    _deprecated("get_autocast_cpu_dtype()", "get_autocast_dtype('cpu')")
    return get_autocast_dtype("cpu")


def set_autocast_cpu_dtype(dtype: dt.dtype) -> None:
    _deprecated("set_autocast_cpu_dtype(dtype)", "set_autocast_dtype('cpu', dtype)")
    set_autocast_dtype("cpu", dtype)


def get_autocast_gpu_dtype() -> dt.dtype:
    _deprecated("get_autocast_gpu_dtype()", "get_autocast_dtype('cuda')")
    return get_autocast_dtype("cuda")


def _type_repr(obj) -> str:
    """``repr(type(obj))`` with strided's public classes under torch's names."""
    cls = type(obj)
    if cls.__module__.startswith("strided"):
        return f"<class 'torch.{cls.__name__}'>"
    return repr(cls)


# -- the context manager -----------------------------------------------------------------------

class autocast:
    """A region (context manager or decorator) where listed ops run in mixed precision.

    ``dtype`` defaults to ``get_autocast_dtype(device_type)`` (bfloat16 on the CPU); the CPU
    accepts bfloat16 and float16, any other dtype warns and disables the region, as torch.
    ``device_type='cuda'`` warns that CUDA is not available and disables the region.
    """

    def __init__(self, device_type: str, dtype: dt.dtype | None = None, enabled: bool = True,
                 cache_enabled: bool | None = None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: "
                             f"`{_type_repr(device_type)}`")
        self.fast_dtype = get_autocast_dtype(device_type) if dtype is None else dtype
        self.device = device_type
        if not is_autocast_available(device_type):
            raise RuntimeError(
                f"User specified an unsupported autocast device_type '{device_type}'")
        self._cache_enabled = is_autocast_cache_enabled() if cache_enabled is None \
            else cache_enabled
        if enabled:
            if device_type == "cuda":
                warnings.warn("CUDA is not available or torch_xla is imported. Disabling "
                              "autocast.", UserWarning, stacklevel=2)
                enabled = False
            elif self.fast_dtype not in (dt.bfloat16, dt.float16):
                name = device_type.upper()
                warnings.warn(
                    f"In {name} autocast, but the target dtype is not supported. Disabling "
                    f"autocast.\n{name} Autocast only supports dtypes of torch.bfloat16, "
                    f"torch.float16 currently.", UserWarning, stacklevel=2)
                enabled = False
        self._enabled = enabled

    def __enter__(self):
        self.prev_cache_enabled = is_autocast_cache_enabled()
        self.prev = is_autocast_enabled(self.device)
        self.prev_fastdtype = get_autocast_dtype(self.device)
        set_autocast_enabled(self.device, self._enabled)
        set_autocast_dtype(self.device, self.fast_dtype)
        autocast_increment_nesting()
        set_autocast_cache_enabled(self._cache_enabled)
        return self

    def __exit__(self, exc_type: Any, exc_val: Any, exc_tb: Any):
        if autocast_decrement_nesting() == 0:
            clear_autocast_cache()
        set_autocast_enabled(self.device, self.prev)
        set_autocast_dtype(self.device, self.prev_fastdtype)
        set_autocast_cache_enabled(self.prev_cache_enabled)
        return False

    def __call__(self, func):
        if not callable(func):
            raise TypeError(
                f"autocast()(func) requires a callable, but got {type(func).__name__}. "
                f"Did you mean to use autocast as a context manager? For example:\n"
                f"    with torch.autocast(device_type=...):\n"
                f"        output = model(input)")

        @functools.wraps(func)
        def decorate_autocast(*args, **kwargs):
            with self:
                return func(*args, **kwargs)
        return decorate_autocast


# -- the kernels (Note [Autocast as a dispatch key]) -------------------------------------------

# torch's CPU lists (aten/src/ATen/autocast_mode.cpp); ops strided lacks are skipped.
LOWER_PRECISION_FP = (
    "conv1d", "conv1d.padding", "conv2d", "conv2d.padding", "conv3d", "conv3d.padding", "bmm",
    "mm", "linalg_vecdot", "baddbmm", "addmm", "_addmm_activation", "addbmm", "linear",
    "_convolution.deprecated", "matmul", "conv_tbc", "mkldnn_rnn_layer", "conv_transpose1d",
    "conv_transpose2d.input", "conv_transpose3d.input", "prelu",
    "scaled_dot_product_attention", "_native_multi_head_attention",
)
FP32 = (
    "avg_pool3d", "binary_cross_entropy", "grid_sampler", "polar", "prod", "prod.dim_int",
    "prod.dim_Dimname", "quantile", "quantile.scalar", "nanquantile", "nanquantile.scalar",
    "stft", "stft.center", "cdist", "grid_sampler_2d", "_grid_sampler_2d_cpu_fallback",
    "grid_sampler_3d", "trace", "view_as_complex", "cholesky", "cholesky_inverse",
    "cholesky_solve", "inverse", "lu_solve", "orgqr", "ormqr", "pinverse", "max_pool3d",
    "max_unpool2d", "max_unpool3d", "adaptive_avg_pool3d", "reflection_pad1d",
    "reflection_pad2d", "replication_pad1d", "replication_pad2d", "replication_pad3d",
    "mse_loss", "cosine_embedding_loss", "nll_loss", "nll_loss2d", "hinge_embedding_loss",
    "poisson_nll_loss", "smooth_l1_loss", "cross_entropy_loss", "l1_loss", "huber_loss",
    "margin_ranking_loss", "soft_margin_loss", "triplet_margin_loss", "multi_margin_loss",
    "ctc_loss.IntList", "ctc_loss.Tensor", "kl_div", "multilabel_margin_loss",
    "binary_cross_entropy_with_logits", "fft_fft", "fft_ifft", "fft_fft2", "fft_ifft2",
    "fft_fftn", "fft_ifftn", "fft_rfft", "fft_irfft", "fft_rfft2", "fft_irfft2", "fft_rfftn",
    "fft_irfftn", "fft_hfft", "fft_ihfft", "linalg_cond", "linalg_cond.p_str",
    "linalg_matrix_rank", "linalg_matrix_rank.tol_tensor", "linalg_matrix_rank.atol_rtol_tensor",
    "linalg_matrix_rank.atol_rtol_float", "linalg_solve", "linalg_cholesky", "linalg_svdvals",
    "linalg_eigvals", "linalg_eigvalsh", "linalg_inv", "linalg_householder_product",
    "linalg_tensorinv", "linalg_tensorsolve", "fake_quantize_per_tensor_affine", "geqrf",
    "_lu_with_info", "qr", "svd", "triangular_solve", "fractional_max_pool2d",
    "fractional_max_pool3d", "adaptive_max_pool3d", "multilabel_margin_loss_forward",
    "linalg_qr", "linalg_cholesky_ex", "linalg_svd", "linalg_eig", "linalg_eigh", "linalg_lstsq",
    "linalg_inv_ex",
)
PROMOTE = ("stack", "cat", "index_copy", "index_copy.dimname")

_installed: list = []          # the (qualname, undo) pairs of the registered kernels


def _eligible(t) -> bool:
    return (isinstance(t, TensorImpl) and t._dtype.is_floating_point and t._dtype is not dt.float64
            and t._device.type == "cpu")


def _cached_cast(to_type, t):
    if not _eligible(t) or t._dtype is to_type:
        return t
    state = _STATE
    if (to_type is state.dtypes["cpu"] and t._dtype is dt.float32 and state.cache_enabled
            and t.requires_grad and t.is_leaf and not t._is_view()):
        cache = state.cache
        hit = cache.get(id(t))
        if hit is not None and hit[0]() is t:
            return hit[1]
        cast = t.to(to_type)
        cache[id(t)] = (weakref.ref(t), cast)
        return cast
    return t.to(to_type)


def _cast_args(args, positions, to_type):
    args = list(args)
    for pos in positions:
        a = args[pos]
        if isinstance(a, TensorImpl):
            args[pos] = _cached_cast(to_type, a)
        elif type(a) in (list, tuple):
            args[pos] = type(a)(x if x is None else _cached_cast(to_type, x) for x in a)
    return args


def _widest(args, positions, lower):
    """torch's ``promote_type``: float32 wins over the lower precision type; float64 and
    non-floating tensors are ignored."""
    current = lower
    for pos in positions:
        a = args[pos]
        items = a if type(a) in (list, tuple) else (a,)
        for t in items:
            if not _eligible(t):
                continue
            nxt = t._dtype
            if current is dt.float32 or nxt is dt.float32:
                current = dt.float32
            elif not (current is lower and nxt is lower):
                raise RuntimeError("Unexpected floating ScalarType in at::autocast::prioritize")
    return current


def _make_kernel(op, policy, positions):
    def autocast_kernel(*args):
        state = _STATE
        state.excluded += 1
        try:
            lower = state.dtypes["cpu"]
            if policy == "lower":
                to_type = lower
            elif policy == "fp32":
                to_type = dt.float32
            else:
                to_type = _widest(args, positions, lower)
            args = _cast_args(args, positions, to_type)
            ks = 0
            for pos in positions:
                a = args[pos]
                if isinstance(a, TensorImpl):
                    ks |= a._keyset
                elif type(a) in (list, tuple):
                    for t in a:
                        if t is not None:
                            ks |= t._keyset
            return op.redispatch(ks & ~_AUTOCAST_BIT, *args)
        finally:
            state.excluded -= 1
    autocast_kernel.__qualname__ = f"autocast_kernel[{op.qualname}, {policy}]"
    return autocast_kernel


def _tensor_positions(schema) -> tuple:
    if isinstance(schema, str):
        schema = FunctionSchema.parse(schema)
    return tuple(i for i, a in enumerate(schema.arguments.flat_all)
                 if a.type.is_tensor_like())


def _install_kernels() -> None:
    """Register the autocast kernels once, on first use (every op is registered by then)."""
    if _installed:
        return
    for names, policy in ((LOWER_PRECISION_FP, "lower"), (FP32, "fp32"), (PROMOTE, "promote")):
        for name in names:
            qualname = f"aten::{name}"
            op = dispatcher.find_op(qualname)
            if op is None:
                continue
            kernel = _make_kernel(op, policy, _tensor_positions(op.schema))
            _installed.append((qualname, dispatcher.register_kernel(qualname, "AutocastCPU",
                                                                    kernel)))
    op = dispatcher.find_op("aten::einsum")
    if op is not None:
        _installed.append(("aten::einsum", dispatcher.register_kernel(
            "aten::einsum", "AutocastCPU", _einsum_kernel(op))))


# -- custom autograd functions -----------------------------------------------------------------

def custom_fwd(fwd=None, *, device_type: str, cast_inputs: dt.dtype | None = None):
    """Decorator for a custom ``autograd.Function.forward``: records the autocast state for
    ``custom_bwd``; with ``cast_inputs`` inside an enabled region, the floating tensor inputs
    are cast to it and the forward runs with autocast off."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        ctx = args[0]
        ctx._dtype = get_autocast_dtype(device_type)
        if cast_inputs is None:
            ctx._fwd_used_autocast = is_autocast_enabled(device_type)
            return fwd(*args, **kwargs)
        autocast_context = is_autocast_enabled(device_type)
        ctx._fwd_used_autocast = False
        if autocast_context:
            with autocast(device_type=device_type, enabled=False):
                return fwd(*_cast(args, device_type, cast_inputs),
                           **_cast(kwargs, device_type, cast_inputs))
        return fwd(*args, **kwargs)
    return decorate_fwd


def custom_bwd(bwd=None, *, device_type: str):
    """Decorator for a custom ``autograd.Function.backward``: runs it with the autocast
    state its forward saw."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args, **kwargs):
        ctx = args[0]
        with autocast(device_type=device_type, enabled=ctx._fwd_used_autocast,
                      dtype=ctx._dtype):
            return bwd(*args, **kwargs)
    return decorate_bwd


def _cast(value, device_type: str, dtype):
    if isinstance(value, TensorImpl):
        if (value.is_floating_point() and value._device.type == device_type
                and value._dtype is not dt.float64):
            return value.to(dtype)
        return value
    if isinstance(value, (str, bytes)):
        return value
    if isinstance(value, dict):
        return {_cast(k, device_type, dtype): _cast(v, device_type, dtype)
                for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        cast = (_cast(v, device_type, dtype) for v in value)
        return list(cast) if isinstance(value, list) else tuple(cast)
    return value


def _enter_autocast(*vals):
    """Enter a region without a ``with`` statement (torch's ``torch.amp._enter_autocast``)."""
    mode = autocast(*vals)
    mode.__enter__()
    return mode


def _exit_autocast(mode) -> None:
    mode.__exit__(None, None, None)


# -- einsum ------------------------------------------------------------------------------------
# torch's einsum is a composite: it contracts the operands left to right, a pair at a time,
# with ``bmm`` when the pair shares a label summed away there and with ``mul`` when it does
# not; autocast then casts the bmm's inputs. strided's einsum is one kernel, so its autocast
# kernel decides from the equation: the result is in the lower precision type when torch's
# last pairwise step is a bmm; otherwise no cast happens (the last step is a mul).

def _einsum_last_step_is_bmm(equation: str, count: int) -> bool:
    if count < 2:
        return False
    eq = equation.replace(" ", "").replace("...", ".")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) != count:
        return False
    if not arrow:
        seen = "".join(terms)
        rhs = ("." if "." in seen else "") + "".join(
            sorted(c for c in set(seen) if c != "." and seen.count(c) == 1))
    acc = set(terms[0])
    for i in range(1, count):
        term = set(terms[i])
        needed = set(rhs).union(*(set(t) for t in terms[i + 1:]))
        shared_summed = (acc & term) - needed
        if i == count - 1:
            return bool(shared_summed)
        acc = (acc | term) & needed
    return False


def _einsum_kernel(op):
    def autocast_einsum(equation, tensors, path=None):
        state = _STATE
        state.excluded += 1
        try:
            tensors = list(tensors)
            if _einsum_last_step_is_bmm(equation, len(tensors)):
                lower = state.dtypes["cpu"]
                tensors = [_cached_cast(lower, t) for t in tensors]
            ks = 0
            for t in tensors:
                ks |= t._keyset
            return op.redispatch(ks & ~_AUTOCAST_BIT, equation, tensors, path)
        finally:
            state.excluded -= 1
    return autocast_einsum


def __getattr__(name):
    # ``_CACHE`` was a module global before the cache became per thread: it now reads as
    # the calling thread's cache
    if name == "_CACHE":
        return _STATE.cache
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
