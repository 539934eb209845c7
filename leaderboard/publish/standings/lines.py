"""One line per model: the rows of a view folded by model identity, each line's figures
from one row.

Rows are (model, source) pairs: the FollowIR paper's "FollowIR-7B" and MTEB's
``jhu-clsp/FollowIR-7B`` are two rows of one model
(:func:`leaderboard.publish.models.resolve_model`); two verified submissions of one model
are two rows too. Every surface that lists models (the site's tables and charts, the
downloads, the search index, the home table) shows one line per model, and every figure
of a line comes from one row, its **source**, picked from the model's rows by this rule
(:func:`source_order`):

1. a verified submission: one scored on the data revision the registry pins for every
   task of the view before one scored on another for some (:func:`.tables.off_pin_of`:
   its figures are on other data, tested against no row), then the best of them on the
   view's tiered column, as its test ranks it: the best verified row first (its tie
   with a row of the model up to the reproducibility threshold above it is its own,
   :func:`leaderboard.publish.stats.tiers.pick_leader`), then by value (else on the
   view's sort column);
2. a reported row, one that gives the view's sort column before one that does not, by
   source: the benchmark's own sources, in the order its declaration gives them
   (:attr:`leaderboard.benchmarks.declaration.Benchmark.own_sources`: the benchmark's own
   paper; on PI-Indic's full-set tables the authors' result files, then the paper); then
   another paper; the PI-Indic authors' result files; MTEB's results repository, newest
   mteb version first.

A line never mixes rows: a cell its source has no figure for is empty, whatever another
row gives, so a row's average is always the mean of its own cells and its language set
is one. The model's other rows stay with the line, each named, with their figures
(:attr:`ModelLine.others`, and per cell :attr:`LineCell.others`), so a line's details and
the downloads list every source.

Lines are in order of their sort column's figure, best first, except that the **best
verified** line (where the sort column is the tested one) comes first of the tested lines:
a tested line it would follow is within the reproducibility threshold of it, tied with it,
and the tie is the leader's (:func:`leader_first`). So the table, its heading, every
surface's rank and the no-skill reference's place agree on who stands first.

A line whose figure in the view's sort column was scored on another data revision than
the registry pins for one of the column's tasks (:attr:`ModelLine.off_pin`) is shown,
marked, and **not ranked**: a rank would order figures measured on other data as if
comparable. So is a reported line where the sort column does not rank reported figures
against verified ones (:func:`reported_apart`: a source's convention the board's figures
are not on). Such a line has no rank (:func:`ranked`), and it comes after every ranked
line, the unranked ones by their own figure, then the lines without a figure in the sort
column.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import TypeVar

from leaderboard.benchmarks import declared
from leaderboard.benchmarks.views import Column, View
from leaderboard.publish.models import ModelRecord, resolve_model

from .rows import Row
from .verdicts import TIER_LEADER, TIER_REPORTED, TierInfo

T = TypeVar("T")


@dataclass
class LineCell:
    value: float | None
    row: Row | None                 # the line's source when the cell has a figure, else None
    tier: TierInfo | None = None
    # The model's other rows with a figure for this cell, in the order of the rule.
    others: list[tuple[Row, float]] = field(default_factory=list)

    @property
    def verified(self) -> bool:
        return self.row is not None and self.row.verified


@dataclass
class ModelLine:
    record: ModelRecord
    source: Row                     # the one row every figure of the line comes from
    rows: list[Row]                 # every row of the model in the view, the source first
    cells: list[LineCell]
    # The view's columns whose figure (the source's) was scored on another data revision
    # than the pin for one of their tasks (:func:`.tables.off_pin_of`), by index.
    off_pin: frozenset[int] = frozenset()
    # Its figure in the view's sort column is a reported one, which that column does not
    # rank against the verified figures (:func:`reported_apart`).
    apart: bool = False

    @property
    def key(self) -> str:
        return self.record.id

    @property
    def name(self) -> str:
        return self.record.name

    @property
    def verified(self) -> bool:
        """Whether the line's figures are verified (its source is a submission)."""
        return self.source.verified

    @property
    def others(self) -> list[Row]:
        """The model's other rows in the view, in the order of the rule: listed, each
        named, in the line's details and downloads, never mixed into its cells."""
        return self.rows[1:]

    @property
    def submission_row(self) -> Row | None:
        """The verified row whose submission page the line links to: its source."""
        return self.source if self.source.verified else None


def ranked(line: ModelLine, view: View) -> bool:
    """Whether ``line`` has a rank in ``view``: a figure in its sort column, scored on the
    data revision the registry pins for every task of that column, and not a reported one
    the column ranks apart (module docstring)."""
    index = view.sort_column
    return (line.cells[index].value is not None and index not in line.off_pin
            and not line.apart)


def reported_apart(column: Column, figures: Iterable[tuple[bool, float | None]]) -> bool:
    """Whether ``column`` ranks its reported figures apart from the verified ones, after
    them and unnumbered: it does not rank the one against the other
    (:attr:`~leaderboard.benchmarks.views.Column.reported_comparable`) and a verified
    figure is there to be ranked against (``figures``: each row's or line's (verified,
    value) in the column); with none, the reported figures rank among themselves. The
    one rule of every ranking in Python; assets/leaderboard.js applies it to a click on
    the column (its header's data-unranked)."""
    return not column.reported_comparable and any(
        verified and value is not None for verified, value in figures)


def record_of(row: Row) -> ModelRecord:
    """The row's model record, resolved once per row."""
    if row.record is None:
        row.record = resolve_model(row.system)
    return row.record


@cache
def _own_sources() -> dict[str, tuple[str, ...]]:
    return {view: prefixes for b in declared() for view, prefixes in b.own_sources.items()}


def own_sources(view_id: str) -> tuple[str, ...]:
    """System-id prefixes of the view's benchmark's own reported sources, in order."""
    return _own_sources().get(view_id.split("/", 1)[0], ())


def _version_key(version: str | None) -> tuple[int, ...]:
    parts = (version or "").split(".")
    return tuple(-int(p) if p.isdigit() else 0 for p in parts)


# After the benchmark's own sources: other papers, the PI-Indic authors' result files,
# MTEB's results, then anything else.
_KIND_RANK = {"paper": 0, "pi-indic-results": 1, "mteb-results": 2}


def source_order(row: Row, values: list[float | None], view: View, own: tuple[str, ...],
                 off_pin: bool, leads: bool = False) -> tuple:
    """Sort key of a model's rows competing to be its line's source: the smallest wins
    (module docstring). ``values`` are the row's values in the view's columns;
    ``off_pin``: the row was scored on another data revision than the pin for a task of
    the view; ``leads``: the row is the best verified of the view's tiered column."""
    if row.verified:
        index = view.tiered_column if view.tiered_column is not None else view.sort_column
        column, value = view.columns[index], values[index]
        if value is None:
            return (0, off_pin, 1, 0.0, row.key)
        return (0, off_pin, not leads, -value if column.higher_is_better else value,
                row.key)
    lacks_sort = values[view.sort_column] is None
    system_id = row.system.system_id
    mine = next((i for i, prefix in enumerate(own) if system_id.startswith(prefix)), None)
    src = row.system.source
    rank = (0, mine) if mine is not None else (1, _KIND_RANK.get(src.kind, len(_KIND_RANK)))
    version = _version_key(src.mteb_version) if src.kind == "mteb-results" else ()
    return (1, lacks_sort, *rank, version, row.key)


def _line_order(line: ModelLine, column: Column, index: int) -> tuple:
    cell = line.cells[index]
    value = cell.value
    sign = -1.0 if column.higher_is_better else 1.0
    return (value is None, index in line.off_pin or line.apart,
            sign * value if value is not None else 0.0,
            not cell.verified, line.name.casefold(), line.key)


def leader_first(order: list[T], tier_of: Callable[[T], str | None]) -> list[T]:
    """``order`` (best value first) with its leader, the item whose tier (``tier_of``) is
    the leader's, moved before the first tested item (a tier other than "reported"; None:
    not tested). The tested items it passes have values within the reproducibility
    threshold of its own (:func:`leaderboard.publish.stats.tiers.pick_leader` chose it
    among them), so this is the order of the tiers: a difference below the threshold is a
    tie, and the tie is the leader's. Reported and untested items keep their places."""
    tested = [i for i, item in enumerate(order)
              if (tier := tier_of(item)) is not None and tier != TIER_REPORTED]
    lead = next((i for i in tested if tier_of(order[i]) == TIER_LEADER), None)
    if lead is None or lead == tested[0]:
        return order
    out = list(order)
    out.insert(tested[0], out.pop(lead))
    return out


def model_lines(view: View, rows: list[Row], values: Mapping[str, list[float | None]],
                tiers: Mapping[int, dict[str, TierInfo]],
                off_pin: Mapping[str, frozenset[int]]) -> list[ModelLine]:
    """A view table's rows (:class:`.tables.ViewTable`: its rows, each row's value per
    column, the tested columns' tiers and, for each verified row scored on another data
    revision than the pin for a task of the view, the indices of the columns whose figure
    that is) as one line per model, each from one source, in the view's default order:
    the ranked lines first, best value of the sort column first, verified before reported
    at equal values, then by name, the best verified line first of the tested ones where
    the sort column is tested (:func:`leader_first`); then the lines scored off the pin in
    the sort column and the reported lines it ranks apart (:func:`reported_apart`), alike
    (not ranked); then those without a figure in it."""
    own = own_sources(view.id)
    by_model: dict[str, tuple[ModelRecord, list[Row]]] = {}
    for row in rows:
        rec = record_of(row)
        by_model.setdefault(rec.id, (rec, []))[1].append(row)
    lines = []
    column_tiers = [tiers.get(i) or {} for i in range(len(view.columns))]
    tiered = column_tiers[view.tiered_column] if view.tiered_column is not None else {}
    for rec, model_rows in by_model.values():
        if len(model_rows) > 1:
            model_rows = sorted(model_rows, key=lambda r: source_order(
                r, values[r.key], view, own, bool(off_pin.get(r.key)),
                (t := tiered.get(r.key)) is not None and t.tier == TIER_LEADER))
        source, rest = model_rows[0], model_rows[1:]
        own_values = values[source.key]
        cells = []
        for i, value in enumerate(own_values):
            others = [(r, v) for r in rest if (v := values[r.key][i]) is not None]
            if value is None:
                cells.append(LineCell(None, None, None, others))
            else:
                cells.append(LineCell(value, source, column_tiers[i].get(source.key), others))
        lines.append(ModelLine(rec, source, model_rows, cells,
                               off_pin.get(source.key, frozenset())))
    sort_col = view.columns[view.sort_column]
    index = view.sort_column
    if reported_apart(sort_col, ((ln.cells[index].verified, ln.cells[index].value)
                                 for ln in lines)):
        for line in lines:
            line.apart = line.cells[index].value is not None and not line.cells[index].verified
    lines.sort(key=lambda line: _line_order(line, sort_col, index))
    if view.tiered_column != index:
        return lines
    return leader_first(lines, lambda line: t.tier if (t := line.cells[index].tier) else None)
