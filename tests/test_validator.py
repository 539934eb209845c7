"""`leaderboard check-run` on a corpus of broken run files, one per error class.

Every broken file must give exit 1, a ``FILE:LINE: message`` naming the offending line (or
``FILE: message`` when no single line is at fault), no traceback, and an untouched file.
Warnings (ranks disagreeing with scores, ties, CRLF, tabs, odd Q0 column) keep exit 0.

Corpus-ranking checks use the real FollowTable WTR task; pool checks use a small FollowIR
collection in the Hugging Face layout (tests/fixtures/mteb_collection.py).
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import re
import tarfile
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np
import pytest
from fixtures.mteb_collection import Collection, run_lines, write_collection

import leaderboard.core.fileio as fileio
import leaderboard.core.runs.exact as runs_exact
import leaderboard.core.runs.reading as reading
import leaderboard.core.runs.validation as runs_validation
import leaderboard.submission.layout as layout
from leaderboard.app.board_ids import reference_ids
from leaderboard.app.cli import main
from leaderboard.benchmarks.registry import get_task
from leaderboard.core.data import load_task_data
from leaderboard.core.tasks import MAX_DOCS_PER_QUERY, corpus_depth_text

WTR = "followtable/wtr"
# FollowTable ranks a corpus: every query lists min(1000, corpus size) = 1000 tables.
DOCS_PER_QUERY = 1000
REPO = Path(__file__).resolve().parents[1]


@dataclass
class Checked:
    rc: int
    out: str
    err: str
    path: Path

    @property
    def text(self) -> str:
        return self.out + self.err

    def lines_at(self, line: int | None) -> list[str]:
        """Output lines that point at ``FILE:LINE:`` (or ``FILE:`` when line is None)."""
        where = f"{self.path}:{line}: " if line is not None else f"{self.path}: "
        return [ln for ln in self.out.splitlines() if ln.startswith(where)]


@pytest.fixture(scope="module")
def wtr_lines(data_dir: Path) -> list[str]:
    """A valid WTR original run: each topic's relevant tables first, then other tables."""
    data = load_task_data(get_task(WTR), data_dir)
    role = data.roles["original"]
    filler = [str(d) for d in data.doc_ids[:DOCS_PER_QUERY + 100]]
    lines = []
    for q in role.query_ids:
        relevant = [d for d, r in role.qrels[q].items() if r > 0]
        docs = (relevant + [d for d in filler if d not in relevant])[:DOCS_PER_QUERY]
        for rank, doc in enumerate(docs, 1):
            lines.append(f"{q} Q0 {doc} {rank} {DOCS_PER_QUERY - rank}.25 test\n")
    return lines


@pytest.fixture(scope="module")
def pool_data(tmp_path_factory) -> tuple[Path, Collection]:
    root = tmp_path_factory.mktemp("mteb-data")
    collection = write_collection(root / "followir" / "robust04", n_queries=3, pool_size=25,
                                  corpus_size=60, seed=3)
    return root, collection


def check(path: Path, data: bytes | str, capsys, data_dir: Path, task: str = WTR,
          role: str = "original") -> Checked:
    """Write ``data``, run check-run on it, and prove the file was left untouched."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    path.write_bytes(data)
    before = path.stat().st_mtime_ns
    capsys.readouterr()
    rc = main(["check-run", task, str(path), "--role", role, "--data-dir", str(data_dir)])
    out, err = capsys.readouterr()
    assert path.read_bytes() == data, "the validator modified the run file"
    assert path.stat().st_mtime_ns == before, "the validator touched the run file"
    assert "Traceback" not in out + err
    return Checked(rc, out, err, path)


def with_line(lines: list[str], at: int, new: str | list[str]) -> str:
    """The run with ``new`` inserted before 0-based line ``at`` (so it sits on line at+1)."""
    extra = [new] if isinstance(new, str) else new
    return "".join(lines[:at] + extra + lines[at:])


def test_valid_run_passes(tmp_path: Path, capsys, data_dir: Path, wtr_lines) -> None:
    result = check(tmp_path / "original.trec", "".join(wtr_lines), capsys, data_dir)
    assert result.rc == 0, result.text
    assert "valid followtable/wtr original run (0 errors, 0 warnings)" in result.out


def test_valid_gzip_run_passes(tmp_path: Path, capsys, data_dir: Path, wtr_lines,
                               inflater) -> None:
    data = gzip.compress("".join(wtr_lines).encode(), mtime=0)
    result = check(tmp_path / "original.trec.gz", data, capsys, data_dir)
    assert result.rc == 0, result.text


# (name, builder of the file from the valid lines, line at fault or None, message pattern)
Case = tuple[str, Callable[[list[str]], str | bytes], int | None, str]

LINE_CASES: list[Case] = [
    ("5 columns", lambda L: with_line(L, 2, "0 Q0 9999 3 1.0\n"), 3,
     r"expected 6 columns .* found 5"),
    ("7 columns", lambda L: with_line(L, 4, "0 Q0 9999 3 1.0 tag extra\n"), 5,
     r"expected 6 columns .* found 7"),
    ("12 columns (two lines glued)", lambda L: with_line(L, 6, L[0].rstrip("\n") + " " + L[1]), 7,
     r"expected 6 columns .* found 12"),
    ("non-numeric score", lambda L: with_line(L, 2, "0 Q0 9999 3 high test\n"), 3,
     r"score 'high' is not a number"),
    ("nan score", lambda L: with_line(L, 2, "0 Q0 9999 3 nan test\n"), 3,
     r"score 'nan' is not a finite number"),
    ("inf score", lambda L: with_line(L, 2, "0 Q0 9999 3 inf test\n"), 3,
     r"score 'inf' is not a finite number"),
    ("-Infinity score", lambda L: with_line(L, 2, "0 Q0 9999 3 -Infinity test\n"), 3,
     r"score '-Infinity' is not a finite number"),
    ("fractional rank", lambda L: with_line(L, 2, "0 Q0 9999 1.5 1.0 test\n"), 3,
     r"rank '1.5' is not a non-negative integer"),
    ("word rank", lambda L: with_line(L, 2, "0 Q0 9999 abc 1.0 test\n"), 3,
     r"rank 'abc' is not a non-negative integer"),
    ("exponent rank", lambda L: with_line(L, 2, "0 Q0 9999 1e3 1.0 test\n"), 3,
     r"rank '1e3' is not a non-negative integer"),
    ("negative rank", lambda L: with_line(L, 2, "0 Q0 9999 -4 1.0 test\n"), 3,
     r"rank '-4' is not a non-negative integer"),
    ("duplicate document", lambda L: with_line(L, 5, L[0]), 6,
     r"document '\S+' appears again for query '0' \(first on line 1\)"),
    ("unknown query", lambda L: with_line(L, len(L), "no-such-topic Q0 9999 1 1.0 test\n"),
     None, r"unknown query 'no-such-topic'"),
    ("document outside the corpus", lambda L: with_line(L, 3, "0 Q0 no-such-table 4 99.5 test\n"),
     4, r"document 'no-such-table' is not in the corpus of followtable/wtr"),
    ("binary file", lambda L: b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)), 3,
     r"binary content \(NUL byte\)"),
    ("NUL inside a text file", lambda L: with_line(L, 7, "0 Q0 99\x0099 8 1.0 test\n"), 8,
     r"binary content"),
    ("non-UTF-8 (Latin-1) file", lambda L: "".join(L[:9]).encode()
     + "0 Q0 caf\xe9 10 1.0 test\n".encode("latin-1") + "".join(L[9:]).encode(), 10,
     r"not valid UTF-8 \(byte 0xe9\)"),
    ("absurd line length", lambda L: with_line(L, 1, "0 Q0 " + "x" * 10_000 + " 2 1.0 t\n"), 2,
     r"line is 10\d\d\d bytes long \(limit 4096\)"),
    ("5 fields and a trailing space", lambda L: with_line(L, 2, "0 Q0 9999 3 1.0 \n"), 3,
     r"expected 6 columns .* found 5"),
    ("5 fields, one separator doubled", lambda L: with_line(L, 2, "0  9999 3 1.0 t\n"), 3,
     r"expected 6 columns .* found 5"),
    ("tab inside a space-separated line", lambda L: with_line(L, 2, "0 Q0 9999 3 1.0 t\tx\n"),
     3, r"expected 6 columns .* found 7"),
    ("bare carriage return", lambda L: with_line(L, 4, "0 Q0 9999 5 1.0 t\r0 Q0 9998 6 1 t\n"),
     5, r"bare carriage return"),
    ("header line", lambda L: with_line(L, 0, "qid Q0 docid rank score tag\n"), 1,
     r"score 'score' is not a number"),
]


@pytest.mark.parametrize("name,build,line,message", LINE_CASES, ids=[c[0] for c in LINE_CASES])
def test_broken_line_is_named(name: str, build, line: int | None, message: str, tmp_path: Path,
                              capsys, data_dir: Path, wtr_lines) -> None:
    result = check(tmp_path / "original.trec", build(wtr_lines), capsys, data_dir)
    assert result.rc == 1, result.text
    if line is None:  # the unknown query: reported on the line where it first appears
        hits = [ln for ln in result.out.splitlines() if re.search(message, ln)]
        assert hits and re.match(rf"{re.escape(str(result.path))}:\d+: ", hits[0]), result.out
        assert hits[0].startswith(f"{result.path}:{len(wtr_lines) + 1}: ")
    else:
        hits = [ln for ln in result.lines_at(line) if re.search(message, ln)]
        assert hits, f"no {result.path}:{line}: line matching {message!r} in:\n{result.out}"
    assert "INVALID followtable/wtr original run" in result.out


@pytest.mark.parametrize("header", ["qid Q0 docid rank score tag\n",
                                    "query_id\tQ0\tdoc_id\trank\tscore\trun_name\n",
                                    "qid docid rank score\n"])
def test_a_header_line_is_one_error_that_says_to_remove_it(
        header: str, tmp_path: Path, capsys, data_dir: Path, wtr_lines) -> None:
    """A header line (which trec_eval has no notion of) was four errors about line 1:
    score and rank not numbers, then query 'qid' unknown and document 'docid' not in the
    corpus, none saying what it is. It is one error, saying to remove it."""
    result = check(tmp_path / "original.trec", header + "".join(wtr_lines), capsys, data_dir)
    assert result.rc == 1, result.text
    at_line_1 = result.lines_at(1)
    assert len(at_line_1) == 1, result.out
    assert "a header line?" in at_line_1[0] and "remove it" in at_line_1[0], result.out
    assert "unknown query" not in result.out and "not in the corpus" not in result.out
    assert "(1 error," in result.out


@pytest.mark.parametrize("separator,named", [(",", "comma"), (";", "semicolon")])
def test_a_comma_separated_run_says_a_run_is_separated_by_spaces(
        separator: str, named: str, tmp_path: Path, capsys, data_dir: Path, wtr_lines) -> None:
    """A run written as CSV (pandas' to_csv, a spreadsheet) was told only 'expected 6
    columns (qid Q0 docid rank score tag), found 1' on every line, and its first line was
    called a header though it held the run's first row: each line says it looks
    comma-separated and that a run's columns are separated by spaces or tabs."""
    text = "".join(line.replace(" ", separator) for line in wtr_lines[:5])
    result = check(tmp_path / "original.trec", text, capsys, data_dir)
    assert result.rc == 1, result.text
    for line in (1, 5):
        assert result.lines_at(line) == [
            f"{result.path}:{line}: expected 6 columns (qid Q0 docid rank score tag), found 1: "
            f"the line looks {named}-separated, and a TREC run separates its columns by "
            "spaces or tabs"], result.out
    header = check(tmp_path / "original.trec", "qid,Q0,docid,rank,score,tag\n" + text,
                   capsys, data_dir)
    assert header.lines_at(1)[0].endswith("comma-separated, and a TREC run separates its "
                                          "columns by spaces or tabs (a header line? a TREC "
                                          "run has none: remove it)"), header.out


@pytest.mark.parametrize("space,named", [("\u00a0", "U+00A0 (NO-BREAK SPACE)"),
                                         ("\u3000", "U+3000 (IDEOGRAPHIC SPACE)")])
def test_a_space_that_separates_nothing_is_named_where_it_is(
        space: str, named: str, tmp_path: Path, capsys, data_dir: Path, wtr_lines) -> None:
    """A no-break space between two columns (a copy from a web page or a word processor)
    shows as a space, and the line was told only 'found 5 columns': the message names the
    character and where it is in the line."""
    bad = wtr_lines[2].replace(" Q0 ", f"{space}Q0 ", 1)
    result = check(tmp_path / "original.trec", with_line(wtr_lines, 2, bad), capsys, data_dir)
    assert result.rc == 1, result.text
    at = len(bad.split(space)[0]) + 1
    assert result.lines_at(3) == [
        f"{result.path}:3: expected 6 columns (qid Q0 docid rank score tag), found 5: "
        f"character {at} of the line is {named}, which looks like a space but separates no "
        "columns: write a plain space or a tab there"], result.out


def test_missing_query_names_it(tmp_path: Path, capsys, data_dir: Path, wtr_lines) -> None:
    kept = [ln for ln in wtr_lines if not ln.startswith("7 ")]
    result = check(tmp_path / "original.trec", "".join(kept), capsys, data_dir)
    assert result.rc == 1
    assert any(re.search(r"missing 1 of 60 original queries: '7'$", ln)
               for ln in result.lines_at(None)), result.out


def test_more_than_1000_docs(tmp_path: Path, capsys, data_dir: Path, wtr_lines) -> None:
    data = load_task_data(get_task(WTR), data_dir)
    extra = [f"5 Q0 {d} {i} {-i}.0 test\n" for i, d in enumerate(data.doc_ids[:1001], 1)]
    rest = [ln for ln in wtr_lines if not ln.startswith("5 ")]
    first_five = next(i for i, ln in enumerate(wtr_lines) if ln.startswith("5 "))
    body = rest[:first_five] + extra + rest[first_five:]
    result = check(tmp_path / "original.trec", "".join(body), capsys, data_dir)
    assert result.rc == 1
    last_line = first_five + len(extra)  # 1-based number of the 1001st line of query 5
    assert any("query '5' has 1001 documents; at most 1000 are allowed" in ln
               for ln in result.lines_at(last_line)), result.out


def _archive(kind: str, text: bytes) -> bytes:
    """``text`` as the file ``altered.trec`` in a ``kind`` archive, or compressed as
    ``kind``, not with gzip."""
    if kind == "zip":
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            archive.writestr("altered.trec", text)
        return buffer.getvalue()
    if kind == "tar.gz":
        buffer = io.BytesIO()
        with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
            member = tarfile.TarInfo("altered.trec")
            member.size = len(text)
            archive.addfile(member, io.BytesIO(text))
        return buffer.getvalue()
    return {"bzip2": bz2.compress, "xz": lzma.compress}[kind](text)


@pytest.mark.parametrize(("kind", "named"), [
    ("zip", "a zip archive"), ("tar.gz", "a tar archive"), ("bzip2", "compressed with bzip2"),
    ("xz", "compressed with xz")])
def test_an_archive_or_another_compression_says_what_it_is(
        kind: str, named: str, tmp_path: Path, capsys, data_dir: Path, wtr_lines) -> None:
    """A run zipped, tarred or compressed with bzip2 or xz under a .gz name was "binary
    content (NUL byte): this is not a text run file", which a submitter who compressed a
    good run cannot act on: the message says what the file is and to gzip the run, by
    its own name (it named altered.trec whatever run it was)."""
    data = _archive(kind, "".join(wtr_lines[:3000]).encode())
    result = check(tmp_path / "original.trec.gz", data, capsys, data_dir)
    assert result.rc == 1
    found = [ln for ln in result.out.splitlines() if "binary content" in ln]
    assert len(found) == 1 and found[0].endswith(
        f": binary content (NUL byte): {named}, not a text file: gzip the file itself "
        "(gzip original.trec writes original.trec.gz)"), result.out


@pytest.mark.parametrize(("codec", "named"), [
    ("utf-16", "UTF-16LE"), ("utf-16-le", "UTF-16LE"), ("utf-16-be", "UTF-16BE")])
def test_a_utf16_run_says_to_save_it_as_utf8(codec: str, named: str, tmp_path: Path, capsys,
                                             data_dir: Path, wtr_lines) -> None:
    """A run saved as UTF-16 (Windows PowerShell 5's > and Out-File write it, with a
    byte-order mark; Notepad's "Unicode") was "binary content (NUL byte): this is not a
    text run file", though it is the very text expected in another encoding: the message
    says it is UTF-16 and how to save it as UTF-8, once for the file, gzipped or not."""
    text = "".join(wtr_lines[:3000]).encode(codec)
    for name, data in (("original.trec", text),
                       ("original.trec.gz", gzip.compress(text, mtime=0))):
        result = check(tmp_path / name, data, capsys, data_dir)
        assert result.rc == 1
        assert result.lines_at(None)[0].endswith(
            f"{name}: UTF-16 text ({named}), not UTF-8: save it as UTF-8, e.g. iconv -f "
            f"{named} -t UTF-8 original.trec > original-utf8.trec (Windows PowerShell 5's > "
            "writes UTF-16: use Out-File -Encoding utf8)"), result.out
        assert "binary content" not in result.out, result.out


@pytest.mark.parametrize("name,data,message", [
    ("empty file", b"", "file is empty"),
    ("only blank lines", b"\n  \n\t\n", "file has no run lines"),
    ("empty gzip", gzip.compress(b"", mtime=0), "file is empty (after decompression)"),
], ids=lambda v: v if isinstance(v, str) and " " in v else "")
def test_empty_files(name: str, data: bytes, message: str, tmp_path: Path, capsys,
                     data_dir: Path) -> None:
    result = check(tmp_path / "original.trec.gz", data, capsys, data_dir)
    assert result.rc == 1
    assert any(ln.endswith(message) for ln in result.lines_at(None)), result.out


@pytest.fixture(params=["default", "zlib"])
def inflater(request, monkeypatch) -> str:
    """Run gzip tests with the default inflater (ISA-L when installed) and plain zlib."""
    if request.param == "zlib":
        monkeypatch.setattr(fileio, "_gzip_lib", zlib)
    return request.param


def test_truncated_gzip(tmp_path: Path, capsys, data_dir: Path, wtr_lines, inflater) -> None:
    whole = gzip.compress("".join(wtr_lines).encode(), mtime=0)
    result = check(tmp_path / "original.trec.gz", whole[: len(whole) // 2], capsys, data_dir)
    assert result.rc == 1
    assert any("gzip stream is truncated" in ln for ln in result.lines_at(None)), result.out


def test_multi_member_gzip_is_one_file(tmp_path: Path, capsys, data_dir: Path,
                                       wtr_lines, inflater) -> None:
    half = len(wtr_lines) // 2
    data = (gzip.compress("".join(wtr_lines[:half]).encode(), mtime=0)
            + gzip.compress("".join(wtr_lines[half:]).encode(), mtime=0))
    result = check(tmp_path / "original.trec.gz", data, capsys, data_dir)
    assert result.rc == 0, result.text


def test_gzip_with_trailing_garbage(tmp_path: Path, capsys, data_dir: Path, wtr_lines,
                                    inflater) -> None:
    data = gzip.compress("".join(wtr_lines).encode(), mtime=0) + b"garbage"
    result = check(tmp_path / "original.trec.gz", data, capsys, data_dir)
    assert result.rc == 1
    assert any("not a valid gzip file: trailing garbage" in ln for ln in result.lines_at(None))


def test_byte_order_mark_is_ignored(tmp_path: Path, capsys, data_dir: Path, wtr_lines) -> None:
    result = check(tmp_path / "original.trec", "\ufeff" + "".join(wtr_lines), capsys, data_dir)
    assert result.rc == 0, result.text


def test_corrupt_gzip(tmp_path: Path, capsys, data_dir: Path, inflater) -> None:
    result = check(tmp_path / "original.trec.gz", b"\x1f\x8b" + b"not deflate at all" * 4,
                   capsys, data_dir)
    assert result.rc == 1
    assert any("not a valid gzip file" in ln for ln in result.lines_at(None)), result.out


def test_missing_file(tmp_path: Path, capsys, data_dir: Path) -> None:
    path = tmp_path / "original.trec"
    rc = main(["check-run", WTR, str(path), "--role", "original", "--data-dir", str(data_dir)])
    out, err = capsys.readouterr()
    assert rc == 1 and f"{path}: file not found" in out and "Traceback" not in out + err


@pytest.mark.parametrize(("typed", "there"), [("altered.trec", "altered.trec.gz"),
                                               ("altered.trec.gz", "altered.trec")])
def test_a_missing_file_names_its_gzip_twin(typed: str, there: str, tmp_path: Path, capsys,
                                            data_dir: Path) -> None:
    """`check-run TASK altered.trec` for a folder holding altered.trec.gz (the name the
    layout writes) said only "file not found"; it names the file that is there."""
    (tmp_path / there).write_bytes(b"x")
    path = tmp_path / typed
    rc = main(["check-run", WTR, str(path), "--role", "altered", "--data-dir", str(data_dir)])
    out, err = capsys.readouterr()
    assert rc == 1 and "Traceback" not in out + err
    assert f"{path}: file not found; did you mean {tmp_path / there}?" in out, out


def test_file_over_the_size_limit(tmp_path: Path, capsys, data_dir: Path, wtr_lines,
                                  monkeypatch) -> None:
    monkeypatch.setattr(reading, "MAX_FILE_BYTES", 1000)
    result = check(tmp_path / "original.trec", "".join(wtr_lines), capsys, data_dir)
    assert result.rc == 1
    assert any(re.search(r"over the .* limit", ln) for ln in result.lines_at(None)), result.out


def test_a_valid_run_too_large_for_a_submission_warns_to_gzip_it(
        tmp_path: Path, capsys, data_dir: Path, wtr_lines, monkeypatch) -> None:
    """A plain-text run over a submission's per-file limit (FollowTable WQT's altered run
    is 46 MiB as text) was "valid" to check-run, then refused by `score` and CI: check-run
    says so while the submitter works on it, and that gzip brings it under."""
    monkeypatch.setattr(layout, "MAX_FILE_BYTES", 1_000_000)
    result = check(tmp_path / "original.trec", "".join(wtr_lines), capsys, data_dir)
    assert result.rc == 0, result.text
    assert any("warning:" in ln and "over the 976.6 KiB limit per file of a submission" in ln
               and "gzip it" in ln for ln in result.lines_at(None)), result.out
    small = check(tmp_path / "original.trec.gz",
                  gzip.compress("".join(wtr_lines).encode(), mtime=0), capsys, data_dir)
    assert "limit per file" not in small.out and small.rc == 0, small.out


def test_gzip_that_decompresses_over_the_limit(tmp_path: Path, capsys, data_dir: Path,
                                               wtr_lines, monkeypatch, inflater) -> None:
    # A small file that inflates past the limit (a gzip bomb in miniature) is refused
    # without being inflated in full.
    monkeypatch.setattr(reading, "MAX_FILE_BYTES", 20_000)
    data = gzip.compress(wtr_lines[0].encode() * 10_000, mtime=0)
    assert len(data) < 20_000
    result = check(tmp_path / "original.trec.gz", data, capsys, data_dir)
    assert result.rc == 1
    assert any("decompresses to over" in ln for ln in result.lines_at(None)), result.out


def test_compressed_file_over_its_limit(tmp_path: Path, capsys, data_dir: Path, wtr_lines,
                                        monkeypatch) -> None:
    monkeypatch.setattr(reading, "MAX_COMPRESSED_BYTES", 100)
    data = gzip.compress("".join(wtr_lines).encode(), mtime=0)
    result = check(tmp_path / "original.trec.gz", data, capsys, data_dir)
    assert result.rc == 1
    assert any(re.search(r"over the .* limit", ln) for ln in result.lines_at(None)), result.out


def test_many_errors_are_capped(tmp_path: Path, capsys, data_dir: Path, wtr_lines) -> None:
    broken = [f"0 Q0 {9000 + i} {i} score{i} test\n" for i in range(1, 101)]
    result = check(tmp_path / "original.trec", with_line(wtr_lines, 0, broken), capsys, data_dir)
    assert result.rc == 1
    errors = [ln for ln in result.out.splitlines() if re.match(rf"{re.escape(str(result.path))}:\d+: score", ln)]
    # NIST's checker stops after too many errors; so does this one, and says where.
    assert len(errors) == runs_exact.MAX_ERRORS == 20
    assert (f"{result.path}: more than 20 errors: stopped reading at line 21 of "
            f"{len(wtr_lines) + 100}, as NIST's checker does; fix these and check again"
            in result.out)
    assert "(21 errors, 0 warnings)" in result.out


def test_every_error_line_has_a_location(tmp_path: Path, capsys, data_dir: Path,
                                         wtr_lines) -> None:
    # Several field errors at once: each is listed, each names file and line.
    body = with_line(wtr_lines, 3, ["0 Q0 1 2 x test\n", "0 Q0 2 2.5 1 test\n",
                                    "0 Q0 3 1 -inf t\n"])
    result = check(tmp_path / "original.trec", body, capsys, data_dir)
    assert result.rc == 1
    found = [ln for ln in result.out.splitlines() if not ln.endswith(")")]
    assert found and all(ln.startswith(f"{result.path}:") for ln in found)
    assert result.lines_at(4) and result.lines_at(5) and result.lines_at(6)


# Warnings: accepted, exit 0, each printed as a `warning:` line.

def test_crlf_and_tabs_are_valid_with_warnings(tmp_path: Path, capsys, data_dir: Path,
                                               wtr_lines) -> None:
    body = "".join(ln.replace(" ", "\t").replace("\n", "\r\n") for ln in wtr_lines)
    result = check(tmp_path / "original.trec", body, capsys, data_dir)
    assert result.rc == 0, result.text
    assert f"{result.path}: warning: CRLF line endings (accepted)" in result.out
    assert f"{result.path}: warning: tab-separated columns (accepted)" in result.out


def test_mixed_whitespace_is_valid(tmp_path: Path, capsys, data_dir: Path, wtr_lines) -> None:
    body = "".join(("  " + ln.replace(" ", " \t ", 2)) if i % 3 == 0 else ln
                   for i, ln in enumerate(wtr_lines))
    result = check(tmp_path / "original.trec", body + "\n\n", capsys, data_dir)
    assert result.rc == 0, result.text


def test_rank_column_disagreeing_with_scores_warns(tmp_path: Path, capsys, data_dir: Path,
                                                  wtr_lines) -> None:
    # Reverse the rank column of query 0 (lines 1..20); the scores still decide the order.
    body = [ln if i >= DOCS_PER_QUERY else
            re.sub(r" (\d+) (\S+) test", lambda m: f" {DOCS_PER_QUERY + 1 - int(m.group(1))} "
                                                  f"{m.group(2)} test", ln)
            for i, ln in enumerate(wtr_lines)]
    result = check(tmp_path / "original.trec", "".join(body), capsys, data_dir)
    assert result.rc == 0, result.text
    assert any("warning: rank column disagrees with scores" in ln for ln in result.out.splitlines())


def test_ties_warn(tmp_path: Path, capsys, data_dir: Path, wtr_lines) -> None:
    body = [re.sub(r" \S+ test\n$", " 1.0 test\n", ln) if ln.startswith("3 ") else ln
            for ln in wtr_lines]
    result = check(tmp_path / "original.trec", "".join(body), capsys, data_dir)
    assert result.rc == 0, result.text
    # Counted over the whole run, and said so: 999 scores of query 3 tie the one above.
    assert any(ln.endswith(f"warning: tied scores: {DOCS_PER_QUERY - 1} in all, over 1 query; "
                           "ties are broken by docid descending, as trec_eval does")
               for ln in result.out.splitlines()), result.out


def test_scores_equal_in_single_precision_warn_and_say_how_trec_eval_differs(
        tmp_path: Path, capsys, data_dir: Path, wtr_lines) -> None:
    """trec_eval and pytrec_eval read scores as 32-bit floats: 0.5 and 0.50000001 are a
    tie to them (broken by docid), while the leaderboard ranks them as written, so nDCG
    could differ from theirs without a word. The validator says where, and pytrec_eval
    confirms the tie."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    query = [ln for ln in wtr_lines if ln.startswith("3 ")]
    first, second = query[0].split(), query[1].split()
    assert first[1] == second[1] == "Q0"
    edited = {query[0]: f"3 Q0 {first[2]} 1 0.50000001 test\n",
              query[1]: f"3 Q0 {second[2]} 2 0.5 test\n"}
    body = [edited.get(ln, ln) for ln in wtr_lines]
    result = check(tmp_path / "original.trec", "".join(body), capsys, data_dir)
    assert result.rc == 0, result.text
    line = [i + 1 for i, ln in enumerate(body) if ln == edited[query[1]]][0]
    (warning,) = [ln for ln in result.lines_at(line) if "single precision" in ln]
    assert "1 score differs from the one ranked above only beyond single precision" \
        in warning and "trec_eval" in warning, warning
    evaluator = pytrec_eval.RelevanceEvaluator({"3": {first[2]: 1}}, {"P_1"})
    at_one = evaluator.evaluate({"3": {first[2]: 0.50000001, second[2]: 0.5}})["3"]["P_1"]
    # Tied to trec_eval: the higher docid ranks first.
    assert at_one == (1.0 if first[2] > second[2] else 0.0)


def test_odd_q0_column_warns(tmp_path: Path, capsys, data_dir: Path, wtr_lines) -> None:
    body = [ln.replace(" Q0 ", " 0 ", 1) if i == 4 else ln for i, ln in enumerate(wtr_lines)]
    result = check(tmp_path / "original.trec", "".join(body), capsys, data_dir)
    assert result.rc == 0, result.text
    assert result.lines_at(5) and "warning: second column is '0'" in result.lines_at(5)[0]


# Reranking tasks (FollowIR layout): documents must come from the query's own pool.

def test_pool_run_valid(tmp_path: Path, capsys, pool_data) -> None:
    root, collection = pool_data
    body = "".join(run_lines(collection, "original"))
    result = check(tmp_path / "original.trec", body, capsys, root, task="followir/robust04")
    assert result.rc == 0, result.text


def test_doc_outside_the_pool(tmp_path: Path, capsys, pool_data) -> None:
    root, collection = pool_data
    lines = run_lines(collection, "altered")
    q = collection.base_ids[1]
    # A real corpus document, but one from another query's pool only.
    foreign = next(d for d in collection.pools[collection.base_ids[0]]
                   if d not in collection.pools[q])
    bad_line = f"{q}-changed Q0 {foreign} 26 -5.0 fixture\n"
    at = 25 + 10  # inside query q's block
    body = with_line(lines, at, bad_line)
    result = check(tmp_path / "altered.trec", body, capsys, root, task="followir/robust04",
                   role="altered")
    assert result.rc == 1
    assert any(f"document '{foreign}' is not in the candidate pool of query '{q}-changed'" in ln
               for ln in result.lines_at(at + 1)), result.out


def test_original_query_in_altered_run(tmp_path: Path, capsys, pool_data) -> None:
    root, collection = pool_data
    lines = run_lines(collection, "original")
    result = check(tmp_path / "altered.trec", "".join(lines), capsys, root,
                   task="followir/robust04", role="altered")
    assert result.rc == 1
    # The whole original run given as the altered one: one finding, not one per query.
    assert (f"{result.path}: this is the original run: its queries (first '100-og') are the "
            "original queries of followir/robust04, none an altered query") in result.out
    assert "unknown query" not in result.out and "missing" not in result.out
    # One original query among altered ones is an unknown query, as before.
    altered = run_lines(collection, "altered")
    mixed = altered[:-25] + lines[-25:]
    result = check(tmp_path / "altered.trec", "".join(mixed), capsys, root,
                   task="followir/robust04", role="altered")
    assert result.rc == 1
    assert f"unknown query '{collection.base_ids[-1]}-og' (not an altered query" in result.out
    assert f"{result.path}: missing 1 of 3 altered queries" in result.out


# Depth and pool coverage: a document a run leaves out ranks below all it lists, so a
# shallow run inflates p-MRR; every query must be ranked in full (issue 17 section 1).

def short_message(result: Checked) -> list[str]:
    return [ln for ln in result.out.splitlines() if re.search(r"quer(y|ies) (is|are) short", ln)]


def test_shallow_cut_of_the_committed_bm25s_run_is_refused(tmp_path: Path, capsys,
                                                           data_dir: Path) -> None:
    # BM25's WTR original run cut to its top 10 per query raised p-MRR 0.354 -> 0.812.
    committed = REPO / "submissions" / "bm25s" / "runs" / "followtable" / "wtr" / "original.trec.gz"
    lines = gzip.decompress(committed.read_bytes()).decode().splitlines(keepends=True)
    assert len(lines) == 60 * 1000
    cut = [ln for ln in lines if int(ln.split()[3]) <= 10]
    result = check(tmp_path / "original.trec", "".join(cut), capsys, data_dir)
    assert result.rc == 1, result.text
    first_q = cut[0].split()[0]
    assert result.lines_at(1) == [
        f"{result.path}:1: query '{first_q}' ranks 10 documents; each query must list "
        "min(1000, corpus size) = 1,000 documents of the corpus (60 of 60 queries are short, "
        "59,400 documents in all)"]


def test_one_query_one_document_short(tmp_path: Path, capsys, data_dir: Path,
                                      wtr_lines) -> None:
    # Query 7 loses its last document; the error points at query 7's first line.
    first_seven = next(i for i, ln in enumerate(wtr_lines) if ln.startswith("7 "))
    body = wtr_lines[:first_seven + DOCS_PER_QUERY - 1] + wtr_lines[first_seven + DOCS_PER_QUERY:]
    result = check(tmp_path / "original.trec", "".join(body), capsys, data_dir)
    assert result.rc == 1
    assert short_message(result) == [
        f"{result.path}:{first_seven + 1}: query '7' ranks 999 documents; each query must list "
        "min(1000, corpus size) = 1,000 documents of the corpus (1 of 60 queries is short, "
        "1 document in all)"]


def test_duplicates_do_not_count_towards_the_depth(tmp_path: Path, capsys, data_dir: Path,
                                                   wtr_lines) -> None:
    body = wtr_lines[:DOCS_PER_QUERY - 1] + [wtr_lines[0]] + wtr_lines[DOCS_PER_QUERY:]
    result = check(tmp_path / "original.trec", "".join(body), capsys, data_dir)
    assert result.rc == 1
    assert any("appears again" in ln for ln in result.lines_at(DOCS_PER_QUERY))
    assert any("query '0' ranks 999 documents" in ln for ln in result.lines_at(1))


def test_pi_indic_must_rank_its_whole_candidate_set(tmp_path: Path, capsys,
                                                    data_dir: Path) -> None:
    task = "pi-indic-val150/t1/hin"
    data = load_task_data(get_task(task), data_dir)
    assert data.corpus_size == 150
    lines = [f"{q} Q0 {d} {r} {200 - r} t\n" for q in data.roles["run"].query_ids
             for r, d in enumerate(data.doc_ids.tolist(), 1)]
    assert check(tmp_path / "run.trec", "".join(lines), capsys, data_dir, task=task,
                 role="run").rc == 0
    del lines[150 + 149]  # the second query's last candidate
    result = check(tmp_path / "run.trec", "".join(lines), capsys, data_dir, task=task,
                   role="run")
    assert result.rc == 1
    assert any("ranks 149 documents; each query must list min(1000, corpus size) = 150 "
               "documents of the corpus (1 of 150 queries is short, 1 document in all)" in ln
               for ln in result.lines_at(151)), result.out


def test_pool_run_missing_pool_documents(tmp_path: Path, capsys, pool_data) -> None:
    root, collection = pool_data
    lines = run_lines(collection, "original")
    # Keep each query's top 10 of its 25 candidates.
    kept = [ln for ln in lines if int(ln.split()[3]) <= 10]
    result = check(tmp_path / "original.trec", "".join(kept), capsys, root,
                   task="followir/robust04")
    assert result.rc == 1
    q = collection.base_ids[0]
    assert short_message(result) == [
        f"{result.path}:1: query '{q}-og' ranks 10 of the 25 documents in its candidate pool; "
        "a reranking task's run must rank every document of each query's pool (3 of 3 "
        "queries are short, 45 documents in all)"]


def test_pool_run_one_query_short(tmp_path: Path, capsys, pool_data) -> None:
    root, collection = pool_data
    lines = run_lines(collection, "altered")
    del lines[25 + 24]  # the second query's last pool document
    result = check(tmp_path / "altered.trec", "".join(lines), capsys, root,
                   task="followir/robust04", role="altered")
    assert result.rc == 1
    q = collection.base_ids[1]
    assert any(f"query '{q}-changed' ranks 24 of the 25 documents" in ln
               and "(1 of 3 queries is short, 1 document in all)" in ln
               for ln in result.lines_at(26)), result.out


def test_mfollowir_pool_coverage(tmp_path: Path, capsys) -> None:
    root = tmp_path / "data"
    local = root / get_task("mfollowir/fas").source.local_dir
    collection = write_collection(local, n_queries=2, pool_size=12, corpus_size=40,
                                  language="fas", seed=5)
    lines = run_lines(collection, "original")
    assert check(tmp_path / "original.trec", "".join(lines), capsys, root,
                 task="mfollowir/fas").rc == 0
    result = check(tmp_path / "original.trec", "".join(lines[:-3]), capsys, root,
                   task="mfollowir/fas")
    assert result.rc == 1
    q = collection.base_ids[1]
    assert any(f"query '{q}-og' ranks 9 of the 12 documents in its candidate pool" in ln
               and "(1 of 2 queries is short, 3 documents in all)" in ln
               for ln in result.lines_at(13)), result.out


@pytest.mark.slow
def test_committed_baselines_validate(capsys, data_dir: Path) -> None:
    """Every run file of the committed baselines (the declared reference models'
    submissions) passes the depth and pool rules. Not a researcher's submission: on the
    pull request that adds one, `validate` looks for its explanation files in the run
    store's cache of the submitter's machine, where their scoring keeps them, and CI's
    machine has none (`ci pr-check` scores it there instead), so the Tests workflow of
    every submission's pull request failed."""
    submissions = sorted(p for p in (REPO / "submissions").iterdir()
                         if p.name in reference_ids() and (p / "runs").is_dir())
    assert {p.name for p in submissions} >= {"bm25s", "all-minilm-l6-v2"}
    rc = main(["validate", *map(str, submissions), "--data-dir", str(data_dir)])
    out, err = capsys.readouterr()
    assert rc == 0, "\n".join(ln for ln in (out + err).splitlines() if "warning" not in ln)


def test_check_run_help_states_the_depth_rule(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["check-run", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "ranks every document of its `top_ranked` candidates and nothing else" in text
    assert "each query lists min(1000, corpus size) documents" in text
    assert f"At most {MAX_DOCS_PER_QUERY} documents per query." in text


def test_the_depth_rule_is_written_in_one_place() -> None:
    """The check-run help, FollowTable's and PI-Indic's How-to-submit rows, the submit page
    and the validator's message each wrote "min(1000, corpus size)"; they take it from
    core/tasks.py, from MAX_DOCS_PER_QUERY, as the validator takes its limit."""
    assert corpus_depth_text() == f"min({MAX_DOCS_PER_QUERY}, corpus size)"
    owner = REPO / "leaderboard" / "core" / "tasks.py"
    written = [str(p.relative_to(REPO)) for p in sorted((REPO / "leaderboard").rglob("*"))
               if p.suffix in (".py", ".j2") and p != owner
               and f"min({MAX_DOCS_PER_QUERY}," in p.read_text(encoding="utf-8")]
    assert written == []


def test_reading_runs_while_the_data_loads_reports_as_reading_them_after(
        tmp_path: Path, data_dir: Path, wtr_lines) -> None:
    """check_task_files reads a task's runs on worker threads while the data loads; its
    report (order included) and parsed runs are those of the one-thread path."""
    from leaderboard.core.data import MissingDataError
    from leaderboard.core.evaluate import check_task_files, validate_task_files
    from leaderboard.core.runs.reading import start_reading

    task = get_task(WTR)
    wtr = load_task_data(task, data_dir)
    altered_ids = wtr.roles["altered"].query_ids
    altered = [line.replace(line.split()[0], altered_ids[0], 1) for line in wtr_lines[:40]]
    files = {"original": tmp_path / "original.trec", "altered": tmp_path / "altered.trec"}
    files["original"].write_text(with_line(wtr_lines, 3, "q Q0 d one 1.0 t\n"))
    files["altered"].write_text("".join(altered) + "broken line\n")
    threaded_report, threaded = check_task_files(task, data_dir, files)
    plain_report, plain = validate_task_files(task, wtr, files, data_dir=data_dir)
    assert [i.format() for i in threaded_report.issues] == [i.format() for i in plain_report.issues]
    assert threaded is None and plain is None and len(threaded_report.errors) >= 3
    # Reading started before the call (as `eval` does, before its imports): same report;
    # the calling thread's own work gets the loaded data while the runs are parsed.
    prefetched = start_reading({role: (path, str(path)) for role, path in files.items()})
    handed: list = []
    early_report, early = check_task_files(task, data_dir, files, prefetched=prefetched,
                                           while_checking=handed.append)
    assert [i.format() for i in early_report.issues] == [i.format() for i in plain_report.issues]
    assert early is None
    assert len(handed) == 1 and handed[0].task_id == WTR and handed[0].roles.keys() == wtr.roles.keys()
    files["original"].write_text("".join(wtr_lines))
    with pytest.raises(MissingDataError):
        check_task_files(task, tmp_path / "no-data-here", files)


def test_pool_check_equals_the_plain_definition(pool_data) -> None:
    """Each row is inside its query's pool exactly when the pool, as a set, holds its
    document; rows of a query with no pool are neither inside nor reported (the unknown
    query is), for runs mixing every case."""
    import random

    from leaderboard.core.report import Report
    from leaderboard.core.runs.columns import ParsedRun
    from leaderboard.core.runs.validation import _check_pool

    root, _ = pool_data
    data = load_task_data(get_task("followir/robust04"), root)
    pools = {q: set(pool.tolist()) for q, pool in data.pools.items()}
    every_doc = sorted(set().union(*pools.values())) + ["not-a-document"]
    rng = random.Random(11)
    for _ in range(20):
        queries = rng.sample(sorted(pools), rng.randint(1, len(pools))) + ["unknown-query"]
        rows = [(q, d, float(rng.random())) for q in queries
                for d in rng.sample(every_doc, rng.randint(1, 30))]
        run = ParsedRun.from_rows(rows)
        report = Report()
        inside = _check_pool(data, run, "run.trec", report)
        expected = [d in pools.get(q, ()) for q, d, _ in rows]
        assert inside.tolist() == expected
        outside = sum(1 for q, d, _ in rows if q in pools and d not in pools[q])
        assert (report.n_errors > 0) == (outside > 0)


def test_the_pool_check_is_the_plain_per_row_check() -> None:
    """Each row is inside exactly when its document is in its own query's pool: a
    document of another query's pool, of no pool, and a query with no pool, at random."""
    import random

    import numpy as np

    from leaderboard.core.data.base import TaskData
    from leaderboard.core.report import Report
    from leaderboard.core.runs.parsing import parse_run
    from leaderboard.core.runs.validation import _check_pool

    rng = random.Random(7)
    docs = [f"d{i}" for i in range(60)] + ["D-long-" + "x" * 300]  # one over fixed width
    pools = {f"q{i}": sorted(rng.sample(docs, 12)) for i in range(8)}
    lines = []
    for q in [*pools, "q-unknown"]:
        for rank, d in enumerate(rng.sample(docs, 20), 1):
            lines.append(f"{q} Q0 {d} {rank} {1 / rank} t")
    run = parse_run(("\n".join(lines) + "\n").encode(), "run", Report())
    assert run is not None
    data = TaskData("toy", {}, np.sort(np.asarray(docs, dtype=object)),
                    pools={q: np.asarray(p, dtype=object if any(len(d) > 256 for d in p)
                                         else str) for q, p in pools.items()})
    report = Report()
    inside = _check_pool(data, run, "run", report)
    plain = [str(run.d_names[d]) in pools.get(str(run.q_names[q]), [])
             for q, d in zip(run.q_codes, run.d_codes)]
    assert inside.tolist() == plain
    outside = sum(1 for q, ok in zip(run.q_codes, plain)
                  if not ok and str(run.q_names[q]) in pools)
    assert sum(issue.count for issue in report.issues) == outside > 0


@pytest.mark.parametrize("flag_table_keys", [1 << 24, 0], ids=["flag table", "sorted keys"])
def test_duplicates_are_found_both_ways(tmp_path: Path, capsys, data_dir: Path, wtr_lines,
                                        monkeypatch, flag_table_keys: int) -> None:
    """A large run's (query, document) keys are sorted instead of flagged in a table
    (validation.FLAG_TABLE_KEYS): the same duplicates are reported either way."""
    monkeypatch.setattr(runs_validation, "FLAG_TABLE_KEYS", flag_table_keys)
    body = wtr_lines[:DOCS_PER_QUERY - 1] + [wtr_lines[0]] + wtr_lines[DOCS_PER_QUERY:]
    result = check(tmp_path / "original.trec", "".join(body), capsys, data_dir)
    assert result.rc == 1
    assert any("document" in ln and "appears again for query '0' (first on line 1)" in ln
               for ln in result.lines_at(DOCS_PER_QUERY)), result.out
    assert check(tmp_path / "original.trec", "".join(wtr_lines), capsys, data_dir).rc == 0


def test_has_duplicates_matches_a_set_of_the_keys() -> None:
    rng = np.random.default_rng(37)
    for key_range in (1, 2, 50, 10_000, (1 << 24) + 1, 2**31 + 5, 2**40):
        for n in (0, 1, 2, 7, 300):
            keys = rng.integers(0, key_range, size=n, dtype=np.int64)
            if n > 2 and rng.random() < 0.5:  # make a repeat likely in the huge ranges
                keys[-1] = keys[int(rng.integers(0, n - 1))]
            expected = len(set(keys.tolist())) < n
            assert runs_validation._has_duplicates(keys, key_range) is expected, (key_range, n)


def test_a_query_ranking_its_whole_pool_is_inside_without_a_lookup(monkeypatch) -> None:
    """_check_pool's whole-pool comparison gives what the lookup gives: a query ranking its
    pool exactly, one ranking the pool with a document twice instead of one, one with a
    document from outside instead, one in another order, and over-long ids."""
    from leaderboard.core.data.base import TaskData
    from leaderboard.core.report import Report
    from leaderboard.core.runs.parsing import parse_run

    long_id = "D-long-" + "x" * 300  # over fixed width: ids kept as Python strings
    pools = {"whole": ["a1", "a2", "a3", "a4"], "twice": ["b1", "b2", "b3"],
             "outside": ["c1", "c2", "c3"], "shuffled": ["d1", "d2", "d3"],
             "long": sorted(["e1", long_id])}
    ranked = {"whole": ["a3", "a1", "a4", "a2"], "twice": ["b1", "b2", "b2"],
              "outside": ["c1", "zz", "c3"], "shuffled": ["d3", "d2", "d1"],
              "long": [long_id, "e1"]}
    lines = [f"{q} Q0 {d} {r} {10 - r} t" for q, docs in ranked.items()
             for r, d in enumerate(docs, 1)]
    report = Report()
    run = parse_run(("\n".join(lines) + "\n").encode(), "run", report)
    assert run is not None, report.issues
    docs = sorted({d for p in pools.values() for d in p} | {"zz"})
    data = TaskData("toy", {}, np.asarray(docs, dtype=object),
                    pools={q: np.asarray(p, dtype=object if any(len(d) > 256 for d in p)
                                         else str) for q, p in pools.items()})
    looked_up = []
    real_lookup = runs_validation.lookup

    def counting(names, wanted):  # noqa: ANN001, ANN202
        looked_up.append(len(wanted))
        return real_lookup(names, wanted)

    monkeypatch.setattr(runs_validation, "lookup", counting)
    inside = runs_validation._check_pool(data, run, "run", Report())
    plain = [str(run.d_names[d]) in pools[str(run.q_names[q])]
             for q, d in zip(run.q_codes, run.d_codes)]
    assert inside.tolist() == plain
    assert plain.count(False) == 1  # zz (a repeat is inside: the duplicate check reports it)
    assert sorted(looked_up) == [3, 3]  # "twice" and "outside" alone were looked up
