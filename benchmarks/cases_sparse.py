"""Benchmark cases for the sparse layouts (issue 16's speed targets), timed with one
thread for both libraries: ``CSR (4096 x 4096, 1% density, float32) @ dense (4096 x 64)``
(target: strided/torch <= 1.5). The same matrix is built from one NumPy array in each
library; the NumPy column is SciPy's ``csr_matrix @ ndarray`` when SciPy is present."""

from __future__ import annotations

import numpy as np
from cases import Case

SPARSE_CASES: list = []


def _matmul_of(a, b):
    return lambda: a @ b


def _csr_mm_setup(st, torch, np_):
    rng = np.random.default_rng(0)
    n, k = 4096, 64
    dense = rng.random((n, n), dtype=np.float32)
    dense *= rng.random((n, n), dtype=np.float32) < 0.01
    rhs = rng.random((n, k), dtype=np.float32)
    fns = {}
    for name, lib in (("strided", st), ("torch", torch)):
        a = lib.tensor(dense).to_sparse_csr()
        b = lib.tensor(rhs)
        fns[name] = _matmul_of(a, b)
    try:
        import scipy.sparse as sp
        m = sp.csr_matrix(dense)
        fns["numpy"] = lambda: m @ rhs
    except ImportError:
        fns["numpy"] = None
    return fns


SPARSE_CASES.append(Case("sparse CSR(4096x4096, 1%) @ dense(4096x64) float32", _csr_mm_setup,
                         number=50))


def _coalesce_setup(st, torch, np_):
    """``coalesce`` of 1M COO entries (2-d, 100k x 100k, about 0.1% duplicates, random
    order); NumPy's column is the same sort + reduce done with ``np.unique``."""
    rng = np.random.default_rng(0)
    nnz, n = 1_000_000, 100_000
    idx = np.stack([rng.integers(0, n, nnz), rng.integers(0, n // 2000, nnz) * 2000 +
                    rng.integers(0, 2000, nnz)])
    vals = rng.random(nnz, dtype=np.float32)
    fns = {}
    for name, lib in (("strided", st), ("torch", torch)):
        s = lib.sparse_coo_tensor(lib.tensor(idx), lib.tensor(vals), (n, n))
        fns[name] = s.coalesce

    def numpy_coalesce():
        lin = idx[0] * n + idx[1]
        uniq, inv = np.unique(lin, return_inverse=True)
        return uniq, np.bincount(inv, weights=vals)
    fns["numpy"] = numpy_coalesce
    return fns


SPARSE_CASES.append(Case("sparse COO coalesce, 1M entries float32", _coalesce_setup, number=5))
