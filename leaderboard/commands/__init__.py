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
