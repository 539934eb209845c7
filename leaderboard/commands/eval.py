"""`leaderboard eval`: validate and score the runs of one task."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from leaderboard.commands import add_data_dir, new_command
from leaderboard.data import load_task_data, resolve_data_dir
from leaderboard.pipeline import score_inputs, validate_task_files
from leaderboard.registry import UnknownTaskError, get_task


def register(sub: "argparse._SubParsersAction") -> None:
    p = new_command(
        sub, "eval", "validate and score the runs of one task",
        "Validate the runs of one task, then score them. Paired tasks (FollowIR, mFollowIR, "
        "FollowTable) take --original and --altered; PI-Indic retrieval takes --run and T4 "
        "takes --predictions. With --json, prints one object "
        '{"task", "metrics", "groups", "per_query"}; scores are fractions.',
        "  leaderboard eval followtable/wtr --original topic.trec --altered instr.trec --json")
    p.add_argument("task", metavar="TASK")
    p.add_argument("--original", type=Path, metavar="RUN", help="run with the original query")
    p.add_argument("--altered", type=Path, metavar="RUN", help="run with the altered instruction")
    p.add_argument("--run", type=Path, metavar="RUN", help="the run of a single-run task")
    p.add_argument("--predictions", type=Path, metavar="FILE", help="PI-Indic T4 predictions")
    p.add_argument("--json", action="store_true", help="print the score sheet as JSON")
    add_data_dir(p)
    p.set_defaults(handler=run, parser=p)


def run(args: argparse.Namespace) -> int:
    try:
        task = get_task(args.task)
    except UnknownTaskError as exc:
        args.parser.error(str(exc))
    given = {role: getattr(args, role) for role in ("original", "altered", "run", "predictions")
             if getattr(args, role) is not None}
    missing = [r for r in task.roles if r not in given]
    extra = [r for r in given if r not in task.roles]
    if missing or extra:
        need = " ".join(f"--{r} FILE" for r in task.roles)
        args.parser.error(f"{task.id} takes {need}")
    data = load_task_data(task, resolve_data_dir(args.data_dir))
    report, inputs = validate_task_files(task, data, given)
    for line in report.lines():
        print(line, file=sys.stderr)
    if inputs is None:
        return 1
    scores = score_inputs(inputs)
    if args.json:
        print(json.dumps({"task": task.id, "metrics": scores.metrics, "groups": scores.groups,
                          "per_query": scores.per_query}, sort_keys=True))
        return 0
    print(f"{task.id} ({scores.n_queries} queries)")
    for key in task.metric_keys():
        if key in scores.metrics:
            print(f"  {key:22} {scores.metrics[key]:+.4f}")
    for label, values in scores.groups.items():
        cells = "  ".join(f"{k}={v:+.4f}" for k, v in values.items())
        print(f"  [{label}] {cells}")
    return 0
