"""Issue 14: identifiers named together under one heading, and totals of an item's own fares.

"1. **Trains IC512 & IC519**" heads the details of both legs of a connection: a departure or a route on the
lines under it may be either train's (``findings.joined_identifiers``). "- Total Price: $232" under the second
of several connections adds that connection's fares, which the records of everything told before it must
not push out of the operands (``grounding._context_facts``). The runs are written for these tests: a made-up
rail search whose connections share their second leg.
"""

import pytest

from tests.engine_runs.runs_helpers import flagged as _flagged
from tests.engine_runs.runs_helpers import run_with_calls as _run
from verification.engine.runs import verify_run


def _leg(number, origin, destination, departs, arrives, second, first):
    return {
        "flight_number": number,
        "origin": origin,
        "destination": destination,
        "scheduled_departure_time_est": departs,
        "scheduled_arrival_time_est": arrives,
        "status": "available",
        "available_seats": {"second": 11, "first": 4},
        "prices": {"second": second, "first": first},
        "date": "2024-06-20",
    }


# Three connections from BRU to MRS, all through LYS on the same second leg IC519.
_LAST = _leg("IC519", "LYS", "MRS", "22:00:00", "03:00:00+1", 103, 283)
_SEARCH = [
    [_leg("IC401", "BRU", "LYS", "07:00:00", "09:30:00", 141, 477), _LAST],
    [_leg("IC512", "BRU", "LYS", "19:00:00", "21:30:00", 152, 277), _LAST],
    [_leg("IC618", "BRU", "LYS", "18:00:00", "20:30:00", 129, 342), _LAST],
]

_OPTIONS = (
    "Here are connections from BRU to MRS on June 20, 2024:\n\n"
    "1. **Trains IC512 & IC519**\n"
    "   - **First Leg:** BRU to LYS\n"
    "     - Departure: {dep1}\n"
    "     - Arrival: 09:30 PM\n"
    "   - **Second Leg:** LYS to MRS\n"
    "     - Departure: 10:00 PM\n"
    "   - Total Price: $255\n\n"
    "2. **Trains IC618 & IC519**\n"
    "   - **First Leg:** BRU to LYS\n"
    "     - Departure: 06:00 PM\n"
    "   - **Second Leg:** LYS to MRS\n"
    "     - Departure: 10:00 PM\n"
    "   - Total Price: {total}\n\n"
    "Which one would you like?"
)


def _verify(answer):
    return verify_run(_run("Trains from BRU to MRS on June 20?", [("search_trains", {}, _SEARCH)], answer))


def test_it_reads_the_lines_under_a_joined_heading_as_either_legs():
    # IC512 leaves at 19:00 and IC519 at 22:00; the first leg's lines are under the second train's name.
    assert _flagged(_verify(_OPTIONS.format(dep1="07:00 PM", total="$232"))) == []


def test_it_still_flags_a_time_no_leg_of_the_heading_has():
    # 08:00 PM is neither IC512's nor IC519's departure (nor any other train's): still a wrong time.
    flagged = _flagged(_verify(_OPTIONS.format(dep1="08:00 PM", total="$232")))
    assert [text for text, _ in flagged] == ["08:00 PM"]


@pytest.mark.parametrize("total,bad", [("$232", None), ("$242", "$242")])
def test_it_adds_the_fares_of_the_item_a_total_closes(total, bad):
    # 129 + 103 = 232: the second connection's fares; 242 is no sum of them.
    flagged = _flagged(_verify(_OPTIONS.format(dep1="07:00 PM", total=total)))
    assert [text for text, _ in flagged] == ([] if bad is None else [bad])


# Twelve connections through LYS: a place every first leg shares, told first, gives more records than the
# operands kept.
_WIDE = [
    [_leg(f"IC7{k:02d}", "BRU", "LYS", f"{6 + k:02d}:00:00", f"{8 + k:02d}:30:00", 160 + 7 * k, 400), _LAST]
    for k in range(12)
]


@pytest.mark.parametrize("total,bad", [("$284", None), ("$286", "$286")])
def test_it_adds_the_fares_of_the_trains_a_total_follows(total, bad):
    # IC703 costs 181 and IC519 103: 284. Every first leg leaves BRU, named before either train.
    answer = (
        "From BRU through LYS to MRS on June 20, 2024, I picked:\n"
        "- IC703 departing 09:00\n"
        "- IC519 departing 22:00\n"
        f"- Total Price: {total}"
    )
    report = verify_run(_run("Trains from BRU to MRS on June 20?", [("search_trains", {}, _WIDE)], answer))
    assert [text for text, _ in _flagged(report)] == ([] if bad is None else [bad])
