"""Samplers: iterables of dataset indices (or of index lists, for BatchSampler).

Note [Sampler draws]: every random sampler draws exactly what torch's draws, in the
same order and chunking, from the same generator, so after ``manual_seed(s)`` the
sample order equals torch's:

* RandomSampler without a generator first draws a 64-bit seed from the default
  generator (``empty((), int64).random_()``) and samples from a fresh Generator
  seeded with it; without replacement it yields ``randperm(n)`` per full pass and a
  prefix of one more ``randperm(n)``; with replacement it draws ``randint`` in
  chunks of 32 and one final chunk of ``num_samples % 32`` (drawn even when empty).
* SubsetRandomSampler: one ``randperm(len(indices))``.
* WeightedRandomSampler: one ``multinomial`` over float64 weights.

The draws happen lazily, when iteration starts, as in torch (the samplers' ``__iter__``
are generators), which matters for the order against DataLoader's own seed draw.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Sequence, Sized
from typing import Generic, TypeVar

import strided

__all__ = [
    "Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler",
    "WeightedRandomSampler", "BatchSampler",
]

T_co = TypeVar("T_co", covariant=True)

_CHUNK = 32  # RandomSampler(replacement=True) draws randint in chunks of this size


def _is_positive_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v > 0


class Sampler(Generic[T_co]):
    """Base class: subclasses define ``__iter__`` (and ``__len__`` where known)."""

    def __iter__(self) -> Iterator[T_co]:
        raise NotImplementedError


class SequentialSampler(Sampler[int]):
    """0, 1, ..., len(data_source) - 1."""

    def __init__(self, data_source: Sized) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler[int]):
    """A random permutation of the indices (or ``num_samples`` indices drawn with
    replacement); see Note [Sampler draws]."""

    def __init__(self, data_source: Sized, replacement: bool = False,
                 num_samples: int | None = None, generator=None) -> None:
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(replacement, bool):
            raise TypeError("replacement should be a boolean value, but got "
                            f"replacement={replacement}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError("num_samples should be a positive integer value, but got "
                             f"num_samples={self.num_samples}")

    @property
    def num_samples(self) -> int:
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self) -> Iterator[int]:
        n = len(self.data_source)
        gen = self.generator
        if gen is None:
            seed = int(strided.empty((), dtype=strided.int64).random_().item())
            gen = strided.Generator()
            gen.manual_seed(seed)
        total = self.num_samples
        if self.replacement:
            for _ in range(total // _CHUNK):
                yield from strided.randint(high=n, size=(_CHUNK,), dtype=strided.int64,
                                           generator=gen).tolist()
            yield from strided.randint(high=n, size=(total % _CHUNK,), dtype=strided.int64,
                                       generator=gen).tolist()
        else:
            for _ in range(total // n):
                yield from strided.randperm(n, generator=gen).tolist()
            yield from strided.randperm(n, generator=gen).tolist()[:total % n]

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler[int]):
    """The given indices in a random order (without replacement)."""

    def __init__(self, indices: Sequence[int], generator=None) -> None:
        self.indices = indices
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        for i in strided.randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[i]

    def __len__(self) -> int:
        return len(self.indices)


class WeightedRandomSampler(Sampler[int]):
    """``num_samples`` indices drawn with probabilities proportional to ``weights``."""

    def __init__(self, weights: Sequence[float], num_samples: int, replacement: bool = True,
                 generator=None) -> None:
        if not _is_positive_int(num_samples):
            raise ValueError("num_samples should be a positive integer value, but got "
                             f"num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError("replacement should be a boolean value, but got "
                             f"replacement={replacement}")
        w = strided.as_tensor(weights, dtype=strided.double)
        if w.dim() != 1:
            raise ValueError("weights should be a 1d sequence but given "
                             f"weights have shape {tuple(w.shape)}")
        self.weights = w
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        drawn = strided.multinomial(self.weights, self.num_samples, self.replacement,
                                    generator=self.generator)
        yield from drawn.tolist()

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(Sampler[list[int]]):
    """Groups another sampler's indices into lists of ``batch_size`` (the last one
    shorter unless ``drop_last``).

    >>> list(BatchSampler(SequentialSampler(range(5)), batch_size=2, drop_last=False))
    [[0, 1], [2, 3], [4]]
    """

    def __init__(self, sampler: Sampler[int] | Iterable[int], batch_size: int,
                 drop_last: bool) -> None:
        if not _is_positive_int(batch_size):
            raise ValueError("batch_size should be a positive integer value, but got "
                             f"batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError("drop_last should be a boolean value, but got "
                             f"drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self) -> Iterator[list[int]]:
        it = iter(self.sampler)
        size = self.batch_size
        if self.drop_last:
            # zip over the same iterator `size` times stops at the first short batch
            for batch in zip(*([it] * size)):
                yield list(batch)
            return
        batch = list(itertools.islice(it, size))
        while batch:
            yield batch
            batch = list(itertools.islice(it, size))

    def __len__(self) -> int:
        n = len(self.sampler)
        if self.drop_last:
            return n // self.batch_size
        return -(-n // self.batch_size)
