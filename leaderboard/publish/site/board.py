"""The site's data: every view filled and tiered.

Rows, values, order, leaders, tiers and the one line per model come from
:mod:`leaderboard.publish.standings`, which the downloads, the PR comment and `leaderboard compare`
use too; this module only gathers the site's pages into one :class:`Board`. What a page
needs of a row or a table is imported from there, never from here.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from leaderboard.benchmarks import all_views, site_pages
from leaderboard.publish.standings import Row, ViewTable, fill_view, load_rows, tier_tables


@dataclass
class Board:
    rows: list[Row]
    tables: dict[str, ViewTable]
    warnings: list[str]

    @property
    def submissions(self) -> list[Row]:
        return [r for r in self.rows if r.submission is not None]


def load_board(results_root: Path, cache_dir: Path | None = None) -> Board:
    """Rows, every view filled and tiered. ``cache_dir`` memoises the significance tests;
    None computes them all. The home table is built from these views
    (:mod:`leaderboard.publish.site.overview`)."""
    rows, warnings = load_rows(results_root)
    return board_of(rows, warnings, cache_dir)


def board_of(rows: list[Row], warnings: list[str], cache_dir: Path | None = None) -> Board:
    """The board of these rows (:func:`load_board`'s, once they are read): every view
    filled and tiered."""
    tables: dict[str, ViewTable] = {}
    for page in site_pages():
        for section in page.sections:
            for view in section.views:
                tables[view.id] = fill_view(view, rows, reported_only=section.reported_only)
    tier_tables(tables.values(), cache_dir)
    assert set(tables) == set(all_views())
    return Board(rows=rows, tables=tables, warnings=warnings)
