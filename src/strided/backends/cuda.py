"""``strided.backends.cuda``: no CUDA build. ``is_built()`` is False; the matmul and
scaled-dot-product switches keep torch's defaults and what is set. ``matmul.allow_tf32`` is
the same switch as ``strided.set_float32_matmul_precision`` ('highest' <-> False), as in
torch."""

from __future__ import annotations

from ..utils.env import ENV

__all__ = ["cufft_plan_cache", "enable_flash_sdp", "enable_math_sdp", "enable_mem_efficient_sdp",
           "flash_sdp_enabled", "is_built", "math_sdp_enabled", "matmul",
           "mem_efficient_sdp_enabled", "sdp_kernel"]


def is_built() -> bool:
    return False


class _Matmul:
    """``backends.cuda.matmul``: an object whose known attributes are switches (an unknown
    one raises torch's AttributeError)."""

    _SWITCHES = ("allow_fp16_reduced_precision_reduction",
                 "allow_fp16_reduced_precision_reduction_split_k",
                 "allow_bf16_reduced_precision_reduction",
                 "allow_bf16_reduced_precision_reduction_split_k", "allow_fp16_accumulation")

    def __init__(self):
        d = self.__dict__
        d["_values"] = {"allow_fp16_reduced_precision_reduction": True,
                        "allow_fp16_reduced_precision_reduction_split_k": True,
                        "allow_bf16_reduced_precision_reduction": True,
                        "allow_bf16_reduced_precision_reduction_split_k": True,
                        "allow_fp16_accumulation": False}

    def __getattr__(self, name):
        if name == "allow_tf32":
            return ENV.matmul_precision != "highest"
        if name == "fp32_precision":
            return ENV.matmul_fp32_precision
        if name in self._SWITCHES:
            return self._values[name]
        raise AttributeError("Unknown attribute " + name)

    def __setattr__(self, name, value):
        if name == "allow_tf32":
            ENV.matmul_precision = "high" if value else "highest"
            ENV.matmul_fp32_precision = "tf32" if value else "ieee"
        elif name == "fp32_precision":
            if value not in ("none", "ieee", "tf32"):
                raise RuntimeError(f"{value} is not supported for fp32_precision")
            ENV.matmul_fp32_precision = value
            if value != "none":
                ENV.matmul_precision = "high" if value == "tf32" else "highest"
        elif name in ("allow_fp16_reduced_precision_reduction",
                      "allow_bf16_reduced_precision_reduction"):
            if isinstance(value, bool):
                self._values[name] = value
            elif isinstance(value, (list, tuple)) and 1 <= len(value) <= 2 and \
                    all(isinstance(v, bool) for v in value):
                self._values[name] = value[0]
                self._values[name + "_split_k"] = value[1] if len(value) > 1 else True
            else:
                raise TypeError(f"{name} expects a bool or a tuple/list of bools, but got "
                                f"{type(value)!r}")
        elif name == "allow_fp16_accumulation":
            self._values[name] = value
        else:
            raise AttributeError("Unknown attribute " + name)


matmul = _Matmul()


class _PlanCache:
    """``cufft_plan_cache``: no cuFFT, so no plans."""

    size = 0
    max_size = 0

    def clear(self) -> None:
        pass

    def __getitem__(self, device):
        return self


cufft_plan_cache = _PlanCache()

_SDP = {"flash": True, "mem_efficient": True, "math": True, "cudnn": True}


def flash_sdp_enabled() -> bool:
    return _SDP["flash"]


def enable_flash_sdp(enabled: bool) -> None:
    _SDP["flash"] = enabled


def mem_efficient_sdp_enabled() -> bool:
    return _SDP["mem_efficient"]


def enable_mem_efficient_sdp(enabled: bool) -> None:
    _SDP["mem_efficient"] = enabled


def math_sdp_enabled() -> bool:
    return _SDP["math"]


def enable_math_sdp(enabled: bool) -> None:
    _SDP["math"] = enabled


def cudnn_sdp_enabled() -> bool:
    return _SDP["cudnn"]


def enable_cudnn_sdp(enabled: bool) -> None:
    _SDP["cudnn"] = enabled


def is_flash_attention_available() -> bool:
    return False


class sdp_kernel:
    """Deprecated context manager that sets the SDPA switches for a ``with`` block."""

    def __init__(self, enable_flash: bool = True, enable_math: bool = True,
                 enable_mem_efficient: bool = True, enable_cudnn: bool = True):
        import warnings
        warnings.warn("`torch.backends.cuda.sdp_kernel()` is deprecated. In the future, this "
                      "context manager will be removed. Please see "
                      "`torch.nn.attention.sdpa_kernel()` for the new context manager, with "
                      "updated signature.", FutureWarning, stacklevel=2)
        self._new = {"flash": enable_flash, "math": enable_math,
                     "mem_efficient": enable_mem_efficient, "cudnn": enable_cudnn}

    def __enter__(self):
        self._old = dict(_SDP)
        _SDP.update(self._new)
        return self

    def __exit__(self, *exc):
        _SDP.update(self._old)
        return False
