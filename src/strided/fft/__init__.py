"""``strided.fft``: torch.fft's discrete Fourier transforms.

Each function is declared in ops/native_functions/fft.yaml as ``fft_<name>`` with
``python_module: fft`` (torch's own naming, so argument errors name ``fft_fft()`` as
torch's do); this module exposes them without the prefix: ``strided.fft.rfft``.
The transforms are composites over the ``_fft_r2c`` / ``_fft_c2r`` / ``_fft_c2c``
primitives (Note [The three FFT primitives] in kernels/fft.py).

    >>> import strided as torch
    >>> torch.fft.fft(torch.tensor([1.0, 0.0, 0.0, 0.0]))
    tensor([1.+0.j, 1.+0.j, 1.+0.j, 1.-0.j])
"""

from __future__ import annotations

from ..frontend.tensor import Tensor
from ..ops._generated import fft_functions as _generated

__all__: list[str] = []


def _export() -> None:
    _generated.bind_tensor_class(Tensor)
    for name in _generated.__all__:
        public = name.removeprefix("fft_")
        globals()[public] = getattr(_generated, name)
        __all__.append(public)


_export()
