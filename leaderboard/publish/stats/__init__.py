"""Significance testing for the leaderboard (issue 3).

Paired tests between systems on one value per independently sampled unit, Holm's
correction within a view, each test's estimate with the interval of its own statistic,
simultaneous rank intervals, and the tiers built from them ("leader", "tied with leader",
"below leader", "reported"). :mod:`.significance.api` holds the tests and their
conventions, :mod:`.tiers` how a view is tiered; each name is imported from there.
"""
