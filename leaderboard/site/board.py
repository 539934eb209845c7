"""The site's data: every view filled and tiered, and the home table.

Rows, values, order, leaders and tiers come from :mod:`leaderboard.standings`, which the
downloads, the PR comment and `leaderboard compare` use too; this module only gathers the
site's pages into one :class:`Board` and builds the home table from the views. Names
that templates and other modules import from here are re-exported unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from leaderboard.site.layout import HOME_COLUMNS, Column, View, all_views, site_pages
from leaderboard.standings import (
    TIER_BELOW,
    TIER_LEADER,
    TIER_REPORTED,
    TIER_TIED,
    Row,
    SubmissionInfo,
    TierInfo,
    ViewTable,
    fill_view,
    load_rows,
    pool_queries,
    pooled_per_query,
    slug_of,
    tier_tables,
)
from leaderboard.standings import StandingsDataError as SiteDataError

__all__ = [
    "TIER_BELOW", "TIER_LEADER", "TIER_REPORTED", "TIER_TIED", "Board", "Row", "SiteDataError",
    "SubmissionInfo", "TierInfo", "ViewTable", "fill_view", "load_board", "load_rows",
    "pool_queries", "pooled_per_query", "slug_of", "tier_tables",
]


@dataclass
class Board:
    rows: list[Row]
    tables: dict[str, ViewTable]
    home: ViewTable
    warnings: list[str]

    @property
    def submissions(self) -> list[Row]:
        return [r for r in self.rows if r.submission is not None]


def _home_table(rows: list[Row], tables: dict[str, ViewTable]) -> ViewTable:
    """One row per system: the tiered column of each benchmark's average view."""
    columns: list[Column] = []
    sources: list[tuple[ViewTable, int]] = []
    for home in HOME_COLUMNS:
        table = tables[home.view_id]
        index = next(i for i, c in enumerate(table.view.columns) if c.id == home.column_id)
        col = table.view.columns[index]
        columns.append(Column(id=home.id, label=home.label, metric=col.metric, tasks=col.tasks,
                              higher_is_better=col.higher_is_better, signed=col.signed,
                              help=f"{table.view.title}: {col.help or col.label}"))
        sources.append((table, index))
    view = View(id="home", label="All systems", title="All systems", columns=tuple(columns),
                sort_column=0, tiered_column=None, breakdown=False)
    values: dict[str, list[float | None]] = {}
    members = []
    for row in rows:
        cells = [t.values.get(row.key, [None] * len(t.view.columns))[i] for t, i in sources]
        if all(v is None for v in cells):
            continue
        values[row.key] = cells
        members.append(row)
    # Default order: by the first benchmark a row has, so systems of every benchmark show
    # near the top; the reader sorts by any column.
    def key(row: Row) -> tuple:
        cells = values[row.key]
        first = next(i for i, v in enumerate(cells) if v is not None)
        return (first, -(cells[first] or 0.0), row.name.lower(), row.key)

    table = ViewTable(view=view, rows=sorted(members, key=key), values=values)
    for i, (source, index) in enumerate(sources):
        table.tiers[i] = {k: t for k, t in source.tiers.get(index, {}).items() if k in values}
    return table


def load_board(results_root: Path, cache_dir: Path | None = None) -> Board:
    """Rows, every view filled and tiered, and the home table. ``cache_dir`` memoises the
    significance tests; None computes them all."""
    rows, warnings = load_rows(results_root)
    tables: dict[str, ViewTable] = {}
    for page in site_pages():
        for section in page.sections:
            for view in section.views:
                tables[view.id] = fill_view(view, rows, reported_only=section.reported_only)
    tier_tables(tables.values(), cache_dir)
    assert set(tables) == set(all_views())
    return Board(rows=rows, tables=tables, home=_home_table(rows, tables), warnings=warnings)
