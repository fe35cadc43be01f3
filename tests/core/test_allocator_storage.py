"""Allocators and storages: alignment, statistics, hooks, sharing, resizing, freeing."""

from __future__ import annotations

import gc

import numpy as np
import pytest
import torch
from conftest import assert_same, assert_same_error, check

import strided
from strided.core import allocator as allocator_mod


def _stats():
    gc.collect()
    return strided.memory_stats()


# --------------------------------------------------------------------------- alignment

@pytest.mark.parametrize("n", [0, 1, 2, 3, 7, 8, 15, 16, 17, 31, 63, 64, 65, 100, 127, 1000,
                               4095, 4097, 65535, 65536, 65537, 1 << 20])
@pytest.mark.parametrize("dtype", ["uint8", "float32", "complex128"])
def test_data_ptr_is_64_byte_aligned(n, dtype):
    t = strided.empty(n, dtype=getattr(strided, dtype))
    assert t.untyped_storage().data_ptr() % 64 == 0
    if n:
        assert t.data_ptr() % 64 == 0
    assert t.untyped_storage().nbytes() == n * t.element_size()


def test_alignment_survives_the_cache():
    ptrs = []
    for n in range(1, 200, 7):
        t = strided.zeros(n)
        ptrs.append(t.data_ptr())
        del t
    assert all(p % 64 == 0 for p in ptrs)


def test_data_ptr_is_a_real_address():
    t = strided.arange(10, dtype=strided.int64)
    arr = t.numpy()
    assert arr.__array_interface__["data"][0] == t.data_ptr()
    assert t.as_strided((7,), (1,), 3).data_ptr() == t.data_ptr() + 3 * 8


# --------------------------------------------------------------------------- statistics

def test_stats_keys():
    stats = strided.memory_stats()
    for key in ("allocated_bytes.current", "allocated_bytes.peak", "allocation.allocated",
                "allocation.freed", "allocation.current"):
        assert isinstance(stats[key], int)
    assert strided.memory_allocated() == stats["allocated_bytes.current"]
    assert strided.max_memory_allocated() == stats["allocated_bytes.peak"]


@pytest.mark.parametrize("nbytes", [1, 64, 1000, 1 << 20, (1 << 20) + 3])
def test_alloc_and_free_are_counted(nbytes):
    before = _stats()
    t = strided.empty(nbytes, dtype=strided.uint8)
    during = _stats()
    grown = during["allocated_bytes.current"] - before["allocated_bytes.current"]
    assert nbytes <= grown < nbytes + 64
    assert during["allocation.allocated"] == before["allocation.allocated"] + 1
    assert during["allocation.current"] == before["allocation.current"] + 1
    assert during["allocated_bytes.peak"] >= during["allocated_bytes.current"]
    del t
    after = _stats()
    assert after["allocated_bytes.current"] == before["allocated_bytes.current"]
    assert after["allocation.freed"] == before["allocation.freed"] + 1
    assert after["allocation.current"] == before["allocation.current"]


def test_views_keep_the_storage_alive():
    before = _stats()
    t = strided.zeros(1000, dtype=strided.float64)
    v = t.as_strided((10,), (1,), 10)
    w = t.view(10, 100).t()
    del t
    assert _stats()["allocated_bytes.current"] > before["allocated_bytes.current"]
    del v
    assert _stats()["allocated_bytes.current"] > before["allocated_bytes.current"]
    assert w.tolist()[0][:2] == [0.0, 0.0]
    del w
    after = _stats()
    assert after["allocated_bytes.current"] == before["allocated_bytes.current"]
    assert after["allocation.freed"] == before["allocation.freed"] + 1


def test_storage_reference_keeps_memory():
    before = _stats()
    t = strided.ones(500)
    s = t.untyped_storage()
    del t
    assert _stats()["allocated_bytes.current"] > before["allocated_bytes.current"]
    assert s.nbytes() == 2000
    del s
    assert _stats()["allocated_bytes.current"] == before["allocated_bytes.current"]


def test_peak_and_reset():
    strided.reset_peak_memory_stats()
    base = _stats()
    assert base["allocated_bytes.peak"] == base["allocated_bytes.current"]
    a = strided.empty(1 << 20, dtype=strided.uint8)
    b = strided.empty(1 << 20, dtype=strided.uint8)
    del a, b
    stats = _stats()
    assert stats["allocated_bytes.peak"] >= base["allocated_bytes.current"] + (2 << 20)
    assert stats["allocated_bytes.current"] == base["allocated_bytes.current"]
    strided.reset_peak_memory_stats()
    assert _stats()["allocated_bytes.peak"] == base["allocated_bytes.current"]


def test_temporaries_are_freed():
    before = _stats()
    for _ in range(50):
        strided.ones(100, 10).t().contiguous().clone()
    after = _stats()
    assert after["allocated_bytes.current"] == before["allocated_bytes.current"]
    assert after["allocation.current"] == before["allocation.current"]
    assert after["allocation.allocated"] - before["allocation.allocated"] >= 150


def test_meta_tensors_allocate_nothing():
    before = _stats()
    t = strided.empty(1 << 30, device="meta")
    assert _stats()["allocated_bytes.current"] == before["allocated_bytes.current"]
    assert t.untyped_storage().nbytes() == (1 << 30) * 4
    assert t.untyped_storage().device == strided.device("meta")
    assert t.untyped_storage().data_ptr() == 0


def test_empty_cache():
    t = strided.empty(100)
    del t
    strided.empty_cache()
    assert strided.memory_stats()["cached_bytes"] == 0


# --------------------------------------------------------------------------- hooks

def test_hook_sees_alloc_and_free():
    events = []
    remove = allocator_mod.add_hook(lambda *a: events.append(a))
    try:
        t = strided.empty(300, dtype=strided.uint8)
        ptr = t.data_ptr()
        del t
        gc.collect()
    finally:
        remove()
    kinds = [(e[0], e[2]) for e in events]
    assert ("alloc", ptr) in kinds and ("free", ptr) in kinds
    assert kinds.index(("alloc", ptr)) < kinds.index(("free", ptr))
    alloc_event = next(e for e in events if e[0] == "alloc" and e[2] == ptr)
    assert 300 <= alloc_event[1] < 364
    assert alloc_event[3] == strided.device("cpu")


def test_hook_removed():
    events = []
    remove = allocator_mod.add_hook(lambda *a: events.append(a))
    remove()
    strided.empty(10)
    assert events == []


def test_hook_sees_storage_resize():
    events = []
    t = strided.zeros(4)
    remove = allocator_mod.add_hook(lambda *a: events.append(a[0]))
    try:
        t.untyped_storage().resize_(1000)
    finally:
        remove()
    assert events == ["alloc", "free"]


# --------------------------------------------------------------------------- storages

def test_untyped_storage_shared_by_views():
    def recipe(m):
        t = m.arange(24, dtype=m.float32).view(4, 6)
        views = [t.t(), t.as_strided((6,), (1,), 6), t.as_strided((4, 4), (6, 1), 2),
                 t.view(6, 4), t.view(24).as_strided((21,), (1,), 3)]
        s = t.untyped_storage()
        return ([v.untyped_storage().data_ptr() == s.data_ptr() for v in views],
                [v.data_ptr() - t.data_ptr() for v in views],
                s.nbytes(), s.size(), len(s), s.element_size())
    check(recipe)


def test_storage_contents_and_device():
    check(lambda m: m.tensor([1, 2, 3], dtype=m.int32).untyped_storage().tolist())
    check(lambda m: m.tensor([1, 258], dtype=m.int16).untyped_storage()[2])
    check(lambda m: str(m.ones(2).untyped_storage().device))
    check(lambda m: m.empty(3, device="meta").untyped_storage().nbytes())
    check(lambda m: m.empty(3, device="meta").untyped_storage().data_ptr())
    check(lambda m: m.ones(2).untyped_storage().is_cuda)


def test_storage_constructor():
    check(lambda m: (m.UntypedStorage(10).nbytes(), str(m.UntypedStorage(10).device)))
    check(lambda m: m.UntypedStorage(0).nbytes())
    assert strided.UntypedStorage(100).data_ptr() % 64 == 0


@pytest.mark.parametrize("new", [0, 4, 24, 40, 1000])
def test_storage_resize_keeps_prefix(new):
    def recipe(m):
        t = m.arange(6, dtype=m.int32)
        s = t.untyped_storage()
        s.resize_(new)
        out = [s.nbytes()]
        if new >= 24:
            out.append(t.clone())  # the tensor reads the (moved) prefix
        out.append(s.tolist()[:min(new, 24)])
        return tuple(out)
    check(recipe)


def test_storage_resize_moves_data_and_views_follow():
    t = strided.arange(6, dtype=strided.int64)
    v = t.as_strided((4,), (1,), 2)
    t.untyped_storage().resize_(1 << 16)
    tt = torch.arange(6)
    assert_same(v, tt.as_strided((4,), (1,), 2))
    assert_same(t, tt)
    assert v.data_ptr() == t.data_ptr() + 16
    t.fill_(7)
    assert v.tolist() == [7, 7, 7, 7]


def test_storage_resize_not_resizable():
    check(lambda m: m.from_numpy(np.arange(4.0)).untyped_storage().resize_(100))


def test_storage_resize_frees_old_block():
    t = strided.zeros(1 << 18, dtype=strided.uint8)
    before = _stats()
    t.untyped_storage().resize_(1 << 19)
    after = _stats()
    assert after["allocated_bytes.current"] - before["allocated_bytes.current"] == 1 << 18
    assert after["allocation.freed"] == before["allocation.freed"] + 1


def test_from_numpy_storage_has_no_allocator_traffic():
    a = np.arange(1000.0)
    before = _stats()
    t = strided.from_numpy(a)
    assert t.untyped_storage().data_ptr() == a.__array_interface__["data"][0]
    assert t.untyped_storage().nbytes() == a.nbytes
    del t
    after = _stats()
    assert after["allocation.allocated"] == before["allocation.allocated"]
    assert after["allocated_bytes.current"] == before["allocated_bytes.current"]


def test_storage_cpu_to_and_clone_like_torch():
    def run(m):
        s = m.arange(6, dtype=m.float32).untyped_storage()
        c = s.clone()
        c[0] = 7
        return (s.cpu() is s, s.to(device="cpu") is s, c.data_ptr() != s.data_ptr(),
                str(c.device), c.nbytes(), s[0], c[0])
    assert run(strided) == run(torch)


def test_meta_storage_cannot_be_copied_out_like_torch():
    assert_same_error(lambda: strided.empty(3, device="meta").untyped_storage().cpu(),
                      lambda: torch.empty(3, device="meta").untyped_storage().cpu())


def test_load_with_a_map_location_that_moves_storages(tmp_path):
    path = tmp_path / "t.pt"
    torch.save({"w": torch.arange(4.0)}, path)
    loaded = strided.load(path, map_location=lambda storage, location: storage.cpu())
    assert loaded["w"].tolist() == [0.0, 1.0, 2.0, 3.0]
