"""Timestamps written inside text and the time-zone names an answer writes beside a clock time.

Tool results that are text rather than JSON (YAML-like ``key: value`` records, pages) carry ISO timestamps
with their UTC offset (``'2026-07-12T09:10:00+01:00'``). Read by the general patterns, the date stops at
the ``T`` and the offset "01:00" looks like a clock time; read here, the timestamp is one date, one local
wall-clock time and one instant. An answer that converts the time to a zone ("4:10 AM EDT") names the
zone: its offsets (both, for a name such as "PT" that covers winter and summer time) turn the answer's
wall-clock time into instants to compare with the instants of the results.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone
from typing import Final

from ..text import lower

__all__ = [
    "ISO_TIMESTAMP",
    "ZONE_OFFSETS",
    "parse_timestamp",
    "zone_after",
    "zone_instant_match",
    "zone_span_after",
]

# ``2026-07-12T09:10:00+01:00``, ``2026-07-12 09:10``, ``2026-07-12T09:10:00.5Z``: a date, a time of day
# and an optional offset, not inside a longer run of digits or letters. Opens with a digit, so the engine
# skips in C to the digits.
ISO_TIMESTAMP: Final = re.compile(
    r"(?<![\w.:+-])(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::\d{2}(?:\.\d+)?)?"
    r"([zZ]|[+-]\d{2}:?\d{2})?(?![\w:])"
)

# Offsets from UTC in minutes of the zone names written after a clock time. A name that covers the winter
# and the summer time ("PT", "ET") has both. Ambiguous names across continents ("IST", "CST" for China)
# are left out: a wrong reading would support a wrong time.
ZONE_OFFSETS: Final[dict[str, tuple[int, ...]]] = {
    "UTC": (0,), "GMT": (0,), "Z": (0,), "WET": (0,), "WEST": (60,), "BST": (60,), "CET": (60,),
    "CEST": (120,), "EET": (120,), "EEST": (180,), "MSK": (180,), "GST": (240,), "SGT": (480,),
    "HKT": (480,), "AWST": (480,), "JST": (540,), "KST": (540,), "ACST": (570,), "ACDT": (630,),
    "AEST": (600,), "AEDT": (660,), "NZST": (720,), "NZDT": (780,), "EST": (-300,), "EDT": (-240,),
    "ET": (-300, -240), "CST": (-360,), "CDT": (-300,), "CT": (-360, -300), "MST": (-420,),
    "MDT": (-360,), "MT": (-420, -360), "PST": (-480,), "PDT": (-420,), "PT": (-480, -420),
    "AKST": (-540,), "AKDT": (-480,), "AKT": (-540, -480), "HST": (-600,), "AST": (-240,),
    "ADT": (-180,), "NST": (-210,), "NDT": (-150,),
}  # fmt: skip

# A zone name right after a clock time: "9:10 AM BST", "15:42 (CEST)", "08:42 UTC".
_ZONE_AFTER: Final = re.compile(r"[ \t\u00a0]?\(?([A-Z]{1,4})\)?(?![\w])")

# Zone names written out ("9:30 AM (Pacific Time)", "11:05 AM Eastern Daylight Time"): the abbreviation each
# stands for (issue 14, h22a). Only names of one reading: "Central Time" is North America's, "Central
# European Time" Europe's; "Atlantic Time" and "India Standard Time" have no entry in ``ZONE_OFFSETS``.
_SPELLED_ZONES: Final[dict[str, str]] = {
    "pacific time": "PT", "pacific standard time": "PST", "pacific daylight time": "PDT",
    "mountain time": "MT", "mountain standard time": "MST", "mountain daylight time": "MDT",
    "central time": "CT", "central standard time": "CST", "central daylight time": "CDT",
    "eastern time": "ET", "eastern standard time": "EST", "eastern daylight time": "EDT",
    "alaska time": "AKT", "alaska standard time": "AKST", "alaska daylight time": "AKDT",
    "hawaii time": "HST", "hawaii standard time": "HST", "hawaii-aleutian standard time": "HST",
    "atlantic standard time": "AST", "atlantic daylight time": "ADT",
    "newfoundland standard time": "NST", "newfoundland daylight time": "NDT",
    "greenwich mean time": "GMT", "coordinated universal time": "UTC", "british summer time": "BST",
    "western european time": "WET", "western european summer time": "WEST",
    "central european time": "CET", "central european summer time": "CEST",
    "eastern european time": "EET", "eastern european summer time": "EEST", "moscow time": "MSK",
    "singapore time": "SGT", "hong kong time": "HKT", "japan standard time": "JST",
    "korea standard time": "KST", "australian western standard time": "AWST",
    "australian central standard time": "ACST", "australian central daylight time": "ACDT",
    "australian eastern standard time": "AEST", "australian eastern daylight time": "AEDT",
    "new zealand standard time": "NZST", "new zealand daylight time": "NZDT",
}  # fmt: skip
# A written-out zone name right after a clock time, in parentheses or not: its words are fixed, each run of
# spaces is a single class, so the pattern reads each character once.
_SPELLED_ZONE_AFTER: Final = re.compile(
    r"[ \t\u00a0]?(\(?)((?:"
    + "|".join(
        re.escape(n).replace(r"\ ", r"[ \t\u00a0]") for n in sorted(_SPELLED_ZONES, key=len, reverse=True)
    )
    + r"))(\)?)(?![\w])",
    re.IGNORECASE,
)


def parse_timestamp(match: re.Match[str]) -> tuple[tuple[int, int, int], tuple[int, int], datetime] | None:
    """The date, the wall-clock time and the datetime (aware when an offset is given) of an
    :data:`ISO_TIMESTAMP` match, or None when the fields are no calendar date or time of day.

    >>> parse_timestamp(ISO_TIMESTAMP.search("at: '2026-07-12T09:10:00+01:00'"))[:2]
    ((2026, 7, 12), (9, 10))
    >>> parse_timestamp(ISO_TIMESTAMP.search("2026-13-12T09:10")) is None
    True
    """
    y, mo, d, h, mi = (int(match.group(i)) for i in range(1, 6))
    tz = match.group(6)
    zone: timezone | None = None
    if tz:
        if tz in ("z", "Z"):
            zone = UTC
        else:
            digits = tz[1:].replace(":", "")
            minutes = int(digits[:2]) * 60 + int(digits[2:])
            if minutes >= 24 * 60:
                return None
            zone = timezone(timedelta(minutes=-minutes if tz[0] == "-" else minutes))
    try:
        dt = datetime(y, mo, d, h, mi, tzinfo=zone)
    except ValueError:
        return None
    return (y, mo, d), (h, mi), dt


def zone_after(text: str, end: int) -> str | None:
    """The known zone name written right after position ``end`` of ``text`` (the end of a clock time).

    >>> zone_after("at 9:10 AM BST today", 10), zone_after("at 9:10 AM (PT)", 10), zone_after("9:10 AM Be", 7)
    ('BST', 'PT', None)
    """
    m = _ZONE_AFTER.match(text, end)
    if m is None:
        return None
    name = m.group(1)
    return name if name in ZONE_OFFSETS else None


def zone_span_after(text: str, end: int) -> tuple[str, int] | None:
    """The known zone written right after position ``end`` of ``text`` (the end of a clock time), as its
    abbreviation, and where the zone's text ends (past a closing parenthesis that matches an opening one):
    an abbreviation ("9:10 AM BST") or a name written out ("9:30 AM (Pacific Time)").

    >>> zone_span_after("at 9:30 AM (Pacific Time) today", 10), zone_span_after("9:10 AM BST", 7)
    (('PT', 25), ('BST', 11))
    >>> zone_span_after("9:10 AM Pacific", 7) is None, zone_span_after("9:10 AM Eastern European Time", 7)
    (True, ('EET', 29))
    """
    m = _ZONE_AFTER.match(text, end)
    if m is not None and m.group(1) in ZONE_OFFSETS:
        stop = m.end()
        if text[stop - 1] == ")" and "(" not in text[end:stop]:
            stop -= 1
        return m.group(1), stop
    s = _SPELLED_ZONE_AFTER.match(text, end)
    if s is None:
        return None
    name = " ".join(lower(s.group(2)).replace("\t", " ").replace("\u00a0", " ").split())
    abbr = _SPELLED_ZONES.get(name)
    if abbr is None:
        return None
    # A closing parenthesis belongs to the zone only after an opening one.
    return abbr, s.end() if s.group(1) else s.end(2)


def zone_instant_match(hm: tuple[int, int], zone: str, instants: list[datetime]) -> datetime | None:
    """The first aware instant of ``instants`` whose wall-clock time in ``zone`` is ``hm``, else None.

    >>> t = datetime(2026, 7, 12, 9, 10, tzinfo=timezone(timedelta(hours=1)))
    >>> zone_instant_match((4, 10), "EDT", [t]) == t, zone_instant_match((5, 10), "EDT", [t])
    (True, None)
    >>> zone_instant_match((1, 10), "PT", [t]) == t  # PDT, the summer reading of "PT"
    True
    """
    want = hm[0] * 60 + hm[1]
    for offset in ZONE_OFFSETS.get(zone, ()):
        for dt in instants:
            off = dt.utcoffset()
            if off is None:
                continue
            local = dt.hour * 60 + dt.minute - int(off.total_seconds()) // 60 + offset
            if local % 1440 == want:
                return dt
    return None
