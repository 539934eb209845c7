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
                                   data.judged("changed"), data.roles["altered"].query_ids)
    if "IRS" in task.pair_metrics:
        per_query["IRS"] = irs(ranked["original"], ranked["altered"], data.pairs,
                               data.judged("instruction_positive"), data.judged("changed"),
                               data.corpus_size, data.roles["altered"].query_ids)

    metrics = {key: _mean(values) for key, values in per_query.items()}
    members = _group_members(data) if task.group_by else {}
    groups = {label: {key: _mean(values, ids) for key, values in per_query.items()}
              for label, ids in members.items()}
    n_queries = len(data.roles[task.roles[-1]].query_ids)
    return TaskScores(metrics=metrics, groups=groups, per_query=per_query,
                      group_members=members, n_queries=n_queries)


def _group_members(data: TaskData) -> dict[str, list[str]]:
    """Query ids behind each group's means (e.g. constraint type C1).

    A group holds its altered pairs and the distinct topics they come from: altered-run
    metrics average over the pairs, original-run metrics over the topics, each topic once.
    Pair ids ("12_0") and topic ids ("12") never collide, so one list serves both.
    """
    members: dict[str, list[str]] = defaultdict(list)
    for q in data.roles["altered"].query_ids:
        label = data.groups.get(q)
        if label is not None:
            members[label].append(q)
    return {label: sorted({data.pairs[q] for q in ids}) + ids
            for label, ids in sorted(members.items())}
