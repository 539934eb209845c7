"""Tests of leaderboard.stats: the tests against scipy, determinism, Holm, tiering."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from leaderboard.stats import (
    compare_pair,
    holm,
    paired_randomization_test,
    tier_view,
    wilcoxon_test,
)
from leaderboard.stats import significance as sig

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
    # better on every one of 30 queries by the same amount: only the identity (and
    # its mirror image) reach the observed |mean|; chance of a random hit is 2**-29
    p = paired_randomization_test(np.full(30, 0.7), np.full(30, 0.2), seed=5)
    assert p == 1 / (R + 1)


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
    monkeypatch.setattr(sig, "_blas", False)  # no threadpoolctl: serial, BLAS's own threads
    serial = sig.randomization_pvalues(d, seed=9)
    monkeypatch.setattr(sig, "_CHUNK_BYTES", 1 << 12)
    sig.clear_caches()
    chunked = sig.randomization_pvalues(d, seed=9)
    assert np.array_equal(reference, single)
    assert np.array_equal(reference, serial)
    assert np.array_equal(reference, chunked)


@pytest.mark.parametrize("kind", ["continuous", "grid", "repeated"])
def test_float32_screening_equals_exact_float64_count(kind):
    # the fast path must give the same count as float64 on the same sign matrix
    rng = np.random.default_rng(8)
    n, m, reps = 64, 12, 20_000
    if kind == "continuous":
        d = rng.normal(0.01, 0.2, (n, m))
    elif kind == "grid":
        d = 1 / rng.integers(1, 11, (n, m)) - 1 / rng.integers(1, 11, (n, m))
    else:
        d = rng.choice([0.1, 0.2, -0.3, 1 / 3, -1 / 7, 0.0], (n, m))
    d[:, 0] = 0.0  # identical systems
    fast = sig.randomization_pvalues(d, n_resamples=reps, seed=1)
    signs = sig._Signs(n, reps, 1).chunk(0, reps).T.astype(np.float64)  # (reps x n)
    totals = signs @ d
    observed = np.abs(d.sum(axis=0))
    slack = sig.TIE_RTOL * np.abs(d).sum(axis=0)
    # in float64 the sums carry ~1e-15 relative error, far inside the 1e-12 tolerance
    counts = (np.abs(totals) >= observed - slack).sum(axis=0)
    assert np.array_equal(fast, (counts + 1) / (reps + 1))
    assert fast[0] == 1.0


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


def test_test_for_metric():
    assert sig.test_for_metric("p-MRR") == "wilcoxon"
    assert sig.test_for_metric("altered/p-MRR") == "wilcoxon"
    for metric in ("nDCG@10", "original/nDCG@10", "AP@1000", "R@10", "RR@10", "IRS",
                   "altered/nDCG@10", "AUROC"):
        assert sig.test_for_metric(metric) == "randomization"


# --- Holm ----------------------------------------------------------------------------


def _holm_reference(p):
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    out, running = [0.0] * m, 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[i]))
        out[i] = running
    return out


def test_holm_known_values():
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm([0.5]) == [0.5]
    assert holm([]) == []
    with pytest.raises(ValueError):
        holm([0.2, 1.5])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.floats(min_value=0.0, max_value=1.0), min_size=1, max_size=40))
def test_holm_never_lowers_and_keeps_order(pvalues):
    adjusted = holm(pvalues)
    assert len(adjusted) == len(pvalues)
    assert adjusted == pytest.approx(_holm_reference(pvalues), rel=1e-12, abs=0)
    for p, q in zip(pvalues, adjusted, strict=True):
        assert p <= q <= 1.0
    for i, j in itertools.combinations(range(len(pvalues)), 2):
        if pvalues[i] <= pvalues[j]:
            assert adjusted[i] <= adjusted[j]
        if pvalues[i] == pvalues[j]:
            assert adjusted[i] == adjusted[j]


# --- bootstrap interval --------------------------------------------------------------


@pytest.mark.parametrize("kind", ["continuous", "grid"])
def test_bootstrap_interval_matches_numpy_percentile(kind):
    rng = np.random.default_rng(2)
    n, reps = 80, 4000
    if kind == "continuous":
        d = rng.normal(0.03, 0.2, (n, 3))
    else:  # RR@10 differences: the single-product path
        d = 1 / rng.integers(1, 4, (n, 3)) - 1 / rng.integers(1, 11, (n, 3))
    lo, hi = sig.bootstrap_mean_ci(d, n_resamples=reps, seed=5)
    counts = sig._bootstrap_counts(n, reps, 5).astype(np.float64)  # (n x B)
    means = d.T @ counts / n
    ref_lo, ref_hi = np.quantile(means, [0.025, 0.975], axis=1)
    assert np.allclose(lo, ref_lo, rtol=0, atol=1e-9)
    assert np.allclose(hi, ref_hi, rtol=0, atol=1e-9)
    assert np.all(lo < d.mean(axis=0)) and np.all(d.mean(axis=0) < hi)
    width = hi - lo  # about 2 * 1.96 * sd / sqrt(n)
    assert np.allclose(width, 3.92 * d.std(axis=0) / np.sqrt(n), rtol=0.15)


def test_bootstrap_resamples_are_uniform_over_queries():
    counts = sig._bootstrap_counts(50, 4000, 1)
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
    assert [c.p_adjusted for c in tested] == holm([c.p_value for c in tested])
    for c in tested:
        assert c.test == "randomization" and c.n_queries == 30
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
    assert with_reported.n_queries == 30


def test_tier_view_missing_queries_count_as_zero():
    scores = _view()
    scores["gamma"] = {q: v for q, v in scores["gamma"].items() if q not in ("q3", "q7")}
    explicit = _view()
    explicit["gamma"]["q3"] = explicit["gamma"]["q7"] = 0.0
    assert tier_view(scores, "nDCG@10") == tier_view(explicit, "nDCG@10")
    # a query only one system answered enters the universe for everyone
    scores["alpha"]["only-alpha"] = 0.9
    view = tier_view(scores, "nDCG@10")
    assert view.n_queries == 31
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
    assert pair.n_queries == 45 and pair.test == "randomization"


def test_small_and_empty_views():
    assert tier_view({}, "nDCG@10").leader is None
    only = tier_view({"a": {"q": 0.3}}, "nDCG@10", reported=["b"])
    assert [(c.system, c.tier) for c in only.comparisons] == [("a", "leader"), ("b", "reported")]
