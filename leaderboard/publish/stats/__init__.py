"""Significance testing for the leaderboard (issue 3).

Paired tests between systems on one value per independently sampled unit, Holm's
correction within a view, each test's estimate with the interval of its own statistic,
simultaneous rank intervals, and the tiers built from them ("leader", "tied with leader",
"below leader", "reported"). See :mod:`.significance` for the tests
and their conventions and :mod:`.tiers` for how a view is tiered.
"""

from .significance import (
    DEFAULT_BOOTSTRAP,
    DEFAULT_RESAMPLES,
    EXACT_MAX_QUERIES,
    INTERVALS,
    REPRODUCIBILITY_THRESHOLD,
    TIE_RTOL,
    bootstrap_mean_ci,
    derive_seed,
    holm,
    p_floor,
    paired_randomization_test,
    randomization_pvalues,
    test_for_metric,
    wilcoxon_pvalues,
    wilcoxon_test,
)
from .tiers import (
    ALPHA,
    Comparison,
    PairComparison,
    ViewTiers,
    compare_pair,
    minimum_detectable_effect,
    pick_leader,
    ranking_work,
    tier_view,
    tier_views,
    tiering_work,
)

__all__ = [
    "ALPHA",
    "DEFAULT_BOOTSTRAP",
    "DEFAULT_RESAMPLES",
    "EXACT_MAX_QUERIES",
    "INTERVALS",
    "REPRODUCIBILITY_THRESHOLD",
    "TIE_RTOL",
    "Comparison",
    "PairComparison",
    "ViewTiers",
    "bootstrap_mean_ci",
    "compare_pair",
    "derive_seed",
    "holm",
    "minimum_detectable_effect",
    "p_floor",
    "paired_randomization_test",
    "pick_leader",
    "ranking_work",
    "randomization_pvalues",
    "test_for_metric",
    "tier_view",
    "tier_views",
    "tiering_work",
    "wilcoxon_pvalues",
    "wilcoxon_test",
]
