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
