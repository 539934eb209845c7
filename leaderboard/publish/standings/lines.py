"""One line per model: the rows of a view folded by model identity.

Rows are (model, source) pairs: the FollowIR paper's "FollowIR-7B" and MTEB's
``jhu-clsp/FollowIR-7B`` are two rows of one model
(:func:`leaderboard.publish.models.resolve_model`). Every surface that lists models (the site's
tables and charts, the downloads, the search index, the home table) shows one line per
model, and each of its cells one figure, picked from the model's rows by this rule:

1. a verified row (the best of them, as the column's test ranks it);
2. the benchmark's own paper;
3. another paper;
4. the PI-Indic authors' released result files;
5. MTEB's results repository, newest mteb version first.

The other rows' figures for the same cell stay with it (:attr:`LineCell.others`), so a
cell's details can list every source. A cell keeps its own provenance and tier: those of
the row its figure comes from.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache

from leaderboard.benchmarks import declared
from leaderboard.benchmarks.views import Column, View
from leaderboard.publish.models import ModelRecord, resolve_model

from .rows import Row
from .verdicts import TierInfo


@dataclass
class LineCell:
    value: float | None
    row: Row | None                 # the row the figure comes from
    tier: TierInfo | None = None
    # Other rows of the model with a figure for this cell, in precedence order.
    others: list[tuple[Row, float]] = field(default_factory=list)

    @property
    def verified(self) -> bool:
        return self.row is not None and self.row.verified


@dataclass
class ModelLine:
    record: ModelRecord
    rows: list[Row]                 # every row of the model in the view
    cells: list[LineCell]

    @property
    def key(self) -> str:
        return self.record.id

    @property
    def name(self) -> str:
        return self.record.name

    @property
    def verified(self) -> bool:
        """Whether any figure of the line is verified."""
        return any(c.verified for c in self.cells)

    @property
    def submission_row(self) -> Row | None:
        """The verified row whose submission page the line links to: the one its figures
        come from first, else any verified row of the model."""
        for cell in self.cells:
            if cell.verified:
                return cell.row
        return next((r for r in self.rows if r.verified), None)


def record_of(row: Row) -> ModelRecord:
    """The row's model record, resolved once per row."""
    if row.record is None:
        row.record = resolve_model(row.system)
    return row.record


@cache
def _own_papers() -> dict[str, str]:
    return {view: paper for b in declared() for view, paper in b.own_paper.items()}


def own_paper_prefix(view_id: str) -> str:
    """System-id prefix of the rows from the paper that introduced the view's benchmark."""
    return _own_papers().get(view_id.split("/", 1)[0], "")


def _version_key(version: str | None) -> tuple[int, ...]:
    parts = (version or "").split(".")
    return tuple(-int(p) if p.isdigit() else 0 for p in parts)


_KIND_RANK = {"paper": 2, "pi-indic-results": 3, "mteb-results": 4}


def precedence(row: Row, value: float, column: Column, own_paper: str) -> tuple:
    """Sort key of the rows competing for one cell: the smallest wins (module docstring)."""
    if row.verified:
        return (0, -value if column.higher_is_better else value, row.key)
    src = row.system.source
    rank = _KIND_RANK.get(src.kind, 5)
    if rank == 2 and own_paper and row.system.system_id.startswith(own_paper):
        rank = 1
    version = _version_key(src.mteb_version) if src.kind == "mteb-results" else ()
    return (rank, 0.0, *version, row.key)


def pick_cell(candidates: list[tuple[Row, float]], column: Column, own_paper: str,
              tiers: dict[str, TierInfo] | None = None) -> LineCell:
    """The figure one model shows in one cell, from its rows' ``(row, value)`` pairs."""
    if not candidates:
        return LineCell(None, None)
    if len(candidates) == 1:  # the usual case: one row of the model has the figure
        row, value = candidates[0]
        return LineCell(value, row, (tiers or {}).get(row.key))
    ordered = sorted(candidates, key=lambda c: precedence(c[0], c[1], column, own_paper))
    row, value = ordered[0]
    return LineCell(value, row, (tiers or {}).get(row.key), ordered[1:])


def _line_order(line: ModelLine, column: Column, index: int) -> tuple:
    cell = line.cells[index]
    value = cell.value
    sign = -1.0 if column.higher_is_better else 1.0
    return (value is None, sign * value if value is not None else 0.0, not cell.verified,
            line.name.casefold(), line.key)


def model_lines(view: View, rows: list[Row], values: Mapping[str, list[float | None]],
                tiers: Mapping[int, dict[str, TierInfo]]) -> list[ModelLine]:
    """A view table's rows (:class:`.tables.ViewTable`: its rows, each row's value per
    column and the tested columns' tiers) as one line per model, in the view's default
    order: best value of the sort column first, verified before reported at equal values,
    then by name."""
    own = own_paper_prefix(view.id)
    by_model: dict[str, tuple[ModelRecord, list[Row]]] = {}
    for row in rows:
        rec = record_of(row)
        by_model.setdefault(rec.id, (rec, []))[1].append(row)
    lines = []
    columns = list(enumerate(view.columns))
    column_tiers = [tiers.get(i) for i in range(len(view.columns))]
    for rec, model_rows in by_model.values():
        row_values = [values[r.key] for r in model_rows]
        cells = []
        for i, col in columns:
            candidates = [(r, v[i]) for r, v in zip(model_rows, row_values) if v[i] is not None]
            cells.append(pick_cell(candidates, col, own, column_tiers[i]))
        lines.append(ModelLine(rec, model_rows, cells))
    sort_col = view.columns[view.sort_column]
    lines.sort(key=lambda line: _line_order(line, sort_col, view.sort_column))
    return lines
