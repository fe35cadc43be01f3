"""What runs inside a DataLoader worker process, and what it tells the main process.

A worker seeds Python's ``random``, strided's default generator and NumPy's global RNG
from ``base_seed + worker_id`` exactly as torch's workers do, publishes its
:class:`WorkerInfo`, runs ``worker_init_fn``, then answers ``(task_idx, index)``
requests from its index queue with ``(task_idx, batch)`` on the shared result queue.
An exception becomes an :class:`ExceptionWrapper` carrying the formatted traceback, which
the main process raises again.
"""

from __future__ import annotations

import os
import queue
import random
import sys
import traceback
from dataclasses import dataclass
from multiprocessing.reduction import ForkingPickler
from typing import Any

import numpy as np

import strided

# Seconds between checks that the other side is still alive (torch's value).
MP_STATUS_CHECK_INTERVAL = 5.0

# How long a worker waits on its index queue before checking on the main process.
_POLL_INTERVAL = 0.25

_worker_info: WorkerInfo | None = None


@dataclass(frozen=True)
class WorkerInfo:
    """Set inside a worker process: ``id`` in [0, num_workers), ``seed`` (the worker's
    strided seed), and ``dataset`` (this worker's copy)."""
    id: int
    num_workers: int
    seed: int
    dataset: Any
    rng: Any = None
    worker_method: str | None = "multiprocessing"


def get_worker_info() -> WorkerInfo | None:
    """This worker's :class:`WorkerInfo`, or None in the main process."""
    return _worker_info


@dataclass(frozen=True)
class _IterableDatasetStopIteration:
    worker_id: int


@dataclass(frozen=True)
class _ResumeIteration:
    seed: int | None = None


class KeyErrorMessage(str):
    """A str whose repr is itself: KeyError shows repr() of its argument, which would
    print a multi-line traceback as one escaped line."""

    def __repr__(self):
        return self


class ExceptionWrapper:
    """An exception and its traceback text, picklable across processes (the traceback
    object itself is not kept)."""

    def __init__(self, exc_info=None, where: str = "in background") -> None:
        exc_info = sys.exc_info() if exc_info is None else exc_info
        self.exc_type = exc_info[0]
        self.exc_msg = "".join(traceback.format_exception(*exc_info))
        self.where = where

    def reraise(self):
        msg = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is KeyError:
            msg = KeyErrorMessage(msg)
        elif getattr(self.exc_type, "message", None):
            raise self.exc_type(message=msg)
        try:
            exc = self.exc_type(msg)
        except Exception:
            raise RuntimeError(msg) from None
        raise exc


def _numpy_seed(base_seed: int, worker_id: int):
    """The 128-bit state torch's workers seed NumPy with: NumPy's SeedSequence hashing
    of (worker_id, low and high 32 bits of base_seed, 0), four words out."""
    mask = 0xFFFFFFFF
    entropy = [worker_id, base_seed & mask, (base_seed >> 32) & mask, 0]
    return np.random.SeedSequence(entropy).generate_state(4)


def _compact(data):
    """Batches leave a worker by pickling, which writes a tensor's whole storage: a row
    view of a large table would carry the table along. Such views are copied to their
    own storage first (torch moves them through shared memory instead). Views of one
    storage within a batch then no longer share it; values, dtype and shape stay."""
    if isinstance(data, strided.Tensor):
        needed = data.numel() * data.element_size()
        if not data.requires_grad and data.untyped_storage().nbytes() > 2 * needed + 4096:
            with strided.no_grad():
                data = data.clone()
        return data
    if type(data) in (list, tuple):
        return type(data)(_compact(d) for d in data)
    if type(data) is dict:
        return {k: _compact(v) for k, v in data.items()}
    return data


def _pack(message, worker_id: int):
    """A message for the main process, pickled here rather than in the queue's feeder
    thread: there, a batch (or an exception class) that does not pickle is only printed
    and the main process waits forever; here it becomes an error the main process raises."""
    try:
        return bytes(ForkingPickler.dumps(message))
    except Exception:
        idx, data = message
        if not isinstance(data, ExceptionWrapper):
            data = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")
            try:
                return bytes(ForkingPickler.dumps((idx, data)))
            except Exception:
                pass
        # the exception's type does not pickle: the traceback text's last line still
        # names it
        data.exc_type = RuntimeError
        return bytes(ForkingPickler.dumps((idx, data)))


def _parent_alive(parent_pid: int) -> bool:
    # When the main process dies the worker is re-parented, so its ppid changes.
    return os.getppid() == parent_pid


def _worker_loop(dataset_kind, dataset, index_queue, data_queue, done_event,
                 auto_collation, collate_fn, drop_last, base_seed, init_fn, worker_id,
                 num_workers, persistent_workers, shared_seed) -> None:
    from .fetch import make_fetcher

    global _worker_info
    try:
        seed = base_seed + worker_id
        random.seed(seed)
        strided.manual_seed(seed)
        np.random.seed(_numpy_seed(base_seed, worker_id))
        _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed,
                                  dataset=dataset)
        init_error = None
        fetcher = None
        try:
            if init_fn is not None:
                init_fn(worker_id)
            fetcher = make_fetcher(dataset_kind, dataset, auto_collation, collate_fn,
                                   drop_last)
        except Exception:
            init_error = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")

        iteration_end = False
        parent = os.getppid()
        while _parent_alive(parent):
            try:
                r = index_queue.get(timeout=_POLL_INTERVAL)
            except queue.Empty:
                if done_event.is_set():
                    # Note [Exit without the final None]: an iterator collected by the
                    # cycle collector (say, one a traceback holds) has its queues' feeder
                    # threads closed by their weakref finalizers before its __del__ runs,
                    # so the None it sends may never arrive; the event always does.
                    break
                continue
            if isinstance(r, _ResumeIteration):
                # persistent workers: a new epoch starts with a fresh fetcher
                data_queue.put(_pack((r, None), worker_id))
                iteration_end = False
                fetcher = make_fetcher(dataset_kind, dataset, auto_collation, collate_fn,
                                       drop_last)
                continue
            if r is None:  # the main process asks us to exit
                break
            if done_event.is_set() or iteration_end:
                continue  # drain the queue until the exit signal
            idx, index = r
            if init_error is not None:
                data, init_error = init_error, None
            else:
                try:
                    data = fetcher.fetch(index)
                except Exception as e:
                    if isinstance(e, StopIteration) and dataset_kind == 1:
                        data = _IterableDatasetStopIteration(worker_id)
                        iteration_end = True
                    else:
                        data = ExceptionWrapper(
                            where=f"in DataLoader worker process {worker_id}")
            data_queue.put(_pack((idx, _compact(data)), worker_id))
            del data, idx, index, r
    except KeyboardInterrupt:
        pass
    if done_event.is_set():
        data_queue.cancel_join_thread()
        data_queue.close()
