"""Note [Reusing the NumPy view] and Note [Freeing without a call]: a fresh row-major result
reuses a cached block together with its typed NumPy view, only when nothing else can still
read that view; statistics, hooks and results stay those of a plain allocate/free."""

from __future__ import annotations

import gc

import numpy as np
import pytest
import torch
from conftest import assert_same, check

import strided
from strided.core import allocator as allocator_mod

_CPU = allocator_mod.get_allocator("cpu")


def _fresh():
    gc.collect()
    strided.empty_cache()


def test_result_reuses_block_and_view_with_same_values_as_torch():
    def recipe(lib):
        a = lib.arange(16, dtype=lib.float32).reshape(4, 4)
        b = lib.full((4, 4), 0.5)
        outs = []
        for _ in range(3):
            c = a + b
            outs.append(c.clone())
            del c
        d = a * 2.0
        return outs, d, d.stride(), d.neg(), lib.empty(4, 4).fill_(3).stride()

    check(recipe)


def test_view_is_reused_only_for_the_same_sizes_and_dtype():
    _fresh()
    a = strided.ones(4, 4)
    c = a + a
    view_id = id(c._np)
    del c
    c = a + a                                 # same block, same view
    assert id(c._np) == view_id
    del c
    d = strided.ones(2, 8) + 1                # same 64 bytes, other sizes: a new view
    assert d._np.shape == (2, 8) and d.shape == (2, 8)
    assert_same(d, torch.ones(2, 8) + 1)
    del d
    e = strided.ones(16, dtype=strided.int32) + 1       # other dtype: a new view
    assert e._np.dtype == np.int32
    assert_same(e, torch.ones(16, dtype=torch.int32) + 1)


@pytest.mark.parametrize("hold", ["array", "numpy", "dlpack", "view"])
def test_a_block_still_read_elsewhere_is_not_recycled(hold):
    _fresh()
    a = strided.ones(4, 4)
    c = a + a
    keep = {"array": lambda t: t._array(), "numpy": lambda t: t.numpy(),
            "dlpack": lambda t: np.from_dlpack(t), "view": lambda t: t.view(16)}[hold](c)
    ptr = c.data_ptr()
    del c
    gc.collect()
    assert _CPU.stats()["cached_bytes"] == 0
    others = [a + 1 for _ in range(4)]
    assert all(o.data_ptr() != ptr for o in others)
    assert np.asarray(keep.numpy() if hold == "view" else keep).ravel().tolist() == [2.0] * 16
    del others


def test_statistics_match_a_plain_allocate_and_free():
    _fresh()
    a = strided.ones(4, 4)
    before = _CPU.stats()
    c = a + a
    mid = _CPU.stats()
    assert mid["allocation.allocated"] == before["allocation.allocated"] + 1
    assert mid["allocated_bytes.current"] == before["allocated_bytes.current"] + 64
    del c
    after = _CPU.stats()
    assert after["allocation.freed"] == before["allocation.freed"] + 1
    assert after["allocated_bytes.current"] == before["allocated_bytes.current"]
    assert after["cached_bytes"] == 64
    c = a + a                                    # from the cache: counted as an allocation
    again = _CPU.stats()
    assert again["allocation.allocated"] == mid["allocation.allocated"] + 1
    assert again["allocated_bytes.current"] == mid["allocated_bytes.current"]
    assert again["cached_bytes"] == 0
    assert c.tolist() == [[2.0] * 4] * 4


def test_hooks_see_cached_allocations_and_frees():
    _fresh()
    a = strided.ones(4, 4)
    c = a + a
    del c                                        # the block is now cached
    events = []
    remove = allocator_mod.add_hook(lambda ev, n, p, d: events.append((ev, n)))
    try:
        c = a + a
        del c
        e = strided.empty(4, 4)
        del e
    finally:
        remove()
    assert events == [("alloc", 64), ("free", 64), ("alloc", 64), ("free", 64)]


def test_empty_gets_its_view_and_resize_drops_it():
    _fresh()
    t = strided.empty(4, 4)
    t.fill_(1.5)
    assert t._np is not None and t.stride() == (4, 1)
    s = t.untyped_storage()
    s.resize_(32)
    with pytest.raises(RuntimeError, match="out of bounds for storage of size 32"):
        t.sum()
    del t, s
    gc.collect()
    u = strided.empty(4, 4)
    assert u.untyped_storage().nbytes() == 64
    assert_same(strided.empty(2, 3, memory_format=strided.contiguous_format).fill_(2),
                torch.empty(2, 3, memory_format=torch.contiguous_format).fill_(2))
    assert_same(strided.empty(2, 3, 2, 2, memory_format=strided.channels_last).fill_(2),
                torch.empty(2, 3, 2, 2, memory_format=torch.channels_last).fill_(2))


def test_reused_results_pickle_and_deepcopy():
    import copy
    import pickle

    _fresh()
    a = strided.arange(16.0).reshape(4, 4)
    c = a + 1
    del c
    c = a + 1
    assert_same(pickle.loads(pickle.dumps(c)), torch.arange(16.0).reshape(4, 4) + 1)
    assert_same(copy.deepcopy(c), torch.arange(16.0).reshape(4, 4) + 1)
