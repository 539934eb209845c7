"""`leaderboard ci score-pending`: score merged submissions whose results.json is due.

After a submission PR is merged, ``submissions/<id>/results.json`` is written by CI (the
submitter never hand-writes scores). On each push to the main branch this finds the
submissions whose files changed since the last commit a publish run pushed (``--published``,
the tag publish.yml's push job moves; without it, the push's own range), results.json
included (a hand-edited score keeps the recorded SHA-256 of the runs, so only the diff
shows it): GitHub keeps one waiting run per concurrency group, so a push whose run was
replaced by a later push's, or failed, is read by the next run that publishes. Plus every
submission whose results.json is missing or stale (its recorded SHA-256 of metadata.yaml
and the runs no longer match the manifest and the files, or a task's recorded data
revision is not the one the registry pins: after the pin moves, every merged submission
of that data is rescored on the new revision), and scores them in the working tree; the
workflow then moves the files to the run store (`leaderboard runs push`) and commits
whatever changed. Staleness is read from the files, not from the push, so a cancelled or
failed publish run is caught up by the next one. A submission the pinned revision cannot
score is kept on its earlier one, and what it was tried with recorded in its ``kept.json``
(:mod:`leaderboard.submission.kept`): until its files, the pin of one of its tasks or the
scorer's version differ from the record, later runs pass it over instead of failing it
again on every push.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Callable

from leaderboard.app.ci.git import NULL_SHA_RE, GitError, changed_files, resolve_commit
from leaderboard.benchmarks.registry import get_task
from leaderboard.core.errors import FollowBoardError
from leaderboard.core.report import Report, plural
from leaderboard.store.files import StoreError
from leaderboard.submission.kept import read_kept, write_kept
from leaderboard.submission.layout import (
    EXPLAIN_DIR,
    KEPT_NAME,
    MANIFEST_NAME,
    METADATA_NAME,
    PER_QUERY_NAME,
    RESULTS_NAME,
    RUNS_DIR,
    SUBMISSIONS_DIR,
)
from leaderboard.submission.files import submission_files
from leaderboard.submission.pipeline import results_staleness, score_submission, scoring_trial
from leaderboard.submission.results import (ResultsFileError, off_pin_revisions, off_pin_tasks,
                                            read_results)
from leaderboard.submission.transaction import ChangeError

Progress = Callable[[str], None]


def _quiet(_: str) -> None:
    return None


class NoSubmissionsError(FollowBoardError, ValueError):
    """The repository given holds no submissions/ folder (a run outside the repository)."""


@dataclass
class PendingOutcome:
    scored: list[str] = field(default_factory=list)     # results.json written
    failed: list[str] = field(default_factory=list)     # invalid: nothing written
    # Scored on a data revision the registry no longer pins, and not valid on the pinned
    # one (its runs name what the new revision lacks): nothing written, its results.json
    # kept as it is, which the site marks as on another revision.
    kept: list[str] = field(default_factory=list)
    report: Report = field(default_factory=Report)


@dataclass(frozen=True)
class ReadRange:
    """Where the diff that finds changed submissions starts: ``start`` (None: no range
    can be read, only missing or stale results are found), and ``why``, a warning of
    what the run cannot see (None: nothing)."""

    start: str | None
    why: str | None = None


@dataclass
class Pending:
    ids: list[str]                  # to score, in order
    # Stale only for being on an earlier data revision, and kept there by an earlier run
    # that tried them with what they would be tried with now (their kept.json): passed over.
    kept: list[str] = field(default_factory=list)
    # The range read for changed submissions, and what it cannot see.
    read: ReadRange = field(default_factory=lambda: ReadRange(None))


def _store_bookkeeping(folder: Path, status: str, top: str) -> bool:
    """A change of ``folder``'s entry ``top`` that moves no input: publishing's record of
    a kept submission, the manifest (whose entries, when they change, make the results
    stale anyway: see :func:`results_staleness`), and the files `runs push` removes from
    the folder once the run store holds them: run files, explanation files (those the
    store lacks make the results stale, since their manifest is read through the store)
    and the per-query file, while the store holds the one results.json names (it is read
    through the store: :func:`leaderboard.submission.results.read_results`). A changed
    results.json, per-query file or explanation file is not bookkeeping, nor a removed
    per-query file the store lacks: a hand-edited score keeps the recorded SHA-256 of the
    runs, so only the push shows it, and it is rescored."""
    if top in (MANIFEST_NAME, KEPT_NAME):
        return True
    if status != "D":
        return False
    return top in (RUNS_DIR, EXPLAIN_DIR) or (top == PER_QUERY_NAME
                                              and _per_query_stored(folder))


def _per_query_stored(folder: Path) -> bool:
    """Whether the run store, not the folder, holds the per-query file ``folder``'s
    results.json names, as named."""
    try:
        named = read_results(folder / RESULTS_NAME, per_query=False).per_query_file
        return named is not None and submission_files(folder).held_by_store(named.ref())
    except (ResultsFileError, StoreError, OSError):
        return False


def _before_problem(repo: Path, before: str | None) -> str | None:
    """Why --before cannot start the range (None: it can)."""
    if not before or NULL_SHA_RE.match(before):
        return "no --before commit was given (a manual run, or a new branch)"
    try:
        resolve_commit(repo, before)
    except GitError:
        return f"--before {before} is not in this clone (a force-push dropped it?)"
    return None


def read_range(repo: Path, before: str | None, after: str | None,
               published: str | None = None) -> ReadRange:
    """The commit the diff to ``after`` starts from: ``published``, the last commit a
    publish run pushed, when the clone holds it (whichever runs ran, were replaced in the
    concurrency group or failed since), else ``before``, the push's own range. A start
    that is no ancestor of ``after`` (history rewritten) still gives the files that
    differ from what was published. The warning says what a run cannot see: an edit of a
    results.json that keeps the recorded digests, outside the range read."""
    if not after:
        return ReadRange(None, "no --after commit was given")
    missed = None
    if published:
        try:
            return ReadRange(resolve_commit(repo, published))
        except GitError:
            missed = (f"--published {published} is not in this clone (no publish run has "
                      "pushed since it was introduced, or it was deleted; in Actions, check "
                      "out with fetch-depth: 0, which fetches tags)")
    problem = _before_problem(repo, before)
    if problem is None:
        assert before is not None
        start = resolve_commit(repo, before)
        if missed is None:
            return ReadRange(start)
        return ReadRange(start, f"{missed}: only the push's own range (--before..--after) "
                                "is read")
    return ReadRange(None, f"{missed}; {problem}" if missed else problem)


def pending_submissions(repo: Path, before: str | None, after: str | None, *,
                        every: bool = False, published: str | None = None) -> Pending:
    """Submission ids with any file changed in the range :func:`read_range` gives (if
    any), results.json included, plus those whose results are missing or stale;
    ``every``: all of them. A stale one kept on an earlier data revision by an earlier
    run is passed over while it would be tried with what that run tried it with
    (:func:`tried_alike`), unless the range changed it or ``every``. A submission folder
    that is a link is no submission here (scoring it would write where it points,
    outside the repository's submissions)."""
    folder = repo / SUBMISSIONS_DIR
    if not folder.is_dir():
        # Run outside the repository, it said "no submission needs scoring" and exited 0
        # (as build and export, which refuse such a root too: standings.rows.load_rows).
        raise NoSubmissionsError(
            f"{repo.absolute()}: holds no {SUBMISSIONS_DIR}/ folder; run the command from "
            "the repository's root, or give --repo")
    ids: set[str] = set()
    read = read_range(repo, before, after, published)
    start = read.start
    if start is not None:
        assert after is not None
        for change in changed_files(repo, start, resolve_commit(repo, after)):
            parts = PurePosixPath(change.path).parts
            if len(parts) >= 3 and parts[0] == SUBMISSIONS_DIR \
                    and not _store_bookkeeping(folder / parts[1], change.status, parts[2]):
                ids.add(parts[1])
    kept: list[str] = []
    for sub in folder.iterdir():
        if sub.is_dir() and not sub.is_symlink() and (sub / METADATA_NAME).is_file() \
                and (every or not (sub / RESULTS_NAME).is_file() or results_staleness(sub)):
            if every or sub.name in ids or not tried_alike(sub):
                ids.add(sub.name)
            else:
                kept.append(sub.name)
    return Pending(sorted(i for i in ids if (folder / i / METADATA_NAME).is_file()
                          and not (folder / i).is_symlink()), sorted(kept), read)


def tried_alike(folder: Path) -> bool:
    """Whether ``folder`` holds publishing's record of an earlier run that kept it on an
    earlier data revision (:mod:`leaderboard.submission.kept`), tried with its files, the
    pinned revisions and the scorer it would be tried with now: a run now would end alike."""
    record = read_kept(folder)
    return record is not None and record.trial == scoring_trial(folder)


def recorded_off_pin(folder: Path) -> dict[str, str]:
    """Task id -> recorded data revision of each task ``folder``'s results.json holds
    scores of on another data revision than the registry pins now (none without a
    readable results.json)."""
    try:
        return off_pin_tasks(read_results(folder / RESULTS_NAME, per_query=False).produced_by)
    except (ResultsFileError, OSError):
        return {}


def score_pending(repo: Path, ids: list[str], data_dir: Path,
                  progress: Progress = _quiet) -> PendingOutcome:
    """Score each of ``ids``, all or nothing for each. One whose results.json holds
    scores of another data revision than the pin, which does not score on the pinned
    one, is kept as it is (:attr:`PendingOutcome.kept`), said so by name: after the pin
    moves, such a submission must not stop the others from being rescored and
    published, on this push or any later one."""
    out = PendingOutcome()
    for sub_id in ids:
        folder = repo / SUBMISSIONS_DIR / sub_id
        moved = recorded_off_pin(folder)
        outcome = score_submission(folder, data_dir, progress, after_merge=True)
        out.report.extend(outcome.report)
        if outcome.results_path is not None:
            out.scored.append(sub_id)
        elif moved and outcome.report.errors:
            out.kept.append(sub_id)
            out.report.add(f"{SUBMISSIONS_DIR}/{sub_id}", None, _kept_text(moved),
                           "warning")
            _record_kept(folder, moved, out.report)
        else:
            out.failed.append(sub_id)
    return out


def _record_kept(folder: Path, moved: dict[str, str], report: Report) -> None:
    """Write ``folder``'s kept.json: what it was tried with, so that later runs pass it
    over until one of those differs (:func:`tried_alike`)."""
    where = f"{SUBMISSIONS_DIR}/{folder.name}/{KEPT_NAME}"
    trial = scoring_trial(folder)
    problem = "its results.json or inputs cannot be read" if trial is None else ""
    if trial is not None:
        try:
            write_kept(folder, trial, moved)
        except ChangeError as exc:
            problem = exc.message
    if problem:
        report.add(where, None, f"not written ({problem}): the next run tries the "
                                "submission again", "warning")


def _kept_text(moved: dict[str, str]) -> str:
    """What a maintainer is told of a submission kept on its earlier data revision."""
    pins = {get_task(t).source.pinned for t in moved}
    return (f"not rescored on {', '.join(sorted(pins))}, the revision the registry pins "
            f"now: its runs do not fit it (the errors above); its results.json keeps the "
            f"scores of {plural(len(moved), 'task')} on {off_pin_revisions(moved)}, which the site "
            "marks as such and tests against no other row. Its scores are left as they "
            f"were, and what it was tried with is recorded in {KEPT_NAME}: later runs try it "
            "again only when its metadata.yaml or run files, the pinned revision of one of "
            "its tasks or the scorer's version differ, and say nothing of it until then. Its "
            "owner submits runs for the new revision in a pull request, or a maintainer "
            "removes the submission (docs/MAINTAINERS.md, \"Moving PI-Indic to another "
            "revision\")")
