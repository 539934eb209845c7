"""Pairwise instruction-following metrics: p-MRR (FollowIR) and IRS (FollowTable).

Both compare where documents sit in the original ranking and in the ranking under the
altered instruction. Ranks of all (pair, document) combinations are looked up at once
(:class:`JudgedDocs`, then a bitmap of the wanted (query, document) keys over the run's
rows), so there is no per-document Python loop.

p-MRR (FollowIR eq. 1, as MTEB computes it): for each document whose relevance the
altered instruction changed, with R_og its rank in the original run and R_new in the
altered run (a document absent from a run ranks right after that run's last document,
i.e. len(run) + 1)::

    p = R_new / R_og - 1   if R_og >= R_new   (moved up, or stayed: <= 0)
    p = 1 - R_og / R_new   otherwise          (moved down: > 0)

averaged within a query, then over queries. Ranks follow trec_eval's order (score
descending, docid descending), as mteb does from 2.26.24 on (before that it broke ties in
dict insertion order), so scores do not depend on line order. A pair whose query is
missing from either run scores 0, as a missing query does in trec_eval (MTEB drops it,
which would let a run game the average).

IRS (FollowTable eq. 1-4): w(r) = 1/log2(r+1); G+(pi) and G-(pi) sum w over T+ and T- ;
S = [G+(pi_qi) - G+(pi_q)] - [G-(pi_qi) - G-(pi_q)]; IRS = S / S(ideal) when S >= 0 and
S / |S(worst)| otherwise. A judged table absent from a run ranks N + 1 (N = corpus size).
When the baseline is already ideal (S(ideal) <= 0) and the altered run keeps it
(S >= 0), IRS = 1: the paper (Fig. 7) credits maintaining the optimal ranking in full.
A pair whose query is missing from either run scores 0.
The ideal ranking puts T+ at ranks 1..|T+| and T- at the bottom N-|T-|+1..N; the worst
puts T- first and T+ at the bottom. IRS = 0 when T+ and T- are both empty.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import chain
from typing import Literal

import numpy as np

from leaderboard.core.data.base import TaskData
from leaderboard.core.metrics.ranking import RankedRun
from leaderboard.core.runs.columns import id_array, lookup, sorted_unique

DocLists = Mapping[str, Sequence[str]]


@dataclass(frozen=True, eq=False)
class JudgedDocs:
    """Judged documents of a task's pairs (T+, or the changed documents), flattened once.

    Like trec_eval's qrels, they are the task's and not the run's: a scorer encodes them
    once per task (:meth:`leaderboard.core.data.base.TaskData.judged`) and looks up every run
    against the same arrays. Each (pair, document) entry has the pair's position in
    ``queries`` and an index into ``names``, the distinct document ids, so a run's ranks
    need one string lookup per distinct document rather than per entry.
    """

    queries: tuple[str, ...]  # altered query ids; entry i of pair_idx refers to queries[i]
    pair_idx: np.ndarray      # int64, per (pair, document)
    doc_idx: np.ndarray       # int64 index into names, per (pair, document)
    names: np.ndarray         # distinct document ids, sorted

    @classmethod
    def of(cls, docs: DocLists, queries: Sequence[str]) -> JudgedDocs:
        order = tuple(queries)
        lengths = np.fromiter((len(docs.get(q, ())) for q in order), dtype=np.int64,
                              count=len(order))
        flat = id_array(list(chain.from_iterable(docs.get(q, ()) for q in order)))
        names, doc_idx = sorted_unique(flat)
        return cls(queries=order, pair_idx=np.repeat(np.arange(len(order)), lengths),
                   doc_idx=doc_idx.astype(np.int64).ravel(), names=names)

    @property
    def counts(self) -> np.ndarray:
        """Number of documents of each pair."""
        return np.bincount(self.pair_idx, minlength=len(self.queries))

    def doc_codes_in(self, run: RankedRun) -> np.ndarray:
        """The run's code of every (pair, document)'s document (-1: not in the run)."""
        return lookup(run.d_names, self.names)[self.doc_idx]


def _ranks_in(run: RankedRun, pair_codes: np.ndarray, *judged: JudgedDocs) -> np.ndarray:
    """Rank in ``run`` of every (pair, document) of each of ``judged`` (concatenated in that
    order), 0 where it is not ranked there; ``pair_codes`` holds the run's code of each
    pair's query (-1: not in the run). One pass over the run's rows for all of them."""
    q_codes = np.concatenate([pair_codes[j.pair_idx] for j in judged])
    d_codes = np.concatenate([j.doc_codes_in(run) for j in judged])
    return run.ranks_of_codes(q_codes, d_codes)


def judged_docs(data: TaskData, kind: Literal["changed", "instruction_positive"]) -> JudgedDocs:
    """``changed`` or ``instruction_positive`` of a loaded task, encoded for its altered
    queries once per loaded task (p-MRR and IRS of every submission scored in this process
    reuse it, as trec_eval reuses its qrels)."""
    if kind not in data.judged:
        docs = {"changed": data.changed, "instruction_positive": data.instruction_positive}
        data.judged[kind] = JudgedDocs.of(docs[kind], data.roles["altered"].query_ids)
    return data.judged[kind]  # type: ignore[return-value]


def _judged(docs: DocLists | JudgedDocs, queries: Sequence[str]) -> JudgedDocs:
    """``docs`` encoded for ``queries`` (already encoded ones must be for those queries)."""
    if isinstance(docs, JudgedDocs):
        if docs.queries != tuple(queries):
            raise ValueError("judged documents were encoded for other queries")
        return docs
    return JudgedDocs.of(docs, queries)


def _pair_codes(original: RankedRun, altered: RankedRun, pairs: Mapping[str, str],
                order: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """Run codes of each pair's original and altered query (-1 where a run lacks it)."""
    return (original.query_codes([pairs[q] for q in order]), altered.query_codes(list(order)))


def pair_ranks(original: RankedRun, altered: RankedRun, pairs: Mapping[str, str],
                query_ids: Sequence[str], *judged: JudgedDocs
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(run codes of each pair's original and altered query, then the rank of every
    (pair, document) of ``judged`` in the original and in the altered run, 0 where it is
    not ranked there), one pass over each run."""
    orig_code, alt_code = _pair_codes(original, altered, pairs, query_ids)
    return (orig_code, alt_code, _ranks_in(original, orig_code, *judged).astype(np.float64),
            _ranks_in(altered, alt_code, *judged).astype(np.float64))


@dataclass(eq=False)
class PairRanks:
    """Where a task's judged documents sit in both runs, looked up once per scored run
    pair (:meth:`of`): p-MRR and IRS are computed from it, and the query explorer reads
    the same arrays (:mod:`leaderboard.core.explain_arrays`) rather than looking them up
    again.

    The rank arrays hold one entry per (pair, document) of T+ then T- (IRS), or of the
    changed documents alone (p-MRR only), as :func:`pair_ranks` returns them; 0: not
    ranked there.
    """

    original: RankedRun
    altered: RankedRun
    query_ids: tuple[str, ...]   # the altered queries, in the order of the pair indexes
    positive: JudgedDocs | None  # T+ (IRS), or None
    changed: JudgedDocs          # T-: p-MRR's changed documents
    corpus_size: int             # N: IRS ranks a judged table a run leaves out N + 1
    orig_code: np.ndarray        # each pair's original query's code in the original run
    alt_code: np.ndarray         # each pair's query's code in the altered run
    r_og: np.ndarray             # float64 rank of each entry in the original run
    r_new: np.ndarray            # float64 rank of each entry in the altered run

    @classmethod
    def of(cls, original: RankedRun, altered: RankedRun, pairs: Mapping[str, str],
           query_ids: Sequence[str], changed: DocLists | JudgedDocs,
           positive: DocLists | JudgedDocs | None = None, corpus_size: int = 0
           ) -> PairRanks:
        """One lookup of ``positive`` (when given) and ``changed`` in each run."""
        t_neg = _judged(changed, query_ids)
        t_pos = None if positive is None else _judged(positive, query_ids)
        judged = (t_neg,) if t_pos is None else (t_pos, t_neg)
        return cls(original, altered, tuple(query_ids), t_pos, t_neg, corpus_size,
                   *pair_ranks(original, altered, pairs, query_ids, *judged))

    @property
    def split(self) -> int:
        """Where T-'s entries start in the rank arrays (0 without T+)."""
        return 0 if self.positive is None else self.positive.pair_idx.shape[0]

    @cached_property
    def lengths(self) -> tuple[np.ndarray, np.ndarray]:
        """Documents each pair's query has in the original and in the altered run."""
        return (self.original.lengths_of_codes(self.orig_code),
                self.altered.lengths_of_codes(self.alt_code))

    @cached_property
    def irs_parts(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per pair: S, S(ideal) and S(worst) of IRS (:func:`irs_parts`)."""
        if self.positive is None:
            raise ValueError("IRS needs the instruction-positive documents (T+)")
        return irs_parts(self.positive, self.changed, self.corpus_size, self.r_og,
                         self.r_new)

    def p_mrr(self) -> dict[str, float]:
        """Per-query p-MRR (:func:`p_mrr`)."""
        split = self.split
        len_og, len_new = self.lengths
        return _p_mrr_of_ranks(self.changed, len_og, len_new, self.r_og[split:],
                               self.r_new[split:])

    def irs(self) -> dict[str, float]:
        """Per-query IRS (:func:`irs`)."""
        if self.positive is None:
            raise ValueError("IRS needs the instruction-positive documents (T+)")
        score, s_ideal, s_worst = self.irs_parts
        n_pos, n_neg = self.positive.counts, self.changed.counts
        with np.errstate(divide="ignore", invalid="ignore"):
            up = np.where(s_ideal > 0, score / s_ideal, 1.0)
            down = np.where(s_worst < 0, score / np.abs(s_worst), -1.0)
        value = np.where(score >= 0, up, down)
        # A run that leaves T- out altogether places it at N+1, just below the ideal's
        # bottom block, so S can exceed S(ideal) by a hair; the paper's range is [-1, 1].
        value = np.clip(value, -1.0, 1.0)
        value = np.where((n_pos == 0) & (n_neg == 0), 0.0, value)
        # As in trec_eval, a query the system did not answer (in either run) scores 0.
        len_og, len_new = self.lengths
        value = np.where((len_new > 0) & (len_og > 0), value, 0.0)
        return dict(zip(list(self.query_ids), value.tolist()))


def p_mrr(original: RankedRun, altered: RankedRun, pairs: Mapping[str, str],
          changed: DocLists | JudgedDocs, query_ids: Sequence[str]) -> dict[str, float]:
    """Per-query p-MRR for every altered query id in ``query_ids``.

    ``changed`` maps each altered query id to its changed documents, or is that mapping
    encoded for ``query_ids`` (:class:`JudgedDocs`). Queries without changed documents are
    not defined under p-MRR and are left out of the result (MTEB averages only over
    queries with changed documents).
    """
    return PairRanks.of(original, altered, pairs, query_ids, changed).p_mrr()


def _p_mrr_of_ranks(judged: JudgedDocs, len_og: np.ndarray, len_new: np.ndarray,
                    r_og: np.ndarray, r_new: np.ndarray) -> dict[str, float]:
    pair_idx = judged.pair_idx
    len_og = len_og[pair_idx].astype(np.float64)
    len_new = len_new[pair_idx].astype(np.float64)
    r_og = np.where(r_og > 0, r_og, len_og + 1)
    r_new = np.where(r_new > 0, r_new, len_new + 1)
    per_doc = np.where(r_og >= r_new, r_new / r_og - 1.0, 1.0 - r_og / r_new)
    answered = (len_og > 0) & (len_new > 0)
    per_doc = np.where(answered, per_doc, 0.0)
    n = len(judged.queries)
    total = np.bincount(pair_idx, weights=per_doc, minlength=n)
    count = judged.counts
    scored = np.flatnonzero(count > 0)
    means = total[scored] / count[scored]
    return dict(zip([judged.queries[i] for i in scored], means.tolist()))


def irs_weights(ranks: np.ndarray) -> np.ndarray:
    return 1.0 / np.log2(ranks + 1.0)


def _reference_mass(sizes: np.ndarray, first_rank: np.ndarray) -> np.ndarray:
    """Sum of w(r) for r = first_rank .. first_rank + size - 1, for each row, vectorised.

    Uses a prefix sum of w over 1..max rank needed, so the ideal/worst rankings cost
    one lookup per pair rather than a loop over their documents.
    """
    last = first_rank + sizes - 1
    top = int(last.max()) if last.size else 0
    prefix = np.concatenate(([0.0], np.cumsum(irs_weights(np.arange(1, top + 1,
                                                                         dtype=np.float64)))))
    return np.where(sizes > 0, prefix[np.maximum(last, 0)] - prefix[np.maximum(first_rank - 1, 0)],
                    0.0)


def irs(original: RankedRun, altered: RankedRun, pairs: Mapping[str, str],
        positive: DocLists | JudgedDocs, negative: DocLists | JudgedDocs, corpus_size: int,
        query_ids: Sequence[str]) -> dict[str, float]:
    """Per-query IRS for every altered query id in ``query_ids``; ``positive`` (T+) and
    ``negative`` (T-) as mappings or encoded for ``query_ids`` (:class:`JudgedDocs`)."""
    return PairRanks.of(original, altered, pairs, query_ids, negative, positive,
                        corpus_size).irs()


def irs_parts(t_pos: JudgedDocs, t_neg: JudgedDocs, corpus_size: int, r_og: np.ndarray,
              r_new: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per pair: S, S(ideal) and S(worst) of IRS (module docstring), from the ranks of T+
    then T- (:func:`pair_ranks` order; 0 = not ranked, which counts as N + 1)."""
    n = len(t_pos.queries)
    absent = float(corpus_size + 1)
    pair_idx = np.concatenate((t_pos.pair_idx, t_neg.pair_idx))
    w_new = irs_weights(np.where(r_new > 0, r_new, absent))
    w_og = irs_weights(np.where(r_og > 0, r_og, absent))
    split = t_pos.pair_idx.shape[0]

    def masses(part: slice) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        idx = pair_idx[part]
        return (np.bincount(idx, weights=w_new[part], minlength=n),
                np.bincount(idx, weights=w_og[part], minlength=n),
                np.bincount(idx, minlength=n))

    g_pos_new, g_pos_og, n_pos = masses(slice(0, split))
    g_neg_new, g_neg_og, n_neg = masses(slice(split, None))
    score = (g_pos_new - g_pos_og) - (g_neg_new - g_neg_og)

    top = np.ones(n, dtype=np.int64)
    pos_ideal = _reference_mass(n_pos, top)
    neg_ideal = _reference_mass(n_neg, corpus_size - n_neg + 1)
    neg_worst = _reference_mass(n_neg, top)
    pos_worst = _reference_mass(n_pos, corpus_size - n_pos + 1)
    s_ideal = (pos_ideal - g_pos_og) - (neg_ideal - g_neg_og)
    s_worst = (pos_worst - g_pos_og) - (neg_worst - g_neg_og)
    return score, s_ideal, s_worst
