"""`leaderboard validate`: check whole submission folders without scoring."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from leaderboard.commands import add_submission_args, for_each_submission, new_command

if TYPE_CHECKING:
    from leaderboard.pipeline import Progress


def register(sub: "argparse._SubParsersAction") -> None:
    p = new_command(
        sub, "validate", "check submission folders (metadata and every run file)",
        "Validate submissions/<id>/metadata.yaml and every run file: those under "
        "runs/<task>/ and those manifest.txt lists (fetched from the run store and checked "
        "against their SHA-256). Prints FILE:LINE: message for each problem; exit 1 if any "
        "submission is invalid.",
        "  leaderboard validate submissions/bm25s submissions/my-model")
    add_submission_args(p)
    p.set_defaults(handler=run)


def _validate(root: Path, data_dir: Path, progress: Progress) -> tuple[bool, str]:
    from leaderboard.pipeline import check_submission

    outcome = check_submission(root, data_dir, score=False, progress=progress)
    for line in outcome.report.lines():
        print(line)
    status = "valid" if outcome.report.ok else "INVALID"
    return outcome.report.ok, (
        f"{root.name}: {status} ({len(outcome.submission.files)} task(s), "
        f"{len(outcome.report.errors)} error(s), {len(outcome.report.warnings)} warning(s))")


def run(args: argparse.Namespace) -> int:
    return for_each_submission(args, _validate)
