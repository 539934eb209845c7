"""A view's CSV and JSON downloads, written beside the pages (``downloads/<view>.csv|json``),
and every view's records in one long Parquet table (``downloads/results.parquet``).

The records themselves are the standings' (:mod:`leaderboard.publish.standings.downloads`);
this module only writes them, with each figure's source in the site's words. The Parquet
table holds the very records the JSON downloads hold, reshaped to one per (view, model
line, column) (:mod:`leaderboard.publish.standings.long_form`), so the two cannot differ.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

import pyarrow as pa

from leaderboard.benchmarks.views import Column
from leaderboard.publish.open_data import records_table, write_parquet
from leaderboard.publish.site.board import Board
from leaderboard.publish.site.figure_marks import mark_fields
from leaderboard.publish.site.overview import (
    build_overview,
    home_document,
    overview_columns,
)
from leaderboard.publish.site.table_display import source_text
from leaderboard.publish.standings import Row, ViewTable
from leaderboard.publish.standings.downloads import (
    ONE_CLASS,
    PRINTED_AVERAGE,
    TEST_FIELDS,
    TEST_TEXT_FIELDS,
    column_document,
    csv_text,
    view_document,
    view_records,
)
from leaderboard.publish.standings.lines import record_of
from leaderboard.publish.standings.long_form import VALUE, long_records
from leaderboard.publish.training import Overlap, view_overlap

# The folder of the site that holds every download.
DOWNLOADS = "downloads"
# Every view's records in long form, one file (pandas.read_parquet reads it by URL).
RESULTS_PARQUET = "results.parquet"
# The long form's columns of numbers and flags, typed so whether or not this board has a
# value there: a board where no test ran has no p-value, and its p_value column is still
# one of numbers (the rest is text, and JSON text for lists).
STANDINGS_TYPES: dict[str, pa.DataType] = {
    "rank": pa.int64(), "position": pa.int64(), "parameters": pa.int64(),
    "benchmarks": pa.int64(),
    "instruction_trained": pa.bool_(), VALUE: pa.float64(),
    ONE_CLASS: pa.bool_(), PRINTED_AVERAGE: pa.float64(),
    **{field: pa.string() if field in TEST_TEXT_FIELDS else pa.float64()
       for field in TEST_FIELDS}}

# The CSV downloads' encoding: UTF-8 with a byte order mark. Excel opens a CSV without one
# (a double click, File > Open) in the system's ANSI code page, so a model named in any
# script but ASCII read as mojibake; with it, Excel, LibreOffice and Google Sheets read
# UTF-8, and pandas (read_csv), R's readr, DuckDB and polars strip it. Python's csv module
# keeps it in the first column's name unless the file is opened with "utf-8-sig". The
# CSV is the spreadsheet's download (its text cells are kept from running as formulas);
# programs have the JSON and Parquet, which carry no mark.
CSV_ENCODING = "utf-8-sig"


def table_records(table: ViewTable) -> tuple[list[str], list[dict[str, object]]]:
    """Header and rows of a view's download, one per model: exact fractions, not the x100
    display, with each tested figure's p-values, difference from the best verified row and
    its 95% interval, every figure's source and what the marks after it say."""
    overlaps: dict[str, Overlap | None] = {}  # one per model, as the page computes it

    def marks_of(row: Row, index: int) -> dict[str, object]:
        record = record_of(row)
        if record.id not in overlaps:
            overlaps[record.id] = view_overlap(record, table.view)
        return mark_fields(table, row, index, overlaps[record.id])

    return view_records(table, source_text, marks_of)


def write_downloads(table: ViewTable, folder: Path) -> list[dict[str, object]]:
    """Write a view's CSV and JSON; returns its records in long form."""
    header, records = table_records(table)
    stem = table.view.anchor
    write_download_csv(folder / f"{stem}.csv", header, records)
    write_download_json(folder / f"{stem}.json", view_document(table, records))
    return long_records(table.view.id, [c.id for c in table.view.columns], records)


def standings_records(board: Board) -> list[dict[str, object]]:
    """Every view's download records and the home table's, in long form: what
    ``downloads/results.parquet`` holds (the site writes it as it writes each view)."""
    long: list[dict[str, object]] = []
    for table in board.tables.values():
        _, records = table_records(table)
        long += long_records(table.view.id, [c.id for c in table.view.columns], records)
    _, records, doc = home_document(build_overview(board))
    long += long_records(doc["view"]["id"], [c["id"] for c in doc["view"]["columns"]], records)
    return long


def column_records(board: Board) -> list[dict[str, object]]:
    """What every column of :func:`standings_records` is, one record per (view, column),
    the home table's too: the export's views table. A view's column as its JSON download
    describes it (:func:`~leaderboard.publish.standings.downloads.column_document`), with
    the tasks a reported row's own published average of it is read from and whether the
    view's test is on it; a home column as the view's column whose cells it shows, which
    it names."""
    out = []
    for table in board.tables.values():
        view = table.view
        for i, (col, ref) in enumerate(zip(view.columns, table.references
                                           or [None] * len(view.columns))):
            out.append(_column_record(view.id, col, column_document(col, ref),
                                      i == view.tiered_column, None))
    for home in overview_columns(board):
        view = home.table.view
        described = {**column_document(home.column, None), "id": home.home.id,
                     "label": home.home.label}
        out.append(_column_record("home", home.column, described,
                                  home.index == view.tiered_column,
                                  (view.id, home.column.id)))
    return out


def _column_record(view: str, column: Column, described: dict[str, object], tested: bool,
                   shown: tuple[str, str] | None) -> dict[str, object]:
    return {"view": view, "column": described.pop("id"), **described,
            "published_tasks": list(column.prefer), "tested": tested,
            "from_view": shown[0] if shown else None,
            "from_column": shown[1] if shown else None}


def write_results_parquet(long: list[dict[str, object]], folder: Path) -> int:
    """``downloads/results.parquet``: every view's long records; returns its size."""
    return write_parquet(records_table(long, types=STANDINGS_TYPES), folder / RESULTS_PARQUET)


def write_download_csv(path: Path, header: Sequence[str],
                       records: Sequence[Mapping[str, object]]) -> None:
    """A CSV download, in :data:`CSV_ENCODING`."""
    path.write_text(csv_text(header, records), encoding=CSV_ENCODING)


def write_download_json(path: Path, doc: dict) -> None:
    # Compact JSON: json's indenting encoder is pure Python and was the slowest step of
    # writing downloads for a thousand rows.
    path.write_text(json.dumps(doc, ensure_ascii=False, allow_nan=False,
                               separators=(",", ":")) + "\n", encoding="utf-8")
