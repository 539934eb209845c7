"""`leaderboard tasks`: list the registered tasks."""

from __future__ import annotations

import argparse
import fnmatch
import json
from dataclasses import asdict

from leaderboard.app.commands import new_command


# What `tasks --json` prints, named in it: a later shape gets another number.
TASKS_FORMAT = "followboard-tasks/1"


def register(sub: "argparse._SubParsersAction") -> None:
    p = new_command(sub, "tasks", "list every task the leaderboard scores",
                    "List task ids with their roles, primary metric and data source. PATTERN "
                    "matches task ids by prefix, with shell wildcards allowed "
                    "(`followtable` lists followtable/wqt, followtable/wtr, ...).",
                    "  leaderboard tasks followtable\n  leaderboard tasks 'pi-indic-val150/t4/*'")
    p.add_argument("pattern", nargs="?", default="", metavar="PATTERN",
                   help="task id prefix, shell wildcards allowed (default: every task)")
    p.add_argument("--json", action="store_true",
                   help='print {"format", "tasks"} as JSON: the registry entries, format '
                        f"{TASKS_FORMAT}")
    p.set_defaults(handler=run)


def matches(task_id: str, pattern: str) -> bool:
    """A prefix of the id, wildcards allowed: `followtable` and `followtable/w*` both match
    followtable/wtr; `*` alone (the shell-style form this command took first) matches all."""
    return fnmatch.fnmatchcase(task_id, pattern + "*")


def run(args: argparse.Namespace) -> int:
    from leaderboard.benchmarks.registry import UnknownTaskError, all_tasks

    tasks = [t for t in all_tasks().values() if matches(t.id, args.pattern)]
    if not tasks:
        raise UnknownTaskError(f"no task id starts with {args.pattern!r}; "
                               "`leaderboard tasks` lists them all")
    if args.json:
        print(json.dumps({"format": TASKS_FORMAT, "tasks": [asdict(t) for t in tasks]},
                         indent=1))
        return 0
    for t in tasks:
        print(f"{t.id:34} roles={','.join(t.roles):18} primary={t.primary_metric:9} "
              f"data={t.source.pinned}")
    return 0
