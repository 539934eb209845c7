"""The per-query explanation (leaderboard.core.explain) and `leaderboard explain`.

Every figure a card shows must be the engine's: the cards' per-document terms are held to
:func:`leaderboard.core.explain.reference_card` (plain lists, one document at a time) and add up
to the score sheet's per-query p-MRR and IRS, on real FollowTable data, on the FollowIR
and mFollowIR fixtures in mteb's layout and on small runs built to hit each corner
(a changed document a run leaves out, a query a run leaves out, ties).
"""

from __future__ import annotations

import gzip
import json
import random
import unicodedata
from collections import defaultdict
from pathlib import Path

import pytest

from fixtures.mteb_collection import run_lines, write_collection
from leaderboard.app.cli import main
from leaderboard.core.data import iter_corpus, load_task_data
from leaderboard.core.data.layout_files import PI_INDIC_LANGUAGES
from leaderboard.core.data.pi_indic import read_language
from leaderboard.core import graphemes
from leaderboard.core.graphemes import boundaries, cut_between_clusters, last_boundary
from leaderboard.core.explain import (
    SNIPPET_CHARS,
    UnknownQueryError,
    explain_task,
    reference_card,
    text_record,
)
from leaderboard.core.evaluate import check_task_files, score_inputs
from leaderboard.benchmarks.registry import get_task

REPO = Path(__file__).resolve().parents[1]
BM25_RUNS = REPO / "submissions" / "bm25s" / "runs"
TOLERANCE = 1e-12


def _lines(path: Path) -> dict[str, list[tuple[str, str, float]]]:
    opener = gzip.open if path.suffix == ".gz" else open
    by_query: dict[str, list[tuple[str, str, float]]] = defaultdict(list)
    with opener(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            qid, _, doc, _, score, _ = line.split()
            by_query[qid].append((qid, doc, float(score)))
    return by_query


def _explained(task_id: str, files: dict[str, Path], data_dir: Path):  # noqa: ANN202
    task = get_task(task_id)
    report, inputs = check_task_files(task, data_dir, files)
    assert inputs is not None, report.lines()
    sheet = score_inputs(inputs)
    return task, inputs, sheet, explain_task(task, inputs.data, sheet, inputs.runs,
                                             inputs.predictions)


def _check_against_reference(files: dict[str, Path], inputs, sheet, explanation) -> int:  # noqa: ANN001
    """Every card equals the plain reference and the engine; returns the cards checked."""
    original, altered = _lines(files["original"]), _lines(files["altered"])
    corpus_size = inputs.data.corpus_size
    with_irs = "IRS" in sheet.per_query
    for query, card in explanation.cards.items():
        topic = card.original_query
        ref = reference_card(original.get(topic, []), altered.get(query, []), topic, query,
                             [m.doc for m in card.changed], [m.doc for m in card.positive],
                             corpus_size)
        assert [d.doc for d in card.top["original"]] == ref["top_original"]
        assert [d.doc for d in card.top["altered"]] == ref["top_altered"]
        for move in card.changed + card.positive:
            assert move.rank_original == ref["rank_original"].get(move.doc)
            assert move.rank_altered == ref["rank_altered"].get(move.doc)
        for move in card.changed:
            assert move.p_mrr == pytest.approx(ref["p_mrr_terms"][move.doc], abs=TOLERANCE)
        if card.changed:
            engine = sheet.per_query["p-MRR"][query]
            assert card.metrics["p-MRR"] == engine
            assert ref["p_mrr"] == pytest.approx(engine, abs=TOLERANCE)
            terms = sum(m.p_mrr for m in card.changed) / len(card.changed)
            assert terms == pytest.approx(engine, abs=TOLERANCE)
        else:
            assert "p-MRR" not in card.metrics
        if with_irs:
            engine = sheet.per_query["IRS"][query]
            assert card.metrics["IRS"] == engine
            assert ref["irs"] == pytest.approx(engine, abs=TOLERANCE)
            gains = sum(m.irs_gain for m in card.changed + card.positive)
            assert gains == pytest.approx(card.irs_parts["S"], abs=TOLERANCE)
            assert card.irs_parts["S"] == pytest.approx(ref["S"], abs=TOLERANCE)
            assert card.irs_parts["S_ideal"] == pytest.approx(ref["S_ideal"], abs=TOLERANCE)
            assert card.irs_parts["S_worst"] == pytest.approx(ref["S_worst"], abs=TOLERANCE)
            if card.irs_parts["scale"] and all(card.run_lengths.values()):
                shown = max(-1.0, min(1.0, gains / card.irs_parts["scale"]))
                assert shown == pytest.approx(engine, abs=TOLERANCE)
    return len(explanation.cards)


def test_followtable_cards_equal_the_engine_and_the_plain_reference(data_dir: Path) -> None:
    files = {role: BM25_RUNS / "followtable" / "wtr" / f"{role}.trec.gz"
             for role in ("original", "altered")}
    task, inputs, sheet, explanation = _explained("followtable/wtr", files, data_dir)
    assert _check_against_reference(files, inputs, sheet, explanation) == 267
    rows = {row.query: row for row in explanation.rows}
    assert set(rows) == set(inputs.data.roles["altered"].query_ids)
    for query, row in rows.items():
        assert row.group == inputs.data.groups[query]
        assert row.original_query == inputs.data.pairs[query]
        topic = inputs.data.pairs[query]
        assert row.metrics["original/nDCG@10"] == sheet.per_query["original/nDCG@10"][topic]
        assert row.metrics["altered/nDCG@10"] == sheet.per_query["altered/nDCG@10"][query]
    card = explanation.card("0_0")
    t_minus = set(inputs.data.changed["0_0"])
    assert {m.doc for m in card.changed} == t_minus
    assert {m.doc for m in card.positive} == set(inputs.data.instruction_positive["0_0"])
    for doc in card.top["original"]:
        assert (doc.pair_role == "changed") == (doc.doc in t_minus)


def _write_run(path: Path, rows: list[tuple[str, str, float]]) -> Path:
    path.write_text("".join(f"{q} Q0 {d} {i + 1} {s!r} t\n" for i, (q, d, s) in enumerate(rows)),
                    encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def followir_world(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, object]:
    data_dir = tmp_path_factory.mktemp("followir-data")
    local = get_task("followir/core17").source.local_dir
    collection = write_collection(data_dir / local, n_queries=5, pool_size=20, unchanged=1,
                                  seed=3)
    return data_dir, collection


def test_followir_fixture_cards_equal_the_engine(followir_world, tmp_path: Path) -> None:
    data_dir, collection = followir_world
    rng = random.Random(7)
    # Scores on a coarse grid: many ties, broken by docid descending.
    scores = {q: {d: float(rng.randint(0, 4)) for d in collection.pools[q]}
              for q in collection.base_ids}
    altered_scores = {q: {d: float(rng.randint(0, 4)) for d in collection.pools[q]}
                      for q in collection.base_ids}
    files = {"original": tmp_path / "og.trec", "altered": tmp_path / "new.trec"}
    files["original"].write_text("".join(run_lines(collection, "original", scores)))
    files["altered"].write_text("".join(run_lines(collection, "altered", altered_scores)))
    task, inputs, sheet, explanation = _explained("followir/core17", files, data_dir)
    assert _check_against_reference(files, inputs, sheet, explanation) == 5
    card = explanation.card(f"{collection.base_ids[1]}-changed")
    assert card.original_query == f"{collection.base_ids[1]}-og"
    assert {m.doc for m in card.changed} == set(collection.changed[collection.base_ids[1]])
    assert card.positive == [] and card.irs_parts == {}
    assert "instruction" in card.texts["altered"]
    # The first query has no changed document: listed, without a p-MRR.
    first = explanation.card(f"{collection.base_ids[0]}-changed")
    assert first.changed == [] and "p-MRR" not in first.metrics


def test_mfollowir_fixture_cards_equal_the_engine(tmp_path: Path) -> None:
    local = get_task("mfollowir/fas").source.local_dir
    collection = write_collection(tmp_path / "data" / local, n_queries=4, pool_size=15,
                                  language="fas", seed=5)
    files = {"original": tmp_path / "og.trec", "altered": tmp_path / "new.trec"}
    files["original"].write_text("".join(run_lines(collection, "original", seed=2)))
    files["altered"].write_text("".join(run_lines(collection, "altered", seed=9)))
    _, inputs, sheet, explanation = _explained("mfollowir/fas", files, tmp_path / "data")
    assert _check_against_reference(files, inputs, sheet, explanation) == 4


def test_unranked_documents_and_unanswered_queries(followir_world, tmp_path: Path) -> None:
    """A changed document a run leaves out has no rank and the rank p-MRR gives it; a query
    a run leaves out scores 0 with every term 0 and no top list."""
    data_dir, collection = followir_world
    q1, q2 = collection.base_ids[1], collection.base_ids[2]
    left_out = collection.changed[q1][0]
    original = [(f"{q}-og", d, float(len(collection.pools[q]) - i))
                for q in collection.base_ids for i, d in enumerate(collection.pools[q])]
    altered = [(f"{q}-changed", d, float(len(collection.pools[q]) - i))
               for q in collection.base_ids if q != q2
               for i, d in enumerate(collection.pools[q]) if d != left_out or q != q1]
    files = {"original": _write_run(tmp_path / "og.trec", original),
             "altered": _write_run(tmp_path / "new.trec", altered)}
    task = get_task("followir/core17")
    # Leaving documents and a query out breaks the depth rule, so the runs are parsed
    # without the checks against the task and scored as they are.
    from leaderboard.core.data import load_task_data
    from leaderboard.core.runs.validation import read_run
    from leaderboard.core.scoring import score_task

    runs = {role: read_run(path).run for role, path in files.items()}
    data = load_task_data(task, data_dir)
    sheet = score_task(task, data, runs)
    explanation = explain_task(task, data, sheet, runs)
    card = explanation.card(f"{q1}-changed")
    move = next(m for m in card.changed if m.doc == left_out)
    assert move.rank_altered is None
    assert move.p_mrr_rank_altered == card.run_lengths["altered"] + 1
    assert move.rank_original == collection.pools[q1].index(left_out) + 1
    silent = explanation.card(f"{q2}-changed")
    assert silent.run_lengths["altered"] == 0 and silent.top["altered"] == []
    assert all(m.p_mrr == 0.0 for m in silent.changed)
    assert silent.metrics["p-MRR"] == 0.0


def test_pi_indic_cards_rank_the_relevant_instruction(data_dir: Path) -> None:
    files = {"run": BM25_RUNS / "pi-indic-val150" / "t1" / "hin" / "run.trec.gz"}
    task, inputs, sheet, explanation = _explained("pi-indic-val150/t1/hin", files, data_dir)
    assert len(explanation.rows) == 150
    plain = _lines(files["run"])
    for query, card in explanation.cards.items():
        ranking = [d for _, d in sorted(((s, d) for _, d, s in plain[query]), reverse=True)]
        assert [d.doc for d in card.top["run"]] == ranking[:10]
        (relevant,) = card.changed
        rank = relevant.rank_altered
        assert rank == ranking.index(relevant.doc) + 1
        expected_rr = 1.0 / rank if rank <= 10 else 0.0
        assert card.metrics["RR@10"] == pytest.approx(expected_rr, abs=TOLERANCE)
        assert card.metrics["RR@10"] == sheet.per_query["RR@10"][query]


def test_t4_cards_list_each_personas_pairs(data_dir: Path) -> None:
    """T4's unit is the persona: a row per persona with its per-query scores, and a card
    listing its pairs, the most probable first, with the submitted probabilities."""
    files = {"predictions": BM25_RUNS / "pi-indic-val150" / "t4" / "hin" / "predictions.tsv"}
    task, inputs, sheet, explanation = _explained("pi-indic-val150/t4/hin", files, data_dir)
    personas = set(inputs.data.groups.values())
    assert [row.query for row in explanation.rows] == list(sheet.per_query["Accuracy"])
    assert set(explanation.cards) == personas and len(personas) == sheet.n_queries
    probability = inputs.predictions.by_pair()
    labels = inputs.data.roles["predictions"].qrels
    pairs_seen = 0
    for persona, card in explanation.cards.items():
        mine = {p for p, who in inputs.data.groups.items() if who == persona}
        assert {p["pair"] for p in card.pairs} == mine
        assert [p["probability"] for p in card.pairs] == sorted(
            (probability[p] for p in mine), reverse=True)
        for pair in card.pairs:
            assert pair["probability"] == probability[pair["pair"]]
            assert pair["label"] == labels[pair["pair"]]["label"]
        right = sum((p["probability"] >= 0.5) == bool(p["label"]) for p in card.pairs)
        assert card.metrics["Accuracy"] == sheet.per_query["Accuracy"][persona]
        assert card.metrics["Accuracy"] == pytest.approx(right / len(card.pairs), abs=TOLERANCE)
        pairs_seen += len(card.pairs)
    assert pairs_seen == len(inputs.data.roles["predictions"].query_ids)


def test_a_text_record_names_the_snippets_it_cut(data_dir: Path) -> None:
    """The page took a snippet of SNIPPET_CHARS characters as cut, and so showed Assamese
    instruction i31, whole at exactly 280, with an ellipsis as "the first 280
    characters": the record names the documents whose snippet is not their whole text."""
    task = get_task("pi-indic-val150/t1/asm")
    whole = dict(iter_corpus(task, data_dir))
    record = text_record(task, load_task_data(task, data_dir), whole.items())
    assert len(whole["i31"]) == SNIPPET_CHARS and record["docs"]["i31"] == whole["i31"]
    assert "i31" not in record["cut"]
    cut = sorted(d for d, text in whole.items() if len(text) > SNIPPET_CHARS)
    assert record["cut"] == cut and len(cut) == 47
    for doc, text in record["docs"].items():
        assert (text != whole[doc]) == (doc in cut)


def test_a_snippet_ends_between_two_characters_as_a_reader_sees_them(data_dir: Path) -> None:
    """Snippets were a text's first 280 code points: Hindi persona p84's ended in "क्",
    the virama of the conjunct "क्ष" with its second consonant cut off (and 280 of the
    755 PI-Indic texts longer than 280 were cut inside a character so, a vowel sign or a
    virama left without its consonant): a snippet ends between two grapheme clusters,
    and the record names it cut though shorter than SNIPPET_CHARS."""
    task = get_task("pi-indic-val150/t3/hin")
    whole = dict(iter_corpus(task, data_dir))
    record = text_record(task, load_task_data(task, data_dir), whole.items())
    assert whole["p84"][276:281] == "अपक्ष"
    assert record["docs"]["p84"] == whole["p84"][:278] and "p84" in record["cut"]
    marks = ("Mn", "Mc", "Me")
    viramas = "\u094d\u09cd\u0a4d\u0acd\u0b4d\u0c4d\u0ccd\u0d4d"  # Tamil's is written
    inside = 0
    for lang in PI_INDIC_LANGUAGES:
        language = read_language(data_dir, lang)
        for side in ("persona", "instruction"):
            for text in language.text(side).values():
                shown = cut_between_clusters(text, SNIPPET_CHARS)
                assert text.startswith(shown) and len(shown) <= SNIPPET_CHARS
                if len(text) <= SNIPPET_CHARS:
                    assert shown == text
                    continue
                inside += (len(shown) < SNIPPET_CHARS)
                after = text[len(shown)]
                assert unicodedata.category(after) not in marks and after not in "\u200c\u200d"
                assert not (shown[-1] in viramas and unicodedata.category(after) == "Lo")
                assert len(shown) >= SNIPPET_CHARS - 6  # an aksara is a few code points
    assert inside == 280


@pytest.mark.parametrize(("text", "expected"), [
    ("क्षय", ["क्ष", "य"]),                    # Devanagari conjunct (UAX #29 GB9c)
    ("क्\u200dष", ["क्\u200dष"]),             # ZWJ asks for the half form: one
    ("क्\u200cष", ["क्\u200c", "ष"]),          # ZWNJ shows the virama: two
    ("ಕ್ಷಣ", ["ಕ್ಷ", "ಣ"]),                     # Kannada's conjunct too (UAX #29 splits it)
    ("ਪ੍ਰਕ", ["ਪ੍ਰ", "ਕ"]),                     # Gurmukhi's subjoined ra too
    ("க்க", ["க்", "க"]),                       # Tamil's pulli is written: two
    ("কি", ["কি"]),                             # a vowel sign stays with its consonant
    ("می\u200cخواهم", ["م", "ی\u200c", "خ", "و", "ا", "ه", "م"]),  # Persian ZWNJ joins back
    ("приве\u0301т", ["п", "р", "и", "в", "е\u0301", "т"]),       # a combining accent
    ("\U0001F468\u200d\U0001F469\u200d\U0001F467!",
     ["\U0001F468\u200d\U0001F469\u200d\U0001F467", "!"]),      # an emoji ZWJ sequence
    ("\U0001F44D\U0001F3FD", ["\U0001F44D\U0001F3FD"]),           # a skin-tone modifier
    ("\U0001F1EE\U0001F1F3\U0001F1EE", ["\U0001F1EE\U0001F1F3", "\U0001F1EE"]),  # flags
    ("a\r\nb", ["a", "\r\n", "b"]),
    ("\u0600\u0661", ["\u0600\u0661"]),                          # a prepended mark
    ("", []),
])
def test_grapheme_clusters_of_the_board_s_scripts(text: str, expected: list[str]) -> None:
    cuts = boundaries(text)
    clusters = [text[a:b] for a, b in zip(cuts, cuts[1:])]
    assert clusters == expected
    assert "".join(clusters) == text


def test_a_cut_falls_back_to_the_last_whole_cluster() -> None:
    assert cut_between_clusters("क्षय", 2) == ""  # the first cluster is longer
    assert cut_between_clusters("क्षय", 3) == "क्ष"
    assert cut_between_clusters("क्षय", 4) == "क्षय"  # whole: not cut
    assert cut_between_clusters("ab\u0301c", 2) == "a"


@pytest.mark.parametrize("window", [0, 1, 3, 24])
def test_the_last_boundary_read_near_the_cut_is_the_plain_scans(
        window: int, data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """last_boundary reads only a few clusters before the cut (the plain scan from the
    text's start made a cold scoring pass 1 CPU-s slower): at cuts throughout every PI-Indic
    text, and of random strings of the characters the rules treat apart (marks, viramas,
    ZWJ, ZWNJ, prepended marks, regional indicators, CR LF, spaces, letters), it is the
    last of the plain :func:`boundaries`, however few characters it starts reading at."""
    monkeypatch.setattr(graphemes, "_WINDOW", window)
    texts = [text for lang in PI_INDIC_LANGUAGES
             for side in ("persona", "instruction")
             for text in read_language(data_dir, lang).text(side).values()]
    for text in texts:
        for limit in (*range(0, len(text) + 2, 97), SNIPPET_CHARS):
            assert last_boundary(text, limit) == boundaries(text, limit)[-1], (text, limit)
    alphabet = ["क", "ष", "\u094d", "\u0ccd", "ಕ", "\u0bcd", "க", "\u093f", "\u0301",
                "\u200c", "\u200d", "\u0600", "\U0001F1EE", "\U0001F3FD", "\r", "\n",
                " ", "a", "م"]
    rng = random.Random(20261129)
    for _ in range(600):
        text = "".join(rng.choices(alphabet, k=rng.randrange(1, 40)))
        for limit in range(len(text) + 2):
            assert last_boundary(text, limit) == boundaries(text, limit)[-1], (text, limit)


def test_unknown_query_names_close_ids(data_dir: Path) -> None:
    files = {"run": BM25_RUNS / "pi-indic-val150" / "t1" / "hin" / "run.trec.gz"}
    *_, explanation = _explained("pi-indic-val150/t1/hin", files, data_dir)
    with pytest.raises(UnknownQueryError, match=r"has no query 'p1x'; did you mean p1\b"):
        explanation.card("p1x")


def test_cli_lists_queries_worst_first_and_prints_a_card(data_dir: Path, capsys) -> None:  # noqa: ANN001
    run_dir = BM25_RUNS / "followtable" / "wtr"
    args = ["explain", "followtable/wtr", "--original", str(run_dir / "original.trec.gz"),
            "--altered", str(run_dir / "altered.trec.gz"), "--data-dir", str(data_dir)]
    assert main([*args, "--json", "--limit", "5"]) == 0
    listed = json.loads(capsys.readouterr().out)
    values = [row["metrics"]["IRS"] for row in listed["queries"]]
    assert len(values) == 5 and values == sorted(values)
    assert main([*args, "--query", "0_0", "--json"]) == 0
    card = json.loads(capsys.readouterr().out)["card"]
    assert card["query"] == "0_0" and card["group"] == "S1"
    assert main([*args, "--query", "0_0"]) == 0
    text = capsys.readouterr().out
    assert "p-MRR term" in text and "IRS = S / " in text
    assert main([*args, "--query", "0_99"]) == 1
    assert ("leaderboard explain: error: followtable/wtr has no query '0_99'"
            in capsys.readouterr().err)
    # A usage error, as argparse words one (it was "explain: --sort ...", exit 2).
    for sort in ("nDCG@10", ""):  # "" was taken as "the default" without a word
        with pytest.raises(SystemExit) as info:
            main([*args, "--sort", sort])
        assert info.value.code == 2
        assert (f"leaderboard explain: error: --sort {sort!r} is not a per-query metric"
                in capsys.readouterr().err)



def test_cli_json_has_one_set_of_keys_card_or_not(data_dir: Path, capsys) -> None:  # noqa: ANN001
    """`explain --json` without --query left "card" out, though its help promises
    {"task", "queries", "card"}: a consumer reading out["card"] got a KeyError. The key
    is always there, null when no query was asked for, and the help says so."""
    run_dir = BM25_RUNS / "followtable" / "wtr"
    args = ["explain", "followtable/wtr", "--original", str(run_dir / "original.trec.gz"),
            "--altered", str(run_dir / "altered.trec.gz"), "--data-dir", str(data_dir),
            "--json", "--limit", "1"]
    outs = []
    for query in ([], ["--query", "0_0"]):
        capsys.readouterr()
        assert main([*args, *query]) == 0
        outs.append(json.loads(capsys.readouterr().out))
    assert [sorted(out) for out in outs] == [["card", "format", "queries", "task"]] * 2
    assert outs[0]["card"] is None and outs[1]["card"]["query"] == "0_0"
    with pytest.raises(SystemExit):
        main(["explain", "--help"])
    assert '"card" null without --query' in " ".join(capsys.readouterr().out.split())

def test_cli_names_t4s_per_persona_auroc_as_a_part_of_the_tasks(data_dir: Path,
                                                                capsys) -> None:  # noqa: ANN001
    """A persona's AUROC figure is its DeLong component (the task's AUROC is their mean;
    p103's is above 100): printed under the bare name AUROC it reads as the persona's own
    AUROC, so the list and the card call it a part and say what it is."""
    predictions = BM25_RUNS / "pi-indic-val150" / "t4" / "hin" / "predictions.tsv"
    args = ["explain", "pi-indic-val150/t4/hin", "--predictions", str(predictions),
            "--data-dir", str(data_dir)]
    assert main(args) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "lowest AUROC part first" in lines[0]
    assert lines[1].startswith("AUROC part: the persona's DeLong component")
    assert lines[2].split() == ["query", "AUROC", "part", "Accuracy", "Balanced", "accuracy"]
    assert main([*args, "--query", "p103"]) == 0
    text = capsys.readouterr().out
    # Unsigned, as the catalogue has AUROC: it printed "AUROC part +102.27".
    assert "AUROC part 102.27" in text and "the task's AUROC is their mean" in text


def test_cli_signs_only_the_measures_the_catalogue_signs(data_dir: Path, capsys) -> None:  # noqa: ANN001
    """The list and the card signed every figure ("original/nDCG@10 +84.15" in a column
    beside "0.00"); the board and `compare` sign p-MRR and IRS alone (core.measures), and
    the card's terms and gains, differences each, stay signed."""
    run_dir = BM25_RUNS / "followtable" / "wtr"
    args = ["explain", "followtable/wtr", "--original", str(run_dir / "original.trec.gz"),
            "--altered", str(run_dir / "altered.trec.gz"), "--data-dir", str(data_dir)]
    assert main([*args, "--limit", "20"]) == 0
    lines = capsys.readouterr().out.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("query "))
    names = lines[header].split()[3:]
    assert names == ["IRS", "altered/nDCG@10", "original/nDCG@10", "p-MRR"], names
    for line in lines[header + 1:]:
        cells = dict(zip(names, line.split()[3:]))
        assert not cells["original/nDCG@10"].startswith("+"), line
        assert not cells["altered/nDCG@10"].startswith("+"), line
        assert cells["IRS"][0] in "+-" or cells["IRS"] == "0.00", line
        assert cells["p-MRR"][0] in "+-" or cells["p-MRR"] == "0.00", line
    assert main([*args, "--query", "43_0"]) == 0
    card = capsys.readouterr().out.splitlines()
    assert "original/nDCG@10 84.15" in card[1] and "p-MRR +54.26" in card[1], card[1]
    assert any(line.startswith("  IRS: S = -") for line in card), card


def test_cli_reports_a_missing_run_file(data_dir: Path, tmp_path: Path, capsys) -> None:  # noqa: ANN001
    run_dir = BM25_RUNS / "followtable" / "wtr"
    code = main(["explain", "followtable/wtr", "--original", str(tmp_path / "nope.trec"),
                 "--altered", str(run_dir / "altered.trec.gz"), "--data-dir", str(data_dir)])
    err = capsys.readouterr().err
    assert code == 1
    assert "nope.trec" in err and "Traceback" not in err
