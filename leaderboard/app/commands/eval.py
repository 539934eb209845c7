"""`leaderboard eval`: validate and score the runs of one task."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from leaderboard.app.commands import (SCALE_NOTE, add_data_dir, add_role_files, figure_text,
                                      new_command, task_and_files)
from leaderboard.core.report import Report, plural


# What `eval --json` prints, named in it: a later shape gets another number.
EVAL_FORMAT = "followboard-eval/1"


def register(sub: "argparse._SubParsersAction") -> None:
    p = new_command(
        sub, "eval", "validate and score the runs of one task",
        "Validate the runs of one task, then score them. Paired tasks (FollowIR, mFollowIR, "
        "FollowTable) take --original and --altered; PI-Indic retrieval takes --run and T4 "
        "takes --predictions. Scores print x100, the leaderboard's scale; with --json, one "
        'object {"format", "task", "metrics", "groups", "per_query"} holds them as '
        f"fractions (0-1, or -1 to 1 for p-MRR and IRS), its format {EVAL_FORMAT}.",
        "  leaderboard eval followtable/wtr --original topic.trec --altered instr.trec --json")
    p.add_argument("task", metavar="TASK")
    add_role_files(p)
    p.add_argument("--json", action="store_true", help="print the score sheet as JSON")
    add_data_dir(p)
    p.set_defaults(handler=run)


def swapped_runs(report: Report, given: dict[str, Path]) -> str | None:
    """One line for runs given to each other's options (each file holds the queries of
    the other role), instead of a finding per file; None when they are not swapped."""
    other_role = {issue.path: issue.kind.split(":", 1)[1] for issue in report.errors
                  if issue.kind and issue.kind.startswith("other-role:")}
    if len(given) != 2 or any(other_role.get(str(path)) not in given.keys() - {role}
                              for role, path in given.items()):
        return None
    (a, path_a), (b, path_b) = given.items()
    return (f"the runs look swapped: {path_a} (--{a}) holds the {b} queries and {path_b} "
            f"(--{b}) the {a} ones; give each file to the other option")


def run(args: argparse.Namespace) -> int:
    # eval multiplies no matrices, and OpenBLAS starts a thread per core when numpy is
    # imported: 50-60 ms of CPU, a tenth of a one-task eval (benchmarks/cli_startup.py).
    # A user's own setting wins; it only takes effect before numpy's first import.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    task, given = task_and_files(args)
    # Inflating the runs releases the GIL: started now, it runs beside the imports of
    # numpy, pyarrow and the engine (100-140 ms that hold the GIL), not after them.
    from leaderboard.core.runs.reading import start_reading

    reading = start_reading({role: (path, str(path)) for role, path in given.items()
                             if role != "predictions"})
    from leaderboard.core.data import resolve_data_dir
    from leaderboard.core.evaluate import check_task_files, score_inputs
    from leaderboard.core.scoring import prepare_task

    report, inputs = check_task_files(task, resolve_data_dir(args.data_dir), given,
                                      prefetched=reading,
                                      while_checking=lambda data: prepare_task(task, data))
    swapped = swapped_runs(report, given)
    if swapped:
        # One line in place of each file's "holds the other role's queries", then the
        # files' other findings, so one fix of the command line leaves none unseen.
        report = Report([i for i in report.issues
                         if not (i.kind or "").startswith("other-role:")])
    for line in ([swapped] if swapped else []) + report.lines():
        print(line, file=sys.stderr)
    if inputs is None:
        return 1
    scores = score_inputs(inputs)
    if args.json:
        print(json.dumps({"format": EVAL_FORMAT, "task": task.id, "metrics": scores.metrics,
                          "groups": scores.groups, "per_query": scores.per_query},
                         sort_keys=True))
        return 0
    if task.candidates == "pairs":
        # T4's unit is the persona (its per-query scores and tests); the pairs are what
        # the predictions file holds.
        pairs = len(inputs.data.roles["predictions"].query_ids)
        counted = (f"{plural(pairs, 'pair')} of {plural(scores.n_queries or 0, 'persona')}")
    else:
        counted = plural(scores.n_queries or 0, "query")
    print(f"{task.id} ({counted}; {SCALE_NOTE})")
    keys = [key for key in task.metric_keys() if key in scores.metrics]
    width = max([22] + [len(key) for key in keys])  # "Predicted positive rate" is 23
    for key in keys:
        print(f"  {key:{width}} {figure_text(key, scores.metrics[key]):>7}")
    for label, values in scores.groups.items():
        cells = "  ".join(f"{k}={figure_text(k, v)}" for k, v in values.items())
        print(f"  [{label}] {cells}")
    return 0
