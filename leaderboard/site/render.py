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

from leaderboard import __version__
from leaderboard.benchmarks import benchmark_of
from leaderboard.ci.comment import STATUS_LINE
from leaderboard.fileio import size_text
from leaderboard.registry import all_tasks
from leaderboard.results import PER_QUERY_NAME, RESULTS_NAME, ResultsFileError, read_results
from leaderboard.site.board import (
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
from leaderboard.site.format import (
    data_value,
    instruction_text,
    params_text,
    relative,
    safe_url,
    score_text,
    sort_value,
)
from leaderboard.site.mkdocs_hooks import SEARCH_EXTRA, fragment_path
from leaderboard.store.files import StoreError, submission_files
from leaderboard.store.manifest import MANIFEST_NAME
from leaderboard.submissions import run_files
from leaderboard.standings.downloads import STATISTIC_NOTE, csv_text, view_records
from leaderboard.site.layout import HOME_COLUMNS, HOME_LINKS, Page, Section, View, site_pages

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
                       it=instruction_text, safe_url=safe_url, filesize=size_text)
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
    slug: str | None = None   # a verified submission's: its cells link to the explorer


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
            rank=ranks[row.key], cells=cells, slug=sub.slug if sub else None))
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
        # data-s: the explorer's cell links (assets/explorer-links.js) name the submission.
        slug = f' data-s="{e(r.slug)}"' if r.slug else ""
        add(f'<tr data-k="{e(r.key)}"{slug} data-t="{e(r.model_type)}" data-p="{e(r.provenance)}" '
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


def _compact_columns(view: View) -> list[int]:
    """Column indices of a view shown on submission pages: every metric, without an
    average view's per-language or per-dataset breakdown (``lang:metric`` ids), which the
    per-task rows of the same table show already."""
    own = [i for i, c in enumerate(view.columns) if ":" not in c.id]
    return own or list(range(len(view.columns)))


def submission_scores(row: Row, page_path: str, views_by_page: list) -> list[dict]:
    """One compact table per benchmark section: a row per table the submission appears
    in (average first, then each collection, language or dataset), a column per metric,
    one value per cell, then the tier and adjusted p-value of the table's tiered column."""
    out = []
    for page, sections in views_by_page:
        for section, tables in sections:
            labels: list[str] = []
            entries = []
            for t in tables:
                values = t.values.get(row.key)
                if values is None or all(v is None for v in values):
                    continue
                tier_col = t.view.tiered_column
                info = t.tiers.get(tier_col, {}).get(row.key) if tier_col is not None else None
                cells: dict[str, CellDisplay] = {}
                for i in _compact_columns(t.view):
                    c, v = t.view.columns[i], values[i]
                    if c.label not in labels:
                        labels.append(c.label)
                    css = TIER_CSS.get(info.tier, "") if info and i == tier_col else ""
                    cells[c.label] = CellDisplay(text=score_text(v, c.signed),
                                                 value=sort_value(v), css=css,
                                                 title=c.help if v is not None else "no score")
                if info is not None:
                    tier = info.tier
                else:
                    tier = "not tested" if tier_col is None else "–"
                p_adj = info.p_adjusted if info else None
                entries.append({
                    "href": f"{relative(page_path, page.path)}#{t.view.anchor}",
                    "label": t.view.label, "title": t.view.title, "cells": cells,
                    "tier": tier, "tier_title": tier_title(info), "p_value": sort_value(p_adj),
                    "p_text": "–" if p_adj is None else f"{p_adj:.3g}"})
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
        ("metadata.yaml", "the model and how its runs were made"),
        (MANIFEST_NAME, "every run file by SHA-256 and size")) if (sub.folder / rel).is_file()]
    registry = all_tasks()
    by_benchmark: dict[str, list[tuple[str, ListedFile]]] = {}
    for rel, entry in run_files(sub.folder).items():
        task_id = rel[len("runs/"):].rpartition("/")[0]
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


def _table_context(table: ViewTable, page: str, wide: bool = False) -> dict:
    """What the table macro needs; ``wide`` adds provenance, size and instruction columns."""
    rows = display_rows(table, page)
    return {"t": table, "view": table.view, "rows": rows, "wide": wide,
            "body": rows_html(rows, wide), "empty": empty_reason(table.view),
            "submit": relative(page, "submit.md"),
            "csv": relative(page, f"{DOWNLOADS}/{table.view.anchor}.csv"),
            "json": relative(page, f"{DOWNLOADS}/{table.view.anchor}.json")}


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
    in after indexing, see :mod:`leaderboard.site.mkdocs_hooks`): one per table, so a
    language, dataset or constraint type leads to its tab, and one per system without a
    page of its own (reported rows) and benchmark page, which opens the page with the
    name filter set to it and the first table holding it on screen. Locations must be
    unique: Material's search keys results by them."""
    entries: list[dict[str, str]] = []
    for page in pages:
        html = page.path[:-3] + ".html"
        for view in page.views:
            entries.append(search_doc(f"{html}#{view.anchor}", view.title,
                                      f"{page.title}: {view.title}. {view.note}".strip()))
        found: dict[str, list[str]] = {}
        sources: dict[str, set[str]] = {}
        for view in page.views:
            table = board.tables[view.id]
            for row in table.rows:
                if row.submission is not None:
                    continue  # its submission page is indexed already
                if all(v is None for v in table.values[row.key]):
                    continue
                found.setdefault(row.name, []).append(view.anchor)
                sources.setdefault(row.name, set()).add(source_text(row, full=False))
        for name, anchors in found.items():
            entries.append(search_doc(
                # No "#" here: Material keys a top-level result by its path alone.
                f"{html}?fb-name={quote(name, safe='')}&fb-view={anchors[0]}", name,
                f"{name} on {page.title} ({len(anchors)} table(s)): "
                + "; ".join(sorted(sources[name]))))
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
        listing = file_listing(sub, repo)
        write(path, "submission.md.j2", row=row, sub=sub, source=source_text(row),
              scores=submission_scores(row, path, views_by_page), listing=listing)
    write("submissions/index.md", "submissions.md.j2", rows=board.submissions,
          model_types=MODEL_TYPES)
    write("submit.md", "submit.md.j2", tasks=list(all_tasks().values()),
          examples=validator_examples(), sources=task_sources(), repo_url=repo.url,
          status_lines=STATUS_LINE)
    write("metrics.md", "metrics.md.j2")
    from leaderboard.site.explorer import write_explorer  # the explorer: its own module

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
        # explorer-links.js: verified cells link to the queries behind them (explorer).
        "extra_javascript": ["assets/leaderboard.js", "assets/explorer-links.js"],
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
