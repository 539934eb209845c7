"""Standings: what every leaderboard surface ranks, shows and tests, computed once.

The site's tables, its CSV/JSON downloads, the PR comment (:mod:`leaderboard.ci.standing`)
and `leaderboard compare` all take their figures from here:

* :mod:`.rows`: the leaderboard rows under a results root;
* :mod:`.statistic`: a column's value, the mean over the view's queries, each query once
  (the quantity the significance test compares), and the per-query scores behind it;
* :mod:`.tables`: a view's values, default order, leader and tiers (through
  :func:`leaderboard.stats.tier_view`), with a cache of the tests;
* :mod:`.downloads`: a view's CSV/JSON records, with the tests against the leader;
* :mod:`.head_to_head`: two systems compared view by view.

The views themselves (which tasks, metrics and columns make up each table) are declared
by each benchmark in :mod:`leaderboard.benchmarks`; :func:`all_views` hands them out here,
so that no caller (the site, benchmarks, CI) gets them from the presentation layer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .rows import Row, StandingsDataError, SubmissionInfo, load_rows, slug_of
from .statistic import CellValue, column_value, pool_queries, pooled_per_query, query_counts
from .tables import (
    TIER_BELOW,
    TIER_LEADER,
    TIER_REPORTED,
    TIER_TIED,
    ColumnStandings,
    TierInfo,
    ViewTable,
    fill_view,
    order_systems,
    rank_systems,
    tier_column,
    tier_tables,
)

if TYPE_CHECKING:
    from leaderboard.benchmarks.views import Column, View


def all_views() -> dict[str, View]:
    """Every leaderboard view by id, in the benchmarks' declaration order."""
    from leaderboard.benchmarks import declared

    return {v.id: v for b in declared() for page in b.pages() for v in page.views}


def task_column(task_id: str, metric: str | None = None) -> Column:
    """A one-task column on ``metric`` (default: the task's primary metric), as the PR
    comment ranks a task."""
    from leaderboard.registry import all_tasks, higher_is_better
    from leaderboard.benchmarks.views import Column

    task = all_tasks()[task_id]
    metric = metric or task.primary_metric
    base = metric.rsplit("/", 1)[-1]
    return Column(id=metric, label=metric, metric=metric, tasks=(task_id,),
                  higher_is_better=higher_is_better(metric), signed=base in ("p-MRR", "IRS"))


__all__ = [
    "TIER_BELOW", "TIER_LEADER", "TIER_REPORTED", "TIER_TIED", "CellValue", "ColumnStandings",
    "Row", "StandingsDataError", "SubmissionInfo", "TierInfo", "ViewTable", "all_views",
    "column_value", "fill_view", "load_rows", "pool_queries", "pooled_per_query",
    "order_systems", "query_counts", "rank_systems", "slug_of", "task_column", "tier_column", "tier_tables",
]
