"""The exact pass over a run's bytes: line by line, a message for every bad line.

The grammar of a run line (``qid Q0 docid rank score tag``, six fields separated by
spaces or tabs, a plain decimal score, a non-negative integer rank) is written here once,
as the checks a submitter's file is held to and the words each failure is told in.
:mod:`leaderboard.core.runs.parsing` tries its vectorised fast path first and hands every
file it does not accept in full to :func:`parse_exact`, whose verdict is final; the fast
path accepts only what this pass accepts, with the same values (tests/test_runs_fuzz.py).
"""

from __future__ import annotations

import io
import re
import unicodedata
from array import array

import numpy as np

from leaderboard.core.fileio import ENOUGH_AFTER_BYTES, MAX_LINE_ERRORS, size_text
from leaderboard.core.report import Report, plural
from leaderboard.core.runs.columns import ParsedRun, _sort_names, id_array

MAX_LINE_CHARS = 4096  # a run line is six short fields; longer means a wrong file
# Line errors listed per file before the checker stops reading (see fileio).
MAX_ERRORS = MAX_LINE_ERRORS
# Distinct query ids a run may hold. A run answers one task's queries: the largest task
# has 1,386 (FollowTable WQT, altered), and the file-size limit keeps a run that lists
# 1,000 documents per query under about 21,000. A file past this is refused when its
# next query id appears, before millions of ids are decoded (10^6 took 360 MB a file).
MAX_QUERIES = 100_000

# A score is a plain decimal number; rank a plain integer (``-0`` included, it is 0).
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_NON_FINITE = re.compile(r"[+-]?(?:nan|inf|infinity)", re.IGNORECASE)
_INTEGER = re.compile(r"[+-]?[0-9]+")
_SEPARATORS = re.compile(r"[ \t]+")  # only spaces and tabs separate fields
_HEADER_HINT = " (a header line? a TREC run has none: remove it)"
# What a spreadsheet or a CSV writer separates values by, where a run has spaces or tabs.
_OTHER_SEPARATORS = (",", ";", "|")


class _TooManyErrors(Exception):
    """Raised by the exact pass at the error past the cap; ``line`` is where it stopped."""

    def __init__(self, line: int) -> None:
        super().__init__(line)
        self.line = line


def _other_separator(text: str, n_fields: int) -> str | None:
    """The character a line of ``n_fields`` fields (not six) seems to separate its
    values by instead of spaces or tabs (a CSV's comma): one that splits it into more."""
    for separator in _OTHER_SEPARATORS:
        if len(text.split(separator)) > max(n_fields, 2):
            return separator
    return None


def _columns_hint(text: str, separator: str | None) -> str:
    """Why a line does not split into six columns, where it can be told: its values
    separated by ``separator`` (:func:`_other_separator`), or a character that shows as
    a space but separates nothing (a no-break space, a wide space), named, and where."""
    if separator is not None:
        return (f": the line looks {_SEPARATOR_NAMES[separator]}-separated, and a TREC "
                "run separates its columns by spaces or tabs")
    for at, char in enumerate(text, 1):
        if char.isspace() and char not in " \t":
            name = unicodedata.name(char, "a white-space character")
            return (f": character {at} of the line is U+{ord(char):04X} ({name}), which "
                    "looks like a space but separates no columns: write a plain space "
                    "or a tab there")
    return ""


_SEPARATOR_NAMES = {",": "comma", ";": "semicolon", "|": "pipe"}


class _TooManyQueries(_TooManyErrors):
    """Raised by the exact pass at the line of the query id past MAX_QUERIES."""


def parse_exact(data: bytes, display: str, report: Report, whole_file: bool = True
                 ) -> tuple[ParsedRun | None, int]:
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
    score or rank is bad is kept, with a NaN score, so that its ids are still checked (not
    a header's). The report holds more than MAX_ERRORS errors exactly when the cap was reached.
    ``whole_file=False``: ``data`` is the beginning of a file whose reading stopped
    early (leaderboard.core.runs.reading), in which the cap is reached.
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
            if line.endswith(b"\r"):
                line = line[:-1]
            # Before the length: a file of bare carriage returns is one long "line".
            if b"\r" in line:
                dropped += 1
                error(lineno, "bare carriage return (old Mac line ends?); end lines with "
                              "\\n or \\r\\n")
                continue
            if len(line) > MAX_LINE_CHARS:
                dropped += 1
                error(lineno, f"line is {len(line)} bytes long (limit {MAX_LINE_CHARS}); "
                              "is this really a TREC run?")
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
            separator = (_other_separator(text, len(fields)) if len(fields) != 6
                         else None)
            # A first line without a number is a header: one error, its words no ids.
            words = fields if separator is None else text.split(separator)
            header = (_HEADER_HINT if lineno == 1
                      and not any(_DECIMAL.fullmatch(w.strip(" \t")) for w in words) else "")
            if len(fields) != 6:
                dropped += 1
                error(lineno, f"expected 6 columns (qid Q0 docid rank score tag), found "
                              f"{len(fields)}{_columns_hint(text, separator)}{header}")
                continue
            qid, q0, docid, rank_text, score_text, _tag = fields
            if header:
                dropped += 1
                error(lineno, f"score {score_text!r} is not a number and rank {rank_text!r} "
                              f"not an integer{header}")
                continue
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
                rank = float(rank_text) + 0.0  # "-0" is rank 0, as in the fast path
            else:
                error(lineno, f"rank {rank_text!r} is not a non-negative integer")
            if q0 != "Q0":
                n_odd_q0 += 1
                if first_odd_q0 is None:
                    first_odd_q0 = (lineno, q0)
            q_code = q_index.setdefault(qid, len(q_index))
            if q_code == MAX_QUERIES:
                raise _TooManyQueries(lineno)
            q_codes.append(q_code)
            d_codes.append(d_index.setdefault(docid, len(d_index)))
            scores.append(score)
            ranks.append(rank)
            lines.append(lineno)
    except _TooManyQueries as stop:
        report.add(display, stop.line, f"more than {MAX_QUERIES:,} distinct query ids: a run "
                                       "answers the queries of one task, and no task has "
                                       "that many; stopped reading here")
        return None, dropped
    except _TooManyErrors as stop:
        if whole_file:
            total_lines = data.count(b"\n") + (0 if data.endswith(b"\n") else 1)
            where = f"{stop.line} of {total_lines}"
        else:
            where = (f"{stop.line} (the file inflates to over "
                     f"{size_text(ENOUGH_AFTER_BYTES)}, and was not inflated further)")
        report.add(display, None, f"more than {MAX_ERRORS} errors: stopped reading at line "
                                  f"{where}, as NIST's checker does; fix these and check "
                                  "again")
        return None, dropped
    if not whole_file:  # the beginning alone proves nothing about the rest
        report.add(display, None, "file was not read to its end")
        return None, dropped
    if first_odd_q0 is not None:
        report.add(display, first_odd_q0[0], f"second column is {first_odd_q0[1]!r}, expected "
                                             f"'Q0' (ignored; {plural(n_odd_q0, 'line')})",
                   "warning", kind="q0")
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
