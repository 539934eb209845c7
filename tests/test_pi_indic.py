"""PI-Indic val150 reader and T4 pair set, on the real upstream CSVs, plus T4 metrics."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
from collections import Counter
from itertools import permutations
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from leaderboard.core.data import pi_indic
from leaderboard.core.data.base import DataFormatError, MissingDataError
from leaderboard.core.metrics import classification as cls
from leaderboard.benchmarks.registry import get_task, tasks_of
from leaderboard.core.data.layout_files import (PI_INDIC_FILE_TEMPLATE, PI_INDIC_LANGUAGES,
                                                PI_INDIC_LOCAL_DIR, PI_INDIC_VALIDATION_DIR)
from leaderboard.core.data.notes import DataNote, note_text, source_note_lines

DATA_DIR = Path(os.environ.get("LEADERBOARD_DATA",
                               str(Path(__file__).resolve().parents[1].parent / "shared" / "data")))
LANGS = list(PI_INDIC_LANGUAGES)
N = 150
# What the two experts of the pinned revision say of each pair (the reader keeps their
# columns and reads nothing from them).
EXPERT_LABELS = ("Completely Agree", "Partially Agree", "Do Not Agree")


def as_frame(pairs: pi_indic.T4Pairs) -> pd.DataFrame:
    """A T4 pair set as a table, its texts' columns only when it has them."""
    columns = dataclasses.asdict(pairs)
    return pd.DataFrame({name: values for name, values in columns.items() if values is not None})


@pytest.fixture(scope="module")
def data_dir() -> Path:
    if not (DATA_DIR / "pi-indic").is_dir():
        pytest.fail(f"PI-Indic data not found under {DATA_DIR}; set LEADERBOARD_DATA")
    return DATA_DIR


# --- reader ------------------------------------------------------------------------------

@pytest.mark.parametrize("lang", LANGS)
def test_every_language_loads_150_one_to_one(data_dir: Path, lang: str) -> None:
    for kind, qprefix, dprefix in (("t1", "p", "i"), ("t3", "i", "p")):
        task = get_task(f"pi-indic-val150/{kind}/{lang}")
        data = pi_indic.load(task, data_dir)
        assert list(data.roles) == ["run"]
        role = data.roles["run"]
        assert role.query_ids == [f"{qprefix}{k}" for k in range(1, N + 1)]
        # One relevant document per query, its own counterpart, and no document twice.
        assert all(role.qrels[q] == {f"{dprefix}{q[1:]}": 1} for q in role.query_ids)
        relevant = [d for q in role.query_ids for d in role.qrels[q]]
        assert len(set(relevant)) == N
        assert data.doc_ids.dtype.kind == "U"
        assert list(data.doc_ids) == sorted(f"{dprefix}{k}" for k in range(1, N + 1))
        assert data.pools is None
        assert set(relevant) == set(data.doc_ids)
        assert all(text.strip() for text in role.query_text.values())
        assert len(role.query_text) == N


def test_no_row_is_dropped_on_the_pinned_revision(data_dir: Path) -> None:
    for lang in LANGS:
        parsed = pi_indic.read_language(data_dir, lang)
        assert parsed.dropped == {}, parsed.dropped
        assert parsed.columns["id"] == tuple(range(1, N + 1))
        assert parsed.ids == list(range(1, N + 1))
        assert set(parsed.columns["expert_1"]) | set(parsed.columns["expert_2"]) <= set(
            EXPERT_LABELS)
        assert all(parsed.columns["eng_persona"])


def test_punjabi_stray_brace_is_repaired_and_reported(data_dir: Path) -> None:
    parsed = pi_indic.read_language(data_dir, "pan")
    assert parsed.stray_braces == (5,)  # row id 4, line 5
    assert parsed.text("persona")[4].startswith("ਇੱਕ ਵਿਗਿਆਨ")
    assert all(not p.stray_braces for lang in LANGS if lang != "pan"
               for p in [pi_indic.read_language(data_dir, lang)])


def test_the_pinned_revision_gives_exactly_the_notes_its_quirks_warrant(
        data_dir: Path) -> None:
    """Every task reading the Punjabi file, and no other, carries the note of its stray
    brace (line 5, row id 4) in its data, as `eval`, `validate`, `score` and `data status`
    show it; no row of any language is left out, so there is no other note."""
    punjabi = (f"{PI_INDIC_LOCAL_DIR}/{PI_INDIC_VALIDATION_DIR}/"
               + PI_INDIC_FILE_TEMPLATE.format(name="Punjabi"))
    stray = DataNote("stray-brace", punjabi, ("5",))
    with_notes = {}
    for task in tasks_of("pi-indic-val150"):
        notes = pi_indic.load(task, data_dir).notes
        assert notes == ((stray,) if "pan" in (task.query_language, task.doc_language)
                         else ()), task.id
        with_notes[task.id] = notes
    assert sum(bool(notes) for notes in with_notes.values()) == 47
    assert source_note_lines(with_notes) == [
        f"{punjabi}: line 5: a context cell ends in a stray '}}' after its JSON object "
        "(an upstream typo), which is ignored (47 of 300 tasks)"]


def test_languages_align_by_id_english_matches(data_dir: Path) -> None:
    hin = pi_indic.read_language(data_dir, "hin").columns
    tam = pi_indic.read_language(data_dir, "tam").columns
    assert np.mean([a == b for a, b in zip(hin["eng_persona"], tam["eng_persona"])]) > 0.95
    assert all(a != b for a, b in zip(hin["persona"], tam["persona"]))


def test_t2_and_t3_cross_lingual_sides_use_the_right_languages(data_dir: Path) -> None:
    hin = pi_indic.read_language(data_dir, "hin")
    tam = pi_indic.read_language(data_dir, "tam")
    t2 = get_task("pi-indic-val150/t2/hin-tam")
    queries = dict(pi_indic.iter_queries(t2, data_dir))
    corpus = dict(pi_indic.iter_corpus(t2, data_dir))
    assert queries["p7"] == hin.text("persona")[7]
    assert corpus["i7"] == tam.text("instruction")[7]
    assert pi_indic.load(t2, data_dir).roles["run"].query_text == queries

    t3 = get_task("pi-indic-val150/t3/tam-hin")
    queries = dict(pi_indic.iter_queries(t3, data_dir))
    corpus = dict(pi_indic.iter_corpus(t3, data_dir))
    assert queries["i9"] == tam.text("instruction")[9]
    assert corpus["p9"] == hin.text("persona")[9]
    data = pi_indic.load(t3, data_dir)
    assert data.roles["run"].qrels["i9"] == {"p9": 1}


# The Unicode block each language's script is in (the first code point of the block, the
# last): what the texts of a task declared in that language must be written in.
SCRIPTS = {"hin": (0x0900, 0x097F), "ory": (0x0B00, 0x0B7F), "urd": (0x0600, 0x06FF)}


def _script_of(text: str) -> str:
    letters = Counter(next((lang for lang, (lo, hi) in SCRIPTS.items() if lo <= ord(c) <= hi),
                           None) for c in text if c.isalpha())
    return letters.most_common(1)[0][0]


@pytest.mark.parametrize("task_id", ["pi-indic-val150/t1/urd", "pi-indic-val150/t2/hin-urd",
                                     "pi-indic-val150/t3/urd-ory", "pi-indic-val150/t4/urd"])
def test_a_tasks_declared_languages_are_those_of_its_texts(data_dir: Path,
                                                           task_id: str) -> None:
    """The reader, the reference models and the site's query explorer (which marks each
    text lang="ur" dir="rtl") take a task's languages from its declaration: its queries'
    and its documents' texts are in them (a T3 query an instruction, its documents
    personas)."""
    task = get_task(task_id)
    queries = dict(pi_indic.iter_queries(task, data_dir))
    corpus = dict(pi_indic.iter_corpus(task, data_dir))
    assert {_script_of(t) for t in list(queries.values())[:20]} == {task.query_language}
    assert {_script_of(t) for t in list(corpus.values())[:20]} == {task.doc_language}


def test_all_132_ordered_pairs_load(data_dir: Path) -> None:
    t2 = [t for t in tasks_of("pi-indic-val150") if t.id.startswith("pi-indic-val150/t2/")]
    assert len(t2) == 132 == len(list(permutations(LANGS, 2)))
    for task in t2:
        data = pi_indic.load(task, data_dir)
        src, tgt = task.query_language, task.doc_language
        assert task.id.endswith(f"/{src}-{tgt}")
        assert len(data.roles["run"].query_ids) == N and data.corpus_size == N


@pytest.mark.parametrize("task_id", ["pi-indic-val150/t2/hin-tam", "pi-indic-val150/t3/tam",
                                     "pi-indic-val150/t4/hin"])
def test_the_corpus_of_some_documents_is_the_whole_corpus_filtered(task_id: str,
                                                                   data_dir: Path) -> None:
    task = get_task(task_id)
    whole = list(pi_indic.iter_corpus(task, data_dir))
    only = {doc for doc, _ in whole[::7]} | {"i0"}
    assert list(pi_indic.iter_corpus(task, data_dir, only)) == [
        (doc, text) for doc, text in whole if doc in only]


def test_missing_files_are_listed_exactly(tmp_path: Path, data_dir: Path) -> None:
    task = get_task("pi-indic-val150/t2/asm-urd")
    with pytest.raises(MissingDataError) as info:
        pi_indic.load(task, tmp_path)
    missing = {p.name for p in info.value.missing}
    assert missing == {"Nirdesha_Multilingual_Validation - Assamese.csv",
                       "Nirdesha_Multilingual_Validation - Urdu.csv"}
    assert "asm-urd" in str(info.value)

    # Only one of the two present: exactly the other one is reported.
    folder = tmp_path / "pi-indic" / PI_INDIC_VALIDATION_DIR
    folder.mkdir(parents=True)
    name = "Nirdesha_Multilingual_Validation - Assamese.csv"
    shutil.copy(data_dir / "pi-indic" / PI_INDIC_VALIDATION_DIR / name, folder / name)
    with pytest.raises(MissingDataError) as info:
        pi_indic.load(task, tmp_path)
    assert [p.name for p in info.value.missing] == ["Nirdesha_Multilingual_Validation - Urdu.csv"]


def test_a_parsed_language_is_looked_up_with_one_stat_a_file(data_dir: Path,
                                                               monkeypatch) -> None:
    """A task asks for its languages a few times as it loads and again for the explorer's
    texts (912 times for the 300 tasks): once a file is parsed, each ask is a stat of it.
    Resolving its path's links and checking it twice more took 0.3 CPU-s of those asks."""
    task = get_task("pi-indic-val150/t2/hin-tam")
    pi_indic.load(task, data_dir)  # both files parsed, kept for the process
    calls: list[str] = []
    for name in ("stat", "lstat"):
        real = getattr(os, name)
        monkeypatch.setattr(os, name, lambda *a, _real=real, _name=name, **k:
                            calls.append(_name) or _real(*a, **k))
    assert len(pi_indic.usable_ids(task, data_dir)) == N
    assert calls == ["stat", "stat"]


def test_an_edited_language_file_is_read_again(tmp_path: Path) -> None:
    _write_csv(tmp_path, "hin", HEADER + _row(1, "a", "b") + _row(2, "c", "d"))
    task = get_task("pi-indic-val150/t1/hin")
    assert pi_indic.load(task, tmp_path).roles["run"].query_ids == ["p1", "p2"]
    path = pi_indic.language_file(tmp_path, task, "hin")
    before = path.stat().st_mtime_ns
    _write_csv(tmp_path, "hin", HEADER + _row(1, "a", "b") + _row(3, "e", "f"))
    os.utime(path, ns=(before + 10**9, before + 10**9))
    assert pi_indic.load(task, tmp_path).roles["run"].query_ids == ["p1", "p3"]


def _write_csv(root: Path, lang: str, body: str) -> None:
    folder = root / "pi-indic" / PI_INDIC_VALIDATION_DIR
    folder.mkdir(parents=True, exist_ok=True)
    name = PI_INDIC_FILE_TEMPLATE.format(name=PI_INDIC_LANGUAGES[lang])
    (folder / name).write_text(body, encoding="utf-8")


def _row(item: int, persona: str, instruction: str, tail: str = "") -> str:
    ctx = ('"{""indian_context_persona"": ""%s"", ""indian_context_instruction"": ""%s""}%s"'
           % (persona, instruction, tail))
    return f"{item},{ctx},{ctx},Completely Agree,Do Not Agree\n"


HEADER = "id,ENG_indian_context,indian_context,expert_1,expert_2\n"


def test_empty_text_rows_are_dropped_and_reported(tmp_path: Path) -> None:
    _write_csv(tmp_path, "hin", HEADER + _row(1, "a", "b") + _row(2, "", "d") + _row(3, "e", "f")
               + _row(4, "g", "h"))
    task = get_task("pi-indic-val150/t1/hin")
    data = pi_indic.load(task, tmp_path)
    assert data.roles["run"].query_ids == ["p1", "p3", "p4"]
    dropped = pi_indic.dropped_ids(task, tmp_path)
    assert list(dropped) == [2] and dropped[2].endswith(":3: empty indian_context_persona")
    # Kept rows regardless of the experts' verdict ("Do Not Agree" above).
    assert data.roles["run"].qrels["p4"] == {"i4": 1}
    # The task's data says so, as `eval` and `data status` show it.
    hindi = f"{PI_INDIC_LOCAL_DIR}/{PI_INDIC_VALIDATION_DIR}/" + PI_INDIC_FILE_TEMPLATE.format(
        name="Hindi")
    assert data.notes == (DataNote("empty-text", hindi, ("2",)),)
    assert note_text(data.notes[0]) == (
        f"{hindi}: 1 pair (id 2) with an empty persona or instruction text, left out of "
        "every task that reads the file")


def test_a_stray_brace_is_noted_on_every_task_reading_the_file(tmp_path: Path) -> None:
    _write_csv(tmp_path, "hin", HEADER + _row(1, "a", "b") + _row(2, "c", "d", tail="}}")
               + _row(3, "e", "f"))
    _write_csv(tmp_path, "tam", HEADER + _row(1, "a", "b") + _row(2, "c", "d") + _row(3, "e", "f"))
    hindi = f"{PI_INDIC_LOCAL_DIR}/{PI_INDIC_VALIDATION_DIR}/" + PI_INDIC_FILE_TEMPLATE.format(
        name="Hindi")
    for task_id in ("pi-indic-val150/t1/hin", "pi-indic-val150/t2/tam-hin",
                    "pi-indic-val150/t3/hin-tam"):
        data = pi_indic.load(get_task(task_id), tmp_path)
        assert data.notes == (DataNote("stray-brace", hindi, ("3",)),), task_id
        assert len(data.roles["run"].query_ids) == 3  # the row is read, not left out
    assert pi_indic.load(get_task("pi-indic-val150/t1/tam"), tmp_path).notes == ()


def test_cross_lingual_task_uses_ids_usable_in_both_languages(tmp_path: Path) -> None:
    _write_csv(tmp_path, "hin", HEADER + _row(1, "a", "b") + _row(2, "c", "d") + _row(3, "e", "f"))
    _write_csv(tmp_path, "tam", HEADER + _row(1, "a", "b") + _row(2, "c", "") + _row(3, "e", "f"))
    task = get_task("pi-indic-val150/t2/hin-tam")
    data = pi_indic.load(task, tmp_path)
    assert data.roles["run"].query_ids == ["p1", "p3"]
    assert list(data.doc_ids) == ["i1", "i3"]
    assert list(pi_indic.dropped_ids(task, tmp_path)) == [2]
    tamil = f"{PI_INDIC_LOCAL_DIR}/{PI_INDIC_VALIDATION_DIR}/" + PI_INDIC_FILE_TEMPLATE.format(
        name="Tamil")
    assert data.notes == (DataNote("empty-text", tamil, ("2",)),)


def test_a_pair_one_language_file_lacks_is_noted(tmp_path: Path) -> None:
    _write_csv(tmp_path, "hin", HEADER + _row(1, "a", "b") + _row(2, "c", "d") + _row(3, "e", "f"))
    _write_csv(tmp_path, "tam", HEADER + _row(1, "a", "b") + _row(3, "e", "f"))
    data = pi_indic.load(get_task("pi-indic-val150/t2/hin-tam"), tmp_path)
    assert data.roles["run"].query_ids == ["p1", "p3"]
    tamil = f"{PI_INDIC_LOCAL_DIR}/{PI_INDIC_VALIDATION_DIR}/" + PI_INDIC_FILE_TEMPLATE.format(
        name="Tamil")
    assert data.notes == (DataNote("missing-pair", tamil, ("2",)),)
    assert note_text(data.notes[0]) == (
        f"{tamil}: lacks 1 pair (id 2) that the task's other file has, left out of the task")


@pytest.mark.parametrize("body, message", [
    (HEADER + _row(1, "a", "b") + _row(1, "c", "d"), ":3: id 1 repeats line 2"),
    (HEADER + _row(1, "a", "b", tail=" trailing"), ":2: unexpected text after the JSON object"),
    (HEADER + "x" + _row(1, "a", "b"), ":2: id 'x1' is not an integer"),
    ("id,indian_context\n1,{}\n", ":1: missing column(s) ENG_indian_context, expert_1, expert_2"),
    (HEADER + '1,"{not json",{},A,B\n', ":2: invalid JSON in context column"),
    # Two rows run together (a line's ending lost): the first's last cell took the next
    # row's id ("Do Not Agree2"), and the rest was ignored.
    (HEADER + _row(1, "a", "b").rstrip("\n") + _row(2, "c", "d"),
     ":2: expected 5 columns, found 9"),
])
def test_malformed_csv_names_file_and_line(tmp_path: Path, body: str, message: str) -> None:
    _write_csv(tmp_path, "mar", body)
    with pytest.raises(DataFormatError) as info:
        pi_indic.load(get_task("pi-indic-val150/t1/mar"), tmp_path)
    assert "Marathi.csv" in str(info.value) and message in str(info.value)


def test_line_numbers_count_multiline_cells(tmp_path: Path) -> None:
    # A quoted cell spanning two lines (here an expert column) shifts later line numbers.
    multiline = _row(1, "a", "b").replace("Do Not Agree", '"Do Not\nAgree"')
    _write_csv(tmp_path, "mar", HEADER + multiline + _row(1, "c", "d"))
    with pytest.raises(DataFormatError, match=r"Marathi\.csv:4: id 1 repeats line 2"):
        pi_indic.load(get_task("pi-indic-val150/t1/mar"), tmp_path)


def test_a_file_that_cannot_be_read_is_named(tmp_path: Path, monkeypatch, capsys) -> None:
    """A language's CSV that is there but cannot be read (permission denied, an I/O error)
    is refused naming it, by the reader and through `leaderboard eval`: the error was
    '[Errno 13] Permission denied', naming no file, as the FollowTable, mteb-layout and
    reported-figures readers name theirs. (Simulated: the tests may run as root, whom no
    permission stops.)"""
    from leaderboard.app.cli import main

    _write_csv(tmp_path, "mar", HEADER + _row(1, "a", "b"))
    path = (tmp_path / "pi-indic" / PI_INDIC_VALIDATION_DIR
            / PI_INDIC_FILE_TEMPLATE.format(name=PI_INDIC_LANGUAGES["mar"]))
    read_bytes = Path.read_bytes

    def denied(self: Path) -> bytes:
        if self.name == path.name:
            raise PermissionError(13, "Permission denied", str(self))
        return read_bytes(self)

    monkeypatch.setattr(Path, "read_bytes", denied)
    with pytest.raises(DataFormatError, match=r"Marathi\.csv: cannot read: Permission denied$"):
        pi_indic.load(get_task("pi-indic-val150/t1/mar"), tmp_path)
    run = tmp_path / "run.trec"
    run.write_text("p1 Q0 i1 1 1.0 x\n")
    capsys.readouterr()
    rc = main(["eval", "pi-indic-val150/t1/mar", "--run", str(run), "--data-dir", str(tmp_path)])
    out, err = capsys.readouterr()
    assert rc == 1 and f"{path}: cannot read: Permission denied" in out + err


# --- T4 pair set -------------------------------------------------------------------------

def test_t4_pair_set_has_hard_negatives_calibration_split_and_opaque_ids(data_dir: Path) -> None:
    task = get_task("pi-indic-val150/t4/hin")
    pairs = as_frame(pi_indic.t4_pairs(task, data_dir, split="all"))
    assert list(pairs.columns) == ["pair_id", "persona_id", "instruction_id", "label", "split"]
    assert pairs["pair_id"].is_unique
    # One positive per persona, ten hard negatives each (150 instructions: always ten).
    assert Counter(pairs["label"]) == {1: N, 0: 10 * N}
    pos, neg = pairs[pairs.label == 1], pairs[pairs.label == 0]
    assert (pos["persona_id"].str[1:] == pos["instruction_id"].str[1:]).all()
    assert (neg["persona_id"].str[1:] != neg["instruction_id"].str[1:]).all()
    assert Counter(pairs["persona_id"]) == {f"p{k}": 11 for k in range(1, N + 1)}
    # Opaque ids: nothing in the id names the persona or the instruction.
    assert pairs["pair_id"].str.fullmatch(r"t4-[0-9a-f]{12}").all()
    # Persona-level split, half and half; every pair of a persona on one side.
    assert pairs.groupby("persona_id")["split"].nunique().max() == 1
    assert Counter(pairs.drop_duplicates("persona_id")["split"]) == {"calibration": 75,
                                                                     "test": 75}
    # The default is the scored (test) half; calibration gives the other half.
    test = as_frame(pi_indic.t4_pairs(task, data_dir))
    calibration = as_frame(pi_indic.t4_pairs(task, data_dir, split="calibration"))
    assert set(test["split"]) == {"test"} and set(calibration["split"]) == {"calibration"}
    assert len(test) + len(calibration) == len(pairs)
    # Negatives are the instructions lexically closest to the persona's own.
    hin = pi_indic.read_language(data_dir, "hin").text("instruction")
    first = pairs[pairs.persona_id == "p1"]
    own = hin[1]
    chosen = [int(i[1:]) for i in first[first.label == 0]["instruction_id"]]
    scores = {k: pi_indic.token_set_ratio(own, hin[k]) for k in hin if k != 1}
    assert min(scores[k] for k in chosen) >= max(v for k, v in scores.items() if k not in chosen)
    assert [scores[k] for k in chosen] == sorted((scores[k] for k in chosen), reverse=True)


def test_t4_pair_set_is_pinned_and_split_is_language_independent(data_dir: Path) -> None:
    hin = as_frame(pi_indic.t4_pairs(get_task("pi-indic-val150/t4/hin"), data_dir, split="all"))
    again = as_frame(pi_indic.t4_pairs(get_task("pi-indic-val150/t4/hin"), data_dir, split="all"))
    ory = as_frame(pi_indic.t4_pairs(get_task("pi-indic-val150/t4/ory"), data_dir, split="all"))
    assert hin.equals(again)
    # The persona split is the same in every language; negatives are mined per language.
    split = lambda f: dict(zip(f["persona_id"], f["split"]))  # noqa: E731
    assert split(hin) == split(ory)
    assert set(hin["pair_id"]).isdisjoint(ory["pair_id"])
    # Pinned: ids and negatives must never change, or submitted predictions break.
    assert hin["pair_id"].tolist()[:3] == ["t4-5f5acece6ce7", "t4-3092a5dad6ef",
                                           "t4-011885b70099"]
    assert hin["instruction_id"].tolist()[:3] == ["i1", "i12", "i34"]


def test_token_set_ratio_matches_rapidfuzz_and_the_plain_programme(data_dir: Path) -> None:
    rapidfuzz = pytest.importorskip("rapidfuzz")
    paragraphs = list(pi_indic.read_language(data_dir, "tam").text("instruction").values())[:25]
    short = ["", "a b", "b a", "a b c", "x", "the cat sat", "the cat sat on the mat"]
    texts = paragraphs + short
    for a in texts:
        for b in texts[:12]:
            expected = rapidfuzz.fuzz.token_set_ratio(a, b)
            assert pi_indic.token_set_ratio(a, b) == pytest.approx(expected, abs=1e-9)
    # The plain programme is a Python loop over every pair of characters (10 s for the
    # grid above): held to the fast distance on six paragraphs and every short text.
    for a in paragraphs[:6] + short:
        for b in paragraphs[:6] + short:
            assert pi_indic.token_set_ratio(
                a, b, distance=pi_indic.indel_distance_plain) == pi_indic.token_set_ratio(a, b)
    assert pi_indic.indel_distance_plain("kitten", "sitting") == 5  # LCS "ittn"


def test_t4_task_data_and_texts(data_dir: Path) -> None:
    task = get_task("pi-indic-val150/t4/ben")
    data = pi_indic.load(task, data_dir)
    assert list(data.roles) == ["predictions"] and data.corpus_size == 0
    role = data.roles["predictions"]
    pairs = as_frame(pi_indic.t4_pairs(task, data_dir, with_text=True))
    assert role.query_ids == pairs["pair_id"].tolist()  # the scored pairs only
    assert set(pairs["split"]) == {"test"}
    assert pi_indic.t4_labels(data) == dict(zip(pairs["pair_id"], pairs["label"]))
    ben = pi_indic.read_language(data_dir, "ben")
    row = pairs.iloc[1]
    assert row.persona_text == ben.text("persona")[int(row.persona_id[1:])]
    assert row.instruction_text == ben.text("instruction")[int(row.instruction_id[1:])]
    assert dict(pi_indic.iter_queries(task, data_dir))["p3"] == ben.text("persona")[3]
    assert dict(pi_indic.iter_corpus(task, data_dir))["i3"] == ben.text("instruction")[3]


def test_t4_data_keeps_each_pairs_instruction_so_showing_them_mines_nothing(
        data_dir: Path, monkeypatch) -> None:  # noqa: ANN001
    """The pairs' instructions (the mined hard negatives among them) are kept with the
    task data (and so in the task-data cache): the explorer's texts read them there and
    never mine the negatives again."""
    from leaderboard.submission import explain_files

    task = get_task("pi-indic-val150/t4/kan")
    data = pi_indic.load(task, data_dir)
    pairs = as_frame(pi_indic.t4_pairs(task, data_dir, with_text=True))
    assert data.pairs == dict(zip(pairs["pair_id"], pairs["instruction_id"]))
    assert data.groups == dict(zip(pairs["pair_id"], pairs["persona_id"]))

    def mined(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        raise AssertionError("the hard negatives were mined again")

    pi_indic._t4_negatives_cached.cache_clear()
    monkeypatch.setattr(pi_indic, "t4_hard_negatives", mined)
    monkeypatch.setattr(explain_files, "_TEXTS", {})
    texts = explain_files.task_texts(task, data, data_dir)

    def part(name: str) -> dict:
        return explain_files.unpacked(texts.parts[texts.refs[name]].content, name)["texts"]

    assert part("pairs") == {p: [a, b] for p, a, b in zip(
        pairs["pair_id"], pairs["persona_id"], pairs["instruction_id"])}
    assert part("queries:persona") == dict(zip(pairs["persona_id"], pairs["persona_text"]))


# --- classification metrics --------------------------------------------------------------

def test_auroc_hand_computed_with_ties() -> None:
    # Positives 0.8, 0.4; negatives 0.4, 0.1. Pairs (pos > neg): 0.8>0.4, 0.8>0.1, 0.4>0.1,
    # and 0.4 = 0.4 counts one half: 3.5 / 4.
    assert cls.auroc([1, 1, 0, 0], [0.8, 0.4, 0.4, 0.1]) == pytest.approx(0.875)
    assert cls.auroc([1, 0], [0.3, 0.3]) == pytest.approx(0.5)
    assert cls.auroc([0, 1], [0.9, 0.1]) == 0.0
    np.testing.assert_allclose(cls.average_ranks(np.array([3.0, 1.0, 3.0, 2.0])),
                               [3.5, 1.0, 3.5, 2.0])


def test_average_precision_hand_computed() -> None:
    # Descending: 0.9(+) 0.8(-) 0.7(+) 0.1(-). AP = 1/2*1 + 1/2*(2/3) = 5/6.
    assert cls.average_precision([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.1]) == pytest.approx(5 / 6)
    # A tie forms one threshold: {0.5: one +, one -}: P = 1/2 at R = 1 -> AP = 1/2.
    assert cls.average_precision([1, 0], [0.5, 0.5]) == pytest.approx(0.5)
    # 0.9(+), then tie at 0.5 {+, -}: 1/2*1 + 1/2*(2/3).
    assert cls.average_precision([1, 1, 0], [0.9, 0.5, 0.5]) == pytest.approx(5 / 6)


def test_accuracy_threshold_is_inclusive() -> None:
    assert cls.accuracy([1, 0, 1, 0], [0.5, 0.49, 0.2, 0.7]) == pytest.approx(0.5)
    np.testing.assert_array_equal(cls.correct([1, 0, 1, 0], [0.5, 0.49, 0.2, 0.7]),
                                  [1.0, 1.0, 0.0, 0.0])


def test_ece_hand_computed_top_label() -> None:
    # p: 0.9(y=1) 0.2(y=0) 0.4(y=1) 0.5(y=0). Top-label confidences 0.9, 0.8, 0.6, 0.5;
    # correct: 1, 1, 0, 0. Bins of width 1/15: 0.9 -> (0.867, 0.933], 0.8 -> (0.733, 0.8],
    # 0.6 -> (0.533, 0.6], 0.5 -> (0.467, 0.533]: one per bin.
    # ECE = 1/4 (|1-.9| + |1-.8| + |0-.6| + |0-.5|) = 1.4 / 4 = 0.35.
    labels, probs = [1, 0, 1, 0], [0.9, 0.2, 0.4, 0.5]
    assert cls.expected_calibration_error(labels, probs) == pytest.approx(0.35)
    bins = cls.reliability_bins(labels, probs)
    assert bins.count.tolist() == [0] * 7 + [1, 1, 0, 0, 1, 0, 1, 0]
    assert bins.n == 4 and bins.max_calibration_error == pytest.approx(0.6)
    assert len(bins.lower) == len(bins.upper) == len(bins.accuracy) == 15
    # One bin: mean confidence (.9 + .8 + .6 + .5) / 4 = .7, accuracy .5 -> 0.2.
    assert cls.expected_calibration_error(labels, probs, n_bins=1) == pytest.approx(0.2)
    # Two bins [0, .5], (.5, 1]: {.5: acc 0} -> 1/4 * .5; {.9, .8, .6: acc 2/3, conf 2.3/3}
    # -> 3/4 * .1. Total 0.2.
    assert cls.expected_calibration_error(labels, probs, n_bins=2) == pytest.approx(0.2)
    # Positive-class variant: bins (p, y) = .9/1, .2/0, .4/1, .5/0 -> gaps .1, .2, .6, .5.
    assert cls.expected_calibration_error(labels, probs, kind="positive-class") == pytest.approx(
        0.35)
    assert cls.expected_calibration_error([1, 1], [0.5, 0.7], n_bins=1,
                                          kind="positive-class") == pytest.approx(0.4)


def test_ece_bins_are_right_closed() -> None:
    edge = 8 / 15  # top-label confidence exactly on an inner edge -> the lower bin
    bins = cls.reliability_bins([1], [edge])
    assert bins.count[7] == 1


def test_perfect_and_degenerate_predictors() -> None:
    labels = np.array([1, 0] * 50)
    perfect = labels.astype(float)
    m = cls.classification_metrics(labels, perfect)
    assert m == {"AUROC": 1.0, "AUPRC": 1.0, "Accuracy": 1.0, "Balanced accuracy": 1.0,
                 "ECE": 0.0,
                 # The authors' code: p = 1 is in no bin; p = 0 (all correct) is a gap of 1.
                 "ECE-authors-code": 0.5, "Predicted positive rate": 0.5,
                 "Positive rate": 0.5}
    constant = cls.classification_metrics(labels, np.full(100, 0.5))
    assert constant["AUROC"] == 0.5 and constant["AUPRC"] == 0.5
    assert constant["Accuracy"] == 0.5 and constant["ECE"] == pytest.approx(0.0)
    with pytest.raises(ValueError, match="positive and one negative"):
        cls.auroc([1, 1], [0.2, 0.3])
    with pytest.raises(ValueError, match="finite"):
        cls.auroc([1, 0], [np.nan, 0.3])
    with pytest.raises(ValueError, match="0 or 1"):
        cls.accuracy([2, 0], [0.1, 0.3])


@pytest.mark.slow
def test_metrics_match_scikit_learn() -> None:
    sk = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(2024)
    for _ in range(200):
        n = int(rng.integers(2, 80))
        labels = rng.integers(0, 2, n)
        if labels.min() == labels.max():
            labels[0] = 1 - labels[0]
        probs = np.round(rng.random(n), int(rng.integers(1, 3)))  # rounding makes ties
        assert cls.auroc(labels, probs) == pytest.approx(sk.roc_auc_score(labels, probs), abs=1e-12)
        assert cls.average_precision(labels, probs) == pytest.approx(
            sk.average_precision_score(labels, probs), abs=1e-12)
        assert cls.accuracy(labels, probs) == pytest.approx(
            sk.accuracy_score(labels, (probs >= 0.5).astype(int)))


# --- the authors' ECE and the calibration steps -----------------------------------------

def _authors_ece_transcribed(y: np.ndarray, p: np.ndarray, n_bins: int = 15) -> float:
    # The loop of the authors' src/metrics.py, restated: digitize, per-bin mean p
    # against accuracy at 0.5, weights over all n.
    edges = np.linspace(0.0, 1.0, n_bins + 1)
    idx = np.digitize(p, edges) - 1
    total = 0.0
    for b in range(n_bins):
        mask = idx == b
        if mask.any():
            total += mask.mean() * abs((y[mask] == (p[mask] >= 0.5)).mean() - p[mask].mean())
    return total


def test_authors_ece_matches_their_loop_and_its_known_quirks() -> None:
    rng = np.random.default_rng(0)
    for _ in range(20):
        y = rng.integers(0, 2, 200)
        p = np.round(rng.random(200), 2)  # ties and exact bin edges
        p[:5] = 1.0
        assert cls.authors_ece(y, p) == pytest.approx(_authors_ece_transcribed(y, p), abs=1e-12)
    # Confidently wrong everywhere: the authors' ECE calls it calibrated, Guo's does not.
    y = np.array([1, 0] * 10)
    wrong = 1.0 - y
    assert cls.authors_ece(y, wrong) == 0.0
    assert cls.expected_calibration_error(y, wrong) == 1.0


def test_histogram_binning_fits_bin_frequencies() -> None:
    probs = np.array([0.01, 0.02, 0.03, 0.5, 0.52, 0.99, 1.0])
    labels = np.array([0, 0, 1, 1, 0, 1, 1])
    binning = cls.HistogramBinning.fit(probs, labels, n_bins=15)
    out = binning.apply(np.array([0.0, 0.05, 0.51, 1.0, 0.3]))
    # [0, 1/15): 1 of 3 positive; [7/15, 8/15): 1 of 2; [14/15, 1]: 2 of 2 (1.0 included);
    # 0.3 fell in an empty bin and is kept.
    assert out.tolist() == pytest.approx([1 / 3, 1 / 3, 0.5, 1.0, 0.3])


def test_platt_fit_matches_unpenalised_logistic_regression() -> None:
    sklearn = pytest.importorskip("sklearn.linear_model")
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 400)
    s = rng.normal(loc=2.0 * y, scale=1.5) * 7 + 3  # arbitrary scale and offset
    a, b = cls.fit_platt(s, y)
    model = sklearn.LogisticRegression(C=1e8, tol=1e-10, max_iter=10000).fit(s[:, None], y)
    assert a == pytest.approx(model.coef_[0, 0], rel=1e-4)
    assert b == pytest.approx(model.intercept_[0], rel=1e-4, abs=1e-4)


def test_the_kept_t4_negatives_are_what_mining_the_data_gives(data_dir: Path) -> None:
    """The package's table of negatives (pi_indic_t4_negatives.json) is every language's
    mined afresh from the data: the file scripts/pi-indic-t4-negatives.py writes."""
    from leaderboard.benchmarks.registry import all_tasks

    kept = json.loads(pi_indic.T4_NEGATIVES_FILE.read_text(encoding="utf-8"))
    assert kept == pi_indic.t4_negatives_table(all_tasks().values(), data_dir)
    assert sorted(kept["languages"]) == sorted(LANGS)


def _negatives_script():  # noqa: ANN202 - the script's module
    import importlib.util

    path = Path(__file__).resolve().parents[1] / "scripts" / "pi-indic-t4-negatives.py"
    spec = importlib.util.spec_from_file_location("pi_indic_t4_negatives_script", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_negatives_script_names_missing_data_without_a_traceback(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The maintainers' step after pinning a PI-Indic revision (docs/MAINTAINERS.md) run
    with a data folder that lacks it printed a MissingDataError's traceback; it says what
    is missing and how to fetch it, as the commands do, exits 1, and writes nothing. Its
    --help says what it writes in a whole sentence."""
    script = _negatives_script()
    kept = pi_indic.T4_NEGATIVES_FILE.read_bytes()
    assert script.main(["--data-dir", str(tmp_path / "empty")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("pi-indic-t4-negatives.py: error: data for task ")
    assert "Traceback" not in err and "leaderboard data pull pi-indic-val150" in err
    assert pi_indic.T4_NEGATIVES_FILE.read_bytes() == kept
    with pytest.raises(SystemExit):
        script.main(["--help"])
    assert "hard negatives, mined from each language's instructions" in \
        " ".join(capsys.readouterr().out.split())


def test_the_pair_set_reads_the_kept_negatives_and_mines_only_other_texts(
        data_dir: Path, monkeypatch) -> None:  # noqa: ANN001
    """Mining a language took 0.25-0.3 s in every process that read T4's data from its
    files (each `ci pr-check` worker): the kept negatives of the very same instructions
    are used instead; instructions that differ by one character are mined."""
    mined: list[int] = []

    def mine(instructions: dict[int, str], **_: object) -> dict[int, list[int]]:
        mined.append(len(instructions))
        return {item: [other for other in instructions if other != item][:10]
                for item in instructions}

    pi_indic._t4_negatives_cached.cache_clear()
    monkeypatch.setattr(pi_indic, "t4_hard_negatives", mine)
    pairs = pi_indic.t4_pairs(get_task("pi-indic-val150/t4/hin"), data_dir, split="all")
    assert mined == []
    assert list(pairs.pair_id[:3]) == ["t4-5f5acece6ce7", "t4-3092a5dad6ef",
                                       "t4-011885b70099"]  # the pinned set
    hin = pi_indic.read_language(data_dir, "hin").text("instruction")
    items = tuple((k, text + ("." if k == 7 else "")) for k, text in sorted(hin.items()))
    assert pi_indic._t4_negatives_cached(items)[1] == [2, 3, 4, 5, 6, 7, 8, 9, 10, 11]
    assert mined == [N]
    pi_indic._t4_negatives_cached.cache_clear()


def test_t4_negatives_mined_fast_equal_the_plain_definition(data_dir: Path) -> None:
    """t4_hard_negatives splits each instruction once and uses rapidfuzz's Indel; the
    negatives must be those of token_set_ratio on the texts with the plain programme."""
    texts = dict(list(pi_indic.read_language(data_dir, "hin").text("instruction").items())[:20])
    fast = pi_indic.t4_hard_negatives(texts, per_persona=5)
    plain = {item: sorted((o for o in texts if o != item),
                          key=lambda o: (-pi_indic.token_set_ratio(
                              texts[item], texts[o], distance=pi_indic.indel_distance_plain), o))[:5]
             for item in sorted(texts)}
    assert fast == plain


def test_the_split_ratio_is_token_set_ratios_float(data_dir: Path) -> None:
    """t4_hard_negatives scores pairs with _split_ratio (one Indel distance, lengths for the
    others): the very floats of token_set_ratio, so no tie is broken another way."""
    paragraphs = list(pi_indic.read_language(data_dir, "tam").text("instruction").values())[:40]
    short = ["", "a", "a b", "b a", "a b c", "a c", "x y", "the cat sat",
             "the cat sat on the mat", "mat the", "  a  b  "]
    texts = paragraphs + short
    split = {t: (tuple(sorted(frozenset(t.split()))), frozenset(t.split())) for t in texts}
    distance = pi_indic._indel_function()
    for a in texts:
        for b in texts:
            assert pi_indic._split_ratio(split[a], split[b], distance) \
                == pi_indic.token_set_ratio(a, b), (a[:30], b[:30])
