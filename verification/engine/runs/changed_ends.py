"""The old end of a trip the answer says is changed ("change the destination from LGA to JFK") must be that
end of a booking the run fetched.

"A to B" inside such a phrase is not a route: A is the trip's current destination (or origin) and B the one
the user asks for, so the route rules read neither end (issue 14: a "change the destination from X to Y"
phrasing hides a swapped code). The current end is the booking's own: a reservation result gives its trip's
``origin`` and ``destination`` at its top level, while its legs (and searches) give theirs deeper. The old
code is contradicted when the run has top-level values of that end and the code is none of them (a leg's
stop, PHX, swapped in for the booking's destination, LGA). The new code is the user's wish and is left to
the other rules; a run that fetched no booking is left alone.
"""

from __future__ import annotations

import re
from typing import Any

from ..text import lower
from .evidence import Evidence, Fact
from .findings import Finding, contradict
from .mentions import Mention

__all__ = ["check_changed_ends"]

# "the destination from PHX to JFK", "your origin from DTW to ORD"
_CHANGED = re.compile(r"\b([Dd]estination|[Oo]rigin)[ \t]+from[ \t]+([A-Z]{3})[ \t]+to[ \t]+([A-Z]{3})\b")


def _booking_ends(ev: Evidence) -> dict[str, list[Fact]]:
    """The codes tool results give at their top level, by key (origin, destination)."""
    ends: dict[str, list[Fact]] = {}
    for x in ev.strings:
        path = x.path
        if x.source != "tool" or not isinstance(path, tuple) or len(path) != 1:
            continue
        key = path[0]
        if key in ("origin", "destination") and len(x.text) == 3 and x.text.isupper():
            ends.setdefault(key, []).append(x)
    return ends


def check_changed_ends(answer: str, findings: list[Finding], ev: Evidence, sentence_of: Any) -> list[Finding]:
    """Relabel, in place, an old end of a changed trip that no booking of the run has; return a finding for
    one that had none (see the module).

    >>> from .messages import parse_run
    >>> from .evidence import build_evidence
    >>> from .grounding import ground_answer
    >>> booking = ('{"origin": "BRU", "destination": "LIS", "flights": [{"origin": "BRU", "destination": '
    ...     '"OPO"}, {"origin": "OPO", "destination": "LIS"}]}')
    >>> run = parse_run([{"role": "user", "content": "Fly me to MAD instead."},
    ...     {"role": "tool", "tool_call_id": "c", "content": booking},
    ...     {"role": "assistant", "content": "x"}])
    >>> ev = build_evidence(run)
    >>> def bad(answer):
    ...     return [f.mention.text for f in ground_answer(answer, ev) if f.label != "SUPPORTED"]
    >>> bad("I can't change the destination from LIS to MAD.")
    []
    >>> bad("I can't change the destination from OPO to MAD.")
    ['OPO']
    """
    if "from" not in answer:
        return []
    phrases = list(_CHANGED.finditer(answer))
    if not phrases:
        return []
    ends = _booking_ends(ev)
    added: list[Finding] = []
    for p in phrases:
        key = lower(p.group(1))
        known = ends.get(key)
        old = p.group(2)
        if not known or any(x.text == old for x in known):
            continue
        start = p.start(2)
        reason = "the booking's " + key + " is " + ", ".join(sorted({x.text for x in known}))
        mention = Mention("entity", start, p.end(2), old)
        contradict(findings, added, mention, sentence_of(start), reason, list(known))
    return added
