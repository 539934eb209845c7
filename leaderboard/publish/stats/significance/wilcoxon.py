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


def null_distributions(diffs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Which null distribution :func:`wilcoxon_test` takes for each column of ``diffs``
    (n x m), as scipy's "auto" method picks it: (exact, permutation, normal) masks over
    the columns with a non-zero difference (the others have no test). The normal
    approximation above 50 pairs; else the exact distribution without zeros or ties
    (equal |d|), else a permutation distribution up to 13 pairs and the normal
    approximation above. The pair count includes the zero differences the test drops."""
    d = np.asarray(diffs, dtype=np.float64)
    n, m = d.shape
    informative = np.any(d != 0, axis=0)
    if n > 50:
        none = np.zeros(m, dtype=bool)
        return none, none.copy(), informative
    a = np.sort(np.abs(d), axis=0)
    plain = ~np.any(a == 0, axis=0) & ~np.any(a[1:] == a[:-1], axis=0)
    return (informative & plain, informative & ~plain & (n <= 13),
            informative & ~plain & (n > 13))


def wilcoxon_pvalues(diffs: np.ndarray) -> np.ndarray:
    """:func:`wilcoxon_test` of every column of ``diffs`` (n x m) against 0, the same floats
    as one call per column, with far fewer calls.

    Columns are grouped by the distribution scipy's "auto" method picks for each
    (:func:`null_distributions`) and each group goes to scipy in one vectorised call with
    the method named (the permutation cases stay one call each). Every sum scipy forms
    here is of ranks (multiples of 1/2) or integers, exact in any order, so a column's
    p-value does not depend on its group; tests/test_stats.py checks the equality.
    """
    d = np.asarray(diffs, dtype=np.float64)
    if d.ndim != 2:
        raise ValueError(f"diffs must be a 2-D (queries x pairs) array, got shape {d.shape}")
    if not np.all(np.isfinite(d)):
        raise ValueError("differences must be finite")
    n, m = d.shape
    p = np.ones(m)  # no non-zero difference: no evidence either way
    exact, per_call, asymptotic = null_distributions(d)
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


def exact_signed_rank_cut(n: int, confidence: float) -> int:
    """c: how many Walsh averages the Hodges-Lehmann interval leaves out at each end when
    the test takes the exact distribution: the largest c with 2 P(T+ <= c) < 1 -
    confidence under the null (T+ the signed-rank statistic of n units without ties; -1
    when no c qualifies). R's wilcox.test cuts its exact interval at the same place
    (qsignrank(alpha / 2, n) is c + 1)."""
    alpha = 1.0 - confidence
    total = n * (n + 1) // 2
    # counts of the subsets of {1..n} by their sum: exact integers below 2**53 (n <= 50)
    counts = np.zeros(total + 1)
    counts[0] = 1.0
    for r in range(1, n + 1):
        counts[r:] = counts[r:] + counts[:-r].copy()
    tail = np.cumsum(counts) / 2.0 ** n
    below = np.flatnonzero(2.0 * tail < alpha)
    return int(below[-1]) if below.size else -1


def normal_signed_rank_cut(n: int, ties: float, confidence: float) -> int:
    """c as :func:`exact_signed_rank_cut` gives it, for a test that takes the normal
    approximation: the largest integer c with 2 Phi((c - n(n+1)/4) / sigma) < 1 -
    confidence, sigma**2 = (n(n+1)(2n+1) - ties / 2) / 24 with ``ties`` the sum of t**3 - t
    over groups of t equal |d|, without continuity correction, as the test's p-value."""
    sigma = math.sqrt((n * (n + 1) * (2 * n + 1) - ties / 2.0) / 24.0)
    return int(math.ceil(n * (n + 1) / 4.0 - stats.norm.isf((1.0 - confidence) / 2.0) * sigma)
               ) - 1


def _tie_term(x: np.ndarray) -> float:
    """sum of t**3 - t over the groups of t equal values of x."""
    _, t = np.unique(x, return_counts=True)
    return float(np.sum(t.astype(np.float64) ** 3 - t))


def permutation_interval(x: np.ndarray, confidence: float) -> tuple[float, float]:
    """The shifts the test does not reject when it takes the permutation distribution (at
    most 13 units, with zeros or ties): from the smallest to the largest Walsh average of
    ``x`` (the non-zero differences) that bounds a shift not rejected; -inf or inf where
    the shifts beyond every Walsh average are not rejected.

    The distribution then depends on the shift (which |x - shift| tie moves with it), so
    the test is taken shift by shift: one shift between each two adjacent Walsh averages
    (where the statistic is constant) and one beyond each end. Each test counts all 2**n
    sign assignments of the doubled mid-ranks (integers), p = 2 min(P(T <= t),
    P(T >= t)) as scipy's exact permutation test gives it."""
    n = x.size
    upper_i, upper_j = np.triu_indices(n)
    walsh = np.unique((x[upper_i] + x[upper_j]) / 2.0)
    shifts = np.concatenate(([walsh[0] - 1.0], (walsh[:-1] + walsh[1:]) / 2.0,
                             [walsh[-1] + 1.0]))
    y = x[None, :] - shifts[:, None]                               # shifts x n
    ranks = np.rint(2.0 * stats.rankdata(np.abs(y), axis=1)).astype(np.int64)
    observed = np.sum(ranks * (y > 0), axis=1)
    signs = (np.arange(1 << n)[:, None] >> np.arange(n)[None, :]) & 1   # 2**n x n
    null = signs @ ranks.T                                         # 2**n x shifts
    tail = np.minimum(np.count_nonzero(null <= observed, axis=0),
                      np.count_nonzero(null >= observed, axis=0))
    kept = np.flatnonzero(np.minimum(1.0, 2.0 * tail / float(1 << n)) >= 1.0 - confidence)
    if kept.size == 0:
        # Every gap rejected: the differences are all one value (a system ahead by the
        # same amount on every unit), and the one shift not rejected is that value, where
        # no difference is left for the test to see.
        return float(walsh[0]), float(walsh[-1])
    first, last = int(kept[0]), int(kept[-1])
    return (-math.inf if first == 0 else float(walsh[first - 1]),
            math.inf if last == walsh.size else float(walsh[last]))


def hodges_lehmann(diffs: np.ndarray, confidence: float = 0.95
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The Hodges-Lehmann estimate of every column's shift and its interval at
    ``confidence``, both of the non-zero differences, as the test drops the zero ones
    (R's wilcox.test does the same for its estimate and interval).

    The estimate is the median of the Walsh averages (d_i + d_j) / 2, i <= j, of those
    n' differences; the interval holds the shifts the signed-rank test does not reject,
    under the null distribution the test takes for the column (:func:`null_distributions`):
    the Walsh averages cut c from each end, c from the exact distribution of n' units
    (:func:`exact_signed_rank_cut`) or from the normal approximation with the test's
    tie correction (:func:`normal_signed_rank_cut`; between Walsh averages the ties of
    |d - shift| are the groups of equal differences); for the permutation distribution
    shift by shift (:func:`permutation_interval`). So it leaves 0 out exactly when the
    test rejects, unless two differences have equal size and opposite signs (a Walsh
    average of 0, where the test's ties are not those of the shifts beside it).

    A column without a non-zero difference gets the estimate 0 and (-inf, inf), as does
    the interval of a column of fewer units than any cut allows. Every Walsh average is
    one rounded addition and a selection, so the figures are the same bits wherever they
    are computed; :func:`~.reference.hodges_lehmann_interval` is the plain definition."""
    d = np.asarray(diffs, dtype=np.float64)
    if d.ndim != 2:
        raise ValueError(f"diffs must be a 2-D (units x pairs) array, got shape {d.shape}")
    if not np.all(np.isfinite(d)):
        raise ValueError("differences must be finite")
    n, m = d.shape
    est, low, high = np.zeros(m), np.full(m, -np.inf), np.full(m, np.inf)
    if n == 0 or m == 0:
        return est, low, high
    exact, permutation, normal = null_distributions(d)
    kept = np.count_nonzero(d, axis=0)
    # each column's non-zero differences first, in their order
    nonzero = np.take_along_axis(d, np.argsort(d == 0, axis=0, kind="stable"), axis=0)
    cuts = np.full(m, -1)
    exact_cuts: dict[int, int] = {}
    for j in np.flatnonzero(exact):
        k = int(kept[j])
        cuts[j] = exact_cuts.setdefault(k, exact_signed_rank_cut(k, confidence))
    for j in np.flatnonzero(normal):
        k = int(kept[j])
        cuts[j] = normal_signed_rank_cut(k, _tie_term(nonzero[:k, j]), confidence)
    informative = exact | permutation | normal
    for k, c in sorted({(int(kept[j]), int(cuts[j])) for j in np.flatnonzero(informative)}):
        columns = np.flatnonzero(informative & (kept == k) & (cuts == c))
        upper_i, upper_j = np.triu_indices(k)
        total = upper_i.size
        picks = [(total - 1) // 2, total // 2] + ([c, total - 1 - c] if c >= 0 else [])
        block = max(1, (1 << 22) // total)
        for first in range(0, columns.size, block):
            cols = columns[first:first + block]
            x = np.ascontiguousarray(nonzero[:k, cols].T)           # (columns x k)
            walsh = (x[:, upper_i] + x[:, upper_j]) / 2.0
            walsh.partition(sorted(set(picks)), axis=1)
            est[cols] = (walsh[:, picks[0]] + walsh[:, picks[1]]) / 2.0
            if c >= 0:
                low[cols] = walsh[:, c]
                high[cols] = walsh[:, total - 1 - c]
    for j in np.flatnonzero(permutation):
        low[j], high[j] = permutation_interval(nonzero[:kept[j], j], confidence)
    return est, low, high
