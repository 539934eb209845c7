"""Loaded task data kept on disk between runs of the command line, as JSON.

Loading a task parses upstream files: a FollowTable task reads its whole corpus for the
table ids (17 MB for TArX), two qrels files and the queries, 50-60 ms, an eighth of a
one-task `leaderboard eval`; a FollowIR task reads parquet files through pandas, whose
import alone takes 0.3-0.5 s. What a reader returns depends only on the files under the
task's data folder and on the code that reads them, so it is kept with a fingerprint of
both:

- the relative path, size and modification time of every file under the task's data
  folder (``data_dir / task.source.local_dir``, where its reader reads);
- the path, size and modification time of the source files of the reader module, of
  :mod:`leaderboard.data.base` and of this module (what Python's own bytecode cache
  checks of a source);
- the task's declaration.

An entry is used only when its whole fingerprint equals the current one, so never for
other data or other code. A cache file that cannot be read or does not hold what it
should is ignored and written again; a cache folder that cannot be written only costs the
saving. The format is JSON, not pickle: reading a cache file runs no code, whoever wrote
it.

Only readers in :data:`CACHED_READERS` are cached. The PI-Indic reader depends on code
outside its module that the fingerprint does not cover (the benchmark's language table,
which picks the files it reads), so it is left out.

Where: ``$FOLLOWBOARD_DATA_CACHE`` (``off`` turns the cache off), else
``$XDG_CACHE_HOME/followboard/task-data``, else ``~/.cache/followboard/task-data``.
"""

from __future__ import annotations

import json
import os
import zlib
from dataclasses import asdict
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from leaderboard.data import base
from leaderboard.data.base import RoleData, TaskData
from leaderboard.registry import Task

CACHE_ENV = "FOLLOWBOARD_DATA_CACHE"
# Bumped when the JSON layout below changes (this module's source is in the fingerprint too).
FORMAT = 1
CACHED_READERS = frozenset({"leaderboard.data.followtable", "leaderboard.data.mteb_layout"})


def cache_dir() -> Path | None:
    """The cache folder, or None when the cache is turned off."""
    chosen = os.environ.get(CACHE_ENV, "")
    if chosen.strip().lower() == "off":
        return None
    if chosen:
        return Path(chosen)
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    root = Path(xdg) if xdg else Path.home() / ".cache"
    return root / "followboard" / "task-data"


def _files_under(folder: Path) -> list[tuple[str, int, int]]:
    """(relative path, size, mtime in ns) of every file under ``folder``, sorted."""
    found = []
    for parent, dirs, files in os.walk(folder):
        dirs.sort()
        for name in sorted(files):
            path = Path(parent, name)
            stat = path.stat()
            found.append((path.relative_to(folder).as_posix(), stat.st_size, stat.st_mtime_ns))
    return found


def fingerprint(task: Task, reader: ModuleType, data_dir: Path) -> str | None:
    """What ``task``'s data as ``reader`` reads it from ``data_dir`` depends on, as text;
    None when the task's data folder does not exist (the reader reports what is missing).

    No digest of the files' contents: it would read every file (17 MB for a FollowTable
    corpus), which is what the cache saves.
    """
    folder = data_dir / task.source.local_dir
    if not folder.is_dir():
        return None
    sources = []
    for module_file in (reader.__file__, base.__file__, __file__):
        stat = Path(str(module_file)).stat()
        sources.append((str(module_file), stat.st_size, stat.st_mtime_ns))
    return json.dumps([FORMAT, reader.__name__, asdict(task), sources, _files_under(folder)],
                      sort_keys=True, default=str)


def _array_to_json(values: np.ndarray) -> dict[str, Any]:
    return {"dtype": values.dtype.str, "values": values.tolist()}


def _array_from_json(obj: dict[str, Any]) -> np.ndarray:
    dtype = np.dtype(obj["dtype"])
    return np.array(obj["values"], dtype=dtype).reshape(len(obj["values"]))


def to_json(data: TaskData) -> dict[str, Any]:
    """Every field of ``data`` (not the encodings it builds on demand) as JSON values."""
    return {
        "task_id": data.task_id,
        "roles": {name: {"query_ids": role.query_ids, "qrels": role.qrels,
                         "query_text": role.query_text} for name, role in data.roles.items()},
        "doc_ids": _array_to_json(data.doc_ids),
        "pools": None if data.pools is None else {q: _array_to_json(pool)
                                                  for q, pool in data.pools.items()},
        "pairs": data.pairs, "changed": data.changed,
        "instruction_positive": data.instruction_positive, "groups": data.groups,
    }


def from_json(obj: dict[str, Any]) -> TaskData:
    """The inverse of :func:`to_json`."""
    return TaskData(
        task_id=obj["task_id"],
        roles={name: RoleData(query_ids=role["query_ids"], qrels=role["qrels"],
                              query_text=role["query_text"])
               for name, role in obj["roles"].items()},
        doc_ids=_array_from_json(obj["doc_ids"]),
        pools=None if obj["pools"] is None else {q: _array_from_json(pool)
                                                 for q, pool in obj["pools"].items()},
        pairs=obj["pairs"], changed=obj["changed"],
        instruction_positive=obj["instruction_positive"], groups=obj["groups"],
    )


def _entry_path(folder: Path, task: Task, fingerprint_text: str) -> Path:
    # One file per task and fingerprint; the checksum in the name only tells entries
    # apart, the fingerprint stored inside decides.
    checksum = zlib.crc32(fingerprint_text.encode("utf-8"))
    return folder / f"{task.id.replace('/', '--')}.{checksum:08x}.json"


def _read_entry(path: Path, task: Task, fingerprint_text: str) -> TaskData | None:
    try:
        obj = json.loads(path.read_bytes())
        if obj.get("fingerprint") != fingerprint_text or obj.get("task_id") != task.id:
            return None
        return from_json(obj["data"])
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None  # unreadable or not what this module writes: load and write it again


def _write_entry(path: Path, task: Task, fingerprint_text: str, data: TaskData) -> None:
    from leaderboard.fileio import atomic_write_bytes

    try:
        text = json.dumps({"fingerprint": fingerprint_text, "task_id": task.id,
                           "data": to_json(data)}, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError):
        return  # a value JSON cannot hold (a reader returned numpy scalars): not kept
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(path, text.encode("utf-8"))
        # Entries of this task for other data or code are never read again.
        for old in path.parent.glob(f"{task.id.replace('/', '--')}.*.json"):
            if old != path:
                old.unlink(missing_ok=True)
    except OSError:
        pass  # a read-only or full disk: the data was loaded, only the saving is lost


def load_through_cache(task: Task, data_dir: Path, reader: ModuleType) -> TaskData:
    """``reader.load(task, data_dir)``, from the cache when it holds that very result."""
    folder = cache_dir()
    if folder is None or reader.__name__ not in CACHED_READERS:
        return reader.load(task, data_dir)
    current = fingerprint(task, reader, data_dir)
    if current is None:
        return reader.load(task, data_dir)
    path = _entry_path(folder, task, current)
    cached = _read_entry(path, task, current)
    if cached is not None:
        return cached
    data = reader.load(task, data_dir)
    _write_entry(path, task, current, data)
    return data
