"""The public contract of the significance tests: what tiers.py, compare and the site call.

Callers import these names from here, the one path to them; the modules behind it
(engines, dispatch, runtime) may change without notice.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from decimal import Decimal

import numpy as np

from leaderboard.core.measures import PairedTest

from .bootstrap import bootstrap_mean_ci
from .conventions import (DEFAULT_BOOTSTRAP, DEFAULT_RESAMPLES, EXACT_MAX_QUERIES, POWER,
                          RANK_BOOTSTRAP, REPRODUCIBILITY_THRESHOLD, TIE_RTOL,
                          derive_seed, p_floor, paired_arrays, test_for_metric)
from .dispatch import INTERVALS, ROUTES, Route, intervals_for, pvalues_for, randomization_pvalues
from .ranks import rank_intervals
from .runtime import EXECUTOR
from .subgroup import subgroup_work
from .wilcoxon import wilcoxon_pvalues, wilcoxon_test

__all__ = [
    "DEFAULT_BOOTSTRAP", "DEFAULT_RESAMPLES", "EXACT_MAX_QUERIES", "EXECUTOR", "INTERVALS",
    "POWER", "RANK_BOOTSTRAP", "REPRODUCIBILITY_THRESHOLD", "ROUTES", "TIE_RTOL", "Route",
    "bootstrap_mean_ci", "clear_caches", "derive_seed", "holm", "holm_at_floors",
    "intervals_for",
    "p_floor", "pair_work", "paired_randomization_test", "pvalues_for",
    "randomization_pvalues", "rank_intervals", "serial_chunks", "single_threaded_blas",
    "test_for_metric", "wilcoxon_pvalues", "wilcoxon_test", "worker_count",
]


def worker_count() -> int:
    """Threads the statistics use at once (the CPUs this process may use, at most 8)."""
    return EXECUTOR.workers()


def serial_chunks() -> AbstractContextManager[None]:
    """Within this context the current thread runs its chunks itself, without the pool:
    for callers that already keep every core busy with one thread each (tier_views)."""
    return EXECUTOR.serial_chunks()


def single_threaded_blas() -> AbstractContextManager[bool]:
    """BLAS on one thread for the duration (shared by nested and concurrent users);
    yields whether that could be arranged."""
    return EXECUTOR.single_threaded_blas()


def clear_caches() -> None:
    """Drop cached sign and bootstrap matrices (tests use it to check regeneration)."""
    EXECUTOR.clear_caches()


def pair_work(test: PairedTest, n: int, *, n_resamples: int = DEFAULT_RESAMPLES,
              n_bootstrap: int = DEFAULT_BOOTSTRAP) -> float:
    """Rough multiply-adds to test one pair over n queries and bootstrap its interval: a
    measure for ordering work (the longest views first), not a timing. Enumeration is
    the two halves' 2**(n/2) sign sums of n/2 terms and as many searches
    (:func:`enumerated_counts`), the Monte-Carlo test the subgroup's transform (the
    binomial path costs less, never more), the Wilcoxon test next to nothing, and the
    bootstrap n x n_bootstrap resampled terms."""
    if test in ("wilcoxon", "delong"):
        tested = 0.0
    elif n <= EXACT_MAX_QUERIES:
        tested = float(n) * 2.0 ** ((n + 1) // 2)
    else:
        tested = subgroup_work(n, n_resamples)
    return tested + float(n) * n_bootstrap


def paired_randomization_test(a: np.ndarray | Sequence[float], b: np.ndarray | Sequence[float],
                              *, n_resamples: int = DEFAULT_RESAMPLES, seed: int = 0) -> float:
    """Fisher's two-sided paired randomization (sign-flip) test of mean(a - b) = 0.

    Exact for up to 20 queries and for 0/1 scores, Monte-Carlo with ``n_resamples`` flips
    otherwise; see
    :func:`randomization_pvalues` for the p-value conventions. Identical inputs give 1.0.
    """
    a_, b_ = paired_arrays(a, b)
    return float(randomization_pvalues((a_ - b_)[:, None], n_resamples=n_resamples,
                                       seed=seed)[0])


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values, in input order.

    Sorted ascending, the i-th smallest (i from 0) becomes max over k <= i of
    min(1, (m - k) * p_(k)). The running maximum makes the adjusted values monotone in the
    raw ones, so a hypothesis is rejected at level alpha exactly when Holm's procedure
    rejects it; it controls the family-wise error rate under any dependence between the
    tests (ours share a leader and a sign matrix, so they are dependent).
    """
    p = np.asarray(list(pvalues), dtype=np.float64)
    if p.ndim != 1:
        raise ValueError("holm() takes a flat sequence of p-values")
    if p.size == 0:
        return []
    if not np.all((p >= 0) & (p <= 1)):  # also rejects NaN
        raise ValueError("p-values must lie in [0, 1]")
    m = p.size
    order = np.argsort(p, kind="stable")
    adjusted = np.minimum(1.0, np.maximum.accumulate((m - np.arange(m)) * p[order]))
    out = np.empty(m)
    out[order] = adjusted
    return out.tolist()


def holm_at_floors(pvalues: Sequence[float], floors: Sequence[float]
                   ) -> tuple[list[float], list[bool]]:
    """Holm's adjusted p-values of p-values each known only down to its test's floor, and
    which of them are upper bounds, in input order.

    A p-value at or below its floor means "at most the floor" (it prints as "≤ 1e-5"), so
    each is raised to its floor first and Holm's procedure (:func:`holm`) runs on those:
    the adjusted values are what the raised p-values give, never more precise than the
    tests resolve (Holm on a raw 7.6e-6 among three printed 2.3e-5 beside a raw "≤ 1e-5").
    An adjusted value is an upper bound when the step-down maximum it takes is reached
    only by terms (m - k) p_(k) whose p is at its floor: a smaller true p there would
    lower it. Such a term is the floor as written times its factor (3 x 1e-5 is 3e-5, not
    the float product 3.0000000000000004e-05), so the bound prints as itself.
    """
    p = np.asarray(list(pvalues), dtype=np.float64)
    f = np.asarray(list(floors), dtype=np.float64)
    if p.shape != f.shape:
        raise ValueError("holm_at_floors() takes one floor per p-value")
    if p.size == 0:
        return [], []
    at_floor = p <= f
    raised = np.maximum(p, f)
    if not np.all((raised >= 0) & (raised <= 1)):  # also rejects NaN
        raise ValueError("p-values and floors must lie in [0, 1]")
    m = raised.size
    order = np.argsort(raised, kind="stable")
    factors = m - np.arange(m)
    terms = np.minimum(1.0, factors * raised[order])
    floored = at_floor[order]
    for k in np.flatnonzero(floored):
        terms[k] = min(1.0, float(Decimal(repr(float(raised[order][k]))) * int(factors[k])))
    running = np.maximum.accumulate(terms)
    exact = np.maximum.accumulate(np.where(floored, -np.inf, terms))
    adjusted = np.empty(m)
    bound = np.empty(m, dtype=bool)
    adjusted[order] = running
    bound[order] = exact < running
    return adjusted.tolist(), bound.tolist()
