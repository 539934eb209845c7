"""Order statistics of resampled sums for the bootstrap: sampled thresholds, histograms,
and exact ranks from coarse float32 sums (:class:`CoarseSums`)."""

from __future__ import annotations

import math

import numpy as np

from .fixedpoint import F32_EXACT


# The sampled threshold of :func:`tail_order_statistics`: the first 1/_SELECT_STRIDE of
# a row, and a sample rank that leaves the rank sought _SELECT_SIGMAS standard deviations
# inside the near side (an order statistic of the sample, j + 1 values of it below the
# threshold, stands for about stride * (j + 1) +- stride * sqrt(j + 1) values of the row).
_SELECT_STRIDE = 16
_SELECT_SIGMAS = 3.0


def tail_order_statistics(x: np.ndarray, low: tuple[int, int], high: tuple[int, int], *,
                           integers: bool = False
                           ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """In every row of ``x`` (m x B), the values of ranks ``low`` counted from the smallest
    and of ranks ``high`` counted from the largest (0-based, each pair near its end):
    exactly what sorting each row would give.

    Why not ``np.partition``: a partition reorders the whole row, and the site asks for a
    few hundred intervals of 10,000 resampled sums each. Here two
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
    # faster than float64 ones on AVX-512 machines.
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
    """:func:`tail_order_statistics` of integer rows spanning at most ``width`` values
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


# Queries per product of :class:`CoarseSums`: BLAS runs float32 products of 128 or more
# queries at full rate, and a part's largest draw count, which sets the coarse step,
# grows with its size.
_PART_QUERIES = 512


class CoarseSums:
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
    order statistics off float32 rows, faster than off float64 ones (benchmarks/README.md).
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
        self.step = np.floor(largest * most / (F32_EXACT - most)) + 1.0
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
        4 x rows): (4 x rows), as :func:`tail_order_statistics` returns.

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
            out[:, rows] = tail_order_statistics(self._exact_rows(cols[rows], b), low, high,
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
