"""The home page's overview: one row per model, one primary score per benchmark.

Rows of the leaderboard are (model, source) pairs: the same model appears once per paper,
MTEB result folder and verified submission. The overview groups them by canonical model
(:func:`leaderboard.models.resolve_model`) and shows, per benchmark, the primary score of
its average view (the home columns of :mod:`leaderboard.site.layout`) with its coverage.

When several rows of one model have a figure for the same benchmark, the cell shows one,
picked in this order (and its hover names the others):

1. a verified row (the best of them, as the benchmark's tiered column is tested);
2. the benchmark's own paper;
3. another paper;
4. MTEB's results repository, newest mteb version first.

Each cell keeps its own provenance: V/R, the source and its tier come from the row the
figure is taken from, never from another row of the same model.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from markupsafe import Markup, escape

from leaderboard.benchmarks import BENCHMARKS
from leaderboard.models import ModelRecord, resolve_model
from leaderboard.site.board import (
    TIER_LEADER,
    TIER_REPORTED,
    TIER_TIED,
    Board,
    Row,
    TierInfo,
    ViewTable,
)
from leaderboard.site.format import instruction_text, params_text, score_text, sort_value
from leaderboard.site.layout import HOME_COLUMNS, HOME_LINKS, Column, HomeColumn
# The same hover texts as every other table (render imports this module lazily).
from leaderboard.site.render import source_text, tier_title

_TIER_CSS = {TIER_LEADER: "fb-leader", TIER_TIED: "fb-tied", TIER_REPORTED: "fb-reported"}
# Which paper is a benchmark's own, by the view id's first part (as each declares it).
_OWN_PAPER = {view: paper for b in BENCHMARKS for view, paper in b.own_paper.items()}


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
    for home in HOME_COLUMNS:
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


def _version_key(version: str | None) -> tuple[int, ...]:
    parts = (version or "").split(".")
    return tuple(-int(p) if p.isdigit() else 0 for p in parts)


def _preference(col: OverviewColumn, row: Row, value: float) -> tuple:
    """Sort key of the rows competing for one cell: smallest first wins."""
    if row.verified:
        best = -value if col.column.higher_is_better else value
        return (0, best, row.key)
    benchmark = col.home.view_id.split("/", 1)[0]
    own = _OWN_PAPER.get(benchmark, "")
    src = row.system.source
    if src.kind == "paper":
        rank = 1 if own and row.system.system_id.startswith(own) else 2
        return (rank, 0.0, row.key)
    return (3, 0.0, *_version_key(src.mteb_version), row.key)


def _cell(col: OverviewColumn, rows: list[Row]) -> OverviewCell:
    candidates = []
    covered = 0
    for row in rows:
        covered = max(covered, _covered(row, col.column))
        values = col.table.values.get(row.key)
        value = values[col.index] if values is not None else None
        if value is not None:
            candidates.append((_preference(col, row, value), row, value))
    if not candidates:
        return OverviewCell(None, None, covered, col.n_tasks)
    candidates.sort(key=lambda c: c[0])
    _, row, value = candidates[0]
    tier = col.table.tiers.get(col.index, {}).get(row.key)
    return OverviewCell(value, row, covered, col.n_tasks, tier,
                        [r for _, r, _ in candidates[1:]])


def build_overview(board: Board) -> Overview:
    columns = overview_columns(board)
    home_tasks = {t for c in columns for t in (*c.column.tasks, *c.column.prefer)}
    by_model: dict[str, tuple[ModelRecord, list[Row]]] = {}
    for row in board.rows:
        rec = resolve_model(row.system)
        by_model.setdefault(rec.id, (rec, []))[1].append(row)
    models: list[OverviewModel] = []
    unlisted: list[Row] = []
    for rec, rows in by_model.values():
        if not any(t in home_tasks for r in rows for t in r.system.tasks):
            unlisted.extend(rows)
            continue
        models.append(OverviewModel(rec, rows, [_cell(c, rows) for c in columns]))

    def order(m: OverviewModel) -> tuple:
        # Verified models first, then the most benchmarks covered; within those, best
        # first on the first benchmark the model has a score for.
        first = next((i for i, c in enumerate(m.cells) if c.value is not None), len(columns))
        value = m.cells[first].value if first < len(columns) else None
        sign = -1.0 if first < len(columns) and columns[first].column.higher_is_better else 1.0
        return (not m.verified, -m.benchmarks, first,
                sign * value if value is not None else 0.0, m.record.name.lower(), m.record.id)

    models.sort(key=order)
    verified = []
    for row in board.rows:
        if row.verified:
            verified.append((row, resolve_model(row.system), [_cell(c, [row]) for c in columns]))
    return Overview(columns=columns, models=models, verified=verified, unlisted=unlisted)


# --------------------------------------------------------------------------- display

def cell_title(col: OverviewColumn, cell: OverviewCell) -> str:
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
    if cell.others:
        parts.append(f"also reported by {len(cell.others)} other row(s) of this model")
    return "; ".join(parts)


def _cell_html(col: OverviewColumn, cell: OverviewCell) -> str:
    e = escape
    title = cell_title(col, cell)
    title_attr = f' title="{e(title)}"' if title else ""
    if cell.value is None:
        text = f"<small>{cell.covered}/{cell.total}</small>" if cell.covered else "–"
        return f'<td data-v=""{title_attr}>{text}</td>'
    css = _TIER_CSS.get(cell.tier.tier, "") if cell.tier else ""
    css_attr = f' class="{css}"' if css else ""
    prov = "v" if cell.row is not None and cell.row.verified else "r"
    partial = (f" <small>{cell.covered}/{cell.total}</small>"
               if cell.covered < cell.total else "")
    return (f'<td data-v="{sort_value(cell.value)}" data-cp="{prov}"{css_attr}{title_attr}>'
            f"{e(score_text(cell.value, col.column.signed))}{partial}</td>")


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
        link = (f'<a class="fb-n" href="{e(submissions_prefix + sub.slug)}.html">{name}</a>'
                if sub is not None else f'<span class="fb-n">{name}</span>')
        sources = "; ".join(sorted({r.system.system_id for r in m.rows}))
        out.append(
            f'<tr data-k="{e(rec.id)}" data-t="{e(rec.type)}" data-p="{prov}" '
            f'data-i="{e(instruction_text(rec.instruction_trained))}">'
            f'<td data-v="{pos}">{pos}</td>'
            f'<td class="fb-name" title="{e(str(len(m.rows)) + " row(s): " + sources)}">'
            f"{_badges(m.rows)}{link}</td>"
            f"<td>{e(rec.type)}</td>"
            f'<td data-v="{"" if rec.parameters is None else rec.parameters}">'
            f"{e(params_text(rec.parameters))}</td>"
            f"<td>{e(instruction_text(rec.instruction_trained))}</td>"
            f'<td data-v="{m.benchmarks}">{m.benchmarks}</td>'
            + "".join(_cell_html(c, cell) for c, cell in zip(overview.columns, m.cells))
            + "</tr>\n")
    return Markup("".join(out))


def verified_rows_html(overview: Overview, submissions_prefix: str) -> Markup:
    e = escape
    out: list[str] = []
    for pos, (row, rec, cells) in enumerate(overview.verified, 1):
        sub = row.submission
        name = e(row.system.model.name)
        link = (f'<a class="fb-n" href="{e(submissions_prefix + sub.slug)}.html">{name}</a>'
                if sub is not None else f'<span class="fb-n">{name}</span>')
        model = row.system.model
        slug = f' data-s="{e(sub.slug)}"' if sub is not None else ""
        out.append(
            # data-s: the explorer's cell links (assets/explorer-links.js).
            f'<tr data-k="{e(row.key)}"{slug} data-t="{e(rec.type)}" data-p="verified" '
            f'data-i="{e(instruction_text(rec.instruction_trained))}">'
            f'<td data-v="{pos}">{pos}</td>'
            f'<td class="fb-name"><abbr class="fb-prov fb-prov-v">V</abbr> {link}</td>'
            f"<td>{e(rec.name)}</td><td>{e(rec.type)}</td>"
            f'<td data-v="{"" if model.parameters is None else model.parameters}">'
            f"{e(params_text(model.parameters))}</td>"
            + "".join(_cell_html(c, cell) for c, cell in zip(overview.columns, cells))
            + "</tr>\n")
    return Markup("".join(out))


def overview_context(board: Board, page: str, submissions_prefix: str) -> dict:
    """What home.md.j2 needs: both tables' rows, the columns and counts that match them."""
    overview = build_overview(board)
    listed = overview.listed_rows
    return {
        "columns": [{"id": c.home.id, "label": c.home.label,
                     "href": HOME_LINKS.get(c.home.id, ""),
                     "help": f"{c.table.view.title}: {c.column.help or c.column.label} "
                             f"(mean over its {c.n_tasks} tasks)",
                     "low": not c.column.higher_is_better,
                     # the explorer's hook: what a verified cell's link lists
                     "tasks": c.column.tasks, "metric": c.column.metric}
                    for c in overview.columns],
        "model_rows": model_rows_html(overview, submissions_prefix),
        "verified_rows": verified_rows_html(overview, submissions_prefix),
        "counts": {
            "models": len(overview.models),
            "models_verified": sum(1 for m in overview.models if m.verified),
            "verified": len(overview.verified),
            "listed_verified": sum(1 for r in listed if r.verified),
            "listed_reported": sum(1 for r in listed if not r.verified),
            "unlisted": len(overview.unlisted),
            "rows": len(board.rows),
        },
        "overview": overview,
    }
