"""Data assembly: results files -> rows -> filled view tables with significance tiers.

Inputs are the repository's results, validated by :func:`leaderboard.results.read_results`:

* ``submissions/<id>/results.json``: one verified system with per-query scores, beside
  its ``metadata.yaml`` and ``runs/<task id>/<role>.trec[.gz]``;
* ``results/reported/*.json``: reported rows (papers, MTEB's results repository), with
  their source and no per-query scores.

Tiers: a view's tiered column is tested on per-query scores of verified systems only
(:func:`leaderboard.stats.tier_view`); reported rows get the tier "reported". An average
view pools the per-query scores of its tasks, each query id prefixed with its task id, so
the test sees every query of every collection once (a system needs all the tasks). When
the tasks ask the same queries (PI-Indic's languages: translations of the same 150 pairs),
each query is instead averaged over the tasks and tested once (:func:`pool_queries`).
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from leaderboard.models import canonical_system
from leaderboard.registry import all_tasks
from leaderboard.report import Report
from leaderboard.results import ResultsFileError, SystemResult, read_results
from leaderboard.site.layout import (
    HOME_COLUMNS,
    REPORTED_ONLY_PREFIXES,
    Column,
    View,
    all_views,
    site_pages,
)

TIER_LEADER = "leader"
TIER_TIED = "tied with leader"
TIER_BELOW = "below leader"
TIER_REPORTED = "reported"


class SiteDataError(ValueError):
    """A results or metadata file the site cannot use; the message names the file."""


@dataclass
class SubmissionInfo:
    """What the site shows about a verified submission beyond its scores."""

    id: str                       # folder name
    slug: str                     # file-name-safe form of the id, used in URLs
    folder: Path
    results_path: Path
    produced_by_scorer: dict[str, str]
    contact: str | None = None
    produced_by: str | None = None
    date: str | None = None
    hardware: str | None = None
    metadata_problems: list[str] = field(default_factory=list)
    # Paths relative to the folder: metadata.yaml and every run/prediction file.
    files: list[str] = field(default_factory=list)


@dataclass
class Row:
    key: str                      # unique across the site
    system: SystemResult
    origin: Path                  # results file the row comes from
    submission: SubmissionInfo | None = None
    # sha256 of the results file: keys the significance cache without rehashing scores
    digest: str = ""

    @property
    def name(self) -> str:
        return self.system.model.name

    @property
    def verified(self) -> bool:
        return self.system.provenance == "verified"


@dataclass(frozen=True)
class TierInfo:
    tier: str
    p_value: float | None = None
    p_adjusted: float | None = None
    effect: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None


@dataclass
class ViewTable:
    view: View
    rows: list[Row]                                   # default order
    values: dict[str, list[float | None]]             # row key -> value per column
    # column index -> row key -> tier; only tested columns have entries
    tiers: dict[int, dict[str, TierInfo]] = field(default_factory=dict)
    # Average-view cells with the "available" policy: how many tasks were averaged.
    counts: dict[str, list[int]] = field(default_factory=dict)
    tier_note: str = ""

    def rank_of(self) -> dict[str, int | None]:
        """1-based position in the default order; rows without a sort value get None."""
        col = self.view.sort_column
        ranks: dict[str, int | None] = {}
        n = 0
        for row in self.rows:
            if self.values[row.key][col] is None:
                ranks[row.key] = None
            else:
                n += 1
                ranks[row.key] = n
        return ranks


@dataclass
class Board:
    rows: list[Row]
    tables: dict[str, ViewTable]
    home: ViewTable
    warnings: list[str]

    @property
    def submissions(self) -> list[Row]:
        return [r for r in self.rows if r.submission is not None]


# --------------------------------------------------------------------------- loading

_SLUG_BAD = re.compile(r"[^A-Za-z0-9._-]+")


def slug_of(text: str) -> str:
    """File-name and URL-safe form of an id (ids are validated upstream; this is defence)."""
    slug = _SLUG_BAD.sub("-", text).strip("-.") or "submission"
    return slug[:80]


def _file_digest(path: Path) -> str:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError as exc:
        raise SiteDataError(f"{path}: cannot read: {exc.strerror}") from None


def _load_submission(folder: Path, warnings: list[str]) -> tuple[SystemResult, SubmissionInfo] | None:
    results_path = folder / "results.json"
    if not results_path.is_file():
        warnings.append(f"{folder}: no results.json (not scored yet); not shown")
        return None
    try:
        results = read_results(results_path)
    except ResultsFileError as exc:
        raise SiteDataError(str(exc)) from None
    if results.kind != "submission" or len(results.systems) != 1:
        raise SiteDataError(f"{results_path}: a submission's results file must have kind "
                            f"'submission' and exactly one system (has kind {results.kind!r}, "
                            f"{len(results.systems)} systems)")
    system = results.systems[0]
    if system.provenance != "verified":
        raise SiteDataError(f"{results_path}: systems under submissions/ must have provenance "
                            f"'verified', not {system.provenance!r}")
    info = SubmissionInfo(id=folder.name, slug=slug_of(folder.name), folder=folder,
                          results_path=results_path, produced_by_scorer=results.produced_by)
    _read_metadata(folder, info)
    files = ["metadata.yaml"] if (folder / "metadata.yaml").is_file() else []
    runs = folder / "runs"
    if runs.is_dir():
        files += sorted(p.relative_to(folder).as_posix() for p in runs.rglob("*")
                        if p.is_file() and not p.is_symlink())
    info.files = files
    return system, info


def _read_metadata(folder: Path, info: SubmissionInfo) -> None:
    """Contact and provenance text from metadata.yaml; problems are shown, not fatal, since
    the scores themselves come from results.json."""
    from leaderboard.submissions import load_metadata

    report = Report()
    meta = load_metadata(folder / "metadata.yaml", f"{folder.name}/metadata.yaml", report)
    info.metadata_problems = report.lines()
    if meta is not None:
        info.contact = meta.contact
        info.produced_by = meta.produced_by
        info.date = meta.date
        info.hardware = meta.hardware


def load_rows(results_root: Path) -> tuple[list[Row], list[str]]:
    """Every leaderboard row under ``results_root``, verified first, in a stable order."""
    if not results_root.is_dir():
        raise SiteDataError(f"{results_root}: results root is not a directory")
    warnings: list[str] = []
    rows: list[Row] = []
    used: set[str] = set()

    def unique(key: str) -> str:
        candidate, n = key, 1
        while candidate in used:
            n += 1
            candidate = f"{key}~{n}"
        used.add(candidate)
        return candidate

    sub_root = results_root / "submissions"
    if sub_root.is_dir():
        slugs: set[str] = set()
        for folder in sorted(p for p in sub_root.iterdir() if p.is_dir()):
            loaded = _load_submission(folder, warnings)
            if loaded is None:
                continue
            system, info = loaded
            system = canonical_system(system)  # one model, one identity on every page
            while info.slug in slugs:
                info.slug += "-"
            slugs.add(info.slug)
            rows.append(Row(key=unique(system.system_id), system=system,
                            origin=info.results_path, submission=info,
                            digest=_file_digest(info.results_path)))
    reported_root = results_root / "results" / "reported"
    if reported_root.is_dir():
        for path in sorted(reported_root.glob("*.json")):
            try:
                results = read_results(path)
            except ResultsFileError as exc:
                raise SiteDataError(str(exc)) from None
            digest = _file_digest(path)
            for system in results.systems:
                if system.provenance != "reported":
                    raise SiteDataError(f"{path}: system {system.system_id!r} has provenance "
                                        f"{system.provenance!r}; rows under results/reported/ "
                                        "must be 'reported'")
                rows.append(Row(key=unique(system.system_id), system=canonical_system(system),
                                origin=path, digest=digest))
    known = set(all_tasks())
    unknown: dict[Path, set[str]] = {}
    for row in rows:
        for t in row.system.tasks:
            if t not in known and not t.startswith(REPORTED_ONLY_PREFIXES):
                unknown.setdefault(row.origin, set()).add(t)
    for origin, tasks in unknown.items():
        names = sorted(tasks)
        warnings.append(f"{origin}: tasks not in the registry are not shown: "
                        f"{', '.join(names[:5])}" + (" ..." if len(names) > 5 else ""))
    return rows, warnings


# --------------------------------------------------------------------------- values

def cell_value(row: Row, column: Column) -> tuple[float | None, int]:
    """The column's value for a row and how many tasks it averages (None: no value)."""
    tasks = row.system.tasks
    for task_id in column.prefer:
        scores = tasks.get(task_id)
        if scores is not None and column.metric in scores.metrics:
            return scores.metrics[column.metric], 0  # 0: the row's own published average
    values: list[float] = []
    group = column.group
    need_all = column.average == "all"
    for task_id, metric in column.parts:
        scores = tasks.get(task_id)
        value = None
        if scores is not None:
            value = (scores.groups.get(group, {}) if group else scores.metrics).get(metric)
        if value is None:
            if need_all:
                return None, 0
            continue
        values.append(value)
    if not values:
        return None, 0
    return math.fsum(values) / len(values), len(values)


def pool_queries(per_task: Sequence[tuple[str, Mapping[str, float]]],
                 shared_queries: bool) -> dict[str, float]:
    """One column's per-query scores from its tasks' ``(task id, {query id: score})``.

    One task: its scores as they are. Several tasks with their own queries (FollowIR's
    collections, FollowTable's datasets): every query of every task, its id prefixed with
    the task id. Several tasks asking the same queries (``shared_queries``, PI-Indic's
    languages): each query once, with the mean of its scores over the tasks that have it,
    so the test's unit is the query rather than its translations. When every task has
    every query (the real data) the mean of these means is the column's own value, the
    mean over tasks of each task's mean.
    """
    if len(per_task) == 1:
        return dict(per_task[0][1])
    if not shared_queries:
        return {f"{task_id}:{q}": v for task_id, scores in per_task for q, v in scores.items()}
    totals: dict[str, list[float]] = {}
    for _, scores in per_task:
        for q, v in scores.items():
            totals.setdefault(q, []).append(v)
    return {q: math.fsum(vs) / len(vs) for q, vs in totals.items()}


def pooled_per_query(row: Row, column: Column) -> dict[str, float] | None:
    """Per-query scores behind a column (:func:`pool_queries`), or None when a task lacks
    them."""
    parts = column.parts
    per_task: list[tuple[str, dict[str, float]]] = []
    for task_id, metric in parts:
        scores = row.system.tasks.get(task_id)
        per_query = scores.per_query.get(column.per_query_key or metric) if scores else None
        if not per_query:
            return None
        if column.group is not None:
            # A group column (FollowTable constraint type) tests the group's own queries.
            members = scores.group_members.get(column.group) if scores else None
            if not members:
                return None
            per_query = {q: per_query[q] for q in members if q in per_query}
        per_task.append((task_id, per_query))
    return pool_queries(per_task, column.shared_queries)


@cache
def _stats_fingerprint() -> bytes:
    """Hash of the significance code, so cached tiers expire when the tests change.

    Read from the source files without importing them (importing scipy takes seconds,
    which a build whose tiers are all cached should not pay)."""
    import importlib.util

    spec = importlib.util.find_spec("leaderboard.stats")
    folder = Path(next(iter(spec.submodule_search_locations or []))) if spec else None
    digest = hashlib.sha256()
    for path in sorted(folder.glob("*.py")) if folder else []:
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.digest()


def _tier_cache_key(column: Column, members: list[Row]) -> str:
    """Key of one view's significance results: the test code, the column (tasks, metric,
    direction) and the exact results files of the systems tested. Any change to one of
    those files, or to the statistics code, gives a new key."""
    digest = hashlib.sha256(_stats_fingerprint())
    digest.update(repr(column).encode() + b"\0seed=0\0")
    for row in members:
        digest.update(f"{row.key}\1{row.digest}\2".encode())
    return digest.hexdigest()


def _compute_tiers(scores: dict[str, dict[str, float]], column: Column) -> dict[str, TierInfo]:
    from leaderboard.stats import tier_view

    result = tier_view(scores, column.per_query_key or column.metric,
                       higher_is_better=column.higher_is_better, seed=0)
    out: dict[str, TierInfo] = {}
    for comp in result.comparisons:
        if comp.system in scores:
            out[comp.system] = TierInfo(
                tier=comp.tier, p_value=_num(comp.p_value), p_adjusted=_num(comp.p_adjusted),
                effect=_num(comp.effect), ci_low=_num(comp.ci_low), ci_high=_num(comp.ci_high))
    return out


@dataclass
class _TierWork:
    """The tiers of one view's tiered column: read from the cache, or to be computed."""

    table: ViewTable
    column_index: int
    verified: list[Row]
    path: Path | None             # cache entry, None without a cache
    tiers: dict[str, TierInfo] | None = None  # None: not computed yet
    untested: list[str] = field(default_factory=list)

    def compute(self) -> None:
        column = self.table.view.columns[self.column_index]
        scores: dict[str, dict[str, float]] = {}
        untested = []
        for row in self.verified:
            pq = pooled_per_query(row, column)
            if pq is None:
                untested.append(row.key)
            else:
                scores[row.key] = pq
        self.tiers = _compute_tiers(scores, column) if scores else {}
        self.untested = untested
        if self.path is not None:
            from leaderboard.fileio import atomic_write_text

            atomic_write_text(self.path, json.dumps(
                {"tiers": {k: v.__dict__ for k, v in self.tiers.items()},
                 "untested": untested}))


def _plan_tiers(table: ViewTable, column_index: int, cache_dir: Path | None) -> _TierWork:
    """The tiered column's verified rows, and their tiers if ``cache_dir`` has them (the
    randomization tests take seconds per view with many systems; a rebuild with unchanged
    results reuses them)."""
    column = table.view.columns[column_index]
    verified = [r for r in table.rows
                if r.verified and table.values[r.key][column_index] is not None]
    path = (cache_dir / f"{_tier_cache_key(column, verified)}.json"
            if cache_dir and verified else None)
    work = _TierWork(table, column_index, verified, path)
    if not verified:
        work.tiers = {}
    elif path is not None and path.is_file():
        try:
            stored = json.loads(path.read_text(encoding="utf-8"))
            work.tiers = {k: TierInfo(**v) for k, v in stored["tiers"].items()}
            work.untested = list(stored["untested"])
        except (OSError, ValueError, TypeError, KeyError):
            work.tiers = None  # a damaged entry is recomputed
    return work


def _apply_tiers(work: _TierWork) -> None:
    table, index = work.table, work.column_index
    column = table.view.columns[index]
    out = {r.key: TierInfo(TIER_REPORTED) for r in table.rows
           if not r.verified and table.values[r.key][index] is not None}
    out.update(work.tiers or {})
    table.tiers[index] = out
    table.tier_note = (f"{len(work.untested)} verified row(s) have no per-query scores for "
                       f"{column.label} and are not tested." if work.untested else "")


def tier_tables(tables: Iterable[ViewTable], cache_dir: Path | None = None) -> None:
    """Tier the tiered column of every table: cached views are read, the others computed
    several at once (:func:`leaderboard.stats.tier_views`)."""
    works = [_plan_tiers(t, t.view.tiered_column, cache_dir) for t in tables
             if t.view.tiered_column is not None and t.rows]
    pending = [w for w in works if w.tiers is None]
    if pending:
        from leaderboard.stats import tier_views, tiering_work

        # Longest first, so that the views running last are short ones and no core idles
        # while one long view finishes; the query count is the first row's (rows of one
        # view nearly always share their queries).
        def work_of(work: _TierWork) -> float:
            column = work.table.view.columns[work.column_index]
            pooled = pooled_per_query(work.verified[0], column)
            return tiering_work(column.per_query_key or column.metric,
                                len(pooled) if pooled else 0, len(work.verified))

        pending.sort(key=work_of, reverse=True)
        tier_views([w.compute for w in pending])
    for work in works:
        _apply_tiers(work)


def _num(value: object) -> float | None:
    if value is None:
        return None
    f = float(value)  # type: ignore[arg-type]
    return f if math.isfinite(f) else None


def _sort_rows(rows: list[Row], values: dict[str, list[float | None]], column: Column,
               index: int) -> list[Row]:
    sign = -1.0 if column.higher_is_better else 1.0

    def key(row: Row) -> tuple[int, float, str, str]:
        v = values[row.key][index]
        return (v is None, sign * v if v is not None else 0.0, row.name.lower(), row.key)

    return sorted(rows, key=key)


def fill_view(view: View, rows: list[Row], reported_only: bool = False) -> ViewTable:
    """The view's table: its rows in default order with every column's value; its tiers
    come from :func:`tier_tables`, which tiers many tables at once."""
    values: dict[str, list[float | None]] = {}
    counts: dict[str, list[int]] = {}
    members: list[Row] = []
    for row in rows:
        if reported_only and row.verified:
            continue
        cells = [cell_value(row, col) for col in view.columns]
        if all(v is None for v, _ in cells):
            continue
        members.append(row)
        values[row.key] = [v for v, _ in cells]
        counts[row.key] = [n for _, n in cells]
    sort_col = view.columns[view.sort_column]
    return ViewTable(view=view, rows=_sort_rows(members, values, sort_col, view.sort_column),
                     values=values, counts=counts)


def _home_table(rows: list[Row], tables: dict[str, ViewTable]) -> ViewTable:
    """One row per system: the tiered column of each benchmark's average view."""
    columns: list[Column] = []
    sources: list[tuple[ViewTable, int]] = []
    for home in HOME_COLUMNS:
        table = tables[home.view_id]
        index = next(i for i, c in enumerate(table.view.columns) if c.id == home.column_id)
        col = table.view.columns[index]
        columns.append(Column(id=home.id, label=home.label, metric=col.metric, tasks=col.tasks,
                              higher_is_better=col.higher_is_better, signed=col.signed,
                              help=f"{table.view.title}: {col.help or col.label}"))
        sources.append((table, index))
    view = View(id="home", label="All systems", title="All systems", columns=tuple(columns),
                sort_column=0, tiered_column=None, breakdown=False)
    values: dict[str, list[float | None]] = {}
    members = []
    for row in rows:
        cells = [t.values.get(row.key, [None] * len(t.view.columns))[i] for t, i in sources]
        if all(v is None for v in cells):
            continue
        values[row.key] = cells
        members.append(row)
    # Default order: by the first benchmark a row has, so systems of every benchmark show
    # near the top; the reader sorts by any column.
    def key(row: Row) -> tuple:
        cells = values[row.key]
        first = next(i for i, v in enumerate(cells) if v is not None)
        return (first, -(cells[first] or 0.0), row.name.lower(), row.key)

    table = ViewTable(view=view, rows=sorted(members, key=key), values=values)
    for i, (source, index) in enumerate(sources):
        table.tiers[i] = {k: t for k, t in source.tiers.get(index, {}).items() if k in values}
    return table


def load_board(results_root: Path, cache_dir: Path | None = None) -> Board:
    """Rows, every view filled and tiered, and the home table. ``cache_dir`` memoises the
    significance tests (see :func:`tier_view_cached`); None computes them all."""
    rows, warnings = load_rows(results_root)
    tables: dict[str, ViewTable] = {}
    for page in site_pages():
        for section in page.sections:
            for view in section.views:
                tables[view.id] = fill_view(view, rows, reported_only=section.reported_only)
    tier_tables(tables.values(), cache_dir)
    assert set(tables) == set(all_views())
    return Board(rows=rows, tables=tables, home=_home_table(rows, tables), warnings=warnings)
