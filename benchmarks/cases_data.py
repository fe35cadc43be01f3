"""Benchmark cases for torch.utils.data (issue 11's speed target): one DataLoader epoch
over a 10000x32 float32 TensorDataset with batch 64, num_workers=0, in strided and in
torch from the same data. NumPy has no equivalent: its column stays empty.

Two more cases show the general path (a map-style dataset that is not a TensorDataset:
rows fetched one by one and stacked by default_collate) and an epoch with two worker
processes (start-up included).
"""

from __future__ import annotations

import numpy as np
from cases import Case

_DATA = np.random.default_rng(0).standard_normal((10000, 32)).astype(np.float32)
_LABELS = np.random.default_rng(1).integers(0, 10, 10000)


def _epoch(shuffle: bool, *, general: bool = False, num_workers: int = 0,
           labels: bool = False):
    def setup(st, torch, np):
        fns = {"numpy": None}
        for name, lib in (("strided", st), ("torch", torch)):
            tensors = [lib.tensor(_DATA)] + ([lib.tensor(_LABELS)] if labels else [])
            ds = lib.utils.data.TensorDataset(*tensors)
            if general:
                ds = _Rows(ds)
            loader = lib.utils.data.DataLoader(ds, batch_size=64, shuffle=shuffle,
                                               num_workers=num_workers)

            def run(loader=loader):
                for _ in loader:
                    pass
            fns[name] = run
        return fns
    return setup


class _Rows:
    """A plain map-style dataset over a TensorDataset (so no TensorDataset fast path)."""

    def __init__(self, ds):
        self.ds = ds

    def __len__(self):
        return len(self.ds)

    def __getitem__(self, i):
        return self.ds[i]


DATA_CASES = [
    Case("data DataLoader epoch 10000x32 b64", _epoch(False), number=3),
    Case("data DataLoader epoch 10000x32 b64 shuffle", _epoch(True), number=3),
    Case("data DataLoader epoch (x, y) b64 shuffle", _epoch(True, labels=True), number=3),
    Case("data DataLoader epoch b64, rows+collate", _epoch(False, general=True), number=1),
    Case("data DataLoader epoch b64, 2 workers", _epoch(True, num_workers=2), number=1),
]
