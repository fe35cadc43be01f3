"""DataLoader: batches from a dataset, in the main process or in worker processes.

Note [DataLoader seeds]: each iterator draws ``_base_seed`` with
``empty((), int64).random_(generator=loader.generator)`` when it is created, before
the sampler draws anything (the samplers draw lazily, on the first index), exactly as
torch's iterator does; worker ``i`` then seeds with ``base_seed + i``. So after the same
``manual_seed`` the shuffle order and every worker's seed equal torch's.

Worker processes (``num_workers > 0``): each has its own index queue; all share one
result queue. Up to ``prefetch_factor * num_workers`` tasks are outstanding; tasks go
to the workers round-robin, and results are handed out in task order (``in_order``)
or as they come. Workers are told to exit (``None`` on their queue) when the epoch
ends, when the iterator is garbage collected (e.g. after ``break``), or when an error
is raised in the main process; ones that do not exit in time are terminated.
"""

from __future__ import annotations

import atexit
import itertools
import math
import multiprocessing
import os
import pickle
import queue
import warnings
from collections.abc import Callable, Iterable
from typing import Any, Generic, TypeVar

import strided

from . import _utils  # noqa: F401  (torch code reaches dataloader._utils)
from ._utils.collate import default_collate, default_convert
from ._utils.fetch import make_fetcher
from ._utils.worker import (
    MP_STATUS_CHECK_INTERVAL,
    ExceptionWrapper,
    _IterableDatasetStopIteration,
    _ResumeIteration,
    _worker_loop,
    get_worker_info,
)
from .dataset import Dataset, IterableDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ["DataLoader", "get_worker_info", "default_collate", "default_convert"]

T_co = TypeVar("T_co", covariant=True)

# Set when the interpreter starts shutting down: module globals may be gone by then,
# so iterators collected at exit only terminate their (daemonic) workers.
_python_exiting = False


def _mark_exiting() -> None:
    global _python_exiting
    _python_exiting = True


atexit.register(_mark_exiting)


class _DatasetKind:
    Map = 0
    Iterable = 1

    @staticmethod
    def create_fetcher(kind, dataset, auto_collation, collate_fn, drop_last):
        return make_fetcher(kind, dataset, auto_collation, collate_fn, drop_last)


class _InfiniteConstantSampler(Sampler):
    """The index sampler of an iterable dataset: the fetcher ignores the indices."""

    def __iter__(self):
        while True:
            yield None


def _cpu_count() -> int | None:
    if hasattr(os, "sched_getaffinity"):
        try:
            return len(os.sched_getaffinity(0))
        except Exception:
            pass
    return os.cpu_count()


class DataLoader(Generic[T_co]):
    """Iterates over ``dataset`` in batches.

    Map-style datasets are read in the order of ``sampler`` (sequential, or a
    :class:`RandomSampler` with ``shuffle=True``), grouped by ``batch_size`` (or by
    ``batch_sampler``) and joined by ``collate_fn`` (:func:`default_collate`;
    :func:`default_convert` when ``batch_size=None``). Iterable datasets are read as
    streams. ``num_workers > 0`` loads in that many worker processes (``'fork'`` by
    default on Linux; ``multiprocessing_context`` picks another start method).
    ``pin_memory`` is accepted; there is no accelerator memory to pin.

    >>> ds = TensorDataset(strided.arange(5))
    >>> [b[0].tolist() for b in DataLoader(ds, batch_size=2)]
    [[0, 1], [2, 3], [4]]
    """

    __initialized = False

    def __init__(self, dataset: Dataset[T_co], batch_size: int | None = 1,
                 shuffle: bool | None = None, sampler: Sampler | Iterable | None = None,
                 batch_sampler: Sampler | Iterable | None = None, num_workers: int = 0,
                 collate_fn: Callable | None = None, pin_memory: bool = False,
                 drop_last: bool = False, timeout: float = 0,
                 worker_init_fn: Callable[[int], None] | None = None,
                 multiprocessing_context=None, generator=None, *,
                 prefetch_factor: int | None = None, persistent_workers: bool = False,
                 pin_memory_device: str = "", in_order: bool = True) -> None:
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; "
                             "use num_workers=0 to disable multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError(
                "prefetch_factor option could only be specified in multiprocessing."
                "let num_workers > 0 to enable multiprocessing, otherwise set "
                "prefetch_factor to None.")
        if num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        elif prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError("prefetch_factor option should be non-negative")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")

        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.in_order = in_order

        if isinstance(dataset, IterableDataset):
            self._dataset_kind = _DatasetKind.Iterable
            if shuffle not in {False, None}:
                raise ValueError("DataLoader with IterableDataset: expected unspecified "
                                 f"shuffle option, but got shuffle={shuffle}")
            if sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified "
                                 f"sampler option, but got sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified "
                                 f"batch_sampler option, but got batch_sampler={batch_sampler}")
        else:
            shuffle = bool(shuffle)
            self._dataset_kind = _DatasetKind.Map

        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with "
                                 "batch_size, shuffle, sampler, and drop_last")
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is "
                             "mutually exclusive with drop_last")

        if sampler is None:
            if self._dataset_kind == _DatasetKind.Iterable:
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)

        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers
        self.__initialized = True
        # len() of an iterable dataset, remembered to warn when more comes out
        self._IterableDataset_len_called = None
        self._iterator = None
        self.check_worker_number_rationality()

    # -- configuration ------------------------------------------------------------

    @property
    def multiprocessing_context(self):
        return self.__multiprocessing_context

    @multiprocessing_context.setter
    def multiprocessing_context(self, ctx) -> None:
        if ctx is not None:
            if self.num_workers <= 0:
                raise ValueError("multiprocessing_context can only be used with "
                                 "multi-process loading (num_workers > 0), but got "
                                 f"num_workers={self.num_workers}")
            if isinstance(ctx, str):
                methods = multiprocessing.get_all_start_methods()
                if ctx not in methods:
                    raise ValueError(
                        "multiprocessing_context option should specify a valid start "
                        f"method in {methods!r}, but got multiprocessing_context={ctx!r}")
                ctx = multiprocessing.get_context(ctx)
            if not isinstance(ctx, multiprocessing.context.BaseContext):
                raise TypeError(
                    "multiprocessing_context option should be a valid context object or a "
                    f"string specifying the start method, but got multiprocessing_context={ctx}")
        self.__multiprocessing_context = ctx

    def __setattr__(self, attr, val) -> None:
        if self.__initialized and attr in ("batch_size", "batch_sampler", "sampler",
                                           "drop_last", "dataset", "persistent_workers"):
            raise ValueError(f"{attr} attribute should not be set after "
                             f"{self.__class__.__name__} is initialized")
        super().__setattr__(attr, val)

    @property
    def _auto_collation(self) -> bool:
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        return self.batch_sampler if self._auto_collation else self.sampler

    def check_worker_number_rationality(self) -> None:
        if not self.num_workers:
            return
        suggest = _cpu_count()
        if suggest is not None and self.num_workers <= suggest:
            return
        if suggest is None:
            detail = ("DataLoader is not able to compute a suggested max number of worker "
                      "in current system.")
        else:
            cpuset = "" if hasattr(os, "sched_getaffinity") else \
                " (`cpuset` is not taken into account)"
            detail = (f"Our suggested max number of worker in current system is {suggest}"
                      f"{cpuset}, which is smaller than what this DataLoader is going to "
                      "create.")
        warnings.warn(
            f"This DataLoader will create {self.num_workers} worker processes in total. "
            f"{detail} Please be aware that excessive worker creation might get DataLoader "
            "running slow or even freeze, lower the worker number to avoid potential "
            "slowness/freeze if necessary.", stacklevel=2)

    # -- iteration ----------------------------------------------------------------

    def _get_iterator(self):
        if self.num_workers == 0:
            return _SingleProcessDataLoaderIter(self)
        self.check_worker_number_rationality()
        return _MultiProcessingDataLoaderIter(self)

    def __iter__(self):
        if self.persistent_workers and self.num_workers > 0:
            if self._iterator is None:
                self._iterator = self._get_iterator()
            else:
                self._iterator._reset(self)
            return self._iterator
        return self._get_iterator()

    def __len__(self) -> int:
        if self._dataset_kind == _DatasetKind.Iterable:
            length = self._IterableDataset_len_called = len(self.dataset)
            if self.batch_size is not None:
                if self.drop_last:
                    return length // self.batch_size
                return math.ceil(length / self.batch_size)
            return length
        return len(self._index_sampler)


# How often a waiting main process checks that its workers are alive. torch learns of a
# dead worker at once from a SIGCHLD handler; polling every half second is the portable
# equivalent (a wait costs nothing more while data arrives).
_LIVENESS_INTERVAL = 0.5


class _BaseDataLoaderIter:
    def __init__(self, loader: DataLoader) -> None:
        self._dataset = loader.dataset
        self._shared_seed = None
        self._dataset_kind = loader._dataset_kind
        self._IterableDataset_len_called = loader._IterableDataset_len_called
        self._auto_collation = loader._auto_collation
        self._drop_last = loader.drop_last
        self._index_sampler = loader._index_sampler
        self._num_workers = loader.num_workers
        if loader.pin_memory and loader.pin_memory_device:
            warnings.warn(
                "pin_memory_device is deprecated, the current accelerator will be used as "
                f"the device,ignore pin_memory_device='{loader.pin_memory_device}'.",
                stacklevel=2)
        if loader.pin_memory:
            warnings.warn("'pin_memory' argument is set as true but no accelerator is found, "
                          "then device pinned memory won't be used.", stacklevel=2)
        self._pin_memory = False
        self._timeout = loader.timeout
        self._collate_fn = loader.collate_fn
        self._sampler_iter = iter(self._index_sampler)
        # Note [DataLoader seeds]
        self._base_seed = strided.empty((), dtype=strided.int64).random_(
            generator=loader.generator).item()
        self._persistent_workers = loader.persistent_workers
        self._num_yielded = 0

    def __iter__(self):
        return self

    def _reset(self, loader, first_iter: bool = False) -> None:
        self._sampler_iter = iter(self._index_sampler)
        self._num_yielded = 0
        self._IterableDataset_len_called = loader._IterableDataset_len_called

    def _next_index(self):
        return next(self._sampler_iter)

    def _next_data(self):
        raise NotImplementedError

    def __next__(self) -> Any:
        if self._sampler_iter is None:
            self._reset()
        data = self._next_data()
        self._num_yielded += 1
        if (self._dataset_kind == _DatasetKind.Iterable
                and self._IterableDataset_len_called is not None
                and self._num_yielded > self._IterableDataset_len_called):
            msg = (f"Length of IterableDataset {self._dataset} was reported to be "
                   f"{self._IterableDataset_len_called}(when accessing len(dataloader)), but "
                   f"{self._num_yielded} samples have been fetched. ")
            if self._num_workers > 0:
                msg += ("For multiprocessing data-loading, this could be caused by not "
                        "properly configuring the IterableDataset replica at each worker. "
                        "Please see https://pytorch.org/docs/stable/data.html#torch.utils."
                        "data.IterableDataset for examples.")
            warnings.warn(msg, stacklevel=2)
        return data

    def __len__(self) -> int:
        return len(self._index_sampler)

    def __getstate__(self):
        raise NotImplementedError("{} cannot be pickled", self.__class__.__name__)


class _SingleProcessDataLoaderIter(_BaseDataLoaderIter):
    def __init__(self, loader) -> None:
        super().__init__(loader)
        if self._timeout != 0:
            raise AssertionError("_SingleProcessDataLoaderIter requires timeout == 0")
        self._dataset_fetcher = make_fetcher(self._dataset_kind, self._dataset,
                                             self._auto_collation, self._collate_fn,
                                             self._drop_last)

    def _next_data(self):
        index = self._next_index()
        return self._dataset_fetcher.fetch(index)


class _MultiProcessingDataLoaderIter(_BaseDataLoaderIter):
    def __init__(self, loader) -> None:
        super().__init__(loader)
        self._prefetch_factor = loader.prefetch_factor
        self._in_order = loader.in_order
        if self._prefetch_factor <= 0:
            raise AssertionError(
                "prefetch_factor must be greater than 0 for MultiProcessingDataLoaderIter")
        ctx = loader.multiprocessing_context or multiprocessing.get_context()
        self._worker_init_fn = loader.worker_init_fn
        self._worker_result_queue = ctx.Queue()
        self._shutdown = False
        self._workers_done_event = ctx.Event()
        self._index_queues = []
        self._workers = []
        try:
            for i in range(self._num_workers):
                index_queue = ctx.Queue()
                index_queue.cancel_join_thread()
                w = ctx.Process(
                    target=_worker_loop,
                    args=(self._dataset_kind, self._dataset, index_queue,
                          self._worker_result_queue, self._workers_done_event,
                          self._auto_collation, self._collate_fn, self._drop_last,
                          self._base_seed, self._worker_init_fn, i, self._num_workers,
                          self._persistent_workers, self._shared_seed))
                w.daemon = True
                try:
                    w.start()
                except (TypeError, AttributeError, pickle.PicklingError):
                    warnings.warn(
                        "Got pickle error when attempting to start a worker Process. This "
                        "might be because the worker Process arguments are not picklable. "
                        "Python 3.14+ changed the multiprocessing start method in non-Mac "
                        "POSIX platforms to 'forkserver', which requires the worker Process "
                        "arguments to be picklable. You can also try "
                        "multiprocessing.set_start_method('fork').", stacklevel=2)
                    raise
                self._index_queues.append(index_queue)
                self._workers.append(w)
        except BaseException:
            self._workers_status = [True] * len(self._workers)
            self._shutdown_workers()
            raise
        self._data_queue = self._worker_result_queue
        self._reset(loader, first_iter=True)

    def _reset(self, loader, first_iter: bool = False) -> None:
        super()._reset(loader, first_iter)
        self._send_idx = 0  # the next task to send
        self._rcvd_idx = 0  # the next task to hand out (in order)
        # task idx -> (worker_id,) while outstanding, (worker_id, data) once arrived early
        self._task_info: dict[int, tuple] = {}
        self._tasks_outstanding = 0
        self._workers_status = [True] * self._num_workers
        self._workers_num_tasks = [0] * self._num_workers
        self._worker_queue_idx_cycle = itertools.cycle(range(self._num_workers))
        if not first_iter:
            for q in self._index_queues:
                q.put(_ResumeIteration(self._shared_seed))
            pending = self._num_workers
            while pending > 0:
                idx, _ = self._get_data()
                if isinstance(idx, _ResumeIteration):
                    pending -= 1
        for _ in range(self._prefetch_factor * self._num_workers):
            self._try_put_index()

    def _try_get_data(self, timeout: float = _LIVENESS_INTERVAL):
        try:
            # workers send their messages pickled (see _utils.worker._pack)
            return True, pickle.loads(self._data_queue.get(timeout=timeout))
        except Exception as e:
            failed = [w for wid, w in enumerate(self._workers)
                      if self._workers_status[wid] and not w.is_alive()]
            for w in failed:
                self._mark_worker_as_unavailable(self._workers.index(w))
            if failed:
                pids = ", ".join(str(w.pid) for w in failed)
                raise RuntimeError(
                    f"DataLoader worker (pid(s) {pids}) exited unexpectedly") from e
            if isinstance(e, queue.Empty):
                return False, None
            raise

    def _get_data(self):
        if self._timeout > 0:
            ok, data = self._try_get_data(self._timeout)
            if not ok:
                raise RuntimeError(f"DataLoader timed out after {self._timeout} seconds")
            return data
        while True:
            ok, data = self._try_get_data()
            if ok:
                return data

    def _next_data(self):
        while True:
            # skip tasks whose worker ended (iterable datasets) without a result
            while self._rcvd_idx < self._send_idx:
                info = self._task_info.get(self._rcvd_idx)
                if info:
                    if len(info) == 2 or self._workers_status[info[0]]:
                        break
                    del self._task_info[self._rcvd_idx]
                self._rcvd_idx += 1
            else:
                if not self._persistent_workers:
                    self._shutdown_workers()
                raise StopIteration

            if len(self._task_info[self._rcvd_idx]) == 2:
                worker_id, data = self._task_info.pop(self._rcvd_idx)
                self._rcvd_idx += 1
                return self._process_data(data, worker_id)

            idx, data = self._get_data()
            self._tasks_outstanding -= 1
            if (self._dataset_kind == _DatasetKind.Iterable
                    and isinstance(data, _IterableDatasetStopIteration)):
                if self._persistent_workers:
                    self._workers_status[data.worker_id] = False
                else:
                    self._mark_worker_as_unavailable(data.worker_id)
                self._try_put_index()
                continue
            if idx != self._rcvd_idx:
                if not self._in_order:
                    worker_id = self._task_info.pop(idx)[0]
                    return self._process_data(data, worker_id)
                self._task_info[idx] += (data,)  # keep it until its turn
            else:
                worker_id = self._task_info.pop(idx)[0]
                self._rcvd_idx += 1
                return self._process_data(data, worker_id)

    def _try_put_index(self) -> None:
        max_tasks = self._prefetch_factor * self._num_workers
        try:
            index = self._next_index()
        except StopIteration:
            return
        for _ in range(self._num_workers):  # the next active worker, if any
            wid = next(self._worker_queue_idx_cycle)
            if self._workers_status[wid]:
                if self._in_order:
                    break
                if self._workers_num_tasks[wid] < max_tasks // sum(self._workers_status):
                    break
        else:
            return
        self._index_queues[wid].put((self._send_idx, index))
        self._task_info[self._send_idx] = (wid,)
        self._workers_num_tasks[wid] += 1
        self._tasks_outstanding += 1
        self._send_idx += 1

    def _process_data(self, data, worker_id):
        self._workers_num_tasks[worker_id] -= 1
        self._try_put_index()
        if isinstance(data, ExceptionWrapper):
            data.reraise()
        return data

    def _mark_worker_as_unavailable(self, worker_id: int, shutdown: bool = False) -> None:
        self._index_queues[worker_id].put(None)  # tells the worker to exit
        self._workers_status[worker_id] = False

    def _shutdown_workers(self) -> None:
        if not hasattr(self, "_workers") or self._shutdown:
            return
        self._shutdown = True
        workers = self._workers
        try:
            if not _python_exiting:
                self._workers_done_event.set()
                for wid in range(len(workers)):
                    if self._persistent_workers or self._workers_status[wid]:
                        self._mark_worker_as_unavailable(wid, shutdown=True)
                for w in workers:
                    w.join(timeout=MP_STATUS_CHECK_INTERVAL)
                for q in self._index_queues:
                    q.cancel_join_thread()
                    q.close()
                self._worker_result_queue.cancel_join_thread()
                self._worker_result_queue.close()
        finally:
            for w in workers:
                if w.is_alive():
                    w.terminate()
                    w.join(timeout=MP_STATUS_CHECK_INTERVAL)

    def __del__(self) -> None:
        self._shutdown_workers()
