"""Classifying single JSON values: numbers, types, timestamps and placeholder-looking values."""

from __future__ import annotations

import re
from typing import Any, Final

__all__ = ["as_number", "is_round", "is_timestamp", "type_code"]

_TIMESTAMP: Final = re.compile(r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}")


def as_number(v: Any) -> float | None:
    """Return *v* as a finite float, or ``None`` for non-numbers (bools are not numbers).

    >>> as_number(3), as_number(True), as_number("3")
    (3.0, None, None)
    """
    # A tuple of types and float arithmetic, not ``int | float`` and math.isfinite: compiled, the union
    # is built anew on every call and math.isfinite is looked up on the module; these are inline checks.
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    x = float(v)
    return x if x - x == 0.0 else None  # finite: inf - inf and nan - nan are nan


def type_code(v: Any) -> str:
    """Return a one-letter JSON type: n(umber), s(tring), b(ool), z (null), o(ther).

    >>> type_code(1.5), type_code("a"), type_code(None)
    ('n', 's', 'z')
    """
    if isinstance(v, bool):
        return "b"
    if isinstance(v, (int, float)):  # a tuple, not a union (see as_number)
        return "n"
    if isinstance(v, str):
        return "s"
    return "z" if v is None else "o"


def is_timestamp(v: Any) -> bool:
    """True for ISO-8601 date-time strings (which compare in time order as text when alike).

    >>> is_timestamp("2024-03-04T10:00:00Z"), is_timestamp("10:00")
    (True, False)
    """
    return isinstance(v, str) and _TIMESTAMP.match(v) is not None


def is_round(v: Any) -> bool:
    """True for placeholder-looking values: whole multiples of ten, whole floats, digit runs, midnight.

    Canned stub values (``22.0``, ``1000``, ``123.45``, ``2024-01-01T00:00:00Z``) are round far more
    often than values measured from the world; the engine learns per field how often real values are.

    >>> is_round(22.0), is_round(21.7), is_round(123.45), is_round(1000), is_round(73)
    (True, False, True, True, False)
    >>> is_round("2024-01-01T00:00:00Z")
    True
    """
    kind = type(v)
    if kind is float:
        if v == 0 or v - v != 0.0:  # zero or not finite (nan and inf minus themselves are nan)
            return False
        if v.is_integer():
            return True
        digits = repr(abs(v)).replace(".", "").lstrip("0")
    elif kind is int:
        if v == 0:
            return False
        if v % 10 == 0:
            return True
        digits = str(abs(v))
    elif kind is str:
        return len(v) >= 19 and v[11:19] == "00:00:00" and _TIMESTAMP.match(v) is not None
    else:
        return False
    # A run of consecutive digits (123.45, 1234567) is what people type when they make a value up.
    return len(digits) >= 3 and "1234567890".startswith(digits[:10])
