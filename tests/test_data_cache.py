"""The disk cache of loaded task data: a cached load equals a fresh one, and any change
to the data, the reading code or the task gives a fresh load."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import fields, replace
from pathlib import Path

import numpy as np
import pytest

from fixtures.mteb_collection import write_collection
from leaderboard.core.config import ENV_CACHE_DIR, ENV_DATA_CACHE
from leaderboard.core.data import cache, followtable, mteb_layout, pi_indic
from leaderboard.core.data.base import MissingDataError, TaskData
from leaderboard.benchmarks.registry import get_task


@pytest.fixture(autouse=True)
def fresh_states():  # noqa: ANN201 - a generator fixture
    """The folder and source states are kept per process; these tests change files."""
    forget_states()
    yield
    forget_states()


def entries(folder: Path) -> list[Path]:
    """The entries in a task-data cache folder: each task's in a folder of the task's."""
    return sorted(entry for task in folder.iterdir() if task.is_dir()
                  and task.name != "explain-texts" for entry in task.iterdir())


def forget_states() -> None:
    cache._folder_state.cache_clear()
    cache._sources_state.cache_clear()
    cache._private_folder.cache_clear()


@pytest.fixture
def cache_folder(tmp_path: Path, monkeypatch) -> Path:
    root = tmp_path / "cache"
    monkeypatch.setenv(ENV_CACHE_DIR, str(root))
    return root / "task-data"


def assert_same_data(a: TaskData, b: TaskData) -> None:
    for f in fields(TaskData):
        if f.name == "judged":
            continue
        x, y = getattr(a, f.name), getattr(b, f.name)
        if isinstance(x, np.ndarray):
            assert x.dtype == y.dtype and x.tolist() == y.tolist(), f.name
        elif f.name == "pools" and x is not None:
            assert x.keys() == y.keys()
            for q in x:
                assert x[q].dtype == y[q].dtype and x[q].tolist() == y[q].tolist()
        else:
            assert x == y, f.name


@pytest.mark.parametrize("dataset", ["wqt", "wtr", "tarx", "industr"])
def test_a_cached_followtable_task_equals_its_fresh_load(data_dir: Path, cache_folder: Path,
                                                         dataset: str) -> None:
    task = get_task(f"followtable/{dataset}")
    fresh = followtable.load(task, data_dir)
    first = cache.load_through_cache(task, data_dir, followtable.__name__)  # a miss: loads, writes
    assert len(entries(cache_folder)) == 1
    again = cache.load_through_cache(task, data_dir, followtable.__name__)  # a hit
    assert_same_data(fresh, first)
    assert_same_data(fresh, again)


@pytest.mark.parametrize("task_id, local, language, fmt", [
    ("followir/robust04", "followir/robust04", None, "parquet"),
    ("mfollowir/fas", "mfollowir/multilingual", "fas", "jsonl"),
])
def test_a_cached_mteb_layout_task_equals_its_fresh_load(tmp_path: Path, cache_folder: Path,
                                                         task_id: str, local: str,
                                                         language: str | None, fmt: str) -> None:
    data_dir = tmp_path / "data"
    write_collection(data_dir / local, n_queries=3, pool_size=12, language=language, fmt=fmt)
    task = get_task(task_id)
    fresh = mteb_layout.load(task, data_dir)
    assert fresh.pools
    cache.load_through_cache(task, data_dir, mteb_layout.__name__)
    assert_same_data(fresh, cache.load_through_cache(task, data_dir, mteb_layout.__name__))


def small_followtable(data_dir: Path, tmp_path: Path) -> Path:
    """A copy of WTR's files under a new data folder, to change them."""
    copy = tmp_path / "data"
    shutil.copytree(data_dir / "followtable" / "WTR", copy / "followtable" / "WTR")
    return copy


def test_a_changed_data_file_is_read_again(data_dir: Path, tmp_path: Path,
                                           cache_folder: Path) -> None:
    root = small_followtable(data_dir, tmp_path)
    task = get_task("followtable/wtr")
    before = cache.load_through_cache(task, root, followtable.__name__)
    qrels = root / "followtable" / "WTR" / "qrels" / "test.tsv"
    lines = qrels.read_text().splitlines(keepends=True)
    qid, doc, _ = lines[1].rstrip("\n").split("\t")
    lines[1] = f"{qid}\t{doc}\t0\n"  # same size, new content
    mtime = qrels.stat().st_mtime_ns
    qrels.write_text("".join(lines))
    os.utime(qrels, ns=(mtime + 1_000_000, mtime + 1_000_000))
    forget_states()  # as a new command would
    after = cache.load_through_cache(task, root, followtable.__name__)
    assert before.roles["altered"].qrels[qid][doc] != 0
    assert after.roles["altered"].qrels[qid][doc] == 0
    assert len(entries(cache_folder)) == 2  # the old entry stays, unused
    (root / "followtable" / "WTR" / "only_queries.jsonl").unlink()
    forget_states()
    with pytest.raises(MissingDataError):  # never served from the cache
        cache.load_through_cache(task, root, followtable.__name__)


def test_the_fingerprint_covers_the_reading_code_and_the_task(data_dir: Path, tmp_path: Path,
                                                              monkeypatch) -> None:
    task = get_task("followtable/wtr")
    reader = followtable.__name__
    current = cache.fingerprint(task, reader, data_dir)
    assert current == cache.fingerprint(task, reader, data_dir)
    assert current != cache.fingerprint(replace(task, params={**task.params, "x": "1"}),
                                        reader, data_dir)
    # The code it depends on: the reader, the benchmark declarations, the libraries.
    covered = {p.name for p in cache._source_files(reader)}
    assert {"followtable.py", "base.py", "cache.py", "registry.py", "pi_indic.py",
            "declaration.py", "__init__.py"} <= covered
    source = Path(followtable.__file__)
    copy = tmp_path / "followtable.py"
    shutil.copy2(source, copy)  # same size and modification time, other path
    found = cache._module_file
    monkeypatch.setattr(cache, "_module_file",
                        lambda name: copy if name == reader else found(name))
    forget_states()
    moved = cache.fingerprint(task, reader, data_dir)
    assert moved != current
    copy.write_bytes(source.read_bytes().replace(b"def ", b"def  ", 1))  # an edit
    os.utime(copy, ns=(source.stat().st_mtime_ns,) * 2)
    forget_states()
    assert cache.fingerprint(task, reader, data_dir) != moved


def split_entry(entry: Path) -> tuple[dict, bytes]:
    """An entry's header and its data line."""
    header, body = entry.read_bytes().split(b"\n", 1)
    return json.loads(header), body


def entry_of(header: dict, body: bytes, *, checksum: bool = True) -> bytes:
    """Entry bytes from a header and a data line; the checksum made to match the data
    when asked, as a careful forger would."""
    if checksum:
        header = {**header, "sha256": cache._checksum(body)}
    return json.dumps(header).encode() + b"\n" + body


DEEP = b"[" * 200_000 + b"]" * 200_000  # past the JSON parser's recursion limit


@pytest.mark.parametrize("damage", ["not json", "truncated", "empty", "other fingerprint",
                                    "wrong shape", "deep nesting", "deep nesting, checksummed",
                                    "checksum of other data"])
def test_a_damaged_entry_is_ignored_and_written_again(data_dir: Path, cache_folder: Path,
                                                      damage: str) -> None:
    task = get_task("followtable/wtr")
    fresh = cache.load_through_cache(task, data_dir, followtable.__name__)
    (entry,) = entries(cache_folder)
    raw = entry.read_bytes()
    header, body = split_entry(entry)
    entry.write_bytes({
        "not json": b"\x00\x01 garbage",
        "truncated": raw[: len(raw) // 2],
        "empty": b"",
        "other fingerprint": entry_of({**header, "fingerprint": header["fingerprint"] + " "},
                                      body),
        "wrong shape": entry_of(header, json.dumps({"task_id": task.id, "roles": []}).encode()),
        # A crafted entry gave `internal error (RecursionError)` on every run until it was
        # deleted: a file of deep nesting, and one whose data is deep nesting.
        "deep nesting": DEEP,
        "deep nesting, checksummed": entry_of(header, DEEP),
        "checksum of other data": entry_of(header, body.replace(b"[", b"[ ", 1),
                                           checksum=False),
    }[damage])
    assert_same_data(fresh, cache.load_through_cache(task, data_dir, followtable.__name__))
    assert split_entry(entry) == (header, body)  # written again


def test_an_entry_with_other_judgments_under_the_genuine_fingerprint_is_not_used(
        data_dir: Path, cache_folder: Path) -> None:
    """An entry that keeps the fingerprint but changes the judgments changed the scores
    (altered nDCG@10 0.1379 became 0.0): the entry's checksum of its own content now
    turns it into a miss."""
    task = get_task("followtable/wtr")
    fresh = cache.load_through_cache(task, data_dir, followtable.__name__)
    (entry,) = entries(cache_folder)
    raw = entry.read_bytes()
    # Every judged-relevant table of the altered queries graded 0, everything else kept.
    relevant = {(doc, grade) for judged in fresh.roles["altered"].qrels.values()
                for doc, grade in judged.items() if grade > 0}
    edited = raw
    for doc, grade in relevant:
        edited = edited.replace(f'"{doc}":{grade}'.encode(), f'"{doc}":0'.encode())
    assert edited != raw
    entry.write_bytes(edited)
    forget_states()
    again = cache.load_through_cache(task, data_dir, followtable.__name__)
    assert_same_data(fresh, again)
    assert entry.read_bytes() == raw  # written again


READ_ENTRY = """
import resource, sys
from pathlib import Path
resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
from leaderboard.core.data import cache, followtable
from leaderboard.benchmarks.registry import get_task
task = get_task("followtable/wtr")
data = cache.load_through_cache(task, Path(sys.argv[1]), followtable.__name__)
print(len(data.roles["altered"].query_ids))
"""


@pytest.mark.parametrize("kind", ["fifo", "link to /dev/zero", "link to a good entry"])
def test_an_entry_that_is_not_a_regular_file_is_not_read(data_dir: Path, cache_folder: Path,
                                                         kind: str) -> None:
    """A FIFO at an entry's path hung `eval` until it was killed; a link to /dev/zero was
    read until memory ran out (MemoryError at 1.3-2.2 GB). Only regular files are read,
    without following links, and the entry is written again in their place."""
    task = get_task("followtable/wtr")
    fresh = cache.load_through_cache(task, data_dir, followtable.__name__)
    (entry,) = entries(cache_folder)
    good = entry.read_bytes()
    entry.unlink()
    if kind == "fifo":
        os.mkfifo(entry)
    elif kind == "link to /dev/zero":
        entry.symlink_to("/dev/zero")
    else:
        elsewhere = cache_folder.parent / "elsewhere.json"
        elsewhere.write_bytes(good)
        entry.symlink_to(elsewhere)
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]),
               OPENBLAS_NUM_THREADS="1", **{ENV_CACHE_DIR: str(cache_folder.parent)})
    done = subprocess.run([sys.executable, "-c", READ_ENTRY, str(data_dir)], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert int(done.stdout) == len(fresh.roles["altered"].query_ids)
    assert not entry.is_symlink() and entry.is_file()  # the entry is a file again
    assert entry.read_bytes() == good


def test_the_cache_folder_is_the_users_alone(data_dir: Path, tmp_path: Path,
                                             monkeypatch) -> None:
    task = get_task("followtable/wtr")
    folder = tmp_path / "new" / "task-data"
    monkeypatch.setenv(ENV_CACHE_DIR, str(folder.parent))
    cache.load_through_cache(task, data_dir, followtable.__name__)
    assert folder.stat().st_mode & 0o777 == 0o700
    (entry,) = entries(folder)
    assert entry.stat().st_mode & 0o077 == 0  # readable by the user alone
    assert entry.parent.stat().st_mode & 0o077 == 0  # and the task's folder too
    # A folder others could write to (made by hand, or by an older version) is closed.
    forget_states()
    folder.chmod(0o777)
    cache.load_through_cache(task, data_dir, followtable.__name__)
    assert folder.stat().st_mode & 0o777 == 0o700


@pytest.mark.skipif(not hasattr(os, "getuid") or os.getuid() != 0,
                    reason="giving a file to another user needs root")
def test_a_folder_or_entry_of_another_user_is_not_trusted(data_dir: Path,
                                                          cache_folder: Path) -> None:
    task = get_task("followtable/wtr")
    fresh = cache.load_through_cache(task, data_dir, followtable.__name__)
    (entry,) = entries(cache_folder)
    header, body = split_entry(entry)
    forged = entry_of(header, body.replace(b'"groups":{', b'"groups":{"x":"y",', 1))
    entry.write_bytes(forged)  # a consistent entry, but another user's
    os.chown(entry, 4242, 4242)
    forget_states()
    assert_same_data(fresh, cache.load_through_cache(task, data_dir, followtable.__name__))
    assert split_entry(entry) == (header, body)  # replaced by the user's own
    entry.write_bytes(forged)
    os.chown(cache_folder, 4242, 4242)  # the whole folder is someone else's
    forget_states()
    assert_same_data(fresh, cache.load_through_cache(task, data_dir, followtable.__name__))
    assert entry.read_bytes() == forged  # neither read nor written


def test_an_unwritable_cache_only_costs_the_saving(data_dir: Path, tmp_path: Path,
                                                    monkeypatch) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    monkeypatch.setenv(ENV_CACHE_DIR, str(blocked / "cache"))
    task = get_task("followtable/wtr")
    assert_same_data(followtable.load(task, data_dir),
                     cache.load_through_cache(task, data_dir, followtable.__name__))


def test_the_cache_can_be_turned_off(data_dir: Path, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv(ENV_DATA_CACHE, "off")
    assert cache.cache_dir() is None
    task = get_task("followtable/wtr")
    assert_same_data(followtable.load(task, data_dir),
                     cache.load_through_cache(task, data_dir, followtable.__name__))
    monkeypatch.delenv(ENV_DATA_CACHE)
    monkeypatch.delenv(ENV_CACHE_DIR)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache.cache_dir() == tmp_path / "xdg" / "followboard" / "task-data"


@pytest.mark.parametrize("task_id", ["pi-indic-val150/t1/hin", "pi-indic-val150/t2/hin-tam",
                                     "pi-indic-val150/t3/urd", "pi-indic-val150/t4/ory"])
def test_a_cached_pi_indic_task_equals_its_fresh_load(data_dir: Path, cache_folder: Path,
                                                      task_id: str) -> None:
    task = get_task(task_id)
    fresh = pi_indic.load(task, data_dir)
    cache.load_through_cache(task, data_dir, pi_indic.__name__)
    assert_same_data(fresh, cache.load_through_cache(task, data_dir, pi_indic.__name__))


def test_the_notes_of_the_data_survive_the_cache(data_dir: Path, cache_folder: Path) -> None:
    """What a reader did with upstream's files (Punjabi row 4's stray brace) is part of
    the task's data, kept in its entry: `eval` says it on a hit as on a miss."""
    task = get_task("pi-indic-val150/t1/pan")
    fresh = pi_indic.load(task, data_dir)
    assert [note.kind for note in fresh.notes] == ["stray-brace"]
    assert cache.load_through_cache(task, data_dir, pi_indic.__name__).notes == fresh.notes
    (entry,) = entries(cache_folder)
    assert json.loads(split_entry(entry)[1])["notes"] == [
        ["stray-brace", fresh.notes[0].where, ["5"]]]
    assert cache.load_through_cache(task, data_dir, pi_indic.__name__).notes == fresh.notes


def test_a_cache_hit_does_not_import_the_reader(data_dir: Path, cache_folder: Path) -> None:
    """A hit needs no reader (PI-Indic's reads 12 CSV files and mines T4's hard
    negatives); a miss reads the files without pandas (its import took 0.3-0.5 s)."""
    code = ("import sys\n"
            "from pathlib import Path\n"
            "from leaderboard.core.data import load_task_data\n"
            "from leaderboard.benchmarks.registry import get_task\n"
            f"load_task_data(get_task('pi-indic-val150/t1/hin'), Path({str(data_dir)!r}))\n"
            "print(sorted(m for m in ('pandas', 'leaderboard.core.data.pi_indic') if m in sys.modules))")
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parent.parent),
               **{ENV_CACHE_DIR: str(cache_folder.parent)})
    runs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           env=env, check=True).stdout.split("\n")[0] for _ in range(2)]
    assert runs == ["['leaderboard.core.data.pi_indic']", "[]"]  # a miss, then a hit


def test_a_few_entries_per_task_are_kept_the_most_recently_used(
        data_dir: Path, tmp_path: Path, cache_folder: Path) -> None:
    """Two versions of the data (or the code) sharing a cache must not evict each other;
    past ENTRIES_PER_TASK, the least recently used entries go."""
    root = small_followtable(data_dir, tmp_path)
    task = get_task("followtable/wtr")
    qrels = root / "followtable" / "WTR" / "qrels" / "test.tsv"
    mtime = qrels.stat().st_mtime_ns
    versions = [mtime + i * 1_000_000_000 for i in range(cache.ENTRIES_PER_TASK + 2)]

    def load_version(i: int) -> Path:
        os.utime(qrels, ns=(versions[i], versions[i]))
        forget_states()
        cache.load_through_cache(task, root, followtable.__name__)
        return cache._entry_path(cache_folder, task,
                                 cache.fingerprint(task, followtable.__name__, root))

    first = load_version(0)
    for i in range(1, cache.ENTRIES_PER_TASK):
        load_version(i)
        os.utime(first)  # version 0 keeps being used (a hit touches its entry)
    assert load_version(0) == first and first.exists()  # a hit, nothing evicted
    newest = load_version(cache.ENTRIES_PER_TASK)  # one more than fits
    kept = entries(cache_folder)
    assert len(kept) == cache.ENTRIES_PER_TASK and first in kept and newest in kept



def test_a_killed_writes_half_written_file_is_swept_by_the_next_write(
        data_dir: Path, tmp_path: Path, cache_folder: Path) -> None:
    """A process killed while it wrote an entry left ".<name>.XXXX.tmp" in the task's
    folder, and nothing ever removed it (a task's data entry is up to megabytes). The
    next write into the folder removes one older than an hour; a newer one may be a
    write under way and stays."""
    root = small_followtable(data_dir, tmp_path)
    task = get_task("followtable/wtr")
    cache.load_through_cache(task, root, followtable.__name__)
    path = cache._entry_path(cache_folder, task, cache.fingerprint(task, followtable.__name__,
                                                                    root))
    stale = path.parent / f".{path.name}.k1ll3d.tmp"
    recent = path.parent / f".{path.name}.wr1t1ng.tmp"
    for left in (stale, recent):
        left.write_bytes(b'{"fingerprint": "half')
    hours_ago = time.time() - 2 * 3600
    os.utime(stale, (hours_ago, hours_ago))
    path.unlink()  # a miss: the entry is written again
    forget_states()
    cache.load_through_cache(task, root, followtable.__name__)
    assert path.is_file() and recent.exists() and not stale.exists()


def test_entries_of_a_derived_value_are_not_evicted_by_the_datas(
        data_dir: Path, tmp_path: Path, cache_folder: Path) -> None:
    """A value derived from a task's data (the explorer's texts) is kept beside the
    data's entries; keeping more versions of the data than fit evicts only data entries."""
    root = small_followtable(data_dir, tmp_path)
    task = get_task("followtable/wtr")
    entry = cache.derived_entry(task, root, followtable.__name__, "texts", ("json",))
    assert entry is not None
    cache.write_derived(entry, {"kept": [1, 2]})
    qrels = root / "followtable" / "WTR" / "qrels" / "test.tsv"
    mtime = qrels.stat().st_mtime_ns
    for i in range(cache.ENTRIES_PER_TASK + 1):
        os.utime(qrels, ns=(mtime + i * 10**9, mtime + i * 10**9))
        forget_states()
        cache.load_through_cache(task, root, followtable.__name__)
    assert entry.path.exists()
    data_entries = [p for p in entries(cache_folder) if not p.name.startswith("texts.")]
    assert len(data_entries) == cache.ENTRIES_PER_TASK
    # The derived entry's fingerprint holds the data's: it was written for the first
    # version of the data, so it is a miss now.
    now = cache.derived_entry(task, root, followtable.__name__, "texts", ("json",))
    assert now is not None and now.path != entry.path and cache.read_derived(now) is None


def test_writing_an_entry_lists_only_its_tasks_entries(
        data_dir: Path, tmp_path: Path, cache_folder: Path, monkeypatch) -> None:
    """Keeping a task's few entries looks at that task's entries alone: listing every
    task's at each write cost a cold pass of the 313 tasks 0.89 CPU-s in a cache holding
    2,500 older entries. The other tasks' entries stay."""
    root = small_followtable(data_dir, tmp_path)
    cache.load_through_cache(get_task("followtable/tarx"), data_dir, followtable.__name__)
    (other,) = cache_folder.rglob("*.json")
    for i in range(1000):  # other tasks' entries, as a cold pass of every task leaves
        shutil.copyfile(other, other.parent / f"other-{i:04x}.json")
    listed = []  # the names listed in the cache folder
    real_scandir = os.scandir

    class Counted:
        def __init__(self, path: object) -> None:
            self.inside = Path(os.fsdecode(path)).is_relative_to(cache_folder)
            self.listing = real_scandir(path)

        def __enter__(self) -> Counted:
            return self

        def __exit__(self, *exc: object) -> None:
            self.listing.close()

        def __iter__(self):  # noqa: ANN204 - the DirEntry iterator
            for entry in self.listing:
                if self.inside:
                    listed.append(entry.name)
                yield entry

        def close(self) -> None:
            self.listing.close()

    monkeypatch.setattr(os, "scandir", Counted)
    cache.load_through_cache(get_task("followtable/wtr"), root, followtable.__name__)
    monkeypatch.undo()
    assert len(listed) < 10, f"{len(listed)} names listed to write one entry"
    assert len(list(cache_folder.rglob("*.json"))) == 1002  # nothing of the others removed


def walk_listing(folder: Path) -> list[tuple[str, int, int]]:
    """The plain listing the fingerprint's is held to: os.walk following links, sorted,
    through pathlib (on a tree without a link to a folder above it)."""
    found = []
    for parent, dirs, files in os.walk(folder, followlinks=True):
        dirs.sort()
        for name in sorted(files):
            path = Path(parent, name)
            stat = path.stat()
            found.append((path.relative_to(folder).as_posix(), stat.st_size, stat.st_mtime_ns))
    return found


def test_the_folder_listing_equals_os_walks(tmp_path: Path) -> None:
    root = tmp_path / "data"
    for rel, text in [("b.txt", "1"), ("a/z.txt", "22"), ("a/b/c.txt", "333"),
                      ("a.txt", "4444"), ("ab/x", ""), ("a-b/y", "55"), ("z/deep/er/f", "6")]:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    (root / "link-to-file").symlink_to(root / "a" / "z.txt")
    (root / "link-to-folder").symlink_to(root / "a", target_is_directory=True)
    listing = cache._files_under(root)
    assert listing == walk_listing(root)
    assert ("link-to-folder/z.txt", 2) in [(name, size) for name, size, _ in listing]
    assert ("link-to-file", 2) in [(name, size) for name, size, _ in listing]
    # A link to a folder above it is not entered again (os.walk would loop).
    (root / "a" / "b" / "up").symlink_to(root, target_is_directory=True)
    assert cache._files_under(root) == listing


def test_a_linked_folder_pointed_elsewhere_is_read_again(data_dir: Path, tmp_path: Path,
                                                         cache_folder: Path) -> None:
    """The listing did not enter a link to a folder (a data folder whose qrels/ links to
    a shared copy): pointed at another copy, of other judgments, it left the fingerprint
    as it was, and the cache served the judgments of the first."""
    mirror = data_dir / "followtable" / "WTR"
    root = tmp_path / "data"
    folder = root / "followtable" / "WTR"
    folder.mkdir(parents=True)
    for path in mirror.iterdir():
        if path.is_file():
            (folder / path.name).symlink_to(path)
    copies = {}
    for name, drop in (("a", 0), ("b", 1)):
        copies[name] = tmp_path / f"qrels-{name}"
        shutil.copytree(mirror / "qrels", copies[name])
        test = copies[name] / "test.tsv"
        lines = test.read_text().splitlines(keepends=True)
        test.chmod(0o644)
        test.write_text("".join(lines[:1] + lines[1 + drop:]))
    task = get_task("followtable/wtr")
    counts = []
    for name in ("a", "b"):
        (folder / "qrels").unlink(missing_ok=True)
        (folder / "qrels").symlink_to(copies[name], target_is_directory=True)
        forget_states()  # as a new command would
        data = cache.load_through_cache(task, root, followtable.__name__)
        counts.append(sum(len(docs) for docs in data.roles["altered"].qrels.values()))
    assert counts[1] == counts[0] - 1


@pytest.mark.parametrize("values", [
    np.array(["doc2", "FBIS3-10082", "a"]),  # ASCII ids: a byte a character
    np.array(["ف-1", "文档", "x"]),  # other ids: numpy's four bytes a character
    np.array([], dtype="<U1"), np.array([3, -1, 7], dtype=np.int64),
    np.array([0.5, -2.25e-300]), np.array([True, False]),
    np.array(["x" * 300, "y"], dtype=object),  # over MAX_FIXED_WIDTH: a list of values
], ids=["ascii", "unicode", "empty", "int64", "float64", "bool", "object"])
def test_an_array_comes_back_as_it_was_kept(values: np.ndarray) -> None:
    kept = json.loads(json.dumps(cache._array_to_json(values)))
    back = cache._array_from_json(kept)
    assert back.dtype == values.dtype and back.tolist() == values.tolist()
    assert back.flags.writeable
    assert ("values" in kept) == (values.dtype.kind == "O")
    assert ("ascii" in kept) == (values.dtype.kind == "U" and values.size > 0
                                 and all(v.isascii() for v in values.tolist()))


@pytest.mark.parametrize("kept", [
    {"dtype": "|O", "stored": "|O", "base64": ""},  # no object array from bytes
    {"dtype": "<U3", "stored": "|S3", "ascii": "abcd"},  # 4 bytes: not whole values
    {"dtype": "<U1", "stored": "|S1", "ascii": "\u00e9"},  # not ASCII
    {"dtype": "<U1", "stored": "<U1", "ascii": "abcd"},  # ASCII text is bytes
    {"dtype": "<U1", "stored": "|S1", "base64": "6Q=="},  # a byte past ASCII, widened
    {"dtype": "<i8", "stored": "<i8", "base64": "not base64!"},
    {"dtype": "<U0", "stored": "|S0", "ascii": ""},
], ids=["object", "partial value", "not ascii", "ascii as unicode", "bytes as unicode",
        "bad base64", "zero width"])
def test_a_malformed_array_is_refused(kept: dict) -> None:
    with pytest.raises((ValueError, TypeError)):
        cache._array_from_json(kept)


def test_a_reranking_tasks_pools_are_kept_as_bytes(tmp_path: Path, cache_folder: Path) -> None:
    """The largest part of a FollowIR or mFollowIR entry (a pool of ids per query) and
    the corpus ids are kept as bytes (the equality of what comes back is
    test_a_cached_mteb_layout_task_equals_its_fresh_load's)."""
    data_dir = tmp_path / "data"
    write_collection(data_dir / "followir/robust04", n_queries=3, pool_size=12, fmt="parquet")
    cache.load_through_cache(get_task("followir/robust04"), data_dir, mteb_layout.__name__)
    (entry,) = entries(cache_folder)
    kept = json.loads(split_entry(entry)[1])
    assert kept["pools"] and all("ascii" in pool for pool in kept["pools"].values())
    assert "ascii" in kept["doc_ids"]
