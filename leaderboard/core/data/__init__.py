"""Data loading: one reader per upstream layout, one entry point for the engine."""

from __future__ import annotations

from functools import lru_cache
from importlib import import_module
from pathlib import Path
from typing import Iterator

from leaderboard.core.data.base import (
    DataFormatError,
    MissingDataError,
    RoleData,
    TaskData,
    resolve_data_dir,
)
from leaderboard.benchmarks.registry import Task

__all__ = ["DataFormatError", "MissingDataError", "RoleData", "TaskData", "load_task_data",
           "iter_corpus", "resolve_data_dir"]


def _reader_name(task: Task) -> str:
    # The task's benchmark declaration names its reader (a task's params["layout"] wins);
    # only that one reader is imported, and only where needed: the others pull in pandas,
    # which a FollowTable `leaderboard eval` never needs.
    from leaderboard.benchmarks import benchmark_of, reader_name_of

    return reader_name_of(task, benchmark_of(task.benchmark))


def _reader(task: Task):  # noqa: ANN202 - returns a module
    return import_module(_reader_name(task))


@lru_cache(maxsize=512)  # every registered task fits; PI-Indic has ~300 small ones
def _load_cached(task_id: str, data_dir: Path) -> TaskData:
    from leaderboard.benchmarks.registry import get_task

    from leaderboard.core.data.cache import load_through_cache

    task = get_task(task_id)
    return load_through_cache(task, data_dir, _reader_name(task))


def load_task_data(task: Task, data_dir: Path) -> TaskData:
    """Judgments and query sets of one task: read once per process, and kept on disk
    between processes (:mod:`leaderboard.core.data.cache`)."""
    return _load_cached(task.id, Path(data_dir).resolve())


def iter_corpus(task: Task, data_dir: Path) -> Iterator[tuple[str, str]]:
    """(document id, text) pairs of a task's corpus, for reference models."""
    return _reader(task).iter_corpus(task, Path(data_dir))
