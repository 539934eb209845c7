"""A row's verdict in a tested column: its tier and its test against the leader.

Kept apart from :mod:`.tables`, which computes them, so that :mod:`.lines` (which attaches
them to model lines) and :mod:`.tables` (which lines its tables up) need not import each
other.
"""

from __future__ import annotations

from dataclasses import dataclass

TIER_LEADER = "leader"
TIER_TIED = "tied with leader"
TIER_BELOW = "below leader"
TIER_REPORTED = "reported"


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
    threshold under which differences are ties, and the smallest difference it detects
    (with 80% power, None with nothing to compare)."""

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


def floor_text(floor: float) -> str:
    """A p-value floor in short scientific form: "1e-5", "1.9e-6"."""
    mantissa, _, exponent = f"{floor:.1e}".partition("e")
    mantissa = mantissa.rstrip("0").rstrip(".")
    return f"{mantissa}e{int(exponent)}"


def p_text(p: float | None, floor: float | None, digits: int = 2) -> str:
    """A p-value as printed: ``digits`` significant digits, never below what its test
    resolves ("< 1e-5" under a floor of 1e-5: finding 3 of issue 35, a normal tail's
    8.4e-76 from 75 personas); "–" without a test."""
    if p is None:
        return "\u2013"
    if floor is not None and p < floor:
        return f"< {floor_text(floor)}"
    return f"{p:.{digits}g}"


def shown_p(p: float | None, floor: float | None) -> float | None:
    """A p-value as downloads give it: raised to its test's floor (the record's p_floor
    says a value at the floor means "at most")."""
    if p is None or floor is None:
        return p
    return max(p, floor)
