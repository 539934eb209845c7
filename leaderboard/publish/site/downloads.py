"""A view's CSV and JSON downloads, written beside the pages (``downloads/<view>.csv|json``).

The records themselves are the standings' (:mod:`leaderboard.publish.standings.downloads`);
this module only writes them, with each figure's source in the site's words.
"""

from __future__ import annotations

import json
from pathlib import Path
from leaderboard.publish.site.board import ViewTable
from leaderboard.publish.site.table_display import source_text
from leaderboard.publish.standings.downloads import csv_text, view_document, view_records

# The folder of the site that holds every download.
DOWNLOADS = "downloads"

def table_records(table: ViewTable) -> tuple[list[str], list[dict[str, object]]]:
    """Header and rows of a view's download, one per model: exact fractions, not the x100
    display, with each tested figure's p-values, difference from the best verified row and
    its 95% interval, and every figure's source."""
    return view_records(table, source_text)


def write_downloads(table: ViewTable, folder: Path) -> None:
    header, records = table_records(table)
    stem = table.view.anchor
    (folder / f"{stem}.csv").write_text(csv_text(header, records), encoding="utf-8")
    write_download_json(folder / f"{stem}.json", view_document(table, records))


def write_download_json(path: Path, doc: dict) -> None:
    # Compact JSON: json's indenting encoder is pure Python and was the slowest step of
    # writing downloads for a thousand rows.
    path.write_text(json.dumps(doc, ensure_ascii=False, allow_nan=False,
                               separators=(",", ":")) + "\n", encoding="utf-8")
