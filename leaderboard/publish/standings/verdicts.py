"""A row's verdict in a tested column: its tier and its test against the leader.

Kept apart from :mod:`.tables`, which computes them, so that :mod:`.lines` (which attaches
them to model lines) and :mod:`.tables` (which lines its tables up) need not import each
other.
"""

from __future__ import annotations

from dataclasses import dataclass

from leaderboard.publish.stats.significance.api import REPRODUCIBILITY_THRESHOLD
from leaderboard.publish.stats.tiers import ALPHA

TIER_LEADER = "leader"
TIER_TIED = "tied with leader"
TIER_BELOW = "below leader"
TIER_REPORTED = "reported"
#: What a reader is told each tier is, on the site, in its downloads and in the PR comment.
#: The leader is the best *verified* row: reported rows are never tested and may stand
#: above it.
TIER_TEXT = {TIER_LEADER: "best verified", TIER_TIED: "tied with best verified",
             TIER_BELOW: "below best verified", TIER_REPORTED: "reported: not tested"}


@dataclass(frozen=True)
class TierInfo:
    """A row's tier in a tiered column and its test against the leader: ``effect`` is
    mean(row - leader) over the view's units; ``estimate`` with [ci_low, ci_high] the
    test's own statistic of it and its 95% interval (the mean and its bootstrap interval,
    the Hodges-Lehmann shift for Wilcoxon, DeLong's interval); ``effect_size`` the effect
    over the spread of the units' differences; ``mean`` the value shown, the row's mean
    over those units (summed query by query: :func:`~.statistic.tested_scores`);
    [rank_best, rank_worst] its simultaneous 95% rank interval among the tested rows
    (1 = best)."""

    tier: str
    p_value: float | None = None
    p_adjusted: float | None = None
    effect: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    mean: float | None = None
    test: str | None = None        # the test of the view (randomization, wilcoxon, delong)
    n_units: int | None = None     # units of the view the test pairs
    estimate: float | None = None
    effect_size: float | None = None
    p_floor: float | None = None   # the smallest p-value the test resolves
    rank_best: int | None = None
    rank_worst: int | None = None
    # p_adjusted is an upper bound: it rests on a raw p-value at its floor (tiers.Comparison)
    p_adjusted_bound: bool | None = None

    @property
    def rank_interval(self) -> list[int] | None:
        """[best, worst] rank, None for an untested row."""
        if self.rank_best is None or self.rank_worst is None:
            return None
        return [self.rank_best, self.rank_worst]


@dataclass(frozen=True)
class ViewTest:
    """What a view's tiered column is tested on, for pages and downloads: the test and the
    interval it prints, the unit it resamples (a topic with all its pairs, a translated
    pair, a persona) and how many, the smallest p-value it resolves, the reproducibility
    threshold under which differences are ties, and its minimum detectable effect
    (:data:`MDE_NOTE`; None with nothing to compare)."""

    test: str
    interval: str
    unit: str                     # "topic"
    units: str                    # "topics"
    unit_holds: str               # what one unit is, in words
    n_units: int
    p_floor: float
    threshold: float
    mde: float | None = None
    rank_critical: float | None = None

    @property
    def count(self) -> str:
        """"60 topics"."""
        return f"{self.n_units:,} {self.unit if self.n_units == 1 else self.units}"


#: What a view's minimum detectable effect is, wherever it is given: a normal
#: approximation of a test of the mean, which the view's test is not for p-MRR.
MDE_NOTE = ("the smallest true mean difference a paired test of the mean at the view's "
            "Holm level (its first step) detects with 80% power, by a normal approximation "
            "from the median spread of the units' differences against the best verified "
            "row: a guide to what the view's own test detects, not its power (Wilcoxon's "
            "test of p-MRR tests the signed ranks, not the mean)")


def excludes_zero(low: float | None, high: float | None) -> bool:
    """Whether an interval [low, high] leaves 0 out (a missing bound leaves nothing out)."""
    return (low is not None and low > 0) or (high is not None and high < 0)


#: Every interval beside a tier is its comparison's own 95% interval, not adjusted for the
#: other comparisons of the Holm family the tier is decided in (no interval is: Holm's
#: step-down has none that agrees with it, and the bootstrap's is not the randomization
#: test inverted). So the two can disagree: a row tied by its adjusted p whose interval
#: leaves 0 out, or a row below whose interval holds 0. Nor is a tier the test alone: a
#: row is below only when its test's own statistic is on the leader's side too, and a
#: Wilcoxon test (p-MRR) can reject in favour of a row whose mean is behind (ahead on most
#: units, far behind on a few), whose shift's interval then leaves 0 out on its own side
#: while it is tied (:func:`tied_by_its_shift`). Such an interval is marked, and
#: `leaderboard compare` calls such a pair "inconclusive".
INTERVAL_MARK = "§"
INTERVAL_NOTE = ("each 95% interval is its comparison's own, not adjusted for the "
                 "table's other comparisons; the tier follows the Holm-adjusted p-value and "
                 "the side of its test's own statistic")


def tied_by_its_shift(tier: str | None, p_adjusted: float | None, effect: float | None,
                      alpha: float = ALPHA,
                      threshold: float = REPRODUCIBILITY_THRESHOLD) -> bool:
    """Whether a row is tied though its adjusted p is below ``alpha`` and its mean
    difference beyond ``threshold``: its test's own statistic is on its side of 0 (a
    Wilcoxon test that rejects with a Hodges-Lehmann shift in its favour while its mean is
    behind, :func:`~leaderboard.publish.stats.tiers.tier_view`)."""
    return (tier == TIER_TIED and p_adjusted is not None and p_adjusted < alpha
            and effect is not None and abs(effect) > threshold)


def interval_disagrees(tier: str | None, p_adjusted: float | None, low: float | None,
                       high: float | None, alpha: float = ALPHA, *,
                       effect: float | None = None) -> bool:
    """Whether a tested row's (unadjusted) 95% interval says otherwise than its tier: tied
    while the interval leaves 0 out, by an adjusted p at or above ``alpha`` or by its
    test's statistic on its own side (:func:`tied_by_its_shift`; ``effect``, the mean
    difference, tells it from a tie within the threshold), or below while it holds 0. A
    row tied within the reproducibility threshold (its adjusted p below ``alpha``) is tied
    whatever its interval, and is not marked."""
    if low is None or high is None or p_adjusted is None:
        return False
    if tier == TIER_TIED:
        return excludes_zero(low, high) and (
            p_adjusted >= alpha or tied_by_its_shift(tier, p_adjusted, effect, alpha))
    return tier == TIER_BELOW and not excludes_zero(low, high)


def shown_p(p: float | None, floor: float | None) -> float | None:
    """A p-value as downloads give it: raised to its test's floor (the record's p_floor
    says a value at the floor means "at most")."""
    if p is None or floor is None:
        return p
    return max(p, floor)


#: The test whose statistic is not the mean difference: its estimate and interval are the
#: Hodges-Lehmann shift's (the median of the Walsh averages of the units' non-zero
#: differences, as the test drops zeros), given as hl_*.
SHIFT_TEST = "wilcoxon"

#: A tested row's statistics, by the same names and meanings wherever they are given: the
#: views' downloads, results.parquet and the export, `leaderboard compare --json` and the
#: CI report. Each field holds one statistic whatever the test: ``test`` names it (None:
#: not tested); ``p_value`` raw and ``p_adjusted`` Holm-corrected, both raised to
#: ``p_floor``, the smallest p-value the test resolves (a value at the floor means "at
#: most"); ``p_adjusted_bound`` true where ``p_adjusted`` is itself "at most": Holm's value
#: rests on a raw p-value at its floor (the p-values are raised to it before Holm's
#: procedure, :func:`~leaderboard.publish.stats.significance.api.holm_at_floors`);
#: [``diff_ci_low``, ``diff_ci_high``] the 95% interval of the mean difference
#: where the test's statistic is that mean (the bootstrap's for the randomization test,
#: DeLong's), None for Wilcoxon's; ``hl_shift`` with [``hl_ci_low``, ``hl_ci_high``]
#: Wilcoxon's Hodges-Lehmann shift and its 95% interval (the shifts the signed-rank test
#: does not reject), None for other tests; ``effect_size`` the mean difference over the
#: standard deviation of the units' differences. The mean difference itself is named by
#: what it is taken against (``diff_vs_best_verified``; compare's ``diff``, A - B).
STATISTIC_FIELDS = ("test", "p_value", "p_adjusted", "p_adjusted_bound", "p_floor",
                    "diff_ci_low",
                    "diff_ci_high", "hl_shift", "hl_ci_low", "hl_ci_high", "effect_size")


def test_statistics(test: str | None, *, p_value: float | None, p_adjusted: float | None,
                    p_adjusted_bound: bool | None, p_floor: float | None,
                    estimate: float | None, ci_low: float | None, ci_high: float | None,
                    effect_size: float | None) -> dict[str, object]:
    """:data:`STATISTIC_FIELDS` of a row from its test's own results: ``estimate`` with
    [``ci_low``, ``ci_high``] the test's statistic and its interval (the mean difference,
    or the Hodges-Lehmann shift for Wilcoxon's test). A row without a p-value (the best
    verified row itself) was not tested: its ``test`` is None."""
    tested = p_value is not None
    shift = tested and test == SHIFT_TEST
    mean_ci = (None, None) if shift else (ci_low, ci_high)
    hl = (estimate, ci_low, ci_high) if shift else (None, None, None)
    values = (test if tested else None, shown_p(p_value, p_floor),
              shown_p(p_adjusted, p_floor), p_adjusted_bound if tested else None,
              p_floor, *mean_ci, *hl, effect_size)
    return dict(zip(STATISTIC_FIELDS, values))


def tier_statistics(info: TierInfo) -> dict[str, object]:
    """:func:`test_statistics` of a row's test against the best verified row."""
    return test_statistics(info.test, p_value=info.p_value, p_adjusted=info.p_adjusted,
                           p_adjusted_bound=info.p_adjusted_bound, p_floor=info.p_floor, estimate=info.estimate,
                           ci_low=info.ci_low, ci_high=info.ci_high,
                           effect_size=info.effect_size)
