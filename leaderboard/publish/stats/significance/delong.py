"""DeLong's test for two correlated AUROCs, with clusters (personas) as the unit.

The per-unit values it tests are DeLong's structural components of each cluster
(:func:`leaderboard.core.metrics.classification.per_unit_scores`): their mean over the K
clusters is the AUROC, so the difference of two systems' means is the difference of their
AUROCs (averaged over languages when the units' values are). Obuchowski (1997) gives the
variance of that difference for clustered data as sum_k (D_k - mean(D))^2 / (K (K - 1)),
D_k the difference of the two systems' components of cluster k; the test statistic
z = mean(D) / sqrt(that) is referred to the standard normal, two-sided (DeLong, DeLong &
Clarke-Pearson 1988). :func:`~.reference.delong_pvalue` is the plain definition the tests
hold this to, and :func:`~.reference.delong_components` builds the components pair by pair
from the predictions.
"""

from __future__ import annotations

import numpy as np
from scipy import special, stats


def delong_pvalues(diffs: np.ndarray) -> np.ndarray:
    """Two-sided DeLong p-values for every column of ``diffs`` (units x pairs of systems).

    A column with fewer than two units, or whose differences are all 0, has no evidence
    either way: p = 1. A column whose differences are all equal and not 0 has variance 0:
    p = 0 (every cluster moves the same way by the same amount)."""
    d = np.asarray(diffs, dtype=np.float64)
    if d.ndim != 2:
        raise ValueError(f"diffs must be a 2-D (units x pairs) array, got shape {d.shape}")
    if not np.all(np.isfinite(d)):
        raise ValueError("differences must be finite")
    k, m = d.shape
    p = np.ones(m)
    if k < 2:
        return p
    cols = np.ascontiguousarray(d.T)  # each column summed as one contiguous row
    mean = cols.sum(axis=1) / k
    centred = cols - mean[:, None]
    variance = (centred * centred).sum(axis=1) / (k * (k - 1))
    busy = np.any(cols != 0, axis=1)
    flat = busy & (variance <= 0)
    p[flat] = 0.0
    tested = busy & (variance > 0)
    z = np.abs(mean[tested]) / np.sqrt(variance[tested])
    p[tested] = special.erfc(z / np.sqrt(2.0))  # 2 * (1 - Phi(|z|)), without cancellation
    return np.minimum(p, 1.0)


def delong_intervals(diffs: np.ndarray, confidence: float = 0.95
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The difference of AUROCs of every column (the mean of its units' differences) and
    the interval of DeLong's own statistic: mean +- z sqrt(clustered variance), z the
    normal quantile of ``confidence``. It leaves 0 out exactly when the test rejects at
    1 - confidence. Fewer than two units: (-inf, inf)."""
    d = np.asarray(diffs, dtype=np.float64)
    if d.ndim != 2:
        raise ValueError(f"diffs must be a 2-D (units x pairs) array, got shape {d.shape}")
    k, m = d.shape
    if k < 2:
        mean = d.sum(axis=0) / max(k, 1)
        return mean, np.full(m, -np.inf), np.full(m, np.inf)
    cols = np.ascontiguousarray(d.T)
    mean = cols.sum(axis=1) / k
    centred = cols - mean[:, None]
    half = stats.norm.isf((1.0 - confidence) / 2.0) * np.sqrt(
        (centred * centred).sum(axis=1) / (k * (k - 1)))
    return mean, mean - half, mean + half
