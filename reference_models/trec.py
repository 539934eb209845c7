"""Deterministic TREC run files: top-k selection, trec_eval tie order, reproducible gzip.

Scores are written with a fixed format (``%.6f``) and documents are ordered the way
trec_eval reads them -- score descending, ties by document id descending -- using the
*written* (rounded) score, so the rank column agrees with what any evaluator recomputes.
The gzip stream carries no file name and mtime 0, so the same run gives the same bytes.
"""

from __future__ import annotations

import gzip
import io
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

import numpy as np

from leaderboard.core.fileio import atomic_write_bytes

SCORE_DECIMALS = 6
SCORE_FORMAT = "%.6f"


@dataclass(frozen=True)
class RankedList:
    """One query's ranking: document ids and their (rounded) scores, best first."""

    query_id: str
    doc_ids: np.ndarray   # str
    scores: np.ndarray    # float64, already rounded to SCORE_DECIMALS


def rank_documents(query_id: str, doc_ids: np.ndarray, scores: np.ndarray, k: int) -> RankedList:
    """The top ``k`` of ``doc_ids`` by score, ties broken by document id descending.

    ``doc_ids`` and ``scores`` are aligned 1-d arrays (any order). Scores are rounded to
    the written precision first so that two documents that print the same score are
    ordered by id, exactly as trec_eval will order them.
    """
    if doc_ids.shape[0] != scores.shape[0]:
        raise ValueError(f"query {query_id}: {doc_ids.shape[0]} documents but "
                         f"{scores.shape[0]} scores")
    if not np.all(np.isfinite(scores)):
        raise ValueError(f"query {query_id}: non-finite scores")
    rounded = np.round(scores.astype(np.float64), SCORE_DECIMALS)
    n = rounded.shape[0]
    if n > k:
        # Keep every document tied with the k-th best score, then order exactly.
        kth = -np.partition(-rounded, k - 1)[k - 1]
        keep = np.flatnonzero(rounded >= kth)
    else:
        keep = np.arange(n)
    ids = np.asarray(doc_ids)[keep].astype(str)
    # lexsort: last key is primary. Primary: score descending; secondary: id descending.
    order = np.lexsort((_descending_str_keys(ids), -rounded[keep]))[:k]
    return RankedList(query_id, ids[order], rounded[keep][order])


def _descending_str_keys(ids: np.ndarray) -> np.ndarray:
    # Rank of each id in ascending string order, negated: sorting ascending on it is
    # sorting ids descending (trec_eval compares ids with strcmp, i.e. byte order).
    as_bytes = np.char.encode(ids.astype(str), "utf-8")
    order = np.argsort(as_bytes, kind="stable")
    ranks = np.empty(len(ids), dtype=np.int64)
    ranks[order] = np.arange(len(ids))
    # Equal ids get distinct ranks here, which never happens in a valid ranking.
    return -ranks


def format_run(ranked: Iterable[RankedList], tag: str) -> str:
    """TREC run text: ``qid Q0 docid rank score tag``, one line per document."""
    if not tag or any(c.isspace() for c in tag):
        raise ValueError(f"run tag {tag!r} must be non-empty and contain no whitespace")
    out = io.StringIO()
    for entry in ranked:
        for rank, (doc_id, score) in enumerate(zip(entry.doc_ids, entry.scores), 1):
            out.write(f"{entry.query_id} Q0 {doc_id} {rank} {SCORE_FORMAT % score} {tag}\n")
    return out.getvalue()


def write_gzip_atomic(path: Path, text: str) -> None:
    """Write ``text`` gzipped with a fixed header (no name, mtime 0), replacing atomically."""
    buffer = io.BytesIO()
    # filename="" keeps any name out of the header; mtime=0 fixes the date.
    with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, mtime=0, compresslevel=9) as gz:
        gz.write(text.encode("utf-8"))
    atomic_write_bytes(path, buffer.getvalue())


def write_run(path: Path, ranked: Iterable[RankedList], tag: str) -> int:
    """Write a gzipped run; returns the number of lines written."""
    text = format_run(ranked, tag)
    write_gzip_atomic(path, text)
    return text.count("\n")
