"""The one statistic a leaderboard cell shows, its sort and its significance test share.

A column averages one metric over one or more tasks. Its value is the **mean over the
view's queries, each query once** — the quantity the randomization test compares:

* one task: the task's mean over its queries (the scorer's figure);
* tasks with their own queries (FollowIR's collections, FollowTable's datasets and
  constraint types, mFollowIR's languages): every query of every task pooled, so a
  collection weighs by its number of queries, not as one quarter or one third;
* tasks asking the same queries (PI-Indic's languages: translations of the same 150
  pairs): each pair once, with its mean over the tasks, then the mean over pairs.

A row with per-query scores (verified) gets exactly that mean. A reported row has only
per-task figures: its value is the same pooled mean, the task figures weighted by the
number of queries each task contributes to the view (counted from the verified rows'
per-query scores, or from the row's own ``n_queries``), which is the pooled mean when the
figures are means over those queries. When no count is known the cell is the plain
mean of the task figures and says so (:attr:`CellValue.basis`). A row's own published
average of the tasks (``Column.prefer``) is shown as published.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from leaderboard.results import SystemResult

if TYPE_CHECKING:
    from leaderboard.benchmarks.views import Column

#: How a cell's value was obtained.
#:  "queries": the mean over the per-query scores (verified rows; the tested quantity);
#:  "weighted": task figures weighted by each task's number of the view's queries;
#:  "task": a single task's figure;
#:  "published": the row's own published average of the column's tasks;
#:  "unweighted": the plain mean of task figures (query counts unknown).
Basis = Literal["queries", "weighted", "task", "published", "unweighted"]


@dataclass(frozen=True)
class CellValue:
    value: float | None
    n_tasks: int          # how many tasks the value averages (0: published, or no value)
    basis: Basis | None = None


def pool_queries(per_task: Sequence[tuple[str, Mapping[str, float]]],
                 shared_queries: bool) -> dict[str, float]:
    """One column's per-query scores from its tasks' ``(task id, {query id: score})``.

    One task: its scores as they are. Several tasks with their own queries: every query of
    every task, its id prefixed with the task id. Several tasks asking the same queries
    (``shared_queries``): each query once, with the mean of its scores over the tasks that
    have it, so the unit is the query rather than its translations.
    """
    if len(per_task) == 1:
        return dict(per_task[0][1])
    if not shared_queries:
        return {f"{task_id}:{q}": v for task_id, scores in per_task for q, v in scores.items()}
    totals: dict[str, list[float]] = {}
    for _, scores in per_task:
        for q, v in scores.items():
            totals.setdefault(q, []).append(v)
    return {q: math.fsum(vs) / len(vs) for q, vs in totals.items()}


def task_per_query(system: SystemResult, column: Column, task_id: str, metric: str
                   ) -> dict[str, float] | None:
    """The per-query scores behind one task of a column (a group column: the group's own
    queries), or None when the system has none."""
    scores = system.tasks.get(task_id)
    per_query = scores.per_query.get(column.per_query_key or metric) if scores else None
    if not per_query:
        return None
    if column.group is not None:
        members = scores.group_members.get(column.group) if scores else None
        if not members:
            return None
        per_query = {q: per_query[q] for q in members if q in per_query}
    return per_query


def pooled_per_query(system: SystemResult, column: Column) -> dict[str, float] | None:
    """Per-query scores behind a column (:func:`pool_queries`), or None when a task lacks
    them."""
    per_task: list[tuple[str, dict[str, float]]] = []
    for task_id, metric in column.parts:
        per_query = task_per_query(system, column, task_id, metric)
        if per_query is None:
            return None
        per_task.append((task_id, per_query))
    return pool_queries(per_task, column.shared_queries)


def query_counts(systems: Iterable[SystemResult], column: Column) -> dict[str, int]:
    """Each task's number of queries in the column, from the systems' per-query scores:
    the most any system has (a scored submission has every query of the task)."""
    counts: dict[str, int] = {}
    for system in systems:
        for task_id, metric in column.parts:
            per_query = task_per_query(system, column, task_id, metric)
            if per_query:
                counts[task_id] = max(counts.get(task_id, 0), len(per_query))
    return counts


def _task_figure(system: SystemResult, column: Column, task_id: str, metric: str
                 ) -> float | None:
    scores = system.tasks.get(task_id)
    if scores is None:
        return None
    if column.group:
        return scores.groups.get(column.group, {}).get(metric)
    return scores.metrics.get(metric)


def column_value(system: SystemResult, column: Column,
                 counts: Mapping[str, int] | None = None) -> CellValue:
    """The column's value for a system (module docstring); ``counts`` are the view's
    query counts per task (:func:`query_counts` over the view's rows)."""
    tasks = system.tasks
    for task_id in column.prefer:
        scores = tasks.get(task_id)
        if scores is not None and column.metric in scores.metrics:
            return CellValue(scores.metrics[column.metric], 0, "published")
    figures: list[tuple[str, float]] = []
    for task_id, metric in column.parts:
        value = _task_figure(system, column, task_id, metric)
        if value is None:
            if column.average == "all":
                return CellValue(None, 0)
            continue
        figures.append((task_id, value))
    if not figures:
        return CellValue(None, 0)
    if len(column.parts) == 1:
        return CellValue(figures[0][1], 1, "task")
    n = len(figures)
    if len(figures) == len(column.parts):
        pooled = pooled_per_query(system, column)
        if pooled:
            return CellValue(math.fsum(pooled.values()) / len(pooled), n, "queries")
    if column.shared_queries:
        # Every task asks the same queries: each weighs the same.
        return CellValue(math.fsum(v for _, v in figures) / n, n, "weighted")
    weights = [_weight(system, column, task_id, counts) for task_id, _ in figures]
    if all(w for w in weights):
        total = math.fsum(weights)  # type: ignore[arg-type]
        return CellValue(math.fsum(w * v for w, (_, v) in zip(weights, figures)) / total,  # type: ignore[operator]
                         n, "weighted")
    return CellValue(math.fsum(v for _, v in figures) / n, n, "unweighted")


def _weight(system: SystemResult, column: Column, task_id: str,
            counts: Mapping[str, int] | None) -> int | None:
    if counts and counts.get(task_id):
        return counts[task_id]
    own = system.tasks[task_id].n_queries
    # A row's own count is the task's, not a constraint group's.
    return own if own and column.group is None else None
