"""Monte-Carlo sign flips as a random subgroup of the sign-flip group (off-grid scores)."""

from __future__ import annotations

import itertools
import math

import numpy as np

from .conventions import seeded_rng
from .fixedpoint import F32_EXACT
from .runtime import EXECUTOR


def parity_signs(codes: np.ndarray, bits: int, dtype: type = np.float64) -> np.ndarray:
    """(2**bits x len(codes)) matrix of (-1) ** popcount(code & J), row J.

    Built by doubling: for J < 2**t, row J + 2**t is row J times the signs of bit t of the
    codes, so each entry costs one multiply in ``dtype``, far less than a popcount of
    every entry in int64 and a conversion (the site builds about twenty of these
    tables)."""
    codes = np.asarray(codes, dtype=np.int64)
    out = np.empty((1 << bits, codes.size), dtype=dtype)
    out[0] = 1
    for t in range(bits):
        flip = (1 - 2 * ((codes >> t) & 1)).astype(dtype)
        np.multiply(out[:1 << t], flip, out=out[1 << t:2 << t])
    return out


def full_rank(codes: np.ndarray, k: int) -> bool:
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


def subgroup_shape(n: int, n_resamples: int) -> tuple[int, int]:
    """k and k1 of the subgroup for n queries (:class:`Subgroup`): k the bit length of
    ``n_resamples`` (2**k - 1 >= n_resamples random assignments; 17 for 100,000), at most
    n (with k = n the subgroup is the whole group); k1 about log2(n) / 2, which minimises
    the transform's n * 2**(k - k1) + 2**(k1 + k) multiply-adds per column."""
    k = min(int(n_resamples).bit_length(), n)
    k1 = int(min(max(round(math.log2(n) / 2), 1), k - 1)) if k > 1 else 0
    return k, k1


def subgroup_work(n: int, n_resamples: int) -> float:
    """Multiply-adds per column of the subgroup's transform for n queries."""
    k, k1 = subgroup_shape(n, n_resamples)
    return float(n * (1 << (k - k1)) + (1 << (k1 + k)))


class Subgroup:
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
      FollowTable's 2,989 pooled pairs 27 times fewer (:func:`subgroup_counts`).

    ``k`` and ``k1`` come from :func:`subgroup_shape`; ``k1`` only sets how the sums are
    computed, never their values.
    """

    def __init__(self, n: int, n_resamples: int, seed: int) -> None:
        self.n = n
        self.k, self.k1 = k, k1 = subgroup_shape(n, n_resamples)
        self.size = 1 << k
        self.codes = EXECUTOR.cached(("subgroup-codes", n, k, seed), lambda: self._draw(n, k, seed))
        self.k2 = k2 = k - k1
        outer = self.codes >> k2
        # queries sorted by their outer code, so each G(a, .) reads a contiguous block
        self.order = np.argsort(outer, kind="stable")
        self.bounds = np.searchsorted(outer[self.order], np.arange((1 << k1) + 1))
        inner = self.codes[self.order] & ((1 << k2) - 1)
        # (2**k2 x n) signs of the inner elements J2 on the sorted queries, one byte each
        self.inner = EXECUTOR.cached(("subgroup-inner", n, k, seed, k1),
                             lambda: parity_signs(inner, k2, np.int8))
        self.hadamard = EXECUTOR.cached(("hadamard", k1), lambda: parity_signs(
            np.arange(1 << k1, dtype=np.int64), k1))

    @staticmethod
    def _draw(n: int, k: int, seed: int) -> np.ndarray:
        for attempt in itertools.count():
            rng = seeded_rng(seed, "randomization-subgroup", n, k, attempt)
            codes = rng.integers(0, 1 << k, size=n, dtype=np.int64)
            if full_rank(codes, k):
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


def subgroup_counts(d_int: np.ndarray, l1: np.ndarray, thr: np.ndarray,
                     sub: Subgroup) -> np.ndarray:
    """For every column of ``d_int`` (n x m, fixed point), how many of the subgroup's 2**k
    assignments (the identity included) have |sum(s_i d_i)| >= thr (thr > 0).

    The sums are computed by :meth:`Subgroup.sums`, in blocks of elements on the thread
    pool, and they are exact: every partial sum of +-d_int is an integer of at most
    sum(|d_int|) = l1, so no rounding happens in any order, in float32 for columns with
    l1 < 2**24 (rank metrics on their grid) and in float64 for the others (l1 < 2**53 by
    :func:`fixed_point`). The counts cannot depend on BLAS, threads or blocks. (float32
    for every column, with a band of undecided sums recomputed exactly as for the
    enumeration, measured slower: the transform's rounding bound is loose enough that the
    recomputation cost more than float64 does.)
    """
    counts = np.zeros(d_int.shape[1], dtype=np.int64)
    exact32 = l1 < F32_EXACT
    for cols, dtype in ((np.flatnonzero(exact32), np.float32),
                        (np.flatnonzero(~exact32), np.float64)):
        if cols.size:
            d_sorted = np.ascontiguousarray(d_int[np.ix_(sub.order, cols)], dtype=dtype)
            counts[cols] = _subgroup_tally(d_sorted, thr[cols].astype(dtype), sub,
                                           l1[cols] if dtype is np.float64 else None)
    return counts


# Smallest k1 at which :func:`_subgroup_tally` first bounds |T| to skip columns: below
# it the Hadamard product is short and the bound's own pass costs as much as it saves.
# (k1 = 4, 128 to 512 queries, pays, e.g. PI-Indic's averages over 12 languages; k1 = 3
# costs more than it saves: benchmarks/README.md.)
_BOUND_MIN_K1 = 4


def _subgroup_tally(d_sorted: np.ndarray, thr: np.ndarray, sub: Subgroup,
                    l1: np.ndarray | None = None) -> np.ndarray:
    """The counts of :func:`subgroup_counts` for columns whose sums are exact in the
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
    width = int(max(1, min(1 << sub.k2, EXECUTOR.chunk_bytes // (d_sorted.itemsize * m << sub.k1))))
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

    return np.sum(EXECUTOR.run_ranges(count, 1 << sub.k2, align=width, min_per_part=width), axis=0)


# Elements J2 per verdict of :func:`_screened_tally`: a column is transformed over a
# granule when its bound reaches the threshold anywhere in it.
_SCREEN_GRANULE = 8


def _screened_tally(d_sorted: np.ndarray, thr: np.ndarray, sub: Subgroup,
                    l1: np.ndarray) -> np.ndarray:
    """:func:`_subgroup_tally` for float64 columns (off the grid), in two passes over each
    range of inner elements J2.

    First the bound sum_a |G(a, J2)| of every column, from G computed in float32 at twice
    the float64 rate and accumulated group by group, so each group's product covers
    about 2 MB of sums (one product per group and range instead of one per group and
    small block, which measured slower). G32
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
    rows = int(max(granule, EXECUTOR.chunk_bytes // (4 * m) // granule * granule))
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
                    if (h + 1 - g) * int(np.count_nonzero(wider)) * g_bytes > EXECUTOR.chunk_bytes:
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

    return np.sum(EXECUTOR.run_ranges(count, n_inner, align=granule, min_per_part=16 * granule),
                  axis=0)
