"""Plain definitions of every quantity the engines compute: slow, readable, for the tests.

The engines (:mod:`.enumeration`, :mod:`.subgroup`, :mod:`.binomial`, :mod:`.wilcoxon`
with its Hodges-Lehmann interval, :mod:`.delong` with its interval, :mod:`.bootstrap`,
:mod:`.ranks`), the units of a column (:func:`clustered_differences`) and the per-persona
decomposition of T4's AUROC
(:func:`leaderboard.core.metrics.classification.per_unit_scores`) compute these quantities
fast; tests/test_stats.py and tests/test_board_truth.py hold them to this module: equal to the bit on the exact paths (enumeration, sign test, Wilcoxon, Holm), and
equal in distribution on the Monte-Carlo paths (random sign flips, bootstrap).

Conventions shared with the engines:

* **The differences as integers.** A sign-flip p-value compares sums of +-d_i, and ties
  between floating-point sums are decided in exact arithmetic: d is first turned into
  integers by :func:`~.fixedpoint.fixed_point` (scores on a 1/(2520 k) rank grid become
  exact multiples of the grid; other scores are scaled by a power of two and rounded,
  about 15 significant digits), and a tie tolerance of ``TIE_RTOL * sum(|d|)`` is
  subtracted from the observed |sum| (:func:`~.fixedpoint.thresholds`).
* **Randomness** comes from :func:`~.conventions.derive_seed`, one stream per purpose.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Sequence
from decimal import Decimal
from fractions import Fraction

import numpy as np
from scipy import stats

from .conventions import DEFAULT_BOOTSTRAP, DEFAULT_RESAMPLES, seeded_rng
from .fixedpoint import fixed_point, thresholds


def _integers(d: np.ndarray) -> tuple[list[int], int]:
    """One column of differences as exact integers, and the threshold |sum| - tolerance."""
    d_int, l1, _ = fixed_point(np.asarray(d, dtype=np.float64).reshape(-1, 1))
    thr = thresholds(d_int, l1)
    return [int(x) for x in d_int[:, 0]], int(thr[0])


def sign_flip_distribution(d_int: Sequence[int]) -> Counter[int]:
    """The null distribution of sum(s_i d_i) over all 2**n sign vectors s, as
    {sum: number of sign vectors}, built one query at a time (each query's sign doubles
    the assignments: every sum so far moves by +d_i or -d_i)."""
    dist: Counter[int] = Counter({0: 1})
    for x in d_int:
        step: Counter[int] = Counter()
        for total, count in dist.items():
            step[total + x] += count
            step[total - x] += count
        dist = step
    return dist


def exact_sign_flip_pvalue(d: np.ndarray) -> float:
    """Fisher's two-sided paired randomization test, exactly: the share of all 2**n sign
    assignments s with |sum(s_i d_i)| >= |sum(d_i)| - tolerance. The observed assignment
    is one of them. A threshold of 0 (all d == 0, or a sum within the tolerance) gives 1.

    The engines give this figure to the bit for n <= EXACT_MAX_QUERIES (enumeration), and
    for columns with one non-zero magnitude (the sign test) up to the rounding of scipy's
    binomial tail (they add two floats; this is the exact fraction, rounded once)."""
    d_int, thr = _integers(d)
    if thr <= 0:
        return 1.0
    dist = sign_flip_distribution(d_int)
    extreme = sum(count for total, count in dist.items() if abs(total) >= thr)
    return float(Fraction(extreme, 2 ** len(d_int)))


def monte_carlo_sign_flip_pvalue(d: np.ndarray, *, n_resamples: int = DEFAULT_RESAMPLES,
                                 seed: int = 0) -> float:
    """The Monte-Carlo randomization test: ``n_resamples`` independent uniform sign
    vectors, p = (count + 1) / (n_resamples + 1), the observed assignment counted once
    (Phipson & Smyth 2010), so p is never 0.

    The engines draw their assignments differently (a random subgroup of the sign flips,
    or per-magnitude binomial counts: see :mod:`.subgroup` and :mod:`.binomial`); each
    assignment is uniform over the sign vectors as here, so their p-values have this
    p-value's distribution (the subgroup's p = count / 2**k with 2**k - 1 random
    elements, the identity counted)."""
    d_int, thr = _integers(d)
    if thr <= 0:
        return 1.0
    rng = seeded_rng(seed, "reference-sign-flips", len(d_int))
    values = np.array(d_int, dtype=object)  # Python integers: exact sums
    count = 0
    for _ in range(n_resamples):
        signs = rng.integers(0, 2, size=values.size) * 2 - 1
        count += abs(int(np.dot(signs, values))) >= thr
    return (count + 1.0) / (n_resamples + 1.0)


def wilcoxon_pvalue(d: np.ndarray) -> float:
    """The two-sided Wilcoxon signed-rank p-value of d against 0, one scipy call: zero
    differences dropped (``zero_method="wilcox"``), scipy's automatic choice of exact,
    permutation or normal distribution; 1.0 when every difference is 0."""
    x = np.asarray(d, dtype=np.float64)
    if not np.any(x != 0):
        return 1.0
    return float(stats.wilcoxon(x, np.zeros_like(x), zero_method="wilcox",
                                alternative="two-sided").pvalue)


def bootstrap_resamples(n: int, n_resamples: int, seed: int) -> np.ndarray:
    """The resamples (``n_resamples`` x n query indices, drawn with replacement) the
    bootstrap uses for n queries: in blocks of up to 1,024 resamples (about 2**20 draws),
    each block from its own seed so that blocks can be drawn in any order."""
    block = max(1, min(1024, (1 << 20) // max(n, 1)))
    rows = []
    for start in range(0, n_resamples, block):
        rng = seeded_rng(seed, "bootstrap-indices", n, n_resamples, start)
        rows.append(rng.integers(0, n, size=(min(block, n_resamples - start), n)))
    return np.concatenate(rows)


def bootstrap_mean_interval(d: np.ndarray, *, n_resamples: int = DEFAULT_BOOTSTRAP,
                            seed: int = 0, confidence: float = 0.95) -> tuple[float, float]:
    """Percentile bootstrap interval of mean(d): the (1 - confidence)/2 and
    (1 + confidence)/2 quantiles (numpy's "linear") of the means of the resamples.

    The engine sums the same resamples exactly, in fixed point; these means are float
    sums, so the two agree to about 1e-12 of max|d|, not to the bit. For a column of few
    distinct values the engine takes the queries in order of value (each value's queries
    a block of positions, summed from prefix counts): the same bootstrap, since the n
    draws of a resample are exchangeable across positions, and this function's figures
    on the column sorted."""
    x = np.asarray(d, dtype=np.float64)
    if x.size == 0:
        return 0.0, 0.0
    means = x[bootstrap_resamples(x.size, n_resamples, seed)].mean(axis=1)
    tail = (1.0 - confidence) / 2.0
    low, high = np.quantile(means, [tail, 1.0 - tail], method="linear")
    return float(low), float(high)


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values, in input order: the i-th smallest p (from 0,
    ties in input order) becomes max over k <= i of min(1, (m - k) p_(k))."""
    m = len(pvalues)
    order = sorted(range(m), key=lambda j: pvalues[j])
    adjusted = [0.0] * m
    running = 0.0
    for k, j in enumerate(order):
        running = max(running, min(1.0, (m - k) * float(pvalues[j])))
        adjusted[j] = running
    return adjusted


def holm_at_floors(pvalues: Sequence[float], floors: Sequence[float]
                   ) -> tuple[list[float], list[bool]]:
    """Holm's adjusted p-values of the p-values each raised to its floor, and which are
    upper bounds: those whose running maximum is reached by no term of a p-value above
    its floor. A term of a p-value at its floor is the floor as written times its factor
    (Decimal), so that 3 x 1e-5 is 3e-5."""
    m = len(pvalues)
    raised = [max(float(p), float(f)) for p, f in zip(pvalues, floors)]
    order = sorted(range(m), key=lambda j: raised[j])
    adjusted, bounds = [0.0] * m, [False] * m
    running, exact = 0.0, -math.inf
    for k, j in enumerate(order):
        if pvalues[j] <= floors[j]:
            term = min(1.0, float(Decimal(repr(raised[j])) * (m - k)))
        else:
            term = min(1.0, (m - k) * raised[j])
            exact = max(exact, term)
        running = max(running, term)
        adjusted[j], bounds[j] = running, exact < running
    return adjusted, bounds


def stratified_differences(a: Sequence[Sequence[float]], b: Sequence[Sequence[float]]
                           ) -> list[float]:
    """The weighted per-query differences behind a mean-of-means column, by definition:
    tasks t = 1..T with n_t queries each (``a[t][i]`` and ``b[t][i]`` the two systems' scores
    on query i of task t), each difference weighted by 1 / (T n_t). They sum to
    (1/T) sum_t mean(a_t) - (1/T) sum_t mean(b_t), the difference of the two systems' means
    of task figures; a sign-flip test and a bootstrap of the column run on them.
    (:func:`leaderboard.publish.standings.stratified_units` gives each unit U times its weighted
    score, U the number of units, so the units' mean is this sum.)"""
    n_tasks = len(a)
    out = []
    for scores_a, scores_b in zip(a, b):
        n = len(scores_a)
        out += [(x - y) / (n_tasks * n) for x, y in zip(scores_a, scores_b)]
    return out


def clustered_differences(a: Sequence[Sequence[float]], b: Sequence[Sequence[float]],
                          units: Sequence[Sequence[str]]) -> dict[str, float]:
    """The differences of whole units behind a column, by definition: query i of task t
    (scores ``a[t][i]`` and ``b[t][i]``) belongs to unit ``units[t][i]``, and a unit's
    difference is the sum of its queries' weighted differences
    (:func:`stratified_differences`). They sum to the difference of the two systems' means
    of task figures; the tests flip, rank and resample these, one per unit, since a unit's
    queries were not sampled apart. (:func:`leaderboard.publish.standings.stratified_units`
    gives each unit U times its weighted score, U the number of units.)"""
    weighted = stratified_differences(a, b)
    out: dict[str, list[float]] = {}
    for unit, d in zip((u for task in units for u in task), weighted):
        out.setdefault(unit, []).append(d)
    return {unit: sum(ds) for unit, ds in out.items()}


def delong_components(labels: Sequence[int], scores: Sequence[float],
                      clusters: Sequence[str]) -> dict[str, float]:
    """DeLong's structural components of each cluster's AUROC, pair by pair (Obuchowski
    1997): psi(a, b) = 1 when positive a scores above negative b, 1/2 on a tie, else 0;
    V10(a) = mean over negatives of psi(a, b), V01(b) = mean over positives of psi(a, b),
    A = mean of V10 over the m positives; cluster k with positives P_k and negatives N_k
    gets A + K * ((sum over P_k of V10 - |P_k| A) / m + (sum over N_k of V01 - |N_k| A) / n).
    Their mean over the K clusters is A."""
    positives = [i for i, y in enumerate(labels) if y == 1]
    negatives = [i for i, y in enumerate(labels) if y == 0]
    m, n = len(positives), len(negatives)

    def psi(a: int, b: int) -> float:
        return 1.0 if scores[a] > scores[b] else 0.5 if scores[a] == scores[b] else 0.0

    v10 = {a: sum(psi(a, b) for b in negatives) / n for a in positives}
    v01 = {b: sum(psi(a, b) for a in positives) / m for b in negatives}
    area = sum(v10.values()) / m
    names = sorted(set(clusters))
    k = len(names)
    out = {}
    for name in names:
        members = [i for i, c in enumerate(clusters) if c == name]
        pos = [i for i in members if labels[i] == 1]
        neg = [i for i in members if labels[i] == 0]
        x = sum(v10[i] for i in pos) - len(pos) * area
        y = sum(v01[i] for i in neg) - len(neg) * area
        out[name] = area + k * (x / m + y / n)
    return out


def delong_pvalue(d: np.ndarray) -> float:
    """DeLong's two-sided test of mean(d) = 0, d the per-cluster differences of two
    systems' components: z = mean(d) / sqrt(sum((d - mean(d))**2) / (K (K - 1))) against
    the standard normal (Obuchowski 1997's clustered variance). 1 when every d is 0."""
    x = [float(v) for v in np.asarray(d, dtype=np.float64)]
    k = len(x)
    if k < 2 or not any(x):
        return 1.0
    mean = sum(x) / k
    variance = sum((v - mean) ** 2 for v in x) / (k * (k - 1))
    if variance == 0:
        return 0.0
    return float(2.0 * stats.norm.sf(abs(mean) / variance ** 0.5))


def wilcoxon_distribution(d: np.ndarray) -> str | None:
    """The null distribution scipy's "auto" method takes for the signed-rank test of d
    (n differences, zeros included in n), as scipy's documentation states it: the normal
    approximation ("asymptotic") above 50; else "exact" when no difference is 0 and no two
    have equal size; else "permutation" (all 2**n sign assignments) up to 13, the normal
    approximation above. None when every difference is 0 (no test)."""
    x = [float(v) for v in np.asarray(d, dtype=np.float64)]
    if not any(x):
        return None
    if len(x) > 50:
        return "asymptotic"
    sizes = [abs(v) for v in x]
    if 0.0 not in sizes and len(set(sizes)) == len(sizes):
        return "exact"
    return "permutation" if len(x) <= 13 else "asymptotic"


def permutation_signed_rank_pvalue(y: Sequence[float]) -> float:
    """The two-sided signed-rank p-value of y over all 2**n sign assignments of its
    non-zero values' mid-ranks, t the observed sum of the positive ones' ranks:
    2 min(P(T <= t), P(T >= t)), at most 1 (scipy's permutation test, exact up to 13
    values)."""
    x = [float(v) for v in y if v != 0]
    ranks = stats.rankdata([abs(v) for v in x])
    observed = sum(r for r, v in zip(ranks, x) if v > 0)
    sums = [sum(r for r, s in zip(ranks, signs) if s)
            for signs in itertools.product((False, True), repeat=len(x))]
    below = sum(1 for v in sums if v <= observed)
    above = sum(1 for v in sums if v >= observed)
    return min(1.0, 2.0 * min(below, above) / len(sums))


def hodges_lehmann_interval(d: np.ndarray, confidence: float = 0.95
                            ) -> tuple[float, float, float]:
    """The Hodges-Lehmann shift of d and the interval of the shifts its signed-rank test
    does not reject, both of the non-zero differences x (the test drops the zero ones; so
    does R's wilcox.test, for its estimate and interval too).

    The shift is the median of x's Walsh averages (x_i + x_j) / 2, i <= j. The test of
    x - delta, under the distribution scipy took for d (:func:`wilcoxon_distribution`), is
    constant between two adjacent Walsh averages: it is taken at one shift in each such
    gap and beyond each end (by scipy; by :func:`permutation_signed_rank_pvalue` for the
    permutation distribution, which scipy takes seconds for), and the interval runs from
    the Walsh average that opens the first gap not rejected (p >= 1 - confidence) to the
    one that closes the last (-inf or inf for an unbounded gap). A d without a non-zero
    difference gives (0, -inf, inf)."""
    x = np.array([v for v in np.asarray(d, dtype=np.float64).tolist() if v != 0.0])
    n = x.size
    if n == 0:
        return 0.0, -np.inf, np.inf
    walsh = sorted((x[i] + x[j]) / 2.0 for i in range(n) for j in range(i, n))
    total = len(walsh)
    estimate = (walsh[(total - 1) // 2] + walsh[total // 2]) / 2.0
    ends = sorted(set(walsh))
    shifts = np.array([ends[0] - 1.0] + [(a + b) / 2.0 for a, b in itertools.pairwise(ends)]
                      + [ends[-1] + 1.0])
    distribution = wilcoxon_distribution(d)
    if distribution == "permutation":
        p = [permutation_signed_rank_pvalue(x - shift) for shift in shifts]
    else:
        p = stats.wilcoxon(x[None, :] - shifts[:, None], zero_method="wilcox",
                           method=distribution, alternative="two-sided", axis=1).pvalue
    kept = [g for g, value in enumerate(p) if value >= 1.0 - confidence]
    if not kept:  # all of x one value: only the shift by it is not rejected
        return estimate, ends[0], ends[-1]
    low = -np.inf if kept[0] == 0 else ends[kept[0] - 1]
    high = np.inf if kept[-1] == len(ends) else ends[kept[-1]]
    return estimate, low, high


def delong_interval(d: np.ndarray, confidence: float = 0.95) -> tuple[float, float, float]:
    """mean(d) and mean(d) +- z sqrt(sum((d - mean)**2) / (K (K - 1))), the interval of
    DeLong's statistic on K clusters' differences (:func:`delong_pvalue`)."""
    x = [float(v) for v in np.asarray(d, dtype=np.float64)]
    k = len(x)
    mean = sum(x) / k if k else 0.0
    if k < 2:
        return mean, -np.inf, np.inf
    half = stats.norm.isf((1.0 - confidence) / 2.0) * (
        sum((v - mean) ** 2 for v in x) / (k * (k - 1))) ** 0.5
    return mean, mean - half, mean + half


def rank_intervals(x: np.ndarray, *, higher_is_better: bool = True,
                   n_resamples: int = 1_000, seed: int = 0, confidence: float = 0.95,
                   threshold: float = 1e-3) -> tuple[list[int], list[int], float]:
    """Simultaneous rank intervals of the N systems (columns of x, n units x N), 1 = best,
    by Mogstad, Romano, Shaikh and Wilhelm's procedure with the max-|t| bootstrap:

    * se_jk = sd(x_j - x_k) / sqrt(n), sd with n - 1 in the denominator;
    * for each of the resamples of :func:`bootstrap_resamples`, the largest over pairs with
      se_jk > 0 of |(m*_j - m*_k) - (m_j - m_k)| / se_jk (m the means, m* the resample's);
    * c the ceil(confidence B)-th smallest of the B maxima;
    * k is ahead of j when it leads by more than c se_jk and more than ``threshold``; j's
      interval is [1 + #ahead of j, N - #behind j]."""
    x = np.asarray(x, dtype=np.float64)
    n, m = x.shape
    if n < 2:
        return [1] * m, [m] * m, float("inf")
    means = x.mean(axis=0)
    se = np.zeros((m, m))
    for j in range(m):
        for k in range(m):
            if j != k:
                se[j, k] = np.std(x[:, j] - x[:, k], ddof=1) / np.sqrt(n)
    draws = []
    for idx in bootstrap_resamples(n, n_resamples, seed):
        dev = x[idx].mean(axis=0) - means
        worst = 0.0
        for j in range(m):
            for k in range(j + 1, m):
                if se[j, k] > 0:
                    worst = max(worst, abs(dev[j] - dev[k]) / se[j, k])
        draws.append(worst)
    c = sorted(draws)[int(np.ceil(confidence * len(draws))) - 1]
    sign = 1.0 if higher_is_better else -1.0
    best, worst_rank = [], []
    for j in range(m):
        ahead = sum(1 for k in range(m) if k != j
                    and sign * (means[k] - means[j]) > max(c * se[j, k], threshold))
        behind = sum(1 for k in range(m) if k != j
                     and sign * (means[j] - means[k]) > max(c * se[j, k], threshold))
        best.append(1 + ahead)
        worst_rank.append(m - behind)
    return best, worst_rank, float(c)


__all__ = [
    "bootstrap_mean_interval", "bootstrap_resamples", "clustered_differences",
    "delong_components", "delong_interval", "delong_pvalue", "exact_sign_flip_pvalue",
    "hodges_lehmann_interval", "holm", "monte_carlo_sign_flip_pvalue",
    "permutation_signed_rank_pvalue", "rank_intervals", "sign_flip_distribution",
    "stratified_differences", "wilcoxon_distribution", "wilcoxon_pvalue",
]
