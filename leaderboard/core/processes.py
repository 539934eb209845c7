"""Forked worker processes: how many CPUs this process may use, and a pool of workers
that leaves nothing behind however it is stopped.

Two commands share independent work out to processes, each worker one core: checking and
scoring a submission's tasks (:mod:`leaderboard.submission.task_checks`) and comparing a
pull request's submission with each task's leader (:mod:`leaderboard.app.ci.standing`).
Both fork rather than spawn, so a worker starts with what this process has imported and
loaded (a spawned one imported numpy and pyarrow again, 1.2-1.5 s on the 2-core hosts),
both stop their workers the same way, and both say so with a :class:`WorkerError` when a
worker dies without its result (both wait for results with :func:`first_completed`, which
notices a worker that died while it sent one). A worker also ends when this process does,
however it ends (:func:`_end_with_parent`).
"""

from __future__ import annotations

import ctypes
import gc
import multiprocessing
import os
import shutil
import signal
import sys
import tempfile
from collections.abc import Callable, Collection, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from leaderboard.core.config import ENV_WORKERS, worker_setting
from leaderboard.core.errors import FollowBoardError
from leaderboard.core.fileio import left_by_gone_process


class WorkerError(FollowBoardError, RuntimeError):
    """A worker process ended without handing back its result (killed, or out of
    memory): its message says what the worker was doing and how to go on without one."""

    @classmethod
    def lost(cls, doing: str, here: str) -> WorkerError:
        """The error for a worker that was ``doing`` something (``"checking X"``) when it
        died; ``here``: the same work done in this process (``"check the tasks"``)."""
        return cls(f"a worker process {doing} ended without a result: killed, or out of "
                   f"memory? Nothing was written; run again, or set {ENV_WORKERS}=0 to "
                   f"{here} in this process")


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity, which a container may narrow)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - platforms without affinity (macOS)
        return os.cpu_count() or 1


def remove_dead_temp_folders(prefix: str) -> None:
    """Remove the folders ``{prefix}{pid}-*`` of the temporary directory whose process is
    gone: a command killed by SIGKILL cannot remove its own work folder (a pull request's
    extracted runs, a reference run's staged files), and nothing else would."""
    for folder in Path(tempfile.gettempdir()).glob(f"{prefix}*-*"):
        if folder.is_dir() and not folder.is_symlink() \
                and left_by_gone_process(folder.name, prefix):
            shutil.rmtree(folder, ignore_errors=True)


def can_fork() -> bool:
    """Whether worker processes can be forked safely here (Linux; macOS's system libraries
    are not fork-safe, and Windows cannot fork)."""
    return sys.platform == "linux" and "fork" in multiprocessing.get_all_start_methods()


def chosen_workers(n_items: int, worth_it: bool, most: int = 4) -> int:
    """How many worker processes share ``n_items`` independent items: 0 means this
    process, one item after the other. ``LEADERBOARD_WORKERS`` sets it (0 or 1: none);
    by default one per usable CPU, at most ``most``, when the caller finds the work
    ``worth_it`` (a fork and the pickled results cost more than a few items save)."""
    if n_items < 2 or not can_fork():
        return 0
    chosen = worker_setting()
    if chosen is not None:
        return min(chosen, n_items) if chosen > 1 else 0
    if not worth_it:
        return 0
    workers = min(usable_cpus(), most, n_items)
    return workers if workers > 1 else 0


# prctl(2)'s option that has the kernel send a process a signal when its parent ends.
_PR_SET_PDEATHSIG = 1


def _end_with_parent(parent: int) -> None:
    """Have the kernel kill this worker when the process that forked it (``parent``)
    ends, and end now if it already has.

    A pool stops its workers when its owner leaves the pool's block, even on an error
    or Ctrl-C (:func:`forked_pool`), but not when the owner is killed outright (the
    out-of-memory killer, a CI job's timeout). Its workers then lived on for ever,
    waiting on a pipe nobody would write to again, each with its share of memory and
    its copy of every descriptor the owner had open: `score`'s workers held the
    submission folder's lock, so every later command on the submission was refused as
    changing it. (The kernel sends the signal when the thread that forked the worker
    ends: the pool forks at its first submission, and both callers submit and collect
    from the one thread that opened the pool, until it is closed.)"""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):  # pragma: no cover - a libc without prctl
        pass
    if os.getppid() != parent:  # the parent ended before the request was made
        os._exit(1)


def _start_worker(parent: int, initializer: Callable[..., object] | None,
                  initargs: Sequence[Any]) -> None:
    _end_with_parent(parent)
    # Ctrl-C is this process's to handle (it stops the pool), not each worker's: they
    # would each print a traceback.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if initializer is not None:
        initializer(*initargs)


@contextmanager
def forked_pool(workers: int, initializer: Callable[..., object] | None = None,
                initargs: Sequence[Any] = ()) -> Iterator[ProcessPoolExecutor]:
    """A pool of ``workers`` forked processes, each running ``initializer(*initargs)``
    first. Forked, the initializer's arguments are the worker's own copy of this
    process's objects: nothing is pickled to start a worker.

    The pool forks every worker at its first submission, before it starts its own
    thread (no other thread of the command may run then). When the block raises (a bug,
    Ctrl-C, a caller that stopped reading a generator), no task is started any more,
    none is waited for, and the workers are killed (what they compute would be thrown
    away; they write nothing but the caches, each entry by a rename), so the pool's
    thread ends at once. Left running, it raced the interpreter's exit: CPython 3.11
    wakes a pool's thread at exit without its lock, and a pipe the thread had just
    closed printed "Bad file descriptor" with a traceback.

    While the pool is open, the objects this process holds are frozen out of the garbage
    collector (:func:`gc.freeze`, as Python's documentation advises before a fork): a
    worker's full collections then skip the imported modules it inherits, and so do
    this process's while it takes the results in. Each such collection walked every
    object (45 ms for a scoring's imports), and in a worker wrote to every page it
    shared with this process, which the kernel then copied."""
    others = set(multiprocessing.active_children())
    thawed = gc.get_freeze_count() == 0  # else a caller froze them, and thaws them
    gc.freeze()
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("fork"),
                               initializer=_start_worker,
                               initargs=(os.getpid(), initializer, tuple(initargs)))
    try:
        yield pool
    except BaseException:
        for process in multiprocessing.active_children():
            if process not in others:
                process.kill()
        _end_result_reading(pool)
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    else:
        pool.shutdown(wait=True)
    finally:
        if thawed:
            gc.unfreeze()


def _end_result_reading(pool: ProcessPoolExecutor) -> None:
    """Close this process's copy of the write end of the pipe the workers send their
    results on, once they are killed.

    A worker killed while it sent a result (Ctrl-C kills the workers) leaves the pool's
    thread reading the rest of that message. CPython's pool keeps both ends of that pipe
    in this process, so the read never met the pipe's end and ``shutdown`` waited for the
    thread for ever: `score` hung after Ctrl-C with both workers dead, and so did the test
    that presses it, in one full run of the suite. With this end closed too, the read ends
    as soon as the killed workers' ends are gone, and the thread stops the pool as broken.
    (The attributes are the pool's own; a pool without them has nothing to close.)"""
    queue = getattr(pool, "_result_queue", None)
    writer = getattr(queue, "_writer", None)
    if writer is not None:
        writer.close()


# How often a wait for results (:func:`first_completed`) makes sure the workers are there.
WORKER_CHECK_S = 0.5


def first_completed(pool: ProcessPoolExecutor, futures: Collection[Future]) -> set[Future]:
    """The done ones of ``futures`` (some of ``pool``'s), as soon as one is: what
    ``concurrent.futures.wait(futures, return_when=FIRST_COMPLETED)`` gives, except that
    a worker that has died raises :class:`BrokenProcessPool` even when the pool has not
    noticed.

    The pool notices a worker's death by itself, unless the worker died while it sent a
    result (killed by the out-of-memory killer, say): its thread then reads the rest of
    that message for ever, and a plain wait never ends. So the wait checks, every
    :data:`WORKER_CHECK_S`, that each of the pool's workers is alive; the caller's error
    then stops the pool (:func:`forked_pool`). (The workers are the pool's own attribute;
    a pool without it is waited for plainly.)"""
    if not futures:
        raise ValueError("first_completed waits for at least one future")
    workers = list((getattr(pool, "_processes", None) or {}).values())
    while True:
        done, _ = wait(futures, timeout=WORKER_CHECK_S, return_when=FIRST_COMPLETED)
        if done:
            return done
        if any(worker.exitcode is not None for worker in workers):
            raise BrokenProcessPool("a worker process ended without handing back its result")
