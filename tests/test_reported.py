"""Reported rows: paper transcriptions, the PI-Indic authors' files and MTEB's results.

The transcriptions are checked three ways: against themselves (each printed Average against
the mean of its printed cells), against the paper text (every row's numbers, in order, on
the paper's line for that model), and, for PI-Indic, against the authors' own result files.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from decimal import Decimal
from itertools import permutations
from pathlib import Path

import pytest
from fixtures.gitrepo import commit_folder
from fixtures.kill import ChildRun, folder_files, needs_fork, run_child

from leaderboard.benchmarks.registry import all_tasks
from leaderboard.core.data.layout_files import PI_INDIC_LANGUAGES
from leaderboard.benchmarks.protocols import relabel
from leaderboard.app.cli import main
from leaderboard.publish.output_folder import recover_folder
from leaderboard.publish.reported import build_all_reported, import_mteb, rebuild
from leaderboard.publish.reported.mteb import MtebImportError
from leaderboard.publish.reported.papers import (DATA_DIR as TRANSCRIPTIONS, PAPER_ONLY_TASK_PREFIXES,
                                         PAPER_SOURCES, TranscriptionError, check_averages,
                                         half_unit, load_paper_results, load_transcription,
                                         parse_cells)
from leaderboard.publish.reported.pi_indic_results import PiIndicResultsError, import_pi_indic_results
from leaderboard.submission.results import ResultsFileError, read_results, results_text

REPO = Path(__file__).resolve().parents[1]
DATA_DIR = Path(os.environ.get("LEADERBOARD_DATA",
                               str(Path(__file__).resolve().parents[1].parent / "shared" / "data")))
PAPERS_DIR = DATA_DIR.parent / "papers"
COMMITTED = REPO / "results" / "reported"
EXPECTED_FILES = sorted([*PAPER_SOURCES.values(), "pi-indic-results.json", "mteb-results.json"])


def _require(path: Path) -> Path:
    if not path.exists():
        pytest.fail(f"{path} not found; set LEADERBOARD_DATA to the benchmark data directory")
    return path


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    _require(DATA_DIR / "mteb-results")
    out = tmp_path_factory.mktemp("reported")
    build_all_reported(DATA_DIR, out)
    return out


@pytest.fixture(scope="module")
def pi_results():
    return import_pi_indic_results(_require(DATA_DIR / "pi-indic" / "results"))


# --- transcriptions -------------------------------------------------------------------------

@pytest.mark.parametrize("yaml_name", list(PAPER_SOURCES))
def test_printed_averages_match_their_cells(yaml_name: str) -> None:
    """Every Average equals the mean of its row's cells within the paper's rounding.

    Tolerance = half a unit of the Average's last printed digit (its own rounding) + half a
    unit of the cells' last printed digit (how far the mean of rounded cells can be from the
    mean of the exact ones). A printed Average that misses is accepted only where the YAML
    flags it as a known erratum of the paper, and a flag on an Average that matches fails.
    """
    checks = check_averages(load_transcription(TRANSCRIPTIONS / yaml_name))
    assert checks, "no Average column to check"
    wrong = [c.describe() for c in checks if not c.matches and not c.flagged]
    assert not wrong, "Average does not match the cells (transcription slip?):\n" + "\n".join(wrong)
    stale = [c.describe() for c in checks if c.matches and c.flagged]
    assert not stale, "flagged as a paper erratum but matches:\n" + "\n".join(stale)


def test_average_check_catches_a_slip(tmp_path: Path) -> None:
    text = (TRANSCRIPTIONS / "followir_table2.yaml").read_text(encoding="utf-8")
    slipped = text.replace('cells: "13.4 -6.7 20.9 -2.0 14.0 -2.9"',
                           'cells: "13.4 -6.7 29.0 -2.0 14.0 -2.9"')
    assert slipped != text
    path = tmp_path / "followir_table2.yaml"
    path.write_text(slipped, encoding="utf-8")
    bad = [c for c in check_averages(load_transcription(path)) if not c.matches]
    assert [(c.model, c.average) for c in bad] == [("E5-base-v2", "average_score")]


_NUMBER = re.compile(r"(?<![\w.])[+-]?(?:\d+\.\d+|\.\d+|\d+)(?!\w)")


@pytest.mark.parametrize("yaml_name", list(PAPER_SOURCES))
def test_rows_appear_in_the_paper_text_in_order(yaml_name: str) -> None:
    """Each row's printed numbers occur, contiguously and as written, on the paper's line
    for that model, and the rows occur in the paper's order (so no row sits in the wrong
    table)."""
    doc = load_transcription(TRANSCRIPTIONS / yaml_name)
    paper = PAPERS_DIR / doc.paper_text
    if not paper.is_file():
        pytest.skip(f"paper text {paper} not available")
    lines = paper.read_text(encoding="utf-8").splitlines()
    numbers = [_NUMBER.findall(re.sub(r"<[^>]+>", "", line)) for line in lines]
    last = -1
    for table in doc.tables:
        for row in table.rows:
            seq = row.cells.split() + (row.average.split() if row.average else [])
            key = re.split(r"[\s(]", row.model)[0].lower()[:5]
            hits = [i for i, nums in enumerate(numbers)
                    if i > last and key in lines[i].lower()
                    and any(nums[k:k + len(seq)] == seq for k in range(len(nums) - len(seq) + 1))]
            assert hits, f"{yaml_name}: {table.table} {table.section or ''} {row.model}: " \
                         f"{' '.join(seq)!r} not found after line {last + 1}"
            last = hits[0]


def test_scaling_invents_no_digits() -> None:
    for yaml_name in PAPER_SOURCES:
        doc = load_transcription(TRANSCRIPTIONS / yaml_name)
        results = load_paper_results(yaml_name)
        rows = {(s.source.table, s.model.name): s for s in results.systems}
        for table in doc.tables:
            names = [c.name for c in table.columns]
            columns = {c.name: c for c in table.columns}
            for row in table.rows:
                stored = rows[(table.table, row.model)]
                for name, printed in zip(row.columns or names, parse_cells(row.cells, "")):
                    col = columns[name]
                    value = stored.tasks[col.task].metrics[col.stored_metric]
                    exact = printed.scaleb(-2) if col.scale == 100 else printed
                    # The stored float's shortest form is the printed number, shifted.
                    assert Decimal(repr(value)) == exact, (yaml_name, row.model, name, value)
    assert repr(load_paper_results("followir_table2.yaml").systems[0]
                .tasks["followir/robust04"].metrics["p-MRR"]) == "-0.067"


def test_paper_rows_keep_each_figure_with_its_printed_digits() -> None:
    """The site showed FollowTable Table 5's StruBERT p-MRR, printed -2.34, as -2.3, and
    Table 6's NFR, printed 0.82, as 82.0: a float keeps neither how many digits a paper
    printed nor a trailing zero. Each stored figure keeps its printed text, the fraction
    with the printed digits, beside its value."""
    for yaml_name in PAPER_SOURCES:
        doc = load_transcription(TRANSCRIPTIONS / yaml_name)
        rows = {(s.source.table, s.model.name): s for s in load_paper_results(yaml_name).systems}
        for table in doc.tables:
            columns = {c.name: c for c in table.columns}
            names = [c.name for c in table.columns]
            for row in table.rows:
                stored = rows[(table.table, row.model)]
                figures = [(columns[n].task, columns[n].stored_metric, columns[n].scale, p)
                           for n, p in zip(row.columns or names, parse_cells(row.cells, ""))]
                for avg, p in zip(table.averages, parse_cells(row.average or "", "")):
                    first = columns[avg.of[0]]
                    if avg.task is not None:
                        figures.append((avg.task, avg.metric or first.stored_metric,
                                        first.scale, p))
                for task, metric, scale, printed in figures:
                    scores = stored.tasks[task]
                    exact = printed.scaleb(-2) if scale == 100 else printed
                    assert scores.printed is not None and \
                        scores.printed[metric] == format(exact, "f"), (row.model, metric)
    followtable = {s.system_id: s for s in load_paper_results(
        "followtable_tables4_5_6.yaml").systems}
    assert followtable["followtable-paper/table-5/strubert"].tasks[
        "followtable-paper/average"].printed["p-MRR"] == "-0.0234"
    assert followtable["followtable-paper/table-6/bm25"].tasks[
        "followtable-paper/negation-trap-sample"].printed == {"NFR": "0.82"}
    followir = {s.system_id: s for s in load_paper_results("followir_table2.yaml").systems}
    assert followir["followir-paper/table-2/gritlm-7b"].tasks[
        "followir-paper/average"].printed["p-MRR"] == "-0.000"  # printed -0.0: its sign kept


@pytest.mark.parametrize("kind, printed, expected", [
    ("paper", '{"p-MRR": "-0.0235"}', "printed figure 'p-MRR' '-0.0235' is not the value"),
    ("paper", '{"IRS": "0.1"}', "printed figure 'IRS' '0.1' is not the value"),
    ("paper", '{"p-MRR": "-2.34e-2"}', "printed"),
    ("mteb-results", '{"p-MRR": "-0.0234"}', "printed figures belong to a paper's reported"),
])
def test_a_printed_figure_is_its_value_and_a_papers(tmp_path: Path, kind: str, printed: str,
                                                    expected: str) -> None:
    """A printed text that is not the figure's value, or on a row no paper printed (a
    verified row, MTEB's), is refused: the site would show digits no source gives."""
    path = tmp_path / "r.json"
    path.write_text('{"kind": "reported", "systems": [{"system_id": "x", "model": {"name": '
                    '"x"}, "provenance": "reported", "source": {"kind": "%s"}, "tasks": {"t": '
                    '{"metrics": {"p-MRR": -0.0234}, "printed": %s}}}]}' % (kind, printed),
                    encoding="utf-8")
    with pytest.raises(ResultsFileError, match=re.escape(expected)):
        read_results(path)


_ROW = ('{"system_id": "x", "model": {"name": "x"}, "provenance": "reported", "source": '
        '{"kind": "paper"}, "tasks": {"t": {"metrics": {"p-MRR": -0.0234}%s}}}')


def test_printed_figures_make_a_results_file_version_2(tmp_path: Path) -> None:
    """The paper rows' printed figures (TaskScores.printed) were added to the reported
    files under schema_version 1, so a checkout from before them refused the files with
    pydantic's 'Extra inputs are not permitted', which says nothing of versions. A file
    holding them is version 2, the oldest that reads them; one without them stays
    version 1, byte for byte as before, so every earlier reader still reads it."""
    versions = {p.name: read_results(p, per_query=False).schema_version
                for p in [*COMMITTED.glob("*.json"), *REPO.glob("submissions/*/results.json")]}
    assert versions.pop("followir-paper.json") == versions.pop("mfollowir-paper.json") == 2
    assert versions.pop("followtable-paper.json") == versions.pop("pi-indic-paper.json") == 2
    assert set(versions.values()) == {1}  # MTEB's, the PI-Indic authors', the submissions'
    path = tmp_path / "r.json"
    for printed, version in [("", 1), (', "printed": {"p-MRR": "-0.0234"}', 2)]:
        path.write_text('{"kind": "reported", "systems": [%s]}' % (_ROW % printed))
        read = read_results(path)
        assert read.schema_version == version
        assert json.loads(results_text(read))["schema_version"] == version
    # As committed from 271a497 until the files said 2: still read, the same rows.
    committed = COMMITTED / "followir-paper.json"
    path.write_text(committed.read_text().replace('"schema_version": 2', '"schema_version": 1'))
    assert read_results(path).systems == read_results(committed).systems


@pytest.mark.parametrize("version", ['3', '"followboard-results/3"', '0', '"2"'])
def test_a_results_file_of_a_newer_version_says_to_update(tmp_path: Path, version: str) -> None:
    """A results file a newer FollowBoard writes is refused in one sentence naming the
    file, the version it holds and those this one reads, and to update; not with the
    first of the keys the newer version added or renamed."""
    path = tmp_path / "r.json"
    path.write_text('{"schema_version": %s, "kind": "reported", "systems": [], "new": 1}'
                    % version)
    with pytest.raises(ResultsFileError) as raised:
        read_results(path)
    if version == "3":
        assert str(raised.value) == (
            f"{path}: schema_version 3 is newer than this version of FollowBoard reads "
            "(schema_version 1 or 2); update FollowBoard to read it")
    else:  # not a newer version: what is wrong with it
        assert "is newer than" not in str(raised.value) and "schema_version: " in str(raised.value)


def test_task_ids_and_metric_keys() -> None:
    registry = all_tasks()
    for yaml_name in PAPER_SOURCES:
        for system in load_paper_results(yaml_name).systems:
            for task_id, scores in system.tasks.items():
                if task_id in registry:
                    # Figures computed against the other run's qrels (FollowIR Table 2) keep
                    # the registry's metric under a key that says so.
                    keys = set(registry[task_id].metric_keys())
                    keys |= {relabel(k.rsplit("/", 1)[0], k.rsplit("/", 1)[1], True)
                             for k in keys if k.startswith(("original/", "altered/"))}
                    assert set(scores.metrics) <= keys
                else:
                    assert task_id.startswith(PAPER_ONLY_TASK_PREFIXES), task_id
                # The paper's full PI-Indic set is not the validated 150 pairs we score.
                assert not task_id.startswith("pi-indic-val150/"), task_id
    followir = load_paper_results("followir_table2.yaml")
    gritlm = next(s for s in followir.systems if s.model.name == "GritLM-7B")
    assert gritlm.tasks["followir/news21"].metrics == {
        "original-run@changed-qrels/nDCG@5": 0.244, "p-MRR": -0.01}
    assert gritlm.tasks["followir/core17"].metrics == {
        "original-run@changed-qrels/AP@1000": 0.208, "p-MRR": 0.026}


def test_transcription_errors_name_the_file_and_key(tmp_path: Path) -> None:
    text = (TRANSCRIPTIONS / "mfollowir_tables3_4.yaml").read_text(encoding="utf-8")
    bad = tmp_path / "bad.yaml"
    bad.write_text(text.replace("metric: original/nDCG@20", "metric: original/nDCG@99", 1),
                   encoding="utf-8")
    with pytest.raises(TranscriptionError, match=r"bad\.yaml: .*original/nDCG@99"):
        load_transcription(bad)
    bad.write_text(text.replace('"0.505 -4.5 0.472', '"0.505 -4.5', 1), encoding="utf-8")
    with pytest.raises(TranscriptionError, match=r"bad\.yaml: tables\.0.*rows\.0.*5 cells"):
        load_transcription(bad)
    bad.write_text(text.replace('"0.505 -4.5', '"0.505 n/a', 1), encoding="utf-8")
    with pytest.raises(TranscriptionError, match=r"'n/a' is not a number"):
        load_transcription(bad)
    bad.write_text("tables: [\n", encoding="utf-8")
    with pytest.raises(TranscriptionError, match=r"bad\.yaml:\d+: invalid YAML"):
        load_transcription(bad)


def test_followtable_table5_repeats_table4_average() -> None:
    doc = load_transcription(TRANSCRIPTIONS / "followtable_tables4_5_6.yaml")
    table4 = next(t for t in doc.tables if t.table == "Table 4")
    table5 = next(t for t in doc.tables if t.table == "Table 5")
    qwen4 = next(r for r in table4.rows if r.model == "Qwen3-Emb (0.6B)")
    qwen5 = next(r for r in table5.rows if r.model == "Qwen3-Emb-0.6B")
    assert qwen5.cells.split() == (qwen4.average or "").split()


# --- PI-Indic: paper vs the authors' result files ---------------------------------------------

PI_PAPER_TO_FOLDER_MODEL = {  # paper's printed names -> upstream folder suffix
    "multilingual-e5-large-instruct": "multilingual-e5-large-instruct",
    "E5-Large-Instr.": "multilingual-e5-large-instruct",
    "BGE-M3": "bge-m3", "LaBSE": "LaBSE",
    "indic-sentence-bert-nli": "indic-sentence-bert-nli",
    "Indic-SBERT-NLI": "indic-sentence-bert-nli",
    "indic-sentence-similarity-sbert": "indic-sentence-similarity-sbert",
    "Indic-SBERT": "indic-sentence-similarity-sbert",
    "Para-MPNet": "paraphrase-multilingual-mpnet-base-v2",
    "Para-XLM-R": "paraphrase-xlm-r-multilingual-v1",
    "DistilUSE-Multi": "distiluse-base-multilingual-cased",
    "DistilUSE": "distiluse-base-multilingual-cased",
}


def _author_row(pi_results, task: str, paper_name: str):
    suffix = PI_PAPER_TO_FOLDER_MODEL[paper_name]
    matches = [s for s in pi_results.systems
               if re.fullmatch(rf"pi-indic-results/{task}-{re.escape(suffix)}(-v2)?", s.system_id)]
    assert len(matches) == 1, (task, paper_name, [s.system_id for s in matches])
    return matches[0]


def test_pi_indic_monolingual_cells_equal_author_files(pi_results) -> None:
    doc = load_transcription(TRANSCRIPTIONS / "pi_indic_tables3_7.yaml")
    compared = 0
    for table in doc.tables:
        folder_task = {"Table 3": "t1_mono_retrieval", "Table 5": "t3_reverse_retrieval"}
        if table.table not in folder_task:
            continue
        columns = {c.name: c for c in table.columns}
        for row in table.rows:
            author = _author_row(pi_results, folder_task[table.table], row.model)
            for name, printed in zip(row.columns or list(columns), parse_cells(row.cells, "")):
                col = columns[name]
                exact = printed.scaleb(-2) if col.scale == 100 else printed
                value = Decimal(repr(author.tasks[col.task].metrics[col.metric]))
                assert abs(value - exact) <= half_unit(exact), (table.table, row.model, name)
                compared += 1
    assert compared == 432


def test_pi_indic_cross_lingual_averages_equal_author_files(pi_results) -> None:
    """Tables 4 and 6 are the mean over ordered pairs of each model's languages (those it
    has cells for in Table 3)."""
    doc = load_transcription(TRANSCRIPTIONS / "pi_indic_tables3_7.yaml")
    table3 = next(t for t in doc.tables if t.table == "Table 3")
    all_langs = [c.name for c in table3.columns]
    langs_of = {PI_PAPER_TO_FOLDER_MODEL[r.model]: r.columns or all_langs for r in table3.rows}
    for table_name, folder_task, kind in (("Table 4", "t2_xling_retrieval", "t2"),
                                          ("Table 6", "t3_xling_reverse_retrieval", "t3")):
        table = next(t for t in doc.tables if t.table == table_name)
        for row in table.rows:
            author = _author_row(pi_results, folder_task, row.model)
            langs = langs_of[PI_PAPER_TO_FOLDER_MODEL[row.model]]
            pairs = [f"pi-indic-full/{kind}/{a}-{b}" for a, b in permutations(langs, 2)]
            for col, printed in zip(table.columns, parse_cells(row.cells, "")):
                mean = sum(author.tasks[p].metrics[col.metric] for p in pairs) / len(pairs)
                exact = printed.scaleb(-2) if col.scale == 100 else printed
                assert abs(Decimal(repr(mean)) - exact) <= half_unit(exact), \
                    (table_name, row.model, col.metric, mean, exact)


def test_pi_indic_table7_equals_an_author_t4_file(pi_results) -> None:
    paper = load_paper_results("pi_indic_tables3_7.yaml")
    for row in (s for s in paper.systems if s.source.table == "Table 7"):
        author = _author_row(pi_results, "t4_classification", row.model.name)
        matching = set()
        for split in ("t4", "t4-dev"):
            printed = row.tasks[f"pi-indic-full/{split}/all"].metrics
            for task_id, scores in author.tasks.items():
                if task_id.startswith(f"pi-indic-full/{split}/") and all(
                        abs(scores.metrics[m] - v) <= 0.0005 + 1e-12 for m, v in printed.items()):
                    matching.add(task_id.rsplit("/", 1)[1])
        assert matching in ({"asm"}, {"all"}), (row.model.name, matching)


def test_pi_indic_results_rows(pi_results) -> None:
    systems = pi_results.systems
    assert len(systems) == 40
    n_langs = len(PI_INDIC_LANGUAGES)
    for system in systems:
        assert system.source.kind == "pi-indic-results"
        assert system.source.revision == "a7d6877f5ddf"
        assert system.source.path == "results/" + system.system_id.split("/", 1)[1]
        kinds = {t.split("/")[1] for t in system.tasks}
        if "t1_mono" in system.system_id or "t3_reverse" in system.system_id:
            assert len(system.tasks) == n_langs
        elif "xling" in system.system_id:
            assert len(system.tasks) == n_langs * (n_langs - 1)
        else:
            assert kinds == {"t4", "t4-dev"} and len(system.tasks) == 2 * n_langs
            assert "lang_or_pair 'all'" in (system.source.note or "")
    bge = next(s for s in systems if s.system_id == "pi-indic-results/t2_xling_retrieval-bge-m3")
    assert set(bge.tasks["pi-indic-full/t2/asm-mal"].metrics) == {"R@1", "R@5", "R@10", "RR@10",
                                                                  "nDCG@10"}


# --- MTEB ---------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def mteb_rows():
    return import_mteb(_require(DATA_DIR / "mteb-results"), pinned_copy=True)


def test_mteb_known_values(mteb_rows) -> None:
    by_id = {s.system_id: s for s in mteb_rows.systems}
    grit = by_id["mteb/GritLM__GritLM-7B/13f00a0e36500c80ce12870ea513846a066004af"]
    assert grit.source.mteb_version == "1.12.75"
    robust = grit.tasks["followir/robust04"].metrics
    assert round(robust["p-MRR"], 6) == 0.024390
    # individual.original.map_at_1000: mteb 1.x scored it against the changed qrels.
    assert round(robust["original-run@changed-qrels/AP@1000"], 5) == 0.29126
    assert not any(k.startswith(("original/", "altered/")) for k in robust)
    assert grit.model.name == "GritLM/GritLM-7B" and grit.model.parameters == 7240000000
    assert grit.model.licence == "apache-2.0" and grit.model.type == "bi-encoder"
    bm25 = by_id["mteb/mteb__baseline-bm25s/0_1_10"]
    assert bm25.source.mteb_version == "2.10.8" and bm25.model.type == "sparse"
    news = bm25.tasks["followir/news21"].metrics
    assert round(news["p-MRR"], 6) == -0.029196
    assert round(news["original/nDCG@5"], 5) == 0.40045  # og.ndcg_at_5
    for system in (grit, bm25):
        assert system.source.kind == "mteb-results"
        assert system.source.revision == "f4cc6c8b365a"
        assert system.source.path == "results/" + system.system_id.split("/", 1)[1]


def test_mteb_rows_cover_every_result_file(mteb_rows) -> None:
    root = DATA_DIR / "mteb-results" / "results"
    files = [p for p in root.glob("*/*/*.json") if p.name != "model_meta.json"]
    imported = sum(len(s.tasks) for s in mteb_rows.systems)
    subsets = sum(len(json.loads(p.read_text())["scores"]["test"])
                  if "scores" in json.loads(p.read_text()) else 1 for p in files)
    assert imported == subsets
    assert len(mteb_rows.systems) == len({p.parent for p in files})
    versions = {s.source.mteb_version for s in mteb_rows.systems}
    assert any(v.startswith("1.") for v in versions) and any(v.startswith("2.") for v in versions)


def _write(path: Path, data: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")


def _entry(layout: str, pmrr: float, og: float, changed: float, subset: str = "default") -> dict:
    metrics = {"og": {"map_at_1000": og, "ndcg_at_10": og, "ndcg_at_5": og, "ndcg_at_20": og},
               "changed": {"map_at_1000": changed, "ndcg_at_10": changed, "ndcg_at_5": changed,
                           "ndcg_at_20": changed}}
    if layout == "1.x":
        metrics = {"individual": {"original": metrics["og"], "changed": metrics["changed"]}}
    return {"hf_subset": subset, "main_score": pmrr, "p-MRR": pmrr, **metrics}


def test_mteb_layouts_on_fixtures(tmp_path: Path) -> None:
    root = tmp_path / "results"
    _write(root / "org__m" / "rev1" / "Robust04InstructionRetrieval.json",
           {"task_name": "Robust04InstructionRetrieval", "mteb_version": "2.1.0",
            "scores": {"test": [_entry("2.x", 0.1, 0.3, 0.2)]}})
    _write(root / "org__m" / "rev2" / "Core17InstructionRetrieval.json",
           {"task_name": "Core17InstructionRetrieval", "mteb_version": "1.12.0",
            "scores": {"test": [_entry("1.x", -0.05, 0.4, 0.6)]}})
    _write(root / "org__m" / "rev2" / "model_meta.json",
           {"name": "org/m", "revision": "rev2", "n_parameters": 1000, "license": "mit",
            "is_cross_encoder": True})
    _write(root / "org__old" / "no_revision_available" / "News21InstructionRetrieval.json",
           {"mteb_dataset_name": "News21InstructionRetrieval", "mteb_version": "1.7.32",
            "test": {"p-MRR": 0.07, "evaluation_time": 1.0}})
    _write(root / "org__cl" / "r" / "mFollowIRCrossLingualInstructionRetrieval.json",
           {"task_name": "mFollowIRCrossLingualInstructionRetrieval", "mteb_version": "1.36.1",
            "scores": {"test": [_entry("1.x", 0.01, 0.5, 0.4, s)
                                for s in ("eng-fas", "eng-rus", "eng-zho")]}})
    _write(root / "org__m" / "rev1" / "SomeOtherTask.json", {"not": "ours"})
    rows = {s.system_id: s for s in import_mteb(tmp_path).systems}
    assert set(rows) == {"mteb/org__m/rev1", "mteb/org__m/rev2",
                         "mteb/org__old/no_revision_available", "mteb/org__cl/r"}
    assert rows["mteb/org__m/rev1"].tasks["followir/robust04"].metrics == {
        "p-MRR": 0.1, "original/AP@1000": 0.3, "original/nDCG@10": 0.3,
        "altered/AP@1000": 0.2, "altered/nDCG@10": 0.2}
    rev2 = rows["mteb/org__m/rev2"]
    # mteb 1.x scored each run against the other run's qrels: its figures get keys that
    # say so, and the note keeps the file's own labels.
    assert rev2.tasks["followir/core17"].metrics["original-run@changed-qrels/AP@1000"] == 0.4
    assert rev2.tasks["followir/core17"].metrics["altered-run@original-qrels/AP@1000"] == 0.6
    assert not any(k.startswith(("original/", "altered/"))
                   for k in rev2.tasks["followir/core17"].metrics)
    assert rev2.model.type == "cross-encoder" and rev2.model.licence == "mit"
    assert "individual.original" in (rev2.source.note or "")
    assert rev2.source.mteb_version == "1.12.0"
    old = rows["mteb/org__old/no_revision_available"]
    assert old.tasks == {"followir/news21": old.tasks["followir/news21"]}
    assert old.tasks["followir/news21"].metrics == {"p-MRR": 0.07}
    assert old.model.name == "org/old" and old.model.type == "other"
    cl = rows["mteb/org__cl/r"]
    assert set(cl.tasks) == {"mfollowir-cl/fas", "mfollowir-cl/rus", "mfollowir-cl/zho"}
    assert cl.tasks["mfollowir-cl/rus"].metrics == {
        "p-MRR": 0.01, "original-run@changed-qrels/nDCG@20": 0.5,
        "altered-run@original-qrels/nDCG@20": 0.4}
    # A second mteb version for the same revision becomes its own row, both ids marked.
    _write(root / "org__m" / "rev1" / "Core17InstructionRetrieval.json",
           {"task_name": "Core17InstructionRetrieval", "mteb_version": "2.2.0",
            "scores": {"test": [_entry("2.x", 0.2, 0.3, 0.2)]}})
    ids = [s.system_id for s in import_mteb(tmp_path).systems]
    assert "mteb/org__m/rev1@mteb-2.1.0" in ids and "mteb/org__m/rev1@mteb-2.2.0" in ids
    assert len(ids) == len(set(ids))


def test_mteb_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out.json"
    assert main(["import", "mteb", str(tmp_path / "missing"), "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("leaderboard import mteb: error: "), err  # it was "error: "
    assert "missing" in err and "Traceback" not in err and err.count("\n") == 1
    broken = tmp_path / "repo" / "results" / "a__b" / "r" / "News21InstructionRetrieval.json"
    broken.parent.mkdir(parents=True)
    broken.write_text('{"mteb_version": "2.0.0", "scores": ', encoding="utf-8")
    assert main(["import", "mteb", str(tmp_path / "repo"), "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert str(broken) in err and "invalid JSON" in err and err.count("\n") == 1
    assert not out.exists()
    _write(broken, {"task_name": "News21InstructionRetrieval", "mteb_version": "2.0.0",
                    "scores": {"test": [_entry("2.x", 0.1, 0.2, 0.3, subset="xx")]}})
    with pytest.raises(MtebImportError, match=r"News21InstructionRetrieval\.json: .*'xx'"):
        import_mteb(tmp_path / "repo")
    (tmp_path / "empty").mkdir()
    assert main(["import", "mteb", str(tmp_path / "empty"), "--out", str(out)]) == 1
    assert "no result files" in capsys.readouterr().err


GOOD_TASK = {"task_name": "News21InstructionRetrieval", "mteb_version": "2.0.0",
             "scores": {"test": [_entry("2.x", 0.1, 0.2, 0.3)]}}


@pytest.mark.parametrize(("file", "content", "message"), [
    # Each stopped `import mteb` with "internal error" (a traceback's last line) or
    # imported a row the board then showed.
    ("task", '{"task_name": "News21InstructionRetrieval", "mteb_version": "2.0.0", '
             '"scores": {"test": [{"hf_subset": "default", "p-MRR": NaN}]}}',
     r"scores\.test\.0\.p-MRR: expected a finite number, got nan"),
    ("task", '{"task_name": "News21InstructionRetrieval", "mteb_version": "2.0.0", '
             '"scores": {"test": [{"hf_subset": "default", "p-MRR": 1e999}]}}',
     r"expected a finite number, got inf"),
    ("task", '{"task_name": "News21InstructionRetrieval", "mteb_version": "2.0.0", '
             '"scores": {"test": [{"hf_subset": "default", "p-MRR": 1' + "0" * 400 + '}]}}',
     r"expected a finite number, got 1000"),
    ("task", '{"task_name": ["x"], "mteb_version": "2.0.0"}',
     r"task_name: expected text, got \['x'\]"),
    ("task", '{"task_name": "News21InstructionRetrieval", "mteb_version": "2.0.0", '
             '"scores": {"test": [{"hf_subset": ["d"], "p-MRR": 0.1}]}}',
     r"scores\.test\.0\.hf_subset: expected text"),
    ("meta", '{"name": "a\\ud800b"}', r"model_meta\.json: name: holds U\+D800"),
    ("meta", '{"name": "a\\u001b[31mb"}', r"model_meta\.json: name: holds U\+001B"),
    ("meta", '{"name": "m", "reference": "javascript:alert(1)"}',
     r"model_meta\.json: reference: link 'javascript:alert\(1\)' must start with http"),
])
def test_mteb_bad_values_name_the_file(file: str, content: str, message: str,
                                       tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "repo" / "results" / "a__b" / "r"
    _write(folder / "News21InstructionRetrieval.json", GOOD_TASK)
    name = "News21InstructionRetrieval.json" if file == "task" else "model_meta.json"
    (folder / name).write_text(content, encoding="utf-8")
    out = tmp_path / "out.json"
    assert main(["import", "mteb", str(tmp_path / "repo"), "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert re.search(message, err) and str(folder / name) in err, err
    assert err.count("\n") == 1 and not out.exists()


def test_mteb_parameters_beyond_any_number_are_unknown(tmp_path: Path) -> None:
    """``n_parameters: 1e400`` (infinite) stopped the import with an OverflowError."""
    folder = tmp_path / "results" / "a__b" / "r"
    _write(folder / "News21InstructionRetrieval.json", GOOD_TASK)
    for huge in ("1e400", "1" + "0" * 400, "true"):
        (folder / "model_meta.json").write_text(f'{{"name": "m", "n_parameters": {huge}}}')
        (row,) = import_mteb(tmp_path).systems
        assert row.model.parameters is None, huge


def test_mteb_rows_name_the_commit_their_files_come_from(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Every imported row named the pinned copy's commit, f4cc6c8b365a, whatever commit
    the folder was at: a reader looking for its files there found other ones, or none."""
    clone = tmp_path / "clone"
    _write(clone / "results" / "a__b" / "r" / "News21InstructionRetrieval.json", GOOD_TASK)
    _write(clone / "results" / "c__d" / "r" / "News21InstructionRetrieval.json", GOOD_TASK)
    head = commit_folder(clone)
    out = tmp_path / "out.json"
    # A clone: its HEAD, named by the repository or by its results/ folder.
    for named in (clone, clone / "results"):
        assert main(["import", "mteb", str(named), "--out", str(out),
                     "--data-dir", str(DATA_DIR)]) == 0
        assert "warning" not in capsys.readouterr().err
        written = read_results(out)
        assert {s.source.revision for s in written.systems} == {head[:12]}
        assert written.produced_by["upstream"] == f"embeddings-benchmark/results@{head[:12]}"
    # A row whose files differ from the clone's HEAD names no commit, and says why.
    _write(clone / "results" / "c__d" / "r" / "model_meta.json", {"name": "c/d"})
    assert main(["import", "mteb", str(clone), "--out", str(out),
                 "--data-dir", str(DATA_DIR)]) == 0
    assert "1 of 2 rows name no commit" in capsys.readouterr().err
    rows = {s.system_id: s.source for s in read_results(out).systems}
    assert rows["mteb/a__b/r"].revision == head[:12] and rows["mteb/c__d/r"].revision is None
    assert f"clone of the results repository at commit {head[:12]} whose files of this " \
        "row differ from it" in (rows["mteb/c__d/r"].note or "")
    # A folder that is neither a clone nor the data folder's copy: no commit, said so. A
    # folder inside another checkout is no clone of the results repository either.
    for plain in (tmp_path / "plain", clone / "copy"):
        _write(plain / "results" / "a__b" / "r" / "News21InstructionRetrieval.json",
               GOOD_TASK)
        assert main(["import", "mteb", str(plain), "--out", str(out),
                     "--data-dir", str(DATA_DIR)]) == 0
        assert "1 of 1 rows name no commit" in capsys.readouterr().err
        written = read_results(out)
        (source,) = [s.source for s in written.systems]
        assert source.revision is None and "neither a git clone" in (source.note or "")
        assert written.produced_by["upstream"] == \
            "embeddings-benchmark/results (commit unknown)"
    # The data folder's copy is at the pinned commit (test_mteb_command_writes_and_summarises).


def test_mteb_command_writes_and_summarises(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "mteb.json"
    assert main(["import", "mteb", str(_require(DATA_DIR / "mteb-results")),
                 "--out", str(out), "--data-dir", str(DATA_DIR)]) == 0
    printed = capsys.readouterr().out
    assert printed.count("\n") == 1 and "200 rows" in printed and "2.10.8" in printed
    assert out.read_bytes() == (COMMITTED / "mteb-results.json").read_bytes()


# --- generated files ------------------------------------------------------------------------

def test_committed_files_are_what_the_build_produces(built: Path) -> None:
    assert sorted(p.name for p in built.iterdir()) == EXPECTED_FILES
    for name in EXPECTED_FILES:
        committed = COMMITTED / name
        assert committed.is_file(), f"{committed} is not committed; run leaderboard import all"
        assert committed.read_bytes() == (built / name).read_bytes(), \
            f"{committed} is stale; regenerate with leaderboard import all"


def test_rebuild_is_byte_identical(built: Path, tmp_path: Path) -> None:
    build_all_reported(DATA_DIR, tmp_path)
    for name in EXPECTED_FILES:
        assert (tmp_path / name).read_bytes() == (built / name).read_bytes(), name


def test_rebuild_from_a_wrong_data_folder_writes_nothing(tmp_path: Path) -> None:
    """`import all --data-dir` given a folder without the PI-Indic and MTEB results wrote
    the four paper files, then stopped at the missing folder: every source is read before
    any file is written."""
    out = tmp_path / "reported"
    with pytest.raises(PiIndicResultsError, match="pi-indic/results: no such folder"):
        build_all_reported(tmp_path / "not-the-data", out)
    assert not out.exists() or not any(out.iterdir())


def test_an_import_given_no_folder_says_so_as_every_command_does(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`import mteb` and `import all` said "no such directory" of a folder that is not
    there, and of a file, where every other command says "no such folder" or "not a
    folder"."""
    (tmp_path / "a-file").write_text("x")
    for name, said in (("nope", "no such folder"), ("a-file", "not a folder")):
        assert main(["import", "mteb", str(tmp_path / name), "--out",
                     str(tmp_path / "out.json")]) == 1
        assert f"leaderboard import mteb: error: {tmp_path / name}: {said}\n" == \
            capsys.readouterr().err
        with pytest.raises(PiIndicResultsError, match=f"{name}: {said}$"):
            import_pi_indic_results(tmp_path / name)
    assert not (tmp_path / "out.json").exists()


# The file operations a killed rebuild is stopped at, one after the other.
KILL_POINTS = ("open", "replace", "rename", "link", "unlink", "mkdir", "rmdir", "chmod",
               "fsync")



def _rebuild_in_child_killed_at(k: int, out: Path) -> ChildRun:
    """``import all`` into ``out`` in a forked child whose ``k``-th file operation kills
    it (0: none)."""
    return run_child(lambda: build_all_reported(DATA_DIR, out), KILL_POINTS, fail_at=k)


@pytest.mark.slow
@needs_fork
def test_a_rebuild_killed_at_any_file_operation_leaves_every_file_old_or_every_one_new(
        built: Path, sweep_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`import all` wrote its six files one after the other into results/reported/: killed
    between two, the folder held some files old and some new, which `git add -A` then
    committed as they were. Killed now at any file operation, the folder is the old one or
    the new one, and a file it does not write stays."""
    # The sources as read once (reading them is no write, and takes most of the time).
    papers = {yaml: load_paper_results(yaml, TRANSCRIPTIONS) for yaml in PAPER_SOURCES}
    pi_indic = import_pi_indic_results(DATA_DIR / "pi-indic" / "results")
    mteb = import_mteb(DATA_DIR / "mteb-results", pinned_copy=True)
    monkeypatch.setattr(rebuild, "load_paper_results", lambda yaml, _folder: papers[yaml])
    monkeypatch.setattr(rebuild, "import_pi_indic_results", lambda _folder: pi_indic)
    monkeypatch.setattr(rebuild, "import_mteb", lambda _folder, pinned_copy: mteb)

    def old_folder(out: Path) -> dict[str, bytes]:
        out.mkdir(parents=True)
        for name in EXPECTED_FILES:
            (out / name).write_text('{"old": true}\n', encoding="utf-8")
        (out / "NOTES.md").write_text("not written by import all\n", encoding="utf-8")
        return folder_files(out)

    reference = sweep_path / "reference" / "reported"
    old = old_folder(reference)
    run = _rebuild_in_child_killed_at(0, reference)
    assert run.code == 0, run.output
    n_ops = run.operations
    new = folder_files(reference)
    assert n_ops > 10 and new == {**{name: (built / name).read_bytes()
                                     for name in EXPECTED_FILES},
                                  "NOTES.md": old["NOTES.md"]}
    seen = {"old": 0, "new": 0}
    for k in range(1, n_ops + 1):
        out = sweep_path / f"run-{k}" / "reported"
        old_folder(out)
        assert _rebuild_in_child_killed_at(k, out).code is None, f"op {k}: not killed"
        files = folder_files(out)
        assert files in (old, new), f"op {k} of {n_ops}: " + ", ".join(
            f"{name} {'old' if files.get(name) == old[name] else 'new'}"
            for name in EXPECTED_FILES)
        seen["old" if files == old else "new"] += 1
        recover_folder(out)  # what the next run does first
        assert [p.name for p in out.parent.iterdir()] == ["reported"], f"op {k}: left beside it"
    assert seen["old"] and seen["new"], seen


@needs_fork
def test_import_mteb_killed_at_every_file_operation_leaves_git_the_old_or_the_new_file(
        tmp_path: Path) -> None:
    """`import mteb` killed while writing results/reported/mteb-results.json left the
    temporary file its next run removes (.mteb-results.json.<pid>-XXXX.tmp), which
    `git add -A` in the checkout committed meanwhile as a reported file (half of one,
    killed mid-write): the repository ignores it, as it ignores the leftovers of a killed
    change, build or `import all`. Killed at any instant, git sees the old file or the new
    one, and nothing else; the next import leaves no leftover."""
    source = tmp_path / "mteb"
    _write(source / "results" / "org__m" / "rev1" / "Robust04InstructionRetrieval.json",
           {"task_name": "Robust04InstructionRetrieval", "mteb_version": "2.1.0",
            "scores": {"test": [_entry("2.x", 0.1, 0.3, 0.2)]}})
    repo = tmp_path / "repo"
    out = repo / "results" / "reported" / "mteb-results.json"
    out.parent.mkdir(parents=True)
    shutil.copy(REPO / ".gitignore", repo / ".gitignore")
    out.write_text('{"old": true}\n', encoding="utf-8")
    commit_folder(repo)
    old = out.read_bytes()
    argv = ["import", "mteb", str(source), "--out", str(out)]
    reference = run_child(lambda: main(argv), KILL_POINTS + ("write",))
    assert reference.code == 0, reference.output
    new = out.read_bytes()
    assert new != old and reference.operations > 3, reference.operations

    def git_status() -> list[str]:
        return subprocess.run(["git", "-C", str(repo), "status", "--porcelain",
                               "--untracked-files=all"], capture_output=True, text=True,
                              check=True).stdout.splitlines()

    for k in range(1, reference.operations + 1):
        out.write_bytes(old)
        killed = run_child(lambda: main(argv), KILL_POINTS + ("write",), fail_at=k)
        assert killed.code is None, f"op {k}: not killed\n{killed.output}"
        assert out.read_bytes() in (old, new), f"op {k}"
        assert git_status() == ([] if out.read_bytes() == old else
                                [" M results/reported/mteb-results.json"]), f"op {k}"
    assert main(argv) == 0 and out.read_bytes() == new
    assert sorted(p.name for p in out.parent.iterdir()) == ["mteb-results.json"]


def test_a_rebuild_into_a_file_says_so_and_writes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "reported"
    out.write_text("not a folder", encoding="utf-8")
    with pytest.raises(rebuild.ReportedFolderError, match="reported: exists and is not a folder"):
        build_all_reported(DATA_DIR, out)
    assert [p.name for p in tmp_path.iterdir()] == ["reported"]


@pytest.mark.parametrize("name", EXPECTED_FILES)
def test_generated_files_are_valid_reported_rows(built: Path, name: str) -> None:
    path = built / name
    assert path.stat().st_size < 5_000_000
    results = read_results(path)
    assert results.kind == "reported" and results.systems
    ids = [s.system_id for s in results.systems]
    assert len(ids) == len(set(ids)), "system ids must be unique within a file"
    for system in results.systems:
        assert system.provenance == "reported"
        assert system.source.kind != "scored"
        assert system.tasks
        for scores in system.tasks.values():
            assert scores.per_query == {}, f"{system.system_id} has per-query scores"
            assert scores.metrics
            assert all(-1.0 <= v <= 1.0 for v in scores.metrics.values())


def test_row_counts(built: Path) -> None:
    counts = {name: len(read_results(built / name).systems) for name in EXPECTED_FILES}
    assert counts == {"followir-paper.json": 24, "mfollowir-paper.json": 36,
                      "followtable-paper.json": 26, "pi-indic-paper.json": 40,
                      "pi-indic-results.json": 40, "mteb-results.json": 200}


@pytest.mark.parametrize("content, expected", [
    (b'{"schema_version": 1,\n "kind": "reported",\n "systems": [,]}', r"r\.json:3: invalid JSON"),
    (b'{"schema_version": 1, "kind": "reported", "systems": []}\xff', r"r\.json: cannot read"),
    (b'\xef\xbb\xbf{"kind": "reported", "systems": []}', r"r\.json:1: invalid JSON"),
    (b'{"kind": "reported", "systems": [{"system_id": "x", "model": {"name": "x"}, '
     b'"provenance": "reported", "source": {"kind": "paper", "citation": "c"}, '
     b'"tasks": {"t": {"metrics": {"AP": NaN}}}}]}', r"r\.json: systems\.0\..*finite"),
    (b'{"kind": "nonsense", "systems": []}', r"r\.json: kind: "),
])
def test_results_reader_names_the_file_and_line(tmp_path: Path, content: bytes,
                                                expected: str) -> None:
    path = tmp_path / "r.json"
    path.write_bytes(content)
    with pytest.raises(ResultsFileError, match=expected):
        read_results(path)


@pytest.mark.parametrize("content", [
    b'{"a":' * 100 + b"1" + b"}" * 100,          # nested deeper than the bound
    b'{"task": "x",\n "backbone": \xe9}',         # not UTF-8
    b'{"task": "x",\n "backbone": }',             # not JSON, on line 2
])
def test_the_importers_refuse_a_bad_json_file_as_every_reader_does(tmp_path: Path,
                                                                   content: bytes) -> None:
    """MTEB's and the PI-Indic authors' result files are read by the one reader of JSON
    from outside (core.fileio.load_json), with its messages; each importer had its own
    copy of it, one naming a bad byte in Python's words."""
    from leaderboard.core.fileio import load_json
    from leaderboard.publish.reported.mteb import read_task_file
    from leaderboard.publish.reported.pi_indic_results import PiIndicResultsError

    path = tmp_path / "results" / "t1-model" / "t1-model-hin-dev-1.json"
    path.parent.mkdir(parents=True)
    path.write_bytes(content)
    with pytest.raises(ValueError) as expected:
        load_json(content, str(path), ValueError)
    with pytest.raises(PiIndicResultsError) as pi_indic:
        import_pi_indic_results(tmp_path / "results")
    with pytest.raises(MtebImportError) as mteb:
        read_task_file(path)
    assert str(pi_indic.value) == str(mteb.value) == str(expected.value)


@pytest.mark.skipif(not Path("/proc/self/mem").exists(), reason="needs Linux's /proc/self/mem")
def test_the_importers_name_a_result_file_that_cannot_be_read(tmp_path: Path) -> None:
    """An upstream result file that is there but cannot be read (an I/O error, permission
    denied; here a link to /proc/self/mem, whose first read is EIO) is refused naming it,
    by both importers, never an OSError naming none."""
    from leaderboard.publish.reported.mteb import read_task_file
    from leaderboard.publish.reported.pi_indic_results import PiIndicResultsError

    path = tmp_path / "results" / "t1-model" / "t1-model-hin-dev-1.json"
    path.parent.mkdir(parents=True)
    path.symlink_to("/proc/self/mem")
    with pytest.raises(PiIndicResultsError, match=rf"^{re.escape(str(path))}: cannot read: "):
        import_pi_indic_results(tmp_path / "results")
    with pytest.raises(MtebImportError, match=rf"^{re.escape(str(path))}: cannot read: "):
        read_task_file(path)
