"""Parsing run bytes into columns: a vectorised fast path, then the exact line-by-line
pass (:mod:`leaderboard.core.runs.exact`) for any file it does not accept in full.

A run line is ``qid Q0 docid rank score tag``: six fields separated by spaces or tabs
(any run of them), lines ending in ``\\n`` or ``\\r\\n``. Validation follows NIST's TREC
checker and TIRA: hard errors reject a file, warnings do not, every finding names
``FILE:LINE``, and nothing is ever modified.

Speed. Runs are large (a FollowTable submission holds millions of lines), so the common
case takes a fast path: pyarrow's CSV reader parses single-space-separated columns in C++
(other spacing is first normalised with ``bytes`` methods, which keeps line numbers), and
ids are dictionary-encoded (:mod:`leaderboard.core.runs.columns`). Any file the fast path does
not accept in full goes through the exact pass, whose verdict is final: the fast path
only ever accepts files that pass would accept, with the same values
(tests/test_runs_fuzz.py holds it to that). The exact pass reports every bad line, up to
MAX_ERRORS, then stops, in memory bounded by a small multiple of the file.
"""

from __future__ import annotations

import codecs
import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

# At the top, not in the fast path: imported on the calling thread before the parse
# threads start, so they begin parsing at once (a one-task `leaderboard eval` loads the
# judgments meanwhile; benchmarks/cli_startup.py).
import pyarrow as pa
from pyarrow import csv as pacsv

try:  # pyarrow's kernels by name, not through pyarrow.compute (see _arrow_compute)
    from pyarrow._compute import CastOptions as _CastOptions
    from pyarrow._compute import call_function as _call_function
except ImportError:  # pragma: no cover - a pyarrow that moved its private module
    from pyarrow.compute import CastOptions as _CastOptions
    from pyarrow.compute import call_function as _call_function

from leaderboard.core.fileio import packed_text, utf16_text
from leaderboard.core.report import Report, plural
from leaderboard.core.runs.columns import (MAX_FIXED_WIDTH, ParsedRun, _sort_names,
                                           ascii_as_unicode, id_array, recoded)
from leaderboard.core.runs.exact import MAX_ERRORS, MAX_LINE_CHARS, MAX_QUERIES, parse_exact

UTF8_BOM = b"\xef\xbb\xbf"
RUN_COLUMNS = ("qid", "q0", "docid", "rank", "score", "tag")
_NON_BLANK = re.compile(rb"[^ \t\r\n]")


def _line_of_offset(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


# Runs of at least this many lines have their query and document ids encoded at once.
_PARALLEL_ENCODING_ROWS = 1 << 17

# pyarrow's CSV block: a file larger than one is parsed on pyarrow's thread pool.
_BLOCK = 1 << 20

# Text checks run over the file in slices of this many bytes, so their scratch memory is
# bounded whatever the file's size.
_SLICE = 4 << 20


@dataclass(frozen=True)
class _TextLines:
    """What :func:`_regular_text_lines` found: the number of lines, and whether a line
    ends with a space (before its ``\n`` or ``\r\n``, or at the end of the file)."""

    count: int
    space_at_end: bool


def _regular_text_lines(data: bytes) -> _TextLines | None:
    """The lines when the text is valid UTF-8 with no bare carriage return and no line
    over MAX_LINE_CHARS bytes, else None.

    What the fast path needs before it may parse a file; anything else goes to the exact
    pass, which reports each offending line. Three whole-file scans, none of which lists
    the line ends (that took a third of a 400k-line run's parse outside pyarrow): the
    lines are counted, and no line is too long when every block of :data:`_LINE_BLOCK`
    bytes holds a line end (:func:`_line_ends`; :func:`_longest_line` measures the rare
    file where one does not); a line ends with a space when the file holds a space
    followed by a line end, found two bytes at a time at both alignments (a search for
    ``b" \n"`` stops at every space of a run, 13 ms on a 13 MB run).
    tests/test_runs_fuzz.py holds this to a line-by-line definition.
    """
    if not data.isascii():  # ASCII is UTF-8; only other bytes need the decoder
        decoder = codecs.getincrementaldecoder("utf-8")("strict")
        try:
            for start in range(0, len(data), _SLICE):
                decoder.decode(data[start:start + _SLICE], final=start + _SLICE >= len(data))
        except UnicodeDecodeError:
            return None
    crlf = b"\r" in data
    if crlf and data.count(b"\r") != data.count(b"\r\n"):
        return None  # a bare \r: pyarrow would take it for a line end
    line_ends, short_lines = _line_ends(data)
    if not short_lines and _longest_line(data) > MAX_LINE_CHARS:
        return None
    pairs = (_SPACE_LF, _SPACE_CR) if crlf else (_SPACE_LF,)  # " \r" is " \r\n" here
    space_at_end = data.endswith(b" ") or _holds_pair(data, pairs)
    count = line_ends + (0 if data.endswith(b"\n") else 1)
    return _TextLines(count, space_at_end)


# Every full block of this many bytes holding a "\n" puts consecutive line ends at most
# 2 * _LINE_BLOCK - 1 bytes apart, so no line is over 2 * _LINE_BLOCK - 2 <= MAX_LINE_CHARS.
_LINE_BLOCK = (MAX_LINE_CHARS + 2) // 2
# The whole-file scans go over slices of whole blocks, about 4 MiB: each slice is a few
# numpy calls, and each call gives up the GIL and waits to take it back while another
# thread holds it (`eval` parses a task's runs on two threads). 256 KiB slices saved
# 0.3 ms of CPU per 15 MB, too little to pay for 16 times the hand-overs.
_SCAN = 2048 * _LINE_BLOCK
# A space then a line end, as the little-endian uint16 their two bytes make.
_SPACE_LF = 0x0A20
_SPACE_CR = 0x0D20


def _line_ends(data: bytes) -> tuple[int, bool]:
    """The number of ``\n`` in ``data``, and whether every full block of
    :data:`_LINE_BLOCK` bytes holds one, in one numpy pass (3.5 ms on a 15 MB run, where
    ``bytes.count`` alone took 6-12; numpy lets go of the GIL, so the other run of a task
    is parsed meanwhile)."""
    whole = np.frombuffer(data, dtype=np.uint8)
    full = whole.shape[0] - whole.shape[0] % _LINE_BLOCK  # bytes in full blocks
    count = 0
    blocks_hold_one = True
    for start in range(0, whole.shape[0], _SCAN):  # _SCAN is a whole number of blocks
        is_end = whole[start:start + _SCAN] == 0x0A
        count += int(np.count_nonzero(is_end))
        blocks = max(0, min(is_end.shape[0], full - start)) // _LINE_BLOCK
        if blocks_hold_one and blocks:
            blocks_hold_one = bool(is_end[:blocks * _LINE_BLOCK].reshape(
                blocks, _LINE_BLOCK).any(axis=1).all())
    return count, blocks_hold_one


def _longest_line(data: bytes) -> int:
    """The length of the longest line (without its line end), in slices of bounded
    scratch memory."""
    whole = np.frombuffer(data, dtype=np.uint8)
    longest = 0
    line_start = 0  # offset of the current line's first byte
    for start in range(0, len(data), _SLICE):
        ends = np.flatnonzero(whole[start:start + _SLICE] == 0x0A) + start
        if ends.size:
            longest = max(longest, int(ends[0]) - line_start)
            if ends.size > 1:
                longest = max(longest, int(np.diff(ends).max()) - 1)
            line_start = int(ends[-1]) + 1
    return max(longest, len(data) - line_start)


def _holds_pair(data: bytes, pairs: tuple[int, ...]) -> bool:
    """Whether two consecutive bytes of ``data`` make one of ``pairs`` (little-endian)."""
    for offset in (0, 1):
        count = (len(data) - offset) // 2
        for start in range(0, count, _SCAN // 2):
            step = min(_SCAN // 2, count - start)
            words = np.frombuffer(data, dtype="<u2", count=step, offset=offset + 2 * start)
            if any(bool((words == pair).any()) for pair in pairs):
                return True
    return False


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


def _parse_fast(data: bytes, lines: _TextLines
                ) -> tuple[ParsedRun, tuple[int, str, int] | None] | None:
    """Columns of a well-formed run through pyarrow; None when anything is irregular.

    Also returns (line, value, count) of lines whose second column is not ``Q0``, if any.

    Accepts only what :func:`~leaderboard.core.runs.exact.parse_exact` accepts and yields the same values: six
    non-empty fields per line (an empty field means two separators in a row or one at a
    line end), finite scores (pyarrow parses decimals correctly rounded, as Python's
    float does), non-negative integer ranks. Ranks are parsed by pyarrow's integer parser,
    which takes an optional ``-`` and ASCII digits (a subset of what the exact pass takes;
    a negative rank sends the file there) and also ``0x``-prefixed hexadecimal: a file
    holding ``0x`` or ``0X`` anywhere has its rank column read as text and checked to be
    ASCII digits first. ``data`` must hold no tabs: it is split on single spaces.

    pyarrow reads files over one block (1 MiB) on its own thread pool: a FollowTable run
    of 400k lines parses in about 60% of the single-thread wall time.
    """
    call, CastOptions = _arrow_compute()
    # An empty last field (the tag) is a separator at a line's end, which
    # _regular_text_lines noted: the tag column is never converted (10% of pyarrow's work).
    if lines.space_at_end:
        return None
    n_lines = lines.count
    names = list(RUN_COLUMNS)
    types = {name: pa.string() for name in names}
    types["score"] = pa.float64()
    # Read straight into integers unless some field could be hexadecimal: parsing text,
    # checking its digits and casting cost 20 ms of a 400k-line run.
    hex_free = not _may_hold_hexadecimal(data)
    types["rank"] = pa.int64() if hex_free else pa.string()
    try:
        table = pacsv.read_csv(
            pa.py_buffer(data),
            read_options=pacsv.ReadOptions(column_names=names, use_threads=len(data) > _BLOCK,
                                           block_size=_BLOCK),
            parse_options=pacsv.ParseOptions(delimiter=" ", quote_char=False,
                                             double_quote=False, escape_char=False,
                                             newlines_in_values=False, ignore_empty_lines=True),
            convert_options=pacsv.ConvertOptions(column_types=types, null_values=[],
                                                 strings_can_be_null=False,
                                                 quoted_strings_can_be_null=False,
                                                 include_columns=names[:-1],
                                                 # _regular_text_lines checked the whole
                                                 # file: fields of valid UTF-8 split at
                                                 # ASCII bytes are valid (about 10% of
                                                 # a small run's read)
                                                 check_utf8=False),
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
        return None
    n = table.num_rows
    if n == 0 or table.num_columns != 5:
        return None
    score = _numpy_of(table.column("score"), np.float64)
    if not np.isfinite(score).all():
        return None
    if hex_free:
        rank = _numpy_of(table.column("rank"), np.int64)
    else:
        rank_text = table.column("rank")
        if not call("all", [call("ascii_is_decimal", [rank_text])]).as_py():
            return None  # signs, hexadecimal or not digits: the exact pass decides
        try:
            rank = _numpy_of(call("cast", [rank_text], CastOptions.safe(pa.int64())), np.int64)
        except (pa.ArrowInvalid, OverflowError):
            return None
    if int(rank.min()) < 0:
        return None  # the exact pass reports each negative rank
    rank = rank.astype(np.float64)
    if n >= _PARALLEL_ENCODING_ROWS:
        # The two encodings release the GIL for most of their time (8 and 10 ms on a
        # 400k-line run): the query ids are encoded on a helper thread meanwhile.
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="encode-qid") as helper:
            encoding_qids = helper.submit(_query_codes, table.column("qid"), call)
            d_codes, d_names = _dictionary_codes(table.column("docid"), call)
            q_encoded = encoding_qids.result()
    else:
        q_encoded = _query_codes(table.column("qid"), call)
        d_codes, d_names = _dictionary_codes(table.column("docid"), call)
    if q_encoded is None:
        return None  # too many queries: the exact pass says where
    q_codes, q_names = q_encoded
    # Names are sorted, so an empty id would be the first (a scan of every name in
    # Python took 12 of a 40 ms parse of a 52k-line FollowIR run).
    if len(q_names[0]) == 0 or len(d_names[0]) == 0:
        return None
    if n_lines == n:
        line = np.arange(1, n + 1, dtype=np.int64)
    else:  # blank lines: map rows back to the file's own line numbers
        line = _content_line_numbers(data)
        if line.shape[0] != n:
            return None
    run = ParsedRun(q_codes, q_names, d_codes, d_names, np.ascontiguousarray(score), line, rank)
    # Nearly every run writes Q0 on every line: checked on the column's bytes (0.5 ms for
    # 400k lines); only a file with other values is encoded (6 ms) to find and count them.
    if _all_q0(table.column("q0"), call):
        return run, None
    q0 = call("dictionary_encode", [table.column("q0")]).combine_chunks()
    q0_values = q0.dictionary.to_pylist()
    if q0_values == ["Q0"]:
        return run, None
    if min(map(len, q0_values)) == 0:
        return None
    q0_codes = _numpy_of(q0.indices, np.int32)
    odd_rows = np.flatnonzero(q0_codes != (q0_values.index("Q0") if "Q0" in q0_values else -1))
    first = int(odd_rows[0])
    return run, (int(line[first]), str(q0_values[q0_codes[first]]), int(odd_rows.shape[0]))


_Q0 = np.frombuffer(b"Q0", dtype=np.uint16)[0]


def _all_q0(column, call) -> bool:  # noqa: ANN001 - a pyarrow string column, call_function
    """Whether every value of a string column is ``Q0``.

    When every value is two bytes long, each chunk's values are its data buffer from the
    first offset to the last, back to back: compared two bytes at a time with numpy. (A
    comparison with a pyarrow scalar would import pandas to make the scalar; the string
    min/max kernel takes 8 ms.)
    """
    if len(column) == 0:
        return True
    if call("min_max", [call("binary_length", [column])]).as_py() != {"min": 2, "max": 2}:
        return False
    for chunk in column.chunks:
        offsets = np.frombuffer(chunk.buffers()[1], dtype=np.int32, count=len(chunk) + 1,
                                offset=chunk.offset * 4)
        values = np.frombuffer(chunk.buffers()[2], dtype=np.uint8)[offsets[0]:offsets[-1]]
        if not (values.view(np.uint16) == _Q0).all():
            return False
    return True


def _may_hold_hexadecimal(data: bytes) -> bool:
    """Whether ``data`` holds ``0x`` or ``0X``, which pyarrow's integer parser reads as hex.

    ``b"0x" in data`` alone is slow on a run: scores and ranks are full of zeros, and each
    is a false start of the substring search (13 ms for each of the two on a 13 MB run). A
    lone ``x`` is found with memchr, 20 times faster, and most runs hold none.
    """
    return (b"x" in data and b"0x" in data) or (b"X" in data and b"0X" in data)


def _numpy_of(column, dtype: type) -> np.ndarray:  # noqa: ANN001 - a pyarrow (Chunked)Array
    """A copy of a null-free fixed-width pyarrow column as a numpy array.

    Read from the data buffer rather than through ``to_numpy``: pyarrow imports pandas
    (0.3-0.5 s) on its first conversion to numpy or from Python objects, and a valid run's
    parse needs nothing else from pandas (`leaderboard eval` start-up, see
    benchmarks/cli_startup.py).
    """
    array = column.combine_chunks() if hasattr(column, "combine_chunks") else column
    if array.null_count:
        raise ValueError("unexpected nulls in a parsed run column")
    width = np.dtype(dtype).itemsize
    return np.frombuffer(array.buffers()[1], dtype=dtype, count=len(array),
                         offset=array.offset * width).copy()


def _arrow_compute():  # noqa: ANN202 - (call_function, CastOptions) of pyarrow
    """pyarrow's compute entry points without importing ``pyarrow.compute``.

    That module wraps every one of its ~290 kernels in a Python function when imported
    (50-70 ms, a twentieth of a one-task `leaderboard eval`); the parse needs a few
    kernels, called by name with the arguments the module's wrappers would pass (a
    chunked array's own methods, ``dictionary_encode`` say, import the module). They
    are imported with pyarrow, at the top of this module, not by the first parse: on a
    parse thread that import waited for the GIL (4 ms alone, 12 ms there).
    """
    return _call_function, _CastOptions


def _dictionary_codes(column, call, limit: int | None = None  # noqa: ANN001 - pyarrow
                      ) -> tuple[np.ndarray, np.ndarray] | None:
    """(codes, sorted names) of a string column; None when it has more than ``limit``
    distinct values (they are not decoded)."""
    encoded = call("dictionary_encode", [column]).combine_chunks()
    if limit is not None and len(encoded.dictionary) > limit:
        return None
    codes = _numpy_of(encoded.indices, np.int32)
    ascii_names = _ascii_names(encoded.dictionary)
    if ascii_names is None:
        return _sort_names(codes, id_array(encoded.dictionary.to_pylist()))
    order, names = ascii_names
    return recoded(codes, order), names


def _ascii_names(dictionary) -> tuple[np.ndarray, np.ndarray] | None:  # noqa: ANN001
    """(order, sorted names) of a pyarrow string array of distinct ASCII values, each at
    most MAX_FIXED_WIDTH bytes long, read from its buffers: ``names`` is
    ``id_array(values)[order]``, sorted. None for any other array (the caller decodes it).

    FollowIR and mFollowIR runs name some 30,000 distinct documents each: making Python
    strings of them, then a unicode array, and sorting that took 18 of a 60 ms parse.
    Here the values are laid out at a fixed width from the buffers, ids of up to 8 bytes
    are sorted as big-endian integers (byte order is code point order for ASCII, and the
    zero padding puts a prefix first, as numpy compares strings), and the bytes are
    widened to unicode once. tests/test_runs_fuzz.py holds it to ``id_array``.
    """
    n = len(dictionary)
    if not n or dictionary.null_count:
        return None
    offsets = np.frombuffer(dictionary.buffers()[1], dtype=np.int32, count=n + 1,
                            offset=dictionary.offset * 4)
    text = np.frombuffer(dictionary.buffers()[2], dtype=np.uint8)[offsets[0]:offsets[-1]]
    lengths = np.diff(offsets)
    width = int(lengths.max())
    # A NUL would be taken for padding (a run holding one is refused before this).
    if width == 0 or width > MAX_FIXED_WIDTH or int(text.max()) > 0x7F or int(text.min()) == 0:
        return None
    padded = -(-width // 8) * 8
    table = np.zeros((n, padded), dtype=np.uint8)
    table[np.arange(padded) < lengths[:, None]] = text
    if padded == 8:
        order = np.argsort(table.view(">u8")[:, 0])
    else:
        order = np.argsort(table.view(f"S{padded}")[:, 0])
    names = ascii_as_unicode(table[order, :width].copy().view(f"S{width}")[:, 0])
    return order, names


def _query_codes(column, call  # noqa: ANN001 - pyarrow
                 ) -> tuple[np.ndarray, np.ndarray] | None:
    """:func:`_dictionary_codes` of the query id column, None past MAX_QUERIES ids.

    A run lists each query's documents together, so its query ids come in a few runs of
    one value: only each run's value is encoded, and its code repeated (13 to 6 ms on a
    400k-line run). A file whose queries are interleaved is encoded line by line.
    """
    # One call for every chunk: each call gives up the GIL, and taking it back waits
    # while another thread holds it (`eval` parses a task's runs on two threads).
    parts = call("run_end_encode", [column]).chunks
    if sum(len(part.values) for part in parts) * _GROUPED_LINES > len(column):
        return _dictionary_codes(column, call, MAX_QUERIES)
    encoded = _dictionary_codes(pa.chunked_array([part.values for part in parts],
                                                 type=column.type), call, MAX_QUERIES)
    if encoded is None:
        return None
    run_codes, names = encoded
    lengths = np.concatenate([np.diff(_numpy_of(part.run_ends, np.int32), prepend=0)
                              for part in parts])
    return np.repeat(run_codes, lengths), names


# Encoding each run of a query id once pays when the runs are this many lines long on
# average (queries ranking 1,000 or 150 documents are far above it).
_GROUPED_LINES = 16


# Bytes at the head of a file read by the exact pass before the fast path is tried.
_PROBE_BYTES = 1 << 12
# Files up to this size skip the probe: pyarrow refuses them quickly enough.
_PROBE_MIN_FILE = 8 << 20


def _head_is_clean(data: bytes) -> bool:
    """Whether the first lines of the file pass the exact checks.

    pyarrow parses a whole file before it can refuse it, so a file that is bad from its
    first line (a 500 MiB gzip bomb of bad lines, say) goes straight to the exact pass,
    which stops at the error cap after a few lines.
    """
    if len(data) <= _PROBE_MIN_FILE:
        return True  # a failed fast path costs little on a file this small
    head = data[:data.rfind(b"\n", 0, _PROBE_BYTES) + 1] or data[:_PROBE_BYTES]
    probe = Report()
    parse_exact(head, "", probe)
    return probe.ok


def verdict_within(head: bytes) -> int | None:
    """How many first bytes of ``head``, a file's beginning, hold the parser's whole
    verdict on the file, whatever follows: a NUL byte, or more than MAX_ERRORS bad lines
    (the exact pass stops there). None when the rest of the file would be needed."""
    cut = head[:head.rfind(b"\n") + 1]
    if b"\x00" in cut:
        return len(cut)
    probe = Report()
    parse_exact(cut.removeprefix(UTF8_BOM), "", probe)
    return len(cut) if len(probe.errors) > MAX_ERRORS else None


def parse_run(data: bytes, display: str, report: Report) -> ParsedRun | None:
    """Parse run bytes; hard errors go to ``report`` and make the result None."""
    run, _ = _parse_rows(data, display, report)
    return run if report.ok else None


def _parse_rows(data: bytes, display: str, report: Report, whole_file: bool = True
                ) -> tuple[ParsedRun | None, int]:
    """As :func:`parse_run`, but also returns the rows of a file with bad lines (when it
    was read to the end) and how many lines could not be used, so that validation can
    report the file's other problems in the same pass. ``whole_file=False``: ``data`` is
    only the beginning of the file, which holds the verdict (:func:`verdict_within`)."""
    if data.startswith(UTF8_BOM):
        data = data[len(UTF8_BOM):]  # some editors add one; it is not part of the first qid
    nul = data.find(b"\x00")
    if nul >= 0 and (utf16 := utf16_text(data, display)):  # the text, in another encoding
        report.add(display, None, utf16)
        return None, 0
    if nul >= 0:
        packed = packed_text(data, display)  # a good run zipped, tarred, xz'd...
        report.add(display, _line_of_offset(data, nul),
                   f"binary content (NUL byte): {packed or 'this is not a text run file'}")
        return None, 0
    if _NON_BLANK.search(data) is None:
        report.add(display, None, "file has no run lines")
        return None, 0
    if b"\r" in data and b"\r\n" in data:  # memchr for \r first: much faster
        report.add(display, None, "CRLF line endings (accepted)", "warning", kind="crlf")
    tabs = b"\t" in data
    if tabs:
        report.add(display, None, "tab-separated columns (accepted)", "warning", kind="tabs")
    if not whole_file:
        return parse_exact(data, display, report, whole_file=False)
    lines = _regular_text_lines(data) if _head_is_clean(data) else None
    if lines is not None:
        fast = None if tabs else _parse_fast(data, lines)
        if fast is None:
            # Irregular spacing (tabs, runs of spaces, spaces at line ends) or a bad line.
            normalised = _normalise_whitespace(data)
            if tabs or normalised != data:
                # Normalising leaves no space at a line's end; the lines are the same.
                fast = _parse_fast(normalised, _TextLines(lines.count, space_at_end=False))
            del normalised
        if fast is not None:
            run, odd_q0 = fast
            if odd_q0 is not None:
                line, value, count = odd_q0
                report.add(display, line, f"second column is {value!r}, expected 'Q0' "
                                          f"(ignored; {plural(count, 'line')})", "warning",
                           kind="q0")
            return run, 0
    return parse_exact(data, display, report)
