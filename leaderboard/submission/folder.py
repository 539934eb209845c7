"""A submission folder ``submissions/<id>/`` found and checked: its metadata, and its run
files per task and role, in the folder or fetched from the run store.

The layout (which entries a folder holds, who writes each, the limits) is
:mod:`leaderboard.submission.layout`'s; ``metadata.yaml``'s schema is
:mod:`leaderboard.submission.metadata`'s. The run files may be in the folder, or only
listed in ``manifest.txt`` and kept in the run store (:mod:`leaderboard.store`), whence
they are fetched and verified. A submission may cover any subset of tasks, but each task
it covers must have a file for every role the task needs.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from leaderboard.benchmarks.registry import all_tasks, close_task_ids, meant_text
from leaderboard.core.tasks import Task
from leaderboard.core.fileio import file_kind, size_text
from leaderboard.core.report import Report
from leaderboard.store.files import StoredRef, StoreError
from leaderboard.store.locations import RunStore, configured_store
from leaderboard.submission.files import SubmissionFiles
from leaderboard.submission.layout import (MANIFEST_NAME, MAX_FILE_BYTES, MAX_FILES,
                                           MAX_SUBMISSION_BYTES, METADATA_NAME,
                                           NO_LINKS, NOT_PLAIN, PREDICTION_SUFFIXES, ROOT_ENTRIES,
                                           RUN_SUFFIXES,
                                           RUNS_DIR, STRAY_FILE, Writer, score_command,
                                           written_by)
from leaderboard.submission.manifest import (FileEntry, Manifest, digest_file, digest_files,
                                             load_manifest)
from leaderboard.submission.metadata import Metadata, load_metadata
from leaderboard.submission.transaction import recover


@dataclass
class Submission:
    root: Path
    metadata: Metadata | None
    # task id -> role -> a verified local copy of the file: in the folder, or fetched from
    # the run store into its cache
    files: dict[str, dict[str, Path]] = field(default_factory=dict)
    # task id -> role -> the name messages give the file (``<id>/runs/<task>/<file>``)
    names: dict[str, dict[str, str]] = field(default_factory=dict)
    # every input file by path, size and SHA-256 (those in the folder as they are now):
    # what `leaderboard score` writes to manifest.txt
    inputs: Manifest = field(default_factory=Manifest)
    metadata_digest: FileEntry | None = None
    # More run files than a submission may hold (reported): none was read, so ``inputs``
    # holds the manifest's entries only and nothing can be compared with results.json.
    over_limit: bool = False

    @property
    def id(self) -> str:
        return self.root.name

    def tasks(self) -> list[Task]:
        registry = all_tasks()
        return [registry[t] for t in registry if t in self.files]


def _role_of(name: str, task: Task) -> str | None:
    for suffix in RUN_SUFFIXES + PREDICTION_SUFFIXES:
        if name.endswith(suffix):
            stem = name[: -len(suffix)]
            return stem if stem in task.roles else None
    return None


def _placing(rel: str) -> tuple[str, str] | None:
    """The task and role of the run file ``rel`` (``runs/<task id>/<file>``), or None."""
    task_id, _, name = rel[len(RUNS_DIR) + 1:].rpartition("/")
    task = all_tasks().get(task_id)
    role = _role_of(name, task) if task is not None else None
    return (task_id, role) if role is not None else None


@dataclass
class Inputs:
    """A submission's input files before any is fetched: the manifest as it stands, the
    run files in the folder, and both merged (the folder's copy of a path wins)."""

    listed: Manifest | None
    local: dict[str, Path]
    merged: Manifest
    metadata_digest: FileEntry | None
    # More files than a submission may hold (reported): none was read, and ``merged``
    # holds the manifest's entries only.
    over_limit: bool = False


def _files_and_links(folder: Path) -> list[Path]:
    """Everything under ``folder`` but its folders (the files, the symbolic links, and
    any FIFO, socket or device, which the caller refuses), sorted as paths: what
    ``sorted(p for p in folder.rglob("*") if not p.is_dir() or p.is_symlink())`` lists
    (linked folders not entered, unreadable ones skipped), from one ``os.scandir`` per
    folder. Through pathlib, a whole submission's 313 folders took 23 ms before any task
    could start; this takes 4. tests/test_submissions.py holds it to the rglob listing."""
    found: list[str] = []

    def walk(path: str) -> None:
        try:
            with os.scandir(path) as entries:
                listed = list(entries)
        except OSError:
            return
        for entry in listed:
            if entry.is_dir(follow_symlinks=False):
                walk(entry.path)
            else:
                found.append(entry.path)

    walk(str(folder))
    return sorted(map(Path, found))


def collect_inputs(root: Path, report: Report, *, record_local: bool,
                   shown: Path | None = None, shown_data: Path | None = None) -> Inputs:
    """Read ``manifest.txt`` and digest the run files in the folder: none of them when
    the folder and the manifest hold more than a submission may (then the count is the
    one error reported, and ``over_limit`` is set).

    A file in the folder that the manifest lists with another size or SHA-256 is an error
    (the manifest is out of date) unless ``record_local``: `leaderboard score` records
    the folder's files (a run file of a task and role the manifest lists under another
    name too, in place of that listing), and the error says to run it on ``shown`` (the
    folder as the reader of the report names it; default ``root``) with the data folder
    ``shown_data`` (the one the reporting command read, where the reader has it: scored
    with another, the scores are computed on other data; None names none). Nothing is
    fetched here. A change of the folder that a killed command left is finished or undone first
    (:func:`leaderboard.submission.transaction.recover`), so every reader sees the folder
    as it was or as it was meant to be."""
    recover(root)
    sub_display = root.name
    listed = load_manifest(root, report, f"{sub_display}/{MANIFEST_NAME}")
    local: dict[str, Path] = {}
    runs_dir = root / RUNS_DIR
    if runs_dir.is_symlink():
        report.add(f"{sub_display}/runs", None, f"{NO_LINKS}; commit the folder itself")
    elif os.path.lexists(runs_dir) and not runs_dir.is_dir():
        report.add(f"{sub_display}/runs", None, f"{file_kind(runs_dir)}, not a folder: runs/ "
                                                "is the folder of the run files, "
                                                "runs/<task id>/<role>.trec[.gz]")
    elif runs_dir.is_dir():
        for path in _files_and_links(runs_dir):
            rel = path.relative_to(root).as_posix()
            if path.is_symlink():
                report.add(f"{sub_display}/{rel}", None,
                           NO_LINKS)
                continue
            if not path.is_file():  # a FIFO, a socket, a device: never opened
                report.add(f"{sub_display}/{rel}", None,
                           f"not a regular file ({file_kind(path)}): {NOT_PLAIN}")
                continue
            local[rel] = path
    merged = Manifest(source=listed.source if listed else None,
                      entries=dict(listed.entries) if listed else {})
    if record_local:
        # A run file in the folder replaces the one the manifest lists for its task and
        # role under another name (gzipped, uncompressed or renamed since it was scored),
        # as a new file at the listed path does: the folder's files are the submitter's.
        held = {_placing(rel) for rel in local} - {None}
        for rel in [rel for rel in merged.entries if rel not in local]:
            if _placing(rel) in held:
                del merged.entries[rel]
    count = len(merged.entries.keys() | local.keys())
    if count > MAX_FILES:
        # The count is the one problem, as ci pr-check says it, and no file is read: a
        # folder of 100,001 was hashed whole (19 s) before it was refused.
        report.add(sub_display, None, f"{count:,} run files, over the limit of {MAX_FILES:,}")
        return Inputs(listed, local, merged, None, over_limit=True)
    for rel, entry in digest_files(local).items():
        known = merged.entries.get(rel)
        if known is not None and (known.size, known.sha256) != (entry.size, entry.sha256) \
                and not record_local:
            report.add(f"{sub_display}/{rel}", None,
                       f"this file ({entry.describe()}) is not the one {MANIFEST_NAME} line "
                       f"{known.line} lists ({known.describe()}); run "
                       f"{score_command(shown or root, shown_data)} to record it")
        merged.entries[rel] = entry
    metadata_path = root / METADATA_NAME
    digest = (digest_file(metadata_path, METADATA_NAME)
              if metadata_path.is_file() and not metadata_path.is_symlink() else None)
    return Inputs(listed, local, merged, digest)


def folder_problem(root: Path) -> str | None:
    """Why ``root`` cannot be a submission's folder (None: it may be one), as the
    commands given a SUBMISSION_DIR say it: it does not exist, it is not a folder, or it
    holds neither ``metadata.yaml`` nor ``runs/`` nor a manifest (a mistyped path,
    ``validate submissions/../..``, ``score .`` at the repository's root). A folder
    that was not there was "not a submission folder", as if it were one of another
    kind."""
    if not os.path.lexists(root):
        return "no such folder"
    if not root.is_dir():
        return "not a folder"
    if any(os.path.lexists(root / name) for name in (METADATA_NAME, RUNS_DIR, MANIFEST_NAME)):
        return None
    return (f"not a submission folder: it holds neither {METADATA_NAME} nor {RUNS_DIR}/ nor "
            f"{MANIFEST_NAME} (a submission is a folder submissions/<id>/ with its "
            f"{METADATA_NAME} and its runs)")


def reported_not_a_submission(root: Path, report: Report) -> bool:
    """Whether ``root`` is no submission at all (:func:`folder_problem`), reported as one
    error rather than an error per entry, or one about the first link found in it."""
    problem = folder_problem(root)
    if problem is None:
        return False
    report.add(root.name or str(root), None, problem)
    return True


def discover(root: Path, report: Report, *, store: RunStore | None = None,
             record_local: bool = False, shown: Path | None = None,
             shown_data: Path | None = None) -> Submission:
    """Find metadata and run files (those in the folder, and those its manifest lists,
    fetched from the run store and verified); unknown tasks, roles and stray files are
    errors. ``record_local``, ``shown`` and ``shown_data``: see :func:`collect_inputs`. A
    folder that is no submission gets one error (:func:`reported_not_a_submission`)."""
    sub_display = root.name
    if reported_not_a_submission(root, report):
        return Submission(root, None, {})
    metadata = load_metadata(root / METADATA_NAME, f"{sub_display}/{METADATA_NAME}", report,
                             folder_name=root.name)
    registry = all_tasks()
    for entry in sorted(root.iterdir()):
        if entry.name not in ROOT_ENTRIES:
            report.add(f"{sub_display}/{entry.name}", None, STRAY_FILE)
    for scorers in written_by(Writer.SCORER):  # read by validate, never through a link
        path = root / scorers.name
        if path.is_symlink():
            report.add(f"{sub_display}/{scorers.name}", None, f"{NO_LINKS}; commit the file itself")
        elif os.path.lexists(path) and not path.is_file():  # a FIFO would block its reader
            report.add(f"{sub_display}/{scorers.name}", None,
                       f"not a regular file ({file_kind(path)}): {NOT_PLAIN}")
    inputs = collect_inputs(root, report, record_local=record_local, shown=shown,
                            shown_data=shown_data)
    submission = Submission(root, metadata, inputs=inputs.merged,
                            metadata_digest=inputs.metadata_digest,
                            over_limit=inputs.over_limit)
    if inputs.over_limit:
        # The count is the problem (reported): a line (and a search for the task meant)
        # per file of a folder of 100,000 took half a minute to print.
        return submission
    if not inputs.merged.entries:
        if not (root / MANIFEST_NAME).exists() and not os.path.lexists(root / RUNS_DIR):
            report.add(sub_display, None, f"no runs/ folder and no {MANIFEST_NAME}: nothing "
                                          "to score")
        return submission
    too_big = limit_problems(inputs.merged)
    for problem in too_big:
        report.add(sub_display, None, problem)
    placed: dict[str, tuple[str, str]] = {}   # path -> (task id, role)
    for rel, entry in sorted(inputs.merged.entries.items()):
        where, line = ((f"{sub_display}/{rel}", None) if rel in inputs.local
                       else (f"{sub_display}/{MANIFEST_NAME}", entry.line))
        named = f"{rel}: " if rel not in inputs.local else ""
        task_id, _, name = rel[len(RUNS_DIR) + 1:].rpartition("/")
        task = registry.get(task_id)
        # A file right under runs/, or in a folder of task folders (runs/followtable/):
        # no task folder, so no task id to name.
        if not task_id or any(t.startswith(f"{task_id}/") for t in registry):
            report.add(where, line, f"{named}a file outside any task's folder: runs/ holds a "
                                    "folder per task, each with its run files (runs/<task "
                                    "id>/<role>.trec[.gz], e.g. runs/followtable/wtr/"
                                    "original.trec)")
            continue
        if task is None:
            meant = meant_text([f"{RUNS_DIR}/{t}/" for t in close_task_ids(task_id,
                                                                            list(registry))])
            report.add(where, line, f"{named}unknown task {task_id!r}: the folder under runs/ "
                                    "must be a task id, e.g. runs/followtable/wtr/"
                                    + (f"; did you mean {meant}?" if meant else ""))
            continue
        role = _role_of(name, task)
        if role is None:
            allowed = ", ".join(f"{r}.trec[.gz]" if r != "predictions" else "predictions.tsv[.gz]"
                                for r in task.roles)
            report.add(where, line, f"{named}unexpected file name; {task_id} takes: {allowed}")
            continue
        if (task_id, role) in placed.values():
            other = next(p for p, placing in placed.items() if placing == (task_id, role))
            if (rel in inputs.local) != (other in inputs.local):
                # One the manifest lists, the other in the folder: renamed (gzipped, say)
                # since it was scored, which scoring records (:func:`collect_inputs`).
                here, listed = (rel, other) if rel in inputs.local else (other, rel)
                report.add(f"{sub_display}/{here}", None,
                           f"a second {role} file for {task_id}: {MANIFEST_NAME} line "
                           f"{inputs.merged.entries[listed].line} lists {listed}; run "
                           f"{score_command(shown or root, shown_data)} to record this "
                           "file in its place, or delete it")
            else:
                report.add(where, line, f"{named}a second {role} file for {task_id} beside "
                                        f"{other}: a task takes one file per role, so "
                                        "delete one of them")
            continue
        placed[rel] = (task_id, role)
    remote = [StoredRef(rel, inputs.merged.entries[rel].size, inputs.merged.entries[rel].sha256)
              for rel in placed if rel not in inputs.local]
    found: dict[str, Path | StoreError] = dict(inputs.local)
    if remote and not too_big:
        files = SubmissionFiles(root.name, root, inputs.merged.source,
                                store if store is not None else configured_store(root))
        found.update(files.locate_all(remote))
    reported: set[int] = set()
    for rel, (task_id, role) in placed.items():
        path = found.get(rel)
        if isinstance(path, StoreError):
            if id(path) not in reported:  # files left at the deadline share one error
                report.add(path.display, None, path.message)
                reported.add(id(path))
            continue
        if path is None:
            continue  # not fetched: the submission has other errors
        submission.files.setdefault(task_id, {})[role] = path
        submission.names.setdefault(task_id, {})[role] = f"{sub_display}/{rel}"
    tasks_seen = {task_id for task_id, _ in placed.values()}
    for task_id in sorted(tasks_seen):
        for role in registry[task_id].roles:
            if (task_id, role) not in placed.values():
                names = ("predictions.tsv or predictions.tsv.gz" if role == "predictions"
                         else f"{role}.trec or {role}.trec.gz")
                what = {"run": "its run", "predictions": "its predictions"}.get(
                    role, f"the {role} run")
                report.add(f"{sub_display}/runs/{task_id}", None, f"missing {what} ({names})")
    return submission


def limit_problems(manifest: Manifest) -> list[str]:
    """How a submission's files exceed the limits of size (the manifest's own, applied
    to the folder's files and the listed ones together; their count is
    :func:`collect_inputs`')."""
    out = []
    if manifest.total_bytes > MAX_SUBMISSION_BYTES:
        out.append(f"the run files add up to {size_text(manifest.total_bytes)}, over the "
                   f"{size_text(MAX_SUBMISSION_BYTES)} limit of a submission")
    big = [e for e in manifest.entries.values() if e.size > MAX_FILE_BYTES]
    out += [f"{e.path} is {size_text(e.size)}, over the {size_text(MAX_FILE_BYTES)} limit "
            "per file; compress runs with gzip" for e in big]
    return out


def run_files(folder: Path) -> dict[str, FileEntry | None]:
    """Every run file of a submission by path: the manifest's entries, and the files in
    ``folder/runs`` (None where the manifest does not list them). Reads nothing else
    (after :func:`leaderboard.submission.transaction.recover`)."""
    recover(folder)
    report = Report()
    listed = load_manifest(folder, report, f"{folder.name}/{MANIFEST_NAME}")
    out: dict[str, FileEntry | None] = dict(listed.entries) if listed else {}
    runs = folder / RUNS_DIR
    if runs.is_dir() and not runs.is_symlink():
        for path in runs.rglob("*"):
            if path.is_file() and not path.is_symlink():
                out.setdefault(path.relative_to(folder).as_posix(), None)
    return dict(sorted(out.items()))
