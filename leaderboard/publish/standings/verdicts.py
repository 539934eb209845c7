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
    mean(row - leader) over the view's queries with its 95% bootstrap interval; ``mean``
    is the row's mean over those queries (the value shown)."""

    tier: str
    p_value: float | None = None
    p_adjusted: float | None = None
    effect: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    mean: float | None = None
    test: str | None = None        # the test of the view (randomization, wilcoxon)
    n_queries: int | None = None   # queries of the view the test pairs
