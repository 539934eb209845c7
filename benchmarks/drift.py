"""Measure how far a rerun of the same model moves the leaderboard's figures: the
reproducibility threshold's evidence.

Not a test: it prints figures. The committed reruns are read from git: by default the
all-MiniLM-L6-v2 baseline before and after commit cae64e1, which regenerated it with the
same command on oneDNN linear layers (the kernels a CPU's instruction set picks; its
scores moved by about 1e-7). For every task figure, and for every column of every site
view both versions fill (the same convention as the site: one task's figure, or the mean
of the tasks' figures), it prints the largest absolute difference per metric, and whether
the figures the site and the PR comment rank on (each view's tiered column, each task's
primary metric) stay below :data:`leaderboard.publish.stats.significance.api.REPRODUCIBILITY_THRESHOLD`.

    .venv/bin/python benchmarks/drift.py
    .venv/bin/python benchmarks/drift.py --before REV --after REV --submission ID
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from leaderboard.benchmarks import all_views  # noqa: E402
from leaderboard.benchmarks.registry import all_tasks  # noqa: E402
from leaderboard.publish.stats.significance.api import REPRODUCIBILITY_THRESHOLD  # noqa: E402

REPO = Path(__file__).resolve().parents[1]


def tasks_at(revision: str, submission: str) -> dict[str, dict]:
    """The task scores of a submission's results.json at a git revision."""
    text = subprocess.run(["git", "-C", str(REPO), "show",
                           f"{revision}:submissions/{submission}/results.json"],
                          capture_output=True, text=True, check=True).stdout
    (system,) = json.loads(text)["systems"]
    return system["tasks"]


def column_value(tasks: dict[str, dict], parts: tuple[tuple[str, str], ...],
                 group: str | None) -> float | None:
    figures = []
    for task_id, metric in parts:
        scores = tasks.get(task_id)
        if scores is None:
            return None
        value = (scores.get("groups", {}).get(group, {}) if group else
                 scores.get("metrics", {})).get(metric)
        if value is None:
            return None
        figures.append(value)
    return math.fsum(figures) / len(figures)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default="cae64e1^")
    parser.add_argument("--after", default="cae64e1")
    parser.add_argument("--submission", default="all-minilm-l6-v2")
    args = parser.parse_args(argv)
    before, after = (tasks_at(r, args.submission) for r in (args.before, args.after))
    registry = all_tasks()

    task_drift: dict[tuple[str, str], float] = defaultdict(float)
    primary = 0.0
    for task_id in sorted(set(before) & set(after)):
        family = task_id.split("/")[0]
        for metric, value in before[task_id]["metrics"].items():
            other = after[task_id]["metrics"].get(metric)
            if other is None:
                continue
            d = abs(value - other)
            task_drift[family, metric] = max(task_drift[family, metric], d)
            if task_id in registry and metric == registry[task_id].primary_metric:
                primary = max(primary, d)
    column_drift: dict[tuple[str, str, bool], float] = defaultdict(float)
    tiered = 0.0
    for view in all_views().values():
        for i, column in enumerate(view.columns):
            a = column_value(before, column.parts, column.group)
            b = column_value(after, column.parts, column.group)
            if a is None or b is None:
                continue
            d = abs(a - b)
            key = (view.id.split("/")[0], column.metric, i == view.tiered_column)
            column_drift[key] = max(column_drift[key], d)
            if i == view.tiered_column:
                tiered = max(tiered, d)

    print(f"{args.submission}: {args.before} against {args.after}, "
          f"{len(set(before) & set(after))} tasks in both")
    print("largest |difference| of a task figure, per benchmark and metric:")
    for (family, metric), d in sorted(task_drift.items()):
        print(f"  {family:24s} {metric:24s} {d:.3g}")
    print("largest |difference| of a view column's value (tiered column marked *):")
    for (family, metric, is_tiered), d in sorted(column_drift.items()):
        print(f"  {family:24s} {metric + (' *' if is_tiered else ''):24s} {d:.3g}")
    print(f"what the site ranks on (tiered columns): {tiered:.3g}; what the PR comment ranks "
          f"on (task primary metrics): {primary:.3g}; reproducibility threshold "
          f"{REPRODUCIBILITY_THRESHOLD:g}: "
          + ("above both" if max(tiered, primary) < REPRODUCIBILITY_THRESHOLD else
             "NOT above both"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
