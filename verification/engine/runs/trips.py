"""Trips: a route told with its date, a search's route, an identifier told with its route or date.

``routes.check_routes`` asks whether a pair of place codes is a route of *some* record of the run; on long
customer-service runs that is too weak (issue 14). A reservation read early gives routes and dates that a
later, wrong sentence about a search can lean on: "no nonstop flights from ATL to MCO" after a search from
JFK to MCO (ATL to MCO is a leg of the reservation), "flights from JFK to SFO on May 19" after a search from
IAH on that day. These checks read a trip as its record's origin, destination and dates (a search result
carries the date of the call that returned it) and ask three narrower questions:

- a route told with a date ("DTW to JFK on 2024-05-19") must be a trip of the run on that day (directly or
  by one stop); when the run has that route on other days only, the date is contradicted, and when it has
  that day only from another origin or to another destination, the other end is;
- a route that introduces search results ("the flights from JFK to SFO", "flights between PHX and JFK")
  must be the route of a search of the answer's own turn when one shares an end with it;
- a route or a date told with an identifier ("Flight HAT083 from JFK to SEA", "Reservation JG7FMM, Origin:
  BOS, Destination: CLT", "Flight HAT069 ... Departure: May 24") must be that identifier's own: the route of
  one of its records, the date of the search that returned it.

A date the user or the system prompt states is left alone (the user asks for the day, the agent repeats
it before any result gives it), and so is a flight's date that only a reservation gives (a flight is often
told on the day it is being moved to).
"""

from __future__ import annotations

import re
from datetime import date as _date
from datetime import timedelta
from typing import Any

from ..text import lower
from .evidence import Evidence, Fact
from .findings import SWAPPED_IDENTIFIER, Finding, joined_identifiers
from .mentions import Mention

__all__ = ["check_failed_identifiers", "check_trips"]

_ORIGIN_KEYS = frozenset({"origin", "from", "departure_airport", "from_airport"})
_DESTINATION_KEYS = frozenset({"destination", "to", "arrival_airport", "to_airport"})
# Dates of a birth or of a record's own creation are no day of travel.
_NOT_TRAVEL_DATE = ("birth", "dob", "created", "updated", "issued", "expir")
_CODE = re.compile(r"[A-Z]{3}")
# An identifier a record is known by: letters and digits, at least one digit ("HAT083", "JG7FMM").
_IDENT = re.compile(r"(?=[A-Z0-9]*\d)(?=[A-Z0-9]*[A-Z])[A-Z0-9]{5,10}")
_NAMED_IDENT = re.compile(r"(?<= )(?=[A-Z0-9]*\d)(?=[A-Z0-9]*[A-Z])[A-Z0-9]{5,10}$")
# A route: "JFK to SFO", "JFK → SFO", "JFK->SFO", "between PHX and JFK" (group 3 marks "between").
# (``\b(?:(between)\s+([A-Z]{3})\s+and\s+([A-Z]{3})|([A-Z]{3})(?:\s+to\s+|\s*(?:→|->)\s*)([A-Z]{3}))\b``
# written to open with a choice of characters, the ``\b`` read behind the first one and the branch picked by
# a look-behind; groups 1 and 4, which would start before that character, are captured by look-behinds over
# what was read. The same matches and groups; the engine skips to "b" and the capitals in C, h22d.)
_ROUTE = re.compile(
    r"[bA-Z](?<!\w.)(?:(?<=b)etween(?<=(between))\s+([A-Z]{3})\s+and\s+([A-Z]{3})"
    r"|(?<=[A-Z])[A-Z]{2}(?<=([A-Z]{3}))(?:\s+to\s+|\s*(?:→|->)\s*)([A-Z]{3}))\b"
)
# "flight HAT072, and return SFO → IAH on May 23, flight HAT278": a conjunction right after the identifier
# opens the next item of the sentence; a route after it is that item's, not the identifier's (issue 14, h25e).
_NEXT_ITEM = re.compile(r"[,;)*]{0,3} (?:and|then) ")
# The same pair as two labelled lines: "- **Origin:** BOS" then "- **Destination:** CLT".
# (Opening with its first letter, ``\b`` read behind it: the engine skips to the "o"s instead of trying every
# position of the answer; the same matches as ``\b[Oo]rigin``.)
_LABELLED = re.compile(
    r"[Oo](?<!\w.)rigin\b[*_]*\s*:[*_]*[ \t]*([A-Z]{3})\b[^\n]*\n"
    r"[ \t]*(?:[-+*•][ \t]*)?[*_]*[Dd]estination\b[*_]*\s*:[*_]*[ \t]*([A-Z]{3})\b"
)
# What may stand between a route and the date it is told on: "JFK to SFO on May 19", "JFK to SFO, May 19".
_ROUTE_TO_DATE = re.compile(r"[ \t]*(?:,[ \t]*)?(?:on|for|departing(?: on)?)?[ \t]*")
# The route opens a list of search results: "flights from X to Y", "flight options between X and Y".
# Between a route and the identifier it heads on one line: "JFK to LAS: Flight HAT112", "JFK to LAS - HAT112".
_ROUTE_HEADS_ID = re.compile(r"[*_]*\s*[:–-]\s*[*_]*\s*(?:[Ff]light(?:\s+[Nn]umber)?:?\s*)?[*_]*")
# What may follow such an identifier on its line: a parenthesis without another identifier ("(Economy)").
_LINE_TAIL = re.compile(r"[*_]*\s*(?:\([^()\n0-9]*\))?[*_.]*\s*")
_SEARCH_LEAD = re.compile(
    r"\b(?:flights|coaches|trains|buses|ferries|sailings|connections|departures)\b[^.\n:]{0,40}$", re.I
)
# A numbered item ends an identifier's block of details.
# A place told alone: "from LAS", "to IAH", "at IAH" (after an arrival), "Origin: ATL".
_SINGLE_CODE = re.compile(r"\b(from|to|at|in|[Oo]rigin|[Dd]estination)\b[*_]*:?[*_]*[ \t]+([A-Z]{3})\b")
_ARRIVAL = re.compile(r"\barriv", re.I)
_ROUTES_REASON = "no route of the run joins"
_NUMBERED = re.compile(r"[ \t]*\d{1,2}[.)]\s")

Day = tuple[int, int, int]


class _Trip:
    """One record's origin, destination and days (a search result's day is its call's)."""

    def __init__(self, record: Any, call: bool) -> None:
        self.record = record
        self.call = call
        self.origin: Fact | None = None
        self.destination: Fact | None = None
        self.days: dict[Day, Fact] = {}
        self.idents: set[str] = set()
        self.facts: list[Fact] = []
        self.message_index = -1
        self.searched = False  # its days are those of the search that returned it


def _trips(ev: Evidence) -> list[_Trip]:
    """The records of the results (and the calls' arguments) that have both an origin and a destination."""
    by_key: dict[tuple[Any, bool], _Trip] = {}
    # Two passes: the places first (few keys), then the identifiers of only the records that have places;
    # most strings of a long run are of neither, and are passed over on a set lookup.
    for x in ev.strings:
        path = x.path
        if not isinstance(path, tuple) or not path:
            continue
        key = path[-1]
        origin = key in _ORIGIN_KEYS
        if not origin and key not in _DESTINATION_KEYS:
            continue
        if x.source != "tool" or x.record is None or not _CODE.fullmatch(x.text):
            continue
        call = path[0] == "tool_calls"
        t = by_key.get((x.record, call))
        if t is None:
            t = by_key[(x.record, call)] = _Trip(x.record, call)
            t.message_index = x.message_index
        if origin:
            t.origin = t.origin or x
        else:
            t.destination = t.destination or x
    placed = {r for r, call in by_key if not call}
    for x in ev.strings if placed else ():  # no trip in the results: nothing to read again
        if x.record in placed and x.path and x.path[0] != "tool_calls" and _IDENT.fullmatch(x.text):
            by_key[(x.record, False)].idents.add(x.text)
    for x in ev.dates:
        if x.source != "tool" or x.record is None or not isinstance(x.path, tuple) or not x.path:
            continue
        key = x.path[-1]
        if not isinstance(key, str) or "date" not in key or any(w in key for w in _NOT_TRAVEL_DATE):
            continue
        t = by_key.get((x.record, x.path[0] == "tool_calls"))
        if t is not None and None not in x.value[:3]:
            t.days.setdefault((x.value[0], x.value[1], x.value[2]), x)
    trips = [t for t in by_key.values() if t.origin is not None and t.destination is not None]
    calls = {t.record: t for t in trips if t.call and t.days}
    for t in trips:
        assert t.origin is not None and t.destination is not None
        t.facts = [t.origin, t.destination]
        if not t.days and not t.call and t.record[1]:
            # An element of a search's result list: the day it was searched for.
            searched = calls.get((t.record[0], ()))
            if searched is not None:
                t.days, t.searched = dict(searched.days), True
    return trips


def _ends(t: _Trip) -> tuple[str, str]:
    assert t.origin is not None and t.destination is not None
    return t.origin.text, t.destination.text


def _joined(a: str, b: str, day: Day | None, trips: list[_Trip], either_way: bool) -> bool:
    """Whether some trip (on ``day`` when given) goes from a to b, directly or by one stop of one result."""
    for t in trips:
        if day is not None and day not in t.days:
            continue
        ends = _ends(t)
        if ends == (a, b) or (either_way and ends == (b, a)):
            return True
    for t in trips:
        if _ends(t)[0] != a or (day is not None and day not in t.days):
            continue
        stop = _ends(t)[1]
        if any(
            _ends(u) == (stop, b) and u.message_index == t.message_index and u.record[0] == t.record[0]
            for u in trips
        ):
            return True
    return False


def _stated_by_people(ev: Evidence, day: Day) -> bool:
    return any(x.source in ("user", "system") and tuple(x.value[:3]) == day for x in ev.dates)


def _day(f: Finding) -> Day | None:
    d = f.mention.date
    if d is None or None in d[:3]:
        return None
    assert d[0] is not None and d[1] is not None and d[2] is not None
    return (d[0], d[1], d[2])


def _settled(findings: list[Finding], *starts: int) -> bool:
    """Whether a code of the route is already flagged (by ``routes.check_routes``): one claim is enough."""
    return any(f.label != "SUPPORTED" and f.mention.start in starts for f in findings)


def _move_route_flag(findings: list[Finding], keep: int, ends: tuple[int, int]) -> None:
    """``routes.check_routes`` picks an end of a broken route without the day or the search; when these
    rules tell which end is wrong, the other end is a value of the run again (one claim per route)."""
    for f in findings:
        if f.mention.start in ends and f.mention.start != keep and f.reason.startswith(_ROUTES_REASON):
            f.label, f.reason, f.facts = (
                "SUPPORTED",
                "a place of the run (the route's other end is wrong)",
                [],
            )


def _flag(
    findings: list[Finding],
    added: list[Finding],
    start: int,
    text: str,
    cites: list[Fact],
    reason: str,
    sentence_of: Any,
) -> None:
    """Contradict the value at ``start``: relabel its finding, or add one when it had none."""
    for f in findings:
        if f.mention.start == start and f.mention.text == text:
            if f.label != "CONTRADICTED":
                f.label, f.reason, f.facts, f.derived = "CONTRADICTED", reason, list(cites), False
            return
    if any(f.mention.start == start for f in added):
        return
    added.append(
        Finding(
            Mention("entity", start, start + len(text), text),
            "CONTRADICTED",
            sentence_of(start),
            list(cites),
            reason,
        )
    )


def _flag_wrong_end(
    findings: list[Finding],
    added: list[Finding],
    wrong: tuple[int, str, list[Fact]],
    ends: tuple[int, int],
    reason: str,
    sentence_of: Any,
) -> None:
    """Contradict the route's end these rules found wrong; clear ``check_routes``' flag on the other."""
    _move_route_flag(findings, wrong[0], ends)
    _flag(findings, added, wrong[0], wrong[1], wrong[2], reason, sentence_of)


def _other_end(
    a: str, b: str, a_at: int, b_at: int, candidates: list[_Trip]
) -> tuple[int, str, list[Fact]] | None:
    """The end of the route a to b that a candidate trip sharing the other end replaces."""
    same_dest = [t for t in candidates if _ends(t)[1] == b and _ends(t)[0] != a]
    same_origin = [t for t in candidates if _ends(t)[0] == a and _ends(t)[1] != b]
    if same_dest and not same_origin:
        return a_at, a, same_dest[0].facts
    if same_origin and not same_dest:
        return b_at, b, same_origin[0].facts
    return None


def check_trips(
    answer: str, findings: list[Finding], ev: Evidence, sentence_of: Any, turn_start: int = -1
) -> list[Finding]:
    """Relabel, in place, the codes, dates and identifiers of trips the run does not have (see the module);
    return findings for codes that had none (the caller adds them).

    >>> from .messages import parse_run
    >>> from .evidence import build_evidence
    >>> from .grounding import ground_answer
    >>> args = '{"origin": "IAH", "destination": "SFO", "date": "2024-05-19"}'
    >>> run = parse_run([{"role": "user", "content": "Flights?"},
    ...     {"role": "assistant", "content": "", "tool_calls": [{"id": "c", "type": "function",
    ...      "function": {"name": "search", "arguments": args}}]},
    ...     {"role": "tool", "tool_call_id": "c", "content": '[{"flight_number": "HAT072", "origin": "IAH",'
    ...      ' "destination": "SFO"}]'},
    ...     {"role": "assistant", "content": "x"}])
    >>> ev = build_evidence(run)
    >>> def bad(answer):
    ...     return [f.mention.text for f in ground_answer(answer, ev, turn_start=0) if f.label != "SUPPORTED"]
    >>> bad("Flight HAT072 from IAH to SFO on May 19, 2024."), bad("Flight HAT072 from JFK to SFO.")
    ([], ['JFK'])
    >>> bad("Flight HAT072 from IAH to SFO on 2024-05-21.")
    ['2024-05-21']
    """
    routes = list(_ROUTE.finditer(answer))
    labelled = list(_LABELLED.finditer(answer))
    idents = [f for f in findings if f.label == "SUPPORTED" and _IDENT.fullmatch(f.mention.text)]
    for f in findings:
        # A name read with its identifier ("Flight HAT072"): the identifier is what the record carries.
        tail = _NAMED_IDENT.search(f.mention.text) if f.mention.kind == "entity" else None
        if tail is not None and f.label == "SUPPORTED":
            at = f.mention.start + tail.start()
            idents.append(
                Finding(Mention("id", at, at + len(tail.group()), tail.group()), "SUPPORTED", f.sentence)
            )
    idents.sort(key=lambda f: f.mention.start)
    if not routes and not labelled and not idents:
        return []
    trips = _trips(ev)
    if not trips:
        return []
    added: list[Finding] = []
    dates = sorted(
        (f for f in findings if f.mention.kind == "date" and _day(f)), key=lambda f: f.mention.start
    )
    codes = {c for t in trips for c in _ends(t)}
    turn = [t for t in trips if t.call and t.message_index > turn_start] if turn_start >= 0 else []
    for m in routes:
        between = m.group(1) is not None
        a, b = (m.group(2), m.group(3)) if between else (m.group(4), m.group(5))
        a_at, b_at = (m.start(2), m.start(3)) if between else (m.start(4), m.start(5))
        if a == b or a not in codes or b not in codes:
            continue
        gap = _ROUTE_TO_DATE.match(answer, m.end())
        told = next((f for f in dates if gap is not None and f.mention.start == gap.end()), None)
        day = _day(told) if told is not None else None
        if (
            day is not None
            and told is not None
            and not _stated_by_people(ev, day)
            and not _joined(a, b, day, trips, between)
        ):
            # A route that introduces this turn's search of that day ("flights from JFK to SFO on May 19:"),
            # with one end of it, is that search's route with the other end wrong: the day is the search's,
            # not another day of the route's.
            lead = max(answer.rfind("\n", 0, m.start()) + 1, answer.rfind(". ", 0, m.start()) + 1)
            searched = None
            if turn and _SEARCH_LEAD.search(answer, lead, m.start()):
                searched = _other_end(a, b, a_at, b_at, [t for t in turn if day in t.days])
            if searched is not None:
                _flag_wrong_end(
                    findings,
                    added,
                    searched,
                    (a_at, b_at),
                    "this turn's search of this day joins other places",
                    sentence_of,
                )
                continue
            if _joined(a, b, None, [t for t in trips if t.days], between):
                cites = [t.days[k] for t in trips if set(_ends(t)) == {a, b} for k in t.days][:3]
                _flag(
                    findings,
                    added,
                    told.mention.start,
                    told.mention.text,
                    cites,
                    "the run has this route on other days",
                    sentence_of,
                )
                continue
            other = _other_end(a, b, a_at, b_at, [t for t in trips if day in t.days])
            if other is not None and not _joined(a, b, None, trips, True):
                _flag_wrong_end(
                    findings,
                    added,
                    other,
                    (a_at, b_at),
                    "on this day the run's trip joins other places",
                    sentence_of,
                )
                continue
        # A route that introduces the results of this turn's search is that search's route.
        line_start = max(answer.rfind("\n", 0, m.start()) + 1, answer.rfind(". ", 0, m.start()) + 1)
        if (
            turn
            and _SEARCH_LEAD.search(answer, line_start, m.start())
            and not _joined(a, b, None, turn, between)
        ):
            other = _other_end(a, b, a_at, b_at, turn)
            if other is not None:
                _flag_wrong_end(
                    findings,
                    added,
                    other,
                    (a_at, b_at),
                    "the search of this turn was for another route",
                    sentence_of,
                )
    if idents:
        _check_identified(answer, findings, added, trips, idents, dates, labelled, ev, sentence_of)
    return added


def _check_identified(
    answer: str,
    findings: list[Finding],
    added: list[Finding],
    trips: list[_Trip],
    idents: list[Finding],
    dates: list[Finding],
    labelled: list[re.Match[str]],
    ev: Evidence,
    sentence_of: Any,
) -> None:
    """A route or a date told in an identifier's block must be one of that identifier's records'."""
    own: dict[str, list[_Trip]] = {}
    for t in trips:
        for i in t.idents:
            own.setdefault(i, []).append(t)
    # A record's legs (a reservation's flights) are its routes too.
    legs: dict[Any, list[_Trip]] = {}
    for t in trips:
        if t.record[1]:
            legs.setdefault(t.record[0], []).append(t)
    starts = sorted(f.mention.start for f in idents)
    times_of: dict[Any, list[Fact]] = {}
    for x in ev.times:
        if x.source == "tool" and x.record is not None and x.path and x.path[0] != "tool_calls":
            times_of.setdefault(x.record, []).append(x)
    # Identifiers named together ("Flight HAT136 & HAT039") share the block under the last of them: a
    # route, a time or a date there may be any of theirs. The others' blocks end at the next one, empty.
    group_of: dict[int, list[Finding]] = {}
    for group in joined_identifiers(answer, sorted(idents, key=lambda g: g.mention.start)):
        for g in group:
            group_of[id(g)] = group
    for f in idents:
        group = group_of.get(id(f), [f])
        if f is not group[-1]:
            continue
        names = {g.mention.text for g in group}
        mine = [t for name in sorted(names) for t in own.get(name, ())]
        if not mine:
            continue
        end = _block_end(answer, f, starts, dates)
        # "Origin: BOS / Destination: CLT" copies the record's own two fields; a route in prose may be one
        # of its legs ("JG7FMM from MCO to BOS" of a reservation from MCO to CLT via BOS).
        routes = [
            (m.group(1), m.group(2), m.start(1), m.start(2), True)
            for m in labelled
            if f.mention.end <= m.start() and m.end() <= end
        ]
        routes += [
            (m.group(4), m.group(5), m.start(4), m.start(5), False)
            for m in _ROUTE.finditer(answer, f.mention.end, end)
            if not _NEXT_ITEM.match(answer, f.mention.end, m.start())
        ]
        # A route that heads the identifier on its line, "- JFK to LAS: Flight HAT112", is that flight's,
        # when nothing but a parenthesis without digits follows it there ("SFO to SEA: Flight HAT134 to PHX
        # and HAT020" or "... HAT134 (then HAT020)" heads a connection of two flights, not HAT134 alone).
        line_start = answer.rfind("\n", 0, group[0].mention.start) + 1
        line_end = answer.find("\n", f.mention.end)
        rest = answer[f.mention.end : len(answer) if line_end < 0 else line_end]
        for m in _ROUTE.finditer(answer, line_start, group[0].mention.start):
            if (
                len(group) == 1
                and m.group(4) is not None
                and _ROUTE_HEADS_ID.fullmatch(answer, m.end(), f.mention.start)
                and _LINE_TAIL.fullmatch(rest)
            ):
                routes.append((m.group(4), m.group(5), m.start(4), m.start(5), False))
        routes.sort(key=lambda r: r[2])
        for a, b, a_at, b_at, fields in routes[:1]:
            if a is None or b is None or a == b or _settled(findings, a_at, b_at):
                continue
            pool = list(mine)
            for t in mine:
                if not t.record[1] and not fields:
                    pool += legs.get(t.record[0], [])
            # A leg (a flight) goes one way; a whole record (a round trip) may be told either way.
            if _joined(a, b, None, pool, False) or any(_ends(t) == (b, a) and not t.record[1] for t in pool):
                continue
            other = _other_end(a, b, a_at, b_at, mine)
            if other is not None:
                _flag(
                    findings,
                    added,
                    other[0],
                    other[1],
                    other[2],
                    "the record of this identifier goes between other places",
                    sentence_of,
                )
            elif any(_ends(t) == (a, b) and t.idents - names for t in trips):
                _flag(
                    findings,
                    added,
                    f.mention.start,
                    f.mention.text,
                    mine[0].facts,
                    "this route is another record's",
                    sentence_of,
                )
        if not routes:
            _check_single_codes(answer, findings, added, f, end, mine, legs, trips, sentence_of)
        # A swapped identifier's times are the other item's, and right (grounding._blame_swapped_identifier).
        # It is left out of ``idents`` (not supported) but named in this group or block.
        if not any(
            g.label == "CONTRADICTED"
            and g.reason == SWAPPED_IDENTIFIER
            and group[0].mention.start <= g.mention.start < end
            for g in findings
        ):
            _check_times(findings, f, end, {t.record for t in mine}, times_of)
        searched = [t for t in mine if t.searched]
        if not searched:
            continue
        # A flight lands on its day or the next (an overnight arrival).
        days = {k for t in mine for k in t.days}
        days |= {_next_day(k) for k in days}
        told = [
            g
            for g in dates
            if f.mention.end <= g.mention.start < end
            and _day(g) not in days
            and not _stated_by_people(ev, _day(g) or (0, 0, 0))
        ]
        if not told:
            continue
        g = told[0]
        _flag(
            findings,
            added,
            g.mention.start,
            g.mention.text,
            [v for t in searched for v in t.days.values()][:3],
            "the search that returned this identifier was for another day",
            sentence_of,
        )


def _check_single_codes(
    answer: str,
    findings: list[Finding],
    added: list[Finding],
    f: Finding,
    end: int,
    mine: list[_Trip],
    legs: dict[Any, list[_Trip]],
    trips: list[_Trip],
    sentence_of: Any,
) -> None:
    """A place told alone in an identifier's block ("Departure: 05:00 PM from LAS", "Arrival: 08:00 PM at
    IAH", "- Origin: ATL") must be that end of the identifier's record; a whole record (a reservation)
    accepts any place of its legs. When the block's places are together another identified record's route,
    the identifier is the swapped value; otherwise the place is."""
    told: dict[str, tuple[str, int]] = {}
    for m in _SINGLE_CODE.finditer(answer, f.mention.end, end):
        word, code = lower(m.group(1)), m.group(2)
        if word in ("at", "in") and not _ARRIVAL.search(
            answer, max(f.mention.end, m.start() - 40), m.start()
        ):
            continue
        slot = "origin" if word in ("from", "origin") else "destination"
        told.setdefault(slot, (code, m.start(2)))
    if not told:
        return
    codes = {c for t in trips for c in _ends(t)}
    wrong: list[tuple[str, int, list[Fact]]] = []
    for slot, (code, at) in told.items():
        if code not in codes or _settled(findings, at):
            continue
        ok: set[str] = set()
        for t in mine:
            if t.record[1]:
                ok.add(_ends(t)[0 if slot == "origin" else 1])
            else:
                ok |= set(_ends(t))
                ok |= {c for u in legs.get(t.record[0], []) for c in _ends(u)}
        if code not in ok:
            wrong.append((code, at, mine[0].facts))
    if not wrong:
        return
    if len(told) == 2:
        route = (told["origin"][0], told["destination"][0])
        if any(_ends(t) == route and t.idents - {f.mention.text} for t in trips):
            _flag(
                findings,
                added,
                f.mention.start,
                f.mention.text,
                mine[0].facts,
                "these places are another record's",
                sentence_of,
            )
            return
    for code, at, cites in wrong:
        _flag(
            findings,
            added,
            at,
            code,
            cites,
            "the record of this identifier has another place here",
            sentence_of,
        )


def _check_times(
    findings: list[Finding], f: Finding, end: int, records: set[Any], times_of: dict[Any, list[Fact]]
) -> None:
    """A clock time told in an identifier's block that another record gives must be one of its own
    record's times ("Flight HAT072 departing at 11:00 AM" where HAT072 leaves at 09:00 and another
    flight lands at 11:00)."""
    own = [x for r in records for x in times_of.get(r, ())]
    if not own:
        return
    for g in findings:
        m = g.mention
        if m.kind != "time" or not f.mention.end <= m.start < end or m.time is None or g.label != "SUPPORTED":
            continue
        if any(tuple(x.value[:2]) == m.time for x in own):
            continue
        if all(x.record is not None and x.source == "tool" and x.record not in records for x in g.facts):
            g.label, g.facts, g.derived = "CONTRADICTED", own[:3], False
            g.reason = "the record this identifier names gives other times"


def _next_day(day: Day) -> Day:
    try:
        d = _date(*day) + timedelta(days=1)
    except (ValueError, OverflowError):  # not a calendar date, or 9999-12-31
        return day
    return (d.year, d.month, d.day)


def _block_end(answer: str, f: Finding, starts: list[int], dates: list[Finding]) -> int:
    """Where an identifier's details end: its sentence in prose; its line when the line tells a route or a
    date itself ("- JFK to ATL on 2024-05-22, Flight HAT268": the next bullet is another flight); else its
    line and the lines after it up to a blank line, a numbered item or a line indented less (the next item's
    head); never past the next identifier."""
    m = f.mention
    nxt = next((s for s in starts if s > m.start), len(answer))
    line_end = answer.find("\n", m.end)
    line_end = len(answer) if line_end < 0 else line_end
    if f.sentence[1] < line_end:
        return min(max(f.sentence[1], m.end), nxt)
    head = answer.rfind("\n", 0, m.start) + 1
    if _ROUTE.search(answer, head, line_end) or any(head <= g.mention.start < line_end for g in dates):
        return min(line_end, nxt)
    indent = len(answer[head : m.start]) - len(answer[head : m.start].lstrip())
    end = line_end
    while end < min(len(answer), nxt):
        stop = answer.find("\n", end + 1)
        stop = len(answer) if stop < 0 else stop
        line = answer[end + 1 : stop]
        if not line.strip() or _NUMBERED.match(line) or len(line) - len(line.lstrip()) < indent:
            break
        end = stop
    return min(end, nxt)


# A sentence that reports something failed or is not possible.
_FAILURE = re.compile(
    r"\b(?:not|no|unable|cannot|can't|couldn't|unfortunately|failed|error|insufficient)\b|n't\b", re.I
)


def _shape(ident: str) -> tuple[str, int]:
    """An identifier's letters before its first digit and its length: "HAT229" is ("HAT", 6)."""
    head = re.match(r"[A-Z]*", ident)
    return (head.group() if head else "", len(ident))


def check_failed_identifiers(
    answer: str, findings: list[Finding], ev: Evidence, turn_start: int, sentence_of: Any
) -> list[Finding]:
    """An identifier the answer says a failure was about must be the one the turn's error names.

    "There are not enough seats on flight HAT175" after the turn's call answered "Error: not enough seats on
    flight HAT229": HAT175 is a flight of the run (an option listed before), so the value rules support it,
    but the failure of this turn is about another identifier of the same kind (issue 14: a swapped flight
    number in a report of a failed call). Only an answer that never names the error's identifier is read,
    and only identifiers of the error's shape (same letters, same length) in a sentence telling a failure.

    >>> from .messages import parse_run
    >>> from .evidence import build_evidence
    >>> run = parse_run([{"role": "user", "content": "Book HAT175 or HAT229?"},
    ...     {"role": "tool", "tool_call_id": "c", "content": "Error: not enough seats on flight HAT229"},
    ...     {"role": "assistant", "content": "x"}])
    >>> ev = build_evidence(run)
    >>> def bad(answer):
    ...     return [f.mention.text for f in check_failed_identifiers(answer, [], ev, 0, lambda i: (0, 99))]
    >>> bad("Flight HAT175 has not enough seats."), bad("Flight HAT229 has not enough seats.")
    (['HAT175'], [])
    """
    if turn_start < 0:
        return []
    errors = [
        (idx, text)
        for idx, text in ev.contents.items()
        if idx > turn_start and lower(text.lstrip()[:40]).lstrip("{[\"' ").startswith("error")
    ]
    if not errors:
        return []
    named = {i for _, text in errors for i in _IDENT.findall(text)}
    if not named or any(i in answer for i in named):
        return []
    shapes = {_shape(i) for i in named}
    cites = [x for x in ev.strings if any(x.message_index == idx for idx, _ in errors)][:3]
    added: list[Finding] = []
    for m in re.finditer(r"\b[A-Z0-9]{5,10}\b", answer):
        ident = m.group()
        if not _IDENT.fullmatch(ident) or _shape(ident) not in shapes:
            continue
        sent = sentence_of(m.start())
        if not _FAILURE.search(answer, sent[0], sent[1]):
            continue
        _flag(
            findings,
            added,
            m.start(),
            ident,
            cites,
            "the error of this turn names another identifier",
            sentence_of,
        )
    return added
