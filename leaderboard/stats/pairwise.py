"""Comparing two scored submissions task by task (`leaderboard compare`).

For every task both submissions scored, each system is compared on the task's primary
metric and its headline standard metric with the same paired tests the leaderboard
tiers use; the p-values of one comparison run are Holm-corrected together, because a
reader scans the whole table for "significant" rows.
"""

from __future__ import annotations

import fnmatch
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from leaderboard.registry import all_tasks, higher_is_better
from leaderboard.results import ResultsFile, ResultsFileError, SystemResult, read_results

from .significance import holm
from .tiers import compare_pair


class TaskComparison(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    task: str
    metric: str
    test: str
    n_queries: int
    mean_a: float
    mean_b: float
    effect: float       # mean(a - b)
    ci_low: float
    ci_high: float
    p_value: float
    p_adjusted: float
    better: str | None  # "a", "b", or None when the difference is not significant


class SubmissionComparison(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    system_a: str
    system_b: str
    alpha: float
    rows: list[TaskComparison]
    skipped: list[str]  # tasks only one side scored, or without per-query scores


def load_system(path: Path) -> SystemResult:
    """A submission folder or a results.json with exactly one verified system."""
    results_path = path / "results.json" if path.is_dir() else path
    if not results_path.is_file():
        raise ResultsFileError(f"{results_path}: no results file; run `leaderboard score "
                               f"{path}` first")
    results: ResultsFile = read_results(results_path)
    if len(results.systems) != 1:
        raise ResultsFileError(f"{results_path}: holds {len(results.systems)} systems; "
                               "compare takes one submission's results")
    return results.systems[0]


def compare_systems(a: SystemResult, b: SystemResult, task_pattern: str = "*", *,
                    seed: int = 0, alpha: float = 0.05) -> SubmissionComparison:
    registry = all_tasks()
    raw = []
    skipped = []
    for task_id in sorted(set(a.tasks) | set(b.tasks)):
        if not fnmatch.fnmatch(task_id, task_pattern):
            continue
        task = registry.get(task_id)
        if task is None or task_id not in a.tasks or task_id not in b.tasks:
            skipped.append(task_id)
            continue
        for metric in dict.fromkeys((task.primary_metric, task.headline_metric)):
            qa = a.tasks[task_id].per_query.get(metric)
            qb = b.tasks[task_id].per_query.get(metric)
            if not qa or not qb:
                skipped.append(f"{task_id} {metric}")
                continue
            result = compare_pair(qa, qb, metric, seed, a_name=a.system_id, b_name=b.system_id)
            raw.append((task_id, metric, result))
    adjusted = holm([r.p_value for _, _, r in raw]) if raw else []
    rows = []
    for (task_id, metric, r), p_adj in zip(raw, adjusted):
        better = None
        if p_adj < alpha and r.effect != 0:
            a_wins = (r.effect > 0) == higher_is_better(metric)
            better = "a" if a_wins else "b"
        rows.append(TaskComparison(
            task=task_id, metric=metric, test=r.test, n_queries=r.n_queries, mean_a=r.mean_a,
            mean_b=r.mean_b, effect=r.effect, ci_low=r.ci_low, ci_high=r.ci_high,
            p_value=r.p_value, p_adjusted=p_adj, better=better))
    return SubmissionComparison(system_a=a.system_id, system_b=b.system_id, alpha=alpha,
                                rows=rows, skipped=skipped)


def format_table(cmp: SubmissionComparison) -> str:
    """Plain-text table; scores x100 with one decimal, as the leaderboard shows them."""
    head = (f"A = {cmp.system_a}\nB = {cmp.system_b}\n"
            f"{'task':30} {'metric':18} {'A':>7} {'B':>7} {'A-B':>7} {'95% CI':>15} "
            f"{'p':>8} {'p(Holm)':>8}  verdict")
    lines = [head, "-" * len(head.splitlines()[-1])]
    for r in cmp.rows:
        verdict = {"a": "A better", "b": "B better", None: "no significant difference"}[r.better]
        lines.append(
            f"{r.task:30} {r.metric:18} {100 * r.mean_a:7.1f} {100 * r.mean_b:7.1f} "
            f"{100 * r.effect:+7.1f} {f'[{100 * r.ci_low:+.1f}, {100 * r.ci_high:+.1f}]':>15} "
            f"{_p_text(r.p_value):>8} {_p_text(r.p_adjusted):>8}  {verdict}")
    if not cmp.rows:
        lines.append("(no task scored by both submissions)")
    if cmp.skipped:
        lines.append(f"not compared (only one side, or no per-query scores): "
                     f"{', '.join(cmp.skipped[:10])}{' ...' if len(cmp.skipped) > 10 else ''}")
    lines.append(f"Tests: Fisher randomization (Wilcoxon signed-rank for p-MRR), two-sided, "
                 f"Holm-corrected over the {len(cmp.rows)} rows; alpha = {cmp.alpha}.")
    return "\n".join(lines)


def _p_text(p: float) -> str:
    # A Monte-Carlo p-value is never 0; its floor is 1/(R+1), so print a bound instead.
    return "<0.0001" if p < 1e-4 else f"{p:.4f}"
