"""The `leaderboard` command: a thin dispatcher over the subcommand modules.

Each module in ``leaderboard.commands`` registers its own subparser and handler; the
logic they call lives in importable modules (registry, data, runs, scoring, stats, site).
Exit codes: 0 success, 1 invalid input or failed check, 2 usage error.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from typing import Sequence

from leaderboard import __version__

# Subcommand modules, in the order `leaderboard --help` lists them.
COMMAND_MODULES = (
    "tasks",
    "check_run",
    "eval",
    "validate",
    "score",
    "import_",
    "compare",
    "baselines",
    "data",
    "ci",
    "build",
)

# Errors whose message is the whole story: print it, no traceback.
EXPECTED_ERRORS: tuple[type[BaseException], ...] = (OSError, ValueError, KeyError)


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Keeps the examples in epilogs laid out as written."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="leaderboard",
        description="FollowBoard: validate, score and publish instruction-following "
                    "retrieval results.",
        epilog="Example:\n  leaderboard check-run followtable/wtr run.trec --role altered\n\n"
               "Run `leaderboard COMMAND --help` for each command's options and an example.",
        formatter_class=HelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in COMMAND_MODULES:
        module = importlib.import_module(f"leaderboard.commands.{name}")
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.handler(args) or 0)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except EXPECTED_ERRORS as exc:
        if os.environ.get("LEADERBOARD_DEBUG"):
            raise
        print(f"leaderboard {args.command}: error: {exc}", file=sys.stderr)
        return 1
    except Exception as exc:  # noqa: BLE001 - last line of defence: a message, not a traceback
        if os.environ.get("LEADERBOARD_DEBUG"):
            raise
        print(f"leaderboard {args.command}: internal error ({type(exc).__name__}): {exc}\n"
              "Please report it; set LEADERBOARD_DEBUG=1 to see the traceback.", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
