"""One module per `leaderboard` subcommand; each defines ``register(subparsers)``.

A handler takes the parsed arguments and returns the exit code. Shared argument helpers
live here so every command spells ``--data-dir`` the same way.
"""

from __future__ import annotations

import argparse


def add_data_dir(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--data-dir", metavar="DIR", default=None,
        help="benchmark data directory (default: $LEADERBOARD_DATA, else ./data)")


def new_command(sub: "argparse._SubParsersAction", name: str, summary: str, description: str,
                example: str) -> argparse.ArgumentParser:
    from leaderboard.cli import HelpFormatter

    return sub.add_parser(name, help=summary, description=description,
                          epilog=f"Example:\n{example}", formatter_class=HelpFormatter)


def add_submission_args(parser: argparse.ArgumentParser) -> None:
    """The arguments `validate` and `score` share: folders, --quiet, --data-dir."""
    from pathlib import Path

    parser.add_argument("submissions", nargs="+", type=Path, metavar="SUBMISSION_DIR")
    parser.add_argument("--quiet", action="store_true", help="no progress lines")
    add_data_dir(parser)


def for_each_submission(args: argparse.Namespace, check) -> int:  # noqa: ANN001
    """Run ``check(root, data_dir, progress) -> (ok, summary)`` on each submission folder.

    Prints each summary line; exit 1 if any folder is missing or fails its check.
    """
    from leaderboard.data import resolve_data_dir
    from leaderboard.pipeline import stderr_progress

    data_dir = resolve_data_dir(args.data_dir)
    progress = (lambda _m: None) if args.quiet else stderr_progress
    failed = 0
    for root in args.submissions:
        if not root.is_dir():
            print(f"{root}: not a submission folder")
            failed += 1
            continue
        ok, summary = check(root, data_dir, progress)
        print(summary)
        failed += not ok
    return 1 if failed else 0
