"""A clock time the answer works out from advice: a result's time less or plus a duration the same sentence
states (issue 14, h23b).

"KLM advises arriving at least 3.5 hours before an intercontinental flight, in this case around 22:30" is
the departure the results give (02:00) less the page's 3.5 hours. The time is no value of the results, but
it is told with both of its terms: the duration in its sentence (checked as a value of its own) and the
result's time it is counted from. Such a time is supported as that arithmetic; a time no such sum gives
stays checked as before. Only a sentence that says which way the time is counted ("before", "after",
"prior", "earlier", "later", "ahead") is read so.
"""

from __future__ import annotations

import re

from ..text import lower
from .evidence import Evidence, Fact
from .mentions import Mention

__all__ = ["offset_of_a_result_time"]

_DIRECTION = re.compile(r"\b(?:before|after|prior|earlier|later|ahead|beforehand)\b")
_DAY = 24 * 60


def offset_of_a_result_time(
    answer: str, sentence: tuple[int, int], m: Mention, mentions: list[Mention], ev: Evidence
) -> list[Fact]:
    """The result times that the time ``m`` is, less or plus a duration stated in its sentence (the span
    ``sentence`` of ``answer``; ``mentions`` are the answer's).

    >>> from .evidence import Fact
    >>> ev = Evidence(times=[Fact("time", (2, 0), 3, ("departure_time",), None, None, text="02:00")])
    >>> a = "Arrive 3.5 hours before the flight, around 22:30."
    >>> hours = Mention("quantity", 7, 16, "3.5 hours", value=210.0, unit="min")
    >>> time = Mention("time", 44, 49, "22:30", time=(22, 30))
    >>> [f.text for f in offset_of_a_result_time(a, (0, len(a)), time, [hours, time], ev)]
    ['02:00']
    >>> late = Mention("time", 44, 49, "21:30", time=(21, 30))
    >>> offset_of_a_result_time(a.replace("22:30", "21:30"), (0, len(a)), late, [hours, late], ev)
    []
    >>> early = "Arrive 3.5 hours early, around 22:30."
    >>> offset_of_a_result_time(early, (0, len(early)), time, [hours, time], ev)
    []
    """
    a, b = sentence
    if m.time is None or not ev.times or not _DIRECTION.search(lower(answer[a:b])):
        return []
    durations = [
        round(x.value)
        for x in mentions
        if a <= x.start < b
        and x.kind == "quantity"
        and x.unit == "min"
        and isinstance(x.value, float)
        and 0 < x.value < _DAY
    ]
    if not durations:
        return []
    told = m.time[0] * 60 + m.time[1]
    out: list[Fact] = []
    for f in ev.times:
        value = f.value
        if not (isinstance(value, tuple) and len(value) == 2):
            continue
        at = value[0] * 60 + value[1]
        if any((at - d) % _DAY == told or (at + d) % _DAY == told for d in durations):
            out.append(f)
    return out
