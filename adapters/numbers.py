"""Clamping and half-up rounding shared by the scalar and the numpy scoring paths.

SPEC section 2 rounds every component, adapter total and composite with
``floor(x * 100 + 0.5) / 100`` (half-up, not Python's banker's ``round``).  Applied
naively to binary floats that rule is wrong at exact decimal ties, because the tie
is usually not representable: ``0.9 * 0.85 * 0.75 * 100`` is ``57.37499999999999``
in IEEE-754, so the naive formula gives 57.37 where the exact decimal rule gives 57.38.

We neutralise representation error by snapping the scaled value ``t = x * 10**places``
to a grid of 10**-6 (``k = round_half_even(t * 1e6)``) before applying half-up in
exact integer arithmetic: ``m = floor((k + 500000) / 1e6)``.  Floating-point error in
our formulas (a handful of multiplications and one log10) is around 1e-13 at most on
values up to 10,000, six orders of magnitude below the grid, so every value that is a
decimal tie in exact arithmetic lands exactly on the tie and rounds up.  The price is
that a value genuinely within 5e-7 of a tie on the scaled axis (5e-9 absolute for two
places) is treated as the tie; no input with a sane number of decimals gets there.

The numpy path (:func:`round_half_up_array`) performs the very same IEEE operations in
the same order (``np.rint`` is round-half-even like Python's ``round``; the floor of an
exact integer quotient is exact), so both paths give bit-identical results.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

__all__ = ["MAX_PLACES", "clamp", "clamp_array", "log10", "round_half_up", "round_half_up_array"]

#: Largest number of decimal places we round to.  With values clamped to [0, 100]
#: the snapped integer stays far below 2**53, so numpy floats hold it exactly.
MAX_PLACES = 6

# The snapping grid on the scaled axis: 10**-6 of the last kept decimal.
_SNAP = 1_000_000
_HALF_SNAP = _SNAP // 2


def clamp(x: float, lo: float = 0.0, hi: float = 100.0) -> float:
    """Return *x* limited to the closed interval [*lo*, *hi*].

    >>> clamp(108.0)
    100.0
    >>> clamp(-3.5)
    0.0
    >>> clamp(0.7, 0.5, 3.0)
    0.7

    NaN is refused rather than silently passed through, because ``min``/``max``
    with NaN depend on argument order.
    """
    if math.isnan(x):
        raise ValueError("clamp() got NaN; scores must be finite numbers")
    if lo > hi:
        raise ValueError(f"clamp() needs lo <= hi, got lo={lo!r} hi={hi!r}")
    return float(min(max(x, lo), hi))


def _check_places(places: int) -> None:
    if not isinstance(places, int) or isinstance(places, bool) or not 0 <= places <= MAX_PLACES:
        raise ValueError(f"places must be an integer from 0 to {MAX_PLACES}, got {places!r}")


def round_half_up(x: float, places: int = 2) -> float:
    """Round *x* half-up (towards +infinity at ties) to *places* decimals.

    This is SPEC's ``floor(x * 100 + 0.5) / 100`` made robust to binary
    representation error (see the module docstring).

    >>> round_half_up(57.375)
    57.38
    >>> round_half_up(0.9 * 0.85 * 0.75 * 100)
    57.38
    >>> round_half_up(1.005)
    1.01
    >>> round_half_up(41.655707)
    41.66
    >>> round_half_up(0.99995, places=4)
    1.0
    """
    _check_places(places)
    if not math.isfinite(x):
        raise ValueError(f"round_half_up() needs a finite number, got {x!r}")
    scale = 10**places
    scaled = x * float(scale)
    if abs(scaled) >= 2.0**53 / _SNAP:
        raise ValueError(f"round_half_up() got {x!r}, too large to round exactly to {places} places")
    snapped = round(scaled * float(_SNAP))  # int, half-even on the exact float value, like np.rint
    units = (snapped + _HALF_SNAP) // _SNAP  # exact floor in integer arithmetic
    return units / scale


def round_half_up_array(
    x: npt.ArrayLike, places: int = 2, *, validate: bool = True
) -> npt.NDArray[np.float64]:
    """Vectorised :func:`round_half_up`; bit-identical to it element by element.

    ``validate=False`` skips the finiteness and range checks for callers that already
    guarantee finite values in [-100, 100] (the scoring hot path).

    >>> round_half_up_array([57.37499999999999, 1.005, 41.655707]).tolist()
    [57.38, 1.01, 41.66]
    """
    _check_places(places)
    arr = np.asarray(x, dtype=np.float64)
    scale = float(10**places)
    if validate:
        if not np.all(np.isfinite(arr)):
            raise ValueError("round_half_up_array() needs finite numbers")
        if arr.size and float(np.max(np.abs(arr))) * scale >= 2.0**53 / _SNAP:
            raise ValueError(
                f"round_half_up_array() got values too large to round exactly to {places} places"
            )
    out: npt.NDArray[np.float64] = np.multiply(arr, scale)
    # Same IEEE operations, in the same order, as round_half_up(); in place to spare memory.
    np.multiply(out, float(_SNAP), out=out)
    np.rint(out, out=out)
    # (snapped + HALF) is an exact integer below 2**53, and the floor of its correctly
    # rounded quotient by 1e6 is the exact integer floor, as in the scalar path.
    np.add(out, float(_HALF_SNAP), out=out)
    np.divide(out, float(_SNAP), out=out)
    np.floor(out, out=out)
    np.divide(out, scale, out=out)
    return out


def clamp_array(
    x: npt.ArrayLike, lo: float = 0.0, hi: float = 100.0, *, validate: bool = True
) -> npt.NDArray[np.float64]:
    """Vectorised :func:`clamp` (``validate=False`` skips the NaN check).

    >>> clamp_array([108.0, -1.0, 50.5]).tolist()
    [100.0, 0.0, 50.5]
    """
    arr = np.asarray(x, dtype=np.float64)
    if validate and np.any(np.isnan(arr)):
        raise ValueError("clamp_array() got NaN; scores must be finite numbers")
    if lo > hi:
        raise ValueError(f"clamp_array() needs lo <= hi, got lo={lo!r} hi={hi!r}")
    out: npt.NDArray[np.float64] = np.maximum(arr, lo)
    np.minimum(out, hi, out=out)
    return out


def log10(x: float) -> float:
    """Base-10 logarithm computed by numpy, so that the scalar path matches the array path.

    ``math.log10`` and ``np.log10`` may use different implementations (numpy has SIMD
    kernels on some CPUs) and can disagree in the last bit, which would break the
    promise that both paths give identical scores.

    >>> log10(1000.0)
    3.0
    """
    if not x > 0:
        raise ValueError(f"log10() needs a positive number, got {x!r}")
    return float(np.log10(np.array([x], dtype=np.float64))[0])
