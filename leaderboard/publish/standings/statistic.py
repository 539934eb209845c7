"""The one statistic a leaderboard cell shows, its sort and its significance test share.

A column combines one metric over one or more tasks by the convention it declares
(:attr:`leaderboard.benchmarks.views.Column.convention`), the benchmark's own:

* one task: the task's figure, its mean over its queries (the scorer's figure);
* several tasks: the plain **mean of the tasks' figures**, as FollowIR (Table 2),
  mFollowIR (Tables 3-4), FollowTable (Tables 4-5) and PI-Indic print their averages; a
  collection of 20 queries weighs as much as one of 50.

Verified and reported rows get the same number: a verified row's task figures are the
means of its per-query scores, a reported row's are the paper's. A row's own published
average of the tasks (``Column.prefer``) is shown as published.

The test compares exactly that number, one value per independently sampled unit.
:func:`stratified_units` turns a row's per-query scores into one value per unit of the
column's :class:`~leaderboard.benchmarks.units.SamplingUnit` whose plain mean is the mean of
the task figures: each query's score weighted by 1 / (tasks x that task's queries), the
weighted scores of a unit's queries summed, times the number of units. The paired tests
(sign flips, Wilcoxon, DeLong) and the bootstrap run on the differences of these values, so
what a cell shows is what its test compares, and a unit's parts (a FollowTable topic's
query-instruction pairs, an mFollowIR topic in its three languages, PI-Indic's
translations of one pair) move together, as they were sampled.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import numpy as np

from leaderboard.benchmarks.units import SamplingUnit
from leaderboard.submission.results import SystemResult

if TYPE_CHECKING:
    from leaderboard.benchmarks.views import Column

#: How a cell's value was obtained.
#:  "task": a single task's figure;
#:  "mean of tasks": the mean of the row's task figures (the column's convention);
#:  "published": the row's own published average of the column's tasks;
#:  "mean of reported tasks": the mean of the figures a reported row has for some of the
#:      tasks (PI-Indic's full-set views, whose paper averages over supported languages).
Basis = Literal["task", "mean of tasks", "published", "mean of reported tasks"]


@dataclass(frozen=True)
class CellValue:
    value: float | None
    n_tasks: int          # how many tasks the value averages (0: published, or no value)
    basis: Basis | None = None
    # The value as its source prints it (``TaskScores.printed``) where it is one printed
    # figure, a task's or a published average, else None (a computed value).
    printed: str | None = None


def stratified_units(per_task: Sequence[tuple[str, Mapping[str, float]]],
                     unit: SamplingUnit) -> dict[str, float]:
    """One value per unit whose plain mean is the mean of the tasks' mean scores.

    ``per_task`` holds each task's ``(task id, {query id: score})``. With L tasks, task t
    having n_t queries, and U units (``unit.key`` of each task's query ids), unit u gets
    ``U * sum over its queries (t, q) of score / (L * n_t)``, so that the mean over the
    units is (1/L) sum_t mean_t. A unit that is one query of each task, every task having
    every unit, is its query's plain mean over the tasks (kept exact, so scores on a rank
    grid stay on one; see fixedpoint.grid_columns); a unit that is one query of one task
    among several is ``U * score / (L * n_t)``. One task whose units are its queries keeps
    its scores and ids as they are.
    """
    if len(per_task) == 1 and not unit.groups_queries:
        return dict(per_task[0][1])
    n_tasks = len(per_task)
    terms: dict[str, list[tuple[float, int]]] = {}
    for task_id, scores in per_task:
        n = len(scores)
        for key, v in zip(unit.keys(task_id, scores), scores.values()):
            terms.setdefault(key, []).append((v, n))
    units = len(terms)
    if all(len(ts) == n_tasks and all(n == units for _, n in ts) for ts in terms.values()):
        return {u: math.fsum(v for v, _ in ts) / n_tasks for u, ts in terms.items()}
    return {u: units * ts[0][0] / (n_tasks * ts[0][1]) if len(ts) == 1
            else units * math.fsum(v / n for v, n in ts) / n_tasks
            for u, ts in terms.items()}


def task_per_query(system: SystemResult, column: Column, task_id: str, metric: str
                   ) -> dict[str, float] | None:
    """The per-query scores behind one task of a column (a group column: the group's own
    queries), or None when the system has none."""
    scores = system.tasks.get(task_id)
    per_query = scores.per_query.get(metric) if scores else None
    if not per_query:
        return None
    if column.group is not None:
        members = scores.group_members.get(column.group) if scores else None
        if not members:
            return None
        per_query = {q: per_query[q] for q in members if q in per_query}
    return per_query


def _per_task(system: SystemResult, column: Column
              ) -> list[tuple[str, dict[str, float]]] | None:
    per_task: list[tuple[str, dict[str, float]]] = []
    for task_id, metric in column.parts:
        per_query = task_per_query(system, column, task_id, metric)
        if per_query is None:
            return None
        per_task.append((task_id, per_query))
    return per_task


def unit_scores(system: SystemResult, column: Column) -> dict[str, float] | None:
    """The per-unit values a column's test compares (:func:`stratified_units`), or None
    when a task lacks per-query scores."""
    per_task = _per_task(system, column)
    return None if per_task is None else stratified_units(per_task, column.sampling)


def tested_scores(system: SystemResult, column: Column
                  ) -> tuple[dict[str, float], float] | None:
    """:func:`unit_scores` and the figure the tested row shows, or None.

    The figure is the mean of the row's per-query weighted scores (each query of each task
    once; a query the tasks translate, PI-Indic's, once), summed in query-id order: the
    mean the test compares, but not summed unit by unit, so that how the test groups
    queries into units never moves a shown figure in its last bits."""
    per_task = _per_task(system, column)
    if per_task is None:
        return None
    unit = column.sampling
    units = stratified_units(per_task, unit)
    # A unit that is a query (one task's, or one the tasks translate, or a PI-Indic pair,
    # one query of each task) is summed as it is.
    by_query = units if unit.one_query_per_task else stratified_units(
        per_task, SamplingUnit("query", "queries", "one query"))
    values = np.fromiter((by_query[q] for q in sorted(by_query)), dtype=np.float64,
                         count=len(by_query))
    figure = float(values.sum() / values.size) if values.size else 0.0
    return units, figure


def shown_figure(system: SystemResult, column: Column, tested: bool) -> float | None:
    """The figure a view's table shows for ``system`` in ``column`` (its downloads' value):
    on a row tested in its view's tiered column (``tested``), the mean its test compared
    (:func:`tested_scores`, as :mod:`.tables` shows it); else :func:`column_value`. The
    two agree up to the order of summation: `leaderboard compare` gives the same bits as
    the downloads."""
    if tested:
        figures = tested_scores(system, column)
        if figures is not None:
            return figures[1]
    return column_value(system, column).value


def _task_figure(system: SystemResult, column: Column, task_id: str, metric: str
                 ) -> float | None:
    scores = system.tasks.get(task_id)
    if scores is None:
        return None
    if column.group:
        return scores.groups.get(column.group, {}).get(metric)
    return scores.metrics.get(metric)


def column_value(system: SystemResult, column: Column) -> CellValue:
    """The column's value for a system (module docstring)."""
    tasks = system.tasks
    for task_id in column.prefer:
        scores = tasks.get(task_id)
        if scores is not None and column.metric in scores.metrics:
            return CellValue(scores.metrics[column.metric], 0, "published",
                             (scores.printed or {}).get(column.metric))
    figures: list[float] = []
    for task_id, metric in column.parts:
        value = _task_figure(system, column, task_id, metric)
        if value is None:
            if column.average == "all":
                return CellValue(None, 0)
            continue
        figures.append(value)
    if not figures:
        return CellValue(None, 0)
    if len(column.parts) == 1:
        task_id, metric = column.parts[0]
        printed = None if column.group else (tasks[task_id].printed or {}).get(metric)
        return CellValue(figures[0], 1, "task", printed)
    n = len(figures)
    basis: Basis = "mean of tasks" if n == len(column.parts) else "mean of reported tasks"
    return CellValue(math.fsum(figures) / n, n, basis)
