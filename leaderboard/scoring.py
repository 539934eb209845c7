"""Scoring: from validated runs of one task to a :class:`TaskScores` score sheet.

Every metric is stored per query (significance tests need that) and as the mean over the
task's query set; FollowTable also gets per-constraint-type groups. Scores are fractions.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from leaderboard.data.base import TaskData
from leaderboard.metrics.instruction import irs, p_mrr
from leaderboard.metrics.ranking import RankedRun, evaluate
from leaderboard.registry import Task
from leaderboard.results import TaskScores
from leaderboard.runs import ParsedRun


def _mean(values: dict[str, float], over: list[str] | None = None) -> float:
    keys = list(values) if over is None else [q for q in over if q in values]
    if not keys:
        return 0.0
    # math.fsum-like stability is not needed at these sizes; np.mean of a fixed order is
    # deterministic, which is what byte-identical results files need.
    return float(np.mean(np.fromiter((values[k] for k in keys), dtype=np.float64,
                                     count=len(keys))))


def score_task(task: Task, data: TaskData, runs: dict[str, ParsedRun]) -> TaskScores:
    """Score the runs of one task (one run per role in ``task.roles``)."""
    if task.candidates == "pairs":
        raise ValueError(f"{task.id} is scored from predictions, not runs")
    ranked = {role: RankedRun.from_parsed(run) for role, run in runs.items()}
    per_query: dict[str, dict[str, float]] = {}
    for role, ranking in ranked.items():
        role_data = data.roles[role]
        scores = evaluate(ranking, role_data.qrels, role_data.query_ids, task.standard_metrics)
        prefix = "" if role == "run" else f"{role}/"
        for metric, values in scores.items():
            per_query[f"{prefix}{metric}"] = values

    if "p-MRR" in task.pair_metrics:
        per_query["p-MRR"] = p_mrr(ranked["original"], ranked["altered"], data.pairs,
                                   data.changed, data.roles["altered"].query_ids)
    if "IRS" in task.pair_metrics:
        per_query["IRS"] = irs(ranked["original"], ranked["altered"], data.pairs,
                               data.instruction_positive, data.changed, data.corpus_size,
                               data.roles["altered"].query_ids)

    metrics = {key: _mean(values) for key, values in per_query.items()}
    groups = _group_means(task, data, per_query) if task.group_by else {}
    n_queries = len(data.roles[task.roles[-1]].query_ids)
    return TaskScores(metrics=metrics, groups=groups, per_query=per_query, n_queries=n_queries)


def _group_means(task: Task, data: TaskData, per_query: dict[str, dict[str, float]]
                 ) -> dict[str, dict[str, float]]:
    """Metric means within each group of altered queries (e.g. constraint type C1).

    Altered-query metrics average over the group's pairs; original-run metrics average
    over the distinct topics those pairs come from, each topic counted once.
    """
    members: dict[str, list[str]] = defaultdict(list)
    for q in data.roles["altered"].query_ids:
        label = data.groups.get(q)
        if label is not None:
            members[label].append(q)
    out: dict[str, dict[str, float]] = {}
    for label in sorted(members):
        altered_ids = members[label]
        topics = sorted({data.pairs[q] for q in altered_ids})
        out[label] = {
            key: _mean(values, topics if key.startswith("original/") else altered_ids)
            for key, values in per_query.items()
        }
    return out
