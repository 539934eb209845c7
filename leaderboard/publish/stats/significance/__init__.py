"""Paired significance tests, multiple-comparison correction and effect intervals.

Every comparison on the leaderboard is *paired*: two systems scored on the same queries.
This package holds the statistics only; :mod:`leaderboard.publish.stats.tiers` turns them into
leaderboard tiers. Its layers, each importing only the ones listed before it:

* :mod:`.conventions` - defaults, tie tolerance, which test a metric gets, seeds;
* :mod:`.runtime` - the one :class:`~.runtime.Executor`: thread pool, single-threaded
  BLAS, chunk size, cache of random matrices;
* :mod:`.reference` - plain numpy/scipy definitions of every quantity (sign-flip p-value,
  exact enumeration, Wilcoxon, bootstrap interval, Holm), slow and readable; the tests
  hold the engines to it;
* :mod:`.fixedpoint` - scores as integers whose every partial sum is exact, which makes
  every figure independent of BLAS, threads and chunking (results are compared bit for
  bit);
* engines, each computing what :mod:`.reference` defines, fast: :mod:`.enumeration` (all
  2**n sign flips for n <= 20, meeting in the middle; the exact sign test for one
  magnitude), :mod:`.subgroup` (a random subgroup of the sign flips through a two-stage
  Walsh-Hadamard transform: continuous scores), :mod:`.binomial` (sign-flip sums as
  per-magnitude binomial counts: rank-grid scores), :mod:`.wilcoxon` (scipy, many
  columns per call), :mod:`.delong` (DeLong's test on per-cluster AUROC components),
  :mod:`.bootstrap` with :mod:`.order_stats` (exact resampled sums and
  their order statistics), :mod:`.ranks` (simultaneous rank intervals from a bootstrap
  of the max-|t| statistic over all pairs);
* :mod:`.dispatch` - the table that picks each column's engine, and each test's interval;
* :mod:`.api` - the public contract: callers import from it, never from the modules
  above.

How each column is done depends on that column alone, so a pair's figures never depend
on the rest of the view.
"""
