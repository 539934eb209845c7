"""Property tests of run parsing and validation: arbitrary input never crashes the checker.

Random bytes, random text and structured mutations of a valid run (fields dropped or
duplicated, garbage inserted, random unicode, stray ``\\r`` and ``\\x00``, very long
tokens) must give a report, never an exception; every finding must be ``FILE:LINE: ...``
or ``FILE: ...`` with a line that exists; a valid run must stay valid, with the same
content, however its lines are shuffled; the pyarrow fast path must accept exactly what
the exact line-by-line pass accepts, with bit-identical values; and the linear-time
trec_eval ordering must equal a plain three-key sort.
"""

from __future__ import annotations

import gzip
import random
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from leaderboard.core.data import load_task_data
from leaderboard.benchmarks.registry import get_task
from leaderboard.core.report import Report
import leaderboard.core.runs.parsing as parsing_module
from leaderboard.core.runs.columns import ParsedRun, ascii_as_unicode
from leaderboard.core.runs.exact import MAX_LINE_CHARS
from leaderboard.core.runs.parsing import parse_run
from leaderboard.core.runs.validation import load_and_validate
from leaderboard.core.runs.ordering import _grouped_order, _trec_order

NAME = "sub/runs/followtable/wtr/original.trec"
FUZZ = settings(max_examples=200, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow])
LOCATION = re.compile(rf"^{re.escape(NAME)}(:(\d+))?: ")


def assert_well_formed(report: Report, data: bytes) -> None:
    n_lines = data.count(b"\n") + 1
    for issue in report.issues:
        text = issue.format()
        match = LOCATION.match(text)
        assert match, f"finding without a FILE[:LINE] prefix: {text!r}"
        if match.group(2) is not None:
            assert 1 <= int(match.group(2)) <= n_lines, text
        assert "\n" not in text or issue.message.count("\n") == 0, text


def parse(data: bytes) -> tuple[Report, object]:
    report = Report()
    run = parse_run(data, NAME, report)
    assert (run is None) == (not report.ok)
    return report, run


@pytest.fixture(scope="module")
def wtr(data_dir: Path):
    return load_task_data(get_task("followtable/wtr"), data_dir)


@pytest.fixture(scope="module")
def valid_lines(wtr) -> list[str]:
    role = wtr.roles["original"]
    pool = [str(d) for d in wtr.doc_ids[:40]]
    lines = []
    for q in role.query_ids:
        for rank, d in enumerate(pool[:15], 1):
            lines.append(f"{q} Q0 {d} {rank} {20 - rank}.5 fuzz")
    return lines


@FUZZ
@given(st.binary(max_size=3000))
def test_random_bytes_never_raise(data: bytes) -> None:
    report, _ = parse(data)
    assert_well_formed(report, data)


@FUZZ
@given(st.text(alphabet=st.sampled_from(list(" \t\r\n0123456789.eE+-Q0abcnaif\x0b\x0c\u00a0\u2028é中")),
               max_size=400))
def test_random_run_like_text_never_raises(text: str) -> None:
    data = text.encode("utf-8")
    report, run = parse(data)
    assert_well_formed(report, data)
    if run is not None:
        assert np.isfinite(run.score).all()
        assert all(len(str(q).split()) == 1 for q in run.qid)


GARBAGE = st.one_of(
    st.text(max_size=12),
    st.sampled_from(["\r", "\x00", "\t", "  ", "nan", "inf", "-1", "1e309", "0x10", "Q0",
                     "\u00a0", "\u2028", "\ufeff", "x" * 5000, "9" * 400]),
)


@st.composite
def mutated_run(draw, lines: list[str]) -> bytes:
    lines = list(lines[:60])
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(lines) - 1))
        fields = lines[i].split(" ")
        kind = draw(st.sampled_from(["drop", "duplicate", "insert", "replace", "append",
                                     "join", "blank", "crlf"]))
        j = draw(st.integers(0, len(fields) - 1))
        if kind == "drop":
            del fields[j]
        elif kind == "duplicate":
            fields.insert(j, fields[j])
        elif kind == "insert":
            fields.insert(j, draw(GARBAGE))
        elif kind == "replace":
            fields[j] = draw(GARBAGE)
        elif kind == "append":
            fields[j] = fields[j] + draw(GARBAGE)
        elif kind == "join" and i + 1 < len(lines):
            fields.append(lines.pop(i + 1))
        elif kind == "blank":
            lines.insert(i, draw(st.sampled_from(["", " ", "\t", "\r"])))
        elif kind == "crlf":
            fields[-1] = fields[-1] + "\r"
        lines[i] = " ".join(fields)
    body = "\n".join(lines) + draw(st.sampled_from(["", "\n", "\n\n", "\r\n"]))
    data = body.encode("utf-8", errors="surrogatepass")
    if draw(st.booleans()) and draw(st.booleans()):
        data = data[: draw(st.integers(0, len(data)))]
    return data


@FUZZ
@given(data=st.data())
def test_mutated_runs_never_raise(data, valid_lines, wtr, tmp_path_factory) -> None:
    raw = data.draw(mutated_run(valid_lines))
    report, _ = parse(raw)
    assert_well_formed(report, raw)
    # The whole path (file read, gzip, validation against the task) must hold up too.
    path = tmp_path_factory.getbasetemp() / "fuzz-original.trec.gz"
    path.write_bytes(gzip.compress(raw, mtime=0))
    full, run = load_and_validate(path, wtr, "original", display=NAME)
    assert (run is None) == (not full.ok)
    assert_well_formed(full, raw)


@pytest.mark.slow
@FUZZ
@given(data=st.data())
def test_shuffled_valid_runs_stay_valid(data, valid_lines, wtr, tmp_path_factory) -> None:
    # A seeded shuffle: st.permutations draws each of the ~900 swaps through hypothesis,
    # 14 of the test's 18 s.
    order = list(range(len(valid_lines)))
    random.Random(data.draw(st.integers(0, 2**32 - 1), label="shuffle seed")).shuffle(order)
    sep = data.draw(st.sampled_from([" ", "\t", "  ", " \t"]))
    end = data.draw(st.sampled_from(["\n", "\r\n"]))
    lines = [valid_lines[i].replace(" ", sep) for i in order]
    raw = end.join(lines).encode() + end.encode()
    path = tmp_path_factory.getbasetemp() / "shuffled-original.trec"
    path.write_bytes(raw)
    # Fifteen documents a query: validated at that depth (the task's is 1000).
    report, run = load_and_validate(path, wtr, "original", display=NAME, max_docs=15)
    assert report.ok, report.lines()
    assert run is not None and len(run) == len(valid_lines)
    got = sorted(zip(run.qid.tolist(), run.docid.tolist(), run.score.tolist()))
    want = sorted((f.split()[0], f.split()[2], float(f.split()[4])) for f in valid_lines)
    assert got == want
    # Line numbers point at the lines as they are in the shuffled file.
    for k in range(0, len(lines), 97):
        assert lines[int(run.line[k]) - 1].split(sep)[2] == run.docid[k]


# --- the fast path agrees with the exact line-by-line pass ---

NUMBERS = st.sampled_from(["1", "0", "-0", "+5", "007", "1.5", "-2.25", "+.5", "5.", "1e5", "1E-3",
                           "1.e2", ".e1", "1e", "0x10", "1_0", "nan", "-inf", "Infinity",
                           "1e400", "1e-400", "\u0661", "12345678901234567890", "9" * 30,
                           "0.1000000000000000055511151231257827"])


@st.composite
def numeric_variants(draw, lines: list[str]) -> bytes:
    lines = list(lines[:40])
    for _ in range(draw(st.integers(0, 4))):
        i = draw(st.integers(0, len(lines) - 1))
        fields = lines[i].split(" ")
        fields[draw(st.sampled_from([3, 4]))] = draw(NUMBERS)
        lines[i] = " ".join(fields)
    sep = draw(st.sampled_from([" ", "\t", "  ", " \t "]))
    lead = draw(st.sampled_from(["", " "]))
    end = draw(st.sampled_from(["\n", "\r\n", " \n"]))
    blank = draw(st.sampled_from(["", "\n", "   \n"]))
    return (blank + end.join(lead + ln.replace(" ", sep) for ln in lines) + end).encode()


@FUZZ
@given(data=st.data())
def test_fast_path_agrees_with_exact_pass(data, valid_lines, monkeypatch) -> None:
    raw = data.draw(numeric_variants(valid_lines))
    fast_report, fast = parse(raw)
    monkeypatch.setattr(parsing_module, "_parse_fast", lambda *_: None)
    exact_report, exact = parse(raw)
    monkeypatch.undo()
    assert [i.format() for i in fast_report.issues] == [i.format() for i in exact_report.issues]
    assert (fast is None) == (exact is None)
    if fast is not None and exact is not None:
        assert fast.qid.tolist() == exact.qid.tolist()
        assert fast.docid.tolist() == exact.docid.tolist()
        assert np.array_equal(fast.score, exact.score)  # bit for bit: both correctly rounded
        assert np.array_equal(fast.line, exact.line)
        assert np.array_equal(fast.rank, exact.rank)


def plain_text_lines(data: bytes) -> tuple[int, bool] | None:
    """What the fast path asks of a file's text, line by line: None when it is not UTF-8,
    holds a bare carriage return or a line over MAX_LINE_CHARS bytes (its line end
    excluded); else the number of lines and whether one ends with a space."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if data.count(b"\r") != data.count(b"\r\n"):
        return None
    lines = data.split(b"\n")
    if data.endswith(b"\n"):
        lines.pop()  # the empty text after the last line end
    if max(map(len, lines)) > MAX_LINE_CHARS:
        return None
    return len(lines), any(line.removesuffix(b"\r").endswith(b" ") for line in lines)


TEXT_PIECES = [b"q1 Q0 d1 1 0.5 t", b" ", b"  ", b"\t", b"\n", b"\r\n", b" \n", b" \r\n",
               b"\r", b"\xff", "\u00e9".encode(), b"x" * 2000, b"x" * 2046, b"x" * 2047,
               b"x" * 4094, b"x" * 4095, b"x" * 4096, b"x" * 4097]


@FUZZ
@given(pieces=st.lists(st.sampled_from(TEXT_PIECES), max_size=40), pad=st.integers(0, 4100),
       scan_blocks=st.sampled_from([1, 2, 128]))
def test_the_text_checks_equal_the_line_by_line_definition(pieces, pad, scan_blocks,
                                                            monkeypatch) -> None:
    data = b"y" * pad + b"".join(pieces)  # the padding moves the block boundaries
    # Slices of one or two blocks: the scans' slice boundaries fall inside these files.
    monkeypatch.setattr(parsing_module, "_SCAN", scan_blocks * parsing_module._LINE_BLOCK)
    lines = parsing_module._regular_text_lines(data)
    assert (None if lines is None else (lines.count, lines.space_at_end)) \
        == plain_text_lines(data)


@pytest.mark.parametrize("scan_blocks", [1, 2, 3, 128])
@pytest.mark.parametrize("ending", [b"\n", b"\r\n", b" \n"])
def test_the_text_checks_count_every_line_of_a_run_across_slices(scan_blocks, ending,
                                                                 monkeypatch) -> None:
    """A run of some 20,000 lines of every length from 9 to 40 bytes: a line end at each
    offset of a slice, whatever the slice."""
    monkeypatch.setattr(parsing_module, "_SCAN", scan_blocks * parsing_module._LINE_BLOCK)
    lines = [f"q{i % 97} Q0 d{i} {i} {i / 7:.{i % 17}f} r".encode() for i in range(20_000)]
    data = ending.join(lines) + ending
    lines = parsing_module._regular_text_lines(data)
    assert (lines.count, lines.space_at_end) == plain_text_lines(data)


@FUZZ
@given(st.lists(st.tuples(st.sampled_from(["q1", "q10", "q2", "301", "é", "q1 "]),
                          st.integers(1, 40)), min_size=1, max_size=30),
       st.lists(st.integers(1, 200), max_size=4))
def test_query_codes_equal_encoding_every_line(runs, cuts) -> None:
    """Query ids in runs of one value, as a run file lists them (long runs take the
    run-by-run encoding, short ones the line-by-line one), in chunks as pyarrow reads a
    file in blocks: the codes and names are those of encoding every line."""
    import pyarrow as pa

    qids = [qid for qid, length in runs for _ in range(length)]
    bounds = sorted({0, len(qids), *(min(cut, len(qids)) for cut in cuts)})
    column = pa.chunked_array([qids[a:b] for a, b in zip(bounds, bounds[1:])], type=pa.string())
    call = parsing_module._call_function
    codes, names = parsing_module._query_codes(column, call)
    plain_codes, plain_names = parsing_module._dictionary_codes(column, call)
    assert codes.dtype == plain_codes.dtype
    assert codes.tolist() == plain_codes.tolist() and names.tolist() == plain_names.tolist()


@FUZZ
@given(st.lists(st.text(st.sampled_from("ab0Z-_.\x7f\x01\u00e9\u4e2d"), min_size=0, max_size=18),
                min_size=1, max_size=60), st.randoms(use_true_random=False))
def test_id_codes_from_the_buffers_equal_decoding_each_id(ids, rnd) -> None:
    """Ids of up to 8 bytes and longer, prefixes of each other, non-ASCII (decoded in
    Python instead), empty: the codes and sorted names are those of ``id_array``."""
    import pyarrow as pa

    from leaderboard.core.runs.columns import _sort_names, id_array

    column = pa.chunked_array([[rnd.choice(ids) for _ in range(3 * len(ids))]], type=pa.string())
    call = parsing_module._call_function
    codes, names = parsing_module._dictionary_codes(column, call)
    encoded = call("dictionary_encode", [column]).combine_chunks()
    plain_codes, plain_names = _sort_names(parsing_module._numpy_of(encoded.indices, np.int32),
                                           id_array(encoded.dictionary.to_pylist()))
    assert codes.dtype == plain_codes.dtype and names.dtype == plain_names.dtype
    assert codes.tolist() == plain_codes.tolist() and names.tolist() == plain_names.tolist()


# --- the linear-time ordering equals the plain three-key sort ---

@FUZZ
@given(st.lists(st.tuples(st.integers(0, 4), st.sampled_from([0.0, -0.0, 1.0, 2.5, 2.5, 7.0]),
                          st.integers(0, 6)), max_size=60),
       st.sampled_from(["as is", "by query and score", "by query only", "blocks shuffled"]),
       st.randoms(use_true_random=False))
def test_trec_order_equals_lexsort(rows, arrangement, rnd) -> None:
    if arrangement == "by query and score":
        rows = sorted(rows, key=lambda r: (r[0], -r[1]))
    elif arrangement == "by query only":
        rows = sorted(rows, key=lambda r: r[0])
    elif arrangement == "blocks shuffled":
        blocks = {}
        for r in sorted(rows, key=lambda r: (r[0], -r[1])):
            blocks.setdefault(r[0], []).append(r)
        keys = list(blocks)
        rnd.shuffle(keys)
        rows = [r for k in keys for r in blocks[k]]
    q = np.asarray([r[0] for r in rows], dtype=np.int32)
    s = np.asarray([r[1] for r in rows], dtype=np.float64)
    d = np.asarray([r[2] for r in rows], dtype=np.int32)
    assert np.array_equal(_trec_order(q, s, d), np.lexsort((-d, -s, q)))
    grouped, identity = _grouped_order(q, s, d)
    assert not identity or np.array_equal(grouped, np.arange(len(rows)))
    q_g = q[grouped]
    blocks = 1 + int((q_g[1:] != q_g[:-1]).sum()) if len(rows) else 0
    assert blocks == len(set(q.tolist()))  # each query's rows together


# --- rank lookups (bitmap and sorted-index paths) equal a plain ranking ---

@FUZZ
@given(rows=st.lists(st.tuples(st.sampled_from(["q1", "q2", "q10", "é"]),
                          st.sampled_from(["d1", "d2", "d3", "d10", "d20", "x" * 300]),
                               st.sampled_from([0.5, 1.0, 2.0, 3.0])),
                     max_size=40, unique_by=lambda r: r[:2]),
       wanted=st.lists(st.tuples(st.sampled_from(["q1", "q2", "q10", "zz"]),
                                 st.sampled_from(["d1", "d2", "d3", "d10", "d99", "x" * 300])),
                       max_size=20),
       force_index=st.booleans())
def test_ranks_of_matches_plain_ranking(rows, wanted, force_index, monkeypatch) -> None:
    from leaderboard.core.metrics import ranking

    if force_index:
        monkeypatch.setattr(ranking, "BITMAP_MAX_KEYS", 0)
    ranked = ranking.RankedRun.from_parsed(ParsedRun.from_rows(rows))
    plain: dict[str, dict[str, int]] = {}
    for q in {r[0] for r in rows}:
        docs = sorted(((d, s) for qq, d, s in rows if qq == q), key=lambda x: (x[1], x[0]),
                      reverse=True)
        plain[q] = {d: i for i, (d, _) in enumerate(docs, 1)}
    got = ranked.ranks_of(np.asarray([w[0] for w in wanted], dtype=object),
                          np.asarray([w[1] for w in wanted], dtype=object))
    assert got.tolist() == [plain.get(q, {}).get(d, 0) for q, d in wanted]
    assert ranked.length_of([w[0] for w in wanted]).tolist() == [len(plain.get(q, {}))
                                                                 for q, _ in wanted]


@pytest.mark.parametrize("bad_line", [b" Q0 d5 3 0.5 t", b"q2 Q0  3 0.5 t"],
                         ids=["empty query id", "empty document id"])
def test_the_fast_path_refuses_an_empty_id_on_any_line(bad_line) -> None:
    """The fast path finds an empty id as the first of the sorted names, wherever its
    line is; the exact pass then reports that line."""
    lines = [f"q{i % 3} Q0 d{i} {i} {1 / (i + 1)} t".encode() for i in range(1, 40)]
    lines[20] = bad_line
    data = b"\n".join(lines) + b"\n"
    assert parsing_module._parse_fast(data, parsing_module._regular_text_lines(data)) is None
    report, run = parse(data)
    assert run is None
    assert any(f"{NAME}:21" in issue.format() for issue in report.errors)


@FUZZ
@given(ids=st.lists(st.binary(max_size=12).map(lambda b: bytes(x & 0x7F for x in b)),
                    max_size=30),
       step=st.sampled_from([1, 2]))
def test_ascii_ids_widen_to_what_numpys_cast_gives(ids: list[bytes], step: int) -> None:
    """The vectorised widening of ASCII ids equals numpy's own cast (NUL padding, empty
    ids, a strided slice included)."""
    values = np.array(ids, dtype=f"S{max(map(len, ids), default=0) or 1}")[::step]
    widened = ascii_as_unicode(values)
    assert widened.dtype == values.astype(f"U{values.dtype.itemsize}").dtype
    assert widened.tolist() == values.astype(f"U{values.dtype.itemsize}").tolist()
