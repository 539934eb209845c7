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

:func:`evaluate_pytrec` computes the same measures through pytrec_eval, the reference the
tests hold this module to.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from leaderboard.runs import ParsedRun

METRIC_RE = re.compile(r"^(nDCG|AP|RR|R|P)(?:@(\d+))?$")


@dataclass
class RankedRun:
    """A run sorted the trec_eval way, with per-row rank and the query it belongs to."""

    qid: np.ndarray    # str, grouped by query
    docid: np.ndarray  # str
    rank: np.ndarray   # int64, 1-based within the query
    q_start: dict[str, int]
    q_len: dict[str, int]

    @classmethod
    def from_parsed(cls, run: ParsedRun) -> "RankedRun":
        from leaderboard.runs import order_run

        order = order_run(run)
        qid = run.qid[order]
        docid = run.docid[order]
        n = qid.shape[0]
        if n:
            boundary = np.flatnonzero(np.concatenate(([True], qid[1:] != qid[:-1])))
        else:
            boundary = np.empty(0, dtype=np.int64)
        lengths = np.diff(np.append(boundary, n))
        rank = np.arange(n, dtype=np.int64) - np.repeat(boundary, lengths) + 1
        starts = {str(qid[b]): int(b) for b in boundary}
        lens = {str(qid[b]): int(length) for b, length in zip(boundary, lengths)}
        return cls(qid=qid, docid=docid, rank=rank, q_start=starts, q_len=lens)

    def ranks_of(self, qids: np.ndarray, docids: np.ndarray) -> np.ndarray:
        """Rank of each (qid, docid), 0 where the document is not in that query's ranking."""
        if not len(qids):
            return np.zeros(0, dtype=np.int64)
        table = pd.Series(self.rank, index=pd.MultiIndex.from_arrays([self.qid, self.docid]))
        wanted = pd.MultiIndex.from_arrays([np.asarray(qids, dtype=str),
                                            np.asarray(docids, dtype=str)])
        pos = table.index.get_indexer(wanted)
        out = np.zeros(len(wanted), dtype=np.int64)
        hit = pos >= 0
        out[hit] = self.rank[pos[hit]]
        return out

    def length_of(self, qids: np.ndarray) -> np.ndarray:
        return np.asarray([self.q_len.get(str(q), 0) for q in qids], dtype=np.int64)


def parse_metric(name: str) -> tuple[str, int | None]:
    match = METRIC_RE.match(name)
    if not match:
        raise ValueError(f"unsupported metric {name!r}; use nDCG@k, AP, AP@k, RR, RR@k, R@k, P@k")
    return match.group(1), (int(match.group(2)) if match.group(2) else None)


def evaluate(ranked: RankedRun, qrels: dict[str, dict[str, int]], query_ids: list[str],
             metrics: tuple[str, ...] | list[str]) -> dict[str, dict[str, float]]:
    """Per-query scores: metric -> qid -> value, for every qid in ``query_ids``."""
    qids = list(query_ids)
    q_index = {q: i for i, q in enumerate(qids)}
    nq = len(qids)
    # Judgments as columns.
    j_q, j_d, j_r = [], [], []
    for q in qids:
        for d, r in qrels.get(q, {}).items():
            j_q.append(q)
            j_d.append(d)
            j_r.append(r)
    judged = pd.Series(np.asarray(j_r, dtype=np.float64),
                       index=pd.MultiIndex.from_arrays([np.asarray(j_q, dtype=str),
                                                        np.asarray(j_d, dtype=str)]))
    judged = judged[~judged.index.duplicated(keep="last")]
    gain_of_judged = np.clip(judged.to_numpy(), 0, None)
    rel_q = np.asarray([q_index[q] for q in judged.index.get_level_values(0)], dtype=np.int64)
    n_relevant = np.bincount(rel_q, weights=(gain_of_judged >= 1).astype(float), minlength=nq)

    # Keep only run rows of the scored queries.
    row_q = pd.Index(qids).get_indexer(ranked.qid)
    keep = row_q >= 0
    row_q = row_q[keep]
    rank = ranked.rank[keep]
    pos = judged.index.get_indexer(pd.MultiIndex.from_arrays([ranked.qid[keep], ranked.docid[keep]]))
    gain = np.where(pos >= 0, gain_of_judged[np.maximum(pos, 0)] if gain_of_judged.size else 0.0, 0.0)
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
        else:  # "P"
            found = np.bincount(row_q, weights=(relevant & within).astype(float), minlength=nq)
            values = found / float(k if k is not None else 1)
        out[name] = {q: float(values[i]) for i, q in enumerate(qids)}
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


_PYTREC_NAMES = {"nDCG": "ndcg_cut", "AP": "map_cut", "R": "recall", "P": "P"}


def evaluate_pytrec(run: ParsedRun, qrels: dict[str, dict[str, int]], query_ids: list[str],
                    metrics: tuple[str, ...] | list[str]) -> dict[str, dict[str, float]]:
    """The same per-query scores through pytrec_eval (trec_eval's C code).

    Slower (it needs Python dicts of the whole run) but independent; RR@k is computed by
    truncating the run to k, because trec_eval's recip_rank has no cutoff.
    """
    import pytrec_eval

    run_dict: dict[str, dict[str, float]] = {}
    for q, d, s in zip(run.qid.tolist(), run.docid.tolist(), run.score.tolist()):
        run_dict.setdefault(q, {})[d] = s
    judged = {q: {d: int(r) for d, r in qrels.get(q, {}).items()} for q in query_ids}
    out: dict[str, dict[str, float]] = {}
    for name in metrics:
        kind, k = parse_metric(name)
        if kind == "RR" or (kind == "AP" and k is None):
            measure = "recip_rank" if kind == "RR" else "map"
            source = run_dict
            if k is not None:
                ranked = RankedRun.from_parsed(run)
                keep = ranked.rank <= k
                source = {}
                for q, d in zip(ranked.qid[keep].tolist(), ranked.docid[keep].tolist()):
                    source.setdefault(q, {})[d] = run_dict[q][d]
            evaluator = pytrec_eval.RelevanceEvaluator(judged, {measure})
            scores = evaluator.evaluate(source)
            key = measure
        else:
            measure = f"{_PYTREC_NAMES[kind]}.{k}"
            evaluator = pytrec_eval.RelevanceEvaluator(judged, {measure})
            scores = evaluator.evaluate(run_dict)
            key = f"{_PYTREC_NAMES[kind]}_{k}"
        out[name] = {q: float(scores.get(q, {}).get(key, 0.0)) for q in query_ids}
    return out
