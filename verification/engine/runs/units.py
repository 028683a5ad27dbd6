"""Unit conversion through pint, loaded once (building a registry takes a while)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

__all__ = ["convert", "dimension"]


@lru_cache(maxsize=1)
def _registry() -> Any:
    import pint

    return pint.UnitRegistry(autoconvert_offset_to_baseunit=True)


def convert(value: float, src: str, dst: str) -> float:
    """Convert ``value`` from unit ``src`` to unit ``dst``.

    >>> round(convert(330, "m", "ft"), 1)
    1082.7
    >>> round(convert(100, "degC", "degF"), 1)
    212.0
    """
    ureg = _registry()
    return float(ureg.Quantity(value, src).to(dst).magnitude)


@lru_cache(maxsize=256)
def dimension(unit: str) -> str:
    """The physical dimension of ``unit`` as pint names it ("" when unknown).

    >>> dimension("km/hour") == dimension("mile/hour")
    True
    """
    try:
        return str(_registry().Unit(unit).dimensionality)
    except Exception:
        return ""
