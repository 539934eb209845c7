"""`leaderboard score`: validate and score submissions, writing results.json."""

from __future__ import annotations

import argparse
from pathlib import Path

from leaderboard.commands import add_data_dir, new_command
from leaderboard.data import resolve_data_dir
from leaderboard.pipeline import score_submission, stderr_progress


def register(sub: "argparse._SubParsersAction") -> None:
    p = new_command(
        sub, "score", "validate and score submissions, writing results.json",
        "Validate each submission, then score every task it covers and write "
        "submissions/<id>/results.json (atomically, byte-identical for identical runs). "
        "Nothing is written for a submission with any error.",
        "  leaderboard score submissions/bm25s")
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
        outcome = score_submission(root, data_dir,
                                   (lambda _m: None) if args.quiet else stderr_progress)
        for line in outcome.report.lines():
            print(line)
        if outcome.results_path is None:
            print(f"{root.name}: not scored ({len(outcome.report.errors)} error(s))")
            failed += 1
        else:
            print(f"{root.name}: scored {len(outcome.scores)} task(s) -> {outcome.results_path}")
    return 1 if failed else 0
