"""Helpers that read settings from the environment and fail loudly on bad values.

A typo in a production environment variable should stop the process at start-up with a
message naming the variable, not silently fall back to a default.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Iterable
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_str(name: str, default: str | None = None) -> str | None:
    """The variable's value, or its `_FILE` variant's file content (for Docker/K8s secrets)."""
    file_name = os.environ.get(f"{name}_FILE")
    if file_name:
        path = Path(file_name)
        if not path.is_file():
            raise ImproperlyConfigured(f"{name}_FILE points at {file_name!r}, which is not a readable file")
        return path.read_text().strip()
    return os.environ.get(name, default)


def env_bool(name: str, default: bool) -> bool:
    """Parse a boolean; anything but the usual spellings is a configuration error."""
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name}={raw!r} is not a boolean; use one of 1/0, true/false, yes/no, on/off")


def env_int(name: str, default: int, *, minimum: int | None = None) -> int:
    """Parse an integer, optionally bounded below."""
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r} is not an integer") from None
    if minimum is not None and value < minimum:
        raise ImproperlyConfigured(f"{name}={value} must be at least {minimum}")
    return value


def env_float(
    name: str, default: float, *, minimum: float | None = None, maximum: float | None = None
) -> float:
    """Parse a finite float, optionally bounded below and above."""
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r} is not a number") from None
    # float() takes "nan" and "inf", which pass no bound check as intended (nan compares false to all).
    if not math.isfinite(value):
        raise ImproperlyConfigured(f"{name}={raw!r} is not a finite number")
    if minimum is not None and value < minimum:
        raise ImproperlyConfigured(f"{name}={value} must be at least {minimum}")
    if maximum is not None and value > maximum:
        raise ImproperlyConfigured(f"{name}={value} must be at most {maximum}")
    return value


def env_choice(name: str, default: str, choices: Iterable[str]) -> str:
    """One of `choices` (compared case-insensitively, returned as spelled in `choices`)."""
    allowed = list(choices)
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    for choice in allowed:
        if raw.strip().lower() == choice.lower():
            return choice
    raise ImproperlyConfigured(f"{name}={raw!r} is not one of {', '.join(allowed)}")


def env_list(name: str, default: list[str]) -> list[str]:
    """A comma-separated list; blank items are dropped."""
    raw = os.environ.get(name)
    if raw is None:
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


# DRF reads a rate as "<count>/<period>" and looks only at the period's first letter; a value it cannot
# read would otherwise surface as a 500 on the first throttled request instead of at start-up.
_RATE = re.compile(r"^\s*(\d+)\s*/\s*(s|sec|second|m|min|minute|h|hour|d|day)s?\s*$", re.IGNORECASE)
_RATE_OFF = {"off", "none", "unlimited"}


def env_rate(name: str, default: str | None) -> str | None:
    """A throttle rate such as `1200/minute`; `off` (or `none`) means unlimited and returns None."""
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    value = raw.strip()
    if value.lower() in _RATE_OFF:
        return None
    match = _RATE.match(value)
    if match is None:
        raise ImproperlyConfigured(
            f"{name}={raw!r} is not a rate; write <count>/<second|minute|hour|day>, e.g. 1200/minute, or off"
        )
    if int(match.group(1)) < 1:
        raise ImproperlyConfigured(f"{name}={raw!r}: the count must be at least 1 (use off for no limit)")
    return f"{int(match.group(1))}/{match.group(2).lower()}"
