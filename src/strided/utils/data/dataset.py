"""Datasets: map-style (``__getitem__``/``__len__``) and iterable-style (``__iter__``).

The composition classes (Concat/Chain/Stack/Subset) and ``random_split`` follow
torch.utils.data.dataset: the same index arithmetic, the same errors, and
``random_split`` draws one ``randperm`` from the given generator, as torch does,
so the same seed selects the same subsets.
"""

from __future__ import annotations

import bisect
import itertools
import math
import warnings
from collections.abc import Iterable, Sequence
from typing import Generic, TypeVar

import strided

__all__ = [
    "Dataset", "IterableDataset", "TensorDataset", "StackDataset", "ConcatDataset",
    "ChainDataset", "Subset", "random_split",
]

T_co = TypeVar("T_co", covariant=True)
T = TypeVar("T")


class Dataset(Generic[T_co]):
    """A map from keys to samples: subclasses define ``__getitem__`` (and usually
    ``__len__``); ``__getitems__(indices)`` may be added to fetch a whole batch at once.

    ``a + b`` concatenates two datasets (a :class:`ConcatDataset`).
    """

    def __getitem__(self, index) -> T_co:
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other: Dataset[T_co]) -> ConcatDataset[T_co]:
        return ConcatDataset([self, other])

    # No default __len__: len() of a dataset without one raises TypeError, which is
    # what samplers and DataLoader rely on to tell sized datasets apart.


class IterableDataset(Dataset[T_co], Iterable[T_co]):
    """A stream of samples: subclasses define ``__iter__``. With worker processes each
    worker iterates its own copy; use :func:`get_worker_info` to split the work."""

    def __add__(self, other: Dataset[T_co]):
        return ChainDataset([self, other])


class TensorDataset(Dataset[tuple]):
    """Sample ``i`` is ``tuple(t[i] for t in tensors)``; every tensor has the same size(0).

    >>> ds = TensorDataset(strided.arange(3), strided.zeros(3, 2))
    >>> ds[1]
    (tensor(1), tensor([0., 0.]))
    """

    def __init__(self, *tensors) -> None:
        n = tensors[0].size(0)
        if any(t.size(0) != n for t in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self) -> int:
        return self.tensors[0].size(0)


class StackDataset(Dataset):
    """Zips datasets of equal length: positional datasets give tuple samples, keyword
    datasets give dict samples."""

    def __init__(self, *args, **kwargs) -> None:
        if args and kwargs:
            raise ValueError(
                "Supported either ``tuple``- (via ``args``) or"
                "``dict``- (via ``kwargs``) like input/output, but both types are given.")
        if not args and not kwargs:
            raise ValueError("At least one dataset should be passed")
        parts = list(args) if args else list(kwargs.values())
        self._length = len(parts[0])
        if any(len(d) != self._length for d in parts):
            raise ValueError("Size mismatch between datasets")
        self.datasets = args if args else kwargs

    def __getitem__(self, index):
        if isinstance(self.datasets, dict):
            return {k: d[index] for k, d in self.datasets.items()}
        return tuple(d[index] for d in self.datasets)

    @staticmethod
    def _column(dataset, indices):
        if callable(getattr(dataset, "__getitems__", None)):
            items = dataset.__getitems__(indices)
            if len(items) != len(indices):
                raise ValueError("Nested dataset's output size mismatch."
                                 f" Expected {len(indices)}, got {len(items)}")
            return items
        return [dataset[i] for i in indices]

    def __getitems__(self, indices: list):
        if isinstance(self.datasets, dict):
            rows: list = [{} for _ in indices]
            for key, d in self.datasets.items():
                for row, item in zip(rows, self._column(d, indices)):
                    row[key] = item
            return rows
        columns = [self._column(d, indices) for d in self.datasets]
        return [tuple(row) for row in zip(*columns)] if columns else []

    def __len__(self) -> int:
        return self._length


class ConcatDataset(Dataset[T_co]):
    """Map-style datasets one after another; ``cumulative_sizes[i]`` is the end of the
    i-th dataset's range."""

    @staticmethod
    def cumsum(sequence):
        return list(itertools.accumulate(len(d) for d in sequence))

    def __init__(self, datasets: Iterable[Dataset]) -> None:
        super().__init__()
        self.datasets = list(datasets)
        if not self.datasets:
            raise AssertionError("datasets should not be an empty iterable")
        if any(isinstance(d, IterableDataset) for d in self.datasets):
            raise AssertionError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = self.cumsum(self.datasets)

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx += len(self)
        which = bisect.bisect_right(self.cumulative_sizes, idx)
        start = self.cumulative_sizes[which - 1] if which else 0
        return self.datasets[which][idx - start]

    @property
    def cummulative_sizes(self):
        warnings.warn("`cummulative_sizes` attribute is renamed to `cumulative_sizes`",
                      FutureWarning, stacklevel=2)
        return self.cumulative_sizes


class ChainDataset(IterableDataset):
    """Iterable datasets chained lazily, one stream after the other."""

    def __init__(self, datasets: Iterable[Dataset]) -> None:
        super().__init__()
        self.datasets = datasets

    @staticmethod
    def _check(d):
        if not isinstance(d, IterableDataset):
            raise AssertionError("ChainDataset only supports IterableDataset")
        return d

    def __iter__(self):
        for d in self.datasets:
            yield from self._check(d)

    def __len__(self) -> int:
        return sum(len(self._check(d)) for d in self.datasets)


class Subset(Dataset[T_co]):
    """The samples of ``dataset`` at ``indices`` (in that order)."""

    def __init__(self, dataset: Dataset[T_co], indices: Sequence[int]) -> None:
        self.dataset = dataset
        self.indices = indices
        cls = type(self)
        if cls.__getitem__ is not Subset.__getitem__ and cls.__getitems__ is Subset.__getitems__:
            # A DataLoader fetches batches through __getitems__, which would bypass the
            # overridden __getitem__ silently; torch refuses the subclass up front.
            raise NotImplementedError(
                f"{cls.__name__} overrides __getitem__ but not __getitems__. "
                "When subclassing Subset and overriding __getitem__, you must also override "
                "__getitems__ to ensure DataLoader works correctly with your custom logic. "
                "A simple implementation:\n\n"
                "def __getitems__(self, indices):\n"
                "    return [self.__getitem__(idx) for idx in indices]")

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __getitems__(self, indices: list) -> list:
        mapped = [self.indices[i] for i in indices]
        if callable(getattr(self.dataset, "__getitems__", None)):
            return self.dataset.__getitems__(mapped)
        return [self.dataset[i] for i in mapped]

    def __len__(self) -> int:
        return len(self.indices)


def _lengths_from_fractions(fractions, total: int) -> list[int]:
    """floor(total * f) for each fraction, then the remainder handed out one by one
    from the first split on (round-robin), as torch does."""
    lengths = []
    for i, frac in enumerate(fractions):
        if frac < 0 or frac > 1:
            raise ValueError(f"Fraction at index {i} is not between 0 and 1")
        lengths.append(math.floor(total * frac))
    for i in range(total - sum(lengths)):
        lengths[i % len(lengths)] += 1
    for i, n in enumerate(lengths):
        if n == 0:
            warnings.warn(f"Length of split at index {i} is 0. "
                          f"This might result in an empty dataset.", stacklevel=3)
    return lengths


def random_split(dataset: Dataset[T], lengths: Sequence[int | float],
                 generator=strided.default_generator) -> list[Subset[T]]:
    """Split ``dataset`` into non-overlapping random subsets of the given lengths, or of
    the given fractions (summing to 1) of ``len(dataset)``.

    >>> g = strided.Generator().manual_seed(42)
    >>> [list(s.indices) for s in random_split(range(5), [2, 3], generator=g)]
    [[2, 4], [3, 0, 1]]
    """
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        lengths = _lengths_from_fractions(lengths, len(dataset))
    if sum(lengths) != len(dataset):
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    order = strided.randperm(sum(lengths), generator=generator).tolist()
    return [Subset(dataset, order[end - n:end])
            for end, n in zip(itertools.accumulate(lengths), lengths)]
