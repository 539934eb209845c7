"""Download each benchmark's files from upstream, at the revisions pinned in the registry.

Two kinds of upstream, each planned and fetched by its own client:

* GitHub (FollowTable, PI-Indic-Align): :mod:`leaderboard.app.datapull.github`, the git trees
  API and raw downloads through a small urllib client; FollowTable's ``corpus.jsonl`` is
  packed from the upstream ``data/<DS>/tables/<id>.txt`` files.
* The Hugging Face Hub (FollowIR, mFollowIR): :mod:`leaderboard.app.datapull.hub`, through
  ``huggingface_hub`` (``HfApi.dataset_info``, ``HfApi.list_repo_tree``,
  ``hf_hub_download``) at the commit the pinned revision resolves to; the files of the
  split mteb reads of each config land at their paths in the repository, beside its
  dataset card, where :mod:`leaderboard.core.data.mteb_layout` reads them.

This module chooses the sources, runs the pulls (in parallel per source), keeps the
manifest and says what is missing; :mod:`leaderboard.app.datapull.common` holds what they
share (errors, endpoints, checksums).

Every file is verified before it is kept: its size and its git blob SHA-1
(``sha1(b"blob <size>\\0" + content)``) as listed upstream, or the SHA-256 of a Git LFS
object. Files are written to a temporary file (Hub files: a staging folder) beside the
target and renamed over it only once verified, so a failed or interrupted pull leaves no partial file (and no
half-packed corpus). A small manifest, ``<local_dir>/.manifest.json``, written last,
records each local file's checksum and the upstream revision; a later pull of the same
revision re-verifies the local files against it and needs no network at all.

The base URLs can be pointed elsewhere (a mirror, or a test server) with constructor
arguments or the environment variables ``LEADERBOARD_GITHUB_API``,
``LEADERBOARD_GITHUB_RAW``, ``LEADERBOARD_GITHUB_MEDIA`` and ``LEADERBOARD_HF_ENDPOINT``
(else ``HF_ENDPOINT``, as ``huggingface_hub`` reads it).
Tokens come from ``GITHUB_TOKEN`` and ``HF_TOKEN``; they are sent only as an
``Authorization`` header to the matching host (never forwarded on a redirect) and never
printed.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import sys
import threading
from concurrent.futures import FIRST_EXCEPTION, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping, Sequence

from leaderboard.app.datapull.common import (
    HF_STAGING,
    PART_PREFIX,
    PART_SUFFIX,
    Host,
    PackedCorpus,
    PullError,
    PullPlan,
    RemoteFile,
    SourceTasks,
    SourceUnreachableError,
    UpstreamError,
    local_path_problem,
)
from leaderboard.app.datapull.github import GitHubClient, HttpClient, write_packed_corpus
from leaderboard.app.datapull.hub import HubClient
from leaderboard.benchmarks import declared
from leaderboard.benchmarks.registry import all_tasks, matches_task_pattern
from leaderboard.core.checksums import Checksum, file_matches
from leaderboard.core.config import ENV_GITHUB_TOKEN, ENV_HF_TOKEN, Endpoints, data_dir_option
from leaderboard.core.data import data_files
from leaderboard.core.data.revision import (
    MANIFEST_FORMAT,
    MANIFEST_NAME,
    PULLING,
    read_manifest,
    unlisted_files,
)
from leaderboard.core.fileio import atomic_write_text, size_text
from leaderboard.core.tasks import DataSource, Task


@contextlib.contextmanager
def _pulling(local_root: Path) -> Iterator[None]:
    """This process's hold on a source's folder for a pull, made if missing: a second
    pull into the same folder swept the first one's partial files and staging folder
    from under it (the first then failed with a disk error). An exclusive ``flock`` on
    the folder, or a :class:`PullError` saying who holds it. A pull that fails removes
    the folders it made (:func:`_remove_made_folders`), under its hold; one that opened
    such a folder just before it went takes the new one instead."""
    for _ in range(3):
        local_root.mkdir(parents=True, exist_ok=True)
        fd = os.open(local_root, os.O_RDONLY | os.O_DIRECTORY)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise PullError(f"another `leaderboard data pull` is writing {local_root}; "
                            "run this one when it has finished") from None
        try:
            if os.path.samestat(os.fstat(fd), os.stat(local_root)):
                break
        except FileNotFoundError:
            pass
        os.close(fd)  # the folder held is no longer the one at the path: hold that one
    else:
        raise PullError(f"{local_root} was removed each time this pull took hold of it; "
                        "run it again")
    try:
        yield
    finally:
        os.close(fd)


def _missing_folders(path: Path) -> list[Path]:
    """``path`` and each folder above it that does not exist, deepest first."""
    missing = []
    while not path.exists() and path.parent != path:
        missing.append(path)
        path = path.parent
    return missing


def _remove_made_folders(made: Sequence[Path]) -> None:
    """Remove the folders a failed pull made (``made``, deepest first, as
    :func:`_missing_folders` listed them before the pull), and the folders inside the
    first, where they are empty: a pull that fetched nothing leaves nothing (it left
    empty followtable/WQT/ folders behind it), while a verified file it kept keeps its
    folders, and a folder that was there before is never touched."""
    if not made:
        return
    inside = [p for p in made[0].rglob("*") if p.is_dir() and not p.is_symlink()]
    for path in sorted(inside, key=lambda p: len(p.parts), reverse=True) + list(made):
        try:
            path.rmdir()  # only an empty folder goes
        except OSError:
            pass


@dataclass
class SourceResult:
    source: DataSource
    local_root: Path
    downloaded: int = 0
    skipped: int = 0
    bytes_downloaded: int = 0
    # True when the manifest matched and every local file verified: no request was made.
    offline_check: bool = False

    def summary(self) -> str:
        if self.offline_check:
            return (f"{self.source.local_dir}: up to date ({self.skipped} files verified "
                    f"against {MANIFEST_NAME}, {self.source.pinned})")
        return (f"{self.source.local_dir}: {self.downloaded} downloaded "
                f"({size_text(self.bytes_downloaded)}), {self.skipped} already present "
                f"and verified ({self.source.pinned})")


# --- choosing sources ---------------------------------------------------------------------



def sources_by_local_dir() -> dict[str, SourceTasks]:
    grouped: dict[str, list[Task]] = {}
    for task in all_tasks().values():
        grouped.setdefault(task.source.local_dir, []).append(task)
    return {d: SourceTasks(ts[0].source, ts[0].benchmark, tuple(ts)) for d, ts in grouped.items()}


def select_sources(names: Sequence[str]) -> list[SourceTasks]:
    """Sources for benchmark names (``all``, aliases) or task ids / id prefixes, in order."""
    benchmarks = tuple(b.id for b in declared())
    aliases = {alias: b.id for b in declared() for alias in b.pull_aliases}
    every = sources_by_local_dir()
    chosen: dict[str, SourceTasks] = {}
    for raw in names:
        name = aliases.get(raw, raw).rstrip("/")
        if name == "all":
            matched = list(every.values())
        elif name in benchmarks:
            matched = [s for s in every.values() if s.benchmark == name]
        else:
            matched = [s for s in every.values()
                       if any(t.id == name or t.id.startswith(name + "/") for t in s.tasks)]
        if not matched:
            choices = ", ".join(("all", *benchmarks, *aliases))
            raise PullError(f"unknown benchmark or task {raw!r}; choose from {choices}, "
                             "or give a task id (see `leaderboard tasks`)")
        for s in matched:
            chosen.setdefault(s.source.local_dir, s)
    return list(chosen.values())


def narrow_to_tasks(items: Sequence[SourceTasks], patterns: Sequence[str],
                    of: Sequence[str] = ()) -> list[SourceTasks]:
    """``items`` with only the tasks ``patterns`` select (``--tasks PATTERN...``: task ids
    or wildcard patterns, :func:`~leaderboard.benchmarks.registry.matches_task_pattern`),
    and only the sources left holding one. A pattern that selects no task of them is a
    PullError; ``of`` names what ``items`` were chosen by, for its message."""
    for pattern in patterns:
        if not any(matches_task_pattern(t.id, pattern) for item in items for t in item.tasks):
            benchmarks = {b.id for b in declared()} | {a for b in declared()
                                                          for a in b.pull_aliases}
            hint = (f"; to list a benchmark's tasks, name it before --tasks (`leaderboard "
                    f"data status {pattern} --tasks`)" if pattern in benchmarks else
                    "; give task ids or patterns such as 'followtable/*' "
                    "(`leaderboard tasks` lists them)")
            raise PullError(f"--tasks {pattern!r} matches no task"
                            + (f" of {' '.join(of)}" if of else "") + hint)
    narrowed = [replace(item, tasks=tuple(t for t in item.tasks if any(
        matches_task_pattern(t.id, p) for p in patterns))) for item in items]
    return [item for item in narrowed if item.tasks]


# --- manifest ----------------------------------------------------------------------------

def write_manifest(local_root: Path, source: DataSource, commit: str,
                   entries: Mapping[str, Mapping[str, Any]]) -> None:
    manifest = {
        "format": MANIFEST_FORMAT,
        "host": source.host,
        "repo": source.repo,
        "revision": source.revision,
        "commit": commit,
        "files": {k: dict(entries[k]) for k in sorted(entries)},
    }
    _write_manifest_json(local_root, manifest)


def _write_manifest_json(local_root: Path, manifest: Mapping[str, Any]) -> None:
    atomic_write_text(local_root / MANIFEST_NAME,
                      json.dumps(manifest, indent=1, sort_keys=True, ensure_ascii=False) + "\n")


def mark_pulling(local_root: Path, manifest: Mapping[str, Any], source: DataSource) -> None:
    """Mark the folder's manifest, of another revision's pull, as that of a pull of
    ``source`` under way (:data:`~leaderboard.core.data.revision.PULLING`) before the
    pull changes a file: killed between its first rename and its manifest, it leaves a
    folder of files of both revisions, which the old manifest would still vouch for (to
    `score`, which lists files without hashing them, and `data status`). The file list
    stays the earlier pull's, for the next pull to remove what it wrote."""
    _write_manifest_json(local_root, {**manifest, PULLING: source.pinned})


def manifest_problems(local_root: Path, manifest: Mapping[str, Any]) -> list[str]:
    """Local files that are missing or differ from the manifest (empty list: all verified)."""
    problems = []
    for rel, entry in manifest.get("files", {}).items():
        path = local_root / rel
        if local_path_problem(rel):  # written by a pull before paths were checked
            problems.append(f"{path}: outside the folder; pull again")
            continue
        try:
            expected = Checksum.from_json(entry)
        except (KeyError, TypeError, ValueError):
            problems.append(f"{path}: manifest entry unreadable")
            continue
        if not path.is_file():
            problems.append(f"{path}: missing")
        elif not file_matches(path, expected):
            problems.append(f"{path}: differs from the pulled file ({expected.algorithm} check)")
    return problems


def source_unlisted_files(item: SourceTasks, data_dir: Path, manifest: Mapping[str, Any]
                          ) -> list[Path]:
    """Files a reader of the source's tasks reads (:func:`leaderboard.core.data.data_files`,
    what each reader declares and reads by) that ``manifest`` does not list
    (:func:`leaderboard.core.data.revision.unlisted_files`)."""
    local_root = Path(data_dir) / item.source.local_dir
    listed = manifest.get("files") or {}
    unlisted: dict[Path, None] = {}
    for task in item.tasks:
        unlisted.update(dict.fromkeys(unlisted_files(local_root, listed,
                                                     data_files(task, data_dir).read)))
    return list(unlisted)


def unlisted_problem(path: Path, manifest: Mapping[str, Any]) -> str:
    """What is wrong with a file of :func:`source_unlisted_files`, and what to do."""
    return (f"{path}: read with the pulled files, but {MANIFEST_NAME} does not list it "
            f"(not a file of {manifest.get('repo')}@{manifest.get('revision')}); move it "
            "out of the folder")


def manifest_matches_source(manifest: Mapping[str, Any] | None, source: DataSource) -> bool:
    return bool(manifest and manifest.get("repo") == source.repo
                and manifest.get("revision") == source.revision and manifest.get("files")
                and PULLING not in manifest)

# --- the puller --------------------------------------------------------------------------

ProgressFactory = Callable[[int, str], Any]


def _tqdm_progress(total: int, desc: str) -> Any:
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit="file", file=sys.stderr, leave=False,
                dynamic_ncols=True, mininterval=0.5)


class _NoProgress:
    def update(self, n: int = 1) -> None:
        pass

    def close(self) -> None:
        pass


class DataPuller:
    """Pull registry data sources into a local data directory."""

    def __init__(self, data_dir: Path, *, endpoints: Endpoints | None = None,
                 http: HttpClient | None = None, jobs: int = 8, force: bool = False,
                 progress: bool = True, environ: Mapping[str, str] | None = None) -> None:
        env = os.environ if environ is None else environ
        self.data_dir = Path(data_dir)
        self.endpoints = endpoints or Endpoints.from_env(env)
        self.http = http or HttpClient()
        self.jobs = max(1, jobs)
        self.force = force
        self._progress: ProgressFactory = (_tqdm_progress if progress
                                           else (lambda _n, _d: _NoProgress()))
        self._stop = threading.Event()
        self.github = GitHubClient(self.endpoints, self.http,
                                   env.get(ENV_GITHUB_TOKEN) or None, self._stop)
        self.hub = HubClient(self.endpoints, self.http,
                             env.get(ENV_HF_TOKEN) or env.get("HUGGING_FACE_HUB_TOKEN") or None,
                             self.data_dir)

    # -- public --

    def pull(self, item: SourceTasks) -> SourceResult:
        """Pull one source; raise a :class:`PullError` (nothing half-written) on failure."""
        source = item.source
        local_root = self.data_dir / source.local_dir
        made = _missing_folders(local_root)
        try:
            with _pulling(local_root):
                try:
                    return self._pull_held(item, local_root)
                except BaseException:
                    _remove_made_folders(made)
                    raise
        except OSError as exc:
            # Network errors are PullErrors by now; an OSError here is the local disk
            # (read-only data mirror, full disk, permissions).
            where = exc.filename or local_root
            raise PullError(f"cannot write under {local_root} ({where}: "
                            f"{exc.strerror or exc})") from None

    def _pull_held(self, item: SourceTasks, local_root: Path) -> SourceResult:
        source = item.source
        _sweep_partial_files(local_root)
        shutil.rmtree(local_root / HF_STAGING, ignore_errors=True)
        # A stopped pull's too: its file list is what the earlier pulls wrote.
        manifest = read_manifest(local_root, stopped=True)
        if (not self.force and manifest is not None
                and manifest_matches_source(manifest, source)
                and not manifest_problems(local_root, manifest)
                and not source_missing_files(item, self.data_dir)):
            result = SourceResult(source, local_root, skipped=len(manifest["files"]),
                                  offline_check=True)
        else:
            try:
                plan = (self.github.plan(item) if source.host == "github"
                        else self.hub.plan(item))
                result = self._execute(plan, local_root, manifest)
            finally:
                # Hub downloads are staged here; whatever is left was not kept.
                shutil.rmtree(local_root / HF_STAGING, ignore_errors=True)
            still_missing = source_missing_files(item, self.data_dir)
            if still_missing:
                listing = "\n".join(f"  - {p}" for p in still_missing[:10])
                raise UpstreamError(
                    f"{source.pinned} was pulled into {local_root}, but the "
                    f"readers still miss:\n{listing}\nThe upstream layout differs from what "
                    f"the readers expect.")
            manifest = read_manifest(local_root)
            assert manifest is not None
        # A file the pull never wrote is left alone, but one the readers would read with
        # the pulled files makes the folder something other than the revision pulled.
        unlisted = source_unlisted_files(item, self.data_dir, manifest)
        if unlisted:
            listing = "\n".join(f"  - {unlisted_problem(p, manifest)}" for p in unlisted[:10])
            more = f"\n  ... and {len(unlisted) - 10} more" if len(unlisted) > 10 else ""
            raise PullError(f"{local_root} holds files the readers would read that are not "
                            f"the pulled revision's:\n{listing}{more}")
        return result

    def _pack(self, packed: PackedCorpus, target: Path) -> tuple[Checksum, int]:
        """Fetch and verify every table, then write corpus.jsonl in one atomic step."""
        texts: dict[str, str] = {}

        def fetch(item: tuple[str, RemoteFile]) -> None:
            table_id, remote = item
            content = self.github.fetch_bytes(remote)
            try:
                texts[table_id] = content.decode("utf-8-sig")
            except UnicodeDecodeError as exc:
                raise UpstreamError(f"{remote.upstream_path}: not UTF-8 text "
                                    f"({exc.reason} at byte {exc.start})") from None

        bar = self._progress(len(packed.tables), f"{target.parent.name}/{packed.local_path} "
                                                 f"({len(packed.tables)} tables)")
        try:
            self._parallel(fetch, packed.tables, bar)
        finally:
            bar.close()
        checksum = write_packed_corpus(target, texts)
        return checksum, sum(r.checksum.size for _, r in packed.tables)

    def _parallel(self, fn: Callable[[Any], Any], items: Sequence[Any], bar: Any) -> None:
        """Run fn over items on a thread pool; on the first failure stop the rest and raise."""
        self._stop.clear()
        pool = ThreadPoolExecutor(max_workers=self.jobs, thread_name_prefix="pull")
        futures: list[Future] = []
        try:
            futures = [pool.submit(fn, it) for it in items]
            pending = set(futures)
            while pending:
                done, pending = wait(pending, timeout=0.5, return_when=FIRST_EXCEPTION)
                for f in done:
                    exc = f.exception()
                    if exc is not None:
                        raise exc
                    bar.update(1)
        except BaseException:
            # Stop in-flight downloads at their next chunk; each removes its own temp file.
            self._stop.set()
            raise
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
            self._stop.clear()

    def _execute(self, plan: PullPlan, local_root: Path,
                 manifest: Mapping[str, Any] | None) -> SourceResult:
        source = plan.source
        # Where each file goes comes from upstream (a dataset card's config names, a
        # listing): refused before anything is written when it would leave the folder.
        for local in [f.local_path for f in plan.files] + [p.local_path for p in plan.packed]:
            problem = local_path_problem(local)
            if problem:
                raise UpstreamError(f"{source.pinned}: a file would be written "
                                    f"outside {local_root}: {problem}; nothing was pulled")
        result = SourceResult(source, local_root)
        # What an earlier pull wrote here, of whichever repository and revision.
        written: Mapping[str, Any] = (manifest or {}).get("files") or {}
        # Entries of an earlier pull of this repository (any revision): a file is reused
        # only when its upstream id is unchanged, so an older revision is harmless here.
        previous = written if manifest and manifest.get("repo") == source.repo else {}
        entries: dict[str, dict[str, Any]] = {}
        to_fetch: list[RemoteFile] = []
        for remote in plan.files:
            target = local_root / remote.local_path
            kept = None if self.force else _already_verified(target, remote.checksum,
                                                               remote.upstream_id,
                                                               previous.get(remote.local_path))
            if kept is not None:
                entries[remote.local_path] = _entry(remote.upstream_path, remote.upstream_id, kept)
                result.skipped += 1
            else:
                to_fetch.append(remote)
        to_pack: list[PackedCorpus] = []
        for packed in plan.packed:
            target = local_root / packed.local_path
            kept = None if self.force else _already_verified(target, None, packed.upstream_id,
                                                               previous.get(packed.local_path))
            if kept is not None:
                entries[packed.local_path] = _entry(packed.tables_folder, packed.upstream_id, kept)
                result.skipped += 1
            else:
                to_pack.append(packed)

        # Files an earlier pull (of another revision, or of the repository the registry
        # pinned before) wrote that this revision lacks: a reader reads every parquet file
        # of a config folder, so they would mix into its data.
        planned = {f.local_path for f in plan.files} | {p.local_path for p in plan.packed}
        stale = [local_root / rel for rel in sorted(written.keys() - planned)
                 if local_path_problem(rel) is None]
        if (to_fetch or to_pack or stale) and manifest is not None \
                and not manifest_matches_source(manifest, source):
            mark_pulling(local_root, manifest, source)

        lock = threading.Lock()

        def fetch(remote: RemoteFile) -> None:
            target = local_root / remote.local_path
            checksum, size = (self.github.download(remote, target) if plan.source.host == "github"
                              else self.hub.download(plan, remote, target))
            with lock:
                entries[remote.local_path] = _entry(remote.upstream_path, remote.upstream_id,
                                                    checksum)
                result.downloaded += 1
                result.bytes_downloaded += size

        if to_fetch:
            bar = self._progress(len(to_fetch), source.local_dir)
            try:
                self._parallel(fetch, to_fetch, bar)
            finally:
                bar.close()
        for packed in to_pack:
            checksum, size = self._pack(packed, local_root / packed.local_path)
            entries[packed.local_path] = _entry(packed.tables_folder, packed.upstream_id, checksum)
            result.downloaded += 1
            result.bytes_downloaded += size
        # The stale files go before the new manifest, which then never lists them; a
        # killed pull leaves the old manifest (marked), which still does, for the next
        # pull to remove.
        for path in stale:
            if path.is_file() or path.is_symlink():
                path.unlink(missing_ok=True)
        # Last: the manifest only ever describes files that are all in place and verified.
        write_manifest(local_root, source, plan.commit, entries)
        return result

def _entry(upstream: str, upstream_id: str, checksum: Checksum) -> dict[str, Any]:
    return {"upstream": upstream, "upstream_id": upstream_id, **checksum.to_json()}


def _already_verified(target: Path, expected: Checksum | None, upstream_id: str,
                      previous: Mapping[str, Any] | None) -> Checksum | None:
    """The local file's checksum when it can be kept, else None.

    A file is kept when it hashes to what upstream lists, or when the manifest says it was
    pulled from the same upstream content and it still hashes to what was recorded then
    (packed corpora, LFS objects behind GitHub pointers).
    """
    if not target.is_file():
        return None
    if expected is not None and file_matches(target, expected):
        return expected
    if previous and previous.get("upstream_id") == upstream_id:
        try:
            recorded = Checksum.from_json(previous)
        except (KeyError, TypeError, ValueError):
            return None
        if file_matches(target, recorded):
            return recorded
    return None

def _sweep_partial_files(local_root: Path) -> None:
    """Remove temp files a killed pull left behind (a clean failure removes its own)."""
    for path in local_root.rglob(f"{PART_PREFIX}*{PART_SUFFIX}"):
        try:
            path.unlink()
        except OSError:
            pass

# --- presence (shared with `leaderboard data status`) ---------------------------------------

def source_missing_files(item: SourceTasks, data_dir: Path) -> list[Path]:
    """What the readers of the source's tasks need that is not in ``data_dir`` (empty:
    all present), as each declares it (:func:`leaderboard.core.data.data_files`)."""
    missing: dict[Path, None] = {}
    for task in item.tasks:
        missing.update(dict.fromkeys(data_files(task, Path(data_dir)).missing))
    return list(missing)


# --- pulling several sources ------------------------------------------------------------------

@dataclass
class PullOutcome:
    results: list[SourceResult] = field(default_factory=list)
    # One message per failure; an unreachable host is one message for all its sources.
    errors: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors


def pull_sources(items: Sequence[SourceTasks], data_dir: Path, *, puller: DataPuller | None = None,
                 log: Callable[[str], None] = lambda m: print(m, file=sys.stderr)) -> PullOutcome:
    """Pull each source in turn; keep going after a failure, but stop asking a host that
    could not be reached at all (its other sources join the same message)."""
    data_dir = Path(data_dir)
    puller = puller or DataPuller(data_dir)
    outcome = PullOutcome()
    unreachable: dict[Host, tuple[SourceUnreachableError, list[DataSource]]] = {}
    for item in items:
        host: Host = item.source.host
        if host in unreachable:
            unreachable[host][1].append(item.source)
            continue
        log(f"pulling {item.source.pinned} -> "
            f"{data_dir / item.source.local_dir}")
        try:
            result = puller.pull(item)
        except SourceUnreachableError as exc:
            unreachable[host] = (exc, [item.source])
            continue
        except PullError as exc:
            outcome.errors.append(f"{item.source.local_dir}: {exc}")
            continue
        outcome.results.append(result)
    for host, (exc, sources) in unreachable.items():
        outcome.errors.append(unreachable_message(exc, sources, data_dir))
    return outcome


def unreachable_message(exc: SourceUnreachableError, sources: Sequence[DataSource],
                        data_dir: Path) -> str:
    lines = [f"{exc}; nothing was downloaded.",
             "Without network access, copy the files in by hand (e.g. from a mirror of the "
             "same revision) to:"]
    for s in sources:
        lines.append(f"  {data_dir / s.local_dir}   <- {s.repo} at {s.revision}")
    lines.append(f"then check them with `leaderboard data status{data_dir_option(data_dir)}`.")
    return "\n".join(lines)
