"""What a one-task `leaderboard eval` loads: only the modules its task needs.

benchmarks/cli_startup.py times `eval` end to end; these tests hold the import-level
guarantees its figures rest on, in a fresh interpreter (an import made by an earlier test
in this process would hide one here).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from fixtures.submission import oracle_lines, write_run_file
from leaderboard.core.data import load_task_data
from leaderboard.benchmarks.registry import get_task
from leaderboard.core.report import Report
import leaderboard.core.runs.parsing as parsing_module

REPO = Path(__file__).resolve().parent.parent
WTR = "followtable/wtr"

# Modules a FollowTable `eval` has no use for: pandas (0.3-0.5 s), the other benchmarks'
# readers, and the submission-folder reader (yaml and pydantic
# validators; `eval` reads run files, never a submission folder), and pyarrow.compute,
# whose import wraps ~290 kernels in Python functions (the run parser calls the five it
# needs by name).
# pydantic and the results schema: `eval` prints a score sheet and writes no results
# file (pydantic, its core schema and the task and result models were ~150 ms of it).
NOT_NEEDED = ("pandas", "yaml", "leaderboard.submission.folder", "leaderboard.core.data.mteb_layout",
              "leaderboard.core.data.pi_indic", "leaderboard.app.datapull.pull", "pyarrow.compute",
              "numpy.ma",  # np.unique's first call imports it; the engine's does not
              "pydantic", "pydantic_core", "leaderboard.submission.results",
              # the site's views of each benchmark (5 ms of dataclasses)
              "leaderboard.benchmarks.views")


@pytest.fixture(scope="module")
def wtr_runs(tmp_path_factory, data_dir: Path) -> dict[str, Path]:
    wtr = load_task_data(get_task(WTR), data_dir)
    folder = tmp_path_factory.mktemp("wtr-runs")
    return {role: write_run_file(folder / f"{role}.trec", oracle_lines(wtr, role, 30))
            for role in ("original", "altered")}


def test_followtable_eval_loads_only_its_own_reader(data_dir: Path, wtr_runs) -> None:
    argv = ["eval", WTR, "--original", str(wtr_runs["original"]), "--altered",
            str(wtr_runs["altered"]), "--data-dir", str(data_dir), "--json"]
    code = ("import io, json, sys, contextlib\n"
            "from leaderboard.app.cli import main\n"
            "out = io.StringIO()\n"
            f"with contextlib.redirect_stdout(out):\n    rc = main({argv!r})\n"
            f"print(json.dumps([rc, json.loads(out.getvalue())['task'], "
            f"sorted(m for m in {NOT_NEEDED!r} if m in sys.modules), "
            "'leaderboard.core.data.followtable' in sys.modules]))")
    # The task-data cache off: a hit would need no reader at all (tests/test_data_cache.py).
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=REPO, env=dict(os.environ, PYTHONPATH=str(REPO),
                                             LEADERBOARD_DATA_CACHE="off"))
    assert done.returncode == 0, done.stderr
    rc, task, loaded, own_reader = json.loads(done.stdout.splitlines()[-1])
    assert (rc, task, own_reader) == (0, WTR, True)  # it did score, with its own reader
    assert loaded == []


def parse_fast_and_exact(data: bytes, name: str, monkeypatch):  # noqa: ANN201
    """(fast-path run, exact-pass run, report lines) of ``data``, after checking that both
    parses report the same lines."""
    fast_report = Report()
    fast = parsing_module.parse_run(data, name, fast_report)
    with monkeypatch.context() as patch:
        patch.setattr(parsing_module, "_parse_fast", lambda *_: None)
        exact_report = Report()
        exact = parsing_module.parse_run(data, name, exact_report)
    issues = [i.format() for i in fast_report.issues]
    assert issues == [i.format() for i in exact_report.issues]
    return fast, exact, issues


def test_fast_parse_of_a_run_larger_than_one_block_equals_the_exact_pass(monkeypatch) -> None:
    # pyarrow reads in 1 MiB blocks: a bigger file gives each column several chunks,
    # each kernel called by name runs over all of them. Odd Q0 values in the
    # first and last blocks, and ids that first appear in a later block, must come out
    # as the exact pass reads them.
    lines = []
    for q in range(250):
        for r in range(1, 1001):
            q0 = "q0" if (q, r) in ((0, 5), (249, 999)) else "Q0"
            lines.append(f"t{q} {q0} doc{(q * 7919 + r * 104729) % 200_003} {r} "
                         f"{1000 - r + q / 7:.6f} sys")
    data = ("\n".join(lines) + "\n").encode()
    assert len(data) > 2 * (4 << 20)
    fast, exact, issues = parse_fast_and_exact(data, "big.trec", monkeypatch)
    assert "(ignored; 2 lines)" in issues[0]
    assert fast.qid.tolist() == exact.qid.tolist()
    assert fast.docid.tolist() == exact.docid.tolist()
    assert np.array_equal(fast.score, exact.score)
    assert np.array_equal(fast.rank, exact.rank) and np.array_equal(fast.line, exact.line)


# --- np.unique's replacements (it imports numpy.ma on its first call) ---

@pytest.mark.parametrize("values", [
    np.array([3, 1, 3, 2, 1, 1, 0], dtype=np.int64),
    np.array([], dtype=np.int64),
    np.array(["t9", "t10", "t1", "t10", "é", "Z", ""]),
    np.array(["b", "a", "b", "a" * 300], dtype=object),  # over-long ids stay Python strings
    np.random.default_rng(7).integers(0, 50, 5000).astype(np.int32),
])
def test_sorted_unique_equals_np_unique(values: np.ndarray) -> None:
    from leaderboard.core.runs.columns import sorted_unique
    from leaderboard.core.runs.ordering import _n_distinct

    names, inverse = sorted_unique(values)
    expected_names, expected_inverse = np.unique(values, return_inverse=True)
    assert names.dtype == expected_names.dtype
    assert names.tolist() == expected_names.tolist()
    assert inverse.tolist() == expected_inverse.ravel().tolist()
    assert _n_distinct(values) == expected_names.shape[0]


def test_corpus_ids_sorted_and_distinct_as_np_unique(tmp_path: Path) -> None:
    from leaderboard.core.data.followtable import read_corpus_ids

    ids = ["10", "9", "b", "é", "B", "9", "table-1", "ä"]
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(json.dumps({"_id": i, "text": "t"}) + "\n" for i in ids))
    got = read_corpus_ids(corpus)
    expected = np.unique(np.asarray(ids, dtype=object)).astype(str)
    assert got.dtype == expected.dtype and got.tolist() == expected.tolist()


# --- corpus ids: the fast reading against the JSON parse ---

@pytest.mark.parametrize("dataset", ["WQT", "WTR", "TArX", "IndusTR"])
def test_corpus_ids_of_the_real_corpora_equal_the_json_parse(data_dir: Path, dataset: str,
                                                            monkeypatch) -> None:
    from leaderboard.core.data import followtable

    path = data_dir / "followtable" / dataset / "corpus.jsonl"
    expected = followtable.read_corpus_ids_reference(path)

    def no_fallback(_: Path) -> np.ndarray:
        raise AssertionError("the fast reading fell back on an upstream corpus")

    monkeypatch.setattr(followtable, "read_corpus_ids_reference", no_fallback)
    got = followtable.read_corpus_ids(path)
    assert got.dtype == expected.dtype and np.array_equal(got, expected)


@pytest.mark.parametrize("text, expected", [
    # Written the usual way (the fast reading): non-ASCII ids, blank lines, CRLF.
    ('{"_id": "b", "text": "x"}\n\n{"_id": "é", "text": "y"}\n', ["b", "é"]),
    ('{"_id": "2", "text": "x"}\r\n{"_id": "10", "text": "y"}\r\n', ["10", "2"]),
    # What a JSON parser reads differently from the line's opening: each must fall back.
    ('{"_id": "a", "text": "x", "_id": "b"}\n', ["b"]),                # repeated key
    ('{"_id": "a", "meta": {"_id": "z"}}\n', ["a"]),                    # nested key
    ('{"_id": "a", "text": "_id"}\n', ["a"]),                           # "_id" as a value
    ('{"_id": "a\\u00e9", "text": "x"}\n', ["aé"]),                     # escaped id
    ('{"_id": 7, "text": "x"}\n', ["7"]),                               # a number
    ('{"text": "x", "_id": "c"}\n', ["c"]),                             # id not first
])
def test_corpus_ids_fast_reading_equals_the_parse_or_steps_aside(tmp_path: Path, text: str,
                                                                 expected: list[str]) -> None:
    from leaderboard.core.data.followtable import read_corpus_ids, read_corpus_ids_reference

    corpus = tmp_path / "corpus.jsonl"
    corpus.write_bytes(text.encode("utf-8"))
    reference = read_corpus_ids_reference(corpus)
    got = read_corpus_ids(corpus)
    assert reference.tolist() == sorted(expected)
    assert got.dtype == reference.dtype and got.tolist() == reference.tolist()


@pytest.mark.parametrize("line", [
    b'{"_id": "b", "text": "caf\xe9"}\n',               # a Latin-1 byte in the text
    b'{"_id": "b", "text": "| a |\xe2\x82"}\n',         # a character cut short
    b'{"_id": "b", "text": "x", "n": "\xed\xa0\x80"}\n',  # a surrogate
])
def test_corpus_with_a_byte_that_is_not_utf8_is_refused_as_the_parse_refuses_it(
        tmp_path: Path, line: bytes) -> None:
    """A byte that is not UTF-8 anywhere on a corpus line, its table's text included, is
    refused by the fast reading as by the parse, naming the file and line: the fast
    reading checked only the ids, and read such a corpus that every other reader of it
    (iter_corpus: the reference models, the explorer's texts) refuses."""
    from leaderboard.core.data.base import DataFormatError
    from leaderboard.core.data.followtable import read_corpus_ids, read_corpus_ids_reference

    corpus = tmp_path / "corpus.jsonl"
    corpus.write_bytes(b'{"_id": "a", "text": "\xc3\xa9 \xf0\x9f\x98\x80"}\n' + line
                       + b'{"_id": "c", "text": "z"}\n')
    with pytest.raises(DataFormatError) as reference:
        read_corpus_ids_reference(corpus)
    with pytest.raises(DataFormatError) as fast:
        read_corpus_ids(corpus)
    assert str(fast.value) == str(reference.value)
    assert str(fast.value).startswith(f"{corpus}:2: not UTF-8 text")


def test_corpus_ids_fast_reading_checks_utf8_as_pythons_decoder_does(tmp_path: Path,
                                                                     monkeypatch) -> None:
    """The fast reading's UTF-8 check (Arrow's validator) gives Python's decoder's verdict
    on every byte string (surrogates, overlong forms, code points past U+10FFFF, cut
    characters), a long line of two-byte characters reads fast as the parse reads it, and
    a bad byte on a later line is found."""
    import random

    from leaderboard.core.data import followtable
    from leaderboard.core.data.base import DataFormatError

    def decodes(data: bytes) -> bool:
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            return False
        return True

    rng = random.Random(7)
    cases = [b"", b"abc", b"\xed\xa0\x80", b"\xc0\xaf", b"\xf4\x90\x80\x80", b"\xe2\x82",
             b"\xe2\x82\xac", b"\xf0\x9f\x98\x80", b"\xef\xbf\xbe", b"\xed\x9f\xbf", b"a\xc3"]
    cases += [bytes(rng.randrange(256) for _ in range(rng.randrange(1, 7)))
              for _ in range(5_000)]
    assert [followtable.is_utf8(c) for c in cases] == [decodes(c) for c in cases]

    long = "é" * 50_000
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(json.dumps({"_id": str(i), "text": long}, ensure_ascii=False)
                              + "\n" for i in range(3)), encoding="utf-8")
    expected = followtable.read_corpus_ids_reference(corpus)

    def no_fallback(_: Path) -> np.ndarray:
        raise AssertionError("the fast reading fell back on a UTF-8 corpus")

    with monkeypatch.context() as patched:
        patched.setattr(followtable, "read_corpus_ids_reference", no_fallback)
        assert followtable.read_corpus_ids(corpus).tolist() == expected.tolist() == ["0", "1", "2"]
    corpus.write_bytes(corpus.read_bytes() + b'{"_id": "3", "text": "\xe9"}\n')
    with pytest.raises(DataFormatError) as refused:
        followtable.read_corpus_ids(corpus)
    assert str(refused.value).startswith(f"{corpus}:4: not UTF-8 text")


def test_corpus_with_a_cut_last_line_is_refused_naming_the_line(tmp_path: Path) -> None:
    from leaderboard.core.data.base import DataFormatError
    from leaderboard.core.data.followtable import read_corpus_ids

    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text('{"_id": "a", "text": "x"}\n{"_id": "b", "text": "trunc')
    with pytest.raises(DataFormatError, match=r"corpus.jsonl:2: invalid JSON"):
        read_corpus_ids(corpus)
    for line in ('{"id": "b", "text": "x"}', '["b", "x"]'):
        corpus.write_text('{"_id": "a", "text": "x"}\n\n' + line + "\n")
        with pytest.raises(DataFormatError, match=r'corpus.jsonl:3: .*"_id"'):
            read_corpus_ids(corpus)


# --- ranks: pyarrow's integer parser against the exact pass ---

@pytest.mark.parametrize("rank_text", ["0", "-0", "007", "12", "-3", "+4", "99999999999999999999",
                                       "0x10", "0X1f"])  # pyarrow's integers take hex
# "0x" anywhere: ranks are read as text; an "x" or "X" alone is no hexadecimal
@pytest.mark.parametrize("docid", ["d", "0x", "x", "X"])
def test_fast_rank_parse_equals_the_exact_pass(rank_text: str, docid: str, monkeypatch) -> None:
    data = "".join(f"q1 Q0 {docid}{i} {rank_text if i == 1 else i} {10 - i}.5 s\n"
                   for i in range(1, 4)).encode()
    fast, exact, issues = parse_fast_and_exact(data, "r.trec", monkeypatch)
    if exact is None:
        assert fast is None and "non-negative integer" in issues[0]
    else:
        assert fast.rank.tobytes() == exact.rank.tobytes()  # bit for bit: "-0" is +0.0


@pytest.mark.parametrize("data, expected", [
    (b"q1 Q0 d 1 0.5 s\n", False), (b"q1 Q0 x 10 0.5 s\n", False), (b"q1 Q0 X0 1 0.5 s\n", False),
    (b"q1 Q0 d 0x1 0.5 s\n", True), (b"q1 Q0 d 0X1 0.5 s\n", True),
    (b"q1 Q0 x 0X1 0.5 s\n", True), (b"q1 Q0 X 0x1 0.5 s\n", True), (b"0x", True),
])
def test_hexadecimal_screen_is_the_substring_search(data: bytes, expected: bool) -> None:
    assert parsing_module._may_hold_hexadecimal(data) is expected
    assert expected is (b"0x" in data or b"0X" in data)


# --- reading before the imports, and the exit ---

def test_the_run_reader_needs_neither_numpy_nor_pyarrow() -> None:
    """`eval` starts inflating the runs with leaderboard.core.runs.reading before it imports
    numpy and pyarrow, so that module (and the package it is in) must not import them."""
    code = ("import sys, leaderboard.core.runs.reading, leaderboard.core.runs\n"
            "print(sorted(m for m in ('numpy', 'pyarrow') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=REPO, env=dict(os.environ, PYTHONPATH=str(REPO)))
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["[]"]


def test_run_files_read_early_equal_the_reading_on_demand(tmp_path: Path) -> None:
    from leaderboard.core.runs.reading import read_run_file, start_reading

    good = write_run_file(tmp_path / "good.trec.gz", ["q1 Q0 d1 1 2.5 t", "q1 Q0 d2 2 1.5 t"])
    empty = tmp_path / "empty.trec"
    empty.write_bytes(b"")
    files = {"a": (good, "good"), "b": (empty, "empty"), "c": (tmp_path / "absent", "absent")}
    futures = start_reading(files)
    for key, (path, shown) in files.items():
        early, on_demand = futures[key].result(), read_run_file(path, shown)
        assert (early.display, early.data) == (on_demand.display, on_demand.data)
        assert early.report.lines() == on_demand.report.lines()
    assert futures["a"].result().data.startswith(b"q1 Q0 d1")
    assert futures["c"].result().report.lines() == ["absent: file not found"]


@pytest.mark.parametrize("broken", [False, True])
def test_eval_as_a_program_prints_everything_and_exits_with_its_code(
        data_dir: Path, wtr_runs, tmp_path: Path, broken: bool) -> None:
    """`leaderboard eval` ends without the interpreter's teardown: what it printed must
    still reach the reader whole, with the exit code main() returned."""
    altered = wtr_runs["altered"]
    if broken:
        altered = tmp_path / "altered.trec"
        altered.write_text(wtr_runs["altered"].read_text() + "bad line\n")
    argv = [sys.executable, "-m", "leaderboard.app.cli", "eval", WTR, "--original",
            str(wtr_runs["original"]), "--altered", str(altered), "--data-dir",
            str(data_dir), "--json"]
    done = subprocess.run(argv, capture_output=True, text=True, cwd=REPO,
                          env=dict(os.environ, PYTHONPATH=str(REPO)))
    if broken:
        assert done.returncode == 1 and done.stdout == ""
        assert "altered.trec:" in done.stderr and "expected 6 columns" in done.stderr
    else:
        assert done.returncode == 0, done.stderr
        sheet = json.loads(done.stdout)  # the whole document, flushed before the exit
        assert sheet["task"] == WTR and len(sheet["per_query"]["IRS"]) > 100


def test_other_commands_exit_the_usual_way(monkeypatch) -> None:
    """Only `eval` skips the interpreter's teardown; others exit through SystemExit (and
    so run atexit handlers, e.g. the removal of temporary folders)."""
    from leaderboard.app import cli

    monkeypatch.setattr(sys, "argv", ["leaderboard", "tasks", "--json"])
    monkeypatch.setattr(cli, "main", lambda argv: 0)
    monkeypatch.setattr(os, "_exit", lambda code: pytest.fail("os._exit was called"))
    with pytest.raises(SystemExit) as stop:
        cli.entry()
    assert stop.value.code == 0


@pytest.mark.parametrize("chunks", [
    [["Q0", "Q0"], ["Q0"]], [["Q0", "q0"]], [["Q0"], ["0Q"]], [["QQ", "Q0"]], [["Q0", "Q00"]],
    [["Q", "0Q0"]], [["Q0"] * 5, ["Q0", "x"]], [[]], [["é"]],
])
def test_q0_check_on_column_bytes_equals_comparing_values(chunks: list[list[str]]) -> None:
    import pyarrow as pa

    call, _ = parsing_module._arrow_compute()
    # Slices as well: a chunk of a pyarrow table may start at an offset into its buffers.
    for column in (pa.chunked_array(chunks, type=pa.string()),
                   pa.chunked_array([pa.array(["zz"] + c, type=pa.string()).slice(1)
                                     for c in chunks], type=pa.string())):
        expected = all(v == "Q0" for c in chunks for v in c)
        assert parsing_module._all_q0(column, call) is expected


def test_ids_encoded_on_two_threads_equal_one_thread(monkeypatch) -> None:
    """Runs of many lines encode query and document ids at once; the columns must be
    those of the one-thread encoding (and of the exact pass)."""
    rng = np.random.default_rng(3)
    qids = rng.integers(0, 300, 5000)
    docs = rng.integers(0, 20_000, 5000)
    data = "".join(f"t{q} Q0 d{d}-{i} {i + 1} {rng.random():.6f} s\n"
                   for i, (q, d) in enumerate(zip(qids, docs))).encode()
    runs = {}
    for threshold in (1, 10**9):
        monkeypatch.setattr(parsing_module, "_PARALLEL_ENCODING_ROWS", threshold)
        runs[threshold] = parsing_module.parse_run(data, "r.trec", Report())
    both, one = runs[1], runs[10**9]
    for column in ("q_codes", "q_names", "d_codes", "d_names", "score", "line", "rank"):
        assert np.array_equal(getattr(both, column), getattr(one, column)), column
    assert both.qid.tolist() == [f"t{q}" for q in qids]


def test_scoring_prepared_while_the_runs_parse_scores_the_same(data_dir: Path, wtr_runs) -> None:
    from leaderboard.core.data import followtable
    from leaderboard.core.runs.validation import load_and_validate
    from leaderboard.core.scoring import prepare_task, score_task

    task = get_task(WTR)
    runs = {}
    for role, path in wtr_runs.items():
        report, runs[role] = load_and_validate(path, load_task_data(task, data_dir), role)
        assert report.ok
    fresh, prepared = followtable.load(task, data_dir), followtable.load(task, data_dir)
    prepare_task(task, prepared)
    assert set(prepared.judged) == {"changed", "instruction_positive"} and not fresh.judged
    plain, early = score_task(task, fresh, runs), score_task(task, prepared, runs)
    assert json.dumps(plain.per_query, sort_keys=True) == json.dumps(early.per_query, sort_keys=True)
    assert plain.metrics == early.metrics and plain.groups == early.groups
