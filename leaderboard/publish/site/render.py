"""Rendering: a filled :class:`Board` -> a MkDocs docs tree (Markdown pages whose tables are
raw, escaped HTML), CSV/JSON downloads, copied submission files, and the MkDocs config.

Every string that comes from a results or metadata file reaches a page only through
jinja2 with autoescape on, inside raw HTML blocks that Markdown leaves alone, so a model
named ``<script>`` is text. Links from metadata become anchors only for http(s) URLs.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

import jinja2
import yaml
from markupsafe import Markup, escape

from leaderboard.benchmarks import site_pages
from leaderboard.benchmarks.views import Column, Page, Section, View
from leaderboard import __version__
from leaderboard.benchmarks import benchmark_of
from leaderboard.app.ci.comment import STATUS_LINE
from leaderboard.core.display import score_text
from leaderboard.core.fileio import size_text
from leaderboard.core.measures import MEASURES
from leaderboard.benchmarks.registry import all_tasks
from leaderboard.submission.results import ResultsFileError, read_results
from leaderboard.publish.site.board import (
    TIER_BELOW,
    TIER_LEADER,
    TIER_REPORTED,
    TIER_TIED,
    Board,
    Row,
    SubmissionInfo,
    TierInfo,
    ViewTable,
)
from leaderboard.publish.site.format import (
    data_value,
    instruction_text,
    params_reason,
    params_text,
    relative,
    safe_url,
    sort_value,
)
from leaderboard.publish.site.mkdocs_hooks import SEARCH_EXTRA, fragment_path
from leaderboard.store.files import StoreError
from leaderboard.submission.files import submission_files
from leaderboard.submission.folder import run_files
from leaderboard.publish.standings import ModelLine
from leaderboard.publish.standings.downloads import csv_text, view_document, view_records
from leaderboard.publish.standings.references import reference_name
from leaderboard.publish.standings.verdicts import ViewTest, p_text
from leaderboard.submission.layout import (
    MANIFEST_NAME,
    METADATA_NAME,
    PER_QUERY_NAME,
    RESULTS_NAME,
    RUNS_DIR,
)

PACKAGE_DIR = Path(__file__).parent
TEMPLATES_DIR = PACKAGE_DIR / "templates"
ASSETS_DIR = PACKAGE_DIR / "assets"
DOWNLOADS = "downloads"
# The repository the site is published from: set here once. Run files and results are
# linked there (at the commit the site was built from) instead of being copied into the
# site, and the "How to submit" page points contributors at it.
REPO_URL = "https://github.com/followboard/followboard"
# The branch linked when the build does not run inside a git checkout.
REPO_DEFAULT_BRANCH = "main"
MODEL_TYPES = ("sparse", "bi-encoder", "cross-encoder", "llm-reranker", "late-interaction",
               "other")


def nbhyphen(text: str) -> str:
    """Non-breaking hyphens, so a narrow header shows "p-MRR", never "p-" over "MRR"."""
    return text.replace("-", "\u2011")


def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES_DIR)),
        autoescape=True,            # every template: .md pages carry raw HTML too
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters.update(score=score_text, dv=data_value, params=params_text, nbhyphen=nbhyphen,
                       it=instruction_text, safe_url=safe_url, filesize=size_text,
                       params_reason=params_reason)
    env.globals.update(relative=relative, TIER_LEADER=TIER_LEADER, TIER_TIED=TIER_TIED)
    return env


class Slots:
    """Collects a page's big tables; the page keeps a placeholder that
    :mod:`leaderboard.publish.site.mkdocs_hooks` fills after Markdown and search have run."""

    def __init__(self) -> None:
        self.items: list[str] = []

    def __call__(self, html: str) -> Markup:
        self.items.append(str(html))
        return Markup(f"<!-- fb-slot {len(self.items) - 1} -->")


# --------------------------------------------------------------------------- display data

@dataclass
class CellDisplay:
    text: str
    value: str
    css: str = ""
    title: str = ""
    # The verified submission the figure comes from (its slug), for links to per-query
    # detail: a verified cell's submission is its row's data-s (or, when the figure comes
    # from another submission of the model, its own data-s), its table's view id the
    # enclosing .fb-view's data-view and its column's id the header's data-col.
    submission: str = ""


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
    # The verified submission the row's figures come from (data-s on the row; a cell whose
    # figure comes from another submission carries its own data-s).
    submission: str = ""
    # Its simultaneous 95% rank interval among the tested rows ("1–3"), and what it means.
    rank_span: str = ""
    rank_title: str = ""


def source_text(row: Row, full: bool = True) -> str:
    """Where a row's figures come from: the full record for downloads and submission
    pages, the short form (citation, table, mteb version) for the hover of every row."""
    src = row.system.source
    if row.verified:
        return ("verified: scored here from the submitted run files" if full
                else "verified: scored here")
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


#: What the site calls each tier. The leader is the best *verified* row: reported rows are
#: never tested and may stand above it.
TIER_TEXT = {TIER_LEADER: "best verified", TIER_TIED: "tied with best verified",
             TIER_BELOW: "below best verified", TIER_REPORTED: "reported: not tested"}


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


def rank_span(info: TierInfo | None) -> str:
    """A tested row's 95% rank interval as printed beside it: "2", "1–3"."""
    if info is None or info.rank_best is None or info.rank_worst is None:
        return ""
    if info.rank_best == info.rank_worst:
        return str(info.rank_best)
    return f"{info.rank_best}\u2013{info.rank_worst}"


def rank_title(info: TierInfo | None) -> str:
    span = rank_span(info)
    if not span or info is None:
        return ""
    tied = "; tied for first" if info.rank_best == 1 and info.rank_worst != 1 else ""
    return f"rank {span} among the tested rows (95%, for all rows at once){tied}"


def tier_title(info: TierInfo | None) -> str:
    if info is None:
        return ""
    if info.tier == TIER_REPORTED:
        return "reported figure: not tested (no per-query scores)"
    text = TIER_TEXT.get(info.tier, info.tier)
    if info.p_adjusted is not None:
        text += f"; adjusted p {p_text(info.p_adjusted, info.p_floor)}"
    if info.effect is not None and info.tier != TIER_LEADER:
        text += f"; vs best verified {gap_text(info)}"
        if info.effect_size is not None:
            text += f"; effect size {info.effect_size:+.2f} sd"
    if rank_span(info):
        text += f"; rank {rank_span(info)} (95%)"
    return text


def test_text(test: ViewTest | None, column: Column) -> str:
    """What a table's test resamples and what it can tell apart, in one sentence."""
    if test is None:
        return ""
    text = (f"Tests and intervals take one value per {test.unit}, {test.count}: "
            f"{test.unit_holds}. Differences within {score_text(test.threshold)} are ties "
            "(reruns on other hardware move figures that much)")
    if test.mde is not None:
        text += (f"; the smallest difference in {column.label} this table's test detects "
                 f"with 80% power is {score_text(test.mde)}")
    return text + (". Beside each tested name: its rank among the tested rows, 95% for all "
                   "at once.")


def basis_text(basis: str | None, n: int, column: Column) -> str:
    """How a multi-task cell was obtained, in words."""
    if basis == "published":
        return "the source's own published average"
    if basis == "mean of reported tasks":
        return f"mean over the {n} of {len(column.tasks)} tasks this row reports"
    if basis == "mean of tasks":
        return column.convention_text
    return ""


TIER_CSS = {TIER_LEADER: "fb-leader", TIER_TIED: "fb-tied", TIER_BELOW: "",
            TIER_REPORTED: "fb-reported"}
# Marks a T4 ECE of a classifier that answers one class for every pair (the note under
# the table says why that ECE says nothing about skill).
ONE_CLASS_MARK = "*"
ONE_CLASS_NOTE = ("* answers one class for every pair (no pair, or every pair, predicted "
                  "compatible): a constant answer can be perfectly calibrated without any "
                  "skill, so its low ECE is no merit; see its AUROC and balanced accuracy.")
_PREDICTED_POSITIVE = "Predicted positive rate"


def one_class(row: Row, column: Column) -> bool:
    """Whether the row's figure in an ECE column comes from a classifier that predicts one
    class for every pair of one of the column's tasks."""
    if column.metric.rsplit("/", 1)[-1] != "ECE":
        return False
    for task_id in column.tasks:
        scores = row.system.tasks.get(task_id)
        rate = scores.metrics.get(_PREDICTED_POSITIVE) if scores else None
        if rate is not None and rate in (0.0, 1.0):
            return True
    return False


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


def main_row(line: ModelLine, sort_column: int) -> Row:
    """The row a line's badge, source and submission are about: the one its sort column's
    figure comes from, else the first that gives it a figure."""
    cell = line.cells[sort_column]
    if cell.row is not None:
        return cell.row
    return next(c.row for c in line.cells if c.row is not None)


def cell_display(table: ViewTable, line: ModelLine, i: int, main: Row) -> CellDisplay:
    """One model's cell: its figure, its tier, and in its details (hover, or a tap on a
    phone) whatever the row does not say already: where the figure comes from when that is
    not the row's own source, how a published or partial average was obtained, its test,
    and what the model's other rows give for the same cell. Pages hold thousands of cells,
    so a cell with nothing to add has no details."""
    col = table.view.columns[i]
    cell = line.cells[i]
    if cell.value is None or cell.row is None:
        return CellDisplay(text="–", value="")
    row = cell.row
    details = [] if row is main else [source_text(row, full=False)]
    basis = table.bases.get(row.key, [None] * len(table.view.columns))[i]
    if basis in ("published", "mean of reported tasks"):
        n = table.counts.get(row.key, [0] * len(table.view.columns))[i]
        details.append(basis_text(basis, n, col))
    tier = tier_title(cell.tier)
    if tier and cell.tier is not None and cell.tier.tier != TIER_REPORTED:
        details.append(tier)
    if cell.others:
        if not details or details[0] != source_text(row, full=False):
            details.insert(0, source_text(row, full=False))
        for other, value in cell.others[:6]:
            details.append(f"also {score_text(value, col.signed)} from "
                           f"{source_text(other, full=False).split(': ', 1)[-1]}")
        if len(cell.others) > 6:
            details.append(f"and {len(cell.others) - 6} more source(s)")
    css = TIER_CSS.get(cell.tier.tier, "") if cell.tier else ""
    if not row.verified:
        css = "fb-reported"
    text = score_text(cell.value, col.signed)
    if one_class(row, col):
        text += ONE_CLASS_MARK
        details.append(ONE_CLASS_NOTE.lstrip("* "))
    sub = (row.submission.slug if row.verified and row is not main
           and row.submission is not None else "")
    return CellDisplay(text=text, value=sort_value(cell.value), css=css,
                       title="; ".join(details), submission=sub)


def display_rows(table: ViewTable, page: str) -> list[RowDisplay]:
    """One display row per model line (:attr:`ViewTable.lines`), in default order."""
    ranks = table.line_ranks()
    submissions = relative(page, "submissions/x.md")[: -len("x.html")]  # once per page
    tiered = table.view.tiered_column
    out = []
    sort_column = table.view.sort_column
    for line in table.lines:
        rec = line.record
        main = main_row(line, sort_column)
        cells = [cell_display(table, line, i, main) for i in range(len(table.view.columns))]
        gap = None
        if tiered is not None and tiered in table.tiers:
            info = line.cells[tiered].tier
            if info is None or line.cells[tiered].value is None:
                gap = CellDisplay(text="–", value="")
            elif info.tier == TIER_REPORTED:
                gap = CellDisplay(text="not tested", value="", css="fb-reported",
                                  title="a reported figure: no per-query scores to test")
            elif info.tier == TIER_LEADER:
                gap = CellDisplay(text="best verified", value="0", css="fb-leader")
            else:
                # the interval is the text; the tier and p-value are the tiered cell's
                gap = CellDisplay(text=gap_text(info), value=sort_value(info.effect),
                                  css=TIER_CSS.get(info.tier, ""))
        tiered_info = line.cells[tiered].tier if tiered is not None else None
        span = rank_span(tiered_info)
        sources = sorted({source_text(c.row, full=False) for c in line.cells
                          if c.row is not None})
        first_url = next((safe_url(c.row.system.source.url) for c in line.cells
                          if c.row is not None and not c.row.verified
                          and safe_url(c.row.system.source.url)), None)
        out.append(RowDisplay(
            submission=main.submission.slug if main.verified and main.submission else "",
            key=line.key, name=line.name, href=line_href(line, submissions),
            provenance="verified" if line.verified else "reported",
            source="; ".join(sources), source_url=first_url,
            model_type=rec.type, params=params_text(rec.parameters),
            params_value="" if rec.parameters is None else str(rec.parameters),
            params_title=params_reason(rec.parameters, rec.type),
            instruction=instruction_text(rec.instruction_trained),
            rank=ranks[line.key], cells=cells, gap=gap, rank_span=span,
            rank_title=rank_title(tiered_info)))
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
    return RowDisplay(key="no-skill-reference", name=reference_name(view) + " (reference)",
                      href=None, provenance="reference", source="", source_url=None,
                      model_type="", params="", params_value="", params_title="",
                      instruction="", rank=None, cells=cells, gap=gap, reference=True)


REFERENCE_TITLES = {
    "zero": "a ranking that ignores the instruction scores 0",
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
        ref = ' class="fb-ref"' if r.reference else ""
        sub = f' data-s="{e(r.submission)}"' if r.submission else ""
        add(f'<tr{ref}{sub} data-k="{e(r.key)}" data-t="{e(r.model_type)}" data-p="{e(r.provenance)}" '
            f'data-i="{e(r.instruction)}"><td data-v="{rank}">{rank or "–"}</td>'
            '<td class="fb-name">')
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
        rank_span_html = (f' <span class="fb-ri" data-r="{e(r.rank_span)}" '
                          f'title="{e(r.rank_title)}"></span>' if r.rank_span else "")
        if r.href:
            external = "" if r.href.endswith(".html") and "://" not in r.href else \
                ' rel="nofollow noopener"'
            add(f'<a class="fb-n" href="{e(r.href)}"{external}>{name}</a>{rank_span_html}</td>')
        else:
            add(f'<span class="fb-n">{name}</span>{rank_span_html}</td>')
        add(f"<td>{e(r.model_type)}</td>")
        for i, c in enumerate(r.cells):
            css = f' class="{c.css}"' if c.css else ""
            title = f' title="{e(c.title)}"' if c.title else ""
            sub = f' data-s="{e(c.submission)}"' if c.submission else ""
            add(f'<td data-v="{c.value}"{css}{title}{sub}>{e(c.text)}</td>')
            if i == tiered and r.gap is not None:
                g = r.gap
                css = f' class="fb-gap {g.css}"' if g.css else ' class="fb-gap"'
                title = f' title="{e(g.title)}"' if g.title else ""
                add(f'<td data-v="{g.value}"{css}{title}>{e(g.text)}</td>')
        add("</tr>\n")
    return Markup("".join(out))


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
                    if v is not None and one_class(row, c):
                        text += ONE_CLASS_MARK
                    cells[c.label] = CellDisplay(text=text, value=sort_value(v), css=css,
                                                 title=c.help if v is not None else "no score")
                if info is not None:
                    tier = TIER_TEXT.get(info.tier, info.tier)
                else:
                    tier = "not tested" if tier_col is None else "–"
                p_adj = info.p_adjusted if info else None
                entries.append({
                    "href": f"{relative(page_path, page.path)}#{t.view.anchor}",
                    "view": t.view.id, "label": t.view.label, "title": t.view.title,
                    "cells": cells, "tier": tier, "tier_title": tier_title(info),
                    "gap": gap_text(info) if info is not None and info.tier != TIER_LEADER
                    else "", "p_value": sort_value(p_adj),
                    "p_text": p_text(p_adj, info.p_floor if info else None, 3)})
            if not entries:
                continue
            empty = CellDisplay(text="–", value="", title="not in this table")
            for e in entries:
                e["cells"] = [e["cells"].get(label, empty) for label in labels]
            out.append({"title": section.title, "id": section.id, "columns": labels,
                        "href": f"{relative(page_path, page.path)}#{section.id}",
                        "entries": entries})
    return out


# --------------------------------------------------------------------------- downloads

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


# --------------------------------------------------------------------------- repository links

@dataclass(frozen=True)
class RepositoryRef:
    """Where the files of the published results live: ``{url}/blob/{ref}/{path}``."""

    url: str
    ref: str                  # a commit (from git), else the default branch
    toplevel: Path | None     # the checkout's root, to make paths repository-relative
    pinned: bool              # True when ``ref`` is a commit

    def file_url(self, path: Path) -> str:
        """Link to a file of the repository as it was at ``ref``. Outside a checkout the
        path is taken relative to the current folder's layout (``submissions/<id>/...``)."""
        resolved = path.resolve()
        rel: str | None = None
        if self.toplevel is not None:
            try:
                rel = resolved.relative_to(self.toplevel).as_posix()
            except ValueError:
                rel = None
        if rel is None:
            parts = resolved.parts
            rel = "/".join(parts[parts.index("submissions"):]) if "submissions" in parts \
                else path.name
        return f"{self.url}/blob/{quote(self.ref)}/{quote(rel)}"


def repository_url(environ: Mapping[str, str] | None = None) -> str:
    """The repository the site links to: ``$LEADERBOARD_REPO_URL`` when set, else the
    repository a GitHub Actions run builds (``$GITHUB_SERVER_URL/$GITHUB_REPOSITORY``, so
    the published site always links where its files are), else :data:`REPO_URL`."""
    env = os.environ if environ is None else environ
    if env.get("LEADERBOARD_REPO_URL"):
        return env["LEADERBOARD_REPO_URL"].rstrip("/")
    if env.get("GITHUB_REPOSITORY"):
        server = env.get("GITHUB_SERVER_URL") or "https://github.com"
        return f"{server.rstrip('/')}/{env['GITHUB_REPOSITORY']}"
    return REPO_URL


def repository_ref(results_root: Path, url: str | None = None) -> RepositoryRef:
    """The commit the site is built from (``git rev-parse HEAD`` in ``results_root``); when
    that is not a git checkout, or git is missing, links point at the default branch."""
    url = repository_url() if url is None else url
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD", "--show-toplevel"],
                             cwd=results_root, capture_output=True, text=True, timeout=30,
                             check=False)
    except (OSError, subprocess.SubprocessError):
        out = None
    if out is not None and out.returncode == 0:
        lines = out.stdout.split()
        if len(lines) == 2 and len(lines[0]) == 40:
            return RepositoryRef(url=url, ref=lines[0], toplevel=Path(lines[1]).resolve(),
                                 pinned=True)
    return RepositoryRef(url=url, ref=REPO_DEFAULT_BRANCH, toplevel=None, pinned=False)


def uncommitted(repo: RepositoryRef, folders: list[Path]) -> list[str]:
    """Files under ``folders`` that differ from the commit the links point at (the site
    would link to files the repository does not have there)."""
    if not repo.pinned or repo.toplevel is None or not folders:
        return []
    try:
        out = subprocess.run(["git", "status", "--porcelain", "-z", "--untracked-files=all", "--",
                              *[str(f.resolve()) for f in folders]],
                             cwd=repo.toplevel, capture_output=True, text=True, timeout=60,
                             check=False)
    except (OSError, subprocess.SubprocessError):
        return []
    # -z: NUL-separated and unquoted (a path with a space stays as it is).
    return [entry[3:] for entry in out.stdout.split("\0") if len(entry) > 3]


# --------------------------------------------------------------------------- file listing

@dataclass(frozen=True)
class ListedFile:
    path: str
    url: str
    size: int | None = None
    note: str = ""
    stored: bool = False      # linked to the run store's copy, not to the repository


@dataclass
class FileGroup:
    title: str
    files: list[ListedFile]
    parts: list["FileGroup"]  # a benchmark of many files, by task family (PI-Indic T1-T4)

    @property
    def size(self) -> int:
        return sum(f.size or 0 for f in self.files)


# A benchmark with more run files than this is folded again by task family.
FOLD_FAMILIES_ABOVE = 24


def file_listing(sub: SubmissionInfo, repo: RepositoryRef) -> dict[str, object]:
    """A submission page's files: results.json, its per-query scores, the explanation
    manifest, metadata.yaml and the manifest, then the run files folded by benchmark (and,
    in a benchmark of many, by task family). Each links to the repository at the built commit, or, for a file git
    does not hold, to its copy in the run store (the commit the manifest names)."""
    try:
        stored = submission_files(sub.folder)
    except StoreError:
        stored = None  # the page still lists the files; the build warns elsewhere

    def listed(rel: str, size: int | None = None, note: str = "") -> ListedFile:
        url = stored.link(rel) if stored is not None else None
        if size is None and (sub.folder / rel).is_file():
            size = (sub.folder / rel).stat().st_size
        return ListedFile(rel, url or repo.file_url(sub.folder / rel), size, note,
                          stored=url is not None)

    try:
        named = read_results(sub.results_path, per_query=False).per_query_file
    except ResultsFileError:
        named = None
    top = [listed(RESULTS_NAME, note="every score but the per-query ones")]
    if named is not None:
        top.append(listed(PER_QUERY_NAME, note="every per-query score (gzipped JSON)"))
    if sub.explain_manifest is not None:
        top.append(listed(sub.explain_manifest.path,
                          note="the query explorer's files, each by SHA-256 and size"))
    top += [listed(rel, note=note) for rel, note in (
        (METADATA_NAME, "the model and how its runs were made"),
        (MANIFEST_NAME, "every run file by SHA-256 and size")) if (sub.folder / rel).is_file()]
    registry = all_tasks()
    by_benchmark: dict[str, list[tuple[str, ListedFile]]] = {}
    for rel, entry in run_files(sub.folder).items():
        task_id = rel[len(RUNS_DIR) + 1:].rpartition("/")[0]
        task = registry.get(task_id)
        title = benchmark_of(task.benchmark).title if task is not None else "Other files"
        parts = task_id.split("/")
        family = parts[1].upper() if len(parts) > 2 else ""
        by_benchmark.setdefault(title, []).append(
            (family, listed(rel, entry.size if entry is not None else None)))
    groups = []
    for title, items in by_benchmark.items():
        files = [f for _, f in items]
        families: dict[str, list[ListedFile]] = {}
        if len(files) > FOLD_FAMILIES_ABOVE:
            for family, f in items:
                families.setdefault(family or title, []).append(f)
        parts_ = [FileGroup(name, fs, []) for name, fs in families.items()] \
            if len(families) > 1 else []
        groups.append(FileGroup(title, files, parts_))
    stores = sorted({f.url.split("/blob/")[0] for g in groups for f in g.files if f.stored}
                    | {f.url.split("/blob/")[0] for f in top if f.stored})
    return {"top": top, "groups": groups, "stores": stores}


def submission_dates(repo: RepositoryRef, subs: list) -> dict[str, str]:
    """Submission id -> the date of the first commit that added files to its folder (when
    it was submitted), for the submissions whose metadata gives no ``date`` (one
    ``git log`` for all of them; {} outside a checkout)."""
    if repo.toplevel is None or not subs:
        return {}
    folders = {}
    for sub in subs:
        try:
            folders[sub.folder.resolve().relative_to(repo.toplevel).as_posix()] = sub.id
        except ValueError:
            continue
    if not folders:
        return {}
    try:
        out = subprocess.run(["git", "-C", str(repo.toplevel), "log", "--format=%x00%cs",
                              "--name-only", "--diff-filter=A", "--", *folders],
                             capture_output=True, text=True, timeout=60, check=False)
    except (OSError, subprocess.SubprocessError):
        return {}
    dates: dict[str, str] = {}
    for entry in out.stdout.split("\0")[1:]:
        date, _, names = entry.partition("\n")
        for name in names.split("\n"):
            for folder, sub_id in folders.items():
                if name.startswith(folder + "/"):
                    dates[sub_id] = date.strip()  # newest first: the oldest stays
    return dates


# --------------------------------------------------------------------------- pages


def empty_reason(view: View) -> str:
    """Why a view has no rows yet, in words a visitor can act on."""
    if len(view.tasks) > 1 and any(c.average == "all" for c in view.columns):
        return (f"No system has scores for all {len(view.tasks)} tasks this table averages "
                "yet (a system needs every one to get a row); the other tabs show each "
                "task on its own.")
    if len(view.tasks) == 1:
        return f"No submission covers {view.tasks[0]} yet."
    return "No results yet for this table."


def _table_context(table: ViewTable, page: str) -> dict:
    """What the table macro needs: the view's model lines as rows (and its no-skill
    reference row), its best verified row, its heatmap columns."""
    view = table.view
    rows = display_rows(table, page)
    reference = reference_row(table)
    tiered = view.tiered_column if view.tiered_column in table.tiers else None
    leader = None
    if tiered is not None:
        line = next((ln for ln in table.lines if (t := ln.cells[tiered].tier)
                     and t.tier == TIER_LEADER), None)
        if line is not None:
            col = view.columns[tiered]
            above = sum(1 for ln in table.lines
                        if not ln.cells[tiered].verified and ln.cells[tiered].value is not None
                        and (ln.cells[tiered].value > line.cells[tiered].value
                             if col.higher_is_better
                             else ln.cells[tiered].value < line.cells[tiered].value))
            ref = table.references[tiered] if table.references else None
            tied = [ln.name for ln in table.lines
                    if (t := ln.cells[tiered].tier) is not None and t.rank_best == 1]
            leader = {"name": line.name, "column": col.label,
                      "tied_first": tied if len(tied) > 1 else [],
                      "value": score_text(line.cells[tiered].value, col.signed),
                      "above": above,
                      "reference": None if ref is None else score_text(ref, col.signed),
                      "beats_reference": None if ref is None else (
                          line.cells[tiered].value > ref if col.higher_is_better
                          else line.cells[tiered].value < ref)}
    body_rows = rows
    if reference is not None:
        # In the default order, where its value falls: a row below it is below no skill.
        sort_col = view.sort_column
        ref_value = table.references[sort_col] if table.references else None
        col = view.columns[sort_col]
        at = len(rows)
        if ref_value is not None:
            at = next((i for i, line in enumerate(table.lines)
                       if line.cells[sort_col].value is None
                       or (line.cells[sort_col].value < ref_value if col.higher_is_better
                           else line.cells[sort_col].value > ref_value)), len(rows))
        body_rows = rows[:at] + [reference] + rows[at:]
    one_class_rows = any(ONE_CLASS_MARK in c.text for r in rows for c in r.cells
                         if c.text != "–")
    test = test_text(table.tests.get(tiered), view.columns[tiered]) if tiered is not None \
        else ""
    return {"t": table, "view": view, "rows": rows, "tiered": tiered, "leader": leader,
            "test": test,
            "body": rows_html(body_rows, tiered), "empty": empty_reason(view),
            "heat": [c.id for c in view.columns if c.heat],
            "caption": caption(view),
            "one_class_note": ONE_CLASS_NOTE if one_class_rows else "",
            "submit": relative(page, "submit.md"),
            "csv": relative(page, f"{DOWNLOADS}/{view.anchor}.csv"),
            "json": relative(page, f"{DOWNLOADS}/{view.anchor}.json")}


def caption(view: View) -> str:
    """What the numbers of a view are, in one sentence (every column declares its
    convention; the per-task breakdown columns of an average view are single tasks)."""
    averaged = [c for c in view.columns if c.convention != "task"]
    if not averaged:
        return ""
    kinds = {c.convention_text for c in averaged}
    text = "; ".join(sorted(kinds))
    if len(averaged) == len(view.columns):
        return f"Every column is {text}."
    names = ", ".join(c.label for c in averaged)
    return f"{names}: {text}; the other columns are one task each."


def _section_context(section: Section, board: Board, page: str) -> dict:
    tables = [_table_context(board.tables[v.id], page) for v in section.views]
    return {"section": section, "tables": tables,
            "charted": [tc for tc in tables if tc["rows"]]}


def search_doc(location: str, title: str, text: str) -> dict[str, str]:
    """A search index document. Material renders ``title`` and ``text`` as HTML (MkDocs
    stores page text escaped), so names from metadata are escaped here."""
    return {"location": location, "title": str(escape(title)), "text": str(escape(text))}


def search_entries(board: Board, pages: tuple[Page, ...]) -> list[dict[str, str]]:
    """Extra documents for the search index, which leaves the tables out (they are filled
    in after indexing, see :mod:`leaderboard.publish.site.mkdocs_hooks`): one per table, so a
    language, dataset or constraint type leads to its tab, and one per model without a
    submission page of its own (reported models) and benchmark page, which opens the page
    with the name filter set to it and the first table holding it on screen. Locations
    must be unique: Material's search keys results by them."""
    entries: list[dict[str, str]] = []
    for page in pages:
        html = page.path[:-3] + ".html"
        for view in page.views:
            entries.append(search_doc(f"{html}#{view.anchor}", view.title,
                                      f"{page.title}: {view.title}. {view.note}".strip()))
        found: dict[str, tuple[str, list[str]]] = {}
        sources: dict[str, set[str]] = {}
        for view in page.views:
            for line in board.tables[view.id].lines:
                if line.submission_row is not None:
                    continue  # its submission page is indexed already
                found.setdefault(line.key, (line.name, []))[1].append(view.anchor)
                sources.setdefault(line.key, set()).update(
                    source_text(c.row, full=False) for c in line.cells if c.row is not None)
        for key, (name, anchors) in found.items():
            entries.append(search_doc(
                # No "#" here: Material keys a top-level result by its path alone.
                f"{html}?fb-name={quote(name, safe='')}&fb-view={anchors[0]}", name,
                f"{name} on {page.title} ({len(anchors)} table(s)): "
                + "; ".join(sorted(sources[key]))))
    return entries


def render_docs(board: Board, docs: Path, repo: RepositoryRef | None = None) -> list[str]:
    """Write every page and download under ``docs``; return the page paths. Submission
    files are linked to the repository at ``repo`` (by default the checkout holding the
    first submission, else the default branch), never copied into the site."""
    env = environment()
    (docs / DOWNLOADS).mkdir(parents=True, exist_ok=True)
    (docs / "assets").mkdir(exist_ok=True)
    for asset in sorted(ASSETS_DIR.iterdir()):
        if asset.is_file():
            shutil.copyfile(asset, docs / "assets" / asset.name)
    written: list[str] = []
    if repo is None:
        subs = board.submissions
        repo = repository_ref(subs[0].submission.folder if subs and subs[0].submission
                              else Path.cwd())

    def write(path: str, template: str, **context: object) -> None:
        target = docs / path
        target.parent.mkdir(parents=True, exist_ok=True)
        slots = Slots()
        text = env.get_template(template).render(page_path=path, slot=slots, repo=repo,
                                                 **context)
        target.write_text(text, encoding="utf-8")
        if slots.items:
            frag = fragment_path(docs, path)
            frag.parent.mkdir(parents=True, exist_ok=True)
            frag.write_text(json.dumps(slots.items, ensure_ascii=False), encoding="utf-8")
        written.append(path)

    for table in board.tables.values():
        write_downloads(table, docs / DOWNLOADS)

    from leaderboard.publish.site.overview import home_document, overview_context

    overview = overview_context(board, "index.md",
                                relative("index.md", "submissions/x.md")[: -len("x.html")])
    # The home table's downloads hold exactly the table under which they are offered.
    header, records, doc = home_document(overview["overview"])
    (docs / DOWNLOADS / "home.csv").write_text(csv_text(header, records), encoding="utf-8")
    write_download_json(docs / DOWNLOADS / "home.json", doc)
    write("index.md", "home.md.j2", model_types=MODEL_TYPES, overview=overview)
    pages: tuple[Page, ...] = site_pages()
    for page in pages:
        write(page.path, "benchmark.md.j2", page=page, model_types=MODEL_TYPES,
              sections=[_section_context(s, board, page.path) for s in page.sections])

    views_by_page = [(page, [(s, [board.tables[v.id] for v in s.views]) for s in page.sections])
                     for page in pages]
    dates = submission_dates(repo, [r.submission for r in board.submissions
                                    if r.submission is not None and not r.submission.date])
    for row in board.submissions:
        sub = row.submission
        assert sub is not None
        path = f"submissions/{sub.slug}.md"
        listing = file_listing(sub, repo)
        write(path, "submission.md.j2", row=row, sub=sub, source=source_text(row),
              scores=submission_scores(row, path, views_by_page), listing=listing,
              params_reason=params_reason(row.system.model.parameters, row.system.model.type),
              date=sub.date or dates.get(sub.id))
    write("submissions/index.md", "submissions.md.j2", rows=board.submissions,
          model_types=MODEL_TYPES, dates=dates)
    write("submit.md", "submit.md.j2", tasks=list(all_tasks().values()),
          examples=validator_examples(), sources=task_sources(), repo_url=repo.url,
          status_lines=STATUS_LINE)
    write("metrics.md", "metrics.md.j2", measures=list(MEASURES.values()))
    from leaderboard.publish.site.explorer import write_explorer  # the explorer: its own module

    board.warnings += write_explorer(board, docs, write)
    extra = docs / SEARCH_EXTRA
    extra.parent.mkdir(parents=True, exist_ok=True)
    extra.write_text(json.dumps(search_entries(board, pages), ensure_ascii=False),
                     encoding="utf-8")
    return written


def _source_link(task_id: str) -> tuple[str, str]:
    """(label, URL) of a task's pinned upstream source."""
    src = all_tasks()[task_id].source
    base = ("https://huggingface.co/datasets/" if src.host == "huggingface"
            else "https://github.com/")
    rev = "/tree/" + src.revision
    return f"{src.repo}@{src.revision}", base + src.repo + rev


def task_sources() -> list[dict[str, object]]:
    """Per benchmark: the `data pull` name, its pinned upstream sources, which file holds
    the queries, the corpus and the topic-only (original) queries, and what a run ranks."""
    def sources(prefix: str) -> list[tuple[str, str]]:
        seen: dict[str, str] = {}
        for t in all_tasks().values():
            if t.id.startswith(prefix):
                label, url = _source_link(t.id)
                seen.setdefault(label, url)
        return list(seen.items())

    pool = ("rank every document of the query's <code>top_ranked</code> pool (its 1,000 "
            "candidates) and nothing else")
    return [
        {"benchmark": "FollowIR", "pull": "followir", "sources": sources("followir/"),
         "queries": "<code>queries</code> + <code>instruction</code> configs; ids "
                    "<code>&lt;id&gt;-og</code> (original instruction, <code>original</code> run) "
                    "and <code>&lt;id&gt;-changed</code> (altered, <code>altered</code> run)",
         "corpus": "<code>corpus</code> config", "depth": pool},
        {"benchmark": "mFollowIR", "pull": "mfollowir mfollowir-cl",
         "sources": sources("mfollowir/") + sources("mfollowir-cl/"),
         "queries": "<code>queries-&lt;lang&gt;</code> + <code>instruction-&lt;lang&gt;</code>, "
                    "ids as FollowIR (English queries in the cross-lingual repository)",
         "corpus": "<code>corpus-&lt;lang&gt;</code> (fas, rus, zho)", "depth": pool},
        {"benchmark": "FollowTable", "pull": "followtable", "sources": sources("followtable/"),
         "queries": "<code>queries.jsonl</code>: query + instruction pairs "
                    "<code>&lt;q&gt;_&lt;i&gt;</code> (<code>altered</code> run); topic-only "
                    "queries <code>&lt;q&gt;</code> in <code>only_queries.jsonl</code> "
                    "(<code>original</code> run)",
         "corpus": "<code>corpus.jsonl</code> (the dataset's tables)",
         "depth": "rank the whole corpus: each query lists min(1000, corpus size) tables"},
        {"benchmark": "PI-Indic val150 T1–T3", "pull": "pi-indic",
         "sources": sources("pi-indic-val150/"),
         "queries": "personas (T1, T2: <code>p&lt;id&gt;</code>) or instructions (T3: "
                    "<code>i&lt;id&gt;</code>) of the 150 validated rows of each language's "
                    "CSV, one <code>run</code> file",
         "corpus": "the other side of the same 150 rows, in the target language",
         "depth": "each query lists min(1000, corpus size) documents: the whole 150-item "
                  "candidate set"},
        {"benchmark": "PI-Indic val150 T4", "pull": "pi-indic",
         "sources": sources("pi-indic-val150/"),
         "queries": "a fixed set of persona–instruction pairs, ids "
                    "<code>t4-&lt;12 hex&gt;</code> (e.g. <code>t4-4636e21f6df4</code>)",
         "corpus": "none: a probability per pair in <code>predictions.tsv</code>",
         "depth": "one line per pair of the fixed set"},
    ]


def validator_examples() -> list[tuple[str, str]]:
    """Real validator messages for a few broken lines, produced by the validator itself so
    the documentation cannot drift from what it prints."""
    from leaderboard.core.report import Report
    from leaderboard.core.runs.parsing import parse_run

    cases = [
        ("score is not a number", b"q1 Q0 d1 1 12.5 bm25\nq1 Q0 d2 2 abc bm25\n"),
        ("a column is missing", b"q1 Q0 d1 1 12.5 bm25\nq1 Q0 d2 2 bm25\n"),
        ("rank is not an integer", b"q1 Q0 d1 first 12.5 bm25\n"),
    ]
    out = []
    for label, data in cases:
        report = Report()
        parse_run(data, "runs/followtable/wtr/altered.trec", report)
        out += [(label, line) for line in report.lines()[:1]]
    return out


# --------------------------------------------------------------------------- mkdocs config

def mkdocs_config(docs: Path, out: Path, strict: bool = True) -> dict:
    """The MkDocs configuration: Material, offline (no web fonts, no CDN), our assets."""
    nav: list = [{"Home": "index.md"}]
    pi: list = []
    for page in site_pages():
        if page.nav:
            pi.append({page.nav[1]: page.path})
        else:
            nav.append({page.title: page.path})
    nav.append({"PI-Indic": pi})
    nav += [{"Submissions": "submissions/index.md"}, {"Query explorer": "explore.md"},
            {"How to submit": "submit.md"},
            {"Metrics": "metrics.md"}]
    return {
        "site_name": "FollowBoard",
        "site_description": "Leaderboard for instruction-following retrieval: FollowIR, "
                            "mFollowIR, FollowTable and PI-Indic-Align",
        "docs_dir": str(docs.resolve()),
        "site_dir": str(out.resolve()),
        # Plain .html files: the site also opens straight from disk, without a server.
        "use_directory_urls": False,
        "strict": strict,
        "theme": {
            "name": "material",
            "font": False,  # Material would otherwise load Google Fonts
            "language": "en",
            "features": ["navigation.sections", "navigation.top", "search.highlight",
                         "toc.follow"],
            "palette": [
                {"media": "(prefers-color-scheme: light)", "scheme": "default",
                 "primary": "indigo", "accent": "indigo",
                 "toggle": {"icon": "material/weather-night", "name": "Switch to dark mode"}},
                {"media": "(prefers-color-scheme: dark)", "scheme": "slate",
                 "primary": "indigo", "accent": "indigo",
                 "toggle": {"icon": "material/weather-sunny", "name": "Switch to light mode"}},
            ],
        },
        # A plain link to the repository (Material's repo_url would fetch star counts
        # from api.github.com on every page: the site makes no requests of its own).
        "extra": {"generator": False,
                  "social": [{"icon": "fontawesome/brands/github", "link": repository_url(),
                              "name": "FollowBoard on GitHub: submissions, code, issues"}]},
        "extra_css": ["assets/leaderboard.css", "assets/explorer.css"],
        # format.js: how every number is printed, first (leaderboard.js and the explorer
        # use it); explorer-links.js: verified cells link to the queries behind them.
        "extra_javascript": ["assets/format.js", "assets/leaderboard.js",
                             "assets/explorer-links.js"],
        # Only what the templates use: every extension costs time on each of the
        # (possibly thousands of) submission pages. Tabs and tables are raw HTML.
        "markdown_extensions": [
            {"toc": {"permalink": True}}, "attr_list", "admonition", "pymdownx.superfences",
        ],
        # "/" separates words too, so "Qwen3" finds "Qwen/Qwen3-Embedding-8B".
        "plugins": [{"search": {"separator": r"[\s\-/]+"}}],
        "hooks": [str(PACKAGE_DIR / "mkdocs_hooks.py")],
        "nav": nav,
        "validation": {"omitted_files": "info", "absolute_links": "warn",
                       "unrecognized_links": "warn", "anchors": "warn"},
        "copyright": f"FollowBoard {__version__}",
    }


def write_mkdocs_config(config: dict, path: Path) -> None:
    path.write_text(yaml.safe_dump(config, sort_keys=False, allow_unicode=True),
                    encoding="utf-8")
