"""Cached, chunked, sharded evaluation of a model over a list of items.

:func:`compute_cached` is the one place where model time is spent: it finds which items
the cache lacks, orders them deterministically (longest first, then by key), lets each
data-parallel rank take its share, and stores results chunk by chunk -- so a run killed
at any point resumes where it stopped, and reruns cost nothing.
"""

from __future__ import annotations

import time
from typing import Callable, Sequence, TypeVar

import numpy as np

from leaderboard.core.errors import FollowBoardError
from reference_models.cache import VectorCache
from reference_models.distributed import ProcessGroup, Shard
from reference_models.errors import ReferenceRunError

T = TypeVar("T")

DEFAULT_CHUNK_SIZE = 2048


class ShardsIncompleteError(FollowBoardError, RuntimeError):
    """Rank 0 found items that no rank has stored (a shard is still running or failed)."""


class ChunkProgress:
    """One line before each chunk: "documents: chunk 3 of 12 (2,048 texts), 4,096 of
    24,000 done, about 6 min left" (the runner's own bar restarts for every chunk, and a
    task of 12 chunks took 11 minutes on a CPU with nothing saying how far along it was).
    The estimate is the pace so far: chunks go longest texts first, so it errs long."""

    def __init__(self, what: str, log: Callable[[str], None],
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.what = what
        self.log = log
        self.clock = clock
        self.started = 0.0

    def __call__(self, number: int, chunks: int, size: int, done: int, total: int) -> None:
        if number == 1:
            self.started = self.clock()
        line = (f"{self.what}: chunk {number} of {chunks} ({size:,} texts), "
                f"{done:,} of {total:,} done")
        elapsed = self.clock() - self.started
        if done and elapsed > 0:
            line += f", about {_duration(elapsed / done * (total - done))} left"
        self.log(line)


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def compute_cached(items: Sequence[T], keys: Sequence[str], lengths: Sequence[int],
                   compute: Callable[[list[T]], np.ndarray], cache: VectorCache | None,
                   shard: Shard = Shard(), group: ProcessGroup | None = None,
                   chunk_size: int = DEFAULT_CHUNK_SIZE,
                   progress: ChunkProgress | None = None) -> np.ndarray | None:
    """Results for ``items`` in order (rank 0), or None (other ranks).

    ``keys[i]`` identifies what the model sees for ``items[i]``; equal keys are computed
    once. ``lengths`` orders the work (longest first) so chunks -- and the batches the
    runner sorts inside them -- pad little. ``compute`` maps a list of items to a
    ``[len, dim]`` array. ``progress`` is told of each chunk before it is computed.
    """
    if not (len(items) == len(keys) == len(lengths)):
        raise ValueError("items, keys and lengths must have the same length")
    if chunk_size <= 0:
        raise ValueError("chunk_size must be positive")
    first: dict[str, int] = {}
    for position, key in enumerate(keys):
        first.setdefault(key, position)

    if cache is None:
        if shard.world_size > 1:
            raise ReferenceRunError("data-parallel runs need the cache: it is how ranks share "
                                    "results (run without --no-cache)")
        unique = sorted(first, key=lambda k: (-lengths[first[k]], k))
        results: dict[str, np.ndarray] = {}
        for start in range(0, len(unique), chunk_size):
            chunk = unique[start:start + chunk_size]
            if progress is not None:
                progress(start // chunk_size + 1, -(-len(unique) // chunk_size), len(chunk),
                         start, len(unique))
            vectors = _as_matrix(compute([items[first[k]] for k in chunk]), len(chunk))
            results.update(zip(chunk, vectors))
        if not keys:
            return np.empty((0, 0), dtype=np.float32)
        return np.stack([results[k] for k in keys]).astype(np.float32, copy=False)

    # Shares are cut from the full ordered list, not from what is missing, so every rank
    # agrees on who owns what however much an earlier run left in the cache; and a resumed
    # run sees the same chunk boundaries as the interrupted one.
    ordered = sorted(first, key=lambda k: (-lengths[first[k]], k))
    todo = [k for k in shard.take(ordered) if k not in cache]
    for start in range(0, len(todo), chunk_size):
        chunk = todo[start:start + chunk_size]
        if progress is not None:
            progress(start // chunk_size + 1, -(-len(todo) // chunk_size), len(chunk),
                     start, len(todo))
        vectors = _as_matrix(compute([items[first[k]] for k in chunk]), len(chunk))
        cache.put(chunk, vectors)
    if group is not None:
        group.barrier()
    if not shard.is_main:
        return None
    cache.refresh()
    absent = cache.missing(first)
    if absent:
        raise ShardsIncompleteError(
            f"{len(absent)} items are missing from {cache.folder} after every rank finished; "
            "rerun the same command to compute them")
    if not keys:
        return np.empty((0, 0), dtype=np.float32)
    return cache.get(list(keys))


def _as_matrix(values: np.ndarray, expected: int) -> np.ndarray:
    values = np.asarray(values, dtype=np.float32)
    if values.ndim == 1:
        values = values[:, None]
    if values.shape[0] != expected:
        raise ValueError(f"model returned {values.shape[0]} results for {expected} inputs")
    return values
