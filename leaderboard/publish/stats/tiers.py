"""Significance tiers of a leaderboard view: who is the leader, who is statistically tied.

A *view* is the set of systems shown together for one metric (a task, or a group of
queries inside one, such as a FollowTable constraint type). Its scores come one value per
independently sampled unit (a topic with all its pairs, a translated pair, a persona:
:func:`leaderboard.publish.standings.stratified_units`). Within a view every system is
compared with the leader on the union of the view's units, a unit a system did not answer
counting as 0 (a missing answer earns no credit), and the p-values of the view are
Holm-corrected together. Beside the tiers, every tested system gets a simultaneous 95%
interval for its rank (:mod:`.significance.ranks`), and the view a minimum detectable
effect. Differences below the reproducibility threshold are ties: they never make a leader,
a system below one, nor an order of ranks. Rows taken from papers have no per-query
scores; they are shown as "reported" and kept out of every statistical step, so they can
never become the leader nor change anyone else's adjusted p-value.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from itertools import repeat
from typing import Literal, TypeVar

import numpy as np
from pydantic import BaseModel, ConfigDict, TypeAdapter

from scipy import stats

from leaderboard.core.measures import PairedTest

from .significance.api import (
    DEFAULT_BOOTSTRAP,
    DEFAULT_RESAMPLES,
    INTERVALS,
    POWER,
    RANK_BOOTSTRAP,
    REPRODUCIBILITY_THRESHOLD,
    TIE_RTOL,
    holm_at_floors,
    intervals_for,
    p_floor,
    pair_work,
    pvalues_for,
    rank_intervals,
    serial_chunks,
    single_threaded_blas,
    test_for_metric,
    worker_count,
)

T = TypeVar("T")
Tier = Literal["leader", "tied with leader", "below leader", "reported"]
#: Family-wise level of the tiers: adjusted p >= ALPHA means "tied with leader".
ALPHA = 0.05


class Comparison(BaseModel):
    """One row of a view: a system against the view's leader.

    ``effect`` is mean(system - leader) over the view's units, <= 0 when higher is better
    (the gap between the values shown); ``estimate`` is the test's own statistic of that
    difference with its 95% interval [ci_low, ci_high] (:data:`.significance.api.INTERVALS`:
    the mean for the randomization test and DeLong's, the Hodges-Lehmann shift for
    Wilcoxon's), so the interval agrees with the p-value beside it. ``effect_size`` is the
    effect over the standard deviation of the units' differences (Cohen's d_z). The rank
    interval [rank_best, rank_worst] (1 = best) holds for every tested system at once with
    95% confidence. ``p_adjusted`` is Holm's of the view's p-values each raised to the
    test's floor, an upper bound where ``p_adjusted_bound`` says so (it rests on a raw
    p-value at the floor, known only as "at most" it). The leader's own row has effect 0
    and no test; a reported row has only its id and tier.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    system: str
    leader: str | None
    metric: str
    test: PairedTest | None
    n_units: int
    mean_system: float | None
    mean_leader: float | None
    effect: float | None
    estimate: float | None
    ci_low: float | None
    ci_high: float | None
    effect_size: float | None
    p_value: float | None
    p_adjusted: float | None
    tier: Tier
    #: Whether p_adjusted is an upper bound: Holm's value rests on a raw p at the test's
    #: floor (:func:`~.significance.api.holm_at_floors`); None for a row not tested.
    p_adjusted_bound: bool | None = None
    rank_best: int | None = None
    rank_worst: int | None = None


class ViewTiers(BaseModel):
    """The tiers of one view and metric: the leader first, then the other tested systems
    from best to worst mean, then reported rows by id.

    ``p_floor`` is the smallest p-value the view's test resolves (one at or below it is
    printed as "≤ p_floor"); ``threshold`` the reproducibility threshold under which
    differences are ties; ``mde`` the smallest true mean difference a paired test of the
    mean at the view's first Holm level detects with 80% power, by a normal approximation
    from the median spread of the units' differences against the leader
    (:func:`minimum_detectable_effect`; None with nothing to compare): a guide to what the
    view's own test detects, not that test's power (Wilcoxon's tests the signed ranks, not
    the mean); ``rank_critical`` the bootstrap critical value of the rank
    intervals."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    metric: str
    leader: str | None
    test: PairedTest
    higher_is_better: bool
    n_units: int
    seed: int
    p_floor: float
    threshold: float
    mde: float | None
    rank_critical: float | None
    comparisons: list[Comparison]

    @property
    def interval(self) -> str:
        """The interval the view's test reports with each difference (``INTERVALS``)."""
        return INTERVALS[self.test]

    def by_system(self) -> dict[str, Comparison]:
        return {c.system: c for c in self.comparisons}


_COMPARISONS = TypeAdapter(list[Comparison])


class PairComparison(BaseModel):
    """Two systems on one metric: ``effect`` is mean(a - b), ``estimate`` with [ci_low,
    ci_high] the test's own statistic and interval (:class:`Comparison`), the test
    two-sided."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    system_a: str
    system_b: str
    metric: str
    test: PairedTest
    n_units: int
    mean_a: float
    mean_b: float
    effect: float
    estimate: float
    ci_low: float | None     # None: too few units for an interval
    ci_high: float | None
    effect_size: float | None
    p_value: float
    p_floor: float


def _matrix(columns: list[Mapping[str, float]], names: list[str],
            queries: list[str]) -> np.ndarray:
    """(queries x systems) matrix; a query missing from a system's mapping scores 0."""
    out = np.empty((len(queries), len(columns)), dtype=np.float64)
    for j, per_query in enumerate(columns):
        out[:, j] = np.fromiter(map(per_query.get, queries, repeat(0.0)), dtype=np.float64,
                                count=len(queries))
    _check_finite(out, names)
    return out


def _check_finite(x: np.ndarray, names: list[str]) -> None:
    if not np.all(np.isfinite(x)):
        bad = [names[j] for j in np.flatnonzero(~np.all(np.isfinite(x), axis=0))]
        raise ValueError(f"non-finite per-query scores for {', '.join(bad[:5])}")


def _scores_matrix(columns: list[Mapping[str, float]], names: list[str]
                   ) -> tuple[list[str], np.ndarray]:
    """The sorted union of the systems' query ids and the (queries x systems) matrix.

    The usual case is cheap: every system scored the same queries and its mapping lists
    them in the same order (results files are written in one canonical order, and the site
    pools tasks in one order), so the values are read in bulk and put in sorted order by one
    permutation. Otherwise each query is looked up, a missing one scoring 0. Both give the
    same matrix.
    """
    first = list(columns[0]) if columns else []
    if all(len(c) == len(first) for c in columns) and all(
            j == 0 or list(c) == first for j, c in enumerate(columns)):
        n = len(first)
        order = np.array(sorted(range(n), key=first.__getitem__), dtype=np.intp)
        queries = [first[i] for i in order]
        rows = np.empty((len(columns), n), dtype=np.float64)
        for j, per_query in enumerate(columns):
            rows[j] = np.fromiter(per_query.values(), dtype=np.float64, count=n)[order]
        x = rows.T  # (queries x systems); a view, each system's scores contiguous
        _check_finite(x, names)
        return queries, x
    queries = _universe(columns)
    return queries, _matrix(columns, names, queries)


def _means(x: np.ndarray) -> np.ndarray:
    """Column means, each summed as one contiguous row.

    numpy sums a contiguous row pairwise, the same way whatever the other columns are, so
    a pair's mean difference is the same float here and in :func:`compare_pair`.
    """
    if x.shape[0] == 0:
        return np.zeros(x.shape[1])
    return np.ascontiguousarray(x.T).sum(axis=1) / x.shape[0]


def _universe(maps: Iterable[Mapping[str, float]]) -> list[str]:
    union: set[str] = set()
    for per_query in maps:
        union.update(per_query)
    return sorted(union)


def _spread(d: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """Standard deviation (n - 1) of every column of ``d``, each summed as one contiguous
    row (the same floats in a view and in :func:`compare_pair`); 0 below two units.

    ``scale`` is the largest |score| of each column's two systems. A spread within the tie
    tolerance of it (:data:`TIE_RTOL`) is rounding, not spread, and is 0: a system that
    is another plus a constant has differences equal up to their last bits (0.1 and
    0.09999999999999998), whose standard deviation of 1e-17 made an effect size of
    4.8e15 sd and a minimum detectable effect of 9e-18."""
    n = d.shape[0]
    if n < 2:
        return np.zeros(d.shape[1])
    rows = np.ascontiguousarray(d.T)
    centred = rows - (rows.sum(axis=1) / n)[:, None]
    sd = np.sqrt((centred * centred).sum(axis=1) / (n - 1))
    return np.where(sd <= TIE_RTOL * scale, 0.0, sd)


def _pair_scales(x: np.ndarray, others: Sequence[int], lead: int) -> np.ndarray:
    """The largest |score| of system ``lead`` and each of ``others`` (:func:`_spread`)."""
    top = np.abs(x).max(axis=0, initial=0.0)
    return np.maximum(top[list(others)], top[lead])


def _finite(values: np.ndarray) -> list[float | None]:
    return [float(v) if np.isfinite(v) else None for v in values]


def _effect_sizes(effects: np.ndarray, spread: np.ndarray) -> list[float | None]:
    with np.errstate(divide="ignore", invalid="ignore"):
        return _finite(np.where(spread > 0, effects / np.where(spread > 0, spread, 1), np.nan))


def minimum_detectable_effect(spread: float, n_units: int, n_tests: int, *,
                              alpha: float = 0.05, power: float = POWER) -> float | None:
    """The smallest true mean difference a two-sided test at level alpha / n_tests (Holm's
    first step, where a view's most significant comparison is judged) detects with
    probability ``power``, for units whose differences spread by ``spread``: (z_(1 -
    alpha / (2 n_tests)) + z_power) spread / sqrt(n) (the normal approximation of the
    paired test). None without units or spread."""
    if n_units < 2 or spread <= 0 or n_tests < 1:
        return None
    z = stats.norm.isf(alpha / (2.0 * n_tests)) + stats.norm.isf(1.0 - power)
    return float(z * spread / np.sqrt(n_units))


def pick_leader(means: Mapping[str, float], higher_is_better: bool = True, *,
                threshold: float = REPRODUCIBILITY_THRESHOLD,
                precedence: Sequence[str] = ()) -> str | None:
    """The leader among systems with these means: the best, except that the systems within
    ``threshold`` of the best mean are tied with it and the tie goes to the first of them
    in ``precedence``, then to the smallest id. So a difference below the reproducibility
    threshold (a rerun on other hardware) never decides who leads."""
    if not means:
        return None
    best = (max if higher_is_better else min)(means.values())
    first = {s: i for i, s in enumerate(precedence)}
    near = [s for s, m in means.items() if abs(m - best) <= threshold]
    return min(near, key=lambda s: (first.get(s, len(first)), s))


def tier_view(scores: Mapping[str, Mapping[str, float]], metric: str, *,
              higher_is_better: bool = True, seed: int = 0, reported: Iterable[str] = (),
              n_resamples: int = DEFAULT_RESAMPLES, n_bootstrap: int = DEFAULT_BOOTSTRAP,
              alpha: float = ALPHA, threshold: float = REPRODUCIBILITY_THRESHOLD,
              precedence: Sequence[str] = (), ranks: bool = True,
              n_rank_bootstrap: int = RANK_BOOTSTRAP, test: PairedTest | None = None
              ) -> ViewTiers:
    """Tier every system of one view on ``metric``: a metric key, whose measure's test
    (:func:`~leaderboard.publish.stats.significance.api.test_for_metric`) compares them,
    or a column's name for its figure over several keys with ``test`` (``Column.test``).

    ``scores`` maps system id -> unit id -> value. The leader is the tested system with the
    best mean (highest, or lowest when ``higher_is_better`` is False); systems within
    ``threshold`` of that mean are tied with it, and the tie goes to the first of them in
    ``precedence`` (a standing leader, when the caller knows one), then to the smallest id,
    so that the choice never depends on a difference below the threshold nor on dict order.
    Every other tested system is compared with the leader by that test, the p-values are
    raised to the test's floor and Holm-corrected as one family
    (:func:`~leaderboard.publish.stats.significance.api.holm_at_floors`, which says which
    adjusted values are upper bounds), and a system is "below leader" when its adjusted
    p-value is below ``alpha``, its mean is more than ``threshold`` from the leader's and
    its test's own statistic (``estimate``) lies on the leader's side of 0, else "tied with
    leader". The last holds of every mean difference beyond the threshold; Wilcoxon's
    test is of the signed ranks, not the mean, and can reject in favour of a row whose
    mean is lower (ahead on most units, far behind on one): its Hodges-Lehmann shift is
    then positive, and such a row is not below the leader, whatever its p-value.

    Ids in ``reported`` (figures from papers, no per-query scores) get tier "reported" and
    take no part: not in the leader choice, the unit universe, nor the Holm family.

    Randomness (sign flips, bootstrap resamples) and how each pair is computed depend on
    ``seed``, the number of units and that pair's own differences only, so a pair gets
    the same p-value, estimate and interval here as from :func:`compare_pair` with the same
    seed and units, whatever else is in the view. The rank intervals are of the view as a
    whole (:func:`~leaderboard.publish.stats.significance.api.rank_intervals`; ``ranks=False``
    leaves them out).
    """
    if not metric:
        raise ValueError("metric must be a non-empty string")
    reported_ids = sorted(set(reported))
    skip = set(reported_ids)
    tested = sorted(s for s in scores if s not in skip)
    queries, x = _scores_matrix([scores[s] for s in tested], tested)
    n = len(queries)
    test = test or test_for_metric(metric)
    rows: list[Comparison] = []
    leader: str | None = None
    mde: float | None = None
    critical: float | None = None

    if tested:
        means = _means(x)
        sign = -1.0 if higher_is_better else 1.0
        ranked = sorted(range(len(tested)), key=lambda j: (sign * means[j], tested[j]))
        leader = pick_leader(dict(zip(tested, means.tolist())), higher_is_better,
                             threshold=threshold, precedence=precedence)
        lead = tested.index(leader)
        others = [j for j in ranked if j != lead]
        best: list[int | None] = [None] * len(tested)
        worst: list[int | None] = [None] * len(tested)
        if ranks:
            b, w, c = rank_intervals(x, means, higher_is_better=higher_is_better,
                                     n_resamples=n_rank_bootstrap, seed=seed,
                                     threshold=threshold)
            best, worst = b.tolist(), w.tolist()
            critical = c if np.isfinite(c) else None
        rows.append(Comparison(
            system=leader, leader=leader, metric=metric, test=None, n_units=n,
            mean_system=float(means[lead]), mean_leader=float(means[lead]), effect=0.0,
            estimate=None, ci_low=None, ci_high=None, effect_size=None, p_value=None,
            p_adjusted=None, tier="leader", rank_best=best[lead], rank_worst=worst[lead]))
        if others:
            diffs = x[:, others] - x[:, [lead]]
            pvals = pvalues_for(test, diffs, n_resamples=n_resamples, seed=seed)
            floor = p_floor(test, n, n_resamples)
            adjusted, bounds = holm_at_floors(pvals.tolist(), [floor] * len(others))
            effects = _means(diffs)
            estimate, ci_low, ci_high = intervals_for(test, diffs, n_bootstrap=n_bootstrap,
                                                      seed=seed)
            spread = _spread(diffs, _pair_scales(x, others, lead))
            mde = minimum_detectable_effect(float(np.median(spread)), n, len(others),
                                            alpha=alpha)
            mean_leader = float(means[lead])
            # validated as one list: half the time of one model at a time (the site makes
            # some 48,000 of these, and it is time one thread holds the interpreter)
            rows += _COMPARISONS.validate_python([dict(
                system=tested[j], leader=leader, metric=metric, test=test, n_units=n,
                mean_system=m_j, mean_leader=mean_leader, effect=e, estimate=est,
                ci_low=lo, ci_high=hi, effect_size=es, p_value=p, p_adjusted=q,
                p_adjusted_bound=bound, tier=("below leader" if q < alpha and abs(m_j - mean_leader) > threshold
                      and sign * (e if est is None else est) > 0 else "tied with leader"),
                rank_best=best[j], rank_worst=worst[j])
                for j, m_j, e, est, lo, hi, es, p, q, bound in zip(
                    others, means[others].tolist(), effects.tolist(), _finite(estimate),
                    _finite(ci_low), _finite(ci_high), _effect_sizes(effects, spread),
                    pvals.tolist(), adjusted, bounds)])

    for system in reported_ids:
        rows.append(Comparison(
            system=system, leader=leader, metric=metric, test=None, n_units=n,
            mean_system=None, mean_leader=None, effect=None, estimate=None, ci_low=None,
            ci_high=None, effect_size=None, p_value=None, p_adjusted=None, tier="reported"))
    return ViewTiers(metric=metric, leader=leader, test=test, higher_is_better=higher_is_better,
                     n_units=n, seed=seed, p_floor=p_floor(test, n, n_resamples),
                     threshold=threshold, mde=mde, rank_critical=critical, comparisons=rows)


def compare_pair(a_scores: Mapping[str, float], b_scores: Mapping[str, float], metric: str,
                 seed: int = 0, *, queries: Iterable[str] | None = None,
                 n_resamples: int = DEFAULT_RESAMPLES, n_bootstrap: int = DEFAULT_BOOTSTRAP,
                 a_name: str = "a", b_name: str = "b", test: PairedTest | None = None
                 ) -> PairComparison:
    """Compare two systems on one metric (for ``leaderboard compare``), by its measure's
    test, or by ``test`` for a column's name over several keys (as :func:`tier_view`).

    The units are ``queries`` when given (pass a view's unit set to reproduce its figures
    exactly), else the union of both systems' units; a missing unit scores 0.
    """
    qs = sorted(set(queries)) if queries is not None else _universe((a_scores, b_scores))
    x = _matrix([a_scores, b_scores], [a_name, b_name], qs)
    test = test or test_for_metric(metric)
    diffs = x[:, [0]] - x[:, [1]]
    p = float(pvalues_for(test, diffs, n_resamples=n_resamples, seed=seed)[0])
    estimate, lo, hi = intervals_for(test, diffs, n_bootstrap=n_bootstrap, seed=seed)
    means = _means(x)
    effect = _means(diffs)
    return PairComparison(
        system_a=a_name, system_b=b_name, metric=metric, test=test, n_units=len(qs),
        mean_a=float(means[0]), mean_b=float(means[1]), effect=float(effect[0]),
        estimate=float(estimate[0]), ci_low=_finite(lo)[0], ci_high=_finite(hi)[0],
        effect_size=_effect_sizes(effect, _spread(diffs, _pair_scales(x, [0], 1)))[0], p_value=p,
        p_floor=p_floor(test, len(qs), n_resamples))


def tiering_work(metric: str, n_units: int, n_systems: int, *,
                 n_resamples: int = DEFAULT_RESAMPLES,
                 n_bootstrap: int = DEFAULT_BOOTSTRAP, test: PairedTest | None = None
                 ) -> float:
    """Rough multiply-adds of :func:`tier_view` for ``n_systems`` on ``n_units``
    (``metric`` and ``test`` as there): the
    order in which to hand views to :func:`tier_views`, longest first, so that the views
    still running at the end are short ones. (The unit count alone misleads: the test
    depends on the metric, and 20 units are enumerated at a fraction of the cost of the
    Monte-Carlo test that 21 get.) The tests against the leader, pair by pair; a caller
    that ranks the view adds :func:`ranking_work`."""
    return max(n_systems - 1, 0) * pair_work(test or test_for_metric(metric), n_units,
                                             n_resamples=n_resamples,
                                             n_bootstrap=n_bootstrap)


def ranking_work(n_units: int, n_systems: int,
                 n_resamples: int = RANK_BOOTSTRAP) -> float:
    """Rough operations of a view's rank intervals: each resample's sums over the units and
    three passes over the pairs of systems; nothing with fewer than two systems."""
    if n_systems < 2:
        return 0.0
    return float(n_resamples) * (n_units * n_systems + 1.5 * n_systems * n_systems)


def tier_views(jobs: Sequence[Callable[[], T]], *, workers: int | None = None) -> list[T]:
    """Run several tiering jobs (each typically a :func:`tier_view` call) at once; the
    results come back in the jobs' order.

    One view's tests already split their matrix products over the cores, but its serial
    parts (mappings to arrays, the grid checks, Holm, the many small views) leave cores
    idle; running views side by side fills them. Every figure of a view depends on that
    view's inputs alone (see :func:`tier_view`), so this changes the time and nothing
    else. Each view runs on one thread, its chunks not split further
    (:func:`~leaderboard.publish.stats.significance.api.serial_chunks`), with BLAS on one thread
    throughout: one core per view and no oversubscription. The first job to raise stops
    the others from starting and its error is raised here.
    """
    workers = worker_count() if workers is None else max(1, workers)
    if workers == 1 or len(jobs) <= 1:
        return [job() for job in jobs]
    with single_threaded_blas(), ThreadPoolExecutor(
            max_workers=workers, thread_name_prefix="leaderboard-views") as pool:
        futures = [pool.submit(_serially, job) for job in jobs]
        try:
            return [f.result() for f in futures]
        except BaseException:
            for f in futures:
                f.cancel()
            raise


def _serially(job: Callable[[], T]) -> T:
    with serial_chunks():
        return job()
