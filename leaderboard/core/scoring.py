"""Scoring: from validated runs of one task to a :class:`ScoreSheet`.

Every metric is stored per query (significance tests need that) and as the mean over the
task's query set; FollowTable also gets per-constraint-type groups. Scores are fractions.

A score sheet is a plain dataclass: `leaderboard eval` prints it without importing
pydantic. It becomes a results-file row where one is written: the pydantic
:class:`leaderboard.submission.results.TaskScores` reads a sheet's attributes and checks them
(finite numbers) then.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from leaderboard.core.data.base import TaskData
from leaderboard.core.metrics.instruction import PairRanks, judged_docs
from leaderboard.core.metrics.ranking import JudgedRows, RankedRun, evaluate
from leaderboard.core.runs.columns import ParsedRun
from leaderboard.core.tasks import Task


@dataclass
class ScoreSheet:
    """Scores of one system on one task, as the engine computes them.

    The same fields as :class:`leaderboard.submission.results.TaskScores`, which validates a sheet
    when a results file is assembled from it.
    """

    metrics: dict[str, float]
    groups: dict[str, dict[str, float]] = field(default_factory=dict)
    per_query: dict[str, dict[str, float]] = field(default_factory=dict)
    # Group label -> the query ids behind that group's means.
    group_members: dict[str, list[str]] = field(default_factory=dict)
    n_queries: int | None = None


def _mean(values: dict[str, float], over: list[str] | None = None) -> float:
    keys = list(values) if over is None else [q for q in over if q in values]
    if not keys:
        return 0.0
    # math.fsum-like stability is not needed at these sizes; np.mean of a fixed order is
    # deterministic, which is what byte-identical results files need.
    return float(np.mean(np.fromiter((values[k] for k in keys), dtype=np.float64,
                                     count=len(keys))))


def prepare_task(task: Task, data: TaskData) -> None:
    """Encode the task's judged documents that :func:`score_task` looks up, once per loaded
    task (kept on ``data``): 3-4 ms for a FollowTable task, which `leaderboard eval` spends
    while its runs are still being parsed rather than after."""
    if "p-MRR" in task.pair_metrics or "IRS" in task.pair_metrics:
        judged_docs(data, "changed")
    if "IRS" in task.pair_metrics:
        judged_docs(data, "instruction_positive")


@dataclass(eq=False)
class RankedTask:
    """A task's runs ranked the trec_eval way and, for a task that compares two runs,
    where its judged documents sit in both (:class:`PairRanks`): computed once from the
    validated runs; scoring reads them, and so does the query explorer
    (:mod:`leaderboard.core.explain_arrays`)."""

    runs: dict[str, RankedRun]
    # Each role's judged documents looked up in its run (what the standard metrics count).
    judged: dict[str, JudgedRows] = field(default_factory=dict)
    pairs: PairRanks | None = None


def rank_task(task: Task, data: TaskData, runs: Mapping[str, ParsedRun]) -> RankedTask:
    """Rank ``runs`` (one per role of ``task``) and look up the task's judged documents
    in both runs of a pair: T+ and T- where IRS is reported, the changed documents
    alone otherwise."""
    if task.candidates == "pairs":
        raise ValueError(f"{task.id} is scored from predictions, not runs")
    ranked = {role: RankedRun.from_parsed(run) for role, run in runs.items()}
    judged = {role: JudgedRows.of(run, data.roles[role].qrels, data.roles[role].query_ids)
              for role, run in ranked.items()}
    pairs = None
    if "original" in ranked and "altered" in ranked:
        positive = judged_docs(data, "instruction_positive") \
            if "IRS" in task.pair_metrics else None
        pairs = PairRanks.of(ranked["original"], ranked["altered"], data.pairs,
                             data.roles["altered"].query_ids, judged_docs(data, "changed"),
                             positive, data.corpus_size)
    return RankedTask(ranked, judged, pairs)


def score_task(task: Task, data: TaskData, runs: dict[str, ParsedRun]) -> ScoreSheet:
    """Score the runs of one task (one run per role in ``task.roles``)."""
    return score_ranked(task, data, rank_task(task, data, runs))


def score_ranked(task: Task, data: TaskData, ranked: RankedTask) -> ScoreSheet:
    """Score a task's ranked runs (:func:`rank_task`)."""
    per_query: dict[str, dict[str, float]] = {}
    for role, ranking in ranked.runs.items():
        role_data = data.roles[role]
        scores = evaluate(ranking, role_data.qrels, role_data.query_ids, task.standard_metrics,
                          ranked.judged.get(role))
        prefix = "" if role == "run" else f"{role}/"
        for metric, values in scores.items():
            per_query[f"{prefix}{metric}"] = values

    if ranked.pairs is not None:
        if "p-MRR" in task.pair_metrics:
            per_query["p-MRR"] = ranked.pairs.p_mrr()
        if "IRS" in task.pair_metrics:
            per_query["IRS"] = ranked.pairs.irs()

    metrics = {key: _mean(values) for key, values in per_query.items()}
    members = _group_members(data) if task.group_by else {}
    groups = {label: {key: _mean(values, ids) for key, values in per_query.items()}
              for label, ids in members.items()}
    n_queries = len(data.roles[task.roles[-1]].query_ids)
    return ScoreSheet(metrics=metrics, groups=groups, per_query=per_query,
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
