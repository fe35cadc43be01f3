"""``strided.linalg``: torch.linalg's functions.

Each is declared in native_functions.yaml as ``linalg_<name>`` with ``python_module:
linalg`` (torch's own naming), so its error messages say ``linalg_inv(): ...`` as torch's
do; this module exposes them without the prefix: ``strided.linalg.inv``.
"""

from __future__ import annotations

from .frontend.tensor import Tensor as _Tensor
from .kernels.linalg import LinAlgError  # noqa: F401
from .ops._generated import linalg_functions as _generated

__all__: list[str] = ["LinAlgError"]


def _export() -> None:
    _generated.bind_tensor_class(_Tensor)
    for name in _generated.__all__:
        public = name.removeprefix("linalg_")
        globals()[public] = getattr(_generated, name)
        __all__.append(public)


_export()
