"""strided.utils.data.DataLoader against torch's: batches, seeds (shuffle, worker seeds),
worker processes, errors, shutdown.

A hang must fail, not block: every test runs under a faulthandler watchdog that dumps
the stacks and exits the process after WATCHDOG_S seconds.
"""

from __future__ import annotations

import faulthandler
import gc
import importlib
import os
import random
import time

import numpy as np
import pytest
import torch
from conftest import assert_same_result, check, hyp
from hypothesis import given
from hypothesis import strategies as st

import strided

WATCHDOG_S = 120


@pytest.fixture(autouse=True)
def watchdog():
    faulthandler.dump_traceback_later(WATCHDOG_S, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()


def D(m):
    return m.utils.data


def lib(name):
    return importlib.import_module(name)


# Datasets at module level, parametrised by the library's name, so that they pickle for
# 'spawn' workers.

class Rows(strided.utils.data.Dataset):
    """Sample i: (row i of a fixed float table, i); works with either library."""

    def __init__(self, libname, n=23):
        self.libname = libname
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        m = lib(self.libname)
        return m.arange(3, dtype=m.float32) + 10 * i, i


class SeedProbe(strided.utils.data.Dataset):
    """Sample i reports what the worker's RNGs give: strided/torch, random, numpy,
    and the worker info (id, num_workers, seed), plus what worker_init_fn stored."""

    def __init__(self, libname, n=12):
        self.libname = libname
        self.n = n
        self.init_seed = None

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        m = lib(self.libname)
        info = D(m).get_worker_info()
        winfo = None if info is None else (info.id, info.num_workers, info.seed,
                                           info.dataset is self)
        return {"i": i, "t": m.rand(2), "py": random.random(), "np": float(np.random.rand()),
                "info": str(winfo), "init": str(self.init_seed)}


def record_init_seed(worker_id):
    for m in (strided, torch):
        info = D(m).get_worker_info()
        if info is not None:
            assert info.id == worker_id
            info.dataset.init_seed = (worker_id, info.seed)


class _Stream:
    """range(n), split between workers by get_worker_info when split=True."""

    def __init__(self, libname, n=10, split=True, length=None):
        self.libname, self.n, self.split, self.length = libname, n, split, length

    def __iter__(self):
        info = D(lib(self.libname)).get_worker_info()
        if info is None or not self.split:
            return iter(range(self.n))
        return iter(range(info.id, self.n, info.num_workers))

    def __len__(self):
        if self.length is None:
            raise TypeError("no len")
        return self.length

    def __repr__(self):
        return f"Stream({self.n})"  # the length warning shows it


class _StridedStream(_Stream, strided.utils.data.IterableDataset):
    pass


class _TorchStream(_Stream, torch.utils.data.IterableDataset):
    pass


def Stream(libname, *args, **kwargs):
    cls = _StridedStream if libname == "strided" else _TorchStream
    return cls(libname, *args, **kwargs)


class Failing(strided.utils.data.Dataset):
    def __init__(self, exc=ValueError, at=3):
        self.exc, self.at = exc, at

    def __len__(self):
        return 8

    def __getitem__(self, i):
        if i == self.at:
            raise self.exc("bad sample 3")
        return i


class Slow(strided.utils.data.Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        time.sleep(1)
        return i


class Dies(strided.utils.data.Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        os._exit(1)


def plain(x):
    """A batch as plain Python: tensors become (dtype, shape, values)."""
    if isinstance(x, (strided.Tensor, torch.Tensor)):
        return (str(x.dtype).removeprefix("torch."), tuple(x.shape), x.tolist())
    if isinstance(x, dict):
        return {k: plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return type(x)(plain(v) for v in x)
    return x


def epochs(m, dataset, n_epochs=1, seed=0, **kwargs):
    m.manual_seed(seed)
    random.seed(seed)
    np.random.seed(seed)
    loader = D(m).DataLoader(dataset, **kwargs)
    out = [[plain(b) for b in loader] for _ in range(n_epochs)]
    return out, plain(m.rand(2))  # and where the default generator ended


def both(make_dataset, **kwargs):
    rs = epochs(strided, make_dataset("strided"), **kwargs)
    rt = epochs(torch, make_dataset("torch"), **kwargs)
    assert rs == rt
    return rs


# --------------------------------------------------------------------------- batches

@pytest.mark.parametrize("kwargs", [
    {}, {"batch_size": 5}, {"batch_size": 5, "drop_last": True},
    {"batch_size": 4, "shuffle": True}, {"batch_size": 4, "shuffle": True, "drop_last": True},
    {"batch_size": None}, {"batch_size": None, "shuffle": True},
    {"batch_size": 6, "shuffle": False, "n_epochs": 2},
    {"batch_size": 3, "shuffle": True, "n_epochs": 3},
])
def test_batches_single_process(kwargs):
    both(Rows, **kwargs)


def test_shuffle_with_generator():
    def run(m):
        g = m.Generator().manual_seed(99)
        loader = D(m).DataLoader(Rows(m.__name__), batch_size=4, shuffle=True, generator=g)
        return [[plain(b) for b in loader] for _ in range(2)], plain(m.rand(2))
    assert run(strided) == run(torch)


def test_samplers_in_loader():
    def run(m):
        m.manual_seed(4)
        ds = Rows(m.__name__)
        wsampler = D(m).WeightedRandomSampler([1.0] * 20 + [5.0] * 3, 15)
        bs = D(m).BatchSampler(D(m).RandomSampler(ds, replacement=True, num_samples=17), 4,
                               False)
        return ([plain(b) for b in D(m).DataLoader(ds, batch_size=4, sampler=wsampler)],
                [plain(b) for b in D(m).DataLoader(ds, batch_sampler=bs)],
                [plain(b) for b in D(m).DataLoader(ds, sampler=[3, 1, 2], batch_size=2)],
                [plain(b) for b in D(m).DataLoader(ds, batch_sampler=[[0, 2], [5]])])
    assert run(strided) == run(torch)


def test_tensor_dataset_loader():
    """The TensorDataset fast path gives what stacking the rows gives (values, dtype,
    shape, strides), and falls back where it must."""
    def run(m):
        m.manual_seed(1)
        x = m.randn(50, 4)
        y = m.randint(0, 10, (50,))
        out = []
        for kwargs in ({"batch_size": 8}, {"batch_size": 8, "shuffle": True},
                       {"batch_size": 7, "drop_last": True}, {"batch_size": None},
                       {"sampler": [-1, 3, 49], "batch_size": 2}):
            for xb, yb in D(m).DataLoader(D(m).TensorDataset(x, y), **kwargs):
                out.append((xb, yb))
        # random_split's Subsets take the same path
        train, val = D(m).random_split(D(m).TensorDataset(x, y), [0.8, 0.2])
        for part in (train, val):
            for xb, yb in D(m).DataLoader(part, batch_size=16, shuffle=True):
                out.append((xb, yb))
        out.append(list(D(m).DataLoader(D(m).Subset(D(m).TensorDataset(x), [1, -1, 2]),
                                        batch_size=3)))
        # a non-contiguous tensor and one that requires grad go the general way
        xt = m.randn(4, 20).t()
        w = m.randn(20, 2, requires_grad=True)
        for xb, wb in D(m).DataLoader(D(m).TensorDataset(xt, w), batch_size=6):
            out.append((xb, wb.detach(), wb.requires_grad))
        return out
    assert_same_result(run(strided), run(torch))
    check(lambda m: list(D(m).DataLoader(D(m).TensorDataset(m.ones(3, 2)),
                                         sampler=[0, 3], batch_size=2)))
    check(lambda m: list(D(m).DataLoader(D(m).Subset(D(m).TensorDataset(m.ones(3, 2)), [0, 1]),
                                         sampler=[0, 2], batch_size=2)))
    check(lambda m: list(D(m).DataLoader(D(m).Subset(D(m).TensorDataset(m.ones(3, 2)), [0, 5]),
                                         batch_size=2)))


def test_custom_collate_and_batch_size_none():
    def run(m):
        ds = Rows(m.__name__, 6)
        return ([plain(b) for b in D(m).DataLoader(ds, batch_size=4, collate_fn=lambda b: len(b))],
                [plain(b) for b in D(m).DataLoader(ds, batch_size=None)],
                [plain(b) for b in D(m).DataLoader(list(range(5)), batch_size=2)],
                [plain(b) for b in D(m).DataLoader([np.float32(1), np.float32(2)],
                                                   batch_size=None)])
    assert run(strided) == run(torch)


@pytest.mark.parametrize("kwargs", [
    {"batch_size": 4}, {"batch_size": 4, "shuffle": True},
    {"batch_size": 5, "shuffle": True, "drop_last": True, "n_epochs": 2},
    {"batch_size": None, "shuffle": True},
])
def test_batches_two_workers(kwargs):
    both(Rows, num_workers=2, **kwargs)


def test_worker_sends_views_compactly():
    """Unbatched rows of a big table come back from workers with their values, not with
    the whole table's storage."""
    def run(m):
        m.manual_seed(0)
        ds = D(m).TensorDataset(m.randn(3000, 8), m.arange(3000))
        out = list(D(m).DataLoader(ds, batch_size=None, num_workers=2, sampler=[5, 2999]))
        return out
    rs, rt = run(strided), run(torch)
    assert plain(rs) == plain(rt)
    for x, y in rs:
        assert x.untyped_storage().nbytes() == 32 and y.untyped_storage().nbytes() == 8


def test_persistent_workers_and_prefetch():
    both(Rows, num_workers=2, batch_size=4, shuffle=True, persistent_workers=True,
         n_epochs=3, prefetch_factor=1)


def test_spawn_context():
    from _data_spawn_rows import SpawnRows
    rs = epochs(strided, SpawnRows(), num_workers=2, batch_size=5, shuffle=True,
                multiprocessing_context="spawn")
    # the start method changes nothing in what comes out: torch's with fork workers
    rt = epochs(torch, Rows("torch"), num_workers=2, batch_size=5, shuffle=True)
    assert rs == rt


def test_out_of_order():
    def run(m):
        m.manual_seed(0)
        loader = D(m).DataLoader(Rows(m.__name__), batch_size=3, shuffle=True, num_workers=2,
                                 in_order=False)
        return sorted(plain(b)[1][2] for b in loader)
    assert run(strided) == run(torch)


# --------------------------------------------------------------------------- seeds

@pytest.mark.parametrize("num_workers", [0, 2])
def test_worker_seeds(num_workers):
    """Each worker's seeds (strided/torch, random, NumPy) and info equal torch's."""
    kwargs = {"num_workers": num_workers, "batch_size": 2, "shuffle": True}
    if num_workers:
        kwargs["worker_init_fn"] = record_init_seed
    (batches,), _ = both(SeedProbe, seed=1234, **kwargs)
    infos = {b["info"][0] for b in batches} if num_workers else set()
    assert len(infos) == num_workers  # every worker answered


def test_base_seed_with_generator():
    def run(m):
        g = m.Generator().manual_seed(5)
        loader = D(m).DataLoader(SeedProbe(m.__name__, 4), num_workers=2, generator=g,
                                 batch_size=2)
        return [plain(b) for b in loader]
    assert run(strided) == run(torch)


def test_numpy_seed_matches_torch_generate_state():
    from torch.utils.data._utils.worker import _generate_state

    from strided.utils.data._utils.worker import _numpy_seed
    rng = random.Random(0)
    for _ in range(50):
        base = rng.getrandbits(63)
        wid = rng.randrange(64)
        assert list(_numpy_seed(base, wid)) == _generate_state(base, wid)


# --------------------------------------------------------------------------- iterable datasets

@pytest.mark.parametrize("kwargs", [
    {"batch_size": 3}, {"batch_size": 3, "drop_last": True}, {"batch_size": None},
    {"batch_size": 3, "num_workers": 2}, {"batch_size": None, "num_workers": 2},
    {"batch_size": 4, "drop_last": True, "num_workers": 2},
])
def test_iterable_dataset(kwargs):
    both(lambda name: Stream(name, 11), **kwargs)
    both(lambda name: Stream(name, 5, split=False), **kwargs)


def test_iterable_dataset_persistent_workers():
    both(lambda name: Stream(name, 9), num_workers=2, batch_size=2, persistent_workers=True,
         n_epochs=2)


@hyp(15)
@given(n=st.integers(1, 40), batch=st.integers(1, 12), shuffle=st.booleans(),
       drop_last=st.booleans(), seed=st.integers(0, 2**32 - 1), epochs_=st.integers(1, 2))
def test_batches_property(n, batch, shuffle, drop_last, seed, epochs_):
    both(lambda name: Rows(name, n), batch_size=batch, shuffle=shuffle, drop_last=drop_last,
         seed=seed, n_epochs=epochs_)


def test_iterable_dataset_len_warning():
    def run(m):
        loader = D(m).DataLoader(Stream(m.__name__, 6, length=2), batch_size=None)
        n = len(loader)
        return [n, [plain(b) for b in loader]]
    check(run)

    def run_batched(m):
        loader = D(m).DataLoader(Stream(m.__name__, 6, length=4), batch_size=3)
        return [len(loader), [plain(b) for b in loader],
                len(D(m).DataLoader(Stream(m.__name__, 6, length=5), batch_size=2,
                                    drop_last=True))]
    check(run_batched)


def test_iterable_dataset_errors():
    check(lambda m: D(m).DataLoader(Stream(m.__name__), shuffle=True))
    check(lambda m: D(m).DataLoader(Stream(m.__name__), sampler=[1]))
    check(lambda m: D(m).DataLoader(Stream(m.__name__), batch_sampler=[[1]]))
    check(lambda m: len(D(m).DataLoader(Stream(m.__name__))))


# --------------------------------------------------------------------------- arguments

def test_argument_errors():
    ds = list(range(10))
    cases = [
        {"num_workers": -1}, {"timeout": -1}, {"prefetch_factor": 2},
        {"num_workers": 1, "prefetch_factor": -1}, {"persistent_workers": True},
        {"sampler": [1], "shuffle": True}, {"batch_sampler": [[1]], "batch_size": 2},
        {"batch_sampler": [[1]], "shuffle": True}, {"batch_sampler": [[1]], "drop_last": True},
        {"batch_sampler": [[1]], "sampler": [1]}, {"batch_size": None, "drop_last": True},
        {"multiprocessing_context": "fork"}, {"num_workers": 1, "multiprocessing_context": "x"},
        {"num_workers": 1, "multiprocessing_context": 3}, {"batch_size": 0},
        {"batch_size": 2, "drop_last": 1},
    ]
    for kwargs in cases:
        check(lambda m, kwargs=kwargs: D(m).DataLoader(ds, **kwargs))


def test_attributes_and_len():
    def run(m):
        ds = list(range(10))
        dl = D(m).DataLoader(ds, batch_size=3, num_workers=1, multiprocessing_context="spawn")
        dl2 = D(m).DataLoader(ds, batch_size=3, drop_last=True)
        dl3 = D(m).DataLoader(ds, batch_size=None)
        return [len(dl), len(dl2), len(dl3), dl.batch_size, dl.drop_last, dl.num_workers,
                dl.prefetch_factor, dl.timeout, dl.pin_memory, dl.persistent_workers,
                dl.in_order, type(dl.sampler).__name__, type(dl.batch_sampler).__name__,
                dl.collate_fn.__name__, dl3.collate_fn.__name__, dl3.batch_sampler,
                dl.multiprocessing_context.get_start_method(), len(iter(dl2))]
    check(run)
    for attr in ("batch_size", "sampler", "batch_sampler", "drop_last", "dataset",
                 "persistent_workers"):
        check(lambda m, attr=attr: setattr(D(m).DataLoader([1]), attr, None))
    check(lambda m: setattr(D(m).DataLoader([1]), "timeout", 3))


def test_warnings():
    check(lambda m: [plain(b) for b in D(m).DataLoader([1, 2], pin_memory=True)])
    check(lambda m: [plain(b) for b in D(m).DataLoader([1, 2], pin_memory=True,
                                                        pin_memory_device="cuda")])
    check(lambda m: D(m).DataLoader([1, 2], num_workers=1000).num_workers)


# --------------------------------------------------------------------------- failures

def _raised(m, dataset, **kwargs):
    it = iter(D(m).DataLoader(dataset, **kwargs))
    try:
        for _ in it:
            pass
    except Exception as e:  # noqa: BLE001
        return e
    finally:
        # the exception's traceback holds the iterator in a cycle; shut its workers down
        # now rather than in some later test's garbage collection (torch's then waits
        # 5 s for each, see Note [Exit without the final None])
        if hasattr(it, "_shutdown_workers"):
            it._shutdown_workers()
    raise AssertionError("no exception")


def test_worker_exception_reraised():
    es = _raised(strided, Failing(), num_workers=2, batch_size=2)
    et = _raised(torch, Failing(), num_workers=2, batch_size=2)
    assert type(es) is type(et) is ValueError
    head = "Caught ValueError in DataLoader worker process 1.\nOriginal Traceback " \
           "(most recent call last):\n"
    assert str(es).startswith(head) and str(et).startswith(head)
    assert 'raise self.exc("bad sample 3")' in str(es)
    assert str(es).rstrip().splitlines()[-1] == str(et).rstrip().splitlines()[-1] == \
        "ValueError: bad sample 3"


class NeedsTwoArgs(Exception):
    def __init__(self, a, b):
        super().__init__(a, b)


@pytest.mark.parametrize("exc", [KeyError, IndexError, NeedsTwoArgs])
def test_worker_exception_types(exc):
    # (strided only: torch's side of these is the same code path as the test above)
    es = _raised(strided, Failing(exc if exc is not NeedsTwoArgs else
                                  lambda msg: NeedsTwoArgs(msg, 1), at=0),
                 num_workers=1, batch_size=2)
    expected = RuntimeError if exc is NeedsTwoArgs else exc
    assert type(es) is expected
    text = es.args[0]
    assert text.startswith(f"Caught {exc.__name__} in DataLoader worker process 0.\n"
                           "Original Traceback (most recent call last):\n")
    if exc is KeyError:
        assert str(es) == text  # shown as is, not as the repr of a string


def test_single_process_exception_is_plain():
    check(lambda m: list(D(m).DataLoader(Failing(), batch_size=2)))


def _bad_init(worker_id):
    raise RuntimeError(f"init failed in {worker_id}")


def test_worker_init_fn_exception():
    es = _raised(strided, list(range(4)), num_workers=1, worker_init_fn=_bad_init)
    assert type(es) is RuntimeError
    assert str(es).startswith("Caught RuntimeError in DataLoader worker process 0.\n")
    assert str(es).rstrip().splitlines()[-1] == "RuntimeError: init failed in 0"


def test_timeout():
    es, et = (_raised(m, Slow(), num_workers=1, timeout=0.3) for m in (strided, torch))
    assert type(es) is type(et) is RuntimeError
    assert str(es) == str(et) == "DataLoader timed out after 0.3 seconds"


def _unpicklable_collate(batch):
    return lambda: batch


class _RaisesUnpicklable(strided.utils.data.Dataset):
    def __len__(self):
        return 2

    def __getitem__(self, i):
        class Local(Exception):
            pass
        raise Local("local")


def test_unpicklable_results_raise_instead_of_hanging():
    es = _raised(strided, [1, 2], num_workers=1, collate_fn=_unpicklable_collate)
    assert type(es) is AttributeError
    assert str(es).startswith("Caught AttributeError in DataLoader worker process 0.")
    assert "Can't pickle local object" in str(es)

    es = _raised(strided, _RaisesUnpicklable(), num_workers=1)
    assert type(es) is RuntimeError
    assert str(es).startswith("Caught RuntimeError in DataLoader worker process 0.")
    assert str(es).rstrip().endswith("Local: local")


def test_timeout_needs_workers():
    check(lambda m: iter(D(m).DataLoader([1], timeout=1.0)))


def test_unpicklable_dataset_with_spawn():
    ds = [lambda: 0]  # a lambda does not pickle
    loader = D(strided).DataLoader(ds, num_workers=1, multiprocessing_context="spawn")
    with pytest.warns(UserWarning, match="Got pickle error when attempting to start a "
                                         "worker Process"):
        with pytest.raises(AttributeError, match="Can't pickle local object"):
            iter(loader)


def test_worker_dies():
    es = _raised(strided, Dies(), num_workers=1)
    assert type(es) is RuntimeError
    assert str(es).startswith("DataLoader worker (pid(s) ") and \
        str(es).endswith(") exited unexpectedly")


def _alive(workers):
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(w.is_alive() for w in workers):
        time.sleep(0.05)
    return [w for w in workers if w.is_alive()]


def test_early_break_and_gc_shut_workers_down():
    loader = D(strided).DataLoader(Rows("strided", 200), batch_size=2, num_workers=2)
    it = iter(loader)
    next(it)
    workers = list(it._workers)
    del it
    gc.collect()
    assert not _alive(workers)
    for w in workers:
        assert w.exitcode is not None  # reaped: no zombie

    it = iter(loader)
    workers = list(it._workers)
    for i, _ in enumerate(it):  # the usual `break` out of a for loop
        if i == 2:
            break
    del it  # (a for loop over the loader itself drops it at the break)
    assert not _alive(workers)


def test_workers_shut_down_after_error_and_epoch():
    loader = D(strided).DataLoader(Failing(), batch_size=2, num_workers=2)
    it = iter(loader)
    workers = list(it._workers)
    with pytest.raises(ValueError):
        for _ in it:
            pass
    del it
    gc.collect()
    assert not _alive(workers)

    it = iter(D(strided).DataLoader(list(range(5)), num_workers=2))
    workers = list(it._workers)
    assert [b.item() for b in it] == list(range(5))
    assert not _alive(workers)  # the epoch's end shuts them down


def test_persistent_workers_survive_epochs():
    loader = D(strided).DataLoader(list(range(6)), num_workers=2, batch_size=2,
                                   persistent_workers=True)
    assert [b.tolist() for b in loader] == [[0, 1], [2, 3], [4, 5]]
    workers = list(loader._iterator._workers)
    assert all(w.is_alive() for w in workers)
    assert [b.tolist() for b in loader] == [[0, 1], [2, 3], [4, 5]]
    assert list(loader._iterator._workers) == workers
    loader._iterator._shutdown_workers()
    assert not _alive(workers)


def test_iterator_not_picklable():
    import pickle
    check(lambda m: pickle.dumps(iter(D(m).DataLoader([1]))))
