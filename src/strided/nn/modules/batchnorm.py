"""torch.nn.modules.batchnorm: BatchNorm1d/2d/3d, LazyBatchNorm*, SyncBatchNorm.

``_NormBase`` holds what batch and instance norm share: the affine parameters (ones and
zeros after ``reset_parameters``, no random draw), the running statistics as buffers
(``running_mean`` zeros, ``running_var`` ones, ``num_batches_tracked`` an int64 0-dim
counter) and the state-dict versioning (version 2 added ``num_batches_tracked``: loading
an older state dict without it fills in the current counter).

In training mode a forward with ``track_running_stats`` counts the batch and updates the
running statistics inside the ``native_batch_norm`` kernel: ``running = (1 - momentum) *
running + momentum * batch_stat`` with the unbiased batch variance; ``momentum=None``
makes the factor ``1 / num_batches_tracked`` (a cumulative average). In eval mode the
running statistics normalise, unless the module keeps none.
"""

from __future__ import annotations

from ...autograd.grad_mode import no_grad
from ...core import dtypes as _dt
from ...core.devices import device as _device
from ...ops._generated import torch_functions as _fns
from .. import functional as F
from ..parameter import UninitializedBuffer, UninitializedParameter
from .lazy import LazyModuleMixin
from .module import Module
from .normalization import _register_affine, _reset_affine

__all__ = [
    "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "LazyBatchNorm1d", "LazyBatchNorm2d",
    "LazyBatchNorm3d", "SyncBatchNorm",
]


def _counter(factory_kwargs):
    import strided
    return strided.tensor(0, dtype=_dt.int64, device=factory_kwargs.get("device"))


class _NormBase(Module):
    """Common base of _BatchNorm and _InstanceNorm."""

    _version = 2
    __constants__ = ["track_running_stats", "momentum", "eps", "num_features", "affine"]

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
                 affine: bool = True, track_running_stats: bool = True, device=None,
                 dtype=None, *, bias: bool = True) -> None:
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        _register_affine(self, affine, bias, num_features, factory_kwargs)
        if self.track_running_stats:
            self.register_buffer("running_mean", _fns.zeros(num_features, **factory_kwargs))
            self.register_buffer("running_var", _fns.ones(num_features, **factory_kwargs))
            self.register_buffer("num_batches_tracked", _counter(factory_kwargs))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self) -> None:
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def reset_parameters(self) -> None:
        self.reset_running_stats()
        _reset_affine(self, self.affine)

    def _check_input_dim(self, input):
        raise NotImplementedError

    def extra_repr(self):
        return ("{num_features}, eps={eps}, momentum={momentum}, affine={affine}, "
                "bias={use_bias}, track_running_stats={track_running_stats}".format(
                    **self.__dict__, use_bias=self.bias is not None))

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs) -> None:
        version = local_metadata.get("version", None)
        if (version is None or version < 2) and self.track_running_stats:
            # state dicts before version 2 have no num_batches_tracked: keep the counter
            key = prefix + "num_batches_tracked"
            if key not in state_dict:
                nbt = self.num_batches_tracked
                state_dict[key] = nbt if nbt is not None and nbt.device != _device("meta") \
                    else _counter({})
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict,
                                      missing_keys, unexpected_keys, error_msgs)


class _BatchNorm(_NormBase):
    _input_dims: tuple[int, ...]    # the input dims BatchNorm1d/2d/3d accept

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
                 affine: bool = True, track_running_stats: bool = True, device=None,
                 dtype=None, *, bias: bool = True) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats,
                         device=device, dtype=dtype, bias=bias)

    def _factor_and_mode(self):
        """The momentum passed to batch_norm (counting the batch when training with running
        statistics) and whether the batch's own statistics normalise."""
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats:
            if self.num_batches_tracked is not None:
                self.num_batches_tracked.add_(1)
                if self.momentum is None:
                    factor = 1.0 / float(self.num_batches_tracked)
                else:
                    factor = self.momentum
        if self.training:
            bn_training = True
        else:
            bn_training = self.running_mean is None and self.running_var is None
        return factor, bn_training

    def _stats(self):
        use = not self.training or self.track_running_stats
        return (self.running_mean if use else None), (self.running_var if use else None)

    def _check_input_dim(self, input) -> None:
        _check_dims(input, self._input_dims)

    def forward(self, input):
        self._check_input_dim(input)
        factor, bn_training = self._factor_and_mode()
        running_mean, running_var = self._stats()
        return F.batch_norm(input, running_mean, running_var, self.weight, self.bias,
                            bn_training, factor, self.eps)


class _LazyNormBase(LazyModuleMixin, _NormBase):
    """Lazy batch/instance norm: ``num_features`` (and the shapes of the parameters and
    running statistics) come from ``input.shape[1]`` of the first forward."""

    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 device=None, dtype=None, *, bias=True) -> None:
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__(0, eps, momentum, False, False, **factory_kwargs, bias=False)
        self.affine = affine
        self.track_running_stats = track_running_stats
        if self.affine:
            self.weight = UninitializedParameter(**factory_kwargs)
            if bias:
                self.bias = UninitializedParameter(**factory_kwargs)
        if self.track_running_stats:
            self.running_mean = UninitializedBuffer(**factory_kwargs)
            self.running_var = UninitializedBuffer(**factory_kwargs)
            self.num_batches_tracked = _counter(factory_kwargs)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input) -> None:
        if self.has_uninitialized_params():
            self.num_features = input.shape[1]
            if self.affine:
                if not isinstance(self.weight, UninitializedParameter):
                    raise AssertionError("self.weight must be an UninitializedParameter")
                self.weight.materialize((self.num_features,))
                if self.bias is not None:
                    if not isinstance(self.bias, UninitializedParameter):
                        raise AssertionError("self.bias must be an UninitializedParameter")
                    self.bias.materialize((self.num_features,))
            if self.track_running_stats:
                self.running_mean.materialize((self.num_features,))
                self.running_var.materialize((self.num_features,))
            self.reset_parameters()


def _check_dims(input, allowed) -> None:
    """torch's ``_check_input_dim`` of the batch / instance norms: ``allowed`` (2, 3) reads
    "expected 2D or 3D input (got 4D input)"."""
    if input.dim() not in allowed:
        text = " or ".join(f"{d}D" for d in allowed)
        raise ValueError(f"expected {text} input (got {input.dim()}D input)")


class BatchNorm1d(_BatchNorm):
    """Batch normalization over a 2D (N, C) or 3D (N, C, L) input."""

    _input_dims = (2, 3)


class LazyBatchNorm1d(_LazyNormBase, _BatchNorm):
    """BatchNorm1d whose num_features comes from the first input."""

    cls_to_become = BatchNorm1d
    _input_dims = (2, 3)


class BatchNorm2d(_BatchNorm):
    """Batch normalization over a 4D (N, C, H, W) input."""

    _input_dims = (4,)


class LazyBatchNorm2d(_LazyNormBase, _BatchNorm):
    """BatchNorm2d whose num_features comes from the first input."""

    cls_to_become = BatchNorm2d
    _input_dims = (4,)


class BatchNorm3d(_BatchNorm):
    """Batch normalization over a 5D (N, C, D, H, W) input."""

    _input_dims = (5,)


class LazyBatchNorm3d(_LazyNormBase, _BatchNorm):
    """BatchNorm3d whose num_features comes from the first input."""

    cls_to_become = BatchNorm3d
    _input_dims = (5,)


class SyncBatchNorm(_BatchNorm):
    """Batch normalization whose statistics would be synchronised across processes; strided
    runs in one process, where it is BatchNorm over any input of at least 2 dims."""

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
                 affine: bool = True, track_running_stats: bool = True, process_group=None,
                 device=None, dtype=None, *, bias: bool = True) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats,
                         device=device, dtype=dtype, bias=bias)
        self.process_group = process_group

    def _check_input_dim(self, input) -> None:
        if input.dim() < 2:
            raise ValueError(f"expected at least 2D input (got {input.dim()}D input)")

    def _check_non_zero_input_channels(self, input) -> None:
        if input.size(1) == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")

    def forward(self, input):
        self._check_input_dim(input)
        self._check_non_zero_input_channels(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats:
            if self.num_batches_tracked is None:
                raise AssertionError("num_batches_tracked must not be None")
            self.num_batches_tracked.add_(1)
            if self.momentum is None:
                factor = 1.0 / self.num_batches_tracked.item()
            else:
                factor = self.momentum
        bn_training = True if self.training else \
            self.running_mean is None and self.running_var is None
        running_mean, running_var = self._stats()
        # one process: no statistics to gather from others
        return F.batch_norm(input, running_mean, running_var, self.weight, self.bias,
                            bn_training, factor, self.eps)

    @classmethod
    def convert_sync_batchnorm(cls, module, process_group=None):
        """``module`` with every BatchNorm*d layer (recursively) replaced by a SyncBatchNorm
        sharing its parameters and running statistics."""
        module_output = module
        if isinstance(module, _BatchNorm):
            module_output = SyncBatchNorm(module.num_features, module.eps, module.momentum,
                                          module.affine, module.track_running_stats,
                                          process_group, bias=module.bias is not None)
            if module.affine:
                with no_grad():
                    module_output.weight = module.weight
                    module_output.bias = module.bias
            module_output.running_mean = module.running_mean
            module_output.running_var = module.running_var
            module_output.num_batches_tracked = module.num_batches_tracked
            module_output.training = module.training
            if hasattr(module, "qconfig"):
                module_output.qconfig = module.qconfig
        for name, child in module.named_children():
            module_output.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        del module
        return module_output
