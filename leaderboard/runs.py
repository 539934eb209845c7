"""TREC run files: reading, vectorised parsing and validation against a task.

A run line is ``qid Q0 docid rank score tag``: six fields separated by spaces or tabs
(any run of them), lines ending in ``\\n`` or ``\\r\\n``. Following trec_eval, the rank
column is ignored for scoring: documents are ordered by score descending, ties broken by
docid descending. Validation follows NIST's TREC checker and TIRA: hard errors reject a
file, warnings do not, every finding names ``FILE:LINE``, and nothing is ever modified.

Speed. Runs are large (a FollowTable submission holds millions of lines), so the common
case takes a fast path: pyarrow's CSV reader parses single-space-separated columns in C++
(other spacing is first normalised with ``bytes`` methods, which keeps line numbers), and
query and document ids are dictionary-encoded into integer codes over their sorted
distinct values. Everything downstream (validation, ordering, metrics) works on those
codes. Any file the fast path does not accept in full goes through an exact line-by-line
pass, whose verdict is final: the fast path only ever accepts files that pass would
accept, with the same values (tests/test_runs_fuzz.py holds it to that).
"""

from __future__ import annotations

import codecs
import io
import re
from array import array
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np
import pandas as pd

from leaderboard.data.base import TaskData
from leaderboard.fileio import MAX_LINE_ERRORS, read_submitted_bytes
from leaderboard.report import Report

MAX_FILE_BYTES = 512 * 1024 * 1024  # uncompressed; ~4x the largest legitimate run
MAX_COMPRESSED_BYTES = 128 * 1024 * 1024
MAX_LINE_CHARS = 4096  # a run line is six short fields; longer means a wrong file
UTF8_BOM = b"\xef\xbb\xbf"
RUN_COLUMNS = ("qid", "q0", "docid", "rank", "score", "tag")
# Line errors listed per file before the checker stops reading (see fileio).
MAX_ERRORS = MAX_LINE_ERRORS
# Findings of one kind listed per file by the checks of the whole run (unknown documents,
# duplicates...); past this they are counted in one summary line.
MAX_FINDINGS_PER_KIND = 1000
# Ids longer than this are kept as Python strings rather than fixed-width numpy strings,
# whose size is (number of ids) x (longest id).
MAX_FIXED_WIDTH = 256

# A score is a plain decimal number; rank a plain integer (``-0`` included, it is 0).
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_NON_FINITE = re.compile(r"[+-]?(?:nan|inf|infinity)", re.IGNORECASE)
_INTEGER = re.compile(r"[+-]?[0-9]+")
_SEPARATORS = re.compile(r"[ \t]+")  # only spaces and tabs separate fields
_NON_BLANK = re.compile(rb"[^ \t\r\n]")


def id_array(values: "list[str] | np.ndarray") -> np.ndarray:
    """Ids as a numpy array: fixed-width unicode when all are short, else Python strings."""
    arr = np.asarray(values, dtype=object)
    if arr.size and max(map(len, arr)) > MAX_FIXED_WIDTH:
        return arr
    return arr.astype(str) if arr.size else np.empty(0, dtype=str)


def _factorize_sorted(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(codes, names): names sorted ascending (code point order, as strcmp on UTF-8)."""
    codes, uniques = pd.factorize(np.asarray(values, dtype=object))
    names = id_array(list(uniques))
    return _sort_names(codes.astype(np.int32), names)


def _sort_names(codes: np.ndarray, names: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    order = np.argsort(names, kind="stable")
    if np.array_equal(order, np.arange(order.size)):
        return codes, names
    new_code = np.empty(order.size, dtype=np.int32)
    new_code[order] = np.arange(order.size, dtype=np.int32)
    return new_code[codes], names[order]


def lookup(names: np.ndarray, wanted: "np.ndarray | list[str]") -> np.ndarray:
    """Index of each wanted id in the sorted ``names``, -1 where absent.

    Both sides are compared as numpy strings (fast, exact); Python strings are used only
    when ids are too long for fixed width.
    """
    if not isinstance(wanted, np.ndarray) or wanted.dtype.kind not in "UO":
        wanted = id_array(list(wanted))
    elif wanted.dtype.kind == "O":
        wanted = id_array(wanted)
    if not names.size or not wanted.size:
        return np.full(wanted.shape[0], -1, dtype=np.int64)
    if names.dtype.kind != wanted.dtype.kind:  # one side has over-long ids
        names_cmp, wanted = names.astype(object), wanted.astype(object)
    else:
        names_cmp = names
    pos = np.minimum(np.searchsorted(names_cmp, wanted), names.size - 1)
    found = names_cmp[pos] == wanted
    return np.where(found, pos, -1).astype(np.int64)


@dataclass(eq=False)
class ParsedRun:
    """A run as columns, in file order.

    Query and document ids are codes into their sorted distinct values (``q_names``,
    ``d_names``), so code order is string order. ``line`` is each row's 1-based line
    number; ``rank`` the submitted rank column (used only for warnings). The ``qid`` and
    ``docid`` string columns are built on first use.
    """

    q_codes: np.ndarray   # int32, index into q_names
    q_names: np.ndarray   # sorted distinct query ids
    d_codes: np.ndarray   # int32, index into d_names
    d_names: np.ndarray   # sorted distinct document ids
    score: np.ndarray     # float64
    line: np.ndarray      # int64
    rank: np.ndarray      # float64
    # Computed once and kept: grouped_order() and whether it is the file order itself,
    # and order_run() (the same with the queries in id order).
    _grouped: np.ndarray | None = field(default=None, repr=False)
    _grouped_is_identity: bool = field(default=False, repr=False)
    _order: np.ndarray | None = field(default=None, repr=False)

    def __len__(self) -> int:
        return int(self.q_codes.shape[0])

    @cached_property
    def qid(self) -> np.ndarray:
        return self.q_names[self.q_codes]

    @cached_property
    def docid(self) -> np.ndarray:
        return self.d_names[self.d_codes]

    @classmethod
    def from_strings(cls, qid: "np.ndarray | list[str]", docid: "np.ndarray | list[str]",
                     score: np.ndarray, line: np.ndarray | None = None,
                     rank: np.ndarray | None = None) -> "ParsedRun":
        """Build a run from string columns (ids are factorised here)."""
        n = len(qid)
        q_codes, q_names = _factorize_sorted(np.asarray(qid, dtype=object))
        d_codes, d_names = _factorize_sorted(np.asarray(docid, dtype=object))
        return cls(q_codes, q_names, d_codes, d_names, np.asarray(score, dtype=np.float64),
                   np.arange(1, n + 1, dtype=np.int64) if line is None else np.asarray(line),
                   np.zeros(n) if rank is None else np.asarray(rank, dtype=np.float64))

    @classmethod
    def from_rows(cls, rows: list[tuple[str, str, float]]) -> "ParsedRun":
        """Build a run from (qid, docid, score) rows, e.g. for reference models or tests."""
        return cls.from_strings([r[0] for r in rows], [r[1] for r in rows],
                                np.asarray([r[2] for r in rows], dtype=np.float64))


def read_run_bytes(path: Path, display: str, report: Report) -> bytes | None:
    """The decompressed bytes of a run file, or None after reporting why not."""
    return read_submitted_bytes(path, display, report, max_bytes=MAX_FILE_BYTES,
                                max_compressed_bytes=MAX_COMPRESSED_BYTES)


def _line_of_offset(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


# Text checks run over the file in slices of this many bytes, so their scratch memory is
# bounded whatever the file's size.
_SLICE = 4 << 20


def _is_regular_text(data: bytes) -> bool:
    """Valid UTF-8, no bare carriage return, no line over MAX_LINE_CHARS bytes.

    What the fast path needs before it may parse a file; anything else goes to the exact
    pass, which reports each offending line. Checked slice by slice, in bounded memory.
    """
    if not data.isascii():  # ASCII is UTF-8; only other bytes need the decoder
        decoder = codecs.getincrementaldecoder("utf-8")("strict")
        try:
            for start in range(0, len(data), _SLICE):
                decoder.decode(data[start:start + _SLICE], final=start + _SLICE >= len(data))
        except UnicodeDecodeError:
            return False
    if b"\r" in data and data.count(b"\r") != data.count(b"\r\n"):
        return False  # a bare \r: pyarrow would take it for a line end
    line_start = 0  # offset of the current line's first byte
    for start in range(0, len(data), _SLICE):
        buf = np.frombuffer(data, dtype=np.uint8, count=min(_SLICE, len(data) - start),
                            offset=start)
        ends = np.flatnonzero(buf == 0x0A) + start
        if ends.size:
            if int(ends[0]) - line_start > MAX_LINE_CHARS:
                return False
            if ends.size > 1 and int(np.diff(ends).max()) - 1 > MAX_LINE_CHARS:
                return False
            line_start = int(ends[-1]) + 1
        if start + buf.shape[0] - line_start > MAX_LINE_CHARS:
            return False
    return True


def _normalise_whitespace(data: bytes) -> bytes:
    """Runs of spaces and tabs become one space; none at the start or end of a line.

    Pure ``bytes`` operations (C speed) that never add or remove a newline, so line
    numbers are unchanged and field values are exactly as written.
    """
    if b"\t" in data:
        data = data.replace(b"\t", b" ")
    while b"  " in data:
        data = data.replace(b"  ", b" ")
    if b" \n" in data or b"\n " in data or b" \r" in data:
        data = data.replace(b"\n ", b"\n").replace(b" \r\n", b"\r\n").replace(b" \n", b"\n")
    if data[:1] == b" ":
        data = data[1:]
    if data[-1:] == b" ":
        data = data[:-1]
    return data


def _content_line_numbers(data: bytes) -> np.ndarray:
    """1-based numbers of the lines that hold anything but spaces, tabs and line ends."""
    buf = np.frombuffer(data, dtype=np.uint8)
    if not buf.size:
        return np.zeros(0, dtype=np.int64)
    starts = np.concatenate(([0], np.flatnonzero(buf == 0x0A) + 1))
    if starts[-1] == buf.shape[0]:  # the empty "line" after a final newline
        starts = starts[:-1]
    content = (buf != 0x20) & (buf != 0x09) & (buf != 0x0D) & (buf != 0x0A)
    has_content = np.logical_or.reduceat(content, starts)
    return (np.flatnonzero(has_content) + 1).astype(np.int64)


def _parse_fast(data: bytes, n_lines: int) -> tuple[ParsedRun, tuple[int, str, int] | None] | None:
    """Columns of a well-formed run through pyarrow; None when anything is irregular.

    Also returns (line, value, count) of lines whose second column is not ``Q0``, if any.

    Accepts only what :func:`_parse_exact` accepts and yields the same values: six
    non-empty fields per line (an empty field means two separators in a row or one at a
    line end), finite scores (pyarrow parses decimals correctly rounded, as Python's
    float does), ranks of plain ASCII digits. ``data`` must hold no tabs: it is split on
    single spaces.
    """
    try:
        import pyarrow as pa
        import pyarrow.compute as pc
        from pyarrow import csv as pacsv
    except ImportError:  # pragma: no cover - pyarrow is a declared dependency
        return None
    names = list(RUN_COLUMNS)
    types = {name: pa.string() for name in names}
    types["score"] = pa.float64()
    try:
        table = pacsv.read_csv(
            pa.py_buffer(data),
            read_options=pacsv.ReadOptions(column_names=names, use_threads=False,
                                           block_size=1 << 22),
            parse_options=pacsv.ParseOptions(delimiter=" ", quote_char=False,
                                             double_quote=False, escape_char=False,
                                             newlines_in_values=False, ignore_empty_lines=True),
            convert_options=pacsv.ConvertOptions(column_types=types, null_values=[],
                                                 strings_can_be_null=False,
                                                 quoted_strings_can_be_null=False,
                                                 include_columns=names),
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
        return None
    n = table.num_rows
    if n == 0 or table.num_columns != 6:
        return None
    score = table.column("score").to_numpy()
    if not np.isfinite(score).all():
        return None
    rank_text = table.column("rank")
    if not pc.all(pc.ascii_is_decimal(rank_text)).as_py():
        return None  # signs, or not digits: the exact pass decides
    try:
        rank = pc.cast(rank_text, pa.int64()).to_numpy().astype(np.float64)
    except (pa.ArrowInvalid, OverflowError):
        return None
    if pc.min(pc.binary_length(table.column("tag"))).as_py() == 0:
        return None
    q_codes, q_names = _dictionary_codes(table.column("qid"))
    d_codes, d_names = _dictionary_codes(table.column("docid"))
    if min(map(len, q_names)) == 0 or min(map(len, d_names)) == 0:
        return None
    if n_lines == n:
        line = np.arange(1, n + 1, dtype=np.int64)
    else:  # blank lines: map rows back to the file's own line numbers
        line = _content_line_numbers(data)
        if line.shape[0] != n:
            return None
    run = ParsedRun(q_codes, q_names, d_codes, d_names, np.ascontiguousarray(score), line, rank)
    q0 = table.column("q0")
    odd = pc.not_equal(q0, "Q0")
    if not pc.any(odd).as_py():
        return run, None
    if pc.min(pc.binary_length(q0)).as_py() == 0:
        return None
    odd_rows = np.flatnonzero(np.asarray(odd.to_numpy(zero_copy_only=False), dtype=bool))
    first = int(odd_rows[0])
    return run, (int(line[first]), str(q0[first].as_py()), int(odd_rows.shape[0]))


def _dictionary_codes(column) -> tuple[np.ndarray, np.ndarray]:  # noqa: ANN001 - pyarrow
    encoded = column.dictionary_encode().combine_chunks()
    codes = encoded.indices.to_numpy().astype(np.int32, copy=False)
    names = id_array(encoded.dictionary.to_pylist())
    return _sort_names(codes, names)


class _TooManyErrors(Exception):
    """Raised by the exact pass at the error past the cap; ``line`` is where it stopped."""

    def __init__(self, line: int) -> None:
        super().__init__(line)
        self.line = line


def _parse_exact(data: bytes, display: str, report: Report) -> tuple[ParsedRun | None, int]:
    """Line-by-line pass with a message for every bad line, in one pass over the file.

    Slower than the fast path, and only used when that refuses a file; its verdict is
    final. Each line is checked in full (encoding, line end, length, six columns, score,
    rank) and the reading goes on, so one run of the checker lists every error, up to
    MAX_ERRORS; then it stops, as NIST's checker does, so a file of millions of bad lines
    costs neither time nor memory. Rows are kept as integer codes and numbers, not as
    strings, so memory stays a small multiple of the file.

    Returns the rows it could read and how many lines it could not use. The rows are
    None when the file has no run lines or the error cap cut the reading short (the rest
    of the file was not looked at, so no check of the whole may run on them). A row whose
    score or rank is bad is kept, with a NaN score, so that its ids are still checked.
    """
    q_index: dict[str, int] = {}
    d_index: dict[str, int] = {}
    q_codes, d_codes = array("i"), array("i")
    scores, ranks, lines = array("d"), array("d"), array("q")
    errors = 0
    dropped = 0
    first_odd_q0: tuple[int, str] | None = None
    n_odd_q0 = 0
    lineno = 0

    def error(lineno: int, message: str) -> None:
        nonlocal errors
        errors += 1
        if errors > MAX_ERRORS:
            raise _TooManyErrors(lineno)
        report.add(display, lineno, message)

    try:
        for lineno, raw in enumerate(io.BytesIO(data), 1):
            line = raw[:-1] if raw.endswith(b"\n") else raw
            if len(line) > MAX_LINE_CHARS:
                dropped += 1
                error(lineno, f"line is {len(line)} bytes long (limit {MAX_LINE_CHARS}); "
                              "is this really a TREC run?")
                continue
            if line.endswith(b"\r"):
                line = line[:-1]
            if b"\r" in line:
                dropped += 1
                error(lineno, "bare carriage return (old Mac line ends?); end lines with "
                              "\\n or \\r\\n")
                continue
            try:
                text = line.decode("utf-8")
            except UnicodeDecodeError as exc:
                dropped += 1
                error(lineno, f"not valid UTF-8 (byte 0x{line[exc.start]:02x})")
                continue
            fields = _SEPARATORS.split(text.strip(" \t"))
            if fields == [""]:
                continue  # a blank line
            if len(fields) != 6:
                dropped += 1
                error(lineno, f"expected 6 columns (qid Q0 docid rank score tag), found "
                              f"{len(fields)}")
                continue
            qid, q0, docid, rank_text, score_text, _tag = fields
            score = np.nan
            if _DECIMAL.fullmatch(score_text):
                value = float(score_text)
                if np.isfinite(value):
                    score = value
                else:
                    error(lineno, f"score {score_text!r} is not a finite number")
            elif _NON_FINITE.fullmatch(score_text):
                error(lineno, f"score {score_text!r} is not a finite number")
            else:
                error(lineno, f"score {score_text!r} is not a number")
            # float(), not int(): a 400-digit rank is absurd but must not crash the checker.
            rank = np.nan
            if _INTEGER.fullmatch(rank_text) and float(rank_text) >= 0:
                rank = float(rank_text)
            else:
                error(lineno, f"rank {rank_text!r} is not a non-negative integer")
            if q0 != "Q0":
                n_odd_q0 += 1
                if first_odd_q0 is None:
                    first_odd_q0 = (lineno, q0)
            q_codes.append(q_index.setdefault(qid, len(q_index)))
            d_codes.append(d_index.setdefault(docid, len(d_index)))
            scores.append(score)
            ranks.append(rank)
            lines.append(lineno)
    except _TooManyErrors as stop:
        total_lines = data.count(b"\n") + (0 if data.endswith(b"\n") else 1)
        report.add(display, None, f"more than {MAX_ERRORS} errors: stopped reading at line "
                                  f"{stop.line} of {total_lines}, as NIST's checker does; "
                                  "fix these and check again")
        return None, dropped
    if first_odd_q0 is not None:
        report.add(display, first_odd_q0[0], f"second column is {first_odd_q0[1]!r}, expected "
                                             f"'Q0' (ignored; {n_odd_q0} line(s))", "warning")
    if not lines:
        if not dropped:
            report.add(display, None, "file has no run lines")
        return None, dropped
    q_sorted, q_names = _sort_names(np.frombuffer(q_codes, dtype=np.int32),
                                    id_array(list(q_index)))
    d_sorted, d_names = _sort_names(np.frombuffer(d_codes, dtype=np.int32),
                                    id_array(list(d_index)))
    return ParsedRun(q_sorted.copy(), q_names, d_sorted.copy(), d_names,
                     np.frombuffer(scores, dtype=np.float64).copy(),
                     np.frombuffer(lines, dtype=np.int64).copy(),
                     np.frombuffer(ranks, dtype=np.float64).copy()), dropped


# Bytes at the head of a file read by the exact pass before the fast path is tried.
_PROBE_BYTES = 1 << 16


def _head_is_clean(data: bytes) -> bool:
    """Whether the first lines of the file pass the exact checks.

    pyarrow parses a whole file before it can refuse it, so a file that is bad from its
    first line (a 500 MiB gzip bomb of bad lines, say) goes straight to the exact pass,
    which stops at the error cap after a few lines.
    """
    if len(data) <= _PROBE_BYTES:
        return True  # small: the fast path costs nothing
    head = data[:data.rfind(b"\n", 0, _PROBE_BYTES) + 1] or data[:_PROBE_BYTES]
    probe = Report()
    _parse_exact(head, "", probe)
    return probe.ok


def parse_run(data: bytes, display: str, report: Report) -> ParsedRun | None:
    """Parse run bytes; hard errors go to ``report`` and make the result None."""
    run, _ = _parse_rows(data, display, report)
    return run if report.ok else None


def _parse_rows(data: bytes, display: str, report: Report) -> tuple[ParsedRun | None, int]:
    """As :func:`parse_run`, but also returns the rows of a file with bad lines (when it
    was read to the end) and how many lines could not be used, so that validation can
    report the file's other problems in the same pass."""
    if data.startswith(UTF8_BOM):
        data = data[len(UTF8_BOM):]  # some editors add one; it is not part of the first qid
    nul = data.find(b"\x00")
    if nul >= 0:
        report.add(display, _line_of_offset(data, nul),
                   "binary content (NUL byte): this is not a text run file")
        return None, 0
    if _NON_BLANK.search(data) is None:
        report.add(display, None, "file has no run lines")
        return None, 0
    if b"\r\n" in data:
        report.add(display, None, "CRLF line endings (accepted)", "warning")
    tabs = b"\t" in data
    if tabs:
        report.add(display, None, "tab-separated columns (accepted)", "warning")
    if _head_is_clean(data) and _is_regular_text(data):
        n_lines = data.count(b"\n") + (0 if data.endswith(b"\n") else 1)
        fast = None if tabs else _parse_fast(data, n_lines)
        if fast is None:
            # Irregular spacing (tabs, runs of spaces, spaces at line ends) or a bad line.
            normalised = _normalise_whitespace(data)
            if tabs or normalised != data:
                fast = _parse_fast(normalised, n_lines)
            del normalised
        if fast is not None:
            run, odd_q0 = fast
            if odd_q0 is not None:
                line, value, count = odd_q0
                report.add(display, line, f"second column is {value!r}, expected 'Q0' "
                                          f"(ignored; {count} line(s))", "warning")
            return run, 0
    return _parse_exact(data, display, report)


def _trec_order(q: np.ndarray, score: np.ndarray, d: np.ndarray) -> np.ndarray:
    """Rows sorted by query code, score descending, doc code descending (stable).

    The same permutation as ``np.lexsort((-d, -score, q))``, only cheaper: the grouped
    order of :func:`_grouped_order` with its query blocks put in code order.
    """
    grouped, _ = _grouped_order(q, score, d)
    q_g = q[grouped]
    n = q_g.shape[0]
    if n < 2 or not (q_g[1:] < q_g[:-1]).any():
        return grouped
    starts = np.concatenate(([0], np.flatnonzero(q_g[1:] != q_g[:-1]) + 1))
    lengths = np.diff(np.append(starts, n))
    block_order = np.argsort(q_g[starts], kind="stable")
    ordered_starts, ordered_lengths = starts[block_order], lengths[block_order]
    positions = np.arange(n) + np.repeat(
        ordered_starts - (np.cumsum(ordered_lengths) - ordered_lengths), ordered_lengths)
    return grouped[positions]


def _grouped_order(q: np.ndarray, score: np.ndarray, d: np.ndarray) -> tuple[np.ndarray, bool]:
    """Each query's rows together, ranked as trec_eval does; whether that is file order.

    Within a query: score descending, then doc code descending, then file position (what
    a stable sort leaves). The queries' blocks may come in any order; ranking needs no
    more. The usual file already has its queries in blocks ranked by score, so this is
    linear time; otherwise one unstable sort by score and one radix sort by query do the
    work, ~8x cheaper than a three-key lexsort. Tied rows are then put in doc order.
    """
    n = q.shape[0]
    if n < 2:
        return np.arange(n), True
    new_block = np.flatnonzero(q[1:] != q[:-1]) + 1
    same = np.ones(n - 1, dtype=bool)
    same[new_block - 1] = False
    n_blocks = new_block.shape[0] + 1
    in_blocks = (n_blocks <= int(q.max()) + 1  # cheap bound before the exact test
                 and n_blocks == np.unique(q[np.concatenate(([0], new_block))]).shape[0]
                 and not (same & (score[1:] > score[:-1])).any())  # ranked by score
    if in_blocks:
        order, identity = np.arange(n), True
        tied = same & (score[1:] == score[:-1])
        # Tied rows are in file order already: only a doc order breach needs work.
        tied_ok = not (tied & (d[1:] > d[:-1])).any()
    elif int(q.max()) < 2**16 and np.isfinite(score).all():
        order, identity = np.argsort(-score), False
        order = order[np.argsort(q[order].astype(np.uint16), kind="stable")]  # radix sort
        q_o, s_o = q[order], score[order]
        tied = (q_o[1:] == q_o[:-1]) & (s_o[1:] == s_o[:-1])
        tied_ok = not tied.any()
    else:
        return np.lexsort((-d, -score, q)), False
    if not tied_ok:
        order, identity = _sort_ties(order, tied, d), False
    return order, identity


def _sort_ties(order: np.ndarray, tied: np.ndarray, d: np.ndarray) -> np.ndarray:
    """Within each run of tied rows of ``order``: doc descending, then file position."""
    n = order.shape[0]
    in_tie = np.zeros(n, dtype=bool)
    in_tie[1:] |= tied
    in_tie[:-1] |= tied
    group = np.cumsum(np.concatenate(([True], ~tied)))  # one id per run of tied rows
    positions = np.flatnonzero(in_tie)
    rows = order[positions]
    g = group[positions].astype(np.int64)
    n_docs = int(d.max()) + 1
    if (int(g[-1]) + 1) * n_docs * n <= 2**62:  # one integer key: a plain sort is enough
        key = (g * n_docs + (n_docs - 1 - d[rows])) * n + rows
        perm = np.argsort(key)
    else:
        perm = np.lexsort((rows, -d[rows], g))
    order = order.copy()
    order[positions] = rows[perm]  # each group keeps its own positions
    return order


def grouped_order(run: ParsedRun) -> tuple[np.ndarray, bool]:
    """Rows grouped by query, each query ranked as trec_eval does (see _grouped_order),
    and whether that is the file order; computed once per run and kept."""
    if run._grouped is None:
        run._grouped, run._grouped_is_identity = _grouped_order(run.q_codes, run.score,
                                                                run.d_codes)
    return run._grouped, run._grouped_is_identity


def order_run(run: ParsedRun) -> np.ndarray:
    """Row order that ranks each query's documents as trec_eval does.

    Sorted by query, then score descending, then docid descending. The rank column is
    ignored, so shuffling lines or scrambling ranks cannot change any score. Computed
    once per run and kept.
    """
    if run._order is None:
        grouped, _ = grouped_order(run)
        q_g = run.q_codes[grouped]
        if q_g.shape[0] < 2 or not (q_g[1:] < q_g[:-1]).any():
            run._order = grouped
        else:
            run._order = _trec_order(run.q_codes, run.score, run.d_codes)
    return run._order


def _first_rows(codes: np.ndarray, mask_of_code: np.ndarray) -> list[int]:
    """Row of the first occurrence of each flagged code, in file order."""
    rows = np.flatnonzero(mask_of_code[codes])
    _, first = np.unique(codes[rows], return_index=True)
    return sorted(int(rows[i]) for i in first)


def validate_run(data_task: TaskData, role: str, run: ParsedRun, display: str,
                 report: Report, max_docs: int = 1000, unread_lines: int = 0) -> None:
    """Check a parsed run against the task: queries, documents, duplicates, depth.

    ``unread_lines`` counts lines of the file that could not be read into ``run`` (each
    already reported); the completeness checks say they may explain a shortfall.
    """
    unread = (f"; {unread_lines} unreadable line(s) not counted" if unread_lines else "")
    role_data = data_task.roles[role]
    expected = id_array(role_data.query_ids)
    expected_sorted = np.sort(expected)
    known = lookup(expected_sorted, run.q_names) >= 0
    if not known.all():
        for idx in _first_rows(run.q_codes, ~known):
            q = str(run.q_names[run.q_codes[idx]])
            report.add(display, int(run.line[idx]),
                       f"unknown query {q!r} (not a {role} query of {data_task.task_id})")
    present = lookup(run.q_names, expected) >= 0
    if not present.all():
        missing = [str(q) for q in expected[~present]]
        shown = ", ".join(repr(q) for q in missing[:10])
        more = f" and {len(missing) - 10} more" if len(missing) > 10 else ""
        report.add(display, None, f"missing {len(missing)} of {len(expected)} {role} "
                                  f"queries: {shown}{more}{unread}")
    n_docs = max(int(run.d_names.shape[0]), 1)
    keys = run.q_codes.astype(np.int64) * n_docs + run.d_codes
    if _has_duplicates(keys, int(run.q_names.shape[0]) * n_docs):
        _report_duplicates(run, keys, display, report)
    counts = np.bincount(run.q_codes, minlength=run.q_names.shape[0])
    over = np.flatnonzero(counts > max_docs)
    if over.size:
        last = np.zeros(run.q_names.shape[0], dtype=np.int64)
        np.maximum.at(last, run.q_codes, np.arange(len(run), dtype=np.int64))
        for code in over:
            report.add(display, int(run.line[last[code]]),
                       f"query {str(run.q_names[code])!r} has {int(counts[code])} documents; "
                       f"at most {max_docs} are allowed")
    if data_task.pools is not None:
        in_candidates = _check_pool(data_task, run, keys, n_docs, display, report)
    else:
        in_candidates = np.ones(len(run), dtype=bool)
        if data_task.doc_ids.size:
            in_corpus = lookup(_sorted_corpus(data_task), run.d_names) >= 0
            if not in_corpus.all():
                rows = np.flatnonzero(~in_corpus[run.d_codes])
                in_candidates = in_corpus[run.d_codes]
                _report_rows(rows, run, display, report, lambda idx: (
                    f"document {str(run.d_names[run.d_codes[idx]])!r} is not in the corpus of "
                    f"{data_task.task_id}"))
    _check_depth(data_task, run, known, keys[in_candidates], n_docs, display, report,
                 max_docs, unread)
    if report.ok:  # ranks and ties of a broken file would only add noise
        _warn_rank_consistency(run, display, report)


def required_depth(data_task: TaskData, qid: str, max_docs: int = 1000) -> int:
    """How many documents a run must rank for ``qid`` (see :func:`_check_depth`)."""
    if data_task.pools is not None:
        pool = data_task.pools.get(qid)
        return 0 if pool is None else int(pool.shape[0])
    return min(max_docs, data_task.corpus_size)


def _check_depth(data_task: TaskData, run: ParsedRun, known: np.ndarray,
                 candidate_keys: np.ndarray, n_docs: int, display: str, report: Report,
                 max_docs: int, unread: str = "") -> None:
    """Every query ranks its whole candidate set, or the corpus to the full depth.

    A document a run leaves out counts as ranked below all it lists, so a shallow run
    scores p-MRR as if every missing document had dropped together: cutting BM25's WTR
    run to its top 10 raised p-MRR from 0.354 to 0.812. Hence a depth floor: reranking
    tasks (FollowIR, mFollowIR) must rank every document of each query's ``top_ranked``
    pool; corpus tasks (FollowTable, PI-Indic T1-T3) must list min(1000, corpus size)
    documents per query, which for PI-Indic is its whole 150-item candidate set.
    ``known`` flags the run's queries that belong to the role (others are reported
    already); ``candidate_keys`` are the (query, document) keys of rows inside the
    candidates; a document listed twice counts once.
    """
    n_queries = int(run.q_names.shape[0])
    if not n_queries:
        return
    distinct = np.unique(candidate_keys)
    ranked = np.bincount((distinct // n_docs).astype(np.int64), minlength=n_queries)
    q_names = run.q_names.tolist()
    required = np.asarray([required_depth(data_task, q, max_docs) if ok else 0
                           for q, ok in zip(q_names, known.tolist())], dtype=np.int64)
    short = np.flatnonzero(ranked < required)
    if not short.size:
        return
    first_row = np.full(n_queries, len(run), dtype=np.int64)
    np.minimum.at(first_row, run.q_codes, np.arange(len(run), dtype=np.int64))
    short = short[np.argsort(first_row[short], kind="stable")]  # in file order
    first = int(short[0])
    n_missing = int((required[short] - ranked[short]).sum())
    tally = (f"{short.size} of {int(known.sum())} queries are short, {n_missing:,} documents "
             f"in all{unread}")
    if data_task.pools is not None:
        message = (f"query {q_names[first]!r} ranks {int(ranked[first])} of the "
                   f"{int(required[first])} documents in its candidate pool; a reranking "
                   f"task's run must rank every document of each query's pool ({tally})")
    else:
        message = (f"query {q_names[first]!r} ranks {int(ranked[first])} documents; each "
                   f"query must list min({max_docs}, corpus size) = {int(required[first])} "
                   f"documents of the corpus ({tally})")
    report.add(display, int(run.line[first_row[first]]), message)


def _sorted_corpus(data_task: TaskData) -> np.ndarray:
    ids = data_task.doc_ids
    if ids.shape[0] > 1 and not (ids[1:] > ids[:-1]).all():
        ids = np.unique(ids)  # the reader promises sorted ids; do not rely on it blindly
    return ids


def _has_duplicates(keys: np.ndarray, key_range: int) -> bool:
    if keys.shape[0] < 2:
        return False
    if key_range <= 64 * max(keys.shape[0], 1 << 20):
        seen = np.zeros(key_range, dtype=bool)
        seen[keys] = True
        return int(np.count_nonzero(seen)) < keys.shape[0]
    return bool(pd.Series(keys).duplicated().any())


def _report_duplicates(run: ParsedRun, keys: np.ndarray, display: str, report: Report) -> None:
    frame = pd.DataFrame({"key": keys, "line": run.line})
    dup = frame.duplicated("key", keep="first").to_numpy()
    first_line = frame.groupby("key", sort=False)["line"].transform("min").to_numpy()
    _report_rows(np.flatnonzero(dup), run, display, report, lambda idx: (
        f"document {str(run.d_names[run.d_codes[idx]])!r} appears again for query "
        f"{str(run.q_names[run.q_codes[idx]])!r} (first on line {int(first_line[idx])})"))


def _report_rows(rows: np.ndarray, run: ParsedRun, display: str, report: Report,
                 message) -> None:  # noqa: ANN001 - callable(row) -> str
    for idx in rows[:MAX_FINDINGS_PER_KIND]:
        report.add(display, int(run.line[idx]), message(int(idx)))
    if rows.shape[0] > MAX_FINDINGS_PER_KIND:
        report.add(display, None, f"{rows.shape[0] - MAX_FINDINGS_PER_KIND} more lines with "
                                  "the same problem")


def _check_pool(data_task: TaskData, run: ParsedRun, keys: np.ndarray, n_docs: int,
                display: str, report: Report) -> np.ndarray:
    """Reranking tasks: each query may only rank its own fixed candidate pool.

    Returns which rows lie inside their query's pool."""
    assert data_task.pools is not None
    allowed = []
    for code, q in enumerate(run.q_names.tolist()):
        pool = data_task.pools.get(q)
        if pool is None:
            continue  # an unknown query: already reported
        doc_codes = lookup(run.d_names, np.asarray(pool))
        allowed.append(code * n_docs + doc_codes[doc_codes >= 0])
    allowed_keys = np.concatenate(allowed) if allowed else np.zeros(0, dtype=np.int64)
    known_query = np.zeros(run.q_names.shape[0], dtype=bool)
    known_query[[c for c, q in enumerate(run.q_names.tolist()) if q in data_task.pools]] = True
    inside = np.isin(keys, allowed_keys)
    outside = ~inside & known_query[run.q_codes]
    rows = np.flatnonzero(outside)
    _report_rows(rows, run, display, report, lambda idx: (
        f"document {str(run.d_names[run.d_codes[idx]])!r} is not in the candidate pool of "
        f"query {str(run.q_names[run.q_codes[idx]])!r} (this task reranks a fixed pool)"))
    return inside


def _warn_rank_consistency(run: ParsedRun, display: str, report: Report) -> None:
    """Warnings only: trec_eval ignores ranks, but a mismatch often reveals a bug.

    Each warning names the earliest line (in the file) where the problem shows.
    """
    order, _ = grouped_order(run)  # only neighbours within a query are compared
    q_sorted = run.q_codes[order]
    score_sorted = run.score[order]
    same_q = q_sorted[1:] == q_sorted[:-1]
    ties = same_q & (score_sorted[1:] == score_sorted[:-1])
    if ties.any():
        report.add(display, int(run.line[order[1:][ties]].min()),
                   f"{int(ties.sum())} tied score(s) within a query; ties are broken by docid "
                   "descending, as trec_eval does", "warning")
    rank_sorted = run.rank[order]
    inverted = same_q & (rank_sorted[1:] < rank_sorted[:-1]) & ~ties
    if inverted.any():
        report.add(display, int(run.line[order[1:][inverted]].min()),
                   f"rank column disagrees with scores on {int(inverted.sum())} line(s); "
                   "ranks are ignored, documents are ordered by score", "warning")


def role_of_queries(data_task: TaskData, qids: "np.ndarray | list[str]") -> str | None:
    """The role whose query ids the run's queries are, when the file name does not say.

    Query ids tell the roles apart: FollowIR and mFollowIR number a query ``<id>-og``
    (original) or ``<id>-changed`` (altered); FollowTable's original run holds the
    topic-only queries ``<q>``, the altered one ``<q>_<i>``. The role holding the most of
    the run's distinct query ids wins; None when no role holds any, or two tie.
    """
    distinct = np.unique(id_array(list(qids))) if len(qids) else np.empty(0, dtype=str)
    counts = {role: int((lookup(np.sort(id_array(data.query_ids)), distinct) >= 0).sum())
              for role, data in data_task.roles.items()}
    best = max(counts.values(), default=0)
    winners = [role for role, n in counts.items() if n == best]
    return winners[0] if best > 0 and len(winners) == 1 else None


def queries_of_file(path: Path) -> np.ndarray | None:
    """The distinct query ids of a run file, or None when it cannot be read that far."""
    scratch = Report()
    raw = read_run_bytes(path, str(path), scratch)
    if raw is None:
        return None
    run, _ = _parse_rows(raw, str(path), scratch)
    return None if run is None else run.q_names


def load_and_validate(path: Path, data_task: TaskData, role: str, display: str | None = None,
                      max_docs: int = 1000) -> tuple[Report, ParsedRun | None]:
    """Everything the validator knows about one run file; the run when it is valid."""
    report = Report()
    shown = display or str(path)
    raw = read_run_bytes(path, shown, report)
    if raw is None:
        return report, None
    # Rows of a file with bad lines are still checked against the task, so one pass
    # reports every problem (up to the error cap), not one kind of problem per round.
    run, unread = _parse_rows(raw, shown, report)
    del raw
    if run is None:
        return report, None
    validate_run(data_task, role, run, shown, report, max_docs=max_docs, unread_lines=unread)
    return report, (run if report.ok else None)
