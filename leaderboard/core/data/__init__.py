"""Data loading: one reader per upstream layout, one entry point for the engine.

A task names its layout (:attr:`leaderboard.core.tasks.Task.layout`); :data:`READERS`
says which module reads it. Each reader module has ``load(task, data_dir) -> TaskData``,
``iter_corpus(task, data_dir, only)`` and ``data_files(task, data_dir) -> DataFiles`` (the
files it reads, which `data status --verify` checks, and what is missing), and is
imported only when a task of its layout is loaded (and then only when the task-data cache
has no entry for it): the mteb reader pulls in pyarrow's parquet reader and PI-Indic's rapidfuzz,
which a FollowTable `leaderboard eval` never needs.
"""

from __future__ import annotations

from importlib import import_module
from pathlib import Path
from threading import Lock
from types import ModuleType
from typing import Collection, Iterator

from leaderboard.core.data.base import (
    DataFiles,
    DataFormatError,
    MissingDataError,
    RoleData,
    TaskData,
    resolve_data_dir,
)
from leaderboard.core.data.cache import load_through_cache
from leaderboard.core.tasks import Task

__all__ = ["DataFiles", "DataFormatError", "MissingDataError", "READERS", "RoleData",
           "TaskData", "data_files", "iter_corpus", "load_task_data", "reader_name",
           "resolve_data_dir"]

READERS: dict[str, str] = {
    "mteb": "leaderboard.core.data.mteb_layout",
    "followtable": "leaderboard.core.data.followtable",
    "pi-indic": "leaderboard.core.data.pi_indic",
}


def reader_name(task: Task) -> str:
    """The module that reads ``task``'s layout."""
    try:
        return READERS[task.layout]
    except KeyError:
        raise ValueError(f"task {task.id!r}: unknown data layout {task.layout!r}; "
                         f"known: {', '.join(READERS)}") from None


def _reader(task: Task) -> ModuleType:
    return import_module(reader_name(task))


# Loaded tasks, kept for the process: every registered task fits (PI-Indic has ~300 small
# ones). Two threads asking for one task at once both load it; the first result is kept.
_LOADED: dict[tuple[str, Path], TaskData] = {}
_LOADED_LOCK = Lock()


def load_task_data(task: Task, data_dir: Path) -> TaskData:
    """Judgments and query sets of one task: read once per process, and kept on disk
    between processes (:mod:`leaderboard.core.data.cache`)."""
    key = (task.id, Path(data_dir).resolve())
    data = _LOADED.get(key)
    if data is None:
        data = load_through_cache(task, key[1], reader_name(task))
        with _LOADED_LOCK:
            data = _LOADED.setdefault(key, data)
    return data


def iter_corpus(task: Task, data_dir: Path, only: Collection[str] | None = None
                ) -> Iterator[tuple[str, str]]:
    """(document id, text) pairs of a task's corpus in its files' order, for reference
    models; with ``only``, those of the documents it holds (the explorer's snippets)."""
    return _reader(task).iter_corpus(task, Path(data_dir), only)


def data_files(task: Task, data_dir: Path) -> DataFiles:
    """The files ``task``'s reader reads under ``data_dir``, and those it needs that are
    not there (:class:`DataFiles`: the reader's own declaration, which it reads by)."""
    return _reader(task).data_files(task, Path(data_dir))
