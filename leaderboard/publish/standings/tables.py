"""A view's standings: each row's value per column, the order, the leader and the tiers,
and the one line per model that every surface shows.

Every column's value is :func:`leaderboard.publish.standings.statistic.column_value`, by the
column's declared convention. The tiered column is tested on the per-unit values whose
mean is exactly that value (:func:`leaderboard.publish.stats.tiers.tier_view`, verified rows only;
reported rows get the tier "reported"), and each tested row then shows the mean the test
compared, so the bold leader is always the best verified value of its column.

Rows are (model, source) pairs. :mod:`.lines` folds them into one line per model
(:attr:`ViewTable.lines`), which the site's tables, charts, downloads and search show.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import math
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from leaderboard.core.fileio import atomic_write_text, remove_killed_writers
from leaderboard.core.report import plural
from leaderboard.benchmarks.registry import get_task
from leaderboard.submission.results import SystemResult, off_pin_revisions

from .lines import ModelLine, leader_first, model_lines, ranked, reported_apart
from .references import view_references
from .rows import Row
from .statistic import Basis, column_value, tested_scores, unit_scores
from .verdicts import TIER_LEADER, TIER_REPORTED, TierInfo, ViewTest

if TYPE_CHECKING:
    from leaderboard.benchmarks.views import Column, View

# Salt of the tier cache's key: bump it when what a cache entry holds changes.
_CACHE_FORMAT = ("standings-6: units sampled independently, rank intervals, test's "
                 "intervals, figures summed by query, Holm on p-values raised to their "
                 "floor and its bounds")


@dataclass
class ViewTable:
    view: View
    rows: list[Row]             # default order (the leader first of the tested rows)
    values: dict[str, list[float | None]]             # row key -> value per column
    # column index -> row key -> tier; only tested columns have entries
    tiers: dict[int, dict[str, TierInfo]] = field(default_factory=dict)
    # column index -> what its test is (unit and count, floor, threshold, MDE)
    tests: dict[int, ViewTest] = field(default_factory=dict)
    # Multi-task cells: how many tasks were averaged (0: the row's published average).
    counts: dict[str, list[int]] = field(default_factory=dict)
    tier_note: str = ""
    # row key -> how each cell's value was obtained (:data:`~.statistic.Basis`)
    bases: dict[str, list[Basis | None]] = field(default_factory=dict)
    # row key -> each cell's value as its source prints it, where it is a printed figure
    # (:attr:`~.statistic.CellValue.printed`); rows with none are left out.
    printed: dict[str, list[str | None]] = field(default_factory=dict)
    # Each column's no-skill value (:mod:`.references`), None where it has none.
    references: list[float | None] = field(default_factory=list)
    # Row key -> {task: recorded data revision} of the verified rows whose figure in the
    # sort column was scored on another revision than the registry pins
    # (:func:`off_pin_of`): not ranked, and, that column being the tiered one, not tested.
    off_pin: dict[str, dict[str, str]] = field(default_factory=dict)
    # The model lines, built on first use and again once the tiers change the values.
    _lines: list[ModelLine] | None = field(default=None, repr=False, compare=False)

    @property
    def lines(self) -> list[ModelLine]:
        """One line per model, in default order (:mod:`.lines`): what every surface
        shows."""
        if self._lines is None:
            columns = self.view.columns
            off_pin = {r.key: moved for r in self.rows
                       if (moved := frozenset(i for i, c in enumerate(columns)
                                              if off_pin_of(r, c)))}
            self._lines = model_lines(self.view, self.rows, self.values, self.tiers, off_pin)
        return self._lines

    def line_ranks(self) -> dict[str, int | None]:
        """1-based rank of each model line, its place in the default order among the
        ranked lines (:func:`.lines.ranked`); None for a line without a figure in the sort
        column, or whose figure there was scored on another data revision than the pin
        (shown, marked, after every ranked line): every surface's rank."""
        ranks: dict[str, int | None] = {}
        n = 0
        for line in self.lines:
            if ranked(line, self.view):
                n += 1
                ranks[line.key] = n
            else:
                ranks[line.key] = None
        return ranks

    def basis(self, row: Row | None, index: int) -> Basis | None:
        """How ``row``'s value in column ``index`` was obtained (None: no row, no value)."""
        bases = self.bases.get(row.key) if row is not None else None
        return bases[index] if bases else None

    def printed_figure(self, row: Row | None, index: int) -> str | None:
        """``row``'s value in column ``index`` as its source prints it, or None where it
        is no printed figure (computed here, or averaged from printed ones)."""
        printed = self.printed.get(row.key) if row is not None else None
        return printed[index] if printed else None

    def leader(self, column_index: int | None = None) -> Row | None:
        """The leader of a tiered column (default: the view's), or None."""
        index = self.view.tiered_column if column_index is None else column_index
        tiers = self.tiers.get(index, {}) if index is not None else {}
        return next((r for r in self.rows if (t := tiers.get(r.key)) and t.tier == TIER_LEADER),
                    None)


# --------------------------------------------------------------------------- order

def order_key(value: float | None, higher_is_better: bool, verified: bool, key: str,
              name: str, unranked: bool = False) -> tuple:
    """Default order: best value first; at equal values verified rows first, in the order
    of their ids (as :func:`leaderboard.publish.stats.tiers.tier_view` picks its leader), then reported
    rows by name. A value not ranked (``unranked``: scored on another data revision than
    the pin, :func:`off_pin_of`, or a reported one its column ranks apart,
    :func:`.lines.reported_apart`) comes after every ranked value, the unranked ones by
    their own value, as the tables' lines do (:mod:`.lines`); a row without a value comes
    last."""
    sign = -1.0 if higher_is_better else 1.0
    return (value is None, unranked, sign * value if value is not None else 0.0, not verified,
            key if verified else name.lower(), key)


def sort_rows(rows: Iterable[Row], values: Mapping[str, Sequence[float | None]],
              column: Column, index: int, off_pin: Collection[str] = ()) -> list[Row]:
    """``rows`` in default order on column ``index`` (:func:`order_key`); ``off_pin``: the
    keys of those whose value there was scored on another data revision than the pin.
    Where the column ranks reported values apart (:func:`.lines.reported_apart`), they
    come after the ranked ones too."""
    rows = list(rows)
    apart = reported_apart(column, ((r.verified, values[r.key][index]) for r in rows))
    return sorted(rows, key=lambda r: order_key(
        values[r.key][index], column.higher_is_better, r.verified, r.key, r.name,
        r.key in off_pin or (apart and not r.verified)))


def fill_view(view: View, rows: list[Row], reported_only: bool = False) -> ViewTable:
    """The view's table: its rows with every column's value, in default order (its model
    lines are built from them on first use). Its tiers come from :func:`tier_tables`,
    which tiers many tables at once."""
    values: dict[str, list[float | None]] = {}
    counts: dict[str, list[int]] = {}
    bases: dict[str, list[Basis | None]] = {}
    printed: dict[str, list[str | None]] = {}
    members: list[Row] = []
    for row in rows:
        if reported_only and row.verified:
            continue
        cells = [column_value(row.system, col) for col in view.columns]
        if all(c.value is None for c in cells):
            continue
        members.append(row)
        values[row.key] = [c.value for c in cells]
        counts[row.key] = [c.n_tasks for c in cells]
        bases[row.key] = [c.basis for c in cells]
        if any(c.printed is not None for c in cells):
            printed[row.key] = [c.printed for c in cells]
    sort_col = view.columns[view.sort_column]
    off_pin = {r.key: moved for r in members
               if r.verified and values[r.key][view.sort_column] is not None
               and (moved := off_pin_of(r, sort_col))}
    ordered = sort_rows(members, values, sort_col, view.sort_column, off_pin)
    table = ViewTable(view=view, rows=ordered, values=values, counts=counts, bases=bases,
                      printed=printed, references=view_references(view, members),
                      off_pin={r.key: off_pin[r.key] for r in ordered if r.key in off_pin})
    table.tier_note = off_pin_note(table)
    return table


# --------------------------------------------------------------------------- tiers

def off_pin_of(row: Row, column: Column) -> dict[str, str]:
    """Task -> recorded data revision of each of ``column``'s tasks that ``row`` was
    scored on another revision of than the registry pins now (empty: every one on the
    pin, or a reported row). Such scores are on other data than the rows scored on the
    pin: they are shown, marked, and tested against no row (the pin moved since they were
    scored, and publishing rescores them, or could not: ci score-pending's kept)."""
    return off_pin_in(row.submission.off_pin, column) if row.submission is not None else {}


def off_pin_in(off_pin: Mapping[str, str], column: Column) -> dict[str, str]:
    """Those of a results file's tasks scored off the pin (``off_pin``: task -> recorded
    revision, :func:`leaderboard.submission.results.off_pin_tasks`) that ``column``
    averages: :func:`off_pin_of` of a row, and of a system `leaderboard compare` reads."""
    return {t: r for t, r in off_pin.items() if t in column.tasks}


def off_pin_note(table: ViewTable) -> str:
    """The sentence under a table that says which rows are not ranked (nor, where the
    sort column is tested, tested) for being scored on another data revision than the pin
    in its sort column (:attr:`ViewTable.off_pin`), on which, and what the pin is; "" when
    none is."""
    rows = table.off_pin
    if not rows:
        return ""
    names = {r.key: r.name for r in table.rows}
    groups: dict[tuple[str, str], list[str]] = {}
    for key, tasks in rows.items():
        pinned = ", ".join(sorted({get_task(t).source.pinned for t in tasks}))
        was = off_pin_revisions(tasks)
        groups.setdefault((was, pinned), []).append(names.get(key, key))
    one = len(rows) == 1
    parts = [f"{', '.join(named)} on {was}, not {pinned}"
             for (was, pinned), named in groups.items()]
    tested = table.view.tiered_column == table.view.sort_column
    return (f"{plural(len(rows), 'verified row')} {'was' if one else 'were'} scored on "
            f"another revision of the data than the one the registry pins now: "
            f"{'; '.join(parts)}; {'it is' if one else 'they are'} shown as scored, "
            f"marked, without a rank, after the ranked rows"
            + (", and not tested against the best verified." if tested else "."))


# Modules outside the two packages whose code decides a cached figure: how a query id
# becomes its unit (SamplingUnit.keys and the topic rules it applies). A column's repr
# names its unit's declaration, not this code.
_UNIT_MODULES = ("leaderboard.benchmarks.units", "leaderboard.core.data.layout_files")


def _stats_sources() -> list[tuple[str, Path]]:
    """(name, path) of every source file behind a cached tier: the significance and
    standings packages and :data:`_UNIT_MODULES`.

    Found without importing them (importing scipy takes seconds, which a build whose
    tiers are all cached should not pay)."""
    out: list[tuple[str, Path]] = []
    for package in ("leaderboard.publish.stats", "leaderboard.publish.standings"):
        spec = importlib.util.find_spec(package)
        folder = Path(next(iter(spec.submodule_search_locations or []))) if spec else None
        out += [(f"{package}/{path.relative_to(folder).as_posix()}", path)
                for path in (sorted(folder.rglob("*.py")) if folder else [])]
    for module in _UNIT_MODULES:
        spec = importlib.util.find_spec(module)
        if spec is not None and spec.origin:
            out.append((module, Path(spec.origin)))
    return out


@cache
def _stats_fingerprint() -> bytes:
    """Hash of the code behind the tiers (:func:`_stats_sources`), so cached tiers expire
    when it changes."""
    digest = hashlib.sha256(_CACHE_FORMAT.encode())
    for name, path in _stats_sources():
        digest.update(name.encode() + b"\0" + path.read_bytes())
    return digest.digest()


def _tier_cache_key(column: Column, members: list[Row]) -> str:
    """Key of one view's significance results: the code, the column (tasks, metric,
    direction) and the exact results files of the systems tested."""
    digest = hashlib.sha256(_stats_fingerprint())
    # the column's repr names its sampling unit, whose rules live in the benchmarks
    digest.update(repr(column).encode() + b"\0seed=0\0")
    for row in members:
        digest.update(f"{row.key}\1{row.digest}\2".encode())
    return digest.hexdigest()


def _num(value: object) -> float | None:
    if value is None:
        return None
    f = float(value)  # type: ignore[arg-type]
    return f if math.isfinite(f) else None


def tier_column(scores: Mapping[str, Mapping[str, float]], column: Column, *, seed: int = 0,
                precedence: Sequence[str] = (), figures: Mapping[str, float] | None = None
                ) -> tuple[dict[str, TierInfo], ViewTest | None]:
    """Tiers of the systems in ``scores`` (id -> unit id -> value, as
    :func:`~.statistic.unit_scores` gives) on one column, and what the test is; ties within
    the reproducibility threshold go to the first of ``precedence``, then the smallest
    id. ``figures`` (:func:`~.statistic.tested_scores`) are the means the rows show, else
    the means over the units."""
    from leaderboard.publish.stats.tiers import tier_view

    if not scores:
        return {}, None
    result = tier_view(scores, column.metric, higher_is_better=column.higher_is_better,
                       seed=seed, precedence=precedence, test=column.test)
    tiers = {comp.system: TierInfo(
        tier=comp.tier, p_value=_num(comp.p_value), p_adjusted=_num(comp.p_adjusted),
        effect=_num(comp.effect), ci_low=_num(comp.ci_low), ci_high=_num(comp.ci_high),
        mean=_num(comp.mean_system if figures is None else figures[comp.system]),
        test=result.test, n_units=result.n_units,
        estimate=_num(comp.estimate), effect_size=_num(comp.effect_size),
        p_floor=result.p_floor, rank_best=comp.rank_best, rank_worst=comp.rank_worst,
        p_adjusted_bound=comp.p_adjusted_bound)
        for comp in result.comparisons if comp.system in scores}
    unit = column.sampling
    test = ViewTest(test=result.test, interval=result.interval, unit=unit.name,
                    units=unit.plural, unit_holds=unit.holds, n_units=result.n_units,
                    p_floor=result.p_floor, threshold=result.threshold, mde=_num(result.mde),
                    rank_critical=_num(result.rank_critical))
    return tiers, test


@dataclass
class _TierWork:
    """The tiers of one view's tiered column: read from the cache, or to be computed."""

    table: ViewTable
    column_index: int
    verified: list[Row]
    path: Path | None             # cache entry, None without a cache
    tiers: dict[str, TierInfo] | None = None  # None: not computed yet
    test: ViewTest | None = None
    untested: list[str] = field(default_factory=list)

    def compute(self) -> None:
        column = self.table.view.columns[self.column_index]
        scores: dict[str, dict[str, float]] = {}
        figures: dict[str, float] = {}
        untested = []
        for row in self.verified:
            tested = tested_scores(row.system, column)
            if tested is None:
                untested.append(row.key)
            else:
                scores[row.key], figures[row.key] = tested
        self.tiers, self.test = tier_column(scores, column, figures=figures)
        self.untested = untested
        if self.path is not None:
            try:
                atomic_write_text(self.path, json.dumps(
                    {"tiers": {k: v.__dict__ for k, v in self.tiers.items()},
                     "test": None if self.test is None else self.test.__dict__,
                     "untested": untested}))
            except OSError:
                pass  # a read-only checkout, a full disk: only the saving is lost


def _plan_tiers(table: ViewTable, column_index: int, cache_dir: Path | None) -> _TierWork:
    """The tiered column's verified rows, and their tiers if ``cache_dir`` has them."""
    column = table.view.columns[column_index]
    # Verified rows scored on another data revision than the pin are tested against none.
    verified = [r for r in table.rows if r.verified
                and table.values[r.key][column_index] is not None and not off_pin_of(r, column)]
    path = (cache_dir / f"{_tier_cache_key(column, verified)}.json"
            if cache_dir and verified else None)
    work = _TierWork(table, column_index, verified, path)
    if not verified:
        work.tiers = {}
    elif path is not None and path.is_file():
        try:
            stored = json.loads(path.read_text(encoding="utf-8"))
            work.tiers = {k: TierInfo(**v) for k, v in stored["tiers"].items()}
            work.test = None if stored["test"] is None else ViewTest(**stored["test"])
            work.untested = list(stored["untested"])
        except (OSError, ValueError, TypeError, KeyError):
            work.tiers = None  # a damaged entry is recomputed
    return work


def _apply_tiers(work: _TierWork) -> None:
    table, index = work.table, work.column_index
    column = table.view.columns[index]
    out = {r.key: TierInfo(TIER_REPORTED) for r in table.rows
           if not r.verified and table.values[r.key][index] is not None}
    tested = work.tiers or {}
    out.update(tested)
    table.tiers[index] = out
    if work.test is not None:
        table.tests[index] = work.test
    # Each tested row shows the very mean its test compared (the mean of its task figures
    # up to the order of summation), so value, order and leader cannot disagree.
    for key, info in tested.items():
        if info.mean is not None:
            table.values[key][index] = info.mean
    if index == table.view.sort_column:
        table.rows = leader_first(sort_rows(table.rows, table.values, column, index,
                                            table.off_pin),
                                  lambda r: t.tier if (t := out.get(r.key)) else None)
    table._lines = None  # lined up again on the tested values
    one = len(work.untested) == 1
    untested = (f"{plural(len(work.untested), 'verified row')} "
                f"{'has' if one else 'have'} no per-query scores for {column.label} "
                f"and {'is' if one else 'are'} not tested." if work.untested else "")
    table.tier_note = " ".join(filter(None, (untested, off_pin_note(table))))


def tier_tables(tables: Iterable[ViewTable], cache_dir: Path | None = None) -> None:
    """Tier the tiered column of every table: cached views are read, the others computed
    several at once (:func:`leaderboard.publish.stats.tiers.tier_views`)."""
    works = [_plan_tiers(t, t.view.tiered_column, cache_dir) for t in tables
             if t.view.tiered_column is not None and t.rows]
    pending = [w for w in works if w.tiers is None]
    if pending and cache_dir is not None:
        # An entry a killed build was writing: named by its inputs, which later builds'
        # results may never give again, it would stay (and be saved with the cache).
        remove_killed_writers(cache_dir)
    if pending:
        from leaderboard.publish.stats.tiers import ranking_work, tier_views, tiering_work

        # Longest first, so that the views running last are short ones.
        def work_of(work: _TierWork) -> float:
            column = work.table.view.columns[work.column_index]
            units = unit_scores(work.verified[0].system, column)
            n = len(units) if units else 0
            return (tiering_work(column.metric, n, len(work.verified), test=column.test)
                    + ranking_work(n, len(work.verified)))

        pending.sort(key=work_of, reverse=True)
        tier_views([w.compute for w in pending])
    for work in works:
        _apply_tiers(work)


# --------------------------------------------------------------------------- one column

@dataclass
class ColumnStandings:
    """Standings of a set of systems on one column (the PR comment's per-task view)."""

    values: dict[str, float | None]
    # ids, best first (the leader first of the tested ones, :func:`.lines.leader_first`);
    # then those scored on another data revision than the pin, by value (not ranked);
    # systems without a value last
    order: list[str]
    leader: str | None                     # the tested leader (verified, per-query scores)
    tiers: dict[str, TierInfo]
    untested: list[str]                    # verified ids without per-query scores
    test: ViewTest | None = None


def order_systems(systems: Mapping[str, SystemResult], column: Column
                  ) -> tuple[dict[str, float | None], list[str]]:
    """Each system's value on one column and the default order (best first), without
    testing: where a leader stands before a new system is tested against it."""
    values = {sid: column_value(s, column).value for sid, s in systems.items()}
    return values, _order(systems, values, column)


def _order(systems: Mapping[str, SystemResult], values: Mapping[str, float | None],
           column: Column, off_pin: Collection[str] = ()) -> list[str]:
    verified = {sid: s.provenance == "verified" for sid, s in systems.items()}
    apart = reported_apart(column, ((verified[sid], values[sid]) for sid in systems))
    return sorted(systems, key=lambda sid: order_key(
        values[sid], column.higher_is_better, verified[sid], sid, systems[sid].model.name,
        sid in off_pin or (apart and not verified[sid])))


def tested_order(systems: Mapping[str, SystemResult], column: Column,
                 tiers: Mapping[str, TierInfo], off_pin: Collection[str] = ()
                 ) -> tuple[dict[str, float | None], list[str]]:
    """Each system's value on one column, the mean its test compared where ``tiers`` (id
    -> tier: the column's test, which may hold ids beyond ``systems``) tested it, and the
    order a table shows them in: best first, the leader first of the tested ones
    (:func:`.lines.leader_first`); then the systems of ``off_pin`` (ids whose value was
    scored on another data revision than the pin for one of the column's tasks,
    :func:`off_pin_of`: not ranked), by their own value; systems without a value last."""
    values, _ = order_systems(systems, column)
    for sid, info in tiers.items():
        if info.mean is not None and sid in values:
            values[sid] = info.mean
    return values, leader_first(_order(systems, values, column, off_pin),
                                lambda sid: t.tier if (t := tiers.get(sid)) else None)


def rank_systems(systems: Mapping[str, SystemResult], column: Column, *, seed: int = 0,
                 precedence: Sequence[str] = (), off_pin: Collection[str] = ()
                 ) -> ColumnStandings:
    """Value, order, leader and tiers of ``systems`` (id -> system) on one column, by the
    same rules as a site table; a tie within the reproducibility threshold goes to the
    first of ``precedence`` (the standing leader, for the PR comment).

    The systems of ``off_pin`` (ids whose value was scored on another data revision than
    the pin for one of the column's tasks) are tested against none, as a table's rows so
    scored are: a rank interval is a rank among the rows tested on the same units, and a
    figure on other data would take a place in every other row's interval. They keep
    their values, after every ranked system in the order (:func:`tested_order`), with no
    tier and no rank interval."""
    values, _ = order_systems(systems, column)
    scores: dict[str, dict[str, float]] = {}
    figures: dict[str, float] = {}
    untested: list[str] = []
    for sid, s in systems.items():
        if s.provenance != "verified" or values[sid] is None or sid in off_pin:
            continue
        tested = tested_scores(s, column)
        if tested is None:
            untested.append(sid)
        else:
            scores[sid], figures[sid] = tested
    tiers, test = tier_column(scores, column, seed=seed, precedence=precedence,
                              figures=figures)
    values, order = tested_order(systems, column, tiers, off_pin)
    leader = next((sid for sid, t in tiers.items() if t.tier == TIER_LEADER), None)
    return ColumnStandings(values=values, order=order, leader=leader, tiers=tiers,
                           untested=sorted(untested), test=test)
