"""Routes: a pair of place codes "A to B" in an answer must be a route the calls and results give.

Travel tools give a trip as a record with an ``origin`` and a ``destination`` code (a search's arguments,
a flight, a reservation, each leg of an itinerary). An answer that says "a direct flight from ATL to SFO"
after a search from JFK to SFO names a route nothing in the run has: each code alone is a value of the
run (ATL ends a leg of an earlier reservation), so the value rules support both, but the pair is of no
record (issue 14: a place of another leg or of an earlier reservation, the swap long customer-service
runs hide best).

A route is read only when both codes are origins or destinations of the run. It is supported when some
record (or call) has that origin and that destination, when one stop joins them (the origin's leg to a
code whose leg reaches the destination, both legs of one result, as in a one-stop itinerary), or when a
record has it the other way round (the return of a round trip). Otherwise the code that breaks a route
of the run is contradicted: the origin when a record goes from another origin to this destination, the
destination when a record goes from this origin to another destination, citing that record's codes. A
route whose two codes have no record with either end in place is left alone: the rules cannot tell which
end is wrong. A route of another record of the run ("from JFK to SFO" of an earlier booking, said of a
search from IAH) is still supported: which record a sentence speaks of is not read.
"""

from __future__ import annotations

import re
from typing import Any

from .evidence import Evidence, Fact
from .findings import Finding
from .mentions import Mention

__all__ = ["check_routes"]

# Two place codes joined as a route: "JFK to SFO", "from IAH to SFO", "JFK → SEA", "JFK - SEA", "JFK-SEA".
# (``\b([A-Z]{3})`` opening with the first capital, ``\b`` read behind it: the engine skips to capitals
# instead of trying every position; same matches, same groups. So does ``_LABELLED``, at its "o".)
_ROUTE = re.compile(r"([A-Z](?<!\w.)[A-Z]{2})(?:\s+to\s+|\s*(?:→|->|–|—)\s*|\s-\s|-)([A-Z]{3})\b")
# The same pair as two labelled lines of a list: "- **Origin:** JFK" and, on the next line,
# "- **Destination:** SFO" (a name may come first: "Origin: Miami (MIA)").
_LABELLED = re.compile(
    r"[Oo](?<!\w.)rigin\b[*_]*\s*:[*_]*[ \t]*(?:[^\n(]{0,40}\()?([A-Z]{3})\b[^\n]*\n"
    r"[ \t]*(?:[-+*•][ \t]*)?[*_]*[Dd]estination\b[*_]*\s*:[*_]*[ \t]*(?:[^\n(]{0,40}\()?([A-Z]{3})\b"
)
_ORIGIN_KEYS = frozenset({"origin", "from", "departure_airport", "from_airport"})
_DESTINATION_KEYS = frozenset({"destination", "to", "arrival_airport", "to_airport"})


def _route_codes(ev: Evidence) -> dict[tuple[str, str], list[Fact]]:
    """The (origin, destination) code pairs of the run's records, with the facts that give them."""
    ends: dict[object, tuple[list[Fact], list[Fact]]] = {}
    for x in ev.strings:
        if x.source != "tool" or not isinstance(x.path, tuple) or not x.path:
            continue
        key = x.path[-1]
        if not isinstance(key, str) or len(x.text) != 3 or not x.text.isalpha() or not x.text.isupper():
            continue
        if key in _ORIGIN_KEYS:
            ends.setdefault(x.record, ([], []))[0].append(x)
        elif key in _DESTINATION_KEYS:
            ends.setdefault(x.record, ([], []))[1].append(x)
    pairs: dict[tuple[str, str], list[Fact]] = {}
    for origins, destinations in ends.values():
        for o in origins:
            for d in destinations:
                pairs.setdefault((o.text, d.text), [o, d])
    return pairs


def _joined(a: str, b: str, pairs: dict[tuple[str, str], list[Fact]]) -> bool:
    """Whether the run has the route a to b: directly, by one stop, or the other way round."""
    if (a, b) in pairs or (b, a) in pairs:
        return True
    # One stop: two legs of one result (an itinerary, a reservation's flights), not legs of two trips.
    return any(
        (c, b) in pairs and pairs[(a, c)][0].message_index == pairs[(c, b)][0].message_index
        for (o, c) in pairs
        if o == a
    )


def check_routes(answer: str, findings: list[Finding], ev: Evidence, sentence_of: Any) -> list[Finding]:
    """Relabel, in place, the code of a route no record of the run has; return findings for codes that had
    none (the caller adds them).

    >>> from .messages import parse_run
    >>> from .evidence import build_evidence
    >>> run = parse_run([{"role": "user", "content": "Flights?"},
    ...     {"role": "tool", "tool_call_id": "c", "content": '[{"origin": "BRU", "destination": "LIS"}]'},
    ...     {"role": "assistant", "content": "x"}])
    >>> ev = build_evidence(run)
    >>> def labels(answer):
    ...     return [(f.mention.text, f.label) for f in check_routes(answer, [], ev, lambda i: (0, 9))]
    >>> labels("From BRU to LIS."), labels("From LIS to BRU."), labels("From OPO to LIS.")
    ([], [], [])
    >>> labels("From LIS to LIS or BRU to BRU.")
    []
    """
    found = [*_ROUTE.finditer(answer), *_LABELLED.finditer(answer)]
    if not found:
        return []
    pairs = _route_codes(ev)
    if not pairs:
        return []
    origins = {o for o, _ in pairs}
    destinations = {d for _, d in pairs}
    codes = origins | destinations
    by_start = {f.mention.start: f for f in findings}
    added: list[Finding] = []
    for m in found:
        a, b = m.group(1), m.group(2)
        if a not in codes or b not in codes or a == b or _joined(a, b, pairs):
            continue
        other_origin = [facts for (o, d), facts in pairs.items() if d == b and o != a]
        other_destination = [facts for (o, d), facts in pairs.items() if o == a and d != b]
        if other_origin:
            text, start, cites = a, m.start(1), other_origin[0]
        elif other_destination:
            text, start, cites = b, m.start(2), other_destination[0]
        else:
            continue
        reason = "no route of the run joins these places: " + " to ".join(x.text for x in cites) + " does"
        f = by_start.get(start)
        if f is not None and f.mention.text == text:
            f.label, f.reason, f.facts, f.derived = "CONTRADICTED", reason, list(cites), False
            continue
        sent = sentence_of(start)
        mention = Mention("entity", start, start + 3, text)
        added.append(Finding(mention, "CONTRADICTED", sent, list(cites), reason))
    return added
