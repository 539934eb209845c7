"""The process runtime of the statistics: one :class:`Executor` runs the engines' chunks.

It owns everything that is process-wide state: the thread pool, the reference-counted
single-threaded BLAS limit, the per-thread "run serially" flag, the chunk size and the
cache of random matrices. Engines never touch threads or BLAS themselves; they call
:meth:`Executor.run_ranges` and :meth:`Executor.cached` on :data:`EXECUTOR`.

The products run in chunks on a small thread pool, each with single-threaded BLAS:
OpenBLAS's own threads synchronise on every call and, on a machine shared with other
jobs, spin-waiting makes them much slower than one thread (benchmarks/README.md has the
measurements). Every count and sum the engines form is an exact integer, so neither the
split of the work nor the chunk size can change a result.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any

import numpy as np

from leaderboard.core.processes import usable_cpus

#: Most threads the pool runs.
MAX_WORKERS = 8
#: Bytes of one block of sums (sign-flip sums, resampled sums): bounds memory and keeps a
#: block's product and its comparisons in cache. Blocks never change a result.
CHUNK_BYTES = 1 << 21
#: Bytes of random matrices kept between views. A bootstrap table takes 2 bytes per query
#: and resample (60 MB for FollowTable's 2,989-query average), a packed sign matrix 12.5 KB
#: per query.
CACHE_BUDGET = 640 * 2**20


def _split(total: int, parts: int, align: int) -> list[tuple[int, int]]:
    """``parts`` contiguous ranges covering range(total), boundaries multiples of align."""
    step = -(-total // parts)
    step = -(-step // align) * align
    return [(a, min(a + step, total)) for a in range(0, total, step)]


class Executor:
    """Runs the engines' chunks: thread pool, BLAS limit, chunk size and matrix cache.

    ``workers`` (a callable, so that the CPUs allowed are read when work starts) and
    ``chunk_bytes`` may be changed for a while with :meth:`configured`; tests and the
    benchmark's determinism check do, to show that results do not depend on them.
    """

    def __init__(self) -> None:
        self.chunk_bytes = CHUNK_BYTES
        self.workers: Callable[[], int] = self.cpu_count
        self._pool: ThreadPoolExecutor | None = None
        self._pool_lock = threading.Lock()
        # threadpoolctl.ThreadpoolController, or False when unavailable
        self._blas: Any = None
        self._blas_depth = 0  # threads inside single_threaded_blas()
        self._blas_limiter: Any = None
        self._blas_lock = threading.Lock()
        self._thread_state = threading.local()
        self._cache: OrderedDict[tuple, np.ndarray] = OrderedDict()
        self._cache_lock = threading.Lock()
        # One lock per matrix being built: views run side by side (tier_views) often want
        # the same matrix at the same moment (a view's two metrics share its queries), and
        # the second waits for the first's matrix instead of drawing it again.
        self._building: dict[tuple, threading.Lock] = {}
        self._clear_hooks: list[Callable[[], None]] = []

    # -- threads and BLAS ---------------------------------------------------------------

    @staticmethod
    def cpu_count() -> int:
        """CPUs this process may use, at most MAX_WORKERS."""
        return max(1, min(usable_cpus(), MAX_WORKERS))

    def _controller(self) -> Any:
        if self._blas is None:
            try:  # optional: without it BLAS keeps its own threads and chunks run serially
                from threadpoolctl import ThreadpoolController
                self._blas = ThreadpoolController()
            except Exception:
                self._blas = False
        return self._blas

    @contextmanager
    def single_threaded_blas(self) -> Iterator[bool]:
        """BLAS on one thread for the duration; yields whether that could be arranged.

        The limit is process-wide, so nested and concurrent uses (several views tiered at
        once, see :func:`leaderboard.publish.stats.tiers.tier_views`) share one: the first to enter
        sets it, the last to leave restores BLAS's own setting. A plain ``limit()`` per use
        would let the first thread to leave restore the threads under the others' feet.
        """
        ctl = self._controller()
        if not ctl:
            yield False
            return
        with self._blas_lock:
            if self._blas_depth == 0:
                self._blas_limiter = ctl.limit(limits=1, user_api="blas")
            self._blas_depth += 1
        try:
            yield True
        finally:
            with self._blas_lock:
                self._blas_depth -= 1
                if self._blas_depth == 0:
                    self._blas_limiter.restore_original_limits()
                    self._blas_limiter = None

    @contextmanager
    def serial_chunks(self) -> Iterator[None]:
        """Within this context the current thread runs its chunks itself, without the pool:
        for callers that already keep every core busy with one thread each (tier_views)."""
        before = getattr(self._thread_state, "serial", False)
        self._thread_state.serial = True
        try:
            yield
        finally:
            self._thread_state.serial = before

    def run_ranges(self, fn: Callable[[int, int], Any], total: int, align: int = 1,
                   min_per_part: int = 1) -> list[Any]:
        """fn(start, stop) over contiguous ranges of range(total), in parallel if it pays.

        Results come back in range order. BLAS runs single-threaded inside (also when there
        is one range: its own threads spin-wait and, on a shared machine, cost more CPU
        than they save). With no way to pin BLAS to one thread, it runs fn(0, total) here
        and BLAS uses its own threads.
        """
        parts = min(self.workers(), max(1, total // max(min_per_part, 1)))
        if getattr(self._thread_state, "serial", False):
            parts = 1
        with self.single_threaded_blas() as pinned:
            if parts <= 1 or not pinned:
                return [fn(0, total)]
            with self._pool_lock:
                if self._pool is None:
                    self._pool = ThreadPoolExecutor(max_workers=MAX_WORKERS,
                                                    thread_name_prefix="leaderboard-stats")
            return list(self._pool.map(lambda r: fn(*r), _split(total, parts, align)))

    @contextmanager
    def configured(self, *, workers: int | None = None, chunk_bytes: int | None = None,
                   blas_control: bool | None = None) -> Iterator[Executor]:
        """Run with other settings for a while (and fresh caches, before and after): the
        split of the work must never change a figure, which tests check with this."""
        saved = (self.workers, self.chunk_bytes, self._blas)
        if workers is not None:
            self.workers = lambda: max(1, int(workers))
        if chunk_bytes is not None:
            self.chunk_bytes = int(chunk_bytes)
        if blas_control is False:
            self._blas = False
        self.clear_caches()
        try:
            yield self
        finally:
            self.workers, self.chunk_bytes, self._blas = saved
            self.clear_caches()

    # -- cache of random matrices --------------------------------------------------------
    # Drawing 100,000 x n sign bits or 10,000 bootstrap resamples of n queries costs a
    # sizeable fraction of applying them to a whole view, and every view of the same size
    # and seed uses the same matrix, so keep them (least recently used first out).

    def cached(self, key: tuple, build: Callable[[], np.ndarray]) -> np.ndarray:
        """The matrix under ``key``, built once (read-only) and kept within the budget."""
        with self._cache_lock:
            if key in self._cache:
                self._cache.move_to_end(key)
                return self._cache[key]
            building = self._building.setdefault(key, threading.Lock())
        with building:
            with self._cache_lock:
                if key in self._cache:  # built by another thread while this one waited
                    self._cache.move_to_end(key)
                    return self._cache[key]
            try:
                value = build()
                value.setflags(write=False)
                if value.nbytes <= CACHE_BUDGET:
                    with self._cache_lock:
                        self._cache[key] = value
                        while sum(v.nbytes for v in self._cache.values()) > CACHE_BUDGET:
                            self._cache.popitem(last=False)
            finally:
                with self._cache_lock:
                    self._building.pop(key, None)
        return value

    def building(self) -> int:
        """How many matrices are being built right now (0 when idle)."""
        with self._cache_lock:
            return len(self._building)

    def on_clear(self, hook: Callable[[], None]) -> None:
        """Call ``hook`` on :meth:`clear_caches` (engines with caches of their own)."""
        self._clear_hooks.append(hook)

    def clear_caches(self) -> None:
        """Drop cached sign and bootstrap matrices (tests use it to check regeneration)."""
        with self._cache_lock:
            self._cache.clear()
        for hook in self._clear_hooks:
            hook()

    def forget_threads(self) -> None:
        """In a forked child: the pool's threads, and any lock another thread held, did not
        come along. The pool's object did, and believed its idle threads would take new
        work, so the first chunk a child gave it waited forever (`ci pr-check` compares
        a submission with each task's leader on forked workers). The child starts a pool,
        locks and BLAS limit of its own; the cached matrices are kept (plain arrays)."""
        self._pool = None
        self._pool_lock = threading.Lock()
        self._blas_depth = 0
        self._blas_limiter = None
        self._blas_lock = threading.Lock()
        self._thread_state = threading.local()
        self._cache_lock = threading.Lock()
        self._building = {}


#: The one executor of the process.
EXECUTOR = Executor()
os.register_at_fork(after_in_child=EXECUTOR.forget_threads)
