"""What a table shows: each model line as a display row, each cell's text, tier and
details, the no-skill reference row, the rows' HTML, a table's caption, and a submission
page's compact score tables; the marks a figure carries are decided in
:mod:`leaderboard.publish.site.figure_marks`.

Every value reaches HTML through :func:`markupsafe.escape` (in :func:`rows_html`) or
through jinja2's autoescape; nothing here returns markup built from unescaped text.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from markupsafe import Markup, escape

from leaderboard.benchmarks.views import Column, View
from leaderboard.core.display import effect_size_text, p_text, score_text
from leaderboard.core.report import plural
from leaderboard.publish.standings import (
    TIER_LEADER,
    TIER_REPORTED,
    TIER_TIED,
    Row,
    TierInfo,
    ViewTable,
)
from leaderboard.publish.site.figure_marks import (ONE_CLASS_MARK, TIER_CSS, Mark, figure_css,
                                                   figure_marks, one_class, one_class_note,
                                                   one_class_reason)
from leaderboard.publish.site.format import (instruction_text, params_reason, params_text,
                                             relative, safe_url, sort_value)
from leaderboard.publish.standings import ModelLine
from leaderboard.publish.standings.references import REFERENCE_KEY, reference_name
from leaderboard.publish.standings.tables import off_pin_of
from leaderboard.publish.standings.verdicts import (INTERVAL_MARK, INTERVAL_NOTE, SHIFT_TEST,
                                                    TIER_TEXT,
                                                    ViewTest, interval_disagrees,
                                                    tied_by_its_shift)
from leaderboard.publish.stats.tiers import ALPHA
from leaderboard.publish.site.data_revisions import (off_pin_short, off_pin_title,
                                                     off_pin_unranked)
from leaderboard.publish.site.printed_figures import PRINTED_MARK, shown_figure
from leaderboard.publish.training import Overlap, view_overlap


@dataclass
class CellDisplay:
    text: str
    value: str
    css: str = ""
    title: str = ""
    # Submission pages: what assets/explorer-links.js needs to link the figure to the
    # queries behind it (the metric; the tasks and group where they differ from the
    # row's). The link itself is made in the browser, as on the leaderboard tables: one
    # address per cell written into 1,000 pages would be a third of the site.
    metric: str = ""
    tasks: str = ""
    group: str = ""
    # The figure was scored on another data revision than the pin (data-o): a sort by its
    # column puts it after the figures on the pinned data, and numbers it not.
    off_pin: bool = False
    # The marks after its figure (:func:`figure_marks`), which the notes under the table
    # explain (:func:`mark_notes`).
    marks: tuple[Mark, ...] = ()


@dataclass
class RowDisplay:
    key: str
    name: str
    href: str | None
    provenance: str
    source: str
    source_url: str | None
    model_type: str
    params: str
    params_value: str
    params_title: str
    instruction: str
    rank: int | None
    cells: list[CellDisplay] = field(default_factory=list)
    gap: CellDisplay | None = None   # the tiered cell's distance from the best verified
    reference: bool = False          # the view's no-skill reference row
    # The verified submission every figure of the row comes from (data-s on the row), for
    # links to per-query detail: its table's view id is the enclosing .fb-view's data-view
    # and a column's tasks and metric its header's.
    submission: str = ""
    # Its simultaneous 95% rank interval among the tested rows ("1–3").
    rank_span: str = ""
    # The model's other rows in the table, each named with its figure, for the row's
    # details (a "+N" mark after the name); empty when the table has no other row of it.
    others: str = ""
    n_others: int = 0
    # Why a row shown with a figure in the sort column has no rank (its # cell's details),
    # and its place in the default order, which sorting by # restores.
    unranked: str = ""
    position: int | None = None


def source_text(row: Row, full: bool = True) -> str:
    """Where a row's figures come from: the full record for downloads and submission
    pages, the short form (citation, table, mteb version) for the hover of every row."""
    src = row.system.source
    if row.verified:
        if full:
            return "verified: scored here from the submitted run files"
        sub = row.submission
        return f"verified: submission {sub.id}" if sub is not None else "verified: scored here"
    parts = [src.citation or src.kind]
    if src.table and src.table not in parts[0]:
        parts.append(src.table)
    if src.mteb_version:
        parts.append(f"mteb {src.mteb_version}")
    if full and src.path:
        parts.append(src.path + (f"@{src.revision}" if src.revision else ""))
    if full and src.url:
        parts.append(src.url)
    if full and src.note:
        parts.append(src.note)
    return "reported: " + "; ".join(parts)


def gap_text(info: TierInfo) -> str:
    """A tested row's difference from the best verified row, x100, with the 95% interval of
    its test's own statistic (for Wilcoxon's test, the Hodges-Lehmann shift's)."""
    if info.effect is None:
        return ""
    text = score_text(info.effect, signed=True)
    interval = ""
    if info.ci_low is not None and info.ci_high is not None:
        interval = f" [{score_text(info.ci_low, True)}, {score_text(info.ci_high, True)}]"
    if info.test == "wilcoxon" and info.estimate is not None:
        return f"{text}; shift {score_text(info.estimate, True)}{interval}"
    return text + interval


# The note under a table where a tested row's 95% interval is marked as saying otherwise
# than its tier (verdicts.interval_disagrees).
INTERVAL_MARK_NOTE = (f"{INTERVAL_MARK} the interval and the tier disagree: {INTERVAL_NOTE}. "
                      "A row's interval can leave 0 out where its adjusted p ties it (at "
                      f"least {ALPHA}), or hold 0 where that p is below {ALPHA}; or, for "
                      "Wilcoxon's test (p-MRR), leave 0 out on the row's own side, its test "
                      "rejecting in its favour (ahead on most units) while its mean is behind "
                      "the best verified's, which leaves it tied. leaderboard compare calls "
                      "such a pair inconclusive.")


def interval_mark(info: TierInfo) -> str:
    """Why a tested row's interval is marked (:data:`INTERVAL_MARK`), for its details; ""
    when its interval and its tier agree."""
    if not interval_disagrees(info.tier, info.p_adjusted, info.ci_low, info.ci_high,
                              effect=info.effect):
        return ""
    p = p_text(info.p_adjusted, info.p_floor, level=ALPHA, bound=info.p_adjusted_bound)
    if tied_by_its_shift(info.tier, info.p_adjusted, info.effect):
        return (f"the Hodges-Lehmann shift's 95% interval, this comparison's alone, leaves 0 "
                f"out on this row's side, and the Holm-adjusted p-value {p} is below "
                f"{ALPHA}: Wilcoxon's test finds this row ahead on most units, while its mean "
                "is behind the best verified's (far behind on a few); a row is below only "
                "when its test's statistic is behind too, so it is tied; leaderboard compare "
                "calls such a pair inconclusive")
    holds = "leaves 0 out" if info.tier == TIER_TIED else "holds 0"
    side = "at least" if info.tier == TIER_TIED else "below"
    return (f"the 95% interval, this comparison's alone (not adjusted for the table's other "
            f"comparisons), {holds}, while the Holm-adjusted p-value "
            f"{p} is {side} {ALPHA}: the "
            f"tier follows the adjusted p-value; leaderboard compare calls such a pair "
            "inconclusive")


def rank_span(info: TierInfo | None) -> str:
    """A tested row's 95% rank interval as printed beside it: "2", "1–3"."""
    if info is None or info.rank_best is None or info.rank_worst is None:
        return ""
    if info.rank_best == info.rank_worst:
        return str(info.rank_best)
    return f"{info.rank_best}\u2013{info.rank_worst}"


#: What a leaderboard row prints beside its tiered figure: the gap in its "vs best
#: verified" column and the rank interval beside its name.
ROW_SHOWS = frozenset({"gap", "rank"})
#: What a submission page's score row prints: its tier, gap and adjusted p in columns.
SCORE_ROW_SHOWS = frozenset({"tier", "gap", "p"})


def tier_title(info: TierInfo | None, *, shown: frozenset[str] = frozenset()) -> str:
    """A tested figure's tier and what backs it, for its details, without the parts the
    surface already prints (``shown``: "tier", "p", "gap", "rank"): a thousand-row table
    repeats every title a thousand times."""
    if info is None:
        return ""
    if info.tier == TIER_REPORTED:
        return "reported figure: not tested (no per-query scores)"
    parts = [] if "tier" in shown else [TIER_TEXT.get(info.tier, info.tier)]
    if info.p_adjusted is not None and "p" not in shown:
        parts.append("adjusted p " + p_text(info.p_adjusted, info.p_floor, level=ALPHA,
                                            bound=info.p_adjusted_bound))
    if info.effect is not None and info.tier != TIER_LEADER:
        if "gap" not in shown:
            # marked, with why, as a table's "vs best verified" column marks it
            why = interval_mark(info)
            parts.append(f"vs best verified {gap_text(info)}"
                         + (f"{INTERVAL_MARK}: {why}" if why else ""))
        if info.effect_size is not None:
            parts.append(f"effect size {effect_size_text(info.effect_size)} sd")
    if rank_span(info) and "rank" not in shown:
        parts.append(f"rank {rank_span(info)} (95%)")
    return "; ".join(parts)


def test_text(test: ViewTest | None, column: Column) -> str:
    """What a table's test resamples and what it can tell apart, in one sentence."""
    if test is None:
        return ""
    text = (f"Tests and intervals take one value per {test.unit}, {test.count}: "
            f"{test.unit_holds}. Differences within {score_text(test.threshold)} are ties "
            "(reruns on other hardware move figures that much)")
    if test.mde is not None:
        text += (f"; a paired test of the mean at this table's Holm level detects a true "
                 f"mean difference in {column.label} of {score_text(test.mde)} with 80% "
                 "power (a normal approximation: a guide to this table's test"
                 + (", Wilcoxon's, which tests the signed ranks, not the mean)"
                    if test.test == SHIFT_TEST else ")"))
    return text + (f". {INTERVAL_NOTE[0].upper()}{INTERVAL_NOTE[1:]}. Beside each tested "
                   "name: its rank among the tested rows, 95% for all at once.")


def basis_text(basis: str | None, n: int, column: Column) -> str:
    """How a multi-task cell was obtained, in words."""
    if basis == "published":
        return "the source's own published average"
    if basis == "mean of reported tasks":
        return f"mean over the {n} of {len(column.tasks)} tasks this row reports"
    if basis == "mean of tasks":
        return column.convention_text
    return ""


def line_href(line: ModelLine, submissions: str) -> str | None:
    """Where a model's name links: its verified submission's page, else the model card
    its record names, else the paper or results page of the row its figures come from."""
    sub_row = line.submission_row
    if sub_row is not None and sub_row.submission is not None:
        return f"{submissions}{sub_row.submission.slug}.html"
    for link in line.record.links:
        if safe_url(link):
            return safe_url(link)
    for cell in line.cells:
        if cell.row is not None and safe_url(cell.row.system.source.url):
            return safe_url(cell.row.system.source.url)
    return None


def source_name(row: Row) -> str:
    """A row named in a few words: its submission (verified), else its source."""
    return source_text(row, full=False).split(": ", 1)[-1]


def others_text(table: ViewTable, line: ModelLine, index: int) -> str:
    """The row's details: the model's other rows in the table, each named, with its figure
    in the table's sort column (the cells' details give the others)."""
    if not line.others:
        return ""
    column = table.view.columns[index]
    parts = []
    for other in line.others[:6]:
        value = next((v for r, v in line.cells[index].others if r is other), None)
        figure = (f": {column.label} {shown_figure(table, other, index, value)}"
                  if value is not None else "")
        parts.append(f"{source_name(other)}{figure}")
    if len(line.others) > 6:
        parts.append(f"and {len(line.others) - 6} more")
    return (f"Every figure of this row is from {source_name(line.source)}. "
            f"Other sources of this model in this table, not mixed in: " + "; ".join(parts))


def cell_display(table: ViewTable, line: ModelLine, i: int,
                 overlap: Overlap | None = None) -> CellDisplay:
    """One model's cell: its figure (from the line's one source), its tier, and in its
    details (hover, or a tap on a phone) whatever the row does not say already: how a
    published or partial average was obtained, its test, what the model's declared
    training data shares with the benchmark, and what the model's other rows give for the
    same cell, each named. Pages hold thousands of cells, so a cell with
    nothing to add has no details."""
    col = table.view.columns[i]
    cell = line.cells[i]
    if cell.value is None or cell.row is None:
        if not cell.others:
            return CellDisplay(text="–", value="")
        return CellDisplay(text="–", value="", title=(
            f"no figure from {source_name(line.source)}; "
            + _also(table, cell.others, i)))
    row = cell.row
    details = []
    marks = figure_marks(table, row, i, overlap)
    basis = table.bases.get(row.key, [None] * len(table.view.columns))[i]
    if basis in ("published", "mean of reported tasks") and not any(
            m.symbol == PRINTED_MARK for m in marks):  # the mark's details say it
        n = table.counts.get(row.key, [0] * len(table.view.columns))[i]
        details.append(basis_text(basis, n, col))
    details += [m.detail for m in marks]  # of this row's figure: before the others'
    tier = tier_title(cell.tier, shown=ROW_SHOWS)
    if tier and cell.tier is not None and cell.tier.tier != TIER_REPORTED:
        details.append(tier)
    if cell.others:
        details.insert(0, f"from {source_name(row)}")
        details.append(_also(table, cell.others, i))
    css = figure_css(cell.tier, row)
    text = shown_figure(table, row, i, cell.value) + "".join(m.symbol for m in marks)
    moved = off_pin_of(row, col)
    if moved:
        details.append(off_pin_title(moved))
    return CellDisplay(text=text, value=sort_value(cell.value), css=css,
                       title="; ".join(details), off_pin=bool(moved), marks=tuple(marks))


def _also(table: ViewTable, others: list[tuple[Row, float]], index: int) -> str:
    """What the model's other rows give for one cell, each named (not mixed into the row)."""
    parts = [f"{shown_figure(table, other, index, value)} from {source_name(other)}"
             for other, value in others[:6]]
    if len(others) > 6:
        parts.append(f"and {plural(len(others) - 6, 'more source')}")
    return "other sources, not in this row: " + "; ".join(parts)


def reported_unranked(column: Column) -> str:
    """Why a reported line has no rank in a table ordered by a column that ranks reported
    figures apart (:func:`leaderboard.publish.standings.lines.reported_apart`), for its #
    cell's details."""
    return (f"not ranked: a reported {column.label}, which this table does not rank against "
            "the verified figures (its source's convention is not the board's, as the note "
            "under the table says), so it is shown after them, ordered among the unranked "
            "rows by its own figure")


def off_pin_gap(moved: Mapping[str, str]) -> CellDisplay:
    """The "vs best verified" cell of a row scored on another data revision than the pin
    (``moved``: task -> recorded revision), which was tested against no row."""
    return CellDisplay(text=f"not tested: {off_pin_short(moved)}", value="",
                       css="fb-reported", title=off_pin_title(moved))


def display_rows(table: ViewTable, page: str) -> list[RowDisplay]:
    """One display row per model line (:attr:`ViewTable.lines`), in default order."""
    ranks = table.line_ranks()
    submissions = relative(page, "submissions/x.md")[: -len("x.html")]  # once per page
    tiered = table.view.tiered_column
    out = []
    sort_column = table.view.sort_column
    for position, line in enumerate(table.lines, 1):
        rec = line.record
        main = line.source
        overlap = view_overlap(rec, table.view)
        # Why a line with a figure in the sort column has no rank: scored off the pin
        # there, or a reported figure the column ranks apart.
        unranked = ""
        if ranks[line.key] is None and (moved := table.off_pin.get(main.key)):
            unranked = off_pin_unranked(moved)
        elif ranks[line.key] is None and line.apart:
            unranked = reported_unranked(table.view.columns[sort_column])
        cells = [cell_display(table, line, i, overlap)
                 for i in range(len(table.view.columns))]
        gap = None
        if tiered is not None and tiered in table.tiers:
            info = line.cells[tiered].tier
            tiered_row = line.cells[tiered].row
            tested_off_pin = (off_pin_of(tiered_row, table.view.columns[tiered])
                              if tiered_row is not None else None)
            if tested_off_pin:
                gap = off_pin_gap(tested_off_pin)
            elif info is None or line.cells[tiered].value is None:
                gap = CellDisplay(text="–", value="")
            elif info.tier == TIER_REPORTED:
                gap = CellDisplay(text="not tested", value="", css="fb-reported",
                                  title="a reported figure: no per-query scores to test")
            elif info.tier == TIER_LEADER:
                gap = CellDisplay(text="best verified", value="0", css="fb-leader")
            else:
                # the interval is the text; the tier and p-value are the tiered cell's,
                # and where the two disagree the interval is marked and says why
                why = interval_mark(info)
                gap = CellDisplay(text=gap_text(info) + (INTERVAL_MARK if why else ""),
                                  value=sort_value(info.effect),
                                  css=TIER_CSS.get(info.tier, ""), title=why)
        tiered_info = line.cells[tiered].tier if tiered is not None else None
        span = rank_span(tiered_info)
        out.append(RowDisplay(
            submission=main.submission.slug if main.verified and main.submission else "",
            others=others_text(table, line, sort_column), n_others=len(line.others),
            key=line.key, name=line.name, href=line_href(line, submissions),
            provenance="verified" if line.verified else "reported",
            source=source_text(main, full=False),
            source_url=None if main.verified else safe_url(main.system.source.url),
            model_type=rec.type, params=params_text(rec.parameters),
            params_value="" if rec.parameters is None else str(rec.parameters),
            params_title=params_reason(rec.parameters, rec.type),
            instruction=instruction_text(rec.instruction_trained),
            rank=ranks[line.key], cells=cells, gap=gap, rank_span=span,
            unranked=unranked, position=position if unranked else None))
    return out


def reference_row(table: ViewTable) -> RowDisplay | None:
    """The view's no-skill reference as a row (:mod:`leaderboard.publish.standings.references`),
    or None when no column has one."""
    if not any(v is not None for v in table.references):
        return None
    view = table.view
    cells = [CellDisplay(text="–", value="") if v is None else
             CellDisplay(text=score_text(v, c.signed), value=sort_value(v), css="fb-ref",
                         title="no-skill reference: " + REFERENCE_TITLES[c.no_skill or ""])
             for c, v in zip(view.columns, table.references)]
    gap = (CellDisplay(text="reference", value="", css="fb-ref")
           if view.tiered_column is not None and view.tiered_column in table.tiers else None)
    return RowDisplay(key=REFERENCE_KEY, name=reference_name(view),
                      href=None, provenance="reference", source="", source_url=None,
                      model_type="", params="", params_value="", params_title="",
                      instruction="", rank=None, cells=cells, gap=gap, reference=True)


REFERENCE_TITLES = {
    "zero": "an altered run that ranks as the original one scores 0; not a floor: an "
            "altered run that demotes every document ignores the instruction and scores "
            "far above 0 on p-MRR, its nDCG about 0",
    "chance": "a constant probability scores 50",
    "positive rate": "a constant probability scores the share of compatible pairs",
    "majority": "answering 'incompatible' to every pair scores the share of incompatible "
                "pairs",
    "constant calibrated": "a constant probability equal to the share of compatible pairs "
                           "is perfectly calibrated",
    "": "",
}


def rows_html(rows: list[RowDisplay], tiered: int | None = None) -> Markup:
    """The ``<tbody>`` rows of a view, built directly: with thousands of rows per page this
    is the build's hottest loop, several times faster than a template loop. Every value
    goes through :func:`markupsafe.escape`. ``tiered``: the column after which the
    distance from the best verified row is shown."""
    e = escape
    out: list[str] = []
    add = out.append
    for r in rows:
        rank = "" if r.rank is None else str(r.rank)
        # an unranked row's # cell says why, and keeps its place for a sort by #
        unranked = (f' data-o="{r.position}" title="{e(r.unranked)}"' if r.unranked else "")
        ref = ' class="fb-ref"' if r.reference else ""
        sub = f' data-s="{e(r.submission)}"' if r.submission else ""
        add(f'<tr{ref}{sub} data-k="{e(r.key)}" data-t="{e(r.model_type)}" data-p="{e(r.provenance)}" '
            f'data-i="{e(r.instruction)}"><td data-v="{rank}"{unranked}>{rank or "–"}</td>'
            '<th scope="row" class="fb-name">')
        # Badge first: it never wraps onto a line of its own, and names line up. Verified
        # badges need no per-row hover (the legend says what V means): bytes add up over
        # thousands of rows.
        p = r.provenance[:1]
        if r.reference:
            pass
        elif p == "v":
            add('<abbr class="fb-prov fb-prov-v">V</abbr> ')
        elif r.source_url:
            add(f'<a class="fb-prov fb-prov-{p}" href="{e(r.source_url)}" rel="nofollow noopener" '
                f'title="{e(r.source)}">{p.upper()}</a> ')
        else:
            add(f'<abbr class="fb-prov fb-prov-{p}" title="{e(r.source)}">{p.upper()}</abbr> ')
        name = e(r.name)
        # the rank interval is drawn from data-r by the style sheet, so the cell's text
        # stays the model's name (filters, sorting and copying read it)
        # Its words ("rank 1–3 among the tested rows ...") come from leaderboard.js on
        # hover: written into every row they were 7 MB of a 1,000-submission site.
        rank_span_html = (f' <span class="fb-ri" data-r="{e(r.rank_span)}"></span>'
                          if r.rank_span else "")
        if r.href:
            external = "" if r.href.endswith(".html") and "://" not in r.href else \
                ' rel="nofollow noopener"'
            add(f'<a class="fb-n" dir="auto" href="{e(r.href)}"{external}>{name}</a>'
                f'{rank_span_html}')
        else:
            add(f'<span class="fb-n" dir="auto">{name}</span>{rank_span_html}')
        if r.others:
            # The model's other rows, named in the details of a mark a tap opens.
            add(f' <abbr class="fb-also" title="{e(r.others)}">+{r.n_others}</abbr>')
        add(f"</th><td>{e(r.model_type)}</td>")
        for i, c in enumerate(r.cells):
            css = f' class="{c.css}"' if c.css else ""
            title = f' title="{e(c.title)}"' if c.title else ""
            off_pin = ' data-o="1"' if c.off_pin else ""
            add(f'<td data-v="{c.value}"{off_pin}{css}{title}>{e(c.text)}</td>')
            if i == tiered and r.gap is not None:
                g = r.gap
                css = f' class="fb-gap {g.css}"' if g.css else ' class="fb-gap"'
                title = f' title="{e(g.title)}"' if g.title else ""
                add(f'<td data-v="{g.value}"{css}{title}>{e(g.text)}</td>')
        add("</tr>\n")
    return Markup("".join(out))


def explore_target(column: Column) -> tuple[str, str, str]:
    """What the query explorer needs to show the queries behind a column's figure: its
    tasks (space-separated, as a leaderboard header's ``data-tasks``), its metric and its
    group; assets/explorer-links.js joins them with the row's submission into the link."""
    return (" ".join(column.tasks), (column.task_metrics or (column.metric,))[0],
            column.group or "")


def _shared_target(cells: Iterable[CellDisplay]) -> tuple[str, str]:
    """The tasks and group most of a row's linked cells share: written once on the row,
    and on a cell only where it differs."""
    counts = Counter((c.tasks, c.group) for c in cells if c.metric)
    return counts.most_common(1)[0][0] if counts else ("", "")


def _compact_columns(view: View) -> list[int]:
    """Column indices of a view shown on submission pages: every metric, without an
    average view's per-language or per-dataset breakdown (``lang:metric`` ids), which the
    per-task rows of the same table show already."""
    own = [i for i, c in enumerate(view.columns) if ":" not in c.id]
    return own or list(range(len(view.columns)))


def submission_scores(row: Row, page_path: str, views_by_page: list) -> list[dict]:
    """One compact table per benchmark section: a row per table the submission appears
    in (average first, then each collection, language or dataset), a column per metric,
    one value per cell, then the tier and adjusted p-value of the table's tiered column.
    A table where the submission has none of the compact columns (an average it lacks a
    task of) is left out rather than shown as a row of dashes."""
    out = []
    for page, sections in views_by_page:
        for section, tables in sections:
            labels: list[str] = []
            entries = []
            marked: list[CellDisplay] = []  # ECEs of one answer for every pair
            for t in tables:
                if all(c.heat for c in t.view.columns):
                    continue  # a grid: its cells are the rows of the tables below it
                values = t.values.get(row.key)
                compact = _compact_columns(t.view)
                if values is None or all(values[i] is None for i in compact):
                    continue
                tier_col = t.view.tiered_column
                info = t.tiers.get(tier_col, {}).get(row.key) if tier_col is not None else None
                cells: dict[str, CellDisplay] = {}
                for i in compact:
                    c, v = t.view.columns[i], values[i]
                    if c.label not in labels:
                        labels.append(c.label)
                    css = TIER_CSS.get(info.tier, "") if info and i == tier_col else ""
                    text = score_text(v, c.signed)
                    mark = v is not None and one_class(row, c)
                    if mark:
                        text += ONE_CLASS_MARK
                    tasks, metric, group = (explore_target(c) if v is not None
                                            and row.submission is not None else ("", "", ""))
                    cells[c.label] = CellDisplay(text=text, value=sort_value(v), css=css,
                                                 title=c.help if v is not None else "no score",
                                                 metric=metric, tasks=tasks, group=group)
                    if mark:
                        marked.append(cells[c.label])
                # scored off the pin: tested against none
                moved = off_pin_of(row, t.view.columns[tier_col]) if tier_col is not None else {}
                if info is not None:
                    tier = TIER_TEXT.get(info.tier, info.tier)
                elif moved:
                    tier = f"not tested: {off_pin_short(moved)}"
                else:
                    tier = "not tested" if tier_col is None else "–"
                p_adj = info.p_adjusted if info else None
                gap_why = interval_mark(info) if info is not None else ""
                row_tasks, row_group = _shared_target(cells.values())
                for cell in cells.values():
                    if (cell.tasks, cell.group) == (row_tasks, row_group):
                        cell.tasks = cell.group = ""
                entries.append({
                    "tasks": row_tasks, "group": row_group,
                    "href": f"{relative(page_path, page.path)}#{t.view.anchor}",
                    "view": t.view.id, "label": t.view.label, "title": t.view.title,
                    "cells": cells, "tier": tier, "tier_title": off_pin_title(moved) if moved
                    else tier_title(info, shown=SCORE_ROW_SHOWS),
                    "gap": gap_text(info) + (INTERVAL_MARK if gap_why else "")
                    if info is not None and info.tier != TIER_LEADER else "",
                    "gap_title": gap_why, "p_value": sort_value(p_adj),
                    "p_text": p_text(p_adj, info.p_floor if info else None, level=ALPHA,
                                     bound=info.p_adjusted_bound if info else False)})
            if not entries:
                continue
            empty = CellDisplay(text="–", value="", title="not in this table")
            for e in entries:
                e["cells"] = [e["cells"].get(label, empty) for label in labels]
            # A column's help once, on its header (the one most of its cells share); a
            # cell keeps its own only where it differs (an average's "Score" against a
            # collection's MAP@1000).
            column_help = []
            for k in range(len(labels)):
                helps = Counter(e["cells"][k].title for e in entries
                                if e["cells"][k].metric and e["cells"][k].title)
                common = helps.most_common(1)[0][0] if helps else ""
                column_help.append(common)
                for e in entries:
                    cell = e["cells"][k]
                    if common and cell.metric and cell.title == common:
                        cell.title = ""
            # A marked cell says what its mark means, as on the leaderboard, and so does
            # the note under the table (the mark alone said nothing here).
            for cell in marked:
                cell.title = "; ".join(filter(None, (cell.title, one_class_reason())))
            out.append({"title": section.title, "id": section.id, "columns": labels,
                        "column_help": column_help,
                        "note": one_class_note() if marked else "",
                        "interval_note": INTERVAL_MARK_NOTE
                        if any(e["gap_title"] for e in entries) else "",
                        "href": f"{relative(page_path, page.path)}#{section.id}",
                        "entries": entries})
    return out


def empty_reason(view: View) -> str:
    """Why a view has no rows yet, in words a visitor can act on."""
    if len(view.tasks) > 1 and any(c.average == "all" for c in view.columns):
        return (f"No system has scores for all {len(view.tasks)} tasks this table averages "
                "yet (a system needs every one to get a row); the other tabs show each "
                "task on its own.")
    if len(view.tasks) == 1:
        return f"No submission covers {view.tasks[0]} yet."
    return "No results yet for this table."


def caption(view: View) -> str:
    """What the numbers of a view are, in one sentence (every column declares its
    convention; the per-task breakdown columns of an average view are single tasks)."""
    averaged = [c for c in view.columns if c.convention != "task"]
    if not averaged:
        return ""
    kinds: dict[str, list[str]] = {}
    for column in averaged:
        kinds.setdefault(column.convention_text, []).append(column.label)
    if len(kinds) == 1 and len(averaged) == len(view.columns):
        text = f"Every column is {next(iter(kinds))}."
    else:
        # Two rules in one view (PI-Indic's T2: per language pair and per target language)
        # were joined with "; " without saying which columns follow which.
        text = "; ".join(f"{', '.join(labels)}: {kind}" for kind, labels in kinds.items())
        text += ("." if len(averaged) == len(view.columns)
                 else "; the other columns are one task each.")
    if any(c.prefer for c in averaged):
        text += " Where a reported row's source prints its own average, the cell shows it."
    return text


