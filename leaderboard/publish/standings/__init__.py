"""Standings: what every leaderboard surface ranks, shows and tests, computed once.

The site's tables, its CSV/JSON downloads, the PR comment (:mod:`leaderboard.app.ci.standing`)
and `leaderboard compare` all take their figures from here:

* :mod:`.rows`: the leaderboard rows under a results root;
* :mod:`.statistic`: a column's value by its declared convention (one task's figure, or the
  mean of its tasks' figures as the benchmark's paper averages), and the per-unit values
  whose mean it is, which the significance test compares;
* :mod:`.tables`: a view's values, default order, leader and tiers (through
  :func:`leaderboard.publish.stats.tiers.tier_view`), with a cache of the tests;
* :mod:`.lines`: one line per model, each cell's figure picked from the model's rows by a
  stated precedence (verified, the benchmark's paper, other papers, MTEB);
* :mod:`.references`: the no-skill reference of a column (p-MRR and IRS 0, AUROC 0.5, ...);
* :mod:`.downloads`: a view's CSV/JSON records, with the tests against the leader;
* :mod:`.head_to_head`: two systems compared view by view.

The views themselves (which tasks, metrics and columns make up each table) are declared
by each benchmark in :mod:`leaderboard.benchmarks` (:func:`leaderboard.benchmarks.all_views`).
"""

from __future__ import annotations

from leaderboard.benchmarks import benchmark_of
from leaderboard.benchmarks.registry import all_tasks
from leaderboard.benchmarks.views import Column, column

from .lines import LineCell, ModelLine, model_lines
from .rows import Row, StandingsDataError, SubmissionInfo, load_rows
from .statistic import CellValue, column_value, stratified_units, unit_scores
from .tables import (
    ColumnStandings,
    ViewTable,
    fill_view,
    order_systems,
    rank_systems,
    tested_order,
    tier_column,
    tier_tables,
)
from .verdicts import TIER_BELOW, TIER_LEADER, TIER_REPORTED, TIER_TIED, TierInfo


def task_column(task_id: str, metric: str | None = None) -> Column:
    """A one-task column on ``metric`` (default: the task's primary metric), as the PR
    comment ranks a task: what the metric is comes from the measure catalogue and what its
    test resamples from the task's benchmark, as for every column a benchmark declares."""
    task = all_tasks()[task_id]
    return column((task_id,), metric or task.primary_metric, metric or task.primary_metric,
                  sampling=benchmark_of(task.benchmark).sampling_unit(task))


__all__ = [
    "TIER_BELOW", "TIER_LEADER", "TIER_REPORTED", "TIER_TIED", "CellValue", "ColumnStandings",
    "LineCell", "ModelLine", "Row", "StandingsDataError", "SubmissionInfo", "TierInfo",
    "ViewTable", "column_value", "fill_view", "load_rows", "model_lines",
    "order_systems", "rank_systems", "stratified_units", "task_column",
    "tested_order", "tier_column", "tier_tables", "unit_scores",
]
