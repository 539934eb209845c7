"""The home page's overview: one row per model, one primary score per benchmark.

Each column is the tiered column of a benchmark's average view (the home columns of
:func:`leaderboard.benchmarks.home_columns`), and each cell is exactly that view's cell for the model:
the views already fold a model's rows into one line and pick one figure per cell by the
stated precedence (:mod:`leaderboard.publish.standings.lines`: verified, the benchmark's own paper,
another paper, the PI-Indic authors' result files, MTEB's results). So the home table, the
benchmark tables and every download agree, and each cell keeps the provenance, source
and tier of the row its figure comes from. ``home.csv`` and ``home.json`` are this table.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from markupsafe import Markup, escape

from leaderboard.core.report import plural
from leaderboard.publish.models import ModelRecord, name_key
from leaderboard.publish.standings import (
    Row,
    TierInfo,
    ViewTable,
)
from leaderboard.publish.site.board import Board
from leaderboard.publish.site.data_revisions import off_pin_short, off_pin_title
from leaderboard.publish.site.format import (
    instruction_text,
    params_reason,
    params_text,
    safe_url,
    sort_value,
)
from leaderboard.benchmarks.views import Column, HomeColumn
from leaderboard.benchmarks import home_columns
# The same hover texts as every other table.
from leaderboard.publish.site.printed_figures import shown_figure
from leaderboard.publish.site.figure_marks import (Mark, figure_css, figure_marks, mark_fields,
                                                   mark_notes)
from leaderboard.publish.site.table_display import (INTERVAL_MARK_NOTE, interval_mark,
                                                    source_name, source_text, tier_title)
from leaderboard.publish.standings.downloads import (BASIS, DOWNLOAD_FORMAT, MARK_FIELDS, OFF_PIN,
                                                     STATISTIC_NOTE, cell_off_pin_revisions)
from leaderboard.publish.standings.lines import LineCell, record_of
from leaderboard.publish.standings.tables import off_pin_of
from leaderboard.publish.standings.verdicts import TIER_TEXT
from leaderboard.publish.training import view_overlap


@dataclass(frozen=True)
class OverviewColumn:
    home: HomeColumn
    table: ViewTable
    index: int                    # the column's index in its view

    @property
    def column(self) -> Column:
        return self.table.view.columns[self.index]

    @property
    def n_tasks(self) -> int:
        return len(self.column.tasks)


@dataclass
class OverviewCell:
    value: float | None
    row: Row | None               # the row the figure comes from
    covered: int                  # tasks of the benchmark this model has figures for
    total: int
    tier: TierInfo | None = None
    others: list[Row] = field(default_factory=list)  # other rows with a figure here


@dataclass
class OverviewModel:
    record: ModelRecord
    rows: list[Row]
    cells: list[OverviewCell]

    @property
    def verified(self) -> bool:
        return any(r.verified for r in self.rows)

    @property
    def benchmarks(self) -> int:
        return sum(1 for c in self.cells if c.value is not None)


@dataclass
class Overview:
    columns: list[OverviewColumn]
    models: list[OverviewModel]           # default order
    verified: list[tuple[Row, ModelRecord, list[OverviewCell]]]
    unlisted: list[Row]                   # rows of models with nothing in these columns

    @property
    def listed_rows(self) -> list[Row]:
        return [r for m in self.models for r in m.rows]


def _column_index(table: ViewTable, column_id: str) -> int:
    return next(i for i, c in enumerate(table.view.columns) if c.id == column_id)


def overview_columns(board: Board) -> list[OverviewColumn]:
    out = []
    for home, _ in home_columns():
        table = board.tables[home.view_id]
        out.append(OverviewColumn(home, table, _column_index(table, home.column_id)))
    return out


def _covered(row: Row, column: Column) -> int:
    """How many of the column's tasks the row has a figure for (a row's own published
    average of all of them counts as all)."""
    tasks = row.system.tasks
    if any(t in tasks and column.metric in tasks[t].metrics for t in column.prefer):
        return len(column.tasks)
    return sum(1 for task_id, metric in column.parts
               if task_id in tasks and metric in tasks[task_id].metrics)


def _cell(col: OverviewColumn, rows: list[Row], line_cells: dict[str, LineCell]
          ) -> OverviewCell:
    """The model's cell: exactly its line's cell in the column's view."""
    covered = max((_covered(row, col.column) for row in rows), default=0)
    cell = line_cells.get(record_of(rows[0]).id)
    if cell is None or cell.value is None:
        return OverviewCell(None, None, covered, col.n_tasks)
    return OverviewCell(cell.value, cell.row, covered, col.n_tasks, cell.tier,
                        [r for r, _ in cell.others])


def _verified_cell(col: OverviewColumn, row: Row) -> OverviewCell:
    """A verified submission's own figure in a home column (the verified table lists
    every submission, even two of one model)."""
    values = col.table.values.get(row.key)
    value = values[col.index] if values is not None else None
    covered = _covered(row, col.column)
    if value is None:
        return OverviewCell(None, None, covered, col.n_tasks)
    return OverviewCell(value, row, covered, col.n_tasks,
                        col.table.tiers.get(col.index, {}).get(row.key))


def build_overview(board: Board) -> Overview:
    columns = overview_columns(board)
    home_tasks = {t for c in columns for t in (*c.column.tasks, *c.column.prefer)}
    line_cells = [{line.key: line.cells[c.index] for line in c.table.lines} for c in columns]
    by_model: dict[str, tuple[ModelRecord, list[Row]]] = {}
    for row in board.rows:
        rec = record_of(row)
        by_model.setdefault(rec.id, (rec, []))[1].append(row)
    models: list[OverviewModel] = []
    unlisted: list[Row] = []
    for rec, rows in by_model.values():
        if not any(t in home_tasks for r in rows for t in r.system.tasks):
            unlisted.extend(rows)
            continue
        models.append(OverviewModel(rec, rows, [_cell(c, rows, cells)
                                                for c, cells in zip(columns, line_cells)]))

    def order(m: OverviewModel) -> tuple:
        # Verified models first, then the most benchmarks covered; within those, best
        # first on the first benchmark the model has a score for.
        first = next((i for i, c in enumerate(m.cells) if c.value is not None), len(columns))
        value = m.cells[first].value if first < len(columns) else None
        sign = -1.0 if first < len(columns) and columns[first].column.higher_is_better else 1.0
        return (not m.verified, -m.benchmarks, first,
                sign * value if value is not None else 0.0, m.record.name.lower(), m.record.id)

    models.sort(key=order)
    # Alphabetical by the name a submission gives its model: no order of several
    # benchmarks' columns ranks one submission above another (a sort by a column does).
    verified = [(row, record_of(row), [_verified_cell(c, row) for c in columns])
                for row in sorted((r for r in board.rows if r.verified),
                                  key=lambda r: (r.system.model.name.casefold(), r.key))]
    return Overview(columns=columns, models=models, verified=verified, unlisted=unlisted)


def home_document(overview: Overview) -> tuple[list[str], list[dict[str, object]], dict]:
    """The home table as a download: CSV header, records and the JSON document, one
    record per model in the table's order, the same columns and figures. A record's
    ``position`` is its place in that order, which ranks no score: a view's download
    calls a line's rank on its tested column ``rank``, and the long form
    (``results.parquet``) holds both in one table."""
    header = ["position", "model_id", "model", "provenance", "model_type", "parameters",
              "instruction_trained", "benchmarks"]
    for col in overview.columns:
        header += [col.home.id, f"{col.home.id} from", f"{col.home.id} {BASIS}",
                   f"{col.home.id} {OFF_PIN}", f"{col.home.id} tier",
                   f"{col.home.id} rank_interval",
                   *(f"{col.home.id} {f}" for f in MARK_FIELDS)]
    records = []
    for pos, m in enumerate(overview.models, 1):
        rec: dict[str, object] = {
            "position": pos, "model_id": m.record.id, "model": m.record.name,
            "provenance": "verified" if m.verified else "reported",
            "model_type": m.record.type, "parameters": m.record.parameters,
            "instruction_trained": m.record.instruction_trained, "benchmarks": m.benchmarks}
        for col, cell in zip(overview.columns, m.cells):
            rec[col.home.id] = cell.value
            rec[f"{col.home.id} from"] = (cell.row.system.system_id if cell.row is not None
                                          else None)
            rec[f"{col.home.id} {BASIS}"] = col.table.basis(cell.row, col.index)
            rec[f"{col.home.id} {OFF_PIN}"] = cell_off_pin_revisions(cell.row, col.column)
            rec[f"{col.home.id} tier"] = (TIER_TEXT.get(cell.tier.tier, cell.tier.tier)
                                          if cell.tier is not None else None)
            # the row's rank interval in the benchmark's table the cell comes from
            rec[f"{col.home.id} rank_interval"] = (cell.tier.rank_interval
                                                   if cell.tier is not None else None)
            # what the marks after the figure say: its benchmark table's (as _marks)
            marks = (mark_fields(col.table, cell.row, col.index,
                                 view_overlap(record_of(cell.row), col.table.view))
                     if cell.value is not None and cell.row is not None else {})
            for name in MARK_FIELDS:
                rec[f"{col.home.id} {name}"] = marks.get(name)
        records.append(rec)
    doc = {"format": DOWNLOAD_FORMAT,
           "view": {"id": "home", "title": "All models",
                    "columns": [{"id": c.home.id, "label": c.home.label,
                                 "view": c.table.view.id, "column": c.column.id,
                                 "convention": c.column.convention,
                                 "means": c.column.convention_text} for c in overview.columns]},
           "scale": "fractions (the site shows x100)", "statistic": STATISTIC_NOTE,
           "order": "position: verified models first, then the most benchmarks covered, then "
                    "the first benchmark's score (not a ranking; each benchmark's own table "
                    "ranks its models)", "rows": records}
    return header, records, doc


# --------------------------------------------------------------------------- display

def _off_pin(col: OverviewColumn, cell: OverviewCell) -> dict[str, str]:
    """Task -> recorded revision of the column's tasks the cell's figure was scored on
    another data revision than the pin of (tested against no row: the view's rule)."""
    return off_pin_of(cell.row, col.column) if cell.row is not None else {}


def _marks(col: OverviewColumn, cell: OverviewCell) -> list[Mark]:
    """The marks of a cell's figure: its benchmark table's for the same figure
    (:func:`~.figure_marks.figure_marks`, one place for every table)."""
    if cell.value is None or cell.row is None:
        return []
    return figure_marks(col.table, cell.row, col.index,
                        view_overlap(record_of(cell.row), col.table.view))


def cell_title(col: OverviewColumn, cell: OverviewCell, marks: Iterable[Mark] = ()) -> str:
    unit = f"{cell.covered} of {cell.total} tasks"
    if cell.row is None:
        return (f"{col.home.label}: figures for {unit}; the average needs all of them"
                if cell.covered else "")
    parts = [f"{col.home.label}: {unit}", source_text(cell.row, full=False)]
    if cell.row.system.system_id:
        parts.append(f"row {cell.row.system.system_id}")
    tier = tier_title(cell.tier)
    if tier:
        parts.append(tier)
    if moved := _off_pin(col, cell):
        parts.append(off_pin_title(moved))
    parts += [m.detail for m in marks]
    for other in cell.others[:6]:
        parts.append(f"also given by {source_name(other)}")
    if len(cell.others) > 6:
        parts.append(f"and {plural(len(cell.others) - 6, 'more source')}")
    return "; ".join(parts)


def _partial(cell: OverviewCell) -> bool:
    """Whether the cell is marked with its coverage ("2/3"): a cell without a figure
    that has some of its column's tasks, or a figure of not all of them."""
    return bool(cell.covered) if cell.value is None else cell.covered < cell.total


def _cell_html(col: OverviewColumn, cell: OverviewCell) -> str:
    e = escape
    marks = _marks(col, cell)
    title = cell_title(col, cell, marks)
    title_attr = f' title="{e(title)}"' if title else ""
    if cell.value is None or cell.row is None:
        text = f"<small>{cell.covered}/{cell.total}</small>" if _partial(cell) else "–"
        return f'<td data-v=""{title_attr}>{text}</td>'
    css = figure_css(cell.tier, cell.row)
    css_attr = f' class="{css}"' if css else ""
    prov = "v" if cell.row is not None and cell.row.verified else "r"
    partial = f" <small>{cell.covered}/{cell.total}</small>" if _partial(cell) else ""
    off_pin = ""
    if moved := _off_pin(col, cell):
        partial += f" <small>{e(off_pin_short(moved))}</small>"
        off_pin = ' data-o="1"'  # a sort by the column numbers it not (leaderboard.js)
    return (f'<td data-v="{sort_value(cell.value)}"{off_pin} data-cp="{prov}"'
            f'{css_attr}{title_attr}>'
            f"{e(shown_figure(col.table, cell.row, col.index, cell.value))}"
            f"{e(''.join(m.symbol for m in marks))}{partial}</td>")


def _params_title(n: int | None, model_type: str) -> str:
    reason = params_reason(n, model_type)
    return f' title="{escape(reason)}"' if reason else ""


def _badges(rows: Iterable[Row]) -> str:
    kinds = {r.verified for r in rows}
    out = ""
    if True in kinds:
        out += '<abbr class="fb-prov fb-prov-v" title="has a verified submission">V</abbr> '
    if False in kinds:
        out += '<abbr class="fb-prov fb-prov-r" title="has reported figures">R</abbr> '
    return out


def model_rows_html(overview: Overview, submissions_prefix: str) -> Markup:
    """``<tbody>`` rows of the model table; every value goes through :func:`escape`."""
    e = escape
    out: list[str] = []
    for pos, m in enumerate(overview.models, 1):
        rec = m.record
        prov = "verified" if m.verified else "reported"
        sub = next((r.submission for r in m.rows if r.submission is not None), None)
        name = e(rec.name)
        card = next((safe_url(u) for u in rec.links if safe_url(u)), None) or next(
            (safe_url(c.row.system.source.url) for c in m.cells
             if c.row is not None and safe_url(c.row.system.source.url)), None)
        if sub is not None:
            link = (f'<a class="fb-n" dir="auto" href="{e(submissions_prefix + sub.slug)}.html">'
                    f'{name}</a>')
        elif card:
            link = (f'<a class="fb-n" dir="auto" href="{e(card)}" rel="nofollow noopener">'
                    f'{name}</a>')
        else:
            link = f'<span class="fb-n" dir="auto">{name}</span>'
        sources = "; ".join(sorted({r.system.system_id for r in m.rows}))
        out.append(
            f'<tr data-k="{e(rec.id)}" data-t="{e(rec.type)}" data-p="{prov}" '
            f'data-i="{e(instruction_text(rec.instruction_trained))}">'
            f'<td data-v="{pos}">{pos}</td>'
            f'<th scope="row" class="fb-name" '
            f'title="{e(plural(len(m.rows), "row") + ": " + sources)}">'
            f"{_badges(m.rows)}{link}</th>"
            f"<td>{e(rec.type)}</td>"
            f'<td data-v="{"" if rec.parameters is None else rec.parameters}"'
            f"{_params_title(rec.parameters, rec.type)}>{e(params_text(rec.parameters))}</td>"
            f"<td>{e(instruction_text(rec.instruction_trained))}</td>"
            f'<td data-v="{m.benchmarks}">{m.benchmarks}</td>'
            + "".join(_cell_html(c, cell) for c, cell in zip(overview.columns, m.cells))
            + "</tr>\n")
    return Markup("".join(out))


def verified_columns(overview: Overview) -> list[int]:
    """The home columns the verified table shows: those where a verified submission has a
    figure, or figures for some of the benchmark's tasks (a column of dashes only says
    that no submission covers the benchmark yet, which the text above the table says)."""
    return [i for i in range(len(overview.columns))
            if any(cells[i].value is not None or cells[i].covered
                   for _, _, cells in overview.verified)]


def verified_rows_html(overview: Overview, submissions_prefix: str,
                       shown: list[int]) -> Markup:
    """The verified table's rows: a submission by the name it gives its model (its page),
    the model record it is a submission of when that name differs, and its figures in
    the ``shown`` home columns. The # cell is empty: the rows are in alphabetical order,
    which ranks nothing; sorting a column numbers them (assets/leaderboard.js)."""
    e = escape
    out: list[str] = []
    for row, rec, cells in overview.verified:
        sub = row.submission
        model = row.system.model
        name = e(model.name)
        link = (f'<a class="fb-n" dir="auto" href="{e(submissions_prefix + sub.slug)}.html">'
                f'{name}</a>' if sub is not None else f'<span class="fb-n" dir="auto">{name}</span>')
        of = (f' <small class="fb-of">of <bdi>{e(rec.name)}</bdi></small>'
              if name_key(model.name) != name_key(rec.name) else "")
        slug = f' data-s="{e(sub.slug)}"' if sub is not None else ""
        out.append(
            # data-s: the explorer's cell links (assets/explorer-links.js).
            f'<tr data-k="{e(row.key)}"{slug} data-t="{e(rec.type)}" data-p="verified" '
            f'data-i="{e(instruction_text(rec.instruction_trained))}">'
            "<td></td>"
            f'<th scope="row" class="fb-name"><abbr class="fb-prov fb-prov-v">V</abbr> '
            f"{link}{of}</th>"
            f"<td>{e(rec.type)}</td>"
            f'<td data-v="{"" if model.parameters is None else model.parameters}"'
            f"{_params_title(model.parameters, model.type)}>"
            f"{e(params_text(model.parameters))}</td>"
            + "".join(_cell_html(overview.columns[i], cells[i]) for i in shown)
            + "</tr>\n")
    return Markup("".join(out))


def _home_cells(overview: Overview) -> Iterable[tuple[OverviewColumn, OverviewCell]]:
    """Every cell of both home tables, with its column."""
    for m in overview.models:
        yield from zip(overview.columns, m.cells)
    for _, _, cells in overview.verified:
        yield from zip(overview.columns, cells)


def overview_context(board: Board, page: str, submissions_prefix: str) -> dict:
    """What home.md.j2 needs: both tables' rows, the columns and counts that match them."""
    overview = build_overview(board)
    listed = overview.listed_rows
    columns = [{"id": c.home.id, "label": c.home.label,
                "href": dict((h.id, page) for h, page in home_columns()).get(c.home.id, ""),
                "help": f"{c.table.view.title}: {c.column.help or c.column.label} "
                        f"({c.column.convention_text})",
                "low": not c.column.higher_is_better,
                # a sort by it ranks no reported figure against a verified one
                "unranked": not c.column.reported_comparable,
                # the explorer's hook: what a verified cell's link lists
                "tasks": c.column.tasks, "metric": c.column.metric}
               for c in overview.columns]
    shown = verified_columns(overview)
    return {
        "columns": columns,
        "verified_columns": [columns[i] for i in shown],
        "uncovered": [columns[i]["label"] for i in range(len(columns)) if i not in shown],
        "model_rows": model_rows_html(overview, submissions_prefix),
        "verified_rows": verified_rows_html(overview, submissions_prefix, shown),
        "counts": {
            "models": len(overview.models),
            "models_verified": sum(1 for m in overview.models if m.verified),
            "verified": len(overview.verified),
            "listed_verified": sum(1 for r in listed if r.verified),
            "listed_reported": sum(1 for r in listed if not r.verified),
            "unlisted": len(overview.unlisted),
            "rows": len(board.rows),
            # home cells with figures for some of their column's tasks only (marked
            # "2/3"): the legend explains the mark where a cell shows it
            "partial": sum(1 for m in overview.models for cell in m.cells if _partial(cell))
            + sum(1 for _, _, cells in overview.verified for cell in cells if _partial(cell)),
            # home cells scored on another data revision than the pin (marked)
            "off_pin": sum(1 for m in overview.models for i, cell in enumerate(m.cells)
                           if _off_pin(overview.columns[i], cell))
            + sum(1 for _, _, cells in overview.verified for i, cell in enumerate(cells)
                  if _off_pin(overview.columns[i], cell)),
        },
        # what each mark a cell shows means, in the words of the notes under its
        # benchmark's table (figure_marks.mark_notes), each once
        "mark_notes": mark_notes(m for c, cell in _home_cells(overview)
                                 for m in _marks(c, cell)),
        # a tested cell's details mark its interval where it disagrees with its tier, as
        # the benchmark table's "vs best verified" column does, and the note says why
        "interval_note": INTERVAL_MARK_NOTE if any(
            cell.tier is not None and interval_mark(cell.tier)
            for _, cell in _home_cells(overview)) else "",
        "overview": overview,
    }
