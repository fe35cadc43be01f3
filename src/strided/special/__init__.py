"""``strided.special``: torch.special's functions.

Each is declared as ``special_<name>`` with ``python_module: special``
(ops/native_functions/special.yaml, torch's own naming, so error messages say
``special_zeta(): ...`` as torch's do); this module exposes them without the prefix:
``strided.special.zeta``. The ones torch implements by calling another operator
(``expit``, ``psi``, ``gammaln``, ``softmax``...) are ``CompositeImplicitAutograd`` kernels
that call it, so their graphs show that operator's node, as torch's do.
"""

from __future__ import annotations

from ..frontend.tensor import Tensor  # noqa: F401  (torch.special.Tensor exists too)
from ..ops._generated import special_functions as _generated

__all__: list[str] = []


def _export() -> None:
    _generated.bind_tensor_class(Tensor)
    for name in _generated.__all__:
        public = name.removeprefix("special_")
        globals()[public] = getattr(_generated, name)
        __all__.append(public)


_export()
