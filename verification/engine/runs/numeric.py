"""Numeric matching: the values a stated number accepts, and fast search of evidence and arithmetic on it.

A stated value accepts an interval of true values: rounding to the stated precision ("4.46 billion" is a
hundredth of a billion wide), wider when hedged ("about"), one-sided for bounds ("more than", "just under").
Evidence values are kept sorted per unit, so each look-up is a binary search.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Sequence
from functools import lru_cache
from operator import itemgetter

from ..text import lower
from .mentions import Mention

__all__ = [
    "SIGNED_UNITS",
    "SortedValues",
    "accepts",
    "conversion",
    "derive",
    "family",
    "interval",
    "may_add",
    "may_multiply",
    "operand",
]

# Units whose sign is part of the value; for the others a change is told without its sign ("down $1.64").
SIGNED_UNITS = frozenset({"degC", "degF"})
_MAGNITUDE_WORDS = (("trillion", 1e12), ("billion", 1e9), ("million", 1e6), ("thousand", 1e3))

_THOUSANDS_K = re.compile(r"\d[kK]\b")


@lru_cache(maxsize=512)
def conversion(src: str, dst: str) -> tuple[float, float] | None:
    """``(scale, offset)`` with ``dst = src * scale + offset``, or None when the units are incompatible.

    >>> conversion("m", "ft")[0] > 3.28
    True
    >>> conversion("m", "degC") is None
    True
    """
    if src == dst:
        return 1.0, 0.0
    try:
        from .units import convert

        zero = convert(0.0, src, dst)
        one = convert(1.0, src, dst)
    except Exception:
        return None
    return one - zero, zero


def interval(m: Mention, value: float | None = None, converted: bool = False) -> tuple[float, float]:
    """The closed interval of true values (absolute, unless the unit is signed) that ``m`` accepts.

    >>> m = Mention("money", 0, 5, "$4.46 billion", value=4.46e9, decimals=2)
    >>> lo, hi = interval(m)
    >>> lo <= 4.455e9 <= hi, lo <= 4.47e9 <= hi
    (True, False)
    """
    v = m.value if value is None else value
    assert v is not None
    s = v if m.unit in SIGNED_UNITS else abs(v)
    if m.hedge == "more":
        return s, 2.5 * s + 1e-9
    if m.hedge == "less":
        return 0.0, s + 1e-9
    if m.hedge == "under":
        return 0.85 * s - 1e-9, s + 1e-9
    mag = 1.0
    low = lower(m.text)
    for word, scale in _MAGNITUDE_WORDS:
        if word in low:
            mag = scale
            break
    else:
        if _THOUSANDS_K.search(m.text):
            mag = 1e3
    step = 10.0 ** (-m.decimals) * mag
    tol = max(step, 0.03 * abs(s)) if m.hedge == "about" else step / 2 + 1e-9 * max(1.0, abs(s))
    if m.hedge == "exact":
        tol = 1e-9 * max(1.0, abs(s))  # "exactly 6 km" does not round
    if converted:
        tol = max(tol, 0.01 * abs(s))
    return s - tol, s + tol


def accepts(m: Mention, actual: float, converted: bool = False) -> bool:
    """Whether the true value ``actual`` (in ``m``'s unit) is consistent with the stated ``m``.

    >>> accepts(Mention("quantity", 0, 9, "about 6°C", value=6, unit="degC", hedge="about"), 5.6)
    True
    """
    lo, hi = interval(m, converted=converted)
    x = actual if m.unit in SIGNED_UNITS else abs(actual)
    return lo <= x <= hi


class SortedValues:
    """Values sorted for range queries, each carrying a payload.

    >>> sv = SortedValues([(3.0, "a"), (1.0, "b"), (2.0, "c")])
    >>> sv.between(1.5, 3.0)
    ['c', 'a']
    """

    __slots__ = ("items", "keys")

    def __init__(self, pairs: Iterable[tuple[float, object]]) -> None:
        ordered = sorted(pairs, key=itemgetter(0))
        self.keys = [p[0] for p in ordered]
        self.items = [p[1] for p in ordered]

    def between(self, lo: float, hi: float) -> list:
        """Payloads with a key in ``[lo, hi]``."""
        i = bisect.bisect_left(self.keys, lo)
        j = bisect.bisect_right(self.keys, hi)
        return self.items[i:j]


# Units of durations: a quantity in one of these is checked against times and dates, not by arithmetic.
_DURATION_UNITS = frozenset({"min", "hour", "day", "s", "week", "year"})


@lru_cache(maxsize=256)
def family(unit: str | None) -> str:
    """The kind of quantity ``unit`` measures, for arithmetic: its physical dimension ("" without a unit).

    >>> family("km/hour") == family("mile/hour"), family("degC") == family("km/hour")
    (True, False)
    """
    if not unit:
        return ""
    if unit in SIGNED_UNITS:
        return "temperature"
    if unit == "percent" or unit == "year_of_date":
        return unit
    from .units import dimension

    return dimension(unit) or unit


def may_add(m: Mention, unit: str | None) -> bool:
    """Whether an evidence value in ``unit`` may be a term of a sum or difference that gives ``m``.

    Terms of a sum measure the same kind of thing as the result: 43 km/h - 17 °C is not 26 °C, and a
    speed or a temperature is no term of an amount of money.

    >>> temp = Mention("quantity", 0, 4, "26°C", value=26.0, unit="degC")
    >>> may_add(temp, "degF"), may_add(temp, "km/hour"), may_add(temp, None)
    (True, False, False)
    """
    if m.kind == "quantity" and m.unit and m.unit not in _DURATION_UNITS:
        return unit is not None and family(unit) == family(m.unit)
    if m.kind == "money":
        return unit is None
    return True


def may_multiply(m: Mention, unit: str | None) -> bool:
    """Whether an evidence value in ``unit`` may be a factor of a product or ratio that gives ``m``.

    A price is a rate times an amount of anything countable (nights, hours, kilometres), never times a
    temperature; a physical quantity is only ever a sum or difference (see :func:`derive`).

    >>> may_multiply(Mention("money", 0, 3, "$60", value=60.0), "km")
    True
    """
    if m.kind == "quantity" and m.unit and m.unit not in _DURATION_UNITS:
        return may_add(m, unit)
    if m.kind == "money":
        return unit not in SIGNED_UNITS
    return True


def operand(m: Mention, value: float, unit: str | None) -> float:
    """An evidence value in ``unit`` as an operand for ``m``: in ``m``'s unit when both are physical units
    of one kind (12 km and 3000 m add up to 15 km), else as it stands.

    >>> operand(Mention("quantity", 0, 5, "15 km", value=15.0, unit="km"), 3000.0, "m")
    3.0
    """
    if m.kind != "quantity" or not m.unit or not unit or unit == m.unit:
        return value
    conv = conversion(unit, m.unit)
    if conv is None:
        return value
    return value * conv[0] + conv[1]


def derive(
    m: Mention,
    operands: Sequence[float],
    percent: bool,
    physical: bool,
    addends: Sequence[float] | None = None,
) -> str:
    """One step of arithmetic on ``operands`` that gives the stated value, named, or "".

    Sums, differences, products (rate x nights), ratios and percentages (share, change, difference) and
    inverse rates; physical quantities only add and subtract. ``addends`` (``operands`` when None) are the
    values that may be terms of a sum or difference: those that measure the same kind of thing as ``m``.

    >>> derive(Mention("money", 0, 4, "$318", value=318.0), [159.0, 2.0], percent=False, physical=False)
    'product'
    >>> growth = Mention("percent", 0, 5, "22.1%", value=22.1, decimals=1)
    >>> derive(growth, [1.99, 2.43], percent=True, physical=False)
    'percentage change'
    """
    # 0 and 1 make every value "derivable" (x * 1, x / 1): they are no evidence for anything.
    vals = sorted({abs(x) for x in operands if x and abs(x) != 1})
    if len(vals) < 1:
        return ""
    terms = vals if addends is None else sorted({abs(x) for x in addends if x and abs(x) != 1})
    lo, hi = interval(m)
    sv = SortedValues((x, i) for i, x in enumerate(vals))
    sv_terms = SortedValues((x, i) for i, x in enumerate(terms))

    def has(a_lo: float, a_hi: float, exclude: int) -> bool:
        return any(idx != exclude for idx in sv.between(min(a_lo, a_hi), max(a_lo, a_hi)))

    def has_term(a_lo: float, a_hi: float, exclude: int) -> bool:
        return any(idx != exclude for idx in sv_terms.between(min(a_lo, a_hi), max(a_lo, a_hi)))

    for i, a in enumerate(terms):
        # a + b, b - a for another term b.
        if has_term(lo - a, hi - a, i):
            return "sum"
        if has_term(lo + a, hi + a, i):
            return "difference"
    if physical:
        return ""
    for i, a in enumerate(vals):
        # a * b, b / a for another operand b.
        if not percent and has(lo / a, hi / a, i):
            return "product"
        if percent:
            if has(lo * a / 100, hi * a / 100, i):
                return "percentage"
            if hi > 0 and lo > 0 and has(a * 100 / hi, a * 100 / lo, i):
                return "percentage"
            if has(a * (1 + lo / 100), a * (1 + hi / 100), i) or has(
                a * (1 - hi / 100), a * (1 - lo / 100), i
            ):
                return "percentage change"
            if hi < 100 and has(a / (1 - lo / 100), a / (1 - hi / 100), i):
                return "percentage difference"
        else:
            if has(lo * a, hi * a, i):
                return "ratio"
            if lo <= 1 / a <= hi:
                return "inverse rate"
    return ""
