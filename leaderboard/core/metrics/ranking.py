"""Ranking metrics with trec_eval semantics, computed on whole columns at once.

A run is ranked once (query, score descending, docid descending; the rank column is
ignored) and every metric is a weighted ``bincount`` over that order, so cost grows with
the run's length, not with Python-level loops over documents. Names follow ir_measures:
``nDCG@k`` (trec_eval ``ndcg_cut.k``: linear gains, log2 discount), ``AP@k``
(``map_cut.k``), ``AP`` (``map``), ``RR@k`` (reciprocal rank of the first relevant
document within k; ``RR`` without a cutoff), ``R@k`` (``recall.k``), ``P@k``.

Averages run over every judged query of the role: a query missing from the run scores 0
(trec_eval ``-c``). A document is relevant when its judgment is >= 1 (trec_eval's default
relevance level); negative judgments count as 0 gain.

The tests hold this module to pytrec_eval (trec_eval's C code) on real data.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from leaderboard.core.measures import parse, UnknownMeasureError
from leaderboard.core.runs.columns import ParsedRun, lookup
from leaderboard.core.runs.ordering import grouped_order

# Largest (queries x distinct docs) key space looked up through a bitmap (one bit per
# key, so at most 32 MiB, freed right after the lookup).
BITMAP_MAX_KEYS = 256 * 2**20


@dataclass(eq=False)
class RankedRun:
    """A run sorted the trec_eval way, with per-row rank and the query it belongs to.

    Each query's rows are contiguous and in rank order (the queries' blocks in no
    particular order). Ids are codes into the run's sorted distinct ``q_names`` / ``d_names``;
    the ``qid`` / ``docid`` string columns and the ``rank`` of every row are built on first
    use.
    """

    q_codes: np.ndarray    # int32, each query's rows contiguous
    d_codes: np.ndarray    # int32
    q_names: np.ndarray
    d_names: np.ndarray
    seg_start: np.ndarray  # first row of each query code
    seg_len: np.ndarray    # number of rows of each query code

    @classmethod
    def from_parsed(cls, run: ParsedRun) -> "RankedRun":
        order, identity = grouped_order(run)
        q_codes = run.q_codes if identity else run.q_codes[order]
        d_codes = run.d_codes if identity else run.d_codes[order]
        n = q_codes.shape[0]
        starts = np.concatenate(([0], np.flatnonzero(q_codes[1:] != q_codes[:-1]) + 1)) \
            if n else np.zeros(0, dtype=np.int64)
        lengths = np.diff(np.append(starts, n))
        seg_start = np.zeros(run.q_names.shape[0], dtype=np.int64)
        seg_len = np.zeros(run.q_names.shape[0], dtype=np.int64)
        seg_start[q_codes[starts]] = starts
        seg_len[q_codes[starts]] = lengths
        return cls(q_codes=q_codes, d_codes=d_codes, q_names=run.q_names,
                   d_names=run.d_names, seg_start=seg_start, seg_len=seg_len)

    @cached_property
    def rank(self) -> np.ndarray:
        """1-based rank of every row within its query (int64). Built on first use: p-MRR
        and IRS need the ranks of a few rows only (:meth:`rank_of_rows`)."""
        return self.rank_of_rows(np.arange(self.q_codes.shape[0], dtype=np.int64))

    def rank_of_rows(self, rows: np.ndarray) -> np.ndarray:
        return rows - self.seg_start[self.q_codes[rows]] + 1

    @cached_property
    def qid(self) -> np.ndarray:
        return self.q_names[self.q_codes]

    @cached_property
    def docid(self) -> np.ndarray:
        return self.d_names[self.d_codes]

    @cached_property
    def _row_keys(self) -> np.ndarray:
        """(query code, doc code) of each row as one integer."""
        return self.q_codes.astype(np.int64) * max(self.d_names.shape[0], 1) + self.d_codes

    @cached_property
    def _key_index(self) -> tuple[np.ndarray, np.ndarray]:
        """(sorted row keys, their rows), for runs whose key space is too big for a bitmap."""
        rows = np.argsort(self._row_keys)
        return self._row_keys[rows], rows

    def query_codes(self, qids: "np.ndarray | list[str]") -> np.ndarray:
        """Code of each query id in this run, -1 where the run has no such query."""
        return lookup(self.q_names, qids if isinstance(qids, np.ndarray) else list(qids))

    def rows_of_codes(self, q_codes: np.ndarray, d_codes: np.ndarray) -> np.ndarray:
        """Row of each (query code, doc code), -1 where absent (a code of -1 is absent).

        A handful of wanted pairs among millions of rows: mark the wanted keys in a bitmap
        over the key space, pick the rows whose key is marked (one pass, no sort of the
        run), and match those few rows to the wanted pairs by binary search. Runs whose
        key space is too large for a bitmap use a sorted index of all row keys instead.
        """
        out = np.full(q_codes.shape[0], -1, dtype=np.int64)
        valid = (q_codes >= 0) & (d_codes >= 0)
        if not valid.any() or not self.q_codes.shape[0]:
            return out
        wanted = q_codes[valid].astype(np.int64) * max(self.d_names.shape[0], 1) + d_codes[valid]
        key_space = self.q_names.shape[0] * max(self.d_names.shape[0], 1)
        if key_space <= BITMAP_MAX_KEYS:
            # Rows of a wanted document first: one gather from a table with a byte per
            # document (small enough to stay in cache) drops most rows before any key
            # arithmetic. Then one bit per (query, document) key: an 8x smaller table
            # than bytes, so the pass over the remaining rows misses the cache far less.
            wanted_doc = np.zeros(self.d_names.shape[0], dtype=bool)
            wanted_doc[d_codes[valid]] = True
            candidates = np.flatnonzero(wanted_doc[self.d_codes])
            marked = np.zeros(key_space // 8 + 1, dtype=np.uint8)
            np.bitwise_or.at(marked, wanted >> 3, np.left_shift(1, wanted & 7).astype(np.uint8))
            cand_keys = (self.q_codes[candidates].astype(np.int64)
                         * max(self.d_names.shape[0], 1) + self.d_codes[candidates])
            hit = ((marked[cand_keys >> 3] >> (cand_keys & 7).astype(np.uint8)) & 1).astype(bool)
            rows, keys = candidates[hit], cand_keys[hit]
            by_key = np.argsort(keys)
            sorted_keys, rows = keys[by_key], rows[by_key]
        else:
            sorted_keys, rows = self._key_index
        if not sorted_keys.shape[0]:
            return out
        pos = np.minimum(np.searchsorted(sorted_keys, wanted), sorted_keys.shape[0] - 1)
        hit = sorted_keys[pos] == wanted
        out[np.flatnonzero(valid)[hit]] = rows[pos[hit]]
        return out

    def ranks_at(self, q_codes: np.ndarray, docids: np.ndarray) -> np.ndarray:
        """Rank of each (query code, doc id), 0 where the document is not ranked there."""
        return self.ranks_of_codes(q_codes, lookup(self.d_names, docids))

    def ranks_of_codes(self, q_codes: np.ndarray, d_codes: np.ndarray) -> np.ndarray:
        """Rank of each (query code, doc code), 0 where the document is not ranked there
        (or a code is -1)."""
        rows = self.rows_of_codes(q_codes, d_codes)
        out = np.zeros(rows.shape[0], dtype=np.int64)
        found = rows >= 0
        out[found] = self.rank_of_rows(rows[found])
        return out

    def lengths_of_codes(self, q_codes: np.ndarray) -> np.ndarray:
        """Number of ranked documents of each query code (0 for -1, a query not in the run)."""
        if not self.seg_len.shape[0]:
            return np.zeros(q_codes.shape[0], dtype=np.int64)
        return np.where(q_codes >= 0, self.seg_len[np.maximum(q_codes, 0)], 0).astype(np.int64)

    def ranks_of(self, qids: np.ndarray, docids: np.ndarray) -> np.ndarray:
        """Rank of each (qid, docid), 0 where the document is not in that query's ranking."""
        if not len(qids):
            return np.zeros(0, dtype=np.int64)
        return self.ranks_at(self.query_codes(qids), np.asarray(docids))

    def length_of(self, qids: "np.ndarray | list[str]") -> np.ndarray:
        return self.lengths_of_codes(self.query_codes(qids))


def parse_metric(name: str) -> tuple[str, int | None]:
    """(measure, cutoff) of a ranking measure's key (the catalogue, leaderboard.core.measures,
    says which measures this module computes)."""
    try:
        key = parse(name)
    except UnknownMeasureError:
        key = None
    if key is None or key.qualifier is not None or key.measure.kernel != "ranking":
        raise ValueError(f"unsupported metric {name!r}; use nDCG@k, AP, AP@k, RR, RR@k, R@k, P@k")
    return key.measure.name, key.cutoff


@dataclass(frozen=True, eq=False)
class JudgedRows:
    """A role's judgments as columns, each judged document's query (an index into
    ``query_ids``, the queries without repeats), id and grade, and the run's row of each
    (-1: not ranked there): the one lookup of the judged documents in a run, which the
    metrics count (:func:`evaluate`) and the query explorer reads."""

    query_ids: list[str]
    query_idx: np.ndarray  # int64
    docs: list[str]
    grades: list[int]
    rows: np.ndarray       # int64

    @classmethod
    def of(cls, ranked: RankedRun, qrels: dict[str, dict[str, int]], query_ids: list[str]
           ) -> JudgedRows:
        qids = list(dict.fromkeys(query_ids))
        j_qi: list[int] = []
        j_d: list[str] = []
        j_r: list[int] = []
        for i, q in enumerate(qids):
            judged_docs = qrels.get(q)
            if judged_docs:
                j_qi.extend([i] * len(judged_docs))
                j_d.extend(judged_docs)
                j_r.extend(judged_docs.values())
        rel_q = np.asarray(j_qi, dtype=np.int64)
        rows = (ranked.rows_of_codes(ranked.query_codes(qids)[rel_q], lookup(ranked.d_names, j_d))
                if rel_q.size else np.zeros(0, dtype=np.int64))
        return cls(qids, rel_q, j_d, j_r, rows)


def evaluate(ranked: RankedRun, qrels: dict[str, dict[str, int]], query_ids: list[str],
             metrics: tuple[str, ...] | list[str], judged: JudgedRows | None = None
             ) -> dict[str, dict[str, float]]:
    """Per-query scores: metric -> qid -> value, for every qid in ``query_ids``;
    ``judged``, when given, is ``JudgedRows.of(ranked, qrels, query_ids)``."""
    if judged is None:
        judged = JudgedRows.of(ranked, qrels, query_ids)
    qids = judged.query_ids
    nq = len(qids)
    rel_q = judged.query_idx
    gain_of_judged = np.clip(np.asarray(judged.grades, dtype=np.float64), 0, None)
    n_relevant = np.bincount(rel_q, weights=(gain_of_judged >= 1).astype(float), minlength=nq)

    # The run's rows of judged documents with a positive gain, by query and rank: the only
    # rows any metric here counts (a row of gain 0 adds nothing to a DCG, a precision or
    # a recall). A few thousand rows of a run of 400k: the arrays below stay that small.
    rows = judged.rows
    ranked_gain = (rows >= 0) & (gain_of_judged > 0)
    row_q, gain = rel_q[ranked_gain], gain_of_judged[ranked_gain]
    rank = ranked.rank_of_rows(rows[ranked_gain])
    by_rank = np.lexsort((rank, row_q))
    row_q, rank, gain = row_q[by_rank], rank[by_rank], gain[by_rank]
    relevant = gain >= 1

    out: dict[str, dict[str, float]] = {}
    for name in metrics:
        kind, k = parse_metric(name)
        within = rank <= k if k is not None else np.ones_like(rank, dtype=bool)
        if kind == "nDCG":
            dcg = np.bincount(row_q, weights=np.where(within, gain / np.log2(rank + 1.0), 0.0),
                              minlength=nq)
            ideal = _ideal_dcg(rel_q, gain_of_judged, nq, k)
            values = np.divide(dcg, ideal, out=np.zeros(nq), where=ideal > 0)
        elif kind == "AP":
            cum = _cumsum_within_groups(relevant.astype(np.int64), row_q)
            precision_at_hit = np.where(relevant & within, cum / rank, 0.0)
            total = np.bincount(row_q, weights=precision_at_hit, minlength=nq)
            values = np.divide(total, n_relevant, out=np.zeros(nq), where=n_relevant > 0)
        elif kind == "RR":
            hit = relevant & within
            first = np.full(nq, np.inf)
            np.minimum.at(first, row_q[hit], rank[hit].astype(float))
            values = np.where(np.isfinite(first), 1.0 / first, 0.0)
        elif kind == "R":
            found = np.bincount(row_q, weights=(relevant & within).astype(float), minlength=nq)
            values = np.divide(found, n_relevant, out=np.zeros(nq), where=n_relevant > 0)
        elif kind == "P":
            found = np.bincount(row_q, weights=(relevant & within).astype(float), minlength=nq)
            values = found / float(k if k is not None else 1)
        else:  # declared a ranking measure in the catalogue, but not computed here yet
            raise ValueError(f"no ranking kernel computes {name!r}")
        out[name] = dict(zip(qids, values.tolist()))
    return out


def _cumsum_within_groups(values: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """Running sum restarting at each group; rows of a group are contiguous."""
    if not values.size:
        return values.astype(np.int64)
    total = np.cumsum(values)
    starts = np.flatnonzero(np.concatenate(([True], groups[1:] != groups[:-1])))
    offsets = np.repeat(total[starts] - values[starts], np.diff(np.append(starts, values.size)))
    return total - offsets


def _ideal_dcg(rel_q: np.ndarray, gains: np.ndarray, nq: int, k: int | None) -> np.ndarray:
    """DCG of each query's judged gains sorted descending, cut at k."""
    if not gains.size:
        return np.zeros(nq)
    order = np.lexsort((-gains, rel_q))
    q_sorted = rel_q[order]
    g_sorted = gains[order]
    starts = np.flatnonzero(np.concatenate(([True], q_sorted[1:] != q_sorted[:-1])))
    pos = np.arange(q_sorted.size) - np.repeat(starts, np.diff(np.append(starts, q_sorted.size))) + 1
    use = (pos <= k) if k is not None else np.ones_like(pos, dtype=bool)
    return np.bincount(q_sorted, weights=np.where(use, g_sorted / np.log2(pos + 1.0), 0.0),
                       minlength=nq)
