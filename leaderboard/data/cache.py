"""Loaded task data kept on disk between runs of the command line, as JSON.

Loading a task parses upstream files: a FollowTable task reads its whole corpus for the
table ids (17 MB for TArX), two qrels files and the queries, 50-60 ms, an eighth of a
one-task `leaderboard eval`; a FollowIR task reads parquet files through pandas, whose
import alone takes 0.3-0.5 s. What a reader returns depends only on the files under the
task's data folder and on the code that reads them, so it is kept with a fingerprint of
both:

- the relative path, size and modification time of every file under the task's data
  folder (``data_dir / task.source.local_dir``, where its reader reads), as a checksum;
- the path, size and modification time (what Python's own bytecode cache checks of a
  source) of the code the result depends on: the reader module,
  :mod:`leaderboard.data.base`, this module, the registry and the benchmark declarations
  (a reader may read tables there, as PI-Indic's reads its language names), and the top
  module of each library a reader parses files with (pandas, pyarrow, rapidfuzz: it
  changes when they are upgraded);
- the task's declaration.

An entry is used only when its whole fingerprint equals the current one, so never for
other data or other code. The reader module is imported only when the cache misses: a
PI-Indic or FollowIR reader imports pandas (0.3-0.5 s), which a hit then never needs. A
cache file that cannot be read or does not hold what it should is ignored and written
again; a cache folder that cannot be written only costs the saving. Up to
:data:`ENTRIES_PER_TASK` entries of a task are kept, the most recently used. The format
is JSON, not pickle: reading a cache file runs no code, whoever wrote it.

Where: ``$FOLLOWBOARD_DATA_CACHE`` (``off`` turns the cache off), else
``$XDG_CACHE_HOME/followboard/task-data``, else ``~/.cache/followboard/task-data``.
"""

from __future__ import annotations

import json
import os
import zlib
from dataclasses import asdict
from functools import lru_cache
from importlib import import_module
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import numpy as np

from leaderboard.data.base import RoleData, TaskData
from leaderboard.registry import Task

CACHE_ENV = "FOLLOWBOARD_DATA_CACHE"
# Bumped when the JSON layout below changes (this module's source is in the fingerprint too).
FORMAT = 2  # 2: roles keep query_parts
# Modules whose code decides what a reader returns, besides the reader's own.
SHARED_SOURCES = ("leaderboard.data.base", "leaderboard.data.cache", "leaderboard.registry",
                  "leaderboard.benchmarks")
# Libraries the readers parse upstream files with.
LIBRARIES = ("pandas", "pyarrow", "rapidfuzz")
# Entries kept per task (for different data or code), the most recently used.
ENTRIES_PER_TASK = 4


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


@lru_cache(maxsize=64)
def _folder_state(folder: Path) -> str:
    """A checksum of :func:`_files_under` (its length, CRC-32 and Adler-32: 64 bits
    against an accidental match), computed once per folder and process.

    PI-Indic's 300 tasks share one folder of 2,400 upstream files: listing it for each
    task took 40 ms, and the listing itself would have made every entry 370 KB. A command
    sees its data as it was when it first loaded it (the loaded tasks are kept in memory
    too: leaderboard.data.load_task_data).
    """
    listing = json.dumps(_files_under(folder)).encode("utf-8")
    return f"{len(listing)}-{zlib.crc32(listing):08x}-{zlib.adler32(listing):08x}"


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


def _module_file(name: str) -> Path | None:
    """The source file of a module, found without importing it (None: not installed)."""
    spec = find_spec(name)
    return Path(spec.origin) if spec is not None and spec.origin else None


@lru_cache(maxsize=8)
def _sources_state(reader: str) -> tuple[tuple[str, int, int], ...]:
    """(path, size, mtime) of :func:`_source_files`, once per reader and process."""
    found = []
    for path in _source_files(reader):
        stat = path.stat()
        found.append((str(path), stat.st_size, stat.st_mtime_ns))
    return tuple(found)


def _source_files(reader: str) -> list[Path]:
    files = []
    for name in (reader, *SHARED_SOURCES, *LIBRARIES):
        path = _module_file(name)
        if path is None:
            continue
        if path.name == "__init__.py" and name.startswith("leaderboard."):
            files += sorted(path.parent.glob("*.py"))  # a package of ours: all its modules
        else:
            files.append(path)
    return files


def fingerprint(task: Task, reader: str, data_dir: Path) -> str | None:
    """What ``task``'s data as the reader module named ``reader`` reads it from
    ``data_dir`` depends on, as text; None when the task's data folder does not exist (the
    reader reports what is missing).

    No digest of the files' contents: it would read every file (17 MB for a FollowTable
    corpus), which is what the cache saves.
    """
    folder = data_dir / task.source.local_dir
    if not folder.is_dir():
        return None
    return json.dumps([FORMAT, reader, asdict(task), _sources_state(reader),
                       _folder_state(folder)], sort_keys=True, default=str)


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
                         "query_text": role.query_text, "query_parts": role.query_parts}
                  for name, role in data.roles.items()},
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
                              query_text=role["query_text"],
                              query_parts={q: (query, instruction) for q, (query, instruction)
                                           in role["query_parts"].items()})
               for name, role in obj["roles"].items()},
        doc_ids=_array_from_json(obj["doc_ids"]),
        pools=None if obj["pools"] is None else {q: _array_from_json(pool)
                                                 for q, pool in obj["pools"].items()},
        pairs=obj["pairs"], changed=obj["changed"],
        instruction_positive=obj["instruction_positive"], groups=obj["groups"],
    )


def _entry_stem(task: Task) -> str:
    return task.id.replace("/", "--")


def _entry_path(folder: Path, task: Task, fingerprint_text: str) -> Path:
    # One file per task and fingerprint; the checksum in the name only tells entries
    # apart, the fingerprint stored inside decides.
    checksum = zlib.crc32(fingerprint_text.encode("utf-8"))
    return folder / f"{_entry_stem(task)}.{checksum:08x}.json"


def _read_entry(path: Path, task: Task, fingerprint_text: str) -> TaskData | None:
    try:
        obj = json.loads(path.read_bytes())
        if obj.get("fingerprint") != fingerprint_text or obj.get("task_id") != task.id:
            return None
        data = from_json(obj["data"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None  # absent, unreadable or not what this module writes: (re)load it
    try:
        os.utime(path)  # used now: kept before entries not used since (_write_entry)
    except OSError:
        pass
    return data


def _write_entry(path: Path, task: Task, fingerprint_text: str, data: TaskData) -> None:
    from leaderboard.fileio import atomic_write_bytes

    try:
        text = json.dumps({"fingerprint": fingerprint_text, "task_id": task.id,
                           "data": to_json(data)}, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError):
        return  # a value JSON cannot hold (a reader returned numpy scalars): not kept
    try:
        atomic_write_bytes(path, text.encode("utf-8"), durable=False)  # makes the folder
        # Entries for other data or code: the most recently used few are kept, so that
        # two checkouts (or versions) sharing the cache do not evict each other's on
        # every run; older ones are removed.
        others = [p for p in path.parent.glob(f"{_entry_stem(task)}.*.json")
                  if p != path]
        others.sort(key=lambda p: p.stat().st_mtime_ns, reverse=True)
        for old in others[ENTRIES_PER_TASK - 1:]:
            old.unlink(missing_ok=True)
    except OSError:
        pass  # a read-only or full disk: the data was loaded, only the saving is lost


def load_through_cache(task: Task, data_dir: Path, reader: str) -> TaskData:
    """``load(task, data_dir)`` of the reader module named ``reader``, from the cache when
    it holds that very result (the module is imported only when it does not)."""
    folder = cache_dir()
    current = None if folder is None else fingerprint(task, reader, data_dir)
    if folder is None or current is None:
        return import_module(reader).load(task, data_dir)
    path = _entry_path(folder, task, current)
    cached = _read_entry(path, task, current)
    if cached is not None:
        return cached
    data = import_module(reader).load(task, data_dir)
    _write_entry(path, task, current, data)
    return data
