"""``strided.random``: the default CPU generator's module functions, as in ``torch.random``.

    strided.manual_seed(0)
    a = strided.rand(3)
    with strided.random.fork_rng():
        strided.rand(5)              # draws here do not move the outer stream
    b = strided.rand(3)              # the same as without the block
"""

from __future__ import annotations

import contextlib
from collections.abc import Generator as _PyGenerator

from .core.generator import Generator, default_generator

__all__ = ["Generator", "default_generator", "fork_rng", "get_rng_state", "initial_seed",
           "manual_seed", "seed", "set_rng_state"]


def manual_seed(seed) -> Generator:
    """Seed the default generator (``int(seed)``, as torch converts it) and return it."""
    return default_generator.manual_seed(int(seed))


def seed() -> int:
    """Seed the default generator from the operating system's entropy; returns the seed."""
    return default_generator.seed()


def initial_seed() -> int:
    return default_generator.initial_seed()


def get_rng_state():
    """The default generator's state: a uint8 tensor in torch's layout (5056 bytes)."""
    return default_generator.get_state()


def set_rng_state(new_state) -> None:
    default_generator.set_state(new_state)


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices",
             device_type=None) -> _PyGenerator:
    """Run a block with the CPU generator forked: its state is restored on exit.
    strided has no accelerator generators, so ``devices`` and ``device_type`` only name
    devices whose streams would be forked too."""
    if not enabled:
        yield
        return
    state = default_generator.get_state()
    try:
        yield
    finally:
        default_generator.set_state(state)
