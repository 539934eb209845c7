"""TREC run files: reading, vectorised parsing and validation against a task.

A run line is ``qid Q0 docid rank score tag`` separated by spaces or tabs. Following
trec_eval, the rank column is ignored for scoring: documents are ordered by score
descending, ties broken by docid descending. Validation follows NIST's TREC checker and
TIRA: hard errors reject a file, warnings do not, every finding names ``FILE:LINE``, and
nothing is ever modified.

The fast path parses with pandas' C reader and checks whole columns at once; only files
that fail structurally take a line-by-line pass, and only to name the offending lines.
"""

from __future__ import annotations

import gzip
import io
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from leaderboard.data.base import TaskData
from leaderboard.report import Report

MAX_FILE_BYTES = 512 * 1024 * 1024  # uncompressed; ~4x the largest legitimate run
MAX_COMPRESSED_BYTES = 128 * 1024 * 1024
MAX_LINE_CHARS = 4096  # a run line is six short fields; longer means a wrong file
GZIP_MAGIC = b"\x1f\x8b"
RUN_COLUMNS = ("qid", "q0", "docid", "rank", "score", "tag")


@dataclass
class ParsedRun:
    """A run as columns, in file order. ``line`` is each row's 1-based line number."""

    qid: np.ndarray     # str
    docid: np.ndarray   # str
    score: np.ndarray   # float64
    line: np.ndarray    # int64
    rank: np.ndarray    # float64 (the submitted rank column, used only for warnings)

    def __len__(self) -> int:
        return int(self.qid.shape[0])

    @classmethod
    def from_rows(cls, rows: list[tuple[str, str, float]]) -> "ParsedRun":
        """Build a run from (qid, docid, score) rows, e.g. for reference models or tests."""
        n = len(rows)
        qid = np.asarray([r[0] for r in rows], dtype=object).astype(str) if n else np.empty(0, str)
        doc = np.asarray([r[1] for r in rows], dtype=object).astype(str) if n else np.empty(0, str)
        score = np.asarray([r[2] for r in rows], dtype=np.float64)
        return cls(qid, doc, score, np.arange(1, n + 1), np.zeros(n))


def read_run_bytes(path: Path, display: str, report: Report) -> bytes | None:
    """The decompressed bytes of a run file, or None after reporting why not."""
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        report.add(display, None, "file not found")
        return None
    except OSError as exc:
        report.add(display, None, f"cannot read file: {exc.strerror}")
        return None
    if not path.is_file():
        report.add(display, None, "not a regular file")
        return None
    if size == 0:
        report.add(display, None, "file is empty")
        return None
    with path.open("rb") as fh:
        head = fh.read(2)
    limit = MAX_COMPRESSED_BYTES if head == GZIP_MAGIC else MAX_FILE_BYTES
    if size > limit:
        report.add(display, None, f"file is {size / 2**20:.0f} MiB, over the "
                                  f"{limit / 2**20:.0f} MiB limit")
        return None
    raw = path.read_bytes()
    if raw[:2] == GZIP_MAGIC:
        try:
            # Bounded read: a small gzip bomb must not exhaust memory.
            with gzip.GzipFile(fileobj=io.BytesIO(raw)) as gz:
                data = gz.read(MAX_FILE_BYTES + 1)
        except EOFError:
            report.add(display, None, "gzip stream is truncated (file cut short?)")
            return None
        except (OSError, zlib.error) as exc:
            report.add(display, None, f"not a valid gzip file: {exc}")
            return None
        if len(data) > MAX_FILE_BYTES:
            report.add(display, None, f"decompresses to over {MAX_FILE_BYTES / 2**20:.0f} MiB")
            return None
        if not data:
            report.add(display, None, "file is empty (after decompression)")
            return None
        raw = data
    return raw


def _line_of_offset(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


def check_text(data: bytes, display: str, report: Report) -> bool:
    """Binary content, encoding and line length; True when the bytes can be parsed."""
    nul = data.find(b"\x00")
    if nul >= 0:
        report.add(display, _line_of_offset(data, nul),
                   "binary content (NUL byte): this is not a text run file")
        return False
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        report.add(display, _line_of_offset(data, exc.start),
                   f"not valid UTF-8 (byte 0x{data[exc.start]:02x})")
        return False
    buf = np.frombuffer(data, dtype=np.uint8)
    newlines = np.flatnonzero(buf == 0x0A)
    ends = np.append(newlines, buf.shape[0])
    starts = np.concatenate(([0], newlines + 1))
    lengths = ends - starts
    too_long = np.flatnonzero(lengths > MAX_LINE_CHARS)
    if too_long.size:
        for idx in too_long[:5]:
            report.add(display, int(idx) + 1,
                       f"line is {int(lengths[idx])} bytes long (limit {MAX_LINE_CHARS}); "
                       "is this really a TREC run?")
        if too_long.size > 5:
            report.add(display, None, f"{too_long.size - 5} more over-long lines")
        return False
    return True


def _content_line_numbers(data: bytes) -> np.ndarray:
    """1-based numbers of the lines that hold anything but whitespace.

    pandas skips blank lines, so row i of the parsed frame is content line i; this maps
    rows back to the file's own line numbers for messages.
    """
    buf = np.frombuffer(data, dtype=np.uint8)
    newlines = np.flatnonzero(buf == 0x0A)
    ends = np.append(newlines, buf.shape[0])
    starts = np.concatenate(([0], newlines + 1))
    non_space = ~np.isin(buf, np.frombuffer(b" \t\r\n\x0b\x0c", dtype=np.uint8))
    csum = np.concatenate(([0], np.cumsum(non_space, dtype=np.int64)))
    has_content = (csum[ends] - csum[starts]) > 0
    numbers = np.flatnonzero(has_content) + 1
    if buf.shape[0] and buf[-1] == 0x0A:  # the empty "line" after a final newline
        numbers = numbers[numbers <= newlines.shape[0]]
    return numbers.astype(np.int64)


def _slow_structure_errors(text: str, display: str, report: Report) -> None:
    """Line-by-line column count check, used only when the fast parser refuses a file."""
    for lineno, line in enumerate(text.splitlines(), 1):
        fields = line.split()
        if fields and len(fields) != 6:
            report.add(display, lineno, f"expected 6 columns (qid Q0 docid rank score tag), "
                                        f"found {len(fields)}")


def parse_run(data: bytes, display: str, report: Report) -> ParsedRun | None:
    """Parse run bytes; hard errors go to ``report`` and make the result None."""
    text_ok = check_text(data, display, report)
    if not text_ok:
        return None
    if b"\r\n" in data:
        report.add(display, None, "CRLF line endings (accepted)", "warning")
    if b"\t" in data:
        report.add(display, None, "tab-separated columns (accepted)", "warning")
    lines = _content_line_numbers(data)
    if lines.size == 0:
        report.add(display, None, "file has no run lines")
        return None
    try:
        frame = pd.read_csv(
            io.BytesIO(data), sep=r"\s+", header=None, names=range(7), dtype=str,
            engine="c", quoting=3, na_filter=False, keep_default_na=False,
            skip_blank_lines=True, comment=None, encoding="utf-8",
        )
    except pd.errors.ParserError:
        _slow_structure_errors(data.decode("utf-8"), display, report)
        if report.ok:  # the parser saw something our line check did not: still name it
            report.add(display, None, "could not parse the file as whitespace-separated columns")
        return None
    if len(frame) != lines.size:
        # Should not happen; fall back to the exact line-by-line check to stay truthful.
        _slow_structure_errors(data.decode("utf-8"), display, report)
        return None
    n_fields = (frame != "").sum(axis=1).to_numpy()
    bad = np.flatnonzero(n_fields != 6)
    for idx in bad:
        report.add(display, int(lines[idx]), f"expected 6 columns (qid Q0 docid rank score "
                                             f"tag), found {int(n_fields[idx])}")
    if bad.size:
        return None
    qid = frame[0].to_numpy(dtype=str)
    docid = frame[2].to_numpy(dtype=str)
    score = pd.to_numeric(frame[4], errors="coerce").to_numpy(dtype=np.float64)
    rank = pd.to_numeric(frame[3], errors="coerce").to_numpy(dtype=np.float64)
    for idx in np.flatnonzero(np.isnan(score)):
        value = frame.iat[int(idx), 4]
        if value.lower().lstrip("+-") in ("nan", "inf", "infinity"):
            report.add(display, int(lines[idx]), f"score {value!r} is not a finite number")
        else:
            report.add(display, int(lines[idx]), f"score {value!r} is not a number")
    for idx in np.flatnonzero(np.isinf(score)):
        report.add(display, int(lines[idx]), f"score {frame.iat[int(idx), 4]!r} is not a "
                                             "finite number")
    bad_rank = np.isnan(rank) | (rank != np.round(rank)) | (rank < 0)
    # "1e3" parses as a number but is not how anyone writes an integer rank.
    rank_text = frame[3]
    bad_rank |= ~rank_text.str.fullmatch(r"[+]?\d+").to_numpy()
    for idx in np.flatnonzero(bad_rank):
        report.add(display, int(lines[idx]), f"rank {frame.iat[int(idx), 3]!r} is not a "
                                             "non-negative integer")
    q0 = frame[1].to_numpy(dtype=str)
    odd_q0 = np.flatnonzero(q0 != "Q0")
    if odd_q0.size:
        report.add(display, int(lines[odd_q0[0]]),
                   f"second column is {str(q0[odd_q0[0]])!r}, expected 'Q0' (ignored; "
                   f"{odd_q0.size} line(s))", "warning")
    if not report.ok:
        return None
    return ParsedRun(qid=qid, docid=docid, score=score, line=lines, rank=rank)


def order_run(run: ParsedRun) -> np.ndarray:
    """Row order that ranks each query's documents as trec_eval does.

    Sorted by query, then score descending, then docid descending. The rank column is
    ignored, so shuffling lines or scrambling ranks cannot change any score.
    """
    q_codes, _ = pd.factorize(run.qid, sort=True)
    d_codes, _ = pd.factorize(run.docid, sort=True)
    return np.lexsort((-d_codes, -run.score, q_codes))


def validate_run(data_task: TaskData, role: str, run: ParsedRun, display: str,
                 report: Report, max_docs: int = 1000) -> None:
    """Check a parsed run against the task: queries, documents, duplicates, limits."""
    role_data = data_task.roles[role]
    expected = pd.Index(role_data.query_ids)
    qids = pd.Index(run.qid)
    unknown = ~qids.isin(expected)
    if unknown.any():
        unknown_rows = np.flatnonzero(unknown)
        seen: set[str] = set()
        for idx in unknown_rows:
            q = str(run.qid[idx])
            if q not in seen:
                seen.add(q)
                report.add(display, int(run.line[idx]),
                           f"unknown query {q!r} (not a {role} query of {data_task.task_id})")
    present = pd.Index(pd.unique(run.qid))
    missing = expected[~expected.isin(present)]
    if len(missing):
        shown = ", ".join(repr(q) for q in missing[:10])
        more = f" and {len(missing) - 10} more" if len(missing) > 10 else ""
        report.add(display, None, f"missing {len(missing)} of {len(expected)} {role} "
                                  f"queries: {shown}{more}")
    keys = pd.DataFrame({"q": run.qid, "d": run.docid})
    dup = keys.duplicated(keep="first").to_numpy()
    if dup.any():
        first_line = keys.assign(line=run.line).groupby(["q", "d"], sort=False)["line"].transform("min").to_numpy()
        for idx in np.flatnonzero(dup):
            report.add(display, int(run.line[idx]),
                       f"document {str(run.docid[idx])!r} appears again for query {str(run.qid[idx])!r} "
                       f"(first on line {int(first_line[idx])})")
    counts = keys.groupby("q", sort=True).size()
    over = counts[counts > max_docs]
    for q, n in over.items():
        last_line = int(run.line[np.flatnonzero(run.qid == q)[-1]])
        report.add(display, last_line, f"query {str(q)!r} has {n} documents; at most {max_docs} "
                                       "are allowed")
    if data_task.pools is not None:
        _check_pool(data_task, run, display, report)
    elif data_task.doc_ids.size:
        outside = ~pd.Index(run.docid).isin(data_task.doc_ids)
        for idx in np.flatnonzero(outside):
            report.add(display, int(run.line[idx]),
                       f"document {str(run.docid[idx])!r} is not in the corpus of {data_task.task_id}")
    _warn_rank_consistency(run, display, report)


def _check_pool(data_task: TaskData, run: ParsedRun, display: str, report: Report) -> None:
    """Reranking tasks: each query may only rank its own fixed candidate pool."""
    assert data_task.pools is not None
    pool_q = np.concatenate([np.full(len(v), k, dtype=object) for k, v in data_task.pools.items()])
    pool_d = np.concatenate(list(data_task.pools.values()))
    pool_keys = pd.MultiIndex.from_arrays([pool_q.astype(str), pool_d.astype(str)])
    run_keys = pd.MultiIndex.from_arrays([run.qid, run.docid])
    outside = ~run_keys.isin(pool_keys)
    for idx in np.flatnonzero(outside):
        report.add(display, int(run.line[idx]),
                   f"document {str(run.docid[idx])!r} is not in the candidate pool of query "
                   f"{str(run.qid[idx])!r} (this task reranks a fixed pool)")


def _warn_rank_consistency(run: ParsedRun, display: str, report: Report) -> None:
    """Warnings only: trec_eval ignores ranks, but a mismatch often reveals a bug."""
    order = order_run(run)
    q_sorted = run.qid[order]
    score_sorted = run.score[order]
    same_q = q_sorted[1:] == q_sorted[:-1]
    ties = same_q & (score_sorted[1:] == score_sorted[:-1])
    if ties.any():
        first = order[1:][ties][0]
        report.add(display, int(run.line[first]),
                   f"{int(ties.sum())} tied score(s) within a query; ties are broken by docid "
                   "descending, as trec_eval does", "warning")
    rank_sorted = run.rank[order]
    inverted = same_q & (rank_sorted[1:] < rank_sorted[:-1]) & ~ties
    if inverted.any():
        first = order[1:][inverted][0]
        report.add(display, int(run.line[first]),
                   f"rank column disagrees with scores on {int(inverted.sum())} line(s); "
                   "ranks are ignored, documents are ordered by score", "warning")


def load_and_validate(path: Path, data_task: TaskData, role: str, display: str | None = None,
                      max_docs: int = 1000) -> tuple[Report, ParsedRun | None]:
    """Everything the validator knows about one run file; the run when it is valid."""
    report = Report()
    shown = display or str(path)
    raw = read_run_bytes(path, shown, report)
    if raw is None:
        return report, None
    run = parse_run(raw, shown, report)
    if run is None:
        return report, None
    validate_run(data_task, role, run, shown, report, max_docs=max_docs)
    return report, (run if report.ok else None)
