"""Fetchers: turn one entry of the index sampler (an index, or a list of indices when
batching) into a batch, for map-style and iterable datasets alike. Shared by the
single-process iterator and the worker processes."""

from __future__ import annotations

import strided

from ..dataset import Subset, TensorDataset
from . import collate as _collate


class _MapDatasetFetcher:
    def __init__(self, dataset, auto_collation: bool, collate_fn, drop_last: bool) -> None:
        self.dataset = dataset
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn
        self.drop_last = drop_last
        # Note [TensorDataset batches at once]
        self._rows = _row_source(dataset, collate_fn) if auto_collation else None

    def fetch(self, index):
        if not self.auto_collation:
            return self.collate_fn(self.dataset[index])
        if self._rows is not None:
            batch = _tensor_rows(*self._rows, index)
            if batch is not None:
                return batch
        getitems = getattr(self.dataset, "__getitems__", None)
        if getitems:
            data = getitems(index)
        else:
            data = [self.dataset[i] for i in index]
        return self.collate_fn(data)


class _IterableDatasetFetcher:
    def __init__(self, dataset, auto_collation: bool, collate_fn, drop_last: bool) -> None:
        self.dataset = dataset
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn
        self.drop_last = drop_last
        self.dataset_iter = iter(dataset)
        self.ended = False

    def fetch(self, index):
        if self.ended:
            raise StopIteration
        if not self.auto_collation:
            return self.collate_fn(next(self.dataset_iter))
        data = []
        for _ in index:
            try:
                data.append(next(self.dataset_iter))
            except StopIteration:
                self.ended = True
                break
        if not data or (self.drop_last and len(data) < len(index)):
            raise StopIteration
        return self.collate_fn(data)


# Note [TensorDataset batches at once]: the common loop is a TensorDataset with
# default_collate, whose batch is stack([t[i] for i in batch]) per tensor. For
# contiguous tensors that need no gradient, index_select along dim 0 gives the same
# values, dtype, shape and (contiguous) strides in one op instead of len(batch) + 1.
# Anything else (a subclass overriding __getitem__, a custom collate_fn, tensors that
# require grad, indices that are not plain in-range ints) takes the general path, which
# also raises the usual errors.

def _plain_tensor_dataset(dataset) -> bool:
    return (type(dataset).__getitem__ is TensorDataset.__getitem__
            and not hasattr(dataset, "__getitems__")
            and all(type(t) is strided.Tensor and t.layout is strided.strided
                    and not t.requires_grad and t.is_contiguous()
                    for t in dataset.tensors))


def _row_source(dataset, collate_fn):
    """(tensors, index map or None) when batches can be taken at once, else None. A
    plain Subset of such a TensorDataset (what random_split makes) qualifies too."""
    if collate_fn is not _collate.default_collate:
        return None
    if type(dataset) is Subset and _plain_tensor_dataset(dataset.dataset):
        return dataset.dataset.tensors, dataset.indices
    if _plain_tensor_dataset(dataset):
        return dataset.tensors, None
    return None


def _tensor_rows(tensors, index_map, index):
    if not isinstance(index, list) or not index:
        return None
    if index_map is not None:
        try:
            index = [index_map[i] for i in index]
        except Exception:  # the general path raises what indexing the Subset raises
            return None
    n = tensors[0].size(0)
    for i in index:
        if type(i) is not int or not 0 <= i < n:
            return None
    picked = strided.tensor(index, dtype=strided.int64)
    return [t.index_select(0, picked) for t in tensors]


def make_fetcher(kind: int, dataset, auto_collation: bool, collate_fn, drop_last: bool):
    """kind 0: map-style, 1: iterable (DataLoader's _DatasetKind)."""
    cls = _MapDatasetFetcher if kind == 0 else _IterableDatasetFetcher
    return cls(dataset, auto_collation, collate_fn, drop_last)
