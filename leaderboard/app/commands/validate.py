"""`leaderboard validate`: check whole submission folders without scoring."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from leaderboard.app.commands import add_submission_args, for_each_submission, new_command
from leaderboard.core.report import SUMMARISE_WARNINGS_AFTER, plural

if TYPE_CHECKING:
    from leaderboard.core.evaluate import Progress


def register(sub: "argparse._SubParsersAction") -> None:
    p = new_command(
        sub, "validate", "check submission folders (metadata and every run file)",
        "Validate submissions/<id>/metadata.yaml and every run file: those under "
        "runs/<task>/ and those manifest.txt lists (fetched from the run store and checked "
        "against their SHA-256). Prints FILE:LINE: message for each problem; exit 1 if any "
        "submission is invalid or has a task whose data is missing (not checked, said so). A results.json whose recorded SHA-256 of the runs no longer "
        "matches them, or that records a task's scores on another data revision than the "
        "registry pins, is reported; that of a submission not merged yet, which its pull "
        "request carries, is compared with the scores of its runs and with the query "
        "explorer's files they give (computed, not looked for: CI writes them after the "
        "merge), as the pull-request check compares it (--check-scores: a merged one's "
        "scores too). In a git checkout, merged "
        "is what the default branch holds (upstream/HEAD, else upstream/main, else "
        "origin/HEAD, else origin/main, else main; nothing is fetched).",
        "  leaderboard validate submissions/bm25s submissions/my-model\n"
        "  leaderboard validate --check-scores submissions/bm25s")
    add_submission_args(p)
    p.add_argument("--check-scores", action="store_true",
                   help="score the runs and compare every score with results.json (an "
                        "edited score is an error) for a merged submission too")
    p.set_defaults(handler=run)


def _validate(root: Path, data_dir: Path, progress: Progress,
              check_scores: bool = False) -> tuple[bool, list[str], str]:
    from leaderboard.app.board_ids import taken_ids, taken_names
    from leaderboard.app.model_facts import check_model_facts, rows_beside
    from leaderboard.submission.pipeline import check_submission

    # A new submission's id may not look like a reference model's, nor its model's name a
    # reference model's or the model registry's (nor a submission's beside it:
    # check_submission).
    outcome = check_submission(root, data_dir, score=False, progress=progress,
                               check_scores=check_scores,
                               taken_ids=taken_ids(), taken_names=taken_names())
    report = outcome.report
    metadata = outcome.submission.metadata
    if metadata is not None:
        # Its model's facts against the registry's, and, not merged yet, those of the
        # submissions beside it that are of the same model.
        check_model_facts(root, outcome.submission.id, metadata.model,
                          [] if outcome.merged else rows_beside(root), report)
    status = "valid" if report.ok else "INVALID"
    if report.ok and outcome.checked_scores:
        status = "valid, and results.json holds the scores of its runs"
    unchecked = ""
    if outcome.unchecked:
        # Runs whose task's data is missing were not read, so not found wrong: a folder
        # with no other error is not called INVALID for them.
        unchecked = f", {plural(len(outcome.unchecked), 'task')} not checked: no data"
        if report.n_errors == len(outcome.unchecked):
            status = ("NOT CHECKED" if len(outcome.unchecked) == len(outcome.submission.files)
                      else "NOT FULLY CHECKED, valid where checked")
    return report.ok, report.lines(summarise_after=SUMMARISE_WARNINGS_AFTER), (
        f"{root.name}: {status} ({plural(len(outcome.submission.files), 'task')}, "
        f"{plural(report.n_errors, 'error')}, {plural(report.n_warnings, 'warning')}"
        f"{unchecked})")


def run(args: argparse.Namespace) -> int:
    return for_each_submission(
        args, lambda root, data_dir, progress: _validate(root, data_dir, progress,
                                                         args.check_scores))
