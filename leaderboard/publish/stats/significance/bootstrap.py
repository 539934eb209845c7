"""Percentile bootstrap interval of the mean difference, exact to the bit."""

from __future__ import annotations

import math

import numpy as np

from .conventions import DEFAULT_BOOTSTRAP, derive_seed, seeded_rng
from .fixedpoint import F32_EXACT, distinct_values, grid_columns, segment_starts
from .order_stats import CoarseSums, tail_order_statistics
from .runtime import EXECUTOR


def bootstrap_prefix(n: int, n_resamples: int, seed: int) -> np.ndarray:
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
                rng = seeded_rng(seed, "bootstrap-indices", n, n_resamples, start)
                idx = rng.integers(0, n, size=(rows, n))
                idx += offsets[:rows]  # in place: a fresh 8 MB array costs its page faults
                counts = np.bincount(idx.ravel(), minlength=rows * n).reshape(rows, n)
                np.cumsum(counts, axis=1, out=prefix[start:start + rows, 1:])

        EXECUTOR.run_ranges(fill, n_resamples, align=block, min_per_part=block)
        return prefix

    return EXECUTOR.cached(("bootstrap-prefix", n, n_resamples, seed), build)


def bootstrap_counts(n: int, n_resamples: int, seed: int) -> np.ndarray:
    """(n x B) float32 matrix: how often each query is drawn in each resample."""
    return EXECUTOR.cached(("bootstrap-counts", n, n_resamples, seed), lambda: np.ascontiguousarray(
        np.diff(bootstrap_prefix(n, n_resamples, seed), axis=1).T, dtype=np.float32))


# Largest float32 counts matrix bootstrap_mean_ci keeps between views (n <= 838 at 10,000
# resamples); larger ones are converted chunk by chunk.
_COUNTS_KEEP_BYTES = 32 * 2**20


# A grid column's resampled sums are read off the prefix table at the column's value
# boundaries when that touches fewer entries than the product would multiply: (distinct
# values - 1) * B table reads against about n * B / this many multiply-adds' time.
_BOUNDARY_RATIO = 64
_SPLIT, _SINGLE, _BOUNDARY = 0, 1, 2  # how a column's resampled sums are computed


def bootstrap_mean_ci(diffs: np.ndarray, *, n_resamples: int = DEFAULT_BOOTSTRAP,
                      seed: int = 0, confidence: float = 0.95
                      ) -> tuple[np.ndarray, np.ndarray]:
    """Percentile bootstrap interval of mean(d) for every column of ``diffs`` (n x m);
    (-inf, inf) below two queries, where there is nothing to resample.

    Queries are resampled with replacement, the same ``n_resamples`` resamples (drawn from
    ``seed`` and n) for every column, and the interval is the (1 - confidence)/2 and
    (1 + confidence)/2 quantiles of the resampled means (numpy's "linear" quantile).

    Each resampled sum is computed exactly, so the bounds are the same on any machine and
    thread count, and each column's computation depends on that column alone. Three ways,
    chosen per column:

    * scores on a rank grid (:func:`grid_columns`) with few distinct values (R@1, accuracy,
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
      and exactly only for the resamples near the ranks sought (:class:`CoarseSums`).
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
    if n < 2:
        # Every resample of one unit is that unit: an "interval" of width 0 claiming
        # certainty from a single value. Too few units for an interval, as Wilcoxon's and
        # DeLong's say: (-inf, inf).
        return np.full(m, -np.inf), np.full(m, np.inf)
    if m == 0:
        return np.zeros(0), np.zeros(0)

    prefix = bootstrap_prefix(n, int(n_resamples), seed)  # (B x (n + 1))
    on_grid, sizes, g_ints = grid_columns(d)  # integers of the grid columns, in column order
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
        cols, u, c = distinct_values(g_ints / gcd)
        bounds = segment_starts(cols, grid.size)
        n_values = np.diff(bounds)
        biggest = np.maximum.reduceat(np.abs(u), bounds[:-1])
        kind[grid] = np.where((n_values - 1) * _BOUNDARY_RATIO <= n, _BOUNDARY,
                              np.where(n * biggest.astype(np.float64) < F32_EXACT,
                                       _SINGLE, _SPLIT))
        unit[grid] = np.where(kind[grid] == _SPLIT, 1.0, gcd)  # split: d itself, see below
        # a sum of n values of at most `biggest`: below 2**24 on both paths in units of gcd
        small[grid] = (kind[grid] != _SPLIT) & (n * biggest.astype(np.float64) < F32_EXACT)
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
    coarse: CoarseSums | None = None
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
        coarse = CoarseSums(d_int, prefix)
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
    # transposed chunks), else converted chunk by chunk.
    counts32 = (bootstrap_counts(n, int(n_resamples), seed)
                if products and 4 * n * n_resamples <= _COUNTS_KEEP_BYTES else None)
    if b_cols.size or products:
        per_row = max(n, b_cols.size * cuts_pad.shape[1])
        # at least 512 resamples a chunk unless that passes 64 MB: narrower products run
        # well below the cores' peak (benchmarks/README.md)
        chunk = int(max(min(512, (1 << 26) // (8 * per_row)),
                        min(2048, EXECUTOR.chunk_bytes // (8 * per_row))))
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

        EXECUTOR.run_ranges(resampled_sums, n_resamples, align=chunk, min_per_part=2048)

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
        ranks = np.array(tail_order_statistics(rows, low, high, integers=True))
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

    EXECUTOR.run_ranges(quantiles, m, min_per_part=16)
    return bounds[0].copy(), bounds[1].copy()
