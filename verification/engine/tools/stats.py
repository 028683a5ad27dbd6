"""Running statistics for SPC baselines.

A baseline is a plain dict (so every store can hold it): Welford's running mean and sum of squared
deviations over a circular window of the last ``WINDOW`` observations, plus the window itself for the
Western Electric run rules and robust quantiles.
"""

from __future__ import annotations

import math
from typing import Final, TypedDict

_isfinite: Final = math.isfinite

__all__ = [
    "LATENCY_MIN_SIGMA",
    "MIN_OBSERVATIONS",
    "RULE_WEIGHTS",
    "SIZE_MIN_SIGMA",
    "WINDOW",
    "RunningStats",
    "envelope",
    "new_stats",
    "push",
    "push_bounded",
    "push_finite",
    "quantile",
    "std",
    "western_electric",
]

#: Observations kept per baseline (the seed's 100-point circular buffer).
WINDOW: Final = 100
#: The seed's SPC rules activate after this many prior observations.
MIN_OBSERVATIONS: Final = 8
#: σ floors of the latency and size baselines (log space): a σ below ~5 % / ~15 % would make ordinary
#: jitter, or the variety of sizes across arguments, look like a shift.
LATENCY_MIN_SIGMA: Final = 0.05
SIZE_MIN_SIGMA: Final = 0.06
#: Western Electric rules 1-4 and the seed's weights.
RULE_WEIGHTS: Final[tuple[float, float, float, float]] = (0.40, 0.25, 0.20, 0.15)


class RunningStats(TypedDict, total=False):
    """Welford state over a window: count in window, mean, M2, window values, total ever seen.

    ``env`` caches (distinct, min, max, total) of the window for :func:`envelope`.

    >>> sorted(new_stats())
    ['buf', 'm2', 'mean', 'n', 'total']
    """

    n: int
    mean: float
    m2: float
    buf: list[float]
    total: int
    env: list[float]


def new_stats() -> RunningStats:
    """Return an empty baseline.

    >>> new_stats()["n"]
    0
    """
    return {"n": 0, "mean": 0.0, "m2": 0.0, "buf": [], "total": 0}


def push(rs: RunningStats, x: float, window: int = WINDOW) -> None:
    """Add *x*, evicting the oldest value once the window is full (Welford add and remove).

    >>> rs = new_stats()
    >>> for v in (1.0, 2.0, 3.0): push(rs, v, window=2)
    >>> rs["mean"], rs["buf"]
    (2.5, [2.0, 3.0])
    """
    if not _isfinite(x):
        raise ValueError(f"baseline values must be finite, got {x!r}")
    push_finite(rs, x, window)


def push_finite(rs: RunningStats, x: float, window: int = WINDOW) -> None:
    """:func:`push` for an *x* the caller knows to be finite (no check).

    >>> rs = new_stats()
    >>> push_finite(rs, 4.0); rs["mean"]
    4.0
    """
    buf = rs["buf"]
    n = rs["n"]
    mean = rs["mean"]
    if len(buf) >= window:
        old = buf.pop(0)
        if n <= 1:
            n, mean, rs["m2"] = 0, 0.0, 0.0
        else:
            mean_new = (n * mean - old) / (n - 1)
            rs["m2"] = max(0.0, rs["m2"] - (old - mean) * (old - mean_new))
            mean = mean_new
            n -= 1
    buf.append(x)
    n += 1
    delta = x - mean
    mean = mean + delta / n
    rs["m2"] += delta * (x - mean)
    rs["mean"] = mean
    rs["n"] = n
    rs["total"] += 1


def push_bounded(rs: RunningStats, x: float, min_sigma: float = 0.0, window: int = WINDOW) -> None:
    """:func:`push_finite` of *x* winsorised to the baseline's 3σ limits (σ floored at *min_sigma*).

    Once the SPC rules are active (:data:`MIN_OBSERVATIONS`), a value beyond mean ± 3σ enters at the
    limit it crossed: it still counts towards runs (rules 2-4) and a lasting shift still moves the
    mean, but one spike cannot widen σ or drag the mean so far that the next spike looks normal.

    >>> rs = new_stats()
    >>> for v in [10.0, 11.0, 9.0, 10.0, 10.5, 9.5, 10.0, 10.2, 9.8]: push(rs, v)
    >>> push_bounded(rs, 1000.0); rs["buf"][-1] < 13.0
    True
    """
    n = rs["n"]
    if n >= MIN_OBSERVATIONS:
        sigma = max(math.sqrt(rs["m2"] / (n - 1)), min_sigma)
        mean = rs["mean"]
        limit = 3.0 * sigma
        if x > mean + limit:
            x = mean + limit
        elif x < mean - limit:
            x = mean - limit
    push_finite(rs, x, window)


def envelope(rs: RunningStats) -> tuple[int, float, float]:
    """Return (distinct values, min, max) of the window, cached until the window changes.

    >>> rs = new_stats()
    >>> for v in (3.0, 1.0, 3.0): push(rs, v)
    >>> envelope(rs)
    (2, 1.0, 3.0)
    """
    cached = rs.get("env")
    if cached is not None and cached[3] == rs["total"]:
        return int(cached[0]), cached[1], cached[2]
    buf = rs["buf"]
    if not buf:
        return 0, 0.0, 0.0
    result = (len(set(buf)), min(buf), max(buf))
    rs["env"] = [result[0], result[1], result[2], rs["total"]]
    return result


def std(rs: RunningStats) -> float:
    """Return the sample standard deviation of the window (0 with fewer than two values).

    >>> rs = new_stats()
    >>> for v in (2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0): push(rs, v)
    >>> round(std(rs), 4)
    2.1381
    """
    n = rs["n"]
    return math.sqrt(rs["m2"] / (n - 1)) if n > 1 else 0.0


def quantile(values: list[float], q: float) -> float:
    """Return the *q*-quantile of *values* by linear interpolation.

    >>> quantile([1.0, 2.0, 3.0, 4.0], 0.5)
    2.5
    """
    if not values:
        raise ValueError("quantile of an empty list")
    if not 0.0 <= q <= 1.0:
        raise ValueError(f"q must be in [0, 1], got {q!r}")
    s = sorted(values)
    pos = q * (len(s) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


def western_electric(rs: RunningStats, x: float, min_sigma: float = 0.0) -> tuple[float, list[int]]:
    """Score *x* against the baseline with the four Western Electric rules.

    Returns the summed weights of the rules that fire and their numbers (1-4). The rules look at *x*
    and the most recent window values, all measured against the current mean and standard deviation
    (floored at *min_sigma*); nothing fires before :data:`MIN_OBSERVATIONS` observations.

    >>> rs = new_stats()
    >>> for v in [10.0, 11.0, 9.0, 10.0, 10.5, 9.5, 10.0, 10.2, 9.8]: push(rs, v)
    >>> western_electric(rs, 30.0)
    (0.4, [1])
    >>> western_electric(rs, 10.1)
    (0.0, [])
    """
    n = rs["n"]
    if n < MIN_OBSERVATIONS:
        return 0.0, []
    sd = math.sqrt(rs["m2"] / (n - 1)) if n > 1 else 0.0
    sigma = max(sd, min_sigma)
    if sigma <= 0.0:
        return 0.0, []
    mean = rs["mean"]
    buf = rs["buf"]
    z = (x - mean) / sigma
    side = 1.0 if z > 0 else -1.0
    sz = side * z
    # The z-scores of the window's newest values, computed only as far as a rule needs them.
    k = len(buf)
    if sz <= 1.0:
        # The common case, within 1σ: rules 1-3 cannot fire, and rule 4 only if the newest seven values
        # all lie on x's side of the mean (and x is off the mean).
        if sz <= 0 or k < 7:
            return 0.0, []
        for i in range(k - 1, k - 8, -1):
            if not side * ((buf[i] - mean) / sigma) > 0:
                return 0.0, []
        return float(sum(RULE_WEIGHTS[r - 1] for r in (4,))), [4]
    fired: list[int] = []
    if abs(z) > 3.0:
        fired.append(1)
    # Rules 2-4 only count runs that include the newest point, so an old excursion does not re-fire.
    if sz > 2.0:
        count = 1 + sum(1 for v in buf[max(k - 2, 0) :] if side * ((v - mean) / sigma) > 2.0)
        if count >= 2:
            fired.append(2)
    if sz > 1.0:
        count = 1 + sum(1 for v in buf[max(k - 4, 0) :] if side * ((v - mean) / sigma) > 1.0)
        if count >= 4:
            fired.append(3)
    if sz > 0 and k >= 7:
        for i in range(k - 1, k - 8, -1):
            if not side * ((buf[i] - mean) / sigma) > 0:
                break
        else:
            fired.append(4)
    if not fired:
        return 0.0, fired
    return float(sum(RULE_WEIGHTS[r - 1] for r in fired)), fired
