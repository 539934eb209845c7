"""Loaded task data kept on disk between runs of the command line, as JSON.

Loading a task parses upstream files: a FollowTable task reads its whole corpus for the
table ids (17 MB for TArX), two qrels files and the queries, 50-60 ms, an eighth of a
one-task `leaderboard eval`; a FollowIR task reads its whole pool and judgment tables from
parquet, and a PI-Indic T4 task mines its hard negatives (0.3 s). What a reader returns
depends only on the files under the task's data folder and on the code that reads them,
so it is kept with a fingerprint of both:

- the relative path, size and modification time of every file under the task's data
  folder (``data_dir / task.source.local_dir``, where its reader reads), as a checksum;
- the path, size and modification time (what Python's own bytecode cache checks of a
  source) of the code the result depends on: every module and table of the data package
  (the reader, :mod:`leaderboard.core.data.base`, this module, PI-Indic's kept T4
  negatives), the registry and the benchmark declarations (a reader may read tables
  there, as PI-Indic's reads its language names), and the top module of each library a
  reader parses files with (pyarrow, rapidfuzz: it changes when they are upgraded);
- the task's declaration.

An entry is used only when its whole fingerprint equals the current one, so never for
other data or other code. The reader module is imported only when the cache misses: a
hit needs neither the reader nor the libraries it parses files with. Up
to :data:`ENTRIES_PER_TASK` entries of a task are kept, the most recently used.

What is read is not trusted: a cache folder is a place anyone with write access to it
can put files. The format is JSON, not pickle, so reading an entry runs no code (an
array kept as its bytes is read by ``np.frombuffer``, of numeric and text dtypes only,
never objects). The folder is created for the user alone (0700), and one owned by
someone else is not used; an entry is read only when it is a regular file of the
user's, not a link, FIFO or device, of at most :data:`MAX_ENTRY_BYTES`. Each entry is
two lines of JSON, a header (fingerprint, task id and the SHA-256 of the second line)
and the data, so an entry whose content is not what was written for that header (cut
short, edited by hand) is a miss.
The checksum detects damage; it authenticates nothing, since whoever can write the
folder can write a matching checksum: that is what the folder's permissions are for, and
why CI jobs, whose runner may be shared, turn the cache off (.github/workflows). Any
failure to read or decode an entry (deep nesting that exhausts the parser included) is a
miss: the data is loaded from its files and the entry written again; a cache folder that
cannot be written only costs the saving.

Where: ``task-data`` under the cache root, each task's entries in a folder of their own
(``<task id, / as -->/<checksum>.json``, a value derived from it
``<kind>.<checksum>.json``), so that keeping a task's few entries lists that folder alone;
``LEADERBOARD_DATA_CACHE=off`` turns it off (:mod:`leaderboard.core.config`).
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import stat
import time
import zlib
from dataclasses import asdict, dataclass
from functools import lru_cache
from importlib import import_module
from importlib.util import find_spec
from pathlib import Path
from typing import Any, Callable, TypeVar

import numpy as np

from leaderboard.core.config import cache_folder, task_data_cache_on
from leaderboard.core.data.base import RoleData, TaskData
from leaderboard.core.data.notes import DataNote
from leaderboard.core.fileio import atomic_write_bytes
from leaderboard.core.runs.columns import ascii_as_unicode
from leaderboard.core.tasks import Task

T = TypeVar("T")

# Bumped when the JSON layout below changes (this module's source is in the fingerprint too).
FORMAT = 6  # 2: a header line with the data's SHA-256; 3: roles keep query_parts;
# 4: arrays as their bytes (_array_to_json); 5: roles keep their unjudged query ids;
# 6: the data's notes (leaderboard.core.data.notes)
# Code that decides what a reader returns, besides the reader's own: every module of the
# data package (the readers, their shared parts, this cache), the task's shape, and the
# benchmark declarations that build the tasks (named, not imported: a changed declaration
# is a miss even where the task it builds compares equal).
SHARED_SOURCES = ("leaderboard.core.data", "leaderboard.core.tasks", "leaderboard.benchmarks")
# Libraries the readers parse upstream files with.
LIBRARIES = ("pyarrow", "rapidfuzz")
# Entries kept per task (for different data or code), the most recently used.
ENTRIES_PER_TASK = 4
# The largest entry read or written. FollowTable WQT's, the largest of the data on the
# development machine, is 2.2 MB; an entry that would be larger is not kept.
MAX_ENTRY_BYTES = 64 * 1024 * 1024
# The header line (fingerprint, task id, checksum) is a few kilobytes.
MAX_HEADER_BYTES = 1024 * 1024


def cache_dir() -> Path | None:
    """The cache folder (``task-data`` under the cache root), or None when the cache is
    turned off (:mod:`leaderboard.core.config`)."""
    return cache_folder("task-data") if task_data_cache_on() else None


@lru_cache(maxsize=64)
def _folder_state(folder: Path) -> str:
    """A checksum of :func:`_files_under` (its length, CRC-32 and Adler-32: 64 bits
    against an accidental match), computed once per folder and process.

    PI-Indic's 300 tasks share one folder of 2,400 upstream files: listing it for each
    task took 40 ms, and the listing itself would have made every entry 370 KB. A command
    sees its data as it was when it first loaded it (the loaded tasks are kept in memory
    too: leaderboard.core.data.load_task_data).
    """
    listing = json.dumps(_files_under(folder)).encode("utf-8")
    return f"{len(listing)}-{zlib.crc32(listing):08x}-{zlib.adler32(listing):08x}"


def _files_under(folder: Path) -> list[tuple[str, int, int]]:
    """(relative path, size, mtime in ns) of every file under ``folder``, each folder's
    files by name before its subfolders' (by name), as :func:`os.walk` lists them
    following links: links to files and to folders are followed (a reader reads through
    them: a data folder's ``qrels/`` may link to a shared copy, and pointed at another
    copy its files are other files), except a link to a folder the walk is inside,
    which would list it without end.

    Strings and :func:`os.scandir` rather than ``Path`` objects: PI-Indic's 2,400 files
    took 0.15-0.24 CPU-s a process through pathlib, and each worker process lists them
    once. tests/test_data_cache.py holds it to the ``os.walk`` listing."""
    found: list[tuple[str, int, int]] = []

    def walk(path: str, prefix: str, real: str, inside: frozenset[str]) -> None:
        # ``real``: the folder's real path; ``inside``: those of the folders it is in.
        try:
            with os.scandir(path) as it:
                entries = sorted(it, key=lambda entry: entry.name)
        except OSError:
            return  # as os.walk, a folder that cannot be listed lists nothing
        folders = []
        for entry in entries:
            try:
                is_dir = entry.is_dir()
            except OSError:
                is_dir = False  # as os.walk: listed with the files
            if is_dir:
                folders.append(entry)
                continue
            stat_ = entry.stat()
            found.append((prefix + entry.name, stat_.st_size, stat_.st_mtime_ns))
        for entry in folders:
            target = (os.path.realpath(entry.path) if entry.is_symlink()
                      else os.path.join(real, entry.name))
            if target not in inside:
                walk(entry.path, f"{prefix}{entry.name}/", target, inside | {target})

    top = os.path.realpath(folder)
    walk(str(folder), "", top, frozenset({top}))
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
            # A package of ours: all its modules, and the tables they read (PI-Indic's
            # kept T4 negatives).
            files += sorted([*path.parent.glob("*.py"), *path.parent.glob("*.json")])
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
    return json.dumps([FORMAT, reader, _task_state(task), _sources_state(reader),
                       _folder_state(folder)], sort_keys=True, default=str)


# asdict(task), by task id, with the task it was made of: asdict deep-copies every field
# (0.15 ms a task, and a task's fingerprint is asked for its data and its texts).
_TASK_STATES: dict[str, tuple[Task, dict[str, Any]]] = {}


def _task_state(task: Task) -> dict[str, Any]:
    known = _TASK_STATES.get(task.id)
    if known is not None and (known[0] is task or known[0] == task):
        return known[1]
    state = asdict(task)
    _TASK_STATES[task.id] = (task, state)
    return state


# The kinds of array kept as their bytes: booleans, numbers, fixed-width text. Anything
# else (Python strings over MAX_FIXED_WIDTH) is kept as a list of values.
_BUFFER_KINDS = "biufSU"


def _array_to_json(values: np.ndarray) -> dict[str, Any]:
    """An array as JSON: its dtype and its bytes, ids of ASCII characters as one string
    of them at a fixed width (NUL-padded), others in base64; a list of its values for an
    array of Python strings.

    Not a list of values for every array: FollowIR's pools, 52,000 ids, took 20 ms to
    decode and make an array of again (a Python string each), and its 46,800 corpus ids
    7 ms; as one string they take 0.4 ms (base64 took 3)."""
    if values.ndim != 1 or values.dtype.kind not in _BUFFER_KINDS:
        return {"dtype": values.dtype.str, "values": values.tolist()}
    if values.dtype.kind == "U" and values.size:
        try:
            ascii_ids = values.astype(f"S{values.dtype.itemsize // 4}")
        except UnicodeEncodeError:
            pass  # other characters: four bytes each, as numpy keeps them, in base64
        else:
            return {"dtype": values.dtype.str, "stored": ascii_ids.dtype.str,
                    "ascii": ascii_ids.tobytes().decode("ascii")}
    return {"dtype": values.dtype.str, "stored": values.dtype.str,
            "base64": base64.b64encode(values.tobytes()).decode("ascii")}


def _buffer_dtype(text: object) -> np.dtype:
    """A dtype named by an entry, only of the kinds kept as bytes (no object arrays)."""
    dtype = np.dtype(str(text))
    if dtype.kind not in _BUFFER_KINDS or dtype.itemsize == 0:
        raise ValueError(f"not an array kept as bytes: {text!r}")
    return dtype


def _array_from_json(obj: dict[str, Any]) -> np.ndarray:
    """The inverse of :func:`_array_to_json` (a malformed entry raises: a cache miss)."""
    if "ascii" in obj or "base64" in obj:
        dtype, stored = _buffer_dtype(obj["dtype"]), _buffer_dtype(obj["stored"])
        if "ascii" in obj:  # str.encode("ascii") refuses any other character
            raw = obj["ascii"].encode("ascii")
            if stored.kind != "S":
                raise ValueError("ASCII text holds byte strings")
        else:
            raw = base64.b64decode(obj["base64"], validate=True)
            if stored != dtype:
                raise ValueError("an array in base64 is kept in its own dtype")
        if len(raw) % stored.itemsize:
            raise ValueError("an array's bytes are not whole values")
        values = np.frombuffer(raw, dtype=stored)
        if stored.kind == "S" and dtype.kind == "U":
            widened = ascii_as_unicode(values)  # ASCII by the check above; a new array
            return widened if widened.dtype == dtype else widened.astype(dtype)
        return values.astype(dtype)  # a copy of the entry's bytes: writable
    dtype = np.dtype(obj["dtype"])
    return np.array(obj["values"], dtype=dtype).reshape(len(obj["values"]))


def to_json(data: TaskData) -> dict[str, Any]:
    """Every field of ``data`` (not the encodings it builds on demand) as JSON values."""
    return {
        "task_id": data.task_id,
        "roles": {name: {"query_ids": role.query_ids, "qrels": role.qrels,
                         "query_text": role.query_text, "query_parts": role.query_parts,
                         "unjudged": role.unjudged}
                  for name, role in data.roles.items()},
        "doc_ids": _array_to_json(data.doc_ids),
        "pools": None if data.pools is None else {q: _array_to_json(pool)
                                                  for q, pool in data.pools.items()},
        "pairs": data.pairs, "changed": data.changed,
        "instruction_positive": data.instruction_positive, "groups": data.groups,
        "notes": [[note.kind, note.where, list(note.items)] for note in data.notes],
    }


def from_json(obj: dict[str, Any]) -> TaskData:
    """The inverse of :func:`to_json`."""
    return TaskData(
        task_id=obj["task_id"],
        roles={name: RoleData(query_ids=role["query_ids"], qrels=role["qrels"],
                              query_text=role["query_text"],
                              query_parts={q: (query, instruction) for q, (query, instruction)
                                           in role["query_parts"].items()},
                              unjudged=role["unjudged"])
               for name, role in obj["roles"].items()},
        doc_ids=_array_from_json(obj["doc_ids"]),
        pools=None if obj["pools"] is None else {q: _array_from_json(pool)
                                                 for q, pool in obj["pools"].items()},
        pairs=obj["pairs"], changed=obj["changed"],
        instruction_positive=obj["instruction_positive"], groups=obj["groups"],
        notes=tuple(DataNote(kind, where, tuple(items)) for kind, where, items in obj["notes"]),
    )


def _entry_stem(task: Task) -> str:
    return task.id.replace("/", "--")


def _entry_path(folder: Path, task: Task, fingerprint_text: str) -> Path:
    # One file per task and fingerprint, in the task's folder; the checksum in the name
    # only tells entries apart, the fingerprint stored inside decides.
    checksum = zlib.crc32(fingerprint_text.encode("utf-8"))
    return folder / _entry_stem(task) / f"{checksum:08x}.json"


def _owned_by_user(st: os.stat_result) -> bool:
    getuid = getattr(os, "getuid", None)  # not on Windows, where the ACLs decide
    return getuid is None or st.st_uid == getuid()


@lru_cache(maxsize=4)
def _private_folder(folder: Path) -> bool:
    """Whether ``folder`` may hold this user's entries: created if absent for the user
    alone (0700); an existing folder must be the user's own, and is made 0700 if others
    could reach it. A folder that is someone else's (or not a folder) is not used: its
    entries could be anyone's. Checked once per folder and process."""
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        folder.mkdir(mode=0o700, exist_ok=True)
        st = folder.stat()
        if not stat.S_ISDIR(st.st_mode) or not _owned_by_user(st):
            return False
        if stat.S_IMODE(st.st_mode) & 0o077:
            os.chmod(folder, 0o700)
        return True
    except OSError:
        return False  # cannot be made or checked: no cache, only the saving is lost


def _read_bounded(path: Path) -> bytes | None:
    """The bytes of ``path`` when it is a regular file of the user's, not a link, of at
    most :data:`MAX_ENTRY_BYTES`; None otherwise (or when it cannot be read).

    Opened without following a link and without blocking, so a FIFO put at an entry's
    path does not wait for a writer, and a link to ``/dev/zero`` is not read; the size
    is checked on the open file, and no more than the limit is read if it grows."""
    flags = (os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
             | getattr(os, "O_CLOEXEC", 0))
    try:
        fd = os.open(path, flags)
    except OSError:
        return None  # absent, a link (ELOOP), unreadable
    try:
        st = os.fstat(fd)
        if (not stat.S_ISREG(st.st_mode) or not _owned_by_user(st)
                or st.st_size > MAX_ENTRY_BYTES):
            return None
        with os.fdopen(fd, "rb", closefd=False) as fh:
            data = fh.read(MAX_ENTRY_BYTES + 1)
        return data if len(data) <= MAX_ENTRY_BYTES else None
    except OSError:
        return None
    finally:
        os.close(fd)


def _checksum(body: bytes) -> str:
    return hashlib.sha256(body).hexdigest()


def _decode_entry(raw: bytes, task: Task, fingerprint_text: str) -> Any:
    """The JSON value of an entry's bytes, or None unless the header names this
    fingerprint and task and the checksum matches the body."""
    newline = raw.find(b"\n", 0, MAX_HEADER_BYTES)
    if newline < 0:
        return None
    header = json.loads(raw[:newline])
    if (not isinstance(header, dict) or header.get("fingerprint") != fingerprint_text
            or header.get("task_id") != task.id):
        return None
    body = raw[newline + 1:]
    if header.get("sha256") != _checksum(body):
        return None  # cut short or edited since it was written
    return json.loads(body)


def _read_entry(path: Path, task: Task, fingerprint_text: str,
                decode: Callable[[Any], T] = from_json) -> T | None:  # type: ignore[assignment]
    raw = _read_bounded(path)
    if raw is None:
        return None
    try:
        value = _decode_entry(raw, task, fingerprint_text)
        data = None if value is None else decode(value)
    except Exception:  # noqa: BLE001 - any entry that does not decode is a miss, never an
        # error: json raises ValueError, RecursionError on deep nesting, MemoryError;
        # from_json KeyError, TypeError, AttributeError, IndexError on another shape.
        return None
    if data is None:
        return None
    try:
        os.utime(path, follow_symlinks=False)  # used now: kept before entries not used
    except OSError:                            # since (_write_entry)
        pass
    return data


def _write_entry(path: Path, task: Task, fingerprint_text: str, value: Any) -> None:
    """Write an entry holding the JSON value ``value`` (:func:`to_json` of a task's data)."""
    try:
        body = json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    except (TypeError, ValueError):
        return  # a value JSON cannot hold (a reader returned numpy scalars): not kept
    header = json.dumps({"fingerprint": fingerprint_text, "task_id": task.id,
                         "sha256": _checksum(body)}, ensure_ascii=False,
                        separators=(",", ":")).encode("utf-8")
    if len(header) + 1 + len(body) > MAX_ENTRY_BYTES or len(header) >= MAX_HEADER_BYTES:
        return  # larger than a reader would accept
    try:
        # The task's folder, inside the private cache folder: made for the user alone.
        path.parent.mkdir(mode=0o700, exist_ok=True)
        # Replaces whatever is at the path (a damaged entry, a FIFO, a link) by renaming.
        atomic_write_bytes(path, header + b"\n" + body, durable=False, private=True)
        _evict_others(path)
    except OSError:
        pass  # a read-only or full disk: the data was loaded, only the saving is lost


# An entry is written as ".<name>.XXXX.tmp" beside it, then renamed (atomic_write_bytes): a
# process killed in between leaves that file. One older than this is no write under way.
_PARTIAL_SUFFIX = ".tmp"
_PARTIAL_AGE_S = 3600


def _sweep_partial(entry: os.DirEntry) -> None:
    """Remove ``entry``, an entry's half-written file, when it is old enough that no
    process is still writing it (a killed scoring left it: nothing else removes it)."""
    try:
        if entry.stat(follow_symlinks=False).st_mtime < time.time() - _PARTIAL_AGE_S:
            os.unlink(entry.path)
    except OSError:
        pass  # removed meanwhile, or not ours to remove


def _evict_others(path: Path) -> None:
    """Of the entries of ``path``'s task and kind for other data or code, keep the most
    recently used few, so that two checkouts (or versions) sharing the cache do not evict
    each other's on every run; remove the older ones, and the half-written files that
    killed writes left in the folder (:func:`_sweep_partial`).

    Only the task's own folder is listed. When every task's entries shared one folder,
    each write listed all of them: the 626 writes of a cold pass of the 313 tasks spent
    0.13 CPU-s listing into an empty cache, 0.89 into one holding 2,500 older entries (a
    few versions of the code), where the task's folder takes 0.02. Another kind's entries
    never match: a name is the kind's prefix and eight characters of checksum."""
    prefix = path.name[:-len("01234567.json")]  # "" for the data, "<kind>." for a value
    width = len(path.name)
    others = []
    with os.scandir(path.parent) as listing:
        for entry in listing:
            if (len(entry.name) == width and entry.name.startswith(prefix)
                    and entry.name.endswith(".json") and entry.name != path.name):
                others.append(Path(entry.path))
            elif entry.name.startswith(".") and entry.name.endswith(_PARTIAL_SUFFIX):
                _sweep_partial(entry)  # the listing is made anyway: no extra scan
    found = []
    for other in others:
        try:
            found.append((other.lstat().st_mtime_ns, other))
        except FileNotFoundError:
            continue  # removed meanwhile by another process
    found.sort(reverse=True)
    for _, old in found[ENTRIES_PER_TASK - 1:]:
        old.unlink(missing_ok=True)


def load_through_cache(task: Task, data_dir: Path, reader: str) -> TaskData:
    """``load(task, data_dir)`` of the reader module named ``reader``, from the cache when
    it holds that very result (the module is imported only when it does not)."""
    folder = cache_dir()
    current = None if folder is None else fingerprint(task, reader, data_dir)
    if folder is None or current is None or not _private_folder(folder):
        return import_module(reader).load(task, data_dir)
    path = _entry_path(folder, task, current)
    cached = _read_entry(path, task, current)
    if cached is not None:
        return cached
    data = import_module(reader).load(task, data_dir)
    _write_entry(path, task, current, to_json(data))
    return data


# --- values derived from a task's data, kept the same way ---

@dataclass(frozen=True)
class DerivedEntry:
    """Where a value derived from a task's data (the explorer's texts, say) is kept: an
    entry like a task's data, whose fingerprint is the data's plus the state of the
    modules that derive it and a ``salt`` (what else the value depends on)."""

    path: Path
    task: Task
    fingerprint: str


def derived_entry(task: Task, data_dir: Path, reader: str, kind: str,
                  modules: tuple[str, ...], salt: str = "") -> DerivedEntry | None:
    """The entry of the value ``kind`` derived from ``task``'s data (read by the module
    ``reader``) by ``modules``; None when the cache is off or cannot be used."""
    folder = cache_dir()
    base = None if folder is None else fingerprint(task, reader, data_dir)
    if folder is None or base is None or not _private_folder(folder):
        return None
    text = json.dumps([base, kind, _modules_state(modules), salt])
    checksum = zlib.crc32(text.encode("utf-8"))
    return DerivedEntry(folder / _entry_stem(task) / f"{kind}.{checksum:08x}.json", task, text)


@lru_cache(maxsize=8)
def _modules_state(modules: tuple[str, ...]) -> tuple[tuple[str, int, int], ...]:
    found = []
    for name in modules:
        path = _module_file(name)
        if path is not None:
            stat_ = path.stat()
            found.append((str(path), stat_.st_size, stat_.st_mtime_ns))
    return tuple(found)


def read_derived(entry: DerivedEntry) -> Any:
    """The JSON value kept in ``entry``, or None (a miss: absent, damaged, other inputs)."""
    return _read_entry(entry.path, entry.task, entry.fingerprint, decode=lambda v: v)


def write_derived(entry: DerivedEntry, value: Any) -> None:
    """Keep the JSON value ``value`` in ``entry`` (a failure only loses the saving)."""
    _write_entry(entry.path, entry.task, entry.fingerprint, value)


def blob_folder(name: str) -> Path | None:
    """A folder of the cache for files kept by content (named by a digest of what they
    hold, which their reader checks), private as the cache's; None when off or unusable."""
    folder = cache_dir()
    if folder is None or not _private_folder(folder) or not _private_folder(folder / name):
        return None
    return folder / name


def read_blob(path: Path) -> bytes | None:
    """A kept file's bytes, read as entries are (a regular file of the user's, bounded);
    the caller checks them against the digest that names them."""
    return _read_bounded(path)


def write_blob(path: Path, data: bytes) -> None:
    try:
        atomic_write_bytes(path, data, durable=False, private=True)
    except OSError:
        pass  # only the saving is lost
