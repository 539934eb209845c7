"""`leaderboard compare`: paired significance tests between two submissions, view by view."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from leaderboard.app.commands import add_seed, new_command


def register(sub: "argparse._SubParsersAction") -> None:
    p = new_command(
        sub, "compare", "test two scored submissions against each other, view by view",
        "Compare two scored submissions on every leaderboard view both cover, benchmark "
        "averages included. Each value is the one the site shows, by its column's "
        "convention: one task's mean over its queries, or the mean of the tasks' figures "
        "as the benchmark's paper averages them. Tests are the leaderboard's "
        "(Fisher randomization; Wilcoxon signed-rank for p-MRR; DeLong for AUROC) on one "
        "value per unit sampled independently: a FollowTable topic with all its "
        "query-instruction pairs, a FollowIR topic with both instructions, an mFollowIR "
        "topic in every language, a PI-Indic pair or persona in every language. Each row "
        "gives the mean difference A-B with its 95% interval (the bootstrap's; DeLong's for "
        "AUROC), except that a p-MRR row, whose Wilcoxon test does not test the mean, gives "
        "the Hodges-Lehmann shift with its own 95% interval (the shifts the signed-rank test "
        "does not reject) beside the mean instead; p-values are Holm-corrected over this pair's columns of each view (the site's "
        "tiers correct over a column's rows instead, so a tier may differ); differences within "
        "the reproducibility threshold are ties. A submission is a folder with "
        "results.json, a results file, or a submission id looked up under "
        "--submissions-dir. Scores are shown x100 (JSON: fractions, each statistic named "
        "as in the site's downloads: diff (A-B) with diff_ci_low and diff_ci_high, hl_shift "
        "with hl_ci_low and hl_ci_high, each null where its test gives none). A view that "
        "one of them was scored on another data revision than the registry pins is not "
        "compared unless the other was scored on that same revision (other data; the site "
        "tests such a figure against none), nor a column without per-query scores: each is "
        "named with why. A view both were scored on the same earlier revision of is "
        "compared on it, each of its rows naming that revision (JSON: off_pin_revision). Exit 1 when nothing is "
        "compared (the two share no view, or every view they share is left out), one is "
        "not scored or one names no file, folder nor submission.",
        "  leaderboard compare bm25s all-minilm-l6-v2 --view 'followtable/*'")
    p.add_argument("submission_a", metavar="SUBMISSION_A", help="folder, results file or id")
    p.add_argument("submission_b", metavar="SUBMISSION_B", help="folder, results file or id")
    p.add_argument("--view", "--task", dest="view", default="*", metavar="PATTERN",
                   help="view id or shell pattern, e.g. 'followtable/*' or "
                        "'pi-indic/t1/average' (default: all)")
    p.add_argument("--submissions-dir", type=Path, default=Path("submissions"), metavar="DIR",
                   help="where submission ids are looked up (default: ./submissions)")
    add_seed(p, "seed of the randomization and bootstrap (default: 0)")
    p.add_argument("--json", action="store_true",
                   help="print the comparison as JSON (scores as fractions)")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from leaderboard.publish.standings.head_to_head import (
        compare_systems,
        format_table,
        load_system,
        nothing_compared,
        resolve_submission,
    )

    a, off_a = load_system(resolve_submission(args.submission_a, args.submissions_dir))
    b, off_b = load_system(resolve_submission(args.submission_b, args.submissions_dir))
    result = compare_systems(a, b, args.view, seed=args.seed, off_pin=(off_a, off_b))
    if args.json:
        print(json.dumps(result.model_dump(mode="json"), sort_keys=True))
    elif result.rows:
        print(format_table(result))
    if not result.rows:
        print(f"{args.command_prog}: error: {nothing_compared(a, b, args.view, result)}",
              file=sys.stderr)
        return 1
    return 0
