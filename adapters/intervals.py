"""Confidence intervals for a rate measured on a small number of trials.

A provider's false-positive rate measured on 12 canary cases is not a number but a range: 1 of 12 is
compatible with anything from about 1.5 % to 35 %. The registry publishes that range next to the rate
so that nobody reads 0 of 3 as "never wrong". We use the Wilson score interval, which (unlike the
textbook normal interval) stays inside [0, 1], is not empty at 0 or n successes, and keeps close to its
nominal coverage down to a handful of trials (Brown, Cai and DasGupta, "Interval Estimation for a
Binomial Proportion", Statistical Science 16(2), 2001).
"""

from __future__ import annotations

import math
from statistics import NormalDist
from typing import NamedTuple

__all__ = ["RateInterval", "wilson_interval"]


class RateInterval(NamedTuple):
    """A measured rate (None when there were no trials) and its confidence bounds."""

    rate: float | None
    low: float
    high: float
    trials: int


def wilson_interval(successes: int, trials: int, *, confidence: float = 0.95) -> RateInterval:
    """The rate successes/trials with its Wilson score interval at `confidence`.

    With no trials nothing is known: the rate is None and the interval is all of [0, 1].

    >>> wilson_interval(1, 12)
    RateInterval(rate=0.0833, low=0.0149, high=0.3539, trials=12)
    >>> wilson_interval(0, 0)
    RateInterval(rate=None, low=0.0, high=1.0, trials=0)
    >>> wilson_interval(3, 2)
    Traceback (most recent call last):
      ...
    ValueError: successes must be between 0 and trials (3 of 2)
    """
    if isinstance(successes, bool) or isinstance(trials, bool):
        raise TypeError("successes and trials must be integers, not booleans")
    if trials < 0:
        raise ValueError(f"trials must be >= 0, not {trials}")
    if not 0 <= successes <= trials:
        raise ValueError(f"successes must be between 0 and trials ({successes} of {trials})")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be strictly between 0 and 1, not {confidence}")
    if trials == 0:
        return RateInterval(None, 0.0, 1.0, 0)
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    p = successes / trials
    z2n = z * z / trials
    centre = (p + z2n / 2) / (1 + z2n)
    half = z * math.sqrt(p * (1 - p) / trials + z2n / (4 * trials)) / (1 + z2n)
    # At 0 and n successes the exact bound is 0 and 1; floating point may leave 1e-17 either side.
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == trials else min(1.0, centre + half)
    return RateInterval(round(p, 4), round(low, 4), round(high, 4), trials)
