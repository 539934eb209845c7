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
  order gives the same result.
* **Fast enough for a whole leaderboard.** A view has hundreds of systems and there are
  hundreds of views, each comparison wanting 100,000 random sign flips. The flips are drawn
  once per (seed, number of queries) and applied to all systems of a view with one matrix
  product (``differences.T @ signs``), which BLAS runs near peak speed. The product is done
  in float32 (about 4x faster than float64 here) and every count it cannot decide for
  certain is recomputed exactly; see :func:`randomization_pvalues`. The products run in
  chunks on a small thread pool, each with single-threaded BLAS: OpenBLAS's own threads
  synchronise on every call and, on a machine shared with other jobs, spin-waiting made
  them 6-17x slower than one thread in our measurements. The counts are exact integers, so
  the split of the work cannot change a result.
"""

from __future__ import annotations

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
_GRID = 2520
_GRID_TOL = 1e-7  # in grid units; float noise of a score times 2520 is ~1e-13
_F32_EXACT = float(2**24)  # integers below this are exact in float32, and so are sums of them
_F64_BUDGET_EXP = 51  # fixed-point budget for sum(|d|): 2**51, a bit of headroom below 2**53
_F64_BUDGET = float(2**_F64_BUDGET_EXP)
# Column chunk of the sign matrix: bounds memory and keeps the (systems x chunk) product
# and its comparisons in cache. Chunking never changes a result (all counts are exact).
_CHUNK_BYTES = 1 << 21
_SIGN_LUT = np.array([1.0, -1.0], dtype=np.float32)  # bit 0 -> +1, bit 1 -> -1


# ---------------------------------------------------------------------------------------
# Parallel chunks with single-threaded BLAS

_MAX_WORKERS = 8
_pool: ThreadPoolExecutor | None = None
_blas: Any = None  # threadpoolctl.ThreadpoolController, or False when unavailable
_pool_lock = threading.Lock()


def _workers() -> int:
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


@contextmanager
def _single_threaded_blas() -> Iterator[bool]:
    ctl = _controller()
    if not ctl:
        yield False
        return
    with ctl.limit(limits=1, user_api="blas"):
        yield True


def _split(total: int, parts: int, align: int) -> list[tuple[int, int]]:
    """``parts`` contiguous ranges covering range(total), boundaries multiples of align."""
    step = -(-total // parts)
    step = -(-step // align) * align
    return [(a, min(a + step, total)) for a in range(0, total, step)]


def _run_ranges(fn: Callable[[int, int], Any], total: int, align: int = 1,
                min_per_part: int = 1) -> list[Any]:
    """fn(start, stop) over contiguous ranges of range(total), in parallel if it pays off.

    Results come back in range order. With no way to pin BLAS to one thread, or one range,
    it runs fn(0, total) here and BLAS uses its own threads.
    """
    global _pool
    parts = min(_workers(), max(1, total // max(min_per_part, 1)))
    if parts <= 1:
        return [fn(0, total)]
    with _single_threaded_blas() as pinned:
        if not pinned:
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
# Cache of random matrices. Drawing 100,000 x n sign bits and expanding them to float32
# costs a sizeable fraction of applying them to a whole view, and every view of the same
# size and seed uses the same matrix, so keep them (least recently used first out).

_CACHE_BUDGET = 320 * 2**20
_cache: OrderedDict[tuple, np.ndarray] = OrderedDict()
_cache_lock = threading.Lock()


def _cached(key: tuple, build: Callable[[], np.ndarray]) -> np.ndarray:
    with _cache_lock:
        if key in _cache:
            _cache.move_to_end(key)
            return _cache[key]
    value = build()
    value.setflags(write=False)
    if value.nbytes <= _CACHE_BUDGET:
        with _cache_lock:
            _cache[key] = value
            while sum(v.nbytes for v in _cache.values()) > _CACHE_BUDGET:
                _cache.popitem(last=False)
    return value


def clear_caches() -> None:
    """Drop cached sign and bootstrap matrices (tests use it to check regeneration)."""
    with _cache_lock:
        _cache.clear()


class _Signs:
    """A +-1 sign matrix, one assignment per column, handed out in chunks of columns.

    Stored transposed (queries x assignments) because ``d.T @ signs`` (pairs x
    assignments) measured faster here than ``signs @ d`` for narrow views, and it lets the
    counts reduce along contiguous memory.

    Monte-Carlo: ``n_resamples`` assignments of independent fair signs, drawn in one call
    from ``Generator(PCG64(derive_seed(seed, "randomization-signs", n, n_resamples)))`` as
    packed bits (bit 0 -> +1). Exact: the 2**(n-1) assignments whose first sign is +1; flipping
    every sign leaves |mean| unchanged, so they stand for all 2**n assignments in pairs.
    """

    def __init__(self, n: int, n_resamples: int, seed: int) -> None:
        self.n = n
        self.exact = n <= EXACT_MAX_QUERIES
        if self.exact:
            self.rows = 1 << max(n - 1, 0)
            self._full: np.ndarray | None = _cached(("exact", n), self._enumerate)
            self._packed = None
        else:
            self.rows = n_resamples
            self._packed = _cached(("packed", n, n_resamples, seed),
                                   lambda: self._draw(n, n_resamples, seed))
            full_bytes = n_resamples * n * 4
            self._full = (_cached(("signs", n, n_resamples, seed),
                                  lambda: self._expand(0, n_resamples))
                          if full_bytes <= _CACHE_BUDGET // 2 else None)

    def _enumerate(self) -> np.ndarray:
        n = self.n
        r = np.arange(self.rows, dtype=np.int64)[None, :]
        bits = ((r >> np.arange(n - 1, dtype=np.int64)[:, None]) & 1).astype(np.uint8)
        out = np.empty((n, self.rows), dtype=np.float32)
        out[0] = 1.0
        out[1:] = _SIGN_LUT[bits]
        return out

    @staticmethod
    def _draw(n: int, rows: int, seed: int) -> np.ndarray:
        rng = _rng(seed, "randomization-signs", n, rows)
        return rng.integers(0, 256, size=(rows, (n + 7) // 8), dtype=np.uint8)

    def _expand(self, start: int, stop: int) -> np.ndarray:
        assert self._packed is not None
        bits = np.unpackbits(self._packed[start:stop], axis=1, count=self.n, bitorder="little")
        return np.ascontiguousarray(_SIGN_LUT[bits].T)

    def chunk(self, start: int, stop: int) -> np.ndarray:
        """Columns start:stop, (n x (stop - start)) float32."""
        if self._full is not None:
            return self._full[:, start:stop]
        return self._expand(start, stop)


# ---------------------------------------------------------------------------------------
# Fixed point


def _on_grid(d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """d * 2520 rounded to integers, and which columns that represents exactly."""
    scaled = d * _GRID
    ints = np.rint(scaled)
    return ints, np.all(np.abs(scaled - ints) <= _GRID_TOL, axis=0)


def _fixed_point(d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Integer-valued float64 copies of the columns of ``d`` and their sum(|.|).

    Columns on the 1/2520 grid (rank metrics with few ranks) become exact small integers;
    others are scaled by a power of two so that sum(|d_int|) <= 2**51 (~15 significant
    digits). Either way every partial sum of +-d_int is an integer below 2**53, exact in
    float64 in any order, which is what makes the counts independent of BLAS and threads.
    """
    n, m = d.shape
    out = np.empty_like(d)
    if n == 0:
        return out, np.zeros(m)
    ints, on_grid = _on_grid(d)
    on_grid &= np.abs(ints).sum(axis=0) < _F64_BUDGET
    if on_grid.any():
        g = ints[:, on_grid]
        gcd = np.gcd.reduce(np.abs(g).astype(np.int64), axis=0)
        out[:, on_grid] = g / np.where(gcd == 0, 1, gcd)
    off = ~on_grid
    if off.any():
        l1 = np.abs(d[:, off]).sum(axis=0)
        q = _F64_BUDGET_EXP - np.ceil(np.log2(l1)).astype(np.int64)
        out[:, off] = np.rint(np.ldexp(d[:, off], q))
    return out, np.abs(out).sum(axis=0)


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
    * otherwise: ``n_resamples`` random assignments and p = (count + 1) / (n_resamples + 1),
      the observed assignment counted as one more draw. This never gives p = 0 and keeps
      the test valid (Davison & Hinkley 1997, ch. 4; Phipson & Smyth 2010).

    All columns share one sign matrix, drawn from ``seed`` and n alone. So a pair's p-value
    does not depend on which other systems are in the view, and comparing it alone
    (``compare_pair``) gives the same figure as the leaderboard.

    How the counts stay exact while the product runs in float32: with d in fixed point
    (see :func:`_fixed_point`), an assignment's sum is an integer T. float32 evaluates it
    within delta = (n + 2) * 2**-23 * sum(|d|) (twice the textbook bound for any summation
    order: n roundings of partial sums plus the rounding of d to float32). Rows whose
    float32 value is more than delta from the threshold are decided by it; the few within
    delta are recomputed in float64, which is exact for these integers (the brute-force
    comparison in tests/test_stats.py checks this). Columns whose
    integers sum below 2**24 (grid metrics: RR@10, R@k) are exact in float32 already.
    """
    d = np.asarray(diffs, dtype=np.float64)
    if d.ndim != 2:
        raise ValueError(f"diffs must be a 2-D (queries x pairs) array, got shape {d.shape}")
    if not np.all(np.isfinite(d)):
        raise ValueError("differences must be finite")
    if isinstance(n_resamples, bool) or int(n_resamples) != n_resamples or n_resamples < 1:
        raise ValueError(f"n_resamples must be a positive integer, got {n_resamples!r}")
    n, m = d.shape
    if m == 0:
        return np.empty(0)
    if n == 0:
        return np.ones(m)

    d_int, l1 = _fixed_point(d)
    observed = np.abs(d_int.sum(axis=0))  # exact: integers below 2**53
    thr = observed - np.floor(TIE_RTOL * l1)
    trivial = thr <= 0  # every assignment is at least as extreme: p = 1 (incl. all d == 0)
    exact32 = l1 < _F32_EXACT
    delta = np.where(exact32 | trivial, 0.0, l1 * (n + 2) * 2.0**-23)
    # float32 thresholds, rounded outwards so the decided rows are decided correctly
    lo32 = np.where(trivial, 0.0, thr - delta).astype(np.float32)
    hi32 = np.where(trivial, 0.0, thr + delta).astype(np.float32)
    loose = delta > 0
    lo32[loose] = np.nextafter(lo32[loose], np.float32(-np.inf))
    hi32[loose] = np.nextafter(hi32[loose], np.float32(np.inf))
    any_loose = bool(loose.any())

    d32_t = np.ascontiguousarray(d_int.T, dtype=np.float32)  # (m x n)
    d_int_t = np.ascontiguousarray(d_int.T)
    lo32c, hi32c = lo32[:, None], hi32[:, None]
    signs = _Signs(n, int(n_resamples), seed)
    chunk = int(max(256, min(8192, _CHUNK_BYTES // (4 * m))))

    def count(first: int, last: int) -> np.ndarray:
        buf = np.empty((m, chunk), dtype=np.float32)
        hit = np.empty((m, chunk), dtype=bool)
        total = np.zeros(m, dtype=np.int64)
        for start in range(first, last, chunk):
            stop = min(start + chunk, last)
            s = signs.chunk(start, stop)  # (n x cols)
            t = buf[:, : stop - start]
            h = hit[:, : stop - start]
            np.matmul(d32_t, s, out=t)
            np.abs(t, out=t)
            np.greater_equal(t, hi32c, out=h)
            # uint16 accumulation is exact (chunk <= 8192) and twice as fast as int64
            sure = np.add.reduce(h.view(np.uint8), axis=1, dtype=np.uint16).astype(np.int64)
            if any_loose:
                np.greater_equal(t, lo32c, out=h)
                maybe = np.add.reduce(h.view(np.uint8), axis=1, dtype=np.uint16
                                      ).astype(np.int64)
                if (maybe > sure).any():
                    sure = _resolve(s, t, lo32, hi32, thr, d_int_t, sure, maybe)
            total += sure
        return total

    counts = np.sum(_run_ranges(count, signs.rows, align=chunk, min_per_part=chunk), axis=0)

    if signs.exact:
        return counts / float(signs.rows)
    return (counts + 1.0) / (signs.rows + 1.0)


def _resolve(s: np.ndarray, t: np.ndarray, lo32: np.ndarray, hi32: np.ndarray,
             thr: np.ndarray, d_int_t: np.ndarray, sure: np.ndarray,
             maybe: np.ndarray) -> np.ndarray:
    """Recount, exactly, the assignments of one chunk that float32 could not decide.

    ``s`` is the chunk of signs (n x cols), ``t`` the float32 |sums| (pairs x cols).
    """
    sure = sure.copy()
    pairs = np.flatnonzero(maybe > sure)
    sub = t[pairs]
    which, cols = np.nonzero((sub >= lo32[pairs, None]) & (sub < hi32[pairs, None]))
    if cols.size <= 4 * s.shape[1]:
        # a handful: exact dot products of the undecided (pair, assignment) combinations
        j = pairs[which]
        exact = np.einsum("kn,kn->k", s[:, cols].T.astype(np.float64), d_int_t[j])
        sure += np.bincount(j[np.abs(exact) >= thr[j]], minlength=sure.size)
    else:
        # many near-ties (repeated score values): redo these pairs in float64, exactly
        full = d_int_t[pairs] @ s.astype(np.float64)
        sure[pairs] = np.count_nonzero(np.abs(full) >= thr[pairs, None], axis=1)
    return sure


def paired_randomization_test(a: np.ndarray | Sequence[float], b: np.ndarray | Sequence[float],
                              *, n_resamples: int = DEFAULT_RESAMPLES, seed: int = 0) -> float:
    """Fisher's two-sided paired randomization (sign-flip) test of mean(a - b) = 0.

    Exact for up to 20 queries, Monte-Carlo with ``n_resamples`` flips otherwise; see
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
        zero = np.zeros(diffs.shape[0])
        return np.array([wilcoxon_test(diffs[:, j], zero) for j in range(diffs.shape[1])])
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


def _bootstrap_counts(n: int, n_resamples: int, seed: int) -> np.ndarray:
    """(n x B) float32 matrix: how often each query is drawn in each resample."""

    def build() -> np.ndarray:
        rng = _rng(seed, "bootstrap-indices", n, n_resamples)
        counts = np.empty((n_resamples, n), dtype=np.float32)
        block = 1024  # fixed, so the draws never depend on anything but the arguments
        for start in range(0, n_resamples, block):
            rows = min(block, n_resamples - start)
            idx = rng.integers(0, n, size=(rows, n)) + (np.arange(rows) * n)[:, None]
            counts[start:start + rows] = np.bincount(idx.ravel(), minlength=rows * n
                                                     ).reshape(rows, n)
        return np.ascontiguousarray(counts.T)

    return _cached(("bootstrap", n, n_resamples, seed), build)


def bootstrap_mean_ci(diffs: np.ndarray, *, n_resamples: int = DEFAULT_BOOTSTRAP,
                      seed: int = 0, confidence: float = 0.95
                      ) -> tuple[np.ndarray, np.ndarray]:
    """Percentile bootstrap interval of mean(d) for every column of ``diffs`` (n x m).

    Queries are resampled with replacement, the same ``n_resamples`` resamples (drawn from
    ``seed`` and n) for every column, and the interval is the (1 - confidence)/2 and
    (1 + confidence)/2 quantiles of the resampled means (numpy's "linear" quantile).

    Each resampled sum is computed exactly, so the bounds are the same on any machine and
    thread count. Scores on the 1/2520 grid (RR@10, R@k) are integers whose resampled sums
    stay below 2**24, exact in one float32 product. Other scores are split into two
    fixed-point integer parts whose sums stay below 2**24, two exact float32 products
    combined exactly in float64; the mean is then that of d rounded to about 2**-31 of its
    largest |d_i|.
    """
    d = np.asarray(diffs, dtype=np.float64)
    if d.ndim != 2:
        raise ValueError(f"diffs must be a 2-D (queries x pairs) array, got shape {d.shape}")
    if not 0 < confidence < 1:
        raise ValueError("confidence must be in (0, 1)")
    if isinstance(n_resamples, bool) or int(n_resamples) != n_resamples or n_resamples < 2:
        raise ValueError(f"n_resamples must be an integer >= 2, got {n_resamples!r}")
    n, m = d.shape
    if n == 0 or m == 0:
        return np.zeros(m), np.zeros(m)

    ints, on_grid = _on_grid(d)
    single = bool(on_grid.all()) and n * float(np.abs(ints).max()) < _F32_EXACT
    if single:  # a resampled sum is at most n * max|ints|: exact in float32
        hi32 = np.ascontiguousarray(ints.T, dtype=np.float32)
        lo32 = None
        k = 0
        scale = np.full(m, float(n * _GRID))
    else:
        k = int(math.floor(24 - math.log2(n)))  # low part: n * 2**(k-1) <= 2**23
        hi_max = math.floor(2**23 / n) - 1  # high part: n * |hi| < 2**23
        if k < 1 or hi_max < 1:
            raise ValueError(f"too many queries for the exact bootstrap ({n})")
        maxabs = np.abs(d).max(axis=0)
        target = float(hi_max) * 2.0**k
        with np.errstate(divide="ignore"):
            q = np.where(maxabs > 0,
                         np.floor(np.log2(target / np.where(maxabs > 0, maxabs, 1))),
                         0).astype(np.int64)
        d_int = np.rint(np.ldexp(d, q))
        hi = np.rint(np.ldexp(d_int, -k))
        hi32 = np.ascontiguousarray(hi.T, dtype=np.float32)
        lo32 = np.ascontiguousarray((d_int - np.ldexp(hi, k)).T, dtype=np.float32)
        scale = np.ldexp(float(n), q)  # each sum is of n values scaled by 2**q

    counts_t = _bootstrap_counts(n, int(n_resamples), seed)  # (n x B)
    sums = np.empty((m, n_resamples), dtype=np.float64)  # exact integers

    def resampled_sums(first: int, last: int) -> None:
        part = sums[:, first:last]
        np.ldexp(hi32 @ counts_t[:, first:last], k, out=part, dtype=np.float64)
        if lo32 is not None:
            part += lo32 @ counts_t[:, first:last]

    _run_ranges(resampled_sums, n_resamples, align=512, min_per_part=2048)

    tail = (1.0 - confidence) / 2.0
    positions = ((n_resamples - 1) * tail, (n_resamples - 1) * (1.0 - tail))
    bounds = np.empty((2, m))

    def quantiles(first: int, last: int) -> None:
        rows = sums[first:last]
        row_scale = scale[first:last]
        for i, pos in enumerate(positions):
            # order statistics fl and fl + 1, interpolated as numpy's "linear" quantile.
            # A single-kth partition then a max is ~3x faster than a multi-kth partition
            # (only the single-kth one has a vectorised kernel).
            fl = int(math.floor(pos))
            above_i = min(fl + 1, n_resamples - 1)
            rows.partition(above_i, axis=1)
            above = rows[:, above_i]
            below = rows[:, :above_i].max(axis=1) if above_i > fl else above
            below, above = below / row_scale, above / row_scale
            bounds[i, first:last] = below + (pos - fl) * (above - below)

    _run_ranges(quantiles, m, min_per_part=16)
    return bounds[0].copy(), bounds[1].copy()
