"""Calibration of the engine's confidence from labelled feedback.

The posterior P(hallucination) is only as honest as the likelihood ratios behind it. This module
measures that (reliability bins, Brier score, expected calibration error, per tool and overall) and
fits a monotone map from raw posterior to calibrated probability (isotonic regression by pool-adjacent-
violators, or Platt scaling on the log-odds), so the confidence reported as ``avgConfidence`` means
what it says.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

#: Probabilities (a sequence or a 1-D numpy array) and their 0/1 labels.
Scores = Sequence[float] | np.ndarray
Labels = Sequence[int] | Sequence[bool] | np.ndarray

__all__ = [
    "CalibrationReport",
    "IsotonicCalibrator",
    "PlattCalibrator",
    "auroc",
    "brier_score",
    "calibration_by_tool",
    "calibration_report",
    "expected_calibration_error",
    "fit_calibrator",
]


def _arrays(scores: Scores, labels: Labels) -> tuple[np.ndarray, np.ndarray]:
    s = np.asarray(scores, dtype=float)
    y = np.asarray(labels, dtype=float)
    if s.shape != y.shape or s.ndim != 1:
        raise ValueError(f"scores and labels must be 1-D and equally long, got {s.shape} and {y.shape}")
    if s.size == 0:
        raise ValueError("need at least one labelled score")
    if np.any(~np.isfinite(s)) or np.any((s < 0) | (s > 1)):
        raise ValueError("scores must be probabilities in [0, 1]")
    if np.any((y != 0) & (y != 1)):
        raise ValueError("labels must be 0/1 or booleans")
    return s, y


def brier_score(scores: Scores, labels: Labels) -> float:
    """Mean squared error of the probabilities.

    >>> brier_score([1.0, 0.0], [1, 0]), brier_score([0.5, 0.5], [1, 0])
    (0.0, 0.25)
    """
    s, y = _arrays(scores, labels)
    return float(np.mean((s - y) ** 2))


def _bins(s: np.ndarray, y: np.ndarray, n_bins: int) -> list[dict[str, float]]:
    if n_bins < 1:
        raise ValueError(f"n_bins must be >= 1, got {n_bins}")
    idx = np.minimum((s * n_bins).astype(int), n_bins - 1)
    out = []
    for b in range(n_bins):
        mask = idx == b
        count = int(mask.sum())
        out.append(
            {
                "lo": b / n_bins,
                "hi": (b + 1) / n_bins,
                "count": count,
                "mean_confidence": float(s[mask].mean()) if count else 0.0,
                "observed_rate": float(y[mask].mean()) if count else 0.0,
            }
        )
    return out


def expected_calibration_error(scores: Scores, labels: Labels, n_bins: int = 10) -> float:
    """Count-weighted mean gap between confidence and observed rate over equal-width bins.

    >>> expected_calibration_error([0.9, 0.9], [1, 1]) > 0
    True
    >>> expected_calibration_error([0.0, 1.0], [0, 1])
    0.0
    """
    s, y = _arrays(scores, labels)
    bins = _bins(s, y, n_bins)
    return float(sum(b["count"] * abs(b["mean_confidence"] - b["observed_rate"]) for b in bins) / s.size)


def auroc(scores: Scores, labels: Labels) -> float:
    """Area under the ROC curve (probability a positive outranks a negative; ties count half).

    >>> auroc([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1])
    0.75
    """
    s, y = _arrays(scores, labels)
    pos, neg = int(y.sum()), int(y.size - y.sum())
    if pos == 0 or neg == 0:
        raise ValueError("AUROC needs both positive and negative labels")
    order = np.argsort(s, kind="mergesort")
    ranks = np.empty(s.size, dtype=float)
    sorted_s = s[order]
    i = 0
    while i < s.size:  # average ranks over ties
        j = i
        while j + 1 < s.size and sorted_s[j + 1] == sorted_s[i]:
            j += 1
        ranks[order[i : j + 1]] = (i + j) / 2.0 + 1.0
        i = j + 1
    return float((ranks[y == 1].sum() - pos * (pos + 1) / 2.0) / (pos * neg))


@dataclass(frozen=True)
class CalibrationReport:
    """Reliability bins, Brier score and ECE of one set of labelled confidences.

    >>> round(calibration_report([0.1, 0.9], [0, 1]).brier, 6)
    0.01
    """

    n: int
    positives: int
    brier: float
    ece: float
    bins: list[dict[str, float]]

    def to_dict(self) -> dict[str, Any]:
        """Return the report as JSON-compatible data.

        >>> calibration_report([0.2, 0.8], [0, 1]).to_dict()["n"]
        2
        """
        return {
            "n": self.n,
            "positives": self.positives,
            "brier": round(self.brier, 6),
            "ece": round(self.ece, 6),
            "bins": [
                {k: (round(v, 6) if isinstance(v, float) else v) for k, v in b.items()} for b in self.bins
            ],
        }


def calibration_report(scores: Scores, labels: Labels, n_bins: int = 10) -> CalibrationReport:
    """Measure calibration of *scores* against *labels*.

    >>> r = calibration_report([0.1, 0.9, 0.8, 0.2], [0, 1, 1, 0])
    >>> r.n, r.positives, round(r.brier, 3)
    (4, 2, 0.025)
    """
    s, y = _arrays(scores, labels)
    bins = _bins(s, y, n_bins)
    ece = sum(b["count"] * abs(b["mean_confidence"] - b["observed_rate"]) for b in bins) / s.size
    return CalibrationReport(int(s.size), int(y.sum()), float(np.mean((s - y) ** 2)), float(ece), bins)


def calibration_by_tool(
    records: Iterable[tuple[str, float, int | bool]], n_bins: int = 10
) -> dict[str, CalibrationReport]:
    """Reports per tool and ``"overall"`` from ``(tool, confidence, was_hallucination)`` records.

    >>> sorted(calibration_by_tool([("a", 0.9, 1), ("b", 0.1, 0)]))
    ['a', 'b', 'overall']
    """
    by_tool: dict[str, tuple[list[float], list[int]]] = {}
    all_s: list[float] = []
    all_y: list[int] = []
    for tool, score, label in records:
        s_list, y_list = by_tool.setdefault(tool, ([], []))
        s_list.append(float(score))
        y_list.append(int(bool(label)))
        all_s.append(float(score))
        all_y.append(int(bool(label)))
    if not all_s:
        raise ValueError("no feedback records")
    out = {tool: calibration_report(s, y, n_bins) for tool, (s, y) in sorted(by_tool.items())}
    out["overall"] = calibration_report(all_s, all_y, n_bins)
    return out


class IsotonicCalibrator:
    """Monotone step map fitted by pool-adjacent-violators, interpolated linearly between blocks.

    >>> cal = IsotonicCalibrator().fit([0.1, 0.2, 0.7, 0.9], [0, 0, 1, 1])
    >>> cal.predict(0.15), cal.predict(0.95)
    (0.0, 1.0)
    """

    def __init__(self) -> None:
        self.x_: np.ndarray | None = None
        self.y_: np.ndarray | None = None

    def fit(self, scores: Scores, labels: Labels) -> IsotonicCalibrator:
        """Fit to labelled scores and return self.

        >>> IsotonicCalibrator().fit([0.3, 0.6], [0, 1]).y_.tolist()
        [0.0, 1.0]
        """
        s, y = _arrays(scores, labels)
        order = np.argsort(s, kind="mergesort")
        xs, ys = s[order], y[order]
        # Pool-adjacent-violators on blocks of (sum, weight, x-mean).
        sums: list[float] = []
        weights: list[float] = []
        xsum: list[float] = []
        for x, v in zip(xs.tolist(), ys.tolist(), strict=True):
            sums.append(v)
            weights.append(1.0)
            xsum.append(x)
            while len(sums) > 1 and sums[-2] / weights[-2] > sums[-1] / weights[-1]:
                s_last, w_last, x_last = sums.pop(), weights.pop(), xsum.pop()
                sums[-1] += s_last
                weights[-1] += w_last
                xsum[-1] += x_last
        self.x_ = np.array([xs_ / w for xs_, w in zip(xsum, weights, strict=True)])
        self.y_ = np.array([sm / w for sm, w in zip(sums, weights, strict=True)])
        return self

    def predict(self, score: float) -> float:
        """Return the calibrated probability for one raw *score*.

        >>> IsotonicCalibrator().fit([0.2, 0.4, 0.6, 0.8], [0, 1, 0, 1]).predict(0.5)
        0.5
        """
        if self.x_ is None or self.y_ is None:
            raise RuntimeError("IsotonicCalibrator.predict called before fit")
        return float(np.interp(score, self.x_, self.y_))

    def predict_many(self, scores: Scores) -> list[float]:
        """Return calibrated probabilities for many raw scores.

        >>> IsotonicCalibrator().fit([0.2, 0.8], [0, 1]).predict_many([0.2, 0.8])
        [0.0, 1.0]
        """
        if self.x_ is None or self.y_ is None:
            raise RuntimeError("IsotonicCalibrator.predict_many called before fit")
        return [float(v) for v in np.interp(np.asarray(scores, dtype=float), self.x_, self.y_)]


class PlattCalibrator:
    """Logistic map ``sigmoid(a * logit(score) + b)`` fitted by Newton's method.

    >>> cal = PlattCalibrator().fit([0.1, 0.2, 0.3, 0.7, 0.8, 0.9], [0, 0, 1, 0, 1, 1])
    >>> 0.0 < cal.predict(0.5) < 1.0
    True
    """

    def __init__(self) -> None:
        self.a = 1.0
        self.b = 0.0

    @staticmethod
    def _logit(s: np.ndarray) -> np.ndarray:
        c = np.clip(s, 1e-6, 1 - 1e-6)
        return np.log(c / (1 - c))

    def fit(self, scores: Scores, labels: Labels, iterations: int = 50) -> PlattCalibrator:
        """Fit to labelled scores (with Platt's target smoothing) and return self.

        >>> PlattCalibrator().fit([0.1, 0.9], [0, 1]).a > 0
        True
        """
        s, y = _arrays(scores, labels)
        pos, neg = y.sum(), y.size - y.sum()
        # Platt's smoothed targets keep the fit finite on separable data.
        t = np.where(y == 1, (pos + 1) / (pos + 2), 1 / (neg + 2))
        x = self._logit(s)

        def _loss(a: float, b: float) -> float:
            z = a * x + b
            # log(1 + e^z) - t z, computed stably
            return float(np.sum(np.logaddexp(0.0, z) - t * z))

        a, b = 1.0, 0.0
        current = _loss(a, b)
        for _ in range(iterations):
            p = 1 / (1 + np.exp(-np.clip(a * x + b, -35.0, 35.0)))
            g = np.array([np.sum((p - t) * x), np.sum(p - t)])
            w = p * (1 - p) + 1e-12
            h = np.array([[np.sum(w * x * x), np.sum(w * x)], [np.sum(w * x), np.sum(w)]]) + 1e-9 * np.eye(2)
            step = np.linalg.solve(h, g)
            # Newton with step halving: plain Newton can overshoot on nearly separable data.
            scale = 1.0
            while scale > 1e-6:
                na, nb = a - scale * float(step[0]), b - scale * float(step[1])
                candidate = _loss(na, nb)
                if candidate <= current:
                    break
                scale /= 2
            else:
                break
            a, b, improvement = na, nb, current - candidate
            current = candidate
            if improvement < 1e-12:
                break
        self.a, self.b = a, b
        return self

    def predict(self, score: float) -> float:
        """Return the calibrated probability for one raw *score*.

        >>> PlattCalibrator().predict(0.25)  # unfitted: the identity map
        0.25
        """
        z = self.a * float(self._logit(np.asarray(score, dtype=float))) + self.b
        return 1.0 / (1.0 + math.exp(-z)) if z >= 0 else math.exp(z) / (1.0 + math.exp(z))

    def predict_many(self, scores: Scores) -> list[float]:
        """Return calibrated probabilities for many raw scores.

        >>> len(PlattCalibrator().predict_many([0.1, 0.9]))
        2
        """
        return [self.predict(float(v)) for v in scores]


def fit_calibrator(
    scores: Scores, labels: Labels, method: str = "isotonic"
) -> IsotonicCalibrator | PlattCalibrator:
    """Fit an ``"isotonic"`` or ``"platt"`` calibrator.

    >>> type(fit_calibrator([0.1, 0.9], [0, 1], "platt")).__name__
    'PlattCalibrator'
    """
    if method == "isotonic":
        return IsotonicCalibrator().fit(scores, labels)
    if method == "platt":
        return PlattCalibrator().fit(scores, labels)
    raise ValueError(f"method must be 'isotonic' or 'platt', got {method!r}")
