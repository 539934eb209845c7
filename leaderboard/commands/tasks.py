"""`leaderboard tasks`: list the registered tasks."""

from __future__ import annotations

import argparse
import fnmatch
import json

from leaderboard.commands import new_command
from leaderboard.registry import all_tasks


def register(sub: "argparse._SubParsersAction") -> None:
    p = new_command(sub, "tasks", "list every task the leaderboard scores",
                    "List task ids with their roles, primary metric and data source.",
                    "  leaderboard tasks 'followtable/*'")
    p.add_argument("pattern", nargs="?", default="*", help="shell-style filter on task ids")
    p.add_argument("--json", action="store_true", help="print the registry entries as JSON")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    tasks = [t for t in all_tasks().values() if fnmatch.fnmatch(t.id, args.pattern)]
    if args.json:
        print(json.dumps([t.model_dump(mode="json") for t in tasks], indent=1))
        return 0
    for t in tasks:
        print(f"{t.id:34} roles={','.join(t.roles):18} primary={t.primary_metric:9} "
              f"data={t.source.repo}@{t.source.revision}")
    return 0
