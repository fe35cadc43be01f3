"""``DataParallel`` without GPUs: torch keeps the module as ``self.module`` (so state dict
keys gain the ``module.`` prefix), sets ``device_ids = []`` and ``forward`` calls the module
itself. strided has no accelerator, so that is always the path taken."""

from __future__ import annotations

from ..modules.module import Module

__all__ = ["DataParallel", "data_parallel"]


class DataParallel(Module):
    def __init__(self, module: Module, device_ids=None, output_device=None, dim: int = 0):
        super().__init__()
        self.module = module
        self.device_ids = []

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)


def data_parallel(module, inputs, device_ids=None, output_device=None, dim: int = 0,
                  module_kwargs=None):
    """The functional form needs devices to scatter to; with none, torch raises."""
    raise RuntimeError("device type could not be determined")
