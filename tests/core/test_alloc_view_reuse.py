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


@pytest.mark.parametrize("make", ["result", "empty_strided", "storage"])
def test_a_numpy_array_made_over_a_dead_tensors_block_keeps_it(make):
    # an array made over the block (an alias tensor's view, base = the raw block) outlives
    # every tensor and the storage: handing the block out again would let the next result
    # write into that array
    _fresh()
    a = strided.ones(4, 4)
    if make == "result":
        c = a + a
        arr = c[1]._array()
    elif make == "empty_strided":
        c = strided.empty_strided((4, 4), (1, 4)).fill_(2.0)
        arr = c.t()[1]._array()
    else:
        c = strided.empty(64, dtype=strided.uint8)
        c.fill_(2)
        arr = c.untyped_storage()._buf[8:12]
    ptr = c.data_ptr()
    del c
    gc.collect()
    assert _CPU.stats()["cached_bytes"] == 0
    others = [a + 5 for _ in range(3)] + [strided.empty(64, dtype=strided.uint8).fill_(9)
                                           for _ in range(3)]
    assert all(o.data_ptr() != ptr for o in others)
    assert arr.tolist() == [2] * 4
    del others


def test_a_block_whose_numpy_arrays_went_first_is_cached():
    _fresh()
    a = strided.ones(4, 4)
    c = a + a
    arr = c[1]._array()
    view_id = id(c._np)
    del arr
    del c
    gc.collect()
    assert _CPU.stats()["cached_bytes"] == 64
    d = a + a                                    # the block and its view again
    assert id(d._np) == view_id
    assert d.tolist() == [[2.0] * 4] * 4


def test_a_result_freed_while_hooks_listen_is_cached_with_its_view():
    _fresh()
    a = strided.ones(4, 4)
    c = a + a
    view_id = id(c._np)
    events = []
    remove = allocator_mod.add_hook(lambda ev, n, p, d: events.append((ev, n)))
    try:
        del c
        assert _CPU.stats()["cached_bytes"] == 64
        d = a + a
    finally:
        remove()
    assert id(d._np) == view_id and events == [("free", 64), ("alloc", 64)]


def test_statistics_through_the_cache_empty_cache_and_peak_reset():
    _fresh()
    a = strided.ones(4, 4)
    strided.reset_peak_memory_stats()
    s0 = _CPU.stats()
    outs = [a + a for _ in range(5)]            # fresh blocks
    del outs                                    # all five cached
    s1 = _CPU.stats()
    assert s1["cached_bytes"] == 5 * 64
    assert s1["allocation.allocated"] == s0["allocation.allocated"] + 5
    assert s1["allocation.freed"] == s0["allocation.freed"] + 5
    assert s1["allocated_bytes.current"] == s0["allocated_bytes.current"]
    assert s1["allocated_bytes.peak"] == s0["allocated_bytes.current"] + 5 * 64
    strided.reset_peak_memory_stats()
    outs = [a * 2.0 for _ in range(3)]          # three from the cache
    s2 = _CPU.stats()
    assert s2["cached_bytes"] == 2 * 64
    assert s2["allocation.allocated"] == s1["allocation.allocated"] + 3
    assert s2["allocation.current"] == s1["allocation.current"] + 3
    assert s2["allocated_bytes.current"] == s0["allocated_bytes.current"] + 3 * 64
    assert s2["allocated_bytes.peak"] == s2["allocated_bytes.current"]
    strided.empty_cache()                        # the two cached blocks go to the system
    s3 = _CPU.stats()
    assert s3["cached_bytes"] == 0
    assert s3["allocation.freed"] == s2["allocation.freed"]
    assert s3["allocated_bytes.current"] == s2["allocated_bytes.current"]
    del outs
    s4 = _CPU.stats()
    assert s4["allocation.freed"] == s2["allocation.freed"] + 3
    assert s4["allocation.current"] == s0["allocation.current"]
    assert s4["allocated_bytes.current"] == s0["allocated_bytes.current"]
    assert s4["cached_bytes"] == 3 * 64
    assert strided.memory_allocated() == s4["allocated_bytes.current"]
    assert strided.max_memory_allocated() == s2["allocated_bytes.peak"]


def test_the_cache_keeps_its_total_limit(monkeypatch):
    _fresh()
    from strided.core import storage as storage_mod
    monkeypatch.setattr(allocator_mod, "CACHE_LIMIT_TOTAL", 128)
    monkeypatch.setattr(storage_mod, "_CACHE_LIMIT_TOTAL", 128)
    a = strided.ones(4, 4)
    before = _CPU.stats()
    outs = [a + a for _ in range(4)]
    del outs
    after = _CPU.stats()
    assert after["cached_bytes"] == 128
    assert after["allocation.freed"] == before["allocation.freed"] + 4
    assert after["allocated_bytes.current"] == before["allocated_bytes.current"]


def test_inference_mode_and_deterministic_fill_on_reused_blocks():
    _fresh()
    a = strided.ones(4, 4)
    c = a + a
    del c
    with strided.inference_mode():
        c = a + a
        assert c.is_inference()
    with pytest.raises(RuntimeError, match="Inplace update to inference tensor"):
        c.add_(1)
    del c
    d = a + a
    assert not d.is_inference() and d._version == 0
    del d
    strided.use_deterministic_algorithms(True)
    try:
        e = strided.empty(4, 4)
        assert bool(e.isnan().all())
    finally:
        strided.use_deterministic_algorithms(False)
