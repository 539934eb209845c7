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
from dataclasses import dataclass, field
from pathlib import Path

import jinja2
import yaml
from markupsafe import Markup, escape

from leaderboard import __version__
from leaderboard.registry import all_tasks
from leaderboard.site.board import (
    TIER_BELOW,
    TIER_LEADER,
    TIER_REPORTED,
    TIER_TIED,
    Board,
    Row,
    TierInfo,
    ViewTable,
)
from leaderboard.site.format import (
    data_value,
    instruction_text,
    params_text,
    relative,
    safe_url,
    score_text,
    sort_value,
)
from leaderboard.site.mkdocs_hooks import fragment_path
from leaderboard.standings.downloads import STATISTIC_NOTE, csv_text, view_records
from leaderboard.site.layout import HOME_COLUMNS, HOME_LINKS, Page, Section, site_pages

PACKAGE_DIR = Path(__file__).parent
TEMPLATES_DIR = PACKAGE_DIR / "templates"
ASSETS_DIR = PACKAGE_DIR / "assets"
DOWNLOADS = "downloads"
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
                       it=instruction_text, safe_url=safe_url)
    env.globals.update(relative=relative, TIER_LEADER=TIER_LEADER, TIER_TIED=TIER_TIED)
    return env


class Slots:
    """Collects a page's big tables; the page keeps a placeholder that
    :mod:`leaderboard.site.mkdocs_hooks` fills after Markdown and search have run."""

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
    instruction: str
    rank: int | None
    cells: list[CellDisplay] = field(default_factory=list)


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


def tier_title(info: TierInfo | None) -> str:
    if info is None:
        return ""
    if info.tier == TIER_REPORTED:
        return "reported figure: not tested (no per-query scores)"
    text = info.tier
    if info.p_adjusted is not None:
        text += f"; adjusted p {info.p_adjusted:.2g}"
    if info.effect is not None and info.tier != TIER_LEADER:
        text += f"; vs leader {info.effect * 100:+.1f}"
        if info.ci_low is not None and info.ci_high is not None:
            text += f" [{info.ci_low * 100:+.1f}, {info.ci_high * 100:+.1f}]"
    return text


# How a multi-task cell was obtained, when it is not the mean over the view's queries.
BASIS_TITLES = {
    "weighted": "reported: task figures weighted by their number of queries",
    "unweighted": "reported: mean of the task figures (their query counts are not known)",
    "published": "the row's own published average",
}

TIER_CSS = {TIER_LEADER: "fb-leader", TIER_TIED: "fb-tied", TIER_BELOW: "",
            TIER_REPORTED: "fb-reported"}


def display_rows(table: ViewTable, page: str) -> list[RowDisplay]:
    ranks = table.rank_of()
    submissions = relative(page, "submissions/x.md")[: -len("x.html")]  # once per page
    out = []
    for row in table.rows:
        model = row.system.model
        cells = []
        for i, col in enumerate(table.view.columns):
            value = table.values[row.key][i]
            info = table.tiers.get(i, {}).get(row.key)
            title = tier_title(info)
            n = table.counts.get(row.key, [0] * len(table.view.columns))[i]
            basis = table.bases.get(row.key, [None] * len(table.view.columns))[i]
            how = BASIS_TITLES.get(basis or "", "") if value is not None else ""
            if col.average == "available" and value is not None and len(col.tasks) > 1:
                how = ("the row's own published average" if n == 0 else
                       f"mean over {n} of {len(col.tasks)} tasks")
            if how:
                title = how + (f"; {title}" if title else "")
            cells.append(CellDisplay(
                text=score_text(value, col.signed), value=sort_value(value),
                css=TIER_CSS.get(info.tier, "") if info else "", title=title))
        sub = row.submission
        out.append(RowDisplay(
            key=row.key, name=model.name,
            href=f"{submissions}{sub.slug}.html" if sub else None,
            provenance=row.system.provenance, source=source_text(row, full=False),
            source_url=safe_url(row.system.source.url),
            model_type=model.type, params=params_text(model.parameters),
            params_value="" if model.parameters is None else str(model.parameters),
            instruction=instruction_text(model.instruction_trained),
            rank=ranks[row.key], cells=cells))
    return out


def rows_html(rows: list[RowDisplay], wide: bool) -> Markup:
    """The ``<tbody>`` rows of a view, built directly: with thousands of rows per page this
    is the build's hottest loop, several times faster than a template loop. Every value
    goes through :func:`markupsafe.escape`."""
    e = escape
    out: list[str] = []
    add = out.append
    for r in rows:
        rank = "" if r.rank is None else str(r.rank)
        add(f'<tr data-k="{e(r.key)}" data-t="{e(r.model_type)}" data-p="{e(r.provenance)}" '
            f'data-i="{e(r.instruction)}"><td data-v="{rank}">{rank or "–"}</td>'
            '<td class="fb-name">')
        # Badge first: it never wraps onto a line of its own, and names line up. Verified
        # badges need no per-row hover (the legend says what V means): bytes add up over
        # thousands of rows.
        p = r.provenance[:1]
        if r.source_url:
            add(f'<a class="fb-prov fb-prov-{p}" href="{e(r.source_url)}" rel="nofollow noopener" '
                f'title="{e(r.source)}">{p.upper()}</a> ')
        elif p == "v":
            add('<abbr class="fb-prov fb-prov-v">V</abbr> ')
        else:
            add(f'<abbr class="fb-prov fb-prov-{p}" title="{e(r.source)}">{p.upper()}</abbr> ')
        name = e(r.name)
        add(f'<a class="fb-n" href="{e(r.href)}">{name}</a></td>' if r.href
            else f'<span class="fb-n">{name}</span></td>')
        if wide:
            add(f"<td>{e(r.provenance)}</td><td>{e(r.model_type)}</td>"
                f'<td data-v="{e(r.params_value)}">{e(r.params)}</td><td>{e(r.instruction)}</td>')
        else:
            add(f"<td>{e(r.model_type)}</td>")
        for c in r.cells:
            css = f' class="{c.css}"' if c.css else ""
            title = f' title="{e(c.title)}"' if c.title else ""
            add(f'<td data-v="{c.value}"{css}{title}>{e(c.text)}</td>')
        add("</tr>\n")
    return Markup("".join(out))


def submission_scores(row: Row, page_path: str, views_by_page: list) -> list[dict]:
    """Every table a submission appears in, grouped by page, as plain display strings."""
    out = []
    for page, sections in views_by_page:
        entries = []
        for _, tables in sections:
            for t in tables:
                values = t.values.get(row.key)
                if values is None:
                    continue
                tier_col = t.view.tiered_column
                info = t.tiers.get(tier_col, {}).get(row.key) if tier_col is not None else None
                scores = []
                for i, (c, v) in enumerate(zip(t.view.columns, values)):
                    if v is None:
                        continue
                    css = TIER_CSS.get(info.tier, "") if info and i == tier_col else ""
                    scores.append((c.label, score_text(v, c.signed), css))
                if info is not None:
                    tier = f"{info.tier} ({t.view.columns[tier_col].label})"
                else:
                    tier = "not tested" if tier_col is None else "–"
                p_adj = info.p_adjusted if info else None
                entries.append({
                    "href": f"{relative(page_path, page.path)}#{t.view.anchor}",
                    "title": t.view.title, "scores": scores, "tier": tier,
                    "tier_title": tier_title(info), "p_value": sort_value(p_adj),
                    "p_text": "–" if p_adj is None else f"{p_adj:.3g}"})
        if entries:
            out.append((page.title, entries))
    return out


# --------------------------------------------------------------------------- downloads

def table_records(table: ViewTable) -> tuple[list[str], list[dict[str, object]]]:
    """Header and rows of a view's download: exact fractions, not the x100 display, with
    each tested row's p-values, difference from the leader and its 95% interval."""
    return view_records(table, source_text)


def write_downloads(table: ViewTable, folder: Path) -> None:
    header, records = table_records(table)
    stem = table.view.anchor
    (folder / f"{stem}.csv").write_text(csv_text(header, records), encoding="utf-8")
    view = table.view
    doc = {
        "view": {"id": view.id, "title": view.title, "note": view.note,
                 "columns": [{"id": c.id, "label": c.label, "metric": c.metric,
                              "tasks": list(c.tasks), "group": c.group,
                              "higher_is_better": c.higher_is_better, "average": c.average}
                             for c in view.columns]},
        "scale": "fractions (the site shows x100)",
        "statistic": STATISTIC_NOTE,
        "rows": records,
    }
    # Compact JSON: json's indenting encoder is pure Python and was the slowest step of
    # writing downloads for a thousand rows.
    (folder / f"{stem}.json").write_text(
        json.dumps(doc, ensure_ascii=False, allow_nan=False, separators=(",", ":")) + "\n",
        encoding="utf-8")


# --------------------------------------------------------------------------- pages

def _copy(src: Path, dst: Path) -> None:
    dst.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(src, dst)  # same filesystem: no bytes copied
    except OSError:
        shutil.copyfile(src, dst)


def _table_context(table: ViewTable, page: str, wide: bool = False) -> dict:
    """What the table macro needs; ``wide`` adds provenance, size and instruction columns."""
    rows = display_rows(table, page)
    return {"t": table, "view": table.view, "rows": rows, "wide": wide,
            "body": rows_html(rows, wide),
            "csv": relative(page, f"{DOWNLOADS}/{table.view.anchor}.csv"),
            "json": relative(page, f"{DOWNLOADS}/{table.view.anchor}.json")}


def _section_context(section: Section, board: Board, page: str) -> dict:
    return {"section": section,
            "tables": [_table_context(board.tables[v.id], page) for v in section.views]}


def render_docs(board: Board, docs: Path) -> list[str]:
    """Write every page, download and copied file under ``docs``; return the page paths."""
    env = environment()
    (docs / DOWNLOADS).mkdir(parents=True, exist_ok=True)
    (docs / "assets").mkdir(exist_ok=True)
    for asset in sorted(ASSETS_DIR.iterdir()):
        if asset.is_file():
            shutil.copyfile(asset, docs / "assets" / asset.name)
    written: list[str] = []

    def write(path: str, template: str, **context: object) -> None:
        target = docs / path
        target.parent.mkdir(parents=True, exist_ok=True)
        slots = Slots()
        text = env.get_template(template).render(page_path=path, slot=slots, **context)
        target.write_text(text, encoding="utf-8")
        if slots.items:
            frag = fragment_path(docs, path)
            frag.parent.mkdir(parents=True, exist_ok=True)
            frag.write_text(json.dumps(slots.items, ensure_ascii=False), encoding="utf-8")
        written.append(path)

    for table in [*board.tables.values(), board.home]:
        write_downloads(table, docs / DOWNLOADS)

    counts = {"verified": sum(1 for r in board.rows if r.verified),
              "reported": sum(1 for r in board.rows if not r.verified)}
    pi_full_only = sum(1 for r in board.rows if r.key not in board.home.values
                       and any(r.key in board.tables[v].values for v in board.tables
                               if v.startswith("pi-indic-full/")))
    from leaderboard.site.overview import overview_context

    write("index.md", "home.md.j2", home=_table_context(board.home, "index.md", wide=True),
          home_columns=HOME_COLUMNS, home_links=HOME_LINKS, counts=counts,
          pi_full_only=pi_full_only, model_types=MODEL_TYPES,
          overview=overview_context(board, "index.md",
                                    relative("index.md", "submissions/x.md")[: -len("x.html")]))
    pages: tuple[Page, ...] = site_pages()
    for page in pages:
        write(page.path, "benchmark.md.j2", page=page, model_types=MODEL_TYPES,
              sections=[_section_context(s, board, page.path) for s in page.sections])

    views_by_page = [(page, [(s, [board.tables[v.id] for v in s.views]) for s in page.sections])
                     for page in pages]
    for row in board.submissions:
        sub = row.submission
        assert sub is not None
        path = f"submissions/{sub.slug}.md"
        for rel in ["results.json", *sub.files]:
            _copy(sub.folder / rel, docs / "submissions" / sub.slug / rel)
        write(path, "submission.md.j2", row=row, sub=sub, source=source_text(row),
              scores=submission_scores(row, path, views_by_page))
    write("submissions/index.md", "submissions.md.j2", rows=board.submissions,
          model_types=MODEL_TYPES)
    write("submit.md", "submit.md.j2", tasks=list(all_tasks().values()),
          examples=validator_examples())
    write("metrics.md", "metrics.md.j2")
    return written


def validator_examples() -> list[tuple[str, str]]:
    """Real validator messages for a few broken lines, produced by the validator itself so
    the documentation cannot drift from what it prints."""
    from leaderboard.report import Report
    from leaderboard.runs import parse_run

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
    nav += [{"Submissions": "submissions/index.md"}, {"How to submit": "submit.md"},
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
        "extra": {"generator": False},
        "extra_css": ["assets/leaderboard.css"],
        "extra_javascript": ["assets/leaderboard.js"],
        # Only what the templates use: every extension costs time on each of the
        # (possibly thousands of) submission pages. Tabs and tables are raw HTML.
        "markdown_extensions": [
            {"toc": {"permalink": True}}, "attr_list", "admonition", "pymdownx.superfences",
        ],
        "plugins": ["search"],
        "hooks": [str(PACKAGE_DIR / "mkdocs_hooks.py")],
        "nav": nav,
        "validation": {"omitted_files": "info", "absolute_links": "warn",
                       "unrecognized_links": "warn", "anchors": "warn"},
        "copyright": f"FollowBoard {__version__}",
    }


def write_mkdocs_config(config: dict, path: Path) -> None:
    path.write_text(yaml.safe_dump(config, sort_keys=False, allow_unicode=True),
                    encoding="utf-8")
