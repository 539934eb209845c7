"""Paired significance tests, multiple-comparison correction and effect intervals.

Every comparison on the leaderboard is *paired*: two systems scored on the same queries.
This module holds the statistics only; :mod:`leaderboard.stats.tiers` turns them into
leaderboard tiers.

Two requirements shape the code more than the statistics do:

* **Reproducible to the bit.** Results files are compared byte for byte in CI, so a
  p-value or an interval must not change with the BLAS build, the number of threads or the
  chunk size. Floating-point sums depend on their order, so every sum that decides a count
  or an interval bound is computed *exactly*: scores are turned into integers (fixed point)
  small enough that every partial sum is exactly representable, and then any summation
  order (any BLAS kernel, any number of threads) gives the same result.
* **Fast enough for a whole leaderboard.** The site tiers every view (87 today) of up to
  300 systems, on two metrics each, over up to 2,989 pooled queries (FollowTable's average;
  a pooled view's cost grows with its queries); every comparison wants at least 100,000
  random sign flips and 10,000 bootstrap resamples. How each column is done depends on
  that column alone (so a pair's figures never depend on the rest of the view):

  - up to 20 queries: all 2**n sign flips, counted exactly by meeting in the middle
    (the sums of each half's 2**(n/2) sign flips, one half sorted and searched;
    :func:`_enumerated_counts`);
  - continuous scores (nDCG, AP, IRS) over more queries: the 2**17 elements of a random
    subgroup of the sign flips (:class:`_Subgroup`), an exact test whose sums for all
    elements come from a two-stage Walsh-Hadamard transform, in exact integer
    arithmetic, skipping the columns that provably cannot reach their threshold
    (:func:`_subgroup_counts`);
  - scores on the 1/2520 grid (RR@10, R@k, accuracy), or on 1/(2520 k) for their means
    over k tasks, take few distinct |differences|: a sign-flip sum is then a weighted sum
    of binomial counts, drawn from a shared pool at a cost independent of the number of
    queries (:func:`_binomial_counts`), and 0/1 metrics get the exact binomial p-value
    (:func:`_single_magnitude_pvalues`);
  - the bootstrap reads grid columns' resampled sums off prefix counts at their value
    boundaries and multiplies the other grid columns with the resample counts; off-grid
    columns get coarse float32 sums and exact ones only near the ranks sought
    (:class:`_CoarseSums`); the order statistics come from sampled thresholds, or from
    histograms where the integer sums span few values (:func:`_tail_order_statistics`).

  The products run in chunks on a small thread pool, each with single-threaded BLAS:
  OpenBLAS's own threads synchronise on every call and, on a machine shared with other
  jobs, spin-waiting made them 6-17x slower than one thread in our measurements. The
  counts are exact integers, so the split of the work cannot change a result.
"""

from __future__ import annotations

import itertools
import math
import os
import threading
import zlib
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any, Literal

import numpy as np
from scipy import stats

TestName = Literal["randomization", "wilcoxon"]

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

# Per-query scores of rank metrics with at most 10 ranks (RR@k, R@k, P@k for k <= 10, and
# differences of them) are multiples of 1/lcm(1..10). On that grid the statistic is an
# integer, ties are exact and the float32 product is exact, so no recomputation is needed.
# A mean of such scores over k tasks (a PI-Indic language averaged over its 11 or 12
# language pairs, or over all 132) lies on the finer grid 1/(2520 k): each column gets the
# smallest k up to _GRID_MAX_TASKS that makes it integral.
_GRID = 2520
_GRID_MAX_TASKS = 160
_GRID_TOL = 1e-7  # in grid units; float noise of a mean of scores times 2520 k is < 1e-8
_F32_EXACT = float(2**24)  # integers below this are exact in float32, and so are sums of them
_F64_BUDGET_EXP = 51  # fixed-point budget for sum(|d|): 2**51, a bit of headroom below 2**53
_F64_BUDGET = float(2**_F64_BUDGET_EXP)
# Bytes of one block of sums (sign-flip sums, resampled sums): bounds memory and keeps a
# block's product and its comparisons in cache. Blocks never change a result (all counts
# and sums are exact).
_CHUNK_BYTES = 1 << 21


# ---------------------------------------------------------------------------------------
# Parallel chunks with single-threaded BLAS

_MAX_WORKERS = 8
_pool: ThreadPoolExecutor | None = None
_blas: Any = None  # threadpoolctl.ThreadpoolController, or False when unavailable
_pool_lock = threading.Lock()


def worker_count() -> int:
    """CPUs this process may use, at most _MAX_WORKERS."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cpus = os.cpu_count() or 1
    return max(1, min(cpus, _MAX_WORKERS))


def _controller() -> Any:
    global _blas
    if _blas is None:
        try:  # optional: without it BLAS keeps its own threads and chunks run serially
            from threadpoolctl import ThreadpoolController
            _blas = ThreadpoolController()
        except Exception:
            _blas = False
    return _blas


_blas_depth = 0  # threads inside single_threaded_blas()
_blas_limiter: Any = None
_blas_lock = threading.Lock()


@contextmanager
def single_threaded_blas() -> Iterator[bool]:
    """BLAS on one thread for the duration; yields whether that could be arranged.

    The limit is process-wide, so nested and concurrent uses (several views tiered at
    once, see :func:`leaderboard.stats.tiers.tier_views`) share one: the first to enter
    sets it, the last to leave restores BLAS's own setting. A plain ``limit()`` per use
    would let the first thread to leave restore the threads under the others' feet.
    """
    global _blas_depth, _blas_limiter
    ctl = _controller()
    if not ctl:
        yield False
        return
    with _blas_lock:
        if _blas_depth == 0:
            _blas_limiter = ctl.limit(limits=1, user_api="blas")
        _blas_depth += 1
    try:
        yield True
    finally:
        with _blas_lock:
            _blas_depth -= 1
            if _blas_depth == 0:
                _blas_limiter.restore_original_limits()
                _blas_limiter = None


def _split(total: int, parts: int, align: int) -> list[tuple[int, int]]:
    """``parts`` contiguous ranges covering range(total), boundaries multiples of align."""
    step = -(-total // parts)
    step = -(-step // align) * align
    return [(a, min(a + step, total)) for a in range(0, total, step)]


_thread_state = threading.local()


@contextmanager
def serial_chunks() -> Iterator[None]:
    """Within this context the current thread runs its chunks itself, without the pool:
    for callers that already keep every core busy with one thread each (tier_views)."""
    before = getattr(_thread_state, "serial", False)
    _thread_state.serial = True
    try:
        yield
    finally:
        _thread_state.serial = before


def _run_ranges(fn: Callable[[int, int], Any], total: int, align: int = 1,
                min_per_part: int = 1) -> list[Any]:
    """fn(start, stop) over contiguous ranges of range(total), in parallel if it pays off.

    Results come back in range order. BLAS runs single-threaded inside (also when there is
    one range: its own threads spin-wait and, on a shared machine, cost more CPU than they
    save). With no way to pin BLAS to one thread, it runs fn(0, total) here and BLAS uses
    its own threads.
    """
    global _pool
    parts = min(worker_count(), max(1, total // max(min_per_part, 1)))
    if getattr(_thread_state, "serial", False):
        parts = 1
    with single_threaded_blas() as pinned:
        if parts <= 1 or not pinned:
            return [fn(0, total)]
        with _pool_lock:
            if _pool is None:
                _pool = ThreadPoolExecutor(max_workers=_MAX_WORKERS,
                                           thread_name_prefix="leaderboard-stats")
        return list(_pool.map(lambda r: fn(*r), _split(total, parts, align)))


# ---------------------------------------------------------------------------------------


def test_for_metric(metric: str) -> TestName:
    """Which paired test a metric gets.

    p-MRR (also role- or group-prefixed, any key ending in ``p-MRR``) uses the Wilcoxon
    signed-rank test, as the mFollowIR paper does: p-MRR is a bounded per-query *change*
    score with many exact zeros and heavy tails, where the original analysis is rank-based.
    Everything else (nDCG, AP, R, RR, IRS, ...) uses Fisher's randomization test on the
    mean difference, the usual IR choice (Smucker et al., CIKM 2007).
    """
    return "wilcoxon" if metric.strip().lower().endswith("p-mrr") else "randomization"


test_for_metric.__test__ = False  # type: ignore[attr-defined]  # not a pytest test


def pair_work(test: TestName, n: int, *, n_resamples: int = DEFAULT_RESAMPLES,
              n_bootstrap: int = DEFAULT_BOOTSTRAP) -> float:
    """Rough multiply-adds to test one pair over n queries and bootstrap its interval: a
    measure for ordering work (the longest views first), not a timing. Enumeration is
    the two halves' 2**(n/2) sign sums of n/2 terms and as many searches
    (:func:`_enumerated_counts`), the Monte-Carlo test the subgroup's transform (the
    binomial path costs less, never more), the Wilcoxon test next to nothing, and the
    bootstrap n x n_bootstrap resampled terms."""
    if test == "wilcoxon":
        tested = 0.0
    elif n <= EXACT_MAX_QUERIES:
        tested = float(n) * 2.0 ** ((n + 1) // 2)
    else:
        tested = _subgroup_work(n, n_resamples)
    return tested + float(n) * n_bootstrap


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


def _rng(seed: int, *parts: str | int) -> np.random.Generator:
    return np.random.Generator(np.random.PCG64(derive_seed(seed, *parts)))


# ---------------------------------------------------------------------------------------
# Cache of random matrices. Drawing 100,000 x n sign bits or 10,000 bootstrap resamples of
# n queries costs a sizeable fraction of applying them to a whole view, and every view of
# the same size and seed uses the same matrix, so keep them (least recently used first
# out). A bootstrap table takes 2 bytes per query and resample (60 MB for FollowTable's
# 2,989-query average), a packed sign matrix 12.5 KB per query.

_CACHE_BUDGET = 640 * 2**20
_cache: OrderedDict[tuple, np.ndarray] = OrderedDict()
_cache_lock = threading.Lock()
# One lock per matrix being built: views run side by side (tier_views) often want the
# same matrix at the same moment (a view's two metrics share its queries), and the
# second waits for the first's matrix instead of drawing it again (at FollowTable's
# 2,989 queries that second build cost about 0.9 CPU-s over the stats suite).
_building: dict[tuple, threading.Lock] = {}


def _cached(key: tuple, build: Callable[[], np.ndarray]) -> np.ndarray:
    with _cache_lock:
        if key in _cache:
            _cache.move_to_end(key)
            return _cache[key]
        building = _building.setdefault(key, threading.Lock())
    with building:
        with _cache_lock:
            if key in _cache:  # built by another thread while this one waited
                _cache.move_to_end(key)
                return _cache[key]
        try:
            value = build()
            value.setflags(write=False)
            if value.nbytes <= _CACHE_BUDGET:
                with _cache_lock:
                    _cache[key] = value
                    while sum(v.nbytes for v in _cache.values()) > _CACHE_BUDGET:
                        _cache.popitem(last=False)
        finally:
            with _cache_lock:
                _building.pop(key, None)
    return value


def clear_caches() -> None:
    """Drop cached sign and bootstrap matrices (tests use it to check regeneration)."""
    with _cache_lock:
        _cache.clear()
    with _pools_lock:
        _pools.clear()


def _half_signs(h: int) -> np.ndarray:
    """All 2**h sign vectors of h queries, one per row ((2**h x h) float64, +-1)."""

    def build() -> np.ndarray:
        r = np.arange(1 << h, dtype=np.int64)[:, None]
        bits = (r >> np.arange(h, dtype=np.int64)[None, :]) & 1
        return 1.0 - 2.0 * bits

    return _cached(("half-signs", h), build)


def _enumerated_counts(d_int: np.ndarray, thr: np.ndarray) -> np.ndarray:
    """For every column of ``d_int`` (n x m fixed-point integers, n <= EXACT_MAX_QUERIES),
    how many of all 2**n sign assignments have |sum(s_i d_i)| >= thr (thr > 0).

    Meet in the middle: the 2**h sums of the first h = n // 2 queries' signs and the
    2**(n-h) sums of the others', the latter sorted, so that the assignments completing a
    first-half sum a are counted by two binary searches (b >= thr - a, b <= -thr - a).
    That is 2**(n/2) work per column instead of 2**n: 1,024 sums and searches for 20
    queries. Every sum is an integer below 2**53, exact in float64, so the count is the
    enumeration's own, whatever the order of the additions.
    """
    n, m = d_int.shape
    h = n // 2
    first = _half_signs(h) @ d_int[:h]  # (2**h x m), exact integers
    second = np.sort(_half_signs(n - h) @ d_int[h:], axis=0)  # (2**(n-h) x m)
    size = second.shape[0]
    counts = np.empty(m, dtype=np.int64)
    for j in range(m):
        column = second[:, j]
        at_least = size - np.searchsorted(column, thr[j] - first[:, j], side="left")
        at_most = np.searchsorted(column, -thr[j] - first[:, j], side="right")
        counts[j] = int(at_least.sum() + at_most.sum())
    return counts


def _parity_signs(codes: np.ndarray, bits: int, dtype: type = np.float64) -> np.ndarray:
    """(2**bits x len(codes)) matrix of (-1) ** popcount(code & J), row J.

    Built by doubling: for J < 2**t, row J + 2**t is row J times the signs of bit t of the
    codes, so each entry costs one multiply in ``dtype``. (A popcount of every entry in
    int64, then a conversion, took 28 ms for the 2,048 x 2,989 inner signs of FollowTable's
    pooled view; the site builds about twenty of these tables.)"""
    codes = np.asarray(codes, dtype=np.int64)
    out = np.empty((1 << bits, codes.size), dtype=dtype)
    out[0] = 1
    for t in range(bits):
        flip = (1 - 2 * ((codes >> t) & 1)).astype(dtype)
        np.multiply(out[:1 << t], flip, out=out[1 << t:2 << t])
    return out


def _full_rank(codes: np.ndarray, k: int) -> bool:
    """Whether the k-bit ``codes`` span GF(2)**k (Gaussian elimination on the integers;
    it stops as soon as k independent codes are found, usually within the first k + 2)."""
    basis = [0] * k  # basis[b]: the kept code whose highest set bit is b
    rank = 0
    for code in codes.tolist():
        while code:
            top = code.bit_length() - 1
            if not basis[top]:
                basis[top] = code
                rank += 1
                break
            code ^= basis[top]
        if rank == k:
            return True
    return False


def _subgroup_shape(n: int, n_resamples: int) -> tuple[int, int]:
    """k and k1 of the subgroup for n queries (:class:`_Subgroup`): k the bit length of
    ``n_resamples`` (2**k - 1 >= n_resamples random assignments; 17 for 100,000), at most
    n (with k = n the subgroup is the whole group); k1 about log2(n) / 2, which minimises
    the transform's n * 2**(k - k1) + 2**(k1 + k) multiply-adds per column."""
    k = min(int(n_resamples).bit_length(), n)
    k1 = int(min(max(round(math.log2(n) / 2), 1), k - 1)) if k > 1 else 0
    return k, k1


def _subgroup_work(n: int, n_resamples: int) -> float:
    """Multiply-adds per column of the subgroup's transform for n queries."""
    k, k1 = _subgroup_shape(n, n_resamples)
    return float(n * (1 << (k - k1)) + (1 << (k1 + k)))


class _Subgroup:
    """The random sign-flip assignments of the Monte-Carlo test: a random subgroup of the
    group of all 2**n sign flips, of size 2**k.

    Query i gets a random k-bit code c_i, drawn from ``Generator(PCG64(derive_seed(seed,
    "randomization-subgroup", n, k, attempt)))``; element J (a k-bit integer) flips the
    queries whose code shares an odd number of set bits with J:
    s_J(i) = (-1) ** popcount(c_i & J). Then s_J * s_K = s_(J xor K), so the 2**k elements
    form a group, with J = 0 the identity (the observed assignment). The codes are redrawn
    (attempt 1, 2, ...) until they span GF(2)**k, which makes the 2**k elements distinct.

    Why this and not 2**k independent draws:

    * it is an exact test: the null distribution is invariant under every sign flip, so
      under those of a subgroup too, and the subgroup is drawn without looking at the data.
      Counting the assignments of the subgroup with |sum| >= |observed|, the identity
      included, gives p = count / 2**k with P(p <= alpha) <= alpha (the group-invariance
      argument; Hemerik & Goeman, TEST 2018, on random transformations; Koning & Hemerik,
      Biometrika 2024, on testing with a subgroup);
    * as a Monte-Carlo estimate of the full-group p-value it is as precise as 2**k - 1
      independent draws: each non-identity s_J is uniform over all sign vectors (the c_i
      are independent and uniform) and any two are independent (s_J and s_J * s_K =
      s_(J xor K) are), and the variance of a count of events depends on pairs only;
    * all 2**k sums come from one fast Walsh-Hadamard transform: writing c_i = (a_i, b_i)
      and J = (J1, J2) with k1 high bits and k2 = k - k1 low bits, the sum is
      T(J1, J2) = sum_a H(J1, a) G(a, J2), G(a, J2) = sum over {i: a_i = a} of
      (-1) ** popcount(b_i & J2) * d_i, H the 2**k1 Hadamard matrix. That is
      n * 2**k2 + 2**k1 * 2**k multiply-adds per column instead of n * 2**k, for
      FollowTable's 2,989 pooled pairs 27 times fewer (:func:`_subgroup_counts`).

    ``k`` and ``k1`` come from :func:`_subgroup_shape`; ``k1`` only sets how the sums are
    computed, never their values.
    """

    def __init__(self, n: int, n_resamples: int, seed: int) -> None:
        self.n = n
        self.k, self.k1 = k, k1 = _subgroup_shape(n, n_resamples)
        self.size = 1 << k
        self.codes = _cached(("subgroup-codes", n, k, seed), lambda: self._draw(n, k, seed))
        self.k2 = k2 = k - k1
        outer = self.codes >> k2
        # queries sorted by their outer code, so each G(a, .) reads a contiguous block
        self.order = np.argsort(outer, kind="stable")
        self.bounds = np.searchsorted(outer[self.order], np.arange((1 << k1) + 1))
        inner = self.codes[self.order] & ((1 << k2) - 1)
        # (2**k2 x n) signs of the inner elements J2 on the sorted queries, one byte each
        self.inner = _cached(("subgroup-inner", n, k, seed, k1),
                             lambda: _parity_signs(inner, k2, np.int8))
        self.hadamard = _cached(("hadamard", k1), lambda: _parity_signs(
            np.arange(1 << k1, dtype=np.int64), k1))

    @staticmethod
    def _draw(n: int, k: int, seed: int) -> np.ndarray:
        for attempt in itertools.count():
            rng = _rng(seed, "randomization-subgroup", n, k, attempt)
            codes = rng.integers(0, 1 << k, size=n, dtype=np.int64)
            if _full_rank(codes, k):
                return codes
        raise AssertionError("unreachable")

    def partial_sums(self, d_sorted: np.ndarray, start: int, stop: int) -> np.ndarray:
        """G(a, J2) for every outer code a and J2 in start:stop, one column per column of
        ``d_sorted`` (queries in :attr:`order`), in its dtype: (2**k1 x width x columns)."""
        width = stop - start
        dtype = d_sorted.dtype
        inner = self.inner[start:stop].astype(dtype)
        partial = np.empty((1 << self.k1, width, d_sorted.shape[1]), dtype=dtype)
        for a in range(1 << self.k1):
            first, last = self.bounds[a], self.bounds[a + 1]
            np.matmul(inner[:, first:last], d_sorted[first:last], out=partial[a])
        return partial

    def sums(self, partial: np.ndarray) -> np.ndarray:
        """T(J1, J2) from :meth:`partial_sums`, rows ordered (J1, J2): one product with the
        2**k1 Hadamard matrix, ((2**k1 * width) x columns)."""
        cols = partial.shape[2]
        hadamard = self.hadamard.astype(partial.dtype, copy=False)
        return (hadamard @ partial.reshape(1 << self.k1, -1)).reshape(-1, cols)


def _subgroup_counts(d_int: np.ndarray, l1: np.ndarray, thr: np.ndarray,
                     sub: _Subgroup) -> np.ndarray:
    """For every column of ``d_int`` (n x m, fixed point), how many of the subgroup's 2**k
    assignments (the identity included) have |sum(s_i d_i)| >= thr (thr > 0).

    The sums are computed by :meth:`_Subgroup.sums`, in blocks of elements on the thread
    pool, and they are exact: every partial sum of +-d_int is an integer of at most
    sum(|d_int|) = l1, so no rounding happens in any order, in float32 for columns with
    l1 < 2**24 (rank metrics on their grid) and in float64 for the others (l1 < 2**53 by
    :func:`_fixed_point`). The counts cannot depend on BLAS, threads or blocks. (float32
    for every column, with a band of undecided sums recomputed exactly as for the
    enumeration, measured slower: the transform's rounding bound is loose enough that the
    recomputation cost more than float64 does, 0.86 against 0.29 s for 2,989 queries x 299
    columns.)
    """
    counts = np.zeros(d_int.shape[1], dtype=np.int64)
    exact32 = l1 < _F32_EXACT
    for cols, dtype in ((np.flatnonzero(exact32), np.float32),
                        (np.flatnonzero(~exact32), np.float64)):
        if cols.size:
            d_sorted = np.ascontiguousarray(d_int[np.ix_(sub.order, cols)], dtype=dtype)
            counts[cols] = _subgroup_tally(d_sorted, thr[cols].astype(dtype), sub,
                                           l1[cols] if dtype is np.float64 else None)
    return counts


# Smallest k1 at which :func:`_subgroup_tally` first bounds |T| to skip columns: below
# it the Hadamard product is short and the bound's own pass costs as much as it saves.
# (k1 = 4, 128 to 512 queries, pays: PI-Indic's averages over 12 languages, 150 queries
# x 299 columns, 54 -> 37 ms a view on the Zen 4 host; k1 = 3 costs more than it saves.)
_BOUND_MIN_K1 = 4


def _subgroup_tally(d_sorted: np.ndarray, thr: np.ndarray, sub: _Subgroup,
                    l1: np.ndarray | None = None) -> np.ndarray:
    """The counts of :func:`_subgroup_counts` for columns whose sums are exact in the
    dtype of ``d_sorted`` (queries in the subgroup's order).

    Most of the work is the Hadamard product, and a column far below (or above) the
    leader needs none of it: |T(J1, J2)| <= sum_a |G(a, J2)| for every J1, so where that
    bound is below the threshold for every J2 of a block, no element of the block counts
    (an exact verdict: the bound is a sum of exact integers). Only the other columns go
    through the product. The identity (J = 0, whose sum is the observed one) is never
    skipped. With ``l1`` (float64 columns) the bound is read off float32 sums first, see
    :func:`_screened_tally`."""
    if l1 is not None and sub.k1 >= _BOUND_MIN_K1:
        return _screened_tally(d_sorted, thr, sub, l1)
    m = d_sorted.shape[1]
    # the bound costs a pass over G; it pays off when the product it may save is long
    bounded = sub.k1 >= _BOUND_MIN_K1
    width = int(max(1, min(1 << sub.k2, _CHUNK_BYTES // (d_sorted.itemsize * m << sub.k1))))
    # counts per block in uint16 when they cannot overflow it (exact, and fast)
    tally = np.uint16 if width << sub.k1 < 1 << 16 else np.int64
    every = np.arange(m)

    def count(first: int, last: int) -> np.ndarray:
        total = np.zeros(m, dtype=np.int64)
        buffer = np.empty(((1 << sub.k1) * width, m), dtype=bool)
        for start in range(first, last, width):
            stop = min(start + width, last)
            partial = sub.partial_sums(d_sorted, start, stop)
            live = every
            if bounded:
                reach = np.abs(partial).sum(axis=0)  # (width x columns) bounds on |T|
                if start == 0:
                    reach[0] = np.inf
                keep = np.flatnonzero((reach >= thr).any(axis=0))
                if keep.size == 0:
                    continue
                if 2 * keep.size <= partial.shape[2]:  # else gathering costs more than it saves
                    partial = partial[:, :, keep]
                    live = live[keep]
            t = sub.sums(partial)
            np.abs(t, out=t)
            hit = buffer[:t.shape[0], :t.shape[1]]
            if live.size == m:
                np.greater_equal(t, thr, out=hit)
                total += np.add.reduce(hit.view(np.uint8), axis=0, dtype=tally)
            else:
                np.greater_equal(t, thr[live], out=hit)
                total[live] += np.add.reduce(hit.view(np.uint8), axis=0, dtype=tally)
        return total

    return np.sum(_run_ranges(count, 1 << sub.k2, align=width, min_per_part=width), axis=0)


# Elements J2 per verdict of :func:`_screened_tally`: a column is transformed over a
# granule when its bound reaches the threshold anywhere in it.
_SCREEN_GRANULE = 8


def _screened_tally(d_sorted: np.ndarray, thr: np.ndarray, sub: _Subgroup,
                    l1: np.ndarray) -> np.ndarray:
    """:func:`_subgroup_tally` for float64 columns (off the grid), in two passes over each
    range of inner elements J2.

    First the bound sum_a |G(a, J2)| of every column, from G computed in float32 at twice
    the float64 rate and accumulated group by group, so each group's product covers
    about 2 MB of sums (one product per group and range instead of one per group and
    small block: 0.11 -> 0.08 s for FollowTable's 2,989 pooled pairs x 299 columns). G32
    is within (largest group + 2) * 2**-23 * sum_i |d_i| of G in any summation order (the
    rounding of each d_i to float32, then of each partial sum), and the float32 sum of the
    2**k1 terms adds at most 2**k1 * 2**-24 of a total below about l1 = sum_i |d_i|; so a
    column whose float32 bound stays below the threshold by (largest + 3 + 2**k1) * 2**-23
    * l1 over a granule of elements is skipped as surely as with the exact bound.

    Then, granule by granule, exact float64 G and the Hadamard product for the columns
    kept there, in blocks of consecutive granules as wide as 2 MB of G allows (a block
    transforms the union of its granules' columns: more than needed, each sum still
    counted once). The granule of the identity keeps every column."""
    m = d_sorted.shape[1]
    n_inner = 1 << sub.k2
    granule = min(_SCREEN_GRANULE, n_inner)
    groups = 1 << sub.k1
    d32 = d_sorted.astype(np.float32)
    largest = int(np.diff(sub.bounds).max())
    screen = (thr - (largest + 3 + groups) * 2.0**-23 * np.asarray(l1, dtype=np.float64)
              ).astype(np.float32)
    rows = int(max(granule, _CHUNK_BYTES // (4 * m) // granule * granule))
    g_bytes = groups * granule * d_sorted.itemsize  # exact G of one granule and column

    def count(first: int, last: int) -> np.ndarray:
        total = np.zeros(m, dtype=np.int64)
        bound = np.empty((min(rows, last - first), m), dtype=np.float32)
        term = np.empty_like(bound)
        for start in range(first, last, rows):
            stop = min(start + rows, last)
            width = stop - start
            inner = sub.inner[start:stop].astype(np.float32)
            acc, tmp = bound[:width], term[:width]
            acc[:] = 0.0
            for a in range(groups):
                lo, hi = sub.bounds[a], sub.bounds[a + 1]
                np.matmul(inner[:, lo:hi], d32[lo:hi], out=tmp)
                np.abs(tmp, out=tmp)
                acc += tmp
            keep = (acc.reshape(-1, granule, m) >= screen).any(axis=1)  # (granules x m)
            if start == 0:
                keep[0] = True
            live_counts = keep.sum(axis=1)
            g, n_gran = 0, keep.shape[0]
            while g < n_gran:
                if not live_counts[g]:
                    g += 1
                    continue
                # grow the block while its G stays within the chunk size
                cols = keep[g].copy()
                h = g + 1
                while h < n_gran:
                    wider = cols | keep[h]
                    if (h + 1 - g) * int(np.count_nonzero(wider)) * g_bytes > _CHUNK_BYTES:
                        break
                    cols = wider
                    h += 1
                live = np.flatnonzero(cols)
                partial = sub.partial_sums(d_sorted[:, live], start + g * granule,
                                           start + h * granule)
                t = sub.sums(partial)
                np.abs(t, out=t)
                total[live] += np.add.reduce((t >= thr[live]).view(np.uint8), axis=0,
                                             dtype=np.int64)
                g = h
        return total

    return np.sum(_run_ranges(count, n_inner, align=granule, min_per_part=16 * granule),
                  axis=0)


# ---------------------------------------------------------------------------------------
# Fixed point


def _on_grid(d: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Which columns of ``d`` lie on a 1/(2520 k) grid, k <= _GRID_MAX_TASKS, each column's
    grid size 2520 k (the smallest k that fits its first rows; 2520 for off-grid columns),
    and d * 2520 k as integers for the grid columns only (n x their number).

    The first rows are checked first: an off-grid column (continuous scores) almost always
    shows it there, for every k, and is then not scaled whole. The rest goes in blocks of
    rows, in place, so the temporaries stay in cache. A column whose first rows fit a
    coarser grid than the whole column needs is left off the grid: still tested
    correctly, as a continuous column."""
    n, m = d.shape
    sizes = np.full(m, float(_GRID))
    head = d[:16] * _GRID
    fits = np.all(np.abs(head - np.rint(head)) <= _GRID_TOL, axis=0)  # k = 1
    rest = np.flatnonzero(~fits)
    if rest.size:
        # finer grids, row by row: a column leaves as soon as no k fits it (continuous
        # scores at their first non-zero difference), so this costs little
        ks = np.arange(2, _GRID_MAX_TASKS + 1, dtype=np.float64)[:, None]
        alive = np.ones((ks.size, rest.size), dtype=bool)
        for row in head[:, rest]:
            live = np.flatnonzero(alive.any(axis=0))
            if live.size == 0:
                break
            x = row[live] * ks
            alive[:, live] &= np.abs(x - np.rint(x)) <= _GRID_TOL
        found = alive.any(axis=0)
        fits[rest[found]] = True
        sizes[rest[found]] = _GRID * ks[np.argmax(alive[:, found], axis=0), 0]  # smallest k
    maybe = np.flatnonzero(fits)
    on_grid = np.zeros(m, dtype=bool)
    if maybe.size == 0:
        return on_grid, sizes, np.empty((n, 0))
    src = d if maybe.size == m else d[:, maybe]
    factor = sizes[maybe]
    ints = np.empty((n, maybe.size))
    ok = np.ones(maybe.size, dtype=bool)
    step = max(1, (1 << 16) // maybe.size)
    buf = np.empty((step, maybe.size))
    for first in range(0, n, step):
        last = min(first + step, n)
        scaled = buf[:last - first]
        np.multiply(src[first:last], factor, out=scaled)
        np.rint(scaled, out=ints[first:last])
        np.subtract(scaled, ints[first:last], out=scaled)
        np.abs(scaled, out=scaled)
        ok &= np.all(scaled <= _GRID_TOL, axis=0)
    on_grid[maybe[ok]] = True
    sizes[maybe[~ok]] = float(_GRID)
    return on_grid, sizes, ints if ok.all() else ints[:, ok]


def _fixed_point(d: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Integer-valued float64 copies of the columns of ``d``, their sum(|.|), and which
    columns are on a 1/(2520 k) grid (their integers are d * 2520 k / gcd, exactly).

    Columns on such a grid (rank metrics with few ranks, and their means over tasks)
    become exact small integers;
    others are scaled by a power of two so that sum(|d_int|) <= 2**51 (~15 significant
    digits). Either way every partial sum of +-d_int is an integer below 2**53, exact in
    float64 in any order, which is what makes the counts independent of BLAS and threads.
    """
    n, m = d.shape
    if n == 0:
        return np.empty_like(d), np.zeros(m), np.ones(m, dtype=bool)
    on_grid, _, ints = _on_grid(d)  # the grid size cancels: only ratios of d matter
    magnitudes = np.abs(ints)
    fits = magnitudes.sum(axis=0) < _F64_BUDGET
    on_grid[np.flatnonzero(on_grid)[~fits]] = False
    gcd = np.gcd.reduce(magnitudes[:, fits].astype(np.int64), axis=0)
    gcd[gcd == 0] = 1
    if on_grid.all():  # the usual grid view: divide in place, no second matrix
        np.divide(ints, gcd, out=ints)
        return ints, magnitudes.sum(axis=0) / gcd, on_grid  # exact: integer sums
    out = np.empty_like(d)
    if on_grid.any():
        out[:, on_grid] = ints[:, fits] / gcd
    off = ~on_grid
    if off.any():
        l1 = np.abs(d[:, off]).sum(axis=0)
        q = _F64_BUDGET_EXP - np.ceil(np.log2(l1)).astype(np.int64)
        out[:, off] = np.rint(np.ldexp(d[:, off], q))
    return out, np.abs(out).sum(axis=0), on_grid


# ---------------------------------------------------------------------------------------
# Randomization test


def randomization_pvalues(diffs: np.ndarray, *, n_resamples: int = DEFAULT_RESAMPLES,
                          seed: int = 0) -> np.ndarray:
    """Two-sided paired randomization p-values for every column of ``diffs`` (n x m).

    Column j holds the per-query differences d = a - b of one pair of systems. Under the
    null hypothesis the two systems are exchangeable on each query, so each d_i is equally
    likely to have either sign. The statistic is mean(d); the p-value is the share of sign
    assignments s with |sum(s_i d_i)| >= |sum(d_i)| - TIE_RTOL * sum(|d_i|).

    * n <= EXACT_MAX_QUERIES: all 2**n assignments, p = count / 2**n (exact; the observed
      assignment is one of them, so p >= 2 / 2**n).
    * otherwise Monte-Carlo, with at least ``n_resamples`` random assignments besides the
      observed one, which is always counted, so p is never 0 and the test stays valid
      (Davison & Hinkley 1997, ch. 4; Phipson & Smyth 2010). Which random assignments
      depends on the column (below); either way p >= 1 / (n_resamples + 1).
    * a column whose threshold is 0 (all d == 0, or |sum(d)| within the tie tolerance)
      has every assignment at least as extreme: p = 1 without drawing anything.

    How the random assignments are drawn depends on the column only, never on the other
    columns, so a pair's p-value does not depend on which other systems are in the view and
    comparing it alone (``compare_pair``) gives the same figure as the leaderboard:

    * scores on the 1/2520 grid (RR@k, R@k, P@k with k <= 10, accuracy, and differences of
      them) or on a 1/(2520 k) grid (their means over k tasks) take few distinct |d_i|;
      ``n_resamples`` independent assignments are drawn as per-magnitude binomial counts
      (:func:`_binomial_counts`) at a cost independent of n, and p = (count + 1) /
      (n_resamples + 1), unless the column needs so many binomial draws per assignment
      that the subgroup below costs less (then it joins the columns below);
    * when all non-zero |d_i| are equal (0/1 metrics: R@k, accuracy), the distribution is
      that of a binomial and the p-value is exact (:func:`_single_magnitude_pvalues`), as
      for n <= EXACT_MAX_QUERIES;
    * other columns share the 2**k assignments of a random subgroup of the sign flips,
      drawn from ``seed`` and n alone, 2**k - 1 >= n_resamples of them random
      (:class:`_Subgroup`), and p = count / 2**k, the identity among those counted.

    Every count is exact (integer arithmetic, see :func:`_fixed_point`), so the p-values do
    not depend on BLAS, threads or chunking.
    """
    d = np.asarray(diffs, dtype=np.float64)
    if d.ndim != 2:
        raise ValueError(f"diffs must be a 2-D (queries x pairs) array, got shape {d.shape}")
    if not np.all(np.isfinite(d)):
        raise ValueError("differences must be finite")
    if isinstance(n_resamples, bool) or int(n_resamples) != n_resamples or n_resamples < 1:
        raise ValueError(f"n_resamples must be a positive integer, got {n_resamples!r}")
    derive_seed(seed)  # checks the seed even when no column needs random draws
    n, m = d.shape
    if m == 0:
        return np.empty(0)
    if n == 0:
        return np.ones(m)

    d_int, l1, on_grid = _fixed_point(d)
    thr = _thresholds(d_int, l1)
    p = np.ones(m)
    busy = thr > 0  # else every assignment is at least as extreme: p = 1 (incl. all d == 0)
    if n <= EXACT_MAX_QUERIES:
        if busy.any():
            p[busy] = _enumerated_counts(d_int[:, busy], thr[busy]) / float(1 << n)
        return p
    grid = busy & on_grid
    other = busy & ~on_grid
    if grid.any():
        cols = np.flatnonzero(grid)
        a = np.abs(d_int[:, cols])
        top = a.max(axis=0)
        one = np.all((a == 0) | (a == top), axis=0)  # a single non-zero magnitude
        if one.any():
            p[cols[one]] = _single_magnitude_pvalues(a[:, one], top[one], thr[cols[one]])
        mc = cols[~one]
        if mc.size:
            # binomial draws pay off while they take fewer float32 multiply-adds than the
            # subgroup's float64 transform, which runs at half that rate (a mean over many
            # tasks can take nearly one magnitude per query)
            cheap = (_binomial_slots(a[:, ~one]) * float(n_resamples)
                     <= 2.0 * _subgroup_work(n, int(n_resamples)))
            other[mc[~cheap]] = True
            mc = mc[cheap]
        if mc.size:
            counts = _binomial_counts(d_int[:, mc], l1[mc], thr[mc], int(n_resamples), seed)
            p[mc] = (counts + 1.0) / (n_resamples + 1.0)
    if other.any():
        sub = _Subgroup(n, int(n_resamples), seed)
        counts = _subgroup_counts(d_int[:, other], l1[other], thr[other], sub)
        p[other] = counts / float(sub.size)
    return p


def _single_magnitude_pvalues(a: np.ndarray, v: np.ndarray, thr: np.ndarray) -> np.ndarray:
    """Exact sign-flip p-values of columns whose non-zero |d_i| all equal v (0/1 metrics:
    R@k, accuracy): all 2**n assignments, counted in closed form.

    With c non-zero queries, sum(s_i d_i) = v (2 B - c), B ~ Binomial(c, 1/2) the number of
    them whose sign comes out +1, so the share of assignments with |sum| >= thr is
    P(B >= (c + thr/v) / 2) + P(B <= (c - thr/v) / 2): the exact randomization p-value
    (the two-sided sign test), as enumeration gives for n <= 20, with no Monte-Carlo error.
    """
    c = np.count_nonzero(a, axis=0).astype(np.float64)
    t = thr / v
    upper = np.ceil((c + t) / 2.0)   # B >= upper
    lower = np.floor((c - t) / 2.0)  # B <= lower
    p = stats.binom.sf(upper - 1.0, c, 0.5) + stats.binom.cdf(lower, c, 0.5)
    return np.minimum(p, 1.0)


def _thresholds(d_int: np.ndarray, l1: np.ndarray) -> np.ndarray:
    """|sum(d)| less the tie tolerance, in the fixed-point units of ``d_int`` (integers)."""
    observed = np.abs(d_int.sum(axis=0))  # exact: integers below 2**53
    return observed - np.floor(TIE_RTOL * l1)


def _subgroup_pvalues(diffs: np.ndarray, *, n_resamples: int = DEFAULT_RESAMPLES,
                      seed: int = 0) -> np.ndarray:
    """Monte-Carlo p-values of every column through the random subgroup, grid columns
    included (what :func:`randomization_pvalues` does for off-grid columns); for tests."""
    d = np.asarray(diffs, dtype=np.float64)
    n = d.shape[0]
    d_int, l1, _ = _fixed_point(d)
    thr = _thresholds(d_int, l1)
    p = np.ones(d.shape[1])
    busy = thr > 0
    if not busy.any():
        return p
    sub = _Subgroup(n, int(n_resamples), seed)
    p[busy] = _subgroup_counts(d_int[:, busy], l1[busy], thr[busy], sub) / float(sub.size)
    return p


# ---------------------------------------------------------------------------------------
# Monte-Carlo sign flips as per-magnitude binomial counts (scores on the grid)

_POPCOUNT8 = np.array([bin(i).count("1") for i in range(256)], dtype=np.uint8)
_POPCOUNT_MAX_LEVEL = 7  # Bin(2**k, 1/2) by counting 2**k random bits up to k = 7
_pools: dict[tuple[int, int, int], np.ndarray] = {}
_pools_lock = threading.Lock()


def _binomial_slots(magnitudes: np.ndarray) -> np.ndarray:
    """Binomial draws per assignment that :func:`_binomial_counts` needs for each column of
    integer |d| (n x m): one per set bit of each distinct non-zero magnitude's count."""
    cols, v, c = _distinct_values(magnitudes)
    keep = v > 0
    c = c[keep].astype(np.int64)
    bits = np.zeros(c.size, dtype=np.int64)
    while c.any():
        bits += _POPCOUNT8[c & 255]
        c >>= 8
    return np.bincount(cols[keep], weights=bits, minlength=magnitudes.shape[1])


def _binomial_half(seed: int, level: int, slot: int, n_resamples: int) -> np.ndarray:
    """``n_resamples`` independent draws of Binomial(2**level, 1/2): slot ``slot`` of the
    level's pool, from its own seed, so a slot never depends on how many others exist."""
    rng = _rng(seed, "randomization-binomial", level, slot, n_resamples)
    dtype = np.uint16 if level < 16 else np.uint32
    if level <= _POPCOUNT_MAX_LEVEL:
        # the number of +1 signs among 2**level fair signs, counted from random bits
        bits = 1 << level
        raw = rng.integers(0, 256, size=(n_resamples, max(1, bits // 8)), dtype=np.uint8)
        if bits < 8:
            raw &= np.uint8((1 << bits) - 1)
        return _POPCOUNT8[raw].sum(axis=1, dtype=dtype)
    return rng.binomial(1 << level, 0.5, size=n_resamples).astype(dtype)


def _binomial_pool(seed: int, level: int, slots: int, n_resamples: int) -> np.ndarray:
    """(>= slots x n_resamples) draws of Binomial(2**level, 1/2), one row per slot."""
    key = (seed, level, n_resamples)
    with _pools_lock:
        pool = _pools.get(key)
    if pool is not None and pool.shape[0] >= slots:
        return pool
    have = 0 if pool is None else pool.shape[0]
    fresh = np.stack([_binomial_half(seed, level, t, n_resamples) for t in range(have, slots)])
    pool = fresh if pool is None else np.vstack([pool, fresh])
    pool.setflags(write=False)
    with _pools_lock:
        current = _pools.get(key)
        if current is None or current.shape[0] < pool.shape[0]:
            _pools[key] = pool
    return pool


def _binomial_counts(d_int: np.ndarray, l1: np.ndarray, thr: np.ndarray, n_resamples: int,
                     seed: int) -> np.ndarray:
    """Monte-Carlo counts of |sum(s_i d_i)| >= thr for integer columns with few distinct
    |d_i| (scores on a rank grid, see :func:`_on_grid`), without a sign per query.

    Why it is the same test: the s_i are independent fair signs, so s_i * sign(d_i) are too,
    and sum(s_i d_i) has the distribution of sum over the distinct magnitudes v of
    v * (2 B_v - c_v), where c_v is how many queries have |d_i| = v and B_v, the number of
    them whose sign comes out +1, is Binomial(c_v, 1/2), independently across v. Writing
    c_v in binary, B_v is a sum of independent Binomial(2**k, 1/2) for the bits k of c_v. So
    each of the ``n_resamples`` random assignments of a column is drawn, exactly in
    distribution as flipping every query's sign at random, as

        T = 2 S - sum(|d|),   S = sum over (v, k) of v * Z[slot(v, k)]

    with Z a pool of independent Binomial(2**k, 1/2) draws: at level k the column's
    magnitudes whose count has bit k set take slots 0, 1, 2, ... in increasing order of v,
    so no slot is used twice in a column (distinct slots are independent) and the slots a
    column uses depend on that column alone. The draws are the same for every column with
    the same seed, like the shared sign matrix. The cost is n_resamples x (number of slots),
    at most about (distinct magnitudes) x log2(n), instead of n_resamples x n: an R@1 or
    accuracy column over 20,000 queries needs at most 15 slots, an RR@10 one a few hundred.

    S is an integer, computed exactly. When sum(|d|) < 2**24, one float32 product gives
    S - sum(|d|)/2 directly (a constant slot carries -sum(|d|)/2; every partial sum is a
    multiple of 1/2 below 2**23 in magnitude, exact), and |T| >= thr is
    |S - sum(|d|)/2| >= thr/2. Otherwise the magnitudes are split into base-2**b limbs small
    enough that each limb's product is below 2**24 (exact in float32), combined in float64.
    """
    n, m = d_int.shape
    cols, v, c = _distinct_values(np.abs(d_int))
    keep = v > 0
    cols, v, c = cols[keep], v[keep], c[keep]
    bounds = _segment_starts(cols, m)
    levels = int(c.max()).bit_length()
    # Slots: at level k, the column's magnitudes whose count has bit k set, in increasing
    # order of magnitude, take slots 0, 1, 2, ... (a running count within the column).
    slot_of = []
    per_level = []
    for k in range(levels):
        bit = ((c >> k) & 1).astype(np.int64)
        running = np.cumsum(bit)
        before = np.concatenate([[0], running])[bounds[:-1]]  # set bits in earlier columns
        slot = running - 1 - before[cols]
        slot_of.append((bit.astype(bool), slot))
        per_level.append(int(np.max(running[bounds[1:] - 1] - before, initial=0))
                         if cols.size else 0)
    offsets = np.concatenate([[0], np.cumsum(per_level)]).astype(int)
    n_slots = int(offsets[-1])

    single = float(l1.max()) < _F32_EXACT
    if single:
        base_bits, n_limbs = 64, 1
    else:
        nnz = int(np.max(np.add.reduceat(c, bounds[:-1])))  # limb sum <= (2**b - 1) * nnz
        base_bits = int(math.floor(math.log2(_F32_EXACT / nnz + 1)))
        n_limbs = -(-int(v.max()).bit_length() // base_bits)
    # one row per (limb, column); one column per slot, and a constant slot last
    weights = np.zeros((n_limbs * m, n_slots + 1), dtype=np.float32)
    for k, (sel, slot) in enumerate(slot_of):
        for limb in range(n_limbs):
            part = v[sel] if n_limbs == 1 else (v[sel] >> (base_bits * limb)) & (
                (1 << base_bits) - 1)
            weights[limb * m + cols[sel], offsets[k] + slot[sel]] = part
    if single:
        weights[:, n_slots] = -l1 / 2.0  # exact: a multiple of 1/2 below 2**23
        half_thr = (thr / 2.0).astype(np.float32)[:, None]
    else:
        # T >= thr  <=>  S >= (l1 + thr) / 2;  T <= -thr  <=>  S <= (l1 - thr) / 2
        upper = np.ceil((l1 + thr) / 2.0)[:, None]
        lower = np.floor((l1 - thr) / 2.0)[:, None]
        scale = [float(2 ** (base_bits * limb)) for limb in range(n_limbs)]
    pools = [_binomial_pool(seed, k, per_level[k], n_resamples) if per_level[k] else None
             for k in range(levels)]
    chunk = int(max(256, min(8192, _CHUNK_BYTES // (4 * max(n_slots + 1, n_limbs * m)))))

    def count(first: int, last: int) -> np.ndarray:
        zt = np.empty((n_slots + 1, chunk), dtype=np.float32)
        zt[n_slots] = 1.0
        buf = np.empty((n_limbs * m, chunk), dtype=np.float32)
        hit = np.empty((m, chunk), dtype=bool)
        total = np.zeros(m, dtype=np.int64)
        for start in range(first, last, chunk):
            stop = min(start + chunk, last)
            rows = stop - start
            for k, pool in enumerate(pools):
                if pool is not None:
                    zt[offsets[k]:offsets[k + 1], :rows] = pool[:per_level[k], start:stop]
            t = buf[:, :rows]
            h = hit[:, :rows]
            np.matmul(weights, zt[:, :rows], out=t)  # exact integers (or halves)
            if single:
                np.abs(t, out=t)
                np.greater_equal(t, half_thr, out=h)
            else:
                s = t[:m].astype(np.float64)
                for limb in range(1, n_limbs):
                    s += t[limb * m:(limb + 1) * m] * scale[limb]
                np.logical_or(s >= upper, s <= lower, out=h)
            # uint16 accumulation is exact (chunk <= 8192) and faster than int64
            total += np.add.reduce(h.view(np.uint8), axis=1, dtype=np.uint16)
        return total

    return np.sum(_run_ranges(count, n_resamples, align=chunk, min_per_part=chunk), axis=0)


def paired_randomization_test(a: np.ndarray | Sequence[float], b: np.ndarray | Sequence[float],
                              *, n_resamples: int = DEFAULT_RESAMPLES, seed: int = 0) -> float:
    """Fisher's two-sided paired randomization (sign-flip) test of mean(a - b) = 0.

    Exact for up to 20 queries and for 0/1 scores, Monte-Carlo with ``n_resamples`` flips
    otherwise; see
    :func:`randomization_pvalues` for the p-value conventions. Identical inputs give 1.0.
    """
    a_, b_ = _paired(a, b)
    return float(randomization_pvalues((a_ - b_)[:, None], n_resamples=n_resamples,
                                       seed=seed)[0])


# ---------------------------------------------------------------------------------------
# Wilcoxon signed-rank test


def wilcoxon_test(a: np.ndarray | Sequence[float], b: np.ndarray | Sequence[float]) -> float:
    """Two-sided Wilcoxon signed-rank p-value via ``scipy.stats.wilcoxon``.

    Zero differences are dropped (``zero_method="wilcox"``, scipy's default and what the
    mFollowIR analysis used). For p-MRR a zero means the instruction changed neither
    system's ranking relative to the other, which says nothing about which system follows
    instructions better; Pratt's method would let such queries shift the ranks of the
    informative ones. With no non-zero difference at all there is no evidence either way
    and scipy has no test statistic, so the p-value is 1.0 (scipy's other choices follow
    its defaults: exact distribution for n <= 50 without ties or zeros, a permutation
    distribution for n <= 13 with them, the tie-corrected normal approximation otherwise).
    """
    a_, b_ = _paired(a, b)
    if not np.any(a_ != b_):
        return 1.0
    p = float(stats.wilcoxon(a_, b_, zero_method="wilcox", alternative="two-sided").pvalue)
    if not math.isfinite(p):  # not expected with a non-zero difference; never report NaN
        raise ArithmeticError(f"scipy.stats.wilcoxon returned p = {p}")
    return p


def wilcoxon_pvalues(diffs: np.ndarray) -> np.ndarray:
    """:func:`wilcoxon_test` of every column of ``diffs`` (n x m) against 0, the same floats
    as one call per column, with far fewer calls.

    scipy's "auto" method picks per call: the normal approximation above 50 pairs, else the
    exact distribution without zeros or ties, else a permutation distribution up to 13
    pairs and the normal approximation above. Columns are grouped by that choice and each
    group goes to scipy in one vectorised call with the method named (the permutation
    cases stay one call each). Every sum scipy forms here is of ranks (multiples of 1/2)
    or integers, exact in any order, so a column's p-value does not depend on its group;
    tests/test_stats.py checks the equality.
    """
    d = np.asarray(diffs, dtype=np.float64)
    if d.ndim != 2:
        raise ValueError(f"diffs must be a 2-D (queries x pairs) array, got shape {d.shape}")
    if not np.all(np.isfinite(d)):
        raise ValueError("differences must be finite")
    n, m = d.shape
    p = np.ones(m)  # no non-zero difference: no evidence either way
    informative = np.any(d != 0, axis=0)
    if n > 50:
        asymptotic = informative
        exact = per_call = np.zeros(m, dtype=bool)
    else:
        a = np.sort(np.abs(d), axis=0)
        plain = ~np.any(a == 0, axis=0) & ~np.any(a[1:] == a[:-1], axis=0)
        exact = informative & plain
        per_call = informative & ~plain & (n <= 13)
        asymptotic = informative & ~plain & (n > 13)
    rows = np.ascontiguousarray(d.T)  # scipy reduces along contiguous rows
    for chosen, method in ((exact, "exact"), (asymptotic, "asymptotic")):
        if chosen.any():
            p[chosen] = stats.wilcoxon(rows[chosen], zero_method="wilcox", method=method,
                                       alternative="two-sided", axis=1).pvalue
    zero = np.zeros(n)
    for j in np.flatnonzero(per_call):
        p[j] = wilcoxon_test(d[:, j], zero)
    if not np.all(np.isfinite(p)):  # not expected with a non-zero difference
        raise ArithmeticError("scipy.stats.wilcoxon returned a non-finite p-value")
    return p


def _paired(a: np.ndarray | Sequence[float],
            b: np.ndarray | Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    a_ = np.asarray(a, dtype=np.float64)
    b_ = np.asarray(b, dtype=np.float64)
    if a_.ndim != 1 or a_.shape != b_.shape:
        raise ValueError(f"paired scores must be 1-D of equal length, got {a_.shape} "
                         f"and {b_.shape}")
    if not (np.all(np.isfinite(a_)) and np.all(np.isfinite(b_))):
        raise ValueError("scores must be finite")
    return a_, b_


def pvalues_for(test: TestName, diffs: np.ndarray, *, n_resamples: int = DEFAULT_RESAMPLES,
                seed: int = 0) -> np.ndarray:
    """p-values of ``test`` for every column of ``diffs`` (queries x pairs)."""
    if test == "randomization":
        return randomization_pvalues(diffs, n_resamples=n_resamples, seed=seed)
    if test == "wilcoxon":
        return wilcoxon_pvalues(diffs)
    raise ValueError(f"unknown test {test!r}")


# ---------------------------------------------------------------------------------------
# Holm-Bonferroni


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values, in input order.

    Sorted ascending, the i-th smallest (i from 0) becomes max over k <= i of
    min(1, (m - k) * p_(k)). The running maximum makes the adjusted values monotone in the
    raw ones, so a hypothesis is rejected at level alpha exactly when Holm's procedure
    rejects it; it controls the family-wise error rate under any dependence between the
    tests (ours share a leader and a sign matrix, so they are dependent).
    """
    p = np.asarray(list(pvalues), dtype=np.float64)
    if p.ndim != 1:
        raise ValueError("holm() takes a flat sequence of p-values")
    if p.size == 0:
        return []
    if not np.all((p >= 0) & (p <= 1)):  # also rejects NaN
        raise ValueError("p-values must lie in [0, 1]")
    m = p.size
    order = np.argsort(p, kind="stable")
    adjusted = np.minimum(1.0, np.maximum.accumulate((m - np.arange(m)) * p[order]))
    out = np.empty(m)
    out[order] = adjusted
    return out.tolist()


# ---------------------------------------------------------------------------------------
# Effect size: bootstrap interval of the mean difference


def _bootstrap_prefix(n: int, n_resamples: int, seed: int) -> np.ndarray:
    """(B x (n + 1)) prefix counts: entry (b, x) = how many of resample b's n draws fall on
    positions 0 .. x-1. Differences along a row are the per-query counts, so one table
    serves the product path (counts) and the boundary path (prefix counts).

    Built in blocks of resamples, each drawn from its own seed (seed, n, B and the block's
    first resample), so the blocks can be built on the thread pool in any order. About
    2**20 draws per block keeps the temporaries small (big fresh ones cost page faults)."""
    block = max(1, min(1024, (1 << 20) // max(n, 1)))

    def build() -> np.ndarray:
        prefix = np.zeros((n_resamples, n + 1), dtype=np.int16 if n < 2**15 else np.int32)
        offsets = np.arange(block, dtype=np.int64)[:, None] * n

        def fill(first: int, last: int) -> None:
            for start in range(first, last, block):
                rows = min(block, n_resamples - start)
                rng = _rng(seed, "bootstrap-indices", n, n_resamples, start)
                idx = rng.integers(0, n, size=(rows, n))
                idx += offsets[:rows]  # in place: a fresh 8 MB array costs its page faults
                counts = np.bincount(idx.ravel(), minlength=rows * n).reshape(rows, n)
                np.cumsum(counts, axis=1, out=prefix[start:start + rows, 1:])

        _run_ranges(fill, n_resamples, align=block, min_per_part=block)
        return prefix

    return _cached(("bootstrap-prefix", n, n_resamples, seed), build)


def _bootstrap_counts(n: int, n_resamples: int, seed: int) -> np.ndarray:
    """(n x B) float32 matrix: how often each query is drawn in each resample."""
    return _cached(("bootstrap-counts", n, n_resamples, seed), lambda: np.ascontiguousarray(
        np.diff(_bootstrap_prefix(n, n_resamples, seed), axis=1).T, dtype=np.float32))


# Largest float32 counts matrix bootstrap_mean_ci keeps between views (n <= 838 at 10,000
# resamples); larger ones are converted chunk by chunk.
_COUNTS_KEEP_BYTES = 32 * 2**20


def _distinct_values(ints: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct values of every column of an integer-valued matrix, flattened: column
    index, value and number of occurrences, ordered by column then increasing value.

    Counted with one bincount per block of columns when the values span a small range
    (scores on the grid), else by sorting each column."""
    n, m = ints.shape
    cols: list[np.ndarray] = []
    values: list[np.ndarray] = []
    counts: list[np.ndarray] = []
    if n == 0 or m == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty
    lo = ints.min(axis=0).astype(np.int64)
    span = ints.max(axis=0).astype(np.int64) - lo + 1
    block = max(1, (1 << 20) // n)  # keeps the temporaries small
    for first in range(0, m, block):
        last = min(first + block, m)
        if int(span[first:last].max()) > 8 * n + 64:  # spread out: sort instead
            ordered = np.sort(ints[:, first:last].astype(np.int64), axis=0).T  # (cols x n)
            new = np.ones(ordered.shape, dtype=bool)  # where a column's next value starts
            new[:, 1:] = ordered[:, 1:] != ordered[:, :-1]
            col, pos = np.nonzero(new)  # by column, then increasing value
            ends = np.append(pos[1:], n)
            ends[np.append(col[1:] != col[:-1], True)] = n  # a column's last value: to n
            cols.append(col + first)
            values.append(ordered[col, pos])
            counts.append(ends - pos)
            continue
        offsets = np.concatenate([[0], np.cumsum(span[first:last])])
        keys = ints[:, first:last].astype(np.int64) - lo[first:last] + offsets[:-1]
        hist = np.bincount(keys.ravel(), minlength=int(offsets[-1]))
        at = np.flatnonzero(hist)
        col = np.searchsorted(offsets, at, side="right") - 1
        cols.append(col + first)
        values.append(at - offsets[col] + lo[first + col])
        counts.append(hist[at])
    return np.concatenate(cols), np.concatenate(values), np.concatenate(counts)


def _segment_starts(cols: np.ndarray, m: int) -> np.ndarray:
    """Index of each column's first entry in a column-ordered flat array (m + 1 bounds)."""
    return np.searchsorted(cols, np.arange(m + 1), side="left")


# A grid column's resampled sums are read off the prefix table at the column's value
# boundaries when that touches fewer entries than the product would multiply: (distinct
# values - 1) * B table reads against about n * B / this many multiply-adds' time.
_BOUNDARY_RATIO = 64
_SPLIT, _SINGLE, _BOUNDARY = 0, 1, 2  # how a column's resampled sums are computed


# The sampled threshold of :func:`_tail_order_statistics`: the first 1/_SELECT_STRIDE of
# a row, and a sample rank that leaves the rank sought _SELECT_SIGMAS standard deviations
# inside the near side (an order statistic of the sample, j + 1 values of it below the
# threshold, stands for about stride * (j + 1) +- stride * sqrt(j + 1) values of the row).
_SELECT_STRIDE = 16
_SELECT_SIGMAS = 3.0


def _tail_order_statistics(x: np.ndarray, low: tuple[int, int], high: tuple[int, int], *,
                           integers: bool = False
                           ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """In every row of ``x`` (m x B), the values of ranks ``low`` counted from the smallest
    and of ranks ``high`` counted from the largest (0-based, each pair near its end):
    exactly what sorting each row would give.

    Why not ``np.partition``: a partition reorders the whole row, about 30 ms for 300 rows
    of 10,000 resampled sums, and the site asks for a few hundred intervals. Here two
    thresholds are read off a sample of each row, set so that comfortably more values
    than the ranks need fall beyond each; only those values are gathered, in one pass for
    both tails, and partitioned. The sample is the first B / _SELECT_STRIDE values of the
    row: the caller's columns are independent resamples, so any fixed set of them is a
    random sample, and reading a contiguous block costs a fraction of a strided pass over
    the whole row. A row where too few values fall beyond a threshold (an unlucky sample)
    or far too many (many tied sums) is partitioned whole instead, so the result is exact
    whatever the data.

    ``integers`` says every value is an integer (resampled sums in fixed point). Rows
    whose values then span at most 2 B are counted instead (:func:`_counted_ranks`: a
    quarter of the time for R@1 or accuracy, whose sums span a few hundred values).
    """
    m, b = x.shape
    size = -(-b // _SELECT_STRIDE)
    # The cuts are only thresholds (the counts below decide whether they serve), so the
    # sample is sorted in float32: numpy sorts and partitions float32 rows several times
    # faster than float64 ones on AVX-512 machines (0.9 against 2.6 ms for 299 x 625).
    sample = np.sort(np.asarray(x[:, :size], dtype=np.float32), axis=1)
    # the sample's span says cheaply whether the whole rows may be narrow enough to count
    if integers and float(np.max(sample[:, -1] - sample[:, 0])) < b:
        lowest = x.min(axis=1)
        span = x.max(axis=1) - lowest + 1
        if float(span.max()) <= 2 * b:
            return _counted_ranks(x, lowest, int(span.max()), low, high)

    def sample_rank(want: int) -> int:
        # smallest j + 1 = u**2 with stride * (u**2 - sigmas * u) >= want
        u = (_SELECT_SIGMAS + math.sqrt(_SELECT_SIGMAS**2 + 4 * want / _SELECT_STRIDE)) / 2
        return min(size - 1, math.ceil(u * u) - 1)

    j_low = sample_rank(max(low) + 1)
    j_high = sample_rank(max(high) + 1)
    cut_low = sample[:, j_low]
    cut_high = sample[:, size - 1 - j_high]
    # at most this many values beyond a cut, else the sample misjudged a tied row
    most_low = 3 * _SELECT_STRIDE * (j_low + 1)
    most_high = 3 * _SELECT_STRIDE * (j_high + 1)

    # np.compress on flat views: three times faster than boolean indexing here
    count_dtype = np.uint16 if b < 1 << 16 else np.int64
    near = x <= cut_low[:, None]
    n_low = np.add.reduce(near.view(np.uint8), axis=1, dtype=count_dtype).astype(np.int64)
    near |= x >= cut_high[:, None]
    counts = np.add.reduce(near.view(np.uint8), axis=1, dtype=count_dtype).astype(np.int64)
    # Values at or below cut_low go to the low side, the others at or above cut_high to
    # the high side: a prefix and a suffix of the sorted row even when the cuts cross (a
    # row of tied values). A side must hold the ranks it serves, but not so many values
    # that the sample misjudged the row; the other rows are partitioned whole below.
    n_high = counts - n_low
    fast = ((n_low >= max(low) + 1) & (n_low <= most_low)
            & (n_high >= max(high) + 1) & (n_high <= most_high))
    if not fast.all():
        near[~fast] = False
        counts[~fast] = 0
    values = np.compress(near.ravel(), x.ravel())  # row by row, in row order
    rows = np.repeat(np.arange(m), counts)
    on_low = values <= cut_low[rows]
    out = np.empty((4, m))
    # the largest values are the smallest of the negated ones
    sides = ((0, on_low, n_low, low, 1.0), (2, ~on_low, n_high, high, -1.0))
    for i, side, n_side, ranks, sign in sides if fast.any() else ():
        kept = np.where(fast, n_side, 0)
        width = int(kept.max())
        # flat position in the padded (m x width) block: row * width + place in the row
        starts = np.cumsum(kept) - kept
        flat = np.arange(int(kept.sum())) + np.repeat(np.arange(m) * width - starts, kept)
        # float32 values stay float32 (exact, and partitioned twice as fast)
        pad = np.full((m, width), np.inf,
                      dtype=np.float32 if values.dtype == np.float32 else np.float64)
        pad.ravel()[flat] = sign * np.compress(side, values)
        first, second = _two_ranks(pad, ranks)
        out[i, fast] = sign * first[fast]
        out[i + 1, fast] = sign * second[fast]
    slow = np.flatnonzero(~fast)
    if slow.size:
        whole = x[slow].astype(np.float64)
        places = (low[0], low[1], b - 1 - high[0], b - 1 - high[1])
        whole.partition(sorted(set(places)), axis=1)
        for i, place in enumerate(places):
            out[i, slow] = whole[:, place]
    return out[0], out[1], out[2], out[3]


def _two_ranks(rows: np.ndarray, ranks: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """The order statistics ``ranks`` of every row, reordering the rows. One partition at
    the higher rank, then the lower one among the values before it (their largest when
    the ranks are adjacent): numpy partitions at one rank far faster than at two."""
    k, k2 = ranks
    top = max(k, k2)
    rows.partition(top, axis=1)
    below = min(k, k2)
    if below == top:
        lower = rows[:, top]
    elif below == top - 1:
        lower = rows[:, :top].max(axis=1)
    else:
        lower = np.partition(rows[:, :top], below, axis=1)[:, below]
    at_top = rows[:, top]
    return (lower, at_top) if k <= k2 else (at_top, lower)


def _counted_ranks(x: np.ndarray, lowest: np.ndarray, width: int, low: tuple[int, int],
                   high: tuple[int, int]
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`_tail_order_statistics` of integer rows spanning at most ``width`` values
    from ``lowest``: one histogram per row (a bincount over row * width + value - lowest),
    and the value of rank r is lowest + the number of bins whose cumulative count is at
    most r. Exact, as sorting; in blocks of rows that keep the histograms near 16 MB."""
    m, b = x.shape
    out = np.empty((4, m))
    ranks = [low[0], low[1], b - 1 - high[0], b - 1 - high[1]]
    block = max(1, (1 << 21) // width)
    for first in range(0, m, block):
        last = min(first + block, m)
        rows = last - first
        keys = (x[first:last] - lowest[first:last, None]).astype(np.int64)
        keys += np.arange(rows, dtype=np.int64)[:, None] * width
        cumulative = np.bincount(keys.ravel(), minlength=rows * width
                                 ).reshape(rows, width).cumsum(axis=1)
        for i, r in enumerate(ranks):
            out[i, first:last] = lowest[first:last] + np.count_nonzero(cumulative <= r, axis=1)
    return out[0], out[1], out[2], out[3]


# Queries per product of :class:`_CoarseSums`: BLAS runs float32 products of 128 or more
# queries at full rate (96 GFLOPS on the Zen 4 host from 128 up), and a part's largest
# draw count, which sets the coarse step, grows with its size.
_PART_QUERIES = 512


class _CoarseSums:
    """Exact resampled sums of off-grid columns at the cost of about one float32 product,
    and order statistics read off float32 rows.

    The sums of fixed-point integers d (``d_int``, n x columns) need more precision than
    one float32 product holds (sums below 2**24). They are taken in two steps:

    * coarse: v = rint(d / step) with an integer step per column, summed by float32
      products over parts of about _PART_QUERIES queries, each exact because
      (the most draws any resample puts in the part) * max|v| < 2**24; the parts' sums
      are added in float32, within ``eps`` of their exact sum h (each addition rounds by
      at most 2**-24 of a sum below n * max|v|). The exact coarse sum step * h is within
      lam = n * max|d - step v| of the true sum S of every resample (its draws number n);
    * exact, where it matters: an order statistic of S lies within lam of the same order
      statistic of step * h, and a resample whose coarse sum is more than 2 lam (plus the
      rounding) from it is certainly on the same side of it in S. So only the resamples
      near the two ranks sought are summed exactly, from their draw counts, and the ranks
      are found among them, shifted by the number certainly below (see
      :meth:`exact_ranks`). That is a few dozen resamples a row at 2,989 queries.

    Against two exact products (summed in float64), this saves one product and reads the
    order statistics off float32 rows, 2.7 times faster than off float64 ones: the 20
    FollowTable bootstraps went from 2.9 to 1.8 CPU-s on one core of the Zen 4 host, the
    24 FollowIR and mFollowIR ones from 0.74 to 0.5.
    A row with too many resamples near its ranks (many tied sums) gets its exact sums in
    full instead. Either way the order statistics are those of the exact sums.
    """

    def __init__(self, d_int: np.ndarray, prefix: np.ndarray) -> None:
        n = d_int.shape[0]
        self.n = n
        self.prefix = prefix
        n_parts = max(1, round(n / _PART_QUERIES))
        edges = [round(i * n / n_parts) for i in range(n_parts + 1)]
        self.parts = list(zip(edges[:-1], edges[1:]))
        # the most draws of any resample in any part (exact: from the prefix counts)
        most = max(int((prefix[:, b].astype(np.int64) - prefix[:, a]).max())
                   for a, b in self.parts)
        largest = np.abs(d_int).max(axis=0)
        # most * (largest / step + 1/2) < 2**24 for every column
        self.step = np.floor(largest * most / (_F32_EXACT - most)) + 1.0
        coarse = np.rint(d_int / self.step)
        self.weights = np.ascontiguousarray(coarse.T, dtype=np.float32)  # (columns x n)
        residual = d_int - coarse * self.step  # exact: integers below 2**53
        self.lam = n * np.abs(residual).max(axis=0)  # |S - step h| <= lam
        # |h32 - h| <= eps: the float32 additions of the parts' exact sums
        self.eps = (len(self.parts) - 1) * 2.0**-23 * n * np.abs(coarse).max(axis=0)
        self.values = np.ascontiguousarray(d_int.T)  # (columns x n) float64: exact sums

    def _exact_sums(self, cols: np.ndarray, resamples: np.ndarray) -> np.ndarray:
        """sum_i d_int[i, col] * draws(resample, i) for each (col, resample) pair (exact:
        integers below 2**53 in float64)."""
        out = np.empty(cols.size)
        step = max(1, (1 << 19) // max(self.n, 1))
        for first in range(0, cols.size, step):
            last = min(first + step, cols.size)
            draws = np.diff(self.prefix[resamples[first:last]], axis=1).astype(np.float64)
            out[first:last] = np.einsum("pq,pq->p", draws, self.values[cols[first:last]])
        return out

    def exact_ranks(self, cols: np.ndarray, h_rows: np.ndarray, h_ranks: np.ndarray,
                    low: tuple[int, int], high: tuple[int, int]) -> np.ndarray:
        """The order statistics ``low`` (from the smallest) and ``high`` (from the
        largest) of the exact sums of columns ``cols``, given their coarse sums ``h_rows``
        (rows x B, as accumulated) and the same order statistics of those (``h_ranks``,
        4 x rows): (4 x rows), as :func:`_tail_order_statistics` returns.

        For ranks t <= t' from the smallest, with |S - step h| <= lam: S_(t) >= step h_(t)
        - lam and S_(t') <= step h_(t') + lam, so a resample with step h < step h_(t) -
        2 lam has S below S_(t) and one with step h > step h_(t') + 2 lam has S above
        S_(t'). Removing the first kind (``beyond`` of them) and the second shifts the
        ranks by ``beyond`` and changes no value: S_(t) is the (t - beyond)-th smallest
        exact sum among the resamples left. The accumulated h32 is within eps of h, and
        so is each of its order statistics: the window widens by 2 eps. Likewise from the
        largest."""
        r, b = h_rows.shape
        step = self.step[cols]
        reach = 2.0 * (self.lam[cols] / step + self.eps[cols])  # in units of h
        count_dtype = np.uint16 if b < 1 << 16 else np.int64
        out = np.empty((4, r))
        limit = max(256, b // 16)
        whole = np.zeros(r, dtype=bool)  # rows summed in full instead
        for i, ranks, sign in ((0, low, 1.0), (2, high, -1.0)):
            # a unit wider on each side for the rounding of lam / step, and rounded
            # outwards to the rows' dtype (a wider window only means more exact sums)
            lo_edge = _round_out(np.floor(h_ranks[i:i + 2].min(axis=0) - reach) - 1.0,
                                 h_rows.dtype, -np.inf)
            hi_edge = _round_out(np.ceil(h_ranks[i:i + 2].max(axis=0) + reach) + 1.0,
                                 h_rows.dtype, np.inf)
            if sign > 0:
                inward = h_rows >= lo_edge[:, None]
                near = inward & (h_rows <= hi_edge[:, None])
            else:
                inward = h_rows <= hi_edge[:, None]
                near = inward & (h_rows >= lo_edge[:, None])
            beyond = b - np.add.reduce(inward.view(np.uint8), axis=1, dtype=count_dtype
                                       ).astype(np.int64)
            per_row = np.add.reduce(near.view(np.uint8), axis=1, dtype=count_dtype
                                    ).astype(np.int64)
            whole |= per_row > limit
            if whole.any():
                near[whole] = False
            flat = np.flatnonzero(near)  # by row, then resample
            row, resample = np.divmod(flat, b)
            exact = self._exact_sums(cols[row], resample)
            kept = np.where(whole, 0, per_row)
            width = int(kept.max(initial=0))
            if width == 0:
                continue
            # the near end first: the largest values are the smallest negated ones
            pad = np.full((r, width), np.inf)
            place = np.arange(row.size) - np.repeat(np.cumsum(kept) - kept, kept)
            pad[row, place] = sign * exact
            pad.sort(axis=1)
            for rank in ranks:  # never happens (see above); summed in full if it did
                whole |= ~whole & ((rank < beyond) | (rank - beyond >= kept))
            live = np.flatnonzero(~whole)
            for j, rank in enumerate(ranks):
                out[i + j, live] = sign * pad[live, rank - beyond[live]]
        if whole.any():
            rows = np.flatnonzero(whole)
            out[:, rows] = _tail_order_statistics(self._exact_rows(cols[rows], b), low, high,
                                                  integers=True)
        return out

    def _exact_rows(self, cols: np.ndarray, b: int) -> np.ndarray:
        """The exact sums of columns ``cols`` in every resample (rows x B)."""
        out = np.empty((cols.size, b))
        chunk = max(1, (1 << 20) // max(self.n, 1))
        values = self.values[cols]
        for start in range(0, b, chunk):
            stop = min(start + chunk, b)
            draws = np.diff(self.prefix[start:stop], axis=1).astype(np.float64)
            out[:, start:stop] = values @ draws.T
        return out


def _round_out(x: np.ndarray, dtype: np.dtype, direction: float) -> np.ndarray:
    """``x`` in ``dtype``, each value rounded towards ``direction`` (-inf or +inf), so a
    comparison in ``dtype`` never narrows the interval the float64 values bound."""
    y = x.astype(dtype)
    moved = (y > x) if direction < 0 else (y < x)
    return np.where(moved, np.nextafter(y, dtype.type(direction)), y)


def bootstrap_mean_ci(diffs: np.ndarray, *, n_resamples: int = DEFAULT_BOOTSTRAP,
                      seed: int = 0, confidence: float = 0.95
                      ) -> tuple[np.ndarray, np.ndarray]:
    """Percentile bootstrap interval of mean(d) for every column of ``diffs`` (n x m).

    Queries are resampled with replacement, the same ``n_resamples`` resamples (drawn from
    ``seed`` and n) for every column, and the interval is the (1 - confidence)/2 and
    (1 + confidence)/2 quantiles of the resampled means (numpy's "linear" quantile).

    Each resampled sum is computed exactly, so the bounds are the same on any machine and
    thread count, and each column's computation depends on that column alone. Three ways,
    chosen per column:

    * scores on a rank grid (:func:`_on_grid`) with few distinct values (R@1, accuracy,
      RR@10 over many queries): the column's queries are taken in order of their value,
      so each value's queries occupy a block of positions and a resample's sum is
      sum_k u_k * (draws in block k), a difference of the resample's prefix counts at the
      block boundaries. The n draws of a resample are exchangeable across positions, so
      this is the same bootstrap (each resample a multinomial draw of n queries) at a cost
      of (distinct values) x B instead of n x B;
    * other grid scores: integers whose resampled sums stay below 2**24, exact in one
      float32 product with the per-query counts;
    * off-grid scores: fixed-point integers (the mean is then that of d rounded to about
      2**-31 of its largest |d_i| at 150 queries), summed coarsely by float32 products,
      and exactly only for the resamples near the ranks sought (:class:`_CoarseSums`).
    """
    d = np.asarray(diffs, dtype=np.float64)
    if d.ndim != 2:
        raise ValueError(f"diffs must be a 2-D (queries x pairs) array, got shape {d.shape}")
    if not 0 < confidence < 1:
        raise ValueError("confidence must be in (0, 1)")
    if isinstance(n_resamples, bool) or int(n_resamples) != n_resamples or n_resamples < 2:
        raise ValueError(f"n_resamples must be an integer >= 2, got {n_resamples!r}")
    derive_seed(seed)
    n, m = d.shape
    if n == 0 or m == 0:
        return np.zeros(m), np.zeros(m)

    prefix = _bootstrap_prefix(n, int(n_resamples), seed)  # (B x (n + 1))
    on_grid, sizes, g_ints = _on_grid(d)  # integers of the grid columns, in column order
    # mean = sum * unit / scale: grid columns' sums are in units of gcd / size
    scale = n * sizes
    unit = np.ones(m)
    const = np.zeros(m)  # the boundary path's constant term, u_K n
    small = np.zeros(m, dtype=bool)  # every resampled sum below 2**24: exact in float32
    grid = np.flatnonzero(on_grid)
    kind = np.full(m, _SPLIT)
    if grid.size:
        gcd = np.gcd.reduce(np.abs(g_ints).astype(np.int64), axis=0)
        gcd[gcd == 0] = 1
        # exact: every entry is a multiple of its column's gcd
        cols, u, c = _distinct_values(g_ints / gcd)
        bounds = _segment_starts(cols, grid.size)
        n_values = np.diff(bounds)
        biggest = np.maximum.reduceat(np.abs(u), bounds[:-1])
        kind[grid] = np.where((n_values - 1) * _BOUNDARY_RATIO <= n, _BOUNDARY,
                              np.where(n * biggest.astype(np.float64) < _F32_EXACT,
                                       _SINGLE, _SPLIT))
        unit[grid] = np.where(kind[grid] == _SPLIT, 1.0, gcd)  # split: d itself, see below
        # a sum of n values of at most `biggest`: below 2**24 on both paths in units of gcd
        small[grid] = (kind[grid] != _SPLIT) & (n * biggest.astype(np.float64) < _F32_EXACT)
        # Boundary path: sum_k u_k (F(end_k) - F(start_k)) = u_K n + sum_{k>1} (u_{k-1} - u_k)
        # F(start_k), F the resample's prefix counts with the values' blocks in order.
        last = bounds[1:] - 1
        on_b = kind[grid] == _BOUNDARY
        const[grid[on_b]] = u[last[on_b]] * float(n)
        entry_b = on_b[cols]
        not_last = np.ones(cols.size, dtype=bool)
        not_last[last] = False
        pick = np.flatnonzero(entry_b & not_last)
        ends = np.cumsum(c) - np.repeat(np.concatenate([[0], np.cumsum(c)])[bounds[:-1]],
                                        n_values)  # positions after each value's block
        b_cols = grid[on_b]
        width = int((n_values[on_b] - 1).max(initial=0))
        cuts_pad = np.zeros((b_cols.size, width), dtype=np.intp)  # F(0) = 0: padding
        w_pad = np.zeros((b_cols.size, width))
        if pick.size:
            row = np.searchsorted(b_cols, grid[cols[pick]])
            pos = pick - bounds[cols[pick]]
            cuts_pad[row, pos] = ends[pick]
            w_pad[row, pos] = u[pick] - u[pick + 1]
        keep = n_values[on_b] > 1  # a constant column's sum is the same in every resample
        cuts_pad, w_pad, b_cols = cuts_pad[keep], w_pad[keep], b_cols[keep]
    else:
        b_cols = np.zeros(0, dtype=int)
        cuts_pad = np.zeros((0, 0), dtype=np.intp)
        w_pad = np.zeros((0, 0))
    single = np.flatnonzero(kind == _SINGLE)
    split = np.flatnonzero(kind == _SPLIT)

    # (columns, weights (columns x queries), first query, last query): the products
    # accumulate rows @ counts[first:last] into the columns' sums
    products: list[tuple[np.ndarray, np.ndarray, int, int]] = []
    if single.size:
        in_grid = np.searchsorted(grid, single)
        rows = np.ascontiguousarray((g_ints[:, in_grid] / unit[single]).T,
                                    dtype=np.float32)
        products.append((single, rows, 0, n))
    coarse: _CoarseSums | None = None
    if split.size:
        # The fixed-point scale: |d_int| <= (2**23 / n - 1) * 2**(24 - log2 n), about
        # 2**47 / n**2 (2**-31 of max|d| at 150 queries). It is the scale of the earlier
        # two-part sums (d_int = hi * 2**k + lo, each part's sums below 2**24), kept so
        # the intervals did not change with the way the sums are taken.
        k = int(math.floor(24 - math.log2(n)))
        hi_max = math.floor(2**23 / n) - 1
        if k < 1 or hi_max < 1:
            raise ValueError(f"too many queries for the exact bootstrap ({n})")
        ds = d[:, split]
        maxabs = np.abs(ds).max(axis=0)
        target = float(hi_max) * 2.0**k
        with np.errstate(divide="ignore"):
            q = np.where(maxabs > 0,
                         np.floor(np.log2(target / np.where(maxabs > 0, maxabs, 1))),
                         0).astype(np.int64)
        d_int = np.rint(np.ldexp(ds, q))  # |d_int| <= target: the figures are of these
        scale[split] = np.ldexp(float(n), q)  # each sum is of n values scaled by 2**q
        coarse = _CoarseSums(d_int, prefix)
        for first, last in coarse.parts:
            products.append((split, coarse.weights[:, first:last], first, last))
    g_ints = None
    # exact integers (coarse sums of split columns: within their eps); float32 halves
    # the memory the order statistics read when it can
    sums = np.empty((m, n_resamples),
                    dtype=np.float32 if (small | (kind == _SPLIT)).all() else np.float64)
    constant = np.flatnonzero(kind == _BOUNDARY)  # the others are written by the products
    sums[constant] = const[constant, None]  # a one-value column's sum never changes

    # The products read the counts as a float32 (n x B) matrix: kept for the next view of
    # the same size when it is small (PI-Indic's hundred views of 150 pairs share one of
    # 6 MB instead of converting the prefix table chunk by chunk and multiplying by
    # transposed chunks: about 1 of 31 ms a view), else converted chunk by chunk.
    counts32 = (_bootstrap_counts(n, int(n_resamples), seed)
                if products and 4 * n * n_resamples <= _COUNTS_KEEP_BYTES else None)
    if b_cols.size or products:
        per_row = max(n, b_cols.size * cuts_pad.shape[1])
        # at least 512 resamples a chunk unless that passes 64 MB: narrower products run
        # well below the cores' peak (2,989 queries x 299 columns: 0.61 s with the 87
        # resamples of 2 MB chunks, 0.46 s with 512, on the Zen 4 host)
        chunk = int(max(min(512, (1 << 26) // (8 * per_row)),
                        min(2048, _CHUNK_BYTES // (8 * per_row))))
        flat_cuts = cuts_pad.ravel()
        const_b = const[b_cols]

        def resampled_sums(first: int, last: int) -> None:
            for start in range(first, last, chunk):
                stop = min(start + chunk, last)
                block = prefix[start:stop]
                if b_cols.size:
                    # every product and partial sum is an integer below 2**53: exact
                    picked = block[:, flat_cuts].reshape(stop - start, *cuts_pad.shape)
                    part = np.einsum("rgk,gk->gr", picked.astype(np.float64), w_pad)
                    sums[b_cols, start:stop] = part + const_b[:, None]
                if products:
                    counts_t = (counts32[:, start:stop] if counts32 is not None else
                                np.diff(block, axis=1).astype(np.float32).T)  # (n x rows)
                    done: set[int] = set()
                    for cols_, rows_, q_first, q_last in products:
                        part = rows_ @ counts_t[q_first:q_last]  # exact integers, float32
                        target = slice(None) if cols_.size == m else cols_
                        if id(cols_) in done:
                            sums[target, start:stop] += part
                        else:
                            sums[target, start:stop] = part
                            done.add(id(cols_))

        _run_ranges(resampled_sums, n_resamples, align=chunk, min_per_part=2048)

    tail = (1.0 - confidence) / 2.0
    positions = ((n_resamples - 1) * tail, (n_resamples - 1) * (1.0 - tail))
    bounds = np.empty((2, m))

    # order statistics fl and fl + 1 of each position, interpolated as numpy's "linear"
    # quantile; the upper position's are counted from the top
    top = n_resamples - 1
    floors = [int(math.floor(pos)) for pos in positions]
    low = (floors[0], min(floors[0] + 1, top))
    high = (top - min(floors[1] + 1, top), top - floors[1])

    def quantiles(first: int, last: int) -> None:
        rows = sums[first:last]
        row_unit = unit[first:last]
        row_scale = scale[first:last]
        ranks = np.array(_tail_order_statistics(rows, low, high, integers=True))
        if coarse is not None:  # the split columns' sums so far are coarse: made exact
            inside = np.flatnonzero((split >= first) & (split < last))
            if inside.size:
                at = split[inside] - first
                # every row split (the usual off-grid view): no copy of the rows
                h_rows = rows if at.size == rows.shape[0] else rows[at]
                ranks[:, at] = coarse.exact_ranks(inside, h_rows, ranks[:, at], low, high)
        lo_k, lo_k2, hi_k, hi_k2 = ranks
        for i, (below, above) in enumerate(((lo_k, lo_k2), (hi_k2, hi_k))):
            # back to units of the grid (exact: integers below 2**53), then to means
            below, above = below * row_unit / row_scale, above * row_unit / row_scale
            bounds[i, first:last] = below + (positions[i] - floors[i]) * (above - below)

    _run_ranges(quantiles, m, min_per_part=16)
    return bounds[0].copy(), bounds[1].copy()
