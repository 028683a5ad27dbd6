"""The shipped calibration of the posterior: a monotone piecewise-linear map with fixed knots.

The fused posterior is a ranking score built on the seed's fixed likelihood ratios; as a probability
it is off by 0.10-0.14 (ECE) on every stream measured. :data:`DEFAULT_KNOTS` maps it to an observed
fabrication rate. They were fitted once, deterministically, by isotonic regression on the replay of
the generated development streams only (``python -m verification.engine.eval.tool_calibration``, seeds
in ``tool_streams.CALIBRATION_SEEDS``; never the shared stream or the held-out seeds), then thinned to
a few knots. The engine reports the mapped value as ``extra["calibrated_confidence"]``; verdicts stay
on the posterior. A deployment with labels of its own fits a new map from them (the service's
``tool_calibration_fit``) and passes it as ``ToolVerifier(calibrator=...)``.

Pure Python (no numpy): the map runs on every verification.
"""

from __future__ import annotations

import itertools
from bisect import bisect_right
from collections.abc import Sequence
from typing import Final

__all__ = ["DEFAULT_KNOTS", "TableCalibrator", "default_calibrator"]

#: (posterior, calibrated probability) knots, increasing in both; see the module docstring.
DEFAULT_KNOTS: Final[tuple[tuple[float, float], ...]] = (
    (0.0, 0.0),
    (0.05, 0.0),
    (0.0684, 0.0),
    (0.1, 0.0004),
    (0.1071, 0.0009),
    (0.114, 0.0015),
    (0.1195, 0.005),
    (0.1206, 0.0057),
    (0.1243, 0.0065),
    (0.1342, 0.0086),
    (0.1499, 0.0125),
    (0.15, 0.0125),
    (0.1526, 0.0131),
    (0.1996, 0.0607),
    (0.2, 0.0612),
    (0.25, 0.1054),
    (0.3, 0.1185),
    (0.35, 0.3213),
    (0.4, 0.7694),
    (0.45, 0.8216),
    (0.5, 0.8964),
    (0.55, 0.9179),
    (0.6, 0.9401),
    (0.6244, 0.9509),
    (0.65, 0.9623),
    (0.7, 0.9845),
    (0.75, 0.9879),
    (0.8, 0.9897),
    (0.85, 0.9916),
    (0.8522, 0.9916),
    (0.9, 0.9946),
    (0.95, 0.9984),
    (0.9994, 1.0),
    (1.0, 1.0),
)


class TableCalibrator:
    """Piecewise-linear monotone map through fixed knots, flat beyond the first and last.

    >>> cal = TableCalibrator([(0.0, 0.0), (0.5, 0.2), (1.0, 1.0)])
    >>> cal.predict(0.25), cal.predict(0.75), cal.predict(2.0)
    (0.1, 0.6, 1.0)
    """

    __slots__ = ("xs", "ys")

    def __init__(self, knots: Sequence[tuple[float, float]]) -> None:
        if len(knots) < 2:
            raise ValueError("need at least two knots")
        xs = [float(x) for x, _ in knots]
        ys = [float(y) for _, y in knots]
        if any(b <= a for a, b in itertools.pairwise(xs)):
            raise ValueError("knot positions must increase strictly")
        if any(b < a for a, b in itertools.pairwise(ys)) or ys[0] < 0.0 or ys[-1] > 1.0:
            raise ValueError("knot values must be probabilities that never decrease")
        self.xs = xs
        self.ys = ys

    def predict(self, score: float) -> float:
        """Return the calibrated probability for a posterior *score*.

        >>> TableCalibrator([(0.1, 0.05), (0.9, 0.95)]).predict(0.0)
        0.05
        """
        xs, ys = self.xs, self.ys
        if score <= xs[0]:
            return ys[0]
        if score >= xs[-1]:
            return ys[-1]
        i = bisect_right(xs, score)
        x0, x1, y0, y1 = xs[i - 1], xs[i], ys[i - 1], ys[i]
        return y0 + (y1 - y0) * (score - x0) / (x1 - x0)

    def predict_many(self, scores: Sequence[float]) -> list[float]:
        """Return calibrated probabilities for many posteriors.

        >>> TableCalibrator([(0.0, 0.0), (1.0, 0.5)]).predict_many([0.0, 1.0])
        [0.0, 0.5]
        """
        return [self.predict(float(s)) for s in scores]

    def knots(self) -> list[tuple[float, float]]:
        """Return the knots as (posterior, probability) pairs.

        >>> TableCalibrator([(0.0, 0.0), (1.0, 1.0)]).knots()
        [(0.0, 0.0), (1.0, 1.0)]
        """
        return list(zip(self.xs, self.ys, strict=True))


def default_calibrator() -> TableCalibrator:
    """Return the shipped calibration map (:data:`DEFAULT_KNOTS`).

    >>> 0.0 <= default_calibrator().predict(0.3) <= 1.0
    True
    """
    return TableCalibrator(DEFAULT_KNOTS)
