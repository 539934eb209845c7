"""The site's per-query explorer: one static page (``explore.html``) and the small files
its script reads.

The explorer shows a verified submission's queries on a task (the query list), one
query's card, two submissions side by side (compare mode) and a heatmap of queries x
submissions. Its figures come from each submission's explanation files, which scoring
writes and the run store keeps beside the runs (:mod:`leaderboard.submission.explain_files`).
Where the browser fetches them from follows from the configured run store
(:func:`leaderboard.submission.explain_files.browser_base`): from a Hugging Face dataset (the
``resolve`` URL at the commit the submission's manifest names) or an HTTPS store, so the
site's size does not grow with the number of submissions beyond the few bytes of the
index below; only files in a folder store (the repository itself for small deployments
and the quickstart site) are copied into the site, each verified first. Either way the
build reads each submission's explanation manifest through the store, verified against
the size and SHA-256 its results.json names.

What the build writes under ``explore/``:

* ``index.json``: the build's id (:func:`stamp_build`), every verified submission (name, type, page, where its explanation
  files are, whether it has any), every task (title, primary metric, heatmap family and
  how the heatmap groups its rows, the languages of its queries and of its documents as
  BCP 47 tags, which the page marks their texts with), each of those tags' script
  direction (which texts are cut, and where, the text parts say:
  :func:`leaderboard.core.explain.text_record`), the heatmap families with their
  submissions in the order of the family's table on the board (best first on the mean
  of the family's task figures, the best verified first of the rows tied with it; then,
  unranked and marked so, those scored on another data revision than the pin, and last
  those without a figure on every task of the family: :func:`heatmap_columns`) and the start page's line each is on, and what each metric
  key is (label, help, sign, range), from the measure catalogue
  (:mod:`leaderboard.core.measures`);
* ``tasks/<task id>.json``: the build's id, the verified submissions that have the task
  (by position in the index), best first on its primary metric (the compare picker), each entry's
  fields named in the file (:data:`TASK_FILE_FIELDS`);
* ``data/<submission>/...`` and ``texts/<sha256>.json.gz``: the copied explanation files
  (folder store only), each text part once for the whole site;
* its script, joined from the explorer's parts (:mod:`leaderboard.publish.site.scripts`),
  and then its page (:func:`write_explorer_page`), which names the build's id.

The script (``assets/explorer/``) checks each of these files, and each explanation file,
against its format before it reads it, and reads rows by the field names here and in
:mod:`leaderboard.core.explain`.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from leaderboard.benchmarks.followtable_views import FOLLOWTABLE_CONSTRAINT_NAMES
from leaderboard.benchmarks.views import Column, View, column
from leaderboard.core.display import score_text
from leaderboard.core.languages import LANGUAGES
from leaderboard.core.measures import measure_of, query_help, query_label
from leaderboard.submission.explain_files import (
    MANIFEST,
    TEXTS_DIR,
    ExplainFilesError,
    browser_base,
    read_stored_manifest,
    stored_refs,
)
from leaderboard.benchmarks.registry import all_tasks
from leaderboard.core.tasks import Task
from leaderboard.publish.site.board import Board
from leaderboard.publish.site.scripts import (
    EXPLORER_PAGE_SCRIPTS,
    versioned,
    write_explorer_script,
)
from leaderboard.publish.standings import Row, ViewTable, column_value, tested_order
from leaderboard.publish.standings.tables import off_pin_of
from leaderboard.store.files import StoreError
from leaderboard.submission.files import SubmissionFiles, submission_files
from leaderboard.submission.layout import EXPLAIN_DIR
from leaderboard.submission.results import ExplainManifestFile, off_pin_revisions

EXPLORER_PAGE = "explore.md"
DATA = "explore"
# The script checks it (assets/explorer/records.js INDEX_FORMAT): bump both when the index
# changes.
INDEX_FORMAT = "followboard-explorer/9"
# What each entry of a task file holds, named in the file ("fields"), read by name
# (assets/explorer/records.js): the submission's position in the index's "order", its
# figure on the task's primary metric, and 1 when it has explanation files for the task.
TASK_FILE_FIELDS = ("submission", "primary", "explained")


@dataclass(frozen=True)
class Family:
    """Tasks one heatmap shows together, and how it groups their queries."""

    id: str
    title: str
    group_by: str      # "constraint": by each query's constraint type; else by task
    tasks: tuple[str, ...]
    # The explorer's start page lists families one line each, except a cross-lingual
    # task's, one family per query language: those share a line titled ``line``, each
    # named there by its ``part`` ("from Hindi"). None: the family is a line of its own.
    line: str | None = None
    part: str | None = None


def family_key(task: Task) -> tuple[str, str]:
    """(family id, what the heatmap groups by) of a task: FollowTable datasets on their
    own, grouped by constraint type; FollowIR's collections together; mFollowIR's and
    each PI-Indic task's languages together (a cross-lingual PI-Indic task with the
    other target languages of its query language), grouped by language."""
    if task.group_by:
        return task.id, "constraint"
    views = task.views
    if "pi_task" in views:
        key = f"{task.benchmark}/{views['pi_task']}"
        if views.get("setting"):
            key += f"/{views['setting']}"
        if views.get("setting") == "cross-lingual":
            key += f"/{views['language']}"
        return key, "language"
    return task.benchmark, "collection" if "collection" in views else "language"


def _common_words(titles: list[str]) -> int:
    words = [t.split() for t in titles]
    n = 0
    while all(len(w) > n + 1 for w in words) and len({w[n] for w in words}) == 1:
        n += 1
    return n


def _named(tasks: list[Task]) -> tuple[str, list[str]]:
    """A family's title and each task's short name in it. Titles with a comma
    ("PI-Indic val150 T1 ..., Hindi") name the family before it and the task after it;
    others ("FollowIR Core17") share their first words."""
    titles = [t.title for t in tasks]
    heads = {t.partition(",")[0].strip() for t in titles}
    if len(heads) == 1 and all("," in t for t in titles):
        return heads.pop(), [t.partition(",")[2].strip() for t in titles]
    if len(titles) == 1:
        return titles[0], titles
    n = _common_words(titles)
    return " ".join(titles[0].split()[:n]), [" ".join(t.split()[n:]) for t in titles]


def families(tasks: list[Task]) -> dict[str, Family]:
    members: dict[str, list[Task]] = {}
    kinds: dict[str, str] = {}
    for task in tasks:
        key, kind = family_key(task)
        members.setdefault(key, []).append(task)
        kinds[key] = kind
    out = {}
    for key, ts in members.items():
        title, _ = _named(ts)
        ids = tuple(t.id for t in ts)
        if "/cross-lingual/" in key:
            part = f"from {_language(ts[0])}"
            out[key] = Family(key, f"{title} {part}", kinds[key], ids, line=title, part=part)
        else:
            out[key] = Family(key, title, kinds[key], ids)
    return out


def _language(task: Task) -> str:
    """The query language's name, from a cross-lingual title "..., Hindi to Tamil"."""
    tail = task.title.rsplit(",", 1)[-1].strip()
    return tail.split(" to ")[0] if " to " in tail else task.views.get("language", "")


def task_labels(family: Family, registry: dict[str, Task]) -> dict[str, str]:
    """Each task's short name inside its family: "Hindi", "to Tamil", "Core17"."""
    _, labels = _named([registry[t] for t in family.tasks])
    if "/cross-lingual/" in family.id:  # "Hindi to Tamil" in a family "from Hindi"
        labels = [f"to {label.split(' to ', 1)[-1]}" for label in labels]
    return dict(zip(family.tasks, labels))


def metric_facts(key: str) -> dict[str, object]:
    """What the explorer shows of a per-query metric key: its label and help, which way
    is better (the catalogue's direction: what "worst first" means, and the order a list
    sorted by it starts in), whether it is signed (shown with +, negative coloured, drawn
    diverging) and its range."""
    measure = measure_of(key)
    return {"label": query_label(key), "help": query_help(key),
            "direction": measure.direction, "signed": measure.signed,
            "low": measure.low, "high": measure.high}


def family_column(family: Family, registry: dict[str, Task]) -> Column:
    """The family's tasks' primary metrics, averaged: the column its heatmap ranks by."""
    tasks = [registry[t] for t in family.tasks]
    return replace(column(family.tasks, tasks[0].primary_metric, tasks[0].primary_metric),
                   task_metrics=tuple(t.primary_metric for t in tasks))


def family_view(family: Family, registry: dict[str, Task], views: Iterable[View]
                ) -> View | None:
    """The view of ``views`` whose tested sort column averages what the family's column
    does (:func:`family_column`): the table whose order and tiers its heatmap follows
    (None: no view has it; every family of the registry has one)."""
    parts = set(family_column(family, registry).parts)
    for view in views:
        col = view.columns[view.sort_column]
        if (view.tiered_column == view.sort_column and col.group is None
                and col.average == "all" and set(col.parts) == parts):
            return view
    return None


def family_off_pin(family: Family, registry: dict[str, Task], row: Row) -> dict[str, str]:
    """Task -> recorded data revision of the family's tasks ``row`` was scored on another
    revision of than the registry pins (:func:`leaderboard.publish.standings.tables.off_pin_of`
    on the family's column): where it has any, the family's table gives it no rank."""
    return off_pin_of(row, family_column(family, registry))


def ranked_submissions(family: Family, registry: dict[str, Task], rows: list[Row],
                       tables: Mapping[str, ViewTable]) -> list[Row]:
    """``rows`` (verified submissions) in the order the board's table of the family
    shows them (:func:`family_view`, with that table's tiers,
    :func:`leaderboard.publish.standings.tested_order`): best first on the mean of their
    task figures (one task's figure for a one-task family), the best verified first of
    the rows tied with it; then those scored on another data revision than the pin for
    one of the family's tasks (:func:`family_off_pin`), not ranked, by their own figure;
    a submission without every task last. A family no table shows is ordered as an
    untested table would be, by value alone."""
    view = family_view(family, registry, (t.view for t in tables.values()))
    tiers = tables[view.id].tiers.get(view.sort_column, {}) if view is not None else {}
    by_key = {r.key: r for r in rows}
    off_pin = {r.key for r in rows if family_off_pin(family, registry, r)}
    _, order = tested_order({key: r.system for key, r in by_key.items()},
                            family_column(family, registry), tiers, off_pin)
    return [by_key[key] for key in order]


def heatmap_columns(family: Family, registry: dict[str, Task], rows: list[Row],
                    tables: Mapping[str, ViewTable], position: Mapping[str, int]
                    ) -> dict[str, list]:
    """The family's heatmap columns as the index gives them: ``rows`` (the submissions
    with explanation files on some of its tasks), by their ``position`` (row key ->
    position in the index's "order"), in the tables' order (:func:`ranked_submissions`),
    and, for those the family's table gives no rank for being scored on another data
    revision than the pin (:func:`family_off_pin`), each position with the revision it
    was scored on (``off_pin_revisions``), and those without a figure on every task of
    the family (no mean: the table shows – and gives them no rank; last), which the
    heatmap marks so."""
    order = ranked_submissions(family, registry, rows, tables)
    mean = family_column(family, registry)
    return {"columns": [position[r.key] for r in order],
            "unranked": [{"submission": position[r.key], "scored_on": off_pin_revisions(moved)}
                         for r in order if (moved := family_off_pin(family, registry, r))],
            "unscored": [position[r.key] for r in order
                         if column_value(r.system, mean).value is None]}


def text_languages(task: Task) -> dict[str, str]:
    """The BCP 47 tags of the languages a task's texts are in, as the explorer marks them
    (``lang``): its queries' (a T4 persona's) and its documents' (T4: the instructions
    paired with it), from the task's declaration."""
    return {"query": LANGUAGES[task.query_language].tag,
            "docs": LANGUAGES[task.doc_language].tag}


def text_directions(tasks: list[Task]) -> dict[str, str]:
    """{BCP 47 tag: "ltr" or "rtl"} of every language of ``tasks``' texts: the ``dir``
    the explorer gives a text in it (right to left for Persian and Urdu)."""
    codes = dict.fromkeys(c for t in tasks for c in (t.query_language, t.doc_language))
    return {LANGUAGES[c].tag: LANGUAGES[c].direction for c in codes}


def picker_value(value: float) -> float:
    """A task file's figure: 6 decimals, unless rounding to them would change what the
    display rule prints (a value just under a half-way point such as 0.12349996, which
    6 decimals would carry up to 0.1235, printed 12.4 where the tables print 12.3)."""
    short = round(value, 6)
    return short if score_text(short) == score_text(value) else value


def _task_file(task_id: str) -> str:
    return f"{DATA}/tasks/{task_id}.json"


def _dump(path: Path, doc: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, ensure_ascii=False, allow_nan=False,
                               separators=(",", ":")), encoding="utf-8")


def _copy_explanations(files: SubmissionFiles, named: ExplainManifestFile, manifest: dict,
                       docs: Path, slug: str, copied_texts: set[str]) -> int:
    """Copy a submission's explanation files into the docs tree (folder store): its
    task files under ``explore/data/<slug>/``, each text part once for the whole site.
    Every file is located and verified against the manifest first (the manifest itself
    against results.json), and none is copied unless all are good. Returns the bytes
    copied; raises :class:`StoreError` naming the submission and the file."""
    refs = stored_refs(manifest)
    found = files.locate_all(refs)
    for ref in refs:
        if isinstance(found[ref.path], StoreError):
            raise found[ref.path]  # type: ignore[misc]
    target = docs / DATA / "data" / slug
    total = 0
    for ref in refs:
        rel = ref.path[len(EXPLAIN_DIR) + 1:]
        src: Path = found[ref.path]  # type: ignore[assignment]
        if rel.startswith(f"{TEXTS_DIR}/"):
            if rel in copied_texts:
                continue
            copied_texts.add(rel)
            dst = docs / DATA / rel
        else:
            dst = target / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dst)
        total += src.stat().st_size
    target.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(files.locate(named.ref()), target / MANIFEST)
    return total


def _explanations(folder: Path, named: ExplainManifestFile | None, docs: Path,
                  slug: str, copied_texts: set[str]) -> tuple[str | None, bool, set[str]]:
    """Where the browser finds a submission's explanation files (relative to the site,
    or a store URL), whether they were copied into the site, and the tasks they cover;
    (None, False, no tasks) when it has none. Raises :class:`StoreError` or
    :class:`ExplainFilesError` naming the file."""
    if named is None:
        return None, False, set()
    files = submission_files(folder)
    manifest = read_stored_manifest(files, named)
    remote = browser_base(files)
    if remote is None:
        _copy_explanations(files, named, manifest, docs, slug, copied_texts)
        return f"{DATA}/data/{slug}/", True, set(manifest["tasks"])
    return remote, False, set(manifest["tasks"])


def write_explorer(board: Board, docs: Path) -> list[str]:
    """Write the explorer's files into the docs tree (its page is
    :func:`write_explorer_page`'s, once the build's id is known); returns warnings
    (submissions whose explanation files could not be read)."""
    registry = all_tasks()
    warnings: list[str] = []
    fams = families(list(registry.values()))
    labels: dict[str, str] = {}
    for fam in fams.values():
        labels.update(task_labels(fam, registry))
    per_task: dict[str, list[tuple[float | None, str, bool]]] = {}
    submissions: dict[str, dict[str, object]] = {}
    # The submissions with explanation files, the tasks they cover and their page names.
    explained_by: list[tuple[Row, set[str]]] = []
    slugs: dict[str, str] = {}
    copied_texts: set[str] = set()
    for row in board.submissions:
        sub = row.submission
        assert sub is not None
        try:
            base, copied, explained = _explanations(sub.folder, sub.explain_manifest, docs,
                                                    sub.slug, copied_texts)
        except (StoreError, ExplainFilesError, OSError) as exc:
            warnings.append(f"explorer: {exc}; {sub.id} is shown without its explanation "
                            "files")
            base, copied, explained = None, False, set()
        tasks = {tid: scores for tid, scores in row.system.tasks.items() if tid in registry}
        if base is not None and explained:
            explained_by.append((row, explained))
            slugs[row.key] = sub.slug
        for tid, scores in tasks.items():
            primary = scores.metrics.get(registry[tid].primary_metric)
            per_task.setdefault(tid, []).append((primary, sub.slug, tid in explained))
        submissions[sub.slug] = {
            "id": sub.id, "name": row.name, "type": row.system.model.type,
            "page": f"submissions/{sub.slug}.html",
            # Where the browser fetches the files (relative to the explorer page, or a
            # store URL), and whether there are any: scored before the explorer existed,
            # a submission has per-query scores but no explanation files. Text parts
            # copied into the site are shared by every submission (``texts``); a store's
            # are in each submission's own folder there.
            "base": base if explained else None,
            "texts": f"{DATA}/{TEXTS_DIR}/" if copied and copied_texts else None,
            "tasks": len(tasks), "explained": len(explained),
        }
    # A task file names submissions by their position in the index, with the primary
    # metric to 6 decimals (it labels the compare picker; the figures shown come from the
    # explanation files): 1,000 submissions on 313 tasks are 5 MB of these files instead
    # of 10.
    position = {slug: i for i, slug in enumerate(submissions)}
    explained_at = {row.key: position[slugs[row.key]] for row, _ in explained_by}
    for tid, entries in per_task.items():
        # Best first on the task's primary metric; a missing figure last.
        entries.sort(key=lambda e: (e[0] is None, -(e[0] or 0.0), e[1]))
        _dump(docs / _task_file(tid), {
            "task": tid, "fields": list(TASK_FILE_FIELDS), "submissions": [
                [position[slug], None if value is None else picker_value(value), int(has)]
                for value, slug, has in entries]})
    shown = {tid: t for tid, t in registry.items() if tid in per_task}
    index = {
        "format": INDEX_FORMAT,
        "texts": f"{DATA}/texts/" if copied_texts else None,
        # Every metric key of the tasks below: label, help, direction, sign and range.
        "metrics": {key: metric_facts(key) for key in dict.fromkeys(
            k for t in shown.values() for k in t.metric_keys())},
        "submissions": submissions,
        # Task files name submissions by position here (a list: a JSON object's keys that
        # look like numbers, "2024", would not keep their order in JavaScript).
        "order": list(submissions),
        "tasks": {tid: {"title": t.title, "label": labels.get(tid, t.title),
                        "benchmark": t.benchmark, "primary": t.primary_metric,
                        "family": family_key(t)[0], "file": _task_file(tid),
                        "licence": t.source.licence, "lang": text_languages(t)}
                  for tid, t in shown.items()},
        # The script direction of each language tag of "lang" above.
        "directions": text_directions(list(shown.values())),
        # FollowTable's constraint types by name (C1 semantic boundary, ...).
        "group_names": dict(FOLLOWTABLE_CONSTRAINT_NAMES),
        # "columns": the submissions with explanation files on some of the family's
        # tasks (by position in "order"), in the tables' order: the heatmap's columns;
        # "unranked": those of them its table gives no rank, scored on another data
        # revision than the pin ({"submission": position, "scored_on": revision});
        # "unscored": those without a figure on every task of the family (positions),
        # which its table gives no mean and no rank.
        # "line" and "part": the start page's line the family is on and its link there.
        "families": {f.id: {"title": f.title, "line": f.line or f.title, "part": f.part,
                            "group_by": f.group_by,
                            "tasks": [t for t in f.tasks if t in per_task],
                            **heatmap_columns(f, registry, [row for row, tids in explained_by
                                                            if tids & set(f.tasks)],
                                              board.tables, explained_at)}
                     for f in fams.values() if any(t in per_task for t in f.tasks)},
    }
    _dump(docs / DATA / "index.json", index)
    write_explorer_script(docs)
    return warnings


def stamp_build(docs: Path, build: str) -> None:
    """Name the build's id (:func:`.scripts.build_id`, a hash of the files as
    :func:`write_explorer` wrote them) in the index and every task file (``"build"``). A tab
    left open across a deploy, or a cached page, asks for ``?v=<its build>``, which GitHub
    Pages ignores: the script holds each of these files to its own build before reading
    its format, and tells the reader the site was updated since the page was loaded
    (assets/explorer/records.js otherBuild) rather than that the files are of another
    format."""
    index_path = docs / DATA / "index.json"
    index = json.loads(index_path.read_text(encoding="utf-8"))
    _dump(index_path, {**index, "build": build})
    for task in index["tasks"].values():
        path = docs / task["file"]
        _dump(path, {**json.loads(path.read_text(encoding="utf-8")), "build": build})


def write_explorer_page(write: Callable[..., None], build: str) -> None:
    """The explorer's page, once its files are written: its scripts and the files its
    script fetches named with the build's id (:func:`.scripts.build_id`)."""
    write(EXPLORER_PAGE, "explore.md.j2", index_url=f"{DATA}/index.json", build=build,
          scripts=[versioned(src, build) for src in EXPLORER_PAGE_SCRIPTS])
