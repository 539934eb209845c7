"""Tests of leaderboard.publish.stats: the tests against scipy, determinism, Holm, tiering."""

from __future__ import annotations

import itertools
import math
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from leaderboard.publish.stats.tiers import compare_pair, tier_view, tiering_work
from leaderboard.publish.stats.significance.api import (
    holm,
    paired_randomization_test,
    wilcoxon_test,
)
from leaderboard.publish.stats.significance import api as sig
# engine modules, for tests of their internals (the figures are checked through sig)
from leaderboard.publish.stats.significance import (binomial, bootstrap, dispatch, enumeration,
                                            fixedpoint, order_stats, reference, subgroup)

R = sig.DEFAULT_RESAMPLES


def _mean_diff(x, y, axis=-1):
    return np.mean(x - y, axis=axis)


def _scipy_randomization(a, b, n_resamples, seed=None):
    return stats.permutation_test((a, b), _mean_diff, permutation_type="samples",
                                  vectorized=True, n_resamples=n_resamples,
                                  alternative="two-sided", rng=seed).pvalue


def _exact_by_halves(d: np.ndarray) -> float:
    """Exact two-sided sign-flip p-value for n up to ~34 by meeting in the middle.

    Independent of the code under test: integer data, all 2**n sums from two halves,
    counting pairs with |left + right| >= |observed| by binary search.
    """
    d = np.asarray(d, dtype=np.int64)
    half = d.size // 2

    def sums(part):
        signs = np.array(list(itertools.product((1, -1), repeat=part.size)), dtype=np.int64)
        return signs @ part

    left, right = sums(d[:half]), np.sort(sums(d[half:]))
    t = abs(int(d.sum()))
    ge = right.size - np.searchsorted(right, t - left, side="left")  # left + right >= t
    le = np.searchsorted(right, -t - left, side="right")  # left + right <= -t
    count = ge + le - (np.where(t == 0, np.searchsorted(right, -left, side="right")
                                - np.searchsorted(right, -left, side="left"), 0))
    return float(count.sum()) / 2.0 ** d.size


# --- randomization test --------------------------------------------------------------


@pytest.mark.parametrize("n,seed", [(6, 0), (11, 1), (15, 2), (17, 3)])
def test_exact_randomization_matches_scipy_exact(n, seed):
    rng = np.random.default_rng(seed)
    a = rng.random(n)
    b = np.clip(a + rng.normal(0.05, 0.15, n), 0, 1)
    ours = paired_randomization_test(a, b)
    theirs = _scipy_randomization(a, b, np.inf)  # scipy enumerates all 2**n as well
    assert 0.0 < theirs < 1.0
    assert ours == pytest.approx(theirs, abs=1e-12)
    assert ours * 2**n == pytest.approx(round(ours * 2**n), abs=1e-6)  # a multiple of 2**-n


@pytest.mark.parametrize("denominator", [10, 11, 13])
def test_exact_randomization_counts_float_ties(denominator):
    # k/10 lies on the 1/2520 grid (exact integers); k/11 and k/13 do not, and their float
    # sums tie only approximately (1/11 + 2/11 != 3/11 in binary): the tie tolerance must
    # count every assignment that ties in exact arithmetic, as the integer data does.
    rng = np.random.default_rng(7)
    numerators = rng.integers(-3, 4, size=16)
    d = numerators / denominator
    expected = sum(
        abs(int(np.dot(s, numerators))) >= abs(int(numerators.sum()))
        for s in itertools.product((1, -1), repeat=16)) / 2**16
    assert paired_randomization_test(d, np.zeros(16)) == expected


@pytest.mark.parametrize("n,seed", [(30, 11), (47, 12)])
def test_monte_carlo_randomization_matches_scipy(n, seed):
    rng = np.random.default_rng(seed)
    a = rng.random(n)
    b = np.clip(a + rng.normal(0.03, 0.2, n), 0, 1)
    ours = paired_randomization_test(a, b, seed=seed)
    theirs = _scipy_randomization(a, b, R, seed=seed)
    assert 0.02 < theirs < 0.98
    # our estimate has variance p(1-p)/R, scipy's 2*min(one-sided) has about p(2-p)/R
    sd = np.sqrt((theirs * (1 - theirs) + theirs * (2 - theirs)) / R)
    assert abs(ours - theirs) < 5 * sd


@pytest.mark.parametrize("seed", [0, 1])
def test_monte_carlo_randomization_close_to_exact_value(seed):
    # integer scores in [-3, 3], n = 30: the exact p-value is computable by halves
    rng = np.random.default_rng(100 + seed)
    d = rng.integers(-3, 4, size=30)
    exact = _exact_by_halves(d)
    assert 0.01 < exact < 0.99
    ours = paired_randomization_test(d / 4.0, np.zeros(30), seed=seed)
    assert abs(ours - exact) < 5 * np.sqrt(exact * (1 - exact) / R) + 1 / R


def test_monte_carlo_p_value_counts_the_observed_assignment():
    # better on every one of 30 queries: only the identity (and its mirror image) reach the
    # observed |mean|; the chance of a random hit is 2**-29, so only the observed
    # assignment counts. Continuous differences take the random subgroup, which holds the
    # identity among its 2**17 elements: p = 2**-17. Two magnitudes on the grid take the
    # binomial draws, the observed assignment counted as one more draw: 1 / (R + 1).
    rng = np.random.default_rng(5)
    continuous = 0.5 + rng.uniform(0.0, 0.01, 30)
    two_magnitudes = np.where(np.arange(30) % 2 == 0, 0.5, 0.25)
    assert paired_randomization_test(continuous, np.zeros(30), seed=5) == 2.0**-17
    assert paired_randomization_test(two_magnitudes, np.zeros(30), seed=5) == 1 / (R + 1)
    # one magnitude (0/1 metrics) has the exact binomial p-value instead: 2 * 2**-30
    same = paired_randomization_test(np.full(30, 0.7), np.full(30, 0.2), seed=5)
    assert same == pytest.approx(2.0**-29, rel=1e-12)


def test_subgroup_is_a_group_of_distinct_random_assignments():
    n, reps = 50, 1000
    sub = subgroup.Subgroup(n, reps, 3)
    assert sub.k == 10 and sub.size == 1024 >= reps + 1  # 2**k - 1 >= n_resamples
    signs = subgroup.parity_signs(sub.codes, sub.k)  # (2**k x n)
    assert np.all(signs[0] == 1)  # element 0 is the identity
    # row J, column i is (-1) ** popcount(c_i & J), whatever way the table is built
    odd = np.bitwise_count(np.arange(sub.size)[:, None] & sub.codes[None, :]) & 1
    assert np.array_equal(signs, 1.0 - 2.0 * odd)
    assert np.array_equal(subgroup.parity_signs(sub.codes, 4, np.int8), signs[:16])
    assert np.unique(signs, axis=0).shape[0] == sub.size  # all distinct: codes of full rank
    # closed under composition: s_J * s_K = s_(J xor K)
    j, k = np.random.default_rng(0).integers(0, sub.size, (2, 200))
    assert np.array_equal(signs[j] * signs[k], signs[j ^ k])
    # the same seed and n give the same codes; another seed others
    sig.clear_caches()
    assert np.array_equal(subgroup.Subgroup(n, reps, 3).codes, sub.codes)
    assert not np.array_equal(subgroup.Subgroup(n, reps, 4).codes, sub.codes)
    # k never exceeds n, and rank-deficient codes are redrawn
    assert subgroup.Subgroup(21, 10**7, 0).k == 21
    assert not subgroup.full_rank(np.array([1, 2, 3]), 3)
    assert subgroup.full_rank(np.array([1, 2, 4]), 3)


def test_subgroup_of_full_rank_n_is_the_whole_group():
    # with 2**n - 1 random assignments asked for, the subgroup is every sign flip: the
    # p-value is the exact one, off the grid as on it
    rng = np.random.default_rng(31)
    exacts = []
    for _ in range(3):
        d = rng.integers(-4, 5, size=21)
        exacts.append(_exact_by_halves(d))
        columns = np.column_stack([d / 7.0, d / 4.0])  # off the 1/2520 grid, and on it
        ours = sig.randomization_pvalues(columns, n_resamples=2**21 - 1, seed=1, route="subgroup")
        assert ours.tolist() == [exacts[-1]] * 2
    assert min(exacts) < 0.5  # not only the trivial p = 1


def test_subgroup_p_value_is_as_precise_as_independent_draws():
    # Over many seeds the subgroup's p-value must centre on the exact p-value with the
    # spread of 2**k - 1 independent draws: its assignments are uniform and pairwise
    # independent. A subgroup of too low rank, or correlated assignments, would inflate
    # the spread.
    rng = np.random.default_rng(33)
    d = rng.integers(-3, 4, size=30)
    exact = _exact_by_halves(d)
    assert 0.2 < exact < 0.8
    reps, seeds = 1023, 400
    column = (d / 5.0)[:, None]
    p = np.array([sig.randomization_pvalues(column, n_resamples=reps, seed=s, route="subgroup")[0]
                  for s in range(seeds)])
    # p = (1 + count of 1023 random assignments) / 1024
    draws = p * 1024 - 1
    mean, var = draws.mean() / reps, draws.var(ddof=1) / reps**2
    expected_var = exact * (1 - exact) / reps
    assert abs(mean - exact) < 4 * np.sqrt(expected_var / seeds)
    # the sample variance of 400 values is within about +-14% (2 standard errors)
    assert 0.75 < var / expected_var < 1.3
def test_monte_carlo_is_deterministic_and_seeded():
    rng = np.random.default_rng(3)
    a, b = rng.random(40), rng.random(40)
    first = paired_randomization_test(a, b, seed=42)
    sig.clear_caches()
    assert paired_randomization_test(a, b, seed=42) == first
    other = paired_randomization_test(a, b, seed=43)
    assert abs(other - first) < 0.02  # different draws, same p-value up to MC error


def test_monte_carlo_independent_of_threads_and_chunking(monkeypatch):
    # counts are exact integers, so neither BLAS threads nor the split of the work matter
    threadpoolctl = pytest.importorskip("threadpoolctl")
    rng = np.random.default_rng(4)
    d = np.column_stack([rng.normal(0.02, 0.2, 90), rng.choice([0.1, -0.2, 0.3], 90),
                         rng.integers(-1, 2, 90).astype(float)])
    reference = sig.randomization_pvalues(d, seed=9)
    with threadpoolctl.threadpool_limits(1):
        sig.clear_caches()
        single = sig.randomization_pvalues(d, seed=9)
    with sig.EXECUTOR.configured(blas_control=False):  # no threadpoolctl: serial chunks
        serial = sig.randomization_pvalues(d, seed=9)
    with sig.EXECUTOR.configured(blas_control=False, chunk_bytes=1 << 12):
        chunked = sig.randomization_pvalues(d, seed=9)
    assert np.array_equal(reference, single)
    assert np.array_equal(reference, serial)
    assert np.array_equal(reference, chunked)


def test_bootstrap_independent_of_threads_and_chunking(monkeypatch):
    rng = np.random.default_rng(14)
    d = np.column_stack([rng.normal(0.02, 0.2, 700), rng.choice([0.1, -0.2, 0.3], 700),
                         rng.integers(-1, 2, 700).astype(float),
                         np.subtract(*_rr_pair(700, rng))])
    reference = sig.bootstrap_mean_ci(d, seed=9)
    with sig.EXECUTOR.configured(workers=1):
        serial = sig.bootstrap_mean_ci(d, seed=9)
    with sig.EXECUTOR.configured(workers=3, chunk_bytes=1 << 14):
        chunked = sig.bootstrap_mean_ci(d, seed=9)
    for other in (serial, chunked):
        assert np.array_equal(reference[0], other[0]) and np.array_equal(reference[1], other[1])


@pytest.mark.parametrize("kind", ["continuous", "grid", "repeated"])
def test_counts_equal_brute_force_over_the_same_assignments(kind):
    # the enumeration (meeting in the middle) must count what brute force over all 2**n
    # sign flips counts, and the subgroup's transform what brute force over its elements
    rng = np.random.default_rng(8)
    n, m = 18, 12
    if kind == "continuous":
        d = rng.normal(0.01, 0.2, (n, m))
    elif kind == "grid":
        d = 1 / rng.integers(1, 11, (n, m)) - 1 / rng.integers(1, 11, (n, m))
    else:
        d = rng.choice([0.1, 0.2, -0.3, 1 / 3, -1 / 7, 0.0], (n, m))
    d[:, 0] = 0.0  # identical systems
    observed = np.abs(d.sum(axis=0))
    slack = sig.TIE_RTOL * np.abs(d).sum(axis=0)
    # in float64 the sums carry ~1e-15 relative error, far inside the 1e-12 tolerance
    signs = np.array(list(itertools.product([1.0, -1.0], repeat=n)))  # (2**n x n)
    counts = (np.abs(signs @ d) >= observed - slack).sum(axis=0)
    assert np.array_equal(sig.randomization_pvalues(d), counts / 2.0**n)

    big = np.vstack([d, d[::-1] * 0.5, d * 0.25])  # 54 queries: Monte-Carlo
    reps = 4095
    sub = subgroup.Subgroup(big.shape[0], reps, 1)
    elements = subgroup.parity_signs(sub.codes, sub.k)  # (2**k x n)
    observed = np.abs(big.sum(axis=0))
    slack = sig.TIE_RTOL * np.abs(big).sum(axis=0)
    counts = (np.abs(elements @ big) >= observed - slack).sum(axis=0)
    fast = sig.randomization_pvalues(big, n_resamples=reps, seed=1, route="subgroup")
    assert np.array_equal(fast, counts / sub.size)
    assert fast[0] == 1.0


def test_means_over_tasks_are_found_on_their_finer_grid():
    rng = np.random.default_rng(12)
    n = 150
    rr = RR_VALUES[rng.integers(0, 11, (11, n, 2))]  # RR@10 of two systems on 11 tasks
    r1 = rng.integers(0, 2, (132, n, 2)).astype(float)  # R@1 on 132 tasks
    d = np.column_stack([
        rr.mean(axis=0) @ [1.0, -1.0],                     # RR@10 mean over 11 tasks
        r1.mean(axis=0) @ [1.0, -1.0],                     # R@1 mean over 132 tasks
        rng.normal(0.0, 0.1, n),                           # continuous
        np.r_[np.zeros(16), rng.normal(0.0, 0.1, n - 16)],  # continuous after 16 ties
        np.r_[np.zeros(16), np.full(n - 16, 1 / 11)],      # 1/2520 fits the first rows only
        np.r_[np.full(n - 1, 1 / 7), 1 / 3]])               # 1/2520
    on_grid, sizes, ints = fixedpoint.grid_columns(d)
    assert on_grid.tolist() == [True, True, False, False, False, True]
    # the smallest grid: lcm(2520, 132) = 2520 * 11
    assert sizes.tolist() == [2520 * 11, 2520 * 11, 2520, 2520, 2520, 2520]
    assert np.array_equal(ints, np.rint(d[:, on_grid] * sizes[on_grid]))
    assert np.allclose(ints / sizes[on_grid], d[:, on_grid], rtol=0, atol=1e-15)


def test_grid_columns_with_many_magnitudes_take_the_subgroup(monkeypatch):
    # R@1 averaged over 132 tasks takes few magnitudes: binomial draws; RR@10 averaged over
    # 11 tasks takes nearly one magnitude per query: the random subgroup
    rng = np.random.default_rng(13)
    n = 60
    few = (rng.integers(0, 3, n) - rng.integers(0, 3, n)) / 132 + 0.01
    many = rng.permutation(np.arange(1, n + 1)) / (2520 * 11) + (rng.random(n) < 0.5) / 11
    for d, avoided in ((few, "subgroup"), (many, "binomial")):
        d = d[:, None]
        assert fixedpoint.grid_columns(d)[0][0]
        expected = sig.randomization_pvalues(d, n_resamples=20_000, seed=4)
        with monkeypatch.context() as patch:
            patch.setitem(dispatch.ROUTES, avoided,
                          lambda *a, **k: pytest.fail(f"{avoided} called"))
            assert np.array_equal(sig.randomization_pvalues(d, n_resamples=20_000, seed=4),
                                  expected)
    # either way the p-value estimates the exact one
    d = (rng.integers(-2, 3, 30) / 11)[:, None]
    exact = _exact_by_halves(np.rint(d[:, 0] * 11).astype(int))
    ours = sig.randomization_pvalues(d, seed=2)[0]
    assert abs(ours - exact) < 5 * np.sqrt(exact * (1 - exact) / R) + 1 / R


def test_identical_systems_give_p_one():
    x = np.random.default_rng(0).random(25)
    assert paired_randomization_test(x, x) == 1.0
    assert paired_randomization_test(x[:9], x[:9]) == 1.0
    assert wilcoxon_test(x, x) == 1.0


def test_better_on_every_query_is_significant():
    rng = np.random.default_rng(1)
    b = rng.random(30) * 0.5
    a = b + rng.uniform(0.01, 0.3, 30)
    assert paired_randomization_test(a, b) < 0.001
    assert wilcoxon_test(a, b) < 0.001
    assert paired_randomization_test(b, a) < 0.001  # two-sided


def test_randomization_rejects_bad_input():
    with pytest.raises(ValueError):
        paired_randomization_test([0.1, 0.2], [0.1])
    with pytest.raises(ValueError):
        paired_randomization_test([0.1, float("nan")], [0.1, 0.2])
    with pytest.raises(ValueError):
        paired_randomization_test([0.1] * 30, [0.2] * 30, seed=-1)
    with pytest.raises(ValueError):
        paired_randomization_test([0.1] * 30, [0.2] * 30, n_resamples=0)


# --- randomization on the grid: binomial Monte-Carlo and exact single magnitude -------

RR_VALUES = np.array([0.0] + [1.0 / r for r in range(1, 11)])  # RR@10's value set


def _rr_pair(n, rng, better=0.0):
    """Per-query RR@10 of two systems, the first a bit better when ``better`` > 0."""
    p_a, p_b = 0.45 + better, 0.45
    ranks = rng.geometric([p_a, p_b], size=(n, 2))
    x = np.where(ranks <= 10, 1.0 / ranks, 0.0)
    return x[:, 0], x[:, 1]


def _exact_survival(d_int):
    """P(|sum s_i d_i| >= t) for every integer t from 0 to sum|d|, by enumeration."""
    signs = np.array(list(itertools.product((1, -1), repeat=d_int.size)), dtype=np.int64)
    totals = np.abs(signs @ d_int)
    hist = np.bincount(totals, minlength=int(np.abs(d_int).sum()) + 2)
    return hist[::-1].cumsum()[::-1] / signs.shape[0]


@pytest.mark.parametrize("seed", [0, 1])
def test_binomial_monte_carlo_has_the_sign_flip_distribution(seed):
    # The binomial draws must be distributed as flipping each query's sign: one column
    # repeated with every threshold gives the empirical survival function of |T| from the
    # same draws; compare it with enumeration of all 2**16 assignments.
    rng = np.random.default_rng(40 + seed)
    d_int = rng.choice([-3, -2, -1, 0, 1, 2, 3, 5], size=16).astype(np.int64)
    d_int[:3] = [5, 5, -5]  # repeated magnitudes, as on the grid
    exact = _exact_survival(d_int)
    l1 = int(np.abs(d_int).sum())
    thresholds = np.arange(1, l1 + 1, dtype=np.float64)
    reps = 40_000
    cols = np.repeat(d_int[:, None].astype(np.float64), thresholds.size, axis=1)
    counts = binomial.binomial_counts(cols, np.full(thresholds.size, float(l1)), thresholds,
                                  reps, seed)
    empirical = counts / reps
    truth = exact[1:l1 + 1]
    sd = np.sqrt(truth * (1 - truth) / reps)
    assert np.all(np.abs(empirical - truth) <= 5 * sd + 1 / reps)
    assert np.all(np.diff(counts) <= 0)  # one set of draws: a survival function


@pytest.mark.parametrize("n,seed,better", [(40, 21, 0.05), (150, 22, 0.01)])
def test_binomial_monte_carlo_matches_scipy(n, seed, better):
    rng = np.random.default_rng(seed)
    a, b = _rr_pair(n, rng, better=better)
    ours = paired_randomization_test(a, b, seed=seed)
    theirs = _scipy_randomization(a, b, R, seed=seed)
    assert 0.01 < theirs < 0.99
    sd = np.sqrt((theirs * (1 - theirs) + theirs * (2 - theirs)) / R)
    assert abs(ours - theirs) < 5 * sd


def test_binomial_monte_carlo_agrees_with_the_subgroup_over_many_queries():
    # 8,000 queries of RR@10 differences plus small integers (on the grid, gcd 1):
    # sum(|d|) * 2520 passes 2**24, so the limb-split product is used
    rng = np.random.default_rng(9)
    a, b = _rr_pair(8000, rng, better=0.004)
    shift = rng.choice([-2.0, -1.0, 0.0, 1.0, 2.0], size=(8000, 1))
    d = np.column_stack([a - b, np.roll(a, 1) - b]) + shift
    d_int, l1, on_grid = fixedpoint.fixed_point(d)
    assert on_grid.all() and l1.min() > 2**24
    reps = 20_000
    ours = sig.randomization_pvalues(d, seed=3, n_resamples=reps)
    reference = sig.randomization_pvalues(d, seed=4, n_resamples=reps, route="subgroup")
    assert np.all((reference > 0.01) & (reference < 0.99))
    sd = np.sqrt(reference * (1 - reference) / reps)
    assert np.all(np.abs(ours - reference) < 6 * sd)


def test_binomial_limb_split_is_exact(monkeypatch):
    # forcing many small limbs must give the very same counts as one float32 product
    rng = np.random.default_rng(11)
    d = np.column_stack([np.subtract(*_rr_pair(300, rng, better=0.03)) for _ in range(4)])
    reference = sig.randomization_pvalues(d, seed=2)
    monkeypatch.setattr(binomial, "F32_EXACT", float(2**12))
    assert np.array_equal(sig.randomization_pvalues(d, seed=2), reference)


def test_binomial_monte_carlo_is_deterministic_and_seeded():
    rng = np.random.default_rng(12)
    d = np.column_stack([np.subtract(*_rr_pair(200, rng, better=0.02)) for _ in range(5)])
    first = sig.randomization_pvalues(d, seed=7)
    sig.clear_caches()
    assert np.array_equal(sig.randomization_pvalues(d, seed=7), first)
    # a column's p-value depends on that column alone, not on the others in the call
    assert sig.randomization_pvalues(d[:, [2]], seed=7)[0] == first[2]
    other = sig.randomization_pvalues(d, seed=8)
    assert not np.array_equal(other, first)
    assert np.all(np.abs(other - first) < 0.02)


@pytest.mark.parametrize("n", [12, 20, 45, 300])
def test_single_magnitude_p_value_is_the_exact_sign_test(n):
    rng = np.random.default_rng(n)
    a = (rng.random(n) < 0.6).astype(float)  # R@1 / accuracy: 0 or 1 per query
    b = (rng.random(n) < 0.45).astype(float)
    p = paired_randomization_test(a, b)
    wins, losses = int(np.sum(a > b)), int(np.sum(a < b))
    expected = stats.binomtest(wins, wins + losses, 0.5).pvalue
    assert p == pytest.approx(expected, rel=1e-9)
    if n <= sig.EXACT_MAX_QUERIES:  # the closed form equals the enumeration
        d_int, l1, _ = fixedpoint.fixed_point((a - b)[:, None])
        thr = fixedpoint.thresholds(d_int, l1)
        closed = enumeration.single_magnitude_pvalues(np.abs(d_int), np.abs(d_int).max(axis=0), thr)
        assert closed[0] == pytest.approx(p, rel=1e-12)


def test_grid_metrics_identical_and_uniformly_better():
    rng = np.random.default_rng(13)
    a, b = _rr_pair(30, rng)
    assert paired_randomization_test(a, a) == 1.0
    better = b + rng.integers(1, 100, 30) / 2520  # better on every query, on the grid
    assert paired_randomization_test(better, b) < 0.001
    assert paired_randomization_test(np.ones(30), np.zeros(30)) < 0.001  # R@1


# --- Wilcoxon ------------------------------------------------------------------------


@pytest.mark.parametrize("n,zeros,seed", [(10, 0, 0), (12, 3, 1), (40, 0, 2), (43, 12, 3),
                                          (52, 20, 4)])
def test_wilcoxon_matches_scipy(n, zeros, seed):
    rng = np.random.default_rng(seed)
    a = rng.uniform(-1, 1, n)
    b = np.clip(a + rng.normal(0.1, 0.3, n), -1, 1)
    b[:zeros] = a[:zeros]
    expected = stats.wilcoxon(a, b, zero_method="wilcox").pvalue
    assert wilcoxon_test(a, b) == expected


@pytest.mark.parametrize("n", [8, 14, 30, 50, 51, 123])
def test_wilcoxon_columns_equal_one_call_per_pair(n):
    # grouped vectorised calls must give scipy's per-pair floats: exact distribution
    # (no zeros, no ties), permutation (n <= 13 with zeros or ties), normal approximation
    rng = np.random.default_rng(n)
    d = np.round(rng.uniform(-1, 1, (n, 24)), 8)
    d[:, 8:16] = np.round(d[:, 8:16], 1)  # ties
    d[rng.random((n, 24)) < np.where(np.arange(24) >= 16, 0.2, 0.0)] = 0.0  # zeros
    d[:, 23] = 0.0  # identical systems
    vectorised = sig.wilcoxon_pvalues(d)
    per_pair = [wilcoxon_test(d[:, j], np.zeros(n)) for j in range(24)]
    assert vectorised.tolist() == per_pair
    assert vectorised[23] == 1.0


def test_test_for_metric():
    assert sig.test_for_metric("p-MRR") == "wilcoxon"
    assert sig.test_for_metric("altered/p-MRR") == "wilcoxon"
    for metric in ("nDCG@10", "original/nDCG@10", "AP@1000", "R@10", "RR@10", "IRS",
                   "altered/nDCG@10", "Accuracy", "Balanced accuracy"):
        assert sig.test_for_metric(metric) == "randomization"
    assert sig.test_for_metric("AUROC") == "delong"


def test_the_test_is_the_measures_as_the_catalogue_declares_it(monkeypatch) -> None:
    """Which test a metric gets is its measure's (``Measure.test``), not its key's
    spelling: a key was matched by its ending (``endswith("p-mrr")``, ``"auroc"``), so a
    measure declared with its own test got sign flips, and a key no measure names got a
    test anyway. A column averaging several keys takes its measures' one test."""
    from dataclasses import replace

    from leaderboard.benchmarks import all_views
    from leaderboard.benchmarks.views import column
    from leaderboard.core.measures import MEASURES, Measure, UnknownMeasureError

    monkeypatch.setitem(MEASURES, "Toy change", Measure(
        name="Toy change", title="a toy change score", kernel="instruction", low=-1.0,
        help="toy", test="wilcoxon"))
    assert sig.test_for_metric("Toy change") == "wilcoxon"
    assert sig.test_for_metric("altered/Toy change") == "wilcoxon"
    scores = {"a": {"q1": 0.2, "q2": -0.1, "q3": 0.4}, "b": {"q1": 0.1, "q2": 0.0, "q3": 0.3}}
    assert tier_view(scores, "Toy change", ranks=False).test == "wilcoxon"
    assert compare_pair(scores["a"], scores["b"], "Toy change").test == "wilcoxon"
    with pytest.raises(UnknownMeasureError, match="'my-auroc'"):
        sig.test_for_metric("my-auroc")
    # FollowIR's Score: MAP@1000 on two collections and nDCG@5 on the third, one test
    score = next(c for c in all_views()["followir/average"].columns if c.id == "score")
    assert score.metric == "headline" and score.test == "randomization"
    assert tier_view(scores, score.metric, ranks=False, test=score.test).test == \
        "randomization"
    mixed = replace(column(("followir/core17", "followir/news21"), "p-MRR", "mixed"),
                    task_metrics=("p-MRR", "nDCG@5"))
    with pytest.raises(ValueError, match="different tests"):
        mixed.test


# --- Holm ----------------------------------------------------------------------------


def test_holm_known_values():
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm([0.5]) == [0.5]
    assert holm([]) == []
    with pytest.raises(ValueError):
        holm([0.2, 1.5])


def test_holm_at_floors_takes_each_p_at_its_floor_and_says_which_are_bounds():
    """A raw p at or below its test's floor prints "≤ 1e-5", but Holm took the raw value
    and its adjusted p printed as a number: compare's WTR nDCG@10 "≤ 1e-5" beside
    p(Holm) "2.3e-5" (3 x 7.6e-6, the subgroup's smallest p), the downloads p_value 1e-5
    beside p_adjusted 1.53e-5. Holm runs on the p-values raised to their floors, and an
    adjusted value whose step-down maximum rests only on such a p is an upper bound."""
    floor = 1e-5
    adjusted, bounds = sig.holm_at_floors([7.6e-6, 1e-12, 0.0061, 1.2e-5], [floor] * 4)
    # 4 x 1e-5 and 3 x 1e-5 as written (not 4.000...01e-05); 2 x 1.2e-5 is under the first
    assert adjusted == [4e-05, 4e-05, 0.0061, 4e-05]
    assert bounds == [True, True, False, True]
    # an exact p whose own term is the maximum is exact, whatever is at the floor before it
    assert sig.holm_at_floors([1e-12, 2.5e-5, 0.5], [floor] * 3) == (
        [3e-05, 5e-05, 0.5], [True, False, False])
    assert sig.holm_at_floors([0.3, 0.2], [floor] * 2) == (holm([0.3, 0.2]), [False, False])
    # each p at its own floor (compare's family mixes tests)
    assert sig.holm_at_floors([1e-9, 1e-9], [1e-5, 2 ** -9]) == (
        [2e-05, 2 ** -9], [True, True])
    assert sig.holm_at_floors([], []) == ([], [])
    with pytest.raises(ValueError):
        sig.holm_at_floors([0.1], [])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.floats(min_value=0.0, max_value=1.0),
                          st.sampled_from([1e-5, 2 ** -9, 0.0])), min_size=1, max_size=40))
def test_holm_at_floors_is_the_reference(pairs):
    pvalues, floors = [p for p, _ in pairs], [f for _, f in pairs]
    adjusted, bounds = sig.holm_at_floors(pvalues, floors)
    want, want_bounds = reference.holm_at_floors(pvalues, floors)
    assert adjusted == want and bounds == want_bounds
    assert adjusted == pytest.approx(reference.holm([max(p, f) for p, f in pairs]),
                                     rel=1e-15, abs=0)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.floats(min_value=0.0, max_value=1.0), min_size=1, max_size=40))
def test_holm_never_lowers_and_keeps_order(pvalues):
    adjusted = holm(pvalues)
    assert len(adjusted) == len(pvalues)
    assert adjusted == reference.holm(pvalues)
    for p, q in zip(pvalues, adjusted, strict=True):
        assert p <= q <= 1.0
    for i, j in itertools.combinations(range(len(pvalues)), 2):
        if pvalues[i] <= pvalues[j]:
            assert adjusted[i] <= adjusted[j]
        if pvalues[i] == pvalues[j]:
            assert adjusted[i] == adjusted[j]


# --- bootstrap interval --------------------------------------------------------------


@pytest.mark.parametrize("kind", ["continuous", "grid", "mean over 11 tasks"])
def test_bootstrap_interval_matches_numpy_percentile(kind):
    rng = np.random.default_rng(2)
    n, reps = 80, 4000
    if kind == "continuous":
        d = rng.normal(0.03, 0.2, (n, 3))
    elif kind == "grid":  # RR@10 differences: the single-product path
        d = 1 / rng.integers(1, 4, (n, 3)) - 1 / rng.integers(1, 11, (n, 3))
    else:  # R@1 averaged over 11 tasks: on the 1/(2520 * 11) grid
        d = (rng.integers(0, 12, (n, 3)) - rng.integers(0, 12, (n, 3))) / 11
        assert fixedpoint.grid_columns(d)[0].all()
    lo, hi = sig.bootstrap_mean_ci(d, n_resamples=reps, seed=5)
    counts = bootstrap.bootstrap_counts(n, reps, 5).astype(np.float64)  # (n x B)
    means = d.T @ counts / n
    ref_lo, ref_hi = np.quantile(means, [0.025, 0.975], axis=1)
    assert np.allclose(lo, ref_lo, rtol=0, atol=1e-9)
    assert np.allclose(hi, ref_hi, rtol=0, atol=1e-9)
    assert np.all(lo < d.mean(axis=0)) and np.all(d.mean(axis=0) < hi)
    width = hi - lo  # about 2 * 1.96 * sd / sqrt(n)
    assert np.allclose(width, 3.92 * d.std(axis=0) / np.sqrt(n), rtol=0.15)


def test_bootstrap_boundary_path_is_the_bootstrap_of_the_sorted_queries():
    # Few distinct values over many queries: a resample's sum is read off its prefix counts
    # at the value boundaries, which is the same resample applied to the queries in order
    # of value (the draws are exchangeable over positions): exactly equal figures.
    rng = np.random.default_rng(6)
    n, reps = 640, 3000
    d = np.column_stack([
        (rng.random(n) < 0.5) * 1.0 - (rng.random(n) < 0.5),  # R@1 differences
        (rng.random(n) < 0.3) * 2.0,                           # two values
        np.full(n, 0.5),                                       # constant
        np.zeros(n)])
    assert all((np.unique(d[:, j]).size - 1) * bootstrap._BOUNDARY_RATIO <= n for j in range(4))
    lo, hi = sig.bootstrap_mean_ci(d, n_resamples=reps, seed=3)
    counts = bootstrap.bootstrap_counts(n, reps, 3).astype(np.float64)
    means = np.sort(d, axis=0).T @ counts / n
    ref_lo, ref_hi = np.quantile(means, [0.025, 0.975], axis=1)
    # the same resampled means; numpy interpolates the quantile in another order (an ulp)
    assert np.allclose(lo, ref_lo, rtol=0, atol=1e-12)
    assert np.allclose(hi, ref_hi, rtol=0, atol=1e-12)
    # a column's interval does not depend on the other columns of the call
    alone = sig.bootstrap_mean_ci(d[:, [0]], n_resamples=reps, seed=3)
    assert (alone[0][0], alone[1][0]) == (lo[0], hi[0])


@pytest.mark.parametrize("n", [40, 300, 1300])
def test_coarse_sums_give_the_order_statistics_of_the_exact_sums(n, monkeypatch):
    # Off-grid columns: coarse float32 sums over parts of the queries, accumulated in
    # float32, then exact sums only for the resamples near the ranks sought. The ranks
    # must be exactly those of the exact sums, also for rows with many tied coarse sums
    # (summed in full instead).
    rng = np.random.default_rng(n)
    reps = 3000
    d_int = np.column_stack([
        np.rint(rng.normal(0, 2**30, n)),
        np.rint(rng.normal(-2**29, 2**27, n)),         # far from 0: a narrow spread
        np.r_[np.zeros(n - 1), 2.0**31],  # one non-zero value: sums tie in bulk
        np.zeros(n),                      # every sum 0
        rng.integers(-7, 8, n).astype(float)])         # small integers: step 1
    prefix = bootstrap.bootstrap_prefix(n, reps, 4)
    counts = np.diff(prefix, axis=1).T.astype(np.float64)  # (n x B)
    # A column whose residuals reorder the coarse sums near the ranks: residuals of
    # +-(step/2 - 1) and coarse values of spread ~70, so the exact ranks differ from the
    # coarse ones while few enough resamples fall in the window to be summed one by one.
    outlier = np.r_[2.0**24, np.zeros(n - 1)]  # sets the column's largest value and step
    step = order_stats.CoarseSums(outlier[:, None], prefix).step[0]
    v = np.rint(rng.normal(0, 70, n))
    v[0] = 0
    near_half = (step // 2 - 1) * rng.choice([-1.0, 1.0], n)
    d_int = np.column_stack([d_int, outlier + v * step + near_half])
    coarse = order_stats.CoarseSums(d_int, prefix)
    assert coarse.step[-1] == step
    assert len(coarse.parts) == max(1, round(n / order_stats._PART_QUERIES))
    # the coarse sums as the bootstrap accumulates them: part by part, in float32
    h = np.zeros((d_int.shape[1], reps), dtype=np.float32)
    for first, last in coarse.parts:
        h += coarse.weights[:, first:last] @ counts[first:last].astype(np.float32)
    exact_h = coarse.weights.astype(np.float64) @ counts
    assert np.all(np.abs(h - exact_h) <= coarse.eps[:, None])
    low, high = (74, 75), (73, 74)
    h_ranks = np.array(order_stats.tail_order_statistics(h, low, high, integers=True))
    whole = []
    rows = order_stats.CoarseSums._exact_rows
    monkeypatch.setattr(order_stats.CoarseSums, "_exact_rows",
                        lambda self, cols, b: whole.append(cols.tolist()) or rows(self, cols, b))
    got = coarse.exact_ranks(np.arange(d_int.shape[1]), h, h_ranks, low, high)
    ordered = np.sort(d_int.T @ counts, axis=1)  # the exact sums, sorted
    expected = np.array([ordered[:, low[0]], ordered[:, low[1]],
                         ordered[:, reps - 1 - high[0]], ordered[:, reps - 1 - high[1]]])
    assert np.array_equal(got, expected)
    assert whole == [[2, 3]]  # the tied rows only
    coarse_only = np.sort(exact_h * coarse.step[:, None], axis=1)[:, [low[0], low[1]]]
    assert not np.array_equal(coarse_only[-1], expected[:2, -1])  # the residuals mattered
    # and through the interval: numpy's percentile of the resampled means
    d = np.column_stack([rng.normal(0.03, 0.2, n), rng.uniform(-1, 0.2, n)])
    lo, hi = sig.bootstrap_mean_ci(d, n_resamples=reps, seed=4)
    ref_lo, ref_hi = np.quantile(d.T @ counts / n, [0.025, 0.975], axis=1)
    assert np.allclose(lo, ref_lo, rtol=0, atol=1e-9) and np.allclose(hi, ref_hi, rtol=0,
                                                                       atol=1e-9)


@pytest.mark.parametrize("data", ["continuous", "ties", "tiny", "float32", "sample too low",
                                  "sample too high", "constant rows"])
def test_order_statistics_equal_sorting(data, monkeypatch):
    # the interval's order statistics come from sampled thresholds with a fallback to a
    # whole-row partition; either way they must be exactly what sorting gives
    rng = np.random.default_rng(11)
    b = 4000
    x = rng.normal(size=(40, b))
    sample = slice(0, -(-b // order_stats._SELECT_STRIDE))  # the values the thresholds come from
    if data == "ties":  # integer resampled sums with few distinct values
        x = np.round(x * 3)
    elif data == "tiny":
        x = x[:, :5]
        b = 5
    elif data == "float32":  # exact integer sums stored in float32
        x = np.round(x * 1000).astype(np.float32)
    elif data == "sample too low":  # the sample holds the smallest and largest values
        x[:, sample] *= 100.0
    elif data == "sample too high":  # cuts far inside the row: too many candidates
        x[:, sample] /= 100.0
    elif data == "constant rows":  # crossing cuts: each side still a prefix or a suffix
        b = 40  # few resamples: the sample's cuts cross on every row
        x = x[:, :b]
        x[::2] = 1.5
        x[1::4, 3:-3] = -2.0  # all but the ends tied
    ordered = np.sort(x, axis=1).astype(np.float64)
    low = (int(0.025 * (b - 1)), min(int(0.025 * (b - 1)) + 1, b - 1))
    high = (max(low[0] - 1, 0), low[0] + 3)  # other ranks from the top than from the bottom
    expected = [ordered[:, low[0]].tolist(), ordered[:, low[1]].tolist(),
                ordered[:, b - 1 - high[0]].tolist(), ordered[:, b - 1 - high[1]].tolist()]
    got = order_stats.tail_order_statistics(x, low, high)
    assert [a.tolist() for a in got] == expected
    if data in ("ties", "float32"):  # integers: narrow rows are counted, wide ones are not
        counted = order_stats._counted_ranks
        calls = []
        monkeypatch.setattr(order_stats, "_counted_ranks",
                            lambda *a: calls.append(1) or counted(*a))
        got = order_stats.tail_order_statistics(x, low, high, integers=True)
        assert [a.tolist() for a in got] == expected
        assert calls == ([1] if data == "ties" else [])


@pytest.mark.parametrize("spread", [3, 1000, 10**6])
def test_distinct_values_equal_numpy_unique(spread):
    # small spans are counted by bincount, wide ones by sorting every column at once
    rng = np.random.default_rng(spread)
    x = rng.integers(-spread, spread, (57, 23)).astype(float)
    x[:, ::3] = rng.integers(-2, 3, (57, 8))  # narrow columns among wide ones
    x[:, 5] = 7.0  # a constant column
    cols, values, counts = fixedpoint.distinct_values(x)
    expected = [(j, int(v), int(c)) for j in range(x.shape[1])
                for v, c in zip(*np.unique(x[:, j], return_counts=True))]
    assert list(zip(cols.tolist(), values.tolist(), counts.tolist())) == expected


def test_bootstrap_resamples_are_uniform_over_queries():
    counts = bootstrap.bootstrap_counts(50, 4000, 1)
    assert np.all(counts.sum(axis=0) == 50)
    assert abs(counts.mean() - 1.0) < 1e-9 and abs(counts.var() - 0.98) < 0.05


# --- tiering -------------------------------------------------------------------------


def _view(n=30, seed=0, systems=("alpha", "beta", "gamma", "delta")):
    rng = np.random.default_rng(seed)
    qs = [f"q{i}" for i in range(n)]
    base = rng.random(n) * 0.6
    shift = {"alpha": 0.25, "beta": 0.24, "gamma": 0.0, "delta": -0.2}
    return {s: {q: float(np.clip(base[i] + shift.get(s, 0.0) + rng.normal(0, 0.05), 0, 1))
                for i, q in enumerate(qs)} for s in systems}


def test_tier_view_leader_tiers_and_holm_family():
    view = tier_view(_view(), "nDCG@10", seed=1)
    rows = view.by_system()
    assert view.leader == "alpha" and rows["alpha"].tier == "leader"
    assert [c.system for c in view.comparisons] == ["alpha", "beta", "gamma", "delta"]
    assert rows["beta"].tier == "tied with leader"
    assert rows["gamma"].tier == "below leader" and rows["delta"].tier == "below leader"
    tested = [rows[s] for s in ("beta", "gamma", "delta")]
    assert [c.p_adjusted for c in tested] == sig.holm_at_floors(
        [c.p_value for c in tested], [view.p_floor] * 3)[0]
    assert [c.p_adjusted_bound for c in tested] == [c.p_value <= view.p_floor for c in tested]
    for c in tested:
        assert c.test == "randomization" and c.n_units == 30
        assert c.effect == pytest.approx(c.mean_system - c.mean_leader, abs=1e-12)
        assert c.ci_low <= c.effect <= c.ci_high


def test_tier_view_leader_ties_break_by_id_and_direction():
    same = {q: 0.5 for q in ("q1", "q2", "q3")}
    view = tier_view({"zeta": dict(same), "eta": dict(same)}, "nDCG@10")
    assert view.leader == "eta" and view.by_system()["zeta"].p_value == 1.0
    lower = tier_view(_view(), "nDCG@10", higher_is_better=False)
    assert lower.leader == "delta"


def test_tier_view_reported_rows_are_untouched():
    scores = _view()
    plain = tier_view(scores, "nDCG@10", seed=2)
    # a reported row with (impossible) perfect per-query scores must not lead nor count
    scores["paper-model"] = {q: 1.0 for q in scores["alpha"]}
    scores["paper-model"]["extra-query"] = 1.0
    with_reported = tier_view(scores, "nDCG@10", seed=2,
                              reported=["paper-model", "other-paper"])
    assert with_reported.leader == "alpha"
    rows = with_reported.by_system()
    for name in ("paper-model", "other-paper"):
        assert rows[name].tier == "reported"
        assert rows[name].p_value is None and rows[name].mean_system is None
    assert with_reported.comparisons[:4] == plain.comparisons
    assert with_reported.n_units == 30


def test_tier_view_missing_queries_count_as_zero():
    scores = _view()
    scores["gamma"] = {q: v for q, v in scores["gamma"].items() if q not in ("q3", "q7")}
    explicit = _view()
    explicit["gamma"]["q3"] = explicit["gamma"]["q7"] = 0.0
    assert tier_view(scores, "nDCG@10") == tier_view(explicit, "nDCG@10")
    # a query only one system answered enters the universe for everyone
    scores["alpha"]["only-alpha"] = 0.9
    view = tier_view(scores, "nDCG@10")
    assert view.n_units == 31
    rows = view.by_system()
    assert rows["beta"].mean_system == pytest.approx(
        sum(scores["beta"].values()) / 31, abs=1e-12)


def test_tier_view_uses_wilcoxon_for_pmrr():
    scores = _view()
    view = tier_view(scores, "p-MRR")
    qs = sorted(scores["alpha"])
    for c in view.comparisons[1:]:
        a = np.array([scores[c.system][q] for q in qs])
        lead = np.array([scores["alpha"][q] for q in qs])
        assert c.test == "wilcoxon"
        assert c.p_value == stats.wilcoxon(a, lead, zero_method="wilcox").pvalue


def test_compare_pair_reproduces_the_view_figures():
    scores = _view(n=45)
    view = tier_view(scores, "IRS", seed=4)
    row = view.by_system()["beta"]
    pair = compare_pair(scores["beta"], scores["alpha"], "IRS", seed=4,
                        a_name="beta", b_name="alpha")
    assert pair.p_value == row.p_value
    assert (pair.effect, pair.ci_low, pair.ci_high) == (row.effect, row.ci_low, row.ci_high)
    assert pair.n_units == 45 and pair.test == "randomization"


def test_tier_view_same_result_whatever_the_key_order():
    # every mapping in one order takes the bulk path; shuffled orders take the lookup path
    scores = _view(n=40, seed=3)
    canonical = tier_view(scores, "nDCG@10", seed=1)
    rng = np.random.default_rng(0)
    shuffled = {}
    for s, per_query in scores.items():
        keys = list(per_query)
        rng.shuffle(keys)
        shuffled[s] = {q: per_query[q] for q in keys}
    assert tier_view(shuffled, "nDCG@10", seed=1) == canonical
    same_order = {s: {q: scores[s][q] for q in reversed(list(scores["alpha"]))}
                  for s in scores}
    assert tier_view(same_order, "nDCG@10", seed=1) == canonical


@pytest.mark.parametrize("metric", ["RR@10", "R@1"])
def test_compare_pair_reproduces_the_view_figures_on_grid_metrics(metric):
    rng = np.random.default_rng(7)
    qs = [f"q{i}" for i in range(150)]
    scores = {}
    for k, s in enumerate(["alpha", "beta", "gamma", "delta"]):
        a, _ = _rr_pair(150, rng, better=0.04 * (3 - k))
        x = a if metric == "RR@10" else (a == 1.0).astype(float)
        scores[s] = dict(zip(qs, x.tolist()))
    view = tier_view(scores, metric, seed=4)
    for row in view.comparisons[1:]:
        pair = compare_pair(scores[row.system], scores[view.leader], metric, seed=4,
                            a_name=row.system, b_name=view.leader)
        assert pair.p_value == row.p_value
        assert (pair.effect, pair.ci_low, pair.ci_high) == (row.effect, row.ci_low,
                                                            row.ci_high)


def test_small_and_empty_views():
    assert tier_view({}, "nDCG@10").leader is None
    only = tier_view({"a": {"q": 0.3}}, "nDCG@10", reported=["b"])
    assert [(c.system, c.tier) for c in only.comparisons] == [("a", "leader"), ("b", "reported")]


def test_tier_views_concurrently_equals_one_at_a_time():
    from threadpoolctl import threadpool_info

    from leaderboard.publish.stats.tiers import tier_views

    before = [i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"]
    # continuous (subgroup), grid (binomial counts) and exact-enumeration views
    jobs = [(_view(n=40, seed=s), "nDCG@10") for s in range(3)]
    jobs.append(({s: {q: float(round(v * 4) / 4) for q, v in m.items()}
                  for s, m in _view(n=60, seed=9).items()}, "RR@10"))
    jobs.append((_view(n=12, seed=5), "AP"))
    jobs.append((_view(n=25, seed=6), "p-MRR"))
    alone = [tier_view(scores, metric, seed=3) for scores, metric in jobs]
    together = tier_views([lambda s=scores, m=metric: tier_view(s, m, seed=3)
                           for scores, metric in jobs], workers=3)
    assert together == alone
    # BLAS gets its own thread setting back once the last view is done
    assert [i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"] == before

    def broken() -> None:
        raise ValueError("bad view")

    with pytest.raises(ValueError, match="bad view"):
        tier_views([lambda: tier_view(jobs[0][0], "AP"), broken], workers=2)
    assert [i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"] == before


@pytest.mark.parametrize("n", [150, 700])
def test_subgroup_bound_skips_only_columns_that_cannot_count(monkeypatch, n):
    # The transform skips the columns whose bound sum_a |G(a, J2)| stays below the
    # threshold over a block of elements. Columns near the leader (computed) and far below
    # it (skipped) must get the same counts with the bound as without it, off the grid
    # (float64) and on it (float32).
    rng = np.random.default_rng(n)
    # enough columns for several blocks of elements: the block holding the identity
    # keeps every column
    shifts = np.tile([0.0, 0.01, 0.03, 0.06, 0.3, 0.4, 0.6, 0.8, 1.0, 1.5], 4)
    continuous = rng.normal(shifts, 0.3, (n, shifts.size))
    grid = np.minimum(rng.integers(0, 11, (n, shifts.size)) + np.rint(shifts * 6), 10) / 10
    d = np.column_stack([continuous, grid - 0.5])
    sub = subgroup.Subgroup(n, 20_000, 2)
    assert sub.k1 >= 4
    transformed = []  # columns through the Hadamard product, per call
    sums = subgroup.Subgroup.sums
    monkeypatch.setattr(subgroup.Subgroup, "sums",
                        lambda self, partial: transformed.append(partial.shape[2])
                        or sums(self, partial))
    results = []
    for min_k1 in (sub.k1, 99):  # bounded, then not
        monkeypatch.setattr(subgroup, "_BOUND_MIN_K1", min_k1)
        transformed.clear()
        results.append(sig.randomization_pvalues(d, n_resamples=20_000, seed=2, route="subgroup"))
        if min_k1 == sub.k1:
            assert min(transformed) < shifts.size  # some columns were skipped
    assert np.array_equal(results[0], results[1])
    assert results[0].min() == 1 / sub.size and results[0].max() > 0.05  # both kinds


def test_a_cached_matrix_is_built_once_when_threads_ask_together():
    # views run side by side often want the same table at once: the second waits for it
    calls = []
    started = threading.Event()

    def build() -> np.ndarray:
        calls.append(1)
        started.set()
        time.sleep(0.2)  # long enough for the other thread to ask meanwhile
        return np.arange(3.0)

    key = ("test-table", 7)
    sig.clear_caches()
    with ThreadPoolExecutor(2) as pool:
        first = pool.submit(sig.EXECUTOR.cached, key, build)
        started.wait()
        second = pool.submit(sig.EXECUTOR.cached, key, build)
        a, b = first.result(), second.result()
    assert calls == [1] and a is b and sig.EXECUTOR.building() == 0
    sig.clear_caches()


def test_tiering_work_orders_views_by_their_cost():
    # the Monte-Carlo test and the bootstrap grow with n; enumerating 20 queries by
    # meeting in the middle costs less than the Monte-Carlo test of 21; the Wilcoxon test
    # is nearly free; every other system adds one pair
    assert tiering_work("AP", 19, 300) < tiering_work("AP", 20, 300) < tiering_work(
        "AP", 21, 300)
    assert tiering_work("AP", 150, 300) < tiering_work("AP", 2989, 300)
    assert tiering_work("p-MRR", 150, 300) < tiering_work("AP", 150, 300)
    assert tiering_work("nDCG@10", 150, 301) == 2 * tiering_work("nDCG@10", 150, 151)
    assert tiering_work("nDCG@10", 150, 1) == 0.0


# --- the engines against the plain reference (leaderboard.publish.stats.significance.reference) ---


def _reference_columns(rng: np.random.Generator, n: int) -> np.ndarray:
    """Columns that take every route: continuous, k/11 ties, an RR@10 grid, 0/1, zeros."""
    return np.column_stack([
        rng.normal(0.03, 0.2, n),
        rng.integers(-3, 4, n) / 11,
        np.subtract(*_rr_pair(n, rng)),
        rng.integers(-1, 2, n).astype(float),
        np.zeros(n),
    ])


@pytest.mark.parametrize("n", [1, 2, 5, 9, 14, 16])
def test_enumeration_equals_the_reference_to_the_bit(n):
    d = _reference_columns(np.random.default_rng(100 + n), n)
    expected = np.array([reference.exact_sign_flip_pvalue(d[:, j]) for j in range(d.shape[1])])
    assert np.array_equal(sig.randomization_pvalues(d), expected)
    assert np.array_equal(sig.randomization_pvalues(d, route="enumeration"), expected)


@pytest.mark.parametrize("n", [21, 60, 400])
def test_sign_test_equals_the_exact_reference(n):
    # 0/1 scores above the enumeration limit: the closed-form binomial count is the exact
    # p-value (the reference counts the fraction exactly; scipy adds two rounded tails)
    rng = np.random.default_rng(n)
    d = (rng.integers(0, 2, (n, 4)) - rng.integers(0, 2, (n, 4))).astype(float)
    d[:, 3] *= 0.25
    got = sig.randomization_pvalues(d, seed=3)
    assert np.array_equal(got, sig.randomization_pvalues(d, seed=3, route="sign-test"))
    for j in range(4):
        assert got[j] == pytest.approx(reference.exact_sign_flip_pvalue(d[:, j]), rel=1e-12)
    with pytest.raises(ValueError, match="one non-zero magnitude"):
        sig.randomization_pvalues(np.arange(1.0, 31.0)[:, None], route="sign-test")


@pytest.mark.parametrize("route", ["binomial", "subgroup"])
def test_monte_carlo_routes_estimate_the_exact_reference(route):
    # a grid column over 40 queries: the reference's exact distribution is small (few
    # magnitudes); over 40 seeds the mean p-value must sit within 4.5 standard errors
    rng = np.random.default_rng(21)
    d = (rng.integers(0, 4, 40) - rng.integers(0, 4, 40))[:, None] / 10
    exact = reference.exact_sign_flip_pvalue(d[:, 0])
    assert 0.02 < exact < 0.5
    reps = 2000
    ps = np.array([sig.randomization_pvalues(d, n_resamples=reps, seed=s, route=route)[0]
                   for s in range(40)])
    sizes = {"binomial": reps, "subgroup": (1 << reps.bit_length()) - 1}
    se = math.sqrt(exact * (1 - exact) / sizes[route] / ps.size)
    assert abs(ps.mean() - exact) < 4.5 * se + 1.0 / sizes[route]
    assert len(set(ps.tolist())) > 1  # seeded: the seeds give different draws
    plain = reference.monte_carlo_sign_flip_pvalue(d[:, 0], n_resamples=3000, seed=1)
    assert abs(plain - exact) < 4.5 * math.sqrt(exact * (1 - exact) / 3000) + 1 / 3001


def test_wilcoxon_equals_the_reference_to_the_bit():
    rng = np.random.default_rng(31)
    for n in (8, 12, 30, 80):  # scipy's exact, permutation and normal cases
        d = np.column_stack([rng.normal(0, 1, n), rng.integers(-2, 3, n) / 4,
                             np.where(rng.random(n) < 0.3, 0.0, rng.normal(0, 1, n)),
                             np.zeros(n)])
        expected = [reference.wilcoxon_pvalue(d[:, j]) for j in range(d.shape[1])]
        assert sig.wilcoxon_pvalues(d).tolist() == expected


def test_holm_equals_the_reference_to_the_bit():
    rng = np.random.default_rng(41)
    for m in (1, 2, 7, 50):
        p = np.round(rng.random(m) ** 3, 3).tolist()  # rounded: ties
        assert sig.holm(p) == reference.holm(p)


@pytest.mark.parametrize("n", [7, 30, 300])
def test_bootstrap_equals_the_reference_on_the_same_resamples(n):
    # same resamples as the reference; the engine's sums are exact in fixed point, the
    # reference's are float means, so they agree to rounding, not to the bit. A column of
    # few distinct values (here 0/1 at 300 queries) is resampled with its queries in
    # order of value (the same bootstrap: draws are exchangeable across positions), so
    # the reference gets it sorted
    d = _reference_columns(np.random.default_rng(50 + n), n)
    lo, hi = sig.bootstrap_mean_ci(d, n_resamples=999, seed=6)
    for j in range(d.shape[1]):
        column = d[:, j]
        if (np.unique(column).size - 1) * bootstrap._BOUNDARY_RATIO <= n:
            column = np.sort(column)
        ref_lo, ref_hi = reference.bootstrap_mean_interval(column, n_resamples=999, seed=6)
        assert lo[j] == pytest.approx(ref_lo, abs=1e-9) and hi[j] == pytest.approx(ref_hi,
                                                                                   abs=1e-9)


def test_a_forked_child_runs_chunks_on_a_pool_of_its_own() -> None:
    """A child forked after the pool had threads got the pool object without its threads,
    which it still counted as idle: its first chunks waited forever for them (`ci
    pr-check`'s standings workers hung)."""
    import os

    def slow_chunk(start: int, stop: int) -> int:
        time.sleep(0.1)  # every chunk on a thread of its own: four idle threads after
        return sum(range(start, stop))

    with sig.EXECUTOR.configured(workers=4):
        if not sig.EXECUTOR._controller():
            pytest.skip("no threadpoolctl: chunks run without the pool")
        assert len(sig.EXECUTOR.run_ranges(slow_chunk, 1000)) == 4
        pid = os.fork()
        if pid == 0:  # the child: exit 0 when its chunks ran
            done = False
            try:
                done = sum(sig.EXECUTOR.run_ranges(slow_chunk, 1000)) == sum(range(1000))
            finally:
                os._exit(0 if done else 1)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            finished, status = os.waitpid(pid, os.WNOHANG)
            if finished:
                break
            time.sleep(0.05)
        else:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
            pytest.fail("the forked child's chunks never ran")
    assert os.waitstatus_to_exitcode(status) == 0
