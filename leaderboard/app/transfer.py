"""Moving a submission's stored files: ``leaderboard runs pull | push | verify | add``.

Besides the run files of ``manifest.txt``, a submission's stored files are the ones its
results.json names: the per-query file and the query explorer's explanation files (their
manifest, and every file it lists: :mod:`leaderboard.submission.explain_files`). They move, are
fetched and checked with the runs.

* :func:`pull` fetches every file the manifest lists (and the scorer's files) into the
  submission's folder, verified;
* :func:`push` puts the files of submissions into the run store and records where in
  each manifest: a folder store gets copies, a Hugging Face dataset one commit (whose id
  each manifest's ``source:`` then names); the copies in the folders are removed after a
  push elsewhere. The publish workflow runs it, with the write token in that step only;
* :func:`verify` fetches and checks everything a submission names, and says whether its
  results are up to date;
* :func:`add` puts new run files into a submission and scores it; when scoring fails,
  the submission is left as it was.

Each changes a submission's folder as one transaction
(:func:`leaderboard.submission.transaction.change_folder`): stopped at any instant, the
folder is as it was or as intended, and nothing in it is followed through a link.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable

from leaderboard.benchmarks.registry import matches_task_pattern
from leaderboard.core.config import ENV_RUN_STORE
from leaderboard.core.errors import FollowBoardError
from leaderboard.core.fileio import atomic_file, file_kind, left_by_gone_process
from leaderboard.core.report import Report, plural
from leaderboard.store.files import StoredRef, StoreError, unique_errors
from leaderboard.store.locations import (
    FolderStore,
    HttpsStore,
    HubSource,
    HubStore,
    RunStore,
    configured_store,
    store_path,
)
from leaderboard.submission.explain_files import (
    ExplainFilesError,
    read_stored_manifest,
    stored_refs,
)
from leaderboard.submission.explain_writers import placement
from leaderboard.submission.files import SubmissionFiles
from leaderboard.submission.folder import collect_inputs, reported_not_a_submission
from leaderboard.submission.layout import (ENTRIES, MANIFEST_NAME, NO_LINKS, NOT_PLAIN,
                                           RESULTS_NAME, RUNS_DIR, score_command)
from leaderboard.submission.manifest import Manifest, load_manifest, write_manifest
from leaderboard.submission.metadata import check_folder_id
from leaderboard.submission.pipeline import (
    SubmissionOutcome,
    relocated,
    results_staleness,
    score_submission,
)
from leaderboard.submission.results import ResultsFileError, read_results
from leaderboard.submission.transaction import change_folder, links_in, recover

Progress = Callable[[str], None]


def _quiet(_: str) -> None:
    return None


class TransferError(FollowBoardError, ValueError):
    """A push, pull or add that could not be done; nothing was changed."""


@dataclass
class Stored:
    """What a submission names and where each file is found."""

    folder: Path
    manifest: Manifest
    files: SubmissionFiles
    refs: list[StoredRef] = field(default_factory=list)
    # The explanation manifest (also in ``refs``) and the files it lists: one group, the
    # scorer's output of one scoring, pushed or kept together.
    explain: list[StoredRef] = field(default_factory=list)

    @property
    def id(self) -> str:
        return self.folder.name


def _stored(folder: Path, store: RunStore, report: Report) -> Stored | None:
    """The manifest's files, the per-query file and the explanation files of ``folder``
    (None after reporting why they cannot be listed). The explanation files are listed
    by their manifest, read through the store (verified against results.json) wherever
    it is. A change a killed command left is finished or undone first, as every reader of
    a folder does: push read the folder as it was, then wrote that old manifest over the
    finished change and removed files by its refs."""
    recover(folder)
    for link in links_in(folder):
        report.add(f"{folder.name}/{link}", None, f"{NO_LINKS}; commit the file itself")
    check_folder_id(folder, report)
    if not report.ok:
        return None
    manifest = load_manifest(folder, report, f"{folder.name}/{MANIFEST_NAME}")
    if manifest is None:
        if report.ok:
            report.add(f"{folder.name}/{MANIFEST_NAME}", None,
                       f"missing: run {score_command(folder)} first, which writes it")
        return None
    refs = [StoredRef(e.path, e.size, e.sha256) for e in manifest.entries.values()]
    files = SubmissionFiles(folder.name, folder, manifest.source, store)
    explain: list[StoredRef] = []
    results_path = folder / RESULTS_NAME
    if results_path.is_file():
        try:
            results = read_results(results_path, store, per_query=False)
        except ResultsFileError as exc:
            report.add(f"{folder.name}/{RESULTS_NAME}", None, str(exc))
            return None
        if results.per_query_file is not None:
            refs.append(results.per_query_file.ref())
        if results.explain_manifest is not None:
            try:
                listed = read_stored_manifest(files, results.explain_manifest)
            except StoreError as exc:
                report.add(exc.display, None, exc.message)
                return None
            except ExplainFilesError as exc:
                report.add(files.display(results.explain_manifest.path), None, str(exc))
                return None
            explain = [results.explain_manifest.ref(), *stored_refs(listed)]
    return Stored(folder, manifest, files, refs + explain, explain)


def _locate(stored: Stored, report: Report) -> dict[str, Path] | None:
    """Every file ``stored`` names, verified (fetched into the cache when remote)."""
    found = stored.files.locate_all(stored.refs)
    for problem in unique_errors(found):
        report.add(problem.display, None, problem.message)
    return None if not report.ok else found  # type: ignore[return-value]


def verify(folder: Path, store: RunStore | None = None) -> Report:
    """Every file ``folder`` names, fetched (into the cache) and checked; the files in the
    folder checked against the manifest; and whether results.json is up to date. A folder
    that is no submission is one error, and nothing of it is read."""
    report = Report()
    if reported_not_a_submission(folder, report):
        return report
    store = store if store is not None else configured_store(folder)
    collect_inputs(folder, report, record_local=False)
    if not report.ok:
        return report
    stored = _stored(folder, store, report)
    if stored is not None:
        _locate(stored, report)
    # An explanation manifest that could not be had is reported once, above (the
    # staleness problem names the same file before its first colon).
    said = {issue.path for issue in report.errors}
    for problem in results_staleness(folder, store):
        if f"{folder.name}/{problem.partition(':')[0]}" in said:
            continue
        report.add(f"{folder.name}/{RESULTS_NAME}", None,
                   f"{problem}: run {score_command(folder)}")
    return report


def pull(folder: Path, store: RunStore | None = None) -> tuple[Report, list[str], list[str]]:
    """Fetch what ``folder``'s manifest lists (and its per-query file) into the folder, as
    one change of it (:func:`leaderboard.submission.transaction.change_folder`); returns
    the report, the files written and the explorer's files kept in the run store's cache
    instead.

    The explorer's files are CI's, written into the folder after the merge
    (:mod:`leaderboard.submission.layout`): where they belong apart from the folder
    (:func:`leaderboard.submission.explain_writers.placement`: a submission not
    merged yet, or a merged one whose run store keeps them) they are fetched and checked
    but kept in the cache, where every reader finds them, so that the folder stays one a
    pull request may carry (`ci pr-check` refused the files a submission's own scoring
    had kept there, once pulled). A folder that is no submission is one error, and
    nothing is written."""
    report = Report()
    if reported_not_a_submission(folder, report):
        return report, [], []
    store = store if store is not None else configured_store(folder)
    stored = _stored(folder, store, report)
    found = _locate(stored, report) if stored is not None else None
    if found is None or stored is None:
        return report, [], []
    fetched = {rel: path for rel, path in sorted(found.items())
               if stored.files.local(rel) is None}
    kept: list[str] = []
    if stored.explain and placement(stored.files).apart is not None:
        ci = {ref.path for ref in stored.explain}
        kept = [rel for rel in fetched if rel in ci]
        fetched = {rel: path for rel, path in fetched.items() if rel not in ci}
    if not fetched:
        return report, [], kept
    with change_folder(folder) as change:
        for rel, path in fetched.items():
            with atomic_file(change.folder / rel, durable=False) as sink, \
                    path.open("rb") as src:
                shutil.copyfileobj(src, sink, 1 << 20)
        change.commit()
    return report, list(fetched), kept


@dataclass
class PushPlan:
    stored: Stored
    found: dict[str, Path]           # files to copy or upload, verified
    carried: list[StoredRef] = field(default_factory=list)  # in the store's repository already


def _needs_push(stored: Stored, store: RunStore) -> bool:
    local = [r for r in stored.refs if stored.files.local(r.path) is not None]
    if isinstance(store, HubStore):
        source = stored.manifest.source
        return bool(local) or source is None or source.repo != store.repo
    if isinstance(store, FolderStore):
        inside = store.root.resolve() / store_path(stored.id, "")
        return stored.folder.resolve() != inside.resolve() or stored.manifest.source is not None
    return False


def _in_folder_store_already(plan: PushPlan, store: RunStore) -> bool:
    """Whether ``store`` is a folder store that holds every file of ``plan`` as listed
    already (each found, verified, at its place there) and the manifest names no other
    source: nothing would be copied, written or removed. :func:`_needs_push` cannot tell
    without reading the files, which the plan has done."""
    if not isinstance(store, FolderStore) or plan.stored.manifest.source is not None:
        return False
    inside = (store.root / store_path(plan.stored.id, "")).resolve()
    return all(path.resolve() == inside / rel for rel, path in plan.found.items())


def _plan(stored: Stored, store: RunStore, report: Report) -> PushPlan | None:
    """What a push of ``stored`` moves. A dataset's commits keep every earlier file, so
    files the store's own repository holds already (the manifest's source is in it) are
    not fetched and uploaded again, only checked there after the push."""
    source = stored.manifest.source
    carried: list[StoredRef] = []
    moving = stored.refs
    if isinstance(store, HubStore) and source is not None and source.repo == store.repo \
            and source.folder == store_path(stored.id, "").rstrip("/"):
        # A file the folder holds again (a rescore writes the same per-query file) is not
        # sent twice when the store's copy at the manifest's commit is the same file.
        # The explanation files go as one group: when the store holds their manifest as
        # it is, it holds every file the manifest names by content (each was checked at
        # the commit that stored it), and none is fetched to be compared.
        grouped = {r.path for r in stored.explain}
        explain_kept = bool(stored.explain) and (
            stored.files.local(stored.explain[0].path) is None
            or stored.files.held_by_source(stored.explain[0]))
        kept = {r.path for r in stored.refs if r.path not in grouped and (
            stored.files.local(r.path) is None or stored.files.held_by_source(r))}
        kept |= grouped if explain_kept else set()
        carried = [r for r in stored.refs if r.path in kept]
        moving = [r for r in stored.refs if r.path not in kept]
    found = stored.files.locate_all(moving)
    for problem in unique_errors(found):
        report.add(problem.display, None, problem.message)
    if not report.ok:
        return None
    return PushPlan(stored, found, carried)  # type: ignore[arg-type]


def push(folders: list[Path], store: RunStore | None = None, *, keep: bool = False,
         message: str | None = None, progress: Progress = _quiet) -> tuple[Report, list[str]]:
    """Put every file ``folders`` name into ``store`` (default: the configured one), record
    where in their manifests, and (unless ``keep``) remove the copies in the folders.
    Submissions whose files are in the store already are left alone. Returns the
    problems and, per submission pushed, a line saying where its files went; nothing is
    written unless every file of every submission could be had."""
    report = Report()
    plans: list[PushPlan] = []
    targets = {f: store if store is not None else configured_store(f) for f in folders}
    if len(set(targets.values())) > 1:
        raise TransferError("the submissions belong to projects with different run stores; "
                            "push them separately")
    for folder, target in targets.items():
        if isinstance(target, HttpsStore):
            raise TransferError(f"{target.describe()} is read-only: copy the files there "
                                "yourself (the same paths, submissions/<id>/...)")
        stored = _stored(folder, target, report)
        if stored is None:
            continue
        if _no_store_set(target, stored):
            # The "store" is the folder itself: a push would copy its files into a
            # submissions/ folder inside it.
            raise TransferError(f"{folder}: nothing to push to: the run store "
                                f"{_store_words(target, stored)}. Set ${ENV_RUN_STORE}, or "
                                "give --to FOLDER with --keep")
        if not _needs_push(stored, target):
            continue
        configured = configured_store(folder)
        if (isinstance(target, FolderStore) and not keep
                and not (isinstance(configured, FolderStore)
                         and configured.root.resolve() == target.root.resolve())):
            # A manifest records a dataset's commit, but nothing of a folder: readers find
            # a folder store only as the configured one, so moved files would be lost.
            # Said apart: "the folder A is not this project's run store (the folder B)",
            # where B, with no store set, was the submission's own folder.
            raise TransferError(
                f"--to {target.root}: that folder is not this project's run store, and a "
                f"manifest cannot say that the files are there. The run store "
                f"{_store_words(configured, stored)}. Add --keep to copy the files there "
                "and keep the submission's own copies, or set "
                f"${ENV_RUN_STORE}={target.root} to make that folder the run store")
        progress(f"{stored.id}: gathering {plural(len(stored.refs), 'file')}")
        plan = _plan(stored, target, report)
        if plan is not None and not _in_folder_store_already(plan, target):
            plans.append(plan)
    if not report.ok:
        return report, []
    if not keep:
        # Everything the folder holds is in the store already, as it is: drop the copies.
        for plan in plans:
            if not plan.found:
                with change_folder(plan.stored.folder) as change:
                    _remove_copies(plan.stored, targets[plan.stored.folder], change.folder)
                    change.commit()
    plans = [plan for plan in plans if plan.found]
    if not plans:
        return report, []
    target = targets[plans[0].stored.folder]
    done: list[str] = []
    if isinstance(target, HubStore):
        from leaderboard.store.hub import HubWriteError, Listed, Upload, push_files

        uploads = [Upload(path, store_path(p.stored.id, rel))
                   for p in plans for rel, path in sorted(p.found.items())]
        carried = [Listed(store_path(p.stored.id, r.path), r.size, r.sha256, r.gzip)
                   for p in plans for r in p.carried]
        progress(f"uploading {plural(len(uploads), 'file')} to {target.describe()}")
        try:
            commit = push_files(target, uploads, message or "FollowBoard: store the files of "
                                + ", ".join(p.stored.id for p in plans), carried=carried)
        except HubWriteError as exc:
            raise TransferError(str(exc)) from None
        # Each folder's manifest names the commit, and its copies go, in one change.
        for plan in plans:
            plan.stored.manifest.source = HubSource(target.repo, commit,
                                                    store_path(plan.stored.id, "").rstrip("/"),
                                                    target.endpoint)
            _record(plan, target, keep)
            done.append(f"{plan.stored.id}: {plural(len(plan.found), 'file')} uploaded, now at "
                        f"{plan.stored.manifest.source.url()}")
    else:
        assert isinstance(target, FolderStore)
        for plan in plans:
            inside = target.root / store_path(plan.stored.id, "")
            # The folder store holds them now: no source is needed to find them.
            plan.stored.manifest.source = None
            _record(plan, target, keep, copy_to=inside)
            done.append(f"{plan.stored.id}: {plural(len(plan.found), 'file')} in {inside}")
    return report, done


def _no_store_set(store: RunStore, stored: Stored) -> bool:
    """Whether ``store`` is configured_store's answer where nothing sets a store: the
    submission's own folder."""
    return isinstance(store, FolderStore) and store.root.resolve() == stored.folder.resolve()


def _store_words(store: RunStore, stored: Stored) -> str:
    """What the run store ``store`` is, for a sentence "The run store ...", said as the
    submission's own folder where it is that."""
    if _no_store_set(store, stored):
        return (f"is not set for {stored.folder} (no pyproject.toml above it names one, "
                f"nor ${ENV_RUN_STORE}): each submission keeps its files in its own folder")
    if isinstance(store, FolderStore) and \
            (store.root / store_path(stored.id, "")).resolve() == stored.folder.resolve():
        return (f"is the repository, {store.root}: each submission keeps its files in "
                "its own folder")
    return f"is {store.describe()}"


# A folder store's file is written beside its place as ".push-<pid>-<name>.XXXX.tmp", then
# renamed over it: a push killed meanwhile leaves that file in the store, shared by every
# later reader, and the next push to the submission removes those of processes gone.
_PUSH_PREFIX = ".push-"


def _sweep_killed_pushes(inside: Path) -> None:
    if not inside.is_dir():
        return
    for tmp in inside.rglob(f"{_PUSH_PREFIX}*.tmp"):
        if tmp.is_file() and not tmp.is_symlink() \
                and left_by_gone_process(tmp.name, _PUSH_PREFIX):
            tmp.unlink(missing_ok=True)


def _record(plan: PushPlan, target: RunStore, keep: bool, copy_to: Path | None = None) -> None:
    """Copy the files of ``plan`` into the folder store at ``copy_to`` (if given), then
    write the manifest and (unless ``keep``) remove the folder's copies, as one change of
    the folder. A folder store whose place for the submission is the folder itself (the
    repository) gets the files as part of that change."""
    folder = plan.stored.folder
    with change_folder(folder) as change:
        if copy_to is not None:
            into = change.folder if copy_to.resolve() == folder.resolve() else copy_to
            if into == copy_to:
                _sweep_killed_pushes(copy_to)
            for rel, path in sorted(plan.found.items()):
                dest = into / rel
                if dest.is_file() and dest.resolve() == path.resolve():
                    continue
                with atomic_file(dest, prefix=f"{_PUSH_PREFIX}{os.getpid()}-") as sink, \
                        path.open("rb") as src:
                    shutil.copyfileobj(src, sink, 1 << 20)
        write_manifest(change.folder, plan.stored.manifest)
        if not keep:
            _remove_copies(plan.stored, target, change.folder)
        change.commit()


def _remove_copies(stored: Stored, target: RunStore, copy: Path) -> None:
    """Remove from ``copy`` (the new state of ``stored``'s folder) the folder's copies of
    stored files, once the store holds them (never when the folder is the store's own
    place for them). Only files reached without a link are the folder's."""
    if isinstance(target, FolderStore) and (
            target.root / store_path(stored.id, "")).resolve() == stored.folder.resolve():
        return
    for ref in stored.refs:
        if stored.files.local(ref.path) is not None:
            (copy / ref.path).unlink(missing_ok=True)
    for top in (e.name for e in ENTRIES if e.stored and e.kind == "folder"):
        folder = copy / top
        if folder.is_dir() and not folder.is_symlink():
            for sub in sorted((p for p in folder.rglob("*") if p.is_dir()), reverse=True):
                if not any(sub.iterdir()):
                    sub.rmdir()
            if not any(folder.iterdir()):
                folder.rmdir()


def new_run_files(source: Path, patterns: list[str] | None) -> dict[str, Path]:
    """Run files under ``source`` (a submission folder, or its ``runs/`` folder) by their
    path in a submission, for the tasks matching ``patterns`` (default: all). A link or
    anything but a file or folder under it is refused, never left out."""
    runs = source if source.name == RUNS_DIR else source / RUNS_DIR
    if not os.path.lexists(source):
        raise TransferError(f"{source}: no such folder (--from)")
    if not runs.is_dir():
        raise TransferError(f"{source}: no runs/ folder to add from")
    out = {}
    refused = []  # a link is never followed; a FIFO would block its reader
    for path in sorted(runs.rglob("*")):
        if path.is_symlink():
            refused.append(f"{path}: {NO_LINKS}; copy the file itself")
        elif not path.is_dir() and not path.is_file():
            refused.append(f"{path}: not a regular file ({file_kind(path)}): {NOT_PLAIN}")
    if refused:
        more = f"; and {len(refused) - 3} more" if len(refused) > 3 else ""
        raise TransferError("; ".join(refused[:3]) + more + " (nothing was changed)")
    for path in sorted(p for p in runs.rglob("*") if p.is_file()):
        rel = f"{RUNS_DIR}/{path.relative_to(runs).as_posix()}"
        task_id = rel[len(RUNS_DIR) + 1:].rpartition("/")[0]
        if patterns is None or any(matches_task_pattern(task_id, p) for p in patterns):
            out[rel] = path
    if not out:
        raise TransferError(f"{runs}: no run files" + (
            f" of tasks matching {' '.join(patterns)}" if patterns else ""))
    return out


def add(folder: Path, source: Path, patterns: list[str] | None, data_dir: Path,
        progress: Progress = _quiet) -> SubmissionOutcome:
    """Put the run files of ``source`` into submission ``folder`` (replacing the files of
    the tasks they cover, in the folder and in its manifest) and score the submission, as
    one change of the folder (:func:`leaderboard.submission.transaction.change_folder`):
    when scoring fails, or the command is stopped, the folder is as it was. ``source``
    may be the folder itself or its runs/ folder: the new files are read from the folder
    as it was."""
    new = new_run_files(source, patterns)
    tasks = {rel[len(RUNS_DIR) + 1:].rpartition("/")[0] for rel in new}

    def of_tasks(rel: str) -> bool:
        return rel[len(RUNS_DIR) + 1:].rpartition("/")[0] in tasks

    with change_folder(folder) as change:
        copy = change.folder
        report = Report()
        manifest = load_manifest(copy, report, f"{folder.name}/{MANIFEST_NAME}")
        if not report.ok:
            raise TransferError("; ".join(report.lines()[:3]))
        runs = copy / RUNS_DIR
        if runs.is_dir():
            for path in sorted(p for p in runs.rglob("*") if p.is_file()):
                if of_tasks(path.relative_to(copy).as_posix()):
                    path.unlink()
        if manifest is not None:
            manifest.entries = {k: v for k, v in manifest.entries.items() if not of_tasks(k)}
            write_manifest(copy, manifest)
        for rel, path in new.items():
            with atomic_file(copy / rel, durable=False) as sink, path.open("rb") as src:
                shutil.copyfileobj(src, sink, 1 << 20)
        outcome = score_submission(copy, data_dir, progress, after_merge=False)
        if outcome.results_path is not None:
            change.commit()
    _name_the_sources(outcome.report, copy.name, new)
    return relocated(outcome, change, folder)


def _name_the_sources(report: Report, sub_id: str, new: dict[str, Path]) -> None:
    """Name each finding of an added file, or of an added task's folder, where the
    submitter has it (under --from), not as the submission's ``<id>/runs/...``, which
    holds no such file when the change is refused."""
    sources = {f"{sub_id}/{rel}": str(path) for rel, path in new.items()}
    sources.update({f"{sub_id}/{rel.rpartition('/')[0]}": str(path.parent)
                    for rel, path in new.items()})
    report.issues = [replace(issue, path=sources[issue.path]) if issue.path in sources
                     else issue for issue in report.issues]
