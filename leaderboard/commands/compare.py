"""`leaderboard compare`: paired significance tests between two submissions."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from leaderboard.commands import new_command


def register(sub: "argparse._SubParsersAction") -> None:
    p = new_command(
        sub, "compare", "test two scored submissions against each other, task by task",
        "Compare two scored submissions (folders with results.json, or results files) on "
        "each task both cover: the task's primary metric and headline standard metric, with "
        "the leaderboard's paired tests (Fisher randomization; Wilcoxon for p-MRR), mean "
        "difference with a 95% bootstrap interval, Holm-corrected p-values.",
        "  leaderboard compare submissions/bm25s submissions/all-minilm-l6-v2 --task 'followtable/*'")
    p.add_argument("submission_a", type=Path, metavar="SUBMISSION_A")
    p.add_argument("submission_b", type=Path, metavar="SUBMISSION_B")
    p.add_argument("--task", default="*", help="task id or shell pattern (default: all)")
    p.add_argument("--seed", type=int, default=0, help="seed of the randomization and "
                                                        "bootstrap (default: 0)")
    p.add_argument("--json", action="store_true", help="print the comparison as JSON")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from leaderboard.stats.pairwise import compare_systems, format_table, load_system

    a = load_system(args.submission_a)
    b = load_system(args.submission_b)
    result = compare_systems(a, b, args.task, seed=args.seed)
    if args.json:
        print(json.dumps(result.model_dump(mode="json"), sort_keys=True))
    else:
        print(format_table(result))
    return 0
