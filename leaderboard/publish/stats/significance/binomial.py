"""Monte-Carlo sign flips as per-magnitude binomial counts (scores on a rank grid)."""

from __future__ import annotations

import math
import threading

import numpy as np

from .conventions import seeded_rng
from .fixedpoint import F32_EXACT, distinct_values, segment_starts
from .runtime import EXECUTOR


_POPCOUNT8 = np.array([bin(i).count("1") for i in range(256)], dtype=np.uint8)
_POPCOUNT_MAX_LEVEL = 7  # Bin(2**k, 1/2) by counting 2**k random bits up to k = 7
_pools: dict[tuple[int, int, int], np.ndarray] = {}
_pools_lock = threading.Lock()


def binomial_slots(magnitudes: np.ndarray) -> np.ndarray:
    """Binomial draws per assignment that :func:`binomial_counts` needs for each column of
    integer |d| (n x m): one per set bit of each distinct non-zero magnitude's count."""
    cols, v, c = distinct_values(magnitudes)
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
    rng = seeded_rng(seed, "randomization-binomial", level, slot, n_resamples)
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


def binomial_counts(d_int: np.ndarray, l1: np.ndarray, thr: np.ndarray, n_resamples: int,
                     seed: int) -> np.ndarray:
    """Monte-Carlo counts of |sum(s_i d_i)| >= thr for integer columns with few distinct
    |d_i| (scores on a rank grid, see :func:`grid_columns`), without a sign per query.

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
    cols, v, c = distinct_values(np.abs(d_int))
    keep = v > 0
    cols, v, c = cols[keep], v[keep], c[keep]
    bounds = segment_starts(cols, m)
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

    single = float(l1.max()) < F32_EXACT
    if single:
        base_bits, n_limbs = 64, 1
    else:
        nnz = int(np.max(np.add.reduceat(c, bounds[:-1])))  # limb sum <= (2**b - 1) * nnz
        base_bits = int(math.floor(math.log2(F32_EXACT / nnz + 1)))
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
    chunk = int(max(256, min(8192, EXECUTOR.chunk_bytes // (4 * max(n_slots + 1, n_limbs * m)))))

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

    return np.sum(EXECUTOR.run_ranges(count, n_resamples, align=chunk, min_per_part=chunk), axis=0)


def _clear_pools() -> None:
    with _pools_lock:
        _pools.clear()


EXECUTOR.on_clear(_clear_pools)
