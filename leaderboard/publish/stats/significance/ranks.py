"""Simultaneous confidence intervals for the ranks of a view's tested systems.

Mogstad, Romano, Shaikh and Wilhelm (Review of Economic Studies 2024, "Inference for ranks
with applications to mobility across neighbourhoods and academic achievement across
countries") build a confidence set for all ranks at once from simultaneous tests of every
pairwise difference. Here the pairwise differences of the systems' means are studentized
by their unit-level standard errors, se_jk = sd(x_j - x_k) / sqrt(n) over the view's n
units, and the critical value c is the ``confidence`` quantile of the bootstrap
distribution of

    max over pairs j != k of |(m*_j - m*_k) - (m_j - m_k)| / se_jk,

the units resampled with replacement (``n_resamples`` resamples, drawn from the seed and n
as the interval bootstrap draws its own). Pair (j, k) is resolved, k ahead of j, when
m_k - m_j > c se_jk (in the direction of the metric) and by more than the reproducibility
threshold; then system j's rank lies in [1 + #ahead of j, N - #behind j] for every j at
once with probability at least ``confidence`` (asymptotically), ranks counted from 1 = best.
The rows whose interval reaches 1 form the set "tied for first".

Every sum is exact, as in the other engines: the units' values become fixed-point integers
(one scale for all systems), the resampled sums are float64 products of integer counts and
integers whose every partial sum is below 2**53, and the standard errors come from an exact
integer Gram matrix. The maximum of a fixed sequence of elementwise operations does not
depend on the order it is taken in, so the intervals are the same bits on any machine and
any number of threads. :func:`~.reference.rank_intervals` is the plain definition.
"""

from __future__ import annotations

import math

import numpy as np

from .bootstrap import bootstrap_prefix
from .conventions import RANK_BOOTSTRAP, REPRODUCIBILITY_THRESHOLD, derive_seed
from .runtime import EXECUTOR

# Resampled sums stay below 2**50 in magnitude (n draws of at most this many units each),
# so every partial sum of the products is an exact float64 integer.
_SUM_BITS = 50
# Bytes of one block of studentized differences: a (resamples x rows x systems) float32
# block stays in the second-level cache.
_BLOCK_BYTES = 1 << 19


def _fixed(x: np.ndarray, bits: float) -> tuple[np.ndarray, int]:
    """x as integers at one power-of-two scale 2**q for all its columns, every |integer|
    below 2**bits."""
    top = float(np.abs(x).max(initial=0.0))
    if top == 0.0:
        return np.zeros_like(x), 0
    q = int(math.floor(bits - math.log2(top))) - 1
    return np.rint(np.ldexp(x, q)), q


def pair_standard_errors(x: np.ndarray) -> np.ndarray:
    """(N x N) standard errors of the mean differences of the systems' columns of ``x``
    (n units x N systems): sd(x_j - x_k) / sqrt(n), sd with n - 1 in the denominator; 0 on
    the diagonal and between systems whose units differ by a constant.

    From an exact Gram matrix of fixed-point integers, |x_int| < 2**25 / sqrt(n) so that
    every partial sum of 4 n x_int**2 stays below 2**52 (21 significant bits at 150
    units: the standard errors scale the decisions, they do not make them)."""
    n, m = x.shape
    if n < 2:
        return np.zeros((m, m))
    xi, q = _fixed(x, 25.0 - math.log2(n) / 2.0)
    gram = xi.T @ xi                                  # exact integers
    sums = xi.sum(axis=0)                             # exact integers
    diag = np.diag(gram)
    ss = diag[:, None] + diag[None, :] - 2.0 * gram   # sum of d_u**2, exact
    s = sums[:, None] - sums[None, :]                 # sum of d_u, exact
    num = np.maximum(float(n) * ss - s * s, 0.0)      # n sum d**2 - (sum d)**2
    return np.sqrt(num / (float(n) * n * (n - 1))) * 2.0 ** -q


def max_t_critical(x: np.ndarray, se: np.ndarray, n_resamples: int, seed: int,
                   confidence: float) -> float:
    """c: the ceil(confidence * B)-th smallest of the B bootstrap draws of max over pairs of
    |centred resampled difference| / se (pairs with se = 0 never move and are left out).

    The quantile needs few draws exactly. System j's pairs cannot exceed
    max(top - c_j, c_j - bottom) * max_k (1 / se_jk) (c the centred resampled means, top
    and bottom their extremes), so each draw lies between the largest value of the two
    extreme systems' rows (which hold the maximum about nine times in ten) and the largest
    such bound. The quantile is at least the same quantile of the lower ends; a draw whose
    upper end is below that is below the quantile whatever its value, and only the others
    are computed, each over the systems whose bound exceeds its lower end. Rounding is
    monotone, so the float32 bounds hold for the float32 values: c is the quantile of the
    maxima over every pair, to the bit."""
    n, m = x.shape
    xi, q = _fixed(x, _SUM_BITS - math.log2(n))
    sums = xi.sum(axis=0)
    # counts of every query in every resample, drawn as the interval bootstrap draws its own
    prefix = bootstrap_prefix(n, n_resamples, seed)
    with np.errstate(divide="ignore"):
        inv = np.where(se > 0, 1.0 / (se * (float(n) * 2.0 ** q)), 0.0).astype(np.float32)
    reach_inv = inv.max(axis=1)
    chunk = 256   # resamples per block
    rows = max(1, _BLOCK_BYTES // (4 * m))  # systems visited in full per block
    centred = np.empty((n_resamples, m), dtype=np.float32)
    low = np.empty(n_resamples, dtype=np.float32)    # each draw is in [low, high]
    high = np.empty(n_resamples, dtype=np.float32)

    def row_max(c: np.ndarray, b: np.ndarray, j: np.ndarray) -> np.ndarray:
        """max_k |c[b, j] - c[b, k]| / se_jk for each (b, j)."""
        vals = np.empty(b.size, dtype=np.float32)
        for k0 in range(0, b.size, rows):
            bb, jj = b[k0:k0 + rows], j[k0:k0 + rows]
            block = c[bb, jj][:, None] - c[bb]
            np.abs(block, out=block)
            block *= inv[jj]
            vals[k0:k0 + rows] = block.max(axis=1)
        return vals

    def reach(c: np.ndarray) -> np.ndarray:
        every = np.arange(c.shape[0])
        top, bottom = c[every, c.argmax(axis=1)], c[every, c.argmin(axis=1)]
        bound = np.maximum(top[:, None] - c, c - bottom[:, None])
        bound *= reach_inv
        return bound

    def bounds(first: int, last: int) -> None:
        for start in range(first, last, chunk):
            stop = min(start + chunk, last)
            counts = np.diff(prefix[start:stop], axis=1).astype(np.float64)
            c = centred[start:stop]
            c[:] = counts @ xi - sums  # exact: integers whose partial sums stay below 2**50
            every = np.arange(stop - start)
            low[start:stop] = np.maximum(row_max(c, every, c.argmax(axis=1)),
                                         row_max(c, every, c.argmin(axis=1)))
            high[start:stop] = reach(c).max(axis=1)

    EXECUTOR.run_ranges(bounds, n_resamples, align=chunk, min_per_part=chunk)
    k = max(0, math.ceil(confidence * n_resamples) - 1)
    floor = np.partition(low, k)[k]       # at most the k-th smallest draw
    below = high < floor                  # these draws are below it, whatever they are
    exact = low.copy()
    todo = np.flatnonzero(~below & (high > low))
    for start in range(0, todo.size, chunk):
        b = todo[start:start + chunk]
        c = centred[b]
        hit_b, hit_j = np.nonzero(reach(c) > exact[b][:, None])
        if hit_b.size:
            vals = row_max(c, hit_b, hit_j)
            firsts = np.flatnonzero(np.r_[True, hit_b[1:] != hit_b[:-1]])
            at = b[hit_b[firsts]]
            exact[at] = np.maximum(exact[at], np.maximum.reduceat(vals, firsts))
    known = np.sort(exact[~below])
    return float(known[k - int(below.sum())])


def rank_intervals(x: np.ndarray, means: np.ndarray, *, higher_is_better: bool = True,
                   n_resamples: int = RANK_BOOTSTRAP, seed: int = 0,
                   confidence: float = 0.95,
                   threshold: float = REPRODUCIBILITY_THRESHOLD
                   ) -> tuple[np.ndarray, np.ndarray, float]:
    """Best and worst rank (1 = best) of every system, simultaneous at ``confidence``,
    and the critical value c (module docstring).

    ``x`` holds the systems' values per unit (n units x N systems), ``means`` their means
    as the view shows them (the differences tested are of these)."""
    if not 0 < confidence < 1:
        raise ValueError("confidence must be in (0, 1)")
    derive_seed(seed)
    x = np.asarray(x, dtype=np.float64)
    n, m = x.shape
    if n < 2:  # nothing to resample: no pair is resolved
        return np.ones(m, dtype=int), np.full(m, m, dtype=int), math.inf
    if m == 1:
        return np.ones(1, dtype=int), np.ones(1, dtype=int), 0.0
    with EXECUTOR.single_threaded_blas():  # its threads would spin; exact either way
        se = pair_standard_errors(x)
    c = max_t_critical(x, se, n_resamples, seed, confidence)
    best, worst = resolve(np.asarray(means, dtype=np.float64), se, c, higher_is_better,
                          threshold)
    return best, worst, c


def resolve(means: np.ndarray, se: np.ndarray, c: float, higher_is_better: bool,
            threshold: float) -> tuple[np.ndarray, np.ndarray]:
    """The rank intervals the pairwise decisions give: ahead[j, k] when k is ahead of j
    by more than c se_jk and more than ``threshold``."""
    sign = 1.0 if higher_is_better else -1.0
    lead = sign * (means[None, :] - means[:, None])      # (k over j) in the good direction
    ahead = (lead > c * se) & (lead > threshold)
    m = means.size
    best = 1 + ahead.sum(axis=1)
    worst = m - ahead.sum(axis=0)
    return best.astype(int), worst.astype(int)
