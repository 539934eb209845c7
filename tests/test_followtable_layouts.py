"""The two FollowTable layouts upstream ships must tell the same story.

Scoring reads the BEIR export (it exists for all four datasets); the raw
query_instruction.json (all but WQT) is read independently and must give the same
instructions, constraint types, T+ and T- for every pair.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from leaderboard.core.data import iter_corpus, load_task_data
from leaderboard.core.data.base import DataFormatError, MissingDataError
from leaderboard.core.data.followtable import constraint_of, read_raw_instructions
from leaderboard.core.data.notes import DataNote, note_text
from leaderboard.benchmarks.registry import get_task


@pytest.mark.parametrize("key,folder", [("wtr", "WTR"), ("tarx", "TArX"), ("industr", "IndusTR")])
def test_raw_json_agrees_with_beir_export(data_dir: Path, key: str, folder: str) -> None:
    task = get_task(f"followtable/{key}")
    data = load_task_data(task, data_dir)
    root = data_dir / "followtable" / folder
    topic_ids = {}
    for line in (root / "only_queries.jsonl").read_text(encoding="utf-8").splitlines():
        obj = json.loads(line)
        topic_ids[obj["text"]] = str(obj["_id"])
    raw = read_raw_instructions(root / "query_instruction.json", topic_ids)
    assert {r.query_id for r in raw} == set(data.roles["altered"].query_ids)
    for r in raw:
        assert data.groups[r.query_id] == r.constraint
        assert set(data.instruction_positive[r.query_id]) == set(r.instruction_positive)
        assert set(data.changed[r.query_id]) == set(r.query_positive - r.instruction_positive)
        assert data.roles["altered"].query_text[r.query_id].startswith(r.instruction)
        # Taken apart, the query and its instruction rebuild the upstream text exactly.
        query, instruction = data.roles["altered"].query_parts[r.query_id]
        assert instruction == r.instruction
        assert f"{instruction} [SEP] {query}" == data.roles["altered"].query_text[r.query_id]
    assert data.roles["original"].query_parts == {}  # topic-only queries carry none


def test_constraint_codes() -> None:
    assert [constraint_of(c) for c in ("1.1", "1.2", "2.1", "2.2", "2.3.1", "2.3.3")] == \
        ["C1", "C2", "S1", "S2", "S3", "S3"]
    with pytest.raises(DataFormatError):
        constraint_of("3.1")


def test_real_shapes(data_dir: Path) -> None:
    expected = {"wqt": (300, 1386, 23784), "wtr": (60, 267, 9546), "tarx": (97, 408, 11586),
                "industr": (216, 928, 13258)}
    for key, (topics, pairs, tables) in expected.items():
        data = load_task_data(get_task(f"followtable/{key}"), data_dir)
        assert len(data.roles["original"].query_ids) == topics
        assert len(data.roles["altered"].query_ids) == pairs
        assert data.corpus_size == tables
        assert all(data.changed[q] for q in data.roles["altered"].query_ids)


def test_the_corpus_of_some_tables_is_the_whole_corpus_filtered(data_dir: Path) -> None:
    task = get_task("followtable/wtr")
    whole = list(iter_corpus(task, data_dir))
    only = {table for table, _ in whole[::50]} | {"not-a-table"}
    assert list(iter_corpus(task, data_dir, only)) == [(t, x) for t, x in whole if t in only]


def test_missing_files_are_listed_with_a_hint(tmp_path: Path) -> None:
    (tmp_path / "followtable" / "WTR").mkdir(parents=True)
    (tmp_path / "followtable" / "WTR" / "corpus.jsonl").write_text('{"_id": "1", "text": "x"}\n')
    with pytest.raises(MissingDataError) as info:
        load_task_data(get_task("followtable/wtr"), tmp_path)
    message = str(info.value)
    assert "queries.jsonl" in message and "qrels/test.tsv" in message
    assert "corpus.jsonl" not in message.split("missing from")[1]
    assert "leaderboard data pull followtable" in message


def test_a_record_without_an_id_is_named_by_file_and_line(tmp_path: Path, data_dir: Path,
                                                         capsys) -> None:
    """A corpus or queries line that is not an object with an "_id" gives FILE:LINE, from
    the data reader and through `leaderboard eval`, never a traceback."""
    from leaderboard.app.cli import main

    source = data_dir / "followtable" / "WTR"
    copy = tmp_path / "followtable" / "WTR"
    (copy / "qrels").mkdir(parents=True)
    for name in ("corpus.jsonl", "only_queries.jsonl", "qrels/test.tsv",
                 "qrels/for_only_query_test.tsv"):
        (copy / name).write_bytes((source / name).read_bytes())
    lines = (source / "queries.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    (copy / "queries.jsonl").write_text("".join(lines[:4]) + '{"id": "1_1", "text": "x"}\n'
                                        + "".join(lines[4:]), encoding="utf-8")
    run = tmp_path / "run.trec"
    run.write_text("1 Q0 1 1 1.0 x\n")
    capsys.readouterr()
    rc = main(["eval", "followtable/wtr", "--original", str(run), "--altered", str(run),
               "--data-dir", str(tmp_path)])
    out, err = capsys.readouterr()
    assert rc != 0 and "Traceback" not in out + err
    assert f'{copy / "queries.jsonl"}:5: a line must be a JSON object with an "_id"' in out + err


def _write_dataset(root: Path, topics: list[str], pairs: list[str], tables: list[str]) -> None:
    """A small FollowTable dataset in the BEIR layout, WTR's folder, every pair of type C1
    with the first table as its only T+ and the next as T-."""
    folder = root / "followtable" / "WTR"
    (folder / "qrels").mkdir(parents=True)

    def jsonl(name: str, rows: list[dict]) -> None:
        (folder / name).write_text("".join(json.dumps(r) + "\n" for r in rows),
                                   encoding="utf-8")

    jsonl("corpus.jsonl", [{"_id": t, "text": f"table {t}"} for t in tables])
    jsonl("only_queries.jsonl", [{"_id": t, "text": f"topic {t}"} for t in topics])
    jsonl("queries.jsonl", [{"_id": p, "text": "instruction [SEP] topic",
                             "metadata": {"instruction_type": "1.1", "origin_query": "topic",
                                          "instruction": "instruction"}} for p in pairs])
    header = "query-id\tcorpus-id\tscore\n"
    (folder / "qrels" / "test.tsv").write_text(
        header + "".join(f"{p}\t{tables[0]}\t1\n" for p in pairs), encoding="utf-8")
    (folder / "qrels" / "for_only_query_test.tsv").write_text(
        header + "".join(f"{t}\t{d}\t1\n" for t in topics for d in tables[:2]),
        encoding="utf-8")


def test_query_ids_that_are_not_numbers_are_ordered_not_a_traceback(tmp_path: Path) -> None:
    """Upstream's ids are numbers ("12", "12_3"), but a dataset in the same layout may name
    its topics otherwise ("q12"): numbers first in numeric order, then the others, never a
    TypeError from comparing a number with a text (or a ValueError from "²")."""
    _write_dataset(tmp_path, ["q1", "10", "2", "²"], ["q1_0", "10_0", "2_1", "2_0", "²_0"],
                   ["a", "b", "c"])
    data = load_task_data(get_task("followtable/wtr"), tmp_path)
    assert data.roles["original"].query_ids == ["2", "10", "q1", "²"]
    assert data.roles["altered"].query_ids == ["2_0", "2_1", "10_0", "q1_0", "²_0"]
    assert data.changed["q1_0"] == ["b"] and data.instruction_positive["q1_0"] == ["a"]


def _text_lines_plain(path: Path) -> list[tuple[int, str]] | str:
    """The definition text_lines is held to: each line of the binary file (ended by
    \\n alone) decoded by itself, or the message naming the first that is not UTF-8."""
    out: list[tuple[int, str]] = []
    with path.open("rb") as fh:
        for lineno, raw in enumerate(fh, 1):
            try:
                out.append((lineno, raw.decode("utf-8")))
            except UnicodeDecodeError as exc:
                return (f"{path}:{lineno}: not UTF-8 text ({exc.reason} at byte "
                        f"{exc.start + 1} of the line)")
    return out


def test_text_lines_decoded_by_block_are_the_lines_decoded_one_by_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """text_lines decodes a block of whole lines at a time (one decode per line made a
    FollowTable task's judgments three times slower to load): the same lines, numbers
    and endings as decoding each line of the file alone, and the same message naming the
    first line that is not UTF-8, across blocks, with or without a last line end."""
    import random

    from leaderboard.core.data import base

    monkeypatch.setattr(base, "_TEXT_BLOCK", 7)
    rng = random.Random(3)
    pieces = [b"a", b"bc", b"\n", b"\r\n", b"\r", b"\t", b"\xc3\xa9", b"\xf0\x9f\x98\x80",
              b" "]
    path = tmp_path / "f.txt"
    for trial in range(600):
        data = b"".join(rng.choice(pieces) for _ in range(rng.randrange(0, 40)))
        if trial % 4 == 0 and data:
            at = rng.randrange(len(data) + 1)
            data = data[:at] + rng.choice([b"\xff", b"\xc3", b"\xe2\x82"]) + data[at:]
        path.write_bytes(data)
        try:
            got: list[tuple[int, str]] | str = list(base.text_lines(path))
        except DataFormatError as exc:
            got = str(exc)
        assert got == _text_lines_plain(path), data


@pytest.mark.parametrize("name", ["corpus.jsonl", "queries.jsonl", "only_queries.jsonl",
                                  "qrels/test.tsv", "qrels/for_only_query_test.tsv"])
def test_a_line_that_is_not_utf8_is_named_by_file_and_line(name: str, tmp_path: Path,
                                                          capsys) -> None:
    """A byte that is not UTF-8 in any of the five files (a Latin-1 'é', a file cut or
    damaged on the way) is refused naming the file and its line, from the reader and
    through `leaderboard eval`: it was an internal error (UnicodeDecodeError)."""
    from leaderboard.app.cli import main

    _write_dataset(tmp_path, ["1", "2"], ["1_0", "2_0"], ["a", "b", "c"])
    path = tmp_path / "followtable" / "WTR" / name
    lines = path.read_bytes().splitlines(keepends=True)
    at = len(b'{"_id": "') if name.endswith(".jsonl") else 0  # in the line's id
    lines[1] = lines[1][:at] + b"\xe9" + lines[1][at:]
    path.write_bytes(b"".join(lines))
    with pytest.raises(DataFormatError, match=rf"^{path}:2: not UTF-8 text"):
        load_task_data(get_task("followtable/wtr"), tmp_path)
    run = tmp_path / "run.trec"
    run.write_text("1 Q0 a 1 1.0 x\n")
    capsys.readouterr()
    rc = main(["eval", "followtable/wtr", "--original", str(run), "--altered", str(run),
               "--data-dir", str(tmp_path)])
    out, err = capsys.readouterr()
    assert rc == 1 and "internal error" not in out + err
    assert f"{path}:2: not UTF-8 text" in out + err


@pytest.mark.parametrize("name", ["queries.jsonl", "only_queries.jsonl"])
def test_a_query_id_repeated_with_other_content_is_refused_naming_both_lines(
        name: str, tmp_path: Path) -> None:
    """A query id on two lines of queries.jsonl or only_queries.jsonl with other text was
    read as the last of them, silently (a model was given one text, a reader of the file
    may take the other): it is refused naming the file and both lines. The same line
    twice says nothing new and is one query, as a qrels row repeated with its grade is
    one judgment (WTR's, IndusTR's and WQT's test.tsv repeat some)."""
    def dataset(folder: str, extra: str) -> Path:
        _write_dataset(tmp_path / folder, ["1", "2"], ["1_0", "2_0"], ["a", "b", "c"])
        path = tmp_path / folder / "followtable" / "WTR" / name
        path.write_text(path.read_text(encoding="utf-8") + extra, encoding="utf-8")
        return tmp_path / folder

    task = get_task("followtable/wtr")
    before = load_task_data(task, dataset("once", ""))
    first = (tmp_path / "once" / "followtable" / "WTR" / name).read_text(
        encoding="utf-8").splitlines(keepends=True)[0]
    again = load_task_data(task, dataset("twice", first))
    assert again.roles == before.roles and again.groups == before.groups
    other = {**json.loads(first), "text": "another text"}
    root = dataset("other", json.dumps(other) + "\n")
    path = root / "followtable" / "WTR" / name
    with pytest.raises(DataFormatError, match=rf"^{path}:3: query '{other['_id']}' "
                                              "repeats line 1 with other content"):
        load_task_data(task, root)


@pytest.mark.parametrize("name", ["qrels/test.tsv", "qrels/for_only_query_test.tsv"])
def test_a_judgment_repeated_with_another_grade_is_refused_naming_both_lines(
        name: str, tmp_path: Path) -> None:
    """A qrels row repeating a (query, table) with another grade was read as the last
    of them, silently: 1 then 0 took the table out of T+ (or T-). It is refused naming
    the file and both lines; repeated with its grade it is one judgment, as upstream's
    WTR, IndusTR and WQT test.tsv repeat some."""
    task = get_task("followtable/wtr")
    loaded = []
    for folder, grade in (("same", "1"), ("other", "0")):
        _write_dataset(tmp_path / folder, ["1", "2"], ["1_0", "2_0"], ["a", "b", "c"])
        path = tmp_path / folder / "followtable" / "WTR" / name
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        query, table, _ = lines[1].split("\t")
        path.write_text("".join(lines) + f"{query}\t{table}\t{grade}\n", encoding="utf-8")
        if grade == "1":
            loaded.append(load_task_data(task, tmp_path / folder))
    assert loaded[0].changed == {"1_0": ["b"], "2_0": ["b"]}
    assert loaded[0].instruction_positive == {"1_0": ["a"], "2_0": ["a"]}
    with pytest.raises(DataFormatError, match=rf"^{path}:{len(lines) + 1}: table '{table}' "
                                              rf"of query '{query}' graded 0 here, 1 at line 2"):
        load_task_data(task, tmp_path / "other")


@pytest.mark.parametrize("name", ["qrels/test.tsv", "qrels/for_only_query_test.tsv"])
def test_a_judgment_repeated_with_its_grade_is_noted(name: str, tmp_path: Path) -> None:
    """A row repeating an earlier row's query, table and grade is read as one judgment,
    and the task's data notes it (the file under the data directory and the line), so
    that `eval`, `validate`, `score` and `data status` can say so; also when the data
    comes from the task-data cache."""
    _write_dataset(tmp_path, ["1", "2"], ["1_0", "2_0"], ["a", "b", "c"])
    path = tmp_path / "followtable" / "WTR" / name
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("".join(lines) + lines[1] + lines[1], encoding="utf-8")
    note = DataNote("repeated-judgment", f"followtable/WTR/{name}",
                    (str(len(lines) + 1), str(len(lines) + 2)))
    assert load_task_data(get_task("followtable/wtr"), tmp_path).notes == (note,)
    assert note_text(note) == (
        f"followtable/WTR/{name}: 2 rows repeat an earlier row's query, table and grade "
        f"(lines {len(lines) + 1}, {len(lines) + 2}), each read as one judgment")


def test_the_real_data_gives_exactly_the_notes_its_quirks_warrant(data_dir: Path) -> None:
    """Upstream's WTR, IndusTR and WQT test.tsv repeat rows, grade and all (4, 2 and 19
    rows: WTR's 51_0/9156 and WQT's 211_0/22162 and 237_0/11737 three times); nothing
    else of the four datasets is repaired or left out."""
    expected = {"wtr": ("WTR", ("4040", "4764", "4766", "4781")), "tarx": None,
                "industr": ("IndusTR", ("515", "516")),
                "wqt": ("WQT", ("2793", "4506", "5862", "8195", "9487", "9496", "9674",
                                "10204", "15685", "16975", "17217", "18602", "19047",
                                "19753", "20462", "20471", "22688", "22694", "25440"))}
    for dataset, quirk in expected.items():
        notes = load_task_data(get_task(f"followtable/{dataset}"), data_dir).notes
        assert notes == (() if quirk is None else (
            DataNote("repeated-judgment", f"followtable/{quirk[0]}/qrels/test.tsv",
                     quirk[1]),)), dataset


UNREADABLE = Path("/proc/self/mem")  # a regular file to stat whose first read is EIO


@pytest.mark.skipif(not UNREADABLE.exists(), reason="needs Linux's /proc/self/mem")
@pytest.mark.parametrize("name", ["corpus.jsonl", "queries.jsonl", "only_queries.jsonl",
                                  "qrels/test.tsv", "qrels/for_only_query_test.tsv"])
def test_a_file_that_cannot_be_read_is_named(name: str, tmp_path: Path) -> None:
    """A file that is there but cannot be read (an I/O error, permission denied) is
    refused naming it, the corpus's fast reader included, never an OSError naming none."""
    _write_dataset(tmp_path, ["1", "2"], ["1_0", "2_0"], ["a", "b", "c"])
    path = tmp_path / "followtable" / "WTR" / name
    path.unlink()
    path.symlink_to(UNREADABLE)
    with pytest.raises(DataFormatError, match=rf"^{path}: cannot read: Input/output error$"):
        load_task_data(get_task("followtable/wtr"), tmp_path)
