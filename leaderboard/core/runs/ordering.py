"""Ranking a run as trec_eval does: by query, score descending, docid descending.

The rank column is ignored, so shuffling lines or scrambling ranks cannot change any
score. The orders are computed once per run and kept on it.
"""

from __future__ import annotations

import numpy as np

from leaderboard.core.runs.columns import ParsedRun


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


def _n_distinct(codes: np.ndarray) -> int:
    """How many distinct values (np.unique would import numpy.ma on its first call)."""
    ordered = np.sort(codes)
    return int(np.count_nonzero(ordered[1:] != ordered[:-1])) + 1 if ordered.size else 0


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
                 and n_blocks == _n_distinct(q[np.concatenate(([0], new_block))])
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
