"""``strided.cuda.amp``: torch's deprecated CUDA spellings of ``strided.amp``. Each warns
that it is deprecated; without CUDA the autocast region and the scaler are disabled."""

from __future__ import annotations

import functools
import warnings

__all__ = ["amp_definitely_not_available"]  # and, built on first use: autocast, GradScaler,
#                                             custom_fwd, custom_bwd


def amp_definitely_not_available() -> bool:
    return True


def _deprecated(old: str, new: str):
    warnings.warn(f"`torch.cuda.amp.{old}(args...)` is deprecated. Please use "
                  f"`torch.amp.{new}` instead.", FutureWarning, stacklevel=3)



def __getattr__(name):
    # strided.amp imports strided.cuda: build the subclasses on first use
    from .. import amp as _amp

    if name == "autocast":
        class autocast(_amp.autocast):
            def __init__(self, enabled=True, dtype=None, cache_enabled=True):
                _deprecated("autocast", "autocast('cuda', args...)")
                from ..core import dtypes
                super().__init__("cuda", enabled=enabled,
                                 dtype=dtypes.float16 if dtype is None else dtype,
                                 cache_enabled=cache_enabled)
        autocast.__module__ = __name__
        globals()["autocast"] = autocast
        return autocast
    if name == "GradScaler":
        class GradScaler(_amp.GradScaler):
            def __init__(self, init_scale=2.0**16, growth_factor=2.0, backoff_factor=0.5,
                         growth_interval=2000, enabled=True):
                _deprecated("GradScaler", "GradScaler('cuda', args...)")
                super().__init__("cuda", init_scale=init_scale, growth_factor=growth_factor,
                                 backoff_factor=backoff_factor, growth_interval=growth_interval,
                                 enabled=enabled)
        GradScaler.__module__ = __name__
        globals()["GradScaler"] = GradScaler
        return GradScaler
    if name == "custom_fwd":
        def custom_fwd(fwd=None, *, cast_inputs=None):
            _deprecated("custom_fwd", "custom_fwd(args..., device_type='cuda')")
            return _amp.custom_fwd(fwd, device_type="cuda", cast_inputs=cast_inputs)
        return custom_fwd
    if name == "custom_bwd":
        def custom_bwd(bwd):
            _deprecated("custom_bwd", "custom_bwd(args..., device_type='cuda')")
            return functools.partial(_amp.custom_bwd, device_type="cuda")(bwd)
        return custom_bwd
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
