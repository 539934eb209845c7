"""Wilcoxon signed-rank p-values through scipy, many columns per call."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from scipy import stats

from .conventions import paired_arrays


def wilcoxon_test(a: np.ndarray | Sequence[float], b: np.ndarray | Sequence[float]) -> float:
    """Two-sided Wilcoxon signed-rank p-value via ``scipy.stats.wilcoxon``.

    Zero differences are dropped (``zero_method="wilcox"``, scipy's default and what the
    mFollowIR analysis used). For p-MRR a zero means the instruction changed neither
    system's ranking relative to the other, which says nothing about which system follows
    instructions better; Pratt's method would let such queries shift the ranks of the
    informative ones. With no non-zero difference at all there is no evidence either way
    and scipy has no test statistic, so the p-value is 1.0 (scipy's other choices follow
    its defaults: exact distribution for n <= 50 without ties or zeros, a permutation
    distribution for n <= 13 with them, the tie-corrected normal approximation otherwise).
    """
    a_, b_ = paired_arrays(a, b)
    if not np.any(a_ != b_):
        return 1.0
    p = float(stats.wilcoxon(a_, b_, zero_method="wilcox", alternative="two-sided").pvalue)
    if not math.isfinite(p):  # not expected with a non-zero difference; never report NaN
        raise ArithmeticError(f"scipy.stats.wilcoxon returned p = {p}")
    return p


def wilcoxon_pvalues(diffs: np.ndarray) -> np.ndarray:
    """:func:`wilcoxon_test` of every column of ``diffs`` (n x m) against 0, the same floats
    as one call per column, with far fewer calls.

    scipy's "auto" method picks per call: the normal approximation above 50 pairs, else the
    exact distribution without zeros or ties, else a permutation distribution up to 13
    pairs and the normal approximation above. Columns are grouped by that choice and each
    group goes to scipy in one vectorised call with the method named (the permutation
    cases stay one call each). Every sum scipy forms here is of ranks (multiples of 1/2)
    or integers, exact in any order, so a column's p-value does not depend on its group;
    tests/test_stats.py checks the equality.
    """
    d = np.asarray(diffs, dtype=np.float64)
    if d.ndim != 2:
        raise ValueError(f"diffs must be a 2-D (queries x pairs) array, got shape {d.shape}")
    if not np.all(np.isfinite(d)):
        raise ValueError("differences must be finite")
    n, m = d.shape
    p = np.ones(m)  # no non-zero difference: no evidence either way
    informative = np.any(d != 0, axis=0)
    if n > 50:
        asymptotic = informative
        exact = per_call = np.zeros(m, dtype=bool)
    else:
        a = np.sort(np.abs(d), axis=0)
        plain = ~np.any(a == 0, axis=0) & ~np.any(a[1:] == a[:-1], axis=0)
        exact = informative & plain
        per_call = informative & ~plain & (n <= 13)
        asymptotic = informative & ~plain & (n > 13)
    rows = np.ascontiguousarray(d.T)  # scipy reduces along contiguous rows
    for chosen, method in ((exact, "exact"), (asymptotic, "asymptotic")):
        if chosen.any():
            p[chosen] = stats.wilcoxon(rows[chosen], zero_method="wilcox", method=method,
                                       alternative="two-sided", axis=1).pvalue
    zero = np.zeros(n)
    for j in np.flatnonzero(per_call):
        p[j] = wilcoxon_test(d[:, j], zero)
    if not np.all(np.isfinite(p)):  # not expected with a non-zero difference
        raise ArithmeticError("scipy.stats.wilcoxon returned a non-finite p-value")
    return p


# Up to this many units the signed-rank statistic's exact null distribution is used, as
# scipy's test uses it (its "auto" method: exact up to 50 pairs without ties or zeros).
EXACT_SIGNED_RANK_MAX = 50


def signed_rank_cut(n: int, confidence: float) -> int:
    """c: how many Walsh averages the Hodges-Lehmann interval leaves out at each end, the
    largest c with 2 P(T+ <= c) < 1 - confidence under the null (T+ the signed-rank
    statistic of n units without ties; -1 when no c qualifies). Exact up to
    :data:`EXACT_SIGNED_RANK_MAX` units, from the normal approximation above (as the test's
    p-value, without continuity correction)."""
    alpha = 1.0 - confidence
    total = n * (n + 1) // 2
    if n <= EXACT_SIGNED_RANK_MAX:
        # counts of the subsets of {1..n} by their sum: exact integers below 2**53
        counts = np.zeros(total + 1)
        counts[0] = 1.0
        for r in range(1, n + 1):
            counts[r:] = counts[r:] + counts[:-r].copy()
        tail = np.cumsum(counts) / 2.0 ** n
        below = np.flatnonzero(2.0 * tail < alpha)
        return int(below[-1]) if below.size else -1
    sigma = math.sqrt(n * (n + 1) * (2 * n + 1) / 24.0)
    return int(math.ceil(total / 2.0 - stats.norm.isf(alpha / 2.0) * sigma)) - 1


def hodges_lehmann(diffs: np.ndarray, confidence: float = 0.95
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The Hodges-Lehmann estimate of every column's shift (the median of its Walsh
    averages (d_i + d_j) / 2, i <= j) and its interval at ``confidence``: the Walsh
    averages cut c from each end (:func:`signed_rank_cut`), the shifts the signed-rank
    test does not reject. It is the interval of the test's own statistic, so it leaves 0
    out exactly when the test rejects (for differences without ties or zeros; with zero
    differences the test drops them, the interval counts them).

    A column of fewer units than any cut allows gets (-inf, inf). Every Walsh average is
    one rounded addition and a selection, so the figures are the same bits wherever they
    are computed."""
    d = np.asarray(diffs, dtype=np.float64)
    if d.ndim != 2:
        raise ValueError(f"diffs must be a 2-D (units x pairs) array, got shape {d.shape}")
    n, m = d.shape
    est, low, high = np.zeros(m), np.full(m, -np.inf), np.full(m, np.inf)
    if n == 0 or m == 0:
        return est, low, high
    upper_i, upper_j = np.triu_indices(n)
    total = upper_i.size
    c = signed_rank_cut(n, confidence)
    picks = [(total - 1) // 2, total // 2]
    if c >= 0:
        picks += [c, total - 1 - c]
    block = max(1, (1 << 22) // total)
    for first in range(0, m, block):
        cols = np.ascontiguousarray(d[:, first:first + block].T)   # (columns x n)
        walsh = (cols[:, upper_i] + cols[:, upper_j]) / 2.0
        walsh.partition(sorted(set(picks)), axis=1)
        est[first:first + block] = (walsh[:, picks[0]] + walsh[:, picks[1]]) / 2.0
        if c >= 0:
            low[first:first + block] = walsh[:, c]
            high[first:first + block] = walsh[:, total - 1 - c]
    return est, low, high
