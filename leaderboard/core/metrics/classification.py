"""Binary classification metrics for PI-Indic T4: AUROC, AUPRC, Accuracy, balanced
accuracy, ECE, and their decomposition over personas.

The PI-Indic-Align paper (Section 3.4) reports Accuracy at threshold 0.5, AUROC (Fawcett
2006), AUPRC (Saito and Rehmsmeier 2015) and Expected Calibration Error with 15 bins (Guo
et al. 2017). Everything here is vectorised numpy with no scikit-learn dependency; the
tests cross-check against scikit-learn where it is installed.

Conventions, stated because they change numbers:

* A pair is predicted compatible when its probability is >= 0.5 (the threshold the
  paper names; the authors' code uses ``>=`` too).
* AUROC is the Mann-Whitney statistic with tied scores given their average rank, i.e.
  a tied (positive, negative) pair counts one half. This equals the trapezoidal area under
  the ROC curve.
* AUPRC is average precision as scikit-learn's ``average_precision_score`` defines it:
  ``sum_n (R_n - R_{n-1}) P_n`` over the distinct score thresholds in decreasing order, a
  step function with no interpolation; tied scores form one threshold.
* ECE (the leaderboard's ``ECE``) is the paper's definition: Section 3.4 defines ECE by
  citing Guo et al. (2017, Section 2): the confidence of a prediction is the probability
  the model gives to the class it predicts, ``max(p, 1 - p)``; the accuracy of a bin is
  the fraction of its predictions that are correct; bins are ``M = 15`` equal-width
  intervals ``((m-1)/M, m/M]`` over [0, 1] (the first one closed) and
  ``ECE = sum_m |B_m|/n * |acc(B_m) - conf(B_m)|``. This is the "top-label" ECE; with
  ``kind="positive-class"`` the confidence is ``p`` and the bin accuracy is the fraction of
  positives (the reliability diagram of the positive class).
* The authors' released code (``src/metrics.py``, ``expected_calibration_error``) computes
  something else, reproduced exactly by :func:`authors_ece` and reported beside the
  headline under ``ECE-authors-code`` so figures can be set against the paper's tables:
  bins ``[(m-1)/M, m/M)`` over ``p`` (``numpy.digitize``), where a prediction of exactly
  1.0 falls in no bin and adds nothing while still counting in ``n``; in each bin the
  mean ``p`` (positive-class confidence) is compared with the fraction correct at 0.5
  (top-label accuracy). Mixing the two makes a confident correct negative (p = 0.02,
  label 0) a gap of 0.96, and a classifier that is confidently wrong on every pair
  (p = 1 for negatives, 0 for positives) scores 0. With ten negatives per positive, as
  in the T4 pair set, it is large for any model that ranks well.

* Balanced accuracy is the mean of the true positive and true negative rates at 0.5: a
  constant answer scores 0.5 whatever the class balance, where Accuracy gives the
  majority class's share (10/11 = 90.9% on T4, with one compatible instruction per ten
  incompatible ones).

Personas as the unit (:func:`per_unit_scores`). T4's pairs are not independent: each
persona brings one positive and ten negatives, and the same personas appear in all 12
languages. Accuracy, balanced accuracy and AUROC are each the plain mean of one value per
persona, so the significance tests take the persona as the unit. For AUROC the value is
DeLong's structural component of the persona's cluster (Obuchowski 1997, "Nonparametric
analysis of clustered ROC curve data", Biometrics 53:567-578): its mean over personas is
the AUROC, and the variance of two systems' differences over personas is the clustered
DeLong variance of the AUROC difference (:mod:`leaderboard.publish.stats.significance.delong`).

Calibration (Section 3.4 of the paper: "histogram binning calibration (15 bins)"):
:class:`HistogramBinning` is Zadrozny and Elkan's (2001) method; :func:`fit_platt` turns an
unbounded similarity into a probability first (a one-feature logistic regression, the
"thin logistic head" over a single score).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

THRESHOLD = 0.5
ECE_BINS = 15

CalibrationKind = Literal["top-label", "positive-class"]


def _as_arrays(labels: object, probs: object) -> tuple[np.ndarray, np.ndarray]:
    y = np.asarray(labels)
    p = np.asarray(probs, dtype=np.float64)
    if y.ndim != 1 or p.ndim != 1 or y.shape != p.shape:
        raise ValueError(f"labels and scores must be 1-d arrays of one length, got shapes "
                         f"{y.shape} and {p.shape}")
    if y.size == 0:
        raise ValueError("no labelled examples")
    if not np.isin(y, (0, 1)).all():
        raise ValueError("labels must be 0 or 1")
    if not np.isfinite(p).all():
        raise ValueError("scores must be finite")
    return y.astype(np.int8), p


def _binned_arrays(labels: object, probs: object, n_bins: int) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_as_arrays` for the binned measures: probabilities in [0, 1], n_bins >= 1."""
    if n_bins < 1:
        raise ValueError("n_bins must be at least 1")
    y, p = _as_arrays(labels, probs)
    if ((p < 0) | (p > 1)).any():
        raise ValueError("probabilities must lie in [0, 1]")
    return y, p


def average_ranks(values: np.ndarray) -> np.ndarray:
    """1-based ranks, ascending, tied values sharing the mean of their ranks."""
    values = np.asarray(values)
    order = np.argsort(values, kind="mergesort")
    ordered = values[order]
    starts_group = np.concatenate(([True], ordered[1:] != ordered[:-1]))
    group_of = np.cumsum(starts_group) - 1
    group_start = np.flatnonzero(starts_group)                 # 0-based first position
    group_end = np.append(group_start[1:], values.size)         # 0-based one past last
    mean_rank = (group_start + 1 + group_end) / 2.0            # mean of start+1 .. end
    ranks = np.empty(values.size, dtype=np.float64)
    ranks[order] = mean_rank[group_of]
    return ranks


def auroc(labels: object, scores: object) -> float:
    """Area under the ROC curve via the Mann-Whitney U statistic (ties count 1/2)."""
    y, s = _as_arrays(labels, scores)
    n_pos = int(y.sum())
    n_neg = int(y.size - n_pos)
    if n_pos == 0 or n_neg == 0:
        raise ValueError("AUROC needs at least one positive and one negative example")
    rank_sum = average_ranks(s)[y == 1].sum()
    u = rank_sum - n_pos * (n_pos + 1) / 2.0
    return float(u / (n_pos * n_neg))


def average_precision(labels: object, scores: object) -> float:
    """AUPRC as step-wise average precision (scikit-learn's definition, ties grouped)."""
    y, s = _as_arrays(labels, scores)
    n_pos = int(y.sum())
    if n_pos == 0:
        raise ValueError("AUPRC needs at least one positive example")
    order = np.argsort(-s, kind="mergesort")
    ordered = s[order]
    true_pos = np.cumsum(y[order], dtype=np.int64)
    # One threshold per distinct score: the last position of each run of equal scores.
    last_of_group = np.append(np.flatnonzero(ordered[1:] != ordered[:-1]), s.size - 1)
    tp = true_pos[last_of_group]
    predicted_pos = last_of_group + 1
    precision = tp / predicted_pos
    recall = tp / n_pos
    recall_gain = np.diff(np.concatenate(([0.0], recall)))
    return float(np.sum(recall_gain * precision))


def accuracy(labels: object, probs: object, threshold: float = THRESHOLD) -> float:
    """Fraction of pairs whose prediction (probability >= threshold) matches the label."""
    y, p = _as_arrays(labels, probs)
    return float(np.mean((p >= threshold) == (y == 1)))


def balanced_accuracy(labels: object, probs: object, threshold: float = THRESHOLD) -> float:
    """Mean of the true positive rate and the true negative rate at the threshold."""
    y, p = _as_arrays(labels, probs)
    positive = y == 1
    if positive.all() or not positive.any():
        raise ValueError("balanced accuracy needs at least one positive and one negative")
    predicted = p >= threshold
    return float((predicted[positive].mean() + (~predicted[~positive]).mean()) / 2.0)


def correct(labels: object, probs: object, threshold: float = THRESHOLD) -> np.ndarray:
    """Per-example correctness (1.0 or 0.0) at the threshold."""
    y, p = _as_arrays(labels, probs)
    return ((p >= threshold) == (y == 1)).astype(np.float64)


@dataclass(frozen=True)
class ReliabilityBins:
    """The reliability diagram behind an ECE: one entry per bin, empty bins included.

    ``confidence`` and ``accuracy`` are bin means (NaN where ``count`` is 0).
    """

    kind: CalibrationKind
    lower: np.ndarray
    upper: np.ndarray
    count: np.ndarray
    confidence: np.ndarray
    accuracy: np.ndarray

    @property
    def n(self) -> int:
        return int(self.count.sum())

    @property
    def ece(self) -> float:
        filled = self.count > 0
        weight = self.count[filled] / self.n
        gap = np.abs(self.accuracy[filled] - self.confidence[filled])
        return float(np.sum(weight * gap))

    @property
    def max_calibration_error(self) -> float:
        """MCE of Guo et al. (2017): the largest gap over non-empty bins."""
        filled = self.count > 0
        return float(np.max(np.abs(self.accuracy[filled] - self.confidence[filled])))


def reliability_bins(labels: object, probs: object, n_bins: int = ECE_BINS,
                     kind: CalibrationKind = "top-label",
                     threshold: float = THRESHOLD) -> ReliabilityBins:
    """Bin predictions by confidence into ``n_bins`` equal-width bins ``((m-1)/M, m/M]``."""
    y, p = _binned_arrays(labels, probs, n_bins)
    if kind == "top-label":
        predicted_pos = p >= threshold
        confidence = np.where(predicted_pos, p, 1.0 - p)
        outcome = (predicted_pos == (y == 1)).astype(np.float64)
    elif kind == "positive-class":
        confidence = p
        outcome = y.astype(np.float64)
    else:
        raise ValueError(f"unknown calibration kind {kind!r}")
    edges = np.linspace(0.0, 1.0, n_bins + 1)
    # side="left" puts a value equal to an inner edge in the bin that edge closes: the
    # intervals are right-closed as in Guo et al.; 0 falls in the first bin.
    bin_of = np.searchsorted(edges[1:-1], confidence, side="left")
    count = np.bincount(bin_of, minlength=n_bins)
    conf_sum = np.bincount(bin_of, weights=confidence, minlength=n_bins)
    outcome_sum = np.bincount(bin_of, weights=outcome, minlength=n_bins)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_conf = np.where(count > 0, conf_sum / count, np.nan)
        mean_outcome = np.where(count > 0, outcome_sum / count, np.nan)
    return ReliabilityBins(kind=kind, lower=edges[:-1], upper=edges[1:], count=count,
                           confidence=mean_conf, accuracy=mean_outcome)


def expected_calibration_error(labels: object, probs: object, n_bins: int = ECE_BINS,
                               kind: CalibrationKind = "top-label") -> float:
    """ECE of Guo et al. (2017); see the module docstring for the definition."""
    return reliability_bins(labels, probs, n_bins=n_bins, kind=kind).ece


def authors_ece(labels: object, probs: object, n_bins: int = ECE_BINS,
                threshold: float = THRESHOLD) -> float:
    """ECE exactly as the PI-Indic-Align authors' code computes it (see the module
    docstring): left-closed bins over ``p``, mean ``p`` against accuracy at ``threshold``,
    ``p == 1.0`` in no bin."""
    y, p = _binned_arrays(labels, probs, n_bins)
    edges = np.linspace(0.0, 1.0, n_bins + 1)
    bin_of = np.searchsorted(edges, p, side="right") - 1   # numpy.digitize(p, edges) - 1
    inside = bin_of < n_bins                                 # p == 1.0 lands past the end
    outcome = ((p >= threshold) == (y == 1)).astype(np.float64)
    count = np.bincount(bin_of[inside], minlength=n_bins)
    conf_sum = np.bincount(bin_of[inside], weights=p[inside], minlength=n_bins)
    outcome_sum = np.bincount(bin_of[inside], weights=outcome[inside], minlength=n_bins)
    filled = count > 0
    gap = np.abs(outcome_sum[filled] / count[filled] - conf_sum[filled] / count[filled])
    return float(np.sum(count[filled] / y.size * gap))


def classification_metrics(labels: object, probs: object) -> dict[str, float]:
    """The T4 metrics under the leaderboard's metric keys (``ECE``: Guo et al.'s top-label
    ECE, the paper's stated definition), plus the authors' code's ECE under
    ``ECE-authors-code`` (see the module docstring), the share of pairs predicted
    compatible (``Predicted positive rate``: 0 or 1 for a classifier that answers one class
    only, whose ECE then says nothing about calibration) and the share of compatible pairs
    (``Positive rate``: what a constant score gets as AUPRC)."""
    y, p = _as_arrays(labels, probs)
    return {
        "AUROC": auroc(y, p),
        "AUPRC": average_precision(y, p),
        "Accuracy": accuracy(y, p),
        "Balanced accuracy": balanced_accuracy(y, p),
        "ECE": expected_calibration_error(y, p),
        "ECE-authors-code": authors_ece(y, p),
        "Predicted positive rate": float(np.mean(p >= THRESHOLD)),
        "Positive rate": float(np.mean(y == 1)),
    }


# ----------------------------------------------------------------------------- personas


@dataclass(frozen=True)
class UnitScores:
    """One value per unit (persona) whose plain mean over the units is the metric."""

    units: list[str]
    values: dict[str, np.ndarray]   # metric key -> one value per unit, in ``units`` order


def per_unit_scores(labels: object, probs: object, units: object,
                    threshold: float = THRESHOLD) -> UnitScores:
    """Accuracy, balanced accuracy and AUROC as means over units (personas).

    With K units, unit k holding positives P_k and negatives N_k, m = |P| and n = |N| in
    all, and c_j the correctness of pair j at the threshold:

    * Accuracy: K / (m + n) * sum over the unit's pairs of c_j (the unit's own accuracy
      when every unit has as many pairs);
    * balanced accuracy: K / 2 * (sum over P_k of c_j / m + sum over N_k of c_j / n);
    * AUROC: A + K * ((X_k - m_k A) / m + (Y_k - n_k A) / n), A the AUROC, X_k the sum over
      P_k of V10(a) (the share of negatives a scores above, ties one half) and Y_k the sum
      over N_k of V01(b) (the share of positives scoring above b): DeLong's structural
      components of the cluster (Obuchowski 1997). Their mean is A, and the variance of
      two systems' differences over the units, divided by K (K - 1), is the clustered
      DeLong variance of the AUROC difference.

    The plain definitions, pair by pair, are
    :func:`leaderboard.publish.stats.significance.reference.delong_components`; tests hold these
    to them."""
    y, p = _as_arrays(labels, probs)
    unit_of = np.asarray(units).astype(str)
    if unit_of.shape != y.shape:
        raise ValueError("units must give one unit per pair")
    names, index = np.unique(unit_of, return_inverse=True)
    k = names.size
    positive = y == 1
    m, n = int(positive.sum()), int((~positive).sum())
    if m == 0 or n == 0:
        raise ValueError("per-unit scores need at least one positive and one negative")
    c = ((p >= threshold) == positive).astype(np.float64)

    def per_unit(weights: np.ndarray) -> np.ndarray:
        return np.bincount(index, weights=weights, minlength=k)

    accuracy_k = k * per_unit(c) / (m + n)
    balanced_k = k / 2.0 * per_unit(np.where(positive, c / m, c / n))
    pos, neg = np.sort(p[positive]), np.sort(p[~positive])
    # V10(a): negatives below a plus half the ties; V01(b): positives above b plus half ties
    v10 = (np.searchsorted(neg, p, side="left")
           + np.searchsorted(neg, p, side="right")) / (2.0 * n)
    v01 = ((m - np.searchsorted(pos, p, side="right"))
           + (m - np.searchsorted(pos, p, side="left"))) / (2.0 * m)
    area = float(np.mean(v10[positive]))
    x = per_unit(np.where(positive, v10, 0.0))
    yk = per_unit(np.where(positive, 0.0, v01))
    m_k = per_unit(positive.astype(np.float64))
    n_k = per_unit((~positive).astype(np.float64))
    auroc_k = area + k * ((x - m_k * area) / m + (yk - n_k * area) / n)
    return UnitScores(units=names.tolist(), values={
        "Accuracy": accuracy_k, "Balanced accuracy": balanced_k, "AUROC": auroc_k})


# ----------------------------------------------------------------------------- calibration


def fit_platt(scores: object, labels: object, l2: float = 1e-6,
              iterations: int = 100) -> tuple[float, float]:
    """(a, b) of ``P(y = 1 | s) = 1 / (1 + exp(-(a * s + b)))`` by maximum likelihood
    (Newton's method; a tiny L2 penalty on ``a`` keeps separable data finite).

    Scores are standardised inside (mean 0, standard deviation 1) so the iteration is
    scale-free; the returned coefficients apply to the raw scores."""
    y, s = _as_arrays(labels, scores)
    mean = float(s.mean())
    spread = float(s.std()) or 1.0
    z = (s - mean) / spread
    target = y.astype(np.float64)
    a, b = 0.0, float(np.log((target.sum() + 0.5) / (target.size - target.sum() + 0.5)))
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-(a * z + b)))
        w = p * (1.0 - p)
        grad = np.array([np.dot(p - target, z) + l2 * a, np.sum(p - target)])
        hess = np.array([[np.dot(w, z * z) + l2, np.dot(w, z)],
                         [np.dot(w, z), np.sum(w) + 1e-12]])
        step = np.linalg.solve(hess, grad)
        a, b = a - float(step[0]), b - float(step[1])
        if np.max(np.abs(step)) < 1e-10:
            break
    return a / spread, b - a * mean / spread


def platt_probability(scores: object, coefficients: tuple[float, float]) -> np.ndarray:
    a, b = coefficients
    s = np.asarray(scores, dtype=np.float64)
    return 1.0 / (1.0 + np.exp(-(a * s + b)))


@dataclass(frozen=True)
class HistogramBinning:
    """Histogram binning (Zadrozny and Elkan 2001): ``n_bins`` equal-width bins over the
    uncalibrated probability, left-closed ``[(m-1)/M, m/M)`` with 1.0 in the last bin;
    a probability is replaced by the fraction of positives among the calibration
    examples of its bin. A bin no calibration example fell in keeps the input
    probability unchanged (there is nothing to estimate it from)."""

    edges: np.ndarray
    value: np.ndarray      # positive fraction per bin, NaN where the bin was empty

    @classmethod
    def fit(cls, probs: object, labels: object, n_bins: int = ECE_BINS) -> "HistogramBinning":
        y, p = _binned_arrays(labels, probs, n_bins)
        edges = np.linspace(0.0, 1.0, n_bins + 1)
        bins = cls._bin(edges, p)
        count = np.bincount(bins, minlength=n_bins)
        positives = np.bincount(bins, weights=y.astype(np.float64), minlength=n_bins)
        with np.errstate(invalid="ignore", divide="ignore"):
            value = np.where(count > 0, positives / count, np.nan)
        return cls(edges=edges, value=value)

    @staticmethod
    def _bin(edges: np.ndarray, p: np.ndarray) -> np.ndarray:
        return np.minimum(np.searchsorted(edges, p, side="right") - 1, edges.size - 2)

    def apply(self, probs: object) -> np.ndarray:
        p = np.asarray(probs, dtype=np.float64)
        value = self.value[self._bin(self.edges, p)]
        return np.where(np.isnan(value), p, value)
