"""Issue 14: trips told with their day, a search's route, an identifier's route, day and times
(``trips.check_trips``).

The runs are written for these tests: a made-up coach operator between Swiss stations (codes of three
letters), a booking fetched in an earlier turn and a search in the answer's own turn, the shape of the long
customer-service runs where a value of the earlier booking, swapped into a sentence about the search, is
still a value of the run (so each value alone is supported).
"""

import json
from typing import Any

import pytest

from tests.engine_runs.runs_helpers import flagged as _flagged
from verification.engine.runs import verify_run

_BOOKING = {
    "booking": "K7QX2B",
    "origin": "BSL",
    "destination": "GVA",
    "legs": [
        {"origin": "BSL", "destination": "BRN", "coach": "CX410", "date": "2025-09-03"},
        {"origin": "BRN", "destination": "GVA", "coach": "CX415", "date": "2025-09-03"},
    ],
}
_SEARCH = [
    {"coach": "CX120", "origin": "ZRH", "destination": "GVA", "departs": "08:15:00", "arrives": "11:05:00"},
    {"coach": "CX128", "origin": "ZRH", "destination": "GVA", "departs": "17:45:00", "arrives": "20:35:00"},
]


def _assert_only(report: Any, bad: str | None) -> None:
    """Nothing flagged, or one contradicted claim that holds ``bad`` (a code may be read with its route)."""
    found = _flagged(report)
    if bad is None:
        assert found == []
    else:
        assert len(found) == 1 and bad in found[0][0] and found[0][1] == "CONTRADICTED", found


def _call(i: int, name: str, args: dict[str, str]) -> dict[str, Any]:
    fn = {"name": name, "arguments": json.dumps(args)}
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": f"c{i}", "type": "function", "function": fn}],
    }


def _run(answer: str, search: list[dict[str, Any]] = _SEARCH, ask: str = "Any coaches instead?") -> list[Any]:
    """The booking read in the first turn, a search from ZRH to GVA on 2025-09-04 in the answer's turn."""
    return [
        {"role": "user", "content": "Can you look at my booking K7QX2B?"},
        _call(0, "get_booking", {"booking": "K7QX2B"}),
        {"role": "tool", "tool_call_id": "c0", "content": json.dumps(_BOOKING)},
        {"role": "assistant", "content": "I found your booking K7QX2B from BSL to GVA."},
        {"role": "user", "content": ask},
        _call(1, "search_coaches", {"origin": "ZRH", "destination": "GVA", "date": "2025-09-04"}),
        {"role": "tool", "tool_call_id": "c1", "content": json.dumps(search)},
        {"role": "assistant", "content": answer},
    ]


@pytest.mark.parametrize(
    "answer,bad",
    [
        ("Coaches run from ZRH to GVA on September 4, 2025: CX120 and CX128.", None),
        # The booking's route on its own day, told again.
        ("Your booking went BSL to GVA via BRN; BSL to BRN on 2025-09-03.", None),
        # The search's route on a day nothing gives: the run has that route on the 4th only.
        ("Coaches run from ZRH to GVA on September 6, 2025: CX120 and CX128.", "September 6, 2025"),
        # On the 4th the run's trip from ZRH goes to GVA, and nothing in the run joins ZRH and BRN.
        ("Coaches run from ZRH to BRN on September 4, 2025: CX120 and CX128.", "BRN"),
    ],
)
def test_it_reads_a_route_with_the_day_it_is_told_on(answer, bad):
    report = verify_run(_run(answer))
    _assert_only(report, bad)


def test_it_leaves_a_day_the_user_asked_for_alone():
    answer = "There are no coaches from ZRH to GVA on September 6, 2025 in what I found."
    report = verify_run(_run(answer, ask="Any coaches from ZRH to GVA on September 6, 2025?"))
    assert _flagged(report) == []


@pytest.mark.parametrize(
    "answer,bad",
    [
        ("I found coaches from ZRH to GVA: CX120 and CX128.", None),
        # BRN to GVA is a leg of the earlier booking, but the search of this turn left from ZRH.
        ("There are no coaches from BRN to GVA for that day.", "BRN"),
        ("I found coaches between BRN and GVA: CX120 and CX128.", "BRN"),
    ],
)
def test_it_reads_a_route_that_opens_search_results_as_the_turns_search(answer, bad):
    report = verify_run(_run(answer, search=_SEARCH if "found" in answer else []))
    _assert_only(report, bad)


@pytest.mark.parametrize(
    "answer,bad",
    [
        ("Coach CX120 goes from ZRH to GVA.", None),
        # A coach runs one way: CX120 goes ZRH to GVA, not back.
        ("Coach CX120 goes from GVA to ZRH.", "CX120"),
        # The booking's legs are its routes in prose; its own two fields are the booking's ends.
        ("Booking K7QX2B includes BRN to GVA.", None),
        ("1. **Booking:** K7QX2B\n   - Origin: BSL\n   - Destination: GVA", None),
        ("1. **Booking:** K7QX2B\n   - Origin: BRN\n   - Destination: GVA", "BRN"),
    ],
)
def test_it_reads_a_route_told_with_an_identifier_as_that_records(answer, bad):
    search = [*_SEARCH, {"coach": "CX130", "origin": "GVA", "destination": "ZRH", "departs": "09:00:00"}]
    report = verify_run(_run(answer, search=search))
    _assert_only(report, bad)


@pytest.mark.parametrize(
    "answer,bad",
    [
        (
            "- **Coach:** CX120\n- **Departs:** September 4, 2025 at 08:15\n- **Arrives:** September 4, 2025",
            None,
        ),
        # A search result's day is the day searched for.
        ("- **Coach:** CX120\n- **Departs:** September 9, 2025 at 08:15", "September 9, 2025"),
        # Its times are its own: 17:45 is CX128's.
        ("You picked coach CX120 departing at 17:45 from ZRH.", "17:45"),
        ("You picked coach CX120 departing at 08:15 from ZRH.", None),
    ],
)
def test_it_reads_a_day_and_a_time_told_with_an_identifier_as_that_records(answer, bad):
    report = verify_run(_run(answer))
    _assert_only(report, bad)


def test_it_keeps_an_identifier_s_details_to_its_own_line_when_the_line_tells_them():
    # Each bullet is one leg: the next bullet's route is not the first identifier's.
    answer = "Your legs:\n- BSL to BRN on 2025-09-03, Coach CX410\n- BRN to GVA on 2025-09-03, Coach CX415"
    assert _flagged(verify_run(_run(answer))) == []


@pytest.mark.parametrize(
    "answer,bad",
    [
        ("Coach CX128 has not enough seats left. Would you like another coach?", None),
        # CX120 is an option of the run, but this turn's error is about CX128.
        ("Unfortunately coach CX120 has not enough seats left. Would you like another coach?", "CX120"),
    ],
)
def test_it_reads_the_identifier_of_a_failure_as_the_one_the_turns_error_names(answer, bad):
    msgs = _run("Options: CX120 (08:15) and CX128 (17:45).")[:-1]
    msgs += [
        {"role": "user", "content": "Book the later one."},
        _call(2, "book_coach", {"coach": "CX128"}),
        {"role": "tool", "tool_call_id": "c2", "content": "Error: not enough seats on coach CX128"},
        {"role": "assistant", "content": answer},
    ]
    _assert_only(verify_run(msgs), bad)


@pytest.mark.parametrize(
    "answer,bad",
    [
        ("- **Coach:** CX120\n  - Departs: 08:15 from ZRH\n  - Arrives: 11:05 at GVA", None),
        # CX120 goes ZRH to GVA; BRN to GVA is coach CX415's leg: the identifier is the swapped value.
        ("- **Coach:** CX120\n  - Departs: 08:15 from BRN\n  - Arrives: 11:05 at GVA", "CX120"),
        # CX120 arrives at GVA, and no record goes from ZRH to BSL: the place is the swapped value.
        ("- **Coach:** CX120\n  - Departs: 08:15 from ZRH\n  - Arrives: 11:05 at BSL", "BSL"),
        # A booking accepts any place of its legs.
        ("- **Booking:** K7QX2B\n  - Changes at BRN, from BSL", None),
    ],
)
def test_it_reads_a_place_told_alone_with_an_identifier_as_that_records_end(answer, bad):
    _assert_only(verify_run(_run(answer)), bad)
