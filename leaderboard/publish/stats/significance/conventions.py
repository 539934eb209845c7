"""The conventions every engine shares: defaults, the tie tolerance, which test a metric
gets (its measure's, from the catalogue), how seeds are derived, and how paired inputs are
checked."""

from __future__ import annotations

import zlib
from collections.abc import Sequence

import numpy as np

from leaderboard.core.measures import PairedTest, measure_of

#: Monte-Carlo sign flips per randomization test when there are more than
#: ``EXACT_MAX_QUERIES`` queries.
DEFAULT_RESAMPLES = 100_000
#: Up to this many queries all 2**n sign assignments are enumerated (2**19 distinct |mean|
#: values at n = 20, a 42 MB matrix); above it the test is Monte-Carlo.
EXACT_MAX_QUERIES = 20
#: Tie tolerance of the randomization test, relative to sum(|d_i|) (the largest value the
#: statistic can take). Floating-point scores make assignments that tie in exact arithmetic
#: (say 1/11 + 2/11 against 3/11) differ in the last bits; such ties must count as "at
#: least as extreme". 1e-12 is far above double rounding of a sum of a few thousand scores
#: (about 1e-13 relative at most) and far below any real difference between two scores.
TIE_RTOL = 1e-12
#: Bootstrap resamples for the effect interval.
DEFAULT_BOOTSTRAP = 10_000
#: Bootstrap resamples of the max-|t| statistic behind the rank intervals: the 95% quantile
#: of 1,000 draws, as Mogstad, Romano, Shaikh and Wilhelm's own code draws by default.
RANK_BOOTSTRAP = 1_000
#: Differences of a column's value smaller than this are ties, never a new leader: the
#: same model rerun on other hardware moved figures by up to 6.7e-4 (a task's RR@10) in
#: the committed reruns (benchmarks/drift.py, benchmarks/README.md).
REPRODUCIBILITY_THRESHOLD = 1e-3
#: The smallest p-value printed for a normal approximation (DeLong's test, Wilcoxon's
#: large-sample form), whose tails are not accurate that far out: the same as 10**5
#: Monte-Carlo sign flips resolve.
P_FLOOR = 1e-5
#: Power at which a view's minimum detectable effect is stated.
POWER = 0.8


def test_for_metric(metric: str) -> PairedTest:
    """Which paired test a metric key gets: its measure's, as the catalogue declares it
    (``Measure.test``: Wilcoxon for p-MRR, DeLong for AUROC, sign flips for the rest),
    whatever its qualifier (``altered/p-MRR``). A key the catalogue does not know is
    refused (:class:`~leaderboard.core.measures.UnknownMeasureError`) rather than given
    a test by its spelling."""
    return measure_of(metric).test


test_for_metric.__test__ = False  # type: ignore[attr-defined]  # not a pytest test


def p_floor(test: PairedTest, n_units: int, n_resamples: int = DEFAULT_RESAMPLES) -> float:
    """The smallest p-value ``test`` on ``n_units`` units resolves, and so the smallest one
    printed: all 2**n sign flips enumerated resolve down to their own smallest p, 2 / 2**n;
    a Monte-Carlo test with R random flips resolves 1 / R; a normal approximation gets
    :data:`P_FLOOR`. None goes below 2 / 2**n, what an exact test of the units' signs could
    give at best (75 personas cannot show 8.4e-76, whatever a normal tail says)."""
    exact = 2.0 ** (1 - max(n_units, 1))
    if test == "randomization":
        return exact if n_units <= EXACT_MAX_QUERIES else max(exact, 1.0 / n_resamples)
    return max(exact, P_FLOOR)


def derive_seed(seed: int, *parts: str | int) -> np.random.SeedSequence:
    """A seed sequence for one purpose, derived from the user's base seed.

    String parts go through zlib.crc32, which is stable across runs and platforms (Python's
    ``hash()`` of a string is salted per process and would make results irreproducible).
    """
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    words = [int(seed)]
    for part in parts:
        words.append(zlib.crc32(part.encode("utf-8")) if isinstance(part, str) else int(part))
    return np.random.SeedSequence(words)


def seeded_rng(seed: int, *parts: str | int) -> np.random.Generator:
    return np.random.Generator(np.random.PCG64(derive_seed(seed, *parts)))


def paired_arrays(a: np.ndarray | Sequence[float],
            b: np.ndarray | Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    a_ = np.asarray(a, dtype=np.float64)
    b_ = np.asarray(b, dtype=np.float64)
    if a_.ndim != 1 or a_.shape != b_.shape:
        raise ValueError(f"paired scores must be 1-D of equal length, got {a_.shape} "
                         f"and {b_.shape}")
    if not (np.all(np.isfinite(a_)) and np.all(np.isfinite(b_))):
        raise ValueError("scores must be finite")
    return a_, b_
