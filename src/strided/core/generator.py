"""``Generator``: torch's CPU random number generator, word for word.

Note [The CPU random stream]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~
torch's CPU generator is a 32-bit Mersenne Twister (MT19937) seeded the standard
way (``init_genrand`` with the low 32 bits of the seed), plus two cached normal
samples (one double, one float) that its scalar Box-Muller path hands out every
second call. Every sampler reads the stream through two primitives:

- ``random()``: one tempered 32-bit word;
- ``random64()``: two words ``hi, lo`` joined as ``(hi << 32) | lo``.

NumPy's ``MT19937`` bit generator runs the very same recurrence and tempering in C,
so it is our word source: its ``state`` (a 624-word key and a position) is set to
exactly what torch's engine holds, and bulk draws come out at C speed. torch's
engine counts ``left`` (words until the next twist, plus one) and ``next`` (the index
of the next word); NumPy counts ``pos``; they relate by ``pos = 625 - left``. A freshly
seeded torch engine has ``left = 1, next = 0`` ("twist before the first word"), which
is NumPy's ``pos = 624`` with the untwisted key; we remember that case (``_fresh``)
only so that ``get_state`` gives back torch's bytes exactly.

``get_state`` returns torch's ``CPUGeneratorImplState`` layout (5056 bytes), so states
move between torch and strided both ways:

    offset  size  field
         0     8  the_initial_seed (uint64)
         8     4  left (int32)
        12     4  seeded (int32)
        16     8  next (uint64)
        24  4992  state: 624 words, each widened to uint64
      5016     8  normal_x (unused, 0)
      5024     8  normal_y: the cached double normal sample
      5032     8  normal_rho (unused, 0)
      5040     4  normal_is_valid (int32)
      5048     4  next_float_normal_sample (float32)
      5052     1  is_next_float_normal_sample_valid (bool)
"""

from __future__ import annotations

import os

import numpy as np

from . import dtypes as dt
from .devices import CPU as _CPU
from .devices import device as _device_cls
from .storage import UntypedStorage
from .tensor_impl import TensorImpl, make_tensor

__all__ = ["DEFAULT_SEED", "Generator", "default_generator"]

DEFAULT_SEED = 67280421310721   # torch's default_rng_seed_val
_N = 624
_STATE_SIZE = 5056
_MASK64 = (1 << 64) - 1
_BULK = 4096    # below this many words, random_raw beats Generator.integers
_NO_CUDA = (
    "Cannot get CUDA generator without ATen_cuda library. PyTorch splits its backend into two "
    "shared libraries: a CPU library and a CUDA library; this error has occurred because you "
    "are trying to use some CUDA functionality, but the CUDA library has not been loaded by "
    "the dynamic linker for some reason.  The CUDA library MUST be loaded, EVEN IF you don't "
    "directly use any symbols from the CUDA library! One common culprit is a lack of "
    "-Wl,--no-as-needed in your link arguments; many dynamic linkers will delete dynamic "
    "library dependencies if you don't depend on any of their symbols.  You can check if this "
    "has occurred by using ldd on your binary to see if there is a dependency on *_cuda.so "
    "library.")


def _init_key(seed: int) -> np.ndarray:
    """MT19937's ``init_genrand``: the 624-word key for a 32-bit seed."""
    key = np.empty(_N, np.uint32)
    s = seed & 0xFFFFFFFF
    key[0] = s
    for j in range(1, _N):
        s = (1812433253 * (s ^ (s >> 30)) + j) & 0xFFFFFFFF
        key[j] = s
    return key


_KEY_CACHE: dict = {}


def _key_for(seed: int) -> np.ndarray:
    low = seed & 0xFFFFFFFF
    key = _KEY_CACHE.get(low)
    if key is None:
        if len(_KEY_CACHE) > 64:
            _KEY_CACHE.clear()
        key = _KEY_CACHE[low] = _init_key(low)
    return key


class Generator:
    """``Generator(device='cpu')``: an MT19937 stream that gives torch's numbers.

        g = Generator().manual_seed(42)
        strided.rand(3, generator=g)      # the same floats as torch.rand(3, generator=...)
    """

    __slots__ = ("__weakref__", "_bg", "_fresh", "_gen", "_next_double_normal",
                 "_next_float_normal", "_seed", "device")

    def __init__(self, device="cpu"):
        dev = _device_cls(device)
        if dev.type == "cuda":
            raise RuntimeError(_NO_CUDA)
        if dev.type != "cpu":
            raise RuntimeError(f"{dev.type.upper()} device type not an accelerator.")
        self.device = _CPU
        self._bg = np.random.MT19937()
        self._gen = np.random.Generator(self._bg)
        self._set_seed(DEFAULT_SEED)

    # -- seeding ------------------------------------------------------------------------

    def _set_seed(self, seed: int) -> None:
        self._seed = seed
        self._bg.state = {"bit_generator": "MT19937",
                          "state": {"key": _key_for(seed), "pos": _N}}
        self._fresh = True
        self._next_double_normal = None
        self._next_float_normal = None

    def manual_seed(self, seed) -> Generator:
        """Seed the stream (any integer in [-2**63, 2**64); negatives wrap) and return self."""
        if isinstance(seed, bool) or not isinstance(seed, int):
            try:
                seed = seed.__index__()
            except (AttributeError, TypeError):
                raise RuntimeError(f"manual_seed expected a long, but got "
                                   f"{type(seed).__name__}") from None
        if seed < -(1 << 63) or seed > _MASK64:
            raise ValueError("Overflow when unpacking long long")
        self._set_seed(seed & _MASK64)
        return self

    def seed(self) -> int:
        """Seed from the operating system's entropy; returns the seed."""
        s = int.from_bytes(os.urandom(8), "little")
        self._set_seed(s)
        return s

    def initial_seed(self) -> int:
        return self._seed

    # -- torch's state bytes --------------------------------------------------------------

    def get_state(self):
        """The state as a uint8 tensor in torch's ``CPUGeneratorImplState`` layout."""
        raw = self._state_bytes()
        storage = UntypedStorage._wrap(raw, _CPU)
        return make_tensor(storage, (_STATE_SIZE,), (1,), 0, dt.uint8)

    def _state_bytes(self) -> np.ndarray:
        st = self._bg.state["state"]
        pos = int(st["pos"])
        out = np.zeros(_STATE_SIZE, np.uint8)
        out[0:8] = np.array([self._seed], np.uint64).view(np.uint8)
        left = 625 - pos
        nxt = 0 if (self._fresh and pos == _N) else pos
        out[8:12] = np.array([left], np.int32).view(np.uint8)
        out[12:16] = np.array([1], np.int32).view(np.uint8)
        out[16:24] = np.array([nxt], np.uint64).view(np.uint8)
        out[24:24 + 8 * _N] = np.asarray(st["key"], np.uint32).astype(np.uint64).view(np.uint8)
        if self._next_double_normal is not None:
            out[5024:5032] = np.array([self._next_double_normal], np.float64).view(np.uint8)
            out[5040:5044] = np.array([1], np.int32).view(np.uint8)
        if self._next_float_normal is not None:
            out[5048:5052] = np.array([self._next_float_normal], np.float32).view(np.uint8)
            out[5052] = 1
        return out

    def set_state(self, new_state) -> Generator:
        """Load a state from ``get_state`` (ours or torch's: the bytes are the same)."""
        if not isinstance(new_state, TensorImpl):
            raise TypeError(f"expected a torch.ByteTensor, but got {type(new_state).__name__}")
        if new_state.dtype is not dt.uint8:
            raise TypeError("RNG state must be a torch.ByteTensor")
        n = new_state.numel()
        if n != _STATE_SIZE:
            raise RuntimeError(f"Expected a CPUGeneratorImplState of size {_STATE_SIZE} but "
                               f"found the input RNG state size to be {n}")
        self._load_bytes(np.ascontiguousarray(new_state._array()).reshape(-1))
        return self

    def _load_bytes(self, raw: np.ndarray) -> None:
        seed = int(raw[0:8].view(np.uint64)[0])
        left = int(raw[8:12].view(np.int32)[0])
        seeded = int(raw[12:16].view(np.int32)[0])
        nxt = int(raw[16:24].view(np.uint64)[0])
        if not (seeded and 0 < left <= _N and nxt <= _N):
            raise RuntimeError("Invalid mt19937 state")
        key = (raw[24:24 + 8 * _N].view(np.uint64) & 0xFFFFFFFF).astype(np.uint32)
        self._seed = seed
        self._bg.state = {"bit_generator": "MT19937",
                          "state": {"key": key, "pos": 625 - left}}
        self._fresh = left == 1 and nxt == 0
        dn_valid = int(raw[5040:5044].view(np.int32)[0])
        self._next_double_normal = float(raw[5024:5032].view(np.float64)[0]) if dn_valid \
            else None
        self._next_float_normal = np.float32(raw[5048:5052].view(np.float32)[0]) \
            if raw[5052] else None

    def clone_state(self) -> Generator:
        g = Generator(self.device)
        g._load_bytes(self._state_bytes())
        return g

    def __getstate__(self):
        return {"device": str(self.device), "state": self._state_bytes()}

    def __setstate__(self, d):
        self.device = _device_cls(d["device"])
        self._bg = np.random.MT19937()
        self._gen = np.random.Generator(self._bg)
        self._load_bytes(np.asarray(d["state"], np.uint8))

    def __repr__(self):
        return f"<strided.Generator object at {hex(id(self))}>"

    # -- the stream ------------------------------------------------------------------------

    def _words(self, n: int) -> np.ndarray:
        """The next ``n`` 32-bit words (torch's ``random()`` called n times), as uint32."""
        if n:
            self._fresh = False
        if n < _BULK:
            return self._bg.random_raw(n).astype(np.uint32)
        return self._gen.integers(0, 1 << 32, size=n, dtype=np.uint32)

    def _random64(self, n: int) -> np.ndarray:
        """``random64()`` called n times: two words each, the first one high."""
        w = self._words(2 * n).astype(np.uint64)
        return (w[0::2] << np.uint64(32)) | w[1::2]

    def random(self) -> int:
        """One ``random()`` word as a Python int."""
        self._fresh = False
        return self._bg.random_raw()

    def random64(self) -> int:
        self._fresh = False
        hi = self._bg.random_raw()
        return (hi << 32) | self._bg.random_raw()


default_generator = Generator()
