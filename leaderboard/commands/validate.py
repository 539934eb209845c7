"""`leaderboard validate`: check whole submission folders without scoring."""

from __future__ import annotations

import argparse
from pathlib import Path

from leaderboard.commands import add_data_dir, new_command
from leaderboard.data import resolve_data_dir
from leaderboard.pipeline import check_submission, stderr_progress


def register(sub: "argparse._SubParsersAction") -> None:
    p = new_command(
        sub, "validate", "check submission folders (metadata and every run file)",
        "Validate submissions/<id>/metadata.yaml and every run file under runs/<task>/. "
        "Prints FILE:LINE: message for each problem; exit 1 if any submission is invalid.",
        "  leaderboard validate submissions/bm25s submissions/my-model")
    p.add_argument("submissions", nargs="+", type=Path, metavar="SUBMISSION_DIR")
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    add_data_dir(p)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    data_dir = resolve_data_dir(args.data_dir)
    failed = 0
    for root in args.submissions:
        if not root.is_dir():
            print(f"{root}: not a submission folder")
            failed += 1
            continue
        outcome = check_submission(root, data_dir, score=False,
                                   progress=(lambda _m: None) if args.quiet else stderr_progress)
        for line in outcome.report.lines():
            print(line)
        n_tasks = len(outcome.submission.files)
        status = "valid" if outcome.report.ok else "INVALID"
        print(f"{root.name}: {status} ({n_tasks} task(s), {len(outcome.report.errors)} error(s), "
              f"{len(outcome.report.warnings)} warning(s))")
        failed += not outcome.report.ok
    return 1 if failed else 0
