"""Exact sign-flip counts: all 2**n assignments for n <= EXACT_MAX_QUERIES (meet in
the middle), and the closed-form binomial count for columns with one magnitude."""

from __future__ import annotations

import numpy as np
from scipy import stats

from .runtime import EXECUTOR


def half_signs(h: int) -> np.ndarray:
    """All 2**h sign vectors of h queries, one per row ((2**h x h) float64, +-1)."""

    def build() -> np.ndarray:
        r = np.arange(1 << h, dtype=np.int64)[:, None]
        bits = (r >> np.arange(h, dtype=np.int64)[None, :]) & 1
        return 1.0 - 2.0 * bits

    return EXECUTOR.cached(("half-signs", h), build)


def enumerated_counts(d_int: np.ndarray, thr: np.ndarray) -> np.ndarray:
    """For every column of ``d_int`` (n x m fixed-point integers, n <= EXACT_MAX_QUERIES),
    how many of all 2**n sign assignments have |sum(s_i d_i)| >= thr (thr > 0).

    Meet in the middle: the 2**h sums of the first h = n // 2 queries' signs and the
    2**(n-h) sums of the others', the latter sorted, so that the assignments completing a
    first-half sum a are counted by two binary searches (b >= thr - a, b <= -thr - a).
    That is 2**(n/2) work per column instead of 2**n: 1,024 sums and searches for 20
    queries. Every sum is an integer below 2**53, exact in float64, so the count is the
    enumeration's own, whatever the order of the additions.
    """
    n, m = d_int.shape
    h = n // 2
    first = half_signs(h) @ d_int[:h]  # (2**h x m), exact integers
    second = np.sort(half_signs(n - h) @ d_int[h:], axis=0)  # (2**(n-h) x m)
    size = second.shape[0]
    counts = np.empty(m, dtype=np.int64)
    for j in range(m):
        column = second[:, j]
        at_least = size - np.searchsorted(column, thr[j] - first[:, j], side="left")
        at_most = np.searchsorted(column, -thr[j] - first[:, j], side="right")
        counts[j] = int(at_least.sum() + at_most.sum())
    return counts


def single_magnitude_pvalues(a: np.ndarray, v: np.ndarray, thr: np.ndarray) -> np.ndarray:
    """Exact sign-flip p-values of columns whose non-zero |d_i| all equal v (0/1 metrics:
    R@k, accuracy): all 2**n assignments, counted in closed form.

    With c non-zero queries, sum(s_i d_i) = v (2 B - c), B ~ Binomial(c, 1/2) the number of
    them whose sign comes out +1, so the share of assignments with |sum| >= thr is
    P(B >= (c + thr/v) / 2) + P(B <= (c - thr/v) / 2): the exact randomization p-value
    (the two-sided sign test), as enumeration gives for n <= 20, with no Monte-Carlo error.
    """
    c = np.count_nonzero(a, axis=0).astype(np.float64)
    t = thr / v
    upper = np.ceil((c + t) / 2.0)   # B >= upper
    lower = np.floor((c - t) / 2.0)  # B <= lower
    p = stats.binom.sf(upper - 1.0, c, 0.5) + stats.binom.cdf(lower, c, 0.5)
    return np.minimum(p, 1.0)
