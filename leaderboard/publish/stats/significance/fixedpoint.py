"""Exact fixed-point arithmetic: scores as integers whose every partial sum is exact.

Results files are compared byte for byte, so a p-value or an interval must not change with
the BLAS build, the number of threads or the chunk size. Floating-point sums depend on
their order, so every sum that decides a count or an interval bound is computed on
integers small enough that every partial sum is exactly representable; then any
summation order gives the same result. This module turns differences into those integers
(:func:`fixed_point`, :func:`grid_columns`) and counts distinct values."""

from __future__ import annotations

import numpy as np

from .conventions import TIE_RTOL


# Per-query scores of rank metrics with at most 10 ranks (RR@k, R@k, P@k for k <= 10, and
# differences of them) are multiples of 1/lcm(1..10). On that grid the statistic is an
# integer, ties are exact and the float32 product is exact, so no recomputation is needed.
# A mean of such scores over k tasks (a PI-Indic language averaged over its 11 or 12
# language pairs, or over all 132) lies on the finer grid 1/(2520 k): each column gets the
# smallest k up to _GRID_MAX_TASKS that makes it integral.
_GRID = 2520
_GRID_MAX_TASKS = 160
_GRID_TOL = 1e-7  # in grid units; float noise of a mean of scores times 2520 k is < 1e-8
F32_EXACT = float(2**24)  # integers below this are exact in float32, and so are sums of them
_F64_BUDGET_EXP = 51  # fixed-point budget for sum(|d|): 2**51, a bit of headroom below 2**53
_F64_BUDGET = float(2**_F64_BUDGET_EXP)


def grid_columns(d: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
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


def fixed_point(d: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
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
    on_grid, _, ints = grid_columns(d)  # the grid size cancels: only ratios of d matter
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


def thresholds(d_int: np.ndarray, l1: np.ndarray) -> np.ndarray:
    """|sum(d)| less the tie tolerance, in the fixed-point units of ``d_int`` (integers)."""
    observed = np.abs(d_int.sum(axis=0))  # exact: integers below 2**53
    return observed - np.floor(TIE_RTOL * l1)


def distinct_values(ints: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
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


def segment_starts(cols: np.ndarray, m: int) -> np.ndarray:
    """Index of each column's first entry in a column-ordered flat array (m + 1 bounds)."""
    return np.searchsorted(cols, np.arange(m + 1), side="left")
