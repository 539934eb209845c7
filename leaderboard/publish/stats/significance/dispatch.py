"""Which engine computes which column: the dispatch table of the randomization test.

A column's route depends on that column alone (its number of queries, whether its scores
lie on a rank grid, how many distinct magnitudes it takes), never on the other columns,
so a pair's p-value does not depend on which other systems are in the view.
:data:`ROUTES` maps each route to its engine; :func:`randomization_pvalues` sorts the
columns into routes and runs each engine once on its columns. :mod:`.reference` defines
the quantity each engine computes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

import numpy as np

from leaderboard.core.measures import PairedTest

from .binomial import binomial_counts, binomial_slots
from .bootstrap import bootstrap_mean_ci
from .conventions import (DEFAULT_BOOTSTRAP, DEFAULT_RESAMPLES, EXACT_MAX_QUERIES,
                          derive_seed)
from .enumeration import enumerated_counts, single_magnitude_pvalues
from .fixedpoint import fixed_point, thresholds
from .subgroup import Subgroup, subgroup_counts, subgroup_work
from .delong import delong_intervals, delong_pvalues
from .wilcoxon import hodges_lehmann, wilcoxon_pvalues

Route = Literal["enumeration", "sign-test", "binomial", "subgroup"]
#: A route's engine: p-values of columns ``d_int`` (fixed point, n x m), given their
#: sum(|d|) ``l1`` and thresholds ``thr`` (> 0), with ``n_resamples`` and ``seed``.
Engine = Callable[[np.ndarray, np.ndarray, np.ndarray, int, int], np.ndarray]


def _enumeration(d_int: np.ndarray, l1: np.ndarray, thr: np.ndarray, n_resamples: int,
                 seed: int) -> np.ndarray:
    """Exact: all 2**n assignments, p = count / 2**n."""
    return enumerated_counts(d_int, thr) / float(1 << d_int.shape[0])


def _sign_test(d_int: np.ndarray, l1: np.ndarray, thr: np.ndarray, n_resamples: int,
               seed: int) -> np.ndarray:
    """Exact: one non-zero magnitude per column, the binomial distribution in closed form."""
    a = np.abs(d_int)
    return single_magnitude_pvalues(a, a.max(axis=0), thr)


def _binomial(d_int: np.ndarray, l1: np.ndarray, thr: np.ndarray, n_resamples: int,
              seed: int) -> np.ndarray:
    """Monte-Carlo: ``n_resamples`` assignments as per-magnitude binomial counts, p =
    (count + 1) / (n_resamples + 1), the observed assignment counted."""
    counts = binomial_counts(d_int, l1, thr, n_resamples, seed)
    return (counts + 1.0) / (n_resamples + 1.0)


def _subgroup(d_int: np.ndarray, l1: np.ndarray, thr: np.ndarray, n_resamples: int,
              seed: int) -> np.ndarray:
    """Monte-Carlo (an exact test): the 2**k elements of a random subgroup, p = count /
    2**k, the identity among those counted."""
    sub = Subgroup(d_int.shape[0], n_resamples, seed)
    return subgroup_counts(d_int, l1, thr, sub) / float(sub.size)


#: The engine of each route.
ROUTES: dict[Route, Engine] = {
    "enumeration": _enumeration,
    "sign-test": _sign_test,
    "binomial": _binomial,
    "subgroup": _subgroup,
}


def route_columns(d_int: np.ndarray, on_grid: np.ndarray, busy: np.ndarray,
                  n_resamples: int) -> dict[Route, np.ndarray]:
    """The columns (indices) each route takes, among the ``busy`` ones (threshold > 0).

    * n <= EXACT_MAX_QUERIES: enumeration;
    * grid columns with one non-zero magnitude (0/1 metrics): the exact sign test;
    * other grid columns: binomial draws while they take fewer float32 multiply-adds than
      the subgroup's float64 transform, which runs at half that rate (a mean over many
      tasks can take nearly one magnitude per query), else the subgroup;
    * off-grid columns: the subgroup.
    """
    n = d_int.shape[0]
    if n <= EXACT_MAX_QUERIES:
        return {"enumeration": np.flatnonzero(busy)}
    cols = np.flatnonzero(busy & on_grid)
    a = np.abs(d_int[:, cols])
    top = a.max(axis=0)
    one = np.all((a == 0) | (a == top), axis=0)  # a single non-zero magnitude
    mc = cols[~one]
    cheap = np.ones(mc.size, dtype=bool)
    if mc.size:
        cheap = (binomial_slots(a[:, ~one]) * float(n_resamples)
                 <= 2.0 * subgroup_work(n, int(n_resamples)))
    other = busy & ~on_grid
    other[mc[~cheap]] = True
    return {"sign-test": cols[one], "binomial": mc[cheap], "subgroup": np.flatnonzero(other)}


def _checked(diffs: np.ndarray, n_resamples: int, seed: int) -> np.ndarray:
    d = np.asarray(diffs, dtype=np.float64)
    if d.ndim != 2:
        raise ValueError(f"diffs must be a 2-D (queries x pairs) array, got shape {d.shape}")
    if not np.all(np.isfinite(d)):
        raise ValueError("differences must be finite")
    if isinstance(n_resamples, bool) or int(n_resamples) != n_resamples or n_resamples < 1:
        raise ValueError(f"n_resamples must be a positive integer, got {n_resamples!r}")
    derive_seed(seed)  # checks the seed even when no column needs random draws
    return d


def randomization_pvalues(diffs: np.ndarray, *, n_resamples: int = DEFAULT_RESAMPLES,
                          seed: int = 0, route: Route | None = None) -> np.ndarray:
    """Two-sided paired randomization p-values for every column of ``diffs`` (n x m).

    Column j holds the per-query differences d = a - b of one pair of systems. Under the
    null hypothesis the two systems are exchangeable on each query, so each d_i is equally
    likely to have either sign. The statistic is mean(d); the p-value is the share of sign
    assignments s with |sum(s_i d_i)| >= |sum(d_i)| - TIE_RTOL * sum(|d_i|).

    * n <= EXACT_MAX_QUERIES: all 2**n assignments, p = count / 2**n (exact; the observed
      assignment is one of them, so p >= 2 / 2**n).
    * otherwise Monte-Carlo, with at least ``n_resamples`` random assignments besides the
      observed one, which is always counted, so p is never 0 and the test stays valid
      (Davison & Hinkley 1997, ch. 4; Phipson & Smyth 2010). Which random assignments
      depends on the column (below); either way p >= 1 / (n_resamples + 1).
    * a column whose threshold is 0 (all d == 0, or |sum(d)| within the tie tolerance)
      has every assignment at least as extreme: p = 1 without drawing anything.

    How the random assignments are drawn depends on the column only, never on the other
    columns, so a pair's p-value does not depend on which other systems are in the view and
    comparing it alone (``compare_pair``) gives the same figure as the leaderboard:

    * scores on the 1/2520 grid (RR@k, R@k, P@k with k <= 10, accuracy, and differences of
      them) or on a 1/(2520 k) grid (their means over k tasks) take few distinct |d_i|;
      ``n_resamples`` independent assignments are drawn as per-magnitude binomial counts
      (:func:`binomial_counts`) at a cost independent of n, and p = (count + 1) /
      (n_resamples + 1), unless the column needs so many binomial draws per assignment
      that the subgroup below costs less (then it joins the columns below);
    * when all non-zero |d_i| are equal (0/1 metrics: R@k, accuracy), the distribution is
      that of a binomial and the p-value is exact (:func:`single_magnitude_pvalues`), as
      for n <= EXACT_MAX_QUERIES;
    * other columns share the 2**k assignments of a random subgroup of the sign flips,
      drawn from ``seed`` and n alone, 2**k - 1 >= n_resamples of them random
      (:class:`Subgroup`), and p = count / 2**k, the identity among those counted.

    ``route`` sends every column to one engine instead (tests compare the engines with
    :mod:`.reference` this way; ``"enumeration"`` wants n <= EXACT_MAX_QUERIES).

    Every count is exact (integer arithmetic, see :func:`fixed_point`), so the p-values do
    not depend on BLAS, threads or chunking.
    """
    d = _checked(diffs, n_resamples, seed)
    n, m = d.shape
    if m == 0:
        return np.empty(0)
    if n == 0:
        return np.ones(m)
    d_int, l1, on_grid = fixed_point(d)
    thr = thresholds(d_int, l1)
    p = np.ones(m)
    busy = thr > 0  # else every assignment is at least as extreme: p = 1 (incl. all d == 0)
    if route is None:
        routes = route_columns(d_int, on_grid, busy, int(n_resamples))
    else:
        if route == "enumeration" and n > EXACT_MAX_QUERIES:
            raise ValueError(f"enumeration takes at most {EXACT_MAX_QUERIES} queries, got {n}")
        if route == "sign-test" and not _one_magnitude(d_int[:, busy]):
            raise ValueError("the sign-test route wants one non-zero magnitude per column")
        routes = {route: np.flatnonzero(busy)}
    for name, cols in routes.items():
        if cols.size:
            p[cols] = ROUTES[name](d_int[:, cols], l1[cols], thr[cols], int(n_resamples), seed)
    return p


def _one_magnitude(a: np.ndarray) -> bool:
    a = np.abs(a)
    return bool(np.all((a == 0) | (a == a.max(axis=0, initial=0)), axis=None))


def pvalues_for(test: PairedTest, diffs: np.ndarray, *, n_resamples: int = DEFAULT_RESAMPLES,
                seed: int = 0) -> np.ndarray:
    """p-values of ``test`` for every column of ``diffs`` (queries x pairs)."""
    if test == "randomization":
        return randomization_pvalues(diffs, n_resamples=n_resamples, seed=seed)
    if test == "wilcoxon":
        return wilcoxon_pvalues(diffs)
    if test == "delong":
        return delong_pvalues(diffs)
    raise ValueError(f"unknown test {test!r}")


#: What each test's interval is an interval of (:func:`intervals_for`).
INTERVALS: dict[PairedTest, str] = {
    "randomization": "95% bootstrap interval of the mean difference",
    "wilcoxon": "Hodges-Lehmann shift with its 95% interval (the shifts the signed-rank "
                "test does not reject)",
    "delong": "difference of AUROCs with the 95% interval of DeLong's statistic",
}


def intervals_for(test: PairedTest, diffs: np.ndarray, *, n_bootstrap: int = DEFAULT_BOOTSTRAP,
                  seed: int = 0, confidence: float = 0.95
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each column's estimate and 95% interval from the statistic its test tests, so that
    an interval printed beside a p-value agrees with it: the mean with its percentile
    bootstrap interval for the randomization test (the mean is what it tests), the
    Hodges-Lehmann shift and its interval for Wilcoxon's signed-rank test (the interval is
    the test inverted), the mean of the DeLong components with DeLong's normal interval."""
    d = np.asarray(diffs, dtype=np.float64)
    if test == "randomization":
        low, high = bootstrap_mean_ci(d, n_resamples=n_bootstrap, seed=seed,
                                      confidence=confidence)
        n = d.shape[0]
        mean = (np.ascontiguousarray(d.T).sum(axis=1) / n if n else np.zeros(d.shape[1]))
        return mean, low, high
    if test == "wilcoxon":
        return hodges_lehmann(d, confidence)
    if test == "delong":
        return delong_intervals(d, confidence)
    raise ValueError(f"unknown test {test!r}")
