"""Dispatch keys and key sets.

A dispatch key names one layer of handling (a backend such as ``CPU``, or a
cross-cutting concern such as ``Autograd``). A key set is a Python int with one
bit per runtime key; a higher bit means a higher priority, so the key to run is
the highest bit of ``keyset & op.mask`` (Note [Fallthrough masks] in
ops/dispatcher.py).

Alias keys (``CompositeImplicitAutograd``, ``CompositeExplicitAutograd``) never
appear in key sets: a kernel registered for an alias fills in the runtime keys
it stands for.
"""

from __future__ import annotations

from enum import IntEnum

__all__ = ["ALIAS_KEYS", "BACKEND_KEYS", "DispatchKey", "backend_keyset", "keyset_of"]


class DispatchKey(IntEnum):
    # Runtime keys: the value is the table index; the key-set bit is 1 << (value - 1).
    Undefined = 0
    CPU = 1
    CUDA = 2
    Meta = 3
    PrivateUse1 = 4
    SparseCPU = 5       # sparse COO layout (issue 16)
    SparseMeta = 6
    SparseCsrCPU = 7    # compressed layouts: CSR, CSC, BSR, BSC (issue 16)
    SparseCsrMeta = 8
    BackendSelect = 9
    Conjugate = 10      # lazy conjugate bit (issue 15); below Negative, as in torch
    Negative = 11       # lazy negative bit
    ADInplaceOrView = 12
    Autograd = 13
    AutocastCPU = 14    # above Autograd, as in torch: the casts it makes are recorded
    Python = 15
    # Alias keys (registration only).
    CompositeExplicitAutograd = 20
    CompositeImplicitAutograd = 21
    CompositeExplicitAutogradNonFunctional = 22

    @property
    def bit(self) -> int:
        return 1 << (self.value - 1) if self.value else 0


NUM_RUNTIME_KEYS = DispatchKey.Python + 1
BACKEND_KEYS = (DispatchKey.CPU, DispatchKey.CUDA, DispatchKey.Meta, DispatchKey.PrivateUse1)
ALIAS_KEYS = (DispatchKey.CompositeExplicitAutograd, DispatchKey.CompositeImplicitAutograd,
              DispatchKey.CompositeExplicitAutogradNonFunctional)

_BACKEND_OF_DEVICE = {"cpu": DispatchKey.CPU, "cuda": DispatchKey.CUDA, "meta": DispatchKey.Meta,
                      "privateuseone": DispatchKey.PrivateUse1}
_keyset_cache: dict = {}


def backend_keyset(device) -> int:
    """The key-set bit of the backend that owns ``device``."""
    ks = _keyset_cache.get(device)
    if ks is None:
        key = _BACKEND_OF_DEVICE.get(device.type)
        if key is None:
            raise RuntimeError(f"no dispatch key for device type '{device.type}'")
        ks = _keyset_cache[device] = key.bit
    return ks


def keyset_of(*keys: DispatchKey) -> int:
    ks = 0
    for k in keys:
        ks |= k.bit
    return ks


def highest_key(keyset: int) -> DispatchKey:
    return DispatchKey(keyset.bit_length())
