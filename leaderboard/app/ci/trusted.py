"""What the privileged comment job re-derives itself instead of trusting the artifact.

The check job runs on the PR's merge commit, so a PR that edits the workflow or the
checker could make its artifact claim anything. The comment job therefore asks the GitHub
API which files the PR changes (``gh api repos/O/R/pulls/N/files --jq '.[] | {status,
filename, previous_filename}'``, one JSON object per line) and applies the same scope
rules with the default branch's code. A PR that touches anything but one submission folder
is reported as refused whatever its artifact says, so "valid" in a comment can only come
from a run of the project's own, unmodified checker.
"""

from __future__ import annotations

from collections.abc import Container
from pathlib import Path

from leaderboard.app.board_ids import reference_ids
from leaderboard.app.ci.git import Change
from leaderboard.app.ci.policy import (
    AUTHOR_UNKNOWN,
    CONFIG_FILE,
    classify_changes,
    maintainers_of,
    ownership_problem,
)
from leaderboard.app.ci.pr_report import MAX_STORED_PROBLEMS, CiReport
from leaderboard.core.errors import FollowBoardError
from leaderboard.core.fileio import load_json
from leaderboard.submission.ids import id_problem
from leaderboard.submission.layout import METADATA_NAME, SUBMISSIONS_DIR
from leaderboard.submission.metadata import owner_of

API_STATUS = {"added": "A", "modified": "M", "changed": "M", "removed": "D", "renamed": "A",
              "copied": "A", "unchanged": "M"}
MAX_API_FILES = 3000  # the API lists at most 3000 files of a pull request


class PrFilesError(FollowBoardError, ValueError):
    pass


def read_api_files(path: Path) -> list[Change]:
    """Changes from the API's file list (JSON lines); a rename is a delete plus an add."""
    changes: list[Change] = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise PrFilesError(f"{path}: cannot read: {exc}") from None
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        item = load_json(line, str(path), PrFilesError, line=number)
        try:
            status, filename = item["status"], item["filename"]  # type: ignore[index]
        except (KeyError, TypeError):
            raise PrFilesError(f"{path}:{number}: expected {{\"status\", \"filename\"}}") from None
        if not isinstance(filename, str) or status not in API_STATUS:
            raise PrFilesError(f"{path}:{number}: unexpected status {status!r}")
        changes.append(Change(API_STATUS[status], filename))
        previous = item.get("previous_filename")
        if status == "renamed" and isinstance(previous, str):
            changes.append(Change("D", previous))
    if len(changes) >= MAX_API_FILES:
        # The list may be cut short; refuse rather than judge an incomplete list.
        changes.append(Change("A", "(more files than the API lists)"))
    return changes


def merged_ids(base_dir: Path) -> set[str]:
    """The submission folders of a checkout of the base branch."""
    folder = base_dir / SUBMISSIONS_DIR
    if not folder.is_dir() or folder.is_symlink():
        return set()
    return {p.name for p in folder.iterdir() if p.is_dir() and not p.is_symlink()}


def apply_trusted_scope(report: CiReport, changes: list[Change],
                        merged: Container[str] = frozenset()) -> CiReport:
    """The report, or a refusal when the API's file list says the PR is out of scope
    (``merged``: the submission ids on the base branch, :func:`classify_changes`)."""
    scope = classify_changes(changes, merged)
    reported_ids = [s.id for s in report.submissions]
    if not scope.changes_submissions:
        # No submission PR (whatever the report says): nothing to check, nor to refuse.
        return report.model_copy(update=dict(status="none", refusals=[], refused_paths=[],
                                             submissions=[], internal_error=None))
    if report.status == "none":
        return report.model_copy(update=dict(status="refused", refusals=[
            "the check's report says the pull request changes no submission, but it changes "
            "files under submissions/; push again to re-run the check."],
            refused_paths=scope.refused_paths[:MAX_STORED_PROBLEMS]))
    # A refusal, and a check that failed itself (an "error" report is about no submission:
    # it was made a refusal "about no submission", hiding that the check broke), pass as
    # they are when the pull request's scope is sound.
    about_none = report.status in ("refused", "error") and not reported_ids
    if scope.ok and (about_none or report.status == "refused"
                     or reported_ids == scope.submission_ids[:1]):
        return report
    refusals = scope.refusals or [
        f"the check's report is about {', '.join(reported_ids) or 'no submission'}, but the "
        f"pull request changes {', '.join(scope.submission_ids)}; push again to re-run the check."]
    return report.model_copy(update=dict(
        status="refused", refusals=refusals[:50],
        refused_paths=scope.refused_paths[:MAX_STORED_PROBLEMS], submissions=[]))


def refuse_for_base_branch(report: CiReport, problem: str) -> CiReport:
    """The report as a refusal: the PR is not into the default branch
    (:func:`leaderboard.app.ci.policy.base_branch_problem`)."""
    return report.model_copy(update=dict(status="refused",
                                         refusals=[problem, *report.refusals][:50],
                                         submissions=[]))


def refuse_for_unknown_author(report: CiReport) -> CiReport:
    """The report as a refusal: the PR's author, which the ownership check needs, is not
    known (:func:`leaderboard.app.ci.policy.author_unknown`)."""
    return report.model_copy(update=dict(status="refused", refusals=[AUTHOR_UNKNOWN],
                                         refused_paths=[], submissions=[]))


def apply_ownership(report: CiReport, base_dir: Path, author: str,
                    association: str | None) -> CiReport:
    """The report, or a refusal when the PR changes a merged submission that is not the
    author's. The owner is read from ``base_dir`` (the default branch's checkout in the
    comment job), as are the maintainers, so neither the PR nor its artifact can claim the
    submission."""
    config = base_dir / CONFIG_FILE
    maintainers = maintainers_of(
        config.read_text(encoding="utf-8", errors="replace")
        if config.is_file() and not config.is_symlink() else None, str(config))
    references = reference_ids()
    for sub in report.submissions:
        if id_problem(sub.id):
            continue  # the scope check refuses such a PR anyway
        folder = base_dir / SUBMISSIONS_DIR / sub.id
        if not folder.is_dir() or folder.is_symlink():
            continue  # a new submission
        meta = folder / METADATA_NAME
        owner = None
        if meta.is_file() and not meta.is_symlink():
            owner = owner_of(meta.read_text(encoding="utf-8", errors="replace"))
        problem = ownership_problem(sub.id, owner, author, association, maintainers,
                                    references)
        if problem:
            return report.model_copy(update=dict(
                status="refused", refusals=[problem], refused_paths=[], submissions=[]))
    return report
