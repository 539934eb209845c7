"""Issue 35, findings 8 and 9: what a reader of the tables, the home page, a submission page
and a query card sees, and what the downloads hold beside it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from leaderboard.app.commands.explain import card_text
from leaderboard.benchmarks.registry import all_tasks
from leaderboard.core.explain import DocMove, QueryCard, unknown_query_message
from leaderboard.publish.site.board import Board
from leaderboard.publish.site.build import build_site
from leaderboard.publish.site.overview import build_overview, overview_context
from leaderboard.publish.site.render import table_context
from fixtures.synthetic import write_tree
from leaderboard.publish.site.table_display import display_rows
from leaderboard.publish.site.downloads import table_records

REPO = Path(__file__).resolve().parents[1]
USE = "use-multilingual-v3-numpy"
MINILM = "all-minilm-l6-v2"


def _cell_text(board, view_id: str, submission: str, column_id: str) -> str:  # noqa: ANN001
    table = board.tables[view_id]
    rows = display_rows(table, "pi-indic/t4.md")
    line = next(i for i, ln in enumerate(table.lines)
                if next(c.row for c in ln.cells if c.row is not None).key == submission)
    index = next(i for i, c in enumerate(table.view.columns) if c.id == column_id)
    return rows[line].cells[index].text


# --------------------------------------------------------------------------- finding 8

def test_the_t4_average_marks_only_an_ece_of_one_answer_for_every_pair(
        committed_board: Board) -> None:
    """USE answers "incompatible" in ten languages but names 30 of the 9,900 pairs
    compatible in Marathi and Urdu: its average ECE is no constant answer's. MiniLM names
    none compatible anywhere: its ECE is one answer's, in the average and in every
    language."""
    assert not _cell_text(committed_board, "pi-indic/t4/average", USE, "ECE").endswith("*")
    assert _cell_text(committed_board, "pi-indic/t4/average", MINILM, "ECE").endswith("*")
    assert _cell_text(committed_board, "pi-indic/t4/asm", USE, "ECE").endswith("*")
    assert not _cell_text(committed_board, "pi-indic/t4/urd", USE, "ECE").endswith("*")


def test_a_printed_average_that_is_not_its_cells_mean_says_so_visibly(
        committed_board: Board) -> None:
    """FollowTable Table 4 prints BM25's p-MRR average as -0.5 while its four dataset
    figures average -0.25, under a caption saying every column is that mean: only a hover
    said so."""
    table = committed_board.tables["followtable/average"]
    ctx = table_context(table, "followtable.md")
    bm25 = next(i for i, ln in enumerate(table.lines) if ln.name == "BM25")
    pmrr = next(i for i, c in enumerate(table.view.columns) if c.id == "p-MRR")
    assert ctx["rows"][bm25].cells[pmrr].text == "-0.5‡"
    printed = [n for n in ctx["mark_notes"] if n.startswith("‡")]
    assert len(printed) == 1
    note = printed[0]
    assert note.startswith("‡ BM25, FollowTable average, p-MRR") and "-0.5" in note \
        and "-0.25" in note
    assert "‡" in ctx["caption"]
    # Its mark was the training-overlap mark (†), which switched on the note "the model's
    # declared training data shares a source" under a table where no row does.
    assert not [n for n in ctx["mark_notes"] if n.startswith("†")]
    # Elsewhere only PI-Indic's full set, whose columns are the mean of the languages a row
    # reports: the authors' printed T4 averages (AUROC 71.0 over language cells averaging
    # 56.99) sat unmarked under a caption promising that mean.
    noted = {view_id for view_id, other in committed_board.tables.items()
             if any(n.startswith("‡") for n in table_context(other, "x.md")["mark_notes"])}
    assert noted == {"followtable/average", "pi-indic-full/t4", "pi-indic-full/t4-dev"}
    t4 = table_context(committed_board.tables["pi-indic-full/t4"], "x.md")
    assert any(n.startswith(f"‡ distiluse-base-multilingual-cased-v2, {t4['view'].title}, "
                            "AUROC: the average as printed (its source) is 71.0, but the mean "
                            "of its 11 per-language figures is 56.99")
               for n in t4["mark_notes"]), t4["mark_notes"]
    assert "Where a reported row's source prints its own average, the cell shows it." \
        in t4["caption"] and "‡" in t4["caption"]


def test_a_printed_average_cells_details_count_the_figures_the_note_counts(
        committed_board: Board) -> None:
    """The authors' T4 AUROC of distiluse (71.0‡) averages 11 languages' figures (56.99),
    as the note under the table says; its details said 'the mean of its 12 per-language
    figures', the column's task count, and said twice that the figure is the source's own
    average ('the source's own published average; ... the source's printed average'),
    the second after the other sources, as if of theirs."""
    table = committed_board.tables["pi-indic-full/t4"]
    rows = display_rows(table, "pi-indic/index.md")
    line = next(i for i, ln in enumerate(table.lines)
                if ln.name == "distiluse-base-multilingual-cased-v2")
    auroc = next(i for i, c in enumerate(table.view.columns) if c.id == "AUROC")
    cell = rows[line].cells[auroc]
    assert cell.text == "71.0‡"
    assert "the source's own published average, not the mean of its 11 per-language " \
           "figures (56.99)" in cell.title, cell.title
    assert "12 per-language" not in cell.title and "printed average" not in cell.title
    # Said of this row's figure, before the other sources' figures.
    assert cell.title.index("not the mean") < cell.title.index("other sources")
    # FollowTable's BM25: the same words, its four datasets.
    table = committed_board.tables["followtable/average"]
    rows = display_rows(table, "followtable.md")
    line = next(i for i, ln in enumerate(table.lines) if ln.name == "BM25")
    pmrr = next(i for i, c in enumerate(table.view.columns) if c.id == "p-MRR")
    assert rows[line].cells[pmrr].title == (
        "the source's own published average, not the mean of its 4 per-dataset figures "
        "(-0.25)")


def test_every_download_with_a_no_skill_value_has_the_reference_row(committed_board: Board) -> None:
    """None of the 36 downloads with a no-skill value had the reference row the pages
    show."""
    with_reference = 0
    for view_id, table in committed_board.tables.items():
        _, records = table_records(table)
        refs = [i for i, r in enumerate(records) if r["provenance"] == "reference"]
        if not any(v is not None for v in table.references):
            assert refs == [], view_id
            continue
        with_reference += 1
        assert len(refs) == 1, view_id
        record = records[refs[0]]
        # where the page shows it: below the lines better than no skill in the sort column
        sort, ref = table.view.sort_column, table.references[table.view.sort_column]
        column = table.view.columns[sort]
        better = [ln for ln in table.lines if ref is None or (
            (v := ln.cells[sort].value) is not None and (v >= ref if column.higher_is_better
                                                         else v <= ref))]
        assert refs[0] == len(better), view_id
        assert [record[c.id] for c in table.view.columns] == table.references
        assert record["rank"] is None and record["model"].endswith("(reference)")
    assert with_reference >= 36


# --------------------------------------------------------------------------- finding 9

def test_a_table_nothing_in_which_is_tested_says_why_instead_of_not_tested(
        committed_board: Board) -> None:
    """FollowIR and mFollowIR showed a "vs best verified" column of "not tested" with no
    word why (no verified submission covers them)."""
    for view_id in ("followir/average", "followir/core17", "mfollowir/average",
                    "mfollowir-cl/fas"):
        ctx = table_context(committed_board.tables[view_id], "followir.md")
        assert ctx["tiered"] is None and ctx["leader"] is None, view_id
        assert "no verified submission has scores for it yet" in ctx["untested"]
        assert "not tested" not in ctx["body"]
    ctx = table_context(committed_board.tables["followtable/average"], "followtable.md")
    assert ctx["tiered"] == 3 and ctx["untested"] == "" and "best verified" in ctx["body"]


def test_the_home_verified_table_shows_what_submissions_have(committed_board: Board) -> None:
    """It opened with a FollowIR column and ended with a reported-only column, both all
    "–", and repeated each submission's name as its model."""
    ctx = overview_context(committed_board, "index.md", "submissions/")
    overview = build_overview(committed_board)
    html = str(ctx["verified_rows"])
    rows = re.findall(r"<tr .*?</tr>", html)
    assert len(rows) == len(overview.verified)
    for row in rows:
        cells = re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", row)
        name = re.search(r'class="fb-n"[^>]*>([^<]*)<', cells[1]).group(1)
        assert not any(c == name for c in cells[2:]), row  # the name once
        assert any(c != "–" for c in cells[-1:]), row
    labels = [c["label"] for c in ctx["verified_columns"]]
    assert "FollowIR p-MRR" not in labels
    assert not any("reported" in label for label in labels)
    assert "FollowTable IRS" in " ".join(labels)
    shown = [c["id"] for c in ctx["verified_columns"]]
    for i, col in enumerate(overview.columns):
        values = [cells[i].value for _, _, cells in overview.verified]
        assert (col.home.id in shown) == any(v is not None for v in values), col.home.id
    for row in rows:
        assert len(re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", row)) == 4 + len(shown)


def test_explain_suggests_a_topics_own_queries() -> None:
    """`explain --query 53` suggested 85_3, 65_3, 59_3 instead of 53_0 and 53_1."""
    known = ["5_3", "53_0", "53_1", "59_3", "65_3", "85_3", "153_0"]
    message = unknown_query_message(all_tasks()["followtable/wtr"], "53", known)
    assert "did you mean 53_0, 53_1 " in message and "85_3" not in message
    assert "153_0" not in message
    ids = [f"7_{i}" for i in range(12)]
    assert "7_0, 7_1, 7_2, 7_3, 7_4, 7_5, 7_6, 7_7, 7_8, 7_9 and 2 more" in \
        unknown_query_message(all_tasks()["followtable/wtr"], "7", ids)


def test_a_query_card_prints_every_figure_on_one_scale() -> None:
    """p-MRR's terms were x100 and IRS's gains fractions on the same card."""
    card = QueryCard(
        task="followtable/wtr", query="53_0", original_query="53", group="C1", texts={},
        metrics={"IRS": 0.2, "p-MRR": -0.25},
        changed=[DocMove("t1", 1, 3, 1, 3, -0.6666666666666667, -0.1845)],
        positive=[DocMove("t2", 9, 2, 9, 2, None, 0.3356)],
        irs_parts={"S": 0.1511, "S_ideal": 1.0, "S_worst": -1.0, "scale": 0.7555},
        top={}, run_lengths={})
    text = card_text(card)
    assert "-66.67" in text                       # the p-MRR term, x100
    assert "-18.45" in text and "+33.56" in text  # the IRS gains, x100
    assert "S = +15.11" in text and "within [-100, 100]" in text
    assert "-0.1845" not in text and "+0.3356" not in text


# --------------------------------------------------------------------------- in a browser

@pytest.fixture(scope="module")
def small_site(tmp_path_factory: pytest.TempPathFactory) -> dict:
    base = tmp_path_factory.mktemp("reader-site")
    tasks = ["followtable/wtr", "followtable/wqt", "followtable/tarx", "followtable/industr",
             "pi-indic-val150/t1/hin", "pi-indic-val150/t4/hin"]
    write_tree(base / "root", 4, n_queries=8, task_ids=tasks, hostile=False)
    build_site(base / "root", base / "out", cache_dir=base / "cache", reference_ids=())
    return {"out": base / "out", "tasks": tasks}


def test_submission_pages_link_every_score_to_its_queries(small_site: dict) -> None:
    """The README says every verified score links to the queries behind it; a submission
    page's score tables had no such link. Each score cell names its metric and its row (or
    the cell itself) the tasks, which assets/explorer-links.js joins with the table's
    submission into the link (test_explorer_browser follows one in Chromium)."""
    html = (small_site["out"] / "submissions" / "sub-0001.html").read_text("utf-8")
    tables = re.findall(r'<table class="fb-table fb-scores"[^>]*>.*?</table>', html, re.S)
    assert tables
    linked = 0
    for table in tables:
        assert 'data-s="sub-0001"' in table.split(">", 1)[0]
        for row_attrs, row in re.findall(r"<tr data-view=([^>]*)>(.*?)</tr>", table, re.S):
            row_tasks = re.search(r'data-tasks="([^"]*)"', row_attrs)
            # The score cells sit between the table's name and the tier, gap and p-value.
            cells = re.findall(r"<td([^>]*)>", row)[1:-3]
            assert cells, row
            for attrs in cells:
                value = re.search(r'data-v="([^"]*)"', attrs).group(1)
                if not value:
                    continue
                assert re.search(r'data-metric="[^"]+"', attrs), attrs
                own = re.search(r'data-tasks="([^"]*)"', attrs)
                tasks = (own or row_tasks).group(1).split(" ")
                assert set(tasks) <= set(small_site["tasks"]), tasks
                linked += 1
    assert linked > 10


def test_the_home_verified_table_keeps_its_names_when_sorted_on_a_phone(
        small_site: dict, tmp_path: Path) -> None:
    """Sorting it scrolled its first columns out of view (its name column did not stick)."""
    from fixtures.chromium import CHROMIUM, offline_context, serve, watched

    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is not installed")
    sync_api = pytest.importorskip("playwright.sync_api")
    server, url = serve(small_site["out"])
    try:
        with sync_api.sync_playwright() as p:
            context = offline_context(p, tmp_path / "profile",
                                      viewport={"width": 390, "height": 800})
            tab = context.new_page()
            problems = watched(tab)
            tab.goto(url + "index.html")
            table = tab.locator("#home-verified table.fb-table")
            last = table.locator("thead th").last
            last.click()
            tab.wait_for_timeout(200)
            name = table.locator("tbody tr").first.locator(".fb-name")
            box, wrap = name.bounding_box(), table.locator("xpath=..").bounding_box()
            assert box["x"] >= wrap["x"] - 1 and box["x"] + box["width"] <= 390, (box, wrap)
            hit = tab.evaluate("([x, y]) => document.elementFromPoint(x, y).closest('td, th')"
                               "?.classList.contains('fb-name')",
                               [box["x"] + box["width"] / 2, box["y"] + box["height"] / 2])
            assert hit
            assert problems == [] and context.outside == []
            context.close()
    finally:
        server.shutdown()


def test_a_query_cards_chart_labels_stay_readable_on_a_phone() -> None:
    """The slope chart is a 420-unit drawing scaled to its box: at 11 units its axis labels
    were about 8 px on a 390 px phone. On a narrow screen they get enough units to stay
    about 12 px in a box of 340 px."""
    css = (REPO / "leaderboard" / "publish" / "site" / "assets" / "explorer.css").read_text("utf-8")
    width = re.search(r'viewBox: "0 0 " \+ W', (REPO / "leaderboard" / "publish" / "site" /
                                                "assets" / "explorer" / "card-parts.js")
                      .read_text("utf-8"))
    assert width
    phone = re.search(r"@media screen and \(max-width: (\d+)em\) \{(.*?)\n\}", css, re.S)
    assert phone and int(phone.group(1)) * 16 >= 390, "no rule for a phone's width"
    for kind in ("tick", "axis"):
        size = re.search(rf"\.fb-x-slope \.fb-x-{kind} \{{[^}}]*font-size: (\d+)px", phone.group(2))
        assert size and int(size.group(1)) * 340 / 420 >= 11.5, kind


def test_the_explorer_introduction_says_which_cards_have_two_runs(small_site: dict) -> None:
    """PI-Indic T1 cards carried the two-run introduction (a line per changed document from
    the original to the altered run), though they have one run and one relevant document."""
    html = (small_site["out"] / "explore.html").read_text("utf-8")
    intro = re.search(r"Where does a model fail.*?</p>", html, re.S).group(0)
    assert "FollowIR" in intro and "rank 1 at the top" in intro
    assert "A PI-Indic card has one run" in intro


def test_compare_help_says_how_averages_are_taken() -> None:
    """`compare --help` said averages are "the mean over the view's queries, each query
    once", while a benchmark average is the mean of its tasks' figures."""
    import subprocess
    import sys

    text = subprocess.run([sys.executable, "-m", "leaderboard.app.cli", "compare", "--help"],
                          capture_output=True, text=True, check=True).stdout
    text = " ".join(text.split())
    assert "each query once" not in text
    assert "the mean of the tasks' figures as the benchmark's paper averages them" in text


@pytest.mark.parametrize(("size", "text"), [(-0.004, "0.00"), (0.004, "0.00"),
                                          (0.125, "+0.13"), (-2.035, "-2.04")])
def test_an_effect_size_is_printed_by_the_one_rounding_rule(size, text) -> None:
    """A figure's details printed its effect size with Python's format ("effect size -0.00
    sd" on six details of the committed site, and 0.125 as +0.12), where every other number
    follows the display rule (never "-0.00", halves away from zero), and the PR comment
    printed the same statistic unsigned ("d = 0.13"): both print it one way."""
    from leaderboard.app.ci.comment import task_tables
    from leaderboard.app.ci.pr_report import TaskStanding
    from leaderboard.publish.site.table_display import tier_title
    from leaderboard.publish.standings.verdicts import TIER_BELOW, TierInfo

    info = TierInfo(tier=TIER_BELOW, p_adjusted=0.01, effect=-0.016, effect_size=size)
    assert f"; effect size {text} sd" in tier_title(info)
    row = TaskStanding(task="followtable/wtr", primary_metric="IRS", headline_metric="IRS",
                       tier="below leader", diff_vs_best_verified=-0.016, effect_size=size)
    assert f"; d = {text} |" in "\n".join(task_tables([row]))


def test_a_figures_details_leave_out_only_what_its_row_prints() -> None:
    """Site size (issue 36's 300 MB at 1,000 submissions): a leaderboard cell's details drop
    the gap and rank interval its row prints, a submission page's tier cell the tier, gap
    and p its row prints; everything else stays."""
    from leaderboard.publish.site.table_display import (ROW_SHOWS, SCORE_ROW_SHOWS,
                                                        interval_mark, tier_title)
    from leaderboard.publish.standings.verdicts import TIER_TIED, TierInfo

    info = TierInfo(tier=TIER_TIED, p_adjusted=0.2, effect=-0.016, ci_low=-0.027, ci_high=-0.007,
                    effect_size=-0.26, rank_best=1, rank_worst=3)
    full = tier_title(info)
    # (its interval leaves 0 out, its tier ties it: marked § with why, as its row's gap)
    assert full == ("tied with best verified; adjusted p 0.2; vs best verified -1.6 "
                    f"[-2.7, -0.7]§: {interval_mark(info)}; effect size -0.26 sd; "
                    "rank 1\u20133 (95%)"), full
    assert tier_title(info, shown=ROW_SHOWS) == \
        "tied with best verified; adjusted p 0.2; effect size -0.26 sd"
    assert tier_title(info, shown=SCORE_ROW_SHOWS) == "effect size -0.26 sd; rank 1\u20133 (95%)"


def test_a_p_value_below_the_level_never_prints_as_the_level(committed_board: Board,
                                                             monkeypatch) -> None:
    """An adjusted p of 0.0496 printed "0.05" beside "below best verified", while every
    table's note says a row is tied when its adjusted p is at least 0.05: a figure's
    details, a submission page's p column, `compare` and the PR comment print 0.0496."""
    from dataclasses import replace

    from leaderboard.app.ci.comment import task_tables
    from leaderboard.app.ci.pr_report import TaskStanding
    from leaderboard.benchmarks import site_pages
    from leaderboard.publish.site.table_display import submission_scores, tier_title
    from leaderboard.publish.standings.head_to_head import (ColumnComparison,
                                                            SubmissionComparison, format_table)
    from leaderboard.publish.standings.verdicts import TIER_BELOW, TierInfo

    info = TierInfo(tier=TIER_BELOW, p_adjusted=0.0496, p_floor=1e-5, effect=-0.02)
    assert tier_title(info).startswith("below best verified; adjusted p 0.0496;")

    table = committed_board.tables["followtable/wtr"]
    col = table.view.tiered_column
    monkeypatch.setitem(table.tiers[col], MINILM, replace(
        table.tiers[col][MINILM], tier=TIER_BELOW, p_adjusted=0.0496))
    pages = [(page, [(s, [committed_board.tables[v.id] for v in s.views])
                     for s in page.sections]) for page in site_pages()
             if page.path == "followtable.md"]
    minilm = next(r for r in committed_board.submissions if r.key == MINILM)
    entries = [e for s in submission_scores(minilm, "submissions/x.md", pages)
               for e in s["entries"] if e["view"] == "followtable/wtr"]
    assert [(e["tier"], e["p_text"]) for e in entries] == [("below best verified", "0.0496")]

    row = TaskStanding(task="followtable/wtr", primary_metric="IRS", headline_metric="IRS",
                       tier="below leader", p_adjusted=0.0496, p_floor=1e-5,
                       diff_vs_best_verified=-0.02)
    assert "| below best verified | 0.0496 |" in "\n".join(task_tables([row]))

    compared = ColumnComparison(
        view="followtable/wtr", column="IRS", label="IRS", metric="IRS", tiered=True,
        test="randomization", unit="topics", n_units=30, mean_a=0.01, mean_b=0.03,
        diff=-0.02, p_value=0.0248, p_adjusted=0.0496, p_adjusted_bound=False, p_floor=1e-5,
        diff_ci_low=-0.04,
        diff_ci_high=-0.001, hl_shift=None, hl_ci_low=None, hl_ci_high=None,
        effect_size=-0.4, family_size=2, verdict="B better")
    text = format_table(SubmissionComparison(system_a="a", system_b="b", alpha=0.05,
                                             scale="x", threshold=1e-3, rows=[compared],
                                             skipped=[]))
    assert re.search(r" 0\.025 +0\.0496  B better$", text, re.M), text


def test_an_interval_that_says_otherwise_than_its_tier_is_marked_and_says_why(
        committed_board: Board, baselines_board: Board) -> None:
    """FollowTable WTR underlined all-MiniLM-L6-v2's IRS "tied with best verified" (its
    Holm-adjusted p 0.072) beside the gap "-4.7 [-9.1, -0.5]", an interval leaving 0 out:
    the interval is the comparison's own, the tier the Holm family's, and nothing said so.
    Every tested table says which is which, and an interval that disagrees with its tier is
    marked §, its details and the note under the table saying why, as on a submission
    page; `compare` calls such a pair inconclusive, the downloads and the comment say so.
    The finding is read on the baselines' board, whose Holm family a merged submission
    does not widen (with a fifth, all-MiniLM's adjusted p was 0.11)."""
    from leaderboard.app.ci.comment import task_tables, tier_note
    from leaderboard.app.ci.pr_report import TaskStanding
    from leaderboard.publish.site.table_display import interval_mark
    from leaderboard.publish.standings.downloads import STATISTIC_NOTE
    from leaderboard.publish.standings.head_to_head import verdict
    from leaderboard.publish.standings.verdicts import (TIER_BELOW, TIER_TIED, TierInfo,
                                                        interval_disagrees)

    table = baselines_board.tables["followtable/wtr"]
    ctx = table_context(table, "followtable.md")
    gaps = {r.key: r.gap for r in ctx["rows"] if r.gap is not None}
    minilm = next(k for k in gaps if k.endswith(MINILM))
    assert gaps[minilm].text == "-4.7 [-9.1, -0.5]§"
    assert "leaves 0 out" in gaps[minilm].title and "adjusted p-value 0.072 is at least 0.05" \
        in gaps[minilm].title
    assert ctx["interval_note"].startswith("§ the interval and the tier disagree")
    assert "not adjusted for the table's other comparisons" in ctx["test"]
    from leaderboard.benchmarks import site_pages
    from leaderboard.publish.site.table_display import submission_scores
    pages = [(page, [(s, [baselines_board.tables[v.id] for v in s.views])
                     for s in page.sections]) for page in site_pages()
             if page.path == "followtable.md"]
    sub = next(r for r in baselines_board.submissions if r.key == MINILM)
    section = next(s for s in submission_scores(sub, "submissions/x.md", pages)
                   if any(e["view"] == "followtable/wtr" for e in s["entries"]))
    entry = next(e for e in section["entries"] if e["view"] == "followtable/wtr")
    assert entry["gap"] == "-4.7 [-9.1, -0.5]§" and "leaves 0 out" in entry["gap_title"]
    assert section["interval_note"] == ctx["interval_note"]
    # every marked interval disagrees with its tier, and only those, on every table
    for view_table in committed_board.tables.values():
        tiered = view_table.view.tiered_column
        for row in table_context(view_table, "x.md")["rows"]:
            if row.gap is None or tiered is None:
                continue
            line = next(ln for ln in view_table.lines if ln.key == row.key)
            info = line.cells[tiered].tier
            marked = row.gap.text.endswith("§")
            assert marked == (info is not None and interval_disagrees(
                info.tier, info.p_adjusted, info.ci_low, info.ci_high, effect=info.effect)), (
                view_table.view.id, row.key)
    # the rule: tied by the adjusted p yet the interval leaves 0 out, or below yet it holds 0;
    # a tie within the reproducibility threshold (adjusted p below 0.05) is not marked
    assert interval_disagrees(TIER_TIED, 0.072, -0.091, -0.005)
    assert interval_disagrees(TIER_BELOW, 0.03, -0.02, 0.001)
    assert not interval_disagrees(TIER_TIED, 0.02, -0.0012, -0.0001)
    assert not interval_disagrees(TIER_TIED, 0.2, -0.02, 0.01)
    assert not interval_disagrees(TIER_BELOW, 0.01, -0.02, -0.01)
    assert interval_mark(TierInfo(tier=TIER_BELOW, p_adjusted=0.03, ci_low=-0.02,
                                  ci_high=0.001)).startswith(
        "the 95% interval, this comparison's alone (not adjusted for the table's other "
        "comparisons), holds 0, while the Holm-adjusted p-value 0.03 is below 0.05")
    assert verdict(0.072, -0.091, -0.005, -0.047, True, 0.05) == "inconclusive"
    assert "not adjusted for the view's other comparisons; the tier follows p_adjusted" \
        in STATISTIC_NOTE
    row = TaskStanding(task="followtable/wtr", primary_metric="IRS", headline_metric="IRS",
                       tier="tied with leader", p_adjusted=0.072, p_floor=1e-5,
                       diff_vs_best_verified=-0.047, diff_ci_low=-0.091, diff_ci_high=-0.005)
    assert "| -4.7 [-9.1, -0.5]§ |" in "\n".join(task_tables([row]))
    assert "not Holm-adjusted, and one that disagrees with the tier is marked §" \
        in tier_note([row])
