"""Rendering: a filled :class:`Board` -> a MkDocs docs tree (Markdown pages whose tables are
raw, escaped HTML), the downloads beside it, and the page contexts the templates read.

Every string that comes from a results or metadata file reaches a page only through
jinja2 with autoescape on, inside raw HTML blocks that Markdown leaves alone, so a model
named ``<script>`` is text. Links from metadata become anchors only for http(s) URLs.
What a table shows is :mod:`.table_display`'s; links to the repository :mod:`.repository`'s;
the downloads :mod:`.downloads`'; the search index :mod:`.search`'s; the MkDocs
configuration :mod:`.mkdocs_config`'s.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Collection
from pathlib import Path

import jinja2
from markupsafe import Markup

from leaderboard.benchmarks import declared, site_pages
from leaderboard.benchmarks.registry import all_tasks
from leaderboard.benchmarks.views import Page, Section
from leaderboard.core.display import score_text
from leaderboard.core.fileio import size_text
from leaderboard.core.measures import MEASURES
from leaderboard.core.report import Report, plural
from leaderboard.core.runs.parsing import parse_run
from leaderboard.core.tasks import corpus_depth_text
from leaderboard.publish.standings import TIER_LEADER, TIER_REPORTED, TIER_TIED, Row, ViewTable
from leaderboard.publish.site.board import Board
from leaderboard.publish.site.cost import efficiency_context
from leaderboard.publish.site.downloads import (DOWNLOADS, write_download_csv,
                                               write_download_json, write_downloads,
                                               write_results_parquet)
from leaderboard.publish.site.explorer import stamp_build, write_explorer, write_explorer_page
from leaderboard.publish.site.data_revisions import off_pin_page_note
from leaderboard.publish.site.format import (MODEL_SIZE_HELP, SUBMITTED_SIZE_HELP,
                                             instruction_text, params_reason, params_text,
                                             relative, safe_url, submitted_params_text)
from leaderboard.publish.site.mkdocs_hooks import SEARCH_EXTRA, fragment_path
from leaderboard.publish.site.overview import home_document, overview_context
from leaderboard.publish.site.repository import (RepositoryRef, file_listing, repository_ref,
                                                 submission_dates)
from leaderboard.publish.site.scripts import build_id, versioned
from leaderboard.publish.site.search import search_entries
from leaderboard.publish.site.printed_figures import PRINTED_MARK
from leaderboard.publish.site.figure_marks import mark_notes
from leaderboard.publish.site.table_display import (INTERVAL_MARK, INTERVAL_MARK_NOTE,
                                                    caption, display_rows,
                                                    empty_reason, reference_row,
                                                    rows_html, source_text,
                                                    submission_scores, test_text)
from leaderboard.publish.standings.lines import record_of
from leaderboard.publish.standings.long_form import long_records
from leaderboard.publish.standings.references import reference_at
from leaderboard.publish.stats.tiers import ALPHA
from leaderboard.publish.training import training_text
from leaderboard.submission.pull_request import STATUS_LINE

PACKAGE_DIR = Path(__file__).parent
TEMPLATES_DIR = PACKAGE_DIR / "templates"
ASSETS_DIR = PACKAGE_DIR / "assets"
MODEL_TYPES = ("sparse", "bi-encoder", "cross-encoder", "llm-reranker", "late-interaction",
               "other")


def nbhyphen(text: str) -> str:
    """Non-breaking hyphens, so a narrow header shows "p-MRR", never "p-" over "MRR"."""
    return text.replace("-", "\u2011")


def sentence(text: str) -> str:
    """``text`` with its first letter a capital and the rest as it is (Jinja's capitalize
    lowercases the rest: "PI-Indic" became "pi-indic")."""
    return text[:1].upper() + text[1:]


def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES_DIR)),
        autoescape=True,            # every template: .md pages carry raw HTML too
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters.update(params=params_text, nbhyphen=nbhyphen, sentence=sentence,
                       it=instruction_text, safe_url=safe_url, filesize=size_text,
                       params_reason=params_reason, plural=plural, versioned=versioned)
    env.globals.update(relative=relative, TIER_LEADER=TIER_LEADER, TIER_TIED=TIER_TIED,
                       SUBMITTED_SIZE_HELP=SUBMITTED_SIZE_HELP, MODEL_SIZE_HELP=MODEL_SIZE_HELP)
    return env


class Slots:
    """Collects a page's big tables; the page keeps a placeholder that
    :mod:`leaderboard.publish.site.mkdocs_hooks` fills after Markdown and search have run."""

    def __init__(self) -> None:
        self.items: list[str] = []

    def __call__(self, html: str) -> Markup:
        self.items.append(str(html))
        return Markup(f"<!-- fb-slot {len(self.items) - 1} -->")


UNTESTED_NOTE = ("Nothing in this table is tested, and it has no best verified row: no "
                 "verified submission has scores for it yet, and reported figures (papers, "
                 "MTEB's results) come without the per-query scores a test needs.")


OFF_PIN_UNTESTED_NOTE = ("Nothing in this table is tested, and it has no best verified row: "
                         "its verified rows were scored on another revision of the data "
                         "than the board's (the note under the table names it), and "
                         "reported figures come without the per-query scores a test needs.")


def table_context(table: ViewTable, page: str) -> dict:
    """What the table macro needs: the view's model lines as rows (and its no-skill
    reference row), its best verified row, its heatmap columns."""
    view = table.view
    rows = display_rows(table, page)
    reference = reference_row(table)
    # A table nothing in which is tested (no verified row yet) shows no "vs best verified"
    # column of "not tested" cells: a sentence above it says why.
    tested = any(t.tier != TIER_REPORTED
                 for t in table.tiers.get(view.tiered_column, {}).values())
    tiered = view.tiered_column if view.tiered_column in table.tiers and tested else None
    untested = ((OFF_PIN_UNTESTED_NOTE if table.off_pin else UNTESTED_NOTE)
                if view.tiered_column is not None and rows and not tested else "")
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
        at = reference_at(view, table.lines, table.references)
        body_rows = rows[:at] + [reference] + rows[at:]
    test = test_text(table.tests.get(tiered), view.columns[tiered]) if tiered is not None \
        else ""
    notes = mark_notes(m for r in rows for c in r.cells for m in c.marks)
    return {"t": table, "view": view, "rows": rows, "tiered": tiered, "leader": leader,
            "test": test,
            "body": rows_html(body_rows, tiered), "empty": empty_reason(view),
            "heat": [c.id for c in view.columns if c.heat],
            "caption": caption(view) + (
                f" A cell marked {PRINTED_MARK} shows its source's own printed average "
                "instead, which is not that mean (the note under the table gives both)."
                if any(n.startswith(PRINTED_MARK) for n in notes) else ""),
            # what each mark a cell shows means (figure_marks.figure_marks), once each
            "mark_notes": notes,
            "interval_note": INTERVAL_MARK_NOTE
            if any(r.gap is not None and r.gap.text.endswith(INTERVAL_MARK) for r in rows)
            else "",
            "untested": untested, "alpha": ALPHA,
            "submit": relative(page, "submit.md"),
            "csv": relative(page, f"{DOWNLOADS}/{view.anchor}.csv"),
            "json": relative(page, f"{DOWNLOADS}/{view.anchor}.json")}


def section_context(section: Section, board: Board, page: str) -> dict:
    tables = [table_context(board.tables[v.id], page) for v in section.views]
    return {"section": section, "tables": tables,
            "charted": [tc for tc in tables if tc["rows"]]}


def render_docs(board: Board, docs: Path, repo: RepositoryRef | None = None, *,
                reference_ids: Collection[str]) -> str:
    """Write every page and download under ``docs``; return the build's id, which every
    page names the scripts, stylesheets and explorer files it loads and the downloads it
    offers with (:func:`leaderboard.publish.site.scripts.build_id`). Submission
    files are linked to the repository at ``repo`` (by default the checkout holding the
    first submission, else the default branch), never copied into the site.
    ``reference_ids``: the reference models' ids (``reference_models/models.yaml``, which
    the command reads), whose submissions `leaderboard baselines run` writes, counting
    the parameters in the weights it loads; no one else's pull request may use one (`ci
    pr-check`), so a submission page calls their figure counted, any other declared."""
    env = environment()
    (docs / DOWNLOADS).mkdir(parents=True, exist_ok=True)
    (docs / "assets").mkdir(exist_ok=True)
    for asset in sorted(ASSETS_DIR.iterdir()):
        if asset.is_file():
            shutil.copyfile(asset, docs / "assets" / asset.name)
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

    long: list[dict[str, object]] = []
    for table in board.tables.values():
        long += write_downloads(table, docs / DOWNLOADS)

    overview = overview_context(board, "index.md",
                                relative("index.md", "submissions/x.md")[: -len("x.html")])
    # The home table's downloads hold exactly the table under which they are offered.
    header, records, doc = home_document(overview["overview"])
    write_download_csv(docs / DOWNLOADS / "home.csv", header, records)
    write_download_json(docs / DOWNLOADS / "home.json", doc)
    long += long_records(doc["view"]["id"], [c["id"] for c in doc["view"]["columns"]],
                         records)
    write_results_parquet(long, docs / DOWNLOADS)
    explorer_warnings = write_explorer(board, docs)
    # Every file a page loads or offers is written: the build's id names them all
    # (templates: ``url|versioned(build)``).
    build = build_id(docs)
    stamp_build(docs, build)
    env.globals["build"] = build
    write("index.md", "home.md.j2", model_types=MODEL_TYPES, overview=overview)
    pages: tuple[Page, ...] = site_pages()
    for page in pages:
        write(page.path, "benchmark.md.j2", page=page, model_types=MODEL_TYPES,
              sections=[section_context(s, board, page.path) for s in page.sections])

    views_by_page = [(page, [(s, [board.tables[v.id] for v in s.views]) for s in page.sections])
                     for page in pages]
    dates, no_dates = submission_dates(repo, [r.submission for r in board.submissions
                                              if r.submission is not None
                                              and not r.submission.date])
    if no_dates:
        board.warnings.append(no_dates)
    for row in board.submissions:
        sub = row.submission
        assert sub is not None
        path = f"submissions/{sub.slug}.md"
        listing = file_listing(sub, repo)
        write(path, "submission.md.j2", row=row, sub=sub, source=source_text(row),
              scores=submission_scores(row, path, views_by_page), listing=listing,
              training=training_text(record_of(row)), cost=efficiency_context(sub.efficiency),
              params_reason=params_reason(row.system.model.parameters, row.system.model.type),
              parameters=submission_params(row, reference_ids),
              date=sub.date or dates.get(sub.id), off_pin=off_pin_page_note(sub.off_pin))
    write("submissions/index.md", "submissions.md.j2", rows=board.submissions,
          model_types=MODEL_TYPES, dates=dates)
    write("submit.md", "submit.md.j2", tasks=list(all_tasks().values()),
          examples=validator_examples(), sources=task_sources(), repo_url=repo.url,
          status_lines=STATUS_LINE, corpus_depth=corpus_depth_text())
    write("metrics.md", "metrics.md.j2", measures=list(MEASURES.values()), alpha=ALPHA)
    board.warnings += explorer_warnings
    write_explorer_page(write, build)
    extra = docs / SEARCH_EXTRA
    extra.parent.mkdir(parents=True, exist_ok=True)
    extra.write_text(json.dumps(search_entries(board, pages), ensure_ascii=False),
                     encoding="utf-8")
    return build


def submission_params(row: Row, reference_ids: Collection[str]) -> str:
    """A submission page's parameter count and what kind of figure it is
    (:func:`.format.submitted_params_text`): the row's model facts are its model record's
    when the registry lists the model, else the submission's own."""
    sub = row.submission
    assert sub is not None
    record = record_of(row)
    model = row.system.model
    return submitted_params_text(model.parameters, sub.parameters, model.type,
                                 counted=sub.id in reference_ids,
                                 registry=None if record.derived else record.name)


def task_sources() -> list[dict[str, object]]:
    """The How-to-submit page's table of tasks, a row per row the benchmark declarations
    give (:class:`leaderboard.benchmarks.declaration.GuideRow`), each with the pinned
    upstream sources of the tasks it covers."""
    tasks = list(all_tasks().values())
    out: list[dict[str, object]] = []
    for benchmark in declared():
        for row in benchmark.guide:
            sources: dict[str, str] = {}
            for task in tasks:
                if task.id.startswith(row.task_prefixes):
                    src = task.source
                    base = ("https://huggingface.co/datasets/" if src.host == "huggingface"
                            else "https://github.com/")
                    sources.setdefault(f"{src.repo}@{src.revision}",
                                       f"{base}{src.repo}/tree/{src.revision}")
            out.append({"benchmark": row.title, "pull": row.pull,
                        "sources": list(sources.items()), "queries": row.queries,
                        "corpus": row.corpus, "depth": row.depth})
    return out


def validator_examples() -> list[tuple[str, str]]:
    """Real validator messages for a few broken lines, produced by the validator itself so
    the documentation cannot drift from what it prints."""
    cases = [
        ("score is not a number", b"q1 Q0 d1 1 12.5 bm25\nq1 Q0 d2 2 abc bm25\n"),
        ("a column is missing", b"q1 Q0 d1 1 12.5 bm25\nq1 Q0 d2 2 bm25\n"),
        ("rank is not an integer", b"q1 Q0 d1 first 12.5 bm25\n"),
        ("a header line", b"qid Q0 docid rank score tag\nq1 Q0 d1 1 12.5 bm25\n"),
    ]
    out = []
    for label, data in cases:
        report = Report()
        parse_run(data, "runs/followtable/wtr/altered.trec", report)
        out += [(label, line) for line in report.lines()[:1]]
    return out
